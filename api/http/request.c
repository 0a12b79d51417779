/* Helpers shared by the handlers (see request.h): body parsing, storage failures,
 * write transactions with idempotent responses, conditional headers. Paging is
 * in paging.c, ids and clocks in api/util/stamp.c, idempotency keys in
 * idempotency.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api/edit/bulk.h"
#include "api/http/request.h"
#include "api/util/membudget.h"
#include "api/util/textbuf.h"
#include "storage/receipts.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

json_t *rig_api__parse_body(struct rig_req *req, struct rig_resp *resp)
{
	return rig_api__parse_body_bulk(req, resp, -1);
}

json_t *rig_api__parse_body_bulk(struct rig_req *req, struct rig_resp *resp, int mode)
{
	const char *ctype = rig_api__header(req, "Content-Type");
	/* Bodies are JSON whatever the label says (curl -d sends form-urlencoded);
	 * only a multipart upload is clearly something else. */
	if (ctype && strncasecmp(ctype, "multipart/", 10) == 0) {
		rig_problem(resp, RIG_UNSUPPORTED_MEDIA_TYPE,
			    json_pack("{s:s}", "contentType", ctype),
			    "content type '%.60s' is not application/json", ctype);
		return NULL;
	}
	if (mode >= 0 && req->body_scratch && !req->bulk &&
	    rig_bulk_extract(&req->bulk, req->body_scratch, req->body_len, (enum rig_bulk_mode)mode,
			     RIG_BULK_MIN_BYTES) != 0) {
		rig_problem(resp, RIG_MEMORY_BUSY, NULL,
			    "the server ran out of memory reading the request body");
		return NULL;
	}
	json_error_t jerr;
	rig_membudget_parse_begin(req->app ? req->app->budget : NULL, req->mem);
	json_t *doc = json_loadb(req->body ? req->body : "", req->body_len,
				 JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	bool starved = rig_membudget_parse_end();
	if (!doc && (starved || json_error_code(&jerr) == json_error_out_of_memory)) {
		rig_problem(resp, RIG_MEMORY_BUSY, NULL,
			    "the server ran out of memory parsing the request body");
		return NULL;
	}
	if (!doc) {
		rig_problem(resp, RIG_MALFORMED_JSON,
			    json_pack("{s:i, s:i, s:i}", "line", jerr.line, "column", jerr.column,
				      "position", jerr.position),
			    "%s at line %d column %d", jerr.text, jerr.line, jerr.column);
		return NULL;
	}
	if (!json_is_object(doc)) {
		json_decref(doc);
		rig_problem(resp, RIG_MALFORMED_JSON, json_pack("{s:s}", "pointer", ""),
			    "the request body must be a JSON object");
		return NULL;
	}
	return doc;
}

void rig_api__fail(struct rig_resp *resp, int rc, const char *what)
{
	bool retry_after;
	json_t *o = rig_problem_storage_json(rc, what, &retry_after);
	rig_resp_problem(resp, o, retry_after);
}

struct rig_errs *rig_api__errs_new(struct rig_resp *resp)
{
	struct rig_errs *errs = rig_errs_new();
	if (!errs)
		rig_problem(resp, RIG_MEMORY_BUSY, NULL, "the server ran out of memory");
	return errs;
}

void rig_api__fail_shot(struct rig_resp *resp, int rc, const char *shot_id)
{
	bool retry_after;
	json_t *o = rig_problem_shot_json(rc, shot_id, &retry_after);
	rig_resp_problem(resp, o, retry_after);
}

int rig_api__parse_count(unsigned long long *out, const char *s)
{
	unsigned long long v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		unsigned d = (unsigned)(*s - '0');
		v = v > (ULLONG_MAX - d) / 10 ? ULLONG_MAX : v * 10 + d;
	}
	*out = v;
	return 0;
}

int rig_api__version_parse(const char *s, long long *out)
{
	*out = -1;
	if (!s)
		return 0;
	unsigned long long v;
	if (rig_api__parse_count(&v, s) || v > LLONG_MAX)
		return -1;
	*out = (long long)v;
	return 0;
}

void rig_api__version_refuse(struct rig_resp *resp)
{
	rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "version"),
		    "version must be a non-negative integer");
}

int rig_api__version(struct rig_req *req, struct rig_resp *resp, long long *out)
{
	if (rig_api__version_parse(rig_api__query(req, "version"), out) == 0)
		return 0;
	rig_api__version_refuse(resp);
	return -1;
}

void rig_api__fail_shot_at(struct rig_resp *resp, struct rig_tx *tx, int rc, const char *shot_id,
			   long long version)
{
	long long oldest = 0, head = 0;
	if (version < 0 || (rc != -RIG_VERSION_COMPACTED && rc != -RIG_NOT_FOUND) ||
	    rig_shot_versions(tx, shot_id, &oldest, &head) != 0) {
		rig_api__fail_shot(resp, rc, shot_id);
	} else if (version < oldest) {
		rig_problem(resp, RIG_VERSION_COMPACTED,
			    json_pack("{s:s, s:I, s:I, s:I}", "shotId", shot_id, "version",
				      (json_int_t)version, "oldestVersion", (json_int_t)oldest,
				      "shotVersion", (json_int_t)head),
			    "version %lld of shot '%s' was compacted; versions %lld to %lld are "
			    "readable",
			    version, shot_id, oldest, head);
	} else {
		rig_problem(resp, RIG_NOT_FOUND,
			    json_pack("{s:s, s:I, s:I}", "shotId", shot_id, "version",
				      (json_int_t)version, "shotVersion", (json_int_t)head),
			    "shot '%s' has no version %lld yet (it is at %lld)", shot_id, version,
			    head);
	}
}

void rig_api__etag(struct rig_resp *resp, long long version)
{
	rig_resp_header(resp, "ETag", "\"%lld\"", version);
}

int rig_api__if_match(struct rig_req *req, struct rig_resp *resp, struct rig_if_match *out)
{
	const char *h = rig_api__header(req, "If-Match");
	memset(out, 0, sizeof *out);
	if (!h || rig_if_match_parse(out, h) == 0)
		return 0;
	rig_problem(resp, RIG_PRECONDITION_INVALID, json_pack("{s:s}", "parameter", "If-Match"),
		    "If-Match must be * or a list of up to %d entity tags such as \"12\"",
		    RIG_IF_MATCH_MAX_VERSIONS);
	return -1;
}

bool rig_api__none_match(struct rig_req *req, const char *tag)
{
	return rig_api__none_match_header(rig_api__header(req, "If-None-Match"), tag);
}

bool rig_api__none_match_header(const char *h, const char *tag)
{
	if (!h)
		return false;
	size_t tag_len = strlen(tag);
	for (const char *p = h; *p;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '*')
			return true;
		if (p[0] == 'W' && p[1] == '/')
			p += 2;
		const char *end = p;
		if (*end == '"') {
			end = strchr(end + 1, '"');
			end = end ? end + 1 : p + strlen(p);
		} else {
			while (*end && *end != ',')
				end++;
		}
		if ((size_t)(end - p) == tag_len && memcmp(p, tag, tag_len) == 0)
			return true;
		p = end;
	}
	return false;
}

int rig_api__query_bool(struct rig_req *req, struct rig_resp *resp, const char *name, bool *out)
{
	const char *v = rig_api__query(req, name);
	*out = v && !strcmp(v, "true");
	if (!v || *out || !strcmp(v, "false"))
		return 0;
	rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", name),
		    "%s must be true or false", name);
	return -1;
}
