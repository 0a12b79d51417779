/* Authoring ops (issue 25): results computed once on the server and stored as
 * explicit data, so evaluation stays free of automatic anything.
 *
 *   layer.mesh.generate {layerId, binding, tessellate}: a rest mesh (source,
 *     triangles, uvs) tessellated from a rectangle and its coverage
 *     (api/edit/tessellate_input.h, core/tessellate.h), installed through the
 *     kind's remesh (api/edit/binding.h) as a binding of kind `binding`.
 *   layer.bones.suggest {layerId, bones: n | preset, parentId?, idPrefix?}:
 *     group layers placed over the layer's rest mesh (core/bone_suggest.h).
 *   layer.rig.auto {layerId, tessellate, bones, method?, maxInfluences?,
 *     frame?, idPrefix?}: all of it in one op, expanded inside the batch into
 *     ordinary ops (bone creation, the skin's mesh, joints bound at `frame`,
 *     automatic weights), listed in the receipt as expandedOps. An expanded
 *     op that fails fails the batch; the ops after it see what was applied.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/edit/ops_internal.h"
#include "api/edit/tessellate_input.h"
#include "core/auto_weights.h"
#include "core/bone_suggest.h"
#include "storage/shot_repo.h"

/* ---- layer.mesh.generate ---- */

struct generate_op {
	const struct rig_binding_kind *kind;
	struct rig_tess_input in;
};

/* The kinds remesh can make, for the error that lists them. */
static void list_generated_kinds(struct rig_err *e)
{
	for (size_t k = 0; k < rig_binding_n_kinds; k++)
		if (rig_binding_kinds[k]->remesh)
			rig_err_list_add(e, "validBindings", rig_binding_kinds[k]->type->name);
}

int rig_op__generate_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			    struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op", "layerId", "binding", "tessellate", NULL};
	(void)bulk;
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct generate_op *g = calloc(1, sizeof *g);
	if (!g)
		return rig_jr_out_of_memory(jr, "tessellate");
	out->u.kind_data = g;
	const char *binding = NULL;
	if (rig_jr_string(jr, op, "binding", true, RIG_ID_MAX, &binding) == 0 && binding) {
		const struct rig_binding_kind *kind =
			rig_binding_kind_of(rig_binding_type_find(binding));
		if (kind && kind->remesh)
			g->kind = kind;
		else {
			rig_jr_fail(jr, "binding", "binding '%s' cannot be generated", binding);
			list_generated_kinds(&jr->errs->items[jr->errs->count - 1]);
			rc = -1;
		}
	} else {
		rc = -1;
	}
	char base[RIG_ERR_POINTER_MAX];
	snprintf(base, sizeof base, "%s/tessellate", jr->base);
	struct rig_jr tjr = {jr->errs, jr->code, base, jr->op_index};
	json_t *tess = json_object_get(op, "tessellate");
	if (!tess)
		rc = rig_jr_fail(jr, "tessellate", "field 'tessellate' is required");
	else if (rig_tess_input_decode(&g->in, &tjr, tess) != 0)
		rc = -1;
	return rc;
}

/* Tessellates the op's member "tessellate" (decoded into in) into *mesh; its
 * violations point into that member. Returns 0, or -1 with them recorded. */
static int tessellate_member(struct rig_tess_mesh *mesh, struct rig_op_ctx *ctx,
			     const struct rig_op *op, const struct rig_tess_input *in)
{
	size_t from = ctx->errs->count;
	int rc = rig_tessellate(mesh, &in->params, ctx->errs);
	if (rc == -2) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	if (rc != 0) {
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%s/tessellate", op->pointer);
		rig_op__scope_layer(ctx, op, from, prefix);
		return -1;
	}
	return 0;
}

int rig_op__generate_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return -1;
	struct generate_op *g = op->u.kind_data;
	struct rig_tess_mesh mesh;
	if (tessellate_member(&mesh, ctx, op, &g->in) != 0)
		return -1;
	int rc = g->kind->remesh(ctx, op, l, &mesh);
	rig_tess_mesh_release(&mesh);
	return rc;
}

void rig_op__generate_release(struct rig_op *op)
{
	struct generate_op *g = op->u.kind_data;
	if (g)
		rig_tess_input_release(&g->in);
	free(g);
	op->u.kind_data = NULL;
}

