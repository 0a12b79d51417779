/* The puppet's mesh graph and harmonic pin weights (issue 24 item 3).
 *
 * Per pin p the weight field Wp is harmonic over the mesh graph with unit
 * edge weights (every free vertex the plain average of its neighbours, the
 * seed's rule), 1 at p's vertex and 0 at every other pin's: L_FF Wp = b with
 * L the graph Laplacian restricted to the free vertices F and bf the number
 * of edges from f to p's vertex. L_FF is the same for every pin, so it is
 * factorised once (core/sparse.h) and solved once per pin: exact up to
 * rounding, where the seed's 150 Jacobi sweeps do not converge. Rounding may
 * leave an entry a few ulps below 0 (the exact field lies in [0, 1]): it is
 * clamped to 0, so a stiffness power of it stays defined. Each vertex's row
 * is then divided by its sum, or split 1/P where the sum is not positive.
 *
 * A component without a pin takes, for all its vertices, the one-hot weights
 * of the pin whose vertex is nearest to any of its vertices by rest distance
 * (ties: the lowest vertex index): it follows that pin as a whole.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/puppet_impl.h"

/* ------------------------------------------------------------------------ */
/* The graph                                                                 */
/* ------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void rig_puppet__graph_release(struct rig_puppet_graph *g)
{
	free(g->off);
	free(g->nbr);
	free(g->edge);
	free(g->ends);
	memset(g, 0, sizeof *g);
}

int rig_puppet__graph_build(struct rig_puppet_graph *out, const uint32_t *tris, size_t n_tris,
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
		rig_puppet__graph_release(out);
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

long rig_puppet__graph_edge(const struct rig_puppet_graph *g, uint32_t i, uint32_t j)
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

/* ------------------------------------------------------------------------ */
/* Classes and the reduced system                                            */
/* ------------------------------------------------------------------------ */

static uint32_t find_root(uint32_t *parent, uint32_t v)
{
	while (parent[v] != v) {
		parent[v] = parent[parent[v]];
		v = parent[v];
	}
	return v;
}

/* Components by union-find (the smaller root wins, so a component's root is
 * its lowest vertex); loose components find their nearest pin vertex. */
static int classify(struct rig_puppet *pup, uint32_t *root, int32_t *loose_pin)
{
	const struct rig_puppet_graph *g = &pup->graph;
	size_t n = g->n_verts, n_pins = pup->def.n_pins;
	const double *src = pup->def.source;
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
	bool *is_pinned = calloc(n ? n : 1, sizeof *is_pinned);
	double *best = malloc((n ? n : 1) * sizeof *best);
	if (!is_pinned || !best) {
		free(is_pinned);
		free(best);
		return -1;
	}
	for (size_t p = 0; p < n_pins; p++)
		is_pinned[root[pup->pin_vertex[p]]] = true;
	for (size_t v = 0; v < n; v++) {
		best[v] = INFINITY;
		loose_pin[v] = -1;
	}
	pup->n_free = 0;
	for (size_t v = 0; v < n; v++) {
		if (pup->pin_of[v] >= 0) {
			pup->slot[v] = RIG_PUPPET__FIXED;
		} else if (is_pinned[root[v]]) {
			pup->slot[v] = (int32_t)pup->n_free;
			pup->free_verts[pup->n_free++] = (uint32_t)v;
		} else {
			pup->slot[v] = RIG_PUPPET__LOOSE;
			uint32_t r = root[v];
			for (size_t p = 0; p < n_pins; p++) {
				uint32_t u = pup->pin_vertex[p];
				double dx = src[2 * v] - src[2 * u],
				       dy = src[2 * v + 1] - src[2 * u + 1];
				double d2 = dx * dx + dy * dy;
				/* The first pin seen is taken whatever its distance: a
				 * damaged (non-finite) source must still name one. */
				if (loose_pin[r] < 0 || d2 < best[r] ||
				    (d2 == best[r] && u < pup->pin_vertex[loose_pin[r]])) {
					best[r] = d2;
					loose_pin[r] = (int32_t)p;
				}
			}
		}
	}
	free(is_pinned);
	free(best);
	return 0;
}

/* The pattern of the Laplacian over the unknowns: per column its unknown
 * neighbours and its diagonal, rows ascending (unknowns are numbered in
 * vertex order, so a vertex's ascending neighbours stay ascending). */
static int lay_out(struct rig_puppet *pup)
{
	const struct rig_puppet_graph *g = &pup->graph;
	size_t nf = pup->n_free, nz = 0;
	for (size_t f = 0; f < nf; f++) {
		uint32_t v = pup->free_verts[f];
		nz++;
		for (size_t s = g->off[v]; s < g->off[v + 1]; s++)
			nz += pup->slot[g->nbr[s]] >= 0;
	}
	long *ap = malloc((nf + 1) * sizeof *ap), *ai = malloc((nz ? nz : 1) * sizeof *ai);
	pup->entry_edge = malloc((nz ? nz : 1) * sizeof *pup->entry_edge);
	int rc = -1;
	if (!ap || !ai || !pup->entry_edge)
		goto out_free;
	size_t at = 0;
	for (size_t f = 0; f < nf; f++) {
		uint32_t v = pup->free_verts[f];
		bool placed = false;
		ap[f] = (long)at;
		for (size_t s = g->off[v]; s <= g->off[v + 1]; s++) {
			int32_t r = s < g->off[v + 1] ? pup->slot[g->nbr[s]] : INT32_MAX;
			if (!placed && r > (int32_t)f) {
				ai[at] = (long)f;
				pup->entry_edge[at++] = RIG_PUPPET__DIAGONAL;
				placed = true;
			}
			if (s < g->off[v + 1] && r >= 0) {
				ai[at] = r;
				pup->entry_edge[at++] = g->edge[s];
			}
		}
	}
	ap[nf] = (long)at;
	rc = rig_sparse_analyse(&pup->sym, nf, ap, ai);
out_free:
	free(ap);
	free(ai);
	return rc;
}

