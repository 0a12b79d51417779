/* Unit tests of core/frame_range.c: the range rules (step, order, length,
 * which parameter caused a length), bounded fault lists, and checking layers
 * over a range: faults in layer order then frame order, the same whether a
 * range is checked in one span or in pieces. */
#include <criterion/criterion.h>
#include <math.h>

#include "core/frame_range.h"
#include "core/skin.h"
#include "support.h"

Test(range_rules, accepts_a_plain_range_and_counts_it)
{
	double count;
	cr_assert_eq(rig_range_rules(0, 48, 1, 100000, &count), RIG_RANGE_OK);
	cr_assert_eq(count, 49);
	cr_assert_eq(rig_range_rules(0, 1, 0.1, 100000, &count), RIG_RANGE_OK);
	cr_assert_eq(count, 11, "0.1-style steps reach to (got %g)", count);
	cr_assert_eq(rig_range_rules(5, 5, 3, 100000, &count), RIG_RANGE_OK);
	cr_assert_eq(count, 1);
	cr_assert_eq(rig_range_rules(0, 10, 4, 100000, &count), RIG_RANGE_OK);
	cr_assert_eq(count, 3, "frames 0, 4, 8");
}

Test(range_rules, rejects_a_step_not_above_zero_nan_included)
{
	double count;
	cr_assert_eq(rig_range_rules(0, 1, 0, 100, &count), RIG_RANGE_STEP);
	cr_assert_eq(rig_range_rules(0, 1, -1, 100, &count), RIG_RANGE_STEP);
	cr_assert_eq(rig_range_rules(0, 1, NAN, 100, &count), RIG_RANGE_STEP);
}

Test(range_rules, rejects_to_before_from)
{
	double count;
	cr_assert_eq(rig_range_rules(10, 5, 1, 100, &count), RIG_RANGE_ORDER);
	cr_assert_eq(rig_range_rules(0, NAN, 1, 100, &count), RIG_RANGE_ORDER);
}

Test(range_rules, rejects_a_range_over_the_limit_and_names_step_when_it_caused_it)
{
	double count;
	cr_assert_eq(rig_range_rules(0, 100, 1, 100, &count), RIG_RANGE_LENGTH);
	cr_assert_eq(count, 101);
	cr_assert_eq(rig_range_rules(0, 99, 1, 100, &count), RIG_RANGE_OK);
	cr_assert_not(rig_range_step_caused(0, 100, 1, 100));
	cr_assert(rig_range_step_caused(0, 50, 0.1, 100));
}

Test(frame_faults, keeps_at_most_keep_and_counts_the_rest)
{
	struct rig_frame_faults a = {.keep = 3}, b = {.keep = 3};
	struct rig_frame_faults src = {.keep = 2};
	src.items = calloc(2, sizeof *src.items);
	src.count = src.cap = 2;
	src.total = 5;
	src.items[0].frame_index = 7;
	src.items[1].frame_index = 8;
	rig_frame_faults_append(&a, &src);
	cr_assert_eq(a.count, 2);
	cr_assert_eq(a.total, 5);
	cr_assert_eq(src.count, 0);
	cr_assert_eq(src.keep, 2, "keep survives the move");
	src.items = calloc(2, sizeof *src.items);
	src.count = src.cap = 2;
	src.total = 2;
	src.items[0].frame_index = 9;
	rig_frame_faults_append(&a, &src);
	cr_assert_eq(a.count, 3);
	cr_assert_eq(a.total, 7);
	cr_assert_eq(a.items[2].frame_index, 9);
	rig_frame_faults_release(&a);
	rig_frame_faults_release(&b);
	rig_frame_faults_release(&src);
}

/* Two mesh layers m1 and m2 (a 2 × 2 grid each, every vertex on j0) follow
 * joint layer a, whose scale.x goes from 1 at frame 0 to -1 at frame 10: at
 * frame 5 the meshes collapse, from 6 on they are mirrored (flipped). */
struct flip_fx {
	struct rig_layer layers[3];
	struct rig_scene scene;
	struct rig_skin_def def;
	struct rig_skin *skin;
	long joint_layers[1];
	struct rig_key keys[2];
};

