/* The motion ops: layer.pose, layer.key.put, layer.key.delete. They change a
 * layer's statics or keys only, never the tree or a binding, so their rows are
 * not structural. The key rules themselves are the core's (rig_key_check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"

/* ---- decoding helpers ---- */

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

int rig_op__decode_interp(const struct rig_jr *jr, json_t *obj, struct rig_key *key, bool *given)
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

int rig_op__check_key(const struct rig_jr *jr, const struct rig_key *key)
{
	size_t before = jr->errs->count;
	if (rig_key_check(key, jr->errs) == 0)
		return 0;
	rig_errs_scope(jr->errs, before, jr->op_index, jr->base);
	for (size_t i = before; i < jr->errs->count; i++)
		jr->errs->items[i].code = RIG_OP_INVALID;
	return -1;
}

int rig_op__decode_key_array(const struct rig_jr *jr, json_t *obj, const char *field,
			     struct rig_key **out, size_t *out_n)
{
	json_t *keys = json_object_get(obj, field);
	if (!json_is_array(keys) || json_array_size(keys) == 0)
		return rig_jr_fail(jr, field, "field '%s' must be a non-empty array of keys",
				   field);
	size_t n = json_array_size(keys);
	*out = calloc(n, sizeof **out);
	if (!*out)
		return rig_jr_out_of_memory(jr, field);
	*out_n = n;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *k = json_array_get(keys, i);
		char base[96];
		snprintf(base, sizeof base, "%s/%.24s/%zu", jr->base, field, i);
		struct rig_jr kjr = {jr->errs, jr->code, base, jr->op_index};
		if (!json_is_object(k)) {
			rc = rig_jr_fail(&kjr, "",
					 "a key must be an object {frame, value, interp?, ease?}");
			continue;
		}
		static const char *const allowed[] = {"frame", "value", "interp", "ease", NULL};
		struct rig_key *key = &(*out)[i];
		int krc = rig_jr_known(&kjr, k, allowed);
		krc |= rig_jr_number(&kjr, k, "frame", true, &key->frame, NULL);
		krc |= rig_jr_number(&kjr, k, "value", true, &key->value, NULL);
		krc |= rig_op__decode_interp(&kjr, k, key, NULL);
		if (krc == 0)
			krc = rig_op__check_key(&kjr, key);
		rc |= krc;
	}
	return rc;
}

static int decode_keys(const struct rig_jr *jr, json_t *op, struct rig_op *out)
{
	return rig_op__decode_key_array(jr, op, "keys", &out->u.key_put.keys,
					&out->u.key_put.n_keys);
}

int rig_op__decode_frames(const struct rig_jr *jr, json_t *op, double **out, size_t *out_n)
{
	json_t *frames = json_object_get(op, "frames");
	if (!json_is_array(frames) || json_array_size(frames) == 0)
		return rig_jr_fail(jr, "frames",
				   "field 'frames' must be a non-empty array of numbers");
	size_t n = json_array_size(frames);
	*out = calloc(n, sizeof **out);
	if (!*out)
		return rig_jr_out_of_memory(jr, "frames");
	*out_n = n;
	for (size_t i = 0; i < n; i++) {
		json_t *f = json_array_get(frames, i);
		if (!json_is_number(f)) {
			char key[32];
			snprintf(key, sizeof key, "frames/%zu", i);
			return rig_jr_fail(jr, key, "frames must be finite numbers");
		}
		(*out)[i] = json_number_value(f);
	}
	return 0;
}

/* ---- layer.pose ---- */

