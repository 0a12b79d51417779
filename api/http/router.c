/* The dispatcher: path matching against the route table (api/app.c),
 * 404/405, draining, the caller's identity and scope (auth.c), the query
 * parameters a route reads; every keyed write goes through idempotency.c.
 */
#include "api/http/router.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/bulk.h"
#include "api/http/idempotency.h"
#include "api/http/problem.h"
#include "api/util/textbuf.h"
#include "core/ids.h"

/* Matches path against pattern, capturing ids. 1 = match, 0 = no match,
 * -1 = the shape matches but a captured segment is not a valid id. */
static int match(const char *pattern, const char *path, char params[][RIG_ID_MAX + 1])
{
	size_t n_params = 0;
	bool bad_id = false;
	while (*pattern && *path) {
		if (*pattern != '/' || *path != '/')
			return 0;
		pattern++;
		path++;
		const char *pend = strchr(pattern, '/');
		const char *send = strchr(path, '/');
		size_t plen = pend ? (size_t)(pend - pattern) : strlen(pattern);
		size_t slen = send ? (size_t)(send - path) : strlen(path);
		if (plen == 2 && memcmp(pattern, "{}", 2) == 0) {
			if (!rig_id_is_valid_n(path, slen))
				bad_id = true;
			else if (n_params < RIG_MAX_PATH_PARAMS) {
				memcpy(params[n_params], path, slen);
				params[n_params++][slen] = '\0';
			}
		} else if (plen != slen || memcmp(pattern, path, plen) != 0) {
			return 0;
		}
		pattern += plen;
		path += slen;
	}
	if (*pattern || *path)
		return 0;
	return bad_id ? -1 : 1;
}
/* ---- dispatch ---- */

static bool is_write(const char *method)
{
	return strcmp(method, "GET") && strcmp(method, "HEAD") && strcmp(method, "OPTIONS");
}

/* ---- query parameters ---- */

#define MAX_ROUTE_PARAMS 32 /* bits of query_refused's seen mask; routes read at most 7 */

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Bytes of a parameter name a problem quotes. */
#define PARAM_SHOWN_MAX 128

/* A parameter name as a client would read it: name (n bytes of the canonical,
 * percent-encoded query) decoded when that gives clean UTF-8, else as it
 * stands in the canonical query; at most PARAM_SHOWN_MAX bytes. Writes
 * out[PARAM_SHOWN_MAX + 1]. */
static void param_display(char out[PARAM_SHOWN_MAX + 1], const char *name, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n && len < PARAM_SHOWN_MAX; i++) {
		int hi = i + 2 < n ? hex_digit(name[i + 1]) : -1;
		int lo = i + 2 < n ? hex_digit(name[i + 2]) : -1;
		if (name[i] == '%' && hi >= 0 && lo >= 0) {
			out[len++] = (char)(hi << 4 | lo);
			i += 2;
		} else {
			out[len++] = name[i];
		}
	}
	out[len] = '\0';
	if (strlen(out) != len || !rig_utf8_is_clean(out))
		snprintf(out, PARAM_SHOWN_MAX + 1, "%.*s",
			 (int)(n < PARAM_SHOWN_MAX ? n : PARAM_SHOWN_MAX), name);
}

/* Index of name (n bytes) among the route's space-separated parameters, or -1. */
static int param_index(const struct rig_route *route, const char *name, size_t n)
{
	const char *p = route->query ? route->query : "", *word;
	size_t len;
	for (int k = 0; rig_words_next(&p, &word, &len); k++)
		if (len == n && memcmp(word, name, n) == 0)
			return k;
	return -1;
}

/* Refuses a query the route does not read (SPEC: unknown and repeated
 * parameters are errors, never ignored): walks the canonical query string,
 * where names are percent-encoded after libmicrohttpd decoded them, so
 * "dry%52un" is dryRun and a '&', '=' or NUL inside a name is no structure.
 * Empty segments ("a=1&&b=2") are skipped. Returns true with resp filled: 400
 * INVALID_PARAMETER for an unknown or repeated name, 400 INVALID_QUERY for a
 * value with a NUL byte. */
