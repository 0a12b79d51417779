/* .rig2d.json export: the skeleton and the skins, as rig2d_import.c reads
 * them (version 1 for one skinned mesh, 2 with one part per skinned mesh).
 *
 * Bones are the shot's group layers in creation order, named by their ids,
 * posed at their static transforms (rot in radians, and rotDeg, the exact
 * degrees, so rigd's import keeps the rotation's bits). rig2d derives each
 * bind from the bone's rest pose, so what it cannot say is reported and
 * written as close as it can: a scale or pivot other than the default, keys
 * (rig2d has no animation), a bind other than the bone's root-local rest
 * matrix, a mesh layer that is not an untransformed root, more than 4
 * influences (the 4 largest kept, renormalised), a skin without uvs,
 * dual-quaternion skinning and pins, every other binding kind, constraints.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/interchange/interchange.h"
#include "core/skin.h"

#define RIG2D_INFLUENCES 4

struct exporter {
	const struct rig_export_in *in;
	json_t *report;
	long *bone_of; /* model layer → bone index, −1 */
	json_t *bones;
};

static bool is_default(const struct rig_transform *t, enum rig_channel a, enum rig_channel b,
		       double value)
{
	return t->ch[a] == value && t->ch[b] == value;
}

static bool has_keys(const struct rig_model_layer *l)
{
	for (int c = 0; c < RIG_CH_COUNT; c++)
		if (l->keys[c].count)
			return true;
	return false;
}

static const struct rig_model_layer *parent_of(const struct rig_shot_model *m,
					       const struct rig_model_layer *l)
{
	if (!l->parent_id[0])
		return NULL;
	long i = rig_shot_model_index(m, l->parent_id);
	return i >= 0 ? &m->layers[i] : NULL;
}

static int add_bones(struct exporter *x)
{
	const struct rig_shot_model *m = x->in->model;
	long n = 0;
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		x->bone_of[i] = -1;
		if (!l->deleted && l->kind == RIG_LAYER_GROUP)
			x->bone_of[i] = n++;
	}
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (x->bone_of[i] < 0)
			continue;
		const struct rig_model_layer *p = parent_of(m, l);
		long parent = p ? x->bone_of[p - m->layers] : -1;
		if (p && parent < 0)
			rig_export_unsupported(
				x->report, "bone under a mesh layer", l->id,
				"group '%s' sits under mesh layer '%s'; it is written "
				"as a root bone",
				l->id, p->id);
		const struct rig_transform *t = &l->statics;
		if (!is_default(t, RIG_CH_SCALE_X, RIG_CH_SCALE_Y, 1) ||
		    !is_default(t, RIG_CH_PIVOT_X, RIG_CH_PIVOT_Y, 0))
			rig_export_unsupported(x->report, "scale or pivot", l->id,
					       "rig2d bones have no scale or pivot; '%s' is "
					       "written without them",
					       l->id);
		if (has_keys(l))
			rig_export_unsupported(x->report, "keys", l->id,
					       "rig2d has no animation; the keys of '%s' are not "
					       "written",
					       l->id);
		double deg = t->ch[RIG_CH_ROTATION];
		json_t *bone = json_pack("{s:s, s:I, s:f, s:f, s:f, s:f}", "name", l->id, "parent",
					 (json_int_t)parent, "x", t->ch[RIG_CH_POSITION_X], "y",
					 t->ch[RIG_CH_POSITION_Y], "rot", deg * (M_PI / 180),
					 "rotDeg", deg);
		if (!bone || json_array_append_new(x->bones, bone) != 0)
			return -1;
	}
	return 0;
}

/* The root-local rest matrix of layer i (its static transforms composed
 * from the shot root down). */
static struct rig_affine rest_matrix(const struct rig_shot_model *m,
				     const struct rig_model_layer *l)
{
	struct rig_affine a = rig_transform_matrix(&l->statics);
	for (const struct rig_model_layer *p = parent_of(m, l); p; p = parent_of(m, p))
		a = rig_affine_mul(rig_transform_matrix(&p->statics), a);
	return a;
}

