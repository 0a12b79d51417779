/* GET /v1/shots/{shotId}/layers/{layerId}/frames: a frame range for render
 * farms, streamed as JSON, f32 (version 1, or 2 with f32Version=2) or OBJ.
 *
 * Frames are evaluated and encoded in parallel on libuv's work queue, in chunks
 * of consecutive frames (about CHUNK_BYTES of output, so each hand-off between
 * threads carries real work; the first chunk is frame 0 alone, so the answer
 * starts, or fails with a 422, as soon as it is known), a few chunks ahead of
 * what the client has read, and handed to libmicrohttpd in order as it pulls
 * bytes: a stream holds at most CHUNK_WINDOW chunks, or, when one frame alone
 * exceeds CHUNK_BYTES, as many single frames as fit WINDOW_BYTES (at least one
 * per frame worker, at most RIG_RANGE_WINDOW), never every frame. Each
 * window slot owns a resolver; the shot and skins are shared read-only. Frame
 * i is from + i·step (multiplied, never accumulated, so frames are exact and
 * independent of the range).
 *
 * The first frame is evaluated before the response starts, so most evaluation
 * errors are a 422. An error on a later frame ends the body, after the frames
 * before it, with the format's terminator holding the frame and the problem
 * the 422 would have carried: the JSON's "error" member, OBJ's "# error" line,
 * f32 version 2's error record. f32 version 1 has no room for one, so its
 * stream is aborted (a clean end would pass for a whole body). Either way the
 * server logs the failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "api/eval/evaluate.h"
#include "api/handlers/frames.h"
#include "api/handlers/handlers.h"
#include "api/http/problem.h"
#include "api/http/request.h"
#include "api/util/membudget.h"
#include "storage/store.h"

#define CHUNK_BYTES (512 * 1024) /* output a worker produces per hand-off */
#define CHUNK_MAX_FRAMES 64
#define CHUNK_WINDOW 6         /* chunks in flight when chunks hold several frames */
#define WINDOW_BYTES (8 << 20) /* single-frame slots in flight: this much, 2 to 8 */

struct slot {
	uv_work_t work;
	struct range *range;
	size_t first, count; /* the chunk: frame indices first … first + count − 1 */
	size_t n_done;       /* frames evaluated and encoded, in order */
	bool busy;
	bool done;
	int rc; /* -1: frame first + n_done failed (errs says why) */
	double *xy;
	uint32_t *order;        /* n_tris: a noting binding's draw order (notes), else NULL */
	struct rig_buf encoded; /* the frame's bytes, encoded on the worker too */
	struct rig_resolver *resolver;
	struct rig_errs errs;
};

struct range {
	struct rig_eval ev;
	long layer;
	size_t n_verts;
	bool shot_space;
	enum rig_frame_format fmt;
	uint32_t f32_version; /* RIG_F32_VERSION_*, for fmt f32 */
	double from, step;
	size_t n_frames;
	size_t chunk;                    /* frames per chunk after the first */
	size_t n_slots;                  /* chunks in flight (see WINDOW_BYTES, CHUNK_WINDOW) */
	size_t next_emit, next_schedule; /* chunk indices */
	bool abort_next;                 /* f32 v1: the emitted chunk stopped at a failed frame */
	bool ended;                      /* the body's last bytes (a terminator) are out */
	uv_loop_t loop;
	bool loop_open;
	struct slot slots[RIG_RANGE_WINDOW];
	struct rig_buf out; /* encoded bytes not yet handed over */
	size_t out_off;
	bool header_done, footer_done, failed;
	char layer_id[RIG_ID_MAX + 1];
	char shot_id[RIG_ID_MAX + 1];
	char request_id[128];
	rig_log_fn log;
	long long version;
	struct rig_membudget *budget; /* the window's bytes are reserved in it */
	struct rig_mem_claim claim;
	const uint32_t *tris;
	size_t n_tris;
	const double *uvs; /* the binding's texture coordinates, or NULL */
	/* The binding notes its frames (a puppet's solver and overlap order:
	 * core/binding.h) and the format has room for them (not f32 version 1). */
	bool notes;
};

