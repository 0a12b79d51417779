/* The skin's row of the binding table (binding.h): linear blend or
 * dual-complex skinning (skin.h) seen through the binding interface, and the
 * parts a diff compares (source, triangles, weights, joints, method). The definition is a heap
 * struct rig_skin_def, the evaluator a struct rig_skin.
 */
#include <stdlib.h>
#include <string.h>

#include "core/binding.h"
#include "core/skin.h"

/* The rules are rig_skin_check_def's; the evaluator is built too (and
 * dropped), so a definition that cannot become one fails here as it would at
 * evaluation. */
RIG_BINDING_REST_ACCESSORS(struct rig_skin_def)

static int validate(const void *def, struct rig_errs *errs)
{
	struct rig_skin *skin = rig_skin_new(def, errs);
	rig_skin_free(skin);
	return skin ? 0 : -1;
}

static void def_free(void *def)
{
	if (!def)
		return;
	rig_skin_def_release(def);
	free(def);
}

static void *def_copy(const void *def)
{
	struct rig_skin_def *copy = malloc(sizeof *copy);
	if (copy && rig_skin_def_copy(copy, def) != 0) {
		free(copy);
		copy = NULL;
	}
	return copy;
}

static void def_release_arrays(void *def)
{
	rig_skin_def_release_arrays(def);
}

static size_t def_bytes(const void *def)
{
	const struct rig_skin_def *d = def;
	return sizeof *d + d->n_joints * sizeof *d->joints +
	       (d->puppet ? rig_puppet_pins_bytes(d->puppet) : 0);
}

static size_t def_n_joints(const void *def)
{
	return ((const struct rig_skin_def *)def)->n_joints;
}

static const char *def_joint_id(const void *def, size_t j)
{
	return ((const struct rig_skin_def *)def)->joints[j].id;
}

static const char *def_joint_layer(const void *def, size_t j)
{
	return ((const struct rig_skin_def *)def)->joints[j].layer_id;
}

static void *prepare(void *def, struct rig_errs *errs)
{
	return rig_skin_take(def, errs);
}

static const void *eval_def(const void *eval)
{
	return rig_skin_def_of(eval);
}

/* A skin's shape follows its joints and, when it carries pins, their keys at
 * the layer's frame (a skin without pins ignores the frame). */
static int evaluate(double *out_xy, const void *eval, const struct rig_affine *poses,
		    double local_frame, struct rig_errs *errs)
{
	return rig_skin_evaluate_at(out_xy, NULL, eval, poses, local_frame, errs);
}

/* With pins, the frame says the pins' solver and their overlap order as a
 * puppet's does; without, nothing (the note stays empty). */
static int evaluate_noted(double *out_xy, struct rig_frame_note *note, const void *eval,
			  const struct rig_affine *poses, double local_frame, struct rig_errs *errs)
{
	enum rig_puppet_ran ran = RIG_PUPPET_RAN_LBS;
	if (rig_skin_evaluate_at(out_xy, &ran, eval, poses, local_frame, errs) != 0)
		return -1;
	const struct rig_puppet *pup = rig_skin_puppet(eval);
	return pup ? rig_puppet_note(note, ran, pup, local_frame, errs) : 0;
}

static size_t bytes(const void *eval)
{
	return rig_skin_bytes(eval);
}

static void free_eval(void *eval)
{
	rig_skin_free(eval);
}

/* ---- the diff's parts ---- */

/* Vertex v's influences, joint ids resolved, equal as sets (weights bit for bit). */
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
				memcmp(&x->weight, &y->weight, sizeof x->weight) == 0;
		}
		if (!found)
			return false;
	}
	return true;
}

/* weights: the vertices whose influence set (joint id, weight) differs or
 * that exist in one revision only. */
static int diff_weights(struct rig_part_diff *out, const struct rig_binding_type *type,
			const void *def_a, const void *def_b)
{
	const struct rig_skin_def *a = def_a, *b = def_b;
	(void)type;
	if (!a->weight_offsets || !b->weight_offsets)
		return 0;
	size_t na = a->n_weight_lists, nb = b->n_weight_lists, n = na < nb ? na : nb;
	for (size_t v = 0; v < n; v++)
		if (!same_influences(a, b, v) && rig_runs_add(&out->runs, v))
			return -1;
	return rig_runs_add_range(&out->runs, n, na > nb ? na : nb);
}

