/* Bone chains and presets (bone_suggest.h).
 *
 * The chain: the axis is y (bottom up) when the points' bounding box is at
 * least as tall as it is wide, else x (left to right); L its extent along
 * the axis, a0 its lowest value. Joint i (0 ≤ i < n) sits at a0 + i·L/n
 * along the axis, so the n joints cut the extent into n equal slices and
 * joint i's bone owns slice i = [a0 + i·L/n, a0 + (i + 1)·L/n) (a point
 * falls in slice min(n − 1, ⌊n·((a − a0)/L)⌋)); across the axis joint i is
 * centred on the covered span of its slice's points ((min + max) / 2), or
 * on the box's centre when its slice holds none. Joint i's heading and
 * length are those to joint i + 1; the last joint heads along the axis for
 * L/n, so its bone reaches the far end.
 *
 * The presets: rows of (name, parent, position as fractions of the box,
 * and for a leaf the tip its bone points to), placed by
 * x = x0 + fx·(x1 − x0), y = y0 + fy·(y1 − y0). A joint heads to its first
 * child (in row order) for the distance to it; a leaf to its tip.
 * docs/decisions.md draws both. No I/O.
 */
#include "core/bone_suggest.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846

static double heading_deg(double dx, double dy)
{
	return atan2(dy, dx) * (180 / PI);
}

/* ------------------------------------------------------------------------ */
/* The chain                                                                 */
/* ------------------------------------------------------------------------ */

long rig_bones_chain(struct rig_bone_suggestion *out, size_t n, const double *points,
		     size_t n_points, struct rig_errs *errs)
{
	size_t before = errs->total;
	if (n < 1 || n > RIG_MAX_SUGGEST_BONES) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_INVALID_FIELD, "%zu bones, outside [1, %d]", n,
				     RIG_MAX_SUGGEST_BONES);
		rig_strlcpy(e->pointer, "/n", sizeof e->pointer);
		rig_err_extra_number(e, "value", (double)n);
		rig_err_extra_number(e, "maxSuggestBones", RIG_MAX_SUGGEST_BONES);
	}
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
	for (size_t i = 0; i < n_points; i++) {
		const double *p = &points[2 * i];
		if (!(isfinite(p[0]) && isfinite(p[1]))) {
			struct rig_err *e =
				rig_errs_add(errs, RIG_INVALID_FIELD, "point %zu is not finite", i);
			snprintf(e->pointer, sizeof e->pointer, "/points/%zu", i);
			e->vertex_index = (long)i;
			continue;
		}
		for (int c = 0; c < 2; c++) {
			lo[c] = p[c] < lo[c] ? p[c] : lo[c];
			hi[c] = p[c] > hi[c] ? p[c] : hi[c];
		}
	}
	if (n_points > 0 && errs->total == before &&
	    !(isfinite(hi[0] - lo[0]) && isfinite(hi[1] - lo[1]))) {
		struct rig_err *e = rig_errs_add(errs, RIG_INVALID_FIELD,
						 "the region's extent is not a finite number");
		rig_strlcpy(e->pointer, "/points", sizeof e->pointer);
	}
	if (errs->total > before)
		return -1;
	if (n_points == 0 || !(hi[0] > lo[0] || hi[1] > lo[1])) {
		rig_errs_add(errs, RIG_TESSELLATE_EMPTY,
			     n_points
				     ? "the region is one point: it has no extent to place bones in"
				     : "the region has no points to place bones in");
		return -1;
	}
	int a = hi[1] - lo[1] >= hi[0] - lo[0] ? 1 : 0, c = 1 - a; /* axis, across */
	double len = hi[a] - lo[a], step = len / (double)n;
	double span_lo[RIG_MAX_SUGGEST_BONES], span_hi[RIG_MAX_SUGGEST_BONES];
	for (size_t i = 0; i < n; i++) {
		span_lo[i] = INFINITY;
		span_hi[i] = -INFINITY;
	}
	for (size_t i = 0; i < n_points; i++) {
		const double *p = &points[2 * i];
		double s = floor((double)n * ((p[a] - lo[a]) / len));
		size_t k = s < (double)n ? (size_t)s : n - 1;
		span_lo[k] = p[c] < span_lo[k] ? p[c] : span_lo[k];
		span_hi[k] = p[c] > span_hi[k] ? p[c] : span_hi[k];
	}
	for (size_t i = 0; i < n; i++) {
		struct rig_bone_suggestion *b = &out[i];
		memset(b, 0, sizeof *b);
		snprintf(b->name, sizeof b->name, "bone%zu", i);
		b->parent = (long)i - 1;
		double along = lo[a] + (double)i * step;
		double across = span_lo[i] <= span_hi[i] ? (span_lo[i] + span_hi[i]) / 2
							 : (lo[c] + hi[c]) / 2;
		b->x = a == 0 ? along : across;
		b->y = a == 0 ? across : along;
	}
	for (size_t i = 0; i < n; i++) {
		struct rig_bone_suggestion *b = &out[i];
		if (i + 1 < n) {
			double dx = out[i + 1].x - b->x, dy = out[i + 1].y - b->y;
			b->rotation_deg = heading_deg(dx, dy);
			b->length = sqrt(dx * dx + dy * dy);
		} else {
			b->rotation_deg = a == 0 ? 0 : 90;
			b->length = step;
		}
	}
	return (long)n;
}

