/* Shared pieces of the frame routes (frames.c, frame_range.c, mesh_data.c):
 * query parsing, the strong ETag of a frame query, evaluation failures as
 * problems. The encoders are in api/eval/frame_encode.h.
 */
#ifndef RIG_FRAMES_H
#define RIG_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/eval/evaluate.h"
#include "api/eval/frame_encode.h"
#include "api/http/exchange.h"
#include "api/util/membudget.h"
#include "core/frame_range.h"
#include "storage/store.h"

enum rig_frame_format { RIG_FRAMES_JSON, RIG_FRAMES_F32, RIG_FRAMES_OBJ };

/* A frame number (or step) from a path or query, the one rule for all of
 * them: written as a JSON number (RFC 8259 §6: an optional '-', digits without
 * leading zeros, an optional fraction and exponent; no '+', spaces, hex, inf
 * or nan) whose value is finite. Sets *out; 0, or -1 (*out untouched). */
int rig_frames__parse_frame(double *out, const char *s);

/* ?from, ?to, ?step of a frame range on shot m (defaults: its frameStart and
 * frameEnd, step 1), after the range rules of core/frame_range.h with the
 * limit RIG_MAX_RANGE_FRAMES. Sets *out (and *out_to, may be NULL); 0, or -1
 * with resp filled (400 INVALID_QUERY naming the parameter). */
int rig_frames__range(struct rig_req *req, struct rig_resp *resp, const struct rig_shot_model *m,
		      struct rig_frame_range *out, double *out_to);

/* ?space=local|shot; ?format=json|f32[|obj]. 0, or -1 with resp filled (400). */
int rig_frames__space(struct rig_req *req, struct rig_resp *resp, bool *shot_space);
int rig_frames__format(struct rig_req *req, struct rig_resp *resp, bool allow_obj,
		       enum rig_frame_format *out);

/* ?maxBytes: a positive integer, RIG_DEFAULT_PAGE_BYTES when absent, larger
 * values coerced down to RIG_MAX_PAGE_BYTES. 0, or -1 with resp filled (400). */
int rig_frames__max_bytes(struct rig_req *req, struct rig_resp *resp, size_t *out);

/* Reserves bytes of the server's memory budget for what this request holds
 * beyond its body (a range's window, a check's page, a spatial index); true,
 * or false with resp filled: 503 MEMORY_BUSY naming the budget and what
 * could not be held ("this range's window"). Settle claim when done. */
bool rig_frames__reserve(struct rig_req *req, struct rig_resp *resp, struct rig_mem_claim *claim,
			 size_t bytes, const char *what);

/* Sets the ETag of (shot version, query); true (and status 304) when
 * If-None-Match matches it. */
bool rig_frames__etag(struct rig_req *req, struct rig_resp *resp, long long version);

/* rig_eval_open for the request's shot (req->params[0]); 0, or -1 with resp
 * filled (404 for a missing shot). */
int rig_frames__open(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
		     struct rig_resp *resp);

/* As rig_frames__open at shot version `pinned` when it is >= 0 (a page
 * token's pinned version: 410 PAGE_TOKEN_STALE once it is compacted), else at
 * ?version when given, else the head. */
int rig_frames__open_at(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
			struct rig_resp *resp, long long pinned);

/* The shot version a genuine page token of kind `kind` in ?pageToken pins,
 * or -1 (no token, or one the route's own check will refuse). */
long long rig_frames__pinned_version(struct rig_req *req, const char *kind);

/* rig_eval_find_skinned; the scene index, or -1 with resp filled: 404 for an
 * unknown layer, 422 MESH_BINDING_KIND for a layer without a skin. */
long rig_frames__find_skinned(struct rig_eval *ev, const char *layer_id, struct rig_resp *resp);

/* Answers evaluation violations as a problem. */
void rig_frames__eval_failed(struct rig_resp *resp, const struct rig_errs *errs);

#endif
