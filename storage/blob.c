/* Little-endian encoders and decoders of blob.h. */
#include "storage/blob.h"

#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>

#include "core/bytes.h"

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

void rig_blob_print(unsigned char out[RIG_KEYS_PRINT_BYTES], const unsigned char *p, size_t size)
{
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	sha256_update(&ctx, size, p);
	sha256_digest(&ctx, RIG_KEYS_PRINT_BYTES, out);
}

/* SHA-256 of the empty string, e3b0c442 98fc1c14 9afbf4c8 996fb924 …
 * (FIPS 180-4's test vector; tests/unit/storage checks it). */
const unsigned char rig_blob_print_none[RIG_KEYS_PRINT_BYTES] = {0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc,
								 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8,
								 0x99, 0x6f, 0xb9, 0x24};
