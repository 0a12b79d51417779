/* bench_auto_weights: automatic weights and weight brushes (issue 25), single
 * thread.
 *
 * The mesh: a 200 × 100 grid (20,000 vertices, 39,402 triangles) over a
 * 600 × 300 rectangle. The joints: a tree of 64 — a root at the centre and 7
 * branches of 9 joints each, spread like a star — so most bones are segments
 * and the branch tips points.
 *
 * Cases, each beside its baseline measured in the same run:
 *   segment, nearestJoint, harmonic  rig_auto_weights at maxInfluences 4;
 *       beside them the brute-force distance scan alone: every vertex × every
 *       bone's squared distance (rig_auto_segment_distance2), summed, nothing
 *       else — the floor the two inverse-distance methods stand on;
 *   dab  rig_brush_apply, a radius-50 dab (about 870 vertices, feather 0.5)
 *       alternately adding and subtracting one joint on the segment weights;
 *       beside it one pass over the skin's every weight (summed).
 * Each figure is the best of ROUNDS rounds (median beside it); the rounds
 * take turns over the cases, so a neighbour's load on this shared machine
 * weighs on all alike. Reports, never asserts.
 *
 * The clock lives here only: rig_core never reads one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_util.h"
#include "core/auto_weights.h"
#include "core/err.h"
#include "core/weight_brush.h"

#define ROUNDS 7
#define GRID_W 200
#define GRID_H 100
#define N_JOINTS 64
#define N_BRANCHES 7
#define DABS 20

static void make_grid(double **out_src, uint32_t **out_tris, size_t *n_verts, size_t *n_tris)
{
	size_t n = GRID_W * GRID_H, nt = 2 * (GRID_W - 1) * (GRID_H - 1);
	double *src = bench_xcalloc(2 * n, sizeof *src);
	uint32_t *tris = bench_xcalloc(3 * nt, sizeof *tris);
	for (size_t y = 0; y < GRID_H; y++) {
		for (size_t x = 0; x < GRID_W; x++) {
			src[2 * (y * GRID_W + x)] = (double)x * (600.0 / (GRID_W - 1)) - 300;
			src[2 * (y * GRID_W + x) + 1] = (double)y * (300.0 / (GRID_H - 1)) - 150;
		}
	}
	size_t t = 0;
	for (size_t y = 0; y + 1 < GRID_H; y++) {
		for (size_t x = 0; x + 1 < GRID_W; x++) {
			uint32_t a = (uint32_t)(y * GRID_W + x), b = a + 1, c = a + GRID_W,
				 d = c + 1;
			uint32_t *tri = &tris[6 * t++];
			tri[0] = a, tri[1] = b, tri[2] = d;
			tri[3] = a, tri[4] = d, tri[5] = c;
		}
	}
	*out_src = src;
	*out_tris = tris;
	*n_verts = n;
	*n_tris = nt;
}

/* The star: joint 0 at the centre, branch b's joints 1 + 9b .. 9 + 9b
 * outward along angle 2πb/7, 30 units apart (x) and 14 (y), each the
 * child of the one before. */
static void make_joints(struct rig_auto_joint *j)
{
	memset(j, 0, N_JOINTS * sizeof *j);
	j[0].bind = rig_affine_identity();
	j[0].parent = -1;
	for (size_t b = 0; b < N_BRANCHES; b++) {
		double th = 2 * 3.14159265358979323846 * (double)b / N_BRANCHES;
		for (size_t k = 0; k < 9; k++) {
			size_t i = 1 + 9 * b + k;
			j[i].bind = rig_affine_identity();
			j[i].bind.m[4] = cos(th) * 30 * (double)(k + 1);
			j[i].bind.m[5] = sin(th) * 14 * (double)(k + 1);
			j[i].parent = k == 0 ? 0 : (long)i - 1;
		}
	}
}

/* The baseline of the weights: every vertex × every bone's distance. */
static double distance_scan(const double *src, size_t n, const struct rig_auto_bone *bones)
{
	double sum = 0;
	for (size_t v = 0; v < n; v++)
		for (size_t j = 0; j < N_JOINTS; j++)
			sum += rig_auto_segment_distance2(&bones[j], src[2 * v], src[2 * v + 1]);
	return sum;
}

static double weights_pass(const struct rig_skin_def *d)
{
	double sum = 0;
	for (uint32_t k = 0; k < d->weight_offsets[d->n_verts]; k++)
		sum += d->influences[k].weight + (double)d->influences[k].joint;
	return sum;
}

