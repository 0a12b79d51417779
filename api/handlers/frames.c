/* Evaluated vertices: one frame of a shot's bound layers and map-points.
 * Frame ranges stream from frame_range.c. All share rig_eval (evaluate.h) and
 * the encoders of api/eval/frame_encode.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/eval/evaluate.h"
#include "api/handlers/frames.h"
#include "api/handlers/handlers.h"
#include "api/http/request.h"
#include "api/util/jsonread.h"
#include "core/rig_limits.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

/* Opens shot_id at `version` (-1: the head), which a page token pinned when
 * pinned >= 0: a compacted pinned version is 410 PAGE_TOKEN_STALE. On an I/O
 * thread only from the read cache: a miss hands the request to a worker
 * (resp->deferred). */
static int open_version(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
			struct rig_resp *resp, const char *shot_id, long long pinned,
			long long version)
{
	int rc =
		rig_eval_open_at(ev, tx, req->app->read_cache, shot_id, version, req->on_io_thread);
	if (rc == RIG_EVAL_NOT_CACHED) {
		resp->deferred = true;
		return -1;
	}
	long long oldest = 0, head = 0;
	if (rc == -RIG_VERSION_COMPACTED && pinned >= 0 &&
	    rig_shot_versions(tx, shot_id, &oldest, &head) == 0) {
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
		rig_api__fail_shot_at(resp, tx, rc, shot_id, version);
		return -1;
	}
	return 0;
}

int rig_frames__open_at(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
			struct rig_resp *resp, long long pinned)
{
	long long version = pinned;
	if (pinned < 0 && rig_api__version(req, resp, &version)) {
		memset(ev, 0, sizeof *ev);
		return -1;
	}
	return open_version(ev, tx, req, resp, req->params[0], pinned, version);
}

int rig_frames__query_open(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
			   struct rig_resp *resp, const struct rig_frames_query *q)
{
	long long pinned = q->pinned_version;
	if (pinned < 0 && q->version_bad) {
		memset(ev, 0, sizeof *ev);
		rig_api__version_refuse(resp);
		return -1;
	}
	return open_version(ev, tx, req, resp, q->shot_id, pinned,
			    pinned >= 0 ? pinned : q->version);
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

int rig_frames__open(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
		     struct rig_resp *resp)
{
	return rig_frames__open_at(ev, tx, req, resp, -1);
}

long rig_frames__find_bound(struct rig_eval *ev, const char *layer_id, struct rig_resp *resp)
{
	long s = rig_eval_find_bound(ev, layer_id);
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

static void layers_malformed(struct rig_resp *resp)
{
	rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "layers"),
		    "layers must be a comma-separated list of layer ids");
}

/* Fills targets (room for the scene's layers) with the scene indices to
 * evaluate: the ids of ?layers in order, or every bound mesh layer. Each id
 * is looked up before the list's end is judged, so a missing layer ahead of
 * a stray comma is that layer's 404; a list longer than the scene's layers is
 * malformed. Returns the count, or -1 with resp filled. */
static long pick_layers(long *targets, struct rig_eval *ev, const struct rig_frames_layers *list,
			struct rig_resp *resp)
{
	long n = 0;
	if (!list->given) {
		for (size_t i = 0; i < ev->model->n_layers; i++)
			if (!ev->model->layers[i].deleted && ev->model->layers[i].binding.type)
				targets[n++] = ev->view.index_of[i];
		return n;
	}
	for (size_t i = 0; i < list->n_ids; i++) {
		if (i >= ev->view.scene.n_layers) {
			layers_malformed(resp);
			return -1;
		}
		char id[RIG_ID_MAX + 1];
		memcpy(id, list->ids[i].ptr, list->ids[i].len);
		id[list->ids[i].len] = '\0';
		long s = rig_frames__find_bound(ev, id, resp);
		if (s < 0)
			return -1;
		targets[n++] = s;
	}
	if (list->end == RIG_FRAMES_LIST_MALFORMED) {
		layers_malformed(resp);
		return -1;
	}
	if (list->end == RIG_FRAMES_LIST_TRAILING_COMMA) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "layers"),
			    "layers must not end with a comma");
		return -1;
	}
	return n;
}

