/* Unit tests of core/rig.c: the layer tree (lowest common ancestor, ancestry,
 * cycles), the deformation boundary, and the resolver: local frames, path
 * products, joint poses (shared ancestors cancel, singular mesh paths reject),
 * memo behaviour across calls and frames, and whole evaluations. */
#include <criterion/criterion.h>
#include <math.h>

#include "core/rig.h"
#include "core/skin.h"
#include "support.h"

#define MAX_LAYERS 16

struct scene_fx {
	struct rig_layer layers[MAX_LAYERS];
	struct rig_scene scene;
};

static long add_layer(struct scene_fx *s, const char *id, long parent)
{
	size_t i = s->scene.n_layers++;
	cr_assert_lt(i, MAX_LAYERS);
	struct rig_layer *l = &s->layers[i];
	memset(l, 0, sizeof *l);
	rig_strlcpy(l->id, id, sizeof l->id);
	l->kind = RIG_LAYER_GROUP;
	l->parent = parent;
	l->statics = rig_transform_default();
	s->scene.layers = s->layers;
	return (long)i;
}

static void init_scene(struct scene_fx *s)
{
	memset(s, 0, sizeof *s);
	s->scene.layers = s->layers;
}

static void set_channel(struct scene_fx *s, long layer, enum rig_channel ch, double v)
{
	s->layers[layer].statics.ch[ch] = v;
}

static void expect_affine_eq(struct rig_affine got, struct rig_affine want, double tol)
{
	for (int i = 0; i < 6; i++)
		cr_expect(fabs(got.m[i] - want.m[i]) <= tol, "entry %d: got %.17g want %.17g", i,
			  got.m[i], want.m[i]);
}

static void expect_bits_eq(const void *a, const void *b, size_t size, const char *what)
{
	cr_expect_eq(memcmp(a, b, size), 0, "%s differs", what);
}

/* ------------------------------------------------------------------------ */
/* The tree                                                                  */
/* ------------------------------------------------------------------------ */

/* root ─┬─ a ─┬─ a1 ── a11
 *       │     └─ a2
 *       └─ b
 * other (a second tree) */
struct tree {
	struct scene_fx fx;
	long root, a, a1, a11, a2, b, other;
};

static void build_tree(struct tree *t)
{
	init_scene(&t->fx);
	t->root = add_layer(&t->fx, "root", RIG_NO_LAYER);
	t->a = add_layer(&t->fx, "a", t->root);
	t->a1 = add_layer(&t->fx, "a1", t->a);
	t->a11 = add_layer(&t->fx, "a11", t->a1);
	t->a2 = add_layer(&t->fx, "a2", t->a);
	t->b = add_layer(&t->fx, "b", t->root);
	t->other = add_layer(&t->fx, "other", RIG_NO_LAYER);
}

Test(scene_tree, lca_of_siblings_and_cousins_is_their_shared_parent)
{
	struct tree t;
	build_tree(&t);
	cr_expect_eq(rig_scene_lca(&t.fx.scene, t.a1, t.a2), t.a);
	cr_expect_eq(rig_scene_lca(&t.fx.scene, t.a11, t.a2), t.a);
	cr_expect_eq(rig_scene_lca(&t.fx.scene, t.a11, t.b), t.root);
}

Test(scene_tree, lca_of_an_ancestor_and_a_descendant_is_the_ancestor)
{
	struct tree t;
	build_tree(&t);
	cr_expect_eq(rig_scene_lca(&t.fx.scene, t.a, t.a11), t.a);
	cr_expect_eq(rig_scene_lca(&t.fx.scene, t.a11, t.root), t.root);
	cr_expect_eq(rig_scene_lca(&t.fx.scene, t.b, t.b), t.b);
}

Test(scene_tree, lca_of_separate_trees_is_the_shot_root)
{
	struct tree t;
	build_tree(&t);
	cr_expect_eq(rig_scene_lca(&t.fx.scene, t.a11, t.other), RIG_NO_LAYER);
	cr_expect_eq(rig_scene_lca(&t.fx.scene, t.a11, RIG_NO_LAYER), RIG_NO_LAYER);
}

Test(scene_tree, ancestry_is_strict)
{
	struct tree t;
	build_tree(&t);
	cr_expect(rig_scene_is_ancestor(&t.fx.scene, t.root, t.a11));
	cr_expect(rig_scene_is_ancestor(&t.fx.scene, t.a1, t.a11));
	cr_expect_not(rig_scene_is_ancestor(&t.fx.scene, t.a11, t.a11));
	cr_expect_not(rig_scene_is_ancestor(&t.fx.scene, t.a11, t.a1));
	cr_expect_not(rig_scene_is_ancestor(&t.fx.scene, t.b, t.a11));
	cr_expect_not(rig_scene_is_ancestor(&t.fx.scene, t.other, t.a11));
}

Test(scene_tree, reparenting_under_itself_or_a_descendant_would_cycle)
{
	struct tree t;
	build_tree(&t);
	const struct rig_scene *s = &t.fx.scene;
	cr_expect(rig_scene_would_cycle(s, t.a, t.a));
	cr_expect(rig_scene_would_cycle(s, t.a, t.a11));
	cr_expect(rig_scene_would_cycle(s, t.root, t.b));
	cr_expect_not(rig_scene_would_cycle(s, t.a11, t.b));
	cr_expect_not(rig_scene_would_cycle(s, t.a1, t.root));
	cr_expect_not(rig_scene_would_cycle(s, t.a, RIG_NO_LAYER));
	cr_expect_not(rig_scene_would_cycle(s, t.root, t.other));
}

/* ------------------------------------------------------------------------ */
/* The deformation boundary                                                  */
/* ------------------------------------------------------------------------ */

static int boundary(const struct tree *t, long mesh, long joint, struct rig_errs *errs)
{
	rig_errs_init(errs);
	return rig_scene_check_boundary(&t->fx.scene, mesh, joint, errs);
}

