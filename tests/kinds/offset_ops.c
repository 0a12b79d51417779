/* The offset binding's op and its row of the binding kinds
 * (api/edit/binding.h): layer.offset installs or removes an offset binding
 * ({source, triangles, keys: [{frame, x, y, interp?, ease?}]} or null), kept
 * in the kind's own op rows (the op table knows nothing of it); its
 * layer.deformation.rest.apply makes the shape at a frame the new source, the
 * keys moved back by the same offset so every frame evaluates as before; its
 * summary; its mesh-data collections (vertices, triangles, offsets); the
 * arrays layer.offset takes from the compact body decoder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/edit/ops_internal.h"
#include "core/binding.h"
#include "storage/shot_repo.h"
#include "tests/kinds/offset.h"

/* ---- layer.offset ---- */

/* What layer.offset decodes (op->u.kind_data). */
struct offset_op {
	bool clear;                /* offset: null */
	struct rig_offset_def def; /* owned */
};

static void offset_release(struct rig_op *op)
{
	struct offset_op *o = op->u.kind_data;
	if (!o)
		return;
	rig_offset_def_release(&o->def);
	free(o);
	op->u.kind_data = NULL;
}

/* keys: [{frame, x, y, interp?, ease?}], frames as sent (the rules check
 * their order). */
static int decode_keys(const struct rig_jr *jr, json_t *obj, struct rig_offset_def *d)
{
	json_t *keys = json_object_get(obj, "keys");
	if (!keys)
		return 0;
	if (!json_is_array(keys))
		return rig_jr_fail(jr, "keys", "field 'keys' must be an array of {frame, x, y}");
	size_t n = json_array_size(keys);
	d->keys = calloc(n ? n : 1, sizeof *d->keys);
	d->dy = calloc(n ? n : 1, sizeof *d->dy);
	if (!d->keys || !d->dy)
		return rig_jr_out_of_memory(jr, "keys");
	d->n_keys = n;
	int rc = 0;
	for (size_t k = 0; k < n; k++) {
		json_t *key = json_array_get(keys, k);
		char base[96];
		snprintf(base, sizeof base, "%s/keys/%zu", jr->base, k);
		struct rig_jr kjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
		if (!json_is_object(key)) {
			rc = rig_jr_fail(&kjr, "", "key %zu must be {frame, x, y}", k);
			continue;
		}
		static const char *const fields[] = {"frame", "x", "y", "interp", "ease", NULL};
		rc |= rig_jr_known(&kjr, key, fields);
		rc |= rig_jr_number(&kjr, key, "frame", true, &d->keys[k].frame, NULL);
		rc |= rig_jr_number(&kjr, key, "x", true, &d->keys[k].value, NULL);
		rc |= rig_jr_number(&kjr, key, "y", true, &d->dy[k], NULL);
		rc |= rig_op__decode_interp(&kjr, key, &d->keys[k], NULL);
	}
	return rc;
}

static int offset_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			 struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op", "layerId", "offset", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct offset_op *o = calloc(1, sizeof *o);
	if (!o)
		return rig_jr_out_of_memory(jr, "");
	out->u.kind_data = o;
	json_t *offset = json_object_get(op, "offset");
	if (!offset)
		return rig_jr_fail(jr, "offset",
				   "field 'offset' is required (null removes the binding)");
	if (json_is_null(offset)) {
		o->clear = true;
		return rc;
	}
	if (!json_is_object(offset))
		return rig_jr_fail(jr, "offset",
				   "field 'offset' must be {source, triangles, keys} or null");
	char base[64];
	snprintf(base, sizeof base, "%s/offset", jr->base);
	struct rig_jr ojr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
	static const char *const fields[] = {"source", "triangles", "keys", NULL};
	size_t before = jr->errs->total;
	rig_jr_known(&ojr, offset, fields);
	rig_op__decode_points(&ojr, offset, "source", &o->def.source, &o->def.n_verts, bulk);
	rig_op__decode_triangles(&ojr, offset, &o->def.triangles, &o->def.n_tris, bulk);
	decode_keys(&ojr, offset, &o->def);
	if (jr->errs->total > before)
		return -1; /* shapes are wrong; the rules would only echo them */
	size_t from = jr->errs->count;
	if (rig_offset_def_check(&o->def, jr->errs) != 0) {
		rig_errs_scope(jr->errs, from, jr->op_index, base);
		return -1;
	}
	return rc;
}

