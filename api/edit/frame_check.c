/* Frame checks of frame_check.h. */
#include "api/edit/frame_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "api/context.h"
#include "api/edit/ops.h"
#include "storage/shot_repo.h"

/* Vertices a span evaluates (about; at least one frame): large enough that a
 * hand-off between threads carries real work, small enough that a range of a
 * few hundred frames still spreads over every worker. */
#define SPAN_VERTS (128 * 1024)
#define SPAN_MAX_FRAMES 64
#define SLOTS_PER_WORKER 2
#define MAX_SLOTS 32

/* ---- checkFrames in a request ---- */

int rig_check_frames_read(struct rig_check_frames *out, json_t *body, const struct rig_jr *jr)
{
	memset(out, 0, sizeof *out);
	out->code = jr->code;
	json_t *v = json_object_get(body, "checkFrames");
	if (!v || json_is_false(v))
		return 0;
	if (json_is_true(v)) {
		out->on = true;
		return 0;
	}
	if (!json_is_object(v))
		return rig_jr_fail(jr, "checkFrames",
				   "field 'checkFrames' must be true, false or {from, to, step}");
	char base[RIG_ERR_POINTER_MAX];
	snprintf(base, sizeof base, "%s/checkFrames", jr->base);
	struct rig_jr sub = {jr->errs, jr->code, base, jr->op_index};
	static const char *const allowed[] = {"from", "to", "step", NULL};
	int rc = rig_jr_known(&sub, v, allowed);
	rc |= rig_jr_number(&sub, v, "from", false, &out->from, &out->has_from);
	rc |= rig_jr_number(&sub, v, "to", false, &out->to, &out->has_to);
	rc |= rig_jr_number(&sub, v, "step", false, &out->step, &out->has_step);
	out->on = rc == 0;
	return rc;
}

int rig_check_frames_range(struct rig_frame_range *out, const struct rig_check_frames *req,
			   const struct rig_shot_model *m, struct rig_errs *errs)
{
	double from = req->has_from ? req->from : m->frame_start;
	double to = req->has_to ? req->to : m->frame_end;
	double step = req->has_step ? req->step : 1, count;
	struct rig_err *e = NULL;
	switch (rig_range_rules(from, to, step, RIG_MAX_RANGE_FRAMES, &count)) {
	case RIG_RANGE_OK:
		*out = (struct rig_frame_range){from, step, (size_t)count};
		return 0;
	case RIG_RANGE_STEP:
		e = rig_errs_add(errs, req->code, "step must be greater than 0");
		rig_strlcpy(e->pointer, "/checkFrames/step", sizeof e->pointer);
		break;
	case RIG_RANGE_ORDER:
		e = rig_errs_add(errs, req->code, "to %.17g is before from %.17g", to, from);
		rig_strlcpy(e->pointer, req->has_to ? "/checkFrames/to" : "/checkFrames",
			    sizeof e->pointer);
		rig_err_extra_number(e, "to", to);
		rig_err_extra_number(e, "from", from);
		break;
	case RIG_RANGE_LENGTH: {
		bool by_step = rig_range_step_caused(from, to, step, RIG_MAX_RANGE_FRAMES);
		char frames[32];
		snprintf(frames, sizeof frames, count < 1e15 ? "%.0f" : "%.3g", count);
		e = rig_errs_add(errs, req->code, "the range has %s frames; the limit is %d",
				 frames, RIG_MAX_RANGE_FRAMES);
		rig_strlcpy(e->pointer, by_step ? "/checkFrames/step" : "/checkFrames",
			    sizeof e->pointer);
		rig_err_extra_number(e, "frameCount", count);
		rig_err_extra_number(e, "limit", RIG_MAX_RANGE_FRAMES);
		break;
	}
	}
	return -1;
}

/* ---- preparing the layers ---- */

