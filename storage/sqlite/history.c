/* Compaction of shot history (shot_repo.h: rig_history_compact;
 * docs/history.md "Retention and compaction"). One call compacts one shot in
 * the caller's transaction, so each commit leaves a consistent state: the
 * shot's oldest readable version moves up together with the deletion of
 * everything only older versions read.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/codes.h"
#include "storage/layer_archive.h"
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

/* The same rule for layer_keys (migration 14), one layer at a time: a layer
 * row reads, per channel, the key row with the greatest revision <= the row's
 * since (valid_from). So in each channel the rows below `below`, the greatest
 * revision <= minrev, are read by no retained version (all of them when the
 * layer has no row left, ?3 NULL); `below` NULL (no row <= minrev) keeps them
 * all. One seek per channel, then only the rows deleted are read. */
static const char layer_keys_sql[] =
	"DELETE FROM layer_keys WHERE shot_seq = ?1 AND layer_id = ?2 AND (?3 IS NULL"
	" OR revision < (SELECT max(k.revision) FROM layer_keys k WHERE k.shot_seq = ?1"
	" AND k.layer_id = ?2 AND k.channel = layer_keys.channel AND k.revision <= ?3))";

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

/* The layers whose stored rows a compaction step drops, each with the
 * greatest valid_to of them (b): the layer's next row, if it has one, begins
 * there, and no retained row of it begins earlier. So b is the layer's minrev
 * when the dropped row was rewritten at b (certain); when it was deleted
 * there, or is a layer_history row (which does not say), the layer's retained
 * rows are looked up (exact_minrev). A layer none of whose rows drop keeps the
 * minrev it had, and its keys were collected when it got it. */
struct dropped {
	char id[RIG_ID_MAX + 1];
	long long b, minrev;
	bool certain, live;
};

struct dropped_set {
	struct dropped *items;
	size_t n, cap;
	long long entries; /* archive entries dropped */
};

static int dropped_add(struct dropped_set *d, const char *id, long long b, bool certain)
{
	if (!rig_array_grow((void **)&d->items, &d->cap, d->n, sizeof *d->items))
		return -RIG_INTERNAL;
	struct dropped *x = &d->items[d->n++];
	rig_strlcpy(x->id, id, sizeof x->id);
	x->b = b;
	x->certain = certain;
	x->live = certain;
	x->minrev = certain ? b : LLONG_MAX;
	return 0;
}

static int by_id_then_b(const void *a, const void *b)
{
	const struct dropped *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->b > y->b) - (x->b < y->b);
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct dropped *)a)->id, ((const struct dropped *)b)->id);
}

/* One entry per layer: the row with the greatest b. */
static void dropped_settle(struct dropped_set *d)
{
	if (d->n)
		qsort(d->items, d->n, sizeof *d->items, by_id_then_b);
	size_t kept = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (kept && strcmp(d->items[kept - 1].id, d->items[i].id) == 0)
			kept--;
		d->items[kept++] = d->items[i];
	}
	d->n = kept;
}

static struct dropped *dropped_find(struct dropped_set *d, const char *id)
{
	struct dropped key;
	rig_strlcpy(key.id, id, sizeof key.id);
	return d->n ? bsearch(&key, d->items, d->n, sizeof *d->items, by_id) : NULL;
}

static int collect_archived(void *ctx, long long valid_to, const struct rig_layer_row *row)
{
	struct dropped_set *d = ctx;
	d->entries++;
	if (!(row->flags & RIG_ARCHIVE_ROW))
		return 0;
	return dropped_add(d, row->id, valid_to, !(row->flags & RIG_ARCHIVE_DELETED));
}

/* A retained row of a layer whose minrev is looked up begins at valid_from. */
static void retained_row(struct dropped_set *d, const char *id, long long valid_from)
{
	struct dropped *x = dropped_find(d, id);
	if (x && !x->certain) {
		x->live = true;
		if (valid_from < x->minrev)
			x->minrev = valid_from;
	}
}

static int retained_archived(void *ctx, long long valid_to, const struct rig_layer_row *row)
{
	(void)valid_to;
	if (row->flags & RIG_ARCHIVE_ROW)
		retained_row(ctx, row->id, row->valid_from);
	return 0;
}

/* Adds the layers whose layer_history rows the step to floor drops, each
 * with its greatest valid_to; such a row does not say whether its layer was
 * deleted, so none is certain. */
