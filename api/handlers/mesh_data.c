/* GET /v1/shots/{shotId}/layers/{layerId}/mesh-data/{kind}: paged collections
 * of a layer's binding (SPEC §7): the names every binding kind's row lists
 * (vertices, bind or evaluated with ?frame, triangles, joints, weights,
 * keyframes); any other name is 400.
 *
 * A page encodes only its own items, straight into the response buffer, and
 * ends at pageSize items or maxBytes of encoded items, whichever comes first,
 * always holding at least one item. nextPageToken is an HMAC-signed payload
 * (api/http/paging.c) naming the shot version, the query and the next offset. The
 * token pins its version: later pages read that version (docs/history.md)
 * while it is retained, and answer 410 PAGE_TOKEN_STALE after; a forged token
 * or one used with other parameters is 400 PAGE_TOKEN_INVALID.
 *
 * The collections are the layer's binding kind's (api/edit/binding.h); an
 * unbound mesh layer, or a kind without the collection asked for, answers
 * empty pages (a skin has no keyframes: its animation belongs to the joint
 * layers). A group layer never carries a binding: asking it is 422
 * LAYER_KIND, not an empty page a client would print as "0 of 0".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/eval/evaluate.h"
#include "api/handlers/frames.h"
#include "api/handlers/handlers.h"
#include "api/http/paging.h"
#include "api/http/request.h"
#include "api/util/sha256.h"
#include "api/util/textbuf.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

struct query {
	const char *kind; /* a collection name, borrowed from a kind's row */
	bool has_frame;
	double frame;
	bool shot_space;
	size_t page_size;
	size_t max_bytes;
	size_t offset;
	const char *joint_id;                  /* ?jointId: one column of the collection, or NULL */
	char fingerprint[RIG_SHA256_HEX_SIZE]; /* of everything but the page token */
};

static int parse_query(struct rig_req *req, struct rig_resp *resp, struct query *q)
{
	memset(q, 0, sizeof *q);
	const char *names[RIG_BINDING_MAX_COLLECTIONS];
	size_t n = rig_binding_collection_names(names), k = 0;
	while (k < n && strcmp(names[k], req->params[2]) != 0)
		k++;
	if (k == n) {
		struct rig_buf list; /* "a, b or c" */
		rig_buf_init(&list);
		for (size_t i = 0; i < n; i++) {
			rig_buf_puts(&list, i == 0 ? "" : i + 1 < n ? ", " : " or ");
			rig_buf_puts(&list, names[i]);
		}
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "kind"),
			    "kind must be %.*s", list.oom ? 0 : (int)list.len,
			    list.data ? list.data : "");
		rig_buf_release(&list);
		return -1;
	}
	q->kind = names[k];
	const char *frame = rig_api__query(req, "frame");
	if (frame) {
		if (rig_frames__parse_frame(&q->frame, frame) != 0) {
			rig_problem(
				resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "frame"),
				"frame must be a finite decimal number such as 12, -2.5 or 1e3");
			return -1;
		}
		q->has_frame = true;
	}
	if (rig_frames__space(req, resp, &q->shot_space) ||
	    rig_api__page_size(req, resp, &q->page_size))
		return -1;
	if (rig_frames__max_bytes(req, resp, &q->max_bytes))
		return -1;
	const char *version = rig_api__query(req, "version");
	q->joint_id = rig_api__query(req, "jointId");
	char canon[300];
	snprintf(canon, sizeof canon, "%s|%d|%.17g|%d|%zu|%zu|%.20s|%d%.70s", q->kind, q->has_frame,
		 q->frame, q->shot_space, q->page_size, q->max_bytes, version ? version : "",
		 q->joint_id != NULL, q->joint_id ? q->joint_id : "");
	rig_sha256_hex_of(q->fingerprint, canon, strlen(canon));
	return 0;
}

