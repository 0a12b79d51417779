/* core/puppet_weights.c, core/puppet_solve.c and core/puppet_eval.c: the
 * harmonic weights, LBS, ARAP and the overlap order, by their properties
 * (issue 24). The independent oracle comparison is test_puppet_oracle.py. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/puppet.h"
#include "tests/unit/core/puppet_support.h"

#define PI 3.14159265358979323846

/* Evaluates pup at frame with solver fn into a new array (2 · n_verts). */
static double *run_lbs(const struct rig_puppet *pup, double frame)
{
	const struct rig_puppet_def *d = rig_puppet_def_of(pup);
	double *out = calloc(2 * d->n_verts, sizeof *out);
	struct rig_puppet_pin_pose poses[16];
	rig_puppet_pose_at(poses, pup, frame);
	cr_assert_eq(rig_puppet_lbs(out, pup, poses), 0);
	return out;
}

static double *run_arap(const struct rig_puppet *pup, double frame, enum rig_puppet_ran *ran)
{
	const struct rig_puppet_def *d = rig_puppet_def_of(pup);
	double *out = calloc(2 * d->n_verts, sizeof *out);
	struct rig_puppet_pin_pose poses[16];
	rig_puppet_pose_at(poses, pup, frame);
	cr_assert_eq(rig_puppet_arap(out, ran, pup, poses), 0);
	return out;
}

/* ---- weights ---- */

