/* Unit tests of clients/base64.c: RFC 4648 §10's test vectors, every byte
 * value, text longer than the encoder's chunk, and appending after what the
 * buffer already holds. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "clients/base64.h"

static char *encoded(const void *data, size_t n)
{
	struct rig_bytes b;
	rig_bytes_init(&b);
	cr_assert_eq(rig_base64_encode(&b, data, n), 0);
	return rig_bytes_take(&b);
}

Test(base64, encodes_the_rfc_4648_vectors)
{
	static const char *const vectors[][2] = {{"", ""},
						 {"f", "Zg=="},
						 {"fo", "Zm8="},
						 {"foo", "Zm9v"},
						 {"foob", "Zm9vYg=="},
						 {"fooba", "Zm9vYmE="},
						 {"foobar", "Zm9vYmFy"}};
	for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
		char *text = encoded(vectors[i][0], strlen(vectors[i][0]));
		cr_expect_str_eq(text, vectors[i][1]);
		free(text);
	}
}

Test(base64, encodes_every_byte_value_with_the_standard_alphabet)
{
	unsigned char all[256];
	for (int i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	char *text = encoded(all, sizeof all);
	cr_assert_eq(strlen(text), 344u); /* 4 * ceil(256 / 3) */
	cr_expect_eq(strncmp(text, "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g", 44), 0);
	cr_expect_str_eq(text + 320, "8PHy8/T19vf4+fr7/P3+/w==");
	free(text);
}

Test(base64, text_past_one_chunk_is_whole)
{
	enum { N = 10000 }; /* 13336 characters: more than the 4096 of a chunk */
	static unsigned char zeros[N];
	char *text = encoded(zeros, N);
	cr_assert_eq(strlen(text), 13336u);
	for (size_t i = 0; i < 13332; i++)
		cr_assert_eq(text[i], 'A', "at %zu", i);
	cr_expect_str_eq(text + 13332, "AA==");
	free(text);
}

Test(base64, appends_after_what_the_buffer_holds)
{
	struct rig_bytes b;
	rig_bytes_init(&b);
	cr_assert_eq(rig_bytes_puts(&b, "data:"), 0);
	cr_assert_eq(rig_base64_encode(&b, "\xff\xfe", 2), 0);
	cr_expect_str_eq(b.data, "data://4=");
	rig_bytes_release(&b);
}
