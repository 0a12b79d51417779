/* mesh-data: pages through a layer's mesh collections (SPEC §7, §9) from a
 * terminal or a pipeline. This file holds the command line and the paging
 * loop; printing items is mesh_format.c's, HTTP is http_client.c's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/args.h"
#include "clients/http_client.h"
#include "clients/mesh_format.h"
#include "clients/mesh_kinds.h" /* openapi.yaml's MeshDataKind, written at build time */
#include "clients/report.h"
#include "clients/url.h"
#include "version/version.h"

#define PROG "mesh-data"

/* X(ID, row...): mesh-data's options, the one table (clients/args.h) from
 * which their parsing with bounds, RIGD_URL, the defaults, --help and the
 * option table of clients/README.md (`mesh-data --options-markdown`,
 * compared by tests/e2e/test_clients_options_table.py) come. */
#define MESH_DATA_OPTIONS(X)                                                                       \
	X(URL, RIG_HTTP_URL_OPTION)                                                                \
	X(SHOT, .name = "shot", .metavar = "ID", .min = 1, .required = RIG_ARG_EVERY,              \
	  .help = "the shot")                                                                      \
	X(LAYER, .name = "layer", .metavar = "ID", .min = 1, .required = RIG_ARG_EVERY,            \
	  .help = "the mesh layer")                                                                \
	X(KIND, .name = "kind", .shape = RIG_ARG_CHOICE,                                           \
	  .choices = RIG_ARG_CHOICES(RIG_MESH_KIND_NAMES), .kebab = true,                          \
	  .required = RIG_ARG_EVERY,                                                               \
	  .help = "the collection, a `MeshDataKind` of openapi.yaml in kebab case; the "           \
		  "contract's camelCase spelling (`pinWeights`) works too")                        \
	X(FRAME, .name = "frame", .metavar = "F", .shape = RIG_ARG_NUMBER,                         \
	  .def_doc = "bind vertices", .help = "vertices evaluated at frame F")                     \
	X(SPACE, .name = "space", .shape = RIG_ARG_CHOICE,                                         \
	  .choices = RIG_ARG_CHOICES("local", "shot"), .def = "local",                             \
	  .help = "the space of evaluated vertices")                                               \
	X(PAGE_SIZE, .name = "page-size", .metavar = "N", RIG_ARG_AT_LEAST(1),                     \
	  .def_doc = "the server's, 1000",                                                         \
	  .help = "items per page; the server takes at most 10000")                                \
	X(MAX_BYTES, .name = "max-bytes", .metavar = "N", RIG_ARG_AT_LEAST(1),                     \
	  .def_doc = "the server's, 1 MiB", .help = "bytes of encoded items per page")             \
	X(PAGE_TOKEN, .name = "page-token", .metavar = "T", .min = 1,                              \
	  .help = "start at the page a previous `nextPageToken` names")                            \
	X(ALL, .name = "all", .shape = RIG_ARG_FLAG,                                               \
	  .help = "follow `nextPageToken` to the end, printing as pages arrive")                   \
	X(FORMAT, .name = "format", .shape = RIG_ARG_CHOICE,                                       \
	  .choices = RIG_ARG_CHOICES("table", "json", "ndjson", "csv"),                            \
	  .def_doc = "`table` on a terminal, else `ndjson`",                                       \
	  .help = "how items print: aligned columns, each page as JSON, one item per line or CSV") \
	X(VERSION, .name = "version", .shape = RIG_ARG_FLAG,                                       \
	  .help = "print the version and the build's git commit")                                  \
	X(HELP, .name = "help", .shape = RIG_ARG_FLAG, .help = "this text, also `-h`")

enum opt {
#define MESH_DATA_OPTION_ID(id, ...) O_##id,
	MESH_DATA_OPTIONS(MESH_DATA_OPTION_ID)
#undef MESH_DATA_OPTION_ID
		O_COUNT
};

static const struct rig_arg_spec options[O_COUNT] = {
#define MESH_DATA_OPTION_ROW(id, ...) [O_##id] = {__VA_ARGS__},
	MESH_DATA_OPTIONS(MESH_DATA_OPTION_ROW)
#undef MESH_DATA_OPTION_ROW
};

static const struct rig_args_doc options_doc = {options, O_COUNT, NULL};

/* --help: this, the options, then help_tail. */
static const char help_head[] =
	"Usage: mesh-data --shot ID --layer ID --kind KIND [options]\n"
	"\n"
	"Reads a layer's mesh collection from rigd, one page or all of them.\n"
	"\n";

