/* The SQLite store of storage/store.h: a sqlite:PATH store is one database
 * file. Connections, pragmas, migrations at start-up, the pool of transaction
 * handles, the write turn, and the transaction calls on a handle.
 *
 * Every HTTP worker borrows one connection per request from the pool. WAL mode
 * lets readers work on their own snapshot while one writer commits; writers
 * serialise on BEGIN IMMEDIATE with a busy timeout (BUSY_TIMEOUT_MS) that
 * arbitrates between processes, and within the process first queue for the
 * write turn, handed out in the order asked. Durability maps to the
 * synchronous pragma: RIG_STORE_DURABILITY_FULL is synchronous=FULL (a commit
 * is fsync'd), RIG_STORE_DURABILITY_PROCESS synchronous=NORMAL.
 */
#include "storage/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/statvfs.h>
#include <time.h>

#include "core/codes.h"
#include "storage/sqlite/migrate.h"
#include "storage/sqlite/sqlite_tx.h"
#include "storage/store_url.h"

/* How long a connection waits for another process's write lock. */
#define BUSY_TIMEOUT_MS 10000

/* The longest rig_store_write_pause sleeps: SQLite's busy handler (what a
 * connection of another process waiting for the write lock runs) sleeps at
 * most 100 ms between two tries, so a pause this long lets a waiting
 * connection in at its next try. */
#define WRITE_PAUSE_MAX_NS 100000000LL

struct rig_store {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	/* The write turn, a ticket queue: a writer takes ticket turn_next++ and
	 * waits until turn_serving is its ticket, so writers get the turn in the
	 * order they asked (a mutex would let one that gives it up and asks
	 * again at once take it back before a waiting one wakes). */
	pthread_mutex_t turn_lock; /* guards turn_next and turn_serving */
	pthread_cond_t turn_passed;
	unsigned long long turn_next, turn_serving;
	_Atomic(struct rig_tx *) writer; /* holder of the turn, NULL when free */
	_Atomic long long turn_held_ns;  /* how long the last turn held the write lock */
	struct rig_tx **idle;            /* stack of free handles */
	size_t n_idle;
	struct rig_tx *all; /* one handle per connection */
	size_t n_all;
	unsigned char secret[32];
	pthread_mutex_t probe_lock; /* guards probe */
	sqlite3 *probe;             /* readiness probes only (rig_store_probe) */
	char path[RIG_STORE_URL_MAX];
};

sqlite3 *rig_sqlite__connect(const char *path, enum rig_store_durability durability,
			     int busy_timeout_ms, char *err, size_t err_size)
{
	sqlite3 *conn = NULL;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &conn, flags, NULL) != SQLITE_OK) {
		snprintf(err, err_size, "cannot open database '%s': %s", path,
			 conn ? sqlite3_errmsg(conn) : "out of memory");
		goto out_close;
	}
	sqlite3_busy_timeout(conn, busy_timeout_ms);
	sqlite3_extended_result_codes(conn, 1);
	char pragmas[256];
	snprintf(pragmas, sizeof pragmas,
		 "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; PRAGMA foreign_keys=ON;"
		 " PRAGMA temp_store=MEMORY;",
		 durability == RIG_STORE_DURABILITY_PROCESS ? "NORMAL" : "FULL");
	char *msg = NULL;
	if (sqlite3_exec(conn, pragmas, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, err_size, "cannot configure database '%s': %s", path,
			 msg ? msg : sqlite3_errmsg(conn));
		sqlite3_free(msg);
		goto out_close;
	}
	return conn;
out_close:
	sqlite3_close(conn);
	return NULL;
}

