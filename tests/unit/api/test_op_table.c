/* The op table (api/edit/op_table.c): every row is complete and named once,
 * its flags say what the batch and the lock check rely on, and decoding and
 * releasing through it are safe for any op, known or not.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/edit/ops.h"

static const struct rig_op_type *row(const char *name)
{
	const struct rig_op_type *t = rig_op_type_find(name);
	cr_assert_not_null(t, "no row for '%s'", name);
	cr_assert_str_eq(t->name, name);
	return t;
}

/* Decodes {"op": name, ...extra} as op 0 into *out, recording into errs. */
static int decode(struct rig_op *out, const char *json, struct rig_errs *errs)
{
	json_t *value = json_loads(json, 0, NULL);
	cr_assert_not_null(value, "bad test JSON: %s", json);
	int rc = rig_op_decode(out, value, 0, NULL, errs);
	json_decref(value);
	return rc;
}

Test(op_table, every_row_is_complete_and_named_once)
{
	cr_assert_gt(rig_op_n_types, 0);
	for (size_t i = 0; i < rig_op_n_types; i++) {
		const struct rig_op_type *t = &rig_op_types[i];
		cr_assert_not_null(t->name, "row %zu", i);
		cr_assert(t->decode && t->apply && t->release, "row '%s' lacks a function",
			  t->name);
		cr_assert_eq(rig_op_type_find(t->name), t, "'%s' finds another row", t->name);
		for (size_t j = i + 1; j < rig_op_n_types; j++)
			cr_assert_str_neq(t->name, rig_op_types[j].name, "'%s' has two rows",
					  t->name);
	}
}

/* A kind's own op rows are found as the table's are, and no name is both a
 * table row and a kind's, or two kinds'. */
Test(op_table, kinds_own_rows_are_complete_and_named_once)
{
	for (size_t k = 0; k < rig_binding_n_kinds; k++)
		for (size_t i = 0; i < rig_binding_kinds[k]->n_ops; i++) {
			const struct rig_op_type *t = &rig_binding_kinds[k]->ops[i];
			cr_assert(t->name && t->decode && t->apply && t->release,
				  "kind '%s' op %zu lacks a function",
				  rig_binding_kinds[k]->type->name, i);
			cr_assert(t->flags & RIG_OP_BINDING, "'%s' writes no binding", t->name);
			cr_assert_eq(rig_op_type_find(t->name), t, "'%s' finds another row",
				     t->name);
		}
}

Test(op_table, motion_ops_are_not_structural)
{
	static const char *const names[] = {"layer.rename", "layer.pose", "layer.key.put",
					    "layer.key.delete"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct rig_op_type *t = row(names[i]);
		cr_assert_not(t->flags & RIG_OP_STRUCTURAL, "'%s' is structural", names[i]);
		cr_assert_not(t->flags & RIG_OP_BINDING, "'%s' writes a binding", names[i]);
	}
}

Test(op_table, tree_and_binding_ops_are_structural)
{
	static const char *const tree[] = {"layer.create", "layer.delete", "layer.parent"};
	static const char *const binding[] = {"layer.skin", "layer.skin.bind.capture",
					      "layer.skin.weights.put", "layer.mesh.key.put",
					      "layer.deformation.rest.apply"};
	for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++) {
		cr_assert(row(tree[i])->flags & RIG_OP_STRUCTURAL, "'%s'", tree[i]);
		cr_assert_not(row(tree[i])->flags & RIG_OP_BINDING, "'%s'", tree[i]);
	}
	for (size_t i = 0; i < sizeof binding / sizeof binding[0]; i++) {
		cr_assert(row(binding[i])->flags & RIG_OP_STRUCTURAL, "'%s'", binding[i]);
		cr_assert(row(binding[i])->flags & RIG_OP_BINDING, "'%s'", binding[i]);
	}
}

Test(op_table, lock_scopes_follow_what_the_op_changes)
{
	cr_assert_eq(row("layer.create")->lock_scope, RIG_OP_LOCK_NONE);
	cr_assert_eq(row("layer.delete")->lock_scope, RIG_OP_LOCK_SUBTREE);
	/* Constraint ops name no layerId: they check their chain, target and pole
	 * layers themselves (ops_constraint.c). */
	cr_assert_eq(row("constraint.put")->lock_scope, RIG_OP_LOCK_NONE);
	cr_assert_eq(row("constraint.delete")->lock_scope, RIG_OP_LOCK_NONE);
	/* receipt.revert checks the layers its receipt changed itself (ops_revert.c). */
	cr_assert_eq(row("receipt.revert")->lock_scope, RIG_OP_LOCK_NONE);
	/* layer.bones.suggest creates layers and only reads its mesh layer. */
	cr_assert_eq(row("layer.bones.suggest")->lock_scope, RIG_OP_LOCK_NONE);
	/* shot.import creates layers; the ops it expands to check their own locks. */
	cr_assert_eq(row("shot.import")->lock_scope, RIG_OP_LOCK_NONE);
	for (size_t i = 0; i < rig_op_n_types; i++) {
		const struct rig_op_type *t = &rig_op_types[i];
		if (strcmp(t->name, "layer.create") && strcmp(t->name, "layer.delete") &&
		    strcmp(t->name, "layer.bones.suggest") && strncmp(t->name, "constraint.", 11) &&
		    strcmp(t->name, "receipt.revert") && strcmp(t->name, "shot.import"))
			cr_assert_eq(t->lock_scope, RIG_OP_LOCK_LAYER, "'%s'", t->name);
	}
}

