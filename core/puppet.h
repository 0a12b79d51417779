/* The puppet binding (issue 24): a rest mesh with pins, deformed each frame by
 * the pins' keyed positions, rotations, scales and stiffness through harmonic
 * pin weights, with linear blend skinning (lbs) or as-rigid-as-possible
 * (arap, the default) as the solver, and an overlap order of its triangles.
 *
 * A definition (struct rig_puppet_def) is editable data with its rules here
 * (rig_puppet_def_check: the source and topology rules of core/mesh.c, then
 * the pins and their keys); the evaluator (struct rig_puppet) is its immutable
 * snapshot with the mesh graph, the pins' anchor vertices, the harmonic
 * weights and the factorised ARAP system built once (rig_puppet_take). The
 * math lives in puppet_weights.c (weights) and puppet_solve.c (LBS, ARAP,
 * overlap), the evaluator in puppet_eval.c, the row of the binding table
 * (rig_binding_puppet, binding.h) with its stored form in puppet_binding.c.
 * No I/O.
 */
#ifndef RIG_PUPPET_H
#define RIG_PUPPET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/keys.h"

/* The fixed numbers of the solvers (issue 24 item 4; the seed's §3.4). */
#define RIG_PUPPET_ARAP_ITERATIONS 4 /* local/global passes, never more, never fewer */
#define RIG_PUPPET_COT_MIN 1e-3      /* each ½cot term is clamped to [MIN, MAX] */
#define RIG_PUPPET_COT_MAX 1e3
#define RIG_PUPPET_STIFFNESS_K 6.0   /* w'ij = wij · (1 + K · (si + sj) / 2) */
#define RIG_PUPPET_OVERLAP_MAX 100.0 /* overlap lies in [−MAX, MAX] */

/* A pin's keyed channels, in wire-name order (rig_pin_channel_name). */
enum rig_pin_channel {
	RIG_PIN_CH_POSITION_X,
	RIG_PIN_CH_POSITION_Y,
	RIG_PIN_CH_ROTATION,
	RIG_PIN_CH_STIFFNESS,
	RIG_PIN_CH_SCALE,
	RIG_PIN_CH_OVERLAP,
	RIG_PIN_CH_COUNT
};

/* The channel's wire name ("position.x", "position.y", "rotation",
 * "stiffness", "scale", "overlap"); NULL when out of range. */
const char *rig_pin_channel_name(enum rig_pin_channel ch);

/* Parses a wire channel name into *out; returns 0, or -1 when unknown. */
int rig_pin_channel_parse(enum rig_pin_channel *out, const char *name);

/* The solver; zero is the default (arap). */
enum rig_puppet_solver { RIG_PUPPET_SOLVER_ARAP, RIG_PUPPET_SOLVER_LBS };

/* "arap" or "lbs"; NULL when out of range. */
const char *rig_puppet_solver_name(enum rig_puppet_solver s);

/* Parses "arap" or "lbs" into *out; returns 0, or -1 when unknown. */
int rig_puppet_solver_parse(enum rig_puppet_solver *out, const char *name);

/* One pin. x, y is its rest position in mesh-local space (the static value
 * of position.x and position.y); the other statics are the fallbacks of their
 * channels. keys[ch] holds channel ch's keys, sorted by strictly increasing
 * frame; the pin owns each items array (malloc'd, NULL when count is 0). */
struct rig_puppet_pin {
	char id[RIG_ID_MAX + 1];
	double x, y;
	double rotation_deg;   /* default 0 */
	double stiffness;      /* ≥ 0, default 0 */
	double scale;          /* > 0, default 1 */
	double overlap;        /* in [−100, 100], default 0 */
	double overlap_extent; /* > 0, default 1; static only (no channel) */
	struct rig_keys keys[RIG_PIN_CH_COUNT];
};

/* A pin named id at rest position (x, y) with the defaults: rotation 0,
 * stiffness 0, scale 1, overlap 0, overlapExtent 1, no keys. */
struct rig_puppet_pin rig_puppet_pin_default(const char *id, double x, double y);

/* The static value of channel ch (x and y for the position). */
double rig_puppet_pin_static(const struct rig_puppet_pin *pin, enum rig_pin_channel ch);

/* Channel ch at frame: rig_keys_eval of its keys, else the static value. */
double rig_puppet_pin_value(const struct rig_puppet_pin *pin, enum rig_pin_channel ch,
			    double frame);

/* Whether the pin fixes the rotation at its vertex under ARAP: its rotation
 * or its scale is authored (static rotation ≠ 0, static scale ≠ 1, or keys on
 * either). A property of the definition, not of a frame, so a keyed rotation
 * passing through 0 does not switch the pin's kind. */
