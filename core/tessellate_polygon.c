/* The coverage polygon in GEOS (core/tessellate.h): building it from the
 * params' rings, and the rules of rig_tess_params_check that need geometry:
 * every ring has a non-zero area and does not cross itself, and the holes lie
 * inside the outline without crossing it or each other (GEOS's validity, the
 * OGC rules). A violation names the ring and, when GEOS locates it, the first
 * point of the ring's edge through that location. Each call makes and frees
 * its own GEOS context.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/tessellate.h"
#include "core/tessellate_impl.h"

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

static void geos_quiet(const char *message, void *userdata)
{
	(void)message;
	(void)userdata;
}

GEOSContextHandle_t rig_tess__geos_new(void)
{
	GEOSContextHandle_t ctx = GEOS_init_r();
	if (ctx) {
		GEOSContext_setErrorMessageHandler_r(ctx, geos_quiet, NULL);
		GEOSContext_setNoticeMessageHandler_r(ctx, geos_quiet, NULL);
	}
	return ctx;
}

/* A closed GEOS ring of r's points (the first repeated at the end). */
static GEOSGeometry *ring_geom(GEOSContextHandle_t ctx, const struct rig_tess_ring *r)
{
	double *buf = malloc(2 * (r->n + 1) * sizeof *buf);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < 2 * r->n; i++)
		buf[i] = r->xy[i];
	buf[2 * r->n] = r->xy[0];
	buf[2 * r->n + 1] = r->xy[1];
	GEOSCoordSequence *seq =
		GEOSCoordSeq_copyFromBuffer_r(ctx, buf, (unsigned)(r->n + 1), 0, 0);
	free(buf);
	return seq ? GEOSGeom_createLinearRing_r(ctx, seq) : NULL;
}

/* A polygon of outline and holes (the rings taken by GEOS). */
static GEOSGeometry *polygon_geom(GEOSContextHandle_t ctx, const struct rig_tess_ring *outline,
				  const struct rig_tess_ring *holes, size_t n_holes)
{
	GEOSGeometry *shell = ring_geom(ctx, outline);
	GEOSGeometry **rings = calloc(n_holes ? n_holes : 1, sizeof *rings);
	if (!shell || !rings)
		goto out_fail;
	for (size_t h = 0; h < n_holes; h++)
		if (!(rings[h] = ring_geom(ctx, &holes[h])))
			goto out_fail;
	GEOSGeometry *poly = GEOSGeom_createPolygon_r(ctx, shell, rings, (unsigned)n_holes);
	free(rings);
	return poly;
out_fail:
	if (shell)
		GEOSGeom_destroy_r(ctx, shell);
	for (size_t h = 0; rings && h < n_holes; h++)
		if (rings[h])
			GEOSGeom_destroy_r(ctx, rings[h]);
	free(rings);
	return NULL;
}

GEOSGeometry *rig_tess__params_polygon(GEOSContextHandle_t ctx, const struct rig_tess_params *p)
{
	return polygon_geom(ctx, p->outline, p->holes, p->n_holes);
}

/* Squared distance from (px, py) to segment a b. */
static double segment_dist2(double px, double py, const double *a, const double *b)
{
	double dx = b[0] - a[0], dy = b[1] - a[1], len2 = dx * dx + dy * dy;
	double t = len2 > 0 ? ((px - a[0]) * dx + (py - a[1]) * dy) / len2 : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	double ex = a[0] + t * dx - px, ey = a[1] + t * dy - py;
	return ex * ex + ey * ey;
}

/* The first point of the ring's edge nearest to (x, y), and that distance². */
static size_t nearest_edge(const struct rig_tess_ring *r, double x, double y, double *dist2)
{
	size_t best = 0;
	double best_d = INFINITY;
	for (size_t i = 0; i < r->n; i++) {
		double d = segment_dist2(x, y, &r->xy[2 * i], &r->xy[2 * ((i + 1) % r->n)]);
		if (d < best_d) {
			best_d = d;
			best = i;
		}
	}
	*dist2 = best_d;
	return best;
}

/* |shoelace area| is not above 1e-12 · max(1, bbox diagonal²) (core/mesh.h's limit). */
static bool ring_has_zero_area(const struct rig_tess_ring *r)
{
	double a2 = 0, min_x = r->xy[0], max_x = r->xy[0], min_y = r->xy[1], max_y = r->xy[1];
	for (size_t i = 0; i < r->n; i++) {
		const double *a = &r->xy[2 * i], *b = &r->xy[2 * ((i + 1) % r->n)];
		a2 += (a[0] - r->xy[0]) * (b[1] - r->xy[1]) - (b[0] - r->xy[0]) * (a[1] - r->xy[1]);
		min_x = fmin(min_x, a[0]);
		max_x = fmax(max_x, a[0]);
		min_y = fmin(min_y, a[1]);
		max_y = fmax(max_y, a[1]);
	}
	double dx = max_x - min_x, dy = max_y - min_y;
	return !(fabs(a2) / 2 > 1e-12 * fmax(1.0, dx * dx + dy * dy));
}

/* Records GEOS's reason, lowercased, for ring `what` at the edge nearest to
 * the location (pointer prefix/<i>), or at prefix when there is none. */