/* Reads the page-token secret, creating it on the first start. */
static int load_secret(sqlite3 *conn, unsigned char out[32], char *err, size_t err_size)
{
	unsigned char fresh[32];
	if (getrandom(fresh, sizeof fresh, 0) != (ssize_t)sizeof fresh) {
		snprintf(err, err_size, "cannot read random bytes for the server secret");
		return -1;
	}
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(conn, "INSERT OR IGNORE INTO meta(key, value) VALUES ('secret', ?)",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_blob(st, 1, fresh, sizeof fresh, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(conn, "SELECT value FROM meta WHERE key = 'secret'", -1, &st,
			       NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW || sqlite3_column_bytes(st, 0) != 32)
		goto out;
	memcpy(out, sqlite3_column_blob(st, 0), 32);
	rc = 0;
out:
	if (rc)
		snprintf(err, err_size, "cannot read the server secret: %s", sqlite3_errmsg(conn));
	sqlite3_finalize(st);
	return rc;
}

/* SQLite's memory statistics put one global mutex around every allocation:
 * handler threads reading shots at once queue on it. rigd never reads them. */
static void configure_sqlite(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

struct rig_store *rig_store_open(const struct rig_store_options *opt, char *err, size_t err_size)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, configure_sqlite);
	size_t n = opt->pool_size ? opt->pool_size : 8;
	struct rig_store_url url;
	if (rig_store_url_parse(&url, opt->url, err, err_size) != 0)
		return NULL;
	struct rig_store *store = calloc(1, sizeof *store);
	if (!store)
		goto out_oom;
	store->all = calloc(n, sizeof *store->all);
	store->idle = calloc(n, sizeof *store->idle);
	if (!store->all || !store->idle)
		goto out_oom;
	pthread_mutex_init(&store->lock, NULL);
	pthread_cond_init(&store->freed, NULL);
	pthread_mutex_init(&store->turn_lock, NULL);
	pthread_cond_init(&store->turn_passed, NULL);
	pthread_mutex_init(&store->probe_lock, NULL);
	snprintf(store->path, sizeof store->path, "%s", url.address);
	for (size_t i = 0; i < n; i++) {
		sqlite3 *conn = rig_sqlite__connect(store->path, opt->durability, BUSY_TIMEOUT_MS,
						    err, err_size);
		if (!conn)
			goto out_close;
		struct rig_tx *tx = &store->all[store->n_all++];
		tx->store = store;
		tx->conn = conn;
		store->idle[store->n_idle++] = tx;
		if (i == 0 &&
		    (rig_migrate(conn, rig_migrations, rig_n_migrations, err, err_size) < 0 ||
		     load_secret(conn, store->secret, err, err_size) != 0))
			goto out_close;
	}
	/* A short busy timeout: a probe that waits long is itself a failed probe. */
	store->probe = rig_sqlite__connect(store->path, opt->durability, 1000, err, err_size);
	if (!store->probe)
		goto out_close;
	return store;
out_oom:
	snprintf(err, err_size, "out of memory");
	if (store) {
		free(store->all);
		free(store->idle);
		free(store);
	}
	return NULL;
out_close:
	rig_store_close(store);
	return NULL;
}

void rig_store_close(struct rig_store *store)
{
	if (!store)
		return;
	for (size_t i = 0; i < store->n_all; i++) {
		sqlite3 *conn = store->all[i].conn;
		sqlite3_stmt *st;
		while ((st = sqlite3_next_stmt(conn, NULL)))
			sqlite3_finalize(st);
		sqlite3_close_v2(conn);
	}
	sqlite3_close_v2(store->probe);
	pthread_mutex_destroy(&store->probe_lock);
	pthread_cond_destroy(&store->freed);
	pthread_mutex_destroy(&store->lock);
	pthread_cond_destroy(&store->turn_passed);
	pthread_mutex_destroy(&store->turn_lock);
	free(store->all);
	free(store->idle);
	free(store);
}

struct rig_tx *rig_store_read(struct rig_store *store)
{
	pthread_mutex_lock(&store->lock);
	while (store->n_idle == 0)
		pthread_cond_wait(&store->freed, &store->lock);
	struct rig_tx *tx = store->idle[--store->n_idle];
	pthread_mutex_unlock(&store->lock);
	return tx;
}

int rig_store_write(struct rig_store *store, struct rig_tx **out)
{
	struct rig_tx *tx = rig_store_read(store);
	int rc = rig_tx_begin_write(tx);
	if (rc) {
		rig_tx_end(tx);
		tx = NULL;
	}
	*out = tx;
	return rc;
}

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void take_turn(struct rig_store *store)
{
	pthread_mutex_lock(&store->turn_lock);
	unsigned long long ticket = store->turn_next++;
	while (store->turn_serving != ticket)
		pthread_cond_wait(&store->turn_passed, &store->turn_lock);
	pthread_mutex_unlock(&store->turn_lock);
}

static void pass_turn(struct rig_store *store)
{
	atomic_store(&store->writer, NULL);
	pthread_mutex_lock(&store->turn_lock);
	store->turn_serving++;
	pthread_cond_broadcast(&store->turn_passed);
	pthread_mutex_unlock(&store->turn_lock);
}

int rig_tx_begin_write(struct rig_tx *tx)
{
	struct rig_store *store = tx->store;
	take_turn(store);
	atomic_store(&store->writer, tx);
	int rc = rig_sqlite__exec(tx->conn, "BEGIN IMMEDIATE");
	if (rc == SQLITE_OK) {
		tx->turn_began_ns = now_ns();
		return 0;
	}
	pass_turn(store);
	return rig_sqlite__fail(rc);
}

void rig_tx_end_write(struct rig_tx *tx)
{
	struct rig_store *store = tx->store;
	/* Only the holder ever stores its own handle in writer, so this unlocked
	 * read can only be true for the thread that holds the turn. */
	if (store && atomic_load(&store->writer) == tx) {
		atomic_store(&store->turn_held_ns, now_ns() - tx->turn_began_ns);
		pass_turn(store);
	}
}

unsigned long long rig_sqlite__turn_queued(struct rig_store *store)
{
	pthread_mutex_lock(&store->turn_lock);
	unsigned long long n = store->turn_next - store->turn_serving;
	pthread_mutex_unlock(&store->turn_lock);
	return n;
}

void rig_store_write_pause(struct rig_store *store)
{
	long long ns = atomic_load(&store->turn_held_ns);
	if (ns > WRITE_PAUSE_MAX_NS)
		ns = WRITE_PAUSE_MAX_NS;
	struct timespec t = {.tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL};
	while (nanosleep(&t, &t) != 0 && errno == EINTR) /* a signal: sleep the rest */
		;
}

void rig_tx_end(struct rig_tx *tx)
{
	if (!tx)
		return;
	struct rig_store *store = tx->store;
	if (!sqlite3_get_autocommit(tx->conn))
		rig_sqlite__exec(tx->conn, "ROLLBACK");
	rig_tx_end_write(tx);
	pthread_mutex_lock(&store->lock);
	store->idle[store->n_idle++] = tx;
	pthread_cond_signal(&store->freed);
	pthread_mutex_unlock(&store->lock);
}

bool rig_store_ready(struct rig_store *store)
{
	struct rig_tx *tx = rig_store_read(store);
	int version = rig_migrate_current(tx->conn);
	rig_tx_end(tx);
	return rig_n_migrations > 0 && version == rig_migrations[rig_n_migrations - 1].version;
}

bool rig_store_probe(struct rig_store *store, struct rig_store_health *out)
{
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&store->probe_lock);
	int version = rig_migrate_current(store->probe);
	if (version < 0)
		snprintf(out->error, sizeof out->error, "the database cannot be read: %s",
			 sqlite3_errmsg(store->probe));
	else if (rig_n_migrations == 0 || version != rig_migrations[rig_n_migrations - 1].version)
		snprintf(out->error, sizeof out->error,
			 "the database schema is at version %d, not the current one", version);
	else
		out->readable = true;
	pthread_mutex_unlock(&store->probe_lock);
	struct statvfs fs;
	if (statvfs(store->path, &fs) == 0) {
		out->space_known = true;
		out->free_bytes = (unsigned long long)fs.f_bavail * fs.f_frsize;
		if (out->readable && out->free_bytes < RIG_STORE_MIN_FREE_BYTES)
			snprintf(out->error, sizeof out->error,
				 "the database's filesystem has %llu bytes free, below %llu",
				 out->free_bytes, RIG_STORE_MIN_FREE_BYTES);
	}
	return out->error[0] == '\0';
}

