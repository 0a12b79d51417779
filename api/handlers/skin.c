/* GET /v1/shots/{shotId}/layers/{layerId}/skin: a skinned layer's whole
 * definition in the shape the layer.skin op takes (LayerSkinInput), with the
 * shot version it was read at, so an agent can read it, edit it and send it
 * back. Weights are the stored (normalised) ones, bit for bit.
 *
 * One body holds at most ?maxBytes of skin JSON (the mesh-data default and
 * cap): past that the answer is 422 RESPONSE_TOO_LARGE naming the mesh-data
 * routes that page the same data. Encoding stops as soon as the limit is
 * passed, so a refused read never builds the whole body.
 *
 * Not here: the paged collections (mesh_data.c), evaluation (frames.c).
 */
#include <stdio.h>
#include <string.h>

#include "api/edit/pins.h"
#include "api/eval/evaluate.h"
#include "api/handlers/frames.h"
#include "api/handlers/handlers.h"
#include "api/http/request.h"
#include "api/util/textbuf.h"
#include "core/skin.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

static void put_bind(struct rig_buf *b, const struct rig_affine *m)
{
	rig_buf_puts(b, "[");
	for (int e = 0; e < 6; e++) {
		if (e)
			rig_buf_puts(b, ",");
		rig_buf_double(b, m->m[e]);
	}
	rig_buf_puts(b, "]");
}

/* Appends d as a LayerSkinInput object; returns false as soon as the object
 * passed max_bytes (b then holds a partial object). */
static bool encode_skin(struct rig_buf *b, const struct rig_skin_def *d, size_t max_bytes)
{
	size_t start = b->len;
#define OVER() (b->len - start > max_bytes)
	rig_buf_puts(b, "{\"source\":[");
	for (size_t v = 0; v < d->n_verts && !OVER(); v++) {
		rig_buf_puts(b, v ? ",{\"x\":" : "{\"x\":");
		rig_buf_double(b, d->source[2 * v]);
		rig_buf_puts(b, ",\"y\":");
		rig_buf_double(b, d->source[2 * v + 1]);
		rig_buf_puts(b, "}");
	}
	rig_buf_puts(b, "],\"triangles\":[");
	for (size_t t = 0; t < d->n_tris && !OVER(); t++)
		rig_buf_printf(b, "%s[%u,%u,%u]", t ? "," : "", d->triangles[3 * t],
			       d->triangles[3 * t + 1], d->triangles[3 * t + 2]);
	rig_buf_puts(b, "],\"joints\":[");
	for (size_t j = 0; j < d->n_joints; j++) {
		rig_buf_puts(b, j ? ",{\"id\":" : "{\"id\":");
		rig_buf_json_string(b, d->joints[j].id);
		rig_buf_puts(b, ",\"bind\":");
		put_bind(b, &d->joints[j].bind);
		rig_buf_puts(b, "}");
	}
	rig_buf_puts(b, "],\"weights\":[");
	for (size_t v = 0; v < d->n_verts && !OVER(); v++) {
		rig_buf_puts(b, v ? ",[" : "[");
		for (uint32_t k = d->weight_offsets[v]; k < d->weight_offsets[v + 1]; k++) {
			rig_buf_puts(b,
				     k > d->weight_offsets[v] ? ",{\"jointId\":" : "{\"jointId\":");
			rig_buf_json_string(b, d->joints[d->influences[k].joint].id);
			rig_buf_puts(b, ",\"weight\":");
			rig_buf_double(b, d->influences[k].weight);
			rig_buf_puts(b, "}");
		}
		rig_buf_puts(b, "]");
	}
	rig_buf_puts(b, "],\"jointLayers\":[");
	for (size_t j = 0; j < d->n_joints; j++) {
		rig_buf_puts(b, j ? ",{\"jointId\":" : "{\"jointId\":");
		rig_buf_json_string(b, d->joints[j].id);
		rig_buf_puts(b, ",\"layerId\":");
		rig_buf_json_string(b, d->joints[j].layer_id);
		rig_buf_puts(b, "}");
	}
	rig_buf_puts(b, "]");
	if (d->method != RIG_SKIN_LBS) { /* the default stays implicit, as it was */
		rig_buf_puts(b, ",\"method\":");
		rig_buf_json_string(b, rig_skin_method_name(d->method));
	}
	if (d->uvs) { /* only with texture coordinates, likewise */
		rig_buf_puts(b, ",\"uvs\":[");
		for (size_t v = 0; v < d->n_verts && !OVER(); v++) {
			rig_buf_puts(b, v ? ",[" : "[");
			rig_buf_double(b, d->uvs[2 * v]);
			rig_buf_puts(b, ",");
			rig_buf_double(b, d->uvs[2 * v + 1]);
			rig_buf_puts(b, "]");
		}
		rig_buf_puts(b, "]");
	}
	if (d->puppet) { /* only with pins, likewise */
		rig_buf_puts(b, ",\"puppet\":");
		rig_pins_json_settings(b, d->puppet);
	}
	rig_buf_puts(b, "}");
	return !OVER();
#undef OVER
}

