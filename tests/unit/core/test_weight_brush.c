/* core/weight_brush.c: the falloff against smoothstep recomputed here, the
 * redistribution rule worked by hand on small lists, the dab's properties
 * over an automatically weighted grid (every list passes
 * rig_skin_check_influences, the changed list is exactly the vertices whose
 * list changed, a dab outside the radius changes nothing, feather 0 is a hard
 * edge, smooth reduces the variance under the brush, a single-influence
 * vertex keeps its weight, determinism), layer.skin.weights.set's rule, and
 * every error path at and past its edge. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/auto_weights.h"
#include "core/rig_limits.h"
#include "core/weight_brush.h"

/* ---- skins ------------------------------------------------------------- */

/* A skin of n_joints joints over the given source whose vertex v has the
 * lists[v] (n_inf[v] entries). Release with rig_skin_def_release. */
static struct rig_skin_def skin(const double *source, size_t n_verts, size_t n_joints,
				const struct rig_skin_influence *const *lists, const size_t *n_inf)
{
	struct rig_skin_def d;
	memset(&d, 0, sizeof d);
	d.n_verts = d.n_weight_lists = n_verts;
	d.n_joints = n_joints;
	d.source = malloc(2 * n_verts * sizeof *d.source);
	d.joints = calloc(n_joints, sizeof *d.joints);
	d.weight_offsets = malloc((n_verts + 1) * sizeof *d.weight_offsets);
	size_t total = 0;
	for (size_t v = 0; v < n_verts; v++)
		total += n_inf[v];
	d.influences = calloc(total + 1, sizeof *d.influences);
	cr_assert(d.source && d.joints && d.weight_offsets && d.influences);
	memcpy(d.source, source, 2 * n_verts * sizeof *d.source);
	for (size_t j = 0; j < n_joints; j++)
		snprintf(d.joints[j].id, sizeof d.joints[j].id, "j%zu", j);
	uint32_t at = 0;
	for (size_t v = 0; v < n_verts; v++) {
		d.weight_offsets[v] = at;
		memcpy(&d.influences[at], lists[v], n_inf[v] * sizeof *d.influences);
		at += (uint32_t)n_inf[v];
	}
	d.weight_offsets[n_verts] = at;
	return d;
}

/* A 21 × 21 grid (spacing 1, x and y in [0, 20]) weighted to 6 joints by the
 * segment method, k = 4; vertex 0 (the corner (0, 0)) then set to joint 5
 * alone, vertex 20 ((20, 0)) to joint 0 alone. */
static struct rig_skin_def grid_skin(void)
{
	size_t w = 21, n = w * w;
	double *src = malloc(2 * n * sizeof *src);
	uint32_t *tri = malloc(6 * (w - 1) * (w - 1) * sizeof *tri);
	cr_assert(src && tri);
	for (size_t i = 0; i < n; i++) {
		src[2 * i] = (double)(i % w);
		src[2 * i + 1] = (double)(i / w);
	}
	size_t t = 0;
	for (size_t y = 0; y + 1 < w; y++)
		for (size_t x = 0; x + 1 < w; x++) {
			uint32_t a = (uint32_t)(y * w + x), b = a + 1, c = a + (uint32_t)w,
				 d = c + 1;
			uint32_t q[6] = {a, b, d, a, d, c};
			memcpy(&tri[6 * t++], q, sizeof q);
		}
	struct rig_auto_joint j[6];
	for (size_t i = 0; i < 6; i++) {
		double x = 2 + 3.2 * (double)i, y = 3 + 2.5 * (double)i;
		j[i] = (struct rig_auto_joint){.bind = {{1, 0, 0, 1, x, y}},
					       .parent = i == 0 ? -1 : (long)i - 1};
	}
	struct rig_auto_result r;
	struct rig_errs *errs = rig_errs_new();
	cr_assert(errs);
	cr_assert_eq(rig_auto_weights(&r, src, n, tri, 2 * t, j, 6, RIG_AUTO_SEGMENT, 4, errs), 0);
	rig_errs_free(errs);
	struct rig_skin_def d;
	memset(&d, 0, sizeof d);
	d.n_verts = d.n_weight_lists = n;
	d.n_joints = 6;
	d.source = src;
	d.triangles = tri;
	d.n_tris = 2 * t;
	d.joints = calloc(6, sizeof *d.joints);
	cr_assert(d.joints);
	for (size_t i = 0; i < 6; i++)
		snprintf(d.joints[i].id, sizeof d.joints[i].id, "j%zu", i);
	d.weight_offsets = r.offsets;
	d.influences = r.influences;
	/* the two single-influence vertices */
	struct rig_skin_def copy;
	cr_assert_eq(rig_skin_def_copy(&copy, &d), 0);
	uint32_t *off = d.weight_offsets;
	uint32_t at = 0;
	for (size_t v = 0; v < n; v++) {
		uint32_t a = copy.weight_offsets[v], b = copy.weight_offsets[v + 1];
		off[v] = at;
		if (v == 0 || v == 20) {
			d.influences[at].joint = v == 0 ? 5 : 0;
			d.influences[at++].weight = 1;
		} else {
			memmove(&d.influences[at], &copy.influences[a],
				(b - a) * sizeof *d.influences);
			at += b - a;
		}
	}
	off[n] = at;
	rig_skin_def_release(&copy);
	return d;
}

