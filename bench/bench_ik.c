/* bench_ik: what IK constraints cost the resolver, single thread.
 *
 * The rig: 64 keyed joint layers in 8 chains of 8 (as bench_core's), plus 10
 * keyed target layers at the shot root. Constraints: 2 five-bone FABRIK chains
 * (links 1–5 of chains 0 and 1, order 0) and 8 two-bone chains (links 6–7 of
 * every chain, order 1, with a pole on the odd ones and softness on the even).
 * One "frame" is a new resolver, every joint's world matrix (P(root→joint))
 * at that frame, and the free: what a frame request costs before skinning.
 * The baseline is the same rig and frames without constraints, measured in the
 * same run. Each case runs FRAMES frames, five times; the table shows the
 * best run and the median.
 *
 * Follow chains (issue 27): one frame of a 12-link chain chasing a keyed
 * target is a new resolver, every link's world matrix and the free, at frames
 * 1, 1,000 and 10,000 after frameStart (the replay runs that many steps),
 * beside the same frame without the constraint and beside the bare steps
 * (rig_follow_step over as many states, the replay's floor), in the same run.
 * Walkers: a keyed body with 6 two-bone legs (IK) and a footstep constraint
 * placing their targets, at the same frames, beside the same rig's IK-only
 * frame (the walker removed) in the same run.
 *
 * The clock lives here only: rig_core never reads one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "core/follow.h"
#include "core/rig.h"

#define LATTICE 8
#define N_JOINTS (LATTICE * LATTICE)
#define N_TARGETS 10
#define N_LAYERS (1 + N_JOINTS + N_TARGETS)
#define FRAMES 20000
#define RUNS 5

struct ik_rig {
	struct rig_layer layers[N_LAYERS];
	struct rig_key keys[N_LAYERS][2];
	struct rig_constraint constraints[N_TARGETS];
	struct rig_scene scene;
};

static long joint_layer(size_t i, size_t k)
{
	return 1 + (long)(i * LATTICE + k);
}

static void keyed(struct ik_rig *b, long layer, enum rig_channel ch, double from, double to)
{
	struct rig_key *key = b->keys[layer];
	key[0] = (struct rig_key){0, from, RIG_INTERP_BEZIER, {0.42, 0, 0.58, 1}};
	key[1] = (struct rig_key){100, to, RIG_INTERP_LINEAR, {0}};
	b->layers[layer].keys[ch] = (struct rig_keys){key, 2};
}

static void add_constraint(struct ik_rig *b, size_t at, size_t chain, size_t first, size_t n,
			   long target, long long order)
{
	struct rig_constraint *c = &b->constraints[at];
	memset(c, 0, sizeof *c);
	snprintf(c->id, sizeof c->id, "ik%zu", at);
	c->n_chain = n;
	for (size_t k = 0; k < n; k++) {
		c->chain[k] = joint_layer(chain, first + k);
		rig_strlcpy(c->chain_ids[k], b->layers[c->chain[k]].id, sizeof c->chain_ids[k]);
	}
	c->target = target;
	rig_strlcpy(c->target_id, b->layers[target].id, sizeof c->target_id);
	c->pole = RIG_NO_LAYER;
	c->bend = 1;
	c->tip_length = 10;
	c->statics[RIG_CC_MIX] = 1;
	c->order = order;
}

static void build(struct ik_rig *b)
{
	const double spacing = 10;
	bench_init_layer(&b->layers[0], "rig", RIG_NO_LAYER);
	b->layers[0].statics.ch[RIG_CH_ROTATION] = 15;
	for (size_t i = 0; i < LATTICE; i++) {
		for (size_t k = 0; k < LATTICE; k++) {
			long id = joint_layer(i, k);
			char name[32];
			snprintf(name, sizeof name, "c%zu_%zu", i, k);
			bench_init_layer(&b->layers[id], name, k == 0 ? 0 : joint_layer(i, k - 1));
			b->layers[id].statics.ch[RIG_CH_POSITION_X] =
				k == 0 ? (double)i * spacing : spacing;
			keyed(b, id, RIG_CH_ROTATION, 0, (i + k) % 2 ? 6 : -6);
		}
	}
	for (size_t t = 0; t < N_TARGETS; t++) {
		long id = 1 + N_JOINTS + (long)t;
		char name[32];
		snprintf(name, sizeof name, "target%zu", t);
		bench_init_layer(&b->layers[id], name, RIG_NO_LAYER);
		b->layers[id].statics.ch[RIG_CH_POSITION_Y] = 20 + 5 * (double)t;
		keyed(b, id, RIG_CH_POSITION_X, 30 + 3 * (double)t, 60 - 2 * (double)t);
	}
	size_t n = 0;
	for (size_t i = 0; i < 2; i++, n++) /* the spines first */
		add_constraint(b, n, i, 1, 5, 1 + N_JOINTS + (long)n, 0);
	for (size_t i = 0; i < LATTICE; i++) {
		add_constraint(b, n, i, 6, 2, 1 + N_JOINTS + (long)n, 1);
		if (i % 2)
			b->constraints[n].pole = 1 + N_JOINTS; /* target0 as the pole */
		else
			b->constraints[n].statics[RIG_CC_SOFTNESS] = 2;
		n++;
	}
	b->scene = (struct rig_scene){.layers = b->layers,
				      .n_layers = N_LAYERS,
				      .constraints = b->constraints,
				      .n_constraints = N_TARGETS};
}

