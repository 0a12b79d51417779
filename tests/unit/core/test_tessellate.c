/* Unit tests of core/tessellate*.c. The expected meshes are computed here
 * independently: the grid's cull and dilation from the test's own sampler
 * (pixels found by the point's fraction of the rectangle; polygons by winding
 * number), the silhouette's properties checked against the coverage itself
 * (every vertex and centroid inside the shape grown by expansion, with a
 * tolerance of the simplification and resampling). Every mesh passes
 * rig_mesh_check_source with every triangle counter-clockwise; errors come one
 * broken field at a time with exactly their own code and pointer.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <spng.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/mesh.h"
#include "core/png_alpha.h"
#include "core/rig_limits.h"
#include "core/tessellate.h"
#include "tests/unit/core/support.h"

/* ---- shared checks ---- */

static struct rig_tess_params params(double w, double h, int density, enum rig_tess_mode mode)
{
	struct rig_tess_params p;
	rig_tess_params_init(&p);
	p.width = w;
	p.height = h;
	p.density = density;
	p.mode = mode;
	return p;
}

/* The ungrown rectangle's left and bottom edges. */
static double left_of(const struct rig_tess_params *p)
{
	return -p->pivot_x * p->width;
}

static double bottom_of(const struct rig_tess_params *p)
{
	return -p->pivot_y * p->height;
}

/* Tessellates p and expects success; the mesh passes every structural rule. */
static struct rig_tess_mesh tess_ok(const struct rig_tess_params *p)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_tess_mesh m;
	int rc = rig_tessellate(&m, p, errs);
	cr_assert_eq(rc, 0, "tessellate: %s at %s", errs->count ? errs->items[0].detail : "?",
		     errs->count ? errs->items[0].pointer : "?");
	cr_assert_eq(errs->total, 0);
	cr_assert_geq(m.n_verts, 3);
	cr_assert_geq(m.n_tris, 1);
	cr_assert_eq(rig_mesh_check_source(m.source, m.n_verts, m.triangles, m.n_tris, errs), 0,
		     "mesh check: %s", errs->count ? errs->items[0].detail : "?");
	bool *used = calloc(m.n_verts, 1);
	for (size_t t = 0; t < m.n_tris; t++) {
		const uint32_t *i = &m.triangles[3 * t];
		cr_assert_gt(rig_mesh_area2(m.source, i[0], i[1], i[2]), 0,
			     "triangle %zu is not counter-clockwise", t);
		used[i[0]] = used[i[1]] = used[i[2]] = true;
	}
	/* every vertex used; uvs: 0..1 over the ungrown rectangle, v down from the top */
	double x0 = left_of(p), y0 = bottom_of(p);
	for (size_t v = 0; v < m.n_verts; v++) {
		cr_assert(used[v], "vertex %zu is unused", v);
		double u = (m.source[2 * v] - x0) / p->width;
		double vv = (y0 + p->height - m.source[2 * v + 1]) / p->height;
		cr_assert(fabs(m.uvs[2 * v] - u) <= 1e-12 && fabs(m.uvs[2 * v + 1] - vv) <= 1e-12,
			  "vertex %zu uv (%g, %g), expected (%g, %g)", v, m.uvs[2 * v],
			  m.uvs[2 * v + 1], u, vv);
	}
	free(used);
	rig_errs_free(errs);
	return m;
}

/* Tessellates p and expects -1 with exactly one error of this code and pointer. */
static void tess_fails(const struct rig_tess_params *p, enum rig_code code, const char *pointer)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_tess_mesh m;
	memset(&m, 0x5A, sizeof m);
	cr_assert_eq(rig_tessellate(&m, p, errs), -1);
	cr_assert_eq(errs->count, 1, "%zu errors, the first %s", errs->count,
		     errs->count ? errs->items[0].detail : "");
	cr_assert_eq(errs->items[0].code, code, "got code %d: %s", (int)errs->items[0].code,
		     errs->items[0].detail);
	cr_assert_str_eq(errs->items[0].pointer, pointer, "%s", errs->items[0].detail);
	cr_assert_null(m.source);
	cr_assert_null(m.triangles);
	cr_assert_null(m.uvs);
	cr_assert_eq(m.n_verts, 0);
	cr_assert_eq(m.n_tris, 0);
	/* rig_tess_params_check agrees on the params' rules */
	if (code != RIG_TESSELLATE_EMPTY) {
		rig_errs_init(errs);
		cr_assert_eq(rig_tess_params_check(p, errs), -1);
		cr_assert_eq(errs->items[0].code, code);
	}
	rig_errs_free(errs);
}

static void assert_same_bytes(const struct rig_tess_mesh *a, const struct rig_tess_mesh *b)
{
	cr_assert_eq(a->n_verts, b->n_verts);
	cr_assert_eq(a->n_tris, b->n_tris);
	cr_assert_eq(memcmp(a->source, b->source, 2 * a->n_verts * sizeof(double)), 0);
	cr_assert_eq(memcmp(a->uvs, b->uvs, 2 * a->n_verts * sizeof(double)), 0);
	cr_assert_eq(memcmp(a->triangles, b->triangles, 3 * a->n_tris * sizeof(uint32_t)), 0);
}

/* ---- the test's own coverage ---- */

struct image {
	uint8_t *alpha;
	size_t w, h;
	struct rig_alpha_image view;
};

static struct image image_new(size_t w, size_t h, uint8_t fill)
{
	struct image im = {malloc(w * h), w, h, {0}};
	memset(im.alpha, fill, w * h);
	im.view = (struct rig_alpha_image){im.alpha, w, h};
	return im;
}

/* Sets pixel (col, row) (row 0 the top) to a. */
static void image_set(struct image *im, long col, long row, uint8_t a)
{
	if (col >= 0 && row >= 0 && (size_t)col < im->w && (size_t)row < im->h)
		im->alpha[(size_t)row * im->w + (size_t)col] = a;
}

/* Fills the pixels whose centres lie in the disc (cx, cy, r), in pixels. */
static void image_disc(struct image *im, double cx, double cy, double r, uint8_t a)
{
	for (size_t row = 0; row < im->h; row++)
		for (size_t col = 0; col < im->w; col++) {
			double dx = (double)col + 0.5 - cx, dy = (double)row + 0.5 - cy;
			if (dx * dx + dy * dy <= r * r)
				im->alpha[row * im->w + col] = a;
		}
}

static void image_box(struct image *im, long c0, long r0, long c1, long r1, uint8_t a)
{
	for (long row = r0; row < r1; row++)
		for (long col = c0; col < c1; col++)
			image_set(im, col, row, a);
}

/* The test's reading of the sampling rule: the point's fraction of the
 * rectangle from the left and from the top, times the image's size, floored;
 * the right and top edges belong to the last pixel; outside is uncovered. */
