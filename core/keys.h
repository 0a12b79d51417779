/* Layer transforms and keyframed channels.
 *
 * A transform is seven channels (position x/y, rotation in degrees, scale x/y,
 * pivot x/y); its local matrix is T(position)·R(rotation)·S(scale)·T(−pivot) with
 * R(θ) = [cos θ, sin θ, −sin θ, cos θ, 0, 0]. A channel with keys is evaluated at
 * a frame with linear, hold or CSS cubic-bezier segments (fixed iteration count),
 * clamped before the first and after the last key; a channel without keys uses
 * its static value. No I/O, no allocation.
 */
#ifndef RIG_KEYS_H
#define RIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/affine.h"
#include "core/err.h"

enum rig_channel {
	RIG_CH_POSITION_X,
	RIG_CH_POSITION_Y,
	RIG_CH_ROTATION,
	RIG_CH_SCALE_X,
	RIG_CH_SCALE_Y,
	RIG_CH_PIVOT_X,
	RIG_CH_PIVOT_Y,
	RIG_CH_COUNT
};

enum rig_interp { RIG_INTERP_LINEAR, RIG_INTERP_HOLD, RIG_INTERP_BEZIER };

/* One key; interp and ease govern the segment from this key to the next.
 * ease is [x1, y1, x2, y2] as in CSS cubic-bezier(), used when interp is bezier. */
struct rig_key {
	double frame;
	double value;
	enum rig_interp interp;
	double ease[4];
};

/* A channel's keys, sorted by strictly increasing frame. Borrowed span. */
struct rig_keys {
	struct rig_key *items;
	size_t count;
};

/* Static channel values indexed by enum rig_channel. */
struct rig_transform {
	double ch[RIG_CH_COUNT];
};

/* The default transform: position 0, rotation 0, scale 1, pivot 0. */
struct rig_transform rig_transform_default(void);

/* The channel's wire name ("position.x", "rotation", …); NULL when out of range. */
const char *rig_channel_name(enum rig_channel ch);

/* Parses a wire channel name into *out; returns 0, or -1 when unknown. */
int rig_channel_parse(enum rig_channel *out, const char *name);

/* The interpolation's wire name ("linear", "hold", "bezier"). */
const char *rig_interp_name(enum rig_interp interp);

/* Parses a wire interpolation name into *out; returns 0, or -1 when unknown. */
int rig_interp_parse(enum rig_interp *out, const char *name);

/* Checks one key: finite frame and value, ease entries finite with x1 and x2 in
 * [0, 1] when interp is bezier. Records OP_INVALID violations in errs with
 * pointers relative to the key ("/frame", "/value", "/ease/0"); returns 0 when
 * valid, -1 otherwise. */
int rig_key_check(const struct rig_key *key, struct rig_errs *errs);

/* The CSS cubic-bezier ease y(t) for progress t in [0, 1]: solves x(s) = t with a
 * fixed number of steps (RIG_BEZIER_ITERATIONS), then returns y(s). */
double rig_bezier_ease(const double ease[4], double t);

/* Where frame falls among n ≥ 1 keys sorted by strictly increasing frame:
 * value = keys[a] when a == b (before the first key, after the last, on a
 * hold segment), else keys[a] + (keys[b] − keys[a]) · u with u the segment's
 * progress, eased when the segment is bezier. The one rule every keyed value
 * follows: a channel (rig_keys_eval) and a mesh binding's keyed vertices. */
struct rig_key_blend {
	size_t a, b;
	double u;
};
struct rig_key_blend rig_keys_blend(const struct rig_key *keys, size_t n, double frame);

/* The channel's value at frame: keys when there are any (clamped outside their
 * range), else static_value. keys must be sorted and checked. */
double rig_keys_eval(const struct rig_keys *keys, double frame, double static_value);

/* The local matrix T(position)·R(rotation)·S(scale)·T(−pivot) of channel values. */
struct rig_affine rig_transform_matrix(const struct rig_transform *t);

#endif
