/* SPDX-License-Identifier: MIT */
/* The PS2 float model (gc_ps2fpu.h, docs/ps2-float.md): EE FPU arithmetic on
 * raw bit patterns, integer operations only. */
#include <stdint.h>

/* Nothing below may use host floating point: a float or double would make
 * the results depend on the host's rounding and the compiler's choices. The
 * inline operations of ps2fpu_core.h are included after the poison, so the
 * rule covers them too. */
#pragma GCC poison float double

#include "gc_ps2fpu.h"
#include "ps2fpu_core.h"

#define FRAC_MASK   GC_PS2I_FRAC_MASK
#define HIDDEN      GC_PS2I_HIDDEN
#define exp_of      gc_ps2i_exp
#define sig_of      gc_ps2i_sig
#define top_bit32   gc_ps2i_top_bit32
#define pack_result gc_ps2i_pack_result

/* The short operations: one body each, in ps2fpu_core.h. */
uint32_t gc_ps2_add(uint32_t a, uint32_t b)
{
    return gc_ps2i_add(a, b);
}

uint32_t gc_ps2_sub(uint32_t a, uint32_t b)
{
    return gc_ps2i_add(a, b ^ GC_PS2_SIGN);
}

uint32_t gc_ps2_mul(uint32_t a, uint32_t b)
{
    return gc_ps2i_mul(a, b);
}

uint32_t gc_ps2_madd(uint32_t acc, uint32_t a, uint32_t b)
{
    return gc_ps2i_madd(acc, a, b);
}

uint32_t gc_ps2_msub(uint32_t acc, uint32_t a, uint32_t b)
{
    return gc_ps2i_msub(acc, a, b);
}

uint32_t gc_ps2_dot3(const uint32_t a[3], const uint32_t b[3])
{
    return gc_ps2i_dot3(a, b);
}

/* ---- The FDIV unit: DIV.S and SQRT.S ------------------------------------
 *
 * Both are the same radix-2 SRT recurrence with quotient digits -1, 0, +1.
 * The partial remainder is kept in carry-save form, two 32-bit words whose
 * sum is the remainder, with 1.0 at bit 25. Each step adds the digit's
 * multiple of the divisor (or, for the square root, of the partial root)
 * through a 3:2 carry-save adder, chooses the next digit from a cheap
 * estimate of the new remainder, and doubles both words. After 25 digits the
 * quotient is used as it stands: no final correction of the last digit, no
 * rounding. That is why a result is either the truncated exact value or one
 * unit above it, depending on the sign the last remainder happened to take.
 *
 * The digit estimate looks at bits 24 and up of the two words, added exactly
 * (an 8-bit two's-complement value h), and at bit 23 of the two words ORed,
 * not added: +1 when h >= 1 or (h == 0 and that bit is set), -1 when h <= -2,
 * otherwise 0. In remainder units this is "at least 1/4 -> +1, below -1/2 ->
 * -1". A 0 digit still passes the words through the adder (adding nothing),
 * which redistributes bits between the two words, but the next digit is
 * chosen from the words as they were before that pass. */

/* One 3:2 carry-save addition of m into (s, c). */
static inline void csa_add(uint32_t *s, uint32_t *c, uint32_t m)
{
    uint32_t x = *s, y = *c;
    *s = x ^ y ^ m;
    *c = ((x & y) | (x & m) | (y & m)) << 1;
}

static inline int srt_digit(uint32_t s, uint32_t c)
{
    uint32_t hi = ((s >> 24) + (c >> 24)) & 0xffu;
    int h = (int)hi - (int)((hi & 0x80u) << 1);
    int bit23 = (int)(((s | c) >> 23) & 1u);
    /* +1 if h >= 1 or (h == 0 and bit 23), -1 if h <= -2, else 0; written
     * without branches, the digits being unpredictable. */
    return ((h >= 1) | ((h == 0) & bit23)) - (h <= -2);
}

/* One recurrence step: subtract digit * m from the remainder (s, c), pick the
 * next digit, double the remainder. Returns the next digit. For digit +1 the
 * adder takes ~m and a carry-in at bit 0 (c's bit 0 is always clear here). */
