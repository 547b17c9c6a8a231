/* SPDX-License-Identifier: MIT */
/* The PS2 float model (decoders/ps2fpu.c, docs/ps2-float.md).
 *
 * Three kinds of check:
 *  1. Rules, each with hand-derived bit patterns (the derivation is in the
 *     comment next to each expectation).
 *  2. Rows recorded on a real console (ps2autotests' ee_fpu *.expected files
 *     and PCSX2 issue 14794), bit-exact. The multiplier's Booth rows, the one
 *     known hardware behaviour the model leaves out, are listed separately
 *     with the value the model gives.
 *  3. Differential runs over millions of random and edge operands against a
 *     reference written here from the definitions, not from ps2fpu.c: exact
 *     integer/rational arithmetic on the significands (unsigned __int128)
 *     for add, sub, mul, madd, the conversions and the bounds every FDIV
 *     result must meet; a gate-level model of the FDIV unit (bit-serial full
 *     adders, a 3-bit digit estimate) for the exact DIV.S/SQRT.S/RSQRT.S
 *     bits; sign-magnitude integer order for MAX.S/MIN.S.
 * Everything uses a fixed-seed splitmix64, so every run sees the same
 * operands. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gc_ps2fpu.h"
#include "ps2fpu_core.h" /* gc_ps2i_gs_colour */
#include "ps2fpu_sse2.h" /* gc_ps2v_add */

typedef unsigned __int128 u128;

#define SIGNBIT 0x80000000u

/* ---- fixed-seed PRNG --------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(rng_next(s) % n);
}

/* ---- operands ------------------------------------------------------------------ */

static const uint32_t edge_patterns[] = {
    0x00000000, 0x80000000, 0x00000001, 0x007fffff, 0x80400000, 0x00001337, /* zeros */
    0x00800000, 0x80800000, 0x00ffffff, 0x00800001,                         /* exponent 1 */
    0x3f800000, 0xbf800000, 0x3f800001, 0x3f7fffff, 0x3fffffff, 0x40400000, /* near 1 */
    0x33800000, 0x33ffffff, 0x33000000, 0x4b000000, 0x4b7fffff,             /* 2^-24, 2^23 */
    0x7f000000, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff, /* top */
    0xff800000, 0xffffffff, 0xfeffffff, 0xdeadbeef,
};
#define N_EDGE (sizeof edge_patterns / sizeof edge_patterns[0])

static const unsigned edge_exponents[] = {0, 1, 2, 3, 100, 126, 127, 128, 129, 253, 254, 255};
static const uint32_t edge_fractions[] = {0, 1, 2, 0x400000, 0x7ffffe, 0x7fffff, 0x555555};

static uint32_t make(unsigned sign, unsigned exponent, uint32_t fraction)
{
    return (uint32_t)(sign & 1u) << 31 | (uint32_t)(exponent & 0xffu) << 23 |
           (fraction & 0x7fffffu);
}

/* Any operand: random patterns, the edge list, edge exponents, extreme
 * fractions, and the exponent range lighting values live in. */
static uint32_t gen_any(uint64_t *s)
{
    switch (rng_below(s, 8)) {
    case 0:
    case 1:
    case 2:
        return (uint32_t)rng_next(s);
    case 3:
        return edge_patterns[rng_below(s, N_EDGE)];
    case 4:
        return make(rng_below(s, 2), edge_exponents[rng_below(s, 12)], (uint32_t)rng_next(s));
    case 5:
        return make(rng_below(s, 2), rng_below(s, 256), edge_fractions[rng_below(s, 7)]);
    default:
        return make(rng_below(s, 2), 100 + rng_below(s, 40), (uint32_t)rng_next(s));
    }
}

/* A second operand whose exponent is a chosen distance from a's (0, 1, 2,
 * 22..27 or anything), with a random or extreme fraction. */
static uint32_t gen_partner(uint64_t *s, uint32_t a)
{
    static const int gaps[] = {0, 0, 1, 1, 2, 3, 22, 23, 24, 25, 26, 27};
    if (rng_below(s, 4) == 0)
        return gen_any(s);
    int gap = rng_below(s, 5) == 0 ? (int)rng_below(s, 60) : gaps[rng_below(s, 12)];
    int ea = (int)((a >> 23) & 0xffu);
    int eb = rng_below(s, 2) ? ea - gap : ea + gap;
    if (eb < 0)
        eb = 0;
    if (eb > 255)
        eb = 255;
    uint32_t frac = rng_below(s, 3) ? (uint32_t)rng_next(s) : edge_fractions[rng_below(s, 7)];
    return make(rng_below(s, 2), (unsigned)eb, frac);
}

/* ---- the reference: exact values -------------------------------------------- */

/* A pattern's value: (-1)^neg * m * 2^e; m = 0 when the exponent field is 0. */
typedef struct {
    int neg;
    uint64_t m;
    int e;
} ref_val;

static ref_val ref_value(uint32_t p)
{
    ref_val v = {(int)(p >> 31), 0, 0};
    unsigned ex = (p >> 23) & 0xffu;
    if (ex != 0) {
        v.m = (p & 0x7fffffu) | 0x800000u;
        v.e = (int)ex - 150;
    }
    return v;
}

static int bitlen128(u128 x)
{
    int n = 0;
    while (x) {
        x >>= 1;
        n++;
    }
    return n;
}

/* The pattern of (-1)^neg * num/den * 2^e (num, den > 0): the value truncated
 * toward zero to 24 significant bits; +-0x7fffffff when the exponent would
 * pass 255, +-0 when it would fall below 1. */
static uint32_t ref_pattern(int neg, u128 num, u128 den, int e)
{
    uint32_t sign = neg ? SIGNBIT : 0;
    int k = 23 - (bitlen128(num) - bitlen128(den));
    u128 q;
    for (;;) { /* find k with 2^23 <= floor(num * 2^k / den) < 2^24 */
        q = k >= 0 ? (num << k) / den : num / (den << -k);
        if (q >= ((u128)1 << 24))
            k--;
        else if (q < ((u128)1 << 23))
            k++;
        else
            break;
    }
    int biased = e - k + 150; /* value = q * 2^(e-k), q's top bit is 2^23 */
    if (biased > 255)
        return sign | 0x7fffffffu;
    if (biased < 1)
        return sign;
    return sign | (uint32_t)biased << 23 | ((uint32_t)q & 0x7fffffu);
}

/* ADD.S from its definition: an exponent-0 operand is zero (the other comes
 * back as it is; two zeros give -0 only when both are negative). Otherwise
 * let Q be half the weight of the larger operand's last bit; the smaller is
 * replaced by the multiple of Q nearer zero (it keeps one bit below the
 * larger's last bit), the two are added exactly and the sum is truncated. A
 * gap of 25 or more returns the larger operand. x - x is +0. */
static uint32_t ref_add(uint32_t a, uint32_t b)
{
    ref_val va = ref_value(a), vb = ref_value(b);
    if (va.m == 0 && vb.m == 0)
        return (va.neg && vb.neg) ? SIGNBIT : 0;
    if (va.m == 0)
        return b;
    if (vb.m == 0)
        return a;
    int a_larger = va.e > vb.e || (va.e == vb.e && va.m >= vb.m);
    ref_val big = a_larger ? va : vb, small = a_larger ? vb : va;
    if (big.e - small.e >= 25)
        return a_larger ? a : b;
    int q_exp = big.e - 1; /* Q = 2^q_exp */
    int64_t big_q = (int64_t)(big.m << 1);
    int shift = q_exp - small.e; /* >= -1 */
    int64_t small_q = shift < 0 ? (int64_t)(small.m << 1) : (int64_t)(small.m >> shift);
    int64_t sum = (big.neg ? -big_q : big_q) + (small.neg ? -small_q : small_q);
    if (sum == 0)
        return 0;
    return ref_pattern(sum < 0, (u128)(sum < 0 ? -sum : sum), 1, q_exp);
}

/* MUL.S: the exact product, truncated; a zero operand gives a zero signed by
 * the XOR of the signs. */
static uint32_t ref_mul(uint32_t a, uint32_t b)
{
    ref_val va = ref_value(a), vb = ref_value(b);
    int neg = va.neg ^ vb.neg;
    if (va.m == 0 || vb.m == 0)
        return neg ? SIGNBIT : 0;
    return ref_pattern(neg, (u128)va.m * vb.m, 1, va.e + vb.e);
}

/* Whether the exact product is at least 2^129 (exponent past 255). */
static int ref_mul_overflows(uint32_t a, uint32_t b)
{
    ref_val va = ref_value(a), vb = ref_value(b);
    if (va.m == 0 || vb.m == 0)
        return 0;
    return bitlen128((u128)va.m * vb.m) - 1 + va.e + vb.e >= 129;
}

/* MADD.S: the truncated product added by ADD.S, except that an overflowed
 * product gives +-MAX with the product's sign. */
static uint32_t ref_madd(uint32_t acc, uint32_t a, uint32_t b)
{
    if (ref_mul_overflows(a, b))
        return ((a ^ b) & SIGNBIT) | 0x7fffffffu;
    return ref_add(acc, ref_mul(a, b));
}

static uint32_t ref_msub(uint32_t acc, uint32_t a, uint32_t b)
{
    if (ref_mul_overflows(a, b))
        return ((a ^ b ^ SIGNBIT) & SIGNBIT) | 0x7fffffffu;
    return ref_add(acc, ref_mul(a, b) ^ SIGNBIT);
}

/* DIV.S truncated toward zero: the lower of the two values an FDIV result
 * may take. */
static uint32_t ref_div_trunc(uint32_t a, uint32_t b)
{
    ref_val va = ref_value(a), vb = ref_value(b);
    uint32_t sign = (uint32_t)(va.neg ^ vb.neg) << 31;
    if (vb.m == 0)
        return sign | 0x7fffffffu;
    if (va.m == 0)
        return sign;
    return ref_pattern(va.neg ^ vb.neg, va.m, vb.m, va.e - vb.e);
}

/* Whether a / b is exact in 24 bits (then the FDIV result must be it), given
 * t = ref_div_trunc(a, b). */
static int ref_div_exact(uint32_t a, uint32_t b, uint32_t t)
{
    ref_val va = ref_value(a), vb = ref_value(b);
    if (va.m == 0 || vb.m == 0)
        return 1;
    /* exact iff the truncated quotient times b gives a back */
    ref_val vt = ref_value(t);
    if (vt.m == 0)
        return 0; /* underflowed: not exact (and the bound check wants t itself) */
    /* vt.m * 2^vt.e * mb * 2^vb.e == ma * 2^va.e ? (A clamped +-MAX fails
     * this test, and the bound check wants t itself there too.) */
    u128 lhs = (u128)vt.m * vb.m;
    int le = vt.e + vb.e, re = va.e;
    if (le - re > 60 || re - le > 60)
        return 0;
    u128 rhs = va.m;
    if (le > re)
        lhs <<= (le - re);
    else
        rhs <<= (re - le);
    return lhs == rhs;
}

static uint64_t isqrt128(u128 n) /* n < 2^64 here, so the root is below 2^32 */
{
    uint64_t r = 0;
    for (int bit = 31; bit >= 0; bit--) {
        uint64_t t = r | (uint64_t)1 << bit;
        if ((u128)t * t <= n)
            r = t;
    }
    return r;
}

/* SQRT.S truncated toward zero: sqrt(|a|), a zero gives +0. Also reports
 * whether the root is exact in 24 bits. */
static uint32_t ref_sqrt_trunc(uint32_t a, int *exact)
{
    ref_val v = ref_value(a);
    *exact = 1;
    if (v.m == 0)
        return 0;
    u128 m = v.m;
    int e = v.e;
    if (e & 1) { /* make the power of two even */
        m <<= 1;
        e -= 1;
    }
    u128 scaled = m << 24;         /* sqrt(m * 2^e) = sqrt(m * 2^24) * 2^(e/2 - 12) */
    uint64_t r = isqrt128(scaled); /* 24 or 25 bits */
    /* exact iff the integer root is exact and the bit the 24-bit pattern
     * drops from a 25-bit root is 0 */
    *exact = (u128)r * r == scaled && (bitlen128(r) == 24 || (r & 1u) == 0);
    return ref_pattern(0, r, 1, e / 2 - 12);
}

/* An FDIV result is the truncated value or the next pattern up within the
 * same binade (the 25-digit quotient never carries into the next power of
 * two); at the clamps (zero, +-MAX) it is the truncated value. */
