/* The frame routes' request (api/handlers/frames_query.c), parsed from a fake
 * request: what each parameter becomes, which problems the parse reports and
 * in what order, which it keeps for the shot, and that its ETag is the one
 * the other frame handlers compute from the raw query. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "api/handlers/frames_query.h"

struct fake {
	const char *const *query;  /* name, value, …, NULL */
	const char *if_none_match; /* or NULL */
};

static const char *fake_query(void *ctx, const char *name)
{
	const struct fake *f = ctx;
	for (const char *const *p = f->query; p && *p; p += 2)
		if (!strcmp(*p, name))
			return p[1];
	return NULL;
}

static const char *fake_header(void *ctx, const char *name)
{
	const struct fake *f = ctx;
	return !strcmp(name, "If-None-Match") ? f->if_none_match : NULL;
}

static struct rig_req fake_req(struct fake *f, const char *path, const char *param1)
{
	struct rig_req req;
	memset(&req, 0, sizeof req);
	req.method = "GET";
	req.path = path;
	req.query = fake_query;
	req.header = fake_header;
	req.ctx = f;
	strcpy(req.params[0], "s1");
	strcpy(req.params[1], param1);
	return req;
}

/* The parameter a 400 problem names ("" when none); releases resp. */
static char *problem_parameter(struct rig_resp *resp)
{
	static char out[64];
	out[0] = '\0';
	json_t *body = json_loadb(resp->body, resp->body_len, 0, NULL);
	const char *p = json_string_value(json_object_get(body, "parameter"));
	if (p)
		snprintf(out, sizeof out, "%s", p);
	json_decref(body);
	rig_resp_release(resp);
	return out;
}

static const unsigned FRAME_ROUTE = RIG_FQ_FRAME | RIG_FQ_SPACE | RIG_FQ_FORMAT | RIG_FQ_LAYERS;
static const unsigned RANGE_ROUTE =
	RIG_FQ_LAYER | RIG_FQ_SPACE | RIG_FQ_FORMAT_OBJ | RIG_FQ_F32_VERSION | RIG_FQ_RANGE;

/* Parses query for reads; returns the parameter the problem names, or NULL
 * when the parse succeeded (q then holds the request; release it). */
static const char *parse(struct rig_frames_query *q, const char *const *query, unsigned reads,
			 const char *param1)
{
	struct fake f = {query, NULL};
	struct rig_req req = fake_req(&f, "/v1/shots/s1/x", param1);
	struct rig_resp resp;
	memset(&resp, 0, sizeof resp);
	int rc = rig_frames__query_parse(q, &req, &resp, reads, NULL);
	if (rc == 0) {
		cr_assert_eq(resp.status, 0);
		return NULL;
	}
	cr_assert_eq(resp.status, 400);
	rig_frames__query_release(q);
	return problem_parameter(&resp);
}

Test(frames_query, reads_each_parameter_into_its_field)
{
	struct rig_frames_query q;
	const char *query[] = {"space", "shot", "format", "f32",     "f32Version", "2", "from",
			       "-2.5",  "to",   "x",      "version", "007",        NULL};
	cr_assert_null(parse(&q, query, RANGE_ROUTE, "mesh"));
	cr_assert_str_eq(q.shot_id, "s1");
	cr_assert_str_eq(q.layer_id, "mesh");
	cr_assert(q.shot_space);
	cr_assert_eq(q.format, RIG_FRAMES_F32);
	cr_assert_eq(q.f32_version, RIG_F32_VERSION_TAGGED);
	cr_assert(q.from.given && q.from.finite && q.from.value == -2.5);
	cr_assert(q.to.given && !q.to.finite);
	cr_assert(!q.step.given);
	cr_assert_eq(q.version, 7);
	cr_assert_not(q.version_bad);
	cr_assert_str_eq(q.version_text, "007");
	cr_assert_eq(q.pinned_version, -1);
	cr_assert_null(q.page_token);
	rig_frames__query_release(&q);
}

