/* The tessellation request's decoder: api/edit/tessellate_input.h. */
#include "api/edit/tessellate_input.h"

#include <nettle/base64.h>
#include <stdlib.h>
#include <string.h>

#include "core/rig_limits.h"

/* Reads ring (an array of [x, y]) at key's pointer into xy (2 · n doubles of
 * room). Returns 0 or -1 after recording why. */
static int read_ring(const struct rig_jr *jr, const char *key, json_t *ring, double *xy)
{
	size_t i;
	json_t *pt;
	json_array_foreach(ring, i, pt)
	{
		char at[64];
		snprintf(at, sizeof at, "%s/%zu", key, i);
		if (!json_is_array(pt) || json_array_size(pt) != 2 ||
		    !json_is_number(json_array_get(pt, 0)) ||
		    !json_is_number(json_array_get(pt, 1)))
			return rig_jr_fail(jr, at, "point %zu must be [x, y], two numbers", i);
		xy[2 * i] = json_number_value(json_array_get(pt, 0));
		xy[2 * i + 1] = json_number_value(json_array_get(pt, 1));
	}
	return 0;
}

/* The points a ring member holds, or -1 after recording why it is not an
 * array of at most RIG_MAX_POLYGON_POINTS points. */
static long ring_size(const struct rig_jr *jr, const char *key, json_t *ring)
{
	if (!json_is_array(ring))
		return rig_jr_fail(jr, key, "'%s' must be an array of [x, y] points", key);
	size_t n = json_array_size(ring);
	if (n > RIG_MAX_POLYGON_POINTS) {
		struct rig_jr pjr = *jr;
		pjr.code = RIG_TESSELLATE_POLYGON;
		return rig_jr_fail(&pjr, key, "a ring of %zu points; the limit is %d", n,
				   RIG_MAX_POLYGON_POINTS);
	}
	return (long)n;
}

static int decode_rings(struct rig_tess_input *out, const struct rig_jr *jr, json_t *polygon,
			json_t *holes)
{
	long n_outline = ring_size(jr, "polygon", polygon);
	if (n_outline < 0)
		return -1;
	size_t n_holes = 0, total = (size_t)n_outline;
	if (holes) {
		if (!json_is_array(holes))
			return rig_jr_fail(jr, "holes", "'holes' must be an array of rings");
		n_holes = json_array_size(holes);
		for (size_t h = 0; h < n_holes; h++) {
			char key[32];
			snprintf(key, sizeof key, "holes/%zu", h);
			long n = ring_size(jr, key, json_array_get(holes, h));
			if (n < 0)
				return -1;
			total += (size_t)n;
		}
	}
	out->points = malloc((2 * total + 1) * sizeof *out->points);
	out->holes = calloc(n_holes + 1, sizeof *out->holes);
	if (!out->points || !out->holes)
		return rig_jr_out_of_memory(jr, "polygon");
	if (read_ring(jr, "polygon", polygon, out->points) != 0)
		return -1;
	out->outline = (struct rig_tess_ring){out->points, (size_t)n_outline};
	double *at = out->points + 2 * n_outline;
	for (size_t h = 0; h < n_holes; h++) {
		char key[32];
		snprintf(key, sizeof key, "holes/%zu", h);
		json_t *ring = json_array_get(holes, h);
		if (read_ring(jr, key, ring, at) != 0)
			return -1;
		out->holes[h] = (struct rig_tess_ring){at, json_array_size(ring)};
		at += 2 * json_array_size(ring);
	}
	out->params.outline = &out->outline;
	out->params.holes = out->holes;
	out->params.n_holes = n_holes;
	return 0;
}

