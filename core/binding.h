/* The binding interface: what a mesh layer's one deformer (a skin or a
 * mesh binding, a puppet) offers the resolver and every layer above it:
 * its math, its stored form (encode/decode) and what a diff compares of it
 * (parts, core/binding_diff.h).
 *
 * A kind is one row, struct rig_binding_type, living beside the kind's math
 * (the skin's in skin_binding.c). Its definition is editable data the shot
 * model owns (void *def: struct rig_skin_def for skins); its evaluator is the
 * immutable object prepare() builds once per request from a stored definition
 * and the read cache shares (void *eval: struct rig_skin for skins). The
 * resolver computes the pose of each joint layer the binding follows and hands
 * them to evaluate(), one call per layer per frame.
 *
 * Every kind is listed once, in RIG_BINDING_KINDS below, and the tables are
 * generated from the list (binding_table.c here, api/edit/binding_table.c for
 * the edit side's rows), so a kind without a row fails to link; nothing else
 * names a kind (scripts/check-kind-names.py). Storage (storage/sqlite/binding_codec.h) keeps a kind
 * through its encode and decode below, unless it has a table of its own (the
 * skin). No I/O here.
 */
#ifndef RIG_BINDING_H
#define RIG_BINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/affine.h"
#include "core/binding_diff.h"
#include "core/err.h"

/* Every binding kind, X(name): the row of kind k is rig_binding_<k> here and
 * rig_binding_edit_<k> in api/edit. */
#define RIG_BINDING_KINDS(X) X(skin) X(mesh) X(puppet) X(ribbon)

struct rig_binding_type;

/* What one evaluated frame says besides its vertices, for the frames'
 * answers (evaluate_noted below). The caller zeroes it and may give order, a
 * buffer of the binding's n_tris indices; the binding fills what it has. */
struct rig_frame_note {
	const char *solver; /* the solver that ran (static text); NULL: nothing to say */
	uint32_t *order;    /* caller-owned n_tris, or NULL: the draw order is not asked */
	bool reordered;     /* order holds the triangles' draw order, back to front,
			       which is not the source order */
};

/* One part of a kind's definition that GET …/diff compares between two
 * stored revisions, shown as binding.parts.<name>: runs of changed indices
 * (in the member `list`: "changedVertices"), or ids or frames added, removed
 * and changed. Every kind has the source and the triangles
 * (RIG_BINDING_PART_SOURCE, _TRIANGLES below); a kind adds its own (a skin's
 * weights and joints, a mesh binding's keys). */
struct rig_binding_part {
	const char *name;
	enum rig_diff_shape shape;
	const char *list; /* RIG_DIFF_RUNS: the member holding the runs; else NULL */
	/* Adds to out (zeroed) what differs between a and b, two whole
	 * definitions of kind type (per-vertex arrays loaded; a part whose
	 * arrays are absent finds nothing). Returns 0, or -1 when out of
	 * memory. */
	int (*compare)(struct rig_part_diff *out, const struct rig_binding_type *type,
		       const void *a, const void *b);
};

struct rig_binding_type {
	const char *name; /* the kind's wire name, e.g. "skin" */

	/* ---- the definition: editable, owned by whoever holds it ---- */

