/* Idempotency keys of idempotency.h: fingerprint, replay, the in-flight set
 * and the in-transaction re-check. Storing a response is
 * rig_api__store_response, also here.
 *
 * Three layers, cheapest first:
 *  1. a lookup outside any transaction answers the common replay at once;
 *  2. the in-flight set refuses the same (principal, key) while this process
 *     is still working on it (409), so one process never applies it twice;
 *  3. rig_api__begin (and the committer, per batch) looks the key up again
 *     after BEGIN IMMEDIATE: another process on the database may have
 *     recorded it since layer 1, and only a lookup under the write lock, in
 *     the transaction that would record the key, makes check-and-record
 *     atomic.
 */
#include "api/http/idempotency.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/context.h"
#include "api/http/request.h"
#include "api/util/sha256.h"
#include "api/util/textbuf.h"
#include "storage/receipts.h"
#include "storage/store.h"

/* ---- the (principal, key) pairs being processed by this process ---- */

struct inflight_entry {
	char *principal;
	char *key;
};

struct rig_inflight {
	pthread_mutex_t lock;
	struct inflight_entry *items;
	size_t n, cap;
};

struct rig_inflight *rig_api__inflight_new(void)
{
	struct rig_inflight *f = calloc(1, sizeof *f);
	if (f)
		pthread_mutex_init(&f->lock, NULL);
	return f;
}

void rig_api__inflight_free(struct rig_inflight *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		free(f->items[i].principal);
		free(f->items[i].key);
	}
	free(f->items);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static bool entry_is(const struct inflight_entry *e, const char *principal, const char *key)
{
	return strcmp(e->key, key) == 0 && strcmp(e->principal, principal) == 0;
}

/* Marks (principal, key) in flight; false when it already is, or when out of
 * memory (the caller answers 409 either way: retrying is right for both). */
static bool inflight_enter(struct rig_inflight *f, const char *principal, const char *key)
{
	bool ok = true;
	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < f->n && ok; i++)
		ok = !entry_is(&f->items[i], principal, key);
	if (ok && f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		struct inflight_entry *grown = realloc(f->items, cap * sizeof *grown);
		if (grown) {
			f->items = grown;
			f->cap = cap;
		}
	}
	if (ok && f->n < f->cap) {
		struct inflight_entry e = {strdup(principal), strdup(key)};
		if (e.principal && e.key) {
			f->items[f->n++] = e;
		} else {
			free(e.principal);
			free(e.key);
			ok = false;
		}
	} else if (ok) {
		ok = false;
	}
	pthread_mutex_unlock(&f->lock);
	return ok;
}

static void inflight_leave(struct rig_inflight *f, const char *principal, const char *key)
{
	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < f->n; i++) {
		if (entry_is(&f->items[i], principal, key)) {
			free(f->items[i].principal);
			free(f->items[i].key);
			f->items[i] = f->items[--f->n];
			break;
		}
	}
	pthread_mutex_unlock(&f->lock);
}

/* ---- fingerprint, lookup, replay ---- */

/* The request's fingerprint: SHA-256 of method, path, query, actor and body.
 * The principal is not in it: it is half of the row's key instead. */
static void fingerprint(struct rig_req *req)
{
	struct sha256_ctx s;
	sha256_init(&s);
	rig_sha256_field(&s, req->method);
	rig_sha256_field(&s, req->path);
	if (req->query_string)
		rig_sha256_field(&s, req->query_string);
	rig_sha256_field(&s, req->actor);
	sha256_update(&s, req->body_len, (const uint8_t *)(req->body ? req->body : ""));
	rig_sha256_hex(req->idem_hash, &s);
}

static int lookup(struct rig_req *req, struct rig_tx *conn, struct rig_idem *out)
{
	return rig_idem_get(conn, req->principal, req->idem_key, req->idem_hash,
			    (long long)time(NULL) - RIG_IDEM_TTL_SECONDS, out);
}

/* Answers a stored response of req's principal: the same status, body and
 * headers plus Idempotency-Replayed, or 422 when it was stored for another
 * request. Takes stored->response. */
