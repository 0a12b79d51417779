/* The skin ops: layer.skin, layer.skin.bind.capture, and the decoding of a
 * skin definition (LayerSkinInput) they share with POST /v1/skin/evaluate
 * (ops_skin.h). layer.skin.weights.put is in ops_skin_weights.c, the joint ops
 * in ops_skin_joints.c, layer.skin.bake in ops_skin_bake.c, the shot's final
 * validation in ops_validate.c.
 *
 * The pure rules of a skin definition are the core's (rig_skin_check_def,
 * rig_skin_check_influences); this file maps JSON to definitions, JSON pointers
 * to violations, and checks what needs the shot (joint layers, boundaries).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"
#include "api/edit/ops_skin.h"
#include "api/edit/pins.h"
#include "core/rig.h"
#include "storage/shot_repo.h"

/* ---- decoding LayerSkinInput ---- */

/* Rewrites the pointers of violations [from, count) from the core's
 * definition-relative form ("/weights/3/1") to request form under prefix. */
static void scope(struct rig_errs *errs, size_t from, long op_index, const char *prefix)
{
	rig_errs_scope(errs, from, op_index, prefix);
}

/* The array bulk decoded for field of this skin, when the tree holds its empty
 * stand-in there; NULL to decode the tree's array. */
static struct rig_bulk_array *bulk_for(const struct rig_jr *jr, struct rig_bulk *bulk,
				       json_t *value, enum rig_bulk_field field)
{
	struct rig_bulk_array *a = rig_bulk_find(bulk, jr->op_index, field);
	if (!a || a->count == 0 || !json_is_array(value) || json_array_size(value) != 0)
		return NULL;
	return a;
}

int rig_op__decode_points(const struct rig_jr *jr, json_t *obj, const char *field, double **out,
			  size_t *out_n, struct rig_bulk *bulk)
{
	json_t *src = json_object_get(obj, field);
	if (!json_is_array(src))
		return rig_jr_fail(jr, field, "field '%s' must be an array of {x, y}", field);
	struct rig_bulk_array *a = bulk_for(jr, bulk, src, RIG_BULK_SOURCE);
	size_t n = a ? a->count : json_array_size(src);
	if (n > RIG_MAX_VERTICES) {
		struct rig_err *e =
			rig_errs_add(jr->errs, RIG_MESH_GEOMETRY,
				     "mesh has %zu vertices; the limit is %d", n, RIG_MAX_VERTICES);
		e->op_index = jr->op_index;
		snprintf(e->pointer, sizeof e->pointer, "%s/%s", jr->base, field);
		return -1;
	}
	if (a) { /* every element already checked by the bulk decoder */
		*out = a->source;
		a->source = NULL;
		*out_n = n;
		return 0;
	}
	double *xy = malloc((n ? n : 1) * 2 * sizeof *xy);
	if (!xy)
		return rig_jr_out_of_memory(jr, field);
	*out = xy;
	*out_n = n;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(src, i);
		json_t *x = json_object_get(v, "x"), *y = json_object_get(v, "y");
		if (!json_is_object(v) || json_object_size(v) != 2 || !json_is_number(x) ||
		    !json_is_number(y)) {
			char key[48];
			snprintf(key, sizeof key, "%s/%zu", field, i);
			rc = rig_jr_fail(jr, key, "vertex %zu must be {x, y} with two numbers", i);
			if (jr->errs->total > RIG_ERRS_KEEP)
				return rc;
			continue;
		}
		xy[2 * i] = json_number_value(x);
		xy[2 * i + 1] = json_number_value(y);
	}
	return rc;
}

/* A JSON index as uint32; anything outside [0, 2^32) becomes UINT32_MAX, which
 * the core reports as out of range (vertex counts stay far below it). */
static uint32_t as_index(json_t *v)
{
	if (!json_is_integer(v))
		return UINT32_MAX;
	json_int_t i = json_integer_value(v);
	return i < 0 || i >= (json_int_t)UINT32_MAX ? UINT32_MAX : (uint32_t)i;
}

