/* The comparison of two shot versions (model_diff.h). Numbers compare
 * exactly (bit for bit, as stored): a diff says what an edit wrote, not what
 * it changed by more than some tolerance.
 */
#include "api/eval/model_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mesh_binding.h"
#include "core/skin.h"

/* ---- growable lists ---- */

static bool grow(void **items, size_t *cap, size_t count, size_t size)
{
	if (count < *cap)
		return true;
	size_t n = *cap ? 2 * *cap : 16;
	void *p = realloc(*items, n * size);
	if (!p)
		return false;
	*items = p;
	*cap = n;
	return true;
}

/* Adds index i, which must be above every index added before. */
static int runs_add(struct rig_index_runs *r, size_t i)
{
	r->n_indices++;
	if (r->count && r->items[r->count - 1].last + 1 == i) {
		r->items[r->count - 1].last = i;
		return 0;
	}
	if (!grow((void **)&r->items, &r->cap, r->count, sizeof *r->items))
		return -1;
	r->items[r->count++] = (struct rig_index_run){i, i};
	return 0;
}

/* Adds the indices [first, end). */
static int runs_add_range(struct rig_index_runs *r, size_t first, size_t end)
{
	if (first >= end)
		return 0;
	if (runs_add(r, first))
		return -1;
	r->n_indices += end - 1 - first;
	r->items[r->count - 1].last = end - 1;
	return 0;
}

static int frames_add(struct rig_frame_list *l, double frame)
{
	if (!grow((void **)&l->items, &l->cap, l->count, sizeof *l->items))
		return -1;
	l->items[l->count++] = frame;
	return 0;
}

static int ids_add(struct rig_id_list *l, const char *id)
{
	if (!grow((void **)&l->items, &l->cap, l->count, sizeof *l->items))
		return -1;
	snprintf(l->items[l->count++], RIG_ID_MAX + 1, "%s", id);
	return 0;
}

static void key_diff_release(struct rig_key_diff *k)
{
	free(k->added.items);
	free(k->removed.items);
	free(k->changed.items);
}

static bool key_diff_any(const struct rig_key_diff *k)
{
	return k->added.count || k->removed.count || k->changed.count;
}

/* ---- keys ---- */

static bool same_doubles(const double *a, const double *b, size_t n)
{
	return memcmp(a, b, n * sizeof *a) == 0;
}

/* Everything a key holds besides its frame: value, interpolation, ease. */
static bool same_key(const struct rig_key *a, const struct rig_key *b)
{
	return same_doubles(&a->value, &b->value, 1) && a->interp == b->interp &&
	       same_doubles(a->ease, b->ease, 4);
}

/* Merges two lists sorted by frame. same(i, j) decides whether the keys at
 * one frame are equal; NULL compares with same_key. */
static int keys_compare(struct rig_key_diff *out, const struct rig_key *a, size_t na,
			const struct rig_key *b, size_t nb,
			bool (*same)(const void *ctx, size_t i, size_t j), const void *ctx)
{
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		int rc = 0;
		if (j == nb || (i < na && a[i].frame < b[j].frame)) {
			rc = frames_add(&out->removed, a[i++].frame);
		} else if (i == na || b[j].frame < a[i].frame) {
			rc = frames_add(&out->added, b[j++].frame);
		} else {
			bool eq = same ? same(ctx, i, j) && same_key(&a[i], &b[j])
				       : same_key(&a[i], &b[j]);
			if (!eq)
				rc = frames_add(&out->changed, a[i].frame);
			i++;
			j++;
		}
		if (rc)
			return -1;
	}
	return 0;
}

/* ---- layers ---- */

static unsigned layer_fields(const struct rig_model_layer *a, const struct rig_model_layer *b)
{
	unsigned f = 0;
	if (strcmp(a->name, b->name))
		f |= RIG_DIFF_F_NAME;
	if (a->kind != b->kind)
		f |= RIG_DIFF_F_KIND;
	if (strcmp(a->parent_id, b->parent_id))
		f |= RIG_DIFF_F_PARENT;
	if (!same_doubles(&a->time_offset, &b->time_offset, 1))
		f |= RIG_DIFF_F_TIME_OFFSET;
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		if (!same_doubles(&a->statics.ch[ch], &b->statics.ch[ch], 1))
			f |= RIG_DIFF_F_STATIC << ch;
	return f;
}