/* ---- bones: layer.bones.suggest and layer.rig.auto ---- */

/* Where suggested bones come from: a chain of count joints, or a preset. */
struct bones_choice {
	long count; /* 0: the preset */
	enum rig_bone_preset preset;
};

/* Reads op's member key, a joint count (1..RIG_MAX_SUGGEST_BONES) or a
 * preset name, into *out. Returns 0 or -1. */
static int decode_bones(struct bones_choice *out, const struct rig_jr *jr, json_t *op,
			const char *key)
{
	json_t *v = json_object_get(op, key);
	memset(out, 0, sizeof *out);
	if (json_is_string(v)) {
		if (rig_bone_preset_parse(&out->preset, json_string_value(v)) == 0)
			return 0;
		return rig_jr_fail(jr, key, "preset '%s' is not biped or quadruped",
				   json_string_value(v));
	}
	long long n = 0;
	if (rig_jr_int(jr, op, key, true, 1, RIG_MAX_SUGGEST_BONES, &n, NULL) != 0)
		return -1;
	out->count = (long)n;
	return 0;
}

/* The suggestions for the region of points (2 · n), into out (at least
 * RIG_MAX_SUGGEST_BONES); the count, or -1 with violations recorded. */
static long suggest(struct rig_bone_suggestion *out, const struct bones_choice *b,
		    const double *points, size_t n, struct rig_errs *errs)
{
	if (b->count)
		return rig_bones_chain(out, (size_t)b->count, points, n, errs);
	double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		x0 = fmin(x0, points[2 * i]);
		x1 = fmax(x1, points[2 * i]);
		y0 = fmin(y0, points[2 * i + 1]);
		y1 = fmax(y1, points[2 * i + 1]);
	}
	return rig_bones_preset(out, b->preset, x0, y0, x1, y1, errs);
}

/* The bone layers' ids: prefix and the suggestion's name. */
static void bone_id(char out[RIG_ID_MAX + 1], const char *prefix,
		    const struct rig_bone_suggestion *b)
{
	snprintf(out, RIG_ID_MAX + 1, "%s%s", prefix, b->name);
}

/* Creates the suggested bones as group layers under parent ("": the shot
 * root), each rotated to its heading, its children placed in its frame, so
 * a bone's world origin is its suggestion in parent's space. */
static int create_bones(struct rig_op_ctx *ctx, const struct rig_op *op,
			const struct rig_bone_suggestion *s, long n, const char *parent,
			const char *prefix, json_t *listed)
{
	for (long i = 0; i < n; i++) /* ids are never cut short: a cut one could repeat */
		if (strlen(prefix) + strlen(s[i].name) > RIG_ID_MAX) {
			struct rig_err *e = rig_op__fail_layer(
				ctx, op, RIG_OP_INVALID, "idPrefix",
				"bone id '%s' + '%s' would pass %d bytes; give a shorter idPrefix",
				prefix, s[i].name, RIG_ID_MAX);
			rig_err_extra(e, "idPrefix", prefix);
			return -1;
		}
	for (long i = 0; i < n; i++) {
		char id[RIG_ID_MAX + 1], parent_id[RIG_ID_MAX + 1];
		bone_id(id, prefix, &s[i]);
		double x = s[i].x, y = s[i].y, rot = s[i].rotation_deg;
		if (s[i].parent >= 0) {
			const struct rig_bone_suggestion *p = &s[s[i].parent];
			double a = -p->rotation_deg * M_PI / 180, dx = x - p->x, dy = y - p->y;
			x = cos(a) * dx - sin(a) * dy;
			y = sin(a) * dx + cos(a) * dy;
			rot -= p->rotation_deg;
			bone_id(parent_id, prefix, p);
		} else {
			rig_strlcpy(parent_id, parent, sizeof parent_id);
		}
		json_t *create =
			json_pack("{s:s, s:s, s:s, s:s, s:o, s:{s:[f, f], s:f}}", "op",
				  "layer.create", "layerId", id, "name", id, "kind", "group",
				  "parentId", parent_id[0] ? json_string(parent_id) : json_null(),
				  "transform", "position", x, y, "rotation", rot);
		if (rig_op__run_expanded(ctx, op, create, listed) != 0)
			return -1;
	}
	return 0;
}