static int fdiv_in_bounds(uint32_t got, uint32_t trunc, int exact)
{
    if (got == trunc)
        return 1;
    unsigned ex = (trunc >> 23) & 0xffu;
    if (exact || ex == 0 || (trunc & 0x7fffffffu) == 0x7fffffffu)
        return 0;
    return (trunc & 0x7fffffu) != 0x7fffffu && got == trunc + 1;
}

/* ---- a gate-level model of the FDIV unit -------------------------------------
 * Written from docs/ps2-float.md ("DIV.S, SQRT.S, RSQRT.S"), not from
 * ps2fpu.c. The partial remainder lives in two 32-bit registers, sum and
 * carry, with 1.0 at bit 25. A step with digit d subtracts d * T from the
 * remainder through a row of 32 full adders (T is the divisor, or for the
 * root the root so far plus d times half the new digit's weight): for d = +1
 * the row adds the complement of T and a carry-in at bit 0, for d = -1 it
 * adds T, for d = 0 it adds nothing. The next digit comes from an estimate
 * of the new remainder: a 3-bit ripple adder over bits 24..26 of the two
 * registers, read as a two's-complement number h in -4..3, and the OR of
 * their bits 23: +1 if h >= 1 or (h == 0 and that OR is 1), -1 if h <= -2,
 * else 0 (for d = 0 the estimate reads the registers before the row). Then
 * both registers shift up one place. The first digit is always +1; 25 digits
 * are taken and used without correction. */

static unsigned bit_at(uint32_t w, int i)
{
    return (w >> i) & 1u;
}

static void full_adder(unsigned x, unsigned y, unsigned z, unsigned *sum, unsigned *carry)
{
    unsigned t = x + y + z;
    *sum = t & 1u;
    *carry = t >> 1;
}

/* One row of full adders: (sum, carry) + m -> new (sum, carry). Spelled out
 * bit by bit (rather than through full_adder) because this loop is most of
 * the test's time in an -O0 sanitizer build. */
static void adder_row(uint32_t *sum, uint32_t *carry, uint32_t m)
{
    uint32_t s = *sum, c = *carry, ns = 0, nc = 0;
    for (int i = 0; i < 32; i++) {
        uint32_t t = ((s >> i) & 1u) + ((c >> i) & 1u) + ((m >> i) & 1u);
        ns |= (t & 1u) << i;
        if (i < 31)
            nc |= (t >> 1) << (i + 1);
    }
    *sum = ns;
    *carry = nc;
}

static int digit_estimate(uint32_t sum, uint32_t carry)
{
    unsigned c = 0, h_bits[3];
    for (int k = 0; k < 3; k++)
        full_adder(bit_at(sum, 24 + k), bit_at(carry, 24 + k), c, &h_bits[k], &c);
    int h = (int)h_bits[0] + 2 * (int)h_bits[1] - 4 * (int)h_bits[2];
    if (h >= 1)
        return 1;
    if (h <= -2)
        return -1;
    if (h == 0)
        return (int)(bit_at(sum, 23) | bit_at(carry, 23));
    return 0;
}

/* Remainder -= d * t; returns the next digit; shifts the registers. */
static int gate_step(uint32_t *sum, uint32_t *carry, int d, uint32_t t)
{
    int next;
    if (d == 0) {
        next = digit_estimate(*sum, *carry);
        adder_row(sum, carry, 0);
    } else {
        if (d > 0)
            *carry |= 1u; /* the +1 of the two's complement */
        adder_row(sum, carry, d > 0 ? ~t : t);
        next = digit_estimate(*sum, *carry);
    }
    *sum <<= 1;
    *carry <<= 1;
    return next;
}

/* Pack a model result: biased exponent e, 24-bit significand. */
static uint32_t gate_pack(uint32_t sign, int e, uint32_t sig)
{
    if (e > 255)
        return sign | 0x7fffffffu;
    if (e < 1)
        return sign;
    return sign | (uint32_t)e << 23 | (sig & 0x7fffffu);
}

static uint32_t gate_div(uint32_t a, uint32_t b)
{
    uint32_t sign = (a ^ b) & SIGNBIT;
    unsigned ea = (a >> 23) & 0xffu, eb = (b >> 23) & 0xffu;
    if (eb == 0)
        return sign | 0x7fffffffu;
    if (ea == 0)
        return sign;
    uint32_t x = (a & 0x7fffffu) | 0x800000u, dv = ((b & 0x7fffffu) | 0x800000u) << 2;
    uint32_t sum = x << 2, carry = 0;
    int64_t q = 0; /* digit i has weight 2^(24-i) */
    int d = 1;
    for (int i = 0; i < 25; i++) {
        q += d * ((int64_t)1 << (24 - i));
        d = gate_step(&sum, &carry, d, dv);
    }
    /* a/b's significand ratio is in (1/2, 2): 25 digits when it is >= 1,
     * of which the last is dropped; otherwise the 24 digits stand. */
    if (q >= (int64_t)1 << 24)
        return gate_pack(sign, (int)ea - (int)eb + 127, (uint32_t)(q >> 1));
    return gate_pack(sign, (int)ea - (int)eb + 126, (uint32_t)q);
}

static uint32_t gate_sqrt(uint32_t a)
{
    unsigned ex = (a >> 23) & 0xffu;
    if (ex == 0)
        return 0;
    int unbiased = (int)ex - 127;
    /* The registers start from half the radicand (1.0 at bit 25), so a
     * significand in [1, 2) goes in at bit 24; the root's digits are then
     * weighted 2^25 (1.0) down to 2^1. */
    uint32_t r = ((a & 0x7fffffu) | 0x800000u) << 1;
    if (unbiased & 1) { /* odd power of two: radicand * 2, power - 1 */
        r <<= 1;
        unbiased -= 1;
    }
    uint32_t sum = r, carry = 0;
    int64_t q = 0; /* the root so far; digit i has weight 2^(25-i) */
    int d = 1;
    for (int i = 0; i < 25; i++) {
        int64_t half = (int64_t)1 << (24 - i);
        int64_t t = q + d * half; /* the multiple is d * t */
        q += d * 2 * half;
        d = gate_step(&sum, &carry, d, (uint32_t)t);
    }
    return gate_pack(0, unbiased / 2 + 127, (uint32_t)(q >> 2));
}

static uint32_t gate_rsqrt(uint32_t fs, uint32_t ft)
{
    return gate_div(fs, gate_sqrt(ft & 0x7fffffffu));
}

/* ---- the reference for MAX.S / MIN.S: sign-magnitude integers --------------- */

static int64_t sm_value(uint32_t p)
{
    int64_t mag = (int64_t)(p & 0x7fffffffu);
    return (p & SIGNBIT) ? -mag - 1 : mag; /* -0 sorts just below +0 */
}

/* ---- running a differential check ----------------------------------------------- */

typedef struct {
    const char *what;
    long checked, failed;
} tally;

static void mismatch(tally *t, uint32_t a, uint32_t b, uint32_t c, uint32_t got, uint32_t want)
{
    if (t->failed++ < 8)
        cr_log_error("%s(%08x, %08x, %08x): got %08x, reference %08x", t->what, a, b, c, got, want);
}

static void finish(const tally *t)
{
    cr_assert_eq(t->failed, 0, "%s: %ld of %ld operands differ from the reference", t->what,
                 t->failed, t->checked);
}

/* ==== 1. rules, with hand-derived patterns ======================================= */

Test(ps2fpu_rules, exponent_zero_reads_as_zero)
{
    /* Any pattern with exponent 0 is +-0, whatever its fraction. */
    cr_assert_eq(gc_ps2_mul(0x00000001, GC_PS2_ONE), 0x00000000); /* 0 * 1, sign + */
    cr_assert_eq(gc_ps2_mul(0x80400000, GC_PS2_ONE), 0x80000000); /* -0 * 1 = -0 */
    cr_assert_eq(gc_ps2_add(0x007fffff, GC_PS2_ONE), GC_PS2_ONE); /* 0 + 1 = 1 unchanged */
    cr_assert_eq(gc_ps2_add(0x3f800001, 0x80400000), 0x3f800001); /* x + (-0) = x */
    cr_assert_eq(gc_ps2_div(GC_PS2_ONE, 0x00400000), GC_PS2_MAX); /* 1 / 0 = +MAX */
    cr_assert_eq(gc_ps2_div(0x00400000, GC_PS2_ONE), 0x00000000); /* 0 / 1 = +0 */
    cr_assert_eq(gc_ps2_sqrt(0x00123456), 0x00000000);            /* sqrt(0) = +0 */
    cr_assert_eq(gc_ps2_sqrt(0x80000000), 0x00000000);            /* sqrt(-0) = +0 too */
    cr_assert_eq(gc_ps2_ftoi0(0x007fffff), 0);
    cr_assert(gc_ps2_is_zero(0x007fffff) && gc_ps2_is_zero(0x80000001));
    cr_assert(!gc_ps2_is_zero(0x00800000));
    /* Two zeros: -0 only when both are negative (ADD.S), SUB.S flips b. */
    cr_assert_eq(gc_ps2_add(0x80000000, 0x80000000), 0x80000000);
    cr_assert_eq(gc_ps2_add(0x80000000, 0x00000000), 0x00000000);
    cr_assert_eq(gc_ps2_sub(0x80000000, 0x00000000), 0x80000000); /* -0 - +0 = -0 */
    cr_assert_eq(gc_ps2_sub(0x00000000, 0x00000000), 0x00000000);
    /* x - x is +0 whatever the sign of x. */
    cr_assert_eq(gc_ps2_sub(0xc0490fdb, 0xc0490fdb), 0x00000000);
}

Test(ps2fpu_rules, results_never_denormal)
{
    /* 2^-126 (0x00800000, exponent 1) * 0.5 = 2^-127: exponent 0 -> +0. */
    cr_assert_eq(gc_ps2_mul(0x00800000, 0x3f000000), 0x00000000);
    /* Signed like the true result: -2^-126 * 0.5 -> -0. */
    cr_assert_eq(gc_ps2_mul(0x80800000, 0x3f000000), 0x80000000);
    /* 2^-100 * 2^-100 = 2^-200, far below: 0x0d800000 is 2^(27-127). */
    cr_assert_eq(gc_ps2_mul(0x0d800000, 0x0d800000), 0x00000000);
    /* (2^-126 + 2^-149) - 2^-126 = 2^-149: would be denormal -> +0; the other
     * way round the true result is negative -> -0. */
    cr_assert_eq(gc_ps2_sub(0x00800001, 0x00800000), 0x00000000);
    cr_assert_eq(gc_ps2_sub(0x00800000, 0x00800001), 0x80000000);
    /* 2^-126 / 2 = 2^-127 -> +0;  -2^-126 / 2 -> -0. */
    cr_assert_eq(gc_ps2_div(0x00800000, 0x40000000), 0x00000000);
    cr_assert_eq(gc_ps2_div(0x80800000, 0x40000000), 0x80000000);
}

Test(ps2fpu_rules, exponent_255_is_a_number)
{
    /* 0x7f800000 is IEEE +infinity; on the PS2 it is 2^128. Half of it is
     * 2^127 = 0x7f000000. */
    cr_assert_eq(gc_ps2_mul(0x7f800000, 0x3f000000), 0x7f000000);
    /* 0x7fc00000 (an IEEE quiet NaN) is 1.5 * 2^128; minus 2^128 = 2^127. */
    cr_assert_eq(gc_ps2_sub(0x7fc00000, 0x7f800000), 0x7f000000);
    /* 2^128 / 2^128 = 1. */
    cr_assert_eq(gc_ps2_div(0x7f800000, 0x7f800000), GC_PS2_ONE);
    /* Half of the largest PS2 value, (2 - 2^-23) * 2^127, is IEEE's FLT_MAX. */
    cr_assert_eq(gc_ps2_mul(GC_PS2_MAX, 0x3f000000), 0x7f7fffff);
    /* sqrt(2^128) = 2^64 = 0x5f800000 (exponent 64 + 127 = 191). */
    cr_assert_eq(gc_ps2_sqrt(0x7f800000), 0x5f800000);
}

