/* glTF 2.0 binary export (issue 26): the shot as a .glb three.js, Blender and
 * game engines read. The animation lives in gltf_anim.c; the mapping's
 * decisions are in docs/decisions.md ("glTF export").
 *
 * Nodes. One root node (the shot, identity) holds every layer's node, so all
 * joints share a root. A layer's node carries T(position)·R(rotation)·S(scale)
 * as translation [x, y, 0], a rotation about z and scale [sx, sy, 1]; a layer
 * with a pivot (static or keyed) gets a child node translated by −pivot, and
 * the layer's children, its mesh and the joints that follow it hang there.
 *
 * Meshes lie at z = 0. A skin's mesh is a node of its own at the scene root
 * (glTF ignores a skinned mesh node's transform and three.js binds it at its
 * world matrix, identity there): glTF's Σ w · world(J) · inverse(bind) · v is
 * rigd's skinned vertex in shot space, where the mesh layer's own path
 * cancels. The layer keeps its node for its children. A mesh binding's mesh
 * sits on its layer's (pivot) node, each key a morph target (its vertices
 * minus the source). Puppets, dual-quaternion skinning and pins cannot be
 * said and are reported. Nothing depends on a clock: the same stored version
 * gives the same bytes.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/interchange/gltf.h"
#include "core/mesh_binding.h"
#include "core/skin.h"

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_JSON 0x4E4F534Au  /* "JSON" */
#define GLB_BIN 0x004E4942u   /* "BIN\0" */
#define GLTF_MAX_INFLUENCES 8 /* JOINTS_0/WEIGHTS_0 and _1 */

/* ---- the BIN chunk ---- */

/* Appends n bytes at the next 4-byte boundary (accessors are aligned). */
static int bin_append(struct rig_gltf *g, const void *bytes, size_t n)
{
	static const unsigned char zeros[4] = {0};
	rig_buf_put(&g->bin, zeros, (4 - g->bin.len % 4) % 4);
	rig_buf_put(&g->bin, bytes, n);
	return g->bin.oom ? -1 : 0;
}

/* min and max per component of float data, as glTF wants them: the stored
 * float values exactly. */
static void set_min_max(json_t *acc, const struct rig_gltf_data *d)
{
	const float *v = d->bytes;
	json_t *min = json_array(), *max = json_array();
	for (int c = 0; c < d->n_comp; c++) {
		float lo = v[c], hi = v[c];
		for (size_t i = 1; i < d->count; i++) {
			float x = v[i * (size_t)d->n_comp + (size_t)c];
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
		}
		json_array_append_new(min, json_real(lo));
		json_array_append_new(max, json_real(hi));
	}
	json_object_set_new(acc, "min", min);
	json_object_set_new(acc, "max", max);
}

long rig_gltf__accessor(struct rig_gltf *g, const struct rig_gltf_data *d)
{
	size_t size = d->component == RIG_GLTF_UBYTE ? 1 : 4;
	size_t n = d->count * (size_t)d->n_comp * size;
	size_t offset = (g->bin.len + 3) / 4 * 4;
	if (d->count == 0 || bin_append(g, d->bytes, n) != 0) {
		g->oom = g->oom || d->count != 0;
		return -1;
	}
	json_t *view = json_pack("{s:i, s:I, s:I}", "buffer", 0, "byteOffset", (json_int_t)offset,
				 "byteLength", (json_int_t)n);
	if (view && d->target)
		json_object_set_new(view, "target", json_integer(d->target));
	json_t *acc = json_pack("{s:I, s:i, s:I, s:s}", "bufferView",
				(json_int_t)json_array_size(g->views), "componentType",
				d->component, "count", (json_int_t)d->count, "type", d->type);
	if (acc && d->min_max)
		set_min_max(acc, d);
	if (!view || !acc || json_array_append_new(g->views, view) != 0 ||
	    json_array_append_new(g->accessors, acc) != 0) {
		g->oom = true;
		return -1;
	}
	return (long)json_array_size(g->accessors) - 1;
}

