/* Little-endian BLOB layouts of a layer's stored keys, independent of the
 * host's byte order (a skin's arrays are storage/skin_bytes.h's). Layouts are documented beside
 * each table in migrations/sqlite/0001_init.sql.
 */
#ifndef RIG_BLOB_H
#define RIG_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "core/bytes.h"
#include "storage/shot_model.h"

#define RIG_KEY_RECORD_BYTES 50

/* The byte layout is core/bytes.h's, every stored form's; these read and
 * write at an offset. Inline: the decoders call them once a value. */
static inline void rig_le_put_u32(unsigned char *p, uint32_t v)
{
	rig_bytes_put_u32(p, v);
}

static inline uint32_t rig_le_get_u32(const unsigned char *p)
{
	return rig_bytes_get_u32(&p);
}

static inline void rig_le_put_f64(unsigned char *p, double v)
{
	rig_bytes_put_f64(p, v);
}

static inline double rig_le_get_f64(const unsigned char *p)
{
	return rig_bytes_get_f64(&p);
}

/* Encodes every channel's keys of a layer; returns a malloc'd buffer (caller
 * frees; non-NULL even when empty) and its size in *out_size, or NULL on OOM. */
unsigned char *rig_blob_keys_encode(size_t *out_size, const struct rig_key_list keys[RIG_CH_COUNT]);

/* Encodes the keys of one channel (records of channel `channel` only), as
 * rig_blob_keys_encode does. */
unsigned char *rig_blob_channel_keys_encode(size_t *out_size, const struct rig_key_list *list,
					    int channel);

/* The fingerprint of a channel's stored key bytes (SHA-256, first 16 bytes):
 * what a shot model remembers of each stored channel, so that a save writes
 * only the channels whose bytes changed without reading them back. No row
 * and an empty row have the print of 0 bytes. RIG_KEYS_PRINT_BYTES is
 * storage/shot_model.h's. */
void rig_blob_print(unsigned char out[RIG_KEYS_PRINT_BYTES], const unsigned char *p, size_t size);

/* The print of 0 bytes: of an unkeyed channel. */
extern const unsigned char rig_blob_print_none[RIG_KEYS_PRINT_BYTES];

/* Decodes a keys BLOB into the lists (each record goes to its channel's list,
 * so the BLOBs of several channels decode into one set). Returns 0, or -1 on a
 * malformed BLOB or OOM (lists then freed and emptied). */
int rig_blob_keys_decode(struct rig_key_list keys[RIG_CH_COUNT], const unsigned char *p,
			 size_t size);

#endif
