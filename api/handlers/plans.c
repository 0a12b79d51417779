/* Saved plans (SPEC §6): create, read, list, revise under CAS, validate (a dry
 * run against the current shot), apply pinned to the version the agent read,
 * delete a draft. Validate and apply run the same batch pipeline as a direct
 * edit (batch.c), and apply writes the same receipt, with planId and planVersion.
 */
#include <stdlib.h>
#include <string.h>

#include "api/edit/batch.h"
#include "api/edit/frame_check.h"
#include "api/edit/shot_cache.h"
#include "api/handlers/edit_answer.h"
#include "api/handlers/handlers.h"
#include "api/http/paging.h"
#include "api/http/request.h"
#include "api/http/write.h"
#include "api/util/jsonread.h"
#include "api/util/stamp.h"
#include "storage/plans.h"
#include "storage/resources.h"
#include "storage/store.h"

static json_t *plan_json(const struct rig_plan *p)
{
	json_t *ops = json_loads(p->ops, JSON_DECODE_ANY, NULL);
	return json_pack(
		"{s:s, s:s, s:o, s:I, s:o, s:s, s:o, s:s, s:o, s:s, s:s}", "planId", p->id,
		"shotId", p->shot_id, "title", p->title ? json_string(p->title) : json_null(),
		"planVersion", (json_int_t)p->plan_version, "baseVersion",
		p->has_base_version ? json_integer(p->base_version) : json_null(), "status",
		p->applied ? "applied" : "draft", "ops", ops ? ops : json_array(), "author",
		p->author, "receiptId", p->receipt_id[0] ? json_string(p->receipt_id) : json_null(),
		"createdAt", p->created_at, "updatedAt", p->updated_at);
}

/* Reads title, ops and baseVersion of a create or revise body into p (ops as
 * JSON text, malloc'd). Records violations in errs. */
static void read_content(json_t *body, struct rig_errs *errs, struct rig_plan *p,
			 struct rig_resp *resp, bool *too_large)
{
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	const char *title = NULL;
	rig_jr_string(&jr, body, "title", false, RIG_MAX_NAME_BYTES, &title);
	if (title)
		p->title = strdup(title);
	json_t *base = json_object_get(body, "baseVersion");
	if (base && !json_is_null(base))
		rig_jr_int(&jr, body, "baseVersion", false, 0, INT64_MAX, &p->base_version,
			   &p->has_base_version);
	json_t *ops = json_object_get(body, "ops");
	*too_large = false;
	if (!json_is_array(ops) || json_array_size(ops) == 0) {
		rig_jr_fail(&jr, "ops", "field 'ops' must be a non-empty array of ops");
	} else if (json_array_size(ops) > RIG_MAX_OPS_PER_BATCH) {
		*too_large = true;
		rig_problem(resp, RIG_BATCH_TOO_LARGE,
			    json_pack("{s:I, s:I}", "opCount", (json_int_t)json_array_size(ops),
				      "maxOpsPerBatch", (json_int_t)RIG_MAX_OPS_PER_BATCH),
			    "the plan has %zu ops; the limit is %d", json_array_size(ops),
			    RIG_MAX_OPS_PER_BATCH);
	} else {
		p->ops = json_dumps(ops, JSON_COMPACT | JSON_REAL_PRECISION(17));
	}
}

