/* SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104): request fingerprints for
 * idempotency keys and the MAC of page tokens. Small and dependency-free.
 */
#ifndef RIG_SHA256_H
#define RIG_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of a SHA-256 digest (and of an HMAC-SHA-256). */
#define RIG_SHA256_SIZE 32

/* Bytes of a digest's lowercase hex form with its NUL (rig_hex32). */
#define RIG_SHA256_HEX_SIZE (2 * RIG_SHA256_SIZE + 1)

struct rig_sha256 {
	uint32_t h[8];
	uint64_t n_bytes;
	unsigned char buf[64];
	size_t n_buf;
};

void rig_sha256_init(struct rig_sha256 *s);
void rig_sha256_update(struct rig_sha256 *s, const void *data, size_t len);
void rig_sha256_final(unsigned char out[RIG_SHA256_SIZE], struct rig_sha256 *s);

/* HMAC-SHA-256 of data under key (key_len ≤ 64). */
void rig_hmac_sha256(unsigned char out[RIG_SHA256_SIZE], const unsigned char *key, size_t key_len,
		     const void *data, size_t len);

/* Writes 64 lowercase hex digits and a NUL. */
void rig_hex32(char out[RIG_SHA256_HEX_SIZE], const unsigned char digest[RIG_SHA256_SIZE]);

#endif