struct bones_op {
	struct bones_choice bones;
	char parent_id[RIG_ID_MAX + 1];
	bool has_parent;
	char prefix[RIG_ID_MAX + 1];
	/* layer.rig.auto */
	struct rig_tess_input in;
	enum rig_auto_method method;
	long long max_influences;
	double frame;
};

static int decode_prefix(struct bones_op *b, const struct rig_jr *jr, json_t *op,
			 const char *layer_id)
{
	const char *prefix = NULL;
	int rc = rig_jr_string(jr, op, "idPrefix", false, RIG_ID_MAX - RIG_BONE_NAME_MAX, &prefix);
	snprintf(b->prefix, sizeof b->prefix, "%s", prefix ? prefix : layer_id);
	if (!prefix)
		strncat(b->prefix, ".", sizeof b->prefix - strlen(b->prefix) - 1);
	return rc;
}

int rig_op__bones_suggest_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				 struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op",       "layerId",  "bones",
					      "parentId", "idPrefix", NULL};
	(void)bulk;
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct bones_op *b = calloc(1, sizeof *b);
	if (!b)
		return rig_jr_out_of_memory(jr, "bones");
	out->u.kind_data = b;
	rc |= decode_bones(&b->bones, jr, op, "bones");
	bool root = false;
	rc |= rig_jr_id(jr, op, "parentId", false, true, b->parent_id, &root);
	b->has_parent = root || b->parent_id[0];
	rc |= decode_prefix(b, jr, op, out->layer_id);
	return rc;
}

int rig_op__bones_suggest_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return -1;
	struct bones_op *b = op->u.kind_data;
	if (!l->binding.type) {
		rig_op__fail_layer(ctx, op, RIG_MESH_BINDING_KIND, "",
				   "layer '%s' has no binding: its rest mesh is the region the "
				   "bones are suggested for",
				   l->id);
		return -1;
	}
	if (rig_shot_load_binding(ctx->conn, ctx->model, l) != 0) {
		rig_op__fail_layer(ctx, op, RIG_INTERNAL, "", "cannot load the binding of '%s'",
				   l->id);
		return -1;
	}
	struct rig_bone_suggestion s[RIG_MAX_SUGGEST_BONES];
	size_t from = ctx->errs->count;
	const struct rig_binding_type *t = l->binding.type;
	long n = suggest(s, &b->bones, t->def_source(l->binding.def),
			 t->def_n_verts(l->binding.def), ctx->errs);
	if (n < 0) {
		rig_op__scope_layer(ctx, op, from, op->pointer);
		return -1;
	}
	char parent[RIG_ID_MAX + 1];
	rig_strlcpy(parent, b->has_parent ? b->parent_id : l->parent_id, sizeof parent);
	json_t *listed = json_array();
	int rc = create_bones(ctx, op, s, n, parent, b->prefix, listed);
	rig_op__receipt_note(ctx, op, "expandedOps", listed);
	return rc;
}

int rig_op__rig_auto_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			    struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op",    "layerId",  "tessellate",
					      "bones", "method",   "maxInfluences",
					      "frame", "idPrefix", NULL};
	(void)bulk;
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct bones_op *b = calloc(1, sizeof *b);
	if (!b)
		return rig_jr_out_of_memory(jr, "bones");
	out->u.kind_data = b;
	rc |= decode_bones(&b->bones, jr, op, "bones");
	rc |= decode_prefix(b, jr, op, out->layer_id);
	const char *method = "nearestJoint";
	rc |= rig_jr_string(jr, op, "method", false, 32, &method);
	if (method && rig_auto_method_parse(&b->method, method) != 0)
		rc = rig_jr_fail(jr, "method",
				 "method '%s' is not segment, nearestJoint or harmonic", method);
	b->max_influences = 4;
	rc |= rig_jr_int(jr, op, "maxInfluences", false, RIG_MIN_INFLUENCES, RIG_MAX_INFLUENCES,
			 &b->max_influences, NULL);
	rc |= rig_jr_number(jr, op, "frame", false, &b->frame, NULL);
	char base[RIG_ERR_POINTER_MAX];
	snprintf(base, sizeof base, "%s/tessellate", jr->base);
	struct rig_jr tjr = {jr->errs, jr->code, base, jr->op_index};
	json_t *tess = json_object_get(op, "tessellate");
	if (!tess)
		rc = rig_jr_fail(jr, "tessellate", "field 'tessellate' is required");
	else if (rig_tess_input_decode(&b->in, &tjr, tess) != 0)
		rc = -1;
	return rc;
}