void rig_h_plan_create(struct rig_req *req, struct rig_resp *resp)
{
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs)
		goto out_decref_body;
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"planId", "title", "ops", "baseVersion", NULL};
	struct rig_plan p;
	memset(&p, 0, sizeof p);
	bool too_large;
	rig_jr_known(&jr, body, allowed);
	rig_jr_id(&jr, body, "planId", false, false, p.id, NULL);
	read_content(body, errs, &p, resp, &too_large);
	if (too_large)
		goto out;
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	if (!p.id[0])
		rig_api__new_id(p.id, "pl-");
	rig_strlcpy(p.shot_id, req->params[0], sizeof p.shot_id);
	rig_strlcpy(p.author, req->actor, sizeof p.author);
	struct rig_tx *conn = rig_store_read(req->app->store);
	int rc = rig_api__begin(req, conn);
	if (!rc)
		rc = rig_shot_version(conn, p.shot_id, &(long long){0});
	if (!rc)
		rc = rig_plan_insert(conn, &p);
	struct rig_plan stored;
	memset(&stored, 0, sizeof stored);
	if (!rc)
		rc = rig_plan_get(conn, p.id, &stored);
	if (rc == -RIG_LAYER_EXISTS) {
		rig_problem(resp, RIG_INVALID_FIELD,
			    json_pack("{s:s, s:s}", "pointer", "/planId", "planId", p.id),
			    "plan id '%s' is already in use", p.id);
	} else if (rc) {
		if (rc == -RIG_NOT_FOUND)
			rig_api__fail_shot(resp, rc, p.shot_id);
		else
			rig_api__fail(resp, rc, "creating the plan");
	} else {
		rig_resp_json(resp, 201, plan_json(&stored), NULL);
		rig_resp_header(resp, "Location", "/v1/plans/%s", p.id);
		rig_resp_header(resp, "ETag", "\"%lld\"", stored.plan_version);
		rig_api__commit(req, conn, resp);
	}
	rig_plan_release(&stored);
	rig_tx_end(conn);
out:
	rig_plan_release(&p);
	rig_errs_free(errs);
out_decref_body:
	json_decref(body);
}

void rig_h_plan_get(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_plan p;
	struct rig_tx *conn = rig_store_read(req->app->store);
	int rc = rig_plan_get(conn, req->params[0], &p);
	rig_tx_end(conn);
	if (rc) {
		rig_api__fail(resp, rc, "plan");
	} else {
		rig_resp_json(resp, 200, plan_json(&p), NULL);
		rig_resp_header(resp, "ETag", "\"%lld\"", p.plan_version);
	}
	rig_plan_release(&p);
}

static int collect(void *ctx, const struct rig_plan *p)
{
	struct rig_page *page = ctx;
	if (rig_page_take(page, p->seq))
		json_array_append_new(page->items, plan_json(p));
	return 0;
}

void rig_h_plan_list(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_page p;
	long long after;
	if (rig_api__page_start(req, resp, "plans", req->params[0], &p, &after))
		return;
	struct rig_tx *conn = rig_store_read(req->app->store);
	int rc = rig_shot_version(conn, req->params[0], &(long long){0});
	if (!rc)
		rc = rig_plan_list(conn, req->params[0], after, p.limit + 1, collect, &p);
	rig_tx_end(conn);
	if (rc) {
		json_decref(p.items);
		rig_api__fail_shot(resp, rc, req->params[0]);
		return;
	}
	rig_api__page_finish(req, resp, "plans", req->params[0], &p, "plans",
			     json_pack("{s:s}", "shotId", req->params[0]));
}

static json_t *plan_applied_json(const struct rig_plan *p)
{
	return rig_problem_json(
		0, RIG_PLAN_APPLIED,
		json_pack("{s:s, s:s}", "planId", p->id, "receiptId", p->receipt_id),
		"plan '%s' was applied (receipt '%s') and is immutable", p->id, p->receipt_id);
}

static void plan_applied(struct rig_resp *resp, const struct rig_plan *p)
{
	rig_resp_problem(resp, plan_applied_json(p), false);
}

static void plan_version_conflict(struct rig_resp *resp, int status, const struct rig_plan *p,
				  long long expected)
{
	rig_problem_status(
		resp, status, RIG_PLAN_VERSION_CONFLICT,
		json_pack("{s:s, s:I, s:I}", "planId", p->id, "expectedPlanVersion",
			  (json_int_t)expected, "currentPlanVersion", (json_int_t)p->plan_version),
		"plan '%s' is at version %lld, not %lld", p->id, p->plan_version, expected);
}

/* 412 PLAN_VERSION_CONFLICT for an If-Match the plan's version fails. */
static void plan_if_match_failed(struct rig_resp *resp, const struct rig_plan *p,
				 const struct rig_if_match *m)
{
	json_t *extra = json_pack("{s:s, s:I}", "planId", p->id, "currentPlanVersion",
				  (json_int_t)p->plan_version);
	rig_if_match_expected_json(extra, m, "expectedPlanVersion", "expectedPlanVersions");
	char why[160];
	rig_if_match_describe(why, sizeof why, m);
	rig_problem_status(resp, 412, RIG_PLAN_VERSION_CONFLICT, extra,
			   "plan '%s' is at version %lld%s", p->id, p->plan_version, why);
}

