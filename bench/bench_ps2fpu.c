/* SPDX-License-Identifier: MIT */
/* PS2 float model throughput (decoders/ps2fpu.c, docs/ps2-float.md): operations
 * per second for each operation on one thread, and a lighting-like pass over
 * 40,000 vertices, so the cost of the directional lighting pass for a retail
 * level can be estimated before it is written. Figures only, never
 * assertions; results go to docs/performance.md by hand.
 *
 * Usage: bench_ps2fpu [vertices] [runs]  (default 40000 vertices, best of 9)
 *
 * Per vertex the lighting-like loop does what the issue-12 pass will do for
 * an unblended vertex: two 3-component dot products (normal . light A,
 * normal . light B; MUL.S + 2 MADD.S each), two MAX.S of d against d * w
 * (with the MUL.S for d * w), six MADD.S (base + A.rgb * fA + B.rgb * fB per
 * channel) and three clamps (MAX.S + MIN.S). Variants add the conversion to
 * the GS colour scale (MUL.S + CVT.W.S per channel) and a blended light
 * direction with its re-normalisation (lerp, dot3, RSQRT.S, 3 MUL.S). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gc_ps2fpu.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A value in [-range, range) with 12 fractional bits, as a PS2 pattern. */
static uint32_t rnd_value(int32_t range)
{
    return gc_ps2_itof12((int32_t)(rnd() % (uint32_t)(2 * range * 4096)) - range * 4096);
}

#define NOPS 4096 /* operand table size (a power of two) */
static uint32_t opa[NOPS], opb[NOPS], opc[NOPS];

enum {
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_MADD,
    OP_DIV,
    OP_SQRT,
    OP_RSQRT,
    OP_MAX,
    OP_MIN,
    OP_CLAMP,
    OP_ITOF12,
    OP_FTOI0,
    OP_DOT3,
    OP_COUNT
};
static const char *const op_names[OP_COUNT] = {"ADD.S",
                                               "SUB.S",
                                               "MUL.S",
                                               "MADD.S",
                                               "DIV.S",
                                               "SQRT.S",
                                               "RSQRT.S",
                                               "MAX.S",
                                               "MIN.S",
                                               "clamp",
                                               "ITOF12",
                                               "CVT.W.S",
                                               "dot3 (MUL.S + 2 MADD.S)"};

static uint32_t run_op(int op, long n)
{
    uint32_t acc = 0;
    for (long i = 0; i < n; i++) {
        size_t k = (size_t)i & (NOPS - 1);
        uint32_t a = opa[k] ^ (acc & 1u), b = opb[k], c = opc[k]; /* a chain */
        switch (op) {
        case OP_ADD:
            acc += gc_ps2_add(a, b);
            break;
        case OP_SUB:
            acc += gc_ps2_sub(a, b);
            break;
        case OP_MUL:
            acc += gc_ps2_mul(a, b);
            break;
        case OP_MADD:
            acc += gc_ps2_madd(c, a, b);
            break;
        case OP_DIV:
            acc += gc_ps2_div(a, b);
            break;
        case OP_SQRT:
            acc += gc_ps2_sqrt(a);
            break;
        case OP_RSQRT:
            acc += gc_ps2_rsqrt(a, b);
            break;
        case OP_MAX:
            acc += gc_ps2_max(a, b);
            break;
        case OP_MIN:
            acc += gc_ps2_min(a, b);
            break;
        case OP_CLAMP:
            acc += gc_ps2_clamp(a, 0, GC_PS2_ONE);
            break;
        case OP_ITOF12:
            acc += gc_ps2_itof12((int32_t)a);
            break;
        case OP_FTOI0:
            acc += (uint32_t)gc_ps2_ftoi0(a);
            break;
        case OP_DOT3: {
            uint32_t x[3] = {a, b, c}, y[3] = {c, a, b};
            acc += gc_ps2_dot3(x, y);
            break;
        }
        }
    }
    return acc;
}

typedef struct {
    uint32_t n[3];     /* vertex normal */
    uint32_t base[3];  /* base colour, 0..1 */
    uint32_t blend;    /* blend weight for the blended variant, 0..1 */
    uint32_t out[3];   /* lit colour */
    int32_t out_gs[3]; /* 0..0x80 */
} vertex;

/* The light set: two directions, two colours with their w lanes. */
static uint32_t la[3], lb[3], ca[3], cb[3], wa, wb, la2[3];

static void light_plain(vertex *v, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        uint32_t da = gc_ps2_dot3(v[i].n, la), db = gc_ps2_dot3(v[i].n, lb);
        uint32_t fa = gc_ps2_max(da, gc_ps2_mul(da, wa));
        uint32_t fb = gc_ps2_max(db, gc_ps2_mul(db, wb));
        for (int c = 0; c < 3; c++) {
            uint32_t col = gc_ps2_madd(v[i].base[c], ca[c], fa);
            col = gc_ps2_madd(col, cb[c], fb);
            v[i].out[c] = gc_ps2_clamp(col, 0, GC_PS2_ONE);
        }
    }
}

static void light_gs(vertex *v, size_t count)
{
    const uint32_t scale = 0x43000000u; /* 128.0 */
    light_plain(v, count);
    for (size_t i = 0; i < count; i++)
        for (int c = 0; c < 3; c++)
            v[i].out_gs[c] = gc_ps2_ftoi0(gc_ps2_mul(v[i].out[c], scale));
}

/* Blended direction A' = A + t (A2 - A), re-normalised by RSQRT.S, then the
 * plain pass with it. */
