/* Receipts: one by id, and a shot's receipts newest first (paged). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "receipts.h"
#include "resources.h"

void rig_h_receipt_get(struct rig_req *req, struct rig_resp *resp)
{
	char *body = NULL;
	sqlite3 *conn = rig_db_acquire(req->app->db);
	int rc = rig_receipt_get(conn, req->params[0], &body);
	rig_db_release(req->app->db, conn);
	if (rc) {
		rig_api__fail(resp, rc, "receipt");
		return;
	}
	resp->status = 200;
	resp->content_type = "application/json";
	resp->body = body;
	resp->body_len = strlen(body);
}

struct receipt_page {
	json_t *items;
	long long last_seq;
};

static int collect(void *ctx, long long seq, const char *body)
{
	struct receipt_page *p = ctx;
	p->last_seq = seq;
	json_t *r = json_loads(body, 0, NULL);
	if (!r)
		return -RIG_INTERNAL;
	json_array_append_new(p->items, r);
	return 0;
}

static int shot_exists(void *ctx, const struct rig_shot_row *row) { return 0; }

void rig_h_receipt_list(struct rig_req *req, struct rig_resp *resp)
{
	size_t limit;
	if (rig_api__page_size(req, resp, &limit))
		return;
	long long before = LLONG_MAX;
	const char *token = rig_api__query(req, "pageToken");
	if (token) {
		json_t *t = rig_api__token_open(req->app, token);
		const char *k = t ? json_string_value(json_object_get(t, "k")) : NULL;
		const char *s = t ? json_string_value(json_object_get(t, "s")) : NULL;
		bool ok = k && s && !strcmp(k, "receipts") && !strcmp(s, req->params[0]) &&
			  json_is_integer(json_object_get(t, "c"));
		if (ok)
			before = json_integer_value(json_object_get(t, "c"));
		json_decref(t);
		if (!ok) {
			rig_problem(resp, RIG_PAGE_TOKEN_INVALID,
				    json_pack("{s:s}", "parameter", "pageToken"),
				    "pageToken was not issued for this list");
			return;
		}
	}
	struct receipt_page p = {json_array(), 0};
	sqlite3 *conn = rig_db_acquire(req->app->db);
	int rc = rig_shot_get(conn, req->params[0], shot_exists, NULL);
	if (!rc)
		rc = rig_receipt_list(conn, req->params[0], before, limit, collect, &p);
	rig_db_release(req->app->db, conn);
	if (rc) {
		json_decref(p.items);
		rig_api__fail(resp, rc, "shot");
		return;
	}
	json_t *body = json_pack("{s:s, s:o}", "shotId", req->params[0], "receipts", p.items);
	if (json_array_size(p.items) == limit) {
		json_t *t = json_pack("{s:s, s:s, s:I}", "k", "receipts", "s", req->params[0], "c",
				      (json_int_t)p.last_seq);
		char *next = rig_api__token_make(req->app, t);
		json_decref(t);
		if (next)
			json_object_set_new(body, "nextPageToken", json_string(next));
		free(next);
	}
	rig_resp_json(resp, 200, body, NULL);
}
