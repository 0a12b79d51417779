/* Deformed-mesh checks prepared once per source mesh (core/mesh_check.h): the
 * layout's build, the pass's portable loops, and the pass itself. The AVX2
 * loop over a run is mesh_check_x86.c; the rules and the report are mesh.c's.
 */
#include "core/mesh_check.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/mesh.h"

/* ------------------------------------------------------------------------ */
/* The rule, on a precomputed limit                                          */
/* ------------------------------------------------------------------------ */

#define SIGN_BIT 0x8000000000000000u

/* The collapse limit of a triangle of source area a_src (2A):
 * l = 1e-6 · |a_src|, negated when a_src is not positive (NaN included). */
static double collapse_limit(double a_src)
{
	double l = RIG_MESH_COLLAPSED_RELATIVE * fabs(a_src);
	return a_src > 0 ? l : -l;
}

/* mesh.c's triangle_holds(a_src, a_dst) on l = collapse_limit(a_src): kept is
 * a_dst, negated when l's sign bit is set (a_src not positive), and the
 * triangle holds when kept ≥ |l| (= 1e-6 · |a_src|, the same product) and kept
 * is finite. Sign bits by masks, so no branch. */
static inline bool holds(double a_dst, double limit)
{
	uint64_t a, l;
	memcpy(&a, &a_dst, sizeof a);
	memcpy(&l, &limit, sizeof l);
	a ^= l & SIGN_BIT;
	l &= ~SIGN_BIT;
	double kept, floor;
	memcpy(&kept, &a, sizeof kept);
	memcpy(&floor, &l, sizeof floor);
	return (kept >= floor) & (kept <= DBL_MAX);
}

/* Triangle i of a run: its 2A on xy (rig_mesh__area2 with contiguous corners). */
static inline double run_area2(const double *xy, const struct rig_mesh_run *run, size_t i)
{
	return rig_mesh__area2(xy, run->first[0] + i, run->first[1] + i, run->first[2] + i);
}

bool rig_mesh__run_passes_portable(const double *dst, const struct rig_mesh_run *run)
{
	bool is_ok = true;
	for (size_t i = 0; i < run->n_tris; i++)
		is_ok &= holds(run_area2(dst, run, i), run->limit);
	return is_ok;
}

/* The run measured triangle by triangle against its own limits. */
static bool run_holds(const double *src, const double *dst, const struct rig_mesh_run *run)
{
	bool is_ok = true;
	for (size_t i = 0; i < run->n_tris; i++)
		is_ok &= holds(run_area2(dst, run, i), collapse_limit(run_area2(src, run, i)));
	return is_ok;
}

/* Corners as (x, y) pairs (a GNU C vector: one SSE2/NEON register), so a
 * triangle is three loads: e = b − a, f = c − a, e · (f_y, f_x) is
 * ((bx − ax)·(cy − ay), (by − ay)·(cx − ax)), and their difference is
 * rig_mesh__area2, operation for operation. */
typedef double pair __attribute__((vector_size(16)));

static inline pair corner(const double *xy, uint32_t v)
{
	pair p;
	memcpy(&p, &xy[2 * (size_t)v], sizeof p);
	return p;
}

static bool singles_hold(const double *dst, const uint32_t *tris, size_t n_tris,
			 const double *limits)
{
	bool is_ok = true;
	for (size_t t = 0; t < n_tris; t++) {
		pair a = corner(dst, tris[3 * t]);
		pair e = corner(dst, tris[3 * t + 1]) - a, f = corner(dst, tris[3 * t + 2]) - a;
		pair terms = e * (pair){f[1], f[0]};
		is_ok &= holds(terms[0] - terms[1], limits[t]);
	}
	return is_ok;
}

static bool lonely_are_finite(const double *dst, const uint32_t *lonely, size_t n)
{
	bool is_ok = true;
	for (size_t i = 0; i < n; i++)
		is_ok &= isfinite(dst[2 * (size_t)lonely[i]]) &
			 isfinite(dst[2 * (size_t)lonely[i] + 1]);
	return is_ok;
}

