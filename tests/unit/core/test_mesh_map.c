/* Unit tests of core/mesh_map.c: the index answers exactly what the reference
 * scan answers (same triangle, bit-identical weights and distance, same inside
 * flag) on random and adversarial meshes — points on edges and shared
 * vertices, far outside, inside holes, overlapping and duplicated triangles,
 * slivers, large offsets, coordinates past the index's safe range — and the
 * index stays inside its memory bound. Over 60,000 points in all. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/mesh.h"
#include "core/mesh_map.h"
#include "support.h"

/* ---- a growable mesh and point set ---- */

struct mesh {
	double *src;
	size_t n_verts, cap_verts;
	uint32_t *tris;
	size_t n_tris, cap_tris;
};

static uint32_t add_vertex(struct mesh *m, double x, double y)
{
	if (m->n_verts == m->cap_verts) {
		m->cap_verts = m->cap_verts ? 2 * m->cap_verts : 64;
		m->src = realloc(m->src, 2 * m->cap_verts * sizeof *m->src);
		cr_assert_not_null(m->src);
	}
	m->src[2 * m->n_verts] = x;
	m->src[2 * m->n_verts + 1] = y;
	return (uint32_t)m->n_verts++;
}

static void add_triangle(struct mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
	if (m->n_tris == m->cap_tris) {
		m->cap_tris = m->cap_tris ? 2 * m->cap_tris : 64;
		m->tris = realloc(m->tris, 3 * m->cap_tris * sizeof *m->tris);
		cr_assert_not_null(m->tris);
	}
	uint32_t *t = &m->tris[3 * m->n_tris++];
	t[0] = a;
	t[1] = b;
	t[2] = c;
}

static void mesh_release(struct mesh *m)
{
	free(m->src);
	free(m->tris);
	memset(m, 0, sizeof *m);
}

struct points {
	double *xy;
	size_t n, cap;
};

static void add_point(struct points *p, double x, double y)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->xy = realloc(p->xy, 2 * p->cap * sizeof *p->xy);
		cr_assert_not_null(p->xy);
	}
	p->xy[2 * p->n] = x;
	p->xy[2 * p->n + 1] = y;
	p->n++;
}

static const double *vertex(const struct mesh *m, size_t t, int k)
{
	return &m->src[2 * m->tris[3 * t + k]];
}

/* Adds, per triangle picked at random, points on its edges (at t = 0, ¼, ½, 1
 * and random t), its vertices and its centroid. */
static void add_edge_points(struct points *p, const struct mesh *m, struct rng *r, size_t n)
{
	static const double ts[] = {0, 0.25, 0.5, 1};
	for (size_t i = 0; i < n; i++) {
		size_t t = rng_below(r, m->n_tris);
		int k = (int)rng_below(r, 3);
		const double *a = vertex(m, t, k), *b = vertex(m, t, (k + 1) % 3);
		double s = i % 5 == 4 ? rng_range(r, 0, 1) : ts[i % 4];
		add_point(p, a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]));
		if (i % 7 == 0) {
			const double *c = vertex(m, t, (k + 2) % 3);
			add_point(p, (a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3);
		}
	}
}

/* Adds each vertex of n random triangles moved by 1 to 4 ulps in random
 * directions: the computed predicate accepts some of these points although
 * they lie outside the triangle's exact bounding box, which the index's box
 * padding must cover. */
static void add_nudged_vertices(struct points *p, const struct mesh *m, struct rng *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t t = rng_below(r, m->n_tris);
		for (int k = 0; k < 3; k++) {
			double x = vertex(m, t, k)[0], y = vertex(m, t, k)[1];
			for (size_t u = 0, steps = 1 + rng_below(r, 4); u < steps; u++) {
				x = nextafter(x, rng_below(r, 2) ? INFINITY : -INFINITY);
				y = nextafter(y, rng_below(r, 2) ? INFINITY : -INFINITY);
			}
			add_point(p, x, y);
		}
	}
}

/* Adds n points uniform in the mesh's box grown by `grow` on each side, and a
 * few far away in every direction. */
