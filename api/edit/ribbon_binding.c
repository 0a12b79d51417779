/* The ribbon binding's ops and its row of the binding kinds
 * (api/edit/binding.h):
 *   layer.ribbon       puts a ribbon on a mesh layer ({chain, widths,
 *                      segments?, caps?}; chain a list of layers or a
 *                      constraint's id) or removes it (null); the rest mesh
 *                      is generated here, at the shot's frameStart, from the
 *                      chain's poses as the resolver computes them;
 *   layer.ribbon.bake  turns it into a mesh binding keyed at frames
 *                      (ops_bake.c, as layer.skin.bake).
 * Its layer.deformation.rest.apply refuses (the mesh is generated from the
 * chain each frame: there is no rest shape to replace); its summary; its
 * mesh-data collections are the shared ones (vertices, triangles, uvs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/edit/ops_internal.h"
#include "core/binding.h"
#include "core/ribbon.h"
#include "core/rig.h"
#include "storage/shot_model.h"

/* ---- layer.ribbon ---- */

/* What layer.ribbon decodes (op->u.kind_data). */
struct ribbon_op {
	bool clear;                /* ribbon: null */
	struct rig_ribbon_def def; /* owned; the rest mesh comes in apply */
	/* chain: "<constraintId>": that constraint's chain layers, taken in
	 * apply (the constraint may be put earlier in the same batch) */
	char constraint_id[RIG_ID_MAX + 1];
	/* widths as given, spread over the chain once it is known */
	bool ramp;       /* {from, to} */
	double from, to; /* the ramp's ends */
	double *given;   /* [w, …] */
	size_t n_given;
};

static void ribbon_release(struct rig_op *op)
{
	struct ribbon_op *o = op->u.kind_data;
	if (!o)
		return;
	rig_ribbon_def_release(&o->def);
	free(o->given);
	free(o);
	op->u.kind_data = NULL;
}

/* Room for n chain layers and their widths in d. */
static int chain_alloc(struct rig_ribbon_def *d, size_t n)
{
	free(d->chain);
	free(d->widths);
	d->chain = calloc(n ? n : 1, sizeof *d->chain);
	d->widths = calloc(n ? n : 1, sizeof *d->widths);
	d->n_chain = n;
	return d->chain && d->widths ? 0 : -1;
}

/* chain: [layerId, …] (ids checked by the rules, their layers in apply) or
 * a constraint's id. */
static int decode_chain(const struct rig_jr *jr, json_t *obj, struct ribbon_op *o)
{
	json_t *chain = json_object_get(obj, "chain");
	if (!chain)
		return rig_jr_fail(jr, "chain", "field 'chain' is required");
	if (json_is_string(chain))
		return rig_jr_id(jr, obj, "chain", true, false, o->constraint_id, NULL);
	if (!json_is_array(chain))
		return rig_jr_fail(
			jr, "chain",
			"field 'chain' must be an array of layer ids or a constraint id");
	size_t n = json_array_size(chain);
	struct rig_ribbon_def *d = &o->def;
	if (chain_alloc(d, n) != 0)
		return rig_jr_out_of_memory(jr, "chain");
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		const char *id = json_string_value(json_array_get(chain, i));
		char key[32];
		snprintf(key, sizeof key, "chain/%zu", i);
		if (!id || strlen(id) > RIG_ID_MAX) {
			rc = rig_jr_fail(jr, key, "chain layer %zu must be a layer id", i);
			continue;
		}
		rig_strlcpy(d->chain[i], id, sizeof d->chain[i]);
	}
	return rc;
}

