/* bench_core: throughput of rig_core's skinning and resolver, single thread.
 *
 * Cases (f64 source, 4 influences per vertex, 64 joints):
 *   memory pass     reads the bytes the kernel reads (source, weights, one-byte
 *                   joint indices) and writes the output: the baseline, measured
 *                   in the same run (the faster of a plain and a prefetching loop)
 *   skin kernel     rig_skin_deform: blend matrices, then the vertex loop, on the
 *                   path this CPU runs; then the same on each path of core/isa.h
 *                   it supports (every path gives the same bits)
 *   checks alone    rig_mesh_check_run on the kernel's output: the deformed-mesh
 *                   checks the evaluator runs (finite, winding, collapse); then
 *                   the same with every triangle's corners rotated (t mod 3
 *                   places), which leaves no run of contiguous corners: what a
 *                   mesh that is not a grid costs (core/mesh_check.h)
 *   skin evaluate   rig_skin_evaluate: kernel + the deformed-mesh checks; then
 *                   the same on a skin of the rotated mesh
 *   dqs kernel      the same skin with method dqs (core/skin_dqs.c, one portable
 *                   loop for every path): rig_skin_deform, then rig_skin_evaluate
 *   resolver frame  a new resolver, 64 keyed joint layers (8 chains of 8) and
 *                   rig_resolver_evaluate of the mesh layer, then free: what one
 *                   frame request costs in the core
 * at 10,000 and 1,000,000 vertices. The cases take turns: each of ROUNDS rounds
 * runs every case for a fixed number of iterations, so a neighbour's load on
 * this shared machine weighs on all of them alike. The table shows each case's
 * best round and its median; ÷ mem is the best memory pass over the case's
 * best. Below it, the medians over the rounds of each round's own ratios.
 *
 * The clock lives here only: rig_core never reads one.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "core/isa.h"
#include "core/mesh_check.h"
#include "core/rig.h"
#include "core/skin.h"

#define N_JOINTS 64
#define LATTICE 8 /* joints on an 8 × 8 lattice over the mesh */
#define N_PER 4
#define ROUNDS 21

/* A new error list (kept off the stack: about 144 KiB); exits when out of memory. */
static struct rig_errs *xerrs(void)
{
	struct rig_errs *errs = rig_errs_new();
	if (!errs) {
		fprintf(stderr, "bench_core: out of memory\n");
		exit(1);
	}
	return errs;
}

/* ------------------------------------------------------------------------ */
/* The rig: a grid mesh, 64 joint layers in 8 chains, the mesh layer         */
/* ------------------------------------------------------------------------ */

struct bench_rig {
	size_t side;    /* the mesh is side × side vertices */
	double spacing; /* between lattice joints */
	struct rig_skin_def def;
	struct rig_skin *skin;
	struct rig_layer layers[2 + N_JOINTS]; /* "rig", 64 joints, "mesh" */
	struct rig_key keys[N_JOINTS][2];
	long joint_layers[N_JOINTS];
	struct rig_scene scene;
	long mesh;
};

/* Layer of lattice joint (i, k): chain i, depth k. */
static long joint_layer(size_t i, size_t k)
{
	return 1 + (long)(i * LATTICE + k);
}

/* Chain i stands at x = i · spacing; each link is spacing above its parent and
 * turns from 0° at frame 0 to ±0.6° at frame 100 (bezier ease), so the mesh
 * bends smoothly and every frame differs. */
