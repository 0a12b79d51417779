/* A shot's layer tree as the resolver sees it, and the resolver.
 *
 * struct rig_scene is a borrowed, read-only view: layers in any order, each with
 * its parent's index. For a skinned mesh layer M and a joint j mapped to layer J:
 *   C      = lowest common ancestor of M and J (the shot root, -1, when none)
 *   P(C→X) = product of local matrices below C down to and including X
 *   pose_j = inverse(P(C→M)) · P(C→J)
 * Shared ancestors cancel, so they may be anything (even singular or deformed).
 *
 * The mesh layer's binding (binding.h) does the deforming: the resolver gives
 * it pose_j for each joint it follows and the layer's local frame.
 *
 * Constraints (constraint.h) pose joint layers after forward kinematics and
 * before anything reads a matrix: the first time a frame is asked for, the
 * resolver evaluates every layer's local transform it needs, runs each usable
 * constraint in order (each sees the ones before it), and writes the solution
 * into the memoised local transforms of its chain layers, so every path,
 * pose and evaluation of that frame sees the constrained pose.
 *
 * A resolver lives for one request. It memoises each layer's local matrix for
 * the frame being evaluated and one inverse(P(C→M)) per (mesh, C); evaluating
 * another frame replaces the memo. A follow chain's pose is replayed from
 * frame_start inside the request; the resolver keeps its last two steps, so
 * frames asked in increasing order continue the replay instead of starting
 * over (the same steps either way: the same bits). No state survives
 * rig_resolver_free(), and nothing depends on a clock or on timing: results
 * are bit-identical on every call.
 */
#ifndef RIG_RIG_H
#define RIG_RIG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/affine.h"
#include "core/binding.h"
#include "core/constraint.h"
#include "core/err.h"
#include "core/keys.h"
#include "core/scene.h"

/* The lowest common ancestor of layers a and b (either may be an ancestor of the
 * other, or equal); RIG_NO_LAYER when they share only the shot root. */
long rig_scene_lca(const struct rig_scene *scene, long a, long b);

/* True when anc is a strict ancestor of x. */
bool rig_scene_is_ancestor(const struct rig_scene *scene, long anc, long x);

/* True when making parent the parent of layer would create a cycle (parent is
 * the layer itself or one of its descendants). */
bool rig_scene_would_cycle(const struct rig_scene *scene, long layer, long parent);

/* The deformation-boundary rule for mesh M and joint layer J: J must not be M or
 * inside M, and no deformed layer may lie strictly between C = lca(M, J) and J or
 * strictly between C and M. Records SKIN_DEFORMATION_BOUNDARY (layer_id = M's
 * id, and the detail names J) and returns -1 when broken, else 0. */
int rig_scene_check_boundary(const struct rig_scene *scene, long mesh, long joint_layer,
			     struct rig_errs *errs);

struct rig_resolver;

/* Returns a new resolver over scene (borrowed until rig_resolver_free()), or
 * NULL when out of memory. */
struct rig_resolver *rig_resolver_new(const struct rig_scene *scene);

/* Frees the resolver and its memo; NULL is a no-op. */
void rig_resolver_free(struct rig_resolver *r);

/* The local matrix of layer at shot frame (keys evaluated at frame − time_offset). */
struct rig_affine rig_resolver_local(struct rig_resolver *r, long layer, double shot_frame);

/* P(C→X): the product of local matrices below ancestor (RIG_NO_LAYER = root)
 * down to and including x, at shot frame. ancestor must be x's ancestor or root. */
struct rig_affine rig_resolver_path(struct rig_resolver *r, long ancestor, long x,
				    double shot_frame);

/* The points constraint k of the scene stands on at shot_frame, in shot
 * space, after every constraint was solved: its chain layers' world origins
 * root to tip, then for IK the tip bone's end (RIG_CONSTRAINT_MAX_POINTS at
 * most, into out_xy as x, y pairs). Returns how many (0 for a constraint the
 * resolver skips: not usable, or its replay was refused). What an editor
 * draws of a chain. */
size_t rig_resolver_constraint_points(double *out_xy, struct rig_resolver *r, size_t k,
				      double shot_frame);

/* Records REPLAY_LIMIT (constraintId, maxReplaySteps, the frame) and returns
 * -1 when a follow chain of the scene cannot be replayed to shot_frame: it
 * lies more than RIG_MAX_REPLAY_STEPS steps from the scene's frame_start.
 * Else 0. Evaluation and joint poses check it themselves; callers reading
 * only local matrices, paths or constraint points check it first. */
int rig_resolver_frame_ok(struct rig_resolver *r, double shot_frame, struct rig_errs *errs);

/* Each joint's pose in mesh-local space (out has one entry per binding joint,
 * in joint order) for bound mesh layer mesh at shot frame. Records
 * SKIN_JOINT_LAYERS for an unmapped joint, SKIN_DEFORMATION_BOUNDARY, and
 * SKIN_LAYER_TRANSFORM (joint_id, frame) when P(C→M) is not safely invertible;
 * every error carries the mesh's layer_id. Returns 0 or -1. */
int rig_resolver_joint_poses(struct rig_affine *out, struct rig_resolver *r, long mesh,
			     double shot_frame, struct rig_errs *errs);

/* Evaluates bound mesh layer mesh at shot frame into out_xy (2 · n_verts
 * doubles, caller-owned), in the mesh's local space: joint poses, then the
 * binding's evaluate at the layer's local frame. Errors carry layer_id and
 * frame. Returns 0 or -1. */
int rig_resolver_evaluate(double *out_xy, struct rig_resolver *r, long mesh, double shot_frame,
			  struct rig_errs *errs);

/* As rig_resolver_evaluate, also filling note (zeroed by the caller; may be
 * NULL) through the binding's evaluate_noted when it has one. */
struct rig_frame_note;
int rig_resolver_evaluate_noted(double *out_xy, struct rig_frame_note *note, struct rig_resolver *r,
				long mesh, double shot_frame, struct rig_errs *errs);

/* ---- constraints and the tree (core/rig_constraints.c) ---- */

/* Checks every constraint of scene against the layer tree and each other:
 * IK_CHAIN (an empty or too long chain, a missing or non-group layer, a layer
 * that is not the parent of the next), IK_TARGET (target or pole missing, or
 * the chain root or below it), IK_CYCLE (two or more constraints depending on
 * each other). Each error names constraintId and the layerId concerned in
 * extras, and its pointer is relative to the constraint's op ("/chain/1",
 * "/target", "/pole", or ""). Returns 0, or -1 with errors recorded. */
int rig_constraints_check(const struct rig_scene *scene, struct rig_errs *errs);

/* True when constraint a reads a layer that constraint b moves: one of a's
 * chain, target or pole layers is b's chain root or below it. */
bool rig_constraint_depends(const struct rig_scene *scene, const struct rig_constraint *a,
			    const struct rig_constraint *b);

/* True when c can be solved on scene as it is (the structural rules of
 * rig_constraints_check, without recording anything): the resolver skips any
 * constraint that is not. */
bool rig_constraint_is_usable(const struct rig_scene *scene, const struct rig_constraint *c);

#endif
