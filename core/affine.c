/* 2D affine matrices: compose, apply, invert, and the one "safely invertible"
 * rule of SPEC §1. Pure functions on values; no allocation, no state.
 *
 * A matrix [a, b, c, d, e, f] is the 3×3 matrix
 *   | a c e |
 *   | b d f |
 *   | 0 0 1 |
 * so l·r is the ordinary matrix product and applies r first.
 */
#include "core/affine.h"

#include <math.h>

/* SPEC §1: |det| ≥ RELATIVE_DET · max(1, (a² + b² + c² + d²) / 2). */
#define RELATIVE_DET 1e-12

struct rig_affine rig_affine_identity(void)
{
	return (struct rig_affine){{1, 0, 0, 1, 0, 0}};
}

struct rig_affine rig_affine_mul(struct rig_affine l, struct rig_affine r)
{
	const double *x = l.m, *y = r.m;
	return (struct rig_affine){{
		x[0] * y[0] + x[2] * y[1],
		x[1] * y[0] + x[3] * y[1],
		x[0] * y[2] + x[2] * y[3],
		x[1] * y[2] + x[3] * y[3],
		x[0] * y[4] + x[2] * y[5] + x[4],
		x[1] * y[4] + x[3] * y[5] + x[5],
	}};
}

void rig_affine_apply(double *out_x, double *out_y, const struct rig_affine *m, double x, double y)
{
	*out_x = m->m[0] * x + m->m[2] * y + m->m[4];
	*out_y = m->m[1] * x + m->m[3] * y + m->m[5];
}

bool rig_affine_is_finite(const struct rig_affine *m)
{
	for (int i = 0; i < 6; i++)
		if (!isfinite(m->m[i]))
			return false;
	return true;
}

/* Computes the inverse into *out when m is safely invertible; the one place the
 * rule lives. Besides SPEC §1 it requires the determinant and the norm term to be
 * finite: with entries near 1e154 they overflow, the threshold becomes infinite
 * and the "inverse" would silently be zeros. */
static bool safe_inverse(struct rig_affine *out, const struct rig_affine *m)
{
	if (!rig_affine_is_finite(m))
		return false;
	double a = m->m[0], b = m->m[1], c = m->m[2], d = m->m[3], e = m->m[4], f = m->m[5];
	double det = a * d - b * c;
	double norm = (a * a + b * b + c * c + d * d) / 2;
	if (!isfinite(det) || !isfinite(norm))
		return false;
	if (!(fabs(det) >= RELATIVE_DET * fmax(1.0, norm)))
		return false;
	struct rig_affine inv = {{
		d / det,
		-b / det,
		-c / det,
		a / det,
		(c * f - d * e) / det,
		(b * e - a * f) / det,
	}};
	if (!rig_affine_is_finite(&inv))
		return false;
	*out = inv;
	return true;
}

bool rig_affine_is_safely_invertible(const struct rig_affine *m)
{
	struct rig_affine inv;
	return safe_inverse(&inv, m);
}

int rig_affine_invert(struct rig_affine *out, const struct rig_affine *m)
{
	return safe_inverse(out, m) ? 0 : -1;
}
