/* The f32 frame encoder: little-endian floats exactly as the (float) cast
 * rounds them, for every length (the vector body and the scalar tail); a
 * frame with a value that does not fit a float (rounds to ±infinity, or NaN)
 * is refused whole, wherever the value sits, and reported per vertex. Version
 * 2: the header says 2, a frame record is tag 1 and its byteLength before the
 * version 1 frame, an error record is tag 2, byteLength, frame, problem. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "api/handlers/frames.h"
#include "api/util/textbuf.h"

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
					  -(double)(x >> 20),
					  1.0 + (double)((x >> 40) | 1) * 0x1p-53};
			xy[i] = pick[i % 4];
		}
		struct rig_buf b;
		rig_buf_init(&b);
		cr_assert_eq(rig_frames__f32_frame(&b, 12.5, xy, n), 0);
		cr_assert_eq(b.len, 8 + 8 * n);
		double frame;
		memcpy(&frame, b.data, 8);
		cr_assert_eq(frame, 12.5);
		for (size_t i = 0; i < 2 * n; i++) {
			const unsigned char *p = (const unsigned char *)b.data + 8 + 4 * i;
			uint32_t bits = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
					(uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
			float want = (float)xy[i]; /* every value is in float range */
			uint32_t want_bits;
			memcpy(&want_bits, &want, 4);
			cr_assert_eq(bits, want_bits, "n=%zu i=%zu: %a", n, i, xy[i]);
		}
		rig_buf_release(&b);
	}
}

Test(f32_frame, values_that_round_to_flt_max_are_kept)
{
	/* Below the halfway point to 2^128 a double rounds to ±FLT_MAX: it fits. */
	double xy[6] = {(double)FLT_MAX,
			-(double)FLT_MAX,
			(double)FLT_MAX + 0x1p102,
			1e38,
			-(double)FLT_MAX - 0x1p102,
			(double)FLT_MAX + 0x1p102};
	float want[6] = {FLT_MAX, -FLT_MAX, FLT_MAX, 1e38f, -FLT_MAX, FLT_MAX};
	struct rig_buf b;
	rig_buf_init(&b);
	cr_assert_eq(rig_frames__f32_frame(&b, 0, xy, 3), 0);
	for (size_t i = 0; i < 6; i++) {
		float got;
		memcpy(&got, (const char *)b.data + 8 + 4 * i, 4);
		cr_assert_eq(got, want[i], "%zu: %a gave %a", i, xy[i], (double)got);
	}
	rig_buf_release(&b);
}

Test(f32_frame, a_value_beyond_the_float_range_refuses_the_frame_wherever_it_is)
{
	/* Each bad value at every position of frames of 1 to 9 vertices: the
	 * vector body (four at a time) and the scalar tail both catch it. */
	const double bad[] = {(double)FLT_MAX * 2,
			      -(double)FLT_MAX * 2,
			      (double)FLT_MAX + 0x1p103,
			      -(double)FLT_MAX - 0x1p103,
			      1e39,
			      1e300,
			      -1e300,
			      INFINITY,
			      -INFINITY,
			      NAN,
			      -NAN};
	double xy[2 * 9];
	for (size_t n = 1; n <= 9; n++) {
		for (size_t at = 0; at < 2 * n; at++) {
			for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
				for (size_t i = 0; i < 2 * n; i++)
					xy[i] = (double)i - 3.5;
				xy[at] = bad[k];
				struct rig_buf b;
				rig_buf_init(&b);
				rig_buf_puts(&b, "head");
				cr_assert_eq(rig_frames__f32_frame(&b, 1, xy, n), -1,
					     "n=%zu at=%zu %a", n, at, bad[k]);
				cr_assert_eq(b.len, 4, "the buffer is left as it was");
				cr_assert_eq(memcmp(b.data, "head", 4), 0);
				rig_buf_release(&b);
			}
		}
	}
}

