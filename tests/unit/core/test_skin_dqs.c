/* Unit tests of dual-complex skinning (core/skin_dqs.c, skin.method "dqs"):
 * the two bones at ±90° that lbs collapses, a single influence and
 * pure translation against lbs, the residual of non-rigid matrices against
 * an independent reference (complex arithmetic and libm trigonometry, not
 * the kernel's half-angle), the hemisphere flip, mirrored joints, the
 * too-short rotor's lbs fallback, every path's bits, and the method's names
 * and check. lbs itself is test_skin.c's, whose pinned hashes stay as they
 * were. */
#include <complex.h>
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

#include "core/mesh.h"
#include "core/rig_limits.h"
#include "core/skin.h"
#include "core/skin_kernel.h"
#include "support.h"

static struct rig_skin *must_new(const struct rig_skin_def *def)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_skin *skin = rig_skin_new(def, errs);
	cr_assert_not_null(skin, "rig_skin_new failed: %s",
			   errs->count ? errs->items[0].detail : "(no error)");
	rig_errs_free(errs);
	return skin;
}

/* Rotation by t radians about (px, py). */
static struct rig_affine rotate_about(double t, double px, double py)
{
	return rig_affine_mul(translate(px, py),
			      rig_affine_mul(rotate_rad(t), translate(-px, -py)));
}

/* Deforms d (its method set to method) into a new array. */
static double *deform_as(struct rig_skin_def *d, enum rig_skin_method method,
			 const struct rig_affine *poses)
{
	d->method = method;
	struct rig_skin *skin = must_new(d);
	double *out = malloc(2 * d->n_verts * sizeof *out);
	cr_assert_not_null(out);
	rig_skin_deform(out, skin, poses);
	rig_skin_free(skin);
	return out;
}

/* A w × h grid centred on the origin, every vertex weighted to joints 0 and 1
 * by (w0, 1 − w0) or, with w0 < 0, by a weight that varies across the grid. */
static struct rig_skin_def two_joint_grid(size_t w, size_t h, double w0)
{
	struct rig_skin_def d = grid_def(w, h, 1, 2, 2);
	for (size_t i = 0; i < d.n_verts; i++) {
		d.source[2 * i] -= (double)(w - 1) / 2;
		d.source[2 * i + 1] -= (double)(h - 1) / 2;
	}
	uint32_t both[2] = {0, 1};
	for (size_t v = 0; v < d.n_verts; v++) {
		double a = w0 >= 0 ? w0 : 0.1 + 0.8 * (double)(v % w) / (double)(w - 1);
		double ws[2] = {a, 1 - a};
		set_weights(&d, v, 2, both, ws);
	}
	return d;
}

/* ------------------------------------------------------------------------ */
/* The case                                                          */
/* ------------------------------------------------------------------------ */

Test(skin_dqs, two_bones_at_plus_and_minus_90_keep_the_distance_where_lbs_collapses)
{
	/* Both joints pivot at (2, 1) and turn by +90° and −90°, every vertex
	 * weighted ½, ½: lbs averages the two matrices into the zero linear map
	 * and puts every vertex on the pivot; dqs blends the rotors e^{±iπ/4}
	 * into 1 and keeps every vertex where it was, at its distance. */
	struct rig_skin_def d = two_joint_grid(5, 4, 0.5);
	struct rig_affine poses[2] = {rotate_about(M_PI / 2, 2, 1), rotate_about(-M_PI / 2, 2, 1)};
	double *lbs = deform_as(&d, RIG_SKIN_LBS, poses);
	double *dqs = deform_as(&d, RIG_SKIN_DQS, poses);
	for (size_t v = 0; v < d.n_verts; v++) {
		double x = d.source[2 * v], y = d.source[2 * v + 1];
		double rest = hypot(x - 2, y - 1);
		cr_expect(rest > 0.1, "vertex %zu is not on the pivot", v);
		cr_expect_leq(hypot(lbs[2 * v] - 2, lbs[2 * v + 1] - 1), 1e-12,
			      "lbs collapses vertex %zu onto the pivot", v);
		cr_expect_leq(fabs(hypot(dqs[2 * v] - 2, dqs[2 * v + 1] - 1) - rest), 1e-12,
			      "dqs keeps vertex %zu at distance %.17g", v, rest);
		cr_expect_leq(hypot(dqs[2 * v] - x, dqs[2 * v + 1] - y), 1e-12);
	}
	/* Evaluated: lbs's collapse is refused, dqs passes the per-frame checks. */
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	double *out = malloc(2 * d.n_verts * sizeof *out);
	d.method = RIG_SKIN_LBS;
	struct rig_skin *skin = must_new(&d);
	cr_expect_eq(rig_skin_evaluate(out, skin, poses, errs), -1);
	cr_expect_geq(find_err(errs, RIG_MESH_COLLAPSED), 0);
	rig_skin_free(skin);
	rig_errs_init(errs);
	d.method = RIG_SKIN_DQS;
	skin = must_new(&d);
	cr_expect_eq(rig_skin_evaluate(out, skin, poses, errs), 0, "%s",
		     errs->count ? errs->items[0].detail : "");
	cr_expect_eq(memcmp(out, dqs, 2 * d.n_verts * sizeof *out), 0, "evaluate = deform");
	rig_skin_free(skin);
	rig_errs_free(errs);
	free(out);
	free(lbs);
	free(dqs);
	rig_skin_def_release(&d);
}

