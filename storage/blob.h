/* Little-endian BLOB layouts of stored arrays (keys, skin source, triangles,
 * weights), independent of the host's byte order. Layouts are documented beside
 * each table in migrations/sqlite/0001_init.sql.
 */
#ifndef RIG_BLOB_H
#define RIG_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "core/skin.h"
#include "storage/shot_model.h"

#define RIG_KEY_RECORD_BYTES 50
#define RIG_INFLUENCE_RECORD_BYTES 12
#define RIG_JOINT_RECORD_BYTES (2 * (RIG_ID_MAX + 1) + 48)

void rig_le_put_u32(unsigned char *p, uint32_t v);
uint32_t rig_le_get_u32(const unsigned char *p);
void rig_le_put_f64(unsigned char *p, double v);
double rig_le_get_f64(const unsigned char *p);

/* Encodes every channel's keys of a layer; returns a malloc'd buffer (caller
 * frees; non-NULL even when empty) and its size in *out_size, or NULL on OOM. */
unsigned char *rig_blob_keys_encode(size_t *out_size, const struct rig_key_list keys[RIG_CH_COUNT]);

/* Encodes the keys of one channel (records of channel `channel` only), as
 * rig_blob_keys_encode does. */
unsigned char *rig_blob_channel_keys_encode(size_t *out_size, const struct rig_key_list *list,
					    int channel);

/* Decodes a keys BLOB into the lists (each record goes to its channel's list,
 * so the BLOBs of several channels decode into one set). Returns 0, or -1 on a
 * malformed BLOB or OOM (lists then freed and emptied). */
int rig_blob_keys_decode(struct rig_key_list keys[RIG_CH_COUNT], const unsigned char *p,
			 size_t size);

/* The skin's arrays as BLOBs (see migrations/sqlite/0001_init.sql). Each encoder
 * returns a malloc'd buffer with its size in *out_size, or NULL on OOM. */
unsigned char *rig_blob_joints_encode(size_t *out_size, const struct rig_skin_def *def);
unsigned char *rig_blob_source_encode(size_t *out_size, const struct rig_skin_def *def);
unsigned char *rig_blob_triangles_encode(size_t *out_size, const struct rig_skin_def *def);
unsigned char *rig_blob_offsets_encode(size_t *out_size, const struct rig_skin_def *def);
unsigned char *rig_blob_influences_encode(size_t *out_size, const struct rig_skin_def *def);

/* Decoders fill the matching arrays and counts of def (which must not own them
 * yet), allocating with malloc. Each returns 0, or -1 when the BLOB's size does
 * not match the count or on OOM. */
int rig_blob_joints_decode(struct rig_skin_def *def, size_t n, const unsigned char *p, size_t size);
int rig_blob_source_decode(struct rig_skin_def *def, size_t n, const unsigned char *p, size_t size);
int rig_blob_triangles_decode(struct rig_skin_def *def, size_t n, const unsigned char *p,
			      size_t size);
/* As the decoders, but taking a malloc'd BLOB buffer: on a little-endian host
 * the buffer becomes the array (and *buf is set to NULL), elsewhere it is
 * decoded into a new array. */
int rig_blob_source_take(struct rig_skin_def *def, size_t n, unsigned char **buf);
int rig_blob_triangles_take(struct rig_skin_def *def, size_t n, unsigned char **buf);

int rig_blob_weights_decode(struct rig_skin_def *def, size_t n_verts, const unsigned char *offsets,
			    size_t offsets_size, const unsigned char *influences,
			    size_t influences_size);

#endif