/* widths: [w, …] (one per chain point) or {from, to} (linear along the chain). */
static int decode_widths(const struct rig_jr *jr, json_t *obj, struct ribbon_op *o)
{
	json_t *widths = json_object_get(obj, "widths");
	if (!widths)
		return rig_jr_fail(jr, "widths", "field 'widths' is required");
	if (json_is_object(widths)) {
		char base[80];
		snprintf(base, sizeof base, "%s/widths", jr->base);
		struct rig_jr wjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
		static const char *const fields[] = {"from", "to", NULL};
		int rc = rig_jr_known(&wjr, widths, fields);
		rc |= rig_jr_number(&wjr, widths, "from", true, &o->from, NULL);
		rc |= rig_jr_number(&wjr, widths, "to", true, &o->to, NULL);
		if (rc)
			return -1;
		if (o->from < 0)
			rc = rig_jr_fail(&wjr, "from", "width 'from' must be at least 0");
		if (o->to < 0)
			rc = rig_jr_fail(&wjr, "to", "width 'to' must be at least 0");
		o->ramp = true;
		return rc;
	}
	if (!json_is_array(widths))
		return rig_jr_fail(jr, "widths",
				   "field 'widths' must be an array of numbers or {from, to}");
	o->n_given = json_array_size(widths);
	if (!(o->given = calloc(o->n_given ? o->n_given : 1, sizeof *o->given)))
		return rig_jr_out_of_memory(jr, "widths");
	int rc = 0;
	for (size_t i = 0; i < o->n_given; i++) {
		json_t *w = json_array_get(widths, i);
		char key[32];
		snprintf(key, sizeof key, "widths/%zu", i);
		if (!json_is_number(w)) {
			rc = rig_jr_fail(jr, key, "width %zu must be a number", i);
			continue;
		}
		o->given[i] = json_number_value(w);
	}
	return rc;
}

/* Spreads the widths as given over the chain of o->def; -1 when a list has
 * another count than the chain. */
static int fill_widths(struct ribbon_op *o)
{
	struct rig_ribbon_def *d = &o->def;
	if (!o->ramp && o->n_given != d->n_chain)
		return -1;
	for (size_t i = 0; i < d->n_chain; i++) {
		double t = d->n_chain > 1 ? (double)i / (double)(d->n_chain - 1) : 0;
		d->widths[i] = !o->ramp              ? o->given[i]
			       : i + 1 == d->n_chain ? o->to
						     : o->from + (o->to - o->from) * t;
	}
	return 0;
}

static int ribbon_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			 struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "ribbon", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct ribbon_op *o = calloc(1, sizeof *o);
	if (!o)
		return rig_jr_out_of_memory(jr, "");
	out->u.kind_data = o;
	json_t *ribbon = json_object_get(op, "ribbon");
	if (!ribbon)
		return rig_jr_fail(jr, "ribbon",
				   "field 'ribbon' is required (null removes the binding)");
	if (json_is_null(ribbon)) {
		o->clear = true;
		return rc;
	}
	if (!json_is_object(ribbon))
		return rig_jr_fail(
			jr, "ribbon",
			"field 'ribbon' must be {chain, widths, segments?, caps?} or null");
	char base[64];
	snprintf(base, sizeof base, "%s/ribbon", jr->base);
	struct rig_jr rjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
	static const char *const fields[] = {"chain", "widths", "segments", "caps", NULL};
	size_t before = jr->errs->total;
	long long segments = 1;
	rig_jr_known(&rjr, ribbon, fields);
	if (decode_chain(&rjr, ribbon, o) == 0 && decode_widths(&rjr, ribbon, o) == 0 &&
	    !o->constraint_id[0] && fill_widths(o) != 0)
		rig_jr_fail(&rjr, "widths", "field 'widths' has %zu widths for %zu chain layers",
			    o->n_given, o->def.n_chain);
	rig_jr_int(&rjr, ribbon, "segments", false, RIG_RIBBON_MIN_SEGMENTS,
		   RIG_RIBBON_MAX_SEGMENTS, &segments, NULL);
	rig_jr_bool(&rjr, ribbon, "caps", false, &o->def.caps);
	o->def.segments = (uint32_t)segments;
	if (jr->errs->total > before)
		return -1; /* shapes are wrong; the rules would only echo them */
	if (o->constraint_id[0])
		return rc; /* the rules run once apply has the chain */
	size_t from = jr->errs->count;
	if (rig_ribbon_def_check(&o->def, jr->errs) != 0) {
		rig_errs_scope(jr->errs, from, jr->op_index, base);
		return -1;
	}
	return rc;
}

/* The chain's layers exist and keep to the deformation boundary of mesh
 * layer l (SPEC §4's rule for a skin's joints): LAYER_NOT_FOUND or
 * SKIN_DEFORMATION_BOUNDARY at "ribbon/chain/<i>". Fills joint_layers (scene
 * indices). Returns 0 or -1. */
