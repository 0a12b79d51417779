/* Silhouette mode (core/tessellate.h): a mesh of the coverage's own shape,
 * the bone-and-puppet reference's alphaMesh (§3.1) built on GEOS.
 *
 *  1. Outline: an image's by marching squares (tessellate_contour.c, rings
 *     under 1/16 of a grid cell's area dropped), or the polygon with its
 *     holes, or without coverage the rectangle.
 *  2. Simplified by Douglas–Peucker, topology kept (GEOSTopologyPreserve-
 *     Simplify: no ring collapses or crosses another), tolerance half a pixel
 *     for an image (the marching-squares staircase), 1/100 of the spacing for
 *     a polygon.
 *  3. Offset by expansion (GEOS buffer, mitre joins, mitre limit 2: no corner
 *     moves more than 2 · expansion), then clipped to the grown rectangle.
 *  4. Every ring resampled at the spacing s (tessellate_impl.h: √(cell area)
 *     of the grid of the same density): corners turning more than 30° are
 *     kept, the runs between them cut into round(length / s) equal pieces
 *     (at least 3 points a ring). If the resampled rings do not make a valid
 *     polygon (a chord crossing a neighbour), every simplified vertex is kept
 *     instead and only edges longer than s are cut.
 *  5. Interior points on a hexagonal lattice of side s anchored at the grown
 *     rectangle's bottom-left corner, those at least s/2 inside the
 *     resampled outline.
 *  6. Delaunay triangulation of all points (GEOSDelaunayTriangulation), made
 *     conforming: a boundary edge missing from it is split at its midpoint
 *     and the triangulation redone (at most 32 rounds), so the boundary is
 *     made of triangle edges and thin parts get points of their own.
 *  7. Kept: the triangles whose centroid lies inside the resampled outline
 *     (and, if a boundary edge is still missing after the rounds, only those
 *     the outline covers whole), counter-clockwise, sorted by their vertex
 *     indices (each rotated to start at its smallest), so the bytes never
 *     depend on GEOS's order. Degenerate triangles and unused vertices go in
 *     rig_tess__finish.
 *
 * Every triangle therefore lies inside the resampled outline, which is within
 * the simplification tolerance and the chords' sagitta of the coverage grown
 * by expansion. One GEOS context per call (reentrant API), no globals. GEOS
 * reports failure only when it cannot allocate or its robust predicates fail,
 * which this returns as -2.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/tessellate.h"
#include "core/tessellate_impl.h"

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#define SPECK_CELLS (1.0 / 16) /* rings enclosing less than this many cells are dropped */
#define IMAGE_TOLERANCE_PX 0.5 /* Douglas–Peucker tolerance of an image's outline, pixels */
#define POLYGON_TOLERANCE 0.01 /* … of a polygon, in spacings */
#define MITRE_LIMIT 2.0
#define CORNER_RAD (M_PI / 6) /* a turn sharper than 30° is a corner the resampling keeps */
#define INNER_MARGIN 0.5      /* lattice points at least this many spacings inside */
#define MAX_ROUNDS 32         /* Delaunay rounds splitting missing boundary edges */

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------------------ */
/* Growing arrays                                                            */
/* ------------------------------------------------------------------------ */

struct dbuf {
	double *v;
	size_t n, cap;
};

struct zbuf {
	size_t *v;
	size_t n, cap;
};

static int dbuf_push2(struct dbuf *b, double x, double y)
{
	if (!rig_array_grow((void **)&b->v, &b->cap, b->n + 1, sizeof *b->v))
		return -1;
	b->v[b->n++] = x;
	b->v[b->n++] = y;
	return 0;
}

static int zbuf_push(struct zbuf *b, size_t x)
{
	if (!rig_array_grow((void **)&b->v, &b->cap, b->n, sizeof *b->v))
		return -1;
	b->v[b->n++] = x;
	return 0;
}

/* Loops of points: loop l is points at[start[l] .. start[l + 1]); shell[l]
 * says it begins a polygon (the loops after it, to the next shell, are its
 * holes). For the simplified outline `at` is unused and the points are
 * stored in order; for the resampled one `at` holds point indices. */
struct loops {
	struct dbuf xy;    /* coordinates (the simplified outline's) */
	struct zbuf at;    /* point indices (the resampled outline's) */
	struct zbuf start; /* n_loops + 1 entries once the first loop is closed */
	struct zbuf shell; /* 1 or 0 per loop */
};

static void loops_release(struct loops *l)
{
	free(l->xy.v);
	free(l->at.v);
	free(l->start.v);
	free(l->shell.v);
	memset(l, 0, sizeof *l);
}

