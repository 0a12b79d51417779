/* Tessellation: a rest mesh (source, triangles, uvs) from a rectangle and
 * its coverage, an alpha image or a polygon with holes (issue 25 item 1).
 *
 * The rectangle is width × height, grown by expansion on every side, in
 * coordinates whose origin is the pivot and whose y runs up. The pivot is
 * given as a fraction of the (ungrown) rectangle from its left and bottom
 * edges: (0.5, 0.5), the default, is its centre. uvs run 0..1 over the
 * ungrown rectangle, u to the right and v down from its top edge (glTF's
 * convention), so a grown rectangle's outer vertices have uvs past 0..1.
 * An image spans the ungrown rectangle, its row 0 the top edge; a polygon is
 * in the output's coordinates (pivot-relative, y up).
 *
 * Two modes: grid (the seed's grid, culled by coverage and dilated one ring)
 * and silhouette (the coverage's outline, simplified, offset, resampled,
 * filled with a hexagonal lattice and triangulated with GEOS). Either way
 * the mesh passes rig_mesh_check_source, every triangle is counter-clockwise
 * and inside the coverage (grown by expansion), and the same input gives the
 * same bytes. No I/O.
 */
#ifndef RIG_TESSELLATE_H
#define RIG_TESSELLATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

enum rig_tess_mode { RIG_TESS_GRID = 0, RIG_TESS_SILHOUETTE = 1 };

/* "grid", "silhouette"; NULL outside the enum. Parse: 0, or -1 for another name. */
const char *rig_tess_mode_name(enum rig_tess_mode mode);
int rig_tess_mode_parse(enum rig_tess_mode *out, const char *name);

/* An 8-bit alpha plane, width · height bytes, row 0 the image's top row. */
struct rig_alpha_image {
	const uint8_t *alpha;
	size_t width, height;
};

/* A closed ring of n points (x, y interleaved; the last point is not the first
 * repeated), in the output's coordinates. */
struct rig_tess_ring {
	const double *xy;
	size_t n;
};

struct rig_tess_params {
	double width, height;    /* finite, > 0 */
	double pivot_x, pivot_y; /* fractions of the rectangle; 0.5, 0.5 by default */
	double expansion;        /* finite, >= 0 */
	int density;             /* grid cells per side, RIG_MIN/MAX_TESS_DENSITY */
	enum rig_tess_mode mode;
	/* Coverage: an image, or an outline with holes, or neither (the whole
	 * rectangle is covered). */
	const struct rig_alpha_image *image;
	/* A pixel is covered when its alpha > threshold (12 by default); a point
	 * samples the pixel whose square holds it, outside the image uncovered. */
	uint8_t alpha_threshold;
	const struct rig_tess_ring *outline;
	const struct rig_tess_ring *holes;
	size_t n_holes;
};

/* The defaults: pivot at the centre, no expansion, threshold 12, grid, no
 * coverage. width, height and density stay 0, which the check refuses: they
 * have no default. */
void rig_tess_params_init(struct rig_tess_params *p);

/* Checks every field's rule, reporting each violation: INVALID_FIELD at
 * "/width", "/height", "/pivot" (not finite; any finite fraction is a pivot,
 * outside the rectangle too), "/expansion", "/density", "/mode", "/image" (an
 * empty plane), "/polygon" (an image and a polygon both), "/holes" (holes
 * without a polygon); TESSELLATE_IMAGE_TOO_LARGE at "/image" (a plane past
 * the limits); TESSELLATE_POLYGON at "/polygon" (fewer than 3 or more than
 * RIG_MAX_POLYGON_POINTS points, zero area) or "/polygon/<i>" (point i not
 * finite, or the first point of the edge where the ring crosses itself), and
 * "/holes/<h>", "/holes/<h>/<i>" alike (a hole also crossing the outline or
 * another hole, or outside the outline). The geometric rules run in GEOS.
 * Returns 0, -1, or -2 when out of memory. */
int rig_tess_params_check(const struct rig_tess_params *p, struct rig_errs *errs);

/* The mesh: malloc'd arrays the caller frees with rig_tess_mesh_release. */
struct rig_tess_mesh {
	double *source; /* 2 · n_verts */
	size_t n_verts;
	uint32_t *triangles; /* 3 · n_tris, counter-clockwise */
	size_t n_tris;
	double *uvs; /* 2 · n_verts, (u, v) per vertex */
};

void rig_tess_mesh_release(struct rig_tess_mesh *m);

/* Tessellates p (checked with rig_tess_params_check first) into *out.
 * Returns 0; -1 with errs filled (the params' rules, TESSELLATE_EMPTY at
 * "/image", "/polygon" or "" when the coverage keeps no triangle or too few
 * vertices); -2 when out of memory (or GEOS fails, which it does only for want
 * of resources). *out is zeroed on failure. docs/decisions.md has the
 * modes' exact rules (sampling, spacing, order, tolerances). */
int rig_tessellate(struct rig_tess_mesh *out, const struct rig_tess_params *p,
		   struct rig_errs *errs);

#endif
