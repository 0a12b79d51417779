/* rigctl import and rigctl export: other tools' documents into and out of a
 * shot (issue 26).
 *
 *   import FILE   POST /v1/shots/{id}/import?format=… with FILE's bytes as
 *                 the body, unchanged (the document is the server's to judge,
 *                 so its problems point into it as written); the write
 *                 options of rigctl edit go in the query, which is where this
 *                 route reads them. Prints the receipt, the import report's
 *                 summary and mapping, and each unsupported or adjusted
 *                 feature on stderr (those in every output format).
 *   export        GET /v1/shots/{id}/export?format=…: the document's bytes,
 *                 unchanged, to stdout or --output FILE (binary ones never to a
 *                 terminal unless asked), and the count of what the format
 *                 could not carry (X-Rigd-Export-Unsupported) on stderr;
 *                 --report prints the export report instead.
 *
 * Formats are passed through as given: which ones import or export is the
 * server's to say (INVALID_QUERY with validFormats), so rigctl needs no
 * change when one lands. What the documents mean is api/interchange/'s.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/output.h"
#include "clients/report.h"
#include "clients/rigctl.h"
#include "clients/table.h"
#include "clients/url.h"

#define EXPORT_COUNT_HEADER "X-Rigd-Export-Unsupported"

/* Sends req and keeps the answer in resp (initialised). Returns RIG_EXIT_OK
 * for a 2xx answer, else RIG_EXIT_FAIL with what went wrong printed. */
static int send_req(struct rig_ctl *c, const struct rig_http_req *req, struct rig_http_resp *resp)
{
	if (!req->target)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	int sent = rig_http_send(&c->http, req, resp);
	return rig_report_send(stderr, RIG_CTL_PROG, sent, &c->http, resp);
}

/* Whether s ends with suffix. */
static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* ---- import ---- */

/* The format to import doc (the bytes of path) as: --format, else rig2d for
 * a name ending in .rig2d.json, else spine for a JSON object with a
 * skeleton.spine string (Spine's version member). NULL with a usage error
 * printed when none of them says. */
static const char *import_format(const struct rig_ctl *c, const char *path,
				 const struct rig_bytes *doc)
{
	const char *given = rig_ctl_opt(c, RIG_CTL_O_DOC_FORMAT);
	if (given)
		return given;
	if (ends_with(path, ".rig2d.json"))
		return "rig2d";
	json_t *root = json_loadb(doc->data ? doc->data : "", doc->len, 0, NULL);
	bool is_spine = json_is_string(json_object_get(json_object_get(root, "skeleton"), "spine"));
	json_decref(root);
	if (is_spine)
		return "spine";
	rig_ctl_usage("--format is required: %s%s%s is not named *.rig2d.json and holds no Spine "
		      "skeleton.spine",
		      strcmp(path, "-") == 0 ? "" : "'", strcmp(path, "-") == 0 ? "stdin" : path,
		      strcmp(path, "-") == 0 ? "" : "'");
	return NULL;
}

/* Adds the write options of the edit commands to u's query: rigctl edit puts
 * --expected-version and --lock-id/--fencing-token in its body, and this
 * route's body is the document, so the same helpers fill a scratch object
 * (with their checks and messages) whose members move to the query. Returns
 * an exit code. */
static int import_query(struct rig_url *u, const struct rig_ctl *c)
{
	json_t *opts = json_object();
	int rc = RIG_EXIT_OK;
	if (!opts)
		return rig_report_fail(stderr, RIG_CTL_PROG, "out of memory");
	if ((rc = rig_ctl_expected_version(c, opts)) != RIG_EXIT_OK ||
	    (rc = rig_ctl_fence_opts(c, opts)) != RIG_EXIT_OK)
		goto out;
	const char *key;
	json_t *v;
	json_object_foreach(opts, key, v)
	{
		char number[32];
		if (json_is_integer(v))
			snprintf(number, sizeof number, "%" JSON_INTEGER_FORMAT,
				 json_integer_value(v));
		rig_url_query(u, key, json_is_integer(v) ? number : json_string_value(v));
	}
	if (rig_ctl_flag(c, RIG_CTL_O_DRY_RUN))
		rig_url_query(u, "dryRun", "true");
	if (rig_ctl_flag(c, RIG_CTL_O_CHECK_FRAMES))
		rig_url_query(u, "checkFrames", "true");
	rig_url_query(u, "idPrefix", rig_ctl_opt(c, RIG_CTL_O_IMPORT_ID_PREFIX));
	rig_url_query(u, "parentId", rig_ctl_opt(c, RIG_CTL_O_IMPORT_PARENT));
out:
	json_decref(opts);
	return rc;
}

/* Prints one note of an import report (unsupported or adjusted) on stderr:
 * "rigctl: import: unsupported: sprite at /sprite: detail". */
