/* Mesh checks: the source mesh of a definition (geometry, topology, degenerate
 * triangles) and a deformed mesh against its source (finite, same winding, not
 * collapsed). Every violation is recorded with its index; nothing allocates.
 *
 * Signed area: A = ((b − a) × (c − a)) / 2; the checks work on 2A. Source
 * violations point into the definition ("/source/<v>", "/triangles/<t>");
 * deformed ones concern a result, not a request field, so they carry indices
 * and no pointer.
 */
#include "core/mesh.h"
#include "core/prefetch.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "core/rig_limits.h"

/* SPEC §3: a source triangle is degenerate when |A| ≤ 1e-12 · max(1, bbox diagonal²). */
#define DEGENERATE_RELATIVE 1e-12

/* Triangles ahead of the deformed-mesh loop to prefetch. */
#define PREFETCH_AHEAD 128

/* 2A of triangle (a, b, c); inlined in the loops (the public wrapper is not). */
static inline double area2(const double *xy, uint32_t a, uint32_t b, uint32_t c)
{
	return rig_mesh__area2(xy, a, b, c);
}

double rig_mesh_area2(const double *xy, uint32_t a, uint32_t b, uint32_t c)
{
	return area2(xy, a, b, c);
}

static bool vertex_is_finite(const double *xy, size_t v)
{
	return isfinite(xy[2 * v]) && isfinite(xy[2 * v + 1]);
}

static void set_triangle(struct rig_err *e, size_t t)
{
	e->triangle_index = (long)t;
	snprintf(e->pointer, sizeof e->pointer, "/triangles/%zu", t);
}

/* ------------------------------------------------------------------------ */
/* Source mesh                                                               */
/* ------------------------------------------------------------------------ */

/* Reports non-finite vertices and returns the squared bbox diagonal of the finite ones. */
static double check_vertices(const double *xy, size_t n_verts, struct rig_errs *errs)
{
	if (n_verts < RIG_MIN_VERTICES || n_verts > RIG_MAX_VERTICES) {
		struct rig_err *e = rig_errs_add(errs, RIG_MESH_GEOMETRY,
						 "mesh has %zu vertices, outside [%d, %d]", n_verts,
						 RIG_MIN_VERTICES, RIG_MAX_VERTICES);
		rig_strlcpy(e->pointer, "/source", sizeof e->pointer);
	}
	double min_x = INFINITY, min_y = INFINITY, max_x = -INFINITY, max_y = -INFINITY;
	for (size_t v = 0; v < n_verts; v++) {
		if (!vertex_is_finite(xy, v)) {
			struct rig_err *e =
				rig_errs_add(errs, RIG_MESH_GEOMETRY,
					     "vertex %zu has a non-finite coordinate", v);
			e->vertex_index = (long)v;
			snprintf(e->pointer, sizeof e->pointer, "/source/%zu", v);
			continue;
		}
		min_x = fmin(min_x, xy[2 * v]);
		max_x = fmax(max_x, xy[2 * v]);
		min_y = fmin(min_y, xy[2 * v + 1]);
		max_y = fmax(max_y, xy[2 * v + 1]);
	}
	if (!(max_x >= min_x))
		return 0;
	double dx = max_x - min_x, dy = max_y - min_y;
	return dx * dx + dy * dy;
}

int rig_mesh_check_source(const double *xy, size_t n_verts, const uint32_t *tris, size_t n_tris,
			  struct rig_errs *errs)
{
	size_t before = errs->total;
	double diag2 = check_vertices(xy, n_verts, errs);
	double min_area = DEGENERATE_RELATIVE * fmax(1.0, diag2);

