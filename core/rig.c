/* The layer tree as the resolver sees it (ancestors, cycles, the deformation
 * boundary) and the per-request resolver of SPEC §4.
 *
 * What does not live here: storing or editing layers (storage/, api/), and the
 * deforming itself (each binding kind's evaluate, binding.h).
 *
 * The resolver memoises, for the frame being evaluated only:
 *   - each layer's local matrix (slot per layer, stamped with a generation);
 *   - path matrices P(C→X) (slot per X, stamped with the generation and C);
 *   - inverse(P(C→M)) per (mesh, C), in a small open-addressing table.
 * The generation changes whenever a different frame is asked for, which empties
 * every memo at once. Constraints then pose their chains for that frame (in
 * order, ties by id; rig_solve.c) by rewriting the memoised local transforms
 * of the chain layers; the path and inverse memos have a generation of their
 * own that moves after each constraint, so nothing computed from the
 * unconstrained pose survives. Every matrix is computed by the same sequence of
 * operations whether or not a memo answered part of it (paths are always the
 * product top-down, P(C→X) = P(C→parent(X))·L_X), so results never depend on
 * what was evaluated before.
 */
#include "core/rig.h"
#include "core/rig_internal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rig_limits.h"

/* ------------------------------------------------------------------------ */
/* The layer tree                                                            */
/* ------------------------------------------------------------------------ */

static long parent_of(const struct rig_scene *scene, long x)
{
	assert(x >= 0 && (size_t)x < scene->n_layers);
	long p = scene->layers[x].parent;
	assert(p >= RIG_NO_LAYER && p < (long)scene->n_layers);
	return p;
}

/* Walks never take more than n_layers steps in a forest; more means a cycle,
 * which the scene's builder promised not to hand us. */
static void count_step(const struct rig_scene *scene, size_t *steps)
{
	(*steps)++;
	assert(*steps <= scene->n_layers);
	(void)scene;
}

static size_t depth_of(const struct rig_scene *scene, long x)
{
	size_t depth = 0;
	for (long p = parent_of(scene, x); p != RIG_NO_LAYER; p = parent_of(scene, p))
		count_step(scene, &depth);
	return depth;
}

long rig_scene_lca(const struct rig_scene *scene, long a, long b)
{
	if (a < 0 || b < 0)
		return RIG_NO_LAYER;
	size_t da = depth_of(scene, a), db = depth_of(scene, b);
	for (; da > db; da--)
		a = parent_of(scene, a);
	for (; db > da; db--)
		b = parent_of(scene, b);
	while (a != b && a != RIG_NO_LAYER) {
		a = parent_of(scene, a);
		b = parent_of(scene, b);
	}
	return a;
}

bool rig_scene_is_ancestor(const struct rig_scene *scene, long anc, long x)
{
	if (anc < 0 || x < 0)
		return false;
	size_t steps = 0;
	for (long p = parent_of(scene, x); p != RIG_NO_LAYER; p = parent_of(scene, p)) {
		if (p == anc)
			return true;
		count_step(scene, &steps);
	}
	return false;
}

bool rig_scene_would_cycle(const struct rig_scene *scene, long layer, long parent)
{
	if (parent < 0)
		return false;
	return parent == layer || rig_scene_is_ancestor(scene, layer, parent);
}

/* The first deformed layer strictly between ancestor c (or the root) and x, or
 * RIG_NO_LAYER. */
static long deformed_between(const struct rig_scene *scene, long c, long x)
{
	size_t steps = 0;
	if (x == c) /* nothing lies strictly between a layer and itself */
		return RIG_NO_LAYER;
	for (long p = parent_of(scene, x); p != c && p != RIG_NO_LAYER; p = parent_of(scene, p)) {
		if (scene->layers[p].deformed)
			return p;
		count_step(scene, &steps);
	}
	return RIG_NO_LAYER;
}

/* Records the boundary violation of (mesh, joint_layer) if there is one and
 * returns its entry, else NULL. */
