/* POST /v1/shots/{shotId}/edits: one atomic batch of ops (edit/batch.h),
 * run through the committer's transaction sequence (edit/committer.h), dry
 * runs too (they write nothing).
 */
#include <stdlib.h>
#include <string.h>

#include "api/edit/batch.h"
#include "api/edit/committer.h"
#include "api/edit/frame_check.h"
#include "api/handlers/edit_answer.h"
#include "api/handlers/handlers.h"
#include "api/util/jsonread.h"

void rig_h_edits(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_if_match if_match;
	if (rig_api__if_match(req, resp, &if_match))
		return;
	bool dry_run;
	if (rig_api__query_bool(req, resp, "dryRun", &dry_run))
		return;
	json_t *body = rig_api__parse_body_bulk(req, resp, RIG_BULK_EDITS);
	if (!body)
		return;
	static const char *const allowed[] = {"ops",          "expectedVersion", "lockId",
					      "fencingToken", "checkFrames",     NULL};
	struct rig_batch b = {.shot_id = req->params[0],
			      .app = req->app,
			      .dry_run = dry_run,
			      .actor = req->actor,
			      .principal = req->principal,
			      .token_id = req->token_id,
			      .idem_key = req->idem_key};
	/* The envelope's problems stop the batch; the ops' own go on to it, so
	 * that applying the others and validating can find theirs too. */
	struct rig_errs *errs = rig_api__errs_new(resp), *op_errs = NULL;
	if (!errs || !(op_errs = rig_api__errs_new(resp)))
		goto out;
	struct rig_jr jr = {errs, RIG_OP_INVALID, "", RIG_NO_INDEX};
	rig_jr_known(&jr, body, allowed);
	rig_jr_int(&jr, body, "expectedVersion", false, 0, INT64_MAX, &b.expected_version,
		   &b.has_expected_version);
	rig_batch_read_fence(&b, body, &jr);
	rig_check_frames_read(&b.check_frames, body, &jr);
	b.ops = json_object_get(body, "ops");
	if (json_is_array(b.ops) && json_array_size(b.ops) <= RIG_MAX_OPS_PER_BATCH) {
		/* Decoded here, before the write turn or the committer: a large skin
		 * never holds up other writers while it is parsed. */
		b.decoded = rig_batch_decode(b.ops, req->bulk, op_errs);
		b.decode_errs = op_errs;
	}
	if (!json_is_array(b.ops) || json_array_size(b.ops) == 0) {
		rig_jr_fail(&jr, "ops", "field 'ops' must be a non-empty array of ops");
	} else if (json_array_size(b.ops) > RIG_MAX_OPS_PER_BATCH) {
		rig_problem(resp, RIG_BATCH_TOO_LARGE,
			    json_pack("{s:I, s:I}", "opCount", (json_int_t)json_array_size(b.ops),
				      "maxOpsPerBatch", (json_int_t)RIG_MAX_OPS_PER_BATCH),
			    "the batch has %zu ops; the limit is %d", json_array_size(b.ops),
			    RIG_MAX_OPS_PER_BATCH);
		goto out;
	}
	if (rig_errs_any(errs) || !b.decoded) { /* the envelope's, beside the ops' */
		rig_errs_append(errs, op_errs);
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	if (rig_write_if_match(&b, &if_match, resp))
		goto out;
	rig_write_run_batch(req, resp, &b);
out:
	rig_ops_free(b.decoded, json_array_size(b.ops));
	rig_errs_free(op_errs);
	rig_errs_free(errs);
	json_decref(body);
}
