/* The binding kinds above the core (api/edit/binding.c): every kind of the
 * core's list has exactly one complete row, its collections are mesh-data
 * kinds named once, and the skin's row summarises and pages a skin as the API shows it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/edit/ops.h"
#include "core/skin.h"

static const char *const mesh_data_kinds[] = {"vertices", "triangles", "uvs",        "joints",
					      "weights",  "pins",      "pinWeights", "keyframes"};

static bool is_mesh_data_kind(const char *name)
{
	for (size_t i = 0; i < sizeof mesh_data_kinds / sizeof mesh_data_kinds[0]; i++)
		if (strcmp(mesh_data_kinds[i], name) == 0)
			return true;
	return false;
}

Test(binding_kinds, every_core_kind_has_one_complete_row)
{
	cr_assert_eq(rig_binding_n_kinds, rig_binding_n_types);
	for (size_t i = 0; i < rig_binding_n_types; i++) {
		const struct rig_binding_type *type = rig_binding_types[i];
		const struct rig_binding_kind *kind = rig_binding_kind_of(type);
		cr_assert_not_null(kind, "kind '%s' has no row", type->name);
		cr_assert_eq(kind->type, type);
		cr_assert_eq(rig_binding_kinds[i], kind, "rows follow RIG_BINDING_KINDS");
		cr_assert(kind->rest_apply && kind->summary, "row '%s' lacks a function",
			  type->name);
		for (size_t c = 0; c < kind->n_collections; c++) {
			const struct rig_binding_collection *col = &kind->collections[c];
			cr_assert(is_mesh_data_kind(col->name), "'%s' pages '%s'", type->name,
				  col->name);
			cr_assert(col->count && (col->encode || col->encode_eval));
			cr_assert_eq(rig_binding_collection_find(kind, col->name), col,
				     "'%s' has two '%s'", type->name, col->name);
		}
	}
	cr_assert_null(rig_binding_kind_of(NULL));
	cr_assert_null(rig_binding_collection_find(NULL, "vertices"));
}

/* The route's names: every kind's, each once, in the kinds' order (the order
 * its 400 detail lists them in). */
Test(binding_kinds, collection_names_are_every_kinds_once)
{
	const char *names[RIG_BINDING_MAX_COLLECTIONS];
	size_t n = rig_binding_collection_names(names), total = 0;
	for (size_t k = 0; k < rig_binding_n_kinds; k++) {
		total += rig_binding_kinds[k]->n_collections;
		for (size_t c = 0; c < rig_binding_kinds[k]->n_collections; c++) {
			size_t hits = 0;
			for (size_t i = 0; i < n; i++)
				hits += strcmp(names[i],
					       rig_binding_kinds[k]->collections[c].name) == 0;
			cr_assert_eq(hits, 1, "'%s'", rig_binding_kinds[k]->collections[c].name);
		}
	}
	cr_assert_lt(total, RIG_BINDING_MAX_COLLECTIONS, "raise RIG_BINDING_MAX_COLLECTIONS");
	cr_assert_str_eq(names[0], "vertices");
}

Test(binding_kinds, the_skin_pages_four_collections)
{
	const struct rig_binding_kind *skin = rig_binding_kind_of(&rig_binding_skin);
	cr_assert_not_null(skin);
	cr_assert_not_null(rig_binding_collection_find(skin, "vertices"));
	cr_assert(rig_binding_collection_find(skin, "vertices")->evaluates);
	cr_assert_not_null(rig_binding_collection_find(skin, "triangles"));
	cr_assert_not_null(rig_binding_collection_find(skin, "joints"));
	cr_assert_not(rig_binding_collection_find(skin, "joints")->needs_arrays,
		      "joints load with the shot");
	cr_assert_not_null(rig_binding_collection_find(skin, "weights"));
	cr_assert_null(rig_binding_collection_find(skin, "keyframes"),
		       "a skin's animation is its joint layers' keys");
}

/* The compact decoder reads what the rows name: each row's op is a row of the
 * op table, and two rows naming one holder and field agree on its shape (the
 * decoder reads the array once, whichever op follows). */
Test(binding_kinds, bulk_members_name_real_ops_and_agree_on_shapes)
{
	for (size_t k = 0; k < rig_binding_n_kinds; k++) {
		const struct rig_binding_kind *kind = rig_binding_kinds[k];
		for (size_t i = 0; i < kind->n_bulk_members; i++) {
			const struct rig_bulk_member *r = &kind->bulk_members[i];
			cr_assert_not_null(rig_op_type_find(r->op), "'%s' names op '%s'",
					   kind->type->name, r->op);
			cr_assert(r->holder && r->holder[0] && (!r->field || r->field[0]));
			for (size_t k2 = 0; k2 < rig_binding_n_kinds; k2++)
				for (size_t j = 0; j < rig_binding_kinds[k2]->n_bulk_members; j++) {
					const struct rig_bulk_member *o =
						&rig_binding_kinds[k2]->bulk_members[j];
					if (strcmp(o->holder, r->holder) ||
					    (!o->field != !r->field) ||
					    (o->field && strcmp(o->field, r->field)))
						continue;
					cr_assert_eq(o->shape, r->shape, "'%s/%s' has two shapes",
						     r->holder, r->field ? r->field : "");
				}
		}
	}
}

