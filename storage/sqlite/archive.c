/* layer_archive values (migrations/sqlite/0020, storage/layer_archive.h):
 * where a version's value is stored, read and retired. */
#include <limits.h>
#include <stdbool.h>

#include "core/codes.h"
#include "storage/layer_archive.h"
#include "storage/sqlite/sqlite_tx.h"

int rig_sqlite__history_row_insert(sqlite3 *db, long long seq, long long valid_to,
				   const struct rig_layer_row *row)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"INSERT INTO layer_history(shot_seq, valid_to, layer_id, valid_from, ord, name,"
		" kind, parent_id, position_x, position_y, rotation, scale_x, scale_y, pivot_x,"
		" pivot_y, time_offset, keys, keys_rows) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		" ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, seq);
	sqlite3_bind_int64(st, 2, valid_to);
	sqlite3_bind_text(st, 3, row->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, row->valid_from);
	sqlite3_bind_int64(st, 5, row->ord);
	sqlite3_bind_text(st, 6, row->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, row->kind == RIG_LAYER_MESH ? "mesh" : "group", -1, SQLITE_STATIC);
	if (row->parent_id[0])
		sqlite3_bind_text(st, 8, row->parent_id, -1, SQLITE_STATIC);
	for (int c = 0; c < RIG_CH_COUNT; c++)
		sqlite3_bind_double(st, 9 + c, row->statics[c]);
	sqlite3_bind_double(st, 16, row->time_offset);
	sqlite3_bind_blob(st, 17, row->keys_size ? (const void *)row->keys : "",
			  (int)row->keys_size, SQLITE_STATIC);
	sqlite3_bind_int(st, 18, row->flags & RIG_ARCHIVE_KEYS_ROWS ? 1 : 0);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	return rc;
}

int rig_sqlite__archive_insert(sqlite3 *db, long long seq, long long valid_to,
			       const unsigned char *bytes, size_t size)
{
	if (!size)
		return 0;
	if (rig_sqlite__keyed(seq, valid_to)) {
		sqlite3_stmt *st = NULL;
		int rc = rig_sqlite__prepare(
			&st, db, "INSERT INTO layer_archive(key, entries) VALUES (?, ?)");
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, rig_sqlite__key(seq, valid_to));
		sqlite3_bind_blob(st, 2, bytes, (int)size, SQLITE_STATIC);
		rc = rig_sqlite__step_done(st);
		rig_sqlite__finish(st);
		return rc;
	}
	/* Past the keys: the rows one by one (a creation keeps no row; the
	 * head's since says it). */
	const unsigned char *p = bytes, *end = bytes + size;
	struct rig_layer_row row;
	int got = 0, rc = 0;
	while (!rc && (got = rig_archive_next(&p, end, &row)) > 0)
		if (row.flags & RIG_ARCHIVE_ROW)
			rc = rig_sqlite__history_row_insert(db, seq, valid_to, &row);
	return rc ? rc : got < 0 ? -RIG_INTERNAL : 0;
}

/* The keys of shot seq's versions in (above, through], as a key range (lo, hi];
 * false when no version of it has a key. */
static bool key_range(long long seq, long long above, long long through, long long *lo,
		      long long *hi)
{
	if (!rig_sqlite__keyed(seq, 0))
		return false;
	if (above < -1)
		above = -1;
	if (through > RIG_SQLITE_KEY_VERSIONS - 1)
		through = RIG_SQLITE_KEY_VERSIONS - 1;
	*lo = rig_sqlite__key(seq, above);
	*hi = rig_sqlite__key(seq, through);
	return through > above;
}

int rig_sqlite__archive_walk(sqlite3 *db, long long seq, long long above, long long through,
			     rig_sqlite__archive_fn fn, void *ctx)
{
	long long lo, hi;
	if (!key_range(seq, above, through, &lo, &hi))
		return 0;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT key, entries FROM layer_archive WHERE key > ?1"
				     " AND key <= ?2 ORDER BY key");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	int s = SQLITE_DONE;
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		long long valid_to = sqlite3_column_int64(st, 0) - rig_sqlite__key(seq, 0);
		const unsigned char *p = sqlite3_column_blob(st, 1);
		const unsigned char *end = p + sqlite3_column_bytes(st, 1);
		struct rig_layer_row row;
		int got = 0;
		while (!rc && (got = rig_archive_next(&p, end, &row)) > 0)
			rc = fn(ctx, valid_to, &row);
		if (!rc && got < 0)
			rc = -RIG_INTERNAL;
	}
	if (!rc && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_sqlite__archive_delete(sqlite3 *db, long long seq, long long through)
{
	long long lo, hi;
	if (!key_range(seq, -1, through, &lo, &hi))
		return 0;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "DELETE FROM layer_archive WHERE key > ?1 AND key <= ?2");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	return rc;
}
