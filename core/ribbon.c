/* The ribbon binding's definition, rules and generation (ribbon.h): pure
 * math. Its binding row is ribbon_binding.c; the source rules are
 * core/mesh.c's.
 */
#include "core/ribbon.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/mesh.h"

void rig_ribbon_def_release(struct rig_ribbon_def *d)
{
	free(d->chain);
	free(d->widths);
	free(d->source);
	free(d->triangles);
	free(d->uvs);
	memset(d, 0, sizeof *d);
}

/* Spans of the subdivided curve: N = (n − 1) · s. */
static size_t n_spans(size_t n_chain, uint32_t segments)
{
	return n_chain < 2 ? 0 : (n_chain - 1) * segments;
}

size_t rig_ribbon_n_verts(size_t n_chain, uint32_t segments, bool caps)
{
	return 2 * (n_spans(n_chain, segments) + 1) + (caps ? 2 : 0);
}

size_t rig_ribbon_n_tris(size_t n_chain, uint32_t segments, bool caps)
{
	return 2 * n_spans(n_chain, segments) + (caps ? 2 : 0);
}

/* ---- the rules ---- */

static void fail(struct rig_errs *errs, enum rig_code code, const char *pointer, const char *detail)
{
	struct rig_err *e = rig_errs_add(errs, code, "%s", detail);
	rig_strlcpy(e->pointer, pointer, sizeof e->pointer);
}

int rig_ribbon_def_check(const struct rig_ribbon_def *d, struct rig_errs *errs)
{
	size_t before = errs->total;
	char ptr[RIG_ERR_POINTER_MAX], detail[RIG_ERR_DETAIL_MAX];
	if (d->n_chain < RIG_RIBBON_MIN_CHAIN || d->n_chain > RIG_RIBBON_MAX_CHAIN) {
		snprintf(detail, sizeof detail, "a ribbon's chain has %zu layers, outside [%d, %d]",
			 d->n_chain, RIG_RIBBON_MIN_CHAIN, RIG_RIBBON_MAX_CHAIN);
		fail(errs, RIG_OP_INVALID, "/chain", detail);
	}
	for (size_t i = 0; i < d->n_chain; i++) {
		if (rig_id_is_valid(d->chain[i]))
			continue;
		snprintf(ptr, sizeof ptr, "/chain/%zu", i);
		snprintf(detail, sizeof detail, "chain layer %zu is not a valid layer id", i);
		fail(errs, RIG_OP_INVALID, ptr, detail);
	}
	for (size_t i = 0; i < d->n_chain; i++) {
		if (isfinite(d->widths[i]) && d->widths[i] >= 0)
			continue;
		snprintf(ptr, sizeof ptr, "/widths/%zu", i);
		snprintf(detail, sizeof detail, "width %zu must be finite and at least 0", i);
		fail(errs, RIG_OP_INVALID, ptr, detail);
	}
	if (d->segments < RIG_RIBBON_MIN_SEGMENTS || d->segments > RIG_RIBBON_MAX_SEGMENTS) {
		snprintf(detail, sizeof detail, "segments %u is outside [%d, %d]", d->segments,
			 RIG_RIBBON_MIN_SEGMENTS, RIG_RIBBON_MAX_SEGMENTS);
		fail(errs, RIG_OP_INVALID, "/segments", detail);
	}
	if (errs->total == before && d->source && d->triangles) {
		if (d->n_verts != rig_ribbon_n_verts(d->n_chain, d->segments, d->caps) ||
		    d->n_tris != rig_ribbon_n_tris(d->n_chain, d->segments, d->caps)) {
			snprintf(
				detail, sizeof detail,
				"the rest mesh has %zu vertices and %zu triangles, not the chain's",
				d->n_verts, d->n_tris);
			fail(errs, RIG_MESH_TOPOLOGY, "/source", detail);
		} else {
			rig_mesh_check_source(d->source, d->n_verts, d->triangles, d->n_tris, errs);
			rig_mesh_check_uvs(d->uvs, d->n_verts, errs);
		}
	}
	return errs->total == before ? 0 : -1;
}

/* ---- the topology ---- */

void rig_ribbon_topology(uint32_t *out_tris, double *out_uvs, const struct rig_ribbon_def *d)
{
	size_t n = n_spans(d->n_chain, d->segments);
	for (size_t i = 0; i <= n; i++) {
		double u = (double)i / (double)n;
		out_uvs[4 * i] = u;
		out_uvs[4 * i + 1] = 0;
		out_uvs[4 * i + 2] = u;
		out_uvs[4 * i + 3] = 1;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t l0 = (uint32_t)(2 * i), r0 = l0 + 1, l1 = l0 + 2, r1 = l0 + 3;
		uint32_t *t = &out_tris[6 * i];
		t[0] = r0, t[1] = r1, t[2] = l1;
		t[3] = r0, t[4] = l1, t[5] = l0;
	}
	if (d->caps) {
		uint32_t start = (uint32_t)(2 * (n + 1)), end = start + 1;
		uint32_t ln = (uint32_t)(2 * n), rn = ln + 1;
		uint32_t *t = &out_tris[6 * n];
		t[0] = start, t[1] = 1, t[2] = 0;
		t[3] = rn, t[4] = end, t[5] = ln;
		out_uvs[2 * start] = 0;
		out_uvs[2 * start + 1] = 0.5;
		out_uvs[2 * end] = 1;
		out_uvs[2 * end + 1] = 0.5;
	}
}

