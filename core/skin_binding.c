/* The skin's row of the binding table (binding.h): linear blend skinning
 * (skin.h) seen through the binding interface. The definition is a heap
 * struct rig_skin_def, the evaluator a struct rig_skin.
 */
#include <stdlib.h>

#include "core/binding.h"
#include "core/skin.h"

/* The rules are rig_skin_check_def's; the evaluator is built too (and
 * dropped), so a definition that cannot become one fails here as it would at
 * evaluation. */
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

static void def_release_mesh(void *def)
{
	rig_skin_def_release_mesh(def);
}

static size_t def_bytes(const void *def)
{
	const struct rig_skin_def *d = def;
	return sizeof *d + d->n_joints * sizeof *d->joints;
}

static size_t def_n_verts(const void *def)
{
	return ((const struct rig_skin_def *)def)->n_verts;
}

static size_t def_n_tris(const void *def)
{
	return ((const struct rig_skin_def *)def)->n_tris;
}

static const double *def_source(const void *def)
{
	return ((const struct rig_skin_def *)def)->source;
}

static const uint32_t *def_triangles(const void *def)
{
	return ((const struct rig_skin_def *)def)->triangles;
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

/* A skin's shape follows its joints only: the frame does not enter. */
static int evaluate(double *out_xy, const void *eval, const struct rig_affine *poses,
		    double local_frame, struct rig_errs *errs)
{
	(void)local_frame;
	return rig_skin_evaluate(out_xy, eval, poses, errs);
}

static size_t bytes(const void *eval)
{
	return rig_skin_bytes(eval);
}

static void free_eval(void *eval)
{
	rig_skin_free(eval);
}

const struct rig_binding_type rig_binding_skin = {
	.name = "skin",
	.validate = validate,
	.def_free = def_free,
	.def_copy = def_copy,
	.def_release_mesh = def_release_mesh,
	.def_bytes = def_bytes,
	.def_n_verts = def_n_verts,
	.def_n_tris = def_n_tris,
	.def_source = def_source,
	.def_triangles = def_triangles,
	.def_n_joints = def_n_joints,
	.def_joint_id = def_joint_id,
	.def_joint_layer = def_joint_layer,
	.prepare = prepare,
	.eval_def = eval_def,
	.evaluate = evaluate,
	.bytes = bytes,
	.free = free_eval,
};