static void build_layers(struct bench_rig *b)
{
	bench_init_layer(&b->layers[0], "rig", RIG_NO_LAYER);
	b->layers[0].statics.ch[RIG_CH_POSITION_X] = 50;
	b->layers[0].statics.ch[RIG_CH_ROTATION] = 15;
	for (size_t i = 0; i < LATTICE; i++) {
		for (size_t k = 0; k < LATTICE; k++) {
			long id = joint_layer(i, k);
			char name[32];
			snprintf(name, sizeof name, "c%zu_%zu", i, k);
			struct rig_layer *l = &b->layers[id];
			bench_init_layer(l, name, k == 0 ? 0 : joint_layer(i, k - 1));
			l->statics.ch[RIG_CH_POSITION_X] = k == 0 ? (double)i * b->spacing : 0;
			l->statics.ch[RIG_CH_POSITION_Y] = k == 0 ? 0 : b->spacing;
			struct rig_key *key = b->keys[id - 1];
			key[0] = (struct rig_key){0, 0, RIG_INTERP_BEZIER, {0.42, 0, 0.58, 1}};
			key[1] = (struct rig_key){
				100, (i + k) % 2 ? 0.6 : -0.6, RIG_INTERP_LINEAR, {0}};
			l->keys[RIG_CH_ROTATION] = (struct rig_keys){key, 2};
		}
	}
	b->mesh = 1 + N_JOINTS;
	bench_init_layer(&b->layers[b->mesh], "mesh", 0);
	b->layers[b->mesh].kind = RIG_LAYER_MESH;
	b->layers[b->mesh].deformed = true;
	b->scene = (struct rig_scene){.layers = b->layers, .n_layers = 2 + N_JOINTS};
}

/* Each vertex takes the four lattice joints of its cell with bilinear weights
 * kept away from zero (zero weights are invalid). */
static void build_def(struct bench_rig *b)
{
	size_t side = b->side, n = side * side, cells = (side - 1) * (side - 1);
	struct rig_skin_def *d = &b->def;
	d->n_verts = n;
	d->n_tris = 2 * cells;
	d->n_joints = N_JOINTS;
	d->n_weight_lists = n;
	d->source = bench_xcalloc(2 * n, sizeof *d->source);
	d->triangles = bench_xcalloc(3 * d->n_tris, sizeof *d->triangles);
	d->joints = bench_xcalloc(N_JOINTS, sizeof *d->joints);
	d->weight_offsets = bench_xcalloc(n + 1, sizeof *d->weight_offsets);
	d->influences = bench_xcalloc(N_PER * n, sizeof *d->influences);
	size_t t = 0;
	for (size_t y = 0; y < side; y++) {
		for (size_t x = 0; x < side; x++) {
			size_t v = y * side + x;
			d->source[2 * v] = (double)x;
			d->source[2 * v + 1] = (double)y;
			double gx = (double)x / b->spacing, gy = (double)y / b->spacing;
			size_t ci = gx >= LATTICE - 1 ? LATTICE - 2 : (size_t)gx;
			size_t ck = gy >= LATTICE - 1 ? LATTICE - 2 : (size_t)gy;
			double u = 0.02 + 0.96 * (gx - (double)ci),
			       w = 0.02 + 0.96 * (gy - (double)ck);
			uint32_t js[4] = {(uint32_t)(ci * LATTICE + ck),
					  (uint32_t)((ci + 1) * LATTICE + ck),
					  (uint32_t)(ci * LATTICE + ck + 1),
					  (uint32_t)((ci + 1) * LATTICE + ck + 1)};
			double ws[4] = {(1 - u) * (1 - w), u * (1 - w), (1 - u) * w, u * w};
			for (int k = 0; k < N_PER; k++)
				d->influences[N_PER * v + (size_t)k] =
					(struct rig_skin_influence){js[k], ws[k]};
			d->weight_offsets[v + 1] = (uint32_t)(N_PER * (v + 1));
			if (x + 1 < side && y + 1 < side) {
				uint32_t a = (uint32_t)v, r = a + 1, up = a + (uint32_t)side,
					 ur = up + 1;
				uint32_t tri[6] = {a, r, ur, a, ur, up};
				memcpy(&d->triangles[3 * t], tri, sizeof tri);
				t += 2;
			}
		}
	}
	for (size_t j = 0; j < N_JOINTS; j++) {
		snprintf(d->joints[j].id, sizeof d->joints[j].id, "j%zu", j);
		d->joints[j].bind = rig_affine_identity(); /* provisional: captured below */
		b->joint_layers[j] = joint_layer(j / LATTICE, j % LATTICE);
	}
}

static struct rig_skin *new_skin(const struct rig_skin_def *d)
{
	struct rig_errs *errs = xerrs();
	struct rig_skin *skin = rig_skin_new(d, errs);
	if (!skin) {
		fprintf(stderr, "bench_core: invalid skin: %s\n", errs->items[0].detail);
		exit(1);
	}
	rig_errs_free(errs);
	return skin;
}

