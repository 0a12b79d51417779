/* GET /v1/shots/{shotId}/constraints: the shot's constraints, ordered by id,
 * paged, at ?version when given (docs/history.md). A page token (api/http/
 * paging.c signs it) holds the shot, its seq, the ?version asked for, the shot
 * version it was issued at and the offset of the next constraint; the next page
 * reads that version, so paging survives later edits while the version is
 * retained (after: 410 PAGE_TOKEN_STALE). A forged token, or one of another
 * shot or ?version, is 400 PAGE_TOKEN_INVALID.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/handlers/frames.h"
#include "api/handlers/handlers.h"
#include "api/http/paging.h"
#include "api/http/problem.h"
#include "api/http/request.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

#define CONSTRAINT_PAGES "constraints"

static json_t *keyable_json(const struct rig_model_constraint *mc, int ch)
{
	const struct rig_key_list *keys = &mc->keys[ch];
	if (keys->count == 0)
		return json_real(mc->c.statics[ch]);
	json_t *list = json_array();
	for (size_t i = 0; i < keys->count; i++)
		json_array_append_new(list, rig_api__key_json(&keys->items[i]));
	return list;
}

static json_t *constraint_json(const struct rig_model_constraint *mc)
{
	const struct rig_constraint *c = &mc->c;
	json_t *chain = json_array();
	for (size_t i = 0; i < c->n_chain; i++)
		json_array_append_new(chain, json_string(c->chain_ids[i]));
	return json_pack(
		"{s:s, s:s, s:o, s:s, s:o, s:b, s:f, s:o, s:o, s:b, s:b, s:I}", "constraintId",
		c->id, "kind", "ik", "chain", chain, "target", c->target_id, "pole",
		c->pole_id[0] ? json_string(c->pole_id) : json_null(), "bendPositive", c->bend >= 0,
		"tipLength", c->tip_length, "mix", keyable_json(mc, RIG_CC_MIX), "softness",
		keyable_json(mc, RIG_CC_SOFTNESS), "stretch", c->stretch, "compress", c->compress,
		"order", (json_int_t)c->order);
}

/* The offset a pageToken continues from (0 without one); -1 after answering. */
static long long page_offset(struct rig_req *req, struct rig_resp *resp, const char *scope,
			     long long version, size_t n)
{
	const char *token = rig_api__query(req, "pageToken");
	if (!token)
		return 0;
	json_t *t = rig_api__token_open(req->app, token);
	const char *k = t ? json_string_value(json_object_get(t, "k")) : NULL;
	const char *s = t ? json_string_value(json_object_get(t, "s")) : NULL;
	json_t *v = t ? json_object_get(t, "v") : NULL, *o = t ? json_object_get(t, "o") : NULL;
	long long at = -1;
	if (!k || !s || strcmp(k, CONSTRAINT_PAGES) || strcmp(s, scope) || !json_is_integer(v) ||
	    !json_is_integer(o) || json_integer_value(o) < 0) {
		rig_problem(resp, RIG_PAGE_TOKEN_INVALID,
			    json_pack("{s:s}", "parameter", "pageToken"),
			    "pageToken was not issued for this list");
	} else if (json_integer_value(v) != version) {
		rig_problem(resp, RIG_PAGE_TOKEN_STALE,
			    json_pack("{s:I, s:I}", "tokenVersion", json_integer_value(v),
				      "shotVersion", (json_int_t)version),
			    "the shot changed since this page token was issued (version %lld, now "
			    "%lld)",
			    (long long)json_integer_value(v), version);
	} else if ((json_int_t)n < json_integer_value(o)) {
		rig_problem(resp, RIG_PAGE_TOKEN_INVALID,
			    json_pack("{s:s}", "parameter", "pageToken"),
			    "pageToken was not issued for this list");
	} else {
		at = json_integer_value(o);
	}
	json_decref(t);
	return at;
}

void rig_h_constraint_list(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_eval ev;
	struct rig_tx *tx = rig_store_read(req->app->store);
	size_t limit;
	/* A page token reads the version it was issued at (while retained), like
	 * mesh-data's; otherwise ?version, or the head. */
	if (rig_frames__open_at(&ev, tx, req, resp,
				rig_frames__pinned_version(req, CONSTRAINT_PAGES)) != 0 ||
	    rig_api__page_size(req, resp, &limit) || rig_frames__etag(req, resp, ev.model->version))
		goto out;
	const struct rig_shot_model *m = ev.model;
	/* The scope names the shot's life and the ?version asked for, so a token
	 * is refused on another shot or with another ?version. */
	const char *asked = rig_api__query(req, "version");
	char scope[RIG_ID_MAX + 48];
	snprintf(scope, sizeof scope, "%s#%lld#%.20s", m->id, m->seq, asked ? asked : "");
	long long from = page_offset(req, resp, scope, m->version, m->n_constraints);
	if (from < 0)
		goto out;
	json_t *items = json_array();
	size_t end =
		(size_t)from + limit < m->n_constraints ? (size_t)from + limit : m->n_constraints;
	for (size_t i = (size_t)from; i < end; i++)
		json_array_append_new(items, constraint_json(&m->constraints[i]));
	json_t *body = json_pack("{s:s, s:I, s:o}", "shotId", m->id, "shotVersion",
				 (json_int_t)m->version, "constraints", items);
	if (end < m->n_constraints) {
		json_t *t = json_pack("{s:s, s:s, s:I, s:I}", "k", CONSTRAINT_PAGES, "s", scope,
				      "v", (json_int_t)m->version, "o", (json_int_t)end);
		char *token = rig_api__token_make(req->app, t);
		json_decref(t);
		if (token)
			json_object_set_new(body, "nextPageToken", json_string(token));
		free(token);
	}
	rig_resp_json(resp, 200, body, NULL);
out:
	rig_eval_release(&ev);
	rig_tx_end(tx);
}
