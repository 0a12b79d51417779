/* Spine 4.2 JSON import: the skeleton, slots, the default skin's region and
 * mesh attachments and IK constraints (this file); the chosen animation's
 * bone timelines (spine_anim.c). The numbers follow spine-core 4.2's
 * SkeletonJson, Bone, IkConstraint and the attachments' computeWorldVertices.
 *
 * Bones become group layers with pivot 0: a Spine bone's local matrix with
 * inherit "normal" and no shear is T(x, y)·R(rotation)·S(scaleX, scaleY),
 * rigd's own, and both have y up. Each slot showing an attachment in the
 * setup pose becomes a mesh layer beside the root bones (in draw order) with
 * a skin whose joints are the bones it follows, bound explicitly at each
 * bone's setup-pose world matrix (never captured: an animation key at frame
 * 0 would capture the animated pose). Vertices are stored where the setup
 * pose puts them, so pose · bind⁻¹ · v is the bone's world matrix times the
 * vertex's bone-local point, as Spine computes it.
 *
 * A weighted vertex's influences each carry a bone-local point; rigd has one
 * source point per vertex. When the influences' points land within 1e-6 of
 * each other in the setup pose that point is exact; otherwise the vertex is
 * their weighted average (Spine's own setup-pose position) and is reported
 * under adjusted with its index, since animated poses then differ.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/interchange/spine_internal.h"

/* |Σw − 1| a weighted vertex may be off by and be renormalised (reported):
 * the rig2d loader's tolerance. */
#define SPINE_WEIGHT_TOLERANCE 1e-3
/* How far apart a vertex's influences' setup-pose points may be and still be
 * one point. */
#define SPINE_BIND_AGREE 1e-6
/* Per attachment, the disagreeing vertices reported one by one. */
#define SPINE_REPORT_VERTICES 16

/* ---- helpers */

static bool finite_number(json_t *v, double *out)
{
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return isfinite(*out);
}

/* obj[key] as a finite number, def when absent; fails at path/key. */
static int opt_number(const struct spine_reader *r, json_t *obj, const char *key, const char *path,
		      double def, double *out)
{
	json_t *v = json_object_get(obj, key);
	*out = def;
	if (!v || finite_number(v, out))
		return 0;
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "%s/%s", path, key);
	return rig_jr_fail(r->jr, at, "member '%s' must be a finite number", key);
}

