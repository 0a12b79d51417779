/* SQLite connections: opening, pragmas, migrations at start-up, and a pool.
 *
 * Every HTTP worker borrows one connection per request from the pool. WAL mode
 * lets readers work on their own snapshot while one writer commits; writers
 * serialise on BEGIN IMMEDIATE with a busy timeout.
 */
#ifndef RIG_DB_H
#define RIG_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

enum rig_durability {
	RIG_DURABILITY_FULL,    /* synchronous=FULL: acknowledged writes survive power loss */
	RIG_DURABILITY_PROCESS, /* synchronous=NORMAL: they survive a process crash only */
};

struct rig_db_options {
	const char *path;              /* database file; created when missing */
	enum rig_durability durability;
	int busy_timeout_ms;           /* 0 means 10000 */
	size_t pool_size;              /* connections; 0 means 8 */
};

struct rig_db;

/* Opens (creating when missing) the database, applies pending migrations and
 * fills the pool. Returns a new handle, or NULL with a message in err (a schema
 * newer than this binary, an unreadable file, …). Free with rig_db_close(). */
struct rig_db *rig_db_open(const struct rig_db_options *opt, char *err, size_t err_size);

/* Closes every connection (checkpointing the WAL) and frees the handle; NULL is a no-op.
 * No connection may be borrowed. */
void rig_db_close(struct rig_db *db);

/* Borrows a connection, waiting while all are in use. Return it with rig_db_release(). */
sqlite3 *rig_db_acquire(struct rig_db *db);

/* Returns a borrowed connection to the pool; rolls back a transaction left open
 * and gives up the write turn if conn holds it. */
void rig_db_release(struct rig_db *db, sqlite3 *conn);

/* Takes the process's write turn for conn, then BEGIN IMMEDIATE. Writers of one
 * process queue on a mutex (woken the moment the turn frees) instead of polling
 * SQLite's busy handler, whose sleeps would idle the disk between commits; the
 * busy timeout still arbitrates between processes. The turn is held until
 * rig_db_release(conn). Returns 0 or a negative rig code (turn not held then). */
int rig_db_begin_write(struct rig_db *db, sqlite3 *conn);

/* Runs one statement that returns no rows (BEGIN, COMMIT, SAVEPOINT…) from the
 * connection's statement cache, so it is parsed once per connection. Returns
 * the SQLite result code (SQLITE_OK on success). */
int rig_db_exec(sqlite3 *conn, const char *sql);

/* Gives up the write turn if conn holds it (rig_db_release does this too). */
void rig_db_end_write(struct rig_db *db, sqlite3 *conn);

/* True when the database answers and its schema is the newest this binary knows. */
bool rig_db_ready(struct rig_db *db);

/* Readiness below this many free bytes on the database's filesystem. */
#define RIG_DB_MIN_FREE_BYTES (8ull << 20)

/* What rig_db_probe found. */
struct rig_db_health {
	bool readable;                 /* the schema version read back and is current */
	bool space_known;              /* statvfs answered */
	unsigned long long free_bytes; /* free to unprivileged writers, when space_known */
	char error[160];               /* why not ready; "" when ready */
};

/* Probes the database cheaply for readiness on a connection of its own (never
 * waiting for the pool, so it can run on an I/O thread): reads the schema
 * version and asks statvfs for the free space of the database's filesystem.
 * Fills out; returns true when ready (readable, and at least
 * RIG_DB_MIN_FREE_BYTES free when the free space is known). */
bool rig_db_probe(struct rig_db *db, struct rig_db_health *out);

/* The server's secret for signing page tokens: 32 bytes stored in the database
 * (created by the first start), so every server on one database shares it. */
const unsigned char *rig_db_secret(const struct rig_db *db);

/* Maps a failed SQLite result code to a negative enum rig_code: busy or locked
 * is -RIG_STORAGE_UNAVAILABLE (retryable); a full disk (SQLITE_FULL, and the
 * write errors SQLite reports when a file cannot grow: SQLITE_IOERR_WRITE,
 * SQLITE_IOERR_SHMSIZE) is -RIG_STORAGE_FULL; anything else -RIG_INTERNAL. */
int rig_db_fail(int sqlite_rc);

/* Internals shared by the repositories. rig_db__prepare hands out a statement
 * for sql (0 or a negative rig code), reusing one the connection already
 * prepared; give it back with rig_db__finish (never sqlite3_finalize), which
 * resets it and clears its bindings. rig_db__step_done steps one that returns
 * no rows. */
int rig_db__prepare(sqlite3_stmt **st, sqlite3 *db, const char *sql);
void rig_db__finish(sqlite3_stmt *st);
int rig_db__step_done(sqlite3_stmt *st);

/* Opens one configured connection (pragmas applied, no migrations): used by the
 * pool and by tests. Returns NULL with a message in err. */
sqlite3 *rig_db_connect(const char *path, enum rig_durability durability, int busy_timeout_ms,
			char *err, size_t err_size);

#endif