int rig_op__decode_triangles(const struct rig_jr *jr, json_t *skin, uint32_t **out, size_t *out_n,
			     struct rig_bulk *bulk)
{
	json_t *tris = json_object_get(skin, "triangles");
	if (!json_is_array(tris))
		return rig_jr_fail(jr, "triangles",
				   "field 'triangles' must be an array of [i, j, k]");
	struct rig_bulk_array *a = bulk_for(jr, bulk, tris, RIG_BULK_TRIANGLES);
	size_t n = a ? a->count : json_array_size(tris);
	if (n > RIG_MAX_TRIANGLES) {
		struct rig_err *e = rig_errs_add(jr->errs, RIG_MESH_TOPOLOGY,
						 "mesh has %zu triangles; the limit is %d", n,
						 RIG_MAX_TRIANGLES);
		e->op_index = jr->op_index;
		snprintf(e->pointer, sizeof e->pointer, "%s/triangles", jr->base);
		return -1;
	}
	if (a) {
		*out = a->triangles;
		a->triangles = NULL;
		*out_n = n;
		return 0;
	}
	uint32_t *idx = malloc((n ? n : 1) * 3 * sizeof *idx);
	if (!idx)
		return rig_jr_out_of_memory(jr, "triangles");
	*out = idx;
	*out_n = n;
	int rc = 0;
	for (size_t t = 0; t < n; t++) {
		json_t *tri = json_array_get(tris, t);
		if (!json_is_array(tri) || json_array_size(tri) != 3) {
			char key[48];
			snprintf(key, sizeof key, "triangles/%zu", t);
			rc = rig_jr_fail(jr, key, "triangle %zu must be [i, j, k]", t);
			if (jr->errs->total > RIG_ERRS_KEEP)
				return rc;
			continue;
		}
		for (size_t k = 0; k < 3; k++) {
			json_t *v = json_array_get(tri, k);
			if (!json_is_number(v)) {
				char key[48];
				snprintf(key, sizeof key, "triangles/%zu/%zu", t, k);
				rc = rig_jr_fail(jr, key, "triangle indices must be integers");
			}
			idx[3 * t + k] = as_index(v);
		}
	}
	return rc;
}

static int decode_joints(const struct rig_jr *jr, json_t *skin, struct rig_skin_def *d)
{
	json_t *joints = json_object_get(skin, "joints");
	if (!json_is_array(joints))
		return rig_jr_fail(jr, "joints", "field 'joints' must be an array of {id, bind}");
	size_t n = json_array_size(joints);
	if (n > RIG_MAX_JOINTS) {
		struct rig_err *e =
			rig_errs_add(jr->errs, RIG_SKIN_JOINTS,
				     "skin has %zu joints; the limit is %d", n, RIG_MAX_JOINTS);
		e->op_index = jr->op_index;
		snprintf(e->pointer, sizeof e->pointer, "%s/joints", jr->base);
		return -1;
	}
	d->joints = calloc(n ? n : 1, sizeof *d->joints);
	if (!d->joints)
		return rig_jr_out_of_memory(jr, "joints");
	d->n_joints = n;
	int rc = 0;
	for (size_t j = 0; j < n; j++) {
		json_t *o = json_array_get(joints, j);
		json_t *id = json_object_get(o, "id"), *bind = json_object_get(o, "bind");
		char key[48];
		snprintf(key, sizeof key, "joints/%zu", j);
		if (!json_is_object(o) || !json_is_string(id) || !json_is_array(bind) ||
		    json_object_size(o) != 2) {
			rc = rig_jr_fail(jr, key, "joint %zu must be {id, bind}", j);
			continue;
		}
		/* The id rule itself is SKIN_JOINTS, checked by the core; keep the text. */
		rig_strlcpy(d->joints[j].id, json_string_value(id), sizeof d->joints[j].id);
		if (json_string_length(id) > RIG_ID_MAX)
			d->joints[j].id[0] = '\0';
		if (json_array_size(bind) != 6) {
			snprintf(key, sizeof key, "joints/%zu/bind", j);
			rc = rig_jr_fail(jr, key, "bind of joint %zu must be six numbers", j);
			continue;
		}
		for (size_t e = 0; e < 6; e++) {
			json_t *v = json_array_get(bind, e);
			if (!json_is_number(v)) {
				snprintf(key, sizeof key, "joints/%zu/bind/%zu", j, e);
				rc = rig_jr_fail(jr, key, "bind entries must be numbers");
			}
			d->joints[j].bind.m[e] = json_number_value(v);
		}
	}
	return rc;
}

