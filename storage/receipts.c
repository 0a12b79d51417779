/* Receipts and idempotency rows of receipts.h. */
#include "receipts.h"

#include <stdlib.h>
#include <string.h>

#include "codes.h"
#include "db.h"

int rig_receipt_insert(sqlite3 *db, const char *id, const char *shot_id, long long to_version,
		       const char *body)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_db__prepare(&st, db,
			 "INSERT INTO receipts(id, shot_id, to_version, body) VALUES (?, ?, ?, ?)");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, to_version);
	sqlite3_bind_text(st, 4, body, -1, SQLITE_STATIC);
	rc = rig_db__step_done(st);
	rig_db__finish(st);
	return rc;
}

int rig_receipt_get(sqlite3 *db, const char *id, char **out_body)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_db__prepare(&st, db, "SELECT body FROM receipts WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*out_body = strdup((const char *)sqlite3_column_text(st, 0));
		rc = *out_body ? 0 : -RIG_INTERNAL;
	} else {
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_db_fail(s);
	}
	rig_db__finish(st);
	return rc;
}

int rig_receipt_list(sqlite3 *db, const char *shot_id, long long before_seq, size_t limit,
		     rig_receipt_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_db__prepare(&st, db,
			 "SELECT seq, body FROM receipts WHERE shot_id = ? AND seq < ?"
			 " ORDER BY seq DESC LIMIT ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, before_seq);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)limit);
	int s;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW)
		rc = fn(ctx, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1));
	if (rc == 0 && s != SQLITE_DONE)
		rc = rig_db_fail(s);
	rig_db__finish(st);
	return rc;
}

void rig_idem_release(struct rig_idem *idem)
{
	free(idem->request_hash);
	free(idem->response);
	free(idem->headers);
	memset(idem, 0, sizeof *idem);
}

int rig_idem_get(sqlite3 *db, const char *key, long long not_before_unix, struct rig_idem *out)
{
	memset(out, 0, sizeof *out);
	sqlite3_stmt *st = NULL;
	int rc = rig_db__prepare(&st, db,
			 "SELECT request_hash, status, response, headers FROM idempotency"
			 " WHERE key = ? AND created_unix >= ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, not_before_unix);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		out->request_hash = strdup((const char *)sqlite3_column_text(st, 0));
		out->status = sqlite3_column_int(st, 1);
		out->response = strdup((const char *)sqlite3_column_text(st, 2));
		out->headers = strdup((const char *)sqlite3_column_text(st, 3));
		rc = out->request_hash && out->response && out->headers ? 0 : -RIG_INTERNAL;
		if (rc)
			rig_idem_release(out);
	} else {
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_db_fail(s);
	}
	rig_db__finish(st);
	return rc;
}

int rig_idem_put(sqlite3 *db, const char *key, const char *request_hash, int status,
		 const char *response, const char *headers, long long now_unix)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_db__prepare(&st, db,
			 "INSERT OR REPLACE INTO idempotency(key, request_hash, status, response,"
			 " created_unix, headers) VALUES (?, ?, ?, ?, ?, ?)");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, request_hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, status);
	sqlite3_bind_text(st, 4, response, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, now_unix);
	sqlite3_bind_text(st, 6, headers, -1, SQLITE_STATIC);
	rc = rig_db__step_done(st);
	rig_db__finish(st);
	return rc;
}

int rig_idem_sweep(sqlite3 *db, long long before_unix, long long *out_deleted)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_db__prepare(&st, db, "DELETE FROM idempotency WHERE created_unix < ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, before_unix);
	rc = rig_db__step_done(st);
	*out_deleted = rc ? 0 : sqlite3_changes64(db);
	rig_db__finish(st);
	return rc;
}
