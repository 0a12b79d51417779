/* Grid mode (core/tessellate.h): the seed's grid (bone-and-puppet reference
 * §3.1) over the grown rectangle, culled by the coverage and dilated one ring.
 *
 * density cells per side; vertex (i, j) at column i from the left and row j
 * from the bottom. A cell is covered when one of its 4 corners or its centre
 * is; the kept cells are the covered ones and their 8 neighbours (inside the
 * grid). Vertices of kept cells are numbered row by row from the bottom, left
 * to right; each kept cell, in the same order, gives two counter-clockwise
 * triangles split by the diagonal from its bottom-left to its top-right corner.
 * No coverage keeps every cell. Pure C: polygons are sampled by scanline
 * (even-odd crossings of one horizontal line per row of samples), images by
 * rig_tess__image_covers.
 */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/tessellate.h"
#include "core/tessellate_impl.h"

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* g0 + size · (k / d), exact at both ends (k = 0, k = d). */
static double grid_coord(double g0, double size, double k, int d)
{
	return k == d ? g0 + size : g0 + size * (k / d);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Crossings of the horizontal line at y with a ring's edges (the half-open
 * rule: an edge counts when exactly one end lies above y). */
static int ring_crossings(double **cross, size_t *n, size_t *cap, const struct rig_tess_ring *r,
			  double y)
{
	for (size_t i = 0; i < r->n; i++) {
		const double *a = &r->xy[2 * i], *b = &r->xy[2 * ((i + 1) % r->n)];
		if ((a[1] > y) == (b[1] > y))
			continue;
		if (!rig_array_grow((void **)cross, cap, *n, sizeof **cross))
			return -1;
		(*cross)[(*n)++] = a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
	}
	return 0;
}

/* out[k] = the polygon (outline minus holes, even-odd) covers (xs[k], y); xs ascending. */
static int polygon_row(bool *out, const double *xs, size_t n_xs, double y,
		       const struct rig_tess_params *p, double **cross, size_t *cap)
{
	size_t n = 0;
	if (ring_crossings(cross, &n, cap, p->outline, y) != 0)
		return -1;
	for (size_t h = 0; h < p->n_holes; h++)
		if (ring_crossings(cross, &n, cap, &p->holes[h], y) != 0)
			return -1;
	if (n > 1)
		qsort(*cross, n, sizeof **cross, cmp_double);
	size_t k = 0;
	for (size_t i = 0; i < n_xs; i++) {
		while (k < n && (*cross)[k] < xs[i])
			k++;
		out[i] = k % 2 == 1;
	}
	return 0;
}

/* The coverage of n_xs points (xs[k], y) into out. */
static int sample_row(bool *out, const double *xs, size_t n_xs, double y,
		      const struct rig_tess_params *p, const struct rig_tess__frame *f,
		      double **cross, size_t *cap)
{
	if (p->outline)
		return polygon_row(out, xs, n_xs, y, p, cross, cap);
	for (size_t i = 0; i < n_xs; i++)
		out[i] = !p->image ||
			 rig_tess__image_covers(p->image, p->alpha_threshold, f, xs[i], y);
	return 0;
}

int rig_tess__grid(struct rig_tess_mesh *out, const struct rig_tess_params *p,
		   struct rig_errs *errs)
{
	int rc = -2;
	struct rig_tess__frame f;
	rig_tess__frame_init(&f, p);
	const int d = p->density;
	const size_t nv = (size_t)d + 1, nc = (size_t)d;
	struct rig_tess__build b = {0};
	double *cross = NULL;
	size_t cap_cross = 0;
	double *xs = malloc(nv * sizeof *xs), *xc = malloc(nc * sizeof *xc);
	bool *corner = calloc(nv * nv, sizeof *corner), *centre = calloc(nc * nc, sizeof *centre);
	bool *covered = calloc(nc * nc, sizeof *covered), *kept = calloc(nc * nc, sizeof *kept);
	long *index = malloc(nv * nv * sizeof *index);
	if (!xs || !xc || !corner || !centre || !covered || !kept || !index)
		goto out_free;

	for (size_t i = 0; i < nv; i++)
		xs[i] = grid_coord(f.gx0, f.gw, (double)i, d);
	for (size_t i = 0; i < nc; i++)
		xc[i] = grid_coord(f.gx0, f.gw, (double)i + 0.5, d);
	for (size_t j = 0; j < nv; j++)
		if (sample_row(&corner[j * nv], xs, nv, grid_coord(f.gy0, f.gh, (double)j, d), p,
			       &f, &cross, &cap_cross) != 0)
			goto out_free;
	for (size_t j = 0; j < nc; j++)
		if (sample_row(&centre[j * nc], xc, nc, grid_coord(f.gy0, f.gh, (double)j + 0.5, d),
			       p, &f, &cross, &cap_cross) != 0)
			goto out_free;

	/* The cull: a corner or the centre covered. */
	for (size_t j = 0; j < nc; j++)
		for (size_t i = 0; i < nc; i++)
			covered[j * nc + i] = corner[j * nv + i] || corner[j * nv + i + 1] ||
					      corner[(j + 1) * nv + i] ||
					      corner[(j + 1) * nv + i + 1] || centre[j * nc + i];
	/* One ring of dilation, the 8-neighbourhood inside the grid. */
	for (size_t j = 0; j < nc; j++) {
		for (size_t i = 0; i < nc; i++) {
			bool any = false;
			for (size_t jj = j ? j - 1 : 0; jj <= j + 1 && jj < nc && !any; jj++)
				for (size_t ii = i ? i - 1 : 0; ii <= i + 1 && ii < nc; ii++)
					any |= covered[jj * nc + ii];
			kept[j * nc + i] = any;
		}
	}
	/* Vertices of kept cells, row by row from the bottom. */
	for (size_t j = 0; j < nv; j++) {
		for (size_t i = 0; i < nv; i++) {
			bool used = false;
			for (size_t cj = j ? j - 1 : 0; cj <= j && cj < nc; cj++)
				for (size_t ci = i ? i - 1 : 0; ci <= i && ci < nc; ci++)
					used |= kept[cj * nc + ci];
			index[j * nv + i] = -1;
			if (!used)
				continue;
			index[j * nv + i] = rig_tess__add_vert(
				&b, xs[i], grid_coord(f.gy0, f.gh, (double)j, d));
			if (index[j * nv + i] < 0)
				goto out_free;
		}
	}
	/* Two counter-clockwise triangles per kept cell (y up): a b e, a e c. */
	for (size_t j = 0; j < nc; j++) {
		for (size_t i = 0; i < nc; i++) {
			if (!kept[j * nc + i])
				continue;
			uint32_t a = (uint32_t)index[j * nv + i],
				 bb = (uint32_t)index[j * nv + i + 1];
			uint32_t c = (uint32_t)index[(j + 1) * nv + i];
			uint32_t e = (uint32_t)index[(j + 1) * nv + i + 1];
			if (rig_tess__add_tri(&b, a, bb, e) != 0 ||
			    rig_tess__add_tri(&b, a, e, c) != 0)
				goto out_free;
		}
	}
	rc = rig_tess__finish(out, &b, &f, rig_tess__coverage_pointer(p), errs);
out_free:
	rig_tess__build_release(&b);
	free(cross);
	free(xs);
	free(xc);
	free(corner);
	free(centre);
	free(covered);
	free(kept);
	free(index);
	return rc;
}
