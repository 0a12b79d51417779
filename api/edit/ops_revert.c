/* receipt.revert (issue 15 item 4): restores every layer a receipt's batch
 * changed, and the constraint set when it changed it, to the state the shot
 * had before that batch (its fromVersion), as one op of an ordinary batch, so
 * dry runs, plans, locks, idempotency, final validation, checkFrames and the
 * receipt apply as to any edit.
 *
 * What the receipt's batch changed, and which later batches changed the same
 * layers (a conflict unless force), come from the shot's version-ranged
 * history (storage: rig_history_changes); the earlier state is the shot loaded
 * at fromVersion (rig_shot_load_at).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"
#include "storage/receipts.h"
#include "storage/shot_repo.h"

int rig_op__revert_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			  struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "receiptId", "force", NULL};
	const char *id = NULL;
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_string(jr, op, "receiptId", true, RIG_RECEIPT_ID_MAX - 1, &id);
	if (id)
		rig_strlcpy(out->u.revert.receipt_id, id, sizeof out->u.revert.receipt_id);
	rc |= rig_jr_bool(jr, op, "force", false, &out->u.revert.force);
	return rc;
}

/* What the history says about the receipt's version and the ones after it. */
struct revert_scan {
	long long version; /* the receipt's toVersion */
	json_t *layers;    /* object: layer id → true, the layers it changed */
	bool constraints;  /* it changed the constraint set */
	json_t *later;     /* array of [version, layer id or null] after it */
	int oom;
};

static int scan_change(void *ctx, long long version, const char *layer_id)
{
	struct revert_scan *s = ctx;
	if (version == s->version) {
		if (!layer_id)
			s->constraints = true;
		else if (json_object_set_new(s->layers, layer_id, json_true()))
			return -RIG_INTERNAL;
		return 0;
	}
	json_t *pair = json_pack("[I, s?]", (json_int_t)version, layer_id);
	return pair && !json_array_append_new(s->later, pair) ? 0 : -RIG_INTERNAL;
}

/* Everything apply needs, released together. */
struct revert_state {
	struct revert_scan scan;
	struct rig_shot_model old; /* the shot at the receipt's fromVersion */
	json_t *doomed;            /* object: id → true, layers the revert deletes */
	json_t *conflicts;         /* object: layer id ("" the constraints) → [receipt ids] */
};

static void state_release(struct revert_state *st)
{
	json_decref(st->scan.layers);
	json_decref(st->scan.later);
	json_decref(st->doomed);
	json_decref(st->conflicts);
	rig_shot_model_release(&st->old);
}

/* Reads the receipt: its shot must be the batch's, and its fromVersion still
 * readable. Sets *version to its toVersion. */
static int read_receipt(struct rig_op_ctx *ctx, const struct rig_op *op, long long *version)
{
	const char *id = op->u.revert.receipt_id;
	char *text = NULL;
	int rc = rig_receipt_get(ctx->conn, id, &text);
	if (rc == -RIG_NOT_FOUND) {
		struct rig_err *e = rig_op__fail(ctx, op, RIG_NOT_FOUND, "receiptId", "");
		snprintf(e->detail, sizeof e->detail, "receipt '%s' does not exist", id);
		rig_err_extra(e, "receiptId", id);
		return -1;
	}
	if (rc) {
		rig_op__fail(ctx, op, (enum rig_code) - rc, "receiptId",
			     "reading the receipt failed");
		return -1;
	}
	json_t *r = json_loads(text, 0, NULL);
	free(text);
	const char *shot = json_string_value(json_object_get(r, "shotId"));
	json_t *to = json_object_get(r, "toVersion");
	int out = 0;
	if (!shot || !json_is_integer(to)) {
		rig_op__fail(ctx, op, RIG_INTERNAL, "receiptId",
			     "the stored receipt is unreadable");
		out = -1;
	} else if (strcmp(shot, ctx->model->id) != 0) {
		struct rig_err *e = rig_op__fail(ctx, op, RIG_OP_INVALID, "receiptId", "");
		snprintf(e->detail, sizeof e->detail,
			 "receipt '%s' belongs to shot '%.64s', not to '%s'; a batch reverts "
			 "receipts of its own shot",
			 id, shot, ctx->model->id);
		rig_err_extra(e, "receiptId", id);
		rig_err_extra(e, "shotId", shot);
		out = -1;
	} else {
		*version = json_integer_value(to);
	}
	json_decref(r);
	return out;
}

