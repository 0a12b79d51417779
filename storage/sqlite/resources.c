/* Projects and shots of resources.h. */
#include "storage/resources.h"

#include <stdio.h>
#include <string.h>

#include "core/codes.h"
#include "storage/sqlite/sqlite_tx.h"

#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

/* Runs an insert; a UNIQUE violation is a taken id, a foreign key one a missing parent. */
static int step_insert(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		return -RIG_LAYER_EXISTS;
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return -RIG_NOT_FOUND;
	return rig_sqlite__fail(rc);
}

static const char *text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	return s ? (const char *)s : "";
}

static int walk_projects(sqlite3_stmt *st, rig_project_fn fn, void *ctx, size_t *n_rows)
{
	int s, rc = 0;
	*n_rows = 0;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rig_project_row row = {.seq = sqlite3_column_int64(st, 0),
					      .name = text(st, 2),
					      .created_at = text(st, 3)};
		rig_strlcpy(row.id, text(st, 1), sizeof row.id);
		(*n_rows)++;
		rc = fn(ctx, &row);
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	return rc;
}

static int walk_shots(sqlite3_stmt *st, rig_shot_fn fn, void *ctx, size_t *n_rows)
{
	int s, rc = 0;
	*n_rows = 0;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rig_shot_row row = {.seq = sqlite3_column_int64(st, 0),
					   .name = text(st, 3),
					   .fps = sqlite3_column_double(st, 4),
					   .frame_start = sqlite3_column_double(st, 5),
					   .frame_end = sqlite3_column_double(st, 6),
					   .version = sqlite3_column_int64(st, 7),
					   .created_at = text(st, 8)};
		rig_strlcpy(row.id, text(st, 1), sizeof row.id);
		rig_strlcpy(row.project_id, text(st, 2), sizeof row.project_id);
		(*n_rows)++;
		rc = fn(ctx, &row);
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	return rc;
}

int rig_project_insert(struct rig_tx *tx, const char *id, const char *name)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db, "INSERT INTO projects(id, name, created_at) VALUES (?, ?, " NOW_SQL ")");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	rc = step_insert(st);
	rig_sqlite__finish(st);
	return rc;
}

int rig_project_get(struct rig_tx *tx, const char *id, rig_project_fn fn, void *ctx)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT seq, id, name, created_at FROM projects WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	size_t n = 0;
	rc = walk_projects(st, fn, ctx, &n);
	if (rc == 0 && n == 0)
		rc = -RIG_NOT_FOUND;
	rig_sqlite__finish(st);
	return rc;
}

int rig_project_list(struct rig_tx *tx, long long after_seq, size_t limit, rig_project_fn fn,
		     void *ctx)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT seq, id, name, created_at FROM projects WHERE seq > ?"
				     " ORDER BY seq LIMIT ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, after_seq);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)limit);
	size_t n = 0;
	rc = walk_projects(st, fn, ctx, &n);
	rig_sqlite__finish(st);
	return rc;
}

static int delete_by_id(sqlite3 *db, const char *sql, const char *id)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, sql);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	rc = s == SQLITE_DONE ? (sqlite3_changes(db) ? 0 : -RIG_NOT_FOUND) : rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_project_delete(struct rig_tx *tx, const char *id)
{
	sqlite3 *db = tx->conn;
	return delete_by_id(db, "DELETE FROM projects WHERE id = ?", id);
}

int rig_shot_insert(struct rig_tx *tx, const struct rig_shot_row *row)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"INSERT INTO shots(id, project_id, name, fps, frame_start, frame_end,"
		" created_at) VALUES (?, ?, ?, ?, ?, ?, " NOW_SQL ")");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, row->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, row->project_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, row->name, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, row->fps);
	sqlite3_bind_double(st, 5, row->frame_start);
	sqlite3_bind_double(st, 6, row->frame_end);
	rc = step_insert(st);
	rig_sqlite__finish(st);
	return rc;
}

#define SHOT_COLUMNS "seq, id, project_id, name, fps, frame_start, frame_end, version, created_at"

