/* The SQLite backend's test helper for the repository unit tests of
 * tests/unit/storage/ (included as "bare_tx.h": the backend being built picks
 * its folder, tests/unit/storage/<backend>/CMakeLists.txt's rig_test_store):
 * transaction handles around bare in-memory SQLite connections (no pool, no
 * write turn), and everything those tests may do to the store other than
 * through the repository headers.
 *
 * bare_tx_open, bare_tx_latest, bare_tx_with_shot and bare_tx_close are the
 * handles every backend's helper provides. The rest — a database as an older
 * binary left it (bare_tx_open_below, bare_tx_migrate) and statements of
 * SQLite's schema (bare_tx_exec, bare_tx_run, bare_tx_int, bare_tx_text,
 * bare_tx_rows, bare_tx_archive, bare_tx_archive_to_history) —
 * pokes the store: a test calling one of them checks this backend's tables or
 * its migrations, and another backend's helper ports it or the test skips.
 * Nothing under tests/unit/ outside the backends' folders of
 * tests/unit/storage/ names SQLite (scripts/check-api-no-sql.sh).
 */
#ifndef RIG_TEST_BARE_TX_H
#define RIG_TEST_BARE_TX_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "storage/layer_archive.h"
#include "storage/resources.h"
#include "storage/sqlite/migrate.h"
#include "storage/sqlite/sqlite_tx.h"

/* Opens an in-memory database (enforcing foreign keys when asked) migrated
 * through the first n_migrations of rig_migrations. Free with bare_tx_close(). */
static inline struct rig_tx *bare_tx_open(size_t n_migrations, bool foreign_keys)
{
	struct rig_tx *tx = calloc(1, sizeof *tx);
	char err[256] = "";
	cr_assert_not_null(tx);
	cr_assert_eq(sqlite3_open(":memory:", &tx->conn), SQLITE_OK);
	if (foreign_keys)
		sqlite3_exec(tx->conn, "PRAGMA foreign_keys=ON", NULL, NULL, NULL);
	cr_assert_geq(rig_migrate(tx->conn, rig_migrations, n_migrations, err, sizeof err), 0, "%s",
		      err);
	return tx;
}

/* A database at the newest schema, as bare_tx_open. */
static inline struct rig_tx *bare_tx_latest(bool foreign_keys)
{
	return bare_tx_open(rig_n_migrations, foreign_keys);
}

/* A database as the binary before schema version `version` left it: every
 * migration older than version applied. */
static inline struct rig_tx *bare_tx_open_below(int version, bool foreign_keys)
{
	size_t n = 0;
	while (n < rig_n_migrations && rig_migrations[n].version < version)
		n++;
	return bare_tx_open(n, foreign_keys);
}

/* Applies the migrations tx's database lacks (at least one) and asserts it
 * reached the newest schema. */
static inline void bare_tx_migrate(struct rig_tx *tx)
{
	char err[256] = "";
	cr_assert_geq(rig_migrate(tx->conn, rig_migrations, rig_n_migrations, err, sizeof err), 1,
		      "%s", err);
}

static inline void bare_tx_close(struct rig_tx *tx)
{
	/* The repositories keep statements prepared on the connection
	 * (rig_sqlite__prepare); close refuses a connection that still has any. */
	for (sqlite3_stmt *st; (st = sqlite3_next_stmt(tx->conn, NULL));)
		sqlite3_finalize(st);
	sqlite3_close(tx->conn);
	free(tx);
}

/* Adds project "p" and its shot "s" (24 fps, frames 0 to 10) to tx's
 * database; returns tx. */
static inline struct rig_tx *bare_tx_add_shot(struct rig_tx *tx)
{
	cr_assert_eq(rig_project_insert(tx, "p", "P"), 0);
	struct rig_shot_row row = {.id = "s",
				   .project_id = "p",
				   .name = "S",
				   .fps = 24,
				   .frame_start = 0,
				   .frame_end = 10};
	cr_assert_eq(rig_shot_insert(tx, &row), 0);
	return tx;
}

/* A fully migrated database (foreign keys on) holding project "p" and its shot
 * "s", the repositories' usual starting point. */
static inline struct rig_tx *bare_tx_with_shot(void)
{
	return bare_tx_add_shot(bare_tx_latest(true));
}

/* ---- statements of SQLite's schema: these poke the store ---- */

