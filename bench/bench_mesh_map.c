/* bench_mesh_map: locating map-points in a source mesh, single thread — the
 * spatial index of core/mesh_map.h beside the reference scan over every
 * triangle, measured in the same run on the same points.
 *
 * Mesh: a 101 × 101 vertex grid (unit cells, inner vertices jittered by up to
 * 0.3), 20,000 triangles. Two sets of 10,000 points: spread over the mesh's box
 * grown by 10 on each side (about 70 % inside), and all outside (1 to 20 units
 * from the border, the nearest-triangle search). Cases:
 *   index build        rig_mesh_index_new + free: what each request pays once
 *   index, build + locate   a request's whole cost: build, then 10,000 locates
 *   index, locate only      10,000 locates through a built index
 *   scan               rig_mesh_locate on every point: the brute force
 * Each case runs five times (the scan three); the table shows the best run and
 * the median. Every point's site is compared between the two (they must be
 * identical) and the index's bytes are printed.
 *
 * usage: bench_mesh_map [POINTS]   POINTS per set, 10,000 by default (fewer for
 *                                  a short run: the scan is most of the time)
 *
 * The clock lives here only: rig_core never reads one.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "core/mesh_map.h"

#define SIDE 100 /* cells per side: 2 · SIDE² = 20,000 triangles */
#define RUNS 5
#define SCAN_RUNS 3

static size_t n_points = 10000; /* per set; argv[1] */

/* splitmix64: the points and the jitter, the same every run. */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

static double uniform(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * ((double)(next_u64(s) >> 11) * 0x1.0p-53);
}

struct bench {
	double *src;
	uint32_t *tris;
	size_t n_tris;
	const double *xy; /* the point set being measured */
	struct rig_mesh_site *sites;
};

enum bench_case { CASE_BUILD, CASE_BUILD_LOCATE, CASE_LOCATE, CASE_SCAN };

static struct rig_mesh_index *new_index(const struct bench *b)
{
	struct rig_mesh_index *ix = rig_mesh_index_new(b->src, b->tris, b->n_tris);
	if (!ix) {
		fprintf(stderr, "bench_mesh_map: out of memory\n");
		exit(1);
	}
	return ix;
}

