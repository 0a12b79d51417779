/* Unit tests of core/mesh_check.c, the deformed-mesh checks prepared once per
 * source mesh: the layout (runs of a grid's rows, triangles listed singly,
 * vertices no triangle uses, its bytes), and the pass on every
 * instruction-set path against rig_mesh_check_deformed: the same verdict and
 * the same errors, item for item, on seeded random meshes and at the exact
 * collapse edge. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/mesh.h"
#include "core/mesh_check.h"
#include "support.h"

/* A w × h grid of unit cells, two counter-clockwise triangles per cell in
 * grid_def's order (support.h), plus n_lonely vertices no triangle uses. */
struct mesh {
	double *src;
	uint32_t *tris;
	size_t n_verts, n_tris;
};

static struct mesh grid_mesh(size_t w, size_t h, size_t n_lonely)
{
	struct rig_skin_def d = grid_def(w, h, 1, 1, 1);
	struct mesh m = {.n_verts = d.n_verts + n_lonely, .n_tris = d.n_tris};
	m.src = calloc(2 * m.n_verts, sizeof *m.src);
	m.tris = malloc(3 * m.n_tris * sizeof *m.tris);
	cr_assert(m.src && m.tris);
	memcpy(m.src, d.source, 2 * d.n_verts * sizeof *m.src);
	memcpy(m.tris, d.triangles, 3 * m.n_tris * sizeof *m.tris);
	for (size_t i = 0; i < n_lonely; i++) {
		m.src[2 * (d.n_verts + i)] = -5.0 - (double)i;
		m.src[2 * (d.n_verts + i) + 1] = 3;
	}
	rig_skin_def_release(&d);
	return m;
}

static void mesh_free(struct mesh *m)
{
	free(m->src);
	free(m->tris);
}

static void must_init(struct rig_mesh_check *c, const struct mesh *m, enum rig_isa isa)
{
	cr_assert_eq(rig_mesh_check_init(c, m->src, m->n_verts, m->tris, m->n_tris, isa), 0);
}

/* The same verdict and the same errors, item for item. */
static void expect_same_errors(const struct rig_errs *want, const struct rig_errs *got,
			       const char *what)
{
	cr_assert_eq(got->total, want->total, "%s: %zu errors, want %zu", what, got->total,
		     want->total);
	cr_assert_eq(got->count, want->count, "%s", what);
	for (size_t i = 0; i < want->count; i++) {
		const struct rig_err *a = &want->items[i], *b = &got->items[i];
		cr_assert_eq(b->code, a->code, "%s: item %zu", what, i);
		cr_assert_str_eq(b->detail, a->detail, "%s: item %zu", what, i);
		cr_assert_str_eq(b->pointer, a->pointer, "%s: item %zu", what, i);
		cr_assert_eq(b->triangle_index, a->triangle_index, "%s: item %zu", what, i);
		cr_assert_eq(b->vertex_index, a->vertex_index, "%s: item %zu", what, i);
	}
}

/* ------------------------------------------------------------------------ */
/* The layout                                                                */
/* ------------------------------------------------------------------------ */

Test(mesh_check_layout, a_grid_is_two_runs_a_row)
{
	struct mesh m = grid_mesh(12, 5, 0); /* 11 cells a row: runs of 11 */
	struct rig_mesh_check c;
	must_init(&c, &m, RIG_ISA_PORTABLE);
	cr_expect_eq(c.n_runs, 8);
	cr_expect_eq(c.n_singles, 0);
	cr_expect_eq(c.n_lonely, 0);
	for (size_t r = 0; r < c.n_runs; r++) {
		uint32_t a = (uint32_t)(r / 2 * 12); /* the row's first vertex */
		uint32_t want[2][3] = {{a, a + 1, a + 13}, {a, a + 13, a + 12}};
		cr_expect_eq(memcmp(c.runs[r].first, want[r % 2], sizeof want[0]), 0, "run %zu", r);
		cr_expect_eq(c.runs[r].n_tris, 11);
	}
	for (size_t r = 0; r < c.n_runs; r++) /* every source triangle has 2A = 1 */
		cr_expect_eq(c.runs[r].limit, 1e-6, "run %zu", r);
	cr_expect_eq(rig_mesh_check_bytes(&c), 8 * sizeof(struct rig_mesh_run));
	rig_mesh_check_release(&c);
	mesh_free(&m);
}

