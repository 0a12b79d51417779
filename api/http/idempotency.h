/* Idempotency keys around every write (SPEC §6): the request's fingerprint,
 * the replay of a stored response, the per-process set of keys being
 * processed, and the check inside the write transaction that makes
 * check-and-record atomic across processes on one database.
 *
 * A key belongs to the principal that sent it (req->principal): the same key
 * from two principals names two independent writes, and a stored response is
 * only ever replayed to its own principal. Rows live in storage/receipts.c
 * (rig_idem_*); the routing itself is in router.c, the table in api/app.c.
 */
#ifndef RIG_IDEMPOTENCY_H
#define RIG_IDEMPOTENCY_H

#include "api/http/exchange.h"

/* Returns a new, empty set of the (principal, key) pairs this process is
 * processing; NULL when out of memory. Free with rig_api__inflight_free. */
struct rig_inflight *rig_api__inflight_new(void);

/* Frees the set and its entries; NULL is a no-op. */
void rig_api__inflight_free(struct rig_inflight *f);

/* Runs handler for a write that carries an Idempotency-Key (req->idem_key set):
 * refuses a malformed key (400 INVALID_QUERY); answers a stored response of the
 * same principal (replay, or 422 IDEMPOTENCY_KEY_REUSED for another request);
 * refuses a key of the same principal still being processed by this process
 * (409 IDEMPOTENCY_IN_PROGRESS); otherwise runs handler with the key marked in
 * flight. When rig_api__begin finds, inside the write transaction, that the key
 * was recorded meanwhile (by another process), the handler's response is
 * replaced by that stored answer. Always fills resp. */
void rig_api__idem_run(struct rig_req *req, struct rig_resp *resp, rig_handler handler);

/* Looks the request's (principal, key) up again on conn, inside its open write
 * transaction. Returns 0 when the request has no key or the key is free (the
 * write may go on and record it), -RIG_IDEMPOTENCY_IN_PROGRESS when a response
 * is stored (it is kept in *req->idem_replay for rig_api__idem_run to answer;
 * the caller must apply nothing, end its transaction or savepoint, and may put
 * any placeholder problem in resp), or another negative rig code when the
 * lookup failed. */
int rig_api__idem_recheck(struct rig_req *req, struct rig_tx *conn);

/* Stores resp under the request's idempotency key, if it has one, in conn's open
 * transaction. 0 or a negative rig code. */
int rig_api__store_response(struct rig_req *req, struct rig_tx *conn, const struct rig_resp *resp);

#endif
