/* Shots: create, list (paged, oldest first), delete, and reading one with its
 * layer tree, or one layer with its keys. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/handlers/handlers.h"
#include "api/http/auth.h"
#include "api/http/paging.h"
#include "api/http/request.h"
#include "api/http/write.h"
#include "api/util/jsonread.h"
#include "api/util/stamp.h"
#include "core/ids.h"
#include "core/rig_limits.h"
#include "storage/resources.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

/* A rig_project_get callback for when only the project's existence matters. */
static int project_exists(void *ctx, const struct rig_project_row *row)
{
	(void)ctx;
	(void)row;
	return 0;
}

static json_t *shot_json(const struct rig_shot_row *row)
{
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:I, s:s}", "shotId", row->id, "projectId",
			 row->project_id, "name", row->name, "fps", row->fps, "frameStart",
			 row->frame_start, "frameEnd", row->frame_end, "version",
			 (json_int_t)row->version, "createdAt", row->created_at);
}

static int collect_shot(void *ctx, const struct rig_shot_row *row)
{
	struct rig_page *p = ctx;
	if (rig_page_take(p, row->seq))
		json_array_append_new(p->items, shot_json(row));
	return 0;
}

static int store_shot(void *ctx, const struct rig_shot_row *row)
{
	*(json_t **)ctx = shot_json(row);
	return 0;
}

void rig_h_shot_create(struct rig_req *req, struct rig_resp *resp)
{
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs)
		goto out;
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"shotId",     "name",     "fps",
					      "frameStart", "frameEnd", NULL};
	struct rig_shot_row row = {.fps = 24, .frame_start = 0, .frame_end = 100};
	rig_strlcpy(row.project_id, req->params[0], sizeof row.project_id);
	rig_jr_known(&jr, body, allowed);
	rig_jr_id(&jr, body, "shotId", false, false, row.id, NULL);
	rig_jr_string(&jr, body, "name", true, RIG_MAX_NAME_BYTES, &row.name);
	if (rig_jr_number(&jr, body, "fps", false, &row.fps, NULL) == 0 &&
	    !(row.fps > 0 && row.fps <= 1000))
		rig_jr_fail(&jr, "fps", "fps must be in (0, 1000]");
	const char *const frame_fields[2] = {"frameStart", "frameEnd"};
	double *frames[2] = {&row.frame_start, &row.frame_end};
	for (int i = 0; i < 2; i++)
		if (rig_jr_number(&jr, body, frame_fields[i], false, frames[i], NULL) == 0 &&
		    !(fabs(*frames[i]) <= RIG_MAX_ABS_FRAME))
			rig_jr_fail(&jr, frame_fields[i], "%s must be within [-%d, %d]",
				    frame_fields[i], RIG_MAX_ABS_FRAME, RIG_MAX_ABS_FRAME);
	if (!rig_errs_any(errs) && !(row.frame_end >= row.frame_start))
		rig_jr_fail(&jr, "frameEnd", "frameEnd must not be before frameStart");
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	if (!row.id[0])
		rig_api__new_id(row.id, "s-");
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_api__begin(req, tx);
	if (!rc)
		rc = rig_shot_insert(tx, &row);
	json_t *created = NULL;
	if (!rc)
		rc = rig_shot_get(tx, row.id, store_shot, &created);
	if (rc == -RIG_LAYER_EXISTS) {
		rig_problem(resp, RIG_SHOT_EXISTS,
			    json_pack("{s:s, s:s}", "pointer", "/shotId", "shotId", row.id),
			    "shot id '%s' is already in use", row.id);
	} else if (rc == -RIG_NOT_FOUND) {
		rig_problem(resp, RIG_NOT_FOUND, json_pack("{s:s}", "projectId", row.project_id),
			    "project '%s' does not exist", row.project_id);
	} else if (rc) {
		rig_api__fail(resp, rc, "creating the shot");
	} else {
		rig_resp_json(resp, 201, created, NULL);
		created = NULL;
		rig_resp_header(resp, "Location", "/v1/shots/%s", row.id);
		rig_api__etag(resp, 0);
		rig_api__commit(req, tx, resp);
	}
	json_decref(created);
	rig_tx_end(tx);
out:
	rig_errs_free(errs);
	json_decref(body);
}