Test(skin_dqs, rotations_about_one_pivot_keep_every_distance_for_any_weights)
{
	struct rng rng = {0xd05};
	for (int trial = 0; trial < 50; trial++) {
		struct rig_skin_def d = two_joint_grid(6, 5, -1);
		double px = rng_range(&rng, -3, 3), py = rng_range(&rng, -3, 3);
		struct rig_affine poses[2] = {rotate_about(rng_range(&rng, -M_PI, M_PI), px, py),
					      rotate_about(rng_range(&rng, -M_PI, M_PI), px, py)};
		double *dqs = deform_as(&d, RIG_SKIN_DQS, poses);
		for (size_t v = 0; v < d.n_verts; v++) {
			double rest = hypot(d.source[2 * v] - px, d.source[2 * v + 1] - py);
			cr_assert_leq(fabs(hypot(dqs[2 * v] - px, dqs[2 * v + 1] - py) - rest),
				      1e-12 * (1 + rest), "trial %d vertex %zu", trial, v);
		}
		free(dqs);
		rig_skin_def_release(&d);
	}
}

/* ------------------------------------------------------------------------ */
/* Against lbs where the two agree                                            */
/* ------------------------------------------------------------------------ */

/* A random rig of n_per influences a vertex (0: 1–8) on up to 24 joints. */
static struct rig_skin_def random_rig(struct rng *rng, size_t n_joints, size_t n_per)
{
	size_t w = 2 + rng_below(rng, 10), h = 2 + rng_below(rng, 10);
	struct rig_skin_def d = grid_def(w, h, rng_range(rng, 0.5, 20), n_joints, 8);
	for (size_t j = 0; j < n_joints; j++) {
		double s = rng_range(rng, 0.5, 2);
		d.joints[j].bind = rig_affine_mul(
			translate(rng_range(rng, -100, 100), rng_range(rng, -100, 100)),
			rig_affine_mul(rotate_rad(rng_range(rng, -M_PI, M_PI)),
				       affine(s, 0, 0, s * rng_range(rng, 0.5, 2), 0, 0)));
	}
	for (size_t v = 0; v < d.n_verts; v++) {
		size_t n = n_per ? n_per : 1 + rng_below(rng, 8);
		n = n > n_joints ? n_joints : n;
		uint32_t js[8];
		double ws[8], total = 0;
		for (size_t k = 0; k < n; k++) {
			bool is_fresh;
			do {
				js[k] = (uint32_t)rng_below(rng, n_joints);
				is_fresh = true;
				for (size_t i = 0; i < k; i++)
					is_fresh = is_fresh && js[i] != js[k];
			} while (!is_fresh);
			ws[k] = rng_range(rng, 0.05, 1);
			total += ws[k];
		}
		for (size_t k = 0; k < n; k++)
			ws[k] /= total;
		set_weights(&d, v, n, js, ws);
	}
	return d;
}

/* Poses whose skin matrices pose · bind⁻¹ are skin[j]. */
static void poses_for(struct rig_affine *poses, const struct rig_skin_def *d,
		      const struct rig_affine *skin)
{
	for (size_t j = 0; j < d->n_joints; j++)
		poses[j] = rig_affine_mul(skin[j], d->joints[j].bind);
}

