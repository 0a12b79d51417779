/* SHA-256 and HMAC-SHA-256 against the published test vectors. */
#include <criterion/criterion.h>
#include <string.h>

#include "api/util/sha256.h"

static void digest_hex(char out[RIG_SHA256_HEX_SIZE], const void *data, size_t len)
{
	struct rig_sha256 s;
	unsigned char d[RIG_SHA256_SIZE];
	rig_sha256_init(&s);
	rig_sha256_update(&s, data, len);
	rig_sha256_final(d, &s);
	rig_hex32(out, d);
}

Test(sha256, matches_fips_180_vectors)
{
	char hex[RIG_SHA256_HEX_SIZE];
	digest_hex(hex, "", 0);
	cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	digest_hex(hex, "abc", 3);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	digest_hex(hex, two_blocks, strlen(two_blocks));
	cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(sha256, is_the_same_whatever_the_update_sizes)
{
	char whole[RIG_SHA256_HEX_SIZE], pieces[RIG_SHA256_HEX_SIZE];
	unsigned char data[1000];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (unsigned char)(i * 31);
	digest_hex(whole, data, sizeof data);
	struct rig_sha256 s;
	unsigned char d[RIG_SHA256_SIZE];
	rig_sha256_init(&s);
	for (size_t off = 0, step = 1; off < sizeof data; off += step, step = step * 3 % 97 + 1)
		rig_sha256_update(&s, data + off,
				  off + step > sizeof data ? sizeof data - off : step);
	rig_sha256_final(d, &s);
	rig_hex32(pieces, d);
	cr_assert_str_eq(pieces, whole);
}

Test(hmac_sha256, matches_rfc_4231_case_2)
{
	unsigned char mac[RIG_SHA256_SIZE];
	char hex[RIG_SHA256_HEX_SIZE];
	const char *data = "what do ya want for nothing?";
	rig_hmac_sha256(mac, (const unsigned char *)"Jefe", 4, data, strlen(data));
	rig_hex32(hex, mac);
	cr_assert_str_eq(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}
