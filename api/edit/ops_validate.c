/* The shot's final validation after a batch's last op: what holds between
 * layers rather than inside one op (every skin's joint layers exist, the
 * deformation boundary, the full definition of every skin an op changed).
 * Only structural ops (RIG_OP_STRUCTURAL) can break it, so a batch runs it
 * only when it holds one.
 */
#include <stdio.h>
#include <string.h>

#include "api/edit/ops.h"
#include "core/rig.h"

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
		if (l->deleted || l->binding != RIG_BINDING_SKIN)
			continue;
		size_t first = ctx->errs->count;
		long mesh = view.index_of[i];
		const struct rig_layer *sl = &view.layers[mesh];
		for (size_t j = 0; j < l->skin.n_joints; j++) {
			long jl = sl->joint_layers[j];
			if (jl == RIG_NO_LAYER) {
				struct rig_err *e = rig_errs_add(
					ctx->errs, RIG_SKIN_JOINT_LAYERS,
					"joint '%s' of layer '%s' is mapped to layer '%s', which no"
					" longer exists",
					l->skin.joints[j].id, l->id, l->skin.joints[j].layer_id);
				rig_strlcpy(e->joint_id, l->skin.joints[j].id, sizeof e->joint_id);
				rig_err_extra(e, "jointLayerId", l->skin.joints[j].layer_id);
				e->joint_index = (long)j;
				continue;
			}
			size_t at = ctx->errs->count;
			rig_scene_check_boundary(&view.scene, mesh, jl, ctx->errs);
			for (size_t k = at; k < ctx->errs->count; k++) {
				rig_strlcpy(ctx->errs->items[k].joint_id, l->skin.joints[j].id,
					    sizeof ctx->errs->items[k].joint_id);
				ctx->errs->items[k].joint_index = (long)j;
			}
		}
		if (l->binding_dirty) {
			size_t at = ctx->errs->count;
			struct rig_skin *skin = rig_skin_new(&l->skin, ctx->errs);
			json_t *by = json_object_get(ctx->binding_ops, l->id);
			if (!skin && by) {
				/* Definition pointers resolve under a layer.skin op's "skin";
				 * after a capture or weights.put they name that op itself. */
				long at_op = (long)json_integer_value(json_object_get(by, "op"));
				bool is_skin = json_is_true(json_object_get(by, "skin"));
				char prefix[48];
				snprintf(prefix, sizeof prefix, "/ops/%ld%s", at_op,
					 is_skin ? "/skin" : "");
				if (!is_skin)
					for (size_t k = at; k < ctx->errs->count; k++)
						ctx->errs->items[k].pointer[0] = '\0';
				rig_errs_scope(ctx->errs, at, at_op, prefix);
			}
			rig_skin_free(skin);
		}
		for (size_t k = first; k < ctx->errs->count; k++)
			rig_strlcpy(ctx->errs->items[k].layer_id, l->id,
				    sizeof ctx->errs->items[k].layer_id);
	}
	rig_scene_view_release(&view);
	return ctx->errs->count > from || ctx->errs->total > from ? -1 : 0;
}
