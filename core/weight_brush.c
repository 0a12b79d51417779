/* Weight painting (weight_brush.h): the falloff, the four brush modes, and
 * the one redistribution rule a dab and layer.skin.weights.set share.
 *
 * The redistribution of a vertex's list when joint j's weight becomes w'
 * (w' ∈ [0, 1], w its weight before, 0 when it is not in the list):
 *   - w' == w (bit for bit): the list stays as it was;
 *   - the list is j alone: it stays (1; a dab cannot take weight from it);
 *   - otherwise j holds w' (dropped when w' is 0, added at the end of the
 *     list when new) and every other joint k its weight times
 *     (1 − w') / Σ_others (dropped when that is 0);
 *   - past RIG_MAX_INFLUENCES (j new on a full list) the smallest of the
 *     others is dropped (ties: the higher joint index), before the sharing,
 *     so j keeps w' and the others still share 1 − w';
 *   - the list is then divided by its sum (rounding only: it moves w' by an
 *     ulp or so), so rig_skin_check_influences accepts it.
 * The list keeps its order otherwise. No I/O, no globals.
 */
#include "core/weight_brush.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/rig_limits.h"

static const char *const mode_names[] = {"add", "subtract", "smooth", "set"};
#define N_MODES (sizeof mode_names / sizeof mode_names[0])

const char *rig_brush_mode_name(enum rig_brush_mode m)
{
	return (unsigned)m < N_MODES ? mode_names[m] : NULL;
}

int rig_brush_mode_parse(enum rig_brush_mode *out, const char *name)
{
	for (size_t i = 0; name && i < N_MODES; i++) {
		if (strcmp(name, mode_names[i]) == 0) {
			*out = (enum rig_brush_mode)i;
			return 0;
		}
	}
	return -1;
}

/* 0 at and past the radius (and for a d that is not a number), 1 inside the
 * core R·(1 − φ), 1 − t²(3 − 2t) on the feathered ring between. */
double rig_brush_falloff(double d, double radius, double feather)
{
	if (!(d < radius))
		return 0;
	double core = radius * (1 - feather);
	if (d <= core)
		return 1;
	double t = (d - core) / (radius * feather);
	return 1 - t * t * (3 - 2 * t);
}

static bool is_unit(double x)
{
	return isfinite(x) && x >= 0 && x <= 1;
}

static void field_err(struct rig_errs *errs, enum rig_code code, const char *pointer,
		      const char *detail, double value)
{
	struct rig_err *e = rig_errs_add(errs, code, "%s", detail);
	rig_strlcpy(e->pointer, pointer, sizeof e->pointer);
	rig_err_extra_number(e, "value", value);
}

int rig_brush_check(const struct rig_brush *b, size_t n_joints, struct rig_errs *errs)
{
	size_t before = errs->total;
	if (!rig_brush_mode_name(b->mode))
		field_err(errs, RIG_INVALID_FIELD, "/mode", "mode is none of the brush modes",
			  (double)b->mode);
	if (!(isfinite(b->cx) && isfinite(b->cy)))
		field_err(errs, RIG_INVALID_FIELD, "/center", "center is not finite", NAN);
	if (!(isfinite(b->radius) && b->radius > 0))
		field_err(errs, RIG_INVALID_FIELD, "/radius", "radius is not a finite number > 0",
			  b->radius);
	if (!is_unit(b->strength))
		field_err(errs, RIG_INVALID_FIELD, "/strength", "strength is not in [0, 1]",
			  b->strength);
	if (!is_unit(b->feather))
		field_err(errs, RIG_INVALID_FIELD, "/feather", "feather is not in [0, 1]",
			  b->feather);
	if (b->joint >= n_joints) {
		struct rig_err *e = rig_errs_add(errs, RIG_SKIN_JOINTS,
						 "joint %u is past the skin's %zu joints",
						 (unsigned)b->joint, n_joints);
		rig_strlcpy(e->pointer, "/jointId", sizeof e->pointer);
		e->joint_index = (long)b->joint;
	}
	return errs->total > before ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Redistribution                                                            */
/* ------------------------------------------------------------------------ */

/* Joint j's weight in list (n), 0 when absent. */
static double weight_in(const struct rig_skin_influence *list, size_t n, uint32_t j)
{
	for (size_t k = 0; k < n; k++)
		if (list[k].joint == j)
			return list[k].weight;
	return 0;
}

/* The rule of the file comment: writes the new list (at most
 * RIG_MAX_INFLUENCES) to out and returns its count, or 0 when the list stays
 * as it was. */
static size_t redistribute(struct rig_skin_influence *out, const struct rig_skin_influence *list,
			   size_t n, uint32_t j, double w_new)
{
	size_t at_j = n;
	for (size_t k = 0; k < n; k++)
		if (list[k].joint == j)
			at_j = k;
	double w_old = at_j < n ? list[at_j].weight : 0;
	if (w_new == w_old || (n == 1 && at_j == 0))
		return 0;
	/* A new joint on a full list: the smallest other goes. */
	size_t drop = n;
	if (at_j == n && w_new > 0 && n >= RIG_MAX_INFLUENCES) {
		drop = 0;
		for (size_t k = 1; k < n; k++)
			if (list[k].weight < list[drop].weight ||
			    (list[k].weight == list[drop].weight &&
			     list[k].joint > list[drop].joint))
				drop = k;
	}
	double others = 0;
	for (size_t k = 0; k < n; k++)
		if (k != at_j && k != drop)
			others += list[k].weight;
	double share = others > 0 ? (1 - w_new) / others : 0;
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		if (k == drop)
			continue;
		double w = k == at_j ? w_new : list[k].weight * share;
		if (w > 0) {
			out[m].joint = list[k].joint;
			out[m++].weight = w;
		}
	}
	if (at_j == n && w_new > 0) {
		out[m].joint = j;
		out[m++].weight = w_new;
	}
	if (m == 0) { /* cannot happen for a valid list: others > 0 there */
		out[0].joint = j;
		out[0].weight = 1;
		m = 1;
	}
	/* The shares already sum to 1 within rounding, and then the painted
	 * joint keeps its value exactly; only a sum past the weights rule's
	 * tolerance is divided out. */
	double sum = 0;
	for (size_t k = 0; k < m; k++)
		sum += out[k].weight;
	if (fabs(sum - 1) > RIG_WEIGHT_SUM_EPSILONS * DBL_EPSILON &&
	    !rig_skin_normalize_influences(out, m)) {
		out[0].joint = j;
		out[0].weight = 1;
		m = 1;
	}
	return m;
}

