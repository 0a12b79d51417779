/* The comparison of two shot versions (api/eval/model_diff.c) on hand-built
 * models: created, deleted and changed layers, fields, keys per channel, and
 * each binding part (one weight change yields exactly its vertex), joints,
 * a mesh binding's keys, constraints.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "api/eval/model_diff.h"
#include "core/mesh_binding.h"
#include "core/skin.h"

#define N_VERTS 10

/* A loaded skin of N_VERTS vertices on joints a and b, every vertex on a. */
static struct rig_skin_def *new_skin(void)
{
	struct rig_skin_def *d = calloc(1, sizeof *d);
	d->n_verts = d->n_weight_lists = N_VERTS;
	d->source = calloc(2 * N_VERTS, sizeof *d->source);
	for (size_t v = 0; v < N_VERTS; v++) {
		d->source[2 * v] = (double)v;
		d->source[2 * v + 1] = (double)(v % 2);
	}
	d->n_tris = N_VERTS - 2;
	d->triangles = calloc(3 * d->n_tris, sizeof *d->triangles);
	for (size_t t = 0; t < d->n_tris; t++) {
		d->triangles[3 * t] = (uint32_t)t;
		d->triangles[3 * t + 1] = (uint32_t)t + 1;
		d->triangles[3 * t + 2] = (uint32_t)t + 2;
	}
	d->n_joints = 2;
	d->joints = calloc(2, sizeof *d->joints);
	strcpy(d->joints[0].id, "a");
	strcpy(d->joints[0].layer_id, "ja");
	d->joints[0].bind = rig_affine_identity();
	strcpy(d->joints[1].id, "b");
	strcpy(d->joints[1].layer_id, "jb");
	d->joints[1].bind = rig_affine_identity();
	d->weight_offsets = calloc(N_VERTS + 1, sizeof *d->weight_offsets);
	d->influences = calloc(2 * N_VERTS, sizeof *d->influences);
	for (size_t v = 0; v < N_VERTS; v++) {
		d->weight_offsets[v + 1] = (uint32_t)v + 1;
		d->influences[v] = (struct rig_skin_influence){0, 1.0};
	}
	return d;
}

/* Two influences (a 0.5, b 0.5) on vertex v of a skin built by new_skin. */
static void split_vertex(struct rig_skin_def *d, size_t v)
{
	struct rig_skin_influence *in = calloc(N_VERTS + 1, sizeof *in);
	size_t k = 0;
	for (size_t i = 0; i < N_VERTS; i++) {
		d->weight_offsets[i] = (uint32_t)k;
		if (i == v) {
			in[k++] = (struct rig_skin_influence){0, 0.5};
			in[k++] = (struct rig_skin_influence){1, 0.5};
		} else {
			in[k++] = d->influences[i];
		}
	}
	d->weight_offsets[N_VERTS] = (uint32_t)k;
	free(d->influences);
	d->influences = in;
}

static void bind_skin(struct rig_model_layer *l, struct rig_skin_def *d, long long revision)
{
	rig_model_binding_set(l, &rig_binding_skin, d);
	l->binding.n_verts = d->n_verts;
	l->binding.n_tris = d->n_tris;
	l->binding.revision = revision;
}

/* ja → jb joints and a skinned mesh "m" at revision 1. */
static void base_model(struct rig_shot_model *m)
{
	memset(m, 0, sizeof *m);
	strcpy(m->id, "s");
	m->name = strdup("s");
	cr_assert_not_null(rig_shot_model_add(m, "ja", "Joint A", RIG_LAYER_GROUP, NULL));
	cr_assert_not_null(rig_shot_model_add(m, "jb", "Joint B", RIG_LAYER_GROUP, "ja"));
	struct rig_model_layer *mesh = rig_shot_model_add(m, "m", "Mesh", RIG_LAYER_MESH, NULL);
	cr_assert_not_null(mesh);
	bind_skin(mesh, new_skin(), 1);
}

struct pair {
	struct rig_shot_model a, b;
	struct rig_model_diff d;
};

static void pair_init(struct pair *p)
{
	base_model(&p->a);
	base_model(&p->b);
}

