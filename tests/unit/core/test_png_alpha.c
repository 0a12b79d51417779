/* Unit tests of core/png_alpha.c: PNGs drawn here and encoded with libspng's
 * encoder (every colour type, bit depths 1 to 16, tRNS, Adam7), decoded and
 * compared with the alpha the test computes itself; damaged, truncated and
 * oversized files (headers crafted by hand, CRCs computed here) are
 * TESSELLATE_IMAGE or TESSELLATE_IMAGE_TOO_LARGE.
 */
#include <criterion/criterion.h>
#include <spng.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/png_alpha.h"
#include "core/rig_limits.h"
#include "tests/unit/core/support.h"

/* ---- encoding ---- */

struct png {
	uint8_t *bytes;
	size_t n;
};

/* Encodes raw PNG-layout pixels (SPNG_FMT_PNG: packed rows, host-endian
 * 16-bit samples) with optional palette, tRNS and text chunks. */
static struct png encode_ex(const void *pixels, size_t len, uint32_t w, uint32_t h, int depth,
			    int colour, int interlace, struct spng_plte *plte,
			    struct spng_trns *trns, struct spng_text *text)
{
	spng_ctx *enc = spng_ctx_new(SPNG_CTX_ENCODER);
	cr_assert_not_null(enc);
	cr_assert_eq(spng_set_option(enc, SPNG_ENCODE_TO_BUFFER, 1), 0);
	struct spng_ihdr ihdr = {0};
	ihdr.width = w;
	ihdr.height = h;
	ihdr.bit_depth = (uint8_t)depth;
	ihdr.color_type = (uint8_t)colour;
	ihdr.interlace_method = (uint8_t)interlace;
	cr_assert_eq(spng_set_ihdr(enc, &ihdr), 0);
	if (plte)
		cr_assert_eq(spng_set_plte(enc, plte), 0);
	if (trns)
		cr_assert_eq(spng_set_trns(enc, trns), 0);
	if (text)
		cr_assert_eq(spng_set_text(enc, text, 1), 0);
	int err = spng_encode_image(enc, pixels, len, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
	cr_assert_eq(err, 0, "encode: %s", spng_strerror(err));
	struct png out = {0};
	out.bytes = spng_get_png_buffer(enc, &out.n, &err);
	cr_assert_not_null(out.bytes, "buffer: %s", spng_strerror(err));
	spng_ctx_free(enc);
	return out;
}

static struct png encode(const void *pixels, size_t len, uint32_t w, uint32_t h, int depth,
			 int colour, int interlace)
{
	return encode_ex(pixels, len, w, h, depth, colour, interlace, NULL, NULL, NULL);
}

/* Decodes and expects success: the plane, w × h. */
static struct rig_alpha_plane decode_ok(const struct png *png, size_t w, size_t h)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_alpha_plane plane;
	int rc = rig_png_alpha_decode(&plane, png->bytes, png->n, errs);
	cr_assert_eq(rc, 0, "decode: %s", errs->count ? errs->items[0].detail : "?");
	cr_assert_eq(plane.width, w);
	cr_assert_eq(plane.height, h);
	rig_errs_free(errs);
	return plane;
}

/* Decodes bytes and expects -1 with exactly one error of this code at /image. */
static void decode_fails(const void *bytes, size_t n, enum rig_code code)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_alpha_plane plane;
	memset(&plane, 0xA5, sizeof plane);
	cr_assert_eq(rig_png_alpha_decode(&plane, bytes, n, errs), -1);
	cr_assert_eq(errs->count, 1);
	cr_assert_eq(errs->items[0].code, code, "got %s", errs->items[0].detail);
	cr_assert_str_eq(errs->items[0].pointer, "/image");
	cr_assert_null(plane.alpha);
	cr_assert_eq(plane.width, 0);
	cr_assert_eq(plane.height, 0);
	rig_errs_free(errs);
}

/* The test's alpha of pixel (x, y): any function of both, every value reached. */
static uint8_t alpha_at(size_t x, size_t y)
{
	return (uint8_t)((x * 37 + y * 101 + (x * y) % 7) & 255);
}

