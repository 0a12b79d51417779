/* The shot repository of shot_repo.h. */
#include "storage/shot_repo.h"

#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "storage/blob.h"
#include "storage/sqlite/sqlite_tx.h"

static char *column_strdup(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	return strdup(s ? (const char *)s : "");
}

static void column_copy(char *dst, size_t size, sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	rig_strlcpy(dst, s ? (const char *)s : "", size);
}

static int load_layers(struct rig_shot_model *m, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"SELECT id, ord, name, kind, parent_id, position_x, position_y, rotation,"
		" scale_x, scale_y, pivot_x, pivot_y, time_offset, keys"
		" FROM layers WHERE shot_id = ?"); /* sorted in C: SQLite's sorter copies every keys
						      blob */
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 3);
		const char *parent = (const char *)sqlite3_column_text(st, 4);
		struct rig_model_layer *l = rig_shot_model_add(
			m, (const char *)sqlite3_column_text(st, 0),
			(const char *)sqlite3_column_text(st, 2),
			kind && strcmp(kind, "mesh") == 0 ? RIG_LAYER_MESH : RIG_LAYER_GROUP,
			parent);
		if (!l) {
			rc = -RIG_INTERNAL;
			goto out;
		}
		l->ord = sqlite3_column_int64(st, 1);
		if (l->ord >= m->next_ord)
			m->next_ord = l->ord + 1;
		for (int c = 0; c < RIG_CH_COUNT; c++)
			l->statics.ch[c] = sqlite3_column_double(st, 5 + c);
		l->time_offset = sqlite3_column_double(st, 12);
		if (rig_blob_keys_decode(l->keys, sqlite3_column_blob(st, 13),
					 (size_t)sqlite3_column_bytes(st, 13)) != 0) {
			rc = -RIG_INTERNAL;
			goto out;
		}
		l->is_new = false;
		l->dirty = false;
	}
	if (s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	else
		rig_shot_model_sort(m);
out:
	rig_sqlite__finish(st);
	return rc;
}