static void report_invalid(GEOSContextHandle_t ctx, struct rig_errs *errs,
			   const struct rig_tess_ring *r, const char *prefix, const char *what,
			   char *reason, GEOSGeometry *location)
{
	char text[96];
	snprintf(text, sizeof text, "%s", reason ? reason : "invalid ring");
	for (char *c = text; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	double x, y;
	if (location && GEOSGeomGetX_r(ctx, location, &x) == 1 &&
	    GEOSGeomGetY_r(ctx, location, &y) == 1 && isfinite(x) && isfinite(y)) {
		double d2;
		size_t i = nearest_edge(r, x, y, &d2);
		struct rig_err *e =
			rig_errs_add(errs, RIG_TESSELLATE_POLYGON,
				     "%s is not a simple ring: %s at (%g, %g)", what, text, x, y);
		e->vertex_index = (long)i;
		snprintf(e->pointer, sizeof e->pointer, "%s/%zu", prefix, i);
	} else {
		struct rig_err *e = rig_errs_add(errs, RIG_TESSELLATE_POLYGON,
						 "%s is not a simple ring: %s", what, text);
		rig_strlcpy(e->pointer, prefix, sizeof e->pointer);
	}
}

/* One ring on its own: a non-zero area, not crossing itself. 0, -1, or -2. */
static int check_ring(GEOSContextHandle_t ctx, const struct rig_tess_ring *r, const char *prefix,
		      const char *what, struct rig_errs *errs)
{
	if (ring_has_zero_area(r)) {
		struct rig_err *e = rig_errs_add(
			errs, RIG_TESSELLATE_POLYGON,
			"%s has zero area (collinear points, or loops that cancel)", what);
		rig_strlcpy(e->pointer, prefix, sizeof e->pointer);
		return -1;
	}
	GEOSGeometry *poly = polygon_geom(ctx, r, NULL, 0);
	if (!poly)
		return -2;
	char *reason = NULL;
	GEOSGeometry *location = NULL;
	char valid = GEOSisValidDetail_r(ctx, poly, 0, &reason, &location);
	int rc = valid == 1 ? 0 : valid == 0 ? -1 : -2;
	if (valid == 0)
		report_invalid(ctx, errs, r, prefix, what, reason, location);
	if (reason)
		GEOSFree_r(ctx, reason);
	if (location)
		GEOSGeom_destroy_r(ctx, location);
	GEOSGeom_destroy_r(ctx, poly);
	return rc;
}

int rig_tess__check_polygon(const struct rig_tess_params *p, struct rig_errs *errs)
{
	GEOSContextHandle_t ctx = rig_tess__geos_new();
	if (!ctx)
		return -2;
	int rc = check_ring(ctx, p->outline, "/polygon", "polygon", errs);
	for (size_t h = 0; h < p->n_holes && rc != -2; h++) {
		char prefix[32], what[32];
		snprintf(prefix, sizeof prefix, "/holes/%zu", h);
		snprintf(what, sizeof what, "hole %zu", h);
		int rh = check_ring(ctx, &p->holes[h], prefix, what, errs);
		rc = rh == -2 ? -2 : rc != 0 ? rc : rh;
	}
	if (rc != 0 || p->n_holes == 0)
		goto out_finish;
	/* Each ring is simple: now the holes against the outline and each other. */
	GEOSGeometry *poly = rig_tess__params_polygon(ctx, p);
	if (!poly) {
		rc = -2;
		goto out_finish;
	}
	char *reason = NULL;
	GEOSGeometry *location = NULL;
	char valid = GEOSisValidDetail_r(ctx, poly, 0, &reason, &location);
	rc = valid == 1 ? 0 : valid == 0 ? -1 : -2;
	if (valid == 0) {
		/* The ring through the location: the nearest hole, else the outline. */
		double x = 0, y = 0, best = INFINITY, d2;
		long ring = -1;
		if (location && GEOSGeomGetX_r(ctx, location, &x) == 1 &&
		    GEOSGeomGetY_r(ctx, location, &y) == 1) {
			(void)nearest_edge(p->outline, x, y, &best);
			for (size_t h = 0; h < p->n_holes; h++) {
				(void)nearest_edge(&p->holes[h], x, y, &d2);
				if (d2 <= best) { /* on a tie, the hole */
					best = d2;
					ring = (long)h;
				}
			}
		}
		char text[96];
		snprintf(text, sizeof text, "%s", reason ? reason : "invalid polygon");
		for (char *c = text; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		struct rig_err *e;
		if (ring >= 0) {
			e = rig_errs_add(errs, RIG_TESSELLATE_POLYGON,
					 "hole %ld does not lie inside the polygon apart from the "
					 "other holes: %s at (%g, %g)",
					 ring, text, x, y);
			snprintf(e->pointer, sizeof e->pointer, "/holes/%ld", ring);
		} else {
			e = rig_errs_add(errs, RIG_TESSELLATE_POLYGON,
					 "the holes do not lie inside the polygon: %s", text);
			rig_strlcpy(e->pointer, "/holes", sizeof e->pointer);
		}
	}
	if (reason)
		GEOSFree_r(ctx, reason);
	if (location)
		GEOSGeom_destroy_r(ctx, location);
	GEOSGeom_destroy_r(ctx, poly);
out_finish:
	GEOS_finish_r(ctx);
	return rc;
}
