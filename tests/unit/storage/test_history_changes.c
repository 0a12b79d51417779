/* rig_history_changes (shot_repo.h): what each version of a shot changed, read
 * back from the version-ranged history, as receipt.revert uses it: layer rows
 * created, rewritten and deleted, bindings rewritten without their layer row,
 * and constraint sets. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bare_tx.h" /* the backend's: tests/unit/storage/<backend>/ */
#include "core/codes.h"
#include "core/skin.h"
#include "storage/shot_repo.h"

/* Saves m as the next version and moves the shot there; reloads m. */
static void commit(struct rig_tx *tx, struct rig_shot_model *m)
{
	long long v = m->version;
	cr_assert_eq(rig_shot_save(tx, m, v + 1), 0);
	cr_assert_eq(rig_shot_set_version(tx, m->id, v, v + 1), 0);
	rig_shot_model_release(m);
	cr_assert_eq(rig_shot_load(m, tx, "s"), 0);
}

/* A 3-vertex, 1-triangle skin on joint "j" (layer "a"), vertex 0 weighted w. */
static struct rig_skin_def *tiny_skin(double w)
{
	struct rig_skin_def *d = calloc(1, sizeof *d);
	d->n_verts = 3;
	d->source = calloc(6, sizeof(double));
	d->source[2] = d->source[5] = 1;
	d->n_tris = 1;
	d->triangles = calloc(3, sizeof(uint32_t));
	d->triangles[1] = 1;
	d->triangles[2] = 2;
	d->n_joints = 1;
	d->joints = calloc(1, sizeof *d->joints);
	strcpy(d->joints[0].id, "j");
	strcpy(d->joints[0].layer_id, "a");
	d->joints[0].bind = (struct rig_affine){{1, 0, 0, 1, 0, 0}};
	d->n_weight_lists = 3;
	d->weight_offsets = malloc(4 * sizeof(uint32_t));
	d->influences = malloc(3 * sizeof *d->influences);
	for (uint32_t i = 0; i <= 3; i++)
		d->weight_offsets[i] = i;
	for (size_t i = 0; i < 3; i++)
		d->influences[i] = (struct rig_skin_influence){0, i == 0 ? w : 1.0};
	return d;
}

static void rename_layer(struct rig_shot_model *m, const char *id, const char *name)
{
	struct rig_model_layer *l = rig_shot_model_find(m, id);
	cr_assert_not_null(l);
	free(l->name);
	l->name = strdup(name);
	l->dirty = true;
}

/* Collects "<version>:<layer or *>" lines. */
struct seen {
	char text[1024];
	int calls, stop_after;
};

static int collect(void *ctx, long long version, const char *layer_id)
{
	struct seen *s = ctx;
	size_t n = strlen(s->text);
	snprintf(s->text + n, sizeof s->text - n, "%lld:%s ", version, layer_id ? layer_id : "*");
	return ++s->calls == s->stop_after ? -RIG_INTERNAL : 0;
}

/* v1 creates a, b, m; v2 renames a; v3 skins m (its binding only); v4 deletes
 * b; v5 puts a constraint; v6 renames a and rewrites m's skin. */
static struct rig_tx *six_versions(void)
{
	struct rig_tx *tx = bare_tx_with_shot();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	rig_shot_model_add(&m, "a", "A", RIG_LAYER_GROUP, NULL);
	rig_shot_model_add(&m, "b", "B", RIG_LAYER_GROUP, "a");
	rig_shot_model_add(&m, "m", "M", RIG_LAYER_MESH, NULL);
	commit(tx, &m);
	rename_layer(&m, "a", "A2");
	commit(tx, &m);
	rig_model_binding_set(rig_shot_model_find(&m, "m"), &rig_binding_skin, tiny_skin(1.0));
	commit(tx, &m);
	rig_shot_model_find(&m, "b")->deleted = true;
	commit(tx, &m);
	struct rig_model_constraint c;
	memset(&c, 0, sizeof c);
	strcpy(c.c.id, "ik");
	strcpy(c.c.chain_ids[0], "a");
	c.c.n_chain = 1;
	strcpy(c.c.target_id, "m");
	c.c.bend = 1;
	cr_assert_eq(rig_shot_model_constraint_put(&m, &c), 0);
	commit(tx, &m);
	rename_layer(&m, "a", "A3");
	struct rig_model_layer *ml = rig_shot_model_find(&m, "m");
	cr_assert_eq(rig_shot_load_binding(tx, &m, ml), 0);
	rig_model_binding_set(ml, &rig_binding_skin, tiny_skin(1.0));
	commit(tx, &m);
	cr_assert_eq(m.version, 6);
	rig_shot_model_release(&m);
	return tx;
}

