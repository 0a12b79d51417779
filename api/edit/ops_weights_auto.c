/* Weights computed on the server and stored as explicit weights (issue 25
 * items 2 and 3): layer.skin.weights.auto, .paint and .set. The math is the
 * core's (core/auto_weights.h, core/weight_brush.h); here the ops read the
 * skin's joints and the shot's hierarchy, write the lists and note in the
 * receipt which vertices changed.
 *
 *   layer.skin.weights.auto {layerId, method, maxInfluences?, vertices?,
 *     lengths?: {jointId: length}}: every vertex (or the listed ones) from
 *     the joints' bind geometry; a joint's parent is the nearest ancestor
 *     layer of its layer that another joint of the skin follows.
 *   layer.skin.weights.paint {layerId, jointId, mode, center: [x, y], radius,
 *     strength, feather}: one dab; the paint ops of one batch are a stroke
 *     (one receipt, one revert).
 *   layer.skin.weights.set {layerId, vertexIndex, jointId, weight}.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"
#include "api/edit/ops_skin.h"
#include "core/auto_weights.h"
#include "core/weight_brush.h"

/* True when vertex v's list differs between (oa, ia) and (ob, ib). */
static bool list_differs(const uint32_t *oa, const struct rig_skin_influence *ia,
			 const uint32_t *ob, const struct rig_skin_influence *ib, size_t v)
{
	uint32_t na = oa[v + 1] - oa[v], nb = ob[v + 1] - ob[v];
	if (na != nb)
		return true;
	for (uint32_t k = 0; k < na; k++)
		if (ia[oa[v] + k].joint != ib[ob[v] + k].joint ||
		    memcmp(&ia[oa[v] + k].weight, &ib[ob[v] + k].weight, sizeof(double)) != 0)
			return true;
	return false;
}

/* Notes in the op's receipt entry which vertices changed: "changedVertices":
 * {count, runs}, the runs as GET …/diff writes them (a vertex, or [first,
 * last] inclusive; those past RIG_RECEIPT_MAX_RUNS are cut, and "truncated":
 * true says so). v holds the n changed vertices, ascending. */
#define RIG_RECEIPT_MAX_RUNS 256
static void note_changed(struct rig_op_ctx *ctx, const struct rig_op *op, const uint32_t *v,
			 size_t n)
{
	json_t *runs = json_array();
	size_t n_runs = 0;
	bool truncated = false;
	for (size_t k = 0; k < n;) {
		size_t first = k;
		while (k + 1 < n && v[k + 1] == v[k] + 1)
			k++;
		if (n_runs++ < RIG_RECEIPT_MAX_RUNS)
			json_array_append_new(runs,
					      k == first ? json_integer((json_int_t)v[first])
							 : json_pack("[I, I]", (json_int_t)v[first],
								     (json_int_t)v[k]));
		else
			truncated = true;
		k++;
	}
	json_t *note = json_pack("{s:I, s:o}", "count", (json_int_t)n, "runs", runs);
	if (note && truncated)
		json_object_set_new(note, "truncated", json_true());
	rig_op__receipt_note(ctx, op, "changedVertices", note);
}

/* Replaces d's lists by (offsets, infl), noting the vertices that changed
 * and marking the binding edited. Takes both arrays. */
static void install_lists(struct rig_op_ctx *ctx, const struct rig_op *op,
			  struct rig_model_layer *l, uint32_t *offsets,
			  struct rig_skin_influence *infl)
{
	struct rig_skin_def *d = l->binding.def;
	uint32_t *changed = malloc((d->n_verts + 1) * sizeof *changed);
	size_t n = 0;
	for (size_t v = 0; changed && v < d->n_verts; v++)
		if (!d->weight_offsets || d->n_weight_lists != d->n_verts ||
		    list_differs(d->weight_offsets, d->influences, offsets, infl, v))
			changed[n++] = (uint32_t)v;
	if (changed)
		note_changed(ctx, op, changed, n);
	free(changed);
	free(d->weight_offsets);
	free(d->influences);
	d->weight_offsets = offsets;
	d->influences = infl;
	d->n_weight_lists = d->n_verts;
	rig_op__binding_edited(ctx, op, l);
}

/* ---- layer.skin.weights.auto ---- */

struct auto_op {
	enum rig_auto_method method;
	int max_influences;
	long long *vertices; /* NULL: every vertex */
	size_t n_vertices;
	json_t *lengths; /* {jointId: length}, a reference, or NULL */
};

