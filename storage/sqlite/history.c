/* Compaction of shot history (shot_repo.h: rig_history_compact;
 * docs/history.md "Retention and compaction"). One call compacts one shot in
 * the caller's transaction, so each commit leaves a consistent state: the
 * shot's oldest readable version moves up together with the deletion of
 * everything only older versions read.
 */
#include <stdbool.h>

#include "core/codes.h"
#include "storage/resources.h"
#include "storage/shot_repo.h"
#include "storage/sqlite/sqlite_tx.h"

/* What a compaction step reads to know what no retained version needs, in
 * time proportional to the shot's layers (and, for chunks, to its binding
 * chunks), not to the length of its history (the indexes of migration 15):
 *
 * - LAYERS_SQL(table), lay: every distinct layer_id of table of the shot, by
 *   a skip scan of its (shot_seq, layer_id, ...) index: one seek per layer,
 *   however many rows each has.
 * - A layer's minrev: the oldest version any of its retained rows (head or
 *   history) was written at; NULL when it has no row left at all, and then
 *   nothing it stored is read any more. MATERIALIZED: computed once per
 *   layer, not once per row joined to it.
 * (The statements are kept from clang-format, which would split their lines
 * mid-word after the macro.) */
#define LAYERS_SQL(table)                                                                          \
	"lay(layer_id) AS ("                                                                       \
	"  SELECT (SELECT min(layer_id) FROM " table " WHERE shot_seq = ?1)"                       \
	"  UNION ALL SELECT (SELECT min(t.layer_id) FROM " table " t"                              \
	"   WHERE t.shot_seq = ?1 AND t.layer_id > l.layer_id)"                                    \
	"  FROM lay l WHERE l.layer_id IS NOT NULL)"

/* Chunks no retained binding reads: those of a layer with no binding row left
 * (head or history), and those hidden, for every retained revision of their
 * layer, by a newer chunk of the same index (one at or below minrev: since
 * every reader has revision >= minrev, it reads that one or a newer one).
 * minrev: one seek per table (binding_history by layer). Cost: one pass over
 * the shot's chunk rows below their layer's minrev, one index probe each. */
/* clang-format off */
static const char chunks_sql[] =
	"WITH RECURSIVE " LAYERS_SQL("binding_chunks") ","
	" live(layer_id, minrev) AS MATERIALIZED ("
	"  SELECT layer_id, (SELECT min(r) FROM ("
	"   SELECT revision AS r FROM skins WHERE shot_id = ?2 AND layer_id = lay.layer_id"
	"   UNION ALL SELECT revision FROM bindings WHERE shot_id = ?2 AND layer_id = lay.layer_id"
	"   UNION ALL SELECT min(valid_from) FROM binding_history"
	"    WHERE shot_seq = ?1 AND layer_id = lay.layer_id))"
	"  FROM lay WHERE layer_id IS NOT NULL)"
	" DELETE FROM binding_chunks WHERE rowid IN ("
	"  SELECT c.rowid FROM live l JOIN binding_chunks c"
	"   ON c.shot_seq = ?1 AND c.layer_id = l.layer_id"
	"  WHERE l.minrev IS NULL OR (c.revision < l.minrev AND EXISTS ("
	"   SELECT 1 FROM binding_chunks n WHERE n.shot_seq = ?1 AND n.layer_id = c.layer_id"
	"   AND n.part = c.part AND n.idx = c.idx AND n.revision > c.revision"
	"   AND n.revision <= l.minrev)))";
/* clang-format on */

/* The same rule for layer_keys (migration 14): a layer row reads, per channel,
 * the key row with the greatest revision <= the row's since (valid_from). So
 * in each (layer, channel) the rows below `below`, the greatest revision <=
 * minrev, are read by no retained version (all of them when the layer has no
 * row left); `below` NULL (no row <= minrev) keeps them all.
 *
 * minrev, ?3 the floor (rows with valid_to <= it are gone already): the
 * retained layer_history rows with valid_from <= the floor are the ones valid
 * at the floor, at most one per layer (straddle: a short range of
 * layer_history_by_from); a layer with one has that as its minrev, its head
 * and later rows being newer. Otherwise minrev is the least of its head's
 * since and its first row in (floor, since): a layer that did not exist at
 * the floor, created since, whose scan goes as far as its first row (and to
 * the end, once, for a deleted layer whose last row just went).
 *
 * The (layer, channel) pairs come by a skip scan (a layer's channels one seek
 * each), each `below` by one seek, then only the rows deleted are read. Cost:
 * the shot's keyed (layer, channel) pairs, however many versions of them
 * history keeps. */
