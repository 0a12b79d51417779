/* Automatic weights (auto_weights.h): the bones, the three methods' raw
 * fields, and the per-vertex step that turns a field into weight lists.
 *
 * Every method yields one raw column per joint (n_verts values, joints in
 * ascending order), which either lands in a dense matrix
 * (rig_auto_raw_weights) or streams into each vertex's max_influences
 * strongest so far (rig_auto_weights: n_verts × 8 entries, never
 * n_verts × n_joints). The per-vertex step then drops what is below
 * RIG_AUTO_WEIGHT_EPSILON of the vertex's total over every joint and divides
 * the rest by their sum (the file comment of auto_weights.h; the exact rules
 * are written beside each function below). No clocks, no randomness, no
 * globals: the same inputs give the same bits.
 */
#include "core/auto_weights.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mesh_graph.h"
#include "core/rig_limits.h"
#include "core/sparse.h"

/* slot of a vertex that is no unknown of the harmonic system. */
#define FIXED (-1)
#define LOOSE (-2)

static const char *const method_names[] = {"segment", "nearestJoint", "harmonic"};
#define N_METHODS (sizeof method_names / sizeof method_names[0])

const char *rig_auto_method_name(enum rig_auto_method m)
{
	return (unsigned)m < N_METHODS ? method_names[m] : NULL;
}