/* Diffs a → b, comparing every binding that needs it with the models' own
 * (loaded) definitions, as the handler does with definitions it reads. */
static void pair_diff(struct pair *p)
{
	cr_assert_eq(rig_model_diff_shots(&p->d, &p->a, &p->b), 0);
	for (size_t i = 0; i < p->d.n_layers; i++) {
		struct rig_layer_diff *ld = &p->d.layers[i];
		if (ld->binding.needs_parts)
			cr_assert_eq(rig_model_diff_binding(ld,
							    p->a.layers[ld->from_index].binding.def,
							    p->b.layers[ld->to_index].binding.def),
				     0);
	}
	rig_model_diff_prune(&p->d);
}

static void pair_release(struct pair *p)
{
	rig_model_diff_release(&p->d);
	rig_shot_model_release(&p->a);
	rig_shot_model_release(&p->b);
}

static const struct rig_layer_diff *only(const struct pair *p, const char *id)
{
	cr_assert_eq(p->d.n_layers, 1, "%zu records", p->d.n_layers);
	cr_assert_str_eq(p->d.layers[0].layer_id, id);
	return &p->d.layers[0];
}

static void assert_runs(const struct rig_index_runs *r, size_t n, const size_t *expected)
{
	size_t k = 0;
	for (size_t i = 0; i < r->count; i++)
		for (size_t v = r->items[i].first; v <= r->items[i].last; v++, k++) {
			cr_assert_lt(k, n, "more indices than expected");
			cr_assert_eq(v, expected[k], "index %zu is %zu, not %zu", k, v,
				     expected[k]);
		}
	cr_assert_eq(k, n);
	cr_assert_eq(r->n_indices, n);
}

Test(model_diff, equal_models_have_no_records)
{
	struct pair p;
	pair_init(&p);
	pair_diff(&p);
	cr_assert_eq(p.d.n_layers, 0);
	cr_assert_eq(p.d.constraints_created.count + p.d.constraints_changed.count +
			     p.d.constraints_deleted.count,
		     0);
	pair_release(&p);
}

Test(model_diff, created_and_deleted_layers)
{
	struct pair p;
	pair_init(&p);
	rig_shot_model_find(&p.b, "m")->deleted = true;
	rig_shot_model_add(&p.b, "new", "New", RIG_LAYER_GROUP, "ja");
	pair_diff(&p);
	cr_assert_eq(p.d.n_layers, 2);
	cr_assert_str_eq(p.d.layers[0].layer_id, "m");
	cr_assert_eq(p.d.layers[0].change, RIG_DIFF_DELETED);
	cr_assert_eq(p.d.layers[0].binding.change, RIG_BINDING_DELETED);
	cr_assert_str_eq(p.d.layers[0].binding.kind_from, "skin");
	cr_assert_eq(p.d.layers[0].binding.n_verts_from, N_VERTS);
	cr_assert_str_eq(p.d.layers[1].layer_id, "new");
	cr_assert_eq(p.d.layers[1].change, RIG_DIFF_CREATED);
	cr_assert_eq(p.d.layers[1].binding.change, RIG_BINDING_SAME);
	pair_release(&p);
}

Test(model_diff, fields_name_parent_and_a_static_channel)
{
	struct pair p;
	pair_init(&p);
	struct rig_model_layer *jb = rig_shot_model_find(&p.b, "jb");
	free(jb->name);
	jb->name = strdup("Elbow");
	pair_diff(&p);
	cr_assert_eq(only(&p, "jb")->fields, RIG_DIFF_F_NAME);
	rig_model_diff_release(&p.d);

	strcpy(jb->parent_id, "");
	jb->statics.ch[RIG_CH_ROTATION] = 30;
	jb->time_offset = 2;
	pair_diff(&p);
	cr_assert_eq(only(&p, "jb")->fields, RIG_DIFF_F_NAME | RIG_DIFF_F_PARENT |
						     RIG_DIFF_F_TIME_OFFSET |
						     (RIG_DIFF_F_STATIC << RIG_CH_ROTATION));
	cr_assert_eq(p.d.layers[0].binding.change, RIG_BINDING_SAME);
	pair_release(&p);
}

