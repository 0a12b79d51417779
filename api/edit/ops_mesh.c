/* The mesh-binding ops: layer.mesh.key.put and layer.deformation.rest.apply.
 * Mesh bindings do not exist yet, so layer.mesh.key.put decodes its fields now
 * and refuses on apply, naming why for the layer it targets; rest apply is
 * the layer's binding kind's (api/edit/binding.h), refused on an unbound layer.
 */
#include "api/edit/binding.h"
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
	const struct rig_binding_kind *kind = l ? rig_binding_kind_of(l->binding.type) : NULL;
	if (kind)
		return kind->rest_apply(ctx, op, l);
	if (l)
		rig_op__fail_layer(ctx, op, RIG_MESH_BINDING_KIND, "layerId",
				   "layer '%s' has no mesh binding", l->id);
	return -1;
}
