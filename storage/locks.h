/* Layer locks: leases held by an owner on layers of one shot, with a fencing
 * token from the shot's own counter. A lock counts only while it has not
 * expired; expiry is checked on every use (now_ms passed in) and expired rows
 * are swept by housekeeping. Functions return 0 or a negative enum rig_code.
 */
#ifndef RIG_LOCKS_H
#define RIG_LOCKS_H

#include <stddef.h>

#include "core/err.h"
#include "storage/store.h"

struct rig_lock {
	char id[RIG_ID_MAX + 1];
	char shot_id[RIG_ID_MAX + 1];
	char owner[RIG_ACTOR_MAX +
		   1]; /* the owner's display name (a token's name, or X-Rigd-Actor) */
	char owner_id[RIG_PRINCIPAL_MAX]; /* the owning identity: "token:<id>", or "actor:<name>"
					     (--auth off) */
	long long fencing_token;
	long long ttl_seconds;
	long long expires_ms;
	char **layer_ids; /* owned, n_layers entries */
	size_t n_layers;
};

void rig_lock_release(struct rig_lock *lock);

/* Called for each lock; a non-zero return stops the walk and is returned. */
typedef int (*rig_lock_fn)(void *ctx, const struct rig_lock *lock);

/* Walks the shot's live locks (expires_ms > now_ms), oldest first. */
int rig_locks_live(struct rig_tx *tx, const char *shot_id, long long now_ms, rig_lock_fn fn,
		   void *ctx);

/* Loads one lock whether live or not; -RIG_NOT_FOUND when absent. */
int rig_lock_get(struct rig_tx *tx, const char *lock_id, struct rig_lock *out);

/* Inserts lock (its fencing_token is set here from the shot's counter). */
int rig_lock_insert(struct rig_tx *tx, struct rig_lock *lock);

/* Moves a lock's expiry. */
int rig_lock_renew(struct rig_tx *tx, const char *lock_id, long long ttl_seconds,
		   long long expires_ms);

/* Deletes a lock; -RIG_NOT_FOUND when absent. */
int rig_lock_delete(struct rig_tx *tx, const char *lock_id);

/* Deletes locks that expired before now_ms; sets *out_deleted (0 on failure). */
int rig_locks_sweep(struct rig_tx *tx, long long now_ms, long long *out_deleted);

#endif
