/* The double printer rigd shipped before Schubfach (api/util/dtoa.c), kept
 * unchanged as the oracle the unit test and bench_dtoa compare against: Ryu
 * (Ulf Adams, "Ryū: fast float-to-string conversion", PLDI 2018), the
 * shortest digits that read back and of those the closest, laid out as a JSON
 * number. Test and benchmark code only; nothing in rigd links it. Its Ryu
 * multipliers are the RIG_DTOA_RYU_TABLES part of api/util/dtoa_tables.h.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define RIG_DTOA_RYU_TABLES
#include "api/util/dtoa_tables.h"
#include "dtoa_reference.h"

/* ⌊log10(2^e)⌋ and ⌊log10(5^e)⌋ for the exponents doubles need, and the
 * bit length of 5^e (1 for e = 0). */
static inline uint32_t log10_pow2(int32_t e)
{
	return ((uint32_t)e * 78913) >> 18;
}
static inline uint32_t log10_pow5(int32_t e)
{
	return ((uint32_t)e * 732923) >> 20;
}
static inline int32_t pow5_bits(int32_t e)
{
	return (int32_t)(((uint32_t)e * 1217359) >> 19) + 1;
}

static inline uint32_t pow5_factor(uint64_t v)
{
	uint32_t n = 0;
	while (v % 5 == 0) {
		v /= 5;
		n++;
	}
	return n;
}

static inline bool multiple_of_pow5(uint64_t v, uint32_t p)
{
	return pow5_factor(v) >= p;
}
static inline bool multiple_of_pow2(uint64_t v, uint32_t p)
{
	return (v & ((1ull << p) - 1)) == 0;
}

/* (m · mul) >> j for the 128-bit multiplier mul = {low, high}, j ≥ 64. */
static inline uint64_t mul_shift(uint64_t m, const uint64_t mul[2], int32_t j)
{
	unsigned __int128 b0 = (unsigned __int128)m * mul[0];
	unsigned __int128 b2 = (unsigned __int128)m * mul[1];
	return (uint64_t)(((b0 >> 64) + b2) >> (j - 64));
}

/* Drops the last digit of vr, vp and vm, keeping vr's in *last and noting
 * whether every digit dropped before it was 0. */
static inline void drop_digit(uint64_t *vr, uint64_t *vp, uint64_t *vm, uint32_t *last,
			      bool *vr_zeros)
{
	*vr_zeros &= *last == 0;
	*last = (uint32_t)(*vr % 10);
	*vr /= 10;
	*vp /= 10;
	*vm /= 10;
}

/* The shortest digits of the double with significand m2 · 2^e2 (the IEEE
 * fields already decoded) as an integer, and its decimal exponent. */
static uint64_t shortest(uint64_t m2, int32_t e2, bool mm_shift, int32_t *exp10)
{
	bool even = (m2 & 1) == 0;
	uint64_t mv = 4 * m2;
	uint64_t vr, vp, vm;
	int32_t e10;
	bool vm_zeros = false, vr_zeros = false; /* the removed digits were all 0 */
	if (e2 >= 0) {
		uint32_t q = log10_pow2(e2) - (e2 > 3);
		e10 = (int32_t)q;
		int32_t i = -e2 + (int32_t)q + RIG_POW5_INV_BITCOUNT + pow5_bits((int32_t)q) - 1;
		vr = mul_shift(mv, rig_pow5_inv_split[q], i);
		vp = mul_shift(mv + 2, rig_pow5_inv_split[q], i);
		vm = mul_shift(mv - 1 - mm_shift, rig_pow5_inv_split[q], i);
		if (q <= 21) {
			if (mv % 5 == 0)
				vr_zeros = multiple_of_pow5(mv, q);
			else if (even)
				vm_zeros = multiple_of_pow5(mv - 1 - mm_shift, q);
			else
				vp -= multiple_of_pow5(mv + 2, q);
		}
	} else {
		uint32_t q = log10_pow5(-e2) - (-e2 > 1);
		e10 = (int32_t)q + e2;
		int32_t i = -e2 - (int32_t)q;
		int32_t j = (int32_t)q - (pow5_bits(i) - RIG_POW5_BITCOUNT);
		vr = mul_shift(mv, rig_pow5_split[i], j);
		vp = mul_shift(mv + 2, rig_pow5_split[i], j);
		vm = mul_shift(mv - 1 - mm_shift, rig_pow5_split[i], j);
		if (q <= 1) {
			vr_zeros = true;
			if (even)
				vm_zeros = mm_shift;
			else
				vp--;
		} else if (q < 63) {
			vr_zeros = multiple_of_pow2(mv, q);
		}
	}
	int32_t removed = 0;
	uint64_t out;
	if (vm_zeros || vr_zeros) {
		/* Rare: ties and exact boundaries need every removed digit. */
		uint32_t last = 0;
		while (vp / 10 > vm / 10) {
			vm_zeros &= vm % 10 == 0;
			drop_digit(&vr, &vp, &vm, &last, &vr_zeros);
			removed++;
		}
		while (vm_zeros && vm % 10 == 0) {
			drop_digit(&vr, &vp, &vm, &last, &vr_zeros);
			removed++;
		}
		if (vr_zeros && last == 5 && vr % 2 == 0)
			last = 4; /* an exact tie rounds to even */
		out = vr + ((vr == vm && (!even || !vm_zeros)) || last >= 5);
	} else {
		bool round_up = false;
		if (vp / 100 > vm / 100) {
			round_up = vr % 100 >= 50;
			vr /= 100;
			vp /= 100;
			vm /= 100;
			removed += 2;
		}
		while (vp / 10 > vm / 10) {
			round_up = vr % 10 >= 5;
			vr /= 10;
			vp /= 10;
			vm /= 10;
			removed++;
		}
		out = vr + (vr == vm || round_up);
	}
	*exp10 = e10 + removed;
	return out;
}