Test(frames_query, keeps_a_bad_version_for_the_opening)
{
	struct rig_frames_query q;
	const char *bad[] = {"version", "abc", NULL};
	cr_assert_null(parse(&q, bad, FRAME_ROUTE, "3"));
	cr_assert(q.version_bad);
	cr_assert_eq(q.version, -1);
	rig_frames__query_release(&q);
	const char *absent[] = {NULL};
	cr_assert_null(parse(&q, absent, FRAME_ROUTE, "3"));
	cr_assert_not(q.version_bad);
	cr_assert_eq(q.version, -1);
	cr_assert_str_eq(q.version_text, "");
	rig_frames__query_release(&q);
	const char *is_long[] = {"version", "123456789012345678901234", NULL};
	cr_assert_null(parse(&q, is_long, FRAME_ROUTE, "3"));
	cr_assert(q.version_bad);
	cr_assert_str_eq(q.version_text, "12345678901234567890");
	rig_frames__query_release(&q);
}

Test(frames_query, reports_the_first_bad_parameter_in_the_routes_order)
{
	struct rig_frames_query q;
	const char *all_bad[] = {"space", "x",      "format", "x", "f32Version",
				 "9",     "layers", "",       NULL};
	cr_assert_str_eq(parse(&q, all_bad, FRAME_ROUTE, "nan"), "frame");
	cr_assert_str_eq(parse(&q, all_bad, FRAME_ROUTE, "3"), "space");
	const char *format_bad[] = {"format", "obj", "f32Version", "9", NULL};
	cr_assert_str_eq(parse(&q, format_bad, FRAME_ROUTE, "3"), "format");
	/* obj is a range's format; f32Version is for f32 only, then 1 or 2. */
	cr_assert_str_eq(parse(&q, format_bad, RANGE_ROUTE, "mesh"), "f32Version");
	const char *version_without_f32[] = {"f32Version", "2", NULL};
	cr_assert_str_eq(parse(&q, version_without_f32, RANGE_ROUTE, "mesh"), "f32Version");
	const char *page_size[] = {"pageSize", "0", "from", "x", NULL};
	cr_assert_str_eq(parse(&q, page_size, RIG_FQ_PAGE_SIZE | RIG_FQ_RANGE, ""), "pageSize");
	/* What waits for the shot is not reported here. */
	const char *later[] = {"from", "x", "layers", ",", "version", "x", NULL};
	cr_assert_null(parse(&q, later, FRAME_ROUTE | RIG_FQ_RANGE, "3"));
	rig_frames__query_release(&q);
}

/* The ids of ?layers=list and how it ends. */
static void check_layers(const char *list, size_t n_ids, const char *first,
			 enum rig_frames_list_end end)
{
	struct rig_frames_query q;
	const char *query[] = {"layers", list, NULL};
	cr_assert_null(parse(&q, list ? query : query + 2, FRAME_ROUTE, "3"));
	cr_assert_eq(q.layers.given, list != NULL, "%s", list);
	cr_assert_eq(q.layers.n_ids, n_ids, "%s", list);
	if (first)
		cr_assert(q.layers.ids[0].len == strlen(first) &&
				  !memcmp(q.layers.ids[0].ptr, first, strlen(first)),
			  "%s", list);
	cr_assert_eq(q.layers.end, end, "%s", list);
	rig_frames__query_release(&q);
}

Test(frames_query, splits_layers_into_ids_and_how_the_list_ends)
{
	char long_id[RIG_ID_MAX + 2];
	memset(long_id, 'x', sizeof long_id - 1);
	long_id[sizeof long_id - 1] = '\0';
	check_layers(NULL, 0, NULL, RIG_FRAMES_LIST_OK);
	check_layers("m", 1, "m", RIG_FRAMES_LIST_OK);
	check_layers("m,nn,o", 3, "m", RIG_FRAMES_LIST_OK);
	check_layers("", 0, NULL, RIG_FRAMES_LIST_MALFORMED);
	check_layers(",m", 0, NULL, RIG_FRAMES_LIST_MALFORMED);
	check_layers("m,,n", 1, "m", RIG_FRAMES_LIST_MALFORMED);
	check_layers("m,", 1, "m", RIG_FRAMES_LIST_TRAILING_COMMA);
	check_layers(long_id, 0, NULL, RIG_FRAMES_LIST_MALFORMED);
	long_id[RIG_ID_MAX] = '\0';
	check_layers(long_id, 1, long_id, RIG_FRAMES_LIST_OK);
}