/* Builds the rig and captures every bind at frame 0, as layer.skin.bind.capture does. */
static void build_rig(struct bench_rig *b, size_t side)
{
	memset(b, 0, sizeof *b);
	b->side = side;
	b->spacing = (double)(side - 1) / (LATTICE - 1);
	build_layers(b);
	build_def(b);
	b->skin = new_skin(&b->def);
	b->layers[b->mesh].binding = &rig_binding_skin;
	b->layers[b->mesh].binding_eval = b->skin;
	b->layers[b->mesh].joint_layers = b->joint_layers;

	struct rig_affine binds[N_JOINTS];
	struct rig_errs *errs = xerrs();
	struct rig_resolver *r = rig_resolver_new(&b->scene);
	if (!r || rig_resolver_joint_poses(binds, r, b->mesh, 0, errs) != 0) {
		fprintf(stderr, "bench_core: bind capture failed\n");
		exit(1);
	}
	rig_resolver_free(r);
	for (size_t j = 0; j < N_JOINTS; j++)
		b->def.joints[j].bind = binds[j];
	rig_skin_free(b->skin);
	b->skin = new_skin(&b->def);
	b->layers[b->mesh].binding_eval = b->skin;
	rig_errs_free(errs);
}

static void free_rig(struct bench_rig *b)
{
	rig_skin_free(b->skin);
	rig_skin_def_release(&b->def);
}

/* ------------------------------------------------------------------------ */
/* The baseline: a memory pass over the kernel's bytes                        */
/* ------------------------------------------------------------------------ */

struct mem_pass {
	double *src;     /* 2 per vertex */
	double *weights; /* 4 per vertex */
	uint8_t *joints; /* 4 per vertex */
	double *out;     /* 2 per vertex */
	size_t n;
};

/* Reads everything once and writes the output, with almost no arithmetic. */
static void mem_pass_plain(const struct mem_pass *m)
{
	for (size_t v = 0; v < m->n; v++) {
		const double *w = &m->weights[4 * v];
		const uint8_t *j = &m->joints[4 * v];
		m->out[2 * v] = m->src[2 * v] + w[0] + w[2] + j[0] + j[2];
		m->out[2 * v + 1] = m->src[2 * v + 1] + w[1] + w[3] + j[1] + j[3];
	}
}

/* The same with the kernel's software prefetch, whichever is faster counts. */
static void mem_pass_prefetch(const struct mem_pass *m)
{
	size_t n = m->n;
	for (size_t v = 0; v < n; v++) {
		size_t ahead = v + 64 < n ? v + 64 : n - 1;
		__builtin_prefetch(&m->weights[4 * ahead]);
		__builtin_prefetch(&m->joints[4 * ahead]);
		__builtin_prefetch(&m->src[2 * ahead]);
		const double *w = &m->weights[4 * v];
		const uint8_t *j = &m->joints[4 * v];
		m->out[2 * v] = m->src[2 * v] + w[0] + w[2] + j[0] + j[2];
		m->out[2 * v + 1] = m->src[2 * v + 1] + w[1] + w[3] + j[1] + j[3];
	}
}

static struct mem_pass mem_pass_new(const struct rig_skin_def *d)
{
	struct mem_pass m = {.n = d->n_verts};
	m.src = bench_xcalloc(2 * m.n, sizeof *m.src);
	m.weights = bench_xcalloc(4 * m.n, sizeof *m.weights);
	m.joints = bench_xcalloc(4 * m.n, sizeof *m.joints);
	m.out = bench_xcalloc(2 * m.n, sizeof *m.out);
	memcpy(m.src, d->source, 2 * m.n * sizeof *m.src);
	for (size_t i = 0; i < 4 * m.n; i++) {
		m.weights[i] = d->influences[i].weight;
		m.joints[i] = (uint8_t)d->influences[i].joint;
	}
	return m;
}

static void mem_pass_free(struct mem_pass *m)
{
	free(m->src);
	free(m->weights);
	free(m->joints);
	free(m->out);
}

/* ------------------------------------------------------------------------ */
/* Timing                                                                    */
/* ------------------------------------------------------------------------ */