static void answer_stored(struct rig_req *req, struct rig_resp *resp, struct rig_idem *stored)
{
	if (strcmp(stored->request_hash, req->idem_hash) != 0) {
		rig_problem(resp, RIG_IDEMPOTENCY_KEY_REUSED,
			    json_pack("{s:s}", "idempotencyKey", req->idem_key),
			    "idempotency key '%.100s' was used for a different request",
			    req->idem_key);
		return;
	}
	resp->status = stored->status;
	resp->content_type = "application/json";
	resp->body = stored->response;
	resp->body_len = strlen(stored->response);
	stored->response = NULL;
	json_t *headers = json_loads(stored->headers, 0, NULL);
	size_t i;
	json_t *h;
	json_array_foreach(headers, i, h)
		rig_resp_header(resp, json_string_value(json_array_get(h, 0)), "%s",
				json_string_value(json_array_get(h, 1)));
	json_decref(headers);
	rig_resp_header(resp, "Idempotency-Replayed", "true");
}

void rig_api__idem_run(struct rig_req *req, struct rig_resp *resp, rig_handler handler)
{
	struct rig_idem stored;
	memset(&stored, 0, sizeof stored);
	size_t len = strlen(req->idem_key);
	if (len < 1 || len > 255 || !rig_utf8_is_clean(req->idem_key)) {
		rig_problem(resp, RIG_INVALID_QUERY,
			    json_pack("{s:s}", "parameter", "Idempotency-Key"),
			    "header 'Idempotency-Key' must be 1 to 255 bytes of UTF-8 text");
		return;
	}
	if (!req->principal[0]) {
		/* '' marks rows stored before keys were scoped (receipts.h): a key
		 * with no owner would share them. resolve_actor always sets one. */
		rig_problem(resp, RIG_INTERNAL, NULL, "the request has no principal");
		return;
	}
	fingerprint(req);
	struct rig_tx *conn = rig_store_read(req->app->store);
	int rc = lookup(req, conn, &stored);
	rig_tx_end(conn);
	if (rc == 0) {
		answer_stored(req, resp, &stored);
		goto out;
	}
	if (rc != -RIG_NOT_FOUND) {
		rig_api__fail(resp, rc, "reading the idempotency key");
		goto out;
	}
	if (!inflight_enter(req->app->inflight, req->principal, req->idem_key)) {
		rig_problem(resp, RIG_IDEMPOTENCY_IN_PROGRESS,
			    json_pack("{s:s}", "idempotencyKey", req->idem_key),
			    "a request with idempotency key '%.100s' is still being processed",
			    req->idem_key);
		goto out;
	}
	/* A request of this process that recorded the key since our lookup has
	 * left the in-flight set; it, like one of another process, is found by
	 * rig_api__idem_recheck inside our write transaction. */
	req->idem_replay = &stored;
	handler(req, resp);
	req->idem_replay = NULL;
	inflight_leave(req->app->inflight, req->principal, req->idem_key);
	if (stored.request_hash) {
		rig_resp_release(resp);
		answer_stored(req, resp, &stored);
	}
out:
	rig_idem_release(&stored);
}

int rig_api__idem_recheck(struct rig_req *req, struct rig_tx *conn)
{
	if (!req->idem_key || !req->idem_replay)
		return 0;
	rig_idem_release(req->idem_replay);
	int rc = lookup(req, conn, req->idem_replay);
	if (rc == -RIG_NOT_FOUND)
		return 0;
	return rc == 0 ? -RIG_IDEMPOTENCY_IN_PROGRESS : rc;
}

int rig_api__store_response(struct rig_req *req, struct rig_tx *conn, const struct rig_resp *resp)
{
	if (!req->idem_key)
		return 0;
	json_t *headers = json_array();
	for (size_t i = 0; i < resp->n_headers; i++)
		json_array_append_new(headers, json_pack("[s, s]", resp->headers[i].name,
							 resp->headers[i].value));
	char *text = json_dumps(headers, JSON_COMPACT);
	json_decref(headers);
	int rc = text ? rig_idem_put(conn, req->principal, req->idem_key, req->idem_hash,
				     resp->status, resp->body ? resp->body : "", text,
				     (long long)time(NULL))
		      : -RIG_INTERNAL;
	free(text);
	return rc;
}