/* ---- the generation ---- */

/* Point j of the chain with the ends duplicated (j may be −1 or n). */
static void chain_point(double out[2], const double *points, size_t n_chain, long j)
{
	if (j < 0)
		j = 0;
	if ((size_t)j >= n_chain)
		j = (long)n_chain - 1;
	out[0] = points[2 * j];
	out[1] = points[2 * j + 1];
}

/* The uniform Catmull–Rom curve through p1 (t = 0) and p2 (t = 1). */
static double catmull_rom(double p0, double p1, double p2, double p3, double t)
{
	double t2 = t * t, t3 = t2 * t;
	return 0.5 * (2 * p1 + (p2 - p0) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2 +
		      (3 * p1 - p0 - 3 * p2 + p3) * t3);
}

/* Curve point i (of N + 1) into q: chain point k exactly where i = k · s. */
static void curve_point(double q[2], const double *points, size_t n_chain, uint32_t s, size_t i)
{
	size_t k = i / s, j = i % s;
	if (j == 0) {
		chain_point(q, points, n_chain, (long)k);
		return;
	}
	double p0[2], p1[2], p2[2], p3[2];
	chain_point(p0, points, n_chain, (long)k - 1);
	chain_point(p1, points, n_chain, (long)k);
	chain_point(p2, points, n_chain, (long)k + 1);
	chain_point(p3, points, n_chain, (long)k + 2);
	double t = (double)j / (double)s;
	q[0] = catmull_rom(p0[0], p1[0], p2[0], p3[0], t);
	q[1] = catmull_rom(p0[1], p1[1], p2[1], p3[1], t);
}

/* The width at curve point i: the chain widths, linear at chain position i / s. */
static double width_at(const struct rig_ribbon_def *d, size_t i)
{
	size_t k = i / d->segments, j = i % d->segments;
	if (j == 0)
		return d->widths[k];
	double t = (double)j / (double)d->segments;
	return d->widths[k] + (d->widths[k + 1] - d->widths[k]) * t;
}

/* The unit tangent of segment a → b, or prev when the segment has no length. */
static void segment_tangent(double out[2], const double a[2], const double b[2],
			    const double prev[2])
{
	double dx = b[0] - a[0], dy = b[1] - a[1];
	double len = sqrt(dx * dx + dy * dy);
	if (len > 0) {
		out[0] = dx / len;
		out[1] = dy / len;
	} else {
		out[0] = prev[0];
		out[1] = prev[1];
	}
}

/* Vertices 2i, 2i + 1 of curve point q with tangent t and width w. */
static void put_pair(double *out_xy, size_t i, const double q[2], const double t[2], double w)
{
	double nx = -t[1], ny = t[0];
	out_xy[4 * i] = q[0] + nx * w;
	out_xy[4 * i + 1] = q[1] + ny * w;
	out_xy[4 * i + 2] = q[0] - nx * w;
	out_xy[4 * i + 3] = q[1] - ny * w;
}

void rig_ribbon_generate(double *out_xy, const struct rig_ribbon_def *d, const double *points)
{
	size_t n = n_spans(d->n_chain, d->segments);
	double prev_q[2], q[2], next_q[2];
	double u_prev[2] = {1, 0}, u_next[2] = {1, 0}, t[2];
	double t_first[2] = {1, 0};
	curve_point(q, points, d->n_chain, d->segments, 0);
	memcpy(prev_q, q, sizeof q);
	for (size_t i = 0; i <= n; i++) {
		if (i < n) {
			curve_point(next_q, points, d->n_chain, d->segments, i + 1);
			segment_tangent(u_next, q, next_q, u_prev);
		}
		if (i == 0) {
			t[0] = u_next[0], t[1] = u_next[1];
			t_first[0] = t[0], t_first[1] = t[1];
		} else if (i == n) {
			t[0] = u_prev[0], t[1] = u_prev[1];
		} else {
			double sx = u_prev[0] + u_next[0], sy = u_prev[1] + u_next[1];
			double len = sqrt(sx * sx + sy * sy);
			if (len > 0) {
				t[0] = sx / len;
				t[1] = sy / len;
			} else { /* folded straight back: keep the incoming tangent */
				t[0] = u_prev[0];
				t[1] = u_prev[1];
			}
		}
		put_pair(out_xy, i, q, t, width_at(d, i));
		if (d->caps && i == 0)
			memcpy(prev_q, q, sizeof q); /* q₀, for the start tip */
		if (d->caps && i == n) {
			size_t start = 2 * (n + 1), end = start + 1;
			double w0 = d->widths[0], wn = d->widths[d->n_chain - 1];
			out_xy[2 * start] = prev_q[0] - t_first[0] * w0;
			out_xy[2 * start + 1] = prev_q[1] - t_first[1] * w0;
			out_xy[2 * end] = q[0] + t[0] * wn;
			out_xy[2 * end + 1] = q[1] + t[1] * wn;
		}
		if (i < n) {
			u_prev[0] = u_next[0], u_prev[1] = u_next[1];
			memcpy(q, next_q, sizeof q);
		}
	}
}
