/* The archive of one version's layer writes (docs/history.md): an entry for
 * every layer the version wrote, holding the head row it replaced or deleted
 * (valid for valid_from <= N < the version), or none for a layer it created.
 * One stored value per version instead of a history row per layer: a batch
 * that poses fifty layers writes one value, not fifty rows and their index.
 *
 * The byte layout, entry after entry (varint: unsigned LEB128; f64:
 * little-endian IEEE-754 bits, core/bytes.h):
 *   u8 flags (RIG_ARCHIVE_*), u8 id length, the id and a NUL;
 *   with RIG_ARCHIVE_ROW, the row: varint valid_from, varint ord, u8 kind
 *   (0 group, 1 mesh), varint name length, the name and a NUL, u8 parent
 *   length (0: the shot root), the parent and a NUL; u8 mask, bit c for
 *   channel c of the statics and bit RIG_CH_COUNT for the time offset, then
 *   an f64 for each bit set (the others hold the bits of their default:
 *   rig_transform_default, time offset 0); varint keys length and the keys
 *   BLOB of a row that keeps its keys in itself (without
 *   RIG_ARCHIVE_KEYS_ROWS; storage/blob.h's layout).
 * A posed layer's entry is about 25 bytes: values mostly at their defaults
 * are not written out.
 */
#ifndef RIG_LAYER_ARCHIVE_H
#define RIG_LAYER_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/rig.h"
#include "core/scene.h"

enum {
	RIG_ARCHIVE_ROW = 1,       /* the replaced head row follows */
	RIG_ARCHIVE_DELETED = 2,   /* the row's layer was deleted, not rewritten */
	RIG_ARCHIVE_KEYS_ROWS = 4, /* its keys are layer_keys rows at valid_from */
};

/* A layer row: an entry's, or a head row read the same way. Strings and keys
 * point into the bytes they were read from. */
struct rig_layer_row {
	const char *id;
	unsigned flags;
	long long valid_from; /* the version that wrote the row (a head's since) */
	long long ord;
	enum rig_layer_kind kind;
	const char *name;
	const char *parent_id; /* "" at the shot root */
	double statics[RIG_CH_COUNT];
	double time_offset;
	const unsigned char *keys; /* without RIG_ARCHIVE_KEYS_ROWS */
	size_t keys_size;
};

/* A growing archive value. Zero it to start; free its bytes when done. */
struct rig_archive_buf {
	unsigned char *bytes;
	size_t size, cap;
};

/* Appends row as an entry (its fields after id and flags only with
 * RIG_ARCHIVE_ROW). Returns 0, or -1 when out of memory or a string is too
 * long for the layout (ids and parents up to RIG_ID_MAX bytes). */
int rig_archive_put(struct rig_archive_buf *a, const struct rig_layer_row *row);

/* Reads the entry at *p (before end) into row and advances *p past it.
 * Returns 1, 0 at the end, -1 when the bytes are malformed. */
int rig_archive_next(const unsigned char **p, const unsigned char *end, struct rig_layer_row *row);

#endif