int rig_op__weights_auto_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op",       "layerId", "method", "maxInfluences",
					      "vertices", "lengths", NULL};
	(void)bulk;
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct auto_op *a = calloc(1, sizeof *a);
	if (!a)
		return rig_jr_out_of_memory(jr, "method");
	out->u.kind_data = a;
	const char *method = NULL;
	if (rig_jr_string(jr, op, "method", true, 32, &method) == 0 && method &&
	    rig_auto_method_parse(&a->method, method) != 0)
		rc = rig_jr_fail(jr, "method",
				 "method '%s' is not segment, nearestJoint or harmonic", method);
	long long max = 4;
	rc |= rig_jr_int(jr, op, "maxInfluences", false, RIG_MIN_INFLUENCES, RIG_MAX_INFLUENCES,
			 &max, NULL);
	a->max_influences = (int)max;
	json_t *vertices = json_object_get(op, "vertices");
	if (vertices) {
		size_t n = json_array_size(vertices);
		if (!json_is_array(vertices) || n == 0)
			return rig_jr_fail(jr, "vertices",
					   "'vertices' must be a non-empty array "
					   "of vertex indices");
		if (!(a->vertices = malloc(n * sizeof *a->vertices)))
			return rig_jr_out_of_memory(jr, "vertices");
		a->n_vertices = n;
		for (size_t i = 0; i < n; i++) {
			char key[40];
			snprintf(key, sizeof key, "vertices/%zu", i);
			rc |= rig_jr_index(jr, json_array_get(vertices, i), key, 0,
					   RIG_MAX_VERTICES - 1, &a->vertices[i]);
		}
	}
	json_t *lengths = json_object_get(op, "lengths");
	if (lengths) {
		const char *id;
		json_t *v;
		if (!json_is_object(lengths))
			return rig_jr_fail(jr, "lengths", "'lengths' must be {jointId: length}");
		json_object_foreach(lengths, id, v)
		{
			char key[RIG_ID_MAX + 16];
			snprintf(key, sizeof key, "lengths/%s", id);
			if (!json_is_number(v) || !(json_number_value(v) >= 0) ||
			    !isfinite(json_number_value(v)))
				rc = rig_jr_fail(jr, key,
						 "length of '%s' must be a finite number >= 0", id);
		}
		a->lengths = json_incref(lengths);
	}
	return rc;
}

/* The joints of d as automatic weights see them: binds, lengths and parents
 * (the nearest ancestor of the joint's layer another joint follows). */
static int auto_joints(struct rig_auto_joint *out, struct rig_op_ctx *ctx, const struct rig_op *op,
		       const struct rig_skin_def *d, json_t *lengths)
{
	for (size_t j = 0; j < d->n_joints; j++) {
		out[j] = (struct rig_auto_joint){.bind = d->joints[j].bind, .parent = -1};
		json_t *len = lengths ? json_object_get(lengths, d->joints[j].id) : NULL;
		if (len) {
			out[j].has_length = true;
			out[j].length = json_number_value(len);
		}
		struct rig_model_layer *at = rig_shot_model_find(ctx->model, d->joints[j].layer_id);
		while (at && at->parent_id[0] && out[j].parent < 0) {
			at = rig_shot_model_find(ctx->model, at->parent_id);
			for (size_t k = 0; at && k < d->n_joints; k++)
				if (k != j && strcmp(d->joints[k].layer_id, at->id) == 0) {
					out[j].parent = (long)k;
					break;
				}
		}
	}
	const char *id;
	json_t *v;
	json_object_foreach(lengths, id, v)
	{
		if (rig_skin_def_joint_index(d, id) != RIG_JOINT_UNKNOWN)
			continue;
		char field[RIG_ID_MAX + 16];
		snprintf(field, sizeof field, "lengths/%s", id);
		struct rig_err *e = rig_op__fail_layer(ctx, op, RIG_SKIN_JOINTS, field,
						       "joint '%s' is not a joint of the skin", id);
		rig_strlcpy(e->joint_id, id, sizeof e->joint_id);
		rig_op__list_joint_ids(e, d);
		return -1;
	}
	return 0;
}