static int collect_legacy(sqlite3 *db, long long seq, long long floor, struct dropped_set *d)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT layer_id, max(valid_to) FROM layer_history"
				     " WHERE shot_seq = ?1 AND valid_to <= ?2 GROUP BY layer_id");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, seq);
	sqlite3_bind_int64(st, 2, floor);
	int s = SQLITE_DONE;
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW)
		rc = dropped_add(d, (const char *)sqlite3_column_text(st, 0),
				 sqlite3_column_int64(st, 1), false);
	if (!rc && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

/* The earliest row of layer x that is not in the archive: its head (since)
 * and its first retained layer_history row, through the valid_from index
 * (the rows of the shot valid at the floor come first, one per layer, then
 * its later ones in order). */
static int first_row_outside_archive(sqlite3 *db, long long seq, const char *shot_id,
				     long long floor, struct dropped_set *d, struct dropped *x)
{
	static const char *const sql[] = {
		"SELECT since FROM layers WHERE shot_id = ?3 AND id = ?2",
		"SELECT valid_from FROM layer_history INDEXED BY layer_history_by_from"
		" WHERE shot_seq = ?1 AND layer_id = ?2 AND valid_to > ?4"
		" ORDER BY valid_from LIMIT 1",
	};
	int rc = 0;
	for (size_t k = 0; k < sizeof sql / sizeof *sql && !rc; k++) {
		sqlite3_stmt *st = NULL;
		rc = rig_sqlite__prepare(&st, db, sql[k]);
		if (rc)
			return rc;
		/* each statement has the parameters it names (a bind past them is
		 * a no-op) */
		sqlite3_bind_int64(st, 1, seq);
		sqlite3_bind_text(st, 2, x->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, shot_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, floor);
		int s = sqlite3_step(st);
		if (s == SQLITE_ROW)
			retained_row(d, x->id, sqlite3_column_int64(st, 0));
		else if (s != SQLITE_DONE)
			rc = rig_sqlite__fail(s);
		rig_sqlite__finish(st);
	}
	return rc;
}

/* The minrev of every layer not certain of it: the least since of its head
 * and valid_from of its retained layer_history rows and archive entries. A
 * row outside the archive beginning at b proves it at once (b is a lower
 * bound); the rest read the shot's retained archive values once, in steps
 * that drop a deletion. */
static int exact_minrev(sqlite3 *db, long long seq, const char *shot_id, long long floor,
			struct dropped_set *d)
{
	bool scan = false;
	int rc = 0;
	for (size_t i = 0; i < d->n && !rc; i++) {
		struct dropped *x = &d->items[i];
		if (x->certain)
			continue;
		rc = first_row_outside_archive(db, seq, shot_id, floor, d, x);
		if (x->live && x->minrev == x->b)
			x->certain = true;
		else
			scan = true;
	}
	if (!rc && scan)
		rc = rig_sqlite__archive_walk(db, seq, floor, LLONG_MAX, retained_archived, d);
	return rc;
}

/* Deletes the key rows of the dropped layers that no retained version reads. */
static int collect_keys(sqlite3 *db, long long seq, const struct dropped_set *d, long long *removed)
{
	sqlite3_stmt *st = NULL;
	int rc = d->n ? rig_sqlite__prepare(&st, db, layer_keys_sql) : 0;
	for (size_t i = 0; i < d->n && !rc; i++) {
		const struct dropped *x = &d->items[i];
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, seq);
		sqlite3_bind_text(st, 2, x->id, -1, SQLITE_STATIC);
		if (x->live)
			sqlite3_bind_int64(st, 3, x->minrev);
		else
			sqlite3_bind_null(st, 3);
		rc = rig_sqlite__step_done(st);
		if (!rc)
			*removed += sqlite3_changes(db);
	}
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
	struct dropped_set d = {0};
	rc = run_seq(db, "UPDATE shots SET history_from = ?2 WHERE seq = ?1", seq, floor, NULL,
		     &(long long){0});
	if (!rc)
		rc = collect_legacy(db, seq, floor, &d);
	if (!rc)
		rc = rig_sqlite__archive_walk(db, seq, LLONG_MIN, floor, collect_archived, &d);
	if (!rc)
		rc = run_seq(db, "DELETE FROM layer_history WHERE shot_seq = ?1 AND valid_to <= ?2",
			     seq, floor, NULL, removed);
	if (!rc)
		rc = rig_sqlite__archive_delete(db, seq, floor);
	long long bindings_dropped = 0;
	if (!rc) {
		*removed += d.entries;
		rc = run_seq(db,
			     "DELETE FROM binding_history WHERE shot_seq = ?1 AND valid_to <= ?2",
			     seq, floor, NULL, &bindings_dropped);
		*removed += bindings_dropped;
	}
	if (!rc)
		rc = run_seq(
			db, "DELETE FROM constraint_history WHERE shot_seq = ?1 AND valid_to <= ?2",
			seq, floor, NULL, removed);
	/* Chunks become unread only when a binding row goes (its layer's minrev
	 * moves up, or the layer has no binding row left): a step that drops
	 * none leaves them as the last one did, so it does not read them. */
	if (!rc && bindings_dropped)
		rc = run_seq(db, chunks_sql, seq, floor, id, removed);
	if (!rc) {
		dropped_settle(&d);
		rc = exact_minrev(db, seq, id, floor, &d);
	}
	if (!rc)
		rc = collect_keys(db, seq, &d, removed);
	free(d.items);
	*done = rc == 0;
	return rc;
}

