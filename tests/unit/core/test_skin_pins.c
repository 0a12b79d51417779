/* A skin carrying pins (skin.puppet, core/skin.h): the composition bit for
 * bit — the pins' refinement of the rest source (a puppet evaluator of its
 * own over the same mesh and pins), then the skin's kernel over the refined
 * vertices (a pinless skin whose source is that refinement) — for both
 * methods and both solvers, at keyed frames; the pins' rules under "/puppet";
 * copies, takes and releases; a skin without pins untouched by any of it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "core/puppet.h"
#include "core/skin.h"
#include "puppet_support.h"
#include "support.h"

static struct rig_skin *must_new(const struct rig_skin_def *def)
{
	struct rig_errs *errs = rig_errs_new();
	struct rig_skin *skin = rig_skin_new(def, errs);
	cr_assert_not_null(skin, "rig_skin_new failed: %s",
			   errs->count ? errs->items[0].detail : "(no error)");
	rig_errs_free(errs);
	return skin;
}

/* A 7 × 6 grid (step 10) skinned to two joints blended across x, binds at
 * identity, carrying three pins: two keyed, one stiff. */
static struct rig_skin_def pinned_skin(enum rig_skin_method method, enum rig_puppet_solver solver)
{
	struct rig_skin_def d = grid_def(7, 6, 10, 2, 2);
	uint32_t both[2] = {0, 1};
	for (size_t v = 0; v < d.n_verts; v++) {
		double a = 0.1 + 0.8 * (double)(v % 7) / 6.0;
		double ws[2] = {a, 1 - a};
		set_weights(&d, v, 2, both, ws);
	}
	d.method = method;
	d.puppet = calloc(1, sizeof *d.puppet);
	d.puppet->solver = solver;
	puppet_add_pin(d.puppet, "a", 0, 0);
	struct rig_puppet_pin *b = puppet_add_pin(d.puppet, "b", 60, 50);
	puppet_key(b, RIG_PIN_CH_POSITION_X, 0, 60);
	puppet_key(b, RIG_PIN_CH_POSITION_X, 10, 66);
	puppet_key(b, RIG_PIN_CH_ROTATION, 10, 15);
	struct rig_puppet_pin *c = puppet_add_pin(d.puppet, "c", 30, 20);
	c->stiffness = 0.75;
	puppet_key(c, RIG_PIN_CH_POSITION_Y, 0, 20);
	puppet_key(c, RIG_PIN_CH_POSITION_Y, 10, 24);
	return d;
}

/* Moderate poses: joint 0 turned about the left edge, joint 1 moved. */
static void moderate_poses(struct rig_affine poses[2])
{
	poses[0] = rig_affine_mul(rotate_rad(0.2), translate(1, -2));
	poses[1] = affine(1.1, 0.05, -0.02, 0.95, 4, 3);
}

static bool same_bits(const double *a, const double *b, size_t n)
{
	return memcmp(a, b, n * sizeof *a) == 0;
}