static bool test_image_covers(const struct rig_tess_params *p, double x, double y)
{
	const struct rig_alpha_image *im = p->image;
	double fx = (x - left_of(p)) / p->width, fy = 1 - (y - bottom_of(p)) / p->height;
	if (fx < -1e-12 || fx > 1 + 1e-12 || fy < -1e-12 || fy > 1 + 1e-12)
		return false;
	double col = floor(fmax(0, fx) * (double)im->width);
	double row = floor(fmax(0, fy) * (double)im->height);
	size_t c = (size_t)fmin(col, (double)im->width - 1);
	size_t r = (size_t)fmin(row, (double)im->height - 1);
	return im->alpha[r * im->width + c] > p->alpha_threshold;
}

/* Winding number of a ring around (x, y) (Sunday's crossing rule). */
static int winding(const struct rig_tess_ring *ring, double x, double y)
{
	int wn = 0;
	for (size_t i = 0; i < ring->n; i++) {
		const double *a = &ring->xy[2 * i], *b = &ring->xy[2 * ((i + 1) % ring->n)];
		double side = (b[0] - a[0]) * (y - a[1]) - (x - a[0]) * (b[1] - a[1]);
		if (a[1] <= y && b[1] > y && side > 0)
			wn++;
		else if (a[1] > y && b[1] <= y && side < 0)
			wn--;
	}
	return wn;
}

/* Shoelace area of a ring. */
static double ring_area_test(const struct rig_tess_ring *r)
{
	double a = 0;
	for (size_t i = 0; i < r->n; i++) {
		const double *p = &r->xy[2 * i], *q = &r->xy[2 * ((i + 1) % r->n)];
		a += p[0] * q[1] - q[0] * p[1];
	}
	return a / 2;
}

static bool test_polygon_covers(const struct rig_tess_params *p, double x, double y)
{
	if (winding(p->outline, x, y) == 0)
		return false;
	for (size_t h = 0; h < p->n_holes; h++)
		if (winding(&p->holes[h], x, y) != 0)
			return false;
	return true;
}

static bool test_covers(const struct rig_tess_params *p, double x, double y)
{
	if (p->image)
		return test_image_covers(p, x, y);
	if (p->outline)
		return test_polygon_covers(p, x, y);
	return true;
}

/* ---- the grid, counted here ---- */

struct grid_count {
	size_t n_cells, n_verts;
	bool *kept; /* d × d, row 0 the bottom */
};

/* The rule computed cell by cell: corners and centre sampled, the
 * covered cells dilated by their 8 neighbours, vertices of kept cells. */
static struct grid_count count_grid(const struct rig_tess_params *p)
{
	int d = p->density;
	double gx0 = left_of(p) - p->expansion, gy0 = bottom_of(p) - p->expansion;
	double cw = (p->width + 2 * p->expansion) / d, ch = (p->height + 2 * p->expansion) / d;
	bool *cov = calloc((size_t)(d * d), 1);
	struct grid_count g = {0, 0, calloc((size_t)(d * d), 1)};
	for (int j = 0; j < d; j++)
		for (int i = 0; i < d; i++) {
			double x = gx0 + i * cw, y = gy0 + j * ch;
			cov[j * d + i] = test_covers(p, x, y) || test_covers(p, x + cw, y) ||
					 test_covers(p, x, y + ch) ||
					 test_covers(p, x + cw, y + ch) ||
					 test_covers(p, x + cw / 2, y + ch / 2);
		}
	for (int j = 0; j < d; j++)
		for (int i = 0; i < d; i++)
			for (int dj = -1; dj <= 1; dj++)
				for (int di = -1; di <= 1; di++) {
					int ii = i + di, jj = j + dj;
					if (ii >= 0 && jj >= 0 && ii < d && jj < d &&
					    cov[jj * d + ii])
						g.kept[j * d + i] = true;
				}
	for (int j = 0; j <= d; j++)
		for (int i = 0; i <= d; i++) {
			bool used = false;
			for (int cj = j - 1; cj <= j; cj++)
				for (int ci = i - 1; ci <= i; ci++)
					if (ci >= 0 && cj >= 0 && ci < d && cj < d &&
					    g.kept[cj * d + ci])
						used = true;
			g.n_verts += used;
		}
	for (int k = 0; k < d * d; k++)
		g.n_cells += g.kept[k];
	free(cov);
	return g;
}

/* Every pair of triangles is one kept cell, in row-major order. */
static void assert_grid_matches(const struct rig_tess_params *p, const struct rig_tess_mesh *m)
{
	struct grid_count g = count_grid(p);
	cr_assert_eq(m->n_tris, 2 * g.n_cells, "%zu triangles, expected %zu", m->n_tris,
		     2 * g.n_cells);
	cr_assert_eq(m->n_verts, g.n_verts, "%zu vertices, expected %zu", m->n_verts, g.n_verts);
	int d = p->density;
	double gx0 = left_of(p) - p->expansion, gy0 = bottom_of(p) - p->expansion;
	double cw = (p->width + 2 * p->expansion) / d, ch = (p->height + 2 * p->expansion) / d;
	long prev = -1;
	for (size_t t = 0; t < m->n_tris; t += 2) {
		const uint32_t *a = &m->triangles[3 * t];
		double x = m->source[2 * a[0]], y = m->source[2 * a[0] + 1];
		long i = lround((x - gx0) / cw), j = lround((y - gy0) / ch);
		cr_assert(i >= 0 && j >= 0 && i < d && j < d);
		cr_assert(g.kept[j * d + i], "cell (%ld, %ld) is not kept here", i, j);
		cr_assert_gt(j * d + i, prev, "cells out of row-major order");
		prev = j * d + i;
		/* the cell's two triangles share its bottom-left to top-right diagonal */
		const uint32_t *b = &m->triangles[3 * (t + 1)];
		cr_assert_eq(a[0], b[0]);
		cr_assert_eq(a[2], b[1]);
		double ex = m->source[2 * a[2]], ey = m->source[2 * a[2] + 1];
		cr_assert_float_eq(ex - x, cw, 1e-9 * cw);
		cr_assert_float_eq(ey - y, ch, 1e-9 * ch);
	}
	free(g.kept);
}

/* ---- grid: counts, layout, pivot, uvs ---- */