static void expect_valid(const struct rig_skin_def *d)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert(errs);
	cr_assert_eq(d->weight_offsets[0], 0);
	for (size_t v = 0; v < d->n_verts; v++) {
		uint32_t a = d->weight_offsets[v], b = d->weight_offsets[v + 1];
		cr_assert(b > a && b - a <= RIG_MAX_INFLUENCES, "vertex %zu: %u influences", v,
			  b - a);
		struct rig_skin_influence copy[RIG_MAX_INFLUENCES];
		memcpy(copy, &d->influences[a], (b - a) * sizeof *copy);
		cr_assert_eq(rig_skin_check_influences(copy, b - a, d->n_joints, v, errs), 0,
			     "vertex %zu: %s", v, errs->count ? errs->items[0].detail : "");
	}
	rig_errs_free(errs);
}

static double weight_of(const struct rig_skin_def *d, size_t v, uint32_t j)
{
	for (uint32_t k = d->weight_offsets[v]; k < d->weight_offsets[v + 1]; k++)
		if (d->influences[k].joint == j)
			return d->influences[k].weight;
	return 0;
}

static bool same_list(const struct rig_skin_def *a, const struct rig_skin_def *b, size_t v)
{
	uint32_t na = a->weight_offsets[v + 1] - a->weight_offsets[v];
	uint32_t nb = b->weight_offsets[v + 1] - b->weight_offsets[v];
	if (na != nb)
		return false;
	for (uint32_t k = 0; k < na; k++) {
		const struct rig_skin_influence *x = &a->influences[a->weight_offsets[v] + k];
		const struct rig_skin_influence *y = &b->influences[b->weight_offsets[v] + k];
		if (x->joint != y->joint || x->weight != y->weight)
			return false;
	}
	return true;
}

static struct rig_brush brush(enum rig_brush_mode mode, uint32_t joint, double cx, double cy,
			      double radius, double strength, double feather)
{
	return (struct rig_brush){mode, joint, cx, cy, radius, strength, feather};
}

/* Applies b to d and expects success; returns the changed list's count and
 * checks it is ascending and exactly the vertices whose list changed. */
static size_t dab(struct rig_skin_def *d, const struct rig_brush *b)
{
	struct rig_skin_def before;
	cr_assert_eq(rig_skin_def_copy(&before, d), 0);
	uint32_t *changed;
	size_t n_changed;
	cr_assert_eq(rig_brush_apply(d, b, &changed, &n_changed), 0);
	cr_assert_eq(changed == NULL, n_changed == 0);
	size_t at = 0;
	for (size_t v = 0; v < d->n_verts; v++) {
		bool is_listed = at < n_changed && changed[at] == v;
		cr_assert_eq(is_listed, !same_list(&before, d, v), "vertex %zu", v);
		at += is_listed;
	}
	cr_assert_eq(at, n_changed, "the changed list is not ascending or names a vertex twice");
	free(changed);
	rig_skin_def_release(&before);
	return n_changed;
}

