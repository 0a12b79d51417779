/* Unit tests of core/skin.c (and its kernel, core/skin_kernel*.c): the seed's
 * strip, identity, every definition rule at and just past its edge,
 * every-violation reporting, copy semantics, pose ordering, the post-deform
 * checks, the kernels against a reference, every instruction-set path against
 * the formula's bits, and a seeded property test over random valid rigs. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

#include "core/mesh.h"
#include "core/rig_limits.h"
#include "core/skin.h"
#include "support.h"

static struct rig_skin *must_new(const struct rig_skin_def *def)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_skin *skin = rig_skin_new(def, errs);
	cr_assert_not_null(skin, "rig_skin_new failed: %s",
			   errs->count ? errs->items[0].detail : "(no error)");
	rig_errs_free(errs);
	return skin;
}

static int check_def(const struct rig_skin_def *def, struct rig_errs *errs)
{
	rig_errs_init(errs);
	return rig_skin_check_def(def, errs);
}

/* Expects def to fail with exactly one error, of this code; returns it. */
static struct rig_err only_error(const struct rig_skin_def *def, enum rig_code code)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_def(def, errs), -1);
	cr_assert_eq(errs->total, 1, "want exactly one %s, got %zu (first: %s)",
		     rig_code_name(code), errs->total, errs->count ? errs->items[0].detail : "");
	cr_expect_eq(errs->items[0].code, code, "got %s: %s", rig_code_name(errs->items[0].code),
		     errs->items[0].detail);
	struct rig_err first = errs->items[0];
	rig_errs_free(errs);
	return first;
}

/* A 4 × 3 grid with uniform weights to joint 0 and n_joints identity joints. */
static struct rig_skin_def simple_def(size_t n_joints)
{
	struct rig_skin_def d = grid_def(4, 3, 1, n_joints, 9);
	weights_all_to(&d, 0);
	return d;
}

/* ------------------------------------------------------------------------ */
/* The seed's examples                                                       */
/* ------------------------------------------------------------------------ */

Test(skin_strip, middle_moves_exactly_halfway)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	struct rig_affine poses[2] = {rig_affine_identity(), translate(0, 10)};
	double out[12];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(rig_skin_evaluate(out, skin, poses, errs), 0);
	for (size_t v = 0; v < 6; v++) {
		double rise = (v % 3) * 5.0; /* left 0, middle 5, right 10 */
		cr_expect_eq(out[2 * v], d.source[2 * v], "vertex %zu x", v);
		cr_expect_eq(out[2 * v + 1], d.source[2 * v + 1] + rise, "vertex %zu y", v);
	}
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_strip, a_rotated_tip_bends_the_middle_by_the_average)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	struct rig_affine tip = rig_affine_mul(translate(10, 0), rotate_rad(0.3));
	struct rig_affine poses[2] = {rig_affine_identity(), tip};
	double out[12];
	rig_skin_deform(out, skin, poses);
	for (size_t v = 1; v < 6; v += 3) {
		double fx, fy;
		rig_affine_apply(&fx, &fy, &tip, d.source[2 * v], d.source[2 * v + 1]);
		cr_expect(fabs(out[2 * v] - (d.source[2 * v] + fx) / 2) < 1e-12);
		cr_expect(fabs(out[2 * v + 1] - (d.source[2 * v + 1] + fy) / 2) < 1e-12);
	}
	rig_skin_free(skin);
	rig_skin_def_release(&d);
}

Test(skin_identity, poses_equal_to_binds_return_the_source_within_one_ulp)
{
	struct rng rng = {7};
	struct rig_skin_def d = grid_def(9, 7, 3.7, 5, 4);
	for (size_t j = 0; j < d.n_joints; j++)
		d.joints[j].bind = rig_affine_mul(translate(rng_range(&rng, -50, 50), 3),
						  rotate_rad(rng_range(&rng, -3, 3)));
	for (size_t v = 0; v < d.n_verts; v++) {
		uint32_t js[4] = {0, 1, 2, 3};
		double ws[4] = {0.1, 0.2, 0.3, 0.4}; /* sum 1 up to rounding: normalised */
		js[v % 4] = 4;
		set_weights(&d, v, 4, js, ws);
	}
	struct rig_skin *skin = must_new(&d);
	struct rig_affine poses[5];
	for (size_t j = 0; j < 5; j++)
		poses[j] = d.joints[j].bind;
	double *out = malloc(2 * d.n_verts * sizeof *out);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(rig_skin_evaluate(out, skin, poses, errs), 0);
	for (size_t i = 0; i < 2 * d.n_verts; i++)
		cr_expect_leq(ulps_apart(out[i], d.source[i]), 1, "coordinate %zu: %.17g vs %.17g",
			      i, out[i], d.source[i]);
	free(out);
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

/* ------------------------------------------------------------------------ */
/* Joints                                                                    */
/* ------------------------------------------------------------------------ */

Test(skin_joints, accepts_256_joints)
{
	struct rig_skin_def d = simple_def(256);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_def(&d, errs), 0);
	struct rig_skin *skin = must_new(&d);
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_joints, rejects_257_joints)
{
	struct rig_skin_def d = simple_def(257);
	struct rig_err e = only_error(&d, RIG_SKIN_JOINTS);
	cr_expect_str_eq(e.pointer, "/joints");
	rig_skin_def_release(&d);
}

Test(skin_joints, rejects_zero_joints)
{
	struct rig_skin_def d = simple_def(1);
	d.n_joints = 0;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_def(&d, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_SKIN_JOINTS);
	cr_expect_gt(count_err(errs, RIG_SKIN_WEIGHTS), 0, "weights now name a missing joint");
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_joints, accepts_a_64_character_id_and_rejects_65)
{
	struct rig_skin_def d = simple_def(2);
	memset(d.joints[1].id, 'a', 64);
	d.joints[1].id[64] = '\0';
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_def(&d, errs), 0);
	/* 65 characters: the field has no room for the terminator. */
	memset(d.joints[1].id, 'a', sizeof d.joints[1].id);
	struct rig_err e = only_error(&d, RIG_SKIN_JOINTS);
	cr_expect_eq(e.joint_index, 1);
	cr_expect_str_eq(e.pointer, "/joints/1/id");
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_joints, rejects_empty_and_badly_spelled_ids)
{
	const char *bad[] = {"", "has space", "slash/", "é", "tab\t"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rig_skin_def d = simple_def(2);
		rig_strlcpy(d.joints[1].id, bad[i], sizeof d.joints[1].id);
		struct rig_err e = only_error(&d, RIG_SKIN_JOINTS);
		cr_expect_eq(e.joint_index, 1, "id '%s'", bad[i]);
		rig_skin_def_release(&d);
	}
	struct rig_skin_def d = simple_def(2);
	rig_strlcpy(d.joints[1].id, "A-z_0.9:x", sizeof d.joints[1].id);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_def(&d, errs), 0, "every allowed character class");
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_joints, rejects_a_duplicate_id_naming_the_second_joint)
{
	struct rig_skin_def d = simple_def(3);
	rig_strlcpy(d.joints[2].id, "j0", sizeof d.joints[2].id);
	struct rig_err e = only_error(&d, RIG_SKIN_JOINTS);
	cr_expect_eq(e.joint_index, 2);
	cr_expect_str_eq(e.joint_id, "j0");
	cr_expect_str_eq(e.pointer, "/joints/2/id");
	rig_skin_def_release(&d);
}

