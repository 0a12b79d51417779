/* Layer ops (create, delete, parent, rename, pose, key.put, key.delete): their
 * decoders and appliers, and the op table that dispatches every op kind.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "api/edit/ops.h"
#include "api/util/stamp.h"

struct op_name {
	const char *name;
	enum rig_op_kind kind;
};

static const struct op_name op_names[] = {
	{"layer.create", RIG_OP_LAYER_CREATE},
	{"layer.delete", RIG_OP_LAYER_DELETE},
	{"layer.parent", RIG_OP_LAYER_PARENT},
	{"layer.rename", RIG_OP_LAYER_RENAME},
	{"layer.pose", RIG_OP_LAYER_POSE},
	{"layer.key.put", RIG_OP_LAYER_KEY_PUT},
	{"layer.key.delete", RIG_OP_LAYER_KEY_DELETE},
	{"layer.skin", RIG_OP_LAYER_SKIN},
	{"layer.skin.bind.capture", RIG_OP_LAYER_SKIN_BIND_CAPTURE},
	{"layer.skin.weights.put", RIG_OP_LAYER_SKIN_WEIGHTS_PUT},
	{"layer.mesh.key.put", RIG_OP_LAYER_MESH_KEY_PUT},
	{"layer.deformation.rest.apply", RIG_OP_LAYER_DEFORMATION_REST_APPLY},
};

/* ---- decoding helpers ---- */

/* Reads a [x, y] pair of finite numbers into two channels. */
static void decode_pair(const struct rig_jr *jr, json_t *obj, const char *key,
			struct rig_transform_in *t, enum rig_channel cx, enum rig_channel cy)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		return;
	if (!json_is_array(v) || json_array_size(v) != 2 ||
	    !json_is_number(json_array_get(v, 0)) || !json_is_number(json_array_get(v, 1))) {
		rig_jr_fail(jr, key, "field '%s' must be [x, y] with two finite numbers", key);
		return;
	}
	t->ch[cx] = json_number_value(json_array_get(v, 0));
	t->ch[cy] = json_number_value(json_array_get(v, 1));
	t->set[cx] = t->set[cy] = true;
}

static void decode_transform(const struct rig_jr *op_jr, json_t *op, struct rig_transform_in *out)
{
	memset(out, 0, sizeof *out);
	json_t *t = json_object_get(op, "transform");
	if (!t)
		return;
	char base[64];
	snprintf(base, sizeof base, "%s/transform", op_jr->base);
	struct rig_jr jr = {op_jr->errs, op_jr->code, base, op_jr->op_index};
	if (!json_is_object(t)) {
		rig_jr_fail(op_jr, "transform", "field 'transform' must be an object");
		return;
	}
	static const char *const allowed[] = {"position", "rotation", "scale", "pivot", NULL};
	rig_jr_known(&jr, t, allowed);
	decode_pair(&jr, t, "position", out, RIG_CH_POSITION_X, RIG_CH_POSITION_Y);
	decode_pair(&jr, t, "scale", out, RIG_CH_SCALE_X, RIG_CH_SCALE_Y);
	decode_pair(&jr, t, "pivot", out, RIG_CH_PIVOT_X, RIG_CH_PIVOT_Y);
	rig_jr_number(&jr, t, "rotation", false, &out->ch[RIG_CH_ROTATION],
		      &out->set[RIG_CH_ROTATION]);
}

static void decode_channel(const struct rig_jr *jr, json_t *op, enum rig_channel *out)
{
	const char *name = NULL;
	if (rig_jr_string(jr, op, "channel", true, 32, &name) == 0 &&
	    rig_channel_parse(out, name) != 0)
		rig_jr_fail(jr, "channel",
			    "channel '%.32s' is not one of position.x, position.y, rotation,"
			    " scale.x, scale.y, pivot.x, pivot.y",
			    name);
}

