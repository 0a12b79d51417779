/* Compact decoding of the large arrays of a binding definition, before jansson.
 *
 * A jansson tree costs tens to hundreds of bytes per JSON value, so the
 * `source`, `triangles` and `weights` arrays of a million-vertex layer.skin
 * would cost gigabytes as a tree. rig_bulk_extract walks the body once and,
 * for each array a binding kind's op takes (its row's bulk members,
 * api/edit/binding.h: op, member, shape) whose every element has exactly the
 * valid shape (SOURCE {x, y} numbers, TRIANGLES [i, j, k] numbers, WEIGHTS
 * lists of at most RIG_MAX_INFLUENCES {jointId, weight}), decodes it straight
 * into the arrays a definition uses, then blanks the array's elements in the
 * body (every byte but '\n' becomes a space). jansson then parses a small tree
 * in which the array is empty, at the same byte positions, lines and columns,
 * so any syntax error is reported exactly as before; the op's decoder takes
 * the decoded arrays in place of the empty ones (rig_bulk_find). An array is
 * kept only when its op is the one a row names there, whatever the order of
 * the op's members; under any other op it stays in the body, so that op's
 * decoder and its errors see exactly what the client sent.
 *
 * An array with anything else in it (a malformed number, a wrong shape, an
 * escape in a key, more influences than allowed) is left in the body untouched
 * and goes through jansson and the ordinary decoder, so every error a client
 * can see keeps its code, pointer and indices.
 *
 * Not here: the rules of a definition (core/) and the tree decoding (the
 * kind's ops).
 */
#ifndef RIG_BULK_H
#define RIG_BULK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/edit/binding.h" /* enum rig_bulk_field and the kinds' bulk members */
#include "core/err.h"
#include "core/skin.h"

/* Where a body keeps its arrays. */
enum rig_bulk_mode {
	RIG_BULK_EDITS, /* an edit batch: /ops/<i>/<holder>[/<field>] as the kinds' rows say */
	/* A LayerSkinInput at the root (the skin's evaluate route): the fields the
	 * rows of holder RIG_BULK_SKIN_HOLDER name, at /<field>. */
	RIG_BULK_SKIN,
};

/* The holder whose fields a RIG_BULK_SKIN body has at its root. */
#define RIG_BULK_SKIN_HOLDER "skin"

/* One decoded array. The arrays are malloc'd and owned by the bulk until a
 * decoder moves them out (setting the pointer here to NULL). */
struct rig_bulk_array {
	long op_index; /* RIG_NO_INDEX at the root */
	enum rig_bulk_field field;
	size_t count;        /* vertices, triangles or weight lists */
	double *source;      /* SOURCE: 2 · count, interleaved x, y */
	uint32_t *triangles; /* TRIANGLES: 3 · count; negative, fractional or huge → UINT32_MAX */
	uint32_t *offsets;   /* WEIGHTS: count + 1 */
	/* WEIGHTS: offsets[count] influences; .joint is an index into ids until
	 * the skin's decoder (rig_op__skin_map_joints, ops_skin.h) turns it into
	 * a joint index */
	struct rig_skin_influence *influences;
	char (*ids)[RIG_ID_MAX + 1]; /* WEIGHTS: the distinct jointId strings */
	size_t n_ids;
	uint32_t
		*id_of; /* WEIGHTS: the id index of each influence, kept only when one is unknown */
};

struct rig_bulk {
	struct rig_bulk_array *items;
	size_t n, cap;
};

/* Decodes the qualifying arrays of body (len bytes, body[len] == '\0') as the
 * file comment says, blanking them in body. *out receives a new bulk (free with
 * rig_bulk_free), or NULL when nothing was decoded. Bodies shorter than
 * min_bytes are left alone. Returns 0, or -RIG_MEMORY_BUSY when an allocation
 * failed (then *out is NULL and body may be partly blanked: answer 503). */
int rig_bulk_extract(struct rig_bulk **out, char *body, size_t len, enum rig_bulk_mode mode,
		     size_t min_bytes);

/* The decoded array of field in op op_index (RIG_NO_INDEX at the root), or
 * NULL. Borrowed from b (which may be NULL). */
struct rig_bulk_array *rig_bulk_find(struct rig_bulk *b, long op_index, enum rig_bulk_field field);

/* Frees b and every array still in it; a no-op on NULL. */
void rig_bulk_free(struct rig_bulk *b);

#endif
