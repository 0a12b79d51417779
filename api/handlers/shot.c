/* Reading a shot with its layer tree, and one layer with its keys. */
#include <stdio.h>
#include <string.h>

#include "api/http/request.h"
#include "storage/shot_repo.h"
#include "api/handlers/handlers.h"
#include "storage/store.h"

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

/* Loads the shot named in the path from one read snapshot; -1 with resp filled. */
static int load_shot(struct rig_req *req, struct rig_resp *resp, struct rig_shot_model *m)
{
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_tx_snapshot(tx);
	if (!rc)
		rc = rig_shot_load(m, tx, req->params[0]);
	else
		memset(m, 0, sizeof *m);
	rig_tx_end(tx);
	if (rc)
		rig_api__fail_shot(resp, rc, req->params[0]);
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
		rig_problem(resp, RIG_NOT_FOUND,
			    json_pack("{s:s, s:s}", "shotId", m.id, "layerId", req->params[1]),
			    "shot '%s' has no layer '%s'", m.id, req->params[1]);
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
