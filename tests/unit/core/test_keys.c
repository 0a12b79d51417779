/* Unit tests of core/keys.c: names, key checks, channel evaluation (linear,
 * hold, bezier, clamping, static fallback, negative and fractional frames) and
 * the local matrix T(position)·R(rotation)·S(scale)·T(−pivot). */
#include <criterion/criterion.h>
#include <math.h>

#include "core/keys.h"
#include "core/rig_limits.h"
#include "support.h"

/* ---- names ---- */

Test(keys_names, channel_names_round_trip)
{
	for (int ch = 0; ch < RIG_CH_COUNT; ch++) {
		enum rig_channel parsed;
		const char *name = rig_channel_name((enum rig_channel)ch);
		cr_assert_not_null(name);
		cr_expect_eq(rig_channel_parse(&parsed, name), 0);
		cr_expect_eq(parsed, (enum rig_channel)ch);
	}
	cr_expect_str_eq(rig_channel_name(RIG_CH_PIVOT_Y), "pivot.y");
	cr_expect_null(rig_channel_name(RIG_CH_COUNT));
}

Test(keys_names, unknown_channel_does_not_parse)
{
	enum rig_channel ch = RIG_CH_ROTATION;
	cr_expect_eq(rig_channel_parse(&ch, "position.z"), -1);
	cr_expect_eq(rig_channel_parse(&ch, ""), -1);
	cr_expect_eq(ch, RIG_CH_ROTATION);
}

Test(keys_names, interp_names_round_trip)
{
	enum rig_interp all[] = {RIG_INTERP_LINEAR, RIG_INTERP_HOLD, RIG_INTERP_BEZIER};
	for (int i = 0; i < 3; i++) {
		enum rig_interp parsed;
		cr_expect_eq(rig_interp_parse(&parsed, rig_interp_name(all[i])), 0);
		cr_expect_eq(parsed, all[i]);
	}
	enum rig_interp parsed;
	cr_expect_eq(rig_interp_parse(&parsed, "cubic"), -1);
}

/* ---- key checks ---- */

static struct rig_key key(double frame, double value, enum rig_interp interp)
{
	return (struct rig_key){frame, value, interp, {0, 0, 1, 1}};
}

Test(keys_check, accepts_finite_keys)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_key k = key(-3.5, 2, RIG_INTERP_LINEAR);
	cr_expect_eq(rig_key_check(&k, errs), 0);
	cr_expect_eq(errs->total, 0);
	rig_errs_free(errs);
}

Test(keys_check, rejects_non_finite_frame_and_value_with_pointers)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_key k = key(NAN, INFINITY, RIG_INTERP_HOLD);
	cr_expect_eq(rig_key_check(&k, errs), -1);
	cr_assert_eq(errs->count, 2);
	cr_expect_eq(errs->items[0].code, RIG_OP_INVALID);
	cr_expect_str_eq(errs->items[0].pointer, "/frame");
	cr_expect_str_eq(errs->items[1].pointer, "/value");
	rig_errs_free(errs);
}

Test(keys_check, accepts_bezier_x_at_zero_and_one)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_key k = key(0, 0, RIG_INTERP_BEZIER);
	k.ease[0] = 0, k.ease[1] = -5, k.ease[2] = 1, k.ease[3] = 7;
	cr_expect_eq(rig_key_check(&k, errs), 0, "y may overshoot; x1 = 0 and x2 = 1 are inside");
	rig_errs_free(errs);
}

Test(keys_check, rejects_bezier_x_just_outside_unit_range)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_key k = key(0, 0, RIG_INTERP_BEZIER);
	k.ease[0] = nextafter(0, -1);
	k.ease[2] = nextafter(1, 2);
	cr_expect_eq(rig_key_check(&k, errs), -1);
	cr_assert_eq(errs->count, 2);
	cr_expect_str_eq(errs->items[0].pointer, "/ease/0");
	cr_expect_str_eq(errs->items[1].pointer, "/ease/2");
	rig_errs_free(errs);
}