static int decode_weights(const struct rig_jr *jr, json_t *skin, struct rig_skin_def *d,
			  struct rig_bulk_array *a)
{
	json_t *weights = json_object_get(skin, "weights");
	if (!json_is_array(weights))
		return rig_jr_fail(jr, "weights",
				   "field 'weights' must be one influence list per vertex");
	size_t n = a ? a->count : json_array_size(weights), total = 0;
	if (n > RIG_MAX_VERTICES) {
		/* Past the vertex limit no list can match a valid mesh: say so without
		 * decoding millions of lists. */
		struct rig_err *e =
			rig_errs_add(jr->errs, RIG_SKIN_WEIGHTS,
				     "there are %zu weight lists; a mesh has at most %d "
				     "vertices",
				     n, RIG_MAX_VERTICES);
		rig_err_extra_number(e, "weightListCount", (double)n);
		rig_err_extra_number(e, "limit", RIG_MAX_VERTICES);
		e->op_index = jr->op_index;
		snprintf(e->pointer, sizeof e->pointer, "%s/weights", jr->base);
		return -1;
	}
	if (a) { /* lists of at most RIG_MAX_INFLUENCES {jointId, weight}, checked */
		if (rig_op__skin_map_joints(a, d) != 0)
			return rig_jr_out_of_memory(jr, "weights");
		d->weight_offsets = a->offsets;
		d->influences = a->influences;
		a->offsets = NULL;
		a->influences = NULL;
		d->n_weight_lists = n;
		return 0;
	}
	for (size_t v = 0; v < n; v++) {
		size_t k = json_array_size(json_array_get(weights, v));
		total += k > RIG_MAX_INFLUENCES ? RIG_MAX_INFLUENCES + 1 : k;
	}
	d->weight_offsets = malloc((n + 1) * sizeof *d->weight_offsets);
	d->influences = malloc((total ? total : 1) * sizeof *d->influences);
	if (!d->weight_offsets || !d->influences)
		return rig_jr_out_of_memory(jr, "weights");
	d->n_weight_lists = n;
	int rc = 0;
	size_t at = 0;
	for (size_t v = 0; v < n; v++) {
		d->weight_offsets[v] = (uint32_t)at;
		json_t *list = json_array_get(weights, v);
		char key[64];
		if (!json_is_array(list)) {
			snprintf(key, sizeof key, "weights/%zu", v);
			rc = rig_jr_fail(jr, key, "weights of vertex %zu must be a list", v);
			continue;
		}
		size_t nk = json_array_size(list);
		if (nk > RIG_MAX_INFLUENCES)
			nk = RIG_MAX_INFLUENCES + 1;
		for (size_t k = 0; k < nk; k++) {
			json_t *inf = json_array_get(list, k);
			json_t *jid = json_object_get(inf, "jointId"),
			       *w = json_object_get(inf, "weight");
			if (!json_is_object(inf) || !json_is_string(jid) || !json_is_number(w) ||
			    json_object_size(inf) != 2) {
				snprintf(key, sizeof key, "weights/%zu/%zu", v, k);
				rc = rig_jr_fail(jr, key, "influence must be {jointId, weight}");
				continue;
			}
			d->influences[at].joint =
				rig_skin_def_joint_index(d, json_string_value(jid));
			d->influences[at].weight = json_number_value(w);
			at++;
		}
	}
	d->weight_offsets[n] = (uint32_t)at;
	return rc;
}

/* method: "lbs" (the default when absent) or "dqs" (core/skin.h). */
static int decode_method(const struct rig_jr *jr, json_t *skin, struct rig_skin_def *d)
{
	const char *name = NULL;
	d->method = RIG_SKIN_LBS;
	if (rig_jr_string(jr, skin, "method", false, 16, &name))
		return -1;
	if (name && rig_skin_method_parse(&d->method, name) != 0)
		return rig_jr_fail(jr, "method", "method '%.16s' is not lbs or dqs", name);
	return 0;
}

/* puppet: the skin's pins, {pins?, solver?, maxRotationDeg?} (the mesh is
 * the skin's own); null or absent is none. Shapes only: the rules are
 * rig_skin_check_def's. */
