/* Spine 4.2 JSON export: the shot as a skeleton Spine's runtimes read.
 *
 * Every live layer is a bone (group and mesh layers alike: either can be a
 * joint or a parent), parents first, named by its id; a layer with a pivot
 * gets a child bone "<id>#pivot" translated by −pivot ('#' is outside rigd's
 * ids, so it cannot collide), which its children hang under and its joints
 * follow: rigd's T·R·S·T(−pivot) is Spine's T·R·S and one more translation.
 * Each skinned mesh layer is a slot on its own bone with a weighted mesh
 * attachment: per influence the bind point inverse(bind)·v, which Spine's
 * skinning Σ w · boneWorld · point turns into rigd's shot-space vertex. The
 * shot's keys are one animation named after the shot, times = frames / fps.
 *
 * Keys. Spine's rotate and translate timelines add to the setup value and
 * scale multiplies it, and before a timeline's first key Spine shows the
 * setup pose where rigd holds the first key: so a keyed channel's setup value
 * is its first key's and its keys are written relative to it. hold is
 * "stepped"; a bezier ease becomes Spine's curve in absolute time and value,
 * which Spine's runtime draws as ten line segments (reported). IK chains of 1
 * and 2 layers map to Spine's IK (the tip bone's length = tipLength); longer
 * chains, poles, keyed mix or softness, mesh bindings, puppets, DQS, pins and
 * keyed pivots are reported.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/interchange/interchange.h"
#include "core/skin.h"

#define PIVOT_SUFFIX "#pivot"
/* Spine's IK turns a bone in its parent's frame, so a chain starting at a
 * shot root needs a parent: this bone (at the identity, '#' keeping it out
 * of rigd's ids), written only then. */
#define ROOT_BONE "#root"

struct spine_bone {
	long layer;       /* model layer index */
	long pivot_index; /* bone index of its pivot bone, or −1 */
	long index;       /* its own bone index */
};

struct spine_out {
	const struct rig_export_in *in;
	bool *is_bone; /* per model layer: written as a bone (needs_bone) */
	json_t *report;
	struct spine_bone *of; /* per model layer */
	json_t *bones;
	long n_bones;
	double fps;
	bool root_bone; /* ROOT_BONE is written: the shot's roots hang under it */
};

static const struct rig_model_layer *layer_at(const struct spine_out *s, long i)
{
	return &s->in->model->layers[i];
}

static bool has_pivot(const struct rig_model_layer *l)
{
	return l->statics.ch[RIG_CH_PIVOT_X] != 0 || l->statics.ch[RIG_CH_PIVOT_Y] != 0 ||
	       l->keys[RIG_CH_PIVOT_X].count || l->keys[RIG_CH_PIVOT_Y].count;
}

/* The bone a layer's children (and its joints) hang from. */
static const char *tail_name(const struct spine_out *s, long layer, char buf[RIG_ID_MAX + 8])
{
	const struct rig_model_layer *l = layer_at(s, layer);
	snprintf(buf, RIG_ID_MAX + 8, "%s%s", l->id,
		 s->of[layer].pivot_index >= 0 ? PIVOT_SUFFIX : "");
	return buf;
}

static long tail_index(const struct spine_out *s, long layer)
{
	return s->of[layer].pivot_index >= 0 ? s->of[layer].pivot_index : s->of[layer].index;
}

/* A channel's setup value: its static one, which a binding's binds were
 * made against on import (the keys override it wherever they exist). */
static double setup_value(const struct rig_model_layer *l, int c)
{
	return l->statics.ch[c];
}

static int add_bone(struct spine_out *s, long i, bool *done);

static int add_parent_first(struct spine_out *s, long i, bool *done)
{
	const struct rig_model_layer *l = layer_at(s, i);
	long p = l->parent_id[0] ? rig_shot_model_index(s->in->model, l->parent_id) : -1;
	return p >= 0 && !done[p] ? add_bone(s, p, done) : 0;
}