Test(keys_check, rejects_non_finite_ease_entries)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_key k = key(0, 0, RIG_INTERP_BEZIER);
	k.ease[1] = NAN;
	k.ease[3] = -INFINITY;
	cr_expect_eq(rig_key_check(&k, errs), -1);
	cr_assert_eq(errs->count, 2);
	cr_expect_str_eq(errs->items[0].pointer, "/ease/1");
	cr_expect_str_eq(errs->items[1].pointer, "/ease/3");
	rig_errs_free(errs);
}

Test(keys_check, ignores_ease_of_non_bezier_keys)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_key k = key(0, 0, RIG_INTERP_LINEAR);
	k.ease[0] = NAN;
	cr_expect_eq(rig_key_check(&k, errs), 0);
	rig_errs_free(errs);
}

/* ---- channel evaluation ---- */

Test(keys_eval, channel_without_keys_uses_the_static_value)
{
	struct rig_keys none = {NULL, 0};
	cr_expect_eq(rig_keys_eval(&none, 12.5, 7), 7);
}

Test(keys_eval, single_key_holds_everywhere)
{
	struct rig_key k[] = {key(4, 3, RIG_INTERP_LINEAR)};
	struct rig_keys keys = {k, 1};
	cr_expect_eq(rig_keys_eval(&keys, -100, 0), 3);
	cr_expect_eq(rig_keys_eval(&keys, 4, 0), 3);
	cr_expect_eq(rig_keys_eval(&keys, 100, 0), 3);
}

Test(keys_eval, linear_gives_exact_midpoints)
{
	struct rig_key k[] = {key(0, 0, RIG_INTERP_LINEAR), key(10, 20, RIG_INTERP_LINEAR),
			      key(20, -20, RIG_INTERP_LINEAR)};
	struct rig_keys keys = {k, 3};
	cr_expect_eq(rig_keys_eval(&keys, 5, 0), 10);
	cr_expect_eq(rig_keys_eval(&keys, 2.5, 0), 5);
	cr_expect_eq(rig_keys_eval(&keys, 10, 0), 20, "a key frame gives its own value");
	cr_expect_eq(rig_keys_eval(&keys, 15, 0), 0);
	cr_expect_eq(rig_keys_eval(&keys, 17.5, 0), -10);
}

Test(keys_eval, hold_keeps_the_value_until_the_next_key)
{
	struct rig_key k[] = {key(0, 1, RIG_INTERP_HOLD), key(10, 2, RIG_INTERP_LINEAR)};
	struct rig_keys keys = {k, 2};
	cr_expect_eq(rig_keys_eval(&keys, 0, 0), 1);
	cr_expect_eq(rig_keys_eval(&keys, 9.999, 0), 1);
	cr_expect_eq(rig_keys_eval(&keys, 10, 0), 2);
}

Test(keys_eval, clamps_before_the_first_and_after_the_last_key)
{
	struct rig_key k[] = {key(2, 5, RIG_INTERP_LINEAR), key(4, 9, RIG_INTERP_LINEAR)};
	struct rig_keys keys = {k, 2};
	cr_expect_eq(rig_keys_eval(&keys, 1.999, 0), 5);
	cr_expect_eq(rig_keys_eval(&keys, -1e9, 0), 5);
	cr_expect_eq(rig_keys_eval(&keys, 4.001, 0), 9);
	cr_expect_eq(rig_keys_eval(&keys, 1e9, 0), 9);
}

Test(keys_eval, negative_and_fractional_frames_interpolate)
{
	struct rig_key k[] = {key(-10, -4, RIG_INTERP_LINEAR), key(-2, 12, RIG_INTERP_LINEAR),
			      key(0.5, 2, RIG_INTERP_LINEAR)};
	struct rig_keys keys = {k, 3};
	cr_expect_eq(rig_keys_eval(&keys, -6, 0), 4);
	cr_expect_eq(rig_keys_eval(&keys, -9, 0), -2);
	cr_expect_eq(rig_keys_eval(&keys, -0.75, 0), 7);
	cr_expect_eq(rig_keys_eval(&keys, 0.25, 0), 3);
}

