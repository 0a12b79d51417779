/* API tokens and the audit log of tokens.h. */
#include "storage/tokens.h"

#include <string.h>

#include "core/codes.h"
#include "storage/sqlite/sqlite_tx.h"

#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
#define TOKEN_COLUMNS "seq, id, name, scopes, created_at, created_by, expires_unix, revoked_at"

static const char *text_or_empty(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? (const char *)t : "";
}

static void row_to_token(sqlite3_stmt *st, struct rig_token *t)
{
	memset(t, 0, sizeof *t);
	t->seq = sqlite3_column_int64(st, 0);
	rig_strlcpy(t->id, text_or_empty(st, 1), sizeof t->id);
	rig_strlcpy(t->name, text_or_empty(st, 2), sizeof t->name);
	rig_strlcpy(t->scopes, text_or_empty(st, 3), sizeof t->scopes);
	rig_strlcpy(t->created_at, text_or_empty(st, 4), sizeof t->created_at);
	rig_strlcpy(t->created_by, text_or_empty(st, 5), sizeof t->created_by);
	t->has_expiry = sqlite3_column_type(st, 6) != SQLITE_NULL;
	t->expires_unix = sqlite3_column_int64(st, 6);
	t->revoked = sqlite3_column_type(st, 7) != SQLITE_NULL;
	rig_strlcpy(t->revoked_at, text_or_empty(st, 7), sizeof t->revoked_at);
}

int rig_token_insert(struct rig_tx *tx, const struct rig_token *t, const char *secret_hash)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "INSERT INTO tokens(id, name, secret_hash, scopes, created_at,"
				     " created_by, expires_unix) VALUES (?, ?, ?, ?, " NOW_SQL
				     ", ?, ?)");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, t->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, secret_hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, t->scopes, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, t->created_by, -1, SQLITE_STATIC);
	if (t->has_expiry)
		sqlite3_bind_int64(st, 6, t->expires_unix);
	int s = sqlite3_step(st);
	if (s == SQLITE_DONE)
		rc = 0;
	else if (s == SQLITE_CONSTRAINT_UNIQUE || s == SQLITE_CONSTRAINT_PRIMARYKEY)
		rc = -RIG_LAYER_EXISTS;
	else
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

static int token_by(sqlite3 *db, const char *sql, const char *key, struct rig_token *out)
{
	memset(out, 0, sizeof *out);
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, sql);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		row_to_token(st, out);
	else
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_token_by_hash(struct rig_tx *tx, const char *secret_hash, struct rig_token *out)
{
	sqlite3 *db = tx->conn;
	return token_by(db, "SELECT " TOKEN_COLUMNS " FROM tokens WHERE secret_hash = ?",
			secret_hash, out);
}

int rig_token_get(struct rig_tx *tx, const char *id, struct rig_token *out)
{
	sqlite3 *db = tx->conn;
	return token_by(db, "SELECT " TOKEN_COLUMNS " FROM tokens WHERE id = ?", id, out);
}

int rig_token_revoke(struct rig_tx *tx, const char *id)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "UPDATE tokens SET revoked_at = coalesce(revoked_at, " NOW_SQL
				     ")"
				     " WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	else if (sqlite3_changes(db) == 0)
		rc = -RIG_NOT_FOUND;
	rig_sqlite__finish(st);
	return rc;
}

int rig_token_list(struct rig_tx *tx, long long after_seq, size_t limit, rig_token_fn fn, void *ctx)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "SELECT " TOKEN_COLUMNS
				     " FROM tokens WHERE seq > ? ORDER BY seq"
				     " LIMIT ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, after_seq);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)limit);
	int s;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rig_token t;
		row_to_token(st, &t);
		rc = fn(ctx, &t);
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_token_count(struct rig_tx *tx, long long *out)
{
	sqlite3 *db = tx->conn;
	*out = 0;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "SELECT count(*) FROM tokens");
	if (rc)
		return rc;
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_audit_insert(struct rig_tx *tx, const char *action, const char *actor, const char *token_id,
		     const char *body, long long *out_seq)
{
	sqlite3 *db = tx->conn;
	if (out_seq)
		*out_seq = 0;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "INSERT INTO audit(at, action, actor, token_id, body)"
				     " VALUES (" NOW_SQL ", ?, ?, ?, ?) RETURNING seq");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, action, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, actor, -1, SQLITE_STATIC);
	if (token_id && *token_id)
		sqlite3_bind_text(st, 3, token_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, body, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		if (out_seq)
			*out_seq = sqlite3_column_int64(st, 0);
		s = sqlite3_step(st);
	}
	rc = s == SQLITE_DONE ? 0 : rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_audit_list(struct rig_tx *tx, long long after_seq, size_t limit, rig_audit_fn fn, void *ctx)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db, "SELECT seq, at, body FROM audit WHERE seq > ? ORDER BY seq LIMIT ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, after_seq);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)limit);
	int s;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW)
		rc = fn(ctx, sqlite3_column_int64(st, 0), text_or_empty(st, 1),
			text_or_empty(st, 2));
	if (rc == 0 && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}
