/* JSON of the shot model: a layer (transform, keys, binding summary) and a shot
 * with its layer tree listed depth-first, parents before children, siblings in
 * creation order, and its constraints in the order they apply.
 */
#include <stdlib.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/handlers/handlers.h"
#include "api/http/request.h"

static json_t *pair(double x, double y)
{
	return json_pack("[f, f]", x, y);
}

static json_t *transform_json(const struct rig_transform *t)
{
	return json_pack("{s:o, s:f, s:o, s:o}", "position",
			 pair(t->ch[RIG_CH_POSITION_X], t->ch[RIG_CH_POSITION_Y]), "rotation",
			 t->ch[RIG_CH_ROTATION], "scale",
			 pair(t->ch[RIG_CH_SCALE_X], t->ch[RIG_CH_SCALE_Y]), "pivot",
			 pair(t->ch[RIG_CH_PIVOT_X], t->ch[RIG_CH_PIVOT_Y]));
}

json_t *rig_api__key_json(const struct rig_key *k)
{
	json_t *o = json_pack("{s:f, s:f, s:s}", "frame", k->frame, "value", k->value, "interp",
			      rig_interp_name(k->interp));
	if (k->interp == RIG_INTERP_BEZIER)
		json_object_set_new(
			o, "ease",
			json_pack("[f, f, f, f]", k->ease[0], k->ease[1], k->ease[2], k->ease[3]));
	return o;
}

/* The binding's summary, as its kind writes it; null for an unbound layer. */
static json_t *binding_json(const struct rig_model_layer *l)
{
	const struct rig_binding_kind *kind = rig_binding_kind_of(l->binding.type);
	return kind ? kind->summary(l) : json_null();
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
			json_array_append_new(list, rig_api__key_json(&l->keys[c].items[i]));
		json_object_set_new(keys, rig_channel_name((enum rig_channel)c), list);
	}
	if (with_keys)
		json_object_set_new(o, "keys", keys);
	else
		json_decref(keys);
	json_object_set_new(o, "keyCount", json_integer((json_int_t)n_keys));
	return o;
}

static json_t *keyable_json(const struct rig_model_constraint *mc, int ch)
{
	const struct rig_key_list *keys = &mc->keys[ch];
	if (keys->count == 0)
		return json_real(mc->c.statics[ch]);
	json_t *list = json_array();
	for (size_t i = 0; i < keys->count; i++)
		json_array_append_new(list, rig_api__key_json(&keys->items[i]));
	return list;
}

/* A follow chain's listing: the common fields and its own. */
static json_t *follow_json(const struct rig_model_constraint *mc, json_t *chain)
{
	const struct rig_constraint *c = &mc->c;
	json_t *lengths = json_array();
	for (size_t i = 0; i + 1 < c->n_chain; i++)
		json_array_append_new(lengths, json_real(c->follow.lengths[i]));
	json_t *o = json_pack("{s:s, s:s, s:o, s:s, s:o, s:f, s:i, s:o, s:I}", "constraintId",
			      c->id, "kind", rig_constraint_kind_name(c->kind), "chain", chain,
			      "target", c->target_id, "lengths", lengths, "smoothing",
			      c->follow.smoothing, "substeps", c->follow.substeps, "mix",
			      keyable_json(mc, RIG_CC_MIX), "order", (json_int_t)c->order);
	if (o && c->follow.has_max_angle)
		json_object_set_new(o, "maxAngleDeg", json_real(c->follow.max_angle_deg));
	return o;
}

/* A walker's listing: body, feet, gait (as groups of foot indices), steps. */
static json_t *walk_json(const struct rig_model_constraint *mc)
{
	const struct rig_constraint *c = &mc->c;
	const struct rig_footstep_spec *w = &c->walk;
	json_t *feet = json_array(), *gait = json_array();
	int groups = 0;
	for (size_t f = 0; f < w->n_feet; f++) {
		json_array_append_new(feet,
				      json_pack("{s:s, s:[f, f]}", "ikConstraintId", w->ik_ids[f],
						"rest", w->rest[f][0], w->rest[f][1]));
		groups = w->group[f] + 1 > groups ? w->group[f] + 1 : groups;
	}
	for (int g = 0; g < groups; g++) {
		json_t *group = json_array();
		for (size_t f = 0; f < w->n_feet; f++)
			if (w->group[f] == g)
				json_array_append_new(group, json_integer((json_int_t)f));
		json_array_append_new(gait, group);
	}
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:f, s:i, s:f, s:o, s:I}", "constraintId",
			 c->id, "kind", rig_constraint_kind_name(c->kind), "body", c->target_id,
			 "feet", feet, "gait", gait, "stepThreshold", w->threshold, "stepFrames",
			 w->step_frames, "stepHeight", w->height, "mix",
			 keyable_json(mc, RIG_CC_MIX), "order", (json_int_t)c->order);
}

