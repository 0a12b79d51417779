/* Connections and the pool of db.h. */
#include "storage/db.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/statvfs.h>

#include "core/codes.h"
#include "storage/migrate.h"

struct rig_db {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	pthread_mutex_t write_turn;
	_Atomic(sqlite3 *) writer; /* holder of write_turn, NULL when free */
	sqlite3 **idle; /* stack of free connections */
	size_t n_idle;
	sqlite3 **all;
	size_t n_all;
	unsigned char secret[32];
	pthread_mutex_t probe_lock; /* guards probe */
	sqlite3 *probe;             /* readiness probes only (rig_db_probe) */
	char path[1024];
};

sqlite3 *rig_db_connect(const char *path, enum rig_durability durability, int busy_timeout_ms,
			char *err, size_t err_size)
{
	sqlite3 *conn = NULL;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &conn, flags, NULL) != SQLITE_OK) {
		snprintf(err, err_size, "cannot open database '%s': %s", path,
			 conn ? sqlite3_errmsg(conn) : "out of memory");
		goto out_close;
	}
	sqlite3_busy_timeout(conn, busy_timeout_ms > 0 ? busy_timeout_ms : 10000);
	sqlite3_extended_result_codes(conn, 1);
	char pragmas[256];
	snprintf(pragmas, sizeof pragmas,
		 "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; PRAGMA foreign_keys=ON;"
		 " PRAGMA temp_store=MEMORY;",
		 durability == RIG_DURABILITY_PROCESS ? "NORMAL" : "FULL");
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

struct rig_db *rig_db_open(const struct rig_db_options *opt, char *err, size_t err_size)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, configure_sqlite);
	size_t n = opt->pool_size ? opt->pool_size : 8;
	struct rig_db *db = calloc(1, sizeof *db);
	if (!db)
		goto out_oom;
	db->all = calloc(n, sizeof *db->all);
	db->idle = calloc(n, sizeof *db->idle);
	if (!db->all || !db->idle)
		goto out_oom;
	pthread_mutex_init(&db->lock, NULL);
	pthread_cond_init(&db->freed, NULL);
	pthread_mutex_init(&db->write_turn, NULL);
	pthread_mutex_init(&db->probe_lock, NULL);
	snprintf(db->path, sizeof db->path, "%s", opt->path);
	for (size_t i = 0; i < n; i++) {
		sqlite3 *conn = rig_db_connect(opt->path, opt->durability, opt->busy_timeout_ms,
					       err, err_size);
		if (!conn)
			goto out_close;
		db->all[db->n_all++] = conn;
		db->idle[db->n_idle++] = conn;
		if (i == 0 && (rig_migrate(conn, rig_migrations, rig_n_migrations, err, err_size) < 0 ||
			       load_secret(conn, db->secret, err, err_size) != 0))
			goto out_close;
	}
	/* A short busy timeout: a probe that waits long is itself a failed probe. */
	db->probe = rig_db_connect(opt->path, opt->durability, 1000, err, err_size);
	if (!db->probe)
		goto out_close;
	return db;
out_oom:
	snprintf(err, err_size, "out of memory");
	if (db) {
		free(db->all);
		free(db->idle);
		free(db);
	}
	return NULL;
out_close:
	rig_db_close(db);
	return NULL;
}

void rig_db_close(struct rig_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->n_all; i++) {
		sqlite3_stmt *st;
		while ((st = sqlite3_next_stmt(db->all[i], NULL)))
			sqlite3_finalize(st);
		sqlite3_close_v2(db->all[i]);
	}
	sqlite3_close_v2(db->probe);
	pthread_mutex_destroy(&db->probe_lock);
	pthread_cond_destroy(&db->freed);
	pthread_mutex_destroy(&db->lock);
	pthread_mutex_destroy(&db->write_turn);
	free(db->all);
	free(db->idle);
	free(db);
}

sqlite3 *rig_db_acquire(struct rig_db *db)
{
	pthread_mutex_lock(&db->lock);
	while (db->n_idle == 0)
		pthread_cond_wait(&db->freed, &db->lock);
	sqlite3 *conn = db->idle[--db->n_idle];
	pthread_mutex_unlock(&db->lock);
	return conn;
}

