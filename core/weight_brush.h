/* Weight painting (issue 25 item 3; bone-and-puppet §4.6): a brush dab and a
 * single weight set applied to a skin definition's explicit weights.
 *
 * A dab at center with radius R and feather φ ∈ [0, 1] reaches a vertex at
 * distance d with falloff f(d) = 1 for d <= R·(1 − φ), 0 for d >= R, and
 * 1 − smoothstep(t) between, t = (d − R·(1 − φ)) / (R·φ), smoothstep(t) =
 * t²(3 − 2t). The painted joint's weight w becomes, with s = strength · f:
 *   add       min(1, w + s);   subtract  max(0, w − s);
 *   set       w + (strength − w) · f;
 *   smooth    w + (m − w) · s, m the mean of the joint's weights over the
 *             vertices under the brush (d < R) before the dab.
 * The painted joint keeps its new value; the rest of the vertex's total
 * (1 − w') is shared among its other joints in proportion to their weights;
 * a vertex whose only influence is the painted joint cannot lose weight
 * (it keeps 1); influences that reach 0 are dropped, at most
 * RIG_MAX_INFLUENCES are kept (the smallest dropped), and the list is
 * renormalised to obey rig_skin_check_influences. In detail
 * (core/weight_brush.c): a vertex whose painted value does not change (bit
 * for bit) keeps its list; a joint new to a full list of 8 drops the
 * smallest of the others (ties: the higher joint index), never itself, and
 * the others left share 1 − w'; a new joint goes at the end of the list,
 * the others keep their order; the final division by the sum moves w' by
 * rounding only. No I/O.
 */
#ifndef RIG_WEIGHT_BRUSH_H
#define RIG_WEIGHT_BRUSH_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/skin.h"

enum rig_brush_mode {
	RIG_BRUSH_ADD = 0,
	RIG_BRUSH_SUBTRACT = 1,
	RIG_BRUSH_SMOOTH = 2,
	RIG_BRUSH_SET = 3
};

/* "add", "subtract", "smooth", "set"; NULL outside the enum. Parse: 0 or -1. */
const char *rig_brush_mode_name(enum rig_brush_mode m);
int rig_brush_mode_parse(enum rig_brush_mode *out, const char *name);

struct rig_brush {
	enum rig_brush_mode mode;
	uint32_t joint;  /* index into the skin's joints */
	double cx, cy;   /* rest space */
	double radius;   /* finite, > 0 */
	double strength; /* finite, in [0, 1] */
	double feather;  /* finite, in [0, 1] */
};

/* The falloff f(d) above. */
double rig_brush_falloff(double d, double radius, double feather);

/* Checks the brush's fields, reporting every violation (INVALID_FIELD at
 * "/radius", "/strength", "/feather", and "/mode" outside the enum or
 * "/center" not finite; SKIN_JOINTS at "/jointId" for a joint past
 * n_joints). Returns 0 or -1. */
int rig_brush_check(const struct rig_brush *b, size_t n_joints, struct rig_errs *errs);

/* Applies one dab (checked by rig_brush_check) to def's weights (loaded,
 * valid: n_weight_lists == n_verts, every list normalised), replacing its
 * weight_offsets and influences with new malloc'd arrays when a list changes
 * (the old ones freed; def's arrays are left as they are when none does).
 * *changed (malloc'd, the caller frees it; ascending vertex indices,
 * *n_changed of them; NULL when none) lists the vertices whose list changed.
 * Returns 0, or -2 when out of memory (def unchanged, *changed NULL). */
int rig_brush_apply(struct rig_skin_def *def, const struct rig_brush *b, uint32_t **changed,
		    size_t *n_changed);

/* Sets the weight of joint at vertex to weight (finite, in [0, 1]); the other
 * influences share 1 − weight in proportion to theirs, by the dab's rule
 * above (0 removes the joint, 1 leaves it alone, a new joint is added).
 * Returns 0 (changed or not); -1 with every violation recorded:
 * SKIN_WEIGHT_SET at "/weight" for a weight outside [0, 1] or not finite,
 * and at "/vertexIndex" when the vertex has one influence (it cannot change,
 * whatever the joint and weight: with ≥ 2 no weight leaves it without one);
 * SKIN_WEIGHT_VERTEX at "/vertexIndex" past the vertices; SKIN_JOINTS at
 * "/jointId" past the joints; -2 when out of memory. def is unchanged on
 * failure; a list that changes length gets def new arrays (the old ones
 * freed), one of the same length is rewritten in place. */
int rig_weight_set(struct rig_skin_def *def, size_t vertex, uint32_t joint, double weight,
		   struct rig_errs *errs);

#endif
