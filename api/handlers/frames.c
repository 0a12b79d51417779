/* Evaluated vertices: one frame of a shot's skinned layers and map-points.
 * Frame ranges stream from frame_range.c. All share rig_eval (evaluate.h) and
 * the encoders of api/eval/frame_encode.h.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/eval/evaluate.h"
#include "api/handlers/frames.h"
#include "api/handlers/handlers.h"
#include "api/http/paging.h"
#include "api/http/request.h"
#include "api/util/jsonread.h"
#include "api/util/sha256.h"
#include "core/rig_limits.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

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

int rig_frames__format(struct rig_req *req, struct rig_resp *resp, bool allow_obj,
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

int rig_frames__range(struct rig_req *req, struct rig_resp *resp, const struct rig_shot_model *m,
		      struct rig_frame_range *out, double *out_to)
{
	double from = m->frame_start, to = m->frame_end, step = 1, count;
	const char *names[3] = {"from", "to", "step"};
	double *fields[3] = {&from, &to, &step};
	for (int i = 0; i < 3; i++) {
		const char *v = rig_api__query(req, names[i]);
		if (v && rig_frames__parse_frame(fields[i], v) != 0) {
			rig_problem(resp, RIG_INVALID_QUERY,
				    json_pack("{s:s}", "parameter", names[i]),
				    "%s must be a finite decimal number such as 12, -2.5 or 1e3",
				    names[i]);
			return -1;
		}
	}
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

bool rig_frames__etag(struct rig_req *req, struct rig_resp *resp, long long version)
{
	/* Strong ETag of the shot version and the whole query (path + parameters). */
	struct rig_sha256 s;
	unsigned char digest[RIG_SHA256_SIZE];
	char hex[RIG_SHA256_HEX_SIZE];
	rig_sha256_init(&s);
	rig_sha256_update(&s, req->path, strlen(req->path) + 1);
	static const char *const params[] = {"layers",   "space",    "format",    "f32Version",
					     "from",     "to",       "step",      "frame",
					     "pageSize", "maxBytes", "pageToken", NULL};
	for (const char *const *p = params; *p; p++) {
		const char *v = rig_api__query(req, *p);
		rig_sha256_update(&s, *p, strlen(*p) + 1);
		rig_sha256_update(&s, v ? v : "", v ? strlen(v) + 1 : 0);
	}
	rig_sha256_final(digest, &s);
	rig_hex32(hex, digest);
	char tag[64];
	snprintf(tag, sizeof tag, "\"%lld-%.16s\"", version, hex);
	rig_resp_header(resp, "ETag", "%s", tag);
	if (rig_api__none_match(req, tag)) {
		resp->status = 304;
		return true;
	}
	return false;
}

int rig_frames__open_at(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
			struct rig_resp *resp, long long pinned)
{
	long long version = pinned;
	if (pinned < 0 && rig_api__version(req, resp, &version)) {
		memset(ev, 0, sizeof *ev);
		return -1;
	}
	int rc = rig_eval_open_at(ev, tx, req->app->read_cache, req->params[0], version);
	long long oldest = 0, head = 0;
	if (rc == -RIG_VERSION_COMPACTED && pinned >= 0 &&
	    rig_shot_versions(tx, req->params[0], &oldest, &head) == 0) {
		/* A token outliving its version: SPEC §7's stale token, restart paging. */
		rig_problem(
			resp, RIG_PAGE_TOKEN_STALE,
			json_pack("{s:I, s:I, s:I}", "tokenVersion", (json_int_t)pinned,
				  "shotVersion", (json_int_t)head, "oldestVersion",
				  (json_int_t)oldest),
			"this page token's version %lld is no longer retained (versions %lld to "
			"%lld are); start paging again",
			pinned, oldest, head);
		return -1;
	}
	if (rc) {
		rig_api__fail_shot_at(resp, tx, rc, req->params[0], version);
		return -1;
	}
	return 0;
}

bool rig_frames__reserve(struct rig_req *req, struct rig_resp *resp, struct rig_mem_claim *claim,
			 size_t bytes, const char *what)
{
	if (rig_membudget_reserve(req->app->budget, claim, bytes))
		return true;
	rig_problem(resp, RIG_MEMORY_BUSY,
		    json_pack("{s:I, s:I}", "memoryBudgetBytes",
			      (json_int_t)rig_membudget_limit(req->app->budget), "requestedBytes",
			      (json_int_t)bytes),
		    "the server's memory budget cannot hold %s now", what);
	return false;
}

