/* SPDX-License-Identifier: MIT */
/* ADD.S in four SSE2 lanes: gc_ps2v_add(a, b) gives, lane by lane, the bits
 * gc_ps2i_add (ps2fpu_core.h) gives for every pair of patterns. The tfrag
 * lighting pass adds a vertex's three channels with it (two ADD.S each, the
 * channels independent), one instruction stream for three lanes instead of
 * three scalar bodies of about 50 instructions (docs/performance.md, dec29).
 *
 * The steps are those of gc_ps2i_add, with the same names: order by
 * magnitude, align y to x keeping one guard bit, add or subtract, bring the
 * top bit to bit 23 truncating, pack with the exponent clamps. SSE2 has no
 * per-lane shift and no count of leading zeros, so two steps go through the
 * host's float converter, used as an exact integer device, never to round:
 *
 *  - the aligner's shift, (sig_y << 1) >> gap with gap 0..24, is the float
 *    whose exponent field is 151 - gap and whose fraction is y's fraction
 *    (the value sig_y * 2^(1 - gap), at least 1), converted back with
 *    truncation (CVTTPS2DQ truncates whatever the rounding mode);
 *  - the normalisation: the sum is below 2^26; the one or two bits that
 *    truncation drops when it is 2^24 or more are cleared first, so the sum
 *    has at most 24 significant bits and CVTDQ2PS converts it exactly. That
 *    float's exponent field is 127 + (the top bit's position) and its
 *    fraction field is the truncated significand's: the packed result's
 *    exponent and fraction.
 *
 * Every value converted is an integer below 2^26 with at most 24
 * significant bits, or an exact power-of-two scaling of one that stays at or
 * above 1: no conversion rounds, and none is denormal, so neither the
 * rounding mode nor DAZ/FTZ can change a bit. tests/test_ps2fpu.c checks the
 * lanes against gc_ps2_add and against the exact reference over every pair
 * of (sign, exponent) with edge fractions and millions of random operands.
 *
 * Private to the library (not installed); only where SSE2 is (baseline on
 * x86-64): GC_PS2V is 1 then, else 0 and nothing is defined. */
#ifndef GC_PS2FPU_SSE2_H
#define GC_PS2FPU_SSE2_H

#if defined(__SSE2__)
#define GC_PS2V 1
#include <emmintrin.h>

/* m ? t : f, lane by lane (m all ones or all zeros) */
static inline __m128i gc_ps2v_select(__m128i m, __m128i t, __m128i f)
{
    return _mm_or_si128(_mm_and_si128(m, t), _mm_andnot_si128(m, f));
}

static inline __m128i gc_ps2v_add(__m128i a, __m128i b)
{
    const __m128i abs = _mm_set1_epi32(0x7fffffff), frac = _mm_set1_epi32(0x007fffff);
    const __m128i expo = _mm_set1_epi32(0x7f800000), sign = _mm_set1_epi32((int)0x80000000u);
    const __m128i zero = _mm_setzero_si128();
    /* order by magnitude: the low 31 bits as one number (both below 2^31, so
     * the signed compare orders them); equal magnitudes keep a first */
    __m128i am = _mm_and_si128(a, abs), bm = _mm_and_si128(b, abs);
    __m128i d = _mm_and_si128(_mm_xor_si128(a, b), _mm_cmpgt_epi32(bm, am));
    __m128i x = _mm_xor_si128(a, d), y = _mm_xor_si128(b, d);
    /* exponents and their gap kept in place (<< 23): no shifts needed */
    __m128i xe = _mm_and_si128(x, expo), ye = _mm_and_si128(y, expo);
    __m128i gap = _mm_sub_epi32(xe, ye); /* (0..255) << 23 */
    /* x itself: a gap of 25 or more, or y a zero (exponent 0; x is then the
     * nonzero one, or both are zeros, settled last) */
    __m128i keep_x =
        _mm_or_si128(_mm_cmpgt_epi32(gap, _mm_set1_epi32(24 << 23)), _mm_cmpeq_epi32(ye, zero));
    /* small = (sig_y << 1) >> g (g = 0..24), through the float sig_y * 2^(1 - g):
     * exponent field 151 - g, y's fraction */
    __m128i fy =
        _mm_or_si128(_mm_sub_epi32(_mm_set1_epi32(151 << 23), _mm_andnot_si128(keep_x, gap)),
                     _mm_and_si128(y, frac));
    __m128i small = _mm_cvttps_epi32(_mm_castsi128_ps(fy));
    __m128i big = _mm_slli_epi32(_mm_or_si128(_mm_and_si128(x, frac), _mm_set1_epi32(0x800000)), 1);
    __m128i neg = _mm_srai_epi32(_mm_xor_si128(x, y), 31); /* all ones when the signs differ */
    __m128i sum = _mm_add_epi32(big, _mm_sub_epi32(_mm_xor_si128(small, neg), neg)); /* < 2^26 */
    /* the bits truncation drops (1 at 2^24.., 2 at 2^25..), cleared: exact conversion */
    __m128i st =
        _mm_andnot_si128(_mm_or_si128(_mm_srli_epi32(sum, 24), _mm_srli_epi32(sum, 25)), sum);
    /* fb: exponent field 127 + p (p the top bit's position), fraction the
     * truncated significand's; adding x's exponent field less 151 << 23 gives
     * (e << 23) + fraction with e = ex + p - 24, the result's exponent. As a
     * signed number (e is -24..256): at least 1 << 23 when 1 <= e <= 255,
     * below -(24 << 23) when e = 256 (it wrapped): the two clamps */
    __m128i fb = _mm_castps_si128(_mm_cvtepi32_ps(st));
    __m128i r = _mm_add_epi32(fb, _mm_sub_epi32(xe, _mm_set1_epi32(151 << 23)));
    __m128i in_range = _mm_cmpgt_epi32(r, _mm_set1_epi32(0x007fffff));
    __m128i over = _mm_cmplt_epi32(r, _mm_set1_epi32(-(24 << 23)));
    r = _mm_or_si128(_mm_and_si128(x, sign),
                     _mm_or_si128(_mm_and_si128(in_range, r), _mm_and_si128(over, abs)));
    r = _mm_andnot_si128(_mm_cmpeq_epi32(sum, zero), r); /* x - x is +0 */
    /* x where kept, except two zeros: -0 only if both are negative */
    __m128i kill = _mm_andnot_si128(_mm_and_si128(y, sign), _mm_cmpeq_epi32(xe, zero));
    return gc_ps2v_select(keep_x, _mm_andnot_si128(kill, x), r);
}

