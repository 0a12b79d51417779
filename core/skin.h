/* The skin evaluator: linear blend or dual-complex skinning of a 2D mesh by
 * affine joints.
 *
 * A definition (struct rig_skin_def) is editable data. rig_skin_new() checks it
 * against every rule of SPEC §3, reporting every violation, and snapshots it into
 * an immutable evaluator with inverse(bind) precomputed; rig_skin_evaluate() then
 * deforms every vertex by its joints' skin matrices and validates the result.
 * No I/O; the evaluator owns copies of everything it was given.
 *
 * The skin matrix of joint j at a pose is M_j = pose_j · bind_j⁻¹ (mesh-local
 * rest space → mesh-local posed space): the affine [a, b, c, d, e, f] with
 * linear part A = [[a, c], [b, d]] and translation t = (e, f), so M·v = A·v + t.
 * A vertex v with influences (j_k, w_k), Σw = 1, moves to
 *
 *   lbs (the default):  v' = Σ_k w_k · M_{j_k} · v                (core/skin_kernel.h)
 *
 *   dqs:  each M is split once per frame as M·v = R·(S·v) + t, R the rotation
 *         by θ = atan2(b − c, a + d) and S = Rᵀ·A the residual — for det A > 0
 *         the polar decomposition A = R·S with S symmetric positive definite;
 *         for det A ≤ 0 (a mirror) the same formula still gives a symmetric S,
 *         now indefinite, carrying the reflection (θ = 0 where a + d = b − c = 0).
 *         The rigid part x ↦ R·x + t becomes the dual complex number
 *         (r, d) = (e^{iθ/2}, ½·t·r̄) (t as the complex number e + i·f; r is
 *         taken with Re r ≥ 0). Per vertex, with σ_k = +1 when
 *         Re(r_{j_k}·r̄_{j_0}) ≥ 0 and −1 otherwise (the first influence's
 *         hemisphere):
 *             r_b = Σ_k w_k·σ_k·r_{j_k},   d_b = Σ_k w_k·σ_k·d_{j_k},
 *             S_b = Σ_k w_k·S_{j_k}                        (linear: applied first)
 *             v'  = (r_b² · (S_b·v) + 2·d_b·r_b) / |r_b|²
 *         i.e. S_b applied to the rest vertex, then the normalised blended
 *         rigid transform (rotation r̂², translation 2·d̂·r̂, r̂ = r_b/|r_b|).
 *         |r_b| ≥ w_0 > 0 in exact arithmetic; where |r_b|² < 1e-12 (only when
 *         the first weight is below 1e-6 and the other rotors cancel) the
 *         vertex is skinned by lbs instead, so no vertex divides by ~0. A
 *         single influence gives M·v to rounding.
 *
 * Pins (skin.puppet, issue 24 item 6): a skin may carry puppet pins
 * (core/puppet.h) over its own rest mesh. Each frame the pins, evaluated at
 * the layer's local frame, refine the rest vertices first (rig_puppet_deform
 * of an evaluator built once over the skin's source and triangles), then the
 * method above maps the refined vertices v̂ in place of v with the skin's
 * weights and binds, which stay bound to the rest positions; the deformed-
 * mesh checks then run once, on the result, against the rest source. The
 * pins' factorisation depends on the rest mesh and the pins' static
 * stiffness only, never on a pose. A skin without pins runs exactly the
 * code it ran before.
 */
#ifndef RIG_SKIN_H
#define RIG_SKIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/affine.h"
#include "core/err.h"
#include "core/isa.h"
#include "core/puppet.h"

/* Joint index of an influence whose joint id named no joint of the skin. */
#define RIG_JOINT_UNKNOWN UINT32_MAX

struct rig_skin_joint {
	char id[RIG_ID_MAX + 1];       /* local to the skin definition */
	char layer_id[RIG_ID_MAX + 1]; /* the shot layer it follows; "" outside shots */
	struct rig_affine bind;        /* joint-local → mesh-local at rest */
};

struct rig_skin_influence {
	uint32_t joint; /* index into joints, or RIG_JOINT_UNKNOWN */
	double weight;
};

/* How a skin blends its joints (the file comment gives both formulas). Zero
 * is the default, linear blend skinning. */
enum rig_skin_method { RIG_SKIN_LBS = 0, RIG_SKIN_DQS = 1, RIG_SKIN_METHOD_COUNT };

/* The method's wire name ("lbs", "dqs"); NULL for a value outside the enum. */
const char *rig_skin_method_name(enum rig_skin_method method);