/* ------------------------------------------------------------------------ */
/* Binds                                                                     */
/* ------------------------------------------------------------------------ */

Test(skin_bind, rejects_a_singular_bind)
{
	struct rig_skin_def d = simple_def(2);
	d.joints[1].bind = affine(1, 2, 2, 4, 0, 0);
	struct rig_err e = only_error(&d, RIG_SKIN_BIND);
	cr_expect_eq(e.joint_index, 1);
	cr_expect_str_eq(e.joint_id, "j1");
	cr_expect_str_eq(e.pointer, "/joints/1/bind");
	rig_skin_def_release(&d);
}

Test(skin_bind, rejects_a_nearly_singular_bind_and_accepts_the_edge)
{
	struct rig_skin_def d = simple_def(2);
	d.joints[1].bind = affine(1, 0, 0, 1e-12, 0, 0);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_def(&d, errs), 0, "|det| = 1e-12 is at the threshold");
	d.joints[1].bind = affine(1, 0, 0, nextafter(1e-12, 0), 0, 0);
	only_error(&d, RIG_SKIN_BIND);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_bind, rejects_nan_and_inf_in_every_entry)
{
	double bad[] = {NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 6; i++) {
		for (int k = 0; k < 3; k++) {
			struct rig_skin_def d = simple_def(2);
			d.joints[0].bind.m[i] = bad[k];
			struct rig_err e = only_error(&d, RIG_SKIN_BIND);
			cr_expect_eq(e.joint_index, 0);
			rig_skin_def_release(&d);
		}
	}
}

/* ------------------------------------------------------------------------ */
/* Weights: the one rule                                                     */
/* ------------------------------------------------------------------------ */

static int check_list(struct rig_skin_influence *list, size_t n, size_t n_joints,
		      struct rig_errs *errs)
{
	rig_errs_init(errs);
	return rig_skin_check_influences(list, n, n_joints, 5, errs);
}

Test(skin_weights, accepts_8_influences)
{
	struct rig_skin_influence list[8];
	for (uint32_t k = 0; k < 8; k++)
		list[k] = (struct rig_skin_influence){k, 0.125};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_list(list, 8, 10, errs), 0);
	rig_errs_free(errs);
}

Test(skin_weights, rejects_9_influences)
{
	struct rig_skin_influence list[9];
	for (uint32_t k = 0; k < 9; k++)
		list[k] = (struct rig_skin_influence){k, 1.0 / 9};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_list(list, 9, 10, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_SKIN_WEIGHTS);
	cr_expect_eq(errs->items[0].vertex_index, 5);
	cr_expect_str_eq(errs->items[0].pointer, "/weights/5");
	rig_errs_free(errs);
}

Test(skin_weights, rejects_an_empty_list)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_list(NULL, 0, 10, errs), -1);
	cr_expect_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].vertex_index, 5);
	rig_errs_free(errs);
}

Test(skin_weights, accepts_a_sum_off_by_32_epsilon_and_normalises_it)
{
	double big = 0.5 + 32 * DBL_EPSILON;
	struct rig_skin_influence list[2] = {{0, 0.5}, {1, big}};
	double sum = 0.5 + big;
	cr_assert_eq(sum, 1 + 32 * DBL_EPSILON);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_list(list, 2, 2, errs), 0);
	cr_expect_eq(list[0].weight, 0.5 / sum);
	cr_expect_eq(list[1].weight, big / sum);
	cr_expect_lt(list[0].weight, 0.5, "divided by the sum");
	cr_expect_leq(fabs(list[0].weight + list[1].weight - 1), DBL_EPSILON);
	rig_errs_free(errs);
}

Test(skin_weights, accepts_a_sum_off_by_exactly_64_epsilon_and_rejects_65)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_skin_influence at[2] = {{0, 0.5}, {1, 0.5 - 64 * DBL_EPSILON}};
	cr_expect_eq(check_list(at, 2, 2, errs), 0, "the tolerance is inclusive");
	struct rig_skin_influence past[2] = {{0, 0.5}, {1, 0.5 - 65 * DBL_EPSILON}};
	cr_expect_eq(check_list(past, 2, 2, errs), -1);
	rig_errs_free(errs);
}

Test(skin_weights, rejects_a_sum_off_by_128_epsilon_and_leaves_it_unchanged)
{
	double big = 0.5 + 128 * DBL_EPSILON;
	struct rig_skin_influence list[2] = {{0, 0.5}, {1, big}};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_list(list, 2, 2, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_SKIN_WEIGHTS);
	cr_expect_str_eq(errs->items[0].pointer, "/weights/5");
	cr_expect_eq(list[0].weight, 0.5, "never renormalised beyond the tolerance");
	cr_expect_eq(list[1].weight, big);
	rig_errs_free(errs);
}

Test(skin_weights, rejects_zero_weight)
{
	struct rig_skin_influence list[2] = {{0, 1}, {1, 0}};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_list(list, 2, 2, errs), -1);
	cr_assert_eq(errs->total, 1, "a zero weight is rejected, not dropped");
	cr_expect_eq(errs->items[0].influence_index, 1);
	cr_expect_str_eq(errs->items[0].pointer, "/weights/5/1");
	rig_errs_free(errs);
}

Test(skin_weights, rejects_negative_nan_and_inf_weights)
{
	double bad[] = {-0.5, -0.0, NAN, INFINITY, -INFINITY};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rig_skin_influence list[2] = {{0, bad[i]}, {1, 1}};
		struct rig_errs *errs = rig_errs_new();
		cr_assert_not_null(errs);
		cr_expect_eq(check_list(list, 2, 2, errs), -1, "weight %g", bad[i]);
		cr_expect_eq(errs->total, 1);
		cr_expect_eq(errs->items[0].influence_index, 0);
		cr_expect_eq(list[1].weight, 1);
		rig_errs_free(errs);
	}
}

Test(skin_weights, rejects_a_joint_listed_twice)
{
	struct rig_skin_influence list[3] = {{2, 0.25}, {1, 0.5}, {2, 0.25}};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_list(list, 3, 3, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].influence_index, 2);
	cr_expect_eq(errs->items[0].joint_index, 2);
	rig_errs_free(errs);
}

