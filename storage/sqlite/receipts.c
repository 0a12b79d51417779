/* Receipts and idempotency rows of receipts.h. */
#include "storage/receipts.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "storage/sqlite/sqlite_tx.h"

void rig_receipt_id(char out[RIG_RECEIPT_ID_MAX], long long shot_seq, long long to_version)
{
	snprintf(out, RIG_RECEIPT_ID_MAX, "r.%lld.%lld", shot_seq, to_version);
}

/* Receipts live in receipt_log under their version's key, or, for a version
 * past what a key holds, in receipts (migration 21, sqlite_tx.h). */

int rig_receipt_insert(struct rig_tx *tx, const char *id, long long shot_seq, long long to_version,
		       const char *body)
{
	sqlite3 *db = tx->conn;
	bool keyed = rig_sqlite__keyed(shot_seq, to_version);
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		keyed ? "INSERT INTO receipt_log(key, id, body) VALUES (?1, ?3, ?4)"
		      : "INSERT INTO receipts(shot_seq, to_version, id, body) VALUES (?1, ?2, ?3, "
			"?4)");
	if (rc)
		return rc;
	if (keyed) {
		sqlite3_bind_int64(st, 1, rig_sqlite__key(shot_seq, to_version));
	} else {
		sqlite3_bind_int64(st, 1, shot_seq);
		sqlite3_bind_int64(st, 2, to_version);
	}
	sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, body, -1, SQLITE_STATIC);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	return rc;
}

/* Reads a canonical decimal (no sign, no leading zero, no overflow) from *p. */
static bool read_decimal(const char **p, long long *out)
{
	const char *s = *p;
	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return false;
	long long v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (LLONG_MAX - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*p = s;
	*out = v;
	return true;
}

/* The key of a "r.<seq>.<version>" id; false for any other string. */
static bool parse_id(const char *id, long long *shot_seq, long long *to_version)
{
	const char *p = id;
	return p[0] == 'r' && p[1] == '.' && (p += 2, read_decimal(&p, shot_seq)) && *p++ == '.' &&
	       read_decimal(&p, to_version) && *p == '\0';
}

int rig_receipt_get(struct rig_tx *tx, const char *id, char **out_body)
{
	sqlite3 *db = tx->conn;
	*out_body = NULL;
	long long shot_seq, to_version;
	bool named = parse_id(id, &shot_seq, &to_version);
	if (!named && strncmp(id, "r-", 2) != 0)
		return -RIG_NOT_FOUND;
	bool keyed = named && rig_sqlite__keyed(shot_seq, to_version);
	sqlite3_stmt *st = NULL;
	/* A receipt migrated with an r-<hex> id has no second id; the GLOB term
	 * lets SQLite use the partial index of those ids. */
	int rc = rig_sqlite__prepare(
		&st, db,
		keyed   ? "SELECT body FROM receipt_log WHERE key = ?1 AND id = ?3"
		: named ? "SELECT body FROM receipts WHERE shot_seq = ?1 AND to_version = ?2"
			  " AND id = ?3"
			: "SELECT body FROM receipt_log WHERE id = ?3 AND id GLOB 'r-*'");
	if (rc)
		return rc;
	if (keyed) {
		sqlite3_bind_int64(st, 1, rig_sqlite__key(shot_seq, to_version));
	} else if (named) {
		sqlite3_bind_int64(st, 1, shot_seq);
		sqlite3_bind_int64(st, 2, to_version);
	}
	sqlite3_bind_text(st, 3, id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*out_body = strdup((const char *)sqlite3_column_text(st, 0));
		rc = *out_body ? 0 : -RIG_INTERNAL;
	} else {
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	}
	rig_sqlite__finish(st);
	return rc;
}

/* Walks up to *limit receipts of sql's rows (toVersion, body), newest first,
 * counting them off *limit. */
static int list_rows(sqlite3 *db, const char *sql, long long a, long long b, size_t *limit,
		     long long version_base, rig_receipt_fn fn, void *ctx)
{
	if (!*limit)
		return 0;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, sql);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)*limit);
	int s = SQLITE_DONE;
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		(*limit)--;
		rc = fn(ctx, sqlite3_column_int64(st, 0) - version_base,
			(const char *)sqlite3_column_text(st, 1));
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	rig_sqlite__finish(st);
	return rc;
}

int rig_receipt_list(struct rig_tx *tx, long long shot_seq, long long before_version, size_t limit,
		     rig_receipt_fn fn, void *ctx)
{
	sqlite3 *db = tx->conn;
	/* receipts holds only versions past every key's (none, mostly), so newest
	 * first is those, then receipt_log's. */
	int rc = list_rows(db,
			   "SELECT to_version, body FROM receipts WHERE shot_seq = ?1"
			   " AND to_version < ?2 ORDER BY to_version DESC LIMIT ?3",
			   shot_seq, before_version, &limit, 0, fn, ctx);
	if (rc || !rig_sqlite__keyed(shot_seq, 0) || before_version <= 0)
		return rc;
	long long below =
		before_version < RIG_SQLITE_KEY_VERSIONS ? before_version : RIG_SQLITE_KEY_VERSIONS;
	return list_rows(db,
			 "SELECT key, body FROM receipt_log WHERE key >= ?1 AND key < ?2"
			 " ORDER BY key DESC LIMIT ?3",
			 rig_sqlite__key(shot_seq, 0), rig_sqlite__key(shot_seq, below), &limit,
			 rig_sqlite__key(shot_seq, 0), fn, ctx);
}

void rig_idem_release(struct rig_idem *idem)
{
	free(idem->request_hash);
	free(idem->response);
	free(idem->headers);
	memset(idem, 0, sizeof *idem);
}

int rig_idem_get(struct rig_tx *tx, const char *principal, const char *key,
		 const char *request_hash, long long not_before_unix, struct rig_idem *out)
{
	sqlite3 *db = tx->conn;
	memset(out, 0, sizeof *out);
	sqlite3_stmt *st = NULL;
	/* A non-empty principal sorts after the legacy '': its own row comes first. */
	int rc = rig_sqlite__prepare(
		&st, db,
		"SELECT request_hash, status, response, headers FROM idempotency"
		" WHERE key = ?1 AND created_unix >= ?4"
		" AND (principal = ?2 OR (principal = '' AND request_hash = ?3))"
		" ORDER BY principal DESC LIMIT 1");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, principal, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, request_hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, not_before_unix);
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
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	}
	rig_sqlite__finish(st);
	return rc;
}

int rig_idem_put(struct rig_tx *tx, const char *principal, const char *key,
		 const char *request_hash, int status, const char *response, const char *headers,
		 long long now_unix)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"INSERT OR REPLACE INTO idempotency(principal, key, request_hash, status,"
		" response, created_unix, headers) VALUES (?, ?, ?, ?, ?, ?, ?)");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, principal, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, request_hash, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, status);
	sqlite3_bind_text(st, 5, response, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, now_unix);
	sqlite3_bind_text(st, 7, headers, -1, SQLITE_STATIC);
	rc = rig_sqlite__step_done(st);
	rig_sqlite__finish(st);
	return rc;
}

int rig_idem_sweep(struct rig_tx *tx, long long before_unix, long long *out_deleted)
{
	sqlite3 *db = tx->conn;
	*out_deleted = 0;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db, "DELETE FROM idempotency WHERE created_unix < ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, before_unix);
	rc = rig_sqlite__step_done(st);
	*out_deleted = rc ? 0 : sqlite3_changes64(db);
	rig_sqlite__finish(st);
	return rc;
}
