/* The list of binding kinds of binding.h, as a table. */
#include "core/binding.h"

#include <stdlib.h>
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

void *rig_binding_def_copy(const struct rig_binding_type *type, const void *def)
{
	if (type->def_copy)
		return type->def_copy(def);
	if (!type->encode || !type->decode)
		return NULL;
	unsigned char *head = NULL, *mesh = NULL;
	size_t n_head = 0, n_mesh = 0;
	void *copy = NULL;
	if (type->encode(def, &head, &n_head, &mesh, &n_mesh) == 0)
		copy = type->decode(head, n_head, mesh, n_mesh);
	free(head);
	free(mesh);
	return copy;
}