/* obj[key] as a boolean, def when absent. */
static int opt_bool(const struct spine_reader *r, json_t *obj, const char *key, const char *path,
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

/* m = p · l (rigd order [a, b, c, d, e, f]). */
static void affine_mul(double m[6], const double p[6], const double l[6])
{
	double a = p[0] * l[0] + p[2] * l[1], b = p[1] * l[0] + p[3] * l[1];
	double c = p[0] * l[2] + p[2] * l[3], d = p[1] * l[2] + p[3] * l[3];
	double e = p[0] * l[4] + p[2] * l[5] + p[4], f = p[1] * l[4] + p[3] * l[5] + p[5];
	m[0] = a, m[1] = b, m[2] = c, m[3] = d, m[4] = e, m[5] = f;
}

static void affine_apply(const double m[6], double x, double y, double out[2])
{
	out[0] = m[0] * x + m[2] * y + m[4];
	out[1] = m[1] * x + m[3] * y + m[5];
}

/* A colour other than opaque white is not carried (rigd has no tint). */
static void report_color(struct spine_reader *r, json_t *obj, const char *key, const char *path)
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
		if (finite_number(json_object_get(b, shears[k]), &s) && s != 0) {
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
	report_color(r, b, "color", path);
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
	rc |= opt_number(r, b, "length", path, 0, &bone->length);
	rc |= opt_number(r, b, "x", path, 0, &bone->x);
	rc |= opt_number(r, b, "y", path, 0, &bone->y);
	rc |= opt_number(r, b, "rotation", path, 0, &bone->rotation_deg);
	rc |= opt_number(r, b, "scaleX", path, 1, &bone->scale_x);
	rc |= opt_number(r, b, "scaleY", path, 1, &bone->scale_y);
	double shear;
	rc |= opt_number(r, b, "shearX", path, 0, &shear);
	rc |= opt_number(r, b, "shearY", path, 0, &shear);
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
		for (size_t k = 0; k < i; k++)
			if (strcmp(r->bones[i].id, r->bones[k].id) == 0) {
				char at[64];
				snprintf(at, sizeof at, "bones/%zu/name", i);
				return rig_jr_fail(r->jr, at,
						   "bones %zu and %zu both become layer '%s'", k, i,
						   r->bones[i].id);
			}
	for (size_t i = 0; i < r->n_bones && rc == 0; i++)
		rc = resolve_parent(r, json_array_get(bones, i), i);
	return rc;
}

/* Each bone's setup-pose world matrix (parents come first). */
static void pose_bones(struct spine_reader *r)
{
	for (size_t i = 0; i < r->n_bones; i++) {
		struct spine_bone *b = &r->bones[i];
		double t = b->rotation_deg * (M_PI / 180), c = cos(t), s = sin(t);
		double local[6] = {c * b->scale_x, s * b->scale_x, -s * b->scale_y,
				   c * b->scale_y, b->x,           b->y};
		if (b->parent < 0)
			memcpy(b->world, local, sizeof local);
		else
			affine_mul(b->world, r->bones[b->parent].world, local);
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

/* ---- attachments */

/* A skin under construction: per vertex its setup-pose point, uv and
 * influences (joint ids of bones). */
struct geometry {
	size_t n;
	double *xy, *uv;
	json_t *triangles, *weights;
	bool *used; /* per bone */
};

static void geometry_release(struct geometry *g)
{
	free(g->xy);
	free(g->uv);
	free(g->used);
	json_decref(g->triangles);
	json_decref(g->weights);
	memset(g, 0, sizeof *g);
}

static int geometry_init(struct spine_reader *r, struct geometry *g, size_t n)
{
	g->n = n;
	g->xy = calloc(2 * n, sizeof *g->xy);
	g->uv = calloc(2 * n, sizeof *g->uv);
	g->used = calloc(r->n_bones, sizeof *g->used);
	g->triangles = json_array();
	g->weights = json_array();
	if (g->xy && g->uv && g->used && g->triangles && g->weights)
		return 0;
	return rig_jr_out_of_memory(r->jr, "skins");
}

/* Vertex v follows bone alone. */
static int one_influence(struct spine_reader *r, struct geometry *g, size_t bone)
{
	g->used[bone] = true;
	return json_array_append_new(g->weights, json_pack("[{s:s, s:i}]", "jointId",
							   r->bones[bone].joint, "weight", 1));
}

/* A region attachment's quad (RegionAttachment.updateRegion with the whole
 * region): corners bottom-left, top-left, top-right, bottom-right in the
 * bone's space, uvs of the region 0..1 (v down), triangles 0-1-2 and 2-3-0. */
static int read_region(struct spine_reader *r, struct geometry *g, json_t *att, const char *path,
		       size_t bone)
{
	double x, y, rot, sx, sy, w = 0, h = 0;
	int rc = opt_number(r, att, "x", path, 0, &x) | opt_number(r, att, "y", path, 0, &y) |
		 opt_number(r, att, "rotation", path, 0, &rot) |
		 opt_number(r, att, "scaleX", path, 1, &sx) |
		 opt_number(r, att, "scaleY", path, 1, &sy);
	const char *dims[2] = {"width", "height"};
	double *out[2] = {&w, &h};
	for (int k = 0; k < 2; k++) {
		char at[SPINE_PATH_MAX];
		snprintf(at, sizeof at, "%s/%s", path, dims[k]);
		if (!finite_number(json_object_get(att, dims[k]), out[k]))
			rc = rig_jr_fail(r->jr, at, "a region needs a finite '%s'", dims[k]);
	}
	if (rc || geometry_init(r, g, 4) != 0)
		return -1;
	double lx = -w / 2 * sx, ly = -h / 2 * sy, lx2 = w / 2 * sx, ly2 = h / 2 * sy;
	double t = rot * (M_PI / 180), c = cos(t), s = sin(t);
	double corners[4][2] = {{lx, ly}, {lx, ly2}, {lx2, ly2}, {lx2, ly}};
	double uvs[8] = {0, 1, 0, 0, 1, 0, 1, 1};
	for (size_t v = 0; v < 4; v++) {
		double px = corners[v][0] * c - corners[v][1] * s + x;
		double py = corners[v][0] * s + corners[v][1] * c + y;
		affine_apply(r->bones[bone].world, px, py, &g->xy[2 * v]);
		g->uv[2 * v] = uvs[2 * v], g->uv[2 * v + 1] = uvs[2 * v + 1];
		rc |= one_influence(r, g, bone);
	}
	rc |= json_array_append_new(g->triangles, json_pack("[i, i, i]", 0, 1, 2));
	rc |= json_array_append_new(g->triangles, json_pack("[i, i, i]", 2, 3, 0));
	return rc ? rig_jr_out_of_memory(r->jr, path) : 0;
}

/* The numbers of a mesh's array member key (all finite). */
static json_t *number_array(struct spine_reader *r, json_t *att, const char *key, const char *path)
{
	json_t *a = json_object_get(att, key);
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "%s/%s", path, key);
	if (!json_is_array(a)) {
		rig_jr_fail(r->jr, at, "a mesh needs member '%s', an array of numbers", key);
		return NULL;
	}
	for (size_t i = 0; i < json_array_size(a); i++) {
		double d;
		if (!finite_number(json_array_get(a, i), &d)) {
			snprintf(at, sizeof at, "%s/%s/%zu", path, key, i);
			rig_jr_fail(r->jr, at, "must be a finite number");
			return NULL;
		}
	}
	return a;
}

static int read_triangles(struct spine_reader *r, struct geometry *g, json_t *att, const char *path)
{
	json_t *tris = json_object_get(att, "triangles");
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "%s/triangles", path);
	if (!json_is_array(tris) || json_array_size(tris) == 0 || json_array_size(tris) % 3)
		return rig_jr_fail(r->jr, at, "a mesh needs 'triangles', 3 vertex indices each");
	for (size_t t = 0; t < json_array_size(tris) / 3; t++) {
		json_int_t c[3];
		for (int k = 0; k < 3; k++) {
			json_t *v = json_array_get(tris, 3 * t + k);
			c[k] = json_is_integer(v) ? json_integer_value(v) : -1;
			if (c[k] < 0 || c[k] >= (json_int_t)g->n) {
				snprintf(at, sizeof at, "%s/triangles/%zu", path, 3 * t + k);
				return rig_jr_fail(r->jr, at,
						   "a triangle index names a vertex (0..%zu)",
						   g->n - 1);
			}
		}
		if (json_array_append_new(g->triangles, json_pack("[I, I, I]", c[0], c[1], c[2])))
			return rig_jr_out_of_memory(r->jr, path);
	}
	return 0;
}

struct influence {
	long bone;
	double x, y, weight;
};

/* Sorts influences by weight, heaviest first (ties by bone: deterministic). */
static int heavier_first(const void *pa, const void *pb)
{
	const struct influence *a = pa, *b = pb;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return (a->bone > b->bone) - (a->bone < b->bone);
}

/* What the weighted vertices needed, reported once per attachment. */
struct weight_notes {
	size_t renormalised, pruned, disagreeing;
	long first_renormalised, first_pruned;
};

/* Vertex v's influences (count of them at vs[k…]): merged per bone (their
 * points averaged by weight: exact, Spine's sum is linear in them), zero
 * weights dropped, at most RIG_MAX_INFLUENCES kept, renormalised; the
 * vertex placed at their weighted setup-pose point. */
static int weighted_vertex(struct spine_reader *r, struct geometry *g, json_t *vs, size_t k,
			   size_t count, size_t v, const char *path, struct weight_notes *notes)
{
	struct influence in[64];
	size_t n_in = 0;
	double sum = 0;
	char at[SPINE_PATH_MAX];
	for (size_t q = 0; q < count; q++, k += 4) {
		json_t *bi = json_array_get(vs, k);
		double bx = json_number_value(json_array_get(vs, k + 1));
		double by = json_number_value(json_array_get(vs, k + 2));
		double w = json_number_value(json_array_get(vs, k + 3));
		if (!json_is_integer(bi) || json_integer_value(bi) < 0 ||
		    json_integer_value(bi) >= (json_int_t)r->n_bones) {
			snprintf(at, sizeof at, "%s/vertices/%zu", path, k);
			return rig_jr_fail(r->jr, at,
					   "vertex %zu's influence names no bone (0..%zu)", v,
					   r->n_bones - 1);
		}
		if (w < 0) {
			snprintf(at, sizeof at, "%s/vertices/%zu", path, k + 3);
			return rig_jr_fail(r->jr, at, "a weight is a number >= 0");
		}
		if (w == 0)
			continue;
		long bone = (long)json_integer_value(bi);
		sum += w;
		size_t m = 0;
		while (m < n_in && in[m].bone != bone)
			m++;
		if (m == n_in) {
			in[n_in++] = (struct influence){bone, bx, by, w};
			continue;
		}
		double total = in[m].weight + w;
		in[m].x = (in[m].x * in[m].weight + bx * w) / total;
		in[m].y = (in[m].y * in[m].weight + by * w) / total;
		in[m].weight = total;
	}
	if (n_in == 0 || fabs(sum - 1) > SPINE_WEIGHT_TOLERANCE) {
		snprintf(at, sizeof at, "%s/vertices", path);
		return rig_jr_fail(r->jr, at, "vertex %zu's weights sum to %.9g, not 1 within %g",
				   v, sum, SPINE_WEIGHT_TOLERANCE);
	}
	qsort(in, n_in, sizeof in[0], heavier_first);
	if (n_in > RIG_MAX_INFLUENCES) {
		if (notes->pruned++ == 0)
			notes->first_pruned = (long)v;
		n_in = RIG_MAX_INFLUENCES;
		sum = 0;
		for (size_t m = 0; m < n_in; m++)
			sum += in[m].weight;
	}
	bool rescale = fabs(sum - 1) > 64 * DBL_EPSILON;
	if (rescale && notes->renormalised++ == 0)
		notes->first_renormalised = (long)v;
	json_t *list = json_array();
	double p[2] = {0, 0}, first[2] = {0, 0}, spread = 0;
	for (size_t m = 0; m < n_in; m++) {
		double w = rescale ? in[m].weight / sum : in[m].weight, q[2];
		affine_apply(r->bones[in[m].bone].world, in[m].x, in[m].y, q);
		if (m == 0)
			first[0] = q[0], first[1] = q[1];
		spread = fmax(spread, hypot(q[0] - first[0], q[1] - first[1]));
		p[0] += w * q[0], p[1] += w * q[1];
		g->used[in[m].bone] = true;
		json_array_append_new(list, json_pack("{s:s, s:f}", "jointId",
						      r->bones[in[m].bone].joint, "weight", w));
	}
	g->xy[2 * v] = p[0], g->xy[2 * v + 1] = p[1];
	if (spread > SPINE_BIND_AGREE && notes->disagreeing++ < SPINE_REPORT_VERTICES) {
		snprintf(at, sizeof at, "/%s/vertices", path);
		rig_import_adjusted(r->im, "bind points disagree", at,
				    "vertex %zu's influences put it up to %.9g apart in the setup "
				    "pose: it is their weighted average (Spine's setup position); "
				    "posed away from the setup it follows rigd's single point",
				    v, spread);
	}
	if (!list || json_array_append_new(g->weights, list) != 0)
		return rig_jr_out_of_memory(r->jr, path);
	return 0;
}

static void report_weight_notes(struct spine_reader *r, const struct weight_notes *n,
				const char *path)
{
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "/%s/vertices", path);
	if (n->renormalised)
		rig_import_adjusted(r->im, "weights renormalised", at,
				    "%zu vertices' weights summed to within %g of 1 and were "
				    "divided by their sum (the first: vertex %ld)",
				    n->renormalised, SPINE_WEIGHT_TOLERANCE, n->first_renormalised);
	if (n->pruned)
		rig_import_adjusted(
			r->im, "influences pruned", at,
			"%zu vertices had more than %d influences: the heaviest %d were "
			"kept and renormalised (the first: vertex %ld)",
			n->pruned, RIG_MAX_INFLUENCES, RIG_MAX_INFLUENCES, n->first_pruned);
	if (n->disagreeing > SPINE_REPORT_VERTICES)
		rig_import_adjusted(r->im, "bind points disagree", at,
				    "%zu vertices in all had influences disagreeing in the setup "
				    "pose (the first %d are listed)",
				    n->disagreeing, SPINE_REPORT_VERTICES);
}

