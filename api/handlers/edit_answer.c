/* The answers and committer hooks of edit_answer.h. */
#include "api/handlers/edit_answer.h"

#include <string.h>

#include "api/http/idempotency.h"
#include "storage/store.h"

/* 412 when If-Match failed (checked first), else 409 for expected_version. */
static json_t *version_conflict(const struct rig_batch *b, const struct rig_batch_result *r)
{
	if (!b->if_match || rig_if_match_holds(b->if_match, r->from_version))
		return rig_problem_json(409, RIG_VERSION_CONFLICT,
					json_pack("{s:s, s:I, s:I}", "shotId", b->shot_id,
						  "expectedVersion",
						  (json_int_t)b->expected_version, "currentVersion",
						  (json_int_t)r->from_version),
					"shot '%s' is at version %lld, not %lld", b->shot_id,
					r->from_version, b->expected_version);
	json_t *extra = json_pack("{s:s, s:I}", "shotId", b->shot_id, "currentVersion",
				  (json_int_t)r->from_version);
	rig_if_match_expected_json(extra, b->if_match, "expectedVersion", "expectedVersions");
	char why[160];
	rig_if_match_describe(why, sizeof why, b->if_match);
	return rig_problem_json(412, RIG_VERSION_CONFLICT, extra, "shot '%s' is at version %lld%s",
				b->shot_id, r->from_version, why);
}

json_t *rig_batch_problem(const struct rig_batch *b, const struct rig_batch_result *r,
			  bool *retry_after)
{
	*retry_after = false;
	switch (r->outcome) {
	case RIG_BATCH_INVALID:
		return rig_problem_errs_json(r->errs, 0, retry_after);
	case RIG_BATCH_VERSION_CONFLICT:
		return version_conflict(b, r);
	case RIG_BATCH_LOCK_LOST:
		return rig_problem_json(0, RIG_LOCK_LOST,
					json_pack("{s:s, s:I, s:I}", "lockId", b->lock_id,
						  "fencingToken", (json_int_t)b->fencing_token,
						  "currentFencingToken",
						  (json_int_t)r->current_fencing_token),
					"lock '%s' %s", b->lock_id, r->lock_why);
	case RIG_BATCH_SHOT_UNREADABLE:
		return rig_problem_shot_json(r->rc, b->shot_id, retry_after);
	case RIG_BATCH_STORAGE:
		return rig_problem_storage_json(r->rc, r->what, retry_after);
	case RIG_BATCH_STALE:
		return rig_problem_json(
			0, RIG_CHECK_OUTDATED,
			json_pack("{s:s, s:I}", "shotId", b->shot_id, "checkedVersion",
				  (json_int_t)r->from_version),
			"shot '%s' changed while the frames of this edit were checked"
			" at version %lld; nothing was applied",
			b->shot_id, r->from_version);
	case RIG_BATCH_NO_MEMORY:
	case RIG_BATCH_APPLIED: /* not a problem: answered by rig_batch_answer */
		break;
	}
	*retry_after = true;
	return rig_problem_json(0, RIG_MEMORY_BUSY, NULL, "the server ran out of memory");
}

void rig_batch_answer(struct rig_resp *resp, const struct rig_batch *b,
		      const struct rig_batch_result *r)
{
	if (r->outcome != RIG_BATCH_APPLIED) {
		bool retry_after;
		json_t *body = rig_batch_problem(b, r, &retry_after);
		rig_resp_problem(resp, body, retry_after);
		return;
	}
	int status = b->dry_run ? 200 : 201;
	rig_resp_text(resp, status, strdup(r->receipt), NULL); /* the bytes stored */
	rig_api__etag(resp, b->dry_run ? r->from_version : r->to_version);
}

int rig_write_recheck_key(struct rig_write *w, struct rig_tx *conn)
{
	struct rig_write_http *h = w->ctx;
	int rc = rig_api__idem_recheck(h->req, conn);
	if (rc)
		rig_api__fail(h->resp, rc, "checking the idempotency key");
	return rc;
}