static int decode_puppet(const struct rig_jr *jr, json_t *skin, struct rig_skin_def *d)
{
	json_t *puppet = json_object_get(skin, "puppet");
	if (!puppet || json_is_null(puppet))
		return 0;
	if (!json_is_object(puppet))
		return rig_jr_fail(
			jr, "puppet",
			"field 'puppet' must be {pins, solver?, maxRotationDeg?} or null");
	char base[96];
	snprintf(base, sizeof base, "%s/puppet", jr->base);
	struct rig_jr pjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
	static const char *const fields[] = {"pins", "solver", "maxRotationDeg", NULL};
	int rc = rig_jr_known(&pjr, puppet, fields);
	if (!(d->puppet = calloc(1, sizeof *d->puppet)))
		return rig_jr_out_of_memory(jr, "puppet");
	return rig_op__pins_decode(&pjr, puppet, d->puppet) | rc;
}

/* jointLayers: every joint exactly once. Fills joints[j].layer_id. */
static int decode_joint_layers(const struct rig_jr *jr, json_t *skin, struct rig_skin_def *d,
			       uint32_t **out_map_pos)
{
	uint32_t *pos = out_map_pos ? calloc(d->n_joints ? d->n_joints : 1, sizeof *pos) : NULL;
	if (out_map_pos)
		*out_map_pos = pos;
	json_t *map = json_object_get(skin, "jointLayers");
	if (!json_is_array(map))
		return rig_jr_fail(jr, "jointLayers",
				   "field 'jointLayers' must be [{jointId, layerId}]");
	int rc = 0;
	size_t i;
	json_t *m;
	json_array_foreach(map, i, m)
	{
		char base[96];
		snprintf(base, sizeof base, "%s/jointLayers/%zu", jr->base, i);
		struct rig_jr mjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
		static const char *const allowed[] = {"jointId", "layerId", NULL};
		char joint_id[RIG_ID_MAX + 1] = "", layer_id[RIG_ID_MAX + 1] = "";
		if (!json_is_object(m)) {
			rc = rig_jr_fail(&mjr, "", "mapping must be {jointId, layerId}");
			continue;
		}
		if (rig_jr_known(&mjr, m, allowed) ||
		    rig_jr_id(&mjr, m, "jointId", true, false, joint_id, NULL) ||
		    rig_jr_id(&mjr, m, "layerId", true, false, layer_id, NULL)) {
			rc = -1;
			continue;
		}
		uint32_t j = rig_skin_def_joint_index(d, joint_id);
		const char *problem = j == RIG_JOINT_UNKNOWN     ? "is not a joint of the skin"
				      : d->joints[j].layer_id[0] ? "is mapped more than once"
								 : NULL;
		if (problem) {
			struct rig_err *e = rig_errs_add(jr->errs, RIG_SKIN_JOINT_LAYERS,
							 "joint '%s' %s", joint_id, problem);
			e->op_index = jr->op_index;
			snprintf(e->pointer, sizeof e->pointer, "%s/jointId", base);
			rig_strlcpy(e->joint_id, joint_id, sizeof e->joint_id);
			if (j == RIG_JOINT_UNKNOWN)
				rig_op__list_joint_ids(e, d);
			rc = -1;
			continue;
		}
		memcpy(d->joints[j].layer_id, layer_id, sizeof layer_id);
		if (pos)
			pos[j] = (uint32_t)i;
	}
	for (size_t j = 0; j < d->n_joints && rc == 0; j++) {
		if (d->joints[j].layer_id[0] || !d->joints[j].id[0])
			continue;
		struct rig_err *e =
			rig_errs_add(jr->errs, RIG_SKIN_JOINT_LAYERS,
				     "joint '%s' is not mapped to a layer", d->joints[j].id);
		e->op_index = jr->op_index;
		e->joint_index = (long)j;
		snprintf(e->pointer, sizeof e->pointer, "%s/jointLayers", jr->base);
		rig_strlcpy(e->joint_id, d->joints[j].id, sizeof e->joint_id);
		rc = -1;
	}
	return rc;
}

void rig_op__list_joint_ids(struct rig_err *e, const struct rig_skin_def *d)
{
	for (size_t j = 0; j < d->n_joints && j < RIG_ERR_LIST_JOINTS; j++)
		if (!rig_err_list_add(e, "validJointIds", d->joints[j].id))
			break;
}

/* Names the joint id of "unknown joint" weight violations from the request
 * (the bulk array a when the weights came from it, else the tree). */