enum { SCAN, SEGMENT, NEAREST, HARMONIC, DAB, PASS, N_FIGURES };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* usage: bench_auto_weights [ROUNDS]  (1 to 7, default 7; scripts/bench.sh's quick mode runs 2) */
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;
	if (rounds < 1 || rounds > ROUNDS) {
		fprintf(stderr, "usage: bench_auto_weights [ROUNDS: 1 to %d]\n", ROUNDS);
		return 2;
	}
	double *src;
	uint32_t *tris;
	size_t n, nt;
	make_grid(&src, &tris, &n, &nt);
	struct rig_auto_joint joints[N_JOINTS];
	struct rig_auto_bone bones[N_JOINTS];
	make_joints(joints);
	rig_auto_bones(bones, joints, N_JOINTS);
	struct rig_errs *errs = rig_errs_new();
	if (!errs)
		return 1;
	static double t[N_FIGURES][ROUNDS];
	double sink = 0;
	size_t n_inf[3] = {0}, n_dab_changed = 0;
	struct rig_skin_def skin;
	memset(&skin, 0, sizeof skin);
	skin.source = src;
	skin.n_verts = skin.n_weight_lists = n;
	skin.n_joints = N_JOINTS;
	const enum rig_auto_method methods[3] = {RIG_AUTO_SEGMENT, RIG_AUTO_NEAREST_JOINT,
						 RIG_AUTO_HARMONIC};
	for (int r = 0; r < rounds; r++) {
		double t0 = bench_now_seconds();
		sink += distance_scan(src, n, bones);
		t[SCAN][r] = bench_now_seconds() - t0;
		for (int m = 0; m < 3; m++) {
			struct rig_auto_result res;
			rig_errs_init(errs);
			t0 = bench_now_seconds();
			if (rig_auto_weights(&res, src, n, tris, nt, joints, N_JOINTS, methods[m],
					     4, errs) != 0) {
				fprintf(stderr, "bench_auto_weights: %s failed\n",
					rig_auto_method_name(methods[m]));
				return 1;
			}
			t[SEGMENT + m][r] = bench_now_seconds() - t0;
			n_inf[m] = res.offsets[n];
			if (m == 0 && r == 0) { /* the dabs' skin: segment weights */
				skin.weight_offsets = res.offsets;
				skin.influences = res.influences;
			} else {
				rig_auto_result_release(&res);
			}
		}
		t0 = bench_now_seconds();
		for (int k = 0; k < DABS; k++) {
			struct rig_brush b = {k % 2 ? RIG_BRUSH_SUBTRACT : RIG_BRUSH_ADD,
					      3,
					      40,
					      10,
					      50,
					      0.3,
					      0.5};
			uint32_t *changed;
			size_t n_changed;
			if (rig_brush_apply(&skin, &b, &changed, &n_changed) != 0)
				return 1;
			n_dab_changed = n_changed;
			free(changed);
		}
		t[DAB][r] = (bench_now_seconds() - t0) / DABS;
		t0 = bench_now_seconds();
		for (int k = 0; k < DABS; k++)
			sink += weights_pass(&skin);
		t[PASS][r] = (bench_now_seconds() - t0) / DABS;
	}
	printf("bench_auto_weights: best of %d rounds (median), milliseconds; %zu vertices, "
	       "%zu triangles, %d joints (a star of %d branches), maxInfluences 4\n\n",
	       rounds, n, nt, N_JOINTS, N_BRANCHES);
	const char *names[N_FIGURES] = {
		"distance scan (baseline)", "segment", "nearestJoint", "harmonic", "brush dab",
		"weights pass (baseline)"};
	double best[N_FIGURES];
	for (int f = 0; f < N_FIGURES; f++) {
		qsort(t[f], (size_t)rounds, sizeof t[f][0], cmp_double);
		best[f] = t[f][0];
	}
	for (int f = 0; f < N_FIGURES; f++) {
		printf("%-26s %9.3f (%9.3f)", names[f], t[f][0] * 1e3, t[f][rounds / 2] * 1e3);
		if (f >= SEGMENT && f <= HARMONIC)
			printf("  %5.2f x the scan, %zu influences", best[f] / best[SCAN],
			       n_inf[f - SEGMENT]);
		if (f == DAB)
			printf("  %5.2f x the pass, %zu vertices changed", best[DAB] / best[PASS],
			       n_dab_changed);
		printf("\n");
	}
	printf("\n(checksum %.6g)\n", sink);
	free(skin.weight_offsets);
	free(skin.influences);
	free(src);
	free(tris);
	rig_errs_free(errs);
	return 0;
}