double rig_gltf__time(const struct rig_gltf *g, double shot_frame)
{
	return (shot_frame - g->origin) / g->in->model->fps;
}

/* A float array of n_comp components per element, or NULL (g->oom set). */
static float *floats(struct rig_gltf *g, size_t count, int n_comp)
{
	float *v = calloc(count ? count * (size_t)n_comp : 1, sizeof *v);
	g->oom = g->oom || !v;
	return v;
}

static long float_accessor(struct rig_gltf *g, const float *v, size_t count, const char *type,
			   int n_comp, int target, bool min_max)
{
	struct rig_gltf_data d = {v, count, RIG_GLTF_FLOAT, type, n_comp, target, min_max};
	return v ? rig_gltf__accessor(g, &d) : -1;
}

/* ---- nodes ---- */

static struct rig_keys keys_of(const struct rig_model_layer *l, enum rig_channel c)
{
	return (struct rig_keys){l->keys[c].items, l->keys[c].count};
}

/* Channel c of l at shot frame f (its keys, else its static value). */
static double channel_at(const struct rig_model_layer *l, enum rig_channel c, double f)
{
	struct rig_keys k = keys_of(l, c);
	return rig_keys_eval(&k, f - l->time_offset, l->statics.ch[c]);
}

static bool has_pivot(const struct rig_model_layer *l)
{
	return l->statics.ch[RIG_CH_PIVOT_X] != 0 || l->statics.ch[RIG_CH_PIVOT_Y] != 0 ||
	       l->keys[RIG_CH_PIVOT_X].count || l->keys[RIG_CH_PIVOT_Y].count;
}

static json_t *vec3(double x, double y, double z)
{
	return json_pack("[f, f, f]", x, y, z);
}

/* The quaternion of a rotation by deg degrees about +z (rigd's R(θ) turns +x
 * towards +y, as glTF's right-handed z does). */
static json_t *quat_z(double deg)
{
	double h = deg * (M_PI / 360);
	return json_pack("[f, f, f, f]", 0.0, 0.0, sin(h), cos(h));
}

/* A node for layer l at frameStart: its values there are what a viewer shows
 * where the animation says nothing. */
static json_t *layer_node(const struct rig_gltf *g, const struct rig_model_layer *l)
{
	double f = g->in->model->frame_start;
	double x = channel_at(l, RIG_CH_POSITION_X, f), y = channel_at(l, RIG_CH_POSITION_Y, f);
	double deg = channel_at(l, RIG_CH_ROTATION, f);
	double sx = channel_at(l, RIG_CH_SCALE_X, f), sy = channel_at(l, RIG_CH_SCALE_Y, f);
	json_t *n = json_pack("{s:s, s:{s:s}}", "name", l->id, "extras", "rigdLayer", l->id);
	if (n && (x != 0 || y != 0))
		json_object_set_new(n, "translation", vec3(x, y, 0));
	if (n && deg != 0)
		json_object_set_new(n, "rotation", quat_z(deg));
	if (n && (sx != 1 || sy != 1))
		json_object_set_new(n, "scale", vec3(sx, sy, 1));
	return n;
}

static json_t *pivot_node(const struct rig_gltf *g, const struct rig_model_layer *l)
{
	double f = g->in->model->frame_start;
	char name[RIG_ID_MAX + 8];
	snprintf(name, sizeof name, "%s#pivot", l->id);
	return json_pack(
		"{s:s, s:o}", "name", name, "translation",
		vec3(-channel_at(l, RIG_CH_PIVOT_X, f), -channel_at(l, RIG_CH_PIVOT_Y, f), 0));
}

/* Appends child to node parent's children. */
static void add_child(struct rig_gltf *g, long parent, long child)
{
	json_t *p = json_array_get(g->nodes, (size_t)parent);
	json_t *kids = json_object_get(p, "children");
	if (!kids && json_object_set_new(p, "children", kids = json_array()) != 0)
		kids = NULL;
	if (!kids || json_array_append_new(kids, json_integer(child)) != 0)
		g->oom = true;
}

