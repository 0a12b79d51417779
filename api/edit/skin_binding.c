/* The skin's row of the binding kinds (binding.h): its refusal of
 * layer.deformation.rest.apply, its summary in a layer's JSON and
 * its mesh-data collections (vertices, triangles, joints, weights, and for a
 * skin with pins pins and pinWeights; its keyframes are the joint layers'
 * keys, so it has none), the arrays layer.skin takes from the compact body
 * decoder, and its pins (skin.puppet) for the pin ops.
 */
#include <stdlib.h>

#include "api/edit/binding.h"
#include "api/edit/ops_internal.h"
#include "api/edit/pins.h"
#include "core/skin.h"

/* A skin's rest pose belongs to its joint layers: moving them is the way. */
static int rest_apply(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l)
{
	rig_op__fail_layer(ctx, op, RIG_SKIN_REST_REQUIRES_JOINT_KEYS, "",
			   "layer '%s' is skinned: restore its joint layers' keys with"
			   " layer.key.put instead",
			   l->id);
	return -1;
}

static json_t *summary(const struct rig_model_layer *l)
{
	const struct rig_skin_def *d = l->binding.def;
	json_t *s = rig_binding_summary_counts(l, "jointCount", d->n_joints);
	/* Only when not the default: an lbs skin's JSON is what it always was. */
	if (s && d->method != RIG_SKIN_LBS)
		json_object_set_new(s, "method", json_string(rig_skin_method_name(d->method)));
	/* Only with pins, likewise. */
	if (s && d->puppet)
		json_object_set_new(s, "pinCount", json_integer((json_int_t)d->puppet->n_pins));
	return s;
}

/* ---- mesh-data collections ---- */

static size_t count_joints(const struct rig_binding_type *type, const void *def)
{
	(void)type;
	return ((const struct rig_skin_def *)def)->n_joints;
}

static void encode_joint(struct rig_buf *b, const struct rig_binding_type *type, const void *def,
			 const double *xy, size_t i)
{
	const struct rig_skin_def *d = def;
	(void)type;
	(void)xy;
	rig_buf_puts(b, "{\"jointId\":");
	rig_buf_json_string(b, d->joints[i].id);
	rig_buf_puts(b, ",\"bind\":[");
	for (int e = 0; e < 6; e++) {
		if (e)
			rig_buf_puts(b, ",");
		rig_buf_double(b, d->joints[i].bind.m[e]);
	}
	rig_buf_puts(b, "],\"layerId\":");
	rig_buf_json_string(b, d->joints[i].layer_id);
	rig_buf_puts(b, "}");
}

static void encode_weights(struct rig_buf *b, const struct rig_binding_type *type, const void *def,
			   const double *xy, size_t i)
{
	const struct rig_skin_def *d = def;
	(void)type;
	(void)xy;
	rig_buf_printf(b, "{\"vertexIndex\":%zu,\"influences\":[", i);
	for (uint32_t k = d->weight_offsets[i]; k < d->weight_offsets[i + 1]; k++) {
		rig_buf_puts(b, k > d->weight_offsets[i] ? ",{\"jointId\":" : "{\"jointId\":");
		rig_buf_json_string(b, d->joints[d->influences[k].joint].id);
		rig_buf_puts(b, ",\"weight\":");
		rig_buf_double(b, d->influences[k].weight);
		rig_buf_puts(b, "}");
	}
	rig_buf_puts(b, "]}");
}

/* weights?jointId=: {vertexIndex, weight} of one joint at every vertex, 0
 * where the joint does not weigh the vertex. */
static long weight_column(const struct rig_binding_type *type, const void *def, const char *id)
{
	uint32_t j = rig_skin_def_joint_index(def, id);
	(void)type;
	return j == RIG_JOINT_UNKNOWN ? -1 : (long)j;
}

static void encode_weight_column(struct rig_buf *b, const struct rig_binding_type *type,
				 const void *def, long column, size_t i)
{
	const struct rig_skin_def *d = def;
	double w = 0;
	(void)type;
	for (uint32_t k = d->weight_offsets[i]; k < d->weight_offsets[i + 1]; k++)
		if (d->influences[k].joint == (uint32_t)column)
			w = d->influences[k].weight;
	rig_buf_printf(b, "{\"vertexIndex\":%zu,\"weight\":", i);
	rig_buf_double(b, w);
	rig_buf_puts(b, "}");
}