/* ?include=constraints (JSON only): the frame also lists each constraint's
 * solved points, what an editor draws of a chain. 0, or -1 with resp filled. */
static int include_constraints(struct rig_req *req, struct rig_resp *resp,
			       enum rig_frame_format fmt, bool *out)
{
	const char *inc = rig_api__query(req, "include");
	*out = inc && strcmp(inc, "constraints") == 0;
	if (inc && !*out) {
		rig_problem(resp, RIG_INVALID_QUERY,
			    json_pack("{s:s, s:[s]}", "parameter", "include", "validValues",
				      "constraints"),
			    "include '%.32s' is not constraints", inc);
		return -1;
	}
	if (*out && fmt != RIG_FRAMES_JSON) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "include"),
			    "include=constraints needs format json");
		return -1;
	}
	return 0;
}

/* ,"constraints":[{"constraintId", "points": [[x, y]…]}…]: every usable
 * constraint's chain origins and tip end in shot space, as solved. */
static void put_constraints(struct rig_buf *b, struct rig_resolver *r,
			    const struct rig_scene *scene, double frame)
{
	rig_buf_puts(b, ",\"constraints\":[");
	bool first = true;
	for (size_t k = 0; k < scene->n_constraints; k++) {
		double xy[2 * RIG_CONSTRAINT_MAX_POINTS];
		size_t n = rig_resolver_constraint_points(xy, r, k, frame);
		if (n == 0)
			continue;
		rig_buf_puts(b, first ? "{\"constraintId\":" : ",{\"constraintId\":");
		first = false;
		rig_buf_json_string(b, scene->constraints[k].id);
		rig_buf_puts(b, ",\"points\":");
		rig_frames__json_vertices(b, xy, n);
		rig_buf_puts(b, "}");
	}
	rig_buf_puts(b, "]");
}

