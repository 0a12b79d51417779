/* .rig2d.json import (the sprite-skinning seed's asset): version 1, one mesh,
 * and version 2, parts sharing one skeleton.
 *
 *   {"version": 1, "bones": [{"name", "parent": -1 | index, "x", "y", "rot"
 *     (radians)}…], "mesh": {"verts": [[x, y]…], "uvs": [[u, v]…],
 *     "tris": [i, j, k, …]}, "skinIndices": [4 per vertex],
 *    "skinWeights": [4 per vertex, unused slots 0]}
 *   {"version": 2, "bones": […], "parts": [{"name", "mesh", "skinIndices",
 *     "skinWeights", "sprite"?, "order"?}…]}
 *
 * Bones become group layers (parents before children, whatever the array's
 * order), each posed at its bind TRS: rigd's local matrix T·R·S is the seed's
 * compose. Texture space (+y down, origin at the sprite pivot) is kept as it
 * is: rigd has no up. Each mesh becomes a mesh layer beside the root bones
 * with a skin whose joints are the bones it weights, bound where the bones
 * stand (layer.skin.bind.capture): each bind is the bone's root-local bind
 * matrix, as the seed derives it, computed by the resolver itself.
 *
 * Weights: slots of weight 0 are unused; a vertex's positive weights must sum
 * to 1 within RIG2D_WEIGHT_TOLERANCE and are renormalised (reported under
 * adjusted) when they are off by more than rigd's own 64 ε; a bone repeated
 * within a vertex has its weights added. rigd's export writes "rotDeg" beside
 * "rot" (the exact degrees); the import reads it when it agrees with rot, so
 * a round trip keeps the rotation's bits.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/interchange/interchange.h"

/* |Σw − 1| a vertex's weights may be off by and be renormalised: weights
 * written with four decimals, as editors round them. */
#define RIG2D_WEIGHT_TOLERANCE 1e-3
#define RIG2D_INFLUENCES 4

struct bone {
	const char *name;
	long parent;
	double x, y, rot_deg;
	char id[RIG_ID_MAX + 1];
	char joint[RIG_ID_MAX + 1]; /* the joint id: the name made an id */
};

struct reader {
	struct rig_import *im;
	const struct rig_jr *jr;
	struct bone *bones;
	size_t n_bones;
};

static bool finite_number(json_t *v, double *out)
{
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return isfinite(*out);
}

/* doc[key] as a finite number (required), failing at path. */
static int read_number(const struct reader *r, json_t *obj, const char *key, const char *path,
		       double *out)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		return rig_jr_fail(r->jr, path, "member '%s' is required", key);
	if (!finite_number(v, out))
		return rig_jr_fail(r->jr, path, "member '%s' must be a finite number", key);
	return 0;
}

static int read_bone(struct reader *r, json_t *b, size_t i)
{
	char path[64];
	struct bone *bone = &r->bones[i];
	if (!json_is_object(b)) {
		snprintf(path, sizeof path, "bones/%zu", i);
		return rig_jr_fail(r->jr, path, "a bone must be an object");
	}
	int rc = 0;
	snprintf(path, sizeof path, "bones/%zu/name", i);
	bone->name = json_string_value(json_object_get(b, "name"));
	if (!bone->name || !bone->name[0])
		rc = rig_jr_fail(r->jr, path, "a bone needs a non-empty string name");
	else if (!rig_import_id(bone->id, r->im, bone->name))
		rc = rig_jr_fail(r->jr, path, "bone '%.64s' with the id prefix would pass %d bytes",
				 bone->name, RIG_ID_MAX);
	else
		rig_import_id_with(bone->joint, "", bone->name);
	snprintf(path, sizeof path, "bones/%zu/parent", i);
	json_t *p = json_object_get(b, "parent");
	json_int_t parent = -1;
	if (p && !json_is_null(p)) {
		if (!json_is_integer(p))
			rc = rig_jr_fail(r->jr, path, "parent must be a bone index or -1");
		else
			parent = json_integer_value(p);
	}
	if (parent < -1 || parent >= (json_int_t)r->n_bones || parent == (json_int_t)i)
		rc = rig_jr_fail(r->jr, path, "parent %lld names no other bone (0..%zu, or -1)",
				 (long long)parent, r->n_bones - 1);
	bone->parent = (long)parent;
	double rot = 0;
	snprintf(path, sizeof path, "bones/%zu/x", i);
	rc |= read_number(r, b, "x", path, &bone->x);
	snprintf(path, sizeof path, "bones/%zu/y", i);
	rc |= read_number(r, b, "y", path, &bone->y);
	snprintf(path, sizeof path, "bones/%zu/rot", i);
	if (json_object_get(b, "rot") || !json_object_get(b, "rotDeg"))
		rc |= read_number(r, b, "rot", path, &rot);
	bone->rot_deg = rot * (180 / M_PI);
	double deg;
	if (finite_number(json_object_get(b, "rotDeg"), &deg) &&
	    (!json_object_get(b, "rot") ||
	     fabs(deg * (M_PI / 180) - rot) <= 1e-9 * fmax(1, fabs(rot))))
		bone->rot_deg = deg;
	return rc;
}

