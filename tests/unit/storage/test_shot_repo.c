/* The shot repository: what is saved loads back identically, skins included,
 * and deletes cascade. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "bare_tx.h" /* the backend's: tests/unit/storage/<backend>/ */
#include "core/skin.h"
#include "storage/resources.h"
#include "storage/shot_repo.h"

static struct rig_tx *fresh(void)
{
	return bare_tx_with_shot();
}

/* A skin of a unit square (4 vertices, 2 triangles) on 2 joints. */
static void square_skin(struct rig_skin_def *d)
{
	memset(d, 0, sizeof *d);
	d->n_verts = 4;
	d->source = malloc(8 * sizeof(double));
	double src[8] = {0, 0, 1, 0, 1, 1, 0, 1};
	memcpy(d->source, src, sizeof src);
	d->n_tris = 2;
	d->triangles = malloc(6 * sizeof(uint32_t));
	uint32_t tris[6] = {0, 1, 2, 0, 2, 3};
	memcpy(d->triangles, tris, sizeof tris);
	d->n_joints = 2;
	d->joints = calloc(2, sizeof *d->joints);
	strcpy(d->joints[0].id, "a");
	strcpy(d->joints[0].layer_id, "ja");
	strcpy(d->joints[1].id, "b");
	strcpy(d->joints[1].layer_id, "jb");
	for (int j = 0; j < 2; j++)
		d->joints[j].bind = (struct rig_affine){{1, 0, 0, 1, 0.1 * j, 0}};
	d->n_weight_lists = 4;
	d->weight_offsets = malloc(5 * sizeof(uint32_t));
	uint32_t off[5] = {0, 1, 3, 4, 5};
	memcpy(d->weight_offsets, off, sizeof off);
	d->influences = malloc(5 * sizeof *d->influences);
	struct rig_skin_influence inf[5] = {{0, 1}, {0, 0.25}, {1, 0.75}, {1, 1}, {0, 1}};
	memcpy(d->influences, inf, sizeof inf);
}

/* Writes m as the shot's next version, as a batch does. */
static void save_next(struct rig_tx *tx, struct rig_shot_model *m)
{
	cr_assert_eq(rig_shot_save(tx, m, m->version + 1), 0);
	cr_assert_eq(rig_shot_set_version(tx, m->id, m->version, m->version + 1), 0);
}

Test(shot_repo, saves_and_loads_layers_keys_and_skins)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	cr_assert_eq(m.n_layers, 0);
	struct rig_model_layer *ja = rig_shot_model_add(&m, "ja", "Joint A", RIG_LAYER_GROUP, NULL);
	rig_shot_model_add(&m, "jb", "Joint B", RIG_LAYER_GROUP, "ja");
	struct rig_key k1 = {.frame = -2.5,
			     .value = 30,
			     .interp = RIG_INTERP_BEZIER,
			     .ease = {0.25, 0.1, 0.25, 1}};
	struct rig_key k0 = {.frame = -10, .value = 0.1 + 0.2, .interp = RIG_INTERP_HOLD};
	rig_key_list_put(&ja->keys[RIG_CH_ROTATION], &k1);
	rig_key_list_put(&ja->keys[RIG_CH_ROTATION], &k0);
	ja->statics.ch[RIG_CH_POSITION_X] = 1.0 / 3.0;
	ja->time_offset = 4.5;
	struct rig_model_layer *mesh = rig_shot_model_add(&m, "mesh", "Mesh", RIG_LAYER_MESH, NULL);
	struct rig_skin_def *def = calloc(1, sizeof *def);
	square_skin(def);
	rig_model_binding_set(mesh, &rig_binding_skin, def);
	save_next(tx, &m);
	rig_shot_model_release(&m);

	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	cr_assert_eq(m.n_layers, 3);
	ja = rig_shot_model_find(&m, "ja");
	cr_assert_not_null(ja);
	cr_assert_eq(ja->statics.ch[RIG_CH_POSITION_X], 1.0 / 3.0, "doubles round-trip exactly");
	cr_assert_eq(ja->time_offset, 4.5);
	cr_assert_eq(ja->keys[RIG_CH_ROTATION].count, 2);
	cr_assert_eq(ja->keys[RIG_CH_ROTATION].items[0].frame, -10, "keys stay sorted");
	cr_assert_eq(ja->keys[RIG_CH_ROTATION].items[0].value, 0.1 + 0.2);
	cr_assert_eq(ja->keys[RIG_CH_ROTATION].items[1].interp, RIG_INTERP_BEZIER);
	cr_assert_eq(ja->keys[RIG_CH_ROTATION].items[1].ease[3], 1);
	cr_assert_str_eq(rig_shot_model_find(&m, "jb")->parent_id, "ja");
	mesh = rig_shot_model_find(&m, "mesh");
	cr_assert_eq(mesh->binding.type, &rig_binding_skin);
	const struct rig_skin_def *got = mesh->binding.def;
	cr_assert_eq(got->n_joints, 2, "joints load with the shot");
	cr_assert_str_eq(got->joints[1].layer_id, "jb");
	cr_assert_eq(got->joints[1].bind.m[4], 0.1);
	cr_assert_eq(mesh->binding.n_verts, 4);
	cr_assert_eq(mesh->binding.n_tris, 2);
	cr_assert_not(mesh->binding.loaded, "heavy arrays load on demand");
	cr_assert_eq(rig_shot_load_binding(tx, &m, mesh), 0);
	cr_assert(mesh->binding.loaded);
	got = mesh->binding.def;
	struct rig_skin_def want;
	square_skin(&want);
	cr_assert_arr_eq(got->source, want.source, 8 * sizeof(double));
	cr_assert_arr_eq(got->triangles, want.triangles, 6 * sizeof(uint32_t));
	cr_assert_arr_eq(got->weight_offsets, want.weight_offsets, 5 * sizeof(uint32_t));
	for (int i = 0; i < 5; i++) {
		cr_assert_eq(got->influences[i].joint, want.influences[i].joint);
		cr_assert_eq(got->influences[i].weight, want.influences[i].weight);
	}
	rig_skin_def_release(&want);
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

