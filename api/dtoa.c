/* Shortest-form decimal printing of doubles for JSON responses: Grisu2
 * (F. Loitsch, "Printing Floating-Point Numbers Quickly and Accurately with
 * Integers", PLDI 2010). The digits always read back as the same double; they
 * are the shortest possible for all but a small fraction of values, where one
 * more digit than needed may appear. No allocation, no locale, no printf.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "textbuf.h"

/* A floating point number f · 2^e with a 64-bit significand. */
struct diyfp {
	uint64_t f;
	int e;
};

static struct diyfp from_double(double d)
{
	uint64_t bits;
	memcpy(&bits, &d, sizeof bits);
	uint64_t frac = bits & 0xfffffffffffffull;
	int biased = (int)((bits >> 52) & 0x7ff);
	if (biased)
		return (struct diyfp){frac | (1ull << 52), biased - 1075};
	return (struct diyfp){frac, -1074}; /* subnormal */
}

static struct diyfp normalize(struct diyfp x)
{
	int shift = __builtin_clzll(x.f);
	return (struct diyfp){x.f << shift, x.e - shift};
}

/* The product's upper 64 bits, rounded. */
static struct diyfp multiply(struct diyfp a, struct diyfp b)
{
	unsigned __int128 p = (unsigned __int128)a.f * b.f;
	uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
	return (struct diyfp){hi + (lo >> 63), a.e + b.e + 64};
}