void rig_h_shot_list(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_page p;
	long long after;
	if (rig_api__page_start(req, resp, "shots", req->params[0], &p, &after))
		return;
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_project_get(tx, req->params[0], project_exists, NULL);
	if (!rc)
		rc = rig_shot_list(tx, req->params[0], after, p.limit + 1, collect_shot, &p);
	rig_tx_end(tx);
	if (rc) {
		json_decref(p.items);
		rig_api__fail(resp, rc, "project");
		return;
	}
	rig_api__page_finish(req, resp, "shots", req->params[0], &p, "shots",
			     json_pack("{s:s}", "projectId", req->params[0]));
}

void rig_h_shot_delete(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_if_match if_match;
	if (rig_api__if_match(req, resp, &if_match))
		return;
	struct rig_tx *tx = rig_store_read(req->app->store);
	long long current = -1;
	int rc = rig_api__begin(req, tx);
	/* The version is read in the write transaction that deletes: it cannot
	 * move in between. "*" needs only the shot, which the delete needs too. */
	if (!rc && rig_if_match_constrains(&if_match) &&
	    (rc = rig_shot_version(tx, req->params[0], &current)) == 0 &&
	    !rig_if_match_holds(&if_match, current))
		rc = -RIG_VERSION_CONFLICT;
	if (!rc)
		rc = rig_shot_delete(tx, req->params[0], -1);
	if (rc == -RIG_VERSION_CONFLICT) {
		json_t *extra = json_pack("{s:s, s:I}", "shotId", req->params[0], "currentVersion",
					  (json_int_t)current);
		rig_if_match_expected_json(extra, &if_match, "expectedVersion", "expectedVersions");
		char why[160];
		rig_if_match_describe(why, sizeof why, &if_match);
		rig_problem_status(resp, 412, RIG_VERSION_CONFLICT, extra,
				   "shot '%s' is at version %lld%s", req->params[0], current, why);
	} else if (rc) {
		rig_api__fail_shot(resp, rc, req->params[0]);
	} else {
		rig_resp_json(resp, 200,
			      json_pack("{s:s, s:b}", "shotId", req->params[0], "deleted", 1),
			      NULL);
		rig_api__commit(req, tx, resp);
	}
	rig_tx_end(tx);
}

/* Answers 304 when If-None-Match names the current version; returns true then. */
static bool not_modified(struct rig_req *req, struct rig_resp *resp, long long version)
{
	char tag[32];
	snprintf(tag, sizeof tag, "\"%lld\"", version);
	if (!rig_api__none_match(req, tag))
		return false;
	resp->status = 304;
	rig_api__etag(resp, version);
	return true;
}

/* Loads the shot named in the path, at ?version when given, from one read
 * snapshot; -1 with resp filled. */
static int load_shot(struct rig_req *req, struct rig_resp *resp, struct rig_shot_model *m)
{
	long long version;
	memset(m, 0, sizeof *m);
	if (rig_api__version(req, resp, &version))
		return -1;
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_tx_snapshot(tx);
	if (!rc)
		rc = rig_shot_load_at(m, tx, req->params[0], version);
	if (rc)
		rig_api__fail_shot_at(resp, tx, rc, req->params[0], version);
	rig_tx_end(tx);
	return rc ? -1 : 0;
}

void rig_h_shot_get(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_shot_model m;
	if (load_shot(req, resp, &m) != 0)
		goto out;
	if (!not_modified(req, resp, m.version)) {
		rig_resp_json(resp, 200, rig_api__shot_json(&m), NULL);
		rig_api__etag(resp, m.version);
	}
out:
	rig_shot_model_release(&m);
}

void rig_h_layer_get(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_shot_model m;
	if (load_shot(req, resp, &m) != 0)
		goto out;
	const struct rig_model_layer *l = rig_shot_model_find(&m, req->params[1]);
	if (!l) {
		rig_problem_no_layer(resp, m.id, req->params[1]);
		goto out;
	}
	json_t *o = rig_api__layer_json(l, true);
	json_object_set_new(o, "shotId", json_string(m.id));
	json_object_set_new(o, "shotVersion", json_integer(m.version));
	rig_resp_json(resp, 200, o, NULL);
	rig_api__etag(resp, m.version);
out:
	rig_shot_model_release(&m);
}
