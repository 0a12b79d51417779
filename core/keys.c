/* Layer transforms and keyframed channels: names, key checks, the cubic-bezier
 * ease, channel evaluation and the local matrix T(position)·R(rotation)·S(scale)·T(−pivot).
 *
 * Everything here is a pure function of its arguments: the ease solver runs a
 * fixed number of steps, so a value never depends on timing or on history.
 * Storage and parsing of keys live elsewhere (storage/, api/).
 */
#include "core/keys.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rig_limits.h"

#define PI 3.14159265358979323846

static const char *const channel_names[RIG_CH_COUNT] = {
	[RIG_CH_POSITION_X] = "position.x", [RIG_CH_POSITION_Y] = "position.y",
	[RIG_CH_ROTATION] = "rotation",     [RIG_CH_SCALE_X] = "scale.x",
	[RIG_CH_SCALE_Y] = "scale.y",       [RIG_CH_PIVOT_X] = "pivot.x",
	[RIG_CH_PIVOT_Y] = "pivot.y",
};

static const char *const interp_names[] = {
	[RIG_INTERP_LINEAR] = "linear",
	[RIG_INTERP_HOLD] = "hold",
	[RIG_INTERP_BEZIER] = "bezier",
};

#define N_INTERPS (sizeof interp_names / sizeof interp_names[0])

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

struct rig_transform rig_transform_default(void)
{
	struct rig_transform t = {{0}};
	t.ch[RIG_CH_SCALE_X] = 1;
	t.ch[RIG_CH_SCALE_Y] = 1;
	return t;
}

const char *rig_channel_name(enum rig_channel ch)
{
	if ((int)ch < 0 || ch >= RIG_CH_COUNT)
		return NULL;
	return channel_names[ch];
}

int rig_channel_parse(enum rig_channel *out, const char *name)
{
	for (int i = 0; i < RIG_CH_COUNT; i++) {
		if (strcmp(channel_names[i], name) == 0) {
			*out = (enum rig_channel)i;
			return 0;
		}
	}
	return -1;
}

const char *rig_interp_name(enum rig_interp interp)
{
	if ((unsigned)interp >= N_INTERPS)
		return "unknown";
	return interp_names[interp];
}

int rig_interp_parse(enum rig_interp *out, const char *name)
{
	for (size_t i = 0; i < N_INTERPS; i++) {
		if (strcmp(interp_names[i], name) == 0) {
			*out = (enum rig_interp)i;
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Key checks                                                                */
/* ------------------------------------------------------------------------ */

int rig_key_check(const struct rig_key *key, struct rig_errs *errs)
{
	size_t before = errs->total;
	if (!isfinite(key->frame)) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_OP_INVALID, "key frame is not a finite number");
		rig_strlcpy(e->pointer, "/frame", sizeof e->pointer);
	}
	if (!isfinite(key->value)) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_OP_INVALID, "key value is not a finite number");
		rig_strlcpy(e->pointer, "/value", sizeof e->pointer);
	}
	if ((unsigned)key->interp >= N_INTERPS) {
		struct rig_err *e = rig_errs_add(errs, RIG_OP_INVALID,
						 "key interp must be 'linear', 'hold' or 'bezier'");
		rig_strlcpy(e->pointer, "/interp", sizeof e->pointer);
	} else if (key->interp == RIG_INTERP_BEZIER) {
		for (int i = 0; i < 4; i++) {
			double v = key->ease[i];
			bool is_x = i == 0 || i == 2;
			struct rig_err *e = NULL;
			if (!isfinite(v))
				e = rig_errs_add(errs, RIG_OP_INVALID,
						 "ease entry %d is not a finite number", i);
			else if (is_x && !(v >= 0 && v <= 1))
				e = rig_errs_add(errs, RIG_OP_INVALID,
						 "ease x%d is %.17g, outside [0, 1]", i / 2 + 1, v);
			if (e)
				snprintf(e->pointer, sizeof e->pointer, "/ease/%d", i);
		}
	}
	return errs->total == before ? 0 : -1;
}

/* ------------------------------------------------------------------------ */
/* Cubic-bezier ease                                                         */
/* ------------------------------------------------------------------------ */

/* One coordinate of the CSS curve with P0 = 0 and P3 = 1:
 *   B(s) = 3(1 − s)²s·p1 + 3(1 − s)s²·p2 + s³ = ((k3·s + k2)·s + k1)·s. */
struct cubic {
	double k1, k2, k3;
};

static struct cubic cubic_of(double p1, double p2)
{
	struct cubic c;
	c.k1 = 3 * p1;
	c.k2 = 3 * (p2 - p1) - c.k1;
	c.k3 = 1 - c.k1 - c.k2;
	return c;
}

static double cubic_at(struct cubic c, double s)
{
	return ((c.k3 * s + c.k2) * s + c.k1) * s;
}

static double cubic_slope(struct cubic c, double s)
{
	return (3 * c.k3 * s + 2 * c.k2) * s + c.k1;
}