static bool near(double got, double want)
{
	return fabs(got - want) <= 1e-15 * fmax(1, fabs(want));
}

/* ---- names and the falloff ------------------------------------------- */

Test(brush_mode, names_round_trip)
{
	const char *names[] = {"add", "subtract", "smooth", "set"};
	for (int m = 0; m < 4; m++) {
		enum rig_brush_mode got = 99;
		cr_expect_str_eq(rig_brush_mode_name(m), names[m]);
		cr_assert_eq(rig_brush_mode_parse(&got, names[m]), 0);
		cr_expect_eq((int)got, m);
	}
	cr_expect_null(rig_brush_mode_name(4));
	enum rig_brush_mode got = RIG_BRUSH_SET;
	cr_expect_eq(rig_brush_mode_parse(&got, "Add"), -1);
	cr_expect_eq(rig_brush_mode_parse(&got, NULL), -1);
	cr_expect_eq((int)got, RIG_BRUSH_SET);
}

/* smoothstep written out again: 3t² − 2t³. */
static double want_falloff(double d, double r, double phi)
{
	if (d >= r)
		return 0;
	double inner = r - r * phi;
	if (d <= inner)
		return 1;
	double t = (d - inner) / (r * phi);
	return 1 - (3 * t * t - 2 * t * t * t);
}

Test(brush_falloff, is_one_minus_smoothstep_on_the_feathered_ring)
{
	double phis[] = {0, 0.1, 0.25, 0.5, 0.75, 1};
	for (size_t i = 0; i < sizeof phis / sizeof phis[0]; i++) {
		for (int k = 0; k <= 130; k++) {
			double d = 4.0 * k / 100.0;
			double got = rig_brush_falloff(d, 4, phis[i]),
			       want = want_falloff(d, 4, phis[i]);
			cr_assert(fabs(got - want) <= 1e-14, "phi %g d %g: %.17g against %.17g",
				  phis[i], d, got, want);
			cr_assert(got >= 0 && got <= 1);
		}
	}
	/* the ring's ends and middle */
	cr_expect_eq(rig_brush_falloff(2, 4, 0.5), 1);
	cr_expect(near(rig_brush_falloff(3, 4, 0.5), 0.5));
	cr_expect_eq(rig_brush_falloff(4, 4, 0.5), 0);
	cr_expect_eq(rig_brush_falloff(0, 4, 1), 1);
	cr_expect_eq(rig_brush_falloff(NAN, 4, 0.5), 0);
}

Test(brush_falloff, feather_zero_is_a_hard_edge)
{
	cr_expect_eq(rig_brush_falloff(0, 2, 0), 1);
	cr_expect_eq(rig_brush_falloff(nextafter(2, 0), 2, 0), 1);
	cr_expect_eq(rig_brush_falloff(2, 2, 0), 0);
	cr_expect_eq(rig_brush_falloff(nextafter(2, 3), 2, 0), 0);
}

/* ---- the check ---------------------------------------------------------- */

static void expect_check(const struct rig_brush *b, size_t n_joints, enum rig_code code,
			 const char *pointer)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert(errs);
	int rc = rig_brush_check(b, n_joints, errs);
	if (!pointer) {
		cr_expect_eq(rc, 0, "%s", errs->count ? errs->items[0].detail : "");
	} else {
		cr_expect_eq(rc, -1);
		cr_assert_eq(errs->total, 1, "%zu errors", errs->total);
		cr_expect_eq(errs->items[0].code, code, "%s", rig_code_name(errs->items[0].code));
		cr_expect_str_eq(errs->items[0].pointer, pointer);
	}
	rig_errs_free(errs);
}