/* Expects a and b (2 · n doubles) within tol · (1 + |coordinate|). */
static void expect_close(const double *a, const double *b, size_t n, double tol, int trial)
{
	for (size_t i = 0; i < 2 * n; i++)
		cr_assert_leq(fabs(a[i] - b[i]), tol * (1 + fabs(b[i])),
			      "trial %d coordinate %zu: %.17g vs %.17g", trial, i, a[i], b[i]);
}

Test(skin_dqs, a_single_influence_is_lbs_within_1e_12_rigid_or_not)
{
	struct rng rng = {0x51};
	for (int trial = 0; trial < 100; trial++) {
		size_t n_joints = 1 + rng_below(&rng, 24);
		struct rig_skin_def d = random_rig(&rng, n_joints, 1);
		struct rig_affine skin[24], poses[24];
		for (size_t j = 0; j < n_joints; j++) {
			struct rig_affine m = rig_affine_mul(
				translate(rng_range(&rng, -50, 50), rng_range(&rng, -50, 50)),
				rotate_rad(rng_range(&rng, -M_PI, M_PI)));
			/* half the trials rigid, the others with a shear and scale */
			if (trial % 2)
				m = rig_affine_mul(m, affine(rng_range(&rng, 0.5, 2),
							     rng_range(&rng, -0.3, 0.3),
							     rng_range(&rng, -0.3, 0.3),
							     rng_range(&rng, 0.5, 2), 0, 0));
			skin[j] = m;
		}
		poses_for(poses, &d, skin);
		double *lbs = deform_as(&d, RIG_SKIN_LBS, poses);
		double *dqs = deform_as(&d, RIG_SKIN_DQS, poses);
		expect_close(dqs, lbs, d.n_verts, 1e-12, trial);
		free(lbs);
		free(dqs);
		rig_skin_def_release(&d);
	}
}

Test(skin_dqs, pure_translations_blend_linearly)
{
	struct rng rng = {0x7a};
	for (int trial = 0; trial < 100; trial++) {
		size_t n_joints = 1 + rng_below(&rng, 24);
		struct rig_skin_def d = random_rig(&rng, n_joints, rng_below(&rng, 9));
		struct rig_affine skin[24], poses[24];
		for (size_t j = 0; j < n_joints; j++)
			skin[j] = translate(rng_range(&rng, -50, 50), rng_range(&rng, -50, 50));
		poses_for(poses, &d, skin);
		double *dqs = deform_as(&d, RIG_SKIN_DQS, poses);
		const struct rig_skin_def *n = &d;
		for (size_t v = 0; v < d.n_verts; v++) {
			double tx = 0, ty = 0, sum = 0;
			for (uint32_t k = n->weight_offsets[v]; k < n->weight_offsets[v + 1]; k++) {
				sum += n->influences[k].weight;
				tx += n->influences[k].weight * skin[n->influences[k].joint].m[4];
				ty += n->influences[k].weight * skin[n->influences[k].joint].m[5];
			}
			double want[2] = {d.source[2 * v] * sum + tx,
					  d.source[2 * v + 1] * sum + ty};
			expect_close(&dqs[2 * v], want, 1, 1e-12, trial);
		}
		free(dqs);
		rig_skin_def_release(&d);
	}
}

/* ------------------------------------------------------------------------ */
/* An independent reference                                                  */
/* ------------------------------------------------------------------------ */

/* core/skin.h's dqs written another way: θ by atan2, R and r by cos, sin and
 * cexp, the blend in C99 complex numbers. */
