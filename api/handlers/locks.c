/* Layer locks: acquire, list, renew, release (SPEC §6). The lock check on
 * edits lives in the batch pipeline (api/edit/batch.c and the ops). */
#include <stdlib.h>
#include <string.h>

#include "api/handlers/handlers.h"
#include "api/http/auth.h"
#include "api/http/request.h"
#include "api/http/write.h"
#include "api/util/jsonread.h"
#include "api/util/stamp.h"
#include "core/ids.h"
#include "storage/locks.h"
#include "storage/resources.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

#define DEFAULT_TTL_SECONDS 60
#define MAX_TTL_SECONDS 3600
#define MAX_LOCK_LAYERS 1000

static json_t *lock_json(const struct rig_lock *l)
{
	char at[RIG_TIMESTAMP_MAX];
	rig_api__iso8601(at, l->expires_ms);
	json_t *ids = json_array();
	for (size_t i = 0; i < l->n_layers; i++)
		json_array_append_new(ids, json_string(l->layer_ids[i]));
	return json_pack("{s:s, s:s, s:s, s:o, s:I, s:s, s:I}", "lockId", l->id, "shotId",
			 l->shot_id, "owner", l->owner, "layerIds", ids, "ttlSeconds",
			 (json_int_t)l->ttl_seconds, "expiresAt", at, "fencingToken",
			 (json_int_t)l->fencing_token);
}

/* Reads ttlSeconds (1–3600, default 60) from an optional body. */
static int read_ttl(json_t *body, struct rig_errs *errs, long long *ttl)
{
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	*ttl = DEFAULT_TTL_SECONDS;
	return rig_jr_int(&jr, body, "ttlSeconds", false, 1, MAX_TTL_SECONDS, ttl, NULL);
}

struct conflict {
	const char *principal;
	const char *const *layers;
	size_t n;
	json_t *found; /* the first other owner's lock overlapping, or NULL */
	char layer[RIG_ID_MAX + 1];
};

static int find_conflict(void *ctx, const struct rig_lock *l)
{
	struct conflict *c = ctx;
	if (strcmp(l->owner_id, c->principal) == 0)
		return 0;
	for (size_t i = 0; i < l->n_layers; i++)
		for (size_t k = 0; k < c->n; k++)
			if (strcmp(l->layer_ids[i], c->layers[k]) == 0) {
				c->found = lock_json(l);
				rig_strlcpy(c->layer, c->layers[k], sizeof c->layer);
				return 1;
			}
	return 0;
}

