/* Sparse SPD factorisation (sparse.h) over SuiteSparse's AMD and LDL, in
 * their SuiteSparse_long flavour (amd_l_*, ldl_l_*) so no count of a large
 * mesh's factor overflows an int. LDL's prototypes take non-const arrays it
 * only reads; the casts below say so once each.
 */
#include "core/sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <amd.h>
#include <ldl.h>

_Static_assert(sizeof(SuiteSparse_long) == sizeof(long), "SuiteSparse_long is long");

void rig_sparse_symbolic_release(struct rig_sparse_symbolic *s)
{
	free(s->ap);
	free(s->ai);
	free(s->perm);
	free(s->pinv);
	free(s->parent);
	free(s->lnz);
	free(s->lp);
	memset(s, 0, sizeof *s);
}

size_t rig_sparse_symbolic_bytes(const struct rig_sparse_symbolic *s)
{
	size_t n = (size_t)s->n, nz = s->ap ? (size_t)s->ap[n] : 0;
	return sizeof *s + ((n + 1) * 2 + nz + 4 * n) * sizeof(long);
}

/* Columns start at 0, grow, and hold row indices in [0, n), ascending. */
static int is_valid_pattern(size_t n, const long *ap, const long *ai)
{
	if (ap[0] != 0)
		return 0;
	for (size_t j = 0; j < n; j++) {
		if (ap[j + 1] < ap[j])
			return 0;
		for (long p = ap[j]; p < ap[j + 1]; p++)
			if (ai[p] < 0 || (size_t)ai[p] >= n || (p > ap[j] && ai[p] <= ai[p - 1]))
				return 0;
	}
	return 1;
}

int rig_sparse_analyse(struct rig_sparse_symbolic *out, size_t n, const long *ap, const long *ai)
{
	memset(out, 0, sizeof *out);
	if (!is_valid_pattern(n, ap, ai))
		return -1;
	size_t nz = (size_t)ap[n], m = n ? n : 1;
	out->n = (long)n;
	out->ap = malloc((n + 1) * sizeof *out->ap);
	out->ai = malloc((nz ? nz : 1) * sizeof *out->ai);
	out->perm = malloc(m * sizeof *out->perm);
	out->pinv = malloc(m * sizeof *out->pinv);
	out->parent = malloc(m * sizeof *out->parent);
	out->lnz = malloc(m * sizeof *out->lnz);
	out->lp = malloc((n + 1) * sizeof *out->lp);
	long *flag = malloc(m * sizeof *flag);
	if (!out->ap || !out->ai || !out->perm || !out->pinv || !out->parent || !out->lnz ||
	    !out->lp || !flag)
		goto fail;
	memcpy(out->ap, ap, (n + 1) * sizeof *ap);
	memcpy(out->ai, ai, nz * sizeof *ai);
	if (n > 0) {
		/* AMD's defaults (dense rows, aggressive absorption): a pure
		 * function of the pattern, no threads. */
		double info[AMD_INFO];
		long st = amd_l_order((long)n, out->ap, out->ai, out->perm, NULL, info);
		if (st != AMD_OK)
			goto fail;
	}
	ldl_l_symbolic((long)n, out->ap, out->ai, out->lp, out->parent, out->lnz, flag, out->perm,
		       out->pinv);
	free(flag);
	return 0;
fail:
	free(flag);
	rig_sparse_symbolic_release(out);
	return -1;
}

void rig_sparse_numeric_release(struct rig_sparse_numeric *f)
{
	free(f->li);
	free(f->lx);
	free(f->d);
	memset(f, 0, sizeof *f);
}

size_t rig_sparse_numeric_bytes(const struct rig_sparse_symbolic *s)
{
	size_t lnz = s->lp ? (size_t)s->lp[s->n] : 0;
	return sizeof(struct rig_sparse_numeric) + lnz * (sizeof(long) + sizeof(double)) +
	       (size_t)s->n * sizeof(double);
}

int rig_sparse_factor(struct rig_sparse_numeric *out, const struct rig_sparse_symbolic *s,
		      const double *ax)
{
	memset(out, 0, sizeof *out);
	size_t n = (size_t)s->n, m = n ? n : 1, lnz = (size_t)s->lp[n];
	out->li = malloc((lnz ? lnz : 1) * sizeof *out->li);
	out->lx = malloc((lnz ? lnz : 1) * sizeof *out->lx);
	out->d = malloc(m * sizeof *out->d);
	double *y = malloc(m * sizeof *y);
	long *pattern = malloc(m * sizeof *pattern), *flag = malloc(m * sizeof *flag);
	int rc = -1;
	if (!out->li || !out->lx || !out->d || !y || !pattern || !flag)
		goto out_free;
	long done = ldl_l_numeric(s->n, s->ap, s->ai, (double *)ax, s->lp, s->parent, s->lnz,
				  out->li, out->lx, out->d, y, pattern, flag, s->perm, s->pinv);
	rc = done == s->n ? 0 : -2;
	for (size_t k = 0; rc == 0 && k < n; k++)
		if (!(out->d[k] > 0) || !isfinite(out->d[k]))
			rc = -2;
out_free:
	free(y);
	free(pattern);
	free(flag);
	if (rc)
		rig_sparse_numeric_release(out);
	return rc;
}

void rig_sparse_solve(const struct rig_sparse_symbolic *s, const struct rig_sparse_numeric *f,
		      double *x, double *work)
{
	long n = s->n;
	ldl_l_perm(n, work, x, s->perm);
	ldl_l_lsolve(n, work, s->lp, f->li, f->lx);
	ldl_l_dsolve(n, work, f->d);
	ldl_l_ltsolve(n, work, s->lp, f->li, f->lx);
	ldl_l_permt(n, x, work, s->perm);
}

/* LDL's ldl_perm, ldl_lsolve, ldl_dsolve, ldl_ltsolve and ldl_permt, each
 * loop running on both systems: X[Li[p]] −= Lx[p]·X[j] by columns, X[j] /=
 * D[j], X[j] −= Lx[p]·X[Li[p]] by columns from the last, term for term. */
void rig_sparse_solve2(const struct rig_sparse_symbolic *s, const struct rig_sparse_numeric *f,
		       double *xy, double *work)
{
	long n = s->n;
	const long *lp = s->lp, *li = f->li;
	const double *lx = f->lx;
	for (long k = 0; k < n; k++) {
		work[2 * k] = xy[2 * s->perm[k]];
		work[2 * k + 1] = xy[2 * s->perm[k] + 1];
	}
	for (long j = 0; j < n; j++) {
		double x = work[2 * j], y = work[2 * j + 1];
		for (long p = lp[j]; p < lp[j + 1]; p++) {
			work[2 * li[p]] -= lx[p] * x;
			work[2 * li[p] + 1] -= lx[p] * y;
		}
	}
	for (long j = 0; j < n; j++) {
		work[2 * j] /= f->d[j];
		work[2 * j + 1] /= f->d[j];
	}
	for (long j = n - 1; j >= 0; j--) {
		double x = work[2 * j], y = work[2 * j + 1];
		for (long p = lp[j]; p < lp[j + 1]; p++) {
			x -= lx[p] * work[2 * li[p]];
			y -= lx[p] * work[2 * li[p] + 1];
		}
		work[2 * j] = x;
		work[2 * j + 1] = y;
	}
	for (long k = 0; k < n; k++) {
		xy[2 * s->perm[k]] = work[2 * k];
		xy[2 * s->perm[k] + 1] = work[2 * k + 1];
	}
}
