/* The op table and the dispatch through it: decoding looks the row up by the
 * op's name, and the decoded op keeps its row, so applying and releasing call
 * the row's functions and the batch reads the row's flags. The lock check,
 * driven by the row's lock scope, lives here too. The ops themselves live in
 * their family's file (ops_layer.c, ops_keys.c, ops_skin.c, ops_mesh.c).
 *
 * Adding an op: a row here, its decode/apply/release in its family's file,
 * its branch of openapi.yaml's Op oneOf, tests. A binding kind after the skin
 * and the mesh binding keeps its ops' rows in its own row instead
 * (struct rig_binding_kind.ops, api/edit/binding.h), found after these, so
 * the kind touches neither this file nor ops_internal.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/edit/ops_internal.h"

/* ops_mesh.c: the mesh binding's ops (layer.mesh.key.put and
 * layer.deformation.rest.apply are declared in ops_internal.h) */
RIG_OP_FUNCTIONS(mesh);
RIG_OP_FUNCTIONS(mesh_key_delete);
void rig_op__mesh_release(struct rig_op *op);

/* ops_skin.c: layer.skin.bake, a skin turned into a mesh binding (ops_bake.c) */
int rig_op__skin_bake_apply(struct rig_op_ctx *ctx, struct rig_op *op);

/* ops_authoring.c: results computed on the server, stored as explicit data */
RIG_OP_FUNCTIONS(generate);
void rig_op__generate_release(struct rig_op *op);
RIG_OP_FUNCTIONS(bones_suggest);
RIG_OP_FUNCTIONS(rig_auto);
void rig_op__bones_release(struct rig_op *op);

/* ops_weights_auto.c: weights computed on the server, stored as explicit weights */
RIG_OP_FUNCTIONS(weights_auto);
void rig_op__weights_auto_release(struct rig_op *op);
RIG_OP_FUNCTIONS(weights_paint);
RIG_OP_FUNCTIONS(weights_set);
void rig_op__paint_release(struct rig_op *op);

/* ops_import.c: another tool's document run as ordinary ops */
RIG_OP_FUNCTIONS(import);
void rig_op__import_release(struct rig_op *op);

/* ops_revert.c: undoing a receipt's batch */
RIG_OP_FUNCTIONS(revert);

/* Structural unless the op only renames, poses or keys a layer: see
 * RIG_OP_STRUCTURAL. */
