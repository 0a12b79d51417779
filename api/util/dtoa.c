/* Shortest decimal printing of doubles for JSON responses, and of integers.
 * The digits are the shortest that read back as the same double, and of those
 * the closest to it (an exact tie goes to the even digit). No allocation, no
 * locale, no printf, no floating point: integer arithmetic only, so every CPU
 * prints the same bytes.
 *
 * The digits come from Schubfach (Raffaello Giulietti, "The Schubfach way to
 * render doubles", 2021): one 126-bit multiplier per double scales the value
 * and both ends of its rounding interval by 10^-k, with k chosen so that the
 * interval holds at most one multiple of 10 there; a few comparisons then pick
 * the shortest candidate, with no loop of divisions. It replaced our Ryu (Ulf
 * Adams, PLDI 2018), which the unit test keeps as its oracle
 * (tests/unit/api/dtoa_reference.c): the same bytes, 1.5–3 times faster
 * (bench/bench_dtoa.c, docs/performance.md). The multipliers are in
 * dtoa_tables.h, generated with exact integers by
 * scripts/gen_dtoa_tables.py.
 *
 * The digits are then always written as 17 (the shortest form scaled up, its
 * trailing zeros written too and counted), 8 at a time in a register
 * (multiply-and-shift, no table, no division instruction), and laid out with fixed-size
 * stores: no byte is written and then read back, which stalled the previous
 * version's copies.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "api/util/dtoa_tables.h"
#include "api/util/textbuf.h"

/* The exponent logarithms shift negative products right: GCC and Clang do
 * that arithmetically (C11 leaves it to the implementation). */
_Static_assert((-1 >> 1) == -1, "an arithmetic right shift of negative int32_t");

/* ⌊e · log10 2⌋, ⌊e · log10 2 + log10 3/4⌋ and ⌊e · log2 10⌋ for the exponents a
 * double needs; the generator checks each against the exact value. */
static inline int32_t floor_log10_pow2(int32_t e)
{
	return (e * RIG_DTOA_LOG10_2) >> 20;
}
static inline int32_t floor_log10_three_quarters_pow2(int32_t e)
{
	return (e * RIG_DTOA_LOG10_2 - RIG_DTOA_LOG10_4_3) >> 20;
}
static inline int32_t floor_log2_pow10(int32_t e)
{
	return (e * RIG_DTOA_LOG2_10) >> 19;
}

#define MASK63 ((1ull << 63) - 1)

/* ⌊g · cp / 2^127⌋ with its lowest bit set when the rest is not 0 (rounding to
 * odd keeps "exactly on a candidate" apart from "just past it"), for g = g[0] ·
 * 2^63 + g[1]. The paper's rop (section 9.8.3): it proves that the low 64 bits
 * of g[1] · cp may be dropped. */
static inline uint64_t round_to_odd(const uint64_t g[2], uint64_t cp)
{
	unsigned __int128 lo = (unsigned __int128)g[1] * cp;
	unsigned __int128 hi = (unsigned __int128)g[0] * cp;
	uint64_t mid = ((uint64_t)hi >> 1) + (uint64_t)(lo >> 64);
	uint64_t top = (uint64_t)(hi >> 64) + (mid >> 63);
	return top | (((mid & MASK63) + MASK63) >> 63);
}

/* The shortest digits of c · 2^q (c and q decoded from the IEEE fields) as an
 * integer, and *exp10 with c · 2^q ≈ digits · 10^*exp10. regular is false only
 * at a power of two above the smallest normal, where the interval below is half
 * as wide as above. Giulietti's figure 7: s is c · 2^q / 10^k rounded down, t =
 * s + 1; the candidates are their multiples of 10 first (one digit shorter),
 * then s and t themselves. */