static void reference_dqs(double *out, const struct rig_skin_def *d, const struct rig_affine *skin)
{
	double complex r[24], dq[24];
	double S[24][4];
	for (size_t j = 0; j < d->n_joints; j++) {
		const double *m = skin[j].m;
		double t = atan2(m[1] - m[2], m[0] + m[3]), c = cos(t), s = sin(t);
		S[j][0] = c * m[0] + s * m[1];
		S[j][1] = -s * m[0] + c * m[1];
		S[j][2] = c * m[2] + s * m[3];
		S[j][3] = -s * m[2] + c * m[3];
		r[j] = cexp(I * t / 2);
		dq[j] = 0.5 * (m[4] + I * m[5]) * conj(r[j]);
	}
	for (size_t v = 0; v < d->n_verts; v++) {
		uint32_t from = d->weight_offsets[v], to = d->weight_offsets[v + 1];
		double complex rb = 0, db = 0, r0 = r[d->influences[from].joint];
		double Sb[4] = {0, 0, 0, 0};
		for (uint32_t k = from; k < to; k++) {
			uint32_t j = d->influences[k].joint;
			double w = d->influences[k].weight;
			double sign = creal(r[j] * conj(r0)) >= 0 ? 1 : -1;
			rb += w * sign * r[j];
			db += w * sign * dq[j];
			for (int i = 0; i < 4; i++)
				Sb[i] += w * S[j][i];
		}
		double x = d->source[2 * v], y = d->source[2 * v + 1];
		double complex u = (Sb[0] * x + Sb[2] * y) + I * (Sb[1] * x + Sb[3] * y);
		double complex rn = rb / cabs(rb), dn = db / cabs(rb);
		double complex p = rn * rn * u + 2 * dn * rn;
		out[2 * v] = creal(p);
		out[2 * v + 1] = cimag(p);
	}
}

Test(skin_dqs, random_non_rigid_rigs_match_an_independent_reference)
{
	struct rng rng = {0x2e5};
	for (int trial = 0; trial < 200; trial++) {
		size_t n_joints = 1 + rng_below(&rng, 24);
		struct rig_skin_def d = random_rig(&rng, n_joints, (size_t)trial % 9);
		struct rig_affine skin[24], poses[24];
		for (size_t j = 0; j < n_joints; j++) {
			/* rotation · symmetric positive residual, plus a translation */
			double s00 = rng_range(&rng, 0.5, 2), s11 = rng_range(&rng, 0.5, 2);
			double s01 = rng_range(&rng, -0.4, 0.4);
			struct rig_affine m = rotate_rad(rng_range(&rng, -M_PI, M_PI));
			if (trial % 4)
				m = rig_affine_mul(m, affine(s00, s01, s01, s11, 0, 0));
			m.m[4] = rng_range(&rng, -50, 50);
			m.m[5] = rng_range(&rng, -50, 50);
			skin[j] = m;
		}
		poses_for(poses, &d, skin);
		double *dqs = deform_as(&d, RIG_SKIN_DQS, poses);
		double *want = malloc(2 * d.n_verts * sizeof *want);
		cr_assert_not_null(want);
		reference_dqs(want, &d, skin);
		expect_close(dqs, want, d.n_verts, 1e-9, trial);
		free(want);
		free(dqs);
		rig_skin_def_release(&d);
	}
}

Test(skin_dqs, a_scaled_joint_scales_before_the_blended_rotation)
{
	/* Joint 0 scales by 2 about the origin, joint 1 turns by 90° about it:
	 * ½, ½ gives S_b = 1.5·I, the rotor of 45°, so v ↦ 1.5 · R(45°) · v. */
	struct rig_skin_def d = two_joint_grid(4, 3, 0.5);
	struct rig_affine poses[2] = {affine(2, 0, 0, 2, 0, 0), rotate_rad(M_PI / 2)};
	double *dqs = deform_as(&d, RIG_SKIN_DQS, poses);
	double c = cos(M_PI / 4), s = sin(M_PI / 4);
	for (size_t v = 0; v < d.n_verts; v++) {
		double x = 1.5 * d.source[2 * v], y = 1.5 * d.source[2 * v + 1];
		double want[2] = {c * x - s * y, s * x + c * y};
		expect_close(&dqs[2 * v], want, 1, 1e-12, 0);
	}
	free(dqs);
	rig_skin_def_release(&d);
}

/* ------------------------------------------------------------------------ */
/* Hemisphere, mirrors, the short rotor                                      */
/* ------------------------------------------------------------------------ */