static void build_flip(struct flip_fx *f)
{
	memset(f, 0, sizeof *f);
	const char *ids[3] = {"a", "m1", "m2"};
	for (int i = 0; i < 3; i++) {
		rig_strlcpy(f->layers[i].id, ids[i], sizeof f->layers[i].id);
		f->layers[i].parent = RIG_NO_LAYER;
		f->layers[i].statics = rig_transform_default();
	}
	f->keys[0] = (struct rig_key){0, 1, RIG_INTERP_LINEAR, {0}};
	f->keys[1] = (struct rig_key){10, -1, RIG_INTERP_LINEAR, {0}};
	f->layers[0].keys[RIG_CH_SCALE_X] = (struct rig_keys){f->keys, 2};
	f->def = grid_def(2, 2, 10, 1, 1);
	weights_all_to(&f->def, 0);
	struct rig_errs *errs = rig_errs_new();
	f->skin = rig_skin_new(&f->def, errs);
	cr_assert_not_null(f->skin);
	rig_errs_free(errs);
	f->joint_layers[0] = 0;
	for (int i = 1; i < 3; i++) {
		f->layers[i].kind = RIG_LAYER_MESH;
		f->layers[i].deformed = true;
		f->layers[i].binding = &rig_binding_skin;
		f->layers[i].binding_eval = f->skin;
		f->layers[i].joint_layers = f->joint_layers;
	}
	f->scene = (struct rig_scene){.layers = f->layers, .n_layers = 3};
}

static void release_flip(struct flip_fx *f)
{
	rig_skin_free(f->skin);
	rig_skin_def_release(&f->def);
}

static void check(struct rig_frame_faults *out, struct flip_fx *f, const long *layers, size_t n,
		  const struct rig_frame_range *range, size_t span)
{
	struct rig_resolver *r = rig_resolver_new(&f->scene);
	struct rig_errs *scratch = rig_errs_new();
	double xy[8];
	for (size_t p = 0; p < n * range->n_frames; p += span) {
		struct rig_frame_faults part = {.keep = out->keep};
		size_t count = n * range->n_frames - p < span ? n * range->n_frames - p : span;
		rig_frame_check_span(&part, r, xy, layers, n, range, p, count, scratch);
		rig_frame_faults_append(out, &part);
	}
	rig_errs_free(scratch);
	rig_resolver_free(r);
}

Test(frame_check, reports_each_failing_layer_and_frame_in_order)
{
	struct flip_fx f;
	build_flip(&f);
	long layers[2] = {1, 2};
	struct rig_frame_range range = {0, 1, 11};
	struct rig_frame_faults out = {.keep = 100};
	check(&out, &f, layers, 2, &range, 1000);
	cr_assert_eq(out.total, 12);
	cr_assert_eq(out.count, 12);
	for (size_t i = 0; i < 12; i++) {
		const struct rig_frame_fault *x = &out.items[i];
		cr_expect_eq(x->layer, i / 6);
		cr_expect_eq(x->frame_index, 5 + i % 6);
		cr_expect_eq(x->err.code, i % 6 == 0 ? RIG_MESH_COLLAPSED : RIG_MESH_WINDING);
		cr_expect_eq(x->err.triangle_index, 0);
		cr_expect_str_eq(x->err.layer_id, i < 6 ? "m1" : "m2");
		cr_expect(x->err.has_frame && x->err.frame == (double)(5 + i % 6));
	}
	rig_frame_faults_release(&out);
	release_flip(&f);
}

Test(frame_check, gives_the_same_faults_in_pieces_and_keeps_only_keep)
{
	struct flip_fx f;
	build_flip(&f);
	long layers[2] = {2, 1};
	struct rig_frame_range range = {0, 0.5, 21};
	struct rig_frame_faults whole = {.keep = 100}, pieces = {.keep = 100}, few = {.keep = 4};
	check(&whole, &f, layers, 2, &range, 1000);
	check(&pieces, &f, layers, 2, &range, 3);
	check(&few, &f, layers, 2, &range, 5);
	cr_assert_eq(whole.total, 22, "frames 5, 5.5, … 10 of each layer");
	cr_assert_eq(pieces.total, whole.total);
	cr_assert_eq(pieces.count, whole.count);
	for (size_t i = 0; i < whole.count; i++) {
		cr_expect_eq(pieces.items[i].layer, whole.items[i].layer);
		cr_expect_eq(pieces.items[i].frame_index, whole.items[i].frame_index);
	}
	cr_assert_str_eq(whole.items[0].err.layer_id, "m2", "the caller's layer order");
	cr_assert_eq(few.count, 4);
	cr_assert_eq(few.total, 22);
	cr_assert_eq(few.items[3].frame_index, whole.items[3].frame_index);
	rig_frame_faults_release(&whole);
	rig_frame_faults_release(&pieces);
	rig_frame_faults_release(&few);
	release_flip(&f);
}

Test(frame_check, finds_nothing_on_a_clean_range)
{
	struct flip_fx f;
	build_flip(&f);
	long layers[1] = {1};
	struct rig_frame_range range = {0, 1, 5};
	struct rig_frame_faults out = {.keep = 10};
	check(&out, &f, layers, 1, &range, 2);
	cr_assert_eq(out.total, 0);
	cr_assert_eq(out.count, 0);
	release_flip(&f);
}
