/* Inverse kinematics on a 2D chain of bones: the pure solvers the resolver's
 * constraints use (rig.c), with no layers and no keys.
 *
 * A chain of n bones (1–8) is n + 1 points: p[0] the root joint (pinned),
 * p[i] the joint where bone i begins, p[n] the end effector (where the last
 * bone ends). Bone i runs from p[i] to p[i + 1]; its length is their distance.
 *
 *   1 bone     aim: the bone turns about p[0] to point at the target.
 *   2 bones    law of cosines, exact, the target distance clamped into the
 *              reachable annulus [|l1 − l2| + ε, l1 + l2 − ε] (ε = 1e-6).
 *   3–8 bones  FABRIK, 12 iterations, stopping early only when the effector is
 *              within 0.25 units of the target (checked before each iteration).
 *
 * An unreachable target (farther than the chain's length) extends the chain
 * straight towards it; with stretch every bone grows by the same factor so the
 * effector lands on the target. Everything is a fixed sequence of floating-point
 * operations on the inputs: same inputs, same bits.
 *
 * The write-back helpers (rig.c uses them): a frame that takes world vectors
 * into the space the chain is solved in, the blend of a bone's direction with
 * its FK one, and the turn of a layer's local rotation that points its bone
 * along a world direction under any parent transform.
 *
 * Not here: where the points come from and which channels change (rig.c).
 */
#ifndef RIG_IK_H
#define RIG_IK_H

#include <stdbool.h>
#include <stddef.h>

#define RIG_IK_MAX_BONES 8
#define RIG_IK_FABRIK_ITERATIONS 12
#define RIG_IK_FABRIK_TOLERANCE 0.25
#define RIG_IK_EPSILON 1e-6

struct rig_ik_vec {
	double x, y;
};

struct rig_ik_chain {
	size_t n_bones;                            /* 1..RIG_IK_MAX_BONES */
	struct rig_ik_vec p[RIG_IK_MAX_BONES + 1]; /* joints then the effector */
};

/* Zero means default (bend +1, no pole, no softness, no stretch or compress). */
struct rig_ik_options {
	int bend;               /* two bones: +1 (or 0) the second bone turns counter-
				   clockwise from the first, −1 clockwise */
	bool has_pole;          /* two bones: the pole decides the bend side */
	struct rig_ik_vec pole; /* the elbow goes to the pole's side of root→target */
	double softness;        /* 2–8 bones: soft reach width, units, ≥ 0 */
	bool stretch;           /* grow bones to reach a far target */
	bool compress;          /* one bone: shrink when the target is closer */
	/* Per bone, the turn it may make from its parent bone (bone 0: from the
	 * frame's +x), clockwise then anticlockwise, in radians, ≥ 0 (π or more:
	 * free); NULL: none. With limits every chain of 2 bones or more is solved
	 * by FABRIK with each joint clamped in both passes (Aristidou & Lasenby
	 * 2011, as caliko's FabrikChain2D), one bone by aiming then clamping; an
	 * unreachable target is chased by the iterations rather than met by a
	 * straight chain, which the limits may forbid. */
	const double (*limits)[2];
};

struct rig_ik_solution {
	struct rig_ik_chain chain; /* the solved points, p[0] unchanged */
	double scale;              /* every bone's length factor (1 unless stretched or
				      compressed) */
	bool clamped;              /* the target was out of reach (or inside the
				      annulus hole) and was not met */
};

/* The soft target distance of SPEC-like "softness" s for a chain of length L at
 * target distance d: d itself when s ≤ 0 or d ≤ L − s, else
 *   L − s·(1 − min(1, (d − L + s) / (2s)))²
 * which eases from L − s (at d = L − s) to L (at d ≥ L + s) with a continuous
 * slope, so a limb slows into full extension instead of snapping straight. */
double rig_ik_soft_distance(double d, double length, double softness);

/* Solves chain towards target with opt (NULL = defaults) into out. The chain
 * must have 1..RIG_IK_MAX_BONES bones; non-finite inputs give non-finite output
 * (the caller checks). Returns 0. */
int rig_ik_solve(struct rig_ik_solution *out, const struct rig_ik_chain *chain,
		 struct rig_ik_vec target, const struct rig_ik_options *opt);

/* The space a chain is solved in: its root's parent's world frame with the
 * scale taken out. With P the linear part of that parent's world matrix
 * (rig_affine order: x' = P[0]x + P[2]y, y' = P[1]x + P[3]y) and
 * s = √|det P|, to_world = P / s and from_world its inverse. Rotating the
 * chain's layers turns its bones rigidly in this space whatever P is (shear,
 * non-uniform scale, mirror), so the solvers' lengths hold there; and it
 * measures world units whenever P scales uniformly (P / s is then a rotation,
 * or a reflection: mirrors). */
struct rig_ik_frame {
	double to_world[4], from_world[4];
	bool mirrors; /* det P < 0: a counter-clockwise turn here is clockwise in the world */
};

/* Fills out from the parent's linear part p[4]; -1 when p is singular or not
 * finite (the chain has collapsed: nothing to solve), else 0. */
int rig_ik_frame_of(struct rig_ik_frame *out, const double p[4]);

/* The world vector v in the frame, and back. */
struct rig_ik_vec rig_ik_frame_in(const struct rig_ik_frame *f, struct rig_ik_vec v);
struct rig_ik_vec rig_ik_frame_out(const struct rig_ik_frame *f, struct rig_ik_vec v);

/* Bone i's direction blended by mix between fk and solved: fk's bone turned
 * by mix times its turn to solved's (wrapped into (−π, π]), as a unit vector;
 * solved's own direction (unit) when mix is 1. NAN components for a zero-length
 * bone (it has no direction: it turns with its parent). */
struct rig_ik_vec rig_ik_blend_dir(const struct rig_ik_chain *fk, const struct rig_ik_chain *solved,
				   size_t i, double mix);

/* The same blend of two directions a (FK's) and b (solved), as vectors of any
 * length. */
struct rig_ik_vec rig_ik_blend(struct rig_ik_vec a, struct rig_ik_vec b, double mix);

/* The change of a layer's local rotation, in degrees wrapped into
 * (−180°, 180°], that points its bone along the world direction want, when the
 * layer's parent maps to the world by the linear part parent[4] (as above) and
 * the bone is have in the parent's coordinates (the layer's local linear part
 * times the bone in the layer's own coordinates). Exact for any parent (shear,
 * non-uniform scale, mirror): the local rotation is applied after the layer's
 * scale, so turning it turns have rigidly, and the bone then points along
 * parent⁻¹·want. NAN when have or want is zero or not finite, or parent is
 * singular. */
double rig_ik_turn_to(const double parent[4], struct rig_ik_vec have, struct rig_ik_vec want);

#endif