/* MUL.S in four lanes, the bits of gc_ps2i_mul_ovf; *over gets all ones in
 * a lane whose exponent overflowed (MADD.S returns that product). The
 * 48-bit product of the significands comes from PMULUDQ, two lanes at a
 * time: integer arithmetic only. */
static inline __m128i gc_ps2v_mul(__m128i a, __m128i b, __m128i *over)
{
    const __m128i abs = _mm_set1_epi32(0x7fffffff), frac = _mm_set1_epi32(0x007fffff);
    const __m128i hidden = _mm_set1_epi32(0x00800000), zero = _mm_setzero_si128();
    __m128i sign = _mm_and_si128(_mm_xor_si128(a, b), _mm_set1_epi32((int)0x80000000u));
    __m128i ea = _mm_srli_epi32(_mm_and_si128(a, abs), 23);
    __m128i eb = _mm_srli_epi32(_mm_and_si128(b, abs), 23);
    __m128i sa = _mm_or_si128(_mm_and_si128(a, frac), hidden);
    __m128i sb = _mm_or_si128(_mm_and_si128(b, frac), hidden);
    /* prod >> 23 (below 2^25) of lanes 0, 2 and of lanes 1, 3, each in the
     * low half of a 64-bit lane, merged back into four 32-bit lanes */
    __m128i lo = _mm_srli_epi64(_mm_mul_epu32(sa, sb), 23);
    __m128i hi = _mm_srli_epi64(_mm_mul_epu32(_mm_srli_epi64(sa, 32), _mm_srli_epi64(sb, 32)), 23);
    __m128i q = _mm_or_si128(lo, _mm_slli_epi64(hi, 32));
    __m128i top = _mm_srli_epi32(q, 24); /* the product of significands is >= 2 */
    __m128i sig = gc_ps2v_select(_mm_sub_epi32(zero, top), _mm_srli_epi32(q, 1), q);
    __m128i e = _mm_sub_epi32(_mm_add_epi32(_mm_add_epi32(ea, eb), top), _mm_set1_epi32(127));
    __m128i ovf = _mm_cmpgt_epi32(e, _mm_set1_epi32(255));
    __m128i r = _mm_or_si128(sign, _mm_or_si128(_mm_slli_epi32(e, 23), _mm_and_si128(sig, frac)));
    r = gc_ps2v_select(ovf, _mm_or_si128(sign, abs), r);
    r = gc_ps2v_select(_mm_cmplt_epi32(e, _mm_set1_epi32(1)), sign, r);
    /* a zero operand (exponent 0) gives the signed zero and no overflow:
     * its e is at most 255 + 1 - 127, so ovf is already clear there */
    __m128i z = _mm_or_si128(_mm_cmpeq_epi32(ea, zero), _mm_cmpeq_epi32(eb, zero));
    *over = ovf;
    return gc_ps2v_select(z, sign, r);
}

/* MAX.S in four lanes (gc_ps2i_max): sign-magnitude order through a signed
 * key (a negative pattern's key is ~magnitude, -0 just below +0); equal
 * keys give a. */
static inline __m128i gc_ps2v_max(__m128i a, __m128i b)
{
    __m128i ka = _mm_xor_si128(a, _mm_srli_epi32(_mm_srai_epi32(a, 31), 1));
    __m128i kb = _mm_xor_si128(b, _mm_srli_epi32(_mm_srai_epi32(b, 31), 1));
    return gc_ps2v_select(_mm_cmpgt_epi32(kb, ka), b, a);
}

#else
#define GC_PS2V 0
#endif

#endif