/* Reads interp and ease of a key or pose into *key; returns -1 on a violation. */
static int decode_interp(const struct rig_jr *jr, json_t *obj, struct rig_key *key, bool *given)
{
	const char *interp = NULL;
	key->interp = RIG_INTERP_LINEAR;
	if (given)
		*given = json_object_get(obj, "interp") != NULL;
	if (rig_jr_string(jr, obj, "interp", false, 16, &interp))
		return -1;
	if (interp && rig_interp_parse(&key->interp, interp) != 0)
		return rig_jr_fail(jr, "interp", "interp '%.16s' is not linear, hold or bezier",
				   interp);
	json_t *ease = json_object_get(obj, "ease");
	if (key->interp != RIG_INTERP_BEZIER) {
		if (ease)
			return rig_jr_fail(jr, "ease", "ease is only allowed with interp 'bezier'");
		return 0;
	}
	if (!ease)
		return rig_jr_fail(jr, "ease", "interp 'bezier' needs ease [x1, y1, x2, y2]");
	if (!json_is_array(ease) || json_array_size(ease) != 4)
		return rig_jr_fail(jr, "ease", "ease must be [x1, y1, x2, y2]");
	for (size_t i = 0; i < 4; i++) {
		json_t *e = json_array_get(ease, i);
		if (!json_is_number(e))
			return rig_jr_fail(jr, "ease", "ease must hold four finite numbers");
		key->ease[i] = json_number_value(e);
	}
	return 0;
}

/* Checks a decoded key with the core's key rule, reporting at base. */
static int check_key(const struct rig_jr *jr, const struct rig_key *key)
{
	size_t before = jr->errs->count;
	if (rig_key_check(key, jr->errs) == 0)
		return 0;
	rig_errs_scope(jr->errs, before, jr->op_index, jr->base);
	for (size_t i = before; i < jr->errs->count; i++)
		jr->errs->items[i].code = RIG_OP_INVALID;
	return -1;
}

static int decode_keys(const struct rig_jr *jr, json_t *op, struct rig_op *out)
{
	json_t *keys = json_object_get(op, "keys");
	if (!json_is_array(keys) || json_array_size(keys) == 0)
		return rig_jr_fail(jr, "keys", "field 'keys' must be a non-empty array of keys");
	size_t n = json_array_size(keys);
	out->u.key_put.keys = calloc(n, sizeof *out->u.key_put.keys);
	if (!out->u.key_put.keys)
		return rig_jr_out_of_memory(jr, "keys");
	out->u.key_put.n_keys = n;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *k = json_array_get(keys, i);
		char base[64];
		snprintf(base, sizeof base, "%s/keys/%zu", jr->base, i);
		struct rig_jr kjr = {jr->errs, jr->code, base, jr->op_index};
		if (!json_is_object(k)) {
			rc = rig_jr_fail(&kjr, "", "a key must be an object {frame, value, interp?, ease?}");
			continue;
		}
		static const char *const allowed[] = {"frame", "value", "interp", "ease", NULL};
		struct rig_key *key = &out->u.key_put.keys[i];
		int krc = rig_jr_known(&kjr, k, allowed);
		krc |= rig_jr_number(&kjr, k, "frame", true, &key->frame, NULL);
		krc |= rig_jr_number(&kjr, k, "value", true, &key->value, NULL);
		krc |= decode_interp(&kjr, k, key, NULL);
		if (krc == 0)
			krc = check_key(&kjr, key);
		rc |= krc;
	}
	return rc;
}

static int decode_frames(const struct rig_jr *jr, json_t *op, struct rig_op *out)
{
	json_t *frames = json_object_get(op, "frames");
	if (!json_is_array(frames) || json_array_size(frames) == 0)
		return rig_jr_fail(jr, "frames", "field 'frames' must be a non-empty array of numbers");
	size_t n = json_array_size(frames);
	out->u.key_delete.frames = calloc(n, sizeof *out->u.key_delete.frames);
	if (!out->u.key_delete.frames)
		return rig_jr_out_of_memory(jr, "frames");
	out->u.key_delete.n_frames = n;
	for (size_t i = 0; i < n; i++) {
		json_t *f = json_array_get(frames, i);
		if (!json_is_number(f)) {
			char key[32];
			snprintf(key, sizeof key, "frames/%zu", i);
			return rig_jr_fail(jr, key, "frames must be finite numbers");
		}
		out->u.key_delete.frames[i] = json_number_value(f);
	}
	return 0;
}

/* ---- decoding ---- */