enum bench_case {
	CASE_MEM_PLAIN,
	CASE_MEM_PREFETCH,
	CASE_DEFORM,
	CASE_DEFORM_PATH, /* + the path: one case per path of core/isa.h */
	CASE_CHECKS = CASE_DEFORM_PATH + RIG_ISA_COUNT,
	CASE_CHECKS_SINGLY,
	CASE_EVALUATE,
	CASE_EVALUATE_SINGLY,
	CASE_DEFORM_DQS,
	CASE_EVALUATE_DQS,
	CASE_RESOLVER,
	N_CASES
};

struct bench_ctx {
	struct bench_rig *rig;
	struct mem_pass *mem;
	struct rig_mesh_check check;   /* the evaluator's check, built the same way */
	struct rig_mesh_check singly;  /* the same mesh with its corners rotated */
	uint32_t *rotated;             /* its triangles */
	struct rig_skin *rotated_skin; /* the rig's skin with them */
	struct rig_skin *dqs_skin;     /* the rig's skin with method dqs */
	struct rig_affine poses[N_JOINTS];
	double *out;
	struct rig_errs *errs; /* reused by every timed call */
	long iteration;        /* resolver frames advance so every frame is new */
};

/* Exits with the first error when a timed call failed (rc ≠ 0). */
static void must_pass(const char *what, int rc, const struct rig_errs *errs)
{
	if (rc != 0) {
		fprintf(stderr, "bench_core: %s failed: %s\n", what, errs->items[0].detail);
		exit(1);
	}
}

static void run_once(struct bench_ctx *c, enum bench_case which)
{
	struct rig_errs *errs = c->errs;
	/* The cases that fill errs start from an empty list. */
	rig_errs_init(errs);
	switch (which) {
	case CASE_MEM_PLAIN:
		mem_pass_plain(c->mem);
		break;
	case CASE_MEM_PREFETCH:
		mem_pass_prefetch(c->mem);
		break;
	case CASE_DEFORM:
		rig_skin_deform(c->out, c->rig->skin, c->poses);
		break;
	case CASE_CHECKS:
		must_pass("checks", rig_mesh_check_run(&c->check, c->out, errs), errs);
		break;
	case CASE_CHECKS_SINGLY:
		must_pass("checks", rig_mesh_check_run(&c->singly, c->out, errs), errs);
		break;
	case CASE_EVALUATE:
		must_pass("evaluate", rig_skin_evaluate(c->out, c->rig->skin, c->poses, errs),
			  errs);
		break;
	case CASE_EVALUATE_SINGLY:
		must_pass("evaluate", rig_skin_evaluate(c->out, c->rotated_skin, c->poses, errs),
			  errs);
		break;
	case CASE_DEFORM_DQS:
		rig_skin_deform(c->out, c->dqs_skin, c->poses);
		break;
	case CASE_EVALUATE_DQS:
		must_pass("dqs evaluate", rig_skin_evaluate(c->out, c->dqs_skin, c->poses, errs),
			  errs);
		break;
	case CASE_RESOLVER: {
		double frame = 1 + (double)(c->iteration++ % 997) * 0.1;
		struct rig_resolver *r = rig_resolver_new(&c->rig->scene);
		if (!r || rig_resolver_evaluate(c->out, r, c->rig->mesh, frame, errs) != 0) {
			fprintf(stderr, "bench_core: resolver frame %g failed: %s\n", frame,
				errs->count ? errs->items[0].detail : "out of memory");
			exit(1);
		}
		rig_resolver_free(r);
		break;
	}
	case N_CASES:
		break;
	default: /* a kernel path */
		rig_skin_deform_isa(c->out, c->rig->skin, c->poses,
				    (enum rig_isa)(which - CASE_DEFORM_PATH));
		break;
	}
}

static bool case_runs(enum bench_case which)
{
	if (which >= CASE_DEFORM_PATH && which < CASE_CHECKS)
		return rig_isa_is_supported((enum rig_isa)(which - CASE_DEFORM_PATH));
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof v[0], cmp_double);
	return v[n / 2];
}

struct timing {
	double best, median; /* seconds per iteration */
};

