/* The route handlers (one file per resource) and what several of them share:
 * JSON of the model, audit records.
 */
#ifndef RIG_HANDLERS_H
#define RIG_HANDLERS_H

#include <jansson.h>
#include <stdbool.h>

#include "api/http/request.h"
#include "storage/shot_model.h"
#include "storage/store.h"

/* Handlers, one per route (the table is in api/app.c). */
void rig_h_healthz(struct rig_req *req, struct rig_resp *resp);
void rig_h_readyz(struct rig_req *req, struct rig_resp *resp);
void rig_h_limits(struct rig_req *req, struct rig_resp *resp);
void rig_h_errors(struct rig_req *req, struct rig_resp *resp);
void rig_h_error(struct rig_req *req, struct rig_resp *resp);
void rig_h_openapi(struct rig_req *req, struct rig_resp *resp);
void rig_h_openapi_json(struct rig_req *req, struct rig_resp *resp);
void rig_h_project_create(struct rig_req *req, struct rig_resp *resp);
void rig_h_project_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_project_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_project_delete(struct rig_req *req, struct rig_resp *resp);
void rig_h_shot_create(struct rig_req *req, struct rig_resp *resp);
void rig_h_shot_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_shot_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_shot_delete(struct rig_req *req, struct rig_resp *resp);
void rig_h_layer_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_constraint_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_shot_diff(struct rig_req *req, struct rig_resp *resp);
void rig_h_edits(struct rig_req *req, struct rig_resp *resp);
void rig_h_receipt_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_receipt_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_receipt_revert(struct rig_req *req, struct rig_resp *resp);
void rig_h_lock_acquire(struct rig_req *req, struct rig_resp *resp);
void rig_h_lock_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_lock_renew(struct rig_req *req, struct rig_resp *resp);
void rig_h_lock_release(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_create(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_revise(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_validate(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_apply(struct rig_req *req, struct rig_resp *resp);
void rig_h_plan_delete(struct rig_req *req, struct rig_resp *resp);
void rig_h_token_create(struct rig_req *req, struct rig_resp *resp);
void rig_h_token_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_token_get(struct rig_req *req, struct rig_resp *resp);
void rig_h_token_revoke(struct rig_req *req, struct rig_resp *resp);
void rig_h_audit_list(struct rig_req *req, struct rig_resp *resp);
void rig_h_frame(struct rig_req *req, struct rig_resp *resp);
void rig_h_frame_range(struct rig_req *req, struct rig_resp *resp);
void rig_h_check(struct rig_req *req, struct rig_resp *resp);
void rig_h_map_points(struct rig_req *req, struct rig_resp *resp);
void rig_h_skin_evaluate(struct rig_req *req, struct rig_resp *resp);
/* authoring.c: the stateless authoring routes (issue 25) */
void rig_h_tessellate(struct rig_req *req, struct rig_resp *resp);

/* interchange.c: other tools' documents in and out (issue 26) */
void rig_h_shot_import(struct rig_req *req, struct rig_resp *resp);
void rig_h_shot_export(struct rig_req *req, struct rig_resp *resp);
void rig_h_weights_auto(struct rig_req *req, struct rig_resp *resp);
void rig_h_mesh_data(struct rig_req *req, struct rig_resp *resp);
void rig_h_layer_skin(struct rig_req *req, struct rig_resp *resp);

/* JSON of a layer (transform, keys, binding summary) and of a whole shot with
 * its layer tree (parents before children). New references. */
json_t *rig_api__layer_json(const struct rig_model_layer *l, bool with_keys);
json_t *rig_api__shot_json(const struct rig_shot_model *m);

/* JSON of one constraint as GET …/constraints lists it (a keyable channel is
 * its static number, or its list of keys). New reference. */
json_t *rig_api__constraint_json(const struct rig_model_constraint *mc);

/* JSON of one key {frame, value, interp, ease?}. New reference. */
json_t *rig_api__key_json(const struct rig_key *k);

/* Appends an audit record of action (token.create, token.revoke, lock.break)
 * by the request's caller, with fields (reference stolen) merged in, in tx's
 * open transaction. 0 or a negative rig code. */
int rig_api__audit(struct rig_req *req, struct rig_tx *tx, const char *action, json_t *fields);

#endif