/* joints, matched by id: added, removed, and changed (another layer or bind). */
static int diff_joints(struct rig_part_diff *out, const struct rig_binding_type *type,
		       const void *def_a, const void *def_b)
{
	const struct rig_skin_def *a = def_a, *b = def_b;
	(void)type;
	for (size_t i = 0; i < a->n_joints; i++) {
		const char *id = a->joints[i].id;
		size_t j = 0;
		while (j < b->n_joints && strcmp(id, b->joints[j].id))
			j++;
		int rc = 0;
		if (j == b->n_joints)
			rc = rig_ids_add(&out->ids.removed, id);
		else if (strcmp(a->joints[i].layer_id, b->joints[j].layer_id) ||
			 memcmp(a->joints[i].bind.m, b->joints[j].bind.m,
				sizeof a->joints[i].bind.m) != 0)
			rc = rig_ids_add(&out->ids.changed, id);
		if (rc)
			return -1;
	}
	for (size_t j = 0; j < b->n_joints; j++) {
		const char *id = b->joints[j].id;
		size_t i = 0;
		while (i < a->n_joints && strcmp(id, a->joints[i].id))
			i++;
		if (i == a->n_joints && rig_ids_add(&out->ids.added, id))
			return -1;
	}
	return 0;
}

/* method: lbs or dqs at either version, when they differ. */
static int diff_method(struct rig_part_diff *out, const struct rig_binding_type *type,
		       const void *def_a, const void *def_b)
{
	const struct rig_skin_def *a = def_a, *b = def_b;
	(void)type;
	if (a->method != b->method) {
		out->value.from = rig_skin_method_name(a->method);
		out->value.to = rig_skin_method_name(b->method);
	}
	return 0;
}

/* The pins of a definition, or an empty set for a skin without. */
static const struct rig_puppet_def *pins_of(const struct rig_skin_def *d)
{
	static const struct rig_puppet_def none;
	return d->puppet ? d->puppet : &none;
}

/* pins: the puppet's part on the skin's pins, by id. */
static int diff_pins(struct rig_part_diff *out, const struct rig_binding_type *type,
		     const void *def_a, const void *def_b)
{
	(void)type;
	return rig_puppet_diff_pins(out, pins_of(def_a), pins_of(def_b));
}

/* pinSettings: "puppet" changed when one revision carries pins and the other
 * not, else the puppet's settings part ("solver", "maxRotationDeg"). */
static int diff_pin_settings(struct rig_part_diff *out, const struct rig_binding_type *type,
			     const void *def_a, const void *def_b)
{
	const struct rig_skin_def *a = def_a, *b = def_b;
	(void)type;
	if (!a->puppet != !b->puppet)
		return rig_ids_add(&out->ids.changed, "puppet") ? -1 : 0;
	return rig_puppet_diff_settings(out, pins_of(a), pins_of(b));
}

static const struct rig_binding_part parts[] = {
	RIG_BINDING_PART_SOURCE,
	RIG_BINDING_PART_TRIANGLES,
	RIG_BINDING_PART_UVS,
	{"weights", RIG_DIFF_RUNS, "changedVertices", diff_weights},
	{"joints", RIG_DIFF_IDS, NULL, diff_joints},
	{"method", RIG_DIFF_VALUE, NULL, diff_method},
	{"pins", RIG_DIFF_IDS, NULL, diff_pins},
	{"pinSettings", RIG_DIFF_IDS, NULL, diff_pin_settings},
};

/* The arrays read (source 16 B a vertex, triangles 12 B, weight offsets 4 B
 * and, at an average of 4 influences, 64 B a vertex) and runs of every second
 * index in each list (24 B a vertex, 8 B a triangle). */
static size_t diff_bytes(const void *def, size_t n_verts, size_t n_tris)
{
	const struct rig_skin_def *d = def;
	size_t pins = d->puppet ? rig_puppet_pins_bytes(d->puppet) +
					  d->puppet->n_pins * 3 * (RIG_ID_MAX + 1)
				: 0;
	/* uvs: their array and their runs, when the skin has them */
	return n_verts * (16 + 4 + 64 + 24 + (d->has_uvs ? 16 + 24 : 0)) + n_tris * (12 + 8) + pins;
}

const struct rig_binding_type rig_binding_skin = {
	.name = "skin",
	.validate = validate,
	.def_free = def_free,
	.def_copy = def_copy,
	.def_release_arrays = def_release_arrays,
	.def_bytes = def_bytes,
	RIG_BINDING_REST_ROW,
	.def_n_joints = def_n_joints,
	.def_joint_id = def_joint_id,
	.def_joint_layer = def_joint_layer,
	.prepare = prepare,
	.eval_def = eval_def,
	.evaluate = evaluate,
	.evaluate_noted = evaluate_noted,
	.bytes = bytes,
	.free = free_eval,
	.parts = parts,
	.n_parts = sizeof parts / sizeof parts[0],
	.diff_bytes = diff_bytes,
};