Test(shot_repo, deleting_a_layer_drops_its_skin_and_allows_reusing_the_id)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	rig_shot_load(&m, tx, "s");
	struct rig_model_layer *mesh = rig_shot_model_add(&m, "mesh", "Mesh", RIG_LAYER_MESH, NULL);
	struct rig_skin_def *def = calloc(1, sizeof *def);
	square_skin(def);
	rig_model_binding_set(mesh, &rig_binding_skin, def);
	save_next(tx, &m);
	rig_shot_model_release(&m);

	rig_shot_load(&m, tx, "s");
	rig_shot_model_find(&m, "mesh")->deleted = true;
	rig_shot_model_add(&m, "mesh", "Again", RIG_LAYER_GROUP, NULL);
	save_next(tx, &m);
	rig_shot_model_release(&m);

	rig_shot_load(&m, tx, "s");
	cr_assert_eq(m.n_layers, 1);
	cr_assert_str_eq(m.layers[0].name, "Again");
	cr_assert_null(m.layers[0].binding.type);
	rig_shot_model_release(&m);
	cr_assert_eq(bare_tx_int(tx, "SELECT count(*) FROM skins"), 0);
	bare_tx_close(tx);
}

/* A model settled after a commit (the write path's cached shot) gives the
 * next layer the creation order a fresh load would: the same edits number
 * their layers alike whether or not the cache was warm. */
Test(shot_repo, a_settled_model_orders_new_layers_as_a_loaded_one)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	rig_shot_load(&m, tx, "s");
	rig_shot_model_add(&m, "a", "A", RIG_LAYER_GROUP, NULL);
	rig_shot_model_add(&m, "b", "B", RIG_LAYER_GROUP, NULL);
	save_next(tx, &m);
	rig_shot_model_settle(&m, m.version + 1);
	rig_shot_model_find(&m, "b")->deleted = true;
	save_next(tx, &m);
	rig_shot_model_settle(&m, m.version + 1);
	long long cached = rig_shot_model_add(&m, "c", "C", RIG_LAYER_GROUP, NULL)->ord;
	rig_shot_model_release(&m);
	rig_shot_load(&m, tx, "s");
	long long loaded = rig_shot_model_add(&m, "c", "C", RIG_LAYER_GROUP, NULL)->ord;
	cr_assert_eq(cached, loaded);
	cr_assert_eq(loaded, rig_shot_model_find(&m, "a")->ord + 1);
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

Test(shot_repo, version_moves_only_from_the_expected_value)
{
	struct rig_tx *tx = fresh();
	cr_assert_eq(rig_shot_set_version(tx, "s", 0, 1), 0);
	cr_assert_eq(rig_shot_set_version(tx, "s", 0, 1), -RIG_VERSION_CONFLICT);
	cr_assert_eq(rig_shot_set_version(tx, "s", 1, 2), 0);
	bare_tx_close(tx);
}

Test(shot_repo, a_missing_shot_is_not_found)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "nope"), -RIG_NOT_FOUND);
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

