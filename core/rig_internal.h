/* The resolver's insides, shared by the files that make it up (rig.h is the
 * interface):
 *   rig.c         the layer tree, the memos, joint poses and evaluation;
 *   rig_solve.c   constraints: solving each kind and writing the result into
 *                 the memoised local transforms of its chain layers;
 *   rig_replay.c  a follow chain's replayed state at a frame.
 * Nothing outside core/rig*.c includes this.
 */
#ifndef RIG_RIG_INTERNAL_H
#define RIG_RIG_INTERNAL_H

#include <stdint.h>

#include "core/affine.h"
#include "core/ik.h"
#include "core/scene.h"

struct local_memo {
	uint64_t gen;
	struct rig_transform t; /* the channel values m was built from */
	struct rig_affine m;
};

struct path_memo {
	uint64_t gen;
	long top; /* the ancestor C of P(C→X) */
	struct rig_affine m;
};

struct inverse_memo {
	uint64_t gen; /* an entry of another generation is a free slot */
	long mesh, top;
	bool is_ok; /* P(C→M) was safely invertible */
	struct rig_affine inv;
};

struct rig_replay; /* rig_replay.c: one follow chain's last replayed steps */

struct rig_resolver {
	struct rig_scene scene;
	uint64_t gen;              /* local memo generation, one per frame evaluated */
	uint64_t path_gen;         /* path and inverse memo generation: also moves on
				      whenever a constraint rewrites local transforms */
	uint64_t frame_bits;       /* the frame of gen, compared bit for bit */
	struct local_memo *locals; /* per layer */
	struct path_memo *paths;   /* per layer */
	long *chain;               /* per layer: scratch for path walks */
	struct inverse_memo *inverses;
	size_t inv_cap, inv_live; /* inv_cap is 0 or a power of two */
	size_t *cons_order;       /* scene constraint indices by (order, id) */
	/* Follow chains: per scene constraint, its replay (NULL until one is
	 * replayed); the keyed-only resolver replays read targets from (the
	 * scene without constraints); and the constraint the current frame is
	 * too far for, plus one (0: none), with the steps it would take. */
	struct rig_replay *replays;
	struct rig_resolver *keyed;
	size_t refused;
	double refused_steps;
};

/* Starts a new memo generation when frame differs (bit for bit) from the
 * last, and poses the constrained layers for it. */
void rig_resolver__use_frame(struct rig_resolver *r, double frame);

/* Layer's memoised local transform at the current frame. */
struct local_memo *rig_resolver__local(struct rig_resolver *r, long layer, double shot_frame);

/* P(top→x) at the current frame, memoised. */
struct rig_affine rig_resolver__path(struct rig_resolver *r, long top, long x, double shot_frame);

/* Empties the path and inverse memos (after local transforms changed). */
void rig_resolver__drop_paths(struct rig_resolver *r);

/* A layer's world origin at the current frame: where its pivot lands. */
struct rig_ik_vec rig_resolver__origin(struct rig_resolver *r, long layer, double shot_frame);

/* Runs every usable constraint of the scene in order at shot_frame
 * (rig_solve.c). */
void rig_resolver__apply_constraints(struct rig_resolver *r, double shot_frame);

/* The replayed points of follow chain or walker k (scene index) at
 * shot_frame into out (rig_constraint_replayed_points of them, world),
 * reading the target's or body's keyed motion. Returns 0, or
 * -1 with r->refused set when the frame lies more than RIG_MAX_REPLAY_STEPS
 * steps from frameStart (rig_replay.c). */
int rig_resolver__replay(struct rig_ik_vec *out, struct rig_resolver *r, size_t k,
			 double shot_frame);

/* Replay steps per shot frame of a replayed constraint (a chain's substeps;
 * a walker's 1), and how many points its replay gives (chain layers, feet). */
int rig_constraint_steps_per_frame(const struct rig_constraint *c);
size_t rig_constraint_replayed_points(const struct rig_constraint *c);

/* Prepares r's replays when its scene has follow chains; 0, or -1 when out
 * of memory (rig_replay.c). */
int rig_resolver__replay_init(struct rig_resolver *r);

/* Frees r's replays and keyed resolver (rig_replay.c). */
void rig_resolver__replay_free(struct rig_resolver *r);

#endif