/* ------------------------------------------------------------------------ */
/* The dab                                                                   */
/* ------------------------------------------------------------------------ */

static double dist(const struct rig_brush *b, const double *xy)
{
	double dx = xy[0] - b->cx, dy = xy[1] - b->cy;
	return sqrt(dx * dx + dy * dy);
}

/* The painted joint's new weight (weight_brush.h), clamped into [0, 1]
 * against rounding. */
static double painted(const struct rig_brush *b, double w, double f, double mean)
{
	double s = b->strength * f, out;
	switch (b->mode) {
	case RIG_BRUSH_ADD:
		out = w + s < 1 ? w + s : 1;
		break;
	case RIG_BRUSH_SUBTRACT:
		out = w - s > 0 ? w - s : 0;
		break;
	case RIG_BRUSH_SMOOTH:
		out = w + (mean - w) * s;
		break;
	default:
		out = w + (b->strength - w) * f;
		break;
	}
	return out < 0 ? 0 : out > 1 ? 1 : out;
}

/* Replaces def's lists with new arrays: every vertex's list is its old one
 * unless m_new[v] > 0, then the next m_new[v] entries of fresh (the changed
 * vertices' lists, ascending vertex order). Returns 0, or -1 when out of
 * memory (def untouched). */
static int rebuild(struct rig_skin_def *def, const uint8_t *m_new,
		   const struct rig_skin_influence *fresh)
{
	size_t n = def->n_verts, total = 0;
	for (size_t v = 0; v < n; v++)
		total += m_new[v] ? m_new[v] : def->weight_offsets[v + 1] - def->weight_offsets[v];
	uint32_t *offsets = malloc((n + 1) * sizeof *offsets);
	struct rig_skin_influence *inf = calloc(total ? total : 1, sizeof *inf);
	if (!offsets || !inf) {
		free(offsets);
		free(inf);
		return -1;
	}
	uint32_t at = 0;
	for (size_t v = 0; v < n; v++) {
		uint32_t a = def->weight_offsets[v], b = def->weight_offsets[v + 1];
		offsets[v] = at;
		if (m_new[v]) {
			memcpy(&inf[at], fresh, m_new[v] * sizeof *inf);
			fresh += m_new[v];
			at += m_new[v];
		} else {
			memcpy(&inf[at], &def->influences[a], (b - a) * sizeof *inf);
			at += b - a;
		}
	}
	offsets[n] = at;
	free(def->weight_offsets);
	free(def->influences);
	def->weight_offsets = offsets;
	def->influences = inf;
	return 0;
}

