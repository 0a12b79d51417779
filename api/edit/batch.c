/* The edit pipeline of batch.h. */
#include "api/edit/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/edit/frame_check.h"
#include "api/edit/ops.h"
#include "api/edit/shot_cache.h"
#include "api/util/jsonread.h"
#include "api/util/stamp.h"
#include "api/util/textbuf.h"
#include "storage/locks.h"
#include "storage/receipts.h"
#include "storage/resources.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

/* Records a storage failure (rc, a negative rig code) as r's outcome. */
static void fail(struct rig_batch_result *r, enum rig_batch_outcome outcome, int rc,
		 const char *what)
{
	r->outcome = outcome;
	r->rc = rc;
	r->what = what;
}

/* Loads the shot into *out, from the write path's cache when it still mirrors
 * the stored shot, else from the database. */
static int load_for_batch(struct rig_shot_model *out, struct rig_tx *conn,
			  const struct rig_batch *b)
{
	if (b->use_cache && rig_shot_cache_take(b->app->shot_cache, conn, b->shot_id, out))
		return 0;
	return rig_shot_load(out, conn, b->shot_id);
}

struct rig_op *rig_batch_decode(json_t *ops, struct rig_bulk *bulk, struct rig_errs *errs)
{
	size_t n = json_array_size(ops);
	struct rig_op *decoded = calloc(n ? n : 1, sizeof *decoded);
	if (!decoded) {
		rig_errs_add(errs, RIG_MEMORY_BUSY,
			     "the server ran out of memory decoding the ops");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (rig_op_decode(&decoded[i], json_array_get(ops, i), (long)i, bulk, errs) != 0)
			decoded[i].failed = true;
	return decoded;
}

/* Final-validation violations name no op: attribute each to the last op that
 * changed its mesh layer or the joint's layer (else the batch's last op), so
 * every error in the response carries opIndex and pointer. */
static void attribute(struct rig_errs *errs, size_t from, const struct rig_op_ctx *ctx,
		      size_t n_ops)
{
	for (size_t i = from; i < errs->count; i++) {
		struct rig_err *e = &errs->items[i];
		if (e->op_index != RIG_NO_INDEX)
			continue;
		long best = -1;
		json_t *v = json_object_get(ctx->last_op, e->layer_id);
		if (v)
			best = (long)json_integer_value(v);
		struct rig_model_layer *mesh = NULL;
		for (size_t k = 0; k < ctx->model->n_layers && !mesh; k++)
			if (!strcmp(ctx->model->layers[k].id, e->layer_id) &&
			    !ctx->model->layers[k].deleted)
				mesh = &ctx->model->layers[k];
		const struct rig_binding_type *type = mesh ? mesh->binding.type : NULL;
		const void *def = type ? mesh->binding.def : NULL;
		size_t n_joints = type && e->joint_id[0] ? type->def_n_joints(def) : 0;
		for (size_t j = 0; j < n_joints; j++) {
			if (strcmp(type->def_joint_id(def, j), e->joint_id) != 0)
				continue;
			json_t *jv = json_object_get(ctx->last_op, type->def_joint_layer(def, j));
			if (jv && json_integer_value(jv) > best)
				best = (long)json_integer_value(jv);
		}
		if (best < 0)
			best = (long)n_ops - 1;
		e->op_index = best;
		char ptr[RIG_ERR_POINTER_MAX];
		snprintf(ptr, sizeof ptr, "/ops/%ld%s", best, e->pointer);
		rig_strlcpy(e->pointer, ptr, sizeof e->pointer);
	}
}

static void put_string_or_null(struct rig_buf *t, const char *s)
{
	if (s)
		rig_buf_json_string(t, s);
	else
		rig_buf_puts(t, "null");
}

/* Appends ,"key":value in jansson's compact form. */
static void put_member(struct rig_buf *t, const char *key, const json_t *value)
{
	char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
	if (!text) {
		t->oom = true;
		return;
	}
	rig_buf_puts(t, ",");
	rig_buf_json_string(t, key);
	rig_buf_puts(t, ":");
	rig_buf_puts(t, text);
	free(text);
}

/* The receipt as the text stored and sent, written directly rather than
 * built as a tree and dumped: a 50-op batch's receipt tree cost as much as
 * its 50 layer updates. Members in a fixed order, jansson's compact form for
 * the values authoring ops noted. Sets id (RIG_RECEIPT_ID_MAX); NULL when out
 * of memory. */
static char *receipt_text(const struct rig_batch *b, const struct rig_op *ops, size_t n_ops,
			  const struct rig_op_ctx *ctx, long long from_version, char *id)
{
	char at[RIG_TIMESTAMP_MAX];
	rig_receipt_id(id, ctx->model->seq, from_version + 1);
	rig_api__iso8601(at, rig_api__now_ms());
	struct rig_buf t;
	rig_buf_init(&t);
	rig_buf_puts(&t, "{\"receiptId\":");
	put_string_or_null(&t, b->dry_run ? NULL : id);
	rig_buf_puts(&t, ",\"shotId\":");
	put_string_or_null(&t, b->shot_id);
	rig_buf_puts(&t, ",\"actor\":");
	put_string_or_null(&t, b->actor);
	rig_buf_puts(&t, ",\"idempotencyKey\":");
	put_string_or_null(&t, b->idem_key);
	rig_buf_printf(&t, ",\"fromVersion\":%lld,\"toVersion\":%lld,\"appliedAt\":", from_version,
		       from_version + 1);
	rig_buf_json_string(&t, at);
	rig_buf_puts(&t, ",\"ops\":[");
	const char *revert_of = NULL; /* the first receipt.revert's receipt */
	bool noted = json_object_size(ctx->receipt_notes) > 0; /* what authoring ops noted */
	for (size_t i = 0; i < n_ops; i++) {
		rig_buf_printf(&t, "%s{\"index\":%zu,\"op\":", i ? "," : "", i);
		put_string_or_null(&t, ops[i].name);
		rig_buf_puts(&t, ",\"layerId\":");
		put_string_or_null(&t, ops[i].layer_id);
		if (noted) {
			char index[24];
			snprintf(index, sizeof index, "%zu", i);
			const char *key;
			json_t *value;
			json_object_foreach(json_object_get(ctx->receipt_notes, index), key, value)
				put_member(&t, key, value);
		}
		if (ops[i].type && !strcmp(ops[i].name, "receipt.revert")) {
			rig_buf_puts(&t, ",\"revertOf\":");
			rig_buf_json_string(&t, ops[i].u.revert.receipt_id);
			if (!revert_of)
				revert_of = ops[i].u.revert.receipt_id;
		}
		rig_buf_puts(&t, "}");
	}
	rig_buf_puts(&t, "],\"changedLayers\":[");
	for (size_t i = 0; i < json_array_size(ctx->changed); i++) {
		rig_buf_puts(&t, i ? "," : "");
		put_string_or_null(&t, json_string_value(json_array_get(ctx->changed, i)));
	}
	rig_buf_puts(&t, "],\"tokenId\":");
	put_string_or_null(&t, b->token_id && b->token_id[0] ? b->token_id : NULL);
	if (revert_of) {
		rig_buf_puts(&t, ",\"revertOf\":");
		rig_buf_json_string(&t, revert_of);
	}
	const char *key;
	json_t *value;
	json_object_foreach(b->receipt_extra, key, value) put_member(&t, key, value);
	rig_buf_puts(&t, b->dry_run ? ",\"dryRun\":true}" : "}");
	rig_buf_put(&t, "", 1);
	if (t.oom) {
		rig_buf_release(&t);
		return NULL;
	}
	return t.data;
}

/* Collects the live locks of other owners, one entry per locked layer. */
struct lock_collect {
	const char *principal;
	struct rig_foreign_lock *items;
	size_t n, cap;
};

static int collect_lock(void *ctx, const struct rig_lock *lock)
{
	struct lock_collect *c = ctx;
	if (strcmp(lock->owner_id, c->principal) == 0)
		return 0;
	for (size_t i = 0; i < lock->n_layers; i++) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 16;
			struct rig_foreign_lock *grown = realloc(c->items, cap * sizeof *grown);
			if (!grown)
				return -RIG_INTERNAL;
			c->items = grown;
			c->cap = cap;
		}
		struct rig_foreign_lock *f = &c->items[c->n++];
		rig_strlcpy(f->layer_id, lock->layer_ids[i], sizeof f->layer_id);
		rig_strlcpy(f->lock_id, lock->id, sizeof f->lock_id);
		rig_strlcpy(f->owner, lock->owner, sizeof f->owner);
		f->expires_ms = lock->expires_ms;
	}
	return 0;
}

