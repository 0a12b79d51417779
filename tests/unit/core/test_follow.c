/* The follow chain's step (core/follow.c) against an independent simulation
 * written here with angles (atan2, cos, sin) rather than vectors: distances
 * exact to 1e-12 after thousands of steps, angle limits never exceeded,
 * smoothing's lerp, the zero-offset rule, interpolation's ends, determinism.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/follow.h"

#define N 12
#define STEPS 5000

/* The reference: heading by atan2, clamped as an angle, placed by cos/sin. */
static void reference_step(struct rig_ik_vec *out, const struct rig_ik_vec *prev,
			   struct rig_ik_vec target, const double *lengths, size_t n,
			   double smoothing, double max_rad)
{
	out[0] = smoothing > 0
			 ? (struct rig_ik_vec){prev[0].x + (target.x - prev[0].x) * (1 - smoothing),
					       prev[0].y + (target.y - prev[0].y) * (1 - smoothing)}
			 : target;
	for (size_t i = 1; i < n; i++) {
		double h = atan2(prev[i].y - out[i - 1].y, prev[i].x - out[i - 1].x);
		if (max_rad >= 0 && i >= 2) {
			double a = atan2(out[i - 1].y - out[i - 2].y, out[i - 1].x - out[i - 2].x);
			double turn = remainder(h - a, 2 * M_PI);
			if (turn > max_rad)
				turn = max_rad;
			if (turn < -max_rad)
				turn = -max_rad;
			h = a + turn;
		}
		out[i] = (struct rig_ik_vec){out[i - 1].x + cos(h) * lengths[i - 1],
					     out[i - 1].y + sin(h) * lengths[i - 1]};
	}
}

/* A wandering target: a Lissajous path with a few sharp reversals. */
static struct rig_ik_vec target_at(int s)
{
	double t = s * 0.05;
	return (struct rig_ik_vec){40 * sin(t) + 15 * sin(3.1 * t), 30 * cos(0.7 * t)};
}

static void straight(struct rig_ik_vec *p, const double *lengths, size_t n)
{
	p[0] = (struct rig_ik_vec){0, 0};
	for (size_t i = 1; i < n; i++)
		p[i] = (struct rig_ik_vec){p[i - 1].x - lengths[i - 1], 0};
}

static double turn_between(struct rig_ik_vec a0, struct rig_ik_vec a1, struct rig_ik_vec b1)
{
	double a = atan2(a1.y - a0.y, a1.x - a0.x), b = atan2(b1.y - a1.y, b1.x - a1.x);
	return fabs(remainder(b - a, 2 * M_PI));
}

static void run_against_reference(double smoothing, double max_deg)
{
	double lengths[N - 1];
	for (size_t i = 0; i < N - 1; i++)
		lengths[i] = 3 + 0.25 * (double)i;
	struct rig_follow_params p = {.n = N, .lengths = lengths, .smoothing = smoothing};
	if (max_deg >= 0)
		rig_follow_set_limit(&p, max_deg);
	struct rig_ik_vec a[N], b[N], ra[N], rb[N];
	straight(a, lengths, N);
	memcpy(ra, a, sizeof a);
	double worst = 0, worst_len = 0, worst_turn = 0;
	for (int s = 0; s < STEPS; s++) {
		rig_follow_step(b, a, target_at(s), &p);
		reference_step(rb, ra, target_at(s), lengths, N, smoothing,
			       max_deg >= 0 ? max_deg * M_PI / 180 : -1);
		for (size_t i = 0; i < N; i++) {
			worst = fmax(worst, hypot(b[i].x - rb[i].x, b[i].y - rb[i].y));
			if (i > 0)
				worst_len =
					fmax(worst_len,
					     fabs(hypot(b[i].x - b[i - 1].x, b[i].y - b[i - 1].y) -
						  lengths[i - 1]));
			if (i > 1)
				worst_turn =
					fmax(worst_turn, turn_between(b[i - 2], b[i - 1], b[i]));
		}
		memcpy(a, b, sizeof a);
		/* The two agree to rounding; each step continues from its own
		 * state, so drift would show as a growing gap. */
		memcpy(ra, rb, sizeof ra);
	}
	cr_expect_lt(worst, 1e-9, "worst gap to the reference %.3g", worst);
	cr_expect_lt(worst_len, 1e-12, "worst segment length error %.3g", worst_len);
	if (max_deg >= 0)
		cr_expect_leq(worst_turn, max_deg * M_PI / 180 + 1e-12,
			      "worst turn %.17g rad past the limit", worst_turn);
}

