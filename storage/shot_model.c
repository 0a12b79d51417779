/* The in-memory shot of shot_model.h: lookups, key lists and the scene view. */
#include "storage/shot_model.h"

#include <stdlib.h>
#include <string.h>

static void layer_release(struct rig_model_layer *l)
{
	free(l->name);
	for (int c = 0; c < RIG_CH_COUNT; c++)
		free(l->keys[c].items);
	if (l->binding.type)
		l->binding.type->def_free(l->binding.def);
	memset(l, 0, sizeof *l);
}

void rig_model_binding_set(struct rig_model_layer *l, const struct rig_binding_type *type,
			   void *def)
{
	if (l->binding.type)
		l->binding.type->def_free(l->binding.def);
	l->binding.type = type;
	l->binding.def = def;
	l->binding.loaded = type != NULL;
	l->binding.dirty = true;
}

/* ---- the id index: lookups stay O(1) in shots of thousands of layers ---- */

static size_t id_hash(const char *id)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 1099511628211ull;
	return (size_t)h;
}

static void index_insert(struct rig_shot_model *m, size_t layer)
{
	size_t mask = m->n_slots - 1;
	size_t at = id_hash(m->layers[layer].id) & mask;
	while (m->slots[at])
		at = (at + 1) & mask;
	m->slots[at] = (uint32_t)(layer + 1);
}

/* Rebuilds the index over the live layers, sized for n_layers; without memory
 * the index is dropped and lookups scan. */
static void index_rebuild(struct rig_shot_model *m)
{
	size_t n = 16;
	while (n < 2 * (m->n_layers + 1))
		n *= 2;
	free(m->slots);
	m->slots = calloc(n, sizeof *m->slots);
	m->n_slots = m->slots ? n : 0;
	for (size_t i = 0; m->slots && i < m->n_layers; i++)
		if (!m->layers[i].deleted)
			index_insert(m, i);
}

void rig_model_constraint_release(struct rig_model_constraint *c)
{
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		free(c->keys[ch].items);
	memset(c, 0, sizeof *c);
}

long rig_shot_model_constraint_index(const struct rig_shot_model *m, const char *id)
{
	for (size_t i = 0; i < m->n_constraints; i++)
		if (strcmp(m->constraints[i].c.id, id) == 0)
			return (long)i;
	return -1;
}

int rig_shot_model_constraint_put(struct rig_shot_model *m, struct rig_model_constraint *c)
{
	long at = rig_shot_model_constraint_index(m, c->c.id);
	if (at >= 0) {
		rig_model_constraint_release(&m->constraints[at]);
	} else {
		if (m->n_constraints == m->cap_constraints) {
			size_t cap = m->cap_constraints ? 2 * m->cap_constraints : 4;
			void *grown = realloc(m->constraints, cap * sizeof *m->constraints);
			if (!grown)
				return -1;
			m->constraints = grown;
			m->cap_constraints = cap;
		}
		at = 0; /* keep the list sorted by id */
		while ((size_t)at < m->n_constraints &&
		       strcmp(m->constraints[at].c.id, c->c.id) < 0)
			at++;
		memmove(&m->constraints[at + 1], &m->constraints[at],
			(m->n_constraints - (size_t)at) * sizeof *m->constraints);
		m->n_constraints++;
	}
	m->constraints[at] = *c;
	memset(c, 0, sizeof *c);
	m->constraints_dirty = true;
	return 0;
}

bool rig_shot_model_constraint_delete(struct rig_shot_model *m, const char *id)
{
	long at = rig_shot_model_constraint_index(m, id);
	if (at < 0)
		return false;
	rig_model_constraint_release(&m->constraints[at]);
	memmove(&m->constraints[at], &m->constraints[at + 1],
		(m->n_constraints - (size_t)at - 1) * sizeof *m->constraints);
	m->n_constraints--;
	m->constraints_dirty = true;
	return true;
}

void rig_shot_model_release(struct rig_shot_model *m)
{
	for (size_t i = 0; i < m->n_constraints; i++)
		rig_model_constraint_release(&m->constraints[i]);
	free(m->constraints);
	for (size_t i = 0; i < m->n_layers; i++)
		layer_release(&m->layers[i]);
	free(m->layers);
	free(m->slots);
	free(m->name);
	memset(m, 0, sizeof *m);
}