static long add_node(struct rig_gltf *g, json_t *node)
{
	if (!node || json_array_append_new(g->nodes, node) != 0) {
		g->oom = true;
		return -1;
	}
	return (long)json_array_size(g->nodes) - 1;
}

/* Node 0, the shot; then every live layer's node (and pivot node), in
 * creation order, hung under its parent's. */
static void add_layer_nodes(struct rig_gltf *g)
{
	const struct rig_shot_model *m = g->in->model;
	add_node(g, json_pack("{s:s}", "name", m->id));
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		g->node_of[i] = g->attach_of[i] = -1;
		if (l->deleted)
			continue;
		g->node_of[i] = g->attach_of[i] = add_node(g, layer_node(g, l));
		if (has_pivot(l)) {
			g->attach_of[i] = add_node(g, pivot_node(g, l));
			if (!g->oom)
				add_child(g, g->node_of[i], g->attach_of[i]);
		}
	}
	for (size_t i = 0; !g->oom && i < m->n_layers; i++) {
		if (g->node_of[i] < 0)
			continue;
		long p = m->layers[i].parent_id[0] ? rig_shot_model_index(m, m->layers[i].parent_id)
						   : -1;
		add_child(g, p >= 0 ? g->attach_of[p] : 0, g->node_of[i]);
	}
	json_array_append_new(g->scene_nodes, json_integer(0));
}

/* ---- meshes ---- */

/* POSITION (z = 0, with min and max), TEXCOORD_0 when uvs, and the indices of
 * a primitive, into a new primitive object (NULL: out of memory). */
static json_t *primitive(struct rig_gltf *g, const double *xy, size_t n_verts, const double *uvs,
			 const uint32_t *tris, size_t n_tris)
{
	float *pos = floats(g, n_verts, 3), *uv = uvs ? floats(g, n_verts, 2) : NULL;
	for (size_t v = 0; pos && v < n_verts; v++) {
		pos[3 * v] = (float)xy[2 * v];
		pos[3 * v + 1] = (float)xy[2 * v + 1];
	}
	for (size_t v = 0; uv && v < n_verts; v++) {
		uv[2 * v] = (float)uvs[2 * v];
		uv[2 * v + 1] = (float)uvs[2 * v + 1];
	}
	json_t *attrs = json_object();
	json_object_set_new(attrs, "POSITION",
			    json_integer(float_accessor(g, pos, n_verts, "VEC3", 3,
							RIG_GLTF_ARRAY_BUFFER, true)));
	if (uv)
		json_object_set_new(attrs, "TEXCOORD_0",
				    json_integer(float_accessor(g, uv, n_verts, "VEC2", 2,
								RIG_GLTF_ARRAY_BUFFER, false)));
	struct rig_gltf_data idx = {
		tris, 3 * n_tris, RIG_GLTF_UINT, "SCALAR", 1, RIG_GLTF_ELEMENT_BUFFER, false};
	json_t *prim = json_pack("{s:o, s:i}", "attributes", attrs, "mode", 4);
	if (prim && n_tris)
		json_object_set_new(prim, "indices", json_integer(rig_gltf__accessor(g, &idx)));
	free(pos);
	free(uv);
	g->oom = g->oom || !prim;
	return prim;
}

static long add_mesh(struct rig_gltf *g, const char *name, json_t *prim)
{
	json_t *mesh = json_pack("{s:s, s:[o]}", "name", name, "primitives", prim);
	if (!mesh || json_array_append_new(g->meshes, mesh) != 0) {
		g->oom = true;
		return -1;
	}
	return (long)json_array_size(g->meshes) - 1;
}

