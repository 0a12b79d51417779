/* Unit tests of core/ik.c: aim, the two-bone law of cosines (reach, lengths,
 * pole side, bend flip, clamping, stretch, softness), FABRIK (tolerance,
 * lengths, unreachable extension, stretch, determinism) and the write-back
 * helpers (solve frame, mix blend, the turn under any parent). Expected values
 * come from geometry, not from the code. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/ik.h"

static struct rig_ik_chain chain_of(size_t n, const double (*pts)[2])
{
	struct rig_ik_chain c = {.n_bones = n};
	for (size_t i = 0; i <= n; i++)
		c.p[i] = (struct rig_ik_vec){pts[i][0], pts[i][1]};
	return c;
}

static double dist(struct rig_ik_vec a, struct rig_ik_vec b)
{
	return hypot(a.x - b.x, a.y - b.y);
}

static double cross_side(struct rig_ik_vec o, struct rig_ik_vec t, struct rig_ik_vec q)
{
	return (t.x - o.x) * (q.y - o.y) - (t.y - o.y) * (q.x - o.x);
}

Test(ik_aim, points_the_bone_at_the_target_exactly)
{
	const double pts[][2] = {{1, 1}, {4, 1}};
	struct rig_ik_chain c = chain_of(1, pts);
	struct rig_ik_solution s;
	rig_ik_solve(&s, &c, (struct rig_ik_vec){1, 11}, NULL);
	cr_expect(fabs(s.chain.p[1].x - 1) < 1e-12 && fabs(s.chain.p[1].y - 4) < 1e-12,
		  "got (%.17g, %.17g)", s.chain.p[1].x, s.chain.p[1].y);
	cr_expect_eq(s.scale, 1);
	static const double identity[4] = {1, 0, 0, 1};
	double deg = rig_ik_turn_to(identity, (struct rig_ik_vec){3, 0},
				    rig_ik_blend_dir(&c, &s.chain, 0, 1));
	cr_expect(fabs(deg - 90) < 1e-12, "turn %.17g", deg);
}

Test(ik_aim, compress_and_stretch_scale_the_bone_to_the_target)
{
	const double pts[][2] = {{0, 0}, {4, 0}};
	struct rig_ik_chain c = chain_of(1, pts);
	struct rig_ik_solution s;
	struct rig_ik_options o = {.compress = true};
	rig_ik_solve(&s, &c, (struct rig_ik_vec){0, 2}, &o);
	cr_expect(fabs(s.scale - 0.5) < 1e-15);
	cr_expect(dist(s.chain.p[1], (struct rig_ik_vec){0, 2}) < 1e-12);
	o = (struct rig_ik_options){.stretch = true};
	rig_ik_solve(&s, &c, (struct rig_ik_vec){0, 2}, &o);
	cr_expect_eq(s.scale, 1, "stretch alone never shrinks");
	rig_ik_solve(&s, &c, (struct rig_ik_vec){6, 8}, &o);
	cr_expect(fabs(s.scale - 2.5) < 1e-15);
	cr_expect(dist(s.chain.p[1], (struct rig_ik_vec){6, 8}) < 1e-12);
}

static const double arm[][2] = {{0, 0}, {3, 0}, {5, 0}};

Test(ik_two_bone, reaches_a_reachable_target_exactly_keeping_lengths)
{
	struct rig_ik_chain c = chain_of(2, arm);
	const struct rig_ik_vec targets[] = {{2, 2}, {-1, 4}, {4.5, -0.5}, {1.5, 0.2}};
	for (size_t k = 0; k < 4; k++) {
		struct rig_ik_solution s;
		rig_ik_solve(&s, &c, targets[k], NULL);
		cr_expect(dist(s.chain.p[2], targets[k]) < 1e-9, "target %zu missed by %.3g", k,
			  dist(s.chain.p[2], targets[k]));
		cr_expect(fabs(dist(s.chain.p[0], s.chain.p[1]) - 3) < 1e-12);
		cr_expect(fabs(dist(s.chain.p[1], s.chain.p[2]) - 2) < 1e-12);
		cr_expect_not(s.clamped);
	}
}

Test(ik_two_bone, bend_positive_flips_the_elbow_side)
{
	struct rig_ik_chain c = chain_of(2, arm);
	struct rig_ik_vec t = {3, 2};
	struct rig_ik_solution pos, neg;
	struct rig_ik_options o = {.bend = 1};
	rig_ik_solve(&pos, &c, t, &o);
	o.bend = -1;
	rig_ik_solve(&neg, &c, t, &o);
	/* +1: elbow clockwise of root→target (cross < 0), −1 the mirror image */
	cr_expect_lt(cross_side(c.p[0], t, pos.chain.p[1]), 0);
	cr_expect_gt(cross_side(c.p[0], t, neg.chain.p[1]), 0);
	cr_expect(dist(pos.chain.p[2], t) < 1e-9 && dist(neg.chain.p[2], t) < 1e-9);
}

