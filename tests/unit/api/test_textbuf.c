/* Response text: shortest round-trip doubles, JSON strings, UTF-8 scrubbing. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/util/textbuf.h"

static void round_trips(double v)
{
	char s[32];
	rig_format_double(s, v);
	cr_assert_eq(strtod(s, NULL), v, "%s does not read back as %.17g", s, v);
}

Test(format_double, prints_the_shortest_form_that_reads_back)
{
	char s[32];
	rig_format_double(s, 0.1);
	cr_assert_str_eq(s, "0.1");
	rig_format_double(s, 100);
	cr_assert_str_eq(s, "100");
	rig_format_double(s, 0.1 + 0.2);
	cr_assert_str_eq(s, "0.30000000000000004");
	rig_format_double(s, -2.5);
	cr_assert_str_eq(s, "-2.5");
}

Test(format_double, round_trips_edge_values)
{
	double edges[] = {0.0,
			  -0.0,
			  DBL_MIN,
			  DBL_MAX,
			  DBL_EPSILON,
			  1e-300,
			  5e-324,
			  1.0 / 3.0,
			  103.53553390593274,
			  -8.535533905932738};
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
		round_trips(edges[i]);
	unsigned long long x = 88172645463325252ull; /* xorshift: many random bit patterns */
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		memcpy(&v, &x, sizeof v);
		if (isfinite(v))
			round_trips(v);
	}
}

Test(buf, escapes_json_strings)
{
	struct rig_buf b;
	rig_buf_init(&b);
	rig_buf_json_string(&b, "a\"b\\c\n\x01");
	rig_buf_put(&b, "", 1);
	cr_assert_str_eq(b.data, "\"a\\\"b\\\\c\\u000a\\u0001\"");
	rig_buf_release(&b);
}

/* Runs copied at once: escapes first, last, adjacent and absent all read back
 * (through jansson) as the string written. */
Test(buf, json_strings_read_back)
{
	static const char *const cases[] = {"",
					    "\"",
					    "\\\\",
					    "\x1f"
					    "x",
					    "x\t",
					    "plain",
					    "h\xc3\xa9llo",
					    "\"q\"\n",
					    "a\x7f"
					    "b"};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct rig_buf b;
		rig_buf_init(&b);
		rig_buf_json_string(&b, cases[i]);
		rig_buf_put(&b, "", 1);
		json_t *v = json_loads(b.data, JSON_DECODE_ANY, NULL);
		cr_assert(json_is_string(v), "case %zu: %s", i, b.data);
		cr_assert_str_eq(json_string_value(v), cases[i], "case %zu", i);
		json_decref(v);
		rig_buf_release(&b);
	}
}

Test(buf, writes_little_endian_binary)
{
	struct rig_buf b;
	rig_buf_init(&b);
	rig_buf_u32le(&b, 0x01020304u);
	rig_buf_f32le(&b, 1.0f);
	cr_assert_eq(b.len, 8);
	const unsigned char want[8] = {4, 3, 2, 1, 0, 0, 0x80, 0x3f};
	cr_assert_arr_eq(b.data, want, 8);
	rig_buf_release(&b);
}

Test(utf8, scrubs_invalid_bytes_and_controls)
{
	char s[] = "ok \xc3\xa9 \xff bad \xed\xa0\x80 surrogate \x01 ctl";
	cr_assert_not(rig_utf8_is_clean(s));
	rig_utf8_scrub(s);
	cr_assert_str_eq(s, "ok \xc3\xa9 ? bad ??? surrogate ? ctl");
	cr_assert(rig_utf8_is_clean(s));
	cr_assert(rig_utf8_is_clean("plain ascii, caf\xc3\xa9, \xf0\x9f\x99\x82"));
}

/* Significant digits of a decimal: mantissa digits without leading and
 * trailing zeros. */
static int significant_digits(const char *s)
{
	char digits[40];
	int n = 0;
	for (; *s && *s != 'e' && *s != 'E'; s++)
		if (*s >= '0' && *s <= '9' && (n || *s != '0'))
			digits[n++] = *s;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	return n;
}

/* The slow reference: the fewest of 15, 16 or 17 significant digits that read back. */
static int reference_digits(double v)
{
	char s[40];
	for (int digits = 15; digits < 17; digits++) {
		snprintf(s, sizeof s, "%.*g", digits, v);
		if (strtod(s, NULL) == v)
			return significant_digits(s);
	}
	snprintf(s, sizeof s, "%.17g", v);
	return significant_digits(s);
}

