/* What the puppet's files share (internal to core/puppet*.c): the evaluator's
 * layout, the mesh graph and the reduced system both the harmonic weights and
 * the ARAP global step solve on.
 *
 * The vertices fall into three classes. A pin's anchor vertex is fixed. A
 * vertex of a connected component (over the triangles' edges) that holds a
 * pin is free: it is an unknown of the reduced systems. A vertex of a
 * component without a pin is loose: it has no system (the Laplacian there
 * would be singular); it takes the weights of the pin vertex nearest its
 * component and keeps its LBS position under ARAP.
 */
#ifndef RIG_PUPPET_IMPL_H
#define RIG_PUPPET_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/mesh_check.h"
#include "core/mesh_graph.h"
#include "core/puppet.h"
#include "core/sparse.h"

/* The class of a vertex that is no unknown (struct rig_puppet's slot). */
#define RIG_PUPPET__FIXED (-1)
#define RIG_PUPPET__LOOSE (-2)

struct rig_puppet {
	struct rig_puppet_def def; /* owns the rest mesh and the pins */
	struct rig_mesh_graph graph;
	uint32_t *pin_vertex; /* per pin: its anchor */
	int32_t *pin_of;      /* per vertex: the pin anchored there, or −1 */
	int32_t *slot;        /* per vertex: its unknown's index, or FIXED / LOOSE */
	uint32_t *free_verts; /* per unknown: its vertex, ascending */
	size_t n_free;
	double *weights;         /* n_verts × n_pins, rows normalised */
	bool *is_oriented;       /* per pin: rig_puppet_pin_is_oriented */
	double max_rotation_rad; /* INFINITY when none */
	/* The reduced system's pattern over the unknowns (the same for the unit
	 * and the cotangent Laplacian) and per entry the edge it holds. */
	struct rig_sparse_symbolic sym;
	uint32_t *entry_edge;
	/* ARAP: per edge Σ clamped ½cot; the factorisation at the pins' static
	 * stiffness (has_arap: the solver is arap, two pins or more and an
	 * unknown at least), and that stiffness. */
	double *cot;
	bool has_arap;
	struct rig_sparse_numeric arap;
	double *static_sigma; /* per pin: max(0, static stiffness) */
	struct rig_mesh_check check;
};

/* Classes the vertices, lays out the reduced system and solves the harmonic
 * weights (puppet_weights.c): fills slot, free_verts, n_free, sym,
 * entry_edge and weights of pup, whose def, graph, pin_vertex and pin_of are
 * set. Returns 0, or -1 when out of memory (what was built stays for
 * rig_puppet_free). */
int rig_puppet__weights_build(struct rig_puppet *pup);

/* The reduced system's values for per-edge weights w into ax (sym.ap[n_free]
 * doubles): the column of unknown f holds Σ w over every edge of its vertex on
 * the diagonal and −w of each edge to another unknown. */
void rig_puppet__assemble(double *ax, const struct rig_puppet *pup, const double *w);

/* Per edge Σ over its triangles of ½cot of the angle opposite it, each term
 * clamped to [COT_MIN, COT_MAX] (½ for a triangle whose corner is
 * degenerate: a zero or non-finite cross product) into out (n_edges). */
void rig_puppet__cotangents(double *out, const struct rig_puppet *pup);

/* Factorises the ARAP system of per-pin stiffness sigma (max(0, ·) each)
 * into *out, with scratch w' (n_edges) and ax (sym.ap[n_free]). Returns 0, -1
 * when out of memory, -2 when not positive definite. */
int rig_puppet__arap_factor(struct rig_sparse_numeric *out, double *w_edge, double *ax,
			    const struct rig_puppet *pup, const double *sigma);

/* The stiffness-weighted edge weights w'ij = wij · (1 + K · (si + sj) / 2),
 * si = Σp Wp(i) · sigmap, into out (n_edges); wij itself when every sigma is 0. */
void rig_puppet__edge_weights(double *out, const struct rig_puppet *pup, const double *sigma);

#endif
