/* core/bone_suggest.c: the chain's axis, spacing, centring, headings and
 * lengths recomputed here from the points; the presets' shape (valid and
 * distinct names, parents first, inside the box, y up, mirrored sides,
 * headings to the first child) and their placement by fractions of the box;
 * every error path at and past its edge. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/bone_suggest.h"
#include "core/ids.h"

static bool near(double got, double want)
{
	return fabs(got - want) <= 1e-12 * fmax(1, fabs(want));
}

static long chain(struct rig_bone_suggestion *out, size_t n, const double *pts, size_t n_pts)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert(errs);
	long got = rig_bones_chain(out, n, pts, n_pts, errs);
	cr_assert_eq(got, (long)n, "%ld: %s", got, errs->count ? errs->items[0].detail : "");
	rig_errs_free(errs);
	return got;
}

/* The points of a w × h lattice over [x0, x0 + sx] × [y0, y0 + sy]. */
static size_t lattice(double *out, size_t w, size_t h, double x0, double y0, double sx, double sy)
{
	for (size_t j = 0; j < h; j++)
		for (size_t i = 0; i < w; i++) {
			out[2 * (j * w + i)] = x0 + sx * (double)i / (double)(w - 1);
			out[2 * (j * w + i) + 1] = y0 + sy * (double)j / (double)(h - 1);
		}
	return w * h;
}

/* The chain rule recomputed: joints along axis a, centred on each slice's
 * covered span, headings and lengths to the next, the last along the axis. */
static void expect_chain_rule(const struct rig_bone_suggestion *b, size_t n, const double *pts,
			      size_t n_pts)
{
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
	for (size_t i = 0; i < n_pts; i++)
		for (int c = 0; c < 2; c++)
			lo[c] = fmin(lo[c], pts[2 * i + c]), hi[c] = fmax(hi[c], pts[2 * i + c]);
	int a = hi[1] - lo[1] >= hi[0] - lo[0], c = !a;
	double len = hi[a] - lo[a];
	for (size_t k = 0; k < n; k++) {
		char name[16];
		snprintf(name, sizeof name, "bone%zu", k);
		cr_expect_str_eq(b[k].name, name);
		cr_expect_eq(b[k].parent, (long)k - 1);
		double at = a ? b[k].y : b[k].x, across = a ? b[k].x : b[k].y;
		cr_expect(near(at, lo[a] + len * (double)k / (double)n), "joint %zu at %g", k, at);
		/* the slice's points: the last slice holds the far end */
		double s_lo = INFINITY, s_hi = -INFINITY;
		for (size_t i = 0; i < n_pts; i++) {
			double t = (pts[2 * i + a] - lo[a]) / len * (double)n;
			size_t slice = t >= (double)n ? n - 1 : (size_t)t;
			if (slice == k)
				s_lo = fmin(s_lo, pts[2 * i + c]),
				s_hi = fmax(s_hi, pts[2 * i + c]);
		}
		double want = s_lo <= s_hi ? (s_lo + s_hi) / 2 : (lo[c] + hi[c]) / 2;
		cr_expect(near(across, want), "joint %zu across %g, want %g", k, across, want);
		if (k + 1 < n) {
			double dx = b[k + 1].x - b[k].x, dy = b[k + 1].y - b[k].y;
			cr_expect(near(b[k].length, hypot(dx, dy)));
			cr_expect(near(b[k].rotation_deg, atan2(dy, dx) * 180 / M_PI));
		} else {
			cr_expect(near(b[k].length, len / (double)n));
			cr_expect_eq(b[k].rotation_deg, a ? 90 : 0);
		}
	}
}

/* ---- the chain --------------------------------------------------------- */

Test(bones_chain, a_tall_region_gets_a_vertical_chain_from_the_bottom_up)
{
	double pts[2 * 5 * 21];
	size_t n_pts = lattice(pts, 5, 21, 0, -10, 4, 20);
	struct rig_bone_suggestion b[4];
	chain(b, 4, pts, n_pts);
	for (size_t k = 0; k < 4; k++) {
		cr_expect(near(b[k].x, 2) && near(b[k].y, -10 + 5.0 * (double)k));
		cr_expect(near(b[k].rotation_deg, 90) && near(b[k].length, 5));
	}
	expect_chain_rule(b, 4, pts, n_pts);
}