/* LOCK_LOST unless lock_id is a live lock of this shot held by the actor at
 * fencing_token. Returns 0, or -1 with r's outcome set. */
static int check_fence(struct rig_tx *conn, const struct rig_batch *b, long long now_ms,
		       struct rig_batch_result *r)
{
	struct rig_lock lock;
	int rc = rig_lock_get(conn, b->lock_id, &lock);
	const char *why = NULL;
	if (rc == -RIG_NOT_FOUND)
		why = "does not exist (released or expired and swept)";
	else if (rc)
		why = NULL;
	else if (strcmp(lock.shot_id, b->shot_id) != 0)
		why = "belongs to another shot";
	else if (lock.expires_ms <= now_ms)
		why = "has expired";
	else if (strcmp(lock.owner_id, b->principal) != 0)
		why = "is held by another owner";
	else if (lock.fencing_token != b->fencing_token)
		why = "has another fencing token";
	if (rc && rc != -RIG_NOT_FOUND) {
		fail(r, RIG_BATCH_STORAGE, rc, "reading the lock");
	} else if (why) {
		r->outcome = RIG_BATCH_LOCK_LOST;
		r->lock_why = why;
		r->current_fencing_token = rc ? 0 : lock.fencing_token;
	}
	rig_lock_release(&lock);
	return (rc && rc != -RIG_NOT_FOUND) || why ? -1 : 0;
}

