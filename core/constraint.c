/* Constraint names (constraint.h); the rules against the tree are in
 * rig_constraints.c. */
#include "core/constraint.h"

#include <string.h>

static const struct {
	const char *name;
	size_t min_chain, max_chain;
} kinds[RIG_CONSTRAINT_KIND_COUNT] = {
	[RIG_CONSTRAINT_IK] = {"ik", 1, RIG_IK_MAX_BONES},
	[RIG_CONSTRAINT_CHAIN] = {"chain", RIG_FOLLOW_MIN_LINKS, RIG_CONSTRAINT_MAX_CHAIN},
	[RIG_CONSTRAINT_FOOTSTEP] = {"footstep", 0, 0},
};

const char *rig_constraint_kind_name(enum rig_constraint_kind kind)
{
	return kind < RIG_CONSTRAINT_KIND_COUNT ? kinds[kind].name : NULL;
}

enum rig_constraint_kind rig_constraint_kind_of(const char *name)
{
	int k = 0;
	while (k < RIG_CONSTRAINT_KIND_COUNT && strcmp(kinds[k].name, name) != 0)
		k++;
	return (enum rig_constraint_kind)k;
}

size_t rig_constraint_min_chain(enum rig_constraint_kind kind)
{
	return kinds[kind].min_chain;
}

size_t rig_constraint_max_chain(enum rig_constraint_kind kind)
{
	return kinds[kind].max_chain;
}

const char *rig_constraint_channel_name(int ch)
{
	static const char *const names[RIG_CC_COUNT] = {"mix", "softness"};
	return ch >= 0 && ch < RIG_CC_COUNT ? names[ch] : NULL;
}