static void run_once(struct bench *b, const struct rig_mesh_index *built, enum bench_case which)
{
	struct rig_mesh_index *ix = NULL;
	switch (which) {
	case CASE_BUILD:
		rig_mesh_index_free(new_index(b));
		break;
	case CASE_BUILD_LOCATE:
		ix = new_index(b);
		for (size_t i = 0; i < n_points; i++)
			b->sites[i] = rig_mesh_index_locate(ix, b->xy[2 * i], b->xy[2 * i + 1]);
		rig_mesh_index_free(ix);
		break;
	case CASE_LOCATE:
		for (size_t i = 0; i < n_points; i++)
			b->sites[i] = rig_mesh_index_locate(built, b->xy[2 * i], b->xy[2 * i + 1]);
		break;
	case CASE_SCAN:
		for (size_t i = 0; i < n_points; i++)
			b->sites[i] = rig_mesh_locate(b->src, b->tris, b->n_tris, b->xy[2 * i],
						      b->xy[2 * i + 1]);
		break;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct timing {
	double best, median; /* seconds per run */
};

static struct timing measure(struct bench *b, const struct rig_mesh_index *built,
			     enum bench_case which, int runs)
{
	double t[RUNS];
	for (int r = 0; r < runs; r++) {
		double t0 = bench_now_seconds();
		run_once(b, built, which);
		t[r] = bench_now_seconds() - t0;
	}
	qsort(t, (size_t)runs, sizeof t[0], cmp_double);
	return (struct timing){t[0], t[runs / 2]};
}

static void print_row(const char *name, struct timing t, double scan_best)
{
	printf("  %-28s %11.1f %11.1f %11.2f %9.0f ×\n", name, t.best * 1e3, t.median * 1e3,
	       t.best * 1e9 / n_points, scan_best / t.best);
}

/* Times one point set and checks that index and scan agree on every point. */
static void bench_points(struct bench *b, const char *title)
{
	struct rig_mesh_index *ix = new_index(b);
	struct rig_mesh_site *want = bench_xcalloc(n_points, sizeof *want);
	size_t inside = 0, mismatches = 0;
	for (size_t i = 0; i < n_points; i++) {
		double x = b->xy[2 * i], y = b->xy[2 * i + 1];
		want[i] = rig_mesh_locate(b->src, b->tris, b->n_tris, x, y);
		struct rig_mesh_site got = rig_mesh_index_locate(ix, x, y);
		inside += want[i].inside;
		mismatches += got.triangle != want[i].triangle || got.inside != want[i].inside ||
			      memcmp(got.w, want[i].w, sizeof got.w) != 0 ||
			      memcmp(&got.distance, &want[i].distance, sizeof got.distance) != 0;
	}
	struct timing build = measure(b, ix, CASE_BUILD, RUNS);
	struct timing both = measure(b, ix, CASE_BUILD_LOCATE, RUNS);
	struct timing locate = measure(b, ix, CASE_LOCATE, RUNS);
	struct timing scan = measure(b, ix, CASE_SCAN, SCAN_RUNS);
	printf("\n%s: %zu points (%zu inside), %zu triangles; index %zu bytes; "
	       "index ≠ scan on %zu points\n",
	       title, n_points, inside, b->n_tris, rig_mesh_index_bytes(ix), mismatches);
	printf("  %-28s %11s %11s %11s %11s\n", "case", "best ms", "median ms", "ns/point",
	       "scan ÷ case");
	print_row("index build", build, scan.best);
	print_row("index, build + locate", both, scan.best);
	print_row("index, locate only", locate, scan.best);
	print_row("scan (every triangle)", scan, scan.best);
	printf("  a request's locate cost: scan / (build + locate) = %.0f ×\n",
	       scan.best / both.best);
	rig_mesh_index_free(ix);
	free(want);
	if (mismatches) {
		fprintf(stderr, "bench_mesh_map: the index disagrees with the scan\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		char *end;
		unsigned long n = strtoul(argv[1], &end, 10);
		if (argc > 2 || *end || n < 1 || n > 1000000) {
			fprintf(stderr,
				"usage: bench_mesh_map [POINTS] (1 to 1000000, default %zu)\n",
				n_points);
			return 2;
		}
		n_points = n;
	}
	struct bench b = {0};
	uint64_t seed = 42;
	size_t w = SIDE + 1;
	b.src = bench_xcalloc(2 * w * w, sizeof *b.src);
	for (size_t j = 0; j < w; j++)
		for (size_t i = 0; i < w; i++) {
			bool inner = i > 0 && j > 0 && i < SIDE && j < SIDE;
			b.src[2 * (j * w + i)] =
				(double)i + (inner ? uniform(&seed, -0.3, 0.3) : 0);
			b.src[2 * (j * w + i) + 1] =
				(double)j + (inner ? uniform(&seed, -0.3, 0.3) : 0);
		}
	b.n_tris = 2 * SIDE * SIDE;
	b.tris = bench_xcalloc(3 * b.n_tris, sizeof *b.tris);
	for (size_t j = 0, t = 0; j < SIDE; j++)
		for (size_t i = 0; i < SIDE; i++) {
			uint32_t v = (uint32_t)(j * w + i), up = v + (uint32_t)w;
			uint32_t tri[6] = {v, v + 1, up + 1, v, up + 1, up};
			memcpy(&b.tris[3 * t], tri, sizeof tri);
			t += 2;
		}
	b.sites = bench_xcalloc(n_points, sizeof *b.sites);
	double *spread = bench_xcalloc(2 * n_points, sizeof *spread);
	double *outside = bench_xcalloc(2 * n_points, sizeof *outside);
	for (size_t i = 0; i < n_points; i++) {
		spread[2 * i] = uniform(&seed, -10, SIDE + 10);
		spread[2 * i + 1] = uniform(&seed, -10, SIDE + 10);
		/* outside: a random side, 1 to 20 units beyond it */
		double along = uniform(&seed, -20, SIDE + 20), off = uniform(&seed, 1, 20);
		int side = (int)(next_u64(&seed) % 4);
		double x = side == 0 ? -off : side == 1 ? SIDE + off : along;
		double y = side == 2 ? -off : side == 3 ? SIDE + off : along;
		outside[2 * i] = x;
		outside[2 * i + 1] = y;
	}
	printf("bench_mesh_map: map-points location, single thread, %d runs each (scan %d): "
	       "best and median per %zu points\n",
	       RUNS, SCAN_RUNS, n_points);
	b.xy = spread;
	bench_points(&b, "spread over the mesh's box grown by 10");
	b.xy = outside;
	bench_points(&b, "all outside, 1 to 20 units away");
	free(spread);
	free(outside);
	free(b.sites);
	free(b.tris);
	free(b.src);
	return 0;
}