static int add_bone(struct spine_out *s, long i, bool *done)
{
	if (done[i])
		return 0;
	done[i] = true;
	s->of[i].index = s->of[i].pivot_index = -1;
	if (!s->is_bone[i])
		return 0;
	if (add_parent_first(s, i, done) != 0)
		return -1;
	const struct rig_model_layer *l = layer_at(s, i);
	long p = l->parent_id[0] ? rig_shot_model_index(s->in->model, l->parent_id) : -1;
	char parent[RIG_ID_MAX + 8];
	json_t *bone =
		json_pack("{s:s, s:f, s:f, s:f, s:f, s:f}", "name", l->id, "x",
			  setup_value(l, RIG_CH_POSITION_X), "y", setup_value(l, RIG_CH_POSITION_Y),
			  "rotation", setup_value(l, RIG_CH_ROTATION), "scaleX",
			  setup_value(l, RIG_CH_SCALE_X), "scaleY", setup_value(l, RIG_CH_SCALE_Y));
	if (bone && p >= 0)
		json_object_set_new(bone, "parent", json_string(tail_name(s, p, parent)));
	else if (bone && s->root_bone)
		json_object_set_new(bone, "parent", json_string(ROOT_BONE));
	if (!bone || json_array_append_new(s->bones, bone) != 0)
		return -1;
	s->of[i].index = s->n_bones++;
	s->of[i].pivot_index = -1;
	if (!has_pivot(l))
		return 0;
	char name[RIG_ID_MAX + 8];
	snprintf(name, sizeof name, "%s%s", l->id, PIVOT_SUFFIX);
	json_t *pivot =
		json_pack("{s:s, s:s, s:f, s:f}", "name", name, "parent", l->id, "x",
			  -setup_value(l, RIG_CH_PIVOT_X), "y", -setup_value(l, RIG_CH_PIVOT_Y));
	if (!pivot || json_array_append_new(s->bones, pivot) != 0)
		return -1;
	s->of[i].pivot_index = s->n_bones++;
	return 0;
}

/* Spine's time of a frame, and when time × fps does not give the frame back
 * bit for bit (rigd's import reads frames so), the frame itself as rigdFrame. */
static void put_time(json_t *out, const struct spine_out *s, double frame)
{
	double t = frame / s->fps;
	json_object_set_new(out, "time", json_real(t));
	if (t * s->fps != frame)
		json_object_set_new(out, "rigdFrame", json_real(frame));
}

/* One Spine key of a timeline: value (rigd's, absolute) at frame, relative
 * to setup as Spine reads it, and when Spine's arithmetic (setup + value, or
 * setup × value) does not give it back bit for bit, the value itself as
 * rigdValue; its curve to next (NULL: the last key). */
static json_t *spine_key(const struct spine_out *s, double frame, double value,
			 const struct rig_key *style, const struct rig_key *next, double next_value,
			 double setup, bool scale)
{
	double v = scale ? value / setup : value - setup;
	json_t *out = json_pack("{s:f}", "value", v);
	if (!out)
		return NULL;
	put_time(out, s, frame);
	if ((scale ? setup * v : setup + v) != value)
		json_object_set_new(out, "rigdValue", json_real(value));
	if (!next)
		return out;
	if (style->interp == RIG_INTERP_HOLD) {
		json_object_set_new(out, "curve", json_string("stepped"));
	} else if (style->interp == RIG_INTERP_BEZIER) {
		double t0 = frame / s->fps, dt = next->frame / s->fps - t0;
		double v1 = scale ? next_value / setup : next_value - setup, dv = v1 - v;
		json_object_set_new(out, "curve",
				    json_pack("[f, f, f, f]", t0 + style->ease[0] * dt,
					      v + style->ease[1] * dv, t0 + style->ease[2] * dt,
					      v + style->ease[3] * dv));
	}
	return out;
}