Test(follow, trails_like_the_reference)
{
	run_against_reference(0, -1);
}

Test(follow, angle_limit_is_never_exceeded)
{
	run_against_reference(0, 20);
	run_against_reference(0, 0);
	run_against_reference(0.3, 45);
}

Test(follow, smoothing_eases_the_head)
{
	double lengths[1] = {2};
	struct rig_follow_params p = {.n = 2, .lengths = lengths, .smoothing = 0.75};
	struct rig_ik_vec prev[2] = {{0, 0}, {-2, 0}}, out[2];
	rig_follow_step(out, prev, (struct rig_ik_vec){8, 4}, &p);
	cr_expect_eq(out[0].x, 2);
	cr_expect_eq(out[0].y, 1);
	p.smoothing = 0;
	rig_follow_step(out, prev, (struct rig_ik_vec){8.1, 4.3}, &p);
	cr_expect_eq(out[0].x, 8.1, "no smoothing puts the head on the target exactly");
	cr_expect_eq(out[0].y, 4.3);
}

Test(follow, a_zero_offset_keeps_the_previous_direction)
{
	double lengths[2] = {2, 2};
	struct rig_follow_params p = {.n = 3, .lengths = lengths};
	/* The head moves onto link 1: its offset is zero, so it keeps its previous
	 * direction (down), not +x or a nudge. */
	struct rig_ik_vec prev[3] = {{0, 2}, {0, 0}, {0, -2}}, out[3];
	rig_follow_step(out, prev, (struct rig_ik_vec){0, 0}, &p);
	cr_expect_eq(out[1].x, 0);
	cr_expect_eq(out[1].y, -2);
	cr_expect_eq(out[2].y, -4);
	/* Every point on one spot: link 1 has no direction at all and falls back
	 * to +x; link 2 then trails back towards the spot it was on. */
	struct rig_ik_vec heap[3] = {{1, 1}, {1, 1}, {1, 1}};
	rig_follow_step(out, heap, (struct rig_ik_vec){1, 1}, &p);
	cr_expect_eq(out[1].x, 3);
	cr_expect_eq(out[1].y, 1);
	cr_expect_eq(out[2].x, 1);
	cr_expect_eq(out[2].y, 1);
}

Test(follow, zero_length_links_sit_on_their_predecessor)
{
	double lengths[2] = {0, 1};
	struct rig_follow_params p = {.n = 3, .lengths = lengths};
	struct rig_ik_vec prev[3] = {{0, 0}, {-1, 0}, {-2, 0}}, out[3];
	rig_follow_step(out, prev, (struct rig_ik_vec){5, 0}, &p);
	cr_expect_eq(out[1].x, 5);
	cr_expect_eq(out[1].y, 0);
	cr_expect_eq(out[2].x, 4);
}

Test(follow, lerp_ends_are_exact)
{
	struct rig_ik_vec a[2] = {{0.1, 0.2}, {0.3, 0.7}}, b[2] = {{1.1, -3}, {9, 1e-3}}, out[2];
	rig_follow_lerp(out, a, b, 2, 0);
	cr_expect_eq(memcmp(out, a, sizeof a), 0);
	rig_follow_lerp(out, a, b, 2, 1);
	cr_expect_eq(memcmp(out, b, sizeof b), 0);
	rig_follow_lerp(out, a, b, 2, 0.5);
	cr_expect_float_eq(out[1].x, 4.65, 1e-15);
}

Test(follow, same_inputs_same_bits)
{
	double lengths[N - 1];
	for (size_t i = 0; i < N - 1; i++)
		lengths[i] = 2.5;
	struct rig_follow_params p = {.n = N, .lengths = lengths, .smoothing = 0.1};
	rig_follow_set_limit(&p, 30);
	struct rig_ik_vec a[N], b[N], c[N], d[N];
	straight(a, lengths, N);
	memcpy(c, a, sizeof a);
	for (int s = 0; s < 1000; s++) {
		rig_follow_step(b, a, target_at(s), &p);
		rig_follow_step(d, c, target_at(s), &p);
		memcpy(a, b, sizeof a);
		memcpy(c, d, sizeof c);
	}
	cr_expect_eq(memcmp(a, c, sizeof a), 0);
}
