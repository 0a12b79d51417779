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
 * Not here: where the points come from and how a solution is written back into
 * layer rotations and scales (rig.c, via rig_ik_local_deltas()).
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

/* The delta write-back: for each bone i the change of its world angle from fk to
 * solved (wrapped into (−180°, 180°]), times mix, minus the same for bone i − 1
 * (a child inherits its parent's turn), in degrees, into out_deg[0..n_bones).
 * Adding out_deg[i] to the local rotation of bone i's layer reproduces the
 * solved angles exactly whatever the offsets of children in their parents, as
 * long as ancestors scale uniformly (rig.c flips the sign under a mirroring
 * parent). A zero-length bone has no angle: it turns with its parent (0). */
void rig_ik_local_deltas(double *out_deg, const struct rig_ik_chain *fk,
			 const struct rig_ik_chain *solved, double mix);

#endif