	if (n_tris < RIG_MIN_TRIANGLES || n_tris > RIG_MAX_TRIANGLES) {
		struct rig_err *e = rig_errs_add(errs, RIG_MESH_TOPOLOGY,
						 "mesh has %zu triangles, outside [%d, %d]", n_tris,
						 RIG_MIN_TRIANGLES, RIG_MAX_TRIANGLES);
		rig_strlcpy(e->pointer, "/triangles", sizeof e->pointer);
	}
	for (size_t t = 0; t < n_tris; t++) {
		const uint32_t *i = &tris[3 * t];
		int bad = -1;
		for (int k = 0; k < 3 && bad < 0; k++)
			if (i[k] >= n_verts)
				bad = k;
		if (bad >= 0) {
			struct rig_err *e =
				rig_errs_add(errs, RIG_MESH_TOPOLOGY,
					     "triangle %zu index %d is %u, outside [0, %zu)", t,
					     bad, (unsigned)i[bad], n_verts);
			set_triangle(e, t);
			continue;
		}
		if (i[0] == i[1] || i[1] == i[2] || i[0] == i[2]) {
			uint32_t rep = i[0] == i[1] || i[0] == i[2] ? i[0] : i[1];
			struct rig_err *e =
				rig_errs_add(errs, RIG_MESH_TOPOLOGY,
					     "triangle %zu repeats vertex %u", t, (unsigned)rep);
			set_triangle(e, t);
			continue;
		}
		if (!vertex_is_finite(xy, i[0]) || !vertex_is_finite(xy, i[1]) ||
		    !vertex_is_finite(xy, i[2]))
			continue; /* already reported as MESH_GEOMETRY */
		double area = area2(xy, i[0], i[1], i[2]) / 2;
		if (!(fabs(area) > min_area)) {
			struct rig_err *e = rig_errs_add(
				errs, RIG_MESH_DEGENERATE,
				"triangle %zu has area %.17g, not above %.3g", t, area, min_area);
			set_triangle(e, t);
		}
	}
	return errs->total == before ? 0 : -1;
}

/* ------------------------------------------------------------------------ */
/* Deformed mesh                                                             */
/* ------------------------------------------------------------------------ */

static long first_triangle_with(const uint32_t *tris, size_t n_tris, size_t v)
{
	for (size_t i = 0; i < 3 * n_tris; i++)
		if (tris[i] == v)
			return (long)(i / 3);
	return RIG_NO_INDEX;
}

/* The slow path, taken only when some vertex is not finite: one MESH_GEOMETRY
 * per bad vertex, naming (for the entries kept) the first triangle using it. */
static void report_vertices(const double *dst, size_t n_verts, const uint32_t *tris, size_t n_tris,
			    struct rig_errs *errs)
{
	for (size_t v = 0; v < n_verts; v++) {
		if (vertex_is_finite(dst, v))
			continue;
		bool is_kept = errs->count < RIG_ERRS_KEEP;
		struct rig_err *e = rig_errs_add(errs, RIG_MESH_GEOMETRY,
						 "deformed vertex %zu is not finite", v);
		e->vertex_index = (long)v;
		if (is_kept)
			e->triangle_index = first_triangle_with(tris, n_tris, v);
	}
}

/* Whether triangle (i, j, k) keeps its winding and at least 1e-6 of its area
 * with a finite area; a_dst is non-finite whenever one of its vertices is. */
static bool triangle_holds(double a_src, double a_dst)
{
	double kept = a_src > 0 ? a_dst : -a_dst; /* same sign: kept > 0 */
	return kept >= RIG_MESH_COLLAPSED_RELATIVE * fabs(a_src) && kept <= DBL_MAX;
}

/* x·0 is 0 for a finite x and NaN otherwise: true when every coordinate is
 * finite. Four accumulators keep the additions out of one dependency chain. */
static bool all_finite(const double *dst, size_t n_verts)
{
	double probe[4] = {0, 0, 0, 0};
	size_t i = 0, n = 2 * n_verts;
	for (; i + 4 <= n; i += 4)
		for (int k = 0; k < 4; k++)
			probe[k] += dst[i + (size_t)k] * 0.0;
	for (; i < n; i++)
		probe[0] += dst[i] * 0.0;
	return (probe[0] + probe[1]) + (probe[2] + probe[3]) == 0;
}

/* The fast pass: true when the deformed mesh breaks no rule. No branches per
 * vertex or triangle, so it runs at memory speed next to the skinning kernel.
 * Source areas come from src_area2 when given, else from src. */