Test(ps2fpu_rules, largest_value_reads_as_nan_in_ieee)
{
    /* The clearest single statement of why this module exists: the largest
     * PS2 value is not a number to the host. */
    uint32_t bits = GC_PS2_MAX;
    float f;
    memcpy(&f, &bits, sizeof f);
    cr_assert(isnan(f), "0x7fffffff should read back as NaN in IEEE");
    bits = GC_PS2_MIN;
    memcpy(&f, &bits, sizeof f);
    cr_assert(isnan(f));
    bits = 0x7f800000;
    memcpy(&f, &bits, sizeof f);
    cr_assert(isinf(f));
    /* ... and the PS2 computes with it: MAX - 1 = MAX (gap >= 25), MAX/MAX = 1. */
    cr_assert_eq(gc_ps2_sub(GC_PS2_MAX, GC_PS2_ONE), GC_PS2_MAX);
    cr_assert_eq(gc_ps2_div(GC_PS2_MAX, GC_PS2_MAX), GC_PS2_ONE);
}

Test(ps2fpu_rules, overflow_clamps_signed_like_the_true_result)
{
    /* MAX + MAX = 2^130-ish: +MAX. -MAX + -MAX: -MAX (sign of the sum). */
    cr_assert_eq(gc_ps2_add(GC_PS2_MAX, GC_PS2_MAX), GC_PS2_MAX);
    cr_assert_eq(gc_ps2_add(GC_PS2_MIN, GC_PS2_MIN), GC_PS2_MIN);
    /* 2^128 + 2^128 = 2^129: one past the top exponent. */
    cr_assert_eq(gc_ps2_add(0x7f800000, 0x7f800000), GC_PS2_MAX);
    /* MUL.S: the XOR of the signs. MAX * 2 = +MAX, MAX * -2 = -MAX,
     * -MAX * -2 = +MAX. */
    cr_assert_eq(gc_ps2_mul(GC_PS2_MAX, 0x40000000), GC_PS2_MAX);
    cr_assert_eq(gc_ps2_mul(GC_PS2_MAX, 0xc0000000), GC_PS2_MIN);
    cr_assert_eq(gc_ps2_mul(GC_PS2_MIN, 0xc0000000), GC_PS2_MAX);
    /* DIV.S: 2^100 / 2^-100 = 2^200 -> +MAX; by a negative -> -MAX. 0x71800000
     * is 2^(227-127) = 2^100, 0x0d800000 is 2^-100. */
    cr_assert_eq(gc_ps2_div(0x71800000, 0x0d800000), GC_PS2_MAX);
    cr_assert_eq(gc_ps2_div(0x71800000, 0x8d800000), GC_PS2_MIN);
    /* Division by zero is the same clamp, signed by the XOR: 1/-0 = -MAX. */
    cr_assert_eq(gc_ps2_div(GC_PS2_ONE, 0x80000000), GC_PS2_MIN);
    /* MADD.S: an overflowed product decides, whatever the accumulator:
     * -MAX + MAX*MAX = +MAX (the exact sum would be huge and positive too,
     * but even acc = -MAX cannot pull it back). */
    cr_assert_eq(gc_ps2_madd(GC_PS2_MIN, GC_PS2_MAX, GC_PS2_MAX), GC_PS2_MAX);
    cr_assert_eq(gc_ps2_msub(GC_PS2_MAX, GC_PS2_MAX, GC_PS2_MAX), GC_PS2_MIN);
}

Test(ps2fpu_rules, add_and_mul_truncate)
{
    /* 1 + (2^-23 - 2^-47): 0x33ffffff is (2 - 2^-23) * 2^-24. The gap is 24,
     * so only its top bit survives, at the guard position: 2^24 + 1 in units
     * of 2^-24, truncated to 24 bits -> 1.0. IEEE rounds to 1 + 2^-23
     * (0x3f800001), which is nearer. */
    cr_assert_eq(gc_ps2_add(GC_PS2_ONE, 0x33ffffff), 0x3f800000);
    /* 1.75 * (1 + 2^-23) = 1.75 + 1.75 * 2^-23: fraction 0x600000 + 1.75,
     * truncated -> 0x3fe00001 (IEEE rounds to ...02). */
    cr_assert_eq(gc_ps2_mul(0x3fe00000, 0x3f800001), 0x3fe00001);
    /* -1.75 * (1 + 2^-23) truncates toward zero too: -0x3fe00001. */
    cr_assert_eq(gc_ps2_mul(0xbfe00000, 0x3f800001), 0xbfe00001);
    /* (1 - 2^-24)^2 = 1 - 2^-23 + 2^-48: in [1/2, 1) the unit is 2^-24, so
     * 2^24 - 2 units and a fraction -> 0x3f7ffffe. */
    cr_assert_eq(gc_ps2_mul(0x3f7fffff, 0x3f7fffff), 0x3f7ffffe);
}

Test(ps2fpu_rules, adder_keeps_one_guard_bit)
{
    /* Gap 1: 1 - (0.5 + 2^-24). Nothing is lost (the smaller's last bit lands
     * on the guard bit): exactly 0.5 - 2^-24 = 0x3efffffe. */
    cr_assert_eq(gc_ps2_sub(GC_PS2_ONE, 0x3f000001), 0x3efffffe);
    /* Gap 2: 1 - (0.25 + 2^-25). The smaller's last bit is two below 1.0's
     * last bit (2^-23) and is dropped: 1 - 0.25 = 0.75 = 0x3f400000, above
     * the exact 0.75 - 2^-25 (which would truncate to 0x3f3fffff). */
    cr_assert_eq(gc_ps2_sub(GC_PS2_ONE, 0x3e800001), 0x3f400000);
    /* Gap 24: 1 - 2^-24. 2^-24 is exactly the guard bit: 1 - 2^-24 =
     * 0x3f7fffff, exact. */
    cr_assert_eq(gc_ps2_sub(GC_PS2_ONE, 0x33800000), 0x3f7fffff);
    /* Gap 24 with the smaller's fraction all ones (2^-23 - 2^-47): only its
     * top bit (2^-24) is kept -> 1 - 2^-24 again. */
    cr_assert_eq(gc_ps2_sub(GC_PS2_ONE, 0x33ffffff), 0x3f7fffff);
    /* Gap 25: 1 - 2^-25 returns 1 unchanged (the exact value truncates to
     * 0x3f7fffff); the largest gap-25 operand (2^-24 - 2^-48) too. */
    cr_assert_eq(gc_ps2_sub(GC_PS2_ONE, 0x33000000), GC_PS2_ONE);
    cr_assert_eq(gc_ps2_sub(GC_PS2_ONE, 0x337fffff), GC_PS2_ONE);
    /* Gap 26: unchanged, whichever operand is the larger. */
    cr_assert_eq(gc_ps2_add(0x32800000, 0xbf800000), 0xbf800000);
    cr_assert_eq(gc_ps2_sub(0x32800000, GC_PS2_ONE), 0xbf800000);
    /* Gap 25 the other way: the larger operand is b and comes back as is. */
    cr_assert_eq(gc_ps2_add(0x33000000, 0x3f800001), 0x3f800001);
}

Test(ps2fpu_rules, fdiv_is_not_truncated)
{
    /* The FDIV unit stops after 25 digits without correcting the last one,
     * so its result is the truncated value or one unit above. 1/3: exact
     * 0.3333... lies between 0x3eaaaaaa and 0x3eaaaaab; the console gives
     * 0x3eaaaaab (PCSX2 issue 14794), which is also IEEE's 1/3. A
     * truncating divider would give 0x3eaaaaaa. */
    cr_assert_eq(gc_ps2_div(GC_PS2_ONE, 0x40400000), 0x3eaaaaab);
    /* 1/5 = 0.2: between 0x3e4ccccc and 0x3e4ccccd; the console: ...cd. */
    cr_assert_eq(gc_ps2_div(GC_PS2_ONE, 0x40a00000), 0x3e4ccccd);
    /* 1/(2 - 2^-23) = 0.5 (1 + 2^-24 + ...): truncated 0x3f000000, the
     * console 0x3f000001 (ps2autotests muldiv). */
    cr_assert_eq(gc_ps2_div(GC_PS2_ONE, 0x3fffffff), 0x3f000001);
    /* Exact quotients stay exact: 6 / 4 = 1.5, 1 / 2^-126 = 2^126. */
    cr_assert_eq(gc_ps2_div(0x40c00000, 0x40800000), 0x3fc00000);
    cr_assert_eq(gc_ps2_div(GC_PS2_ONE, 0x00800000), 0x7e800000);
    /* sqrt(2 - 2^-23) * 2^64 (sqrt of MAX) is 1.4142135202 * 2^64, between
     * 0x5fb504f2 (1.4142134190) and 0x5fb504f3 (1.4142135382): the console
     * gives ...f3. */
    cr_assert_eq(gc_ps2_sqrt(GC_PS2_MAX), 0x5fb504f3);
    /* Perfect squares are exact: sqrt(25) = 5, sqrt(2^-126) = 2^-63. */
    cr_assert_eq(gc_ps2_sqrt(0x41c80000), 0x40a00000);
    cr_assert_eq(gc_ps2_sqrt(0x00800000), 0x20000000);
}

Test(ps2fpu_rules, rsqrt_is_sqrt_then_divide)
{
    /* RSQRT.S fs, ft = fs / sqrt(|ft|) in two FDIV passes. MAX / sqrt(MAX):
     * sqrt(MAX) = 0x5fb504f3 (above), then MAX / that = 1.4142134 * 2^64,
     * which the second pass leaves at 0x5fb504f2. One correctly rounded step
     * would give sqrt(MAX) = 0x5fb504f3. (Console row, ps2autotests sqrt.) */
    cr_assert_eq(gc_ps2_rsqrt(GC_PS2_MAX, GC_PS2_MAX), 0x5fb504f2);
    cr_assert_eq(gc_ps2_rsqrt(GC_PS2_MAX, GC_PS2_MAX),
                 gc_ps2_div(GC_PS2_MAX, gc_ps2_sqrt(GC_PS2_MAX)));
    /* 1 / sqrt(25) = 1/5 -> 0x3e4ccccd, the divide's value. */
    cr_assert_eq(gc_ps2_rsqrt(GC_PS2_ONE, 0x41c80000), 0x3e4ccccd);
    /* The radicand's sign is ignored; the result takes fs's sign. */
    cr_assert_eq(gc_ps2_rsqrt(0xbf800000, 0xc1c80000), 0xbe4ccccd);
    /* ft zero: +-MAX signed like fs (-0 / sqrt(0) = -MAX). */
    cr_assert_eq(gc_ps2_rsqrt(0x80000000, 0x00000000), GC_PS2_MIN);
    cr_assert_eq(gc_ps2_rsqrt(0x00000000, 0x80000000), GC_PS2_MAX);
}

Test(ps2fpu_rules, max_min_compare_patterns)
{
    /* Sign-magnitude order on the raw patterns: -0 < +0, exponent-0 patterns
     * keep their fraction and order by it, one operand comes back as is. */
    cr_assert_eq(gc_ps2_max(0x80000000, 0x00000000), 0x00000000);
    cr_assert_eq(gc_ps2_min(0x00000000, 0x80000000), 0x80000000);
    cr_assert_eq(gc_ps2_max(0x00001337, 0xdeadbeef), 0x00001337);
    cr_assert_eq(gc_ps2_min(0x00000001, GC_PS2_ONE), 0x00000001);
    cr_assert_eq(gc_ps2_max(0x00000001, 0x00000002), 0x00000002);
    cr_assert_eq(gc_ps2_max(0xbf800000, 0xc0000000), 0xbf800000); /* -1 > -2 */
    cr_assert_eq(gc_ps2_min(0xbf800000, 0xc0000000), 0xc0000000);
    cr_assert_eq(gc_ps2_max(GC_PS2_MIN, 0xff800000), 0xff800000);
    cr_assert_eq(gc_ps2_max(0x7f800000, GC_PS2_MAX), GC_PS2_MAX);
    /* clamp(x, 0, 1) */
    cr_assert_eq(gc_ps2_clamp(0x3fc00000, 0, GC_PS2_ONE), GC_PS2_ONE);
    cr_assert_eq(gc_ps2_clamp(0xbf000000, 0, GC_PS2_ONE), 0x00000000);
    cr_assert_eq(gc_ps2_clamp(0x3f000000, 0, GC_PS2_ONE), 0x3f000000);
    cr_assert_eq(gc_ps2_clamp(0x80000000, 0, GC_PS2_ONE), 0x00000000); /* -0 -> +0 */
}

