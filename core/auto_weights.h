/* Automatic weights: explicit skin weights computed once from a rest mesh
 * and its joints' bind geometry (issue 25 item 2), stored as ordinary
 * weights; evaluation never computes them (SPEC keeps it free of automatic
 * weights).
 *
 * A joint's bone runs from its bind origin to the bind origin of its only
 * child joint among the skin's joints; otherwise it is a point at its bind
 * origin, unless the joint gives a length, in which case it runs that far
 * along its bind +x (rig_auto_bones). Methods:
 *   segment       1 / (d^2 + 1e-6), d the distance to each bone segment
 *                 (bone-and-puppet §4.3);
 *   nearestJoint  1 / (d^2 + 1e-6), d the distance to each joint's bind
 *                 origin (the sprite seed's choice for colinear chains);
 *   harmonic      each bone's nearest vertices fixed at 1 for it and 0 for
 *                 the others, the rest diffused over the mesh graph (one
 *                 exact sparse solve per joint, core/sparse.h), so influence
 *                 follows the artwork rather than Euclidean distance.
 *                 Each bone fixes the vertices whose nearest bone it is and
 *                 that lie within its least such distance plus half the
 *                 mesh's mean edge length; a component without a fixed
 *                 vertex follows the nearest fixed vertex (docs/decisions.md
 *                 gives the rule whole).
 * Then per vertex: drop the joints whose raw weight is below
 * RIG_AUTO_WEIGHT_EPSILON times the vertex's total over every joint, keep
 * the max_influences strongest (ties: lower joint index), divide by their
 * sum so the list obeys rig_skin_check_influences; strongest first. A vertex
 * left with nothing keeps its strongest joint alone at 1. Deterministic:
 * fixed loops, the same bits on every run. No I/O.
 */
#ifndef RIG_AUTO_WEIGHTS_H
#define RIG_AUTO_WEIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/affine.h"
#include "core/err.h"
#include "core/skin.h"

#define RIG_AUTO_WEIGHT_EPSILON 1e-4
#define RIG_AUTO_FALLOFF 2.0
#define RIG_AUTO_DISTANCE_BIAS 1e-6

enum rig_auto_method { RIG_AUTO_SEGMENT = 0, RIG_AUTO_NEAREST_JOINT = 1, RIG_AUTO_HARMONIC = 2 };

/* "segment", "nearestJoint", "harmonic"; NULL outside the enum. Parse: 0 or -1. */
const char *rig_auto_method_name(enum rig_auto_method m);
int rig_auto_method_parse(enum rig_auto_method *out, const char *name);

/* A joint as automatic weights see it. */
struct rig_auto_joint {
	struct rig_affine bind; /* joint-local → mesh-local at rest */
	long parent;            /* index among the joints, or -1 */
	bool has_length;        /* length along bind +x, used when no single child */
	double length;          /* finite, >= 0 */
};

/* A bone: the segment from (x0, y0) to (x1, y1); a point when they coincide. */
struct rig_auto_bone {
	double x0, y0, x1, y1;
};

/* The bone of every joint into out (n joints), by the rule above. */
void rig_auto_bones(struct rig_auto_bone *out, const struct rig_auto_joint *joints, size_t n);

/* Squared distance from (px, py) to bone b (to its point when degenerate). */
double rig_auto_segment_distance2(const struct rig_auto_bone *b, double px, double py);

/* Weight lists in a skin definition's layout (core/skin.h): offsets has
 * n_verts + 1 entries, list v is influences[offsets[v] .. offsets[v + 1]). */
struct rig_auto_result {
	uint32_t *offsets;
	struct rig_skin_influence *influences;
	size_t n_verts;
};

/* Frees the result's arrays and zeroes it; safe on a zeroed result. */
void rig_auto_result_release(struct rig_auto_result *r);

/* Computes the weights of every vertex of the rest mesh (source, 2 · n_verts;
 * triangles, 3 · n_tris, for the harmonic method's graph) to n_joints joints
 * (1..RIG_MAX_JOINTS), at most max_influences (1..RIG_MAX_INFLUENCES) each.
 * Returns 0; -1 with errs filled (INVALID_FIELD for an argument out of
 * range: "/joints" for the count, "/maxInfluences", "/method",
 * "/joints/<i>/bind" not finite, "/joints/<i>/parent" naming no other joint,
 * "/joints/<i>/length" not finite and >= 0, "/source/<v>" not finite,
 * "/triangles/<t>" an index past the vertices); -2 when out of memory (*out
 * zeroed on failure). The triangles are read by the harmonic method only
 * (the others check their indices all the same). Release *out with
 * rig_auto_result_release. */
int rig_auto_weights(struct rig_auto_result *out, const double *source, size_t n_verts,
		     const uint32_t *triangles, size_t n_tris, const struct rig_auto_joint *joints,
		     size_t n_joints, enum rig_auto_method method, int max_influences,
		     struct rig_errs *errs);

/* The raw fields before the per-vertex step, for tests and oracles: out
 * (n_verts × n_joints, row-major, the caller's) gets joint j's raw weight at
 * vertex v in out[v · n_joints + j] — 1 / (d² + 1e-6) for segment and
 * nearestJoint, the harmonic field (clamped at 0) for harmonic. The same
 * checks and returns as rig_auto_weights (max_influences not taken). */
int rig_auto_raw_weights(double *out, const double *source, size_t n_verts,
			 const uint32_t *triangles, size_t n_tris,
			 const struct rig_auto_joint *joints, size_t n_joints,
			 enum rig_auto_method method, struct rig_errs *errs);

#endif
