/* The skin's codec (binding_codec.h): a skin is one row of the skins table,
 * its counts and joints in columns read with the shot, its per-vertex arrays
 * (source, triangles, weight offsets, influences) in BLOBs read on demand
 * with incremental blob I/O. The BLOB layouts are storage/blob.h's.
 */
#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "core/skin.h"
#include "storage/blob.h"
#include "storage/sqlite/binding_codec.h"
#include "storage/sqlite/sqlite_tx.h"

static int load_bindings(struct rig_shot_model *m, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"SELECT layer_id, n_verts, n_tris, n_joints, joints, revision FROM skins"
		" WHERE shot_id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
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
		if (rig_blob_joints_decode(def, (size_t)sqlite3_column_int64(st, 3),
					   sqlite3_column_blob(st, 4),
					   (size_t)sqlite3_column_bytes(st, 4)) != 0) {
			rc = -RIG_INTERNAL;
			goto out;
		}
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

/* The arrays of the stored row into out (zeroed, joints not set). */
static int read_arrays(struct rig_skin_def *out, sqlite3 *db, const struct rig_shot_model *m,
		       const struct rig_model_layer *l)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"SELECT rowid, length(weight_offsets), length(influences) FROM skins"
		" WHERE shot_id = ? AND layer_id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s != SQLITE_ROW) {
		rc = s == SQLITE_DONE ? -RIG_INTERNAL : rig_sqlite__fail(s);
		rig_sqlite__finish(st);
		return rc;
	}
	sqlite3_int64 rowid = sqlite3_column_int64(st, 0);
	size_t offsets_size = (size_t)sqlite3_column_int64(st, 1);
	size_t influences_size = (size_t)sqlite3_column_int64(st, 2);
	rig_sqlite__finish(st);
	size_t n_verts = l->binding.n_verts, n_tris = l->binding.n_tris;
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
	int rc = read_arrays(def, db, m, l);
	if (!rc && have->n_joints) {
		def->joints = malloc(have->n_joints * sizeof *def->joints);
		if (!def->joints)
			rc = -RIG_INTERNAL;
		else
			memcpy(def->joints, have->joints, have->n_joints * sizeof *def->joints);
		def->n_joints = def->joints ? have->n_joints : 0;
	}
	if (rc) {
		rig_binding_skin.def_free(def);
		return rc;
	}
	*out = def;
	return 0;
}

static int erase_binding(sqlite3 *db, const char *shot_id, const char *layer_id)
{
	return rig_sqlite__run2(db, "DELETE FROM skins WHERE shot_id = ? AND layer_id = ?", shot_id,
				layer_id);
}

static int write_binding(sqlite3 *db, const char *shot_id, const struct rig_model_layer *l,
			 long long revision)
{
	const struct rig_skin_def *d = l->binding.def;
	sqlite3_stmt *st = NULL;
	int rc = 0;
	size_t sizes[5];
	unsigned char *blobs[5] = {
		rig_blob_joints_encode(&sizes[0], d), rig_blob_source_encode(&sizes[1], d),
		rig_blob_triangles_encode(&sizes[2], d), rig_blob_offsets_encode(&sizes[3], d),
		rig_blob_influences_encode(&sizes[4], d)};
	for (int i = 0; i < 5; i++)
		if (!blobs[i])
			rc = -RIG_INTERNAL;
	if (rc)
		goto out_free;
	rc = rig_sqlite__prepare(
		&st, db,
		"INSERT INTO skins(shot_id, layer_id, n_verts, n_tris, n_joints, joints,"
		" source, triangles, weight_offsets, influences, revision)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (rc)
		goto out_free;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)d->n_verts);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)d->n_tris);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)d->n_joints);
	for (int i = 0; i < 5; i++)
		sqlite3_bind_blob64(st, 6 + i, blobs[i], sizes[i], SQLITE_STATIC);
	sqlite3_bind_int64(st, 11, revision);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
out_free:
	for (int i = 0; i < 5; i++)
		free(blobs[i]);
	return rc;
}

const struct rig_binding_codec rig_binding_codec_skin = {
	.type = &rig_binding_skin,
	.load = load_bindings,
	.read = read_binding,
	.erase = erase_binding,
	.write = write_binding,
};