/* The morph targets of a mesh binding: each key's vertices minus the source. */
static void add_targets(struct rig_gltf *g, json_t *prim, json_t *mesh,
			const struct rig_mesh_def *d, double local_start)
{
	json_t *targets = json_array(), *names = json_array(), *weights = json_array();
	float *w = floats(g, d->n_keys, 1);
	if (w)
		rig_gltf__morph_weights(w, d->times, d->n_keys, local_start);
	for (size_t k = 0; k < d->n_keys && !g->oom; k++) {
		float *dxy = floats(g, d->n_verts, 3);
		for (size_t v = 0; dxy && v < d->n_verts; v++) {
			dxy[3 * v] = (float)(d->key_xy[k][2 * v] - d->source[2 * v]);
			dxy[3 * v + 1] = (float)(d->key_xy[k][2 * v + 1] - d->source[2 * v + 1]);
		}
		long acc =
			float_accessor(g, dxy, d->n_verts, "VEC3", 3, RIG_GLTF_ARRAY_BUFFER, true);
		free(dxy);
		char name[64];
		snprintf(name, sizeof name, "frame %.17g", d->times[k].frame);
		json_array_append_new(targets, json_pack("{s:I}", "POSITION", (json_int_t)acc));
		json_array_append_new(names, json_string(name));
		json_array_append_new(weights, json_real(w ? w[k] : 0));
	}
	free(w);
	json_object_set_new(prim, "targets", targets);
	json_object_set_new(mesh, "weights", weights);
	json_object_set_new(mesh, "extras", json_pack("{s:o}", "targetNames", names));
}

/* A mesh binding's mesh on layer i's (pivot) node, its keys morph targets. */
static void add_mesh_binding(struct rig_gltf *g, size_t i, const struct rig_mesh_def *d)
{
	const struct rig_model_layer *l = &g->in->model->layers[i];
	json_t *prim = primitive(g, d->source, d->n_verts, d->uvs, d->triangles, d->n_tris);
	long mesh = prim ? add_mesh(g, l->id, prim) : -1;
	if (mesh < 0)
		return;
	if (d->n_keys) {
		/* the node's default weights are the shape at frameStart */
		add_targets(g, prim, json_array_get(g->meshes, (size_t)mesh), d,
			    g->in->model->frame_start - l->time_offset);
		g->morphs[g->n_morphs++] =
			(struct rig_gltf_morph){i, g->attach_of[i], d->times, d->n_keys};
	}
	json_t *node = json_array_get(g->nodes, (size_t)g->attach_of[i]);
	json_object_set_new(node, "mesh", json_integer(mesh));
	json_t *extras = json_object_get(node, "extras");
	if (!extras)
		json_object_set_new(node, "extras", extras = json_object());
	json_object_set_new(extras, "rigdMesh", json_string(l->id));
}

/* ---- skins ---- */

/* The node joint j of skin d (on layer mesh_l) follows: its layer's (pivot)
 * node, or for a second joint on the same layer an identity child of it
 * (glTF's joints are distinct nodes). −1, reported, when its layer is
 * missing. nodes holds the joints before j. */
static long joint_node(struct rig_gltf *g, const struct rig_model_layer *mesh_l,
		       const struct rig_skin_def *d, size_t j, const long *nodes)
{
	const struct rig_shot_model *m = g->in->model;
	long li = rig_shot_model_index(m, d->joints[j].layer_id);
	if (li < 0 || g->attach_of[li] < 0) {
		rig_export_unsupported(g->report, "joint layer", mesh_l->id,
				       "joint '%s' of '%s' follows no layer; the skin is not "
				       "written",
				       d->joints[j].id, mesh_l->id);
		return -1;
	}
	long node = g->attach_of[li];
	for (size_t k = 0; k < j; k++) {
		if (nodes[k] != node)
			continue;
		char name[2 * RIG_ID_MAX + 16];
		snprintf(name, sizeof name, "%s#joint:%s", mesh_l->id, d->joints[j].id);
		long extra = add_node(g, json_pack("{s:s}", "name", name));
		if (extra >= 0)
			add_child(g, node, extra);
		return extra;
	}
	return node;
}