/* Parses a wire name into *out. Returns 0, or -1 (out untouched) for any
 * other string (NULL included). */
int rig_skin_method_parse(enum rig_skin_method *out, const char *name);

/* A skin definition. As a parameter it is borrowed; when a struct owns its
 * arrays (rig_skin_def_copy) it is released with rig_skin_def_release().
 * weight_offsets has n_weight_lists + 1 entries: vertex v's influences are
 * influences[weight_offsets[v] .. weight_offsets[v + 1]). */
struct rig_skin_def {
	double *source; /* 2 · n_verts, interleaved x, y */
	size_t n_verts;
	uint32_t *triangles; /* 3 · n_tris; out-of-range values are reported, not trusted */
	size_t n_tris;
	struct rig_skin_joint *joints;
	size_t n_joints;
	uint32_t *weight_offsets;
	struct rig_skin_influence *influences;
	size_t n_weight_lists;       /* must equal n_verts */
	enum rig_skin_method method; /* zero: RIG_SKIN_LBS; kept with the joints */
	/* skin.puppet: the pins that refine the source each frame, or NULL (no
	 * pins: today's skin). A heap object owned with the def (its own
	 * rest mesh NULL and counts 0: the skin's source and triangles are its
	 * mesh); kept with the joints, like the method. */
	struct rig_puppet_def *puppet;
	/* Texture coordinates (issue 25): has_uvs says the skin has them, kept
	 * with the joints (so a model holding the joints only knows), and uvs
	 * holds 2 · n_verts of them while the per-vertex arrays are loaded. */
	bool has_uvs;
	double *uvs;
};

/* Deep-copies src into *out (which it overwrites). Returns 0, or -1 when out of
 * memory (then *out is zeroed). */
int rig_skin_def_copy(struct rig_skin_def *out, const struct rig_skin_def *src);

/* Frees the arrays of a def filled by rig_skin_def_copy (or built the same way
 * with malloc) and zeroes it. Safe on a zeroed def. */
void rig_skin_def_release(struct rig_skin_def *def);

/* The part of rig_skin_def_release that frees the per-vertex arrays (source,
 * triangles, weights) and zeroes their counts, keeping the joints: a shot
 * model holds large skins as joints only until an op needs the rest. */
void rig_skin_def_release_arrays(struct rig_skin_def *def);

/* Copies what a shot model keeps of every skin (the joints, the method,
 * has_uvs and the pins) from src into out, whose per-vertex arrays are its own and whose
 * joints and pins are not set yet. Returns 0, or -1 when out of memory (out's
 * joints and pins NULL then). */
int rig_skin_def_copy_head(struct rig_skin_def *out, const struct rig_skin_def *src);

/* Looks up a joint by id; returns its index or RIG_JOINT_UNKNOWN. */
uint32_t rig_skin_def_joint_index(const struct rig_skin_def *def, const char *joint_id);

/* The one weights rule, shared by layer.skin and layer.skin.weights.put: 1–8
 * influences, each an existing (joint < n_joints) distinct joint with a finite
 * weight > 0, and |Σw − 1| ≤ 64·DBL_EPSILON. Records SKIN_WEIGHTS violations
 * (vertex_index = vertex_index, influence_index where one is at fault, pointer
 * "/weights/<v>[/<k>]"). On success divides every weight by the sum in place and
 * returns 0; on failure returns -1 and leaves the list unchanged. */
int rig_skin_check_influences(struct rig_skin_influence *list, size_t n, size_t n_joints,
			      size_t vertex_index, struct rig_errs *errs);

/* The opt-in rescaling of layer.skin.weights.put's normalize: when every
 * weight of list is finite and > 0 and their sum is finite, divides each by
 * the sum (w_k / Σw) and returns true. Otherwise leaves the list unchanged and
 * returns false: a zero, negative or non-finite weight stays an error for
 * rig_skin_check_influences to report, never something rescaling hides. */
bool rig_skin_normalize_influences(struct rig_skin_influence *list, size_t n);

/* Checks a whole definition: rig_mesh_check_source(), joints (SKIN_JOINTS:
 * count 1–256, ids valid and distinct; SKIN_BIND: bind finite and safely
 * invertible), weights (SKIN_WEIGHTS: one list per vertex, each as
 * rig_skin_check_influences), method (OP_INVALID at "/method" outside the
 * enum; decoders reject unknown names first), and the pins when it carries
 * them: rig_puppet_def_check over the skin's source and triangles, its
 * pointers under "/puppet" ("/puppet/pins/2/stiffness"; PUPPET_PINS,
 * PUPPET_PIN_VERTEX), run once the source itself is sound (its violations
 * are the skin's, reported once). Reports every violation. Does not modify def.
 * Returns 0 when valid, -1 otherwise. */
