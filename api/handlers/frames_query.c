/* The frame routes' request (frames_query.h): the readers of one parameter,
 * the typed query parsed once, its range against the shot, the ETag. */
#include "api/handlers/frames_query.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/http/paging.h"
#include "api/http/request.h"

/* ---- readers of one parameter ---- */

static const char *skip_digits(const char *p)
{
	while (*p >= '0' && *p <= '9')
		p++;
	return p;
}

int rig_frames__parse_frame(double *out, const char *s)
{
	/* RFC 8259 §6: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? and nothing
	 * else; strtod alone would also take hex, inf, nan, a sign or spaces. */
	const char *p = s + (*s == '-');
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p = skip_digits(p);
	else
		return -1;
	if (*p == '.') {
		const char *frac = ++p;
		if ((p = skip_digits(p)) == frac)
			return -1;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		p += *p == '+' || *p == '-';
		const char *exp = p;
		if ((p = skip_digits(p)) == exp)
			return -1;
	}
	if (*p)
		return -1;
	errno = 0;
	double v = strtod(s, NULL);
	if (errno == ERANGE || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int rig_frames__max_bytes(struct rig_req *req, struct rig_resp *resp, size_t *out)
{
	*out = RIG_DEFAULT_PAGE_BYTES;
	const char *mb = rig_api__query(req, "maxBytes");
	if (!mb)
		return 0;
	unsigned long long n;
	if (rig_api__parse_count(&n, mb) || n == 0) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "maxBytes"),
			    "maxBytes must be a positive integer");
		return -1;
	}
	*out = n > RIG_MAX_PAGE_BYTES ? RIG_MAX_PAGE_BYTES : (size_t)n;
	return 0;
}

int rig_frames__space(struct rig_req *req, struct rig_resp *resp, bool *shot_space)
{
	const char *space = rig_api__query(req, "space");
	*shot_space = space && !strcmp(space, "shot");
	if (space && strcmp(space, "shot") && strcmp(space, "local")) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "space"),
			    "space must be 'local' or 'shot'");
		return -1;
	}
	return 0;
}

/* ?format=json|f32[|obj]. 0, or -1 with resp filled (400). */
static int read_format(struct rig_req *req, struct rig_resp *resp, bool allow_obj,
		       enum rig_frame_format *out)
{
	const char *f = rig_api__query(req, "format");
	*out = RIG_FRAMES_JSON;
	if (!f || !strcmp(f, "json"))
		return 0;
	if (!strcmp(f, "f32")) {
		*out = RIG_FRAMES_F32;
		return 0;
	}
	if (allow_obj && !strcmp(f, "obj")) {
		*out = RIG_FRAMES_OBJ;
		return 0;
	}
	rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "format"),
		    allow_obj ? "format must be json, f32 or obj" : "format must be json or f32");
	return -1;
}

/* ?f32Version: 1 (the default) or 2, for format f32 only. 0, or -1 with resp
 * filled (400). */
static int read_f32_version(struct rig_req *req, struct rig_resp *resp,
			    enum rig_frame_format format, uint32_t *out)
{
	const char *v = rig_api__query(req, "f32Version");
	*out = RIG_F32_VERSION_PLAIN;
	if (!v)
		return 0;
	if (format != RIG_FRAMES_F32) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "f32Version"),
			    "f32Version applies to format f32 only");
		return -1;
	}
	if (strcmp(v, "1") != 0 && strcmp(v, "2") != 0) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "f32Version"),
			    "f32Version must be 1 or 2");
		return -1;
	}
	*out = v[0] == '2' ? RIG_F32_VERSION_TAGGED : RIG_F32_VERSION_PLAIN;
	return 0;
}

long long rig_frames__token_version(struct rig_app *app, const char *token, const char *kind)
{
	json_t *t = token ? rig_api__token_open(app, token) : NULL;
	json_t *v = json_object_get(t, "v");
	const char *k = json_string_value(json_object_get(t, "k"));
	long long version =
		k && !strcmp(k, kind) && json_is_integer(v) && json_integer_value(v) >= 0
			? (long long)json_integer_value(v)
			: -1;
	json_decref(t);
	return version;
}

long long rig_frames__pinned_version(struct rig_req *req, const char *kind)
{
	return rig_frames__token_version(req->app, rig_api__query(req, "pageToken"), kind);
}

