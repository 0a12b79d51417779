/* Point location and barycentric transfer of mesh_map.h. */
#include "core/mesh_map.h"

#include <math.h>

/* Barycentric weights of p in triangle (a, b, c); area2 is twice its signed area. */
static void barycentric(double w[3], const double *a, const double *b, const double *c, double px,
			double py, double area2)
{
	w[1] = ((px - a[0]) * (c[1] - a[1]) - (py - a[1]) * (c[0] - a[0])) / area2;
	w[2] = ((b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0])) / area2;
	w[0] = 1.0 - w[1] - w[2];
}

static double segment_distance2(const double *a, const double *b, double px, double py)
{
	double dx = b[0] - a[0], dy = b[1] - a[1];
	double len2 = dx * dx + dy * dy;
	double t = len2 > 0 ? ((px - a[0]) * dx + (py - a[1]) * dy) / len2 : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	double ex = a[0] + t * dx - px, ey = a[1] + t * dy - py;
	return ex * ex + ey * ey;
}

struct rig_mesh_site rig_mesh_locate(const double *src, const uint32_t *tris, size_t n_tris,
				     double x, double y)
{
	struct rig_mesh_site best = {0, {1, 0, 0}};
	double best_d2 = INFINITY;
	for (size_t t = 0; t < n_tris; t++) {
		const double *a = &src[2 * tris[3 * t]];
		const double *b = &src[2 * tris[3 * t + 1]];
		const double *c = &src[2 * tris[3 * t + 2]];
		double area2 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
		double w[3];
		barycentric(w, a, b, c, x, y, area2);
		if (w[0] >= 0 && w[1] >= 0 && w[2] >= 0)
			return (struct rig_mesh_site){(uint32_t)t, {w[0], w[1], w[2]}};
		double d2 =
			fmin(segment_distance2(a, b, x, y),
			     fmin(segment_distance2(b, c, x, y), segment_distance2(c, a, x, y)));
		if (d2 < best_d2) {
			best_d2 = d2;
			best = (struct rig_mesh_site){(uint32_t)t, {w[0], w[1], w[2]}};
		}
	}
	return best;
}

void rig_mesh_map_points(double *xy, size_t n, const double *src, const double *dst,
			 const uint32_t *tris, size_t n_tris)
{
	for (size_t i = 0; i < n; i++) {
		struct rig_mesh_site s =
			rig_mesh_locate(src, tris, n_tris, xy[2 * i], xy[2 * i + 1]);
		const uint32_t *t = &tris[3 * s.triangle];
		double x = 0, y = 0;
		for (int k = 0; k < 3; k++) {
			x += s.w[k] * dst[2 * t[k]];
			y += s.w[k] * dst[2 * t[k] + 1];
		}
		xy[2 * i] = x;
		xy[2 * i + 1] = y;
	}
}
