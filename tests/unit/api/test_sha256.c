/* The helpers of api/util/sha256.c over nettle, against the published test
 * vectors (FIPS 180-2 appendix B for SHA-256, RFC 4231 §4 for HMAC-SHA-256):
 * a wrong length, a swapped argument or a truncated digest fails here. */
#include <criterion/criterion.h>
#include <string.h>

#include "api/util/sha256.h"

static void hex_of_bytes(char *out, const unsigned char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

Test(sha256, matches_fips_180_2_vectors)
{
	char hex[RIG_SHA256_HEX_SIZE];
	rig_sha256_hex_of(hex, "", 0);
	cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	rig_sha256_hex_of(hex, "abc", 3);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	rig_sha256_hex_of(hex, two_blocks, strlen(two_blocks));
	cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(sha256, matches_the_million_a_vector_hashed_in_pieces)
{
	char a[1000];
	memset(a, 'a', sizeof a);
	struct sha256_ctx ctx;
	sha256_init(&ctx);
	for (int i = 0; i < 1000; i++)
		sha256_update(&ctx, sizeof a, (const uint8_t *)a);
	char hex[RIG_SHA256_HEX_SIZE];
	rig_sha256_hex(hex, &ctx);
	cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

Test(sha256, hex_leaves_the_context_ready_for_a_new_hash)
{
	struct sha256_ctx ctx;
	char hex[RIG_SHA256_HEX_SIZE];
	sha256_init(&ctx);
	sha256_update(&ctx, 5, (const uint8_t *)"first");
	rig_sha256_hex(hex, &ctx);
	sha256_update(&ctx, 3, (const uint8_t *)"abc");
	rig_sha256_hex(hex, &ctx);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	cr_assert_eq(strlen(hex), 64);
}

Test(sha256, field_hashes_the_string_with_its_nul)
{
	struct sha256_ctx ctx;
	char hex[RIG_SHA256_HEX_SIZE];
	sha256_init(&ctx);
	rig_sha256_field(&ctx, "abc");
	rig_sha256_hex(hex, &ctx);
	cr_assert_str_eq(hex, "dc1114cd074914bd872cc1f9a23ec910ea2203bc79779ab2e17da25782a624fc");
	/* The framing of a frame query's ETag: path, then each name and value. */
	sha256_init(&ctx);
	rig_sha256_field(&ctx, "/v1/x");
	rig_sha256_field(&ctx, "layers");
	rig_sha256_field(&ctx, "a,b");
	rig_sha256_field(&ctx, "space");
	rig_sha256_hex(hex, &ctx);
	cr_assert_str_eq(hex, "e347ec0fab9be6149bea6ef707047c5b516e942cd6bae430ca74eedd53513fff");
}

Test(sha256, fields_do_not_run_into_each_other)
{
	struct sha256_ctx ctx;
	char one[RIG_SHA256_HEX_SIZE], other[RIG_SHA256_HEX_SIZE];
	sha256_init(&ctx);
	rig_sha256_field(&ctx, "ab");
	rig_sha256_field(&ctx, "c");
	rig_sha256_hex(one, &ctx);
	rig_sha256_field(&ctx, "a");
	rig_sha256_field(&ctx, "bc");
	rig_sha256_hex(other, &ctx);
	cr_assert_str_neq(one, other);
}

/* The HMAC of data under key, as hex of its first strlen(mac) / 2 bytes
 * (RFC 4231 case 5 lists only 128 bits), against mac. */
static void check_hmac(const unsigned char *key, size_t key_len, const void *data, size_t data_len,
		       const char *mac, int rfc_case)
{
	unsigned char out[RIG_SHA256_SIZE];
	char hex[RIG_SHA256_HEX_SIZE];
	rig_hmac_sha256(out, key, key_len, data, data_len);
	hex_of_bytes(hex, out, strlen(mac) / 2);
	cr_assert_str_eq(hex, mac, "RFC 4231 test case %d", rfc_case);
}

Test(hmac_sha256, matches_rfc_4231_vectors)
{
	unsigned char key[131];
	char data[50];
	memset(key, 0x0b, 20);
	check_hmac(key, 20, "Hi There", 8,
		   "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", 1);
	check_hmac((const unsigned char *)"Jefe", 4, "what do ya want for nothing?", 28,
		   "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", 2);
	memset(key, 0xaa, 20);
	memset(data, 0xdd, 50);
	check_hmac(key, 20, data, 50,
		   "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe", 3);
	for (int i = 0; i < 25; i++)
		key[i] = (unsigned char)(i + 1);
	memset(data, 0xcd, 50);
	check_hmac(key, 25, data, 50,
		   "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b", 4);
	/* Truncated to 128 bits, as page tokens carry it (api/http/paging.c). */
	memset(key, 0x0c, 20);
	check_hmac(key, 20, "Test With Truncation", 20, "a3b6167473100ee06e0c796c2955552b", 5);
	/* A key longer than the 64-byte block is hashed first. */
	memset(key, 0xaa, 131);
	const char *six = "Test Using Larger Than Block-Size Key - Hash Key First";
	check_hmac(key, 131, six, strlen(six),
		   "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", 6);
	const char *seven = "This is a test using a larger than block-size key and a larger "
			    "than block-size data. The key needs to be hashed before being "
			    "used by the HMAC algorithm.";
	check_hmac(key, 131, seven, strlen(seven),
		   "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2", 7);
}
