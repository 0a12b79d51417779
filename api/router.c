/* The routing table and the dispatcher: path matching, 404/405, draining,
 * the caller's identity; every keyed write goes through idempotency.c.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "auth.h"
#include "batch.h"
#include "bulk.h"
#include "committer.h"
#include "read_cache.h"
#include "frames.h"
#include "idempotency.h"
#include "ids.h"
#include "membudget.h"
#include "locks.h"
#include "ratelimit.h"
#include "receipts.h"
#include "resources.h"
#include "sha256.h"
#include "textbuf.h"

/* Who may call a route (auth.c): nobody needs a token for a public route; the
 * others need the scope named, on every project (a global scope) or on the
 * project the route's first path id belongs to (struct route.owner). */
enum route_access {
	ACCESS_PUBLIC = RIG_SCOPE_NONE,
	ACCESS_READ = RIG_SCOPE_READ,
	ACCESS_EDIT = RIG_SCOPE_EDIT,
	ACCESS_ADMIN = RIG_SCOPE_ADMIN,
};

/* What the first path id of a route names, so a project-scoped token can be
 * checked against the project that owns it. */
enum route_owner {
	OWNER_NONE = -1,
	OWNER_PROJECT = RIG_RESOURCE_PROJECT,
	OWNER_SHOT = RIG_RESOURCE_SHOT,
	OWNER_PLAN = RIG_RESOURCE_PLAN,
	OWNER_LOCK = RIG_RESOURCE_LOCK,
	OWNER_RECEIPT = RIG_RESOURCE_RECEIPT,
};

struct route {
	const char *method;
	const char *pattern; /* segments; "{}" captures an id into req->params */
	rig_handler handler;
	bool quick; /* a write whose work is bounded by its (small) body: rig_api_route_is_quick */
	enum route_access access;
	enum route_owner owner;
	const char *query; /* the query parameters the route reads, space-separated; NULL: none */
};

#define PAGED "pageSize pageToken"