void rig_puppet__assemble(double *ax, const struct rig_puppet *pup, const double *w)
{
	const struct rig_puppet_graph *g = &pup->graph;
	for (size_t f = 0; f < pup->n_free; f++) {
		uint32_t v = pup->free_verts[f];
		double diag = 0;
		for (size_t s = g->off[v]; s < g->off[v + 1]; s++)
			diag += w[g->edge[s]];
		for (long p = pup->sym.ap[f]; p < pup->sym.ap[f + 1]; p++) {
			uint32_t e = pup->entry_edge[p];
			ax[p] = e == RIG_PUPPET__DIAGONAL ? diag : -w[e];
		}
	}
}

/* ------------------------------------------------------------------------ */
/* The weights                                                               */
/* ------------------------------------------------------------------------ */

/* Solves each pin's field into the weights' columns (free vertices). */
static int solve_fields(struct rig_puppet *pup)
{
	const struct rig_puppet_graph *g = &pup->graph;
	size_t nf = pup->n_free, n_pins = pup->def.n_pins, nz = (size_t)pup->sym.ap[nf];
	double *unit = malloc((g->n_edges ? g->n_edges : 1) * sizeof *unit);
	double *ax = malloc((nz ? nz : 1) * sizeof *ax);
	double *x = malloc((nf ? nf : 1) * sizeof *x), *work = malloc((nf ? nf : 1) * sizeof *work);
	struct rig_sparse_numeric lap = {0};
	int rc = -1;
	if (!unit || !ax || !x || !work)
		goto out_free;
	for (size_t e = 0; e < g->n_edges; e++)
		unit[e] = 1;
	rig_puppet__assemble(ax, pup, unit);
	if (rig_sparse_factor(&lap, &pup->sym, ax) != 0)
		goto out_free;
	for (size_t p = 0; p < n_pins; p++) {
		uint32_t u = pup->pin_vertex[p];
		memset(x, 0, nf * sizeof *x);
		for (size_t s = g->off[u]; s < g->off[u + 1]; s++)
			if (pup->slot[g->nbr[s]] >= 0)
				x[pup->slot[g->nbr[s]]] += 1;
		rig_sparse_solve(&pup->sym, &lap, x, work);
		for (size_t f = 0; f < nf; f++)
			pup->weights[(size_t)pup->free_verts[f] * n_pins + p] = x[f];
	}
	rc = 0;
out_free:
	rig_sparse_numeric_release(&lap);
	free(unit);
	free(ax);
	free(x);
	free(work);
	return rc;
}

/* Clamps below 0 and divides by the row's sum (1/P where it is not positive
 * and finite): every row sums to 1 within rounding and nothing is NaN. */
static void normalise(double *w, size_t n_verts, size_t n_pins)
{
	for (size_t v = 0; v < n_verts; v++) {
		double *row = &w[v * n_pins], sum = 0;
		for (size_t p = 0; p < n_pins; p++) {
			if (!(row[p] > 0))
				row[p] = 0;
			sum += row[p];
		}
		for (size_t p = 0; p < n_pins; p++)
			row[p] = sum > 0 && isfinite(sum) ? row[p] / sum : 1.0 / (double)n_pins;
	}
}

int rig_puppet__weights_build(struct rig_puppet *pup)
{
	size_t n = pup->def.n_verts, n_pins = pup->def.n_pins;
	pup->slot = malloc((n ? n : 1) * sizeof *pup->slot);
	pup->free_verts = malloc((n ? n : 1) * sizeof *pup->free_verts);
	pup->weights = calloc(n * n_pins + 1, sizeof *pup->weights);
	uint32_t *root = malloc((n ? n : 1) * sizeof *root);
	int32_t *loose_pin = malloc((n ? n : 1) * sizeof *loose_pin);
	int rc = -1;
	if (!pup->slot || !pup->free_verts || !pup->weights || !root || !loose_pin)
		goto out_free;
	if (classify(pup, root, loose_pin) != 0 || lay_out(pup) != 0)
		goto out_free;
	if (n_pins > 0 && solve_fields(pup) != 0)
		goto out_free;
	for (size_t v = 0; v < n && n_pins > 0; v++) {
		if (pup->pin_of[v] >= 0)
			pup->weights[v * n_pins + (size_t)pup->pin_of[v]] = 1;
		else if (pup->slot[v] == RIG_PUPPET__LOOSE)
			pup->weights[v * n_pins + (size_t)loose_pin[root[v]]] = 1;
	}
	if (n_pins > 0)
		normalise(pup->weights, n, n_pins);
	rc = 0;
out_free:
	free(root);
	free(loose_pin);
	return rc;
}
