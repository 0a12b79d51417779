/* GET /v1/openapi.yaml and GET /v1/openapi.json: the OpenAPI document this
 * binary was built with (embedded by api/embed_openapi.cmake, and converted to
 * JSON at build time by scripts/openapi-to-json.py), public like the error
 * catalogue so a client can discover the API before it holds a token. */
#include <stdlib.h>
#include <string.h>

#include "api/handlers/handlers.h"
#include "api/http/request.h"

extern const char rig_openapi_yaml[];
extern const size_t rig_openapi_yaml_len;
extern const char rig_openapi_json[];
extern const size_t rig_openapi_json_len;

static void serve(struct rig_resp *resp, const char *text, size_t len, const char *type)
{
	char *body = malloc(len + 1);
	if (!body) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		return;
	}
	memcpy(body, text, len + 1);
	resp->status = 200;
	resp->content_type = type;
	resp->body = body;
	resp->body_len = len;
	rig_resp_header(resp, "Cache-Control", "public, max-age=300");
}

void rig_h_openapi(struct rig_req *req, struct rig_resp *resp)
{
	(void)req;
	serve(resp, rig_openapi_yaml, rig_openapi_yaml_len, "application/yaml");
}

void rig_h_openapi_json(struct rig_req *req, struct rig_resp *resp)
{
	(void)req;
	serve(resp, rig_openapi_json, rig_openapi_json_len, "application/json");
}
