/* Receipts: one by id, and a shot's receipts newest first (paged). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/handlers/handlers.h"
#include "api/http/paging.h"
#include "api/http/request.h"
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