int rig_op__weights_auto_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__skin_target(ctx, op);
	if (!l)
		return -1;
	struct rig_skin_def *d = l->binding.def;
	struct auto_op *a = op->u.kind_data;
	for (size_t i = 0; i < a->n_vertices; i++)
		if ((size_t)a->vertices[i] >= d->n_verts) {
			char field[40];
			snprintf(field, sizeof field, "vertices/%zu", i);
			struct rig_err *e = rig_op__fail_layer(
				ctx, op, RIG_SKIN_WEIGHT_VERTEX, field,
				"vertex %lld is out of range: layer '%s' has %zu vertices",
				a->vertices[i], l->id, d->n_verts);
			e->vertex_index = (long)a->vertices[i];
			return -1;
		}
	if (d->n_joints == 0) {
		rig_op__fail_layer(ctx, op, RIG_SKIN_JOINTS, "",
				   "the skin has no joints to weight the vertices to");
		return -1;
	}
	struct rig_auto_joint *joints = calloc(d->n_joints, sizeof *joints);
	struct rig_auto_result res = {0};
	int rc = -1;
	if (!joints)
		goto oom;
	if (auto_joints(joints, ctx, op, d, a->lengths) != 0)
		goto out;
	size_t from = ctx->errs->count;
	int got = rig_auto_weights(&res, d->source, d->n_verts, d->triangles, d->n_tris, joints,
				   d->n_joints, a->method, a->max_influences, ctx->errs);
	if (got == -2)
		goto oom;
	if (got != 0) {
		rig_op__scope_layer(ctx, op, from, op->pointer);
		goto out;
	}
	if (a->vertices && d->weight_offsets && d->n_weight_lists == d->n_verts) {
		/* Only the listed vertices take the new lists. */
		bool *take = calloc(d->n_verts, sizeof *take);
		uint32_t *offsets = malloc((d->n_verts + 1) * sizeof *offsets);
		size_t total = 0;
		for (size_t i = 0; take && i < a->n_vertices; i++)
			take[a->vertices[i]] = true;
		for (size_t v = 0; take && v < d->n_verts; v++)
			total += take[v] ? res.offsets[v + 1] - res.offsets[v]
					 : d->weight_offsets[v + 1] - d->weight_offsets[v];
		struct rig_skin_influence *infl = malloc((total ? total : 1) * sizeof *infl);
		if (!take || !offsets || !infl) {
			free(take);
			free(offsets);
			free(infl);
			goto oom;
		}
		size_t at = 0;
		for (size_t v = 0; v < d->n_verts; v++) {
			const uint32_t *o = take[v] ? res.offsets : d->weight_offsets;
			const struct rig_skin_influence *src =
				take[v] ? res.influences : d->influences;
			offsets[v] = (uint32_t)at;
			memcpy(&infl[at], &src[o[v]], (o[v + 1] - o[v]) * sizeof *infl);
			at += o[v + 1] - o[v];
		}
		offsets[d->n_verts] = (uint32_t)at;
		free(take);
		install_lists(ctx, op, l, offsets, infl);
	} else {
		install_lists(ctx, op, l, res.offsets, res.influences);
		res.offsets = NULL;
		res.influences = NULL;
	}
	rc = 0;
	goto out;
oom:
	rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
out:
	rig_auto_result_release(&res);
	free(joints);
	return rc;
}

void rig_op__weights_auto_release(struct rig_op *op)
{
	struct auto_op *a = op->u.kind_data;
	if (a) {
		free(a->vertices);
		json_decref(a->lengths);
	}
	free(a);
	op->u.kind_data = NULL;
}

/* ---- layer.skin.weights.paint and .set ---- */

struct paint_op {
	char joint_id[RIG_ID_MAX + 1];
	struct rig_brush brush; /* joint set when applied */
	long long vertex;       /* .set */
	double weight;          /* .set */
};

/* The joint of d the op's jointId names, or RIG_JOINT_UNKNOWN after SKIN_JOINTS. */
static uint32_t op_joint(struct rig_op_ctx *ctx, const struct rig_op *op,
			 const struct rig_skin_def *d, const char *joint_id)
{
	uint32_t j = rig_skin_def_joint_index(d, joint_id);
	if (j == RIG_JOINT_UNKNOWN) {
		struct rig_err *e =
			rig_op__fail_layer(ctx, op, RIG_SKIN_JOINTS, "jointId",
					   "joint '%s' is not a joint of the skin", joint_id);
		rig_strlcpy(e->joint_id, joint_id, sizeof e->joint_id);
		rig_op__list_joint_ids(e, d);
	}
	return j;
}

/* The head both decoders read: the members allowed, layerId and jointId,
 * into a new paint_op the op owns. NULL after recording out of memory; *rc
 * -1 when a member was refused. */
static struct paint_op *paint_op_new(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				     const char *const *allowed, int *rc)
{
	*rc = rig_jr_known(jr, op, allowed);
	*rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct paint_op *p = calloc(1, sizeof *p);
	if (!p) {
		rig_jr_out_of_memory(jr, "jointId");
		return NULL;
	}
	out->u.kind_data = p;
	*rc |= rig_jr_id(jr, op, "jointId", true, false, p->joint_id, NULL);
	return p;
}

