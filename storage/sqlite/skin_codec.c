/* The skin's codec (binding_codec.h): the head skin of a layer is one row of
 * the skins table holding its counts and revision; its joints and per-vertex
 * arrays are chunks of that revision (chunks.h), the joints read with the
 * shot, the rest on demand. A replaced skin's row moves to binding_history
 * (docs/history.md). Rows written before migration 12 (chunked = 0) hold
 * their arrays in BLOB columns (storage/blob.h layouts) and are read from
 * there until first replaced. The skin's method and its pins are part of its
 * joints (skin_bytes.h: trailers only when not lbs, only with pins), so they
 * load with the shot and every stored revision keeps its own.
 */
#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "core/skin.h"
#include "storage/skin_bytes.h"
#include "storage/sqlite/binding_codec.h"
#include "storage/sqlite/chunks.h"
#include "storage/sqlite/sqlite_tx.h"

/* The joints of a chunked skin of layer_id at revision into def. */
static int read_joints(struct rig_skin_def *def, sqlite3 *db, const struct rig_shot_model *m,
		       const char *layer_id, long long revision, size_t n_joints)
{
	struct rig_chunk_key key = {m->seq, layer_id, revision};
	unsigned char *p = NULL;
	size_t size = 0;
	int rc = rig_chunks_read(db, &key, RIG_PART_JOINTS,
				 rig_chunks_skin_part_count(RIG_PART_JOINTS, 0, 0, n_joints, false),
				 &p, &size);
	if (!rc && rig_blob_joints_decode(def, n_joints, p, size) != 0)
		rc = -RIG_INTERNAL;
	free(p);
	return rc;
}

static int load_bindings(struct rig_shot_model *m, sqlite3 *db, long long at)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		at < 0 ? "SELECT layer_id, n_verts, n_tris, n_joints, joints, revision, chunked"
			 " FROM skins WHERE shot_id = ?1"
		       : "SELECT layer_id, n_verts, n_tris, n_joints, joints, revision, chunked"
			 " FROM skins WHERE shot_id = ?1 AND revision <= ?3"
			 " UNION ALL SELECT layer_id, n_verts, n_tris, n_joints, x'', valid_from, 1"
			 " FROM binding_history WHERE shot_seq = ?2 AND valid_to > ?3"
			 " AND valid_from <= ?3 AND kind = 'skin'");
	if (rc)
		return rc;
	rig_sqlite__bind_shot_at(st, m, at);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rig_model_layer *l =
			rig_shot_model_find(m, (const char *)sqlite3_column_text(st, 0));
		if (!l)
			continue;
		struct rig_skin_def *def = calloc(1, sizeof *def);
		if (!def) {
			rc = -RIG_INTERNAL;
			goto out;
		}
		rig_model_binding_set(l, &rig_binding_skin, def);
		l->binding.loaded = false;
		l->binding.dirty = false;
		l->binding.n_verts = (size_t)sqlite3_column_int64(st, 1);
		l->binding.n_tris = (size_t)sqlite3_column_int64(st, 2);
		l->binding.revision = sqlite3_column_int64(st, 5);
		size_t n_joints = (size_t)sqlite3_column_int64(st, 3);
		if (sqlite3_column_int(st, 6))
			rc = read_joints(def, db, m, l->id, l->binding.revision, n_joints);
		else if (rig_blob_joints_decode(def, n_joints, sqlite3_column_blob(st, 4),
						(size_t)sqlite3_column_bytes(st, 4)) != 0)
			rc = -RIG_INTERNAL;
		if (rc)
			goto out;
	}
	if (s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
out:
	rig_sqlite__finish(st);
	return rc;
}

/* Reads column `column` of skins row `rowid` into a new buffer of exactly
 * `size` bytes with incremental blob I/O (one copy, page by page). */
static int read_blob(unsigned char **out, sqlite3 *db, sqlite3_int64 rowid, const char *column,
		     size_t size)
{
	*out = NULL;
	sqlite3_blob *blob = NULL;
	int rc = sqlite3_blob_open(db, "main", "skins", column, rowid, 0, &blob);
	if (rc != SQLITE_OK)
		return rig_sqlite__fail(rc);
	if ((size_t)sqlite3_blob_bytes(blob) != size || !(*out = malloc(size ? size : 1))) {
		sqlite3_blob_close(blob);
		return -RIG_INTERNAL;
	}
	rc = size ? sqlite3_blob_read(blob, *out, (int)size, 0) : SQLITE_OK;
	sqlite3_blob_close(blob);
	if (rc != SQLITE_OK) {
		free(*out);
		*out = NULL;
		return rig_sqlite__fail(rc);
	}
	return 0;
}

/* The arrays of a chunked skin of layer_id at revision, of n_verts and n_tris,
 * into out (zeroed, joints not set). */