static struct rig_err *boundary_violation(const struct rig_scene *scene, long mesh,
					  long joint_layer, struct rig_errs *errs)
{
	const char *m_id = scene->layers[mesh].id;
	const char *j_id = scene->layers[joint_layer].id;
	struct rig_err *e = NULL;
	long c = rig_scene_lca(scene, mesh, joint_layer); /* = mesh when J is inside M */
	if (joint_layer == mesh) {
		e = rig_errs_add(errs, RIG_SKIN_DEFORMATION_BOUNDARY,
				 "joint layer '%s' is the skinned layer itself", j_id);
	} else if (c == mesh) {
		e = rig_errs_add(errs, RIG_SKIN_DEFORMATION_BOUNDARY,
				 "joint layer '%s' is inside skinned layer '%s'", j_id, m_id);
	} else {
		long dj = deformed_between(scene, c, joint_layer);
		long dm = dj == RIG_NO_LAYER ? deformed_between(scene, c, mesh) : RIG_NO_LAYER;
		if (dj != RIG_NO_LAYER)
			e = rig_errs_add(errs, RIG_SKIN_DEFORMATION_BOUNDARY,
					 "deformed layer '%s' lies between joint layer '%s' and "
					 "its common ancestor with skinned layer '%s'",
					 scene->layers[dj].id, j_id, m_id);
		else if (dm != RIG_NO_LAYER)
			e = rig_errs_add(errs, RIG_SKIN_DEFORMATION_BOUNDARY,
					 "deformed layer '%s' lies between skinned layer '%s' and "
					 "its common ancestor with joint layer '%s'",
					 scene->layers[dm].id, m_id, j_id);
	}
	if (e) {
		rig_strlcpy(e->layer_id, m_id, sizeof e->layer_id);
		rig_err_extra(e, "jointLayerId", j_id);
		long d = c == mesh || joint_layer == mesh ? RIG_NO_LAYER
			 : deformed_between(scene, c, joint_layer) != RIG_NO_LAYER
				 ? deformed_between(scene, c, joint_layer)
				 : deformed_between(scene, c, mesh);
		if (d != RIG_NO_LAYER)
			rig_err_extra(e, "deformedLayerId", scene->layers[d].id);
	}
	return e;
}

