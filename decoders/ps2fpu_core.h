/* SPDX-License-Identifier: MIT */
/* The PS2 float model's short operations (ADD.S, MUL.S, MADD.S, the dot
 * product, MAX.S/MIN.S, ITOF, FTOI) as static inline functions, for the two
 * users that must not pay a call per operation: ps2fpu.c, whose public
 * gc_ps2_* functions (gc_ps2fpu.h) are these bodies and nothing else, and the
 * tfrag lighting pass, which makes about 30 of them per vertex (issue 12's
 * budget, docs/performance.md "Lighting pass"), and the object lighting of
 * harness/scene/render.c (tie, shrub and moby vertices). One body per operation, so
 * the inlined and the exported results are the same bits by construction;
 * the rules are in docs/ps2-float.md.
 *
 * Private to the library and the renderer (not installed). Integer arithmetic only: no host
 * float or double may appear here (ps2fpu.c includes this file after its
 * `#pragma GCC poison float double`, so a use does not compile). */
#ifndef GC_PS2FPU_CORE_H
#define GC_PS2FPU_CORE_H

#include <stdint.h>

#include "gc_ps2fpu.h"

#define GC_PS2I_FRAC_MASK 0x007fffffu
#define GC_PS2I_HIDDEN    0x00800000u

static inline uint32_t gc_ps2i_exp(uint32_t a)
{
    return (a >> 23) & 0xffu;
}

/* The 24-bit significand, hidden bit included (only for exponent != 0). */
static inline uint32_t gc_ps2i_sig(uint32_t a)
{
    return (a & GC_PS2I_FRAC_MASK) | GC_PS2I_HIDDEN;
}

static inline int gc_ps2i_top_bit32(uint32_t x) /* x != 0 */
{
    return 31 - __builtin_clz(x);
}

/* A result with biased exponent e and significand sig (hidden bit at bit 23,
 * already truncated): clamps to +-MAX above exponent 255 and flushes to +-0
 * below exponent 1. */
static inline uint32_t gc_ps2i_pack_result(uint32_t sign, int32_t e, uint32_t sig)
{
    if (e > 255)
        return sign | GC_PS2_MAX;
    if (e < 1)
        return sign;
    return sign | (uint32_t)e << 23 | (sig & GC_PS2I_FRAC_MASK);
}

/* ADD.S */
static inline uint32_t gc_ps2i_add(uint32_t a, uint32_t b)
{
    uint32_t ea = gc_ps2i_exp(a), eb = gc_ps2i_exp(b);
    if (ea == 0 || eb == 0) {
        /* A zero (any exponent-0 pattern) adds nothing: the other operand
         * comes back unchanged. Two zeros give -0 only if both are negative,
         * as on the console (-0 + +0 = +0). */
        if (ea != 0)
            return a;
        if (eb != 0)
            return b;
        return a & b & GC_PS2_SIGN;
    }
    /* Order by magnitude (exponent, then fraction: the low 31 bits compare
     * as one unsigned number) so the difference below is never negative and
     * the result takes the larger's sign. Branch-free: the order of lighting
     * operands is unpredictable. */
    uint32_t swap = 0u - (uint32_t)((a & GC_PS2_MAX) < (b & GC_PS2_MAX));
    uint32_t x = a ^ ((a ^ b) & swap), y = b ^ ((a ^ b) & swap);
    uint32_t ex = gc_ps2i_exp(x), gap = ex - gc_ps2i_exp(y);
    if (gap >= 25)
        return x;
    /* One guard bit below x's last bit: x's hidden bit sits at bit 24. The
     * shift drops every bit of y below the guard (toward zero), which is
     * what the console's aligner does before it adds. */
    uint32_t big = gc_ps2i_sig(x) << 1;
    uint32_t small = (gc_ps2i_sig(y) << 1) >> gap;
    uint32_t neg = 0u - ((x ^ y) >> 31);        /* all ones when the signs differ */
    uint32_t sum = big + ((small ^ neg) - neg); /* < 2^26, never negative */
    if (sum == 0)
        return 0; /* x - x is +0 */
    int p = gc_ps2i_top_bit32(sum);
    /* Bring the top bit to bit 23, truncating what falls off. */
    uint32_t sig = (uint32_t)(((uint64_t)sum << (63 - p)) >> 40);
    return gc_ps2i_pack_result(x & GC_PS2_SIGN, (int32_t)ex + p - 24, sig);
}

/* MUL.S, also telling whether the exponent overflowed (MADD.S needs it). */
static inline uint32_t gc_ps2i_mul_ovf(uint32_t a, uint32_t b, int *overflow)
{
    uint32_t sign = (a ^ b) & GC_PS2_SIGN, ea = gc_ps2i_exp(a), eb = gc_ps2i_exp(b);
    *overflow = 0;
    if (ea == 0 || eb == 0)
        return sign;
    uint64_t prod = (uint64_t)gc_ps2i_sig(a) * gc_ps2i_sig(b); /* 2^46 <= prod < 2^48 */
    uint32_t top = (uint32_t)(prod >> 47);                     /* product of significands >= 2 */
    int32_t e = (int32_t)(ea + eb + top) - 127;
    uint32_t sig = (uint32_t)(prod >> (23 + top));
    *overflow = e > 255;
    return gc_ps2i_pack_result(sign, e, sig);
}

