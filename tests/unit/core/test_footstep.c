/* Unit tests of core/footstep.c: a planted foot waits for its threshold, a
 * step follows the parabolic arc and lands on the target bit for bit, groups
 * never move at once (a landing foot still holds its group's turn), a foot
 * without a finite target stays, and a long tripod walk matches a reference
 * written here from footstep.h's rules in another shape (per group, by time
 * of the step's start rather than by phase). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/footstep.h"

static const struct rig_ik_vec up = {0, 1};

static struct rig_footstep_params params(size_t n, const int *group, double threshold, int s,
					 double h)
{
	return (struct rig_footstep_params){
		.n_feet = n, .group = group, .threshold = threshold, .step_frames = s, .height = h};
}

Test(footstep, a_planted_foot_waits_for_its_threshold_then_arcs_and_lands_exactly)
{
	static const int group[1] = {0};
	struct rig_footstep_params p = params(1, group, 10, 4, 3);
	struct rig_ik_vec target = {0, 0};
	struct rig_foot a, b;
	rig_footstep_start(&a, &target, 1);
	int started = -1;
	for (int j = 0; j < 12; j++) {
		target.x = 3.0 * j; /* drifts 3 per step: past 10 at j = 4 */
		rig_footstep_step(&b, &a, &target, up, &p);
		if (j < 4) {
			cr_expect_eq(b.phase, 0, "step %d", j);
			cr_expect(b.at.x == 0 && b.at.y == 0, "planted at step %d", j);
		}
		if (b.phase == 1 && started < 0)
			started = j;
		if (started >= 0 && j - started + 1 < 4 && b.phase > 0) {
			double t = (j - started + 1) / 4.0;
			double want_x = 0 + (target.x - 0) * t, want_y = 3 * 4 * t * (1 - t);
			cr_expect(fabs(b.at.x - want_x) < 1e-12 && fabs(b.at.y - want_y) < 1e-12,
				  "step %d: (%.17g, %.17g) want (%.17g, %.17g)", j, b.at.x, b.at.y,
				  want_x, want_y);
		}
		if (started >= 0 && j == started + 3) {
			cr_expect_eq(b.phase, 0, "landed");
			cr_expect(memcmp(&b.at, &target, sizeof target) == 0,
				  "on the target exactly");
		}
		a = b;
	}
	cr_expect_eq(started, 4);
}

Test(footstep, mid_step_is_the_full_height_along_up)
{
	static const int group[1] = {0};
	struct rig_footstep_params p = params(1, group, 1, 2, 5);
	struct rig_ik_vec target = {0, 0}, tilted = {-0.6, 0.8};
	struct rig_foot a, b;
	rig_footstep_start(&a, &target, 1);
	target = (struct rig_ik_vec){20, 0};
	rig_footstep_step(&b, &a, &target, tilted, &p);
	cr_assert_eq(b.phase, 1);
	cr_expect(fabs(b.at.x - (10 - 0.6 * 5)) < 1e-12 && fabs(b.at.y - 0.8 * 5) < 1e-12);
}

Test(footstep, one_step_frame_lands_at_once_and_a_nan_target_never_steps)
{
	static const int group[2] = {0, 1};
	struct rig_footstep_params p = params(2, group, 1, 1, 5);
	struct rig_ik_vec targets[2] = {{0, 0}, {0, 0}};
	struct rig_foot a[2], b[2];
	rig_footstep_start(a, targets, 2);
	targets[0] = (struct rig_ik_vec){7, 1};
	targets[1] = (struct rig_ik_vec){NAN, 0};
	rig_footstep_step(b, a, targets, up, &p);
	cr_expect(b[0].phase == 0 && b[0].at.x == 7 && b[0].at.y == 1);
	cr_expect(b[1].phase == 0 && b[1].at.x == 0 && b[1].at.y == 0);
}

/* ---- the reference: per group, a step is a window of S states ---- */

#define FEET 6
#define STEPS 600

struct ref_foot {
	struct rig_ik_vec at, from;
	int start; /* the state its step began in, −1 when planted */
};