static bool near_matrix(const struct rig_affine *a, const struct rig_affine *b)
{
	double scale = 1;
	for (int e = 0; e < 6; e++)
		scale = fmax(scale, fabs(a->m[e]));
	for (int e = 0; e < 6; e++)
		if (fabs(a->m[e] - b->m[e]) > 1e-9 * scale)
			return false;
	return true;
}

/* One part {mesh, skinIndices, skinWeights} of skinned layer i, or NULL
 * (reported) when the skin cannot be written. */
static json_t *skin_part(struct exporter *x, size_t i, const struct rig_skin_def *d)
{
	const struct rig_shot_model *m = x->in->model;
	const struct rig_model_layer *l = &m->layers[i];
	long *joint_bone = calloc(d->n_joints ? d->n_joints : 1, sizeof *joint_bone);
	if (!joint_bone)
		return NULL;
	json_t *part = NULL;
	for (size_t j = 0; j < d->n_joints; j++) {
		long li = rig_shot_model_index(m, d->joints[j].layer_id);
		joint_bone[j] = li >= 0 ? x->bone_of[li] : -1;
		if (joint_bone[j] < 0) {
			rig_export_unsupported(x->report, "joint on a mesh layer", l->id,
					       "joint '%s' of '%s' follows mesh layer '%s', which "
					       "rig2d cannot make a bone; the skin is not written",
					       d->joints[j].id, l->id, d->joints[j].layer_id);
			goto out;
		}
		struct rig_affine rest = rest_matrix(m, &m->layers[li]);
		if (!near_matrix(&rest, &d->joints[j].bind))
			rig_export_unsupported(x->report, "bind", l->id,
					       "joint '%s' of '%s' is bound away from its layer's "
					       "rest pose; rig2d binds at the bones' rest pose",
					       d->joints[j].id, l->id);
	}
	struct rig_transform dflt = rig_transform_default();
	if (l->parent_id[0] || has_keys(l) || memcmp(l->statics.ch, dflt.ch, sizeof dflt.ch) != 0)
		rig_export_unsupported(x->report, "mesh layer transform", l->id,
				       "rig2d meshes sit at the skeleton's root untransformed; "
				       "'%s' is written in its own space",
				       l->id);
	if (d->method != RIG_SKIN_LBS || d->puppet)
		rig_export_unsupported(x->report, "skinning method or pins", l->id,
				       "rig2d skins blend linearly without pins; '%s' is written "
				       "as a linear blend",
				       l->id);
	json_t *verts = json_array(), *uvs = d->uvs ? json_array() : NULL, *tris = json_array();
	json_t *idx = json_array(), *wts = json_array();
	size_t cut = 0;
	for (size_t v = 0; v < d->n_verts; v++) {
		json_array_append_new(verts,
				      json_pack("[f, f]", d->source[2 * v], d->source[2 * v + 1]));
		if (uvs)
			json_array_append_new(
				uvs, json_pack("[f, f]", d->uvs[2 * v], d->uvs[2 * v + 1]));
		const struct rig_skin_influence *in = &d->influences[d->weight_offsets[v]];
		size_t n = d->weight_offsets[v + 1] - d->weight_offsets[v];
		/* the 4 largest, first come first on ties */
		size_t pick[RIG2D_INFLUENCES], k = 0;
		for (; k < RIG2D_INFLUENCES && k < n; k++) {
			size_t best = SIZE_MAX;
			for (size_t q = 0; q < n; q++) {
				bool taken = false;
				for (size_t p = 0; p < k; p++)
					taken = taken || pick[p] == q;
				if (!taken && (best == SIZE_MAX || in[q].weight > in[best].weight))
					best = q;
			}
			pick[k] = best;
		}
		double sum = 0;
		for (size_t p = 0; p < k; p++)
			sum += in[pick[p]].weight;
		cut += n > RIG2D_INFLUENCES;
		for (size_t p = 0; p < RIG2D_INFLUENCES; p++) {
			double w = p < k ? in[pick[p]].weight : 0;
			if (n > RIG2D_INFLUENCES && p < k)
				w /= sum;
			json_array_append_new(
				idx, json_integer(p < k ? joint_bone[in[pick[p]].joint] : 0));
			json_array_append_new(wts, json_real(w));
		}
	}
	for (size_t t = 0; t < 3 * d->n_tris; t++)
		json_array_append_new(tris, json_integer(d->triangles[t]));
	if (cut)
		rig_export_unsupported(x->report, "influences", l->id,
				       "%zu vertices of '%s' have more than 4 influences; the 4 "
				       "largest are written, renormalised",
				       cut, l->id);
	if (!uvs)
		rig_export_unsupported(x->report, "uvs", l->id,
				       "'%s' has no uvs; rig2d expects them", l->id);
	json_t *mesh = json_pack("{s:o, s:o}", "verts", verts, "tris", tris);
	if (mesh && uvs)
		json_object_set_new(mesh, "uvs", uvs);
	part = json_pack("{s:s, s:o, s:o, s:o}", "name", l->id, "mesh", mesh, "skinIndices", idx,
			 "skinWeights", wts);
out:
	free(joint_bone);
	return part;
}