static void add_spread_points(struct points *p, const struct mesh *m, struct rng *r, size_t n,
			      double grow)
{
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
	for (size_t v = 0; v < m->n_verts; v++)
		for (int k = 0; k < 2; k++) {
			lo[k] = fmin(lo[k], m->src[2 * v + k]);
			hi[k] = fmax(hi[k], m->src[2 * v + k]);
		}
	double gx = grow * (hi[0] - lo[0]), gy = grow * (hi[1] - lo[1]);
	for (size_t i = 0; i < n; i++)
		add_point(p, rng_range(r, lo[0] - gx, hi[0] + gx),
			  rng_range(r, lo[1] - gy, hi[1] + gy));
	for (int i = 0; i < 64; i++) {
		double a = rng_range(r, 0, 2 * M_PI), d = pow(10, rng_range(r, 1, 12));
		add_point(p, 0.5 * (lo[0] + hi[0]) + d * cos(a),
			  0.5 * (lo[1] + hi[1]) + d * sin(a));
	}
}

static bool same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* Every point located by the index and by the scan: the same site, bit for bit. */
static void expect_index_matches_scan(const struct mesh *m, const struct points *p)
{
	struct rig_mesh_index *ix = rig_mesh_index_new(m->src, m->tris, m->n_tris);
	cr_assert_not_null(ix);
	size_t mismatches = 0;
	for (size_t i = 0; i < p->n; i++) {
		double x = p->xy[2 * i], y = p->xy[2 * i + 1];
		struct rig_mesh_site want = rig_mesh_locate(m->src, m->tris, m->n_tris, x, y);
		struct rig_mesh_site got = rig_mesh_index_locate(ix, x, y);
		bool same = got.triangle == want.triangle && got.inside == want.inside &&
			    same_double(got.distance, want.distance);
		for (int k = 0; k < 3; k++)
			same = same && same_double(got.w[k], want.w[k]);
		if (!same && mismatches++ < 5)
			cr_log_error("point %zu (%.17g, %.17g): index t=%u in=%d d=%.17g w0=%.17g, "
				     "scan t=%u in=%d d=%.17g w0=%.17g",
				     i, x, y, got.triangle, got.inside, got.distance, got.w[0],
				     want.triangle, want.inside, want.distance, want.w[0]);
	}
	cr_expect_eq(mismatches, 0, "%zu of %zu points located differently", mismatches, p->n);
	cr_expect_leq(rig_mesh_index_bytes(ix),
		      RIG_MESH_INDEX_BYTES_PER_TRIANGLE * m->n_tris + 256);
	rig_mesh_index_free(ix);
}

/* A w × h grid of cells `step` wide at (x0, y0), two triangles per cell;
 * jitter moves inner vertices by up to jitter · step; cells for which skip()
 * is true are left out (holes). */
static void grid_mesh(struct mesh *m, size_t w, size_t h, double x0, double y0, double step,
		      double jitter, struct rng *r, bool (*skip)(size_t, size_t))
{
	size_t base = m->n_verts;
	for (size_t j = 0; j <= h; j++)
		for (size_t i = 0; i <= w; i++) {
			bool inner = i > 0 && j > 0 && i < w && j < h;
			double jx = inner && jitter ? rng_range(r, -jitter, jitter) * step : 0;
			double jy = inner && jitter ? rng_range(r, -jitter, jitter) * step : 0;
			add_vertex(m, x0 + (double)i * step + jx, y0 + (double)j * step + jy);
		}
	for (size_t j = 0; j < h; j++)
		for (size_t i = 0; i < w; i++) {
			if (skip && skip(i, j))
				continue;
			uint32_t v = (uint32_t)(base + j * (w + 1) + i);
			uint32_t right = v + 1, up = v + (uint32_t)(w + 1);
			add_triangle(m, v, right, up + 1);
			add_triangle(m, v, up + 1, up);
		}
}

static bool holes(size_t i, size_t j)
{
	return (i >= 10 && i < 16 && j >= 12 && j < 20) || (i * 7 + j * 13) % 29 == 0;
}

Test(mesh_index, matches_the_scan_on_a_jittered_grid_with_holes)
{
	struct rng r = {1};
	struct mesh m = {0};
	grid_mesh(&m, 40, 40, -3, 5, 0.75, 0.3, &r, holes);
	struct points p = {0};
	add_spread_points(&p, &m, &r, 8000, 0.3);
	add_edge_points(&p, &m, &r, 4000);
	add_nudged_vertices(&p, &m, &r, 3000);
	for (size_t i = 10; i < 16; i++) /* inside the rectangular hole */
		for (size_t j = 12; j < 20; j++)
			add_point(&p, -3 + ((double)i + 0.5) * 0.75, 5 + ((double)j + 0.5) * 0.75);
	expect_index_matches_scan(&m, &p);
	free(p.xy);
	mesh_release(&m);
}

