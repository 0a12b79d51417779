/* The generic codec (binding_codec.h): a binding of a kind without a table of
 * its own is one row of the bindings table (migration 10), its counts and
 * revision in columns and its definition as the two byte strings of the
 * kind's encode — the head, in the row, read with the shot; the per-vertex
 * mesh in chunks of the binding's revision (chunks.h), read only when a
 * request needs it. A replaced binding's row moves to binding_history
 * (docs/history.md). Rows from before migration 12 (chunked = 0) keep their
 * mesh in the row until first replaced.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "storage/sqlite/binding_codec.h"
#include "storage/sqlite/chunks.h"
#include "storage/sqlite/sqlite_tx.h"

int rig_binding_generic_load(struct rig_shot_model *m, sqlite3 *db, long long at,
			     const struct rig_binding_type *(*find)(const char *name))
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		at < 0 ? "SELECT layer_id, kind, revision, n_verts, n_tris, head"
			 " FROM bindings WHERE shot_id = ?1"
		       : "SELECT layer_id, kind, revision, n_verts, n_tris, head"
			 " FROM bindings WHERE shot_id = ?1 AND revision <= ?3"
			 " UNION ALL SELECT layer_id, kind, valid_from, n_verts, n_tris, head"
			 " FROM binding_history WHERE shot_seq = ?2 AND valid_to > ?3"
			 " AND valid_from <= ?3 AND kind <> 'skin'");
	if (rc)
		return rc;
	rig_sqlite__bind_shot_at(st, m, at);
	int s = SQLITE_DONE;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rig_model_layer *l =
			rig_shot_model_find(m, (const char *)sqlite3_column_text(st, 0));
		if (!l)
			continue;
		const struct rig_binding_type *type =
			find((const char *)sqlite3_column_text(st, 1));
		void *def = type && type->decode
				    ? type->decode(sqlite3_column_blob(st, 5),
						   (size_t)sqlite3_column_bytes(st, 5), NULL, 0)
				    : NULL;
		if (!def) { /* a kind this binary does not know, damaged bytes, or no memory */
			rc = -RIG_INTERNAL;
			break;
		}
		rig_model_binding_set(l, type, def);
		l->binding.loaded = false;
		l->binding.dirty = false;
		l->binding.revision = sqlite3_column_int64(st, 2);
		l->binding.n_verts = (size_t)sqlite3_column_int64(st, 3);
		l->binding.n_tris = (size_t)sqlite3_column_int64(st, 4);
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

/* The stored form of layer_id's binding of revision: the head row when it
 * is that revision, else its history row. *legacy when the mesh is in the
 * head row (its rowid in *rowid), else *mesh_bytes of chunks. */
static int find_row(sqlite3 *db, const struct rig_shot_model *m, const char *layer_id,
		    long long revision, unsigned char **head, size_t *n_head, bool *legacy,
		    sqlite3_int64 *rowid, size_t *mesh_bytes)
{
	*head = NULL;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"SELECT head, chunked = 0, rowid, mesh_bytes FROM bindings"
		" WHERE shot_id = ?1 AND layer_id = ?2 AND revision = ?3"
		" UNION ALL SELECT head, 0, 0, mesh_bytes FROM binding_history"
		" WHERE shot_seq = ?4 AND layer_id = ?2 AND valid_from = ?3 LIMIT 1");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, layer_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, revision);
	sqlite3_bind_int64(st, 4, m->seq);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*n_head = (size_t)sqlite3_column_bytes(st, 0);
		*head = malloc(*n_head ? *n_head : 1);
		if (*head && *n_head)
			memcpy(*head, sqlite3_column_blob(st, 0), *n_head);
		*legacy = sqlite3_column_int(st, 1) != 0;
		*rowid = sqlite3_column_int64(st, 2);
		*mesh_bytes = (size_t)sqlite3_column_int64(st, 3);
		rc = *head ? 0 : -RIG_INTERNAL;
	} else {
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	}
	rig_sqlite__finish(st);
	return rc;
}

/* The mesh of legacy row rowid into a new buffer. */
static int read_legacy_mesh(sqlite3 *db, sqlite3_int64 rowid, unsigned char **mesh, size_t *n)
{
	*mesh = NULL;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "SELECT mesh FROM bindings WHERE rowid = ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, rowid);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*n = (size_t)sqlite3_column_bytes(st, 0);
		*mesh = malloc(*n ? *n : 1);
		if (*mesh && *n)
			memcpy(*mesh, sqlite3_column_blob(st, 0), *n);
		rc = *mesh ? 0 : -RIG_INTERNAL;
	} else {
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	}
	rig_sqlite__finish(st);
	return rc;
}

/* The mesh of layer_id's binding of revision into a new buffer. */
static int read_mesh(sqlite3 *db, const struct rig_shot_model *m, const char *layer_id,
		     long long revision, bool legacy, sqlite3_int64 rowid, size_t mesh_bytes,
		     unsigned char **mesh, size_t *n)
{
	if (legacy)
		return read_legacy_mesh(db, rowid, mesh, n);
	struct rig_chunk_key key = {m->seq, layer_id, revision};
	int rc = rig_chunks_read(db, &key, RIG_PART_ARRAYS,
				 rig_chunks_count(mesh_bytes, RIG_CHUNK_ARRAY_BYTES), mesh, n);
	if (!rc && *n != mesh_bytes) {
		free(*mesh);
		*mesh = NULL;
		rc = -RIG_INTERNAL;
	}
	return rc;
}