/* ---- the ETag ---- */

/* The hash a frame query's ETag is made of: the path, then each parameter's
 * name and value (an absent one adds its name alone, a bare one its NUL). */
static void query_hash(char out[RIG_SHA256_HEX_SIZE], struct rig_req *req)
{
	static const char *const params[] = {"layers",   "space",    "format",    "f32Version",
					     "from",     "to",       "step",      "frame",
					     "pageSize", "maxBytes", "pageToken", NULL};
	struct sha256_ctx s;
	sha256_init(&s);
	rig_sha256_field(&s, req->path);
	for (const char *const *p = params; *p; p++) {
		const char *v = rig_api__query(req, *p);
		rig_sha256_field(&s, *p);
		if (v)
			rig_sha256_field(&s, v);
	}
	rig_sha256_hex(out, &s);
}

/* Sets the strong ETag "<version>-<16 hex digits of hash>"; true (and
 * status 304) when the If-None-Match header (may be NULL) names it. */
static bool answer_etag(struct rig_resp *resp, const char *hash, long long version,
			const char *if_none_match)
{
	char tag[64];
	snprintf(tag, sizeof tag, "\"%lld-%.16s\"", version, hash);
	rig_resp_header(resp, "ETag", "%s", tag);
	if (rig_api__none_match_header(if_none_match, tag)) {
		resp->status = 304;
		return true;
	}
	return false;
}

bool rig_frames__etag(struct rig_req *req, struct rig_resp *resp, long long version)
{
	char hash[RIG_SHA256_HEX_SIZE];
	query_hash(hash, req);
	return answer_etag(resp, hash, version, rig_api__header(req, "If-None-Match"));
}

bool rig_frames__query_etag(const struct rig_frames_query *q, struct rig_resp *resp,
			    long long version)
{
	return answer_etag(resp, q->query_hash, version, q->if_none_match);
}

/* ---- the typed request ---- */

/* Splits ?layers into its well-formed ids and how the list ends (see
 * struct rig_frames_layers). 0, or -1 when out of memory. */
static int read_layers(struct rig_frames_layers *out, const char *list)
{
	out->given = list != NULL;
	if (!list)
		return 0;
	if (!*list) {
		out->end = RIG_FRAMES_LIST_MALFORMED;
		return 0;
	}
	size_t most = 1;
	for (const char *c = list; (c = strchr(c, ',')); c++)
		most++;
	if (!(out->ids = malloc(most * sizeof *out->ids)))
		return -1;
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len > RIG_ID_MAX) {
			out->end = RIG_FRAMES_LIST_MALFORMED;
			break;
		}
		out->ids[out->n_ids++] = (struct rig_frames_id){p, len};
		p += len + (comma ? 1 : 0);
		if (comma && !*p) {
			out->end = RIG_FRAMES_LIST_TRAILING_COMMA;
			break;
		}
	}
	return 0;
}

/* ?from, ?to or ?step: absent, a finite number, or given but not one. */
static void read_number(struct rig_frames_number *out, struct rig_req *req, const char *name)
{
	const char *v = rig_api__query(req, name);
	out->given = v != NULL;
	out->finite = v && rig_frames__parse_frame(&out->value, v) == 0;
}