static size_t n_loops(const struct loops *l)
{
	return l->start.n ? l->start.n - 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* GEOS helpers                                                              */
/* ------------------------------------------------------------------------ */

/* A closed GEOS ring of n points (x, y interleaved; not closed). */
static GEOSGeometry *ring_of(GEOSContextHandle_t ctx, const double *xy, size_t n)
{
	double *buf = malloc(2 * (n + 1) * sizeof *buf);
	if (!buf)
		return NULL;
	memcpy(buf, xy, 2 * n * sizeof *buf);
	buf[2 * n] = xy[0];
	buf[2 * n + 1] = xy[1];
	GEOSCoordSequence *seq = GEOSCoordSeq_copyFromBuffer_r(ctx, buf, (unsigned)(n + 1), 0, 0);
	free(buf);
	return seq ? GEOSGeom_createLinearRing_r(ctx, seq) : NULL;
}

static void destroy_all(GEOSContextHandle_t ctx, GEOSGeometry **g, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (g[k])
			GEOSGeom_destroy_r(ctx, g[k]);
}

/* A multipolygon of polygons given as rings: ring r is xy[start[r] ..
 * start[r + 1]) (points), shell[r] marking the first ring of each polygon. */
static GEOSGeometry *multipolygon_of(GEOSContextHandle_t ctx, const double *xy, const size_t *start,
				     const size_t *shell, size_t n_rings)
{
	GEOSGeometry *result = NULL;
	GEOSGeometry **rings = calloc(n_rings ? n_rings : 1, sizeof *rings);
	GEOSGeometry **polys = calloc(n_rings ? n_rings : 1, sizeof *polys);
	size_t n_polys = 0;
	if (!rings || !polys)
		goto out_free;
	for (size_t r = 0; r < n_rings; r++)
		if (!(rings[r] = ring_of(ctx, &xy[2 * start[r]], start[r + 1] - start[r])))
			goto out_free;
	for (size_t r = 0; r < n_rings;) {
		size_t h = r + 1;
		while (h < n_rings && !shell[h])
			h++;
		polys[n_polys] = GEOSGeom_createPolygon_r(ctx, rings[r], &rings[r + 1],
							  (unsigned)(h - r - 1));
		/* the polygon owns its rings now, even when it failed */
		for (size_t k = r; k < h; k++)
			rings[k] = NULL;
		if (!polys[n_polys])
			goto out_free;
		n_polys++;
		r = h;
	}
	result = GEOSGeom_createCollection_r(ctx, GEOS_MULTIPOLYGON, polys, (unsigned)n_polys);
	if (result)
		n_polys = 0; /* owned by the collection */
out_free:
	if (rings)
		destroy_all(ctx, rings, n_rings);
	if (polys)
		destroy_all(ctx, polys, n_polys);
	free(rings);
	free(polys);
	return result;
}

/* ------------------------------------------------------------------------ */
/* 1. The coverage's outline                                                 */
/* ------------------------------------------------------------------------ */

static double ring_area(const double *xy, size_t n)
{
	double a2 = 0;
	for (size_t k = 0; k < n; k++) {
		const double *a = &xy[2 * k], *b = &xy[2 * ((k + 1) % n)];
		a2 += (a[0] - xy[0]) * (b[1] - xy[1]) - (b[0] - xy[0]) * (a[1] - xy[1]);
	}
	return a2 / 2;
}

/* Crossing-number test of (x, y) against a ring. */
static bool ring_contains(const double *xy, size_t n, double x, double y)
{
	bool in = false;
	for (size_t k = 0, j = n - 1; k < n; j = k++) {
		const double *a = &xy[2 * k], *b = &xy[2 * j];
		if ((a[1] > y) != (b[1] > y) &&
		    x < (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]) + a[0])
			in = !in;
	}
	return in;
}

/* The image's outline as a multipolygon: counter-clockwise rings are
 * outlines, clockwise ones holes of the smallest outline around them. */
