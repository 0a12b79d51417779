/* The offset binding: a binding kind that exists only in the tests (issue 22,
 * item 2). Every vertex of its source moves by one 2-D offset keyed over the
 * layer's frames: x and y are keyed as a layer's channels are
 * (rig_keys_blend: linear, hold, cubic-bezier ease; the first key before the
 * first, the last after the last); without keys the shape is the source.
 *
 * It proves that a kind is its own files and a registry line: this header,
 * offset.c (its rules, evaluator, row of core/binding.h with the stored form
 * and the diff's parts), offset_ops.c (its op layer.offset and its row of
 * api/edit/binding.h: rest apply, summary, mesh-data collections, bulk
 * members, op rows) and binding_tables.c (the registry of the test build,
 * rigd-testkinds). Production rigd does not contain it.
 */
#ifndef RIG_TEST_OFFSET_H
#define RIG_TEST_OFFSET_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/keys.h"

/* An offset binding definition; as a heap object of the shot model it owns
 * every array (release with rig_offset_def_release). source and triangles may
 * be absent (NULL) in a model that did not load them; the counts and the keys
 * always hold. */
struct rig_offset_def {
	double *source; /* 2 · n_verts, interleaved x, y */
	size_t n_verts;
	uint32_t *triangles; /* 3 · n_tris */
	size_t n_tris;
	double *uvs; /* always NULL: this kind carries no texture coordinates */
	/* The keys, by strictly increasing frame: keys[k] holds frame, interp,
	 * ease and the x offset as its value; dy[k] the y offset. */
	struct rig_key *keys;
	double *dy;
	size_t n_keys;
};

/* Frees every array of d and zeroes it; safe on a zeroed def. */
void rig_offset_def_release(struct rig_offset_def *d);

/* Checks a definition: the source and topology rules of core/mesh.c
 * ("/source/<v>", "/triangles/<t>"), each key by rig_key_check with its y
 * offset finite and frames strictly increasing (OP_INVALID,
 * "/keys/<k>/…"). The arrays must be loaded. Returns 0 or -1. */
int rig_offset_def_check(const struct rig_offset_def *d, struct rig_errs *errs);

/* The offset at local_frame into out (x, y): the keys' blend, or 0, 0. */
void rig_offset_at(const struct rig_offset_def *d, double local_frame, double out[2]);

struct rig_binding_type;
struct rig_binding_kind;

/* Its rows: of the core (offset.c) and of the edit side (offset_ops.c). */
extern const struct rig_binding_type rig_binding_offset;
extern const struct rig_binding_kind rig_binding_kind_offset;

#endif