static const char two_digits[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Writes the 8 digits of v < 10^8, zero-padded, two at a time. */
static void eight_digits(char *out, uint32_t v)
{
	for (int i = 6; i >= 0; i -= 2) {
		memcpy(&out[i], &two_digits[2 * (v % 100)], 2);
		v /= 100;
	}
}

/* The decimal digits of d > 0 (at most 17 here) into buf; returns how many.
 * Split into 8-digit pieces so the divisions are 32-bit and two digits at a
 * time: a digit-by-digit 64-bit loop was the formatter's slowest part. */
static int decimal(char *buf, uint64_t d)
{
	char tmp[32]; /* 16 digits, then slack for the fixed-size copy below */
	uint32_t top = (uint32_t)(d / 10000000000000000ull); /* digits above 16 */
	uint64_t rest = d % 10000000000000000ull;
	eight_digits(&tmp[0], (uint32_t)(rest / 100000000));
	eight_digits(&tmp[8], (uint32_t)(rest % 100000000));
	int start = 0;
	while (start < 15 && tmp[start] == '0')
		start++;
	int len = 0;
	if (top) {
		buf[len++] = (char)('0' + top); /* shortest forms have ≤ 17 digits: top < 10 */
		start = 0;
	}
	/* A fixed 16-byte copy compiles to two moves; a variable one is a call.
	 * Bytes past the digits are slack in buf (≥ 17 + 16 bytes). */
	memcpy(&buf[len], &tmp[start], 16);
	return len + 16 - start;
}

/* The digits of v > 0 and its decimal exponent: v ≈ digits · 10^k. */
static int digits_of(char *buf, double v, int *k)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	uint64_t frac = bits & ((1ull << 52) - 1);
	uint32_t biased = (uint32_t)((bits >> 52) & 0x7ff);
	uint64_t m2 = biased ? frac | (1ull << 52) : frac;
	int32_t e2 = (biased ? (int32_t)biased : 1) - 1075 - 2;
	int32_t e10;
	uint64_t d = shortest(m2, e2, frac != 0 || biased <= 1, &e10);
	*k = e10;
	return decimal(buf, d);
}

/* Lays digits · 10^k out as a JSON number. */
static int layout(char *out, const char *digits, int len, int k)
{
	int point = len + k; /* position of the decimal point */
	char *p = out;
	if (k >= 0 && point <= 21) { /* 1234e5 → 123400000 */
		memcpy(p, digits, (size_t)len);
		p += len;
		memset(p, '0', (size_t)k);
		p += k;
	} else if (point > 0 && point <= 21) { /* 1234e-2 → 12.34 */
		memcpy(p, digits, (size_t)point);
		p += point;
		*p++ = '.';
		memcpy(p, digits + point, (size_t)(len - point));
		p += len - point;
	} else if (point > -6 && point <= 0) { /* 1234e-6 → 0.001234 */
		*p++ = '0';
		*p++ = '.';
		memset(p, '0', (size_t)-point);
		p += -point;
		memcpy(p, digits, (size_t)len);
		p += len;
	} else { /* 1234e30 → 1.234e33 */
		*p++ = digits[0];
		if (len > 1) {
			*p++ = '.';
			memcpy(p, digits + 1, (size_t)(len - 1));
			p += len - 1;
		}
		int exp = point - 1;
		*p++ = 'e';
		if (exp < 0) {
			*p++ = '-';
			exp = -exp;
		}
		if (exp >= 100)
			*p++ = (char)('0' + exp / 100);
		if (exp >= 10)
			*p++ = (char)('0' + exp / 10 % 10);
		*p++ = (char)('0' + exp % 10);
	}
	*p = '\0';
	return (int)(p - out);
}

int rig_test_ryu_format_double(char *out, double v)
{
	char *p = out;
	if (signbit(v)) {
		*p++ = '-';
		v = -v;
	}
	if (v == 0) {
		*p++ = '0';
		*p = '\0';
		return (int)(p - out);
	}
	char digits[40]; /* 17 digits and the slack decimal() writes */
	int k = 0;
	int len = digits_of(digits, v, &k);
	return (int)(p - out) + layout(p, digits, len, k);
}