void rig_h_plan_revise(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_if_match if_match;
	if (rig_api__if_match(req, resp, &if_match))
		return;
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs)
		goto out_decref_body;
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"title", "ops", "baseVersion", "expectedPlanVersion",
					      NULL};
	struct rig_plan next, cur;
	memset(&next, 0, sizeof next);
	memset(&cur, 0, sizeof cur);
	long long expected = -1;
	bool has_expected = false, too_large;
	rig_jr_known(&jr, body, allowed);
	rig_jr_int(&jr, body, "expectedPlanVersion", false, 1, INT64_MAX, &expected, &has_expected);
	read_content(body, errs, &next, resp, &too_large);
	if (too_large)
		goto out;
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	struct rig_tx *conn = rig_store_read(req->app->store);
	int rc = rig_api__begin(req, conn);
	if (!rc)
		rc = rig_plan_get(conn, req->params[0], &cur);
	if (rc) {
		rig_api__fail(resp, rc, "plan");
	} else if (cur.applied) {
		plan_applied(resp, &cur);
	} else if (!rig_if_match_holds(&if_match, cur.plan_version)) {
		plan_if_match_failed(resp, &cur, &if_match);
	} else if (has_expected && cur.plan_version != expected) {
		plan_version_conflict(resp, 409, &cur, expected);
	} else {
		rig_strlcpy(next.id, cur.id, sizeof next.id);
		rc = rig_plan_revise(conn, &next, cur.plan_version);
		rig_plan_release(&cur);
		if (!rc)
			rc = rig_plan_get(conn, req->params[0], &cur);
		if (rc) {
			rig_api__fail(resp, rc, "revising the plan");
		} else {
			rig_resp_json(resp, 200, plan_json(&cur), NULL);
			rig_resp_header(resp, "ETag", "\"%lld\"", cur.plan_version);
			rig_api__commit(req, conn, resp);
		}
	}
	rig_tx_end(conn);
out:
	rig_plan_release(&cur);
	rig_plan_release(&next);
	rig_errs_free(errs);
out_decref_body:
	json_decref(body);
}

/* The batch a plan stands for; ops parsed into *out_ops (new reference). */
static void plan_batch(struct rig_batch *b, json_t **out_ops, const struct rig_plan *p,
		       struct rig_req *req, bool dry_run)
{
	memset(b, 0, sizeof *b);
	*out_ops = json_loads(p->ops, JSON_DECODE_ANY, NULL);
	b->shot_id = p->shot_id;
	b->ops = *out_ops;
	b->has_expected_version = p->has_base_version;
	b->expected_version = p->base_version;
	b->dry_run = dry_run;
	b->actor = req->actor;
	b->principal = req->principal;
	b->token_id = req->token_id;
	b->idem_key = req->idem_key;
	b->receipt_extra = json_pack("{s:s, s:I}", "planId", p->id, "planVersion",
				     (json_int_t)p->plan_version);
}

/* The optional body of validate: {checkFrames?}. An empty body is none.
 * Returns 0, or -1 with resp answered. */
static int read_validate_body(struct rig_req *req, struct rig_resp *resp,
			      struct rig_check_frames *out)
{
	memset(out, 0, sizeof *out);
	if (req->body_len == 0)
		return 0;
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return -1;
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs) {
		json_decref(body);
		return -1;
	}
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"checkFrames", NULL};
	rig_jr_known(&jr, body, allowed);
	rig_check_frames_read(out, body, &jr);
	int rc = 0;
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		rc = -1;
	}
	rig_errs_free(errs);
	json_decref(body);
	return rc;
}

