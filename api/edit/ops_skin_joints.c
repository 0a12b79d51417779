/* The joint ops of a skin, so a joint changes without resending the skin:
 * layer.skin.joint.add (with a bind given or captured at a frame the way
 * layer.skin.bind.capture captures, through rig_op__capture_poses),
 * layer.skin.joint.remove (its weights move to another joint, or spread over
 * each vertex's other influences in proportion to their weights) and
 * layer.skin.joint.remap (the joint follows another layer).
 *
 * Each op edits the loaded definition in place and leaves it unchanged when it
 * fails; final validation (ops_validate.c) then checks the whole skin, its
 * joint layers and the deformation boundary as for layer.skin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"
#include "api/edit/ops_skin.h"
#include "core/affine.h"

/* ---- shared ---- */

/* The index of joint id in d, or RIG_JOINT_UNKNOWN after recording
 * SKIN_JOINTS at field with the skin's joint ids as validJointIds. */
static uint32_t find_joint(struct rig_op_ctx *ctx, const struct rig_op *op,
			   const struct rig_skin_def *d, const char *id, const char *field)
{
	uint32_t j = rig_skin_def_joint_index(d, id);
	if (j != RIG_JOINT_UNKNOWN)
		return j;
	struct rig_err *e = rig_op__fail_layer(
		ctx, op, RIG_SKIN_JOINTS, field,
		"joint '%s' is not a joint of the skin of layer '%s'", id, op->layer_id);
	rig_strlcpy(e->joint_id, id, sizeof e->joint_id);
	rig_op__list_joint_ids(e, d);
	return RIG_JOINT_UNKNOWN;
}

/* SKIN_JOINT_LAYERS at field unless layer_id names a layer of the shot. */
static int check_joint_layer(struct rig_op_ctx *ctx, const struct rig_op *op, const char *joint_id,
			     const char *layer_id, const char *field)
{
	if (rig_shot_model_find(ctx->model, layer_id))
		return 0;
	struct rig_err *e = rig_op__fail_layer(
		ctx, op, RIG_SKIN_JOINT_LAYERS, field,
		"joint '%s' is mapped to layer '%s', which does not exist", joint_id, layer_id);
	rig_err_extra(e, "jointLayerId", layer_id);
	rig_strlcpy(e->joint_id, joint_id, sizeof e->joint_id);
	return -1;
}

/* ---- layer.skin.joint.add ---- */

int rig_op__joint_add_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			     struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "joint", "captureFrame", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_number(jr, op, "captureFrame", false, &out->u.joint.capture_frame,
			    &out->u.joint.has_capture);
	json_t *joint = json_object_get(op, "joint");
	if (!json_is_object(joint))
		return rig_jr_fail(jr, "joint", "field 'joint' must be {jointId, layerId, bind?}");
	char base[64];
	snprintf(base, sizeof base, "%s/joint", jr->base);
	struct rig_jr jjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
	static const char *const fields[] = {"jointId", "layerId", "bind", NULL};
	rc |= rig_jr_known(&jjr, joint, fields);
	rc |= rig_jr_id(&jjr, joint, "jointId", true, false, out->u.joint.joint_id, NULL);
	rc |= rig_jr_id(&jjr, joint, "layerId", true, false, out->u.joint.layer_id, NULL);
	json_t *bind = json_object_get(joint, "bind");
	out->u.joint.has_bind = bind != NULL;
	if (out->u.joint.has_bind == out->u.joint.has_capture)
		return rig_jr_fail(jr, out->u.joint.has_bind ? "captureFrame" : "joint",
				   "give exactly one of 'joint.bind' and 'captureFrame'");
	if (!bind)
		return rc;
	if (!json_is_array(bind) || json_array_size(bind) != 6)
		return rig_jr_fail(&jjr, "bind", "field 'bind' must be six numbers");
	for (size_t e = 0; e < 6; e++) {
		json_t *v = json_array_get(bind, e);
		if (!json_is_number(v)) {
			char key[16];
			snprintf(key, sizeof key, "bind/%zu", e);
			return rig_jr_fail(&jjr, key, "bind entries must be numbers");
		}
		out->u.joint.bind.m[e] = json_number_value(v);
	}
	/* The core's rule for every bind (SPEC §1), here before the shot is read. */
	if (!rig_affine_is_finite(&out->u.joint.bind) ||
	    !rig_affine_is_safely_invertible(&out->u.joint.bind)) {
		struct rig_err *e = rig_errs_add(jr->errs, RIG_SKIN_BIND,
						 "bind of joint '%s' is not safely invertible",
						 out->u.joint.joint_id);
		e->op_index = jr->op_index;
		snprintf(e->pointer, sizeof e->pointer, "%s/bind", base);
		rig_strlcpy(e->joint_id, out->u.joint.joint_id, sizeof e->joint_id);
		rig_strlcpy(e->layer_id, out->layer_id, sizeof e->layer_id);
		return -1;
	}
	return rc;
}