/* State j from state j − 1, by the rules of footstep.h as windows: a foot
 * that began at state s is at t = (j − s + 1)/S in state j and lands in state
 * s + S − 1; the groups busy in state j are those of feet whose windows
 * cover j. */
static void ref_step(struct ref_foot *f, const struct rig_ik_vec *targets, int j, const int *group,
		     double threshold, int s, double h)
{
	bool busy[FEET] = {false};
	for (int i = 0; i < FEET; i++)
		if (f[i].start >= 0)
			busy[group[i]] = true;
	for (int i = 0; i < FEET; i++) {
		if (f[i].start >= 0)
			continue;
		double d = hypot(targets[i].x - f[i].at.x, targets[i].y - f[i].at.y);
		bool other = false;
		for (int g = 0; g < FEET; g++)
			other |= busy[g] && g != group[i];
		if (d > threshold && !other) {
			f[i].start = j;
			f[i].from = f[i].at;
			busy[group[i]] = true;
		}
	}
	for (int i = 0; i < FEET; i++) {
		if (f[i].start < 0)
			continue;
		int m = j - f[i].start + 1;
		if (m >= s) {
			f[i].at = targets[i];
			f[i].start = -1;
			continue;
		}
		double t = (double)m / s;
		f[i].at.x = f[i].from.x + (targets[i].x - f[i].from.x) * t;
		f[i].at.y = f[i].from.y + (targets[i].y - f[i].from.y) * t + h * 4 * t * (1 - t);
	}
}

static void tripod_targets(struct rig_ik_vec *out, int j)
{
	/* a body walking right with a sway; feet at ±15 along, ±8 across */
	double bx = 0.9 * j + 4 * sin(j * 0.05), by = 2 * sin(j * 0.11);
	for (int i = 0; i < FEET; i++)
		out[i] = (struct rig_ik_vec){bx + 15.0 * (i % 3 - 1), by + (i < 3 ? 8 : -8)};
}

Test(footstep, a_tripod_walk_matches_the_reference_and_groups_alternate)
{
	static const int group[FEET] = {0, 1, 0, 1, 0, 1};
	const double threshold = 6, h = 4;
	const int s = 5;
	struct rig_footstep_params p = params(FEET, group, threshold, s, h);
	struct rig_ik_vec targets[FEET];
	struct rig_foot a[FEET], b[FEET];
	struct ref_foot ref[FEET];
	tripod_targets(targets, 0);
	rig_footstep_start(a, targets, FEET);
	for (int i = 0; i < FEET; i++)
		ref[i] = (struct ref_foot){targets[i], targets[i], -1};
	int steps_taken[2] = {0, 0};
	for (int j = 0; j < STEPS; j++) {
		tripod_targets(targets, j);
		rig_footstep_step(b, a, targets, up, &p);
		ref_step(ref, targets, j, group, threshold, s, h);
		bool group_moves[2] = {false, false};
		for (int i = 0; i < FEET; i++) {
			cr_assert(fabs(b[i].at.x - ref[i].at.x) < 1e-12 &&
					  fabs(b[i].at.y - ref[i].at.y) < 1e-12,
				  "state %d foot %d: (%.17g, %.17g) want (%.17g, %.17g)", j, i,
				  b[i].at.x, b[i].at.y, ref[i].at.x, ref[i].at.y);
			if (b[i].phase == 1)
				steps_taken[group[i]]++;
			/* moving in b, or landing in it (moving in a) */
			group_moves[group[i]] |= b[i].phase > 0 || a[i].phase > 0;
		}
		cr_assert(!(group_moves[0] && group_moves[1]), "state %d: both groups move", j);
		memcpy(a, b, sizeof a);
	}
	cr_expect_gt(steps_taken[0], 20, "group 0 walked");
	cr_expect_gt(steps_taken[1], 20, "group 1 walked");
	cr_expect_leq(abs(steps_taken[0] - steps_taken[1]), 3, "%d vs %d", steps_taken[0],
		      steps_taken[1]);
}