Test(puppet_weights, rows_sum_to_one_in_range_and_pins_are_one_hot)
{
	struct rig_puppet_def d = puppet_grid(9, 7, 10);
	puppet_add_pin(&d, "a", 0, 0);
	puppet_add_pin(&d, "b", 80, 60);
	puppet_add_pin(&d, "c", 40, 30);
	struct rig_puppet *pup = puppet_build(&d);
	const double *w = rig_puppet_weights(pup);
	for (size_t v = 0; v < d.n_verts; v++) {
		double sum = 0;
		for (size_t p = 0; p < 3; p++) {
			cr_assert(w[3 * v + p] >= 0 && w[3 * v + p] <= 1, "w[%zu][%zu] = %g", v, p,
				  w[3 * v + p]);
			sum += w[3 * v + p];
		}
		cr_assert(fabs(sum - 1) <= 8e-16, "row %zu sums to %.17g", v, sum);
	}
	for (size_t p = 0; p < 3; p++) {
		uint32_t v = rig_puppet_pin_vertex(pup, p);
		for (size_t q = 0; q < 3; q++)
			cr_expect_eq(w[3 * v + q], p == q ? 1.0 : 0.0);
	}
	/* harmonic: a free vertex is the average of its neighbours (unit
	 * weights); vertex 10 (x = 10, y = 10) has six neighbours in this grid */
	uint32_t nb[6] = {0, 1, 9, 11, 19, 20};
	for (size_t p = 0; p < 3; p++) {
		double avg = 0;
		for (int k = 0; k < 6; k++)
			avg += w[3 * nb[k] + p] / 6;
		cr_expect(fabs(avg - w[3 * 10 + p]) < 1e-12, "pin %zu: %g vs %g", p, avg,
			  w[30 + p]);
	}
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

Test(puppet_weights, one_pin_weighs_one_everywhere)
{
	struct rig_puppet_def d = puppet_grid(4, 4, 1);
	puppet_add_pin(&d, "only", 2, 2);
	struct rig_puppet *pup = puppet_build(&d);
	const double *w = rig_puppet_weights(pup);
	for (size_t v = 0; v < d.n_verts; v++)
		cr_expect_eq(w[v], 1.0);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

/* Two grids side by side (vertices 0-8 at x 0..2, 9-17 at x 10..12) and a
 * third (18-26 at x 20..22); pins on the first only when asked. */
static struct rig_puppet_def three_islands(void)
{
	struct rig_puppet_def d = puppet_grid(3, 3, 1);
	size_t nv = d.n_verts, nt = d.n_tris;
	d.source = realloc(d.source, 6 * nv * sizeof *d.source);
	d.triangles = realloc(d.triangles, 9 * nt * sizeof *d.triangles);
	for (size_t k = 1; k < 3; k++) {
		for (size_t v = 0; v < nv; v++) {
			d.source[2 * (k * nv + v)] = d.source[2 * v] + 10.0 * (double)k;
			d.source[2 * (k * nv + v) + 1] = d.source[2 * v + 1];
		}
		for (size_t i = 0; i < 3 * nt; i++)
			d.triangles[3 * k * nt + i] = d.triangles[i] + (uint32_t)(k * nv);
	}
	d.n_verts = 3 * nv;
	d.n_tris = 3 * nt;
	return d;
}

Test(puppet_weights, components_without_pins_follow_the_nearest_pin)
{
	struct rig_puppet_def d = three_islands();
	puppet_add_pin(&d, "left", 0, 0);  /* vertex 0 */
	puppet_add_pin(&d, "right", 2, 2); /* vertex 8, nearest to the middle island */
	struct rig_puppet *pup = puppet_build(&d);
	const double *w = rig_puppet_weights(pup);
	for (size_t v = 9; v < 27; v++) {
		cr_expect_eq(w[2 * v], 0.0, "vertex %zu", v);
		cr_expect_eq(w[2 * v + 1], 1.0, "vertex %zu", v);
	}
	/* the loose islands move with "right" as a whole; ARAP leaves them at LBS */
	puppet_move(&d.pins[1], 1, 0);
	d.pins[1].rotation_deg = 10;
	rig_puppet_free(pup);
	pup = puppet_build(&d);
	enum rig_puppet_ran ran;
	double *lbs = run_lbs(pup, 0), *arap = run_arap(pup, 0, &ran);
	cr_expect_eq(ran, RIG_PUPPET_RAN_ARAP);
	cr_expect_arr_eq(&lbs[18], &arap[18], 36 * sizeof *lbs);
	free(lbs);
	free(arap);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

Test(puppet_weights, a_loose_component_ties_to_the_lowest_pin_vertex)
{
	struct rig_puppet_def d = three_islands();
	/* pins on the outer islands at vertices 5 (x 2, y 1) and 21 (x 20, y 1):
	 * the middle island's vertices 9 and 11 lie 8 from each */
	puppet_add_pin(&d, "low", 2, 1);
	puppet_add_pin(&d, "high", 20, 1);
	cr_assert_eq(rig_puppet_nearest_vertex(d.source, d.n_verts, 20, 1), 21);
	struct rig_puppet *pup = puppet_build(&d);
	const double *w = rig_puppet_weights(pup);
	for (size_t v = 9; v < 18; v++)
		cr_expect_eq(w[2 * v], 1.0, "vertex %zu", v);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

/* ---- LBS ---- */

Test(puppet_lbs, rotation_zero_scale_one_is_translate_only)
{
	struct rig_puppet_def d = puppet_grid(6, 6, 10);
	puppet_add_pin(&d, "a", 0, 0);
	puppet_add_pin(&d, "b", 50, 50);
	puppet_add_pin(&d, "c", 50, 0);
	puppet_move(&d.pins[0], 3, 1);
	puppet_move(&d.pins[1], -7, 2.5);
	struct rig_puppet *pup = puppet_build(&d);
	double *out = run_lbs(pup, 0);
	const double *w = rig_puppet_weights(pup);
	double dx[3] = {3, -7, 0}, dy[3] = {1, 2.5, 0};
	for (size_t v = 0; v < d.n_verts; v++) {
		double ax = 0, ay = 0;
		for (size_t p = 0; p < 3; p++) {
			if (w[3 * v + p] == 0)
				continue;
			ax += w[3 * v + p] * dx[p];
			ay += w[3 * v + p] * dy[p];
		}
		cr_expect_eq(out[2 * v], d.source[2 * v] + ax, "vertex %zu", v);
		cr_expect_eq(out[2 * v + 1], d.source[2 * v + 1] + ay, "vertex %zu", v);
	}
	free(out);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

Test(puppet_lbs, a_single_pin_is_its_similarity)
{
	struct rig_puppet_def d = puppet_grid(3, 3, 10);
	struct rig_puppet_pin *pin = puppet_add_pin(&d, "p", 10, 10);
	pin->rotation_deg = 90;
	pin->scale = 2;
	puppet_move(pin, 5, 0);
	struct rig_puppet *pup = puppet_build(&d);
	double *out = run_lbs(pup, 0);
	/* vertex 0 (0, 0): (15, 10) + 2 R(90°) (−10, −10) = (15 + 20, 10 − 20) */
	cr_expect(fabs(out[0] - 35) < 1e-12 && fabs(out[1] + 10) < 1e-12, "(%g, %g)", out[0],
		  out[1]);
	enum rig_puppet_ran ran;
	double *arap = run_arap(pup, 0, &ran);
	cr_expect_eq(ran, RIG_PUPPET_RAN_LBS_FALLBACK);
	cr_expect_arr_eq(arap, out, 18 * sizeof *out);
	free(arap);
	free(out);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

Test(puppet_lbs, no_pin_is_the_source)
{
	struct rig_puppet_def d = puppet_grid(3, 3, 1);
	struct rig_puppet *pup = puppet_build(&d);
	cr_expect_null(rig_puppet_weights(pup));
	double out[18];
	enum rig_puppet_ran ran;
	struct rig_errs *errs = rig_errs_new();
	cr_expect_eq(rig_puppet_evaluate(out, &ran, pup, 0, errs), 0);
	cr_expect_eq(ran, RIG_PUPPET_RAN_LBS_FALLBACK);
	cr_expect_arr_eq(out, d.source, sizeof out);
	rig_errs_free(errs);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

/* ---- ARAP ---- */

/* An 11 × 3 strip, pins at both ends, twisted ±90°. */
static struct rig_puppet_def candy(void)
{
	struct rig_puppet_def d = puppet_grid(11, 3, 10);
	puppet_add_pin(&d, "left", 0, 10)->rotation_deg = 90;
	puppet_add_pin(&d, "right", 100, 10)->rotation_deg = -90;
	return d;
}

Test(puppet_arap, keeps_areas_where_lbs_candy_wraps)
{
	struct rig_puppet_def d = candy();
	struct rig_puppet *pup = puppet_build(&d);
	enum rig_puppet_ran ran;
	double *lbs = run_lbs(pup, 0), *arap = run_arap(pup, 0, &ran);
	cr_expect_eq(ran, RIG_PUPPET_RAN_ARAP);
	double lbs_min = puppet_min_area_ratio(&d, lbs), arap_min = puppet_min_area_ratio(&d, arap);
	cr_expect_lt(lbs_min, 0.05, "lbs keeps %g of an area", lbs_min);
	cr_expect_gt(arap_min, 0.5, "arap keeps only %g of an area", arap_min);
	free(lbs);
	free(arap);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

Test(puppet_arap, fixes_each_pin_vertex_at_rest_plus_displacement)
{
	struct rig_puppet_def d = puppet_grid(5, 5, 10);
	puppet_add_pin(&d, "a", 1.25, 0.5); /* between vertices: anchors to 0 */
	puppet_add_pin(&d, "b", 39, 41);    /* anchors to 24 */
	d.pins[0].rotation_deg = 30;
	puppet_move(&d.pins[0], 2, 3);
	puppet_move(&d.pins[1], -4, 1);
	struct rig_puppet *pup = puppet_build(&d);
	enum rig_puppet_ran ran;
	double *arap = run_arap(pup, 0, &ran);
	cr_expect_eq(ran, RIG_PUPPET_RAN_ARAP);
	cr_expect_eq(arap[0], 0 + 2.0);
	cr_expect_eq(arap[1], 0 + 3.0);
	cr_expect_eq(arap[48], 40 - 4.0);
	cr_expect_eq(arap[49], 40 + 1.0);
	free(arap);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

/* Two definitions that differ only in stiffness, evaluated at frame 0. */
static void expect_same_arap(const struct rig_puppet_def *a, const struct rig_puppet_def *b)
{
	struct rig_puppet *pa = puppet_build(a), *pb = puppet_build(b);
	enum rig_puppet_ran ra, rb;
	double *xa = run_arap(pa, 0, &ra), *xb = run_arap(pb, 0, &rb);
	cr_expect_eq(ra, RIG_PUPPET_RAN_ARAP);
	cr_expect_eq(rb, RIG_PUPPET_RAN_ARAP);
	cr_expect_arr_eq(xa, xb, 2 * a->n_verts * sizeof *xa);
	free(xa);
	free(xb);
	rig_puppet_free(pa);
	rig_puppet_free(pb);
}

static struct rig_puppet_def bent(void)
{
	struct rig_puppet_def d = puppet_grid(8, 5, 10);
	puppet_add_pin(&d, "a", 0, 0);
	puppet_add_pin(&d, "b", 70, 40);
	puppet_add_pin(&d, "c", 40, 0);
	puppet_move(&d.pins[1], 15, -20);
	d.pins[2].rotation_deg = 25;
	return d;
}

Test(puppet_arap, zero_stiffness_is_the_plain_cotangent_path_bit_for_bit)
{
	/* a: static stiffness 0, the prepared plain factorisation; b: static
	 * stiffness 2 keyed to 0 at frame 0, so the frame refactors through the
	 * stiffness path with every s = 0 */
	struct rig_puppet_def a = bent(), b = bent();
	for (size_t p = 0; p < 3; p++) {
		b.pins[p].stiffness = 2;
		puppet_key(&b.pins[p], RIG_PIN_CH_STIFFNESS, 0, 0);
	}
	expect_same_arap(&a, &b);
	rig_puppet_def_release(&a);
	rig_puppet_def_release(&b);
}

Test(puppet_arap, keyed_stiffness_solves_as_the_same_static_stiffness)
{
	struct rig_puppet_def a = bent(), b = bent();
	a.pins[0].stiffness = 1.5;
	puppet_key(&b.pins[0], RIG_PIN_CH_STIFFNESS, -10, 1.5);
	expect_same_arap(&a, &b);
	/* and stiffness changes the result */
	struct rig_puppet_def c = bent();
	struct rig_puppet *pa = puppet_build(&a), *pc = puppet_build(&c);
	enum rig_puppet_ran r;
	double *xa = run_arap(pa, 0, &r), *xc = run_arap(pc, 0, &r);
	cr_expect_neq(memcmp(xa, xc, 2 * a.n_verts * sizeof *xa), 0);
	free(xa);
	free(xc);
	rig_puppet_free(pa);
	rig_puppet_free(pc);
	rig_puppet_def_release(&a);
	rig_puppet_def_release(&b);
	rig_puppet_def_release(&c);
}

Test(puppet_arap, max_rotation_clamps_authored_rotations)
{
	struct rig_puppet_def a = bent(), b = bent();
	a.has_max_rotation = b.has_max_rotation = true;
	a.max_rotation_deg = b.max_rotation_deg = 10;
	a.pins[2].rotation_deg = 10;
	b.pins[2].rotation_deg = 80;
	expect_same_arap(&a, &b);
	/* and it clamps the fitted angles: a tighter clamp moves the result */
	struct rig_puppet_def c = bent();
	c.has_max_rotation = true;
	c.max_rotation_deg = 1;
	c.pins[2].rotation_deg = 0;
	struct rig_puppet_def e = bent();
	e.pins[2].rotation_deg = 0;
	struct rig_puppet *pc = puppet_build(&c), *pe = puppet_build(&e);
	enum rig_puppet_ran r;
	double *xc = run_arap(pc, 0, &r), *xe = run_arap(pe, 0, &r);
	cr_expect_neq(memcmp(xc, xe, 2 * c.n_verts * sizeof *xc), 0);
	free(xc);
	free(xe);
	rig_puppet_free(pc);
	rig_puppet_free(pe);
	rig_puppet_def_release(&a);
	rig_puppet_def_release(&b);
	rig_puppet_def_release(&c);
	rig_puppet_def_release(&e);
}

Test(puppet_arap, two_runs_give_the_same_bits)
{
	struct rig_puppet_def d = bent();
	d.pins[0].stiffness = 0.7;
	puppet_key(&d.pins[1], RIG_PIN_CH_SCALE, 0, 1);
	puppet_key(&d.pins[1], RIG_PIN_CH_SCALE, 10, 1.4);
	puppet_key(&d.pins[2], RIG_PIN_CH_STIFFNESS, 0, 0);
	puppet_key(&d.pins[2], RIG_PIN_CH_STIFFNESS, 10, 3);
	struct rig_puppet *p1 = puppet_build(&d), *p2 = puppet_build(&d);
	struct rig_errs *errs = rig_errs_new();
	double x1[80], x2[80], x3[80];
	enum rig_puppet_ran r1, r2, r3;
	cr_assert_eq(rig_puppet_evaluate(x1, &r1, p1, 4.5, errs), 0);
	cr_assert_eq(rig_puppet_evaluate(x2, &r2, p2, 4.5, errs), 0);
	cr_assert_eq(rig_puppet_evaluate(x3, &r3, p1, 4.5, errs), 0);
	cr_expect_eq(r1, RIG_PUPPET_RAN_ARAP);
	cr_expect_arr_eq(x1, x2, sizeof x1);
	cr_expect_arr_eq(x1, x3, sizeof x1);
	rig_errs_free(errs);
	rig_puppet_free(p1);
	rig_puppet_free(p2);
	rig_puppet_def_release(&d);
}

Test(puppet_arap, the_lbs_solver_runs_lbs)
{
	struct rig_puppet_def d = bent();
	d.solver = RIG_PUPPET_SOLVER_LBS;
	struct rig_puppet *pup = puppet_build(&d);
	struct rig_puppet_pin_pose poses[3];
	rig_puppet_pose_at(poses, pup, 0);
	double out[80];
	enum rig_puppet_ran ran;
	cr_assert_eq(rig_puppet_deform(out, &ran, pup, poses), 0);
	cr_expect_eq(ran, RIG_PUPPET_RAN_LBS);
	double *lbs = run_lbs(pup, 0);
	cr_expect_arr_eq(out, lbs, sizeof out);
	free(lbs);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

/* ---- overlap ---- */

Test(puppet_overlap, source_order_without_overlap)
{
	struct rig_puppet_def d = bent();
	struct rig_puppet *pup = puppet_build(&d);
	struct rig_puppet_pin_pose poses[3];
	rig_puppet_pose_at(poses, pup, 0);
	uint32_t order[56];
	cr_assert_eq(rig_puppet_triangle_order(order, pup, poses), 0);
	for (uint32_t t = 0; t < 56; t++)
		cr_expect_eq(order[t], t);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

Test(puppet_overlap, the_overlapping_pin_is_drawn_last_and_ties_keep_order)
{
	struct rig_puppet_def d = bent();
	puppet_key(&d.pins[1], RIG_PIN_CH_OVERLAP, 0, 80); /* b, at vertex 39 */
	struct rig_puppet *pup = puppet_build(&d);
	struct rig_puppet_pin_pose poses[3];
	rig_puppet_pose_at(poses, pup, 0);
	uint32_t order[56];
	double depth[40];
	cr_assert_eq(rig_puppet_triangle_order(order, pup, poses), 1);
	rig_puppet_depth(depth, pup, poses);
	cr_expect_eq(depth[39], 80);
	cr_expect_eq(depth[0], 0);
	/* ascending mean depth, ties by index */
	for (size_t k = 1; k < 56; k++) {
		const uint32_t *a = &d.triangles[3 * order[k - 1]], *b = &d.triangles[3 * order[k]];
		double da = (depth[a[0]] + depth[a[1]] + depth[a[2]]) / 3;
		double db = (depth[b[0]] + depth[b[1]] + depth[b[2]]) / 3;
		cr_expect(da < db || (da == db && order[k - 1] < order[k]), "at %zu", k);
	}
	/* the last triangle drawn touches b's vertex */
	const uint32_t *last = &d.triangles[3 * order[55]];
	cr_expect(last[0] == 39 || last[1] == 39 || last[2] == 39);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

Test(puppet_overlap, extent_flattens_the_falloff)
{
	struct rig_puppet_def a = bent(), b = bent();
	a.pins[1].overlap = b.pins[1].overlap = 50;
	b.pins[1].overlap_extent = 4;
	struct rig_puppet *pa = puppet_build(&a), *pb = puppet_build(&b);
	struct rig_puppet_pin_pose poses[3];
	double da[40], db[40];
	rig_puppet_pose_at(poses, pa, 0);
	rig_puppet_depth(da, pa, poses);
	rig_puppet_depth(db, pb, poses);
	/* vertex 20 (x 40, y 20), well away from b: reached further with extent 4 */
	cr_expect_gt(db[20], da[20]);
	cr_expect_eq(db[39], 50);
	for (size_t v = 0; v < 40; v++)
		cr_expect(isfinite(db[v]) && db[v] >= 0 && db[v] <= 50);
	rig_puppet_free(pa);
	rig_puppet_free(pb);
	rig_puppet_def_release(&a);
	rig_puppet_def_release(&b);
}

/* ---- small systems ---- */

Test(puppet_arap, every_vertex_a_pin_has_no_unknown)
{
	struct rig_puppet_def d = puppet_grid(2, 2, 10);
	puppet_add_pin(&d, "a", 0, 0);
	puppet_add_pin(&d, "b", 10, 0);
	puppet_add_pin(&d, "c", 0, 10);
	puppet_add_pin(&d, "d", 10, 10);
	puppet_move(&d.pins[3], 1, 2);
	struct rig_puppet *pup = puppet_build(&d);
	enum rig_puppet_ran ran;
	double *x = run_arap(pup, 0, &ran);
	cr_expect_eq(ran, RIG_PUPPET_RAN_ARAP);
	double want[8] = {0, 0, 10, 0, 0, 10, 11, 12};
	cr_expect_arr_eq(x, want, sizeof want);
	free(x);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}

Test(puppet_arap, one_unknown_between_two_pins)
{
	struct rig_puppet_def d = puppet_grid(3, 1, 10);
	d.n_tris = 1;
	d.triangles = realloc(d.triangles, 3 * sizeof *d.triangles);
	d.source[3] = 5; /* (0, 0), (10, 5), (20, 0): one triangle */
	d.triangles[0] = 0, d.triangles[1] = 2, d.triangles[2] = 1;
	puppet_add_pin(&d, "a", 0, 0);
	puppet_add_pin(&d, "b", 20, 0);
	puppet_move(&d.pins[1], 10, 0);
	struct rig_puppet *pup = puppet_build(&d);
	struct rig_errs *errs = rig_errs_new();
	double x[6];
	enum rig_puppet_ran ran;
	cr_assert_eq(rig_puppet_evaluate(x, &ran, pup, 0, errs), 0, "%s", errs->items[0].detail);
	cr_expect_eq(ran, RIG_PUPPET_RAN_ARAP);
	cr_expect(isfinite(x[2]) && isfinite(x[3]) && x[3] > 0);
	rig_errs_free(errs);
	rig_puppet_free(pup);
	rig_puppet_def_release(&d);
}