int rig_op__pose_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op",         "layerId", "frame", "transform",
					      "timeOffset", "interp",  "ease",  NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_number(jr, op, "frame", false, &out->u.pose.frame, &out->u.pose.has_frame);
	rig_op__decode_transform(jr, op, &out->u.pose.transform);
	if (!json_object_get(op, "transform"))
		rc = rig_jr_fail(jr, "transform", "field 'transform' is required");
	if (rig_op__decode_interp(jr, op, &out->u.pose.key_style, &out->u.pose.has_interp) == 0)
		rc |= rig_op__check_key(jr, &out->u.pose.key_style);
	else
		rc = -1;
	if (out->u.pose.has_interp && !out->u.pose.has_frame)
		rc = rig_jr_fail(jr, "interp", "interp needs a frame: it styles the keys written");
	if (json_object_get(op, "timeOffset"))
		rc = rig_jr_fail(jr, "timeOffset", "timeOffset is set by layer.create only");
	return rc;
}

static int pose(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l)
{
	const struct rig_transform_in *t = &op->u.pose.transform;
	if (!op->u.pose.has_frame) {
		rig_op__set_statics(l, t);
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
				rig_op__fail(ctx, op, RIG_MEMORY_BUSY, "",
					     "the server ran out of memory");
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

int rig_op__pose_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__target(ctx, op, op->layer_id, "layerId");
	if (!l || pose(ctx, op, l))
		return -1;
	rig_op__touched(ctx, l);
	return 0;
}

/* ---- layer.key.put ---- */

int rig_op__key_put_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			   struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "channel", "keys", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	decode_channel(jr, op, &out->u.key_put.channel);
	rc |= decode_keys(jr, op, out);
	return rc;
}

int rig_op__key_put_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__target(ctx, op, op->layer_id, "layerId");
	if (!l)
		return -1;
	/* Merge into a copy so a failure leaves the channel as it was. */
	struct rig_key_list *list = &l->keys[op->u.key_put.channel];
	struct rig_key_list copy = {NULL, 0, 0};
	for (size_t i = 0; i < list->count; i++)
		if (rig_key_list_put(&copy, &list->items[i]))
			goto out_oom;
	for (size_t i = 0; i < op->u.key_put.n_keys; i++)
		if (rig_key_list_put(&copy, &op->u.key_put.keys[i]))
			goto out_oom;
	free(list->items);
	*list = copy;
	rig_op__touched(ctx, l);
	return 0;
out_oom:
	free(copy.items);
	rig_op__fail(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
	return -1;
}

void rig_op__key_put_release(struct rig_op *op)
{
	free(op->u.key_put.keys);
}

/* ---- layer.key.delete ---- */

int rig_op__key_delete_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			      struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "channel", "frames", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	decode_channel(jr, op, &out->u.key_delete.channel);
	rc |= rig_op__decode_frames(jr, op, &out->u.key_delete.frames, &out->u.key_delete.n_frames);
	return rc;
}

int rig_op__key_delete_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__target(ctx, op, op->layer_id, "layerId");
	if (!l)
		return -1;
	/* Every frame must hold a key before any is deleted: all or nothing. */
	struct rig_key_list *list = &l->keys[op->u.key_delete.channel];
	const char *channel = rig_channel_name(op->u.key_delete.channel);
	int rc = 0;
	for (size_t i = 0; i < op->u.key_delete.n_frames; i++) {
		double f = op->u.key_delete.frames[i];
		bool found = false;
		for (size_t k = 0; k < list->count && !found; k++)
			found = list->items[k].frame == f;
		if (found)
			continue;
		char field[32], detail[200];
		snprintf(field, sizeof field, "frames/%zu", i);
		snprintf(detail, sizeof detail, "layer '%s' has no key at frame %.17g on '%s'",
			 l->id, f, channel);
		struct rig_err *e = rig_op__fail(ctx, op, RIG_OP_INVALID, field, detail);
		e->has_frame = true;
		e->frame = f;
		rig_strlcpy(e->layer_id, l->id, sizeof e->layer_id);
		rig_err_extra(e, "channel", channel);
		rc = -1;
	}
	if (rc)
		return -1;
	for (size_t i = 0; i < op->u.key_delete.n_frames; i++)
		rig_key_list_delete(list, op->u.key_delete.frames[i]);
	rig_op__touched(ctx, l);
	return 0;
}

void rig_op__key_delete_release(struct rig_op *op)
{
	free(op->u.key_delete.frames);
}
