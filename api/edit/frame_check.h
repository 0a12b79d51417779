/* Frame checks: evaluating bound mesh layers of a shot model over a frame
 * range before anything is committed (an edit's checkFrames) or on demand
 * (GET /v1/shots/{id}/check), reporting every failing layer and frame.
 *
 * The model may be one no one stored yet (the batch's, after its ops): each
 * layer's evaluator is prepared from a copy of the model's definition, or
 * read from the store when the model holds it without its per-vertex arrays,
 * so the model stays as it was. Evaluation is the resolver's, through the
 * binding interface (core/binding.h), as the frame routes do it, in the
 * layer's local space. Spans of frames run in parallel on libuv's work queue
 * (the frame-range workers), each worker with its own resolver; faults come
 * back in layer order, then frame order, whatever ran first.
 *
 * What an edit's check covers (affected layers, opIndex) is decided here too,
 * from the batch's record of which op last changed which layer.
 */
#ifndef RIG_FRAME_CHECK_H
#define RIG_FRAME_CHECK_H

#include <jansson.h>
#include <stdbool.h>

#include "api/util/jsonread.h"
#include "core/frame_range.h"
#include "storage/shot_model.h"
#include "storage/store.h"

/* A request's checkFrames: true (the shot's frameStart..frameEnd, step 1) or
 * {from?, to?, step?} (missing ones default the same way). */
struct rig_check_frames {
	bool on;
	bool has_from, has_to, has_step;
	double from, to, step;
	enum rig_code code; /* what its range violations are (the body's field code) */
};

/* Reads the optional checkFrames member of body into *out: true, false,
 * or an object of finite numbers from, to, step. Violations go through jr
 * (its code is kept for the range rules). Returns 0 or -1. */
int rig_check_frames_read(struct rig_check_frames *out, json_t *body, const struct rig_jr *jr);

/* The range *req asks for on shot m, after the range rules (core/frame_range.h,
 * the frame-range route's, limit RIG_MAX_RANGE_FRAMES): 0, or -1 with one
 * violation of req->code recorded at /checkFrames[/field]. */
int rig_check_frames_range(struct rig_frame_range *out, const struct rig_check_frames *req,
			   const struct rig_shot_model *m, struct rig_errs *errs);

/* One check run. */
struct rig_frame_check {
	const struct rig_shot_model *model; /* borrowed, never changed */
	struct rig_tx *tx;  /* open on the model's snapshot: reads stored bindings */
	const long *layers; /* model indices of bound, live mesh layers, in report order */
	size_t n_layers;
	struct rig_frame_range range;
	size_t start;       /* first flat position (layer · n_frames + frame index) */
	size_t end;         /* stop before this position; 0: the last (n_layers · n_frames) */
	size_t stop_after;  /* stop once this many faults were found; 0: check everything */
	unsigned n_workers; /* parallel spans; 0 or 1 runs on the calling thread */
};

/* Runs c: faults go to out (its keep bounds what is held; total counts
 * them), *next is the first position not checked (n_layers · n_frames when
 * everything was). Returns 0, or -1 with errs filled when a layer could not be
 * prepared or memory ran out (out then holds nothing useful). */
int rig_frame_check_run(struct rig_frame_faults *out, size_t *next, const struct rig_frame_check *c,
			struct rig_errs *errs);

/* Vertices × frames of c's positions from c->start to its end (c->end or the
 * last): the work a check does. */
long long rig_frame_check_cost(const struct rig_frame_check *c);

/* The position where checking from c->start would pass budget vertex-frames:
 * c's last position when it would not, and at least one position past
 * c->start (a page always makes progress). */
size_t rig_frame_check_budget_end(const struct rig_frame_check *c, long long budget);

/* Every bound, live mesh layer of m, as model indices in model order, in a
 * malloc'd array (*out, NULL when none); returns the count, or -1 when out of
 * memory. */
long rig_frame_check_all_layers(long **out, const struct rig_shot_model *m);

struct rig_op_ctx;

/* An edit's check (batch.c, after final validation passed, before the write):
 * every bound mesh layer the batch's applied ops can have changed — the layer,
 * its ancestors, its binding's joint layers or their ancestors were changed by
 * an op — is evaluated over *req's range; each failing layer and frame is a
 * violation in ctx->errs with the evaluation's code, layerId, frame,
 * triangleIndex when known, and opIndex and pointer of the last op that
 * changed one of those layers. A check of more than RIG_MAX_CHECK_VERTEX_FRAMES
 * is one CHECK_TOO_LARGE violation at /checkFrames, nothing evaluated.
 * Returns 0, or -1 when it recorded any. */
int rig_frame_check_batch(struct rig_op_ctx *ctx, const struct rig_check_frames *req,
			  unsigned n_workers);

#endif
