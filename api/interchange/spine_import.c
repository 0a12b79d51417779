/* Spine 4.2 JSON import: the entry point, the version, bones, slots and
 * skins (this file); attachments (spine_mesh.c), IK constraints
 * (spine_ik.c) and the chosen animation's bone timelines (spine_anim.c). The
 * numbers follow spine-core 4.2's SkeletonJson, Bone, IkConstraint and the
 * attachments' computeWorldVertices.
 *
 * Bones become group layers with pivot 0: a Spine bone's local matrix with
 * inherit "normal" and no shear is T(x, y)·R(rotation)·S(scaleX, scaleY),
 * rigd's own, and both have y up. Each slot showing an attachment in the
 * setup pose becomes a mesh layer beside the root bones (in draw order)
 * with a skin (spine_mesh.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/interchange/spine_internal.h"

/* ---- helpers */

bool spine__finite(json_t *v, double *out)
{
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return isfinite(*out);
}

/* obj[key] as a finite number, def when absent; fails at path/key. */
int spine__opt_number(const struct spine_reader *r, json_t *obj, const char *key, const char *path,
		      double def, double *out)
{
	json_t *v = json_object_get(obj, key);
	*out = def;
	if (!v || spine__finite(v, out))
		return 0;
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "%s/%s", path, key);
	return rig_jr_fail(r->jr, at, "member '%s' must be a finite number", key);
}

/* obj[key] as a boolean, def when absent. */
int spine__opt_bool(const struct spine_reader *r, json_t *obj, const char *key, const char *path,
		    bool def, bool *out)
{
	json_t *v = json_object_get(obj, key);
	*out = def;
	if (!v)
		return 0;
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return 0;
	}
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "%s/%s", path, key);
	return rig_jr_fail(r->jr, at, "member '%s' must be true or false", key);
}

void spine__path_add(char path[SPINE_PATH_MAX], const char *seg)
{
	size_t n = strlen(path);
	if (n + 1 < SPINE_PATH_MAX)
		path[n++] = '/';
	for (; *seg && n + 2 < SPINE_PATH_MAX; seg++) {
		if (*seg == '~' || *seg == '/') {
			path[n++] = '~';
			path[n++] = *seg == '~' ? '0' : '1';
		} else {
			path[n++] = *seg;
		}
	}
	path[n] = '\0';
}