/* 10^k for k = -348, -340, …, 340, normalised (generated with exact arithmetic). */
static const struct diyfp cached_powers[] = {
	{0xfa8fd5a0081c0288ull, -1220}, /* 1e-348 */
	{0xbaaee17fa23ebf76ull, -1193}, /* 1e-340 */
	{0x8b16fb203055ac76ull, -1166}, /* 1e-332 */
	{0xcf42894a5dce35eaull, -1140}, /* 1e-324 */
	{0x9a6bb0aa55653b2dull, -1113}, /* 1e-316 */
	{0xe61acf033d1a45dfull, -1087}, /* 1e-308 */
	{0xab70fe17c79ac6caull, -1060}, /* 1e-300 */
	{0xff77b1fcbebcdc4full, -1034}, /* 1e-292 */
	{0xbe5691ef416bd60cull, -1007}, /* 1e-284 */
	{0x8dd01fad907ffc3cull, -980}, /* 1e-276 */
	{0xd3515c2831559a83ull, -954}, /* 1e-268 */
	{0x9d71ac8fada6c9b5ull, -927}, /* 1e-260 */
	{0xea9c227723ee8bcbull, -901}, /* 1e-252 */
	{0xaecc49914078536dull, -874}, /* 1e-244 */
	{0x823c12795db6ce57ull, -847}, /* 1e-236 */
	{0xc21094364dfb5637ull, -821}, /* 1e-228 */
	{0x9096ea6f3848984full, -794}, /* 1e-220 */
	{0xd77485cb25823ac7ull, -768}, /* 1e-212 */
	{0xa086cfcd97bf97f4ull, -741}, /* 1e-204 */
	{0xef340a98172aace5ull, -715}, /* 1e-196 */
	{0xb23867fb2a35b28eull, -688}, /* 1e-188 */
	{0x84c8d4dfd2c63f3bull, -661}, /* 1e-180 */
	{0xc5dd44271ad3cdbaull, -635}, /* 1e-172 */
	{0x936b9fcebb25c996ull, -608}, /* 1e-164 */
	{0xdbac6c247d62a584ull, -582}, /* 1e-156 */
	{0xa3ab66580d5fdaf6ull, -555}, /* 1e-148 */
	{0xf3e2f893dec3f126ull, -529}, /* 1e-140 */
	{0xb5b5ada8aaff80b8ull, -502}, /* 1e-132 */
	{0x87625f056c7c4a8bull, -475}, /* 1e-124 */
	{0xc9bcff6034c13053ull, -449}, /* 1e-116 */
	{0x964e858c91ba2655ull, -422}, /* 1e-108 */
	{0xdff9772470297ebdull, -396}, /* 1e-100 */
	{0xa6dfbd9fb8e5b88full, -369}, /* 1e-92 */
	{0xf8a95fcf88747d94ull, -343}, /* 1e-84 */
	{0xb94470938fa89bcfull, -316}, /* 1e-76 */
	{0x8a08f0f8bf0f156bull, -289}, /* 1e-68 */
	{0xcdb02555653131b6ull, -263}, /* 1e-60 */
	{0x993fe2c6d07b7facull, -236}, /* 1e-52 */
	{0xe45c10c42a2b3b06ull, -210}, /* 1e-44 */
	{0xaa242499697392d3ull, -183}, /* 1e-36 */
	{0xfd87b5f28300ca0eull, -157}, /* 1e-28 */
	{0xbce5086492111aebull, -130}, /* 1e-20 */
	{0x8cbccc096f5088ccull, -103}, /* 1e-12 */
	{0xd1b71758e219652cull, -77}, /* 1e-4 */
	{0x9c40000000000000ull, -50}, /* 1e4 */
	{0xe8d4a51000000000ull, -24}, /* 1e12 */
	{0xad78ebc5ac620000ull, 3}, /* 1e20 */
	{0x813f3978f8940984ull, 30}, /* 1e28 */
	{0xc097ce7bc90715b3ull, 56}, /* 1e36 */
	{0x8f7e32ce7bea5c70ull, 83}, /* 1e44 */
	{0xd5d238a4abe98068ull, 109}, /* 1e52 */
	{0x9f4f2726179a2245ull, 136}, /* 1e60 */
	{0xed63a231d4c4fb27ull, 162}, /* 1e68 */
	{0xb0de65388cc8ada8ull, 189}, /* 1e76 */
	{0x83c7088e1aab65dbull, 216}, /* 1e84 */
	{0xc45d1df942711d9aull, 242}, /* 1e92 */
	{0x924d692ca61be758ull, 269}, /* 1e100 */
	{0xda01ee641a708deaull, 295}, /* 1e108 */
	{0xa26da3999aef774aull, 322}, /* 1e116 */
	{0xf209787bb47d6b85ull, 348}, /* 1e124 */
	{0xb454e4a179dd1877ull, 375}, /* 1e132 */
	{0x865b86925b9bc5c2ull, 402}, /* 1e140 */
	{0xc83553c5c8965d3dull, 428}, /* 1e148 */
	{0x952ab45cfa97a0b3ull, 455}, /* 1e156 */
	{0xde469fbd99a05fe3ull, 481}, /* 1e164 */
	{0xa59bc234db398c25ull, 508}, /* 1e172 */
	{0xf6c69a72a3989f5cull, 534}, /* 1e180 */
	{0xb7dcbf5354e9beceull, 561}, /* 1e188 */
	{0x88fcf317f22241e2ull, 588}, /* 1e196 */
	{0xcc20ce9bd35c78a5ull, 614}, /* 1e204 */
	{0x98165af37b2153dfull, 641}, /* 1e212 */
	{0xe2a0b5dc971f303aull, 667}, /* 1e220 */
	{0xa8d9d1535ce3b396ull, 694}, /* 1e228 */
	{0xfb9b7cd9a4a7443cull, 720}, /* 1e236 */
	{0xbb764c4ca7a44410ull, 747}, /* 1e244 */
	{0x8bab8eefb6409c1aull, 774}, /* 1e252 */
	{0xd01fef10a657842cull, 800}, /* 1e260 */
	{0x9b10a4e5e9913129ull, 827}, /* 1e268 */
	{0xe7109bfba19c0c9dull, 853}, /* 1e276 */
	{0xac2820d9623bf429ull, 880}, /* 1e284 */
	{0x80444b5e7aa7cf85ull, 907}, /* 1e292 */
	{0xbf21e44003acdd2dull, 933}, /* 1e300 */
	{0x8e679c2f5e44ff8full, 960}, /* 1e308 */
	{0xd433179d9c8cb841ull, 986}, /* 1e316 */
	{0x9e19db92b4e31ba9ull, 1013}, /* 1e324 */
	{0xeb96bf6ebadf77d9ull, 1039}, /* 1e332 */
	{0xaf87023b9bf0ee6bull, 1066}, /* 1e340 */
};

/* The cached power c = 10^-k whose product with a number of exponent e has
 * its binary exponent in [-60, -32]. */
static struct diyfp cached_power(int e, int *k)
{
	double dk = (-61 - e) * 0.30102999566398114 + 347; /* log10(2) */
	int ik = (int)dk;
	if (dk - ik > 0)
		ik++;
	unsigned index = (unsigned)((ik >> 3) + 1);
	*k = -(-348 + (int)index * 8);
	return cached_powers[index];
}

