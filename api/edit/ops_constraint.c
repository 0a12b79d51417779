/* constraint.put and constraint.delete: shot-level constraints (core/constraint.h).
 *
 * A put replaces the whole constraint of its id. Its kind ("ik", the default,
 * or "chain") says which fields it takes beyond the common ones (put_fields);
 * a field of the other kind is refused at its pointer rather than ignored.
 * Decoding checks each field's shape; whether the chain, target and pole fit the layer tree
 * (IK_CHAIN, IK_TARGET, IK_CYCLE) is final validation's job (ops_validate.c), so a batch may create
 * the layers after the constraint, and deleting a chain layer later in the batch is still caught.
 *
 * Locks: a constraint is owned data of the shot, not of any one layer, but it
 * moves its chain layers and reads its target and pole. A constraint op
 * therefore needs every chain layer, the target and the pole free of other
 * owners' locks (LAYER_LOCKED naming the layer); delete checks the layers of
 * the constraint it removes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"
#include "core/rig_limits.h"

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
	size_t lo = rig_constraint_min_chain(c->kind), hi = rig_constraint_max_chain(c->kind);
	if (n < lo || n > hi) {
		struct rig_err *e =
			rig_errs_add(jr->errs, RIG_IK_CHAIN,
				     "constraint '%s' of kind \"%s\" has a chain of %zu "
				     "layers (%zu to %zu allowed)",
				     c->id, rig_constraint_kind_name(c->kind), n, lo, hi);
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

#define KIND_BIT(k) (1u << (k))
#define ANY_KIND (KIND_BIT(RIG_CONSTRAINT_KIND_COUNT) - 1)
#define CHAINED (KIND_BIT(RIG_CONSTRAINT_IK) | KIND_BIT(RIG_CONSTRAINT_CHAIN))

/* Every field of constraint.put and the kinds it belongs to. */
static const struct {
	const char *name;
	unsigned kinds;
} put_fields[] = {
	{"op", ANY_KIND},
	{"constraintId", ANY_KIND},
	{"kind", ANY_KIND},
	{"mix", ANY_KIND},
	{"order", ANY_KIND},
	{"chain", CHAINED},
	{"target", CHAINED},
	{"pole", KIND_BIT(RIG_CONSTRAINT_IK)},
	{"bendPositive", KIND_BIT(RIG_CONSTRAINT_IK)},
	{"tipLength", KIND_BIT(RIG_CONSTRAINT_IK)},
	{"softness", KIND_BIT(RIG_CONSTRAINT_IK)},
	{"stretch", KIND_BIT(RIG_CONSTRAINT_IK)},
	{"compress", KIND_BIT(RIG_CONSTRAINT_IK)},
	{"limits", KIND_BIT(RIG_CONSTRAINT_IK)},
	{"segmentLength", KIND_BIT(RIG_CONSTRAINT_CHAIN)},
	{"lengths", KIND_BIT(RIG_CONSTRAINT_CHAIN)},
	{"smoothing", KIND_BIT(RIG_CONSTRAINT_CHAIN)},
	{"substeps", KIND_BIT(RIG_CONSTRAINT_CHAIN)},
	{"maxAngleDeg", KIND_BIT(RIG_CONSTRAINT_CHAIN)},
	{"body", KIND_BIT(RIG_CONSTRAINT_FOOTSTEP)},
	{"feet", KIND_BIT(RIG_CONSTRAINT_FOOTSTEP)},
	{"gait", KIND_BIT(RIG_CONSTRAINT_FOOTSTEP)},
	{"stepThreshold", KIND_BIT(RIG_CONSTRAINT_FOOTSTEP)},
	{"stepFrames", KIND_BIT(RIG_CONSTRAINT_FOOTSTEP)},
	{"stepHeight", KIND_BIT(RIG_CONSTRAINT_FOOTSTEP)},
};
#define N_PUT_FIELDS (sizeof put_fields / sizeof put_fields[0])

/* Unknown fields, and fields of other kinds than kind, each at its pointer. */
static int check_fields(const struct rig_jr *jr, json_t *op, enum rig_constraint_kind kind)
{
	const char *allowed[N_PUT_FIELDS + 1];
	for (size_t i = 0; i < N_PUT_FIELDS; i++)
		allowed[i] = put_fields[i].name;
	allowed[N_PUT_FIELDS] = NULL;
	int rc = rig_jr_known(jr, op, allowed);
	for (size_t i = 0; kind < RIG_CONSTRAINT_KIND_COUNT && i < N_PUT_FIELDS; i++)
		if (!(put_fields[i].kinds & KIND_BIT(kind)) &&
		    json_object_get(op, put_fields[i].name))
			rc = rig_jr_fail(jr, put_fields[i].name,
					 "field '%s' is not one of a \"%s\" constraint's",
					 put_fields[i].name, rig_constraint_kind_name(kind));
	return rc;
}

