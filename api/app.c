/* The application's wiring: the route table (who answers what, who may call
 * it, which query parameters it reads) and the process-wide state every
 * handler shares, set up and torn down together.
 */
#include "api/app.h"

#include <string.h>
#include <time.h>

#include "api/edit/batch.h"
#include "api/edit/committer.h"
#include "api/eval/read_cache.h"
#include "api/handlers/handlers.h"
#include "api/http/idempotency.h"
#include "api/http/ratelimit.h"
#include "api/http/router.h"
#include "api/util/membudget.h"
#include "api/util/stamp.h"
#include "storage/locks.h"
#include "storage/receipts.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

#define PAGED "pageSize pageToken"

const struct rig_route rig_routes[] = {
	{"GET", "/healthz", rig_h_healthz, RIG_RUN_WORKER, ACCESS_PUBLIC, OWNER_NONE, NULL},
	{"GET", "/readyz", rig_h_readyz, RIG_RUN_WORKER, ACCESS_PUBLIC, OWNER_NONE, NULL},
	{"GET", "/v1/limits", rig_h_limits, RIG_RUN_WORKER, ACCESS_READ, OWNER_NONE, NULL},
	{"GET", "/v1/errors", rig_h_errors, RIG_RUN_WORKER, ACCESS_PUBLIC, OWNER_NONE, NULL},
	{"GET", "/v1/errors/{}", rig_h_error, RIG_RUN_WORKER, ACCESS_PUBLIC, OWNER_NONE, NULL},
	{"GET", "/v1/openapi.yaml", rig_h_openapi, RIG_RUN_WORKER, ACCESS_PUBLIC, OWNER_NONE, NULL},
	{"GET", "/v1/openapi.json", rig_h_openapi_json, RIG_RUN_WORKER, ACCESS_PUBLIC, OWNER_NONE,
	 NULL},
	{"POST", "/v1/projects", rig_h_project_create, RIG_RUN_QUICK, ACCESS_ADMIN, OWNER_NONE,
	 NULL},
	{"GET", "/v1/projects", rig_h_project_list, RIG_RUN_WORKER, ACCESS_READ, OWNER_NONE, PAGED},
	{"GET", "/v1/projects/{}", rig_h_project_get, RIG_RUN_WORKER, ACCESS_READ, OWNER_PROJECT,
	 NULL},
	{"DELETE", "/v1/projects/{}", rig_h_project_delete, RIG_RUN_WORKER, ACCESS_ADMIN,
	 OWNER_PROJECT, NULL},
	{"POST", "/v1/projects/{}/shots", rig_h_shot_create, RIG_RUN_QUICK, ACCESS_EDIT,
	 OWNER_PROJECT, NULL},
	{"GET", "/v1/projects/{}/shots", rig_h_shot_list, RIG_RUN_WORKER, ACCESS_READ,
	 OWNER_PROJECT, PAGED},
	{"GET", "/v1/shots/{}", rig_h_shot_get, RIG_RUN_WORKER, ACCESS_READ, OWNER_SHOT, "version"},
	{"DELETE", "/v1/shots/{}", rig_h_shot_delete, RIG_RUN_WORKER, ACCESS_ADMIN, OWNER_SHOT,
	 NULL},
	{"GET", "/v1/shots/{}/layers/{}", rig_h_layer_get, RIG_RUN_WORKER, ACCESS_READ, OWNER_SHOT,
	 "version"},
	{"GET", "/v1/shots/{}/constraints", rig_h_constraint_list, RIG_RUN_WORKER, ACCESS_READ,
	 OWNER_SHOT, "version " PAGED},
	{"GET", "/v1/shots/{}/diff", rig_h_shot_diff, RIG_RUN_WORKER, ACCESS_READ, OWNER_SHOT,
	 "from to maxBytes " PAGED},
	{"POST", "/v1/shots/{}/edits", rig_h_edits, RIG_RUN_QUICK, ACCESS_EDIT, OWNER_SHOT,
	 "dryRun"},
	{"GET", "/v1/shots/{}/receipts", rig_h_receipt_list, RIG_RUN_WORKER, ACCESS_READ,
	 OWNER_SHOT, PAGED},
	{"GET", "/v1/receipts/{}", rig_h_receipt_get, RIG_RUN_WORKER, ACCESS_READ, OWNER_RECEIPT,
	 NULL},
	/* not quick: a small body can restore a large binding */
	{"POST", "/v1/receipts/{}/revert", rig_h_receipt_revert, RIG_RUN_WORKER, ACCESS_EDIT,
	 OWNER_RECEIPT, "dryRun"},
	{"POST", "/v1/shots/{}/import", rig_h_shot_import, RIG_RUN_WORKER, ACCESS_EDIT, OWNER_SHOT,
	 "format dryRun idPrefix parentId expectedVersion lockId fencingToken checkFrames "
	 "animation"},
	{"GET", "/v1/shots/{}/export", rig_h_shot_export, RIG_RUN_WORKER, ACCESS_READ, OWNER_SHOT,
	 "format version report"},
	{"GET", "/v1/shots/{}/frames/{}", rig_h_frame, RIG_RUN_LIGHT, ACCESS_READ, OWNER_SHOT,
	 "layers space format version include"},
	{"GET", "/v1/shots/{}/layers/{}/frames", rig_h_frame_range, RIG_RUN_WORKER, ACCESS_READ,
	 OWNER_SHOT, "from to step space format f32Version version"},
	{"GET", "/v1/shots/{}/check", rig_h_check, RIG_RUN_WORKER, ACCESS_READ, OWNER_SHOT,
	 "from to step version " PAGED},
	{"POST", "/v1/shots/{}/layers/{}/map-points", rig_h_map_points, RIG_RUN_WORKER, ACCESS_READ,
	 OWNER_SHOT, "space version"},
	{"POST", "/v1/skin/evaluate", rig_h_skin_evaluate, RIG_RUN_WORKER, ACCESS_READ, OWNER_NONE,
	 NULL},
	{"POST", "/v1/tessellate", rig_h_tessellate, RIG_RUN_WORKER, ACCESS_READ, OWNER_NONE, NULL},
	{"POST", "/v1/weights/auto", rig_h_weights_auto, RIG_RUN_WORKER, ACCESS_READ, OWNER_NONE,
	 NULL},
	{"GET", "/v1/shots/{}/layers/{}/mesh-data/{}", rig_h_mesh_data, RIG_RUN_WORKER, ACCESS_READ,
	 OWNER_SHOT, "frame space maxBytes jointId version " PAGED},
	{"GET", "/v1/shots/{}/layers/{}/skin", rig_h_layer_skin, RIG_RUN_WORKER, ACCESS_READ,
	 OWNER_SHOT, "maxBytes version"},
	{"POST", "/v1/shots/{}/locks", rig_h_lock_acquire, RIG_RUN_QUICK, ACCESS_EDIT, OWNER_SHOT,
	 NULL},
	{"GET", "/v1/shots/{}/locks", rig_h_lock_list, RIG_RUN_WORKER, ACCESS_READ, OWNER_SHOT,
	 NULL},
	{"POST", "/v1/locks/{}/renew", rig_h_lock_renew, RIG_RUN_QUICK, ACCESS_EDIT, OWNER_LOCK,
	 NULL},
	{"DELETE", "/v1/locks/{}", rig_h_lock_release, RIG_RUN_QUICK, ACCESS_EDIT, OWNER_LOCK,
	 "force"},
	{"POST", "/v1/shots/{}/plans", rig_h_plan_create, RIG_RUN_QUICK, ACCESS_EDIT, OWNER_SHOT,
	 NULL},
	{"GET", "/v1/shots/{}/plans", rig_h_plan_list, RIG_RUN_WORKER, ACCESS_READ, OWNER_SHOT,
	 PAGED},
	{"GET", "/v1/plans/{}", rig_h_plan_get, RIG_RUN_WORKER, ACCESS_READ, OWNER_PLAN, NULL},
	{"PUT", "/v1/plans/{}", rig_h_plan_revise, RIG_RUN_QUICK, ACCESS_EDIT, OWNER_PLAN, NULL},
	{"POST", "/v1/plans/{}/validate", rig_h_plan_validate, RIG_RUN_WORKER, ACCESS_EDIT,
	 OWNER_PLAN, NULL},
	{"POST", "/v1/plans/{}/apply", rig_h_plan_apply, RIG_RUN_WORKER, ACCESS_EDIT, OWNER_PLAN,
	 NULL},
	{"DELETE", "/v1/plans/{}", rig_h_plan_delete, RIG_RUN_WORKER, ACCESS_EDIT, OWNER_PLAN,
	 NULL},
	{"POST", "/v1/tokens", rig_h_token_create, RIG_RUN_WORKER, ACCESS_ADMIN, OWNER_NONE, NULL},
	{"GET", "/v1/tokens", rig_h_token_list, RIG_RUN_WORKER, ACCESS_ADMIN, OWNER_NONE, PAGED},
	{"GET", "/v1/tokens/{}", rig_h_token_get, RIG_RUN_WORKER, ACCESS_ADMIN, OWNER_NONE, NULL},
	{"DELETE", "/v1/tokens/{}", rig_h_token_revoke, RIG_RUN_WORKER, ACCESS_ADMIN, OWNER_NONE,
	 NULL},
	{"GET", "/v1/audit", rig_h_audit_list, RIG_RUN_WORKER, ACCESS_ADMIN, OWNER_NONE, PAGED},
};