Test(skin_weights, rejects_an_unknown_joint)
{
	struct rig_skin_influence unknown[2] = {{RIG_JOINT_UNKNOWN, 0.5}, {0, 0.5}};
	struct rig_skin_influence past_end[2] = {{0, 0.5}, {3, 0.5}};
	struct rig_skin_influence last[2] = {{0, 0.5}, {2, 0.5}};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_list(unknown, 2, 3, errs), -1);
	cr_expect_eq(errs->items[0].influence_index, 0);
	cr_expect_eq(check_list(past_end, 2, 3, errs), -1);
	cr_expect_eq(errs->items[0].influence_index, 1);
	cr_expect_eq(check_list(last, 2, 3, errs), 0);
	rig_errs_free(errs);
}

Test(skin_weights, rejects_a_list_count_different_from_the_vertex_count)
{
	struct rig_skin_def d = simple_def(1);
	d.n_weight_lists = d.n_verts - 1;
	struct rig_err e = only_error(&d, RIG_SKIN_WEIGHTS);
	cr_expect_str_eq(e.pointer, "/weights");
	rig_skin_def_release(&d);
}

Test(skin_weights, every_list_empty_without_an_influence_array_is_an_error_per_vertex)
{
	/* A decoder may leave no influence array at all when every list is empty
	 * (api/bulk.c does): the check must not index it (fuzz_batch found it). */
	struct rig_skin_def d = simple_def(1);
	struct rig_skin_influence *kept = d.influences;
	d.influences = NULL;
	for (size_t v = 0; v <= d.n_verts; v++)
		d.weight_offsets[v] = 0;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(rig_skin_check_def(&d, errs), -1);
	cr_expect_eq(errs->total, d.n_verts);
	for (size_t k = 0; k < errs->count; k++)
		cr_expect_eq(errs->items[k].code, RIG_SKIN_WEIGHTS);
	d.influences = kept;
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_weights, definition_errors_name_the_joint_of_a_repeated_influence)
{
	struct rig_skin_def d = grid_def(3, 2, 1, 2, 2);
	uint32_t twice[2] = {1, 1}, one = 0;
	double halves[2] = {0.5, 0.5}, w1 = 1;
	for (size_t v = 0; v < d.n_verts; v++) {
		if (v == 4)
			set_weights(&d, v, 2, twice, halves);
		else
			set_weights(&d, v, 1, &one, &w1);
	}
	struct rig_err e = only_error(&d, RIG_SKIN_WEIGHTS);
	cr_expect_eq(e.vertex_index, 4);
	cr_expect_str_eq(e.joint_id, "j1");
	cr_expect_str_eq(e.pointer, "/weights/4/1");
	rig_skin_def_release(&d);
}

/* ------------------------------------------------------------------------ */
/* Whole definitions                                                         */
/* ------------------------------------------------------------------------ */

Test(skin_def, reports_every_violation_with_its_index)
{
	struct rig_skin_def d = grid_def(3, 2, 1, 3, 3);
	d.source[2 * 1 + 1] = NAN;                                    /* MESH_GEOMETRY vertex 1 */
	d.triangles[3 * 1 + 2] = 99;                                  /* MESH_TOPOLOGY triangle 1 */
	rig_strlcpy(d.joints[1].id, "bad id", sizeof d.joints[1].id); /* SKIN_JOINTS 1 */
	d.joints[2].bind = affine(0, 0, 0, 0, 0, 0);                  /* SKIN_BIND 2 */
	uint32_t j0 = 0, j9 = 9, pair[2] = {0, 2};
	double one = 1, zero = 0, halves_off[2] = {0.5, 0.25};
	for (size_t v = 0; v < d.n_verts; v++) {
		if (v == 2)
			set_weights(&d, v, 1, &j9, &one); /* unknown joint */
		else if (v == 3)
			set_weights(&d, v, 1, &j0, &zero); /* zero weight */
		else if (v == 5)
			set_weights(&d, v, 2, pair, halves_off); /* sums to 0.75 */
		else
			set_weights(&d, v, 1, &j0, &one);
	}
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_def(&d, errs), -1);
	cr_expect_eq(errs->total, 7);
	long i = find_err(errs, RIG_MESH_GEOMETRY);
	cr_assert_geq(i, 0);
	cr_expect_eq(errs->items[i].vertex_index, 1);
	i = find_err(errs, RIG_MESH_TOPOLOGY);
	cr_assert_geq(i, 0);
	cr_expect_eq(errs->items[i].triangle_index, 1);
	i = find_err(errs, RIG_SKIN_JOINTS);
	cr_assert_geq(i, 0);
	cr_expect_eq(errs->items[i].joint_index, 1);
	i = find_err(errs, RIG_SKIN_BIND);
	cr_assert_geq(i, 0);
	cr_expect_eq(errs->items[i].joint_index, 2);
	cr_expect_str_eq(errs->items[i].joint_id, "j2");
	cr_assert_eq(count_err(errs, RIG_SKIN_WEIGHTS), 3);
	i = find_err(errs, RIG_SKIN_WEIGHTS);
	cr_expect_eq(errs->items[i].vertex_index, 2);
	cr_expect_str_eq(errs->items[i].pointer, "/weights/2/0");
	cr_expect_eq(errs->items[i + 1].vertex_index, 3);
	cr_expect_eq(errs->items[i + 2].vertex_index, 5);
	cr_expect_str_eq(errs->items[i + 2].pointer, "/weights/5");
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_def, rejects_nan_and_inf_anywhere_with_the_right_code)
{
	double bad[] = {NAN, INFINITY, -INFINITY};
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < 12; i++) { /* every source coordinate */
			struct rig_skin_def d = strip_def();
			d.source[i] = bad[k];
			struct rig_errs *errs = rig_errs_new();
			cr_assert_not_null(errs);
			cr_expect_eq(check_def(&d, errs), -1);
			cr_expect_eq(errs->items[0].code, RIG_MESH_GEOMETRY);
			cr_expect_eq(errs->items[0].vertex_index, (long)(i / 2));
			rig_skin_def_release(&d);
			rig_errs_free(errs);
		}
		for (int e = 0; e < 6; e++) { /* every bind entry */
			struct rig_skin_def d = strip_def();
			d.joints[1].bind.m[e] = bad[k];
			struct rig_err err = only_error(&d, RIG_SKIN_BIND);
			cr_expect_str_eq(err.joint_id, "tip");
			rig_skin_def_release(&d);
		}
		for (size_t w = 0; w < 8; w++) { /* every weight */
			struct rig_skin_def d = strip_def();
			d.influences[w].weight = bad[k];
			struct rig_err err = only_error(&d, RIG_SKIN_WEIGHTS);
			cr_expect_geq(err.vertex_index, 0);
			cr_expect_geq(err.influence_index, 0);
			rig_skin_def_release(&d);
		}
	}
}

