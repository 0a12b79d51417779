/* The AVX2 skinning kernel (core/skin_kernel.h), compiled with -mavx2 and
 * never -mfma (CMakeLists.txt in core/); run only where rig_isa_is_supported
 * says so. Nothing else lives in this file: all of it may use AVX2.
 *
 * Per vertex, D_j's first four entries (a − 1, b, c, d − 1) are one ymm
 * register and (e, f) one xmm, so an influence is two multiplies and two adds
 * where the portable kernel needs three of each, and two vertices share the
 * registers of their last steps; the operations and their order are the
 * portable kernel's, lane for lane.
 */
#include "core/skin_kernel.h"

#if RIG_ISA_X86
#include <immintrin.h>

/* C_0..C_3 in a, C_4..C_5 in b: a += w · D[0..3], b += w · D[4..5]. */
static inline __attribute__((always_inline)) void
blend_add(__m256d *a, __m128d *b, const struct rig_skin_blend *m, const double *w)
{
	__m256d wk = _mm256_broadcast_sd(w);
	*a = _mm256_add_pd(*a, _mm256_mul_pd(wk, _mm256_load_pd(&m->m[0])));
	*b = _mm_add_pd(*b, _mm_mul_pd(_mm256_castpd256_pd128(wk), _mm_load_pd(&m->m[4])));
}

/* The six sums of one vertex: C_0..C_3 in *a, C_4..C_5 in *b. */
static inline __attribute__((always_inline)) void
sums(__m256d *a, __m128d *b, const uint8_t *restrict j, const double *restrict w,
     const struct rig_skin_blend *restrict mats, size_t n_per)
{
	const struct rig_skin_blend *m = &mats[j[0]];
	__m256d w0 = _mm256_broadcast_sd(&w[0]);
	*a = _mm256_mul_pd(w0, _mm256_load_pd(&m->m[0]));
	*b = _mm_mul_pd(_mm256_castpd256_pd128(w0), _mm_load_pd(&m->m[4]));
	if (n_per > 1)
		blend_add(a, b, &mats[j[1]], &w[1]);
	if (n_per > 2)
		blend_add(a, b, &mats[j[2]], &w[2]);
	if (n_per > 3)
		blend_add(a, b, &mats[j[3]], &w[3]);
	if (n_per > 4)
		blend_add(a, b, &mats[j[4]], &w[4]);
	if (n_per > 5)
		blend_add(a, b, &mats[j[5]], &w[5]);
	if (n_per > 6)
		blend_add(a, b, &mats[j[6]], &w[6]);
	if (n_per > 7)
		blend_add(a, b, &mats[j[7]], &w[7]);
}

static inline __attribute__((always_inline)) void
vertex_avx2(double *restrict out, const double *restrict src, const uint8_t *restrict j,
	    const double *restrict w, const struct rig_skin_blend *restrict mats, size_t n_per)
{
	__m256d a;
	__m128d b;
	sums(&a, &b, j, w, mats, n_per);
	/* (C_0·x, C_1·x, C_2·y, C_3·y), then (C_0·x + C_2·y, C_1·x + C_3·y) + (C_4, C_5). */
	__m128d p = _mm_loadu_pd(src);
	__m256d xxyy = _mm256_permute4x64_pd(_mm256_castpd128_pd256(p), 0x50);
	__m256d t = _mm256_mul_pd(a, xxyy);
	__m128d s = _mm_add_pd(_mm256_castpd256_pd128(t), _mm256_extractf128_pd(t, 1));
	_mm_storeu_pd(out, _mm_add_pd(p, _mm_add_pd(s, b)));
}

/* Two consecutive vertices, their last steps side by side in one register:
 * the same operations as vertex_avx2 twice, in fewer instructions. */
static inline __attribute__((always_inline)) void
pair_avx2(double *restrict out, const double *restrict src, const uint8_t *restrict j,
	  const double *restrict w, const struct rig_skin_blend *restrict mats, size_t n_per)
{
	__m256d a0, a1;
	__m128d b0, b1;
	sums(&a0, &b0, j, w, mats, n_per);
	sums(&a1, &b1, j + n_per, w + n_per, mats, n_per);
	__m256d p = _mm256_loadu_pd(src); /* (x_0, y_0, x_1, y_1) */
	__m256d t0 = _mm256_mul_pd(a0, _mm256_permute4x64_pd(p, 0x50));
	__m256d t1 = _mm256_mul_pd(a1, _mm256_permute4x64_pd(p, 0xfa));
	__m256d s = _mm256_add_pd(_mm256_permute2f128_pd(t0, t1, 0x20),
				  _mm256_permute2f128_pd(t0, t1, 0x31));
	s = _mm256_add_pd(s, _mm256_set_m128d(b1, b0));
	_mm256_storeu_pd(out, _mm256_add_pd(p, s));
}

void rig_skin__kernel_avx2(double *out_xy, const struct rig_skin_kernel *k,
			   const struct rig_skin_blend *mats, struct rig_skin_cursor *at,
			   size_t v_end)
{
	rig_skin__kernel_drive(out_xy, k, mats, at, v_end, vertex_avx2, pair_avx2);
}
#endif