Test(skin_dqs, q_and_minus_q_give_the_same_bits)
{
	/* The kernel on hand-made blends: negating one joint's dual complex
	 * number, the first influence's or a later one's, changes nothing. */
	struct rng rng = {0x9};
	double src[2 * 16];
	uint8_t joints[3 * 16];
	double weights[3 * 16];
	uint32_t offsets[17], runs[1] = {RIG_SKIN_RUN(16, 3)};
	for (size_t v = 0; v < 16; v++) {
		src[2 * v] = rng_range(&rng, -10, 10);
		src[2 * v + 1] = rng_range(&rng, -10, 10);
		double a = rng_range(&rng, 0.1, 1), b = rng_range(&rng, 0.1, 1),
		       c = rng_range(&rng, 0.1, 1);
		for (int k = 0; k < 3; k++)
			joints[3 * v + k] = (uint8_t)((v + (size_t)k) % 3);
		weights[3 * v] = a / (a + b + c);
		weights[3 * v + 1] = b / (a + b + c);
		weights[3 * v + 2] = c / (a + b + c);
		offsets[v] = (uint32_t)(3 * v);
	}
	offsets[16] = 48;
	struct rig_skin_kernel k = {src, joints, weights, offsets, 0, runs, 16, 48, 1};
	struct rig_skin_blend mats[6];
	for (size_t j = 0; j < 3; j++) {
		struct rig_affine m =
			rig_affine_mul(translate(rng_range(&rng, -5, 5), rng_range(&rng, -5, 5)),
				       rig_affine_mul(rotate_rad(rng_range(&rng, -3, 3)),
						      affine(1.2, 0.1, 0.1, 0.8, 0, 0)));
		memcpy(mats[2 * j].m, m.m, sizeof m.m);
		mats[2 * j].m[0] -= 1;
		mats[2 * j].m[3] -= 1;
		rig_skin__dqs_joint(&mats[2 * j + 1], m.m);
	}
	double want[32], got[32];
	struct rig_skin_cursor at = {0};
	rig_skin__kernel_dqs(want, &k, mats, &at, 16);
	for (size_t j = 0; j < 3; j++) {
		for (int i = 0; i < 4; i++) /* rotor and dual part: the whole of q */
			mats[2 * j + 1].m[i] = -mats[2 * j + 1].m[i];
		at = (struct rig_skin_cursor){0};
		memset(got, 0, sizeof got);
		rig_skin__kernel_dqs(got, &k, mats, &at, 16);
		cr_expect_eq(memcmp(got, want, sizeof got), 0, "joint %zu negated", j);
	}
}

Test(skin_dqs, blends_across_180_degrees_the_short_way)
{
	/* +170° and −170°: the rotors e^{±i·85°} lie in opposite hemispheres, so
	 * the second flips and ½, ½ blends to 180°, where lbs shrinks by cos 10°. */
	struct rig_skin_def d = two_joint_grid(4, 3, 0.5);
	double t = 170 * M_PI / 180;
	struct rig_affine poses[2] = {rotate_rad(t), rotate_rad(-t)};
	double *dqs = deform_as(&d, RIG_SKIN_DQS, poses);
	double *lbs = deform_as(&d, RIG_SKIN_LBS, poses);
	for (size_t v = 0; v < d.n_verts; v++) {
		double want[2] = {-d.source[2 * v], -d.source[2 * v + 1]};
		expect_close(&dqs[2 * v], want, 1, 1e-12, 0);
		double shrunk[2] = {cos(t) * d.source[2 * v], cos(t) * d.source[2 * v + 1]};
		expect_close(&lbs[2 * v], shrunk, 1, 1e-12, 0);
	}
	free(dqs);
	free(lbs);
	rig_skin_def_release(&d);
}

Test(skin_dqs, a_mirrored_joint_keeps_its_reflection_in_the_residual)
{
	/* det < 0 has no rotation-and-positive polar decomposition; the rule of
	 * core/skin.h keeps θ = atan2(b − c, a + d) and an indefinite S, so one
	 * influence still gives M·v, and a pure mirror blends as lbs does. */
	struct rig_skin_def d = two_joint_grid(4, 3, 1.0 / 3);
	struct rig_affine mirror = affine(-1, 0, 0, 1, 3, 0);
	struct rig_affine poses[2] = {
		rig_affine_mul(rotate_rad(0.7), affine(-1.5, 0.2, 0.1, 0.8, 1, 2)), mirror};
	double *dqs = deform_as(&d, RIG_SKIN_DQS, poses);
	double *lbs = deform_as(&d, RIG_SKIN_LBS, poses);
	for (size_t i = 0; i < 2 * d.n_verts; i++)
		cr_assert(isfinite(dqs[i]));
	free(dqs);
	free(lbs);
	rig_skin_def_release(&d);
	/* one influence, of either joint */
	for (uint32_t j = 0; j < 2; j++) {
		d = grid_def(4, 3, 1, 2, 1);
		weights_all_to(&d, j);
		lbs = deform_as(&d, RIG_SKIN_LBS, poses);
		dqs = deform_as(&d, RIG_SKIN_DQS, poses);
		expect_close(dqs, lbs, d.n_verts, 1e-12, (int)j);
		free(dqs);
		free(lbs);
		rig_skin_def_release(&d);
	}
	/* a mirror and the identity: S blends linearly, the rotors are both 1 */
	d = two_joint_grid(4, 3, 0.25);
	struct rig_affine pair[2] = {rig_affine_identity(), mirror};
	lbs = deform_as(&d, RIG_SKIN_LBS, pair);
	dqs = deform_as(&d, RIG_SKIN_DQS, pair);
	expect_close(dqs, lbs, d.n_verts, 1e-12, 0);
	free(dqs);
	free(lbs);
	rig_skin_def_release(&d);
}

