/* auto_weights_driver: a test-only window on the automatic weights for the
 * independent oracle (test_auto_weights_oracle.py). Reads one case as JSON
 * on stdin:
 *
 *   {"source": [x0, y0, …], "triangles": [i, j, k, …],
 *    "joints": [{"bind": [a, b, c, d, e, f], "parent"?: p, "length"?: l}],
 *    "method": "segment"|"nearestJoint"|"harmonic", "maxInfluences": k}
 *
 * and prints one JSON object: bones (rig_auto_bones, 4 numbers per joint),
 * raw (rig_auto_raw_weights, n_verts × n_joints row-major), and the lists of
 * rig_auto_weights as offsets (n_verts + 1), joints and weights. Numbers are
 * printed with 17 significant digits, so they read back exactly. Exit 1 with
 * the errors on stderr when the case is invalid. Built for ctest only; never
 * installed.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/auto_weights.h"
#include "core/err.h"

static void print_array(const char *name, const double *x, size_t n, const char *sep)
{
	printf("\"%s\": [", name);
	for (size_t i = 0; i < n; i++)
		printf("%s%.17g", i ? ", " : "", x[i]);
	printf("]%s\n", sep);
}

static void print_errors(const struct rig_errs *errs)
{
	for (size_t i = 0; i < errs->count; i++)
		fprintf(stderr, "%s %s: %s\n", rig_code_name(errs->items[i].code),
			errs->items[i].pointer, errs->items[i].detail);
}

int main(void)
{
	json_error_t jerr;
	json_t *in = json_loadf(stdin, 0, &jerr);
	if (!in) {
		fprintf(stderr, "auto_weights_driver: %s\n", jerr.text);
		return 2;
	}
	json_t *src = json_object_get(in, "source"), *tris = json_object_get(in, "triangles");
	json_t *js = json_object_get(in, "joints");
	size_t n = json_array_size(src) / 2, n_tris = json_array_size(tris) / 3;
	size_t n_joints = json_array_size(js);
	double *source = calloc(2 * n + 1, sizeof *source);
	uint32_t *triangles = calloc(3 * n_tris + 1, sizeof *triangles);
	struct rig_auto_joint *joints = calloc(n_joints + 1, sizeof *joints);
	struct rig_auto_bone *bones = calloc(n_joints + 1, sizeof *bones);
	double *raw = calloc(n * n_joints + 1, sizeof *raw);
	double *list = calloc(8 * n + 2, sizeof *list),
	       *bxy = calloc(4 * n_joints + 1, sizeof *bxy);
	struct rig_errs *errs = rig_errs_new();
	if (!source || !triangles || !joints || !bones || !raw || !list || !bxy || !errs)
		return 2;
	for (size_t i = 0; i < 2 * n; i++)
		source[i] = json_number_value(json_array_get(src, i));
	for (size_t i = 0; i < 3 * n_tris; i++)
		triangles[i] = (uint32_t)json_integer_value(json_array_get(tris, i));
	for (size_t j = 0; j < n_joints; j++) {
		json_t *o = json_array_get(js, j), *bind = json_object_get(o, "bind");
		json_t *parent = json_object_get(o, "parent"), *len = json_object_get(o, "length");
		for (int k = 0; k < 6; k++)
			joints[j].bind.m[k] = json_number_value(json_array_get(bind, (size_t)k));
		joints[j].parent = json_is_integer(parent) ? (long)json_integer_value(parent) : -1;
		joints[j].has_length = json_is_number(len);
		joints[j].length = json_is_number(len) ? json_number_value(len) : 0;
	}
	enum rig_auto_method method = RIG_AUTO_SEGMENT;
	json_t *m = json_object_get(in, "method"), *k = json_object_get(in, "maxInfluences");
	if (json_is_string(m) && rig_auto_method_parse(&method, json_string_value(m)) != 0)
		return 2;
	int max_influences = json_is_integer(k) ? (int)json_integer_value(k) : 4;

	int rc = 1;
	struct rig_auto_result r = {0};
	if (rig_auto_raw_weights(raw, source, n, triangles, n_tris, joints, n_joints, method,
				 errs) != 0 ||
	    rig_auto_weights(&r, source, n, triangles, n_tris, joints, n_joints, method,
			     max_influences, errs) != 0) {
		print_errors(errs);
		goto out;
	}
	rig_auto_bones(bones, joints, n_joints);
	printf("{\n");
	for (size_t j = 0; j < n_joints; j++) {
		bxy[4 * j] = bones[j].x0;
		bxy[4 * j + 1] = bones[j].y0;
		bxy[4 * j + 2] = bones[j].x1;
		bxy[4 * j + 3] = bones[j].y1;
	}
	print_array("bones", bxy, 4 * n_joints, ",");
	print_array("raw", raw, n * n_joints, ",");
	for (size_t v = 0; v <= n; v++)
		list[v] = r.offsets[v];
	print_array("offsets", list, n + 1, ",");
	size_t n_inf = r.offsets[n];
	for (size_t i = 0; i < n_inf; i++)
		list[i] = r.influences[i].joint;
	print_array("joints", list, n_inf, ",");
	for (size_t i = 0; i < n_inf; i++)
		list[i] = r.influences[i].weight;
	print_array("weights", list, n_inf, "");
	printf("}\n");
	rc = 0;
out:
	rig_auto_result_release(&r);
	free(source);
	free(triangles);
	free(joints);
	free(bones);
	free(raw);
	free(list);
	free(bxy);
	rig_errs_free(errs);
	json_decref(in);
	return rc;
}
