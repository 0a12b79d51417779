/* The stateless authoring routes (issue 25): what the authoring ops compute,
 * on a posted input, stored nowhere. POST /v1/tessellate answers the mesh
 * layer.mesh.generate would install; POST /v1/weights/auto the weights
 * layer.skin.weights.auto would write (the parents given, not read from a
 * shot).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"
#include "api/edit/tessellate_input.h"
#include "api/handlers/handlers.h"
#include "api/http/request.h"
#include "core/auto_weights.h"
#include "core/mesh.h"
#include "core/rig_limits.h"

/* {source: [{x, y}…], triangles: [[i, j, k]…], uvs: [[u, v]…]} into b. */
static void mesh_json(struct rig_buf *b, const struct rig_tess_mesh *m)
{
	rig_buf_puts(b, "{\"source\":[");
	for (size_t v = 0; v < m->n_verts; v++) {
		rig_buf_puts(b, v ? ",{\"x\":" : "{\"x\":");
		rig_buf_double(b, m->source[2 * v]);
		rig_buf_puts(b, ",\"y\":");
		rig_buf_double(b, m->source[2 * v + 1]);
		rig_buf_puts(b, "}");
	}
	rig_buf_puts(b, "],\"triangles\":[");
	for (size_t t = 0; t < m->n_tris; t++)
		rig_buf_printf(b, "%s[%u,%u,%u]", t ? "," : "", m->triangles[3 * t],
			       m->triangles[3 * t + 1], m->triangles[3 * t + 2]);
	rig_buf_puts(b, "],\"uvs\":[");
	for (size_t v = 0; v < m->n_verts; v++) {
		rig_buf_puts(b, v ? ",[" : "[");
		rig_buf_double(b, m->uvs[2 * v]);
		rig_buf_puts(b, ",");
		rig_buf_double(b, m->uvs[2 * v + 1]);
		rig_buf_puts(b, "]");
	}
	rig_buf_printf(b, "],\"vertexCount\":%zu,\"triangleCount\":%zu}", m->n_verts, m->n_tris);
}

void rig_h_tessellate(struct rig_req *req, struct rig_resp *resp)
{
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	struct rig_tess_input in;
	struct rig_tess_mesh mesh;
	memset(&in, 0, sizeof in);
	memset(&mesh, 0, sizeof mesh);
	if (!errs)
		goto out;
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	int rc = rig_tess_input_decode(&in, &jr, body);
	if (rc == 0)
		rc = rig_tessellate(&mesh, &in.params, errs);
	if (rc == -2) {
		rig_problem(resp, RIG_MEMORY_BUSY, NULL, "the server ran out of memory");
	} else if (rc != 0) {
		rig_problem_errs(resp, errs, 0);
	} else {
		struct rig_buf b;
		rig_buf_init(&b);
		mesh_json(&b, &mesh);
		rig_resp_buf(resp, 200, &b, NULL);
	}
out:
	rig_tess_mesh_release(&mesh);
	rig_tess_input_release(&in);
	rig_errs_free(errs);
	json_decref(body);
}

/* ---- POST /v1/weights/auto ---- */

/* A posted joint: the automatic weights' view and its id (borrowed). */
struct posted_joints {
	struct rig_auto_joint *joints;
	const char **ids;
	size_t n;
};

