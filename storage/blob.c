/* Little-endian encoders and decoders of blob.h. */
#include "storage/blob.h"

#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"

/* On a little-endian host the stored layout is the memory layout: whole
 * arrays move with memcpy; elsewhere every value goes through the byte-wise
 * helpers below. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_IS_LE 1
#else
#define HOST_IS_LE 0
#endif

/* The byte layout is core/bytes.h's, every stored form's. */
void rig_le_put_u32(unsigned char *p, uint32_t v)
{
	rig_bytes_put_u32(p, v);
}

uint32_t rig_le_get_u32(const unsigned char *p)
{
	return rig_bytes_get_u32(&p);
}

void rig_le_put_f64(unsigned char *p, double v)
{
	rig_bytes_put_f64(p, v);
}

double rig_le_get_f64(const unsigned char *p)
{
	return rig_bytes_get_f64(&p);
}

static unsigned char *put_key_records(unsigned char *p, const struct rig_key_list *list, int c)
{
	for (size_t i = 0; i < list->count; i++) {
		const struct rig_key *k = &list->items[i];
		p[0] = (unsigned char)c;
		p[1] = (unsigned char)k->interp;
		rig_le_put_f64(p + 2, k->frame);
		rig_le_put_f64(p + 10, k->value);
		for (int e = 0; e < 4; e++)
			rig_le_put_f64(p + 18 + 8 * e, k->ease[e]);
		p += RIG_KEY_RECORD_BYTES;
	}
	return p;
}

unsigned char *rig_blob_keys_encode(size_t *out_size, const struct rig_key_list keys[RIG_CH_COUNT])
{
	*out_size = 0;
	size_t n = 0;
	for (int c = 0; c < RIG_CH_COUNT; c++)
		n += keys[c].count;
	unsigned char *buf = malloc(n ? n * RIG_KEY_RECORD_BYTES : 1);
	if (!buf)
		return NULL;
	unsigned char *p = buf;
	for (int c = 0; c < RIG_CH_COUNT; c++)
		p = put_key_records(p, &keys[c], c);
	*out_size = n * RIG_KEY_RECORD_BYTES;
	return buf;
}

unsigned char *rig_blob_channel_keys_encode(size_t *out_size, const struct rig_key_list *list,
					    int channel)
{
	*out_size = list->count * RIG_KEY_RECORD_BYTES;
	unsigned char *buf = malloc(*out_size ? *out_size : 1);
	if (buf)
		put_key_records(buf, list, channel);
	else
		*out_size = 0;
	return buf;
}

int rig_blob_keys_decode(struct rig_key_list keys[RIG_CH_COUNT], const unsigned char *p,
			 size_t size)
{
	if (size % RIG_KEY_RECORD_BYTES)
		return -1;
	for (size_t off = 0; off < size; off += RIG_KEY_RECORD_BYTES) {
		const unsigned char *r = p + off;
		if (r[0] >= RIG_CH_COUNT || r[1] > RIG_INTERP_BEZIER)
			goto fail;
		struct rig_key k = {.frame = rig_le_get_f64(r + 2),
				    .value = rig_le_get_f64(r + 10),
				    .interp = (enum rig_interp)r[1]};
		for (int e = 0; e < 4; e++)
			k.ease[e] = rig_le_get_f64(r + 18 + 8 * e);
		if (rig_key_list_put(&keys[r[0]], &k) != 0)
			goto fail;
	}
	return 0;
fail:
	for (int c = 0; c < RIG_CH_COUNT; c++) {
		free(keys[c].items);
		memset(&keys[c], 0, sizeof keys[c]);
	}
	return -1;
}

unsigned char *rig_blob_joints_encode(size_t *out_size, const struct rig_skin_def *def)
{
	*out_size = def->n_joints * RIG_JOINT_RECORD_BYTES;
	unsigned char *buf = calloc(1, *out_size ? *out_size : 1);
	if (!buf)
		return NULL;
	for (size_t j = 0; j < def->n_joints; j++) {
		unsigned char *r = buf + j * RIG_JOINT_RECORD_BYTES;
		memcpy(r, def->joints[j].id, strnlen(def->joints[j].id, RIG_ID_MAX));
		memcpy(r + RIG_ID_MAX + 1, def->joints[j].layer_id,
		       strnlen(def->joints[j].layer_id, RIG_ID_MAX));
		for (int e = 0; e < 6; e++)
			rig_le_put_f64(r + 2 * (RIG_ID_MAX + 1) + 8 * e, def->joints[j].bind.m[e]);
	}
	return buf;
}

unsigned char *rig_blob_source_encode(size_t *out_size, const struct rig_skin_def *def)
{
	*out_size = def->n_verts * 16;
	unsigned char *buf = malloc(*out_size ? *out_size : 1);
	if (!buf)
		return NULL;
	if (HOST_IS_LE)
		memcpy(buf, def->source, *out_size);
	else
		for (size_t i = 0; i < 2 * def->n_verts; i++)
			rig_le_put_f64(buf + 8 * i, def->source[i]);
	return buf;
}

unsigned char *rig_blob_triangles_encode(size_t *out_size, const struct rig_skin_def *def)
{
	*out_size = def->n_tris * 12;
	unsigned char *buf = malloc(*out_size ? *out_size : 1);
	if (!buf)
		return NULL;
	if (HOST_IS_LE)
		memcpy(buf, def->triangles, *out_size);
	else
		for (size_t i = 0; i < 3 * def->n_tris; i++)
			rig_le_put_u32(buf + 4 * i, def->triangles[i]);
	return buf;
}

