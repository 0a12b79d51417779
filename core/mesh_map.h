/* Carrying points from a source mesh to its deformed copy (SPEC §4 "Output
 * spaces"): each point is located in the source mesh — the first triangle that
 * contains it, else the nearest triangle — and moved by its barycentric
 * coordinates in that triangle to the deformed triangle. Outside every triangle
 * the coordinates are those of the nearest triangle, unclamped, so the mapping
 * extends that triangle's affine motion. Used for space=shot through deformed
 * ancestors and for map-points requests.
 */
#ifndef RIG_MESH_MAP_H
#define RIG_MESH_MAP_H

#include <stddef.h>
#include <stdint.h>

/* Where a point sits in a mesh: its triangle and barycentric weights (w0 + w1 + w2 = 1). */
struct rig_mesh_site {
	uint32_t triangle;
	double w[3];
};

/* Locates (x, y) in the source mesh (n_tris ≥ 1, indices valid, no zero-area
 * triangle). Ties go to the lowest triangle index, so the answer is deterministic. */
struct rig_mesh_site rig_mesh_locate(const double *src, const uint32_t *tris, size_t n_tris,
				     double x, double y);

/* Maps n interleaved points in place from src to dst (same topology). */
void rig_mesh_map_points(double *xy, size_t n, const double *src, const double *dst,
			 const uint32_t *tris, size_t n_tris);

#endif