int rig_auto_method_parse(enum rig_auto_method *out, const char *name)
{
	for (size_t i = 0; name && i < N_METHODS; i++) {
		if (strcmp(name, method_names[i]) == 0) {
			*out = (enum rig_auto_method)i;
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Bones and distances                                                       */
/* ------------------------------------------------------------------------ */

/* Bone i: to the origin of its only child (the one joint whose parent is i);
 * with no child or several, along normalised bind +x (a, b) for length when
 * has_length, else the point at its origin (e, f). A +x of zero length gives
 * the point too. O(n²) over at most RIG_MAX_JOINTS joints. */
void rig_auto_bones(struct rig_auto_bone *out, const struct rig_auto_joint *joints, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const double *m = joints[i].bind.m;
		struct rig_auto_bone *b = &out[i];
		b->x0 = b->x1 = m[4];
		b->y0 = b->y1 = m[5];
		size_t n_children = 0, child = 0;
		for (size_t c = 0; c < n; c++) {
			if (c != i && joints[c].parent == (long)i) {
				n_children++;
				child = c;
			}
		}
		if (n_children == 1) {
			b->x1 = joints[child].bind.m[4];
			b->y1 = joints[child].bind.m[5];
		} else if (joints[i].has_length) {
			double h = hypot(m[0], m[1]);
			if (h > 0) {
				b->x1 = m[4] + joints[i].length * (m[0] / h);
				b->y1 = m[5] + joints[i].length * (m[1] / h);
			}
		}
	}
}

/* The closest point of the segment is x0 + t·(x1 − x0), t the projection
 * ((p − x0)·(x1 − x0)) / |x1 − x0|² clamped to [0, 1]; a segment of zero
 * length is its point. */
double rig_auto_segment_distance2(const struct rig_auto_bone *b, double px, double py)
{
	double dx = b->x1 - b->x0, dy = b->y1 - b->y0;
	double len2 = dx * dx + dy * dy;
	double t = 0;
	if (len2 > 0) {
		t = ((px - b->x0) * dx + (py - b->y0) * dy) / len2;
		t = t < 0 ? 0 : t > 1 ? 1 : t;
	}
	double ex = px - (b->x0 + t * dx), ey = py - (b->y0 + t * dy);
	return ex * ex + ey * ey;
}

void rig_auto_result_release(struct rig_auto_result *r)
{
	free(r->offsets);
	free(r->influences);
	memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------------ */
/* Arguments                                                                 */
/* ------------------------------------------------------------------------ */

/* Records INVALID_FIELD at pointer; fmt formats value, which is also the
 * error's "value" member. */
static struct rig_err *invalid(struct rig_errs *errs, const char *pointer, long joint,
			       const char *fmt, double value)
{
	struct rig_err *e = rig_errs_add(errs, RIG_INVALID_FIELD, fmt, value);
	rig_strlcpy(e->pointer, pointer, sizeof e->pointer);
	e->joint_index = joint;
	rig_err_extra_number(e, "value", value);
	return e;
}

/* Every argument rule; reports each violation. Returns 0 or -1. */
static int check_args(const double *source, size_t n_verts, const uint32_t *triangles,
		      size_t n_tris, const struct rig_auto_joint *joints, size_t n_joints,
		      enum rig_auto_method method, int max_influences, struct rig_errs *errs)
{
	size_t before = errs->total;
	char ptr[RIG_ERR_POINTER_MAX];
	if (n_joints < RIG_MIN_JOINTS || n_joints > RIG_MAX_JOINTS)
		invalid(errs, "/joints", RIG_NO_INDEX, "%.0f joints, outside [1, 256]",
			(double)n_joints);
	if (max_influences < RIG_MIN_INFLUENCES || max_influences > RIG_MAX_INFLUENCES)
		invalid(errs, "/maxInfluences", RIG_NO_INDEX, "maxInfluences %.0f outside [1, 8]",
			(double)max_influences);
	if (!rig_auto_method_name(method))
		invalid(errs, "/method", RIG_NO_INDEX, "method %.0f is none of the methods",
			(double)method);
	if (n_verts > RIG_MAX_VERTICES)
		invalid(errs, "/source", RIG_NO_INDEX, "%.0f vertices, past maxVertices",
			(double)n_verts);
	if (n_tris > RIG_MAX_TRIANGLES)
		invalid(errs, "/triangles", RIG_NO_INDEX, "%.0f triangles, past maxTriangles",
			(double)n_tris);
	if (errs->total > before)
		return -1; /* the counts are wrong: the arrays are not read */
	for (size_t j = 0; j < n_joints; j++) {
		const struct rig_auto_joint *jt = &joints[j];
		if (!rig_affine_is_finite(&jt->bind)) {
			snprintf(ptr, sizeof ptr, "/joints/%zu/bind", j);
			invalid(errs, ptr, (long)j, "joint %.0f has a bind that is not finite",
				(double)j);
		}
		if (jt->parent < -1 || jt->parent >= (long)n_joints || jt->parent == (long)j) {
			snprintf(ptr, sizeof ptr, "/joints/%zu/parent", j);
			invalid(errs, ptr, (long)j, "parent %.0f names no other joint",
				(double)jt->parent);
		}
		if (jt->has_length && !(isfinite(jt->length) && jt->length >= 0)) {
			snprintf(ptr, sizeof ptr, "/joints/%zu/length", j);
			invalid(errs, ptr, (long)j, "length %g is not a finite number >= 0",
				jt->length);
		}
	}
	for (size_t v = 0; v < n_verts; v++) {
		if (!(isfinite(source[2 * v]) && isfinite(source[2 * v + 1]))) {
			snprintf(ptr, sizeof ptr, "/source/%zu", v);
			invalid(errs, ptr, RIG_NO_INDEX, "vertex %.0f is not finite", (double)v)
				->vertex_index = (long)v;
		}
	}
	for (size_t t = 0; t < 3 * n_tris; t++) {
		if (triangles[t] >= n_verts) {
			snprintf(ptr, sizeof ptr, "/triangles/%zu", t / 3);
			invalid(errs, ptr, RIG_NO_INDEX, "triangle index %.0f names no vertex",
				(double)triangles[t])
				->triangle_index = (long)(t / 3);
		}
	}
	return errs->total > before ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Where the columns go                                                      */
/* ------------------------------------------------------------------------ */

/* A column sink: a dense n_verts × n_joints matrix, or per vertex its k
 * strongest (weight descending; a later joint never displaces an equal
 * earlier one, so ties keep the lower joint index) and its total. */
struct sink {
	size_t n_verts, n_joints;
	double *dense;
	int k;
	struct rig_skin_influence *best; /* n_verts × k */
	uint8_t *n_best;
	double *total;
};

/* Takes joint j's column (joints arrive in ascending order). A weight that
 * is not > 0 (or NaN) is never kept; the total adds the positive ones. */
static void sink_put(struct sink *s, size_t j, const double *col)
{
	if (s->dense) {
		for (size_t v = 0; v < s->n_verts; v++)
			s->dense[v * s->n_joints + j] = col[v];
		return;
	}
	size_t k = (size_t)s->k;
	for (size_t v = 0; v < s->n_verts; v++) {
		double w = col[v];
		if (!(w > 0))
			continue;
		s->total[v] += w;
		struct rig_skin_influence *b = &s->best[v * k];
		size_t n = s->n_best[v], at = n;
		while (at > 0 && b[at - 1].weight < w)
			at--;
		if (at >= k)
			continue;
		size_t last = n < k ? n : k - 1;
		memmove(&b[at + 1], &b[at], (last - at) * sizeof *b);
		b[at].joint = (uint32_t)j;
		b[at].weight = w;
		if (n < k)
			s->n_best[v]++;
	}
}

/* The per-vertex step into *out: keep the strongest (at most k, already in
 * best) whose weight w satisfies w >= RIG_AUTO_WEIGHT_EPSILON · total (a
 * fraction of the vertex's total over every joint, so the rule does not
 * depend on the mesh's units), each divided by the kept ones' sum, strongest
 * first (calloc'd, as best is, so even the padding is the same bytes every
 * run). When none is kept the strongest alone takes 1 (joint 0 when no
 * weight was positive at all). Returns 0 or -1 (out of memory). */
static int sink_finish(struct rig_auto_result *out, const struct sink *s)
{
	size_t n = s->n_verts, k = (size_t)s->k, n_kept = 0;
	for (size_t v = 0; v < n; v++) {
		size_t m = 0;
		while (m < s->n_best[v] &&
		       s->best[v * k + m].weight >= RIG_AUTO_WEIGHT_EPSILON * s->total[v])
			m++;
		n_kept += m ? m : 1;
	}
	out->offsets = malloc((n + 1) * sizeof *out->offsets);
	out->influences = calloc(n_kept ? n_kept : 1, sizeof *out->influences);
	if (!out->offsets || !out->influences) {
		rig_auto_result_release(out);
		return -1;
	}
	out->n_verts = n;
	uint32_t at = 0;
	for (size_t v = 0; v < n; v++) {
		const struct rig_skin_influence *b = &s->best[v * k];
		struct rig_skin_influence *list = &out->influences[at];
		out->offsets[v] = at;
		size_t m = 0;
		while (m < s->n_best[v] && b[m].weight >= RIG_AUTO_WEIGHT_EPSILON * s->total[v])
			m++;
		memcpy(list, b, m * sizeof *b);
		if (m == 0 || !rig_skin_normalize_influences(list, m)) {
			list[0].joint = s->n_best[v] ? b[0].joint : 0;
			list[0].weight = 1;
			m = 1;
		}
		at += (uint32_t)m;
	}
	out->offsets[n] = at;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* segment and nearestJoint                                                  */
/* ------------------------------------------------------------------------ */

/* w = 1 / (d² + RIG_AUTO_DISTANCE_BIAS): d^RIG_AUTO_FALLOFF with the falloff
 * 2, taken as the squared distance itself (no square root and square). */
static void inverse_distance(struct sink *s, double *col, const double *source,
			     const struct rig_auto_bone *bones, size_t n_joints)
{
	/* RIG_AUTO_FALLOFF is 2: d^falloff is d2 itself. */
	for (size_t j = 0; j < n_joints; j++) {
		for (size_t v = 0; v < s->n_verts; v++) {
			double d2 = rig_auto_segment_distance2(&bones[j], source[2 * v],
							       source[2 * v + 1]);
			col[v] = 1 / (d2 + RIG_AUTO_DISTANCE_BIAS);
		}
		sink_put(s, j, col);
	}
}

/* ------------------------------------------------------------------------ */
/* harmonic                                                                  */
/* ------------------------------------------------------------------------ */

/* The fixed vertices (docs/decisions.md, "Automatic weights"):
 *   b(v)  the bone nearest v (squared distance, ties: the lower joint);
 *   m_j   the least distance to bone j of the vertices whose nearest bone is j;
 *   tol   half the mesh's mean edge length (0 without edges);
 *   S_j   the vertices v with b(v) = j and dist(v, bone j) <= m_j + tol.
 * A bone nearest to no vertex (another bone shadows it: they coincide, or
 * there are fewer vertices than bones) fixes its own nearest vertex (ties:
 * the lower vertex), sharing it with the bone(s) already fixing it. A fixed
 * vertex holds 1/c for each of the c bones fixing it and 0 for the others:
 * its values sum to 1, and so, the Laplace equation being linear, do the
 * free vertices'. Fills n_fix (per vertex: 0 when free, else c), fix_bone
 * (b(v) when v is in S_b(v), else -1) and anchor (per joint: the vertex a
 * shadowed bone fixes, else -1). */
static void fix_vertices(uint16_t *n_fix, int32_t *fix_bone, int64_t *anchor, double *d2_best,
			 const double *source, size_t n_verts, const struct rig_mesh_graph *g,
			 const struct rig_auto_bone *bones, size_t n_joints)
{
	double edge_sum = 0;
	for (size_t e = 0; e < g->n_edges; e++) {
		uint32_t a = g->ends[2 * e], b = g->ends[2 * e + 1];
		double dx = source[2 * a] - source[2 * b],
		       dy = source[2 * a + 1] - source[2 * b + 1];
		edge_sum += sqrt(dx * dx + dy * dy);
	}
	double tol = g->n_edges ? 0.5 * (edge_sum / (double)g->n_edges) : 0;
	double m[RIG_MAX_JOINTS];
	bool is_nearest[RIG_MAX_JOINTS];
	for (size_t j = 0; j < n_joints; j++) {
		m[j] = INFINITY;
		is_nearest[j] = false;
		anchor[j] = -1;
	}
	for (size_t v = 0; v < n_verts; v++) {
		int32_t best = 0;
		double best_d2 = INFINITY;
		for (size_t j = 0; j < n_joints; j++) {
			double d2 = rig_auto_segment_distance2(&bones[j], source[2 * v],
							       source[2 * v + 1]);
			if (j == 0 || d2 < best_d2) {
				best_d2 = d2;
				best = (int32_t)j;
			}
		}
		fix_bone[v] = best;
		d2_best[v] = best_d2;
		is_nearest[best] = true;
		if (best_d2 < m[best])
			m[best] = best_d2;
	}
	for (size_t j = 0; j < n_joints; j++)
		m[j] = sqrt(m[j]) + tol;
	for (size_t v = 0; v < n_verts; v++) {
		bool is_fixed = sqrt(d2_best[v]) <= m[fix_bone[v]];
		n_fix[v] = is_fixed;
		if (!is_fixed)
			fix_bone[v] = -1;
	}
	for (size_t j = 0; j < n_joints && n_verts > 0; j++) {
		if (is_nearest[j])
			continue;
		double best_d2 = INFINITY;
		for (size_t v = 0; v < n_verts; v++) {
			double d2 = rig_auto_segment_distance2(&bones[j], source[2 * v],
							       source[2 * v + 1]);
			if (anchor[j] < 0 || d2 < best_d2) {
				best_d2 = d2;
				anchor[j] = (int64_t)v;
			}
		}
		n_fix[anchor[j]]++;
	}
}

struct harmonic {
	struct rig_mesh_graph graph;
	uint16_t *n_fix;
	int32_t *fix_bone;
	int64_t anchor[RIG_MAX_JOINTS];
	double *d2_best;
	int32_t *slot;        /* per vertex: its unknown's index, FIXED or LOOSE */
	uint32_t *free_verts; /* per unknown: its vertex, ascending */
	size_t n_free;
	uint32_t *root;   /* per vertex: its component's lowest vertex */
	uint32_t *follow; /* per loose component's root: the fixed vertex it follows */
	struct rig_sparse_symbolic sym;
	struct rig_sparse_numeric lap;
};

static void harmonic_release(struct harmonic *h)
{
	rig_mesh_graph_release(&h->graph);
	free(h->n_fix);
	free(h->fix_bone);
	free(h->d2_best);
	free(h->slot);
	free(h->free_verts);
	free(h->root);
	free(h->follow);
	rig_sparse_symbolic_release(&h->sym);
	rig_sparse_numeric_release(&h->lap);
}

/* Classes: fixed; free (an unknown: its component holds a fixed vertex);
 * loose (its component holds none: all of it follows the fixed vertex
 * nearest to any of its vertices by rest distance, ties the lowest vertex
 * index — the puppet's rule for a component without a pin). The loose scan
 * is O(loose × fixed), which only a mesh of many detached pieces pays.
 * Returns 0 or -1 (out of memory). */
static int classify(struct harmonic *h, const double *source, size_t n)
{
	bool *has_fixed = calloc(n ? n : 1, sizeof *has_fixed);
	double *best = malloc((n ? n : 1) * sizeof *best);
	if (!has_fixed || !best) {
		free(has_fixed);
		free(best);
		return -1;
	}
	rig_mesh_graph_components(h->root, &h->graph);
	for (size_t v = 0; v < n; v++)
		if (h->n_fix[v])
			has_fixed[h->root[v]] = true;
	h->n_free = 0;
	for (size_t v = 0; v < n; v++) {
		h->follow[v] = UINT32_MAX;
		best[v] = INFINITY;
		if (h->n_fix[v]) {
			h->slot[v] = FIXED;
		} else if (has_fixed[h->root[v]]) {
			h->slot[v] = (int32_t)h->n_free;
			h->free_verts[h->n_free++] = (uint32_t)v;
		} else {
			h->slot[v] = LOOSE;
		}
	}
	for (size_t v = 0; v < n; v++) {
		if (h->slot[v] != LOOSE)
			continue;
		uint32_t r = h->root[v];
		for (size_t u = 0; u < n; u++) {
			if (!h->n_fix[u])
				continue;
			double dx = source[2 * v] - source[2 * u],
			       dy = source[2 * v + 1] - source[2 * u + 1];
			double d2 = dx * dx + dy * dy;
			/* The first seen is taken whatever its distance (one that
			 * overflows still names a vertex). */
			if (h->follow[r] == UINT32_MAX || d2 < best[r] ||
			    (d2 == best[r] && u < h->follow[r])) {
				best[r] = d2;
				h->follow[r] = (uint32_t)u;
			}
		}
	}
	free(has_fixed);
	free(best);
	return 0;
}

/* The unit-weight Laplacian over the unknowns, factorised once for every
 * joint. Returns 0 or -1 (out of memory: the reduced Laplacian of components
 * that hold a fixed vertex is positive definite, so nothing else fails). */
static int factorise(struct harmonic *h)
{
	const struct rig_mesh_graph *g = &h->graph;
	long *ap, *ai;
	uint32_t *entry_edge;
	if (rig_mesh_graph_reduced_pattern(&ap, &ai, &entry_edge, g, h->slot, h->free_verts,
					   h->n_free) != 0)
		return -1;
	int rc = rig_sparse_analyse(&h->sym, h->n_free, ap, ai);
	size_t nz = (size_t)ap[h->n_free];
	double *unit = malloc((g->n_edges ? g->n_edges : 1) * sizeof *unit);
	double *ax = malloc((nz ? nz : 1) * sizeof *ax);
	if (rc == 0 && unit && ax) {
		for (size_t e = 0; e < g->n_edges; e++)
			unit[e] = 1;
		rig_mesh_graph_reduced_values(ax, g, ap, entry_edge, h->free_verts, h->n_free,
					      unit);
		rc = rig_sparse_factor(&h->lap, &h->sym, ax) == 0 ? 0 : -1;
	} else {
		rc = -1;
	}
	free(unit);
	free(ax);
	free(ap);
	free(ai);
	free(entry_edge);
	return rc;
}

/* Joint j's value at fixed vertex v: 1/c when j is one of the c bones fixing it. */
static double fixed_value(const struct harmonic *h, size_t v, size_t j)
{
	bool is_mine = h->fix_bone[v] == (int32_t)j || h->anchor[j] == (int64_t)v;
	return is_mine ? 1.0 / h->n_fix[v] : 0;
}

/* Columns j and, when n_cols is 2, j + 1 (col and col + n): the fixed values,
 * the free ones from L_FF x = b, b_f the sum of f's fixed neighbours' values
 * (two systems per pass over the factor, rig_sparse_solve2: the same bits
 * as one at a time), clamped at 0 (rounding may leave an entry a few ulps
 * below), and the loose ones their followed vertex's. */
static void harmonic_pair(double *col, double *xy, double *work, const struct harmonic *h, size_t n,
			  size_t j, size_t n_cols)
{
	const struct rig_mesh_graph *g = &h->graph;
	for (size_t c = 0; c < n_cols; c++)
		for (size_t v = 0; v < n; v++)
			col[c * n + v] = h->n_fix[v] ? fixed_value(h, v, j + c) : 0;
	for (size_t f = 0; f < h->n_free; f++) {
		uint32_t v = h->free_verts[f];
		double b[2] = {0, 0};
		for (size_t s = g->off[v]; s < g->off[v + 1]; s++) {
			uint32_t u = g->nbr[s];
			if (h->slot[u] == FIXED)
				for (size_t c = 0; c < n_cols; c++)
					b[c] += col[c * n + u];
		}
		for (size_t c = 0; c < n_cols; c++)
			xy[n_cols * f + c] = b[c];
	}
	if (h->n_free > 0) {
		if (n_cols == 2)
			rig_sparse_solve2(&h->sym, &h->lap, xy, work);
		else
			rig_sparse_solve(&h->sym, &h->lap, xy, work);
	}
	for (size_t v = 0; v < n; v++) {
		for (size_t c = 0; c < n_cols; c++) {
			double *out = &col[c * n + v];
			if (h->slot[v] >= 0) {
				double x = xy[n_cols * (size_t)h->slot[v] + c];
				*out = x > 0 ? x : 0;
			} else if (h->slot[v] == LOOSE) {
				*out = fixed_value(h, h->follow[h->root[v]], j + c);
			}
		}
	}
}

/* The harmonic columns into s. Returns 0 or -1 (out of memory). */
static int harmonic(struct sink *s, const double *source, size_t n, const uint32_t *tris,
		    size_t n_tris, const struct rig_auto_bone *bones, size_t n_joints)
{
	struct harmonic h;
	memset(&h, 0, sizeof h);
	size_t m = n ? n : 1;
	double *col = NULL, *xy = NULL, *work = NULL;
	int rc = -1;
	if (rig_mesh_graph_build(&h.graph, tris, n_tris, n) != 0)
		goto out_release;
	h.n_fix = malloc(m * sizeof *h.n_fix);
	h.fix_bone = malloc(m * sizeof *h.fix_bone);
	h.d2_best = malloc(m * sizeof *h.d2_best);
	h.slot = malloc(m * sizeof *h.slot);
	h.free_verts = malloc(m * sizeof *h.free_verts);
	h.root = malloc(m * sizeof *h.root);
	h.follow = malloc(m * sizeof *h.follow);
	col = malloc(2 * m * sizeof *col);
	xy = malloc(2 * m * sizeof *xy);
	work = malloc(2 * m * sizeof *work);
	if (!h.n_fix || !h.fix_bone || !h.d2_best || !h.slot || !h.free_verts || !h.root ||
	    !h.follow || !col || !xy || !work)
		goto out_release;
	fix_vertices(h.n_fix, h.fix_bone, h.anchor, h.d2_best, source, n, &h.graph, bones,
		     n_joints);
	if (classify(&h, source, n) != 0 || factorise(&h) != 0)
		goto out_release;
	for (size_t j = 0; j < n_joints; j += 2) {
		size_t n_cols = j + 1 < n_joints ? 2 : 1;
		harmonic_pair(col, xy, work, &h, n, j, n_cols);
		for (size_t c = 0; c < n_cols; c++)
			sink_put(s, j + c, &col[c * n]);
	}
	rc = 0;
out_release:
	free(col);
	free(xy);
	free(work);
	harmonic_release(&h);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* The entry points                                                          */
/* ------------------------------------------------------------------------ */

/* Every method's columns into s. Returns 0 or -1 (out of memory). */
static int columns(struct sink *s, const double *source, size_t n_verts, const uint32_t *triangles,
		   size_t n_tris, const struct rig_auto_joint *joints, size_t n_joints,
		   enum rig_auto_method method)
{
	struct rig_auto_bone bones[RIG_MAX_JOINTS];
	rig_auto_bones(bones, joints, n_joints);
	if (method == RIG_AUTO_HARMONIC)
		return harmonic(s, source, n_verts, triangles, n_tris, bones, n_joints);
	if (method == RIG_AUTO_NEAREST_JOINT) {
		for (size_t j = 0; j < n_joints; j++) {
			bones[j].x0 = bones[j].x1 = joints[j].bind.m[4];
			bones[j].y0 = bones[j].y1 = joints[j].bind.m[5];
		}
	}
	double *col = malloc((n_verts ? n_verts : 1) * sizeof *col);
	if (!col)
		return -1;
	inverse_distance(s, col, source, bones, n_joints);
	free(col);
	return 0;
}

int rig_auto_raw_weights(double *out, const double *source, size_t n_verts,
			 const uint32_t *triangles, size_t n_tris,
			 const struct rig_auto_joint *joints, size_t n_joints,
			 enum rig_auto_method method, struct rig_errs *errs)
{
	if (check_args(source, n_verts, triangles, n_tris, joints, n_joints, method, 1, errs) != 0)
		return -1;
	struct sink s = {.n_verts = n_verts, .n_joints = n_joints, .dense = out};
	return columns(&s, source, n_verts, triangles, n_tris, joints, n_joints, method) == 0 ? 0
											      : -2;
}

int rig_auto_weights(struct rig_auto_result *out, const double *source, size_t n_verts,
		     const uint32_t *triangles, size_t n_tris, const struct rig_auto_joint *joints,
		     size_t n_joints, enum rig_auto_method method, int max_influences,
		     struct rig_errs *errs)
{
	memset(out, 0, sizeof *out);
	if (check_args(source, n_verts, triangles, n_tris, joints, n_joints, method, max_influences,
		       errs) != 0)
		return -1;
	size_t m = n_verts ? n_verts : 1;
	struct sink s = {.n_verts = n_verts, .n_joints = n_joints, .k = max_influences};
	s.best = calloc(m * (size_t)max_influences, sizeof *s.best);
	s.n_best = calloc(m, sizeof *s.n_best);
	s.total = calloc(m, sizeof *s.total);
	int rc = -2;
	if (!s.best || !s.n_best || !s.total)
		goto out_free;
	if (columns(&s, source, n_verts, triangles, n_tris, joints, n_joints, method) != 0 ||
	    sink_finish(out, &s) != 0)
		goto out_free;
	rc = 0;
out_free:
	free(s.best);
	free(s.n_best);
	free(s.total);
	return rc;
}