/* Runs sql (one or more statements, no parameters), asserting it succeeds. */
static inline void bare_tx_exec(struct rig_tx *tx, const char *sql)
{
	cr_assert_eq(sqlite3_exec(tx->conn, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(tx->conn));
}

/* Runs one statement to its end with its parameters bound in order: the
 * n_ints integers first (?1, ?2, …), then the n_blobs byte strings
 * (blobs[i] of sizes[i] bytes). Asserts it succeeds. */
static inline void bare_tx_run(struct rig_tx *tx, const char *sql, const long long *ints,
			       size_t n_ints, const void *const *blobs, const size_t *sizes,
			       size_t n_blobs)
{
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(tx->conn, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(tx->conn));
	for (size_t i = 0; i < n_ints; i++)
		sqlite3_bind_int64(st, (int)(1 + i), (sqlite3_int64)ints[i]);
	for (size_t i = 0; i < n_blobs; i++)
		sqlite3_bind_blob64(st, (int)(1 + n_ints + i), blobs[i], sizes[i], SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_DONE, "%s: %s", sql, sqlite3_errmsg(tx->conn));
	sqlite3_finalize(st);
}

/* The integer in the first column of the first row sql answers (asserted to
 * answer one). */
static inline long long bare_tx_int(struct rig_tx *tx, const char *sql)
{
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(tx->conn, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(tx->conn));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s answered no row", sql);
	long long n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Reads every row sql answers, each n_cols integers, into out (row after row,
 * room for max_rows rows); returns how many rows (asserted to fit). */
static inline size_t bare_tx_rows(struct rig_tx *tx, const char *sql, size_t n_cols, long long *out,
				  size_t max_rows)
{
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(tx->conn, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(tx->conn));
	size_t n = 0;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		cr_assert_lt(n, max_rows, "%s answered more than %zu rows", sql, max_rows);
		for (size_t c = 0; c < n_cols; c++)
			out[n * n_cols + c] = sqlite3_column_int64(st, (int)c);
		n++;
	}
	cr_assert_eq(s, SQLITE_DONE, "%s: %s", sql, sqlite3_errmsg(tx->conn));
	sqlite3_finalize(st);
	return n;
}

/* Copies to out (size bytes) the text in column `column` of the first row sql
 * answers (asserted to answer one); returns out. */
static inline char *bare_tx_text(struct rig_tx *tx, const char *sql, int column, char *out,
				 size_t size)
{
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(tx->conn, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(tx->conn));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s answered no row", sql);
	const unsigned char *text = sqlite3_column_text(st, column);
	cr_assert_not_null(text, "%s: column %d is NULL", sql, column);
	snprintf(out, size, "%s", (const char *)text);
	sqlite3_finalize(st);
	return out;
}

struct bare_tx_archive_out {
	long long *rows;
	size_t n, max;
};

static inline int bare_tx_archive_row(void *ctx, long long valid_to,
				      const struct rig_layer_row *row)
{
	struct bare_tx_archive_out *o = ctx;
	cr_assert_lt(o->n, o->max, "more than %zu archive entries", o->max);
	long long *out = o->rows + 4 * o->n++;
	out[0] = (unsigned char)row->id[0];
	out[1] = row->flags & RIG_ARCHIVE_ROW ? row->valid_from : -1;
	out[2] = valid_to;
	out[3] = row->flags;
	return 0;
}

/* Reads the layer_archive entries (storage/layer_archive.h) of shot seq with
 * valid_to > above into out, four integers each: the first byte of the layer
 * id (as SQL's unicode() of a one-letter id), valid_from (-1: a creation, no
 * row), valid_to and the flags. Returns how many (asserted to fit max). */
static inline size_t bare_tx_archive(struct rig_tx *tx, long long seq, long long above,
				     long long *out, size_t max)
{
	struct bare_tx_archive_out o = {out, 0, max};
	cr_assert_eq(rig_sqlite__archive_walk(tx->conn, seq, above, 9223372036854775807LL,
					      bare_tx_archive_row, &o),
		     0);
	return o.n;
}

struct bare_tx_history {
	sqlite3 *db;
	long long seq;
};

static inline int bare_tx_history_row(void *ctx, long long valid_to,
				      const struct rig_layer_row *row)
{
	const struct bare_tx_history *h = ctx;
	return row->flags & RIG_ARCHIVE_ROW
		       ? rig_sqlite__history_row_insert(h->db, h->seq, valid_to, row)
		       : 0;
}

/* Rewrites the layer_archive values of shot seq as the layer_history rows
 * schema versions 12-19 wrote (every entry with a row becomes its row; the
 * ids of created layers, which those versions did not keep, go): a history
 * as an older binary left it, with newer versions archived on top. */
static inline void bare_tx_archive_to_history(struct rig_tx *tx, long long seq)
{
	struct bare_tx_history h = {tx->conn, seq};
	cr_assert_eq(rig_sqlite__archive_walk(tx->conn, seq, -1, 9223372036854775807LL,
					      bare_tx_history_row, &h),
		     0);
	long long seq_param = seq;
	bare_tx_run(tx, "DELETE FROM layer_archive WHERE key >> 32 = ?1", &seq_param, 1, NULL, NULL,
		    0);
}

#endif
