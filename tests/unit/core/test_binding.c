/* The binding table (core/binding.c) and the interface it dispatches through:
 * every row is complete and named once, the skin is a row, the skin's row
 * answers as the skin itself does, and the resolver drives a kind it knows
 * nothing about (a test kind that is no skin) through the row alone.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "core/binding.h"
#include "core/rig.h"
#include "tests/unit/core/support.h"

Test(binding_table, every_row_is_complete_and_named_once)
{
	cr_assert_gt(rig_binding_n_types, 0);
	for (size_t i = 0; i < rig_binding_n_types; i++) {
		const struct rig_binding_type *t = rig_binding_types[i];
		cr_assert_not_null(t, "row %zu", i);
		cr_assert(t->name && t->name[0], "row %zu has no name", i);
		cr_assert(t->validate && t->def_free && t->def_release_arrays && t->def_bytes &&
				  t->def_n_verts && t->def_n_tris && t->def_source &&
				  t->def_triangles && t->def_n_joints && t->def_joint_id &&
				  t->def_joint_layer && t->prepare && t->eval_def && t->evaluate &&
				  t->bytes && t->free,
			  "row '%s' lacks a function", t->name);
		cr_assert(t->def_copy || (t->encode && t->decode),
			  "row '%s' cannot be copied (rig_binding_def_copy)", t->name);
		cr_assert_eq(rig_binding_type_find(t->name), t, "'%s' finds another row", t->name);
		cr_assert_not_null(t->diff_bytes, "row '%s' has no diff estimate", t->name);
		cr_assert_gt(t->n_parts, 1, "row '%s' diffs less than source and triangles",
			     t->name);
		for (size_t p = 0; p < t->n_parts; p++) {
			const struct rig_binding_part *part = &t->parts[p];
			cr_assert(part->name && part->name[0] && part->compare, "'%s' part %zu",
				  t->name, p);
			cr_assert_eq(part->shape == RIG_DIFF_RUNS, part->list != NULL,
				     "'%s' part '%s': a list exactly for runs", t->name,
				     part->name);
			for (size_t q = p + 1; q < t->n_parts; q++)
				cr_assert_str_neq(part->name, t->parts[q].name, "'%s' has two '%s'",
						  t->name, part->name);
		}
		for (size_t j = i + 1; j < rig_binding_n_types; j++)
			cr_assert_str_neq(t->name, rig_binding_types[j]->name, "'%s' has two rows",
					  t->name);
	}
}

Test(binding_table, the_skin_is_a_row)
{
	cr_assert_eq(rig_binding_type_find("skin"), &rig_binding_skin);
	cr_assert_not_null(rig_binding_type_find("puppet"), "a registered kind (issue 24)");
	cr_assert_null(rig_binding_type_find(""));
}

/* A heap copy of the strip, as the shot model holds a skin. */
static struct rig_skin_def *heap_strip(void)
{
	struct rig_skin_def *d = malloc(sizeof *d);
	cr_assert_not_null(d);
	*d = strip_def();
	strcpy(d->joints[0].layer_id, "a");
	strcpy(d->joints[1].layer_id, "b");
	return d;
}

Test(skin_row, reads_the_definition_it_is_given)
{
	const struct rig_binding_type *t = &rig_binding_skin;
	struct rig_skin_def *d = heap_strip();
	cr_assert_eq(t->def_n_verts(d), 6);
	cr_assert_eq(t->def_n_tris(d), 4);
	cr_assert_eq(t->def_source(d), d->source);
	cr_assert_eq(t->def_triangles(d), d->triangles);
	cr_assert_eq(t->def_n_joints(d), 2);
	cr_assert_str_eq(t->def_joint_id(d, 1), "tip");
	cr_assert_str_eq(t->def_joint_layer(d, 0), "a");
	size_t with_arrays = t->def_bytes(d);
	t->def_release_arrays(d);
	cr_assert_null(d->source, "the per-vertex arrays go");
	cr_assert_eq(t->def_n_joints(d), 2, "the joints stay");
	cr_assert_eq(t->def_bytes(d), with_arrays, "def_bytes never counted the arrays");
	t->def_free(d);
	t->def_free(NULL);
}

Test(skin_row, copies_deeply_so_prepare_may_take_the_copy)
{
	const struct rig_binding_type *t = &rig_binding_skin;
	struct rig_skin_def *d = heap_strip();
	struct rig_skin_def *c = rig_binding_def_copy(t, d);
	cr_assert_not_null(c);
	cr_assert_neq(c->source, d->source, "its own arrays");
	cr_assert_eq(memcmp(c->source, d->source, 12 * sizeof *d->source), 0);
	cr_assert_eq(memcmp(c->triangles, d->triangles, 12 * sizeof *d->triangles), 0);
	cr_assert_str_eq(t->def_joint_layer(c, 1), "b");
	struct rig_errs *errs = rig_errs_new();
	void *eval = t->prepare(c, errs);
	cr_assert_not_null(eval);
	t->def_free(c);
	cr_assert_eq(t->def_n_verts(t->eval_def(eval)), 6);
	cr_assert_not_null(d->source, "the original keeps its arrays");
	t->free(eval);
	t->def_free(d);
	rig_errs_free(errs);
}