Test(format_double, has_no_more_digits_than_the_printf_search)
{
	for (int i = -50000; i < 50000; i++) {
		double values[] = {i / 1000.0, i * 0.1, i / 7.0, i * 1e-9, i * 1e9};
		for (size_t k = 0; k < 5; k++) {
			char s[32];
			rig_format_double(s, values[k]);
			cr_assert_eq(strtod(s, NULL), values[k], "%s", s);
			int ours = significant_digits(s), ref = reference_digits(values[k]);
			cr_assert_leq(ours, ref, "%s is longer than the %d digits printf needs", s,
				      ref);
		}
	}
}

/* The significant digits of s (no sign, point, exponent or trailing zeros) and
 * the decimal exponent of its first digit. */
static void digits_and_exponent(const char *s, char *digits, int *exp10)
{
	int n = 0, point = -1, lead = 0;
	const char *p = s;
	if (*p == '-')
		p++;
	for (; *p && *p != 'e' && *p != 'E'; p++) {
		if (*p == '.') {
			point = n + lead;
			continue;
		}
		if (n == 0 && *p == '0') {
			lead++;
			continue;
		}
		digits[n++] = *p;
	}
	int int_len = point >= 0 ? point : n + lead; /* digits before the point */
	int e = *p ? atoi(p + 1) : 0;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	digits[n] = '\0';
	*exp10 = e + int_len - lead - 1;
}

Test(format_double, prints_the_shortest_closest_digits_of_random_doubles)
{
	/* The reference: the fewest significant digits P for which printf's
	 * correctly rounded %.(P-1)e reads back. The same digits, except that at a
	 * power of two (a narrower interval below) a farther candidate of P digits
	 * may be the shortest where printf needs P + 1. */
	uint64_t x = 0x2545f4914f6cdd1dull;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		memcpy(&v, &x, sizeof v);
		if (!isfinite(v) || v == 0)
			continue;
		char ref[40], ours[32];
		for (int p = 1; p <= 17; p++) {
			snprintf(ref, sizeof ref, "%.*e", p - 1, v);
			if (strtod(ref, NULL) == v)
				break;
		}
		rig_format_double(ours, v);
		char rd[40], od[40];
		int re, oe;
		digits_and_exponent(ref, rd, &re);
		digits_and_exponent(ours, od, &oe);
		uint64_t frac = x & ((1ull << 52) - 1);
		if (frac == 0) {
			cr_assert_leq(strlen(od), strlen(rd), "%s vs printf %s", ours, ref);
			continue;
		}
		cr_assert_str_eq(od, rd, "%s vs printf %s (%a)", ours, ref, v);
		cr_assert_eq(oe, re, "%s vs printf %s (%a)", ours, ref, v);
	}
}

Test(format_double, round_trips_random_bit_patterns)
{
	/* Every exponent and significand pattern, not only "nice" decimals. */
	uint64_t x = 0x9e3779b97f4a7c15ull; /* fixed seed: the same values every run */
	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		memcpy(&v, &x, sizeof v);
		if (!isfinite(v))
			continue;
		char s[32];
		rig_format_double(s, v);
		cr_assert_eq(strtod(s, NULL), v, "%s does not read back as %a", s, v);
	}
}

Test(format_u64, matches_printf)
{
	uint64_t fixed[] = {0, 9, 10, 99, 100, 101, 12345, 999999999, 1000000000, UINT64_MAX};
	char ours[32], ref[32];
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		int n = rig_format_u64(ours, fixed[i]);
		snprintf(ref, sizeof ref, "%llu", (unsigned long long)fixed[i]);
		cr_assert_str_eq(ours, ref);
		cr_assert_eq((size_t)n, strlen(ref));
	}
	uint64_t x = 0x853c49e6748fea9bull;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t v = x >> (x % 64); /* every length */
		rig_format_u64(ours, v);
		snprintf(ref, sizeof ref, "%llu", (unsigned long long)v);
		cr_assert_str_eq(ours, ref);
	}
}

Test(buf, adding_nothing_to_an_empty_buffer_leaves_it_empty)
{
	/* UBSan: memcpy into the NULL data of an empty buffer is undefined even for 0 bytes */
	struct rig_buf b;
	rig_buf_init(&b);
	rig_buf_put(&b, "", 0);
	rig_buf_puts(&b, "");
	cr_assert_eq(b.len, 0);
	cr_assert(!b.oom);
	rig_buf_puts(&b, "x");
	cr_assert_eq(b.len, 1);
	rig_buf_release(&b);
}