void rig_h_plan_validate(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_check_frames check;
	if (read_validate_body(req, resp, &check))
		return;
	struct rig_plan p;
	memset(&p, 0, sizeof p);
	json_t *ops = NULL, *problem = NULL;
	struct rig_batch b;
	memset(&b, 0, sizeof b);
	struct rig_batch_result r;
	memset(&r, 0, sizeof r);
	/* A read snapshot: validation writes nothing and waits for no writer. */
	struct rig_tx *conn = rig_store_read(req->app->store);
	int rc = rig_tx_snapshot(conn);
	if (!rc)
		rc = rig_plan_get(conn, req->params[0], &p);
	if (rc) {
		rig_api__fail(resp, rc, "plan");
		goto out;
	}
	plan_batch(&b, &ops, &p, req, true);
	b.app = req->app; /* frame workers; the cache stays unused (use_cache false) */
	b.check_frames = check;
	bool retry_after;
	if (p.applied) /* what apply would answer */
		problem = plan_applied_json(&p);
	else if (rig_batch_apply(conn, &b, &r) != 0)
		problem = rig_batch_problem(&b, &r, &retry_after);
	json_t *errors = json_object_get(problem, "errors");
	if (problem && !errors) {
		/* A single problem (version conflict, missing shot): one entry with
		 * every member but the envelope's. */
		json_t *entry = json_deep_copy(problem);
		static const char *const envelope[] = {"type", "title", "status", "retryable"};
		for (size_t i = 0; i < 4; i++)
			json_object_del(entry, envelope[i]);
		errors = json_pack("[o]", entry);
	} else {
		json_incref(errors);
	}
	json_t *out = json_pack("{s:s, s:I, s:b, s:o, s:o}", "planId", p.id, "planVersion",
				(json_int_t)p.plan_version, "ok", !problem, "errors",
				errors ? errors : json_array(), "receipt",
				problem ? json_null() : json_loads(r.receipt, 0, NULL));
	static const char *const counted[] = {"errorCount", "truncated"}; /* when over 64 */
	for (size_t i = 0; i < 2; i++)
		if (json_object_get(problem, counted[i]))
			json_object_set(out, counted[i], json_object_get(problem, counted[i]));
	long long shot_version;
	if (rig_shot_version(conn, p.shot_id, &shot_version) == 0)
		json_object_set_new(out, "shotVersion", json_integer(shot_version));
	rig_resp_json(resp, 200, out, NULL);
out:
	rig_tx_rollback(conn);
	rig_tx_end(conn);
	json_decref(problem);
	rig_batch_result_release(&r);
	json_decref(ops);
	json_decref(b.receipt_extra);
	rig_plan_release(&p);
}

/* A plan apply as a committer write: the plan is read and checked inside the
 * write's transaction (prepare), and marked applied in it (finish). */
struct plan_apply {
	struct rig_write_http http; /* first: the shared hooks read it */
	long long reviewed;         /* the planVersion the caller reviewed */
	struct rig_batch fence;     /* lockId, fencingToken and checkFrames of the body */
	struct rig_plan plan;
	json_t *ops;
	struct rig_batch_prepared prepared; /* checkFrames: checked outside the write turn */
};

static int plan_prepare(struct rig_write *w, struct rig_tx *conn)
{
	struct plan_apply *a = w->ctx;
	struct rig_req *req = a->http.req;
	int rc = rig_plan_get(conn, req->params[0], &a->plan);
	if (rc)
		rig_api__fail(a->http.resp, rc, "plan");
	else if (a->plan.applied)
		plan_applied(a->http.resp, &a->plan);
	else if (a->plan.plan_version != a->reviewed)
		plan_version_conflict(a->http.resp, 409, &a->plan, a->reviewed);
	if (rc || a->plan.applied || a->plan.plan_version != a->reviewed)
		return 1;
	plan_batch(w->batch, &a->ops, &a->plan, req, false);
	w->batch->app = req->app;
	w->batch->use_cache = true;
	w->batch->has_fence = a->fence.has_fence;
	memcpy(w->batch->lock_id, a->fence.lock_id, sizeof w->batch->lock_id);
	w->batch->fencing_token = a->fence.fencing_token;
	w->batch->check_frames = a->fence.check_frames;
	if (!a->prepared.ready && w->batch->check_frames.on) {
		/* The plan changed between its check and now: never check in the turn. */
		struct rig_batch_result stale = {.outcome = RIG_BATCH_STALE};
		rig_batch_answer(a->http.resp, w->batch, &stale);
		return 1;
	}
	w->batch->prepared = a->prepared.ready ? &a->prepared : NULL;
	return 0;
}