/* inverse(bind) of every joint as a 4×4 column-major matrix. */
static long inverse_binds(struct rig_gltf *g, const struct rig_skin_def *d)
{
	float *v = floats(g, d->n_joints, 16);
	for (size_t j = 0; v && j < d->n_joints; j++) {
		struct rig_affine inv = rig_affine_identity();
		rig_affine_invert(&inv, &d->joints[j].bind); /* stored binds are invertible */
		const double *a = inv.m;
		float *c = &v[16 * j];
		c[0] = (float)a[0], c[1] = (float)a[1], c[4] = (float)a[2], c[5] = (float)a[3];
		c[10] = 1, c[12] = (float)a[4], c[13] = (float)a[5], c[15] = 1;
	}
	long acc = float_accessor(g, v, d->n_joints, "MAT4", 16, 0, false);
	free(v);
	return acc;
}

/* JOINTS_n and WEIGHTS_n for set n (influences 4n .. 4n + 3 of each vertex;
 * unused slots joint 0, weight 0) into attrs. */
static void influence_set(struct rig_gltf *g, json_t *attrs, const struct rig_skin_def *d, int set)
{
	unsigned char *jo = calloc(d->n_verts ? 4 * d->n_verts : 1, 1);
	float *w = floats(g, d->n_verts, 4);
	for (size_t v = 0; jo && w && v < d->n_verts; v++) {
		size_t from = d->weight_offsets[v], n = d->weight_offsets[v + 1] - from;
		for (size_t k = 0; k < 4 && 4 * (size_t)set + k < n; k++) {
			const struct rig_skin_influence *in = &d->influences[from + 4 * set + k];
			jo[4 * v + k] = (unsigned char)in->joint;
			w[4 * v + k] = (float)in->weight;
		}
	}
	char jname[16], wname[16];
	snprintf(jname, sizeof jname, "JOINTS_%d", set);
	snprintf(wname, sizeof wname, "WEIGHTS_%d", set);
	struct rig_gltf_data jd = {
		jo, d->n_verts, RIG_GLTF_UBYTE, "VEC4", 4, RIG_GLTF_ARRAY_BUFFER, false};
	g->oom = g->oom || !jo;
	if (jo && w) {
		json_object_set_new(attrs, jname, json_integer(rig_gltf__accessor(g, &jd)));
		json_object_set_new(attrs, wname,
				    json_integer(float_accessor(g, w, d->n_verts, "VEC4", 4,
								RIG_GLTF_ARRAY_BUFFER, false)));
	}
	free(jo);
	free(w);
}

