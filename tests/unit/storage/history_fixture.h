/* Helpers shared by the history tests of tests/unit/storage/ (test_history.c,
 * test_history_compact.c): a version committed through the shot repository,
 * and a skin of any size to store. */
#ifndef RIG_TEST_HISTORY_FIXTURE_H
#define RIG_TEST_HISTORY_FIXTURE_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/skin.h"
#include "storage/shot_repo.h"

/* Saves m as the next version and moves the shot there; reloads m. */
static inline void commit(struct rig_tx *tx, struct rig_shot_model *m)
{
	long long v = m->version;
	cr_assert_eq(rig_shot_save(tx, m, v + 1), 0);
	cr_assert_eq(rig_shot_set_version(tx, m->id, v, v + 1), 0);
	rig_shot_model_release(m);
	cr_assert_eq(rig_shot_load(m, tx, "s"), 0);
	cr_assert_eq(m->version, v + 1);
}

/* n vertices in a row, triangles fanned, joint 0 or 1 by vertex parity. */
static inline struct rig_skin_def *strip_skin(size_t n)
{
	struct rig_skin_def *d = calloc(1, sizeof *d);
	d->n_verts = n;
	d->source = malloc(2 * n * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		d->source[2 * i] = (double)i;
		d->source[2 * i + 1] = (double)(i % 7) / 3.0;
	}
	d->n_tris = n - 2;
	d->triangles = malloc(3 * d->n_tris * sizeof(uint32_t));
	for (size_t t = 0; t < d->n_tris; t++) {
		d->triangles[3 * t] = 0;
		d->triangles[3 * t + 1] = (uint32_t)t + 1;
		d->triangles[3 * t + 2] = (uint32_t)t + 2;
	}
	d->n_joints = 2;
	d->joints = calloc(2, sizeof *d->joints);
	strcpy(d->joints[0].id, "a");
	strcpy(d->joints[1].id, "b");
	for (int j = 0; j < 2; j++)
		d->joints[j].bind = (struct rig_affine){{1, 0, 0, 1, j, 0}};
	d->n_weight_lists = n;
	d->weight_offsets = malloc((n + 1) * sizeof(uint32_t));
	d->influences = malloc(n * sizeof *d->influences);
	for (size_t i = 0; i <= n; i++)
		d->weight_offsets[i] = (uint32_t)i;
	for (size_t i = 0; i < n; i++)
		d->influences[i] = (struct rig_skin_influence){(uint32_t)(i % 2), 1.0};
	return d;
}

#endif