Test(bones_chain, a_wide_region_gets_a_horizontal_chain_left_to_right)
{
	double pts[2 * 31 * 4];
	size_t n_pts = lattice(pts, 31, 4, -3, 1, 30, 3);
	struct rig_bone_suggestion b[3];
	chain(b, 3, pts, n_pts);
	for (size_t k = 0; k < 3; k++) {
		cr_expect(near(b[k].x, -3 + 10.0 * (double)k) && near(b[k].y, 2.5));
		cr_expect(near(b[k].rotation_deg, 0) && near(b[k].length, 10));
	}
	expect_chain_rule(b, 3, pts, n_pts);
}

Test(bones_chain, a_square_region_is_vertical)
{
	double pts[2 * 9];
	size_t n_pts = lattice(pts, 3, 3, 0, 0, 2, 2);
	struct rig_bone_suggestion b[2];
	chain(b, 2, pts, n_pts);
	cr_expect(near(b[0].y, 0) && near(b[1].y, 1) && near(b[0].x, 1));
	expect_chain_rule(b, 2, pts, n_pts);
}

Test(bones_chain, each_joint_is_centred_on_its_slice_and_empty_slices_on_the_box)
{
	/* A slanted band, then two clusters with nothing between (empty middle
	 * slices centre on the box), then a line of points (no width). */
	double band[2 * 200];
	for (size_t i = 0; i < 200; i++) {
		double t = (double)i / 199;
		band[2 * i] = 3 * t + (double)(i % 5) * 0.4;
		band[2 * i + 1] = 12 * t;
	}
	struct rig_bone_suggestion b[RIG_MAX_SUGGEST_BONES];
	for (size_t n = 1; n <= 9; n += 4) {
		chain(b, n, band, 200);
		expect_chain_rule(b, n, band, 200);
	}
	double two[] = {0, 0, 1, 0.5, 0.5, 1, 0.2, 9, 3, 10, 2.5, 9.5};
	chain(b, 5, two, 6);
	expect_chain_rule(b, 5, two, 6);
	cr_expect(near(b[2].x, 1.5), "an empty slice: the box's centre, %g", b[2].x);
	double line[] = {1, 0, 1, 4, 1, 2};
	chain(b, 2, line, 3);
	expect_chain_rule(b, 2, line, 3);
	cr_expect(near(b[0].x, 1) && near(b[0].y, 0) && near(b[1].y, 2));
}

Test(bones_chain, one_bone_spans_the_region_and_the_most_bones_fit)
{
	double pts[2 * 5 * 21];
	size_t n_pts = lattice(pts, 5, 21, 0, -10, 4, 20);
	struct rig_bone_suggestion b[RIG_MAX_SUGGEST_BONES];
	chain(b, 1, pts, n_pts);
	cr_expect(near(b[0].y, -10) && near(b[0].length, 20) && b[0].parent == -1);
	chain(b, RIG_MAX_SUGGEST_BONES, pts, n_pts);
	expect_chain_rule(b, RIG_MAX_SUGGEST_BONES, pts, n_pts);
	cr_expect_str_eq(b[63].name, "bone63");
	for (size_t k = 0; k < RIG_MAX_SUGGEST_BONES; k++)
		cr_expect(rig_id_is_valid(b[k].name));
}

static void expect_chain_error(size_t n, const double *pts, size_t n_pts, enum rig_code code,
			       const char *pointer)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_bone_suggestion b[RIG_MAX_SUGGEST_BONES + 1];
	cr_assert(errs);
	cr_expect_eq(rig_bones_chain(b, n, pts, n_pts, errs), -1);
	cr_assert_eq(errs->total, 1, "%zu errors", errs->total);
	cr_expect_eq(errs->items[0].code, code, "%s", rig_code_name(errs->items[0].code));
	cr_expect_str_eq(errs->items[0].pointer, pointer);
	rig_errs_free(errs);
}

Test(bones_chain, errors_at_and_past_their_edges)
{
	double pts[] = {0, 0, 1, 3, 2, 1};
	expect_chain_error(0, pts, 3, RIG_INVALID_FIELD, "/n");
	expect_chain_error(RIG_MAX_SUGGEST_BONES + 1, pts, 3, RIG_INVALID_FIELD, "/n");
	expect_chain_error(SIZE_MAX, pts, 3, RIG_INVALID_FIELD, "/n");
	expect_chain_error(3, pts, 0, RIG_TESSELLATE_EMPTY, "");
	double same[] = {2, 2, 2, 2, 2, 2};
	expect_chain_error(3, same, 3, RIG_TESSELLATE_EMPTY, "");
	struct rig_bone_suggestion b[1];
	chain(b, 1, pts, 2); /* two distinct points suffice */
	double bad[] = {0, 0, NAN, 1, 2, 1};
	expect_chain_error(3, bad, 3, RIG_INVALID_FIELD, "/points/1");
	double huge[] = {-DBL_MAX, 0, DBL_MAX, 1};
	expect_chain_error(3, huge, 2, RIG_INVALID_FIELD, "/points");
}