Test(history_changes, every_version_names_what_it_wrote)
{
	struct rig_tx *tx = six_versions();
	struct seen s = {.text = ""};
	cr_assert_eq(rig_history_changes(tx, "s", 0, 6, collect, &s), 0);
	cr_assert_str_eq(s.text, "1:a 1:b 1:m 2:a 3:m 4:b 5:* 6:a 6:m ");
	bare_tx_close(tx);
}

Test(history_changes, the_range_bounds_the_versions)
{
	struct rig_tx *tx = six_versions();
	struct seen s = {.text = ""};
	cr_assert_eq(rig_history_changes(tx, "s", 2, 4, collect, &s), 0);
	cr_assert_str_eq(s.text, "3:m 4:b ");
	memset(&s, 0, sizeof s);
	cr_assert_eq(rig_history_changes(tx, "s", 6, 9, collect, &s), 0);
	cr_assert_str_eq(s.text, "");
	bare_tx_close(tx);
}

Test(history_changes, a_callback_error_stops_the_walk_and_an_unknown_shot_is_not_found)
{
	struct rig_tx *tx = six_versions();
	struct seen s = {.text = "", .stop_after = 2};
	cr_assert_eq(rig_history_changes(tx, "s", 0, 6, collect, &s), -RIG_INTERNAL);
	cr_assert_eq(s.calls, 2);
	cr_assert_eq(rig_history_changes(tx, "nope", 0, 6, collect, &s), -RIG_NOT_FOUND);
	bare_tx_close(tx);
}

/* A version that writes many layers stores them in one archive value: the
 * change list, every past version and compaction read and retire all of them. */
Test(history_changes, a_version_writing_many_layers_reads_back_from_one_value)
{
	struct rig_tx *tx = bare_tx_with_shot();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	char id[16], name[16];
	for (int i = 0; i < 60; i++) {
		snprintf(id, sizeof id, "l%02d", i);
		rig_shot_model_add(&m, id, id, RIG_LAYER_GROUP, NULL);
	}
	commit(tx, &m); /* v1: 60 creations */
	for (int i = 0; i < 60; i++) {
		snprintf(id, sizeof id, "l%02d", i);
		snprintf(name, sizeof name, "renamed %d", i);
		rename_layer(&m, id, name);
		rig_shot_model_find(&m, id)->statics.ch[RIG_CH_ROTATION] = i;
	}
	commit(tx, &m); /* v2: 60 rows archived */
	cr_assert_eq(bare_tx_int(tx, "SELECT count(*) FROM layer_archive"), 2, "a row a version");
	cr_assert_gt(bare_tx_int(tx, "SELECT max(length(entries)) FROM layer_archive"), 60 * 15,
		     "60 rows in one value");

	struct seen s = {.text = ""};
	cr_assert_eq(rig_history_changes(tx, "s", 1, 2, collect, &s), 0);
	cr_assert_eq(s.calls, 60);
	cr_assert(strncmp(s.text, "2:l00 2:l01 ", 12) == 0, "%s", s.text);
	struct rig_shot_model at;
	for (long long v = 1; v <= 2; v++) {
		cr_assert_eq(rig_shot_load_at(&at, tx, "s", v), 0);
		cr_assert_eq(at.n_layers, 60);
		for (int i = 0; i < 60; i++) {
			snprintf(id, sizeof id, "l%02d", i);
			snprintf(name, sizeof name, "renamed %d", i);
			struct rig_model_layer *l = rig_shot_model_find(&at, id);
			cr_assert_str_eq(l->name, v == 1 ? id : name);
			cr_assert_eq(l->statics.ch[RIG_CH_ROTATION], v == 1 ? 0 : i);
		}
		rig_shot_model_release(&at);
	}
	rig_shot_model_release(&m);
	bool done = false;
	long long removed = 0;
	cr_assert_eq(rig_history_compact(tx, 1, &done, &removed), 0);
	cr_assert(done);
	cr_assert_eq(removed, 120, "every entry of both versions");
	cr_assert_eq(bare_tx_int(tx, "SELECT count(*) FROM layer_archive"), 0);
	bare_tx_close(tx);
}
