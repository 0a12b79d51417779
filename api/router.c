/* The routing table and the dispatcher: path matching, 404/405, draining,
 * the caller's identity, and idempotency keys (replay, reuse, in progress)
 * around every write.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "batch.h"
#include "bulk.h"
#include "committer.h"
#include "read_cache.h"
#include "frames.h"
#include "ids.h"
#include "membudget.h"
#include "locks.h"
#include "receipts.h"
#include "sha256.h"
#include "textbuf.h"

/* Who may call a route (auth.c): nobody needs a token for a public route; the
 * others need the scope named, on every project (a global scope) or on the
 * project the route's first path id belongs to (struct route.owner). */
enum route_access { ACCESS_PUBLIC, ACCESS_READ, ACCESS_EDIT, ACCESS_ADMIN };

/* What the first path id of a route names, so a project-scoped token can be
 * checked against the project that owns it. */
enum route_owner { OWNER_NONE, OWNER_PROJECT, OWNER_SHOT, OWNER_PLAN, OWNER_LOCK, OWNER_RECEIPT };

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
	{"DELETE", "/v1/locks/{}", rig_h_lock_release, true, ACCESS_EDIT, OWNER_LOCK, NULL},
	{"POST", "/v1/shots/{}/plans", rig_h_plan_create, true, ACCESS_EDIT, OWNER_SHOT, NULL},
	{"GET", "/v1/shots/{}/plans", rig_h_plan_list, false, ACCESS_READ, OWNER_SHOT, PAGED},
	{"GET", "/v1/plans/{}", rig_h_plan_get, false, ACCESS_READ, OWNER_PLAN, NULL},
	{"PUT", "/v1/plans/{}", rig_h_plan_revise, true, ACCESS_EDIT, OWNER_PLAN, NULL},
	{"POST", "/v1/plans/{}/validate", rig_h_plan_validate, false, ACCESS_EDIT, OWNER_PLAN,
	 NULL},
	{"POST", "/v1/plans/{}/apply", rig_h_plan_apply, false, ACCESS_EDIT, OWNER_PLAN, NULL},
	{"DELETE", "/v1/plans/{}", rig_h_plan_delete, false, ACCESS_EDIT, OWNER_PLAN, NULL},
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

/* ---- idempotency keys being processed (process-wide) ---- */

struct rig_inflight {
	pthread_mutex_t lock;
	char **keys;
	size_t n, cap;
};

static bool inflight_enter(struct rig_inflight *f, const char *key)
{
	bool ok = true;
	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < f->n && ok; i++)
		ok = strcmp(f->keys[i], key) != 0;
	if (ok && f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		char **grown = realloc(f->keys, cap * sizeof *grown);
		if (grown) {
			f->keys = grown;
			f->cap = cap;
		}
	}
	if (ok && f->n < f->cap && (f->keys[f->n] = strdup(key)))
		f->n++;
	else if (ok)
		ok = false;
	pthread_mutex_unlock(&f->lock);
	return ok;
}

static void inflight_leave(struct rig_inflight *f, const char *key)
{
	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < f->n; i++) {
		if (strcmp(f->keys[i], key) == 0) {
			free(f->keys[i]);
			f->keys[i] = f->keys[--f->n];
			break;
		}
	}
	pthread_mutex_unlock(&f->lock);
}

int rig_app_init(struct rig_app *app, struct rig_db *db, const struct rig_app_limits *limits)
{
	memset(app, 0, sizeof *app);
	app->db = db;
	app->limits = *limits;
	atomic_init(&app->draining, false);
	app->inflight = calloc(1, sizeof *app->inflight);
	app->shot_cache = rig_shot_cache_new();
	app->read_cache = rig_read_cache_new(limits->read_cache_bytes);
	app->budget = rig_membudget_new(limits->memory_budget_bytes);
	if (!app->inflight || !app->shot_cache || !app->read_cache || !app->budget) {
		free(app->inflight);
		rig_shot_cache_free(app->shot_cache);
		rig_read_cache_free(app->read_cache);
		rig_membudget_free(app->budget);
		return -1;
	}
	pthread_mutex_init(&app->inflight->lock, NULL);
	app->committer = rig_committer_start(app); /* NULL: batches commit one by one */
	return 0;
}