static size_t clamp_size(size_t v, size_t lo, size_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static double frame_at(const struct range *rg, size_t i)
{
	return rg->from + (double)i * rg->step;
}

/* One OBJ object per frame; indices are global and 1-based. Lines go straight
 * into reserved room ("v x y 0": 2 · 32 + 8 bytes; "f a/a b/b c/c":
 * 3 · 43 + 5). A binding with texture coordinates writes them after its
 * vertices, "vt u v" with v up from the image's bottom row (OBJ's convention:
 * 1 − the stored v, which runs down), and its faces name them. A noted frame
 * says its solver in a comment and lists its faces in its draw order (back to
 * front). */
static void encode_obj(struct rig_buf *b, const struct range *rg, size_t i, double f,
		       const double *xy, const struct rig_frame_note *note)
{
	rig_buf_puts(b, "o frame_");
	rig_buf_double(b, f);
	rig_buf_puts(b, "\n");
	if (note->solver)
		rig_buf_printf(b, "# solver %s\n", note->solver);
	const uint32_t *order = note->reordered ? note->order : NULL;
	for (size_t v = 0; v < rg->n_verts; v++) {
		if (!rig_buf_reserve(b, 2 * 32 + 8))
			return;
		char *p = b->data + b->len;
		*p++ = 'v';
		*p++ = ' ';
		p += rig_format_double(p, xy[2 * v]);
		*p++ = ' ';
		p += rig_format_double(p, xy[2 * v + 1]);
		memcpy(p, " 0\n", 3);
		b->len = (size_t)(p + 3 - b->data);
	}
	for (size_t v = 0; rg->uvs && v < rg->n_verts; v++) {
		if (!rig_buf_reserve(b, 2 * 32 + 8))
			return;
		char *p = b->data + b->len;
		memcpy(p, "vt ", 3);
		p += 3;
		p += rig_format_double(p, rg->uvs[2 * v]);
		*p++ = ' ';
		p += rig_format_double(p, 1.0 - rg->uvs[2 * v + 1]);
		*p++ = '\n';
		b->len = (size_t)(p - b->data);
	}
	uint64_t base = (uint64_t)i * rg->n_verts + 1;
	for (size_t j = 0; j < rg->n_tris; j++) {
		if (!rig_buf_reserve(b, 3 * 43 + 5))
			return;
		size_t t = order ? order[j] : j;
		char *p = b->data + b->len;
		*p++ = 'f';
		for (int k = 0; k < 3; k++) {
			*p++ = ' ';
			uint64_t at = base + rg->tris[3 * t + (size_t)k];
			p += rig_format_u64(p, at);
			if (rg->uvs) {
				*p++ = '/';
				p += rig_format_u64(p, at);
			}
		}
		*p++ = '\n';
		b->len = (size_t)(p - b->data);
	}
}

/* Encodes frame i into b. Reads only what the range fixed before streaming, so
 * workers encode in parallel. Returns 0, or -1 with b unchanged and errs
 * filled when the frame cannot be encoded (f32 overflow: MESH_GEOMETRY). */
static int encode_frame(struct rig_buf *b, const struct range *rg, size_t i, const double *xy,
			const struct rig_frame_note *note, struct rig_errs *errs)
{
	double f = frame_at(rg, i);
	if (rg->fmt == RIG_FRAMES_F32) {
		size_t at = b->len;
		if (rg->f32_version == RIG_F32_VERSION_TAGGED && note->reordered)
			rig_frames__f32_order(b, note->order, rg->n_tris);
		int rc = rg->f32_version == RIG_F32_VERSION_TAGGED
				 ? rig_frames__f32_tagged_frame(b, f, xy, rg->n_verts)
				 : rig_frames__f32_frame(b, f, xy, rg->n_verts);
		if (rc != 0) {
			b->len = at; /* the frame's order record goes with it */
			rig_frames__f32_report(errs, xy, rg->n_verts, rg->tris, rg->n_tris,
					       rg->layer_id, f);
			return -1;
		}
	} else if (rg->fmt == RIG_FRAMES_JSON) {
		rig_buf_puts(b, i ? ",{\"frame\":" : "{\"frame\":");
		rig_buf_double(b, f);
		rig_buf_puts(b, ",\"vertices\":");
		rig_frames__json_vertices(b, xy, rg->n_verts);
		rig_frames__json_note(b, note, rg->n_tris);
		rig_buf_puts(b, "}");
	} else {
		encode_obj(b, rg, i, f, xy, note);
	}
	return 0;
}

static void work_cb(uv_work_t *w)
{
	struct slot *s = w->data;
	const struct range *rg = s->range;
	rig_errs_init(&s->errs);
	rig_buf_clear(&s->encoded);
	s->rc = 0;
	for (s->n_done = 0; s->n_done < s->count; s->n_done++) {
		size_t i = s->first + s->n_done;
		struct rig_frame_note note = {.order = s->order};
		s->rc = rig_eval_frame_noted(s->xy, rg->notes ? &note : NULL, s->resolver, &rg->ev,
					     rg->layer, frame_at(rg, i), rg->shot_space, &s->errs);
		if (s->rc ||
		    (s->rc = encode_frame(&s->encoded, rg, i, s->xy, &note, &s->errs)) != 0)
			break;
	}
}

static void after_cb(uv_work_t *w, int status)
{
	struct slot *s = w->data;
	s->busy = false;
	s->done = true;
	if (status != 0)
		s->rc = -1;
}

/* The first frame of chunk k: chunk 0 is frame 0 alone, then rg->chunk each. */
static size_t chunk_first(const struct range *rg, size_t k)
{
	return k == 0 ? 0 : 1 + (k - 1) * rg->chunk;
}

static bool chunk_exists(const struct range *rg, size_t k)
{
	return chunk_first(rg, k) < rg->n_frames;
}

static struct slot *slot_of(struct range *rg, size_t k)
{
	return &rg->slots[k % rg->n_slots];
}

/* Keeps the window full: queues chunks up to n_slots past next_emit. */
static int schedule(struct range *rg)
{
	while (chunk_exists(rg, rg->next_schedule) &&
	       rg->next_schedule < rg->next_emit + rg->n_slots) {
		struct slot *s = slot_of(rg, rg->next_schedule);
		if (s->busy || s->done)
			break;
		size_t want = rg->next_schedule == 0 ? 1 : rg->chunk;
		s->first = chunk_first(rg, rg->next_schedule);
		s->count = rg->n_frames - s->first < want ? rg->n_frames - s->first : want;
		rg->next_schedule++;
		s->busy = true;
		s->work.data = s;
		if (uv_queue_work(&rg->loop, &s->work, work_cb, after_cb) != 0)
			return -1;
	}
	return 0;
}

/* Waits for the next chunk in order; returns its slot (check n_done and rc),
 * or NULL when it could not be queued. */
static struct slot *next_chunk(struct range *rg)
{
	struct slot *s = slot_of(rg, rg->next_emit);
	if (schedule(rg) != 0)
		return NULL;
	while (!s->done)
		uv_run(&rg->loop, UV_RUN_ONCE);
	return s;
}

static void encode_header(struct range *rg)
{
	struct rig_buf *b = &rg->out;
	if (rg->fmt == RIG_FRAMES_F32) {
		rig_frames__f32_header(b, rg->f32_version, (uint32_t)rg->n_verts,
				       (uint32_t)rg->n_frames);
	} else if (rg->fmt == RIG_FRAMES_JSON) {
		rig_buf_puts(b, "{\"shotId\":");
		rig_buf_json_string(b, rg->shot_id);
		rig_buf_printf(b, ",\"shotVersion\":%lld,\"layerId\":", rg->version);
		rig_buf_json_string(b, rg->layer_id);
		rig_buf_printf(b, ",\"space\":\"%s\",\"frames\":[",
			       rg->shot_space ? "shot" : "local");
	} else {
		rig_buf_printf(b, "# rigd shot %s version %lld layer %s, %zu frames, %s space\n",
			       rg->shot_id, rg->version, rg->layer_id, rg->n_frames,
			       rg->shot_space ? "shot" : "local");
	}
}

/* The problem a failed frame would have answered as a 422 (new reference):
 * from errs, or INTERNAL when the work never ran (errs empty). */
static json_t *failure_problem(const struct rig_errs *errs)
{
	if (errs && errs->count > 0) {
		bool retry_after;
		return rig_problem_errs_json(errs, 0, &retry_after);
	}
	return rig_problem_json(0, RIG_INTERNAL, NULL, "the frame could not be evaluated");
}

/* Ends the body after the frames already in rg->out: logs the failure of
 * frame i and appends the format's terminator, or (f32 version 1, which has
 * none) marks the stream for abort once those frames are sent. */
static void end_with_failure(struct range *rg, size_t i, const struct rig_errs *errs)
{
	double frame = frame_at(rg, i);
	json_t *problem = failure_problem(errs);
	char *text = problem ? json_dumps(problem, JSON_COMPACT) : NULL;
	if (rg->log) {
		json_t *code = json_object_get(problem, "code");
		json_t *detail = json_object_get(problem, "detail");
		rg->log("warn", "frame range failed",
			json_pack("{s:s, s:s, s:I, s:f, s:I, s:s, s:s, s:s}", "shotId", rg->shot_id,
				  "layerId", rg->layer_id, "shotVersion", (json_int_t)rg->version,
				  "frame", frame, "frameIndex", (json_int_t)i, "code",
				  json_is_string(code) ? json_string_value(code) : "INTERNAL",
				  "detail", json_is_string(detail) ? json_string_value(detail) : "",
				  "requestId", rg->request_id));
	}
	struct rig_buf *b = &rg->out;
	if (!text || (rg->fmt == RIG_FRAMES_F32 && rg->f32_version == RIG_F32_VERSION_PLAIN)) {
		rg->abort_next = true; /* out of memory leaves nothing better either */
	} else if (rg->fmt == RIG_FRAMES_F32) {
		rig_frames__f32_error(b, frame, text, strlen(text));
		rg->ended = true;
	} else {
		/* JSON: the frames array closes, "error" follows; OBJ: one comment
		 * line holding the same object. */
		rig_buf_puts(b, rg->fmt == RIG_FRAMES_JSON ? "],\"error\":" : "# error ");
		rig_buf_puts(b, "{\"frame\":");
		rig_buf_double(b, frame);
		rig_buf_puts(b, ",\"problem\":");
		rig_buf_puts(b, text);
		rig_buf_puts(b, rg->fmt == RIG_FRAMES_JSON ? "}}" : "}\n");
		rg->ended = true;
	}
	free(text);
	json_decref(problem);
}

/* Produces the next piece of the body into rg->out; false at the end. */
static bool produce(struct range *rg)
{
	rig_buf_clear(&rg->out);
	rg->out_off = 0;
	if (!rg->header_done) {
		rg->header_done = true;
		encode_header(rg);
		return true;
	}
	if (rg->abort_next) {
		rg->failed = true;
		return false;
	}
	if (rg->ended)
		return false;
	if (chunk_exists(rg, rg->next_emit)) {
		struct slot *s = next_chunk(rg);
		if (!s) {
			end_with_failure(rg, chunk_first(rg, rg->next_emit), NULL);
			return true;
		}
		/* The worker encoded it: swap buffers instead of copying. */
		struct rig_buf spare = rg->out;
		rg->out = s->encoded;
		s->encoded = spare;
		s->done = false;
		if (s->rc != 0) {
			/* Read the slot's errors now: scheduling would reuse it. */
			end_with_failure(rg, s->first + s->n_done, &s->errs);
			return true;
		}
		rg->next_emit++;
		schedule(rg);
		return true;
	}
	if (!rg->footer_done) {
		rg->footer_done = true;
		if (rg->fmt == RIG_FRAMES_JSON)
			rig_buf_puts(&rg->out, "]}");
		return rg->out.len > 0;
	}
	return false;
}

static long stream_cb(void *ctx, uint64_t pos, char *buf, size_t max)
{
	struct range *rg = ctx;
	while (rg->out_off == rg->out.len) {
		if (!produce(rg))
			return rg->failed || rg->out.oom ? RIG_STREAM_ERROR : RIG_STREAM_END;
	}
	if (rg->out.oom)
		return RIG_STREAM_ERROR;
	size_t n = rg->out.len - rg->out_off;
	if (n > max)
		n = max;
	memcpy(buf, rg->out.data + rg->out_off, n);
	rg->out_off += n;
	return (long)n;
}

static void range_free(void *ctx)
{
	struct range *rg = ctx;
	if (rg->loop_open) {
		/* Let queued work finish before its memory goes. */
		uv_run(&rg->loop, UV_RUN_DEFAULT);
		uv_loop_close(&rg->loop);
	}
	for (size_t i = 0; i < RIG_RANGE_WINDOW; i++) {
		free(rg->slots[i].xy);
		free(rg->slots[i].order);
		rig_buf_release(&rg->slots[i].encoded);
		rig_resolver_free(rg->slots[i].resolver);
	}
	rig_buf_release(&rg->out);
	rig_eval_release(&rg->ev);
	rig_membudget_settle(rg->budget, &rg->claim);
	free(rg);
}

void rig_h_frame_range(struct rig_req *req, struct rig_resp *resp)
{
	struct rig_frames_query q;
	struct rig_tx *tx = NULL;
	struct range *rg = NULL;
	if (rig_frames__query_parse(&q, req, resp,
				    RIG_FQ_LAYER | RIG_FQ_SPACE | RIG_FQ_FORMAT_OBJ |
					    RIG_FQ_F32_VERSION | RIG_FQ_RANGE,
				    NULL) != 0)
		goto fail;
	if (!(rg = calloc(1, sizeof *rg))) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		goto fail;
	}
	rg->shot_space = q.shot_space;
	rg->fmt = q.format;
	rg->f32_version = q.f32_version;
	struct rig_errs *errs = &rg->slots[0].errs;
	rig_errs_init(errs);
	struct rig_frame_range r;
	tx = rig_store_read(req->app->store);
	if (rig_frames__query_open(&rg->ev, tx, req, resp, &q) != 0 ||
	    rig_frames__query_range(&q, rg->ev.model, resp, &r, NULL) != 0 ||
	    (rg->layer = rig_frames__find_bound(&rg->ev, q.layer_id, resp)) < 0)
		goto fail;
	rg->from = r.from;
	rg->step = r.step;
	rg->n_frames = r.n_frames;
	if (rig_frames__query_etag(&q, resp, rg->ev.model->version))
		goto fail;
	if (rig_eval_prepare(&rg->ev, rg->layer, rg->shot_space, errs) != 0) {
		rig_frames__eval_failed(resp, errs);
		goto fail;
	}
	rig_tx_end(tx);
	tx = NULL;
	const struct rig_eval_mesh *d = rig_eval_mesh(&rg->ev, rg->layer);
	rg->n_verts = d->n_verts;
	rg->tris = d->triangles;
	rg->n_tris = d->n_tris;
	rg->uvs = d->uvs;
	rg->version = rg->ev.model->version;
	rig_strlcpy(rg->layer_id, q.layer_id, sizeof rg->layer_id);
	rig_strlcpy(rg->shot_id, rg->ev.model->id, sizeof rg->shot_id);
	rig_strlcpy(rg->request_id, req->request_id ? req->request_id : "", sizeof rg->request_id);
	rg->log = req->app->log;
	rg->notes = rg->ev.view.layers[rg->layer].binding->evaluate_noted &&
		    !(rg->fmt == RIG_FRAMES_F32 && rg->f32_version == RIG_F32_VERSION_PLAIN);
	size_t frame_bytes = rg->fmt == RIG_FRAMES_F32    ? 8 * rg->n_verts + 16
			     : rg->fmt == RIG_FRAMES_JSON ? 48 * rg->n_verts
							  : 48 * rg->n_verts + 24 * rg->n_tris;
	rg->chunk = clamp_size(CHUNK_BYTES / frame_bytes, 1, CHUNK_MAX_FRAMES);
	/* A slot holds its frame's evaluated doubles (16 bytes a vertex) and its
	 * encoding: large frames get fewer slots, but never fewer than the frame
	 * workers (each keeps a frame to evaluate). */
	size_t least = clamp_size(req->app->limits.frame_workers, 2, RIG_RANGE_WINDOW);
	rg->n_slots = rg->chunk > 1 ? CHUNK_WINDOW
				    : clamp_size(WINDOW_BYTES / (frame_bytes + 16 * rg->n_verts),
						 least, RIG_RANGE_WINDOW);
	rig_buf_init(&rg->out);
	/* The window counts against the memory budget while the stream is open:
	 * each slot's doubles and encoded chunk, and one more chunk being sent. */
	size_t slot_bytes =
		16 * rg->n_verts + rg->chunk * frame_bytes + (rg->notes ? 4 * rg->n_tris : 0);
	rg->budget = req->app->budget;
	if (!rig_frames__reserve(req, resp, &rg->claim, (rg->n_slots + 1) * slot_bytes,
				 "this range's window"))
		goto fail;
	for (size_t i = 0; i < rg->n_slots; i++) {
		struct slot *s = &rg->slots[i];
		s->range = rg;
		s->xy = malloc(2 * rg->n_verts * sizeof *s->xy);
		s->resolver = rig_resolver_new(&rg->ev.view.scene);
		if (rg->notes)
			s->order = malloc((rg->n_tris + 1) * sizeof *s->order);
		if (!s->xy || !s->resolver || (rg->notes && !s->order)) {
			rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
			goto fail;
		}
	}
	if (uv_loop_init(&rg->loop) != 0) {
		rig_problem(resp, RIG_INTERNAL, NULL, "cannot start the frame workers");
		goto fail;
	}
	rg->loop_open = true;
	struct slot *first = next_chunk(rg);
	if (!first || first->n_done == 0) {
		struct slot *s = &rg->slots[0];
		rig_frames__eval_failed(resp, s->errs.total ? &s->errs : errs);
		goto fail;
	}
	resp->status = 200;
	resp->content_type = rg->fmt == RIG_FRAMES_F32   ? "application/octet-stream"
			     : rg->fmt == RIG_FRAMES_OBJ ? "model/obj"
							 : "application/json";
	rig_resp_header(resp, "X-Rigd-Frame-Count", "%zu", rg->n_frames);
	rig_resp_header(resp, "X-Rigd-Vertex-Count", "%zu", rg->n_verts);
	resp->stream = stream_cb;
	resp->stream_free = range_free;
	resp->stream_ctx = rg;
	rig_frames__query_release(&q);
	return;
fail:
	if (tx)
		rig_tx_end(tx);
	if (rg)
		range_free(rg);
	rig_frames__query_release(&q);
}
