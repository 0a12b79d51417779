/* SHA-256 and HMAC-SHA-256 come from nettle (Debian's nettle-dev: GnuTLS's own
 * hash library, already under libmicrohttpd): request fingerprints for
 * idempotency keys, the ETags of frame queries, the stored hashes of API
 * tokens and the MAC of page tokens. Callers hash with nettle's sha256_init
 * and sha256_update; this header holds only what every call site would
 * otherwise repeat: a string field with its NUL, the digest as lowercase hex,
 * and a one-shot HMAC. No hashing of our own lives here.
 */
#ifndef RIG_SHA256_H
#define RIG_SHA256_H

#include <nettle/sha2.h>
#include <stddef.h>

/* Bytes of a SHA-256 digest (and of an HMAC-SHA-256). */
#define RIG_SHA256_SIZE SHA256_DIGEST_SIZE

/* Bytes of a digest's lowercase hex form with its NUL (rig_sha256_hex). */
#define RIG_SHA256_HEX_SIZE (2 * RIG_SHA256_SIZE + 1)

/* Hashes the string s and its terminating NUL into ctx, so that consecutive
 * fields of a fingerprint cannot run into each other ("ab","c" ≠ "a","bc"). */
void rig_sha256_field(struct sha256_ctx *ctx, const char *s);

/* Finishes ctx (nettle's sha256_digest, which leaves ctx reset for a new
 * hash) and writes the digest as 64 lowercase hex digits and a NUL. */
void rig_sha256_hex(char out[RIG_SHA256_HEX_SIZE], struct sha256_ctx *ctx);

/* Writes the SHA-256 of the len bytes at data as rig_sha256_hex does. */
void rig_sha256_hex_of(char out[RIG_SHA256_HEX_SIZE], const void *data, size_t len);

/* Writes the HMAC-SHA-256 (RFC 2104) of the len bytes at data under the
 * key_len bytes of key (any length: a key longer than the 64-byte block is
 * hashed first, as RFC 2104 says). */
void rig_hmac_sha256(unsigned char out[RIG_SHA256_SIZE], const unsigned char *key, size_t key_len,
		     const void *data, size_t len);

#endif