/* Runs FRAMES frames; returns seconds, accumulating a checksum so the work stays. */
static double run(const struct rig_scene *scene, double *sink)
{
	double t0 = bench_now_seconds();
	for (int f = 0; f < FRAMES; f++) {
		double frame = (double)(f % 1000) * 0.1;
		struct rig_resolver *r = rig_resolver_new(scene);
		if (!r) {
			fprintf(stderr, "bench_ik: out of memory\n");
			exit(1);
		}
		for (size_t i = 0; i < LATTICE; i++)
			for (size_t k = 0; k < LATTICE; k++)
				*sink +=
					rig_resolver_path(r, RIG_NO_LAYER, joint_layer(i, k), frame)
						.m[4];
		rig_resolver_free(r);
	}
	return bench_now_seconds() - t0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void report(const char *name, const struct rig_scene *scene, double *best, double *sink)
{
	double t[RUNS];
	for (int k = 0; k < RUNS; k++)
		t[k] = run(scene, sink);
	qsort(t, RUNS, sizeof t[0], by_value);
	*best = t[0] / FRAMES * 1e6;
	printf("%-34s %10.2f us/frame (median %.2f)  %10.0f frames/s\n", name, *best,
	       t[RUNS / 2] / FRAMES * 1e6, FRAMES / t[0]);
}

/* ---- follow chains ---- */

#define FOLLOW_LINKS 12
#define FOLLOW_RUNS 7

struct follow_rig {
	struct rig_layer layers[FOLLOW_LINKS + 2];
	struct rig_key keys[2][2];
	struct rig_constraint c;
	struct rig_scene scene;
};

/* A turned root, 12 links 4 apart, and a target keyed on x and y under the
 * shot root. */
static void build_follow(struct follow_rig *b)
{
	memset(b, 0, sizeof *b);
	for (size_t i = 0; i < FOLLOW_LINKS + 2; i++) {
		struct rig_layer *l = &b->layers[i];
		snprintf(l->id, sizeof l->id, "f%zu", i);
		l->kind = RIG_LAYER_GROUP;
		l->parent = i == 0 || i == FOLLOW_LINKS + 1 ? RIG_NO_LAYER : (long)i - 1;
		l->statics = rig_transform_default();
		l->statics.ch[RIG_CH_POSITION_X] = i > 1 && i <= FOLLOW_LINKS ? 4 : 0;
	}
	b->layers[0].statics.ch[RIG_CH_ROTATION] = 15;
	long target = FOLLOW_LINKS + 1;
	for (int ch = 0; ch < 2; ch++) {
		b->keys[ch][0] = (struct rig_key){0, 0, RIG_INTERP_BEZIER, {0.42, 0, 0.58, 1}};
		b->keys[ch][1] = (struct rig_key){97 + 13.0 * ch, 60, RIG_INTERP_LINEAR, {0}};
		b->layers[target].keys[RIG_CH_POSITION_X + ch] = (struct rig_keys){b->keys[ch], 2};
	}
	struct rig_constraint *c = &b->c;
	rig_strlcpy(c->id, "tail", sizeof c->id);
	c->kind = RIG_CONSTRAINT_CHAIN;
	c->n_chain = FOLLOW_LINKS;
	for (size_t k = 0; k < FOLLOW_LINKS; k++) {
		c->chain[k] = (long)k + 1;
		rig_strlcpy(c->chain_ids[k], b->layers[k + 1].id, sizeof c->chain_ids[k]);
	}
	c->target = target;
	c->pole = RIG_NO_LAYER;
	rig_strlcpy(c->target_id, b->layers[target].id, sizeof c->target_id);
	c->statics[RIG_CC_MIX] = 1;
	for (size_t k = 0; k + 1 < FOLLOW_LINKS; k++)
		c->follow.lengths[k] = 4;
	c->follow.substeps = 1;
	c->follow.smoothing = 0.2;
	b->scene = (struct rig_scene){.layers = b->layers,
				      .n_layers = FOLLOW_LINKS + 2,
				      .constraints = c,
				      .n_constraints = 1};
}

/* One frame request's resolver work at frame; returns seconds. */
static double follow_frame(const struct rig_scene *scene, double frame, double *sink)
{
	double t0 = bench_now_seconds();
	struct rig_resolver *r = rig_resolver_new(scene);
	if (!r) {
		fprintf(stderr, "bench_ik: out of memory\n");
		exit(1);
	}
	for (long k = 1; k <= FOLLOW_LINKS; k++)
		*sink += rig_resolver_path(r, RIG_NO_LAYER, k, frame).m[4];
	rig_resolver_free(r);
	return bench_now_seconds() - t0;
}

/* steps bare follow steps towards a moving point; returns seconds. */
static double follow_steps(const struct rig_constraint *c, long steps, double *sink)
{
	struct rig_ik_vec s[2][FOLLOW_LINKS] = {{{0, 0}}};
	struct rig_follow_params p = {
		.n = FOLLOW_LINKS, .lengths = c->follow.lengths, .smoothing = c->follow.smoothing};
	double t0 = bench_now_seconds();
	for (long j = 0; j <= steps; j++)
		rig_follow_step(s[(j + 1) & 1], s[j & 1],
				(struct rig_ik_vec){(double)(j % 97), (double)(j % 89)}, &p);
	double t = bench_now_seconds() - t0;
	*sink += s[0][FOLLOW_LINKS - 1].x;
	return t;
}

static double best_of(double *t)
{
	qsort(t, FOLLOW_RUNS, sizeof t[0], by_value);
	return t[0];
}

static void report_follow(double *sink)
{
	static struct follow_rig b;
	build_follow(&b);
	struct rig_scene plain = b.scene;
	plain.n_constraints = 0;
	printf("\nfollow chain, 12 links, one frame request's resolver (best of %d)\n",
	       FOLLOW_RUNS);
	printf("%-12s %14s %14s %14s %10s\n", "frame", "no chain", "bare steps", "with chain",
	       "per step");
	static const long frames[] = {1, 1000, 10000};
	for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
		double base[FOLLOW_RUNS], bare[FOLLOW_RUNS], with[FOLLOW_RUNS];
		for (int k = 0; k < FOLLOW_RUNS; k++) {
			base[k] = follow_frame(&plain, (double)frames[i], sink);
			bare[k] = follow_steps(&b.c, frames[i], sink);
			with[k] = follow_frame(&b.scene, (double)frames[i], sink);
		}
		double w = best_of(with);
		printf("%-12ld %11.1f us %11.1f us %11.1f us %7.3f us\n", frames[i],
		       best_of(base) * 1e6, best_of(bare) * 1e6, w * 1e6,
		       w / (double)(frames[i] + 1) * 1e6);
	}
}