static bool query_refused(struct rig_req *req, struct rig_resp *resp, const struct rig_route *route)
{
	const char *p = req->query_string ? req->query_string : "";
	uint32_t seen = 0;
	char shown[PARAM_SHOWN_MAX + 1];
	while (*p) {
		size_t len = strcspn(p, "&");
		size_t n_name = strcspn(p, "&=");
		bool has_value = n_name < len;
		const char *value = p + n_name + 1;
		size_t n_value = has_value ? len - n_name - 1 : 0;
		if (n_name == 0 && !has_value) {
			p += len + (p[len] == '&');
			continue;
		}
		int k = param_index(route, p, n_name);
		param_display(shown, p, n_name);
		if (k < 0 || k >= MAX_ROUTE_PARAMS || (seen & (UINT32_C(1) << k))) {
			const char *why = k >= 0         ? "is given more than once"
					  : route->query ? "is not one this route reads"
							 : "given, but this route reads none";
			rig_problem(resp, RIG_INVALID_PARAMETER,
				    json_pack("{s:s, s:o}", "parameter", shown, "validParameters",
					      rig_api__words_json(route->query)),
				    "query parameter '%s' %s", shown, why);
			return true;
		}
		seen |= UINT32_C(1) << k;
		for (size_t i = 0; i + 2 < n_value; i++)
			if (memcmp(value + i, "%00", 3) == 0) {
				rig_problem(resp, RIG_INVALID_QUERY,
					    json_pack("{s:s}", "parameter", shown),
					    "query parameter '%s' contains a NUL byte", shown);
				return true;
			}
		p += len + (p[len] == '&');
	}
	return false;
}

static void dispatch(struct rig_req *req, struct rig_resp *resp, const struct rig_route *route)
{
	if (rig_auth_gate(req, resp, (enum rig_scope)route->access, route->owner))
		return;
	if (query_refused(req, resp, route))
		return;
	req->idem_key = is_write(req->method) ? rig_api__header(req, "Idempotency-Key") : NULL;
	if (req->idem_key)
		rig_api__idem_run(req, resp, route->handler);
	else
		route->handler(req, resp);
}

/* The route answering method on path with valid ids, or NULL. */
static const struct rig_route *route_for(const char *method, const char *path)
{
	char params[RIG_MAX_PATH_PARAMS][RIG_ID_MAX + 1];
	for (size_t i = 0; i < rig_n_routes; i++)
		if (strcmp(rig_routes[i].method, method) == 0 &&
		    match(rig_routes[i].pattern, path, params) > 0)
			return &rig_routes[i];
	return NULL;
}

bool rig_api_admit_body(struct rig_req *req, struct rig_resp *resp)
{
	const struct rig_route *route = route_for(req->method, req->path);
	/* No route: the 404/405 comes after the body, from rig_api_handle. */
	return !route || route->access == ACCESS_PUBLIC ||
	       rig_auth_check_reach(req, resp, (enum rig_scope)route->access) == 0;
}

enum rig_route_run rig_api_route_run(const char *method, const char *path)
{
	const struct rig_route *route = route_for(method, path);
	return route ? route->run : RIG_RUN_WORKER;
}

bool rig_api_run_here(const struct rig_req *req, struct rig_resp *resp, size_t work)
{
	if (!req->on_io_thread || work <= RIG_LIGHT_WORK_MAX)
		return true;
	resp->deferred = true;
	return false;
}

void rig_api_handle(struct rig_req *req, struct rig_resp *resp)
{
	char allow[128] = "";
	bool path_known = false, bad_id = false;
	const struct rig_route *found = NULL;
	for (size_t i = 0; i < rig_n_routes; i++) {
		int m = match(rig_routes[i].pattern, req->path, req->params);
		if (m == 0)
			continue;
		if (m < 0) {
			bad_id = true;
			continue;
		}
		path_known = true;
		size_t used = strlen(allow);
		snprintf(allow + used, sizeof allow - used, "%s%s%s", used ? ", " : "",
			 rig_routes[i].method, strcmp(rig_routes[i].method, "GET") ? "" : ", HEAD");
		bool head_of_get =
			!strcmp(req->method, "HEAD") && !strcmp(rig_routes[i].method, "GET");
		if ((strcmp(rig_routes[i].method, req->method) == 0 || head_of_get) && !found)
			found = &rig_routes[i];
	}
	if (found) {
		/* Re-match so params hold this route's captures. */
		match(found->pattern, req->path, req->params);
		if (req->arrived_draining && strcmp(found->pattern, "/healthz") != 0) {
			rig_problem(resp, RIG_SHUTTING_DOWN, NULL, "the server is shutting down");
			rig_resp_header(resp, "Retry-After", "1");
			return;
		}
		dispatch(req, resp, found);
		rig_bulk_free(req->bulk); /* what the handler did not move out */
		req->bulk = NULL;
		return;
	}
	if (path_known && strcmp(req->method, "OPTIONS") == 0) {
		resp->status = 204;
		rig_resp_header(resp, "Allow", "%s, OPTIONS", allow);
		return;
	}
	if (path_known) {
		rig_problem(resp, RIG_METHOD_NOT_ALLOWED, json_pack("{s:s}", "method", req->method),
			    "method '%.10s' is not allowed here", req->method);
		rig_resp_header(resp, "Allow", "%s, OPTIONS", allow);
		return;
	}
	if (bad_id) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "path"),
			    "an id in the path is not 1-64 characters of [A-Za-z0-9_.:-]"
			    " other than '.' and '..'");
		return;
	}
	rig_problem(resp, RIG_NOT_FOUND, NULL, "no route for '%.100s'", req->path);
}
