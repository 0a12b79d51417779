/* The migrations runner: empty database to latest, idempotence, refusal of a
 * newer schema, rollback of a failing migration. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "storage/sqlite/migrate.h"
#include "storage/sqlite/sqlite_tx.h"
#include "storage/store.h"

static sqlite3 *memory_db(void)
{
	sqlite3 *db = NULL;
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	return db;
}

static int count_tables(sqlite3 *db)
{
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'", -1, &st,
			   NULL);
	sqlite3_step(st);
	int n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

Test(migrate, migrates_an_empty_database_to_the_latest)
{
	sqlite3 *db = memory_db();
	char err[256] = "";
	cr_assert_eq(rig_migrate_current(db), 0);
	int applied = rig_migrate(db, rig_migrations, rig_n_migrations, err, sizeof err);
	cr_assert_eq(applied, (int)rig_n_migrations, "%s", err);
	cr_assert_eq(rig_migrate_current(db), rig_migrations[rig_n_migrations - 1].version);
	cr_assert(count_tables(db) >= 8);
	sqlite3_close(db);
}

Test(migrate, applies_nothing_the_second_time)
{
	sqlite3 *db = memory_db();
	char err[256] = "";
	cr_assert_geq(rig_migrate(db, rig_migrations, rig_n_migrations, err, sizeof err), 1);
	cr_assert_eq(rig_migrate(db, rig_migrations, rig_n_migrations, err, sizeof err), 0, "%s",
		     err);
	sqlite3_close(db);
}

Test(migrate, refuses_a_database_newer_than_the_binary)
{
	sqlite3 *db = memory_db();
	char err[256] = "";
	cr_assert_geq(rig_migrate(db, rig_migrations, rig_n_migrations, err, sizeof err), 1);
	sqlite3_exec(db, "INSERT INTO schema_migrations(version, name) VALUES (9999, 'future')",
		     NULL, NULL, NULL);
	cr_assert_eq(rig_migrate(db, rig_migrations, rig_n_migrations, err, sizeof err), -1);
	cr_assert(strstr(err, "9999") != NULL, "message names the version: %s", err);
	sqlite3_close(db);
}

Test(migrate, rolls_back_every_step_of_a_failing_run)
{
	const struct rig_migration broken[] = {
		{1, "ok", "CREATE TABLE a(x);"},
		{2, "broken", "CREATE TABLE b(x); THIS IS NOT SQL;"},
	};
	sqlite3 *db = memory_db();
	char err[256] = "";
	cr_assert_eq(rig_migrate(db, broken, 2, err, sizeof err), -1);
	cr_assert(strstr(err, "0002_broken") != NULL, "%s", err);
	cr_assert_eq(rig_migrate_current(db), 0);
	cr_assert_eq(count_tables(db), 0, "nothing of the failed run stays");
	sqlite3_close(db);
}

Test(store, opens_a_file_in_wal_mode_with_foreign_keys)
{
	char path[] = "/tmp/rig-test-db-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	unlink(path);
	char err[256] = "", url[64];
	snprintf(url, sizeof url, "sqlite:%s", path);
	struct rig_store_options opt = {.url = url, .pool_size = 2};
	struct rig_store *store = rig_store_open(&opt, err, sizeof err);
	cr_assert_not_null(store, "%s", err);
	cr_assert(rig_store_ready(store));
	struct rig_tx *tx = rig_store_read(store);
	sqlite3 *conn = tx->conn;
	sqlite3_stmt *st;
	sqlite3_prepare_v2(conn, "PRAGMA journal_mode", -1, &st, NULL);
	sqlite3_step(st);
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_prepare_v2(conn, "PRAGMA foreign_keys", -1, &st, NULL);
	sqlite3_step(st);
	cr_assert_eq(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
	rig_tx_end(tx);
	unsigned char secret[32];
	memcpy(secret, rig_store_secret(store), 32);
	rig_store_close(store);
	/* A second open keeps the stored secret. */
	store = rig_store_open(&opt, err, sizeof err);
	cr_assert_not_null(store, "%s", err);
	cr_assert_arr_eq(secret, rig_store_secret(store), 32);
	rig_store_close(store);
	char side[300];
	unlink(path);
	snprintf(side, sizeof side, "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", path);
	unlink(side);
}
