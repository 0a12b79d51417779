/* Receipts and stored idempotent responses. Both are written inside the edit's
 * own transaction, so a receipt (and a replayable response) exists exactly when
 * the edit does. Functions return 0 or a negative enum rig_code.
 */
#ifndef RIG_RECEIPTS_H
#define RIG_RECEIPTS_H

#include <sqlite3.h>
#include <stddef.h>

/* Inserts a receipt; body is its JSON text. */
int rig_receipt_insert(sqlite3 *db, const char *id, const char *shot_id, long long to_version,
		       const char *body);

/* Sets *out_body to a malloc'd copy of the receipt's JSON (caller frees);
 * -RIG_NOT_FOUND when missing. */
int rig_receipt_get(sqlite3 *db, const char *id, char **out_body);

/* Called once per receipt with its paging cursor and JSON text (borrowed). */
typedef int (*rig_receipt_fn)(void *ctx, long long seq, const char *body);

/* Walks up to limit receipts of the shot, newest first, with seq < before_seq
 * (pass LLONG_MAX for the first page). */
int rig_receipt_list(sqlite3 *db, const char *shot_id, long long before_seq, size_t limit,
		     rig_receipt_fn fn, void *ctx);

/* A stored response of an applied write. Strings are malloc'd (free with
 * rig_idem_release). */
struct rig_idem {
	char *request_hash;
	int status;
	char *response;
	char *headers; /* JSON array of [name, value] pairs */
};

/* Looks the key up; -RIG_NOT_FOUND when absent or older than not_before_unix. */
int rig_idem_get(sqlite3 *db, const char *key, long long not_before_unix, struct rig_idem *out);

void rig_idem_release(struct rig_idem *idem);

/* Stores the response of an applied write under key (replacing an expired one). */
int rig_idem_put(sqlite3 *db, const char *key, const char *request_hash, int status,
		 const char *response, const char *headers, long long now_unix);

/* Deletes keys created before before_unix; sets *out_deleted. */
int rig_idem_sweep(sqlite3 *db, long long before_unix, long long *out_deleted);

#endif
