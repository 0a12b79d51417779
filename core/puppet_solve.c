/* The puppet's solvers on prepared data (puppet.h): linear blend skinning of
 * the pins' similarities, the as-rigid-as-possible local/global iteration
 * (Sorkine & Alexa, "As-Rigid-As-Possible Surface Modeling", SGP 2007,
 * specialised to the plane as issue 24 item 4 states), the ARAP system's
 * edge weights and factorisation, and the overlap depth and draw order.
 *
 * Every loop runs a fixed count in a fixed order; nothing here reads a clock
 * or keeps state between calls: scratch is allocated per call and freed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/puppet_impl.h"

/* ------------------------------------------------------------------------ */
/* The ARAP system                                                           */
/* ------------------------------------------------------------------------ */

static double clamp_cot(double half_cot)
{
	if (!(half_cot > RIG_PUPPET_COT_MIN))
		return RIG_PUPPET_COT_MIN;
	return half_cot < RIG_PUPPET_COT_MAX ? half_cot : RIG_PUPPET_COT_MAX;
}

/* The cotangent of the angle at corner a of triangle (a, b, c) is
 * ((b − a)·(c − a)) / |(b − a) × (c − a)|; its ½ goes to edge bc. */
void rig_puppet__cotangents(double *out, const struct rig_puppet *pup)
{
	const double *xy = pup->def.source;
	const uint32_t *tris = pup->def.triangles;
	memset(out, 0, pup->graph.n_edges * sizeof *out);
	for (size_t t = 0; t < pup->def.n_tris; t++) {
		const uint32_t *c = &tris[3 * t];
		double ux = xy[2 * c[1]] - xy[2 * c[0]], uy = xy[2 * c[1] + 1] - xy[2 * c[0] + 1];
		double vx = xy[2 * c[2]] - xy[2 * c[0]], vy = xy[2 * c[2] + 1] - xy[2 * c[0] + 1];
		double cross = fabs(ux * vy - uy * vx);
		bool is_degenerate = !(cross > 0) || !isfinite(cross);
		for (int k = 0; k < 3; k++) {
			uint32_t a = c[k], b = c[(k + 1) % 3], o = c[(k + 2) % 3];
			double term = 0.5;
			if (!is_degenerate) {
				double px = xy[2 * a] - xy[2 * o],
				       py = xy[2 * a + 1] - xy[2 * o + 1];
				double qx = xy[2 * b] - xy[2 * o],
				       qy = xy[2 * b + 1] - xy[2 * o + 1];
				term = clamp_cot(0.5 * ((px * qx + py * qy) / cross));
			}
			long e = rig_mesh_graph_edge(&pup->graph, a < b ? a : b, a < b ? b : a);
			out[e] += term;
		}
	}
}

static bool any_positive(const double *sigma, size_t n)
{
	for (size_t p = 0; p < n; p++)
		if (sigma[p] > 0)
			return true;
	return false;
}

void rig_puppet__edge_weights(double *out, const struct rig_puppet *pup, const double *sigma)
{
	const struct rig_mesh_graph *g = &pup->graph;
	size_t n_pins = pup->def.n_pins;
	if (!any_positive(sigma, n_pins)) {
		memcpy(out, pup->cot, g->n_edges * sizeof *out);
		return;
	}
	for (size_t e = 0; e < g->n_edges; e++) {
		const double *wi = &pup->weights[(size_t)g->ends[2 * e] * n_pins];
		const double *wj = &pup->weights[(size_t)g->ends[2 * e + 1] * n_pins];
		double si = 0, sj = 0;
		for (size_t p = 0; p < n_pins; p++) {
			si += wi[p] * sigma[p];
			sj += wj[p] * sigma[p];
		}
		out[e] = pup->cot[e] * (1 + RIG_PUPPET_STIFFNESS_K * (si + sj) / 2);
	}
}

int rig_puppet__arap_factor(struct rig_sparse_numeric *out, double *w_edge, double *ax,
			    const struct rig_puppet *pup, const double *sigma)
{
	rig_puppet__edge_weights(w_edge, pup, sigma);
	rig_puppet__assemble(ax, pup, w_edge);
	return rig_sparse_factor(out, &pup->sym, ax);
}

/* ------------------------------------------------------------------------ */
/* Linear blend skinning                                                     */
/* ------------------------------------------------------------------------ */