const size_t rig_n_routes = sizeof rig_routes / sizeof rig_routes[0];

int rig_app_init(struct rig_app *app, struct rig_store *store, const struct rig_app_limits *limits)
{
	memset(app, 0, sizeof *app);
	app->store = store;
	app->limits = *limits;
	atomic_init(&app->draining, false);
	app->inflight = rig_api__inflight_new();
	app->shot_cache = rig_shot_cache_new();
	app->read_cache = rig_read_cache_new(limits->read_cache_bytes);
	app->ratelimit = limits->rate_limit > 0 ? rig_ratelimit_new(limits->rate_limit) : NULL;
	app->budget = rig_membudget_new(limits->memory_budget_bytes);
	if (app->inflight && app->shot_cache && app->read_cache && app->budget &&
	    (limits->rate_limit <= 0 || app->ratelimit))
		app->committer = rig_committer_start(app); /* every edit's transaction sequence */
	if (!app->committer) {
		rig_app_release(app);
		return -1;
	}
	return 0;
}

void rig_app_release(struct rig_app *app)
{
	rig_committer_stop(app->committer);
	rig_api__inflight_free(app->inflight);
	rig_shot_cache_free(app->shot_cache);
	rig_read_cache_free(app->read_cache);
	rig_ratelimit_free(app->ratelimit);
	rig_membudget_free(app->budget);
	memset(app, 0, sizeof *app);
}

