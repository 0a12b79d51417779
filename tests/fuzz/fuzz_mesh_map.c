/* libFuzzer target over point location (core/mesh_map.h): a differential test.
 * The input bytes are read as a small mesh and a list of points; every point
 * is located by the reference scan and through the index, and any difference
 * (triangle, a weight's or the distance's bits, inside) aborts.
 *
 * Coordinates come in modes, so the fuzzer reaches the hard cases quickly:
 * raw doubles (huge, tiny, subnormal), quarter integers (exact edges, ties),
 * near-copies of the previous coordinate (slivers) and scaled small integers.
 * Points add vertices nudged by a few ulps and points on edges. Triangles
 * need only finite coordinates and a non-zero computed area (weaker than
 * SPEC's validation, so the index's loose list and scan-only paths run too).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/mesh_map.h"

struct cursor {
	const uint8_t *p;
	size_t left;
};

static uint8_t take_u8(struct cursor *c)
{
	if (!c->left)
		return 0;
	c->left--;
	return *c->p++;
}

static double take_f64(struct cursor *c)
{
	double v = 0;
	if (c->left >= 8) {
		memcpy(&v, c->p, 8);
		c->p += 8;
		c->left -= 8;
	}
	return isfinite(v) ? v : 0;
}

static double take_coordinate(struct cursor *c, double previous)
{
	uint8_t mode = take_u8(c);
	switch (mode % 4) {
	case 0:
		return take_f64(c);
	case 1:
		return ((double)take_u8(c) - 128) / 4;
	case 2:
		return previous + ((double)take_u8(c) - 128) * ldexp(1, -(int)(mode / 4) - 10);
	default:
		return ((double)take_u8(c) - 128) * pow(10, (double)(take_u8(c) % 64) - 32);
	}
}

static double area2(const double *src, const uint32_t *t)
{
	const double *a = &src[2 * t[0]], *b = &src[2 * t[1]], *c = &src[2 * t[2]];
	return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static void expect_same(const struct rig_mesh_index *ix, const double *src, const uint32_t *tris,
			size_t n_tris, double x, double y)
{
	struct rig_mesh_site want = rig_mesh_locate(src, tris, n_tris, x, y);
	struct rig_mesh_site got = rig_mesh_index_locate(ix, x, y);
	if (got.triangle != want.triangle || got.inside != want.inside ||
	    memcmp(got.w, want.w, sizeof got.w) != 0 ||
	    memcmp(&got.distance, &want.distance, sizeof got.distance) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = {data, size};
	size_t n_verts = 3 + take_u8(&c) % 40, n_tris = 1 + take_u8(&c) % 40;
	double *src = calloc(2 * n_verts, sizeof *src);
	uint32_t *tris = calloc(3 * n_tris, sizeof *tris);
	if (!src || !tris)
		abort(); /* the fuzzer's own memory, not an input's fault */
	double previous = 0;
	for (size_t i = 0; i < 2 * n_verts; i++)
		previous = src[i] = take_coordinate(&c, previous);
	size_t kept = 0;
	for (size_t t = 0; t < n_tris; t++) {
		uint32_t *tri = &tris[3 * kept];
		for (int k = 0; k < 3; k++)
			tri[k] = take_u8(&c) % (uint32_t)n_verts;
		double a2 = area2(src, tri);
		kept += isfinite(a2) && a2 != 0; /* the scan's precondition */
	}
	struct rig_mesh_index *ix = kept ? rig_mesh_index_new(src, tris, kept) : NULL;
	if (kept && !ix)
		abort();
	while (ix && c.left) {
		uint8_t mode = take_u8(&c);
		const double *a = &src[2 * tris[3 * (mode % kept)]];
		const double *b = &src[2 * tris[3 * (mode % kept) + 1]];
		double x, y;
		if (mode % 3 == 0) { /* a vertex moved by a few ulps */
			x = a[0];
			y = a[1];
			for (uint8_t u = take_u8(&c), k = 0; k < u % 8; k++) {
				x = nextafter(x, u & 8 ? INFINITY : -INFINITY);
				y = nextafter(y, u & 16 ? INFINITY : -INFINITY);
			}
		} else if (mode % 3 == 1) { /* on an edge */
			double t = take_u8(&c) / 255.0;
			x = a[0] + t * (b[0] - a[0]);
			y = a[1] + t * (b[1] - a[1]);
		} else {
			x = take_coordinate(&c, a[0]);
			y = take_coordinate(&c, a[1]);
		}
		expect_same(ix, src, tris, kept, x, y);
	}
	rig_mesh_index_free(ix);
	free(src);
	free(tris);
	return 0;
}