/* Every (version, layer) a batch wrote, and the constraint sets: a head row
 * carries the version that wrote it (since, revision, constraints_since), a
 * history row the version that wrote it and the one that replaced or deleted
 * it. One statement, each branch bounded by the version range; its rows, with
 * the archive's, are sorted and made unique in C (rig_history_changes). */
static const char changes_sql[] =
	"SELECT since AS v, id AS layer_id FROM layers WHERE shot_id = ?1 AND since > ?3"
	" AND since <= ?4"
	" UNION ALL SELECT valid_from, layer_id FROM layer_history WHERE shot_seq = ?2"
	" AND valid_from > ?3 AND valid_from <= ?4"
	" UNION ALL SELECT valid_to, layer_id FROM layer_history WHERE shot_seq = ?2"
	" AND valid_to > ?3 AND valid_to <= ?4"
	" UNION ALL SELECT revision, layer_id FROM skins WHERE shot_id = ?1 AND revision > ?3"
	" AND revision <= ?4"
	" UNION ALL SELECT revision, layer_id FROM bindings WHERE shot_id = ?1 AND revision > ?3"
	" AND revision <= ?4"
	" UNION ALL SELECT valid_from, layer_id FROM binding_history WHERE shot_seq = ?2"
	" AND valid_from > ?3 AND valid_from <= ?4"
	" UNION ALL SELECT valid_to, layer_id FROM binding_history WHERE shot_seq = ?2"
	" AND valid_to > ?3 AND valid_to <= ?4"
	" UNION ALL SELECT constraints_since, NULL FROM shots WHERE seq = ?2"
	" AND constraints_since > ?3 AND constraints_since <= ?4"
	" UNION ALL SELECT valid_from, NULL FROM constraint_history WHERE shot_seq = ?2"
	" AND valid_from > ?3 AND valid_from <= ?4"
	" UNION ALL SELECT valid_to, NULL FROM constraint_history WHERE shot_seq = ?2"
	" AND valid_to > ?3 AND valid_to <= ?4";

struct change {
	long long v;
	char id[RIG_ID_MAX + 1]; /* "" with no_layer */
	bool no_layer;           /* the constraint set */
};

struct change_set {
	struct change *items;
	size_t n, cap;
};

static int change_add(struct change_set *c, long long v, const char *layer_id)
{
	if (!rig_array_grow((void **)&c->items, &c->cap, c->n, sizeof *c->items))
		return -RIG_INTERNAL;
	struct change *x = &c->items[c->n++];
	x->v = v;
	x->no_layer = layer_id == NULL;
	rig_strlcpy(x->id, layer_id ? layer_id : "", sizeof x->id);
	return 0;
}

/* By version, then the constraint set, then layer id. */
static int change_order(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	if (x->v != y->v)
		return (x->v > y->v) - (x->v < y->v);
	if (x->no_layer != y->no_layer)
		return x->no_layer ? -1 : 1;
	return strcmp(x->id, y->id);
}

static int change_archived(void *ctx, long long valid_to, const struct rig_layer_row *row)
{
	return change_add(ctx, valid_to, row->id);
}

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
	struct change_set c = {0};
	int s = SQLITE_DONE;
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW)
		rc = change_add(&c, sqlite3_column_int64(st, 0),
				(const char *)sqlite3_column_text(st, 1));
	if (!rc && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	if (!rc)
		rc = rig_sqlite__archive_walk(tx->conn, seq, after, through, change_archived, &c);
	if (!rc && c.n)
		qsort(c.items, c.n, sizeof *c.items, change_order);
	for (size_t i = 0; i < c.n && !rc; i++)
		if (i == 0 || change_order(&c.items[i - 1], &c.items[i]) != 0)
			rc = fn(ctx, c.items[i].v, c.items[i].no_layer ? NULL : c.items[i].id);
	free(c.items);
	return rc;
}
