/* The migrations runner of the SQLite backend: brings a database to the newest
 * schema this binary knows. Private to storage/sqlite/ (and its tests).
 *
 * Migrations are the numbered files migrations/sqlite/NNNN_name.sql, compiled into
 * the binary (see storage/sqlite/CMakeLists.txt and embed_migrations.cmake). They are
 * append-only: a released file is never edited. The runner records each applied version in
 * schema_migrations.
 */
#ifndef RIG_MIGRATE_H
#define RIG_MIGRATE_H

#include <sqlite3.h>
#include <stddef.h>

struct rig_migration {
	int version;
	const char *name;
	const char *sql;
};

/* The migrations compiled into this binary, in version order. */
extern const struct rig_migration rig_migrations[];
extern const size_t rig_n_migrations;

/* The schema version the database is at (0 for an empty database), or -1 on error. */
int rig_migrate_current(sqlite3 *db);

/* Applies every migration of list newer than the database's version, in order,
 * in one transaction, and records them. Refuses (returns -1, message in err) a
 * database whose version is newer than the newest of list; on any failure the
 * database is left as it was. Returns the number applied (≥ 0) on success. */
int rig_migrate(sqlite3 *db, const struct rig_migration *list, size_t n, char *err,
		size_t err_size);

#endif