Test(tessellate_grid, whole_grid_without_coverage)
{
	struct rig_tess_params p = params(100, 50, 4, RIG_TESS_GRID);
	struct rig_tess_mesh m = tess_ok(&p);
	cr_assert_eq(m.n_verts, 25);
	cr_assert_eq(m.n_tris, 32);
	/* row-major from the bottom-left; the pivot at the centre */
	cr_assert_float_eq(m.source[0], -50, 1e-12);
	cr_assert_float_eq(m.source[1], -25, 1e-12);
	cr_assert_float_eq(m.source[2], -25, 1e-12);
	cr_assert_float_eq(m.source[2 * 5 + 1], -12.5, 1e-12);
	cr_assert_float_eq(m.source[2 * 24], 50, 1e-12);
	cr_assert_float_eq(m.source[2 * 24 + 1], 25, 1e-12);
	/* uv (0, 1) at the bottom-left, (1, 0) at the top-right */
	cr_assert_float_eq(m.uvs[0], 0, 1e-15);
	cr_assert_float_eq(m.uvs[1], 1, 1e-15);
	cr_assert_float_eq(m.uvs[48], 1, 1e-15);
	cr_assert_float_eq(m.uvs[49], 0, 1e-15);
	/* the first cell: a b e, a e c with the diagonal bottom-left to top-right */
	const uint32_t first[6] = {0, 1, 6, 0, 6, 5};
	cr_assert_eq(memcmp(m.triangles, first, sizeof first), 0);
	assert_grid_matches(&p, &m);
	rig_tess_mesh_release(&m);
	cr_assert_null(m.source);
}

Test(tessellate_grid, pivot_is_a_fraction_from_the_left_and_bottom)
{
	const double pivots[][2] = {{0, 0}, {1, 1}, {0.25, 0.75}, {-0.5, 2}};
	for (size_t k = 0; k < 4; k++) {
		struct rig_tess_params p = params(80, 40, 2, RIG_TESS_GRID);
		p.pivot_x = pivots[k][0];
		p.pivot_y = pivots[k][1];
		struct rig_tess_mesh m = tess_ok(&p);
		cr_assert_eq(m.n_verts, 9);
		/* the bottom-left corner at (-px·w, -py·h), the top-right w, h further */
		cr_assert_float_eq(m.source[0], -pivots[k][0] * 80, 1e-12);
		cr_assert_float_eq(m.source[1], -pivots[k][1] * 40, 1e-12);
		cr_assert_float_eq(m.source[16], -pivots[k][0] * 80 + 80, 1e-12);
		cr_assert_float_eq(m.source[17], -pivots[k][1] * 40 + 40, 1e-12);
		/* uvs do not depend on the pivot */
		cr_assert_float_eq(m.uvs[0], 0, 1e-12);
		cr_assert_float_eq(m.uvs[1], 1, 1e-12);
		cr_assert_float_eq(m.uvs[8], 0.5, 1e-12);
		cr_assert_float_eq(m.uvs[9], 0.5, 1e-12);
		rig_tess_mesh_release(&m);
	}
}

Test(tessellate_grid, expansion_grows_the_grid_and_uvs_pass_0_1)
{
	struct rig_tess_params p = params(100, 50, 4, RIG_TESS_GRID);
	p.expansion = 10;
	struct rig_tess_mesh m = tess_ok(&p);
	cr_assert_eq(m.n_verts, 25);
	cr_assert_float_eq(m.source[0], -60, 1e-12);
	cr_assert_float_eq(m.source[1], -35, 1e-12);
	cr_assert_float_eq(m.source[48], 60, 1e-12);
	cr_assert_float_eq(m.source[49], 35, 1e-12);
	cr_assert_float_eq(m.uvs[0], -0.1, 1e-12);
	cr_assert_float_eq(m.uvs[1], 1.2, 1e-12);
	cr_assert_float_eq(m.uvs[48], 1.1, 1e-12);
	cr_assert_float_eq(m.uvs[49], -0.2, 1e-12);
	rig_tess_mesh_release(&m);
}

/* A 61 × 47 image (prime sides: no grid sample lands on a pixel edge) with a
 * disc, an L, an isolated pixel and a background at the threshold itself. */
static struct image character_image(void)
{
	struct image im = image_new(61, 47, 12); /* alpha 12: not above 12, uncovered */
	image_disc(&im, 18, 16, 9.5, 200);
	image_box(&im, 34, 6, 40, 38, 13); /* 13: just above, covered */
	image_box(&im, 34, 32, 56, 38, 255);
	image_set(&im, 8, 40, 90);
	return im;
}

Test(tessellate_grid, image_cull_and_dilation_match_the_count)
{
	struct image im = character_image();
	const int densities[] = {2, 3, 7, 13, 29, 50, 100};
	const double expansions[] = {0, 3.3};
	for (size_t e = 0; e < 2; e++)
		for (size_t k = 0; k < sizeof densities / sizeof densities[0]; k++) {
			struct rig_tess_params p = params(100, 80, densities[k], RIG_TESS_GRID);
			p.expansion = expansions[e];
			p.pivot_x = 0.3;
			p.image = &im.view;
			struct rig_tess_mesh m = tess_ok(&p);
			assert_grid_matches(&p, &m);
			rig_tess_mesh_release(&m);
		}
	free(im.alpha);
}

Test(tessellate_grid, the_threshold_is_strict)
{
	/* every pixel at 40: covered under threshold 39, empty at 40 */
	struct image im = image_new(5, 5, 40);
	struct rig_tess_params p = params(10, 10, 4, RIG_TESS_GRID);
	p.image = &im.view;
	p.alpha_threshold = 39;
	struct rig_tess_mesh m = tess_ok(&p);
	cr_assert_eq(m.n_tris, 32);
	rig_tess_mesh_release(&m);
	p.alpha_threshold = 40;
	tess_fails(&p, RIG_TESSELLATE_EMPTY, "/image");
	free(im.alpha);
}

Test(tessellate_grid, one_covered_pixel_keeps_its_cells_and_a_ring)
{
	/* a 10 × 10 image on a 10 × 10 grid: pixel (4, 5) (row 5 from the top is row 4
	 * from the bottom) holds cell (4, 4)'s centre and, by the floor rule, its
	 * bottom-left corner, so the cells sharing that corner are covered too */
	struct image im = image_new(10, 10, 0);
	image_set(&im, 4, 5, 255);
	struct rig_tess_params p = params(10, 10, 10, RIG_TESS_GRID);
	p.image = &im.view;
	struct rig_tess_mesh m = tess_ok(&p);
	assert_grid_matches(&p, &m);
	cr_assert_geq(m.n_tris, 2 * 9);
	rig_tess_mesh_release(&m);
	free(im.alpha);
}

Test(tessellate_grid, l_shape_keeps_its_legs_apart)
{
	/* An L of two legs about 12 wide in a 100 × 100 square at density 10 (edges off
	 * the grid lines): cells beyond the dilation ring of the legs (the notch's far
	 * corner) are not kept. */
	const double l[] = {-48.7, -48.3, 48.9,  -48.3, 48.9,  -36.1,
			    -36.3, -36.1, -36.3, 48.7,  -48.7, 48.7};
	struct rig_tess_ring ring = {l, 6};
	struct rig_tess_params p = params(100, 100, 10, RIG_TESS_GRID);
	p.outline = &ring;
	struct rig_tess_mesh m = tess_ok(&p);
	assert_grid_matches(&p, &m);
	for (size_t v = 0; v < m.n_verts; v++) {
		double x = m.source[2 * v], y = m.source[2 * v + 1];
		/* no vertex deep in the notch */
		cr_assert(!(x > -10 && y > -10), "vertex (%g, %g) in the notch", x, y);
	}
	rig_tess_mesh_release(&m);
}

