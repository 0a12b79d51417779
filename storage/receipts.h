/* Receipts and stored idempotent responses. Both are written inside the edit's
 * own transaction, so a receipt (and a replayable response) exists exactly when
 * the edit does. Functions return 0 or a negative enum rig_code.
 */
#ifndef RIG_RECEIPTS_H
#define RIG_RECEIPTS_H

#include "storage/store.h"
#include <stddef.h>

/* A receipt is keyed by its shot's seq (never reused) and the version the
 * batch moved the shot to; its id names that key (migrations/sqlite/0007). */
#define RIG_RECEIPT_ID_MAX 48

/* The id of the receipt of shot seq's move to to_version: "r.<seq>.<version>". */
void rig_receipt_id(char out[RIG_RECEIPT_ID_MAX], long long shot_seq, long long to_version);

/* Inserts a receipt; body is its JSON text, id its rig_receipt_id(). */
int rig_receipt_insert(struct rig_tx *tx, const char *id, long long shot_seq, long long to_version,
		       const char *body);

/* Sets *out_body to a malloc'd copy of the receipt's JSON (caller frees);
 * -RIG_NOT_FOUND when missing. Takes both id forms: "r.<seq>.<version>" and
 * the random "r-<hex>" of receipts written before schema version 7. */
int rig_receipt_get(struct rig_tx *tx, const char *id, char **out_body);

/* Called once per receipt with its paging cursor (its toVersion) and JSON text
 * (borrowed). */
typedef int (*rig_receipt_fn)(void *ctx, long long to_version, const char *body);

/* Walks up to limit receipts of shot seq, newest first, with toVersion <
 * before_version (pass LLONG_MAX for the first page). */
int rig_receipt_list(struct rig_tx *tx, long long shot_seq, long long before_version, size_t limit,
		     rig_receipt_fn fn, void *ctx);

/* A stored response of an applied write. Strings are malloc'd (free with
 * rig_idem_release). */
struct rig_idem {
	char *request_hash;
	int status;
	char *response;
	char *headers; /* JSON array of [name, value] pairs */
};

/* Looks up principal's key, ignoring rows created before not_before_unix
 * (expired). A row stored before keys were scoped (schema version 9: principal
 * '') counts only when its request_hash equals request_hash; a principal's own
 * row wins over it. Fills *out (release with rig_idem_release) or returns
 * -RIG_NOT_FOUND, or another negative rig code with *out zeroed. */
int rig_idem_get(struct rig_tx *tx, const char *principal, const char *key,
		 const char *request_hash, long long not_before_unix, struct rig_idem *out);

/* Frees the strings of idem and zeroes it; a zeroed idem is a no-op. */
void rig_idem_release(struct rig_idem *idem);

/* Stores the response of an applied write under (principal, key), replacing an
 * expired row of theirs. Strings are copied by the store. */
int rig_idem_put(struct rig_tx *tx, const char *principal, const char *key,
		 const char *request_hash, int status, const char *response, const char *headers,
		 long long now_unix);

/* Deletes keys created before before_unix; sets *out_deleted (0 on failure). */
int rig_idem_sweep(struct rig_tx *tx, long long before_unix, long long *out_deleted);

#endif