static int read_joints(struct posted_joints *pj, const struct rig_jr *jr, json_t *body)
{
	json_t *joints = json_object_get(body, "joints");
	size_t n = json_array_size(joints);
	if (!json_is_array(joints) || n < RIG_MIN_JOINTS || n > RIG_MAX_JOINTS)
		return rig_jr_fail(jr, "joints", "'joints' must be an array of %d to %d joints",
				   RIG_MIN_JOINTS, RIG_MAX_JOINTS);
	pj->joints = calloc(n, sizeof *pj->joints);
	pj->ids = calloc(n, sizeof *pj->ids);
	if (!pj->joints || !pj->ids)
		return rig_jr_out_of_memory(jr, "joints");
	pj->n = n;
	static const char *const allowed[] = {"id", "bind", "parent", "length", NULL};
	int rc = 0;
	for (size_t j = 0; j < n; j++) {
		char base[RIG_ERR_POINTER_MAX];
		snprintf(base, sizeof base, "%s/joints/%zu", jr->base, j);
		struct rig_jr jjr = {jr->errs, jr->code, base, jr->op_index};
		json_t *o = json_array_get(joints, j), *bind = json_object_get(o, "bind");
		if (!json_is_object(o) || rig_jr_known(&jjr, o, allowed) != 0 ||
		    rig_jr_string(&jjr, o, "id", true, RIG_ID_MAX, &pj->ids[j]) != 0) {
			rc = -1;
			continue;
		}
		pj->joints[j].parent = -1;
		if (!json_is_array(bind) || json_array_size(bind) != 6) {
			rc = rig_jr_fail(&jjr, "bind", "'bind' must be [a, b, c, d, e, f]");
			continue;
		}
		for (size_t e = 0; e < 6; e++) {
			json_t *v = json_array_get(bind, e);
			if (!json_is_number(v))
				rc = rig_jr_fail(&jjr, "bind", "'bind' entries must be numbers");
			pj->joints[j].bind.m[e] = json_number_value(v);
		}
		bool has = false;
		rc |= rig_jr_number(&jjr, o, "length", false, &pj->joints[j].length, &has);
		if (has && !(pj->joints[j].length >= 0))
			rc = rig_jr_fail(&jjr, "length", "'length' must be >= 0");
		pj->joints[j].has_length = has;
	}
	for (size_t j = 0; rc == 0 && j < n; j++) {
		json_t *parent = json_object_get(json_array_get(joints, j), "parent");
		for (size_t k = 0; k < j; k++)
			if (!strcmp(pj->ids[k], pj->ids[j])) {
				char key[40];
				snprintf(key, sizeof key, "joints/%zu/id", j);
				rc = rig_jr_fail(jr, key, "joint id '%s' is given twice",
						 pj->ids[j]);
			}
		if (!parent)
			continue;
		const char *pid = json_string_value(parent);
		for (size_t k = 0; pid && k < n; k++)
			if (k != j && !strcmp(pj->ids[k], pid))
				pj->joints[j].parent = (long)k;
		if (pj->joints[j].parent < 0) {
			char key[40];
			snprintf(key, sizeof key, "joints/%zu/parent", j);
			rc = rig_jr_fail(jr, key, "'parent' must name another joint's id");
		}
	}
	return rc;
}

void rig_h_weights_auto(struct rig_req *req, struct rig_resp *resp)
{
	json_t *body = rig_api__parse_body(req, resp);
	if (!body)
		return;
	struct rig_errs *errs = rig_api__errs_new(resp);
	double *source = NULL;
	uint32_t *tris = NULL;
	size_t n_verts = 0, n_tris = 0;
	struct posted_joints pj = {0};
	struct rig_auto_result res = {0};
	if (!errs)
		goto out;
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	static const char *const allowed[] = {"source", "triangles",     "joints",
					      "method", "maxInfluences", NULL};
	rig_jr_known(&jr, body, allowed);
	enum rig_auto_method method = RIG_AUTO_SEGMENT;
	const char *name = NULL;
	long long max = 4;
	if (rig_jr_string(&jr, body, "method", true, 32, &name) == 0 && name &&
	    rig_auto_method_parse(&method, name) != 0)
		rig_jr_fail(&jr, "method", "method '%s' is not segment, nearestJoint or harmonic",
			    name);
	rig_jr_int(&jr, body, "maxInfluences", false, RIG_MIN_INFLUENCES, RIG_MAX_INFLUENCES, &max,
		   NULL);
	/* the mesh as every definition reads it (layer.skin's source and triangles) */
	if (rig_op__decode_points(&jr, body, "source", &source, &n_verts, NULL) == 0 &&
	    rig_op__decode_triangles(&jr, body, &tris, &n_tris, NULL) == 0)
		rig_mesh_check_source(source, n_verts, tris, n_tris, errs);
	read_joints(&pj, &jr, body);
	int rc = rig_errs_any(errs) ? -1
				    : rig_auto_weights(&res, source, n_verts, tris, n_tris,
						       pj.joints, pj.n, method, (int)max, errs);
	if (rc == -2) {
		rig_problem(resp, RIG_MEMORY_BUSY, NULL, "the server ran out of memory");
	} else if (rc != 0) {
		rig_problem_errs(resp, errs, 0);
	} else {
		struct rig_buf b;
		rig_buf_init(&b);
		rig_buf_puts(&b, "{\"weights\":[");
		for (size_t v = 0; v < n_verts; v++) {
			rig_buf_puts(&b, v ? ",[" : "[");
			for (uint32_t k = res.offsets[v]; k < res.offsets[v + 1]; k++) {
				rig_buf_puts(&b, k > res.offsets[v] ? ",{\"jointId\":"
								    : "{\"jointId\":");
				rig_buf_json_string(&b, pj.ids[res.influences[k].joint]);
				rig_buf_puts(&b, ",\"weight\":");
				rig_buf_double(&b, res.influences[k].weight);
				rig_buf_puts(&b, "}");
			}
			rig_buf_puts(&b, "]");
		}
		rig_buf_puts(&b, "]}");
		rig_resp_buf(resp, 200, &b, NULL);
	}
out:
	rig_auto_result_release(&res);
	free(pj.joints);
	free(pj.ids);
	free(source);
	free(tris);
	rig_errs_free(errs);
	json_decref(body);
}
