/* What every binding kind shares (binding.h): the lookup in the table
 * (binding_table.c), the joints of a kind that follows none, the copy through
 * the stored form and the diff's source and triangles parts. */
#include "core/binding.h"

#include <stdlib.h>
#include <string.h>

const struct rig_binding_type *rig_binding_type_find(const char *name)
{
	for (size_t i = 0; i < rig_binding_n_types; i++)
		if (strcmp(rig_binding_types[i]->name, name) == 0)
			return rig_binding_types[i];
	return NULL;
}

size_t rig_binding_no_joints(const void *def)
{
	(void)def;
	return 0;
}

const char *rig_binding_no_joint(const void *def, size_t j)
{
	(void)def;
	(void)j;
	return "";
}

void *rig_binding_def_copy(const struct rig_binding_type *type, const void *def)
{
	if (type->def_copy)
		return type->def_copy(def);
	if (!type->encode || !type->decode)
		return NULL;
	unsigned char *head = NULL, *arrays = NULL;
	size_t n_head = 0, n_arrays = 0;
	void *copy = NULL;
	if (type->encode(def, &head, &n_head, &arrays, &n_arrays) == 0)
		copy = type->decode(head, n_head, arrays, n_arrays);
	free(head);
	free(arrays);
	return copy;
}

int rig_binding_diff_source(struct rig_part_diff *out, const struct rig_binding_type *type,
			    const void *a, const void *b)
{
	const double *sa = type->def_source(a), *sb = type->def_source(b);
	if (!sa || !sb)
		return 0;
	return rig_runs_compare(&out->runs, sa, type->def_n_verts(a), sb, type->def_n_verts(b),
				2 * sizeof *sa);
}

int rig_binding_diff_uvs(struct rig_part_diff *out, const struct rig_binding_type *type,
			 const void *a, const void *b)
{
	if (!type->def_source(a) || !type->def_source(b)) /* arrays not loaded */
		return 0;
	const double *ua = type->def_uvs(a), *ub = type->def_uvs(b);
	return rig_runs_compare(&out->runs, ua, ua ? type->def_n_verts(a) : 0, ub,
				ub ? type->def_n_verts(b) : 0, 2 * sizeof(double));
}

int rig_binding_diff_triangles(struct rig_part_diff *out, const struct rig_binding_type *type,
			       const void *a, const void *b)
{
	const uint32_t *ta = type->def_triangles(a), *tb = type->def_triangles(b);
	if (!ta || !tb)
		return 0;
	return rig_runs_compare(&out->runs, ta, type->def_n_tris(a), tb, type->def_n_tris(b),
				3 * sizeof *ta);
}
