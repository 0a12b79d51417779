/* Compaction of shot history (shot_repo.h: rig_history_compact;
 * docs/history.md "Retention and compaction"). One call compacts one shot in
 * the caller's transaction, so each commit leaves a consistent state: the
 * shot's oldest readable version moves up together with the deletion of
 * everything only older versions read.
 */
#include <stdbool.h>

#include "core/codes.h"
#include "storage/shot_repo.h"
#include "storage/sqlite/sqlite_tx.h"

/* Chunks no retained binding reads: those of a layer with no binding row
 * left (head or history), and those hidden, for every retained revision of
 * their layer, by a newer chunk of the same index. */
static const char chunks_sql[] =
	"WITH revs(layer_id, rev) AS ("
	"  SELECT layer_id, revision FROM skins WHERE shot_id = ?2"
	"  UNION ALL SELECT layer_id, revision FROM bindings WHERE shot_id = ?2"
	"  UNION ALL SELECT layer_id, valid_from FROM binding_history WHERE shot_seq = ?1),"
	" live(layer_id, minrev) AS (SELECT layer_id, min(rev) FROM revs GROUP BY layer_id)"
	" DELETE FROM binding_chunks WHERE rowid IN ("
	"  SELECT c.rowid FROM binding_chunks c LEFT JOIN live l ON l.layer_id = c.layer_id"
	"  WHERE c.shot_seq = ?1 AND (l.layer_id IS NULL OR EXISTS ("
	"   SELECT 1 FROM binding_chunks n WHERE n.shot_seq = ?1 AND n.layer_id = c.layer_id"
	"   AND n.part = c.part AND n.idx = c.idx AND n.revision > c.revision"
	"   AND n.revision <= l.minrev)))";

/* The same for layer_keys (migration 14): a layer row reads, per channel, the
 * key row with the greatest revision <= the row's since (valid_from). */
static const char keys_sql[] =
	"WITH revs(layer_id, rev) AS ("
	"  SELECT id, since FROM layers WHERE shot_id = ?2"
	"  UNION ALL SELECT layer_id, valid_from FROM layer_history WHERE shot_seq = ?1),"
	" live(layer_id, minrev) AS (SELECT layer_id, min(rev) FROM revs GROUP BY layer_id)"
	" DELETE FROM layer_keys WHERE rowid IN ("
	"  SELECT k.rowid FROM layer_keys k LEFT JOIN live l ON l.layer_id = k.layer_id"
	"  WHERE k.shot_seq = ?1 AND (l.layer_id IS NULL OR EXISTS ("
	"   SELECT 1 FROM layer_keys n WHERE n.shot_seq = ?1 AND n.layer_id = k.layer_id"
	"   AND n.channel = k.channel AND n.revision > k.revision"
	"   AND n.revision <= l.minrev)))";

static int run_seq(sqlite3 *db, const char *sql, long long seq, long long floor,
		   const char *shot_id, long long *removed)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, sql);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, seq);
	if (shot_id)
		sqlite3_bind_text(st, 2, shot_id, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 2, floor);
	rc = rig_sqlite__step_done(st);
	if (!rc)
		*removed += sqlite3_changes(db);
	rig_sqlite__finish(st);
	return rc;
}

int rig_history_compact(struct rig_tx *tx, long long keep, bool *done, long long *removed)
{
	sqlite3 *db = tx->conn;
	*done = false;
	if (keep < 1)
		keep = 1;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT seq, id, version, history_from FROM shots"
				     " WHERE version - history_from >= ? LIMIT 1");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, keep);
	int s = sqlite3_step(st);
	if (s != SQLITE_ROW) {
		rig_sqlite__finish(st);
		return s == SQLITE_DONE ? 0 : rig_sqlite__fail(s);
	}
	long long seq = sqlite3_column_int64(st, 0);
	char id[RIG_ID_MAX + 1];
	rig_strlcpy(id, (const char *)sqlite3_column_text(st, 1), sizeof id);
	long long floor = sqlite3_column_int64(st, 2) - keep + 1;
	long long step_floor = sqlite3_column_int64(st, 3) + RIG_HISTORY_COMPACT_STEP;
	if (floor > step_floor)
		floor = step_floor; /* the rest of the backlog in the next transactions */
	rig_sqlite__finish(st);

	/* First the promise, then what only versions below it read. */
	rc = run_seq(db, "UPDATE shots SET history_from = ?2 WHERE seq = ?1", seq, floor, NULL,
		     &(long long){0});
	if (!rc)
		rc = run_seq(db, "DELETE FROM layer_history WHERE shot_seq = ?1 AND valid_to <= ?2",
			     seq, floor, NULL, removed);
	if (!rc)
		rc = run_seq(db,
			     "DELETE FROM binding_history WHERE shot_seq = ?1 AND valid_to <= ?2",
			     seq, floor, NULL, removed);
	if (!rc)
		rc = run_seq(
			db, "DELETE FROM constraint_history WHERE shot_seq = ?1 AND valid_to <= ?2",
			seq, floor, NULL, removed);
	if (!rc)
		rc = run_seq(db, chunks_sql, seq, floor, id, removed);
	if (!rc)
		rc = run_seq(db, keys_sql, seq, floor, id, removed);
	*done = rc == 0;
	return rc;
}