/* A timeline of keys (values negated for a pivot's bone) relative to setup.
 * Spine shows the setup pose before a timeline's first key where rigd holds
 * the first key: a first key after frame 0 (Spine's clock starts there) is
 * preceded by its value at frame 0 when the setup differs. */
static json_t *timeline(const struct spine_out *s, const struct rig_key_list *keys, double sign,
			double setup, bool scale)
{
	json_t *list = json_array();
	const struct rig_key *first = &keys->items[0];
	static const struct rig_key linear = {.interp = RIG_INTERP_LINEAR};
	if (list && first->frame > 0 && sign * first->value != setup)
		json_array_append_new(list, spine_key(s, 0, sign * first->value, &linear, first,
						      sign * first->value, setup, scale));
	for (size_t q = 0; list && q < keys->count; q++) {
		const struct rig_key *k = &keys->items[q],
				     *next = q + 1 < keys->count ? k + 1 : NULL;
		json_array_append_new(list, spine_key(s, k->frame, sign * k->value, k, next,
						      next ? sign * next->value : 0, setup, scale));
	}
	return list;
}

struct timeline_kind {
	int channel;
	const char *name;   /* Spine's timeline */
	const char *member; /* its value member */
	bool scale;         /* multiplies the setup value, else adds to it */
};

static const struct timeline_kind timelines[] = {
	{RIG_CH_ROTATION, "rotate", "value", false},
	{RIG_CH_POSITION_X, "translatex", "value", false},
	{RIG_CH_POSITION_Y, "translatey", "value", false},
	{RIG_CH_SCALE_X, "scalex", "value", true},
	{RIG_CH_SCALE_Y, "scaley", "value", true},
};

/* The bone timelines of layer i (NULL when it has none). */
static json_t *bone_timelines(struct spine_out *s, long i)
{
	const struct rig_model_layer *l = layer_at(s, i);
	json_t *out = NULL;
	bool bezier = false;
	for (size_t t = 0; t < sizeof timelines / sizeof timelines[0]; t++) {
		const struct timeline_kind *k = &timelines[t];
		const struct rig_key_list *keys = &l->keys[k->channel];
		if (!keys->count)
			continue;
		double setup = setup_value(l, k->channel);
		if (k->scale && setup == 0) {
			rig_export_unsupported(s->report, "keyed scale of setup 0", l->id,
					       "Spine scales the setup value, and the static %s of "
					       "'%s' is 0; its keys are not written",
					       rig_channel_name(k->channel), l->id);
			continue;
		}
		for (size_t q = 0; q + 1 < keys->count; q++)
			bezier = bezier || keys->items[q].interp == RIG_INTERP_BEZIER;
		json_t *list = timeline(s, keys, 1, setup, k->scale);
		if (!out)
			out = json_object();
		json_object_set_new(out, k->name, list);
	}
	if (bezier)
		rig_export_unsupported(s->report, "bezier ease", l->id,
				       "Spine's runtime draws the bezier keys of '%s' as ten line "
				       "segments a curve",
				       l->id);
	if (l->time_offset != 0 && out)
		rig_export_unsupported(s->report, "time offset", l->id,
				       "Spine has no time offset; the keys of '%s' are written at "
				       "their local frames",
				       l->id);
	return out;
}

/* The pivot bone's translate timelines, for keyed pivots (−pivot). */
static json_t *pivot_timelines(struct spine_out *s, long i)
{
	const struct rig_model_layer *l = layer_at(s, i);
	static const struct timeline_kind pivots[] = {
		{RIG_CH_PIVOT_X, "translatex", "value", false},
		{RIG_CH_PIVOT_Y, "translatey", "value", false},
	};
	json_t *out = NULL;
	for (size_t t = 0; t < 2; t++) {
		const struct rig_key_list *keys = &l->keys[pivots[t].channel];
		if (!keys->count)
			continue;
		json_t *list = timeline(s, keys, -1, -setup_value(l, pivots[t].channel), false);
		if (!out)
			out = json_object();
		json_object_set_new(out, pivots[t].name, list);
	}
	return out;
}

