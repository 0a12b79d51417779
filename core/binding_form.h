/* The pieces a binding kind's generic stored form (core/binding.h's encode and
 * decode) is made of, so that every kind lays out its counts, its keys' times
 * and its rest mesh the same way and decodes them with the same checks:
 *
 *   head:   a 4-byte tag, u64 n_verts, u64 n_tris, u64 n_keys, then per key
 *           f64 frame, u32 interp, 4 × f64 ease and the kind's own fields;
 *   arrays: 2 · n_verts f64 source, 3 · n_tris u32 triangles, then the
 *           kind's own per-vertex arrays, then, when the binding has
 *           texture coordinates, 2 · n_verts f64 uvs (none: nothing, so a
 *           binding without uvs keeps the bytes it always had).
 *
 * Little-endian (core/bytes.h). No I/O.
 */
#ifndef RIG_BINDING_FORM_H
#define RIG_BINDING_FORM_H

#include <stddef.h>
#include <stdint.h>

#include "core/keys.h"

/* The head's bytes before its keys, and each key's time (frame, interp, ease). */
#define RIG_FORM_HEAD_FIXED (4 + 3 * 8)
#define RIG_FORM_KEY_TIME (8 + 4 + 4 * 8)

/* The rest mesh's bytes at the start of the arrays. */
static inline size_t rig_form_rest_bytes(size_t n_verts, size_t n_tris)
{
	return n_verts * 16 + n_tris * 12;
}

/* Allocates both byte strings of an encoding (*arrays at least 1 byte, so a
 * kind without per-vertex data still stores a string). 0, or
 * -RIG_MEMORY_BUSY with both NULL. */
int rig_form_alloc(unsigned char **head, size_t n_head, unsigned char **arrays, size_t n_arrays);

/* Writes the head's tag and counts; returns where the keys go. */
unsigned char *rig_form_head_put(unsigned char *p, const char tag[4], size_t n_verts, size_t n_tris,
				 size_t n_keys);

/* Reads the counts of a head tagged tag whose keys take per_key bytes each
 * (at least RIG_FORM_KEY_TIME), moving *p to the first key. -1 for another
 * tag, a size that is not exactly the counts' or counts past the limits. */
int rig_form_head_get(const unsigned char **p, const unsigned char *head, size_t n_head,
		      const char tag[4], size_t per_key, size_t *n_verts, size_t *n_tris,
		      size_t *n_keys);

/* One key's time: its frame, interp and ease (not its value). */
unsigned char *rig_form_key_time_put(unsigned char *p, const struct rig_key *k);
void rig_form_key_time_get(const unsigned char **p, struct rig_key *k);

/* The rest mesh into p (rig_form_rest_bytes of it); returns p past it. */
unsigned char *rig_form_rest_put(unsigned char *p, const double *source, size_t n_verts,
				 const uint32_t *triangles, size_t n_tris);

/* Reads the rest mesh at *p into new *source and *triangles (malloc'd, at
 * least one element each), moving *p past it. 0, or -1 when out of memory
 * (what was allocated is left in *source and *triangles for the caller's
 * release). */
int rig_form_rest_get(const unsigned char **p, double **source, size_t n_verts,
		      uint32_t **triangles, size_t n_tris);

/* The uvs' bytes at the end of the arrays: 16 · n_verts, or 0 without uvs. */
static inline size_t rig_form_uvs_bytes(const double *uvs, size_t n_verts)
{
	return uvs ? n_verts * 16 : 0;
}

/* The uvs into p when there are any; returns p past them. */
unsigned char *rig_form_uvs_put(unsigned char *p, const double *uvs, size_t n_verts);

/* Reads the uvs from the rest bytes left at *p: none when rest is 0 (*uvs
 * NULL), 2 · n_verts f64 when rest is 16 · n_verts (*uvs malloc'd). 0, or -1
 * for any other length or when out of memory. */
int rig_form_uvs_get(const unsigned char **p, size_t rest, double **uvs, size_t n_verts);

#endif
