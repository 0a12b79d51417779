/* A skin's stored form, the same for every backend: its four parts (joints,
 * source, triangles, weights) as byte strings and where each is cut into
 * chunks (storage/chunks.h), and the two arrays (weight offsets, influences)
 * of the layout before chunks, which only old SQLite rows hold. A backend's
 * skin codec (storage/sqlite/skin_codec.c) stores these bytes; nothing else
 * knows a skin's layout. Layouts are documented beside the skins table in
 * migrations/sqlite/0001_init.sql.
 */
#ifndef RIG_SKIN_BYTES_H
#define RIG_SKIN_BYTES_H

#include <stddef.h>

#include "core/skin.h"
#include "storage/chunks.h"

#define RIG_INFLUENCE_RECORD_BYTES 12
#define RIG_JOINT_RECORD_BYTES (2 * (RIG_ID_MAX + 1) + 48)

/* The skin's method (core/skin.h) travels with its joints: an lbs skin's
 * joints part is its joint records alone, as it always was, so lbs bytes never
 * change; any other method appends one trailer of this many bytes, the
 * method's wire name ("dqs") padded with NUL bytes, inside the last joints
 * chunk. Old rows and old revisions therefore read as lbs. */
#define RIG_SKIN_METHOD_TRAILER_BYTES 8

/* The skin's pins (skin.puppet, core/skin.h) travel with its joints too:
 * after the records and the method's trailer (when there is one), a skin
 * with pins appends them as the bytes of a puppet's stored head
 * (rig_puppet_pins_encode: "PUP1", its counts 0 for the mesh, the settings,
 * the pins and their keys), inside the last joints chunk, however long (a
 * pin edit rewrites that chunk only). A skin without pins has no such
 * trailer: its bytes are the bytes it always had, and old rows and old
 * revisions read as skins without pins. */
#define RIG_SKIN_PINS_TAG "PUP1"

/* A skin with texture coordinates (has_uvs) says so in its joints part, after
 * the method's trailer and before the pins', with one more trailer of
 * RIG_SKIN_METHOD_TRAILER_BYTES, "uvs" padded with NUL bytes; its source part
 * then holds the uvs (2 · n_verts f64) after the positions, cut every
 * RIG_CHUNK_VERTS · 16 bytes as the positions are. A skin without uvs keeps
 * the bytes it always had. */
#define RIG_SKIN_UVS_TRAILER "uvs"

/* Items per chunk, chosen so that no chunk exceeds 16 KiB: 64 joints
 * (178 B), 1,024 vertices (16 B), 1,024 triangles (12 B), 128 weight lists
 * (at most 1 + 8 · 12 B). */
#define RIG_CHUNK_JOINTS 64
#define RIG_CHUNK_VERTS 1024
#define RIG_CHUNK_TRIS 1024
#define RIG_CHUNK_WEIGHTS 128

/* The skin's arrays as BLOBs (see migrations/sqlite/0001_init.sql). Each encoder
 * returns a malloc'd buffer with its size in *out_size, or NULL on OOM. */
unsigned char *rig_blob_joints_encode(size_t *out_size, const struct rig_skin_def *def);
unsigned char *rig_blob_source_encode(size_t *out_size, const struct rig_skin_def *def);
unsigned char *rig_blob_triangles_encode(size_t *out_size, const struct rig_skin_def *def);
unsigned char *rig_blob_offsets_encode(size_t *out_size, const struct rig_skin_def *def);
unsigned char *rig_blob_influences_encode(size_t *out_size, const struct rig_skin_def *def);

/* Decoders fill the matching arrays and counts of def (which must not own them
 * yet), allocating with malloc. Each returns 0, or -1 when the BLOB's size does
 * not match the count or on OOM. The joints decoder also sets def->method:
 * lbs for n records exactly, the trailer's method for n records and a trailer
 * naming one (anything else is -1) — and def->puppet: NULL, or the pins of a
 * pins trailer after them (a new heap definition). */
int rig_blob_joints_decode(struct rig_skin_def *def, size_t n, const unsigned char *p, size_t size);
int rig_blob_source_decode(struct rig_skin_def *def, size_t n, const unsigned char *p, size_t size);
int rig_blob_triangles_decode(struct rig_skin_def *def, size_t n, const unsigned char *p,
			      size_t size);
/* As the decoders, but taking a malloc'd BLOB buffer: on a little-endian host
 * the buffer becomes the array (and *buf is set to NULL), elsewhere it is
 * decoded into a new array. */
int rig_blob_source_take(struct rig_skin_def *def, size_t n, unsigned char **buf);
int rig_blob_triangles_take(struct rig_skin_def *def, size_t n, unsigned char **buf);

int rig_blob_weights_decode(struct rig_skin_def *def, size_t n_verts, const unsigned char *offsets,
			    size_t offsets_size, const unsigned char *influences,
			    size_t influences_size);

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

/* The chunks part holds for a skin of these counts (the number a reader
 * concatenates). */
size_t rig_chunks_skin_part_count(enum rig_chunk_part part, size_t n_verts, size_t n_tris,
				  size_t n_joints, bool has_uvs);

/* Fills def's per-vertex arrays (zeroed; its joints are left alone; has_uvs
 * set as its head says) from the bytes of its source, triangles and weights
 * parts, each concatenated from its chunks: takes *source and *tris
 * (rig_blob_source_take), reads weights and, with has_uvs, the uvs.
 * Returns 0, or -1 when a part does not hold n_verts and n_tris items or out
 * of memory (the caller frees what is left in *source and *tris). */
int rig_chunks_skin_decode(struct rig_skin_def *def, size_t n_verts, size_t n_tris,
			   unsigned char **source, size_t n_source, unsigned char **tris,
			   size_t n_tri_bytes, const unsigned char *weights, size_t n_weights);

#endif