long rig_frame_check_all_layers(long **out, const struct rig_shot_model *m)
{
	*out = NULL;
	long n = 0;
	for (size_t i = 0; i < m->n_layers; i++)
		n += !m->layers[i].deleted && m->layers[i].binding.type;
	if (n == 0)
		return 0;
	if (!(*out = malloc((size_t)n * sizeof **out)))
		return -1;
	n = 0;
	for (size_t i = 0; i < m->n_layers; i++)
		if (!m->layers[i].deleted && m->layers[i].binding.type)
			(*out)[n++] = (long)i;
	return n;
}

/* Layer l's vertex count, whether or not the model holds its arrays. */
static size_t layer_verts(const struct rig_model_layer *l)
{
	const struct rig_model_binding *b = &l->binding;
	return b->loaded || b->dirty ? b->type->def_n_verts(b->def) : b->n_verts;
}

static size_t check_end(const struct rig_frame_check *c)
{
	size_t last = c->n_layers * c->range.n_frames;
	return c->end && c->end < last ? c->end : last;
}

long long rig_frame_check_cost(const struct rig_frame_check *c)
{
	size_t n = c->range.n_frames, end = check_end(c);
	long long cost = 0;
	for (size_t k = n ? c->start / n : 0; n && k * n < end; k++) {
		size_t from = k * n > c->start ? k * n : c->start;
		size_t to = (k + 1) * n < end ? (k + 1) * n : end;
		size_t verts = layer_verts(&c->model->layers[c->layers[k]]);
		cost += (long long)(to - from) * (long long)verts; /* < 2^20 · 10^5 · layers */
	}
	return cost;
}

size_t rig_frame_check_budget_end(const struct rig_frame_check *c, long long budget)
{
	size_t n = c->range.n_frames, end = check_end(c), pos = c->start;
	while (n && pos < end) {
		size_t k = pos / n, layer_end = (k + 1) * n < end ? (k + 1) * n : end;
		long long verts = (long long)layer_verts(&c->model->layers[c->layers[k]]);
		long long can = verts ? budget / verts : (long long)(layer_end - pos);
		if (pos == c->start && can < 1)
			can = 1;
		if (can < (long long)(layer_end - pos))
			return pos + (size_t)can;
		budget -= (long long)(layer_end - pos) * verts;
		pos = layer_end;
	}
	return end;
}

/* The state of one run: the scene, the prepared evaluators, the workers' slots. */
struct run;

struct slot {
	uv_work_t work;
	const struct run *run;
	size_t first, count;
	struct rig_resolver *resolver;
	double *xy;
	struct rig_errs *scratch;
	struct rig_frame_faults faults;
	bool busy;
};

struct run {
	const struct rig_frame_check *c;
	struct rig_scene_view view;
	long *scene_layers; /* per checked layer: its scene index */
	void **evals;       /* per checked layer: its prepared evaluator */
	size_t max_verts;
	struct slot slots[MAX_SLOTS];
	size_t n_slots;
};

/* Prepares layer k's evaluator from a copy of the model's definition (or the
 * stored one when the model holds no per-vertex arrays). */
static int prepare_layer(struct run *run, size_t k, struct rig_errs *errs)
{
	const struct rig_frame_check *c = run->c;
	const struct rig_model_layer *l = &c->model->layers[c->layers[k]];
	const struct rig_binding_type *type = l->binding.type;
	void *def = NULL;
	int rc = 0;
	if (l->binding.loaded || l->binding.dirty)
		def = rig_binding_def_copy(type, l->binding.def);
	else
		rc = rig_shot_read_binding(&def, c->tx, c->model, l);
	if (!def) {
		struct rig_err *e = rig_errs_add(errs, rc ? (enum rig_code) - rc : RIG_INTERNAL,
						 "cannot prepare the %s of '%s' to check frames",
						 type->name, l->id);
		rig_strlcpy(e->layer_id, l->id, sizeof e->layer_id);
		return -1;
	}
	size_t from = errs->count;
	run->evals[k] = type->prepare(def, errs);
	type->def_free(def);
	if (!run->evals[k]) {
		for (size_t i = from; i < errs->count; i++)
			rig_strlcpy(errs->items[i].layer_id, l->id, sizeof errs->items[i].layer_id);
		return -1;
	}
	long s = run->view.index_of[c->layers[k]];
	run->scene_layers[k] = s;
	run->view.layers[s].binding = type;
	run->view.layers[s].binding_eval = run->evals[k];
	size_t n = type->def_n_verts(type->eval_def(run->evals[k]));
	if (n > run->max_verts)
		run->max_verts = n;
	return 0;
}

