/* Transaction handles around bare in-memory SQLite connections, for the unit
 * tests of the SQLite backend's repositories: no pool, no write turn. */
#ifndef RIG_TEST_BARE_TX_H
#define RIG_TEST_BARE_TX_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>

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

static inline void bare_tx_close(struct rig_tx *tx)
{
	/* The repositories keep statements prepared on the connection
	 * (rig_sqlite__prepare); close refuses a connection that still has any. */
	for (sqlite3_stmt *st; (st = sqlite3_next_stmt(tx->conn, NULL));)
		sqlite3_finalize(st);
	sqlite3_close(tx->conn);
	free(tx);
}

/* A fully migrated database (foreign keys on) holding project "p" and its shot
 * "s" (24 fps, frames 0 to 10), the repositories' usual starting point. */
static inline struct rig_tx *bare_tx_with_shot(void)
{
	struct rig_tx *tx = bare_tx_open(rig_n_migrations, true);
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

#endif
