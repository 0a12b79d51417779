/* The tessellation's front (core/tessellate.h): defaults, the params' rules,
 * mode names, the dispatch to the two modes, and the pieces both share (the
 * rectangle's frame, the image sampler, the finishing step). The grid lives
 * in tessellate_grid.c, the silhouette in tessellate_silhouette.c, the
 * polygon rules that need GEOS in tessellate_polygon.c.
 */
#include "core/tessellate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/mesh.h"
#include "core/rig_limits.h"
#include "core/tessellate_impl.h"

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* core/mesh.h's degeneracy limit: |A| ≤ 1e-12 · max(1, bbox diagonal²). */
#define DEGENERATE_RELATIVE 1e-12

/* ------------------------------------------------------------------------ */
/* Names, defaults, release                                                  */
/* ------------------------------------------------------------------------ */

const char *rig_tess_mode_name(enum rig_tess_mode mode)
{
	switch (mode) {
	case RIG_TESS_GRID:
		return "grid";
	case RIG_TESS_SILHOUETTE:
		return "silhouette";
	}
	return NULL;
}

int rig_tess_mode_parse(enum rig_tess_mode *out, const char *name)
{
	if (name && strcmp(name, "grid") == 0) {
		*out = RIG_TESS_GRID;
		return 0;
	}
	if (name && strcmp(name, "silhouette") == 0) {
		*out = RIG_TESS_SILHOUETTE;
		return 0;
	}
	return -1;
}

void rig_tess_params_init(struct rig_tess_params *p)
{
	memset(p, 0, sizeof *p);
	p->pivot_x = 0.5;
	p->pivot_y = 0.5;
	p->mode = RIG_TESS_GRID;
	p->alpha_threshold = 12;
}

void rig_tess_mesh_release(struct rig_tess_mesh *m)
{
	free(m->source);
	free(m->triangles);
	free(m->uvs);
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------------ */
/* The params' rules                                                         */
/* ------------------------------------------------------------------------ */

static void field_err(struct rig_errs *errs, const char *pointer, const char *fmt, double value)
{
	struct rig_err *e = rig_errs_add(errs, RIG_INVALID_FIELD, fmt, value);
	rig_strlcpy(e->pointer, pointer, sizeof e->pointer);
}

/* The rules one ring keeps without GEOS: 3 to RIG_MAX_POLYGON_POINTS points,
 * all finite. Returns true when the ring passes them. */
static bool check_ring_points(const struct rig_tess_ring *ring, const char *prefix,
			      const char *what, struct rig_errs *errs)
{
	if (ring->n < 3 || ring->n > RIG_MAX_POLYGON_POINTS || !ring->xy) {
		struct rig_err *e = rig_errs_add(errs, RIG_TESSELLATE_POLYGON,
						 "%s has %zu points, outside [3, %d]", what,
						 ring->xy ? ring->n : 0, RIG_MAX_POLYGON_POINTS);
		rig_strlcpy(e->pointer, prefix, sizeof e->pointer);
		return false;
	}
	bool ok = true;
	for (size_t i = 0; i < ring->n; i++) {
		if (isfinite(ring->xy[2 * i]) && isfinite(ring->xy[2 * i + 1]))
			continue;
		struct rig_err *e =
			rig_errs_add(errs, RIG_TESSELLATE_POLYGON,
				     "%s point %zu has a non-finite coordinate", what, i);
		e->vertex_index = (long)i;
		snprintf(e->pointer, sizeof e->pointer, "%s/%zu", prefix, i);
		ok = false;
	}
	return ok;
}

int rig_tess_params_check(const struct rig_tess_params *p, struct rig_errs *errs)
{
	size_t before = errs->total;
	if (!(p->width > 0) || !isfinite(p->width))
		field_err(errs, "/width", "width is %g, not a finite number above 0", p->width);
	if (!(p->height > 0) || !isfinite(p->height))
		field_err(errs, "/height", "height is %g, not a finite number above 0", p->height);
	if (!isfinite(p->pivot_x) || !isfinite(p->pivot_y)) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_INVALID_FIELD, "pivot (%g, %g) is not finite",
				     p->pivot_x, p->pivot_y);
		rig_strlcpy(e->pointer, "/pivot", sizeof e->pointer);
	}
	if (!(p->expansion >= 0) || !isfinite(p->expansion))
		field_err(errs, "/expansion", "expansion is %g, not a finite number of at least 0",
			  p->expansion);
	if (p->density < RIG_MIN_TESS_DENSITY || p->density > RIG_MAX_TESS_DENSITY) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_INVALID_FIELD, "density is %d, outside [%d, %d]",
				     p->density, RIG_MIN_TESS_DENSITY, RIG_MAX_TESS_DENSITY);
		rig_strlcpy(e->pointer, "/density", sizeof e->pointer);
	}
	if (!rig_tess_mode_name(p->mode)) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_INVALID_FIELD,
				     "mode %d is neither 'grid' nor 'silhouette'", (int)p->mode);
		rig_strlcpy(e->pointer, "/mode", sizeof e->pointer);
	}
	if (p->image && p->outline) {
		struct rig_err *e = rig_errs_add(errs, RIG_INVALID_FIELD,
						 "coverage is an image or a polygon, not both");
		rig_strlcpy(e->pointer, "/polygon", sizeof e->pointer);
	}
	if (p->image) {
		const struct rig_alpha_image *img = p->image;
		if (!img->alpha || img->width == 0 || img->height == 0) {
			struct rig_err *e =
				rig_errs_add(errs, RIG_INVALID_FIELD,
					     "image is %zu x %zu pixels, not at least 1 x 1",
					     img->width, img->height);
			rig_strlcpy(e->pointer, "/image", sizeof e->pointer);
		} else if (img->width > RIG_MAX_IMAGE_SIDE || img->height > RIG_MAX_IMAGE_SIDE ||
			   img->width * img->height > RIG_MAX_IMAGE_PIXELS) {
			/* (both sides ≤ 16384 before the product: no overflow) */
			struct rig_err *e = rig_errs_add(
				errs, RIG_TESSELLATE_IMAGE_TOO_LARGE,
				"image is %zu x %zu pixels, past %d pixels or %d a side",
				img->width, img->height, RIG_MAX_IMAGE_PIXELS, RIG_MAX_IMAGE_SIDE);
			rig_strlcpy(e->pointer, "/image", sizeof e->pointer);
		}
	}
	if (p->n_holes > 0 && (!p->outline || !p->holes)) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_INVALID_FIELD,
				     "%zu holes without a polygon around them", p->n_holes);
		rig_strlcpy(e->pointer, "/holes", sizeof e->pointer);
	}
	if (p->outline) {
		bool rings_ok = check_ring_points(p->outline, "/polygon", "polygon", errs);
		for (size_t h = 0; p->holes && h < p->n_holes; h++) {
			char prefix[32], what[32];
			snprintf(prefix, sizeof prefix, "/holes/%zu", h);
			snprintf(what, sizeof what, "hole %zu", h);
			rings_ok &= check_ring_points(&p->holes[h], prefix, what, errs);
		}
		/* The geometric rules only for rings that are point lists. */
		if (rings_ok && rig_tess__check_polygon(p, errs) == -2)
			return -2;
	}
	return errs->total == before ? 0 : -1;
}