/* A number in [lo, hi) (or [lo, hi] when closed); untouched when absent. */
static int decode_range(const struct rig_jr *jr, json_t *op, const char *field, double lo,
			double hi, bool closed, double *out, bool *present)
{
	double x = *out;
	if (rig_jr_number(jr, op, field, false, &x, present))
		return -1;
	if (!(x >= lo && (closed ? x <= hi : x < hi)))
		return rig_jr_fail(jr, field, "field '%s' must be a number in [%g, %g%c", field, lo,
				   hi, closed ? ']' : ')');
	*out = x;
	return 0;
}

/* An IK constraint's own fields. */
static int decode_ik(const struct rig_jr *jr, json_t *op, struct rig_model_constraint *mc,
		     bool chain_ok)
{
	struct rig_constraint *c = &mc->c;
	int rc = chain_ok ? decode_limits(jr, op, c) : 0;
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
	rc |= decode_keyable(jr, op, "softness", 0, 1e300, &c->statics[RIG_CC_SOFTNESS],
			     &mc->keys[RIG_CC_SOFTNESS]);
	rc |= rig_jr_bool(jr, op, "stretch", false, &c->stretch);
	rc |= rig_jr_bool(jr, op, "compress", false, &c->compress);
	return rc;
}

/* A follow chain's segments: segmentLength (every one) or lengths (one each). */
static int decode_lengths(const struct rig_jr *jr, json_t *op, struct rig_constraint *c,
			  bool chain_ok)
{
	json_t *list = json_object_get(op, "lengths");
	bool has_segment = json_object_get(op, "segmentLength") != NULL;
	if (list && has_segment)
		return rig_jr_fail(jr, "lengths", "give 'segmentLength' or 'lengths', not both");
	if (!list && !has_segment)
		return rig_jr_fail(jr, "segmentLength",
				   "a follow chain needs 'segmentLength' (every segment) or "
				   "'lengths' (one per segment)");
	size_t segments = chain_ok ? c->n_chain - 1 : 0;
	if (has_segment) {
		double len = 0;
		if (rig_jr_number(jr, op, "segmentLength", true, &len, NULL))
			return -1;
		if (!(len > 0))
			return rig_jr_fail(jr, "segmentLength",
					   "field 'segmentLength' must be a number > 0");
		for (size_t i = 0; i < segments; i++)
			c->follow.lengths[i] = len;
		return 0;
	}
	if (!json_is_array(list) || (chain_ok && json_array_size(list) != segments))
		return rig_jr_fail(jr, "lengths",
				   "field 'lengths' must hold one number > 0 per segment (%zu: "
				   "the chain's layers less one)",
				   segments);
	int rc = 0;
	for (size_t i = 0; i < json_array_size(list) && i < RIG_CONSTRAINT_MAX_CHAIN - 1; i++) {
		json_t *v = json_array_get(list, i);
		double len = json_number_value(v);
		char at[24];
		snprintf(at, sizeof at, "lengths/%zu", i);
		if (!json_is_number(v) || !(len > 0) || !isfinite(len))
			rc = rig_jr_fail(jr, at, "a segment length must be a finite number > 0");
		else
			c->follow.lengths[i] = len;
	}
	return rc;
}

/* A follow chain's own fields. */
static int decode_follow(const struct rig_jr *jr, json_t *op, struct rig_constraint *c,
			 bool chain_ok)
{
	struct rig_chain_params *f = &c->follow;
	int rc = decode_lengths(jr, op, c, chain_ok);
	rc |= decode_range(jr, op, "smoothing", 0, 1, false, &f->smoothing, NULL);
	long long substeps = 1;
	rc |= rig_jr_int(jr, op, "substeps", false, 1, RIG_MAX_CHAIN_SUBSTEPS, &substeps, NULL);
	f->substeps = (int)substeps;
	rc |= decode_range(jr, op, "maxAngleDeg", 0, 180, true, &f->max_angle_deg,
			   &f->has_max_angle);
	return rc;
}

/* A walker's feet: [{ikConstraintId, rest: [x, y]}…], 1..8, no IK
 * constraint twice. */