Test(skin_def, rejects_bad_triangles_at_and_past_the_edge)
{
	struct rig_skin_def d = strip_def();
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	d.triangles[3 * 2 + 1] = 5; /* the last vertex: fine */
	d.triangles[3 * 2 + 2] = 2;
	cr_expect_eq(check_def(&d, errs), 0);
	d.triangles[3 * 2 + 1] = 6; /* one past the last */
	struct rig_err e = only_error(&d, RIG_MESH_TOPOLOGY);
	cr_expect_eq(e.triangle_index, 2);
	cr_expect_str_eq(e.pointer, "/triangles/2");
	d.triangles[3 * 2 + 1] = d.triangles[3 * 2];
	e = only_error(&d, RIG_MESH_TOPOLOGY);
	cr_expect_eq(e.triangle_index, 2);
	d.triangles[3 * 2] = 0; /* (0, 1, 2): the collinear bottom row, zero area */
	d.triangles[3 * 2 + 1] = 1;
	d.triangles[3 * 2 + 2] = 2;
	e = only_error(&d, RIG_MESH_DEGENERATE);
	cr_expect_eq(e.triangle_index, 2);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_def, zeroed_definition_is_invalid)
{
	struct rig_skin_def d = {0};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_def(&d, errs), -1);
	cr_expect_geq(find_err(errs, RIG_MESH_GEOMETRY), 0);
	cr_expect_geq(find_err(errs, RIG_MESH_TOPOLOGY), 0);
	cr_expect_geq(find_err(errs, RIG_SKIN_JOINTS), 0);
	cr_expect_null(rig_skin_new(&d, errs));
	rig_errs_free(errs);
}

Test(skin_def, check_does_not_modify_the_definition)
{
	struct rig_skin_def d = strip_def();
	d.influences[1].weight = 0.5 + 32 * DBL_EPSILON; /* middle vertex 1, within tolerance */
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(check_def(&d, errs), 0);
	cr_expect_eq(d.influences[1].weight, 0.5 + 32 * DBL_EPSILON);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_def, copy_is_deep_and_release_zeroes)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin_def c;
	cr_assert_eq(rig_skin_def_copy(&c, &d), 0);
	cr_expect_neq(c.source, d.source);
	cr_expect_eq(memcmp(c.source, d.source, 12 * sizeof(double)), 0);
	cr_expect_eq(memcmp(c.influences, d.influences, 8 * sizeof *d.influences), 0);
	cr_expect_str_eq(c.joints[1].id, "tip");
	rig_skin_def_release(&c);
	cr_expect_null(c.source);
	cr_expect_eq(c.n_verts, 0);
	rig_skin_def_release(&c); /* safe on a zeroed def */
	rig_skin_def_release(&d);
}

Test(skin_def, finds_joints_by_id)
{
	struct rig_skin_def d = strip_def();
	cr_expect_eq(rig_skin_def_joint_index(&d, "root"), 0);
	cr_expect_eq(rig_skin_def_joint_index(&d, "tip"), 1);
	cr_expect_eq(rig_skin_def_joint_index(&d, "toe"), RIG_JOINT_UNKNOWN);
	rig_skin_def_release(&d);
}

/* ------------------------------------------------------------------------ */
/* The evaluator                                                             */
/* ------------------------------------------------------------------------ */

Test(skin_new, returns_null_with_the_errors_of_an_invalid_definition)
{
	struct rig_skin_def d = simple_def(2);
	d.influences[0].weight = 0;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_null(rig_skin_new(&d, errs));
	cr_expect_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_SKIN_WEIGHTS);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_new, snapshot_holds_normalised_weights)
{
	struct rig_skin_def d = strip_def();
	double big = 0.5 + 32 * DBL_EPSILON;
	d.influences[2].weight = big; /* vertex 1's second influence */
	struct rig_skin *skin = must_new(&d);
	const struct rig_skin_def *s = rig_skin_def_of(skin);
	cr_expect_eq(s->influences[1].weight, 0.5 / (0.5 + big));
	cr_expect_eq(s->influences[2].weight, big / (0.5 + big));
	cr_expect_eq(d.influences[2].weight, big, "the caller's def is untouched");
	rig_skin_free(skin);
	rig_skin_def_release(&d);
}

Test(skin_new, later_changes_to_the_callers_arrays_do_not_affect_it)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	struct rig_affine poses[2] = {rig_affine_identity(), translate(0, 10)};
	double before[12], after[12];
	rig_skin_deform(before, skin, poses);

	d.source[2] = 1000;
	d.triangles[0] = 5;
	d.joints[1].bind = translate(-7, -7);
	rig_strlcpy(d.joints[1].id, "moved", sizeof d.joints[1].id);
	d.influences[1].weight = 0.9;
	d.influences[1].joint = 1;
	d.weight_offsets[1] = 2;

	rig_skin_deform(after, skin, poses);
	cr_expect_eq(memcmp(before, after, sizeof before), 0);
	cr_expect_str_eq(rig_skin_def_of(skin)->joints[1].id, "tip");
	rig_skin_free(skin);
	rig_skin_def_release(&d);
}

Test(skin_new, free_of_null_is_a_no_op)
{
	rig_skin_free(NULL);
}

/* ------------------------------------------------------------------------ */
/* Poses                                                                     */
/* ------------------------------------------------------------------------ */

static int order(struct rig_affine *out, const struct rig_skin *skin,
		 const struct rig_skin_pose *poses, size_t n, struct rig_errs *errs)
{
	rig_errs_init(errs);
	return rig_skin_order_poses(out, skin, poses, n, errs);
}

