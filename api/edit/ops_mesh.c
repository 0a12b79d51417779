/* The mesh binding's ops and its row of the binding kinds (binding.h):
 * layer.mesh installs or removes a mesh binding (source and triangles),
 * layer.mesh.key.put and layer.mesh.key.delete edit its vertex keys, and its
 * layer.deformation.rest.apply makes the shape at a frame the new source (the
 * op itself, which dispatches to the layer's kind, is ops_layer.c's).
 * layer.skin.bake, which turns a skin into a mesh binding, is
 * ops_skin_bake.c.
 *
 * The rules are the core's (core/mesh_binding.h: the source rules of
 * core/mesh.c, the key rules of core/keys.c); this file maps JSON to
 * definitions and violations to pointers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/edit/ops_internal.h"
#include "core/mesh.h"
#include "core/mesh_binding.h"
#include "core/rig_limits.h"
#include "storage/shot_repo.h"

/* What layer.mesh and layer.mesh.key.put decode (op->u.kind_data). */
struct mesh_op {
	bool clear;              /* layer.mesh with mesh: null */
	struct rig_mesh_def def; /* layer.mesh: source and triangles, owned */
	struct rig_key time;     /* layer.mesh.key.put: frame, interp, ease */
	double *xy;              /* layer.mesh.key.put: 2 · n_xy, owned */
	size_t n_xy;
};

void rig_op__mesh_release(struct rig_op *op)
{
	struct mesh_op *m = op->u.kind_data;
	if (!m)
		return;
	rig_mesh_def_release(&m->def);
	free(m->xy);
	free(m);
	op->u.kind_data = NULL;
}

static struct mesh_op *mesh_op_new(struct rig_op *out, const struct rig_jr *jr)
{
	struct mesh_op *m = calloc(1, sizeof *m);
	if (!m)
		rig_jr_out_of_memory(jr, "");
	out->u.kind_data = m;
	return m;
}

/* The op's mesh layer with its mesh binding fully loaded; NULL after an
 * error (MESH_BINDING_KIND when its binding is none or of another kind). */
static struct rig_model_layer *mesh_binding_target(struct rig_op_ctx *ctx, const struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return NULL;
	if (l->binding.type != &rig_binding_mesh) {
		struct rig_err *e =
			rig_op__fail_layer(ctx, op, RIG_MESH_BINDING_KIND, "layerId",
					   "layer '%s' has no mesh binding%s%s", l->id,
					   l->binding.type ? ": its binding is a " : "",
					   l->binding.type ? l->binding.type->name : "");
		if (l->binding.type)
			rig_err_extra(e, "bindingKind", l->binding.type->name);
		return NULL;
	}
	int rc = rig_shot_load_binding(ctx->conn, ctx->model, l);
	if (rc) {
		rig_op__fail_layer(ctx, op, (enum rig_code) - rc, "",
				   "cannot load the mesh binding of layer '%s'", l->id);
		return NULL;
	}
	return l;
}

/* ---- layer.mesh ---- */

int rig_op__mesh_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op", "layerId", "mesh", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct mesh_op *m = mesh_op_new(out, jr);
	if (!m)
		return -1;
	json_t *mesh = json_object_get(op, "mesh");
	if (!mesh)
		return rig_jr_fail(jr, "mesh",
				   "field 'mesh' is required (null removes the binding)");
	if (json_is_null(mesh)) {
		m->clear = true;
		return rc;
	}
	if (!json_is_object(mesh))
		return rig_jr_fail(jr, "mesh", "field 'mesh' must be {source, triangles} or null");
	char base[64];
	snprintf(base, sizeof base, "%s/mesh", jr->base);
	struct rig_jr mjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
	static const char *const fields[] = {"source", "triangles", "uvs", NULL};
	size_t before = jr->errs->total;
	rig_jr_known(&mjr, mesh, fields);
	rig_op__decode_points(&mjr, mesh, "source", &m->def.source, &m->def.n_verts, bulk);
	rig_op__decode_triangles(&mjr, mesh, &m->def.triangles, &m->def.n_tris, bulk);
	if (jr->errs->total == before)
		rig_op__decode_uvs(&mjr, mesh, &m->def.uvs, m->def.n_verts);
	if (jr->errs->total > before)
		return -1; /* shapes are wrong; the rules would only echo them */
	size_t from = jr->errs->count;
	if (rig_mesh_def_check(&m->def, jr->errs) != 0) {
		rig_errs_scope(jr->errs, from, jr->op_index, base);
		return -1;
	}
	return rc;
}

int rig_op__mesh_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return -1;
	struct mesh_op *m = op->u.kind_data;
	return rig_op__binding_install(ctx, op, l, &rig_binding_mesh, &m->def, sizeof m->def,
				       m->clear, "mesh");
}

