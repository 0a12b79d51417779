/* Saved plans: a named list of ops for one shot with its own version
 * (planVersion, CAS on revision), an optional baseVersion pin, and a status
 * (draft, then applied and immutable). Functions return 0 or a negative enum
 * rig_code.
 */
#ifndef RIG_PLANS_H
#define RIG_PLANS_H

#include <stdbool.h>

#include "core/err.h"
#include "storage/store.h"

struct rig_plan {
	long long seq; /* paging cursor */
	char id[RIG_ID_MAX + 1];
	char shot_id[RIG_ID_MAX + 1];
	char *title; /* NULL when none */
	char *ops;   /* JSON text of the ops array */
	bool has_base_version;
	long long base_version;
	long long plan_version;
	bool applied;
	char author[RIG_ACTOR_MAX + 1];
	char receipt_id[RIG_ID_MAX + 1]; /* "" while a draft */
	char created_at[RIG_TIMESTAMP_MAX];
	char updated_at[RIG_TIMESTAMP_MAX];
};

void rig_plan_release(struct rig_plan *p);

/* Inserts a plan at planVersion 1, status draft. */
int rig_plan_insert(struct rig_tx *tx, const struct rig_plan *p);

/* Loads a plan; -RIG_NOT_FOUND when absent. Release with rig_plan_release(). */
int rig_plan_get(struct rig_tx *tx, const char *id, struct rig_plan *out);

/* Replaces title, ops and base version and bumps planVersion, only while the plan
 * is a draft at expected_plan_version (-RIG_PLAN_VERSION_CONFLICT otherwise). */
int rig_plan_revise(struct rig_tx *tx, const struct rig_plan *p, long long expected_plan_version);

/* Marks a draft applied with its receipt. */
int rig_plan_mark_applied(struct rig_tx *tx, const char *id, const char *receipt_id);

/* Deletes a plan; -RIG_NOT_FOUND when absent. */
int rig_plan_delete(struct rig_tx *tx, const char *id);

typedef int (*rig_plan_fn)(void *ctx, const struct rig_plan *p);

/* Walks up to limit plans of a shot with seq > after_seq, oldest first. */
int rig_plan_list(struct rig_tx *tx, const char *shot_id, long long after_seq, size_t limit,
		  rig_plan_fn fn, void *ctx);

#endif
