/* rig_format_double (api/util/dtoa.c, Schubfach) against the Ryu printer it
 * replaced (dtoa_reference.c): the same bytes and length for every family of
 * doubles that stresses a shortest-digits printer, and the printed text reads
 * back as exactly the same bits. Every pseudo-random value comes from a
 * fixed-seed xorshift, so every run checks the same doubles. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/util/textbuf.h"
#include "dtoa_reference.h"

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static double of_bits(uint64_t bits)
{
	double v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

static uint64_t bits_of(double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	return bits;
}

/* Both printers agree on v, byte for byte, and the text reads back as v's
 * bits (the sign of zero included). Returns false, after reporting, when not. */
static bool agrees(double v)
{
	char ours[32], ref[32];
	memset(ours, 0x7f, sizeof ours); /* a missing NUL shows as a mismatch */
	int n = rig_format_double(ours, v);
	int n_ref = rig_test_ryu_format_double(ref, v);
	if (n != n_ref || strcmp(ours, ref) != 0 || (size_t)n != strlen(ours)) {
		cr_log_error("%a: \"%s\" (%d), Ryu printed \"%s\" (%d)", v, ours, n, ref, n_ref);
		return false;
	}
	if (bits_of(strtod(ours, NULL)) != bits_of(v)) {
		cr_log_error("%a: \"%s\" reads back as %a", v, ours, strtod(ours, NULL));
		return false;
	}
	return true;
}

/* v, its negation and its neighbours one ulp either side (when finite). */
static int disagreements_around(double v)
{
	int bad = 0;
	uint64_t b = bits_of(fabs(v));
	for (int d = -1; d <= 1; d++) {
		uint64_t nb = b + (uint64_t)(int64_t)d;
		if (d < 0 && b == 0)
			continue;
		double w = of_bits(nb);
		if (!isfinite(w))
			continue;
		bad += !agrees(w);
		bad += !agrees(-w);
	}
	return bad;
}

Test(format_double, prints_zeros_with_their_sign)
{
	char s[32];
	cr_assert_eq(rig_format_double(s, 0.0), 1);
	cr_assert_str_eq(s, "0");
	cr_assert_eq(rig_format_double(s, -0.0), 2);
	cr_assert_str_eq(s, "-0");
	cr_assert(agrees(0.0) && agrees(-0.0));
}

