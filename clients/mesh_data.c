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

static const char usage_text[] =
	"Usage: mesh-data --shot ID --layer ID --kind KIND [options]\n"
	"\n"
	"Reads a layer's mesh collection from rigd, one page or all of them.\n"
	"\n"
	"  --url URL          server (default: $RIGD_URL, else " RIG_HTTP_DEFAULT_URL ")\n"
	"  The API token is $RIGD_TOKEN, else the first line of $RIGD_TOKEN_FILE, else of\n"
	"  $RIGD_DB.token, else of ./rigd.db.token (the admin token rigd writes on first start).\n"
	"  --shot ID          the shot\n"
	"  --layer ID         the mesh layer\n"
	"  --kind KIND        joints | weights | vertices | triangles | keyframes\n"
	"  --frame F          vertices evaluated at frame F (default: bind vertices)\n"
	"  --space S          local | shot: space of evaluated vertices (default local)\n"
	"  --page-size N      items per page (server default 1000, at most 10000)\n"
	"  --max-bytes N      bytes of encoded items per page (server default 1 MiB)\n"
	"  --page-token T     start at the page a previous nextPageToken names\n"
	"  --all              follow nextPageToken to the end, printing as pages arrive\n"
	"  --format F         table | json | ndjson | csv\n"
	"                     (default: table on a terminal, ndjson otherwise)\n"
	"  --version          print the version and the build's git commit\n"
	"  -h, --help         this text\n"
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
	"  RIGD_URL=http://rigd:8080 mesh-data --shot s1 --layer arm --kind triangles \\\n"
	"      --page-size 500 --all | jq -c .indices\n";

enum opt {
	O_URL,
	O_SHOT,
	O_LAYER,
	O_KIND,
	O_FRAME,
	O_SPACE,
	O_PAGE_SIZE,
	O_MAX_BYTES,
	O_PAGE_TOKEN,
	O_ALL,
	O_FORMAT,
	O_HELP,
	O_VERSION,
	O_COUNT
};

/* What the command line asks for, validated. Strings are borrowed from argv. */
struct request {
	const char *url, *shot, *layer, *frame, *space, *page_size, *max_bytes, *page_token;
	const char *kind; /* one of RIG_MESH_KIND_NAMES */
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

static int pick(const char *value, const char *const *names, size_t n, int *out)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(value, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	return -1;
}

/* Fills r from the options. Returns RIG_EXIT_OK or RIG_EXIT_USAGE (printed). */
static int validate(struct request *r, const struct rig_opt *o)
{
	static const char *const formats[] = {"table", "json", "ndjson", "csv"};
	static const char *const spaces[] = {"local", "shot"};
	const char *required[] = {"--shot", "--layer", "--kind"};
	const enum opt req_ids[] = {O_SHOT, O_LAYER, O_KIND};
	for (size_t i = 0; i < 3; i++)
		if (!o[req_ids[i]].value || !o[req_ids[i]].value[0])
			return usage_error("%s is required", required[i]);
	static const char *const kinds[] = {RIG_MESH_KIND_NAMES};
	int k = 0, f = 0, s = 0;
	long long n = 0;
	double d = 0;
	if (pick(o[O_KIND].value, kinds, RIG_MESH_KIND_COUNT, &k) != 0)
		return usage_error("--kind '%s' is not " RIG_MESH_KIND_TEXT, o[O_KIND].value);
	if (o[O_FORMAT].value && pick(o[O_FORMAT].value, formats, 4, &f) != 0)
		return usage_error("--format '%s' is not table, json, ndjson or csv",
				   o[O_FORMAT].value);
	if (!o[O_FORMAT].value)
		f = isatty(STDOUT_FILENO) ? RIG_MESH_TABLE : RIG_MESH_NDJSON;
	if (o[O_SPACE].value && pick(o[O_SPACE].value, spaces, 2, &s) != 0)
		return usage_error("--space '%s' is not local or shot", o[O_SPACE].value);
	if (o[O_FRAME].value && rig_args_double(&d, o[O_FRAME].value) != 0)
		return usage_error("--frame '%s' is not a finite number", o[O_FRAME].value);
	if (o[O_PAGE_SIZE].value && rig_args_llong(&n, o[O_PAGE_SIZE].value, true) != 0)
		return usage_error("--page-size '%s' is not a positive integer",
				   o[O_PAGE_SIZE].value);
	if (o[O_MAX_BYTES].value && rig_args_llong(&n, o[O_MAX_BYTES].value, true) != 0)
		return usage_error("--max-bytes '%s' is not a positive integer",
				   o[O_MAX_BYTES].value);
	if (o[O_PAGE_TOKEN].seen && !o[O_PAGE_TOKEN].value[0])
		return usage_error("--page-token must not be empty");
	const char *env_url = getenv("RIGD_URL");
	r->url = o[O_URL].value        ? o[O_URL].value
		 : env_url && *env_url ? env_url
				       : RIG_HTTP_DEFAULT_URL;
	r->shot = o[O_SHOT].value;
	r->layer = o[O_LAYER].value;
	r->frame = o[O_FRAME].value;
	r->space = o[O_SPACE].value;
	r->page_size = o[O_PAGE_SIZE].value;
	r->max_bytes = o[O_MAX_BYTES].value;
	r->page_token = o[O_PAGE_TOKEN].value;
	r->kind = kinds[k];
	r->format = (enum rig_mesh_format)f;
	r->all = o[O_ALL].seen;
	return RIG_EXIT_OK;
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

int main(int argc, char **argv)
{
	struct rig_opt opts[O_COUNT] = {
		[O_URL] = {"url", true, 0, NULL, false},
		[O_SHOT] = {"shot", true, 0, NULL, false},
		[O_LAYER] = {"layer", true, 0, NULL, false},
		[O_KIND] = {"kind", true, 0, NULL, false},
		[O_FRAME] = {"frame", true, 0, NULL, false},
		[O_SPACE] = {"space", true, 0, NULL, false},
		[O_PAGE_SIZE] = {"page-size", true, 0, NULL, false},
		[O_MAX_BYTES] = {"max-bytes", true, 0, NULL, false},
		[O_PAGE_TOKEN] = {"page-token", true, 0, NULL, false},
		[O_ALL] = {"all", false, 0, NULL, false},
		[O_FORMAT] = {"format", true, 0, NULL, false},
		[O_HELP] = {"help", false, 0, NULL, false},
		[O_VERSION] = {"version", false, 0, NULL, false},
	};
	const char *words[1];
	size_t n_words = 0;
	char err[256];
	if (rig_args_parse(opts, O_COUNT, argc, argv, words, 0, &n_words, err, sizeof err) != 0)
		return usage_error("%s", err);
	if (opts[O_HELP].seen) {
		fputs(usage_text, stdout);
		return RIG_EXIT_OK;
	}
	if (opts[O_VERSION].seen)
		return rig_version_print(stdout, PROG) == 0
			       ? RIG_EXIT_OK
			       : rig_report_fail(stderr, PROG, "cannot write the output");
	struct request r = {.url = NULL};
	int rc = validate(&r, opts);
	if (rc != RIG_EXIT_OK)
		return rc;
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