void rig_h_lock_acquire(struct rig_req *req, struct rig_resp *resp)
{
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs)
		goto out_decref_body;
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"layerIds", "ttlSeconds", NULL};
	rig_jr_known(&jr, body, allowed);
	long long ttl;
	read_ttl(body, errs, &ttl);
	json_t *ids = json_object_get(body, "layerIds");
	size_t n = json_array_size(ids);
	const char **layers = calloc(n ? n : 1, sizeof *layers);
	size_t *positions = calloc(n ? n : 1, sizeof *positions); /* in the request */
	struct rig_shot_model m;
	memset(&m, 0, sizeof m);
	struct rig_tx *tx = NULL;
	struct rig_lock lock;
	memset(&lock, 0, sizeof lock);
	if (!layers || !positions) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		goto out;
	}
	if (!json_is_array(ids) || n < 1 || n > MAX_LOCK_LAYERS)
		rig_jr_fail(&jr, "layerIds", "layerIds must list 1 to %d layer ids",
			    MAX_LOCK_LAYERS);
	size_t n_unique = 0;
	for (size_t i = 0; i < n && json_is_array(ids); i++) {
		json_t *v = json_array_get(ids, i);
		if (!json_is_string(v) || !rig_id_is_valid(json_string_value(v))) {
			char key[32];
			snprintf(key, sizeof key, "layerIds/%zu", i);
			rig_jr_fail(&jr, key,
				    "layer ids are 1-64 characters of [A-Za-z0-9_.:-] other"
				    " than '.' and '..'");
			continue;
		}
		const char *id = json_string_value(v);
		bool seen = false;
		for (size_t k = 0; k < n_unique && !seen; k++)
			seen = strcmp(layers[k], id) == 0;
		if (!seen) { /* a repeated id locks the layer once */
			positions[n_unique] = i;
			layers[n_unique++] = id;
		}
	}
	n = n_unique;
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	tx = rig_store_read(req->app->store);
	int rc = rig_api__begin(req, tx);
	if (!rc)
		rc = rig_shot_load(&m, tx, req->params[0]);
	if (rc) {
		rig_api__fail_shot(resp, rc, req->params[0]);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (rig_shot_model_find(&m, layers[i]))
			continue;
		struct rig_err *e =
			rig_errs_add(errs, RIG_LAYER_NOT_FOUND,
				     "layer '%s' does not exist in the shot", layers[i]);
		snprintf(e->pointer, sizeof e->pointer, "/layerIds/%zu", positions[i]);
		rig_strlcpy(e->layer_id, layers[i], sizeof e->layer_id);
	}
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	long long now = rig_api__now_ms();
	struct conflict c = {req->principal, layers, n, NULL, ""};
	rc = rig_locks_live(tx, m.id, now, find_conflict, &c);
	if (rc == 1) {
		json_t *extra =
			json_pack("{s:o, s:s}", "conflictingLock", c.found, "layerId", c.layer);
		json_object_set(extra, "lockId", json_object_get(c.found, "lockId"));
		json_object_set(extra, "owner", json_object_get(c.found, "owner"));
		rig_problem(resp, RIG_LOCK_CONFLICT, extra,
			    "layer '%s' is locked by '%.60s' (lock '%s')", c.layer,
			    json_string_value(json_object_get(c.found, "owner")),
			    json_string_value(json_object_get(c.found, "lockId")));
		goto out;
	}
	if (rc) {
		rig_api__fail(resp, rc, "reading locks");
		goto out;
	}
	rig_api__new_id(lock.id, "k-");
	rig_strlcpy(lock.shot_id, m.id, sizeof lock.shot_id);
	rig_strlcpy(lock.owner, req->actor, sizeof lock.owner);
	rig_strlcpy(lock.owner_id, req->principal, sizeof lock.owner_id);
	lock.ttl_seconds = ttl;
	lock.expires_ms = now + 1000 * ttl;
	lock.layer_ids = (char **)layers;
	lock.n_layers = n;
	rc = rig_lock_insert(tx, &lock);
	if (rc) {
		rig_api__fail(resp, rc, "acquiring the lock");
		goto out;
	}
	rig_resp_json(resp, 201, lock_json(&lock), NULL);
	rig_resp_header(resp, "Location", "/v1/locks/%s", lock.id);
	rig_api__commit(req, tx, resp);
out:
	if (tx)
		rig_tx_end(tx);
	rig_shot_model_release(&m);
	free(layers);
	free(positions);
	rig_errs_free(errs);
out_decref_body:
	json_decref(body);
}

static int collect(void *ctx, const struct rig_lock *l)
{
	json_array_append_new(ctx, lock_json(l));
	return 0;
}

void rig_h_lock_list(struct rig_req *req, struct rig_resp *resp)
{
	json_t *list = json_array();
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_shot_version(tx, req->params[0], &(long long){0});
	if (!rc)
		rc = rig_locks_live(tx, req->params[0], rig_api__now_ms(), collect, list);
	rig_tx_end(tx);
	if (rc) {
		json_decref(list);
		rig_api__fail_shot(resp, rc, req->params[0]);
		return;
	}
	rig_resp_json(resp, 200, json_pack("{s:s, s:o}", "shotId", req->params[0], "locks", list),
		      NULL);
}

/* Loads the lock for its owner: 404 unknown, 403 another owner, 423 expired. */
static int owned_lock(struct rig_req *req, struct rig_resp *resp, struct rig_tx *tx,
		      struct rig_lock *out)
{
	int rc = rig_lock_get(tx, req->params[0], out);
	if (rc) {
		rig_api__fail(resp, rc, "lock");
		return -1;
	}
	if (strcmp(out->owner_id, req->principal) != 0) {
		rig_problem(resp, RIG_LOCK_NOT_OWNER,
			    json_pack("{s:s, s:s}", "lockId", out->id, "owner", out->owner),
			    "lock '%s' is owned by '%.60s'", out->id, out->owner);
		return -1;
	}
	if (out->expires_ms <= rig_api__now_ms()) {
		rig_problem(resp, RIG_LOCK_LOST, json_pack("{s:s}", "lockId", out->id),
			    "lock '%s' has expired", out->id);
		return -1;
	}
	return 0;
}

