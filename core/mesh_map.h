/* Carrying points from a source mesh to its deformed copy (SPEC §4 "Output
 * spaces"): each point is located in the source mesh — the first triangle that
 * contains it, else the nearest triangle — and moved by its barycentric
 * coordinates in that triangle to the deformed triangle. Outside every triangle
 * the coordinates are those of the nearest triangle, unclamped, so the mapping
 * extends that triangle's affine motion. Used for space=shot through deformed
 * ancestors and for map-points requests.
 *
 * Two ways to locate a point give the same site, bit for bit: the reference
 * scan over every triangle (rig_mesh_locate) and a bounding-volume hierarchy
 * built once per request (rig_mesh_index_*), which tests the same predicate and
 * measures the same distance, only on fewer triangles. Pure: no I/O, no clock.
 */
#ifndef RIG_MESH_MAP_H
#define RIG_MESH_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a point sits in a mesh: its triangle and barycentric weights
 * (w0 + w1 + w2 = 1, unclamped). inside: all three weights, as computed, are
 * ≥ 0 (the point is in that triangle; nothing is extrapolated). distance: the
 * Euclidean distance from the point to the triangle's edges when outside (then
 * the distance to the whole mesh), 0 when inside. */
struct rig_mesh_site {
	uint32_t triangle;
	double w[3];
	bool inside;
	double distance;
};

/* The reference scan: locates (x, y) in the source mesh (n_tris ≥ 1, indices
 * valid, no zero-area triangle) by testing every triangle. Ties go to the
 * lowest triangle index, so the answer is deterministic. O(n_tris) per point. */
struct rig_mesh_site rig_mesh_locate(const double *src, const uint32_t *tris, size_t n_tris,
				     double x, double y);

/* A spatial index over a source mesh's triangles; opaque. */
struct rig_mesh_index;

/* Builds the index of a source mesh (same preconditions as rig_mesh_locate).
 * Borrows src and tris, which must outlive the index and not change. Holds at
 * most RIG_MESH_INDEX_BYTES_PER_TRIANGLE bytes per triangle plus a constant
 * (rig_mesh_index_bytes() tells exactly: 4 per triangle for the order, 24 per
 * node, at most one node per two triangles), and 33 more per triangle while
 * building. Deterministic: the same mesh gives the same index. Returns a new
 * index, free with rig_mesh_index_free(); NULL when out of memory. */
#define RIG_MESH_INDEX_BYTES_PER_TRIANGLE 16
/* What building holds at once, per triangle, at most: the boxes (16), the
 * loose flags (1), the order (4), the sort keys and their scratch (8 + 8) and
 * the nodes (24 per two triangles). Callers reserve it in memory budgets. */
#define RIG_MESH_INDEX_PEAK_BYTES_PER_TRIANGLE 49
struct rig_mesh_index *rig_mesh_index_new(const double *src, const uint32_t *tris, size_t n_tris);

/* Frees an index; NULL is a no-op. */
void rig_mesh_index_free(struct rig_mesh_index *ix);

/* The bytes an index holds (for the benchmark and the memory bound's test). */
size_t rig_mesh_index_bytes(const struct rig_mesh_index *ix);

/* Locates (x, y) through the index: exactly the site rig_mesh_locate returns
 * (same triangle, bit-identical weights, inside and distance). Read-only:
 * threads may share one index. */
struct rig_mesh_site rig_mesh_index_locate(const struct rig_mesh_index *ix, double x, double y);

/* Maps n interleaved points in place from the indexed source mesh to dst (same
 * topology, 2 · n_verts doubles). When out_sites is not NULL it receives each
 * point's site (n entries). */
void rig_mesh_map_points(double *xy, struct rig_mesh_site *out_sites, size_t n,
			 const struct rig_mesh_index *ix, const double *dst);

#endif