static GEOSGeometry *image_outline(GEOSContextHandle_t ctx, const struct rig_tess_params *p,
				   const struct rig_tess__frame *f)
{
	GEOSGeometry *result = NULL;
	struct rig_tess__rings rings;
	double min_area = SPECK_CELLS * f->spacing * f->spacing;
	if (rig_tess__contour(&rings, p->image, p->alpha_threshold, f, min_area) != 0)
		return NULL;
	size_t nr = rings.n_rings;
	double *area = malloc((nr ? nr : 1) * sizeof *area);
	double *box = malloc(4 * (nr ? nr : 1) * sizeof *box);
	size_t *parent = malloc((nr ? nr : 1) * sizeof *parent);
	size_t *order = malloc((nr ? nr : 1) * sizeof *order); /* shells, smallest first */
	struct loops out = {0};
	if (!area || !box || !parent || !order)
		goto out_free;
	size_t n_shells = 0;
	for (size_t r = 0; r < nr; r++) {
		const double *xy = &rings.xy[2 * rings.start[r]];
		size_t n = rings.start[r + 1] - rings.start[r];
		area[r] = ring_area(xy, n);
		double *b = &box[4 * r];
		b[0] = b[2] = xy[0];
		b[1] = b[3] = xy[1];
		for (size_t k = 1; k < n; k++) {
			b[0] = fmin(b[0], xy[2 * k]), b[2] = fmax(b[2], xy[2 * k]);
			b[1] = fmin(b[1], xy[2 * k + 1]), b[3] = fmax(b[3], xy[2 * k + 1]);
		}
		parent[r] = r;
		if (area[r] > 0)
			order[n_shells++] = r;
	}
	/* insertion sort of the shells by area (stable: ties keep ring order) */
	for (size_t k = 1; k < n_shells; k++)
		for (size_t m = k; m > 0 && area[order[m]] < area[order[m - 1]]; m--) {
			size_t t = order[m];
			order[m] = order[m - 1];
			order[m - 1] = t;
		}
	for (size_t r = 0; r < nr; r++) {
		if (area[r] > 0)
			continue;
		const double *xy = &rings.xy[2 * rings.start[r]];
		parent[r] = SIZE_MAX;
		for (size_t k = 0; k < n_shells && parent[r] == SIZE_MAX; k++) {
			size_t s = order[k];
			const double *b = &box[4 * s];
			if (xy[0] < b[0] || xy[0] > b[2] || xy[1] < b[1] || xy[1] > b[3])
				continue;
			if (ring_contains(&rings.xy[2 * rings.start[s]],
					  rings.start[s + 1] - rings.start[s], xy[0], xy[1]))
				parent[r] = s;
		}
	}
	/* each shell in ring order, then its holes in ring order (holes grouped
	 * by shell with a counting sort: first[s] .. first[s + 1] in `hole`) */
	size_t *first = calloc(nr + 1, sizeof *first), *hole = malloc((nr ? nr : 1) * sizeof *hole);
	if (!first || !hole) {
		free(first);
		free(hole);
		goto out_free;
	}
	for (size_t r = 0; r < nr; r++)
		if (!(area[r] > 0) && parent[r] != SIZE_MAX)
			first[parent[r] + 1]++;
	for (size_t r = 0; r < nr; r++)
		first[r + 1] += first[r];
	size_t *fill = order; /* reused: the shells' order is no longer needed */
	memcpy(fill, first, nr * sizeof *fill);
	for (size_t r = 0; r < nr; r++)
		if (!(area[r] > 0) && parent[r] != SIZE_MAX)
			hole[fill[parent[r]]++] = r;
	int rc = 0;
	for (size_t r = 0; r < nr && rc == 0; r++) {
		if (!(area[r] > 0))
			continue;
		for (size_t k = first[r]; k <= first[r + 1] && rc == 0; k++) {
			size_t h = k == first[r] ? r : hole[k - 1];
			if (zbuf_push(&out.start, out.xy.n / 2) != 0 ||
			    zbuf_push(&out.shell, h == r) != 0) {
				rc = -1;
				break;
			}
			for (size_t q = rings.start[h]; q < rings.start[h + 1] && rc == 0; q++)
				rc = dbuf_push2(&out.xy, rings.xy[2 * q], rings.xy[2 * q + 1]);
		}
	}
	free(first);
	free(hole);
	if (rc != 0 || zbuf_push(&out.start, out.xy.n / 2) != 0)
		goto out_free;
	result = multipolygon_of(ctx, out.xy.v, out.start.v, out.shell.v, n_loops(&out));
out_free:
	loops_release(&out);
	free(area);
	free(box);
	free(parent);
	free(order);
	rig_tess__rings_release(&rings);
	return result;
}

/* The simplified, offset and clipped coverage (steps 1 to 3). */
static GEOSGeometry *silhouette_of(GEOSContextHandle_t ctx, const struct rig_tess_params *p,
				   const struct rig_tess__frame *f)
{
	GEOSGeometry *cov, *g, *result = NULL;
	double tolerance = 0;
	if (p->image) {
		cov = image_outline(ctx, p, f);
		double px = fmax(f->w / (double)p->image->width, f->h / (double)p->image->height);
		tolerance = IMAGE_TOLERANCE_PX * px;
	} else if (p->outline) {
		cov = rig_tess__params_polygon(ctx, p);
		tolerance = POLYGON_TOLERANCE * f->spacing;
	} else {
		cov = GEOSGeom_createRectangle_r(ctx, f->x0, f->y0, f->x0 + f->w, f->y0 + f->h);
	}
	if (!cov)
		return NULL;
	if (tolerance > 0) {
		g = GEOSTopologyPreserveSimplify_r(ctx, cov, tolerance);
		GEOSGeom_destroy_r(ctx, cov);
		if (!g)
			return NULL;
		cov = g;
	}
	if (p->expansion > 0) {
		GEOSBufferParams *bp = GEOSBufferParams_create_r(ctx);
		if (!bp)
			goto out_cov;
		GEOSBufferParams_setJoinStyle_r(ctx, bp, GEOSBUF_JOIN_MITRE);
		GEOSBufferParams_setMitreLimit_r(ctx, bp, MITRE_LIMIT);
		g = GEOSBufferWithParams_r(ctx, cov, bp, p->expansion);
		GEOSBufferParams_destroy_r(ctx, bp);
	} else if (GEOSisValid_r(ctx, cov) == 1) {
		g = GEOSGeom_clone_r(ctx, cov);
	} else {
		g = GEOSMakeValid_r(ctx, cov);
	}
	if (!g)
		goto out_cov;
	GEOSGeometry *rect =
		GEOSGeom_createRectangle_r(ctx, f->gx0, f->gy0, f->gx0 + f->gw, f->gy0 + f->gh);
	if (rect) {
		result = GEOSIntersection_r(ctx, g, rect);
		GEOSGeom_destroy_r(ctx, rect);
	}
	GEOSGeom_destroy_r(ctx, g);
out_cov:
	GEOSGeom_destroy_r(ctx, cov);
	return result;
}