Test(mesh_check_layout, short_rows_are_listed_singly_in_the_meshs_order)
{
	struct mesh m = grid_mesh(5, 4, 2); /* 4 cells a row: shorter than a run */
	struct rig_mesh_check c;
	must_init(&c, &m, RIG_ISA_PORTABLE);
	cr_expect_eq(c.n_runs, 0);
	cr_expect_eq(c.n_singles, m.n_tris);
	cr_expect_eq(c.singles, m.tris, "no copy when nothing is a run");
	cr_expect_null(c.singles_owned);
	cr_assert_eq(c.n_lonely, 2);
	cr_expect_eq(c.lonely[0], 20);
	cr_expect_eq(c.lonely[1], 21);
	cr_expect_eq(c.limits[0], 1e-6);
	cr_expect_eq(c.block_ready[0], 20, "one block, needing every vertex but the lonely");
	cr_expect_eq(rig_mesh_check_bytes(&c), m.n_tris * sizeof(double) + 3 * sizeof(uint32_t));
	rig_mesh_check_release(&c);
	rig_mesh_check_release(&c); /* released twice: a zeroed struct is safe */
	mesh_free(&m);
}

Test(mesh_check_layout, a_run_needs_the_same_winding_and_the_rest_is_copied)
{
	/* One row of 20 cells; the 6th cell's first triangle listed clockwise:
	 * the row's first-triangle run breaks there into 5 and 14. */
	struct mesh m = grid_mesh(21, 2, 0);
	uint32_t *t = &m.tris[3 * 10];
	uint32_t keep = t[1];
	t[1] = t[2];
	t[2] = keep;
	struct rig_mesh_check c;
	must_init(&c, &m, RIG_ISA_PORTABLE);
	cr_assert_eq(c.n_runs, 2, "the second triangles' run and the 14 after the break");
	cr_expect_eq(c.runs[0].n_tris, 20);
	cr_expect_eq(c.runs[1].n_tris, 14);
	cr_assert_eq(c.n_singles, 6);
	cr_expect_not_null(c.singles_owned);
	cr_expect_eq(memcmp(&c.singles[3 * 5], t, 3 * sizeof *t), 0, "the clockwise one, in order");
	cr_expect_eq(c.limits[5], -1e-6, "its limit is negative");
	cr_expect_eq(c.limits[4], 1e-6);
	cr_expect_eq(rig_mesh_check_bytes(&c), 2 * sizeof(struct rig_mesh_run) +
						       6 * (3 * sizeof(uint32_t) + sizeof(double)) +
						       sizeof(uint32_t));
	rig_mesh_check_release(&c);
	mesh_free(&m);
}

/* One row of 13 cells whose widths alternate 1 and `wide` (1 high). */
static struct mesh uneven_row(double wide)
{
	struct mesh m = grid_mesh(14, 2, 0);
	for (size_t x = 1; x < 14; x++) { /* cell x − 1 is 1 wide when x is odd */
		double left = m.src[2 * (x - 1)];
		m.src[2 * x] = m.src[2 * (x + 14)] = left + (x % 2 ? 1 : wide);
	}
	return m;
}

Test(mesh_check_layout, a_run_holds_sizes_within_its_spread)
{
	struct mesh m = uneven_row(3); /* within the spread of 4: two runs of 13 */
	struct rig_mesh_check c;
	must_init(&c, &m, RIG_ISA_PORTABLE);
	cr_expect_eq(c.n_runs, 2);
	cr_expect_eq(c.n_singles, 0);
	cr_expect_eq(c.runs[0].limit, 3e-6, "the largest triangle's limit");
	rig_mesh_check_release(&c);
	mesh_free(&m);
	m = uneven_row(5); /* past it: no run is left */
	must_init(&c, &m, RIG_ISA_PORTABLE);
	cr_expect_eq(c.n_runs, 0);
	cr_expect_eq(c.n_singles, m.n_tris);
	rig_mesh_check_release(&c);
	mesh_free(&m);
}