static void light_blended(vertex *v, size_t count)
{
    uint32_t diff[3];
    for (int c = 0; c < 3; c++)
        diff[c] = gc_ps2_sub(la2[c], la[c]);
    for (size_t i = 0; i < count; i++) {
        uint32_t dir[3];
        for (int c = 0; c < 3; c++)
            dir[c] = gc_ps2_madd(la[c], diff[c], v[i].blend);
        uint32_t inv = gc_ps2_rsqrt(GC_PS2_ONE, gc_ps2_dot3(dir, dir));
        for (int c = 0; c < 3; c++)
            dir[c] = gc_ps2_mul(dir[c], inv);
        uint32_t da = gc_ps2_dot3(v[i].n, dir), db = gc_ps2_dot3(v[i].n, lb);
        uint32_t fa = gc_ps2_max(da, gc_ps2_mul(da, wa));
        uint32_t fb = gc_ps2_max(db, gc_ps2_mul(db, wb));
        for (int c = 0; c < 3; c++) {
            uint32_t col = gc_ps2_madd(v[i].base[c], ca[c], fa);
            col = gc_ps2_madd(col, cb[c], fb);
            v[i].out[c] = gc_ps2_clamp(col, 0, GC_PS2_ONE);
        }
    }
}

static void unit_vector(uint32_t out[3])
{
    uint32_t v[3];
    do {
        for (int c = 0; c < 3; c++)
            v[c] = rnd_value(1);
    } while (gc_ps2_is_zero(gc_ps2_dot3(v, v)));
    uint32_t inv = gc_ps2_rsqrt(GC_PS2_ONE, gc_ps2_dot3(v, v));
    for (int c = 0; c < 3; c++)
        out[c] = gc_ps2_mul(v[c], inv);
}

int main(int argc, char **argv)
{
    long nvert = argc > 1 ? atol(argv[1]) : 40000;
    int runs = argc > 2 ? atoi(argv[2]) : 9;
    if (nvert < 1 || runs < 1) {
        fprintf(stderr, "usage: bench_ps2fpu [vertices] [runs]\n");
        return 2;
    }

    /* Operands in the range lighting works in: magnitudes up to 4, 12-bit
     * fixed point; positive for SQRT.S/RSQRT.S's radicand does not matter
     * (the sign is ignored). */
    for (int i = 0; i < NOPS; i++) {
        opa[i] = rnd_value(4);
        opb[i] = rnd_value(4) | 0x00800000u; /* never a zero divisor */
        opc[i] = rnd_value(4);
    }

    printf("PS2 float model, one thread, best of %d\n\n", runs);
    printf("| operation | Mops/s | ns/op |\n|---|---|---|\n");
    uint32_t sink = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        long n = (op == OP_DIV || op == OP_SQRT || op == OP_RSQRT) ? 2000000 : 20000000;
        double best = 1e30;
        for (int r = 0; r < runs; r++) {
            double t0 = cpu_s();
            sink += run_op(op, n);
            double t = cpu_s() - t0;
            if (t < best)
                best = t;
        }
        printf("| %s | %.1f | %.2f |\n", op_names[op], (double)n / best * 1e-6,
               best / (double)n * 1e9);
    }

    vertex *v = malloc((size_t)nvert * sizeof *v);
    if (!v) {
        fprintf(stderr, "bench_ps2fpu: out of memory\n");
        return 1;
    }
    unit_vector(la);
    unit_vector(lb);
    unit_vector(la2);
    for (int c = 0; c < 3; c++) {
        ca[c] = gc_ps2_itof12((int32_t)(rnd() % 4096));
        cb[c] = gc_ps2_itof12((int32_t)(rnd() % 2048));
    }
    wa = 0xbe800000u; /* -0.25: back faces get a quarter, negated */
    wb = 0x00000000u;
    for (long i = 0; i < nvert; i++) {
        unit_vector(v[i].n);
        for (int c = 0; c < 3; c++)
            v[i].base[c] = gc_ps2_itof12((int32_t)(rnd() % 2048));
        v[i].blend = gc_ps2_itof12((int32_t)(rnd() % 4097));
    }

    static const struct {
        const char *name;
        void (*fn)(vertex *, size_t);
    } passes[] = {
        {"lighting-like (2 dot3, 2 MAX.S, 6 MADD.S, 3 clamps)", light_plain},
        {"same + conversion to 0..0x80 (3 MUL.S, 3 CVT.W.S)", light_gs},
        {"blended direction re-normalised (+3 MADD.S, dot3, RSQRT.S, 3 MUL.S)", light_blended},
    };
    printf("\n%ld vertices\n\n| pass | CPU ms (best) | wall ms (best) | ns/vertex "
           "|\n|---|---|---|---|\n",
           nvert);
    for (size_t p = 0; p < sizeof passes / sizeof passes[0]; p++) {
        double best = 1e30, best_wall = 1e30;
        for (int r = 0; r < runs; r++) {
            double w0 = wall_s(), t0 = cpu_s();
            passes[p].fn(v, (size_t)nvert);
            double t = cpu_s() - t0, w = wall_s() - w0;
            if (t < best)
                best = t;
            if (w < best_wall)
                best_wall = w;
            sink += v[r % nvert].out[0] + (uint32_t)v[r % nvert].out_gs[1];
        }
        printf("| %s | %.2f | %.2f | %.1f |\n", passes[p].name, best * 1e3, best_wall * 1e3,
               best / (double)nvert * 1e9);
    }
    free(v);
    printf("\n(checksum %08x)\n", sink);
    return 0;
}