long long rig_frames__pinned_version(struct rig_req *req, const char *kind)
{
	const char *token = rig_api__query(req, "pageToken");
	json_t *t = token ? rig_api__token_open(req->app, token) : NULL;
	json_t *v = json_object_get(t, "v");
	const char *k = json_string_value(json_object_get(t, "k"));
	long long version =
		k && !strcmp(k, kind) && json_is_integer(v) && json_integer_value(v) >= 0
			? (long long)json_integer_value(v)
			: -1;
	json_decref(t);
	return version;
}

int rig_frames__open(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
		     struct rig_resp *resp)
{
	return rig_frames__open_at(ev, tx, req, resp, -1);
}

long rig_frames__find_skinned(struct rig_eval *ev, const char *layer_id, struct rig_resp *resp)
{
	long s = rig_eval_find_skinned(ev, layer_id);
	if (s == -RIG_NOT_FOUND)
		rig_problem_no_layer(resp, ev->model->id, layer_id);
	else if (s == -RIG_MESH_BINDING_KIND)
		rig_problem(resp, RIG_MESH_BINDING_KIND, json_pack("{s:s}", "layerId", layer_id),
			    "layer '%s' has no binding to evaluate", layer_id);
	return s < 0 ? -1 : s;
}

/* Answers an evaluation failure: 422 with every error, each naming layer and frame. */
void rig_frames__eval_failed(struct rig_resp *resp, const struct rig_errs *errs)
{
	rig_problem_errs(resp, errs, 0);
}

/* ---- GET /v1/shots/{shotId}/frames/{frame} ---- */

/* Fills targets with the scene indices to evaluate: ?layers=a,b or every skinned mesh layer. */
static long pick_layers(long *targets, struct rig_eval *ev, const char *list, struct rig_resp *resp)
{
	long n = 0;
	if (!list) {
		for (size_t i = 0; i < ev->model->n_layers; i++)
			if (!ev->model->layers[i].deleted && ev->model->layers[i].binding.type)
				targets[n++] = ev->view.index_of[i];
		return n;
	}
	if (!*list) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "layers"),
			    "layers must be a comma-separated list of layer ids");
		return -1;
	}
	const char *p = list;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char id[RIG_ID_MAX + 1];
		if (len == 0 || len > RIG_ID_MAX || (size_t)n >= ev->view.scene.n_layers) {
			rig_problem(resp, RIG_INVALID_QUERY,
				    json_pack("{s:s}", "parameter", "layers"),
				    "layers must be a comma-separated list of layer ids");
			return -1;
		}
		memcpy(id, p, len);
		id[len] = '\0';
		long s = rig_frames__find_skinned(ev, id, resp);
		if (s < 0)
			return -1;
		targets[n++] = s;
		p += len + (comma ? 1 : 0);
		if (comma && !*p) {
			rig_problem(resp, RIG_INVALID_QUERY,
				    json_pack("{s:s}", "parameter", "layers"),
				    "layers must not end with a comma");
			return -1;
		}
	}
	return n;
}