void rig_h_lock_renew(struct rig_req *req, struct rig_resp *resp)
{
	json_t *body = req->body_len ? rig_api__parse_body(req, resp) : json_object();
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs) {
		json_decref(body);
		return;
	}
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"ttlSeconds", NULL};
	rig_jr_known(&jr, body, allowed);
	long long ttl;
	read_ttl(body, errs, &ttl);
	bool keep_ttl = !json_object_get(body, "ttlSeconds"); /* renew for the same lease */
	json_decref(body);
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out_free_errs;
	}
	struct rig_lock lock;
	memset(&lock, 0, sizeof lock);
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_api__begin(req, tx);
	if (rc)
		rig_api__fail(resp, rc, "lock");
	else if (owned_lock(req, resp, tx, &lock) == 0) {
		if (!keep_ttl)
			lock.ttl_seconds = ttl;
		ttl = lock.ttl_seconds;
		lock.expires_ms = rig_api__now_ms() + 1000 * ttl;
		rc = rig_lock_renew(tx, lock.id, ttl, lock.expires_ms);
		if (rc) {
			rig_api__fail(resp, rc, "renewing the lock");
		} else {
			rig_resp_json(resp, 200, lock_json(&lock), NULL);
			rig_api__commit(req, tx, resp);
		}
	}
	rig_lock_release(&lock);
	rig_tx_end(tx);
out_free_errs:
	rig_errs_free(errs);
}

/* An admin of the lock's project breaking another identity's lock: the lock
 * goes and an audit record keeps who broke whose lock on which layers. */
static int break_lock(struct rig_req *req, struct rig_tx *tx, const struct rig_lock *lock)
{
	json_t *layers = json_array();
	for (size_t i = 0; i < lock->n_layers; i++)
		json_array_append_new(layers, json_string(lock->layer_ids[i]));
	int rc = rig_lock_delete(tx, lock->id);
	if (!rc)
		rc = rig_api__audit(req, tx, "lock.break",
				    json_pack("{s:s, s:s, s:s, s:s, s:o, s:I}", "lockId", lock->id,
					      "shotId", lock->shot_id, "lockOwner", lock->owner,
					      "lockOwnerId", lock->owner_id, "layerIds", layers,
					      "fencingToken", (json_int_t)lock->fencing_token));
	else
		json_decref(layers);
	return rc;
}

void rig_h_lock_release(struct rig_req *req, struct rig_resp *resp)
{
	bool forced;
	if (rig_api__query_bool(req, resp, "force", &forced))
		return;
	struct rig_lock lock;
	memset(&lock, 0, sizeof lock);
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_api__begin(req, tx);
	bool mine = false, broken = false;
	if (rc) {
		rig_api__fail(resp, rc, "lock");
	} else if ((rc = rig_lock_get(tx, req->params[0], &lock)) != 0) {
		rig_api__fail(resp, rc, "lock");
	} else if (!(mine = strcmp(lock.owner_id, req->principal) == 0) &&
		   !(forced && req->level >= RIG_SCOPE_ADMIN)) {
		rig_problem(resp, RIG_LOCK_NOT_OWNER,
			    json_pack("{s:s, s:s}", "lockId", lock.id, "owner", lock.owner),
			    "lock '%s' is owned by '%.60s'%s", lock.id, lock.owner,
			    forced ? "; only an admin of its project may break it"
				   : "; an admin of its project may break it with ?force=true");
	} else if ((rc = mine ? rig_lock_delete(tx, lock.id) : break_lock(req, tx, &lock)) != 0) {
		rig_api__fail(resp, rc, "releasing the lock");
	} else {
		broken = !mine;
		rig_resp_json(resp, 200,
			      json_pack("{s:s, s:b, s:b}", "lockId", lock.id, "released", 1,
					"broken", broken),
			      NULL);
		rig_api__commit(req, tx, resp);
	}
	rig_lock_release(&lock);
	rig_tx_end(tx);
}