/* Compaction steps (transactions) per sweep at most, so one sweep never
 * keeps the write lock busy for long; the next sweep goes on. Between two
 * steps the sweep pauses (rig_store_write_pause) so that another process's
 * writer gets the lock too; this process's writers queue for the turn in
 * order and go before the next step anyway. */
#define COMPACT_SHOTS_PER_SWEEP 64

static int compact_history(struct rig_app *app, long long *removed)
{
	long long keep = app->limits.history_versions > 0 ? app->limits.history_versions
							  : RIG_HISTORY_VERSIONS_DEFAULT;
	bool done = true;
	int rc = 0;
	for (int i = 0; i < COMPACT_SHOTS_PER_SWEEP && done && rc == 0; i++) {
		if (i > 0)
			rig_store_write_pause(app->store);
		struct rig_tx *tx = NULL;
		rc = rig_store_write(app->store, &tx);
		if (rc)
			break;
		rc = rig_history_compact(tx, keep, &done, removed);
		if (rc == 0 && done)
			rc = rig_tx_commit(tx);
		rig_tx_end(tx);
	}
	return rc;
}

long long rig_app_housekeeping(struct rig_app *app)
{
	struct rig_tx *tx = rig_store_read(app->store);
	long long keys = 0, locks = 0;
	int rc = rig_idem_sweep(tx, (long long)time(NULL) - RIG_IDEM_TTL_SECONDS, &keys);
	if (rc == 0)
		rc = rig_locks_sweep(tx, rig_api__now_ms(), &locks);
	rig_tx_end(tx);
	long long history = 0;
	if (rc == 0)
		rc = compact_history(app, &history);
	return rc ? -1 : keys + locks + history;
}