Test(f32_frame, the_report_names_every_vertex_that_does_not_fit)
{
	/* Vertices 1 (y) and 3 (x) overflow; vertex 2 rounds to FLT_MAX. */
	double xy[8] = {0, 0, 1, 1e39, (double)FLT_MAX + 0x1p102, 2, -1e300, 3};
	uint32_t tris[6] = {0, 2, 3, 0, 1, 2};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_buf b;
	rig_buf_init(&b);
	cr_assert_eq(rig_frames__f32_frame(&b, 7.5, xy, 4), -1);
	rig_frames__f32_report(errs, xy, 4, tris, 2, "arm", 7.5);
	cr_assert_eq(errs->total, 2);
	cr_assert_eq(errs->items[0].code, RIG_MESH_GEOMETRY);
	cr_assert_eq(errs->items[0].vertex_index, 1);
	cr_assert_eq(errs->items[0].triangle_index, 1);
	cr_assert_eq(errs->items[1].vertex_index, 3);
	cr_assert_eq(errs->items[1].triangle_index, 0);
	for (int i = 0; i < 2; i++) {
		cr_assert_str_eq(errs->items[i].layer_id, "arm");
		cr_assert(errs->items[i].has_frame);
		cr_assert_eq(errs->items[i].frame, 7.5);
	}
	cr_assert_str_eq(errs->items[0].detail,
			 "deformed vertex 1 is beyond the float range of format f32");
	rig_buf_release(&b);
	rig_errs_free(errs);
}

static uint32_t u32_at(const struct rig_buf *b, size_t off)
{
	const unsigned char *p = (const unsigned char *)b->data + off;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static double f64_at(const struct rig_buf *b, size_t off)
{
	double v;
	memcpy(&v, b->data + off, 8); /* the tests run on little-endian machines */
	return v;
}

Test(f32_v2, the_header_carries_the_version_asked_for)
{
	for (uint32_t version = 1; version <= 2; version++) {
		struct rig_buf b;
		rig_buf_init(&b);
		rig_frames__f32_header(&b, version, 18, 5);
		cr_assert_eq(b.len, 16);
		cr_assert_eq(memcmp(b.data, "RIGF", 4), 0);
		cr_assert_eq(u32_at(&b, 4), version);
		cr_assert_eq(u32_at(&b, 8), 18);
		cr_assert_eq(u32_at(&b, 12), 5);
		rig_buf_release(&b);
	}
}

Test(f32_v2, a_frame_record_is_tag_and_length_then_the_version_1_frame)
{
	double xy[10] = {0, 1, -2.5, 3e10, 1e-3, 5, 6, -7, 8.25, 9};
	for (size_t n = 1; n <= 5; n++) {
		struct rig_buf plain, tagged;
		rig_buf_init(&plain);
		rig_buf_init(&tagged);
		cr_assert_eq(rig_frames__f32_frame(&plain, 2.5, xy, n), 0);
		cr_assert_eq(rig_frames__f32_tagged_frame(&tagged, 2.5, xy, n), 0);
		cr_assert_eq(tagged.len, 8 + 8 + 8 * n, "records stay 8-aligned");
		cr_assert_eq(u32_at(&tagged, 0), RIG_F32_TAG_FRAME);
		cr_assert_eq(u32_at(&tagged, 4), 8 + 8 * n);
		cr_assert_eq(memcmp(tagged.data + 8, plain.data, plain.len), 0);
		rig_buf_release(&plain);
		rig_buf_release(&tagged);
	}
}

Test(f32_v2, a_refused_frame_record_leaves_the_buffer_as_it_was)
{
	double xy[4] = {1, 2, 1e39, 4};
	struct rig_buf b;
	rig_buf_init(&b);
	rig_buf_puts(&b, "head");
	cr_assert_eq(rig_frames__f32_tagged_frame(&b, 1, xy, 2), -1);
	cr_assert_eq(b.len, 4);
	cr_assert_eq(memcmp(b.data, "head", 4), 0);
	rig_buf_release(&b);
}

Test(f32_v2, an_error_record_is_tag_length_frame_and_the_problem)
{
	const char *problem = "{\"code\":\"MESH_COLLAPSED\",\"detail\":\"triangle 0 collapsed\"}";
	size_t len = strlen(problem);
	struct rig_buf b;
	rig_buf_init(&b);
	rig_frames__f32_error(&b, 5, problem, len);
	cr_assert_eq(b.len, 16 + len);
	cr_assert_eq(u32_at(&b, 0), RIG_F32_TAG_ERROR);
	cr_assert_eq(u32_at(&b, 4), 8 + len, "byteLength counts the frame and the problem");
	cr_assert_eq(f64_at(&b, 8), 5.0);
	cr_assert_eq(memcmp(b.data + 16, problem, len), 0);
	rig_buf_release(&b);
}
