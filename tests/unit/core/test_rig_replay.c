/* Unit tests of core/rig_replay.c through the resolver: a follow chain's
 * points are the fixed-step replay from frameStart (checked against
 * rig_follow_step driven here), a replay continued frame after frame gives
 * the same bits as a fresh one, going backwards starts over to the same bits,
 * frames before frameStart are state 0, and a frame past maxReplaySteps is
 * refused with REPLAY_LIMIT naming the constraint. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/follow.h"
#include "core/rig.h"
#include "core/rig_limits.h"

#define N_LINKS 4

/* root (turned, offset) → a → b → c → d, 10 apart along +x; a target keyed
 * along x from 0 to 40 over frames 0..20 at y 5, under the shot root. */
struct replay_fx {
	struct rig_layer layers[N_LINKS + 2];
	struct rig_key target_keys[2];
	struct rig_constraint c;
	struct rig_scene scene;
	long target;
};

static long add_layer(struct replay_fx *f, const char *id, long parent, double x)
{
	long i = (long)f->scene.n_layers++;
	struct rig_layer *l = &f->layers[i];
	memset(l, 0, sizeof *l);
	rig_strlcpy(l->id, id, sizeof l->id);
	l->kind = RIG_LAYER_GROUP;
	l->parent = parent;
	l->statics = rig_transform_default();
	l->statics.ch[RIG_CH_POSITION_X] = x;
	return i;
}

static void fx_init(struct replay_fx *f, double frame_start)
{
	memset(f, 0, sizeof *f);
	f->scene.layers = f->layers;
	f->scene.frame_start = frame_start;
	long root = add_layer(f, "root", RIG_NO_LAYER, 3);
	f->layers[root].statics.ch[RIG_CH_ROTATION] = 20;
	static const char *const ids[N_LINKS] = {"a", "b", "c", "d"};
	long parent = root;
	f->c.n_chain = N_LINKS;
	for (size_t i = 0; i < N_LINKS; i++) {
		parent = add_layer(f, ids[i], parent, i ? 10 : 0);
		f->c.chain[i] = parent;
		rig_strlcpy(f->c.chain_ids[i], ids[i], sizeof f->c.chain_ids[i]);
	}
	f->target = add_layer(f, "goal", RIG_NO_LAYER, 0);
	f->layers[f->target].statics.ch[RIG_CH_POSITION_Y] = 5;
	f->target_keys[0] = (struct rig_key){.frame = 0, .value = 0, .interp = RIG_INTERP_LINEAR};
	f->target_keys[1] = (struct rig_key){.frame = 20, .value = 40, .interp = RIG_INTERP_LINEAR};
	f->layers[f->target].keys[RIG_CH_POSITION_X] = (struct rig_keys){f->target_keys, 2};
	rig_strlcpy(f->c.id, "tail", sizeof f->c.id);
	rig_strlcpy(f->c.target_id, "goal", sizeof f->c.target_id);
	f->c.kind = RIG_CONSTRAINT_CHAIN;
	f->c.target = f->target;
	f->c.pole = RIG_NO_LAYER;
	f->c.statics[RIG_CC_MIX] = 1;
	for (size_t i = 0; i + 1 < N_LINKS; i++)
		f->c.follow.lengths[i] = 8;
	f->c.follow.substeps = 1;
	f->scene.constraints = &f->c;
	f->scene.n_constraints = 1;
}

static void points_at(double out[2 * N_LINKS], struct rig_resolver *r, double frame)
{
	cr_assert_eq(rig_resolver_constraint_points(out, r, 0, frame), N_LINKS, "frame %g", frame);
}

/* The chain's points at a whole frame, replayed here with rig_follow_step. */
static void replay_here(struct rig_ik_vec out[N_LINKS], const struct replay_fx *f, int frame)
{
	struct rig_scene fk = f->scene;
	fk.n_constraints = 0;
	struct rig_resolver *r = rig_resolver_new(&fk);
	struct rig_ik_vec prev[N_LINKS];
	for (size_t i = 0; i < N_LINKS; i++) {
		struct rig_affine w = rig_resolver_path(r, RIG_NO_LAYER, f->c.chain[i], 0);
		prev[i] = (struct rig_ik_vec){w.m[4], w.m[5]};
	}
	rig_resolver_free(r);
	struct rig_follow_params p = {.n = N_LINKS, .lengths = f->c.follow.lengths};
	for (int j = 0; j <= frame; j++) {
		double x = j >= 20 ? 40 : 2.0 * j;
		rig_follow_step(out, prev, (struct rig_ik_vec){x, 5}, &p);
		memcpy(prev, out, sizeof prev);
	}
}