static bool deformed_is_valid(const double *src, const double *src_area2, const double *dst,
			      size_t n_verts, const uint32_t *tris, size_t n_tris)
{
	bool is_valid = all_finite(dst, n_verts);
	size_t n_bad = 0;
	for (size_t t = 0; t < n_tris; t++) {
		/* The index stream is sequential, but the hardware prefetcher alone
		 * leaves a 2M-triangle mesh waiting on it. */
		size_t ahead = t + PREFETCH_AHEAD < n_tris ? t + PREFETCH_AHEAD : n_tris - 1;
		rig_core__prefetch(&tris[3 * ahead]);
		const uint32_t *v = &tris[3 * t];
		double a_src = src_area2 ? src_area2[t] : area2(src, v[0], v[1], v[2]);
		n_bad += !triangle_holds(a_src, area2(dst, v[0], v[1], v[2]));
	}
	return is_valid && n_bad == 0;
}

/* The slow pass, only after a fast one failed: records every violation. */
void rig_mesh__report_deformed(const double *src, const double *dst, size_t n_verts,
			       const uint32_t *tris, size_t n_tris, struct rig_errs *errs)
{
	size_t before = errs->total;
	report_vertices(dst, n_verts, tris, n_tris, errs);
	bool is_all_finite = errs->total == before;
	for (size_t t = 0; t < n_tris; t++) {
		const uint32_t *i = &tris[3 * t];
		assert(i[0] < n_verts && i[1] < n_verts && i[2] < n_verts);
		double a_src = area2(src, i[0], i[1], i[2]);
		double a_dst = area2(dst, i[0], i[1], i[2]);
		if (triangle_holds(a_src, a_dst))
			continue;
		struct rig_err *e;
		if (!isfinite(a_dst)) {
			if (!is_all_finite)
				continue; /* its non-finite vertex is reported already */
			e = rig_errs_add(errs, RIG_MESH_GEOMETRY,
					 "deformed triangle %zu has a non-finite area", t);
		} else if (fabs(a_dst) < RIG_MESH_COLLAPSED_RELATIVE * fabs(a_src)) {
			e = rig_errs_add(errs, RIG_MESH_COLLAPSED,
					 "triangle %zu collapsed to area %.17g from %.17g", t,
					 a_dst / 2, a_src / 2);
		} else {
			e = rig_errs_add(errs, RIG_MESH_WINDING,
					 "triangle %zu flipped from area %.17g to %.17g", t,
					 a_src / 2, a_dst / 2);
		}
		e->triangle_index = (long)t;
	}
}

void rig_mesh_areas2(double *out, const double *xy, const uint32_t *tris, size_t n_tris)
{
	for (size_t t = 0; t < n_tris; t++)
		out[t] = area2(xy, tris[3 * t], tris[3 * t + 1], tris[3 * t + 2]);
}

int rig_mesh_check_deformed_areas(const double *src, const double *src_area2, const double *dst,
				  size_t n_verts, const uint32_t *tris, size_t n_tris,
				  struct rig_errs *errs)
{
	if (deformed_is_valid(src, src_area2, dst, n_verts, tris, n_tris))
		return 0;
	return rig_mesh_check_deformed(src, dst, n_verts, tris, n_tris, errs);
}

int rig_mesh_check_deformed(const double *src, const double *dst, size_t n_verts,
			    const uint32_t *tris, size_t n_tris, struct rig_errs *errs)
{
	if (deformed_is_valid(src, NULL, dst, n_verts, tris, n_tris))
		return 0;
	size_t before = errs->total;
	rig_mesh__report_deformed(src, dst, n_verts, tris, n_tris, errs);
	assert(errs->total > before); /* both passes apply the same rules */
	return errs->total == before ? 0 : -1;
}

int rig_mesh_check_uvs(const double *uvs, size_t n_verts, struct rig_errs *errs)
{
	size_t before = errs->total;
	for (size_t v = 0; uvs && v < n_verts; v++) {
		if (isfinite(uvs[2 * v]) && isfinite(uvs[2 * v + 1]))
			continue;
		struct rig_err *e =
			rig_errs_add(errs, RIG_MESH_GEOMETRY,
				     "texture coordinate of vertex %zu is not finite", v);
		e->vertex_index = (long)v;
		snprintf(e->pointer, sizeof e->pointer, "/uvs/%zu", v);
	}
	return errs->total > before ? -1 : 0;
}