Test(ps2fpu_rules, itof12_and_ftoi)
{
    /* ITOF12: v / 4096. 4096 -> 1.0; 1 -> 2^-12 = 0x39800000 (exponent
     * 115); -6144 -> -1.5. */
    cr_assert_eq(gc_ps2_itof12(4096), GC_PS2_ONE);
    cr_assert_eq(gc_ps2_itof12(1), 0x39800000);
    cr_assert_eq(gc_ps2_itof12(-6144), 0xbfc00000);
    cr_assert_eq(gc_ps2_itof12(0), 0x00000000);
    /* 2^31 - 1 has 31 significant bits; truncated to 24: 2^31 - 2^7, / 4096
     * = 2^19 - 2^-5: exponent 18 + 127 = 0x91, fraction all ones. */
    cr_assert_eq(gc_ps2_itof12(INT32_MAX), 0x48ffffff);
    /* INT32_MIN = -2^31 is exact: -2^19 = 0xc9000000. */
    cr_assert_eq(gc_ps2_itof12(INT32_MIN), 0xc9000000);
    /* 2^24 + 3 truncates to 2^24 + 2 (IEEE would round to 2^24 + 4): / 4096
     * = 4096 + 2^-11 = 0x45800001. */
    cr_assert_eq(gc_ps2_itof12((1 << 24) + 3), 0x45800001);
    /* CVT.S.W and ITOF4/15 are the same conversion with another scale. */
    cr_assert_eq(gc_ps2_itof(3, 0), 0x40400000);
    cr_assert_eq(gc_ps2_itof(16, 4), GC_PS2_ONE);
    cr_assert_eq(gc_ps2_itof(-(1 << 15), 15), 0xbf800000);
    /* CVT.W.S truncates toward zero and saturates at 2^31. */
    cr_assert_eq(gc_ps2_ftoi0(0x3fc00000), 1);
    cr_assert_eq(gc_ps2_ftoi0(0xbfc00000), -1);
    cr_assert_eq(gc_ps2_ftoi0(0x4f000000), INT32_MAX); /* 2^31 */
    cr_assert_eq(gc_ps2_ftoi0(0xcf000000), INT32_MIN);
    cr_assert_eq(gc_ps2_ftoi0(0x4effffff), 0x7fffff80); /* 2^31 - 2^7 */
    cr_assert_eq(gc_ps2_ftoi0(GC_PS2_MAX), INT32_MAX);
    cr_assert_eq(gc_ps2_ftoi0(GC_PS2_MIN), INT32_MIN);
    /* FTOI12: (1 - 2^-24) * 4096 = 4096 - 2^-12 -> 4095. */
    cr_assert_eq(gc_ps2_ftoi(0x3f7fffff, 12), 4095);
    cr_assert_eq(gc_ps2_ftoi(0xbf7fffff, 12), -4095);
    cr_assert_eq(gc_ps2_ftoi(GC_PS2_ONE, 12), 4096);
    /* ITOF12 then FTOI12 returns any integer of up to 24 significant bits. */
    cr_assert_eq(gc_ps2_ftoi(gc_ps2_itof12(-8388607), 12), -8388607);
}

Test(ps2fpu_rules, pattern_helpers)
{
    cr_assert_eq(gc_ps2_pack(0, 127, 0), GC_PS2_ONE);
    cr_assert_eq(gc_ps2_pack(1, 255, 0x7fffff), GC_PS2_MIN);
    /* 1/3 truncated: 0x3eaaaaaa (the FDIV unit gives ...ab, see above). */
    cr_assert_eq(gc_ps2_from_ratio(1, 3), 0x3eaaaaaa);
    cr_assert_eq(gc_ps2_from_ratio(-2, 3), 0xbf2aaaaa);
    cr_assert_eq(gc_ps2_from_ratio(1, 4096), 0x39800000);
    cr_assert_eq(gc_ps2_from_ratio(INT32_MIN, 1), 0xcf000000);
    cr_assert_eq(gc_ps2_from_ratio(1, INT32_MIN), 0xb0000000); /* -2^-31 */
    cr_assert_eq(gc_ps2_from_ratio(INT32_MAX, 1), 0x4effffff);
    cr_assert_eq(gc_ps2_from_ratio(5, 0), GC_PS2_MAX);
    cr_assert_eq(gc_ps2_from_ratio(-5, 0), GC_PS2_MIN);
    cr_assert_eq(gc_ps2_from_ratio(0, -7), 0x00000000);
    cr_assert_eq(gc_ps2_neg(0x00001337), 0x80001337); /* NEG.S: the bit only */
    cr_assert_eq(gc_ps2_abs(0xdeadbeef), 0x5eadbeef);
}

/* ==== 2. rows recorded on a console ============================================== */

/* ps2autotests tests/cpu/ee_fpu/{arithmetic,muldiv,sqrt,convert}.expected
 * (https://github.com/unknownbrackets/ps2autotests, recorded on a PS2), and
 * PCSX2 issue 14794 (the "hardware" column). For madd/msub the first operand
 * is ACC. */
typedef struct {
    char op; /* + - * / s r M m > < i f */
    uint32_t acc, a, b, want;
} hw_row;

#define R2(op, a, b, w)                                                                            \
    {                                                                                              \
        op, 0, a, b, w                                                                             \
    }
#define R3(op, acc, a, b, w)                                                                       \
    {                                                                                              \
        op, acc, a, b, w                                                                           \
    }

