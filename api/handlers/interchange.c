/* Import and export (issue 26; api/interchange/interchange.h).
 *
 * POST /v1/shots/{shotId}/import?format=…: the body is the document; the
 * request runs the batch {"ops": [{"op": "shot.import", "format", "document":
 * <body>, "idPrefix"?, "parentId"?}]} as POST /v1/shots/{id}/edits runs one
 * (?dryRun, If-Match, ?expectedVersion, ?lockId with ?fencingToken,
 * ?checkFrames, Idempotency-Key), so violations point into that batch
 * (/ops/0/document/… , with documentPointer the pointer inside the body).
 *
 * GET /v1/shots/{shotId}/export?format=…[&version=N][&report=true]: the
 * document of one stored version, bindings loaded; the report of what the
 * format could not carry is the body with ?report=true, and its count is
 * the X-Rigd-Export-Unsupported header of the document.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/batch.h"
#include "api/eval/evaluate.h"
#include "api/handlers/edit_answer.h"
#include "api/handlers/frames.h"
#include "api/handlers/handlers.h"
#include "api/http/request.h"
#include "api/interchange/interchange.h"
#include "api/util/textbuf.h"
#include "storage/shot_repo.h"

/* ?format as a row that imports (or exports); NULL with resp filled. */
static const struct rig_interchange_format *query_format(struct rig_req *req, struct rig_resp *resp,
							 bool importing)
{
	const char *name = rig_api__query(req, "format");
	const struct rig_interchange_format *f = rig_interchange_find(name);
	if (f && (importing ? f->import != NULL : f->export != NULL))
		return f;
	json_t *extra = json_pack("{s:s, s:[]}", "parameter", "format", "validFormats");
	for (size_t i = 0; extra && i < rig_interchange_n_formats; i++) {
		const struct rig_interchange_format *g = &rig_interchange_formats[i];
		if (importing ? g->import != NULL : g->export != NULL)
			json_array_append_new(json_object_get(extra, "validFormats"),
					      json_string(g->name));
	}
	if (!name)
		rig_problem(resp, RIG_INVALID_QUERY, extra, "query parameter 'format' is required");
	else
		rig_problem(resp, RIG_INVALID_QUERY, extra, "format '%.32s' cannot be %s", name,
			    importing ? "imported" : "exported");
	return NULL;
}

static int query_refused(struct rig_resp *resp, const char *parameter, const char *detail)
{
	rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", parameter), "%s",
		    detail);
	return -1;
}

/* The batch options the import route takes in its query. */
static int read_import_query(struct rig_req *req, struct rig_resp *resp, struct rig_batch *b)
{
	const char *v = rig_api__query(req, "expectedVersion");
	unsigned long long n;
	if (v) {
		if (rig_api__parse_count(&n, v) != 0 || n > INT64_MAX)
			return query_refused(resp, "expectedVersion",
					     "expectedVersion must be a non-negative integer");
		b->has_expected_version = true;
		b->expected_version = (long long)n;
	}
	const char *lock = rig_api__query(req, "lockId"),
		   *token = rig_api__query(req, "fencingToken");
	if (!lock != !token)
		return query_refused(resp, lock ? "fencingToken" : "lockId",
				     "lockId and fencingToken go together");
	if (lock) {
		if (strlen(lock) > RIG_ID_MAX || rig_api__parse_count(&n, token) != 0 || n == 0 ||
		    n > INT64_MAX)
			return query_refused(resp, "fencingToken",
					     "lockId must be an id and fencingToken a positive "
					     "integer");
		rig_strlcpy(b->lock_id, lock, sizeof b->lock_id);
		b->fencing_token = (long long)n;
		b->has_fence = true;
	}
	bool check = false;
	if (rig_api__query_bool(req, resp, "checkFrames", &check))
		return -1;
	b->check_frames.on = check;
	b->check_frames.code = RIG_INVALID_QUERY;
	return 0;
}