Test(ik_two_bone, the_pole_chooses_the_side_over_bend)
{
	struct rig_ik_chain c = chain_of(2, arm);
	struct rig_ik_vec t = {3, 2};
	const struct rig_ik_vec poles[] = {{0, 10}, {5, -10}};
	for (size_t k = 0; k < 2; k++) {
		for (int bend = -1; bend <= 1; bend += 2) {
			struct rig_ik_options o = {
				.bend = bend, .has_pole = true, .pole = poles[k]};
			struct rig_ik_solution s;
			rig_ik_solve(&s, &c, t, &o);
			double want = cross_side(c.p[0], t, poles[k]);
			cr_expect_gt(want * cross_side(c.p[0], t, s.chain.p[1]), 0,
				     "pole %zu bend %d: elbow on the wrong side", k, bend);
		}
	}
}

Test(ik_two_bone, unreachable_extends_fully_towards_the_target)
{
	struct rig_ik_chain c = chain_of(2, arm);
	struct rig_ik_vec t = {0, 10};
	struct rig_ik_solution s;
	rig_ik_solve(&s, &c, t, NULL);
	cr_expect(s.clamped);
	cr_expect(dist(s.chain.p[2], (struct rig_ik_vec){0, 5}) < 1e-2);
	cr_expect(fabs(dist(s.chain.p[0], s.chain.p[1]) - 3) < 1e-12);
	cr_expect(fabs(s.chain.p[1].x) < 1e-2 && s.chain.p[1].y > 2.99);
	struct rig_ik_options o = {.stretch = true};
	rig_ik_solve(&s, &c, t, &o);
	cr_expect(fabs(s.scale - 2) < 1e-15);
	cr_expect(dist(s.chain.p[2], t) < 1e-12);
	cr_expect(dist(s.chain.p[1], (struct rig_ik_vec){0, 6}) < 1e-12);
}

Test(ik_two_bone, too_close_folds_to_the_annulus_edge)
{
	struct rig_ik_chain c = chain_of(2, arm);
	struct rig_ik_solution s;
	rig_ik_solve(&s, &c, (struct rig_ik_vec){0.1, 0}, NULL);
	cr_expect(s.clamped);
	cr_expect(fabs(dist(s.chain.p[0], s.chain.p[2]) - (1 + 1e-6)) < 1e-9);
}

Test(ik_soft, eases_into_full_extension)
{
	cr_expect_eq(rig_ik_soft_distance(3, 5, 1), 3);
	cr_expect_eq(rig_ik_soft_distance(4, 5, 1), 4);
	cr_expect(fabs(rig_ik_soft_distance(5, 5, 1) - 4.75) < 1e-15);
	cr_expect_eq(rig_ik_soft_distance(6, 5, 1), 5);
	cr_expect_eq(rig_ik_soft_distance(60, 5, 1), 5);
	cr_expect_eq(rig_ik_soft_distance(60, 5, 0), 60);
}

static const double tentacle[][2] = {{0, 0}, {2, 0}, {4, 0}, {5, 0}, {7, 0}, {8, 0}};

Test(ik_fabrik, reaches_within_tolerance_keeping_lengths)
{
	struct rig_ik_chain c = chain_of(5, tentacle);
	const struct rig_ik_vec targets[] = {{3, 4}, {-2, 1}, {0.5, -6}, {6, 2}};
	for (size_t k = 0; k < 4; k++) {
		struct rig_ik_solution s;
		rig_ik_solve(&s, &c, targets[k], NULL);
		cr_expect_leq(dist(s.chain.p[5], targets[k]), RIG_IK_FABRIK_TOLERANCE, "target %zu",
			      k);
		cr_expect(s.chain.p[0].x == 0 && s.chain.p[0].y == 0, "root pinned");
		for (size_t i = 0; i < 5; i++)
			cr_expect(fabs(dist(s.chain.p[i], s.chain.p[i + 1]) -
				       dist(c.p[i], c.p[i + 1])) < 1e-9,
				  "target %zu bone %zu", k, i);
	}
}

Test(ik_fabrik, unreachable_extends_straight_and_stretch_reaches)
{
	struct rig_ik_chain c = chain_of(5, tentacle);
	struct rig_ik_vec t = {0, -16};
	struct rig_ik_solution s;
	rig_ik_solve(&s, &c, t, NULL);
	cr_expect(s.clamped);
	const double ys[] = {0, -2, -4, -5, -7, -8};
	for (size_t i = 0; i <= 5; i++)
		cr_expect(fabs(s.chain.p[i].x) < 1e-12 && fabs(s.chain.p[i].y - ys[i]) < 1e-12,
			  "joint %zu", i);
	struct rig_ik_options o = {.stretch = true};
	rig_ik_solve(&s, &c, t, &o);
	cr_expect_eq(s.scale, 2);
	cr_expect(dist(s.chain.p[5], t) < 1e-12);
}