/* ---- colour types ---- */

Test(png_alpha, rgba8_keeps_every_alpha_byte)
{
	size_t w = 37, h = 23;
	uint8_t *px = malloc(4 * w * h);
	for (size_t y = 0; y < h; y++)
		for (size_t x = 0; x < w; x++) {
			uint8_t *p = &px[4 * (y * w + x)];
			p[0] = (uint8_t)x, p[1] = (uint8_t)y, p[2] = 9, p[3] = alpha_at(x, y);
		}
	struct png png = encode(px, 4 * w * h, (uint32_t)w, (uint32_t)h, 8,
				SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 0);
	struct rig_alpha_plane plane = decode_ok(&png, w, h);
	for (size_t y = 0; y < h; y++)
		for (size_t x = 0; x < w; x++)
			cr_assert_eq(plane.alpha[y * w + x], alpha_at(x, y), "pixel (%zu, %zu)", x,
				     y);
	rig_alpha_plane_release(&plane);
	cr_assert_null(plane.alpha);
	free(png.bytes);
	free(px);
}

Test(png_alpha, adam7_interlaced_rgba8_fills_every_pixel)
{
	size_t w = 29, h = 19; /* not multiples of 8: every pass partial */
	uint8_t *px = malloc(4 * w * h);
	for (size_t i = 0; i < w * h; i++) {
		px[4 * i] = px[4 * i + 1] = px[4 * i + 2] = 200;
		px[4 * i + 3] = alpha_at(i % w, i / w);
	}
	struct png png = encode(px, 4 * w * h, (uint32_t)w, (uint32_t)h, 8,
				SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 1);
	struct rig_alpha_plane plane = decode_ok(&png, w, h);
	for (size_t y = 0; y < h; y++)
		for (size_t x = 0; x < w; x++)
			cr_assert_eq(plane.alpha[y * w + x], alpha_at(x, y), "pixel (%zu, %zu)", x,
				     y);
	rig_alpha_plane_release(&plane);
	free(png.bytes);
	free(px);
}

Test(png_alpha, rgba16_keeps_the_high_byte)
{
	size_t w = 9, h = 5;
	uint16_t *px = malloc(8 * w * h);
	for (size_t i = 0; i < w * h; i++) {
		px[4 * i] = px[4 * i + 1] = px[4 * i + 2] = 1000;
		/* v · 257 is v in both bytes: 8-bit v whether the decoder rounds or truncates */
		px[4 * i + 3] = (uint16_t)(alpha_at(i % w, i / w) * 257u);
	}
	struct png png = encode(px, 8 * w * h, (uint32_t)w, (uint32_t)h, 16,
				SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 0);
	struct rig_alpha_plane plane = decode_ok(&png, w, h);
	for (size_t i = 0; i < w * h; i++)
		cr_assert_eq(plane.alpha[i], alpha_at(i % w, i / w));
	rig_alpha_plane_release(&plane);
	free(png.bytes);
	free(px);
}

Test(png_alpha, gray_alpha8_keeps_alpha)
{
	size_t w = 11, h = 13;
	uint8_t *px = malloc(2 * w * h);
	for (size_t i = 0; i < w * h; i++) {
		px[2 * i] = 77;
		px[2 * i + 1] = alpha_at(i % w, i / w);
	}
	struct png png = encode(px, 2 * w * h, (uint32_t)w, (uint32_t)h, 8,
				SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 0);
	struct rig_alpha_plane plane = decode_ok(&png, w, h);
	for (size_t i = 0; i < w * h; i++)
		cr_assert_eq(plane.alpha[i], alpha_at(i % w, i / w));
	rig_alpha_plane_release(&plane);
	free(png.bytes);
	free(px);
}