/* ---- walkers ---- */

#define LEGS 6

struct walker_rig {
	struct rig_layer layers[1 + 3 * LEGS];
	struct rig_key keys[2];
	struct rig_constraint c[LEGS + 1];
	struct rig_scene scene;
};

/* body (keyed along x); per leg a hip under it, a knee under the hip, a goal
 * at the shot root; 6 IK legs and one walker in two tripod groups. */
static void build_walker(struct walker_rig *b)
{
	memset(b, 0, sizeof *b);
	struct rig_layer *l = b->layers;
	for (size_t i = 0; i < 1 + 3 * LEGS; i++) {
		snprintf(l[i].id, sizeof l[i].id, "w%zu", i);
		l[i].kind = RIG_LAYER_GROUP;
		l[i].statics = rig_transform_default();
		l[i].parent = RIG_NO_LAYER;
	}
	b->keys[0] = (struct rig_key){0, 0, RIG_INTERP_LINEAR, {0}};
	b->keys[1] = (struct rig_key){100, 300, RIG_INTERP_LINEAR, {0}};
	l[0].keys[RIG_CH_POSITION_X] = (struct rig_keys){b->keys, 2};
	struct rig_constraint *w = &b->c[LEGS];
	for (size_t k = 0; k < LEGS; k++) {
		long hip = 1 + 3 * (long)k, knee = hip + 1, goal = hip + 2;
		double side = k % 2 ? 1 : -1, along = 20.0 * (double)(k / 2) - 20;
		l[hip].parent = 0;
		l[hip].statics.ch[RIG_CH_POSITION_X] = along;
		l[hip].statics.ch[RIG_CH_POSITION_Y] = 6 * side;
		l[knee].parent = hip;
		l[knee].statics.ch[RIG_CH_POSITION_Y] = 15 * side;
		struct rig_constraint *c = &b->c[k];
		snprintf(c->id, sizeof c->id, "leg%zu", k);
		c->kind = RIG_CONSTRAINT_IK;
		c->n_chain = 2;
		c->chain[0] = hip, c->chain[1] = knee;
		rig_strlcpy(c->chain_ids[0], l[hip].id, sizeof c->chain_ids[0]);
		rig_strlcpy(c->chain_ids[1], l[knee].id, sizeof c->chain_ids[1]);
		c->target = goal, c->pole = RIG_NO_LAYER;
		rig_strlcpy(c->target_id, l[goal].id, sizeof c->target_id);
		c->bend = 1;
		c->tip_length = 15;
		c->statics[RIG_CC_MIX] = 1;
		rig_strlcpy(w->walk.ik_ids[k], c->id, sizeof w->walk.ik_ids[k]);
		w->walk.ik[k] = (long)k;
		w->walk.rest[k][0] = along;
		w->walk.rest[k][1] = 25 * side;
		w->walk.group[k] = (int)((k + k / 2) % 2); /* tripods: 0, 3, 4 and 1, 2, 5 */
	}
	rig_strlcpy(w->id, "walk", sizeof w->id);
	w->kind = RIG_CONSTRAINT_FOOTSTEP;
	w->target = 0, w->pole = RIG_NO_LAYER;
	rig_strlcpy(w->target_id, l[0].id, sizeof w->target_id);
	w->statics[RIG_CC_MIX] = 1;
	w->walk.n_feet = LEGS;
	w->walk.threshold = 12;
	w->walk.step_frames = 5;
	w->walk.height = 6;
	b->scene = (struct rig_scene){.layers = b->layers,
				      .n_layers = 1 + 3 * LEGS,
				      .constraints = b->c,
				      .n_constraints = LEGS + 1};
}

