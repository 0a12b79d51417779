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
	/* The scope names the shot's life; the query, the ?version asked for
	 * and the page size. */
	const char *asked = rig_api__query(req, "version");
	char scope[RIG_ID_MAX + 24], query[48];
	snprintf(scope, sizeof scope, "%s#%lld", m->id, m->seq);
	snprintf(query, sizeof query, "%.20s|%zu", asked ? asked : "", limit);
	struct rig_pinned_page pp = {CONSTRAINT_PAGES, scope, query, "version and pageSize",
				     m->version};
	size_t from;
	if (rig_api__pinned_page_open(req, resp, &pp, m->n_constraints, &from))
		goto out;
	json_t *items = json_array();
	size_t end = from + limit < m->n_constraints ? from + limit : m->n_constraints;
	for (size_t i = from; i < end; i++)
		json_array_append_new(items, rig_api__constraint_json(&m->constraints[i]));
	json_t *body = json_pack("{s:s, s:I, s:o}", "shotId", m->id, "shotVersion",
				 (json_int_t)m->version, "constraints", items);
	rig_api__pinned_page_answer(req, resp, &pp, end < m->n_constraints, end, body);
out:
	rig_eval_release(&ev);
	rig_tx_end(tx);
}