static int decode_feet(const struct rig_jr *jr, json_t *op, struct rig_footstep_spec *w)
{
	json_t *feet = json_object_get(op, "feet");
	size_t n = json_array_size(feet);
	if (!json_is_array(feet) || n < 1 || n > RIG_FOOTSTEP_MAX_FEET)
		return rig_jr_fail(
			jr, "feet",
			"field 'feet' must be an array of 1 to %d {ikConstraintId, rest}",
			RIG_FOOTSTEP_MAX_FEET);
	w->n_feet = n;
	int rc = 0;
	for (size_t f = 0; f < n; f++) {
		char base[64];
		snprintf(base, sizeof base, "%s/feet/%zu", jr->base, f);
		struct rig_jr fjr = {jr->errs, jr->code, base, jr->op_index};
		json_t *foot = json_array_get(feet, f);
		if (!json_is_object(foot)) {
			char at[24];
			snprintf(at, sizeof at, "feet/%zu", f);
			rc = rig_jr_fail(jr, at, "a foot is {ikConstraintId, rest: [x, y]}");
			continue;
		}
		static const char *const fields[] = {"ikConstraintId", "rest", NULL};
		rc |= rig_jr_known(&fjr, foot, fields);
		rc |= rig_jr_id(&fjr, foot, "ikConstraintId", true, false, w->ik_ids[f], NULL);
		json_t *rest = json_object_get(foot, "rest");
		double x = json_number_value(json_array_get(rest, 0));
		double y = json_number_value(json_array_get(rest, 1));
		if (json_array_size(rest) != 2 || !json_is_number(json_array_get(rest, 0)) ||
		    !json_is_number(json_array_get(rest, 1)) || !isfinite(x) || !isfinite(y))
			rc = rig_jr_fail(
				&fjr, "rest",
				"field 'rest' must be [x, y], finite, in the body's space");
		w->rest[f][0] = x, w->rest[f][1] = y;
		for (size_t g = 0; rc == 0 && g < f; g++)
			if (strcmp(w->ik_ids[g], w->ik_ids[f]) == 0)
				rc = rig_jr_fail(&fjr, "ikConstraintId",
						 "feet %zu and %zu name IK constraint '%s' both", g,
						 f, w->ik_ids[f]);
	}
	return rc;
}

/* A walker's gait: groups of foot indices, every foot in exactly one; absent,
 * each foot is a group of its own (one foot steps at a time). */
static int decode_gait(const struct rig_jr *jr, json_t *op, struct rig_footstep_spec *w)
{
	json_t *gait = json_object_get(op, "gait");
	for (size_t f = 0; f < w->n_feet; f++)
		w->group[f] = gait ? -1 : (int)f;
	if (!gait)
		return 0;
	if (!json_is_array(gait) || json_array_size(gait) < 1)
		return rig_jr_fail(jr, "gait", "field 'gait' must be an array of groups of feet");
	for (size_t g = 0; g < json_array_size(gait); g++) {
		json_t *group = json_array_get(gait, g);
		char at[32];
		snprintf(at, sizeof at, "gait/%zu", g);
		if (!json_is_array(group) || json_array_size(group) < 1)
			return rig_jr_fail(jr, at,
					   "a gait group is a non-empty array of foot indices");
		for (size_t k = 0; k < json_array_size(group); k++) {
			long long f = -1;
			snprintf(at, sizeof at, "gait/%zu/%zu", g, k);
			if (rig_jr_index(jr, json_array_get(group, k), at, 0,
					 (long long)w->n_feet - 1, &f) != 0)
				return -1;
			if (w->group[f] >= 0)
				return rig_jr_fail(jr, at, "foot %lld is in two gait groups", f);
			w->group[f] = (int)g;
		}
	}
	for (size_t f = 0; f < w->n_feet; f++)
		if (w->group[f] < 0)
			return rig_jr_fail(jr, "gait", "foot %zu is in no gait group", f);
	return 0;
}

/* A walker's own fields. */
static int decode_walk(const struct rig_jr *jr, json_t *op, struct rig_constraint *c)
{
	struct rig_footstep_spec *w = &c->walk;
	int rc = rig_jr_id(jr, op, "body", true, false, c->target_id, NULL);
	int feet_rc = decode_feet(jr, op, w);
	rc |= feet_rc;
	if (feet_rc == 0)
		rc |= decode_gait(jr, op, w);
	rc |= rig_jr_number(jr, op, "stepThreshold", true, &w->threshold, NULL);
	if (rc == 0 && !(w->threshold >= 0))
		rc = rig_jr_fail(jr, "stepThreshold",
				 "field 'stepThreshold' must be a number >= 0");
	long long frames = 0;
	rc |= rig_jr_int(jr, op, "stepFrames", true, 1, RIG_FOOTSTEP_MAX_STEP_FRAMES, &frames,
			 NULL);
	w->step_frames = (int)frames;
	rc |= rig_jr_number(jr, op, "stepHeight", true, &w->height, NULL);
	return rc;
}