const unsigned char *rig_store_secret(const struct rig_store *store)
{
	return store->secret;
}

int rig_sqlite__fail(int sqlite_rc)
{
	int primary = sqlite_rc & 0xff;
	if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
		return -RIG_STORAGE_UNAVAILABLE;
	if (primary == SQLITE_FULL || sqlite_rc == SQLITE_IOERR_WRITE ||
	    sqlite_rc == SQLITE_IOERR_SHMSIZE)
		return -RIG_STORAGE_FULL;
	return -RIG_INTERNAL;
}

int rig_sqlite__prepare(sqlite3_stmt **st, sqlite3 *db, const char *sql)
{
	/* Statements stay prepared on their connection (rig_sqlite__finish resets
	 * them): reuse an idle one with the same text before parsing again. A
	 * statement handed out is busy from its first step, and no repository
	 * prepares the same text twice before stepping, so an idle match is free. */
	for (sqlite3_stmt *p = sqlite3_next_stmt(db, NULL); p; p = sqlite3_next_stmt(db, p)) {
		if (!sqlite3_stmt_busy(p) && strcmp(sqlite3_sql(p), sql) == 0) {
			*st = p;
			return 0;
		}
	}
	int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
	return rc == SQLITE_OK ? 0 : rig_sqlite__fail(rc);
}

int rig_sqlite__exec(sqlite3 *conn, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (rig_sqlite__prepare(&st, conn, sql) != 0)
		return sqlite3_errcode(conn) != SQLITE_OK ? sqlite3_errcode(conn) : SQLITE_ERROR;
	int rc = sqlite3_step(st);
	rig_sqlite__finish(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

void rig_sqlite__finish(sqlite3_stmt *st)
{
	if (!st)
		return;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

int rig_sqlite__step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	return rc == SQLITE_DONE ? 0 : rig_sqlite__fail(rc);
}

int rig_sqlite__run2(sqlite3 *db, const char *sql, const char *a, const char *b)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, sql);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	return rc;
}

int rig_sqlite__run_int(sqlite3 *db, const char *sql, sqlite3_int64 v)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, sql);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, v);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	return rc;
}