/* Marks id and its live descendants in the model for deletion (st->doomed). */
static int doom_subtree(struct rig_op_ctx *ctx, struct revert_state *st, const char *id)
{
	struct rig_shot_model *m = ctx->model;
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (!l->deleted && rig_op__is_self_or_descendant(m, id, l->id) &&
		    json_object_set_new(st->doomed, l->id, json_true()))
			return -1;
	}
	return 0;
}

/* Adds receipt r.<seq>.<version> to the conflict list of key. */
static int add_conflict(struct revert_state *st, long long seq, const char *key, long long version)
{
	char id[RIG_RECEIPT_ID_MAX];
	rig_receipt_id(id, seq, version);
	json_t *list = json_object_get(st->conflicts, key);
	if (!list) {
		list = json_array();
		if (json_object_set_new(st->conflicts, key, list))
			return -1;
	}
	size_t n = json_array_size(list);
	if (n && !strcmp(json_string_value(json_array_get(list, n - 1)), id))
		return 0; /* pairs come by version: a repeat is the last one */
	return json_array_append_new(list, json_string(id));
}

/* Finds every layer (and the constraints) a later batch changed too and,
 * unless the revert is forced, reports REVERT_CONFLICT for each, listing those
 * batches' receipts. Returns the number of conflicts, or -1 out of memory. */
static int find_conflicts(struct rig_op_ctx *ctx, const struct rig_op *op, struct revert_state *st)
{
	size_t i;
	json_t *pair;
	json_array_foreach(st->scan.later, i, pair)
	{
		long long v = json_integer_value(json_array_get(pair, 0));
		const char *layer = json_string_value(json_array_get(pair, 1));
		bool hit = layer ? json_object_get(st->scan.layers, layer) ||
					   json_object_get(st->doomed, layer)
				 : st->scan.constraints;
		if (hit && add_conflict(st, ctx->model->seq, layer ? layer : "", v))
			return -1;
	}
	const char *key;
	json_t *list;
	if (op->u.revert.force) /* forced: the later changes are overwritten */
		return (int)json_object_size(st->conflicts);
	json_object_foreach(st->conflicts, key, list)
	{
		struct rig_err *e = rig_op__fail(ctx, op, RIG_REVERT_CONFLICT, "receiptId", "");
		snprintf(e->detail, sizeof e->detail,
			 "%s%s%s was changed again after receipt '%s' by %zu later receipt%s; "
			 "revert with force to overwrite",
			 key[0] ? "layer '" : "the constraint set", key, key[0] ? "'" : "",
			 op->u.revert.receipt_id, json_array_size(list),
			 json_array_size(list) == 1 ? "" : "s");
		rig_strlcpy(e->layer_id, key, sizeof e->layer_id);
		rig_err_extra(e, "receiptId", op->u.revert.receipt_id);
		/* the list holds the first 64 (RIG_ERR_LIST_ITEMS); the count all */
		rig_err_extra_number(e, "receiptCount", (double)json_array_size(list));
		size_t k;
		json_t *r;
		json_array_foreach(list, k, r)
		{
			rig_err_list_add(e, "receipts", json_string_value(r));
		}
	}
	return (int)json_object_size(st->conflicts);
}

/* LAYER_LOCKED for every layer the revert would change that someone else
 * holds: those the receipt changed and those deleted with them. */
static int check_locks(struct rig_op_ctx *ctx, const struct rig_op *op, struct revert_state *st)
{
	int rc = 0;
	const char *id;
	json_t *v;
	json_object_foreach(st->scan.layers, id, v)
	{
		rc |= rig_op__check_layer_unlocked(ctx, op, id, "receiptId");
	}
	json_object_foreach(st->doomed, id, v)
	{
		if (!json_object_get(st->scan.layers, id))
			rc |= rig_op__check_layer_unlocked(ctx, op, id, "receiptId");
	}
	return rc;
}

static int copy_keys(struct rig_key_list *dst, const struct rig_key_list *src)
{
	for (int c = 0; c < RIG_CH_COUNT; c++) {
		free(dst[c].items);
		memset(&dst[c], 0, sizeof dst[c]);
		for (size_t k = 0; k < src[c].count; k++)
			if (rig_key_list_put(&dst[c], &src[c].items[k]))
				return -1;
	}
	return 0;
}

/* Makes cur (live in the batch's model) what was is at the receipt's
 * fromVersion: its row, and its binding unless the stored one is the same. */