/* Appends a GEOS ring's points (open, consecutive repeats dropped) as a loop. */
static int take_ring(struct loops *out, GEOSContextHandle_t ctx, const GEOSGeometry *ring,
		     bool is_shell)
{
	const GEOSCoordSequence *seq = GEOSGeom_getCoordSeq_r(ctx, ring);
	unsigned n = 0;
	if (!seq || !GEOSCoordSeq_getSize_r(ctx, seq, &n))
		return -1;
	size_t first = out->xy.n / 2;
	for (unsigned k = 0; k + 1 < n; k++) { /* the last repeats the first */
		double x, y;
		if (!GEOSCoordSeq_getXY_r(ctx, seq, k, &x, &y))
			return -1;
		size_t m = out->xy.n / 2;
		if (m > first && out->xy.v[2 * m - 2] == x && out->xy.v[2 * m - 1] == y)
			continue;
		if (dbuf_push2(&out->xy, x, y) != 0)
			return -1;
	}
	size_t m = out->xy.n / 2;
	while (m - first > 1 && out->xy.v[2 * first] == out->xy.v[2 * m - 2] &&
	       out->xy.v[2 * first + 1] == out->xy.v[2 * m - 1])
		out->xy.n -= 2, m--;
	if (m - first < 3) {
		out->xy.n = 2 * first; /* no area: not a loop */
		return is_shell ? 1 : 0;
	}
	if (zbuf_push(&out->start, first) != 0 || zbuf_push(&out->shell, is_shell) != 0)
		return -1;
	return 0;
}

/* Every polygon of g (any nesting of collections) into out: 0 or -1. */
static int take_polygons(struct loops *out, GEOSContextHandle_t ctx, const GEOSGeometry *g)
{
	int type = GEOSGeomTypeId_r(ctx, g);
	if (type == GEOS_MULTIPOLYGON || type == GEOS_GEOMETRYCOLLECTION) {
		int n = GEOSGetNumGeometries_r(ctx, g);
		for (int k = 0; k < n; k++)
			if (take_polygons(out, ctx, GEOSGetGeometryN_r(ctx, g, k)) != 0)
				return -1;
		return 0;
	}
	if (type != GEOS_POLYGON || GEOSisEmpty_r(ctx, g))
		return 0;
	int rc = take_ring(out, ctx, GEOSGetExteriorRing_r(ctx, g), true);
	if (rc != 0)
		return rc < 0 ? -1 : 0; /* a shell without area: its holes go too */
	int nh = GEOSGetNumInteriorRings_r(ctx, g);
	for (int h = 0; h < nh; h++)
		if (take_ring(out, ctx, GEOSGetInteriorRingN_r(ctx, g, h), false) < 0)
			return -1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* 4. Resampling                                                             */
/* ------------------------------------------------------------------------ */

static double dist(const double *a, const double *b)
{
	return hypot(b[0] - a[0], b[1] - a[1]);
}

/* Appends the points of a run of the ring (vertices from, from + 1, … to,
 * indices mod n; to > from) cut into `pieces` equal lengths: the start
 * vertex and pieces - 1 points inside, not the end. */
static int emit_run(struct dbuf *pts, struct zbuf *at, const double *r, size_t n, size_t from,
		    size_t to, size_t pieces, double length)
{
	if (zbuf_push(at, pts->n / 2) != 0 ||
	    dbuf_push2(pts, r[2 * (from % n)], r[2 * (from % n) + 1]))
		return -1;
	size_t seg = from;
	double walked = 0; /* length of the run before vertex seg */
	for (size_t k = 1; k < pieces; k++) {
		double target = length * (double)k / (double)pieces;
		double len;
		while ((len = dist(&r[2 * (seg % n)], &r[2 * ((seg + 1) % n)]),
			walked + len < target && seg + 1 < to)) {
			walked += len;
			seg++;
		}
		const double *a = &r[2 * (seg % n)], *b = &r[2 * ((seg + 1) % n)];
		double t = len > 0 ? (target - walked) / len : 0;
		t = t < 0 ? 0 : t > 1 ? 1 : t;
		if (zbuf_push(at, pts->n / 2) != 0 ||
		    dbuf_push2(pts, a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])) != 0)
			return -1;
	}
	return 0;
}