int rig_op__weights_paint_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				 struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op",     "layerId",  "jointId", "mode", "center",
					      "radius", "strength", "feather", NULL};
	(void)bulk;
	int rc = 0;
	struct paint_op *p = paint_op_new(out, op, jr, allowed, &rc);
	if (!p)
		return -1;
	const char *mode = NULL;
	if (rig_jr_string(jr, op, "mode", true, 32, &mode) == 0 && mode &&
	    rig_brush_mode_parse(&p->brush.mode, mode) != 0)
		rc = rig_jr_fail(jr, "mode", "mode '%s' is not add, subtract, smooth or set", mode);
	json_t *center = json_object_get(op, "center");
	if (!json_is_array(center) || json_array_size(center) != 2 ||
	    !json_is_number(json_array_get(center, 0)) ||
	    !json_is_number(json_array_get(center, 1)))
		rc = rig_jr_fail(jr, "center", "'center' must be [x, y] in rest space");
	else {
		p->brush.cx = json_number_value(json_array_get(center, 0));
		p->brush.cy = json_number_value(json_array_get(center, 1));
	}
	rc |= rig_jr_number(jr, op, "radius", true, &p->brush.radius, NULL);
	rc |= rig_jr_number(jr, op, "strength", true, &p->brush.strength, NULL);
	rc |= rig_jr_number(jr, op, "feather", true, &p->brush.feather, NULL);
	if (rc == 0) {
		size_t from = jr->errs->count;
		/* the fields' ranges; the joint is checked against the skin later */
		if (rig_brush_check(&p->brush, 1, jr->errs) != 0) {
			rig_errs_scope(jr->errs, from, jr->op_index, jr->base);
			rc = -1;
		}
	}
	return rc;
}

int rig_op__weights_paint_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__skin_target(ctx, op);
	if (!l)
		return -1;
	struct rig_skin_def *d = l->binding.def;
	struct paint_op *p = op->u.kind_data;
	struct rig_brush b = p->brush;
	if ((b.joint = op_joint(ctx, op, d, p->joint_id)) == RIG_JOINT_UNKNOWN)
		return -1;
	uint32_t *changed = NULL;
	size_t n_changed = 0;
	if (rig_brush_apply(d, &b, &changed, &n_changed) != 0) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	note_changed(ctx, op, changed, n_changed);
	free(changed);
	rig_op__binding_edited(ctx, op, l);
	return 0;
}

int rig_op__weights_set_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			       struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op",      "layerId", "vertexIndex",
					      "jointId", "weight",  NULL};
	(void)bulk;
	int rc = 0;
	struct paint_op *p = paint_op_new(out, op, jr, allowed, &rc);
	if (!p)
		return -1;
	rc |= rig_jr_int(jr, op, "vertexIndex", true, 0, RIG_MAX_VERTICES - 1, &p->vertex, NULL);
	rc |= rig_jr_number(jr, op, "weight", true, &p->weight, NULL);
	return rc;
}

int rig_op__weights_set_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__skin_target(ctx, op);
	if (!l)
		return -1;
	struct rig_skin_def *d = l->binding.def;
	struct paint_op *p = op->u.kind_data;
	if ((size_t)p->vertex >= d->n_verts) {
		struct rig_err *e = rig_op__fail_layer(
			ctx, op, RIG_SKIN_WEIGHT_VERTEX, "vertexIndex",
			"vertex %lld is out of range: layer '%s' has %zu vertices", p->vertex,
			l->id, d->n_verts);
		e->vertex_index = (long)p->vertex;
		return -1;
	}
	uint32_t j = op_joint(ctx, op, d, p->joint_id);
	if (j == RIG_JOINT_UNKNOWN)
		return -1;
	size_t from = ctx->errs->count;
	int rc = rig_weight_set(d, (size_t)p->vertex, j, p->weight, ctx->errs);
	if (rc == -2) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	if (rc != 0) {
		rig_op__scope_layer(ctx, op, from, op->pointer);
		return -1;
	}
	uint32_t vertex = (uint32_t)p->vertex;
	note_changed(ctx, op, &vertex, 1);
	rig_op__binding_edited(ctx, op, l);
	return 0;
}

void rig_op__paint_release(struct rig_op *op)
{
	free(op->u.kind_data);
	op->u.kind_data = NULL;
}
