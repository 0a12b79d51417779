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

/* The parts, numbered as they are stored. */
enum rig_chunk_part {
	RIG_PART_JOINTS = 0,
	RIG_PART_SOURCE = 1,
	RIG_PART_TRIANGLES = 2,
	RIG_PART_WEIGHTS = 3,
	RIG_PART_ARRAYS = 4,
};

/* The generic kinds' arrays are cut every RIG_CHUNK_ARRAY_BYTES bytes; a
 * skin's parts at its own item counts (storage/skin_bytes.h). */
#define RIG_CHUNK_ARRAY_BYTES 16384

/* How many chunks of `per` items hold count items. */
static inline size_t rig_chunks_count(size_t count, size_t per)
{
	return (count + per - 1) / per;
}

/* Boundaries every `step` bytes of a size-byte string: a new array of *n + 1
 * entries, or NULL when out of memory. */
size_t *rig_chunks_fixed_bounds(size_t size, size_t step, size_t *n);

/* One part of a binding, encoded: its bytes and where they are cut
 * (bounds[0] = 0 < bounds[1] < … < bounds[n] = size). Owns data and bounds. */
struct rig_chunk_bytes {
	enum rig_chunk_part part;
	unsigned char *data;
	size_t size;
	size_t *bounds;
	size_t n;
};

/* Frees the data and bounds of parts[0..n) and empties them. */
void rig_chunk_bytes_release(struct rig_chunk_bytes *parts, size_t n);

#endif
