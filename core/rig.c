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
 * order, ties by id) by rewriting the memoised local transforms of the chain
 * layers; the path and inverse memos have a generation of their own that moves
 * after each constraint, so nothing computed from the unconstrained pose
 * survives. Every matrix is computed by the same sequence of
 * operations whether or not a memo answered part of it (paths are always the
 * product top-down, P(C→X) = P(C→parent(X))·L_X), so results never depend on
 * what was evaluated before.
 */
#include "core/rig.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
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

struct local_memo {
	uint64_t gen;
	struct rig_transform t; /* the channel values m was built from */
	struct rig_affine m;
};

struct path_memo {
	uint64_t gen;
	long top; /* the ancestor C of P(C→X) */
	struct rig_affine m;
};

struct inverse_memo {
	uint64_t gen; /* an entry of another generation is a free slot */
	long mesh, top;
	bool is_ok; /* P(C→M) was safely invertible */
	struct rig_affine inv;
};

struct rig_resolver {
	struct rig_scene scene;
	uint64_t gen;              /* local memo generation, one per frame evaluated */
	uint64_t path_gen;         /* path and inverse memo generation: also moves on
				      whenever a constraint rewrites local transforms */
	uint64_t frame_bits;       /* the frame of gen, compared bit for bit */
	struct local_memo *locals; /* per layer */
	struct path_memo *paths;   /* per layer */
	long *chain;               /* per layer: scratch for path walks */
	struct inverse_memo *inverses;
	size_t inv_cap, inv_live; /* inv_cap is 0 or a power of two */
	size_t *cons_order;       /* scene constraint indices by (order, id) */
};

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
	free(r);
}

static void apply_constraints(struct rig_resolver *r, double shot_frame);

/* Empties the path and inverse memos (after local transforms changed). */
static void drop_paths(struct rig_resolver *r)
{
	r->path_gen++;
	r->inv_live = 0;
}

/* Starts a new memo generation when frame differs (bit for bit) from the last,
 * and poses the constrained layers for it. */
static void use_frame(struct rig_resolver *r, double frame)
{
	uint64_t bits;
	memcpy(&bits, &frame, sizeof bits);
	if (r->gen != 0 && bits == r->frame_bits)
		return;
	r->gen++;
	r->frame_bits = bits;
	drop_paths(r);
	apply_constraints(r, frame);
}

static struct local_memo *local_memo_at(struct rig_resolver *r, long layer, double shot_frame)
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
	return local_memo_at(r, layer, shot_frame)->m;
}

struct rig_affine rig_resolver_local(struct rig_resolver *r, long layer, double shot_frame)
{
	assert(layer >= 0 && (size_t)layer < r->scene.n_layers);
	use_frame(r, shot_frame);
	return local_at(r, layer, shot_frame);
}

/* P(top→x) = P(top→parent(x))·L_x, P(top→child of top) = L_child: walks up from
 * x to top or to the nearest layer whose path from top is memoised, then
 * multiplies back down, memoising each step. */
static struct rig_affine path_at(struct rig_resolver *r, long top, long x, double shot_frame)
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
	use_frame(r, shot_frame);
	return path_at(r, ancestor, x, shot_frame);
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
		struct rig_affine p = path_at(r, top, mesh, shot_frame);
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

/* ------------------------------------------------------------------------ */
/* Constraints                                                               */
/* ------------------------------------------------------------------------ */

/* Where layer's local point (x, y) lands in the shot (its world matrix is the
 * path from the root). */
static struct rig_ik_vec world_point(struct rig_resolver *r, long layer, double x, double y,
				     double shot_frame)
{
	struct rig_affine w = path_at(r, RIG_NO_LAYER, layer, shot_frame);
	struct rig_ik_vec v;
	rig_affine_apply(&v.x, &v.y, &w, x, y);
	return v;
}

/* A layer's world origin: where its pivot lands, the point its rotation turns
 * about. */
static struct rig_ik_vec world_origin(struct rig_resolver *r, long layer, double shot_frame)
{
	const struct rig_transform *t = &local_memo_at(r, layer, shot_frame)->t;
	return world_point(r, layer, t->ch[RIG_CH_PIVOT_X], t->ch[RIG_CH_PIVOT_Y], shot_frame);
}

static double channel_at(const struct rig_constraint *c, int ch, double shot_frame)
{
	return rig_keys_eval(&c->keys[ch], shot_frame, c->statics[ch]);
}

/* The linear part of m applied to v (a vector: no translation). */
static struct rig_ik_vec linear_apply(const struct rig_affine *m, struct rig_ik_vec v)
{
	return (struct rig_ik_vec){m->m[0] * v.x + m->m[2] * v.y, m->m[1] * v.x + m->m[3] * v.y};
}

