/* Spine 4.2 import, IK constraints as rigd's constraint.put: what maps
 * exactly (1-bone aim with stretch, compress and mix; 2-bone law of cosines
 * with either bend, softness converted into rigd's solve frame) and what is
 * reported as differing from spine-core's IkConstraint (uniform, 2-bone
 * stretch, a non-uniformly scaled first bone, full reach).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/interchange/spine_internal.h"

/* ---- IK constraints */

struct ik {
	const char *name;
	long bones[2];
	size_t n_bones;
	long target;
	double mix, softness, order;
	bool bend_positive, compress, stretch, uniform;
	/* rigd's export writes its softness beside Spine's ("rigdSoftness"):
	 * the conversion below gives it back only to a few ulps */
	double rigd_softness;
	bool has_rigd_softness;
	char id[RIG_ID_MAX + 1];
};

static int read_ik_bones(struct spine_reader *r, json_t *c, const char *path, struct ik *ik)
{
	char at[SPINE_PATH_MAX];
	json_t *bones = json_object_get(c, "bones");
	snprintf(at, sizeof at, "%s/bones", path);
	if (!json_is_array(bones) || json_array_size(bones) < 1 || json_array_size(bones) > 2)
		return rig_jr_fail(r->jr, at, "an IK constraint's bones are 1 or 2 bone names");
	ik->n_bones = json_array_size(bones);
	for (size_t k = 0; k < ik->n_bones; k++) {
		snprintf(at, sizeof at, "%s/bones/%zu", path, k);
		ik->bones[k] = spine__bone_index(r, json_string_value(json_array_get(bones, k)));
		if (ik->bones[k] < 0)
			return rig_jr_fail(r->jr, at, "names no bone");
	}
	snprintf(at, sizeof at, "%s/bones/0", path);
	if (r->bones[ik->bones[0]].parent < 0)
		return rig_jr_fail(r->jr, at,
				   "spine-core needs an IK chain's first bone to have a "
				   "parent");
	snprintf(at, sizeof at, "%s/bones/1", path);
	if (ik->n_bones == 2 && r->bones[ik->bones[1]].parent != ik->bones[0])
		return rig_jr_fail(r->jr, at, "the second bone must be the first one's child");
	snprintf(at, sizeof at, "%s/target", path);
	ik->target = spine__bone_index(r, json_string_value(json_object_get(c, "target")));
	if (ik->target < 0)
		return rig_jr_fail(r->jr, at, "target must name a bone");
	return 0;
}

static int read_ik(struct spine_reader *r, json_t *c, size_t i, struct ik *ik)
{
	char path[64], at[80];
	snprintf(path, sizeof path, "ik/%zu", i);
	if (!json_is_object(c))
		return rig_jr_fail(r->jr, path, "an IK constraint must be an object");
	ik->name = json_string_value(json_object_get(c, "name"));
	snprintf(at, sizeof at, "%s/name", path);
	if (!ik->name || !ik->name[0])
		return rig_jr_fail(r->jr, at, "an IK constraint needs a non-empty string name");
	if (!rig_import_id(ik->id, r->im, ik->name))
		return rig_jr_fail(r->jr, at, "'%.64s' with the id prefix would pass %d bytes",
				   ik->name, RIG_ID_MAX);
	int rc = read_ik_bones(r, c, path, ik);
	rc |= spine__opt_number(r, c, "mix", path, 1, &ik->mix);
	rc |= spine__opt_number(r, c, "softness", path, 0, &ik->softness);
	rc |= spine__opt_number(r, c, "order", path, 0, &ik->order);
	rc |= spine__opt_bool(r, c, "bendPositive", path, true, &ik->bend_positive);
	rc |= spine__opt_bool(r, c, "compress", path, false, &ik->compress);
	rc |= spine__opt_bool(r, c, "stretch", path, false, &ik->stretch);
	rc |= spine__opt_bool(r, c, "uniform", path, false, &ik->uniform);
	ik->has_rigd_softness =
		spine__finite(json_object_get(c, "rigdSoftness"), &ik->rigd_softness);
	snprintf(at, sizeof at, "%s/mix", path);
	if (rc == 0 && (ik->mix < 0 || ik->mix > 1))
		rc = rig_jr_fail(r->jr, at, "mix must be in [0, 1]");
	snprintf(at, sizeof at, "%s/softness", path);
	if (rc == 0 && ik->softness < 0)
		rc = rig_jr_fail(r->jr, at, "softness must be >= 0");
	snprintf(at, sizeof at, "%s/order", path);
	if (rc == 0 && (ik->order != floor(ik->order) || fabs(ik->order) > 1e9))
		rc = rig_jr_fail(r->jr, at, "order must be an integer within ±1e9");
	return rc;
}

/* Spine's 2-bone softness, in the root's parent's frame (rigd's): spine-core
 * scales it by psx·(csx + 1)/2 in the parent's parent's local space, rigd
 * measures it there with that parent's scale kept (√|det P|). At the setup
 * pose's scales; reported when an animation changes them. */
