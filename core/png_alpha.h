/* PNG bytes to an alpha plane (struct rig_alpha_image, core/tessellate.h),
 * decoded with libspng (Debian's libspng-dev; docs/decisions.md): every
 * colour type and bit depth, tRNS honoured, an image without alpha opaque.
 * The size is checked from the header before any pixel is decoded; rows are
 * decoded one at a time, so the plane is the only image-sized memory held.
 * Ancillary chunks needing memory are capped (1 MiB each, 4 MiB together)
 * and a file must end in a whole IEND chunk. No I/O.
 */
#ifndef RIG_PNG_ALPHA_H
#define RIG_PNG_ALPHA_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* A decoded plane: owns alpha (width · height bytes, row 0 the top row). */
struct rig_alpha_plane {
	uint8_t *alpha;
	size_t width, height;
};

void rig_alpha_plane_release(struct rig_alpha_plane *p);

/* Decodes n bytes of PNG into *out. Returns 0; -1 with TESSELLATE_IMAGE
 * recorded (not a PNG, damaged, truncated) or TESSELLATE_IMAGE_TOO_LARGE
 * (more than RIG_MAX_IMAGE_PIXELS pixels or a side past RIG_MAX_IMAGE_SIDE),
 * pointer "/image"; -2 when out of memory. *out is zeroed on failure. */
int rig_png_alpha_decode(struct rig_alpha_plane *out, const void *png, size_t n,
			 struct rig_errs *errs);

#endif