Test(tessellate_grid, polygon_with_a_hole_matches_the_winding_count)
{
	/* a pentagon-like outline with a hole, no sample on an edge */
	const double outline[] = {-41.3, -37.1, 44.7, -29.9, 39.1, 33.3, -3.7, 46.1, -46.9, 21.7};
	const double hole[] = {-13.1, -11.9, 17.3, -9.7, 11.9, 16.1, -15.7, 13.3};
	struct rig_tess_ring out = {outline, 5}, holes[1] = {{hole, 4}};
	for (int d = 2; d <= 40; d += 19) {
		struct rig_tess_params p = params(100, 100, d, RIG_TESS_GRID);
		p.outline = &out;
		p.holes = holes;
		p.n_holes = 1;
		struct rig_tess_mesh m = tess_ok(&p);
		assert_grid_matches(&p, &m);
		rig_tess_mesh_release(&m);
	}
	/* a hole wide enough to drop cells: density 40, hole cells past the ring */
	struct rig_tess_params p = params(100, 100, 40, RIG_TESS_GRID);
	p.outline = &out;
	p.holes = holes;
	p.n_holes = 1;
	struct rig_tess_mesh m = tess_ok(&p);
	for (size_t v = 0; v < m.n_verts; v++) {
		double x = m.source[2 * v], y = m.source[2 * v + 1];
		cr_assert(!(fabs(x) < 3 && fabs(y) < 3), "vertex (%g, %g) in the hole", x, y);
	}
	rig_tess_mesh_release(&m);
}

Test(tessellate_grid, the_same_input_gives_the_same_bytes)
{
	struct image im = character_image();
	struct rig_tess_params p = params(100, 80, 37, RIG_TESS_GRID);
	p.image = &im.view;
	p.expansion = 1.5;
	struct rig_tess_mesh a = tess_ok(&p), b = tess_ok(&p);
	assert_same_bytes(&a, &b);
	rig_tess_mesh_release(&a);
	rig_tess_mesh_release(&b);
	free(im.alpha);
}

Test(tessellate_grid, empty_coverage_is_an_error_never_a_grid)
{
	struct image im = image_new(8, 8, 0);
	struct rig_tess_params p = params(10, 10, 5, RIG_TESS_GRID);
	p.image = &im.view;
	tess_fails(&p, RIG_TESSELLATE_EMPTY, "/image");
	free(im.alpha);
	/* a polygon far outside the rectangle */
	const double far[] = {1000, 1000, 1010, 1000, 1005, 1010};
	struct rig_tess_ring ring = {far, 3};
	struct rig_tess_params q = params(10, 10, 5, RIG_TESS_GRID);
	q.outline = &ring;
	tess_fails(&q, RIG_TESSELLATE_EMPTY, "/polygon");
}

/* ---- the params' rules, one broken field at a time ---- */

Test(tessellate_params, defaults)
{
	struct rig_tess_params p;
	memset(&p, 0x7F, sizeof p);
	rig_tess_params_init(&p);
	cr_assert_eq(p.pivot_x, 0.5);
	cr_assert_eq(p.pivot_y, 0.5);
	cr_assert_eq(p.expansion, 0);
	cr_assert_eq(p.alpha_threshold, 12);
	cr_assert_eq(p.mode, RIG_TESS_GRID);
	cr_assert_null(p.image);
	cr_assert_null(p.outline);
	cr_assert_eq(p.n_holes, 0);
	/* a zeroed size and density are no tessellation */
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_tess_params_check(&p, errs), -1);
	cr_assert_eq(count_err(errs, RIG_INVALID_FIELD), 3);
	rig_errs_free(errs);
}

Test(tessellate_params, mode_names)
{
	cr_assert_str_eq(rig_tess_mode_name(RIG_TESS_GRID), "grid");
	cr_assert_str_eq(rig_tess_mode_name(RIG_TESS_SILHOUETTE), "silhouette");
	cr_assert_null(rig_tess_mode_name((enum rig_tess_mode)2));
	enum rig_tess_mode m = RIG_TESS_GRID;
	cr_assert_eq(rig_tess_mode_parse(&m, "silhouette"), 0);
	cr_assert_eq(m, RIG_TESS_SILHOUETTE);
	cr_assert_eq(rig_tess_mode_parse(&m, "grid"), 0);
	cr_assert_eq(m, RIG_TESS_GRID);
	cr_assert_eq(rig_tess_mode_parse(&m, "Grid"), -1);
	cr_assert_eq(rig_tess_mode_parse(&m, ""), -1);
	cr_assert_eq(rig_tess_mode_parse(&m, NULL), -1);
	cr_assert_eq(m, RIG_TESS_GRID);
}

Test(tessellate_params, width_and_height_must_be_finite_and_positive)
{
	const double bad[] = {0, -1, -0.0, NAN, INFINITY, -INFINITY};
	for (size_t k = 0; k < 6; k++) {
		struct rig_tess_params p = params(bad[k], 10, 4, RIG_TESS_GRID);
		tess_fails(&p, RIG_INVALID_FIELD, "/width");
		p = params(10, bad[k], 4, RIG_TESS_SILHOUETTE);
		tess_fails(&p, RIG_INVALID_FIELD, "/height");
	}
	struct rig_tess_params p = params(1e-3, 1e-3, 2, RIG_TESS_GRID);
	struct rig_tess_mesh m = tess_ok(&p);
	rig_tess_mesh_release(&m);
}

Test(tessellate_params, density_at_and_past_both_edges)
{
	const int bad[] = {RIG_MIN_TESS_DENSITY - 1, 0, -5, RIG_MAX_TESS_DENSITY + 1, 100000};
	for (size_t k = 0; k < 5; k++) {
		struct rig_tess_params p = params(10, 10, bad[k], RIG_TESS_GRID);
		tess_fails(&p, RIG_INVALID_FIELD, "/density");
	}
	const int good[] = {RIG_MIN_TESS_DENSITY, RIG_MAX_TESS_DENSITY};
	for (size_t k = 0; k < 2; k++) {
		struct rig_tess_params p = params(10, 10, good[k], RIG_TESS_GRID);
		struct rig_tess_mesh m = tess_ok(&p);
		size_t d = (size_t)good[k];
		cr_assert_eq(m.n_verts, (d + 1) * (d + 1));
		cr_assert_eq(m.n_tris, 2 * d * d);
		rig_tess_mesh_release(&m);
	}
}

