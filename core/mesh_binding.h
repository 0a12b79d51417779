/* The mesh binding: a source mesh with keyed vertex poses, interpolated per
 * vertex between neighbouring keys with the channel keys' rule
 * (rig_keys_blend: linear, hold, cubic-bezier ease; the first key before the
 * first, the last after the last; no keys: the source itself).
 *
 * A definition (struct rig_mesh_def) is editable data with its rules here
 * (rig_mesh_def_check: the source and topology rules of core/mesh.c, then the
 * keys); the evaluator (struct rig_mesh_eval) is its immutable snapshot with
 * the source areas precomputed for the per-frame checks (finite, no collapse,
 * no flipped triangle against the source). Its row of the binding table
 * (binding.h), rig_binding_mesh, lives in mesh_binding.c with its stored form.
 * No I/O.
 */
#ifndef RIG_MESH_BINDING_H
#define RIG_MESH_BINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/keys.h"

/* A mesh binding definition. As a heap object of the shot model it owns every
 * array (release with rig_mesh_def_release). The per-vertex arrays (source,
 * triangles, each key's vertices) may be absent (NULL) in a model that did
 * not load them; the counts and the keys' times always hold. */
struct rig_mesh_def {
	double *source; /* 2 · n_verts, interleaved x, y */
	size_t n_verts;
	uint32_t *triangles; /* 3 · n_tris; out-of-range values are reported, not trusted */
	size_t n_tris;
	double *uvs; /* 2 · n_verts texture coordinates, or NULL: none (per-vertex) */
	/* The keys, sorted by strictly increasing frame: times[k] holds frame,
	 * interp and ease of key k (its value is unused, 0), key_xy[k] its
	 * 2 · n_verts vertices. */
	struct rig_key *times;
	double **key_xy; /* NULL when the per-vertex arrays are not loaded */
	size_t n_keys;
};

/* Frees every array of d and zeroes it; safe on a zeroed def. */
void rig_mesh_def_release(struct rig_mesh_def *d);

/* Frees the per-vertex arrays (source, triangles, key vertices), keeping the
 * counts and the keys' times. */
void rig_mesh_def_release_arrays(struct rig_mesh_def *d);

/* Checks a key's vertices against a mesh of n_verts vertices: exactly n_verts
 * of them (MESH_GEOMETRY, pointer ""), every coordinate finite (MESH_GEOMETRY,
 * vertex_index set, pointer "/<v>"). Returns 0 or -1. */
int rig_mesh_check_key_vertices(const double *xy, size_t n, size_t n_verts, struct rig_errs *errs);

/* Checks a whole definition: rig_mesh_check_source on source and triangles
 * (pointers "/source/<v>", "/triangles/<t>"), then each key: its time by
 * rig_key_check (OP_INVALID, "/keys/<k>/frame" …), frames strictly
 * increasing (OP_INVALID), its vertices by rig_mesh_check_key_vertices
 * ("/keys/<k>/vertices/<v>"), and the total key vertices within
 * RIG_MAX_MESH_KEY_VERTICES (MESH_GEOMETRY, "/keys"). The per-vertex arrays
 * must be loaded. Reports every violation; returns 0 or -1. */
int rig_mesh_def_check(const struct rig_mesh_def *d, struct rig_errs *errs);

/* The index of the key at exactly frame, or -1. */
long rig_mesh_def_key_find(const struct rig_mesh_def *d, double frame);

/* Puts a key (time's frame, interp, ease) with vertices xy (2 · n_verts,
 * malloc'd), replacing the key at the same frame or inserting it in order.
 * Takes xy on success; returns -1 when out of memory (d and xy unchanged, xy
 * still the caller's). The arrays must be loaded. */
int rig_mesh_def_key_put(struct rig_mesh_def *d, const struct rig_key *time, double *xy);

/* Removes the key at exactly frame; returns true when there was one. */
bool rig_mesh_def_key_delete(struct rig_mesh_def *d, double frame);

/* The interpolated shape at local_frame into out_xy (2 · n_verts doubles,
 * caller-owned): per vertex coordinate, rig_keys_blend's value of the keys;
 * the source when there are none. No checks; the arrays must be loaded and
 * the keys sorted. */
void rig_mesh_def_shape(double *out_xy, const struct rig_mesh_def *d, double local_frame);

/* The evaluator: an immutable snapshot of a stored definition. */
struct rig_mesh_eval;

/* Builds an evaluator from a definition that passed rig_mesh_def_check before
 * it was stored, checking only what memory safety and the interpolation need
 * (arrays present, indices in range, key frames finite and increasing: else
 * INTERNAL). Takes every array of def (def keeps its counts and NULLs; it is
 * still the caller's to free). Returns NULL with errs filled on failure (def
 * unchanged then). Free with rig_mesh_eval_free. */
struct rig_mesh_eval *rig_mesh_eval_take(struct rig_mesh_def *def, struct rig_errs *errs);

/* The evaluator's definition, borrowed until rig_mesh_eval_free. */
const struct rig_mesh_def *rig_mesh_eval_def(const struct rig_mesh_eval *ev);

/* The bytes an evaluator holds, for caches that bound their memory. */
size_t rig_mesh_eval_bytes(const struct rig_mesh_eval *ev);

/* Frees an evaluator; NULL is a no-op. */
void rig_mesh_eval_free(struct rig_mesh_eval *ev);

/* The shape at local_frame (rig_mesh_def_shape) into out_xy, checked against
 * the source with rig_mesh_check_deformed's rules (MESH_GEOMETRY,
 * MESH_COLLAPSED, MESH_WINDING with triangle_index). Returns 0, or -1 with
 * errs filled. */
int rig_mesh_eval_evaluate(double *out_xy, const struct rig_mesh_eval *ev, double local_frame,
			   struct rig_errs *errs);

#endif
