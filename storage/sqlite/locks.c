/* Layer locks of locks.h. */
#include "storage/locks.h"

#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "storage/sqlite/sqlite_tx.h"

void rig_lock_release(struct rig_lock *lock)
{
	for (size_t i = 0; i < lock->n_layers; i++)
		free(lock->layer_ids[i]);
	free(lock->layer_ids);
	lock->layer_ids = NULL;
	lock->n_layers = 0;
}

static int load_layers(sqlite3 *db, struct rig_lock *lock)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db, "SELECT layer_id FROM lock_layers WHERE lock_id = ? ORDER BY pos");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, lock->id, -1, SQLITE_STATIC);
	int s;
	size_t cap = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (lock->n_layers == cap) {
			cap = cap ? 2 * cap : 8;
			char **grown = realloc(lock->layer_ids, cap * sizeof *grown);
			if (!grown) {
				rc = -RIG_INTERNAL;
				goto out;
			}
			lock->layer_ids = grown;
		}
		char *id = strdup((const char *)sqlite3_column_text(st, 0));
		if (!id) {
			rc = -RIG_INTERNAL;
			goto out;
		}
		lock->layer_ids[lock->n_layers++] = id;
	}
	if (s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
out:
	rig_sqlite__finish(st);
	return rc;
}

static void row_to_lock(sqlite3_stmt *st, struct rig_lock *l)
{
	memset(l, 0, sizeof *l);
	rig_strlcpy(l->id, (const char *)sqlite3_column_text(st, 0), sizeof l->id);
	rig_strlcpy(l->shot_id, (const char *)sqlite3_column_text(st, 1), sizeof l->shot_id);
	rig_strlcpy(l->owner, (const char *)sqlite3_column_text(st, 2), sizeof l->owner);
	l->fencing_token = sqlite3_column_int64(st, 3);
	l->ttl_seconds = sqlite3_column_int64(st, 4);
	l->expires_ms = sqlite3_column_int64(st, 5);
	rig_strlcpy(l->owner_id, (const char *)sqlite3_column_text(st, 6), sizeof l->owner_id);
}

#define LOCK_COLUMNS "id, shot_id, owner, fencing_token, ttl_seconds, expires_ms, owner_id"

int rig_locks_live(struct rig_tx *tx, const char *shot_id, long long now_ms, rig_lock_fn fn,
		   void *ctx)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT " LOCK_COLUMNS
				     " FROM locks WHERE shot_id = ? AND expires_ms > ?"
				     " ORDER BY fencing_token");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, now_ms);
	int s;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rig_lock l;
		row_to_lock(st, &l);
		rc = load_layers(db, &l);
		if (rc == 0)
			rc = fn(ctx, &l);
		rig_lock_release(&l);
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_lock_get(struct rig_tx *tx, const char *lock_id, struct rig_lock *out)
{
	sqlite3 *db = tx->conn;
	memset(out, 0, sizeof *out);
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "SELECT " LOCK_COLUMNS " FROM locks WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, lock_id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		row_to_lock(st, out);
		rc = load_layers(db, out);
	} else {
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	}
	rig_sqlite__finish(st);
	return rc;
}

int rig_lock_insert(struct rig_tx *tx, struct rig_lock *lock)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"UPDATE shots SET fencing_counter = fencing_counter + 1 WHERE id = ?"
		" RETURNING fencing_counter");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, lock->shot_id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		lock->fencing_token = sqlite3_column_int64(st, 0);
	rc = s == SQLITE_ROW ? 0 : s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	if (rc)
		return rc;
	rc = rig_sqlite__prepare(
		&st, db,
		"INSERT INTO locks(id, shot_id, owner, fencing_token, ttl_seconds, expires_ms,"
		" created_at, owner_id)"
		" VALUES (?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?)");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, lock->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, lock->shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, lock->owner, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, lock->fencing_token);
	sqlite3_bind_int64(st, 5, lock->ttl_seconds);
	sqlite3_bind_int64(st, 6, lock->expires_ms);
	sqlite3_bind_text(st, 7, lock->owner_id, -1, SQLITE_STATIC);
	s = sqlite3_step(st);
	rc = s == SQLITE_DONE ? 0 : rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	for (size_t i = 0; rc == 0 && i < lock->n_layers; i++) {
		rc = rig_sqlite__prepare(&st, db,
					 "INSERT OR IGNORE INTO lock_layers(lock_id, layer_id, "
					 "pos) VALUES (?, ?, ?)");
		if (rc)
			break;
		sqlite3_bind_text(st, 1, lock->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, lock->layer_ids[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
		s = sqlite3_step(st);
		rc = s == SQLITE_DONE ? 0 : rig_sqlite__fail(s);
		rig_sqlite__finish(st);
	}
	return rc;
}

int rig_lock_renew(struct rig_tx *tx, const char *lock_id, long long ttl_seconds,
		   long long expires_ms)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db, "UPDATE locks SET ttl_seconds = ?, expires_ms = ? WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, ttl_seconds);
	sqlite3_bind_int64(st, 2, expires_ms);
	sqlite3_bind_text(st, 3, lock_id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	rc = s == SQLITE_DONE ? (sqlite3_changes(db) ? 0 : -RIG_NOT_FOUND) : rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_lock_delete(struct rig_tx *tx, const char *lock_id)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "DELETE FROM locks WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, lock_id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	rc = s == SQLITE_DONE ? (sqlite3_changes(db) ? 0 : -RIG_NOT_FOUND) : rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_locks_sweep(struct rig_tx *tx, long long now_ms, long long *out_deleted)
{
	sqlite3 *db = tx->conn;
	*out_deleted = 0;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "DELETE FROM locks WHERE expires_ms <= ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, now_ms);
	int s = sqlite3_step(st);
	rc = s == SQLITE_DONE ? 0 : rig_sqlite__fail(s);
	*out_deleted = rc ? 0 : sqlite3_changes64(db);
	rig_sqlite__finish(st);
	return rc;
}