static inline uint32_t gc_ps2i_mul(uint32_t a, uint32_t b)
{
    int overflow;
    return gc_ps2i_mul_ovf(a, b, &overflow);
}

static inline uint32_t gc_ps2i_madd(uint32_t acc, uint32_t a, uint32_t b)
{
    int overflow;
    uint32_t prod = gc_ps2i_mul_ovf(a, b, &overflow);
    if (overflow)
        return prod;
    return gc_ps2i_add(acc, prod);
}

static inline uint32_t gc_ps2i_msub(uint32_t acc, uint32_t a, uint32_t b)
{
    int overflow;
    uint32_t prod = gc_ps2i_mul_ovf(a, b, &overflow);
    if (overflow)
        return prod ^ GC_PS2_SIGN;
    return gc_ps2i_add(acc, prod ^ GC_PS2_SIGN);
}

/* MULA.S, MADDA.S, MADD.S: ((a0 b0 + a1 b1) + a2 b2). */
static inline uint32_t gc_ps2i_dot3(const uint32_t a[3], const uint32_t b[3])
{
    uint32_t acc = gc_ps2i_mul(a[0], b[0]);
    acc = gc_ps2i_madd(acc, a[1], b[1]);
    return gc_ps2i_madd(acc, a[2], b[2]);
}

/* Sign-magnitude order as an unsigned key: negatives below positives, -0
 * just below +0. */
static inline uint32_t gc_ps2i_order_key(uint32_t a)
{
    return (a & GC_PS2_SIGN) ? GC_PS2_MAX - (a & GC_PS2_MAX) : a | GC_PS2_SIGN;
}

static inline uint32_t gc_ps2i_max(uint32_t a, uint32_t b)
{
    return gc_ps2i_order_key(a) >= gc_ps2i_order_key(b) ? a : b;
}

static inline uint32_t gc_ps2i_min(uint32_t a, uint32_t b)
{
    return gc_ps2i_order_key(a) <= gc_ps2i_order_key(b) ? a : b;
}

static inline uint32_t gc_ps2i_clamp(uint32_t x, uint32_t lo, uint32_t hi)
{
    return gc_ps2i_min(gc_ps2i_max(x, lo), hi);
}

static inline uint32_t gc_ps2i_itof(int32_t v, unsigned frac_bits)
{
    if (v == 0)
        return 0;
    uint32_t sign = v < 0 ? GC_PS2_SIGN : 0;
    uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    int p = gc_ps2i_top_bit32(u);
    uint32_t sig = p > 23 ? u >> (p - 23) : u << (23 - p);
    /* 1 <= |v| <= 2^31 and frac_bits < 32: the exponent stays in 96..158. */
    return sign | (uint32_t)(127 + p - (int)(frac_bits & 31u)) << 23 | (sig & GC_PS2I_FRAC_MASK);
}

static inline int32_t gc_ps2i_ftoi(uint32_t a, unsigned frac_bits)
{
    uint32_t e = gc_ps2i_exp(a);
    if (e == 0)
        return 0;
    uint32_t ef = e + (frac_bits & 31u); /* the exponent of a * 2^frac_bits */
    if (ef >= 158)                       /* |a| * 2^frac_bits >= 2^31 */
        return (a & GC_PS2_SIGN) ? INT32_MIN : INT32_MAX;
    if (ef < 127) /* below 1 */
        return 0;
    uint32_t sig = gc_ps2i_sig(a);
    uint32_t mag = ef >= 150 ? sig << (ef - 150) : sig >> (150 - ef); /* < 2^31 */
    return (a & GC_PS2_SIGN) ? -(int32_t)mag : (int32_t)mag;
}

/* FTOI0(MUL.S(MIN.S(MAX.S(v, +0), 1.0), 128.0)), a colour channel on the
 * GS's 0..0x80 scale, in closed form (the lighting pass takes three a
 * vertex; the composed operations cost about 45 instructions each):
 *  - MAX.S with +0 turns every negative pattern and -0 into +0: 0;
 *  - MIN.S with 1.0 turns every pattern at or above 0x3f800000 into 1.0:
 *    128 (exponent 255 is a number, so 0x7fffffff too);
 *  - otherwise v is kept and MUL.S by 128 is exact (the fraction kept, the
 *    exponent e + 7, far from both clamps; exponent 0 stays +0), and FTOI0
 *    takes the integer part: 0 below 1/128 (e < 120), else the significand
 *    shifted right by 150 - (e + 7), at most 0x7f.
 * tests/test_ps2fpu.c checks it against the composed operations for every
 * sign, exponent and leading fraction bits. */
static inline uint32_t gc_ps2i_gs_colour(uint32_t v)
{
    if (v & GC_PS2_SIGN)
        return 0;
    if (v >= GC_PS2_ONE)
        return 0x80;
    uint32_t e = gc_ps2i_exp(v);
    return e < 120 ? 0 : gc_ps2i_sig(v) >> (143 - e);
}

#endif
