/* Group commit for edit batches: the committer owns a write handle. A
 * batch that finds it idle commits at once on its own thread; batches that
 * arrive while a commit runs queue, and the committer thread commits everything
 * queued during the previous fsync together, each inside its own savepoint.
 * Every batch stays atomic and gets its own version and receipt; a batch that
 * fails rolls back to its savepoint and leaves the others alone. No batch is answered before the commit that holds
 * it has returned, so an acknowledged batch is durable as before — but one
 * fsync now covers as many batches as arrived during the last one.
 */
#ifndef RIG_COMMITTER_H
#define RIG_COMMITTER_H

#include "api/edit/batch.h"
#include "api/edit/shot_cache.h"

struct rig_committer;

/* Starts the committer thread over app's database (it borrows one connection
 * for its lifetime). Returns NULL when out of resources. */
struct rig_committer *rig_committer_start(struct rig_app *app);

/* Applies batch b for req, in the next group, and fills resp with its answer
 * (201 and the receipt, or the problem). Blocks until the group committed. */
void rig_committer_run(struct rig_committer *c, struct rig_req *req, const struct rig_batch *b,
		       struct rig_resp *resp);

/* Finishes the queued batches, stops the thread and returns the connection;
 * NULL is a no-op. */
void rig_committer_stop(struct rig_committer *c);

#endif