static int check_chain(struct rig_op_ctx *ctx, const struct rig_op *op,
		       const struct rig_scene_view *view, long mesh, const struct rig_ribbon_def *d,
		       long *joint_layers)
{
	int rc = 0;
	for (size_t i = 0; i < d->n_chain; i++) {
		char field[32], prefix[RIG_ERR_POINTER_MAX];
		snprintf(field, sizeof field, "ribbon/chain/%zu", i);
		struct rig_model_layer *cl = rig_op__target(ctx, op, d->chain[i], field);
		if (!cl) {
			rc = -1;
			continue;
		}
		joint_layers[i] = view->index_of[cl - ctx->model->layers];
		size_t from = ctx->errs->count;
		if (rig_scene_check_boundary(&view->scene, mesh, joint_layers[i], ctx->errs) != 0) {
			snprintf(prefix, sizeof prefix, "%s/%s", op->pointer, field);
			for (size_t k = from; k < ctx->errs->count; k++) {
				struct rig_err *e = &ctx->errs->items[k];
				rig_strlcpy(e->joint_id, d->chain[i], sizeof e->joint_id);
				e->joint_index = (long)i;
				rig_err_extra(e, "chainLayerId", d->chain[i]);
			}
			rig_errs_scope(ctx->errs, from, op->index, prefix);
			rc = -1;
		}
	}
	return rc;
}

/* Generates d's rest mesh: the strip of the chain's points at the shot's
 * frameStart, the poses computed by the resolver over the model as it is
 * (the ribbon provisionally installed on l in a view of it, as
 * layer.skin.bind.capture poses a skin's joints). Returns 0, or -1 with
 * violations recorded (d's arrays then freed or never made). */
static int make_rest(struct rig_op_ctx *ctx, const struct rig_op *op, struct rig_model_layer *l,
		     struct rig_ribbon_def *d)
{
	size_t from = ctx->errs->count;
	struct rig_scene_view view;
	struct rig_resolver *r = NULL;
	void *copy = NULL, *eval = NULL;
	long joint_layers[RIG_RIBBON_MAX_CHAIN];
	struct rig_affine poses[RIG_RIBBON_MAX_CHAIN];
	double points[2 * RIG_RIBBON_MAX_CHAIN];
	int rc = -1;
	if (rig_scene_view_init(&view, ctx->model) != 0) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	long mesh = view.index_of[l - ctx->model->layers];
	if (check_chain(ctx, op, &view, mesh, d, joint_layers) != 0)
		goto out;
	d->n_verts = rig_ribbon_n_verts(d->n_chain, d->segments, d->caps);
	d->n_tris = rig_ribbon_n_tris(d->n_chain, d->segments, d->caps);
	d->source = calloc(2 * d->n_verts, sizeof *d->source);
	d->triangles = calloc(3 * d->n_tris, sizeof *d->triangles);
	d->uvs = calloc(2 * d->n_verts, sizeof *d->uvs);
	if (!d->source || !d->triangles || !d->uvs)
		goto out_memory;
	rig_ribbon_topology(d->triangles, d->uvs, d);
	/* An evaluator over the provisional definition (its source zeros) gives
	 * the resolver the chain as joints; only the poses are read. */
	if (!(copy = rig_binding_def_copy(&rig_binding_ribbon, d)))
		goto out_memory;
	if (!(eval = rig_binding_ribbon.prepare(copy, ctx->errs)))
		goto out_scope;
	view.layers[mesh].binding = &rig_binding_ribbon;
	view.layers[mesh].binding_eval = eval;
	view.layers[mesh].joint_layers = joint_layers;
	view.layers[mesh].deformed = true;
	if (!(r = rig_resolver_new(&view.scene)))
		goto out_memory;
	if (rig_resolver_joint_poses(poses, r, mesh, ctx->model->frame_start, ctx->errs) != 0)
		goto out_scope;
	for (size_t j = 0; j < d->n_chain; j++) {
		points[2 * j] = poses[j].m[4];
		points[2 * j + 1] = poses[j].m[5];
	}
	rig_ribbon_generate(d->source, d, points);
	if (rig_ribbon_def_check(d, ctx->errs) != 0) {
		char prefix[RIG_ERR_POINTER_MAX];
		snprintf(prefix, sizeof prefix, "%s/ribbon", op->pointer);
		for (size_t k = from; k < ctx->errs->count; k++) {
			struct rig_err *e = &ctx->errs->items[k];
			e->has_frame = true;
			e->frame = ctx->model->frame_start;
			rig_strlcpy(e->layer_id, l->id, sizeof e->layer_id);
		}
		rig_errs_scope(ctx->errs, from, op->index, prefix);
		goto out;
	}
	rc = 0;
	goto out;
out_memory:
	rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
	goto out;
out_scope:
	rig_errs_scope(ctx->errs, from, op->index, op->pointer);
out:
	rig_resolver_free(r);
	rig_binding_ribbon.free(eval);
	rig_binding_ribbon.def_free(copy);
	rig_scene_view_release(&view);
	if (rc)
		rig_binding_ribbon.def_release_arrays(d);
	return rc;
}

