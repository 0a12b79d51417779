/* The portable skinning kernel, and which kernel each path of core/isa.h runs
 * (core/skin_kernel.h). The AVX2 kernel is skin_kernel_x86.c.
 *
 * The portable kernel works on (x, y) pairs: a GNU C vector of two doubles
 * (GCC and Clang) compiles to one SSE2/NEON register, which -O2 does not find
 * on its own from scalar code. Each lane is plain IEEE arithmetic in the order
 * skin_kernel.h gives, so the results are the scalar formula's, bit for bit.
 */
#include "core/skin_kernel.h"

#include <string.h>

typedef double pair __attribute__((vector_size(16)));

static inline pair load_pair(const double *p)
{
	pair r;
	memcpy(&r, p, sizeof r);
	return r;
}

/* c += w · D_j, column pair by column pair. */
static inline void blend_add(pair c[3], const struct rig_skin_blend *m, double w)
{
	pair wp = {w, w};
	c[0] += wp * load_pair(&m->m[0]);
	c[1] += wp * load_pair(&m->m[2]);
	c[2] += wp * load_pair(&m->m[4]);
}

/* n_per is a constant at every call (rig_skin__kernel_drive), so the chain
 * below folds to straight-line code. Spelled out: GCC -O2 does not unroll a
 * loop itself. */
static inline __attribute__((always_inline)) void
vertex_pairs(double *restrict out, const double *restrict src, const uint8_t *restrict j,
	     const double *restrict w, const struct rig_skin_blend *restrict mats, size_t n_per)
{
	const struct rig_skin_blend *m = &mats[j[0]];
	pair w0 = {w[0], w[0]};
	pair c[3] = {w0 * load_pair(&m->m[0]), w0 * load_pair(&m->m[2]), w0 * load_pair(&m->m[4])};
	if (n_per > 1)
		blend_add(c, &mats[j[1]], w[1]);
	if (n_per > 2)
		blend_add(c, &mats[j[2]], w[2]);
	if (n_per > 3)
		blend_add(c, &mats[j[3]], w[3]);
	if (n_per > 4)
		blend_add(c, &mats[j[4]], w[4]);
	if (n_per > 5)
		blend_add(c, &mats[j[5]], w[5]);
	if (n_per > 6)
		blend_add(c, &mats[j[6]], w[6]);
	if (n_per > 7)
		blend_add(c, &mats[j[7]], w[7]);
	pair p = load_pair(src);
	pair x = {p[0], p[0]}, y = {p[1], p[1]};
	pair r = p + ((c[0] * x + c[1] * y) + c[2]);
	memcpy(out, &r, sizeof r);
}

void rig_skin__kernel_portable(double *out_xy, const struct rig_skin_kernel *k,
			       const struct rig_skin_blend *mats, struct rig_skin_cursor *at,
			       size_t v_end)
{
	rig_skin__kernel_drive(out_xy, k, mats, at, v_end, vertex_pairs, NULL);
}

rig_skin_kernel_fn *rig_skin__kernel(enum rig_isa isa)
{
	switch (isa) {
	case RIG_ISA_PORTABLE:
		return rig_skin__kernel_portable;
	case RIG_ISA_AVX2:
#if RIG_ISA_X86
		return rig_skin__kernel_avx2;
#else
		return NULL;
#endif
	case RIG_ISA_COUNT:
		break;
	}
	return NULL;
}