/* What can be said of two layers' bindings without their arrays. */
static void binding_head(struct rig_binding_diff *d, const struct rig_model_binding *a,
			 const struct rig_model_binding *b)
{
	d->kind_from = a && a->type ? a->type->name : NULL;
	d->kind_to = b && b->type ? b->type->name : NULL;
	d->n_verts_from = d->kind_from ? a->n_verts : 0;
	d->n_tris_from = d->kind_from ? a->n_tris : 0;
	d->n_verts_to = d->kind_to ? b->n_verts : 0;
	d->n_tris_to = d->kind_to ? b->n_tris : 0;
	if (!d->kind_from && !d->kind_to)
		d->change = RIG_BINDING_SAME;
	else if (!d->kind_from)
		d->change = RIG_BINDING_CREATED;
	else if (!d->kind_to)
		d->change = RIG_BINDING_DELETED;
	else if (a->type != b->type)
		d->change = RIG_BINDING_KIND;
	else if (a->revision != b->revision) {
		d->change = RIG_BINDING_CHANGED;
		d->needs_parts = true;
	}
}

static struct rig_layer_diff *record_add(struct rig_model_diff *out, const char *id,
					 enum rig_diff_change change, long from_index,
					 long to_index)
{
	if (!grow((void **)&out->layers, &out->cap_layers, out->n_layers, sizeof *out->layers))
		return NULL;
	struct rig_layer_diff *d = &out->layers[out->n_layers++];
	memset(d, 0, sizeof *d);
	snprintf(d->layer_id, sizeof d->layer_id, "%s", id);
	d->change = change;
	d->from_index = from_index;
	d->to_index = to_index;
	return d;
}

static int compare_layer(struct rig_model_diff *out, const struct rig_model_layer *a, long ia,
			 const struct rig_model_layer *b, long ib)
{
	struct rig_layer_diff *d = record_add(out, a->id, RIG_DIFF_CHANGED, ia, ib);
	if (!d)
		return -1;
	d->fields = layer_fields(a, b);
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		if (keys_compare(&d->keys[ch], a->keys[ch].items, a->keys[ch].count,
				 b->keys[ch].items, b->keys[ch].count, NULL, NULL))
			return -1;
	binding_head(&d->binding, &a->binding, &b->binding);
	if (rig_layer_diff_empty(d)) {
		out->n_layers--; /* nothing changed: no record (d owns nothing yet) */
		for (int ch = 0; ch < RIG_CH_COUNT; ch++)
			key_diff_release(&d->keys[ch]);
	}
	return 0;
}

/* ---- constraints ---- */

static bool same_key_lists(const struct rig_key_list *a, const struct rig_key_list *b)
{
	if (a->count != b->count)
		return false;
	for (size_t i = 0; i < a->count; i++)
		if (!same_doubles(&a->items[i].frame, &b->items[i].frame, 1) ||
		    !same_key(&a->items[i], &b->items[i]))
			return false;
	return true;
}

/* Every stored field of a constraint (not the scene indices a view fills). */
static bool same_constraint(const struct rig_model_constraint *x,
			    const struct rig_model_constraint *y)
{
	const struct rig_constraint *a = &x->c, *b = &y->c;
	if (a->n_chain != b->n_chain || strcmp(a->target_id, b->target_id) ||
	    strcmp(a->pole_id, b->pole_id) || a->bend != b->bend ||
	    !same_doubles(&a->tip_length, &b->tip_length, 1) ||
	    !same_doubles(a->statics, b->statics, RIG_CC_COUNT) || a->stretch != b->stretch ||
	    a->compress != b->compress || a->order != b->order)
		return false;
	for (size_t i = 0; i < a->n_chain; i++)
		if (strcmp(a->chain_ids[i], b->chain_ids[i]))
			return false;
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		if (!same_key_lists(&x->keys[ch], &y->keys[ch]))
			return false;
	return true;
}

/* Both lists are sorted by id (shot_model.h): one merge. */
static int compare_constraints(struct rig_model_diff *out, const struct rig_shot_model *from,
			       const struct rig_shot_model *to)
{
	size_t i = 0, j = 0, na = from->n_constraints, nb = to->n_constraints;
	while (i < na || j < nb) {
		int cmp = i == na   ? 1
			  : j == nb ? -1
				    : strcmp(from->constraints[i].c.id, to->constraints[j].c.id);
		int rc = 0;
		if (cmp < 0) {
			rc = ids_add(&out->constraints_deleted, from->constraints[i++].c.id);
		} else if (cmp > 0) {
			rc = ids_add(&out->constraints_created, to->constraints[j++].c.id);
		} else {
			if (!same_constraint(&from->constraints[i], &to->constraints[j]))
				rc = ids_add(&out->constraints_changed, from->constraints[i].c.id);
			i++;
			j++;
		}
		if (rc)
			return -1;
	}
	return 0;
}

