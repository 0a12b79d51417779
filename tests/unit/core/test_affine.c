/* Unit tests of core/affine.c: composition order, application, inversion and the
 * one "safely invertible" rule of SPEC §1, at and past its edges. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

#include "core/affine.h"
#include "support.h"

static void expect_near(struct rig_affine got, struct rig_affine want, double tol)
{
	for (int i = 0; i < 6; i++)
		cr_expect(fabs(got.m[i] - want.m[i]) <= tol, "entry %d: got %.17g want %.17g", i,
			  got.m[i], want.m[i]);
}

Test(affine, identity_leaves_points_and_products_unchanged)
{
	struct rig_affine id = rig_affine_identity();
	struct rig_affine m = affine(2, 3, 5, 7, 11, 13);
	double x, y;
	rig_affine_apply(&x, &y, &id, 1.5, -2.5);
	cr_expect_eq(x, 1.5);
	cr_expect_eq(y, -2.5);
	expect_near(rig_affine_mul(id, m), m, 0);
	expect_near(rig_affine_mul(m, id), m, 0);
}

Test(affine, apply_uses_svg_order)
{
	struct rig_affine m = affine(2, 3, 5, 7, 11, 13);
	double x, y;
	rig_affine_apply(&x, &y, &m, 1, 10);
	cr_expect_eq(x, 2 * 1 + 5 * 10 + 11);
	cr_expect_eq(y, 3 * 1 + 7 * 10 + 13);
}

Test(affine, product_applies_right_operand_first)
{
	struct rig_affine t = translate(10, 0);
	struct rig_affine r = affine(0, 1, -1, 0, 0, 0); /* 90° */
	struct rig_affine tr = rig_affine_mul(t, r);
	double x, y;
	rig_affine_apply(&x, &y, &tr, 1, 0);
	cr_expect_eq(x, 10); /* rotated to (0, 1), then moved to (10, 1) */
	cr_expect_eq(y, 1);
	struct rig_affine rt = rig_affine_mul(r, t);
	rig_affine_apply(&x, &y, &rt, 1, 0);
	cr_expect_eq(x, 0); /* moved to (11, 0), then rotated to (0, 11) */
	cr_expect_eq(y, 11);
}

Test(affine, inverse_undoes_the_matrix)
{
	struct rig_affine m = affine(2, 0.5, -1, 3, 7, -4);
	struct rig_affine inv;
	cr_assert_eq(rig_affine_invert(&inv, &m), 0);
	expect_near(rig_affine_mul(m, inv), rig_affine_identity(), 1e-15);
	expect_near(rig_affine_mul(inv, m), rig_affine_identity(), 1e-15);
}

Test(affine_invertible, accepts_an_ordinary_matrix)
{
	struct rig_affine m = affine(1, 0, 0, 1, 100, -100);
	cr_expect(rig_affine_is_safely_invertible(&m));
}

Test(affine_invertible, rejects_a_singular_matrix)
{
	struct rig_affine m = affine(1, 2, 2, 4, 0, 0);
	struct rig_affine inv = translate(42, 42);
	cr_expect_not(rig_affine_is_safely_invertible(&m));
	cr_expect_eq(rig_affine_invert(&inv, &m), -1);
	cr_expect_eq(inv.m[4], 42, "a failed inversion leaves *out untouched");
}

Test(affine_invertible, rejects_zero_matrix)
{
	struct rig_affine m = affine(0, 0, 0, 0, 0, 0);
	cr_expect_not(rig_affine_is_safely_invertible(&m));
}

Test(affine_invertible, accepts_determinant_at_the_threshold_and_rejects_just_below)
{
	/* Unit-sized matrix: threshold is 1e-12 · max(1, (1 + d²) / 2) = 1e-12. */
	struct rig_affine at = affine(1, 0, 0, 1e-12, 0, 0);
	struct rig_affine below = affine(1, 0, 0, nextafter(1e-12, 0), 0, 0);
	cr_expect(rig_affine_is_safely_invertible(&at));
	cr_expect_not(rig_affine_is_safely_invertible(&below));
}

Test(affine_invertible, threshold_grows_with_the_matrix)
{
	/* a = 2^20: (a² + d²)/2 ≈ 2^39, so the threshold is ≈ 0.55. */
	struct rig_affine ok = affine(0x1p20, 0, 0, 0x1p-20, 0, 0);   /* det 1 */
	struct rig_affine thin = affine(0x1p20, 0, 0, 0x1p-22, 0, 0); /* det 0.25 */
	cr_expect(rig_affine_is_safely_invertible(&ok));
	cr_expect_not(rig_affine_is_safely_invertible(&thin),
		      "a determinant far above 1e-12 is still too small for this matrix");
}

Test(affine_invertible, rejects_non_finite_entries_anywhere)
{
	double bad[] = {NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 6; i++) {
		for (size_t k = 0; k < 3; k++) {
			struct rig_affine m = rig_affine_identity();
			m.m[i] = bad[k];
			cr_expect_not(rig_affine_is_finite(&m));
			cr_expect_not(rig_affine_is_safely_invertible(&m), "entry %d = %g", i,
				      bad[k]);
		}
	}
}

Test(affine_invertible, rejects_a_matrix_whose_inverse_overflows)
{
	/* det = 0.25 passes, but the inverse translation is −2e308 = −inf. */
	struct rig_affine m = affine(0.5, 0, 0, 0.5, 1e308, 0);
	cr_expect(rig_affine_is_finite(&m));
	cr_expect_not(rig_affine_is_safely_invertible(&m));
}

Test(affine_invertible, rejects_a_matrix_whose_determinant_overflows)
{
	struct rig_affine m = affine(1e200, 0, 0, 1e200, 0, 0);
	cr_expect_not(rig_affine_is_safely_invertible(&m));
}
