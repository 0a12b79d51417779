/* The mesh-binding ops: layer.mesh.key.put and layer.deformation.rest.apply.
 * Mesh bindings do not exist yet, so both decode their fields now and refuse
 * on apply, naming why for the layer they target.
 */
#include "api/edit/ops_internal.h"

/* ---- layer.mesh.key.put ---- */

int rig_op__mesh_key_put_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "frame", "vertices", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_number(jr, op, "frame", true, &out->u.mesh.frame, NULL);
	if (!json_is_array(json_object_get(op, "vertices")))
		rc = rig_jr_fail(jr, "vertices", "field 'vertices' must be an array of {x, y}");
	return rc;
}

int rig_op__mesh_key_put_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	if (rig_op__mesh_target(ctx, op))
		rig_op__fail_layer(ctx, op, RIG_MESH_BINDING_KIND, "layerId",
				   "layer '%s' has no mesh binding", op->layer_id);
	return -1;
}

/* ---- layer.deformation.rest.apply ---- */

int rig_op__rest_apply_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			      struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "frame", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_number(jr, op, "frame", true, &out->u.mesh.frame, NULL);
	return rc;
}

int rig_op__rest_apply_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (l && l->binding == RIG_BINDING_SKIN)
		rig_op__fail_layer(ctx, op, RIG_SKIN_REST_REQUIRES_JOINT_KEYS, "",
				   "layer '%s' is skinned: restore its joint layers' keys with"
				   " layer.key.put instead",
				   l->id);
	else if (l)
		rig_op__fail_layer(ctx, op, RIG_MESH_BINDING_KIND, "layerId",
				   "layer '%s' has no mesh binding", l->id);
	return -1;
}