int rig_model_diff_shots(struct rig_model_diff *out, const struct rig_shot_model *from,
			 const struct rig_shot_model *to)
{
	memset(out, 0, sizeof *out);
	/* rig_shot_model_find takes a mutable model only to hand one back. */
	struct rig_shot_model *mto = (struct rig_shot_model *)to;
	struct rig_shot_model *mfrom = (struct rig_shot_model *)from;
	for (size_t i = 0; i < from->n_layers; i++) {
		const struct rig_model_layer *a = &from->layers[i];
		if (a->deleted)
			continue;
		const struct rig_model_layer *b = rig_shot_model_find(mto, a->id);
		int rc;
		if (!b) {
			struct rig_layer_diff *d =
				record_add(out, a->id, RIG_DIFF_DELETED, (long)i, -1);
			rc = d ? 0 : -1;
			if (d)
				binding_head(&d->binding, &a->binding, NULL);
		} else {
			rc = compare_layer(out, a, (long)i, b, (long)(b - to->layers));
		}
		if (rc)
			return -1;
	}
	for (size_t j = 0; j < to->n_layers; j++) {
		const struct rig_model_layer *b = &to->layers[j];
		if (b->deleted || rig_shot_model_find(mfrom, b->id))
			continue;
		struct rig_layer_diff *d = record_add(out, b->id, RIG_DIFF_CREATED, -1, (long)j);
		if (!d)
			return -1;
		binding_head(&d->binding, NULL, &b->binding);
	}
	return compare_constraints(out, from, to);
}

/* ---- binding parts ---- */

/* Vertices (2 doubles each) or triangles (3 indices each) that differ, or
 * that exist in one version only. */
static int compare_rows(struct rig_index_runs *out, const void *a, size_t na, const void *b,
			size_t nb, size_t row_bytes)
{
	size_t n = na < nb ? na : nb;
	const unsigned char *pa = a, *pb = b;
	for (size_t i = 0; i < n; i++)
		if (memcmp(pa + i * row_bytes, pb + i * row_bytes, row_bytes) && runs_add(out, i))
			return -1;
	return runs_add_range(out, n, na > nb ? na : nb);
}

/* Vertex v's influences, joint ids resolved, equal as sets. */
static bool same_influences(const struct rig_skin_def *a, const struct rig_skin_def *b, size_t v)
{
	size_t a0 = a->weight_offsets[v], a1 = a->weight_offsets[v + 1];
	size_t b0 = b->weight_offsets[v], b1 = b->weight_offsets[v + 1];
	if (a1 - a0 != b1 - b0)
		return false;
	for (size_t i = a0; i < a1; i++) {
		const struct rig_skin_influence *x = &a->influences[i];
		bool found = false;
		for (size_t k = b0; k < b1 && !found; k++) {
			const struct rig_skin_influence *y = &b->influences[k];
			found = x->joint < a->n_joints && y->joint < b->n_joints &&
				!strcmp(a->joints[x->joint].id, b->joints[y->joint].id) &&
				same_doubles(&x->weight, &y->weight, 1);
		}
		if (!found)
			return false;
	}
	return true;
}

static int compare_weights(struct rig_index_runs *out, const struct rig_skin_def *a,
			   const struct rig_skin_def *b)
{
	size_t na = a->n_weight_lists, nb = b->n_weight_lists, n = na < nb ? na : nb;
	for (size_t v = 0; v < n; v++)
		if (!same_influences(a, b, v) && runs_add(out, v))
			return -1;
	return runs_add_range(out, n, na > nb ? na : nb);
}

/* Joints matched by id: the layer each follows and (skins) its bind. */
static int compare_joints(struct rig_binding_diff *d, const struct rig_binding_type *t,
			  const void *a, const void *b)
{
	bool skin = t == &rig_binding_skin;
	size_t na = t->def_n_joints(a), nb = t->def_n_joints(b);
	for (size_t i = 0; i < na; i++) {
		const char *id = t->def_joint_id(a, i);
		size_t j = 0;
		while (j < nb && strcmp(id, t->def_joint_id(b, j)))
			j++;
		int rc = 0;
		if (j == nb)
			rc = ids_add(&d->joints_removed, id);
		else if (strcmp(t->def_joint_layer(a, i), t->def_joint_layer(b, j)) ||
			 (skin &&
			  !same_doubles(((const struct rig_skin_def *)a)->joints[i].bind.m,
					((const struct rig_skin_def *)b)->joints[j].bind.m, 6)))
			rc = ids_add(&d->joints_changed, id);
		if (rc)
			return -1;
	}
	for (size_t j = 0; j < nb; j++) {
		const char *id = t->def_joint_id(b, j);
		size_t i = 0;
		while (i < na && strcmp(id, t->def_joint_id(a, i)))
			i++;
		if (i == na && ids_add(&d->joints_added, id))
			return -1;
	}
	return 0;
}