static const uint32_t pow10_u32[] = {1,      10,      100,      1000,      10000,
				     100000, 1000000, 10000000, 100000000, 1000000000};

static const uint64_t pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};

/* Moves the last digit down while that keeps the value inside the rounding
 * interval and brings it closer to the exact value. */
static void round_weed(char *buf, int len, uint64_t delta, uint64_t rest, uint64_t ten_kappa,
		       uint64_t wp_w)
{
	while (rest < wp_w && delta - rest >= ten_kappa &&
	       (rest + ten_kappa < wp_w || wp_w - rest > rest + ten_kappa - wp_w)) {
		buf[len - 1]--;
		rest += ten_kappa;
	}
}

/* The leading digit of p1 (below 10^kappa), leaving the rest in *p1. A switch
 * of constant divisors: the compiler turns each into a multiplication, where a
 * table divisor costs a hardware division per digit. */
static uint32_t take_digit(uint32_t *p1, int kappa)
{
	uint32_t d;
	switch (kappa) {
#define DIGIT(k, p10)            \
	case k:                  \
		d = *p1 / (p10); \
		*p1 %= (p10);    \
		return d;
	DIGIT(10, 1000000000u)
	DIGIT(9, 100000000u)
	DIGIT(8, 10000000u)
	DIGIT(7, 1000000u)
	DIGIT(6, 100000u)
	DIGIT(5, 10000u)
	DIGIT(4, 1000u)
	DIGIT(3, 100u)
	DIGIT(2, 10u)
#undef DIGIT
	default:
		d = *p1;
		*p1 = 0;
		return d;
	}
}

/* Generates the digits of Mp (the upper boundary, scaled) within delta. */
static int digit_gen(char *buf, struct diyfp w, struct diyfp mp, uint64_t delta, int *k)
{
	struct diyfp one = {1ull << -mp.e, mp.e};
	uint64_t wp_w = mp.f - w.f;
	uint32_t p1 = (uint32_t)(mp.f >> -one.e);
	uint64_t p2 = mp.f & (one.f - 1);
	int kappa = 10;
	while (kappa > 0 && p1 < pow10_u32[kappa - 1])
		kappa--;
	int len = 0;
	while (kappa > 0) {
		uint32_t d = take_digit(&p1, kappa);
		if (d || len)
			buf[len++] = (char)('0' + d);
		kappa--;
		uint64_t rest = ((uint64_t)p1 << -one.e) + p2;
		if (rest <= delta) {
			*k += kappa;
			round_weed(buf, len, delta, rest, (uint64_t)pow10_u32[kappa] << -one.e, wp_w);
			return len;
		}
	}
	for (;;) {
		p2 *= 10;
		delta *= 10;
		char d = (char)(p2 >> -one.e);
		if (d || len)
			buf[len++] = (char)('0' + d);
		p2 &= one.f - 1;
		kappa--;
		if (p2 < delta) {
			*k += kappa;
			uint64_t scale = -kappa < 20 ? pow10_u64[-kappa] : 0;
			round_weed(buf, len, delta, p2, one.f, wp_w * scale);
			return len;
		}
	}
}

/* The digits of v > 0 and its decimal exponent: v ≈ digits · 10^k. */
static int grisu2(char *buf, double v, int *k)
{
	struct diyfp x = from_double(v);
	/* The boundaries halfway to the neighbouring doubles. */
	struct diyfp plus = normalize((struct diyfp){(x.f << 1) + 1, x.e - 1});
	struct diyfp minus = x.f == (1ull << 52) ? (struct diyfp){(x.f << 2) - 1, x.e - 2}
						  : (struct diyfp){(x.f << 1) - 1, x.e - 1};
	minus.f <<= minus.e - plus.e;
	minus.e = plus.e;
	struct diyfp c = cached_power(plus.e, k);
	struct diyfp w = multiply(normalize(x), c);
	struct diyfp wp = multiply(plus, c), wm = multiply(minus, c);
	wm.f++;
	wp.f--;
	return digit_gen(buf, w, wp, wp.f - wm.f, k);
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

int rig_format_double(char *out, double v)
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
	char digits[24];
	int k = 0;
	int len = grisu2(digits, v, &k);
	return (int)(p - out) + layout(p, digits, len, k);
}
