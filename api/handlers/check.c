/* GET /v1/shots/{shotId}/check?from&to&step: every failing layer and frame of
 * the shot's current version, paged.
 *
 * Every bound mesh layer (in creation order) is evaluated at every frame of
 * the range (defaults: the shot's frameStart..frameEnd, step 1; the
 * frame-range route's rules and limit) by the frame check of
 * api/edit/frame_check.h, the one an edit's checkFrames runs, on the
 * frame-range workers. A failure is {layerId, frame, code, detail,
 * triangleIndex?}: the first violation that frame's evaluation found, as the
 * frame routes would answer it. The list is ordered by layer, then frame; a
 * page stops after pageSize failures, and its nextPageToken (signed,
 * api/http/paging.c) holds the shot version, the query and the position to
 * go on from: later pages read that version (docs/history.md) while it is
 * retained, 410 PAGE_TOKEN_STALE after; a token used with another query is
 * 400 PAGE_TOKEN_INVALID. A page evaluates only up to its
 * last failure (and one more), so a long clean stretch costs one page. The
 * page's faults are reserved in the memory budget (503 MEMORY_BUSY without room).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/frame_check.h"
#include "api/eval/evaluate.h"
#include "api/handlers/frames.h"
#include "api/handlers/handlers.h"
#include "api/http/paging.h"
#include "api/http/request.h"
#include "api/util/membudget.h"
#include "storage/store.h"

static json_t *failure_json(const struct rig_eval *ev, const long *layers,
			    const struct rig_frame_fault *f, const struct rig_frame_range *range)
{
	json_t *item =
		json_pack("{s:s, s:f, s:s, s:s}", "layerId", ev->model->layers[layers[f->layer]].id,
			  "frame", rig_frame_at(range, f->frame_index), "code",
			  rig_code_name(f->err.code), "detail", f->err.detail);
	if (f->err.triangle_index != RIG_NO_INDEX)
		json_object_set_new(item, "triangleIndex", json_integer(f->err.triangle_index));
	if (f->err.vertex_index != RIG_NO_INDEX)
		json_object_set_new(item, "vertexIndex", json_integer(f->err.vertex_index));
	if (f->err.joint_id[0])
		json_object_set_new(item, "jointId", json_string(f->err.joint_id));
	return item;
}

void rig_h_check(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_frames_query q;
	if (rig_frames__query_parse(&q, req, resp, RIG_FQ_PAGE_SIZE | RIG_FQ_RANGE, "check") != 0) {
		rig_frames__query_release(&q);
		return;
	}
	size_t page_size = q.page_size;
	struct rig_eval ev;
	memset(&ev, 0, sizeof ev);
	struct rig_tx *tx = rig_store_read(req->app->store);
	struct rig_errs *errs = rig_api__errs_new(resp);
	struct rig_frame_faults faults = {.keep = page_size + 1};
	long *layers = NULL;
	struct rig_mem_claim claim = {0, 0};
	struct rig_frame_range range;
	double to;
	if (!errs || rig_frames__query_open(&ev, tx, req, resp, &q) != 0 ||
	    rig_frames__query_range(&q, ev.model, resp, &range, &to) != 0)
		goto out;
	long n_layers = rig_frame_check_all_layers(&layers, ev.model);
	if (n_layers < 0) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		goto out;
	}
	char query[160];
	snprintf(query, sizeof query, "%.17g|%.17g|%.17g|%zu|%s", range.from, to, range.step,
		 page_size, q.version_text);
	size_t end = (size_t)n_layers * range.n_frames, start;
	struct rig_pinned_page pp = {"check", q.shot_id, query, "from, to, step and pageSize",
				     ev.model->version};
	if (rig_api__pinned_page_open_token(req->app, resp, &pp, q.page_token, end, &start) ||
	    rig_frames__query_etag(&q, resp, ev.model->version))
		goto out;
	struct rig_frame_check c = {
		.model = ev.model,
		.tx = tx,
		.layers = layers,
		.n_layers = (size_t)n_layers,
		.range = range,
		.start = start,
		.stop_after = page_size + 1,
		.n_workers = req->app->limits.frame_workers ? req->app->limits.frame_workers : 2};
	/* A page evaluates a bounded amount, so a long range is checked in
	 * requests of a few seconds, each resumable, never one that runs for minutes. */
	c.end = rig_frame_check_budget_end(&c, RIG_MAX_CHECK_VERTEX_FRAMES);
	/* The page's faults (a few KiB each) and the workers' scratch lists count
	 * against the memory budget while the check runs. */
	size_t bytes = (page_size + 1) * sizeof(struct rig_frame_fault) +
		       2 * (size_t)c.n_workers * sizeof(struct rig_errs);
	if (!rig_frames__reserve(req, resp, &claim, bytes, "this check's page"))
		goto out;
	size_t next;
	if (rig_frame_check_run(&faults, &next, &c, errs) != 0) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	json_t *items = json_array();
	for (size_t i = 0; i < faults.count && i < page_size; i++)
		json_array_append_new(items, failure_json(&ev, layers, &faults.items[i], &range));
	json_t *body =
		json_pack("{s:s, s:I, s:f, s:f, s:f, s:I, s:I, s:o}", "shotId", ev.model->id,
			  "shotVersion", (json_int_t)ev.model->version, "from", range.from, "to",
			  to, "step", range.step, "frameCount", (json_int_t)range.n_frames,
			  "layerCount", (json_int_t)n_layers, "failures", items);
	bool more = faults.count > page_size || next < end;
	size_t resume = faults.count > page_size
				? (size_t)faults.items[page_size].layer * range.n_frames +
					  faults.items[page_size].frame_index
				: next;
	json_object_set_new(body, "checkedLayerFrames", json_integer((json_int_t)resume));
	json_object_set_new(body, "layerFrameCount", json_integer((json_int_t)end));
	rig_api__pinned_page_answer(req, resp, &pp, more, resume, body);
out:
	rig_membudget_settle(req->app->budget, &claim);
	rig_frame_faults_release(&faults);
	free(layers);
	rig_errs_free(errs);
	rig_eval_release(&ev);
	rig_tx_end(tx);
	rig_frames__query_release(&q);
}
