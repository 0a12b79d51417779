/* Projects and shots: rows, creation, lookup, deletion and keyset-paged lists.
 * Functions run on the caller's struct rig_tx (store.h) and return 0 or a
 * negative enum rig_code (-RIG_NOT_FOUND, -RIG_LAYER_EXISTS for a taken id,
 * -RIG_STORAGE_UNAVAILABLE, -RIG_INTERNAL).
 */
#ifndef RIG_RESOURCES_H
#define RIG_RESOURCES_H

#include <stddef.h>

#include "core/err.h"
#include "storage/store.h"

struct rig_project_row {
	long long seq; /* paging cursor */
	char id[RIG_ID_MAX + 1];
	const char *name; /* borrowed for the callback's duration */
	const char *created_at;
};

struct rig_shot_row {
	long long seq;
	char id[RIG_ID_MAX + 1];
	char project_id[RIG_ID_MAX + 1];
	const char *name;
	double fps;
	double frame_start;
	double frame_end;
	long long version;
	const char *created_at;
};

/* Called once per row; a non-zero return stops the walk and is returned. */
typedef int (*rig_project_fn)(void *ctx, const struct rig_project_row *row);
typedef int (*rig_shot_fn)(void *ctx, const struct rig_shot_row *row);

/* Inserts a project; -RIG_LAYER_EXISTS when the id is taken. */
int rig_project_insert(struct rig_tx *tx, const char *id, const char *name);

/* Calls fn with the project; -RIG_NOT_FOUND when missing. */
int rig_project_get(struct rig_tx *tx, const char *id, rig_project_fn fn, void *ctx);

/* Calls fn for up to limit projects with seq > after_seq, oldest first. */
int rig_project_list(struct rig_tx *tx, long long after_seq, size_t limit, rig_project_fn fn,
		     void *ctx);

/* Deletes a project with its shots; -RIG_NOT_FOUND when missing. */
int rig_project_delete(struct rig_tx *tx, const char *id);

/* Inserts a shot at version 0; -RIG_NOT_FOUND when the project is missing,
 * -RIG_LAYER_EXISTS when the id is taken. */
int rig_shot_insert(struct rig_tx *tx, const struct rig_shot_row *row);

/* Calls fn with the shot; -RIG_NOT_FOUND when missing. */
int rig_shot_get(struct rig_tx *tx, const char *id, rig_shot_fn fn, void *ctx);

/* Sets *out_version to the shot's version; -RIG_NOT_FOUND when the shot is missing. */
int rig_shot_version(struct rig_tx *tx, const char *id, long long *out_version);

/* Sets the shot's row seq (never reused) and version; -RIG_NOT_FOUND when missing.
 * Both are 0 on failure. */
int rig_shot_stamp(struct rig_tx *tx, const char *id, long long *out_seq, long long *out_version);

/* Calls fn for up to limit shots of the project with seq > after_seq, oldest first. */
int rig_shot_list(struct rig_tx *tx, const char *project_id, long long after_seq, size_t limit,
		  rig_shot_fn fn, void *ctx);

/* Deletes a shot and everything in it; when expected_version ≥ 0 only while the
 * shot is at that version (-RIG_VERSION_CONFLICT otherwise). */
int rig_shot_delete(struct rig_tx *tx, const char *id, long long expected_version);

/* Resources a path can name, for finding the project that owns one. */
enum rig_resource {
	RIG_RESOURCE_PROJECT,
	RIG_RESOURCE_SHOT,
	RIG_RESOURCE_PLAN,
	RIG_RESOURCE_LOCK,
	RIG_RESOURCE_RECEIPT,
};

/* Sets out to the id of the project that owns the resource `id` of `kind`
 * (a project owns itself); -RIG_NOT_FOUND when there is no such resource. */
int rig_resource_project(struct rig_tx *tx, enum rig_resource kind, const char *id,
			 char out[RIG_ID_MAX + 1]);

#endif