/* True when an op's row is structural (RIG_OP_STRUCTURAL). Final validation
 * (mapped joint layers exist, the deformation boundary, captured binds) reads
 * only the tree, the bindings and which layers exist; every committed shot
 * passed it, so a batch that changes none of those cannot fail it. */
static bool changes_structure(const struct rig_op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ops[i].failed && ops[i].type->flags & RIG_OP_STRUCTURAL)
			return true;
	return false;
}

/* Stores model (moved into the shot cache when the batch uses it) as the
 * shot's next version with its receipt. Returns 0, or -1 with r's outcome set. */
static int write_batch(struct rig_tx *conn, const struct rig_batch *b, struct rig_shot_model *model,
		       const char *receipt_id, const char *receipt, struct rig_batch_result *r)
{
	int rc = rig_shot_save(conn, model, model->version + 1);
	if (!rc)
		rc = rig_shot_set_version(conn, model->id, model->version, model->version + 1);
	if (!rc)
		rc = rig_receipt_insert(conn, receipt_id, model->seq, model->version + 1, receipt);
	if (rc) {
		fail(r, RIG_BATCH_STORAGE, rc, "writing the batch");
		return -1;
	}
	if (b->use_cache)
		rig_shot_cache_hold(b->app->shot_cache, model, model->version + 1);
	return 0;
}

/* The batch's ops on the stored shot: rig_batch_apply's work. With keep, the
 * shot the ops made is moved there (prepared) instead of written. */