Test(shot_repo, clearing_a_binding_erases_it_and_reads_whole_definitions)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	rig_shot_load(&m, tx, "s");
	struct rig_model_layer *mesh = rig_shot_model_add(&m, "mesh", "Mesh", RIG_LAYER_MESH, NULL);
	struct rig_skin_def *def = calloc(1, sizeof *def);
	square_skin(def);
	rig_model_binding_set(mesh, &rig_binding_skin, def);
	save_next(tx, &m);
	rig_shot_model_release(&m);

	rig_shot_load(&m, tx, "s");
	mesh = rig_shot_model_find(&m, "mesh");
	void *whole = NULL;
	cr_assert_eq(rig_shot_read_binding(&whole, tx, &m, mesh), 0);
	const struct rig_skin_def *got = whole;
	cr_assert_eq(got->n_verts, 4);
	cr_assert_eq(got->n_joints, 2, "a read definition owns its joints too");
	cr_assert_neq(got->joints, ((const struct rig_skin_def *)mesh->binding.def)->joints);
	cr_assert_not(mesh->binding.loaded, "reading leaves the layer as it was");
	rig_binding_skin.def_free(whole);
	rig_model_binding_set(mesh, NULL, NULL);
	save_next(tx, &m);
	rig_shot_model_release(&m);

	rig_shot_load(&m, tx, "s");
	cr_assert_null(rig_shot_model_find(&m, "mesh")->binding.type);
	rig_shot_model_release(&m);
	cr_assert_eq(bare_tx_int(tx, "SELECT count(*) FROM skins"), 0);
	bare_tx_close(tx);
}

Test(shot_repo, saves_loads_and_deletes_constraints_with_their_keys)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	rig_shot_model_add(&m, "a", "A", RIG_LAYER_GROUP, NULL);
	struct rig_model_constraint mc;
	memset(&mc, 0, sizeof mc);
	strcpy(mc.c.id, "arm");
	mc.c.n_chain = 3;
	strcpy(mc.c.chain_ids[0], "a");
	strcpy(mc.c.chain_ids[1], "b.1");
	strcpy(mc.c.chain_ids[2], "c:2");
	strcpy(mc.c.target_id, "t");
	mc.c.bend = -1;
	mc.c.tip_length = 1.0 / 3.0;
	mc.c.statics[RIG_CC_MIX] = 0.25;
	mc.c.statics[RIG_CC_SOFTNESS] = 2;
	mc.c.stretch = true;
	mc.c.order = -7;
	struct rig_key k = {.frame = 3, .value = 0.5, .interp = RIG_INTERP_HOLD};
	rig_key_list_put(&mc.keys[RIG_CC_MIX], &k);
	cr_assert_eq(rig_shot_model_constraint_put(&m, &mc), 0);
	cr_assert_eq(mc.keys[RIG_CC_MIX].items, NULL, "the model took the keys");
	strcpy(mc.c.id, "a-first");
	mc.c.n_chain = 1;
	strcpy(mc.c.chain_ids[0], "a");
	strcpy(mc.c.target_id, "t");
	strcpy(mc.c.pole_id, "p");
	mc.c.tip_length = 1;
	cr_assert_eq(rig_shot_model_constraint_put(&m, &mc), 0);
	save_next(tx, &m);
	rig_shot_model_release(&m);

	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	cr_assert_eq(m.n_constraints, 2);
	const struct rig_model_constraint *first = &m.constraints[0], *arm = &m.constraints[1];
	cr_assert_str_eq(first->c.id, "a-first"); /* by id */
	cr_assert_str_eq(first->c.pole_id, "p");
	cr_assert_str_eq(arm->c.id, "arm");
	cr_assert_eq(arm->c.n_chain, 3);
	cr_assert_str_eq(arm->c.chain_ids[1], "b.1");
	cr_assert_str_eq(arm->c.chain_ids[2], "c:2");
	cr_assert_str_eq(arm->c.target_id, "t");
	cr_assert_str_eq(arm->c.pole_id, "");
	cr_assert_eq(arm->c.bend, -1);
	cr_assert_eq(arm->c.tip_length, 1.0 / 3.0);
	cr_assert_eq(arm->c.statics[RIG_CC_MIX], 0.25);
	cr_assert_eq(arm->c.statics[RIG_CC_SOFTNESS], 2);
	cr_assert(arm->c.stretch && !arm->c.compress);
	cr_assert_eq(arm->c.order, -7);
	cr_assert_eq(arm->keys[RIG_CC_MIX].count, 1);
	cr_assert_eq(arm->keys[RIG_CC_MIX].items[0].value, 0.5);
	cr_assert_eq(arm->keys[RIG_CC_SOFTNESS].count, 0);

	cr_assert(rig_shot_model_constraint_delete(&m, "arm"));
	cr_assert_not(rig_shot_model_constraint_delete(&m, "arm"));
	save_next(tx, &m);
	rig_shot_model_release(&m);
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	cr_assert_eq(m.n_constraints, 1);
	cr_assert_str_eq(m.constraints[0].c.id, "a-first");
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}
