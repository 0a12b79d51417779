/* The edit pipeline of batch.h and the POST /v1/shots/{id}/edits handler. */
#include "batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "committer.h"
#include "jsonread.h"
#include "ops.h"
#include "locks.h"
#include "receipts.h"
#include "resources.h"
#include "shot_repo.h"

struct rig_shot_cache {
	bool valid;
	struct rig_shot_model model; /* mirrors the stored shot at model.version */
	bool pending;
	struct rig_shot_model next; /* written by a batch, awaiting its COMMIT */
};

struct rig_shot_cache *rig_shot_cache_new(void) { return calloc(1, sizeof(struct rig_shot_cache)); }

void rig_shot_cache_free(struct rig_shot_cache *cache)
{
	if (!cache)
		return;
	rig_shot_model_release(&cache->model);
	rig_shot_model_release(&cache->next);
	free(cache);
}

void rig_batch_settle(struct rig_app *app, bool committed)
{
	struct rig_shot_cache *c = app->shot_cache;
	if (!c || !c->pending)
		return;
	c->pending = false;
	if (committed) {
		rig_shot_model_release(&c->model);
		c->model = c->next;
		c->valid = true;
	} else {
		rig_shot_model_release(&c->next);
	}
	memset(&c->next, 0, sizeof c->next);
}

void rig_batch_forget(struct rig_app *app)
{
	struct rig_shot_cache *c = app->shot_cache;
	if (!c)
		return;
	rig_batch_settle(app, false);
	if (c->valid)
		rig_shot_model_release(&c->model);
	c->valid = false;
}

/* Skins at least this large leave the write-path cache without their arrays. */
#define CACHE_SKIN_MAX_VERTS 65536

/* Drops the heavy arrays of large skins from a settled model, as the loader
 * leaves them (joints only; rig_shot_load_skin reads them back on demand): the
 * cache keeps the tree and keys, not a copy of every stored mesh. */
static void shed_large_skins(struct rig_shot_model *m)
{
	for (size_t i = 0; i < m->n_layers; i++) {
		struct rig_model_layer *l = &m->layers[i];
		if (!l->skin_loaded || l->skin_n_verts < CACHE_SKIN_MAX_VERTS)
			continue;
		free(l->skin.source);
		free(l->skin.triangles);
		free(l->skin.weight_offsets);
		free(l->skin.influences);
		l->skin.source = NULL;
		l->skin.triangles = NULL;
		l->skin.weight_offsets = NULL;
		l->skin.influences = NULL;
		l->skin.n_verts = l->skin.n_tris = l->skin.n_weight_lists = 0;
		l->skin_loaded = false;
	}
}

/* Loads the shot into *out, from the cache when it still mirrors the stored
 * shot (same row, same version), else from the database. */
static int load_for_batch(struct rig_shot_model *out, sqlite3 *conn, const struct rig_batch *b)
{
	struct rig_shot_cache *c = b->use_cache ? b->app->shot_cache : NULL;
	if (c && c->pending) { /* a batch whose caller never settled: not committed */
		rig_shot_model_release(&c->next);
		c->pending = false;
	}
	if (c && c->valid && strcmp(c->model.id, b->shot_id) == 0) {
		long long seq = -1, version = -1;
		int rc = rig_shot_stamp(conn, b->shot_id, &seq, &version);
		c->valid = false;
		if (rc == 0 && seq == c->model.seq && version == c->model.version) {
			*out = c->model; /* taken: a failed batch must not leave it half-edited */
			memset(&c->model, 0, sizeof c->model);
			return 0;
		}
		rig_shot_model_release(&c->model);
	}
	return rig_shot_load(out, conn, b->shot_id);
}

/* Decodes every op, reporting every problem of every op. Returns the decoded
 * array (calloc'd) or NULL when any op is invalid. */