/* Whether layer i and its ancestors all sit at the identity (default
 * statics, no keys): then its space is Spine's world. */
static bool identity_path(const struct spine_out *s, long i)
{
	struct rig_transform dflt = rig_transform_default();
	for (long at = i; at >= 0;) {
		const struct rig_model_layer *l = layer_at(s, at);
		for (int c = 0; c < RIG_CH_COUNT; c++)
			if (l->keys[c].count || l->statics.ch[c] != dflt.ch[c])
				return false;
		at = l->parent_id[0] ? rig_shot_model_index(s->in->model, l->parent_id) : -1;
	}
	return true;
}

/* A weighted mesh attachment for skinned layer i, or NULL (reported). */
static json_t *mesh_attachment(struct spine_out *s, long i, const struct rig_skin_def *d)
{
	const struct rig_model_layer *l = layer_at(s, i);
	if (d->method != RIG_SKIN_LBS || d->puppet)
		rig_export_unsupported(s->report, "skinning method or pins", l->id,
				       "Spine skins blend linearly without pins; '%s' is written "
				       "as a linear blend",
				       l->id);
	long *bone = calloc(d->n_joints ? d->n_joints : 1, sizeof *bone);
	struct rig_affine *inv = calloc(d->n_joints ? d->n_joints : 1, sizeof *inv);
	json_t *att = NULL;
	if (!bone || !inv)
		goto out;
	for (size_t j = 0; j < d->n_joints; j++) {
		long li = rig_shot_model_index(s->in->model, d->joints[j].layer_id);
		if (li < 0 || rig_affine_invert(&inv[j], &d->joints[j].bind) != 0)
			goto out; /* a stored skin maps every joint and binds invertibly */
		bone[j] = tail_index(s, li);
	}
	json_t *verts = json_array(), *uvs = json_array(), *tris = json_array();
	for (size_t v = 0; v < d->n_verts; v++) {
		uint32_t a = d->weight_offsets[v], b = d->weight_offsets[v + 1];
		json_array_append_new(verts, json_integer(b - a));
		for (uint32_t k = a; k < b; k++) {
			const struct rig_skin_influence *in = &d->influences[k];
			double x, y;
			rig_affine_apply(&x, &y, &inv[in->joint], d->source[2 * v],
					 d->source[2 * v + 1]);
			json_array_append_new(verts, json_integer(bone[in->joint]));
			json_array_append_new(verts, json_real(x));
			json_array_append_new(verts, json_real(y));
			json_array_append_new(verts, json_real(in->weight));
		}
		json_array_append_new(uvs, json_real(d->uvs ? d->uvs[2 * v] : 0));
		json_array_append_new(uvs, json_real(d->uvs ? d->uvs[2 * v + 1] : 0));
	}
	for (size_t t = 0; t < 3 * d->n_tris; t++)
		json_array_append_new(tris, json_integer(d->triangles[t]));
	if (!d->uvs)
		rig_export_unsupported(s->report, "uvs", l->id,
				       "'%s' has no uvs; Spine's are written as 0", l->id);
	att = json_pack("{s:s, s:o, s:o, s:o, s:i}", "type", "mesh", "uvs", uvs, "triangles", tris,
			"vertices", verts, "hull", 0);
	if (att && identity_path(s, i)) {
		/* Σ w · B · inverse(B) · v is v only to a few ulps: the source's bits
		 * for rigd's import (spine_mesh.c), which other tools ignore */
		json_t *exact = json_array();
		for (size_t k = 0; exact && k < 2 * d->n_verts; k++)
			json_array_append_new(exact, json_real(d->source[k]));
		json_object_set_new(att, "rigdSource", exact);
	}
out:
	free(bone);
	free(inv);
	return att;
}

