/* Internals shared by the API's files: the handler type, body parsing, write
 * transactions with idempotent responses, paging tokens and JSON of the model.
 * Public entry points are in exchange.h and app.h.
 */
#ifndef RIG_API_H
#define RIG_API_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>

#include "app.h"
#include "exchange.h"
#include "problem.h"
#include "shot_model.h"

typedef void (*rig_handler)(struct rig_req *req, struct rig_resp *resp);

/* Parses the request body as one JSON document (UTF-8, no duplicate keys, no
 * trailing data; jansson rejects NaN, Infinity and out-of-range numbers). On
 * failure fills resp with a 400/415 problem and returns NULL. New reference. */
json_t *rig_api__parse_body(struct rig_req *req, struct rig_resp *resp);

/* Bodies at least this long go through the compact array decoder (bulk.h). */
#define RIG_BULK_MIN_BYTES ((size_t)0) /* every body: the path every test exercises */

/* As rig_api__parse_body, first decoding the large skin arrays of a body laid
 * out as mode (enum rig_bulk_mode; -1: none) into req->bulk. Running out of
 * memory (or past the memory budget) while parsing is 503 MEMORY_BUSY. */
json_t *rig_api__parse_body_bulk(struct rig_req *req, struct rig_resp *resp, int mode);

/* Answers a storage failure (negative enum rig_code) as a problem. */
void rig_api__fail(struct rig_resp *resp, int rc, const char *what);

/* Returns a new, empty error list (rig_errs_new); free with rig_errs_free.
 * When out of memory fills resp with 503 MEMORY_BUSY (Retry-After: 1) and
 * returns NULL: running out of memory is the server's condition. */
struct rig_errs *rig_api__errs_new(struct rig_resp *resp);

/* As rig_api__fail for a shot lookup: a missing shot is a 404 naming shotId. */
void rig_api__fail_shot(struct rig_resp *resp, int rc, const char *shot_id);

/* Begins a write transaction on conn, a connection borrowed from the request's
 * database (rig_db_begin_write), then looks the request's idempotency key up
 * again under the write lock (rig_api__idem_recheck). Returns 0 with the
 * transaction open, or a negative rig code with none open: the database is
 * busy, or the key was recorded meanwhile (-RIG_IDEMPOTENCY_IN_PROGRESS; the
 * router then answers the stored response whatever problem the handler puts in
 * resp). */
int rig_api__begin(struct rig_req *req, sqlite3 *conn);

/* Finishes a successful write: stores resp under the request's idempotency key
 * (if any) and commits. On failure rolls back, replaces resp with a problem and
 * returns a negative rig code. */
int rig_api__commit(struct rig_req *req, sqlite3 *conn, struct rig_resp *resp);

/* Stores resp under the request's idempotency key, if it has one, in conn's open
 * transaction. 0 or a negative rig code. */
int rig_api__store_response(struct rig_req *req, sqlite3 *conn, const struct rig_resp *resp);

/* Reads pageSize (default RIG_DEFAULT_PAGE_SIZE, larger values coerced to
 * RIG_MAX_PAGE_SIZE, zero/negative/non-integer → 400). Returns 0 or -1 with resp filled. */
int rig_api__page_size(struct rig_req *req, struct rig_resp *resp, size_t *out);

/* A page of a keyset-paged list (projects, shots, plans), oldest first. */
struct rig_page {
	json_t *items;      /* the page's items (new reference until finish) */
	size_t limit;       /* pageSize; storage is asked for limit + 1 rows */
	long long last_seq; /* cursor of the last item added */
	bool more;          /* a row past the page exists: the page gets a token */
};

/* True (and p->more set) when the page is already full. */
static inline bool rig_page_full(struct rig_page *p)
{
	if (json_array_size(p->items) < p->limit)
		return false;
	p->more = true;
	return true;
}

/* For list callbacks: true when the row with cursor seq belongs on the page
 * (its cursor is then the page's last); false when the page is full. */
static inline bool rig_page_take(struct rig_page *p, long long seq)
{
	if (rig_page_full(p))
		return false;
	p->last_seq = seq;
	return true;
}

/* Stores resp under the request's idempotency key, if it has one, in conn's open
 * transaction. 0 or a negative rig code. */
int rig_api__store_response(struct rig_req *req, sqlite3 *conn, const struct rig_resp *resp);

/* Reads pageSize and pageToken for a list of `kind` scoped to `scope` and sets
 * *after to the cursor to continue after (0 on the first page). Returns 0, or
 * -1 with resp filled (400 PAGE_TOKEN_INVALID for a token of another list). */
