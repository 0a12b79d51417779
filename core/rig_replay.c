/* A follow chain's or a walker's state at a frame, by deterministic replay
 * (issue 27).
 *
 * The chain's motion is stateful: each step starts from the last. The
 * resolver is stateless across requests, so a frame's state is the replay
 * of the fixed steps from the shot's frameStart, computed in the request:
 *   state −1  the chain layers' world origins at frameStart, keyed pose;
 *   state j   rig_follow_step(state j − 1) with the head chasing the target's
 *             world origin at frame frameStart + j / substeps (j ≥ 0);
 *   frame F   t = (F − frameStart) · substeps steps in: state 0 when t ≤ 0,
 *             else between states ⌊t⌋ and ⌊t⌋ + 1 by the fraction of t
 *             (rig_follow_lerp; a whole t is state t exactly).
 * A walker's states are its feet (footstep.h): state −1 every foot planted
 * on its rest target at frameStart, state j a step with the rest targets and
 * the body's up where the body is at frameStart + j (one step per frame).
 * The target (a walker's body) is read from a second, keyed-only resolver
 * over the same layers without constraints: its keyed motion
 * (rig_constraints.c refuses one another constraint moves, so that is all of
 * its motion). A replay keeps its
 * last two states, so frames asked in increasing order (a range, a check)
 * step on from there; any other order starts over. Either way a state is the
 * same fixed sequence of operations on the same inputs: the same bits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rig.h"
#include "core/rig_internal.h"
#include "core/rig_limits.h"

struct rig_replay {
	long long step; /* the newest state held; -2: none yet */
	int newest;     /* which of the states holds it; the other holds step − 1 */
	union {
		struct rig_ik_vec links[2][RIG_CONSTRAINT_MAX_CHAIN]; /* a chain's */
		struct rig_foot feet[2][RIG_FOOTSTEP_MAX_FEET];       /* a walker's */
	} s;
};

static bool is_replayed(const struct rig_constraint *c)
{
	return c->kind == RIG_CONSTRAINT_CHAIN || c->kind == RIG_CONSTRAINT_FOOTSTEP;
}

static bool has_chains(const struct rig_scene *scene)
{
	for (size_t k = 0; k < scene->n_constraints; k++)
		if (is_replayed(&scene->constraints[k]))
			return true;
	return false;
}

int rig_constraint_steps_per_frame(const struct rig_constraint *c)
{
	return c->kind == RIG_CONSTRAINT_CHAIN ? c->follow.substeps : 1;
}

int rig_resolver__replay_init(struct rig_resolver *r)
{
	if (!has_chains(&r->scene))
		return 0;
	struct rig_scene keyed = r->scene;
	keyed.constraints = NULL;
	keyed.n_constraints = 0;
	r->keyed = rig_resolver_new(&keyed);
	r->replays = calloc(r->scene.n_constraints, sizeof *r->replays);
	if (!r->keyed || !r->replays)
		return -1;
	for (size_t k = 0; k < r->scene.n_constraints; k++)
		r->replays[k].step = -2;
	return 0;
}

void rig_resolver__replay_free(struct rig_resolver *r)
{
	rig_resolver_free(r->keyed);
	free(r->replays);
}

/* The target's world origin at frame, keyed. */
static struct rig_ik_vec keyed_origin(struct rig_resolver *keyed, long layer, double frame)
{
	rig_resolver__use_frame(keyed, frame);
	return rig_resolver__origin(keyed, layer, frame);
}

/* The body's world matrix at frame, keyed; the rest targets and the unit up
 * (the body's +y; +y when it has none) it gives the walker's feet. */
static struct rig_ik_vec body_frame(struct rig_ik_vec *targets, struct rig_resolver *keyed,
				    const struct rig_constraint *c, double frame)
{
	rig_resolver__use_frame(keyed, frame);
	struct rig_affine b = rig_resolver__path(keyed, RIG_NO_LAYER, c->target, frame);
	for (size_t i = 0; i < c->walk.n_feet; i++)
		rig_affine_apply(&targets[i].x, &targets[i].y, &b, c->walk.rest[i][0],
				 c->walk.rest[i][1]);
	double n = sqrt(b.m[2] * b.m[2] + b.m[3] * b.m[3]);
	if (!(n > 0) || !isfinite(n))
		return (struct rig_ik_vec){0, 1};
	return (struct rig_ik_vec){b.m[2] / n, b.m[3] / n};
}