/* chain: "<constraintId>": the chain layers of that constraint as the shot
 * holds it at this op, the widths spread over them and the rules run. */
static int take_constraint_chain(struct rig_op_ctx *ctx, const struct rig_op *op,
				 struct ribbon_op *o)
{
	long at = rig_shot_model_constraint_index(ctx->model, o->constraint_id);
	if (at < 0) {
		struct rig_err *e =
			rig_op__fail_layer(ctx, op, RIG_CONSTRAINT_NOT_FOUND, "ribbon/chain",
					   "constraint '%s' does not exist", o->constraint_id);
		rig_err_extra(e, "constraintId", o->constraint_id);
		return -1;
	}
	const struct rig_constraint *c = &ctx->model->constraints[at].c;
	if (chain_alloc(&o->def, c->n_chain) != 0) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	for (size_t i = 0; i < c->n_chain; i++)
		rig_strlcpy(o->def.chain[i], c->chain_ids[i], sizeof o->def.chain[i]);
	if (fill_widths(o) != 0) {
		struct rig_err *e = rig_op__fail_layer(
			ctx, op, RIG_OP_INVALID, "ribbon/widths",
			"field 'widths' has %zu widths for the %zu layers of constraint '%s'",
			o->n_given, c->n_chain, c->id);
		rig_err_extra(e, "constraintId", c->id);
		return -1;
	}
	size_t from = ctx->errs->count;
	if (rig_ribbon_def_check(&o->def, ctx->errs) != 0) {
		char prefix[RIG_ERR_POINTER_MAX];
		snprintf(prefix, sizeof prefix, "%s/ribbon", op->pointer);
		rig_errs_scope(ctx->errs, from, op->index, prefix);
		return -1;
	}
	return 0;
}

static int ribbon_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return -1;
	struct ribbon_op *o = op->u.kind_data;
	if (!o->clear && o->constraint_id[0] && take_constraint_chain(ctx, op, o) != 0)
		return -1;
	if (!o->clear && make_rest(ctx, op, l, &o->def) != 0)
		return -1;
	return rig_op__binding_install(ctx, op, l, &rig_binding_ribbon, &o->def, sizeof o->def,
				       o->clear, "ribbon");
}

/* ---- layer.ribbon.bake: the ribbon into a mesh binding (ops_bake.c) ---- */

static int bake_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	return rig_op__bake_apply(ctx, op, &rig_binding_ribbon);
}

static const struct rig_op_type ops[] = {
	{"layer.ribbon", ribbon_decode, ribbon_apply, ribbon_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.ribbon.bake", rig_op__bake_decode, bake_apply, rig_op__bake_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
};

/* ---- the kind's row ---- */

/* A ribbon's mesh is generated from its chain each frame: no frame's shape
 * can become its rest. */
static int rest_apply(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l)
{
	struct rig_err *e = rig_op__fail_layer(
		ctx, op, RIG_MESH_BINDING_KIND, "layerId",
		"layer '%s' is a ribbon: its mesh is generated from its chain, not a rest shape",
		l->id);
	rig_err_extra(e, "bindingKind", rig_binding_ribbon.name);
	return -1;
}

static json_t *summary(const struct rig_model_layer *l)
{
	const struct rig_ribbon_def *d = l->binding.def;
	json_t *s = rig_binding_summary_counts(l, "chainLength", d->n_chain);
	if (s) {
		json_object_set_new(s, "segments", json_integer(d->segments));
		json_object_set_new(s, "caps", json_boolean(d->caps));
	}
	return s;
}

static const struct rig_binding_collection collections[] = {
	RIG_BINDING_COLLECTION_VERTICES,
	RIG_BINDING_COLLECTION_TRIANGLES,
	RIG_BINDING_COLLECTION_UVS,
};

const struct rig_binding_kind rig_binding_kind_ribbon = {
	.type = &rig_binding_ribbon,
	.rest_apply = rest_apply,
	.summary = summary,
	.collections = collections,
	.n_collections = sizeof collections / sizeof collections[0],
	.ops = ops,
	.n_ops = sizeof ops / sizeof ops[0],
};
