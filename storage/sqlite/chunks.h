/* Binding arrays in chunks (migration 12, docs/history.md): a part of a
 * layer's binding (its joints, source, triangles, weights, or a generic kind's
 * mesh) is one byte string cut into chunks at given boundaries. The binding
 * of revision R holds, at chunk index i, the chunk row of the greatest
 * revision <= R; writing revision R adds a row only for a chunk whose bytes
 * differ from the one visible just before R, so a small edit of a large
 * binding writes one chunk. Private to storage/sqlite/.
 */
#ifndef RIG_SQLITE_CHUNKS_H
#define RIG_SQLITE_CHUNKS_H

#include <sqlite3.h>
#include <stddef.h>

#include "core/skin.h"

enum rig_chunk_part {
	RIG_PART_JOINTS = 0,
	RIG_PART_SOURCE = 1,
	RIG_PART_TRIANGLES = 2,
	RIG_PART_WEIGHTS = 3,
	RIG_PART_MESH = 4,
};

/* Items per chunk, chosen so that no chunk exceeds 16 KiB: 64 joints
 * (178 B), 1,024 vertices (16 B), 1,024 triangles (12 B), 128 weight lists
 * (at most 1 + 8 · 12 B), 16,384 bytes of a mesh. */
#define RIG_CHUNK_JOINTS 64
#define RIG_CHUNK_VERTS 1024
#define RIG_CHUNK_TRIS 1024
#define RIG_CHUNK_WEIGHTS 128
#define RIG_CHUNK_MESH_BYTES 16384

/* Where a binding's chunks are. */
struct rig_chunk_key {
	long long shot_seq;
	const char *layer_id;
	long long revision;
};

/* Stores part of the binding at key: data (size bytes) cut at bounds[0] = 0 <
 * bounds[1] < … < bounds[n] = size. Writes a chunk row only where the bytes
 * differ from the chunk visible before key->revision. 0 or a negative rig code. */
int rig_chunks_write(sqlite3 *db, const struct rig_chunk_key *key, enum rig_chunk_part part,
		     const unsigned char *data, const size_t *bounds, size_t n);

/* Reads the first n chunks of part of the binding at key, concatenated, into a
 * new buffer (*out, never NULL on success; size in *size). -RIG_INTERNAL when
 * a chunk is missing. */
int rig_chunks_read(sqlite3 *db, const struct rig_chunk_key *key, enum rig_chunk_part part,
		    size_t n, unsigned char **out, size_t *size);

/* Boundaries every `step` bytes of a size-byte string: a new array of *n + 1
 * entries, or NULL when out of memory. */
size_t *rig_chunks_fixed_bounds(size_t size, size_t step, size_t *n);

/* How many chunks of `per` items hold count items. */
static inline size_t rig_chunks_count(size_t count, size_t per)
{
	return (count + per - 1) / per;
}

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

/* Stores every part of skin def (joints, source, triangles, weights) at key. */
int rig_chunks_write_skin(sqlite3 *db, const struct rig_chunk_key *key,
			  const struct rig_skin_def *def);

#endif