/* Every bone read; names distinct as ids; no parent cycle. */
static int read_bones(struct reader *r, json_t *doc)
{
	json_t *bones = json_object_get(doc, "bones");
	if (!json_is_array(bones))
		return rig_jr_fail(r->jr, "bones", "member 'bones' must be an array of bones");
	r->n_bones = json_array_size(bones);
	r->bones = calloc(r->n_bones ? r->n_bones : 1, sizeof *r->bones);
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
	for (size_t i = 0; i < r->n_bones; i++) { /* a walk up longer than n is a cycle */
		long at = (long)i;
		size_t steps = 0;
		while (at >= 0 && steps <= r->n_bones) {
			at = r->bones[at].parent;
			steps++;
		}
		if (at >= 0) {
			char path[64];
			snprintf(path, sizeof path, "bones/%zu/parent", i);
			return rig_jr_fail(r->jr, path, "bone %zu's parents form a cycle", i);
		}
	}
	return 0;
}

/* layer.create for bone i, after its parent (done marks those made). */
static int create_bone(struct reader *r, size_t i, bool *done)
{
	if (done[i])
		return 0;
	struct bone *b = &r->bones[i];
	if (b->parent >= 0 && create_bone(r, (size_t)b->parent, done) != 0)
		return -1;
	done[i] = true;
	const char *parent = b->parent >= 0 ? r->bones[b->parent].id : r->im->opts->parent_id;
	json_t *op = json_pack("{s:s, s:s, s:s, s:s, s:o, s:{s:[f, f], s:f}}", "op", "layer.create",
			       "layerId", b->id, "name", b->name, "kind", "group", "parentId",
			       parent[0] ? json_string(parent) : json_null(), "transform",
			       "position", b->x, b->y, "rotation", b->rot_deg);
	char source[32];
	snprintf(source, sizeof source, "/bones/%zu", i);
	if (rig_import_op(r->im, op, source) != 0)
		return rig_jr_out_of_memory(r->jr, "bones");
	rig_import_mapped(r->im, "bone", source, b->name, "layerId", b->id);
	return 0;
}

/* An [x, y] pair of finite numbers. */
static bool read_pair(json_t *v, double out[2])
{
	return json_is_array(v) && json_array_size(v) == 2 &&
	       finite_number(json_array_get(v, 0), &out[0]) &&
	       finite_number(json_array_get(v, 1), &out[1]);
}

/* The array member key of mesh (at path, "" when absent and optional) as
 * pairs. Returns its JSON array, or NULL with a violation recorded. */
static json_t *read_pairs(const struct reader *r, json_t *mesh, const char *key, const char *path,
			  size_t n_expected)
{
	json_t *a = json_object_get(mesh, key);
	char at[96];
	snprintf(at, sizeof at, "%s/%s", path, key);
	if (!json_is_array(a)) {
		rig_jr_fail(r->jr, at, "member '%s' must be an array of [x, y] pairs", key);
		return NULL;
	}
	if (n_expected != SIZE_MAX && json_array_size(a) != n_expected) {
		rig_jr_fail(r->jr, at, "%zu entries for %zu vertices", json_array_size(a),
			    n_expected);
		return NULL;
	}
	for (size_t v = 0; v < json_array_size(a); v++) {
		double p[2];
		if (!read_pair(json_array_get(a, v), p)) {
			snprintf(at, sizeof at, "%s/%s/%zu", path, key, v);
			rig_jr_fail(r->jr, at, "must be two finite numbers");
			return NULL;
		}
	}
	return a;
}

struct influence {
	long bone;
	double weight;
};

