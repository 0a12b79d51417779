/* The skinning kernel: the vertex loop of linear blend skinning over a
 * prepared layout, one implementation per path of core/isa.h (skin_kernel.c:
 * the portable one and the choice between paths; skin_kernel_x86.c: AVX2),
 * and the dual-complex loop every path shares (skin_dqs.c).
 * Internal to core/: skin.c lays the influences out when it builds an
 * evaluator and computes the blend matrices once per frame; a kernel only
 * loops.
 *
 * v' = v + (Σ_k w_k · D_{j_k}) · (x, y, 1) with D = pose · bind⁻¹ − I: equal to
 * Σ_k w_k · (pose · bind⁻¹)_{j_k} · v when Σw = 1, and exactly v when every D
 * is zero (pose equal to bind). Every path keeps this order, so every path
 * gives the same bits: each of the six sums C_i starts as w_0 · D_{j_0,i} and
 * adds w_k · D_{j_k,i} for k = 1, 2, …; then
 *     x' = x + ((C_0 · x + C_2 · y) + C_4),   y' = y + ((C_1 · x + C_3 · y) + C_5).
 */
#ifndef RIG_SKIN_KERNEL_H
#define RIG_SKIN_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/isa.h"
#include "core/prefetch.h"

/* One joint's D as (a − 1, b, c, d − 1, e, f) and two zeros: one cache line,
 * which a path may load whole (the zeros keep its unused lanes harmless). */
struct rig_skin_blend {
	_Alignas(64) double m[8];
};

/* A run of consecutive vertices with the same number of influences (1–15),
 * or (n_per 0) of vertices whose counts change too often for runs of their
 * own, each count read from the offsets: n_verts << 4 | n_per, in one
 * uint32_t (n_verts < 2^28). */
#define RIG_SKIN_RUN(n_verts, n_per) (((uint32_t)(n_verts) << 4) | (uint32_t)(n_per))
#define RIG_SKIN_RUN_VERTS(run) ((size_t)((run) >> 4))
#define RIG_SKIN_RUN_PER(run) ((size_t)((run)&15u))
/* Vertices with equal counts shorter than this join a mixed run: a run's
 * own loop pays for itself only over a few blocks. */
#define RIG_SKIN_MIN_RUN 16

/* What a kernel reads, borrowed from the evaluator. Influences are
 * vertex-major (a vertex's list in its definition's order); the runs cover
 * the vertices in order. */
struct rig_skin_kernel {
	const double *src;       /* 2 · n_verts, interleaved x, y */
	const uint8_t *joints;   /* n_influences joint indices */
	const double *weights;   /* n_influences normalised weights */
	const uint32_t *offsets; /* n_verts + 1: vertex v's influences start at offsets[v] − base */
	uint32_t base;           /* offsets[0] */
	const uint32_t *runs;    /* n_runs RIG_SKIN_RUN entries */
	size_t n_verts, n_influences, n_runs;
};

/* Where a kernel stands: its next run, the run's first vertex and influence,
 * and how many of the run's vertices are done. Zeroed, the start. */
struct rig_skin_cursor {
	size_t run, v, i, done;
};

/* A kernel: writes the vertices from *at up to (not including) v_end to
 * out_xy (2 doubles each, interleaved, at their places) from the blend
 * matrices (one per joint the influences name), and moves *at there: a
 * caller may stop between vertices, look at what is written, and go on. No
 * checks. */
typedef void rig_skin_kernel_fn(double *out_xy, const struct rig_skin_kernel *k,
				const struct rig_skin_blend *mats, struct rig_skin_cursor *at,
				size_t v_end);

rig_skin_kernel_fn rig_skin__kernel_portable;
#if RIG_ISA_X86
rig_skin_kernel_fn rig_skin__kernel_avx2;
#endif

/* The kernel of a path; NULL when this build has none (AVX2 off x86-64). The
 * caller checks rig_isa_is_supported() first. */
rig_skin_kernel_fn *rig_skin__kernel(enum rig_isa isa);

/* ---- dual-complex skinning (core/skin_dqs.c; the formulas are core/skin.h's) ---- */

/* A dqs skin's blend array holds two entries per joint j: mats[2j] is D, as
 * for lbs (the fallback of a vertex whose blended rotor is too short), and
 * mats[2j + 1] the joint's dual complex number and residual,
 * (r.x, r.y, d.x, d.y, S_00, S_10, S_01, S_11), S column-major like an
 * affine's linear part. */
