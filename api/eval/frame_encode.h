/* The JSON and f32 encoders of evaluated frames.
 *
 * Binary frames (format=f32, SPEC §7): a 16-byte header "RIGF", u32 version,
 * u32 vertexCount, u32 frameCount (little-endian), then the frames.
 *   version 1: per frame an f64 frame number and vertexCount pairs of f32 x, y;
 *   version 2 (ranges that ask for it): tagged records, each a u32 tag and a
 *     u32 byteLength of what follows: tag 1 a frame (the version 1 frame,
 *     byteLength 8 + 8 · vertexCount), tag 2 an error (f64 frame, then the
 *     problem+json), which ends the stream; tag 3 the draw order of the
 *     frame record that follows it (a puppet whose pins overlap): triangleCount
 *     u32 triangle indices, back to front, then a u32 0 when the count is odd
 *     (byteLength 4 · triangleCount rounded up to 8). Every record starts
 *     8-aligned (the header is 16 bytes, a frame record 16 + 8 · vertexCount).
 * Every coordinate must fit a float (|v| ≤ FLT_MAX after rounding); a frame
 * with one that does not is an evaluation error (MESH_GEOMETRY), never an
 * infinity on the wire.
 */
#ifndef RIG_FRAME_ENCODE_H
#define RIG_FRAME_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "api/util/textbuf.h"
#include "core/err.h"

void rig_frames__json_vertices(struct rig_buf *b, const double *xy, size_t n);

/* Appends what a frame's binding noted (core/binding.h), as members of the
 * layer's JSON object: ,"solver":"…" when one is named, and
 * ,"triangleOrder":[t, …] (n_tris indices, back to front) when the draw
 * order is not the source order. Nothing for a note with neither. */
struct rig_frame_note;
void rig_frames__json_note(struct rig_buf *b, const struct rig_frame_note *note, size_t n_tris);
#define RIG_F32_VERSION_PLAIN 1  /* untagged frames */
#define RIG_F32_VERSION_TAGGED 2 /* tagged records: frames, then maybe an error */
#define RIG_F32_TAG_FRAME 1
#define RIG_F32_TAG_ERROR 2
#define RIG_F32_TAG_ORDER 3

/* Appends the 16-byte header of the given version. */
void rig_frames__f32_header(struct rig_buf *b, uint32_t version, uint32_t n_verts,
			    uint32_t n_frames);
/* Appends one f32 frame (the f64 frame number, then n vertices' x, y rounded
 * to float as IEEE 754 rounds). Returns 0, or -1 with b unchanged when some
 * coordinate does not fit a float (it rounds to ±infinity, or is NaN): such a
 * frame cannot be sent as f32 (report it with rig_frames__f32_report). Out of
 * memory returns 0 with b->oom set. */
int rig_frames__f32_frame(struct rig_buf *b, double frame, const double *xy, size_t n);

/* As rig_frames__f32_frame, as a version 2 frame record (tag, byteLength,
 * then the frame). Same returns; b is unchanged on -1. */
int rig_frames__f32_tagged_frame(struct rig_buf *b, double frame, const double *xy, size_t n);

/* Appends a version 2 order record: tag 3, then order's n_tris indices
 * (padded to 8 bytes), for the frame record appended next. */
void rig_frames__f32_order(struct rig_buf *b, const uint32_t *order, size_t n_tris);

/* Appends a version 2 error record: tag 2, byteLength 8 + len, the f64 frame
 * that failed, then len bytes of problem+json (borrowed). */
void rig_frames__f32_error(struct rig_buf *b, double frame, const char *problem, size_t len);

/* Adds one MESH_GEOMETRY per vertex of xy (n vertices) that
 * rig_frames__f32_frame refuses, with vertex_index, the first triangle using
 * it (of tris, n_tris triangles), layer_id and frame. */
void rig_frames__f32_report(struct rig_errs *errs, const double *xy, size_t n, const uint32_t *tris,
			    size_t n_tris, const char *layer_id, double frame);
#endif