static bool is_corner(const double *r, size_t n, size_t k)
{
	const double *a = &r[2 * ((k + n - 1) % n)], *b = &r[2 * k], *c = &r[2 * ((k + 1) % n)];
	double ux = b[0] - a[0], uy = b[1] - a[1], vx = c[0] - b[0], vy = c[1] - b[1];
	return fabs(atan2(ux * vy - uy * vx, ux * vx + uy * vy)) > CORNER_RAD;
}

/* One ring resampled at spacing s (step 4), or with keep_all its every vertex
 * and its edges longer than s cut: point indices appended to at. */
static int resample_ring(struct dbuf *pts, struct zbuf *at, const double *r, size_t n, double s,
			 bool keep_all)
{
	int rc = -1;
	struct zbuf corners = {0}, pieces = {0};
	for (size_t k = 0; k < n; k++)
		if ((keep_all || is_corner(r, n, k)) && zbuf_push(&corners, k) != 0)
			goto out_free;
	if (corners.n == 0 && zbuf_push(&corners, 0) != 0)
		goto out_free;
	/* run m: corners[m] to corners[m + 1] (the last one around to corners[0] + n) */
	size_t total = 0, longest = 0;
	double *lengths = malloc(corners.n * sizeof *lengths);
	if (!lengths)
		goto out_free;
	for (size_t m = 0; m < corners.n; m++) {
		size_t from = corners.v[m];
		size_t to = m + 1 < corners.n ? corners.v[m + 1] : corners.v[0] + n;
		double len = 0;
		for (size_t k = from; k < to; k++)
			len += dist(&r[2 * (k % n)], &r[2 * ((k + 1) % n)]);
		lengths[m] = len;
		size_t p = (size_t)fmax(1.0, keep_all ? ceil(len / s) : floor(len / s + 0.5));
		if (zbuf_push(&pieces, p) != 0) {
			free(lengths);
			goto out_free;
		}
		total += p;
		if (len > lengths[longest])
			longest = m;
	}
	while (total < 3) {
		pieces.v[longest]++;
		total++;
	}
	rc = 0;
	for (size_t m = 0; m < corners.n && rc == 0; m++) {
		size_t from = corners.v[m];
		size_t to = m + 1 < corners.n ? corners.v[m + 1] : corners.v[0] + n;
		rc = emit_run(pts, at, r, n, from, to, pieces.v[m], lengths[m]);
	}
	free(lengths);
out_free:
	free(corners.v);
	free(pieces.v);
	return rc;
}

/* The resampled outline (steps 4): its points into pts, its loops into out. */
static int resample(struct loops *out, struct dbuf *pts, const struct loops *in, double s,
		    bool keep_all)
{
	for (size_t l = 0; l < n_loops(in); l++) {
		if (zbuf_push(&out->start, out->at.n) != 0 ||
		    zbuf_push(&out->shell, in->shell.v[l]) != 0)
			return -1;
		const double *r = &in->xy.v[2 * in->start.v[l]];
		size_t n = in->start.v[l + 1] - in->start.v[l];
		if (resample_ring(pts, &out->at, r, n, s, keep_all) != 0)
			return -1;
	}
	return zbuf_push(&out->start, out->at.n);
}

/* The resampled outline as GEOS geometry: the loops' points gathered. */
static GEOSGeometry *loops_geom(GEOSContextHandle_t ctx, const struct loops *l,
				const struct dbuf *pts)
{
	struct dbuf xy = {0};
	GEOSGeometry *g = NULL;
	for (size_t k = 0; k < l->at.n; k++)
		if (dbuf_push2(&xy, pts->v[2 * l->at.v[k]], pts->v[2 * l->at.v[k] + 1]) != 0)
			goto out_free;
	g = multipolygon_of(ctx, xy.v, l->start.v, l->shell.v, n_loops(l));
out_free:
	free(xy.v);
	return g;
}

/* ------------------------------------------------------------------------ */
/* 5. The interior lattice                                                   */
/* ------------------------------------------------------------------------ */

/* Hexagonal lattice points of side s at least INNER_MARGIN · s inside
 * outline, row by row from the grown rectangle's bottom, into pts. */
