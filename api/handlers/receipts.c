/* Receipts: one by id, and a shot's receipts newest first (paged). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/batch.h"
#include "api/edit/committer.h"
#include "api/edit/frame_check.h"
#include "api/handlers/edit_answer.h"
#include "api/handlers/handlers.h"
#include "api/http/paging.h"
#include "api/http/request.h"
#include "api/util/jsonread.h"
#include "storage/receipts.h"
#include "storage/resources.h"
#include "storage/store.h"

#define RECEIPT_PAGES "receipts-by-version" /* the page-token kind */

void rig_h_receipt_get(struct rig_req *req, struct rig_resp *resp)
{
	char *body = NULL;
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_receipt_get(tx, req->params[0], &body);
	rig_tx_end(tx);
	if (rc) {
		rig_api__fail(resp, rc, "receipt");
		return;
	}
	resp->status = 200;
	resp->content_type = "application/json";
	resp->body = body;
	resp->body_len = strlen(body);
}

static int collect(void *ctx, long long to_version, const char *body)
{
	struct rig_page *p = ctx;
	if (!rig_page_take(p, to_version))
		return 0;
	json_t *r = json_loads(body, 0, NULL);
	if (!r)
		return -RIG_INTERNAL;
	json_array_append_new(p->items, r);
	return 0;
}

void rig_h_receipt_list(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_tx *tx = rig_store_read(req->app->store);
	long long shot_seq = 0;
	int rc = rig_shot_stamp(tx, req->params[0], &shot_seq, &(long long){0});
	if (rc) {
		rig_tx_end(tx);
		rig_api__fail_shot(resp, rc, req->params[0]);
		return;
	}
	/* Tokens are scoped to the shot's seq, not only its id: a cursor (a
	 * toVersion) of a deleted shot must not page a re-created one. Cursors
	 * are toVersions since schema version 7, under a new kind, so a token
	 * minted before (a global row number) is refused too. */
	char scope[RIG_ID_MAX + 24];
	snprintf(scope, sizeof scope, "%s#%lld", req->params[0], shot_seq);
	struct rig_page p;
	long long cursor;
	if (rig_api__page_start(req, resp, RECEIPT_PAGES, scope, &p, &cursor)) {
		rig_tx_end(tx);
		return;
	}
	/* newest first: continue below the cursor */
	rc = rig_receipt_list(tx, shot_seq, cursor ? cursor : LLONG_MAX, p.limit + 1, collect, &p);
	rig_tx_end(tx);
	if (rc) {
		json_decref(p.items);
		rig_api__fail_shot(resp, rc, req->params[0]);
		return;
	}
	rig_api__page_finish(req, resp, RECEIPT_PAGES, scope, &p, "receipts",
			     json_pack("{s:s}", "shotId", req->params[0]));
}

/* The shot a receipt belongs to, copied into shot_id. Returns 0, or answers
 * resp (404 for an unknown receipt) and returns -1. */
static int receipt_shot(struct rig_req *req, struct rig_resp *resp, char shot_id[RIG_ID_MAX + 1])
{
	char *text = NULL;
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_receipt_get(tx, req->params[0], &text);
	rig_tx_end(tx);
	if (rc == -RIG_NOT_FOUND) {
		rig_problem(resp, RIG_NOT_FOUND, json_pack("{s:s}", "receiptId", req->params[0]),
			    "receipt '%s' does not exist", req->params[0]);
		return -1;
	}
	if (rc) {
		rig_api__fail(resp, rc, "reading the receipt");
		return -1;
	}
	json_t *r = json_loads(text, 0, NULL);
	free(text);
	const char *shot = json_string_value(json_object_get(r, "shotId"));
	if (shot)
		rig_strlcpy(shot_id, shot, RIG_ID_MAX + 1);
	json_decref(r);
	if (!shot)
		rig_api__fail(resp, -RIG_INTERNAL, "reading the receipt");
	return shot ? 0 : -1;
}

/* POST /v1/receipts/{receiptId}/revert: a batch of one receipt.revert op on
 * the receipt's shot (ops_revert.c), run as POST /v1/shots/{id}/edits runs
 * one: ?dryRun, If-Match, expectedVersion, lockId/fencingToken, checkFrames
 * and the Idempotency-Key mean what they mean there. */
void rig_h_receipt_revert(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_if_match if_match;
	if (rig_api__if_match(req, resp, &if_match))
		return;
	bool dry_run;
	if (rig_api__query_bool(req, resp, "dryRun", &dry_run))
		return;
	json_t *body = req->body_len ? rig_api__parse_body(req, resp) : json_object();
	if (!body)
		return;
	char shot_id[RIG_ID_MAX + 1];
	struct rig_batch b = {.shot_id = shot_id,
			      .app = req->app,
			      .dry_run = dry_run,
			      .actor = req->actor,
			      .principal = req->principal,
			      .token_id = req->token_id,
			      .idem_key = req->idem_key};
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs)
		goto out;
	static const char *const allowed[] = {"expectedVersion", "force",       "lockId",
					      "fencingToken",    "checkFrames", NULL};
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	bool force = false;
	if (!json_is_object(body)) {
		rig_jr_fail(&jr, "", "the body must be a JSON object");
	} else {
		rig_jr_known(&jr, body, allowed);
		rig_jr_int(&jr, body, "expectedVersion", false, 0, INT64_MAX, &b.expected_version,
			   &b.has_expected_version);
		rig_jr_bool(&jr, body, "force", false, &force);
		rig_batch_read_fence(&b, body, &jr);
		rig_check_frames_read(&b.check_frames, body, &jr);
	}
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	if (rig_write_if_match(&b, &if_match, resp))
		goto out;
	if (receipt_shot(req, resp, shot_id))
		goto out;
	rig_write_run_op(req, resp, &b,
			 json_pack("{s:s, s:s, s:b}", "op", "receipt.revert", "receiptId",
				   req->params[0], "force", force));
out:
	rig_errs_free(errs);
	json_decref(body);
}