/* A pin's similarity as a displacement: d + (A − I)(v − r), A = s·R(θ). */
struct pin_move {
	double rx, ry, dx, dy, a1, b; /* a1 = s cos θ − 1, b = s sin θ */
	bool is_translation;
	double power; /* 1 + σ */
};

int rig_puppet_lbs(double *out_xy, const struct rig_puppet *pup,
		   const struct rig_puppet_pin_pose *poses)
{
	const struct rig_puppet_def *d = &pup->def;
	size_t n = d->n_verts, n_pins = d->n_pins;
	if (n_pins == 0) {
		memcpy(out_xy, d->source, 2 * n * sizeof *out_xy);
		return 0;
	}
	struct pin_move *mv = malloc(n_pins * sizeof *mv);
	double *omega = malloc(n_pins * sizeof *omega);
	if (!mv || !omega) {
		free(mv);
		free(omega);
		return -1;
	}
	bool is_sharpened = false;
	for (size_t p = 0; p < n_pins; p++) {
		const struct rig_puppet_pin_pose *q = &poses[p];
		mv[p].rx = d->pins[p].x;
		mv[p].ry = d->pins[p].y;
		mv[p].dx = q->x - d->pins[p].x;
		mv[p].dy = q->y - d->pins[p].y;
		mv[p].a1 = q->scale * cos(q->rotation) - 1;
		mv[p].b = q->scale * sin(q->rotation);
		mv[p].is_translation = q->is_translation;
		mv[p].power = 1 + q->stiffness;
		is_sharpened |= q->stiffness > 0;
	}
	for (size_t v = 0; v < n; v++) {
		const double *w = &pup->weights[v * n_pins];
		double x = d->source[2 * v], y = d->source[2 * v + 1];
		if (is_sharpened) {
			double sum = 0;
			for (size_t p = 0; p < n_pins; p++)
				sum += omega[p] = w[p] > 0 ? pow(w[p], mv[p].power) : 0;
			bool is_ok = sum > 0 && isfinite(sum);
			for (size_t p = 0; p < n_pins; p++)
				omega[p] = is_ok ? omega[p] / sum : w[p];
			w = omega;
		}
		double ax = 0, ay = 0;
		for (size_t p = 0; p < n_pins; p++) {
			if (w[p] == 0)
				continue;
			double tx = mv[p].dx, ty = mv[p].dy;
			if (!mv[p].is_translation) {
				double ux = x - mv[p].rx, uy = y - mv[p].ry;
				tx += mv[p].a1 * ux - mv[p].b * uy;
				ty += mv[p].b * ux + mv[p].a1 * uy;
			}
			ax += w[p] * tx;
			ay += w[p] * ty;
		}
		out_xy[2 * v] = x + ax;
		out_xy[2 * v + 1] = y + ay;
	}
	free(mv);
	free(omega);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* ARAP                                                                      */
/* ------------------------------------------------------------------------ */

static double clamp_angle(double t, double max)
{
	return t > max ? max : t < -max ? -max : t;
}

/* The local step: per vertex with a system (fixed or free) the rotation
 * (c, s) = (cos θ, sin θ), θ = atan2(S10 − S01, S00 + S11), Si = Σj w'ij
 * (p'i − p'j)(pi − pj)ᵀ, clamped by maxRotationDeg; an oriented pin's vertex
 * takes scale · R(θ) of its pose. */
static void local_step(double *rc, double *rs, const struct rig_puppet *pup, const double *w,
		       const double *cur, const struct rig_puppet_pin_pose *poses)
{
	const struct rig_mesh_graph *g = &pup->graph;
	const double *src = pup->def.source;
	for (size_t v = 0; v < g->n_verts; v++) {
		int32_t pin = pup->pin_of[v];
		if (pup->slot[v] == RIG_PUPPET__LOOSE)
			continue;
		if (pin >= 0 && pup->is_oriented[pin]) {
			rc[v] = poses[pin].scale * cos(poses[pin].rotation);
			rs[v] = poses[pin].scale * sin(poses[pin].rotation);
			continue;
		}
		double s00 = 0, s01 = 0, s10 = 0, s11 = 0;
		for (size_t k = g->off[v]; k < g->off[v + 1]; k++) {
			uint32_t u = g->nbr[k];
			double wk = w[g->edge[k]];
			double ex = src[2 * v] - src[2 * u], ey = src[2 * v + 1] - src[2 * u + 1];
			double fx = cur[2 * v] - cur[2 * u], fy = cur[2 * v + 1] - cur[2 * u + 1];
			s00 += wk * fx * ex;
			s01 += wk * fx * ey;
			s10 += wk * fy * ex;
			s11 += wk * fy * ey;
		}
		double t = clamp_angle(atan2(s10 - s01, s00 + s11), pup->max_rotation_rad);
		rc[v] = cos(t);
		rs[v] = sin(t);
	}
}

/* The global step's right-hand sides, x and y interleaved: bi = Σj (w'ij / 2)(Ri + Rj)(pi − pj),
 * plus w'ij p'j for each fixed neighbour j. */
static void global_rhs(double *bxy, const struct rig_puppet *pup, const double *w,
		       const double *cur, const double *rc, const double *rs)
{
	const struct rig_mesh_graph *g = &pup->graph;
	const double *src = pup->def.source;
	for (size_t f = 0; f < pup->n_free; f++) {
		uint32_t v = pup->free_verts[f];
		double x = 0, y = 0;
		for (size_t k = g->off[v]; k < g->off[v + 1]; k++) {
			uint32_t u = g->nbr[k];
			double h = w[g->edge[k]] / 2;
			double ex = src[2 * v] - src[2 * u], ey = src[2 * v + 1] - src[2 * u + 1];
			double c = rc[v] + rc[u], s = rs[v] + rs[u];
			x += h * (c * ex - s * ey);
			y += h * (s * ex + c * ey);
			if (pup->slot[u] == RIG_PUPPET__FIXED) {
				x += w[g->edge[k]] * cur[2 * u];
				y += w[g->edge[k]] * cur[2 * u + 1];
			}
		}
		bxy[2 * f] = x;
		bxy[2 * f + 1] = y;
	}
}

static bool all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

/* The scratch of one ARAP solve, one block. */
struct arap_scratch {
	double *lbs, *rc, *rs, *bxy, *work, *w, *ax, *sigma;
};

static double *arap_scratch_new(struct arap_scratch *s, const struct rig_puppet *pup)
{
	size_t n = pup->def.n_verts, nf = pup->n_free, ne = pup->graph.n_edges;
	size_t nz = (size_t)pup->sym.ap[nf], n_pins = pup->def.n_pins;
	double *block = malloc((4 * n + 4 * nf + ne + nz + n_pins + 1) * sizeof *block);
	if (!block)
		return NULL;
	s->lbs = block;
	s->rc = s->lbs + 2 * n;
	s->rs = s->rc + n;
	s->bxy = s->rs + n;
	s->work = s->bxy + 2 * nf;
	s->w = s->work + 2 * nf;
	s->ax = s->w + ne;
	s->sigma = s->ax + nz;
	return block;
}

int rig_puppet_arap(double *out_xy, enum rig_puppet_ran *out_ran, const struct rig_puppet *pup,
		    const struct rig_puppet_pin_pose *poses)
{
	const struct rig_puppet_def *d = &pup->def;
	size_t n = d->n_verts, n_pins = d->n_pins, nf = pup->n_free;
	struct arap_scratch s;
	double *block = arap_scratch_new(&s, pup);
	struct rig_sparse_numeric own = {0};
	int rc = -1;
	if (!block)
		return -1;
	if (rig_puppet_lbs(s.lbs, pup, poses) != 0)
		goto out_free;
	*out_ran = RIG_PUPPET_RAN_LBS_FALLBACK;
	rc = 0;
	if (n_pins < 2) {
		memcpy(out_xy, s.lbs, 2 * n * sizeof *out_xy);
		goto out_free;
	}
	/* The factorisation: the prepared one when this frame's stiffness is the
	 * static stiffness bit for bit, else this frame's own (docs/decisions.md). */
	for (size_t p = 0; p < n_pins; p++)
		s.sigma[p] = poses[p].stiffness;
	const struct rig_sparse_numeric *fac = &pup->arap;
	bool is_static =
		pup->has_arap && memcmp(s.sigma, pup->static_sigma, n_pins * sizeof *s.sigma) == 0;
	if (is_static) {
		rig_puppet__edge_weights(s.w, pup, s.sigma);
	} else if (nf > 0) {
		int frc = rig_puppet__arap_factor(&own, s.w, s.ax, pup, s.sigma);
		if (frc == -1) {
			rc = -1;
			goto out_free;
		}
		if (frc != 0) {
			memcpy(out_xy, s.lbs, 2 * n * sizeof *out_xy);
			goto out_free;
		}
		fac = &own;
	} else {
		rig_puppet__edge_weights(s.w, pup, s.sigma);
	}
	double *cur = out_xy;
	memcpy(cur, s.lbs, 2 * n * sizeof *cur);
	for (size_t p = 0; p < n_pins; p++) {
		uint32_t v = pup->pin_vertex[p];
		cur[2 * v] = d->source[2 * v] + (poses[p].x - d->pins[p].x);
		cur[2 * v + 1] = d->source[2 * v + 1] + (poses[p].y - d->pins[p].y);
	}
	for (int it = 0; it < RIG_PUPPET_ARAP_ITERATIONS; it++) {
		local_step(s.rc, s.rs, pup, s.w, cur, poses);
		global_rhs(s.bxy, pup, s.w, cur, s.rc, s.rs);
		if (nf > 0)
			rig_sparse_solve2(&pup->sym, fac, s.bxy, s.work);
		for (size_t f = 0; f < nf; f++) {
			cur[2 * pup->free_verts[f]] = s.bxy[2 * f];
			cur[2 * pup->free_verts[f] + 1] = s.bxy[2 * f + 1];
		}
	}
	if (all_finite(cur, 2 * n))
		*out_ran = RIG_PUPPET_RAN_ARAP;
	else
		memcpy(out_xy, s.lbs, 2 * n * sizeof *out_xy);
out_free:
	rig_sparse_numeric_release(&own);
	free(block);
	return rc;
}

int rig_puppet_deform(double *out_xy, enum rig_puppet_ran *out_ran, const struct rig_puppet *pup,
		      const struct rig_puppet_pin_pose *poses)
{
	if (pup->def.solver == RIG_PUPPET_SOLVER_LBS) {
		*out_ran = RIG_PUPPET_RAN_LBS;
		return rig_puppet_lbs(out_xy, pup, poses);
	}
	return rig_puppet_arap(out_xy, out_ran, pup, poses);
}

/* ------------------------------------------------------------------------ */
/* Overlap                                                                   */
/* ------------------------------------------------------------------------ */

void rig_puppet_depth(double *out, const struct rig_puppet *pup,
		      const struct rig_puppet_pin_pose *poses)
{
	const struct rig_puppet_def *d = &pup->def;
	size_t n_pins = d->n_pins;
	bool is_flattened = false;
	for (size_t p = 0; p < n_pins; p++)
		is_flattened |= d->pins[p].overlap_extent != 1;
	for (size_t v = 0; v < d->n_verts; v++) {
		const double *w = &pup->weights[v * n_pins];
		double depth = 0, sum = 0;
		if (is_flattened) {
			for (size_t p = 0; p < n_pins; p++)
				sum += w[p] > 0 ? pow(w[p], 1 / d->pins[p].overlap_extent) : 0;
		}
		bool is_rooted = is_flattened && sum > 0 && isfinite(sum);
		for (size_t p = 0; p < n_pins; p++) {
			double wp = w[p];
			if (is_rooted)
				wp = (wp > 0 ? pow(wp, 1 / d->pins[p].overlap_extent) : 0) / sum;
			depth += wp * poses[p].overlap;
		}
		out[v] = depth;
	}
}

struct tri_depth {
	double depth;
	uint32_t t;
};

static int cmp_depth(const void *a, const void *b)
{
	const struct tri_depth *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

int rig_puppet_triangle_order(uint32_t *out, const struct rig_puppet *pup,
			      const struct rig_puppet_pin_pose *poses)
{
	const struct rig_puppet_def *d = &pup->def;
	bool any = false;
	for (size_t p = 0; p < d->n_pins; p++)
		any |= poses[p].overlap != 0;
	if (!any) {
		for (size_t t = 0; t < d->n_tris; t++)
			out[t] = (uint32_t)t;
		return 0;
	}
	double *depth = malloc(d->n_verts * sizeof *depth);
	struct tri_depth *td = malloc(d->n_tris * sizeof *td);
	if (!depth || !td) {
		free(depth);
		free(td);
		return -1;
	}
	rig_puppet_depth(depth, pup, poses);
	for (size_t t = 0; t < d->n_tris; t++) {
		const uint32_t *c = &d->triangles[3 * t];
		td[t].depth = (depth[c[0]] + depth[c[1]] + depth[c[2]]) / 3;
		td[t].t = (uint32_t)t;
	}
	qsort(td, d->n_tris, sizeof *td, cmp_depth);
	for (size_t t = 0; t < d->n_tris; t++)
		out[t] = td[t].t;
	free(depth);
	free(td);
	return 1;
}
