/* core/sparse.c: AMD + LDL on a grid Laplacian plus the identity (SPD):
 * solves satisfy A x = b, the two-system solve gives the bits of two single
 * solves, and a matrix that is not positive definite is refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sparse.h"

#define SIDE 23
#define N (SIDE * SIDE)

/* The 5-point Laplacian of a SIDE × SIDE grid plus shift · I, in CSC. */
static void grid_matrix(long *ap, long *ai, double *ax, double shift)
{
	long at = 0;
	for (long j = 0; j < N; j++) {
		long x = j % SIDE, y = j / SIDE;
		long nb[5] = {j - SIDE, j - 1, j, j + 1, j + SIDE};
		int ok[5] = {y > 0, x > 0, 1, x + 1 < SIDE, y + 1 < SIDE};
		ap[j] = at;
		double deg = 0;
		for (int k = 0; k < 5; k++)
			deg += k != 2 && ok[k];
		for (int k = 0; k < 5; k++) {
			if (!ok[k])
				continue;
			ai[at] = nb[k];
			ax[at++] = k == 2 ? deg + shift : -1;
		}
	}
	ap[N] = at;
}

static void multiply(double *out, const long *ap, const long *ai, const double *ax, const double *x)
{
	memset(out, 0, N * sizeof *out);
	for (long j = 0; j < N; j++)
		for (long p = ap[j]; p < ap[j + 1]; p++)
			out[ai[p]] += ax[p] * x[j];
}

Test(sparse, solves_and_the_two_system_solve_matches_bit_for_bit)
{
	static long ap[N + 1], ai[5 * N];
	static double ax[5 * N], b1[N], b2[N], x1[N], x2[N], xy[2 * N], work[2 * N], r[N];
	grid_matrix(ap, ai, ax, 0.25);
	struct rig_sparse_symbolic s;
	struct rig_sparse_numeric f;
	cr_assert_eq(rig_sparse_analyse(&s, N, ap, ai), 0);
	cr_assert_eq(rig_sparse_factor(&f, &s, ax), 0);
	for (long i = 0; i < N; i++) {
		b1[i] = sin(0.37 * (double)i);
		b2[i] = cos(1.3 * (double)i) * 100;
		xy[2 * i] = x1[i] = b1[i];
		xy[2 * i + 1] = x2[i] = b2[i];
	}
	rig_sparse_solve(&s, &f, x1, work);
	rig_sparse_solve(&s, &f, x2, work);
	rig_sparse_solve2(&s, &f, xy, work);
	for (long i = 0; i < N; i++) {
		cr_assert_eq(memcmp(&xy[2 * i], &x1[i], sizeof x1[i]), 0, "x at %ld", i);
		cr_assert_eq(memcmp(&xy[2 * i + 1], &x2[i], sizeof x2[i]), 0, "y at %ld", i);
	}
	multiply(r, ap, ai, ax, x1);
	for (long i = 0; i < N; i++)
		cr_expect(fabs(r[i] - b1[i]) < 1e-12, "residual %g at %ld", r[i] - b1[i], i);
	cr_expect_gt(rig_sparse_symbolic_bytes(&s), 0);
	rig_sparse_numeric_release(&f);
	rig_sparse_symbolic_release(&s);
}

Test(sparse, refuses_a_matrix_that_is_not_positive_definite)
{
	static long ap[N + 1], ai[5 * N];
	static double ax[5 * N];
	grid_matrix(ap, ai, ax, 0); /* the bare Laplacian: singular */
	struct rig_sparse_symbolic s;
	struct rig_sparse_numeric f;
	cr_assert_eq(rig_sparse_analyse(&s, N, ap, ai), 0);
	cr_expect_eq(rig_sparse_factor(&f, &s, ax), -2);
	cr_expect_null(f.d);
	rig_sparse_symbolic_release(&s);
}

Test(sparse, refuses_a_pattern_that_is_not_csc)
{
	long ap[3] = {0, 2, 3}, ai[3] = {1, 0, 1}; /* column 0's rows descend */
	struct rig_sparse_symbolic s;
	cr_expect_eq(rig_sparse_analyse(&s, 2, ap, ai), -1);
	cr_expect_null(s.ap);
}
