/* Unit tests of core/mesh.c: source checks (MESH_GEOMETRY, MESH_TOPOLOGY,
 * MESH_DEGENERATE) at and past their edges, every violation reported, and the
 * deformed checks (MESH_GEOMETRY, MESH_WINDING, MESH_COLLAPSED). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/mesh.h"
#include "core/rig_limits.h"
#include "support.h"

/* A unit square as two counter-clockwise triangles. */
static double square[] = {0, 0, 1, 0, 1, 1, 0, 1};
static uint32_t square_tris[] = {0, 1, 2, 0, 2, 3};

static int check(const double *xy, size_t n_verts, const uint32_t *tris, size_t n_tris,
		 struct rig_errs *errs)
{
	rig_errs_init(errs);
	return rig_mesh_check_source(xy, n_verts, tris, n_tris, errs);
}

Test(mesh_area, is_positive_for_counter_clockwise_triangles)
{
	cr_expect_eq(rig_mesh_area2(square, 0, 1, 2), 1);
	cr_expect_eq(rig_mesh_area2(square, 0, 2, 1), -1);
}

Test(mesh_source, accepts_a_valid_mesh)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check(square, 4, square_tris, 2, errs), 0);
	cr_expect_eq(errs->total, 0);
	rig_errs_free(errs);
}

Test(mesh_source, accepts_three_vertices_and_rejects_two)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	uint32_t tri[] = {0, 1, 2};
	cr_expect_eq(check(square, 3, tri, 1, errs), 0);
	cr_expect_eq(check(square, 2, tri, 1, errs), -1);
	long i = find_err(errs, RIG_MESH_GEOMETRY);
	cr_assert_geq(i, 0);
	cr_expect_str_eq(errs->items[i].pointer, "/source");
	rig_errs_free(errs);
}

Test(mesh_source, accepts_the_vertex_limit_and_rejects_one_more)
{
	size_t n = RIG_MAX_VERTICES + 1;
	double *xy = calloc(2 * n, sizeof *xy);
	memcpy(xy, square, sizeof square);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check(xy, RIG_MAX_VERTICES, square_tris, 2, errs), 0);
	cr_expect_eq(check(xy, n, square_tris, 2, errs), -1);
	cr_expect_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_MESH_GEOMETRY);
	free(xy);
	rig_errs_free(errs);
}

Test(mesh_source, rejects_zero_triangles)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check(square, 4, square_tris, 0, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_MESH_TOPOLOGY);
	cr_expect_str_eq(errs->items[0].pointer, "/triangles");
	rig_errs_free(errs);
}

Test(mesh_source, accepts_the_triangle_limit_and_rejects_one_more)
{
	size_t n = RIG_MAX_TRIANGLES + 1;
	uint32_t *tris = malloc(3 * n * sizeof *tris);
	for (size_t t = 0; t < n; t++)
		memcpy(&tris[3 * t], square_tris, 3 * sizeof *tris);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check(square, 4, tris, RIG_MAX_TRIANGLES, errs), 0);
	cr_expect_eq(check(square, 4, tris, n, errs), -1);
	cr_expect_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_MESH_TOPOLOGY);
	free(tris);
	rig_errs_free(errs);
}

Test(mesh_source, rejects_nan_and_inf_coordinates_naming_the_vertex)
{
	double xy[] = {0, 0, 1, 0, NAN, 1, 0, INFINITY};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check(xy, 4, square_tris, 2, errs), -1);
	cr_assert_eq(count_err(errs, RIG_MESH_GEOMETRY), 2);
	cr_expect_eq(errs->items[0].vertex_index, 2);
	cr_expect_str_eq(errs->items[0].pointer, "/source/2");
	cr_expect_eq(errs->items[1].vertex_index, 3);
	cr_expect_str_eq(errs->items[1].pointer, "/source/3");
	rig_errs_free(errs);
}

Test(mesh_source, accepts_the_last_index_and_rejects_one_past_it)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	uint32_t last[] = {0, 1, 3};
	uint32_t past[] = {0, 1, 4};
	cr_expect_eq(check(square, 4, last, 1, errs), 0);
	cr_expect_eq(check(square, 4, past, 1, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_MESH_TOPOLOGY);
	cr_expect_eq(errs->items[0].triangle_index, 0);
	cr_expect_str_eq(errs->items[0].pointer, "/triangles/0");
	rig_errs_free(errs);
}