bool rig_puppet_pin_is_oriented(const struct rig_puppet_pin *pin);

/* Frees the pin's keys and zeroes them (the statics stay). */
void rig_puppet_pin_release(struct rig_puppet_pin *pin);

/* A deep copy of src into *out. Returns 0, or -1 when out of memory (*out
 * then holds no keys). */
int rig_puppet_pin_copy(struct rig_puppet_pin *out, const struct rig_puppet_pin *src);

/* Puts key k into channel ch of pin, replacing the key at the same frame or
 * inserting it in order. Returns 0, or -1 when out of memory (pin unchanged). */
int rig_puppet_pin_key_put(struct rig_puppet_pin *pin, enum rig_pin_channel ch,
			   const struct rig_key *k);

/* Removes the key of channel ch at exactly frame; true when there was one. */
bool rig_puppet_pin_key_delete(struct rig_puppet_pin *pin, enum rig_pin_channel ch, double frame);

/* A puppet definition. As a heap object of the shot model it owns every
 * array (release with rig_puppet_def_release). The rest mesh (source,
 * triangles) may be absent (NULL) in a model that did not load it; the
 * counts and the pins always hold. */
struct rig_puppet_def {
	double *source; /* 2 · n_verts, interleaved x, y */
	size_t n_verts;
	uint32_t *triangles; /* 3 · n_tris; out-of-range values are reported, not trusted */
	size_t n_tris;
	double *uvs; /* 2 · n_verts texture coordinates, or NULL: none (per-vertex) */
	struct rig_puppet_pin *pins; /* n_pins, at most RIG_MAX_PUPPET_PINS */
	size_t n_pins;
	enum rig_puppet_solver solver;
	/* maxRotationDeg: clamps every authored pin rotation and every ARAP
	 * local-step angle to [−max, max]; has_max_rotation false is "none"
	 * (no clamp), the default. */
	bool has_max_rotation;
	double max_rotation_deg; /* finite, ≥ 0, when has_max_rotation */
};

/* Frees every array of d and zeroes it; safe on a zeroed def. */
void rig_puppet_def_release(struct rig_puppet_def *d);

/* Frees the rest mesh (source, triangles, uvs), keeping the counts and the pins. */
void rig_puppet_def_release_arrays(struct rig_puppet_def *d);

/* A deep copy of src into *out (the rest mesh too, when loaded). Returns 0,
 * or -1 when out of memory (*out zeroed then). */
int rig_puppet_def_copy(struct rig_puppet_def *out, const struct rig_puppet_def *src);

/* The index of the pin named id, or -1. */
long rig_puppet_def_pin_find(const struct rig_puppet_def *d, const char *id);

/* Puts a deep copy of pin, replacing the pin of the same id in place or
 * appending it. Returns 0, or -1 when out of memory (d unchanged). The caller
 * checks the result with rig_puppet_def_check. */
int rig_puppet_def_pin_put(struct rig_puppet_def *d, const struct rig_puppet_pin *pin);

/* Removes the pin named id (the others keep their order); true when there was one. */
bool rig_puppet_def_pin_delete(struct rig_puppet_def *d, const char *id);

/* The source vertex nearest (x, y) by Euclidean distance, ties to the lowest
 * index: where a pin anchors. n_verts ≥ 1 and the source finite. */
size_t rig_puppet_nearest_vertex(const double *source, size_t n_verts, double x, double y);

/* Checks a whole definition, reporting every violation with pointers
 * relative to it:
 *   - the rest mesh by rig_mesh_check_source ("/source/<v>", "/triangles/<t>");
 *   - solver known, maxRotationDeg finite and ≥ 0 (OP_INVALID, "/solver",
 *     "/maxRotationDeg");
 *   - at most RIG_MAX_PUPPET_PINS pins (PUPPET_PINS, "/pins");
 *   - per pin i (PUPPET_PINS, "/pins/<i>/<field>"): a valid id (core/ids.h)
 *     no earlier pin has, x, y and rotation finite, stiffness finite and
 *     ≥ 0, scale finite and > 0, overlap in [−100, 100], overlapExtent
 *     finite and > 0;
 *   - per key k of channel c ("/pins/<i>/keys/<c>/<k>/…"): rig_key_check
 *     (OP_INVALID), frames strictly increasing (OP_INVALID, "/frame"), the
 *     value in its channel's range as above (PUPPET_PINS, "/value");
 *   - once the mesh and the pins' positions are sound, each pin's anchor
 *     (rig_puppet_nearest_vertex of its rest position) is no earlier pin's
 *     (PUPPET_PIN_VERTEX at "/pins/<i>", vertex_index set, members pinId and
 *     otherPinId naming both).
 * The rest mesh must be loaded. Returns 0 or -1. */
