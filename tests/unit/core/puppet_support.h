/* Helpers shared by the puppet's unit tests: grid definitions with pins,
 * keys, evaluators built from copies, and triangle areas. Static inline so
 * each test file takes what it uses. */
#ifndef RIG_TEST_PUPPET_SUPPORT_H
#define RIG_TEST_PUPPET_SUPPORT_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/mesh.h"
#include "core/puppet.h"

/* A w × h grid spaced by step, two counter-clockwise triangles per cell
 * (a, b, d) and (a, d, c), no pins. */
static inline struct rig_puppet_def puppet_grid(size_t w, size_t h, double step)
{
	struct rig_puppet_def d;
	memset(&d, 0, sizeof d);
	d.n_verts = w * h;
	d.n_tris = 2 * (w - 1) * (h - 1);
	d.source = calloc(2 * d.n_verts, sizeof *d.source);
	d.triangles = calloc(3 * d.n_tris + 1, sizeof *d.triangles);
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
			uint32_t *tri = &d.triangles[6 * t++];
			tri[0] = a, tri[1] = b, tri[2] = e;
			tri[3] = a, tri[4] = e, tri[5] = c;
		}
	}
	return d;
}

/* Appends a default pin id at (x, y); returns it. */
static inline struct rig_puppet_pin *puppet_add_pin(struct rig_puppet_def *d, const char *id,
						    double x, double y)
{
	struct rig_puppet_pin pin = rig_puppet_pin_default(id, x, y);
	cr_assert_eq(rig_puppet_def_pin_put(d, &pin), 0);
	return &d->pins[d->n_pins - 1];
}

/* Puts a linear key (frame, value) on channel ch. */
static inline void puppet_key(struct rig_puppet_pin *pin, enum rig_pin_channel ch, double frame,
			      double value)
{
	struct rig_key k;
	memset(&k, 0, sizeof k);
	k.frame = frame;
	k.value = value;
	cr_assert_eq(rig_puppet_pin_key_put(pin, ch, &k), 0);
}

/* Moves a pin by (dx, dy) with one position key at frame 0. */
static inline void puppet_move(struct rig_puppet_pin *pin, double dx, double dy)
{
	puppet_key(pin, RIG_PIN_CH_POSITION_X, 0, pin->x + dx);
	puppet_key(pin, RIG_PIN_CH_POSITION_Y, 0, pin->y + dy);
}

/* An evaluator of a copy of d (d stays the caller's). */
static inline struct rig_puppet *puppet_build(const struct rig_puppet_def *d)
{
	struct rig_puppet_def copy;
	cr_assert_eq(rig_puppet_def_copy(&copy, d), 0);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_puppet_def_check(&copy, errs), 0, "%s",
		     errs->count ? errs->items[0].detail : "");
	struct rig_puppet *pup = rig_puppet_take(&copy, errs);
	cr_assert_not_null(pup, "%s", errs->count ? errs->items[0].detail : "");
	rig_puppet_def_release(&copy);
	rig_errs_free(errs);
	return pup;
}

/* The smallest ratio of a deformed triangle's signed area to its source's. */
static inline double puppet_min_area_ratio(const struct rig_puppet_def *d, const double *xy)
{
	double lo = INFINITY;
	for (size_t t = 0; t < d->n_tris; t++) {
		const uint32_t *c = &d->triangles[3 * t];
		double r = rig_mesh_area2(xy, c[0], c[1], c[2]) /
			   rig_mesh_area2(d->source, c[0], c[1], c[2]);
		lo = r < lo ? r : lo;
	}
	return lo;
}

/* The first kept error with code, or NULL. */
static inline const struct rig_err *puppet_find_err(const struct rig_errs *errs, enum rig_code code)
{
	for (size_t i = 0; i < errs->count; i++)
		if (errs->items[i].code == code)
			return &errs->items[i];
	return NULL;
}

#endif
