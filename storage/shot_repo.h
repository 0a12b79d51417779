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

/* Loads the shot, its layers (ordered by creation) and each skin's joints into
 * *out, which it overwrites. Release with rig_shot_model_release() even on failure. */
int rig_shot_load(struct rig_shot_model *out, struct rig_tx *tx, const char *shot_id);

/* Reads the heavy arrays (source, triangles, weights) of skinned layer l of m,
 * not new, into *out, which it overwrites: the arrays are out's own, its joints
 * are l's (borrowed). Changes neither m nor l, so a shared model can serve.
 * Release with rig_skin_def_release_mesh(), which leaves the joints alone. */
int rig_shot_read_skin(struct rig_tx *tx, const struct rig_shot_model *m,
		       const struct rig_model_layer *l, struct rig_skin_def *out);

/* Loads the heavy arrays of a skinned layer of m that is not new into the
 * layer's own def (the write path); no-op when already loaded. */
int rig_shot_load_skin(struct rig_tx *tx, const struct rig_shot_model *m,
		       struct rig_model_layer *l);

/* Writes back every change of m: deletes deleted layers (with their keys and
 * skins), inserts new ones, updates dirty ones, rewrites or deletes dirty skins.
 * Rewritten skins record to_version, the version the caller is about to commit
 * (their revision: see migrations/0006). Does not change the shot's version. */
int rig_shot_save(struct rig_tx *tx, const struct rig_shot_model *m, long long to_version);

/* Moves the shot's version from `from` to `to`; -RIG_VERSION_CONFLICT when the
 * stored version is not `from`. */
int rig_shot_set_version(struct rig_tx *tx, const char *shot_id, long long from, long long to);

#endif