/* clang-format off */
static const char keys_sql[] =
	"WITH RECURSIVE " LAYERS_SQL("layer_keys") ","
	" grp(layer_id, channel) AS ("
	"  SELECT layer_id, (SELECT min(channel) FROM layer_keys"
	"   WHERE shot_seq = ?1 AND layer_id = lay.layer_id)"
	"  FROM lay WHERE layer_id IS NOT NULL"
	"  UNION ALL SELECT g.layer_id, (SELECT min(k.channel) FROM layer_keys k"
	"   WHERE k.shot_seq = ?1 AND k.layer_id = g.layer_id AND k.channel > g.channel)"
	"  FROM grp g WHERE g.channel IS NOT NULL),"
	" straddle(layer_id, minrev) AS MATERIALIZED ("
	"  SELECT layer_id, min(valid_from) FROM layer_history"
	"  WHERE shot_seq = ?1 AND valid_from <= ?3 GROUP BY layer_id),"
	" head(layer_id, since) AS MATERIALIZED ("
	"  SELECT layer_id, (SELECT since FROM layers WHERE shot_id = ?2 AND id = lay.layer_id)"
	"  FROM lay WHERE layer_id IS NOT NULL),"
	" live(layer_id, minrev) AS MATERIALIZED ("
	"  SELECT h.layer_id, CASE WHEN s.minrev IS NOT NULL"
	"   THEN min(s.minrev, coalesce(h.since, s.minrev))"
	"   ELSE coalesce((SELECT valid_from FROM layer_history"
	"    WHERE shot_seq = ?1 AND valid_from > ?3"
	"    AND valid_from < coalesce(h.since, 9223372036854775807) AND layer_id = h.layer_id"
	"    ORDER BY valid_from LIMIT 1), h.since) END"
	"  FROM head h LEFT JOIN straddle s ON s.layer_id = h.layer_id),"
	" cut(layer_id, channel, below) AS MATERIALIZED ("
	"  SELECT g.layer_id, g.channel, CASE WHEN l.minrev IS NULL THEN 9223372036854775807"
	"   ELSE (SELECT max(k.revision) FROM layer_keys k WHERE k.shot_seq = ?1"
	"    AND k.layer_id = g.layer_id AND k.channel = g.channel AND k.revision <= l.minrev) END"
	"  FROM grp g JOIN live l ON l.layer_id = g.layer_id WHERE g.channel IS NOT NULL)"
	" DELETE FROM layer_keys WHERE rowid IN ("
	"  SELECT k.rowid FROM cut c JOIN layer_keys k ON k.shot_seq = ?1"
	"   AND k.layer_id = c.layer_id AND k.channel = c.channel AND k.revision < c.below)";
/* clang-format on */

/* Runs sql, a statement that returns no rows, on shot seq: ?2 the floor; or,
 * given the shot's id, ?2 the id and ?3 (when sql has it) the floor. */
static int run_seq(sqlite3 *db, const char *sql, long long seq, long long floor,
		   const char *shot_id, long long *removed)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, sql);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, seq);
	if (shot_id) {
		sqlite3_bind_text(st, 2, shot_id, -1, SQLITE_STATIC);
		if (sqlite3_bind_parameter_count(st) >= 3)
			sqlite3_bind_int64(st, 3, floor);
	} else {
		sqlite3_bind_int64(st, 2, floor);
	}
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

/* Every (version, layer) a batch wrote, and the constraint sets: a head row
 * carries the version that wrote it (since, revision, constraints_since), a
 * history row the version that wrote it and the one that replaced or deleted
 * it. One statement, each branch bounded by the version range. */
static const char changes_sql[] =
	"SELECT v, layer_id FROM ("
	" SELECT since AS v, id AS layer_id FROM layers WHERE shot_id = ?1 AND since > ?3"
	" AND since <= ?4"
	" UNION SELECT valid_from, layer_id FROM layer_history WHERE shot_seq = ?2"
	" AND valid_from > ?3 AND valid_from <= ?4"
	" UNION SELECT valid_to, layer_id FROM layer_history WHERE shot_seq = ?2"
	" AND valid_to > ?3 AND valid_to <= ?4"
	" UNION SELECT revision, layer_id FROM skins WHERE shot_id = ?1 AND revision > ?3"
	" AND revision <= ?4"
	" UNION SELECT revision, layer_id FROM bindings WHERE shot_id = ?1 AND revision > ?3"
	" AND revision <= ?4"
	" UNION SELECT valid_from, layer_id FROM binding_history WHERE shot_seq = ?2"
	" AND valid_from > ?3 AND valid_from <= ?4"
	" UNION SELECT valid_to, layer_id FROM binding_history WHERE shot_seq = ?2"
	" AND valid_to > ?3 AND valid_to <= ?4"
	" UNION SELECT constraints_since, NULL FROM shots WHERE seq = ?2"
	" AND constraints_since > ?3 AND constraints_since <= ?4"
	" UNION SELECT valid_from, NULL FROM constraint_history WHERE shot_seq = ?2"
	" AND valid_from > ?3 AND valid_from <= ?4"
	" UNION SELECT valid_to, NULL FROM constraint_history WHERE shot_seq = ?2"
	" AND valid_to > ?3 AND valid_to <= ?4"
	") ORDER BY v, layer_id";

int rig_history_changes(struct rig_tx *tx, const char *shot_id, long long after, long long through,
			rig_history_change_fn fn, void *ctx)
{
	long long seq = 0;
	int rc = rig_shot_stamp(tx, shot_id, &seq, &(long long){0});
	if (rc)
		return rc;
	sqlite3_stmt *st = NULL;
	rc = rig_sqlite__prepare(&st, tx->conn, changes_sql);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, seq);
	sqlite3_bind_int64(st, 3, after);
	sqlite3_bind_int64(st, 4, through);
	int s = SQLITE_DONE;
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW)
		rc = fn(ctx, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1));
	if (!rc && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}