static const struct route routes[] = {
	{"GET", "/healthz", rig_h_healthz, false, ACCESS_PUBLIC, OWNER_NONE, NULL},
	{"GET", "/readyz", rig_h_readyz, false, ACCESS_PUBLIC, OWNER_NONE, NULL},
	{"GET", "/v1/limits", rig_h_limits, false, ACCESS_READ, OWNER_NONE, NULL},
	{"GET", "/v1/errors", rig_h_errors, false, ACCESS_PUBLIC, OWNER_NONE, NULL},
	{"GET", "/v1/errors/{}", rig_h_error, false, ACCESS_PUBLIC, OWNER_NONE, NULL},
	{"GET", "/v1/openapi.yaml", rig_h_openapi, false, ACCESS_PUBLIC, OWNER_NONE, NULL},
	{"POST", "/v1/projects", rig_h_project_create, true, ACCESS_ADMIN, OWNER_NONE, NULL},
	{"GET", "/v1/projects", rig_h_project_list, false, ACCESS_READ, OWNER_NONE, PAGED},
	{"GET", "/v1/projects/{}", rig_h_project_get, false, ACCESS_READ, OWNER_PROJECT, NULL},
	{"DELETE", "/v1/projects/{}", rig_h_project_delete, false, ACCESS_ADMIN, OWNER_PROJECT,
	 NULL},
	{"POST", "/v1/projects/{}/shots", rig_h_shot_create, true, ACCESS_EDIT, OWNER_PROJECT,
	 NULL},
	{"GET", "/v1/projects/{}/shots", rig_h_shot_list, false, ACCESS_READ, OWNER_PROJECT, PAGED},
	{"GET", "/v1/shots/{}", rig_h_shot_get, false, ACCESS_READ, OWNER_SHOT, NULL},
	{"DELETE", "/v1/shots/{}", rig_h_shot_delete, false, ACCESS_ADMIN, OWNER_SHOT, NULL},
	{"GET", "/v1/shots/{}/layers/{}", rig_h_layer_get, false, ACCESS_READ, OWNER_SHOT, NULL},
	{"POST", "/v1/shots/{}/edits", rig_h_edits, true, ACCESS_EDIT, OWNER_SHOT, "dryRun"},
	{"GET", "/v1/shots/{}/receipts", rig_h_receipt_list, false, ACCESS_READ, OWNER_SHOT, PAGED},
	{"GET", "/v1/receipts/{}", rig_h_receipt_get, false, ACCESS_READ, OWNER_RECEIPT, NULL},
	{"GET", "/v1/shots/{}/frames/{}", rig_h_frame, false, ACCESS_READ, OWNER_SHOT,
	 "layers space format"},
	{"GET", "/v1/shots/{}/layers/{}/frames", rig_h_frame_range, false, ACCESS_READ, OWNER_SHOT,
	 "from to step space format"},
	{"POST", "/v1/shots/{}/layers/{}/map-points", rig_h_map_points, false, ACCESS_READ,
	 OWNER_SHOT, "space"},
	{"POST", "/v1/skin/evaluate", rig_h_skin_evaluate, false, ACCESS_READ, OWNER_NONE, NULL},
	{"GET", "/v1/shots/{}/layers/{}/mesh-data/{}", rig_h_mesh_data, false, ACCESS_READ,
	 OWNER_SHOT, "frame space maxBytes " PAGED},
	{"POST", "/v1/shots/{}/locks", rig_h_lock_acquire, true, ACCESS_EDIT, OWNER_SHOT, NULL},
	{"GET", "/v1/shots/{}/locks", rig_h_lock_list, false, ACCESS_READ, OWNER_SHOT, NULL},
	{"POST", "/v1/locks/{}/renew", rig_h_lock_renew, true, ACCESS_EDIT, OWNER_LOCK, NULL},
	{"DELETE", "/v1/locks/{}", rig_h_lock_release, true, ACCESS_EDIT, OWNER_LOCK, "force"},
	{"POST", "/v1/shots/{}/plans", rig_h_plan_create, true, ACCESS_EDIT, OWNER_SHOT, NULL},
	{"GET", "/v1/shots/{}/plans", rig_h_plan_list, false, ACCESS_READ, OWNER_SHOT, PAGED},
	{"GET", "/v1/plans/{}", rig_h_plan_get, false, ACCESS_READ, OWNER_PLAN, NULL},
	{"PUT", "/v1/plans/{}", rig_h_plan_revise, true, ACCESS_EDIT, OWNER_PLAN, NULL},
	{"POST", "/v1/plans/{}/validate", rig_h_plan_validate, false, ACCESS_EDIT, OWNER_PLAN,
	 NULL},
	{"POST", "/v1/plans/{}/apply", rig_h_plan_apply, false, ACCESS_EDIT, OWNER_PLAN, NULL},
	{"DELETE", "/v1/plans/{}", rig_h_plan_delete, false, ACCESS_EDIT, OWNER_PLAN, NULL},
	{"POST", "/v1/tokens", rig_h_token_create, false, ACCESS_ADMIN, OWNER_NONE, NULL},
	{"GET", "/v1/tokens", rig_h_token_list, false, ACCESS_ADMIN, OWNER_NONE, PAGED},
	{"GET", "/v1/tokens/{}", rig_h_token_get, false, ACCESS_ADMIN, OWNER_NONE, NULL},
	{"DELETE", "/v1/tokens/{}", rig_h_token_revoke, false, ACCESS_ADMIN, OWNER_NONE, NULL},
	{"GET", "/v1/audit", rig_h_audit_list, false, ACCESS_ADMIN, OWNER_NONE, PAGED},
};

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

void rig_resp_header(struct rig_resp *resp, const char *name, const char *fmt, ...)
{
	if (resp->n_headers == RIG_MAX_RESP_HEADERS)
		return;
	struct rig_resp_header *h = &resp->headers[resp->n_headers++];
	rig_strlcpy(h->name, name, sizeof h->name);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(h->value, sizeof h->value, fmt, ap);
	va_end(ap);
}

void rig_resp_release(struct rig_resp *resp)
{
	free(resp->body);
	if (resp->stream_free)
		resp->stream_free(resp->stream_ctx);
	memset(resp, 0, sizeof *resp);
}