void rig_h_frame(struct rig_req *req, struct rig_resp *resp)
{
	double frame;
	bool shot_space;
	enum rig_frame_format fmt;
	if (rig_frames__parse_frame(&frame, req->params[1]) != 0) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "frame"),
			    "frame must be a finite decimal number such as 12, -2.5 or 1e3");
		return;
	}
	if (rig_frames__space(req, resp, &shot_space) || rig_frames__format(req, resp, false, &fmt))
		return;
	struct rig_eval ev;
	struct rig_errs *errs = rig_api__errs_new(resp);
	if (!errs)
		return;
	long *targets = NULL;
	double **results = NULL;
	struct rig_resolver *r = NULL;
	struct rig_tx *tx = rig_store_read(req->app->store);
	if (rig_frames__open(&ev, tx, req, resp) != 0)
		goto out;
	targets = calloc(ev.view.scene.n_layers + 1, sizeof *targets);
	results = calloc(ev.view.scene.n_layers + 1, sizeof *results);
	if (!targets || !results) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		goto out;
	}
	long n = pick_layers(targets, &ev, rig_api__query(req, "layers"), resp);
	if (n < 0)
		goto out;
	if (fmt == RIG_FRAMES_F32 && n != 1) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "layers"),
			    "format f32 needs exactly one layer (use ?layers=<id>)");
		goto out;
	}
	if (rig_frames__etag(req, resp, ev.model->version))
		goto out;
	for (long i = 0; i < n; i++)
		if (rig_eval_prepare(&ev, targets[i], shot_space, errs) != 0) {
			rig_frames__eval_failed(resp, errs);
			goto out;
		}
	rig_tx_end(tx); /* rolls the read snapshot back; skins are loaded */
	tx = NULL;
	if (!(r = rig_resolver_new(&ev.view.scene))) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		goto out;
	}
	for (long i = 0; i < n; i++) {
		size_t nv = rig_eval_mesh(&ev, targets[i])->n_verts;
		results[i] = malloc(2 * nv * sizeof **results);
		if (!results[i] ||
		    rig_eval_frame(results[i], r, &ev, targets[i], frame, shot_space, errs) != 0) {
			if (!results[i])
				rig_errs_add(errs, RIG_INTERNAL, "out of memory");
			rig_frames__eval_failed(resp, errs);
			goto out;
		}
	}
	struct rig_buf b;
	rig_buf_init(&b);
	if (fmt == RIG_FRAMES_F32) {
		size_t nv = rig_eval_mesh(&ev, targets[0])->n_verts;
		rig_buf_reserve(&b, 16 + 8 + 8 * nv);
		rig_frames__f32_header(&b, RIG_F32_VERSION_PLAIN, (uint32_t)nv, 1);
		if (rig_frames__f32_frame(&b, frame, results[0], nv) != 0) {
			const struct rig_eval_mesh *d = rig_eval_mesh(&ev, targets[0]);
			rig_buf_release(&b);
			rig_frames__f32_report(errs, results[0], nv, d->triangles, d->n_tris,
					       ev.view.layers[targets[0]].id, frame);
			rig_frames__eval_failed(resp, errs);
			goto out;
		}
	} else {
		rig_buf_puts(&b, "{\"shotId\":");
		rig_buf_json_string(&b, ev.model->id);
		rig_buf_printf(&b, ",\"shotVersion\":%lld,\"frame\":", ev.model->version);
		rig_buf_double(&b, frame);
		rig_buf_printf(&b, ",\"space\":\"%s\",\"layers\":[", shot_space ? "shot" : "local");
		for (long i = 0; i < n; i++) {
			long s = targets[i];
			rig_buf_puts(&b, i ? ",{\"layerId\":" : "{\"layerId\":");
			rig_buf_json_string(&b, ev.view.layers[s].id);
			rig_buf_puts(&b, ",\"vertices\":");
			rig_frames__json_vertices(&b, results[i], rig_eval_mesh(&ev, s)->n_verts);
			rig_buf_puts(&b, "}");
		}
		rig_buf_puts(&b, "]}");
	}
	rig_resp_buf(resp, 200, &b,
		     fmt == RIG_FRAMES_F32 ? "application/octet-stream" : "application/json");
out:
	for (long i = 0; results && i < (long)ev.view.scene.n_layers; i++)
		free(results[i]);
	free(results);
	free(targets);
	rig_resolver_free(r);
	rig_eval_release(&ev);
	rig_errs_free(errs);
	if (tx)
		rig_tx_end(tx);
}

/* ---- POST /v1/shots/{shotId}/layers/{layerId}/map-points ---- */

/* Where each point sat in the source mesh, in request order:
 * {triangleIndex, barycentric, inside} and, outside, its distance. */
static void json_sites(struct rig_buf *b, const struct rig_mesh_site *sites, size_t n)
{
	rig_buf_puts(b, "[");
	for (size_t i = 0; i < n; i++) {
		const struct rig_mesh_site *s = &sites[i];
		rig_buf_printf(b, "%s{\"triangleIndex\":%" PRIu32 ",\"barycentric\":[",
			       i ? "," : "", s->triangle);
		for (int k = 0; k < 3; k++) {
			if (k)
				rig_buf_puts(b, ",");
			rig_buf_double(b, s->w[k]);
		}
		rig_buf_printf(b, "],\"inside\":%s", s->inside ? "true" : "false");
		if (!s->inside) {
			rig_buf_puts(b, ",\"distance\":");
			rig_buf_double(b, s->distance);
		}
		rig_buf_puts(b, "}");
	}
	rig_buf_puts(b, "]");
}

