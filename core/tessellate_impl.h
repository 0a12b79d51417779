/* Internal to the tessellation (core/tessellate*.c): the rectangle's frame,
 * the coverage sampler, the growing mesh both modes fill and the one step
 * that finishes it (degenerate triangles and unused vertices out, uvs in).
 * Nothing here is part of core/tessellate.h's contract.
 */
#ifndef RIG_TESSELLATE_IMPL_H
#define RIG_TESSELLATE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* GEOS's reentrant API only: every call takes the context its caller made. */
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

#include "core/err.h"

/* core/tessellate.h's types, by name only: that header includes nothing of
 * this one, and this one nothing of it (one module, no include cycle). */
struct rig_alpha_image;
struct rig_tess_params;
struct rig_tess_mesh;

/* The rectangle in the output's coordinates (pivot-relative, y up). */
struct rig_tess__frame {
	double x0, y0;   /* the ungrown rectangle's bottom-left corner */
	double w, h;     /* its size */
	double gx0, gy0; /* the grown rectangle's bottom-left corner */
	double gw, gh;   /* its size (w + 2·expansion, h + 2·expansion) */
	double spacing;  /* √(gw·gh) / density: the side of a square of a grid cell's area */
};

void rig_tess__frame_init(struct rig_tess__frame *f, const struct rig_tess_params *p);

/* True when the image covers (x, y): the pixel under the point (the one whose
 * square holds it; the closed rectangle maps into the image) has alpha above
 * the threshold. Points outside the ungrown rectangle are uncovered. */
bool rig_tess__image_covers(const struct rig_alpha_image *img, uint8_t threshold,
			    const struct rig_tess__frame *f, double x, double y);

/* A mesh being built: vertices and counter-clockwise triangles, growing. */
struct rig_tess__build {
	double *xy;
	size_t n_verts, cap_verts;
	uint32_t *tris;
	size_t n_tris, cap_tris;
};

/* Appends a vertex; returns its index, or -1 when out of memory. */
long rig_tess__add_vert(struct rig_tess__build *b, double x, double y);

/* Appends a triangle; returns 0, or -1 when out of memory. */
int rig_tess__add_tri(struct rig_tess__build *b, uint32_t i, uint32_t j, uint32_t k);

void rig_tess__build_release(struct rig_tess__build *b);

/* Turns b into *out: drops triangles whose area is not above core/mesh.h's
 * degeneracy limit (1e-12 · max(1, bbox diagonal²), measured over every
 * vertex of b, so the finished mesh's own limit is never larger), drops the
 * vertices no triangle uses keeping the others' order, and computes the uvs.
 * Returns 0; -1 with TESSELLATE_EMPTY at `pointer` when fewer than
 * RIG_MIN_VERTICES vertices or no triangle remain (or past the mesh limits,
 * MESH_GEOMETRY); -2 when out of memory. b is released either way. */
int rig_tess__finish(struct rig_tess_mesh *out, struct rig_tess__build *b,
		     const struct rig_tess__frame *f, const char *pointer, struct rig_errs *errs);

/* The JSON pointer an empty coverage is reported at: "/image", "/polygon" or "". */
const char *rig_tess__coverage_pointer(const struct rig_tess_params *p);

/* The two modes (checked params, out zeroed): 0, -1 with errs, -2 out of memory. */
int rig_tess__grid(struct rig_tess_mesh *out, const struct rig_tess_params *p,
		   struct rig_errs *errs);
int rig_tess__silhouette(struct rig_tess_mesh *out, const struct rig_tess_params *p,
			 struct rig_errs *errs);

/* The polygon rules of rig_tess_params_check that need GEOS (zero area,
 * self-intersection, holes inside the outline), for rings already known to
 * have 3 to RIG_MAX_POLYGON_POINTS finite points. Returns 0, -1 with errs,
 * -2 when GEOS could not run (out of memory). */
int rig_tess__check_polygon(const struct rig_tess_params *p, struct rig_errs *errs);

/* A GEOS context for one call, errors kept quiet (the caller reads results). */
GEOSContextHandle_t rig_tess__geos_new(void);

/* The params' polygon (outline and holes) as a GEOS polygon; NULL when GEOS
 * fails (out of memory). */
GEOSGeometry *rig_tess__params_polygon(GEOSContextHandle_t ctx, const struct rig_tess_params *p);

/* ---- marching squares (core/tessellate_contour.c) ---- */

/* The outline of an image's coverage: rings of points in the output's
 * coordinates, each closed implicitly (the last point is not the first),
 * outer boundaries counter-clockwise and holes clockwise. */
struct rig_tess__rings {
	double *xy; /* every ring's points, one after another */
	size_t n_points, cap_points;
	size_t *start;             /* ring r is points start[r] .. start[r + 1] - 1 */
	size_t n_rings, cap_rings; /* start holds n_rings + 1 entries */
};

/* Traces the contour of {alpha > threshold} over the pixel centres
 * (marching squares, saddles joined when the cell's mean alpha is above the
 * threshold) and keeps the rings enclosing at least min_area (output
 * units²). Returns 0 or -2 when out of memory (out released). */
int rig_tess__contour(struct rig_tess__rings *out, const struct rig_alpha_image *img,
		      uint8_t threshold, const struct rig_tess__frame *f, double min_area);

void rig_tess__rings_release(struct rig_tess__rings *r);

#endif