static int read_chunked(struct rig_skin_def *out, sqlite3 *db, const struct rig_shot_model *m,
			const char *layer_id, long long revision, size_t n_verts, size_t n_tris,
			bool has_uvs)
{
	out->has_uvs = has_uvs;
	struct rig_chunk_key key = {m->seq, layer_id, revision};
	unsigned char *source = NULL, *tris = NULL, *weights = NULL;
	size_t n_source = 0, n_tri_bytes = 0, n_weights = 0;
	int rc = rig_chunks_read(
		db, &key, RIG_PART_SOURCE,
		rig_chunks_skin_part_count(RIG_PART_SOURCE, n_verts, n_tris, 0, has_uvs), &source,
		&n_source);
	if (!rc)
		rc = rig_chunks_read(
			db, &key, RIG_PART_TRIANGLES,
			rig_chunks_skin_part_count(RIG_PART_TRIANGLES, n_verts, n_tris, 0, has_uvs),
			&tris, &n_tri_bytes);
	if (!rc)
		rc = rig_chunks_read(
			db, &key, RIG_PART_WEIGHTS,
			rig_chunks_skin_part_count(RIG_PART_WEIGHTS, n_verts, n_tris, 0, has_uvs),
			&weights, &n_weights);
	if (!rc && rig_chunks_skin_decode(out, n_verts, n_tris, &source, n_source, &tris,
					  n_tri_bytes, weights, n_weights) != 0)
		rc = -RIG_INTERNAL;
	free(source);
	free(tris);
	free(weights);
	return rc;
}

/* The head row of layer_id's skin: rowid, chunked, revision; *found false
 * when there is none. */
static int head_row(sqlite3 *db, const char *shot_id, const char *layer_id, bool *found,
		    sqlite3_int64 *rowid, bool *chunked, long long *revision, size_t counts[3])
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT rowid, chunked, revision, n_verts, n_tris, n_joints"
				     " FROM skins WHERE shot_id = ? AND layer_id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, layer_id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	*found = s == SQLITE_ROW;
	if (*found) {
		*rowid = sqlite3_column_int64(st, 0);
		*chunked = sqlite3_column_int(st, 1) != 0;
		*revision = sqlite3_column_int64(st, 2);
		for (int i = 0; i < 3; i++)
			counts[i] = (size_t)sqlite3_column_int64(st, 3 + i);
	} else if (s != SQLITE_DONE) {
		rc = rig_sqlite__fail(s);
	}
	rig_sqlite__finish(st);
	return rc;
}

/* The arrays of legacy skins row rowid (arrays in its columns) into out. */
static int read_legacy(struct rig_skin_def *out, sqlite3 *db, sqlite3_int64 rowid, size_t n_verts,
		       size_t n_tris)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"SELECT length(weight_offsets), length(influences) FROM skins WHERE rowid = ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, rowid);
	int s = sqlite3_step(st);
	if (s != SQLITE_ROW) {
		rc = s == SQLITE_DONE ? -RIG_INTERNAL : rig_sqlite__fail(s);
		rig_sqlite__finish(st);
		return rc;
	}
	size_t offsets_size = (size_t)sqlite3_column_int64(st, 0);
	size_t influences_size = (size_t)sqlite3_column_int64(st, 1);
	rig_sqlite__finish(st);
	unsigned char *source = NULL, *tris = NULL, *offsets = NULL, *influences = NULL;
	rc = read_blob(&source, db, rowid, "source", n_verts * 16);
	if (!rc)
		rc = read_blob(&tris, db, rowid, "triangles", n_tris * 12);
	if (!rc)
		rc = read_blob(&offsets, db, rowid, "weight_offsets", offsets_size);
	if (!rc)
		rc = read_blob(&influences, db, rowid, "influences", influences_size);
	if (!rc && (rig_blob_source_take(out, n_verts, &source) ||
		    rig_blob_triangles_take(out, n_tris, &tris) ||
		    rig_blob_weights_decode(out, n_verts, offsets, offsets_size, influences,
					    influences_size)))
		rc = -RIG_INTERNAL;
	free(source);
	free(tris);
	free(offsets);
	free(influences);
	return rc;
}

static int read_binding(void **out, sqlite3 *db, const struct rig_shot_model *m,
			const struct rig_model_layer *l)
{
	*out = NULL;
	const struct rig_skin_def *have = l->binding.def;
	struct rig_skin_def *def = calloc(1, sizeof *def);
	if (!def)
		return -RIG_INTERNAL;
	bool found = false, chunked = true;
	sqlite3_int64 rowid = 0;
	long long head_revision = -1;
	size_t counts[3];
	int rc = head_row(db, m->id, l->id, &found, &rowid, &chunked, &head_revision, counts);
	if (!rc)
		rc = found && !chunked && head_revision == l->binding.revision
			     ? read_legacy(def, db, rowid, l->binding.n_verts, l->binding.n_tris)
			     : read_chunked(def, db, m, l->id, l->binding.revision,
					    l->binding.n_verts, l->binding.n_tris, have->has_uvs);
	/* The joints, the method and the pins were read with the shot (skin_bytes.h). */
	if (!rc && rig_skin_def_copy_head(def, have) != 0)
		rc = -RIG_INTERNAL;
	if (rc) {
		rig_binding_skin.def_free(def);
		return rc;
	}
	*out = def;
	return 0;
}

