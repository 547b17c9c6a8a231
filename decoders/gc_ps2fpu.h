/* SPDX-License-Identifier: MIT */
/* The PlayStation 2 float model: the EE core's FPU (COP1) on raw uint32_t
 * bit patterns, computed with integer arithmetic only (no host float
 * arithmetic anywhere in the library; the one exact use of the float
 * converter, ps2fpu_sse2.h, is in docs/ps2-float.md), so a result is the same
 * bits under any compiler, flag or optimisation level. The rules, their sources and the decisions
 * taken where the sources are silent are in docs/ps2-float.md; in short:
 *
 *  - A pattern is sign, 8-bit exponent, 23-bit fraction, as in IEEE single,
 *    but exponent 0 is zero whatever the fraction (an input with exponent 0
 *    reads as +-0; no result is ever denormal) and exponent 255 is an
 *    ordinary number: there is no NaN and no infinity. GC_PS2_MAX
 *    (0x7fffffff, about 6.8e38) is the largest value; IEEE reads it as NaN.
 *  - Overflow gives +-GC_PS2_MAX and underflow +-0, signed like the true
 *    result (the exact sum, or the XOR of the operand signs).
 *  - ADD.S/SUB.S align the smaller operand to the larger one keeping one bit
 *    below the larger's last bit (the rest are dropped, toward zero); an
 *    exponent gap of 25 or more returns the larger operand unchanged. The
 *    sum is then truncated toward zero.
 *  - MUL.S forms the exact product and truncates it toward zero.
 *  - DIV.S, SQRT.S and RSQRT.S come from the FDIV unit, a radix-2 SRT digit
 *    recurrence that stops after 25 digits without correcting the last one:
 *    the result is the truncated exact result or one unit above it (1/3 is
 *    0x3eaaaaab, as in IEEE; 1/5 is 0x3e4ccccd, above). RSQRT.S is SQRT.S of
 *    |ft| followed by DIV.S, two such steps, not one rounded one.
 *
 * Naming follows the instructions (ADD.S, MUL.S, MADD.S, DIV.S, SQRT.S,
 * RSQRT.S, MAX.S, MIN.S, CVT.S.W, CVT.W.S; the VU's ITOF12 and FTOI0). */
#ifndef GC_PS2FPU_H
#define GC_PS2FPU_H

#include <stdint.h>

#define GC_PS2_SIGN 0x80000000u /* the sign bit */
#define GC_PS2_MAX  0x7fffffffu /* largest value, 2^128 * (2 - 2^-23); IEEE reads NaN */
#define GC_PS2_MIN  0xffffffffu /* -GC_PS2_MAX, the most negative value */
#define GC_PS2_ONE  0x3f800000u /* 1.0 */

/* ADD.S: a + b. */
uint32_t gc_ps2_add(uint32_t a, uint32_t b);
/* SUB.S: a - b (ADD.S with b's sign flipped). */
uint32_t gc_ps2_sub(uint32_t a, uint32_t b);
/* MUL.S: a * b. */
uint32_t gc_ps2_mul(uint32_t a, uint32_t b);
/* MADD.S: acc + a * b. The product is truncated to a single before the add
 * (not fused, as PCSX2's console-tested soft-float has it; no console row
 * tells either way); if the product overflows, the result is +-GC_PS2_MAX
 * signed like the product whatever acc is (a console row shows this). */
uint32_t gc_ps2_madd(uint32_t acc, uint32_t a, uint32_t b);
/* MSUB.S: acc - a * b, with the same two rules (an overflowed product gives
 * the opposite sign of the product's). */
uint32_t gc_ps2_msub(uint32_t acc, uint32_t a, uint32_t b);
/* a[0]*b[0] + a[1]*b[1] + a[2]*b[2] in the order MULA.S, MADDA.S, MADD.S
 * evaluate it: ((a0 b0 + a1 b1) + a2 b2), every product and sum truncated. */
