/* The AVX2 loop over one run of a prepared deformed-mesh check
 * (core/mesh_check.h), compiled with -mavx2 and never -mfma (core/'s
 * CMakeLists.txt); run only where rig_isa_is_supported says so. Nothing else
 * lives in this file: all of it may use AVX2.
 *
 * Four triangles at once, their corners as loaded: a run's corners are
 * contiguous, so one load is (x, y) of two consecutive triangles' corner.
 * With e = b − a and f = c − a, f's pairs swapped and multiplied by e give
 * ((bx − ax)·(cy − ay), (by − ay)·(cx − ax)) for each triangle, and one
 * horizontal subtract gives the four areas: rig_mesh__area2, operation for
 * operation (in lanes 0, 2, 1, 3, which the run's one limit does not mind).
 */
#include "core/mesh_check.h"

#if RIG_ISA_X86
#include <float.h>
#include <immintrin.h>

/* The two terms of 2A for the two triangles whose corners a, b, c point at. */
static inline __m256d terms(const double *a, const double *b, const double *c)
{
	__m256d pa = _mm256_loadu_pd(a);
	__m256d e = _mm256_sub_pd(_mm256_loadu_pd(b), pa);
	__m256d f = _mm256_sub_pd(_mm256_loadu_pd(c), pa);
	return _mm256_mul_pd(e, _mm256_permute_pd(f, 0x5));
}

bool rig_mesh__run_passes_avx2(const double *dst, const struct rig_mesh_run *run)
{
	const double *a = &dst[2 * (size_t)run->first[0]];
	const double *b = &dst[2 * (size_t)run->first[1]];
	const double *c = &dst[2 * (size_t)run->first[2]];
	const __m256d sign = _mm256_set1_pd(-0.0), max = _mm256_set1_pd(DBL_MAX);
	const __m256d limit = _mm256_set1_pd(run->limit);
	const __m256d flip = _mm256_and_pd(limit, sign), floor = _mm256_andnot_pd(sign, limit);
	__m256d is_ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
	size_t n = run->n_tris; /* at least RIG_MESH_CHECK_MIN_RUN */
	for (size_t i = 0; i < n; i += 4) {
		/* The last four overlap the ones before when n is not a multiple of
		 * four: checking a triangle twice changes nothing. */
		size_t at = 2 * (i + 4 <= n ? i : n - 4);
		__m256d area = _mm256_hsub_pd(terms(&a[at], &b[at], &c[at]),
					      terms(&a[at + 4], &b[at + 4], &c[at + 4]));
		__m256d kept = _mm256_xor_pd(area, flip);
		is_ok = _mm256_and_pd(is_ok, _mm256_cmp_pd(kept, floor, _CMP_GE_OQ));
		is_ok = _mm256_and_pd(is_ok, _mm256_cmp_pd(kept, max, _CMP_LE_OQ));
	}
	return _mm256_movemask_pd(is_ok) == 0xf;
}
#endif