size_t rig_shot_model_bytes(const struct rig_shot_model *m)
{
	size_t bytes =
		sizeof *m + m->cap_layers * sizeof *m->layers + m->n_slots * sizeof *m->slots;
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		bytes += strlen(l->name) + 1;
		if (l->binding.type)
			bytes += l->binding.type->def_bytes(l->binding.def);
		for (int c = 0; c < RIG_CH_COUNT; c++)
			bytes += l->keys[c].cap * sizeof *l->keys[c].items;
	}
	bytes += m->cap_constraints * sizeof *m->constraints;
	for (size_t i = 0; i < m->n_constraints; i++)
		for (int c = 0; c < RIG_CH_COUNT; c++)
			bytes += m->constraints[i].keys[c].cap * sizeof(struct rig_key);
	return bytes;
}

void rig_shot_model_settle(struct rig_shot_model *m, long long committed_version)
{
	m->version = committed_version;
	size_t kept = 0;
	/* The next creation order as a load from storage computes it (the live
	 * layers' greatest + 1), so a cached model and a loaded one agree. */
	m->next_ord = 0;
	for (size_t i = 0; i < m->n_layers; i++) {
		struct rig_model_layer *l = &m->layers[i];
		if (l->deleted) {
			layer_release(l);
			continue;
		}
		if (l->ord >= m->next_ord)
			m->next_ord = l->ord + 1;
		struct rig_model_binding *b = &l->binding;
		if (b->dirty && b->type) {
			b->n_verts = b->type->def_n_verts(b->def);
			b->n_tris = b->type->def_n_tris(b->def);
			b->revision = committed_version;
		}
		l->is_new = l->dirty = b->dirty = false;
		if (kept != i)
			m->layers[kept] = *l;
		kept++;
	}
	m->n_layers = kept;
	m->constraints_dirty = false;
	index_rebuild(m);
}

static int by_ord(const void *a, const void *b)
{
	long long x = ((const struct rig_model_layer *)a)->ord;
	long long y = ((const struct rig_model_layer *)b)->ord;
	return (x > y) - (x < y);
}

void rig_shot_model_sort(struct rig_shot_model *m)
{
	if (m->n_layers > 1)
		qsort(m->layers, m->n_layers, sizeof *m->layers, by_ord);
	index_rebuild(m);
}

long rig_shot_model_index(const struct rig_shot_model *m, const char *id)
{
	if (!m->slots) {
		for (size_t i = 0; i < m->n_layers; i++)
			if (!m->layers[i].deleted && strcmp(m->layers[i].id, id) == 0)
				return (long)i;
		return -1;
	}
	/* Deleted layers keep their slots until the next rebuild: skip them. */
	size_t mask = m->n_slots - 1;
	for (size_t at = id_hash(id) & mask; m->slots[at]; at = (at + 1) & mask) {
		const struct rig_model_layer *l = &m->layers[m->slots[at] - 1];
		if (!l->deleted && strcmp(l->id, id) == 0)
			return (long)(m->slots[at] - 1);
	}
	return -1;
}

struct rig_model_layer *rig_shot_model_find(struct rig_shot_model *m, const char *id)
{
	long i = rig_shot_model_index(m, id);
	return i < 0 ? NULL : &m->layers[i];
}

struct rig_model_layer *rig_shot_model_add(struct rig_shot_model *m, const char *id,
					   const char *name, enum rig_layer_kind kind,
					   const char *parent_id)
{
	if (m->n_layers == m->cap_layers) {
		size_t cap = m->cap_layers ? 2 * m->cap_layers : 16;
		struct rig_model_layer *grown = realloc(m->layers, cap * sizeof *grown);
		if (!grown)
			return NULL;
		m->layers = grown;
		m->cap_layers = cap;
	}
	char *name_copy = strdup(name);
	if (!name_copy)
		return NULL;
	struct rig_model_layer *l = &m->layers[m->n_layers++];
	memset(l, 0, sizeof *l);
	rig_strlcpy(l->id, id, sizeof l->id);
	l->name = name_copy;
	l->kind = kind;
	rig_strlcpy(l->parent_id, parent_id ? parent_id : "", sizeof l->parent_id);
	l->ord = m->next_ord++;
	l->statics = rig_transform_default();
	l->is_new = true;
	l->dirty = true;
	if (2 * (m->n_layers + 1) > m->n_slots)
		index_rebuild(m);
	else
		index_insert(m, m->n_layers - 1);
	return l;
}

int rig_key_list_put(struct rig_key_list *list, const struct rig_key *key)
{
	size_t lo = 0, hi = list->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (list->items[mid].frame < key->frame)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < list->count && list->items[lo].frame == key->frame) {
		list->items[lo] = *key;
		return 0;
	}
	if (list->count == list->cap) {
		size_t cap = list->cap ? 2 * list->cap : 4;
		struct rig_key *grown = realloc(list->items, cap * sizeof *grown);
		if (!grown)
			return -1;
		list->items = grown;
		list->cap = cap;
	}
	memmove(&list->items[lo + 1], &list->items[lo], (list->count - lo) * sizeof *list->items);
	list->items[lo] = *key;
	list->count++;
	return 0;
}