Test(keys_eval, finds_the_right_segment_among_many_keys)
{
	struct rig_key k[101];
	for (int i = 0; i <= 100; i++)
		k[i] = key(i, i * i, RIG_INTERP_LINEAR);
	struct rig_keys keys = {k, 101};
	for (int i = 0; i < 100; i++) {
		double want = (i * i + (i + 1) * (i + 1)) / 2.0;
		cr_expect_eq(rig_keys_eval(&keys, i + 0.5, 0), want, "segment %d", i);
	}
}

/* ---- cubic-bezier ---- */

/* Independent reference: the Bernstein form of the curve, solved for x = t by
 * 200 plain bisection steps (far past double precision). */
static double bernstein(double p1, double p2, double s)
{
	double u = 1 - s;
	return 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s;
}

static double reference_ease(const double e[4], double t)
{
	double lo = 0, hi = 1;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (bernstein(e[0], e[2], mid) < t)
			lo = mid;
		else
			hi = mid;
	}
	return bernstein(e[1], e[3], (lo + hi) / 2);
}

Test(keys_bezier, matches_dense_bisection_for_common_eases)
{
	const double eases[][4] = {
		{0.25, 0.1, 0.25, 1},      /* CSS ease */
		{0.42, 0, 1, 1},           /* ease-in */
		{0, 0, 0.58, 1},           /* ease-out */
		{0.42, 0, 0.58, 1},        /* ease-in-out */
		{0.68, -0.55, 0.27, 1.55}, /* overshooting back ease */
		{0, 0, 0, 1},              /* flat start: x'(0) = 0 */
		{1, 0, 1, 1},              /* flat end */
		{0.5, 2, 0.5, -1},
		{1, 0, 1, 0}, /* x = 1 − (1 − s)³: flat at the end */
		{0, 1, 0, 1}, /* x = s³: flat at the start */
	};
	for (size_t e = 0; e < sizeof eases / sizeof eases[0]; e++) {
		/* t = 1 is left to ends_are_exact: there the reference's bisection
		 * stalls where x(s) rounds to 1 before s does. */
		for (int i = 0; i < 1000; i++) {
			double t = i / 1000.0;
			double got = rig_bezier_ease(eases[e], t);
			double want = reference_ease(eases[e], t);
			cr_expect(fabs(got - want) <= 1e-12,
				  "ease %zu at t = %g: got %.17g want %.17g", e, t, got, want);
		}
	}
}

Test(keys_bezier, straight_control_points_give_identity)
{
	const double linear[4] = {0.2, 0.2, 0.7, 0.7};
	for (int i = 0; i <= 100; i++) {
		double t = i / 100.0;
		cr_expect(fabs(rig_bezier_ease(linear, t) - t) <= 1e-14, "t = %g", t);
	}
}

Test(keys_bezier, ends_are_exact)
{
	const double e[4] = {0.68, -0.55, 0.27, 1.55};
	cr_expect_eq(rig_bezier_ease(e, 0), 0);
	cr_expect_eq(rig_bezier_ease(e, 1), 1);
	cr_expect_eq(rig_bezier_ease(e, -0.5), 0);
	cr_expect_eq(rig_bezier_ease(e, 1.5), 1);
}

Test(keys_bezier, is_deterministic)
{
	const double e[4] = {0.25, 0.1, 0.25, 1};
	for (int i = 1; i < 100; i++) {
		double a = rig_bezier_ease(e, i / 100.0), b = rig_bezier_ease(e, i / 100.0);
		cr_expect_eq(memcmp(&a, &b, sizeof a), 0);
	}
}