static void name_unknown_joints(struct rig_errs *errs, size_t from, json_t *weights,
				const struct rig_bulk_array *a, const struct rig_skin_def *d)
{
	for (size_t i = from; i < errs->count; i++) {
		struct rig_err *e = &errs->items[i];
		if (e->code != RIG_SKIN_WEIGHTS || e->joint_id[0] || e->vertex_index < 0 ||
		    e->influence_index < 0)
			continue;
		json_t *inf = json_array_get(json_array_get(weights, (size_t)e->vertex_index),
					     (size_t)e->influence_index);
		const char *id = a ? rig_op__skin_joint_id(a, d, (size_t)e->vertex_index,
							   (size_t)e->influence_index)
				   : json_string_value(json_object_get(inf, "jointId"));
		if (id)
			rig_strlcpy(e->joint_id, id, sizeof e->joint_id);
		size_t v = (size_t)e->vertex_index;
		if (v >= d->n_weight_lists)
			continue;
		size_t at = d->weight_offsets[v] + (size_t)e->influence_index;
		if (at < d->weight_offsets[v + 1] && d->influences[at].joint >= d->n_joints)
			rig_op__list_joint_ids(e, d);
	}
}

int rig_op__decode_uvs(const struct rig_jr *jr, json_t *obj, double **out, size_t n_verts)
{
	json_t *uvs = json_object_get(obj, "uvs");
	if (!uvs)
		return 0;
	if (!json_is_array(uvs) || json_array_size(uvs) != n_verts)
		return rig_jr_fail(jr, "uvs", "field 'uvs' must be one [u, v] per vertex (%zu)",
				   n_verts);
	double *p = malloc((2 * n_verts + 1) * sizeof *p);
	if (!p)
		return rig_jr_out_of_memory(jr, "uvs");
	for (size_t v = 0; v < n_verts; v++) {
		json_t *uv = json_array_get(uvs, v);
		json_t *u = json_array_get(uv, 0), *w = json_array_get(uv, 1);
		if (!json_is_array(uv) || json_array_size(uv) != 2 || !json_is_number(u) ||
		    !json_is_number(w) || !isfinite(json_number_value(u)) ||
		    !isfinite(json_number_value(w))) {
			char key[40];
			snprintf(key, sizeof key, "uvs/%zu", v);
			free(p);
			return rig_jr_fail(jr, key, "uv %zu must be [u, v], two finite numbers", v);
		}
		p[2 * v] = json_number_value(u);
		p[2 * v + 1] = json_number_value(w);
	}
	*out = p;
	return 0;
}

int rig_skin_json_decode(struct rig_skin_def *d, json_t *skin, const struct rig_jr *sjr,
			 bool with_joint_layers, const char *const *extra_fields,
			 uint32_t **out_map_pos, struct rig_bulk *bulk)
{
	const char *fields[14] = {"source", "triangles", "joints", "weights",
				  "method", "puppet",    "uvs"};
	size_t n_fields = 7;
	if (with_joint_layers)
		fields[n_fields++] = "jointLayers";
	for (const char *const *f = extra_fields; f && *f && n_fields < 13; f++)
		fields[n_fields++] = *f;
	fields[n_fields] = NULL;
	size_t before = sjr->errs->total;
	rig_jr_known(sjr, skin, fields);
	rig_op__decode_points(sjr, skin, "source", &d->source, &d->n_verts, bulk);
	rig_op__decode_triangles(sjr, skin, &d->triangles, &d->n_tris, bulk);
	decode_joints(sjr, skin, d);
	decode_method(sjr, skin, d);
	decode_puppet(sjr, skin, d);
	if (sjr->errs->total == before && rig_op__decode_uvs(sjr, skin, &d->uvs, d->n_verts) == 0)
		d->has_uvs = d->uvs != NULL;
	if (sjr->errs->total > before)
		return -1; /* shapes are wrong; the rules below would only echo them */
	json_t *weights = json_object_get(skin, "weights");
	struct rig_bulk_array *bulk_weights = bulk_for(sjr, bulk, weights, RIG_BULK_WEIGHTS);
	decode_weights(sjr, skin, d, bulk_weights);
	if (sjr->errs->total > before)
		return -1;
	/* The definition's own rules first: with broken joints (a repeated or bad
	 * id) the mapping would only report echoes of them. */
	size_t from = sjr->errs->count;
	if (rig_skin_check_def(d, sjr->errs) != 0) {
		name_unknown_joints(sjr->errs, from, weights, bulk_weights, d);
		scope(sjr->errs, from, sjr->op_index, sjr->base);
		return -1;
	}
	if (with_joint_layers && decode_joint_layers(sjr, skin, d, out_map_pos) != 0)
		return -1;
	return 0;
}