Test(png_alpha, rgb_and_gray_without_trns_are_opaque)
{
	size_t w = 6, h = 4;
	uint8_t rgb[3 * 6 * 4], gray[6 * 4];
	for (size_t i = 0; i < w * h; i++) {
		rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = (uint8_t)i;
		gray[i] = (uint8_t)(i * 9);
	}
	struct png a = encode(rgb, sizeof rgb, 6, 4, 8, SPNG_COLOR_TYPE_TRUECOLOR, 0);
	struct png b = encode(gray, sizeof gray, 6, 4, 8, SPNG_COLOR_TYPE_GRAYSCALE, 0);
	struct rig_alpha_plane pa = decode_ok(&a, w, h), pb = decode_ok(&b, w, h);
	for (size_t i = 0; i < w * h; i++) {
		cr_assert_eq(pa.alpha[i], 255);
		cr_assert_eq(pb.alpha[i], 255);
	}
	rig_alpha_plane_release(&pa);
	rig_alpha_plane_release(&pb);
	free(a.bytes);
	free(b.bytes);
}

Test(png_alpha, gray_trns_makes_its_key_transparent)
{
	size_t w = 8, h = 3;
	uint8_t gray[8 * 3];
	for (size_t i = 0; i < w * h; i++)
		gray[i] = i % 3 == 0 ? 100 : (uint8_t)(i + 101);
	struct spng_trns trns = {0};
	trns.gray = 100;
	struct png png = encode_ex(gray, sizeof gray, 8, 3, 8, SPNG_COLOR_TYPE_GRAYSCALE, 0, NULL,
				   &trns, NULL);
	struct rig_alpha_plane plane = decode_ok(&png, w, h);
	for (size_t i = 0; i < w * h; i++)
		cr_assert_eq(plane.alpha[i], i % 3 == 0 ? 0 : 255, "pixel %zu", i);
	rig_alpha_plane_release(&plane);
	free(png.bytes);
}

Test(png_alpha, one_bit_gray_with_trns)
{
	/* 10 × 2 at 1 bit: rows of 2 bytes, the last 6 bits padding */
	size_t w = 10, h = 2;
	uint8_t rows[4];
	bool bit[20];
	for (size_t i = 0; i < w * h; i++)
		bit[i] = (i * 7) % 3 == 1;
	memset(rows, 0, sizeof rows);
	for (size_t y = 0; y < h; y++)
		for (size_t x = 0; x < w; x++)
			if (bit[y * w + x])
				rows[2 * y + x / 8] |= (uint8_t)(0x80u >> (x % 8));
	struct spng_trns trns = {0};
	trns.gray = 1;
	struct png png = encode_ex(rows, sizeof rows, 10, 2, 1, SPNG_COLOR_TYPE_GRAYSCALE, 0, NULL,
				   &trns, NULL);
	struct rig_alpha_plane plane = decode_ok(&png, w, h);
	for (size_t i = 0; i < w * h; i++)
		cr_assert_eq(plane.alpha[i], bit[i] ? 0 : 255, "pixel %zu", i);
	rig_alpha_plane_release(&plane);
	free(png.bytes);
}

Test(png_alpha, rgb_trns_makes_its_key_colour_transparent)
{
	size_t w = 5, h = 5;
	uint8_t rgb[3 * 25];
	for (size_t i = 0; i < w * h; i++) {
		bool key = (i % 4) == 1;
		rgb[3 * i] = key ? 10 : 10;
		rgb[3 * i + 1] = key ? 20 : 21;
		rgb[3 * i + 2] = key ? 30 : 30;
	}
	struct spng_trns trns = {0};
	trns.red = 10, trns.green = 20, trns.blue = 30;
	struct png png = encode_ex(rgb, sizeof rgb, 5, 5, 8, SPNG_COLOR_TYPE_TRUECOLOR, 0, NULL,
				   &trns, NULL);
	struct rig_alpha_plane plane = decode_ok(&png, w, h);
	for (size_t i = 0; i < w * h; i++)
		cr_assert_eq(plane.alpha[i], i % 4 == 1 ? 0 : 255, "pixel %zu", i);
	rig_alpha_plane_release(&plane);
	free(png.bytes);
}