/* ------------------------------------------------------------------------ */
/* The frame and the image sampler                                           */
/* ------------------------------------------------------------------------ */

void rig_tess__frame_init(struct rig_tess__frame *f, const struct rig_tess_params *p)
{
	f->w = p->width;
	f->h = p->height;
	f->x0 = -p->pivot_x * p->width;
	f->y0 = -p->pivot_y * p->height;
	f->gx0 = f->x0 - p->expansion;
	f->gy0 = f->y0 - p->expansion;
	f->gw = p->width + 2 * p->expansion;
	f->gh = p->height + 2 * p->expansion;
	f->spacing = sqrt(f->gw * f->gh) / p->density;
}

bool rig_tess__image_covers(const struct rig_alpha_image *img, uint8_t threshold,
			    const struct rig_tess__frame *f, double x, double y)
{
	double iw = (double)img->width, ih = (double)img->height;
	double u = (x - f->x0) / f->w * iw;        /* columns from the left edge */
	double v = (f->y0 + f->h - y) / f->h * ih; /* rows from the top edge */
	/* The closed rectangle, with room for the rounding of a grid vertex on its edge. */
	double slack_u = 1e-9 * iw, slack_v = 1e-9 * ih;
	if (!(u >= -slack_u && u <= iw + slack_u && v >= -slack_v && v <= ih + slack_v))
		return false;
	size_t c = u <= 0 ? 0 : (size_t)u, r = v <= 0 ? 0 : (size_t)v;
	if (c >= img->width)
		c = img->width - 1;
	if (r >= img->height)
		r = img->height - 1;
	return img->alpha[r * img->width + c] > threshold;
}

const char *rig_tess__coverage_pointer(const struct rig_tess_params *p)
{
	return p->image ? "/image" : p->outline ? "/polygon" : "";
}

/* ------------------------------------------------------------------------ */
/* Building and finishing                                                    */
/* ------------------------------------------------------------------------ */

long rig_tess__add_vert(struct rig_tess__build *b, double x, double y)
{
	/* (cap counts doubles: room past 2n + 1 holds the pair) */
	if (b->n_verts >= UINT32_MAX ||
	    !rig_array_grow((void **)&b->xy, &b->cap_verts, 2 * b->n_verts + 1, sizeof(double)))
		return -1;
	b->xy[2 * b->n_verts] = x;
	b->xy[2 * b->n_verts + 1] = y;
	return (long)b->n_verts++;
}

int rig_tess__add_tri(struct rig_tess__build *b, uint32_t i, uint32_t j, uint32_t k)
{
	if (!rig_array_grow((void **)&b->tris, &b->cap_tris, 3 * b->n_tris + 2, sizeof(uint32_t)))
		return -1;
	b->tris[3 * b->n_tris] = i;
	b->tris[3 * b->n_tris + 1] = j;
	b->tris[3 * b->n_tris + 2] = k;
	b->n_tris++;
	return 0;
}