Test(mesh_source, rejects_a_repeated_index_inside_a_triangle)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	uint32_t tris[] = {0, 1, 2, 2, 3, 2};
	cr_expect_eq(check(square, 4, tris, 2, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_MESH_TOPOLOGY);
	cr_expect_eq(errs->items[0].triangle_index, 1);
	cr_expect_str_eq(errs->items[0].pointer, "/triangles/1");
	rig_errs_free(errs);
}

Test(mesh_source, rejects_a_zero_area_triangle)
{
	double xy[] = {0, 0, 1, 1, 2, 2, 0, 1};
	uint32_t tris[] = {0, 3, 1, 0, 1, 2};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check(xy, 4, tris, 2, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_MESH_DEGENERATE);
	cr_expect_eq(errs->items[0].triangle_index, 1);
	rig_errs_free(errs);
}

Test(mesh_source, degenerate_threshold_is_relative_to_the_bbox)
{
	/* bbox diagonal² = 2e12, so |A| must exceed 2: a triangle of area 1 fails
	 * in this mesh although it is far from zero. */
	double xy[] = {0, 0, 2, 0, 0, 1, 1e6, 1e6};
	uint32_t tris[] = {0, 1, 2};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check(xy, 4, tris, 1, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_MESH_DEGENERATE);
	xy[2] = 4.01; /* area 2.005 */
	cr_expect_eq(check(xy, 4, tris, 1, errs), 0);
	rig_errs_free(errs);
}

Test(mesh_source, reports_every_violation_with_its_index)
{
	double xy[] = {0, 0, 1, 0, 1, 1, 0, 1, NAN, 5, 2, 2};
	uint32_t tris[] = {
		0, 1, 2, /* fine */
		0, 9, 2, /* out of range */
		3, 3, 1, /* repeated */
		0, 2, 5, /* zero area: 0, (1, 1), (2, 2) */
		0, 2, 4, /* uses the NaN vertex: reported once, as the vertex */
	};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check(xy, 6, tris, 5, errs), -1);
	cr_assert_eq(errs->total, 4);
	cr_expect_eq(errs->items[0].code, RIG_MESH_GEOMETRY);
	cr_expect_eq(errs->items[0].vertex_index, 4);
	cr_expect_eq(errs->items[1].code, RIG_MESH_TOPOLOGY);
	cr_expect_eq(errs->items[1].triangle_index, 1);
	cr_expect_eq(errs->items[2].code, RIG_MESH_TOPOLOGY);
	cr_expect_eq(errs->items[2].triangle_index, 2);
	cr_expect_eq(errs->items[3].code, RIG_MESH_DEGENERATE);
	cr_expect_eq(errs->items[3].triangle_index, 3);
	rig_errs_free(errs);
}

Test(mesh_source, counts_violations_past_the_kept_list)
{
	size_t n = 100;
	double *xy = calloc(2 * n, sizeof *xy);
	for (size_t v = 0; v < n; v++)
		xy[2 * v] = NAN;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check(xy, n, square_tris, 2, errs), -1);
	cr_expect_eq(errs->count, RIG_ERRS_KEEP);
	cr_expect_eq(errs->total, n);
	free(xy);
	rig_errs_free(errs);
}

/* ---- deformed ---- */

static int check_deformed(const double *dst, struct rig_errs *errs)
{
	rig_errs_init(errs);
	return rig_mesh_check_deformed(square, dst, 4, square_tris, 2, errs);
}

Test(mesh_deformed, accepts_a_rigid_motion)
{
	double dst[] = {10, 10, 10, 11, 9, 11, 9, 10}; /* rotated 90°, moved */
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_deformed(dst, errs), 0);
	rig_errs_free(errs);
}

Test(mesh_deformed, mirror_flips_winding_naming_each_triangle)
{
	double dst[8];
	for (int v = 0; v < 4; v++)
		dst[2 * v] = -square[2 * v], dst[2 * v + 1] = square[2 * v + 1];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_deformed(dst, errs), -1);
	cr_assert_eq(errs->total, 2);
	cr_expect_eq(errs->items[0].code, RIG_MESH_WINDING);
	cr_expect_eq(errs->items[0].triangle_index, 0);
	cr_expect_eq(errs->items[1].code, RIG_MESH_WINDING);
	cr_expect_eq(errs->items[1].triangle_index, 1);
	rig_errs_free(errs);
}

