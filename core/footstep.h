/* Walkers (issue 27 item 4): the pure step of feet that stay planted until
 * their rest targets drift too far, then step to them along a parabolic arc,
 * one gait group at a time. No layers, no keys, no frames: the resolver
 * replays these steps from the shot's frameStart as it replays follow chains
 * (rig_replay.c) and places each leg's IK target on its foot (rig_solve.c).
 *
 * Each foot has a rest target T (its rest point in the body's space, carried
 * into the world by the body's pose at the step) and a gait group. One step
 * from the state before (prev) to the state after (out):
 *   moving    a foot m − 1 steps into a step of S (1 ≤ m − 1 < S) goes on to
 *             t = m/S: lerp(F₀, T, t) + up·H·4t(1 − t), F₀ where the step
 *             began and T the rest target now (so it lands where the body
 *             is, not where it was); at m = S it is on T exactly, planted;
 *   planted   a planted foot stays where it is, unless |T − F| > threshold
 *             and no foot of another gait group is moving (moving on, or
 *             started earlier in this step): then it starts a step, F₀ = F,
 *             and is at t = 1/S already (S = 1: on T, planted again).
 * Feet are considered in index order, so of two groups drifting at once the
 * one with the lower foot goes first and the other waits until it lands:
 * alternation without a clock. Every step is a fixed sequence of floating-
 * point operations on its inputs: same inputs, same bits.
 */
#ifndef RIG_FOOTSTEP_H
#define RIG_FOOTSTEP_H

#include <stddef.h>

#include "core/ik.h"

#define RIG_FOOTSTEP_MAX_FEET 8
#define RIG_FOOTSTEP_MAX_STEP_FRAMES 1000

struct rig_footstep_params {
	size_t n_feet;    /* 1..RIG_FOOTSTEP_MAX_FEET */
	const int *group; /* per foot: its gait group */
	double threshold; /* ≥ 0 */
	int step_frames;  /* S, steps one step takes, 1..RIG_FOOTSTEP_MAX_STEP_FRAMES */
	double height;    /* H, the lift at mid-step along up */
};

struct rig_foot {
	struct rig_ik_vec at;   /* where the foot is */
	struct rig_ik_vec from; /* F₀: where its step began */
	int phase;              /* 0: planted; m: m steps into a step of S */
};

/* State −1: every foot planted on its rest target. */
void rig_footstep_start(struct rig_foot *feet, const struct rig_ik_vec *targets, size_t n);

/* One step from prev to out (n_feet feet each; they must not overlap) with
 * the rest targets and the body's up (a unit vector) where they are now. */
void rig_footstep_step(struct rig_foot *out, const struct rig_foot *prev,
		       const struct rig_ik_vec *targets, struct rig_ik_vec up,
		       const struct rig_footstep_params *p);

#endif