static int offset_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return -1;
	struct offset_op *o = op->u.kind_data;
	return rig_op__binding_install(ctx, op, l, &rig_binding_offset, &o->def, sizeof o->def,
				       o->clear, "offset");
}

static const struct rig_op_type ops[] = {
	{"layer.offset", offset_decode, offset_apply, offset_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
};

/* ---- the kind's row ---- */

/* The offset at the layer's local frame joins the source and leaves every
 * key, so each frame's shape stays as it was (a translation cannot break the
 * per-frame checks). */
static int rest_apply(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l)
{
	int rc = rig_shot_load_binding(ctx->conn, ctx->model, l);
	if (rc) {
		rig_op__fail_layer(ctx, op, (enum rig_code) - rc, "",
				   "cannot load the offset binding of layer '%s'", l->id);
		return -1;
	}
	struct rig_offset_def *d = l->binding.def;
	double o[2];
	rig_offset_at(d, op->u.rest.frame, o);
	for (size_t v = 0; v < d->n_verts; v++) {
		d->source[2 * v] += o[0];
		d->source[2 * v + 1] += o[1];
	}
	for (size_t k = 0; k < d->n_keys; k++) {
		d->keys[k].value -= o[0];
		d->dy[k] -= o[1];
	}
	rig_op__binding_edited(ctx, op, l);
	return 0;
}

static json_t *summary(const struct rig_model_layer *l)
{
	const struct rig_offset_def *d = l->binding.def;
	return rig_binding_summary_counts(l, "keyCount", d->n_keys);
}

static size_t count_keys(const struct rig_binding_type *type, const void *def)
{
	(void)type;
	return ((const struct rig_offset_def *)def)->n_keys;
}

/* offsets: {keyIndex, frame, x, y, interp} per key. */
static void encode_offset(struct rig_buf *b, const struct rig_binding_type *type, const void *def,
			  const double *xy, size_t i)
{
	const struct rig_offset_def *d = def;
	(void)type;
	(void)xy;
	rig_buf_printf(b, "{\"keyIndex\":%zu,\"frame\":", i);
	rig_buf_double(b, d->keys[i].frame);
	rig_buf_puts(b, ",\"x\":");
	rig_buf_double(b, d->keys[i].value);
	rig_buf_puts(b, ",\"y\":");
	rig_buf_double(b, d->dy[i]);
	rig_buf_printf(b, ",\"interp\":\"%s\"}", rig_interp_name(d->keys[i].interp));
}

static const struct rig_binding_collection collections[] = {
	RIG_BINDING_COLLECTION_VERTICES,
	RIG_BINDING_COLLECTION_TRIANGLES,
	{"offsets", false, false, count_keys, encode_offset, NULL, NULL, NULL},
};

static const struct rig_bulk_member bulk_members[] = {
	{"layer.offset", "offset", "source", RIG_BULK_SOURCE},
	{"layer.offset", "offset", "triangles", RIG_BULK_TRIANGLES},
};

const struct rig_binding_kind rig_binding_kind_offset = {
	.type = &rig_binding_offset,
	.rest_apply = rest_apply,
	.summary = summary,
	.collections = collections,
	.n_collections = sizeof collections / sizeof collections[0],
	.bulk_members = bulk_members,
	.n_bulk_members = sizeof bulk_members / sizeof bulk_members[0],
	.ops = ops,
	.n_ops = sizeof ops / sizeof ops[0],
};
