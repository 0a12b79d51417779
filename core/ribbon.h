/* The ribbon binding (issue 27, item 3): a mesh generated each frame from a
 * chain of layers. The chain's points are the chain layers' world origins in
 * the mesh layer's space (the translation (e, f) of each joint pose the
 * resolver computes, SPEC §4); the mesh is a triangle strip along them, left
 * and right of each point by its width along the normal.
 *
 * Here: the definition and its rules, and the generation (pure math, no I/O).
 * Its row of core/binding.h (evaluator, stored form, diff parts) is
 * ribbon_binding.c; its op layer.ribbon is api/edit/ribbon_binding.c.
 *
 * Generation, for n chain points P₀…Pₙ₋₁ and s segments per span:
 *   - N = (n − 1) · s spans; curve points q₀…q_N. With s = 1 they are the
 *     chain points. With s > 1 span k is the uniform Catmull–Rom curve
 *     C(t) = ½ (2P₁ + (P₂ − P₀) t + (2P₀ − 5P₁ + 4P₂ − P₃) t²
 *               + (3P₁ − P₀ − 3P₂ + P₃) t³)
 *     over P_{k−1}, P_k, P_{k+1}, P_{k+2} (ends duplicated: P₋₁ = P₀,
 *     Pₙ = Pₙ₋₁) at t = j / s; every chain point is a curve point exactly.
 *   - Segment tangents u_i = (q_{i+1} − q_i) / |…|; a zero-length segment
 *     keeps the previous segment's tangent (the first: +x). Point tangents:
 *     t₀ = u₀, t_N = u_{N−1}, inner t_i = normalise(u_{i−1} + u_i), or u_{i−1}
 *     when the two cancel (a full fold back).
 *   - Normal n_i = (−t_y, t_x); width W_i the chain widths interpolated
 *     linearly at arc parameter i / N (chain position i / s).
 *   - Vertex 2i is the left one q_i + n_i W_i, 2i + 1 the right one
 *     q_i − n_i W_i; uvs (i / N, 0) and (i / N, 1).
 *   - Span i: triangles (2i+1, 2i+3, 2i+2) and (2i+1, 2i+2, 2i): positive
 *     signed area (core/mesh.h's A) when the chain runs towards +x.
 *   - Caps: vertex 2(N+1) is the start tip q₀ − t₀ W₀, vertex 2(N+1) + 1 the
 *     end tip q_N + t_N W_N (uvs (0, ½), (1, ½)); triangles (start, 1, 0)
 *     and (2N+1, end, 2N), positive likewise.
 */
#ifndef RIG_RIBBON_H
#define RIG_RIBBON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define RIG_RIBBON_MIN_CHAIN 2
#define RIG_RIBBON_MAX_CHAIN 256 /* RIG_MAX_JOINTS: the resolver poses them */
#define RIG_RIBBON_MIN_SEGMENTS 1
#define RIG_RIBBON_MAX_SEGMENTS 16

/* A ribbon binding definition; as a heap object of the shot model it owns
 * every array (release with rig_ribbon_def_release). The rest mesh (source,
 * triangles, uvs) may be absent (NULL) in a model that did not load it; the
 * counts, the chain and the widths always hold. */
struct rig_ribbon_def {
	char (*chain)[RIG_ID_MAX + 1]; /* n_chain layer ids, root of the strip first */
	double *widths;                /* n_chain, one per chain point */
	size_t n_chain;
	uint32_t segments; /* Catmull–Rom subdivisions per span, 1 = straight */
	bool caps;
	/* The rest mesh: the mesh generated at the shot's frameStart when the op
	 * applied. */
	double *source; /* 2 · n_verts */
	size_t n_verts;
	uint32_t *triangles; /* 3 · n_tris */
	size_t n_tris;
	double *uvs; /* 2 · n_verts */
};

/* Frees every array of d and zeroes it; safe on a zeroed def. */
void rig_ribbon_def_release(struct rig_ribbon_def *d);

/* The counts of the mesh a chain of n_chain points generates. */
size_t rig_ribbon_n_verts(size_t n_chain, uint32_t segments, bool caps);
size_t rig_ribbon_n_tris(size_t n_chain, uint32_t segments, bool caps);

/* Checks the rules that do not need the layer tree: the chain's length
 * (2..256, OP_INVALID at "/chain"), each id well formed (OP_INVALID at
 * "/chain/<i>"), one finite width ≥ 0 per chain point (OP_INVALID at
 * "/widths" for the count, "/widths/<i>" for a value), segments in 1..16
 * (OP_INVALID at "/segments"), and, when the rest mesh is loaded, its counts
 * against the chain's and core/mesh.c's source rules ("/source/<v>",
 * "/triangles/<t>": a zero width makes a degenerate triangle,
 * MESH_DEGENERATE) and finite uvs. Returns 0 or -1. */
int rig_ribbon_def_check(const struct rig_ribbon_def *d, struct rig_errs *errs);

/* Writes the triangles (3 · n_tris) and uvs (2 · n_verts) of the strip d's
 * counts describe (d's chain length, segments and caps; its arrays unused). */
void rig_ribbon_topology(uint32_t *out_tris, double *out_uvs, const struct rig_ribbon_def *d);

/* Generates the vertices (2 · rig_ribbon_n_verts, caller-owned) from the
 * chain points (2 · n_chain doubles, interleaved x, y, in the mesh layer's
 * space) with d's widths, segments and caps. No checks: a non-finite point
 * gives non-finite vertices, for the frame checks to report. */
void rig_ribbon_generate(double *out_xy, const struct rig_ribbon_def *d, const double *points);

#endif