Test(skin_pins, the_pins_refine_the_rest_then_the_skin_maps_them_bit_for_bit)
{
	for (int method = 0; method < RIG_SKIN_METHOD_COUNT; method++) {
		for (int solver = 0; solver <= RIG_PUPPET_SOLVER_LBS; solver++) {
			struct rig_skin_def d = pinned_skin(method, solver);
			struct rig_skin *skin = must_new(&d);
			cr_assert_not_null(rig_skin_puppet(skin));
			/* The puppet alone, over the same mesh and pins. */
			struct rig_puppet_def pd;
			cr_assert_eq(rig_puppet_def_copy(&pd, d.puppet), 0);
			pd.n_verts = d.n_verts;
			pd.n_tris = d.n_tris;
			pd.source = malloc(2 * d.n_verts * sizeof(double));
			pd.triangles = malloc(3 * d.n_tris * sizeof(uint32_t));
			memcpy(pd.source, d.source, 2 * d.n_verts * sizeof(double));
			memcpy(pd.triangles, d.triangles, 3 * d.n_tris * sizeof(uint32_t));
			struct rig_puppet *pup = puppet_build(&pd);
			struct rig_affine poses[2];
			moderate_poses(poses);
			double *got = malloc(2 * d.n_verts * sizeof(double));
			double *refined = malloc(2 * d.n_verts * sizeof(double));
			double *want = malloc(2 * d.n_verts * sizeof(double));
			static const double frames[] = {0, 3.5, 10, 14};
			for (size_t f = 0; f < 4; f++) {
				struct rig_errs *errs = rig_errs_new();
				enum rig_puppet_ran ran = (enum rig_puppet_ran) - 1, want_ran;
				cr_assert_eq(rig_skin_evaluate_at(got, &ran, skin, poses, frames[f],
								  errs),
					     0, "%s", errs->count ? errs->items[0].detail : "");
				cr_assert_eq(rig_puppet_evaluate(refined, &want_ran, pup, frames[f],
								 errs),
					     0);
				cr_expect_eq(ran, want_ran);
				cr_expect_eq(ran, solver == RIG_PUPPET_SOLVER_LBS
							  ? RIG_PUPPET_RAN_LBS
							  : RIG_PUPPET_RAN_ARAP);
				/* the kernel on the refined vertices: a pinless skin of them */
				struct rig_skin_def plain;
				cr_assert_eq(rig_skin_def_copy(&plain, &d), 0);
				rig_puppet_def_release(plain.puppet);
				free(plain.puppet);
				plain.puppet = NULL;
				memcpy(plain.source, refined, 2 * d.n_verts * sizeof(double));
				struct rig_skin *on_refined = must_new(&plain);
				rig_skin_deform(want, on_refined, poses);
				cr_expect(same_bits(got, want, 2 * d.n_verts),
					  "method %d solver %d frame %g", method, solver,
					  frames[f]);
				/* the frame moves the pins, not the joints */
				rig_skin_free(on_refined);
				rig_skin_def_release(&plain);
				rig_errs_free(errs);
			}
			/* rig_skin_evaluate is frame 0 */
			struct rig_errs *errs = rig_errs_new();
			cr_assert_eq(rig_skin_evaluate(got, skin, poses, errs), 0);
			cr_assert_eq(rig_skin_evaluate_at(want, NULL, skin, poses, 0, errs), 0);
			cr_expect(same_bits(got, want, 2 * d.n_verts));
			cr_assert_eq(rig_skin_evaluate_at(want, NULL, skin, poses, 10, errs), 0);
			cr_expect(!same_bits(got, want, 2 * d.n_verts), "the keys move the pins");
			rig_errs_free(errs);
			free(got);
			free(refined);
			free(want);
			rig_puppet_free(pup);
			rig_puppet_def_release(&pd);
			rig_skin_free(skin);
			rig_skin_def_release(&d);
		}
	}
}

Test(skin_pins, weights_and_binds_stay_bound_to_the_rest)
{
	struct rig_skin_def d = pinned_skin(RIG_SKIN_LBS, RIG_PUPPET_SOLVER_ARAP);
	struct rig_skin *skin = must_new(&d);
	const struct rig_skin_def *snap = rig_skin_def_of(skin);
	cr_expect(same_bits(snap->source, d.source, 2 * d.n_verts), "the rest source is kept");
	for (size_t k = 0; k < d.weight_offsets[d.n_verts]; k++)
		cr_expect_eq(snap->influences[k].weight, d.influences[k].weight);
	/* poses at the binds: the frame is the pins' refinement alone */
	struct rig_affine poses[2] = {rig_affine_identity(), rig_affine_identity()};
	double *got = malloc(2 * d.n_verts * sizeof(double));
	double *refined = malloc(2 * d.n_verts * sizeof(double));
	struct rig_errs *errs = rig_errs_new();
	cr_assert_eq(rig_skin_evaluate_at(got, NULL, skin, poses, 10, errs), 0);
	cr_assert_eq(rig_puppet_evaluate(refined, NULL, rig_skin_puppet(skin), 10, errs), 0);
	cr_expect(same_bits(got, refined, 2 * d.n_verts));
	rig_errs_free(errs);
	free(got);
	free(refined);
	rig_skin_free(skin);
	rig_skin_def_release(&d);
}

Test(skin_pins, a_skin_without_pins_has_no_puppet_and_ignores_the_frame)
{
	struct rig_skin_def d = pinned_skin(RIG_SKIN_LBS, RIG_PUPPET_SOLVER_ARAP);
	rig_puppet_def_release(d.puppet);
	free(d.puppet);
	d.puppet = NULL;
	struct rig_skin *skin = must_new(&d);
	cr_expect_null(rig_skin_puppet(skin));
	struct rig_affine poses[2];
	moderate_poses(poses);
	double *a = malloc(2 * d.n_verts * sizeof(double));
	double *b = malloc(2 * d.n_verts * sizeof(double));
	double *c = malloc(2 * d.n_verts * sizeof(double));
	struct rig_errs *errs = rig_errs_new();
	enum rig_puppet_ran ran = (enum rig_puppet_ran)77;
	cr_assert_eq(rig_skin_evaluate(a, skin, poses, errs), 0);
	cr_assert_eq(rig_skin_evaluate_at(b, &ran, skin, poses, 12.5, errs), 0);
	rig_skin_deform(c, skin, poses);
	cr_expect(same_bits(a, b, 2 * d.n_verts));
	cr_expect(same_bits(a, c, 2 * d.n_verts));
	cr_expect_eq((int)ran, 77, "nothing ran: left alone");
	rig_errs_free(errs);
	free(a);
	free(b);
	free(c);
	rig_skin_free(skin);
	rig_skin_def_release(&d);
}