/* Seconds per iteration of every case, round by round (rounds[case][round]). */
static void measure(double rounds[N_CASES][ROUNDS], struct bench_ctx *c, int iterations)
{
	for (int k = 0; k < N_CASES; k++)
		if (case_runs((enum bench_case)k))
			run_once(c, (enum bench_case)k); /* warm caches and page in the output */
	for (int r = 0; r < ROUNDS; r++) {
		for (int k = 0; k < N_CASES; k++) {
			if (!case_runs((enum bench_case)k))
				continue;
			double t0 = bench_now_seconds();
			for (int i = 0; i < iterations; i++)
				run_once(c, (enum bench_case)k);
			rounds[k][r] = (bench_now_seconds() - t0) / iterations;
		}
		/* The checks read the kernel's output: leave the last one a kernel's. */
		rig_skin_deform(c->out, c->rig->skin, c->poses);
	}
}

static struct timing timing_of(const double *rounds)
{
	double v[ROUNDS];
	memcpy(v, rounds, sizeof v);
	qsort(v, ROUNDS, sizeof v[0], cmp_double);
	return (struct timing){v[0], v[ROUNDS / 2]};
}

/* The median over the rounds of num's round time over den's. */
static double median_ratio(const double *num, const double *den)
{
	double v[ROUNDS];
	for (int r = 0; r < ROUNDS; r++)
		v[r] = num[r] / den[r];
	return median(v, ROUNDS);
}

static void print_row(const char *name, size_t n, struct timing t, double baseline_best)
{
	double mv = (double)n / t.best / 1e6;
	printf("  %-34s %9zu %11.1f %11.1f %9.1f %9.1f %7.2f\n", name, n, t.best * 1e6,
	       t.median * 1e6, mv, mv * N_PER, baseline_best / t.best);
}