int rig_api__page_start(struct rig_req *req, struct rig_resp *resp, const char *kind,
			const char *scope, struct rig_page *p, long long *after);

/* Answers body (reference stolen; NULL = a new object) with items_name: [...]
 * and, when more rows follow, nextPageToken. */
void rig_api__page_finish(struct rig_req *req, struct rig_resp *resp, const char *kind,
			  const char *scope, struct rig_page *p, const char *items_name, json_t *body);

/* A signed, opaque page token for payload (reference borrowed); malloc'd string. */
char *rig_api__token_make(struct rig_app *app, json_t *payload);

/* Opens a token: returns its payload (new reference), or NULL when it was not
 * issued by a server on this database (forged, truncated, tampered). */
json_t *rig_api__token_open(struct rig_app *app, const char *token);

/* Appends an audit record of action (token.create, token.revoke, lock.break)
 * by the request's caller, with fields (reference stolen) merged in, in conn's
 * open transaction. 0 or a negative rig code. */
int rig_api__audit(struct rig_req *req, sqlite3 *conn, const char *action, json_t *fields);

/* A space-separated word list (rig_words_next) as a JSON array of strings
 * (new reference). */
json_t *rig_api__words_json(const char *list);

/* A query parameter, or NULL. */
static inline const char *rig_api__query(struct rig_req *req, const char *name)
{
	return req->query ? req->query(req->ctx, name) : NULL;
}

static inline const char *rig_api__header(struct rig_req *req, const char *name)
{
	return req->header ? req->header(req->ctx, name) : NULL;
}

/* Writes a fresh server-generated id with the given prefix ("L-", "r-", …). */
void rig_api__new_id(char out[RIG_ID_MAX + 1], const char *prefix);

/* JSON of a layer (transform, keys, binding summary) and of a whole shot with
 * its layer tree (parents before children). New references. */
json_t *rig_api__layer_json(const struct rig_model_layer *l, bool with_keys);
json_t *rig_api__shot_json(const struct rig_shot_model *m);

/* Formats Unix milliseconds as ISO 8601 UTC ("2026-11-29T15:02:09.991Z") into
 * out[RIG_TIMESTAMP_MAX]. */
void rig_api__iso8601(char out[RIG_TIMESTAMP_MAX], long long unix_ms);

/* The wall clock in Unix milliseconds (lock leases, timestamps; never evaluation). */
long long rig_api__now_ms(void);

/* True when If-None-Match names tag (a quoted strong tag such as "\"12\""):
 * "*", or a comma-separated list compared weakly (W/ prefixes ignored), as
 * RFC 9110 §13.1.2 asks. */
bool rig_api__none_match(struct rig_req *req, const char *tag);

/* Sets ETag: "<version>" on resp. */
void rig_api__etag(struct rig_resp *resp, long long version);

/* Parses If-Match: "<n>" (strong, quoted). Returns 0 and *present=false (*out -1) when
 * the header is absent, 0 with *out set when valid, -1 with resp filled (400) and *out -1
 * when malformed. */
int rig_api__if_match(struct rig_req *req, struct rig_resp *resp, long long *out, bool *present);

/* Handlers, one per route (see router.c). */
void rig_h_healthz(struct rig_req *req, struct rig_resp *resp);
void rig_h_readyz(struct rig_req *req, struct rig_resp *resp);
void rig_h_limits(struct rig_req *req, struct rig_resp *resp);
void rig_h_errors(struct rig_req *req, struct rig_resp *resp);
void rig_h_error(struct rig_req *req, struct rig_resp *resp);
void rig_h_openapi(struct rig_req *req, struct rig_resp *resp);
void rig_h_project_create(struct rig_req *req, struct rig_resp *resp);
void rig_h_project_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_project_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_project_delete(struct rig_req *req, struct rig_resp *resp);
void rig_h_shot_create(struct rig_req *req, struct rig_resp *resp);
void rig_h_shot_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_shot_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_shot_delete(struct rig_req *req, struct rig_resp *resp);
void rig_h_layer_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_edits(struct rig_req *req, struct rig_resp *resp);
void rig_h_receipt_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_receipt_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_lock_acquire(struct rig_req *req, struct rig_resp *resp);
void rig_h_lock_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_lock_renew(struct rig_req *req, struct rig_resp *resp);
void rig_h_lock_release(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_create(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_revise(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_validate(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_apply(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_delete(struct rig_req *req, struct rig_resp *resp);
void rig_h_token_create(struct rig_req *req, struct rig_resp *resp);
void rig_h_token_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_token_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_token_revoke(struct rig_req *req, struct rig_resp *resp);
void rig_h_audit_list(struct rig_req *req, struct rig_resp *resp);

#endif