static void release_run(struct run *run)
{
	const struct rig_frame_check *c = run->c;
	for (size_t i = 0; i < MAX_SLOTS; i++) {
		rig_resolver_free(run->slots[i].resolver);
		free(run->slots[i].xy);
		rig_errs_free(run->slots[i].scratch);
		rig_frame_faults_release(&run->slots[i].faults);
	}
	for (size_t k = 0; run->evals && k < c->n_layers; k++)
		if (run->evals[k])
			c->model->layers[c->layers[k]].binding.type->free(run->evals[k]);
	free(run->evals);
	free(run->scene_layers);
	rig_scene_view_release(&run->view);
}

/* ---- running spans ---- */

static void check_span(struct slot *s)
{
	const struct run *run = s->run;
	const struct rig_frame_check *c = run->c;
	rig_frame_check_span(&s->faults, s->resolver, s->xy, run->scene_layers, c->n_layers,
			     &c->range, s->first, s->count, s->scratch);
}

static void work_cb(uv_work_t *w)
{
	check_span(w->data);
}

static void after_cb(uv_work_t *w, int status)
{
	(void)status; /* never cancelled: the loop is private and runs to the end */
	struct slot *s = w->data;
	s->busy = false;
}

/* Runs spans of span_len positions from c->start, a round of n_slots at a
 * time, merging each round in order; stops after the round that reached
 * stop_after faults. */
static int run_spans(struct run *run, struct rig_frame_faults *out, size_t *next, size_t span_len,
		     struct rig_errs *errs)
{
	const struct rig_frame_check *c = run->c;
	size_t end = check_end(c), pos = c->start;
	bool parallel = run->n_slots > 1;
	uv_loop_t loop;
	if (parallel && uv_loop_init(&loop) != 0)
		parallel = false;
	int rc = 0;
	while (pos < end && !(c->stop_after && out->total >= c->stop_after)) {
		size_t used = 0;
		for (; used < run->n_slots && pos < end; used++) {
			struct slot *s = &run->slots[used];
			s->first = pos;
			s->count = end - pos < span_len ? end - pos : span_len;
			pos += s->count;
			s->busy = true;
			if (!parallel || uv_queue_work(&loop, &s->work, work_cb, after_cb) != 0) {
				check_span(s);
				s->busy = false;
			}
		}
		if (parallel)
			uv_run(&loop, UV_RUN_DEFAULT);
		for (size_t i = 0; i < used; i++) {
			rig_frame_faults_append(out, &run->slots[i].faults);
			/* Past stop_after, the rest of the round is not reported as checked. */
			if (c->stop_after && out->total >= c->stop_after && i + 1 < used) {
				pos = run->slots[i + 1].first;
				for (size_t j = i + 1; j < used; j++)
					rig_frame_faults_release(&run->slots[j].faults);
				break;
			}
		}
		if (out->oom) {
			rig_errs_add(errs, RIG_MEMORY_BUSY,
				     "the server ran out of memory holding frame faults");
			rc = -1;
			break;
		}
	}
	if (parallel)
		uv_loop_close(&loop);
	*next = pos;
	return rc;
}

