/* Follow chains (issue 27 item 1): the pure step of a chain whose head chases
 * a target and whose links trail behind it at fixed distances, with optional
 * joint-angle limits and a springy head. No layers, no keys, no frames: the
 * resolver replays these steps from the shot's frameStart (rig_replay.c) and
 * writes the points back into the chain layers (rig_solve.c).
 *
 * A chain of n points: p[0] the head, p[i] trails p[i − 1] at lengths[i − 1].
 * One step from the state before (prev) to the state after (out):
 *   head   out[0] = target, or with smoothing s ∈ (0, 1)
 *          prev[0] + (target − prev[0])·(1 − s), the seed's lerp;
 *   links  out[i] = out[i − 1] + L·d/|d| with d = prev[i] − out[i − 1], the
 *          link's current offset from its (moved) predecessor. A zero offset
 *          keeps the link's previous direction prev[i] − prev[i − 1] (then
 *          the predecessor's new direction, then +x): never an arbitrary
 *          nudge, so a chain resting on itself unfolds the same way on every
 *          call;
 *   limit  with a maximum angle θ, link i ≥ 2 turns at most θ either way from
 *          link i − 1's new heading (the first link has none before it): a
 *          heading past it is replaced by the predecessor's heading turned by
 *          exactly ±θ. The test is on cosines, cos(turn) < cos θ, so no atan2.
 * Every step is a fixed sequence of floating-point operations on its inputs:
 * same inputs, same bits.
 */
#ifndef RIG_FOLLOW_H
#define RIG_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ik.h"

#define RIG_FOLLOW_MIN_LINKS 2
#define RIG_FOLLOW_MAX_LINKS 32

struct rig_follow_params {
	size_t n;              /* points, RIG_FOLLOW_MIN_LINKS..RIG_FOLLOW_MAX_LINKS */
	const double *lengths; /* n − 1 segment lengths, each ≥ 0 and finite */
	double smoothing;      /* [0, 1): 0 puts the head on the target */
	bool has_max_angle;
	double cos_max, sin_max; /* of the limit θ ∈ [0, π] (rig_follow_set_limit) */
};

/* Sets p's angle limit to max_angle_deg ∈ [0, 180] (180 leaves every heading
 * free but still runs the test). */
void rig_follow_set_limit(struct rig_follow_params *p, double max_angle_deg);

/* One step of the chain from prev to out (n points each; they must not
 * overlap) with the head chasing target. */
void rig_follow_step(struct rig_ik_vec *out, const struct rig_ik_vec *prev,
		     struct rig_ik_vec target, const struct rig_follow_params *p);

/* The state a fraction t ∈ [0, 1] of the way from step a to step b (n points):
 * what a fractional frame shows. t = 0 gives a and t = 1 gives b, bit for bit. */
void rig_follow_lerp(struct rig_ik_vec *out, const struct rig_ik_vec *a, const struct rig_ik_vec *b,
		     size_t n, double t);

#endif