Test(mesh_index, matches_the_scan_on_exact_grid_points_edges_and_corners)
{
	/* integer coordinates: points on shared edges and vertices are exact, and
	 * points outside the corners are equally near several triangles (ties). */
	struct rng r = {2};
	struct mesh m = {0};
	grid_mesh(&m, 30, 20, 0, 0, 1, 0, &r, holes);
	struct points p = {0};
	for (int j = -4; j <= 48; j++)
		for (int i = -4; i <= 68; i++)
			add_point(&p, i * 0.5, j * 0.5);
	for (int i = 0; i < 2000; i++) /* on the diagonals */
		add_point(&p, (double)(i % 31) + (i % 3) * 0.25, (double)(i % 21) + (i % 3) * 0.25);
	expect_index_matches_scan(&m, &p);
	free(p.xy);
	mesh_release(&m);
}

Test(mesh_index, matches_the_scan_on_overlapping_duplicated_and_clockwise_triangles)
{
	/* a soup: the first containing triangle wins, so overlaps test the index order */
	struct rng r = {3};
	struct mesh m = {0};
	for (int t = 0; t < 3000; t++) {
		double cx = rng_range(&r, -100, 100), cy = rng_range(&r, -100, 100);
		double s = pow(10, rng_range(&r, -1, 1.3));
		uint32_t a = add_vertex(&m, cx + s * rng_range(&r, -1, 1),
					cy + s * rng_range(&r, -1, 1));
		uint32_t b = add_vertex(&m, cx + s * rng_range(&r, -1, 1),
					cy + s * rng_range(&r, -1, 1));
		uint32_t c = add_vertex(&m, cx + s * rng_range(&r, -1, 1),
					cy + s * rng_range(&r, -1, 1));
		if (fabs(rig_mesh_area2(m.src, a, b, c)) < 1e-9)
			continue;
		add_triangle(&m, a, b, c);
		if (t % 10 == 0)
			add_triangle(&m, a, b, c); /* the same triangle again: ties to the lower */
		if (t % 10 == 1) { /* the same place with other vertices, clockwise */
			uint32_t a2 = add_vertex(&m, m.src[2 * a], m.src[2 * a + 1]);
			add_triangle(&m, c, b, a2);
		}
	}
	struct points p = {0};
	add_spread_points(&p, &m, &r, 8000, 0.2);
	add_edge_points(&p, &m, &r, 4000);
	add_nudged_vertices(&p, &m, &r, 3000);
	expect_index_matches_scan(&m, &p);
	free(p.xy);
	mesh_release(&m);
}

Test(mesh_index, matches_the_scan_on_slivers)
{
	/* fans of thin triangles, heights from 1e-3 down past SPEC's degeneracy
	 * limit (those go to the index's loose list) */
	struct rng r = {4};
	struct mesh m = {0};
	for (int i = 0; i < 400; i++) {
		double h = pow(10, -3 - (i % 12)), x = (double)(i % 40) * 2.5,
		       y = (double)(i / 40) * 3;
		uint32_t a = add_vertex(&m, x, y);
		uint32_t b = add_vertex(&m, x + 2, y + h * (i % 3));
		uint32_t c = add_vertex(&m, x + 1 + rng_range(&r, -0.5, 0.5), y + h);
		add_triangle(&m, a, b, c);
		if (i % 2)
			add_triangle(&m, a, c, add_vertex(&m, x - 0.3, y + 1));
	}
	struct points p = {0};
	add_spread_points(&p, &m, &r, 6000, 0.1);
	add_edge_points(&p, &m, &r, 6000);
	add_nudged_vertices(&p, &m, &r, 3000);
	for (size_t t = 0; t < m.n_tris; t++) { /* just off each sliver's long edge */
		const double *a = vertex(&m, t, 0), *b = vertex(&m, t, 1);
		for (int k = 1; k < 4; k++) {
			double s = k / 4.0;
			double x = a[0] + s * (b[0] - a[0]), y = a[1] + s * (b[1] - a[1]);
			add_point(&p, x, nextafter(y, -INFINITY));
			add_point(&p, x, nextafter(y, INFINITY));
		}
	}
	expect_index_matches_scan(&m, &p);
	free(p.xy);
	mesh_release(&m);
}

