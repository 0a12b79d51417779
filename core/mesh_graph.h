/* A triangle mesh's edge graph and its graph Laplacian reduced to a set of
 * unknown vertices: what the puppet's harmonic pin weights and ARAP step
 * (core/puppet_weights.c, puppet_solve.c) and the harmonic automatic weights
 * (core/auto_weights.c) solve on. No I/O; every array belongs to the struct
 * or the caller named.
 *
 * A reduced system is the Laplacian L (per-edge weights w: L_vv = Σ_e∋v w_e,
 * L_uv = −w_uv) restricted to the unknowns: the caller numbers them (slot[v]
 * the unknown's index, negative for a vertex that is not one; free_verts the
 * inverse, ascending in vertex order), and the columns hold, rows ascending,
 * the unknown neighbours of each unknown and its diagonal.
 */
#ifndef RIG_MESH_GRAPH_H
#define RIG_MESH_GRAPH_H

#include <stddef.h>
#include <stdint.h>

/* entry_edge of a diagonal entry of a reduced system. */
#define RIG_MESH_GRAPH_DIAGONAL UINT32_MAX

/* The mesh's edges, each once, and every vertex's neighbours ascending. */
struct rig_mesh_graph {
	size_t n_verts, n_edges;
	uint32_t *off;  /* n_verts + 1: vertex v's neighbours are nbr[off[v] .. off[v + 1]) */
	uint32_t *nbr;  /* 2 · n_edges */
	uint32_t *edge; /* per neighbour slot: the edge it is */
	uint32_t *ends; /* 2 per edge, ascending: i < j; edges sorted by (i, j) */
};

/* Builds the graph of the triangles (indices already checked < n_verts).
 * Returns 0, or -1 when out of memory (*out zeroed). Release with
 * rig_mesh_graph_release. */
int rig_mesh_graph_build(struct rig_mesh_graph *out, const uint32_t *tris, size_t n_tris,
			 size_t n_verts);

/* Frees the graph's arrays and zeroes it; safe on a zeroed graph. */
void rig_mesh_graph_release(struct rig_mesh_graph *g);

/* The edge between i and j (i < j), or −1 when they are not neighbours. */
long rig_mesh_graph_edge(const struct rig_mesh_graph *g, uint32_t i, uint32_t j);

/* The connected components: root[v] (n_verts entries, the caller's) is the
 * lowest vertex of v's component. */
void rig_mesh_graph_components(uint32_t *root, const struct rig_mesh_graph *g);

/* The reduced system's pattern over the n_free unknowns (slot, free_verts as
 * the file comment says) into new arrays: *out_ap (n_free + 1 column starts),
 * *out_ai (row indices) and *out_entry_edge (per entry the edge it holds, or
 * RIG_MESH_GRAPH_DIAGONAL). Returns 0, or -1 when out of memory (all three
 * NULL then). The caller frees them. */
int rig_mesh_graph_reduced_pattern(long **out_ap, long **out_ai, uint32_t **out_entry_edge,
				   const struct rig_mesh_graph *g, const int32_t *slot,
				   const uint32_t *free_verts, size_t n_free);

/* The reduced system's values for per-edge weights w into ax (ap[n_free]
 * doubles): the column of unknown f holds Σ w over every edge of its vertex
 * on the diagonal and −w of each edge to another unknown. */
void rig_mesh_graph_reduced_values(double *ax, const struct rig_mesh_graph *g, const long *ap,
				   const uint32_t *entry_edge, const uint32_t *free_verts,
				   size_t n_free, const double *w);

#endif
