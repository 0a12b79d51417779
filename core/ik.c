/* The IK solvers of ik.h: aim, two-bone law of cosines, FABRIK, and the delta
 * write-back. Pure math on points; the layer plumbing lives in rig.c. */
#include "core/ik.h"

#include <assert.h>
#include <math.h>

static struct rig_ik_vec vec(double x, double y)
{
	return (struct rig_ik_vec){x, y};
}

static struct rig_ik_vec sub(struct rig_ik_vec a, struct rig_ik_vec b)
{
	return vec(a.x - b.x, a.y - b.y);
}

static struct rig_ik_vec along(struct rig_ik_vec from, struct rig_ik_vec dir, double len)
{
	return vec(from.x + dir.x * len, from.y + dir.y * len);
}

static double norm(struct rig_ik_vec v)
{
	return hypot(v.x, v.y);
}

/* The unit vector of v; +x when v is (nearly) zero, so a coincident pair of
 * points still gets a direction, the same one every time. */
static struct rig_ik_vec unit(struct rig_ik_vec v)
{
	double n = norm(v);
	if (!(n > 1e-12))
		return vec(1, 0);
	return vec(v.x / n, v.y / n);
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

double rig_ik_soft_distance(double d, double length, double softness)
{
	if (!(softness > 0) || !(d > length - softness))
		return d;
	double p = 1 - fmin(1, (d - length + softness) / (2 * softness));
	return length - softness * p * p;
}

/* Every bone straight along u from p[0], each length times scale. */
static void extend(struct rig_ik_solution *out, const double *len, size_t n, struct rig_ik_vec u,
		   double scale)
{
	for (size_t i = 0; i < n; i++)
		out->chain.p[i + 1] = along(out->chain.p[i], u, len[i] * scale);
	out->scale = scale;
}

static void solve_aim(struct rig_ik_solution *out, const double *len, struct rig_ik_vec target,
		      const struct rig_ik_options *opt)
{
	struct rig_ik_vec to = sub(target, out->chain.p[0]);
	double d = norm(to);
	if (!(d > RIG_IK_EPSILON)) /* the target sits on the pivot: no direction to aim */
		return;
	double scale = 1;
	if (len[0] > RIG_IK_EPSILON &&
	    ((opt->stretch && d > len[0]) || (opt->compress && d < len[0])))
		scale = d / len[0];
	out->clamped = fabs(d - len[0] * scale) > RIG_IK_EPSILON;
	extend(out, len, 1, unit(to), scale);
}

/* Which way the elbow bends: the pole's side of root→target when there is a
 * pole off that line, else opt->bend. +1 puts the elbow clockwise of
 * root→target, so the second bone turns counter-clockwise. */
static int bend_sign(const struct rig_ik_vec *p0, struct rig_ik_vec target,
		     const struct rig_ik_options *opt)
{
	if (opt->has_pole) {
		struct rig_ik_vec t = sub(target, *p0), q = sub(opt->pole, *p0);
		double cross = t.x * q.y - t.y * q.x;
		if (cross > 0)
			return -1;
		if (cross < 0)
			return 1;
	}
	return opt->bend < 0 ? -1 : 1;
}

static void solve_two(struct rig_ik_solution *out, const double *len, struct rig_ik_vec target,
		      const struct rig_ik_options *opt)
{
	struct rig_ik_vec p0 = out->chain.p[0];
	struct rig_ik_vec to = sub(target, p0);
	double l1 = len[0], l2 = len[1], total = l1 + l2;
	double d = rig_ik_soft_distance(norm(to), total, opt->softness);
	struct rig_ik_vec u = unit(to);
	if (opt->stretch && d > total && total > RIG_IK_EPSILON) {
		extend(out, len, 2, u, d / total);
		return;
	}
	double lo = fabs(l1 - l2) + RIG_IK_EPSILON, hi = total - RIG_IK_EPSILON;
	double dc = lo <= hi ? clamp(d, lo, hi) : 0.5 * (lo + hi);
	out->clamped = dc != d;
	if (!(l1 > RIG_IK_EPSILON) || !(l2 > RIG_IK_EPSILON)) { /* no triangle: aim straight */
		extend(out, len, 2, u, 1);
		return;
	}
	/* Law of cosines: alpha at the root between root→target and bone 1, beta
	 * at the elbow between the two bones. */
	double alpha = acos(clamp((l1 * l1 + dc * dc - l2 * l2) / (2 * l1 * dc), -1, 1));
	double beta = acos(clamp((l1 * l1 + l2 * l2 - dc * dc) / (2 * l1 * l2), -1, 1));
	int b = bend_sign(&p0, target, opt);
	double theta1 = atan2(u.y, u.x) - b * alpha;
	double theta2 = theta1 + b * (M_PI - beta);
	out->chain.p[1] = along(p0, vec(cos(theta1), sin(theta1)), l1);
	out->chain.p[2] = along(out->chain.p[1], vec(cos(theta2), sin(theta2)), l2);
}

static void solve_fabrik(struct rig_ik_solution *out, const double *len, size_t n,
			 struct rig_ik_vec target, const struct rig_ik_options *opt)
{
	struct rig_ik_vec *p = out->chain.p;
	struct rig_ik_vec base = p[0];
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += len[i];
	struct rig_ik_vec to = sub(target, base);
	double d0 = norm(to);
	double d = rig_ik_soft_distance(d0, total, opt->softness);
	struct rig_ik_vec u = unit(to);
	struct rig_ik_vec goal = d == d0 ? target : along(base, u, d);
	if (d > total) {
		bool grow = opt->stretch && total > RIG_IK_EPSILON;
		extend(out, len, n, u, grow ? d / total : 1);
		out->clamped = !grow;
		return;
	}
	for (int it = 0; it < RIG_IK_FABRIK_ITERATIONS; it++) {
		if (norm(sub(p[n], goal)) <= RIG_IK_FABRIK_TOLERANCE)
			break;
		p[n] = goal; /* backward: from the goal up to the root */
		for (size_t k = n; k-- > 0;)
			p[k] = along(p[k + 1], unit(sub(p[k], p[k + 1])), len[k]);
		p[0] = base; /* forward: from the pinned root down to the effector */
		for (size_t k = 0; k < n; k++)
			p[k + 1] = along(p[k], unit(sub(p[k + 1], p[k])), len[k]);
	}
	out->clamped = norm(sub(p[n], goal)) > RIG_IK_FABRIK_TOLERANCE;
}

/* The signed angle from a to b (unit vectors), in (−π, π]: anticlockwise
 * positive. */
static double angle_between(struct rig_ik_vec a, struct rig_ik_vec b)
{
	return atan2(a.x * b.y - a.y * b.x, a.x * b.x + a.y * b.y);
}

static struct rig_ik_vec rotate_by(struct rig_ik_vec v, double a)
{
	double c = cos(a), s = sin(a);
	return vec(c * v.x - s * v.y, s * v.x + c * v.y);
}

/* dir turned towards ref until it lies within [−cw, acw] of it (radians). */
static struct rig_ik_vec clamp_dir(struct rig_ik_vec ref, struct rig_ik_vec dir, double cw,
				   double acw)
{
	double a = angle_between(ref, dir);
	if (a < -cw)
		return rotate_by(ref, -cw);
	if (a > acw)
		return rotate_by(ref, acw);
	return dir;
}

/* The forward pass of limited FABRIK: from the pinned root out, each bone at
 * its length, turned into its limits from its parent bone (bone 0 from +x). */
static void forward_limited(struct rig_ik_vec *p, const double *len, size_t n,
			    const double (*lim)[2])
{
	for (size_t k = 0; k < n; k++) {
		struct rig_ik_vec ref = k ? unit(sub(p[k], p[k - 1])) : vec(1, 0);
		struct rig_ik_vec dir = unit(sub(p[k + 1], p[k]));
		p[k + 1] = along(p[k], clamp_dir(ref, dir, lim[k][0], lim[k][1]), len[k]);
	}
}

/* FABRIK with every joint limited: the backward pass keeps each bone within
 * its child bone's limit (seen from the child), the forward pass each bone
 * within its own (from its parent bone; bone 0 from +x). */
static void solve_limited(struct rig_ik_solution *out, const double *len, size_t n,
			  struct rig_ik_vec target, const struct rig_ik_options *opt)
{
	struct rig_ik_vec *p = out->chain.p;
	const double(*lim)[2] = opt->limits;
	struct rig_ik_vec base = p[0];
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += len[i];
	struct rig_ik_vec to = sub(target, base);
	double d0 = norm(to), d = rig_ik_soft_distance(d0, total, opt->softness);
	struct rig_ik_vec goal = d == d0 ? target : along(base, unit(to), d);
	bool passed = false;
	for (int it = 0; it < RIG_IK_FABRIK_ITERATIONS; it++) {
		if (norm(sub(p[n], goal)) <= RIG_IK_FABRIK_TOLERANCE)
			break;
		passed = true;
		p[n] = goal;
		for (size_t k = n; k-- > 0;) {
			struct rig_ik_vec back = unit(sub(p[k], p[k + 1]));
			if (k + 1 < n) { /* bone k seen from bone k + 1, reversed */
				struct rig_ik_vec child = unit(sub(p[k + 2], p[k + 1]));
				struct rig_ik_vec dir = vec(-back.x, -back.y);
				dir = clamp_dir(child, dir, lim[k + 1][1], lim[k + 1][0]);
				back = vec(-dir.x, -dir.y);
			}
			p[k] = along(p[k + 1], back, len[k]);
		}
		p[0] = base;
		forward_limited(p, len, n, lim);
	}
	if (!passed) /* the pose it started from may break them */
		forward_limited(p, len, n, lim);
	out->clamped = norm(sub(p[n], goal)) > RIG_IK_FABRIK_TOLERANCE;
}

int rig_ik_solve(struct rig_ik_solution *out, const struct rig_ik_chain *chain,
		 struct rig_ik_vec target, const struct rig_ik_options *opt)
{
	static const struct rig_ik_options defaults = {.bend = 1};
	if (!opt)
		opt = &defaults;
	size_t n = chain->n_bones;
	assert(n >= 1 && n <= RIG_IK_MAX_BONES);
	double len[RIG_IK_MAX_BONES];
	for (size_t i = 0; i < n; i++)
		len[i] = norm(sub(chain->p[i + 1], chain->p[i]));
	*out = (struct rig_ik_solution){.chain = *chain, .scale = 1};
	if (opt->limits && n == 1) {
		solve_aim(out, len, target, opt);
		struct rig_ik_vec *p = out->chain.p;
		struct rig_ik_vec dir = clamp_dir(vec(1, 0), unit(sub(p[1], p[0])),
						  opt->limits[0][0], opt->limits[0][1]);
		p[1] = along(p[0], dir, norm(sub(p[1], p[0])));
	} else if (opt->limits) {
		solve_limited(out, len, n, target, opt);
	} else if (n == 1)
		solve_aim(out, len, target, opt);
	else if (n == 2)
		solve_two(out, len, target, opt);
	else
		solve_fabrik(out, len, n, target, opt);
	return 0;
}

int rig_ik_frame_of(struct rig_ik_frame *out, const double p[4])
{
	double det = p[0] * p[3] - p[1] * p[2];
	double s = sqrt(fabs(det));
	if (!(s > 0) || !isfinite(s) || !isfinite(p[0] + p[1] + p[2] + p[3]))
		return -1;
	/* inverse(P / s) = s · adj(P) / det = sign(det) · adj(P) / s */
	double k = (det < 0 ? -1 : 1) / s;
	*out = (struct rig_ik_frame){
		.to_world = {p[0] / s, p[1] / s, p[2] / s, p[3] / s},
		.from_world = {p[3] * k, -p[1] * k, -p[2] * k, p[0] * k},
		.mirrors = det < 0,
	};
	return 0;
}

static struct rig_ik_vec apply2(const double m[4], struct rig_ik_vec v)
{
	return vec(m[0] * v.x + m[2] * v.y, m[1] * v.x + m[3] * v.y);
}

struct rig_ik_vec rig_ik_frame_in(const struct rig_ik_frame *f, struct rig_ik_vec v)
{
	return apply2(f->from_world, v);
}

struct rig_ik_vec rig_ik_frame_out(const struct rig_ik_frame *f, struct rig_ik_vec v)
{
	return apply2(f->to_world, v);
}

/* The angle in radians from a to b, wrapped into (−π, π]. */
static double wrapped(double a, double b)
{
	double t = b - a;
	if (t > M_PI)
		t -= 2 * M_PI;
	else if (t <= -M_PI)
		t += 2 * M_PI;
	return t;
}

struct rig_ik_vec rig_ik_blend_dir(const struct rig_ik_chain *fk, const struct rig_ik_chain *solved,
				   size_t i, double mix)
{
	return rig_ik_blend(sub(fk->p[i + 1], fk->p[i]), sub(solved->p[i + 1], solved->p[i]), mix);
}

struct rig_ik_vec rig_ik_blend(struct rig_ik_vec a, struct rig_ik_vec b, double mix)
{
	if (!(norm(a) > 1e-12) || !(norm(b) > 1e-12))
		return vec(NAN, NAN);
	if (mix == 1)
		return unit(b);
	double from = atan2(a.y, a.x);
	double angle = from + mix * wrapped(from, atan2(b.y, b.x));
	return vec(cos(angle), sin(angle));
}

double rig_ik_turn_to(const double parent[4], struct rig_ik_vec have, struct rig_ik_vec want)
{
	/* parent⁻¹·want points as sign(det)·adj(parent)·want: no division needed */
	double det = parent[0] * parent[3] - parent[1] * parent[2];
	double sg = det < 0 ? -1 : 1;
	struct rig_ik_vec local = vec(sg * (parent[3] * want.x - parent[2] * want.y),
				      sg * (parent[0] * want.y - parent[1] * want.x));
	if (!(det != 0) || !(norm(have) > 1e-12) || !(norm(local) > 0) || !isfinite(norm(have)) ||
	    !isfinite(norm(local)))
		return NAN;
	return wrapped(atan2(have.y, have.x), atan2(local.y, local.x)) * (180.0 / M_PI);
}