Test(op_table, an_unknown_name_records_op_unknown)
{
	cr_assert_null(rig_op_type_find("layer.nope"));
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_op op;
	cr_assert_eq(decode(&op, "{\"op\":\"layer.nope\",\"layerId\":\"a\"}", errs), -1);
	cr_assert_eq(errs->count, 1);
	cr_assert_eq(errs->items[0].code, RIG_OP_UNKNOWN);
	cr_assert_str_eq(errs->items[0].pointer, "/ops/0/op");
	cr_assert_eq(errs->items[0].op_index, 0);
	cr_assert_null(op.type, "an unknown op has no row");
	rig_op_release(&op);
	rig_errs_free(errs);
}

Test(op_table, every_row_decodes_an_empty_op_with_errors_and_releases_it)
{
	for (size_t i = 0; i < rig_op_n_types; i++) {
		const struct rig_op_type *t = &rig_op_types[i];
		struct rig_errs *errs = rig_errs_new();
		cr_assert_not_null(errs);
		char json[96];
		snprintf(json, sizeof json, "{\"op\":\"%s\"}", t->name);
		struct rig_op op;
		cr_assert_eq(decode(&op, json, errs), -1, "'%s' decodes without its fields",
			     t->name);
		cr_assert_gt(errs->total, 0, "'%s'", t->name);
		cr_assert_eq(op.type, t, "'%s' keeps its row", t->name);
		cr_assert_str_eq(op.name, t->name);
		for (size_t k = 0; k < errs->count; k++) {
			cr_assert_eq(errs->items[k].op_index, 0, "'%s'", t->name);
			cr_assert_eq(strncmp(errs->items[k].pointer, "/ops/0", 6), 0, "'%s': %s",
				     t->name, errs->items[k].pointer);
		}
		rig_op_release(&op);
		cr_assert_null(op.type, "release zeroes the op");
		rig_op_release(&op); /* a released op releases again */
		rig_errs_free(errs);
	}
}

Test(op_table, every_row_survives_wrong_types_in_every_field)
{
	for (size_t i = 0; i < rig_op_n_types; i++) {
		const struct rig_op_type *t = &rig_op_types[i];
		struct rig_errs *errs = rig_errs_new();
		cr_assert_not_null(errs);
		char json[512];
		snprintf(json, sizeof json,
			 "{\"op\":\"%s\",\"layerId\":7,\"name\":[],\"kind\":{},\"parentId\":1,"
			 "\"transform\":[],\"timeOffset\":\"x\",\"frame\":null,\"interp\":3,"
			 "\"ease\":{},\"channel\":[],\"keys\":[1,{}],\"frames\":[\"x\"],"
			 "\"skin\":{\"source\":7},\"vertexIndex\":-1,\"influences\":[[]],"
			 "\"vertices\":{}}",
			 t->name);
		struct rig_op op;
		cr_assert_eq(decode(&op, json, errs), -1, "'%s'", t->name);
		cr_assert_gt(errs->total, 0, "'%s'", t->name);
		rig_op_release(&op);
		rig_errs_free(errs);
	}
}

Test(op_table, releasing_a_zeroed_or_failed_op_is_safe)
{
	struct rig_op op;
	memset(&op, 0, sizeof op);
	rig_op_release(&op);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(decode(&op, "[1]", errs), -1, "an op that is not an object");
	cr_assert_null(op.type);
	rig_op_release(&op);
	cr_assert_eq(decode(&op, "{\"op\":5}", errs), -1, "an op name that is not a string");
	rig_op_release(&op);
	/* keys allocated before a later key failed are the op's to free */
	cr_assert_eq(decode(&op,
			    "{\"op\":\"layer.key.put\",\"layerId\":\"a\",\"channel\":"
			    "\"rotation\",\"keys\":[{\"frame\":0,\"value\":1},{\"frame\":\"x\"}]}",
			    errs),
		     -1);
	cr_assert_not_null(op.u.key_put.keys);
	rig_op_release(&op);
	rig_errs_free(errs);
}

Test(op_table, applying_an_op_that_was_never_decoded_is_refused)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_shot_model model;
	memset(&model, 0, sizeof model);
	struct rig_op_ctx ctx;
	rig_op_ctx_init(&ctx, &model, NULL, errs);
	struct rig_op op;
	memset(&op, 0, sizeof op);
	cr_assert_eq(rig_op_apply(&ctx, &op), -1);
	cr_assert_eq(errs->items[0].code, RIG_INTERNAL);
	rig_op_ctx_release(&ctx);
	rig_errs_free(errs);
}
