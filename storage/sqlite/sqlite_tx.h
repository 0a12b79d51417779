/* Internals of the SQLite storage backend, shared by its files only: the
 * connection inside a struct rig_tx, the statement cache, and the mapping of
 * SQLite result codes to rig codes. Nothing outside storage/sqlite/ (and its
 * unit tests) includes this header or <sqlite3.h>.
 */
#ifndef RIG_SQLITE_TX_H
#define RIG_SQLITE_TX_H

#include <sqlite3.h>
#include <stdbool.h>

#include "storage/store.h"

/* One pooled connection and the store it belongs to (NULL for a bare
 * connection a test wraps: such a handle has no pool and no write turn). */
struct rig_tx {
	struct rig_store *store;
	sqlite3 *conn;
	long long turn_began_ns; /* when its write transaction began (monotonic clock) */
};

/* Maps a failed SQLite result code to a negative enum rig_code: busy or locked
 * is -RIG_STORAGE_UNAVAILABLE (retryable); a full disk (SQLITE_FULL, and the
 * write errors SQLite reports when a file cannot grow: SQLITE_IOERR_WRITE,
 * SQLITE_IOERR_SHMSIZE) is -RIG_STORAGE_FULL; anything else -RIG_INTERNAL. */
int rig_sqlite__fail(int sqlite_rc);

/* Hands out a statement for sql (0 or a negative rig code), reusing one the
 * connection already prepared; give it back with rig_sqlite__finish (never
 * sqlite3_finalize), which resets it and clears its bindings.
 * rig_sqlite__step_done steps one that returns no rows. */
int rig_sqlite__prepare(sqlite3_stmt **st, sqlite3 *db, const char *sql);
void rig_sqlite__finish(sqlite3_stmt *st);
int rig_sqlite__step_done(sqlite3_stmt *st);

/* Runs sql, a statement that returns no rows, with two text parameters (a
 * shot id and a layer id, say). 0 or a negative rig code. */
int rig_sqlite__run2(sqlite3 *db, const char *sql, const char *a, const char *b);

/* Runs sql, a statement that returns no rows, with one integer parameter (a
 * rowid, say). 0 or a negative rig code. */
int rig_sqlite__run_int(sqlite3 *db, const char *sql, sqlite3_int64 v);

/* Runs one statement that returns no rows (BEGIN, COMMIT, SAVEPOINT…) from the
 * connection's statement cache, so it is parsed once per connection. Returns
 * the SQLite result code (SQLITE_OK on success). */
int rig_sqlite__exec(sqlite3 *conn, const char *sql);

/* How many writers of the store hold or wait for its write turn (for tests:
 * a writer that waits is queued). */
unsigned long long rig_sqlite__turn_queued(struct rig_store *store);

/* Opens one configured connection (pragmas applied, no migrations): used by the
 * pool and by tests. Returns NULL with a message in err. */
sqlite3 *rig_sqlite__connect(const char *path, enum rig_store_durability durability,
			     int busy_timeout_ms, char *err, size_t err_size);

/* The tables keyed by one integer per shot version, shot_seq * 2^32 + version
 * (layer_archive, receipt_log: migrations 20 and 21), a rowid b-tree a shot
 * appends to. A version past what a key holds (2^32 a shot, shot_seq below
 * 2^31) keeps its rows where they were before (layer_history, receipts). */
#define RIG_SQLITE_KEY_VERSIONS (1LL << 32)

static inline bool rig_sqlite__keyed(long long seq, long long version)
{
	return seq >= 0 && seq < (1LL << 31) && version >= 0 && version < RIG_SQLITE_KEY_VERSIONS;
}

static inline long long rig_sqlite__key(long long seq, long long version)
{
	return seq * RIG_SQLITE_KEY_VERSIONS + version;
}

struct rig_layer_row;

/* Called with each entry of a layer_archive value (storage/layer_archive.h)
 * and the version it belongs to (the entry's valid_to); nonzero stops. */
typedef int (*rig_sqlite__archive_fn)(void *ctx, long long valid_to,
				      const struct rig_layer_row *row);

/* Stores the archive value (size bytes, storage/layer_archive.h) of shot
 * seq's version valid_to: one layer_archive row, or, for a version past what
 * a key holds (2^32 a shot), the rows of its entries in layer_history. */
int rig_sqlite__archive_insert(sqlite3 *db, long long seq, long long valid_to,
			       const unsigned char *bytes, size_t size);

/* Inserts row (an entry's) as the layer_history row of shot seq valid until
 * valid_to, as schema versions 12-19 archived it. */
int rig_sqlite__history_row_insert(sqlite3 *db, long long seq, long long valid_to,
				   const struct rig_layer_row *row);

/* Deletes shot seq's layer_archive values with valid_to <= through. */
int rig_sqlite__archive_delete(sqlite3 *db, long long seq, long long through);

/* Walks the archive entries of shot seq with valid_to in (above, through],
 * in version order. 0, fn's nonzero, or a negative rig code (-RIG_INTERNAL
 * for a malformed value). */
int rig_sqlite__archive_walk(sqlite3 *db, long long seq, long long above, long long through,
			     rig_sqlite__archive_fn fn, void *ctx);

#endif