static struct rig_ik_vec sub_vec(struct rig_ik_vec a, struct rig_ik_vec b)
{
	return (struct rig_ik_vec){a.x - b.x, a.y - b.y};
}

static bool chain_is_finite(const struct rig_ik_chain *c)
{
	for (size_t i = 0; i <= c->n_bones; i++)
		if (!isfinite(c->p[i].x) || !isfinite(c->p[i].y))
			return false;
	return true;
}

/* The linear part of the world matrix of layer's parent (identity at the
 * shot root). */
static struct rig_affine parent_world(struct rig_resolver *r, long layer, double shot_frame)
{
	long p = r->scene.layers[layer].parent;
	return p == RIG_NO_LAYER ? rig_affine_identity() : path_at(r, RIG_NO_LAYER, p, shot_frame);
}

/* Bone i of c in chain[i]'s own coordinates: from its pivot to the next chain
 * layer's position (where that layer's pivot lands), or tip_length along +x
 * for the tip. */
static struct rig_ik_vec local_bone(struct rig_resolver *r, const struct rig_constraint *c,
				    size_t i, double shot_frame)
{
	const struct rig_transform *t = &local_memo_at(r, c->chain[i], shot_frame)->t;
	if (i + 1 == c->n_chain)
		return (struct rig_ik_vec){c->tip_length, 0};
	const struct rig_transform *next = &local_memo_at(r, c->chain[i + 1], shot_frame)->t;
	return (struct rig_ik_vec){next->ch[RIG_CH_POSITION_X] - t->ch[RIG_CH_PIVOT_X],
				   next->ch[RIG_CH_POSITION_Y] - t->ch[RIG_CH_PIVOT_Y]};
}

/* Stretches (or compresses) bone i of c by k: the next chain layer's position
 * moves along the bone, away from this layer's pivot (so nothing turns and
 * nothing thickens), and the tip bone, the tip layer's +x axis, scales along
 * it by scale.x. Either way the bone's world vector is exactly k times what it
 * was, whatever the transforms above. */
static void stretch_bone(struct rig_resolver *r, const struct rig_constraint *c, size_t i, double k,
			 double shot_frame)
{
	struct local_memo *memo = local_memo_at(r, c->chain[i], shot_frame);
	if (i + 1 == c->n_chain) {
		memo->t.ch[RIG_CH_SCALE_X] *= k;
		return;
	}
	struct local_memo *next = local_memo_at(r, c->chain[i + 1], shot_frame);
	for (int axis = 0; axis < 2; axis++) {
		double pivot = memo->t.ch[RIG_CH_PIVOT_X + axis];
		double *pos = &next->t.ch[RIG_CH_POSITION_X + axis];
		*pos = pivot + k * (*pos - pivot);
	}
	next->m = rig_transform_matrix(&next->t);
}

/* Solves one constraint on the current pose and writes the result into its
 * chain layers' memoised local transforms. The chain is solved in the frame
 * of its root's parent with the scale taken out (ik.h), where turning the
 * chain's layers moves its bones rigidly whatever the ancestors do; then,
 * root to tip, each layer's rotation turns by exactly what points its bone
 * along the solved (mix-blended) direction under its parent's full world
 * transform as it now is, and a stretch factor lengthens every bone
 * (stretch_bone). Below a chain layer that scales non-uniformly a bone's
 * length changes as the layers above it turn; such a bone is given back its
 * solved length the same way. So every bone has the solved direction and
 * length and the tip lands where the solver put it. mix 0 leaves the FK pose
 * untouched; so does a solution that is not finite (a collapsed ancestor). */
