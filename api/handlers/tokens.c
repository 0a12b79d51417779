/* API tokens (create, list, get, revoke) and the audit log, for global
 * admins. A token's secret is in the creating answer only: the database keeps
 * its hash, and the answer is never stored for Idempotency-Key replays. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/handlers/handlers.h"
#include "api/http/auth.h"
#include "api/http/paging.h"
#include "api/http/request.h"
#include "api/http/write.h"
#include "api/util/jsonread.h"
#include "api/util/stamp.h"
#include "api/util/textbuf.h"
#include "core/ids.h"
#include "storage/store.h"
#include "storage/tokens.h"

static json_t *token_json(const struct rig_token *t)
{
	json_t *scopes = rig_api__words_json(t->scopes);
	json_t *expires = json_null();
	if (t->has_expiry) {
		char at[RIG_TIMESTAMP_MAX];
		rig_api__iso8601(at, t->expires_unix * 1000);
		expires = json_string(at);
	}
	return json_pack("{s:s, s:s, s:o, s:s, s:s, s:o, s:b, s:o}", "tokenId", t->id, "name",
			 t->name, "scopes", scopes, "createdAt", t->created_at, "createdBy",
			 t->created_by, "expiresAt", expires, "revoked", t->revoked, "revokedAt",
			 t->revoked ? json_string(t->revoked_at) : json_null());
}

int rig_api__audit(struct rig_req *req, struct rig_tx *tx, const char *action, json_t *fields)
{
	json_t *record =
		json_pack("{s:s, s:s, s:o}", "action", action, "actor", req->actor, "tokenId",
			  req->token_id[0] ? json_string(req->token_id) : json_null());
	json_object_update(record, fields);
	json_decref(fields);
	char *text = json_dumps(record, JSON_COMPACT);
	json_decref(record);
	int rc = text ? rig_audit_insert(tx, action, req->actor, req->token_id, text, NULL)
		      : -RIG_INTERNAL;
	free(text);
	return rc;
}

void rig_h_token_create(struct rig_req *req, struct rig_resp *resp)
{
	/* A replay could not show the secret again (it is never stored), and a
	 * retry that created a second token would leave a live credential nobody
	 * holds: creation is not idempotent, and says so. */
	if (req->idem_key) {
		rig_problem(resp, RIG_INVALID_QUERY,
			    json_pack("{s:s}", "parameter", "Idempotency-Key"),
			    "POST /v1/tokens does not take an Idempotency-Key: a token's secret is"
			    " shown once and never stored; list tokens to find one a lost answer"
			    " created, and revoke it");
		return;
	}
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs)
		goto out_decref_body;
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"name", "scopes", "expiresInSeconds", NULL};
	const char *name = NULL;
	long long expires_in = 0;
	bool has_expiry = false;
	rig_jr_known(&jr, body, allowed);
	rig_jr_string(&jr, body, "name", true, RIG_TOKEN_NAME_MAX, &name);
	rig_jr_int(&jr, body, "expiresInSeconds", false, 1, RIG_TOKEN_MAX_EXPIRES_IN_SECONDS,
		   &expires_in, &has_expiry);
	json_t *list = json_object_get(body, "scopes");
	const char *items[RIG_TOKEN_MAX_SCOPES];
	size_t n = json_array_size(list);
	char scopes[RIG_TOKEN_SCOPES_MAX] = "";
	if (!json_is_array(list) || n < 1 || n > RIG_TOKEN_MAX_SCOPES) {
		rig_jr_fail(&jr, "scopes",
			    "scopes must list 1 to %d scopes such as \"read\" or"
			    " \"edit:p1\"",
			    RIG_TOKEN_MAX_SCOPES);
	} else {
		bool strings = true;
		for (size_t i = 0; i < n && strings; i++) {
			items[i] = json_string_value(json_array_get(list, i));
			if (!items[i]) {
				char key[32];
				snprintf(key, sizeof key, "scopes/%zu", i);
				rig_jr_fail(&jr, key, "a scope is a string");
				strings = false;
			}
		}
		size_t bad;
		char err[160];
		if (strings && rig_scopes_canonical(scopes, items, n, &bad, err, sizeof err)) {
			char key[32];
			snprintf(key, sizeof key, "scopes/%zu", bad);
			rig_jr_fail(&jr, key, "%s", err);
		}
	}
	if (name && !rig_utf8_is_clean(name))
		rig_jr_fail(&jr, "name", "name must be UTF-8 text without control characters");
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out_free_errs;
	}
	struct rig_token t;
	char secret[RIG_TOKEN_SECRET_MAX];
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_api__begin(req, tx);
	if (!rc)
		rc = rig_auth_token_create(
			tx, name, scopes, has_expiry, (long long)time(NULL) + expires_in,
			req->token_id[0] ? req->token_id : "auth-off", &t, secret);
	if (!rc)
		rc = rig_api__audit(req, tx, "token.create",
				    json_pack("{s:s, s:s, s:o}", "subjectTokenId", t.id, "name",
					      t.name, "scopes", rig_api__words_json(t.scopes)));
	if (!rc) {
		rc = rig_tx_commit(tx);
	}
	rig_tx_end(tx);
	if (rc) {
		rig_api__fail(resp, rc, "creating the token");
	} else {
		struct rig_token shown;
		struct rig_tx *rtx = rig_store_read(req->app->store);
		if (rig_token_get(rtx, t.id, &shown) == 0)
			t = shown; /* with its stored createdAt */
		rig_tx_end(rtx);
		json_t *out = token_json(&t);
		json_object_set_new(out, "secret", json_string(secret));
		rig_resp_json(resp, 201, out, NULL);
		rig_resp_header(resp, "Location", "/v1/tokens/%s", t.id);
		rig_resp_header(resp, "Cache-Control", "no-store");
	}
	explicit_bzero(secret, sizeof secret);