/* The vertex after the last one run's triangles use: the run can be checked
 * once the vertices below it are written. */
static size_t run_ready(const struct rig_mesh_run *run)
{
	uint32_t last = run->first[0] > run->first[1] ? run->first[0] : run->first[1];
	last = last > run->first[2] ? last : run->first[2];
	return (size_t)last + run->n_tris;
}

void rig_mesh_check_begin(struct rig_mesh_check_cursor *out)
{
	*out = (struct rig_mesh_check_cursor){0, 0, true};
}

void rig_mesh_check_advance(struct rig_mesh_check_cursor *at, const struct rig_mesh_check *c,
			    const double *dst, size_t n_ready)
{
	for (; at->run < c->n_runs && run_ready(&c->runs[at->run]) <= n_ready; at->run++)
		if (!c->run_passes(dst, &c->runs[at->run]))
			at->is_ok &= run_holds(c->src, dst, &c->runs[at->run]);
	size_t n_blocks = (c->n_singles + RIG_MESH_CHECK_BLOCK - 1) / RIG_MESH_CHECK_BLOCK;
	for (; at->block < n_blocks && c->block_ready[at->block] <= n_ready; at->block++) {
		size_t from = at->block * RIG_MESH_CHECK_BLOCK;
		size_t n = c->n_singles - from < RIG_MESH_CHECK_BLOCK ? c->n_singles - from
								      : RIG_MESH_CHECK_BLOCK;
		at->is_ok &= singles_hold(dst, &c->singles[3 * from], n, &c->limits[from]);
	}
}

int rig_mesh_check_finish(struct rig_mesh_check_cursor *at, const struct rig_mesh_check *c,
			  const double *dst, struct rig_errs *errs)
{
	rig_mesh_check_advance(at, c, dst, c->n_verts);
	bool is_ok = at->is_ok && lonely_are_finite(dst, c->lonely, c->n_lonely);
	if (is_ok)
		return 0;
	size_t before = errs->total;
	rig_mesh__report_deformed(c->src, dst, c->n_verts, c->tris, c->n_tris, errs);
	assert(errs->total > before); /* both passes apply the same rules */
	return errs->total == before ? 0 : -1;
}

int rig_mesh_check_run(const struct rig_mesh_check *c, const double *dst, struct rig_errs *errs)
{
	struct rig_mesh_check_cursor at;
	rig_mesh_check_begin(&at);
	return rig_mesh_check_finish(&at, c, dst, errs);
}

/* ------------------------------------------------------------------------ */
/* The layout                                                                */
/* ------------------------------------------------------------------------ */

/* Runs still open to the next triangle: the most recent few. A grid's rows
 * interleave two (one per triangle of a cell); a mesh that interleaves more
 * than this lists the rest singly, which is slower, never wrong. */
#define OPEN_RUNS 8

struct open_run {
	uint32_t next[3]; /* the corners a triangle continuing the run has */
	uint32_t run;
	double least, most; /* its triangles' smallest and largest |l| */
	bool is_positive;   /* its triangles' source winding */
};

/* Whether a triangle with limit l (finite, non-zero source area) may join o. */
static bool may_join(const struct open_run *o, const uint32_t v[3], double l)
{
	double a = fabs(l);
	return o->next[0] == v[0] && o->next[1] == v[1] && o->next[2] == v[2] &&
	       o->is_positive == (l > 0) &&
	       fmax(o->most, a) <= RIG_MESH_CHECK_RUN_SPREAD * fmin(o->least, a);
}

/* The runs of the mesh in the order they start, and each triangle's run
 * (UINT32_MAX: none, its source area being zero or not finite): a triangle
 * continues the most recent open run that may take it, or starts one. */