Test(tessellate_params, expansion_and_pivot)
{
	const double bad[] = {-1e-9, -1, NAN, INFINITY};
	for (size_t k = 0; k < 4; k++) {
		struct rig_tess_params p = params(10, 10, 4, RIG_TESS_GRID);
		p.expansion = bad[k];
		tess_fails(&p, RIG_INVALID_FIELD, "/expansion");
	}
	struct rig_tess_params p = params(10, 10, 4, RIG_TESS_GRID);
	p.pivot_x = NAN;
	tess_fails(&p, RIG_INVALID_FIELD, "/pivot");
	p = params(10, 10, 4, RIG_TESS_GRID);
	p.pivot_y = -INFINITY;
	tess_fails(&p, RIG_INVALID_FIELD, "/pivot");
}

Test(tessellate_params, mode_and_coverage_shapes)
{
	struct rig_tess_params p = params(10, 10, 4, (enum rig_tess_mode)7);
	tess_fails(&p, RIG_INVALID_FIELD, "/mode");

	struct image im = image_new(4, 4, 255);
	const double tri[] = {0, 0, 1, 0, 0, 1};
	struct rig_tess_ring ring = {tri, 3};
	p = params(10, 10, 4, RIG_TESS_GRID);
	p.image = &im.view;
	p.outline = &ring;
	tess_fails(&p, RIG_INVALID_FIELD, "/polygon");

	struct rig_alpha_image empty = {im.alpha, 0, 4};
	p = params(10, 10, 4, RIG_TESS_GRID);
	p.image = &empty;
	tess_fails(&p, RIG_INVALID_FIELD, "/image");
	struct rig_alpha_image no_bytes = {NULL, 4, 4};
	p.image = &no_bytes;
	tess_fails(&p, RIG_INVALID_FIELD, "/image");

	p = params(10, 10, 4, RIG_TESS_GRID);
	p.holes = &ring;
	p.n_holes = 1;
	tess_fails(&p, RIG_INVALID_FIELD, "/holes");
	free(im.alpha);
}

Test(tessellate_params, an_image_plane_past_the_limits)
{
	/* never read: the size is checked first */
	static const uint8_t one = 255;
	const size_t sizes[][2] = {
		{RIG_MAX_IMAGE_SIDE + 1, 1},
		{1, RIG_MAX_IMAGE_SIDE + 1},
		{4097, 4096},
		{RIG_MAX_IMAGE_SIDE, RIG_MAX_IMAGE_PIXELS / RIG_MAX_IMAGE_SIDE + 1}};
	for (size_t k = 0; k < 4; k++) {
		struct rig_alpha_image big = {&one, sizes[k][0], sizes[k][1]};
		struct rig_tess_params p = params(10, 10, 4, RIG_TESS_GRID);
		p.image = &big;
		tess_fails(&p, RIG_TESSELLATE_IMAGE_TOO_LARGE, "/image");
	}
}

Test(tessellate_params, every_violation_is_reported)
{
	struct rig_tess_params p = params(-1, NAN, 1, (enum rig_tess_mode)3);
	p.expansion = -2;
	p.pivot_x = INFINITY;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_tess_params_check(&p, errs), -1);
	cr_assert_eq(errs->count, 6);
	const char *pointers[] = {"/width", "/height", "/pivot", "/expansion", "/density", "/mode"};
	for (size_t k = 0; k < 6; k++) {
		cr_assert_eq(errs->items[k].code, RIG_INVALID_FIELD);
		cr_assert_str_eq(errs->items[k].pointer, pointers[k]);
	}
	rig_errs_free(errs);
}

/* ---- polygons ---- */

static void polygon_fails(const struct rig_tess_ring *outline, const struct rig_tess_ring *holes,
			  size_t n_holes, const char *pointer)
{
	for (int mode = 0; mode < 2; mode++) {
		struct rig_tess_params p = params(100, 100, 8, (enum rig_tess_mode)mode);
		p.outline = outline;
		p.holes = holes;
		p.n_holes = n_holes;
		tess_fails(&p, RIG_TESSELLATE_POLYGON, pointer);
	}
}

Test(tessellate_polygon, too_few_points)
{
	const double two[] = {0, 0, 10, 10};
	struct rig_tess_ring r = {two, 2};
	polygon_fails(&r, NULL, 0, "/polygon");
	struct rig_tess_ring none = {NULL, 0};
	polygon_fails(&none, NULL, 0, "/polygon");
}

Test(tessellate_polygon, collinear_points_have_zero_area)
{
	/* §12.1: three collinear points give no triangle, here no mesh at all */
	const double line[] = {-10, -10, 0, 0, 10, 10};
	struct rig_tess_ring r = {line, 3};
	polygon_fails(&r, NULL, 0, "/polygon");
	const double flat[] = {-20, 5, -10, 5, 0, 5, 30, 5};
	struct rig_tess_ring f = {flat, 4};
	polygon_fails(&f, NULL, 0, "/polygon");
}

Test(tessellate_polygon, non_finite_points_are_named)
{
	double pts[] = {0, 0, 10, 0, 10, 10, 0, 10};
	pts[5] = NAN;
	struct rig_tess_ring r = {pts, 4};
	polygon_fails(&r, NULL, 0, "/polygon/2");
	pts[5] = 10;
	pts[0] = INFINITY;
	polygon_fails(&r, NULL, 0, "/polygon/0");
}

Test(tessellate_polygon, self_intersection_names_an_edge)
{
	/* a bow tie with lobes of different areas: edge 0 (0,0)→(10,10) crosses edge 2
	 * (10,0)→(0,20) at (20/3, 20/3) */
	const double bow[] = {0, 0, 10, 10, 10, 0, 0, 20};
	struct rig_tess_ring r = {bow, 4};
	struct rig_tess_params p = params(100, 100, 8, RIG_TESS_GRID);
	p.outline = &r;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_tess_params_check(&p, errs), -1);
	cr_assert_eq(errs->count, 1);
	cr_assert_eq(errs->items[0].code, RIG_TESSELLATE_POLYGON);
	/* the crossing lies on edges 0 and 2 */
	cr_assert(strcmp(errs->items[0].pointer, "/polygon/0") == 0 ||
			  strcmp(errs->items[0].pointer, "/polygon/2") == 0,
		  "%s", errs->items[0].pointer);
	rig_errs_free(errs);
}

Test(tessellate_polygon, too_many_points)
{
	size_t n = RIG_MAX_POLYGON_POINTS + 1;
	double *xy = malloc(2 * n * sizeof *xy);
	for (size_t i = 0; i < n; i++) {
		double t = 2 * M_PI * (double)i / (double)n;
		xy[2 * i] = 40 * cos(t);
		xy[2 * i + 1] = 40 * sin(t);
	}
	struct rig_tess_ring r = {xy, n};
	polygon_fails(&r, NULL, 0, "/polygon");
	/* exactly the limit is a polygon */
	r.n = RIG_MAX_POLYGON_POINTS;
	for (size_t i = 0; i < r.n; i++) {
		double t = 2 * M_PI * (double)i / (double)r.n;
		xy[2 * i] = 40 * cos(t);
		xy[2 * i + 1] = 40 * sin(t);
	}
	struct rig_tess_params p = params(100, 100, 8, RIG_TESS_GRID);
	p.outline = &r;
	struct rig_tess_mesh m = tess_ok(&p);
	rig_tess_mesh_release(&m);
	free(xy);
}