int rig_frames__query_parse(struct rig_frames_query *out, struct rig_req *req,
			    struct rig_resp *resp, unsigned reads, const char *pages)
{
	memset(out, 0, sizeof *out);
	out->shot_id = req->params[0];
	out->f32_version = RIG_F32_VERSION_PLAIN;
	out->version = -1;
	out->pinned_version = -1;
	if (reads & RIG_FQ_LAYER)
		out->layer_id = req->params[1];
	if ((reads & RIG_FQ_FRAME) && rig_frames__parse_frame(&out->frame, req->params[1]) != 0) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "frame"),
			    "frame must be a finite decimal number such as 12, -2.5 or 1e3");
		return -1;
	}
	if ((reads & RIG_FQ_PAGE_SIZE) && rig_api__page_size(req, resp, &out->page_size))
		return -1;
	if ((reads & RIG_FQ_SPACE) && rig_frames__space(req, resp, &out->shot_space))
		return -1;
	if ((reads & (RIG_FQ_FORMAT | RIG_FQ_FORMAT_OBJ)) &&
	    read_format(req, resp, reads & RIG_FQ_FORMAT_OBJ, &out->format))
		return -1;
	if ((reads & RIG_FQ_F32_VERSION) &&
	    read_f32_version(req, resp, out->format, &out->f32_version))
		return -1;
	if ((reads & RIG_FQ_LAYERS) &&
	    read_layers(&out->layers, rig_api__query(req, "layers")) != 0) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		return -1;
	}
	if (reads & RIG_FQ_RANGE) {
		read_number(&out->from, req, "from");
		read_number(&out->to, req, "to");
		read_number(&out->step, req, "step");
	}
	const char *version = rig_api__query(req, "version");
	out->version_bad = rig_api__version_parse(version, &out->version) != 0;
	snprintf(out->version_text, sizeof out->version_text, "%.20s", version ? version : "");
	if (pages) {
		out->page_token = rig_api__query(req, "pageToken");
		out->pinned_version = rig_frames__token_version(req->app, out->page_token, pages);
	}
	out->if_none_match = rig_api__header(req, "If-None-Match");
	query_hash(out->query_hash, req);
	return 0;
}

void rig_frames__query_release(struct rig_frames_query *q)
{
	free(q->layers.ids);
	q->layers.ids = NULL;
	q->layers.n_ids = 0;
}

/* INVALID_QUERY for a range of more than RIG_MAX_RANGE_FRAMES frames, naming
 * step when step caused it (the same from..to at step 1 would fit). The count
 * is printed whole below 1e15 and in short form past it, so the detail is
 * never cut, and every number it quotes is a member. */
static void range_too_long(struct rig_resp *resp, double from, double to, double step, double count)
{
	char frames[32];
	snprintf(frames, sizeof frames, count < 1e15 ? "%.0f" : "%.3g", count);
	bool by_step = rig_range_step_caused(from, to, step, RIG_MAX_RANGE_FRAMES);
	json_t *extra =
		json_pack("{s:s, s:i, s:i}", "parameter", by_step ? "step" : "to", "maxRangeFrames",
			  RIG_MAX_RANGE_FRAMES, "limit", RIG_MAX_RANGE_FRAMES);
	if (isfinite(count))
		json_object_set_new(extra, "frameCount",
				    count < 9007199254740992.0 ? json_integer((json_int_t)count)
							       : json_real(count));
	if (by_step) {
		json_object_set_new(extra, "step", json_real(step));
		rig_problem(resp, RIG_INVALID_QUERY, extra,
			    "step %.17g makes the range %s frames; the limit is %d", step, frames,
			    RIG_MAX_RANGE_FRAMES);
	} else {
		rig_problem(resp, RIG_INVALID_QUERY, extra,
			    "the range has %s frames; the limit is %d", frames,
			    RIG_MAX_RANGE_FRAMES);
	}
}

int rig_frames__query_range(const struct rig_frames_query *q, const struct rig_shot_model *m,
			    struct rig_resp *resp, struct rig_frame_range *out, double *out_to)
{
	static const char *const names[3] = {"from", "to", "step"};
	const struct rig_frames_number *given[3] = {&q->from, &q->to, &q->step};
	double v[3] = {m->frame_start, m->frame_end, 1}, count;
	for (int i = 0; i < 3; i++) {
		if (given[i]->given && !given[i]->finite) {
			rig_problem(resp, RIG_INVALID_QUERY,
				    json_pack("{s:s}", "parameter", names[i]),
				    "%s must be a finite decimal number such as 12, -2.5 or 1e3",
				    names[i]);
			return -1;
		}
		if (given[i]->given)
			v[i] = given[i]->value;
	}
	double from = v[0], to = v[1], step = v[2];
	switch (rig_range_rules(from, to, step, RIG_MAX_RANGE_FRAMES, &count)) {
	case RIG_RANGE_OK:
		break;
	case RIG_RANGE_STEP:
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "step"),
			    "step must be greater than 0");
		return -1;
	case RIG_RANGE_ORDER:
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "to"),
			    "to must not be before from");
		return -1;
	case RIG_RANGE_LENGTH:
		range_too_long(resp, from, to, step, count);
		return -1;
	}
	*out = (struct rig_frame_range){from, step, (size_t)count};
	if (out_to)
		*out_to = to;
	return 0;
}