bool rig_key_list_delete(struct rig_key_list *list, double frame)
{
	for (size_t i = 0; i < list->count; i++) {
		if (list->items[i].frame == frame) {
			memmove(&list->items[i], &list->items[i + 1],
				(list->count - i - 1) * sizeof *list->items);
			list->count--;
			return true;
		}
	}
	return false;
}

void rig_scene_view_release(struct rig_scene_view *v)
{
	free(v->layers);
	free(v->index_of);
	free(v->joint_layers);
	free(v->constraints);
	memset(v, 0, sizeof *v);
}

/* The scene index of live layer id, RIG_NO_LAYER when there is none. */
static long scene_index(const struct rig_scene_view *v, const struct rig_shot_model *m,
			const char *id)
{
	long i = rig_shot_model_index(m, id);
	return i < 0 || v->index_of[i] < 0 ? RIG_NO_LAYER : v->index_of[i];
}

int rig_scene_view_init(struct rig_scene_view *out, const struct rig_shot_model *m)
{
	memset(out, 0, sizeof *out);
	size_t n_live = 0, n_joints = 0;
	for (size_t i = 0; i < m->n_layers; i++) {
		if (m->layers[i].deleted)
			continue;
		n_live++;
		const struct rig_model_binding *b = &m->layers[i].binding;
		if (b->type)
			n_joints += b->type->def_n_joints(b->def);
	}
	out->layers = calloc(n_live ? n_live : 1, sizeof *out->layers);
	out->index_of = calloc(m->n_layers ? m->n_layers : 1, sizeof *out->index_of);
	out->joint_layers = calloc(n_joints ? n_joints : 1, sizeof *out->joint_layers);
	out->constraints =
		calloc(m->n_constraints ? m->n_constraints : 1, sizeof *out->constraints);
	if (!out->layers || !out->index_of || !out->joint_layers || !out->constraints)
		goto fail;
	size_t k = 0;
	for (size_t i = 0; i < m->n_layers; i++)
		out->index_of[i] = m->layers[i].deleted ? -1 : (long)k++;
	long *joint_cursor = out->joint_layers;
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *ml = &m->layers[i];
		if (ml->deleted)
			continue;
		struct rig_layer *l = &out->layers[out->index_of[i]];
		memcpy(l->id, ml->id, sizeof l->id);
		l->kind = ml->kind;
		l->parent = RIG_NO_LAYER;
		if (ml->parent_id[0]) {
			long p = rig_shot_model_index(m, ml->parent_id);
			if (p < 0)
				goto fail;
			l->parent = out->index_of[p];
		}
		l->statics = ml->statics;
		for (int c = 0; c < RIG_CH_COUNT; c++) {
			l->keys[c].items = ml->keys[c].items;
			l->keys[c].count = ml->keys[c].count;
		}
		l->time_offset = ml->time_offset;
		const struct rig_model_binding *b = &ml->binding;
		l->deformed = b->type != NULL;
		if (b->type) {
			l->joint_layers = joint_cursor;
			size_t n_mapped = b->type->def_n_joints(b->def);
			for (size_t j = 0; j < n_mapped; j++) {
				long jl = rig_shot_model_index(m,
							       b->type->def_joint_layer(b->def, j));
				*joint_cursor++ = jl < 0 ? RIG_NO_LAYER : out->index_of[jl];
			}
		}
	}
	for (size_t i = 0; i < m->n_constraints; i++) {
		const struct rig_model_constraint *mc = &m->constraints[i];
		struct rig_constraint *c = &out->constraints[i];
		*c = mc->c;
		for (size_t j = 0; j < c->n_chain && j < RIG_CONSTRAINT_MAX_CHAIN; j++)
			c->chain[j] = scene_index(out, m, c->chain_ids[j]);
		c->target = scene_index(out, m, c->target_id);
		c->pole = c->pole_id[0] ? scene_index(out, m, c->pole_id) : RIG_NO_LAYER;
		for (size_t f = 0; f < c->walk.n_feet; f++) /* scene order is the model's */
			c->walk.ik[f] = rig_shot_model_constraint_index(m, c->walk.ik_ids[f]);
		for (int ch = 0; ch < RIG_CC_COUNT; ch++) {
			c->keys[ch].items = mc->keys[ch].items;
			c->keys[ch].count = mc->keys[ch].count;
		}
	}
	out->scene.layers = out->layers;
	out->scene.n_layers = n_live;
	out->scene.constraints = out->constraints;
	out->scene.n_constraints = m->n_constraints;
	out->scene.frame_start = m->frame_start;
	return 0;
fail:
	rig_scene_view_release(out);
	return -1;
}
