/* Helpers every op family uses (declared in ops_internal.h): recording
 * violations and changed layers, finding an op's target layer, the tree walk,
 * and reading a transform. No op lives here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"

int rig_op_ctx_init(struct rig_op_ctx *ctx, struct rig_shot_model *model, struct rig_tx *conn,
		    struct rig_errs *errs)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->model = model;
	ctx->conn = conn;
	ctx->errs = errs;
	ctx->current_op = -1;
	ctx->changed = json_array();
	ctx->last_op = json_object();
	ctx->binding_ops = json_object();
	ctx->constraint_ops = json_object();
	ctx->receipt_notes = json_object();
	return ctx->changed && ctx->last_op && ctx->binding_ops && ctx->constraint_ops &&
			       ctx->receipt_notes
		       ? 0
		       : -1;
}

void rig_op_ctx_release(struct rig_op_ctx *ctx)
{
	json_decref(ctx->changed);
	json_decref(ctx->last_op);
	json_decref(ctx->binding_ops);
	json_decref(ctx->constraint_ops);
	json_decref(ctx->receipt_notes);
	memset(ctx, 0, sizeof *ctx);
}

void rig_op__receipt_note(struct rig_op_ctx *ctx, const struct rig_op *op, const char *key,
			  json_t *value)
{
	if (!value)
		return;
	char index[24];
	snprintf(index, sizeof index, "%ld", op->index);
	json_t *note = json_object_get(ctx->receipt_notes, index);
	if (!note) {
		note = json_object();
		json_object_set_new(ctx->receipt_notes, index, note);
	}
	json_object_set_new(note, key, value);
}

int rig_op__run_expanded(struct rig_op_ctx *ctx, const struct rig_op *op, json_t *value,
			 json_t *listed)
{
	struct rig_op sub;
	int rc = value ? rig_op_decode(&sub, value, op->index, NULL, ctx->errs) : -1;
	if (!value)
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
	if (rc == 0) {
		rc = rig_op_apply(ctx, &sub);
		json_t *entry = json_pack("{s:s}", "op", sub.name);
		if (entry && sub.layer_id[0])
			json_object_set_new(entry, "layerId", json_string(sub.layer_id));
		json_array_append_new(listed, entry);
	}
	ctx->current_op = op->index;
	rig_op_release(&sub);
	json_decref(value);
	return rc;
}

void rig_op__binding_changed(struct rig_op_ctx *ctx, const char *layer_id, long op_index,
			     const char *def_member)
{
	json_t *by = json_pack("{s:I}", "op", (json_int_t)op_index);
	if (def_member)
		json_object_set_new(by, "member", json_string(def_member));
	json_object_set_new(ctx->binding_ops, layer_id, by);
}

void rig_op__binding_edited(struct rig_op_ctx *ctx, const struct rig_op *op,
			    struct rig_model_layer *l)
{
	l->binding.dirty = true;
	rig_op__binding_changed(ctx, l->id, op->index, NULL);
	rig_op__changed(ctx, op->layer_id);
}

int rig_op__binding_install(struct rig_op_ctx *ctx, const struct rig_op *op,
			    struct rig_model_layer *l, const struct rig_binding_type *type,
			    void *def, size_t size, bool clear, const char *def_member)
{
	void *owned = NULL;
	if (!clear) {
		if (!(owned = malloc(size))) {
			rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "",
					   "the server ran out of memory");
			return -1;
		}
		memcpy(owned, def, size); /* ownership moves to the model */
		memset(def, 0, size);
	}
	rig_model_binding_set(l, owned ? type : NULL, owned);
	rig_op__binding_changed(ctx, l->id, op->index, def_member);
	rig_op__changed(ctx, op->layer_id);
	return 0;
}

void rig_op__changed(struct rig_op_ctx *ctx, const char *layer_id)
{
	/* last_op doubles as the set of ids already listed (hashed by jansson). */
	bool listed = json_object_get(ctx->last_op, layer_id) != NULL;
	json_object_set_new(ctx->last_op, layer_id, json_integer(ctx->current_op));
	if (!listed)
		json_array_append_new(ctx->changed, json_string(layer_id));
}