#define RIG_SKIN_DQS_STRIDE 2

/* Below this |r_b|², a vertex is skinned by lbs (core/skin.h). */
#define RIG_SKIN_DQS_MIN_ROTOR2 1e-12

/* Fills *out, the second entry of a joint, from its skin matrix m
 * (pose · bind⁻¹): the rotor r = e^{iθ/2} with θ = atan2(b − c, a + d) (r = 1
 * where a + d = b − c = 0), computed without trigonometry from
 * r ∝ |z| + z (Re z ≥ 0) or r ∝ sign(Im z)·(|Im z|, |z| − Re z) (Re z < 0),
 * z = (a + d) + i(b − c) scaled by its largest component; the residual
 * S = R(r²)ᵀ·A; the dual part d = ½·t·r̄. Only IEEE +, −, ×, ÷ and sqrt: the
 * same bits everywhere. A non-finite m gives non-finite entries, which the
 * deformed-mesh check then reports. */
void rig_skin__dqs_joint(struct rig_skin_blend *out, const double m[6]);

/* The dqs kernel, the same on every path: mats laid out as
 * RIG_SKIN_DQS_STRIDE above. */
rig_skin_kernel_fn rig_skin__kernel_dqs;

/* ---- the loop every path shares, each compiling it for its own instruction set ---- */

/* One vertex: out (2 doubles) from src (2), its n_per joint indices and weights. */
typedef void rig_skin_vertex_fn(double *restrict out, const double *restrict src,
				const uint8_t *restrict j, const double *restrict w,
				const struct rig_skin_blend *restrict mats, size_t n_per);

/* Two consecutive vertices with n_per influences each (their outputs,
 * sources, joint indices and weights follow one another): a path whose
 * registers hold two vertices' last steps at once. */
typedef rig_skin_vertex_fn rig_skin_pair_fn;

/* Vertices per block, and blocks ahead to prefetch: the hardware prefetcher
 * alone leaves the 1M-vertex loop well below memory speed. */
#define RIG_SKIN_BLOCK 8
#define RIG_SKIN_PREFETCH_AHEAD 64

/* The arrays of struct rig_skin_kernel as locals: loaded once, so the stores
 * to out cannot make the compiler reload them (it cannot tell that out does
 * not overlap the struct). */
struct rig_skin__arrays {
	const double *restrict src;
	const uint8_t *restrict joints;
	const double *restrict weights;
	const uint32_t *restrict offsets;
	uint32_t base;
	size_t v_last, i_last; /* the last vertex and influence, for the prefetch */
};

/* Prefetches the lines of a block of vertices starting at vertex v (its
 * influences at i) with n_lines lines of weights, clamped inside the arrays. */
static inline __attribute__((always_inline)) void
rig_skin__prefetch_block(struct rig_skin__arrays a, size_t v, size_t i, size_t n_lines)
{
	v = v < a.v_last ? v : a.v_last;
	i = i < a.i_last ? i : a.i_last;
	/* A block's source is two lines: 8 vertices · 16 bytes. */
	rig_core__prefetch(&a.src[2 * v]);
	rig_core__prefetch(&a.src[v + 4 < a.v_last ? 2 * v + 8 : 2 * a.v_last]);
	rig_core__prefetch(&a.joints[i]);
	/* 8 vertices · n_per weights · 8 bytes: n_per lines. */
	for (size_t q = 0; q < n_lines; q++) {
		size_t at = i + 8 * q;
		rig_core__prefetch(&a.weights[at < a.i_last ? at : a.i_last]);
	}
}

/* The vertices of one run, n_per constant at each call site below so the
 * vertex function folds to straight-line code. v and i are the first
 * vertex's index and its first influence's. */
static inline __attribute__((always_inline)) void
rig_skin__kernel_run(double *restrict out, struct rig_skin__arrays a,
		     const struct rig_skin_blend *restrict mats, size_t v, size_t i, size_t n_verts,
		     size_t n_per, rig_skin_vertex_fn *vertex, rig_skin_pair_fn *pair)
{
	for (size_t b = 0; b < n_verts; b += RIG_SKIN_BLOCK) {
		rig_skin__prefetch_block(a, v + b + RIG_SKIN_PREFETCH_AHEAD,
					 i + n_per * (b + RIG_SKIN_PREFETCH_AHEAD), n_per);
		size_t end = b + RIG_SKIN_BLOCK < n_verts ? b + RIG_SKIN_BLOCK : n_verts, u = b;
		for (; pair && u + 2 <= end; u += 2) {
			size_t at = v + u, infl = i + n_per * u;
			pair(&out[2 * at], &a.src[2 * at], &a.joints[infl], &a.weights[infl], mats,
			     n_per);
		}
		for (; u < end; u++) {
			size_t at = v + u, infl = i + n_per * u;
			vertex(&out[2 * at], &a.src[2 * at], &a.joints[infl], &a.weights[infl],
			       mats, n_per);
		}
	}
}

