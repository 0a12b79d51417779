/* Constraints (rig_internal.h): each usable constraint of the scene, in
 * order, solved on the pose the ones before it left and written into the
 * memoised local transforms of its chain layers. An IK constraint solves its
 * chain at the frame (ik.h); a follow chain takes its replayed points
 * (rig_replay.c). Both write the result back the same way: each chain layer's
 * rotation turns by exactly what points its bone the solved way under its
 * parent's world transform as posed, and a bone whose world length is not
 * the solved one is lengthened along itself.
 */
#include <math.h>
#include <stdlib.h>

#include "core/rig.h"
#include "core/rig_internal.h"

/* Where layer's local point (x, y) lands in the shot (its world matrix is the
 * path from the root). */
static struct rig_ik_vec world_point(struct rig_resolver *r, long layer, double x, double y,
				     double shot_frame)
{
	struct rig_affine w = rig_resolver__path(r, RIG_NO_LAYER, layer, shot_frame);
	struct rig_ik_vec v;
	rig_affine_apply(&v.x, &v.y, &w, x, y);
	return v;
}

struct rig_ik_vec rig_resolver__origin(struct rig_resolver *r, long layer, double shot_frame)
{
	const struct rig_transform *t = &rig_resolver__local(r, layer, shot_frame)->t;
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
	return p == RIG_NO_LAYER ? rig_affine_identity()
				 : rig_resolver__path(r, RIG_NO_LAYER, p, shot_frame);
}

/* Bone i of c in chain[i]'s own coordinates: from its pivot to the next chain
 * layer's position (where that layer's pivot lands), or tip_length along +x
 * for the tip. */
static struct rig_ik_vec local_bone(struct rig_resolver *r, const struct rig_constraint *c,
				    size_t i, double shot_frame)
{
	const struct rig_transform *t = &rig_resolver__local(r, c->chain[i], shot_frame)->t;
	if (i + 1 == c->n_chain)
		return (struct rig_ik_vec){c->tip_length, 0};
	const struct rig_transform *next = &rig_resolver__local(r, c->chain[i + 1], shot_frame)->t;
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
	struct local_memo *memo = rig_resolver__local(r, c->chain[i], shot_frame);
	if (i + 1 == c->n_chain) {
		memo->t.ch[RIG_CH_SCALE_X] *= k;
		return;
	}
	struct local_memo *next = rig_resolver__local(r, c->chain[i + 1], shot_frame);
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
	struct rig_ik_vec root = rig_resolver__origin(r, c->chain[0], shot_frame);
	struct rig_ik_chain fk = {.n_bones = n};
	for (size_t i = 0; i < n; i++)
		fk.p[i] = rig_resolver__origin(r, c->chain[i], shot_frame);
	const struct rig_transform *tip = &rig_resolver__local(r, c->chain[n - 1], shot_frame)->t;
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
		opt.pole = rig_ik_frame_in(
			&frame, sub_vec(rig_resolver__origin(r, c->pole, shot_frame), root));
	}
	struct rig_ik_vec target = rig_ik_frame_in(
		&frame, sub_vec(rig_resolver__origin(r, c->target, shot_frame), root));
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
		struct local_memo *memo = rig_resolver__local(r, c->chain[i], shot_frame);
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
	rig_resolver__drop_paths(r);
}

/* a + (b − a)·mix, b itself at mix 1. */
static struct rig_ik_vec blend_point(struct rig_ik_vec a, struct rig_ik_vec b, double mix)
{
	return mix == 1 ? b : (struct rig_ik_vec){a.x + (b.x - a.x) * mix, a.y + (b.y - a.y) * mix};
}

/* Moves layer's local position so its world origin lands on p, under its
 * parent's world matrix as posed (parent); false, leaving it, when that has
 * no inverse. */
static bool place_origin(struct rig_resolver *r, long layer, const struct rig_affine *parent,
			 struct rig_ik_vec p, double shot_frame)
{
	struct rig_affine inv;
	if (rig_affine_invert(&inv, parent) != 0)
		return false;
	struct local_memo *memo = rig_resolver__local(r, layer, shot_frame);
	rig_affine_apply(&memo->t.ch[RIG_CH_POSITION_X], &memo->t.ch[RIG_CH_POSITION_Y], &inv, p.x,
			 p.y);
	memo->m = rig_transform_matrix(&memo->t);
	return true;
}

/* Places walker k's feet (scene index) at their replayed points: each foot's
 * IK target layer moves (its position) so its origin is on the foot; mix
 * blends from where the keys put it. The IK constraints then reach for them:
 * walkers run before every other constraint (they read keyed poses only). */
static void place_feet(struct rig_resolver *r, size_t k, double shot_frame)
{
	const struct rig_constraint *c = &r->scene.constraints[k];
	double mix = channel_at(c, RIG_CC_MIX, shot_frame);
	mix = mix < 0 ? 0 : mix > 1 ? 1 : mix;
	struct rig_ik_vec feet[RIG_FOOTSTEP_MAX_FEET];
	if (rig_resolver__replay(feet, r, k, shot_frame) != 0 || !(mix > 0))
		return;
	for (size_t i = 0; i < c->walk.n_feet; i++) {
		long layer = r->scene.constraints[c->walk.ik[i]].target;
		struct rig_ik_vec keyed = rig_resolver__origin(r, layer, shot_frame);
		if (!isfinite(feet[i].x) || !isfinite(feet[i].y))
			continue;
		struct rig_affine parent = parent_world(r, layer, shot_frame);
		place_origin(r, layer, &parent, blend_point(keyed, feet[i], mix), shot_frame);
		rig_resolver__drop_paths(r);
	}
}

