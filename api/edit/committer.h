/* The one transaction sequence of every edit: direct batches, dry runs and
 * plan apply all go through the committer.
 *
 * Group commit: the committer owns a write connection. A write that finds it
 * idle commits at once on its own thread; writes that arrive while a commit
 * runs queue, and the committer thread commits everything queued during the
 * previous fsync together, each inside its own SAVEPOINT. Every batch stays
 * atomic and gets its own version and receipt; a batch that fails rolls back
 * to its savepoint and leaves the others alone. No write is answered before
 * the COMMIT that holds it has returned, so an acknowledged batch is durable
 * — and one fsync covers as many batches as arrived during the last one.
 *
 * For each write, inside the group's transaction:
 *   recheck → SAVEPOINT → prepare → rig_batch_apply → finish → record →
 *   RELEASE (ROLLBACK TO for a dry run or a failure)
 * then, for the group, COMMIT and the shot cache settled. The hooks are the
 * caller's (the HTTP side: idempotency keys, responses, plans); the sequence
 * and its failure handling are here only.
 */
#ifndef RIG_COMMITTER_H
#define RIG_COMMITTER_H

#include <stdbool.h>

#include "api/edit/batch.h"
#include "api/edit/shot_cache.h"

/* Where a write ended. */
enum rig_write_state {
	RIG_WRITE_QUEUED,  /* not run yet */
	RIG_WRITE_REFUSED, /* recheck or prepare refused it; the hook recorded why */
	RIG_WRITE_FAILED,  /* the batch did not apply: see result.outcome */
	RIG_WRITE_UNDONE,  /* applied, then finish or record failed: rc, what; nothing kept */
	RIG_WRITE_LOST,    /* the group's transaction was lost: rc; nothing kept */
	RIG_WRITE_DONE,    /* applied; written and committed unless a dry run */
};

struct rig_write;

/* A hook: 0 to go on. A positive return from recheck or prepare refuses the
 * write (the hook recorded why in its own context); a negative rig code is
 * a storage failure. */
typedef int (*rig_write_hook)(struct rig_write *w, struct rig_tx *conn);

/* One write. The caller fills batch and the hooks (each may be NULL), runs it
 * with rig_committer_run and reads state and result; it releases result. */
struct rig_write {
	struct rig_batch *batch;
	/* Before anything: the write may no longer be wanted (its idempotency key
	 * was recorded meanwhile by another process). */
	rig_write_hook recheck;
	/* Before the batch applies: may fill batch (a plan's ops) or refuse. */
	rig_write_hook prepare;
	/* After the batch applied, before its answer is recorded (mark a plan applied). */
	rig_write_hook finish;
	/* Records the answer in the transaction (the idempotent response). */
	rig_write_hook record;
	void *ctx; /* the hooks' */

	enum rig_write_state state;
	struct rig_batch_result result; /* released once the record hook answered (DONE) */
	int rc;                         /* UNDONE, LOST: a negative rig code */
	const char *what;               /* UNDONE, LOST: what failed */
};

struct rig_committer;

/* Starts the committer thread over app's database (it borrows one connection
 * for its lifetime). Returns NULL when out of resources. */
struct rig_committer *rig_committer_start(struct rig_app *app);

/* Runs w in the next group. Blocks until the group committed (or was lost). */
void rig_committer_run(struct rig_committer *c, struct rig_write *w);

/* Finishes the queued writes, stops the thread and returns the connection;
 * NULL is a no-op. */
void rig_committer_stop(struct rig_committer *c);

#endif
