/* The mesh graph and its reduced Laplacian (mesh_graph.h), shared by the
 * puppet's weights and ARAP step and the harmonic automatic weights. Moved
 * here unchanged from core/puppet_weights.c, so the puppet's results are the
 * same bits they were.
 */
#include "core/mesh_graph.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The graph                                                                 */
/* ------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void rig_mesh_graph_release(struct rig_mesh_graph *g)
{
	free(g->off);
	free(g->nbr);
	free(g->edge);
	free(g->ends);
	memset(g, 0, sizeof *g);
}

int rig_mesh_graph_build(struct rig_mesh_graph *out, const uint32_t *tris, size_t n_tris,
			 size_t n_verts)
{
	memset(out, 0, sizeof *out);
	size_t n_pairs = 3 * n_tris;
	uint64_t *pairs = malloc((n_pairs ? n_pairs : 1) * sizeof *pairs);
	if (!pairs)
		return -1;
	for (size_t t = 0; t < n_tris; t++) {
		for (int k = 0; k < 3; k++) {
			uint64_t a = tris[3 * t + k], b = tris[3 * t + (k + 1) % 3];
			pairs[3 * t + k] = a < b ? a << 32 | b : b << 32 | a;
		}
	}
	qsort(pairs, n_pairs, sizeof *pairs, cmp_u64);
	size_t n_edges = 0;
	for (size_t i = 0; i < n_pairs; i++)
		if (i == 0 || pairs[i] != pairs[i - 1])
			pairs[n_edges++] = pairs[i];
	out->n_verts = n_verts;
	out->n_edges = n_edges;
	out->off = calloc(n_verts + 1, sizeof *out->off);
	out->nbr = malloc((2 * n_edges + 1) * sizeof *out->nbr);
	out->edge = malloc((2 * n_edges + 1) * sizeof *out->edge);
	out->ends = malloc((2 * n_edges + 1) * sizeof *out->ends);
	uint32_t *fill = calloc(n_verts + 1, sizeof *fill);
	if (!out->off || !out->nbr || !out->edge || !out->ends || !fill) {
		free(fill);
		free(pairs);
		rig_mesh_graph_release(out);
		return -1;
	}
	for (size_t e = 0; e < n_edges; e++) {
		uint32_t i = (uint32_t)(pairs[e] >> 32), j = (uint32_t)pairs[e];
		out->ends[2 * e] = i;
		out->ends[2 * e + 1] = j;
		out->off[i + 1]++;
		out->off[j + 1]++;
	}
	for (size_t v = 0; v < n_verts; v++)
		out->off[v + 1] += out->off[v];
	/* Edges are sorted by (i, j): vertex v meets its lower neighbours (as j)
	 * in ascending i, then its higher ones (as i) in ascending j; two passes
	 * keep every list ascending. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t e = 0; e < n_edges; e++) {
			uint32_t i = out->ends[2 * e], j = out->ends[2 * e + 1];
			uint32_t v = pass == 0 ? j : i, u = pass == 0 ? i : j;
			uint32_t at = out->off[v] + fill[v]++;
			out->nbr[at] = u;
			out->edge[at] = (uint32_t)e;
		}
	}
	free(fill);
	free(pairs);
	return 0;
}

long rig_mesh_graph_edge(const struct rig_mesh_graph *g, uint32_t i, uint32_t j)
{
	size_t lo = g->off[i], hi = g->off[i + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->nbr[mid] < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->off[i + 1] && g->nbr[lo] == j ? (long)g->edge[lo] : -1;
}

static uint32_t find_root(uint32_t *parent, uint32_t v)
{
	while (parent[v] != v) {
		parent[v] = parent[parent[v]];
		v = parent[v];
	}
	return v;
}

/* Union-find; the smaller root wins, so a component's root is its lowest
 * vertex. */
void rig_mesh_graph_components(uint32_t *root, const struct rig_mesh_graph *g)
{
	size_t n = g->n_verts;
	for (size_t v = 0; v < n; v++)
		root[v] = (uint32_t)v;
	for (size_t e = 0; e < g->n_edges; e++) {
		uint32_t a = find_root(root, g->ends[2 * e]),
			 b = find_root(root, g->ends[2 * e + 1]);
		if (a != b)
			root[a > b ? a : b] = a < b ? a : b;
	}
	for (size_t v = 0; v < n; v++)
		root[v] = find_root(root, (uint32_t)v);
}

/* ------------------------------------------------------------------------ */
/* The reduced system                                                        */
/* ------------------------------------------------------------------------ */

/* Unknowns are numbered in vertex order, so a vertex's ascending neighbours
 * stay ascending; the diagonal goes in before the first higher unknown. */
int rig_mesh_graph_reduced_pattern(long **out_ap, long **out_ai, uint32_t **out_entry_edge,
				   const struct rig_mesh_graph *g, const int32_t *slot,
				   const uint32_t *free_verts, size_t n_free)
{
	size_t nz = 0;
	for (size_t f = 0; f < n_free; f++) {
		uint32_t v = free_verts[f];
		nz++;
		for (size_t s = g->off[v]; s < g->off[v + 1]; s++)
			nz += slot[g->nbr[s]] >= 0;
	}
	long *ap = malloc((n_free + 1) * sizeof *ap), *ai = malloc((nz ? nz : 1) * sizeof *ai);
	uint32_t *entry_edge = malloc((nz ? nz : 1) * sizeof *entry_edge);
	if (!ap || !ai || !entry_edge) {
		free(ap);
		free(ai);
		free(entry_edge);
		*out_ap = NULL;
		*out_ai = NULL;
		*out_entry_edge = NULL;
		return -1;
	}
	size_t at = 0;
	for (size_t f = 0; f < n_free; f++) {
		uint32_t v = free_verts[f];
		bool placed = false;
		ap[f] = (long)at;
		for (size_t s = g->off[v]; s <= g->off[v + 1]; s++) {
			int32_t r = s < g->off[v + 1] ? slot[g->nbr[s]] : INT32_MAX;
			if (!placed && r > (int32_t)f) {
				ai[at] = (long)f;
				entry_edge[at++] = RIG_MESH_GRAPH_DIAGONAL;
				placed = true;
			}
			if (s < g->off[v + 1] && r >= 0) {
				ai[at] = r;
				entry_edge[at++] = g->edge[s];
			}
		}
	}
	ap[n_free] = (long)at;
	*out_ap = ap;
	*out_ai = ai;
	*out_entry_edge = entry_edge;
	return 0;
}

void rig_mesh_graph_reduced_values(double *ax, const struct rig_mesh_graph *g, const long *ap,
				   const uint32_t *entry_edge, const uint32_t *free_verts,
				   size_t n_free, const double *w)
{
	for (size_t f = 0; f < n_free; f++) {
		uint32_t v = free_verts[f];
		double diag = 0;
		for (size_t s = g->off[v]; s < g->off[v + 1]; s++)
			diag += w[g->edge[s]];
		for (long p = ap[f]; p < ap[f + 1]; p++) {
			uint32_t e = entry_edge[p];
			ax[p] = e == RIG_MESH_GRAPH_DIAGONAL ? diag : -w[e];
		}
	}
}
