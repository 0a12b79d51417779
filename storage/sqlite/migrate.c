/* The migrations runner of migrate.h. */
#include "storage/sqlite/migrate.h"

#include <stdio.h>

static const char create_table_sql[] =
	"CREATE TABLE IF NOT EXISTS schema_migrations ("
	" version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
	" applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))";

int rig_migrate_current(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int version = -1;
	int rc = sqlite3_prepare_v2(db,
				    "SELECT count(*) FROM sqlite_schema WHERE type = 'table'"
				    " AND name = 'schema_migrations'",
				    -1, &st, NULL);
	if (rc != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		goto out;
	int has_table = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (!has_table) {
		version = 0;
		goto out;
	}
	if (sqlite3_prepare_v2(db, "SELECT coalesce(max(version), 0) FROM schema_migrations", -1,
			       &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto out;
	version = sqlite3_column_int(st, 0);
out:
	sqlite3_finalize(st);
	return version;
}

static int apply_one(sqlite3 *db, const struct rig_migration *m, char *err, size_t err_size)
{
	char *msg = NULL;
	if (sqlite3_exec(db, m->sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, err_size, "migration %04d_%s failed: %s", m->version, m->name,
			 msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(
		db, "INSERT INTO schema_migrations(version, name) VALUES (?, ?)", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int(st, 1, m->version);
		sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK) {
		snprintf(err, err_size, "recording migration %04d failed: %s", m->version,
			 sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

int rig_migrate(sqlite3 *db, const struct rig_migration *list, size_t n, char *err, size_t err_size)
{
	int newest = n ? list[n - 1].version : 0;
	int applied = 0;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, err_size, "cannot lock the database: %s", sqlite3_errmsg(db));
		return -1;
	}
	int current = rig_migrate_current(db);
	if (current < 0) {
		snprintf(err, err_size, "cannot read the schema version: %s", sqlite3_errmsg(db));
		goto fail;
	}
	if (current > newest) {
		snprintf(err, err_size,
			 "database schema version %d is newer than this rigd (knows up to %d);"
			 " upgrade rigd or use another database",
			 current, newest);
		goto fail;
	}
	if (sqlite3_exec(db, create_table_sql, NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, err_size, "cannot create schema_migrations: %s", sqlite3_errmsg(db));
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		if (list[i].version <= current)
			continue;
		if (apply_one(db, &list[i], err, err_size) != 0)
			goto fail;
		applied++;
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, err_size, "cannot commit migrations: %s", sqlite3_errmsg(db));
		goto fail;
	}
	return applied;
fail:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}
