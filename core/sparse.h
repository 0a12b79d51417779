/* Sparse symmetric positive-definite systems, factorised once and solved
 * many times: AMD's fill-reducing ordering and LDL's sparse LDLᵀ, from
 * SuiteSparse (Debian's libsuitesparse-dev; docs/decisions.md says why these
 * two: no BLAS, no threads, the same bits on every run).
 *
 * A matrix is given in compressed columns (CSC) with both triangles and the
 * diagonal, row indices ascending in each column. The analysis (ordering,
 * elimination tree, column counts) depends on the pattern only and is done
 * once; a numeric factorisation of any values on that pattern is its own
 * struct, so a caller may factorise other values into scratch of its own
 * while the first stays shared and unchanged. No I/O, no globals: every
 * array belongs to the struct holding it.
 */
#ifndef RIG_SPARSE_H
#define RIG_SPARSE_H

#include <stddef.h>

/* The analysis of a pattern: owns every array; zeroed is empty. */
struct rig_sparse_symbolic {
	long n;
	long *ap, *ai; /* the pattern: n + 1 column starts, ap[n] row indices */
	long *perm;    /* AMD's order: row perm[k] of A is row k of PAPᵀ */
	long *pinv;    /* its inverse */
	long *parent;  /* the elimination tree of PAPᵀ */
	long *lnz;     /* nonzeros per column of L */
	long *lp;      /* n + 1 column starts of L */
};

/* A numeric factorisation PAPᵀ = (I + L) D (I + L)ᵀ: owns its arrays. */
struct rig_sparse_numeric {
	long *li;
	double *lx; /* lp[n] each */
	double *d;  /* n */
};

/* Analyses the n × n pattern (ap, ai), which it copies. Returns 0, or -1
 * when out of memory or the pattern is not valid CSC (then *out is zeroed). */
int rig_sparse_analyse(struct rig_sparse_symbolic *out, size_t n, const long *ap, const long *ai);

/* Frees the analysis and zeroes it. */
void rig_sparse_symbolic_release(struct rig_sparse_symbolic *s);

/* The bytes the analysis holds. */
size_t rig_sparse_symbolic_bytes(const struct rig_sparse_symbolic *s);

/* Factorises the values ax (ap[n] of them, on s's pattern) into *out.
 * Returns 0; -1 when out of memory; -2 when the matrix is not positive
 * definite (a pivot not positive and finite). *out is zeroed on failure. */
int rig_sparse_factor(struct rig_sparse_numeric *out, const struct rig_sparse_symbolic *s,
		      const double *ax);

/* Frees a factorisation and zeroes it. */
void rig_sparse_numeric_release(struct rig_sparse_numeric *f);

/* The bytes a factorisation holds. */
size_t rig_sparse_numeric_bytes(const struct rig_sparse_symbolic *s);

/* Solves A x = b in place (x holds b on entry), with work n doubles of the
 * caller's scratch: P, then L, D and Lᵀ, then Pᵀ. */
void rig_sparse_solve(const struct rig_sparse_symbolic *s, const struct rig_sparse_numeric *f,
		      double *x, double *work);

/* Solves A x = b for two right-hand sides at once, interleaved (xy[2i] the
 * first's, xy[2i + 1] the second's entry i; b on entry, x on return), with
 * work 2n doubles of the caller's scratch: each system gets the very
 * operations rig_sparse_solve does, in the same order (so the same bits), one
 * pass over L for both. */
void rig_sparse_solve2(const struct rig_sparse_symbolic *s, const struct rig_sparse_numeric *f,
		       double *xy, double *work);

#endif