/* ---- the presets ------------------------------------------------------- */

static long preset(struct rig_bone_suggestion *out, enum rig_bone_preset p, double x0, double y0,
		   double x1, double y1)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert(errs);
	long n = rig_bones_preset(out, p, x0, y0, x1, y1, errs);
	cr_assert_gt(n, 0, "%s", errs->count ? errs->items[0].detail : "");
	rig_errs_free(errs);
	return n;
}

static long find(const struct rig_bone_suggestion *b, long n, const char *name)
{
	for (long i = 0; i < n; i++)
		if (strcmp(b[i].name, name) == 0)
			return i;
	cr_assert_fail("no joint '%s'", name);
	return -1;
}

/* Valid distinct names, one root first, parents before children, inside
 * the box, headings and lengths to the first child (leaves: length > 0). */
static void expect_shape(const struct rig_bone_suggestion *b, long n, double x0, double y0,
			 double x1, double y1)
{
	cr_expect_eq(b[0].parent, -1);
	for (long i = 0; i < n; i++) {
		cr_expect(rig_id_is_valid(b[i].name), "'%s'", b[i].name);
		for (long k = 0; k < i; k++)
			cr_expect_str_neq(b[i].name, b[k].name);
		if (i > 0)
			cr_expect(b[i].parent >= 0 && b[i].parent < i, "'%s' parent %ld", b[i].name,
				  b[i].parent);
		cr_expect(b[i].x >= x0 && b[i].x <= x1 && b[i].y >= y0 && b[i].y <= y1, "'%s'",
			  b[i].name);
		cr_expect_gt(b[i].length, 0, "'%s'", b[i].name);
		long child = -1;
		for (long k = i + 1; k < n && child < 0; k++)
			if (b[k].parent == i)
				child = k;
		if (child >= 0) {
			double dx = b[child].x - b[i].x, dy = b[child].y - b[i].y;
			cr_expect(near(b[i].length, hypot(dx, dy)), "'%s'", b[i].name);
			cr_expect(near(b[i].rotation_deg, atan2(dy, dx) * 180 / M_PI), "'%s'",
				  b[i].name);
		}
		/* the tip stays in the box */
		double r = b[i].rotation_deg * M_PI / 180;
		double tx = b[i].x + b[i].length * cos(r), ty = b[i].y + b[i].length * sin(r);
		cr_expect(tx >= x0 - 1e-9 && tx <= x1 + 1e-9 && ty >= y0 - 1e-9 && ty <= y1 + 1e-9,
			  "'%s' tip (%g, %g)", b[i].name, tx, ty);
	}
}

Test(bones_preset, names_round_trip)
{
	enum rig_bone_preset p = 9;
	cr_expect_eq(rig_bone_preset_parse(&p, "biped"), 0);
	cr_expect_eq((int)p, RIG_PRESET_BIPED);
	cr_expect_eq(rig_bone_preset_parse(&p, "quadruped"), 0);
	cr_expect_eq((int)p, RIG_PRESET_QUADRUPED);
	cr_expect_eq(rig_bone_preset_parse(&p, "Biped"), -1);
	cr_expect_eq(rig_bone_preset_parse(&p, NULL), -1);
	cr_expect_str_eq(rig_bone_preset_name(RIG_PRESET_QUADRUPED), "quadruped");
	cr_expect_null(rig_bone_preset_name(2));
}

Test(bones_preset, biped_stands_up_with_mirrored_sides)
{
	struct rig_bone_suggestion b[RIG_MAX_SUGGEST_BONES];
	long n = preset(b, RIG_PRESET_BIPED, -50, 0, 50, 200);
	cr_assert_eq(n, 17);
	expect_shape(b, n, -50, 0, 50, 200);
	cr_expect_str_eq(b[0].name, "hips");
	long hips = 0, head = find(b, n, "head"), chest = find(b, n, "chest");
	cr_expect_gt(b[head].y, b[chest].y);
	cr_expect_gt(b[chest].y, b[hips].y);
	cr_expect(near(b[hips].rotation_deg, 90), "the spine goes up");
	const char *sides[] = {"upperArm", "forearm", "hand", "thigh", "shin", "foot"};
	for (size_t i = 0; i < 6; i++) {
		char l[32], r[32];
		snprintf(l, sizeof l, "%s.L", sides[i]);
		snprintf(r, sizeof r, "%s.R", sides[i]);
		long li = find(b, n, l), ri = find(b, n, r);
		cr_expect_gt(b[li].x, 0, "%s on +x", l);
		cr_expect(near(b[li].x, -b[ri].x) && near(b[li].y, b[ri].y), "%s mirrors %s", l, r);
		cr_expect(near(b[li].length, b[ri].length));
	}
	cr_expect_lt(b[find(b, n, "foot.L")].y, b[find(b, n, "shin.L")].y);
	cr_expect_eq(b[find(b, n, "thigh.L")].parent, hips);
	cr_expect_eq(b[find(b, n, "upperArm.R")].parent, chest);
}

