/* bench_dtoa: ns per double of rig_format_double beside the Ryu printer it
 * replaced (tests/unit/api/dtoa_reference.c), in the same run, over three
 * families: vertex coordinates as a JSON frame holds them (16–17 digits), random
 * bit patterns (mostly exponent form) and short values (integers, 0.5, 1e-7,
 * 123.25). Best of 200 alternating rounds over 20,000 doubles, a 10,000-vertex
 * frame. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/util/textbuf.h"
#include "bench_util.h"
#include "dtoa_reference.h"

#define N 20000
#define ROUNDS 200

/* ns per double of one pass of format over v. */
static double pass_ns(int (*format)(char *, double), const double *v, size_t *sink)
{
	static char out[N * 32];
	double t0 = bench_now_seconds();
	char *p = out;
	for (int i = 0; i < N; i++)
		p += format(p, v[i]);
	*sink += (size_t)(p - out) + (unsigned char)out[N];
	return (bench_now_seconds() - t0) * 1e9 / N;
}

int main(void)
{
	static double vertex[N], random[N], shortv[N];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	const double few[] = {0.5, 1e-7, 123.25, 0.1, 2.5, -0.75, 1e6, 0.001};
	for (int i = 0; i < N; i++) {
		double a = i * 0.0137;
		vertex[i] = (i % 2 ? cos(a) : sin(a)) * (37.5 + i % 100) + (i % 7) * 0.1;
		do {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			memcpy(&random[i], &x, sizeof x);
		} while (!isfinite(random[i]));
		shortv[i] = i % 2 ? (double)(i % 1000 - 500) : few[(i / 2) % 8];
	}
	const char *names[] = {"vertex", "random bits", "short"};
	const double *sets[] = {vertex, random, shortv};
	size_t sink = 0;
	printf("%-12s %10s %10s %7s\n", "ns/double", "ryu (old)", "schubfach", "ratio");
	for (int s = 0; s < 3; s++) {
		/* Rounds alternate between the two, so a busy machine (the VM's
		 * cores are shared) slows both alike; the best round of each counts. */
		double old = 1e30, now = 1e30;
		for (int r = 0; r < ROUNDS; r++) {
			double o = pass_ns(rig_test_ryu_format_double, sets[s], &sink);
			double n = pass_ns(rig_format_double, sets[s], &sink);
			old = o < old ? o : old;
			now = n < now ? n : now;
		}
		printf("%-12s %10.1f %10.1f %6.2fx\n", names[s], old, now, old / now);
	}
	return sink == 0; /* keeps the output live */
}