/* The skin's weights for n vertices from part (skinIndices, skinWeights at
 * path): per vertex its positive influences, bones merged, renormalised.
 * Fills used[bone] for the bones weighted. Returns the weights array (new
 * reference) in rigd's shape with joint ids, or NULL with a violation. */
static json_t *read_weights(struct reader *r, json_t *part, const char *path, size_t n, bool *used)
{
	json_t *idx = json_object_get(part, "skinIndices");
	json_t *wts = json_object_get(part, "skinWeights");
	char at[96];
	const char *names[2] = {"skinIndices", "skinWeights"};
	json_t *arrays[2] = {idx, wts};
	for (int k = 0; k < 2; k++)
		if (!json_is_array(arrays[k]) ||
		    json_array_size(arrays[k]) != RIG2D_INFLUENCES * n) {
			snprintf(at, sizeof at, "%s%s%s", path, path[0] ? "/" : "", names[k]);
			rig_jr_fail(r->jr, at, "member '%s' must hold %d numbers per vertex (%zu)",
				    names[k], RIG2D_INFLUENCES, RIG2D_INFLUENCES * n);
			return NULL;
		}
	json_t *out = json_array();
	size_t renormalised = 0, merged = 0;
	long first_renormalised = -1;
	for (size_t v = 0; out && v < n; v++) {
		struct influence in[RIG2D_INFLUENCES];
		size_t count = 0;
		double sum = 0;
		for (size_t s = 0; s < RIG2D_INFLUENCES; s++) {
			size_t k = RIG2D_INFLUENCES * v + s;
			double w;
			json_t *bi = json_array_get(idx, k);
			if (!finite_number(json_array_get(wts, k), &w) || w < 0) {
				snprintf(at, sizeof at, "%s%sskinWeights/%zu", path,
					 path[0] ? "/" : "", k);
				rig_jr_fail(r->jr, at, "a weight is a finite number >= 0");
				goto fail;
			}
			if (w == 0)
				continue;
			if (!json_is_integer(bi) || json_integer_value(bi) < 0 ||
			    json_integer_value(bi) >= (json_int_t)r->n_bones) {
				snprintf(at, sizeof at, "%s%sskinIndices/%zu", path,
					 path[0] ? "/" : "", k);
				rig_jr_fail(r->jr, at, "a weighted slot names a bone (0..%zu)",
					    r->n_bones ? r->n_bones - 1 : 0);
				goto fail;
			}
			long bone = (long)json_integer_value(bi);
			sum += w;
			size_t q = 0;
			while (q < count && in[q].bone != bone)
				q++;
			if (q < count) {
				in[q].weight += w;
				merged++;
			} else {
				in[count++] = (struct influence){bone, w};
			}
		}
		if (count == 0 || fabs(sum - 1) > RIG2D_WEIGHT_TOLERANCE) {
			snprintf(at, sizeof at, "%s%sskinWeights/%zu", path, path[0] ? "/" : "",
				 RIG2D_INFLUENCES * v);
			rig_jr_fail(r->jr, at, "vertex %zu's weights sum to %.9g, not 1 within %g",
				    v, sum, RIG2D_WEIGHT_TOLERANCE);
			goto fail;
		}
		bool rescale = fabs(sum - 1) > 64 * DBL_EPSILON;
		if (rescale && renormalised++ == 0)
			first_renormalised = (long)v;
		json_t *list = json_array();
		for (size_t q = 0; q < count; q++) {
			used[in[q].bone] = true;
			json_array_append_new(
				list,
				json_pack("{s:s, s:f}", "jointId", r->bones[in[q].bone].joint,
					  "weight", rescale ? in[q].weight / sum : in[q].weight));
		}
		json_array_append_new(out, list);
	}
	if (!out) {
		rig_jr_out_of_memory(r->jr, "skinWeights");
		return NULL;
	}
	char source[96];
	snprintf(source, sizeof source, "%s%s/skinWeights", path[0] ? "/" : "", path);
	if (renormalised)
		rig_import_adjusted(r->im, "weights renormalised", source,
				    "%zu vertices' weights summed to within %g of 1 and were "
				    "divided by their sum (the first: vertex %ld)",
				    renormalised, RIG2D_WEIGHT_TOLERANCE, first_renormalised);
	if (merged)
		rig_import_adjusted(r->im, "repeated bone", source,
				    "%zu slots repeated a bone of their vertex; their weights were "
				    "added",
				    merged);
	return out;
fail:
	json_decref(out);
	return NULL;
}