Test(ik_fabrik, is_deterministic_bit_for_bit)
{
	struct rig_ik_chain c = chain_of(5, tentacle);
	struct rig_ik_solution a, b;
	rig_ik_solve(&a, &c, (struct rig_ik_vec){3.3, 4.1}, NULL);
	rig_ik_solve(&b, &c, (struct rig_ik_vec){3.3, 4.1}, NULL);
	cr_expect(memcmp(&a.chain, &b.chain, sizeof a.chain) == 0);
}

Test(ik_blend, mix_zero_is_fk_one_the_solution_and_half_the_mean_angle)
{
	struct rig_ik_chain c = chain_of(2, arm);
	struct rig_ik_solution s;
	rig_ik_solve(&s, &c, (struct rig_ik_vec){2, 2}, NULL);
	for (size_t i = 0; i < 2; i++) {
		double fk = atan2(c.p[i + 1].y - c.p[i].y, c.p[i + 1].x - c.p[i].x);
		double sol = atan2(s.chain.p[i + 1].y - s.chain.p[i].y,
				   s.chain.p[i + 1].x - s.chain.p[i].x);
		struct rig_ik_vec d0 = rig_ik_blend_dir(&c, &s.chain, i, 0);
		struct rig_ik_vec d1 = rig_ik_blend_dir(&c, &s.chain, i, 1);
		struct rig_ik_vec dh = rig_ik_blend_dir(&c, &s.chain, i, 0.5);
		cr_expect(fabs(atan2(d0.y, d0.x) - fk) < 1e-12, "bone %zu mix 0", i);
		cr_expect(fabs(atan2(d1.y, d1.x) - sol) < 1e-12, "bone %zu mix 1", i);
		cr_expect(fabs(atan2(dh.y, dh.x) - (fk + sol) / 2) < 1e-12, "bone %zu mix ½", i);
		cr_expect(fabs(hypot(dh.x, dh.y) - 1) < 1e-15);
	}
	/* a zero-length bone has no direction */
	struct rig_ik_chain z = c;
	z.p[2] = z.p[1];
	cr_expect(isnan(rig_ik_blend_dir(&z, &z, 1, 1).x));
}

/* The parent transforms of the write-back tests: uniform with rotation,
 * non-uniform scale after a rotation (a shear), and a mirror. */
static const double parents[][4] = {
	{2 * 0.8, 2 * 0.6, -2 * 0.6, 2 * 0.8},
	{1, 0, 0.6, 1.5}, /* columns (1, 0) and (0.6, 1.5) */
	{1.2, 0.4, 0.7, -0.9},
};

Test(ik_frame, takes_the_scale_out_of_the_parent_and_inverts_exactly)
{
	for (size_t k = 0; k < 3; k++) {
		const double *p = parents[k];
		struct rig_ik_frame f;
		cr_assert_eq(rig_ik_frame_of(&f, p), 0);
		double det = p[0] * p[3] - p[1] * p[2];
		cr_expect_eq(f.mirrors, det < 0, "parent %zu", k);
		/* to_world is p / √|det p|: unit area, same shape */
		double s = sqrt(fabs(det));
		for (int i = 0; i < 4; i++)
			cr_expect(fabs(f.to_world[i] - p[i] / s) < 1e-15, "parent %zu entry %d", k,
				  i);
		struct rig_ik_vec v = {0.3, -2.5};
		struct rig_ik_vec back = rig_ik_frame_out(&f, rig_ik_frame_in(&f, v));
		cr_expect(fabs(back.x - v.x) < 1e-14 && fabs(back.y - v.y) < 1e-14, "parent %zu",
			  k);
	}
	/* uniform: the frame measures world lengths */
	struct rig_ik_frame f;
	rig_ik_frame_of(&f, parents[0]);
	struct rig_ik_vec w = rig_ik_frame_in(&f, (struct rig_ik_vec){3, 4});
	cr_expect(fabs(hypot(w.x, w.y) - 5) < 1e-14);
	const double singular[4] = {1, 2, 2, 4};
	cr_expect_eq(rig_ik_frame_of(&f, singular), -1);
}