/* checkFrames: the plan read, applied and checked on a read snapshot, out of
 * the write turn (rig_write_check_outside). Returns 1 to go on to the write
 * turn, 0 when resp is answered. A plan that cannot be applied as reviewed
 * is left to the write turn to answer. */
static int plan_check_outside(struct plan_apply *a)
{
	struct rig_req *req = a->http.req;
	if (!a->fence.check_frames.on)
		return 1;
	struct rig_plan p;
	memset(&p, 0, sizeof p);
	struct rig_tx *conn = rig_store_read(req->app->store);
	int go_on = 1;
	if (rig_tx_snapshot(conn) == 0 && rig_plan_get(conn, req->params[0], &p) == 0 &&
	    !p.applied && p.plan_version == a->reviewed) {
		rig_tx_rollback(conn);
		rig_tx_end(conn);
		struct rig_batch b;
		json_t *ops;
		plan_batch(&b, &ops, &p, req, false);
		b.app = req->app;
		b.has_fence = a->fence.has_fence;
		memcpy(b.lock_id, a->fence.lock_id, sizeof b.lock_id);
		b.fencing_token = a->fence.fencing_token;
		b.check_frames = a->fence.check_frames;
		go_on = rig_write_check_outside(req, a->http.resp, &b, &a->prepared);
		json_decref(ops);
		json_decref(b.receipt_extra);
	} else {
		rig_tx_rollback(conn);
		rig_tx_end(conn);
	}
	rig_plan_release(&p);
	return go_on;
}

static int plan_finish(struct rig_write *w, struct rig_tx *conn)
{
	struct plan_apply *a = w->ctx;
	int rc = rig_plan_mark_applied(conn, a->plan.id, w->result.receipt_id);
	if (rc)
		w->what = "marking the plan applied";
	return rc;
}

void rig_h_plan_apply(struct rig_req *req, struct rig_resp *resp)
{
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs) {
		json_decref(body);
		return;
	}
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"planVersion", "lockId", "fencingToken",
					      "checkFrames", NULL};
	struct plan_apply a;
	memset(&a, 0, sizeof a);
	a.http = (struct rig_write_http){req, resp};
	rig_jr_known(&jr, body, allowed);
	rig_jr_int(&jr, body, "planVersion", true, 1, INT64_MAX, &a.reviewed, NULL);
	rig_batch_read_fence(&a.fence, body, &jr);
	rig_check_frames_read(&a.fence.check_frames, body, &jr);
	json_decref(body);
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		rig_errs_free(errs);
		return;
	}
	rig_errs_free(errs);
	struct rig_batch b;
	memset(&b, 0, sizeof b);
	if (!plan_check_outside(&a)) {
		rig_batch_prepared_release(&a.prepared);
		return;
	}
	struct rig_write w = {.batch = &b,
			      .recheck = rig_write_recheck_key,
			      .prepare = plan_prepare,
			      .finish = plan_finish,
			      .record = rig_write_record_answer,
			      .ctx = &a};
	rig_committer_run(req->app->committer, &w);
	rig_write_answer(resp, &w);
	rig_batch_result_release(&w.result);
	json_decref(a.ops);
	json_decref(b.receipt_extra);
	rig_plan_release(&a.plan);
	rig_batch_prepared_release(&a.prepared);
}

void rig_h_plan_delete(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_plan p;
	memset(&p, 0, sizeof p);
	struct rig_tx *conn = rig_store_read(req->app->store);
	int rc = rig_api__begin(req, conn);
	if (!rc)
		rc = rig_plan_get(conn, req->params[0], &p);
	if (rc)
		rig_api__fail(resp, rc, "plan");
	else if (p.applied)
		plan_applied(resp, &p);
	else if ((rc = rig_plan_delete(conn, p.id)) != 0)
		rig_api__fail(resp, rc, "deleting the plan");
	else {
		rig_resp_json(resp, 200, json_pack("{s:s, s:b}", "planId", p.id, "deleted", 1),
			      NULL);
		rig_api__commit(req, conn, resp);
	}
	rig_tx_end(conn);
	rig_plan_release(&p);
}
