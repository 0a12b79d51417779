/* The tree ops: layer.create, layer.delete, layer.parent, layer.rename, and
 * layer.deformation.rest.apply, which hands the layer to its binding kind's
 * row. Motion (pose and keys) is in ops_keys.c, each binding kind's ops beside
 * its row (ops_skin.c, ops_mesh.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/edit/ops_internal.h"
#include "api/util/stamp.h"

/* ---- layer.create ---- */

int rig_op__create_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			  struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op",       "layerId",   "name",       "kind",
					      "parentId", "transform", "timeOffset", NULL};
	const char *name = NULL, *kind = NULL;
	bool root = true;
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", false, false, out->layer_id, NULL);
	out->has_layer_id = out->layer_id[0] != '\0';
	rc |= rig_jr_string(jr, op, "name", true, RIG_MAX_NAME_BYTES, &name);
	if (name)
		rig_strlcpy(out->u.create.name, name, sizeof out->u.create.name);
	rc |= rig_jr_string(jr, op, "kind", true, 16, &kind);
	if (kind && !strcmp(kind, "mesh"))
		out->u.create.kind = RIG_LAYER_MESH;
	else if (kind && !strcmp(kind, "group"))
		out->u.create.kind = RIG_LAYER_GROUP;
	else if (kind)
		rc = rig_jr_fail(jr, "kind", "kind '%.16s' is not 'group' or 'mesh'", kind);
	rc |= rig_jr_id(jr, op, "parentId", false, true, out->u.create.parent_id, &root);
	rig_op__decode_transform(jr, op, &out->u.create.transform);
	rc |= rig_jr_number(jr, op, "timeOffset", false, &out->u.create.time_offset, NULL);
	return rc;
}

int rig_op__create_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_shot_model *m = ctx->model;
	if (op->has_layer_id && rig_shot_model_find(m, op->layer_id)) {
		char detail[200];
		snprintf(detail, sizeof detail, "layer id '%s' is already in use", op->layer_id);
		struct rig_err *e = rig_op__fail(ctx, op, RIG_LAYER_EXISTS, "layerId", detail);
		rig_strlcpy(e->layer_id, op->layer_id, sizeof e->layer_id);
		return -1;
	}
	const char *parent = op->u.create.parent_id;
	if (parent[0] && !rig_op__target(ctx, op, parent, "parentId"))
		return -1;
	if (!op->has_layer_id) {
		do
			rig_api__new_id(op->layer_id, "L-");
		while (rig_shot_model_find(m, op->layer_id));
	}
	struct rig_model_layer *l =
		rig_shot_model_add(m, op->layer_id, op->u.create.name, op->u.create.kind, parent);
	if (!l) {
		rig_op__fail(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	rig_op__set_statics(l, &op->u.create.transform);
	l->time_offset = op->u.create.time_offset;
	json_object_del(ctx->binding_ops, l->id); /* a deleted namesake's binding op is not its */
	rig_op__changed(ctx, l->id);
	return 0;
}

/* ---- layer.delete ---- */

int rig_op__delete_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			  struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	return rc;
}

int rig_op__delete_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *root = rig_op__target(ctx, op, op->layer_id, "layerId");
	if (!root)
		return -1;
	struct rig_shot_model *m = ctx->model;
	/* Mark descendants first by repeated passes over the flat list: a layer is
	 * deleted when its parent is the root or already deleted in this op. */
	char root_id[RIG_ID_MAX + 1];
	memcpy(root_id, root->id, sizeof root_id);
	bool *doomed = calloc(m->n_layers + 1, sizeof *doomed);
	if (!doomed) {
		rig_errs_add(ctx->errs, RIG_MEMORY_BUSY,
			     "the server ran out of memory deleting layers");
		return -1;
	}
	for (size_t i = 0; i < m->n_layers; i++) {
		struct rig_model_layer *l = &m->layers[i];
		if (!l->deleted && rig_op__is_self_or_descendant(m, root_id, l->id)) {
			rig_op__changed(ctx, l->id);
			doomed[i] = true;
		}
	}
	for (size_t i = 0; i < m->n_layers; i++)
		m->layers[i].deleted |= doomed[i];
	free(doomed);
	return 0;
}

/* ---- layer.parent ---- */

int rig_op__parent_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			  struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "parentId", NULL};
	bool root = false;
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_id(jr, op, "parentId", true, true, out->u.parent.parent_id, &root);
	return rc;
}

int rig_op__parent_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__target(ctx, op, op->layer_id, "layerId");
	if (!l)
		return -1;
	const char *parent = op->u.parent.parent_id;
	if (parent[0] && !rig_op__target(ctx, op, parent, "parentId"))
		return -1;
	if (parent[0] && rig_op__is_self_or_descendant(ctx->model, l->id, parent)) {
		char detail[200];
		snprintf(detail, sizeof detail,
			 "layer '%s' cannot become a child of '%s': '%s' is inside it", l->id,
			 parent, parent);
		struct rig_err *e = rig_op__fail(ctx, op, RIG_LAYER_CYCLE, "parentId", detail);
		rig_strlcpy(e->layer_id, l->id, sizeof e->layer_id);
		rig_err_extra(e, "parentId", parent);
		return -1;
	}
	rig_strlcpy(l->parent_id, parent, sizeof l->parent_id);
	rig_op__touched(ctx, l);
	return 0;
}

/* ---- layer.rename ---- */

int rig_op__rename_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			  struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "name", NULL};
	const char *name = NULL;
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_string(jr, op, "name", true, RIG_MAX_NAME_BYTES, &name);
	if (name)
		rig_strlcpy(out->u.rename.name, name, sizeof out->u.rename.name);
	return rc;
}

int rig_op__rename_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__target(ctx, op, op->layer_id, "layerId");
	if (!l)
		return -1;
	char *name = strdup(op->u.rename.name);
	if (!name) {
		rig_op__fail(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	free(l->name);
	l->name = name;
	rig_op__touched(ctx, l);
	return 0;
}

/* ---- layer.deformation.rest.apply: the layer's kind makes its rest ---- */

int rig_op__rest_apply_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			      struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "frame", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_number(jr, op, "frame", true, &out->u.rest.frame, NULL);
	return rc;
}

int rig_op__rest_apply_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	const struct rig_binding_kind *kind = l ? rig_binding_kind_of(l->binding.type) : NULL;
	if (kind)
		return kind->rest_apply(ctx, op, l);
	if (l)
		rig_op__fail_layer(ctx, op, RIG_MESH_BINDING_KIND, "layerId",
				   "layer '%s' has no mesh binding", l->id);
	return -1;
}