void rig_h_frame(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_frames_query q;
	struct rig_eval ev;
	memset(&ev, 0, sizeof ev);
	struct rig_errs *errs = NULL;
	long *targets = NULL;
	double **results = NULL;
	struct rig_frame_note *notes = NULL; /* per target: what its binding says of the frame */
	struct rig_resolver *r = NULL;
	struct rig_tx *tx = NULL;
	if (rig_frames__query_parse(&q, req, resp,
				    RIG_FQ_FRAME | RIG_FQ_SPACE | RIG_FQ_FORMAT | RIG_FQ_LAYERS,
				    NULL) != 0 ||
	    !(errs = rig_api__errs_new(resp)))
		goto out;
	const double frame = q.frame;
	const bool shot_space = q.shot_space;
	const enum rig_frame_format fmt = q.format;
	bool with_constraints = false;
	if (include_constraints(req, resp, fmt, &with_constraints) != 0)
		goto out;
	tx = rig_store_read(req->app->store);
	if (rig_frames__query_open(&ev, tx, req, resp, &q) != 0)
		goto out;
	targets = calloc(ev.view.scene.n_layers + 1, sizeof *targets);
	results = calloc(ev.view.scene.n_layers + 1, sizeof *results);
	notes = calloc(ev.view.scene.n_layers + 1, sizeof *notes);
	if (!targets || !results || !notes) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		goto out;
	}
	long n = pick_layers(targets, &ev, &q.layers, resp);
	if (n < 0)
		goto out;
	if (fmt == RIG_FRAMES_F32 && n != 1) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "layers"),
			    "format f32 needs exactly one layer (use ?layers=<id>)");
		goto out;
	}
	if (rig_frames__query_etag(&q, resp, ev.model->version))
		goto out;
	for (long i = 0; i < n; i++) {
		int rc = rig_eval_prepare(&ev, targets[i], shot_space, errs);
		if (rc == RIG_EVAL_NOT_CACHED) {
			resp->deferred = true;
			goto out;
		}
		if (rc) {
			rig_frames__eval_failed(resp, errs);
			goto out;
		}
	}
	/* One frame is a light read (exchange.h): a large one goes to a worker. */
	if (!rig_api_run_here(req, resp, ev.work))
		goto out;
	rig_tx_end(tx); /* rolls the read snapshot back; bindings are loaded */
	tx = NULL;
	if (!(r = rig_resolver_new(&ev.view.scene))) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		goto out;
	}
	for (long i = 0; i < n; i++) {
		const struct rig_eval_mesh *mesh = rig_eval_mesh(&ev, targets[i]);
		results[i] = malloc(2 * mesh->n_verts * sizeof **results);
		/* The draw order goes in JSON only (f32 version 1 carries vertices),
		 * asked of a kind that notes its frames. */
		bool wants_order =
			fmt != RIG_FRAMES_F32 && ev.view.layers[targets[i]].binding->evaluate_noted;
		if (wants_order)
			notes[i].order = malloc((mesh->n_tris + 1) * sizeof *notes[i].order);
		bool oom = !results[i] || (wants_order && !notes[i].order);
		if (oom || rig_eval_frame_noted(results[i], &notes[i], r, &ev, targets[i], frame,
						shot_space, errs) != 0) {
			if (oom)
				rig_errs_add(errs, RIG_INTERNAL, "out of memory");
			rig_frames__eval_failed(resp, errs);
			goto out;
		}
	}
	/* a frame evaluating no layer still replays for the constraints' points */
	if (with_constraints && rig_resolver_frame_ok(r, frame, errs) != 0) {
		rig_frames__eval_failed(resp, errs);
		goto out;
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
			rig_frames__json_note(&b, &notes[i], rig_eval_mesh(&ev, s)->n_tris);
			rig_buf_puts(&b, "}");
		}
		rig_buf_puts(&b, "]");
		if (with_constraints)
			put_constraints(&b, r, &ev.view.scene, frame);
		rig_buf_puts(&b, "}");
	}
	rig_resp_buf(resp, 200, &b,
		     fmt == RIG_FRAMES_F32 ? "application/octet-stream" : "application/json");
out:
	for (long i = 0; results && i < (long)ev.view.scene.n_layers; i++)
		free(results[i]);
	for (long i = 0; notes && i < (long)ev.view.scene.n_layers; i++)
		free(notes[i].order);
	free(notes);
	free(results);
	free(targets);
	rig_resolver_free(r);
	rig_eval_release(&ev);
	rig_errs_free(errs);
	if (tx)
		rig_tx_end(tx);
	rig_frames__query_release(&q);
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
	struct rig_frames_query q;
	json_t *body = NULL;
	struct rig_errs *errs = NULL;
	double *xy = NULL;
	struct rig_mesh_site *sites = NULL;
	struct rig_resolver *r = NULL;
	struct rig_mem_claim claim = {0, 0};
	struct rig_eval ev;
	memset(&ev, 0, sizeof ev);
	struct rig_tx *tx = NULL;
	/* ?version is reported after the body's problems, as it always was. */
	if (rig_frames__query_parse(&q, req, resp, RIG_FQ_LAYER | RIG_FQ_SPACE, NULL) != 0 ||
	    !(body = rig_api__parse_body(req, resp)) || !(errs = rig_api__errs_new(resp)))
		goto out;
	const bool shot_space = q.shot_space;
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
	if (rig_frames__query_open(&ev, tx, req, resp, &q) != 0)
		goto out;
	long layer = rig_frames__find_bound(&ev, q.layer_id, resp);
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
	rig_buf_json_string(&b, q.layer_id);
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
	rig_frames__query_release(&q);
}