static uint64_t shortest(uint64_t c, int32_t q, bool regular, int32_t *exp10)
{
	/* Interval ends in quarter units; an odd c reads back only from inside the
	 * interval (the ends round to its even neighbours), hence + odd. */
	uint64_t odd = c & 1;
	int32_t k = regular ? floor_log10_pow2(q) : floor_log10_three_quarters_pow2(q);
	int32_t h = q + floor_log2_pow10(-k) + 2; /* 2..5: cb << h < 2^60 */
	const uint64_t *g = rig_dtoa_g[k - RIG_DTOA_K_MIN];
	uint64_t cb = c << 2, cbl = cb - 2 + !regular, cbr = cb + 2;
	uint64_t vb = round_to_odd(g, cb << h);
	uint64_t vbl = round_to_odd(g, cbl << h);
	uint64_t vbr = round_to_odd(g, cbr << h);
	uint64_t s = vb >> 2, t = s + 1;
	*exp10 = k;
	/* Every test is computed and the answer selected with masks, not
	 * branches (&& and ?: became jumps): the three outcomes come about about
	 * as often as each other on real data, and a mispredicted branch cost
	 * more than the whole selection. Bounds inclusive, in quarter units. */
	uint64_t lower = vbl + odd, upper = vbr - odd;
	uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
	uint64_t sp_in = lower <= 4 * sp10, tp_in = 4 * tp10 <= upper;
	uint64_t s_out = lower > 4 * s, t_in = 4 * t <= upper;
	/* When both s and t read back, the closer: vb's two fraction bits are
	 * its distance from s, 2 a tie, which goes to the even one (bit 2). */
	uint64_t t_closer = (vb >> 1) & (vb | vb >> 2) & 1;
	uint64_t full = s + (s_out | (t_in & t_closer)); /* one always reads back */
	/* A multiple of 10 that reads back is one digit shorter; the interval is
	 * narrower than 10, so sp10 and tp10 never both do. s < 10 (only a
	 * subnormal) has no shorter form. */
	uint64_t shorter = tp10 - 10 * sp_in;
	uint64_t use_shorter = -((uint64_t)(s >= 10) & (sp_in ^ tp_in));
	return (shorter & use_shorter) | (full & ~use_shorter);
}

static const uint64_t pow10[18] = {1ull,
				   10ull,
				   100ull,
				   1000ull,
				   10000ull,
				   100000ull,
				   1000000ull,
				   10000000ull,
				   100000000ull,
				   1000000000ull,
				   10000000000ull,
				   100000000000ull,
				   1000000000000ull,
				   10000000000000ull,
				   100000000000000ull,
				   1000000000000000ull,
				   10000000000000000ull,
				   100000000000000000ull};

/* The number of decimal digits of 0 < d < 10^17: ⌊bits · log10 2⌋ (1233 / 4096)
 * is the count or one less. */
static inline int digit_count(uint64_t d)
{
	int t = ((64 - __builtin_clzll(d)) * 1233) >> 12;
	return t + (d >= pow10[t]);
}

/* Two groups of 4 digits (each < 10^4, the first in the low half of x) as the
 * values 0–9 in the 8 bytes of a word, the first digit in the lowest byte.
 * Each step splits every lane in two at once: 2 + 2 digits by the exact ⌊w /
 * 100⌋ = ⌊w · 10486 / 2^20⌋ (w < 10^4), then 1 + 1 by ⌊u / 10⌋ = ⌊u · 103 /
 * 2^10⌋ (u < 100). A lane's product never reaches the next lane, the masks drop
 * what the shift brings down from it, and (x << 16) - q · (100 · 2^16 - 1) puts
 * the quotient q below the remainder in one multiply. */
static inline uint64_t digits8(uint64_t x)
{
	uint64_t hundreds = ((x * 10486) >> 20) & 0x0000007f0000007full;
	x = (x << 16) - hundreds * ((100 << 16) - 1);
	uint64_t tens = ((x * 103) >> 10) & 0x000f000f000f000full;
	return (x << 8) - tens * ((10 << 8) - 1);
}

#define ASCII_ZEROS 0x3030303030303030ull

/* Stores the 8 bytes of w at p, its lowest byte first whatever the CPU. */
static inline void put8(char *p, uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	memcpy(p, &w, 8);
}

/* Writes "e", the sign when negative, then the 1 to 3 digits of exp
 * (|exp| ≤ 324) and a NUL, in one 8-byte store; returns the length. */
static inline int exponent(char *p, int exp)
{
	uint64_t neg = exp < 0;
	uint32_t a = (uint32_t)(neg ? -exp : exp);
	uint32_t hundreds = a / 100, tens = a / 10 % 10, ones = a % 10;
	uint64_t digits;
	int n;
	if (a >= 100) {
		digits = hundreds | tens << 8 | (uint64_t)ones << 16 | 0x303030;
		n = 3;
	} else if (a >= 10) {
		digits = tens | ones << 8 | 0x3030;
		n = 2;
	} else {
		digits = ones | 0x30;
		n = 1;
	}
	put8(p, 'e' | ('-' << 8 & -neg) | digits << (8 + 8 * neg));
	return 1 + (int)neg + n;
}

/* Lays d · 10^exp10 out as a JSON number at p: plain digits while the point
 * falls within 21 integer digits, 0.00ddd down to 5 zeros after the point,
 * d.ddde±x otherwise. d has exactly 17 digits, the last tz of them zeros: the
 * first in top, the next 16 as characters in a and b. Every case writes whole
 * words and at most 26 bytes from p; returns the length. */
