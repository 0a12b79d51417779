/* PNG bytes to an alpha plane (core/png_alpha.h) with libspng.
 *
 * The header is read first and the size checked against RIG_MAX_IMAGE_SIDE
 * and RIG_MAX_IMAGE_PIXELS before any pixel is decoded; then the image is
 * decoded progressively, one row at a time, as RGBA8 with tRNS applied (so
 * every colour type and bit depth, and an image without alpha reads 255),
 * keeping only the alpha byte of each pixel: the plane and one row are all
 * the memory held, never a full RGBA copy. Interlaced images come row by row
 * in Adam7 pass order, each pass filling its own columns of the row buffer;
 * only those columns are copied. Ancillary chunks that need memory (text,
 * ICC profiles) are capped (CHUNK_LIMIT each, CACHE_LIMIT together, spng's
 * chunk limits): a PNG past them is reported unreadable, as is one without a
 * whole IEND chunk at its end. No I/O, no globals.
 */
#include "core/png_alpha.h"

#include <spng.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/rig_limits.h"

/* The largest ancillary chunk kept, and all of them together (bytes). */
#define CHUNK_LIMIT (1u << 20)
#define CACHE_LIMIT (4u << 20)

void rig_alpha_plane_release(struct rig_alpha_plane *p)
{
	free(p->alpha);
	memset(p, 0, sizeof *p);
}

static int image_err(struct rig_errs *errs, const char *what, int spng_rc)
{
	struct rig_err *e =
		rig_errs_add(errs, RIG_TESSELLATE_IMAGE, "image is not a readable PNG: %s",
			     spng_rc ? spng_strerror(spng_rc) : what);
	rig_strlcpy(e->pointer, "/image", sizeof e->pointer);
	return -1;
}

/* True when the bytes hold IEND whole: length 0, type, CRC (fixed, as the
 * chunk has no data), searched from the end (anything after it is ignored,
 * as spng does). */
static bool has_iend(const uint8_t *png, size_t n)
{
	static const uint8_t iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
	for (size_t at = n >= 12 ? n - 12 + 1 : 0; at-- > 0;)
		if (memcmp(&png[at], iend, sizeof iend) == 0)
			return true;
	return false;
}

/* Adam7's columns: pass k fills x = start[k], start[k] + step[k], … */
static const unsigned adam7_x_start[7] = {0, 4, 0, 2, 0, 1, 0};
static const unsigned adam7_x_step[7] = {8, 8, 4, 4, 2, 2, 1};

int rig_png_alpha_decode(struct rig_alpha_plane *out, const void *png, size_t n,
			 struct rig_errs *errs)
{
	int rc = -1;
	memset(out, 0, sizeof *out);
	uint8_t *row = NULL;
	spng_ctx *ctx = spng_ctx_new(0);
	if (!ctx)
		return -2;
	if (!png || n == 0) {
		rc = image_err(errs, "no bytes", 0);
		goto out_free;
	}
	int err = spng_set_png_buffer(ctx, png, n);
	if (!err)
		err = spng_set_chunk_limits(ctx, CHUNK_LIMIT, CACHE_LIMIT);
	/* spng refuses a side past this from the header (SPNG_EUSER_WIDTH/HEIGHT). */
	if (!err)
		err = spng_set_image_limits(ctx, RIG_MAX_IMAGE_SIDE, RIG_MAX_IMAGE_SIDE);
	if (err) {
		rc = err == SPNG_EMEM ? -2 : image_err(errs, NULL, err);
		goto out_free;
	}
	struct spng_ihdr ihdr;
	err = spng_get_ihdr(ctx, &ihdr);
	if (err == SPNG_EUSER_WIDTH || err == SPNG_EUSER_HEIGHT) {
		/* spng has read the IHDR (bytes 16 to 23, big-endian): quote its size */
		const uint8_t *b = png;
		ihdr.width = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 |
			     b[19];
		ihdr.height = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 |
			      b[23];
	} else if (err) {
		rc = err == SPNG_EMEM ? -2 : image_err(errs, NULL, err);
		goto out_free;
	}
	/* Both sides ≤ 2^31 - 1 (the format's limit): the product fits in 64 bits. */
	if (err || ihdr.width > RIG_MAX_IMAGE_SIDE || ihdr.height > RIG_MAX_IMAGE_SIDE ||
	    (uint64_t)ihdr.width * ihdr.height > RIG_MAX_IMAGE_PIXELS) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_TESSELLATE_IMAGE_TOO_LARGE,
				     "image is %lu x %lu pixels, past %d pixels or %d a side",
				     (unsigned long)ihdr.width, (unsigned long)ihdr.height,
				     RIG_MAX_IMAGE_PIXELS, RIG_MAX_IMAGE_SIDE);
		rig_strlcpy(e->pointer, "/image", sizeof e->pointer);
		goto out_free;
	}
	size_t w = ihdr.width, h = ihdr.height;
	out->alpha = malloc(w * h);
	row = malloc(4 * w);
	if (!out->alpha || !row) {
		rc = -2;
		goto out_free;
	}
	err = spng_decode_image(ctx, NULL, 0, SPNG_FMT_RGBA8,
				SPNG_DECODE_TRNS | SPNG_DECODE_PROGRESSIVE);
	if (err) {
		rc = err == SPNG_EMEM ? -2 : image_err(errs, NULL, err);
		goto out_free;
	}
	for (;;) {
		struct spng_row_info info;
		err = spng_get_row_info(ctx, &info);
		if (err)
			break;
		err = spng_decode_row(ctx, row, 4 * w);
		if (err && err != SPNG_EOI)
			break;
		size_t x0 = 0, step = 1;
		if (ihdr.interlace_method && info.pass >= 0 && info.pass < 7) {
			x0 = adam7_x_start[info.pass];
			step = adam7_x_step[info.pass];
		}
		uint8_t *dst = &out->alpha[(size_t)info.row_num * w];
		for (size_t x = x0; x < w; x += step)
			dst[x] = row[4 * x + 3];
		if (err == SPNG_EOI)
			break;
	}
	/* The chunks after the image, to IEND: a file cut there is not whole. */
	if (err == SPNG_EOI)
		err = spng_decode_chunks(ctx);
	if (err) {
		rc = err == SPNG_EMEM ? -2 : image_err(errs, NULL, err);
		goto out_free;
	}
	/* spng stops at IEND's type without its CRC: the whole chunk must be there. */
	if (!has_iend(png, n)) {
		rc = image_err(errs, "no whole IEND chunk (the file is cut short)", 0);
		goto out_free;
	}
	out->width = w;
	out->height = h;
	rc = 0;
out_free:
	if (rc != 0)
		rig_alpha_plane_release(out);
	free(row);
	spng_ctx_free(ctx);
	return rc;
}