static const char help_tail[] =
	"\n"
	"The API token is $RIGD_TOKEN, else the first line of $RIGD_TOKEN_FILE, else of\n"
	"$RIGD_DB.token, else of ./rigd.db.token (the admin token rigd writes on first start).\n"
	"\n"
	"Formats:\n"
	"  table   aligned columns and a footer with the count, the shot version and,\n"
	"          when more pages follow, the --page-token to continue with\n"
	"  ndjson  one item per line, as the server sends it\n"
	"  json    the page as the server sends it, on one line; with --all one page\n"
	"          per line (JSON Lines of pages)\n"
	"  csv     a header row, then one row per item:\n"
	"            joints     jointId,layerId,a,b,c,d,e,f  (bind = [a, b, c, d, e, f])\n"
	"            weights    vertexIndex,jointId,weight   (one row per influence)\n"
	"            vertices   vertexIndex,x,y\n"
	"            triangles  triangleIndex,i,j,k\n"
	"            keyframes  keyIndex,frame,interp,ease,vertexIndex,x,y\n"
	"                       (one row per key vertex; a mesh binding's keys)\n"
	"            pins       pinIndex,id,x,y,vertexIndex,rotation,stiffness,scale,\n"
	"                       overlap,overlapExtent,keys  (a puppet's pins; keys: the\n"
	"                       pin's keys per channel as one JSON cell, empty without\n"
	"                       keys; a table shows \"rotation 2, overlap 1\")\n"
	"            pin-weights  vertexIndex,pinId,weight  (one row per pin weight)\n"
	"Kinds are spelled in kebab case (pin-weights); the contract's camelCase\n"
	"(pinWeights) works too.\n"
	"Numbers print with the fewest digits that read back as the same double.\n"
	"\n"
	"Exit codes: 0 ok, 1 the server refused (its problem is printed on stderr)\n"
	"or could not be reached, 2 usage error.\n"
	"\n"
	"Examples:\n"
	"  mesh-data --shot s1 --layer arm --kind joints\n"
	"  mesh-data --shot s1 --layer arm --kind weights --all --format csv > weights.csv\n"
	"  mesh-data --shot s1 --layer arm --kind vertices --frame 12 --space shot --all\n"
	"  mesh-data --shot s1 --layer cloth --kind keyframes --all --format csv > keys.csv\n"
	"  mesh-data --shot s1 --layer card --kind pins\n"
	"  mesh-data --shot s1 --layer card --kind pin-weights --all --format csv > w.csv\n"
	"  RIGD_URL=http://rigd:8080 mesh-data --shot s1 --layer arm --kind triangles \\\n"
	"      --page-size 500 --all | jq -c .indices\n";

/* What the command line asks for, validated. Strings are borrowed from argv. */
struct request {
	const char *url, *shot, *layer, *frame, *space, *page_size, *max_bytes, *page_token;
	const char *kind; /* one of RIG_MESH_KIND_NAMES (pinWeights for --kind pin-weights) */
	enum rig_mesh_format format;
	bool all;
};

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "mesh-data: <message>" and a hint to --help. Returns RIG_EXIT_USAGE. */
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry '" PROG " --help'.\n", stderr);
	return RIG_EXIT_USAGE;
}

/* Fills r from the settled options. */
static void fill(struct request *r, const struct rig_arg *o)
{
	r->url = o[O_URL].value;
	r->shot = o[O_SHOT].text;
	r->layer = o[O_LAYER].text;
	r->kind = options[O_KIND].choices[o[O_KIND].choice]; /* as the contract spells it */
	r->frame = o[O_FRAME].text;
	r->space = o[O_SPACE].text;
	r->page_size = o[O_PAGE_SIZE].text;
	r->max_bytes = o[O_MAX_BYTES].text;
	r->page_token = o[O_PAGE_TOKEN].text;
	/* the row's words in enum rig_mesh_format's order */
	r->format = o[O_FORMAT].given       ? (enum rig_mesh_format)o[O_FORMAT].choice
		    : isatty(STDOUT_FILENO) ? RIG_MESH_TABLE
					    : RIG_MESH_NDJSON;
	r->all = o[O_ALL].given;
}

/* Fetches the page after token (NULL: the first) into *out_page. Returns
 * RIG_EXIT_OK, or RIG_EXIT_FAIL with the failure printed. */