/* ------------------------------------------------------------------------ */
/* The presets                                                               */
/* ------------------------------------------------------------------------ */

static const char *const preset_names[] = {"biped", "quadruped"};
#define N_PRESETS (sizeof preset_names / sizeof preset_names[0])

const char *rig_bone_preset_name(enum rig_bone_preset p)
{
	return (unsigned)p < N_PRESETS ? preset_names[p] : NULL;
}

int rig_bone_preset_parse(enum rig_bone_preset *out, const char *name)
{
	for (size_t i = 0; name && i < N_PRESETS; i++) {
		if (strcmp(name, preset_names[i]) == 0) {
			*out = (enum rig_bone_preset)i;
			return 0;
		}
	}
	return -1;
}

/* A preset's row: position and, for a leaf, its tip, as fractions of the
 * box (0 at x0 / y0, 1 at x1 / y1; y up). */
struct preset_row {
	const char *name;
	int parent;
	double fx, fy;
	double tip_fx, tip_fy; /* leaves only */
};

/* A biped facing the viewer, arms down and out (an A pose): ".L" is the
 * character's left, on the viewer's right (+x). */
static const struct preset_row biped[] = {
	{"hips", -1, 0.50, 0.50, 0, 0},         {"spine", 0, 0.50, 0.60, 0, 0},
	{"chest", 1, 0.50, 0.70, 0, 0},         {"neck", 2, 0.50, 0.80, 0, 0},
	{"head", 3, 0.50, 0.86, 0.50, 1.00},    {"upperArm.L", 2, 0.62, 0.78, 0, 0},
	{"forearm.L", 5, 0.74, 0.62, 0, 0},     {"hand.L", 6, 0.84, 0.47, 0.90, 0.38},
	{"upperArm.R", 2, 0.38, 0.78, 0, 0},    {"forearm.R", 8, 0.26, 0.62, 0, 0},
	{"hand.R", 9, 0.16, 0.47, 0.10, 0.38},  {"thigh.L", 0, 0.58, 0.48, 0, 0},
	{"shin.L", 11, 0.60, 0.26, 0, 0},       {"foot.L", 12, 0.61, 0.05, 0.70, 0.00},
	{"thigh.R", 0, 0.42, 0.48, 0, 0},       {"shin.R", 14, 0.40, 0.26, 0, 0},
	{"foot.R", 15, 0.39, 0.05, 0.30, 0.00},
};

/* A quadruped in profile facing +x (head right, tail left): ".L" the near
 * legs, ".R" the far ones, set 0.05 of the width behind them. */