Test(skin_row, validates_with_the_skin_rules)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_skin_def *d = heap_strip();
	cr_assert_eq(rig_binding_skin.validate(d, errs), 0);
	cr_assert_not(rig_errs_any(errs));
	d->joints[1].bind = affine(0, 0, 0, 0, 0, 0);
	cr_assert_eq(rig_binding_skin.validate(d, errs), -1);
	cr_assert_geq(find_err(errs, RIG_SKIN_BIND), 0);
	rig_binding_skin.def_free(d);
	struct rig_skin_def zero = {0};
	rig_errs_init(errs);
	cr_assert_eq(rig_binding_skin.validate(&zero, errs), -1, "a zeroed skin is invalid");
	rig_errs_free(errs);
}

Test(skin_row, evaluates_as_the_skin_does)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_skin_def *d = heap_strip();
	struct rig_skin *direct = rig_skin_new(d, errs);
	cr_assert_not_null(direct);
	void *eval = rig_binding_skin.prepare(d, errs); /* takes the arrays */
	cr_assert_not_null(eval);
	const struct rig_skin_def *own = rig_binding_skin.eval_def(eval);
	cr_assert_eq(own->n_verts, 6);
	cr_assert_eq(rig_binding_skin.bytes(eval), rig_skin_bytes(eval));
	struct rig_affine poses[2] = {translate(1, 2), rotate_rad(0.25)};
	double via_row[12], via_skin[12];
	cr_assert_eq(rig_binding_skin.evaluate(via_row, eval, poses, 42, errs), 0);
	cr_assert_eq(rig_skin_evaluate(via_skin, direct, poses, errs), 0);
	cr_assert_arr_eq(via_row, via_skin, sizeof via_row, "bit for bit");
	rig_binding_skin.free(eval);
	rig_binding_skin.free(NULL);
	rig_skin_free(direct);
	rig_binding_skin.def_free(d);
	rig_errs_free(errs);
}

/* ---- a kind the resolver has never heard of ---- */

/* A triangle that slides along x by its layer's local frame and follows one
 * joint by its translation: enough to see what the resolver hands a row. */
struct slide {
	double source[6];
	uint32_t triangles[3];
	char joint_layer[8];
};

static size_t slide_verts(const void *def)
{
	(void)def;
	return 3;
}

static size_t slide_tris(const void *def)
{
	(void)def;
	return 1;
}

static const double *slide_source(const void *def)
{
	return ((const struct slide *)def)->source;
}

static const uint32_t *slide_triangles(const void *def)
{
	return ((const struct slide *)def)->triangles;
}

static size_t slide_joints(const void *def)
{
	(void)def;
	return 1;
}

static const char *slide_joint_id(const void *def, size_t j)
{
	(void)def;
	(void)j;
	return "pin";
}

static const char *slide_joint_layer(const void *def, size_t j)
{
	(void)j;
	return ((const struct slide *)def)->joint_layer;
}

static const void *slide_def(const void *eval)
{
	return eval;
}

static int slide_evaluate(double *out_xy, const void *eval, const struct rig_affine *poses,
			  double local_frame, struct rig_errs *errs)
{
	(void)errs;
	const struct slide *s = eval;
	for (size_t v = 0; v < 3; v++) {
		out_xy[2 * v] = s->source[2 * v] + local_frame + poses[0].m[4];
		out_xy[2 * v + 1] = s->source[2 * v + 1] + poses[0].m[5];
	}
	return 0;
}

static const struct rig_binding_type slide_type = {
	.name = "slide",
	.def_n_verts = slide_verts,
	.def_n_tris = slide_tris,
	.def_source = slide_source,
	.def_triangles = slide_triangles,
	.def_n_joints = slide_joints,
	.def_joint_id = slide_joint_id,
	.def_joint_layer = slide_joint_layer,
	.eval_def = slide_def,
	.evaluate = slide_evaluate,
};

Test(resolver_binding, drives_any_kind_through_its_row)
{
	struct rig_layer layers[2];
	memset(layers, 0, sizeof layers);
	strcpy(layers[0].id, "pin");
	layers[0].kind = RIG_LAYER_GROUP;
	layers[0].parent = RIG_NO_LAYER;
	layers[0].statics = rig_transform_default();
	layers[0].statics.ch[RIG_CH_POSITION_X] = 100;
	layers[0].statics.ch[RIG_CH_POSITION_Y] = 7;
	strcpy(layers[1].id, "m");
	layers[1].kind = RIG_LAYER_MESH;
	layers[1].parent = RIG_NO_LAYER;
	layers[1].statics = rig_transform_default();
	layers[1].time_offset = 2;
	layers[1].deformed = true;
	struct slide s = {{0, 0, 1, 0, 0, 1}, {0, 1, 2}, "pin"};
	long joint_layers[1] = {0};
	layers[1].binding = &slide_type;
	layers[1].binding_eval = &s;
	layers[1].joint_layers = joint_layers;
	struct rig_scene scene = {.layers = layers, .n_layers = 2};
	struct rig_resolver *r = rig_resolver_new(&scene);
	struct rig_errs *errs = rig_errs_new();
	double xy[6];
	cr_assert_eq(rig_resolver_evaluate(xy, r, 1, 5, errs), 0);
	/* local frame 5 − 2 = 3; the pin's pose in the mesh's space is its
	 * translation (100, 7): both shot-root children, the mesh at identity. */
	double want[6] = {103, 7, 104, 7, 103, 8};
	cr_assert_arr_eq(xy, want, sizeof xy);
	rig_resolver_free(r);
	rig_errs_free(errs);
}