/* ---- layer.mesh.key.put ---- */

int rig_op__mesh_key_put_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op",     "layerId", "frame", "vertices",
					      "interp", "ease",    NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct mesh_op *m = mesh_op_new(out, jr);
	if (!m)
		return -1;
	rc |= rig_jr_number(jr, op, "frame", true, &m->time.frame, NULL);
	if (rig_op__decode_interp(jr, op, &m->time, NULL) == 0)
		rc |= rig_op__check_key(jr, &m->time);
	else
		rc = -1;
	if (rig_op__decode_points(jr, op, "vertices", &m->xy, &m->n_xy, bulk) != 0)
		return -1;
	size_t from = jr->errs->count;
	if (rig_mesh_check_key_vertices(m->xy, m->n_xy, m->n_xy, jr->errs) != 0) {
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%s/vertices", jr->base);
		rig_errs_scope(jr->errs, from, jr->op_index, prefix);
		rc = -1;
	}
	return rc;
}

int rig_op__mesh_key_put_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = mesh_binding_target(ctx, op);
	if (!l)
		return -1;
	struct mesh_op *m = op->u.kind_data;
	struct rig_mesh_def *d = l->binding.def;
	size_t from = ctx->errs->count;
	if (rig_mesh_check_key_vertices(m->xy, m->n_xy, d->n_verts, ctx->errs) != 0) {
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%s/vertices", op->pointer);
		rig_op__scope_layer(ctx, op, from, prefix);
		return -1;
	}
	if (rig_mesh_def_key_put(d, &m->time, m->xy) != 0) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	m->xy = NULL; /* the definition's now */
	rig_op__binding_edited(ctx, op, l);
	return 0;
}

/* ---- layer.mesh.key.delete ---- */

int rig_op__mesh_key_delete_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				   struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "frame", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_number(jr, op, "frame", true, &out->u.mesh.frame, NULL);
	return rc;
}

int rig_op__mesh_key_delete_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = mesh_binding_target(ctx, op);
	if (!l)
		return -1;
	double f = op->u.mesh.frame;
	if (!rig_mesh_def_key_delete(l->binding.def, f)) {
		struct rig_err *e =
			rig_op__fail_layer(ctx, op, RIG_OP_INVALID, "frame",
					   "layer '%s' has no mesh key at frame %.17g", l->id, f);
		e->has_frame = true;
		e->frame = f;
		return -1;
	}
	rig_op__binding_edited(ctx, op, l);
	return 0;
}

/* ---- its layer.deformation.rest.apply (the op dispatches in ops_layer.c) ---- */

/* Stamps violations [from, count) with frame. */
static void stamp_frame(struct rig_errs *errs, size_t from, double frame)
{
	for (size_t i = from; i < errs->count; i++) {
		errs->items[i].has_frame = true;
		errs->items[i].frame = frame;
	}
}

/* The shape at the layer's local frame becomes the source; the keys stay, so
 * every keyed frame evaluates as before. Refused when that shape breaks the
 * per-frame checks against the old source, or when a key would break them
 * against the new one (its frame could no longer be evaluated). */
static int rest_apply(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l)
{
	(void)l;
	l = mesh_binding_target(ctx, op);
	if (!l)
		return -1;
	struct rig_mesh_def *d = l->binding.def;
	double frame = op->u.rest.frame;
	double *shape = malloc(2 * d->n_verts * sizeof *shape);
	if (!shape) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	rig_mesh_def_shape(shape, d, frame);
	size_t from = ctx->errs->count;
	if (rig_mesh_check_deformed(d->source, shape, d->n_verts, d->triangles, d->n_tris,
				    ctx->errs) == 0) {
		for (size_t k = 0; k < d->n_keys; k++) {
			size_t at = ctx->errs->count;
			rig_mesh_check_deformed(shape, d->key_xy[k], d->n_verts, d->triangles,
						d->n_tris, ctx->errs);
			stamp_frame(ctx->errs, at, d->times[k].frame);
		}
	} else {
		stamp_frame(ctx->errs, from, frame);
	}
	if (ctx->errs->count > from || ctx->errs->total > from) {
		rig_op__scope_layer(ctx, op, from, op->pointer);
		free(shape);
		return -1;
	}
	free(d->source);
	d->source = shape;
	rig_op__binding_edited(ctx, op, l);
	return 0;
}

/* ---- the kind's row: summary, mesh-data collections, bulk members ---- */

static json_t *summary(const struct rig_model_layer *l)
{
	const struct rig_mesh_def *d = l->binding.def;
	return rig_binding_summary_counts(l, "keyCount", d->n_keys);
}