int rig_op__constraint_put_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				  struct rig_bulk *bulk)
{
	(void)bulk;
	struct rig_model_constraint *mc = calloc(1, sizeof *mc);
	if (!mc)
		return rig_jr_out_of_memory(jr, "");
	out->u.kind_data = mc;
	struct rig_constraint *c = &mc->c;
	c->bend = 1;
	c->statics[RIG_CC_MIX] = 1;
	c->follow.substeps = 1;
	const char *kind = rig_constraint_kind_name(RIG_CONSTRAINT_IK);
	int rc = rig_jr_string(jr, op, "kind", false, 16, &kind);
	c->kind = rc ? RIG_CONSTRAINT_KIND_COUNT : rig_constraint_kind_of(kind);
	if (rc == 0 && c->kind == RIG_CONSTRAINT_KIND_COUNT)
		rc = rig_jr_fail(jr, "kind",
				 "field 'kind' must be \"ik\", \"chain\" or \"footstep\"");
	rc |= check_fields(jr, op, c->kind);
	rc |= rig_jr_id(jr, op, "constraintId", true, false, c->id, NULL);
	rc |= decode_keyable(jr, op, "mix", 0, 1, &c->statics[RIG_CC_MIX], &mc->keys[RIG_CC_MIX]);
	long long order = 0;
	rc |= rig_jr_int(jr, op, "order", false, -1000000000LL, 1000000000LL, &order, NULL);
	c->order = order;
	if (c->kind == RIG_CONSTRAINT_KIND_COUNT)
		return -1;
	if (c->kind == RIG_CONSTRAINT_FOOTSTEP) {
		rc |= decode_walk(jr, op, c);
		rig_strlcpy(out->layer_id, c->target_id, sizeof out->layer_id);
		return rc;
	}
	rc |= rig_jr_id(jr, op, "target", true, false, c->target_id, NULL);
	int chain_rc = decode_chain(jr, op, c);
	rc |= chain_rc;
	if (c->kind == RIG_CONSTRAINT_CHAIN)
		rc |= decode_follow(jr, op, c, chain_rc == 0);
	else
		rc |= decode_ik(jr, op, mc, chain_rc == 0);
	if (c->n_chain)
		rig_strlcpy(out->layer_id, c->chain_ids[0], sizeof out->layer_id);
	return rc;
}

/* The target layer of the IK constraint foot f of walker c names, as the
 * shot holds it at this op; NULL while there is none (final validation
 * reports it). */
static const char *foot_layer(const struct rig_op_ctx *ctx, const struct rig_constraint *c,
			      size_t f)
{
	long at = rig_shot_model_constraint_index(ctx->model, c->walk.ik_ids[f]);
	return at < 0 ? NULL : ctx->model->constraints[at].c.target_id;
}

/* LAYER_LOCKED for each of c's layers held by another owner: a walker's body
 * and the IK targets it places. */
static int check_locks(struct rig_op_ctx *ctx, const struct rig_op *op,
		       const struct rig_constraint *c)
{
	int rc = 0;
	if (c->kind == RIG_CONSTRAINT_FOOTSTEP) {
		rc |= rig_op__check_layer_unlocked(ctx, op, c->target_id, "body");
		for (size_t f = 0; f < c->walk.n_feet; f++) {
			char at[40];
			snprintf(at, sizeof at, "feet/%zu/ikConstraintId", f);
			const char *layer = foot_layer(ctx, c, f);
			if (layer)
				rc |= rig_op__check_layer_unlocked(ctx, op, layer, at);
		}
		return rc;
	}
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

/* Lists the chain layers as changed: their evaluated pose is what moves (a
 * walker's: the IK targets it places). */
static void chain_changed(struct rig_op_ctx *ctx, const struct rig_constraint *c)
{
	for (size_t f = 0; f < c->walk.n_feet; f++)
		if (foot_layer(ctx, c, f))
			rig_op__changed(ctx, foot_layer(ctx, c, f));
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
	rig_strlcpy(op->layer_id,
		    c->kind == RIG_CONSTRAINT_FOOTSTEP ? c->target_id : c->chain_ids[0],
		    sizeof op->layer_id);
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