Test(mesh_deformed, squash_collapses_naming_the_triangle)
{
	double dst[8];
	for (int v = 0; v < 4; v++)
		dst[2 * v] = square[2 * v], dst[2 * v + 1] = 0;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_deformed(dst, errs), -1);
	cr_assert_eq(errs->total, 2);
	cr_expect_eq(errs->items[0].code, RIG_MESH_COLLAPSED);
	cr_expect_eq(errs->items[0].triangle_index, 0);
	cr_expect_eq(errs->items[1].triangle_index, 1);
	rig_errs_free(errs);
}

Test(mesh_deformed, collapse_threshold_is_one_millionth_of_the_source_area)
{
	double dst[8];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	for (int v = 0; v < 4; v++)
		dst[2 * v] = square[2 * v], dst[2 * v + 1] = square[2 * v + 1] * 0x1p-19;
	cr_expect_eq(check_deformed(dst, errs), 0, "2^-19 ≈ 1.9e-6 of the area stays");
	for (int v = 0; v < 4; v++)
		dst[2 * v + 1] = square[2 * v + 1] * 0x1p-20;
	cr_expect_eq(check_deformed(dst, errs), -1, "2^-20 ≈ 9.5e-7 of the area collapses");
	cr_expect_eq(errs->items[0].code, RIG_MESH_COLLAPSED);
	rig_errs_free(errs);
}

Test(mesh_deformed, only_the_folded_triangle_is_named)
{
	double dst[] = {0, 0, 1, 0, 1, 1, 2, 0.5}; /* vertex 3 crosses the diagonal */
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_deformed(dst, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_MESH_WINDING);
	cr_expect_eq(errs->items[0].triangle_index, 1);
	rig_errs_free(errs);
}

Test(mesh_deformed, rejects_a_non_finite_vertex_naming_it_and_a_triangle)
{
	double dst[] = {0, 0, 1, 0, 1, INFINITY, 0, 1};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_deformed(dst, errs), -1);
	long i = find_err(errs, RIG_MESH_GEOMETRY);
	cr_assert_geq(i, 0);
	cr_expect_eq(errs->items[i].vertex_index, 2);
	cr_expect_eq(errs->items[i].triangle_index, 0);
	cr_expect_eq(count_err(errs, RIG_MESH_WINDING) + count_err(errs, RIG_MESH_COLLAPSED), 0,
		     "the triangles of a non-finite vertex are not judged again");
	rig_errs_free(errs);
}

Test(mesh_deformed, rejects_an_area_that_overflows)
{
	double dst[] = {0, 0, 1e300, 0, 1e300, 1e300, 0, 1e300};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_deformed(dst, errs), -1);
	cr_assert_eq(errs->total, 2);
	cr_expect_eq(errs->items[0].code, RIG_MESH_GEOMETRY);
	cr_expect_eq(errs->items[0].triangle_index, 0);
	cr_expect_eq(errs->items[0].vertex_index, RIG_NO_INDEX);
	rig_errs_free(errs);
}

/* A reference verdict written here, not taken from core: every triangle keeps
 * its winding and at least 1e-6 of its source area, with finite vertices. */
static bool reference_holds(const double *src, const double *dst, size_t n_verts,
			    const uint32_t *tris, size_t n_tris)
{
	for (size_t i = 0; i < 2 * n_verts; i++)
		if (!isfinite(dst[i]))
			return false;
	for (size_t t = 0; t < n_tris; t++) {
		const uint32_t *v = &tris[3 * t];
		double s =
			(src[2 * v[1]] - src[2 * v[0]]) * (src[2 * v[2] + 1] - src[2 * v[0] + 1]) -
			(src[2 * v[1] + 1] - src[2 * v[0] + 1]) * (src[2 * v[2]] - src[2 * v[0]]);
		double d =
			(dst[2 * v[1]] - dst[2 * v[0]]) * (dst[2 * v[2] + 1] - dst[2 * v[0] + 1]) -
			(dst[2 * v[1] + 1] - dst[2 * v[0] + 1]) * (dst[2 * v[2]] - dst[2 * v[0]]);
		double kept = s > 0 ? d : -d;
		if (!(kept >= 1e-6 * fabs(s) && kept <= DBL_MAX))
			return false;
	}
	return true;
}

