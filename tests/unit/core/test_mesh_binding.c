/* The mesh binding (core/mesh_binding.c): its rules (one broken field per
 * case yields its own code), key edits, the interpolation (the channel keys'
 * rule, coordinate by coordinate), the evaluator's checks, its row of the
 * binding table and its stored form.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/binding.h"
#include "core/keys.h"
#include "core/mesh_binding.h"
#include "core/rig_limits.h"
#include "tests/unit/core/support.h"

/* A strip of 6 vertices, 4 triangles (counter-clockwise), no keys; on the heap
 * as the shot model holds it. */
static struct rig_mesh_def *strip_mesh(void)
{
	static const double src[12] = {0, 0, 100, 0, 200, 0, 0, 50, 100, 50, 200, 50};
	static const uint32_t tris[12] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4};
	struct rig_mesh_def *d = calloc(1, sizeof *d);
	cr_assert_not_null(d);
	d->source = malloc(sizeof src);
	d->triangles = malloc(sizeof tris);
	cr_assert(d->source && d->triangles);
	memcpy(d->source, src, sizeof src);
	memcpy(d->triangles, tris, sizeof tris);
	d->n_verts = 6;
	d->n_tris = 4;
	return d;
}

/* The source moved by (dx, dy) and stretched in y by sy, as a new key array. */
static double *pose(const struct rig_mesh_def *d, double dx, double dy, double sy)
{
	double *xy = malloc(2 * d->n_verts * sizeof *xy);
	cr_assert_not_null(xy);
	for (size_t v = 0; v < d->n_verts; v++) {
		xy[2 * v] = d->source[2 * v] + dx;
		xy[2 * v + 1] = d->source[2 * v + 1] * sy + dy;
	}
	return xy;
}

static void put(struct rig_mesh_def *d, double frame, enum rig_interp interp, double *xy)
{
	struct rig_key t = {frame, 0, interp, {0.42, 0, 0.58, 1}};
	cr_assert_eq(rig_mesh_def_key_put(d, &t, xy), 0);
}

static void def_free(struct rig_mesh_def *d)
{
	rig_binding_mesh.def_free(d);
}

Test(mesh_def, a_valid_strip_passes_and_a_zeroed_one_does_not)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_mesh_def *d = strip_mesh();
	put(d, 0, RIG_INTERP_LINEAR, pose(d, 1, 2, 1));
	cr_assert_eq(rig_mesh_def_check(d, errs), 0);
	cr_assert_not(rig_errs_any(errs));
	struct rig_mesh_def zero = {0};
	cr_assert_eq(rig_mesh_def_check(&zero, errs), -1);
	cr_assert_geq(find_err(errs, RIG_MESH_GEOMETRY), 0);
	cr_assert_geq(find_err(errs, RIG_MESH_TOPOLOGY), 0);
	def_free(d);
	rig_errs_free(errs);
}

Test(mesh_def, each_broken_field_reports_its_own_code)
{
	struct rig_errs *errs = rig_errs_new();
	struct {
		enum rig_code code;
		const char *pointer;
	} cases[] = {
		{RIG_MESH_GEOMETRY, "/source/4"},          /* a NaN vertex */
		{RIG_MESH_TOPOLOGY, "/triangles/2"},       /* an index out of range */
		{RIG_MESH_DEGENERATE, "/triangles/0"},     /* a flat triangle */
		{RIG_MESH_GEOMETRY, "/keys/1/vertices/3"}, /* a key's NaN vertex */
		{RIG_OP_INVALID, "/keys/0/ease/0"},        /* ease x1 outside [0, 1] */
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		rig_errs_init(errs);
		struct rig_mesh_def *d = strip_mesh();
		put(d, 0, RIG_INTERP_BEZIER, pose(d, 0, 0, 1));
		put(d, 5, RIG_INTERP_LINEAR, pose(d, 3, 0, 1));
		switch (c) {
		case 0:
			d->source[9] = NAN;
			break;
		case 1:
			d->triangles[7] = 6;
			break;
		case 2:
			d->source[9] = 0; /* vertex 4 onto the line through 0 and 1 */
			break;
		case 3:
			d->key_xy[1][6] = INFINITY;
			break;
		case 4:
			d->times[0].ease[0] = 1.5;
			break;
		}
		cr_assert_eq(rig_mesh_def_check(d, errs), -1, "case %zu", c);
		long i = find_err(errs, cases[c].code);
		cr_assert_geq(i, 0, "case %zu: no %s", c, rig_code_name(cases[c].code));
		cr_assert_str_eq(errs->items[i].pointer, cases[c].pointer, "case %zu", c);
		def_free(d);
	}
	rig_errs_free(errs);
}