/* ------------------------------------------------------------------------ */
/* The pass, on every path                                                   */
/* ------------------------------------------------------------------------ */

/* How many paths this CPU runs (the portable one at least). */
static size_t n_supported_paths(void)
{
	size_t n = 0;
	for (int p = 0; p < RIG_ISA_COUNT; p++)
		n += rig_isa_is_supported((enum rig_isa)p);
	return n;
}

/* Checks dst with rig_mesh_check_deformed and with a check prepared on each
 * supported path; expects the same errors. Returns the reference's verdict. */
static bool compare_paths(const struct mesh *m, const double *dst, const char *what)
{
	struct rig_errs *want = rig_errs_new(), *got = rig_errs_new();
	cr_assert(want && got);
	int want_rc = rig_mesh_check_deformed(m->src, dst, m->n_verts, m->tris, m->n_tris, want);
	for (int p = 0; p < RIG_ISA_COUNT; p++) {
		if (!rig_isa_is_supported((enum rig_isa)p))
			continue;
		struct rig_mesh_check c;
		must_init(&c, m, (enum rig_isa)p);
		rig_errs_init(got);
		int rc = rig_mesh_check_run(&c, dst, got);
		char name[160];
		snprintf(name, sizeof name, "%s, %s path", what, rig_isa_name((enum rig_isa)p));
		cr_assert_eq(rc, want_rc, "%s: %d, want %d", name, rc, want_rc);
		expect_same_errors(want, got, name);
		rig_mesh_check_release(&c);
	}
	rig_errs_free(want);
	rig_errs_free(got);
	return want_rc == 0;
}

Test(mesh_check, agrees_with_rig_mesh_check_deformed_on_every_path)
{
	struct rng rng = {0xc4ec};
	size_t n_failing = 0, n_passing = 0;
	cr_assert_geq(n_supported_paths(), 1);
	for (int trial = 0; trial < 400; trial++) {
		size_t w = 2 + rng_below(&rng, 39), h = 2 + rng_below(&rng, 12);
		struct mesh m = grid_mesh(w, h, rng_below(&rng, 3));
		for (size_t i = 0; i < 2 * m.n_verts; i++) /* jitter: still far from degenerate */
			m.src[i] += rng_range(&rng, -0.1, 0.1);
		int order = (int)rng_below(&rng, 4);
		for (size_t t = 0; t < m.n_tris; t++) {
			uint32_t *v = &m.tris[3 * t], keep = v[0];
			if (order == 1) { /* shuffled: hardly any run is left */
				size_t u = rng_below(&rng, t + 1);
				uint32_t tmp[3];
				memcpy(tmp, v, sizeof tmp);
				memcpy(v, &m.tris[3 * u], sizeof tmp);
				memcpy(&m.tris[3 * u], tmp, sizeof tmp);
			} else if (order == 2 && rng_below(&rng, 8) == 0) { /* corners rotated */
				v[0] = v[1], v[1] = v[2], v[2] = keep;
			} else if (order == 3 && rng_below(&rng, 8) == 0) { /* clockwise */
				v[0] = v[1], v[1] = keep;
			}
		}
		double *dst = malloc(2 * m.n_verts * sizeof *dst);
		cr_assert_not_null(dst);
		double sy = 1;
		switch (rng_below(&rng, 6)) {
		case 0:
			sy = -1; /* mirrored: every triangle flips */
			break;
		case 1:
			sy = 1e-6; /* about the collapse edge: some triangles fall under it */
			break;
		case 2:
			sy = 1e-6 * (1 + 0.3 * rng_range(&rng, -1, 1));
			break;
		default:
			sy = rng_range(&rng, 0.5, 1.5);
			break;
		}
		double angle = rng_range(&rng, -3, 3);
		for (size_t v = 0; v < m.n_verts; v++) {
			double x = m.src[2 * v], y = m.src[2 * v + 1] * sy;
			dst[2 * v] = cos(angle) * x - sin(angle) * y + 7;
			dst[2 * v + 1] = sin(angle) * x + cos(angle) * y - 3;
		}
		size_t n_moves = rng_below(&rng, 4) == 0 ? rng_below(&rng, 100) : 0;
		for (size_t k = 0; k < n_moves; k++) /* folds, many past the kept list */
			dst[rng_below(&rng, 2 * m.n_verts)] += rng_range(&rng, -3, 3);
		if (rng_below(&rng, 6) == 0) /* a lonely vertex is as likely as any */
			dst[rng_below(&rng, 2 * m.n_verts)] = rng_below(&rng, 2) ? NAN : -INFINITY;
		char what[96];
		snprintf(what, sizeof what, "trial %d (%zu × %zu, order %d)", trial, w, h, order);
		if (compare_paths(&m, dst, what))
			n_passing++;
		else
			n_failing++;
		free(dst);
		mesh_free(&m);
	}
	cr_expect_gt(n_failing, 100, "the trials exercise failures (%zu)", n_failing);
	cr_expect_gt(n_passing, 100, "and passes (%zu)", n_passing);
}

