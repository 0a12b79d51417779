/* What changed between two versions of a shot (issue 15, GET …/diff): per
 * layer created, deleted or changed, and for a changed layer which fields,
 * which keys per channel and which parts of its binding (the parts its kind's
 * row names, core/binding.h: source, triangles, a skin's weights and joints, a
 * mesh binding's keys) with the changed vertex and triangle indices as runs.
 * Also the shot's constraints created, deleted or changed.
 *
 * Pure: two struct rig_shot_model in, a struct rig_model_diff out. Comparing
 * binding parts needs the per-vertex arrays, which a loaded model does not
 * hold, so it is a second step: rig_model_diff_shots() marks the layers whose
 * binding must be compared (same kind, another stored revision) and the
 * caller hands both whole definitions to rig_model_diff_binding(). What does
 * not live here: loading (storage/shot_repo.h), paging and JSON (the handler,
 * api/handlers/shot_diff.c).
 */
#ifndef RIG_MODEL_DIFF_H
#define RIG_MODEL_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "core/binding.h"
#include "core/binding_diff.h"
#include "storage/shot_model.h"

enum rig_diff_change { RIG_DIFF_CREATED, RIG_DIFF_DELETED, RIG_DIFF_CHANGED };

/* Changed layer fields, a bit each; the transform's static channels follow
 * as RIG_DIFF_F_STATIC << channel. */
enum {
	RIG_DIFF_F_NAME = 1u << 0,
	RIG_DIFF_F_KIND = 1u << 1,
	RIG_DIFF_F_PARENT = 1u << 2,
	RIG_DIFF_F_TIME_OFFSET = 1u << 3,
	RIG_DIFF_F_STATIC = 1u << 4,
};

enum rig_binding_change {
	RIG_BINDING_SAME,    /* nothing to say */
	RIG_BINDING_CREATED, /* the layer had none at from */
	RIG_BINDING_DELETED, /* it has none at to */
	RIG_BINDING_KIND,    /* replaced by one of another kind: no part listing */
	RIG_BINDING_CHANGED, /* same kind, parts below */
};

struct rig_binding_diff {
	enum rig_binding_change change;
	const char *kind_from, *kind_to; /* wire names, static; NULL when none */
	bool needs_parts;                /* rig_model_diff_binding has yet to run */
	size_t n_verts_from, n_verts_to, n_tris_from, n_tris_to;
	/* Once rig_model_diff_binding ran: the kind both versions have, and
	 * what each of its parts found (type->n_parts, in its order; owned).
	 * NULL before, and for a binding that did not change kind-wise. */
	const struct rig_binding_type *type;
	struct rig_part_diff *parts;
};

struct rig_layer_diff {
	char layer_id[RIG_ID_MAX + 1];
	enum rig_diff_change change;
	unsigned fields;                        /* RIG_DIFF_F_* */
	struct rig_key_diff keys[RIG_CH_COUNT]; /* per channel */
	struct rig_binding_diff binding;
	long from_index, to_index; /* in the models' layers, -1 when absent */
};

struct rig_model_diff {
	struct rig_layer_diff *layers;
	size_t n_layers, cap_layers;
	struct rig_id_list constraints_created, constraints_deleted, constraints_changed;
};

/* Compares from and to (live layers matched by id) into *out, which it
 * overwrites: one record per layer created, deleted or changed, ordered as
 * the from version's layers (changed, deleted), then created ones in to's
 * order. A created or deleted layer's binding is RIG_BINDING_CREATED or
 * _DELETED (with its kind and counts) when it has one. A binding of the same kind whose stored
 * revision differs gets needs_parts (its parts are compared by rig_model_diff_binding, and the
 * record may turn out empty); the same revision is the same stored binding.
 * Returns 0, or -1 when out of memory (release *out either way). */
int rig_model_diff_shots(struct rig_model_diff *out, const struct rig_shot_model *from,
			 const struct rig_shot_model *to);

/* Compares the whole definitions (per-vertex arrays loaded, both of d's kind
 * — binding.kind_from) of a record that needs_parts, filling its parts; when
 * nothing differs the binding becomes RIG_BINDING_SAME. Borrowed inputs.
 * Returns 0, or -1 when out of memory. */
int rig_model_diff_binding(struct rig_layer_diff *d, const void *def_from, const void *def_to);

/* What the part named name found, or NULL when d's kind has no such part or
 * the parts were not compared. Borrowed from d. */
const struct rig_part_diff *rig_binding_diff_part(const struct rig_binding_diff *d,
						  const char *name);

/* True when the record says nothing (a binding rewritten unchanged and no
 * other change). */
bool rig_layer_diff_empty(const struct rig_layer_diff *d);

/* Drops (and frees) the records rig_layer_diff_empty calls empty, keeping
 * the others in order: after every rig_model_diff_binding. */
void rig_model_diff_prune(struct rig_model_diff *d);

/* Frees what *d owns and zeroes it; safe on a zeroed diff. */
void rig_model_diff_release(struct rig_model_diff *d);

#endif
