/* Projects: create, list (paged, oldest first), get, delete. */
#include <limits.h>
#include <stdint.h>
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
#include "storage/resources.h"
#include "storage/store.h"

static json_t *project_json(const struct rig_project_row *row)
{
	return json_pack("{s:s, s:s, s:s}", "projectId", row->id, "name", row->name, "createdAt",
			 row->created_at);
}

struct project_walk {
	struct rig_page page;
	const char *scopes; /* the caller's, when it may read only some projects; else NULL */
};

static int collect_project(void *ctx, const struct rig_project_row *row)
{
	struct project_walk *w = ctx;
	if (w->scopes && rig_scopes_level(w->scopes, row->id) < RIG_SCOPE_READ)
		return 0;
	if (!rig_page_take(&w->page, row->seq))
		return w->scopes ? 1 : 0; /* a filtered walk stops itself (no SQL limit) */
	json_array_append_new(w->page.items, project_json(row));
	return 0;
}

static int store_project(void *ctx, const struct rig_project_row *row)
{
	*(json_t **)ctx = project_json(row);
	return 0;
}

void rig_h_project_create(struct rig_req *req, struct rig_resp *resp)
{
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs)
		goto out;
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"projectId", "name", NULL};
	char id[RIG_ID_MAX + 1] = "";
	const char *name = NULL;
	rig_jr_known(&jr, body, allowed);
	rig_jr_id(&jr, body, "projectId", false, false, id, NULL);
	rig_jr_string(&jr, body, "name", true, RIG_MAX_NAME_BYTES, &name);
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	if (!id[0])
		rig_api__new_id(id, "p-");
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_api__begin(req, tx);
	if (!rc)
		rc = rig_project_insert(tx, id, name);
	json_t *created = NULL;
	if (!rc)
		rc = rig_project_get(tx, id, store_project, &created);
	if (rc == -RIG_LAYER_EXISTS) {
		rig_problem(resp, RIG_PROJECT_EXISTS,
			    json_pack("{s:s, s:s}", "pointer", "/projectId", "projectId", id),
			    "project id '%s' is already in use", id);
	} else if (rc) {
		rig_api__fail(resp, rc, "creating the project");
	} else {
		rig_resp_json(resp, 201, created, NULL);
		created = NULL;
		rig_resp_header(resp, "Location", "/v1/projects/%s", id);
		rig_api__commit(req, tx, resp);
	}
	json_decref(created);
	rig_tx_end(tx);
out:
	rig_errs_free(errs);
	json_decref(body);
}

void rig_h_project_list(struct rig_req *req, struct rig_resp *resp)
{
	struct project_walk w = {.scopes = NULL};
	long long after;
	if (rig_api__page_start(req, resp, "projects", "", &w.page, &after))
		return;
	/* A token scoped to some projects lists only those: the walk filters rows
	 * and ends itself once the page is full and one more row is readable. */
	if (rig_scopes_level(req->scopes, NULL) < RIG_SCOPE_READ)
		w.scopes = req->scopes;
	size_t limit = w.scopes ? (size_t)INT64_MAX : w.page.limit + 1;
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_project_list(tx, after, limit, collect_project, &w);
	rig_tx_end(tx);
	if (rc < 0) {
		json_decref(w.page.items);
		rig_api__fail(resp, rc, "listing projects");
		return;
	}
	rig_api__page_finish(req, resp, "projects", "", &w.page, "projects", NULL);
}

void rig_h_project_get(struct rig_req *req, struct rig_resp *resp)
{
	json_t *found = NULL;
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_project_get(tx, req->params[0], store_project, &found);
	rig_tx_end(tx);
	if (rc) {
		rig_api__fail(resp, rc, "project");
		return;
	}
	rig_resp_json(resp, 200, found, NULL);
}

void rig_h_project_delete(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_api__begin(req, tx);
	if (!rc)
		rc = rig_project_delete(tx, req->params[0]);
	if (rc) {
		rig_api__fail(resp, rc, "project");
	} else {
		rig_resp_json(resp, 200,
			      json_pack("{s:s, s:b}", "projectId", req->params[0], "deleted", 1),
			      NULL);
		rig_api__commit(req, tx, resp);
	}
	rig_tx_end(tx);
}
