/* The tessellation request, {width, height, pivot?, density, expansion?, mode,
 * image? | polygon? (+ holes?), alphaThreshold?}, decoded from JSON into
 * core/tessellate.h's params: POST /v1/tessellate's body and the tessellate
 * member of layer.mesh.generate and layer.rig.auto read it here, once. The
 * image is base64 PNG, decoded (core/png_alpha.h) while the request is read,
 * so its errors are the request's.
 */
#ifndef RIG_EDIT_TESSELLATE_INPUT_H
#define RIG_EDIT_TESSELLATE_INPUT_H

#include <jansson.h>

#include "api/util/jsonread.h"
#include "core/png_alpha.h"
#include "core/tessellate.h"

/* A decoded request: owns the image plane and the rings' points. */
struct rig_tess_input {
	struct rig_tess_params params; /* points into the members below */
	struct rig_alpha_plane plane;
	struct rig_alpha_image image;
	double *points; /* every ring's points, the outline's first */
	struct rig_tess_ring outline;
	struct rig_tess_ring *holes;
};

/* Decodes obj (the request object, at jr's base) into *out, recording every
 * violation under jr (its code for shapes; the core's codes for the rules:
 * INVALID_FIELD, TESSELLATE_POLYGON, TESSELLATE_IMAGE, _TOO_LARGE; MEMORY_BUSY
 * when out of memory). Returns 0 or -1; release *out either way. */
int rig_tess_input_decode(struct rig_tess_input *out, const struct rig_jr *jr, json_t *obj);

void rig_tess_input_release(struct rig_tess_input *in);

#endif