static void print_note(const char *kind, const json_t *note)
{
	const char *feature = json_string_value(json_object_get(note, "feature"));
	const char *source = json_string_value(json_object_get(note, "source"));
	const char *layer = json_string_value(json_object_get(note, "layerId"));
	const char *detail = json_string_value(json_object_get(note, "detail"));
	fprintf(stderr, RIG_CTL_PROG ": import: %s: %s", kind, feature ? feature : "?");
	if (source)
		fprintf(stderr, " at %s", source[0] ? source : "(the whole document)");
	if (layer)
		fprintf(stderr, " (layer %s)", layer);
	fprintf(stderr, "%s%s\n", detail ? ": " : "", detail ? detail : "");
}

/* The import report's table printout, under the receipt's: a summary line and
 * what became what ("mapped   bone  /bones/0  base"). */
static void print_report_summary(const json_t *report)
{
	json_t *mapped = json_object_get(report, "mapped");
	const char *format = json_string_value(json_object_get(report, "format"));
	size_t n_unsupported = json_array_size(json_object_get(report, "unsupported")),
	       n_adjusted = json_array_size(json_object_get(report, "adjusted"));
	printf("import   %s: %zu mapped, %zu unsupported, %zu adjusted%s\n", format ? format : "?",
	       json_array_size(mapped), n_unsupported, n_adjusted,
	       n_unsupported + n_adjusted ? " (listed on stderr)" : "");
	size_t i;
	json_t *m;
	json_array_foreach(mapped, i, m)
	{
		const char *kind = json_string_value(json_object_get(m, "kind"));
		const char *source = json_string_value(json_object_get(m, "source"));
		const char *layer = json_string_value(json_object_get(m, "layerId"));
		const char *other = json_string_value(json_object_get(m, "constraintId"));
		printf("%s %-10s %-24s %s\n", i ? "        " : "mapped  ", kind ? kind : "?",
		       source ? source : "-",
		       layer   ? layer
		       : other ? other
			       : "-");
	}
}

int rig_ctl_import(struct rig_ctl *c)
{
	const char *path = c->args[0];
	struct rig_bytes doc;
	struct rig_url u;
	struct rig_http_resp resp;
	json_t *receipt = NULL;
	int rc;
	rig_bytes_init(&doc);
	rig_url_init(&u);
	rig_http_resp_init(&resp);
	if ((rc = rig_ctl_read_file(&doc, path)) != RIG_EXIT_OK)
		goto out;
	const char *format = import_format(c, path, &doc);
	if (!format) {
		rc = RIG_EXIT_USAGE;
		goto out;
	}
	rig_ctl_target(&u, "shots", rig_ctl_opt(c, RIG_CTL_O_SHOT), "/import");
	rig_url_query(&u, "format", format);
	if ((rc = import_query(&u, c)) != RIG_EXIT_OK)
		goto out;
	/* an empty file is still a body (the server's MALFORMED_JSON) */
	struct rig_http_req req = {.method = "POST",
				   .target = rig_url_get(&u),
				   .body = doc.data ? doc.data : "",
				   .body_len = doc.len,
				   .idempotency_key = rig_ctl_opt(c, RIG_CTL_O_IDEMPOTENCY_KEY)};
	if ((rc = send_req(c, &req, &resp)) != RIG_EXIT_OK)
		goto out;
	json_error_t jerr;
	if (!(receipt =
		      json_loadb(resp.body.data ? resp.body.data : "", resp.body.len, 0, &jerr))) {
		rc = rig_report_fail(stderr, RIG_CTL_PROG,
				     "the server's answer is not JSON (HTTP %ld): %s", resp.status,
				     jerr.text);
		goto out;
	}
	json_t *report =
		json_object_get(json_array_get(json_object_get(receipt, "ops"), 0), "importReport");
	if (c->format == RIG_CTL_TABLE) {
		rc = rig_ctl_print_receipt(receipt);
		if (rc == RIG_EXIT_OK && report)
			print_report_summary(report);
	} else {
		rc = rig_ctl_print_json(receipt);
	}
	/* stdout first, so a terminal shows the notes after the receipt */
	fflush(stdout);
	size_t i;
	json_t *note;
	json_array_foreach(json_object_get(report, "unsupported"), i, note)
		print_note("unsupported", note);
	json_array_foreach(json_object_get(report, "adjusted"), i, note)
		print_note("adjusted", note);
	if (rc == RIG_EXIT_OK && ferror(stdout))
		rc = rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output");
out:
	json_decref(receipt);
	rig_http_resp_release(&resp);
	rig_url_release(&u);
	rig_bytes_release(&doc);
	return rc;
}

/* ---- export ---- */

/* Whether a body of content type ct is text a terminal can show: JSON (and
 * its +json kinds) or text/. An answer without a type counts as binary. */
static bool is_text(const char *ct)
{
	size_t n = strcspn(ct, ";");
	return strncmp(ct, "text/", 5) == 0 || (n >= 4 && strncmp(ct + n - 4, "json", 4) == 0);
}

/* Writes body to the file at path, created or replaced; a failed write
 * removes it. Returns an exit code. */
