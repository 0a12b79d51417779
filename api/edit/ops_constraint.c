/* constraint.put and constraint.delete: shot-level constraints (core/constraint.h).
 *
 * A put replaces the whole constraint of its id. Decoding checks each field's
 * shape; whether the chain, target and pole fit the layer tree (IK_CHAIN,
 * IK_TARGET, IK_CYCLE) is final validation's job (ops_validate.c), so a batch
 * may create the layers after the constraint, and deleting a chain layer later
 * in the batch is still caught.
 *
 * Locks: a constraint is owned data of the shot, not of any one layer, but it
 * moves its chain layers and reads its target and pole. A constraint op
 * therefore needs every chain layer, the target and the pole free of other
 * owners' locks (LAYER_LOCKED naming the layer); delete checks the layers of
 * the constraint it removes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"

static struct rig_model_constraint *constraint_of(struct rig_op *op)
{
	return op->u.kind_data;
}

/* A keyable field: a number in [lo, hi], or an array of keys whose values are. */
static int decode_keyable(const struct rig_jr *jr, json_t *op, const char *field, double lo,
			  double hi, double *out_static, struct rig_key_list *out_keys)
{
	json_t *v = json_object_get(op, field);
	if (!v)
		return 0;
	if (json_is_array(v)) {
		struct rig_key *keys = NULL;
		size_t n = 0;
		int rc = rig_op__decode_key_array(jr, op, field, &keys, &n);
		for (size_t i = 0; rc == 0 && i < n; i++) {
			if (!(keys[i].value >= lo && keys[i].value <= hi)) {
				char at[48];
				snprintf(at, sizeof at, "%s/%zu/value", field, i);
				rc = rig_jr_fail(jr, at, "a %s key value must be in [%g, %g]",
						 field, lo, hi);
			}
		}
		for (size_t i = 0; rc == 0 && i < n; i++)
			if (rig_key_list_put(out_keys, &keys[i]))
				rc = rig_jr_out_of_memory(jr, field);
		if (rc == 0 && out_keys->count != n)
			rc = rig_jr_fail(jr, field, "field '%s' repeats a key frame", field);
		free(keys);
		return rc;
	}
	double x = 0;
	if (rig_jr_number(jr, op, field, false, &x, NULL))
		return -1;
	if (!(x >= lo && x <= hi))
		return rig_jr_fail(jr, field, "field '%s' must be a number in [%g, %g] or keys",
				   field, lo, hi);
	*out_static = x;
	return 0;
}

static int decode_chain(const struct rig_jr *jr, json_t *op, struct rig_constraint *c)
{
	json_t *chain = json_object_get(op, "chain");
	if (!json_is_array(chain))
		return rig_jr_fail(jr, "chain", "field 'chain' must be an array of layer ids");
	size_t n = json_array_size(chain);
	if (n < 1 || n > RIG_IK_MAX_BONES) {
		struct rig_err *e = rig_errs_add(jr->errs, RIG_IK_CHAIN,
						 "constraint '%s' has a chain of %zu layers (1 to "
						 "8 allowed)",
						 c->id, n);
		e->op_index = jr->op_index;
		snprintf(e->pointer, sizeof e->pointer, "%s/chain", jr->base);
		rig_err_extra(e, "constraintId", c->id);
		rig_err_extra_number(e, "chainLength", (double)n);
		return -1;
	}
	int rc = 0;
	c->n_chain = n;
	for (size_t i = 0; i < n; i++) {
		char at[24];
		snprintf(at, sizeof at, "%zu", i);
		json_t *wrap = json_pack("{sO}", at, json_array_get(chain, i));
		char base[64];
		snprintf(base, sizeof base, "%s/chain", jr->base);
		struct rig_jr cjr = {jr->errs, jr->code, base, jr->op_index};
		if (!wrap)
			return rig_jr_out_of_memory(jr, "chain");
		rc |= rig_jr_id(&cjr, wrap, at, true, false, c->chain_ids[i], NULL);
		json_decref(wrap);
	}
	return rc;
}

/* op's optional "limits": one [clockwiseDeg, anticlockwiseDeg] (each 0..180)
 * or null (free) per chain layer, into c (after its chain is read). */
static int decode_limits(const struct rig_jr *jr, json_t *op, struct rig_constraint *c)
{
	json_t *v = json_object_get(op, "limits");
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) != c->n_chain)
		return rig_jr_fail(
			jr, "limits",
			"field 'limits' must hold one [clockwiseDeg, anticlockwiseDeg] or "
			"null per chain layer (%zu)",
			c->n_chain);
	for (size_t i = 0; i < c->n_chain; i++) {
		json_t *pair = json_array_get(v, i);
		c->limits[i][0] = c->limits[i][1] = 180;
		if (json_is_null(pair))
			continue;
		char at[32];
		snprintf(at, sizeof at, "limits/%zu", i);
		for (size_t k = 0; k < 2; k++) {
			json_t *deg = json_array_get(pair, k);
			double d = json_number_value(deg);
			if (!json_is_array(pair) || json_array_size(pair) != 2 ||
			    !json_is_number(deg) || !(d >= 0 && d <= 180))
				return rig_jr_fail(
					jr, at,
					"a limit is [clockwiseDeg, anticlockwiseDeg], each "
					"a number in [0, 180] (180: free), or null");
			c->limits[i][k] = d;
		}
	}
	c->has_limits = true;
	return 0;
}