Test(scene_boundary, rejects_the_mesh_layer_itself_as_a_joint)
{
	struct tree t;
	build_tree(&t);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(boundary(&t, t.a1, t.a1, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_SKIN_DEFORMATION_BOUNDARY);
	cr_expect_str_eq(errs->items[0].layer_id, "a1");
	rig_errs_free(errs);
}

Test(scene_boundary, rejects_a_joint_inside_the_mesh_layer)
{
	struct tree t;
	build_tree(&t);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(boundary(&t, t.a, t.a11, errs), -1);
	cr_expect_str_eq(errs->items[0].layer_id, "a");
	cr_expect(strstr(errs->items[0].detail, "'a11'") != NULL,
		  "the detail names the joint layer");
	rig_errs_free(errs);
}

Test(scene_boundary, rejects_a_deformed_layer_between_the_ancestor_and_the_joint)
{
	struct tree t;
	build_tree(&t);
	t.fx.layers[t.a1].deformed = true;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(boundary(&t, t.b, t.a11, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_SKIN_DEFORMATION_BOUNDARY);
	cr_expect_str_eq(errs->items[0].layer_id, "b");
	cr_expect(strstr(errs->items[0].detail, "'a1'") != NULL);
	rig_errs_free(errs);
}

Test(scene_boundary, rejects_a_deformed_layer_between_the_ancestor_and_the_mesh)
{
	struct tree t;
	build_tree(&t);
	t.fx.layers[t.a1].deformed = true;
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(boundary(&t, t.a11, t.b, errs), -1);
	cr_expect_str_eq(errs->items[0].layer_id, "a11");
	rig_errs_free(errs);
}

Test(scene_boundary, accepts_a_deformed_shared_ancestor_and_a_deformed_joint)
{
	struct tree t;
	build_tree(&t);
	t.fx.layers[t.a].deformed = true;    /* C of a11 and a2: shared, cancels */
	t.fx.layers[t.a2].deformed = true;   /* the joint layer itself */
	t.fx.layers[t.root].deformed = true; /* above C */
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(boundary(&t, t.a11, t.a2, errs), 0);
	cr_expect_eq(errs->total, 0);
	rig_errs_free(errs);
}

Test(scene_boundary, accepts_an_ancestor_of_the_mesh_as_a_joint)
{
	struct tree t;
	build_tree(&t);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(boundary(&t, t.a11, t.a, errs), 0);
	t.fx.layers[t.a1].deformed = true; /* strictly between C = a and the mesh */
	cr_expect_eq(boundary(&t, t.a11, t.a, errs), -1);
	rig_errs_free(errs);
}

Test(scene_boundary, accepts_joints_in_another_tree)
{
	struct tree t;
	build_tree(&t);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(boundary(&t, t.a11, t.other, errs), 0);
	t.fx.layers[t.root].deformed = true; /* between the shot root and the mesh */
	cr_expect_eq(boundary(&t, t.a11, t.other, errs), -1);
	rig_errs_free(errs);
}

/* ------------------------------------------------------------------------ */
/* Local matrices and paths                                                  */
/* ------------------------------------------------------------------------ */

Test(resolver_local, evaluates_keys_at_shot_frame_minus_time_offset)
{
	struct scene_fx fx;
	init_scene(&fx);
	long l = add_layer(&fx, "l", RIG_NO_LAYER);
	struct rig_key k[2] = {{10, 0, RIG_INTERP_LINEAR, {0}}, {20, 100, RIG_INTERP_LINEAR, {0}}};
	fx.layers[l].keys[RIG_CH_POSITION_X] = (struct rig_keys){k, 2};
	fx.layers[l].time_offset = 5;
	struct rig_resolver *r = rig_resolver_new(&fx.scene);
	cr_expect_eq(rig_resolver_local(r, l, 20).m[4], 50, "local frame 15");
	cr_expect_eq(rig_resolver_local(r, l, 12.5).m[4], 0, "local frame 7.5 clamps");
	cr_expect_eq(rig_resolver_local(r, l, 25).m[4], 100);
	fx.layers[l].time_offset = -2.5;
	rig_resolver_free(r);
	r = rig_resolver_new(&fx.scene);
	cr_expect_eq(rig_resolver_local(r, l, 12.5).m[4], 50, "negative offset: local frame 15");
	cr_expect_eq(rig_resolver_local(r, l, -7.5).m[4], 0);
	rig_resolver_free(r);
}

Test(resolver_local, uses_static_values_without_keys_at_any_frame)
{
	struct scene_fx fx;
	init_scene(&fx);
	long l = add_layer(&fx, "l", RIG_NO_LAYER);
	set_channel(&fx, l, RIG_CH_POSITION_Y, 7);
	set_channel(&fx, l, RIG_CH_SCALE_X, 2);
	struct rig_resolver *r = rig_resolver_new(&fx.scene);
	double frames[] = {-1e6, -3.25, 0, 0.5, 1e6};
	for (size_t i = 0; i < 5; i++) {
		struct rig_affine m = rig_resolver_local(r, l, frames[i]);
		expect_affine_eq(m, affine(2, 0, 0, 1, 0, 7), 0);
	}
	rig_resolver_free(r);
}

Test(resolver_path, is_the_product_of_locals_below_the_ancestor_top_down)
{
	struct tree t;
	build_tree(&t);
	struct scene_fx *fx = &t.fx;
	set_channel(fx, t.root, RIG_CH_SCALE_X, 3);
	set_channel(fx, t.a, RIG_CH_ROTATION, 30);
	set_channel(fx, t.a1, RIG_CH_POSITION_X, 5);
	set_channel(fx, t.a11, RIG_CH_SCALE_Y, 0.5);
	set_channel(fx, t.a11, RIG_CH_PIVOT_X, 1);
	struct rig_affine l[4];
	long chain[4] = {t.root, t.a, t.a1, t.a11};
	for (int i = 0; i < 4; i++)
		l[i] = rig_transform_matrix(&fx->layers[chain[i]].statics);
	struct rig_resolver *r = rig_resolver_new(&fx->scene);
	struct rig_affine want_a = rig_affine_mul(l[2], l[3]);
	struct rig_affine want_root =
		rig_affine_mul(rig_affine_mul(rig_affine_mul(l[0], l[1]), l[2]), l[3]);
	struct rig_affine got_a = rig_resolver_path(r, t.a, t.a11, 0);
	struct rig_affine got_root = rig_resolver_path(r, RIG_NO_LAYER, t.a11, 0);
	expect_bits_eq(&got_a, &want_a, sizeof got_a, "P(a→a11)");
	expect_bits_eq(&got_root, &want_root, sizeof got_root, "P(root→a11)");
	struct rig_affine self = rig_resolver_path(r, t.a11, t.a11, 0);
	expect_affine_eq(self, rig_affine_identity(), 0);
	rig_resolver_free(r);
}

/* ------------------------------------------------------------------------ */
/* Joint poses                                                               */
/* ------------------------------------------------------------------------ */

/* The strip mesh as layer "mesh" under "rig", joints "root" and "tip" mapped
 * to layers; binds are the identity for root and translate(20, 0) for tip. */
struct rig_fx {
	struct scene_fx fx;
	struct rig_skin_def def;
	struct rig_skin *skin;
	long joint_layers[2];
	long rig, mesh, root, tip;
	struct rig_key tip_keys[2];
};

static void build_rig(struct rig_fx *f)
{
	init_scene(&f->fx);
	f->rig = add_layer(&f->fx, "rig", RIG_NO_LAYER);
	f->root = add_layer(&f->fx, "root", f->rig);
	f->tip = add_layer(&f->fx, "tip", f->root);
	f->mesh = add_layer(&f->fx, "mesh", f->rig);
	set_channel(&f->fx, f->rig, RIG_CH_ROTATION, 30);
	set_channel(&f->fx, f->rig, RIG_CH_POSITION_X, 100);
	set_channel(&f->fx, f->tip, RIG_CH_POSITION_X, 20);
	/* The tip rises from 0 at frame 0 to 10 at frame 10. */
	f->tip_keys[0] = (struct rig_key){0, 0, RIG_INTERP_LINEAR, {0}};
	f->tip_keys[1] = (struct rig_key){10, 10, RIG_INTERP_LINEAR, {0}};
	f->fx.layers[f->tip].keys[RIG_CH_POSITION_Y] = (struct rig_keys){f->tip_keys, 2};

	f->def = strip_def();
	for (size_t i = 0; i < 12; i += 2)
		f->def.source[i] *= 2; /* columns at x = 0, 20, 40 */
	f->def.joints[1].bind = translate(20, 0);
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	f->skin = rig_skin_new(&f->def, errs);
	cr_assert_not_null(f->skin);
	f->joint_layers[0] = f->root;
	f->joint_layers[1] = f->tip;
	struct rig_layer *m = &f->fx.layers[f->mesh];
	m->kind = RIG_LAYER_MESH;
	m->deformed = true;
	m->binding = &rig_binding_skin;
	m->binding_eval = f->skin;
	m->joint_layers = f->joint_layers;
	rig_errs_free(errs);
}

static void release_rig(struct rig_fx *f)
{
	rig_skin_free(f->skin);
	rig_skin_def_release(&f->def);
}

static int poses_at(struct rig_affine *out, struct rig_fx *f, double frame, struct rig_errs *errs)
{
	struct rig_resolver *r = rig_resolver_new(&f->fx.scene);
	rig_errs_init(errs);
	int rc = rig_resolver_joint_poses(out, r, f->mesh, frame, errs);
	rig_resolver_free(r);
	return rc;
}

Test(resolver_poses, pose_is_inverse_mesh_path_times_joint_path)
{
	struct rig_fx f;
	build_rig(&f);
	set_channel(&f.fx, f.mesh, RIG_CH_POSITION_Y, -4);
	set_channel(&f.fx, f.mesh, RIG_CH_SCALE_X, 2);
	struct rig_affine poses[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(poses_at(poses, &f, 5, errs), 0);
	/* C = rig for both joints. */
	struct rig_affine mesh_l = affine(2, 0, 0, 1, 0, -4), inv;
	cr_assert_eq(rig_affine_invert(&inv, &mesh_l), 0);
	expect_affine_eq(poses[0], inv, 1e-15);
	expect_affine_eq(poses[1], rig_affine_mul(inv, translate(20, 5)), 1e-15);
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_poses, shared_ancestors_cancel_even_when_singular)
{
	struct rig_fx f;
	build_rig(&f);
	struct rig_affine plain[2], singular[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(poses_at(plain, &f, 5, errs), 0);
	set_channel(&f.fx, f.rig, RIG_CH_SCALE_X, 0); /* the shared ancestor collapses */
	f.fx.layers[f.rig].deformed = true;           /* and is deformed: still shared */
	cr_assert_eq(poses_at(singular, &f, 5, errs), 0);
	cr_expect(rig_affine_is_finite(&singular[0]) && rig_affine_is_finite(&singular[1]));
	expect_bits_eq(plain, singular, sizeof plain, "poses");
	expect_affine_eq(plain[1], translate(20, 5), 0);
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_poses, singular_mesh_side_path_is_rejected_with_joint_and_frame)
{
	struct rig_fx f;
	build_rig(&f);
	struct rig_key squash[2] = {{0, 1, RIG_INTERP_LINEAR, {0}},
				    {10, 0, RIG_INTERP_LINEAR, {0}}};
	f.fx.layers[f.mesh].keys[RIG_CH_SCALE_Y] = (struct rig_keys){squash, 2};
	struct rig_affine poses[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(poses_at(poses, &f, 5, errs), 0, "scale 0.5 at frame 5 is fine");
	cr_expect_eq(poses_at(poses, &f, 10, errs), -1);
	cr_assert_eq(errs->total, 2, "one error per joint");
	for (int j = 0; j < 2; j++) {
		const struct rig_err *e = &errs->items[j];
		cr_expect_eq(e->code, RIG_SKIN_LAYER_TRANSFORM);
		cr_expect_str_eq(e->joint_id, j == 0 ? "root" : "tip");
		cr_expect_eq(e->joint_index, j);
		cr_expect_str_eq(e->layer_id, "mesh");
		cr_expect(e->has_frame);
		cr_expect_eq(e->frame, 10);
	}
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_poses, nearly_singular_mesh_path_is_rejected)
{
	struct rig_fx f;
	build_rig(&f);
	set_channel(&f.fx, f.mesh, RIG_CH_SCALE_Y, 1e-13);
	struct rig_affine poses[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(poses_at(poses, &f, 0, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_SKIN_LAYER_TRANSFORM);
	set_channel(&f.fx, f.mesh, RIG_CH_SCALE_Y, 1e-11);
	cr_expect_eq(poses_at(poses, &f, 0, errs), 0);
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_poses, a_joint_inside_the_mesh_is_rejected_at_evaluation)
{
	struct rig_fx f;
	build_rig(&f);
	f.fx.layers[f.tip].parent = f.mesh;
	struct rig_affine poses[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(poses_at(poses, &f, 0, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_SKIN_DEFORMATION_BOUNDARY);
	cr_expect_str_eq(errs->items[0].joint_id, "tip");
	cr_expect_str_eq(errs->items[0].layer_id, "mesh");
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_poses, a_deformed_layer_between_is_rejected_at_evaluation)
{
	struct rig_fx f;
	build_rig(&f);
	f.fx.layers[f.root].deformed = true; /* strictly between C = rig and the tip */
	struct rig_affine poses[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(poses_at(poses, &f, 0, errs), -1);
	cr_assert_eq(errs->total, 1, "the root joint itself may be deformed");
	cr_expect_eq(errs->items[0].code, RIG_SKIN_DEFORMATION_BOUNDARY);
	cr_expect_str_eq(errs->items[0].joint_id, "tip");
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_poses, an_unmapped_joint_is_rejected)
{
	struct rig_fx f;
	build_rig(&f);
	f.joint_layers[0] = RIG_NO_LAYER;
	struct rig_affine poses[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(poses_at(poses, &f, 0, errs), -1);
	cr_assert_eq(errs->total, 1);
	cr_expect_eq(errs->items[0].code, RIG_SKIN_JOINT_LAYERS);
	cr_expect_str_eq(errs->items[0].joint_id, "root");
	cr_expect_str_eq(errs->items[0].layer_id, "mesh");
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_poses, a_layer_without_a_skin_is_rejected)
{
	struct rig_fx f;
	build_rig(&f);
	struct rig_resolver *r = rig_resolver_new(&f.fx.scene);
	struct rig_affine poses[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(rig_resolver_joint_poses(poses, r, f.tip, 0, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_MESH_BINDING_KIND);
	cr_expect_str_eq(errs->items[0].layer_id, "tip");
	rig_resolver_free(r);
	release_rig(&f);
	rig_errs_free(errs);
}

/* ------------------------------------------------------------------------ */
/* Memo behaviour                                                            */
/* ------------------------------------------------------------------------ */

Test(resolver_memo, repeated_calls_give_identical_bits)
{
	struct rig_fx f;
	build_rig(&f);
	struct rig_resolver *r = rig_resolver_new(&f.fx.scene);
	struct rig_affine first[2], again[2];
	double xy1[12], xy2[12];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(rig_resolver_joint_poses(first, r, f.mesh, 3.3, errs), 0);
	cr_assert_eq(rig_resolver_evaluate(xy1, r, f.mesh, 3.3, errs), 0);
	cr_assert_eq(rig_resolver_joint_poses(again, r, f.mesh, 3.3, errs), 0);
	cr_assert_eq(rig_resolver_evaluate(xy2, r, f.mesh, 3.3, errs), 0);
	expect_bits_eq(first, again, sizeof first, "poses");
	expect_bits_eq(xy1, xy2, sizeof xy1, "vertices");
	rig_resolver_free(r);
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_memo, frames_in_any_order_match_a_fresh_resolver)
{
	struct rig_fx f;
	build_rig(&f);
	set_channel(&f.fx, f.mesh, RIG_CH_ROTATION, 10);
	f.fx.layers[f.tip].time_offset = 1.5;
	double frames[] = {1, 2, 1, -3.5, 0.25, 2, 1, 7.75, -3.5};
	struct rig_resolver *shared = rig_resolver_new(&f.fx.scene);
	for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
		struct rig_resolver *fresh = rig_resolver_new(&f.fx.scene);
		double a[12], b[12];
		struct rig_errs *errs = rig_errs_new();
		cr_assert_not_null(errs);
		cr_assert_eq(rig_resolver_evaluate(a, shared, f.mesh, frames[i], errs), 0);
		cr_assert_eq(rig_resolver_evaluate(b, fresh, f.mesh, frames[i], errs), 0);
		expect_bits_eq(a, b, sizeof a, "vertices");
		struct rig_affine pa = rig_resolver_path(shared, f.rig, f.tip, frames[i]);
		struct rig_affine pb = rig_resolver_path(fresh, f.rig, f.tip, frames[i]);
		expect_bits_eq(&pa, &pb, sizeof pa, "path");
		rig_resolver_free(fresh);
		rig_errs_free(errs);
	}
	rig_resolver_free(shared);
	release_rig(&f);
}

Test(resolver_memo, paths_from_different_ancestors_do_not_mix)
{
	struct tree t;
	build_tree(&t);
	struct scene_fx *fx = &t.fx;
	set_channel(fx, t.root, RIG_CH_SCALE_X, 3);
	set_channel(fx, t.a, RIG_CH_ROTATION, 30);
	set_channel(fx, t.a1, RIG_CH_POSITION_X, 5);
	set_channel(fx, t.a11, RIG_CH_POSITION_Y, 2);
	struct rig_resolver *r = rig_resolver_new(&fx->scene);
	struct rig_resolver *fresh = rig_resolver_new(&fx->scene);
	long tops[] = {t.a, RIG_NO_LAYER, t.a1, t.root, t.a, t.a11};
	for (size_t i = 0; i < 6; i++) {
		struct rig_affine got = rig_resolver_path(r, tops[i], t.a11, 4);
		rig_resolver_free(fresh);
		fresh = rig_resolver_new(&fx->scene);
		struct rig_affine want = rig_resolver_path(fresh, tops[i], t.a11, 4);
		expect_bits_eq(&got, &want, sizeof got, "path");
	}
	rig_resolver_free(fresh);
	rig_resolver_free(r);
}

Test(resolver_memo, free_of_null_is_a_no_op)
{
	rig_resolver_free(NULL);
}

/* ------------------------------------------------------------------------ */
/* Whole evaluations                                                         */
/* ------------------------------------------------------------------------ */

Test(resolver_evaluate, animated_tip_moves_the_strip_middle_halfway)
{
	struct rig_fx f;
	build_rig(&f);
	struct rig_resolver *r = rig_resolver_new(&f.fx.scene);
	double xy[12];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(rig_resolver_evaluate(xy, r, f.mesh, 0, errs), 0);
	expect_bits_eq(xy, f.def.source, sizeof xy, "rest frame");
	cr_assert_eq(rig_resolver_evaluate(xy, r, f.mesh, 10, errs), 0);
	for (size_t v = 0; v < 6; v++) {
		cr_expect_eq(xy[2 * v], f.def.source[2 * v]);
		cr_expect_eq(xy[2 * v + 1], f.def.source[2 * v + 1] + (v % 3) * 5.0, "vertex %zu",
			     v);
	}
	rig_resolver_free(r);
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_evaluate, fractional_and_negative_frames_follow_the_keys)
{
	struct rig_fx f;
	build_rig(&f);
	f.tip_keys[0].frame = -10;
	struct rig_resolver *r = rig_resolver_new(&f.fx.scene);
	double xy[12];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(rig_resolver_evaluate(xy, r, f.mesh, -5, errs), 0);
	cr_expect_eq(xy[2 * 2 + 1], 2.5, "tip at 2.5 when frame −5 of [−10, 10]");
	cr_assert_eq(rig_resolver_evaluate(xy, r, f.mesh, 0.5, errs), 0);
	cr_expect_eq(xy[2 * 2 + 1], 5.25);
	rig_resolver_free(r);
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_evaluate, mesh_errors_carry_the_layer_id_and_frame)
{
	struct rig_fx f;
	build_rig(&f);
	struct rig_key flip[2] = {{0, 1, RIG_INTERP_LINEAR, {0}}, {4, -1, RIG_INTERP_HOLD, {0}}};
	f.fx.layers[f.root].keys[RIG_CH_SCALE_X] = (struct rig_keys){flip, 2};
	struct rig_resolver *r = rig_resolver_new(&f.fx.scene);
	double xy[12];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_eq(rig_resolver_evaluate(xy, r, f.mesh, 6, errs), -1);
	cr_assert_gt(errs->count, 0);
	long i = find_err(errs, RIG_MESH_WINDING);
	cr_assert_geq(i, 0);
	cr_expect_geq(errs->items[i].triangle_index, 0);
	cr_expect_str_eq(errs->items[i].layer_id, "mesh");
	cr_expect(errs->items[i].has_frame);
	cr_expect_eq(errs->items[i].frame, 6);
	rig_resolver_free(r);
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_evaluate, binds_captured_at_a_frame_give_back_the_source_there)
{
	struct rig_fx f;
	build_rig(&f);
	set_channel(&f.fx, f.mesh, RIG_CH_ROTATION, -20);
	set_channel(&f.fx, f.root, RIG_CH_POSITION_Y, 3);
	struct rig_affine captured[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(poses_at(captured, &f, 7.5, errs), 0);
	f.def.joints[0].bind = captured[0];
	f.def.joints[1].bind = captured[1];
	rig_skin_free(f.skin);
	rig_errs_init(errs);
	f.skin = rig_skin_new(&f.def, errs);
	cr_assert_not_null(f.skin);
	f.fx.layers[f.mesh].binding_eval = f.skin;
	struct rig_resolver *r = rig_resolver_new(&f.fx.scene);
	double xy[12];
	cr_assert_eq(rig_resolver_evaluate(xy, r, f.mesh, 7.5, errs), 0);
	expect_bits_eq(xy, f.def.source, sizeof xy, "captured frame");
	rig_resolver_free(r);
	release_rig(&f);
	rig_errs_free(errs);
}

Test(resolver_evaluate, joints_in_another_tree_resolve_through_the_shot_root)
{
	struct rig_fx f;
	build_rig(&f);
	long other = add_layer(&f.fx, "other", RIG_NO_LAYER);
	set_channel(&f.fx, other, RIG_CH_POSITION_X, 20);
	set_channel(&f.fx, other, RIG_CH_POSITION_Y, 1);
	f.joint_layers[1] = other;
	struct rig_affine poses[2];
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_assert_eq(poses_at(poses, &f, 0, errs), 0);
	/* C is the shot root: pose = inverse(L_rig · L_mesh) · L_other. */
	struct rig_affine m = rig_affine_mul(rig_transform_matrix(&f.fx.layers[f.rig].statics),
					     rig_transform_matrix(&f.fx.layers[f.mesh].statics));
	struct rig_affine inv;
	cr_assert_eq(rig_affine_invert(&inv, &m), 0);
	expect_affine_eq(poses[1], rig_affine_mul(inv, translate(20, 1)), 1e-12);
	release_rig(&f);
	rig_errs_free(errs);
}

/* ---- constraints inside the resolver ---------------------------------- */

/* A two-bone arm under a rotated, offset root (so the world frame is not the
 * layers' frame), with an elbow offset off the upper arm's +x axis; target and
 * pole under the shot root. */
struct ik_fx {
	struct scene_fx s;
	struct rig_constraint c;
	long root, upper, lower, target, pole;
};

static void ik_fx_init(struct ik_fx *f, double tx, double ty)
{
	init_scene(&f->s);
	f->root = add_layer(&f->s, "root", RIG_NO_LAYER);
	set_channel(&f->s, f->root, RIG_CH_POSITION_X, 10);
	set_channel(&f->s, f->root, RIG_CH_ROTATION, 30);
	f->upper = add_layer(&f->s, "upper", f->root);
	set_channel(&f->s, f->upper, RIG_CH_POSITION_X, 1);
	f->lower = add_layer(&f->s, "lower", f->upper);
	set_channel(&f->s, f->lower, RIG_CH_POSITION_X, 3);
	set_channel(&f->s, f->lower, RIG_CH_POSITION_Y, 1); /* off the +x axis */
	f->target = add_layer(&f->s, "target", RIG_NO_LAYER);
	set_channel(&f->s, f->target, RIG_CH_POSITION_X, tx);
	set_channel(&f->s, f->target, RIG_CH_POSITION_Y, ty);
	f->pole = RIG_NO_LAYER;
	memset(&f->c, 0, sizeof f->c);
	rig_strlcpy(f->c.id, "arm", sizeof f->c.id);
	f->c.n_chain = 2;
	f->c.chain[0] = f->upper;
	f->c.chain[1] = f->lower;
	rig_strlcpy(f->c.chain_ids[0], "upper", sizeof f->c.chain_ids[0]);
	rig_strlcpy(f->c.chain_ids[1], "lower", sizeof f->c.chain_ids[1]);
	f->c.target = f->target;
	f->c.pole = RIG_NO_LAYER;
	rig_strlcpy(f->c.target_id, "target", sizeof f->c.target_id);
	f->c.bend = 1;
	f->c.tip_length = 2;
	f->c.statics[RIG_CC_MIX] = 1;
	f->s.scene.constraints = &f->c;
	f->s.scene.n_constraints = 1;
}

static void effector(double *x, double *y, struct rig_resolver *r, const struct ik_fx *f,
		     double frame)
{
	struct rig_affine w = rig_resolver_path(r, RIG_NO_LAYER, f->lower, frame);
	rig_affine_apply(x, y, &w, 2, 0);
}

Test(resolver_ik, two_bone_chain_reaches_a_reachable_target_exactly)
{
	struct ik_fx f;
	ik_fx_init(&f, 12, 4);
	struct rig_resolver *r = rig_resolver_new(&f.s.scene);
	double x, y;
	effector(&x, &y, r, &f, 0);
	cr_expect(fabs(x - 12) < 1e-9 && fabs(y - 4) < 1e-9, "effector (%.17g, %.17g)", x, y);
	/* bone lengths are the FK ones: |upper→lower| = √10, tip 2 */
	double ux, uy, lx, ly;
	struct rig_affine wu = rig_resolver_path(r, RIG_NO_LAYER, f.upper, 0);
	struct rig_affine wl = rig_resolver_path(r, RIG_NO_LAYER, f.lower, 0);
	rig_affine_apply(&ux, &uy, &wu, 0, 0);
	rig_affine_apply(&lx, &ly, &wl, 0, 0);
	cr_expect(fabs(hypot(lx - ux, ly - uy) - sqrt(10)) < 1e-12);
	cr_expect(fabs(hypot(x - lx, y - ly) - 2) < 1e-12);
	rig_resolver_free(r);
}

Test(resolver_ik, mix_zero_leaves_forward_kinematics)
{
	struct ik_fx f;
	ik_fx_init(&f, 12, 4);
	f.c.statics[RIG_CC_MIX] = 0;
	struct rig_resolver *r = rig_resolver_new(&f.s.scene);
	struct rig_affine got = rig_resolver_path(r, RIG_NO_LAYER, f.lower, 0);
	f.s.scene.n_constraints = 0;
	struct rig_resolver *fk = rig_resolver_new(&f.s.scene);
	expect_affine_eq(got, rig_resolver_path(fk, RIG_NO_LAYER, f.lower, 0), 0);
	rig_resolver_free(r);
	rig_resolver_free(fk);
}

Test(resolver_ik, an_unusable_constraint_is_skipped)
{
	struct ik_fx f;
	ik_fx_init(&f, 12, 4);
	f.c.target = f.lower; /* the chain would chase its own goal */
	struct rig_resolver *r = rig_resolver_new(&f.s.scene);
	struct rig_affine got = rig_resolver_path(r, RIG_NO_LAYER, f.lower, 0);
	f.s.scene.n_constraints = 0;
	struct rig_resolver *fk = rig_resolver_new(&f.s.scene);
	expect_affine_eq(got, rig_resolver_path(fk, RIG_NO_LAYER, f.lower, 0), 0);
	rig_resolver_free(r);
	rig_resolver_free(fk);
}

Test(resolver_ik, aim_with_stretch_scales_the_tip_along_its_axis)
{
	struct ik_fx f;
	ik_fx_init(&f, 10, 20);
	f.c.n_chain = 1;
	f.c.chain[0] = f.lower;
	f.c.stretch = true;
	struct rig_resolver *r = rig_resolver_new(&f.s.scene);
	double x, y;
	effector(&x, &y, r, &f, 3);
	cr_expect(fabs(x - 10) < 1e-9 && fabs(y - 20) < 1e-9, "effector (%.17g, %.17g)", x, y);
	rig_resolver_free(r);
}

Test(resolver_ik, results_do_not_depend_on_what_was_asked_first)
{
	struct ik_fx f;
	ik_fx_init(&f, 11, 3);
	struct rig_resolver *a = rig_resolver_new(&f.s.scene);
	struct rig_resolver *b = rig_resolver_new(&f.s.scene);
	(void)rig_resolver_local(b, f.root, 1);
	(void)rig_resolver_path(b, RIG_NO_LAYER, f.target, 2);
	struct rig_affine pa = rig_resolver_path(a, RIG_NO_LAYER, f.lower, 2);
	struct rig_affine pb = rig_resolver_path(b, RIG_NO_LAYER, f.lower, 2);
	cr_expect(memcmp(&pa, &pb, sizeof pa) == 0);
	rig_resolver_free(a);
	rig_resolver_free(b);
}

/* ---- the write-back under any transform (issue 16 items 3 and 4) ------- */

/* A chain of n layers under "base" (under "top"), each with its own offset,
 * rotation and scale; the expectations below are computed here from FK poses
 * (a resolver without constraints) and plane geometry, never from ik.c. */
struct wb_fx {
	struct scene_fx s;
	struct rig_constraint c;
	long top, base, chain[5], target, pole;
};

static void wb_fx_init(struct wb_fx *f, size_t n, const double (*offsets)[2], double tx, double ty)
{
	init_scene(&f->s);
	f->top = add_layer(&f->s, "top", RIG_NO_LAYER);
	set_channel(&f->s, f->top, RIG_CH_POSITION_X, 10);
	set_channel(&f->s, f->top, RIG_CH_ROTATION, 30);
	f->base = add_layer(&f->s, "base", f->top);
	set_channel(&f->s, f->base, RIG_CH_POSITION_Y, 2);
	memset(&f->c, 0, sizeof f->c);
	rig_strlcpy(f->c.id, "ik", sizeof f->c.id);
	long parent = f->base;
	for (size_t i = 0; i < n; i++) {
		char id[8];
		snprintf(id, sizeof id, "b%zu", i);
		f->chain[i] = add_layer(&f->s, id, parent);
		set_channel(&f->s, f->chain[i], RIG_CH_POSITION_X, offsets[i][0]);
		set_channel(&f->s, f->chain[i], RIG_CH_POSITION_Y, offsets[i][1]);
		set_channel(&f->s, f->chain[i], RIG_CH_ROTATION, 20.0 - 35.0 * (double)i);
		f->c.chain[i] = f->chain[i];
		rig_strlcpy(f->c.chain_ids[i], id, sizeof f->c.chain_ids[i]);
		parent = f->chain[i];
	}
	f->target = add_layer(&f->s, "target", RIG_NO_LAYER);
	set_channel(&f->s, f->target, RIG_CH_POSITION_X, tx);
	set_channel(&f->s, f->target, RIG_CH_POSITION_Y, ty);
	f->pole = RIG_NO_LAYER;
	f->c.n_chain = n;
	f->c.target = f->target;
	f->c.pole = RIG_NO_LAYER;
	rig_strlcpy(f->c.target_id, "target", sizeof f->c.target_id);
	f->c.bend = 1;
	f->c.tip_length = 1.5;
	f->c.statics[RIG_CC_MIX] = 1;
	f->s.scene.constraints = &f->c;
	f->s.scene.n_constraints = 1;
}

/* The n + 1 world points of the chain as r poses it: origins, then the tip. */
static void wb_points(struct rig_ik_vec *p, struct rig_resolver *r, const struct wb_fx *f)
{
	size_t n = f->c.n_chain;
	for (size_t i = 0; i < n; i++) {
		struct rig_affine w = rig_resolver_path(r, RIG_NO_LAYER, f->chain[i], 0);
		rig_affine_apply(&p[i].x, &p[i].y, &w, 0, 0);
		if (i + 1 == n)
			rig_affine_apply(&p[n].x, &p[n].y, &w, f->c.tip_length, 0);
	}
}

/* FK points: the same scene without its constraint. */
static void wb_fk_points(struct rig_ik_vec *p, struct wb_fx *f)
{
	f->s.scene.n_constraints = 0;
	struct rig_resolver *fk = rig_resolver_new(&f->s.scene);
	wb_points(p, fk, f);
	rig_resolver_free(fk);
	f->s.scene.n_constraints = 1;
}

static double vdist(struct rig_ik_vec a, struct rig_ik_vec b)
{
	return hypot(a.x - b.x, a.y - b.y);
}

/* The inverse of the 2×2 linear part of m applied to v (the test's own). */
static struct rig_ik_vec unmap(const struct rig_affine *m, struct rig_ik_vec v)
{
	double a = m->m[0], b = m->m[1], c = m->m[2], d = m->m[3], det = a * d - b * c;
	return (struct rig_ik_vec){(d * v.x - c * v.y) / det, (a * v.y - b * v.x) / det};
}

/* Bones along +y, oblique and backwards in their layers: none on +x. */
static const double off_axis[][2] = {{1, 0}, {0, 3}, {-1, 2}, {0.5, -2}, {2, 2}};

static void expect_straight_stretch(size_t n)
{
	struct wb_fx f;
	wb_fx_init(&f, n, off_axis, 60, 40);
	f.c.stretch = true;
	struct rig_ik_vec fk[6], got[6];
	wb_fk_points(fk, &f);
	struct rig_resolver *r = rig_resolver_new(&f.s.scene);
	wb_points(got, r, &f);
	rig_resolver_free(r);
	/* straight at the target from the pinned root, every bone × d / L */
	struct rig_ik_vec t = {60, 40};
	double total = 0, d = vdist(fk[0], t);
	for (size_t i = 0; i < n; i++)
		total += vdist(fk[i], fk[i + 1]);
	cr_assert_gt(d, total, "the target must be out of reach");
	double ux = (t.x - fk[0].x) / d, uy = (t.y - fk[0].y) / d, along = 0;
	for (size_t i = 0; i <= n; i++) {
		struct rig_ik_vec want = {fk[0].x + ux * along * d / total,
					  fk[0].y + uy * along * d / total};
		cr_expect(vdist(got[i], want) < 1e-9,
			  "%zu bones, joint %zu: (%.17g, %.17g) want (%.17g, %.17g)", n, i,
			  got[i].x, got[i].y, want.x, want.y);
		if (i < n)
			along += vdist(fk[i], fk[i + 1]);
	}
}

Test(resolver_ik, stretch_reaches_exactly_whatever_the_bones_rest_directions)
{
	expect_straight_stretch(1);
	expect_straight_stretch(2);
	expect_straight_stretch(3);
	expect_straight_stretch(5);
}

/* top scales (2, 0.5) and base turns 50° under it: the chain's parent frame is
 * sheared. */
static void shear_above(struct wb_fx *f)
{
	set_channel(&f->s, f->top, RIG_CH_SCALE_X, 2);
	set_channel(&f->s, f->top, RIG_CH_SCALE_Y, 0.5);
	set_channel(&f->s, f->base, RIG_CH_ROTATION, 50);
}

Test(resolver_ik, two_bones_reach_exactly_under_a_sheared_non_uniform_ancestor)
{
	for (int mirror = 0; mirror < 2; mirror++) {
		struct wb_fx f;
		wb_fx_init(&f, 2, off_axis, 0, 0);
		shear_above(&f);
		if (mirror)
			set_channel(&f.s, f.top, RIG_CH_SCALE_Y, -0.5);
		struct rig_ik_vec fk[3], got[3];
		wb_fk_points(fk, &f);
		/* a reachable target: the FK tip pulled 30 % towards the root, turned */
		struct rig_ik_vec t = {fk[0].x + 0.7 * (fk[2].x - fk[0].x) - 0.4,
				       fk[0].y + 0.7 * (fk[2].y - fk[0].y) + 0.3};
		set_channel(&f.s, f.target, RIG_CH_POSITION_X, t.x);
		set_channel(&f.s, f.target, RIG_CH_POSITION_Y, t.y);
		for (int bend = -1; bend <= 1; bend += 2) {
			f.c.bend = bend;
			struct rig_resolver *r = rig_resolver_new(&f.s.scene);
			wb_points(got, r, &f);
			struct rig_affine parent = rig_resolver_path(r, RIG_NO_LAYER, f.base, 0);
			rig_resolver_free(r);
			cr_expect(vdist(got[2], t) < 1e-9, "mirror %d bend %d: tip misses by %.3g",
				  mirror, bend, vdist(got[2], t));
			cr_expect(vdist(got[0], fk[0]) < 1e-12, "root pinned");
			/* the bones turned rigidly in the parent's own space */
			for (size_t i = 0; i < 2; i++) {
				struct rig_ik_vec a =
					unmap(&parent, (struct rig_ik_vec){fk[i + 1].x - fk[i].x,
									   fk[i + 1].y - fk[i].y});
				struct rig_ik_vec b = unmap(
					&parent, (struct rig_ik_vec){got[i + 1].x - got[i].x,
								     got[i + 1].y - got[i].y});
				cr_expect(fabs(hypot(a.x, a.y) - hypot(b.x, b.y)) < 1e-9,
					  "mirror %d bone %zu length in the parent's space", mirror,
					  i);
			}
			/* bendPositive: the elbow clockwise of root→target in the world */
			double cross = (t.x - got[0].x) * (got[1].y - got[0].y) -
				       (t.y - got[0].y) * (got[1].x - got[0].x);
			cr_expect(bend > 0 ? cross < 0 : cross > 0, "mirror %d bend %d side",
				  mirror, bend);
		}
	}
}

Test(resolver_ik, fabrik_reaches_within_tolerance_under_a_sheared_ancestor)
{
	struct wb_fx f;
	wb_fx_init(&f, 4, off_axis, 0, 0);
	shear_above(&f);
	struct rig_ik_vec fk[5], got[5];
	wb_fk_points(fk, &f);
	struct rig_ik_vec t = {fk[0].x + 0.5 * (fk[4].x - fk[0].x) + 0.5,
			       fk[0].y + 0.5 * (fk[4].y - fk[0].y) - 0.5};
	set_channel(&f.s, f.target, RIG_CH_POSITION_X, t.x);
	set_channel(&f.s, f.target, RIG_CH_POSITION_Y, t.y);
	struct rig_resolver *r = rig_resolver_new(&f.s.scene);
	wb_points(got, r, &f);
	struct rig_affine p = rig_resolver_path(r, RIG_NO_LAYER, f.base, 0);
	rig_resolver_free(r);
	/* 0.25 in the parent's unit-area frame: at most 0.25 · σmax(P / √|det P|) */
	double det = fabs(p.m[0] * p.m[3] - p.m[1] * p.m[2]);
	double fro = (p.m[0] * p.m[0] + p.m[1] * p.m[1] + p.m[2] * p.m[2] + p.m[3] * p.m[3]) / det;
	double smax = sqrt((fro + sqrt(fro * fro - 4)) / 2);
	cr_expect_leq(vdist(got[4], t), 0.25 * smax + 1e-9, "miss %.3g, bound %.3g",
		      vdist(got[4], t), 0.25 * smax);
	for (size_t i = 0; i < 4; i++) {
		struct rig_ik_vec a = unmap(
			&p, (struct rig_ik_vec){fk[i + 1].x - fk[i].x, fk[i + 1].y - fk[i].y});
		struct rig_ik_vec b = unmap(
			&p, (struct rig_ik_vec){got[i + 1].x - got[i].x, got[i + 1].y - got[i].y});
		cr_expect(fabs(hypot(a.x, a.y) - hypot(b.x, b.y)) < 1e-9, "bone %zu", i);
	}
}

Test(resolver_ik, a_non_uniformly_scaled_chain_layer_keeps_the_bone_lengths)
{
	struct wb_fx f;
	wb_fx_init(&f, 3, off_axis, 0, 0);
	set_channel(&f.s, f.chain[0], RIG_CH_SCALE_Y, 2.5); /* b0 scales (1, 2.5) */
	set_channel(&f.s, f.chain[1], RIG_CH_SCALE_X, 0.6); /* b1 (0.6, 1) */
	struct rig_ik_vec fk[4], got[4];
	wb_fk_points(fk, &f);
	struct rig_ik_vec t = {fk[0].x + 0.6 * (fk[3].x - fk[0].x) + 1,
			       fk[0].y + 0.6 * (fk[3].y - fk[0].y) - 1};
	set_channel(&f.s, f.target, RIG_CH_POSITION_X, t.x);
	set_channel(&f.s, f.target, RIG_CH_POSITION_Y, t.y);
	struct rig_resolver *r = rig_resolver_new(&f.s.scene);
	wb_points(got, r, &f);
	rig_resolver_free(r);
	/* the top and base only rotate: world lengths are the solver's */
	for (size_t i = 0; i < 3; i++)
		cr_expect(fabs(vdist(got[i], got[i + 1]) - vdist(fk[i], fk[i + 1])) < 1e-9,
			  "bone %zu: %.17g, FK %.17g", i, vdist(got[i], got[i + 1]),
			  vdist(fk[i], fk[i + 1]));
	cr_expect_leq(vdist(got[3], t), 0.25, "FABRIK tolerance");
	/* two bones under a skewed root land exactly */
	wb_fx_init(&f, 2, off_axis, 0, 0);
	set_channel(&f.s, f.chain[0], RIG_CH_SCALE_Y, 2.5);
	wb_fk_points(fk, &f);
	/* mid-annulus, 40° off the FK reach */
	double l0 = vdist(fk[0], fk[1]), l1 = vdist(fk[1], fk[2]), reach = vdist(fk[0], fk[2]);
	double mid = (fabs(l0 - l1) + l0 + l1) / 2, c40 = cos(0.7), s40 = sin(0.7);
	double ux = (fk[2].x - fk[0].x) / reach, uy = (fk[2].y - fk[0].y) / reach;
	t = (struct rig_ik_vec){fk[0].x + mid * (c40 * ux - s40 * uy),
				fk[0].y + mid * (s40 * ux + c40 * uy)};
	set_channel(&f.s, f.target, RIG_CH_POSITION_X, t.x);
	set_channel(&f.s, f.target, RIG_CH_POSITION_Y, t.y);
	r = rig_resolver_new(&f.s.scene);
	wb_points(got, r, &f);
	rig_resolver_free(r);
	cr_expect(vdist(got[2], t) < 1e-9, "tip misses by %.3g", vdist(got[2], t));
	cr_expect(fabs(vdist(got[0], got[1]) - l0) < 1e-9);
	cr_expect(fabs(vdist(got[1], got[2]) - l1) < 1e-9);
}

Test(constraint_check, names_chain_target_and_cycle_violations)
{
	struct ik_fx f;
	ik_fx_init(&f, 12, 4);
	struct rig_errs *errs = rig_errs_new();
	cr_expect_eq(rig_constraints_check(&f.s.scene, errs), 0);
	f.c.chain[1] = f.root; /* root is not a child of upper */
	rig_strlcpy(f.c.chain_ids[1], "root", sizeof f.c.chain_ids[1]);
	cr_expect_eq(rig_constraints_check(&f.s.scene, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_IK_CHAIN);
	cr_expect_str_eq(errs->items[0].pointer, "/chain/1");
	cr_expect_str_eq(errs->items[0].layer_id, "root");
	rig_errs_free(errs);

	ik_fx_init(&f, 12, 4);
	errs = rig_errs_new();
	f.c.target = f.lower;
	rig_strlcpy(f.c.target_id, "lower", sizeof f.c.target_id);
	cr_expect_eq(rig_constraints_check(&f.s.scene, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_IK_TARGET);
	cr_expect_str_eq(errs->items[0].pointer, "/target");
	rig_errs_free(errs);

	/* two constraints whose targets sit under each other's chains */
	ik_fx_init(&f, 12, 4);
	struct rig_constraint pair[2] = {f.c, f.c};
	long other = add_layer(&f.s, "other", RIG_NO_LAYER);
	long other_tip = add_layer(&f.s, "otherTip", other);
	pair[0].target = other_tip;
	pair[1].n_chain = 1;
	pair[1].chain[0] = other;
	pair[1].target = f.lower;
	rig_strlcpy(pair[1].id, "leg", sizeof pair[1].id);
	f.s.scene.constraints = pair;
	f.s.scene.n_constraints = 2;
	errs = rig_errs_new();
	cr_expect_eq(rig_constraints_check(&f.s.scene, errs), -1);
	cr_expect_eq(errs->items[0].code, RIG_IK_CYCLE);
	rig_errs_free(errs);
}

Test(resolver_ik, a_mirroring_ancestor_still_reaches_the_target)
{
	struct ik_fx f;
	ik_fx_init(&f, 7, 2); /* 3.3 from the upper arm's origin (9.13, -0.5): reachable */
	set_channel(&f.s, f.root, RIG_CH_SCALE_X, -1); /* det < 0: turns flip sign */
	struct rig_resolver *r = rig_resolver_new(&f.s.scene);
	double x, y;
	effector(&x, &y, r, &f, 0);
	cr_expect(fabs(x - 7) < 1e-9 && fabs(y - 2) < 1e-9, "effector (%.17g, %.17g)", x, y);
	rig_resolver_free(r);
}
