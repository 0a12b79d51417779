/* The shot repository: loads a shot into a struct rig_shot_model and writes back
 * what an edit changed. Every function runs on the caller's struct rig_tx
 * (store.h), inside its transaction; none begins or commits one.
 * Functions return 0 or a negative enum rig_code (-RIG_NOT_FOUND,
 * -RIG_STORAGE_UNAVAILABLE, -RIG_INTERNAL).
 */
#ifndef RIG_SHOT_REPO_H
#define RIG_SHOT_REPO_H

#include "storage/shot_model.h"
#include "storage/store.h"

/* Loads the shot, its layers (ordered by creation) and each layer's binding
 * without its per-vertex arrays (a skin's joints) into *out, which it overwrites. Release with
 * rig_shot_model_release() even on failure. */
int rig_shot_load(struct rig_shot_model *out, struct rig_tx *tx, const char *shot_id);

/* As rig_shot_load, at shot version `version` (the head when version < 0):
 * the layers and bindings as that version's batch left them, out->version =
 * version. -RIG_VERSION_COMPACTED below the shot's retained history,
 * -RIG_NOT_FOUND above its head (docs/history.md). */
int rig_shot_load_at(struct rig_shot_model *out, struct rig_tx *tx, const char *shot_id,
		     long long version);

/* The oldest readable version of the shot and its head. -RIG_NOT_FOUND. */
int rig_shot_versions(struct rig_tx *tx, const char *shot_id, long long *oldest, long long *head);

/* Versions one compaction transaction retires at most: a long backlog (a
 * lowered --history-versions, say) goes in short transactions that edits can
 * interleave with, not in one that holds the write lock for its whole length. */
#define RIG_HISTORY_COMPACT_STEP 256

/* Compacts one shot that keeps more than `keep` (>= 1) versions, inside the
 * caller's write transaction: moves its oldest readable version up towards
 * head - keep + 1, by at most RIG_HISTORY_COMPACT_STEP, and deletes the
 * history rows and chunks no retained version reads. Sets *done when a shot
 * was compacted (false: none lags) and adds the rows deleted to *removed. */
int rig_history_compact(struct rig_tx *tx, long long keep, bool *done, long long *removed);

/* Called once per change rig_history_changes finds: the batch that moved the
 * shot to `version` wrote layer_id (created, changed, deleted it, or its
 * binding), or, with layer_id NULL, the shot's constraint set. A nonzero
 * return stops the walk and is returned. */
typedef int (*rig_history_change_fn)(void *ctx, long long version, const char *layer_id);

/* Walks what every version in (after, through] of the shot changed, by
 * version then layer id (the constraints first), each pair once, from the
 * retained history rows (docs/history.md): what reverting a receipt restores
 * and what conflicts with it. Versions at or below the shot's oldest readable
 * one may be incomplete. -RIG_NOT_FOUND for an unknown shot. */
int rig_history_changes(struct rig_tx *tx, const char *shot_id, long long after, long long through,
			rig_history_change_fn fn, void *ctx);

/* Reads the whole stored binding of bound layer l of m (not new) into a new
 * definition of l's kind, per-vertex arrays included, set in *out (NULL on
 * failure). Changes neither m nor l, so a shared model can serve. Free with
 * l->binding.type->def_free. */
int rig_shot_read_binding(void **out, struct rig_tx *tx, const struct rig_shot_model *m,
			  const struct rig_model_layer *l);

/* Loads the per-vertex arrays of a bound layer of m into the layer's own
 * definition (the write path); no-op when already loaded, unbound or changed. */
int rig_shot_load_binding(struct rig_tx *tx, const struct rig_shot_model *m,
			  struct rig_model_layer *l);

/* Writes back every change of m: deletes deleted layers (with their keys and
 * bindings), inserts new ones, updates dirty ones, rewrites or deletes dirty
 * bindings. Rewritten bindings record to_version, the version the caller is about to commit
 * (their revision: see migrations/sqlite/0006). What is replaced or deleted stays
 * readable as history until to_version (docs/history.md). Does not change the
 * shot's version. Records in each written layer the prints of its stored keys
 * (struct rig_model_layer's keys_stored), so m mirrors storage once the caller
 * commits; a caller that rolls back drops m. */
int rig_shot_save(struct rig_tx *tx, struct rig_shot_model *m, long long to_version);

/* Moves the shot's version from `from` to `to`; -RIG_VERSION_CONFLICT when the
 * stored version is not `from`. */
int rig_shot_set_version(struct rig_tx *tx, const char *shot_id, long long from, long long to);

#endif
