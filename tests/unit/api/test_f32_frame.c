/* The f32 frame encoder: little-endian floats exactly as the (float) cast
 * rounds them, for every length (the vector body and the scalar tail). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "frames.h"
#include "textbuf.h"

Test(f32_frame, each_value_is_the_float_cast_little_endian)
{
	double xy[2 * 9];
	uint64_t x = 0x243f6a8885a308d3ull;
	for (size_t n = 1; n <= 9; n++) {
		for (size_t i = 0; i < 2 * n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* large, tiny, negative, and values halfway between two floats */
			double pick[4] = {(double)(int64_t)x / 1e6, (double)(x >> 11) * 1e-300,
					  -(double)(x >> 20), 1.0 + (double)((x >> 40) | 1) * 0x1p-53};
			xy[i] = pick[i % 4];
		}
		struct rig_buf b;
		rig_buf_init(&b);
		rig_frames__f32_frame(&b, 12.5, xy, n);
		cr_assert_eq(b.len, 8 + 8 * n);
		double frame;
		memcpy(&frame, b.data, 8);
		cr_assert_eq(frame, 12.5);
		for (size_t i = 0; i < 2 * n; i++) {
			const unsigned char *p = (const unsigned char *)b.data + 8 + 4 * i;
			uint32_t bits = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
					(uint32_t)p[3] << 24;
			float want = (float)xy[i]; /* every value is in float range */
			uint32_t want_bits;
			memcpy(&want_bits, &want, 4);
			cr_assert_eq(bits, want_bits, "n=%zu i=%zu: %a", n, i, xy[i]);
		}
		rig_buf_release(&b);
	}
}

Test(f32_frame, values_beyond_the_float_range_round_as_ieee)
{
	/* In the vector body (first four) and the scalar tail (last two). */
	double xy[6] = {(double)FLT_MAX * 2, -(double)FLT_MAX * 2, (double)FLT_MAX + 0x1p102,
			(double)FLT_MAX + 0x1p103, -(double)FLT_MAX - 0x1p102, 1e300};
	float want[6] = {INFINITY, -INFINITY, FLT_MAX, INFINITY, -FLT_MAX, INFINITY};
	struct rig_buf b;
	rig_buf_init(&b);
	rig_frames__f32_frame(&b, 0, xy, 3);
	for (size_t i = 0; i < 6; i++) {
		float got;
		memcpy(&got, (const char *)b.data + 8 + 4 * i, 4);
		cr_assert_eq(got, want[i], "%zu: %a gave %a", i, xy[i], (double)got);
	}
	rig_buf_release(&b);
}

Test(f32_frame, nan_converts_the_same_in_the_vector_body_and_the_scalar_tail)
{
	double xy[10];
	for (size_t i = 0; i < 10; i++)
		xy[i] = i % 2 ? NAN : -NAN;
	struct rig_buf b;
	rig_buf_init(&b);
	rig_frames__f32_frame(&b, 0, xy, 5); /* 8 in the vector body, 2 in the tail */
	uint32_t body[2], tail[2];
	memcpy(&body[0], (const char *)b.data + 8 + 4 * 6, 4);
	memcpy(&body[1], (const char *)b.data + 8 + 4 * 7, 4);
	memcpy(&tail[0], (const char *)b.data + 8 + 4 * 8, 4);
	memcpy(&tail[1], (const char *)b.data + 8 + 4 * 9, 4);
	for (int k = 0; k < 2; k++) {
		float f;
		memcpy(&f, &tail[k], 4);
		cr_assert(isnan(f), "the tail kept NaN");
		cr_assert_eq(body[k], tail[k], "NaN bits %08x vs %08x", body[k], tail[k]);
	}
	rig_buf_release(&b);
}
