/* POST /v1/skin/evaluate: the pure evaluator of SPEC §3 on a posted definition
 * and poses, no storage — the seed's createSkinMeshEvaluator as a route. A
 * definition with pins (puppet) takes them at the body's frame (default 0)
 * and the answer says the solver that ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_skin.h"
#include "api/handlers/frames.h"
#include "api/handlers/handlers.h"
#include "api/http/request.h"
#include "api/util/jsonread.h"

static void points_json(struct rig_buf *b, const double *xy, size_t n)
{
	rig_buf_puts(b, "[");
	for (size_t i = 0; i < n; i++) {
		rig_buf_puts(b, i ? ",{\"x\":" : "{\"x\":");
		rig_buf_double(b, xy[2 * i]);
		rig_buf_puts(b, ",\"y\":");
		rig_buf_double(b, xy[2 * i + 1]);
		rig_buf_puts(b, "}");
	}
	rig_buf_puts(b, "]");
}

/* Decodes poses [{jointId, matrix}] into named poses (ids borrowed from json). */
static struct rig_skin_pose *decode_poses(json_t *body, size_t *out_n, const struct rig_jr *jr)
{
	json_t *poses = json_object_get(body, "poses");
	if (!json_is_array(poses)) {
		rig_jr_fail(jr, "poses", "field 'poses' must be [{jointId, matrix}]");
		return NULL;
	}
	size_t n = json_array_size(poses);
	struct rig_skin_pose *out = calloc(n ? n : 1, sizeof *out);
	if (!out) {
		rig_jr_out_of_memory(jr, "poses");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *p = json_array_get(poses, i);
		json_t *id = json_object_get(p, "jointId"), *m = json_object_get(p, "matrix");
		char key[40];
		snprintf(key, sizeof key, "poses/%zu", i);
		if (!json_is_object(p) || !json_is_string(id) || !json_is_array(m) ||
		    json_array_size(m) != 6 || json_object_size(p) != 2) {
			rig_jr_fail(jr, key,
				    "pose %zu must be {jointId, matrix: [a, b, c, d, e, f]}", i);
			continue;
		}
		out[i].joint_id = json_string_value(id);
		for (size_t e = 0; e < 6; e++) {
			json_t *v = json_array_get(m, e);
			if (!json_is_number(v))
				rig_jr_fail(jr, key, "pose %zu matrix entries must be numbers", i);
			out[i].matrix.m[e] = json_number_value(v);
		}
	}
	*out_n = n;
	return out;
}

void rig_h_skin_evaluate(struct rig_req *req, struct rig_resp *resp)
{
	json_t *body = rig_api__parse_body_bulk(req, resp, RIG_BULK_SKIN);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	struct rig_skin_def def;
	memset(&def, 0, sizeof def);
	struct rig_skin *skin = NULL;
	struct rig_skin_pose *poses = NULL;
	struct rig_affine *ordered = NULL;
	double *out = NULL;
	size_t n_poses = 0;
	enum rig_puppet_ran ran = RIG_PUPPET_RAN_LBS;
	if (!errs)
		goto out;
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const extra[] = {"poses", "frame", NULL};
	double frame = 0; /* the pins' keys' frame; a skin without pins ignores it */
	if (rig_skin_json_decode(&def, body, &jr, false, extra, NULL, req->bulk) == 0) {
		poses = decode_poses(body, &n_poses, &jr);
		rig_jr_number(&jr, body, "frame", false, &frame, NULL);
	}
	if (rig_errs_any(errs) || !(skin = rig_skin_new(&def, errs))) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	const struct rig_skin_def *d = rig_skin_def_of(skin);
	ordered = calloc(d->n_joints, sizeof *ordered);
	out = malloc(2 * d->n_verts * sizeof *out);
	if (!ordered || !out) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		goto out;
	}
	if (rig_skin_order_poses(ordered, skin, poses, n_poses, errs) != 0 ||
	    rig_skin_evaluate_at(out, &ran, skin, ordered, frame, errs) != 0) {
		rig_problem_errs(resp, errs, 0);
		goto out;
	}
	struct rig_buf b;
	rig_buf_init(&b);
	rig_buf_puts(&b, "{\"source\":");
	points_json(&b, d->source, d->n_verts);
	rig_buf_puts(&b, ",\"destination\":");
	points_json(&b, out, d->n_verts);
	rig_buf_puts(&b, ",\"triangles\":[");
	for (size_t t = 0; t < d->n_tris; t++)
		rig_buf_printf(&b, "%s[%u,%u,%u]", t ? "," : "", d->triangles[3 * t],
			       d->triangles[3 * t + 1], d->triangles[3 * t + 2]);
	rig_buf_puts(&b, "]");
	if (rig_skin_puppet(skin)) /* what the pins ran, as a frame says it */
		rig_buf_printf(&b, ",\"solver\":\"%s\"", rig_puppet_ran_name(ran));
	rig_buf_puts(&b, "}");
	rig_resp_buf(resp, 200, &b, NULL);
out:
	free(out);
	free(ordered);
	free(poses);
	rig_skin_free(skin);
	rig_skin_def_release(&def);
	rig_errs_free(errs);
	json_decref(body);
}
