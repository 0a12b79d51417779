/* Mesh checks: the source mesh before skinning and the deformed mesh after it.
 *
 * Vertices are interleaved doubles [x0, y0, x1, y1, …]; triangles are index
 * triples [i0, j0, k0, i1, …]. Signed area A = ((b − a) × (c − a)) / 2.
 * Every violation is recorded with its code and index (see err.h); nothing
 * allocates.
 */
#ifndef RIG_MESH_H
#define RIG_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* Twice the signed area of triangle (a, b, c) of an interleaved vertex array. */
double rig_mesh_area2(const double *xy, uint32_t a, uint32_t b, uint32_t c);

/* Checks a source mesh: vertex count in [RIG_MIN_VERTICES, RIG_MAX_VERTICES] and
 * finite coordinates (MESH_GEOMETRY, vertex_index set per bad vertex); triangle
 * count in range, indices inside [0, n_verts) and distinct within a triangle
 * (MESH_TOPOLOGY, triangle_index set); non-zero area
 * |A| > 1e-12 · max(1, bbox diagonal²) (MESH_DEGENERATE). Pointers are
 * "/source/<v>" and "/triangles/<t>". Returns 0 when valid, -1 otherwise. */
int rig_mesh_check_source(const double *xy, size_t n_verts, const uint32_t *tris, size_t n_tris,
			  struct rig_errs *errs);

/* Checks a deformed mesh against its (valid) source: every vertex finite
 * (MESH_GEOMETRY), every triangle keeps the sign of its source area
 * (MESH_WINDING) and |A'| ≥ 1e-6 · |A_source| (MESH_COLLAPSED); triangle_index
 * set. Returns 0 when valid, -1 otherwise. */
int rig_mesh_check_deformed(const double *src, const double *dst, size_t n_verts,
			    const uint32_t *tris, size_t n_tris, struct rig_errs *errs);

/* Checks texture coordinates (2 · n_verts, u and v per vertex): every value
 * finite (MESH_GEOMETRY, vertex_index set, pointer "/uvs/<v>"); NULL (no
 * uvs) is valid. Returns 0 when valid, -1 otherwise. */
int rig_mesh_check_uvs(const double *uvs, size_t n_verts, struct rig_errs *errs);

/* Twice the signed area of every triangle into out (n_tris doubles). */
void rig_mesh_areas2(double *out, const double *xy, const uint32_t *tris, size_t n_tris);

/* rig_mesh_check_deformed with the source areas precomputed by rig_mesh_areas2
 * (the skin evaluator keeps them): the same rules, half the gathers per frame.
 * src is read only to report violations. */
int rig_mesh_check_deformed_areas(const double *src, const double *src_area2, const double *dst,
				  size_t n_verts, const uint32_t *tris, size_t n_tris,
				  struct rig_errs *errs);

/* ---- shared with core/mesh_check.c (internal to core/) ---- */

/* SPEC §3: a deformed triangle has collapsed when |A'| < 1e-6 · |A_source|. */
#define RIG_MESH_COLLAPSED_RELATIVE 1e-6

/* 2A of triangle (a, b, c) of an interleaved array: the one formula every
 * check uses, so every pass measures the same bits. */
static inline double rig_mesh__area2(const double *xy, size_t a, size_t b, size_t c)
{
	double ax = xy[2 * a], ay = xy[2 * a + 1];
	double bx = xy[2 * b], by = xy[2 * b + 1];
	double cx = xy[2 * c], cy = xy[2 * c + 1];
	return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/* The report of a deformed mesh that breaks a rule: records every violation,
 * in the order and form rig_mesh_check_deformed documents. */
void rig_mesh__report_deformed(const double *src, const double *dst, size_t n_verts,
			       const uint32_t *tris, size_t n_tris, struct rig_errs *errs);

#endif