int rig_puppet_def_check(const struct rig_puppet_def *d, struct rig_errs *errs);

/* The rules of one pin by itself (its id, statics, overlapExtent and keys, as
 * rig_puppet_def_check has them), with pointers relative to the pin
 * ("/stiffness", "/keys/rotation/0/value"): an op that puts one pin reports
 * there. Returns 0 or -1. */
int rig_puppet_pin_check(const struct rig_puppet_pin *pin, struct rig_errs *errs);

/* Whether v keeps the range of channel ch's values (statics and keys alike),
 * and that range in words ("finite and positive"; NULL out of range). */
bool rig_pin_channel_allows(enum rig_pin_channel ch, double v);
const char *rig_pin_channel_rule(enum rig_pin_channel ch);

/* ------------------------------------------------------------------------ */
/* The evaluator                                                             */
/* ------------------------------------------------------------------------ */

/* An immutable puppet ready to evaluate: the definition, the pins' anchor
 * vertices, the harmonic weights and the ARAP system's factorisation. Safe
 * to share between threads (evaluation reads it only). */
struct rig_puppet;

/* Builds an evaluator from a definition that passed rig_puppet_def_check
 * before it was stored, checking only what memory safety needs (arrays
 * present, indices in range, pins on distinct vertices: else INTERNAL).
 * Takes the rest mesh and the pins of def (def keeps its counts and NULLs; it
 * is still the caller's to free). Returns NULL with errs filled on failure
 * (def unchanged then). Free with rig_puppet_free. */
struct rig_puppet *rig_puppet_take(struct rig_puppet_def *def, struct rig_errs *errs);

/* Frees an evaluator; NULL is a no-op. */
void rig_puppet_free(struct rig_puppet *pup);

/* The evaluator's definition, borrowed until rig_puppet_free. */
const struct rig_puppet_def *rig_puppet_def_of(const struct rig_puppet *pup);

/* The bytes an evaluator holds, for caches that bound their memory. */
size_t rig_puppet_bytes(const struct rig_puppet *pup);

/* Pin p's anchor vertex. */
uint32_t rig_puppet_pin_vertex(const struct rig_puppet *pup, size_t p);

/* The normalised harmonic weights, n_verts rows of n_pins (vertex v's weight
 * of pin p at [v · n_pins + p]), borrowed; each row sums to 1 within
 * rounding, every entry finite in [0, 1]. NULL when there is no pin. */
const double *rig_puppet_weights(const struct rig_puppet *pup);

/* One pin at one frame: what the solvers read. */
struct rig_puppet_pin_pose {
	double x, y;         /* the current position (position.x, position.y) */
	double rotation;     /* radians, clamped by maxRotationDeg */
	double scale;        /* as keyed: validation keeps keys > 0; an ease may overshoot */
	double stiffness;    /* max(0, value) */
	double overlap;      /* clamped to [−100, 100] */
	bool is_translation; /* rotation 0 and scale 1: the pin only moves */
};

/* Every pin's pose at local_frame into out (n_pins entries). */
void rig_puppet_pose_at(struct rig_puppet_pin_pose *out, const struct rig_puppet *pup,
			double local_frame);

/* What a frame ran, for the frame's "solver" member. */
enum rig_puppet_ran {
	RIG_PUPPET_RAN_LBS,          /* the definition asks for lbs */
	RIG_PUPPET_RAN_ARAP,         /* arap, 4 iterations */
	RIG_PUPPET_RAN_LBS_FALLBACK, /* arap asked; fewer than 2 pins or a non-finite result */
};

/* "lbs", "arap", "lbs-fallback". */
const char *rig_puppet_ran_name(enum rig_puppet_ran ran);

/* The LBS field of poses into out_xy (2 · n_verts, caller-owned): vertex v
 * moves to Σp ωp(v) · Tp(v), Tp(v) = cp + sp·R(θp)·(v − rp) (rp the rest and
 * cp the current position), written as v + Σp ωp(v)·(dp + (sp·R(θp) − I)(v −
 * rp)) with dp = cp − rp, the rotation term left out for a pin that only
 * moves (so rotation 0 and scale 1 is translate-only, bit for bit); ωp(v) =
 * Wp(v)^(1+σp) / Σq Wq(v)^(1+σq) with σ the stiffness (W itself when every
 * σ is 0, or where the sum underflows). No pin: the source. Returns 0, or -1
 * when out of memory. */
int rig_puppet_lbs(double *out_xy, const struct rig_puppet *pup,
		   const struct rig_puppet_pin_pose *poses);