/* The vertices of one item of the keyframes collection (a piece of one key),
 * so that a page fits maxBytes whatever the key's size. */
#define RIG_MESH_KEY_PIECE 128

/* keyframes: a key of a million vertices does not fit a page, so an item is
 * one piece of one key: its time and at most RIG_MESH_KEY_PIECE consecutive
 * vertices (under 8 KiB of JSON), keys in frame order, pieces in vertex
 * order. Item i is piece i % pieces of key i / pieces. */
static size_t pieces_per_key(const struct rig_mesh_def *d)
{
	return (d->n_verts + RIG_MESH_KEY_PIECE - 1) / RIG_MESH_KEY_PIECE;
}

static size_t count_key_pieces(const struct rig_binding_type *type, const void *def)
{
	(void)type;
	const struct rig_mesh_def *d = def;
	return d->n_keys * pieces_per_key(d);
}

static void encode_key_piece(struct rig_buf *b, const struct rig_binding_type *type,
			     const void *def, const double *xy, size_t i)
{
	const struct rig_mesh_def *d = def;
	(void)type;
	(void)xy;
	size_t per = pieces_per_key(d), k = i / per, start = (i % per) * RIG_MESH_KEY_PIECE;
	size_t n =
		d->n_verts - start < RIG_MESH_KEY_PIECE ? d->n_verts - start : RIG_MESH_KEY_PIECE;
	const struct rig_key *t = &d->times[k];
	rig_buf_printf(b, "{\"keyIndex\":%zu,\"frame\":", k);
	rig_buf_double(b, t->frame);
	rig_buf_printf(b, ",\"interp\":\"%s\"", rig_interp_name(t->interp));
	if (t->interp == RIG_INTERP_BEZIER) {
		rig_buf_puts(b, ",\"ease\":[");
		for (int e = 0; e < 4; e++) {
			if (e)
				rig_buf_puts(b, ",");
			rig_buf_double(b, t->ease[e]);
		}
		rig_buf_puts(b, "]");
	}
	rig_buf_printf(b, ",\"vertexStart\":%zu,\"vertexCount\":%zu,\"vertices\":[", start, n);
	const double *v = d->key_xy[k];
	for (size_t j = start; j < start + n; j++) {
		rig_buf_puts(b, j > start ? ",{\"x\":" : "{\"x\":");
		rig_buf_double(b, v[2 * j]);
		rig_buf_puts(b, ",\"y\":");
		rig_buf_double(b, v[2 * j + 1]);
		rig_buf_puts(b, "}");
	}
	rig_buf_puts(b, "]}");
}

static const struct rig_binding_collection collections[] = {
	RIG_BINDING_COLLECTION_VERTICES,
	RIG_BINDING_COLLECTION_TRIANGLES,
	RIG_BINDING_COLLECTION_UVS,
	{"keyframes", true, false, count_key_pieces, encode_key_piece, NULL, NULL, NULL},
};

/* layer.mesh's mesh holds source and triangles; layer.mesh.key.put's
 * vertices are {x, y} like a source. */
static const struct rig_bulk_member bulk_members[] = {
	{"layer.mesh", "mesh", "source", RIG_BULK_SOURCE},
	{"layer.mesh", "mesh", "triangles", RIG_BULK_TRIANGLES},
	{"layer.mesh.key.put", "vertices", NULL, RIG_BULK_SOURCE},
};

/* layer.mesh.generate: a mesh binding without keys (they indexed the old
 * vertices) on the new rest mesh. */
static int remesh(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l,
		  struct rig_tess_mesh *mesh)
{
	struct rig_mesh_def d = {0};
	d.times = calloc(1, sizeof *d.times);
	d.key_xy = calloc(1, sizeof *d.key_xy);
	if (!d.times || !d.key_xy) {
		rig_mesh_def_release(&d);
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	d.source = mesh->source;
	d.n_verts = mesh->n_verts;
	d.triangles = mesh->triangles;
	d.n_tris = mesh->n_tris;
	d.uvs = mesh->uvs;
	memset(mesh, 0, sizeof *mesh);
	return rig_op__binding_install(ctx, op, l, &rig_binding_mesh, &d, sizeof d, false, NULL);
}

const struct rig_binding_kind rig_binding_kind_mesh = {
	.type = &rig_binding_mesh,
	.rest_apply = rest_apply,
	.summary = summary,
	.collections = collections,
	.n_collections = sizeof collections / sizeof collections[0],
	.bulk_members = bulk_members,
	.n_bulk_members = sizeof bulk_members / sizeof bulk_members[0],
	.remesh = remesh,
};