/* The vertices of a mixed run: each one's count from the offsets. */
static inline __attribute__((always_inline)) void
rig_skin__kernel_mixed(double *restrict out, struct rig_skin__arrays a,
		       const struct rig_skin_blend *restrict mats, size_t v, size_t n_verts,
		       rig_skin_vertex_fn *vertex)
{
	for (size_t b = 0; b < n_verts; b += RIG_SKIN_BLOCK) {
		size_t ahead = v + b + RIG_SKIN_PREFETCH_AHEAD;
		ahead = ahead < a.v_last ? ahead : a.v_last;
		rig_skin__prefetch_block(a, ahead, a.offsets[ahead] - a.base, 4);
		size_t end = b + RIG_SKIN_BLOCK < n_verts ? b + RIG_SKIN_BLOCK : n_verts;
		for (size_t u = b; u < end; u++) {
			size_t at = v + u, infl = a.offsets[at] - a.base;
			vertex(&out[2 * at], &a.src[2 * at], &a.joints[infl], &a.weights[infl],
			       mats, a.offsets[at + 1] - a.offsets[at]);
		}
	}
}

/* The vertices from *at to v_end, run by run, each run's loop picked by its
 * influence count before it starts (1–8: RIG_MAX_INFLUENCES, or 0 for a
 * mixed run; the evaluator builds no other runs). pair may be NULL: then
 * every vertex is one call of vertex. */
static inline __attribute__((always_inline)) void
rig_skin__kernel_drive(double *restrict out, const struct rig_skin_kernel *k,
		       const struct rig_skin_blend *restrict mats, struct rig_skin_cursor *at,
		       size_t v_end, rig_skin_vertex_fn *vertex, rig_skin_pair_fn *pair)
{
	struct rig_skin__arrays a = {k->src,  k->joints,      k->weights,         k->offsets,
				     k->base, k->n_verts - 1, k->n_influences - 1};
	const uint32_t *runs = k->runs;
	size_t n_runs = k->n_runs, r = at->run, v = at->v, i = at->i, done = at->done;
	while (r < n_runs && v + done < v_end) {
		size_t n = RIG_SKIN_RUN_VERTS(runs[r]), n_per = RIG_SKIN_RUN_PER(runs[r]);
		size_t upto = v_end - v < n ? v_end - v : n;
		size_t from_v = v + done, from_i = i + n_per * done, count = upto - done;
		switch (n_per) {
		case 0:
			rig_skin__kernel_mixed(out, a, mats, from_v, count, vertex);
			break;
		case 1:
			rig_skin__kernel_run(out, a, mats, from_v, from_i, count, 1, vertex, pair);
			break;
		case 2:
			rig_skin__kernel_run(out, a, mats, from_v, from_i, count, 2, vertex, pair);
			break;
		case 3:
			rig_skin__kernel_run(out, a, mats, from_v, from_i, count, 3, vertex, pair);
			break;
		case 4:
			rig_skin__kernel_run(out, a, mats, from_v, from_i, count, 4, vertex, pair);
			break;
		case 5:
			rig_skin__kernel_run(out, a, mats, from_v, from_i, count, 5, vertex, pair);
			break;
		case 6:
			rig_skin__kernel_run(out, a, mats, from_v, from_i, count, 6, vertex, pair);
			break;
		case 7:
			rig_skin__kernel_run(out, a, mats, from_v, from_i, count, 7, vertex, pair);
			break;
		default: /* 8 */
			rig_skin__kernel_run(out, a, mats, from_v, from_i, count, 8, vertex, pair);
			break;
		}
		done = upto;
		if (done == n) {
			i += n_per ? n * n_per : a.offsets[v + n] - a.offsets[v];
			v += n;
			done = 0;
			r++;
		}
	}
	*at = (struct rig_skin_cursor){r, v, i, done};
}

#endif
