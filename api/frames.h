/* Shared pieces of the frame routes (h_frames.c, h_frame_range.c): query
 * parsing, the strong ETag of a frame query, and the JSON/f32/OBJ encoders.
 *
 * Binary frames (format=f32, SPEC §7): a 16-byte header "RIGF", u32 version 1,
 * u32 vertexCount, u32 frameCount (little-endian), then per frame an f64 frame
 * number and vertexCount pairs of f32 x, y. Every coordinate must fit a float
 * (|v| ≤ FLT_MAX after rounding); a frame with one that does not is an
 * evaluation error (MESH_GEOMETRY), never an infinity on the wire.
 */
#ifndef RIG_FRAMES_H
#define RIG_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "exchange.h"
#include "textbuf.h"

enum rig_frame_format { RIG_FRAMES_JSON, RIG_FRAMES_F32, RIG_FRAMES_OBJ };

/* A finite number from text; 0 or -1. */
int rig_frames__parse_frame(double *out, const char *s);

/* ?space=local|shot; ?format=json|f32[|obj]. 0, or -1 with resp filled (400). */
int rig_frames__space(struct rig_req *req, struct rig_resp *resp, bool *shot_space);
int rig_frames__format(struct rig_req *req, struct rig_resp *resp, bool allow_obj,
		       enum rig_frame_format *out);

/* Sets the ETag of (shot version, query); true (and status 304) when
 * If-None-Match matches it. */
bool rig_frames__etag(struct rig_req *req, struct rig_resp *resp, long long version);

void rig_frames__json_vertices(struct rig_buf *b, const double *xy, size_t n);
void rig_frames__f32_header(struct rig_buf *b, uint32_t n_verts, uint32_t n_frames);
/* Appends one f32 frame (the f64 frame number, then n vertices' x, y rounded
 * to float as IEEE 754 rounds). Returns 0, or -1 with b unchanged when some
 * coordinate does not fit a float (it rounds to ±infinity, or is NaN): such a
 * frame cannot be sent as f32 (report it with rig_frames__f32_report). Out of
 * memory returns 0 with b->oom set. */
int rig_frames__f32_frame(struct rig_buf *b, double frame, const double *xy, size_t n);

/* Adds one MESH_GEOMETRY per vertex of xy (n vertices) that
 * rig_frames__f32_frame refuses, with vertex_index, the first triangle using
 * it (of tris, n_tris triangles), layer_id and frame. */
void rig_frames__f32_report(struct rig_errs *errs, const double *xy, size_t n,
			    const uint32_t *tris, size_t n_tris, const char *layer_id, double frame);
void rig_frames__eval_failed(struct rig_resp *resp, const struct rig_errs *errs);

/* Route handlers. */
void rig_h_frame(struct rig_req *req, struct rig_resp *resp);
void rig_h_frame_range(struct rig_req *req, struct rig_resp *resp);
void rig_h_map_points(struct rig_req *req, struct rig_resp *resp);
void rig_h_skin_evaluate(struct rig_req *req, struct rig_resp *resp);
void rig_h_mesh_data(struct rig_req *req, struct rig_resp *resp);

#endif