Test(mesh_def, key_vertices_must_match_the_mesh)
{
	struct rig_errs *errs = rig_errs_new();
	double xy[8] = {0, 0, 1, 0, 0, 1, 1, 1};
	cr_assert_eq(rig_mesh_check_key_vertices(xy, 4, 4, errs), 0);
	cr_assert_eq(rig_mesh_check_key_vertices(xy, 4, 6, errs), -1);
	cr_assert_eq(errs->items[0].code, RIG_MESH_GEOMETRY);
	cr_assert_str_eq(errs->items[0].pointer, "");
	rig_errs_free(errs);
}

Test(mesh_keys, put_keeps_frame_order_and_replaces_by_frame)
{
	struct rig_mesh_def *d = strip_mesh();
	put(d, 10, RIG_INTERP_LINEAR, pose(d, 10, 0, 1));
	put(d, -2, RIG_INTERP_HOLD, pose(d, -2, 0, 1));
	put(d, 4.5, RIG_INTERP_BEZIER, pose(d, 4.5, 0, 1));
	put(d, 10, RIG_INTERP_HOLD, pose(d, 11, 0, 1));
	cr_assert_eq(d->n_keys, 3);
	double frames[3] = {-2, 4.5, 10};
	for (size_t k = 0; k < 3; k++)
		cr_assert_eq(d->times[k].frame, frames[k]);
	cr_assert_eq(d->times[2].interp, RIG_INTERP_HOLD);
	cr_assert_eq(d->key_xy[2][0], 11, "the replaced key's vertices");
	cr_assert_eq(rig_mesh_def_key_find(d, 4.5), 1);
	cr_assert(rig_mesh_def_key_delete(d, 4.5));
	cr_assert_not(rig_mesh_def_key_delete(d, 4.5));
	cr_assert_eq(d->n_keys, 2);
	cr_assert_eq(d->times[1].frame, 10);
	def_free(d);
}

/* Every coordinate moves exactly as a channel keyed with the same times and
 * the coordinate's values would (rig_keys_eval), on every kind of segment. */
Test(mesh_shape, each_coordinate_follows_the_channel_key_rule)
{
	struct rig_mesh_def *d = strip_mesh();
	put(d, -3, RIG_INTERP_LINEAR, pose(d, 5, 1, 1));
	put(d, 4, RIG_INTERP_HOLD, pose(d, -7.5, 2, 1.5));
	put(d, 9, RIG_INTERP_BEZIER, pose(d, 12, -4, 0.5));
	put(d, 15.5, RIG_INTERP_LINEAR, pose(d, 30, 10, 2));
	double out[12];
	struct rig_key ch[4];
	for (double f = -6; f < 20; f += 0.37) {
		rig_mesh_def_shape(out, d, f);
		for (size_t i = 0; i < 12; i++) {
			for (size_t k = 0; k < 4; k++) {
				ch[k] = d->times[k];
				ch[k].value = d->key_xy[k][i];
			}
			struct rig_keys keys = {ch, 4};
			double want = rig_keys_eval(&keys, f, NAN);
			cr_assert_eq(ulps_apart(out[i], want), 0, "frame %g coordinate %zu", f, i);
		}
	}
	def_free(d);
}

Test(mesh_shape, without_keys_the_source)
{
	struct rig_mesh_def *d = strip_mesh();
	double out[12];
	rig_mesh_def_shape(out, d, 3);
	cr_assert_arr_eq(out, d->source, sizeof out);
	def_free(d);
}

