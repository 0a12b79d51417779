/* The comparison of two shot versions (model_diff.h). Numbers compare
 * exactly (bit for bit, as stored): a diff says what an edit wrote, not what
 * it changed by more than some tolerance. A binding's parts are its kind's
 * (their compares live beside the kind, core/binding.h); this file only runs
 * them.
 */
#include "api/eval/model_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"

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
	if (!rig_array_grow((void **)&out->layers, &out->cap_layers, out->n_layers,
			    sizeof *out->layers))
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
		if (rig_keys_diff(&d->keys[ch], a->keys[ch].items, a->keys[ch].count,
				  b->keys[ch].items, b->keys[ch].count, NULL, NULL))
			return -1;
	binding_head(&d->binding, &a->binding, &b->binding);
	if (rig_layer_diff_empty(d)) {
		out->n_layers--; /* nothing changed: no record (d owns nothing yet) */
		for (int ch = 0; ch < RIG_CH_COUNT; ch++)
			rig_key_diff_release(&d->keys[ch]);
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
	const struct rig_chain_params *fa = &a->follow, *fb = &b->follow;
	if (a->kind != b->kind || fa->substeps != fb->substeps ||
	    !same_doubles(&fa->smoothing, &fb->smoothing, 1) ||
	    fa->has_max_angle != fb->has_max_angle ||
	    !same_doubles(&fa->max_angle_deg, &fb->max_angle_deg, 1))
		return false;
	if (a->n_chain != b->n_chain || strcmp(a->target_id, b->target_id) ||
	    strcmp(a->pole_id, b->pole_id) || a->bend != b->bend ||
	    !same_doubles(&a->tip_length, &b->tip_length, 1) ||
	    !same_doubles(a->statics, b->statics, RIG_CC_COUNT) || a->stretch != b->stretch ||
	    a->compress != b->compress || a->order != b->order || a->has_limits != b->has_limits)
		return false;
	for (size_t i = 0; i < a->n_chain; i++)
		if (strcmp(a->chain_ids[i], b->chain_ids[i]) ||
		    (a->has_limits && !same_doubles(a->limits[i], b->limits[i], 2)))
			return false;
	if (a->n_chain > 1 && !same_doubles(fa->lengths, fb->lengths, a->n_chain - 1))
		return false;
	const struct rig_footstep_spec *wa = &a->walk, *wb = &b->walk;
	if (wa->n_feet != wb->n_feet || wa->step_frames != wb->step_frames ||
	    !same_doubles(&wa->threshold, &wb->threshold, 1) ||
	    !same_doubles(&wa->height, &wb->height, 1))
		return false;
	for (size_t f = 0; f < wa->n_feet; f++)
		if (strcmp(wa->ik_ids[f], wb->ik_ids[f]) || wa->group[f] != wb->group[f] ||
		    !same_doubles(wa->rest[f], wb->rest[f], 2))
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
			rc = rig_ids_add(&out->constraints_deleted, from->constraints[i++].c.id);
		} else if (cmp > 0) {
			rc = rig_ids_add(&out->constraints_created, to->constraints[j++].c.id);
		} else {
			if (!same_constraint(&from->constraints[i], &to->constraints[j]))
				rc = rig_ids_add(&out->constraints_changed,
						 from->constraints[i].c.id);
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

int rig_model_diff_binding(struct rig_layer_diff *ld, const void *def_from, const void *def_to)
{
	struct rig_binding_diff *d = &ld->binding;
	const struct rig_binding_type *t = rig_binding_type_find(d->kind_from);
	d->needs_parts = false;
	if (!t || !def_from || !def_to)
		return 0;
	d->n_verts_from = t->def_n_verts(def_from);
	d->n_verts_to = t->def_n_verts(def_to);
	d->n_tris_from = t->def_n_tris(def_from);
	d->n_tris_to = t->def_n_tris(def_to);
	d->type = t;
	d->parts = calloc(t->n_parts ? t->n_parts : 1, sizeof *d->parts);
	if (!d->parts)
		return -1;
	bool any = false;
	for (size_t p = 0; p < t->n_parts; p++) {
		if (t->parts[p].compare(&d->parts[p], t, def_from, def_to))
			return -1;
		any |= rig_part_diff_any(&d->parts[p]);
	}
	if (!any)
		d->change = RIG_BINDING_SAME;
	return 0;
}

const struct rig_part_diff *rig_binding_diff_part(const struct rig_binding_diff *d,
						  const char *name)
{
	for (size_t p = 0; d->parts && p < d->type->n_parts; p++)
		if (strcmp(d->type->parts[p].name, name) == 0)
			return &d->parts[p];
	return NULL;
}

bool rig_layer_diff_empty(const struct rig_layer_diff *d)
{
	if (d->change != RIG_DIFF_CHANGED || d->fields || d->binding.change != RIG_BINDING_SAME)
		return false;
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		if (rig_key_diff_any(&d->keys[ch]))
			return false;
	return true;
}

static void binding_diff_release(struct rig_binding_diff *d)
{
	for (size_t p = 0; d->parts && p < d->type->n_parts; p++)
		rig_part_diff_release(&d->parts[p]);
	free(d->parts);
	d->parts = NULL;
}

static void layer_diff_release(struct rig_layer_diff *d)
{
	for (int ch = 0; ch < RIG_CH_COUNT; ch++)
		rig_key_diff_release(&d->keys[ch]);
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
