/* The write path keeps the shot it last committed in memory (one shot per
 * process), so the next batch on it need not read every layer back: a batch
 * takes the cached model when the stored shot's row and version still match
 * it (checked inside the batch's transaction), else loads it. A successful
 * batch leaves its model pending; the caller settles it after the commit:
 * kept when committed, dropped when not. Only ever touched under the write
 * turn, so it needs no lock of its own. Evaluation (reads) never uses it.
 */
#ifndef RIG_SHOT_CACHE_H
#define RIG_SHOT_CACHE_H

#include <stdbool.h>

#include "storage/shot_model.h"
#include "storage/store.h"

struct rig_shot_cache;

/* A new, empty cache; NULL when out of memory. */
struct rig_shot_cache *rig_shot_cache_new(void);

/* Frees the cache and what it holds; NULL is a no-op. */
void rig_shot_cache_free(struct rig_shot_cache *cache);

/* Moves the cached model of shot_id into *out when it still mirrors the
 * stored shot on tx (same row, same version) and returns true; otherwise
 * drops it and returns false with *out zeroed. A model left pending by a
 * caller that never settled counts as not committed. NULL cache: false. */
bool rig_shot_cache_take(struct rig_shot_cache *cache, struct rig_tx *tx, const char *shot_id,
			 struct rig_shot_model *out);

/* Keeps *m (moved out: *m is zeroed) as the shot at version, pending its
 * commit; large skins keep their joints only. NULL cache: a no-op. */
void rig_shot_cache_hold(struct rig_shot_cache *cache, struct rig_shot_model *m, long long version);

/* After the commit: the pending model becomes the cached one when committed,
 * else it is dropped. */
void rig_shot_cache_settle(struct rig_shot_cache *cache, bool committed);

/* Drops everything (a commit that held cached changes failed). */
void rig_shot_cache_forget(struct rig_shot_cache *cache);

#endif
