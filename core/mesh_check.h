/* The deformed-mesh checks of a source mesh prepared once for many frames:
 * every frame's result is checked with rig_mesh_check_deformed's rules
 * (core/mesh.h) in one pass over a layout built for it, and reported by the
 * same slow pass when it breaks one.
 *
 * The layout (rig_mesh_check_init): the triangles grouped into runs whose three
 * corners each advance by one vertex from one triangle to the next (the rows
 * of a grid, in whatever order the mesh lists them). A run's corners are
 * contiguous, so a vector path loads them without gathers, and its triangles
 * share one winding and sizes within a factor RIG_MESH_CHECK_RUN_SPREAD, so
 * one collapse limit serves the run: L = 1e-6 · the largest |2A_source|. A
 * run's triangle whose deformed area keeps its winding and is at least L holds
 * (L is at least its own limit); only when some triangle of the run falls
 * below L is the run measured again triangle by triangle against its own
 * limits, from the source. Triangles in no run of RIG_MESH_CHECK_MIN_RUN are
 * listed singly with their own limits, and the vertices no triangle uses are
 * listed, since only their finiteness needs a look of its own (a non-finite
 * corner makes a triangle's area non-finite, which the area rule rejects).
 *
 * A limit is l = 1e-6 · |2A_source|, negated when the source area is not
 * positive: a deformed area a holds when a (negated when l is negative) is at
 * least |l| and finite, mesh.c's rule term for term.
 *
 * The runs are kept in the order of the vertex each needs last, and the
 * singles, in the mesh's order, in blocks that know the vertex they need
 * last, so a caller that writes dst in vertex order can check each run and
 * each leading block as soon as it is written, while its vertices are still
 * in cache (rig_skin_evaluate checks after each stretch of its kernel:
 * rig_mesh_check_advance).
 *
 * The pass only decides: any order gives the same answer, and when it says no,
 * rig_mesh_check_deformed's report walks the mesh in its own order, so the
 * errors (codes, details, indices, order, the count and total caps) are the
 * same as from rig_mesh_check_deformed.
 */
#ifndef RIG_MESH_CHECK_H
#define RIG_MESH_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/isa.h"

/* Shorter runs are listed singly; every vector path covers one at once. */
#define RIG_MESH_CHECK_MIN_RUN 8
/* Singles per block of the singles' list. */
#define RIG_MESH_CHECK_BLOCK 64
/* A run's largest source area is at most this many times its smallest: only
 * a triangle shrunk below 4e-6 of its area sends a run to be measured again. */
#define RIG_MESH_CHECK_RUN_SPREAD 4.0

/* Triangle i of a run has corners first[0] + i, first[1] + i, first[2] + i. */
struct rig_mesh_run {
	uint32_t first[3];
	uint32_t n_tris;
	double limit; /* the largest of its triangles' |l|, with their sign */
};

/* A prepared check. Borrows src and tris from its owner (they must outlive it
 * and not change); owns the rest. Fill with rig_mesh_check_init, free with
 * rig_mesh_check_release; a zeroed struct is safe to release. */
struct rig_mesh_check {
	const double *src;    /* 2 · n_verts, the source the areas are measured on */
	const uint32_t *tris; /* 3 · n_tris, as the mesh lists them */
	size_t n_verts, n_tris;
	struct rig_mesh_run *runs;
	size_t n_runs;
	const uint32_t *singles; /* 3 per triangle in no run: tris itself when no run */
	uint32_t *singles_owned; /* singles when they are a copy, else NULL */
	double *limits;          /* each single's l */
	size_t n_singles;
	uint32_t *block_ready; /* per block of singles: the vertex after the last it uses */
	uint32_t *lonely;      /* vertices no triangle uses */
	size_t n_lonely;
	/* The path's loop over one run against its one limit, picked by init. */
	bool (*run_passes)(const double *dst, const struct rig_mesh_run *run);
};

/* Builds the layout of a source mesh whose triangle indices are all inside
 * [0, n_verts) (the caller has checked). The pass will run isa's path, which
 * must be supported (rig_isa_is_supported). Returns 0, or -1 when out of
 * memory (then *out is zeroed). */
int rig_mesh_check_init(struct rig_mesh_check *out, const double *src, size_t n_verts,
			const uint32_t *tris, size_t n_tris, enum rig_isa isa);

/* Frees what init allocated and zeroes *c. */
void rig_mesh_check_release(struct rig_mesh_check *c);

/* The bytes the layout holds (not counting the borrowed src and tris). */
size_t rig_mesh_check_bytes(const struct rig_mesh_check *c);

/* Checks dst (2 · n_verts doubles) as rig_mesh_check_deformed(c->src, dst, …)
 * does, with the same errors on failure. Returns 0, or -1 with errs filled. */
int rig_mesh_check_run(const struct rig_mesh_check *c, const double *dst, struct rig_errs *errs);

/* The same pass in steps, for a caller writing dst in vertex order: begin,
 * advance as the vertices are written, finish once they all are. */
struct rig_mesh_check_cursor {
	size_t run;   /* the next run to look at */
	size_t block; /* the next block of singles */
	bool is_ok;   /* whether every run and block looked at holds */
};

/* Starts a pass: nothing looked at yet. */
void rig_mesh_check_begin(struct rig_mesh_check_cursor *out);

/* Looks at the runs, and the blocks of singles up to the first that is not
 * ready, every corner of which is below n_ready (those vertices of dst are
 * written). */
void rig_mesh_check_advance(struct rig_mesh_check_cursor *at, const struct rig_mesh_check *c,
			    const double *dst, size_t n_ready);

/* Looks at the rest, dst being written whole, and returns as
 * rig_mesh_check_run does (errs filled on -1). */
int rig_mesh_check_finish(struct rig_mesh_check_cursor *at, const struct rig_mesh_check *c,
			  const double *dst, struct rig_errs *errs);

/* ---- per path (internal to core/: mesh_check.c, mesh_check_x86.c) ---- */

/* Whether every triangle of a run keeps its winding with a finite area of at
 * least |run->limit|. True means every one holds; false, that the run must be
 * measured against its triangles' own limits. */
bool rig_mesh__run_passes_portable(const double *dst, const struct rig_mesh_run *run);
#if RIG_ISA_X86
bool rig_mesh__run_passes_avx2(const double *dst, const struct rig_mesh_run *run);
#endif

#endif