int rig_skin_check_def(const struct rig_skin_def *def, struct rig_errs *errs);

/* The evaluator: an immutable, validated snapshot of a definition. */
struct rig_skin;

/* Checks def (as rig_skin_check_def) and returns a new evaluator holding a copy
 * with normalised weights and inverse binds; later changes to def's arrays do not
 * affect it. Returns NULL with errs filled when def is invalid, or NULL with
 * INTERNAL when out of memory. Free with rig_skin_free(). */
struct rig_skin *rig_skin_new(const struct rig_skin_def *def, struct rig_errs *errs);

/* Builds an evaluator from a definition that passed rig_skin_check_def before
 * it was stored (weights already normalised), without repeating the rules: it
 * checks only what memory safety needs (counts, indices, finite numbers,
 * invertible binds) and answers INTERNAL if stored data is damaged. Takes the
 * large arrays of def (source, triangles, weights: set to NULL in def) and
 * copies its joints. Returns NULL with errs filled on failure (def keeps its
 * arrays then only if the check failed before taking them). Free with
 * rig_skin_free(). */
struct rig_skin *rig_skin_take(struct rig_skin_def *def, struct rig_errs *errs);

/* The bytes an evaluator holds (its struct and every array), for caches that
 * bound their memory. */
size_t rig_skin_bytes(const struct rig_skin *skin);

/* Frees an evaluator; NULL is a no-op. */
void rig_skin_free(struct rig_skin *skin);

/* The evaluator's snapshot (normalised weights); borrowed until rig_skin_free(). */
const struct rig_skin_def *rig_skin_def_of(const struct rig_skin *skin);

/* A pose naming its joint, as a client sends it. */
struct rig_skin_pose {
	const char *joint_id;
	struct rig_affine matrix;
};

/* Orders named poses by joint index into out (n_joints entries). Every joint
 * must be posed exactly once with six finite numbers: a missing, repeated or
 * unknown joint or a non-finite matrix is SKIN_POSE (joint_id, and pointer
 * "/poses/<i>" where a pose is at fault). Returns 0, or -1 with errs filled. */
int rig_skin_order_poses(struct rig_affine *out, const struct rig_skin *skin,
			 const struct rig_skin_pose *poses, size_t n_poses, struct rig_errs *errs);

/* The skinning kernel alone (the rest source, pins left out): writes 2 · n_verts doubles to out_xy
 * from poses in joint order by the skin's method, on the instruction-set path the evaluator picked
 * when it was built (core/isa.h: every path gives the same bits; dqs has one portable loop that
 * every path runs). No checks; poses must be finite. */
void rig_skin_deform(double *out_xy, const struct rig_skin *skin, const struct rig_affine *poses);

/* rig_skin_deform on the path isa, which must be supported
 * (rig_isa_is_supported): for the tests that compare every path's bytes and
 * the benchmark that times each. */
void rig_skin_deform_isa(double *out_xy, const struct rig_skin *skin,
			 const struct rig_affine *poses, enum rig_isa isa);

/* The evaluator of the skin's pins (built once with the skin), or NULL for a
 * skin without pins; borrowed until rig_skin_free(). */
const struct rig_puppet *rig_skin_puppet(const struct rig_skin *skin);

/* Evaluates the skin at the layer's local_frame: for a skin with pins, the
 * pins at local_frame refine the rest vertices first (the file comment),
 * *out_ran (may be NULL) then says which puppet solver ran; without pins it is
 * rig_skin_evaluate, the frame unused and *out_ran left alone. Returns 0, or
 * -1 with errs filled. */
int rig_skin_evaluate_at(double *out_xy, enum rig_puppet_ran *out_ran, const struct rig_skin *skin,
			 const struct rig_affine *poses, double local_frame, struct rig_errs *errs);

/* Evaluates the skin: checks poses are finite (SKIN_POSE), deforms into out_xy
 * (2 · n_verts doubles, owned by the caller) and validates the result with
 * rig_mesh_check_deformed()'s rules and errors (a check prepared with the
 * evaluator, core/mesh_check.h). A skin with pins takes them at frame 0
 * (rig_skin_evaluate_at). Returns 0, or -1 with errs filled (out_xy is
 * then unspecified). */
int rig_skin_evaluate(double *out_xy, const struct rig_skin *skin, const struct rig_affine *poses,
		      struct rig_errs *errs);

#endif