static int run_batch(struct rig_tx *conn, const struct rig_batch *b, struct rig_batch_result *r,
		     struct rig_batch_prepared *keep)
{
	memset(r, 0, sizeof *r);
	r->outcome = RIG_BATCH_NO_MEMORY;
	struct rig_errs *errs = r->errs = rig_errs_new();
	struct rig_shot_model model;
	memset(&model, 0, sizeof model);
	struct rig_op_ctx ctx;
	int ctx_rc = rig_op_ctx_init(&ctx, &model, conn, errs);
	struct lock_collect locks = {b->principal, NULL, 0, 0};
	size_t n_ops = json_array_size(b->ops);
	struct rig_op *ops = NULL;
	if (!errs || ctx_rc)
		goto out;
	r->outcome = RIG_BATCH_INVALID;
	if (b->decode_errs)
		rig_errs_append(errs, b->decode_errs);
	ops = b->decoded ? b->decoded : rig_batch_decode(b->ops, NULL, errs);
	if (!ops)
		goto out;
	/* Ops that failed to decode are the client's to fix whatever the shot:
	 * they are answered before a missing shot, a version conflict or a lost
	 * lock, as the request's first problems. */
	bool undecodable = rig_errs_any(errs);
	int src = load_for_batch(&model, conn, b);
	if (src) {
		if (!undecodable || src != -RIG_NOT_FOUND)
			fail(r, RIG_BATCH_SHOT_UNREADABLE, src, "reading the shot");
		goto out;
	}
	r->from_version = model.version;
	if ((b->if_match && !rig_if_match_holds(b->if_match, model.version)) ||
	    (b->has_expected_version && model.version != b->expected_version)) {
		if (!undecodable)
			r->outcome = RIG_BATCH_VERSION_CONFLICT;
		goto out;
	}
	long long now_ms = rig_api__now_ms();
	if (b->has_fence && check_fence(conn, b, now_ms, r)) {
		if (undecodable && r->outcome == RIG_BATCH_LOCK_LOST)
			r->outcome = RIG_BATCH_INVALID;
		goto out;
	}
	src = rig_locks_live(conn, model.id, now_ms, collect_lock, &locks);
	if (src) {
		fail(r, RIG_BATCH_STORAGE, src, "reading locks");
		goto out;
	}
	ctx.locks = locks.items;
	ctx.n_locks = locks.n;
	/* Every independent error in one answer: an op that failed (to decode or
	 * to apply) left the model as it was, and the ops after it run against
	 * that state; the whole shot is validated even so. Nothing is written
	 * unless no error was found. */
	for (size_t i = 0; i < n_ops; i++)
		if (!ops[i].failed)
			rig_op_apply(&ctx, &ops[i]);
	if (changes_structure(ops, n_ops) && rig_ops_validate_shot(&ctx) != 0)
		attribute(errs, 0, &ctx, n_ops);
	/* Frames are checked on a shot that passed every other rule: evaluating
	 * one that breaks them would report consequences, not causes. */
	if (!rig_errs_any(errs) && b->check_frames.on)
		rig_frame_check_batch(
			&ctx, &b->check_frames,
			b->app && b->app->limits.frame_workers ? b->app->limits.frame_workers : 2);
	if (rig_errs_any(errs))
		goto out;
	char id[RIG_RECEIPT_ID_MAX];
	char *receipt = receipt_text(b, ops, n_ops, &ctx, model.version, id);
	if (!receipt) {
		r->outcome = RIG_BATCH_NO_MEMORY;
		goto out;
	}
	if (keep) {
		keep->seq = model.seq;
		keep->version = model.version;
		keep->locks = locks.items;
		keep->n_locks = locks.n;
		locks.items = NULL;
		keep->receipt = strdup(receipt);
		if (!keep->receipt) {
			free(receipt);
			r->outcome = RIG_BATCH_NO_MEMORY;
			goto out;
		}
		rig_strlcpy(keep->receipt_id, id, sizeof keep->receipt_id);
		keep->model = model;
		memset(&model, 0, sizeof model);
		keep->ready = true;
	} else if (!b->dry_run && write_batch(conn, b, &model, id, receipt, r) != 0) {
		free(receipt);
		goto out;
	}
	r->outcome = RIG_BATCH_APPLIED;
	r->receipt = receipt;
	if (!b->dry_run)
		rig_strlcpy(r->receipt_id, id, sizeof r->receipt_id);
	r->to_version = r->from_version + 1;
out:
	if (!b->decoded)
		rig_ops_free(ops, n_ops);
	free(locks.items);
	rig_shot_model_release(&model);
	rig_op_ctx_release(&ctx);
	return r->outcome == RIG_BATCH_APPLIED ? 0 : -1;
}