/* Solves x(s) = t on [0, 1] with exactly RIG_BEZIER_ITERATIONS steps. With x1
 * and x2 in [0, 1] x(s) is non-decreasing, so [lo, hi] always brackets the root;
 * each step takes Newton's step when it lands inside the bracket and bisects
 * otherwise. Newton converges to rounding in a handful of steps; the remaining
 * steps leave s where it is, so the count never depends on the data. */
double rig_bezier_ease(const double ease[4], double t)
{
	if (!(t > 0))
		return 0;
	if (!(t < 1))
		return 1;
	struct cubic cx = cubic_of(ease[0], ease[2]);
	struct cubic cy = cubic_of(ease[1], ease[3]);
	double lo = 0, hi = 1, s = t;
	for (int i = 0; i < RIG_BEZIER_ITERATIONS; i++) {
		double fx = cubic_at(cx, s) - t;
		if (fx < 0)
			lo = s;
		else if (fx > 0)
			hi = s;
		else
			lo = hi = s;
		double slope = cubic_slope(cx, s);
		double next = s - fx / slope;
		/* A converged Newton step stays on s (closed bracket): bisecting then
		 * would jump away from the root towards the far end of the bracket. */
		if (!(slope > 0) || !(next >= lo && next <= hi))
			next = lo + (hi - lo) / 2;
		s = next;
	}
	return cubic_at(cy, s);
}

/* ------------------------------------------------------------------------ */
/* Channels and the local matrix                                             */
/* ------------------------------------------------------------------------ */

struct rig_key_blend rig_keys_blend(const struct rig_key *k, size_t n, double frame)
{
	struct rig_key_blend bl = {0, 0, 0};
	if (!(frame > k[0].frame))
		return bl;
	if (!(frame < k[n - 1].frame)) {
		bl.a = bl.b = n - 1;
		return bl;
	}
	/* The segment [k[lo], k[lo + 1]) holding frame: k[lo].frame < frame < k[hi].frame. */
	size_t lo = 0, hi = n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (k[mid].frame <= frame)
			lo = mid;
		else
			hi = mid;
	}
	const struct rig_key *a = &k[lo], *b = &k[lo + 1];
	bl.a = bl.b = lo;
	if (a->interp == RIG_INTERP_HOLD)
		return bl;
	bl.b = lo + 1;
	bl.u = (frame - a->frame) / (b->frame - a->frame);
	if (a->interp == RIG_INTERP_BEZIER)
		bl.u = rig_bezier_ease(a->ease, bl.u);
	return bl;
}

double rig_keys_eval(const struct rig_keys *keys, double frame, double static_value)
{
	if (!keys || keys->count == 0)
		return static_value;
	struct rig_key_blend bl = rig_keys_blend(keys->items, keys->count, frame);
	double a = keys->items[bl.a].value;
	if (bl.a == bl.b)
		return a;
	return a + (keys->items[bl.b].value - a) * bl.u;
}

/* sin and cos of an angle in degrees, exact at multiples of 90°: the angle is
 * reduced exactly to r in [−45, 45] plus a quarter turn count q, and
 * (sin, cos)(90q + r) is read off (sin r, cos r) by quadrant. */
static void sincos_deg(double *out_sin, double *out_cos, double deg)
{
	if (!isfinite(deg)) {
		*out_sin = *out_cos = NAN;
		return;
	}
	double r = remainder(deg, 90.0);
	long q = lrint(fmod(deg - r, 360.0) / 90.0);
	q = ((q % 4) + 4) % 4;
	double rad = r * (PI / 180.0);
	double s = sin(rad), c = cos(rad);
	switch (q) {
	case 0:
		*out_sin = s, *out_cos = c;
		break;
	case 1:
		*out_sin = c, *out_cos = -s;
		break;
	case 2:
		*out_sin = -s, *out_cos = -c;
		break;
	default:
		*out_sin = -c, *out_cos = s;
		break;
	}
}

/* T(p)·R(θ)·S(s)·T(−v) = [cos·sx, sin·sx, −sin·sy, cos·sy, px − a·vx − c·vy, py − b·vx − d·vy]. */
struct rig_affine rig_transform_matrix(const struct rig_transform *t)
{
	const double *ch = t->ch;
	double s, c;
	sincos_deg(&s, &c, ch[RIG_CH_ROTATION]);
	double a = c * ch[RIG_CH_SCALE_X];
	double b = s * ch[RIG_CH_SCALE_X];
	double cc = -s * ch[RIG_CH_SCALE_Y];
	double d = c * ch[RIG_CH_SCALE_Y];
	double vx = ch[RIG_CH_PIVOT_X], vy = ch[RIG_CH_PIVOT_Y];
	struct rig_affine m = {{
		a,
		b,
		cc,
		d,
		ch[RIG_CH_POSITION_X] - (a * vx + cc * vy),
		ch[RIG_CH_POSITION_Y] - (b * vx + d * vy),
	}};
	/* x + 0 turns −0 into +0 and changes nothing else: the default transform is
	 * the identity bit for bit, and no "-0" leaks into stored or printed matrices. */
	for (int i = 0; i < 6; i++)
		m.m[i] += 0.0;
	return m;
}