/* A skin's mesh on a node of its own at the scene root, with its skin. */
static void add_skin(struct rig_gltf *g, size_t i, const struct rig_skin_def *d)
{
	const struct rig_model_layer *l = &g->in->model->layers[i];
	long *joints = calloc(d->n_joints ? d->n_joints : 1, sizeof *joints);
	g->oom = g->oom || !joints;
	for (size_t j = 0; joints && j < d->n_joints; j++)
		if ((joints[j] = joint_node(g, l, d, j, joints)) < 0)
			goto out;
	size_t most = 0;
	for (size_t v = 0; v < d->n_verts; v++)
		if (d->weight_offsets[v + 1] - d->weight_offsets[v] > most)
			most = d->weight_offsets[v + 1] - d->weight_offsets[v];
	if (d->method != RIG_SKIN_LBS)
		rig_export_unsupported(g->report, "skinning method", l->id,
				       "glTF skins blend linearly; the %s skin of '%s' is written "
				       "as a linear blend",
				       rig_skin_method_name(d->method), l->id);
	if (d->puppet)
		rig_export_unsupported(g->report, "pins", l->id,
				       "glTF has no pins; the skin of '%s' is written without them",
				       l->id);
	json_t *prim = primitive(g, d->source, d->n_verts, d->has_uvs ? d->uvs : NULL, d->triangles,
				 d->n_tris);
	json_t *attrs = json_object_get(prim, "attributes");
	for (int set = 0; attrs && set * 4 < (int)most && set * 4 < GLTF_MAX_INFLUENCES; set++)
		influence_set(g, attrs, d, set);
	long mesh = prim ? add_mesh(g, l->id, prim) : -1;
	json_t *ids = json_array();
	for (size_t j = 0; ids && j < d->n_joints; j++)
		json_array_append_new(ids, json_integer(joints[j]));
	json_t *skin = json_pack("{s:s, s:I, s:o, s:i}", "name", l->id, "inverseBindMatrices",
				 (json_int_t)inverse_binds(g, d), "joints", ids, "skeleton", 0);
	if (mesh < 0 || !skin || json_array_append_new(g->skins, skin) != 0) {
		g->oom = true;
		goto out;
	}
	char name[RIG_ID_MAX + 8];
	snprintf(name, sizeof name, "%s#skin", l->id);
	long node = add_node(g, json_pack("{s:s, s:I, s:I, s:{s:s}}", "name", name, "mesh",
					  (json_int_t)mesh, "skin",
					  (json_int_t)json_array_size(g->skins) - 1, "extras",
					  "rigdMesh", l->id));
	if (node >= 0)
		json_array_append_new(g->scene_nodes, json_integer(node));
out:
	free(joints);
}

static void add_binding(struct rig_gltf *g, size_t i)
{
	const struct rig_model_layer *l = &g->in->model->layers[i];
	void *def = g->in->defs[i];
	if (l->deleted || !l->binding.type || !def)
		return;
	if (l->binding.type == &rig_binding_skin)
		add_skin(g, i, def);
	else if (l->binding.type == &rig_binding_mesh)
		add_mesh_binding(g, i, def);
	else
		rig_export_unsupported(g->report, "binding", l->id,
				       "glTF cannot say the %s binding of '%s' (solved per "
				       "frame); its mesh is not written",
				       l->binding.type->name, l->id);
}

/* The earliest of frameStart and every key's shot frame: time 0. */
static double origin_frame(const struct rig_export_in *in)
{
	const struct rig_shot_model *m = in->model;
	double o = m->frame_start;
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (l->deleted)
			continue;
		for (int c = 0; c < RIG_CH_COUNT; c++)
			if (l->keys[c].count)
				o = fmin(o, l->keys[c].items[0].frame + l->time_offset);
		const struct rig_mesh_def *d = in->defs[i];
		if (d && l->binding.type == &rig_binding_mesh && d->n_keys)
			o = fmin(o, d->times[0].frame + l->time_offset);
	}
	return o;
}

/* ---- the document and the .glb ---- */

static void set_nonempty(json_t *doc, const char *key, json_t *array)
{
	if (json_array_size(array))
		json_object_set(doc, key, array);
}

static json_t *document(struct rig_gltf *g)
{
	const struct rig_shot_model *m = g->in->model;
	json_t *rigd =
		json_pack("{s:s, s:I, s:f, s:f, s:f, s:f, s:O}", "shotId", m->id, "shotVersion",
			  (json_int_t)m->version, "fps", m->fps, "frameOrigin", g->origin,
			  "frameStart", m->frame_start, "frameEnd", m->frame_end, "unsupported",
			  json_object_get(g->report, "unsupported"));
	json_t *doc = json_pack("{s:{s:s, s:s, s:{s:o}}, s:i, s:[{s:s, s:O}]}", "asset", "version",
				"2.0", "generator", "rigd", "extras", "rigd", rigd, "scene", 0,
				"scenes", "name", m->id, "nodes", g->scene_nodes);
	if (!doc)
		return NULL;
	set_nonempty(doc, "nodes", g->nodes);
	set_nonempty(doc, "meshes", g->meshes);
	set_nonempty(doc, "skins", g->skins);
	set_nonempty(doc, "accessors", g->accessors);
	set_nonempty(doc, "bufferViews", g->views);
	if (g->bin.len)
		json_object_set_new(doc, "buffers",
				    json_pack("[{s:I}]", "byteLength", (json_int_t)g->bin.len));
	if (json_array_size(g->channels))
		json_object_set_new(doc, "animations",
				    json_pack("[{s:s, s:O, s:O}]", "name", m->id, "samplers",
					      g->samplers, "channels", g->channels));
	return doc;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}