Test(png_alpha, indexed_trns_gives_each_entry_its_alpha)
{
	/* 4 entries with alphas 0, 90, 200 and (past the tRNS list) opaque */
	struct spng_plte plte = {0};
	plte.n_entries = 4;
	for (uint32_t k = 0; k < 4; k++)
		plte.entries[k].red = (uint8_t)(k * 50);
	struct spng_trns trns = {0};
	trns.n_type3_entries = 3;
	trns.type3_alpha[0] = 0, trns.type3_alpha[1] = 90, trns.type3_alpha[2] = 200;
	const uint8_t expect[4] = {0, 90, 200, 255};
	size_t w = 7, h = 6;
	uint8_t idx[7 * 6];
	for (size_t i = 0; i < w * h; i++)
		idx[i] = (uint8_t)((i * 5) % 4);
	struct png png =
		encode_ex(idx, sizeof idx, 7, 6, 8, SPNG_COLOR_TYPE_INDEXED, 0, &plte, &trns, NULL);
	struct rig_alpha_plane plane = decode_ok(&png, w, h);
	for (size_t i = 0; i < w * h; i++)
		cr_assert_eq(plane.alpha[i], expect[idx[i]], "pixel %zu", i);
	rig_alpha_plane_release(&plane);
	free(png.bytes);
}

Test(png_alpha, one_pixel)
{
	uint8_t px[4] = {1, 2, 3, 44};
	struct png png = encode(px, 4, 1, 1, 8, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 0);
	struct rig_alpha_plane plane = decode_ok(&png, 1, 1);
	cr_assert_eq(plane.alpha[0], 44);
	rig_alpha_plane_release(&plane);
	free(png.bytes);
}

/* ---- unreadable bytes ---- */

Test(png_alpha, rejects_bytes_that_are_not_a_png)
{
	const char text[] = "GIF89a, certainly not a PNG file at all";
	decode_fails(text, sizeof text, RIG_TESSELLATE_IMAGE);
	decode_fails(text, 0, RIG_TESSELLATE_IMAGE);
	decode_fails(NULL, 0, RIG_TESSELLATE_IMAGE);
	const uint8_t sig_only[8] = {137, 80, 78, 71, 13, 10, 26, 10};
	decode_fails(sig_only, sizeof sig_only, RIG_TESSELLATE_IMAGE);
}

Test(png_alpha, rejects_every_truncation)
{
	size_t w = 40, h = 30;
	uint8_t *px = malloc(4 * w * h);
	for (size_t i = 0; i < w * h; i++)
		px[4 * i] = px[4 * i + 1] = px[4 * i + 2] = px[4 * i + 3] = (uint8_t)(i * 13);
	struct png png = encode(px, 4 * w * h, (uint32_t)w, (uint32_t)h, 8,
				SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 0);
	/* every cut inside the signature, the IHDR, the IDAT and the IEND */
	for (size_t cut = 1; cut < png.n; cut++)
		decode_fails(png.bytes, cut, RIG_TESSELLATE_IMAGE);
	free(png.bytes);
	free(px);
}

Test(png_alpha, rejects_a_damaged_crc)
{
	size_t w = 16, h = 16;
	uint8_t px[4 * 16 * 16];
	for (size_t i = 0; i < sizeof px; i++)
		px[i] = (uint8_t)(i * 3);
	struct png png = encode(px, sizeof px, (uint32_t)w, (uint32_t)h, 8,
				SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 0);
	/* a byte of the IDAT's data (after signature 8, IHDR 25, IDAT length and type 8) */
	png.bytes[8 + 25 + 8 + 3] ^= 0x40;
	decode_fails(png.bytes, png.n, RIG_TESSELLATE_IMAGE);
	free(png.bytes);
}