int rig_shot_get(struct rig_tx *tx, const char *id, rig_shot_fn fn, void *ctx)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "SELECT " SHOT_COLUMNS " FROM shots WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	size_t n = 0;
	rc = walk_shots(st, fn, ctx, &n);
	if (rc == 0 && n == 0)
		rc = -RIG_NOT_FOUND;
	rig_sqlite__finish(st);
	return rc;
}

int rig_shot_stamp(struct rig_tx *tx, const char *id, long long *out_seq, long long *out_version)
{
	sqlite3 *db = tx->conn;
	*out_seq = 0;
	*out_version = 0;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "SELECT seq, version FROM shots WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*out_seq = sqlite3_column_int64(st, 0);
		*out_version = sqlite3_column_int64(st, 1);
	}
	rc = s == SQLITE_ROW ? 0 : s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_shot_version(struct rig_tx *tx, const char *id, long long *out_version)
{
	long long seq;
	return rig_shot_stamp(tx, id, &seq, out_version);
}

int rig_shot_list(struct rig_tx *tx, const char *project_id, long long after_seq, size_t limit,
		  rig_shot_fn fn, void *ctx)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT " SHOT_COLUMNS
				     " FROM shots WHERE project_id = ? AND seq > ?"
				     " ORDER BY seq LIMIT ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, project_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, after_seq);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)limit);
	size_t n = 0;
	rc = walk_shots(st, fn, ctx, &n);
	rig_sqlite__finish(st);
	return rc;
}

int rig_shot_delete(struct rig_tx *tx, const char *id, long long expected_version)
{
	sqlite3 *db = tx->conn;
	if (expected_version < 0)
		return delete_by_id(db, "DELETE FROM shots WHERE id = ?", id);
	long long version;
	int rc = rig_shot_version(tx, id, &version);
	if (rc == 0 && version != expected_version)
		rc = -RIG_VERSION_CONFLICT;
	return rc ? rc : delete_by_id(db, "DELETE FROM shots WHERE id = ?", id);
}

int rig_resource_project(struct rig_tx *tx, enum rig_resource kind, const char *id,
			 char out[RIG_ID_MAX + 1])
{
	sqlite3 *db = tx->conn;
	static const char *const sql[] = {
		[RIG_RESOURCE_PROJECT] = "SELECT id FROM projects WHERE id = ?1",
		[RIG_RESOURCE_SHOT] = "SELECT project_id FROM shots WHERE id = ?1",
		[RIG_RESOURCE_PLAN] =
			"SELECT s.project_id FROM plans p JOIN shots s ON s.id = p.shot_id"
			" WHERE p.id = ?1",
		[RIG_RESOURCE_LOCK] =
			"SELECT s.project_id FROM locks l JOIN shots s ON s.id = l.shot_id"
			" WHERE l.id = ?1",
		/* "r.<seq>.<version>" is its own key (migration 7); older "r-<hex>"
		 * ids are found through their partial index. */
		[RIG_RESOURCE_RECEIPT] =
			"SELECT s.project_id FROM receipt_log r JOIN shots s"
			" ON s.seq = r.key >> 32 WHERE r.key = ?2 * 4294967296 + ?3 AND ?3 < "
			"4294967296"
			" AND r.id = ?1"
			" UNION ALL SELECT s.project_id FROM receipts r JOIN shots s ON s.seq = "
			"r.shot_seq"
			" WHERE r.shot_seq = ?2 AND r.to_version = ?3 AND r.id = ?1"
			" UNION ALL SELECT s.project_id FROM receipt_log r JOIN shots s"
			" ON s.seq = r.key >> 32 WHERE r.id = ?1 AND r.id GLOB 'r-*'",
	};
	out[0] = '\0';
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, sql[kind]);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (kind == RIG_RESOURCE_RECEIPT) {
		long long seq = -1, version = -1;
		if (sscanf(id, "r.%lld.%lld", &seq, &version) != 2)
			seq = version = -1;
		sqlite3_bind_int64(st, 2, seq);
		sqlite3_bind_int64(st, 3, version);
	}
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		rig_strlcpy(out, (const char *)sqlite3_column_text(st, 0), RIG_ID_MAX + 1);
	else
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}
