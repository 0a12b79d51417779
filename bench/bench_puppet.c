/* bench_puppet: the puppet binding's cost (issue 24), single thread.
 *
 * Meshes: the seed's grids of density 15, 25, 33 and 50 ((d + 1)² vertices:
 * 256 to 2,601) over a 600 × 300 layer with 2 pins, and a 20,000-vertex grid
 * (200 × 100) with 2 and with 8 pins. Pin 0 holds a corner; the others move,
 * rotate and scale along keys, so every frame differs.
 *
 * Cases, each beside its baseline measured in the same run:
 *   first frame   rig_puppet_take of a copy (graph, harmonic weights: one
 *                 factorisation and one solve per pin, the ARAP factorisation,
 *                 the checks' layout) and one rig_puppet_evaluate; beside it
 *                 the same for the lbs solver (no ARAP factorisation)
 *   warm frame    rig_puppet_evaluate on the built evaluator (ARAP: LBS, 4
 *                 local/global passes, the per-frame checks); beside it lbs
 *   keyed stiff   a warm ARAP frame whose keyed stiffness differs from the
 *                 static one, so it factorises its own system (the rule in
 *                 docs/decisions.md)
 * Each figure is the best of ROUNDS rounds (median beside it); the rounds
 * take turns over the cases, so a neighbour's load on this shared machine
 * weighs on all alike. The seed's own figures (bone-and-puppet-tool-reference
 * §3.4: 673 ms first frame, 37 ms warm at density 33, dense Cholesky) are
 * printed as text: a different machine and language, not a measurement here.
 * Below the table, the growth exponent of each warm figure from 256 to 20,000
 * vertices (log t ratio / log n ratio). Reports, never asserts.
 *
 * The clock lives here only: rig_core never reads one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_util.h"
#include "core/err.h"
#include "core/puppet.h"

#define ROUNDS 9
#define WARM_FRAMES 20

struct mesh_case {
	const char *name;
	size_t w, h; /* vertices per side */
	double width, height;
	size_t n_pins;
};