static int add_lattice(struct dbuf *pts, GEOSContextHandle_t ctx, const GEOSGeometry *outline,
		       const struct rig_tess__frame *f)
{
	double s = f->spacing, row_h = s * sqrt(3.0) / 2;
	GEOSGeometry *inner = GEOSBuffer_r(ctx, outline, -INNER_MARGIN * s, 8);
	if (!inner)
		return -1;
	int rc = 0;
	double xmin, ymin, xmax, ymax;
	if (GEOSisEmpty_r(ctx, inner) || !GEOSGeom_getXMin_r(ctx, inner, &xmin) ||
	    !GEOSGeom_getYMin_r(ctx, inner, &ymin) || !GEOSGeom_getXMax_r(ctx, inner, &xmax) ||
	    !GEOSGeom_getYMax_r(ctx, inner, &ymax))
		goto out_inner;
	const GEOSPreparedGeometry *prep = GEOSPrepare_r(ctx, inner);
	if (!prep) {
		rc = -1;
		goto out_inner;
	}
	long rows = (long)floor(f->gh / row_h), cols = (long)floor(f->gw / s);
	for (long j = 0; j <= rows && rc == 0; j++) {
		double y = f->gy0 + (double)j * row_h;
		if (y < ymin || y > ymax)
			continue;
		double shift = j % 2 ? s / 2 : 0;
		for (long i = 0; i <= cols && rc == 0; i++) {
			double x = f->gx0 + shift + (double)i * s;
			if (x < xmin || x > xmax)
				continue;
			GEOSGeometry *pt = GEOSGeom_createPointFromXY_r(ctx, x, y);
			if (!pt) {
				rc = -1;
				break;
			}
			char in = GEOSPreparedContainsProperly_r(ctx, prep, pt);
			GEOSGeom_destroy_r(ctx, pt);
			if (in == 2)
				rc = -1;
			else if (in == 1)
				rc = dbuf_push2(pts, x, y);
		}
	}
	GEOSPreparedGeom_destroy_r(ctx, prep);
out_inner:
	GEOSGeom_destroy_r(ctx, inner);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* 6. Conforming Delaunay                                                    */
/* ------------------------------------------------------------------------ */

struct site {
	double x, y;
	uint32_t i;
};

static int cmp_site(const void *a, const void *b)
{
	const struct site *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	if (p->y != q->y)
		return p->y < q->y ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t edge_key(uint32_t a, uint32_t b)
{
	return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

/* One triangulation of the points: unique sites (canonical[i] the first
 * point at i's coordinates), triangles as canonical indices. */
struct dt {
	struct site *sites; /* sorted, duplicates removed */
	size_t n_sites;
	uint32_t *canonical;
	uint32_t *tris;
	size_t n_tris;
	uint64_t *edges; /* sorted */
	size_t n_edges;
};

static void dt_release(struct dt *d)
{
	free(d->sites);
	free(d->canonical);
	free(d->tris);
	free(d->edges);
	memset(d, 0, sizeof *d);
}

static long site_index(const struct dt *d, double x, double y)
{
	size_t lo = 0, hi = d->n_sites;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct site *s = &d->sites[mid];
		if (s->x < x || (s->x == x && s->y < y))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->n_sites && d->sites[lo].x == x && d->sites[lo].y == y)
		return d->sites[lo].i;
	return -1;
}

/* Delaunay triangulation of pts (GEOS), read back as indices. 0 or -1. */
static int triangulate(struct dt *d, GEOSContextHandle_t ctx, const struct dbuf *pts)
{
	memset(d, 0, sizeof *d);
	size_t n = pts->n / 2;
	d->sites = malloc((n ? n : 1) * sizeof *d->sites);
	d->canonical = malloc((n ? n : 1) * sizeof *d->canonical);
	if (!d->sites || !d->canonical)
		return -1;
	for (size_t k = 0; k < n; k++)
		d->sites[k] = (struct site){pts->v[2 * k], pts->v[2 * k + 1], (uint32_t)k};
	qsort(d->sites, n, sizeof *d->sites, cmp_site);
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		struct site s = d->sites[k];
		if (m > 0 && d->sites[m - 1].x == s.x && d->sites[m - 1].y == s.y) {
			d->canonical[s.i] = d->sites[m - 1].i;
			continue;
		}
		d->canonical[s.i] = s.i;
		d->sites[m++] = s;
	}
	d->n_sites = m;
	if (m < 3)
		return 0;
	double *buf = malloc(2 * m * sizeof *buf);
	if (!buf)
		return -1;
	for (size_t k = 0; k < m; k++) {
		buf[2 * k] = d->sites[k].x;
		buf[2 * k + 1] = d->sites[k].y;
	}
	/* the sites as a line string: DelaunayTriangulation reads only its coordinates */
	GEOSCoordSequence *seq = GEOSCoordSeq_copyFromBuffer_r(ctx, buf, (unsigned)m, 0, 0);
	free(buf);
	GEOSGeometry *line = seq ? GEOSGeom_createLineString_r(ctx, seq) : NULL;
	if (!line)
		return -1;
	GEOSGeometry *tris = GEOSDelaunayTriangulation_r(ctx, line, 0.0, 0);
	GEOSGeom_destroy_r(ctx, line);
	if (!tris)
		return -1;
	int rc = -1;
	int nt = GEOSGetNumGeometries_r(ctx, tris);
	d->tris = malloc(3 * (size_t)(nt > 0 ? nt : 1) * sizeof *d->tris);
	d->edges = malloc(3 * (size_t)(nt > 0 ? nt : 1) * sizeof *d->edges);
	if (nt < 0 || !d->tris || !d->edges)
		goto out_tris;
	for (int t = 0; t < nt; t++) {
		const GEOSGeometry *tri = GEOSGetGeometryN_r(ctx, tris, t);
		const GEOSGeometry *ring = tri ? GEOSGetExteriorRing_r(ctx, tri) : NULL;
		const GEOSCoordSequence *cs = ring ? GEOSGeom_getCoordSeq_r(ctx, ring) : NULL;
		if (!cs)
			goto out_tris;
		uint32_t *v = &d->tris[3 * d->n_tris];
		bool ok = true;
		for (unsigned k = 0; k < 3 && ok; k++) {
			double x, y;
			long i =
				GEOSCoordSeq_getXY_r(ctx, cs, k, &x, &y) ? site_index(d, x, y) : -1;
			ok = i >= 0;
			v[k] = (uint32_t)i;
		}
		if (!ok || v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
			continue; /* (never: GEOS returns the sites' own coordinates) */
		for (int k = 0; k < 3; k++)
			d->edges[d->n_edges++] = edge_key(v[k], v[(k + 1) % 3]);
		d->n_tris++;
	}
	qsort(d->edges, d->n_edges, sizeof *d->edges, cmp_u64);
	rc = 0;
out_tris:
	GEOSGeom_destroy_r(ctx, tris);
	return rc;
}

static bool has_edge(const struct dt *d, uint64_t key)
{
	return bsearch(&key, d->edges, d->n_edges, sizeof key, cmp_u64) != NULL;
}

/* The boundary edges missing from d, split at their midpoints in l (new
 * points appended to pts). Returns how many were split, or -1. */
static long split_missing(struct loops *l, struct dbuf *pts, const struct dt *d)
{
	struct zbuf at = {0}, start = {0};
	long n_missing = 0;
	for (size_t q = 0; q < n_loops(l); q++) {
		if (zbuf_push(&start, at.n) != 0)
			goto out_fail;
		size_t from = l->start.v[q], to = l->start.v[q + 1], n = to - from;
		for (size_t k = 0; k < n; k++) {
			size_t a = l->at.v[from + k], b = l->at.v[from + (k + 1) % n];
			if (zbuf_push(&at, a) != 0)
				goto out_fail;
			uint32_t ca = d->canonical[a], cb = d->canonical[b];
			if (ca == cb || has_edge(d, edge_key(ca, cb)))
				continue;
			double mx = (pts->v[2 * a] + pts->v[2 * b]) / 2;
			double my = (pts->v[2 * a + 1] + pts->v[2 * b + 1]) / 2;
			if (pts->n / 2 >= UINT32_MAX || zbuf_push(&at, pts->n / 2) != 0 ||
			    dbuf_push2(pts, mx, my) != 0)
				goto out_fail;
			n_missing++;
		}
	}
	if (zbuf_push(&start, at.n) != 0)
		goto out_fail;
	free(l->at.v);
	free(l->start.v);
	l->at = at;
	l->start = start;
	return n_missing;
out_fail:
	free(at.v);
	free(start.v);
	return -1;
}

/* ------------------------------------------------------------------------ */
/* 7. The kept triangles, and the mode                                       */
/* ------------------------------------------------------------------------ */

struct tri {
	uint32_t v[3];
};

static int cmp_tri(const void *a, const void *b)
{
	const struct tri *p = a, *q = b;
	for (int k = 0; k < 3; k++)
		if (p->v[k] != q->v[k])
			return p->v[k] < q->v[k] ? -1 : 1;
	return 0;
}

/* 1 when the triangle (a, b, c) belongs to the outline: its centroid inside,
 * and with strict the whole triangle covered; 0 when not; -1 on failure. */
static int keeps(GEOSContextHandle_t ctx, const GEOSPreparedGeometry *prep, const double *a,
		 const double *b, const double *c, bool strict)
{
	GEOSGeometry *pt = GEOSGeom_createPointFromXY_r(ctx, (a[0] + b[0] + c[0]) / 3,
							(a[1] + b[1] + c[1]) / 3);
	if (!pt)
		return -1;
	char in = GEOSPreparedContains_r(ctx, prep, pt);
	GEOSGeom_destroy_r(ctx, pt);
	if (in != 1 || !strict)
		return in == 2 ? -1 : in;
	const double xy[6] = {a[0], a[1], b[0], b[1], c[0], c[1]};
	const size_t start[2] = {0, 3}, shell[1] = {1};
	GEOSGeometry *g = multipolygon_of(ctx, xy, start, shell, 1);
	if (!g)
		return -1;
	in = GEOSPreparedCovers_r(ctx, prep, g);
	GEOSGeom_destroy_r(ctx, g);
	return in == 2 ? -1 : in;
}

int rig_tess__silhouette(struct rig_tess_mesh *out, const struct rig_tess_params *p,
			 struct rig_errs *errs)
{
	int rc = -2;
	struct rig_tess__frame f;
	rig_tess__frame_init(&f, p);
	struct loops simple = {0}, outline = {0};
	struct dbuf pts = {0};
	struct dt d = {0};
	struct tri *kept = NULL;
	struct rig_tess__build b = {0};
	GEOSGeometry *sil = NULL, *shape = NULL;
	const GEOSPreparedGeometry *prep = NULL;
	GEOSContextHandle_t ctx = rig_tess__geos_new();
	if (!ctx)
		return -2;

	/* 1-3: the outline, simplified, offset, clipped, as loops */
	if (!(sil = silhouette_of(ctx, p, &f)) || take_polygons(&simple, ctx, sil) != 0 ||
	    zbuf_push(&simple.start, simple.xy.n / 2) != 0)
		goto out_free;
	/* 4: resampled; every vertex kept if the chords cross */
	for (int keep_all = 0; keep_all < 2 && n_loops(&simple) > 0; keep_all++) {
		loops_release(&outline);
		pts.n = 0;
		if (resample(&outline, &pts, &simple, f.spacing, keep_all) != 0)
			goto out_free;
		if (shape)
			GEOSGeom_destroy_r(ctx, shape);
		if (!(shape = loops_geom(ctx, &outline, &pts)))
			goto out_free;
		char valid = GEOSisValid_r(ctx, shape);
		if (valid == 2)
			goto out_free;
		if (valid == 1)
			break;
	}
	if (!shape) /* nothing covered */
		goto out_finish;
	/* 5: the lattice */
	if (add_lattice(&pts, ctx, shape, &f) != 0)
		goto out_free;
	/* 6: Delaunay, splitting boundary edges until they are all triangle edges */
	long missing = 0;
	for (int round = 0; round < MAX_ROUNDS; round++) {
		dt_release(&d);
		if (triangulate(&d, ctx, &pts) != 0)
			goto out_free;
		if (round + 1 == MAX_ROUNDS)
			break;
		if ((missing = split_missing(&outline, &pts, &d)) < 0)
			goto out_free;
		if (missing == 0)
			break;
	}
	/* 7: the triangles inside, counter-clockwise, in a fixed order */
	if (!(prep = GEOSPrepare_r(ctx, shape)))
		goto out_free;
	kept = malloc((d.n_tris ? d.n_tris : 1) * sizeof *kept);
	if (!kept)
		goto out_free;
	size_t n_kept = 0;
	for (size_t t = 0; t < d.n_tris; t++) {
		uint32_t *v = &d.tris[3 * t];
		const double *a = &pts.v[2 * v[0]], *bb = &pts.v[2 * v[1]], *c = &pts.v[2 * v[2]];
		int in = keeps(ctx, prep, a, bb, c, missing != 0);
		if (in < 0)
			goto out_free;
		if (!in)
			continue;
		struct tri k = {{v[0], v[1], v[2]}};
		if ((bb[0] - a[0]) * (c[1] - a[1]) - (bb[1] - a[1]) * (c[0] - a[0]) < 0) {
			k.v[1] = v[2];
			k.v[2] = v[1];
		}
		int lo = k.v[0] < k.v[1] ? (k.v[0] < k.v[2] ? 0 : 2) : (k.v[1] < k.v[2] ? 1 : 2);
		kept[n_kept++] = (struct tri){{k.v[lo], k.v[(lo + 1) % 3], k.v[(lo + 2) % 3]}};
	}
	qsort(kept, n_kept, sizeof *kept, cmp_tri);
	for (size_t v = 0; v < pts.n / 2; v++)
		if (rig_tess__add_vert(&b, pts.v[2 * v], pts.v[2 * v + 1]) < 0)
			goto out_free;
	for (size_t t = 0; t < n_kept; t++)
		if (rig_tess__add_tri(&b, kept[t].v[0], kept[t].v[1], kept[t].v[2]) != 0)
			goto out_free;
out_finish:
	rc = rig_tess__finish(out, &b, &f, rig_tess__coverage_pointer(p), errs);
out_free:
	rig_tess__build_release(&b);
	free(kept);
	dt_release(&d);
	free(pts.v);
	loops_release(&simple);
	loops_release(&outline);
	if (prep)
		GEOSPreparedGeom_destroy_r(ctx, prep);
	if (shape)
		GEOSGeom_destroy_r(ctx, shape);
	if (sil)
		GEOSGeom_destroy_r(ctx, sil);
	GEOS_finish_r(ctx);
	return rc;
}