json_t *rig_api__constraint_json(const struct rig_model_constraint *mc)
{
	const struct rig_constraint *c = &mc->c;
	json_t *chain = json_array();
	for (size_t i = 0; i < c->n_chain; i++)
		json_array_append_new(chain, json_string(c->chain_ids[i]));
	if (c->kind == RIG_CONSTRAINT_CHAIN)
		return follow_json(mc, chain);
	if (c->kind == RIG_CONSTRAINT_FOOTSTEP) {
		json_decref(chain);
		return walk_json(mc);
	}
	json_t *limits = json_null();
	if (c->has_limits) {
		limits = json_array();
		for (size_t i = 0; i < c->n_chain; i++)
			json_array_append_new(
				limits, json_pack("[f, f]", c->limits[i][0], c->limits[i][1]));
	}
	return json_pack("{s:s, s:s, s:o, s:s, s:o, s:b, s:f, s:o, s:o, s:b, s:b, s:I, s:o}",
			 "constraintId", c->id, "kind", rig_constraint_kind_name(c->kind), "chain",
			 chain, "target", c->target_id, "pole",
			 c->pole_id[0] ? json_string(c->pole_id) : json_null(), "bendPositive",
			 c->bend >= 0, "tipLength", c->tip_length, "mix",
			 keyable_json(mc, RIG_CC_MIX), "softness",
			 keyable_json(mc, RIG_CC_SOFTNESS), "stretch", c->stretch, "compress",
			 c->compress, "order", (json_int_t)c->order, "limits", limits);
}

static int by_order(const void *a, const void *b)
{
	const struct rig_constraint *x = &(*(const struct rig_model_constraint *const *)a)->c;
	const struct rig_constraint *y = &(*(const struct rig_model_constraint *const *)b)->c;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The shot's constraints in the order the resolver applies them (order, then
 * id), each as GET …/constraints lists it. */
static json_t *constraints_json(const struct rig_shot_model *m)
{
	json_t *list = json_array();
	const struct rig_model_constraint **sorted =
		malloc((m->n_constraints ? m->n_constraints : 1) * sizeof *sorted);
	if (!sorted)
		return list;
	for (size_t i = 0; i < m->n_constraints; i++)
		sorted[i] = &m->constraints[i];
	qsort(sorted, m->n_constraints, sizeof *sorted, by_order);
	for (size_t i = 0; i < m->n_constraints; i++)
		json_array_append_new(list, rig_api__constraint_json(sorted[i]));
	free(sorted);
	return list;
}

/* Pushes the children of parent p (index n: the shot root) on the stack so the
 * first child is popped first. */
static void push_children(size_t *stack, size_t *top, const long *first, const long *next,
			  size_t *depth, long p, size_t child_depth)
{
	size_t from = *top;
	for (long c = first[p]; c >= 0; c = next[c]) {
		depth[c] = child_depth;
		stack[(*top)++] = (size_t)c;
	}
	for (size_t a = from, b = *top; b > a + 1; a++, b--) {
		size_t t = stack[a];
		stack[a] = stack[b - 1];
		stack[b - 1] = t;
	}
}

/* The shot with its layers depth-first: parents before children, siblings in
 * creation order. Children lists are built once (parent indices through the id
 * index) and the walk uses an explicit stack, so a deep or wide tree of many
 * thousands of layers costs O(n). */
json_t *rig_api__shot_json(const struct rig_shot_model *m)
{
	size_t n = m->n_layers;
	long *first = malloc((n + 1) * sizeof *first); /* first child, or -1 */
	long *next = malloc((n + 1) * sizeof *next);   /* next sibling, or -1 */
	long *last = malloc((n + 1) * sizeof *last);   /* last child, to append in order */
	size_t *stack = malloc((n + 1) * sizeof *stack);
	size_t *depth = malloc((n + 1) * sizeof *depth);
	json_t *layers = json_array();
	if (!first || !next || !last || !stack || !depth)
		goto out;
	for (size_t i = 0; i <= n; i++)
		first[i] = next[i] = last[i] = -1;
	for (size_t i = 0; i < n; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (l->deleted)
			continue;
		long p = l->parent_id[0] ? rig_shot_model_index(m, l->parent_id) : (long)n;
		if (p < 0)
			p = (long)n; /* a dangling parent cannot be stored; show it at the root */
		if (last[p] < 0)
			first[p] = (long)i;
		else
			next[last[p]] = (long)i;
		last[p] = (long)i;
	}
	size_t top = 0;
	push_children(stack, &top, first, next, depth, (long)n, 0);
	while (top) {
		size_t i = stack[--top];
		json_t *o = rig_api__layer_json(&m->layers[i], false);
		json_t *children = json_array();
		for (long c = first[i]; c >= 0; c = next[c])
			json_array_append_new(children, json_string(m->layers[c].id));
		json_object_set_new(o, "children", children);
		json_object_set_new(o, "depth", json_integer((json_int_t)depth[i]));
		json_array_append_new(layers, o);
		push_children(stack, &top, first, next, depth, (long)i, depth[i] + 1);
	}
out:
	free(first);
	free(next);
	free(last);
	free(stack);
	free(depth);
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:I, s:o, s:o}", "shotId", m->id,
			 "projectId", m->project_id, "name", m->name, "fps", m->fps, "frameStart",
			 m->frame_start, "frameEnd", m->frame_end, "version",
			 (json_int_t)m->version, "layers", layers, "constraints",
			 constraints_json(m));
}