Test(skin_pins, the_pins_rules_report_under_puppet)
{
	struct rig_skin_def d = pinned_skin(RIG_SKIN_LBS, RIG_PUPPET_SOLVER_ARAP);
	d.puppet->pins[2].stiffness = -1;
	puppet_add_pin(d.puppet, "near-a", 0.5, 0.5); /* anchors to a's vertex */
	struct rig_errs *errs = rig_errs_new();
	cr_expect_eq(rig_skin_check_def(&d, errs), -1);
	long i = find_err(errs, RIG_PUPPET_PINS);
	cr_assert_geq(i, 0);
	cr_expect_str_eq(errs->items[i].pointer, "/puppet/pins/2/stiffness");
	cr_expect_null(rig_skin_new(&d, errs));
	rig_errs_free(errs);
	d.puppet->pins[2].stiffness = 0;
	errs = rig_errs_new();
	cr_expect_eq(rig_skin_check_def(&d, errs), -1);
	i = find_err(errs, RIG_PUPPET_PIN_VERTEX);
	cr_assert_geq(i, 0);
	cr_expect_str_eq(errs->items[i].pointer, "/puppet/pins/3");
	cr_expect_eq(errs->items[i].vertex_index, 0);
	rig_errs_free(errs);
	/* a broken source is the skin's to report, once, and the pins wait */
	cr_assert(rig_puppet_def_pin_delete(d.puppet, "near-a"));
	d.source[0] = NAN;
	errs = rig_errs_new();
	cr_expect_eq(rig_skin_check_def(&d, errs), -1);
	cr_expect_eq(count_err(errs, RIG_MESH_GEOMETRY), 1);
	for (size_t k = 0; k < errs->count; k++)
		cr_expect_neq(strncmp(errs->items[k].pointer, "/puppet", 7), 0);
	rig_errs_free(errs);
	rig_skin_def_release(&d);
}

Test(skin_pins, copies_takes_and_the_head_copy_keep_the_pins)
{
	struct rig_skin_def d = pinned_skin(RIG_SKIN_DQS, RIG_PUPPET_SOLVER_LBS);
	struct rig_skin_def copy;
	cr_assert_eq(rig_skin_def_copy(&copy, &d), 0);
	cr_assert_not_null(copy.puppet);
	cr_expect_neq(copy.puppet, d.puppet, "a deep copy");
	cr_expect_eq(copy.puppet->n_pins, 3);
	cr_expect_eq(copy.puppet->pins[1].keys[RIG_PIN_CH_POSITION_X].count, 2);
	cr_expect_neq(copy.puppet->pins[1].keys[RIG_PIN_CH_POSITION_X].items,
		      d.puppet->pins[1].keys[RIG_PIN_CH_POSITION_X].items);
	rig_skin_def_release_arrays(&copy);
	cr_expect_not_null(copy.puppet, "the pins are kept with the joints");
	struct rig_skin_def head = {0};
	cr_assert_eq(rig_skin_def_copy_head(&head, &copy), 0);
	cr_expect_eq(head.method, RIG_SKIN_DQS);
	cr_expect_eq(head.n_joints, 2);
	cr_assert_not_null(head.puppet);
	cr_expect_eq(head.puppet->solver, RIG_PUPPET_SOLVER_LBS);
	rig_skin_def_release(&head);
	rig_skin_def_release(&copy);
	/* take: the definition keeps its pins; the evaluator has its own */
	struct rig_skin_def taken;
	cr_assert_eq(rig_skin_def_copy(&taken, &d), 0);
	struct rig_errs *errs = rig_errs_new();
	struct rig_skin *skin = rig_skin_take(&taken, errs);
	cr_assert_not_null(skin);
	cr_expect_null(taken.source);
	cr_expect_not_null(taken.puppet);
	cr_expect_neq(rig_skin_def_of(skin)->puppet, taken.puppet);
	cr_expect_not_null(rig_skin_puppet(skin));
	struct rig_skin *fresh = must_new(&d);
	cr_expect_gt(rig_skin_bytes(skin), 0);
	cr_expect_eq(rig_skin_bytes(skin), rig_skin_bytes(fresh));
	struct rig_affine poses[2];
	moderate_poses(poses);
	double *a = malloc(2 * d.n_verts * sizeof(double));
	double *b = malloc(2 * d.n_verts * sizeof(double));
	cr_assert_eq(rig_skin_evaluate_at(a, NULL, skin, poses, 5, errs), 0);
	cr_assert_eq(rig_skin_evaluate_at(b, NULL, fresh, poses, 5, errs), 0);
	cr_expect(same_bits(a, b, 2 * d.n_verts), "taken and new evaluate alike");
	free(a);
	free(b);
	rig_errs_free(errs);
	rig_skin_free(fresh);
	rig_skin_free(skin);
	rig_skin_def_release(&taken);
	rig_skin_def_release(&d);
}