/* The .glb: the 12-byte header, the JSON chunk padded with spaces, the BIN
 * chunk (when there is data) padded with zeros. */
static int glb(struct rig_export *out, const char *json, const unsigned char *bin, size_t bin_len)
{
	size_t jlen = strlen(json), jpad = (jlen + 3) / 4 * 4, bpad = (bin_len + 3) / 4 * 4;
	size_t total = 12 + 8 + jpad + (bin_len ? 8 + bpad : 0);
	if (total > UINT32_MAX)
		return -1;
	unsigned char *p = calloc(total, 1);
	if (!p)
		return -1;
	put_u32(p, GLB_MAGIC);
	put_u32(p + 4, 2);
	put_u32(p + 8, (uint32_t)total);
	put_u32(p + 12, (uint32_t)jpad);
	put_u32(p + 16, GLB_JSON);
	memcpy(p + 20, json, jlen);
	memset(p + 20 + jlen, ' ', jpad - jlen);
	if (bin_len) {
		put_u32(p + 20 + jpad, (uint32_t)bpad);
		put_u32(p + 24 + jpad, GLB_BIN);
		memcpy(p + 28 + jpad, bin, bin_len);
	}
	out->body = p;
	out->len = total;
	out->content_type = "model/gltf-binary";
	return 0;
}

int rig_gltf_export(struct rig_export *out, const struct rig_export_in *in, struct rig_errs *errs)
{
	const struct rig_shot_model *m = in->model;
	size_t n = m->n_layers ? m->n_layers : 1;
	struct rig_gltf g = {.in = in,
			     .report = out->report,
			     .nodes = json_array(),
			     .meshes = json_array(),
			     .accessors = json_array(),
			     .views = json_array(),
			     .skins = json_array(),
			     .samplers = json_array(),
			     .channels = json_array(),
			     .scene_nodes = json_array(),
			     .node_of = calloc(n, sizeof(long)),
			     .attach_of = calloc(n, sizeof(long)),
			     .morphs = calloc(n, sizeof(struct rig_gltf_morph)),
			     .origin = origin_frame(in),
			     .errs = errs};
	g.oom = !g.nodes || !g.meshes || !g.accessors || !g.views || !g.skins || !g.samplers ||
		!g.channels || !g.scene_nodes || !g.node_of || !g.attach_of || !g.morphs;
	json_t *doc = NULL;
	char *text = NULL;
	int rc = -1;
	if (g.oom)
		goto out;
	add_layer_nodes(&g);
	for (size_t i = 0; !g.oom && i < m->n_layers; i++)
		add_binding(&g, i);
	if (g.oom || rig_gltf__animate(&g) != 0 || g.oom)
		goto out;
	doc = document(&g);
	text = doc ? json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
	if (text && glb(out, text, (const unsigned char *)g.bin.data, g.bin.len) == 0)
		rc = 0;
out:
	if (rc && !g.refused)
		rig_errs_add(errs, RIG_MEMORY_BUSY, "the server ran out of memory");
	free(text);
	json_decref(doc);
	json_decref(g.nodes);
	json_decref(g.meshes);
	json_decref(g.accessors);
	json_decref(g.views);
	json_decref(g.skins);
	json_decref(g.samplers);
	json_decref(g.channels);
	json_decref(g.scene_nodes);
	rig_buf_release(&g.bin);
	free(g.node_of);
	free(g.attach_of);
	free(g.morphs);
	return rc;
}
