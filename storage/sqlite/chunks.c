/* Binding arrays in chunks: chunks.h. */
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

size_t *rig_chunks_fixed_bounds(size_t size, size_t step, size_t *n)
{
	*n = rig_chunks_count(size, step);
	size_t *b = malloc((*n + 1) * sizeof *b);
	if (!b)
		return NULL;
	for (size_t i = 0; i < *n; i++)
		b[i] = i * step;
	b[*n] = size;
	return b;
}

unsigned char *rig_chunks_weights_encode(const struct rig_skin_def *def, size_t *size,
					 size_t **bounds, size_t *n)
{
	size_t lists = def->n_weight_lists;
	size_t total = lists ? def->weight_offsets[lists] : 0;
	*size = lists + total * RIG_INFLUENCE_RECORD_BYTES;
	*n = rig_chunks_count(lists, RIG_CHUNK_WEIGHTS);
	*bounds = malloc((*n + 1) * sizeof **bounds);
	unsigned char *buf = malloc(*size ? *size : 1);
	if (!buf || !*bounds) {
		free(buf);
		free(*bounds);
		*bounds = NULL;
		return NULL;
	}
	unsigned char *p = buf;
	for (size_t v = 0; v < lists; v++) {
		if (v % RIG_CHUNK_WEIGHTS == 0)
			(*bounds)[v / RIG_CHUNK_WEIGHTS] = (size_t)(p - buf);
		uint32_t a = def->weight_offsets[v], b = def->weight_offsets[v + 1];
		if (b < a || b - a > 255) {
			free(buf);
			free(*bounds);
			*bounds = NULL;
			return NULL;
		}
		*p++ = (unsigned char)(b - a);
		for (uint32_t k = a; k < b; k++, p += RIG_INFLUENCE_RECORD_BYTES) {
			rig_le_put_u32(p, def->influences[k].joint);
			rig_le_put_f64(p + 4, def->influences[k].weight);
		}
	}
	(*bounds)[*n] = *size;
	return buf;
}

int rig_chunks_weights_decode(struct rig_skin_def *def, size_t n_verts, const unsigned char *p,
			      size_t size)
{
	/* First pass: counts and the total, so the arrays are allocated once. */
	size_t total = 0, at = 0;
	for (size_t v = 0; v < n_verts; v++) {
		if (at >= size)
			return -1;
		total += p[at];
		at += 1 + (size_t)p[at] * RIG_INFLUENCE_RECORD_BYTES;
	}
	if (at != size)
		return -1;
	def->weight_offsets = malloc((n_verts + 1) * sizeof *def->weight_offsets);
	def->influences = malloc(total ? total * sizeof *def->influences : 1);
	if (!def->weight_offsets || !def->influences)
		return -1;
	size_t k = 0;
	at = 0;
	for (size_t v = 0; v < n_verts; v++) {
		def->weight_offsets[v] = (uint32_t)k;
		size_t count = p[at++];
		for (size_t i = 0; i < count; i++, k++, at += RIG_INFLUENCE_RECORD_BYTES) {
			def->influences[k].joint = rig_le_get_u32(p + at);
			def->influences[k].weight = rig_le_get_f64(p + at + 4);
		}
	}
	def->weight_offsets[n_verts] = (uint32_t)k;
	def->n_weight_lists = n_verts;
	return 0;
}

/* One fixed-stride part of a skin, encoded by encode. */
static int write_fixed(sqlite3 *db, const struct rig_chunk_key *key, enum rig_chunk_part part,
		       unsigned char *(*encode)(size_t *, const struct rig_skin_def *),
		       const struct rig_skin_def *def, size_t step)
{
	size_t size = 0, n = 0;
	unsigned char *data = encode(&size, def);
	size_t *bounds = data ? rig_chunks_fixed_bounds(size, step, &n) : NULL;
	int rc = bounds ? rig_chunks_write(db, key, part, data, bounds, n) : -RIG_INTERNAL;
	free(bounds);
	free(data);
	return rc;
}

int rig_chunks_write_skin(sqlite3 *db, const struct rig_chunk_key *key,
			  const struct rig_skin_def *def)
{
	int rc = write_fixed(db, key, RIG_PART_JOINTS, rig_blob_joints_encode, def,
			     RIG_CHUNK_JOINTS * RIG_JOINT_RECORD_BYTES);
	if (!rc)
		rc = write_fixed(db, key, RIG_PART_SOURCE, rig_blob_source_encode, def,
				 RIG_CHUNK_VERTS * 16);
	if (!rc)
		rc = write_fixed(db, key, RIG_PART_TRIANGLES, rig_blob_triangles_encode, def,
				 RIG_CHUNK_TRIS * 12);
	if (rc)
		return rc;
	size_t size = 0;
	size_t *bounds = NULL, n = 0;
	unsigned char *w = rig_chunks_weights_encode(def, &size, &bounds, &n);
	rc = w ? rig_chunks_write(db, key, RIG_PART_WEIGHTS, w, bounds, n) : -RIG_INTERNAL;
	free(w);
	free(bounds);
	return rc;
}