static double soft_units(struct spine_reader *r, const struct ik *ik, const char *source)
{
	const struct spine_bone *p = &r->bones[ik->bones[0]], *c = &r->bones[ik->bones[1]];
	const double *pp = r->bones[p->parent].world.m;
	double s = ik->softness * fabs(p->scale_x) * (fabs(c->scale_x) + 1) * 0.5 *
		   sqrt(fabs(pp[0] * pp[3] - pp[1] * pp[2]));
	bool keyed = spine__scale_keyed(r, (size_t)ik->bones[1]);
	for (long b = ik->bones[0]; b >= 0 && !keyed; b = r->bones[b].parent)
		keyed = spine__scale_keyed(r, (size_t)b);
	if (keyed && ik->softness > 0)
		rig_import_adjusted(r->im, "ik softness", source,
				    "softness was converted at the setup pose's scales; the "
				    "animation scales the chain or its parents, where spine-core "
				    "rescales it each frame");
	if (ik->has_rigd_softness && fabs(ik->rigd_softness - s) <= 1e-9 * fmax(1, fabs(s)))
		return ik->rigd_softness;
	return s;
}

/* What rigd's solver does otherwise than spine-core's, for this constraint. */
static void report_ik_differences(struct spine_reader *r, const struct ik *ik, const char *source)
{
	if (ik->uniform && (ik->stretch || ik->compress))
		rig_import_unsupported(r->im, "ik uniform", source,
				       "uniform: spine-core scales the bone's y with its x when it "
				       "stretches or compresses; rigd scales x only");
	if (ik->n_bones == 1)
		return;
	const struct spine_bone *p = &r->bones[ik->bones[0]];
	if (ik->stretch)
		rig_import_unsupported(r->im, "ik stretch", source,
				       "2-bone stretch: spine-core scales the first bone (its "
				       "attachments and other children stretch too) and puts the "
				       "child on its x axis; rigd moves the child away and scales "
				       "the tip, so only the chain's bones stretch");
	if (fabs(fabs(p->scale_x) - fabs(p->scale_y)) > 1e-4 ||
	    spine__scale_keyed(r, (size_t)ik->bones[0]))
		rig_import_unsupported(r->im, "ik non-uniform parent", source,
				       "the first bone scales (or may scale) non-uniformly: "
				       "spine-core then solves another way than rigd");
	rig_import_adjusted(r->im, "ik reach", source,
			    "a target at or beyond full reach: rigd keeps the elbow 1e-6 units "
			    "short of straight where spine-core straightens it");
}

/* rigd's order for constraint i of n: spine-core runs equal orders in
 * document order, rigd by constraintId, so the index breaks ties. */
static json_int_t rig_order(const struct ik *ik, size_t i, size_t n)
{
	double o = ik->order * (double)n + (double)i;
	return (json_int_t)(fabs(o) <= 1e9 ? o : ik->order);
}

static int emit_ik(struct spine_reader *r, const struct ik *ik, size_t i, size_t n)
{
	char source[64];
	snprintf(source, sizeof source, "/ik/%zu", i);
	const struct spine_bone *tip = &r->bones[ik->bones[ik->n_bones - 1]];
	double tip_length = tip->length;
	if (tip_length <= 0) {
		if (ik->n_bones == 2 || ik->stretch || ik->compress) {
			rig_import_unsupported(
				r->im, "ik", source,
				"the tip bone '%.64s' has no length, which rigd's IK "
				"needs here: the constraint is not imported",
				tip->name);
			return 0;
		}
		tip_length = 1; /* aiming alone does not depend on the length */
	}
	json_t *chain = json_array();
	for (size_t k = 0; k < ik->n_bones; k++)
		json_array_append_new(chain, json_string(r->bones[ik->bones[k]].id));
	double softness = ik->n_bones == 2 ? soft_units(r, ik, source) : 0;
	if (ik->n_bones == 1 && ik->softness > 0)
		rig_import_adjusted(r->im, "ik softness", source,
				    "softness does nothing for one bone in spine-core; dropped");
	json_t *op = json_pack("{s:s, s:s, s:o, s:s, s:b, s:f, s:f, s:f, s:b, s:b, s:I}", "op",
			       "constraint.put", "constraintId", ik->id, "chain", chain, "target",
			       r->bones[ik->target].id, "bendPositive", ik->bend_positive,
			       "tipLength", tip_length, "mix", ik->mix, "softness", softness,
			       "stretch", ik->stretch, "compress", ik->n_bones == 1 && ik->compress,
			       "order", rig_order(ik, i, n));
	if (rig_import_op(r->im, op, source) != 0)
		return rig_jr_out_of_memory(r->jr, "ik");
	report_ik_differences(r, ik, source);
	rig_import_mapped(r->im, "constraint", source, ik->name, "constraintId", ik->id);
	return 0;
}

int spine__import_ik(struct spine_reader *r)
{
	json_t *list = json_object_get(r->doc, "ik");
	if (!list)
		return 0;
	if (!json_is_array(list))
		return rig_jr_fail(r->jr, "ik", "member 'ik' must be an array");
	size_t n = json_array_size(list);
	struct ik *iks = calloc(n + 1, sizeof *iks);
	if (!iks)
		return rig_jr_out_of_memory(r->jr, "ik");
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = read_ik(r, json_array_get(list, i), i, &iks[i]);
		for (size_t k = 0; k < i && rc == 0; k++)
			if (strcmp(iks[k].id, iks[i].id) == 0) {
				char at[64];
				snprintf(at, sizeof at, "ik/%zu/name", i);
				rc = rig_jr_fail(r->jr, at,
						 "IK constraints %zu and %zu both become '%s'", k,
						 i, iks[i].id);
			}
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = emit_ik(r, &iks[i], i, n);
	free(iks);
	return rc;
}

/* Everything else the document holds that rigd does not carry. */