Test(brush_check, every_field_at_and_past_its_edge)
{
	struct rig_brush ok = brush(RIG_BRUSH_ADD, 2, 0, 0, 1, 0.5, 0.5), b;
	expect_check(&ok, 3, RIG_OK, NULL);
	double radii_bad[] = {0, -0.0, -1, NAN, INFINITY}, radii_ok[] = {DBL_TRUE_MIN, 1e300};
	for (size_t i = 0; i < 5; i++) {
		b = ok, b.radius = radii_bad[i];
		expect_check(&b, 3, RIG_INVALID_FIELD, "/radius");
	}
	for (size_t i = 0; i < 2; i++) {
		b = ok, b.radius = radii_ok[i];
		expect_check(&b, 3, RIG_OK, NULL);
	}
	double unit_bad[] = {-DBL_TRUE_MIN, nextafter(1, 2), NAN, -INFINITY}, unit_ok[] = {0, 1};
	for (size_t i = 0; i < 4; i++) {
		b = ok, b.strength = unit_bad[i];
		expect_check(&b, 3, RIG_INVALID_FIELD, "/strength");
		b = ok, b.feather = unit_bad[i];
		expect_check(&b, 3, RIG_INVALID_FIELD, "/feather");
	}
	for (size_t i = 0; i < 2; i++) {
		b = ok, b.strength = unit_ok[i];
		expect_check(&b, 3, RIG_OK, NULL);
		b = ok, b.feather = unit_ok[i];
		expect_check(&b, 3, RIG_OK, NULL);
	}
	b = ok, b.joint = 3;
	expect_check(&b, 3, RIG_SKIN_JOINTS, "/jointId");
	b = ok, b.joint = UINT32_MAX;
	expect_check(&b, 3, RIG_SKIN_JOINTS, "/jointId");
	b = ok, b.mode = 4;
	expect_check(&b, 3, RIG_INVALID_FIELD, "/mode");
	b = ok, b.cx = NAN;
	expect_check(&b, 3, RIG_INVALID_FIELD, "/center");
	/* every problem at once */
	struct rig_errs *errs = rig_errs_new();
	b = brush(RIG_BRUSH_ADD, 9, 0, 0, 0, 2, -1);
	cr_expect_eq(rig_brush_check(&b, 3, errs), -1);
	cr_expect_eq(errs->total, 4);
	rig_errs_free(errs);
}

/* ---- the redistribution by hand --------------------------------------- */

/* One vertex at the origin (under a hard brush of radius 1 there), one at
 * (10, 0) out of reach. */
static const double two_points[] = {0, 0, 10, 0};

static struct rig_skin_def one_list(const struct rig_skin_influence *list, size_t n)
{
	static const struct rig_skin_influence far[] = {{0, 0.5}, {1, 0.5}};
	const struct rig_skin_influence *lists[] = {list, far};
	size_t counts[] = {n, 2};
	return skin(two_points, 2, 9, lists, counts);
}

static void expect_list(const struct rig_skin_def *d, size_t v,
			const struct rig_skin_influence *want, size_t n)
{
	uint32_t a = d->weight_offsets[v];
	cr_assert_eq(d->weight_offsets[v + 1] - a, n, "%u influences, want %zu",
		     d->weight_offsets[v + 1] - a, n);
	for (size_t k = 0; k < n; k++) {
		cr_expect_eq(d->influences[a + k].joint, want[k].joint, "influence %zu", k);
		cr_expect(near(d->influences[a + k].weight, want[k].weight),
			  "influence %zu: %.17g, want %.17g", k, d->influences[a + k].weight,
			  want[k].weight);
	}
}

Test(brush_rule, the_rest_is_shared_in_proportion)
{
	struct rig_skin_influence l[] = {{0, 0.5}, {1, 0.3}, {2, 0.2}};
	struct rig_skin_def d = one_list(l, 3);
	struct rig_brush b = brush(RIG_BRUSH_ADD, 0, 0, 0, 1, 0.2, 0);
	cr_expect_eq(dab(&d, &b), 1);
	/* w' = 0.7; 0.3 shared 3 : 2 */
	struct rig_skin_influence want[] = {{0, 0.7}, {1, 0.3 * 0.3 / 0.5}, {2, 0.3 * 0.2 / 0.5}};
	expect_list(&d, 0, want, 3);
	expect_valid(&d);
	rig_skin_def_release(&d);
}

Test(brush_rule, a_new_joint_goes_at_the_end)
{
	struct rig_skin_influence l[] = {{4, 0.5}, {1, 0.5}};
	struct rig_skin_def d = one_list(l, 2);
	struct rig_brush b = brush(RIG_BRUSH_ADD, 7, 0, 0, 1, 0.25, 0);
	dab(&d, &b);
	struct rig_skin_influence want[] = {{4, 0.375}, {1, 0.375}, {7, 0.25}};
	expect_list(&d, 0, want, 3);
	rig_skin_def_release(&d);
}

