/* Shot-level constraints on joint layers, as the resolver sees them, and the
 * rules between them and the layer tree (IK_CHAIN, IK_TARGET, IK_CYCLE).
 *
 * One kind for now, "ik": a chain of 1–8 group layers, root to tip, each the
 * parent of the next, posed each frame so its end effector reaches the world
 * origin of a target layer (ik.h holds the solvers, rig.c applies them).
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
#include "core/ik.h"
#include "core/keys.h"

/* The keyable channels of a constraint (keys evaluated at the shot frame). */
enum rig_constraint_channel { RIG_CC_MIX, RIG_CC_SOFTNESS, RIG_CC_COUNT };

struct rig_constraint {
	char id[RIG_ID_MAX + 1];
	size_t n_chain;                                   /* 1..RIG_IK_MAX_BONES */
	char chain_ids[RIG_IK_MAX_BONES][RIG_ID_MAX + 1]; /* root → tip */
	char target_id[RIG_ID_MAX + 1];
	char pole_id[RIG_ID_MAX + 1]; /* "" when none */
	/* Scene indices of the ids above, RIG_NO_LAYER when missing (or no pole);
	 * filled by whoever builds the scene. */
	long chain[RIG_IK_MAX_BONES];
	long target, pole;
	int bend;          /* +1 or −1, used when there is no pole or it is on the line */
	double tip_length; /* > 0, in the tip layer's local units */
	double statics[RIG_CC_COUNT];       /* mix in [0, 1], softness ≥ 0 */
	struct rig_keys keys[RIG_CC_COUNT]; /* borrowed; a channel without keys uses statics */
	bool stretch, compress;
	long long order; /* ascending; ties by id */
	/* Angle limits (issue 27 item 2): per chain layer, how far its bone may
	 * turn clockwise and anticlockwise from its parent bone (chain[0]: from
	 * its parent layer's +x), in degrees, 0..180 (180: free). Without them the
	 * solvers are the unlimited ones, bit for bit. */
	bool has_limits;
	double limits[RIG_IK_MAX_BONES][2];
};

/* The wire name of a constraint channel ("mix", "softness"), NULL out of range. */
const char *rig_constraint_channel_name(int ch);

#endif
