/* GET /v1/openapi.yaml: the OpenAPI document this binary was built with
 * (embedded by api/embed_openapi.cmake), public like the error catalogue so a
 * client can discover the API before it holds a token. */
#include <stdlib.h>
#include <string.h>

#include "api/handlers/handlers.h"
#include "api/http/request.h"

extern const char rig_openapi_yaml[];
extern const size_t rig_openapi_yaml_len;

void rig_h_openapi(struct rig_req *req, struct rig_resp *resp)
{
	char *body = malloc(rig_openapi_yaml_len + 1);
	if (!body) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		return;
	}
	memcpy(body, rig_openapi_yaml, rig_openapi_yaml_len + 1);
	resp->status = 200;
	resp->content_type = "application/yaml";
	resp->body = body;
	resp->body_len = rig_openapi_yaml_len;
	rig_resp_header(resp, "Cache-Control", "public, max-age=300");
}