/* One frame request's resolver work on the walker rig; returns seconds. */
static double walker_frame(const struct rig_scene *scene, double frame, double *sink)
{
	double t0 = bench_now_seconds();
	struct rig_resolver *r = rig_resolver_new(scene);
	if (!r) {
		fprintf(stderr, "bench_ik: out of memory\n");
		exit(1);
	}
	for (long k = 0; k < (long)scene->n_layers; k++)
		*sink += rig_resolver_path(r, RIG_NO_LAYER, k, frame).m[4];
	rig_resolver_free(r);
	return bench_now_seconds() - t0;
}

static void report_walker(double *sink)
{
	static struct walker_rig b;
	build_walker(&b);
	struct rig_errs *errs = rig_errs_new();
	if (!errs || rig_constraints_check(&b.scene, errs) != 0) {
		fprintf(stderr, "bench_ik: the walker does not validate: %s\n",
			errs && errs->count ? errs->items[0].detail : "?");
		exit(1);
	}
	rig_errs_free(errs);
	struct rig_scene ik_only = b.scene;
	ik_only.n_constraints = LEGS;
	printf("\nwalker, 6 two-bone legs, one frame request's resolver (best of %d)\n",
	       FOLLOW_RUNS);
	printf("%-12s %14s %14s %10s\n", "frame", "IK only", "with walker", "per step");
	static const long frames[] = {1, 1000, 10000};
	for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
		double ik[FOLLOW_RUNS], with[FOLLOW_RUNS];
		for (int k = 0; k < FOLLOW_RUNS; k++) {
			ik[k] = walker_frame(&ik_only, (double)frames[i], sink);
			with[k] = walker_frame(&b.scene, (double)frames[i], sink);
		}
		double w = best_of(with);
		printf("%-12ld %11.1f us %11.1f us %7.3f us\n", frames[i], best_of(ik) * 1e6,
		       w * 1e6, w / (double)(frames[i] + 1) * 1e6);
	}
}

int main(void)
{
	static struct ik_rig b;
	build(&b);
	struct rig_errs *errs = rig_errs_new();
	if (!errs || rig_constraints_check(&b.scene, errs) != 0) {
		fprintf(stderr, "bench_ik: the constraints do not validate\n");
		return 1;
	}
	rig_errs_free(errs);
	double sink = 0, base, with;
	struct rig_scene plain = b.scene;
	plain.n_constraints = 0;
	printf("resolver frame, 64 joints (%d frames per run, best of %d)\n", FRAMES, RUNS);
	report("no constraints (baseline)", &plain, &base, &sink);
	report("8 two-bone + 2 five-bone IK", &b.scene, &with, &sink);
	printf("IK cost: %.2f us/frame (%.2fx the baseline)   [checksum %g]\n", with - base,
	       with / base, sink);
	report_follow(&sink);
	report_walker(&sink);
	printf("[checksum %g]\n", sink);
	return 0;
}