void rig_h_mesh_data(struct rig_req *req, struct rig_resp *resp)
{
	struct query q;
	if (parse_query(req, resp, &q))
		return;
	struct rig_eval ev;
	const struct rig_binding_type *type = NULL;
	void *arrays = NULL;
	struct rig_errs *errs = NULL;
	struct rig_resolver *r = NULL;
	double *evaluated = NULL;
	struct rig_buf b;
	rig_buf_init(&b);
	struct rig_tx *tx = rig_store_read(req->app->store);
	if (rig_frames__open_at(&ev, tx, req, resp, rig_frames__pinned_version(req, "mesh")) != 0)
		goto out;
	long mi = rig_shot_model_index(ev.model, req->params[1]);
	if (mi < 0) {
		rig_problem_no_layer(resp, ev.model->id, req->params[1]);
		goto out;
	}
	const struct rig_model_layer *l = &ev.model->layers[mi];
	if (l->kind != RIG_LAYER_MESH) { /* it never has mesh data: not an empty page */
		rig_problem(resp, RIG_LAYER_KIND,
			    json_pack("{s:s, s:s}", "shotId", ev.model->id, "layerId", l->id),
			    "layer '%s' is a group layer, not a mesh layer: only mesh layers have"
			    " mesh data",
			    l->id);
		goto out;
	}
	/* The scope is the shot and the layer ('/' is never in an id). */
	char scope[2 * RIG_ID_MAX + 2];
	snprintf(scope, sizeof scope, "%s/%s", ev.model->id, l->id);
	struct rig_pinned_page pp = {"mesh", scope, q.fingerprint,
				     "kind, frame, space, version, jointId, pageSize and maxBytes",
				     ev.model->version};
	/* The offset is checked against the collection's count when the page is cut. */
	if (rig_api__pinned_page_open(req, resp, &pp, SIZE_MAX, &q.offset) ||
	    rig_frames__etag(req, resp, ev.model->version))
		goto out;
	/* The layer's binding kind pages its own collections; a kind without the
	 * one asked for (or an unbound layer) answers an empty page. */
	type = l->binding.type;
	const struct rig_binding_collection *coll =
		rig_binding_collection_find(rig_binding_kind_of(type), q.kind);
	/* Evaluated vertices come with the evaluator's arrays; the other
	 * collections read the stored arrays as written (weights bit for bit). */
	bool evaluates = coll && coll->evaluates && q.has_frame;
	bool from_eval = coll && coll->encode_eval; /* items of the prepared evaluator */
	bool needs_arrays = coll && !evaluates && !from_eval && coll->needs_arrays;
	int rc = needs_arrays ? rig_shot_read_binding(&arrays, tx, ev.model, l) : 0;
	if (rc) {
		char what[64];
		snprintf(what, sizeof what, "loading the %s", type->name);
		rig_api__fail(resp, rc, what);
		goto out;
	}
	const void *d = !coll ? NULL : needs_arrays ? arrays : l->binding.def;
	long column = -1;
	if (q.joint_id && coll && !coll->column) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", "jointId"),
			    "jointId applies to a skin's weights, not to %s", q.kind);
		goto out;
	}
	if (q.joint_id && coll && (column = coll->column(type, d, q.joint_id)) < 0) {
		rig_problem(resp, RIG_SKIN_JOINTS,
			    json_pack("{s:s, s:s, s:s}", "parameter", "jointId", "jointId",
				      q.joint_id, "layerId", l->id),
			    "joint '%.64s' is not a joint of layer '%s''s skin", q.joint_id, l->id);
		goto out;
	}
	const double *xy = d ? type->def_source(d) : NULL;
	const void *eval = NULL;
	if (evaluates || from_eval) {
		long s = ev.view.index_of[mi];
		errs = rig_api__errs_new(resp);
		if (!errs)
			goto out;
		if (rig_eval_prepare(&ev, s, evaluates && q.shot_space, errs) != 0) {
			rig_frames__eval_failed(resp, errs);
			goto out;
		}
		eval = ev.view.layers[s].binding_eval;
		d = type->eval_def(eval);
	}
	if (evaluates) {
		long s = ev.view.index_of[mi];
		evaluated = malloc(2 * l->binding.n_verts * sizeof *evaluated);
		if (!evaluated) {
			rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
			goto out;
		}
		if (!(r = rig_resolver_new(&ev.view.scene)) ||
		    rig_eval_frame(evaluated, r, &ev, s, q.frame, q.shot_space, errs) != 0) {
			if (!rig_errs_any(errs))
				rig_errs_add(errs, RIG_INTERNAL, "out of memory");
			rig_frames__eval_failed(resp, errs);
			goto out;
		}
		xy = evaluated;
	}
	size_t total = coll ? coll->count(type, d) : 0;
	rig_buf_puts(&b, "{\"shotId\":");
	rig_buf_json_string(&b, ev.model->id);
	rig_buf_puts(&b, ",\"layerId\":");
	rig_buf_json_string(&b, l->id);
	rig_buf_printf(&b, ",\"kind\":\"%s\",\"shotVersion\":%lld,\"total\":%zu,", q.kind,
		       ev.model->version, total);
	if (q.has_frame) {
		rig_buf_puts(&b, "\"frame\":");
		rig_buf_double(&b, q.frame);
		rig_buf_printf(&b, ",\"space\":\"%s\",", q.shot_space ? "shot" : "local");
	}
	rig_buf_puts(&b, "\"items\":[");
	size_t items_start = b.len, i = q.offset, n = 0;
	const char *limited_by = NULL;
	for (; i < total; i++) {
		if (n == q.page_size) {
			limited_by = "pageSize";
			break;
		}
		size_t before = b.len;
		if (n)
			rig_buf_puts(&b, ",");
		if (column >= 0)
			coll->encode_column(&b, type, d, column, i);
		else if (from_eval)
			coll->encode_eval(&b, type, eval, i);
		else
			coll->encode(&b, type, d, xy, i);
		if (n > 0 && b.len - items_start > q.max_bytes) {
			b.len = before; /* this item starts the next page */
			limited_by = "maxBytes";
			break;
		}
		n++;
	}
	rig_buf_printf(&b, "],\"count\":%zu,\"limitedBy\":", n);
	rig_buf_puts(&b, limited_by ? (limited_by[0] == 'p' ? "\"pageSize\"" : "\"maxBytes\"")
				    : "null");
	if (i < total) {
		char *token = rig_api__pinned_page_token(req->app, &pp, i);
		if (!token) { /* a page without its token would read as the listing's end */
			rig_problem(resp, RIG_MEMORY_BUSY, NULL, "the server ran out of memory");
			goto out;
		}
		rig_buf_puts(&b, ",\"nextPageToken\":");
		rig_buf_json_string(&b, token);
		free(token);
	}
	rig_buf_puts(&b, "}");
	rig_resp_buf(resp, 200, &b, NULL);
out:
	if (arrays)
		type->def_free(arrays);
	rig_buf_release(&b);
	rig_resolver_free(r);
	free(evaluated);
	rig_errs_free(errs);
	rig_eval_release(&ev);
	rig_tx_end(tx);
}