static int restore_layer(struct rig_op_ctx *ctx, const struct rig_op *op, struct revert_state *st,
			 struct rig_model_layer *cur, const struct rig_model_layer *was)
{
	char *name = strdup(was->name);
	if (!name || copy_keys(cur->keys, was->keys)) {
		free(name);
		return -1;
	}
	free(cur->name);
	cur->name = name;
	cur->kind = was->kind;
	rig_strlcpy(cur->parent_id, was->parent_id, sizeof cur->parent_id);
	cur->ord = was->ord;
	/* A layer created after a deletion of the last one can reuse its
	 * creation order: the restored layer then goes last, never ties. */
	struct rig_shot_model *m = ctx->model;
	for (size_t i = 0; i < m->n_layers; i++)
		if (&m->layers[i] != cur && !m->layers[i].deleted && m->layers[i].ord == cur->ord) {
			cur->ord = m->next_ord++;
			break;
		}
	cur->statics = was->statics;
	cur->time_offset = was->time_offset;
	rig_op__touched(ctx, cur);
	const struct rig_model_binding *wb = &was->binding;
	struct rig_model_binding *cb = &cur->binding;
	if (!cur->is_new && !cb->dirty && cb->type == wb->type &&
	    (!wb->type || cb->revision == wb->revision))
		return 0; /* the stored binding is the one it had */
	void *def = NULL;
	if (wb->type) {
		int rc = rig_shot_read_binding(&def, ctx->conn, &st->old, was);
		if (rc) {
			rig_op__fail(ctx, op, (enum rig_code) - rc, "receiptId",
				     "reading the earlier binding failed");
			return -2;
		}
	}
	if (wb->type || cb->type) {
		rig_model_binding_set(cur, wb->type, def);
		cb->n_verts = wb->n_verts;
		cb->n_tris = wb->n_tris;
		rig_op__binding_changed(ctx, cur->id, op->index, NULL);
	}
	return 0;
}

/* Replaces the model's constraint set by the one at fromVersion. */
static int restore_constraints(struct rig_op_ctx *ctx, const struct rig_op *op,
			       const struct rig_shot_model *old)
{
	struct rig_shot_model *m = ctx->model;
	while (m->n_constraints) {
		const struct rig_constraint *c = &m->constraints[m->n_constraints - 1].c;
		for (size_t i = 0; i < c->n_chain; i++)
			rig_op__changed(ctx, c->chain_ids[i]);
		json_object_del(ctx->constraint_ops, c->id);
		rig_shot_model_constraint_delete(m, c->id);
	}
	for (size_t k = 0; k < old->n_constraints; k++) {
		struct rig_model_constraint copy;
		memset(&copy, 0, sizeof copy);
		copy.c = old->constraints[k].c;
		if (copy_keys(copy.keys, old->constraints[k].keys) ||
		    rig_shot_model_constraint_put(m, &copy)) {
			rig_model_constraint_release(&copy);
			return -1;
		}
		const struct rig_constraint *c = &old->constraints[k].c;
		json_object_set_new(ctx->constraint_ops, c->id, json_integer(op->index));
		for (size_t i = 0; i < c->n_chain; i++)
			rig_op__changed(ctx, c->chain_ids[i]);
	}
	m->constraints_dirty = true;
	return 0;
}

/* Layer id as the restore would leave it (its parent is what matters): gone
 * when doomed, its fromVersion state when the receipt changed it, else as the
 * batch has it now. */
static const struct rig_model_layer *layer_after(struct rig_op_ctx *ctx, struct revert_state *st,
						 const char *id)
{
	if (json_object_get(st->doomed, id))
		return NULL;
	if (json_object_get(st->scan.layers, id))
		return rig_shot_model_find(&st->old, id);
	return rig_shot_model_find(ctx->model, id);
}

/* A restored layer's parent must be live and lead to the root: a later batch
 * can have deleted it, or moved it below the layer. Checked on the tree the
 * restore would leave, before anything changes, so a refused revert leaves
 * the batch's model as it was (the ops after it run against that state). */
