/* The transaction sequence of the simple writes (projects, shots, plans,
 * locks, tokens): begin with the request's idempotency key looked up again
 * under the write lock, commit with the response stored under the key in the
 * same transaction. Edits have their own sequence (api/edit/committer.h).
 */
#ifndef RIG_WRITE_H
#define RIG_WRITE_H

#include "api/http/exchange.h"

/* Begins a write transaction on conn, a connection borrowed from the request's
 * store (rig_tx_begin_write), then looks the request's idempotency key up
 * again under the write lock (rig_api__idem_recheck). Returns 0 with the
 * transaction open, or a negative rig code with none open: the database is
 * busy, or the key was recorded meanwhile (-RIG_IDEMPOTENCY_IN_PROGRESS; the
 * router then answers the stored response whatever problem the handler puts in
 * resp). */
int rig_api__begin(struct rig_req *req, struct rig_tx *conn);

/* Finishes a successful write: stores resp under the request's idempotency key
 * (if any) and commits. On failure rolls back, replaces resp with a problem and
 * returns a negative rig code. */
int rig_api__commit(struct rig_req *req, struct rig_tx *conn, struct rig_resp *resp);

#endif