static int write_mesh(sqlite3 *db, const struct rig_chunk_key *key, const unsigned char *mesh,
		      size_t n)
{
	size_t chunks = 0;
	size_t *bounds = rig_chunks_fixed_bounds(n, RIG_CHUNK_ARRAY_BYTES, &chunks);
	int rc = bounds ? rig_chunks_write(db, key, RIG_PART_ARRAYS, mesh, bounds, chunks)
			: -RIG_INTERNAL;
	free(bounds);
	return rc;
}

int rig_binding_generic_read(void **out, sqlite3 *db, const struct rig_shot_model *m,
			     const struct rig_model_layer *l)
{
	*out = NULL;
	const struct rig_binding_type *type = l->binding.type;
	unsigned char *head = NULL, *mesh = NULL;
	size_t n_head = 0, n_mesh = 0, mesh_bytes = 0;
	bool legacy = false;
	sqlite3_int64 rowid = 0;
	int rc = find_row(db, m, l->id, l->binding.revision, &head, &n_head, &legacy, &rowid,
			  &mesh_bytes);
	if (!rc)
		rc = read_mesh(db, m, l->id, l->binding.revision, legacy, rowid, mesh_bytes, &mesh,
			       &n_mesh);
	if (!rc) {
		/* A zero-length mesh still reads as one: decode tells it from NULL. */
		*out = type->decode(head, n_head, mesh, n_mesh);
		rc = *out ? 0 : -RIG_INTERNAL;
	}
	free(head);
	free(mesh);
	return rc;
}

int rig_binding_generic_erase(sqlite3 *db, const struct rig_shot_model *m, const char *layer_id,
			      long long to_version)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT rowid, revision, chunked FROM bindings"
				     " WHERE shot_id = ? AND layer_id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, layer_id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	sqlite3_int64 rowid = s == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	long long revision = s == SQLITE_ROW ? sqlite3_column_int64(st, 1) : 0;
	bool legacy = s == SQLITE_ROW && sqlite3_column_int(st, 2) == 0;
	rig_sqlite__finish(st);
	if (s != SQLITE_ROW)
		return s == SQLITE_DONE ? 0 : rig_sqlite__fail(s);
	unsigned char *mesh = NULL;
	size_t n_mesh = 0;
	/* A legacy row's mesh becomes chunks of its own revision (once). */
	if (legacy && !(rc = read_legacy_mesh(db, rowid, &mesh, &n_mesh))) {
		struct rig_chunk_key key = {m->seq, layer_id, revision};
		rc = write_mesh(db, &key, mesh, n_mesh);
		if (!rc)
			rc = rig_sqlite__prepare(
				&st, db, "UPDATE bindings SET mesh_bytes = ? WHERE rowid = ?");
		if (!rc) {
			sqlite3_bind_int64(st, 1, (sqlite3_int64)n_mesh);
			sqlite3_bind_int64(st, 2, rowid);
			rc = rig_sqlite__step_done(st);
			rig_sqlite__finish(st);
		}
		free(mesh);
	}
	if (!rc && revision < to_version) { /* else it was never visible */
		rc = rig_sqlite__prepare(
			&st, db,
			"INSERT INTO binding_history(shot_seq, valid_to, layer_id, valid_from,"
			" kind, n_verts, n_tris, n_joints, head, mesh_bytes)"
			" SELECT ?, ?, layer_id, revision, kind, n_verts, n_tris, 0, head,"
			" mesh_bytes FROM bindings WHERE rowid = ?");
		if (!rc) {
			sqlite3_bind_int64(st, 1, m->seq);
			sqlite3_bind_int64(st, 2, to_version);
			sqlite3_bind_int64(st, 3, rowid);
			rc = rig_sqlite__step_done(st);
			rig_sqlite__finish(st);
		}
	}
	if (!rc)
		rc = rig_sqlite__run_int(db, "DELETE FROM bindings WHERE rowid = ?", rowid);
	return rc;
}

int rig_binding_generic_write(sqlite3 *db, const struct rig_shot_model *m,
			      const struct rig_model_layer *l, long long revision)
{
	const struct rig_binding_type *type = l->binding.type;
	unsigned char *head = NULL, *mesh = NULL;
	size_t n_head = 0, n_mesh = 0;
	int rc = type->encode(l->binding.def, &head, &n_head, &mesh, &n_mesh);
	struct rig_chunk_key key = {m->seq, l->id, revision};
	if (!rc)
		rc = write_mesh(db, &key, mesh, n_mesh);
	sqlite3_stmt *st = NULL;
	if (!rc)
		rc = rig_sqlite__prepare(
			&st, db,
			"INSERT INTO bindings (shot_id, layer_id, kind, revision, n_verts,"
			" n_tris, head, mesh, chunked, mesh_bytes)"
			" VALUES (?, ?, ?, ?, ?, ?, ?, x'', 1, ?)");
	if (!rc) {
		/* A non-NULL pointer: a zero-length string stays a BLOB, not NULL. */
		sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, l->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, type->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, revision);
		sqlite3_bind_int64(st, 5, (sqlite3_int64)type->def_n_verts(l->binding.def));
		sqlite3_bind_int64(st, 6, (sqlite3_int64)type->def_n_tris(l->binding.def));
		sqlite3_bind_blob64(st, 7, head ? (const void *)head : "", n_head, SQLITE_STATIC);
		sqlite3_bind_int64(st, 8, (sqlite3_int64)n_mesh);
		rc = rig_sqlite__step_done(st);
		rig_sqlite__finish(st);
	}
	free(head);
	free(mesh);
	return rc;
}

static int load(struct rig_shot_model *m, sqlite3 *db, long long at)
{
	return rig_binding_generic_load(m, db, at, rig_binding_type_find);
}
const struct rig_binding_codec rig_binding_codec_generic = {
	.type = NULL,
	.load = load,
	.read = rig_binding_generic_read,
	.erase = rig_binding_generic_erase,
	.write = rig_binding_generic_write,
};