const struct rig_op_type rig_op_types[] = {
	{"layer.create", rig_op__create_decode, rig_op__create_apply, rig_op__release_nothing,
	 RIG_OP_STRUCTURAL, RIG_OP_LOCK_NONE},
	{"layer.delete", rig_op__delete_decode, rig_op__delete_apply, rig_op__release_nothing,
	 RIG_OP_STRUCTURAL, RIG_OP_LOCK_SUBTREE},
	{"layer.parent", rig_op__parent_decode, rig_op__parent_apply, rig_op__release_nothing,
	 RIG_OP_STRUCTURAL, RIG_OP_LOCK_LAYER},
	{"layer.rename", rig_op__rename_decode, rig_op__rename_apply, rig_op__release_nothing, 0,
	 RIG_OP_LOCK_LAYER},
	{"layer.pose", rig_op__pose_decode, rig_op__pose_apply, rig_op__release_nothing, 0,
	 RIG_OP_LOCK_LAYER},
	{"layer.key.put", rig_op__key_put_decode, rig_op__key_put_apply, rig_op__key_put_release, 0,
	 RIG_OP_LOCK_LAYER},
	{"layer.key.delete", rig_op__key_delete_decode, rig_op__key_delete_apply,
	 rig_op__key_delete_release, 0, RIG_OP_LOCK_LAYER},
	{"layer.skin", rig_op__skin_decode, rig_op__skin_apply, rig_op__skin_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.skin.bind.capture", rig_op__capture_decode, rig_op__capture_apply,
	 rig_op__release_nothing, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.skin.weights.put", rig_op__weights_put_decode, rig_op__weights_put_apply,
	 rig_op__weights_put_release, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.skin.joint.add", rig_op__joint_add_decode, rig_op__joint_add_apply,
	 rig_op__release_nothing, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.skin.joint.remove", rig_op__joint_remove_decode, rig_op__joint_remove_apply,
	 rig_op__release_nothing, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.skin.joint.remap", rig_op__joint_remap_decode, rig_op__joint_remap_apply,
	 rig_op__release_nothing, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.mesh", rig_op__mesh_decode, rig_op__mesh_apply, rig_op__mesh_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.mesh.key.put", rig_op__mesh_key_put_decode, rig_op__mesh_key_put_apply,
	 rig_op__mesh_release, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.mesh.key.delete", rig_op__mesh_key_delete_decode, rig_op__mesh_key_delete_apply,
	 rig_op__release_nothing, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.skin.bake", rig_op__bake_decode, rig_op__skin_bake_apply, rig_op__bake_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"constraint.put", rig_op__constraint_put_decode, rig_op__constraint_put_apply,
	 rig_op__constraint_release, RIG_OP_STRUCTURAL, RIG_OP_LOCK_NONE},
	{"constraint.delete", rig_op__constraint_delete_decode, rig_op__constraint_delete_apply,
	 rig_op__constraint_release, RIG_OP_STRUCTURAL, RIG_OP_LOCK_NONE},
	{"layer.deformation.rest.apply", rig_op__rest_apply_decode, rig_op__rest_apply_apply,
	 rig_op__release_nothing, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.mesh.generate", rig_op__generate_decode, rig_op__generate_apply,
	 rig_op__generate_release, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.bones.suggest", rig_op__bones_suggest_decode, rig_op__bones_suggest_apply,
	 rig_op__bones_release, RIG_OP_STRUCTURAL, RIG_OP_LOCK_NONE},
	{"layer.rig.auto", rig_op__rig_auto_decode, rig_op__rig_auto_apply, rig_op__bones_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.skin.weights.auto", rig_op__weights_auto_decode, rig_op__weights_auto_apply,
	 rig_op__weights_auto_release, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.skin.weights.paint", rig_op__weights_paint_decode, rig_op__weights_paint_apply,
	 rig_op__paint_release, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.skin.weights.set", rig_op__weights_set_decode, rig_op__weights_set_apply,
	 rig_op__paint_release, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	/* creates layers; the ops it expands to check their own locks */
	{"shot.import", rig_op__import_decode, rig_op__import_apply, rig_op__import_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_NONE},
	/* changes the layers its receipt changed: it checks their locks itself */
	{"receipt.revert", rig_op__revert_decode, rig_op__revert_apply, rig_op__release_nothing,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_NONE},
};

const size_t rig_op_n_types = sizeof rig_op_types / sizeof rig_op_types[0];

const struct rig_op_type *rig_op_type_find(const char *name)
{
	for (size_t i = 0; i < rig_op_n_types; i++)
		if (strcmp(rig_op_types[i].name, name) == 0)
			return &rig_op_types[i];
	for (size_t k = 0; k < rig_binding_n_kinds; k++)
		for (size_t i = 0; i < rig_binding_kinds[k]->n_ops; i++)
			if (strcmp(rig_binding_kinds[k]->ops[i].name, name) == 0)
				return &rig_binding_kinds[k]->ops[i];
	return NULL;
}

int rig_op_decode(struct rig_op *out, json_t *value, long index, struct rig_bulk *bulk,
		  struct rig_errs *errs)
{
	memset(out, 0, sizeof *out);
	out->index = index;
	snprintf(out->pointer, sizeof out->pointer, "/ops/%ld", index);
	struct rig_jr jr = {errs, RIG_OP_INVALID, out->pointer, index};
	if (!json_is_object(value))
		return rig_jr_fail(&jr, "", "op %ld must be an object with an 'op' field", index);
	const char *name = NULL;
	if (rig_jr_string(&jr, value, "op", true, 64, &name))
		return -1;
	const struct rig_op_type *type = rig_op_type_find(name);
	if (!type) {
		struct rig_err *e = rig_errs_add(errs, RIG_OP_UNKNOWN, "unknown op '%.64s'", name);
		rig_err_extra(e, "op", name);
		for (size_t i = 0; i < rig_op_n_types; i++)
			rig_err_list_add(e, "validOps", rig_op_types[i].name);
		for (size_t k = 0; k < rig_binding_n_kinds; k++)
			for (size_t i = 0; i < rig_binding_kinds[k]->n_ops; i++)
				rig_err_list_add(e, "validOps", rig_binding_kinds[k]->ops[i].name);
		e->op_index = index;
		snprintf(e->pointer, sizeof e->pointer, "%s/op", out->pointer);
		return -1;
	}
	out->type = type;
	out->name = type->name;
	/* A decoder's own result can miss a violation one of its reads recorded;
	 * the error list cannot. */
	size_t before = errs->total;
	type->decode(out, value, &jr, bulk);
	return errs->total > before ? -1 : 0;
}

void rig_op_release(struct rig_op *op)
{
	if (op->type)
		op->type->release(op);
	memset(op, 0, sizeof *op);
}

void rig_ops_free(struct rig_op *ops, size_t n)
{
	for (size_t i = 0; ops && i < n; i++)
		rig_op_release(&ops[i]);
	free(ops);
}

static void lock_violation(struct rig_op_ctx *ctx, const struct rig_op *op,
			   const struct rig_foreign_lock *lk, const char *field)
{
	char detail[200];
	snprintf(detail, sizeof detail, "layer '%s' is locked by '%.60s' (lock '%s')", lk->layer_id,
		 lk->owner, lk->lock_id);
	struct rig_err *e = rig_op__fail(ctx, op, RIG_LAYER_LOCKED, field, detail);
	rig_strlcpy(e->layer_id, lk->layer_id, sizeof e->layer_id);
	rig_strlcpy(e->lock_id, lk->lock_id, sizeof e->lock_id);
	rig_strlcpy(e->owner, lk->owner, sizeof e->owner);
	e->expires_ms = lk->expires_ms;
}

/* LAYER_LOCKED when the op would change a layer under someone else's lock: the
 * layer it names, and under RIG_OP_LOCK_SUBTREE every layer it removes
 * (deleting an ancestor changes the locked layer). Creating a layer changes
 * none, and editing a joint changes only the joint, so upstream motion stays
 * free. */
static int check_locks(struct rig_op_ctx *ctx, const struct rig_op *op)
{
	if (ctx->n_locks == 0 || op->type->lock_scope == RIG_OP_LOCK_NONE)
		return 0;
	int rc = 0;
	for (size_t k = 0; k < ctx->n_locks; k++) {
		const struct rig_foreign_lock *lk = &ctx->locks[k];
		bool hit = strcmp(lk->layer_id, op->layer_id) == 0;
		if (!hit && op->type->lock_scope == RIG_OP_LOCK_SUBTREE &&
		    rig_shot_model_find(ctx->model, lk->layer_id))
			hit = rig_op__is_self_or_descendant(ctx->model, op->layer_id, lk->layer_id);
		if (!hit)
			continue;
		lock_violation(ctx, op, lk, "layerId");
		rc = -1;
	}
	return rc;
}

int rig_op__check_layer_unlocked(struct rig_op_ctx *ctx, const struct rig_op *op,
				 const char *layer_id, const char *field)
{
	int rc = 0;
	for (size_t k = 0; k < ctx->n_locks; k++) {
		if (strcmp(ctx->locks[k].layer_id, layer_id) != 0)
			continue;
		lock_violation(ctx, op, &ctx->locks[k], field);
		rc = -1;
	}
	return rc;
}

int rig_op_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	ctx->current_op = op->index;
	if (!op->type) { /* never decoded: the caller's bug, reported rather than run */
		rig_op__fail(ctx, op, RIG_INTERNAL, "", "the op was not decoded");
		return -1;
	}
	if (check_locks(ctx, op))
		return -1;
	return op->type->apply(ctx, op);
}