void rig_op__touched(struct rig_op_ctx *ctx, struct rig_model_layer *l)
{
	l->dirty = true;
	rig_op__changed(ctx, l->id);
}

struct rig_err *rig_op__fail(struct rig_op_ctx *ctx, const struct rig_op *op, enum rig_code code,
			     const char *field, const char *detail)
{
	struct rig_err *e = rig_errs_add(ctx->errs, code, "%s", detail);
	e->op_index = op->index;
	snprintf(e->pointer, sizeof e->pointer, "%s%s%s", op->pointer, field[0] ? "/" : "", field);
	return e;
}

struct rig_err *rig_op__fail_layer(struct rig_op_ctx *ctx, const struct rig_op *op,
				   enum rig_code code, const char *field, const char *fmt, ...)
{
	struct rig_err *e = rig_errs_add(ctx->errs, code, "%s", "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->detail, sizeof e->detail, fmt, ap);
	va_end(ap);
	e->op_index = op->index;
	snprintf(e->pointer, sizeof e->pointer, "%s%s%s", op->pointer, field[0] ? "/" : "", field);
	rig_strlcpy(e->layer_id, op->layer_id, sizeof e->layer_id);
	return e;
}

struct rig_model_layer *rig_op__target(struct rig_op_ctx *ctx, const struct rig_op *op,
				       const char *id, const char *field)
{
	struct rig_model_layer *l = rig_shot_model_find(ctx->model, id);
	if (!l) {
		char detail[160];
		snprintf(detail, sizeof detail, "layer '%s' does not exist in the shot", id);
		struct rig_err *e = rig_op__fail(ctx, op, RIG_LAYER_NOT_FOUND, field, detail);
		rig_strlcpy(e->layer_id, id, sizeof e->layer_id);
	}
	return l;
}

struct rig_model_layer *rig_op__mesh_target(struct rig_op_ctx *ctx, const struct rig_op *op)
{
	struct rig_model_layer *l = rig_shot_model_find(ctx->model, op->layer_id);
	if (!l) {
		rig_op__fail_layer(ctx, op, RIG_LAYER_NOT_FOUND, "layerId",
				   "layer '%s' does not exist in the shot", op->layer_id);
		return NULL;
	}
	if (l->kind != RIG_LAYER_MESH) {
		rig_op__fail_layer(ctx, op, RIG_LAYER_KIND, "layerId",
				   "layer '%s' is a group layer; only mesh layers carry a binding",
				   l->id);
		return NULL;
	}
	return l;
}

bool rig_op__is_self_or_descendant(struct rig_shot_model *m, const char *layer,
				   const char *candidate)
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

/* Reads a [x, y] pair of finite numbers into two channels. */
static void decode_pair(const struct rig_jr *jr, json_t *obj, const char *key,
			struct rig_transform_in *t, enum rig_channel cx, enum rig_channel cy)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		return;
	if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_number(json_array_get(v, 0)) ||
	    !json_is_number(json_array_get(v, 1))) {
		rig_jr_fail(jr, key, "field '%s' must be [x, y] with two finite numbers", key);
		return;
	}
	t->ch[cx] = json_number_value(json_array_get(v, 0));
	t->ch[cy] = json_number_value(json_array_get(v, 1));
	t->set[cx] = t->set[cy] = true;
}

void rig_op__decode_transform(const struct rig_jr *op_jr, json_t *op, struct rig_transform_in *out)
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

void rig_op__set_statics(struct rig_model_layer *l, const struct rig_transform_in *t)
{
	for (int c = 0; c < RIG_CH_COUNT; c++)
		if (t->set[c])
			l->statics.ch[c] = t->ch[c];
}

void rig_op__release_nothing(struct rig_op *op)
{
	(void)op;
}

void rig_op__scope_layer(struct rig_op_ctx *ctx, const struct rig_op *op, size_t from,
			 const char *prefix)
{
	rig_errs_scope(ctx->errs, from, op->index, prefix);
	for (size_t i = from; i < ctx->errs->count; i++)
		rig_strlcpy(ctx->errs->items[i].layer_id, op->layer_id,
			    sizeof ctx->errs->items[i].layer_id);
}