	/* Checks every rule of a definition, reporting every violation with
	 * pointers relative to the definition. Returns 0 or -1. */
	int (*validate)(const void *def, struct rig_errs *errs);
	/* Frees a heap definition and everything it owns; NULL is a no-op. */
	void (*def_free)(void *def);
	/* A new deep copy of a definition (per-vertex arrays too, when held),
	 * or NULL when out of memory. NULL for a kind with encode and decode:
	 * rig_binding_def_copy copies through them. */
	void *(*def_copy)(const void *def);
	/* Frees the per-vertex arrays, keeping what the model holds of every
	 * binding (for skins the joints): a model keeps large bindings so. */
	void (*def_release_arrays)(void *def);
	/* The bytes the definition holds apart from its per-vertex arrays. */
	size_t (*def_bytes)(const void *def);
	size_t (*def_n_verts)(const void *def);
	size_t (*def_n_tris)(const void *def);
	/* The rest mesh: 2 · n_verts doubles and 3 · n_tris indices, borrowed;
	 * NULL while the per-vertex arrays are not loaded. */
	const double *(*def_source)(const void *def);
	const uint32_t *(*def_triangles)(const void *def);
	/* The texture coordinates, 2 · n_verts doubles (u right, v down, 0..1
	 * over the image), borrowed; NULL when the binding has none or its
	 * per-vertex arrays are not loaded. */
	const double *(*def_uvs)(const void *def);
	/* The joints the binding follows (at most RIG_MAX_JOINTS: the resolver
	 * poses them in an array of that size), each mapped to a shot layer by
	 * id; a kind that follows no layer has none. Borrowed strings. */
	size_t (*def_n_joints)(const void *def);
	const char *(*def_joint_id)(const void *def, size_t j);
	const char *(*def_joint_layer)(const void *def, size_t j);

	/* ---- the evaluator: immutable, built once per request ---- */

	/* Builds an evaluator from a definition that passed validate before it
	 * was stored, checking only what memory safety needs (INTERNAL when
	 * stored data is damaged). May take def's per-vertex arrays; def stays
	 * the caller's to free. Returns NULL with errs filled on failure. */
	void *(*prepare)(void *def, struct rig_errs *errs);
	/* The evaluator's own definition, borrowed until it is freed. */
	const void *(*eval_def)(const void *eval);
	/* Deforms into out_xy (2 · n_verts doubles, caller-owned) at local_frame
	 * (the layer's frame) from the joint poses in mesh-local space (one per
	 * joint, in joint order), then checks the result (finite, no collapse, no
	 * flipped triangle). Returns 0, or -1 with errs filled. */
	int (*evaluate)(double *out_xy, const void *eval, const struct rig_affine *poses,
			double local_frame, struct rig_errs *errs);
	/* evaluate, also filling note (never NULL): NULL for a kind whose
	 * frames are vertices only, in source triangle order (a puppet says
	 * its solver and its overlap order). */
	int (*evaluate_noted)(double *out_xy, struct rig_frame_note *note, const void *eval,
			      const struct rig_affine *poses, double local_frame,
			      struct rig_errs *errs);
	/* The bytes an evaluator holds, for caches that bound their memory. */
	size_t (*bytes)(const void *eval);
	/* Frees an evaluator; NULL is a no-op. */
	void (*free)(void *eval);

	/* ---- the diff: what GET …/diff says of two stored revisions ---- */

	/* The parts compared, in the order the diff shows them (the runs of
	 * RIG_DIFF_RUNS parts page in this order). */
	const struct rig_binding_part *parts;
	size_t n_parts;
	/* The bytes comparing one whole definition takes at worst: its arrays
	 * read and its parts' runs, for a stored definition of n_verts and
	 * n_tris whose loaded head (without per-vertex arrays) is def. GET
	 * …/diff reserves them in the memory budget before it reads. */
	size_t (*diff_bytes)(const void *def, size_t n_verts, size_t n_tris);

	/* ---- the generic stored form: NULL for a kind with its own ---- */
	/* A kind without a codec of its own in storage (the skin has one) is
	 * stored as two byte strings of its own layout: what a loaded shot keeps
	 * of the definition (head) and its per-vertex arrays (arrays). encode
	 * writes both (malloc'd) and returns 0 or a negative rig code; decode
	 * builds a new definition from them, without per-vertex arrays when
	 * arrays is NULL, and returns NULL for damaged bytes or when out of
	 * memory. */
	int (*encode)(const void *def, unsigned char **head, size_t *n_head, unsigned char **arrays,
		      size_t *n_arrays);
	void *(*decode)(const unsigned char *head, size_t n_head, const unsigned char *arrays,
			size_t n_arrays);
};

