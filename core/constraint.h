/* Shot-level constraints on joint layers, as the resolver sees them, and the
 * rules between them and the layer tree (IK_CHAIN, IK_TARGET, IK_CYCLE).
 *
 * Two kinds, each a chain of group layers root to tip, each the parent of the
 * next:
 *   ik     1–8 layers posed each frame so the end effector reaches the world
 *          origin of a target layer (ik.h holds the solvers, rig_solve.c
 *          applies them);
 *   chain  2–32 layers whose head follows the target and whose links trail
 *          behind at fixed distances (follow.h), a stateful motion made
 *          stateless by replaying it from the shot's frameStart in every
 *          request (rig_replay.c);
 *   footstep  no chain: a walker's feet (footstep.h), each placing the target
 *          layer of one IK constraint, stepping as the body (the target
 *          fields name it) drifts, replayed as a chain is.
 *
 * Geometry. A layer has no length, so bone i runs from the world origin of
 * chain[i] to the world origin of chain[i + 1], and the tip bone (the last
 * layer) runs from its origin along its local +x axis for tip_length local
 * units. A layer's world origin is where its pivot lands: the point a change
 * of its rotation turns about.
 *
 * The rules between constraints and the layer tree are declared in rig.h
 * (core/rig_constraints.c). What does not live here: storing constraints
 * (storage/) and decoding ops.
 */
#ifndef RIG_CONSTRAINT_H
#define RIG_CONSTRAINT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "core/follow.h"
#include "core/footstep.h"
#include "core/ik.h"
#include "core/keys.h"

/* The kinds, in wire-name order (rig_constraint_kind_name). */
enum rig_constraint_kind {
	RIG_CONSTRAINT_IK,
	RIG_CONSTRAINT_CHAIN,
	RIG_CONSTRAINT_FOOTSTEP,
	RIG_CONSTRAINT_KIND_COUNT
};

/* The most chain layers any kind takes (a follow chain's; IK takes 8). */
#define RIG_CONSTRAINT_MAX_CHAIN RIG_FOLLOW_MAX_LINKS

/* A follow chain's own parameters. */
struct rig_chain_params {
	double lengths[RIG_CONSTRAINT_MAX_CHAIN - 1]; /* n_chain − 1 segments, each > 0 */
	double smoothing;                             /* [0, 1) */
	int substeps; /* steps per frame, 1..RIG_MAX_CHAIN_SUBSTEPS */
	bool has_max_angle;
	double max_angle_deg; /* [0, 180] */
};

/* A walker's own parameters: its feet, each the IK constraint whose target
 * layer it places and its rest point in the body's space. */
struct rig_footstep_spec {
	size_t n_feet; /* 1..RIG_FOOTSTEP_MAX_FEET */
	char ik_ids[RIG_FOOTSTEP_MAX_FEET][RIG_ID_MAX + 1];
	long ik[RIG_FOOTSTEP_MAX_FEET]; /* scene constraint indices, −1 when missing */
	double rest[RIG_FOOTSTEP_MAX_FEET][2];
	int group[RIG_FOOTSTEP_MAX_FEET]; /* gait group per foot, 0.. */
	double threshold;                 /* ≥ 0 */
	int step_frames;                  /* 1..RIG_FOOTSTEP_MAX_STEP_FRAMES */
	double height;
};

/* The keyable channels of a constraint (keys evaluated at the shot frame). */
enum rig_constraint_channel { RIG_CC_MIX, RIG_CC_SOFTNESS, RIG_CC_COUNT };

struct rig_constraint {
	char id[RIG_ID_MAX + 1];
	enum rig_constraint_kind kind;
	size_t n_chain; /* ik: 1..RIG_IK_MAX_BONES, chain: 2..RIG_CONSTRAINT_MAX_CHAIN */
	char chain_ids[RIG_CONSTRAINT_MAX_CHAIN][RIG_ID_MAX + 1]; /* root → tip */
	char target_id[RIG_ID_MAX + 1];
	char pole_id[RIG_ID_MAX + 1]; /* "" when none */
	/* Scene indices of the ids above, RIG_NO_LAYER when missing (or no pole);
	 * filled by whoever builds the scene. */
	long chain[RIG_CONSTRAINT_MAX_CHAIN];
	long target, pole;
	/* ik only: */
	int bend;          /* +1 or −1, used when there is no pole or it is on the line */
	double tip_length; /* > 0, in the tip layer's local units */
	double statics[RIG_CC_COUNT];       /* mix in [0, 1], softness ≥ 0 */
	struct rig_keys keys[RIG_CC_COUNT]; /* borrowed; a channel without keys uses statics */
	bool stretch, compress;
	long long order;                /* ascending; ties by id */
	struct rig_chain_params follow; /* chain only */
	struct rig_footstep_spec walk;  /* footstep only; target/target_id: the body */
	/* Angle limits (issue 27 item 2): per chain layer, how far its bone may
	 * turn clockwise and anticlockwise from its parent bone (chain[0]: from
	 * its parent layer's +x), in degrees, 0..180 (180: free). Without them the
	 * solvers are the unlimited ones, bit for bit. */
	bool has_limits;
	double limits[RIG_IK_MAX_BONES][2];
};

/* The wire name of a constraint channel ("mix", "softness"), NULL out of range. */
const char *rig_constraint_channel_name(int ch);

/* The wire name of a kind ("ik", "chain"), NULL out of range. */
const char *rig_constraint_kind_name(enum rig_constraint_kind kind);

/* The kind named name, or RIG_CONSTRAINT_KIND_COUNT when none is. */
enum rig_constraint_kind rig_constraint_kind_of(const char *name);

/* The fewest and most chain layers kind takes. */
size_t rig_constraint_min_chain(enum rig_constraint_kind kind);
size_t rig_constraint_max_chain(enum rig_constraint_kind kind);

/* The most points rig_resolver_constraint_points gives for any constraint. */
#define RIG_CONSTRAINT_MAX_POINTS (RIG_CONSTRAINT_MAX_CHAIN + 1)

#endif