void rig_tess__build_release(struct rig_tess__build *b)
{
	free(b->xy);
	free(b->tris);
	memset(b, 0, sizeof *b);
}

static double bbox_diag2(const double *xy, size_t n)
{
	if (n == 0)
		return 0;
	double min_x = xy[0], max_x = xy[0], min_y = xy[1], max_y = xy[1];
	for (size_t v = 1; v < n; v++) {
		min_x = fmin(min_x, xy[2 * v]);
		max_x = fmax(max_x, xy[2 * v]);
		min_y = fmin(min_y, xy[2 * v + 1]);
		max_y = fmax(max_y, xy[2 * v + 1]);
	}
	double dx = max_x - min_x, dy = max_y - min_y;
	return dx * dx + dy * dy;
}

int rig_tess__finish(struct rig_tess_mesh *out, struct rig_tess__build *b,
		     const struct rig_tess__frame *f, const char *pointer, struct rig_errs *errs)
{
	int rc = -2;
	memset(out, 0, sizeof *out);
	uint32_t *remap = NULL;
	double min_area = DEGENERATE_RELATIVE * fmax(1.0, bbox_diag2(b->xy, b->n_verts));

	/* Degenerate triangles out, in place. */
	size_t n_tris = 0;
	for (size_t t = 0; t < b->n_tris; t++) {
		const uint32_t *i = &b->tris[3 * t];
		double area = rig_mesh__area2(b->xy, i[0], i[1], i[2]) / 2;
		if (!(fabs(area) > min_area))
			continue;
		memmove(&b->tris[3 * n_tris], i, 3 * sizeof *i);
		n_tris++;
	}
	/* Used vertices, renumbered in their order. */
	remap = malloc((b->n_verts ? b->n_verts : 1) * sizeof *remap);
	if (!remap)
		goto out_release;
	for (size_t v = 0; v < b->n_verts; v++)
		remap[v] = UINT32_MAX;
	for (size_t k = 0; k < 3 * n_tris; k++)
		remap[b->tris[k]] = 0;
	size_t n_verts = 0;
	for (size_t v = 0; v < b->n_verts; v++)
		if (remap[v] == 0)
			remap[v] = (uint32_t)n_verts++;
	if (n_tris < RIG_MIN_TRIANGLES || n_verts < RIG_MIN_VERTICES) {
		struct rig_err *e = rig_errs_add(
			errs, RIG_TESSELLATE_EMPTY,
			"coverage keeps %zu triangles and %zu vertices, too few for a mesh", n_tris,
			n_verts);
		rig_strlcpy(e->pointer, pointer, sizeof e->pointer);
		rc = -1;
		goto out_release;
	}
	if (n_tris > RIG_MAX_TRIANGLES || n_verts > RIG_MAX_VERTICES) {
		struct rig_err *e = rig_errs_add(
			errs, RIG_MESH_GEOMETRY,
			"tessellation has %zu vertices and %zu triangles, past %d or %d", n_verts,
			n_tris, RIG_MAX_VERTICES, RIG_MAX_TRIANGLES);
		rig_strlcpy(e->pointer, pointer, sizeof e->pointer);
		rc = -1;
		goto out_release;
	}
	out->source = malloc(2 * n_verts * sizeof *out->source);
	out->uvs = malloc(2 * n_verts * sizeof *out->uvs);
	out->triangles = malloc(3 * n_tris * sizeof *out->triangles);
	if (!out->source || !out->uvs || !out->triangles) {
		rig_tess_mesh_release(out);
		goto out_release;
	}
	for (size_t v = 0; v < b->n_verts; v++) {
		if (remap[v] == UINT32_MAX)
			continue;
		double x = b->xy[2 * v], y = b->xy[2 * v + 1];
		size_t o = remap[v];
		out->source[2 * o] = x;
		out->source[2 * o + 1] = y;
		out->uvs[2 * o] = (x - f->x0) / f->w;
		out->uvs[2 * o + 1] = (f->y0 + f->h - y) / f->h;
	}
	for (size_t k = 0; k < 3 * n_tris; k++)
		out->triangles[k] = remap[b->tris[k]];
	out->n_verts = n_verts;
	out->n_tris = n_tris;
	rc = 0;
out_release:
	free(remap);
	rig_tess__build_release(b);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Dispatch                                                                  */
/* ------------------------------------------------------------------------ */

int rig_tessellate(struct rig_tess_mesh *out, const struct rig_tess_params *p,
		   struct rig_errs *errs)
{
	memset(out, 0, sizeof *out);
	int rc = rig_tess_params_check(p, errs);
	if (rc != 0)
		return rc;
	rc = p->mode == RIG_TESS_GRID ? rig_tess__grid(out, p, errs)
				      : rig_tess__silhouette(out, p, errs);
	if (rc != 0)
		rig_tess_mesh_release(out);
	return rc;
}