out_free_errs:
	rig_errs_free(errs);
out_decref_body:
	json_decref(body);
}

static int collect_token(void *ctx, const struct rig_token *t)
{
	struct rig_page *p = ctx;
	if (rig_page_take(p, t->seq))
		json_array_append_new(p->items, token_json(t));
	return 0;
}

void rig_h_token_list(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_page p;
	long long after;
	if (rig_api__page_start(req, resp, "tokens", "", &p, &after))
		return;
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_token_list(tx, after, p.limit + 1, collect_token, &p);
	rig_tx_end(tx);
	if (rc) {
		json_decref(p.items);
		rig_api__fail(resp, rc, "listing tokens");
		return;
	}
	rig_api__page_finish(req, resp, "tokens", "", &p, "tokens", NULL);
}

void rig_h_token_get(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_token t;
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_token_get(tx, req->params[0], &t);
	rig_tx_end(tx);
	if (rc)
		rig_api__fail(resp, rc, "token");
	else
		rig_resp_json(resp, 200, token_json(&t), NULL);
}

void rig_h_token_revoke(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_tx *tx = rig_store_read(req->app->store);
	struct rig_token t;
	int rc = rig_api__begin(req, tx);
	if (!rc)
		rc = rig_token_get(tx, req->params[0], &t);
	bool was_revoked = rc == 0 && t.revoked;
	if (!rc && !was_revoked)
		rc = rig_token_revoke(tx, t.id);
	if (!rc && !was_revoked)
		rc = rig_api__audit(req, tx, "token.revoke",
				    json_pack("{s:s, s:s, s:o}", "subjectTokenId", t.id, "name",
					      t.name, "scopes", rig_api__words_json(t.scopes)));
	if (!rc)
		rc = rig_token_get(tx, req->params[0], &t);
	if (rc) {
		rig_api__fail(resp, rc, "token");
	} else {
		rig_resp_json(resp, 200, token_json(&t), NULL);
		rig_api__commit(req, tx, resp);
	}
	rig_tx_end(tx);
}

static int collect_audit(void *ctx, long long seq, const char *at, const char *body)
{
	struct rig_page *p = ctx;
	if (!rig_page_take(p, seq))
		return 0;
	json_t *record = json_loads(body, 0, NULL);
	if (!record)
		return -RIG_INTERNAL;
	char id[32];
	snprintf(id, sizeof id, "a.%lld", seq);
	json_object_set_new(record, "auditId", json_string(id));
	json_object_set_new(record, "at", json_string(at));
	json_array_append_new(p->items, record);
	return 0;
}

void rig_h_audit_list(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_page p;
	long long after;
	if (rig_api__page_start(req, resp, "audit", "", &p, &after))
		return;
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_audit_list(tx, after, p.limit + 1, collect_audit, &p);
	rig_tx_end(tx);
	if (rc) {
		json_decref(p.items);
		rig_api__fail(resp, rc, "listing the audit log");
		return;
	}
	rig_api__page_finish(req, resp, "audit", "", &p, "records", NULL);
}