uint32_t gc_ps2_dot3(const uint32_t a[3], const uint32_t b[3]);
/* DIV.S: a / b. b zero: +-GC_PS2_MAX (also for 0/0), signed by the XOR. */
uint32_t gc_ps2_div(uint32_t a, uint32_t b);
/* SQRT.S: sqrt(|a|), always positive; a zero gives +0. */
uint32_t gc_ps2_sqrt(uint32_t a);
/* RSQRT.S fd, fs, ft: fs / sqrt(|ft|), SQRT.S then DIV.S. ft zero gives
 * +-GC_PS2_MAX signed like fs. */
uint32_t gc_ps2_rsqrt(uint32_t fs, uint32_t ft);
/* The truncating divide unit of issue 12 and the seed notes ("every result
 * truncates toward zero", 1/3 = 0x3eaaaaaa, below IEEE's 0x3eaaaaab): the
 * exact quotient or root truncated toward zero to 24 bits, with the same
 * special cases as the FDIV functions above. The console does not do this
 * (docs/ps2-float.md, "Two models of the divide unit"); the variants exist so
 * the choice is explicit and testable, and so a pass can name the model it
 * uses. */
uint32_t gc_ps2_div_trunc(uint32_t a, uint32_t b);
uint32_t gc_ps2_sqrt_trunc(uint32_t a);
/* fs / sqrt(|ft|): SQRT then a truncating divide, both truncating. */
uint32_t gc_ps2_rsqrt_trunc(uint32_t fs, uint32_t ft);

/* Which model of the divide unit an operation follows. */
typedef enum gc_ps2_fdiv_model {
    GC_PS2_FDIV_CONSOLE = 0,  /* the SRT unit as the console records it (gc_ps2_div...) */
    GC_PS2_FDIV_TRUNCATE = 1, /* issue 12's every-result-truncates rule (..._trunc) */
} gc_ps2_fdiv_model;

uint32_t gc_ps2_div_m(gc_ps2_fdiv_model m, uint32_t a, uint32_t b);
uint32_t gc_ps2_sqrt_m(gc_ps2_fdiv_model m, uint32_t a);
uint32_t gc_ps2_rsqrt_m(gc_ps2_fdiv_model m, uint32_t fs, uint32_t ft);

/* MAX.S / MIN.S: compare the patterns as sign-magnitude integers (so -0 <
 * +0, and an exponent-0 pattern keeps its fraction bits) and return one of
 * the operands unchanged. */
uint32_t gc_ps2_max(uint32_t a, uint32_t b);
uint32_t gc_ps2_min(uint32_t a, uint32_t b);
/* MIN.S(MAX.S(x, lo), hi). */
uint32_t gc_ps2_clamp(uint32_t x, uint32_t lo, uint32_t hi);
/* NEG.S / ABS.S: the sign bit only; the rest of the pattern is kept. */
uint32_t gc_ps2_neg(uint32_t a);
uint32_t gc_ps2_abs(uint32_t a);

/* Integer to float, v * 2^-frac_bits (frac_bits < 32): CVT.S.W for 0, the
 * VU's ITOF4/ITOF12/ITOF15 for 4/12/15. The integer is truncated toward zero
 * to 24 significant bits; the scaling is exact. */
uint32_t gc_ps2_itof(int32_t v, unsigned frac_bits);
/* ITOF12: v / 4096, the 12-bit fixed point the game's data uses. */
uint32_t gc_ps2_itof12(int32_t v);
/* Float to integer, a * 2^frac_bits truncated toward zero (frac_bits < 32):
 * CVT.W.S for 0 (the VU's FTOI0), FTOI4/12/15 for 4/12/15. Magnitudes of
 * 2^31 and above saturate to INT32_MAX or INT32_MIN by the sign. */
int32_t gc_ps2_ftoi(uint32_t a, unsigned frac_bits);
int32_t gc_ps2_ftoi0(uint32_t a);

/* Helpers for building patterns (tests, constants). */
/* sign (0 or 1), biased exponent 0..255, 23-bit fraction. */
uint32_t gc_ps2_pack(unsigned sign, unsigned exponent, uint32_t fraction);
/* num / den exactly, truncated toward zero to 24 significant bits; den == 0
 * gives +-GC_PS2_MAX, num == 0 gives +0. */
uint32_t gc_ps2_from_ratio(int32_t num, int32_t den);
/* 1 when the pattern reads as zero (exponent 0). */
int gc_ps2_is_zero(uint32_t a);

#endif