Test(keys_eval, bezier_segment_eases_between_its_keys)
{
	struct rig_key k[] = {key(10, 100, RIG_INTERP_BEZIER), key(20, 300, RIG_INTERP_LINEAR)};
	k[0].ease[0] = 0.42, k[0].ease[1] = 0, k[0].ease[2] = 0.58, k[0].ease[3] = 1;
	struct rig_keys keys = {k, 2};
	for (int i = 0; i <= 10; i++) {
		double frame = 10 + i;
		double want = 100 + 200 * reference_ease(k[0].ease, i / 10.0);
		cr_expect(fabs(rig_keys_eval(&keys, frame, 0) - want) <= 1e-10, "frame %g", frame);
	}
	cr_expect(fabs(rig_keys_eval(&keys, 15, 0) - 200) <= 1e-12, "symmetric ease: halfway");
}

/* ---- the local matrix ---- */

Test(keys_matrix, default_transform_is_identity)
{
	struct rig_transform t = rig_transform_default();
	struct rig_affine m = rig_transform_matrix(&t);
	struct rig_affine id = rig_affine_identity();
	cr_expect_eq(memcmp(&m, &id, sizeof m), 0);
}

Test(keys_matrix, quarter_turns_are_exact)
{
	struct rig_transform t = rig_transform_default();
	const double want[4][4] = {{1, 0, -0.0, 1}, {0, 1, -1, 0}, {-1, 0, 0, -1}, {0, -1, 1, 0}};
	for (int q = -8; q <= 8; q++) {
		t.ch[RIG_CH_ROTATION] = 90.0 * q;
		struct rig_affine m = rig_transform_matrix(&t);
		const double *w = want[((q % 4) + 4) % 4];
		for (int i = 0; i < 4; i++)
			cr_expect_eq(m.m[i], w[i], "%d° entry %d: %.17g", 90 * q, i, m.m[i]);
	}
}

Test(keys_matrix, composes_position_rotation_scale_and_pivot_in_order)
{
	struct rig_transform t = rig_transform_default();
	t.ch[RIG_CH_POSITION_X] = 5, t.ch[RIG_CH_POSITION_Y] = -3;
	t.ch[RIG_CH_ROTATION] = 30;
	t.ch[RIG_CH_SCALE_X] = 2, t.ch[RIG_CH_SCALE_Y] = 0.5;
	t.ch[RIG_CH_PIVOT_X] = 4, t.ch[RIG_CH_PIVOT_Y] = 8;
	double th = 30 * M_PI / 180;
	struct rig_affine want = rig_affine_mul(
		rig_affine_mul(translate(5, -3), affine(cos(th), sin(th), -sin(th), cos(th), 0, 0)),
		rig_affine_mul(affine(2, 0, 0, 0.5, 0, 0), translate(-4, -8)));
	struct rig_affine got = rig_transform_matrix(&t);
	for (int i = 0; i < 6; i++)
		cr_expect(fabs(got.m[i] - want.m[i]) <= 1e-14, "entry %d", i);
	/* The pivot stays put under rotation and scale: it lands on position. */
	double x, y;
	rig_affine_apply(&x, &y, &got, 4, 8);
	cr_expect(fabs(x - 5) <= 1e-14 && fabs(y + 3) <= 1e-14);
}

Test(keys_matrix, positive_rotation_turns_x_towards_y)
{
	struct rig_transform t = rig_transform_default();
	t.ch[RIG_CH_ROTATION] = 45;
	struct rig_affine m = rig_transform_matrix(&t);
	cr_expect(fabs(m.m[0] - sqrt(0.5)) < 1e-15);
	cr_expect(fabs(m.m[1] - sqrt(0.5)) < 1e-15, "R(θ) = [cos θ, sin θ, −sin θ, cos θ]");
	cr_expect(fabs(m.m[2] + sqrt(0.5)) < 1e-15);
}