static inline int srt_step(uint32_t *s, uint32_t *c, int digit, uint32_t m)
{
    uint32_t plus = 0u - (uint32_t)(digit > 0), nonzero = 0u - (uint32_t)(digit != 0);
    int before = srt_digit(*s, *c);
    *c |= plus & 1u;
    csa_add(s, c, (m ^ plus) & nonzero);
    int after = srt_digit(*s, *c);
    *s <<= 1;
    *c <<= 1;
    return digit != 0 ? after : before;
}

/* x / d for 24-bit significands: 25 digits, weights 2^24 .. 2^0 for the
 * quotient x/d (which lies in (1/2, 2)). */
static inline uint32_t srt_divide(uint32_t x, uint32_t d)
{
    uint32_t s = x << 2, c = 0, m = d << 2, q = 0;
    int digit = 1; /* the first digit is always 1: x/d > 1/2 */
    for (int i = 0; i < 25; i++) {
        q = (q << 1) + (uint32_t)digit; /* modulo 2^32; the final q is positive */
        digit = srt_step(&s, &c, digit, m);
    }
    return q;
}

/* The root of r / 2^24, for r = significand << 1 or << 2 (the radicand in
 * [1, 4); the remainder starts from half of it, 1.0 at bit 25): 25 digits,
 * weights 2^25 .. 2^1 (the root is in [1, 2)). Each digit subtracts digit *
 * (root so far + digit * half the new digit's weight), the square-root
 * counterpart of the divisor multiple. */
static inline uint32_t srt_sqrt(uint32_t r)
{
    uint32_t s = r, c = 0, q = 0;
    int digit = 1; /* the root is at least 1 */
    for (int i = 0; i < 25; i++) {
        uint32_t half = 1u << (24 - i);
        uint32_t m = q;
        if (digit > 0) {
            m = q + half;
            q += half << 1;
        } else if (digit < 0) {
            m = q - half;
            q -= half << 1;
        }
        digit = srt_step(&s, &c, digit, m);
    }
    return q;
}

uint32_t gc_ps2_div(uint32_t a, uint32_t b)
{
    uint32_t sign = (a ^ b) & GC_PS2_SIGN, ea = exp_of(a), eb = exp_of(b);
    if (eb == 0)
        return sign | GC_PS2_MAX; /* x / 0 and 0 / 0 */
    if (ea == 0)
        return sign;
    uint32_t q = srt_divide(sig_of(a), sig_of(b));
    int32_t e = (int32_t)ea - (int32_t)eb + 126;
    if (q >> 24) { /* quotient >= 1: 25 significant digits, keep 24 */
        q >>= 1;
        e++;
    }
    return pack_result(sign, e, q);
}

uint32_t gc_ps2_sqrt(uint32_t a)
{
    uint32_t e = exp_of(a);
    if (e == 0)
        return 0; /* sqrt(+-0) is +0 */
    /* An even biased exponent is an odd power of two: fold one factor 2 into
     * the radicand so the exponent halves exactly. */
    uint32_t r = sig_of(a) << 1;
    if ((e & 1u) == 0)
        r <<= 1;
    uint32_t q = srt_sqrt(r);
    return ((e + 127) >> 1) << 23 | ((q >> 2) & FRAC_MASK);
}

uint32_t gc_ps2_rsqrt(uint32_t fs, uint32_t ft)
{
    return gc_ps2_div(fs, gc_ps2_sqrt(ft));
}

/* ---- The truncating divide unit (issue 12's rule, not the console's) ---- */

uint32_t gc_ps2_div_trunc(uint32_t a, uint32_t b)
{
    uint32_t sign = (a ^ b) & GC_PS2_SIGN, ea = exp_of(a), eb = exp_of(b);
    if (eb == 0)
        return sign | GC_PS2_MAX;
    if (ea == 0)
        return sign;
    /* floor(sa * 2^24 / sb) lies in (2^23, 2^25): the same scaling as the
     * 25-digit SRT quotient, but exact and truncated. */
    uint32_t q = (uint32_t)(((uint64_t)sig_of(a) << 24) / sig_of(b));
    int32_t e = (int32_t)ea - (int32_t)eb + 126;
    if (q >> 24) {
        q >>= 1; /* floor(floor(x) / 2) == floor(x / 2) */
        e++;
    }
    return pack_result(sign, e, q);
}