static int decode_layer_op(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			   struct rig_bulk *bulk)
{
	int rc = 0;
	switch (out->kind) {
	case RIG_OP_LAYER_CREATE: {
		static const char *const allowed[] = {"op", "layerId", "name", "kind", "parentId",
						      "transform", "timeOffset", NULL};
		const char *name = NULL, *kind = NULL;
		bool root = true;
		rc |= rig_jr_known(jr, op, allowed);
		rc |= rig_jr_id(jr, op, "layerId", false, false, out->layer_id, NULL);
		out->has_layer_id = out->layer_id[0] != '\0';
		rc |= rig_jr_string(jr, op, "name", true, RIG_MAX_NAME_BYTES, &name);
		if (name)
			rig_strlcpy(out->u.create.name, name, sizeof out->u.create.name);
		rc |= rig_jr_string(jr, op, "kind", true, 16, &kind);
		if (kind && !strcmp(kind, "mesh"))
			out->u.create.kind = RIG_LAYER_MESH;
		else if (kind && !strcmp(kind, "group"))
			out->u.create.kind = RIG_LAYER_GROUP;
		else if (kind)
			rc = rig_jr_fail(jr, "kind", "kind '%.16s' is not 'group' or 'mesh'", kind);
		rc |= rig_jr_id(jr, op, "parentId", false, true, out->u.create.parent_id, &root);
		decode_transform(jr, op, &out->u.create.transform);
		rc |= rig_jr_number(jr, op, "timeOffset", false, &out->u.create.time_offset, NULL);
		break;
	}
	case RIG_OP_LAYER_DELETE: {
		static const char *const allowed[] = {"op", "layerId", NULL};
		rc |= rig_jr_known(jr, op, allowed);
		rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
		break;
	}
	case RIG_OP_LAYER_PARENT: {
		static const char *const allowed[] = {"op", "layerId", "parentId", NULL};
		bool root = false;
		rc |= rig_jr_known(jr, op, allowed);
		rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
		rc |= rig_jr_id(jr, op, "parentId", true, true, out->u.parent.parent_id, &root);
		break;
	}
	case RIG_OP_LAYER_RENAME: {
		static const char *const allowed[] = {"op", "layerId", "name", NULL};
		const char *name = NULL;
		rc |= rig_jr_known(jr, op, allowed);
		rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
		rc |= rig_jr_string(jr, op, "name", true, RIG_MAX_NAME_BYTES, &name);
		if (name)
			rig_strlcpy(out->u.rename.name, name, sizeof out->u.rename.name);
		break;
	}
	case RIG_OP_LAYER_POSE: {
		static const char *const allowed[] = {"op",        "layerId", "frame", "transform",
						      "timeOffset", "interp",  "ease",  NULL};
		rc |= rig_jr_known(jr, op, allowed);
		rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
		rc |= rig_jr_number(jr, op, "frame", false, &out->u.pose.frame,
				    &out->u.pose.has_frame);
		decode_transform(jr, op, &out->u.pose.transform);
		if (!json_object_get(op, "transform"))
			rc = rig_jr_fail(jr, "transform", "field 'transform' is required");
		if (decode_interp(jr, op, &out->u.pose.key_style, &out->u.pose.has_interp) == 0)
			rc |= check_key(jr, &out->u.pose.key_style);
		else
			rc = -1;
		if (out->u.pose.has_interp && !out->u.pose.has_frame)
			rc = rig_jr_fail(jr, "interp", "interp needs a frame: it styles the keys written");
		if (json_object_get(op, "timeOffset"))
			rc = rig_jr_fail(jr, "timeOffset", "timeOffset is set by layer.create only");
		break;
	}
	case RIG_OP_LAYER_KEY_PUT: {
		static const char *const allowed[] = {"op", "layerId", "channel", "keys", NULL};
		rc |= rig_jr_known(jr, op, allowed);
		rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
		decode_channel(jr, op, &out->u.key_put.channel);
		rc |= decode_keys(jr, op, out);
		break;
	}
	case RIG_OP_LAYER_KEY_DELETE: {
		static const char *const allowed[] = {"op", "layerId", "channel", "frames", NULL};
		rc |= rig_jr_known(jr, op, allowed);
		rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
		decode_channel(jr, op, &out->u.key_delete.channel);
		rc |= decode_frames(jr, op, out);
		break;
	}
	default:
		return rig_op__skin_decode(out, op, jr, bulk);
	}
	return rc;
}

