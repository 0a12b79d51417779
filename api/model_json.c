/* JSON of the shot model: a layer (transform, keys, binding summary) and a shot
 * with its layer tree listed depth-first, parents before children, siblings in
 * creation order.
 */
#include <stdlib.h>
#include <string.h>

#include "api.h"

static json_t *pair(double x, double y) { return json_pack("[f, f]", x, y); }

static json_t *transform_json(const struct rig_transform *t)
{
	return json_pack("{s:o, s:f, s:o, s:o}", "position",
			 pair(t->ch[RIG_CH_POSITION_X], t->ch[RIG_CH_POSITION_Y]), "rotation",
			 t->ch[RIG_CH_ROTATION], "scale",
			 pair(t->ch[RIG_CH_SCALE_X], t->ch[RIG_CH_SCALE_Y]), "pivot",
			 pair(t->ch[RIG_CH_PIVOT_X], t->ch[RIG_CH_PIVOT_Y]));
}

static json_t *key_json(const struct rig_key *k)
{
	json_t *o = json_pack("{s:f, s:f, s:s}", "frame", k->frame, "value", k->value, "interp",
			      rig_interp_name(k->interp));
	if (k->interp == RIG_INTERP_BEZIER)
		json_object_set_new(o, "ease",
				    json_pack("[f, f, f, f]", k->ease[0], k->ease[1], k->ease[2],
					      k->ease[3]));
	return o;
}

static json_t *binding_json(const struct rig_model_layer *l)
{
	if (l->binding != RIG_BINDING_SKIN)
		return json_null();
	size_t n_verts = l->skin_loaded || l->binding_dirty ? l->skin.n_verts : l->skin_n_verts;
	size_t n_tris = l->skin_loaded || l->binding_dirty ? l->skin.n_tris : l->skin_n_tris;
	return json_pack("{s:s, s:I, s:I, s:I}", "kind", "skin", "vertexCount", (json_int_t)n_verts,
			 "triangleCount", (json_int_t)n_tris, "jointCount",
			 (json_int_t)l->skin.n_joints);
}

json_t *rig_api__layer_json(const struct rig_model_layer *l, bool with_keys)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:o, s:f, s:o}", "layerId", l->id, "name",
			      l->name, "kind", l->kind == RIG_LAYER_MESH ? "mesh" : "group",
			      "parentId", l->parent_id[0] ? json_string(l->parent_id) : json_null(),
			      "transform", transform_json(&l->statics), "timeOffset",
			      l->time_offset, "binding", binding_json(l));
	size_t n_keys = 0;
	json_t *keys = json_object();
	for (int c = 0; c < RIG_CH_COUNT; c++) {
		n_keys += l->keys[c].count;
		if (!with_keys || l->keys[c].count == 0)
			continue;
		json_t *list = json_array();
		for (size_t i = 0; i < l->keys[c].count; i++)
			json_array_append_new(list, key_json(&l->keys[c].items[i]));
		json_object_set_new(keys, rig_channel_name((enum rig_channel)c), list);
	}
	if (with_keys)
		json_object_set_new(o, "keys", keys);
	else
		json_decref(keys);
	json_object_set_new(o, "keyCount", json_integer((json_int_t)n_keys));
	return o;
}

/* Appends layer i and its subtree to list; children are the live layers whose
 * parent is i, in m->layers (creation) order. depth guards a corrupt tree. */
static void append_subtree(json_t *list, const struct rig_shot_model *m, size_t i, size_t depth)
{
	const struct rig_model_layer *l = &m->layers[i];
	json_t *o = rig_api__layer_json(l, false);
	json_t *children = json_array();
	json_object_set_new(o, "children", children);
	json_object_set_new(o, "depth", json_integer((json_int_t)depth));
	json_array_append_new(list, o);
	if (depth > m->n_layers)
		return;
	for (size_t k = 0; k < m->n_layers; k++) {
		const struct rig_model_layer *c = &m->layers[k];
		if (c->deleted || strcmp(c->parent_id, l->id) != 0)
			continue;
		json_array_append_new(children, json_string(c->id));
		append_subtree(list, m, k, depth + 1);
	}
}

json_t *rig_api__shot_json(const struct rig_shot_model *m)
{
	json_t *layers = json_array();
	for (size_t i = 0; i < m->n_layers; i++)
		if (!m->layers[i].deleted && !m->layers[i].parent_id[0])
			append_subtree(layers, m, i, 0);
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:I, s:o}", "shotId", m->id, "projectId",
			 m->project_id, "name", m->name, "fps", m->fps, "frameStart",
			 m->frame_start, "frameEnd", m->frame_end, "version",
			 (json_int_t)m->version, "layers", layers);
}
