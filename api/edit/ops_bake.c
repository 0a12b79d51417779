/* The bakes (layer.skin.bake, layer.puppet.bake): turn a layer's binding
 * into a mesh binding keyed with its evaluated vertices, one linear key per
 * frame asked for, so a shot can leave its joints or pins behind. Any kind
 * is read through its row (core/binding.h, evaluated as the frames route
 * evaluates it); the kind that is written is the mesh binding
 * (core/mesh_binding.h). Each kind's bake op is a row beside its other ops
 * (the skin's in op_table.c, the puppet's in puppet_binding.c) sharing the
 * decode, apply and release here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"
#include "core/mesh_binding.h"
#include "core/rig.h"
#include "core/rig_limits.h"
#include "storage/shot_repo.h"

/* What a bake decodes (op->u.kind_data). */
struct bake_op {
	double *frames; /* the shot frames to key, owned */
	size_t n_frames;
};

void rig_op__bake_release(struct rig_op *op)
{
	struct bake_op *m = op->u.kind_data;
	if (!m)
		return;
	free(m->frames);
	free(m);
	op->u.kind_data = NULL;
}

/* At most this many frames in one bake: past it no mesh could hold the keys
 * (RIG_MAX_MESH_KEY_VERTICES), so the list is refused before it is built. */
#define MAX_BAKE_FRAMES (RIG_MAX_MESH_KEY_VERTICES / RIG_MIN_VERTICES)

/* frames: [f, …] or {from, to, step} (step 1 by default), the frame range
 * route's frames: from + i · step while not past to (with its 1e-9 slack). */
static int decode_bake_frames(const struct rig_jr *jr, json_t *op, struct bake_op *m)
{
	json_t *frames = json_object_get(op, "frames");
	if (json_is_array(frames) && json_array_size(frames) > 0) {
		size_t n = json_array_size(frames);
		if (n > MAX_BAKE_FRAMES)
			return rig_jr_fail(jr, "frames", "a bake holds at most %d frames",
					   MAX_BAKE_FRAMES);
		if (!(m->frames = malloc(n * sizeof *m->frames)))
			return rig_jr_out_of_memory(jr, "frames");
		for (size_t i = 0; i < n; i++) {
			json_t *f = json_array_get(frames, i);
			if (!json_is_number(f)) {
				char key[32];
				snprintf(key, sizeof key, "frames/%zu", i);
				return rig_jr_fail(jr, key, "frames must be finite numbers");
			}
			m->frames[i] = json_number_value(f);
		}
		m->n_frames = n;
		return 0;
	}
	if (!json_is_object(frames))
		return rig_jr_fail(jr, "frames",
				   "field 'frames' must be a non-empty array of frames or"
				   " {from, to, step}");
	char base[64];
	snprintf(base, sizeof base, "%s/frames", jr->base);
	struct rig_jr fjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
	static const char *const fields[] = {"from", "to", "step", NULL};
	double from = 0, to = 0, step = 1;
	int rc = rig_jr_known(&fjr, frames, fields);
	rc |= rig_jr_number(&fjr, frames, "from", true, &from, NULL);
	rc |= rig_jr_number(&fjr, frames, "to", true, &to, NULL);
	rc |= rig_jr_number(&fjr, frames, "step", false, &step, NULL);
	if (rc)
		return -1;
	if (!(step > 0))
		return rig_jr_fail(&fjr, "step", "step must be greater than 0");
	if (!(to >= from))
		return rig_jr_fail(&fjr, "to", "to must not be before from");
	double count = floor((to - from) / step + 1e-9) + 1;
	if (!(count <= MAX_BAKE_FRAMES))
		return rig_jr_fail(&fjr, "step",
				   "the range has %.0f frames; a bake holds at most %d", count,
				   MAX_BAKE_FRAMES);
	m->n_frames = (size_t)count;
	if (!(m->frames = malloc(m->n_frames * sizeof *m->frames)))
		return rig_jr_out_of_memory(jr, "frames");
	for (size_t i = 0; i < m->n_frames; i++)
		m->frames[i] = from + (double)i * step; /* multiplied, as the range route does */
	return 0;
}

int rig_op__bake_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "frames", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct bake_op *m = calloc(1, sizeof *m);
	if (!m)
		return rig_jr_out_of_memory(jr, "");
	out->u.kind_data = m;
	rc |= decode_bake_frames(jr, op, m);
	return rc;
}

/* The evaluator of l's binding as evaluation builds it from the stored
 * definition (the kind's prepare of a copy: a skin's weights as stored, not
 * normalised again; a puppet's weights and factorisation), so the baked
 * vertices are the frames route's bit for bit. NULL with errs filled. */
static void *eval_as_stored(const struct rig_binding_type *type, const void *def,
			    struct rig_errs *errs)
{
	void *copy = rig_binding_def_copy(type, def);
	if (!copy) {
		rig_errs_add(errs, RIG_MEMORY_BUSY, "the server ran out of memory");
		return NULL;
	}
	void *eval = type->prepare(copy, errs);
	type->def_free(copy);
	return eval;
}