int rig_app_init(struct rig_app *app, struct rig_db *db, const struct rig_app_limits *limits)
{
	memset(app, 0, sizeof *app);
	app->db = db;
	app->limits = *limits;
	atomic_init(&app->draining, false);
	app->inflight = rig_api__inflight_new();
	app->shot_cache = rig_shot_cache_new();
	app->read_cache = rig_read_cache_new(limits->read_cache_bytes);
	app->ratelimit = limits->rate_limit > 0 ? rig_ratelimit_new(limits->rate_limit) : NULL;
	app->budget = rig_membudget_new(limits->memory_budget_bytes);
	if (!app->inflight || !app->shot_cache || !app->read_cache || !app->budget ||
	    (limits->rate_limit > 0 && !app->ratelimit)) {
		rig_api__inflight_free(app->inflight);
		rig_shot_cache_free(app->shot_cache);
		rig_read_cache_free(app->read_cache);
		rig_ratelimit_free(app->ratelimit);
		rig_membudget_free(app->budget);
		return -1;
	}
	app->committer = rig_committer_start(app); /* NULL: batches commit one by one */
	return 0;
}

void rig_app_release(struct rig_app *app)
{
	rig_committer_stop(app->committer);
	app->committer = NULL;
	rig_api__inflight_free(app->inflight);
	rig_shot_cache_free(app->shot_cache);
	app->shot_cache = NULL;
	rig_read_cache_free(app->read_cache);
	app->read_cache = NULL;
	rig_ratelimit_free(app->ratelimit);
	app->ratelimit = NULL;
	rig_membudget_free(app->budget);
	app->budget = NULL;
	app->inflight = NULL;
}

long long rig_app_housekeeping(struct rig_app *app)
{
	sqlite3 *conn = rig_db_acquire(app->db);
	long long keys = 0, locks = 0;
	int rc = rig_idem_sweep(conn, (long long)time(NULL) - RIG_IDEM_TTL_SECONDS, &keys);
	if (rc == 0)
		rc = rig_locks_sweep(conn, rig_api__now_ms(), &locks);
	rig_db_release(app->db, conn);
	return rc ? -1 : keys + locks;
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
static int param_index(const struct route *route, const char *name, size_t n)
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
static bool query_refused(struct rig_req *req, struct rig_resp *resp, const struct route *route)
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
			const char *why = k >= 0 ? "is given more than once"
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
				rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", shown),
					    "query parameter '%s' contains a NUL byte", shown);
				return true;
			}
		p += len + (p[len] == '&');
	}
	return false;
}

static void dispatch(struct rig_req *req, struct rig_resp *resp, const struct route *route)
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
static const struct route *route_for(const char *method, const char *path)
{
	char params[RIG_MAX_PATH_PARAMS][RIG_ID_MAX + 1];
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
		if (strcmp(routes[i].method, method) == 0 && match(routes[i].pattern, path, params) > 0)
			return &routes[i];
	return NULL;
}

bool rig_api_admit_body(struct rig_req *req, struct rig_resp *resp)
{
	const struct route *route = route_for(req->method, req->path);
	/* No route: the 404/405 comes after the body, from rig_api_handle. */
	return !route || route->access == ACCESS_PUBLIC || rig_auth_check_token(req, resp) == 0;
}

bool rig_api_route_is_quick(const char *method, const char *path)
{
	const struct route *route = route_for(method, path);
	return route && route->quick;
}

void rig_api_handle(struct rig_req *req, struct rig_resp *resp)
{
	char allow[128] = "";
	bool path_known = false, bad_id = false;
	const struct route *found = NULL;
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		int m = match(routes[i].pattern, req->path, req->params);
		if (m == 0)
			continue;
		if (m < 0) {
			bad_id = true;
			continue;
		}
		path_known = true;
		size_t used = strlen(allow);
		snprintf(allow + used, sizeof allow - used, "%s%s%s", used ? ", " : "",
			 routes[i].method, strcmp(routes[i].method, "GET") ? "" : ", HEAD");
		bool head_of_get = !strcmp(req->method, "HEAD") && !strcmp(routes[i].method, "GET");
		if ((strcmp(routes[i].method, req->method) == 0 || head_of_get) && !found)
			found = &routes[i];
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
		rig_problem(resp, RIG_METHOD_NOT_ALLOWED,
			    json_pack("{s:s}", "method", req->method),
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
