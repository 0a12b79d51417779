/* Errors as values: one struct per violation, and a bounded list of them.
 *
 * Validation in rigd reports every violation it finds, each with its stable code
 * and the indices it concerns, so an agent can fix a request from the response
 * alone. Core code fills code, detail and the indices it knows; the API layer adds
 * opIndex, the JSON pointer and ids it knows (layer, joint strings).
 *
 * The list keeps at most RIG_ERRS_KEEP entries (the first ones found) and counts
 * the rest, so a million bad weights cannot turn into a million-entry response.
 */
#ifndef RIG_ERR_H
#define RIG_ERR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/codes.h"

#define RIG_ID_MAX 64

/* An actor's display name (X-Rigd-Actor, a token's name, a lock's owner, a
 * plan's author): 1 to RIG_ACTOR_MAX bytes of UTF-8; buffers hold
 * RIG_ACTOR_MAX + 1. */
#define RIG_ACTOR_MAX 128

/* Bytes of a buffer, NUL included, for an ISO 8601 UTC timestamp with
 * milliseconds ("2026-11-29T15:02:09.991Z" is 25 with the NUL; the rest is
 * room for years past 9999), as rig_api__iso8601 writes and SQLite stores. */
#define RIG_TIMESTAMP_MAX 40

/* Bytes of a buffer, NUL included, for a principal, the identity that owns
 * locks and idempotency keys: "token:<id>", or "actor:<name>" under --auth
 * off (at most 6 + RIG_ACTOR_MAX + 1 = 135; the rest is room to spare). */
#define RIG_PRINCIPAL_MAX 140
_Static_assert(RIG_PRINCIPAL_MAX > 6 + RIG_ACTOR_MAX && RIG_PRINCIPAL_MAX > 6 + RIG_ID_MAX,
	       "a principal holds \"actor:\" and an actor, or \"token:\" and an id");

#define RIG_ERRS_KEEP 64
#define RIG_ERR_DETAIL_MAX 240
#define RIG_ERR_POINTER_MAX 200
#define RIG_ERR_EXTRAS 3
/* An error's list member: at most RIG_ERR_LIST_ITEMS names in
 * RIG_ERR_LIST_BYTES. The bytes hold the first RIG_ERR_LIST_JOINTS joint ids
 * of a skin at their longest; every op name (short ones, more than 16 of them)
 * and any body's field names fit with room to spare. */
#define RIG_ERR_LIST_JOINTS 16
#define RIG_ERR_LIST_ITEMS 64
#define RIG_ERR_LIST_BYTES (RIG_ERR_LIST_JOINTS * (RIG_ID_MAX + 1))

/* "Not known" marker for the index fields of struct rig_err. */
#define RIG_NO_INDEX (-1L)

struct rig_err {
	enum rig_code code;
	char detail[RIG_ERR_DETAIL_MAX];   /* lowercase, no full stop, quotes its subject */
	char pointer[RIG_ERR_POINTER_MAX]; /* JSON pointer into the request, "" when none */
	long op_index;                     /* RIG_NO_INDEX when not known */
	long vertex_index;
	long triangle_index;
	long joint_index;
	long influence_index;
	char joint_id[RIG_ID_MAX + 1]; /* "" when not known */
	char layer_id[RIG_ID_MAX + 1];
	bool has_frame;
	double frame;
	/* A lock in the way (LAYER_LOCKED, LOCK_LOST): "" / 0 when none. */
	char lock_id[RIG_ID_MAX + 1];
	char owner[RIG_ACTOR_MAX + 1];
	long long expires_ms; /* Unix milliseconds */
	/* Other values the detail quotes (an op name, a channel, a parent id, a
	 * sum…), so every value in the detail is also a member of the error
	 * object: a string, or a number when is_number. */
	struct rig_err_extra {
		char name[24];
		char value[RIG_ID_MAX + 8];
		double number;
		bool is_number;
	} extra[RIG_ERR_EXTRAS];
	int n_extra;
	/* One array-of-strings member naming the valid choices (validOps,
	 * validJointIds, validFields): n items, NUL-separated in items; none when
	 * name is "". */
	struct rig_err_list {
		char name[24];
		char items[RIG_ERR_LIST_BYTES];
		size_t used;
		int n;
	} list;
};

struct rig_errs {
	struct rig_err items[RIG_ERRS_KEEP];
	size_t count;            /* entries kept in items */
	size_t total;            /* every violation found, kept or not */
	struct rig_err overflow; /* scratch entry handed out past RIG_ERRS_KEEP */
};

/* A struct rig_errs is about 144 KiB: it never lives on the stack. */

/* Returns a new, empty list on the heap; NULL when out of memory (handlers
 * answer that 503 MEMORY_BUSY, see rig_api__errs_new). Free with
 * rig_errs_free. */
struct rig_errs *rig_errs_new(void);

/* Frees a list from rig_errs_new; rig_errs_free(NULL) does nothing. */
void rig_errs_free(struct rig_errs *errs);

/* Empties the list: for a list embedded in a heap object the caller owns (a
 * frame-range slot), or to reuse one from rig_errs_new. Frees nothing. */
void rig_errs_init(struct rig_errs *errs);

/* Records a violation and returns its entry to fill in; all indices start at
 * RIG_NO_INDEX, strings empty. Past RIG_ERRS_KEEP the violation is only counted
 * and a scratch entry is returned, so callers never check for NULL. The detail is
 * printf-formatted. */
struct rig_err *rig_errs_add(struct rig_errs *errs, enum rig_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Adds a named string member to a violation (ignored past RIG_ERR_EXTRAS). */
void rig_err_extra(struct rig_err *e, const char *name, const char *value);

/* Adds a named number member to a violation (ignored past RIG_ERR_EXTRAS);
 * a non-finite value is not added, as JSON cannot hold it. */
void rig_err_extra_number(struct rig_err *e, const char *name, double value);

/* Appends item to the violation's list member called name (the first call
 * names it; a later call under another name is ignored). Returns false when
 * the item was not added: RIG_ERR_LIST_ITEMS reached or no room left. */
bool rig_err_list_add(struct rig_err *e, const char *name, const char *item);

/* True when at least one violation was recorded. */
static inline bool rig_errs_any(const struct rig_errs *errs)
{
	return errs->total > 0;
}

/* Adds every violation of src to dst, in order: the kept ones while dst has
 * room, all of them to its total. */
void rig_errs_append(struct rig_errs *dst, const struct rig_errs *src);

/* Sets op_index on every kept entry that has none, and prefixes their pointers
 * with prefix (e.g. "/ops/3"). Used by the batch pipeline after an op fails. */
void rig_errs_scope(struct rig_errs *errs, size_t from, long op_index, const char *prefix);

/* Copies the string into a fixed-size field, truncating safely. */
void rig_strlcpy(char *dst, const char *src, size_t size);

#endif