Test(skin_dqs, a_rotor_that_cancels_falls_back_to_lbs_bit_for_bit)
{
	/* Joint 0 at rest with weight 1e-14; joints 1 and 2 turn by ±(180° − δ),
	 * rotors (δ/2, ±1) that cancel: |r_b| ≈ 1e-14, below the limit, so every
	 * vertex takes lbs's bits (a turn by about 180°, a valid mesh). */
	struct rig_skin_def d = grid_def(4, 3, 1, 3, 3);
	uint32_t js[3] = {0, 1, 2};
	double tiny = 1e-14, ws[3] = {tiny, (1 - tiny) / 2, (1 - tiny) / 2};
	for (size_t v = 0; v < d.n_verts; v++)
		set_weights(&d, v, 3, js, ws);
	double delta = 1e-20;
	struct rig_affine poses[3] = {rig_affine_identity(), affine(-1, delta, -delta, -1, 0, 0),
				      affine(-1, -delta, delta, -1, 0, 0)};
	struct rig_skin_blend q;
	rig_skin__dqs_joint(&q, poses[1].m);
	cr_expect(q.m[0] > 0 && q.m[0] < 1e-19 && q.m[1] == 1, "r = (δ/2, 1): %.17g %.17g", q.m[0],
		  q.m[1]);
	double *lbs = deform_as(&d, RIG_SKIN_LBS, poses);
	double *dqs = deform_as(&d, RIG_SKIN_DQS, poses);
	cr_expect_eq(memcmp(dqs, lbs, 2 * d.n_verts * sizeof *dqs), 0);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	d.method = RIG_SKIN_DQS;
	struct rig_skin *skin = must_new(&d);
	cr_expect_eq(rig_skin_evaluate(dqs, skin, poses, errs), 0);
	for (size_t i = 0; i < 2 * d.n_verts; i++)
		cr_expect(isfinite(dqs[i]));
	rig_skin_free(skin);
	rig_errs_free(errs);
	free(dqs);
	free(lbs);
	rig_skin_def_release(&d);
}

Test(skin_dqs, an_overflowing_pose_is_reported_not_hidden)
{
	struct rig_skin_def d = two_joint_grid(4, 3, 0.5);
	d.method = RIG_SKIN_DQS;
	struct rig_skin *skin = must_new(&d);
	struct rig_affine poses[2] = {affine(1e308, 0, 0, 1e308, 1e308, 1e308),
				      affine(1e308, 0, 0, 1e308, 1e308, 1e308)};
	double *out = malloc(2 * d.n_verts * sizeof *out);
	struct rig_errs *errs = rig_errs_new();
	cr_assert(out && errs);
	cr_expect_eq(rig_skin_evaluate(out, skin, poses, errs), -1);
	cr_expect_geq(find_err(errs, RIG_MESH_GEOMETRY), 0, "%s",
		      errs->count ? errs->items[0].detail : "(none)");
	rig_errs_free(errs);
	free(out);
	rig_skin_free(skin);
	rig_skin_def_release(&d);
}

/* ------------------------------------------------------------------------ */
/* Paths, rest, names, the check                                             */
/* ------------------------------------------------------------------------ */

