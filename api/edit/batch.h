/* The edit pipeline: one batch of ops applied atomically to one shot.
 *
 * Direct batches (POST /v1/shots/{id}/edits) and, later, plan validation and
 * apply all run rig_batch_run(): decode every op, lock the database (a write
 * transaction, rig_tx_begin_write), load the shot, check the expected version,
 * apply the ops in order, validate the whole shot, then either roll back (dry
 * run or failure) or write the changes, bump the version by one and store the
 * receipt in the same transaction. The caller commits with rig_api__commit()
 * so an idempotent response is stored in that transaction too.
 */
#ifndef RIG_BATCH_H
#define RIG_BATCH_H

#include <jansson.h>
#include <stdbool.h>

#include "api/http/request.h"
#include "api/util/jsonread.h"
#include "api/edit/ops.h"
#include "storage/store.h"

struct rig_batch {
	const char *shot_id;
	json_t *ops; /* borrowed array */
	struct rig_op *decoded; /* ops already decoded (borrowed; used once), or NULL */
	bool has_expected_version;
	long long expected_version;
	int conflict_status; /* 409 for a body expectedVersion, 412 for If-Match */
	bool dry_run;
	const char *actor;
	const char *principal; /* owns locks (exchange.h) */
	const char *token_id;  /* recorded in the receipt; "" or NULL when none */
	const char *idem_key; /* recorded on the receipt; may be NULL */
	json_t *receipt_extra; /* members merged into the receipt (planId, …); borrowed, may be NULL */
	struct rig_app *app;   /* for the write path's shot cache, when use_cache */
	bool use_cache;        /* the caller holds the write turn and calls rig_shot_cache_settle */
	bool has_fence;        /* the batch proves it holds lock_id at fencing_token */
	char lock_id[RIG_ID_MAX + 1];
	long long fencing_token;
};

/* Runs the batch on conn: decodes the ops, begins the write transaction and
 * applies them (rig_batch_apply). On success returns 0 with *out_receipt (new
 * reference) and, unless dry_run, the transaction still open for the caller to
 * commit. On failure fills resp with the problem, rolls back and returns -1 with
 * *out_receipt NULL. */
int rig_batch_run(struct rig_req *req, struct rig_tx *conn, const struct rig_batch *batch,
		  struct rig_resp *resp, json_t **out_receipt);

/* The same inside a transaction the caller opened (and will end, whatever
 * happens): decodes, loads the shot, checks the expected version, the fence and
 * the locks, applies, validates, and unless dry_run writes the changes, the new
 * version and the receipt. Returns 0 with *out_receipt, or -1 with resp filled. */
int rig_batch_apply(struct rig_tx *conn, const struct rig_batch *batch, struct rig_resp *resp,
		    json_t **out_receipt);

/* Reads the optional lockId and fencingToken of body (they go together) into
 * b's fence. Returns 0, or -1 with violations recorded through jr. */
int rig_batch_read_fence(struct rig_batch *b, json_t *body, const struct rig_jr *jr);

/* Decodes every op of ops (an array, borrowed), reporting every problem of
 * every op in errs; bulk (may be NULL) holds the body's decoded arrays.
 * Returns the decoded ops (calloc'd; release each with rig_op_release, then
 * free) or NULL when any op is invalid or memory ran out. */
struct rig_op *rig_batch_decode(json_t *ops, struct rig_bulk *bulk, struct rig_errs *errs);

#endif