/* A loaded one-triangle skin on one joint, held by a model layer. */
static void skin_layer(struct rig_model_layer *l)
{
	memset(l, 0, sizeof *l);
	strcpy(l->id, "m");
	struct rig_skin_def *d = calloc(1, sizeof *d);
	d->n_verts = d->n_weight_lists = 3;
	d->source = malloc(6 * sizeof *d->source);
	memcpy(d->source, (double[]){0, 0, 1, 0, 0, 1}, 6 * sizeof *d->source);
	d->n_tris = 1;
	d->triangles = malloc(3 * sizeof *d->triangles);
	memcpy(d->triangles, (uint32_t[]){0, 1, 2}, 3 * sizeof *d->triangles);
	d->n_joints = 1;
	d->joints = calloc(1, sizeof *d->joints);
	strcpy(d->joints[0].id, "j");
	strcpy(d->joints[0].layer_id, "a");
	d->joints[0].bind = rig_affine_identity();
	d->weight_offsets = malloc(4 * sizeof *d->weight_offsets);
	memcpy(d->weight_offsets, (uint32_t[]){0, 1, 2, 3}, 4 * sizeof *d->weight_offsets);
	d->influences = calloc(3, sizeof *d->influences);
	for (int v = 0; v < 3; v++)
		d->influences[v].weight = 1;
	rig_model_binding_set(l, &rig_binding_skin, d);
}

Test(binding_kinds, the_skin_summary_counts_stored_or_loaded_arrays)
{
	struct rig_model_layer l;
	skin_layer(&l);
	const struct rig_binding_kind *skin = rig_binding_kind_of(&rig_binding_skin);
	json_t *got = skin->summary(&l);
	json_t *want = json_pack("{s:s, s:i, s:i, s:i}", "kind", "skin", "vertexCount", 3,
				 "triangleCount", 1, "jointCount", 1);
	cr_assert(json_equal(got, want));
	json_decref(got);
	/* Not loaded and unchanged: the stored counts speak. */
	rig_binding_skin.def_release_arrays(l.binding.def);
	l.binding.loaded = l.binding.dirty = false;
	l.binding.n_verts = 1000000;
	l.binding.n_tris = 1999998;
	got = skin->summary(&l);
	cr_assert_eq(json_integer_value(json_object_get(got, "vertexCount")), 1000000);
	cr_assert_eq(json_integer_value(json_object_get(got, "triangleCount")), 1999998);
	json_decref(got);
	json_decref(want);
	rig_binding_skin.def_free(l.binding.def);
}

Test(binding_kinds, the_skin_pages_items_as_mesh_data_shows_them)
{
	struct rig_model_layer l;
	skin_layer(&l);
	const struct rig_binding_kind *skin = rig_binding_kind_of(&rig_binding_skin);
	const void *d = l.binding.def;
	struct rig_buf b;
	rig_buf_init(&b);
	const struct rig_binding_collection *c = rig_binding_collection_find(skin, "vertices");
	cr_assert_eq(c->count(&rig_binding_skin, d), 3);
	c->encode(&b, &rig_binding_skin, d, rig_binding_skin.def_source(d), 1);
	rig_buf_puts(&b, "|");
	c = rig_binding_collection_find(skin, "triangles");
	c->encode(&b, &rig_binding_skin, d, NULL, 0);
	rig_buf_puts(&b, "|");
	c = rig_binding_collection_find(skin, "joints");
	c->encode(&b, &rig_binding_skin, d, NULL, 0);
	rig_buf_puts(&b, "|");
	c = rig_binding_collection_find(skin, "weights");
	c->encode(&b, &rig_binding_skin, d, NULL, 2);
	cr_assert_not(b.oom);
	const char *want = "{\"vertexIndex\":1,\"x\":1,\"y\":0}"
			   "|{\"triangleIndex\":0,\"indices\":[0,1,2]}"
			   "|{\"jointId\":\"j\",\"bind\":[1,0,0,1,0,0],\"layerId\":\"a\"}"
			   "|{\"vertexIndex\":2,\"influences\":[{\"jointId\":\"j\",\"weight\":1}]}";
	cr_assert_eq(b.len, strlen(want), "%.*s", (int)b.len, b.data);
	cr_assert(memcmp(b.data, want, b.len) == 0, "%.*s", (int)b.len, b.data);
	rig_buf_release(&b);
	rig_binding_skin.def_free(l.binding.def);
}