Test(ik_turn_to, points_the_bone_along_want_under_any_parent)
{
	const struct rig_ik_vec haves[] = {{3, 0}, {0, 2}, {-1, 1.5}};
	const struct rig_ik_vec wants[] = {{1, 1}, {-4, 0.5}, {0.2, -3}};
	for (size_t k = 0; k < 3; k++) {
		const double *p = parents[k];
		for (size_t h = 0; h < 3; h++) {
			for (size_t w = 0; w < 3; w++) {
				double deg = rig_ik_turn_to(p, haves[h], wants[w]);
				cr_assert(deg > -180 && deg <= 180);
				/* independently: turn have by deg, map it through p */
				double t = deg * M_PI / 180, c = cos(t), s = sin(t);
				double lx = c * haves[h].x - s * haves[h].y;
				double ly = s * haves[h].x + c * haves[h].y;
				double x = p[0] * lx + p[2] * ly, y = p[1] * lx + p[3] * ly;
				double cross = x * wants[w].y - y * wants[w].x;
				double dot = x * wants[w].x + y * wants[w].y;
				cr_expect(fabs(cross) < 1e-12 * hypot(x, y) *
								  hypot(wants[w].x, wants[w].y) &&
						  dot > 0,
					  "parent %zu have %zu want %zu: (%.17g, %.17g)", k, h, w,
					  x, y);
			}
		}
	}
	const double singular[4] = {1, 2, 2, 4};
	cr_expect(isnan(rig_ik_turn_to(singular, haves[0], wants[0])));
	cr_expect(isnan(rig_ik_turn_to(parents[0], (struct rig_ik_vec){0, 0}, wants[0])));
}

/* ---- angle limits (issue 27 item 2) ---- */

/* The signed turn from bone a→b to bone b→c (anticlockwise positive), degrees. */
static double turn_deg(struct rig_ik_vec a, struct rig_ik_vec b, struct rig_ik_vec c)
{
	double u0 = b.x - a.x, u1 = b.y - a.y, v0 = c.x - b.x, v1 = c.y - b.y;
	return atan2(u0 * v1 - u1 * v0, u0 * v0 + u1 * v1) * (180 / M_PI);
}

Test(ik_limits, every_joint_stays_within_its_limits_and_bones_keep_their_lengths)
{
	static const double pts[5][2] = {{0, 0}, {10, 0}, {20, 0}, {30, 0}, {40, 0}};
	struct rig_ik_chain c = chain_of(4, pts);
	const double deg[4][2] = {{30, 45}, {20, 10}, {25, 25}, {5, 60}};
	double rad[4][2];
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 2; k++)
			rad[i][k] = deg[i][k] * (M_PI / 180);
	struct rig_ik_options opt = {.bend = 1, .limits = (const double(*)[2])rad};
	for (int t = 0; t < 72; t++) { /* targets around the chain, near and far */
		double a = t * (M_PI / 36), r = 8 + (t % 5) * 9;
		struct rig_ik_vec target = {r * cos(a), r * sin(a)};
		struct rig_ik_solution s;
		rig_ik_solve(&s, &c, target, &opt);
		struct rig_ik_vec left = {-1, 0}; /* bone 0 turns from +x */
		for (size_t i = 0; i < 4; i++) {
			cr_assert_float_eq(dist(s.chain.p[i], s.chain.p[i + 1]), 10, 1e-9);
			struct rig_ik_vec from = i ? s.chain.p[i - 1] : left;
			double turn = turn_deg(from, s.chain.p[i], s.chain.p[i + 1]);
			cr_assert(turn >= -deg[i][0] - 1e-9 && turn <= deg[i][1] + 1e-9,
				  "target %d bone %zu turned %.12g outside [-%g, %g]", t, i, turn,
				  deg[i][0], deg[i][1]);
		}
		cr_assert(s.chain.p[0].x == 0 && s.chain.p[0].y == 0, "the root stays pinned");
	}
}

Test(ik_limits, free_limits_reach_a_reachable_target_and_one_bone_is_clamped)
{
	static const double pts[4][2] = {{0, 0}, {10, 0}, {20, 0}, {30, 0}};
	struct rig_ik_chain c = chain_of(3, pts);
	double free_[3][2] = {{M_PI, M_PI}, {M_PI, M_PI}, {M_PI, M_PI}};
	struct rig_ik_options opt = {.bend = 1, .limits = (const double(*)[2])free_};
	struct rig_ik_solution s;
	rig_ik_solve(&s, &c, (struct rig_ik_vec){12, 15}, &opt);
	cr_assert(!s.clamped);
	cr_assert_leq(dist(s.chain.p[3], (struct rig_ik_vec){12, 15}), RIG_IK_FABRIK_TOLERANCE);
	/* one bone aims, then turns back to its anticlockwise limit of 30° */
	struct rig_ik_chain one = chain_of(1, pts);
	double lim[1][2] = {{0, 30 * (M_PI / 180)}};
	opt.limits = (const double(*)[2])lim;
	rig_ik_solve(&s, &one, (struct rig_ik_vec){0, 10}, &opt);
	cr_assert_float_eq(atan2(s.chain.p[1].y, s.chain.p[1].x), 30 * (M_PI / 180), 1e-12);
	cr_assert_float_eq(dist(s.chain.p[0], s.chain.p[1]), 10, 1e-12);
}
