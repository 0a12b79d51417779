/* Dual-complex skinning (core/skin.h gives the formulas, core/skin_kernel.h
 * the layout): each joint's skin matrix split into a rotor, a dual part and a
 * residual once per frame, and the vertex loop that blends them.
 *
 * One portable scalar loop serves every path of core/isa.h, so every path
 * gives the same bits. Only IEEE +, −, ×, ÷ and sqrt appear (no libm
 * trigonometry, whose last bits differ between libraries), each in the order
 * written, with -ffp-contract=off (the top CMakeLists.txt).
 *
 * What does not live here: linear blend skinning (skin_kernel.c and its
 * paths), the skin matrices themselves (skin.c), the deformed-mesh check.
 */
#include <math.h>

#include "core/skin_kernel.h"

void rig_skin__dqs_joint(struct rig_skin_blend *out, const double m[6])
{
	double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5];
	/* z = (a + d) + i(b − c) = |z|·e^{iθ}, scaled so that |z| cannot overflow. */
	double zx = a + d, zy = b - c;
	double big = fmax(fabs(zx), fabs(zy));
	double rx = 1, ry = 0;
	if (big > 0) {
		zx /= big;
		zy /= big;
		double h = sqrt(zx * zx + zy * zy);
		/* e^{iθ/2} ∝ |z| + z when Re z ≥ 0, and otherwise
		 * ∝ sign(Im z)·(Im z, |z| − Re z) (sign(0) = +1): neither sum cancels. */
		double px, py;
		if (zx >= 0) {
			px = h + zx;
			py = zy;
		} else {
			px = fabs(zy);
			py = zy < 0 ? -(h - zx) : h - zx;
		}
		double n = sqrt(px * px + py * py);
		rx = px / n;
		ry = py / n;
	}
	/* R = r² (unit to rounding); S = Rᵀ·A, column-major. */
	double cr = rx * rx - ry * ry, sr = 2 * (rx * ry);
	out->m[0] = rx;
	out->m[1] = ry;
	/* d = ½·t·r̄ = ½·(e + i·f)·(rx − i·ry). */
	out->m[2] = 0.5 * (e * rx + f * ry);
	out->m[3] = 0.5 * (f * rx - e * ry);
	out->m[4] = cr * a + sr * b;
	out->m[5] = cr * b - sr * a;
	out->m[6] = cr * c + sr * d;
	out->m[7] = cr * d - sr * c;
}

/* The lbs formula of core/skin_kernel.h for one vertex, scalar, from the D
 * entries of the blend array: the fallback of a too-short rotor. */
static void vertex_lbs(double *restrict out, const double *restrict src, const uint8_t *restrict j,
		       const double *restrict w, const struct rig_skin_blend *restrict mats,
		       size_t n_per)
{
	const double *m = mats[RIG_SKIN_DQS_STRIDE * j[0]].m;
	double c[6];
	for (int i = 0; i < 6; i++)
		c[i] = w[0] * m[i];
	for (size_t k = 1; k < n_per; k++) {
		m = mats[RIG_SKIN_DQS_STRIDE * j[k]].m;
		for (int i = 0; i < 6; i++)
			c[i] += w[k] * m[i];
	}
	double x = src[0], y = src[1];
	out[0] = x + ((c[0] * x + c[2] * y) + c[4]);
	out[1] = y + ((c[1] * x + c[3] * y) + c[5]);
}

/* One vertex: the blends of core/skin.h, in influence order. n_per is a
 * constant at most call sites (rig_skin__kernel_drive). */
static inline __attribute__((always_inline)) void
vertex_dqs(double *restrict out, const double *restrict src, const uint8_t *restrict j,
	   const double *restrict w, const struct rig_skin_blend *restrict mats, size_t n_per)
{
	const double *q0 = mats[RIG_SKIN_DQS_STRIDE * j[0] + 1].m;
	double w0 = w[0];
	double rx = w0 * q0[0], ry = w0 * q0[1], dx = w0 * q0[2], dy = w0 * q0[3];
	double s0 = w0 * q0[4], s1 = w0 * q0[5], s2 = w0 * q0[6], s3 = w0 * q0[7];
	for (size_t k = 1; k < n_per; k++) {
		const double *q = mats[RIG_SKIN_DQS_STRIDE * j[k] + 1].m;
		/* Into the first influence's hemisphere: q and −q are one rigid motion. */
		double wk = w[k], ws = q[0] * q0[0] + q[1] * q0[1] >= 0 ? wk : -wk;
		rx += ws * q[0];
		ry += ws * q[1];
		dx += ws * q[2];
		dy += ws * q[3];
		s0 += wk * q[4];
		s1 += wk * q[5];
		s2 += wk * q[6];
		s3 += wk * q[7];
	}
	double n2 = rx * rx + ry * ry;
	if (!(n2 >= RIG_SKIN_DQS_MIN_ROTOR2)) {
		vertex_lbs(out, src, j, w, mats, n_per);
		return;
	}
	double x = src[0], y = src[1];
	double ux = s0 * x + s2 * y, uy = s1 * x + s3 * y;
	/* r_b² and 2·d_b·r_b, both divided by |r_b|² once at the end. */
	double cr = rx * rx - ry * ry, sr = 2 * (rx * ry);
	double tx = 2 * (dx * rx - dy * ry), ty = 2 * (dx * ry + dy * rx);
	out[0] = ((cr * ux - sr * uy) + tx) / n2;
	out[1] = ((sr * ux + cr * uy) + ty) / n2;
}

void rig_skin__kernel_dqs(double *out_xy, const struct rig_skin_kernel *k,
			  const struct rig_skin_blend *mats, struct rig_skin_cursor *at,
			  size_t v_end)
{
	rig_skin__kernel_drive(out_xy, k, mats, at, v_end, vertex_dqs, NULL);
}