Test(mesh_index, matches_the_scan_far_from_the_origin_and_at_huge_coordinates)
{
	struct rng r = {5};
	/* small cells at a large offset: float boxes must round outwards */
	struct mesh m = {0};
	grid_mesh(&m, 25, 25, 1e7 + 0.123, -3e6, 1e-3, 0.4, &r, holes);
	struct points p = {0};
	add_spread_points(&p, &m, &r, 4000, 0.2);
	add_edge_points(&p, &m, &r, 3000);
	add_nudged_vertices(&p, &m, &r, 2000);
	add_point(&p, 1e200, -1e200); /* past the safe range: the scan answers */
	add_point(&p, -1e300, 5);
	expect_index_matches_scan(&m, &p);
	mesh_release(&m);
	/* beyond float range but within the safe one: the boxes are infinite */
	grid_mesh(&m, 6, 6, 1e60, -1e60, 1e58, 0.2, &r, NULL);
	p.n = 0;
	add_spread_points(&p, &m, &r, 300, 0.5);
	add_edge_points(&p, &m, &r, 200);
	expect_index_matches_scan(&m, &p);
	mesh_release(&m);
	/* a mesh past the safe range: every query scans, answers still equal */
	grid_mesh(&m, 4, 4, 1e160, 1e160, 1e158, 0.2, &r, NULL);
	p.n = 0;
	add_spread_points(&p, &m, &r, 200, 0.5);
	expect_index_matches_scan(&m, &p);
	free(p.xy);
	mesh_release(&m);
}

Test(mesh_index, matches_the_scan_on_a_20k_triangle_mesh)
{
	struct rng r = {6};
	struct mesh m = {0};
	grid_mesh(&m, 100, 100, 0, 0, 1.0 / 3, 0.35, &r, NULL);
	cr_assert_eq(m.n_tris, 20000);
	struct points p = {0};
	add_spread_points(&p, &m, &r, 6000, 0.5);
	add_edge_points(&p, &m, &r, 2000);
	expect_index_matches_scan(&m, &p);
	free(p.xy);
	mesh_release(&m);
}

Test(mesh_index, handles_one_triangle_and_reports_inside_and_distance)
{
	double src[] = {0, 0, 4, 0, 0, 3};
	uint32_t tris[] = {0, 1, 2};
	struct rig_mesh_index *ix = rig_mesh_index_new(src, tris, 1);
	cr_assert_not_null(ix);
	struct rig_mesh_site s = rig_mesh_index_locate(ix, 1, 1);
	cr_expect(s.inside);
	cr_expect_eq(s.distance, 0);
	cr_expect_eq(s.w[1], 0.25);
	cr_expect_eq(s.w[2], 1.0 / 3);
	s = rig_mesh_index_locate(ix, 4, 3); /* beyond the hypotenuse 3x + 4y = 12 by 12/5 */
	cr_expect_not(s.inside);
	cr_expect_float_eq(s.distance, 12.0 / 5, 1e-12);
	cr_expect_eq(s.w[1], 1);
	cr_expect_eq(s.w[2], 1);
	cr_expect_eq(s.w[0], -1);
	s = rig_mesh_index_locate(ix, -3, -4); /* nearest the vertex at the origin */
	cr_expect_eq(s.distance, 5);
	rig_mesh_index_free(ix);
}

Test(mesh_map, carries_points_and_reports_their_sites)
{
	/* a unit square moved by x' = 2x + 1, y' = y − 3: affine, so every point,
	 * inside or out, lands where the affine map sends it */
	double src[] = {0, 0, 1, 0, 1, 1, 0, 1};
	double dst[] = {1, -3, 3, -3, 3, -2, 1, -2};
	uint32_t tris[] = {0, 1, 2, 0, 2, 3};
	double xy[] = {0.25, 0.5, 0.75, 0.25, 3, 0.5, -1, -1};
	struct rig_mesh_site sites[4];
	struct rig_mesh_index *ix = rig_mesh_index_new(src, tris, 2);
	cr_assert_not_null(ix);
	rig_mesh_map_points(xy, sites, 4, ix, dst);
	double want[] = {1.5, -2.5, 2.5, -2.75, 7, -2.5, -1, -4};
	for (int i = 0; i < 8; i++)
		cr_expect_float_eq(xy[i], want[i], 1e-12, "coordinate %d", i);
	cr_expect_eq(sites[0].triangle, 1);
	cr_expect(sites[0].inside);
	cr_expect_eq(sites[1].triangle, 0);
	cr_expect(sites[1].inside);
	cr_expect_not(sites[2].inside);
	cr_expect_eq(sites[2].distance, 2);
	cr_expect_eq(sites[2].triangle, 0); /* the right edge belongs to triangle 0 only */
	cr_expect_float_eq(sites[3].distance, sqrt(2), 1e-12);
	cr_expect_eq(sites[3].triangle, 0); /* the corner is shared: the lower index */
	rig_mesh_index_free(ix);
}