/* State −1 into rp's states[0]. */
static void start(struct rig_replay *rp, struct rig_resolver *r, const struct rig_constraint *c)
{
	double frame = r->scene.frame_start;
	if (c->kind == RIG_CONSTRAINT_FOOTSTEP) {
		struct rig_ik_vec targets[RIG_FOOTSTEP_MAX_FEET];
		body_frame(targets, r->keyed, c, frame);
		rig_footstep_start(rp->s.feet[0], targets, c->walk.n_feet);
		return;
	}
	for (size_t i = 0; i < c->n_chain; i++)
		rp->s.links[0][i] = keyed_origin(r->keyed, c->chain[i], frame);
}

/* State j from the state in `from` into `to`. */
static void step(struct rig_replay *rp, int from, int to, struct rig_resolver *r,
		 const struct rig_constraint *c, long long j)
{
	double frame = r->scene.frame_start + (double)j / rig_constraint_steps_per_frame(c);
	if (c->kind == RIG_CONSTRAINT_FOOTSTEP) {
		const struct rig_footstep_spec *w = &c->walk;
		struct rig_footstep_params p = {.n_feet = w->n_feet,
						.group = w->group,
						.threshold = w->threshold,
						.step_frames = w->step_frames,
						.height = w->height};
		struct rig_ik_vec targets[RIG_FOOTSTEP_MAX_FEET];
		struct rig_ik_vec up = body_frame(targets, r->keyed, c, frame);
		rig_footstep_step(rp->s.feet[to], rp->s.feet[from], targets, up, &p);
		return;
	}
	struct rig_follow_params p = {
		.n = c->n_chain,
		.lengths = c->follow.lengths,
		.smoothing = c->follow.smoothing,
	};
	if (c->follow.has_max_angle)
		rig_follow_set_limit(&p, c->follow.max_angle_deg);
	rig_follow_step(rp->s.links[to], rp->s.links[from],
			keyed_origin(r->keyed, c->target, frame), &p);
}

/* Steps rp on until it holds state `to` (≥ −1), starting over when it has
 * gone past. */
static void advance(struct rig_replay *rp, struct rig_resolver *r, const struct rig_constraint *c,
		    long long to)
{
	if (rp->step > to)
		rp->step = -2;
	if (rp->step == -2) {
		start(rp, r, c);
		rp->newest = 0;
		rp->step = -1;
	}
	while (rp->step < to) {
		step(rp, rp->newest, !rp->newest, r, c, rp->step + 1);
		rp->newest = !rp->newest;
		rp->step++;
	}
}

/* The positions state `which` of rp holds (n of them) into out. */
static void positions(struct rig_ik_vec *out, const struct rig_replay *rp, int which,
		      const struct rig_constraint *c)
{
	if (c->kind != RIG_CONSTRAINT_FOOTSTEP) {
		memcpy(out, rp->s.links[which], c->n_chain * sizeof *out);
		return;
	}
	for (size_t i = 0; i < c->walk.n_feet; i++)
		out[i] = rp->s.feet[which][i].at;
}

size_t rig_constraint_replayed_points(const struct rig_constraint *c)
{
	return c->kind == RIG_CONSTRAINT_FOOTSTEP ? c->walk.n_feet : c->n_chain;
}

int rig_resolver__replay(struct rig_ik_vec *out, struct rig_resolver *r, size_t k,
			 double shot_frame)
{
	const struct rig_constraint *c = &r->scene.constraints[k];
	double t = (shot_frame - r->scene.frame_start) * rig_constraint_steps_per_frame(c);
	if (!(t <= RIG_MAX_REPLAY_STEPS)) {
		r->refused = k + 1;
		r->refused_steps = t;
		return -1;
	}
	struct rig_replay *rp = &r->replays[k];
	double whole = t > 0 ? floor(t) : 0, frac = t > 0 ? t - whole : 0;
	long long at = (long long)whole;
	if (frac == 0) {
		/* state `at` is the newest, or the one before it when a fractional
		 * frame just past it stepped one further */
		if (rp->step != at + 1)
			advance(rp, r, c, at);
		positions(out, rp, rp->step == at ? rp->newest : !rp->newest, c);
		return 0;
	}
	advance(rp, r, c, at + 1);
	struct rig_ik_vec a[RIG_CONSTRAINT_MAX_CHAIN], b[RIG_CONSTRAINT_MAX_CHAIN];
	positions(a, rp, !rp->newest, c);
	positions(b, rp, rp->newest, c);
	rig_follow_lerp(out, a, b, rig_constraint_replayed_points(c), frac);
	return 0;
}