struct mesh_pair {
	const struct rig_mesh_def *a, *b;
};

static bool same_mesh_key(const void *ctx, size_t i, size_t j)
{
	const struct mesh_pair *p = ctx;
	if (p->a->n_verts != p->b->n_verts)
		return false;
	return !p->a->key_xy || !p->b->key_xy ||
	       same_doubles(p->a->key_xy[i], p->b->key_xy[j], 2 * p->a->n_verts);
}

int rig_model_diff_binding(struct rig_layer_diff *ld, const void *def_from, const void *def_to)
{
	struct rig_binding_diff *d = &ld->binding;
	const struct rig_binding_type *t = rig_binding_type_find(d->kind_from);
	d->needs_parts = false;
	if (!t || !def_from || !def_to)
		return 0;
	const double *sa = t->def_source(def_from), *sb = t->def_source(def_to);
	const uint32_t *ta = t->def_triangles(def_from), *tb = t->def_triangles(def_to);
	d->n_verts_from = t->def_n_verts(def_from);
	d->n_verts_to = t->def_n_verts(def_to);
	d->n_tris_from = t->def_n_tris(def_from);
	d->n_tris_to = t->def_n_tris(def_to);
	if ((sa && sb &&
	     compare_rows(&d->source, sa, d->n_verts_from, sb, d->n_verts_to, 2 * sizeof *sa)) ||
	    (ta && tb &&
	     compare_rows(&d->triangles, ta, d->n_tris_from, tb, d->n_tris_to, 3 * sizeof *ta)) ||
	    compare_joints(d, t, def_from, def_to))
		return -1;
	if (t == &rig_binding_skin) {
		const struct rig_skin_def *a = def_from, *b = def_to;
		if (a->weight_offsets && b->weight_offsets && compare_weights(&d->weights, a, b))
			return -1;
	} else if (t == &rig_binding_mesh) {
		struct mesh_pair p = {def_from, def_to};
		if (keys_compare(&d->keys, p.a->times, p.a->n_keys, p.b->times, p.b->n_keys,
				 same_mesh_key, &p))
			return -1;
	}
	bool any = d->source.count || d->triangles.count || d->weights.count ||
		   d->joints_added.count || d->joints_removed.count || d->joints_changed.count ||
		   key_diff_any(&d->keys);
	if (!any)
		d->change = RIG_BINDING_SAME;
	return 0;
}

bool rig_layer_diff_empty(const struct rig_layer_diff *d)
{
	if (d->change != RIG_DIFF_CHANGED || d->fields || d->binding.change != RIG_BINDING_SAME)
		return false;
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		if (key_diff_any(&d->keys[ch]))
			return false;
	return true;
}

static void binding_diff_release(struct rig_binding_diff *d)
{
	free(d->source.items);
	free(d->triangles.items);
	free(d->weights.items);
	free(d->joints_added.items);
	free(d->joints_removed.items);
	free(d->joints_changed.items);
	key_diff_release(&d->keys);
}

static void layer_diff_release(struct rig_layer_diff *d)
{
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		key_diff_release(&d->keys[ch]);
	binding_diff_release(&d->binding);
}

void rig_model_diff_prune(struct rig_model_diff *d)
{
	size_t kept = 0;
	for (size_t i = 0; i < d->n_layers; i++) {
		if (rig_layer_diff_empty(&d->layers[i]))
			layer_diff_release(&d->layers[i]);
		else
			d->layers[kept++] = d->layers[i];
	}
	d->n_layers = kept;
}

void rig_model_diff_release(struct rig_model_diff *d)
{
	for (size_t i = 0; i < d->n_layers; i++)
		layer_diff_release(&d->layers[i]);
	free(d->layers);
	free(d->constraints_created.items);
	free(d->constraints_deleted.items);
	free(d->constraints_changed.items);
	memset(d, 0, sizeof *d);
}
