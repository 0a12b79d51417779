/* SHA-256 and HMAC of sha256.h, after FIPS 180-4 §6.2. */
#include "api/util/sha256.h"

#include <string.h>

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2};

static uint32_t rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void block(struct rig_sha256 *s, const unsigned char *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
			      k[i] + w[i];
		uint32_t t2 =
			(rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
	s->h[5] += f;
	s->h[6] += g;
	s->h[7] += h;
}

void rig_sha256_init(struct rig_sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(s->h, h0, sizeof h0);
	s->n_bytes = 0;
	s->n_buf = 0;
}

void rig_sha256_update(struct rig_sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	s->n_bytes += len;
	while (len > 0) {
		if (s->n_buf == 0 && len >= 64) {
			block(s, p);
			p += 64;
			len -= 64;
			continue;
		}
		size_t take = 64 - s->n_buf < len ? 64 - s->n_buf : len;
		memcpy(s->buf + s->n_buf, p, take);
		s->n_buf += take;
		p += take;
		len -= take;
		if (s->n_buf == 64) {
			block(s, s->buf);
			s->n_buf = 0;
		}
	}
}

void rig_sha256_final(unsigned char out[RIG_SHA256_SIZE], struct rig_sha256 *s)
{
	uint64_t bits = s->n_bytes * 8;
	unsigned char pad = 0x80;
	rig_sha256_update(s, &pad, 1);
	unsigned char zero = 0;
	while (s->n_buf != 56)
		rig_sha256_update(s, &zero, 1);
	unsigned char len_be[8];
	for (int i = 0; i < 8; i++)
		len_be[i] = (unsigned char)(bits >> (56 - 8 * i));
	rig_sha256_update(s, len_be, 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

void rig_hmac_sha256(unsigned char out[RIG_SHA256_SIZE], const unsigned char *key, size_t key_len,
		     const void *data, size_t len)
{
	unsigned char ipad[64] = {0}, opad[64] = {0}, inner[32];
	memcpy(ipad, key, key_len > 64 ? 64 : key_len);
	memcpy(opad, ipad, 64);
	for (int i = 0; i < 64; i++) {
		ipad[i] ^= 0x36;
		opad[i] ^= 0x5c;
	}
	struct rig_sha256 s;
	rig_sha256_init(&s);
	rig_sha256_update(&s, ipad, 64);
	rig_sha256_update(&s, data, len);
	rig_sha256_final(inner, &s);
	rig_sha256_init(&s);
	rig_sha256_update(&s, opad, 64);
	rig_sha256_update(&s, inner, 32);
	rig_sha256_final(out, &s);
}

void rig_hex32(char out[RIG_SHA256_HEX_SIZE], const unsigned char digest[RIG_SHA256_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[64] = '\0';
}