static const struct preset_row quadruped[] = {
	{"hips", -1, 0.30, 0.62, 0, 0},
	{"spine", 0, 0.50, 0.64, 0, 0},
	{"chest", 1, 0.70, 0.64, 0, 0},
	{"neck", 2, 0.80, 0.72, 0, 0},
	{"head", 3, 0.88, 0.84, 1.00, 0.78},
	{"tail", 0, 0.20, 0.66, 0.00, 0.74},
	{"hindUpper.L", 0, 0.32, 0.56, 0, 0},
	{"hindLower.L", 6, 0.29, 0.30, 0, 0},
	{"hindFoot.L", 7, 0.31, 0.06, 0.36, 0.00},
	{"hindUpper.R", 0, 0.27, 0.56, 0, 0},
	{"hindLower.R", 9, 0.24, 0.30, 0, 0},
	{"hindFoot.R", 10, 0.26, 0.06, 0.31, 0.00},
	{"frontUpper.L", 2, 0.72, 0.56, 0, 0},
	{"frontLower.L", 12, 0.73, 0.30, 0, 0},
	{"frontFoot.L", 13, 0.74, 0.06, 0.79, 0.00},
	{"frontUpper.R", 2, 0.67, 0.56, 0, 0},
	{"frontLower.R", 15, 0.68, 0.30, 0, 0},
	{"frontFoot.R", 16, 0.69, 0.06, 0.74, 0.00},
};

_Static_assert(sizeof biped / sizeof biped[0] <= RIG_MAX_SUGGEST_BONES, "biped fits");
_Static_assert(sizeof quadruped / sizeof quadruped[0] <= RIG_MAX_SUGGEST_BONES, "quadruped fits");

long rig_bones_preset(struct rig_bone_suggestion *out, enum rig_bone_preset preset, double x0,
		      double y0, double x1, double y1, struct rig_errs *errs)
{
	const struct preset_row *rows = preset == RIG_PRESET_BIPED       ? biped
					: preset == RIG_PRESET_QUADRUPED ? quadruped
									 : NULL;
	size_t n = preset == RIG_PRESET_BIPED ? sizeof biped / sizeof biped[0]
					      : sizeof quadruped / sizeof quadruped[0];
	if (!rows) {
		struct rig_err *e = rig_errs_add(errs, RIG_INVALID_FIELD,
						 "preset %d is none of the presets", (int)preset);
		rig_strlcpy(e->pointer, "/preset", sizeof e->pointer);
		return -1;
	}
	double w = x1 - x0, h = y1 - y0;
	if (!(isfinite(x0) && isfinite(y0) && isfinite(x1) && isfinite(y1) && isfinite(w) &&
	      isfinite(h))) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_INVALID_FIELD, "the preset's box is not finite");
		rig_strlcpy(e->pointer, "/box", sizeof e->pointer);
		return -1;
	}
	if (!(w > 0 && h > 0)) {
		struct rig_err *e = rig_errs_add(errs, RIG_TESSELLATE_EMPTY,
						 "the preset's box is empty (%g × %g)", w, h);
		rig_strlcpy(e->pointer, "/box", sizeof e->pointer);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct rig_bone_suggestion *b = &out[i];
		memset(b, 0, sizeof *b);
		rig_strlcpy(b->name, rows[i].name, sizeof b->name);
		b->parent = rows[i].parent;
		b->x = x0 + rows[i].fx * w;
		b->y = y0 + rows[i].fy * h;
	}
	for (size_t i = 0; i < n; i++) {
		struct rig_bone_suggestion *b = &out[i];
		size_t child = n;
		for (size_t k = i + 1; k < n && child == n; k++)
			if (rows[k].parent == (int)i)
				child = k;
		double tx = child < n ? out[child].x : x0 + rows[i].tip_fx * w;
		double ty = child < n ? out[child].y : y0 + rows[i].tip_fy * h;
		double dx = tx - b->x, dy = ty - b->y;
		b->rotation_deg = heading_deg(dx, dy);
		b->length = sqrt(dx * dx + dy * dy);
	}
	return (long)n;
}
