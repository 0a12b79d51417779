/* A follow chain's state at a frame, by deterministic replay (issue 27).
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
 * The target is read from a second, keyed-only resolver over the same layers
 * without constraints: its keyed motion (rig_constraints.c refuses a target
 * another constraint moves, so that is all of its motion). A replay keeps its
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
	int newest;     /* which of states holds it; the other holds step − 1 */
	struct rig_ik_vec states[2][RIG_CONSTRAINT_MAX_CHAIN];
};

static bool has_chains(const struct rig_scene *scene)
{
	for (size_t k = 0; k < scene->n_constraints; k++)
		if (scene->constraints[k].kind == RIG_CONSTRAINT_CHAIN)
			return true;
	return false;
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

/* Steps rp on until it holds state `to` (≥ −1), starting over when it has
 * gone past. */
static void advance(struct rig_replay *rp, struct rig_resolver *r, const struct rig_constraint *c,
		    long long to)
{
	if (rp->step > to) {
		rp->step = -2;
	}
	if (rp->step == -2) {
		double start = r->scene.frame_start;
		for (size_t i = 0; i < c->n_chain; i++)
			rp->states[0][i] = keyed_origin(r->keyed, c->chain[i], start);
		rp->newest = 0;
		rp->step = -1;
	}
	struct rig_follow_params p = {
		.n = c->n_chain,
		.lengths = c->follow.lengths,
		.smoothing = c->follow.smoothing,
	};
	if (c->follow.has_max_angle)
		rig_follow_set_limit(&p, c->follow.max_angle_deg);
	double substeps = c->follow.substeps;
	while (rp->step < to) {
		long long j = rp->step + 1;
		struct rig_ik_vec target = keyed_origin(
			r->keyed, c->target, r->scene.frame_start + (double)j / substeps);
		rig_follow_step(rp->states[!rp->newest], rp->states[rp->newest], target, &p);
		rp->newest = !rp->newest;
		rp->step = j;
	}
}

int rig_resolver__replay(struct rig_ik_vec *out, struct rig_resolver *r, size_t k,
			 double shot_frame)
{
	const struct rig_constraint *c = &r->scene.constraints[k];
	double t = (shot_frame - r->scene.frame_start) * c->follow.substeps;
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
		const struct rig_ik_vec *s = rp->states[rp->step == at ? rp->newest : !rp->newest];
		memcpy(out, s, c->n_chain * sizeof *out);
		return 0;
	}
	advance(rp, r, c, at + 1);
	rig_follow_lerp(out, rp->states[!rp->newest], rp->states[rp->newest], c->n_chain, frac);
	return 0;
}
