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

/* Answers a storage failure (negative enum rig_code) as a problem. */
void rig_api__fail(struct rig_resp *resp, int rc, const char *what);

/* Begins a write transaction (BEGIN IMMEDIATE) on conn; 0 or negative rig code. */
int rig_api__begin(sqlite3 *conn);

/* Finishes a successful write: stores resp under the request's idempotency key
 * (if any) and commits. On failure rolls back, replaces resp with a problem and
 * returns a negative rig code. */
int rig_api__commit(struct rig_req *req, sqlite3 *conn, struct rig_resp *resp);

/* Reads pageSize (default RIG_DEFAULT_PAGE_SIZE, larger values coerced to
 * RIG_MAX_PAGE_SIZE, zero/negative/non-integer → 400). Returns 0 or -1 with resp filled. */
int rig_api__page_size(struct rig_req *req, struct rig_resp *resp, size_t *out);

/* A signed, opaque page token for payload (reference borrowed); malloc'd string. */
char *rig_api__token_make(struct rig_app *app, json_t *payload);

/* Opens a token: returns its payload (new reference), or NULL when it was not
 * issued by a server on this database (forged, truncated, tampered). */
json_t *rig_api__token_open(struct rig_app *app, const char *token);

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

/* Sets ETag: "<version>" on resp. */
void rig_api__etag(struct rig_resp *resp, long long version);

/* Parses If-Match: "<n>" (strong, quoted). Returns 0 and *present=false when the
 * header is absent, 0 with *out set when valid, -1 with resp filled (400) when malformed. */
int rig_api__if_match(struct rig_req *req, struct rig_resp *resp, long long *out, bool *present);

/* Handlers, one per route (see router.c). */
void rig_h_healthz(struct rig_req *req, struct rig_resp *resp);
void rig_h_readyz(struct rig_req *req, struct rig_resp *resp);
void rig_h_limits(struct rig_req *req, struct rig_resp *resp);
void rig_h_errors(struct rig_req *req, struct rig_resp *resp);
void rig_h_error(struct rig_req *req, struct rig_resp *resp);
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

#endif