Test(frames_query, range_takes_the_shots_defaults_and_names_the_first_bad_bound)
{
	struct rig_shot_model m;
	memset(&m, 0, sizeof m);
	m.frame_start = 10;
	m.frame_end = 14;
	struct rig_frames_query q;
	struct rig_frame_range r;
	double to = 0;
	struct rig_resp resp;
	memset(&resp, 0, sizeof resp);
	const char *none[] = {NULL};
	cr_assert_null(parse(&q, none, RIG_FQ_RANGE, ""));
	cr_assert_eq(rig_frames__query_range(&q, &m, &resp, &r, &to), 0);
	cr_assert(r.from == 10 && r.step == 1 && r.n_frames == 5 && to == 14);
	rig_frames__query_release(&q);
	const char *half[] = {"step", "0.5", "to", "11", NULL};
	cr_assert_null(parse(&q, half, RIG_FQ_RANGE, ""));
	cr_assert_eq(rig_frames__query_range(&q, &m, &resp, &r, NULL), 0);
	cr_assert(r.from == 10 && r.step == 0.5 && r.n_frames == 3);
	rig_frames__query_release(&q);
	const char *bad_to_and_step[] = {"to", "x", "step", "y", NULL};
	cr_assert_null(parse(&q, bad_to_and_step, RIG_FQ_RANGE, ""));
	cr_assert_eq(rig_frames__query_range(&q, &m, &resp, &r, NULL), -1);
	cr_assert_str_eq(problem_parameter(&resp), "to");
	rig_frames__query_release(&q);
	const char *backwards[] = {"from", "20", NULL};
	cr_assert_null(parse(&q, backwards, RIG_FQ_RANGE, ""));
	cr_assert_eq(rig_frames__query_range(&q, &m, &resp, &r, NULL), -1);
	cr_assert_str_eq(problem_parameter(&resp), "to");
	rig_frames__query_release(&q);
}

static const char *etag_of(const struct rig_resp *resp)
{
	for (size_t i = 0; i < resp->n_headers; i++)
		if (!strcmp(resp->headers[i].name, "ETag"))
			return resp->headers[i].value;
	return NULL;
}

Test(frames_query, its_etag_is_the_one_of_the_raw_query)
{
	const char *query[] = {"layers", "a,b", "space", "", "from", "2", NULL};
	struct fake f = {query, NULL};
	struct rig_req req = fake_req(&f, "/v1/shots/s1/frames/3", "3");
	struct rig_resp raw, typed;
	memset(&raw, 0, sizeof raw);
	memset(&typed, 0, sizeof typed);
	struct rig_frames_query q;
	cr_assert_eq(rig_frames__query_parse(&q, &req, &typed, RIG_FQ_LAYERS, NULL), 0);
	cr_assert_not(rig_frames__etag(&req, &raw, 12));
	cr_assert_not(rig_frames__query_etag(&q, &typed, 12));
	cr_assert_not_null(etag_of(&raw));
	cr_assert_str_eq(etag_of(&typed), etag_of(&raw));
	cr_assert_eq(strncmp(etag_of(&raw), "\"12-", 4), 0);
	rig_frames__query_release(&q);
	/* If-None-Match is read with the query: a match is a 304. */
	char tag[64];
	snprintf(tag, sizeof tag, "W/%s", etag_of(&raw));
	f.if_none_match = tag;
	memset(&typed, 0, sizeof typed);
	cr_assert_eq(rig_frames__query_parse(&q, &req, &typed, RIG_FQ_LAYERS, NULL), 0);
	cr_assert(rig_frames__query_etag(&q, &typed, 12));
	cr_assert_eq(typed.status, 304);
	rig_frames__query_release(&q);
	memset(&typed, 0, sizeof typed);
	cr_assert_eq(rig_frames__query_parse(&q, &req, &typed, RIG_FQ_LAYERS, NULL), 0);
	cr_assert_not(rig_frames__query_etag(&q, &typed, 13));
	rig_frames__query_release(&q);
}