Test(model_diff, keys_per_channel_added_removed_changed)
{
	struct pair p;
	pair_init(&p);
	struct rig_model_layer *a = rig_shot_model_find(&p.a, "ja");
	struct rig_model_layer *b = rig_shot_model_find(&p.b, "ja");
	struct rig_key k0 = {.frame = 0, .value = 1}, k10 = {.frame = 10, .value = 2};
	struct rig_key k10b = {.frame = 10, .value = 2, .interp = RIG_INTERP_HOLD};
	struct rig_key k20 = {.frame = 20, .value = 3};
	rig_key_list_put(&a->keys[RIG_CH_ROTATION], &k0);
	rig_key_list_put(&a->keys[RIG_CH_ROTATION], &k10);
	rig_key_list_put(&b->keys[RIG_CH_ROTATION], &k10b);
	rig_key_list_put(&b->keys[RIG_CH_ROTATION], &k20);
	rig_key_list_put(&a->keys[RIG_CH_SCALE_X], &k0);
	rig_key_list_put(&b->keys[RIG_CH_SCALE_X], &k0);
	pair_diff(&p);
	const struct rig_layer_diff *d = only(&p, "ja");
	cr_assert_eq(d->fields, 0);
	const struct rig_key_diff *k = &d->keys[RIG_CH_ROTATION];
	cr_assert_eq(k->added.count, 1);
	cr_assert_eq(k->added.items[0], 20);
	cr_assert_eq(k->removed.count, 1);
	cr_assert_eq(k->removed.items[0], 0);
	cr_assert_eq(k->changed.count, 1, "interp hold is a change");
	cr_assert_eq(k->changed.items[0], 10);
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		if (ch != RIG_CH_ROTATION)
			cr_assert_eq(d->keys[ch].added.count + d->keys[ch].removed.count +
					     d->keys[ch].changed.count,
				     0, "channel %d", ch);
	pair_release(&p);
}

/* What part name of the record's binding found (the skin has every one asked). */
static const struct rig_part_diff *part(const struct rig_layer_diff *d, const char *name)
{
	const struct rig_part_diff *p = rig_binding_diff_part(&d->binding, name);
	cr_assert_not_null(p, "no part '%s'", name);
	return p;
}

Test(model_diff, one_weight_change_yields_exactly_that_vertex)
{
	struct pair p;
	pair_init(&p);
	struct rig_model_layer *m = rig_shot_model_find(&p.b, "m");
	split_vertex(m->binding.def, 7);
	m->binding.revision = 2;
	pair_diff(&p);
	const struct rig_layer_diff *d = only(&p, "m");
	cr_assert_eq(d->binding.change, RIG_BINDING_CHANGED);
	assert_runs(&part(d, "weights")->runs, 1, (size_t[]){7});
	cr_assert_eq(part(d, "source")->runs.count, 0);
	cr_assert_eq(part(d, "triangles")->runs.count, 0);
	cr_assert_eq(part(d, "joints")->ids.changed.count + part(d, "joints")->ids.added.count +
			     part(d, "joints")->ids.removed.count,
		     0);
	pair_release(&p);
}

Test(model_diff, same_revision_is_the_same_binding_and_unchanged_rewrite_is_dropped)
{
	struct pair p;
	pair_init(&p);
	/* Same revision: the stored binding is shared, not compared. */
	cr_assert_eq(rig_model_diff_shots(&p.d, &p.a, &p.b), 0);
	cr_assert_eq(p.d.n_layers, 0);
	rig_model_diff_release(&p.d);
	/* Another revision with equal contents: compared, then dropped. */
	rig_shot_model_find(&p.b, "m")->binding.revision = 5;
	cr_assert_eq(rig_model_diff_shots(&p.d, &p.a, &p.b), 0);
	cr_assert_eq(p.d.n_layers, 1);
	cr_assert(p.d.layers[0].binding.needs_parts);
	rig_model_diff_release(&p.d);
	pair_diff(&p);
	cr_assert_eq(p.d.n_layers, 0);
	pair_release(&p);
}