/* The ARAP solve of poses into out_xy (2 · n_verts, caller-owned), whatever
 * the definition's solver: the LBS field, then RIG_PUPPET_ARAP_ITERATIONS
 * local/global passes over the stiffness-weighted cotangent Laplacian
 * (Sorkine–Alexa 2007, eq. 5 and 9), the pins' vertices fixed at rest plus
 * displacement. A vertex of a mesh component without a pin keeps its LBS
 * position. Sets *out_ran to ARAP, or to LBS_FALLBACK with the LBS field
 * verbatim (fewer than 2 pins, a non-finite result). Returns 0, or -1 when
 * out of memory. */
int rig_puppet_arap(double *out_xy, enum rig_puppet_ran *out_ran, const struct rig_puppet *pup,
		    const struct rig_puppet_pin_pose *poses);

/* The definition's solver on poses (rig_puppet_lbs or rig_puppet_arap). */
int rig_puppet_deform(double *out_xy, enum rig_puppet_ran *out_ran, const struct rig_puppet *pup,
		      const struct rig_puppet_pin_pose *poses);

/* The frame at local_frame: rig_puppet_pose_at, rig_puppet_deform, then the
 * deformed-mesh checks every binding runs (finite, no collapse, no flipped
 * triangle against the source: MESH_GEOMETRY, MESH_COLLAPSED, MESH_WINDING
 * with triangle_index). out_ran may be NULL. Returns 0, or -1 with errs
 * filled (INTERNAL when out of memory). */
int rig_puppet_evaluate(double *out_xy, enum rig_puppet_ran *out_ran, const struct rig_puppet *pup,
			double local_frame, struct rig_errs *errs);

/* The overlap depth of every vertex into out (n_verts doubles): Σp ω'p(v) ·
 * overlapp with ω'p(v) = Wp(v)^(1/ep) / Σq Wq(v)^(1/eq), e the pins'
 * overlapExtent (a root: an extent above 1 flattens the pin's falloff, so its
 * depth reaches further; the inverse of what stiffness does with a power).
 * Zero everywhere without pins. */
void rig_puppet_depth(double *out, const struct rig_puppet *pup,
		      const struct rig_puppet_pin_pose *poses);

/* The triangles' draw order back to front into out (n_tris indices): sorted
 * by ascending mean depth of their corners (rig_puppet_depth; the highest
 * overlap is drawn last, in front), stable (ties keep source order); the
 * source order 0, 1, … when no pin overlaps (every overlap 0 at this frame).
 * Returns 1 when the order is a sort, 0 when it is the source order, -1 when
 * out of memory. */
int rig_puppet_triangle_order(uint32_t *out, const struct rig_puppet *pup,
			      const struct rig_puppet_pin_pose *poses);

/* ------------------------------------------------------------------------ */
/* What a kind carrying pins shares (a skin's skin.puppet, core/skin.h)      */
/* ------------------------------------------------------------------------ */
/* Lives in puppet_binding.c, beside the puppet's own stored form and diff. */

struct rig_part_diff;
struct rig_frame_note;

/* The pins and settings of d (its rest mesh left out) as the bytes of a
 * puppet's stored head ("PUP1", the counts, the settings, the pins and their
 * keys: puppet_binding.c): a malloc'd string of *n bytes, or NULL when out of
 * memory. */
unsigned char *rig_puppet_pins_encode(const struct rig_puppet_def *d, size_t *n);

/* A new heap definition from those bytes, without a rest mesh (source and
 * triangles NULL, the counts as stored); NULL for damaged bytes or when out
 * of memory. Free with rig_puppet_def_release and free. */
struct rig_puppet_def *rig_puppet_pins_decode(const unsigned char *p, size_t n);

/* The bytes a definition holds apart from its rest mesh. */
size_t rig_puppet_pins_bytes(const struct rig_puppet_def *d);

/* The puppet's diff parts on two definitions: pins by id (added, removed,
 * changed: position, statics, keys) and settings (ids "solver",
 * "maxRotationDeg" changed). Return 0, or -1 when out of memory. */
int rig_puppet_diff_pins(struct rig_part_diff *out, const struct rig_puppet_def *a,
			 const struct rig_puppet_def *b);
int rig_puppet_diff_settings(struct rig_part_diff *out, const struct rig_puppet_def *a,
			     const struct rig_puppet_def *b);

/* What a frame of pup at local_frame notes (core/binding.h): the solver that
 * ran and, when note->order is given, the overlap draw order. Returns 0, or
 * -1 with INTERNAL when out of memory. */
int rig_puppet_note(struct rig_frame_note *note, enum rig_puppet_ran ran,
		    const struct rig_puppet *pup, double local_frame, struct rig_errs *errs);

#endif