Test(brush_rule, zero_and_one_drop_influences)
{
	struct rig_skin_influence l[] = {{0, 0.25}, {1, 0.75}};
	struct rig_skin_def d = one_list(l, 2);
	struct rig_brush b = brush(RIG_BRUSH_SUBTRACT, 0, 0, 0, 1, 0.5, 0);
	dab(&d, &b);
	struct rig_skin_influence want1[] = {{1, 1}};
	expect_list(&d, 0, want1, 1);
	rig_skin_def_release(&d);
	d = one_list(l, 2);
	b = brush(RIG_BRUSH_ADD, 0, 0, 0, 1, 0.9, 0);
	dab(&d, &b);
	struct rig_skin_influence want0[] = {{0, 1}};
	expect_list(&d, 0, want0, 1);
	rig_skin_def_release(&d);
}

Test(brush_rule, a_full_list_drops_its_smallest_other_joint)
{
	struct rig_skin_influence l[8];
	double w[8] = {0.2, 0.05, 0.15, 0.05, 0.1, 0.15, 0.2, 0.1}; /* joints 0..7 */
	for (uint32_t k = 0; k < 8; k++)
		l[k] = (struct rig_skin_influence){k, w[k]};
	struct rig_skin_def d = one_list(l, 8);
	struct rig_brush b = brush(RIG_BRUSH_ADD, 8, 0, 0, 1, 0.01, 0);
	dab(&d, &b);
	/* joints 1 and 3 tie for the smallest: 3 (the higher) goes; joint 8
	 * keeps 0.01, the other seven share 0.99 in proportion to 0.95. */
	struct rig_skin_influence want[8];
	size_t m = 0;
	for (uint32_t k = 0; k < 8; k++)
		if (k != 3)
			want[m++] = (struct rig_skin_influence){k, w[k] * 0.99 / 0.95};
	want[m++] = (struct rig_skin_influence){8, 0.01};
	expect_list(&d, 0, want, 8);
	expect_valid(&d);
	rig_skin_def_release(&d);
}

Test(brush_rule, set_and_smooth_by_hand)
{
	/* set, feathered: f at d = 0.75 of a radius-1 brush with feather 0.5 */
	double src[] = {0.75, 0, 0, 0, 0.3, 0, 10, 0};
	struct rig_skin_influence a[] = {{0, 0.2}, {1, 0.8}}, b2[] = {{0, 0.6}, {1, 0.4}},
				  c[] = {{1, 1}}, far[] = {{0, 1}};
	const struct rig_skin_influence *lists[] = {a, b2, c, far};
	size_t counts[] = {2, 2, 1, 1};
	struct rig_skin_def d = skin(src, 4, 2, lists, counts);
	double f = want_falloff(0.75, 1, 0.5);
	struct rig_brush b = brush(RIG_BRUSH_SET, 0, 0, 0, 1, 0.9, 0.5);
	cr_expect_eq(dab(&d, &b), 3);
	double w0 = 0.2 + (0.9 - 0.2) * f;
	struct rig_skin_influence want_a[] = {{0, w0}, {1, 1 - w0}};
	expect_list(&d, 0, want_a, 2);
	struct rig_skin_influence want_b[] = {{0, 0.9}, {1, 0.1}};
	expect_list(&d, 1, want_b, 2);
	struct rig_skin_influence want_c[] = {{1, 0.1}, {0, 0.9}};
	expect_list(&d, 2, want_c, 2);
	rig_skin_def_release(&d);

	/* smooth, hard edge radius 1: the mean of joint 0 over the three
	 * vertices under it (0.2, 0.6, 0) is 0.8 / 3 */
	d = skin(src, 4, 2, lists, counts);
	b = brush(RIG_BRUSH_SMOOTH, 0, 0, 0, 1, 0.5, 0);
	dab(&d, &b);
	double m = 0.8 / 3;
	double ws[] = {0.2 + (m - 0.2) * 0.5, 0.6 + (m - 0.6) * 0.5, 0 + (m - 0) * 0.5};
	struct rig_skin_influence sa[] = {{0, ws[0]}, {1, 1 - ws[0]}};
	struct rig_skin_influence sb[] = {{0, ws[1]}, {1, 1 - ws[1]}};
	struct rig_skin_influence sc[] = {{1, 1 - ws[2]}, {0, ws[2]}};
	expect_list(&d, 0, sa, 2);
	expect_list(&d, 1, sb, 2);
	expect_list(&d, 2, sc, 2);
	expect_list(&d, 3, far, 1);
	rig_skin_def_release(&d);
}