Test(mesh_deformed, the_fast_pass_with_source_areas_agrees_with_a_reference)
{
	/* Random fans of 1-9 triangles, each deformed so some triangles flip,
	 * collapse to just above or below the 1e-6 edge, or get a non-finite
	 * vertex. The fast pass only filters (the slow pass decides when it says
	 * no), so what matters is that it never lets a broken mesh through. */
	uint64_t x = 0xda942042e4dd58b5ull;
	size_t agree = 0, failing = 0;
	for (int round = 0; round < 20000; round++) {
		double src[2 * 11], dst[2 * 11], areas[9];
		uint32_t tris[3 * 9];
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size_t n_tris = 1 + x % 9, n_verts = n_tris + 2;
		for (size_t v = 0; v < n_verts; v++) { /* a convex fan around vertex 0 */
			double angle = v == 0 ? 0 : 0.3 * (double)v;
			double r = v == 0 ? 0 : 10;
			src[2 * v] = r * cos(angle);
			src[2 * v + 1] = r * sin(angle);
		}
		for (size_t t = 0; t < n_tris; t++) {
			tris[3 * t] = 0;
			tris[3 * t + 1] = (uint32_t)t + 1;
			tris[3 * t + 2] = (uint32_t)t + 2;
		}
		rig_mesh_areas2(areas, src, tris, n_tris);
		double sy = 1;
		switch ((x >> 8) % 6) {
		case 0:
			sy = 1;
			break; /* unchanged */
		case 1:
			sy = -1;
			break; /* mirrored: every triangle flips */
		case 2:
			sy = 1e-6;
			break; /* exactly at the collapse edge */
		case 3:
			sy = 1e-6 * (1 - 1e-12);
			break; /* just below it */
		case 4:
			sy = 1e-6 * (1 + 1e-12);
			break; /* just above it */
		default:
			sy = 0.5;
			break;
		}
		for (size_t v = 0; v < n_verts; v++) {
			dst[2 * v] = src[2 * v];
			dst[2 * v + 1] = src[2 * v + 1] * sy;
		}
		if ((x >> 16) % 7 ==
		    0) /* one vertex moved across its neighbour: one triangle folds */
			dst[2 * (1 + (x >> 20) % (n_verts - 1))] *= -3;
		if ((x >> 24) % 11 == 0)
			dst[(x >> 28) % (2 * n_verts)] = (x >> 32) % 2 ? NAN : INFINITY;
		struct rig_errs *errs = rig_errs_new();
		cr_assert_not_null(errs);
		bool fast = rig_mesh_check_deformed_areas(src, areas, dst, n_verts, tris, n_tris,
							  errs) == 0;
		bool want = reference_holds(src, dst, n_verts, tris, n_tris);
		cr_assert_eq(fast, want, "round %d: %zu triangles, fast says %d", round, n_tris,
			     fast);
		cr_assert_eq(fast, errs->total == 0);
		agree++;
		failing += !want;
		rig_errs_free(errs);
	}
	cr_assert_gt(failing, 2000, "the rounds exercise failures (%zu)", failing);
	cr_assert_gt(agree - failing, 2000, "and passes");
}

Test(mesh_deformed, the_fast_pass_decides_the_exact_collapse_edge)
{
	/* Three separate triangles of source area 2 (2A = 2), each squashed in
	 * turn to 2A' = 1e-6 · 2 exactly (kept: the rule is ≥), then one step
	 * below (collapsed). */
	double src[18], areas[3];
	uint32_t tris[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
	for (int t = 0; t < 3; t++) {
		double o = 10.0 * t;
		double tri[6] = {o, 0, o + 1, 0, o, 2};
		memcpy(&src[6 * t], tri, sizeof tri);
	}
	rig_mesh_areas2(areas, src, tris, 3);
	double edge = 1e-6 * 2.0;
	for (int which = 0; which < 3; which++) {
		for (int below = 0; below < 2; below++) {
			double dst[18];
			memcpy(dst, src, sizeof dst);
			dst[6 * which + 5] = below ? nextafter(edge, 0) : edge;
			struct rig_errs *errs = rig_errs_new();
			cr_assert_not_null(errs);
			int rc = rig_mesh_check_deformed_areas(src, areas, dst, 9, tris, 3, errs);
			cr_assert_eq(rc, below ? -1 : 0, "triangle %d, %s the edge", which,
				     below ? "below" : "at");
			rig_errs_free(errs);
		}
	}
}