/* pins: the skin's pins as the puppet's collection has them, anchored over
 * the skin's rest source; none without pins. */
static size_t count_pins(const struct rig_binding_type *type, const void *def)
{
	const struct rig_skin_def *d = def;
	(void)type;
	return d->puppet ? d->puppet->n_pins : 0;
}

static void encode_pin(struct rig_buf *b, const struct rig_binding_type *type, const void *def,
		       const double *xy, size_t i)
{
	const struct rig_skin_def *d = def;
	(void)type;
	(void)xy;
	rig_pins_json_item(b, d->puppet, d->source, d->n_verts, i);
}

/* pinWeights: the harmonic weights of the skin's pins per vertex, read from
 * the prepared evaluator's puppet; none without pins. */
static size_t count_pin_weights(const struct rig_binding_type *type, const void *def)
{
	const struct rig_skin_def *d = def;
	(void)type;
	return d->puppet ? d->n_verts : 0;
}

static void encode_pin_weights(struct rig_buf *b, const struct rig_binding_type *type,
			       const void *eval, size_t v)
{
	(void)type;
	rig_pins_json_weights(b, rig_skin_puppet(eval), v);
}

static const struct rig_binding_collection collections[] = {
	RIG_BINDING_COLLECTION_VERTICES,
	RIG_BINDING_COLLECTION_TRIANGLES,
	RIG_BINDING_COLLECTION_UVS,
	{"joints", false, false, count_joints, encode_joint, NULL, NULL, NULL},
	{"weights", true, false, rig_binding_count_verts, encode_weights, NULL, weight_column,
	 encode_weight_column},
	{"pins", true, false, count_pins, encode_pin, NULL, NULL, NULL},
	{"pinWeights", false, false, count_pin_weights, NULL, encode_pin_weights, NULL, NULL},
};

/* skin.puppet: the pin ops edit it in place; the first pin.put on a skin
 * without pins gives it an empty set first (solver arap, no clamp). */
static struct rig_puppet_def *pins(struct rig_model_layer *l, bool create)
{
	struct rig_skin_def *d = l->binding.def;
	if (!d->puppet && create)
		d->puppet = calloc(1, sizeof *d->puppet);
	return d->puppet;
}

/* layer.skin's skin holds the three arrays; the skin's evaluate route takes a
 * LayerSkinInput of the same fields at its root (RIG_BULK_SKIN_HOLDER). */
static const struct rig_bulk_member bulk_members[] = {
	{"layer.skin", "skin", "source", RIG_BULK_SOURCE},
	{"layer.skin", "skin", "triangles", RIG_BULK_TRIANGLES},
	{"layer.skin", "skin", "weights", RIG_BULK_WEIGHTS},
};

/* layer.mesh.generate: the skin keeps its joints, method and pins (when l is
 * skinned already) and loses its weights, which indexed the old vertices:
 * every vertex gets an empty list, so the ops after it read a skin of the
 * usual shape, and a later op of the batch writes them
 * (layer.skin.weights.auto, .put, .paint), or final validation refuses the
 * batch (SKIN_WEIGHTS). */
static int remesh(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l,
		  struct rig_tess_mesh *mesh)
{
	struct rig_skin_def d = {0};
	d.weight_offsets = calloc(mesh->n_verts + 1, sizeof *d.weight_offsets);
	d.influences = malloc(sizeof *d.influences);
	if (!d.weight_offsets || !d.influences ||
	    (l->binding.type == &rig_binding_skin &&
	     rig_skin_def_copy_head(&d, l->binding.def) != 0)) {
		rig_skin_def_release(&d);
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	d.n_weight_lists = mesh->n_verts;
	d.source = mesh->source;
	d.n_verts = mesh->n_verts;
	d.triangles = mesh->triangles;
	d.n_tris = mesh->n_tris;
	d.uvs = mesh->uvs;
	d.has_uvs = mesh->uvs != NULL;
	memset(mesh, 0, sizeof *mesh);
	return rig_op__binding_install(ctx, op, l, &rig_binding_skin, &d, sizeof d, false, NULL);
}

const struct rig_binding_kind rig_binding_kind_skin = {
	.type = &rig_binding_skin,
	.rest_apply = rest_apply,
	.summary = summary,
	.collections = collections,
	.n_collections = sizeof collections / sizeof collections[0],
	.bulk_members = bulk_members,
	.n_bulk_members = sizeof bulk_members / sizeof bulk_members[0],
	.pins = pins,
	.remesh = remesh,
};