Test(mesh_check, decides_the_exact_collapse_edge_at_every_place_in_a_run)
{
	/* One row of 13 cells (runs of 13: the vector paths' last group of four
	 * overlaps the one before it). Each triangle in turn has its third
	 * corner's y set so that 2A' is exactly 1e-6 · 2A (kept: the rule is ≥),
	 * then one step below (collapsed). The first triangles, (a, a+1, a+15),
	 * have 2A = 1 along y. */
	struct mesh m = grid_mesh(14, 2, 0);
	double *dst = malloc(2 * m.n_verts * sizeof *dst);
	cr_assert_not_null(dst);
	for (size_t cell = 0; cell < 13; cell++) {
		for (int below = 0; below < 2; below++) {
			memcpy(dst, m.src, 2 * m.n_verts * sizeof *dst);
			for (size_t v = 14; v < 28; v++) /* the top row squashed onto the edge */
				dst[2 * v + 1] =
					below && v == cell + 15 ? nextafter(1e-6, 0) : 1e-6;
			char what[64];
			snprintf(what, sizeof what, "cell %zu, %s the edge", cell,
				 below ? "below" : "at");
			bool is_valid = compare_paths(&m, dst, what);
			cr_expect_eq(is_valid, !below, "%s", what);
		}
	}
	free(dst);
	mesh_free(&m);
}

Test(mesh_check, a_triangle_between_its_limit_and_its_runs_is_measured_again)
{
	/* Squashed to 2e-6 of their areas, the narrow triangles hold (their own
	 * limit is 1e-6 of theirs) but are below their run's limit (1e-6 of the
	 * wide ones', three times larger): the run is measured again and passes.
	 * At 0.5e-6 every triangle collapses. */
	struct mesh m = uneven_row(3);
	double *dst = malloc(2 * m.n_verts * sizeof *dst);
	cr_assert_not_null(dst);
	double squash[2] = {2e-6, 0.5e-6};
	for (int k = 0; k < 2; k++) {
		for (size_t v = 0; v < m.n_verts; v++) {
			dst[2 * v] = m.src[2 * v];
			dst[2 * v + 1] = m.src[2 * v + 1] * squash[k];
		}
		char what[64];
		snprintf(what, sizeof what, "squashed to %g", squash[k]);
		cr_expect_eq(compare_paths(&m, dst, what), k == 0, "%s", what);
	}
	free(dst);
	mesh_free(&m);
}

Test(mesh_check, a_non_finite_vertex_no_triangle_uses_is_reported)
{
	struct mesh m = grid_mesh(10, 3, 3);
	double *dst = malloc(2 * m.n_verts * sizeof *dst);
	cr_assert_not_null(dst);
	memcpy(dst, m.src, 2 * m.n_verts * sizeof *dst);
	dst[2 * 31 + 1] = INFINITY; /* the second lonely vertex */
	cr_expect_not(compare_paths(&m, dst, "a lonely vertex at infinity"));
	struct rig_mesh_check c;
	must_init(&c, &m, rig_isa_best());
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(rig_mesh_check_run(&c, dst, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_MESH_GEOMETRY);
	cr_expect_eq(errs->items[0].vertex_index, 31);
	cr_expect_eq(errs->items[0].triangle_index, RIG_NO_INDEX, "no triangle uses it");
	rig_errs_free(errs);
	rig_mesh_check_release(&c);
	free(dst);
	mesh_free(&m);
}
