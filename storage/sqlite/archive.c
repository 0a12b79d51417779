/* Reading layer_archive values (migrations/sqlite/0020, storage/layer_archive.h). */
#include <limits.h>

#include "core/codes.h"
#include "storage/layer_archive.h"
#include "storage/sqlite/sqlite_tx.h"

int rig_sqlite__archive_walk(sqlite3 *db, long long seq, long long above, long long through,
			     rig_sqlite__archive_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"SELECT valid_to, entries FROM layer_archive WHERE shot_seq = ?1"
		" AND valid_to > ?2 AND valid_to <= ?3 ORDER BY valid_to, part");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, seq);
	sqlite3_bind_int64(st, 2, above);
	sqlite3_bind_int64(st, 3, through);
	int s = SQLITE_DONE;
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		long long valid_to = sqlite3_column_int64(st, 0);
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
