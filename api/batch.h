/* The edit pipeline: one batch of ops applied atomically to one shot.
 *
 * Direct batches (POST /v1/shots/{id}/edits) and, later, plan validation and
 * apply all run rig_batch_run(): decode every op, lock the database (BEGIN
 * IMMEDIATE), load the shot, check the expected version, apply the ops in order,
 * validate the whole shot, then either roll back (dry run or failure) or write
 * the changes, bump the version by one and store the receipt in the same
 * transaction. The caller commits with rig_api__commit() so an idempotent
 * response is stored in that transaction too.
 */
#ifndef RIG_BATCH_H
#define RIG_BATCH_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>

#include "api.h"
#include "jsonread.h"
#include "ops.h"

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
	bool use_cache;        /* the caller holds the write turn and calls rig_batch_settle */
	bool has_fence;        /* the batch proves it holds lock_id at fencing_token */
	char lock_id[RIG_ID_MAX + 1];
	long long fencing_token;
};

/* Runs the batch on conn: decodes the ops, begins the write transaction and
 * applies them (rig_batch_apply). On success returns 0 with *out_receipt (new
 * reference) and, unless dry_run, the transaction still open for the caller to
 * commit. On failure fills resp with the problem, rolls back and returns -1 with
 * *out_receipt NULL. */
int rig_batch_run(struct rig_req *req, sqlite3 *conn, const struct rig_batch *batch,
		  struct rig_resp *resp, json_t **out_receipt);

/* The same inside a transaction the caller opened (and will end, whatever
 * happens): decodes, loads the shot, checks the expected version, the fence and
 * the locks, applies, validates, and unless dry_run writes the changes, the new
 * version and the receipt. Returns 0 with *out_receipt, or -1 with resp filled. */
int rig_batch_apply(sqlite3 *conn, const struct rig_batch *batch, struct rig_resp *resp,
		    json_t **out_receipt);

/* Reads the optional lockId and fencingToken of body (they go together) into
 * b's fence. Returns 0, or -1 with violations recorded through jr. */
int rig_batch_read_fence(struct rig_batch *b, json_t *body, const struct rig_jr *jr);

/* The write path keeps the shot it last committed in memory (one shot per
 * process), so the next batch on it need not read every layer back: a batch
 * with use_cache takes the cached model when the stored shot's row and version
 * still match it (checked inside the batch's transaction), else loads it. A
 * successful batch leaves its model pending; the caller settles it after the
 * COMMIT: kept when committed, dropped when not. Only ever touched under the
 * write turn, so it needs no lock of its own. Evaluation (reads) never uses it. */
struct rig_shot_cache;
struct rig_shot_cache *rig_shot_cache_new(void);
void rig_shot_cache_free(struct rig_shot_cache *cache);
void rig_batch_settle(struct rig_app *app, bool committed);

/* Drops the cached shot (a COMMIT that held cached changes failed). */
void rig_batch_forget(struct rig_app *app);

#endif