/* ---- properties over a weighted grid --------------------------------- */

Test(brush_dab, every_mode_keeps_every_list_valid_and_lists_exactly_the_changes)
{
	struct rig_skin_def d = grid_skin();
	expect_valid(&d);
	uint64_t seed = 12345;
	for (int i = 0; i < 60; i++) {
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		double u = (double)(seed >> 11) * 0x1p-53;
		struct rig_brush b =
			brush((enum rig_brush_mode)(i % 4), (uint32_t)(i % 6), 20 * u, 20 * (1 - u),
			      1 + 6 * u, 0.1 + 0.8 * u, (double)(i % 5) / 4);
		dab(&d, &b);
		expect_valid(&d);
	}
	rig_skin_def_release(&d);
}

Test(brush_dab, a_dab_outside_the_radius_changes_nothing)
{
	struct rig_skin_def d = grid_skin();
	uint32_t *off = d.weight_offsets;
	struct rig_skin_influence *inf = d.influences;
	for (int m = 0; m < 4; m++) {
		/* the nearest vertex, (20, 20), is exactly the radius away */
		struct rig_brush b = brush(m, 1, 23, 24, 5, 1, 0.5);
		uint32_t *changed = (uint32_t *)1;
		size_t n_changed = 7;
		cr_assert_eq(rig_brush_apply(&d, &b, &changed, &n_changed), 0);
		cr_expect_null(changed);
		cr_expect_eq(n_changed, 0);
		cr_expect_eq(d.weight_offsets, off, "an untouched skin keeps its arrays");
		cr_expect_eq(d.influences, inf);
	}
	rig_skin_def_release(&d);
}

Test(brush_dab, feather_zero_is_a_hard_edge_on_the_skin)
{
	struct rig_skin_def d = grid_skin(), before;
	cr_assert_eq(rig_skin_def_copy(&before, &d), 0);
	struct rig_brush b = brush(RIG_BRUSH_ADD, 2, 10, 10, 3, 0.3, 0);
	dab(&d, &b);
	for (size_t v = 0; v < d.n_verts; v++) {
		double dx = d.source[2 * v] - 10, dy = d.source[2 * v + 1] - 10;
		double w = weight_of(&before, v, 2);
		if (sqrt(dx * dx + dy * dy) >= 3)
			cr_expect(same_list(&d, &before, v), "vertex %zu outside changed", v);
		else
			cr_expect(fabs(weight_of(&d, v, 2) - fmin(1, w + 0.3)) <= 1e-15,
				  "vertex %zu: %.17g from %.17g", v, weight_of(&d, v, 2), w);
	}
	rig_skin_def_release(&before);
	rig_skin_def_release(&d);
}

/* The painted joint's variance over the vertices under the brush (two
 * passes: the mean, then the mean squared deviation). */
static double variance_under(const struct rig_skin_def *d, const struct rig_brush *b)
{
	double sum = 0, dev = 0;
	size_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t v = 0; v < d->n_verts; v++) {
			double dx = d->source[2 * v] - b->cx, dy = d->source[2 * v + 1] - b->cy;
			if (!(sqrt(dx * dx + dy * dy) < b->radius))
				continue;
			double w = weight_of(d, v, b->joint);
			if (pass == 0)
				sum += w, n++;
			else
				dev += (w - sum / (double)n) * (w - sum / (double)n);
		}
	}
	return dev / (double)n;
}