/* Weighted vertices: per vertex [boneCount, (bone, x, y, weight)…]. */
static int read_weighted(struct spine_reader *r, struct geometry *g, json_t *vs, const char *path)
{
	size_t k = 0, len = json_array_size(vs);
	struct weight_notes notes = {0};
	char at[SPINE_PATH_MAX];
	for (size_t v = 0; v < g->n; v++) {
		json_t *c = json_array_get(vs, k);
		json_int_t count = json_is_integer(c) ? json_integer_value(c) : -1;
		if (k >= len || count < 1 || count > 64 || k + 1 + 4 * (size_t)count > len) {
			snprintf(at, sizeof at, "%s/vertices/%zu", path, k);
			return rig_jr_fail(
				r->jr, at,
				"vertex %zu needs a bone count (1..64) and 4 numbers per "
				"bone (the mesh has %zu vertices, from its uvs)",
				v, g->n);
		}
		if (weighted_vertex(r, g, vs, k + 1, (size_t)count, v, path, &notes) != 0)
			return -1;
		k += 1 + 4 * (size_t)count;
	}
	if (k != len) {
		snprintf(at, sizeof at, "%s/vertices/%zu", path, k);
		return rig_jr_fail(r->jr, at, "numbers past the %zu vertices the uvs give", g->n);
	}
	report_weight_notes(r, &notes, path);
	return 0;
}