/* A new mesh binding with the binding's source and triangles and one linear
 * key per frame (at the layer's local frame), keyed with the resolver's
 * vertices. NULL with errs filled (each evaluation error names its shot
 * frame). */
static struct rig_mesh_def *bake(struct rig_op_ctx *ctx, const struct rig_model_layer *l,
				 const struct bake_op *m)
{
	const struct rig_binding_type *type = l->binding.type;
	const void *def = l->binding.def;
	size_t n_verts = type->def_n_verts(def), n_tris = type->def_n_tris(def);
	struct rig_mesh_def *md = calloc(1, sizeof *md);
	struct rig_scene_view view;
	bool has_view = rig_scene_view_init(&view, ctx->model) == 0;
	void *eval = has_view ? eval_as_stored(type, def, ctx->errs) : NULL;
	struct rig_resolver *r = NULL;
	int rc = -1;
	if (!md || !has_view || !eval)
		goto out;
	long mesh = view.index_of[l - ctx->model->layers];
	view.layers[mesh].binding = type;
	view.layers[mesh].binding_eval = eval;
	md->n_verts = n_verts;
	md->n_tris = n_tris;
	md->source = malloc(2 * n_verts * sizeof *md->source);
	md->triangles = malloc(3 * n_tris * sizeof *md->triangles);
	if (!(r = rig_resolver_new(&view.scene)) || !md->source || !md->triangles)
		goto out;
	memcpy(md->source, type->def_source(def), 2 * n_verts * sizeof *md->source);
	memcpy(md->triangles, type->def_triangles(def), 3 * n_tris * sizeof *md->triangles);
	rc = 0;
	for (size_t i = 0; i < m->n_frames && rc == 0; i++) {
		double *xy = malloc(2 * n_verts * sizeof *xy);
		struct rig_key t = {m->frames[i] - l->time_offset, 0, RIG_INTERP_LINEAR, {0}};
		if (!xy) {
			rc = -1;
			break;
		}
		if (rig_resolver_evaluate(xy, r, mesh, m->frames[i], ctx->errs) != 0 ||
		    rig_mesh_def_key_put(md, &t, xy) != 0) {
			free(xy);
			rc = -1;
		}
	}
out:
	if (rc && !rig_errs_any(ctx->errs))
		rig_errs_add(ctx->errs, RIG_MEMORY_BUSY, "the server ran out of memory");
	rig_resolver_free(r);
	if (eval)
		type->free(eval);
	if (has_view)
		rig_scene_view_release(&view);
	if (rc && md) {
		rig_mesh_def_release(md);
		free(md);
		md = NULL;
	}
	return md;
}

int rig_op__bake_apply(struct rig_op_ctx *ctx, struct rig_op *op,
		       const struct rig_binding_type *from)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return -1;
	if (l->binding.type != from) {
		struct rig_err *e = rig_op__fail_layer(ctx, op, RIG_MESH_BINDING_KIND, "layerId",
						       "layer '%s' has no %s binding to bake",
						       l->id, from->name);
		if (l->binding.type)
			rig_err_extra(e, "bindingKind", l->binding.type->name);
		return -1;
	}
	int rc = rig_shot_load_binding(ctx->conn, ctx->model, l);
	if (rc) {
		rig_op__fail_layer(ctx, op, (enum rig_code) - rc, "",
				   "cannot load the %s of layer '%s'", from->name, l->id);
		return -1;
	}
	const struct bake_op *m = op->u.kind_data;
	size_t n_verts = from->def_n_verts(l->binding.def);
	if (m->n_frames > RIG_MAX_MESH_KEY_VERTICES / n_verts) {
		struct rig_err *e = rig_op__fail_layer(
			ctx, op, RIG_MESH_GEOMETRY, "frames",
			"%zu frames of %zu vertices exceed the limit of %d key vertices",
			m->n_frames, n_verts, RIG_MAX_MESH_KEY_VERTICES);
		rig_err_extra_number(e, "frameCount", (double)m->n_frames);
		rig_err_extra_number(e, "vertexCount", (double)n_verts);
		rig_err_extra_number(e, "limit", RIG_MAX_MESH_KEY_VERTICES);
		return -1;
	}
	size_t first = ctx->errs->count;
	/* An earlier op of the batch may have left the definition broken (a new
	 * mesh whose weights are not written yet): its rules, not a damaged
	 * evaluator, say why it cannot be baked. */
	if (from->validate(l->binding.def, ctx->errs) != 0) {
		rig_op__scope_layer(ctx, op, first, op->pointer);
		return -1;
	}
	struct rig_mesh_def *md = bake(ctx, l, m);
	if (!md) {
		rig_op__scope_layer(ctx, op, first, op->pointer);
		return -1;
	}
	rig_model_binding_set(l, &rig_binding_mesh, md);
	rig_op__binding_changed(ctx, l->id, op->index, NULL);
	rig_op__changed(ctx, op->layer_id);
	return 0;
}