static const hw_row hw_rows[] = {
    /* add */
    R2('+', 0x00000000, 0x00000000, 0x00000000),
    R2('+', 0x00000000, 0x80000000, 0x00000000),
    R2('+', 0x80000000, 0x00000000, 0x00000000),
    R2('+', 0x80000000, 0x80000000, 0x80000000),
    R2('+', 0x00000000, 0x3f800000, 0x3f800000),
    R2('+', 0x3f800000, 0x3f800000, 0x40000000),
    R2('+', 0x3f800000, 0x00000000, 0x3f800000),
    R2('+', 0x40000000, 0x40000000, 0x40800000),
    R2('+', 0x40400000, 0x3f800000, 0x40800000),
    R2('+', 0x40400000, 0x40400000, 0x40c00000),
    R2('+', 0x7fffffff, 0x7fffffff, 0x7fffffff),
    R2('+', 0x7fffffff, 0xffffffff, 0x00000000),
    R2('+', 0xffffffff, 0x7fffffff, 0x00000000),
    R2('+', 0xffffffff, 0xffffffff, 0xffffffff),
    R2('+', 0x7fffffff, 0x00000000, 0x7fffffff),
    R2('+', 0x00000000, 0x7fffffff, 0x7fffffff),
    R2('+', 0x00000000, 0x7f800000, 0x7f800000),
    R2('+', 0x7f800000, 0x7f800000, 0x7fffffff),
    R2('+', 0xff800000, 0x7f800000, 0x00000000),
    R2('+', 0x3f800000, 0xbf800000, 0x00000000),
    R2('+', 0x3fffffff, 0x3f800000, 0x403fffff),
    R2('+', 0x7f800001, 0x3f800000, 0x7f800001),
    R2('+', 0x00000001, 0x3f800000, 0x3f800000),
    R2('+', 0x3f800000, 0x3fffffff, 0x403fffff),
    R2('+', 0x3f800000, 0x7f800001, 0x7f800001),
    R2('+', 0x3f800000, 0x00000001, 0x3f800000),
    R2('+', 0x7fffffff, 0x3f800000, 0x7fffffff),
    R2('+', 0xffffffff, 0x3f800000, 0xffffffff),
    R2('+', 0x3f800000, 0x7fffffff, 0x7fffffff),
    R2('+', 0x3f800000, 0xffffffff, 0xffffffff),
    R2('+', 0x00001337, 0xdeadbeef, 0xdeadbeef),
    /* sub */
    R2('-', 0x00000000, 0x00000000, 0x00000000),
    R2('-', 0x00000000, 0x80000000, 0x00000000),
    R2('-', 0x80000000, 0x00000000, 0x80000000),
    R2('-', 0x80000000, 0x80000000, 0x00000000),
    R2('-', 0x00000000, 0x3f800000, 0xbf800000),
    R2('-', 0x3f800000, 0x3f800000, 0x00000000),
    R2('-', 0x3f800000, 0x00000000, 0x3f800000),
    R2('-', 0x40000000, 0x40000000, 0x00000000),
    R2('-', 0x40400000, 0x3f800000, 0x40000000),
    R2('-', 0x40400000, 0x40400000, 0x00000000),
    R2('-', 0x7fffffff, 0x7fffffff, 0x00000000),
    R2('-', 0x7fffffff, 0xffffffff, 0x7fffffff),
    R2('-', 0xffffffff, 0x7fffffff, 0xffffffff),
    R2('-', 0xffffffff, 0xffffffff, 0x00000000),
    R2('-', 0x7fffffff, 0x00000000, 0x7fffffff),
    R2('-', 0x00000000, 0x7fffffff, 0xffffffff),
    R2('-', 0x00000000, 0x7f800000, 0xff800000),
    R2('-', 0x7f800000, 0x7f800000, 0x00000000),
    R2('-', 0xff800000, 0x7f800000, 0xffffffff),
    R2('-', 0x3f800000, 0xbf800000, 0x40000000),
    R2('-', 0x3fffffff, 0x3f800000, 0x3f7ffffe),
    R2('-', 0x7f800001, 0x3f800000, 0x7f800001),
    R2('-', 0x00000001, 0x3f800000, 0xbf800000),
    R2('-', 0x3f800000, 0x3fffffff, 0xbf7ffffe),
    R2('-', 0x3f800000, 0x7f800001, 0xff800001),
    R2('-', 0x3f800000, 0x00000001, 0x3f800000),
    R2('-', 0x7fffffff, 0x3f800000, 0x7fffffff),
    R2('-', 0xffffffff, 0x3f800000, 0xffffffff),
    R2('-', 0x3f800000, 0x7fffffff, 0xffffffff),
    R2('-', 0x3f800000, 0xffffffff, 0x7fffffff),
    R2('-', 0x00001337, 0xdeadbeef, 0x5eadbeef),
    /* mul (the Booth rows are in booth_rows below) */
    R2('*', 0x00000000, 0x00000000, 0x00000000),
    R2('*', 0x00000000, 0x80000000, 0x80000000),
    R2('*', 0x80000000, 0x00000000, 0x80000000),
    R2('*', 0x80000000, 0x80000000, 0x00000000),
    R2('*', 0x00000000, 0x3f800000, 0x00000000),
    R2('*', 0x3f800000, 0x3f800000, 0x3f800000),
    R2('*', 0x3f800000, 0x00000000, 0x00000000),
    R2('*', 0x40000000, 0x40000000, 0x40800000),
    R2('*', 0x40400000, 0x3f800000, 0x40400000),
    R2('*', 0x40400000, 0x40400000, 0x41100000),
    R2('*', 0x7fffffff, 0x7fffffff, 0x7fffffff),
    R2('*', 0x7fffffff, 0xffffffff, 0xffffffff),
    R2('*', 0xffffffff, 0x7fffffff, 0xffffffff),
    R2('*', 0xffffffff, 0xffffffff, 0x7fffffff),
    R2('*', 0x7fffffff, 0x00000000, 0x00000000),
    R2('*', 0x00000000, 0x7fffffff, 0x00000000),
    R2('*', 0x00000000, 0x7f800000, 0x00000000),
    R2('*', 0x7f800000, 0x7f800000, 0x7fffffff),
    R2('*', 0xff800000, 0x7f800000, 0xffffffff),
    R2('*', 0x3f800000, 0xbf800000, 0xbf800000),
    R2('*', 0x3fffffff, 0x3f800000, 0x3fffffff),
    R2('*', 0x7f800001, 0x3f800000, 0x7f800001),
    R2('*', 0x00000001, 0x3f800000, 0x00000000),
    R2('*', 0x3f800000, 0x7f800001, 0x7f800001),
    R2('*', 0x3f800000, 0x00000001, 0x00000000),
    R2('*', 0x7fffffff, 0x3f800000, 0x7fffffff),
    R2('*', 0xffffffff, 0x3f800000, 0xffffffff),
    R2('*', 0x00001337, 0xdeadbeef, 0x80000000),
    R2('*', 0x3fffffff, 0x3fffffff, 0x407ffffe),
    /* div */
    R2('/', 0x00000000, 0x00000000, 0x7fffffff),
    R2('/', 0x00000000, 0x80000000, 0xffffffff),
    R2('/', 0x80000000, 0x00000000, 0xffffffff),
    R2('/', 0x80000000, 0x80000000, 0x7fffffff),
    R2('/', 0x00000000, 0x3f800000, 0x00000000),
    R2('/', 0x3f800000, 0x3f800000, 0x3f800000),
    R2('/', 0x3f800000, 0x00000000, 0x7fffffff),
    R2('/', 0x40000000, 0x40000000, 0x3f800000),
    R2('/', 0x40400000, 0x3f800000, 0x40400000),
    R2('/', 0x40400000, 0x40400000, 0x3f800000),
    R2('/', 0x7fffffff, 0x7fffffff, 0x3f800000),
    R2('/', 0x7fffffff, 0xffffffff, 0xbf800000),
    R2('/', 0xffffffff, 0x7fffffff, 0xbf800000),
    R2('/', 0xffffffff, 0xffffffff, 0x3f800000),
    R2('/', 0x7fffffff, 0x00000000, 0x7fffffff),
    R2('/', 0x00000000, 0x7fffffff, 0x00000000),
    R2('/', 0x00000000, 0x7f800000, 0x00000000),
    R2('/', 0x7f800000, 0x7f800000, 0x3f800000),
    R2('/', 0xff800000, 0x7f800000, 0xbf800000),
    R2('/', 0x3f800000, 0xbf800000, 0xbf800000),
    R2('/', 0x3fffffff, 0x3f800000, 0x3fffffff),
    R2('/', 0x7f800001, 0x3f800000, 0x7f800001),
    R2('/', 0x00000001, 0x3f800000, 0x00000000),
    R2('/', 0x3f800000, 0x3fffffff, 0x3f000001),
    R2('/', 0x3f800000, 0x7f800001, 0x00000000),
    R2('/', 0x3f800000, 0x00000001, 0x7fffffff),
    R2('/', 0x7fffffff, 0x3f800000, 0x7fffffff),
    R2('/', 0xffffffff, 0x3f800000, 0xffffffff),
    R2('/', 0x3f800000, 0x7fffffff, 0x00000000),
    R2('/', 0x3f800000, 0xffffffff, 0x80000000),
    R2('/', 0x00001337, 0xdeadbeef, 0x80000000),
    R2('/', 0x3f800000, 0x40400000, 0x3eaaaaab), /* PCSX2 issue 14794 */
    R2('/', 0x3f800000, 0x3fc00000, 0x3f2aaaab), /* PCSX2 issue 14794 */
    /* sqrt (operand in a) */
    R2('s', 0x00000000, 0, 0x00000000),
    R2('s', 0x80000000, 0, 0x00000000),
    R2('s', 0x3f800000, 0, 0x3f800000),
    R2('s', 0x40000000, 0, 0x3fb504f3),
    R2('s', 0x40400000, 0, 0x3fddb3d7),
    R2('s', 0x7fffffff, 0, 0x5fb504f3),
    R2('s', 0xffffffff, 0, 0x5fb504f3),
    R2('s', 0x7f800000, 0, 0x5f800000),
    R2('s', 0xff800000, 0, 0x5f800000),
    R2('s', 0x41c80000, 0, 0x40a00000),
    R2('s', 0xbf800000, 0, 0x3f800000),
    R2('s', 0x3fffffff, 0, 0x3fb504f3),
    R2('s', 0x7f800001, 0, 0x5f800000),
    R2('s', 0x00000001, 0, 0x00000000),
    R2('s', 0x00001337, 0, 0x00000000),
    R2('s', 0xdeadbeef, 0, 0x4f152108),
    R2('s', 0x3fc00000, 0, 0x3f9cc471), /* PCSX2 issue 14794 */
    /* rsqrt fs, ft */
    R2('r', 0x00000000, 0x00000000, 0x7fffffff),
    R2('r', 0x00000000, 0x80000000, 0x7fffffff),
    R2('r', 0x80000000, 0x00000000, 0xffffffff),
    R2('r', 0x80000000, 0x80000000, 0xffffffff),
    R2('r', 0x00000000, 0x3f800000, 0x00000000),
    R2('r', 0x3f800000, 0x3f800000, 0x3f800000),
    R2('r', 0x3f800000, 0x00000000, 0x7fffffff),
    R2('r', 0x40000000, 0x40000000, 0x3fb504f3),
    R2('r', 0x40400000, 0x3f800000, 0x40400000),
    R2('r', 0x40400000, 0x40400000, 0x3fddb3d7),
    R2('r', 0x7fffffff, 0x7fffffff, 0x5fb504f2),
    R2('r', 0x7fffffff, 0xffffffff, 0x5fb504f2),
    R2('r', 0xffffffff, 0x7fffffff, 0xdfb504f2),
    R2('r', 0xffffffff, 0xffffffff, 0xdfb504f2),
    R2('r', 0x7fffffff, 0x00000000, 0x7fffffff),
    R2('r', 0x00000000, 0x7fffffff, 0x00000000),
    R2('r', 0x00000000, 0x7f800000, 0x00000000),
    R2('r', 0x7f800000, 0x7f800000, 0x5f800000),
    R2('r', 0xff800000, 0x7f800000, 0xdf800000),
    R2('r', 0x3f800000, 0x41c80000, 0x3e4ccccd),
    R2('r', 0x40a00000, 0x41c80000, 0x3f800000),
    R2('r', 0x41c80000, 0x41c80000, 0x40a00000),
    R2('r', 0x3f800000, 0xbf800000, 0x3f800000),
    R2('r', 0x3fffffff, 0x3f800000, 0x3fffffff),
    R2('r', 0x7f800001, 0x3f800000, 0x7f800001),
    R2('r', 0x00000001, 0x3f800000, 0x00000000),
    R2('r', 0x3f800000, 0x3fffffff, 0x3f3504f3),
    R2('r', 0x3f800000, 0x7f800001, 0x1f800000),
    R2('r', 0x3f800000, 0x00000001, 0x7fffffff),
    R2('r', 0x7fffffff, 0x3f800000, 0x7fffffff),
    R2('r', 0xffffffff, 0x3f800000, 0xffffffff),
    R2('r', 0x3f800000, 0x7fffffff, 0x1f3504f3),
    R2('r', 0x3f800000, 0xffffffff, 0x1f3504f3),
    R2('r', 0x00001337, 0xdeadbeef, 0x00000000),
    /* madd: acc + a * b */
    R3('M', 0x00000000, 0x00000000, 0x00000000, 0x00000000),
    R3('M', 0x00000000, 0x00000000, 0x80000000, 0x00000000),
    R3('M', 0x80000000, 0x00000000, 0x80000000, 0x80000000),
    R3('M', 0x00000000, 0x80000000, 0x00000000, 0x00000000),
    R3('M', 0x00000000, 0x80000000, 0x80000000, 0x00000000),
    R3('M', 0x80000000, 0x80000000, 0x80000000, 0x00000000),
    R3('M', 0x00000000, 0x00000000, 0x3f800000, 0x00000000),
    R3('M', 0x00000000, 0x3f800000, 0x3f800000, 0x3f800000),
    R3('M', 0x3f800000, 0x3f800000, 0x3f800000, 0x40000000),
    R3('M', 0x3f800000, 0x3f800000, 0x00000000, 0x3f800000),
    R3('M', 0x40000000, 0x40000000, 0x40000000, 0x40c00000),
    R3('M', 0x40400000, 0x40400000, 0x3f800000, 0x40c00000),
    R3('M', 0x00000000, 0x40400000, 0x40400000, 0x41100000),
    R3('M', 0x00000000, 0x7fffffff, 0x7fffffff, 0x7fffffff),
    R3('M', 0x7fffffff, 0x00000000, 0x00000000, 0x7fffffff),
    R3('M', 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff),
    R3('M', 0xffffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff),
    R3('M', 0x00000000, 0x7fffffff, 0xffffffff, 0xffffffff),
    R3('M', 0x7fffffff, 0x7fffffff, 0xffffffff, 0xffffffff),
    R3('M', 0xffffffff, 0x7fffffff, 0xffffffff, 0xffffffff),
    R3('M', 0x00000000, 0xffffffff, 0x7fffffff, 0xffffffff),
    R3('M', 0x00000000, 0xffffffff, 0xffffffff, 0x7fffffff),
    R3('M', 0xffffffff, 0xffffffff, 0xffffffff, 0x7fffffff),
    R3('M', 0xffffffff, 0x00000000, 0x00000000, 0xffffffff),
    R3('M', 0x00000000, 0x7fffffff, 0x00000000, 0x00000000),
    R3('M', 0x00000000, 0x00000000, 0x7fffffff, 0x00000000),
    R3('M', 0x00000000, 0x00000000, 0x7f800000, 0x00000000),
    R3('M', 0x00000000, 0x7f800000, 0x7f800000, 0x7fffffff),
    R3('M', 0x7f800000, 0x7f800000, 0x7f800000, 0x7fffffff),
    R3('M', 0x00000000, 0xff800000, 0x7f800000, 0xffffffff),
    R3('M', 0xff800000, 0xff800000, 0x7f800000, 0xffffffff),
    R3('M', 0xff800000, 0x00000000, 0x00000000, 0xff800000),
    R3('M', 0x80000000, 0x00000000, 0x00000000, 0x00000000),
    R3('M', 0x00000001, 0x3f800000, 0x3f800000, 0x3f800000),
    R3('M', 0x00000001, 0x00000001, 0x00000001, 0x00000000),
    R3('M', 0x7f800001, 0x3f800000, 0x3f800000, 0x7f800001),
    R3('M', 0x7f800001, 0x7f800001, 0x7f800001, 0x7fffffff),
    R3('M', 0x00000000, 0x3f800000, 0xbf800000, 0xbf800000),
    R3('M', 0x00000000, 0x3fffffff, 0x3f800000, 0x3fffffff),
    R3('M', 0x00000000, 0x7f800001, 0x3f800000, 0x7f800001),
    R3('M', 0x00000000, 0x3fffffff, 0x3fffffff, 0x407ffffe),
    R3('M', 0x00000000, 0x7fffffff, 0x3f800000, 0x7fffffff),
    R3('M', 0x00000000, 0xffffffff, 0x3f800000, 0xffffffff),
    R3('M', 0x00000000, 0x00001337, 0xdeadbeef, 0x00000000),
    /* msub: acc - a * b */
    R3('m', 0x00000000, 0x00000000, 0x00000000, 0x00000000),
    R3('m', 0x00000000, 0x00000000, 0x80000000, 0x00000000),
    R3('m', 0x80000000, 0x00000000, 0x80000000, 0x00000000),
    R3('m', 0x00000000, 0x80000000, 0x00000000, 0x00000000),
    R3('m', 0x00000000, 0x80000000, 0x80000000, 0x00000000),
    R3('m', 0x80000000, 0x80000000, 0x80000000, 0x80000000),
    R3('m', 0x00000000, 0x3f800000, 0x3f800000, 0xbf800000),
    R3('m', 0x3f800000, 0x3f800000, 0x3f800000, 0x00000000),
    R3('m', 0x3f800000, 0x3f800000, 0x00000000, 0x3f800000),
    R3('m', 0x40000000, 0x40000000, 0x40000000, 0xc0000000),
    R3('m', 0x40400000, 0x40400000, 0x3f800000, 0x00000000),
    R3('m', 0x00000000, 0x40400000, 0x40400000, 0xc1100000),
    R3('m', 0x00000000, 0x7fffffff, 0x7fffffff, 0xffffffff),
    R3('m', 0x7fffffff, 0x00000000, 0x00000000, 0x7fffffff),
    R3('m', 0x7fffffff, 0x7fffffff, 0x7fffffff, 0xffffffff),
    R3('m', 0xffffffff, 0x7fffffff, 0x7fffffff, 0xffffffff),
    R3('m', 0x00000000, 0x7fffffff, 0xffffffff, 0x7fffffff),
    R3('m', 0x7fffffff, 0x7fffffff, 0xffffffff, 0x7fffffff),
    R3('m', 0xffffffff, 0x7fffffff, 0xffffffff, 0x7fffffff),
    R3('m', 0x00000000, 0xffffffff, 0x7fffffff, 0x7fffffff),
    R3('m', 0x00000000, 0xffffffff, 0xffffffff, 0xffffffff),
    R3('m', 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff),
    R3('m', 0xffffffff, 0x00000000, 0x00000000, 0xffffffff),
    R3('m', 0x00000000, 0x7f800000, 0x7f800000, 0xffffffff),
    R3('m', 0x7f800000, 0x7f800000, 0x7f800000, 0xffffffff),
    R3('m', 0x00000000, 0xff800000, 0x7f800000, 0x7fffffff),
    R3('m', 0xff800000, 0xff800000, 0x7f800000, 0x7fffffff),
    R3('m', 0xff800000, 0x00000000, 0x00000000, 0xff800000),
    R3('m', 0x80000000, 0x00000000, 0x00000000, 0x80000000),
    R3('m', 0x00000001, 0x3f800000, 0x3f800000, 0xbf800000),
    R3('m', 0x7f800001, 0x3f800000, 0x3f800000, 0x7f800001),
    R3('m', 0x7f800001, 0x7f800001, 0x7f800001, 0xffffffff),
    R3('m', 0x00000000, 0x3f800000, 0xbf800000, 0x3f800000),
    R3('m', 0x00000000, 0x3fffffff, 0x3f800000, 0xbfffffff),
    R3('m', 0x00000000, 0x7f800001, 0x3f800000, 0xff800001),
    R3('m', 0x00000000, 0x3fffffff, 0x3fffffff, 0xc07ffffe),
    R3('m', 0x00000000, 0x7fffffff, 0x3f800000, 0xffffffff),
    R3('m', 0x00000000, 0xffffffff, 0x3f800000, 0x7fffffff),
    R3('m', 0x00000000, 0x00001337, 0xdeadbeef, 0x00000000),
    /* max, min */
    R2('>', 0x00000000, 0x00000000, 0x00000000),
    R2('>', 0x00000000, 0x80000000, 0x00000000),
    R2('>', 0x80000000, 0x00000000, 0x00000000),
    R2('>', 0x80000000, 0x80000000, 0x80000000),
    R2('>', 0x00000000, 0x3f800000, 0x3f800000),
    R2('>', 0x40400000, 0x3f800000, 0x40400000),
    R2('>', 0x7fffffff, 0xffffffff, 0x7fffffff),
    R2('>', 0xffffffff, 0xffffffff, 0xffffffff),
    R2('>', 0xff800000, 0x7f800000, 0x7f800000),
    R2('>', 0x3f800000, 0xbf800000, 0x3f800000),
    R2('>', 0x3fffffff, 0x3f800000, 0x3fffffff),
    R2('>', 0x7f800001, 0x3f800000, 0x7f800001),
    R2('>', 0x00000001, 0x3f800000, 0x3f800000),
    R2('>', 0xffffffff, 0x3f800000, 0x3f800000),
    R2('>', 0x00001337, 0xdeadbeef, 0x00001337),
    R2('<', 0x00000000, 0x80000000, 0x80000000),
    R2('<', 0x80000000, 0x00000000, 0x80000000),
    R2('<', 0x00000000, 0x3f800000, 0x00000000),
    R2('<', 0x40400000, 0x3f800000, 0x3f800000),
    R2('<', 0x7fffffff, 0xffffffff, 0xffffffff),
    R2('<', 0x7fffffff, 0x00000000, 0x00000000),
    R2('<', 0xff800000, 0x7f800000, 0xff800000),
    R2('<', 0x3f800000, 0xbf800000, 0xbf800000),
    R2('<', 0x7f800001, 0x3f800000, 0x3f800000),
    R2('<', 0x00000001, 0x3f800000, 0x00000001),
    R2('<', 0x3f800000, 0x00000001, 0x00000001),
    R2('<', 0xffffffff, 0x3f800000, 0xffffffff),
    R2('<', 0x00001337, 0xdeadbeef, 0xdeadbeef),
    /* cvt.s.w (integer in a) */
    R2('i', 0x00000000, 0, 0x00000000),
    R2('i', 0x80000000, 0, 0xcf000000),
    R2('i', 0x3f800000, 0, 0x4e7e0000),
    R2('i', 0x40000000, 0, 0x4e800000),
    R2('i', 0x40400000, 0, 0x4e808000),
    R2('i', 0x7fffffff, 0, 0x4effffff),
    R2('i', 0xffffffff, 0, 0xbf800000),
    R2('i', 0x7f800000, 0, 0x4eff0000),
    R2('i', 0xff800000, 0, 0xcb000000),
    R2('i', 0x00000005, 0, 0x40a00000),
    R2('i', 0x0000ffff, 0, 0x477fff00),
    R2('i', 0x4f000000, 0, 0x4e9e0000),
    R2('i', 0xcf000000, 0, 0xce440000),
    R2('i', 0x4effffff, 0, 0x4e9dffff),
    R2('i', 0xceffffff, 0, 0xce440000),
    R2('i', 0x3fbeb852, 0, 0x4e7efae1),
    R2('i', 0x3fc00000, 0, 0x4e7f0000),
    R2('i', 0x3fc147ae, 0, 0x4e7f051e),
    R2('i', 0xbfbeb852, 0, 0xce80828f),
    R2('i', 0xbfc00000, 0, 0xce808000),
    R2('i', 0xbfc147ae, 0, 0xce807d70),
    R2('i', 0xbf800000, 0, 0xce810000),
    R2('i', 0x3fffffff, 0, 0x4e7fffff),
    R2('i', 0x00000001, 0, 0x3f800000),
    R2('i', 0x00001337, 0, 0x4599b800),
    R2('i', 0xdeadbeef, 0, 0xce054904),
    /* cvt.w.s (result is the integer's bits) */
    R2('f', 0x00000000, 0, 0x00000000),
    R2('f', 0x80000000, 0, 0x00000000),
    R2('f', 0x3f800000, 0, 0x00000001),
    R2('f', 0x40000000, 0, 0x00000002),
    R2('f', 0x40400000, 0, 0x00000003),
    R2('f', 0x7fffffff, 0, 0x7fffffff),
    R2('f', 0xffffffff, 0, 0x80000000),
    R2('f', 0x7f800000, 0, 0x7fffffff),
    R2('f', 0xff800000, 0, 0x80000000),
    R2('f', 0x00000005, 0, 0x00000000),
    R2('f', 0x0000ffff, 0, 0x00000000),
    R2('f', 0x4f000000, 0, 0x7fffffff),
    R2('f', 0xcf000000, 0, 0x80000000),
    R2('f', 0x4effffff, 0, 0x7fffff80),
    R2('f', 0xceffffff, 0, 0x80000080),
    R2('f', 0x3fbeb852, 0, 0x00000001),
    R2('f', 0x3fc00000, 0, 0x00000001),
    R2('f', 0x3fc147ae, 0, 0x00000001),
    R2('f', 0xbfbeb852, 0, 0xffffffff),
    R2('f', 0xbfc00000, 0, 0xffffffff),
    R2('f', 0xbfc147ae, 0, 0xffffffff),
    R2('f', 0xbf800000, 0, 0xffffffff),
    R2('f', 0x3fffffff, 0, 0x00000001),
    R2('f', 0x7f800001, 0, 0x7fffffff),
    R2('f', 0x00000001, 0, 0x00000000),
    R2('f', 0x00001337, 0, 0x00000000),
    R2('f', 0xdeadbeef, 0, 0x80000000),
};