int rig_op__constraint_put_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				  struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {
		"op",      "constraintId", "kind",      "chain",  "target",
		"pole",    "bendPositive", "tipLength", "mix",    "softness",
		"stretch", "compress",     "order",     "limits", NULL};
	struct rig_model_constraint *mc = calloc(1, sizeof *mc);
	if (!mc)
		return rig_jr_out_of_memory(jr, "");
	out->u.kind_data = mc;
	struct rig_constraint *c = &mc->c;
	c->bend = 1;
	c->statics[RIG_CC_MIX] = 1;
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "constraintId", true, false, c->id, NULL);
	const char *kind = "ik";
	rc |= rig_jr_string(jr, op, "kind", false, 16, &kind);
	if (rc == 0 && strcmp(kind, "ik") != 0)
		rc = rig_jr_fail(jr, "kind", "field 'kind' must be \"ik\" (the only kind so far)");
	int chain_rc = decode_chain(jr, op, c);
	rc |= chain_rc;
	if (chain_rc == 0)
		rc |= decode_limits(jr, op, c);
	rc |= rig_jr_id(jr, op, "target", true, false, c->target_id, NULL);
	bool pole_null = false;
	rc |= rig_jr_id(jr, op, "pole", false, true, c->pole_id, &pole_null);
	if (pole_null)
		c->pole_id[0] = '\0';
	bool bend = true;
	rc |= rig_jr_bool(jr, op, "bendPositive", false, &bend);
	c->bend = bend ? 1 : -1;
	rc |= rig_jr_number(jr, op, "tipLength", true, &c->tip_length, NULL);
	if (rc == 0 && !(c->tip_length > 0))
		rc = rig_jr_fail(jr, "tipLength", "field 'tipLength' must be a number > 0");
	rc |= decode_keyable(jr, op, "mix", 0, 1, &c->statics[RIG_CC_MIX], &mc->keys[RIG_CC_MIX]);
	rc |= decode_keyable(jr, op, "softness", 0, 1e300, &c->statics[RIG_CC_SOFTNESS],
			     &mc->keys[RIG_CC_SOFTNESS]);
	rc |= rig_jr_bool(jr, op, "stretch", false, &c->stretch);
	rc |= rig_jr_bool(jr, op, "compress", false, &c->compress);
	long long order = 0;
	rc |= rig_jr_int(jr, op, "order", false, -1000000000LL, 1000000000LL, &order, NULL);
	c->order = order;
	if (c->n_chain)
		rig_strlcpy(out->layer_id, c->chain_ids[0], sizeof out->layer_id);
	return rc;
}

/* LAYER_LOCKED for each of c's layers held by another owner. */
static int check_locks(struct rig_op_ctx *ctx, const struct rig_op *op,
		       const struct rig_constraint *c)
{
	int rc = 0;
	for (size_t i = 0; i < c->n_chain; i++) {
		char at[24];
		snprintf(at, sizeof at, "chain/%zu", i);
		rc |= rig_op__check_layer_unlocked(ctx, op, c->chain_ids[i], at);
	}
	rc |= rig_op__check_layer_unlocked(ctx, op, c->target_id, "target");
	if (c->pole_id[0])
		rc |= rig_op__check_layer_unlocked(ctx, op, c->pole_id, "pole");
	return rc;
}

/* Lists the chain layers as changed: their evaluated pose is what moves. */
static void chain_changed(struct rig_op_ctx *ctx, const struct rig_constraint *c)
{
	for (size_t i = 0; i < c->n_chain; i++)
		rig_op__changed(ctx, c->chain_ids[i]);
}

int rig_op__constraint_put_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	const struct rig_model_constraint *src = constraint_of(op);
	if (check_locks(ctx, op, &src->c))
		return -1;
	/* The model takes a copy: the op keeps its own. */
	struct rig_model_constraint copy;
	memset(&copy, 0, sizeof copy);
	copy.c = src->c;
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		for (size_t i = 0; i < src->keys[ch].count; i++)
			if (rig_key_list_put(&copy.keys[ch], &src->keys[ch].items[i]))
				goto out_oom;
	if (rig_shot_model_constraint_put(ctx->model, &copy))
		goto out_oom;
	json_object_set_new(ctx->constraint_ops, src->c.id, json_integer(op->index));
	chain_changed(ctx, &src->c);
	return 0;
out_oom:
	rig_model_constraint_release(&copy);
	rig_op__fail(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
	return -1;
}

int rig_op__constraint_delete_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				     struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "constraintId", NULL};
	struct rig_model_constraint *mc = calloc(1, sizeof *mc);
	if (!mc)
		return rig_jr_out_of_memory(jr, "");
	out->u.kind_data = mc;
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "constraintId", true, false, mc->c.id, NULL);
	return rc;
}

int rig_op__constraint_delete_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	const char *id = constraint_of(op)->c.id;
	long at = rig_shot_model_constraint_index(ctx->model, id);
	if (at < 0) {
		char detail[128];
		snprintf(detail, sizeof detail, "constraint '%s' does not exist", id);
		struct rig_err *e =
			rig_op__fail(ctx, op, RIG_CONSTRAINT_NOT_FOUND, "constraintId", detail);
		rig_err_extra(e, "constraintId", id);
		return -1;
	}
	const struct rig_constraint *c = &ctx->model->constraints[at].c;
	if (check_locks(ctx, op, c))
		return -1;
	rig_strlcpy(op->layer_id, c->chain_ids[0], sizeof op->layer_id);
	chain_changed(ctx, c);
	rig_shot_model_constraint_delete(ctx->model, id);
	json_object_del(ctx->constraint_ops, id);
	return 0;
}

void rig_op__constraint_release(struct rig_op *op)
{
	struct rig_model_constraint *mc = constraint_of(op);
	if (!mc)
		return;
	rig_model_constraint_release(mc);
	free(mc);
}