int rig_op_decode(struct rig_op *out, json_t *value, long index, struct rig_bulk *bulk,
		  struct rig_errs *errs)
{
	memset(out, 0, sizeof *out);
	out->index = index;
	snprintf(out->pointer, sizeof out->pointer, "/ops/%ld", index);
	struct rig_jr jr = {errs, RIG_OP_INVALID, out->pointer, index};
	if (!json_is_object(value))
		return rig_jr_fail(&jr, "", "op %ld must be an object with an 'op' field", index);
	const char *name = NULL;
	if (rig_jr_string(&jr, value, "op", true, 64, &name))
		return -1;
	for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++) {
		if (strcmp(op_names[i].name, name) == 0) {
			out->kind = op_names[i].kind;
			out->name = op_names[i].name;
			size_t before = errs->total;
			decode_layer_op(out, value, &jr, bulk);
			return errs->total > before ? -1 : 0;
		}
	}
	struct rig_err *e = rig_errs_add(errs, RIG_OP_UNKNOWN, "unknown op '%.64s'", name);
	rig_err_extra(e, "op", name);
	e->op_index = index;
	snprintf(e->pointer, sizeof e->pointer, "%s/op", out->pointer);
	return -1;
}

void rig_op_release(struct rig_op *op)
{
	if (op->kind == RIG_OP_LAYER_KEY_PUT)
		free(op->u.key_put.keys);
	else if (op->kind == RIG_OP_LAYER_KEY_DELETE)
		free(op->u.key_delete.frames);
	else if (op->kind == RIG_OP_LAYER_SKIN) {
		rig_skin_def_release(&op->u.skin.def);
		free(op->u.skin.map_pos);
	}
	memset(op, 0, sizeof *op);
}

/* ---- applying ---- */

void rig_op__changed(struct rig_op_ctx *ctx, const char *layer_id)
{
	/* last_op doubles as the set of ids already listed (hashed by jansson). */
	bool listed = json_object_get(ctx->last_op, layer_id) != NULL;
	json_object_set_new(ctx->last_op, layer_id, json_integer(ctx->current_op));
	if (!listed)
		json_array_append_new(ctx->changed, json_string(layer_id));
}

static struct rig_err *op_error(struct rig_op_ctx *ctx, const struct rig_op *op,
				enum rig_code code, const char *field, const char *detail)
{
	struct rig_err *e = rig_errs_add(ctx->errs, code, "%s", detail);
	e->op_index = op->index;
	snprintf(e->pointer, sizeof e->pointer, "%s%s%s", op->pointer, field[0] ? "/" : "", field);
	return e;
}

/* The live layer named by the op's layerId, or NULL after recording LAYER_NOT_FOUND. */
static struct rig_model_layer *target(struct rig_op_ctx *ctx, const struct rig_op *op,
				      const char *id, const char *field)
{
	struct rig_model_layer *l = rig_shot_model_find(ctx->model, id);
	if (!l) {
		char detail[160];
		snprintf(detail, sizeof detail, "layer '%s' does not exist in the shot", id);
		struct rig_err *e = op_error(ctx, op, RIG_LAYER_NOT_FOUND, field, detail);
		rig_strlcpy(e->layer_id, id, sizeof e->layer_id);
	}
	return l;
}

static void set_statics(struct rig_model_layer *l, const struct rig_transform_in *t)
{
	for (int c = 0; c < RIG_CH_COUNT; c++)
		if (t->set[c])
			l->statics.ch[c] = t->ch[c];
}

/* True when candidate is layer itself or lies below it. */
static bool is_self_or_descendant(struct rig_shot_model *m, const char *layer, const char *candidate)
{
	const char *cur = candidate;
	for (size_t steps = 0; cur[0] && steps <= m->n_layers; steps++) {
		if (strcmp(cur, layer) == 0)
			return true;
		const struct rig_model_layer *l = rig_shot_model_find(m, cur);
		cur = l ? l->parent_id : "";
	}
	return false;
}

static void delete_subtree(struct rig_op_ctx *ctx, struct rig_model_layer *root)
{
	struct rig_shot_model *m = ctx->model;
	/* Mark descendants first by repeated passes over the flat list: a layer is
	 * deleted when its parent is the root or already deleted in this op. */
	char root_id[RIG_ID_MAX + 1];
	memcpy(root_id, root->id, sizeof root_id);
	for (size_t i = 0; i < m->n_layers; i++) {
		struct rig_model_layer *l = &m->layers[i];
		if (!l->deleted && is_self_or_descendant(m, root_id, l->id)) {
			rig_op__changed(ctx, l->id);
			l->pending_delete = true;
		}
	}
	for (size_t i = 0; i < m->n_layers; i++) {
		if (m->layers[i].pending_delete) {
			m->layers[i].pending_delete = false;
			m->layers[i].deleted = true;
		}
	}
}