/* ---- the skin ops' target ---- */

struct rig_model_layer *rig_op__skin_target(struct rig_op_ctx *ctx, const struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return NULL;
	if (l->binding.type != &rig_binding_skin) {
		rig_op__fail_layer(ctx, op, RIG_MESH_BINDING_KIND, "layerId",
				   "layer '%s' has no skin binding", l->id);
		return NULL;
	}
	int rc = rig_shot_load_binding(ctx->conn, ctx->model, l);
	if (rc) {
		rig_op__fail_layer(ctx, op, (enum rig_code) - rc, "",
				   "cannot load the skin of layer '%s'", l->id);
		return NULL;
	}
	return l;
}

/* ---- layer.skin ---- */

/* What layer.skin decodes (op->u.kind_data). */
struct skin_op {
	bool clear;              /* skin: null */
	struct rig_skin_def def; /* owned; joints carry their layer ids */
	uint32_t *map_pos;       /* owned: joint → its index in jointLayers */
};

int rig_op__skin_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op", "layerId", "skin", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct skin_op *s = calloc(1, sizeof *s);
	if (!s)
		return rig_jr_out_of_memory(jr, "");
	out->u.kind_data = s;
	json_t *skin = json_object_get(op, "skin");
	if (!skin)
		return rig_jr_fail(jr, "skin",
				   "field 'skin' is required (null clears the binding)");
	if (json_is_null(skin)) {
		s->clear = true;
		return rc;
	}
	if (!json_is_object(skin))
		return rig_jr_fail(jr, "skin",
				   "field 'skin' must be a LayerSkinInput object or null");
	char base[64];
	snprintf(base, sizeof base, "%s/skin", jr->base);
	struct rig_jr sjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
	size_t from = jr->errs->count;
	rc |= rig_skin_json_decode(&s->def, skin, &sjr, true, NULL, &s->map_pos, bulk);
	/* SKIN_WEIGHTS names its layer wherever it is found. */
	for (size_t i = from; i < jr->errs->count && out->layer_id[0]; i++)
		if (jr->errs->items[i].code == RIG_SKIN_WEIGHTS && !jr->errs->items[i].layer_id[0])
			rig_strlcpy(jr->errs->items[i].layer_id, out->layer_id,
				    sizeof jr->errs->items[i].layer_id);
	return rc;
}

/* ---- layer.skin.bake: the skin into a mesh binding (ops_bake.c) ---- */

int rig_op__skin_bake_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	return rig_op__bake_apply(ctx, op, &rig_binding_skin);
}

int rig_op__skin_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return -1;
	struct skin_op *s = op->u.kind_data;
	struct rig_skin_def *d = &s->def;
	int rc = 0;
	for (size_t j = 0; j < d->n_joints; j++) {
		if (rig_shot_model_find(ctx->model, d->joints[j].layer_id))
			continue;
		char field[64];
		snprintf(field, sizeof field, "skin/jointLayers/%u/layerId",
			 s->map_pos ? s->map_pos[j] : 0);
		struct rig_err *e = rig_op__fail_layer(
			ctx, op, RIG_SKIN_JOINT_LAYERS, field,
			"joint '%s' is mapped to layer '%s', which does not exist", d->joints[j].id,
			d->joints[j].layer_id);
		rig_err_extra(e, "jointLayerId", d->joints[j].layer_id);
		rig_strlcpy(e->joint_id, d->joints[j].id, sizeof e->joint_id);
		e->joint_index = (long)j;
		rc = -1;
	}
	if (rc)
		return -1;
	return rig_op__binding_install(ctx, op, l, &rig_binding_skin, d, sizeof *d, s->clear,
				       "skin");
}

void rig_op__skin_release(struct rig_op *op)
{
	struct skin_op *s = op->u.kind_data;
	if (!s)
		return;
	rig_skin_def_release(&s->def);
	free(s->map_pos);
	free(s);
	op->u.kind_data = NULL;
}

/* ---- layer.skin.bind.capture ---- */