/* A mesh attachment: uvs give the vertex count; vertices are bone-local
 * points of the slot's bone (2 per vertex) or weighted. */
static int read_mesh(struct spine_reader *r, struct geometry *g, json_t *att, const char *path,
		     size_t bone)
{
	json_t *uvs = number_array(r, att, "uvs", path);
	json_t *vs = uvs ? number_array(r, att, "vertices", path) : NULL;
	if (!vs)
		return -1;
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "%s/uvs", path);
	size_t n = json_array_size(uvs) / 2;
	if (json_array_size(uvs) % 2 || n < 3)
		return rig_jr_fail(r->jr, at, "uvs must hold u, v for at least 3 vertices");
	if (geometry_init(r, g, n) != 0)
		return -1;
	for (size_t i = 0; i < 2 * n; i++)
		g->uv[i] = json_number_value(json_array_get(uvs, i));
	if (json_array_size(vs) == 2 * n) {
		for (size_t v = 0; v < n; v++) {
			affine_apply(
				r->bones[bone].world, json_number_value(json_array_get(vs, 2 * v)),
				json_number_value(json_array_get(vs, 2 * v + 1)), &g->xy[2 * v]);
			if (one_influence(r, g, bone) != 0)
				return rig_jr_out_of_memory(r->jr, path);
		}
	} else if (read_weighted(r, g, vs, path) != 0) {
		return -1;
	}
	return read_triangles(r, g, att, path);
}

