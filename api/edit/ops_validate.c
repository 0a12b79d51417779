/* The shot's final validation after a batch's last op: what holds between
 * layers rather than inside one op (every binding's joint layers exist, the
 * deformation boundary, the full definition of every binding an op changed,
 * by its kind's validate, and the constraints against the tree: IK_CHAIN,
 * IK_TARGET, IK_CYCLE).
 * Only structural ops (RIG_OP_STRUCTURAL) can break it, so a batch runs it
 * only when it holds one.
 */
#include <stdio.h>
#include <string.h>

#include "api/edit/ops.h"
#include "core/rig.h"

/* The constraint rules of the core, pointed into the op of this batch that
 * last put the constraint ("/ops/3/chain/1"); a constraint this batch did not
 * put (a layer.delete broke it) is left to the batch, which points at the last
 * op that changed the layer named. */
static void check_constraints(struct rig_op_ctx *ctx, const struct rig_scene *scene)
{
	size_t at = ctx->errs->count;
	rig_constraints_check(scene, ctx->errs);
	for (size_t k = at; k < ctx->errs->count; k++) {
		struct rig_err *e = &ctx->errs->items[k];
		const char *id = NULL;
		for (int x = 0; x < e->n_extra && !id; x++)
			if (!strcmp(e->extra[x].name, "constraintId"))
				id = e->extra[x].value;
		json_t *by = id ? json_object_get(ctx->constraint_ops, id) : NULL;
		if (!by) {
			e->pointer[0] = '\0';
			continue;
		}
		e->op_index = (long)json_integer_value(by);
		char ptr[RIG_ERR_POINTER_MAX];
		snprintf(ptr, sizeof ptr, "/ops/%ld%s", e->op_index, e->pointer);
		rig_strlcpy(e->pointer, ptr, sizeof e->pointer);
	}
}

int rig_ops_validate_shot(struct rig_op_ctx *ctx)
{
	struct rig_shot_model *m = ctx->model;
	struct rig_scene_view view;
	if (rig_scene_view_init(&view, m) != 0) {
		rig_errs_add(ctx->errs, RIG_INTERNAL, "cannot build the layer tree");
		return -1;
	}
	size_t from = ctx->errs->count;
	for (size_t i = 0; i < m->n_layers; i++) {
		struct rig_model_layer *l = &m->layers[i];
		const struct rig_binding_type *type = l->binding.type;
		if (l->deleted || !type)
			continue;
		const void *def = l->binding.def;
		size_t first = ctx->errs->count;
		long mesh = view.index_of[i];
		const struct rig_layer *sl = &view.layers[mesh];
		size_t n_joints = type->def_n_joints(def);
		for (size_t j = 0; j < n_joints; j++) {
			const char *joint_id = type->def_joint_id(def, j);
			const char *joint_layer = type->def_joint_layer(def, j);
			long jl = sl->joint_layers[j];
			if (jl == RIG_NO_LAYER) {
				struct rig_err *e = rig_errs_add(
					ctx->errs, RIG_SKIN_JOINT_LAYERS,
					"joint '%s' of layer '%s' is mapped to layer '%s', which no"
					" longer exists",
					joint_id, l->id, joint_layer);
				rig_strlcpy(e->joint_id, joint_id, sizeof e->joint_id);
				rig_err_extra(e, "jointLayerId", joint_layer);
				e->joint_index = (long)j;
				continue;
			}
			size_t at = ctx->errs->count;
			rig_scene_check_boundary(&view.scene, mesh, jl, ctx->errs);
			for (size_t k = at; k < ctx->errs->count; k++) {
				rig_strlcpy(ctx->errs->items[k].joint_id, joint_id,
					    sizeof ctx->errs->items[k].joint_id);
				ctx->errs->items[k].joint_index = (long)j;
			}
		}
		if (l->binding.dirty) {
			size_t at = ctx->errs->count;
			int rc = type->validate(def, ctx->errs);
			json_t *by = json_object_get(ctx->binding_ops, l->id);
			if (rc && by) {
				/* Definition pointers resolve under the member of the op
				 * that installed the definition (layer.skin's "skin");
				 * after an op that edited it in place (a capture, a
				 * weights.put) they name that op itself. */
				long at_op = (long)json_integer_value(json_object_get(by, "op"));
				const char *member =
					json_string_value(json_object_get(by, "member"));
				char prefix[48];
				snprintf(prefix, sizeof prefix, "/ops/%ld%s%.16s", at_op,
					 member ? "/" : "", member ? member : "");
				if (!member)
					for (size_t k = at; k < ctx->errs->count; k++)
						ctx->errs->items[k].pointer[0] = '\0';
				rig_errs_scope(ctx->errs, at, at_op, prefix);
			}
		}
		for (size_t k = first; k < ctx->errs->count; k++)
			rig_strlcpy(ctx->errs->items[k].layer_id, l->id,
				    sizeof ctx->errs->items[k].layer_id);
	}
	check_constraints(ctx, &view.scene);
	rig_scene_view_release(&view);
	return ctx->errs->count > from || ctx->errs->total > from ? -1 : 0;
}