static int find_runs(struct rig_mesh_run **out_runs, size_t *out_n, uint32_t *run_of,
		     const double *src, const uint32_t *tris, size_t n_tris)
{
	struct rig_mesh_run *runs = NULL;
	size_t n_runs = 0, cap = 0, n_open = 0, newest = 0;
	struct open_run open[OPEN_RUNS];
	for (size_t t = 0; t < n_tris; t++) {
		const uint32_t *v = &tris[3 * t];
		double a_src = rig_mesh__area2(src, v[0], v[1], v[2]);
		double l = collapse_limit(a_src);
		run_of[t] = UINT32_MAX;
		if (!(isfinite(a_src) && a_src != 0))
			continue;
		struct open_run *o = NULL;
		for (size_t k = 0; k < n_open && !o; k++) {
			struct open_run *cand = &open[(newest + OPEN_RUNS - k) % OPEN_RUNS];
			if (may_join(cand, v, l))
				o = cand;
		}
		if (o) {
			runs[o->run].n_tris++;
			o->least = fmin(o->least, fabs(l));
			o->most = fmax(o->most, fabs(l));
		} else {
			if (!rig_array_grow((void **)&runs, &cap, n_runs, sizeof *runs)) {
				free(runs);
				return -1;
			}
			runs[n_runs] = (struct rig_mesh_run){{v[0], v[1], v[2]}, 1, 0};
			newest = (newest + 1) % OPEN_RUNS;
			n_open += n_open < OPEN_RUNS;
			o = &open[newest];
			*o = (struct open_run){.run = (uint32_t)n_runs++,
					       .least = fabs(l),
					       .most = fabs(l),
					       .is_positive = l > 0};
		}
		for (int i = 0; i < 3; i++)
			o->next[i] = v[i] + 1;
		run_of[t] = o->run;
		struct rig_mesh_run *r = &runs[o->run];
		r->limit = l > 0 ? fmax(r->limit, l) : fmin(r->limit, l);
	}
	*out_runs = runs;
	*out_n = n_runs;
	return 0;
}

/* The vertices no triangle uses, into a new array (NULL when there are none). */
static int find_lonely(uint32_t **out, size_t *out_n, const uint32_t *tris, size_t n_tris,
		       size_t n_verts)
{
	*out = NULL;
	*out_n = 0;
	unsigned char *is_used = calloc(n_verts ? n_verts : 1, 1);
	if (!is_used)
		return -1;
	for (size_t i = 0; i < 3 * n_tris; i++)
		is_used[tris[i]] = 1;
	size_t n = 0;
	for (size_t v = 0; v < n_verts; v++)
		n += !is_used[v];
	if (n > 0 && !(*out = malloc(n * sizeof **out))) {
		free(is_used);
		return -1;
	}
	for (size_t v = 0; v < n_verts; v++)
		if (!is_used[v])
			(*out)[(*out_n)++] = (uint32_t)v;
	free(is_used);
	return 0;
}

/* malloc(n · size), overflow-checked; n = 0 still gives a pointer to free. */
static void *alloc_n(size_t n, size_t size)
{
	if (n == 0)
		n = 1;
	return n > SIZE_MAX / size ? NULL : malloc(n * size);
}

/* Runs by the vertex they need last, then by their corners: equal keys are
 * equal runs (the same triangles), so the order is the same on every
 * platform whatever qsort does with them. */
static int cmp_ready(const void *pa, const void *pb)
{
	const struct rig_mesh_run *a = pa, *b = pb;
	size_t ra = run_ready(a), rb = run_ready(b);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	for (int i = 0; i < 3; i++)
		if (a->first[i] != b->first[i])
			return a->first[i] < b->first[i] ? -1 : 1;
	return 0;
}

/* Lays the triangles out: the runs of RIG_MESH_CHECK_MIN_RUN or more by the
 * vertex they need last, then every other triangle singly, in the mesh's
 * order, with its limit. found (n_found, indexed by run_of) stays the
 * caller's. */
