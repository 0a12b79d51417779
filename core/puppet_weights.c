/* The puppet's harmonic pin weights (issue 24 item 3) over the mesh graph of
 * core/mesh_graph.h.
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
/* Classes and the reduced system                                            */
/* ------------------------------------------------------------------------ */

/* Components (rig_mesh_graph_components: a component's root is its lowest
 * vertex); loose components find their nearest pin vertex. */
static int classify(struct rig_puppet *pup, uint32_t *root, int32_t *loose_pin)
{
	const struct rig_mesh_graph *g = &pup->graph;
	size_t n = g->n_verts, n_pins = pup->def.n_pins;
	const double *src = pup->def.source;
	rig_mesh_graph_components(root, g);
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

/* The pattern of the Laplacian over the unknowns (mesh_graph.h), analysed. */
static int lay_out(struct rig_puppet *pup)
{
	long *ap, *ai;
	if (rig_mesh_graph_reduced_pattern(&ap, &ai, &pup->entry_edge, &pup->graph, pup->slot,
					   pup->free_verts, pup->n_free) != 0)
		return -1;
	int rc = rig_sparse_analyse(&pup->sym, pup->n_free, ap, ai);
	free(ap);
	free(ai);
	return rc;
}

void rig_puppet__assemble(double *ax, const struct rig_puppet *pup, const double *w)
{
	rig_mesh_graph_reduced_values(ax, &pup->graph, pup->sym.ap, pup->entry_edge,
				      pup->free_verts, pup->n_free, w);
}

/* ------------------------------------------------------------------------ */
/* The weights                                                               */
/* ------------------------------------------------------------------------ */

/* Solves each pin's field into the weights' columns (free vertices). */
static int solve_fields(struct rig_puppet *pup)
{
	const struct rig_mesh_graph *g = &pup->graph;
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
