/* A binding's stored form as parts cut into chunks, the same for every
 * backend (docs/history.md): a part of a layer's binding (a skin's joints,
 * source, triangles or weights, a generic kind's arrays) is one byte string of
 * the layouts in storage/blob.h, cut into chunks at item boundaries so that no
 * chunk exceeds 16 KiB and a small edit of a large binding changes one chunk.
 * How chunks are kept — which revision of each is visible, written only where
 * the bytes changed — is the backend's (SQLite's: storage/sqlite/chunks.h);
 * what the bytes are and where they are cut is decided here, once.
 */
#ifndef RIG_CHUNKS_H
#define RIG_CHUNKS_H

#include <stddef.h>

#include "core/skin.h"

/* The parts, numbered as they are stored. */
enum rig_chunk_part {
	RIG_PART_JOINTS = 0,
	RIG_PART_SOURCE = 1,
	RIG_PART_TRIANGLES = 2,
	RIG_PART_WEIGHTS = 3,
	RIG_PART_ARRAYS = 4,
};

/* Items per chunk, chosen so that no chunk exceeds 16 KiB: 64 joints
 * (178 B), 1,024 vertices (16 B), 1,024 triangles (12 B), 128 weight lists
 * (at most 1 + 8 · 12 B), 16,384 bytes of a generic kind's arrays. */
#define RIG_CHUNK_JOINTS 64
#define RIG_CHUNK_VERTS 1024
#define RIG_CHUNK_TRIS 1024
#define RIG_CHUNK_WEIGHTS 128
#define RIG_CHUNK_ARRAY_BYTES 16384

/* How many chunks of `per` items hold count items. */
static inline size_t rig_chunks_count(size_t count, size_t per)
{
	return (count + per - 1) / per;
}

/* Boundaries every `step` bytes of a size-byte string: a new array of *n + 1
 * entries, or NULL when out of memory. */
size_t *rig_chunks_fixed_bounds(size_t size, size_t step, size_t *n);

/* A skin's weight lists as a part: per vertex a u8 count, then count ·
 * (u32 joint, f64 weight), boundaries every RIG_CHUNK_WEIGHTS vertices (each
 * chunk self-contained, so one vertex's new count moves no other chunk).
 * Returns the malloc'd string with its size and bounds (*bounds malloc'd, *n
 * chunks), or NULL when out of memory or a list exceeds 255 influences. */
unsigned char *rig_chunks_weights_encode(const struct rig_skin_def *def, size_t *size,
					 size_t **bounds, size_t *n);

/* Decodes a weights part of n_verts lists into def's weight arrays. 0, or -1
 * when malformed or out of memory. */
int rig_chunks_weights_decode(struct rig_skin_def *def, size_t n_verts, const unsigned char *p,
			      size_t size);

/* One part of a binding, encoded: its bytes and where they are cut
 * (bounds[0] = 0 < bounds[1] < … < bounds[n] = size). Owns data and bounds. */
struct rig_chunk_bytes {
	enum rig_chunk_part part;
	unsigned char *data;
	size_t size;
	size_t *bounds;
	size_t n;
};

/* A skin's parts, in the order they are written: joints, source, triangles,
 * weights. */
#define RIG_SKIN_N_PARTS 4
extern const enum rig_chunk_part rig_chunks_skin_parts[RIG_SKIN_N_PARTS];

/* Encodes one part of skin def into *out (a backend writes a skin part by
 * part, so that only one is in memory at a time). Returns 0, or -RIG_INTERNAL
 * (out of memory, a weight list of more than 255 influences, a part a skin
 * does not have). Release *out with rig_chunk_bytes_release() either way. */
int rig_chunks_skin_part_encode(struct rig_chunk_bytes *out, enum rig_chunk_part part,
				const struct rig_skin_def *def);

/* Frees the data and bounds of parts[0..n) and empties them. */
void rig_chunk_bytes_release(struct rig_chunk_bytes *parts, size_t n);

/* The chunks part holds for a skin of these counts (the number a reader
 * concatenates). */
size_t rig_chunks_skin_part_count(enum rig_chunk_part part, size_t n_verts, size_t n_tris,
				  size_t n_joints);

/* Fills def's per-vertex arrays (zeroed; its joints are left alone) from the
 * bytes of its source, triangles and weights parts, each concatenated from its
 * chunks: takes *source and *tris (rig_blob_source_take), reads weights.
 * Returns 0, or -1 when a part does not hold n_verts and n_tris items or out
 * of memory (the caller frees what is left in *source and *tris). */
int rig_chunks_skin_decode(struct rig_skin_def *def, size_t n_verts, size_t n_tris,
			   unsigned char **source, size_t n_source, unsigned char **tris,
			   size_t n_tri_bytes, const unsigned char *weights, size_t n_weights);

#endif