/* Spine IK for constraint c, or NULL (reported). Sets the tip bone's length. */
static json_t *ik_constraint(struct spine_out *s, const struct rig_model_constraint *mc)
{
	const struct rig_constraint *c = &mc->c;
	const char *why = NULL;
	if (c->kind == RIG_CONSTRAINT_CHAIN)
		why = "Spine has no follow chains (its physics constraints differ)";
	else if (c->kind == RIG_CONSTRAINT_FOOTSTEP)
		why = "Spine has no walkers; the IK targets keep their keys";
	else if (c->n_chain > 2)
		why = "Spine's IK bends 1 or 2 bones";
	else if (c->pole_id[0])
		why = "Spine's IK has no pole";
	else if (mc->keys[RIG_CC_MIX].count || mc->keys[RIG_CC_SOFTNESS].count)
		why = "its mix or softness is keyed";
	long chain[2] = {-1, -1};
	for (size_t k = 0; !why && k < c->n_chain; k++) {
		chain[k] = rig_shot_model_index(s->in->model, c->chain_ids[k]);
		if (chain[k] < 0 || has_pivot(layer_at(s, chain[k])))
			why = "a chain layer has a pivot, which Spine's bones cannot bend about";
	}
	long target = rig_shot_model_index(s->in->model, c->target_id);
	if (!why && target < 0)
		why = "its target is missing";
	if (why) {
		rig_export_unsupported(s->report, "constraint", NULL,
				       "constraint '%s' is not written: %s", c->id, why);
		return NULL;
	}
	if (c->has_limits)
		rig_export_unsupported(s->report, "ik limits", NULL,
				       "Spine's IK has no joint limits; constraint '%s' is written "
				       "without them",
				       c->id);
	json_t *tip = json_array_get(s->bones, (size_t)s->of[chain[c->n_chain - 1]].index);
	json_object_set_new(tip, "length", json_real(c->tip_length));
	json_t *bones = json_array();
	for (size_t k = 0; k < c->n_chain; k++)
		json_array_append_new(bones, json_string(c->chain_ids[k]));
	double softness = c->statics[RIG_CC_SOFTNESS], spine_softness = softness;
	if (c->n_chain == 2 && softness > 0) {
		/* spine-core scales softness by psx · (csx + 1) / 2 in the first
		 * bone's parent's frame, rigd measures it in that frame with the
		 * frame's scale kept (spine_ik.c): at the statics' scales */
		const struct rig_model_layer *p = layer_at(s, chain[0]),
					     *ch = layer_at(s, chain[1]);
		double det = 1;
		bool keyed = false;
		for (const struct rig_model_layer *a = p; a;) {
			keyed = keyed || a->keys[RIG_CH_SCALE_X].count ||
				a->keys[RIG_CH_SCALE_Y].count;
			long up = a->parent_id[0] ? rig_shot_model_index(s->in->model, a->parent_id)
						  : -1;
			a = up >= 0 ? layer_at(s, up) : NULL;
			if (a)
				det *= a->statics.ch[RIG_CH_SCALE_X] *
				       a->statics.ch[RIG_CH_SCALE_Y];
		}
		keyed = keyed || ch->keys[RIG_CH_SCALE_X].count;
		double f = fabs(p->statics.ch[RIG_CH_SCALE_X]) *
			   (fabs(ch->statics.ch[RIG_CH_SCALE_X]) + 1) * 0.5 * sqrt(fabs(det));
		spine_softness = f > 0 ? softness / f : softness;
		if (keyed)
			rig_export_unsupported(
				s->report, "ik softness", NULL,
				"constraint '%s': Spine rescales softness with the "
				"chain's animated scales; it is written at the statics'",
				c->id);
	}
	/* a layer's world origin is where its pivot lands: its own bone's */
	json_t *out = json_pack("{s:s, s:o, s:s, s:f, s:f, s:b, s:b, s:b}", "name", c->id, "bones",
				bones, "target", c->target_id, "mix", c->statics[RIG_CC_MIX],
				"softness", spine_softness, "bendPositive", c->bend > 0, "stretch",
				c->stretch, "compress", c->compress);
	if (out && spine_softness != softness) /* rigd's, bit for bit (spine_ik.c) */
		json_object_set_new(out, "rigdSoftness", json_real(softness));
	return out;
}

