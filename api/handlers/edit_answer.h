/* Answers of the edit pipeline: what a batch result and a committed write
 * mean to an HTTP client, and the hooks the edits and plan-apply handlers
 * give the committer (idempotency recheck, the answer recorded in the
 * transaction).
 */
#ifndef RIG_EDIT_ANSWER_H
#define RIG_EDIT_ANSWER_H

#include <jansson.h>
#include <stdbool.h>

#include "api/edit/committer.h"
#include "api/http/request.h"

/* The problem body (new reference) for a batch that did not apply;
 * *retry_after tells whether a Retry-After hint goes with it. */
json_t *rig_batch_problem(const struct rig_batch *b, const struct rig_batch_result *r,
			  bool *retry_after);

/* Answers a batch result: 201 (200 for a dry run) with the receipt and the
 * shot's ETag, or the problem. */
void rig_batch_answer(struct rig_resp *resp, const struct rig_batch *b,
		      const struct rig_batch_result *r);

/* What the committer hooks of an HTTP write work on (struct rig_write.ctx). */
struct rig_write_http {
	struct rig_req *req;
	struct rig_resp *resp;
};

/* Hooks for rig_write: the idempotency key looked up again under the write
 * lock (refuses when it was recorded meanwhile), and the answer built and
 * stored under the key in the write's transaction (not for a dry run, which
 * writes nothing). */
int rig_write_recheck_key(struct rig_write *w, struct rig_tx *conn);
int rig_write_record_answer(struct rig_write *w, struct rig_tx *conn);

/* After rig_committer_run: answers every state the hooks did not answer
 * (a failed batch, an undone or lost write). */
void rig_write_answer(struct rig_resp *resp, struct rig_write *w);

/* Hands b the If-Match precondition if_match (borrowed until b has run) when
 * it constrains the version; "*" adds nothing, since the shot must exist
 * anyway. Answers 400 PRECONDITION_INVALID and returns -1 when the body's
 * expectedVersion is none of the versions If-Match names. */
int rig_write_if_match(struct rig_batch *b, const struct rig_if_match *if_match,
		       struct rig_resp *resp);

/* An edit that checks frames is applied and checked on a read snapshot, out
 * of the write turn every other edit waits for (batch.h): does that for b
 * when b->check_frames.on, into *out (zeroed first; release it after the
 * write). Returns 1 when the write turn should go on (nothing to check, or
 * prepared), 0 when resp is answered: the batch failed its rules or its
 * frames, or it is a dry run, which the check answers alone. */
int rig_write_check_outside(struct rig_req *req, struct rig_resp *resp, struct rig_batch *b,
			    struct rig_batch_prepared *out);

/* Runs batch b (decoded) through the app's committer as an HTTP write —
 * frames checked first outside the write turn (rig_write_check_outside),
 * idempotency key rechecked under the write lock, the answer recorded in its
 * transaction — and answers resp. A shot that moved between the check and
 * the write is 409 CHECK_OUTDATED: the decoded ops are spent. */
void rig_write_run_batch(struct rig_req *req, struct rig_resp *resp, struct rig_batch *b);

/* rig_write_run_batch for the batch of the one op op (a new reference,
 * taken; NULL: out of memory), as the routes that stand for an op run it
 * (revert, import): b->ops and its decoding are this call's. */
void rig_write_run_op(struct rig_req *req, struct rig_resp *resp, struct rig_batch *b, json_t *op);

#endif
