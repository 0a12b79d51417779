/* The generic codec (binding_codec.h): a binding of a kind without a table of
 * its own is one row of the bindings table (migration 10), its counts and
 * revision in columns and its definition as the two byte strings of the
 * kind's encode — the head read with the shot, the per-vertex mesh only when a
 * request needs it.
 */
#include <stdlib.h>

#include "core/codes.h"
#include "storage/sqlite/binding_codec.h"
#include "storage/sqlite/sqlite_tx.h"

int rig_binding_generic_load(struct rig_shot_model *m, sqlite3 *db,
			     const struct rig_binding_type *(*find)(const char *name))
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT layer_id, kind, revision, n_verts, n_tris, head"
				     " FROM bindings WHERE shot_id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
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

int rig_binding_generic_read(void **out, sqlite3 *db, const struct rig_shot_model *m,
			     const struct rig_model_layer *l)
{
	*out = NULL;
	const struct rig_binding_type *type = l->binding.type;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db, "SELECT head, mesh FROM bindings WHERE shot_id = ? AND layer_id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		/* A zero-length mesh still reads as one: decode tells it from NULL. */
		const unsigned char *mesh = sqlite3_column_blob(st, 1);
		*out = type->decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0),
				    mesh ? mesh : (const unsigned char *)"",
				    (size_t)sqlite3_column_bytes(st, 1));
		rc = *out ? 0 : -RIG_INTERNAL;
	} else {
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	}
	rig_sqlite__finish(st);
	return rc;
}

int rig_binding_generic_erase(sqlite3 *db, const char *shot_id, const char *layer_id)
{
	return rig_sqlite__run2(db, "DELETE FROM bindings WHERE shot_id = ? AND layer_id = ?",
				shot_id, layer_id);
}

int rig_binding_generic_write(sqlite3 *db, const char *shot_id, const struct rig_model_layer *l,
			      long long revision)
{
	const struct rig_binding_type *type = l->binding.type;
	unsigned char *head = NULL, *mesh = NULL;
	size_t n_head = 0, n_mesh = 0;
	int rc = type->encode(l->binding.def, &head, &n_head, &mesh, &n_mesh);
	sqlite3_stmt *st = NULL;
	if (!rc)
		rc = rig_sqlite__prepare(
			&st, db,
			"INSERT INTO bindings (shot_id, layer_id, kind, revision, n_verts,"
			" n_tris, head, mesh) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
	if (!rc) {
		/* A non-NULL pointer: a zero-length string stays a BLOB, not NULL. */
		sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, l->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, type->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, revision);
		sqlite3_bind_int64(st, 5, (sqlite3_int64)type->def_n_verts(l->binding.def));
		sqlite3_bind_int64(st, 6, (sqlite3_int64)type->def_n_tris(l->binding.def));
		sqlite3_bind_blob64(st, 7, head ? (const void *)head : "", n_head, SQLITE_STATIC);
		sqlite3_bind_blob64(st, 8, mesh ? (const void *)mesh : "", n_mesh, SQLITE_STATIC);
		rc = rig_sqlite__step_done(st);
		rig_sqlite__finish(st);
	}
	free(head);
	free(mesh);
	return rc;
}

static int load(struct rig_shot_model *m, sqlite3 *db)
{
	return rig_binding_generic_load(m, db, rig_binding_type_find);
}

const struct rig_binding_codec rig_binding_codec_generic = {
	.type = NULL,
	.load = load,
	.read = rig_binding_generic_read,
	.erase = rig_binding_generic_erase,
	.write = rig_binding_generic_write,
};
