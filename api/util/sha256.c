/* The helpers of sha256.h over nettle's SHA-256, HMAC and base16. */
#include "api/util/sha256.h"

#include <nettle/base16.h>
#include <nettle/hmac.h>
#include <string.h>

void rig_sha256_field(struct sha256_ctx *ctx, const char *s)
{
	sha256_update(ctx, strlen(s) + 1, (const uint8_t *)s);
}

void rig_sha256_hex(char out[RIG_SHA256_HEX_SIZE], struct sha256_ctx *ctx)
{
	uint8_t digest[RIG_SHA256_SIZE];
	sha256_digest(ctx, sizeof digest, digest);
	base16_encode_update(out, sizeof digest, digest); /* lowercase */
	out[2 * RIG_SHA256_SIZE] = '\0';
}

void rig_sha256_hex_of(char out[RIG_SHA256_HEX_SIZE], const void *data, size_t len)
{
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	rig_sha256_hex(out, &ctx);
}

void rig_hmac_sha256(unsigned char out[RIG_SHA256_SIZE], const unsigned char *key, size_t key_len,
		     const void *data, size_t len)
{
	struct hmac_sha256_ctx ctx;
	hmac_sha256_set_key(&ctx, key_len, key);
	hmac_sha256_update(&ctx, len, data);
	hmac_sha256_digest(&ctx, RIG_SHA256_SIZE, out);
}
