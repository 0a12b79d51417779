/* puppet_driver: a test-only window on the puppet's math for the independent
 * oracle (test_puppet_oracle.py). Reads one case as JSON on stdin:
 *
 *   {"source": [x0, y0, …], "triangles": [i, j, k, …], "solver": "arap"|"lbs",
 *    "maxRotationDeg": n (optional), "frame": f,
 *    "pins": [{"id", "x", "y", "rotation"?, "stiffness"?, "scale"?, "overlap"?,
 *              "overlapExtent"?, "keys"?: {"<channel>": [{"frame", "value",
 *              "interp"?}]}}]}
 *
 * checks it (rig_puppet_def_check), builds the evaluator and prints one JSON
 * object: pinVertices, weights (n_verts × n_pins, row-major), lbs and arap
 * (rig_puppet_lbs, rig_puppet_arap: 2 · n_verts), ran (the definition's
 * solver's rig_puppet_ran_name), deformed (rig_puppet_deform), depth and
 * order. Numbers are printed with 17 significant digits. Exit 1 with the
 * errors on stderr when the case is invalid. Built for ctest only; never
 * installed.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/puppet.h"

static double num(json_t *o, const char *key, double fallback)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : fallback;
}

static void print_array(const char *name, const double *x, size_t n, const char *sep)
{
	printf("\"%s\": [", name);
	for (size_t i = 0; i < n; i++)
		printf("%s%.17g", i ? ", " : "", x[i]);
	printf("]%s\n", sep);
}

static int read_pin(struct rig_puppet_pin *pin, json_t *o)
{
	json_t *id = json_object_get(o, "id");
	*pin = rig_puppet_pin_default(json_is_string(id) ? json_string_value(id) : "",
				      num(o, "x", 0), num(o, "y", 0));
	pin->rotation_deg = num(o, "rotation", 0);
	pin->stiffness = num(o, "stiffness", 0);
	pin->scale = num(o, "scale", 1);
	pin->overlap = num(o, "overlap", 0);
	pin->overlap_extent = num(o, "overlapExtent", 1);
	json_t *keys = json_object_get(o, "keys");
	const char *ch_name;
	json_t *list;
	json_object_foreach(keys, ch_name, list)
	{
		enum rig_pin_channel ch;
		if (rig_pin_channel_parse(&ch, ch_name) != 0)
			return -1;
		size_t k;
		json_t *key;
		json_array_foreach(list, k, key)
		{
			struct rig_key rk = {0};
			rk.frame = num(key, "frame", 0);
			rk.value = num(key, "value", 0);
			json_t *interp = json_object_get(key, "interp");
			if (json_is_string(interp) &&
			    rig_interp_parse(&rk.interp, json_string_value(interp)) != 0)
				return -1;
			if (rig_puppet_pin_key_put(pin, ch, &rk) != 0)
				return -1;
		}
	}
	return 0;
}

int main(void)
{
	json_error_t jerr;
	json_t *in = json_loadf(stdin, 0, &jerr);
	if (!in) {
		fprintf(stderr, "puppet_driver: %s\n", jerr.text);
		return 2;
	}
	struct rig_puppet_def def = {0};
	json_t *src = json_object_get(in, "source"), *tris = json_object_get(in, "triangles");
	json_t *pins = json_object_get(in, "pins");
	def.n_verts = json_array_size(src) / 2;
	def.n_tris = json_array_size(tris) / 3;
	def.n_pins = json_array_size(pins);
	def.source = calloc(2 * def.n_verts + 1, sizeof *def.source);
	def.triangles = calloc(3 * def.n_tris + 1, sizeof *def.triangles);
	def.pins = calloc(def.n_pins + 1, sizeof *def.pins);
	if (!def.source || !def.triangles || !def.pins)
		return 2;
	for (size_t i = 0; i < 2 * def.n_verts; i++)
		def.source[i] = json_number_value(json_array_get(src, i));
	for (size_t i = 0; i < 3 * def.n_tris; i++)
		def.triangles[i] = (uint32_t)json_integer_value(json_array_get(tris, i));
	for (size_t p = 0; p < def.n_pins; p++)
		if (read_pin(&def.pins[p], json_array_get(pins, p)) != 0)
			return 2;
	json_t *solver = json_object_get(in, "solver");
	if (json_is_string(solver) &&
	    rig_puppet_solver_parse(&def.solver, json_string_value(solver)) != 0)
		return 2;
	json_t *max_rot = json_object_get(in, "maxRotationDeg");
	def.has_max_rotation = json_is_number(max_rot);
	def.max_rotation_deg = def.has_max_rotation ? json_number_value(max_rot) : 0;
	double frame = num(in, "frame", 0);

	struct rig_errs *errs = rig_errs_new();
	if (!errs)
		return 2;
	int rc = 1;
	struct rig_puppet *pup = NULL;
	if (rig_puppet_def_check(&def, errs) != 0 || !(pup = rig_puppet_take(&def, errs))) {
		for (size_t i = 0; i < errs->count; i++)
			fprintf(stderr, "%s %s: %s\n", rig_code_name(errs->items[i].code),
				errs->items[i].pointer, errs->items[i].detail);
		goto out;
	}
	size_t n = def.n_verts, n_pins = rig_puppet_def_of(pup)->n_pins;
	double *lbs = calloc(2 * n, sizeof *lbs), *arap = calloc(2 * n, sizeof *arap);
	double *deformed = calloc(2 * n, sizeof *deformed), *depth = calloc(n, sizeof *depth);
	double *order = calloc(def.n_tris, sizeof *order);
	uint32_t *order_u = calloc(def.n_tris, sizeof *order_u);
	double *anchors = calloc(n_pins + 1, sizeof *anchors);
	struct rig_puppet_pin_pose *poses = calloc(n_pins + 1, sizeof *poses);
	enum rig_puppet_ran ran_arap, ran;
	if (!lbs || !arap || !deformed || !depth || !order || !order_u || !anchors || !poses)
		goto out;
	rig_puppet_pose_at(poses, pup, frame);
	if (rig_puppet_lbs(lbs, pup, poses) != 0 || rig_puppet_arap(arap, &ran_arap, pup, poses) ||
	    rig_puppet_deform(deformed, &ran, pup, poses) != 0 ||
	    rig_puppet_triangle_order(order_u, pup, poses) < 0)
		goto out;
	rig_puppet_depth(depth, pup, poses);
	for (size_t t = 0; t < def.n_tris; t++)
		order[t] = order_u[t];
	for (size_t p = 0; p < n_pins; p++)
		anchors[p] = rig_puppet_pin_vertex(pup, p);
	printf("{\n");
	print_array("pinVertices", anchors, n_pins, ",");
	const double *w = rig_puppet_weights(pup);
	print_array("weights", w ? w : anchors, w ? n * n_pins : 0, ",");
	print_array("lbs", lbs, 2 * n, ",");
	print_array("arap", arap, 2 * n, ",");
	print_array("deformed", deformed, 2 * n, ",");
	print_array("depth", depth, n, ",");
	print_array("order", order, def.n_tris, ",");
	printf("\"arapRan\": \"%s\",\n\"ran\": \"%s\"\n}\n", rig_puppet_ran_name(ran_arap),
	       rig_puppet_ran_name(ran));
	rc = 0;
	free(lbs);
	free(arap);
	free(deformed);
	free(depth);
	free(order);
	free(order_u);
	free(anchors);
	free(poses);
out:
	rig_puppet_free(pup);
	rig_puppet_def_release(&def);
	rig_errs_free(errs);
	json_decref(in);
	return rc;
}
