/* bench_tessellate: the tessellation's cost (issue 25 item 1), single thread.
 *
 * Input: a 1024 × 1024 alpha image drawn here, deterministically: a
 * character-like blob (head, body, two thin arms, two legs, a hole between
 * the legs), tessellated over a 512 × 512 rectangle at density 50 with the
 * default threshold, in both modes, with and without expansion.
 *
 * Cases, each beside the baselines measured in the same run:
 *   count pass   one pass over the same bytes counting alpha > threshold: the
 *                least any coverage test of the whole image costs
 *   png decode   rig_png_alpha_decode of the image encoded as an 8-bit
 *                grey+alpha PNG here (what a request's image costs first)
 *   grid         rig_tessellate, mode grid
 *   silhouette   rig_tessellate, mode silhouette (marching squares over every
 *                pixel, GEOS, Delaunay rounds)
 * Each figure is the best of ROUNDS rounds (median beside it); the rounds
 * take turns over the cases. Reports, never asserts.
 *
 * The clock lives here only: rig_core never reads one.
 */
#include <math.h>
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_util.h"
#include "core/err.h"
#include "core/png_alpha.h"
#include "core/tessellate.h"

#define ROUNDS 9
#define SIDE 1024
#define DENSITY 50

/* The blob: alpha 255 inside, a soft 0..255 edge a few pixels wide. */
static void draw(uint8_t *alpha)
{
	for (int y = 0; y < SIDE; y++) {
		for (int x = 0; x < SIDE; x++) {
			double u = (x + 0.5) / SIDE, v = (y + 0.5) / SIDE; /* v down */
			/* signed distances (negative inside), in image fractions */
			double head = hypot(u - 0.5, v - 0.17) - 0.1;
			double body = hypot((u - 0.5) / 0.16, (v - 0.47) / 0.22) * 0.16 - 0.16;
			double arm_l = fmax(fabs(v - 0.36 + (u - 0.2) * 0.3) - 0.008,
					    fabs(u - 0.26) - 0.12);
			double arm_r = fmax(fabs(v - 0.36 - (u - 0.8) * 0.3) - 0.008,
					    fabs(u - 0.74) - 0.12);
			double leg_l = fmax(fabs(u - 0.42) - 0.045, fabs(v - 0.8) - 0.16);
			double leg_r = fmax(fabs(u - 0.58) - 0.045, fabs(v - 0.8) - 0.16);
			double d = fmin(fmin(head, body),
					fmin(fmin(arm_l, arm_r), fmin(leg_l, leg_r)));
			double hole = hypot(u - 0.5, v - 0.5) - 0.04; /* a hole in the body */
			d = fmax(d, -hole);
			double a = 0.5 - d * SIDE / 4; /* 4-pixel soft edge */
			alpha[y * SIDE + x] = (uint8_t)(a <= 0 ? 0 : a >= 1 ? 255 : a * 255);
		}
	}
}

static void *encode_png(const uint8_t *alpha, size_t *n)
{
	spng_ctx *enc = spng_ctx_new(SPNG_CTX_ENCODER);
	uint8_t *ga = bench_xcalloc(2 * (size_t)SIDE * SIDE, 1);
	for (size_t k = 0; k < (size_t)SIDE * SIDE; k++)
		ga[2 * k] = 200, ga[2 * k + 1] = alpha[k];
	struct spng_ihdr ihdr = {0};
	ihdr.width = SIDE, ihdr.height = SIDE, ihdr.bit_depth = 8;
	ihdr.color_type = SPNG_COLOR_TYPE_GRAYSCALE_ALPHA;
	int err = 0;
	void *png = NULL;
	if (enc && !spng_set_option(enc, SPNG_ENCODE_TO_BUFFER, 1) && !spng_set_ihdr(enc, &ihdr) &&
	    !spng_encode_image(enc, ga, 2 * (size_t)SIDE * SIDE, SPNG_FMT_PNG,
			       SPNG_ENCODE_FINALIZE))
		png = spng_get_png_buffer(enc, n, &err);
	spng_ctx_free(enc);
	free(ga);
	if (!png) {
		fprintf(stderr, "bench_tessellate: could not encode the PNG\n");
		exit(1);
	}
	return png;
}

