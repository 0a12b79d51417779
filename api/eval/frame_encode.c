/* The frame encoders of frame_encode.h. */
#include "api/eval/frame_encode.h"

#include "core/binding.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void rig_frames__json_note(struct rig_buf *b, const struct rig_frame_note *note, size_t n_tris)
{
	if (note->solver)
		rig_buf_printf(b, ",\"solver\":\"%s\"", note->solver);
	if (!note->reordered || !note->order)
		return;
	rig_buf_puts(b, ",\"triangleOrder\":[");
	for (size_t t = 0; t < n_tris; t++) {
		char digits[24];
		int len = rig_format_u64(digits, note->order[t]);
		if (t)
			rig_buf_put(b, ",", 1);
		rig_buf_put(b, digits, (size_t)len);
	}
	rig_buf_puts(b, "]");
}

void rig_frames__json_vertices(struct rig_buf *b, const double *xy, size_t n)
{
	/* Straight into reserved room, a vertex at a time: "[x,y]," is at most
	 * 2 · 32 + 4 bytes (rig_format_double's bound), with no per-piece calls.
	 * Room for typical numbers (20 characters) is reserved up front so the
	 * buffer grows once, not by doubling and copying. */
	if (!rig_buf_reserve(b, 2 + 44 * n))
		return;
	b->data[b->len++] = '[';
	for (size_t i = 0; i < n; i++) {
		if (!rig_buf_reserve(b, 2 * 32 + 4))
			return;
		char *p = b->data + b->len;
		if (i)
			*p++ = ',';
		*p++ = '[';
		p += rig_format_double(p, xy[2 * i]);
		*p++ = ',';
		p += rig_format_double(p, xy[2 * i + 1]);
		*p++ = ']';
		b->len = (size_t)(p - b->data);
	}
	b->data[b->len++] = ']';
}

void rig_frames__f32_header(struct rig_buf *b, uint32_t version, uint32_t n_verts,
			    uint32_t n_frames)
{
	rig_buf_put(b, "RIGF", 4);
	rig_buf_u32le(b, version);
	rig_buf_u32le(b, n_verts);
	rig_buf_u32le(b, n_frames);
}

/* v rounded to float as IEEE 754 does it. A plain cast of a finite double
 * beyond the float range is undefined in C; rounding gives ±FLT_MAX below the
 * halfway point to 2^128 and ±infinity from it on (ties go to the even 2^128). */
static float f32_of(double v)
{
	double a = fabs(v);
	if (!(a > FLT_MAX)) /* NaN too: it converts as the vector path converts it */
		return (float)v;
	float r = a < (double)FLT_MAX + 0x1p103 ? FLT_MAX : INFINITY;
	return v < 0 ? -r : r;
}

/* True when a float's exponent is all ones: infinity or NaN. */
static bool f32_bits_overflow(uint32_t bits)
{
	return (bits & 0x7f800000u) == 0x7f800000u;
}

int rig_frames__f32_frame(struct rig_buf *b, double frame, const double *xy, size_t n)
{
	if (!rig_buf_reserve(b, 8 + 8 * n))
		return 0; /* b->oom tells */
	size_t start = b->len;
	rig_buf_f64le(b, frame);
	/* One pass straight into the reserved bytes: the encoder runs once per
	 * vertex of every frame a render farm fetches. Overflow (a value that
	 * rounds to ±infinity, or NaN) is collected on the side, without a branch
	 * per value, and decided once at the end. */
	unsigned char *p = (unsigned char *)b->data + b->len;
	size_t i = 0;
	uint32_t bad = 0;
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Four at a time; cvtpd2ps rounds as f32_of() below does. */
	const __m128i exp_mask = _mm_set1_epi32(0x7f800000);
	__m128i bad4 = _mm_setzero_si128();
	for (; i + 4 <= 2 * n; i += 4) {
		__m128 lo = _mm_cvtpd_ps(_mm_loadu_pd(&xy[i]));
		__m128 hi = _mm_cvtpd_ps(_mm_loadu_pd(&xy[i + 2]));
		__m128 f = _mm_movelh_ps(lo, hi);
		_mm_storeu_ps((float *)(void *)&p[4 * i], f);
		__m128i e = _mm_and_si128(_mm_castps_si128(f), exp_mask);
		bad4 = _mm_or_si128(bad4, _mm_cmpeq_epi32(e, exp_mask));
	}
	bad = (uint32_t)_mm_movemask_epi8(bad4);
#endif
	for (; i < 2 * n; i++) {
		float f = f32_of(xy[i]);
		uint32_t bits;
		memcpy(&bits, &f, sizeof bits);
		bad |= f32_bits_overflow(bits);
		p[4 * i] = (unsigned char)bits;
		p[4 * i + 1] = (unsigned char)(bits >> 8);
		p[4 * i + 2] = (unsigned char)(bits >> 16);
		p[4 * i + 3] = (unsigned char)(bits >> 24);
	}
	if (bad) {
		b->len = start;
		return -1;
	}
	b->len += 8 * n;
	return 0;
}

int rig_frames__f32_tagged_frame(struct rig_buf *b, double frame, const double *xy, size_t n)
{
	size_t start = b->len;
	rig_buf_u32le(b, RIG_F32_TAG_FRAME);
	/* A binding's vertex count is far below 2^29, so 8 + 8 · n fits a u32. */
	rig_buf_u32le(b, (uint32_t)(8 + 8 * n));
	if (rig_frames__f32_frame(b, frame, xy, n) != 0) {
		b->len = start;
		return -1;
	}
	return 0;
}

void rig_frames__f32_order(struct rig_buf *b, const uint32_t *order, size_t n_tris)
{
	size_t len = 4 * n_tris + (n_tris & 1 ? 4 : 0);
	rig_buf_u32le(b, RIG_F32_TAG_ORDER);
	rig_buf_u32le(b, (uint32_t)len);
	for (size_t t = 0; t < n_tris; t++)
		rig_buf_u32le(b, order[t]);
	if (n_tris & 1)
		rig_buf_u32le(b, 0);
}

void rig_frames__f32_error(struct rig_buf *b, double frame, const char *problem, size_t len)
{
	rig_buf_u32le(b, RIG_F32_TAG_ERROR);
	rig_buf_u32le(b, (uint32_t)(8 + len));
	rig_buf_f64le(b, frame);
	rig_buf_put(b, problem, len);
}

void rig_frames__f32_report(struct rig_errs *errs, const double *xy, size_t n, const uint32_t *tris,
			    size_t n_tris, const char *layer_id, double frame)
{
	for (size_t v = 0; v < n; v++) {
		float fx = f32_of(xy[2 * v]), fy = f32_of(xy[2 * v + 1]);
		if (isfinite(fx) && isfinite(fy))
			continue;
		bool is_kept = errs->count < RIG_ERRS_KEEP;
		struct rig_err *e = rig_errs_add(errs, RIG_MESH_GEOMETRY,
						 "deformed vertex %zu is beyond the float range of "
						 "format f32",
						 v);
		e->vertex_index = (long)v;
		rig_strlcpy(e->layer_id, layer_id, sizeof e->layer_id);
		e->has_frame = true;
		e->frame = frame;
		for (size_t t = 0; is_kept && t < 3 * n_tris; t++)
			if (tris[t] == v) {
				e->triangle_index = (long)(t / 3);
				break;
			}
	}
}