/* The kind layer.rig.auto binds: a skin, named by its wire name. */
static const struct rig_binding_kind *skin_kind(void)
{
	return rig_binding_kind_of(rig_binding_type_find("skin"));
}

/* layer.rig.auto: tessellate, suggest bones over the mesh, create them, bind
 * a new skin to them at the frame (their poses there become the binds, so the
 * skin evaluates to its source there), and weight it automatically. */
int rig_op__rig_auto_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return -1;
	struct bones_op *b = op->u.kind_data;
	struct rig_tess_mesh mesh;
	if (tessellate_member(&mesh, ctx, op, &b->in) != 0)
		return -1;
	size_t from = ctx->errs->count;
	struct rig_bone_suggestion s[RIG_MAX_SUGGEST_BONES];
	long n = suggest(s, &b->bones, mesh.source, mesh.n_verts, ctx->errs);
	json_t *listed = json_array();
	int rc = -1;
	if (n < 0) {
		rig_op__scope_layer(ctx, op, from, op->pointer);
		goto out;
	}
	char parent[RIG_ID_MAX + 1];
	rig_strlcpy(parent, l->parent_id, sizeof parent);
	if (create_bones(ctx, op, s, n, parent, b->prefix, listed) != 0)
		goto out;
	l = rig_shot_model_find(ctx->model, op->layer_id); /* adding layers moved them */
	if (rig_op__binding_install(ctx, op, l, NULL, NULL, 0, true, NULL) != 0 ||
	    skin_kind()->remesh(ctx, op, l, &mesh) != 0)
		goto out;
	json_array_append_new(
		listed, json_pack("{s:s, s:s}", "op", "layer.mesh.generate", "layerId", l->id));
	json_t *lengths = json_object();
	for (long i = 0; i < n; i++) {
		char id[RIG_ID_MAX + 1];
		bone_id(id, b->prefix, &s[i]);
		/* bound where the bone is, so the weights see its geometry; the
		 * capture below makes the binds exact */
		double a = s[i].rotation_deg * M_PI / 180;
		json_t *add = json_pack("{s:s, s:s, s:{s:s, s:s, s:[f, f, f, f, f, f]}}", "op",
					"layer.skin.joint.add", "layerId", l->id, "joint",
					"jointId", id, "layerId", id, "bind", cos(a), sin(a),
					-sin(a), cos(a), s[i].x, s[i].y);
		if (rig_op__run_expanded(ctx, op, add, listed) != 0) {
			json_decref(lengths);
			goto out;
		}
		bool leaf = true;
		for (long k = 0; k < n; k++)
			leaf = leaf && s[k].parent != i;
		if (leaf)
			json_object_set_new(lengths, id, json_real(s[i].length));
	}
	json_t *weights =
		json_pack("{s:s, s:s, s:s, s:I, s:o}", "op", "layer.skin.weights.auto", "layerId",
			  l->id, "method", rig_auto_method_name(b->method), "maxInfluences",
			  (json_int_t)b->max_influences, "lengths", lengths);
	rc = rig_op__run_expanded(ctx, op, weights, listed);
	if (rc == 0)
		rc = rig_op__run_expanded(ctx, op,
					  json_pack("{s:s, s:s, s:f}", "op",
						    "layer.skin.bind.capture", "layerId", l->id,
						    "frame", b->frame),
					  listed);
out:
	rig_op__receipt_note(ctx, op, "expandedOps", listed);
	rig_tess_mesh_release(&mesh);
	return rc;
}

void rig_op__bones_release(struct rig_op *op)
{
	struct bones_op *b = op->u.kind_data;
	if (b)
		rig_tess_input_release(&b->in);
	free(b);
	op->u.kind_data = NULL;
}