/* A mesh layer id for the slot that no bone took: its name, then name-mesh. */
static bool mesh_layer_id(char out[RIG_ID_MAX + 1], const struct spine_reader *r, const char *name,
			  json_t *taken)
{
	char alt[RIG_ID_MAX + 1];
	snprintf(alt, sizeof alt, "%.56s-mesh", name);
	const char *tries[2] = {name, alt};
	for (int k = 0; k < 2; k++) {
		if (!rig_import_id(out, r->im, tries[k]))
			continue;
		bool clash = json_object_get(taken, out) != NULL;
		for (size_t b = 0; b < r->n_bones && !clash; b++)
			clash = strcmp(r->bones[b].id, out) == 0;
		if (!clash)
			return json_object_set_new(taken, out, json_true()) == 0;
	}
	return false;
}

/* layer.create and layer.skin for geometry g of the slot named name. */
static int emit_mesh(struct spine_reader *r, const struct geometry *g, const char *id,
		     const char *name, const char *source)
{
	json_t *pts = json_array(), *uvs = json_array(), *joints = json_array(),
	       *map = json_array();
	for (size_t v = 0; v < g->n; v++) {
		json_array_append_new(
			pts, json_pack("{s:f, s:f}", "x", g->xy[2 * v], "y", g->xy[2 * v + 1]));
		json_array_append_new(uvs, json_pack("[f, f]", g->uv[2 * v], g->uv[2 * v + 1]));
	}
	for (size_t b = 0; b < r->n_bones; b++) {
		if (!g->used[b])
			continue;
		const double *m = r->bones[b].world;
		json_array_append_new(joints, json_pack("{s:s, s:[f, f, f, f, f, f]}", "id",
							r->bones[b].joint, "bind", m[0], m[1], m[2],
							m[3], m[4], m[5]));
		json_array_append_new(map, json_pack("{s:s, s:s}", "jointId", r->bones[b].joint,
						     "layerId", r->bones[b].id));
	}
	const char *parent = r->im->opts->parent_id;
	int rc = rig_import_op(r->im,
			       json_pack("{s:s, s:s, s:s, s:s, s:o}", "op", "layer.create",
					 "layerId", id, "name", name, "kind", "mesh", "parentId",
					 parent[0] ? json_string(parent) : json_null()),
			       source);
	json_t *skin = json_pack("{s:o, s:O, s:o, s:O, s:o, s:o}", "source", pts, "triangles",
				 g->triangles, "joints", joints, "weights", g->weights,
				 "jointLayers", map, "uvs", uvs);
	rc |= rig_import_op(
		r->im,
		json_pack("{s:s, s:s, s:o}", "op", "layer.skin", "layerId", id, "skin", skin),
		source);
	return rc ? rig_jr_out_of_memory(r->jr, "skins") : 0;
}