static void mark(const struct spine_out *s, const char *id)
{
	long i = id[0] ? rig_shot_model_index(s->in->model, id) : -1;
	if (i >= 0)
		s->is_bone[i] = true;
}

/* Which layers are bones: every group layer, and a mesh layer only when
 * something needs its frame (a child, a joint or a constraint naming it):
 * a skinned mesh's vertices are weighted to its joints' bones, so its own
 * path plays no part, and a bone of its own would come back from an import
 * as one more group layer. Returns whether any layer is a bone. */
static bool choose_bones(struct spine_out *s)
{
	const struct rig_shot_model *m = s->in->model;
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (l->deleted)
			continue;
		if (l->kind == RIG_LAYER_GROUP)
			s->is_bone[i] = true;
		mark(s, l->parent_id);
		if (l->binding.type == &rig_binding_skin && s->in->defs[i]) {
			const struct rig_skin_def *d = s->in->defs[i];
			for (size_t j = 0; j < d->n_joints; j++)
				mark(s, d->joints[j].layer_id);
		}
	}
	for (size_t c = 0; c < m->n_constraints; c++) {
		const struct rig_constraint *k = &m->constraints[c].c;
		for (size_t q = 0; q < k->n_chain; q++)
			mark(s, k->chain_ids[q]);
		mark(s, k->target_id);
		mark(s, k->pole_id);
	}
	bool any = false;
	for (size_t i = 0; i < m->n_layers; i++)
		any = any || s->is_bone[i];
	return any;
}

/* The bone a slot of layer i hangs from: its own, its parent's (whose child
 * it is, so a bone), else the first bone (a weighted attachment's slot bone
 * moves nothing). */
static const char *slot_bone(const struct spine_out *s, long i, char buf[RIG_ID_MAX + 8])
{
	const struct rig_model_layer *l = layer_at(s, i);
	if (s->of[i].index >= 0)
		return l->id;
	long p = l->parent_id[0] ? rig_shot_model_index(s->in->model, l->parent_id) : -1;
	if (p >= 0)
		return tail_name(s, p, buf);
	return json_string_value(json_object_get(json_array_get(s->bones, 0), "name"));
}