static int apply_pose(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l)
{
	const struct rig_transform_in *t = &op->u.pose.transform;
	if (!op->u.pose.has_frame) {
		set_statics(l, t);
		return 0;
	}
	/* Keys on each given channel; a new key takes the op's interp (default
	 * linear), an existing one keeps its style unless the op gives one. Reserve
	 * first so a failure leaves every channel unchanged. */
	for (int c = 0; c < RIG_CH_COUNT; c++) {
		if (!t->set[c])
			continue;
		struct rig_key_list *list = &l->keys[c];
		if (list->count == list->cap) {
			size_t cap = list->cap ? 2 * list->cap : 4;
			struct rig_key *grown = realloc(list->items, cap * sizeof *grown);
			if (!grown) {
				op_error(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
				return -1;
			}
			list->items = grown;
			list->cap = cap;
		}
	}
	for (int c = 0; c < RIG_CH_COUNT; c++) {
		if (!t->set[c])
			continue;
		struct rig_key key = op->u.pose.key_style;
		key.frame = op->u.pose.frame;
		key.value = t->ch[c];
		struct rig_key_list *list = &l->keys[c];
		for (size_t i = 0; i < list->count && !op->u.pose.has_interp; i++) {
			if (list->items[i].frame == key.frame) {
				key.interp = list->items[i].interp;
				memcpy(key.ease, list->items[i].ease, sizeof key.ease);
			}
		}
		rig_key_list_put(list, &key);
	}
	return 0;
}

static int apply_layer_op(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_shot_model *m = ctx->model;
	struct rig_model_layer *l = NULL;
	char detail[200];
	switch (op->kind) {
	case RIG_OP_LAYER_CREATE: {
		if (op->has_layer_id && rig_shot_model_find(m, op->layer_id)) {
			snprintf(detail, sizeof detail, "layer id '%s' is already in use",
				 op->layer_id);
			struct rig_err *e = op_error(ctx, op, RIG_LAYER_EXISTS, "layerId", detail);
			rig_strlcpy(e->layer_id, op->layer_id, sizeof e->layer_id);
			return -1;
		}
		const char *parent = op->u.create.parent_id;
		if (parent[0] && !target(ctx, op, parent, "parentId"))
			return -1;
		if (!op->has_layer_id) {
			do
				rig_api__new_id(op->layer_id, "L-");
			while (rig_shot_model_find(m, op->layer_id));
		}
		l = rig_shot_model_add(m, op->layer_id, op->u.create.name, op->u.create.kind, parent);
		if (!l) {
			op_error(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
			return -1;
		}
		set_statics(l, &op->u.create.transform);
		l->time_offset = op->u.create.time_offset;
		rig_op__changed(ctx, l->id);
		return 0;
	}
	case RIG_OP_LAYER_DELETE:
		if (!(l = target(ctx, op, op->layer_id, "layerId")))
			return -1;
		delete_subtree(ctx, l);
		return 0;
	case RIG_OP_LAYER_PARENT: {
		if (!(l = target(ctx, op, op->layer_id, "layerId")))
			return -1;
		const char *parent = op->u.parent.parent_id;
		if (parent[0] && !target(ctx, op, parent, "parentId"))
			return -1;
		if (parent[0] && is_self_or_descendant(m, l->id, parent)) {
			snprintf(detail, sizeof detail,
				 "layer '%s' cannot become a child of '%s': '%s' is inside it", l->id,
				 parent, parent);
			struct rig_err *e = op_error(ctx, op, RIG_LAYER_CYCLE, "parentId", detail);
			rig_strlcpy(e->layer_id, l->id, sizeof e->layer_id);
			rig_err_extra(e, "parentId", parent);
			return -1;
		}
		rig_strlcpy(l->parent_id, parent, sizeof l->parent_id);
		break;
	}
	case RIG_OP_LAYER_RENAME: {
		if (!(l = target(ctx, op, op->layer_id, "layerId")))
			return -1;
		char *name = strdup(op->u.rename.name);
		if (!name) {
			op_error(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
			return -1;
		}
		free(l->name);
		l->name = name;
		break;
	}
	case RIG_OP_LAYER_POSE:
		if (!(l = target(ctx, op, op->layer_id, "layerId")) || apply_pose(ctx, op, l))
			return -1;
		break;
	case RIG_OP_LAYER_KEY_PUT: {
		if (!(l = target(ctx, op, op->layer_id, "layerId")))
			return -1;
		struct rig_key_list *list = &l->keys[op->u.key_put.channel];
		struct rig_key_list copy = {NULL, 0, 0};
		for (size_t i = 0; i < list->count; i++)
			if (rig_key_list_put(&copy, &list->items[i]))
				goto oom;
		for (size_t i = 0; i < op->u.key_put.n_keys; i++)
			if (rig_key_list_put(&copy, &op->u.key_put.keys[i]))
				goto oom;
		free(list->items);
		*list = copy;
		break;
	oom:
		free(copy.items);
		op_error(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	case RIG_OP_LAYER_KEY_DELETE: {
		if (!(l = target(ctx, op, op->layer_id, "layerId")))
			return -1;
		struct rig_key_list *list = &l->keys[op->u.key_delete.channel];
		int rc = 0;
		for (size_t i = 0; i < op->u.key_delete.n_frames; i++) {
			double f = op->u.key_delete.frames[i];
			bool found = false;
			for (size_t k = 0; k < list->count && !found; k++)
				found = list->items[k].frame == f;
			if (!found) {
				char field[32];
				snprintf(field, sizeof field, "frames/%zu", i);
				snprintf(detail, sizeof detail, "layer '%s' has no key at frame %.17g on '%s'",
					 l->id, f, rig_channel_name(op->u.key_delete.channel));
				struct rig_err *e = op_error(ctx, op, RIG_OP_INVALID, field, detail);
				e->has_frame = true;
				e->frame = f;
				rig_strlcpy(e->layer_id, l->id, sizeof e->layer_id);
				rig_err_extra(e, "channel", rig_channel_name(op->u.key_delete.channel));
				rc = -1;
			}
		}
		if (rc)
			return -1;
		for (size_t i = 0; i < op->u.key_delete.n_frames; i++)
			rig_key_list_delete(list, op->u.key_delete.frames[i]);
		break;
	}
	default:
		return rig_op__skin_apply(ctx, op);
	}
	l->dirty = true;
	rig_op__changed(ctx, l->id);
	return 0;
}

/* LAYER_LOCKED when the op would change a layer under someone else's lock: the
 * layer it names, and for layer.delete every layer it removes (deleting an
 * ancestor changes the locked layer). Creating a layer changes none, and
 * editing a joint changes only the joint, so upstream motion stays free. */
static int check_locks(struct rig_op_ctx *ctx, const struct rig_op *op)
{
	if (ctx->n_locks == 0 || op->kind == RIG_OP_LAYER_CREATE)
		return 0;
	int rc = 0;
	for (size_t k = 0; k < ctx->n_locks; k++) {
		const struct rig_foreign_lock *lk = &ctx->locks[k];
		bool hit = strcmp(lk->layer_id, op->layer_id) == 0;
		if (!hit && op->kind == RIG_OP_LAYER_DELETE && rig_shot_model_find(ctx->model, lk->layer_id))
			hit = is_self_or_descendant(ctx->model, op->layer_id, lk->layer_id);
		if (!hit)
			continue;
		char detail[200];
		snprintf(detail, sizeof detail, "layer '%s' is locked by '%.60s' (lock '%s')",
			 lk->layer_id, lk->owner, lk->lock_id);
		struct rig_err *e = op_error(ctx, op, RIG_LAYER_LOCKED, "layerId", detail);
		rig_strlcpy(e->layer_id, lk->layer_id, sizeof e->layer_id);
		rig_strlcpy(e->lock_id, lk->lock_id, sizeof e->lock_id);
		rig_strlcpy(e->owner, lk->owner, sizeof e->owner);
		e->expires_ms = lk->expires_ms;
		rc = -1;
	}
	return rc;
}

int rig_op_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	ctx->current_op = op->index;
	if (check_locks(ctx, op))
		return -1;
	return apply_layer_op(ctx, op);
}