Test(tessellate_polygon, holes_are_checked)
{
	const double square[] = {-40, -40, 40, -40, 40, 40, -40, 40};
	struct rig_tess_ring out = {square, 4};
	/* a hole outside the outline */
	const double away[] = {60, 60, 70, 60, 70, 70};
	struct rig_tess_ring h1[] = {{away, 3}};
	polygon_fails(&out, h1, 1, "/holes/0");
	/* a hole crossing the outline, as the second hole */
	const double fine[] = {-10, -10, 0, -10, 0, 0};
	const double across[] = {30, 0, 50, 0, 50, 10, 30, 10};
	struct rig_tess_ring h2[] = {{fine, 3}, {across, 4}};
	polygon_fails(&out, h2, 2, "/holes/1");
	/* a hole crossing itself, a hole with too few points, a non-finite hole point */
	const double bow[] = {-10, -10, 10, 10, 10, -10, -10, 20};
	struct rig_tess_ring h3[] = {{bow, 4}};
	struct rig_tess_params p = params(100, 100, 8, RIG_TESS_GRID);
	p.outline = &out;
	p.holes = h3;
	p.n_holes = 1;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_tess_params_check(&p, errs), -1);
	cr_assert_eq(errs->count, 1);
	cr_assert_eq(strncmp(errs->items[0].pointer, "/holes/0/", 9), 0, "%s",
		     errs->items[0].pointer);
	rig_errs_free(errs);
	struct rig_tess_ring h4[] = {{fine, 2}};
	polygon_fails(&out, h4, 1, "/holes/0");
	double nan_hole[] = {-10, -10, 0, -10, 0, NAN};
	struct rig_tess_ring h5[] = {{nan_hole, 3}};
	polygon_fails(&out, h5, 1, "/holes/0/2");
	/* two holes overlapping each other */
	const double a[] = {-20, -20, 0, -20, 0, 0, -20, 0};
	const double b[] = {-10, -10, 10, -10, 10, 10, -10, 10};
	struct rig_tess_ring h6[] = {{a, 4}, {b, 4}};
	struct rig_tess_params q = params(100, 100, 8, RIG_TESS_GRID);
	q.outline = &out;
	q.holes = h6;
	q.n_holes = 2;
	errs = rig_errs_new();
	cr_assert_eq(rig_tess_params_check(&q, errs), -1);
	cr_assert_eq(errs->count, 1);
	cr_assert_eq(errs->items[0].code, RIG_TESSELLATE_POLYGON);
	cr_assert_eq(strncmp(errs->items[0].pointer, "/holes/", 7), 0);
	rig_errs_free(errs);
}

/* ---- silhouette ---- */

static double seg_dist(double px, double py, const double *a, const double *b)
{
	double dx = b[0] - a[0], dy = b[1] - a[1], len2 = dx * dx + dy * dy;
	double t = len2 > 0 ? ((px - a[0]) * dx + (py - a[1]) * dy) / len2 : 0;
	t = fmax(0, fmin(1, t));
	return hypot(a[0] + t * dx - px, a[1] + t * dy - py);
}

static double ring_dist(const struct rig_tess_ring *r, double x, double y)
{
	double best = INFINITY;
	for (size_t i = 0; i < r->n; i++)
		best = fmin(best, seg_dist(x, y, &r->xy[2 * i], &r->xy[2 * ((i + 1) % r->n)]));
	return best;
}

/* Distance from (x, y) to the coverage (0 inside): the polygon minus its
 * holes, or the union of the covered pixels' squares, or the rectangle. */
static double coverage_dist(const struct rig_tess_params *p, double x, double y)
{
	if (p->outline) {
		if (winding(p->outline, x, y) == 0)
			return ring_dist(p->outline, x, y);
		for (size_t h = 0; h < p->n_holes; h++)
			if (winding(&p->holes[h], x, y) != 0)
				return ring_dist(&p->holes[h], x, y);
		return 0;
	}
	double x0 = left_of(p), y0 = bottom_of(p);
	if (!p->image) {
		double dx = fmax(fmax(x0 - x, x - x0 - p->width), 0);
		double dy = fmax(fmax(y0 - y, y - y0 - p->height), 0);
		return hypot(dx, dy);
	}
	const struct rig_alpha_image *im = p->image;
	double pw = p->width / (double)im->width, ph = p->height / (double)im->height;
	double best = INFINITY;
	for (size_t r = 0; r < im->height; r++)
		for (size_t c = 0; c < im->width; c++) {
			if (!(im->alpha[r * im->width + c] > p->alpha_threshold))
				continue;
			double l = x0 + (double)c * pw, top = y0 + p->height - (double)r * ph;
			double dx = fmax(fmax(l - x, x - l - pw), 0);
			double dy = fmax(fmax(top - ph - y, y - top), 0);
			best = fmin(best, hypot(dx, dy));
		}
	return best;
}

/* Every vertex and centroid within tol (+ the mitre's 2 · expansion) of the
 * coverage; returns the mesh's area. */
static double assert_inside(const struct rig_tess_params *p, const struct rig_tess_mesh *m,
			    double tol)
{
	double reach = 2 * p->expansion + tol, area = 0;
	for (size_t v = 0; v < m->n_verts; v++) {
		double d = coverage_dist(p, m->source[2 * v], m->source[2 * v + 1]);
		cr_assert_leq(d, reach, "vertex %zu (%g, %g) is %g from the coverage", v,
			      m->source[2 * v], m->source[2 * v + 1], d);
	}
	for (size_t t = 0; t < m->n_tris; t++) {
		const uint32_t *i = &m->triangles[3 * t];
		double cx = 0, cy = 0;
		for (int k = 0; k < 3; k++) {
			cx += m->source[2 * i[k]] / 3;
			cy += m->source[2 * i[k] + 1] / 3;
		}
		double d = coverage_dist(p, cx, cy);
		cr_assert_leq(d, reach, "triangle %zu's centroid (%g, %g) is %g from the coverage",
			      t, cx, cy, d);
		area += rig_mesh_area2(m->source, i[0], i[1], i[2]) / 2;
	}
	/* inside the grown rectangle */
	double gx0 = left_of(p) - p->expansion, gy0 = bottom_of(p) - p->expansion;
	for (size_t v = 0; v < m->n_verts; v++) {
		cr_assert_geq(m->source[2 * v], gx0 - 1e-9);
		cr_assert_leq(m->source[2 * v], gx0 + p->width + 2 * p->expansion + 1e-9);
		cr_assert_geq(m->source[2 * v + 1], gy0 - 1e-9);
		cr_assert_leq(m->source[2 * v + 1], gy0 + p->height + 2 * p->expansion + 1e-9);
	}
	return area;
}