Test(brush_dab, smooth_reduces_the_variance_under_the_brush)
{
	for (double phi = 0; phi <= 1; phi += 0.5) {
		struct rig_skin_def d = grid_skin();
		struct rig_brush b = brush(RIG_BRUSH_SMOOTH, 1, 6, 5, 5, 0.7, phi);
		double before = variance_under(&d, &b);
		cr_assert_gt(before, 1e-3);
		dab(&d, &b);
		double after = variance_under(&d, &b);
		cr_expect_lt(after, before, "feather %g: %g after, %g before", phi, after, before);
		expect_valid(&d);
		rig_skin_def_release(&d);
	}
	struct rig_skin_def d = grid_skin();
	struct rig_brush full = brush(RIG_BRUSH_SMOOTH, 1, 6, 5, 5, 1, 0);
	dab(&d, &full);
	cr_expect_lt(variance_under(&d, &full), 1e-28, "strength 1, hard edge: all at the mean");
	rig_skin_def_release(&d);
}

Test(brush_dab, a_single_influence_vertex_keeps_its_weight)
{
	/* Vertex 20 at (20, 0) has joint 0 alone. */
	for (int m = 0; m < 4; m++) {
		struct rig_skin_def d = grid_skin();
		struct rig_brush b = brush(m, 0, 20, 0, 0.5, 1, 0);
		b.strength = m == RIG_BRUSH_SET ? 0 : 1;
		cr_expect_eq(dab(&d, &b), 0, "mode %d", m);
		cr_expect_eq(d.weight_offsets[21] - d.weight_offsets[20], 1);
		cr_expect_eq(weight_of(&d, 20, 0), 1);
		rig_skin_def_release(&d);
	}
	/* ... while another joint may be painted onto it */
	struct rig_skin_def d = grid_skin();
	struct rig_brush b = brush(RIG_BRUSH_ADD, 3, 20, 0, 0.5, 0.25, 0);
	cr_expect_eq(dab(&d, &b), 1);
	struct rig_skin_influence want[] = {{0, 0.75}, {3, 0.25}};
	expect_list(&d, 20, want, 2);
	rig_skin_def_release(&d);
}

Test(brush_dab, is_deterministic)
{
	struct rig_skin_def a = grid_skin(), b = grid_skin();
	for (int i = 0; i < 12; i++) {
		struct rig_brush br = brush((enum rig_brush_mode)(i % 4), (uint32_t)(i % 5), 3 + i,
					    2 + 1.5 * i, 4, 0.6, 0.3);
		dab(&a, &br);
		dab(&b, &br);
	}
	cr_assert_eq(memcmp(a.weight_offsets, b.weight_offsets,
			    (a.n_verts + 1) * sizeof *a.weight_offsets),
		     0);
	cr_assert_eq(memcmp(a.influences, b.influences,
			    a.weight_offsets[a.n_verts] * sizeof *a.influences),
		     0);
	rig_skin_def_release(&a);
	rig_skin_def_release(&b);
}

/* ---- one weight ------------------------------------------------------- */

static void expect_set_error(struct rig_skin_def *d, size_t v, uint32_t j, double w,
			     enum rig_code code, const char *pointer)
{
	struct rig_skin_def before;
	cr_assert_eq(rig_skin_def_copy(&before, d), 0);
	struct rig_errs *errs = rig_errs_new();
	cr_assert(errs);
	cr_assert_eq(rig_weight_set(d, v, j, w, errs), -1);
	cr_assert_eq(errs->total, 1, "%zu errors", errs->total);
	cr_expect_eq(errs->items[0].code, code, "%s", rig_code_name(errs->items[0].code));
	cr_expect_str_eq(errs->items[0].pointer, pointer);
	for (size_t u = 0; u < d->n_verts; u++)
		cr_assert(same_list(d, &before, u));
	rig_errs_free(errs);
	rig_skin_def_release(&before);
}

static void expect_set(struct rig_skin_def *d, size_t v, uint32_t j, double w)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert(errs);
	cr_assert_eq(rig_weight_set(d, v, j, w, errs), 0, "%s",
		     errs->count ? errs->items[0].detail : "");
	rig_errs_free(errs);
	expect_valid(d);
}

