/* The transaction calls of storage/store.h on a SQLite connection: snapshot,
 * the one savepoint, commit, rollback and the state a caller asks after. The
 * pool, borrowing and the write turn live in store.c.
 */
#include <stdbool.h>

#include "core/codes.h"
#include "storage/sqlite/sqlite_tx.h"
#include "storage/store.h"

/* The savepoint's name: savepoints do not nest (store.h), so one name serves. */
#define SAVEPOINT_SQL "SAVEPOINT batch"
#define RELEASE_SQL "RELEASE batch"
#define ROLLBACK_TO_SQL "ROLLBACK TO batch"

static int exec_rc(struct rig_tx *tx, const char *sql)
{
	int rc = rig_sqlite__exec(tx->conn, sql);
	return rc == SQLITE_OK ? 0 : rig_sqlite__fail(rc);
}

int rig_tx_snapshot(struct rig_tx *tx)
{
	/* A deferred BEGIN takes no lock: when it fails, something is wrong with
	 * us (a transaction left open), not with the database. */
	return rig_sqlite__exec(tx->conn, "BEGIN") == SQLITE_OK ? 0 : -RIG_INTERNAL;
}

int rig_tx_savepoint(struct rig_tx *tx)
{
	return exec_rc(tx, SAVEPOINT_SQL);
}

int rig_tx_savepoint_release(struct rig_tx *tx)
{
	return exec_rc(tx, RELEASE_SQL);
}

int rig_tx_savepoint_rollback(struct rig_tx *tx)
{
	int rc = exec_rc(tx, ROLLBACK_TO_SQL);
	return rc ? rc : exec_rc(tx, RELEASE_SQL);
}

int rig_tx_commit(struct rig_tx *tx)
{
	return exec_rc(tx, "COMMIT");
}

void rig_tx_rollback(struct rig_tx *tx)
{
	if (!sqlite3_get_autocommit(tx->conn))
		rig_sqlite__exec(tx->conn, "ROLLBACK");
}

bool rig_tx_open(const struct rig_tx *tx)
{
	return !sqlite3_get_autocommit(tx->conn);
}

int rig_tx_lost_code(struct rig_tx *tx)
{
	int rc = rig_sqlite__fail(sqlite3_extended_errcode(tx->conn));
	return rc == -RIG_STORAGE_FULL ? rc : -RIG_STORAGE_UNAVAILABLE;
}

const char *rig_tx_errmsg(struct rig_tx *tx)
{
	return sqlite3_errmsg(tx->conn);
}