static int load_skin_joints(struct rig_shot_model *m, sqlite3 *db)
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
		l->binding = RIG_BINDING_SKIN;
		l->skin_n_verts = (size_t)sqlite3_column_int64(st, 1);
		l->skin_n_tris = (size_t)sqlite3_column_int64(st, 2);
		l->skin_revision = sqlite3_column_int64(st, 5);
		if (rig_blob_joints_decode(&l->skin, (size_t)sqlite3_column_int64(st, 3),
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

int rig_shot_load(struct rig_shot_model *out, struct rig_tx *tx, const char *shot_id)
{
	sqlite3 *db = tx->conn;
	memset(out, 0, sizeof *out);
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"SELECT id, project_id, name, fps, frame_start, frame_end, version, seq"
		" FROM shots WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s != SQLITE_ROW) {
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
		goto out;
	}
	column_copy(out->id, sizeof out->id, st, 0);
	column_copy(out->project_id, sizeof out->project_id, st, 1);
	out->name = column_strdup(st, 2);
	out->fps = sqlite3_column_double(st, 3);
	out->frame_start = sqlite3_column_double(st, 4);
	out->frame_end = sqlite3_column_double(st, 5);
	out->version = sqlite3_column_int64(st, 6);
	out->seq = sqlite3_column_int64(st, 7);
	if (!out->name) {
		rc = -RIG_INTERNAL;
		goto out;
	}
	rc = load_layers(out, db);
	if (rc == 0)
		rc = load_skin_joints(out, db);
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

int rig_shot_read_skin(struct rig_tx *tx, const struct rig_shot_model *m,
		       const struct rig_model_layer *l, struct rig_skin_def *out)
{
	sqlite3 *db = tx->conn;
	memset(out, 0, sizeof *out);
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
	unsigned char *source = NULL, *tris = NULL, *offsets = NULL, *influences = NULL;
	rc = read_blob(&source, db, rowid, "source", l->skin_n_verts * 16);
	if (!rc)
		rc = read_blob(&tris, db, rowid, "triangles", l->skin_n_tris * 12);
	if (!rc)
		rc = read_blob(&offsets, db, rowid, "weight_offsets", offsets_size);
	if (!rc)
		rc = read_blob(&influences, db, rowid, "influences", influences_size);
	if (!rc && (rig_blob_source_take(out, l->skin_n_verts, &source) ||
		    rig_blob_triangles_take(out, l->skin_n_tris, &tris) ||
		    rig_blob_weights_decode(out, l->skin_n_verts, offsets, offsets_size, influences,
					    influences_size)))
		rc = -RIG_INTERNAL;
	free(source);
	free(tris);
	free(offsets);
	free(influences);
	if (rc) {
		rig_skin_def_release_mesh(out);
		return rc;
	}
	out->joints = l->skin.joints;
	out->n_joints = l->skin.n_joints;
	return 0;
}

int rig_shot_load_skin(struct rig_tx *tx, const struct rig_shot_model *m, struct rig_model_layer *l)
{
	if (l->skin_loaded || l->binding != RIG_BINDING_SKIN || l->binding_dirty)
		return 0;
	struct rig_skin_def arrays;
	int rc = rig_shot_read_skin(tx, m, l, &arrays);
	if (rc)
		return rc;
	l->skin.source = arrays.source;
	l->skin.n_verts = arrays.n_verts;
	l->skin.triangles = arrays.triangles;
	l->skin.n_tris = arrays.n_tris;
	l->skin.weight_offsets = arrays.weight_offsets;
	l->skin.influences = arrays.influences;
	l->skin.n_weight_lists = arrays.n_weight_lists;
	l->skin_loaded = true;
	return 0;
}

static int delete_layer(sqlite3 *db, const char *shot_id, const char *layer_id)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "DELETE FROM layers WHERE shot_id = ? AND id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, layer_id, -1, SQLITE_STATIC);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	return rc;
}

static int write_layer(sqlite3 *db, const char *shot_id, const struct rig_model_layer *l)
{
	size_t keys_size = 0;
	unsigned char *keys = rig_blob_keys_encode(&keys_size, l->keys);
	if (!keys)
		return -RIG_INTERNAL;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		l->is_new ? "INSERT INTO layers(name, kind, parent_id, position_x,"
			    " position_y, rotation, scale_x, scale_y, pivot_x, pivot_y,"
			    " time_offset, keys, shot_id, id, ord)"
			    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
			  : "UPDATE layers SET name = ?, kind = ?, parent_id = ?,"
			    " position_x = ?, position_y = ?, rotation = ?, scale_x = ?,"
			    " scale_y = ?, pivot_x = ?, pivot_y = ?, time_offset = ?, keys = ?"
			    " WHERE shot_id = ? AND id = ? AND ord = ?"); /* ord binds too: one
									     statement shape */
	if (rc)
		goto out;
	sqlite3_bind_text(st, 1, l->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->kind == RIG_LAYER_MESH ? "mesh" : "group", -1, SQLITE_STATIC);
	if (l->parent_id[0])
		sqlite3_bind_text(st, 3, l->parent_id, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	for (int c = 0; c < RIG_CH_COUNT; c++)
		sqlite3_bind_double(st, 4 + c, l->statics.ch[c]);
	sqlite3_bind_double(st, 11, l->time_offset);
	sqlite3_bind_blob(st, 12, keys, (int)keys_size, SQLITE_STATIC);
	sqlite3_bind_text(st, 13, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 14, l->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 15, l->ord);
	rc = rig_sqlite__step_done(st);
out:
	rig_sqlite__finish(st);
	free(keys);
	return rc;
}

static int write_skin(sqlite3 *db, const char *shot_id, const struct rig_model_layer *l,
		      long long revision)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "DELETE FROM skins WHERE shot_id = ? AND layer_id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->id, -1, SQLITE_STATIC);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	st = NULL;
	if (rc || l->binding != RIG_BINDING_SKIN)
		return rc;

	const struct rig_skin_def *d = &l->skin;
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

int rig_shot_save(struct rig_tx *tx, const struct rig_shot_model *m, long long to_version)
{
	sqlite3 *db = tx->conn;
	int rc = 0;
	/* Deletions first, so an id deleted and created again in one batch is free. */
	for (size_t i = 0; i < m->n_layers && !rc; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (l->deleted && !l->is_new)
			rc = delete_layer(db, m->id, l->id);
	}
	for (size_t i = 0; i < m->n_layers && !rc; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (l->deleted)
			continue;
		if (l->dirty)
			rc = write_layer(db, m->id, l);
		if (!rc && l->binding_dirty)
			rc = write_skin(db, m->id, l, to_version);
	}
	return rc;
}

int rig_shot_set_version(struct rig_tx *tx, const char *shot_id, long long from, long long to)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "UPDATE shots SET version = ? WHERE id = ? AND version = ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, to);
	sqlite3_bind_text(st, 2, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, from);
	rc = rig_sqlite__step_done(st);
	if (rc == 0 && sqlite3_changes(db) != 1)
		rc = -RIG_VERSION_CONFLICT;
	rig_sqlite__finish(st);
	return rc;
}