int rig_brush_apply(struct rig_skin_def *def, const struct rig_brush *b, uint32_t **changed,
		    size_t *n_changed)
{
	*changed = NULL;
	*n_changed = 0;
	size_t n = def->n_verts;
	const uint32_t *off = def->weight_offsets;
	double mean = 0;
	if (b->mode == RIG_BRUSH_SMOOTH) {
		size_t n_under = 0;
		for (size_t v = 0; v < n; v++) {
			if (dist(b, &def->source[2 * v]) < b->radius) {
				mean += weight_in(&def->influences[off[v]], off[v + 1] - off[v],
						  b->joint);
				n_under++;
			}
		}
		mean = n_under ? mean / (double)n_under : 0;
	}
	/* Only the vertices the dab changes get a fresh list: a first pass
	 * counts them, so an untouched skin costs one pass and no copy. */
	size_t n_new = 0;
	uint8_t *m_new = calloc(n ? n : 1, sizeof *m_new);
	struct rig_skin_influence *fresh = NULL;
	uint32_t *list = NULL;
	int rc = -2;
	if (!m_new)
		goto out_free;
	struct rig_skin_influence scratch[RIG_MAX_INFLUENCES];
	memset(scratch, 0, sizeof scratch);
	for (size_t v = 0; v < n; v++) {
		double f = rig_brush_falloff(dist(b, &def->source[2 * v]), b->radius, b->feather);
		if (!(f > 0))
			continue;
		const struct rig_skin_influence *old = &def->influences[off[v]];
		size_t k = off[v + 1] - off[v];
		double w = weight_in(old, k, b->joint);
		m_new[v] = (uint8_t)redistribute(scratch, old, k, b->joint, painted(b, w, f, mean));
		n_new += m_new[v] > 0;
	}
	if (n_new == 0) {
		rc = 0;
		goto out_free;
	}
	fresh = calloc(n_new * RIG_MAX_INFLUENCES, sizeof *fresh);
	list = malloc(n_new * sizeof *list);
	if (!fresh || !list)
		goto out_free;
	size_t at = 0, n_fresh = 0;
	for (size_t v = 0; v < n; v++) {
		if (!m_new[v])
			continue;
		const struct rig_skin_influence *old = &def->influences[off[v]];
		size_t k = off[v + 1] - off[v];
		double f = rig_brush_falloff(dist(b, &def->source[2 * v]), b->radius, b->feather);
		double w = weight_in(old, k, b->joint);
		n_fresh += redistribute(&fresh[n_fresh], old, k, b->joint, painted(b, w, f, mean));
		list[at++] = (uint32_t)v;
	}
	if (rebuild(def, m_new, fresh) != 0)
		goto out_free;
	*changed = list;
	*n_changed = n_new;
	list = NULL;
	rc = 0;
out_free:
	free(m_new);
	free(fresh);
	free(list);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* One weight                                                                */
/* ------------------------------------------------------------------------ */

int rig_weight_set(struct rig_skin_def *def, size_t vertex, uint32_t joint, double weight,
		   struct rig_errs *errs)
{
	size_t before = errs->total;
	if (!is_unit(weight)) {
		struct rig_err *e = rig_errs_add(errs, RIG_SKIN_WEIGHT_SET,
						 "weight %.17g is not in [0, 1]", weight);
		rig_strlcpy(e->pointer, "/weight", sizeof e->pointer);
		rig_err_extra_number(e, "weight", weight);
	}
	if (vertex >= def->n_verts) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_SKIN_WEIGHT_VERTEX,
				     "vertex %zu is past the %zu vertices", vertex, def->n_verts);
		rig_strlcpy(e->pointer, "/vertexIndex", sizeof e->pointer);
		e->vertex_index = (long)vertex;
	}
	if (joint >= def->n_joints) {
		struct rig_err *e = rig_errs_add(errs, RIG_SKIN_JOINTS,
						 "joint %u is past the skin's %zu joints",
						 (unsigned)joint, def->n_joints);
		rig_strlcpy(e->pointer, "/jointId", sizeof e->pointer);
		e->joint_index = (long)joint;
	}
	const uint32_t *off = def->weight_offsets;
	size_t k = vertex < def->n_verts ? off[vertex + 1] - off[vertex] : 0;
	if (k == 1) {
		struct rig_err *e = rig_errs_add(
			errs, RIG_SKIN_WEIGHT_SET,
			"vertex %zu has one influence: its weight cannot change, and it cannot "
			"lose the vertex",
			vertex);
		rig_strlcpy(e->pointer, "/vertexIndex", sizeof e->pointer);
		e->vertex_index = (long)vertex;
		e->joint_index = (long)joint;
	}
	if (errs->total > before)
		return -1;
	const struct rig_skin_influence *old = &def->influences[off[vertex]];
	struct rig_skin_influence out[RIG_MAX_INFLUENCES];
	memset(out, 0, sizeof out); /* the padding too: the same bytes every run */
	size_t m = redistribute(out, old, k, joint, weight);
	if (m == 0)
		return 0;
	if (m == k) { /* the same count: in place, nothing to allocate */
		memcpy(&def->influences[off[vertex]], out, m * sizeof *out);
		return 0;
	}
	uint8_t *m_new = calloc(def->n_verts, sizeof *m_new);
	if (!m_new)
		return -2;
	m_new[vertex] = (uint8_t)m;
	int rc = rebuild(def, m_new, out) == 0 ? 0 : -2;
	free(m_new);
	return rc;
}
