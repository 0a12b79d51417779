/* Problem bodies of problem.h and the JSON response helper. */
#include "api/http/problem.h"

#include "api/http/exchange.h"
#include "api/util/stamp.h"
#include "api/util/textbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rig_resp_text(struct rig_resp *resp, int status, char *text, const char *content_type)
{
	free(resp->body);
	resp->body = text;
	resp->body_len = text ? strlen(text) : 0;
	resp->status = text ? status : 500;
	resp->content_type = content_type ? content_type : "application/json";
}

void rig_resp_json(struct rig_resp *resp, int status, json_t *body, const char *content_type)
{
	char *text = json_dumps(body, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(body);
	rig_resp_text(resp, status, text, content_type);
}

void rig_resp_buf(struct rig_resp *resp, int status, struct rig_buf *b, const char *content_type)
{
	if (b->oom) {
		rig_buf_release(b);
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		return;
	}
	free(resp->body);
	resp->body = b->data;
	resp->body_len = b->len;
	resp->status = status;
	resp->content_type = content_type ? content_type : "application/json";
	rig_buf_init(b);
}

void rig_problem_no_layer(struct rig_resp *resp, const char *shot_id, const char *layer_id)
{
	rig_problem(resp, RIG_NOT_FOUND,
		    json_pack("{s:s, s:s}", "shotId", shot_id, "layerId", layer_id),
		    "shot '%s' has no layer '%s'", shot_id, layer_id);
}

/* A JSON string of text that may hold bytes from the request (ids, names). */
static json_t *scrubbed(const char *text)
{
	char copy[RIG_ERR_DETAIL_MAX];
	rig_strlcpy(copy, text, sizeof copy);
	rig_utf8_scrub(copy);
	return json_string(copy);
}

/* A whole number (a limit, a count) prints without a fraction. */
static json_t *number(double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

json_t *rig_err_to_json(const struct rig_err *e)
{
	json_t *o = json_object();
	json_object_set_new(o, "code", json_string(rig_code_name(e->code)));
	json_object_set_new(o, "detail", scrubbed(e->detail));
	if (e->op_index != RIG_NO_INDEX)
		json_object_set_new(o, "opIndex", json_integer(e->op_index));
	if (e->pointer[0] || e->op_index != RIG_NO_INDEX)
		json_object_set_new(o, "pointer", json_string(e->pointer));
	if (e->layer_id[0])
		json_object_set_new(o, "layerId", json_string(e->layer_id));
	if (e->joint_id[0])
		json_object_set_new(o, "jointId", json_string(e->joint_id));
	if (e->vertex_index != RIG_NO_INDEX)
		json_object_set_new(o, "vertexIndex", json_integer(e->vertex_index));
	if (e->triangle_index != RIG_NO_INDEX)
		json_object_set_new(o, "triangleIndex", json_integer(e->triangle_index));
	if (e->joint_index != RIG_NO_INDEX)
		json_object_set_new(o, "jointIndex", json_integer(e->joint_index));
	if (e->influence_index != RIG_NO_INDEX)
		json_object_set_new(o, "influenceIndex", json_integer(e->influence_index));
	if (e->has_frame)
		json_object_set_new(o, "frame", json_real(e->frame));
	for (int i = 0; i < e->n_extra; i++) {
		const struct rig_err_extra *x = &e->extra[i];
		json_object_set_new(o, x->name,
				    x->is_number ? number(x->number) : scrubbed(x->value));
	}
	if (e->list.name[0]) {
		json_t *items = json_array();
		const char *p = e->list.items;
		for (int i = 0; i < e->list.n; i++, p += strlen(p) + 1)
			json_array_append_new(items, scrubbed(p));
		json_object_set_new(o, e->list.name, items);
	}
	if (e->lock_id[0]) {
		char at[RIG_TIMESTAMP_MAX];
		rig_api__iso8601(at, e->expires_ms);
		json_object_set_new(o, "lockId", json_string(e->lock_id));
		json_object_set_new(o, "owner", json_string(e->owner));
		json_object_set_new(o, "expiresAt", json_string(at));
	}
	return o;
}

static json_t *problem_base(enum rig_code code, const char *detail)
{
	char type[64];
	snprintf(type, sizeof type, "/v1/errors/%s", rig_code_name(code));
	json_t *o = json_object();
	json_object_set_new(o, "type", json_string(type));
	json_object_set_new(o, "title", json_string(rig_code_title(code)));
	json_object_set_new(o, "status", json_integer(rig_code_status(code)));
	json_object_set_new(o, "code", json_string(rig_code_name(code)));
	json_object_set_new(o, "detail", json_string(detail));
	json_object_set_new(o, "retryable", json_boolean(rig_code_retryable(code)));
	return o;
}

json_t *rig_problem_from_errs(const struct rig_errs *errs)
{
	const struct rig_err *first = &errs->items[0];
	char detail[RIG_ERR_DETAIL_MAX];
	rig_strlcpy(detail, first->detail, sizeof detail);
	rig_utf8_scrub(detail);
	json_t *o = problem_base(first->code, detail);
	json_t *list = json_array();
	for (size_t i = 0; i < errs->count; i++)
		json_array_append_new(list, rig_err_to_json(&errs->items[i]));
	json_object_set_new(o, "errors", list);
	if (errs->total > errs->count) { /* the first RIG_ERRS_KEEP are listed */
		json_object_set_new(o, "errorCount", json_integer((json_int_t)errs->total));
		json_object_set_new(o, "truncated", json_true());
	}
	return o;
}

static json_t *problem_json_v(int status, enum rig_code code, json_t *extra, const char *fmt,
			      va_list ap)
{
	char detail[RIG_ERR_DETAIL_MAX];
	vsnprintf(detail, sizeof detail, fmt, ap);
	rig_utf8_scrub(detail);
	json_t *o = problem_base(code, detail);
	if (extra) {
		json_object_update(o, extra);
		json_decref(extra);
	}
	json_object_set_new(o, "status", json_integer(status ? status : rig_code_status(code)));
	return o;
}

json_t *rig_problem_json(int status, enum rig_code code, json_t *extra, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	json_t *o = problem_json_v(status, code, extra, fmt, ap);
	va_end(ap);
	return o;
}

void rig_resp_problem(struct rig_resp *resp, json_t *body, bool retry_after)
{
	int status = (int)json_integer_value(json_object_get(body, "status"));
	rig_resp_json(resp, status, body, "application/problem+json");
	if (retry_after)
		rig_resp_header(resp, "Retry-After", "1");
}

static void problem_v(struct rig_resp *resp, int status, enum rig_code code, json_t *extra,
		      const char *fmt, va_list ap)
{
	rig_resp_problem(resp, problem_json_v(status, code, extra, fmt, ap),
			 code == RIG_MEMORY_BUSY);
}

void rig_problem(struct rig_resp *resp, enum rig_code code, json_t *extra, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	problem_v(resp, 0, code, extra, fmt, ap);
	va_end(ap);
}

void rig_problem_status(struct rig_resp *resp, int status, enum rig_code code, json_t *extra,
			const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	problem_v(resp, status, code, extra, fmt, ap);
	va_end(ap);
}

json_t *rig_problem_errs_json(const struct rig_errs *errs, int status, bool *retry_after)
{
	/* Running out of memory is the server's condition, never the client's:
	 * it answers alone, whatever else the request got wrong. */
	*retry_after = false;
	for (size_t i = 0; i < errs->count; i++) {
		if (errs->items[i].code != RIG_MEMORY_BUSY)
			continue;
		*retry_after = true;
		return rig_problem_json(0, RIG_MEMORY_BUSY, NULL, "%s", errs->items[i].detail);
	}
	json_t *o = rig_problem_from_errs(errs);
	json_object_set_new(o, "status",
			    json_integer(status ? status : rig_code_status(errs->items[0].code)));
	return o;
}

json_t *rig_problem_storage_json(int rc, const char *what, bool *retry_after)
{
	enum rig_code code = rc < 0 ? (enum rig_code) - rc : RIG_INTERNAL;
	if (code <= RIG_OK || code >= RIG_CODE_COUNT)
		code = RIG_INTERNAL;
	/* A full disk stays full until an operator acts: no Retry-After hint. */
	*retry_after = rig_code_retryable(code) && code != RIG_STORAGE_FULL;
	if (code == RIG_NOT_FOUND)
		return rig_problem_json(0, code, NULL, "%s: not found", what);
	if (code == RIG_STORAGE_UNAVAILABLE)
		return rig_problem_json(0, code, NULL, "%s: the database is busy", what);
	if (code == RIG_STORAGE_FULL)
		return rig_problem_json(0, code, NULL,
					"%s: the database's disk is full; nothing was written",
					what);
	return rig_problem_json(0, code, NULL, "%s failed", what);
}

json_t *rig_problem_shot_json(int rc, const char *shot_id, bool *retry_after)
{
	if (rc != -RIG_NOT_FOUND)
		return rig_problem_storage_json(rc, "reading the shot", retry_after);
	*retry_after = false;
	return rig_problem_json(0, RIG_NOT_FOUND, json_pack("{s:s}", "shotId", shot_id),
				"shot '%s' does not exist", shot_id);
}

void rig_problem_errs(struct rig_resp *resp, const struct rig_errs *errs, int status)
{
	bool retry_after;
	json_t *o = rig_problem_errs_json(errs, status, &retry_after);
	rig_resp_problem(resp, o, retry_after);
}
