/* Binding chunks in SQLite (migration 12, docs/history.md): the parts and
 * chunk boundaries of storage/chunks.h, kept as rows of the binding_chunks
 * table. The binding of revision R holds, at chunk index i, the chunk row of
 * the greatest revision <= R; writing revision R adds a row only for a chunk
 * whose bytes differ from the one visible just before R, so a small edit of a
 * large binding writes one chunk. Private to storage/sqlite/.
 */
#ifndef RIG_SQLITE_CHUNKS_H
#define RIG_SQLITE_CHUNKS_H

#include <sqlite3.h>
#include <stddef.h>

#include "storage/chunks.h"

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

#endif