static void solve_constraint(struct rig_resolver *r, const struct rig_constraint *c,
			     double shot_frame)
{
	double mix = channel_at(c, RIG_CC_MIX, shot_frame);
	mix = mix < 0 ? 0 : mix > 1 ? 1 : mix;
	if (!(mix > 0))
		return;
	size_t n = c->n_chain;
	struct rig_affine parent = parent_world(r, c->chain[0], shot_frame);
	struct rig_ik_frame frame;
	if (rig_ik_frame_of(&frame, parent.m) != 0)
		return;
	struct rig_ik_vec root = world_origin(r, c->chain[0], shot_frame);
	struct rig_ik_chain fk = {.n_bones = n};
	for (size_t i = 0; i < n; i++)
		fk.p[i] = world_origin(r, c->chain[i], shot_frame);
	const struct rig_transform *tip = &local_memo_at(r, c->chain[n - 1], shot_frame)->t;
	fk.p[n] = world_point(r, c->chain[n - 1], tip->ch[RIG_CH_PIVOT_X] + c->tip_length,
			      tip->ch[RIG_CH_PIVOT_Y], shot_frame);
	for (size_t i = 0; i <= n; i++)
		fk.p[i] = rig_ik_frame_in(&frame, sub_vec(fk.p[i], root));
	struct rig_ik_options opt = {
		.bend = frame.mirrors ? -c->bend : c->bend, /* the side is the world's */
		.softness = fmax(0, channel_at(c, RIG_CC_SOFTNESS, shot_frame)),
		.stretch = c->stretch,
		.compress = c->compress,
	};
	if (c->pole != RIG_NO_LAYER) {
		opt.has_pole = true;
		opt.pole = rig_ik_frame_in(&frame,
					   sub_vec(world_origin(r, c->pole, shot_frame), root));
	}
	struct rig_ik_vec target =
		rig_ik_frame_in(&frame, sub_vec(world_origin(r, c->target, shot_frame), root));
	double limits[RIG_IK_MAX_BONES][2];
	if (c->has_limits) { /* turns are the frame's, so a positive rotation's way is anticlockwise
			      */
		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < 2; k++)
				limits[i][k] = c->limits[i][k] * (M_PI / 180);
		opt.limits = (const double(*)[2])limits;
	}
	struct rig_ik_solution sol;
	rig_ik_solve(&sol, &fk, target, &opt);
	if (!chain_is_finite(&fk) || !chain_is_finite(&sol.chain) || !isfinite(sol.scale))
		return;
	double k = 1 + mix * (sol.scale - 1);
	bool skewed = false; /* a chain layer so far scales non-uniformly */
	for (size_t i = 0; i < n; i++) {
		struct local_memo *memo = local_memo_at(r, c->chain[i], shot_frame);
		struct rig_ik_vec b = local_bone(r, c, i, shot_frame);
		struct rig_ik_vec want =
			rig_ik_frame_out(&frame, rig_ik_blend_dir(&fk, &sol.chain, i, mix));
		double turn = rig_ik_turn_to(parent.m, linear_apply(&memo->m, b), want);
		if (isfinite(turn)) /* else a bone without length: it turns with its parent */
			memo->t.ch[RIG_CH_ROTATION] += turn;
		memo->m = rig_transform_matrix(&memo->t);
		double factor = k;
		if (skewed) {
			/* Turning the layers above stretched or shrank this bone: give
			 * it back its solved length (FK's times k, in the frame). */
			struct rig_ik_vec w = rig_ik_frame_in(
				&frame, linear_apply(&parent, linear_apply(&memo->m, b)));
			double now = hypot(w.x, w.y);
			double solved = hypot(fk.p[i + 1].x - fk.p[i].x, fk.p[i + 1].y - fk.p[i].y);
			if (now > 1e-12 && isfinite(now) && solved > 1e-12)
				factor = k * solved / now;
		}
		if (factor != 1) {
			stretch_bone(r, c, i, factor, shot_frame);
			memo->m = rig_transform_matrix(&memo->t);
		}
		skewed |= fabs(memo->t.ch[RIG_CH_SCALE_X]) != fabs(memo->t.ch[RIG_CH_SCALE_Y]);
		parent = rig_affine_mul(parent, memo->m); /* chain[i + 1]'s parent, as posed */
	}
	drop_paths(r);
}

static void apply_constraints(struct rig_resolver *r, double shot_frame)
{
	for (size_t k = 0; k < r->scene.n_constraints; k++) {
		const struct rig_constraint *c = &r->scene.constraints[r->cons_order[k]];
		if (rig_constraint_is_usable(&r->scene, c))
			solve_constraint(r, c, shot_frame);
	}
}

size_t rig_resolver_constraint_points(double *out_xy, struct rig_resolver *r, size_t k,
				      double shot_frame)
{
	const struct rig_constraint *c = &r->scene.constraints[k];
	if (!rig_constraint_is_usable(&r->scene, c))
		return 0;
	use_frame(r, shot_frame);
	size_t n = c->n_chain;
	for (size_t i = 0; i < n; i++) {
		struct rig_ik_vec p = world_origin(r, c->chain[i], shot_frame);
		out_xy[2 * i] = p.x, out_xy[2 * i + 1] = p.y;
	}
	const struct rig_transform *tip = &local_memo_at(r, c->chain[n - 1], shot_frame)->t;
	struct rig_ik_vec end =
		world_point(r, c->chain[n - 1], tip->ch[RIG_CH_PIVOT_X] + c->tip_length,
			    tip->ch[RIG_CH_PIVOT_Y], shot_frame);
	out_xy[2 * n] = end.x, out_xy[2 * n + 1] = end.y;
	return n + 1;
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
	use_frame(r, shot_frame);
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
		out[j] = rig_affine_mul(inv, path_at(r, c, jl, shot_frame));
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
