/* Printing problems and failures for report.h. */
#include "clients/report.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clients/output.h"

/* Members of a problem or an error object that get their own place in the
 * printout; the others are listed as "name: value". */
static bool is_framed(const char *key)
{
	static const char *const framed[] = {"type",   "title",     "status",  "code",    "detail",
					     "errors", "retryable", "opIndex", "pointer", NULL};
	for (size_t i = 0; framed[i]; i++)
		if (strcmp(key, framed[i]) == 0)
			return true;
	return false;
}

/* Prints "name: value, name: value" for the members not framed elsewhere. */
static void print_extras(FILE *f, const char *indent, json_t *o)
{
	const char *key;
	json_t *v;
	struct rig_bytes cell;
	rig_bytes_init(&cell);
	bool any = false;
	json_object_foreach(o, key, v)
	{
		if (is_framed(key))
			continue;
		rig_bytes_clear(&cell);
		rig_out_cell(&cell, v);
		fprintf(f, "%s%s: %s", any ? ", " : indent, key, cell.data ? cell.data : "");
		any = true;
	}
	if (any)
		fputc('\n', f);
	rig_bytes_release(&cell);
}

void rig_report_error(FILE *f, size_t i, const json_t *e)
{
	const char *code = json_string_value(json_object_get(e, "code"));
	const char *detail = json_string_value(json_object_get(e, "detail"));
	const char *pointer = json_string_value(json_object_get(e, "pointer"));
	json_t *op = json_object_get(e, "opIndex");
	fprintf(f, "  error %zu: %s", i + 1, code ? code : "(no code)");
	if (pointer)
		fprintf(f, " at %s", pointer[0] ? pointer : "(the whole body)");
	if (json_is_integer(op))
		fprintf(f, " (op %" JSON_INTEGER_FORMAT ")", json_integer_value(op));
	fprintf(f, ": %s\n", detail ? detail : "(no detail)");
	print_extras(f, "    ", (json_t *)e);
}

int rig_report_response(FILE *f, const char *prog, const struct rig_http_resp *resp)
{
	json_t *p = resp->body.len ? json_loadb(resp->body.data, resp->body.len, 0, NULL) : NULL;
	const char *code = json_string_value(json_object_get(p, "code"));
	if (!code) {
		/* Not a problem body: a proxy page, an empty 5xx. Show its first line. */
		const char *body = resp->body.data ? resp->body.data : "";
		size_t len = strcspn(body, "\r\n");
		fprintf(f, "%s: the server answered HTTP %ld%s%.*s%s\n", prog, resp->status,
			len ? ": " : " with no explanation", (int)(len > 200 ? 200 : len), body,
			len > 200 ? "..." : "");
		json_decref(p);
		return RIG_EXIT_FAIL;
	}
	const char *detail = json_string_value(json_object_get(p, "detail"));
	const char *title = json_string_value(json_object_get(p, "title"));
	fprintf(f, "%s: %s (HTTP %ld%s%s): %s\n", prog, code, resp->status, title ? ", " : "",
		title ? title : "", detail ? detail : "(no detail)");
	print_extras(f, "  ", p);
	json_t *errors = json_object_get(p, "errors");
	size_t i;
	json_t *e;
	json_array_foreach(errors, i, e) rig_report_error(f, i, e);
	json_t *total = json_object_get(p, "errorCount");
	if (json_is_integer(total) && (size_t)json_integer_value(total) > json_array_size(errors))
		fprintf(f, "  (%" JSON_INTEGER_FORMAT " errors in all; the first %zu are shown)\n",
			json_integer_value(total), json_array_size(errors));
	if (json_is_true(json_object_get(p, "retryable")))
		fprintf(f, "  retryable: true\n");
	const char *type = json_string_value(json_object_get(p, "type"));
	if (type && type[0] == '/')
		fprintf(f, "  how to fix it: GET %s\n", type);
	json_decref(p);
	return RIG_EXIT_FAIL;
}

int rig_report_transport(FILE *f, const char *prog, const struct rig_http *h)
{
	fprintf(f, "%s: %s\n", prog, h->error[0] ? h->error : "the request failed");
	return RIG_EXIT_FAIL;
}

int rig_report_fail(FILE *f, const char *prog, const char *fmt, ...)
{
	va_list ap;
	fprintf(f, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	return RIG_EXIT_FAIL;
}

/* A 401 to a request sent without a token: where the client looked for one,
 * and how to get one. */
static void report_no_token(FILE *f, const char *prog, const struct rig_http *h)
{
	fprintf(f,
		"%s: no API token was sent; looked in %s\n"
		"  to get one, run on the machine that holds the server's database:\n"
		"    rigd token create --db PATH --name NAME --scope edit\n"
		"  and export RIGD_TOKEN=<the secret it prints>; or set RIGD_DB=PATH (or\n"
		"  RIGD_TOKEN_FILE=PATH.token) to use the admin token rigd wrote beside its\n"
		"  database on first start\n",
		prog, h->token_searched[0] ? h->token_searched : "RIGD_TOKEN (not set)");
}

int rig_report_send(FILE *f, const char *prog, int rc, const struct rig_http *h,
		    const struct rig_http_resp *resp)
{
	if (rc != 0)
		return rig_report_transport(f, prog, h);
	if (rig_http_ok(resp))
		return RIG_EXIT_OK;
	rig_report_response(f, prog, resp);
	if (resp->status == 401 && !h->token)
		report_no_token(f, prog, h);
	return RIG_EXIT_FAIL;
}

int rig_report_next_token(FILE *f, const char *prog, char **token, const char *next)
{
	if (*token && strcmp(*token, next) == 0)
		return rig_report_fail(f, prog, "the server sent the same page token twice");
	free(*token);
	if (!(*token = strdup(next)))
		return rig_report_fail(f, prog, "out of memory");
	return RIG_EXIT_OK;
}