Test(skin_poses, orders_named_poses_by_joint)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	struct rig_skin_pose poses[2] = {{"tip", translate(1, 2)}, {"root", translate(3, 4)}};
	struct rig_affine out[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(order(out, skin, poses, 2, errs), 0);
	cr_expect_eq(out[0].m[4], 3);
	cr_expect_eq(out[1].m[4], 1);
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_poses, rejects_a_missing_pose)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	struct rig_skin_pose poses[1] = {{"root", rig_affine_identity()}};
	struct rig_affine out[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(order(out, skin, poses, 1, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_SKIN_POSE);
	cr_expect_str_eq(errs->items[0].joint_id, "tip");
	cr_expect_eq(errs->items[0].joint_index, 1);
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_poses, rejects_a_repeated_pose)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	struct rig_skin_pose poses[3] = {{"root", rig_affine_identity()},
					 {"tip", rig_affine_identity()},
					 {"root", rig_affine_identity()}};
	struct rig_affine out[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(order(out, skin, poses, 3, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_str_eq(errs->items[0].joint_id, "root");
	cr_expect_str_eq(errs->items[0].pointer, "/poses/2");
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_poses, rejects_an_unknown_pose)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	struct rig_skin_pose poses[3] = {{"root", rig_affine_identity()},
					 {"toe", rig_affine_identity()},
					 {"tip", rig_affine_identity()}};
	struct rig_affine out[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(order(out, skin, poses, 3, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_str_eq(errs->items[0].joint_id, "toe");
	cr_expect_str_eq(errs->items[0].pointer, "/poses/1");
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_poses, rejects_nan_and_inf_anywhere_in_a_pose)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	for (int i = 0; i < 6; i++) {
		struct rig_skin_pose poses[2] = {{"root", rig_affine_identity()},
						 {"tip", rig_affine_identity()}};
		poses[1].matrix.m[i] = i % 2 ? NAN : -INFINITY;
		struct rig_affine out[2];
		struct rig_errs *errs = rig_errs_new();
		cr_assert_not_null(errs);
		cr_expect_eq(order(out, skin, poses, 2, errs), -1, "entry %d", i);
		cr_expect_eq(errs->items[0].code, RIG_SKIN_POSE);
		cr_expect_str_eq(errs->items[0].pointer, "/poses/1");

		struct rig_affine ordered[2] = {poses[0].matrix, poses[1].matrix};
		double xy[12];
		rig_errs_init(errs);
		cr_expect_eq(rig_skin_evaluate(xy, skin, ordered, errs), -1);
		cr_expect_eq(errs->items[0].code, RIG_SKIN_POSE);
		cr_expect_str_eq(errs->items[0].joint_id, "tip");
		rig_errs_free(errs);
	}
	rig_skin_free(skin);
	rig_skin_def_release(&d);
}

Test(skin_poses, reports_every_pose_problem)
{
	struct rig_skin_def d = grid_def(3, 2, 1, 3, 1);
	weights_all_to(&d, 0);
	struct rig_skin *skin = must_new(&d);
	struct rig_skin_pose poses[3] = {{"j0", rig_affine_identity()},
					 {"nope", rig_affine_identity()},
					 {"j0", rig_affine_identity()}};
	struct rig_affine out[3];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(order(out, skin, poses, 3, errs), -1);
	cr_expect_eq(errs->total, 4, "unknown, repeated, and j1 and j2 missing");
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

/* ------------------------------------------------------------------------ */
/* Evaluation and the post-deform checks                                     */
/* ------------------------------------------------------------------------ */

Test(skin_evaluate, mirror_pose_is_rejected_as_winding_naming_the_triangle)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	struct rig_affine mirror = affine(-1, 0, 0, 1, 0, 0);
	struct rig_affine poses[2] = {mirror, mirror};
	double out[12];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(rig_skin_evaluate(out, skin, poses, errs), -1);
	cr_assert_eq(errs->total, d.n_tris);
	for (size_t t = 0; t < d.n_tris; t++) {
		cr_expect_eq(errs->items[t].code, RIG_MESH_WINDING);
		cr_expect_eq(errs->items[t].triangle_index, (long)t);
	}
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_evaluate, a_tip_mirror_folds_only_the_tip_triangles)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	/* Mirror the tip about x = 10: the right column lands on the middle's left. */
	struct rig_affine poses[2] = {rig_affine_identity(), affine(-1, 0, 0, 1, 20, 0)};
	double out[12];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(rig_skin_evaluate(out, skin, poses, errs), -1);
	cr_expect_gt(errs->total, 0);
	for (size_t i = 0; i < errs->count; i++) {
		cr_expect(errs->items[i].code == RIG_MESH_WINDING ||
			  errs->items[i].code == RIG_MESH_COLLAPSED);
		cr_expect_geq(errs->items[i].triangle_index, 2,
			      "left cell triangles 0, 1 are fine");
	}
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_evaluate, squash_pose_is_rejected_as_collapsed_naming_the_triangle)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	struct rig_affine flat = affine(1, 0, 0, 0, 0, 0);
	struct rig_affine poses[2] = {flat, flat};
	double out[12];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(rig_skin_evaluate(out, skin, poses, errs), -1);
	cr_assert_eq(errs->total, d.n_tris);
	for (size_t t = 0; t < d.n_tris; t++) {
		cr_expect_eq(errs->items[t].code, RIG_MESH_COLLAPSED);
		cr_expect_eq(errs->items[t].triangle_index, (long)t);
	}
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

Test(skin_evaluate, overflowing_pose_is_rejected_as_geometry)
{
	struct rig_skin_def d = strip_def();
	struct rig_skin *skin = must_new(&d);
	struct rig_affine huge = affine(1e308, 0, 0, 1e308, 0, 0);
	struct rig_affine poses[2] = {huge, huge};
	double out[12];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(rig_skin_evaluate(out, skin, poses, errs), -1);
	long i = find_err(errs, RIG_MESH_GEOMETRY);
	cr_assert_geq(i, 0);
	cr_expect_geq(errs->items[i].vertex_index, 0);
	cr_expect_geq(errs->items[i].triangle_index, 0);
	rig_skin_free(skin);
	rig_skin_def_release(&d);
	rig_errs_free(errs);
}

/* Straightforward LBS, v' = Σ w_k · (pose_k · bind_k⁻¹) · v, as the reference. */
static void reference_deform(double *out, const struct rig_skin_def *d,
			     const struct rig_affine *poses)
{
	for (size_t v = 0; v < d->n_verts; v++) {
		double x = d->source[2 * v], y = d->source[2 * v + 1], sx = 0, sy = 0, sum = 0;
		for (uint32_t k = d->weight_offsets[v]; k < d->weight_offsets[v + 1]; k++)
			sum += d->influences[k].weight;
		for (uint32_t k = d->weight_offsets[v]; k < d->weight_offsets[v + 1]; k++) {
			const struct rig_skin_influence *in = &d->influences[k];
			struct rig_affine inv;
			cr_assert_eq(rig_affine_invert(&inv, &d->joints[in->joint].bind), 0);
			struct rig_affine s = rig_affine_mul(poses[in->joint], inv);
			double px, py;
			rig_affine_apply(&px, &py, &s, x, y);
			sx += in->weight / sum * px;
			sy += in->weight / sum * py;
		}
		out[2 * v] = sx;
		out[2 * v + 1] = sy;
	}
}

/* A random rig: grid mesh, n_joints random binds, per-vertex lists of n_per
 * distinct joints (n_per = 0: a random count 1–8 per vertex). */
static struct rig_skin_def random_rig_sized(struct rng *rng, size_t w, size_t h, size_t n_joints,
					    size_t n_per)
{
	struct rig_skin_def d = grid_def(w, h, rng_range(rng, 0.5, 20), n_joints, 8);
	double step = d.source[2];
	for (size_t i = 0; i < 2 * d.n_verts; i++) /* jitter: still far from degenerate */
		d.source[i] += rng_range(rng, -0.05, 0.05) * step;
	for (size_t j = 0; j < n_joints; j++) {
		double s = rng_range(rng, 0.5, 2);
		struct rig_affine b = rig_affine_mul(
			translate(rng_range(rng, -100, 100), rng_range(rng, -100, 100)),
			rig_affine_mul(rotate_rad(rng_range(rng, -M_PI, M_PI)),
				       affine(s, 0, 0, s * rng_range(rng, 0.5, 2), 0, 0)));
		d.joints[j].bind = b;
	}
	for (size_t v = 0; v < d.n_verts; v++) {
		size_t n = n_per ? n_per : 1 + rng_below(rng, 8);
		if (n > n_joints)
			n = n_joints;
		uint32_t js[8];
		double ws[8], total = 0;
		for (size_t k = 0; k < n; k++) {
			bool is_fresh;
			do {
				js[k] = (uint32_t)rng_below(rng, n_joints);
				is_fresh = true;
				for (size_t i = 0; i < k; i++)
					is_fresh = is_fresh && js[i] != js[k];
			} while (!is_fresh);
			ws[k] = rng_range(rng, 0.05, 1);
			total += ws[k];
		}
		for (size_t k = 0; k < n; k++)
			ws[k] /= total;
		set_weights(&d, v, n, js, ws);
	}
	return d;
}

/* A random rig of 2–11 × 2–11 vertices. */
static struct rig_skin_def random_rig(struct rng *rng, size_t n_joints, size_t n_per)
{
	size_t w = 2 + rng_below(rng, 10), h = 2 + rng_below(rng, 10);
	return random_rig_sized(rng, w, h, n_joints, n_per);
}

Test(skin_kernel, matches_reference_blending_for_every_influence_count)
{
	struct rng rng = {42};
	for (size_t n_per = 0; n_per <= 8; n_per++) { /* 0: mixed counts */
		struct rig_skin_def d = random_rig(&rng, 12, n_per);
		struct rig_skin *skin = must_new(&d);
		struct rig_affine poses[12];
		for (size_t j = 0; j < 12; j++)
			poses[j] = rig_affine_mul(
				affine(1.1, 0.2, -0.1, 0.9, rng_range(&rng, -5, 5), 2),
				d.joints[j].bind);
		double *got = malloc(2 * d.n_verts * sizeof *got);
		double *want = malloc(2 * d.n_verts * sizeof *want);
		rig_skin_deform(got, skin, poses);
		reference_deform(want, &d, poses);
		for (size_t i = 0; i < 2 * d.n_verts; i++)
			cr_expect(fabs(got[i] - want[i]) <= 1e-9 * (1 + fabs(want[i])),
				  "%zu per vertex, coordinate %zu: %.17g vs %.17g", n_per, i,
				  got[i], want[i]);
		free(got);
		free(want);
		rig_skin_free(skin);
		rig_skin_def_release(&d);
	}
}

Test(skin_kernel, same_list_gives_the_same_bits_in_uniform_and_mixed_meshes)
{
	/* Vertex 0 has the same two influences in both meshes; the second mesh has
	 * one vertex with three, so it takes the mixed kernel. */
	struct rig_skin_def a = grid_def(3, 2, 1, 3, 3), b = grid_def(3, 2, 1, 3, 3);
	uint32_t two[2] = {0, 1}, three[3] = {0, 1, 2};
	double w2[2] = {0.3, 0.7}, w3[3] = {0.2, 0.3, 0.5};
	for (size_t v = 0; v < 6; v++) {
		set_weights(&a, v, 2, two, w2);
		if (v == 5)
			set_weights(&b, v, 3, three, w3);
		else
			set_weights(&b, v, 2, two, w2);
	}
	struct rig_skin *sa = must_new(&a), *sb = must_new(&b);
	struct rig_affine poses[3] = {translate(0.1, 0.2), rotate_rad(0.01), translate(1, 1)};
	double oa[12], ob[12];
	rig_skin_deform(oa, sa, poses);
	rig_skin_deform(ob, sb, poses);
	cr_expect_eq(memcmp(oa, ob, 10 * sizeof(double)), 0);
	rig_skin_free(sa);
	rig_skin_free(sb);
	rig_skin_def_release(&a);
	rig_skin_def_release(&b);
}

Test(skin_kernel, weight_offsets_need_not_start_at_zero)
{
	/* The strip with one unused influence in front of vertex 0's list. */
	struct rig_skin_def d = strip_def();
	struct rig_skin_def shifted = d;
	size_t n_infl = d.weight_offsets[d.n_verts];
	shifted.influences = calloc(n_infl + 1, sizeof *shifted.influences);
	shifted.weight_offsets = calloc(d.n_verts + 1, sizeof *shifted.weight_offsets);
	memcpy(shifted.influences + 1, d.influences, n_infl * sizeof *d.influences);
	for (size_t v = 0; v <= d.n_verts; v++)
		shifted.weight_offsets[v] = d.weight_offsets[v] + 1;
	/* Uniform counts take the other kernels: every vertex with 2 influences. */
	struct rig_skin_def uniform = grid_def(3, 2, 10, 2, 2);
	uint32_t both[2] = {0, 1};
	double halves[2] = {0.5, 0.5};
	for (size_t v = 0; v < 6; v++)
		set_weights(&uniform, v, 2, both, halves);
	struct rig_skin_def uniform_shifted = uniform;
	uniform_shifted.influences = calloc(13, sizeof *uniform_shifted.influences);
	uniform_shifted.weight_offsets = calloc(7, sizeof *uniform_shifted.weight_offsets);
	memcpy(uniform_shifted.influences + 1, uniform.influences, 12 * sizeof *uniform.influences);
	for (size_t v = 0; v <= 6; v++)
		uniform_shifted.weight_offsets[v] = uniform.weight_offsets[v] + 1;

	struct rig_affine poses[2] = {rig_affine_identity(), translate(0, 10)};
	const struct rig_skin_def *pairs[2][2] = {{&d, &shifted}, {&uniform, &uniform_shifted}};
	for (int p = 0; p < 2; p++) {
		struct rig_skin *a = must_new(pairs[p][0]), *b = must_new(pairs[p][1]);
		double oa[12], ob[12];
		rig_skin_deform(oa, a, poses);
		rig_skin_deform(ob, b, poses);
		cr_expect_eq(memcmp(oa, ob, sizeof oa), 0, "case %d", p);
		rig_skin_free(a);
		rig_skin_free(b);
	}
	free(shifted.influences);
	free(shifted.weight_offsets);
	free(uniform_shifted.influences);
	free(uniform_shifted.weight_offsets);
	rig_skin_def_release(&d);
	rig_skin_def_release(&uniform);
}

/* The kernel's formula in core/skin_kernel.h's order, one scalar at a time:
 * the bits every instruction-set path must give. The blend matrices are
 * made as rig_skin_deform makes them, from the evaluator's normalised
 * weights. */
static void formula_deform(double *out, const struct rig_skin *skin, const struct rig_affine *poses)
{
	const struct rig_skin_def *d = rig_skin_def_of(skin);
	double(*D)[6] = malloc(d->n_joints * sizeof *D);
	cr_assert_not_null(D);
	for (size_t j = 0; j < d->n_joints; j++) {
		const struct rig_affine *b = &d->joints[j].bind;
		bool is_rest = memcmp(poses[j].m, b->m, sizeof b->m) == 0;
		struct rig_affine inv, s = rig_affine_identity();
		cr_assert_eq(rig_affine_invert(&inv, b), 0);
		if (!is_rest)
			s = rig_affine_mul(poses[j], inv);
		s.m[0] -= 1;
		s.m[3] -= 1;
		memcpy(D[j], s.m, sizeof D[j]);
	}
	for (size_t v = 0; v < d->n_verts; v++) {
		uint32_t from = d->weight_offsets[v], to = d->weight_offsets[v + 1];
		double C[6];
		for (int i = 0; i < 6; i++)
			C[i] = d->influences[from].weight * D[d->influences[from].joint][i];
		for (uint32_t k = from + 1; k < to; k++)
			for (int i = 0; i < 6; i++)
				C[i] = C[i] +
				       d->influences[k].weight * D[d->influences[k].joint][i];
		double x = d->source[2 * v], y = d->source[2 * v + 1];
		out[2 * v] = x + ((C[0] * x + C[2] * y) + C[4]);
		out[2 * v + 1] = y + ((C[1] * x + C[3] * y) + C[5]);
	}
	free(D);
}

Test(skin_kernel, every_path_gives_the_formulas_bits_on_random_rigs)
{
	/* Same bits everywhere (core/isa.h): each path this CPU runs, on seeded
	 * random rigs of every influence count (0: mixed counts, so many runs)
	 * and sizes past a few kernel blocks, against the formula and so against
	 * each other. A path this CPU lacks is logged, not run. */
	struct rng rng = {0x1b17};
	size_t n_paths = 0, n_failing = 0, n_big = 0;
	for (int p = 0; p < RIG_ISA_COUNT; p++) {
		if (rig_isa_is_supported((enum rig_isa)p))
			n_paths++;
		else
			cr_log_warn("this CPU has no %s path: not compared",
				    rig_isa_name((enum rig_isa)p));
	}
	for (int trial = 0; trial < 90; trial++) {
		size_t n_joints = 1 + rng_below(&rng, trial % 10 == 9 ? 256 : 64);
		size_t w = trial % 3 ? 2 + rng_below(&rng, 10) : 40 + rng_below(&rng, 60);
		size_t h = trial % 3 ? 2 + rng_below(&rng, 10) : 40 + rng_below(&rng, 20);
		struct rig_skin_def d = random_rig_sized(&rng, w, h, n_joints, (size_t)trial % 9);
		struct rig_skin *skin = must_new(&d);
		struct rig_affine *poses = malloc(n_joints * sizeof *poses);
		cr_assert_not_null(poses);
		for (size_t j = 0; j < n_joints; j++) /* a quarter at rest: D is zero exactly */
			poses[j] = rng_below(&rng, 4) == 0
					   ? d.joints[j].bind
					   : rig_affine_mul(affine(rng_range(&rng, 0.5, 1.5),
								   rng_range(&rng, -0.5, 0.5),
								   rng_range(&rng, -0.5, 0.5),
								   rng_range(&rng, 0.5, 1.5),
								   rng_range(&rng, -50, 50),
								   rng_range(&rng, -50, 50)),
							    d.joints[j].bind);
		size_t bytes = 2 * d.n_verts * sizeof(double);
		double *want = malloc(bytes), *got = malloc(bytes);
		cr_assert(want && got);
		formula_deform(want, skin, poses);
		for (int p = 0; p < RIG_ISA_COUNT; p++) {
			if (!rig_isa_is_supported((enum rig_isa)p))
				continue;
			memset(got, 0xa5, bytes);
			rig_skin_deform_isa(got, skin, poses, (enum rig_isa)p);
			cr_assert_eq(memcmp(got, want, bytes), 0,
				     "trial %d (%zu × %zu, %d per vertex): the %s path differs",
				     trial, w, h, trial % 9, rig_isa_name((enum rig_isa)p));
		}
		rig_skin_deform(got, skin, poses);
		cr_assert_eq(memcmp(got, want, bytes), 0, "trial %d: the chosen path differs",
			     trial);
		/* rig_skin_evaluate runs the kernel in stretches, checking the mesh
		 * between them: the same bits, and the verdict and errors of the
		 * unprepared check of those bits. */
		struct rig_errs *errs = rig_errs_new(), *want_errs = rig_errs_new();
		cr_assert(errs && want_errs);
		memset(got, 0xa5, bytes);
		int rc = rig_skin_evaluate(got, skin, poses, errs);
		cr_assert_eq(memcmp(got, want, bytes), 0, "trial %d: evaluate differs", trial);
		int want_rc = rig_mesh_check_deformed(d.source, want, d.n_verts, d.triangles,
						      d.n_tris, want_errs);
		cr_assert_eq(rc, want_rc, "trial %d", trial);
		cr_assert_eq(errs->total, want_errs->total, "trial %d", trial);
		for (size_t e = 0; e < errs->count; e++)
			cr_assert_str_eq(errs->items[e].detail, want_errs->items[e].detail,
					 "trial %d", trial);
		n_failing += rc != 0;
		n_big += d.n_verts > 2048;
		rig_errs_free(errs);
		rig_errs_free(want_errs);
		free(want);
		free(got);
		free(poses);
		rig_skin_free(skin);
		rig_skin_def_release(&d);
	}
	cr_assert_geq(n_paths, 1);
	cr_expect_gt(n_failing, 5, "some trials break the mesh (%zu)", n_failing);
	cr_expect_gt(n_big, 5, "some trials take several stretches (%zu)", n_big);
}

/* A seeded rig built with arithmetic only (no libm, whose last bits may vary
 * between C libraries): a 50 × 40 grid, 64 joints, 1–8 influences a vertex,
 * and a pose for every joint. */
static struct rig_skin_def golden_rig(struct rig_affine *poses)
{
	struct rng rng = {0x601d};
	struct rig_skin_def d = grid_def(50, 40, 2.5, 64, 8);
	for (size_t i = 0; i < 2 * d.n_verts; i++)
		d.source[i] += rng_range(&rng, -0.2, 0.2);
	for (size_t j = 0; j < 64; j++) {
		/* One draw per statement: C leaves the order of arguments open. */
		double m[12];
		for (int i = 0; i < 12; i++)
			m[i] = rng_range(&rng, -1, 1);
		d.joints[j].bind = affine(1 + 0.4 * m[0], 0.3 * m[1], 0.3 * m[2], 1 + 0.4 * m[3],
					  60 * m[4], 60 * m[5]);
		poses[j] = rig_affine_mul(affine(1 + 0.1 * m[6], 0.05 * m[7], 0.05 * m[8],
						 1 + 0.1 * m[9], 3 * m[10], 3 * m[11]),
					  d.joints[j].bind);
	}
	for (size_t v = 0; v < d.n_verts; v++) {
		size_t n = 1 + rng_below(&rng, 8);
		uint32_t js[8];
		double ws[8], total = 0;
		for (size_t k = 0; k < n; k++) {
			size_t r = rng_below(&rng, 8);
			js[k] = (uint32_t)((v / 7 + 8 * k + r) % 64); /* one per octet */
			ws[k] = rng_range(&rng, 0.05, 1);
			total += ws[k];
		}
		for (size_t k = 0; k < n; k++)
			ws[k] /= total;
		set_weights(&d, v, n, js, ws);
	}
	return d;
}

/* FNV-1a, 64 bits. */
static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3u;
	return h;
}

Test(skin_kernel, a_seeded_rig_gives_the_bits_of_the_kernel_before_the_paths)
{
	/* The hash of this rig's deformed vertices, and its evaluation's errors,
	 * as main's single kernel gave them before the instruction-set paths
	 * (commit a1730d9, GCC 12 -O2): every path, every build (GCC, Clang,
	 * -O3) and every CPU must give them, so a compiler that fuses a multiply
	 * and an add, or a path that reorders the sums, fails here. */
	struct rig_affine poses[64];
	struct rig_skin_def d = golden_rig(poses);
	struct rig_skin *skin = must_new(&d);
	size_t bytes = 2 * d.n_verts * sizeof(double);
	double *out = malloc(bytes);
	cr_assert_not_null(out);
	for (int p = 0; p < RIG_ISA_COUNT; p++) {
		if (!rig_isa_is_supported((enum rig_isa)p))
			continue;
		rig_skin_deform_isa(out, skin, poses, (enum rig_isa)p);
		cr_expect_eq(fnv1a(out, bytes), 0xda490766dc83936du, "the %s path",
			     rig_isa_name((enum rig_isa)p));
	}
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(rig_skin_evaluate(out, skin, poses, errs), -1);
	cr_expect_eq(fnv1a(out, bytes), 0xda490766dc83936du);
	cr_expect_eq(errs->total, 1296);
	cr_expect_str_eq(errs->items[0].detail,
			 "triangle 10 flipped from area 3.2578096091252351 to -4.9723037864118211");
	rig_errs_free(errs);
	free(out);
	rig_skin_free(skin);
	rig_skin_def_release(&d);
}

/* ------------------------------------------------------------------------ */
/* Property: random valid rigs                                               */
/* ------------------------------------------------------------------------ */

Test(skin_property, random_rigs_return_the_source_when_posed_at_their_binds)
{
	struct rng rng = {0x5eed};
	for (int trial = 0; trial < 200; trial++) {
		size_t n_joints = 1 + rng_below(&rng, 64);
		struct rig_skin_def d = random_rig(&rng, n_joints, rng_below(&rng, 9));
		struct rig_skin *skin = must_new(&d);
		struct rig_affine *poses = malloc(n_joints * sizeof *poses);
		for (size_t j = 0; j < n_joints; j++)
			poses[j] = d.joints[j].bind;
		double *out = malloc(2 * d.n_verts * sizeof *out);
		struct rig_errs *errs = rig_errs_new();
		cr_assert_not_null(errs);
		cr_assert_eq(rig_skin_evaluate(out, skin, poses, errs), 0, "trial %d", trial);
		for (size_t i = 0; i < 2 * d.n_verts; i++)
			cr_assert_leq(ulps_apart(out[i], d.source[i]), 1, "trial %d coordinate %zu",
				      trial, i);
		free(out);
		free(poses);
		rig_skin_free(skin);
		rig_skin_def_release(&d);
		rig_errs_free(errs);
	}
}

Test(skin_property, rigid_motion_of_every_joint_moves_every_vertex_rigidly)
{
	struct rng rng = {0xfeed};
	for (int trial = 0; trial < 200; trial++) {
		size_t n_joints = 1 + rng_below(&rng, 64);
		struct rig_skin_def d = random_rig(&rng, n_joints, rng_below(&rng, 9));
		struct rig_skin *skin = must_new(&d);
		struct rig_affine motion = rig_affine_mul(
			translate(rng_range(&rng, -500, 500), rng_range(&rng, -500, 500)),
			rotate_rad(rng_range(&rng, -M_PI, M_PI)));
		struct rig_affine *poses = malloc(n_joints * sizeof *poses);
		for (size_t j = 0; j < n_joints; j++)
			poses[j] = rig_affine_mul(motion, d.joints[j].bind);
		double *out = malloc(2 * d.n_verts * sizeof *out);
		struct rig_errs *errs = rig_errs_new();
		cr_assert_not_null(errs);
		cr_assert_eq(rig_skin_evaluate(out, skin, poses, errs), 0,
			     "a rigid motion keeps every triangle: trial %d", trial);
		for (size_t v = 0; v < d.n_verts; v++) {
			double x, y;
			rig_affine_apply(&x, &y, &motion, d.source[2 * v], d.source[2 * v + 1]);
			cr_assert(fabs(out[2 * v] - x) <= 1e-10 &&
					  fabs(out[2 * v + 1] - y) <= 1e-10,
				  "trial %d vertex %zu: (%.17g, %.17g) vs (%.17g, %.17g)", trial, v,
				  out[2 * v], out[2 * v + 1], x, y);
		}
		free(out);
		free(poses);
		rig_skin_free(skin);
		rig_skin_def_release(&d);
		rig_errs_free(errs);
	}
}

/* ---- rig_skin_normalize_influences (layer.skin.weights.put's normalize) ---- */

Test(skin_normalize, rescales_positive_weights_to_sum_one)
{
	struct rig_skin_influence list[3] = {{0, 2}, {1, 6}, {2, 8}};
	cr_assert(rig_skin_normalize_influences(list, 3));
	cr_assert_eq(list[0].weight, 0.125);
	cr_assert_eq(list[1].weight, 0.375);
	cr_assert_eq(list[2].weight, 0.5);
	cr_assert_eq(list[0].joint, 0);
	cr_assert_eq(list[2].joint, 2);
}

Test(skin_normalize, leaves_a_list_with_a_zero_negative_or_huge_weight_unchanged)
{
	struct rig_skin_influence zero[2] = {{0, 0}, {1, 2}};
	cr_assert_not(rig_skin_normalize_influences(zero, 2));
	cr_assert_eq(zero[1].weight, 2);
	struct rig_skin_influence neg[2] = {{0, -1}, {1, 2}};
	cr_assert_not(rig_skin_normalize_influences(neg, 2));
	cr_assert_eq(neg[1].weight, 2);
	struct rig_skin_influence nan_w[2] = {{0, NAN}, {1, 2}};
	cr_assert_not(rig_skin_normalize_influences(nan_w, 2));
	struct rig_skin_influence huge[2] = {{0, DBL_MAX}, {1, DBL_MAX}}; /* the sum overflows */
	cr_assert_not(rig_skin_normalize_influences(huge, 2));
	cr_assert_eq(huge[0].weight, DBL_MAX);
	cr_assert_not(rig_skin_normalize_influences(NULL, 0));
}

Test(skin_normalize, a_rescaled_list_passes_the_weights_rule)
{
	struct rig_skin_influence list[8];
	for (int k = 0; k < 8; k++)
		list[k] = (struct rig_skin_influence){(uint32_t)k, 0.1 * (k + 1)};
	cr_assert(rig_skin_normalize_influences(list, 8));
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_skin_check_influences(list, 8, 8, 0, errs), 0);
	rig_errs_free(errs);
}
