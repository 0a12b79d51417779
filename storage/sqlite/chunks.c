/* Binding chunks in SQLite: storage/sqlite/chunks.h. */
#include "storage/sqlite/chunks.h"

#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "storage/blob.h"
#include "storage/sqlite/sqlite_tx.h"

/* The rowid of the visible chunk of every index below n (0: none), as of the
 * greatest revision <= `upto`: one covering scan of the UNIQUE index. */
static int visible_rowids(sqlite3 *db, const struct rig_chunk_key *key, enum rig_chunk_part part,
			  long long upto, size_t n, sqlite3_int64 *rowids)
{
	if (n == 0)
		return 0;
	memset(rowids, 0, n * sizeof *rowids);
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"SELECT idx, max(revision), rowid FROM binding_chunks"
		" WHERE shot_seq = ? AND layer_id = ? AND part = ? AND idx < ? AND revision <= ?"
		" GROUP BY idx");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, key->shot_seq);
	sqlite3_bind_text(st, 2, key->layer_id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, (int)part);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)n);
	sqlite3_bind_int64(st, 5, upto);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 idx = sqlite3_column_int64(st, 0);
		if (idx >= 0 && (size_t)idx < n)
			rowids[idx] = sqlite3_column_int64(st, 2);
	}
	if (s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

/* Opens (or moves) *blob to chunk rowid's data. */
static int open_chunk(sqlite3 *db, sqlite3_blob **blob, sqlite3_int64 rowid)
{
	int s = *blob ? sqlite3_blob_reopen(*blob, rowid)
		      : sqlite3_blob_open(db, "main", "binding_chunks", "data", rowid, 0, blob);
	return s == SQLITE_OK ? 0 : rig_sqlite__fail(s);
}

/* True when chunk rowid holds exactly the size bytes at p. */
static int same_bytes(sqlite3 *db, sqlite3_blob **blob, sqlite3_int64 rowid, const unsigned char *p,
		      size_t size, unsigned char *scratch, bool *same)
{
	*same = false;
	int rc = open_chunk(db, blob, rowid);
	if (rc)
		return rc;
	if ((size_t)sqlite3_blob_bytes(*blob) != size)
		return 0;
	if (size && sqlite3_blob_read(*blob, scratch, (int)size, 0) != SQLITE_OK)
		return -RIG_INTERNAL;
	*same = memcmp(scratch, p, size) == 0;
	return 0;
}

static int insert_chunk(sqlite3 *db, const struct rig_chunk_key *key, enum rig_chunk_part part,
			size_t idx, const unsigned char *p, size_t size)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "INSERT INTO binding_chunks(shot_seq, layer_id, part, idx,"
				     " revision, data) VALUES (?, ?, ?, ?, ?, ?)");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, key->shot_seq);
	sqlite3_bind_text(st, 2, key->layer_id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, (int)part);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)idx);
	sqlite3_bind_int64(st, 5, key->revision);
	sqlite3_bind_blob64(st, 6, size ? (const void *)p : "", size, SQLITE_STATIC);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	return rc;
}

/* Drops chunks already written at key's revision (a repository that saves
 * one version twice, as unit tests do), so the comparison below is with what
 * a reader of the previous revision sees. */
static int drop_revision(sqlite3 *db, const struct rig_chunk_key *key, enum rig_chunk_part part)
{
	sqlite3_stmt *st = NULL;
	int rc =
		rig_sqlite__prepare(&st, db,
				    "DELETE FROM binding_chunks WHERE shot_seq = ? AND layer_id = ?"
				    " AND part = ? AND revision = ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, key->shot_seq);
	sqlite3_bind_text(st, 2, key->layer_id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, (int)part);
	sqlite3_bind_int64(st, 4, key->revision);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	return rc;
}

int rig_chunks_write(sqlite3 *db, const struct rig_chunk_key *key, enum rig_chunk_part part,
		     const unsigned char *data, const size_t *bounds, size_t n)
{
	int drc = drop_revision(db, key, part);
	if (drc || n == 0)
		return drc;
	sqlite3_int64 *rowids = malloc(n * sizeof *rowids);
	size_t biggest = 0;
	for (size_t i = 0; i < n; i++)
		if (bounds[i + 1] - bounds[i] > biggest)
			biggest = bounds[i + 1] - bounds[i];
	unsigned char *scratch = malloc(biggest ? biggest : 1);
	int rc = rowids && scratch ? 0 : -RIG_INTERNAL;
	/* What a reader of the previous revision sees; a chunk row of this
	 * revision cannot exist yet (one write per binding per version). */
	if (!rc)
		rc = visible_rowids(db, key, part, key->revision - 1, n, rowids);
	sqlite3_blob *blob = NULL;
	for (size_t i = 0; i < n && !rc; i++) {
		const unsigned char *p = data + bounds[i];
		size_t size = bounds[i + 1] - bounds[i];
		bool same = false;
		if (rowids[i])
			rc = same_bytes(db, &blob, rowids[i], p, size, scratch, &same);
		if (!rc && !same) {
			/* An open blob handle would be invalidated by the insert. */
			if (blob)
				sqlite3_blob_close(blob);
			blob = NULL;
			rc = insert_chunk(db, key, part, i, p, size);
		}
	}
	if (blob)
		sqlite3_blob_close(blob);
	free(scratch);
	free(rowids);
	return rc;
}

int rig_chunks_read(sqlite3 *db, const struct rig_chunk_key *key, enum rig_chunk_part part,
		    size_t n, unsigned char **out, size_t *size)
{
	*out = NULL;
	*size = 0;
	sqlite3_int64 *rowids = n ? malloc(n * sizeof *rowids) : NULL;
	if (n && !rowids)
		return -RIG_INTERNAL;
	int rc = visible_rowids(db, key, part, key->revision, n, rowids);
	sqlite3_blob *blob = NULL;
	unsigned char *buf = NULL;
	size_t used = 0, cap = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (!rowids[i]) {
			rc = -RIG_INTERNAL;
			break;
		}
		rc = open_chunk(db, &blob, rowids[i]);
		if (rc)
			break;
		size_t bytes = (size_t)sqlite3_blob_bytes(blob);
		if (used + bytes > cap) {
			size_t want = cap ? cap : bytes * n;
			while (want < used + bytes)
				want *= 2;
			unsigned char *grown = realloc(buf, want);
			if (!grown) {
				rc = -RIG_INTERNAL;
				break;
			}
			buf = grown;
			cap = want;
		}
		if (bytes && sqlite3_blob_read(blob, buf + used, (int)bytes, 0) != SQLITE_OK)
			rc = -RIG_INTERNAL;
		used += bytes;
	}
	if (blob)
		sqlite3_blob_close(blob);
	free(rowids);
	if (!rc && !buf)
		buf = malloc(1);
	if (rc || !buf) {
		free(buf);
		return rc ? rc : -RIG_INTERNAL;
	}
	*out = buf;
	*size = used;
	return 0;
}