Test(format_double, keeps_the_json_layout)
{
	const struct {
		double v;
		const char *text;
	} cases[] = {
		{1, "1"},
		{-1, "-1"},
		{0.5, "0.5"},
		{123.25, "123.25"},
		{1e-7, "1e-7"},
		{1e-6, "0.000001"},
		{1.5e-6, "0.0000015"},
		{1e20, "100000000000000000000"},
		{1e21, "1e21"},
		{1.5e21, "1.5e21"},
		{123456789012345680000.0, "123456789012345680000"},
		{0.1 + 0.2, "0.30000000000000004"},
		{DBL_MAX, "1.7976931348623157e308"},
		{DBL_MIN, "2.2250738585072014e-308"},
		{5e-324, "5e-324"},
		{-2.5e-300, "-2.5e-300"},
		{9007199254740992.0, "9007199254740992"},
		{12345678.9, "12345678.9"},
		{1234567890123456.7, "1234567890123456.8"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char s[32];
		int n = rig_format_double(s, cases[i].v);
		cr_assert_str_eq(s, cases[i].text);
		cr_assert_eq((size_t)n, strlen(cases[i].text));
		cr_assert(agrees(cases[i].v));
	}
}

Test(format_double, matches_ryu_at_every_power_of_two_and_its_neighbours)
{
	/* A significand of 2^52 has the narrower interval below (the asymmetric
	 * case); its neighbours have the usual one. */
	int bad = 0;
	for (int e = -1074; e <= 1023; e++)
		bad += disagreements_around(ldexp(1.0, e));
	cr_assert_eq(bad, 0, "%d disagreements", bad);
}

Test(format_double, matches_ryu_at_every_power_of_ten_and_its_neighbours)
{
	int bad = 0;
	for (int e = -324; e <= 308; e++) {
		char s[16];
		snprintf(s, sizeof s, "1e%d", e);
		bad += disagreements_around(strtod(s, NULL)); /* 1e-324 is 0 */
	}
	cr_assert_eq(bad, 0, "%d disagreements", bad);
}

Test(format_double, matches_ryu_on_subnormals)
{
	int bad = 0;
	const uint64_t max_frac = (1ull << 52) - 1;
	for (uint64_t c = 1; c <= 100000; c++) { /* the smallest, fewest digits */
		bad += !agrees(of_bits(c));
		bad += !agrees(of_bits(max_frac + 1 - c)); /* the largest */
	}
	uint64_t x = 0x6a09e667f3bcc909ull;
	for (int i = 0; i < 200000; i++)
		bad += !agrees(of_bits(xorshift(&x) & max_frac));
	bad += disagreements_around(DBL_MIN);
	bad += disagreements_around(DBL_MAX);
	cr_assert_eq(bad, 0, "%d disagreements", bad);
}

Test(format_double, matches_ryu_on_integers)
{
	int bad = 0;
	for (int i = 1; i <= 1000000; i++)
		bad += !agrees((double)i);
	uint64_t x = 0xbb67ae8584caa73bull;
	for (int i = 0; i < 500000; i++) {
		uint64_t n = xorshift(&x) >> (11 + xorshift(&x) % 53); /* every length to 2^53 */
		bad += !agrees((double)n);
	}
	for (int e = 0; e <= 22; e++) { /* 10^e ± 1 and 2^53 ± 1 */
		double p = pow(10, e);
		bad += disagreements_around(p - 1) + disagreements_around(p + 1);
	}
	bad += disagreements_around(9007199254740992.0);
	cr_assert_eq(bad, 0, "%d disagreements", bad);
}

Test(format_double, matches_ryu_on_decimals_of_every_length)
{
	/* d.ddd × 10^e with 1 to 17 significant digits, read in by strtod: the
	 * shortest forms, which take the shorter-candidate path. */
	int bad = 0;
	uint64_t x = 0x3c6ef372fe94f82bull;
	for (int digits = 1; digits <= 17; digits++) {
		uint64_t lo = 1;
		for (int i = 1; i < digits; i++)
			lo *= 10;
		for (int i = 0; i < 20000; i++) {
			uint64_t m = lo + xorshift(&x) % (9 * lo);
			int e = (int)(xorshift(&x) % 640) - 330;
			char s[48];
			snprintf(s, sizeof s, "%llue%d", (unsigned long long)m, e);
			double v = strtod(s, NULL);
			if (isfinite(v))
				bad += !agrees(v);
		}
	}
	cr_assert_eq(bad, 0, "%d disagreements", bad);
}

Test(format_double, matches_ryu_on_ten_million_random_bit_patterns)
{
	int bad = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 10000000 && bad < 20; i++) {
		double v = of_bits(xorshift(&x));
		if (isfinite(v))
			bad += !agrees(v);
	}
	cr_assert_eq(bad, 0, "%d disagreements", bad);
}

Test(format_double, matches_ryu_on_ten_million_vertex_coordinates)
{
	/* What a JSON frame holds: coordinates of tens, 16 and 17 digits. */
	int bad = 0;
	uint64_t x = 0xa54ff53a5f1d36f1ull;
	for (int i = 0; i < 10000000 && bad < 20; i++) {
		double a = i * 0.0137;
		double v = (i % 2 ? cos(a) : sin(a)) * (37.5 + i % 100) + (i % 7) * 0.1;
		if (i % 4 == 3) /* and scales other than tens */
			v *= ldexp(1.0, (int)(xorshift(&x) % 40) - 20);
		bad += !agrees(v);
	}
	cr_assert_eq(bad, 0, "%d disagreements", bad);
}