/* The triangles of mesh (at path) as rigd's [[i, j, k]…] for n vertices. */
static json_t *read_tris(const struct reader *r, json_t *mesh, const char *path, size_t n)
{
	json_t *tris = json_object_get(mesh, "tris");
	char at[96];
	snprintf(at, sizeof at, "%s/tris", path);
	if (!json_is_array(tris) || json_array_size(tris) == 0 || json_array_size(tris) % 3) {
		rig_jr_fail(r->jr, at,
			    "member 'tris' must be a non-empty array of 3 indices "
			    "per triangle");
		return NULL;
	}
	json_t *out = json_array();
	for (size_t t = 0; out && t < json_array_size(tris) / 3; t++) {
		json_int_t c[3];
		for (int k = 0; k < 3; k++) {
			json_t *v = json_array_get(tris, 3 * t + k);
			c[k] = json_is_integer(v) ? json_integer_value(v) : -1;
			if (c[k] < 0 || c[k] >= (json_int_t)n) {
				snprintf(at, sizeof at, "%s/tris/%zu", path, 3 * t + k);
				rig_jr_fail(r->jr, at, "a triangle index names a vertex (0..%zu)",
					    n - 1);
				json_decref(out);
				return NULL;
			}
		}
		json_array_append_new(out, json_pack("[I, I, I]", c[0], c[1], c[2]));
	}
	if (!out)
		rig_jr_out_of_memory(r->jr, "tris");
	return out;
}

/* One mesh layer with its skin from part (the document itself for v1;
 * path "" there, "parts/<i>" for v2). */
static int import_part(struct reader *r, json_t *part, const char *path, const char *name)
{
	char at[96], source[96];
	snprintf(at, sizeof at, "%s%smesh", path, path[0] ? "/" : "");
	snprintf(source, sizeof source, "/%s", at);
	json_t *mesh = json_object_get(part, "mesh");
	if (!json_is_object(mesh))
		return rig_jr_fail(r->jr, at, "member 'mesh' must be an object {verts, uvs, tris}");
	json_t *verts = read_pairs(r, mesh, "verts", at, SIZE_MAX);
	if (!verts)
		return -1;
	size_t n = json_array_size(verts);
	if (n < 3)
		return rig_jr_fail(r->jr, at, "a mesh needs at least 3 verts, not %zu", n);
	json_t *uvs = NULL;
	if (json_object_get(mesh, "uvs") && !(uvs = read_pairs(r, mesh, "uvs", at, n)))
		return -1;
	if (!uvs)
		rig_import_unsupported(r->im, "uvs", source,
				       "the mesh has no uvs; none are stored");
	json_t *tris = read_tris(r, mesh, at, n);
	if (!tris)
		return -1;
	bool *used = calloc(r->n_bones ? r->n_bones : 1, sizeof *used);
	json_t *weights = used ? read_weights(r, part, path, n, used) : NULL;
	char id[RIG_ID_MAX + 1];
	int rc = -1;
	if (!used)
		rig_jr_out_of_memory(r->jr, "skinWeights");
	if (!weights)
		goto out;
	if (!rig_import_mesh_id(id, r->im, name)) {
		rig_jr_fail(r->jr, path[0] ? path : "mesh",
			    "mesh '%.64s' has no free layer id with the id prefix", name);
		goto out;
	}
	json_t *source_pts = json_array(), *joints = json_array(), *map = json_array();
	for (size_t v = 0; v < n; v++) {
		json_t *p = json_array_get(verts, v);
		json_array_append_new(source_pts, json_pack("{s:O, s:O}", "x", json_array_get(p, 0),
							    "y", json_array_get(p, 1)));
	}
	for (size_t b = 0; b < r->n_bones; b++) {
		if (!used[b])
			continue;
		json_array_append_new(joints,
				      json_pack("{s:s, s:[i, i, i, i, i, i]}", "id",
						r->bones[b].joint, "bind", 1, 0, 0, 1, 0, 0));
		json_array_append_new(map, json_pack("{s:s, s:s}", "jointId", r->bones[b].joint,
						     "layerId", r->bones[b].id));
	}
	const char *parent = r->im->opts->parent_id;
	rc = rig_import_op(r->im,
			   json_pack("{s:s, s:s, s:s, s:s, s:o}", "op", "layer.create", "layerId",
				     id, "name", name, "kind", "mesh", "parentId",
				     parent[0] ? json_string(parent) : json_null()),
			   source);
	json_t *skin = json_pack("{s:o, s:O, s:o, s:O, s:o}", "source", source_pts, "triangles",
				 tris, "joints", joints, "weights", weights, "jointLayers", map);
	if (skin && uvs)
		json_object_set(skin, "uvs", uvs);
	rc |= rig_import_op(
		r->im,
		json_pack("{s:s, s:s, s:o}", "op", "layer.skin", "layerId", id, "skin", skin),
		source);
	/* every bind the bone's root-local matrix where it stands */
	rc |= rig_import_op(r->im,
			    json_pack("{s:s, s:s, s:i}", "op", "layer.skin.bind.capture", "layerId",
				      id, "frame", 0),
			    "/bones");
	if (rc)
		rig_jr_out_of_memory(r->jr, "mesh");
	else
		rig_import_mapped(r->im, "mesh", source, name, "layerId", id);
out:
	json_decref(tris);
	json_decref(weights);
	free(used);
	return rc;
}