/* The slot's setup attachment att (at path, "skins/<k>/attachments/...")
 * as a mesh layer. */
static int import_attachment(struct spine_reader *r, json_t *att, const char *path, size_t bone,
			     const char *slot_name, json_t *taken)
{
	char source[SPINE_PATH_MAX], at[SPINE_PATH_MAX];
	snprintf(source, sizeof source, "/%s", path);
	if (!json_is_object(att))
		return rig_jr_fail(r->jr, path, "an attachment must be an object");
	const char *type = "region";
	json_t *t = json_object_get(att, "type");
	if (t && !(type = json_string_value(t))) {
		snprintf(at, sizeof at, "%s/type", path);
		return rig_jr_fail(r->jr, at, "type must be a string");
	}
	bool region = strcmp(type, "region") == 0, mesh = strcmp(type, "mesh") == 0;
	if (!region && !mesh) {
		rig_import_unsupported(r->im, "attachment type", source,
				       "'%.32s' attachments are not carried (region and mesh are)",
				       type);
		return 0;
	}
	if (json_object_get(att, "sequence")) {
		snprintf(at, sizeof at, "/%s/sequence", path);
		rig_import_unsupported(r->im, "sequence", at,
				       "image sequences are not carried: rigd keeps geometry");
	}
	report_color(r, att, "color", path);
	struct geometry g = {0};
	char id[RIG_ID_MAX + 1];
	int rc = region ? read_region(r, &g, att, path, bone) : read_mesh(r, &g, att, path, bone);
	if (rc == 0 && !mesh_layer_id(id, r, slot_name, taken)) {
		char slot_at[64];
		snprintf(slot_at, sizeof slot_at, "slots");
		rc = rig_jr_fail(r->jr, slot_at,
				 "slot '%.64s' has no free layer id with the id prefix", slot_name);
	}
	if (rc == 0)
		rc = emit_mesh(r, &g, id, slot_name, source);
	if (rc == 0)
		rig_import_mapped(r->im, region ? "region" : "mesh", source, slot_name, "layerId",
				  id);
	geometry_release(&g);
	return rc;
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
	report_color(r, slot, "color", path);
	report_color(r, slot, "dark", path);
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
	json_t *slots = json_object_get(r->doc, "slots"), *skin, *taken = json_object();
	size_t at_skin = 0;
	if (!taken)
		return rig_jr_out_of_memory(r->jr, "slots");
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
				rc = import_attachment(r, att, path, (size_t)bones[i], name, taken);
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
	json_decref(taken);
	return rc;
}

/* ---- IK constraints */

struct ik {
	const char *name;
	long bones[2];
	size_t n_bones;
	long target;
	double mix, softness, order;
	bool bend_positive, compress, stretch, uniform;
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
	rc |= opt_number(r, c, "mix", path, 1, &ik->mix);
	rc |= opt_number(r, c, "softness", path, 0, &ik->softness);
	rc |= opt_number(r, c, "order", path, 0, &ik->order);
	rc |= opt_bool(r, c, "bendPositive", path, true, &ik->bend_positive);
	rc |= opt_bool(r, c, "compress", path, false, &ik->compress);
	rc |= opt_bool(r, c, "stretch", path, false, &ik->stretch);
	rc |= opt_bool(r, c, "uniform", path, false, &ik->uniform);
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
	const double *pp = r->bones[p->parent].world;
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

static int emit_ik(struct spine_reader *r, const struct ik *ik, size_t i)
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
			       "order", (json_int_t)ik->order);
	if (rig_import_op(r->im, op, source) != 0)
		return rig_jr_out_of_memory(r->jr, "ik");
	report_ik_differences(r, ik, source);
	rig_import_mapped(r->im, "constraint", source, ik->name, "constraintId", ik->id);
	return 0;
}

static int import_ik(struct spine_reader *r)
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
		rc = emit_ik(r, &iks[i], i);
	free(iks);
	return rc;
}

/* Everything else the document holds that rigd does not carry. */
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
		rc = import_ik(&r);
	if (rc == 0)
		rc = spine__import_animation(&r);
	if (rc == 0)
		report_others(&r);
	free(r.bones);
	return rc;
}