/* Components of the mesh (triangles joined by shared vertices), union-find. */
static size_t count_components(const struct rig_tess_mesh *m)
{
	size_t *up = malloc(m->n_verts * sizeof *up);
	for (size_t v = 0; v < m->n_verts; v++)
		up[v] = v;
	for (size_t t = 0; t < m->n_tris; t++)
		for (int k = 1; k < 3; k++) {
			size_t a = m->triangles[3 * t], b = m->triangles[3 * t + k];
			while (up[a] != a)
				a = up[a];
			while (up[b] != b)
				b = up[b];
			up[a > b ? a : b] = a < b ? a : b;
		}
	size_t n = 0;
	for (size_t v = 0; v < m->n_verts; v++)
		n += up[v] == v;
	free(up);
	return n;
}

static double spacing_of(const struct rig_tess_params *p)
{
	return sqrt((p->width + 2 * p->expansion) * (p->height + 2 * p->expansion)) / p->density;
}

Test(tessellate_silhouette, without_coverage_it_fills_the_rectangle)
{
	struct rig_tess_params p = params(120, 70, 12, RIG_TESS_SILHOUETTE);
	p.pivot_x = 0.2;
	struct rig_tess_mesh m = tess_ok(&p);
	double area = assert_inside(&p, &m, 1e-9);
	cr_assert_float_eq(area, 120 * 70, 1e-9 * 120 * 70);
	/* interior points on the lattice: more vertices than the boundary's */
	cr_assert_gt(m.n_verts, 2 * (120 + 70) / spacing_of(&p));
	rig_tess_mesh_release(&m);
}

Test(tessellate_silhouette, polygon_with_a_hole_excludes_the_hole)
{
	const double outline[] = {-41.3, -37.1, 44.7, -29.9, 39.1, 33.3, -3.7, 46.1, -46.9, 21.7};
	const double hole[] = {-13.1, -11.9, 17.3, -9.7, 11.9, 16.1, -15.7, 13.3};
	struct rig_tess_ring out = {outline, 5}, holes[1] = {{hole, 4}};
	struct rig_tess_params p = params(100, 100, 20, RIG_TESS_SILHOUETTE);
	p.outline = &out;
	p.holes = holes;
	p.n_holes = 1;
	struct rig_tess_mesh m = tess_ok(&p);
	double s = spacing_of(&p);
	double area = assert_inside(&p, &m, 0.02 * s);
	double expect = fabs(ring_area_test(&out)) - fabs(ring_area_test(&holes[0]));
	cr_assert_float_eq(area, expect, 0.01 * expect);
	/* no triangle inside the hole */
	for (size_t t = 0; t < m.n_tris; t++) {
		const uint32_t *i = &m.triangles[3 * t];
		double cx = (m.source[2 * i[0]] + m.source[2 * i[1]] + m.source[2 * i[2]]) / 3;
		double cy =
			(m.source[2 * i[0] + 1] + m.source[2 * i[1] + 1] + m.source[2 * i[2] + 1]) /
			3;
		cr_assert_eq(winding(&holes[0], cx, cy), 0, "triangle %zu in the hole", t);
	}
	cr_assert_eq(count_components(&m), 1);
	rig_tess_mesh_release(&m);
}

/* The covered pixels' area in output units. */
static double covered_area(const struct rig_tess_params *p)
{
	const struct rig_alpha_image *im = p->image;
	size_t n = 0;
	for (size_t k = 0; k < im->width * im->height; k++)
		n += im->alpha[k] > p->alpha_threshold;
	return (double)n * p->width / (double)im->width * p->height / (double)im->height;
}

/* The outline's tolerance for an image: the marching-squares cut corners and
 * the half-pixel simplification (2 pixels), and the chords' sagitta. */
static double image_tolerance(const struct rig_tess_params *p)
{
	double px = fmax(p->width / (double)p->image->width, p->height / (double)p->image->height);
	return 2 * px + 0.1 * spacing_of(p);
}

Test(tessellate_silhouette, image_mesh_stays_on_the_artwork)
{
	struct image im = character_image();
	const int densities[] = {5, 20, 50};
	for (size_t k = 0; k < 3; k++) {
		struct rig_tess_params p = params(100, 80, densities[k], RIG_TESS_SILHOUETTE);
		p.pivot_x = 0.3;
		p.image = &im.view;
		struct rig_tess_mesh m = tess_ok(&p);
		double area = assert_inside(&p, &m, image_tolerance(&p));
		double expect = covered_area(&p);
		/* the isolated pixel is below the mesh's resolution; the rest is close */
		cr_assert(fabs(area - expect) < 0.15 * expect, "area %g, covered %g", area, expect);
		rig_tess_mesh_release(&m);
	}
	free(im.alpha);
}

Test(tessellate_silhouette, expansion_grows_the_outline_with_mitres)
{
	const double square[] = {-20, -20, 20, -20, 20, 20, -20, 20};
	struct rig_tess_ring out = {square, 4};
	struct rig_tess_params p = params(100, 100, 25, RIG_TESS_SILHOUETTE);
	p.outline = &out;
	p.expansion = 5;
	struct rig_tess_mesh m = tess_ok(&p);
	double area = assert_inside(&p, &m, 1e-6);
	/* a mitred square of side 50: the corners stay square */
	cr_assert_float_eq(area, 50 * 50, 1e-6 * 2500);
	double max_x = -INFINITY;
	for (size_t v = 0; v < m.n_verts; v++)
		max_x = fmax(max_x, m.source[2 * v]);
	cr_assert_float_eq(max_x, 25, 1e-9);
	rig_tess_mesh_release(&m);
}

Test(tessellate_silhouette, a_thin_limb_keeps_its_own_strip)
{
	/* a dumbbell: two discs and a bar 2 pixels high between them, on a 96 × 96
	 * image of a 96 × 96 rectangle at density 12 (spacing 8: the bar is a
	 * quarter of it) */
	struct image im = image_new(96, 96, 0);
	image_disc(&im, 20, 48, 14, 255);
	image_disc(&im, 76, 48, 14, 255);
	image_box(&im, 20, 47, 76, 49, 255);
	struct rig_tess_params p = params(96, 96, 12, RIG_TESS_SILHOUETTE);
	p.image = &im.view;
	struct rig_tess_mesh m = tess_ok(&p);
	assert_inside(&p, &m, image_tolerance(&p));
	/* one piece, and triangles all along the bar's middle */
	cr_assert_eq(count_components(&m), 1);
	for (double x = -10; x <= 10; x += 2.5) {
		bool any = false;
		for (size_t t = 0; t < m.n_tris && !any; t++) {
			const uint32_t *i = &m.triangles[3 * t];
			double lo = INFINITY, hi = -INFINITY;
			for (int k = 0; k < 3; k++) {
				lo = fmin(lo, m.source[2 * i[k]]);
				hi = fmax(hi, m.source[2 * i[k]]);
			}
			double cy = (m.source[2 * i[0] + 1] + m.source[2 * i[1] + 1] +
				     m.source[2 * i[2] + 1]) /
				    3;
			any = lo <= x && x <= hi && fabs(cy) < 1.5;
		}
		cr_assert(any, "no triangle over the bar at x = %g", x);
	}
	rig_tess_mesh_release(&m);
	free(im.alpha);
}

