/* What every benchmark needs besides its subject: a monotonic clock, an
 * allocation that cannot fail quietly, and a plain group layer for rigs built
 * by hand. Benchmarks only: the clock never enters evaluation. */
#ifndef RIG_BENCH_UTIL_H
#define RIG_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rig.h"

static inline double bench_now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* calloc, or exit 1 with a message: a benchmark without its memory has nothing to say. */
static inline void *bench_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (!p) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	return p;
}

/* A group layer id under parent (-1: the root) with the default transform. */
static inline void bench_init_layer(struct rig_layer *l, const char *id, long parent)
{
	memset(l, 0, sizeof *l);
	snprintf(l->id, sizeof l->id, "%s", id);
	l->kind = RIG_LAYER_GROUP;
	l->parent = parent;
	l->statics = rig_transform_default();
}

#endif