int rig_op__joint_add_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__skin_target(ctx, op);
	if (!l)
		return -1;
	struct rig_skin_def *d = l->binding.def;
	const char *id = op->u.joint.joint_id;
	if (rig_skin_def_joint_index(d, id) != RIG_JOINT_UNKNOWN) {
		struct rig_err *e = rig_op__fail_layer(
			ctx, op, RIG_SKIN_JOINTS, "joint/jointId",
			"joint '%s' is already a joint of the skin of layer '%s'", id, l->id);
		rig_strlcpy(e->joint_id, id, sizeof e->joint_id);
		return -1;
	}
	if (d->n_joints >= RIG_MAX_JOINTS) {
		struct rig_err *e = rig_op__fail_layer(
			ctx, op, RIG_SKIN_JOINTS, "joint",
			"the skin of layer '%s' has %zu joints, the limit", l->id, d->n_joints);
		rig_err_extra_number(e, "jointCount", (double)d->n_joints);
		rig_err_extra_number(e, "maxJoints", RIG_MAX_JOINTS);
		return -1;
	}
	if (check_joint_layer(ctx, op, id, op->u.joint.layer_id, "joint/layerId"))
		return -1;
	struct rig_skin_joint *joints = realloc(d->joints, (d->n_joints + 1) * sizeof *joints);
	struct rig_affine *poses =
		op->u.joint.has_capture ? calloc(d->n_joints + 1, sizeof *poses) : NULL;
	if (joints)
		d->joints = joints;
	if (!joints || (op->u.joint.has_capture && !poses)) {
		free(poses);
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	struct rig_skin_joint *j = &d->joints[d->n_joints];
	memset(j, 0, sizeof *j);
	rig_strlcpy(j->id, id, sizeof j->id);
	rig_strlcpy(j->layer_id, op->u.joint.layer_id, sizeof j->layer_id);
	j->bind = op->u.joint.bind;
	if (op->u.joint.has_capture)
		j->bind = (struct rig_affine){{1, 0, 0, 1, 0, 0}}; /* until captured */
	d->n_joints++;
	int rc = 0;
	if (op->u.joint.has_capture) {
		/* Captured as layer.skin.bind.capture would, the new joint included. */
		rc = rig_op__capture_poses(poses, ctx, op, l, op->u.joint.capture_frame);
		if (rc == 0)
			j->bind = poses[d->n_joints - 1];
		else
			d->n_joints--; /* the array keeps its room; nothing else changed */
	}
	free(poses);
	if (rc == 0)
		rig_op__binding_edited(ctx, op, l);
	return rc;
}

/* ---- layer.skin.joint.remove ---- */

int rig_op__joint_remove_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "jointId", "reassignTo", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_id(jr, op, "jointId", true, false, out->u.joint.joint_id, NULL);
	rc |= rig_jr_id(jr, op, "reassignTo", false, false, out->u.joint.reassign_to, NULL);
	if (rc == 0 && strcmp(out->u.joint.joint_id, out->u.joint.reassign_to) == 0)
		rc = rig_jr_fail(jr, "reassignTo",
				 "field 'reassignTo' must name another joint than 'jointId'");
	return rc;
}

/* Vertex v's list without joint r, into out (≤ RIG_MAX_INFLUENCES): r's
 * weight w_r moves to joint t when t is a joint (summed into t's influence
 * when the vertex has one), else spreads over the other influences in
 * proportion to their weights (w_k + w_r · w_k / Σ_{i≠r} w_i). Joint indices
 * are the old ones. Returns the list's length (0 when r was the vertex's only
 * influence and t is none) and sets *out_moved when the vertex had r. */
static size_t without_joint(struct rig_skin_influence *out, bool *out_moved,
			    const struct rig_skin_influence *in, size_t n, uint32_t r, uint32_t t)
{
	double w_r = 0, others = 0;
	size_t m = 0;
	bool has_r = false;
	long at_t = -1;
	for (size_t k = 0; k < n; k++) {
		if (in[k].joint == r) {
			w_r = in[k].weight;
			has_r = true;
			continue;
		}
		if (in[k].joint == t)
			at_t = (long)m;
		others += in[k].weight;
		out[m++] = in[k];
	}
	*out_moved = has_r;
	if (!has_r)
		return m;
	if (t != RIG_JOINT_UNKNOWN) {
		if (at_t >= 0) {
			out[at_t].weight += w_r;
			return m;
		}
		/* r's slot goes to t: the list keeps its length (≤ 8). */
		m = 0;
		for (size_t k = 0; k < n; k++)
			out[m++] = in[k].joint == r ? (struct rig_skin_influence){t, w_r} : in[k];
		return m;
	}
	for (size_t k = 0; k < m; k++)
		out[k].weight += w_r * (out[k].weight / others);
	return m;
}