static struct rig_op *decode_all(json_t *ops, struct rig_bulk *bulk, struct rig_errs *errs)
{
	size_t n = json_array_size(ops);
	struct rig_op *decoded = calloc(n ? n : 1, sizeof *decoded);
	if (!decoded) {
		rig_errs_add(errs, RIG_MEMORY_BUSY, "the server ran out of memory decoding the ops");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		rig_op_decode(&decoded[i], json_array_get(ops, i), (long)i, bulk, errs);
	if (rig_errs_any(errs)) {
		for (size_t i = 0; i < n; i++)
			rig_op_release(&decoded[i]);
		free(decoded);
		return NULL;
	}
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
		for (size_t j = 0; mesh && e->joint_id[0] && j < mesh->skin.n_joints; j++) {
			if (strcmp(mesh->skin.joints[j].id, e->joint_id) != 0)
				continue;
			json_t *jv = json_object_get(ctx->last_op, mesh->skin.joints[j].layer_id);
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

static json_t *receipt_json(const struct rig_batch *b, const struct rig_op *ops, size_t n_ops,
			    const struct rig_op_ctx *ctx, long long from_version)
{
	char id[RIG_RECEIPT_ID_MAX], at[RIG_TIMESTAMP_MAX];
	rig_receipt_id(id, ctx->model->seq, from_version + 1);
	rig_api__iso8601(at, rig_api__now_ms());
	json_t *list = json_array();
	for (size_t i = 0; i < n_ops; i++)
		json_array_append_new(list, json_pack("{s:I, s:s, s:s}", "index", (json_int_t)i,
						      "op", ops[i].name, "layerId",
						      ops[i].layer_id));
	json_t *r = json_pack("{s:o, s:s, s:s, s:o, s:I, s:I, s:s, s:o, s:O}", "receiptId",
			      b->dry_run ? json_null() : json_string(id), "shotId", b->shot_id,
			      "actor", b->actor, "idempotencyKey",
			      b->idem_key ? json_string(b->idem_key) : json_null(), "fromVersion",
			      (json_int_t)from_version, "toVersion", (json_int_t)(from_version + 1),
			      "appliedAt", at, "ops", list, "changedLayers", ctx->changed);
	json_object_set_new(r, "tokenId",
			    b->token_id && b->token_id[0] ? json_string(b->token_id) : json_null());
	if (b->receipt_extra)
		json_object_update(r, b->receipt_extra);
	if (b->dry_run)
		json_object_set_new(r, "dryRun", json_true());
	return r;
}

static void version_conflict(struct rig_resp *resp, const struct rig_batch *b, long long current)
{
	rig_problem_status(resp, b->conflict_status, RIG_VERSION_CONFLICT,
			   json_pack("{s:s, s:I, s:I}", "shotId", b->shot_id, "expectedVersion",
				     (json_int_t)b->expected_version, "currentVersion",
				     (json_int_t)current),
			   "shot '%s' is at version %lld, not %lld", b->shot_id, current,
			   b->expected_version);
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
 * fencing_token. Returns 0 or -1 with resp filled. */
static int check_fence(sqlite3 *conn, const struct rig_batch *b, long long now_ms,
		       struct rig_resp *resp)
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
		rig_api__fail(resp, rc, "reading the lock");
	} else if (why) {
		rig_problem(resp, RIG_LOCK_LOST,
			    json_pack("{s:s, s:I, s:I}", "lockId", b->lock_id, "fencingToken",
				      (json_int_t)b->fencing_token, "currentFencingToken",
				      (json_int_t)(rc ? 0 : lock.fencing_token)),
			    "lock '%s' %s", b->lock_id, why);
	}
	rig_lock_release(&lock);
	return (rc && rc != -RIG_NOT_FOUND) || why ? -1 : 0;
}

/* True unless every op only renames, poses or keys layers. Final validation
 * (mapped joint layers exist, the deformation boundary, captured binds) reads
 * only the tree, the bindings and which layers exist; every committed shot
 * passed it, so a batch that changes none of those cannot fail it. */
static bool changes_structure(const struct rig_op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (ops[i].kind) {
		case RIG_OP_LAYER_RENAME:
		case RIG_OP_LAYER_POSE:
		case RIG_OP_LAYER_KEY_PUT:
		case RIG_OP_LAYER_KEY_DELETE:
			continue;
		default:
			return true;
		}
	}
	return false;
}

int rig_batch_apply(sqlite3 *conn, const struct rig_batch *b, struct rig_resp *resp,
		    json_t **out_receipt)
{
	*out_receipt = NULL;
	struct rig_errs *errs = rig_api__errs_new(resp);
	struct rig_shot_model model;
	memset(&model, 0, sizeof model);
	struct rig_op_ctx ctx = {&model, conn, errs, json_array(), json_object(), -1, NULL, 0};
	struct lock_collect locks = {b->principal, NULL, 0, 0};
	size_t n_ops = json_array_size(b->ops);
	struct rig_op *ops = NULL;
	int rc = -1;
	if (!errs)
		goto out;
	ops = b->decoded ? b->decoded : decode_all(b->ops, NULL, errs);
	if (!ops) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	int src = load_for_batch(&model, conn, b);
	if (src) {
		rig_api__fail_shot(resp, src, b->shot_id);
		goto out;
	}
	if (b->has_expected_version && model.version != b->expected_version) {
		version_conflict(resp, b, model.version);
		goto out;
	}
	long long now_ms = rig_api__now_ms();
	if (b->has_fence && check_fence(conn, b, now_ms, resp))
		goto out;
	src = rig_locks_live(conn, model.id, now_ms, collect_lock, &locks);
	if (src) {
		rig_api__fail(resp, src, "reading locks");
		goto out;
	}
	ctx.locks = locks.items;
	ctx.n_locks = locks.n;
	for (size_t i = 0; i < n_ops; i++) {
		if (rig_op_apply(&ctx, &ops[i]) != 0) {
			rig_problem_errs(resp, errs, 0);
			goto out;
		}
	}
	if (changes_structure(ops, n_ops) && rig_ops_validate_shot(&ctx) != 0) {
		attribute(errs, 0, &ctx, n_ops);
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	json_t *receipt = receipt_json(b, ops, n_ops, &ctx, model.version);
	if (!b->dry_run) {
		char *text = json_dumps(receipt, JSON_COMPACT | JSON_REAL_PRECISION(17));
		const char *id = json_string_value(json_object_get(receipt, "receiptId"));
		src = text ? rig_shot_save(conn, &model, model.version + 1) : -RIG_INTERNAL;
		if (!src)
			src = rig_shot_set_version(conn, model.id, model.version, model.version + 1);
		if (!src)
			src = rig_receipt_insert(conn, id, model.seq, model.version + 1, text);
		free(text);
		if (src) {
			json_decref(receipt);
			rig_api__fail(resp, src, "writing the batch");
			goto out;
		}
		if (b->use_cache && b->app->shot_cache) {
			struct rig_shot_cache *c = b->app->shot_cache;
			rig_shot_model_settle(&model, model.version + 1);
			shed_large_skins(&model);
			c->next = model;
			c->pending = true;
			memset(&model, 0, sizeof model);
		}
	}
	*out_receipt = receipt;
	rc = 0;
out:
	for (size_t i = 0; ops && !b->decoded && i < n_ops; i++)
		rig_op_release(&ops[i]);
	if (!b->decoded)
		free(ops);
	free(locks.items);
	rig_shot_model_release(&model);
	json_decref(ctx.changed);
	json_decref(ctx.last_op);
	rig_errs_free(errs);
	return rc;
}

int rig_batch_run(struct rig_req *req, sqlite3 *conn, const struct rig_batch *b,
		  struct rig_resp *resp, json_t **out_receipt)
{
	int rc = rig_api__begin(req, conn);
	if (rc) {
		rig_api__fail(resp, rc, "starting the batch");
		return -1;
	}
	rc = rig_batch_apply(conn, b, resp, out_receipt);
	if (rc || b->dry_run)
		rig_db_exec(conn, "ROLLBACK");
	return rc;
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

/* ---- POST /v1/shots/{shotId}/edits ---- */

void rig_h_edits(struct rig_req *req, struct rig_resp *resp)
{
	long long if_match = -1;
	bool has_if_match = false;
	if (rig_api__if_match(req, resp, &if_match, &has_if_match))
		return;
	const char *dry = rig_api__query(req, "dryRun");
	if (dry && strcmp(dry, "true") && strcmp(dry, "false")) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "dryRun"),
			    "dryRun must be true or false");
		return;
	}
	json_t *body = rig_api__parse_body_bulk(req, resp, RIG_BULK_EDITS);
	if (!body)
		return;
	static const char *const allowed[] = {"ops", "expectedVersion", "lockId", "fencingToken",
					      NULL};
	struct rig_batch b = {.shot_id = req->params[0],
			      .app = req->app,
			      .dry_run = dry && !strcmp(dry, "true"),
			      .actor = req->actor,
			      .principal = req->principal,
			      .token_id = req->token_id,
			      .idem_key = req->idem_key,
			      .conflict_status = 409};
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs)
		goto out;
	struct rig_jr jr = {errs, RIG_OP_INVALID, "", RIG_NO_INDEX};
	rig_jr_known(&jr, body, allowed);
	rig_jr_int(&jr, body, "expectedVersion", false, 0, INT64_MAX, &b.expected_version,
		   &b.has_expected_version);
	rig_batch_read_fence(&b, body, &jr);
	b.ops = json_object_get(body, "ops");
	if (json_is_array(b.ops) && json_array_size(b.ops) <= RIG_MAX_OPS_PER_BATCH) {
		/* Decoded here, before the write turn or the committer: a large skin
		 * never holds up other writers while it is parsed. The ops' own
		 * problems go beside the envelope's, in one answer. */
		b.decoded = decode_all(b.ops, req->bulk, errs);
	}
	if (!json_is_array(b.ops) || json_array_size(b.ops) == 0) {
		rig_jr_fail(&jr, "ops", "field 'ops' must be a non-empty array of ops");
	} else if (json_array_size(b.ops) > RIG_MAX_OPS_PER_BATCH) {
		rig_problem(resp, RIG_BATCH_TOO_LARGE,
			    json_pack("{s:I, s:I}", "opCount", (json_int_t)json_array_size(b.ops),
				      "maxOpsPerBatch", (json_int_t)RIG_MAX_OPS_PER_BATCH),
			    "the batch has %zu ops; the limit is %d", json_array_size(b.ops),
			    RIG_MAX_OPS_PER_BATCH);
		goto out;
	}
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	if (has_if_match) {
		if (b.has_expected_version && b.expected_version != if_match) {
			rig_problem(resp, RIG_PRECONDITION_INVALID,
				    json_pack("{s:s}", "parameter", "If-Match"),
				    "If-Match and expectedVersion disagree");
			goto out;
		}
		b.has_expected_version = true;
		b.expected_version = if_match;
		b.conflict_status = 412;
	}
	b.use_cache = !b.dry_run;
	if (!b.dry_run && req->app->committer) {
		rig_committer_run(req->app->committer, req, &b, resp);
		goto out;
	}
	sqlite3 *conn = rig_db_acquire(req->app->db);
	json_t *receipt = NULL;
	if (rig_batch_run(req, conn, &b, resp, &receipt) == 0) {
		long long to = json_integer_value(json_object_get(receipt, "toVersion"));
		rig_resp_json(resp, b.dry_run ? 200 : 201, receipt, NULL);
		rig_api__etag(resp, b.dry_run ? to - 1 : to);
		if (!b.dry_run)
			rig_batch_settle(req->app, rig_api__commit(req, conn, resp) == 0);
	}
	rig_db_release(req->app->db, conn);
out:
	for (size_t i = 0; b.decoded && i < json_array_size(b.ops); i++)
		rig_op_release(&b.decoded[i]);
	free(b.decoded);
	rig_errs_free(errs);
	json_decref(body);
}