uint32_t gc_ps2_sqrt_trunc(uint32_t a)
{
    uint32_t e = exp_of(a);
    if (e == 0)
        return 0;
    uint32_t r = sig_of(a) << 1; /* radicand / 2^24 in [1, 2), or [2, 4) */
    if ((e & 1u) == 0)
        r <<= 1;
    /* The root times 2^23 is sqrt(r * 2^22): its integer part, bit by bit
     * (the result lies in [2^23, 2^24)). */
    uint64_t n = (uint64_t)r << 22, q = 0;
    for (int bit = 23; bit >= 0; bit--) {
        uint64_t t = q | (uint64_t)1 << bit;
        if (t * t <= n)
            q = t;
    }
    return ((e + 127) >> 1) << 23 | ((uint32_t)q & FRAC_MASK);
}

uint32_t gc_ps2_rsqrt_trunc(uint32_t fs, uint32_t ft)
{
    return gc_ps2_div_trunc(fs, gc_ps2_sqrt_trunc(ft));
}

uint32_t gc_ps2_div_m(gc_ps2_fdiv_model m, uint32_t a, uint32_t b)
{
    return m == GC_PS2_FDIV_TRUNCATE ? gc_ps2_div_trunc(a, b) : gc_ps2_div(a, b);
}

uint32_t gc_ps2_sqrt_m(gc_ps2_fdiv_model m, uint32_t a)
{
    return m == GC_PS2_FDIV_TRUNCATE ? gc_ps2_sqrt_trunc(a) : gc_ps2_sqrt(a);
}

uint32_t gc_ps2_rsqrt_m(gc_ps2_fdiv_model m, uint32_t fs, uint32_t ft)
{
    return m == GC_PS2_FDIV_TRUNCATE ? gc_ps2_rsqrt_trunc(fs, ft) : gc_ps2_rsqrt(fs, ft);
}

uint32_t gc_ps2_max(uint32_t a, uint32_t b)
{
    return gc_ps2i_max(a, b);
}

uint32_t gc_ps2_min(uint32_t a, uint32_t b)
{
    return gc_ps2i_min(a, b);
}

uint32_t gc_ps2_clamp(uint32_t x, uint32_t lo, uint32_t hi)
{
    return gc_ps2i_clamp(x, lo, hi);
}

uint32_t gc_ps2_neg(uint32_t a)
{
    return a ^ GC_PS2_SIGN;
}

uint32_t gc_ps2_abs(uint32_t a)
{
    return a & GC_PS2_MAX;
}

uint32_t gc_ps2_itof(int32_t v, unsigned frac_bits)
{
    return gc_ps2i_itof(v, frac_bits);
}

uint32_t gc_ps2_itof12(int32_t v)
{
    return gc_ps2i_itof(v, 12);
}

int32_t gc_ps2_ftoi(uint32_t a, unsigned frac_bits)
{
    return gc_ps2i_ftoi(a, frac_bits);
}

int32_t gc_ps2_ftoi0(uint32_t a)
{
    return gc_ps2i_ftoi(a, 0);
}

uint32_t gc_ps2_pack(unsigned sign, unsigned exponent, uint32_t fraction)
{
    return (uint32_t)(sign & 1u) << 31 | (uint32_t)(exponent & 0xffu) << 23 |
           (fraction & FRAC_MASK);
}

uint32_t gc_ps2_from_ratio(int32_t num, int32_t den)
{
    uint32_t sign = ((num < 0) != (den < 0)) ? GC_PS2_SIGN : 0;
    if (num == 0)
        return 0;
    if (den == 0)
        return sign | GC_PS2_MAX;
    uint64_t n = num < 0 ? 0u - (uint32_t)num : (uint32_t)num;
    uint64_t d = den < 0 ? 0u - (uint32_t)den : (uint32_t)den;
    /* Scale so that d <= n < 2d (both stay below 2^33), counting the power
     * of two; then 24 bits of restoring long division, truncating. */
    int k = 0;
    while (n < d) {
        n <<= 1;
        k--;
    }
    while (n >= d << 1) {
        d <<= 1;
        k++;
    }
    uint32_t q = 0;
    for (int i = 0; i < 24; i++) {
        q <<= 1;
        if (n >= d) {
            n -= d;
            q |= 1u;
        }
        n <<= 1;
    }
    return pack_result(sign, 127 + k, q);
}

int gc_ps2_is_zero(uint32_t a)
{
    return exp_of(a) == 0;
}