Test(model_diff, source_triangles_joints_and_counts)
{
	struct pair p;
	pair_init(&p);
	struct rig_model_layer *m = rig_shot_model_find(&p.b, "m");
	struct rig_skin_def *d = m->binding.def;
	d->source[2 * 3] = 99;
	d->source[2 * 4 + 1] = 99;
	d->source[2 * 5] = 99;
	d->source[2 * 8] = 99;
	d->triangles[3 * 2] = 9;
	d->joints[1].bind.m[4] = 40;
	strcpy(d->joints[0].layer_id, "jb");
	m->binding.revision = 3;
	pair_diff(&p);
	const struct rig_layer_diff *ld = only(&p, "m");
	assert_runs(&part(ld, "source")->runs, 4, (size_t[]){3, 4, 5, 8});
	cr_assert_eq(part(ld, "source")->runs.count, 2, "3-5 is one run");
	assert_runs(&part(ld, "triangles")->runs, 1, (size_t[]){2});
	cr_assert_eq(part(ld, "joints")->ids.changed.count, 2);
	cr_assert_str_eq(part(ld, "joints")->ids.changed.items[0], "a");
	cr_assert_str_eq(part(ld, "joints")->ids.changed.items[1], "b");
	cr_assert_eq(part(ld, "weights")->runs.count, 0, "weights follow joint ids, not indices");
	rig_model_diff_release(&p.d);

	/* A renamed joint is one removed and one added; its vertices' weights change. */
	strcpy(d->joints[1].id, "c");
	d->n_verts = d->n_weight_lists = N_VERTS - 2; /* the last two vertices go */
	d->n_tris = N_VERTS - 4;
	pair_diff(&p);
	ld = only(&p, "m");
	cr_assert_str_eq(part(ld, "joints")->ids.removed.items[0], "b");
	cr_assert_str_eq(part(ld, "joints")->ids.added.items[0], "c");
	assert_runs(&part(ld, "source")->runs, 5, (size_t[]){3, 4, 5, 8, 9});
	assert_runs(&part(ld, "weights")->runs, 2, (size_t[]){8, 9});
	assert_runs(&part(ld, "triangles")->runs, 3, (size_t[]){2, 6, 7});
	cr_assert_eq(ld->binding.n_verts_from, N_VERTS);
	cr_assert_eq(ld->binding.n_verts_to, N_VERTS - 2);
	d->n_verts = d->n_weight_lists = N_VERTS;
	d->n_tris = N_VERTS - 2;
	pair_release(&p);
}

Test(model_diff, binding_kind_created_and_deleted_on_a_kept_layer)
{
	struct pair p;
	pair_init(&p);
	rig_model_binding_set(rig_shot_model_find(&p.b, "m"), NULL, NULL);
	pair_diff(&p);
	cr_assert_eq(only(&p, "m")->binding.change, RIG_BINDING_DELETED);
	rig_model_diff_release(&p.d);
	struct rig_mesh_def *md = calloc(1, sizeof *md);
	md->n_verts = 3;
	rig_model_binding_set(rig_shot_model_find(&p.b, "m"), &rig_binding_mesh, md);
	pair_diff(&p);
	cr_assert_eq(only(&p, "m")->binding.change, RIG_BINDING_KIND);
	cr_assert_str_eq(p.d.layers[0].binding.kind_to, "mesh");
	cr_assert_eq(p.d.layers[0].binding.needs_parts, false);
	pair_release(&p);
}