int rig_op__joint_remove_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__skin_target(ctx, op);
	if (!l)
		return -1;
	struct rig_skin_def *d = l->binding.def;
	uint32_t r = find_joint(ctx, op, d, op->u.joint.joint_id, "jointId");
	uint32_t t = RIG_JOINT_UNKNOWN;
	if (op->u.joint.reassign_to[0])
		t = find_joint(ctx, op, d, op->u.joint.reassign_to, "reassignTo");
	if (r == RIG_JOINT_UNKNOWN || (op->u.joint.reassign_to[0] && t == RIG_JOINT_UNKNOWN))
		return -1;
	if (d->n_joints == 1) {
		struct rig_err *e = rig_op__fail_layer(
			ctx, op, RIG_SKIN_JOINTS, "jointId",
			"joint '%s' is the last joint of the skin of layer '%s'; clear the skin "
			"with layer.skin null instead",
			d->joints[r].id, l->id);
		rig_strlcpy(e->joint_id, d->joints[r].id, sizeof e->joint_id);
		rig_err_extra_number(e, "jointCount", 1);
		return -1;
	}
	size_t n_infl = d->weight_offsets[d->n_verts];
	uint32_t *offsets = malloc((d->n_verts + 1) * sizeof *offsets);
	struct rig_skin_influence *infl = malloc((n_infl ? n_infl : 1) * sizeof *infl);
	int rc = -1;
	if (!offsets || !infl) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		goto out;
	}
	size_t at = 0, before = ctx->errs->total;
	for (size_t v = 0; v < d->n_verts; v++) {
		uint32_t from = d->weight_offsets[v], to = d->weight_offsets[v + 1];
		offsets[v] = (uint32_t)at;
		bool moved = false;
		size_t m = without_joint(&infl[at], &moved, &d->influences[from], to - from, r, t);
		if (m == 0) {
			struct rig_err *e = rig_op__fail_layer(
				ctx, op, RIG_SKIN_WEIGHTS, "jointId",
				"vertex %zu of layer '%s' has no influence but joint '%s'; give "
				"reassignTo, or weight the vertex to another joint first",
				v, l->id, d->joints[r].id);
			e->vertex_index = (long)v;
			rig_strlcpy(e->joint_id, d->joints[r].id, sizeof e->joint_id);
			continue;
		}
		/* Renormalise a list that changed (and check it), as weights.put would;
		 * the others stay bit for bit. */
		if (moved) {
			size_t first = ctx->errs->count;
			if (rig_skin_check_influences(&infl[at], m, d->n_joints, v, ctx->errs)) {
				for (size_t k = first; k < ctx->errs->count; k++) {
					struct rig_err *e = &ctx->errs->items[k];
					e->op_index = op->index;
					snprintf(e->pointer, sizeof e->pointer, "%s/jointId",
						 op->pointer);
					rig_strlcpy(e->layer_id, l->id, sizeof e->layer_id);
				}
			}
		}
		at += m;
	}
	offsets[d->n_verts] = (uint32_t)at;
	if (ctx->errs->total > before)
		goto out;
	for (size_t k = 0; k < at; k++)
		if (infl[k].joint > r)
			infl[k].joint--;
	memmove(&d->joints[r], &d->joints[r + 1], (d->n_joints - r - 1) * sizeof *d->joints);
	d->n_joints--;
	free(d->weight_offsets);
	free(d->influences);
	d->weight_offsets = offsets;
	d->influences = infl;
	offsets = NULL;
	infl = NULL;
	rig_op__binding_edited(ctx, op, l);
	rc = 0;
out:
	free(offsets);
	free(infl);
	return rc;
}

/* ---- layer.skin.joint.remap ---- */

int rig_op__joint_remap_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			       struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "jointId", "toLayerId", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_id(jr, op, "jointId", true, false, out->u.joint.joint_id, NULL);
	rc |= rig_jr_id(jr, op, "toLayerId", true, false, out->u.joint.layer_id, NULL);
	return rc;
}

int rig_op__joint_remap_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__skin_target(ctx, op);
	if (!l)
		return -1;
	struct rig_skin_def *d = l->binding.def;
	uint32_t j = find_joint(ctx, op, d, op->u.joint.joint_id, "jointId");
	if (j == RIG_JOINT_UNKNOWN ||
	    check_joint_layer(ctx, op, d->joints[j].id, op->u.joint.layer_id, "toLayerId"))
		return -1;
	/* The boundary rule is final validation's, as for layer.skin. */
	rig_strlcpy(d->joints[j].layer_id, op->u.joint.layer_id, sizeof d->joints[j].layer_id);
	rig_op__binding_edited(ctx, op, l);
	return 0;
}