static int lay_out(struct rig_mesh_check *c, const struct rig_mesh_run *found, size_t n_found,
		   const uint32_t *run_of)
{
	size_t n_kept = 0, in_runs = 0;
	for (size_t r = 0; r < n_found; r++) {
		if (found[r].n_tris >= RIG_MESH_CHECK_MIN_RUN) {
			in_runs += found[r].n_tris;
			n_kept++;
		}
	}
	c->n_runs = n_kept;
	c->n_singles = c->n_tris - in_runs;
	c->singles = c->tris;
	if (n_kept > 0)
		c->runs = alloc_n(n_kept, sizeof *c->runs);
	if (c->n_singles > 0)
		c->limits = alloc_n(c->n_singles, sizeof *c->limits);
	if (n_kept > 0 && c->n_singles > 0)
		c->singles = c->singles_owned = alloc_n(3 * c->n_singles, sizeof *c->singles_owned);
	if ((n_kept > 0 && !c->runs) || (c->n_singles > 0 && !c->limits) || !c->singles)
		return -1;
	for (size_t r = 0, k = 0; r < n_found; r++)
		if (found[r].n_tris >= RIG_MESH_CHECK_MIN_RUN)
			c->runs[k++] = found[r];
	if (n_kept > 1)
		qsort(c->runs, n_kept, sizeof *c->runs, cmp_ready);
	size_t n_single = 0;
	for (size_t t = 0; t < c->n_tris; t++) {
		if (run_of[t] != UINT32_MAX && found[run_of[t]].n_tris >= RIG_MESH_CHECK_MIN_RUN)
			continue;
		const uint32_t *v = &c->tris[3 * t];
		if (c->singles_owned)
			memcpy(&c->singles_owned[3 * n_single], v, 3 * sizeof *v);
		c->limits[n_single++] = collapse_limit(rig_mesh__area2(c->src, v[0], v[1], v[2]));
	}
	size_t n_blocks = (c->n_singles + RIG_MESH_CHECK_BLOCK - 1) / RIG_MESH_CHECK_BLOCK;
	if (n_blocks > 0 && !(c->block_ready = alloc_n(n_blocks, sizeof *c->block_ready)))
		return -1;
	for (size_t b = 0; b < n_blocks; b++) {
		uint32_t last = 0;
		for (size_t i = 3 * b * RIG_MESH_CHECK_BLOCK;
		     i < 3 * c->n_singles && i < 3 * (b + 1) * RIG_MESH_CHECK_BLOCK; i++)
			last = c->singles[i] > last ? c->singles[i] : last;
		c->block_ready[b] = last + 1;
	}
	return 0;
}

int rig_mesh_check_init(struct rig_mesh_check *out, const double *src, size_t n_verts,
			const uint32_t *tris, size_t n_tris, enum rig_isa isa)
{
	struct rig_mesh_check c = {.src = src, .tris = tris, .n_verts = n_verts, .n_tris = n_tris};
	c.run_passes = rig_mesh__run_passes_portable;
#if RIG_ISA_X86
	if (isa == RIG_ISA_AVX2)
		c.run_passes = rig_mesh__run_passes_avx2;
#endif
	int rc = -1;
	struct rig_mesh_run *found = NULL;
	size_t n_found = 0;
	uint32_t *run_of = alloc_n(n_tris, sizeof *run_of);
	if (run_of && find_runs(&found, &n_found, run_of, src, tris, n_tris) == 0 &&
	    lay_out(&c, found, n_found, run_of) == 0 &&
	    find_lonely(&c.lonely, &c.n_lonely, tris, n_tris, n_verts) == 0)
		rc = 0;
	free(found);
	free(run_of);
	if (rc != 0)
		rig_mesh_check_release(&c); /* zeroes c */
	*out = c;
	return rc;
}

void rig_mesh_check_release(struct rig_mesh_check *c)
{
	free(c->runs);
	free(c->singles_owned);
	free(c->limits);
	free(c->block_ready);
	free(c->lonely);
	memset(c, 0, sizeof *c);
}

size_t rig_mesh_check_bytes(const struct rig_mesh_check *c)
{
	return c->n_runs * sizeof *c->runs +
	       (c->singles_owned ? 3 * c->n_singles : 0) * sizeof *c->singles_owned +
	       c->n_singles * sizeof *c->limits +
	       (c->n_singles + RIG_MESH_CHECK_BLOCK - 1) / RIG_MESH_CHECK_BLOCK *
		       sizeof *c->block_ready +
	       c->n_lonely * sizeof *c->lonely;
}