/* 422 RESPONSE_TOO_LARGE: the limit, and the routes that page the same data. */
static void too_large(struct rig_resp *resp, const char *shot_id, const char *layer_id,
		      size_t max_bytes)
{
	json_t *routes = json_array();
	static const char *const kinds[] = {"vertices", "triangles", "joints", "weights"};
	for (size_t k = 0; k < 4; k++)
		json_array_append_new(routes, json_sprintf("/v1/shots/%s/layers/%s/mesh-data/%s",
							   shot_id, layer_id, kinds[k]));
	rig_problem(resp, RIG_RESPONSE_TOO_LARGE,
		    json_pack("{s:s, s:s, s:I, s:I, s:o}", "shotId", shot_id, "layerId", layer_id,
			      "maxBytes", (json_int_t)max_bytes, "maxPageBytes",
			      (json_int_t)RIG_MAX_PAGE_BYTES, "pagedRoutes", routes),
		    "the skin of layer '%s' is larger than maxBytes %zu; raise maxBytes (at most"
		    " maxPageBytes %d) or page it through mesh-data/{vertices,triangles,joints,"
		    "weights}",
		    layer_id, max_bytes, RIG_MAX_PAGE_BYTES);
}

void rig_h_layer_skin(struct rig_req *req, struct rig_resp *resp)
{
	size_t max_bytes;
	if (rig_frames__max_bytes(req, resp, &max_bytes))
		return;
	struct rig_eval ev;
	void *def = NULL;
	const struct rig_binding_type *type = NULL;
	struct rig_buf b;
	rig_buf_init(&b);
	struct rig_tx *tx = rig_store_read(req->app->store);
	if (rig_frames__open(&ev, tx, req, resp) != 0)
		goto out;
	long mi = rig_shot_model_index(ev.model, req->params[1]);
	if (mi < 0) {
		rig_problem_no_layer(resp, ev.model->id, req->params[1]);
		goto out;
	}
	const struct rig_model_layer *l = &ev.model->layers[mi];
	if (l->binding.type != &rig_binding_skin) {
		rig_problem(resp, RIG_MESH_BINDING_KIND, json_pack("{s:s}", "layerId", l->id),
			    "layer '%s' has no skin binding", l->id);
		goto out;
	}
	if (rig_frames__etag(req, resp, ev.model->version))
		goto out;
	type = l->binding.type;
	int rc = rig_shot_read_binding(&def, tx, ev.model, l);
	if (rc) {
		rig_api__fail(resp, rc, "loading the skin");
		goto out;
	}
	rig_buf_puts(&b, "{\"shotId\":");
	rig_buf_json_string(&b, ev.model->id);
	rig_buf_puts(&b, ",\"layerId\":");
	rig_buf_json_string(&b, l->id);
	rig_buf_printf(&b, ",\"shotVersion\":%lld,\"skin\":", ev.model->version);
	if (!encode_skin(&b, def, max_bytes)) {
		too_large(resp, ev.model->id, l->id, max_bytes);
		goto out;
	}
	rig_buf_puts(&b, "}");
	rig_resp_buf(resp, 200, &b, NULL);
out:
	if (def)
		type->def_free(def);
	rig_buf_release(&b);
	rig_eval_release(&ev);
	rig_tx_end(tx);
}
