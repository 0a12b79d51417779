/* The list of binding kinds of binding.h, as a table. */
#include "core/binding.h"

#include <string.h>

#define ROW(k) &rig_binding_##k,
const struct rig_binding_type *const rig_binding_types[] = {RIG_BINDING_KINDS(ROW)};
#undef ROW

const size_t rig_binding_n_types = sizeof rig_binding_types / sizeof rig_binding_types[0];

const struct rig_binding_type *rig_binding_type_find(const char *name)
{
	for (size_t i = 0; i < rig_binding_n_types; i++)
		if (strcmp(rig_binding_types[i]->name, name) == 0)
			return rig_binding_types[i];
	return NULL;
}
