/* Service routes: liveness, readiness, limits and the error catalogue.
 * /healthz and /readyz run on the HTTP front's I/O thread (server/http.c), so
 * they never wait for a worker or a pooled database connection. */
#include "api/handlers/handlers.h"
#include "api/http/request.h"
#include "core/rig_limits.h"

void rig_h_healthz(struct rig_req *req, struct rig_resp *resp)
{
	rig_resp_json(resp, 200, json_pack("{s:s}", "status", "ok"), NULL);
}

void rig_h_readyz(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_store_health health;
	bool ready = rig_store_probe(req->app->store, &health);
	json_t *o = json_pack("{s:b}", "databaseReadable", health.readable);
	if (health.space_known)
		json_object_set_new(o, "freeBytes", json_integer((json_int_t)health.free_bytes));
	if (!ready) {
		json_object_set_new(o, "minFreeBytes",
				    json_integer((json_int_t)RIG_STORE_MIN_FREE_BYTES));
		rig_problem(resp, RIG_STORAGE_UNAVAILABLE, o, "%s", health.error);
		rig_resp_header(resp, "Retry-After", "5");
		return;
	}
	json_decref(o);
	rig_resp_json(resp, 200, json_pack("{s:s}", "status", "ready"), NULL);
}

/* The limits of core/rig_limits.h that GET /v1/limits reports. */
#define RIG_LIMIT_ROW(name, wire, value) {wire, value},
static const struct {
	const char *wire;
	json_int_t value;
} limits[] = {RIG_LIMITS(RIG_LIMIT_ROW)};
#undef RIG_LIMIT_ROW

void rig_h_limits(struct rig_req *req, struct rig_resp *resp)
{
	const struct rig_app_limits *l = &req->app->limits;
	json_t *o =
		json_pack("{s:I, s:I, s:I}", "maxBodyBytes", (json_int_t)l->max_body_bytes,
			  "maxConnections", (json_int_t)l->max_connections,
			  "connectionTimeoutSeconds", (json_int_t)l->connection_timeout_seconds);
	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
		if (limits[i].wire)
			json_object_set_new(o, limits[i].wire, json_integer(limits[i].value));
	rig_resp_json(resp, 200, o, NULL);
}

static json_t *entry(enum rig_code code)
{
	char type[64];
	snprintf(type, sizeof type, "/v1/errors/%s", rig_code_name(code));
	return json_pack("{s:s, s:s, s:i, s:s, s:b, s:s, s:s}", "code", rig_code_name(code), "type",
			 type, "status", rig_code_status(code), "title", rig_code_title(code),
			 "retryable", rig_code_retryable(code), "rule", rig_code_rule(code), "fix",
			 rig_code_fix(code));
}

void rig_h_errors(struct rig_req *req, struct rig_resp *resp)
{
	json_t *list = json_array();
	for (int c = RIG_OK + 1; c < RIG_CODE_COUNT; c++)
		json_array_append_new(list, entry((enum rig_code)c));
	rig_resp_json(resp, 200, json_pack("{s:o}", "errors", list), NULL);
}

void rig_h_error(struct rig_req *req, struct rig_resp *resp)
{
	enum rig_code code = rig_code_from_name(req->params[0]);
	if (code == RIG_OK) {
		rig_problem(resp, RIG_NOT_FOUND, json_pack("{s:s}", "errorCode", req->params[0]),
			    "no error code '%s'", req->params[0]);
		return;
	}
	rig_resp_json(resp, 200, entry(code), NULL);
}