static int write_file(const char *path, const struct rig_bytes *body)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return rig_report_fail(stderr, RIG_CTL_PROG, "cannot write '%s': %s", path,
				       strerror(errno));
	bool ok = fwrite(body->data ? body->data : "", 1, body->len, f) == body->len;
	int saved = errno;
	if (fclose(f) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	if (ok)
		return RIG_EXIT_OK;
	remove(path);
	return rig_report_fail(stderr, RIG_CTL_PROG, "cannot write '%s': %s", path,
			       strerror(saved));
}

/* The export report as a table: a line naming the shot and version, then a
 * row per unsupported feature. */
static int print_export_report(const json_t *report)
{
	static const char *const headers[] = {"feature", "layer", "detail"};
	json_t *items = json_object_get(report, "unsupported");
	const char *format = json_string_value(json_object_get(report, "format"));
	const char *shot = json_string_value(json_object_get(report, "shotId"));
	printf("%s export of shot %s version %" JSON_INTEGER_FORMAT ": %zu unsupported\n",
	       format ? format : "?", shot ? shot : "?",
	       json_integer_value(json_object_get(report, "shotVersion")), json_array_size(items));
	struct rig_table t;
	rig_table_init(&t, 3, headers, NULL);
	size_t i;
	json_t *item;
	json_array_foreach(items, i, item)
	{
		rig_ctl_cell(&t, item, "feature");
		rig_ctl_cell(&t, item, "layerId");
		rig_ctl_cell(&t, item, "detail");
	}
	int rc = json_array_size(items) ? rig_table_flush(&t, stdout) : 0;
	rig_table_release(&t);
	return rc != 0 || ferror(stdout)
		       ? rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output")
		       : RIG_EXIT_OK;
}

/* Prints an export report answer (json: as one line; table: print_export_report). */
static int print_report_answer(const struct rig_ctl *c, const struct rig_http_resp *resp)
{
	json_error_t jerr;
	json_t *report =
		json_loadb(resp->body.data ? resp->body.data : "", resp->body.len, 0, &jerr);
	if (!report)
		return rig_report_fail(stderr, RIG_CTL_PROG,
				       "the server's answer is not JSON (HTTP %ld): %s",
				       resp->status, jerr.text);
	int rc = c->format == RIG_CTL_TABLE ? print_export_report(report)
					    : rig_ctl_print_json(report);
	json_decref(report);
	return rc;
}

/* Writes the document to stdout as it came, unless it is binary and stdout a
 * terminal (then a usage error: --output FILE, or --output - to insist).
 * Returns an exit code. */
static int write_stdout(const struct rig_http_resp *resp, const char *format, bool insist)
{
	if (!insist && !is_text(resp->content_type) && isatty(STDOUT_FILENO))
		return rig_ctl_usage("the %s document is binary (%s): not written to a terminal; "
				     "redirect stdout, or use --output FILE (--output - writes it "
				     "here anyway)",
				     format,
				     resp->content_type[0] ? resp->content_type : "no type");
	if (fwrite(resp->body.data ? resp->body.data : "", 1, resp->body.len, stdout) !=
		    resp->body.len ||
	    fflush(stdout) != 0)
		return rig_report_fail(stderr, RIG_CTL_PROG, "cannot write the output");
	return RIG_EXIT_OK;
}

int rig_ctl_export(struct rig_ctl *c)
{
	const char *format = rig_ctl_opt(c, RIG_CTL_O_DOC_FORMAT);
	const char *output = rig_ctl_opt(c, RIG_CTL_O_OUTPUT);
	bool report = rig_ctl_flag(c, RIG_CTL_O_REPORT);
	bool to_stdout = !output || strcmp(output, "-") == 0;
	struct rig_url u;
	struct rig_http_resp resp;
	char version[32];
	int rc;
	rig_url_init(&u);
	rig_http_resp_init(&resp);
	rig_ctl_target(&u, "shots", rig_ctl_opt(c, RIG_CTL_O_SHOT), "/export");
	rig_url_query(&u, "format", format);
	if (rig_ctl_opt(c, RIG_CTL_O_VERSION)) {
		snprintf(version, sizeof version, "%lld", rig_ctl_int(c, RIG_CTL_O_VERSION));
		rig_url_query(&u, "version", version);
	}
	if (report)
		rig_url_query(&u, "report", "true");
	struct rig_http_req req = {.target = rig_url_get(&u), .keep_header = EXPORT_COUNT_HEADER};
	if ((rc = send_req(c, &req, &resp)) != RIG_EXIT_OK)
		goto out;
	if (!to_stdout)
		rc = write_file(output, &resp.body);
	else if (report)
		rc = print_report_answer(c, &resp);
	else
		rc = write_stdout(&resp, format, output != NULL);
	long n_unsupported = strtol(resp.header, NULL, 10);
	if (rc == RIG_EXIT_OK && !report && n_unsupported > 0)
		fprintf(stderr,
			RIG_CTL_PROG
			": export: %ld feature%s of the shot %s not in the %s document "
			"as rigd has %s ('rigctl export --report' lists them)\n",
			n_unsupported, n_unsupported == 1 ? "" : "s",
			n_unsupported == 1 ? "is" : "are", format,
			n_unsupported == 1 ? "it" : "them");
out:
	rig_http_resp_release(&resp);
	rig_url_release(&u);
	return rc;
}