enum { COUNT, DECODE, GRID, GRID_EXP, SIL, SIL_EXP, N_FIGURES };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Seconds of one tessellation; its counts into *m_out (released after). */
static double tessellate(const struct rig_tess_params *p, size_t *verts, size_t *tris,
			 struct rig_errs *errs)
{
	struct rig_tess_mesh m;
	rig_errs_init(errs);
	double t0 = bench_now_seconds();
	int rc = rig_tessellate(&m, p, errs);
	double t = bench_now_seconds() - t0;
	if (rc != 0) {
		fprintf(stderr, "bench_tessellate: %s\n",
			errs->count ? errs->items[0].detail : "?");
		exit(1);
	}
	*verts = m.n_verts;
	*tris = m.n_tris;
	rig_tess_mesh_release(&m);
	return t;
}

/* usage: bench_tessellate [ROUNDS]  (1 to 9, default 9; scripts/bench.sh's quick mode runs 2) */
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;
	if (rounds < 1 || rounds > ROUNDS) {
		fprintf(stderr, "usage: bench_tessellate [ROUNDS: 1 to %d]\n", ROUNDS);
		return 2;
	}
	uint8_t *alpha = bench_xcalloc((size_t)SIDE * SIDE, 1);
	draw(alpha);
	size_t png_n = 0;
	void *png = encode_png(alpha, &png_n);
	struct rig_errs *errs = rig_errs_new();
	if (!errs)
		return 1;
	struct rig_alpha_image img = {alpha, SIDE, SIDE};
	struct rig_tess_params p[N_FIGURES];
	const double expansion[N_FIGURES] = {0, 0, 0, 8, 0, 8};
	for (int f = GRID; f < N_FIGURES; f++) {
		rig_tess_params_init(&p[f]);
		p[f].width = p[f].height = 512;
		p[f].density = DENSITY;
		p[f].mode = f == GRID || f == GRID_EXP ? RIG_TESS_GRID : RIG_TESS_SILHOUETTE;
		p[f].image = &img;
		p[f].expansion = expansion[f];
	}
	static double t[N_FIGURES][ROUNDS];
	size_t verts[N_FIGURES] = {0}, tris[N_FIGURES] = {0}, covered = 0;
	for (int r = 0; r < rounds; r++) {
		double t0 = bench_now_seconds();
		size_t n = 0;
		for (size_t k = 0; k < (size_t)SIDE * SIDE; k++)
			n += alpha[k] > 12;
		t[COUNT][r] = bench_now_seconds() - t0;
		covered = n;

		struct rig_alpha_plane plane;
		rig_errs_init(errs);
		t0 = bench_now_seconds();
		int rc = rig_png_alpha_decode(&plane, png, png_n, errs);
		t[DECODE][r] = bench_now_seconds() - t0;
		if (rc != 0 || memcmp(plane.alpha, alpha, (size_t)SIDE * SIDE) != 0) {
			fprintf(stderr, "bench_tessellate: the PNG did not decode to its image\n");
			return 1;
		}
		rig_alpha_plane_release(&plane);

		for (int f = GRID; f < N_FIGURES; f++)
			t[f][r] = tessellate(&p[f], &verts[f], &tris[f], errs);
	}
	printf("bench_tessellate: %d x %d alpha image (%zu pixels above 12), density %d; best of "
	       "%d rounds (median), milliseconds\n\n",
	       SIDE, SIDE, covered, DENSITY, rounds);
	const char *names[N_FIGURES] = {"count pass (baseline)",
					"png decode (baseline)",
					"grid",
					"grid, expansion 8",
					"silhouette",
					"silhouette, expansion 8"};
	printf("%-26s %9s %9s   %7s %7s\n", "case", "best", "median", "verts", "tris");
	for (int f = 0; f < N_FIGURES; f++) {
		qsort(t[f], (size_t)rounds, sizeof t[f][0], cmp_double);
		printf("%-26s %9.3f %9.3f", names[f], t[f][0] * 1e3, t[f][rounds / 2] * 1e3);
		if (f >= GRID)
			printf("   %7zu %7zu   %.1fx the count pass", verts[f], tris[f],
			       t[f][0] / t[COUNT][0]);
		else if (f == DECODE)
			printf("   (%zu bytes of PNG)", png_n);
		printf("\n");
	}
	rig_errs_free(errs);
	free(png);
	free(alpha);
	return 0;
}