unsigned char *rig_blob_offsets_encode(size_t *out_size, const struct rig_skin_def *def)
{
	*out_size = (def->n_weight_lists + 1) * 4;
	unsigned char *buf = malloc(*out_size);
	if (!buf)
		return NULL;
	if (HOST_IS_LE)
		memcpy(buf, def->weight_offsets, *out_size);
	else
		for (size_t i = 0; i <= def->n_weight_lists; i++)
			rig_le_put_u32(buf + 4 * i, def->weight_offsets[i]);
	return buf;
}

unsigned char *rig_blob_influences_encode(size_t *out_size, const struct rig_skin_def *def)
{
	size_t n = def->weight_offsets[def->n_weight_lists];
	*out_size = n * RIG_INFLUENCE_RECORD_BYTES;
	unsigned char *buf = malloc(*out_size ? *out_size : 1);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char *r = buf + RIG_INFLUENCE_RECORD_BYTES * i;
		if (HOST_IS_LE) {
			memcpy(r, &def->influences[i].joint, 4);
			memcpy(r + 4, &def->influences[i].weight, 8);
		} else {
			rig_le_put_u32(r, def->influences[i].joint);
			rig_le_put_f64(r + 4, def->influences[i].weight);
		}
	}
	return buf;
}

int rig_blob_joints_decode(struct rig_skin_def *def, size_t n, const unsigned char *p, size_t size)
{
	if (size != n * RIG_JOINT_RECORD_BYTES)
		return -1;
	def->joints = calloc(n ? n : 1, sizeof *def->joints);
	if (!def->joints)
		return -1;
	def->n_joints = n;
	for (size_t j = 0; j < n; j++) {
		const unsigned char *r = p + j * RIG_JOINT_RECORD_BYTES;
		memcpy(def->joints[j].id, r, RIG_ID_MAX);
		memcpy(def->joints[j].layer_id, r + RIG_ID_MAX + 1, RIG_ID_MAX);
		for (int e = 0; e < 6; e++)
			def->joints[j].bind.m[e] = rig_le_get_f64(r + 2 * (RIG_ID_MAX + 1) + 8 * e);
	}
	return 0;
}

int rig_blob_source_decode(struct rig_skin_def *def, size_t n, const unsigned char *p, size_t size)
{
	if (size != n * 16)
		return -1;
	def->source = malloc(n ? n * 16 : 1);
	if (!def->source)
		return -1;
	if (HOST_IS_LE)
		memcpy(def->source, p, size);
	else
		for (size_t i = 0; i < 2 * n; i++)
			def->source[i] = rig_le_get_f64(p + 8 * i);
	def->n_verts = n;
	return 0;
}

int rig_blob_triangles_decode(struct rig_skin_def *def, size_t n, const unsigned char *p,
			      size_t size)
{
	if (size != n * 12)
		return -1;
	def->triangles = malloc(n ? n * 12 : 1);
	if (!def->triangles)
		return -1;
	if (HOST_IS_LE)
		memcpy(def->triangles, p, size);
	else
		for (size_t i = 0; i < 3 * n; i++)
			def->triangles[i] = rig_le_get_u32(p + 4 * i);
	def->n_tris = n;
	return 0;
}

int rig_blob_weights_decode(struct rig_skin_def *def, size_t n_verts, const unsigned char *offsets,
			    size_t offsets_size, const unsigned char *influences,
			    size_t influences_size)
{
	if (offsets_size != (n_verts + 1) * 4)
		return -1;
	size_t n = influences_size / RIG_INFLUENCE_RECORD_BYTES;
	if (influences_size % RIG_INFLUENCE_RECORD_BYTES ||
	    rig_le_get_u32(offsets + 4 * n_verts) != n)
		return -1;
	def->weight_offsets = malloc(offsets_size);
	def->influences = malloc(n ? n * sizeof *def->influences : 1);
	if (!def->weight_offsets || !def->influences)
		return -1;
	if (HOST_IS_LE)
		memcpy(def->weight_offsets, offsets, offsets_size);
	else
		for (size_t i = 0; i <= n_verts; i++)
			def->weight_offsets[i] = rig_le_get_u32(offsets + 4 * i);
	for (size_t i = 0; i < n; i++) {
		const unsigned char *r = influences + RIG_INFLUENCE_RECORD_BYTES * i;
		if (HOST_IS_LE) {
			memcpy(&def->influences[i].joint, r, 4);
			memcpy(&def->influences[i].weight, r + 4, 8);
		} else {
			def->influences[i].joint = rig_le_get_u32(r);
			def->influences[i].weight = rig_le_get_f64(r + 4);
		}
	}
	def->n_weight_lists = n_verts;
	return 0;
}

int rig_blob_source_take(struct rig_skin_def *def, size_t n, unsigned char **buf)
{
	if (!HOST_IS_LE)
		return rig_blob_source_decode(def, n, *buf, n * 16);
	def->source = (double *)(void *)*buf; /* malloc'd: suitably aligned */
	def->n_verts = n;
	*buf = NULL;
	return 0;
}

int rig_blob_triangles_take(struct rig_skin_def *def, size_t n, unsigned char **buf)
{
	if (!HOST_IS_LE)
		return rig_blob_triangles_decode(def, n, *buf, n * 12);
	def->triangles = (uint32_t *)(void *)*buf;
	def->n_tris = n;
	*buf = NULL;
	return 0;
}