void rig_h_map_points(struct rig_req *req, struct rig_resp *resp)
{
	bool shot_space;
	if (rig_frames__space(req, resp, &shot_space))
		return;
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	double *xy = NULL;
	struct rig_mesh_site *sites = NULL;
	struct rig_resolver *r = NULL;
	struct rig_mem_claim claim = {0, 0};
	struct rig_eval ev;
	memset(&ev, 0, sizeof ev);
	struct rig_tx *tx = NULL;
	if (!errs)
		goto out;
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"frame", "points", NULL};
	double frame = 0;
	rig_jr_known(&jr, body, allowed);
	rig_jr_number(&jr, body, "frame", true, &frame, NULL);
	json_t *points = json_object_get(body, "points");
	size_t n = json_array_size(points);
	if (!json_is_array(points) || n > RIG_MAX_MAP_POINTS)
		rig_jr_fail(&jr, "points", "points must be an array of up to %d [x, y] pairs",
			    RIG_MAX_MAP_POINTS);
	else if (!(xy = malloc((n ? n : 1) * 2 * sizeof *xy)))
		goto oom;
	for (size_t i = 0; xy && i < n && !rig_errs_any(errs); i++) {
		json_t *p = json_array_get(points, i);
		if (!json_is_array(p) || json_array_size(p) != 2 ||
		    !json_is_number(json_array_get(p, 0)) ||
		    !json_is_number(json_array_get(p, 1))) {
			char key[40];
			snprintf(key, sizeof key, "points/%zu", i);
			rig_jr_fail(&jr, key, "point %zu must be [x, y] with two numbers", i);
			break;
		}
		xy[2 * i] = json_number_value(json_array_get(p, 0));
		xy[2 * i + 1] = json_number_value(json_array_get(p, 1));
	}
	if (rig_errs_any(errs)) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	tx = rig_store_read(req->app->store);
	if (rig_frames__open(&ev, tx, req, resp) != 0)
		goto out;
	long layer = rig_frames__find_skinned(&ev, req->params[1], resp);
	if (layer < 0)
		goto out;
	if (rig_eval_prepare(&ev, layer, shot_space, errs) != 0) {
		rig_frames__eval_failed(resp, errs);
		goto out;
	}
	if (!(r = rig_resolver_new(&ev.view.scene)))
		goto oom;
	/* The index over the source mesh and the sites are held beyond the body. */
	size_t held = rig_eval_mesh(&ev, layer)->n_tris * RIG_MESH_INDEX_PEAK_BYTES_PER_TRIANGLE +
		      n * sizeof *sites;
	if (!rig_frames__reserve(req, resp, &claim, held, "this request's mesh index"))
		goto out;
	if (!(sites = malloc((n ? n : 1) * sizeof *sites)))
		goto oom;
	if (rig_eval_map_points(xy, sites, n, r, &ev, layer, frame, shot_space, errs) != 0) {
		rig_frames__eval_failed(resp, errs);
		goto out;
	}
	struct rig_buf b;
	rig_buf_init(&b);
	rig_buf_puts(&b, "{\"shotId\":");
	rig_buf_json_string(&b, ev.model->id);
	rig_buf_printf(&b, ",\"shotVersion\":%lld,\"layerId\":", ev.model->version);
	rig_buf_json_string(&b, req->params[1]);
	rig_buf_puts(&b, ",\"frame\":");
	rig_buf_double(&b, frame);
	rig_buf_printf(&b, ",\"space\":\"%s\",\"points\":", shot_space ? "shot" : "local");
	rig_frames__json_vertices(&b, xy, n);
	rig_buf_puts(&b, ",\"sites\":");
	json_sites(&b, sites, n);
	rig_buf_puts(&b, "}");
	rig_resp_buf(resp, 200, &b, NULL);
	goto out;
oom:
	rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
out:
	rig_resolver_free(r);
	rig_eval_release(&ev);
	if (tx)
		rig_tx_end(tx);
	free(xy);
	free(sites);
	rig_membudget_settle(req->app->budget, &claim);
	rig_errs_free(errs);
	json_decref(body);
}