int rig_write_record_answer(struct rig_write *w, struct rig_tx *conn)
{
	struct rig_write_http *h = w->ctx;
	rig_batch_answer(h->resp, w->batch, &w->result);
	return w->batch->dry_run ? 0 : rig_api__store_response(h->req, conn, h->resp);
}

void rig_write_answer(struct rig_resp *resp, struct rig_write *w)
{
	switch (w->state) {
	case RIG_WRITE_FAILED:
		rig_batch_answer(resp, w->batch, &w->result);
		return;
	case RIG_WRITE_UNDONE:
	case RIG_WRITE_LOST:
		rig_resp_release(resp);
		rig_api__fail(resp, w->rc, w->what);
		return;
	case RIG_WRITE_QUEUED:
	case RIG_WRITE_REFUSED:
	case RIG_WRITE_DONE:
		return; /* answered by the hooks */
	}
}

int rig_write_if_match(struct rig_batch *b, const struct rig_if_match *if_match,
		       struct rig_resp *resp)
{
	if (!rig_if_match_constrains(if_match))
		return 0; /* none, or "*": the shot must exist, as for every edit */
	if (b->has_expected_version && !rig_if_match_holds(if_match, b->expected_version)) {
		rig_problem(resp, RIG_PRECONDITION_INVALID,
			    json_pack("{s:s}", "parameter", "If-Match"),
			    "If-Match and expectedVersion disagree");
		return -1;
	}
	b->if_match = if_match;
	return 0;
}

int rig_write_check_outside(struct rig_req *req, struct rig_resp *resp, struct rig_batch *b,
			    struct rig_batch_prepared *out)
{
	memset(out, 0, sizeof *out);
	if (!b->check_frames.on)
		return 1;
	struct rig_tx *conn = rig_store_read(req->app->store);
	struct rig_batch_result r;
	memset(&r, 0, sizeof r);
	int rc = rig_tx_snapshot(conn);
	if (rc)
		rig_api__fail(resp, rc, "reading the shot");
	else if (rig_batch_prepare(conn, b, out, &r) != 0 || b->dry_run)
		rig_batch_answer(resp, b, &r); /* a dry run is answered by its check alone */
	rig_tx_rollback(conn);
	rig_tx_end(conn);
	rig_batch_result_release(&r);
	return !rc && out->ready && !b->dry_run;
}

void rig_write_run_batch(struct rig_req *req, struct rig_resp *resp, struct rig_batch *b)
{
	struct rig_batch_prepared prepared;
	if (!rig_write_check_outside(req, resp, b, &prepared)) {
		rig_batch_prepared_release(&prepared);
		return;
	}
	b->use_cache = !b->dry_run;
	struct rig_write_http http = {req, resp};
	struct rig_write w = {.batch = b,
			      .recheck = rig_write_recheck_key,
			      .record = rig_write_record_answer,
			      .ctx = &http};
	rig_committer_run(req->app->committer, &w);
	rig_write_answer(resp, &w);
	rig_batch_result_release(&w.result);
	rig_batch_prepared_release(&prepared);
}

void rig_write_run_op(struct rig_req *req, struct rig_resp *resp, struct rig_batch *b, json_t *op)
{
	struct rig_errs *op_errs = rig_api__errs_new(resp);
	if (!op_errs) {
		json_decref(op);
		return;
	}
	b->ops = op ? json_pack("[o]", op) : NULL;
	b->decoded = b->ops ? rig_batch_decode(b->ops, NULL, op_errs) : NULL;
	b->decode_errs = op_errs;
	if (b->decoded)
		rig_write_run_batch(req, resp, b);
	else
		rig_problem(resp, RIG_MEMORY_BUSY, NULL, "the server ran out of memory");
	rig_ops_free(b->decoded, json_array_size(b->ops));
	json_decref(b->ops);
	b->ops = NULL;
	b->decoded = NULL;
	b->decode_errs = NULL;
	rig_errs_free(op_errs);
}