static uint32_t run_row(const hw_row *r)
{
    switch (r->op) {
    case '+':
        return gc_ps2_add(r->a, r->b);
    case '-':
        return gc_ps2_sub(r->a, r->b);
    case '*':
        return gc_ps2_mul(r->a, r->b);
    case '/':
        return gc_ps2_div(r->a, r->b);
    case 's':
        return gc_ps2_sqrt(r->a);
    case 'r':
        return gc_ps2_rsqrt(r->a, r->b);
    case 'M':
        return gc_ps2_madd(r->acc, r->a, r->b);
    case 'm':
        return gc_ps2_msub(r->acc, r->a, r->b);
    case '>':
        return gc_ps2_max(r->a, r->b);
    case '<':
        return gc_ps2_min(r->a, r->b);
    case 'i':
        return gc_ps2_itof((int32_t)r->a, 0);
    case 'f':
        return (uint32_t)gc_ps2_ftoi0(r->a);
    }
    return 0xdeadc0deu;
}

Test(ps2fpu_console, recorded_rows)
{
    size_t n = sizeof hw_rows / sizeof hw_rows[0], bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t got = run_row(&hw_rows[i]);
        if (got != hw_rows[i].want && bad++ < 10)
            cr_log_error("row %zu: %c acc=%08x a=%08x b=%08x: got %08x, console %08x", i,
                         hw_rows[i].op, hw_rows[i].acc, hw_rows[i].a, hw_rows[i].b, got,
                         hw_rows[i].want);
    }
    cr_assert_eq(bad, 0, "%zu of %zu console rows differ", bad, n);
    cr_assert_geq(n, 300u);
}

/* The console's multiplier does not form the exact product: its Booth array
 * drops low partial-product bits, so with 1.0 as fs and a significand of all
 * ones as ft the product comes out one unit low (and the operation is not
 * commutative). The model computes the exact truncated product instead
 * (docs/ps2-float.md, "What the model leaves out"); these rows say what it
 * gives, next to what the console gives, so a change to either is seen. */
Test(ps2fpu_console, booth_rows_not_modelled)
{
    static const struct {
        uint32_t a, b, console, model;
    } rows[] = {
        {0x3f800000, 0x3fffffff, 0x3ffffffe, 0x3fffffff},
        {0x3f800000, 0x7fffffff, 0x7ffffffe, 0x7fffffff},
        {0x3f800000, 0xffffffff, 0xfffffffe, 0xffffffff},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cr_assert_eq(gc_ps2_mul(rows[i].a, rows[i].b), rows[i].model);
        cr_assert_eq(gc_ps2_mul(rows[i].b, rows[i].a), rows[i].model); /* console: model */
        cr_assert_eq(gc_ps2_madd(0, rows[i].a, rows[i].b), rows[i].model);
        cr_assert_neq(rows[i].model, rows[i].console);
    }
}

/* ==== 3. differential runs ======================================================= */

Test(ps2fpu_diff, add_sub)
{
    uint64_t s = 0xadd5;
    tally t = {"add", 0, 0}, u = {"sub", 0, 0};
    for (long i = 0; i < 2000000; i++) {
        uint32_t a = gen_any(&s), b = gen_partner(&s, a);
        uint32_t got = gc_ps2_add(a, b), want = ref_add(a, b);
        t.checked++;
        if (got != want)
            mismatch(&t, a, b, 0, got, want);
        got = gc_ps2_sub(a, b);
        want = ref_add(a, b ^ SIGNBIT);
        u.checked++;
        if (got != want)
            mismatch(&u, a, b, 0, got, want);
    }
    finish(&t);
    finish(&u);
}

Test(ps2fpu_diff, mul_madd_dot3)
{
    uint64_t s = 0x3a1;
    tally t = {"mul", 0, 0}, m = {"madd", 0, 0}, n = {"msub", 0, 0}, d = {"dot3", 0, 0};
    for (long i = 0; i < 1500000; i++) {
        uint32_t a = gen_any(&s), b = rng_below(&s, 2) ? gen_any(&s) : gen_partner(&s, 0x3f800000);
        uint32_t got = gc_ps2_mul(a, b), want = ref_mul(a, b);
        t.checked++;
        if (got != want)
            mismatch(&t, a, b, 0, got, want);
        if (i % 3 == 0) {
            uint32_t acc = gen_partner(&s, want);
            got = gc_ps2_madd(acc, a, b);
            want = ref_madd(acc, a, b);
            m.checked++;
            if (got != want)
                mismatch(&m, acc, a, b, got, want);
            got = gc_ps2_msub(acc, a, b);
            want = ref_msub(acc, a, b);
            n.checked++;
            if (got != want)
                mismatch(&n, acc, a, b, got, want);
        }
        if (i % 6 == 0) {
            uint32_t x[3] = {a, gen_any(&s), gen_any(&s)}, y[3] = {b, gen_any(&s), gen_any(&s)};
            got = gc_ps2_dot3(x, y);
            want = ref_madd(ref_madd(ref_mul(x[0], y[0]), x[1], y[1]), x[2], y[2]);
            d.checked++;
            if (got != want)
                mismatch(&d, x[0], x[1], x[2], got, want);
        }
    }
    finish(&t);
    finish(&m);
    finish(&n);
    finish(&d);
}

/* Every DIV.S result over 1M operand pairs is the truncated quotient or the
 * next pattern up, and exact quotients come out exact. */