Test(png_alpha, rejects_an_ancillary_chunk_past_the_limit)
{
	/* a 5 MiB tEXt chunk: past the 4 MiB the ancillary chunks may hold together */
	size_t len = 5u << 20;
	char *blob = malloc(len + 1);
	memset(blob, 'a', len);
	blob[len] = 0;
	struct spng_text text;
	memset(&text, 0, sizeof text);
	rig_strlcpy(text.keyword, "Comment", sizeof text.keyword);
	text.type = SPNG_TEXT;
	text.length = len;
	text.text = blob;
	uint8_t px[4] = {0, 0, 0, 255};
	struct png png =
		encode_ex(px, 4, 1, 1, 8, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 0, NULL, NULL, &text);
	decode_fails(png.bytes, png.n, RIG_TESSELLATE_IMAGE);
	free(png.bytes);
	free(blob);
}

/* ---- sizes, from a header crafted here ---- */

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
	}
	return c ^ 0xFFFFFFFFu;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Signature and an IHDR of a w × h 8-bit RGBA image, nothing after it (33 bytes). */
static void craft_header(uint8_t out[33], uint32_t w, uint32_t h)
{
	const uint8_t sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
	memcpy(out, sig, 8);
	put32(&out[8], 13);
	memcpy(&out[12], "IHDR", 4);
	put32(&out[16], w);
	put32(&out[20], h);
	out[24] = 8, out[25] = 6, out[26] = 0, out[27] = 0, out[28] = 0;
	put32(&out[29], crc32_of(&out[12], 17));
}

Test(png_alpha, too_large_past_either_limit_from_the_header_alone)
{
	uint8_t hdr[33];
	const uint32_t sizes[][2] = {
		{RIG_MAX_IMAGE_SIDE + 1, 1},               /* a side past, few pixels */
		{1, RIG_MAX_IMAGE_SIDE + 1}, {4097, 4096}, /* both sides fine, pixels past */
		{RIG_MAX_IMAGE_SIDE, 1025},                /* 16384 · 1025 */
		{2147483647u, 2147483647u},                /* the format's largest */
	};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		craft_header(hdr, sizes[k][0], sizes[k][1]);
		decode_fails(hdr, sizeof hdr, RIG_TESSELLATE_IMAGE_TOO_LARGE);
	}
}

Test(png_alpha, at_the_limits_the_size_is_accepted)
{
	/* Headers exactly at the limits pass the size check (and then miss their data). */
	uint8_t hdr[33];
	const uint32_t sizes[][2] = {
		{4096, 4096}, {RIG_MAX_IMAGE_SIDE, 1024}, {1, RIG_MAX_IMAGE_SIDE}};
	for (size_t k = 0; k < 3; k++) {
		craft_header(hdr, sizes[k][0], sizes[k][1]);
		decode_fails(hdr, sizeof hdr, RIG_TESSELLATE_IMAGE);
	}
	/* A width of 0 is no PNG. */
	craft_header(hdr, 0, 5);
	decode_fails(hdr, sizeof hdr, RIG_TESSELLATE_IMAGE);
}

Test(png_alpha, decodes_an_image_of_the_largest_size)
{
	/* 16384 × 1024 = RIG_MAX_IMAGE_PIXELS at 1 bit: 2 MiB to encode */
	uint32_t w = RIG_MAX_IMAGE_SIDE, h = RIG_MAX_IMAGE_PIXELS / RIG_MAX_IMAGE_SIDE;
	size_t row = w / 8;
	uint8_t *bits = calloc(row * h, 1);
	for (size_t y = 0; y < h; y++)
		bits[y * row + (y % row)] = 0x80;
	struct spng_trns trns = {0};
	trns.gray = 1;
	struct png png =
		encode_ex(bits, row * h, w, h, 1, SPNG_COLOR_TYPE_GRAYSCALE, 0, NULL, &trns, NULL);
	struct rig_alpha_plane plane = decode_ok(&png, w, h);
	for (size_t y = 0; y < h; y += 97) {
		size_t x = (y % row) * 8;
		cr_assert_eq(plane.alpha[y * w + x], 0);
		cr_assert_eq(plane.alpha[y * w + x + 1], 255);
	}
	rig_alpha_plane_release(&plane);
	free(png.bytes);
	free(bits);
}