Test(weight_set, shares_the_rest_in_proportion)
{
	struct rig_skin_influence l[] = {{0, 0.5}, {1, 0.3}, {2, 0.2}};
	struct rig_skin_def d = one_list(l, 3);
	expect_set(&d, 0, 1, 0.65);
	struct rig_skin_influence want[] = {
		{0, 0.35 * 0.5 / 0.7}, {1, 0.65}, {2, 0.35 * 0.2 / 0.7}};
	expect_list(&d, 0, want, 3);
	expect_set(&d, 0, 5, 0.5); /* a new joint */
	struct rig_skin_influence want2[] = {
		{0, 0.5 * want[0].weight}, {1, 0.5 * 0.65}, {2, 0.5 * want[2].weight}, {5, 0.5}};
	expect_list(&d, 0, want2, 4);
	expect_set(&d, 0, 1, 0); /* removed */
	cr_expect_eq(d.weight_offsets[1], 3);
	cr_expect_eq(weight_of(&d, 0, 1), 0);
	expect_set(&d, 0, 5, 1); /* the others all go */
	struct rig_skin_influence want3[] = {{5, 1}};
	expect_list(&d, 0, want3, 1);
	struct rig_skin_influence far[] = {{0, 0.5}, {1, 0.5}};
	expect_list(&d, 1, far, 2);
	rig_skin_def_release(&d);
}

Test(weight_set, the_set_weight_is_kept_exactly)
{
	/* 0.2 + 0.3 + 0.5: the shares of the rest round, and the set joint's value
	 * must come back bit for bit (not renormalised past the weights rule's
	 * tolerance). */
	struct rig_skin_influence l[] = {{0, 0.2}, {1, 0.3}, {2, 0.5}};
	for (int k = 0; k < 3; k++) {
		static const double values[] = {0.5, 0.1, 1.0 / 3};
		struct rig_skin_def d = one_list(l, 3);
		expect_set(&d, 0, (uint32_t)k, values[k]);
		cr_expect_eq(weight_of(&d, 0, (uint32_t)k), values[k], "joint %d: %.17g", k,
			     weight_of(&d, 0, (uint32_t)k));
		expect_valid(&d);
		rig_skin_def_release(&d);
	}
}

Test(weight_set, a_no_op_changes_nothing)
{
	struct rig_skin_influence l[] = {{0, 0.5}, {1, 0.5}};
	struct rig_skin_def d = one_list(l, 2);
	expect_set(&d, 0, 4, 0);
	expect_set(&d, 0, 1, 0.5);
	expect_list(&d, 0, l, 2);
	rig_skin_def_release(&d);
}

Test(weight_set, errors_at_and_past_their_edges)
{
	struct rig_skin_influence l[] = {{0, 0.5}, {1, 0.5}};
	struct rig_skin_def d = one_list(l, 2);
	double bad[] = {-DBL_TRUE_MIN, nextafter(1, 2), NAN, INFINITY};
	for (size_t i = 0; i < 4; i++)
		expect_set_error(&d, 0, 0, bad[i], RIG_SKIN_WEIGHT_SET, "/weight");
	expect_set(&d, 0, 0, 0.5);
	expect_set(&d, 1, 0, 0);
	/* vertex 1 now has joint 1 alone: it cannot change, whatever the joint */
	expect_set_error(&d, 1, 1, 0.5, RIG_SKIN_WEIGHT_SET, "/vertexIndex");
	expect_set_error(&d, 1, 1, 0, RIG_SKIN_WEIGHT_SET, "/vertexIndex");
	expect_set_error(&d, 1, 0, 0.5, RIG_SKIN_WEIGHT_SET, "/vertexIndex");
	expect_set_error(&d, 2, 0, 0.5, RIG_SKIN_WEIGHT_VERTEX, "/vertexIndex");
	expect_set_error(&d, SIZE_MAX, 0, 0.5, RIG_SKIN_WEIGHT_VERTEX, "/vertexIndex");
	expect_set(&d, 0, 8, 0.5); /* the last joint */
	expect_set_error(&d, 0, 9, 0.5, RIG_SKIN_JOINTS, "/jointId");
	expect_set(&d, 0, 0, 1);
	/* single now: even the weight it has is refused */
	expect_set_error(&d, 0, 0, 1, RIG_SKIN_WEIGHT_SET, "/vertexIndex");
	rig_skin_def_release(&d);
}