static int fetch(struct rig_http *h, const struct request *r, const char *token,
		 struct rig_http_resp *resp, json_t **out_page)
{
	struct rig_url u;
	int rc = RIG_EXIT_FAIL;
	*out_page = NULL;
	rig_url_init(&u);
	rig_url_path(&u, "/v1/shots");
	rig_url_segment(&u, r->shot);
	rig_url_path(&u, "/layers");
	rig_url_segment(&u, r->layer);
	rig_url_path(&u, "/mesh-data");
	rig_url_segment(&u, r->kind);
	rig_url_query(&u, "frame", r->frame);
	rig_url_query(&u, "space", r->space);
	rig_url_query(&u, "pageSize", r->page_size);
	rig_url_query(&u, "maxBytes", r->max_bytes);
	rig_url_query(&u, "pageToken", token);
	struct rig_http_req req = {.target = rig_url_get(&u)};
	if (!req.target) {
		rc = rig_report_fail(stderr, PROG, "out of memory");
		goto out;
	}
	int sent = rig_http_send(h, &req, resp);
	if (sent != 0 || !rig_http_ok(resp)) {
		rc = rig_report_send(stderr, PROG, sent, h, resp);
		goto out;
	}
	json_error_t jerr;
	json_t *page = json_loadb(resp->body.data, resp->body.len, 0, &jerr);
	if (!json_is_array(json_object_get(page, "items"))) {
		json_decref(page);
		rc = rig_report_fail(stderr, PROG,
				     "the server's answer is not a mesh-data page (HTTP %ld, %s)",
				     resp->status, jerr.text[0] ? jerr.text : "no items array");
		goto out;
	}
	*out_page = page;
	rc = RIG_EXIT_OK;
out:
	rig_url_release(&u);
	return rc;
}

/* Prints the first page, and with --all every page after it. */
static int run(struct rig_http *h, const struct request *r)
{
	struct rig_mesh_printer printer;
	struct rig_http_resp resp;
	json_t *page = NULL, *last = NULL;
	char *token = r->page_token ? strdup(r->page_token) : NULL;
	int rc = RIG_EXIT_OK;
	rig_mesh_printer_init(&printer, r->format, r->kind, stdout);
	rig_http_resp_init(&resp);
	if (r->page_token && !token) {
		rc = rig_report_fail(stderr, PROG, "out of memory");
		goto out;
	}
	for (;;) {
		rc = fetch(h, r, token, &resp, &page);
		if (rc != RIG_EXIT_OK)
			goto out;
		json_decref(last);
		last = page;
		if (rig_mesh_print_page(&printer, page, resp.body.data, resp.body.len) != 0 ||
		    fflush(stdout) != 0) {
			rc = rig_report_fail(stderr, PROG, "cannot write the output");
			goto out;
		}
		const char *next = json_string_value(json_object_get(page, "nextPageToken"));
		if (!r->all || !next)
			break;
		if ((rc = rig_report_next_token(stderr, PROG, &token, next)) != RIG_EXIT_OK)
			goto out;
	}
	const char *next = json_string_value(json_object_get(last, "nextPageToken"));
	if (rig_mesh_print_end(&printer, last, next != NULL) != 0 || fflush(stdout) != 0) {
		rc = rig_report_fail(stderr, PROG, "cannot write the output");
		goto out;
	}
	if (next && (r->format == RIG_MESH_NDJSON || r->format == RIG_MESH_CSV))
		fprintf(stderr,
			PROG ": more items follow; continue with --page-token %s, or use --all\n",
			next);
out:
	json_decref(last);
	free(token);
	rig_http_resp_release(&resp);
	rig_mesh_printer_release(&printer);
	return rc;
}

/* Prints --help, or with markdown the README's option table. Returns an
 * exit code. */
static int print_help(bool markdown)
{
	if (markdown) {
		rig_args_print_markdown(stdout, &options_doc);
	} else {
		fputs(help_head, stdout);
		rig_args_print_help(stdout, &options_doc, 0);
		fputs(help_tail, stdout);
	}
	return fflush(stdout) != 0 || ferror(stdout)
		       ? rig_report_fail(stderr, PROG, "cannot write the output")
		       : RIG_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct rig_arg opts[O_COUNT];
	const char *words[1];
	size_t n_words = 0;
	char err[256];
	if (argc == 2 && strcmp(argv[1], "--options-markdown") == 0)
		return print_help(true);
	if (rig_args_parse(opts, options, O_COUNT, argc, argv, words, 0, &n_words, err,
			   sizeof err) != 0)
		return usage_error("%s", err);
	if (opts[O_HELP].given)
		return print_help(false);
	if (opts[O_VERSION].given)
		return rig_version_print(stdout, PROG) == 0
			       ? RIG_EXIT_OK
			       : rig_report_fail(stderr, PROG, "cannot write the output");
	if (rig_args_resolve(opts, options, O_COUNT, 0, PROG, err, sizeof err) != 0)
		return usage_error("%s", err);
	struct request r;
	fill(&r, opts);
	int rc;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return rig_report_fail(stderr, PROG, "cannot initialise libcurl");
	struct rig_http h;
	if (rig_http_init(&h, r.url, NULL) != 0)
		rc = rig_report_transport(stderr, PROG, &h);
	else
		rc = run(&h, &r);
	rig_http_release(&h);
	curl_global_cleanup();
	return rc;
}
