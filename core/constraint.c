/* Constraint names (constraint.h); the rules against the tree are in
 * rig_constraints.c. */
#include "core/constraint.h"
const char *rig_constraint_channel_name(int ch)
{
	static const char *const names[RIG_CC_COUNT] = {"mix", "softness"};
	return ch >= 0 && ch < RIG_CC_COUNT ? names[ch] : NULL;
}
