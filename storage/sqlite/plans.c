/* Saved plans of plans.h. */
#include "storage/plans.h"

#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "storage/sqlite/sqlite_tx.h"

#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
#define PLAN_COLUMNS                                                                               \
	"seq, id, shot_id, title, ops, base_version, plan_version, status, author, receipt_id,"    \
	" created_at, updated_at"

void rig_plan_release(struct rig_plan *p)
{
	free(p->title);
	free(p->ops);
	p->title = NULL;
	p->ops = NULL;
}

static int row_to_plan(sqlite3_stmt *st, struct rig_plan *p)
{
	memset(p, 0, sizeof *p);
	p->seq = sqlite3_column_int64(st, 0);
	rig_strlcpy(p->id, (const char *)sqlite3_column_text(st, 1), sizeof p->id);
	rig_strlcpy(p->shot_id, (const char *)sqlite3_column_text(st, 2), sizeof p->shot_id);
	if (sqlite3_column_type(st, 3) != SQLITE_NULL &&
	    !(p->title = strdup((const char *)sqlite3_column_text(st, 3))))
		return -RIG_INTERNAL;
	if (!(p->ops = strdup((const char *)sqlite3_column_text(st, 4))))
		return -RIG_INTERNAL;
	p->has_base_version = sqlite3_column_type(st, 5) != SQLITE_NULL;
	p->base_version = sqlite3_column_int64(st, 5);
	p->plan_version = sqlite3_column_int64(st, 6);
	p->applied = strcmp((const char *)sqlite3_column_text(st, 7), "applied") == 0;
	rig_strlcpy(p->author, (const char *)sqlite3_column_text(st, 8), sizeof p->author);
	if (sqlite3_column_type(st, 9) != SQLITE_NULL)
		rig_strlcpy(p->receipt_id, (const char *)sqlite3_column_text(st, 9),
			    sizeof p->receipt_id);
	rig_strlcpy(p->created_at, (const char *)sqlite3_column_text(st, 10), sizeof p->created_at);
	rig_strlcpy(p->updated_at, (const char *)sqlite3_column_text(st, 11), sizeof p->updated_at);
	return 0;
}

int rig_plan_insert(struct rig_tx *tx, const struct rig_plan *p)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"INSERT INTO plans(id, shot_id, title, ops, base_version, plan_version,"
		" status, author, created_at, updated_at)"
		" VALUES (?, ?, ?, ?, ?, 1, 'draft', ?, " NOW_SQL ", " NOW_SQL ")");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, p->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, p->shot_id, -1, SQLITE_STATIC);
	if (p->title)
		sqlite3_bind_text(st, 3, p->title, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, p->ops, -1, SQLITE_STATIC);
	if (p->has_base_version)
		sqlite3_bind_int64(st, 5, p->base_version);
	sqlite3_bind_text(st, 6, p->author, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_DONE)
		rc = 0;
	else if (s == SQLITE_CONSTRAINT_UNIQUE)
		rc = -RIG_LAYER_EXISTS;
	else if (s == SQLITE_CONSTRAINT_FOREIGNKEY)
		rc = -RIG_NOT_FOUND;
	else
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_plan_get(struct rig_tx *tx, const char *id, struct rig_plan *out)
{
	sqlite3 *db = tx->conn;
	memset(out, 0, sizeof *out);
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "SELECT " PLAN_COLUMNS " FROM plans WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		rc = row_to_plan(st, out);
	else
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_plan_revise(struct rig_tx *tx, const struct rig_plan *p, long long expected_plan_version)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "UPDATE plans SET title = ?, ops = ?, base_version = ?,"
				     " plan_version = plan_version + 1, updated_at = " NOW_SQL
				     " WHERE id = ? AND plan_version = ? AND status = 'draft'");
	if (rc)
		return rc;
	if (p->title)
		sqlite3_bind_text(st, 1, p->title, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, p->ops, -1, SQLITE_STATIC);
	if (p->has_base_version)
		sqlite3_bind_int64(st, 3, p->base_version);
	sqlite3_bind_text(st, 4, p->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, expected_plan_version);
	rc = rig_sqlite__step_done(st);
	if (rc == 0 && sqlite3_changes(db) != 1)
		rc = -RIG_PLAN_VERSION_CONFLICT;
	rig_sqlite__finish(st);
	return rc;
}

int rig_plan_mark_applied(struct rig_tx *tx, const char *id, const char *receipt_id)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"UPDATE plans SET status = 'applied', receipt_id = ?, updated_at = " NOW_SQL
		" WHERE id = ? AND status = 'draft'");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, receipt_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
	rc = rig_sqlite__step_done(st);
	if (rc == 0 && sqlite3_changes(db) != 1)
		rc = -RIG_PLAN_APPLIED;
	rig_sqlite__finish(st);
	return rc;
}

int rig_plan_delete(struct rig_tx *tx, const char *id)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "DELETE FROM plans WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = rig_sqlite__step_done(st);
	if (rc == 0 && sqlite3_changes(db) != 1)
		rc = -RIG_NOT_FOUND;
	rig_sqlite__finish(st);
	return rc;
}

int rig_plan_list(struct rig_tx *tx, const char *shot_id, long long after_seq, size_t limit,
		  rig_plan_fn fn, void *ctx)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT " PLAN_COLUMNS
				     " FROM plans WHERE shot_id = ? AND seq > ?"
				     " ORDER BY seq LIMIT ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, after_seq);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)limit);
	int s;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rig_plan p;
		rc = row_to_plan(st, &p);
		if (rc == 0)
			rc = fn(ctx, &p);
		rig_plan_release(&p);
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}
