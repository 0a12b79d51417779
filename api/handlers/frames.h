/* Shared pieces of the frame routes (frames.c, frame_range.c, check.c,
 * mesh_data.c): opening the shot, finding a skinned layer, the memory budget,
 * evaluation failures as problems. Their request, parsed once, and the
 * readers of single parameters are in frames_query.h (included); the encoders
 * are in api/eval/frame_encode.h.
 */
#ifndef RIG_FRAMES_H
#define RIG_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/eval/evaluate.h"
#include "api/eval/frame_encode.h"
#include "api/handlers/frames_query.h"
#include "api/http/exchange.h"
#include "api/util/membudget.h"
#include "core/frame_range.h"
#include "storage/store.h"

/* Reserves bytes of the server's memory budget for what this request holds
 * beyond its body (a range's window, a check's page, a spatial index); true,
 * or false with resp filled: 503 MEMORY_BUSY naming the budget and what
 * could not be held ("this range's window"). Settle claim when done. */
bool rig_frames__reserve(struct rig_req *req, struct rig_resp *resp, struct rig_mem_claim *claim,
			 size_t bytes, const char *what);

/* rig_eval_open for the request's shot (req->params[0]); 0, or -1 with resp
 * filled (404 for a missing shot). */
int rig_frames__open(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
		     struct rig_resp *resp);

/* As rig_frames__open at shot version `pinned` when it is >= 0 (a page
 * token's pinned version: 410 PAGE_TOKEN_STALE once it is compacted), else at
 * ?version when given, else the head. */
int rig_frames__open_at(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
			struct rig_resp *resp, long long pinned);

/* As rig_frames__open_at for q's shot: at the version q's page token pins,
 * else at q's ?version (400 INVALID_QUERY when q->version_bad), else the
 * head. */
int rig_frames__query_open(struct rig_eval *ev, struct rig_tx *tx, struct rig_req *req,
			   struct rig_resp *resp, const struct rig_frames_query *q);

/* rig_eval_find_skinned; the scene index, or -1 with resp filled: 404 for an
 * unknown layer, 422 MESH_BINDING_KIND for a layer without a skin. */
long rig_frames__find_skinned(struct rig_eval *ev, const char *layer_id, struct rig_resp *resp);

/* Answers evaluation violations as a problem. */
void rig_frames__eval_failed(struct rig_resp *resp, const struct rig_errs *errs);

#endif