/* Poses follow chain k (scene index) at its replayed points (rig_replay.c):
 * the head layer's position puts its origin on the first point, then, root
 * to tip, each layer turns (as the IK write-back does) so its bone points at
 * the next point, and the next layer's position moves along the bone where
 * the bone's world length is not the segment's (stretch_bone). mix blends
 * from the FK pose: the head's origin along the line between, each bone's
 * direction by angle and its length linearly; 0 leaves the FK pose. The tip
 * layer owns no segment: it keeps its rotation relative to its parent. A
 * collapsed ancestor (no inverse) leaves the FK pose too. */
static void solve_chain(struct rig_resolver *r, size_t k, double shot_frame)
{
	const struct rig_constraint *c = &r->scene.constraints[k];
	double mix = channel_at(c, RIG_CC_MIX, shot_frame);
	mix = mix < 0 ? 0 : mix > 1 ? 1 : mix;
	struct rig_ik_vec p[RIG_CONSTRAINT_MAX_CHAIN], fk[RIG_CONSTRAINT_MAX_CHAIN];
	if (rig_resolver__replay(p, r, k, shot_frame) != 0 || !(mix > 0))
		return;
	size_t n = c->n_chain;
	for (size_t i = 0; i < n; i++) {
		fk[i] = rig_resolver__origin(r, c->chain[i], shot_frame);
		if (!isfinite(p[i].x) || !isfinite(p[i].y) || !isfinite(fk[i].x) ||
		    !isfinite(fk[i].y))
			return;
	}
	struct rig_affine parent = parent_world(r, c->chain[0], shot_frame);
	if (!place_origin(r, c->chain[0], &parent, blend_point(fk[0], p[0], mix), shot_frame))
		return;
	struct local_memo *memo;
	for (size_t i = 0; i + 1 < n; i++) {
		memo = rig_resolver__local(r, c->chain[i], shot_frame);
		struct rig_ik_vec b = local_bone(r, c, i, shot_frame);
		struct rig_ik_vec have = sub_vec(fk[i + 1], fk[i]);
		struct rig_ik_vec want = rig_ik_blend(have, sub_vec(p[i + 1], p[i]), mix);
		double turn = rig_ik_turn_to(parent.m, linear_apply(&memo->m, b), want);
		if (isfinite(turn)) /* else a bone without length: it turns with its parent */
			memo->t.ch[RIG_CH_ROTATION] += turn;
		memo->m = rig_transform_matrix(&memo->t);
		/* the points' own distance, not the segment length: a fractional
		 * frame's blend of two steps is shorter, and the layers land on it */
		struct rig_ik_vec seg = sub_vec(p[i + 1], p[i]);
		double len = sqrt(seg.x * seg.x + seg.y * seg.y);
		if (mix != 1) {
			double fk_len = sqrt(have.x * have.x + have.y * have.y);
			len = fk_len + (len - fk_len) * mix;
		}
		struct rig_ik_vec w = linear_apply(&parent, linear_apply(&memo->m, b));
		double now = sqrt(w.x * w.x + w.y * w.y);
		if (now > 1e-12 && isfinite(now) && len != now)
			stretch_bone(r, c, i, len / now, shot_frame);
		parent = rig_affine_mul(parent, memo->m); /* chain[i + 1]'s parent, as posed */
	}
	rig_resolver__drop_paths(r);
}

void rig_resolver__apply_constraints(struct rig_resolver *r, double shot_frame)
{
	for (size_t k = 0; k < r->scene.n_constraints; k++) {
		const struct rig_constraint *c = &r->scene.constraints[k];
		if (c->kind == RIG_CONSTRAINT_FOOTSTEP && rig_constraint_is_usable(&r->scene, c))
			place_feet(r, k, shot_frame);
	}
	for (size_t k = 0; k < r->scene.n_constraints; k++) {
		size_t at = r->cons_order[k];
		const struct rig_constraint *c = &r->scene.constraints[at];
		if (!rig_constraint_is_usable(&r->scene, c))
			continue;
		if (c->kind == RIG_CONSTRAINT_CHAIN)
			solve_chain(r, at, shot_frame);
		else if (c->kind == RIG_CONSTRAINT_IK)
			solve_constraint(r, c, shot_frame);
	}
}

size_t rig_resolver_constraint_points(double *out_xy, struct rig_resolver *r, size_t k,
				      double shot_frame)
{
	const struct rig_constraint *c = &r->scene.constraints[k];
	if (!rig_constraint_is_usable(&r->scene, c))
		return 0;
	rig_resolver__use_frame(r, shot_frame);
	if (r->refused)
		return 0;
	if (c->kind == RIG_CONSTRAINT_FOOTSTEP) {
		for (size_t i = 0; i < c->walk.n_feet; i++) {
			long layer = r->scene.constraints[c->walk.ik[i]].target;
			struct rig_ik_vec p = rig_resolver__origin(r, layer, shot_frame);
			out_xy[2 * i] = p.x, out_xy[2 * i + 1] = p.y;
		}
		return c->walk.n_feet;
	}
	size_t n = c->n_chain;
	for (size_t i = 0; i < n; i++) {
		struct rig_ik_vec p = rig_resolver__origin(r, c->chain[i], shot_frame);
		out_xy[2 * i] = p.x, out_xy[2 * i + 1] = p.y;
	}
	if (c->kind == RIG_CONSTRAINT_CHAIN)
		return n;
	const struct rig_transform *tip = &rig_resolver__local(r, c->chain[n - 1], shot_frame)->t;
	struct rig_ik_vec end =
		world_point(r, c->chain[n - 1], tip->ch[RIG_CH_PIVOT_X] + c->tip_length,
			    tip->ch[RIG_CH_PIVOT_Y], shot_frame);
	out_xy[2 * n] = end.x, out_xy[2 * n + 1] = end.y;
	return n + 1;
}