int rig_scene_check_boundary(const struct rig_scene *scene, long mesh, long joint_layer,
			     struct rig_errs *errs)
{
	return boundary_violation(scene, mesh, joint_layer, errs) ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* The resolver                                                              */
/* ------------------------------------------------------------------------ */

#define INVERSES_INITIAL 16

static bool runs_before(const struct rig_constraint *a, const struct rig_constraint *b)
{
	return a->order < b->order || (a->order == b->order && strcmp(a->id, b->id) < 0);
}

/* Insertion sort of the constraint indices by (order, id): stable, and a shot
 * has few constraints. */
static void sort_constraints(size_t *out, const struct rig_scene *scene)
{
	const struct rig_constraint *cs = scene->constraints;
	for (size_t i = 0; i < scene->n_constraints; i++) {
		size_t k = i;
		for (; k > 0 && runs_before(&cs[i], &cs[out[k - 1]]); k--)
			out[k] = out[k - 1];
		out[k] = i;
	}
}

struct rig_resolver *rig_resolver_new(const struct rig_scene *scene)
{
	struct rig_resolver *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->scene = *scene;
	size_t n = scene->n_layers ? scene->n_layers : 1;
	r->locals = calloc(n, sizeof *r->locals);
	r->paths = calloc(n, sizeof *r->paths);
	r->chain = calloc(n, sizeof *r->chain);
	r->inverses = calloc(INVERSES_INITIAL, sizeof *r->inverses);
	r->cons_order =
		calloc(scene->n_constraints ? scene->n_constraints : 1, sizeof *r->cons_order);
	if (!r->locals || !r->paths || !r->chain || !r->inverses || !r->cons_order) {
		rig_resolver_free(r);
		return NULL;
	}
	r->inv_cap = INVERSES_INITIAL;
	sort_constraints(r->cons_order, scene);
	if (rig_resolver__replay_init(r) != 0) {
		rig_resolver_free(r);
		return NULL;
	}
	return r;
}

void rig_resolver_free(struct rig_resolver *r)
{
	if (!r)
		return;
	free(r->locals);
	free(r->paths);
	free(r->chain);
	free(r->inverses);
	free(r->cons_order);
	rig_resolver__replay_free(r);
	free(r);
}

void rig_resolver__drop_paths(struct rig_resolver *r)
{
	r->path_gen++;
	r->inv_live = 0;
}

void rig_resolver__use_frame(struct rig_resolver *r, double frame)
{
	uint64_t bits;
	memcpy(&bits, &frame, sizeof bits);
	if (r->gen != 0 && bits == r->frame_bits)
		return;
	r->gen++;
	r->frame_bits = bits;
	rig_resolver__drop_paths(r);
	r->refused = 0;
	rig_resolver__apply_constraints(r, frame);
}

struct local_memo *rig_resolver__local(struct rig_resolver *r, long layer, double shot_frame)
{
	struct local_memo *memo = &r->locals[layer];
	if (memo->gen == r->gen)
		return memo;
	const struct rig_layer *l = &r->scene.layers[layer];
	double frame = shot_frame - l->time_offset;
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		memo->t.ch[ch] = rig_keys_eval(&l->keys[ch], frame, l->statics.ch[ch]);
	memo->m = rig_transform_matrix(&memo->t);
	memo->gen = r->gen;
	return memo;
}

static struct rig_affine local_at(struct rig_resolver *r, long layer, double shot_frame)
{
	return rig_resolver__local(r, layer, shot_frame)->m;
}

struct rig_affine rig_resolver_local(struct rig_resolver *r, long layer, double shot_frame)
{
	assert(layer >= 0 && (size_t)layer < r->scene.n_layers);
	rig_resolver__use_frame(r, shot_frame);
	return local_at(r, layer, shot_frame);
}

/* P(top→x) = P(top→parent(x))·L_x, P(top→child of top) = L_child: walks up from
 * x to top or to the nearest layer whose path from top is memoised, then
 * multiplies back down, memoising each step. */
struct rig_affine rig_resolver__path(struct rig_resolver *r, long top, long x, double shot_frame)
{
	if (x == top)
		return rig_affine_identity();
	size_t n = 0;
	long p = x;
	while (p != top && p != RIG_NO_LAYER &&
	       !(r->paths[p].gen == r->path_gen && r->paths[p].top == top)) {
		assert(n < r->scene.n_layers);
		r->chain[n++] = p;
		p = parent_of(&r->scene, p);
	}
	assert(p != RIG_NO_LAYER || top == RIG_NO_LAYER); /* top is an ancestor of x */
	bool has_base = p != top;
	struct rig_affine m = has_base ? r->paths[p].m : rig_affine_identity();
	while (n > 0) {
		long y = r->chain[--n];
		struct rig_affine l = local_at(r, y, shot_frame);
		m = has_base ? rig_affine_mul(m, l) : l;
		has_base = true;
		r->paths[y] = (struct path_memo){.gen = r->path_gen, .top = top, .m = m};
	}
	return m;
}

struct rig_affine rig_resolver_path(struct rig_resolver *r, long ancestor, long x,
				    double shot_frame)
{
	assert(x >= 0 && (size_t)x < r->scene.n_layers);
	assert(ancestor == RIG_NO_LAYER || ancestor == x ||
	       rig_scene_is_ancestor(&r->scene, ancestor, x));
	rig_resolver__use_frame(r, shot_frame);
	return rig_resolver__path(r, ancestor, x, shot_frame);
}

static size_t inverse_slot(const struct inverse_memo *table, size_t cap, uint64_t gen, long mesh,
			   long top)
{
	uint64_t h =
		(uint64_t)mesh * 0x9E3779B97F4A7C15u ^ (uint64_t)(top + 1) * 0xC2B2AE3D27D4EB4Fu;
	size_t i = (size_t)(h >> 17) & (cap - 1);
	while (table[i].gen == gen && !(table[i].mesh == mesh && table[i].top == top))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Doubles the table; on allocation failure the table stays as it is. */
static void grow_inverses(struct rig_resolver *r)
{
	size_t cap = r->inv_cap * 2;
	struct inverse_memo *table = calloc(cap, sizeof *table);
	if (!table)
		return;
	for (size_t i = 0; i < r->inv_cap; i++) {
		const struct inverse_memo *e = &r->inverses[i];
		if (e->gen == r->path_gen)
			table[inverse_slot(table, cap, r->path_gen, e->mesh, e->top)] = *e;
	}
	free(r->inverses);
	r->inverses = table;
	r->inv_cap = cap;
}

/* inverse(P(top→mesh)) into *out; false when the path is not safely invertible.
 * Joints sharing top share the one inverse. Without memory for the memo the
 * inverse is still computed, just not kept. */
static bool mesh_inverse(struct rig_affine *out, struct rig_resolver *r, long mesh, long top,
			 double shot_frame)
{
	if (2 * (r->inv_live + 1) > r->inv_cap)
		grow_inverses(r);
	size_t i = inverse_slot(r->inverses, r->inv_cap, r->path_gen, mesh, top);
	struct inverse_memo *e = &r->inverses[i];
	if (e->gen != r->path_gen) {
		struct rig_affine p = rig_resolver__path(r, top, mesh, shot_frame);
		struct inverse_memo fresh = {.gen = r->path_gen, .mesh = mesh, .top = top};
		fresh.is_ok = rig_affine_invert(&fresh.inv, &p) == 0;
		if (2 * (r->inv_live + 1) > r->inv_cap) { /* the table could not grow */
			*out = fresh.inv;
			return fresh.is_ok;
		}
		*e = fresh;
		r->inv_live++;
	}
	*out = e->inv;
	return e->is_ok;
}

int rig_resolver_frame_ok(struct rig_resolver *r, double shot_frame, struct rig_errs *errs)
{
	rig_resolver__use_frame(r, shot_frame);
	if (!r->refused)
		return 0;
	const struct rig_constraint *c = &r->scene.constraints[r->refused - 1];
	struct rig_err *e = rig_errs_add(errs, RIG_REPLAY_LIMIT,
					 "constraint '%s' would replay %.17g steps from frameStart "
					 "%.17g to frame %.17g (at most %d)",
					 c->id, r->refused_steps, r->scene.frame_start, shot_frame,
					 (int)RIG_MAX_REPLAY_STEPS);
	if (e) {
		rig_err_extra(e, "constraintId", c->id);
		rig_err_extra_number(e, "maxReplaySteps", RIG_MAX_REPLAY_STEPS);
		e->has_frame = true;
		e->frame = shot_frame;
	}
	return -1;
}

/* Stamps the mesh's layer id and the frame on the entries kept since from. */
static void stamp(struct rig_errs *errs, size_t from, const char *layer_id, double frame)
{
	for (size_t i = from; i < errs->count; i++) {
		struct rig_err *e = &errs->items[i];
		rig_strlcpy(e->layer_id, layer_id, sizeof e->layer_id);
		e->has_frame = true;
		e->frame = frame;
	}
}

static void name_joint(struct rig_err *e, const char *joint_id, size_t j)
{
	e->joint_index = (long)j;
	rig_strlcpy(e->joint_id, joint_id, sizeof e->joint_id);
}

int rig_resolver_joint_poses(struct rig_affine *out, struct rig_resolver *r, long mesh,
			     double shot_frame, struct rig_errs *errs)
{
	const struct rig_scene *scene = &r->scene;
	assert(mesh >= 0 && (size_t)mesh < scene->n_layers);
	const struct rig_layer *m = &scene->layers[mesh];
	size_t from = errs->count, before = errs->total;
	if (rig_resolver_frame_ok(r, shot_frame, errs) != 0)
		goto out_stamp;
	if (!m->binding) {
		rig_errs_add(errs, RIG_MESH_BINDING_KIND, "layer '%s' has no binding", m->id);
		goto out_stamp;
	}
	const struct rig_binding_type *type = m->binding;
	const void *def = type->eval_def(m->binding_eval);
	size_t n_joints = type->def_n_joints(def);
	assert(n_joints <= RIG_MAX_JOINTS); /* every kind's promise (binding.h) */
	for (size_t j = 0; j < n_joints; j++) {
		long jl = m->joint_layers ? m->joint_layers[j] : RIG_NO_LAYER;
		if (jl < 0 || (size_t)jl >= scene->n_layers) {
			struct rig_err *e = rig_errs_add(errs, RIG_SKIN_JOINT_LAYERS,
							 "joint '%s' is not mapped to a layer",
							 type->def_joint_id(def, j));
			name_joint(e, type->def_joint_id(def, j), j);
			continue;
		}
		struct rig_err *e = boundary_violation(scene, mesh, jl, errs);
		if (e) {
			name_joint(e, type->def_joint_id(def, j), j);
			continue;
		}
		long c = rig_scene_lca(scene, mesh, jl);
		struct rig_affine inv;
		if (!mesh_inverse(&inv, r, mesh, c, shot_frame)) {
			e = rig_errs_add(errs, RIG_SKIN_LAYER_TRANSFORM,
					 "the path from '%s' down to skinned layer '%s' is not "
					 "safely invertible at frame %.17g (joint '%s')",
					 c == RIG_NO_LAYER ? "the shot root" : scene->layers[c].id,
					 m->id, shot_frame, type->def_joint_id(def, j));
			name_joint(e, type->def_joint_id(def, j), j);
			if (c != RIG_NO_LAYER)
				rig_err_extra(e, "ancestorLayerId", scene->layers[c].id);
			continue;
		}
		out[j] = rig_affine_mul(inv, rig_resolver__path(r, c, jl, shot_frame));
	}
out_stamp:
	stamp(errs, from, m->id, shot_frame);
	return errs->total == before ? 0 : -1;
}

int rig_resolver_evaluate_noted(double *out_xy, struct rig_frame_note *note, struct rig_resolver *r,
				long mesh, double shot_frame, struct rig_errs *errs)
{
	struct rig_affine poses[RIG_MAX_JOINTS];
	if (rig_resolver_joint_poses(poses, r, mesh, shot_frame, errs) != 0)
		return -1;
	const struct rig_layer *m = &r->scene.layers[mesh];
	const struct rig_binding_type *type = m->binding;
	double local = shot_frame - m->time_offset;
	size_t from = errs->count;
	int rc = note && type->evaluate_noted
			 ? type->evaluate_noted(out_xy, note, m->binding_eval, poses, local, errs)
			 : type->evaluate(out_xy, m->binding_eval, poses, local, errs);
	stamp(errs, from, m->id, shot_frame);
	return rc;
}

int rig_resolver_evaluate(double *out_xy, struct rig_resolver *r, long mesh, double shot_frame,
			  struct rig_errs *errs)
{
	return rig_resolver_evaluate_noted(out_xy, NULL, r, mesh, shot_frame, errs);
}