void rig_h_shot_import(struct rig_req *req, struct rig_resp *resp)
{
	const struct rig_interchange_format *f = query_format(req, resp, true);
	if (!f)
		return;
	struct rig_if_match if_match;
	if (rig_api__if_match(req, resp, &if_match))
		return;
	bool dry_run;
	if (rig_api__query_bool(req, resp, "dryRun", &dry_run))
		return;
	struct rig_batch b = {.shot_id = req->params[0],
			      .app = req->app,
			      .dry_run = dry_run,
			      .actor = req->actor,
			      .principal = req->principal,
			      .token_id = req->token_id,
			      .idem_key = req->idem_key};
	if (read_import_query(req, resp, &b))
		return;
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	if (rig_write_if_match(&b, &if_match, resp))
		goto out;
	json_t *op = json_pack("{s:s, s:s, s:O}", "op", "shot.import", "format", f->name,
			       "document", body);
	const char *prefix = rig_api__query(req, "idPrefix"),
		   *parent = rig_api__query(req, "parentId");
	if (op && prefix)
		json_object_set_new(op, "idPrefix", json_string(prefix));
	if (op && parent)
		json_object_set_new(op, "parentId", json_string(parent));
	/* the format's own choice in the query: which animation (Spine) */
	const char *animation = rig_api__query(req, "animation");
	if (op && animation)
		json_object_set_new(op, "options", json_pack("{s:s}", "animation", animation));
	rig_write_run_op(req, resp, &b, op);
out:
	json_decref(body);
}

/* Every binding's definition with its arrays, per model layer (NULL when
 * unbound or deleted); *out owned (free_defs). */
static int read_defs(void ***out, struct rig_tx *tx, const struct rig_shot_model *m)
{
	void **defs = calloc(m->n_layers ? m->n_layers : 1, sizeof *defs);
	if (!defs)
		return -RIG_MEMORY_BUSY;
	*out = defs;
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (l->deleted || !l->binding.type)
			continue;
		int rc = rig_shot_read_binding(&defs[i], tx, m, l);
		if (rc)
			return rc;
	}
	return 0;
}

static void free_defs(void **defs, const struct rig_shot_model *m)
{
	for (size_t i = 0; defs && i < m->n_layers; i++)
		if (defs[i])
			m->layers[i].binding.type->def_free(defs[i]);
	free(defs);
}

void rig_h_shot_export(struct rig_req *req, struct rig_resp *resp)
{
	const struct rig_interchange_format *f = query_format(req, resp, false);
	if (!f)
		return;
	bool report_only;
	if (rig_api__query_bool(req, resp, "report", &report_only))
		return;
	struct rig_eval ev;
	void **defs = NULL;
	struct rig_export out = {0};
	struct rig_errs *errs = NULL;
	struct rig_tx *tx = rig_store_read(req->app->store);
	if (rig_frames__open(&ev, tx, req, resp) != 0)
		goto done;
	int rc = read_defs(&defs, tx, ev.model);
	if (rc) {
		rig_api__fail(resp, rc, "loading the bindings");
		goto done;
	}
	if (!(errs = rig_api__errs_new(resp)))
		goto done;
	out.report = rig_export_report_new(f->name);
	struct rig_export_in in = {.model = ev.model, .view = &ev.view, .defs = defs};
	if (!out.report || f->export(&out, &in, errs) != 0) {
		if (rig_errs_any(errs))
			rig_problem_errs(resp, errs, 0);
		else
			rig_problem(resp, RIG_MEMORY_BUSY, NULL, "the server ran out of memory");
		goto done;
	}
	if (report_only) {
		json_object_set_new(out.report, "shotId", json_string(ev.model->id));
		json_object_set_new(out.report, "shotVersion", json_integer(ev.model->version));
		char *text = json_dumps(out.report, JSON_COMPACT);
		struct rig_buf b;
		rig_buf_init(&b);
		if (text)
			rig_buf_puts(&b, text);
		free(text);
		rig_resp_buf(resp, 200, &b, NULL);
		rig_buf_release(&b);
	} else {
		resp->status = 200;
		resp->content_type = out.content_type;
		resp->body = (char *)out.body;
		resp->body_len = out.len;
		out.body = NULL;
		rig_resp_header(resp, "X-Rigd-Export-Unsupported", "%zu",
				json_array_size(json_object_get(out.report, "unsupported")));
	}
	rig_api__etag(resp, ev.model->version);
done:
	free(out.body);
	json_decref(out.report);
	rig_errs_free(errs);
	if (ev.model)
		free_defs(defs, ev.model);
	else
		free(defs);
	rig_eval_release(&ev);
	rig_tx_end(tx);
}