Test(rig_replay, points_are_the_fixed_step_replay_from_frame_start)
{
	struct replay_fx f;
	fx_init(&f, 0);
	struct rig_resolver *r = rig_resolver_new(&f.scene);
	for (int frame = 0; frame <= 24; frame += 3) {
		double got[2 * N_LINKS];
		struct rig_ik_vec want[N_LINKS];
		points_at(got, r, frame);
		replay_here(want, &f, frame);
		for (size_t i = 0; i < N_LINKS; i++)
			cr_expect(fabs(got[2 * i] - want[i].x) < 1e-12 &&
					  fabs(got[2 * i + 1] - want[i].y) < 1e-12,
				  "frame %d point %zu: (%.17g, %.17g) want (%.17g, %.17g)", frame,
				  i, got[2 * i], got[2 * i + 1], want[i].x, want[i].y);
	}
	rig_resolver_free(r);
}

Test(rig_replay, continuing_forward_and_starting_over_give_a_fresh_replays_bits)
{
	struct replay_fx f;
	fx_init(&f, 0);
	f.c.follow.smoothing = 0.3;
	f.c.follow.substeps = 3;
	struct rig_resolver *walk = rig_resolver_new(&f.scene);
	static const double frames[] = {0, 1, 1.5, 2, 7.25, 7.5, 12, 30, 5, 5.5, 31};
	for (size_t k = 0; k < sizeof frames / sizeof frames[0]; k++) {
		double got[2 * N_LINKS], want[2 * N_LINKS];
		points_at(got, walk, frames[k]);
		struct rig_resolver *fresh = rig_resolver_new(&f.scene);
		points_at(want, fresh, frames[k]);
		rig_resolver_free(fresh);
		cr_expect_eq(memcmp(got, want, sizeof got), 0, "frame %g differs", frames[k]);
	}
	rig_resolver_free(walk);
}

Test(rig_replay, frames_before_frame_start_are_the_first_step)
{
	struct replay_fx f;
	fx_init(&f, 4);
	struct rig_resolver *r = rig_resolver_new(&f.scene);
	double first[2 * N_LINKS], got[2 * N_LINKS];
	points_at(first, r, 4);
	for (double frame = 3.5; frame > -10; frame -= 3.25) {
		points_at(got, r, frame);
		for (size_t i = 0; i < 2 * N_LINKS; i++)
			cr_expect(fabs(got[i] - first[i]) < 1e-12, "frame %g", frame);
	}
	/* the head is on the target where it is at frameStart (x = 8) */
	cr_expect(fabs(first[0] - 8) < 1e-12 && fabs(first[1] - 5) < 1e-12);
	rig_resolver_free(r);
}

Test(rig_replay, a_frame_past_the_limit_is_refused_naming_the_constraint)
{
	struct replay_fx f;
	fx_init(&f, -10);
	f.c.follow.substeps = 2;
	struct rig_resolver *r = rig_resolver_new(&f.scene);
	struct rig_errs *errs = rig_errs_new();
	double edge = -10 + RIG_MAX_REPLAY_STEPS / 2.0;
	cr_expect_eq(rig_resolver_frame_ok(r, edge, errs), 0);
	cr_expect_eq(errs->count, 0);
	double got[2 * N_LINKS];
	points_at(got, r, edge);
	cr_expect_eq(rig_resolver_frame_ok(r, edge + 0.25, errs), -1);
	cr_assert_eq(errs->count, 1);
	cr_expect_eq(errs->items[0].code, RIG_REPLAY_LIMIT);
	cr_expect(errs->items[0].has_frame && errs->items[0].frame == edge + 0.25);
	cr_expect(strstr(errs->items[0].detail, "'tail'") != NULL, "%s", errs->items[0].detail);
	cr_expect_eq(rig_resolver_constraint_points(got, r, 0, edge + 0.25), 0);
	/* and the edge itself is served again */
	cr_expect_eq(rig_resolver_frame_ok(r, edge, errs), 0);
	rig_errs_free(errs);
	rig_resolver_free(r);
}