static int read_version(const struct rig_jr *jr, json_t *doc, long *out)
{
	json_t *v = json_object_get(doc, "version");
	if (json_is_integer(v) && (json_integer_value(v) == 1 || json_integer_value(v) == 2)) {
		*out = (long)json_integer_value(v);
		return 0;
	}
	struct rig_jr vjr = *jr;
	vjr.code = RIG_IMPORT_VERSION;
	char text[40] = "missing";
	if (json_is_integer(v))
		snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		snprintf(text, sizeof text, "%.32s", json_string_value(v));
	else if (v)
		snprintf(text, sizeof text, "not a number");
	rig_jr_fail(&vjr, "version", ".rig2d.json version %s is not 1 or 2", text);
	struct rig_err *e = &jr->errs->items[jr->errs->count - 1];
	rig_err_extra(e, "version", text);
	rig_err_list_add(e, "supportedVersions", "1");
	rig_err_list_add(e, "supportedVersions", "2");
	return -1;
}

int rig_rig2d_import(struct rig_import *im, json_t *doc, const struct rig_jr *jr)
{
	static const char *const no_options[] = {NULL};
	struct rig_jr ojr = {jr->errs, RIG_OP_INVALID, im->opts->options_pointer, jr->op_index};
	if (im->opts->options && rig_jr_known(&ojr, im->opts->options, no_options) != 0)
		return -1;
	long version;
	if (read_version(jr, doc, &version) != 0)
		return -1;
	struct reader r = {.im = im, .jr = jr};
	bool *done = NULL;
	int rc = read_bones(&r, doc);
	if (rc || !(done = calloc(r.n_bones ? r.n_bones : 1, sizeof *done))) {
		if (!rc)
			rig_jr_out_of_memory(jr, "bones");
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < r.n_bones && rc == 0; i++)
		rc = create_bone(&r, i, done);
	if (json_is_string(json_object_get(doc, "sprite")))
		rig_import_unsupported(im, "sprite", "/sprite",
				       "the sprite (a texture reference) is not stored: rigd keeps "
				       "geometry and uvs only");
	if (rc == 0 && version == 1) {
		const char *name = json_string_value(json_object_get(doc, "name"));
		if (json_object_get(doc, "mesh"))
			rc = import_part(&r, doc, "", name && name[0] ? name : "mesh");
	} else if (rc == 0) {
		json_t *parts = json_object_get(doc, "parts");
		if (!json_is_array(parts)) {
			rc = rig_jr_fail(jr, "parts", "version 2 needs member 'parts', an array");
			goto out;
		}
		for (size_t p = 0; p < json_array_size(parts) && rc == 0; p++) {
			json_t *part = json_array_get(parts, p);
			char path[32], fallback[32];
			snprintf(path, sizeof path, "parts/%zu", p);
			snprintf(fallback, sizeof fallback, "part%zu", p);
			if (!json_is_object(part)) {
				rc = rig_jr_fail(jr, path, "a part must be an object");
				break;
			}
			const char *name = json_string_value(json_object_get(part, "name"));
			rc = import_part(&r, part, path, name && name[0] ? name : fallback);
			if (json_is_string(json_object_get(part, "sprite")))
				rig_import_unsupported(im, "sprite", path,
						       "the part's sprite is not stored");
		}
	}
out:
	free(done);
	free(r.bones);
	return rc;
}