int rig_db_begin_write(struct rig_db *db, sqlite3 *conn)
{
	pthread_mutex_lock(&db->write_turn);
	atomic_store(&db->writer, conn);
	int rc = rig_db_exec(conn, "BEGIN IMMEDIATE");
	if (rc == SQLITE_OK)
		return 0;
	atomic_store(&db->writer, NULL);
	pthread_mutex_unlock(&db->write_turn);
	return rig_db_fail(rc);
}

void rig_db_end_write(struct rig_db *db, sqlite3 *conn)
{
	/* Only the holder ever stores its own conn in writer, so this unlocked read
	 * can only be true for the thread that holds the turn. */
	if (atomic_load(&db->writer) == conn) {
		atomic_store(&db->writer, NULL);
		pthread_mutex_unlock(&db->write_turn);
	}
}

void rig_db_release(struct rig_db *db, sqlite3 *conn)
{
	if (!sqlite3_get_autocommit(conn))
		rig_db_exec(conn, "ROLLBACK");
	rig_db_end_write(db, conn);
	pthread_mutex_lock(&db->lock);
	db->idle[db->n_idle++] = conn;
	pthread_cond_signal(&db->freed);
	pthread_mutex_unlock(&db->lock);
}

bool rig_db_ready(struct rig_db *db)
{
	sqlite3 *conn = rig_db_acquire(db);
	int version = rig_migrate_current(conn);
	rig_db_release(db, conn);
	return rig_n_migrations > 0 && version == rig_migrations[rig_n_migrations - 1].version;
}

bool rig_db_probe(struct rig_db *db, struct rig_db_health *out)
{
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&db->probe_lock);
	int version = rig_migrate_current(db->probe);
	if (version < 0)
		snprintf(out->error, sizeof out->error, "the database cannot be read: %s",
			 sqlite3_errmsg(db->probe));
	else if (rig_n_migrations == 0 || version != rig_migrations[rig_n_migrations - 1].version)
		snprintf(out->error, sizeof out->error,
			 "the database schema is at version %d, not the current one", version);
	else
		out->readable = true;
	pthread_mutex_unlock(&db->probe_lock);
	struct statvfs fs;
	if (statvfs(db->path, &fs) == 0) {
		out->space_known = true;
		out->free_bytes = (unsigned long long)fs.f_bavail * fs.f_frsize;
		if (out->readable && out->free_bytes < RIG_DB_MIN_FREE_BYTES)
			snprintf(out->error, sizeof out->error,
				 "the database's filesystem has %llu bytes free, below %llu",
				 out->free_bytes, RIG_DB_MIN_FREE_BYTES);
	}
	return out->error[0] == '\0';
}

const unsigned char *rig_db_secret(const struct rig_db *db) { return db->secret; }

int rig_db_fail(int sqlite_rc)
{
	int primary = sqlite_rc & 0xff;
	if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
		return -RIG_STORAGE_UNAVAILABLE;
	if (primary == SQLITE_FULL || sqlite_rc == SQLITE_IOERR_WRITE ||
	    sqlite_rc == SQLITE_IOERR_SHMSIZE)
		return -RIG_STORAGE_FULL;
	return -RIG_INTERNAL;
}

int rig_db__prepare(sqlite3_stmt **st, sqlite3 *db, const char *sql)
{
	/* Statements stay prepared on their connection (rig_db__finish resets
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
	return rc == SQLITE_OK ? 0 : rig_db_fail(rc);
}

int rig_db_exec(sqlite3 *conn, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (rig_db__prepare(&st, conn, sql) != 0)
		return sqlite3_errcode(conn) != SQLITE_OK ? sqlite3_errcode(conn) : SQLITE_ERROR;
	int rc = sqlite3_step(st);
	rig_db__finish(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

void rig_db__finish(sqlite3_stmt *st)
{
	if (!st)
		return;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

int rig_db__step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	return rc == SQLITE_DONE ? 0 : rig_db_fail(rc);
}