Test(tessellate_silhouette, disjoint_parts_are_all_meshed)
{
	struct image im = image_new(80, 40, 0);
	image_disc(&im, 18, 20, 12, 255);
	image_box(&im, 50, 8, 72, 32, 255);
	struct rig_tess_params p = params(80, 40, 16, RIG_TESS_SILHOUETTE);
	p.image = &im.view;
	struct rig_tess_mesh m = tess_ok(&p);
	assert_inside(&p, &m, image_tolerance(&p));
	cr_assert_eq(count_components(&m), 2);
	rig_tess_mesh_release(&m);
	free(im.alpha);
}

Test(tessellate_silhouette, the_same_input_gives_the_same_bytes)
{
	struct image im = character_image();
	struct rig_tess_params p = params(100, 80, 33, RIG_TESS_SILHOUETTE);
	p.image = &im.view;
	p.expansion = 2;
	struct rig_tess_mesh a = tess_ok(&p), b = tess_ok(&p);
	assert_same_bytes(&a, &b);
	rig_tess_mesh_release(&a);
	rig_tess_mesh_release(&b);
	free(im.alpha);
}

Test(tessellate_silhouette, collinear_points_give_no_degenerate_triangle)
{
	/* a square with 40 collinear points a side (and §12.1's three collinear
	 * points refused, in tessellate_polygon.collinear_points_have_zero_area) */
	double xy[2 * 160];
	for (int k = 0; k < 40; k++) {
		double t = -30 + 60.0 * k / 40;
		xy[2 * k] = t, xy[2 * k + 1] = -30;
		xy[2 * (40 + k)] = 30, xy[2 * (40 + k) + 1] = t;
		xy[2 * (80 + k)] = -t, xy[2 * (80 + k) + 1] = 30;
		xy[2 * (120 + k)] = -30, xy[2 * (120 + k) + 1] = -t;
	}
	struct rig_tess_ring out = {xy, 160};
	const int densities[] = {2, 7, 50};
	for (size_t k = 0; k < 3; k++) {
		struct rig_tess_params p = params(100, 100, densities[k], RIG_TESS_SILHOUETTE);
		p.outline = &out;
		struct rig_tess_mesh m = tess_ok(&p); /* every area above the mesh limit */
		double area = assert_inside(&p, &m, 1e-6);
		cr_assert_float_eq(area, 3600, 1e-6 * 3600);
		rig_tess_mesh_release(&m);
	}
}

Test(tessellate_silhouette, polygon_coordinates_follow_the_pivot)
{
	/* pivot at the bottom-left: the rectangle is [0, 60] × [0, 40] */
	const double tri[] = {5, 5, 55, 5, 30, 35};
	struct rig_tess_ring out = {tri, 3};
	struct rig_tess_params p = params(60, 40, 10, RIG_TESS_SILHOUETTE);
	p.pivot_x = 0, p.pivot_y = 0;
	p.outline = &out;
	struct rig_tess_mesh m = tess_ok(&p);
	double area = assert_inside(&p, &m, 1e-6);
	cr_assert_float_eq(area, 750, 1e-6 * 750);
	rig_tess_mesh_release(&m);
	/* the same triangle with the pivot at the centre is partly outside: clipped */
	p.pivot_x = p.pivot_y = 0.5;
	m = tess_ok(&p);
	area = assert_inside(&p, &m, 1e-6);
	cr_assert_lt(area, 750);
	rig_tess_mesh_release(&m);
}

Test(tessellate_silhouette, empty_coverage_is_an_error)
{
	struct image im = image_new(30, 30, 12);
	struct rig_tess_params p = params(30, 30, 10, RIG_TESS_SILHOUETTE);
	p.image = &im.view;
	tess_fails(&p, RIG_TESSELLATE_EMPTY, "/image");
	/* specks under 1/16 of a cell only */
	image_set(&im, 3, 3, 255);
	image_set(&im, 20, 9, 255);
	tess_fails(&p, RIG_TESSELLATE_EMPTY, "/image");
	free(im.alpha);
	const double far[] = {1000, 1000, 1010, 1000, 1005, 1010};
	struct rig_tess_ring ring = {far, 3};
	struct rig_tess_params q = params(10, 10, 5, RIG_TESS_SILHOUETTE);
	q.outline = &ring;
	tess_fails(&q, RIG_TESSELLATE_EMPTY, "/polygon");
}

Test(tessellate_silhouette, a_decoded_png_tessellates)
{
	/* the PNG path end to end: draw, encode, decode, tessellate in both modes */
	struct image im = character_image();
	spng_ctx *enc = spng_ctx_new(SPNG_CTX_ENCODER);
	cr_assert_eq(spng_set_option(enc, SPNG_ENCODE_TO_BUFFER, 1), 0);
	struct spng_ihdr ihdr = {0};
	ihdr.width = (uint32_t)im.w, ihdr.height = (uint32_t)im.h, ihdr.bit_depth = 8;
	ihdr.color_type = SPNG_COLOR_TYPE_GRAYSCALE_ALPHA;
	cr_assert_eq(spng_set_ihdr(enc, &ihdr), 0);
	uint8_t *ga = malloc(2 * im.w * im.h);
	for (size_t k = 0; k < im.w * im.h; k++)
		ga[2 * k] = 128, ga[2 * k + 1] = im.alpha[k];
	cr_assert_eq(
		spng_encode_image(enc, ga, 2 * im.w * im.h, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE), 0);
	size_t n;
	int err;
	void *png = spng_get_png_buffer(enc, &n, &err);
	spng_ctx_free(enc);
	struct rig_errs *errs = rig_errs_new();
	struct rig_alpha_plane plane;
	cr_assert_eq(rig_png_alpha_decode(&plane, png, n, errs), 0);
	struct rig_alpha_image view = {plane.alpha, plane.width, plane.height};
	for (int mode = 0; mode < 2; mode++) {
		struct rig_tess_params p = params(100, 80, 20, (enum rig_tess_mode)mode);
		p.image = &view;
		struct rig_tess_mesh a = tess_ok(&p);
		p.image = &im.view;
		struct rig_tess_mesh b = tess_ok(&p);
		assert_same_bytes(&a, &b);
		rig_tess_mesh_release(&a);
		rig_tess_mesh_release(&b);
	}
	rig_alpha_plane_release(&plane);
	rig_errs_free(errs);
	free(png);
	free(ga);
	free(im.alpha);
}