Test(mesh_eval, checks_each_frame_against_the_source)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_mesh_def *d = strip_mesh();
	put(d, 0, RIG_INTERP_LINEAR, pose(d, 0, 0, 1));
	put(d, 10, RIG_INTERP_LINEAR, pose(d, 0, 0, -1)); /* mirrored: every triangle flips */
	struct rig_mesh_eval *ev = rig_binding_mesh.prepare(d, errs);
	cr_assert_not_null(ev);
	cr_assert_null(d->source, "the evaluator took the arrays");
	double out[12];
	cr_assert_eq(rig_mesh_eval_evaluate(out, ev, 2, errs), 0);
	cr_assert_eq(rig_mesh_eval_evaluate(out, ev, 5, errs), -1);
	cr_assert_eq(count_err(errs, RIG_MESH_COLLAPSED), 4);
	rig_errs_init(errs);
	cr_assert_eq(rig_mesh_eval_evaluate(out, ev, 10, errs), -1);
	cr_assert_eq(count_err(errs, RIG_MESH_WINDING), 4);
	cr_assert_eq(errs->items[0].triangle_index, 0);
	cr_assert_gt(rig_binding_mesh.bytes(ev), 12 * sizeof(double));
	rig_binding_mesh.free(ev);
	def_free(d);
	rig_errs_free(errs);
}

Test(mesh_eval, damaged_stored_data_is_internal)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_mesh_def *d = strip_mesh();
	put(d, 0, RIG_INTERP_LINEAR, pose(d, 0, 0, 1));
	d->triangles[4] = 99;
	cr_assert_null(rig_binding_mesh.prepare(d, errs));
	cr_assert_eq(errs->items[0].code, RIG_INTERNAL);
	cr_assert_not_null(d->source, "a refused definition keeps its arrays");
	def_free(d);
	rig_errs_free(errs);
}

Test(mesh_row, is_in_the_table_and_follows_no_joint)
{
	cr_assert_eq(rig_binding_type_find("mesh"), &rig_binding_mesh);
	struct rig_mesh_def *d = strip_mesh();
	cr_assert_eq(rig_binding_mesh.def_n_joints(d), 0);
	cr_assert_eq(rig_binding_mesh.def_n_verts(d), 6);
	cr_assert_eq(rig_binding_mesh.def_source(d), d->source);
	rig_binding_mesh.def_release_arrays(d);
	cr_assert_null(d->source);
	cr_assert_eq(rig_binding_mesh.def_n_verts(d), 6, "counts stay");
	def_free(d);
}

Test(mesh_codec, round_trips_bit_for_bit_and_refuses_damaged_bytes)
{
	struct rig_mesh_def *d = strip_mesh();
	put(d, -1.5, RIG_INTERP_BEZIER, pose(d, 0.1, -0.0, 1.0 / 3));
	put(d, 7, RIG_INTERP_HOLD, pose(d, 1e-300, 3, 2));
	unsigned char *head, *mesh;
	size_t n_head, n_mesh;
	cr_assert_eq(rig_binding_mesh.encode(d, &head, &n_head, &mesh, &n_mesh), 0);
	struct rig_mesh_def *light = rig_binding_mesh.decode(head, n_head, NULL, 0);
	cr_assert_not_null(light);
	cr_assert_null(light->source);
	cr_assert_eq(light->n_keys, 2);
	cr_assert_eq(light->times[0].interp, RIG_INTERP_BEZIER);
	cr_assert_eq(light->times[0].ease[2], 0.58);
	struct rig_mesh_def *full = rig_binding_mesh.decode(head, n_head, mesh, n_mesh);
	cr_assert_not_null(full);
	cr_assert_arr_eq(full->source, d->source, 12 * sizeof(double));
	cr_assert_arr_eq(full->triangles, d->triangles, 12 * sizeof(uint32_t));
	for (size_t k = 0; k < 2; k++)
		cr_assert_arr_eq(full->key_xy[k], d->key_xy[k], 12 * sizeof(double));
	cr_assert_null(rig_binding_mesh.decode(head, n_head - 1, NULL, 0));
	cr_assert_null(rig_binding_mesh.decode(head, n_head, mesh, n_mesh - 1));
	head[0] = 'X';
	cr_assert_null(rig_binding_mesh.decode(head, n_head, NULL, 0));
	free(head);
	free(mesh);
	def_free(light);
	def_free(full);
	def_free(d);
}