int rig_frame_check_run(struct rig_frame_faults *out, size_t *next, const struct rig_frame_check *c,
			struct rig_errs *errs)
{
	struct run run;
	memset(&run, 0, sizeof run);
	run.c = c;
	*next = c->start;
	int rc = -1;
	if (c->n_layers == 0 || c->range.n_frames == 0 || c->start >= check_end(c)) {
		*next = check_end(c);
		return 0;
	}
	if (rig_scene_view_init(&run.view, c->model) != 0 ||
	    !(run.scene_layers = calloc(c->n_layers, sizeof *run.scene_layers)) ||
	    !(run.evals = calloc(c->n_layers, sizeof *run.evals))) {
		rig_errs_add(errs, RIG_INTERNAL, "out of memory preparing the frame check");
		goto out;
	}
	for (size_t k = 0; k < c->n_layers; k++)
		if (prepare_layer(&run, k, errs) != 0)
			goto out;
	size_t span_frames = SPAN_VERTS / (run.max_verts ? run.max_verts : 1);
	if (span_frames < 1)
		span_frames = 1;
	if (span_frames > SPAN_MAX_FRAMES)
		span_frames = SPAN_MAX_FRAMES;
	size_t total = check_end(c) - c->start;
	size_t n_spans = (total + span_frames - 1) / span_frames;
	size_t want = c->n_workers > 1 ? (size_t)c->n_workers * SLOTS_PER_WORKER : 1;
	run.n_slots = want > MAX_SLOTS ? MAX_SLOTS : want;
	if (run.n_slots > n_spans)
		run.n_slots = n_spans ? n_spans : 1;
	for (size_t i = 0; i < run.n_slots; i++) {
		struct slot *s = &run.slots[i];
		s->run = &run;
		s->work.data = s;
		s->faults.keep = out->keep;
		s->resolver = rig_resolver_new(&run.view.scene);
		s->xy = malloc(2 * run.max_verts * sizeof *s->xy);
		s->scratch = rig_errs_new();
		if (!s->resolver || !s->xy || !s->scratch) {
			rig_errs_add(errs, RIG_INTERNAL, "out of memory preparing the frame check");
			goto out;
		}
	}
	rc = run_spans(&run, out, next, span_frames, errs);
out:
	release_run(&run);
	return rc;
}

/* ---- an edit's check ---- */

static long later(long a, json_t *v)
{
	return v && json_integer_value(v) > a ? (long)json_integer_value(v) : a;
}

static long last_op_on_path_depth(const struct rig_op_ctx *ctx, const char *id, size_t depth);

/* The last op that changed what a constraint with chain layer id solves from:
 * any of its chain layers, or the path of its target or pole; -1 when none. */
static long last_op_of_constraints(const struct rig_op_ctx *ctx, const char *id, size_t depth)
{
	long best = -1;
	const struct rig_shot_model *m = ctx->model;
	for (size_t i = 0; i < m->n_constraints && depth <= m->n_constraints; i++) {
		const struct rig_constraint *c = &m->constraints[i].c;
		bool in_chain = false;
		for (size_t k = 0; k < c->n_chain && !in_chain; k++)
			in_chain = strcmp(c->chain_ids[k], id) == 0;
		if (!in_chain)
			continue;
		for (size_t k = 0; k < c->n_chain; k++)
			best = later(best, json_object_get(ctx->last_op, c->chain_ids[k]));
		long t = last_op_on_path_depth(ctx, c->target_id, depth + 1);
		long p = c->pole_id[0] ? last_op_on_path_depth(ctx, c->pole_id, depth + 1) : -1;
		best = t > best ? t : best;
		best = p > best ? p : best;
	}
	return best;
}

/* The last op that changed layer id or one of its ancestors in m, or what a
 * constraint posing one of them solves from (validated constraints form no
 * cycle; depth bounds the walk all the same), or -1. */