int rig_rig2d_export(struct rig_export *out, const struct rig_export_in *in, struct rig_errs *errs)
{
	const struct rig_shot_model *m = in->model;
	struct exporter x = {.in = in, .report = out->report, .bones = json_array()};
	x.bone_of = calloc(m->n_layers ? m->n_layers : 1, sizeof *x.bone_of);
	json_t *parts = json_array(), *doc = NULL;
	int rc = -1;
	if (!x.bone_of || !x.bones || !parts || add_bones(&x) != 0)
		goto out;
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (l->deleted || !l->binding.type)
			continue;
		if (l->binding.type != &rig_binding_skin) {
			rig_export_unsupported(x.report, "binding", l->id,
					       "rig2d holds skins only; the %s binding of '%s' is "
					       "not written",
					       l->binding.type->name, l->id);
			continue;
		}
		json_t *part = skin_part(&x, i, in->defs[i]);
		if (part) {
			json_object_set_new(part, "order",
					    json_integer((json_int_t)json_array_size(parts)));
			json_array_append_new(parts, part);
		}
	}
	for (size_t c = 0; c < m->n_constraints; c++)
		rig_export_unsupported(x.report, "constraint", NULL,
				       "rig2d has no constraints; '%s' is not written",
				       m->constraints[c].c.id);
	if (json_array_size(parts) <= 1) {
		doc = json_pack("{s:i, s:s, s:O}", "version", 1, "generator", "rigd", "bones",
				x.bones);
		json_t *part = json_array_get(parts, 0);
		if (doc && part) {
			json_object_set(doc, "name", json_object_get(part, "name"));
			json_object_set(doc, "mesh", json_object_get(part, "mesh"));
			json_object_set(doc, "skinIndices", json_object_get(part, "skinIndices"));
			json_object_set(doc, "skinWeights", json_object_get(part, "skinWeights"));
		} else if (doc) {
			rig_export_unsupported(x.report, "mesh", NULL,
					       "the shot has no skinned mesh; only bones are "
					       "written");
		}
	} else {
		doc = json_pack("{s:i, s:s, s:O, s:O}", "version", 2, "generator", "rigd", "bones",
				x.bones, "parts", parts);
	}
	rc = rig_export_json(out, doc);
out:
	if (rc)
		rig_errs_add(errs, RIG_MEMORY_BUSY, "the server ran out of memory");
	json_decref(doc);
	json_decref(parts);
	json_decref(x.bones);
	free(x.bone_of);
	return rc;
}