static const struct mesh_case cases[] = {
	{"density 15", 16, 16, 600, 300, 2},    {"density 25", 26, 26, 600, 300, 2},
	{"density 33", 34, 34, 600, 300, 2},    {"density 50", 51, 51, 600, 300, 2},
	{"20k, 2 pins", 200, 100, 600, 300, 2}, {"20k, 8 pins", 200, 100, 600, 300, 8},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static void key(struct rig_puppet_pin *pin, enum rig_pin_channel ch, double frame, double value)
{
	struct rig_key k;
	memset(&k, 0, sizeof k);
	k.frame = frame;
	k.value = value;
	if (rig_puppet_pin_key_put(pin, ch, &k) != 0)
		exit(1);
}

/* The grid of c with its pins; stiff_keys adds keyed stiffness to pin 1. */
static struct rig_puppet_def make_def(const struct mesh_case *c, enum rig_puppet_solver solver,
				      bool stiff_keys)
{
	struct rig_puppet_def d;
	memset(&d, 0, sizeof d);
	d.solver = solver;
	d.n_verts = c->w * c->h;
	d.n_tris = 2 * (c->w - 1) * (c->h - 1);
	d.source = bench_xcalloc(2 * d.n_verts, sizeof *d.source);
	d.triangles = bench_xcalloc(3 * d.n_tris, sizeof *d.triangles);
	double sx = c->width / (double)(c->w - 1), sy = c->height / (double)(c->h - 1);
	for (size_t y = 0; y < c->h; y++) {
		for (size_t x = 0; x < c->w; x++) {
			d.source[2 * (y * c->w + x)] = (double)x * sx - c->width / 2;
			d.source[2 * (y * c->w + x) + 1] = (double)y * sy - c->height / 2;
		}
	}
	size_t t = 0;
	for (size_t y = 0; y + 1 < c->h; y++) {
		for (size_t x = 0; x + 1 < c->w; x++) {
			uint32_t a = (uint32_t)(y * c->w + x), b = a + 1, cc = a + (uint32_t)c->w,
				 e = cc + 1;
			uint32_t *tri = &d.triangles[6 * t++];
			tri[0] = a, tri[1] = b, tri[2] = e;
			tri[3] = a, tri[4] = e, tri[5] = cc;
		}
	}
	for (size_t p = 0; p < c->n_pins; p++) {
		char id[16];
		snprintf(id, sizeof id, "pin%zu", p);
		/* pins spread on a diagonal from the lower left to the upper right */
		double u = c->n_pins > 1 ? (double)p / (double)(c->n_pins - 1) : 0;
		struct rig_puppet_pin pin = rig_puppet_pin_default(id, (u - 0.5) * c->width * 0.9,
								   (u - 0.5) * c->height * 0.9);
		if (p > 0) {
			key(&pin, RIG_PIN_CH_POSITION_X, 0, pin.x);
			key(&pin, RIG_PIN_CH_POSITION_X, 100, pin.x + 0.1 * c->width);
			key(&pin, RIG_PIN_CH_POSITION_Y, 0, pin.y);
			key(&pin, RIG_PIN_CH_POSITION_Y, 100, pin.y - 0.1 * c->height);
			key(&pin, RIG_PIN_CH_ROTATION, 0, 0);
			key(&pin, RIG_PIN_CH_ROTATION, 100, 30);
		}
		if (p == 1 && stiff_keys) {
			key(&pin, RIG_PIN_CH_STIFFNESS, 0, 0.5);
			key(&pin, RIG_PIN_CH_STIFFNESS, 100, 2);
		}
		if (rig_puppet_def_pin_put(&d, &pin) != 0)
			exit(1);
		rig_puppet_pin_release(&pin);
	}
	return d;
}

static struct rig_puppet *build(const struct rig_puppet_def *d, struct rig_errs *errs)
{
	struct rig_puppet_def copy;
	if (rig_puppet_def_copy(&copy, d) != 0)
		exit(1);
	struct rig_puppet *pup = rig_puppet_take(&copy, errs);
	rig_puppet_def_release(&copy);
	if (!pup) {
		fprintf(stderr, "bench_puppet: %s\n", errs->items[0].detail);
		exit(1);
	}
	return pup;
}

/* Seconds of a first frame: build and evaluate at frame 50. */
static double first_frame(const struct rig_puppet_def *d, double *out, struct rig_errs *errs)
{
	struct rig_puppet_def copy;
	if (rig_puppet_def_copy(&copy, d) != 0)
		exit(1);
	double t0 = bench_now_seconds();
	struct rig_puppet *pup = rig_puppet_take(&copy, errs);
	if (!pup)
		exit(1);
	rig_errs_init(errs);
	(void)rig_puppet_evaluate(out, NULL, pup, 50, errs);
	double t = bench_now_seconds() - t0;
	rig_puppet_free(pup);
	rig_puppet_def_release(&copy);
	return t;
}

/* Seconds per warm frame, over WARM_FRAMES frames. */
static double warm_frame(const struct rig_puppet *pup, double *out, struct rig_errs *errs,
			 enum rig_puppet_ran *ran)
{
	double t0 = bench_now_seconds();
	for (int f = 0; f < WARM_FRAMES; f++) {
		rig_errs_init(errs);
		if (rig_puppet_evaluate(out, ran, pup, 5.0 * f, errs) != 0 && f == 0)
			fprintf(stderr, "bench_puppet: frame %d: %s\n", f, errs->items[0].detail);
	}
	return (bench_now_seconds() - t0) / WARM_FRAMES;
}

enum { FIRST_ARAP, FIRST_LBS, WARM_ARAP, WARM_LBS, WARM_STIFF, N_FIGURES };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* usage: bench_puppet [ROUNDS]  (1 to 9, default 9; scripts/bench.sh's quick mode runs 2) */
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;
	if (rounds < 1 || rounds > ROUNDS) {
		fprintf(stderr, "usage: bench_puppet [ROUNDS: 1 to %d]\n", ROUNDS);
		return 2;
	}
	static double t[N_CASES][N_FIGURES][ROUNDS];
	struct rig_errs *errs = rig_errs_new();
	if (!errs)
		return 1;
	struct rig_puppet_def defs[N_CASES][3];
	struct rig_puppet *pups[N_CASES][3];
	double *out[N_CASES];
	enum rig_puppet_ran ran[N_CASES] = {0};
	for (size_t c = 0; c < N_CASES; c++) {
		defs[c][0] = make_def(&cases[c], RIG_PUPPET_SOLVER_ARAP, false);
		defs[c][1] = make_def(&cases[c], RIG_PUPPET_SOLVER_LBS, false);
		defs[c][2] = make_def(&cases[c], RIG_PUPPET_SOLVER_ARAP, true);
		for (int k = 0; k < 3; k++)
			pups[c][k] = build(&defs[c][k], errs);
		out[c] = bench_xcalloc(2 * defs[c][0].n_verts, sizeof *out[c]);
	}
	for (int r = 0; r < rounds; r++) {
		for (size_t c = 0; c < N_CASES; c++) {
			enum rig_puppet_ran dummy;
			t[c][FIRST_ARAP][r] = first_frame(&defs[c][0], out[c], errs);
			t[c][FIRST_LBS][r] = first_frame(&defs[c][1], out[c], errs);
			t[c][WARM_ARAP][r] = warm_frame(pups[c][0], out[c], errs, &ran[c]);
			t[c][WARM_LBS][r] = warm_frame(pups[c][1], out[c], errs, &dummy);
			t[c][WARM_STIFF][r] = warm_frame(pups[c][2], out[c], errs, &dummy);
		}
	}
	printf("bench_puppet: best of %d rounds (median), milliseconds; %d warm frames a round\n\n",
	       rounds, WARM_FRAMES);
	printf("%-12s %7s | %-17s %-17s | %-17s %-17s %-17s | %s\n", "mesh", "verts", "first arap",
	       "first lbs", "warm arap", "warm lbs", "warm keyed stiff", "ran");
	double best[N_CASES][N_FIGURES];
	for (size_t c = 0; c < N_CASES; c++) {
		printf("%-12s %7zu |", cases[c].name, defs[c][0].n_verts);
		for (int f = 0; f < N_FIGURES; f++) {
			qsort(t[c][f], (size_t)rounds, sizeof t[c][f][0], cmp_double);
			best[c][f] = t[c][f][0];
			printf(" %7.3f (%7.3f)%s", t[c][f][0] * 1e3, t[c][f][rounds / 2] * 1e3,
			       f == FIRST_LBS || f == WARM_STIFF ? " |" : "");
		}
		printf(" %s\n", rig_puppet_ran_name(ran[c]));
	}
	printf("\nthe seed (reference §3.4, its machine, TypeScript, dense Cholesky): density 33 "
	       "first frame 673 ms, warm 37 ms\n");
	printf("targets (issue 24): density 33 first <= 20 ms, warm <= 2 ms; 20,000 vertices warm "
	       "<= 40 ms; growth <= ~n^1.5\n\n");
	size_t lo = 0, hi = 4; /* 256 vertices to 20,000, both 2 pins */
	double ln = log((double)defs[hi][0].n_verts / (double)defs[lo][0].n_verts);
	const char *names[N_FIGURES] = {"first arap", "first lbs", "warm arap", "warm lbs",
					"warm keyed stiff"};
	printf("growth from %zu to %zu vertices (t ~ n^k):", defs[lo][0].n_verts,
	       defs[hi][0].n_verts);
	for (int f = 0; f < N_FIGURES; f++)
		printf("  %s k = %.2f", names[f], log(best[hi][f] / best[lo][f]) / ln);
	printf("\n");
	for (size_t c = 0; c < N_CASES; c++) {
		for (int k = 0; k < 3; k++) {
			rig_puppet_free(pups[c][k]);
			rig_puppet_def_release(&defs[c][k]);
		}
		free(out[c]);
	}
	rig_errs_free(errs);
	return 0;
}