/* Same foreign locks, in the same order: what the ops were checked against. */
static bool same_locks(const struct lock_collect *now, const struct rig_batch_prepared *p)
{
	if (now->n != p->n_locks)
		return false;
	for (size_t i = 0; i < now->n; i++)
		if (strcmp(now->items[i].layer_id, p->locks[i].layer_id) != 0 ||
		    strcmp(now->items[i].lock_id, p->locks[i].lock_id) != 0)
			return false;
	return true;
}

/* Stores a prepared batch when the shot and its locks are as they were
 * prepared on (same row, same version, same other owners' locks, and the
 * batch's fence still holds); STALE otherwise. The ops' outcome is a function
 * of those alone, so the prepared model is what applying them again would make. */
static int apply_prepared(struct rig_tx *conn, const struct rig_batch *b,
			  struct rig_batch_result *r)
{
	struct rig_batch_prepared *p = b->prepared;
	struct lock_collect locks = {b->principal, NULL, 0, 0};
	memset(r, 0, sizeof *r);
	r->from_version = p->version;
	long long seq = -1, version = -1, now_ms = rig_api__now_ms();
	int rc = rig_shot_stamp(conn, b->shot_id, &seq, &version);
	if (rc) {
		fail(r, RIG_BATCH_SHOT_UNREADABLE, rc, "reading the shot");
		goto out;
	}
	r->outcome = RIG_BATCH_STALE;
	if (seq != p->seq || version != p->version)
		goto out;
	if (b->has_fence && check_fence(conn, b, now_ms, r))
		goto out;
	rc = rig_locks_live(conn, b->shot_id, now_ms, collect_lock, &locks);
	if (rc) {
		fail(r, RIG_BATCH_STORAGE, rc, "reading locks");
		goto out;
	}
	if (!same_locks(&locks, p))
		goto out;
	r->receipt = strdup(p->receipt);
	if (!r->receipt) {
		r->outcome = RIG_BATCH_NO_MEMORY;
		goto out;
	}
	if (!b->dry_run && write_batch(conn, b, &p->model, p->receipt_id, p->receipt, r) != 0)
		goto out;
	r->outcome = RIG_BATCH_APPLIED;
	if (!b->dry_run)
		rig_strlcpy(r->receipt_id, p->receipt_id, sizeof r->receipt_id);
	r->to_version = r->from_version + 1;
out:
	free(locks.items);
	return r->outcome == RIG_BATCH_APPLIED ? 0 : -1;
}

int rig_batch_apply(struct rig_tx *conn, const struct rig_batch *b, struct rig_batch_result *r)
{
	if (b->prepared && b->prepared->ready)
		return apply_prepared(conn, b, r);
	return run_batch(conn, b, r, NULL);
}

int rig_batch_prepare(struct rig_tx *conn, struct rig_batch *b, struct rig_batch_prepared *out,
		      struct rig_batch_result *r)
{
	memset(out, 0, sizeof *out);
	bool use_cache = b->use_cache;
	b->use_cache = false; /* the write path's cache is the write turn's alone */
	b->prepared = NULL;
	int rc = run_batch(conn, b, r, out);
	b->use_cache = use_cache;
	if (rc == 0)
		b->prepared = out;
	return rc;
}

void rig_batch_prepared_release(struct rig_batch_prepared *p)
{
	rig_shot_model_release(&p->model);
	free(p->receipt);
	free(p->locks);
	memset(p, 0, sizeof *p);
}

void rig_batch_result_release(struct rig_batch_result *r)
{
	rig_errs_free(r->errs);
	free(r->receipt);
	memset(r, 0, sizeof *r);
}

int rig_batch_read_fence(struct rig_batch *b, json_t *body, const struct rig_jr *jr)
{
	bool has_token = false;
	int rc = rig_jr_id(jr, body, "lockId", false, false, b->lock_id, NULL);
	rc |= rig_jr_int(jr, body, "fencingToken", false, 1, INT64_MAX, &b->fencing_token,
			 &has_token);
	b->has_fence = b->lock_id[0] != '\0';
	if (b->has_fence != has_token)
		rc = rig_jr_fail(jr, b->has_fence ? "fencingToken" : "lockId",
				 "lockId and fencingToken go together");
	return rc;
}
