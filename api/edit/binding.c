/* What every binding kind's row shares above the core (binding.h): the
 * lookups in the table (binding_table.c), the collection names, the summary's
 * counts, the vertices and triangles collections. */
#include "api/edit/binding.h"

#include <string.h>

const struct rig_binding_kind *rig_binding_kind_of(const struct rig_binding_type *type)
{
	for (size_t i = 0; type && i < rig_binding_n_kinds; i++)
		if (rig_binding_kinds[i]->type == type)
			return rig_binding_kinds[i];
	return NULL;
}

const struct rig_binding_collection *
rig_binding_collection_find(const struct rig_binding_kind *kind, const char *name)
{
	for (size_t i = 0; kind && i < kind->n_collections; i++)
		if (strcmp(kind->collections[i].name, name) == 0)
			return &kind->collections[i];
	return NULL;
}

size_t rig_binding_collection_names(const char *out[RIG_BINDING_MAX_COLLECTIONS])
{
	size_t n = 0;
	for (size_t k = 0; k < rig_binding_n_kinds; k++)
		for (size_t c = 0; c < rig_binding_kinds[k]->n_collections; c++) {
			const char *name = rig_binding_kinds[k]->collections[c].name;
			size_t i = 0;
			while (i < n && strcmp(out[i], name) != 0)
				i++;
			if (i == n && n < RIG_BINDING_MAX_COLLECTIONS)
				out[n++] = name;
		}
	return n;
}

json_t *rig_binding_summary_counts(const struct rig_model_layer *l, const char *count_name,
				   size_t count)
{
	const struct rig_model_binding *b = &l->binding;
	bool held = b->loaded || b->dirty;
	size_t n_verts = held ? b->type->def_n_verts(b->def) : b->n_verts;
	size_t n_tris = held ? b->type->def_n_tris(b->def) : b->n_tris;
	return json_pack("{s:s, s:I, s:I, s:I}", "kind", b->type->name, "vertexCount",
			 (json_int_t)n_verts, "triangleCount", (json_int_t)n_tris, count_name,
			 (json_int_t)count);
}

size_t rig_binding_count_verts(const struct rig_binding_type *type, const void *def)
{
	return type->def_n_verts(def);
}

size_t rig_binding_count_tris(const struct rig_binding_type *type, const void *def)
{
	return type->def_n_tris(def);
}

void rig_binding_encode_vertex(struct rig_buf *b, const struct rig_binding_type *type,
			       const void *def, const double *xy, size_t i)
{
	(void)type;
	(void)def;
	rig_buf_printf(b, "{\"vertexIndex\":%zu,\"x\":", i);
	rig_buf_double(b, xy[2 * i]);
	rig_buf_puts(b, ",\"y\":");
	rig_buf_double(b, xy[2 * i + 1]);
	rig_buf_puts(b, "}");
}

size_t rig_binding_count_uvs(const struct rig_binding_type *type, const void *def)
{
	return type->def_uvs(def) ? type->def_n_verts(def) : 0;
}

void rig_binding_encode_uv(struct rig_buf *b, const struct rig_binding_type *type, const void *def,
			   const double *xy, size_t i)
{
	const double *uvs = type->def_uvs(def);
	(void)xy;
	rig_buf_printf(b, "{\"vertexIndex\":%zu,\"u\":", i);
	rig_buf_double(b, uvs[2 * i]);
	rig_buf_puts(b, ",\"v\":");
	rig_buf_double(b, uvs[2 * i + 1]);
	rig_buf_puts(b, "}");
}

void rig_binding_encode_triangle(struct rig_buf *b, const struct rig_binding_type *type,
				 const void *def, const double *xy, size_t i)
{
	const uint32_t *tris = type->def_triangles(def);
	(void)xy;
	rig_buf_printf(b, "{\"triangleIndex\":%zu,\"indices\":[%u,%u,%u]}", i, tris[3 * i],
		       tris[3 * i + 1], tris[3 * i + 2]);
}
