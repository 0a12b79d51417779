/* Spine 4.2 import, the attachments: the default skin's region and mesh
 * attachments as mesh layers with skins. Each skin's joints are the bones
 * the attachment follows, bound explicitly at each bone's setup-pose world
 * matrix (never captured: an animation key at frame 0 would capture the
 * animated pose). Vertices are stored where the setup pose puts them, so
 * pose · bind⁻¹ · v is the bone's world matrix times the vertex's bone-local
 * point, as Spine computes it.
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
	int rc = spine__opt_number(r, att, "x", path, 0, &x) |
		 spine__opt_number(r, att, "y", path, 0, &y) |
		 spine__opt_number(r, att, "rotation", path, 0, &rot) |
		 spine__opt_number(r, att, "scaleX", path, 1, &sx) |
		 spine__opt_number(r, att, "scaleY", path, 1, &sy);
	const char *dims[2] = {"width", "height"};
	double *out[2] = {&w, &h};
	for (int k = 0; k < 2; k++) {
		char at[SPINE_PATH_MAX];
		snprintf(at, sizeof at, "%s/%s", path, dims[k]);
		if (!spine__finite(json_object_get(att, dims[k]), out[k]))
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
		spine__affine_apply(&r->bones[bone].world, px, py, &g->xy[2 * v]);
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
		if (!spine__finite(json_array_get(a, i), &d)) {
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
		spine__affine_apply(&r->bones[in[m].bone].world, in[m].x, in[m].y, q);
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

static void exact_source(struct geometry *g, json_t *att);

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
			spine__affine_apply(
				&r->bones[bone].world, json_number_value(json_array_get(vs, 2 * v)),
				json_number_value(json_array_get(vs, 2 * v + 1)), &g->xy[2 * v]);
			if (one_influence(r, g, bone) != 0)
				return rig_jr_out_of_memory(r->jr, path);
		}
	} else if (read_weighted(r, g, vs, path) != 0) {
		return -1;
	}
	exact_source(g, att);
	return read_triangles(r, g, att, path);
}

/* rigd's Spine export writes each mesh's source beside Spine's bind points
 * ("rigdSource", x, y per vertex) when the mesh layer sat untransformed at
 * the root, since Σ w · world · inverse(bind) · v gives v back only to a few
 * ulps: where every point agrees with the setup position computed here to
 * 1e-9 (relative), it is taken, so an import → export → import keeps the
 * source's bits. Anything else keeps the computed points. */
static void exact_source(struct geometry *g, json_t *att)
{
	json_t *exact = json_object_get(att, "rigdSource");
	if (!json_is_array(exact) || json_array_size(exact) != 2 * g->n)
		return;
	for (size_t i = 0; i < 2 * g->n; i++) {
		double v;
		if (!spine__finite(json_array_get(exact, i), &v) ||
		    fabs(v - g->xy[i]) > 1e-9 * fmax(1, fabs(v)))
			return;
	}
	for (size_t i = 0; i < 2 * g->n; i++)
		g->xy[i] = json_number_value(json_array_get(exact, i));
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
		const double *m = r->bones[b].world.m;
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
int spine__import_attachment(struct spine_reader *r, json_t *att, const char *path, size_t bone,
			     const char *slot_name)
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
	spine__report_color(r, att, "color", path);
	struct geometry g = {0};
	char id[RIG_ID_MAX + 1];
	int rc = region ? read_region(r, &g, att, path, bone) : read_mesh(r, &g, att, path, bone);
	if (rc == 0 && !rig_import_mesh_id(id, r->im, slot_name)) {
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