int rig_op__capture_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			   struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "frame", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_number(jr, op, "frame", true, &out->u.capture.frame, NULL);
	return rc;
}

int rig_op__capture_poses(struct rig_affine *out, struct rig_op_ctx *ctx, const struct rig_op *op,
			  struct rig_model_layer *l, double local_frame)
{
	size_t from = ctx->errs->count;
	struct rig_scene_view view;
	struct rig_skin *skin = NULL;
	struct rig_resolver *r = NULL;
	int rc = -1;
	if (rig_scene_view_init(&view, ctx->model) != 0) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	long mesh = view.index_of[l - ctx->model->layers];
	skin = rig_skin_new(l->binding.def, ctx->errs);
	if (!skin)
		goto out_scope;
	view.layers[mesh].binding = &rig_binding_skin;
	view.layers[mesh].binding_eval = skin;
	r = rig_resolver_new(&view.scene);
	if (!r) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		goto out;
	}
	if (rig_resolver_joint_poses(out, r, mesh, local_frame + l->time_offset, ctx->errs) != 0) {
		/* The resolver speaks shot frames; the caller sent the mesh's local one:
		 * frame is the local frame, shotFrame the one the detail names. */
		for (size_t k = from; k < ctx->errs->count; k++) {
			struct rig_err *e = &ctx->errs->items[k];
			if (!e->has_frame)
				continue;
			char shot_frame[32], detail[RIG_ERR_DETAIL_MAX];
			snprintf(shot_frame, sizeof shot_frame, "%.17g", e->frame);
			rig_err_extra(e, "shotFrame", shot_frame);
			e->frame = local_frame;
			snprintf(detail, sizeof detail, "%s; local frame %.17g of layer '%s'",
				 e->detail, e->frame, l->id);
			rig_strlcpy(e->detail, detail, sizeof e->detail);
		}
		goto out_scope;
	}
	rc = 0;
	goto out;
out_scope:
	rig_errs_scope(ctx->errs, from, op->index, op->pointer);
out:
	rig_resolver_free(r);
	rig_skin_free(skin);
	rig_scene_view_release(&view);
	return rc;
}

int rig_op__capture_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__skin_target(ctx, op);
	if (!l)
		return -1;
	struct rig_skin_def *d = l->binding.def;
	struct rig_affine *poses = calloc(d->n_joints ? d->n_joints : 1, sizeof *poses);
	if (!poses) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	/* frame is the mesh layer's signed local frame. */
	int rc = rig_op__capture_poses(poses, ctx, op, l, op->u.capture.frame);
	if (rc == 0) {
		for (size_t j = 0; j < d->n_joints; j++)
			d->joints[j].bind = poses[j];
		rig_op__binding_edited(ctx, op, l);
	}
	free(poses);
	return rc;
}

/* ---- a bulk weights array's joints ---- */

int rig_op__skin_map_joints(struct rig_bulk_array *a, const struct rig_skin_def *def)
{
	uint32_t *map = malloc((a->n_ids ? a->n_ids : 1) * sizeof *map);
	if (!map)
		return -1;
	bool unknown = false;
	for (size_t k = 0; k < a->n_ids; k++) {
		map[k] = rig_skin_def_joint_index(def, a->ids[k]);
		unknown |= map[k] == RIG_JOINT_UNKNOWN;
	}
	size_t total = a->offsets ? a->offsets[a->count] : 0;
	if (unknown) {
		a->id_of = malloc((total ? total : 1) * sizeof *a->id_of);
		if (!a->id_of) {
			free(map);
			return -1;
		}
	}
	for (size_t i = 0; i < total; i++) {
		uint32_t id = a->influences[i].joint;
		if (a->id_of)
			a->id_of[i] = id;
		a->influences[i].joint = map[id];
	}
	free(map);
	return 0;
}

const char *rig_op__skin_joint_id(const struct rig_bulk_array *a, const struct rig_skin_def *def,
				  size_t v, size_t k)
{
	const uint32_t *offsets = def->weight_offsets;
	if (!offsets || v >= def->n_weight_lists || offsets[v] + k >= offsets[v + 1])
		return NULL;
	size_t at = offsets[v] + k;
	uint32_t j = def->influences[at].joint;
	if (j < def->n_joints)
		return def->joints[j].id;
	return a->id_of ? a->ids[a->id_of[at]] : NULL;
}
