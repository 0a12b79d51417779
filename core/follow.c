/* The follow chain's step (follow.h). */
#include "core/follow.h"

#include <math.h>

/* |(x, y)| by sqrt, which IEEE 754 rounds correctly, so the same bits on every
 * CPU; glibc's hypot guards against overflow beyond 1e154, which no rig
 * coordinate reaches, and made the whole step 1.6× slower (docs/decisions.md). */
static double norm(double x, double y)
{
	return sqrt(x * x + y * y);
}

void rig_follow_set_limit(struct rig_follow_params *p, double max_angle_deg)
{
	double rad = max_angle_deg * (M_PI / 180);
	p->has_max_angle = true;
	p->cos_max = cos(rad);
	p->sin_max = sin(rad);
}

static bool has_length(double len)
{
	return len > 0 && isfinite(len);
}

static struct rig_ik_vec diff(struct rig_ik_vec a, struct rig_ik_vec b)
{
	return (struct rig_ik_vec){a.x - b.x, a.y - b.y};
}

/* The direction link i leaves out[i − 1] in, as an offset of length *len
 * (> 0): its current offset, else its previous one, else its predecessor's
 * new heading, else +x. */
static struct rig_ik_vec link_offset(const struct rig_ik_vec *out, const struct rig_ik_vec *prev,
				     size_t i, double *len)
{
	struct rig_ik_vec tries[3] = {diff(prev[i], out[i - 1]), diff(prev[i], prev[i - 1])};
	size_t n_tries = 2;
	if (i >= 2)
		tries[n_tries++] = diff(out[i - 1], out[i - 2]);
	for (size_t k = 0; k < n_tries; k++) {
		*len = norm(tries[k].x, tries[k].y);
		if (has_length(*len))
			return tries[k];
	}
	*len = 1;
	return (struct rig_ik_vec){1, 0};
}

/* Clamps the unit heading u to within the limit of the unit heading a. */
static struct rig_ik_vec clamp_heading(struct rig_ik_vec u, struct rig_ik_vec a,
				       const struct rig_follow_params *p)
{
	double cos_turn = a.x * u.x + a.y * u.y;
	if (!(cos_turn < p->cos_max))
		return u;
	double s = a.x * u.y - a.y * u.x >= 0 ? p->sin_max : -p->sin_max;
	return (struct rig_ik_vec){a.x * p->cos_max - a.y * s, a.x * s + a.y * p->cos_max};
}

void rig_follow_step(struct rig_ik_vec *out, const struct rig_ik_vec *prev,
		     struct rig_ik_vec target, const struct rig_follow_params *p)
{
	if (p->smoothing > 0) {
		double k = 1 - p->smoothing;
		out[0] = (struct rig_ik_vec){prev[0].x + (target.x - prev[0].x) * k,
					     prev[0].y + (target.y - prev[0].y) * k};
	} else {
		out[0] = target;
	}
	for (size_t i = 1; i < p->n; i++) {
		double len, l = p->lengths[i - 1];
		struct rig_ik_vec d = link_offset(out, prev, i, &len);
		struct rig_ik_vec a = {0, 0};
		double alen = 0;
		if (p->has_max_angle && i >= 2) {
			a = diff(out[i - 1], out[i - 2]);
			alen = norm(a.x, a.y);
		}
		if (!has_length(alen)) { /* no limit, or no heading to limit against */
			double f = l / len;
			out[i] =
				(struct rig_ik_vec){out[i - 1].x + d.x * f, out[i - 1].y + d.y * f};
			continue;
		}
		struct rig_ik_vec u = clamp_heading((struct rig_ik_vec){d.x / len, d.y / len},
						    (struct rig_ik_vec){a.x / alen, a.y / alen}, p);
		out[i] = (struct rig_ik_vec){out[i - 1].x + u.x * l, out[i - 1].y + u.y * l};
	}
}

void rig_follow_lerp(struct rig_ik_vec *out, const struct rig_ik_vec *a, const struct rig_ik_vec *b,
		     size_t n, double t)
{
	const struct rig_ik_vec *end = t == 0 ? a : t == 1 ? b : NULL;
	for (size_t i = 0; i < n; i++)
		out[i] = end ? end[i]
			     : (struct rig_ik_vec){a[i].x + (b[i].x - a[i].x) * t,
						   a[i].y + (b[i].y - a[i].y) * t};
}