static int check_tree(struct rig_op_ctx *ctx, const struct rig_op *op, struct revert_state *st)
{
	size_t before = ctx->errs->total;
	const char *id;
	json_t *v;
	json_object_foreach(st->scan.layers, id, v)
	{
		const struct rig_model_layer *l = layer_after(ctx, st, id);
		if (!l || !l->parent_id[0])
			continue;
		if (!layer_after(ctx, st, l->parent_id)) {
			struct rig_err *e =
				rig_op__fail(ctx, op, RIG_LAYER_NOT_FOUND, "receiptId", "");
			snprintf(e->detail, sizeof e->detail,
				 "layer '%s' would be restored below '%s', which no longer exists",
				 id, l->parent_id);
			rig_strlcpy(e->layer_id, id, sizeof e->layer_id);
			rig_err_extra(e, "parentId", l->parent_id);
			continue;
		}
		const struct rig_model_layer *p = l;
		size_t steps = 0, bound = ctx->model->n_layers + st->old.n_layers;
		while (p && p->parent_id[0] && steps++ <= bound)
			p = layer_after(ctx, st, p->parent_id);
		if (p && p->parent_id[0]) {
			struct rig_err *e = rig_op__fail(ctx, op, RIG_LAYER_CYCLE, "receiptId", "");
			snprintf(e->detail, sizeof e->detail,
				 "restoring layer '%s' below '%s' would make a cycle: a later "
				 "receipt moved '%s' inside it",
				 id, l->parent_id, l->parent_id);
			rig_strlcpy(e->layer_id, id, sizeof e->layer_id);
			rig_err_extra(e, "parentId", l->parent_id);
		}
	}
	return ctx->errs->total > before ? -1 : 0;
}

/* Deletes the doomed layers and restores the others the receipt changed. */
static int restore(struct rig_op_ctx *ctx, const struct rig_op *op, struct revert_state *st)
{
	struct rig_shot_model *m = ctx->model;
	const char *id;
	json_t *v;
	json_object_foreach(st->doomed, id, v)
	{
		struct rig_model_layer *l = rig_shot_model_find(m, id);
		if (l) {
			l->deleted = true;
			rig_op__changed(ctx, id);
		}
	}
	json_object_foreach(st->scan.layers, id, v)
	{
		const struct rig_model_layer *was = rig_shot_model_find(&st->old, id);
		if (!was)
			continue;
		struct rig_model_layer *cur = rig_shot_model_find(m, id);
		if (!cur) {
			cur = rig_shot_model_add(m, id, was->name, was->kind, was->parent_id);
			if (!cur)
				return -1;
			json_object_del(ctx->binding_ops, id);
		}
		int rc = restore_layer(ctx, op, st, cur, was);
		if (rc)
			return rc;
	}
	if (st->scan.constraints && restore_constraints(ctx, op, &st->old))
		return -1;
	rig_shot_model_sort(m); /* restored layers take their places again */
	return 0;
}

int rig_op__revert_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_shot_model *m = ctx->model;
	struct revert_state st;
	memset(&st, 0, sizeof st);
	st.scan.layers = json_object();
	st.scan.later = json_array();
	st.doomed = json_object();
	st.conflicts = json_object();
	int out = -1;
	if (!st.scan.layers || !st.scan.later || !st.doomed || !st.conflicts)
		goto oom;
	long long version = 0, oldest = 0, head = 0;
	if (read_receipt(ctx, op, &version))
		goto done;
	st.scan.version = version;
	int rc = rig_shot_versions(ctx->conn, m->id, &oldest, &head);
	if (!rc && version - 1 < oldest) {
		struct rig_err *e = rig_op__fail(ctx, op, RIG_VERSION_COMPACTED, "receiptId", "");
		snprintf(e->detail, sizeof e->detail,
			 "receipt '%s' moved the shot from version %lld, which is compacted away "
			 "(the oldest retained version is %lld)",
			 op->u.revert.receipt_id, version - 1, oldest);
		rig_err_extra(e, "receiptId", op->u.revert.receipt_id);
		rig_err_extra_number(e, "oldestVersion", (double)oldest);
		goto done;
	}
	if (!rc)
		rc = rig_history_changes(ctx->conn, m->id, version - 1, head, scan_change,
					 &st.scan);
	if (!rc)
		rc = rig_shot_load_at(&st.old, ctx->conn, m->id, version - 1);
	if (rc) {
		rig_op__fail(ctx, op, (enum rig_code) - rc, "receiptId",
			     "reading the shot's history failed");
		goto done;
	}
	/* Layers the receipt created go, with whatever now hangs below them. */
	const char *id;
	json_t *v;
	json_object_foreach(st.scan.layers, id, v)
	{
		bool created = !rig_shot_model_find(&st.old, id);
		if (created && rig_shot_model_find(m, id) && doom_subtree(ctx, &st, id))
			goto oom;
	}
	int conflicts = find_conflicts(ctx, op, &st);
	if (conflicts < 0)
		goto oom;
	if ((conflicts && !op->u.revert.force) || check_locks(ctx, op, &st) ||
	    check_tree(ctx, op, &st))
		goto done;
	rc = restore(ctx, op, &st);
	if (rc == -1)
		goto oom;
	out = rc ? -1 : 0;
	goto done;
oom:
	rig_op__fail(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
done:
	state_release(&st);
	return out;
}