Test(ps2fpu_diff, div_bounds)
{
    uint64_t s = 0xd1f;
    tally t = {"div bounds", 0, 0};
    long above = 0;
    for (long i = 0; i < 1000000; i++) {
        uint32_t a = gen_any(&s), b = rng_below(&s, 2) ? gen_partner(&s, a) : gen_any(&s);
        if (i % 16 == 0) /* exact quotients: a = b * small power-of-two-ish multiple */
            a = gc_ps2_mul(b, make(rng_below(&s, 2), 120 + rng_below(&s, 16),
                                   (uint32_t)(rng_below(&s, 64) << 17)));
        uint32_t got = gc_ps2_div(a, b), trunc = ref_div_trunc(a, b);
        t.checked++;
        if (!fdiv_in_bounds(got, trunc, ref_div_exact(a, b, trunc)))
            mismatch(&t, a, b, 0, got, trunc);
        above += got != trunc;
    }
    finish(&t);
    /* The unit is not a truncating divider: a good share lands one above. */
    cr_assert(above > t.checked / 10 && above < t.checked / 2, "%ld of %ld above", above,
              t.checked);
}

Test(ps2fpu_diff, sqrt_bounds)
{
    uint64_t s = 0x5c27;
    tally t = {"sqrt bounds", 0, 0};
    long above = 0;
    for (long i = 0; i < 1000000; i++) {
        uint32_t a = gen_any(&s);
        if (i % 16 == 0) { /* perfect squares */
            uint32_t r = make(0, 64 + rng_below(&s, 128), (uint32_t)(rng_below(&s, 4096) << 11));
            a = gc_ps2_mul(r, r);
        }
        int exact;
        uint32_t got = gc_ps2_sqrt(a), trunc = ref_sqrt_trunc(a, &exact);
        t.checked++;
        if (!fdiv_in_bounds(got, trunc, exact))
            mismatch(&t, a, 0, 0, got, trunc);
        above += got != trunc;
    }
    finish(&t);
    cr_assert(above > t.checked / 10 && above < t.checked / 2, "%ld of %ld above", above,
              t.checked);
}

/* The exact bits of DIV.S, SQRT.S and RSQRT.S against the gate-level model. */
Test(ps2fpu_diff, fdiv_gate_model)
{
    uint64_t s = 0x6a7e;
    tally d = {"div", 0, 0}, q = {"sqrt", 0, 0}, r = {"rsqrt", 0, 0};
    for (long i = 0; i < 120000; i++) {
        uint32_t a = gen_any(&s), b = rng_below(&s, 2) ? gen_partner(&s, a) : gen_any(&s);
        uint32_t got = gc_ps2_div(a, b), want = gate_div(a, b);
        d.checked++;
        if (got != want)
            mismatch(&d, a, b, 0, got, want);
        got = gc_ps2_sqrt(a);
        want = gate_sqrt(a);
        q.checked++;
        if (got != want)
            mismatch(&q, a, 0, 0, got, want);
        if (i % 3 == 0) {
            got = gc_ps2_rsqrt(a, b);
            want = gate_rsqrt(a, b);
            r.checked++;
            if (got != want)
                mismatch(&r, a, b, 0, got, want);
        }
    }
    finish(&d);
    finish(&q);
    finish(&r);
    /* The gate model itself reproduces the console rows it can be given. */
    cr_assert_eq(gate_div(0x3f800000, 0x40400000), 0x3eaaaaab);
    cr_assert_eq(gate_div(0x3f800000, 0x3fffffff), 0x3f000001);
    cr_assert_eq(gate_sqrt(0x7fffffff), 0x5fb504f3);
    cr_assert_eq(gate_rsqrt(0x7fffffff, 0x7fffffff), 0x5fb504f2);
    cr_assert_eq(gate_rsqrt(0x40400000, 0x40400000), 0x3fddb3d7);
}

Test(ps2fpu_diff, conversions)
{
    uint64_t s = 0xc0417;
    static const unsigned fracs[] = {0, 4, 12, 15};
    tally it = {"itof", 0, 0}, ft = {"ftoi", 0, 0};
    for (long i = 0; i < 1500000; i++) {
        unsigned frac = fracs[rng_below(&s, 4)];
        int32_t v;
        switch (rng_below(&s, 4)) {
        case 0:
            v = (int32_t)(uint32_t)rng_next(&s);
            break;
        case 1: { /* +-2^k, +-(2^k +- 1) */
            uint32_t p = 1u << rng_below(&s, 31);
            int32_t w = (int32_t)(p + rng_below(&s, 3)) - 1;
            v = rng_below(&s, 2) ? -w : w;
            break;
        }
        case 2:
            v = (int32_t)rng_below(&s, 20000) - 10000;
            break;
        default:
            v = rng_below(&s, 2) ? INT32_MIN + (int32_t)rng_below(&s, 3)
                                 : INT32_MAX - (int32_t)rng_below(&s, 3);
        }
        /* itof: v / 2^frac, truncated */
        uint32_t got = gc_ps2_itof(v, frac);
        uint32_t want =
            v == 0 ? 0 : ref_pattern(v < 0, v < 0 ? 0u - (uint32_t)v : (uint32_t)v, 1, -(int)frac);
        it.checked++;
        if (got != want)
            mismatch(&it, (uint32_t)v, frac, 0, got, want);
        /* ftoi: a * 2^frac toward zero, saturating at 2^31 */
        uint32_t a = gen_any(&s);
        ref_val va = ref_value(a);
        int64_t w;
        int shift = va.e + (int)frac;
        if (va.m == 0)
            w = 0;
        else if (shift >= 0 && bitlen128(va.m) + shift > 31)
            w = va.neg ? INT32_MIN : INT32_MAX;
        else {
            uint64_t mag = shift >= 0 ? va.m << shift : (shift > -64 ? va.m >> -shift : 0);
            w = va.neg ? -(int64_t)mag : (int64_t)mag;
        }
        int32_t goti = gc_ps2_ftoi(a, frac);
        ft.checked++;
        if ((int64_t)goti != w)
            mismatch(&ft, a, frac, 0, (uint32_t)goti, (uint32_t)w);
    }
    finish(&it);
    finish(&ft);
}

Test(ps2fpu_diff, max_min_clamp)
{
    uint64_t s = 0x3a3;
    tally t = {"max/min", 0, 0}, c = {"clamp", 0, 0};
    for (long i = 0; i < 1500000; i++) {
        uint32_t a = gen_any(&s), b = rng_below(&s, 4) ? gen_partner(&s, a) : a ^ SIGNBIT;
        uint32_t hi = sm_value(a) >= sm_value(b) ? a : b, lo = hi == a ? b : a;
        t.checked++;
        if (gc_ps2_max(a, b) != hi || gc_ps2_min(a, b) != lo)
            mismatch(&t, a, b, 0, gc_ps2_max(a, b), hi);
        uint32_t x = gen_partner(&s, a);
        uint32_t want = sm_value(x) < sm_value(lo) ? lo : (sm_value(x) > sm_value(hi) ? hi : x);
        c.checked++;
        if (gc_ps2_clamp(x, lo, hi) != want)
            mismatch(&c, x, lo, hi, gc_ps2_clamp(x, lo, hi), want);
    }
    finish(&t);
    finish(&c);
}

/* from_ratio against the same exact reference over random 32-bit ratios. */
Test(ps2fpu_diff, from_ratio)
{
    uint64_t s = 0x4a710;
    tally t = {"from_ratio", 0, 0};
    for (long i = 0; i < 1000000; i++) {
        int32_t n = (int32_t)(uint32_t)rng_next(&s), d = (int32_t)(uint32_t)rng_next(&s);
        if (i % 4 == 0)
            n >>= rng_below(&s, 31);
        if (i % 4 == 1)
            d >>= rng_below(&s, 31);
        uint32_t want;
        int neg = (n < 0) != (d < 0);
        if (n == 0)
            want = 0;
        else if (d == 0)
            want = (neg ? SIGNBIT : 0) | 0x7fffffffu;
        else
            want = ref_pattern(neg, n < 0 ? 0u - (uint32_t)n : (uint32_t)n,
                               d < 0 ? 0u - (uint32_t)d : (uint32_t)d, 0);
        uint32_t got = gc_ps2_from_ratio(n, d);
        t.checked++;
        if (got != want)
            mismatch(&t, (uint32_t)n, (uint32_t)d, 0, got, want);
    }
    finish(&t);
}

/* ---- the truncating divide unit (issue 12's rule, gc_ps2_*_trunc) ----------- */

Test(ps2fpu_rules, truncating_fdiv_variant)
{
    /* 1/3 = 0.0101...b: the 24 significant bits are 1.0101...01 * 2^-2, the
     * rest (0101...) is dropped: 0x3eaaaaaa, one below IEEE's (and the
     * console's) 0x3eaaaaab. */
    cr_assert_eq(gc_ps2_div_trunc(GC_PS2_ONE, 0x40400000), 0x3eaaaaaa);
    cr_assert_eq(gc_ps2_div(GC_PS2_ONE, 0x40400000), 0x3eaaaaab);
    /* 1/5 truncates to ...cc; 1/(2 - 2^-23) = 0.5 (1 + 2^-24 + ...) to
     * 0x3f000000, where the console gives 0x3f000001. */
    cr_assert_eq(gc_ps2_div_trunc(GC_PS2_ONE, 0x40a00000), 0x3e4ccccc);
    cr_assert_eq(gc_ps2_div_trunc(GC_PS2_ONE, 0x3fffffff), 0x3f000000);
    /* Exact quotients stay exact; the special cases are the FDIV ones. */
    cr_assert_eq(gc_ps2_div_trunc(0x40c00000, 0x40800000), 0x3fc00000);
    cr_assert_eq(gc_ps2_div_trunc(GC_PS2_ONE, 0x00000000), GC_PS2_MAX);
    cr_assert_eq(gc_ps2_div_trunc(0x80000000, 0x00000000), GC_PS2_MIN);
    cr_assert_eq(gc_ps2_div_trunc(0x00000000, 0xbf800000), 0x80000000);
    cr_assert_eq(gc_ps2_div_trunc(GC_PS2_ONE, GC_PS2_MAX), 0x00000000); /* 2^-128.x: flushed */
    /* sqrt(MAX) = 1.41421352 * 2^64 lies between ...f2 and ...f3: truncated
     * ...f2 (the console: ...f3). sqrt(2) = 1.41421356 -> 0x3fb504f3 (the
     * next pattern, ...f4, is 1.41421366, above). sqrt(25) = 5 exactly. */
    cr_assert_eq(gc_ps2_sqrt_trunc(GC_PS2_MAX), 0x5fb504f2);
    cr_assert_eq(gc_ps2_sqrt_trunc(0x40000000), 0x3fb504f3);
    cr_assert_eq(gc_ps2_sqrt_trunc(0x41c80000), 0x40a00000);
    cr_assert_eq(gc_ps2_sqrt_trunc(0xc1c80000), 0x40a00000); /* |a| */
    cr_assert_eq(gc_ps2_sqrt_trunc(0x80000000), 0x00000000);
    /* rsqrt = sqrt, then a truncating divide: 1/sqrt(3). sqrt(3) =
     * 1.7320508 truncates to 0x3fddb3d7; 1 / that = 0.57735029, which
     * truncates to 0x3f13cd3a. */
    cr_assert_eq(gc_ps2_sqrt_trunc(0x40400000), 0x3fddb3d7);
    cr_assert_eq(gc_ps2_rsqrt_trunc(GC_PS2_ONE, 0x40400000),
                 gc_ps2_div_trunc(GC_PS2_ONE, gc_ps2_sqrt_trunc(0x40400000)));
    cr_assert_eq(gc_ps2_rsqrt_trunc(GC_PS2_ONE, 0x40400000), 0x3f13cd3a);
    /* 1/sqrt(25) = 1/5: the truncated 0x3e4ccccc, not the console's ...cd. */
    cr_assert_eq(gc_ps2_rsqrt_trunc(GC_PS2_ONE, 0x41c80000), 0x3e4ccccc);
    cr_assert_eq(gc_ps2_rsqrt_trunc(0x80000000, 0x00000000), GC_PS2_MIN);
    /* The model selector names the two. */
    cr_assert_eq(gc_ps2_div_m(GC_PS2_FDIV_TRUNCATE, GC_PS2_ONE, 0x40400000), 0x3eaaaaaa);
    cr_assert_eq(gc_ps2_div_m(GC_PS2_FDIV_CONSOLE, GC_PS2_ONE, 0x40400000), 0x3eaaaaab);
    cr_assert_eq(gc_ps2_sqrt_m(GC_PS2_FDIV_TRUNCATE, GC_PS2_MAX), 0x5fb504f2);
    cr_assert_eq(gc_ps2_sqrt_m(GC_PS2_FDIV_CONSOLE, GC_PS2_MAX), 0x5fb504f3);
    cr_assert_eq(gc_ps2_rsqrt_m(GC_PS2_FDIV_TRUNCATE, GC_PS2_ONE, 0x41c80000), 0x3e4ccccc);
    cr_assert_eq(gc_ps2_rsqrt_m(GC_PS2_FDIV_CONSOLE, GC_PS2_ONE, 0x41c80000), 0x3e4ccccd);
}