#define RIG_BINDING_DECLARE(k) extern const struct rig_binding_type rig_binding_##k;
RIG_BINDING_KINDS(RIG_BINDING_DECLARE)
#undef RIG_BINDING_DECLARE

/* Every kind's row, in RIG_BINDING_KINDS order. */
extern const struct rig_binding_type *const rig_binding_types[];
extern const size_t rig_binding_n_types;

/* The row of the kind named name, or NULL. */
const struct rig_binding_type *rig_binding_type_find(const char *name);

/* The two parts every kind has, compared through the row's def_source and
 * def_triangles: the vertices whose position differs or that exist in one
 * revision only (changedVertices), likewise the triangles. */
int rig_binding_diff_source(struct rig_part_diff *out, const struct rig_binding_type *type,
			    const void *a, const void *b);
int rig_binding_diff_triangles(struct rig_part_diff *out, const struct rig_binding_type *type,
			       const void *a, const void *b);
/* The texture coordinates, likewise: the vertices whose uvs differ or that
 * have uvs in one revision only (a binding without uvs has none). */
int rig_binding_diff_uvs(struct rig_part_diff *out, const struct rig_binding_type *type,
			 const void *a, const void *b);
#define RIG_BINDING_PART_UVS                                                                       \
	{                                                                                          \
		"uvs", RIG_DIFF_RUNS, "changedVertices", rig_binding_diff_uvs                      \
	}
#define RIG_BINDING_PART_SOURCE                                                                    \
	{                                                                                          \
		"source", RIG_DIFF_RUNS, "changedVertices", rig_binding_diff_source                \
	}
#define RIG_BINDING_PART_TRIANGLES                                                                 \
	{                                                                                          \
		"triangles", RIG_DIFF_RUNS, "changedTriangles", rig_binding_diff_triangles         \
	}

/* The row's rest-mesh accessors for a definition struct T whose members
 * source, n_verts, triangles, n_tris and uvs are the rest mesh (every kind's so
 * far): RIG_BINDING_REST_ACCESSORS(T) defines them, static, in the kind's
 * file, and RIG_BINDING_REST_ROW names them in its row. */
#define RIG_BINDING_REST_ACCESSORS(T)                                                              \
	static size_t rest_n_verts(const void *def)                                                \
	{                                                                                          \
		return ((const T *)def)->n_verts;                                                  \
	}                                                                                          \
	static size_t rest_n_tris(const void *def)                                                 \
	{                                                                                          \
		return ((const T *)def)->n_tris;                                                   \
	}                                                                                          \
	static const double *rest_source(const void *def)                                          \
	{                                                                                          \
		return ((const T *)def)->source;                                                   \
	}                                                                                          \
	static const uint32_t *rest_triangles(const void *def)                                     \
	{                                                                                          \
		return ((const T *)def)->triangles;                                                \
	}                                                                                          \
	static const double *rest_uvs(const void *def)                                             \
	{                                                                                          \
		return ((const T *)def)->uvs;                                                      \
	}
#define RIG_BINDING_REST_ROW                                                                       \
	.def_n_verts = rest_n_verts, .def_n_tris = rest_n_tris, .def_source = rest_source,         \
	.def_triangles = rest_triangles, .def_uvs = rest_uvs

/* The joint accessors of a kind that follows no joint layer (its motion is
 * its own keys): no joints, and "" for any index. */
size_t rig_binding_no_joints(const void *def);
const char *rig_binding_no_joint(const void *def, size_t j);
#define RIG_BINDING_NO_JOINTS_ROW                                                                  \
	.def_n_joints = rig_binding_no_joints, .def_joint_id = rig_binding_no_joint,               \
	.def_joint_layer = rig_binding_no_joint

/* A new deep copy of def of kind type, through the kind's def_copy or else
 * its encode and decode; NULL when out of memory (or when the kind offers
 * neither). Free with type->def_free. Lets a caller prepare an evaluator
 * (prepare may take the arrays) while the definition stays whole. */
void *rig_binding_def_copy(const struct rig_binding_type *type, const void *def);

#endif