/* Decodes the base64 PNG of member image into the plane. */
static int decode_image(struct rig_tess_input *out, const struct rig_jr *jr, const char *text)
{
	size_t n = strlen(text);
	uint8_t *png = malloc(BASE64_DECODE_LENGTH(n) + 1);
	if (!png)
		return rig_jr_out_of_memory(jr, "image");
	struct base64_decode_ctx b64;
	base64_decode_init(&b64);
	size_t got = BASE64_DECODE_LENGTH(n);
	if (!base64_decode_update(&b64, &got, png, n, text) || !base64_decode_final(&b64)) {
		free(png);
		struct rig_jr ijr = *jr;
		ijr.code = RIG_TESSELLATE_IMAGE;
		return rig_jr_fail(&ijr, "image", "'image' is not base64 (RFC 4648, with padding)");
	}
	size_t from = jr->errs->count;
	int rc = rig_png_alpha_decode(&out->plane, png, got, jr->errs);
	free(png);
	if (rc == -2)
		return rig_jr_out_of_memory(jr, "image");
	if (rc != 0) {
		rig_errs_scope(jr->errs, from, jr->op_index, jr->base);
		return -1;
	}
	out->image =
		(struct rig_alpha_image){out->plane.alpha, out->plane.width, out->plane.height};
	out->params.image = &out->image;
	return 0;
}

int rig_tess_input_decode(struct rig_tess_input *out, const struct rig_jr *jr, json_t *obj)
{
	static const char *const allowed[] = {"width",     "height",         "pivot", "density",
					      "expansion", "mode",           "image", "polygon",
					      "holes",     "alphaThreshold", NULL};
	memset(out, 0, sizeof *out);
	rig_tess_params_init(&out->params);
	if (!json_is_object(obj))
		return rig_jr_fail(jr, "", "the tessellation must be an object");
	size_t before = jr->errs->total;
	rig_jr_known(jr, obj, allowed);
	struct rig_tess_params *p = &out->params;
	long long density = 0, threshold = p->alpha_threshold;
	const char *mode = NULL, *image = NULL;
	rig_jr_number(jr, obj, "width", true, &p->width, NULL);
	rig_jr_number(jr, obj, "height", true, &p->height, NULL);
	rig_jr_int(jr, obj, "density", true, 0, 1000000, &density, NULL);
	rig_jr_number(jr, obj, "expansion", false, &p->expansion, NULL);
	rig_jr_int(jr, obj, "alphaThreshold", false, 0, 255, &threshold, NULL);
	if (rig_jr_string(jr, obj, "mode", true, 32, &mode) == 0 && mode &&
	    rig_tess_mode_parse(&p->mode, mode) != 0)
		rig_jr_fail(jr, "mode", "mode '%s' is not grid or silhouette", mode);
	p->density = (int)density;
	p->alpha_threshold = (uint8_t)threshold;
	json_t *pivot = json_object_get(obj, "pivot");
	if (pivot) {
		struct rig_jr pjr = *jr;
		char base[RIG_ERR_POINTER_MAX];
		snprintf(base, sizeof base, "%s/pivot", jr->base);
		pjr.base = base;
		static const char *const xy[] = {"x", "y", NULL};
		if (!json_is_object(pivot))
			rig_jr_fail(jr, "pivot",
				    "'pivot' must be {x, y}, fractions of the rectangle");
		else if (rig_jr_known(&pjr, pivot, xy) == 0) {
			rig_jr_number(&pjr, pivot, "x", true, &p->pivot_x, NULL);
			rig_jr_number(&pjr, pivot, "y", true, &p->pivot_y, NULL);
		}
	}
	json_t *polygon = json_object_get(obj, "polygon"), *holes = json_object_get(obj, "holes");
	if (json_object_get(obj, "image") && polygon)
		rig_jr_fail(jr, "polygon", "give an image or a polygon, not both");
	else if (holes && !polygon)
		rig_jr_fail(jr, "holes", "holes need a polygon");
	else if (polygon)
		decode_rings(out, jr, polygon, holes);
	else if (rig_jr_string(jr, obj, "image", false, (size_t)1 << 30, &image) == 0 && image)
		decode_image(out, jr, image);
	if (jr->errs->total > before)
		return -1;
	size_t from = jr->errs->count;
	if (rig_tess_params_check(p, jr->errs) != 0) {
		rig_errs_scope(jr->errs, from, jr->op_index, jr->base);
		return -1;
	}
	return 0;
}

void rig_tess_input_release(struct rig_tess_input *in)
{
	rig_alpha_plane_release(&in->plane);
	free(in->points);
	free(in->holes);
	memset(in, 0, sizeof *in);
}
