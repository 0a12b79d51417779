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
 * The clock lives here only: rig_core never reads one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
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
	return 0;
}