/* Stores every part of skin def (joints, source, triangles, weights) at key. */
static int write_parts(sqlite3 *db, const struct rig_chunk_key *key, const struct rig_skin_def *def)
{
	int rc = 0;
	for (size_t i = 0; i < RIG_SKIN_N_PARTS && !rc; i++) {
		struct rig_chunk_bytes part;
		rc = rig_chunks_skin_part_encode(&part, rig_chunks_skin_parts[i], def);
		if (!rc)
			rc = rig_chunks_write(db, key, part.part, part.data, part.bounds, part.n);
		rig_chunk_bytes_release(&part, 1);
	}
	return rc;
}

/* Stores a legacy head row's arrays as chunks of its own revision, so its
 * history row reads like any other. One write the size of the skin, once. */
static int convert_legacy(sqlite3 *db, const struct rig_shot_model *m, const char *layer_id,
			  sqlite3_int64 rowid, long long revision, const size_t counts[3])
{
	struct rig_skin_def def = {0};
	int rc = read_legacy(&def, db, rowid, counts[0], counts[1]);
	sqlite3_stmt *st = NULL;
	if (!rc)
		rc = rig_sqlite__prepare(&st, db, "SELECT joints FROM skins WHERE rowid = ?");
	if (!rc) {
		sqlite3_bind_int64(st, 1, rowid);
		int s = sqlite3_step(st);
		if (s != SQLITE_ROW)
			rc = s == SQLITE_DONE ? -RIG_INTERNAL : rig_sqlite__fail(s);
		else if (rig_blob_joints_decode(&def, counts[2], sqlite3_column_blob(st, 0),
						(size_t)sqlite3_column_bytes(st, 0)) != 0)
			rc = -RIG_INTERNAL;
		rig_sqlite__finish(st);
	}
	struct rig_chunk_key key = {m->seq, layer_id, revision};
	if (!rc)
		rc = write_parts(db, &key, &def);
	rig_skin_def_release(&def);
	return rc;
}

static int erase_binding(sqlite3 *db, const struct rig_shot_model *m, const char *layer_id,
			 long long to_version)
{
	bool found = false, chunked = true;
	sqlite3_int64 rowid = 0;
	long long revision = 0;
	size_t counts[3];
	int rc = head_row(db, m->id, layer_id, &found, &rowid, &chunked, &revision, counts);
	if (rc || !found)
		return rc;
	if (!chunked)
		rc = convert_legacy(db, m, layer_id, rowid, revision, counts);
	sqlite3_stmt *st = NULL;
	if (!rc && revision < to_version) /* else it was never visible */
		rc = rig_sqlite__prepare(
			&st, db,
			"INSERT INTO binding_history(shot_seq, valid_to, layer_id, valid_from,"
			" kind, n_verts, n_tris, n_joints, head, mesh_bytes)"
			" VALUES (?, ?, ?, ?, 'skin', ?, ?, ?, x'', 0)");
	if (!rc && st) {
		sqlite3_bind_int64(st, 1, m->seq);
		sqlite3_bind_int64(st, 2, to_version);
		sqlite3_bind_text(st, 3, layer_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, revision);
		for (int i = 0; i < 3; i++)
			sqlite3_bind_int64(st, 5 + i, (sqlite3_int64)counts[i]);
		rc = rig_sqlite__step_done(st);
		rig_sqlite__finish(st);
	}
	if (!rc)
		rc = rig_sqlite__run_int(db, "DELETE FROM skins WHERE rowid = ?", rowid);
	return rc;
}

static int write_binding(sqlite3 *db, const struct rig_shot_model *m,
			 const struct rig_model_layer *l, long long revision)
{
	const struct rig_skin_def *d = l->binding.def;
	struct rig_chunk_key key = {m->seq, l->id, revision};
	int rc = write_parts(db, &key, d);
	sqlite3_stmt *st = NULL;
	if (!rc)
		rc = rig_sqlite__prepare(
			&st, db,
			"INSERT INTO skins(shot_id, layer_id, n_verts, n_tris, n_joints, joints,"
			" source, triangles, weight_offsets, influences, revision, chunked)"
			" VALUES (?, ?, ?, ?, ?, x'', x'', x'', x'', x'', ?, 1)");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)d->n_verts);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)d->n_tris);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)d->n_joints);
	sqlite3_bind_int64(st, 6, revision);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	return rc;
}

const struct rig_binding_codec rig_binding_codec_skin = {
	.type = &rig_binding_skin,
	.load = load_bindings,
	.read = read_binding,
	.erase = erase_binding,
	.write = write_binding,
};