static long last_op_on_path_depth(const struct rig_op_ctx *ctx, const char *id, size_t depth)
{
	long best = -1;
	for (int steps = 0; id && id[0] && steps <= (int)ctx->model->n_layers; steps++) {
		best = later(best, json_object_get(ctx->last_op, id));
		if (ctx->model->n_constraints) {
			long c = last_op_of_constraints(ctx, id, depth);
			best = c > best ? c : best;
		}
		const struct rig_model_layer *l = rig_shot_model_find(ctx->model, id);
		id = l ? l->parent_id : NULL;
	}
	return best;
}

static long last_op_on_path(const struct rig_op_ctx *ctx, const char *id)
{
	return last_op_on_path_depth(ctx, id, 0);
}

/* The last op that changed what layer l's evaluation reads: l, its binding's
 * joint layers, or an ancestor of either; -1 when none did. */
static long last_op_affecting(const struct rig_op_ctx *ctx, const struct rig_model_layer *l)
{
	long best = last_op_on_path(ctx, l->id);
	const struct rig_binding_type *type = l->binding.type;
	size_t n = type->def_n_joints(l->binding.def);
	for (size_t j = 0; j < n; j++) {
		long op = last_op_on_path(ctx, type->def_joint_layer(l->binding.def, j));
		if (op > best)
			best = op;
	}
	return best;
}

int rig_frame_check_batch(struct rig_op_ctx *ctx, const struct rig_check_frames *req,
			  unsigned n_workers)
{
	struct rig_frame_check c = {.model = ctx->model, .tx = ctx->conn, .n_workers = n_workers};
	if (rig_check_frames_range(&c.range, req, ctx->model, ctx->errs) != 0)
		return -1;
	long *all = NULL, *ops = NULL;
	long n_all = rig_frame_check_all_layers(&all, ctx->model);
	struct rig_frame_faults faults = {.keep = RIG_ERRS_KEEP};
	int rc = -1;
	if (n_all < 0 || (n_all > 0 && !(ops = malloc((size_t)n_all * sizeof *ops)))) {
		rig_errs_add(ctx->errs, RIG_MEMORY_BUSY,
			     "the server ran out of memory checking frames");
		goto out;
	}
	/* Only the affected layers, in model order: the layers and the last op of each. */
	size_t n = 0;
	for (long i = 0; i < n_all; i++) {
		long op = last_op_affecting(ctx, &ctx->model->layers[all[i]]);
		if (op < 0)
			continue;
		all[n] = all[i];
		ops[n++] = op;
	}
	c.layers = all;
	c.n_layers = n;
	long long cost = rig_frame_check_cost(&c);
	if (cost > RIG_MAX_CHECK_VERTEX_FRAMES) {
		struct rig_err *e = rig_errs_add(
			ctx->errs, RIG_CHECK_TOO_LARGE,
			"checking %zu frames of %zu layers evaluates %lld "
			"vertex-frames; the limit is"
			" %lld (check in pages with GET /v1/shots/{shotId}/check)",
			c.range.n_frames, n, cost, (long long)RIG_MAX_CHECK_VERTEX_FRAMES);
		rig_strlcpy(e->pointer, "/checkFrames", sizeof e->pointer);
		rig_err_extra_number(e, "vertexFrames", (double)cost);
		rig_err_extra_number(e, "limit", (double)RIG_MAX_CHECK_VERTEX_FRAMES);
		goto out;
	}
	size_t next;
	if (rig_frame_check_run(&faults, &next, &c, ctx->errs) != 0)
		goto out;
	for (size_t i = 0; i < faults.count; i++) {
		const struct rig_frame_fault *f = &faults.items[i];
		struct rig_err *e = rig_errs_add(ctx->errs, f->err.code, "%s", f->err.detail);
		*e = f->err;
		e->op_index = ops[f->layer];
		snprintf(e->pointer, sizeof e->pointer, "/ops/%ld", e->op_index);
	}
	/* Faults past the ones held are counted, so truncated and errorCount tell. */
	ctx->errs->total += faults.total - faults.count;
	rc = faults.total ? -1 : 0;
out:
	rig_frame_faults_release(&faults);
	free(ops);
	free(all);
	return rc;
}