Test(model_diff, constraints_created_deleted_changed)
{
	struct pair p;
	pair_init(&p);
	struct rig_model_constraint c = {0};
	strcpy(c.c.id, "arm");
	c.c.n_chain = 1;
	strcpy(c.c.chain_ids[0], "jb");
	strcpy(c.c.target_id, "ja");
	c.c.tip_length = 1;
	struct rig_model_constraint c2 = c, c3 = c;
	cr_assert_eq(rig_shot_model_constraint_put(&p.a, &c), 0);
	c2.c.tip_length = 2;
	cr_assert_eq(rig_shot_model_constraint_put(&p.b, &c2), 0);
	strcpy(c3.c.id, "leg");
	cr_assert_eq(rig_shot_model_constraint_put(&p.b, &c3), 0);
	pair_diff(&p);
	cr_assert_eq(p.d.n_layers, 0);
	cr_assert_eq(p.d.constraints_changed.count, 1);
	cr_assert_str_eq(p.d.constraints_changed.items[0], "arm");
	cr_assert_eq(p.d.constraints_created.count, 1);
	cr_assert_str_eq(p.d.constraints_created.items[0], "leg");
	cr_assert_eq(p.d.constraints_deleted.count, 0);
	rig_model_diff_release(&p.d);
	/* The other way round: leg deleted. */
	cr_assert_eq(rig_model_diff_shots(&p.d, &p.b, &p.a), 0);
	cr_assert_eq(p.d.constraints_deleted.count, 1);
	cr_assert_str_eq(p.d.constraints_deleted.items[0], "leg");
	pair_release(&p);
}

/* A one-triangle mesh binding with keys at the given frames, each key's
 * vertices the source moved by its frame. */
static struct rig_mesh_def *keyed_mesh(const double *frames, size_t n_keys)
{
	struct rig_mesh_def *d = calloc(1, sizeof *d);
	d->n_verts = 3;
	d->n_tris = 1;
	d->source = malloc(6 * sizeof *d->source);
	memcpy(d->source, (double[]){0, 0, 1, 0, 0, 1}, 6 * sizeof *d->source);
	d->triangles = malloc(3 * sizeof *d->triangles);
	memcpy(d->triangles, (uint32_t[]){0, 1, 2}, 3 * sizeof *d->triangles);
	d->n_keys = n_keys;
	d->times = calloc(n_keys, sizeof *d->times);
	d->key_xy = calloc(n_keys, sizeof *d->key_xy);
	for (size_t k = 0; k < n_keys; k++) {
		d->times[k].frame = frames[k];
		d->key_xy[k] = malloc(6 * sizeof **d->key_xy);
		for (int i = 0; i < 6; i++)
			d->key_xy[k][i] = d->source[i] + frames[k];
	}
	return d;
}

Test(model_diff, a_mesh_binding_diffs_its_keys_by_frame)
{
	struct rig_mesh_def *a = keyed_mesh((double[]){0, 10, 20}, 3);
	struct rig_mesh_def *b = keyed_mesh((double[]){0, 10, 30}, 3);
	b->key_xy[1][4] = -1; /* key 10's vertex 2 moved */
	b->source[0] = 0.5;   /* vertex 0 of the source */
	struct rig_layer_diff ld;
	memset(&ld, 0, sizeof ld);
	ld.change = RIG_DIFF_CHANGED;
	ld.binding.change = RIG_BINDING_CHANGED;
	ld.binding.kind_from = ld.binding.kind_to = "mesh";
	ld.binding.needs_parts = true;
	cr_assert_eq(rig_model_diff_binding(&ld, a, b), 0);
	cr_assert_eq(ld.binding.change, RIG_BINDING_CHANGED);
	const struct rig_key_diff *k = &part(&ld, "keys")->frames;
	cr_assert(k->added.count == 1 && k->added.items[0] == 30);
	cr_assert(k->removed.count == 1 && k->removed.items[0] == 20);
	cr_assert(k->changed.count == 1 && k->changed.items[0] == 10);
	assert_runs(&part(&ld, "source")->runs, 1, (size_t[]){0});
	cr_assert_eq(part(&ld, "triangles")->runs.count, 0);
	cr_assert_null(rig_binding_diff_part(&ld.binding, "weights"), "a mesh has no weights");
	struct rig_model_diff d = {.n_layers = 1, .cap_layers = 1}; /* frees the record's parts */
	d.layers = malloc(sizeof ld);
	*d.layers = ld;
	rig_model_diff_release(&d);
	rig_binding_mesh.def_free(a);
	rig_binding_mesh.def_free(b);
}