void rig_app_release(struct rig_app *app)
{
	rig_committer_stop(app->committer);
	app->committer = NULL;
	if (app->inflight) {
		for (size_t i = 0; i < app->inflight->n; i++)
			free(app->inflight->keys[i]);
		free(app->inflight->keys);
		pthread_mutex_destroy(&app->inflight->lock);
		free(app->inflight);
	}
	rig_shot_cache_free(app->shot_cache);
	app->shot_cache = NULL;
	rig_read_cache_free(app->read_cache);
	app->read_cache = NULL;
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

/* The caller's identity. The one seam where authentication will plug in: today
 * the X-Rigd-Actor header (1–128 characters), default "anonymous". */
static int resolve_actor(struct rig_req *req, struct rig_resp *resp)
{
	const char *actor = rig_api__header(req, "X-Rigd-Actor");
	if (!actor) {
		strcpy(req->actor, "anonymous");
		snprintf(req->principal, sizeof req->principal, "actor:%s", req->actor);
		return 0;
	}
	size_t len = strlen(actor);
	if (len < 1 || len >= sizeof req->actor || !rig_utf8_is_clean(actor)) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "X-Rigd-Actor"),
			    "header 'X-Rigd-Actor' must be 1 to 128 bytes of UTF-8 text");
		return -1;
	}
	memcpy(req->actor, actor, len + 1);
	snprintf(req->principal, sizeof req->principal, "actor:%s", req->actor);
	return 0;
}

static void fingerprint(struct rig_req *req)
{
	struct rig_sha256 s;
	unsigned char digest[32];
	rig_sha256_init(&s);
	rig_sha256_update(&s, req->method, strlen(req->method) + 1);
	rig_sha256_update(&s, req->path, strlen(req->path) + 1);
	if (req->query_string)
		rig_sha256_update(&s, req->query_string, strlen(req->query_string) + 1);
	rig_sha256_update(&s, req->actor, strlen(req->actor) + 1);
	rig_sha256_update(&s, req->body ? req->body : "", req->body_len);
	rig_sha256_final(digest, &s);
	rig_hex32(req->idem_hash, digest);
}

/* Returns true when the request was answered from a stored response or refused. */
static bool idempotency_preflight(struct rig_req *req, struct rig_resp *resp)
{
	size_t len = strlen(req->idem_key);
	if (len < 1 || len > 255 || !rig_utf8_is_clean(req->idem_key)) {
		rig_problem(resp, RIG_INVALID_QUERY,
			    json_pack("{s:s}", "parameter", "Idempotency-Key"),
			    "header 'Idempotency-Key' must be 1 to 255 bytes of UTF-8 text");
		return true;
	}
	fingerprint(req);
	sqlite3 *conn = rig_db_acquire(req->app->db);
	struct rig_idem stored;
	int rc = rig_idem_get(conn, req->idem_key, (long long)time(NULL) - RIG_IDEM_TTL_SECONDS,
			      &stored);
	rig_db_release(req->app->db, conn);
	if (rc == -RIG_NOT_FOUND)
		return false;
	if (rc) {
		rig_api__fail(resp, rc, "reading the idempotency key");
		return true;
	}
	if (strcmp(stored.request_hash, req->idem_hash) != 0) {
		rig_problem(resp, RIG_IDEMPOTENCY_KEY_REUSED,
			    json_pack("{s:s}", "idempotencyKey", req->idem_key),
			    "idempotency key '%.100s' was used for a different request",
			    req->idem_key);
	} else {
		resp->status = stored.status;
		resp->content_type = "application/json";
		resp->body = stored.response;
		resp->body_len = strlen(stored.response);
		stored.response = NULL;
		json_t *headers = json_loads(stored.headers, 0, NULL);
		size_t i;
		json_t *h;
		json_array_foreach(headers, i, h)
			rig_resp_header(resp, json_string_value(json_array_get(h, 0)), "%s",
					json_string_value(json_array_get(h, 1)));
		json_decref(headers);
		rig_resp_header(resp, "Idempotency-Replayed", "true");
	}
	rig_idem_release(&stored);
	return true;
}

static void dispatch(struct rig_req *req, struct rig_resp *resp, const struct route *route)
{
	if (resolve_actor(req, resp))
		return;
	req->idem_key = is_write(req->method) ? rig_api__header(req, "Idempotency-Key") : NULL;
	if (!req->idem_key) {
		route->handler(req, resp);
		return;
	}
	if (idempotency_preflight(req, resp))
		return;
	if (!inflight_enter(req->app->inflight, req->idem_key)) {
		rig_problem(resp, RIG_IDEMPOTENCY_IN_PROGRESS,
			    json_pack("{s:s}", "idempotencyKey", req->idem_key),
			    "a request with idempotency key '%.100s' is still being processed",
			    req->idem_key);
		return;
	}
	/* Re-check under the in-flight mark: the first request may have committed
	 * between our lookup and our mark. */
	if (!idempotency_preflight(req, resp))
		route->handler(req, resp);
	inflight_leave(req->app->inflight, req->idem_key);
}

bool rig_api_route_is_quick(const char *method, const char *path)
{
	char params[RIG_MAX_PATH_PARAMS][RIG_ID_MAX + 1];
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
		if (routes[i].quick && strcmp(routes[i].method, method) == 0 &&
		    match(routes[i].pattern, path, params) > 0)
			return true;
	return false;
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
			    "an id in the path is not 1-64 characters of [A-Za-z0-9_.:-]");
		return;
	}
	rig_problem(resp, RIG_NOT_FOUND, NULL, "no route for '%.100s'", req->path);
}