static void bench_size(size_t side, int iterations)
{
	struct bench_rig *rig = bench_xcalloc(1, sizeof *rig);
	build_rig(rig, side);
	size_t n = rig->def.n_verts;
	struct mem_pass mem = mem_pass_new(&rig->def);
	struct bench_ctx c = {.rig = rig, .mem = &mem};
	c.out = bench_xcalloc(2 * n, sizeof *c.out);
	size_t n_tris = rig->def.n_tris;
	c.rotated = bench_xcalloc(3 * n_tris, sizeof *c.rotated);
	for (size_t t = 0; t < n_tris; t++)
		for (size_t k = 0; k < 3; k++)
			c.rotated[3 * t + k] = rig->def.triangles[3 * t + (k + t) % 3];
	if (rig_mesh_check_init(&c.check, rig->def.source, n, rig->def.triangles, n_tris,
				rig_isa_best()) != 0 ||
	    rig_mesh_check_init(&c.singly, rig->def.source, n, c.rotated, n_tris, rig_isa_best()) !=
		    0) {
		fprintf(stderr, "bench_core: out of memory\n");
		exit(1);
	}
	struct rig_skin_def rotated_def = rig->def;
	rotated_def.triangles = c.rotated;
	c.rotated_skin = new_skin(&rotated_def);
	struct rig_skin_def dqs_def = rig->def;
	dqs_def.method = RIG_SKIN_DQS;
	c.dqs_skin = new_skin(&dqs_def);

	/* Poses of a frame in the middle of the animation, for the skin-only cases. */
	c.errs = xerrs();
	struct rig_resolver *r = rig_resolver_new(&rig->scene);
	if (!r || rig_resolver_joint_poses(c.poses, r, rig->mesh, 50, c.errs) != 0) {
		fprintf(stderr, "bench_core: poses failed\n");
		exit(1);
	}
	rig_resolver_free(r);

	double rounds[N_CASES][ROUNDS];
	measure(rounds, &c, iterations);
	/* The baseline of each round: the faster of its two memory passes. */
	double mem_rounds[ROUNDS];
	for (int k = 0; k < ROUNDS; k++)
		mem_rounds[k] = fmin(rounds[CASE_MEM_PLAIN][k], rounds[CASE_MEM_PREFETCH][k]);
	struct timing plain = timing_of(rounds[CASE_MEM_PLAIN]);
	struct timing pref = timing_of(rounds[CASE_MEM_PREFETCH]);
	struct timing mem_t = plain.best <= pref.best ? plain : pref;
	struct timing deform = timing_of(rounds[CASE_DEFORM]);
	struct timing checks = timing_of(rounds[CASE_CHECKS]);
	struct timing eval = timing_of(rounds[CASE_EVALUATE]);
	struct timing frame = timing_of(rounds[CASE_RESOLVER]);

	double bytes = (double)n * (2 * 8 + N_PER * 8 + N_PER * 1 + 2 * 8);
	printf("\n%zu vertices (%zu × %zu grid, %zu triangles), %.1f MB per pass, %d rounds\n", n,
	       side, side, rig->def.n_tris, bytes / 1e6, ROUNDS);
	printf("  %-34s %9s %11s %11s %9s %9s %7s\n", "case", "vertices", "best µs", "median µs",
	       "Mvert/s", "Minfl/s", "÷ mem");
	print_row(plain.best <= pref.best ? "memory pass (plain loop)"
					  : "memory pass (prefetching loop)",
		  n, mem_t, mem_t.best);
	print_row("skin kernel (rig_skin_deform)", n, deform, mem_t.best);
	for (int p = 0; p < RIG_ISA_COUNT; p++) {
		if (!case_runs((enum bench_case)(CASE_DEFORM_PATH + p)))
			continue;
		char name[64];
		snprintf(name, sizeof name, "skin kernel, %s path", rig_isa_name((enum rig_isa)p));
		print_row(name, n, timing_of(rounds[CASE_DEFORM_PATH + p]), mem_t.best);
	}
	print_row("deformed-mesh checks alone", n, checks, mem_t.best);
	print_row("checks alone, corners rotated", n, timing_of(rounds[CASE_CHECKS_SINGLY]),
		  mem_t.best);
	print_row("skin evaluate (kernel + checks)", n, eval, mem_t.best);
	print_row("skin evaluate, corners rotated", n, timing_of(rounds[CASE_EVALUATE_SINGLY]),
		  mem_t.best);
	struct timing dqs = timing_of(rounds[CASE_DEFORM_DQS]);
	print_row("dqs kernel (method dqs)", n, dqs, mem_t.best);
	print_row("dqs evaluate (kernel + checks)", n, timing_of(rounds[CASE_EVALUATE_DQS]),
		  mem_t.best);
	print_row("resolver frame (64 layers + skin)", n, frame, mem_t.best);
	printf("  memory pass bandwidth %.1f GB/s; resolver frame = %.2f × skin evaluate, "
	       "%.2f × kernel\n",
	       bytes / mem_t.best / 1e9, frame.best / eval.best, frame.best / deform.best);
	double ev_minus[ROUNDS];
	for (int k = 0; k < ROUNDS; k++)
		ev_minus[k] = rounds[CASE_EVALUATE][k] - rounds[CASE_DEFORM][k];
	printf("  medians of each round's ratios (path %s): memory pass ÷ kernel %.2f; checks "
	       "alone "
	       "÷ kernel %.2f; (evaluate − kernel) ÷ kernel %.2f\n",
	       rig_isa_name(rig_isa_best()), median_ratio(mem_rounds, rounds[CASE_DEFORM]),
	       median_ratio(rounds[CASE_CHECKS], rounds[CASE_DEFORM]),
	       median_ratio(ev_minus, rounds[CASE_DEFORM]));

	printf("  the rotated mesh: %zu of %zu triangles in runs\n", n_tris - c.singly.n_singles,
	       n_tris);
	printf("  dqs kernel ÷ lbs kernel (median of each round's ratio) %.2f\n",
	       median_ratio(rounds[CASE_DEFORM_DQS], rounds[CASE_DEFORM]));
	rig_mesh_check_release(&c.check);
	rig_mesh_check_release(&c.singly);
	rig_skin_free(c.rotated_skin);
	rig_skin_free(c.dqs_skin);
	free(c.rotated);
	free(c.out);
	rig_errs_free(c.errs);
	mem_pass_free(&mem);
	free_rig(rig);
	free(rig);
}

int main(void)
{
	printf("bench_core: rig_core single-thread throughput (f64 source, %d influences, %d "
	       "joints)\n",
	       N_PER, N_JOINTS);
	printf("fixed iteration counts, %d interleaved rounds: best and median per iteration; "
	       "÷ mem = memory-pass time / case time\n",
	       ROUNDS);
	bench_size(100, 200); /* 10,000 vertices */
	bench_size(1000, 2);  /* 1,000,000 vertices */
	return 0;
}