static inline int layout(char *p, uint32_t top, uint64_t a, uint64_t b, int tz, int exp10)
{
	int len = 17 - tz;              /* significant digits */
	int point = 17 + exp10;         /* digits before the decimal point */
	if (point > 0 && point < len) { /* 1234e-2 → 12.34 */
		/* The whole 17 digits, then everything after the point again,
		 * one place to the right: shifted in a register, not in memory. */
		p[0] = (char)('0' + top);
		put8(p + 1, a);
		put8(p + 9, b);
		unsigned __int128 after = ((unsigned __int128)b << 64 | a) >> (8 * (point - 1));
		p[point] = '.';
		put8(p + point + 1, (uint64_t)after);
		if (point <= 8) /* else at most 8 digits follow the point */
			put8(p + point + 9, (uint64_t)(after >> 64));
		p[len + 1] = '\0';
		return len + 1;
	}
	if (point >= len && point <= 21) { /* 1234e5 → 123400000 */
		p[0] = (char)('0' + top);
		put8(p + 1, a);
		put8(p + 9, b);
		put8(p + 17, ASCII_ZEROS);
		p[point] = '\0';
		return point;
	}
	if (point <= 0 && point > -6) {                         /* 1234e-6 → 0.001234 */
		int lead = 2 - point;                           /* "0." and the zeros after it */
		put8(p, (ASCII_ZEROS & ~0xff00ull) | '.' << 8); /* "0.000000" */
		p[lead] = (char)('0' + top);
		put8(p + lead + 1, a);
		put8(p + lead + 9, b);
		p[lead + len] = '\0';
		return lead + len;
	}
	/* 1234e30 → 1.234e33 */
	p[0] = (char)('0' + top);
	p[1] = '.';
	put8(p + 2, a);
	put8(p + 10, b);
	int mantissa = len > 1 ? len + 1 : 1; /* "d" or "d.ddd" */
	return mantissa + exponent(p + mantissa, point - 1);
}

int rig_format_double(char *out, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	char *p = out;
	*p = '-';
	p += bits >> 63;
	uint64_t frac = bits & ((1ull << 52) - 1);
	int32_t biased = (int32_t)(bits >> 52 & 0x7ff);
	if (biased == 0 && frac == 0) { /* ±0: "0" or "-0" */
		p[0] = '0';
		p[1] = '\0';
		return (int)(p + 1 - out);
	}
	uint64_t c = biased ? frac | 1ull << 52 : frac;
	int32_t q = (biased ? biased : 1) - 1075;
	int32_t exp10;
	uint64_t d = shortest(c, q, frac != 0 || biased <= 1, &exp10);

	/* Scale to 17 digits. Normal doubles have 16 or 17 (without a branch:
	 * a third have 16); only subnormals have fewer. */
	if (d < 1000000000000000ull) {
		int scale = 16 - digit_count(d);
		d *= pow10[scale];
		exp10 -= scale;
	}
	uint64_t sixteen = d < 10000000000000000ull;
	d += 9 * d & -sixteen;
	exp10 -= (int32_t)sixteen;
	/* The first digit, then four groups of 4, each from its own division of
	 * d: independent multiplications, not a chain. */
	uint64_t q4 = d / 10000, q8 = d / 100000000, q12 = d / 1000000000000ull;
	uint32_t top = (uint32_t)(d / 10000000000000000ull);
	uint64_t a = digits8((q12 - 10000 * top) | (q8 - 10000 * q12) << 32);
	uint64_t b = digits8((q4 - 10000 * q8) | (d - 10000 * q4) << 32);
	/* Trailing zero digits: zero bytes at the top of b, then of a. */
	int tz = b ? __builtin_clzll(b) >> 3 : 8 + (a ? __builtin_clzll(a) >> 3 : 8);
	return (int)(p - out) + layout(p, top, a | ASCII_ZEROS, b | ASCII_ZEROS, tz, exp10);
}

static const char two_digits[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Any integer (up to 20 digits, OBJ face indices), two digits at a time. */
int rig_format_u64(char *out, uint64_t v)
{
	char tmp[20];
	int n = 20;
	for (; v >= 100; v /= 100) {
		n -= 2;
		memcpy(&tmp[n], &two_digits[2 * (v % 100)], 2);
	}
	if (v >= 10) {
		n -= 2;
		memcpy(&tmp[n], &two_digits[2 * v], 2);
	} else {
		tmp[--n] = (char)('0' + v);
	}
	memcpy(out, &tmp[n], (size_t)(20 - n));
	out[20 - n] = '\0';
	return 20 - n;
}