long spine__bone_index(const struct spine_reader *r, const char *name)
{
	for (size_t i = 0; name && i < r->n_bones; i++)
		if (strcmp(r->bones[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* A colour other than opaque white is not carried (rigd has no tint). */
void spine__report_color(struct spine_reader *r, json_t *obj, const char *key, const char *path)
{
	const char *c = json_string_value(json_object_get(obj, key));
	if (!json_object_get(obj, key) ||
	    (c && (strcmp(c, "ffffffff") == 0 || strcmp(c, "FFFFFFFF") == 0)))
		return;
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "/%s/%s", path, key);
	rig_import_unsupported(r->im, key, at, "colours are not carried: rigd has no tint");
}

/* ---- version and bones */

static int read_version(const struct rig_jr *jr, json_t *doc)
{
	json_t *v = json_object_get(json_object_get(doc, "skeleton"), "spine");
	const char *s = json_string_value(v);
	if (s && (strcmp(s, "4.2") == 0 || strncmp(s, "4.2.", 4) == 0))
		return 0;
	struct rig_jr vjr = *jr;
	vjr.code = RIG_IMPORT_VERSION;
	char text[40] = "missing";
	if (s)
		snprintf(text, sizeof text, "%.32s", s);
	else if (v)
		snprintf(text, sizeof text, "not a string");
	rig_jr_fail(&vjr, "skeleton/spine", "Spine version %s is not 4.2.x", text);
	struct rig_err *e = &jr->errs->items[jr->errs->count - 1];
	rig_err_extra(e, "version", text);
	rig_err_list_add(e, "supportedVersions", "4.2");
	return -1;
}

/* What a bone has that rigd's layers do not: reported, the bone imported
 * as if it had none. */
static void report_bone_extras(struct spine_reader *r, json_t *b, const char *path)
{
	char at[SPINE_PATH_MAX];
	const char *shears[2] = {"shearX", "shearY"};
	for (int k = 0; k < 2; k++) {
		double s = 0;
		if (spine__finite(json_object_get(b, shears[k]), &s) && s != 0) {
			snprintf(at, sizeof at, "/%s/%s", path, shears[k]);
			rig_import_unsupported(r->im, "shear", at,
					       "rigd layers have no shear: the bone is imported "
					       "unsheared");
		}
	}
	const char *inherit = json_string_value(json_object_get(b, "inherit"));
	if (inherit && strcmp(inherit, "normal") != 0 && strcmp(inherit, "Normal") != 0) {
		snprintf(at, sizeof at, "/%s/inherit", path);
		rig_import_unsupported(r->im, "inherit", at,
				       "inherit '%.40s' is not carried: the bone inherits its "
				       "parent's whole transform",
				       inherit);
	}
	if (json_is_true(json_object_get(b, "skin"))) {
		snprintf(at, sizeof at, "/%s/skin", path);
		rig_import_unsupported(r->im, "skin-required bone", at,
				       "the bone is imported as always active");
	}
	spine__report_color(r, b, "color", path);
}

static int read_bone(struct spine_reader *r, json_t *b, size_t i)
{
	char path[SPINE_PATH_MAX], at[SPINE_PATH_MAX];
	snprintf(path, sizeof path, "bones/%zu", i);
	struct spine_bone *bone = &r->bones[i];
	bone->parent = -1;
	if (!json_is_object(b))
		return rig_jr_fail(r->jr, path, "a bone must be an object");
	int rc = 0;
	snprintf(at, sizeof at, "%s/name", path);
	bone->name = json_string_value(json_object_get(b, "name"));
	if (!bone->name || !bone->name[0])
		rc = rig_jr_fail(r->jr, at, "a bone needs a non-empty string name");
	else if (!rig_import_id(bone->id, r->im, bone->name))
		rc = rig_jr_fail(r->jr, at, "bone '%.64s' with the id prefix would pass %d bytes",
				 bone->name, RIG_ID_MAX);
	else
		rig_import_id_with(bone->joint, "", bone->name);
	json_t *p = json_object_get(b, "parent");
	snprintf(at, sizeof at, "%s/parent", path);
	if (p && !json_is_null(p) && !json_is_string(p))
		rc = rig_jr_fail(r->jr, at, "parent must be a bone's name");
	rc |= spine__opt_number(r, b, "length", path, 0, &bone->length);
	rc |= spine__opt_number(r, b, "x", path, 0, &bone->x);
	rc |= spine__opt_number(r, b, "y", path, 0, &bone->y);
	rc |= spine__opt_number(r, b, "rotation", path, 0, &bone->rotation_deg);
	rc |= spine__opt_number(r, b, "scaleX", path, 1, &bone->scale_x);
	rc |= spine__opt_number(r, b, "scaleY", path, 1, &bone->scale_y);
	double shear;
	rc |= spine__opt_number(r, b, "shearX", path, 0, &shear);
	rc |= spine__opt_number(r, b, "shearY", path, 0, &shear);
	json_t *inherit = json_object_get(b, "inherit");
	snprintf(at, sizeof at, "%s/inherit", path);
	if (inherit && !json_is_string(inherit))
		rc |= rig_jr_fail(r->jr, at, "inherit must be a string");
	if (rc == 0)
		report_bone_extras(r, b, path);
	return rc;
}

/* Bone i's parent: a bone before it (Spine reads bones in order, so a later
 * parent is either a cycle or out of order). */
static int resolve_parent(struct spine_reader *r, json_t *b, size_t i)
{
	const char *name = json_string_value(json_object_get(b, "parent"));
	if (!name)
		return 0;
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "bones/%zu/parent", i);
	long p = spine__bone_index(r, name);
	if (p < 0)
		return rig_jr_fail(r->jr, at, "parent '%.64s' names no bone", name);
	if (p == (long)i)
		return rig_jr_fail(r->jr, at, "bone '%.64s' is its own parent", name);
	r->bones[i].parent = p;
	if (p < (long)i)
		return 0;
	/* a walk up longer than the bones is a cycle */
	long at_bone = p;
	size_t steps = 0;
	while (at_bone >= 0 && at_bone != (long)i && steps++ <= r->n_bones) {
		const char *up = json_string_value(json_object_get(
			json_array_get(json_object_get(r->doc, "bones"), (size_t)at_bone),
			"parent"));
		at_bone = spine__bone_index(r, up);
	}
	if (at_bone == (long)i)
		return rig_jr_fail(r->jr, at, "bone %zu's parents form a cycle", i);
	return rig_jr_fail(r->jr, at,
			   "parent '%.64s' comes after its child: Spine reads a bone's parent "
			   "before it",
			   name);
}

static int read_bones(struct spine_reader *r)
{
	json_t *bones = json_object_get(r->doc, "bones");
	if (!json_is_array(bones) || json_array_size(bones) == 0)
		return rig_jr_fail(r->jr, "bones", "member 'bones' must be a non-empty array");
	r->n_bones = json_array_size(bones);
	r->bones = calloc(r->n_bones, sizeof *r->bones);
	if (!r->bones)
		return rig_jr_out_of_memory(r->jr, "bones");
	int rc = 0;
	for (size_t i = 0; i < r->n_bones; i++)
		rc |= read_bone(r, json_array_get(bones, i), i);
	if (rc)
		return rc;
	for (size_t i = 0; i < r->n_bones; i++)
		if (rig_import_claim_bone(r->im, r->jr, r->bones[i].id, i) != 0)
			return -1;
	for (size_t i = 0; i < r->n_bones && rc == 0; i++)
		rc = resolve_parent(r, json_array_get(bones, i), i);
	return rc;
}

/* Each bone's setup-pose world matrix (parents come first). */
static void pose_bones(struct spine_reader *r)
{
	for (size_t i = 0; i < r->n_bones; i++) {
		struct spine_bone *b = &r->bones[i];
		struct rig_transform t = rig_transform_default();
		t.ch[RIG_CH_POSITION_X] = b->x;
		t.ch[RIG_CH_POSITION_Y] = b->y;
		t.ch[RIG_CH_ROTATION] = b->rotation_deg;
		t.ch[RIG_CH_SCALE_X] = b->scale_x;
		t.ch[RIG_CH_SCALE_Y] = b->scale_y;
		struct rig_affine local = rig_transform_matrix(&t);
		b->world = b->parent < 0 ? local : rig_affine_mul(r->bones[b->parent].world, local);
	}
}

static int create_bones(struct spine_reader *r)
{
	const char *root = r->im->opts->parent_id;
	for (size_t i = 0; i < r->n_bones; i++) {
		struct spine_bone *b = &r->bones[i];
		const char *parent = b->parent >= 0 ? r->bones[b->parent].id : root;
		json_t *op = json_pack("{s:s, s:s, s:s, s:s, s:o, s:{s:[f, f], s:f, s:[f, f]}}",
				       "op", "layer.create", "layerId", b->id, "name", b->name,
				       "kind", "group", "parentId",
				       parent[0] ? json_string(parent) : json_null(), "transform",
				       "position", b->x, b->y, "rotation", b->rotation_deg, "scale",
				       b->scale_x, b->scale_y);
		char source[32];
		snprintf(source, sizeof source, "/bones/%zu", i);
		if (rig_import_op(r->im, op, source) != 0)
			return rig_jr_out_of_memory(r->jr, "bones");
		rig_import_mapped(r->im, "bone", source, b->name, "layerId", b->id);
	}
	return 0;
}

/* ---- slots and skins */

/* The default skin (its index in *at_skin), or NULL; other skins reported. */
static int read_skins(struct spine_reader *r, json_t **out, size_t *at_skin)
{
	json_t *skins = json_object_get(r->doc, "skins");
	*out = NULL;
	if (!skins)
		return 0;
	if (!json_is_array(skins))
		return rig_jr_fail(r->jr, "skins", "member 'skins' must be an array (Spine 4)");
	for (size_t k = 0; k < json_array_size(skins); k++) {
		json_t *s = json_array_get(skins, k);
		char at[64];
		snprintf(at, sizeof at, "skins/%zu", k);
		const char *name = json_string_value(json_object_get(s, "name"));
		if (!json_is_object(s) || !name)
			return rig_jr_fail(r->jr, at, "a skin must be an object with a name");
		json_t *atts = json_object_get(s, "attachments");
		if (atts && !json_is_object(atts)) {
			snprintf(at, sizeof at, "skins/%zu/attachments", k);
			return rig_jr_fail(r->jr, at, "attachments must be an object of slots");
		}
		if (strcmp(name, "default") == 0 && !*out) {
			*out = s;
			*at_skin = k;
			continue;
		}
		char source[SPINE_PATH_MAX];
		snprintf(source, sizeof source, "/skins/%zu", k);
		rig_import_unsupported(r->im, "skin", source,
				       "only the default skin is imported; skin '%.64s' is not",
				       name);
	}
	return 0;
}

static int read_slot(struct spine_reader *r, json_t *slot, size_t i, long *bone,
		     const char **attachment)
{
	char path[64], at[80];
	snprintf(path, sizeof path, "slots/%zu", i);
	if (!json_is_object(slot))
		return rig_jr_fail(r->jr, path, "a slot must be an object");
	const char *name = json_string_value(json_object_get(slot, "name"));
	snprintf(at, sizeof at, "%s/name", path);
	if (!name || !name[0])
		return rig_jr_fail(r->jr, at, "a slot needs a non-empty string name");
	snprintf(at, sizeof at, "%s/bone", path);
	*bone = spine__bone_index(r, json_string_value(json_object_get(slot, "bone")));
	if (*bone < 0)
		return rig_jr_fail(r->jr, at, "a slot's bone must name a bone");
	json_t *a = json_object_get(slot, "attachment");
	*attachment = json_string_value(a);
	snprintf(at, sizeof at, "%s/attachment", path);
	if (a && !json_is_null(a) && !*attachment)
		return rig_jr_fail(r->jr, at, "attachment must be a name or null");
	spine__report_color(r, slot, "color", path);
	spine__report_color(r, slot, "dark", path);
	const char *blend = json_string_value(json_object_get(slot, "blend"));
	if (blend && strcmp(blend, "normal") != 0) {
		char source[96];
		snprintf(source, sizeof source, "/%s/blend", path);
		rig_import_unsupported(r->im, "blend", source, "blend '%.32s' is not carried",
				       blend);
	}
	return 0;
}

/* Slot names are unique, and every slot the default skin names exists. */
static int check_slot_names(struct spine_reader *r, json_t *slots, json_t *skin_atts,
			    size_t at_skin)
{
	for (size_t i = 0; i < json_array_size(slots); i++)
		for (size_t k = 0; k < i; k++)
			if (strcmp(json_string_value(
					   json_object_get(json_array_get(slots, i), "name")),
				   json_string_value(json_object_get(json_array_get(slots, k),
								     "name"))) == 0) {
				char at[64];
				snprintf(at, sizeof at, "slots/%zu/name", i);
				return rig_jr_fail(r->jr, at, "slots %zu and %zu share a name", k,
						   i);
			}
	const char *slot_name;
	json_t *atts;
	json_object_foreach(skin_atts, slot_name, atts)
	{
		bool found = false;
		for (size_t i = 0; i < json_array_size(slots) && !found; i++)
			found = strcmp(json_string_value(
					       json_object_get(json_array_get(slots, i), "name")),
				       slot_name) == 0;
		char at[SPINE_PATH_MAX];
		snprintf(at, sizeof at, "skins/%zu/attachments", at_skin);
		spine__path_add(at, slot_name);
		if (!found)
			return rig_jr_fail(r->jr, at,
					   "the skin names slot '%.64s', which is not a slot",
					   slot_name);
		if (!json_is_object(atts))
			return rig_jr_fail(r->jr, at, "a slot's attachments must be an object");
	}
	return 0;
}

/* Each slot, in draw order, whose setup attachment is in the default skin. */
static int import_slots(struct spine_reader *r)
{
	json_t *slots = json_object_get(r->doc, "slots"), *skin;
	size_t at_skin = 0;
	int rc = read_skins(r, &skin, &at_skin);
	if (rc == 0 && slots && !json_is_array(slots))
		rc = rig_jr_fail(r->jr, "slots", "member 'slots' must be an array");
	long *bones = calloc(json_array_size(slots) + 1, sizeof *bones);
	const char **shown = calloc(json_array_size(slots) + 1, sizeof *shown);
	if (rc == 0 && (!bones || !shown))
		rc = rig_jr_out_of_memory(r->jr, "slots");
	for (size_t i = 0; rc == 0 && i < json_array_size(slots); i++)
		rc = read_slot(r, json_array_get(slots, i), i, &bones[i], &shown[i]);
	json_t *skin_atts = json_object_get(skin, "attachments");
	if (rc == 0)
		rc = check_slot_names(r, slots, skin_atts, at_skin);
	for (size_t i = 0; rc == 0 && i < json_array_size(slots); i++) {
		const char *name =
			json_string_value(json_object_get(json_array_get(slots, i), "name"));
		json_t *atts = json_object_get(skin_atts, name), *att;
		const char *att_name;
		char base[SPINE_PATH_MAX];
		snprintf(base, sizeof base, "skins/%zu/attachments", at_skin);
		spine__path_add(base, name);
		json_object_foreach(atts, att_name, att)
		{
			char path[SPINE_PATH_MAX];
			memcpy(path, base, sizeof path);
			spine__path_add(path, att_name);
			if (shown[i] && strcmp(att_name, shown[i]) == 0) {
				rc = spine__import_attachment(r, att, path, (size_t)bones[i], name);
				if (rc)
					break;
				continue;
			}
			char source[SPINE_PATH_MAX];
			snprintf(source, sizeof source, "/%s", path);
			rig_import_unsupported(
				r->im, "attachment", source,
				"slot '%.64s' does not show it in the setup pose and "
				"attachment timelines are not carried",
				name);
		}
		if (rc == 0 && shown[i] && !json_object_get(atts, shown[i])) {
			char source[64];
			snprintf(source, sizeof source, "/slots/%zu/attachment", i);
			rig_import_unsupported(r->im, "attachment", source,
					       "attachment '%.64s' is not in the default skin",
					       shown[i]);
		}
	}
	free(bones);
	free(shown);
	return rc;
}

static void report_others(struct spine_reader *r)
{
	const char *lists[3] = {"transform", "path", "physics"};
	for (int k = 0; k < 3; k++) {
		json_t *a = json_object_get(r->doc, lists[k]);
		for (size_t i = 0; i < json_array_size(a); i++) {
			char source[64];
			snprintf(source, sizeof source, "/%s/%zu", lists[k], i);
			rig_import_unsupported(r->im, "constraint", source,
					       "%s constraints are not carried", lists[k]);
		}
	}
	json_t *events = json_object_get(r->doc, "events");
	if (json_object_size(events))
		rig_import_unsupported(r->im, "events", "/events", "events are not carried");
}

int rig_spine_import(struct rig_import *im, json_t *doc, const struct rig_jr *jr)
{
	struct spine_reader r = {.im = im, .jr = jr, .doc = doc};
	if (spine__choose_animation(&r) != 0 || read_version(jr, doc) != 0)
		return -1;
	int rc = read_bones(&r);
	if (rc == 0) {
		pose_bones(&r);
		rc = create_bones(&r);
	}
	if (rc == 0)
		rc = import_slots(&r);
	if (rc == 0)
		rc = spine__import_ik(&r);
	if (rc == 0)
		rc = spine__import_animation(&r);
	if (rc == 0)
		report_others(&r);
	free(r.bones);
	return rc;
}