Test(bones_preset, quadruped_faces_right_with_four_legs)
{
	struct rig_bone_suggestion b[RIG_MAX_SUGGEST_BONES];
	long n = preset(b, RIG_PRESET_QUADRUPED, 0, 0, 300, 120);
	cr_assert_eq(n, 18);
	expect_shape(b, n, 0, 0, 300, 120);
	long head = find(b, n, "head"), tail = find(b, n, "tail"), chest = find(b, n, "chest");
	cr_expect_gt(b[head].x, b[chest].x);
	cr_expect_lt(b[tail].x, b[0].x);
	cr_expect(cos(b[tail].rotation_deg * M_PI / 180) < 0, "the tail points back");
	const char *legs[] = {"hind", "front"}, *parts[] = {"Upper", "Lower", "Foot"};
	for (size_t l = 0; l < 2; l++)
		for (size_t s = 0; s < 2; s++) {
			long prev = l == 0 ? 0 : chest;
			for (size_t p = 0; p < 3; p++) {
				char name[32];
				snprintf(name, sizeof name, "%s%s.%c", legs[l], parts[p],
					 s ? 'R' : 'L');
				long i = find(b, n, name);
				cr_expect_eq(b[i].parent, prev, "%s", name);
				cr_expect_lt(b[i].y, b[prev].y, "%s below its parent", name);
				prev = i;
			}
		}
}

Test(bones_preset, placement_follows_the_box)
{
	/* Fractions of the box: moving and scaling it moves and scales every
	 * joint the same way. */
	for (int p = 0; p < 2; p++) {
		struct rig_bone_suggestion a[RIG_MAX_SUGGEST_BONES], b[RIG_MAX_SUGGEST_BONES];
		long n = preset(a, p, 0, 0, 1, 1);
		cr_assert_eq(preset(b, p, 10, -20, 14, -12), n);
		for (long i = 0; i < n; i++) {
			cr_expect(near(b[i].x, 10 + 4 * a[i].x) && near(b[i].y, -20 + 8 * a[i].y));
			cr_expect_str_eq(a[i].name, b[i].name);
			cr_expect_eq(a[i].parent, b[i].parent);
		}
	}
}

static void expect_preset_error(int p, double x0, double y0, double x1, double y1,
				enum rig_code code, const char *pointer)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_bone_suggestion b[RIG_MAX_SUGGEST_BONES];
	cr_assert(errs);
	cr_expect_eq(rig_bones_preset(b, p, x0, y0, x1, y1, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, code, "%s", rig_code_name(errs->items[0].code));
	cr_expect_str_eq(errs->items[0].pointer, pointer);
	rig_errs_free(errs);
}

Test(bones_preset, errors_at_and_past_their_edges)
{
	struct rig_bone_suggestion b[RIG_MAX_SUGGEST_BONES];
	expect_preset_error(2, 0, 0, 1, 1, RIG_INVALID_FIELD, "/preset");
	expect_preset_error(-1, 0, 0, 1, 1, RIG_INVALID_FIELD, "/preset");
	expect_preset_error(0, 0, 0, 0, 1, RIG_TESSELLATE_EMPTY, "/box");
	expect_preset_error(0, 0, 0, 1, -1, RIG_TESSELLATE_EMPTY, "/box");
	preset(b, RIG_PRESET_BIPED, 0, 0, DBL_TRUE_MIN, DBL_TRUE_MIN);
	expect_preset_error(1, 0, NAN, 1, 1, RIG_INVALID_FIELD, "/box");
	expect_preset_error(1, -DBL_MAX, 0, DBL_MAX, 1, RIG_INVALID_FIELD, "/box");
	expect_preset_error(1, 0, 0, INFINITY, 1, RIG_INVALID_FIELD, "/box");
}