Test(skin_dqs, every_path_gives_the_same_bits_and_evaluate_matches_deform)
{
	struct rng rng = {0xabc};
	for (int trial = 0; trial < 30; trial++) {
		size_t n_joints = 1 + rng_below(&rng, 24);
		struct rig_skin_def d = random_rig(&rng, n_joints, (size_t)trial % 9);
		d.method = RIG_SKIN_DQS;
		struct rig_skin *skin = must_new(&d);
		struct rig_affine poses[24];
		for (size_t j = 0; j < n_joints; j++)
			poses[j] = rig_affine_mul(
				rig_affine_mul(translate(rng_range(&rng, -5, 5), 0),
					       rotate_rad(rng_range(&rng, -0.5, 0.5))),
				d.joints[j].bind);
		size_t bytes = 2 * d.n_verts * sizeof(double);
		double *want = malloc(bytes), *got = malloc(bytes);
		cr_assert(want && got);
		rig_skin_deform_isa(want, skin, poses, RIG_ISA_PORTABLE);
		for (int p = 0; p < RIG_ISA_COUNT; p++) {
			if (!rig_isa_is_supported((enum rig_isa)p))
				continue;
			memset(got, 0xa5, bytes);
			rig_skin_deform_isa(got, skin, poses, (enum rig_isa)p);
			cr_assert_eq(memcmp(got, want, bytes), 0, "trial %d: the %s path", trial,
				     rig_isa_name((enum rig_isa)p));
		}
		struct rig_errs *errs = rig_errs_new();
		cr_assert_not_null(errs);
		memset(got, 0xa5, bytes);
		int rc = rig_skin_evaluate(got, skin, poses, errs);
		if (rc == 0)
			cr_assert_eq(memcmp(got, want, bytes), 0, "trial %d: evaluate", trial);
		rig_errs_free(errs);
		free(want);
		free(got);
		rig_skin_free(skin);
		rig_skin_def_release(&d);
	}
}

Test(skin_dqs, poses_at_the_binds_return_the_source_to_rounding)
{
	struct rng rng = {0x5e};
	for (int trial = 0; trial < 50; trial++) {
		size_t n_joints = 1 + rng_below(&rng, 24);
		struct rig_skin_def d = random_rig(&rng, n_joints, rng_below(&rng, 9));
		struct rig_affine poses[24];
		for (size_t j = 0; j < n_joints; j++)
			poses[j] = d.joints[j].bind;
		double *dqs = deform_as(&d, RIG_SKIN_DQS, poses);
		expect_close(dqs, d.source, d.n_verts, 1e-14, trial);
		free(dqs);
		rig_skin_def_release(&d);
	}
}

Test(skin_dqs, method_names_round_trip_and_others_are_refused)
{
	enum rig_skin_method m = RIG_SKIN_DQS;
	cr_expect_str_eq(rig_skin_method_name(RIG_SKIN_LBS), "lbs");
	cr_expect_str_eq(rig_skin_method_name(RIG_SKIN_DQS), "dqs");
	cr_expect_null(rig_skin_method_name(RIG_SKIN_METHOD_COUNT));
	cr_expect_eq(rig_skin_method_parse(&m, "lbs"), 0);
	cr_expect_eq(m, RIG_SKIN_LBS);
	cr_expect_eq(rig_skin_method_parse(&m, "dqs"), 0);
	cr_expect_eq(m, RIG_SKIN_DQS);
	cr_expect_eq(rig_skin_method_parse(&m, "DQS"), -1);
	cr_expect_eq(rig_skin_method_parse(&m, ""), -1);
	cr_expect_eq(rig_skin_method_parse(&m, NULL), -1);
	cr_expect_eq(m, RIG_SKIN_DQS, "untouched on failure");

	struct rig_skin_def d = two_joint_grid(3, 3, 0.5);
	struct rig_skin_def zeroed = d;
	cr_expect_eq(zeroed.method, RIG_SKIN_LBS, "zero is lbs");
	d.method = (enum rig_skin_method)7;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(rig_skin_check_def(&d, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_OP_INVALID);
	cr_expect_str_eq(errs->items[0].pointer, "/method");
	rig_errs_init(errs);
	cr_expect_null(rig_skin_new(&d, errs));
	d.method = RIG_SKIN_DQS;
	struct rig_skin_def copy;
	cr_assert_eq(rig_skin_def_copy(&copy, &d), 0);
	cr_expect_eq(copy.method, RIG_SKIN_DQS, "copies keep the method");
	struct rig_skin *skin = must_new(&d);
	cr_expect_eq(rig_skin_def_of(skin)->method, RIG_SKIN_DQS);
	rig_skin_free(skin);
	rig_skin_def_release(&copy);
	rig_errs_free(errs);
	rig_skin_def_release(&d);
}