/* The truncating variants against the exact references: bit-exact, over 1M
 * operands each (random, edge patterns, partners at chosen gaps, exact
 * quotients and perfect squares), and RSQRT as the two exact steps. */
Test(ps2fpu_diff, truncating_fdiv)
{
    uint64_t s = 0x7c0a;
    tally d = {"div_trunc", 0, 0}, q = {"sqrt_trunc", 0, 0}, r = {"rsqrt_trunc", 0, 0};
    long below_console = 0;
    for (long i = 0; i < 1000000; i++) {
        uint32_t a = gen_any(&s), b = rng_below(&s, 2) ? gen_partner(&s, a) : gen_any(&s);
        if (i % 16 == 0)
            a = gc_ps2_mul(b, make(rng_below(&s, 2), 120 + rng_below(&s, 16),
                                   (uint32_t)(rng_below(&s, 64) << 17)));
        uint32_t want = ref_div_trunc(a, b), got = gc_ps2_div_trunc(a, b);
        d.checked++;
        if (got != want)
            mismatch(&d, a, b, 0, got, want);
        below_console += got != gc_ps2_div(a, b);
        uint32_t c = gen_any(&s);
        if (i % 16 == 1) {
            uint32_t rt = make(0, 64 + rng_below(&s, 128), (uint32_t)(rng_below(&s, 4096) << 11));
            c = gc_ps2_mul(rt, rt);
        }
        int exact;
        uint32_t wq = ref_sqrt_trunc(c, &exact);
        q.checked++;
        if (gc_ps2_sqrt_trunc(c) != wq)
            mismatch(&q, c, 0, 0, gc_ps2_sqrt_trunc(c), wq);
        if (i % 4 == 0) {
            uint32_t wr = ref_div_trunc(a, wq);
            r.checked++;
            if (gc_ps2_rsqrt_trunc(a, c) != wr)
                mismatch(&r, a, c, 0, gc_ps2_rsqrt_trunc(a, c), wr);
        }
    }
    finish(&d);
    finish(&q);
    finish(&r);
    /* The two models differ on a good share of quotients (the console's
     * 38% above-truncation share, less the exact ones). */
    cr_assert(below_console > d.checked / 10, "%ld of %ld differ", below_console, d.checked);
}

/* ==== 4. the fast forms the lighting pass uses ===================================== */

/* gc_ps2i_gs_colour is FTOI0(MUL.S(CLAMP(v, +0, 1.0), 128.0)) in closed form.
 * Its result depends on the sign, the exponent and at most the top 7
 * fraction bits, so every sign and exponent with every value of the top 10
 * fraction bits and four patterns of the low 13 covers it (2M patterns),
 * against the composed exported operations; then hand-derived rows. */
Test(ps2fpu_rules, gs_colour_closed_form)
{
    static const uint32_t low[] = {0, 1, 0x1555, 0x1fff};
    tally t = {"gs_colour", 0, 0};
    for (uint32_t sign = 0; sign < 2; sign++)
        for (uint32_t e = 0; e < 256; e++)
            for (uint32_t top = 0; top < 1024; top++)
                for (int k = 0; k < 4; k++) {
                    uint32_t v = make(sign, e, top << 13 | low[k]);
                    uint32_t want = (uint32_t)gc_ps2_ftoi0(
                        gc_ps2_mul(gc_ps2_clamp(v, 0, GC_PS2_ONE), 0x43000000u));
                    t.checked++;
                    if (gc_ps2i_gs_colour(v) != want)
                        mismatch(&t, v, 0, 0, gc_ps2i_gs_colour(v), want);
                }
    finish(&t);
    cr_assert_eq(gc_ps2i_gs_colour(GC_PS2_ONE), 0x80);
    cr_assert_eq(gc_ps2i_gs_colour(GC_PS2_MAX), 0x80); /* exponent 255 is a number */
    cr_assert_eq(gc_ps2i_gs_colour(0x3f7fffff), 0x7f); /* 128 - 2^-17 */
    cr_assert_eq(gc_ps2i_gs_colour(0x3c000000), 1);    /* 1/128 */
    cr_assert_eq(gc_ps2i_gs_colour(0x3bffffff), 0);    /* just below 1/128 */
    cr_assert_eq(gc_ps2i_gs_colour(0x3f000000), 0x40); /* 0.5 */
    cr_assert_eq(gc_ps2i_gs_colour(SIGNBIT), 0);       /* -0 */
    cr_assert_eq(gc_ps2i_gs_colour(0xbf800000), 0);    /* -1 */
    cr_assert_eq(gc_ps2i_gs_colour(0x00400000), 0);    /* exponent 0: zero */
}

#if GC_PS2V
/* Four pairs through gc_ps2v_add, each lane checked against want[]. */
static void check_lanes(tally *t, const uint32_t a[4], const uint32_t b[4], const uint32_t want[4])
{
    uint32_t got[4];
    __m128i r = gc_ps2v_add(_mm_loadu_si128((const __m128i *)(const void *)a),
                            _mm_loadu_si128((const __m128i *)(const void *)b));
    _mm_storeu_si128((__m128i *)(void *)got, r);
    for (int k = 0; k < 4; k++) {
        t->checked++;
        if (got[k] != want[k])
            mismatch(t, a[k], b[k], (uint32_t)k, got[k], want[k]);
    }
}

/* gc_ps2v_add against the scalar ADD.S for every pair of (sign, exponent)
 * with every pair of the edge fractions (12.8M pairs: every gap, the
 * guard-bit cases, the exponent clamps, zeros of either sign with stray
 * fraction bits, equal magnitudes), the lanes holding different pairs. */
Test(ps2fpu_sse2, add_every_exponent_pair)
{
    tally t = {"sse2 add", 0, 0};
    uint32_t a[4], b[4], want[4];
    int n = 0;
    for (uint32_t sa = 0; sa < 2; sa++)
        for (uint32_t ea = 0; ea < 256; ea++)
            for (uint32_t sb = 0; sb < 2; sb++)
                for (uint32_t eb = 0; eb < 256; eb++)
                    for (size_t fa = 0; fa < 7; fa++)
                        for (size_t fb = 0; fb < 7; fb++) {
                            a[n] = make(sa, ea, edge_fractions[fa]);
                            b[n] = make(sb, eb, edge_fractions[fb]);
                            want[n] = gc_ps2_add(a[n], b[n]);
                            if (++n == 4) {
                                check_lanes(&t, a, b, want);
                                n = 0;
                            }
                        }
    cr_assert_eq(n, 0);
    finish(&t);
}

/* gc_ps2v_mul and gc_ps2v_max against MUL.S (with its overflow flag) and
 * MAX.S for every pair of (sign, exponent) with every pair of the edge
 * fractions, the lanes holding different pairs; then gc_ps2v_mul against
 * the exact reference over 2M random pairs. */
Test(ps2fpu_sse2, mul_max_every_exponent_pair)
{
    tally t = {"sse2 mul", 0, 0}, o = {"sse2 mul overflow", 0, 0}, m = {"sse2 max", 0, 0};
    uint32_t a[4], b[4];
    int n = 0;
    for (uint32_t sa = 0; sa < 2; sa++)
        for (uint32_t ea = 0; ea < 256; ea++)
            for (uint32_t sb = 0; sb < 2; sb++)
                for (uint32_t eb = 0; eb < 256; eb++)
                    for (size_t fa = 0; fa < 7; fa++)
                        for (size_t fb = 0; fb < 7; fb++) {
                            a[n] = make(sa, ea, edge_fractions[fa]);
                            b[n] = make(sb, eb, edge_fractions[fb]);
                            if (++n < 4)
                                continue;
                            n = 0;
                            __m128i va = _mm_loadu_si128((const __m128i *)(const void *)a);
                            __m128i vb = _mm_loadu_si128((const __m128i *)(const void *)b);
                            __m128i vo;
                            uint32_t pr[4], ov[4], mx[4];
                            _mm_storeu_si128((__m128i *)(void *)pr, gc_ps2v_mul(va, vb, &vo));
                            _mm_storeu_si128((__m128i *)(void *)ov, vo);
                            _mm_storeu_si128((__m128i *)(void *)mx, gc_ps2v_max(va, vb));
                            for (int k = 0; k < 4; k++) {
                                int want_ovf;
                                uint32_t want = gc_ps2i_mul_ovf(a[k], b[k], &want_ovf);
                                t.checked++, o.checked++, m.checked++;
                                if (pr[k] != want)
                                    mismatch(&t, a[k], b[k], (uint32_t)k, pr[k], want);
                                if (ov[k] != (want_ovf ? 0xffffffffu : 0u))
                                    mismatch(&o, a[k], b[k], (uint32_t)k, ov[k],
                                             (uint32_t)want_ovf);
                                if (mx[k] != gc_ps2_max(a[k], b[k]))
                                    mismatch(&m, a[k], b[k], (uint32_t)k, mx[k],
                                             gc_ps2_max(a[k], b[k]));
                            }
                        }
    finish(&t);
    finish(&o);
    finish(&m);
    uint64_t s = 0x3a1e;
    tally r = {"sse2 mul (random)", 0, 0};
    for (long i = 0; i < 500000; i++) {
        uint32_t want[4], got[4], ov[4];
        for (int k = 0; k < 4; k++) {
            a[k] = gen_any(&s);
            b[k] = rng_below(&s, 2) ? gen_any(&s) : gen_partner(&s, 0x3f800000);
            want[k] = ref_mul(a[k], b[k]);
        }
        __m128i vo;
        _mm_storeu_si128((__m128i *)(void *)got,
                         gc_ps2v_mul(_mm_loadu_si128((const __m128i *)(const void *)a),
                                     _mm_loadu_si128((const __m128i *)(const void *)b), &vo));
        _mm_storeu_si128((__m128i *)(void *)ov, vo);
        for (int k = 0; k < 4; k++) {
            r.checked++;
            if (got[k] != want[k] || (ov[k] != 0) != ref_mul_overflows(a[k], b[k]))
                mismatch(&r, a[k], b[k], ov[k], got[k], want[k]);
        }
    }
    finish(&r);
}

/* gc_ps2v_add against the exact reference (not the scalar body) over 2M
 * random and edge pairs at chosen exponent gaps, and over the operands the
 * lighting pass adds: a base colour (k * 8 / 128) and a product of either
 * sign, then that sum and a second product. */
Test(ps2fpu_sse2, add_against_reference)
{
    uint64_t s = 0x55e2;
    tally t = {"sse2 add (random)", 0, 0}, l = {"sse2 add (lighting)", 0, 0};
    uint32_t a[4], b[4], want[4];
    for (long i = 0; i < 500000; i++) {
        for (int k = 0; k < 4; k++) {
            a[k] = gen_any(&s);
            b[k] = gen_partner(&s, a[k]);
            if (rng_below(&s, 2)) {
                uint32_t x = a[k];
                a[k] = b[k], b[k] = x;
            }
            want[k] = ref_add(a[k], b[k]);
        }
        check_lanes(&t, a, b, want);
        for (int k = 0; k < 4; k++) {
            a[k] = gc_ps2_itof((int32_t)(rng_below(&s, 32) << 3), 7);
            b[k] = make(rng_below(&s, 2), 100 + rng_below(&s, 30), (uint32_t)rng_next(&s));
            want[k] = ref_add(a[k], b[k]);
        }
        check_lanes(&l, a, b, want);
        for (int k = 0; k < 4; k++) {
            a[k] = want[k];
            b[k] = make(rng_below(&s, 2), 100 + rng_below(&s, 30), (uint32_t)rng_next(&s));
            want[k] = ref_add(a[k], b[k]);
        }
        check_lanes(&l, a, b, want);
    }
    finish(&t);
    finish(&l);
}
#endif
