/* Helpers shared by the core unit tests: a seeded generator, skin definitions
 * built on the heap (released with rig_skin_def_release), and error lookups.
 * Everything is static inline so each test file takes only what it uses.
 */
#ifndef RIG_TEST_SUPPORT_H
#define RIG_TEST_SUPPORT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/affine.h"
#include "core/err.h"
#include "core/skin.h"

/* ---- seeded generator (splitmix64): the only randomness, inside tests ---- */

struct rng {
	uint64_t state;
};

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->state += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static inline double rng_range(struct rng *r, double lo, double hi)
{
	return lo + (hi - lo) * ((double)(rng_next(r) >> 11) * 0x1.0p-53);
}

/* Uniform integer in [0, n). */
static inline size_t rng_below(struct rng *r, size_t n)
{
	return (size_t)(rng_next(r) % n);
}

/* ---- matrices ---- */

static inline struct rig_affine affine(double a, double b, double c, double d, double e, double f)
{
	return (struct rig_affine){{a, b, c, d, e, f}};
}

static inline struct rig_affine translate(double x, double y)
{
	return affine(1, 0, 0, 1, x, y);
}

static inline struct rig_affine rotate_rad(double t)
{
	return affine(cos(t), sin(t), -sin(t), cos(t), 0, 0);
}

/* ---- skin definitions ---- */

/* A w × h grid of vertices spaced by `step`, two counter-clockwise triangles
 * per cell, n_joints joints "j0", "j1", … with identity binds, and room for
 * max_per influences per vertex (weight lists left empty: n_weight_lists = n_verts,
 * all offsets 0). */
static inline struct rig_skin_def grid_def(size_t w, size_t h, double step, size_t n_joints,
					   size_t max_per)
{
	struct rig_skin_def d = {0};
	d.n_verts = w * h;
	d.n_tris = 2 * (w - 1) * (h - 1);
	d.n_joints = n_joints;
	d.n_weight_lists = d.n_verts;
	d.source = calloc(2 * d.n_verts, sizeof(double));
	d.triangles = calloc(3 * d.n_tris + 3, sizeof(uint32_t));
	d.joints = calloc(n_joints + 1, sizeof(struct rig_skin_joint));
	d.weight_offsets = calloc(d.n_verts + 1, sizeof(uint32_t));
	d.influences = calloc(d.n_verts * max_per + 1, sizeof(struct rig_skin_influence));
	for (size_t y = 0; y < h; y++) {
		for (size_t x = 0; x < w; x++) {
			d.source[2 * (y * w + x)] = (double)x * step;
			d.source[2 * (y * w + x) + 1] = (double)y * step;
		}
	}
	size_t t = 0;
	for (size_t y = 0; y + 1 < h; y++) {
		for (size_t x = 0; x + 1 < w; x++) {
			uint32_t a = (uint32_t)(y * w + x), b = a + 1, c = a + (uint32_t)w,
				 e = c + 1;
			uint32_t *tri = &d.triangles[3 * t];
			tri[0] = a, tri[1] = b, tri[2] = e;
			tri[3] = a, tri[4] = e, tri[5] = c;
			t += 2;
		}
	}
	for (size_t j = 0; j < n_joints; j++) {
		snprintf(d.joints[j].id, sizeof d.joints[j].id, "j%zu", j);
		d.joints[j].bind = rig_affine_identity();
	}
	return d;
}

/* Appends vertex v's influence list; vertices must be filled in order 0, 1, … */
static inline void set_weights(struct rig_skin_def *d, size_t v, size_t n, const uint32_t *joints,
			       const double *weights)
{
	uint32_t from = d->weight_offsets[v];
	for (size_t k = 0; k < n; k++)
		d->influences[from + k] = (struct rig_skin_influence){joints[k], weights[k]};
	for (size_t u = v + 1; u <= d->n_verts; u++)
		d->weight_offsets[u] = from + (uint32_t)n;
}

/* Every vertex: one influence of joint j with weight 1. */
static inline void weights_all_to(struct rig_skin_def *d, uint32_t j)
{
	double one = 1;
	for (size_t v = 0; v < d->n_verts; v++)
		set_weights(d, v, 1, &j, &one);
}

/* The seed's strip: 3 columns (x = 0, 10, 20) × 2 rows (y = 0, 10); joint
 * "root" holds the left column, "tip" the right, the middle is 0.5/0.5. */
static inline struct rig_skin_def strip_def(void)
{
	struct rig_skin_def d = grid_def(3, 2, 10, 2, 2);
	rig_strlcpy(d.joints[0].id, "root", sizeof d.joints[0].id);
	rig_strlcpy(d.joints[1].id, "tip", sizeof d.joints[1].id);
	uint32_t root = 0, tip = 1, both[2] = {0, 1};
	double one = 1, halves[2] = {0.5, 0.5};
	for (size_t v = 0; v < 6; v++) {
		size_t col = v % 3;
		if (col == 0)
			set_weights(&d, v, 1, &root, &one);
		else if (col == 1)
			set_weights(&d, v, 2, both, halves);
		else
			set_weights(&d, v, 1, &tip, &one);
	}
	return d;
}

/* ---- errors ---- */

/* The index of the first kept error with this code, or -1. */
static inline long find_err(const struct rig_errs *errs, enum rig_code code)
{
	for (size_t i = 0; i < errs->count; i++)
		if (errs->items[i].code == code)
			return (long)i;
	return -1;
}

/* How many kept errors have this code. */
static inline size_t count_err(const struct rig_errs *errs, enum rig_code code)
{
	size_t n = 0;
	for (size_t i = 0; i < errs->count; i++)
		n += errs->items[i].code == code;
	return n;
}

/* The number of representable doubles between a and b (0 when equal). */
static inline uint64_t ulps_apart(double a, double b)
{
	if (a == b)
		return 0;
	int64_t ia, ib;
	memcpy(&ia, &a, sizeof ia);
	memcpy(&ib, &b, sizeof ib);
	if (ia < 0)
		ia = INT64_MIN - ia;
	if (ib < 0)
		ib = INT64_MIN - ib;
	return ia > ib ? (uint64_t)(ia - ib) : (uint64_t)(ib - ia);
}

#endif