static int write_doc(struct spine_out *s, json_t **doc)
{
	const struct rig_shot_model *m = s->in->model;
	bool *done = calloc(m->n_layers ? m->n_layers : 1, sizeof *done);
	if (!done)
		return -1;
	int rc = 0;
	s->root_bone = !choose_bones(s);
	for (size_t c = 0; c < m->n_constraints && !s->root_bone; c++) {
		long first = rig_shot_model_index(m, m->constraints[c].c.chain_ids[0]);
		s->root_bone = first >= 0 && !m->layers[first].parent_id[0];
	}
	if (s->root_bone) {
		rc = json_array_append_new(s->bones, json_pack("{s:s}", "name", ROOT_BONE));
		s->n_bones++;
	}
	for (size_t i = 0; i < m->n_layers && rc == 0; i++)
		if (!m->layers[i].deleted)
			rc = add_bone(s, (long)i, done);
	free(done);
	if (rc)
		return -1;
	json_t *slots = json_array(), *atts = json_object(), *anim = json_object();
	json_t *ik = json_array();
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (l->deleted)
			continue;
		json_t *tl = bone_timelines(s, (long)i);
		if (s->of[i].index < 0) {
			if (tl)
				rig_export_unsupported(
					s->report, "keys", l->id,
					"mesh layer '%s' is no bone (nothing hangs "
					"from it); its keys move nothing Spine draws",
					l->id);
			json_decref(tl);
			tl = NULL;
		} else if (tl) {
			json_object_set_new(anim, l->id, tl);
		}
		if (s->of[i].pivot_index >= 0 && (tl = pivot_timelines(s, (long)i))) {
			char name[RIG_ID_MAX + 8];
			json_object_set_new(anim, tail_name(s, (long)i, name), tl);
		}
		if (!l->binding.type)
			continue;
		if (l->binding.type != &rig_binding_skin) {
			rig_export_unsupported(
				s->report, "binding", l->id,
				"Spine holds weighted meshes only; the %s binding of "
				"'%s' is not written",
				l->binding.type->name, l->id);
			continue;
		}
		json_t *att = mesh_attachment(s, (long)i, s->in->defs[i]);
		if (!att)
			continue;
		char bone[RIG_ID_MAX + 8];
		json_array_append_new(slots,
				      json_pack("{s:s, s:s, s:s}", "name", l->id, "bone",
						slot_bone(s, (long)i, bone), "attachment", l->id));
		json_object_set_new(atts, l->id, json_pack("{s:o}", l->id, att));
	}
	/* Spine runs constraints by "order", which must count 0, 1, … (one a
	 * value, else the runtime skips one): rigd's run order, ascending order
	 * then id, ranked (m->constraints is sorted by id) */
	long long last = LLONG_MIN;
	for (size_t done_n = 0; done_n < m->n_constraints; done_n++) {
		long long next = LLONG_MAX;
		for (size_t c = 0; c < m->n_constraints; c++)
			if (m->constraints[c].c.order > last && m->constraints[c].c.order < next)
				next = m->constraints[c].c.order;
		if (next == LLONG_MAX)
			break;
		for (size_t c = 0; c < m->n_constraints; c++) {
			if (m->constraints[c].c.order != next)
				continue;
			json_t *one = ik_constraint(s, &m->constraints[c]);
			if (one) {
				json_object_set_new(one, "order",
						    json_integer((json_int_t)json_array_size(ik)));
				json_array_append_new(ik, one);
			}
		}
		last = next;
	}
	*doc = json_pack("{s:{s:s, s:s, s:f}, s:O, s:o, s:o, s:[{s:s, s:o}], s:{}}", "skeleton",
			 "spine", "4.2.00", "hash", "rigd", "fps", s->fps, "bones", s->bones,
			 "slots", slots, "ik", ik, "skins", "name", "default", "attachments", atts,
			 "animations");
	if (*doc && json_object_size(anim))
		json_object_set_new(json_object_get(*doc, "animations"), m->id,
				    json_pack("{s:o}", "bones", anim));
	else
		json_decref(anim);
	return *doc ? 0 : -1;
}

int rig_spine_export(struct rig_export *out, const struct rig_export_in *in, struct rig_errs *errs)
{
	const struct rig_shot_model *m = in->model;
	struct spine_out s = {.in = in,
			      .report = out->report,
			      .bones = json_array(),
			      .fps = m->fps > 0 ? m->fps : 24};
	s.of = calloc(m->n_layers ? m->n_layers : 1, sizeof *s.of);
	s.is_bone = calloc(m->n_layers ? m->n_layers : 1, sizeof *s.is_bone);
	json_t *doc = NULL;
	int rc = -1;
	if (s.of && s.is_bone && s.bones && write_doc(&s, &doc) == 0)
		rc = rig_export_json(out, doc);
	if (rc)
		rig_errs_add(errs, RIG_MEMORY_BUSY, "the server ran out of memory");
	json_decref(doc);
	json_decref(s.bones);
	free(s.of);
	free(s.is_bone);
	return rc;
}
