/* SPDX-License-Identifier: MIT */
/* The evaluator: a small stack VM over the compiled bytecode, the aggregate loops (hoisted
 * ones computed once per call), and the drivers behind gc_inv_eval_level/_corpus/_metric.
 * All mutable state lives in the call's own context, so one set serves many threads. */
#define _POSIX_C_SOURCE 200809L /* strnlen under -std=c11 */

#include "inv_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The block loops in three builds, one chosen when the program loads by the CPU's vector
 * unit (GCC's and clang's target_clones: an ifunc per function): SSE2, AVX2, AVX-512. Every
 * loop is element-wise and exact -- integer operations, and IEEE + - * / sqrt with no
 * contraction (everything is built with -ffp-contract=off) -- so every build gives the same
 * bits; a wider vector only does more rows per instruction (retail corpus, evaluation of
 * the level invariants: SSE2 475 ms, AVX2 372 ms, AVX-512 336 ms of thread CPU). */
#if !defined(GC_VEC) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
    defined(__has_attribute)
/* GCC only: clang 14 compiles the clones of a static function as if nothing called them
 * with arguments (the ifunc is its only caller), and they crash. (-DGC_VEC= builds the
 * SSE2 loops alone.) */
#if __has_attribute(target_clones)
#define GC_VEC __attribute__((target_clones("default", "avx2", "arch=x86-64-v4")))
#endif
#endif
#ifndef GC_VEC
#define GC_VEC
#endif

typedef struct gc_val {
    union {
        int64_t i;
        double f;
        const char *s;
    } u;
    uint32_t slen;
    uint8_t null;
} gc_val;

typedef struct rowref {
    size_t k;  /* level slot */
    int64_t r; /* row; < 0: no row */
} rowref;

typedef struct ev {
    const gc_inv_set *s;
    const gc_unit *u;
    const gc_table *const *levels;
    size_t nlevels;
    gc_val *cache;
    uint8_t *done;
    rowref outer;
    struct kidx *kix;     /* per aggregate: its key index (agg_keyed), built at first use */
    struct gc_memo *memo; /* the level's hoisted aggregates by class (NULL: none shared) */
} ev;

static inline size_t tcount(const ev *e, size_t k, uint32_t t)
{
    const gc_table *tb = &e->levels[k][t];
    return tb->rows ? tb->count : 0;
}

static inline const uint8_t *rowp(const ev *e, size_t k, uint32_t t, int64_t r)
{
    return (const uint8_t *)e->levels[k][t].rows + (size_t)r * e->s->descs[t]->row_size;
}

/* Read an integer column of any width; *is_null for the all-ones pattern when flagged. */
static inline int64_t load_int(const uint8_t *p, unsigned ctype, unsigned flags, int *is_null)
{
    int nim = (flags & GC_CF_NULL_IF_MAX) != 0;
    switch (ctype) {
    case GC_T_BOOL: { /* 0/1 whatever byte a decoder stored */
        uint8_t x;
        memcpy(&x, p, sizeof x);
        *is_null = nim && x == UINT8_MAX;
        return x != 0;
    }
    case GC_T_U8: {
        uint8_t x;
        memcpy(&x, p, sizeof x);
        *is_null = nim && x == UINT8_MAX;
        return x;
    }
    case GC_T_S8: {
        int8_t x;
        memcpy(&x, p, sizeof x);
        *is_null = nim && x == -1;
        return x;
    }
    case GC_T_U16: {
        uint16_t x;
        memcpy(&x, p, sizeof x);
        *is_null = nim && x == UINT16_MAX;
        return x;
    }
    case GC_T_S16: {
        int16_t x;
        memcpy(&x, p, sizeof x);
        *is_null = nim && x == -1;
        return x;
    }
    case GC_T_U32: {
        uint32_t x;
        memcpy(&x, p, sizeof x);
        *is_null = nim && x == UINT32_MAX;
        return x;
    }
    case GC_T_S32: {
        int32_t x;
        memcpy(&x, p, sizeof x);
        *is_null = nim && x == -1;
        return x;
    }
    case GC_T_U64: {
        uint64_t x;
        memcpy(&x, p, sizeof x);
        *is_null = nim && x == UINT64_MAX;
        return (int64_t)x;
    }
    default: { /* GC_T_S64 */
        int64_t x;
        memcpy(&x, p, sizeof x);
        *is_null = nim && x == -1;
        return x;
    }
    }
}

static inline gc_val load(const uint8_t *p, const gc_ins *in)
{
    gc_val v;
    v.slen = 0;
    v.null = 0;
    switch (in->ctype) {
    case GC_T_F32: {
        float f;
        memcpy(&f, p, sizeof f);
        v.u.f = f;
        break;
    }
    case GC_T_F64:
        memcpy(&v.u.f, p, sizeof v.u.f);
        break;
    case GC_T_STR:
        v.u.s = (const char *)p;
        v.slen = (uint32_t)strnlen((const char *)p, in->b);
        break;
    default: {
        int nul;
        v.u.i = load_int(p, in->ctype, in->flags, &nul);
        v.null = (uint8_t)nul;
        break;
    }
    }
    return v;
}

static inline int64_t wrap_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t wrap_sub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

static inline int64_t wrap_mul(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

static int cmp_i(gc_binop op, int64_t a, int64_t b)
{
    switch (op) {
    case GC_OP_EQ:
        return a == b;
    case GC_OP_NE:
        return a != b;
    case GC_OP_LT:
        return a < b;
    case GC_OP_LE:
        return a <= b;
    case GC_OP_GT:
        return a > b;
    default:
        return a >= b;
    }
}

static int cmp_f(gc_binop op, double a, double b)
{
    switch (op) {
    case GC_OP_EQ:
        return a == b;
    case GC_OP_NE:
        return a != b;
    case GC_OP_LT:
        return a < b;
    case GC_OP_LE:
        return a <= b;
    case GC_OP_GT:
        return a > b;
    default:
        return a >= b;
    }
}

static gc_val agg_value(ev *e, uint32_t ai);

#define NULLV(x) ((x).null = 1, (x).slen = 0)

/* The top of the stack; only used by instructions that have an operand. */
#define TOP (&st[sp - 1])

static gc_val run(ev *e, const gc_prog *p, rowref cur)
{
    gc_val st[GC_INV_STACK];
    int sp = 0;
    rowref reg = {0, -1};
    const uint8_t *curp = NULL; /* the current row, found at its first use */
    const gc_ins *code = p->code;
    for (uint32_t pc = 0;; pc++) {
        const gc_ins *in = &code[pc];
        switch ((gc_opcode)in->op) {
        case GC_I_END:
            return st[sp - 1];
        case GC_I_PUSH_I:
            st[sp].u.i = in->k.i;
            st[sp].null = 0;
            st[sp++].slen = 0;
            break;
        case GC_I_PUSH_F:
            st[sp].u.f = in->k.f;
            st[sp].null = 0;
            st[sp++].slen = 0;
            break;
        case GC_I_PUSH_S:
            st[sp].u.s = in->k.s;
            st[sp].null = 0;
            st[sp++].slen = in->b;
            break;
        case GC_I_PUSH_NULL:
            st[sp].u.i = 0;
            NULLV(st[sp]);
            sp++;
            break;
        case GC_I_LOAD_CUR:
            if (cur.r < 0) {
                st[sp].u.i = 0;
                NULLV(st[sp]);
            } else {
                if (!curp)
                    curp = rowp(e, cur.k, in->a, cur.r);
                st[sp] = load(curp + in->k.u, in);
            }
            sp++;
            break;
        case GC_I_CMP_CC:
        case GC_I_CMP_CK: {
            gc_val *v = &st[sp++];
            v->slen = 0;
            if (cur.r < 0) {
                v->u.i = 0;
                v->null = 1;
                break;
            }
            if (!curp)
                curp = rowp(e, cur.k, in->a >> 8, cur.r);
            int n1, n2 = 0;
            int64_t x =
                load_int(curp + in->k.u, in->ctype, (in->flags & 1) ? GC_CF_NULL_IF_MAX : 0, &n1);
            int64_t y =
                in->op == GC_I_CMP_CK
                    ? in->k2
                    : load_int(curp + in->b, in->pad, (in->flags & 2) ? GC_CF_NULL_IF_MAX : 0, &n2);
            v->null = (uint8_t)(n1 | n2);
            v->u.i = v->null ? 0 : cmp_i((gc_binop)(in->a & 0xff), x, y);
            break;
        }
        case GC_I_LOAD_REG:
            if (reg.r < 0) {
                st[sp].u.i = 0;
                NULLV(st[sp]);
            } else
                st[sp] = load(rowp(e, reg.k, in->a, reg.r) + in->k.u, in);
            sp++;
            break;
        case GC_I_ROW_CUR:
            reg = cur;
            break;
        case GC_I_ROW_OUTER:
            reg = e->outer;
            break;
        case GC_I_ROW_PREV:
            if (reg.r >= 0)
                reg.r--;
            break;
        case GC_I_ROW_NEXT:
            if (reg.r >= 0 && (size_t)++reg.r >= tcount(e, reg.k, in->a))
                reg.r = -1;
            break;
        case GC_I_ROW_PARENT:
            if (reg.r >= 0) {
                int nul;
                int64_t v =
                    load_int(rowp(e, reg.k, in->a, reg.r) + in->k.u, in->ctype, in->flags, &nul);
                if (nul || v < 0 || (uint64_t)v >= tcount(e, reg.k, in->b))
                    reg.r = -1;
                else
                    reg.r = v;
            }
            break;
        case GC_I_REG_INDEX:
            st[sp].u.i = reg.r;
            st[sp].null = reg.r < 0;
            st[sp++].slen = 0;
            break;
        case GC_I_I2F: {
            gc_val *x = &st[sp - 1 - (int)in->a];
            if (!x->null)
                x->u.f = (double)x->u.i;
            break;
        }
        case GC_I_ADD_I:
        case GC_I_SUB_I:
        case GC_I_MUL_I:
        case GC_I_ADD_F:
        case GC_I_SUB_F:
        case GC_I_MUL_F:
        case GC_I_DIV_F:
        case GC_I_IDIV_I:
        case GC_I_IDIV_F:
        case GC_I_MOD_I:
        case GC_I_MOD_F:
        case GC_I_SHL:
        case GC_I_SHR:
        case GC_I_BAND:
        case GC_I_BOR: {
            gc_val *a = &st[sp - 2], *b = TOP;
            sp--;
            if (a->null || b->null) {
                NULLV(*a);
                break;
            }
            int64_t x = a->u.i, y = b->u.i;
            double fx = a->u.f, fy = b->u.f;
            switch ((gc_opcode)in->op) {
            case GC_I_ADD_I:
                a->u.i = wrap_add(x, y);
                break;
            case GC_I_SUB_I:
                a->u.i = wrap_sub(x, y);
                break;
            case GC_I_MUL_I:
                a->u.i = wrap_mul(x, y);
                break;
            case GC_I_ADD_F:
                a->u.f = fx + fy;
                break;
            case GC_I_SUB_F:
                a->u.f = fx - fy;
                break;
            case GC_I_MUL_F:
                a->u.f = fx * fy;
                break;
            case GC_I_DIV_F:
                if (fy == 0.0)
                    NULLV(*a);
                else
                    a->u.f = fx / fy;
                break;
            case GC_I_IDIV_I:
                if (y == 0)
                    NULLV(*a);
                else if (x == INT64_MIN && y == -1)
                    a->u.i = INT64_MIN;
                else
                    a->u.i = x / y;
                break;
            case GC_I_IDIV_F:
                if (fy == 0.0)
                    NULLV(*a);
                else
                    a->u.f = trunc(fx / fy);
                break;
            case GC_I_MOD_I:
                if (y == 0)
                    NULLV(*a);
                else if (y == -1)
                    a->u.i = 0;
                else
                    a->u.i = x % y;
                break;
            case GC_I_MOD_F:
                if (fy == 0.0)
                    NULLV(*a);
                else
                    a->u.f = fmod(fx, fy);
                break;
            case GC_I_SHL:
                if (y < 0 || y > 63)
                    NULLV(*a);
                else
                    a->u.i = (int64_t)((uint64_t)x << y);
                break;
            case GC_I_SHR:
                if (y < 0 || y > 63)
                    NULLV(*a);
                else
                    a->u.i = x < 0 ? ~(~x >> y) : x >> y; /* arithmetic, portably */
                break;
            case GC_I_BAND:
                a->u.i = x & y;
                break;
            default:
                a->u.i = x | y;
                break;
            }
            break;
        }
        case GC_I_CMP_I:
        case GC_I_CMP_F:
        case GC_I_CMP_S: {
            gc_val *a = &st[sp - 2], *b = TOP;
            sp--;
            if (a->null || b->null) {
                NULLV(*a);
                break;
            }
            int r;
            if (in->op == GC_I_CMP_I)
                r = cmp_i((gc_binop)in->a, a->u.i, b->u.i);
            else if (in->op == GC_I_CMP_F)
                r = cmp_f((gc_binop)in->a, a->u.f, b->u.f);
            else {
                int eq = a->slen == b->slen && memcmp(a->u.s, b->u.s, a->slen) == 0;
                r = in->a == GC_OP_EQ ? eq : !eq;
            }
            a->u.i = r;
            a->slen = 0;
            break;
        }
        case GC_I_ISNULL:
            TOP->u.i = TOP->null;
            TOP->null = 0;
            TOP->slen = 0;
            break;
        case GC_I_NOTNULL:
            TOP->u.i = !TOP->null;
            TOP->null = 0;
            TOP->slen = 0;
            break;
        case GC_I_TRUTH_I:
            if (!TOP->null)
                TOP->u.i = TOP->u.i != 0;
            break;
        case GC_I_TRUTH_F:
            if (!TOP->null) {
                if (isnan(TOP->u.f))
                    TOP->null = 1;
                else
                    TOP->u.i = TOP->u.f != 0.0;
            }
            break;
        case GC_I_NOT:
            if (!TOP->null)
                TOP->u.i = !TOP->u.i;
            break;
        case GC_I_AND_SC:
            if (!TOP->null && TOP->u.i == 0)
                pc = in->a - 1;
            break;
        case GC_I_OR_SC:
            if (!TOP->null && TOP->u.i != 0)
                pc = in->a - 1;
            break;
        case GC_I_AND:
        case GC_I_OR: {
            gc_val *a = &st[sp - 2], *b = TOP;
            sp--;
            int decide = in->op == GC_I_AND ? 0 : 1; /* the value that decides */
            if ((!a->null && (a->u.i != 0) == decide) || (!b->null && (b->u.i != 0) == decide)) {
                a->u.i = decide;
                a->null = 0;
            } else if (a->null || b->null) {
                NULLV(*a);
            } else {
                a->u.i = !decide;
            }
            break;
        }
        case GC_I_NEG_I:
            if (!TOP->null)
                TOP->u.i = wrap_sub(0, TOP->u.i);
            break;
        case GC_I_NEG_F:
            if (!TOP->null)
                TOP->u.f = -TOP->u.f;
            break;
        case GC_I_ABS_I:
            if (!TOP->null && TOP->u.i < 0)
                TOP->u.i = wrap_sub(0, TOP->u.i);
            break;
        case GC_I_ABS_F:
            if (!TOP->null)
                TOP->u.f = fabs(TOP->u.f);
            break;
        case GC_I_MIN_I:
        case GC_I_MAX_I:
        case GC_I_MIN_F:
        case GC_I_MAX_F: {
            int n = (int)in->a;
            gc_val *a = &st[sp - n];
            int anynull = 0;
            for (int i = 0; i < n; i++)
                anynull |= a[i].null;
            if (anynull) {
                NULLV(a[0]);
            } else if (in->op == GC_I_MIN_I || in->op == GC_I_MAX_I) {
                int64_t r = a[0].u.i;
                for (int i = 1; i < n; i++)
                    if (in->op == GC_I_MIN_I ? a[i].u.i < r : a[i].u.i > r)
                        r = a[i].u.i;
                a[0].u.i = r;
            } else {
                double r = a[0].u.f;
                for (int i = 1; i < n; i++)
                    if (in->op == GC_I_MIN_F ? a[i].u.f < r : a[i].u.f > r)
                        r = a[i].u.f;
                a[0].u.f = r;
            }
            sp -= n - 1;
            break;
        }
        case GC_I_SQRT:
            if (!TOP->null) {
                if (TOP->u.f < 0.0)
                    TOP->null = 1;
                else
                    TOP->u.f = sqrt(TOP->u.f);
            }
            break;
        case GC_I_DIST: {
            gc_val *a = &st[sp - 6];
            int anynull = 0;
            for (int i = 0; i < 6; i++)
                anynull |= a[i].null;
            if (anynull)
                NULLV(a[0]);
            else {
                double dx = a[0].u.f - a[3].u.f;
                double dy = a[1].u.f - a[4].u.f;
                double dz = a[2].u.f - a[5].u.f;
                a[0].u.f = sqrt(dx * dx + dy * dy + dz * dz);
            }
            sp -= 5;
            break;
        }
        case GC_I_BETWEEN_I:
        case GC_I_BETWEEN_F: {
            gc_val *a = &st[sp - 3];
            if (a[0].null || a[1].null || a[2].null)
                NULLV(a[0]);
            else if (in->op == GC_I_BETWEEN_I)
                a[0].u.i = a[1].u.i <= a[0].u.i && a[0].u.i <= a[2].u.i;
            else
                a[0].u.i = a[1].u.f <= a[0].u.f && a[0].u.f <= a[2].u.f;
            sp -= 2;
            break;
        }
        case GC_I_COALESCE: {
            int n = (int)in->a;
            gc_val *a = &st[sp - n];
            for (int i = 0; i < n; i++)
                if (!a[i].null) {
                    a[0] = a[i];
                    break;
                }
            sp -= n - 1;
            break;
        }
        case GC_I_AGG:
            st[sp++] = agg_value(e, in->a);
            break;
        }
    }
}

static inline int f_isnull(const gc_val *v, gc_ty ty)
{
    return v->null || (ty == GC_TY_FLT && isnan(v->u.f));
}

static GC_VEC int agg_batch(ev *e, const gc_agg *ag, int64_t *n, int64_t *isum, double *fsum,
                            int *have, gc_val *res);

/* A keyed `any`'s index (gc_agg.keyed): the aggregated table's rows whose key column is not
 * null, as (value, row) sorted by value then row. Built once per evaluation (one level), so
 * each outer row costs a binary search and the condition on the rows of its key only. */
typedef struct kent {
    int64_t v;
    int64_t r;
} kent;

struct kidx {
    kent *ent;
    size_t n;
    int state; /* 0: not built; 1: built; -1: out of memory (the scan is used) */
};

static int kent_cmp(const void *a, const void *b)
{
    const kent *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return (x->r > y->r) - (x->r < y->r);
}

/* `any` through its key index: 1 with *res set, or 0 when the index cannot serve (several
 * levels, a null key, out of memory), and the caller scans every row. Exact: a row whose key
 * column differs from the key (or is null) makes the `and` chain false or null, never true,
 * and `any` is 1 exactly when some row's condition is true (a false or null row changes
 * nothing); the rows of the key run the whole condition as the scan would run it. */
static int agg_keyed(ev *e, uint32_t ai, gc_val *res)
{
    const gc_agg *ag = &e->u->aggs[ai];
    if (e->nlevels != 1)
        return 0;
    gc_val key = run(e, &ag->key, (rowref){0, -1});
    if (key.null)
        return 0;
    if (!e->kix) {
        e->kix = calloc(e->u->nagg, sizeof *e->kix);
        if (!e->kix)
            return 0;
    }
    struct kidx *x = &e->kix[ai];
    if (x->state == 0) {
        const size_t cnt = tcount(e, 0, (uint32_t)ag->table);
        x->ent = malloc((cnt ? cnt : 1) * sizeof *x->ent);
        x->state = x->ent ? 1 : -1;
        for (size_t r = 0; r < cnt && x->ent; r++) {
            gc_val v =
                load(rowp(e, 0, (uint32_t)ag->table, (int64_t)r) + ag->keycol.k.u, &ag->keycol);
            if (!v.null)
                x->ent[x->n++] = (kent){v.u.i, (int64_t)r};
        }
        if (x->ent)
            qsort(x->ent, x->n, sizeof *x->ent, kent_cmp);
    }
    if (x->state != 1)
        return 0;
    size_t lo = 0, hi = x->n; /* the first entry of the key */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->ent[mid].v < key.u.i)
            lo = mid + 1;
        else
            hi = mid;
    }
    res->u.i = 0;
    for (size_t j = lo; j < x->n && x->ent[j].v == key.u.i; j++) {
        gc_val c = run(e, &ag->cond, (rowref){0, x->ent[j].r});
        if (!c.null && c.u.i) {
            res->u.i = 1;
            break;
        }
    }
    return 1;
}

/* An aggregate's value from its accumulators (agg_value's loops, memo_table's) */
static void agg_finish(const gc_agg *ag, int64_t n, int64_t isum, double fsum, int have,
                       gc_val *res)
{
    switch (ag->kind) {
    case GC_AGG_COUNT:
    case GC_AGG_COUNT_VAL:
        res->u.i = n;
        break;
    case GC_AGG_SUM:
        if (ag->vty == GC_TY_FLT)
            res->u.f = fsum;
        else
            res->u.i = isum;
        break;
    case GC_AGG_MEAN:
        if (!n)
            res->null = 1;
        else
            res->u.f = (ag->vty == GC_TY_FLT ? fsum : (double)isum) / (double)n;
        break;
    case GC_AGG_MIN:
    case GC_AGG_MAX:
        res->null = !have;
        break;
    case GC_AGG_ALL:
        if (!have)
            res->u.i = 1;
        break;
    case GC_AGG_ANY:
        if (!have)
            res->u.i = 0;
        break;
    }
}

static const gc_val *memo_get(ev *e, const gc_agg *ag);

static gc_val agg_value(ev *e, uint32_t ai)
{
    const gc_agg *ag = &e->u->aggs[ai];
    if (!ag->uses_outer && e->done[ai])
        return e->cache[ai];
    if (e->memo && ag->memo >= 0) {
        /* the level's value of this class (computed at most once a level, with the other
         * pending aggregates over the same table in one pass) */
        const gc_val *m = memo_get(e, ag);
        if (m) {
            e->cache[ai] = *m;
            e->done[ai] = 1;
            return *m;
        }
    }
    gc_val res;
    res.null = 0;
    res.slen = 0;
    res.u.i = 0;
    int64_t n = 0, isum = 0;
    double fsum = 0.0;
    int have = 0;
    int done = 0;
    if (!ag->uses_outer && agg_batch(e, ag, &n, &isum, &fsum, &have, &res))
        done = 1; /* the same loop below, on the batch VM */
    else if (ag->keyed && agg_keyed(e, ai, &res))
        return res; /* the loop below, on the rows of the key only */
    for (size_t k = 0; k < e->nlevels && !done; k++) {
        size_t cnt = tcount(e, k, (uint32_t)ag->table);
        if ((ag->kind == GC_AGG_COUNT) && !ag->cond.code) {
            n += (int64_t)cnt;
            continue;
        }
        for (size_t r = 0; r < cnt; r++) {
            rowref rr = {k, (int64_t)r};
            if (ag->kind == GC_AGG_ALL || ag->kind == GC_AGG_ANY) {
                gc_val c = run(e, &ag->cond, rr);
                if (c.null)
                    continue;
                if (ag->kind == GC_AGG_ALL && !c.u.i) {
                    res.u.i = 0;
                    have = 1;
                    done = 1;
                    break;
                }
                if (ag->kind == GC_AGG_ANY && c.u.i) {
                    res.u.i = 1;
                    have = 1;
                    done = 1;
                    break;
                }
                continue;
            }
            if (ag->cond.code) {
                gc_val c = run(e, &ag->cond, rr);
                if (c.null || !c.u.i)
                    continue;
            }
            if (ag->kind == GC_AGG_COUNT) {
                n++;
                continue;
            }
            gc_val v = run(e, &ag->value, rr);
            if (f_isnull(&v, ag->vty))
                continue;
            switch (ag->kind) {
            case GC_AGG_COUNT_VAL:
                n++;
                break;
            case GC_AGG_SUM:
            case GC_AGG_MEAN:
                n++;
                if (ag->vty == GC_TY_FLT)
                    fsum += v.u.f;
                else
                    isum = wrap_add(isum, v.u.i);
                break;
            case GC_AGG_MIN:
            case GC_AGG_MAX: {
                int better;
                if (!have)
                    better = 1;
                else if (ag->vty == GC_TY_FLT)
                    better = ag->kind == GC_AGG_MIN ? v.u.f < res.u.f : v.u.f > res.u.f;
                else
                    better = ag->kind == GC_AGG_MIN ? v.u.i < res.u.i : v.u.i > res.u.i;
                if (better)
                    res.u = v.u;
                have = 1;
                break;
            }
            default:
                break;
            }
        }
    }
    agg_finish(ag, n, isum, fsum, have, &res);
    if (!ag->uses_outer) {
        e->cache[ai] = res;
        e->done[ai] = 1;
    }
    return res;
}

static void fmt_val(char *buf, size_t len, const gc_val *v, gc_ty ty, int hex)
{
    if (v->null) {
        snprintf(buf, len, "null");
        return;
    }
    switch (ty) {
    case GC_TY_FLT:
        snprintf(buf, len, "%.9g", v->u.f);
        break;
    case GC_TY_STR:
        snprintf(buf, len, "\"%.*s\"", (int)(v->slen > 64 ? 64 : v->slen), v->u.s);
        break;
    default:
        if (hex)
            snprintf(buf, len, "0x%llx", (unsigned long long)v->u.i);
        else
            snprintf(buf, len, "%lld", (long long)v->u.i);
        break;
    }
}

static void make_values(ev *e, rowref cur, int result_null, char *out, size_t len)
{
    const gc_unit *u = e->u;
    size_t o = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < u->nref && o + 1 < len; i++) {
        gc_val v = run(e, &u->refs[i].prog, cur);
        char vb[96];
        fmt_val(vb, sizeof vb, &v, u->refs[i].ty, u->refs[i].hex);
        int w = snprintf(out + o, len - o, "%s%s=%s", o ? " " : "", u->refs[i].label, vb);
        if (w < 0)
            break;
        o += (size_t)w;
    }
    if (result_null && o + 1 < len) {
        int w = snprintf(out + o, len - o, "%s=> null", o ? " " : "");
        if (w > 0)
            o += (size_t)w;
    }
    if (o >= len && len > 4)
        memcpy(out + len - 4, "...", 4); /* truncated: say so */
}

typedef struct acc {
    gc_inv_result *out;
    size_t max_samples, cap;
    int oom;
} acc;

static void add_sample(ev *e, acc *a, int level, rowref cur, int result_null)
{
    gc_inv_result *out = a->out;
    if (out->sample_count >= a->max_samples)
        return;
    if (out->sample_count == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 8;
        if (cap > a->max_samples)
            cap = a->max_samples;
        gc_inv_sample *v = realloc(out->samples, cap * sizeof *v);
        if (!v) {
            a->oom = 1;
            return;
        }
        out->samples = v;
        a->cap = cap;
    }
    gc_inv_sample *sm = &out->samples[out->sample_count++];
    memset(sm, 0, sizeof *sm);
    sm->level = level;
    sm->row = cur.r;
    if (cur.r >= 0 && e->u->has_file_ofs) {
        int nul;
        int64_t v = load_int(rowp(e, cur.k, (uint32_t)e->u->table, cur.r) + e->u->file_ofs_offset,
                             e->u->file_ofs_ctype, 0, &nul);
        sm->file_ofs = (uint64_t)v;
    }
    make_values(e, cur, result_null, sm->values, sizeof sm->values);
}

static int ev_init(ev *e, const gc_inv_set *s, const gc_unit *u, const gc_table *const *levels,
                   size_t nlevels)
{
    memset(e, 0, sizeof *e);
    e->s = s;
    e->u = u;
    e->levels = levels;
    e->nlevels = nlevels;
    e->outer.r = -1;
    if (u->nagg) {
        e->cache = malloc(u->nagg * sizeof *e->cache);
        e->done = calloc(u->nagg, 1);
        if (!e->cache || !e->done) {
            free(e->cache);
            free(e->done);
            return -1;
        }
    }
    return 0;
}

static void ev_fini(ev *e)
{
    for (uint32_t i = 0; e->kix && i < e->u->nagg; i++)
        free(e->kix[i].ent);
    free(e->kix);
    free(e->cache);
    free(e->done);
}

/* ---- the batch VM: the same bytecode, one instruction over a block of rows at a time ----
 * Every instruction of a row expression is free of side effects and never traps, so a
 * block of rows can run each instruction over all its rows before the next one: the
 * dispatch, the type switches and the table lookups are paid once per block, not per row.
 * `and`/`or` evaluate both sides (the short-circuit only saves work; three-valued `and` and
 * `or` give the same value either way), and each element follows exactly the scalar rules
 * of run(). Units with strings or `outer` aggregates stay on run().
 *
 * The stack holds pointers to slots: a column read from the rows stays where the column
 * cache put it and is never copied, and every instruction writes its result into a free
 * slot of the workspace's pool (never into an operand, so the loops carry `restrict` and
 * vectorise without alias checks). A slot knows whether any of its elements is null
 * (`nn`); when none is, its null flags are neither written nor read, and the instructions
 * take their null-free loops. Most blocks have no null at all (parent links resolve,
 * `prev` exists), so the flags are computed exactly rather than assumed. The value of a null
 * element is never read by anything: no loop needs to keep it defined. */

#define GC_BATCH 256

/* The block loops below are simple element-wise loops; let GCC vectorise them at -O2 too.
 * Vectorising element-wise loops does not reassociate anything: results are identical.
 * (This file is compiled with -fno-math-errno, harness/CMakeLists.txt: nothing reads errno,
 * and a sqrt that need not set it vectorises; the root is the same correctly rounded IEEE
 * operation either way.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("tree-vectorize")
#endif

typedef union bnum {
    int64_t i;
    double f;
} bnum;

typedef struct bslot {
    bnum v[GC_BATCH];
    uint8_t n[GC_BATCH]; /* null flags: meaningful (and written) only when nn */
    int nn;              /* 0: no element is null; 1: n[] says which are */
} bslot;

/* the null flags of a slot without nulls, for the loops that read both operands' flags */
static const uint8_t no_nulls[GC_BATCH];

static inline const uint8_t *nulls_of(const bslot *s)
{
    return s->nn ? s->n : no_nulls;
}

/* Whether the batch VM can run p: no string, no outer row, and an aggregate only when it is
 * one of u's that does not read `outer` (u NULL: no aggregate at all, which is what the
 * shared aggregates' classes need, their code being run for whichever unit asks first). */
static int batch_ok(const gc_unit *u, const gc_prog *p)
{
    if (!p->code)
        return 1;
    for (uint32_t i = 0; i < p->n; i++) {
        const gc_ins *in = &p->code[i];
        switch ((gc_opcode)in->op) {
        case GC_I_PUSH_S:
        case GC_I_CMP_S:
        case GC_I_ROW_OUTER:
            return 0;
        case GC_I_LOAD_CUR:
        case GC_I_LOAD_REG:
            if (in->ctype == GC_T_STR)
                return 0;
            break;
        case GC_I_AGG:
            if (!u || in->a >= u->nagg || u->aggs[in->a].uses_outer)
                return 0;
            break;
        default:
            if (in->op > GC_I_CMP_CK)
                return 0;
            break;
        }
    }
    return 1;
}

/* Integer loads of one column for n rows: rows[] (NULL: consecutive rows from base; else
 * absolute rows, -1 for a missing one, and the table has at least one row). A missing row
 * reads row 0 (its value is never used) so the loop has no branch. Returns whether any
 * element is null; nl[] is written only when it can be. */
/* One element of bload's loops, which are unrolled four times by hand: GCC vectorised the
 * rolled strided loops into long insert and blend sequences (level 3's column loads: 62.5 M
 * instructions rolled, 46.7 M with the first loop unrolled). */
#define BLOAD_NIM(T, F, NULLPAT, CONV, I)                                                          \
    do {                                                                                           \
        T x;                                                                                       \
        memcpy(&x, base + (size_t)(I)*stride, sizeof x);                                           \
        const uint8_t z = (uint8_t)(x == (T)(NULLPAT));                                            \
        nl[I] = z;                                                                                 \
        anyn |= z;                                                                                 \
        v[I].F = CONV;                                                                             \
    } while (0)
/* ISNULL(x): whether a present row's value is null (0 for a float column) */
#define BLOAD_ROW(T, F, ISNULL, CONV, I)                                                           \
    do {                                                                                           \
        const int64_t r = rows[I];                                                                 \
        const int miss = r < 0;                                                                    \
        T x;                                                                                       \
        memcpy(&x, base + (size_t)(miss ? 0 : r) * stride, sizeof x);                              \
        const uint8_t z = (uint8_t)(miss | (ISNULL));                                              \
        nl[I] = z;                                                                                 \
        anyn |= z;                                                                                 \
        v[I].F = CONV;                                                                             \
    } while (0)
/* One column's loads into the slot's field F (i or f). NIM: whether the null pattern applies
 * (always 0 for a float column, which is never null by pattern: only a missing row is; the
 * compiler then drops the pattern loop and test). */
#define BLOAD_COL(T, F, NIM, NULLPAT, ISNULL, CONV)                                                \
    do {                                                                                           \
        if (!rows && !(NIM)) {                                                                     \
            const uint8_t *p = base;                                                               \
            int i = 0;                                                                             \
            for (; i + 4 <= n; i += 4, p += 4 * stride) {                                          \
                T x;                                                                               \
                memcpy(&x, p, sizeof x);                                                           \
                v[i].F = CONV;                                                                     \
                memcpy(&x, p + stride, sizeof x);                                                  \
                v[i + 1].F = CONV;                                                                 \
                memcpy(&x, p + 2 * stride, sizeof x);                                              \
                v[i + 2].F = CONV;                                                                 \
                memcpy(&x, p + 3 * stride, sizeof x);                                              \
                v[i + 3].F = CONV;                                                                 \
            }                                                                                      \
            for (; i < n; i++, p += stride) {                                                      \
                T x;                                                                               \
                memcpy(&x, p, sizeof x);                                                           \
                v[i].F = CONV;                                                                     \
            }                                                                                      \
            return 0;                                                                              \
        }                                                                                          \
        uint8_t anyn = 0;                                                                          \
        int i = 0;                                                                                 \
        if (!rows) {                                                                               \
            for (; i < n; i++)                                                                     \
                BLOAD_NIM(T, F, NULLPAT, CONV, i);                                                 \
            return anyn != 0;                                                                      \
        }                                                                                          \
        for (; i + 4 <= n; i += 4) {                                                               \
            BLOAD_ROW(T, F, ISNULL, CONV, i);                                                      \
            BLOAD_ROW(T, F, ISNULL, CONV, i + 1);                                                  \
            BLOAD_ROW(T, F, ISNULL, CONV, i + 2);                                                  \
            BLOAD_ROW(T, F, ISNULL, CONV, i + 3);                                                  \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            BLOAD_ROW(T, F, ISNULL, CONV, i);                                                      \
        return anyn != 0;                                                                          \
    } while (0)
#define BLOAD_INT(T, NULLPAT, CONV) BLOAD_COL(T, i, nim, NULLPAT, nim &(x == (T)(NULLPAT)), CONV)
#define BLOAD_FLT(T)                BLOAD_COL(T, f, 0, 0, 0, x)

/* base already includes the column offset; returns the slot's nn */
static GC_VEC int bload(const uint8_t *base, size_t stride, const int64_t *rows, unsigned ctype,
                        unsigned flags, int n, bnum *restrict v, uint8_t *restrict nl)
{
    const int nim = (flags & GC_CF_NULL_IF_MAX) != 0;
    switch (ctype) {
    case GC_T_BOOL:
        BLOAD_INT(uint8_t, UINT8_MAX, x != 0);
    case GC_T_U8:
        BLOAD_INT(uint8_t, UINT8_MAX, x);
    case GC_T_S8:
        BLOAD_INT(int8_t, -1, x);
    case GC_T_U16:
        BLOAD_INT(uint16_t, UINT16_MAX, x);
    case GC_T_S16:
        BLOAD_INT(int16_t, -1, x);
    case GC_T_U32:
        BLOAD_INT(uint32_t, UINT32_MAX, x);
    case GC_T_S32:
        BLOAD_INT(int32_t, -1, x);
    case GC_T_U64:
        BLOAD_INT(uint64_t, UINT64_MAX, (int64_t)x);
    case GC_T_S64:
        BLOAD_INT(int64_t, -1, x);
    case GC_T_F32:
        BLOAD_FLT(float);
    default: /* GC_T_F64 */
        BLOAD_FLT(double);
    }
}

/* One parent step for n rows: dst[i] = the parent row of reg[i] (-1 when reg[i] is -1, the
 * link is null, negative or past the parent table's cnt rows). base is the link column of
 * the child table, which has at least one row. One pass, no intermediate slot. reg NULL:
 * the rows are consecutive from base (the current rows of a block: no row is missing, and
 * none needs its index read). */
#define PSTEP(T, NULLPAT, CONV)                                                                    \
    if (!reg) {                                                                                    \
        for (int i = 0; i < n; i++) {                                                              \
            T x;                                                                                   \
            memcpy(&x, base + (size_t)i * stride, sizeof x);                                       \
            const int64_t p = CONV;                                                                \
            const int bad = (nim & (x == (T)(NULLPAT))) | (p < 0) | (p >= cnt);                    \
            dst[i] = bad ? -1 : p;                                                                 \
        }                                                                                          \
        break;                                                                                     \
    }                                                                                              \
    for (int i = 0; i < n; i++) {                                                                  \
        const int64_t r = reg[i];                                                                  \
        const int miss = r < 0;                                                                    \
        T x;                                                                                       \
        memcpy(&x, base + (size_t)(miss ? 0 : r) * stride, sizeof x);                              \
        const int64_t p = CONV;                                                                    \
        const int bad = miss | (nim & (x == (T)(NULLPAT))) | (p < 0) | (p >= cnt);                 \
        dst[i] = bad ? -1 : p;                                                                     \
    }                                                                                              \
    break;

static GC_VEC void parent_step(const uint8_t *base, size_t stride, const int64_t *restrict reg,
                               unsigned ctype, unsigned flags, int64_t cnt, int n,
                               int64_t *restrict dst)
{
    const int nim = (flags & GC_CF_NULL_IF_MAX) != 0;
    switch (ctype) {
    case GC_T_BOOL:
        PSTEP(uint8_t, UINT8_MAX, x != 0)
    case GC_T_U8:
        PSTEP(uint8_t, UINT8_MAX, x)
    case GC_T_S8:
        PSTEP(int8_t, -1, x)
    case GC_T_U16:
        PSTEP(uint16_t, UINT16_MAX, x)
    case GC_T_S16:
        PSTEP(int16_t, -1, x)
    case GC_T_U32:
        PSTEP(uint32_t, UINT32_MAX, x)
    case GC_T_S32:
        PSTEP(int32_t, -1, x)
    case GC_T_U64:
        PSTEP(uint64_t, UINT64_MAX, (int64_t)x)
    default: /* GC_T_S64 (the compiler admits integer link columns only) */
        PSTEP(int64_t, -1, x)
    }
}

#define GC_BATCH_COLS 24
/* literals kept as whole slots in a workspace (bws.lit) */
#define GC_BATCH_LITS 8
/* row paths a block keeps (gc_inv_assign_paths numbers at most this many per program pair) */
#define GC_BATCH_PATHS 64

/* x != 0 as 0/1 without a 64-bit compare (which SSE2 lacks): vectorises */
static inline uint64_t bnz(int64_t x)
{
    return ((uint64_t)x | (0 - (uint64_t)x)) >> 63;
}

/* Signed 64-bit compares as 0/1 from subtraction and sign bits (overflow-safe): the same
 * truth values as the C operators, in SSE2 vector operations. */
static inline uint64_t b_lt(int64_t x, int64_t y)
{
    const uint64_t ux = (uint64_t)x, uy = (uint64_t)y, d = ux - uy;
    return (d ^ ((ux ^ uy) & (d ^ ux))) >> 63;
}
static inline uint64_t b_gt(int64_t x, int64_t y)
{
    return b_lt(y, x);
}
static inline uint64_t b_le(int64_t x, int64_t y)
{
    return b_lt(y, x) ^ 1;
}
static inline uint64_t b_ge(int64_t x, int64_t y)
{
    return b_lt(x, y) ^ 1;
}
static inline uint64_t b_eq(int64_t x, int64_t y)
{
    return bnz(x ^ y) ^ 1;
}
static inline uint64_t b_ne(int64_t x, int64_t y)
{
    return bnz(x ^ y);
}

/* A row vector known to be consecutive rows: element i is row first + i when lo <= i < hi,
 * and missing (-1) outside. A `prev` or `next` step from the block's own rows gives one (the
 * first or last element missing at the table's ends), and a column read through it is read
 * as the current rows' columns are, in sequence, not through the row-index vector (which
 * cost about four times as much a row), and a parent step from it likewise. */
struct bseq {
    int64_t first;
    int lo, hi;
};

/* What run_batch works in: the slot pool, the row register, and the columns of the current
 * rows loaded so far for this block (shared by where and expect: a column is read from
 * the rows once per block however often the expressions use it). */
typedef struct bws {
    bslot *pool;  /* npool slots the instructions write their results into */
    bslot **free; /* the pool's free slots: free[0..nfree) */
    int npool, nfree;
    bslot *col;               /* GC_BATCH_COLS cached columns (after the pool) */
    int64_t reg[2][GC_BATCH]; /* the row register of an unnumbered path (two: steps are
                               * computed out of place) */
    int64_t cur[GC_BATCH];    /* the current rows when not consecutive */
    int64_t ident[GC_BATCH];  /* r0, r0 + 1, ...: the current rows when consecutive */
    int ident_ok;
    uint8_t pass[GC_BATCH]; /* the rows `where` passed (unit_block) */
    /* the row vector of each numbered path (gc_inv_assign_paths) reached in this block:
     * path p (1-based) is preg[p - 1], valid when bit p - 1 of pvalid is set. Like the
     * column cache, it describes the block's current rows and is reset with ncol. */
    int64_t (*preg)[GC_BATCH];
    uint32_t npaths;
    uint64_t pvalid;
    /* and its runs of equal rows (path_runs): prun_n[p - 1] is 0 while not yet looked for,
     * -1 when there are too many to pay, else the number of runs, which start at
     * prun[p - 1][0..nr) (prun[p - 1][nr] = n). A child's parent is usually its neighbour's
     * (a packet's vertices are consecutive), so a path through a parent link holds a few runs
     * per block, and a column read through it is read once per run, not once per row. */
    int16_t *prun_n;
    uint16_t (*prun)[GC_BATCH + 1];
    /* and whether it is a window of consecutive rows (bseq; bit p - 1 of pseqv, meaningful
     * when the path's pvalid bit is set): `prev` and `next` of the block's own rows */
    struct bseq *pseq;
    uint64_t pseqv;
    /* cached columns: LOAD_CUR (key_path 0) or LOAD_REG through numbered path key_path */
    size_t key_ofs[GC_BATCH_COLS];
    uint32_t key_path[GC_BATCH_COLS];
    uint8_t key_ctype[GC_BATCH_COLS], key_flags[GC_BATCH_COLS];
    /* the unit that last used each cached column (stamp): in a shared table pass the units
     * of a block take turns in one workspace, and the columns of the block's rows one unit
     * loaded stay cached for the next (unit_next); when the cache is full, a column no
     * earlier instruction of the running unit used is the one replaced */
    uint32_t key_stamp[GC_BATCH_COLS];
    uint32_t stamp;
    /* literals (PUSH_I / PUSH_F): a slot of GC_BATCH copies of each, filled at its first use
     * and kept for the workspace's life (a literal is the same in every block and unit, and
     * no instruction writes an operand), instead of a pool slot filled at every use */
    bslot *lit; /* GC_BATCH_LITS slots after the cached columns */
    int64_t lit_bits[GC_BATCH_LITS];
    int nlit;
    int ncol;
    int partial; /* the cache holds columns of only the rows that passed a `where` */
} bws;

/* A block's caches start empty: new rows (or the rows that passed `where`). */
static inline void bws_reset(bws *w)
{
    w->ncol = 0;
    w->pvalid = 0;
    w->ident_ok = 0;
    w->partial = 0;
}

/* The next unit of the same block in a shared pass (after bws_reset at the block's start):
 * the columns of the block's own rows stay cached (they are the same bytes whichever unit
 * reads them); the path vectors and the columns read through them are forgotten, as path
 * numbers are each program's own, and so is everything when the previous unit compacted
 * its rows. */
static inline void bws_next_unit(bws *w)
{
    if (w->partial) {
        bws_reset(w);
    } else {
        for (int c = 0; c < w->ncol; c++)
            if (w->key_path[c] != 0)
                w->key_path[c] = UINT32_MAX; /* no path has this number */
        w->pvalid = 0;
    }
    w->stamp++;
}

/* A cache entry for a new column: a free one, else one the running unit has not used
 * (not on its stack); -1 when every entry is the running unit's (a pool slot then) */
static inline int bws_new_col(bws *w)
{
    if (w->ncol < GC_BATCH_COLS)
        return w->ncol++;
    for (int c = 0; c < GC_BATCH_COLS; c++)
        if (w->key_stamp[c] != w->stamp)
            return c;
    return -1;
}

/* Allocate a workspace for programs of at most `stack` stack slots and `npaths` paths. */
static bws *bws_new(uint32_t stack, uint32_t npaths)
{
    /* each stack entry owns at most one pool slot; an instruction takes one more for its
     * result before it gives its operands back, and a fused compare two for columns the
     * full cache could not keep */
    const int npool = (int)stack + 4;
    bws *w = malloc(sizeof *w);
    bslot *sl = malloc(((size_t)npool + GC_BATCH_COLS + GC_BATCH_LITS) * sizeof *sl);
    bslot **fr = malloc((size_t)npool * sizeof *fr);
    int64_t(*preg)[GC_BATCH] = npaths ? malloc((size_t)npaths * sizeof *preg) : NULL;
    int16_t *prun_n = npaths ? malloc((size_t)npaths * sizeof *prun_n) : NULL;
    uint16_t(*prun)[GC_BATCH + 1] = npaths ? malloc((size_t)npaths * sizeof *prun) : NULL;
    struct bseq *pseq = npaths ? malloc((size_t)npaths * sizeof *pseq) : NULL;
    if (!w || !sl || !fr || (npaths && (!preg || !prun_n || !prun || !pseq))) {
        free(w);
        free(sl);
        free(fr);
        free(preg);
        free(prun_n);
        free(prun);
        free(pseq);
        return NULL;
    }
    w->prun_n = prun_n;
    w->prun = prun;
    w->pseq = pseq;
    w->pseqv = 0;
    w->pool = sl;
    w->free = fr;
    w->npool = npool;
    w->nfree = 0;
    w->col = sl + npool;
    w->lit = w->col + GC_BATCH_COLS;
    w->nlit = 0;
    w->preg = preg;
    w->npaths = npaths;
    w->stamp = 0;
    bws_reset(w);
    return w;
}

static void bws_free(bws *w)
{
    if (!w)
        return;
    free(w->pool);
    free(w->free);
    free(w->preg);
    free(w->prun_n);
    free(w->prun);
    free(w->pseq);
    free(w);
}

static inline bslot *bs_take(bws *w)
{
    return w->free[--w->nfree];
}

/* Give a slot back when it is the pool's (a cached column stays in the cache). The pool
 * and the cache are one array, so the comparison is between pointers into one object. */
static inline void bs_drop(bws *w, const bslot *s)
{
    if (s && s >= w->pool && s < w->pool + w->npool)
        w->free[w->nfree++] = (bslot *)(uintptr_t)s;
}

/* Column ofs (ctype, flags) of the current rows: cached, or loaded into a pool slot (when
 * the cache is full of the running unit's columns; the caller drops it). */
static const bslot *bcol(ev *e, bws *w, uint32_t t, size_t k, size_t r0, const int64_t *cur, int n,
                         size_t ofs, unsigned ctype, unsigned flags)
{
    flags &= GC_CF_NULL_IF_MAX; /* the only flag a load reads: one cache entry per column */
    for (int c = 0; c < w->ncol; c++)
        if (w->key_ofs[c] == ofs && w->key_path[c] == 0 && w->key_ctype[c] == ctype &&
            w->key_flags[c] == flags) {
            w->key_stamp[c] = w->stamp;
            return &w->col[c];
        }
    bslot *d;
    const int c = bws_new_col(w);
    if (c >= 0) {
        w->key_stamp[c] = w->stamp;
        w->key_ofs[c] = ofs;
        w->key_path[c] = 0;
        w->key_ctype[c] = (uint8_t)ctype;
        w->key_flags[c] = (uint8_t)flags;
        d = &w->col[c];
    } else {
        d = bs_take(w);
    }
    const size_t rs = e->s->descs[t]->row_size;
    if (cur)
        d->nn = bload((const uint8_t *)e->levels[k][t].rows + ofs, rs, cur, ctype, flags, n, d->v,
                      d->n);
    else
        d->nn = bload(rowp(e, k, t, (int64_t)r0) + ofs, rs, NULL, ctype, flags, n, d->v, d->n);
    return d;
}

/* o's null flags: the union of x's and y's */
static GC_VEC void bnull2(bslot *restrict o, const bslot *x, const bslot *y, int n)
{
    o->nn = x->nn | y->nn;
    if (x->nn && y->nn) {
        const uint8_t *xn = x->n, *yn = y->n;
        for (int i = 0; i < n; i++)
            o->n[i] = (uint8_t)(xn[i] | yn[i]);
    } else if (x->nn) {
        memcpy(o->n, x->n, (size_t)n);
    } else if (y->nn) {
        memcpy(o->n, y->n, (size_t)n);
    }
}

/* o's null flags: x's */
static GC_VEC void bnull1(bslot *restrict o, const bslot *x, int n)
{
    o->nn = x->nn;
    if (x->nn)
        memcpy(o->n, x->n, (size_t)n);
}

#define BOPF_EQ b_eq
#define BOPF_NE b_ne
#define BOPF_LT b_lt
#define BOPF_LE b_le
#define BOPF_GT b_gt
#define BOPF_GE b_ge

#define BCMP_LOOP(OP, Y)                                                                           \
    for (int i = 0; i < n; i++)                                                                    \
        ov[i].i = (int64_t)BOPF_##OP(xv[i].i, (Y));

#define BCMP_OPS(Y)                                                                                \
    switch (op) {                                                                                  \
    case GC_OP_EQ:                                                                                 \
        BCMP_LOOP(EQ, Y);                                                                          \
        break;                                                                                     \
    case GC_OP_NE:                                                                                 \
        BCMP_LOOP(NE, Y);                                                                          \
        break;                                                                                     \
    case GC_OP_LT:                                                                                 \
        BCMP_LOOP(LT, Y);                                                                          \
        break;                                                                                     \
    case GC_OP_LE:                                                                                 \
        BCMP_LOOP(LE, Y);                                                                          \
        break;                                                                                     \
    case GC_OP_GT:                                                                                 \
        BCMP_LOOP(GT, Y);                                                                          \
        break;                                                                                     \
    default:                                                                                       \
        BCMP_LOOP(GE, Y);                                                                          \
        break;                                                                                     \
    }

/* o = x OP y (integers); a null element's value is whatever the compare of its values
 * gives, and is never read */
static GC_VEC void bcmp_cc(gc_binop op, bslot *restrict o, const bslot *x, const bslot *y, int n)
{
    bnum *restrict ov = o->v;
    const bnum *xv = x->v, *yv = y->v;
    BCMP_OPS(yv[i].i)
    bnull2(o, x, y, n);
}

/* o = x OP k */
static GC_VEC void bcmp_ck(gc_binop op, bslot *restrict o, const bslot *x, int64_t k, int n)
{
    bnum *restrict ov = o->v;
    const bnum *xv = x->v;
    BCMP_OPS(k)
    bnull1(o, x, n);
}

/* The integer 1 as a double's bits. A loop that sets an integer from a compare of doubles
 * is not vectorised (GCC 12, SSE2); one that selects between two doubles is, and storing
 * this double (or 0.0, whose bits are 0) stores the integer 1 (or 0): a select moves bits,
 * it does no arithmetic on them. */
static const bnum true_bits = {.i = 1};

#define FCMP_LOOP(OP)                                                                              \
    for (int i = 0; i < n; i++)                                                                    \
        ov[i].f = xv[i].f OP yv[i].f ? t1 : 0.0;

/* o = x OP y (doubles) */
static GC_VEC void bcmp_f(gc_binop op, bslot *restrict o, const bslot *x, const bslot *y, int n)
{
    bnum *restrict ov = o->v;
    const bnum *xv = x->v, *yv = y->v;
    const double t1 = true_bits.f;
    switch (op) {
    case GC_OP_EQ:
        FCMP_LOOP(==);
        break;
    case GC_OP_NE:
        FCMP_LOOP(!=);
        break;
    case GC_OP_LT:
        FCMP_LOOP(<);
        break;
    case GC_OP_LE:
        FCMP_LOOP(<=);
        break;
    case GC_OP_GT:
        FCMP_LOOP(>);
        break;
    default:
        FCMP_LOOP(>=);
        break;
    }
    bnull2(o, x, y, n);
}

#define BFOLD_LOOP(OP, Y, CONN)                                                                    \
    for (int i = 0; i < n; i++)                                                                    \
        ov[i].i = (int64_t)(bnz(cv[i].i) CONN BOPF_##OP(xv[i].i, (Y)));

#define BFOLD_OPS(Y, CONN)                                                                         \
    switch (op) {                                                                                  \
    case GC_OP_EQ:                                                                                 \
        BFOLD_LOOP(EQ, Y, CONN);                                                                   \
        break;                                                                                     \
    case GC_OP_NE:                                                                                 \
        BFOLD_LOOP(NE, Y, CONN);                                                                   \
        break;                                                                                     \
    case GC_OP_LT:                                                                                 \
        BFOLD_LOOP(LT, Y, CONN);                                                                   \
        break;                                                                                     \
    case GC_OP_LE:                                                                                 \
        BFOLD_LOOP(LE, Y, CONN);                                                                   \
        break;                                                                                     \
    case GC_OP_GT:                                                                                 \
        BFOLD_LOOP(GT, Y, CONN);                                                                   \
        break;                                                                                     \
    default:                                                                                       \
        BFOLD_LOOP(GE, Y, CONN);                                                                   \
        break;                                                                                     \
    }

/* o = c and/or (x OP y) (or x OP *k), where none of c, x, y has a null: nor has o */
static GC_VEC void bfold(gc_binop op, int is_and, bslot *restrict o, const bslot *c, const bslot *x,
                         const int64_t *k, const bslot *y, int n)
{
    bnum *restrict ov = o->v;
    const bnum *cv = c->v, *xv = x->v;
    o->nn = 0;
    if (k) {
        const int64_t kk = *k;
        if (is_and) {
            BFOLD_OPS(kk, &)
        } else {
            BFOLD_OPS(kk, |)
        }
    } else {
        const bnum *yv = y->v;
        if (is_and) {
            BFOLD_OPS(yv[i].i, &)
        } else {
            BFOLD_OPS(yv[i].i, |)
        }
    }
}

/* The element-wise arithmetic that cannot make a null: values only (their nulls are the
 * union of the operands', set by the caller) */
static GC_VEC void barith(gc_opcode op, bnum *restrict o, const bnum *x, const bnum *y, int n)
{
    switch (op) {
    case GC_I_ADD_I:
        for (int i = 0; i < n; i++)
            o[i].i = wrap_add(x[i].i, y[i].i);
        break;
    case GC_I_SUB_I:
        for (int i = 0; i < n; i++)
            o[i].i = wrap_sub(x[i].i, y[i].i);
        break;
    case GC_I_MUL_I:
        for (int i = 0; i < n; i++)
            o[i].i = wrap_mul(x[i].i, y[i].i);
        break;
    case GC_I_ADD_F:
        for (int i = 0; i < n; i++)
            o[i].f = x[i].f + y[i].f;
        break;
    case GC_I_SUB_F:
        for (int i = 0; i < n; i++)
            o[i].f = x[i].f - y[i].f;
        break;
    case GC_I_MUL_F:
        for (int i = 0; i < n; i++)
            o[i].f = x[i].f * y[i].f;
        break;
    case GC_I_BAND:
        for (int i = 0; i < n; i++)
            o[i].i = x[i].i & y[i].i;
        break;
    default: /* GC_I_BOR */
        for (int i = 0; i < n; i++)
            o[i].i = x[i].i | y[i].i;
        break;
    }
}

/* The arithmetic that can make a null (a zero divisor, a shift out of range): o = x OP y
 * element by element, with the scalar rules of run(); o's nulls exact. */
static GC_VEC void barith_null(gc_opcode op, bslot *restrict o, const bslot *x, const bslot *y,
                               int n)
{
    const uint8_t *xn = nulls_of(x), *yn = nulls_of(y);
    bnum *restrict ov = o->v;
    uint8_t *restrict on = o->n;
    uint8_t anyn = 0;
    if (op == GC_I_DIV_F) {
        /* a zero divisor divides by one and makes a null: the divisors first, then the
         * quotients (two loops vectorise; one with the select inside does not) */
        double d[GC_BATCH];
        for (int i = 0; i < n; i++)
            d[i] = y->v[i].f == 0.0 ? 1.0 : y->v[i].f;
        for (int i = 0; i < n; i++)
            ov[i].f = x->v[i].f / d[i];
        for (int i = 0; i < n; i++) {
            const uint8_t z = (uint8_t)((y->v[i].f == 0.0) | xn[i] | yn[i]);
            on[i] = z;
            anyn |= z;
        }
        o->nn = anyn != 0;
        return;
    }
    for (int i = 0; i < n; i++) {
        uint8_t nl = (uint8_t)(xn[i] | yn[i]);
        int64_t x1 = x->v[i].i, y1 = y->v[i].i, r = 0;
        double fx = x->v[i].f, fy = y->v[i].f, fr = 0;
        int flt = 0;
        if (!nl) {
            switch (op) {
            case GC_I_IDIV_I:
                if (y1 == 0)
                    nl = 1;
                else if (x1 == INT64_MIN && y1 == -1)
                    r = INT64_MIN;
                else
                    r = x1 / y1;
                break;
            case GC_I_IDIV_F:
                flt = 1;
                if (fy == 0.0)
                    nl = 1;
                else
                    fr = trunc(fx / fy);
                break;
            case GC_I_MOD_I:
                if (y1 == 0)
                    nl = 1;
                else if (y1 == -1)
                    r = 0;
                else
                    r = x1 % y1;
                break;
            case GC_I_MOD_F:
                flt = 1;
                if (fy == 0.0)
                    nl = 1;
                else
                    fr = fmod(fx, fy);
                break;
            case GC_I_SHL:
                if (y1 < 0 || y1 > 63)
                    nl = 1;
                else
                    r = (int64_t)((uint64_t)x1 << y1);
                break;
            default: /* GC_I_SHR */
                if (y1 < 0 || y1 > 63)
                    nl = 1;
                else
                    r = x1 < 0 ? ~(~x1 >> y1) : x1 >> y1; /* arithmetic, portably */
                break;
            }
        }
        if (flt)
            ov[i].f = fr;
        else
            ov[i].i = r;
        on[i] = nl;
        anyn |= nl;
    }
    o->nn = anyn != 0;
}

/* o = x and/or y, three-valued: a side that is not null and equals `decide` decides; else
 * null if either side is null; else the other value */
static GC_VEC void band_or(int is_and, bslot *restrict o, const bslot *x, const bslot *y, int n)
{
    bnum *restrict ov = o->v;
    const bnum *xv = x->v, *yv = y->v;
    if (!x->nn && !y->nn) {
        o->nn = 0;
        if (is_and)
            for (int i = 0; i < n; i++)
                ov[i].i = (int64_t)(bnz(xv[i].i) & bnz(yv[i].i));
        else
            for (int i = 0; i < n; i++)
                ov[i].i = (int64_t)(bnz(xv[i].i) | bnz(yv[i].i));
        return;
    }
    const uint8_t *xn = nulls_of(x), *yn = nulls_of(y);
    uint8_t *restrict on = o->n;
    uint8_t anyn = 0;
    if (is_and) {
        for (int i = 0; i < n; i++) {
            const int f = ((xn[i] == 0) & (xv[i].i == 0)) | ((yn[i] == 0) & (yv[i].i == 0));
            const uint8_t nl = (uint8_t)((f == 0) & (xn[i] | yn[i]));
            on[i] = nl;
            anyn |= nl;
            ov[i].i = !f;
        }
    } else {
        for (int i = 0; i < n; i++) {
            const int t = ((xn[i] == 0) & (xv[i].i != 0)) | ((yn[i] == 0) & (yv[i].i != 0));
            const uint8_t nl = (uint8_t)((t == 0) & (xn[i] | yn[i]));
            on[i] = nl;
            anyn |= nl;
            ov[i].i = t;
        }
    }
    o->nn = anyn != 0;
}

/* o = (double)x. SSE2 has no vector int64 -> double conversion; for |x| < 2^51 (every
 * column of 32 bits or less, and most sums of them) adding x to the bits of 1.5 * 2^52 and
 * subtracting 1.5 * 2^52 gives exactly the converted value, in vector operations. */
static GC_VEC void i2f(bnum *restrict o, const bnum *x, int n)
{
    uint64_t out = 0;
    for (int i = 0; i < n; i++)
        out |= ((uint64_t)x[i].i + ((uint64_t)1 << 51)) >> 52;
    if (out) {
        for (int i = 0; i < n; i++)
            o[i].f = (double)x[i].i;
        return;
    }
    for (int i = 0; i < n; i++) {
        const uint64_t b = (uint64_t)x[i].i + UINT64_C(0x4338000000000000);
        double d;
        memcpy(&d, &b, sizeof d);
        o[i].f = d - 6755399441055744.0; /* 1.5 * 2^52 */
    }
}

/* The rows of the block: cur, or r0, r0 + 1, ... (computed once per block) */
static GC_VEC const int64_t *block_rows(bws *w, size_t r0, const int64_t *cur, int n)
{
    if (cur)
        return cur;
    if (!w->ident_ok) {
        for (int i = 0; i < n; i++)
            w->ident[i] = (int64_t)(r0 + (size_t)i);
        w->ident_ok = 1;
    }
    return w->ident;
}

/* The runs of equal values of v[0..n) into st[0..nr), st[nr] = n: the number of runs, or -1
 * when there are more than a quarter of n (at least one), where reading once per run would
 * no longer pay for looking for them (a `prev` path: every row its own). */
static GC_VEC int find_runs(const int64_t *v, int n, uint16_t *st)
{
    const int lim = n / 4 > 1 ? n / 4 : 1;
    int nr = 1, i = 1;
    if (n <= 0)
        return -1;
    st[0] = 0;
    /* eight rows at a time: a run's inside (most rows) costs one vector test */
    for (; i + 8 <= n; i += 8) {
        uint64_t d = 0;
        for (int q = 0; q < 8; q++)
            d |= (uint64_t)(v[i + q] ^ v[i + q - 1]);
        if (!d)
            continue;
        for (int q = 0; q < 8; q++)
            if (v[i + q] != v[i + q - 1]) {
                if (nr == lim)
                    return -1;
                st[nr++] = (uint16_t)(i + q);
            }
    }
    for (; i < n; i++)
        if (v[i] != v[i - 1]) {
            if (nr == lim)
                return -1;
            st[nr++] = (uint16_t)i;
        }
    st[nr] = (uint16_t)n;
    return nr;
}

/* d[a..b) = x: one run's value (its bits) or row copied over the run (vectorised) */
static inline void fill_num(bnum *restrict d, int a, int b, int64_t x)
{
    for (int i = a; i < b; i++)
        d[i].i = x;
}

static inline void fill_row(int64_t *restrict d, int a, int b, int64_t x)
{
    for (int i = a; i < b; i++)
        d[i] = x;
}

/* The runs of numbered path p (its vector v, n rows), looked for at its first use in the
 * block; -1 when it has too many */
static int path_runs(bws *w, uint32_t p, const int64_t *v, int n)
{
    int16_t *pn = &w->prun_n[p - 1];
    if (*pn == 0)
        *pn = (int16_t)find_runs(v, n, w->prun[p - 1]);
    return *pn;
}

/* bload for rows[] that hold nr runs of equal rows starting at st[]: each run's row is read
 * once (as bload reads it: load_int's widths, nulls by pattern and a missing row; a float
 * never null by pattern) and its value and null flag copied over the run. The same values
 * and flags as bload; returns the slot's nn. */
static GC_VEC int bload_runs(const uint8_t *base, size_t stride, const int64_t *rows,
                             const uint16_t *st, int nr, unsigned ctype, unsigned flags,
                             bnum *restrict v, uint8_t *restrict nl)
{
    bnum val[GC_BATCH];
    uint8_t z[GC_BATCH], anyn = 0;
    for (int j = 0; j < nr; j++) {
        const int64_t r = rows[st[j]];
        const uint8_t *p = base + (size_t)(r < 0 ? 0 : r) * stride;
        int nul = 0;
        if (ctype == GC_T_F32) {
            float f;
            memcpy(&f, p, sizeof f);
            val[j].f = f;
        } else if (ctype == GC_T_F64) {
            memcpy(&val[j].f, p, sizeof val[j].f);
        } else {
            val[j].i = load_int(p, ctype, flags, &nul);
        }
        z[j] = (uint8_t)((r < 0) | nul);
        anyn |= z[j];
    }
    for (int j = 0; j < nr; j++)
        fill_num(v, st[j], st[j + 1], val[j].i); /* a double by its bits */
    if (anyn)
        for (int j = 0; j < nr; j++)
            memset(nl + st[j], z[j], (size_t)(st[j + 1] - st[j]));
    return anyn != 0;
}

/* bload for a row vector of consecutive rows q (struct bseq): the rows inside the window in
 * sequence, each missing one as bload reads it through a row vector (row 0's bytes, null).
 * The same values and flags as bload(base, stride, rows, ...); returns the slot's nn. */
static int bload_seq(const uint8_t *base, size_t stride, const struct bseq *q, unsigned ctype,
                     unsigned flags, int n, bnum *restrict v, uint8_t *restrict nl)
{
    const int lo = q->lo, hi = q->hi;
    const int nn = bload(base + (size_t)(q->first + lo) * stride, stride, NULL, ctype, flags,
                         hi - lo, v + lo, nl + lo);
    if (lo == 0 && hi == n)
        return nn;
    if (!nn) /* the window's flags were not written */
        memset(nl + lo, 0, (size_t)(hi - lo));
    static const int64_t missing = -1;
    for (int i = 0; i < lo; i++)
        bload(base, stride, &missing, ctype, flags, 1, v + i, nl + i);
    for (int i = hi; i < n; i++)
        bload(base, stride, &missing, ctype, flags, 1, v + i, nl + i);
    return 1;
}

/* A row step (prev, next, parent: in) of a row vector reg that holds nr runs starting at
 * st[]: each run's step is taken once, as the block loops take it, and copied over the run.
 * When ost is not NULL the result's runs go there (adjacent runs that reached the same row
 * merged) and their number into *onr. */
static void step_runs(const ev *e, size_t k, const gc_ins *in, const int64_t *reg,
                      const uint16_t *st, int nr, int64_t *restrict dst, uint16_t *ost,
                      int16_t *onr)
{
    int64_t out[GC_BATCH];
    const int64_t cnt_from = (int64_t)tcount(e, k, in->a);
    for (int j = 0; j < nr; j++) {
        const int64_t r = reg[st[j]];
        int64_t o;
        if (in->op == GC_I_ROW_PREV) {
            o = r < 0 ? -1 : r - 1;
        } else if (in->op == GC_I_ROW_NEXT) {
            o = r < 0 ? r : r + 1 >= cnt_from ? -1 : r + 1;
        } else if (r < 0 || cnt_from == 0) {
            o = -1;
        } else {
            int nul;
            const int64_t x = load_int(rowp(e, k, in->a, r) + in->k.u, in->ctype, in->flags, &nul);
            o = nul || x < 0 || x >= (int64_t)tcount(e, k, in->b) ? -1 : x;
        }
        out[j] = o;
    }
    for (int j = 0; j < nr; j++)
        fill_row(dst, st[j], st[j + 1], out[j]);
    if (!ost)
        return;
    int m = 0;
    for (int j = 0; j < nr; j++)
        if (j == 0 || out[j] != out[j - 1])
            ost[m++] = st[j];
    ost[m] = st[nr];
    *onr = (int16_t)m;
}

/* Run p for the current rows of level slot k: r0 .. r0+n-1, or cur[0..n) when cur is not
 * NULL (absolute row indices); returns the slot holding the results (valid until the next
 * run_batch on w, or the next bws_reset when it is a cached column). */
static GC_VEC const bslot *run_batch(ev *e, const gc_prog *p, size_t k, size_t r0,
                                     const int64_t *cur, int n, bws *w)
{
    const bslot *stk[GC_INV_STACK];
    int sp = 0;
    const gc_ins *code = p->code;
    const int64_t *reg = w->reg[0]; /* the row register: a current-row vector, w->reg or preg */
    int rp = -1; /* what reg is: 0 the current rows, p > 0 numbered path p, -1 neither */
    struct bseq sq = {0, 0, 0}; /* reg's window of consecutive rows, when sq_ok */
    int sq_ok = 0;
    w->nfree = w->npool;
    for (int i = 0; i < w->npool; i++)
        w->free[i] = &w->pool[i];
    for (uint32_t pc = 0;; pc++) {
        const gc_ins *in = &code[pc];
        switch ((gc_opcode)in->op) {
        case GC_I_END:
            return stk[sp - 1];
        case GC_I_PUSH_I:
        case GC_I_PUSH_F: {
            /* the union's bits: an integer or a double (the same bits are the same slot) */
            const int64_t bits = in->k.i;
            int l = 0;
            while (l < w->nlit && w->lit_bits[l] != bits)
                l++;
            if (l < w->nlit) {
                stk[sp++] = &w->lit[l];
                break;
            }
            bslot *s;
            int m = n;
            if (w->nlit < GC_BATCH_LITS) {
                s = &w->lit[w->nlit];
                w->lit_bits[w->nlit++] = bits;
                m = GC_BATCH; /* whole: later blocks may be longer */
            } else {
                s = bs_take(w);
            }
            s->nn = 0;
            for (int i = 0; i < m; i++)
                s->v[i].i = bits;
            stk[sp++] = s;
            break;
        }
        case GC_I_PUSH_NULL: {
            bslot *s = bs_take(w);
            s->nn = 1;
            for (int i = 0; i < n; i++)
                s->v[i].i = 0;
            memset(s->n, 1, (size_t)n);
            stk[sp++] = s;
            break;
        }
        case GC_I_LOAD_CUR:
            stk[sp++] = bcol(e, w, in->a, k, r0, cur, n, in->k.u, in->ctype, in->flags);
            break;
        case GC_I_LOAD_REG: {
            /* a column through a numbered path is read once per block (the column cache,
             * keyed by the path as well) */
            const uint32_t path = (uint32_t)in->k2;
            const uint8_t flags = in->flags & GC_CF_NULL_IF_MAX;
            if (path) {
                int c = 0;
                while (c < w->ncol && !(w->key_path[c] == path && w->key_ofs[c] == in->k.u &&
                                        w->key_ctype[c] == in->ctype && w->key_flags[c] == flags))
                    c++;
                if (c < w->ncol) { /* this unit's entry: bws_next_unit forgot the others' */
                    stk[sp++] = &w->col[c];
                    break;
                }
            }
            bslot *d;
            const int c = path ? bws_new_col(w) : -1;
            if (c >= 0) {
                w->key_stamp[c] = w->stamp;
                w->key_ofs[c] = in->k.u;
                w->key_path[c] = path;
                w->key_ctype[c] = in->ctype;
                w->key_flags[c] = flags;
                d = &w->col[c];
            } else {
                d = bs_take(w);
            }
            /* consecutive rows have no runs to look for */
            const int nr = rp > 0 && !sq_ok ? path_runs(w, (uint32_t)rp, reg, n) : -1;
            if (tcount(e, k, in->a) == 0) { /* no rows: every register is -1 */
                d->nn = 1;
                for (int i = 0; i < n; i++)
                    d->v[i].i = 0;
                memset(d->n, 1, (size_t)n);
            } else if (sq_ok) { /* the block's own rows, or their prev or next */
                const uint8_t *base = (const uint8_t *)e->levels[k][in->a].rows + in->k.u;
                d->nn = bload_seq(base, e->s->descs[in->a]->row_size, &sq, in->ctype, in->flags, n,
                                  d->v, d->n);
            } else if (nr > 0) {
                const uint8_t *base = (const uint8_t *)e->levels[k][in->a].rows + in->k.u;
                d->nn = bload_runs(base, e->s->descs[in->a]->row_size, reg, w->prun[rp - 1], nr,
                                   in->ctype, in->flags, d->v, d->n);
            } else {
                const uint8_t *base = (const uint8_t *)e->levels[k][in->a].rows + in->k.u;
                const size_t rs = e->s->descs[in->a]->row_size;
                d->nn = bload(base, rs, reg, in->ctype, in->flags, n, d->v, d->n);
            }
            stk[sp++] = d;
            break;
        }
        case GC_I_CMP_CC:
        case GC_I_CMP_CK: {
            const uint32_t t = in->a >> 8;
            const gc_binop op = (gc_binop)(in->a & 0xff);
            const bslot *x = bcol(e, w, t, k, r0, cur, n, in->k.u, in->ctype,
                                  (in->flags & 1) ? GC_CF_NULL_IF_MAX : 0);
            const bslot *y = in->op == GC_I_CMP_CC ? bcol(e, w, t, k, r0, cur, n, in->b, in->pad,
                                                          (in->flags & 2) ? GC_CF_NULL_IF_MAX : 0)
                                                   : NULL;
            const gc_ins *nx = &code[pc + 1];
            bslot *o = bs_take(w);
            if (sp >= 1 && (nx->op == GC_I_AND || nx->op == GC_I_OR) && !stk[sp - 1]->nn &&
                !x->nn && !(y && y->nn)) {
                /* `c and x OP y` with no nulls: fold the compare into c (the batch VM runs
                 * instructions in order whatever the jumps, so skipping the AND is safe) */
                const bslot *c = stk[sp - 1];
                bfold(op, nx->op == GC_I_AND, o, c, x, y ? NULL : &in->k2, y, n);
                bs_drop(w, c);
                stk[sp - 1] = o;
                pc++;
            } else {
                if (y)
                    bcmp_cc(op, o, x, y, n);
                else
                    bcmp_ck(op, o, x, in->k2, n);
                stk[sp++] = o;
            }
            bs_drop(w, x);
            bs_drop(w, y);
            break;
        }
        case GC_I_ROW_CUR:
            reg = block_rows(w, r0, cur, n);
            rp = 0;
            sq_ok = !cur;
            sq.first = (int64_t)r0;
            sq.lo = 0;
            sq.hi = n;
            break;
        case GC_I_ROW_PREV:
        case GC_I_ROW_NEXT:
        case GC_I_ROW_PARENT: {
            /* A step is computed out of place, into its path's vector when the path is
             * numbered (and taken from there when this block already reached it) */
            const uint32_t path = (uint32_t)in->k2;
            const int numbered = path && path <= w->npaths;
            int64_t *dst;
            if (numbered) {
                if (w->pvalid >> (path - 1) & 1) {
                    reg = w->preg[path - 1];
                    rp = (int)path;
                    sq_ok = (int)(w->pseqv >> (path - 1) & 1);
                    if (sq_ok)
                        sq = w->pseq[path - 1];
                    break;
                }
                dst = w->preg[path - 1];
                w->pvalid |= (uint64_t)1 << (path - 1);
                w->prun_n[path - 1] = 0; /* runs not looked for yet */
            } else {
                dst = reg == w->reg[0] ? w->reg[1] : w->reg[0];
            }
            const int nr = rp > 0 && !sq_ok ? path_runs(w, (uint32_t)rp, reg, n) : -1;
            /* dst's window: prev or next of a window without missing rows is one */
            struct bseq nq = sq;
            int nq_ok = 0;
            if (sq_ok && sq.lo == 0 && sq.hi == n && in->op != GC_I_ROW_PARENT) {
                nq_ok = 1;
                if (in->op == GC_I_ROW_PREV) {
                    nq.first = sq.first - 1; /* row -1 missing */
                    nq.lo = nq.first < 0 && n > 0 ? 1 : 0;
                } else {
                    const int64_t cnt = (int64_t)tcount(e, k, in->a), left = cnt - (sq.first + 1);
                    nq.first = sq.first + 1; /* rows from cnt on missing */
                    nq.hi = left < 0 ? 0 : left < n ? (int)left : n;
                }
            }
            if (nr > 0) {
                /* a few runs of equal rows (a parent's children): one step per run */
                step_runs(e, k, in, reg, w->prun[rp - 1], nr, dst,
                          numbered ? w->prun[path - 1] : NULL,
                          numbered ? &w->prun_n[path - 1] : NULL);
            } else if (in->op == GC_I_ROW_PREV) {
                /* r - 1, and -1 stays -1: the sign bit instead of a 64-bit compare */
                for (int i = 0; i < n; i++)
                    dst[i] = (int64_t)((uint64_t)reg[i] - 1 + ((uint64_t)reg[i] >> 63));
            } else if (in->op == GC_I_ROW_NEXT) {
                const int64_t cnt = (int64_t)tcount(e, k, in->a);
                for (int i = 0; i < n; i++)
                    dst[i] = reg[i] < 0 ? reg[i] : reg[i] + 1 >= cnt ? -1 : reg[i] + 1;
            } else if (tcount(e, k, in->a) == 0) {
                for (int i = 0; i < n; i++)
                    dst[i] = -1;
            } else {
                const size_t rs = e->s->descs[in->a]->row_size;
                const uint8_t *base = (const uint8_t *)e->levels[k][in->a].rows + in->k.u;
                if (sq_ok) { /* consecutive rows: the links read in sequence */
                    parent_step(base + (size_t)(sq.first + sq.lo) * rs, rs, NULL, in->ctype,
                                in->flags, (int64_t)tcount(e, k, in->b), sq.hi - sq.lo,
                                dst + sq.lo);
                    for (int i = 0; i < sq.lo; i++)
                        dst[i] = -1;
                    for (int i = sq.hi; i < n; i++)
                        dst[i] = -1;
                } else {
                    parent_step(base, rs, reg, in->ctype, in->flags, (int64_t)tcount(e, k, in->b),
                                n, dst);
                }
            }
            reg = dst;
            rp = numbered ? (int)path : -1;
            sq_ok = nq_ok;
            sq = nq;
            if (numbered) {
                const uint64_t bit = (uint64_t)1 << (path - 1);
                w->pseqv = nq_ok ? w->pseqv | bit : w->pseqv & ~bit;
                w->pseq[path - 1] = nq;
            }
            break;
        }
        case GC_I_REG_INDEX: {
            bslot *s = bs_take(w);
            uint8_t anyn = 0;
            for (int i = 0; i < n; i++) {
                const uint8_t z = (uint8_t)(reg[i] < 0);
                s->v[i].i = reg[i];
                s->n[i] = z;
                anyn |= z;
            }
            s->nn = anyn != 0;
            stk[sp++] = s;
            break;
        }
        case GC_I_I2F: {
            const bslot *x = stk[sp - 1 - (int)in->a];
            bslot *o = bs_take(w);
            i2f(o->v, x->v, n);
            bnull1(o, x, n);
            bs_drop(w, x);
            stk[sp - 1 - (int)in->a] = o;
            break;
        }
        case GC_I_ADD_I:
        case GC_I_SUB_I:
        case GC_I_MUL_I:
        case GC_I_ADD_F:
        case GC_I_SUB_F:
        case GC_I_MUL_F:
        case GC_I_BAND:
        case GC_I_BOR:
        case GC_I_DIV_F:
        case GC_I_IDIV_I:
        case GC_I_IDIV_F:
        case GC_I_MOD_I:
        case GC_I_MOD_F:
        case GC_I_SHL:
        case GC_I_SHR: {
            const bslot *x = stk[sp - 2], *y = stk[sp - 1];
            bslot *o = bs_take(w);
            switch ((gc_opcode)in->op) {
            case GC_I_ADD_I:
            case GC_I_SUB_I:
            case GC_I_MUL_I:
            case GC_I_ADD_F:
            case GC_I_SUB_F:
            case GC_I_MUL_F:
            case GC_I_BAND:
            case GC_I_BOR:
                barith((gc_opcode)in->op, o->v, x->v, y->v, n);
                bnull2(o, x, y, n);
                break;
            default:
                barith_null((gc_opcode)in->op, o, x, y, n);
                break;
            }
            bs_drop(w, x);
            bs_drop(w, y);
            stk[sp - 2] = o;
            sp--;
            break;
        }
        case GC_I_CMP_I:
        case GC_I_CMP_F: {
            const bslot *x = stk[sp - 2], *y = stk[sp - 1];
            bslot *o = bs_take(w);
            const gc_ins *nx = &code[pc + 1];
            if (in->op == GC_I_CMP_I && sp >= 3 && (nx->op == GC_I_AND || nx->op == GC_I_OR) &&
                !stk[sp - 3]->nn && !x->nn && !y->nn) {
                /* `c and x OP y` with no nulls: one pass, as for the fused column compares */
                const bslot *c = stk[sp - 3];
                bfold((gc_binop)in->a, nx->op == GC_I_AND, o, c, x, NULL, y, n);
                bs_drop(w, c);
                bs_drop(w, x);
                bs_drop(w, y);
                stk[sp - 3] = o;
                sp -= 2;
                pc++;
                break;
            }
            if (in->op == GC_I_CMP_I)
                bcmp_cc((gc_binop)in->a, o, x, y, n);
            else
                bcmp_f((gc_binop)in->a, o, x, y, n);
            bs_drop(w, x);
            bs_drop(w, y);
            stk[sp - 2] = o;
            sp--;
            break;
        }
        case GC_I_ISNULL:
        case GC_I_NOTNULL: {
            const bslot *x = stk[sp - 1];
            bslot *o = bs_take(w);
            const int want = in->op == GC_I_ISNULL;
            o->nn = 0;
            if (!x->nn) {
                for (int i = 0; i < n; i++)
                    o->v[i].i = !want;
            } else {
                for (int i = 0; i < n; i++)
                    o->v[i].i = want ? x->n[i] : !x->n[i];
            }
            bs_drop(w, x);
            stk[sp - 1] = o;
            break;
        }
        case GC_I_TRUTH_I: {
            const bslot *x = stk[sp - 1];
            bslot *o = bs_take(w);
            for (int i = 0; i < n; i++)
                o->v[i].i = (int64_t)bnz(x->v[i].i);
            bnull1(o, x, n);
            bs_drop(w, x);
            stk[sp - 1] = o;
            break;
        }
        case GC_I_TRUTH_F: {
            /* NaN is null in a condition */
            const bslot *x = stk[sp - 1];
            bslot *o = bs_take(w);
            const uint8_t *xn = nulls_of(x);
            const double t1 = true_bits.f;
            uint8_t anyn = 0;
            for (int i = 0; i < n; i++)
                o->v[i].f = x->v[i].f != 0.0 ? t1 : 0.0;
            for (int i = 0; i < n; i++) {
                const uint8_t z = (uint8_t)(xn[i] | isnan(x->v[i].f));
                o->n[i] = z;
                anyn |= z;
            }
            o->nn = anyn != 0;
            bs_drop(w, x);
            stk[sp - 1] = o;
            break;
        }
        case GC_I_NOT: {
            const bslot *x = stk[sp - 1];
            bslot *o = bs_take(w);
            for (int i = 0; i < n; i++)
                o->v[i].i = (int64_t)(bnz(x->v[i].i) ^ 1);
            bnull1(o, x, n);
            bs_drop(w, x);
            stk[sp - 1] = o;
            break;
        }
        case GC_I_AND_SC:
        case GC_I_OR_SC:
            break; /* both sides run: see above */
        case GC_I_AND:
        case GC_I_OR: {
            const bslot *x = stk[sp - 2], *y = stk[sp - 1];
            bslot *o = bs_take(w);
            band_or(in->op == GC_I_AND, o, x, y, n);
            bs_drop(w, x);
            bs_drop(w, y);
            stk[sp - 2] = o;
            sp--;
            break;
        }
        case GC_I_NEG_I:
        case GC_I_NEG_F:
        case GC_I_ABS_I:
        case GC_I_ABS_F: {
            const bslot *x = stk[sp - 1];
            bslot *o = bs_take(w);
            switch ((gc_opcode)in->op) {
            case GC_I_NEG_I:
                for (int i = 0; i < n; i++)
                    o->v[i].i = wrap_sub(0, x->v[i].i);
                break;
            case GC_I_NEG_F:
                for (int i = 0; i < n; i++)
                    o->v[i].f = -x->v[i].f;
                break;
            case GC_I_ABS_I:
                /* (x ^ m) - m with m all ones for a negative x: wraps like wrap_sub(0, x) */
                for (int i = 0; i < n; i++) {
                    const uint64_t m = 0 - ((uint64_t)x->v[i].i >> 63);
                    o->v[i].i = (int64_t)(((uint64_t)x->v[i].i ^ m) - m);
                }
                break;
            default:
                for (int i = 0; i < n; i++)
                    o->v[i].f = fabs(x->v[i].f);
                break;
            }
            bnull1(o, x, n);
            bs_drop(w, x);
            stk[sp - 1] = o;
            break;
        }
        case GC_I_MIN_I:
        case GC_I_MAX_I:
        case GC_I_MIN_F:
        case GC_I_MAX_F: {
            /* the first argument, then each next one that compares better, as run() does */
            const int m = (int)in->a;
            const bslot **a = &stk[sp - m];
            bslot *o = bs_take(w);
            memcpy(o->v, a[0]->v, (size_t)n * sizeof *o->v);
            o->nn = 0;
            for (int j = 0; j < m; j++)
                o->nn |= a[j]->nn;
            if (o->nn) {
                const uint8_t *n0 = nulls_of(a[0]);
                for (int i = 0; i < n; i++)
                    o->n[i] = n0[i];
                for (int j = 1; j < m; j++) {
                    const uint8_t *nj = nulls_of(a[j]);
                    for (int i = 0; i < n; i++)
                        o->n[i] |= nj[i];
                }
            }
            for (int j = 1; j < m; j++) {
                const bnum *bv = a[j]->v;
                bnum *restrict ov = o->v;
                switch ((gc_opcode)in->op) {
                case GC_I_MIN_I: /* selects by mask: SSE2 has no 64-bit compare */
                    for (int i = 0; i < n; i++) {
                        const uint64_t sel = 0 - b_lt(bv[i].i, ov[i].i);
                        ov[i].i = (int64_t)(((uint64_t)bv[i].i & sel) | ((uint64_t)ov[i].i & ~sel));
                    }
                    break;
                case GC_I_MAX_I:
                    for (int i = 0; i < n; i++) {
                        const uint64_t sel = 0 - b_gt(bv[i].i, ov[i].i);
                        ov[i].i = (int64_t)(((uint64_t)bv[i].i & sel) | ((uint64_t)ov[i].i & ~sel));
                    }
                    break;
                case GC_I_MIN_F:
                    for (int i = 0; i < n; i++)
                        ov[i].f = bv[i].f < ov[i].f ? bv[i].f : ov[i].f;
                    break;
                default:
                    for (int i = 0; i < n; i++)
                        ov[i].f = bv[i].f > ov[i].f ? bv[i].f : ov[i].f;
                    break;
                }
            }
            for (int j = 0; j < m; j++)
                bs_drop(w, a[j]);
            sp -= m - 1;
            stk[sp - 1] = o;
            break;
        }
        case GC_I_SQRT: {
            /* a negative argument is null (its root is never taken); NaN stays NaN */
            const bslot *x = stk[sp - 1];
            bslot *o = bs_take(w);
            const uint8_t *xn = nulls_of(x);
            uint8_t anyn = 0;
            for (int i = 0; i < n; i++) {
                const double f = x->v[i].f;
                o->v[i].f = sqrt(f < 0.0 ? 0.0 : f);
            }
            for (int i = 0; i < n; i++) {
                const uint8_t z = (uint8_t)(xn[i] | (x->v[i].f < 0.0));
                o->n[i] = z;
                anyn |= z;
            }
            o->nn = anyn != 0;
            bs_drop(w, x);
            stk[sp - 1] = o;
            break;
        }
        case GC_I_DIST: {
            const bslot **a = &stk[sp - 6];
            bslot *o = bs_take(w);
            for (int i = 0; i < n; i++) {
                /* computed for nulls too (their values are never read): no branch, so the
                 * loop vectorises */
                const double dx = a[0]->v[i].f - a[3]->v[i].f;
                const double dy = a[1]->v[i].f - a[4]->v[i].f;
                const double dz = a[2]->v[i].f - a[5]->v[i].f;
                o->v[i].f = sqrt(dx * dx + dy * dy + dz * dz);
            }
            o->nn = a[0]->nn | a[1]->nn | a[2]->nn | a[3]->nn | a[4]->nn | a[5]->nn;
            if (o->nn) {
                const uint8_t *n0 = nulls_of(a[0]), *n1 = nulls_of(a[1]), *n2 = nulls_of(a[2]);
                const uint8_t *n3 = nulls_of(a[3]), *n4 = nulls_of(a[4]), *n5 = nulls_of(a[5]);
                for (int i = 0; i < n; i++)
                    o->n[i] = (uint8_t)(n0[i] | n1[i] | n2[i] | n3[i] | n4[i] | n5[i]);
            }
            for (int j = 0; j < 6; j++)
                bs_drop(w, a[j]);
            sp -= 5;
            stk[sp - 1] = o;
            break;
        }
        case GC_I_BETWEEN_I:
        case GC_I_BETWEEN_F: {
            const bslot **a = &stk[sp - 3];
            bslot *o = bs_take(w);
            const bnum *x = a[0]->v, *lo = a[1]->v, *hi = a[2]->v;
            if (in->op == GC_I_BETWEEN_I)
                for (int i = 0; i < n; i++)
                    o->v[i].i = (int64_t)(b_le(lo[i].i, x[i].i) & b_le(x[i].i, hi[i].i));
            else {
                const double t1 = true_bits.f;
                for (int i = 0; i < n; i++)
                    o->v[i].f = ((lo[i].f <= x[i].f) & (x[i].f <= hi[i].f)) ? t1 : 0.0;
            }
            o->nn = a[0]->nn | a[1]->nn | a[2]->nn;
            if (o->nn) {
                const uint8_t *n0 = nulls_of(a[0]), *n1 = nulls_of(a[1]), *n2 = nulls_of(a[2]);
                for (int i = 0; i < n; i++)
                    o->n[i] = (uint8_t)(n0[i] | n1[i] | n2[i]);
            }
            for (int j = 0; j < 3; j++)
                bs_drop(w, a[j]);
            sp -= 2;
            stk[sp - 1] = o;
            break;
        }
        case GC_I_COALESCE: {
            /* the first argument that is not null; null when all are */
            const int m = (int)in->a;
            const bslot **a = &stk[sp - m];
            bslot *o = bs_take(w);
            uint8_t anyn = 0;
            for (int i = 0; i < n; i++) {
                int j = 0;
                while (j < m && a[j]->nn && a[j]->n[i])
                    j++;
                const uint8_t z = (uint8_t)(j == m);
                o->v[i] = a[z ? 0 : j]->v[i];
                o->n[i] = z;
                anyn |= z;
            }
            o->nn = anyn != 0;
            for (int j = 0; j < m; j++)
                bs_drop(w, a[j]);
            sp -= m - 1;
            stk[sp - 1] = o;
            break;
        }
        case GC_I_AGG: {
            const gc_val r = agg_value(e, in->a);
            bslot *s = bs_take(w);
            for (int i = 0; i < n; i++)
                s->v[i].i = r.u.i;
            s->nn = r.null;
            if (r.null)
                memset(s->n, 1, (size_t)n);
            stk[sp++] = s;
            break;
        }
        default: /* not reached: batch_ok admits only the cases above */
            return stk[sp - 1];
        }
    }
}

/* The row loop of agg_value on the batch VM (same order, same accumulation); returns 0
 * when the aggregate cannot run there (then agg_value runs it row by row). */
/* One block of agg_batch's loop: rows r0 .. r0+nb-1 of level slot k into the accumulators.
 * Returns 1 when an `all`/`any` has its answer (no later row can change it). The caller
 * resets w's caches when the rows are new; columns of the current rows that are already in
 * them (another aggregate's over the same rows) are read from there. */
static GC_VEC int agg_block(ev *e, const gc_agg *ag, size_t k, size_t r0, int nb, bws *w,
                            int64_t *n, int64_t *isum, double *fsum, int *have, gc_val *res)
{
    const int allany = ag->kind == GC_AGG_ALL || ag->kind == GC_AGG_ANY;
    uint8_t pass[GC_BATCH]; /* 0 false, 1 true, 2 null */
    if (ag->cond.code) {
        const bslot *c = run_batch(e, &ag->cond, k, r0, NULL, nb, w);
        const uint8_t *cn = nulls_of(c);
        for (int i = 0; i < nb; i++)
            pass[i] = cn[i] ? 2 : c->v[i].i != 0;
    } else {
        memset(pass, 1, (size_t)nb);
    }
    if (allany) {
        for (int i = 0; i < nb; i++) {
            if (pass[i] == 2)
                continue;
            if (ag->kind == GC_AGG_ALL && !pass[i]) {
                res->u.i = 0;
                *have = 1;
                return 1;
            }
            if (ag->kind == GC_AGG_ANY && pass[i]) {
                res->u.i = 1;
                *have = 1;
                return 1;
            }
        }
        return 0;
    }
    if (ag->kind == GC_AGG_COUNT) {
        for (int i = 0; i < nb; i++)
            *n += pass[i] == 1;
        return 0;
    }
    const bslot *v = run_batch(e, &ag->value, k, r0, NULL, nb, w);
    if (!v->nn) {
        /* No null value (most blocks): one branch-free loop per kind on local accumulators,
         * each the row loop below with a skipped row made a no-op. A float sum adds -0.0
         * for a skipped row (x + -0.0 is x, -0.0 and NaN included) in the same order; an
         * integer sum wraps as wrap_add does; a minimum starts from +inf (INT64_MAX), which
         * the first value replaces unless it is that very value, as the row loop's first
         * value would be taken, and keeps the first of equal values (strict compares). */
        const int flt = ag->vty == GC_TY_FLT;
        int64_t c = 0;
        switch (ag->kind) {
        case GC_AGG_COUNT_VAL:
        case GC_AGG_SUM:
        case GC_AGG_MEAN:
            if (flt) {
                double sum = *fsum;
                for (int i = 0; i < nb; i++) {
                    const double x = v->v[i].f;
                    const int ok = (pass[i] == 1) & !isnan(x);
                    sum += ok ? x : -0.0;
                    c += ok;
                }
                if (ag->kind != GC_AGG_COUNT_VAL)
                    *fsum = sum;
            } else {
                uint64_t sum = (uint64_t)*isum;
                for (int i = 0; i < nb; i++) {
                    const int ok = pass[i] == 1;
                    sum += ok ? (uint64_t)v->v[i].i : 0;
                    c += ok;
                }
                if (ag->kind != GC_AGG_COUNT_VAL)
                    *isum = (int64_t)sum;
            }
            *n += c;
            return 0;
        case GC_AGG_MIN:
        case GC_AGG_MAX: {
            const int mn = ag->kind == GC_AGG_MIN;
            if (flt) {
                double m = *have ? res->u.f : mn ? INFINITY : -INFINITY;
                if (mn)
                    for (int i = 0; i < nb; i++) {
                        const double x = v->v[i].f;
                        const int ok = (pass[i] == 1) & !isnan(x);
                        c |= ok;
                        m = ok && x < m ? x : m;
                    }
                else
                    for (int i = 0; i < nb; i++) {
                        const double x = v->v[i].f;
                        const int ok = (pass[i] == 1) & !isnan(x);
                        c |= ok;
                        m = ok && x > m ? x : m;
                    }
                if (c)
                    res->u.f = m;
            } else {
                int64_t m = *have ? res->u.i : mn ? INT64_MAX : INT64_MIN;
                if (mn)
                    for (int i = 0; i < nb; i++) {
                        const int64_t x = v->v[i].i;
                        const int ok = pass[i] == 1;
                        c |= ok;
                        m = ok && x < m ? x : m;
                    }
                else
                    for (int i = 0; i < nb; i++) {
                        const int64_t x = v->v[i].i;
                        const int ok = pass[i] == 1;
                        c |= ok;
                        m = ok && x > m ? x : m;
                    }
                if (c)
                    res->u.i = m;
            }
            *have |= c != 0;
            return 0;
        }
        default:
            break;
        }
    }
    const uint8_t *vn = nulls_of(v);
    for (int i = 0; i < nb; i++) {
        if (pass[i] != 1)
            continue;
        if (vn[i] || (ag->vty == GC_TY_FLT && isnan(v->v[i].f)))
            continue;
        switch (ag->kind) {
        case GC_AGG_COUNT_VAL:
            (*n)++;
            break;
        case GC_AGG_SUM:
        case GC_AGG_MEAN:
            (*n)++;
            if (ag->vty == GC_TY_FLT)
                *fsum += v->v[i].f;
            else
                *isum = wrap_add(*isum, v->v[i].i);
            break;
        case GC_AGG_MIN:
        case GC_AGG_MAX: {
            int better;
            if (!*have)
                better = 1;
            else if (ag->vty == GC_TY_FLT)
                better = ag->kind == GC_AGG_MIN ? v->v[i].f < res->u.f : v->v[i].f > res->u.f;
            else
                better = ag->kind == GC_AGG_MIN ? v->v[i].i < res->u.i : v->v[i].i > res->u.i;
            if (better)
                res->u.i = v->v[i].i; /* the bits: an integer or a double */
            *have = 1;
            break;
        }
        default:
            break;
        }
    }
    return 0;
}

static GC_VEC int agg_batch(ev *e, const gc_agg *ag, int64_t *n, int64_t *isum, double *fsum,
                            int *have, gc_val *res)
{
    if (!batch_ok(e->u, &ag->cond) || !batch_ok(e->u, &ag->value))
        return 0;
    uint32_t ms = 1;
    if (ag->cond.code && ag->cond.max_stack > ms)
        ms = ag->cond.max_stack;
    if (ag->value.code && ag->value.max_stack > ms)
        ms = ag->value.max_stack;
    bws *w = bws_new(ms + 2, ag->npaths);
    if (!w)
        return 0;
    int done = 0;
    for (size_t k = 0; k < e->nlevels && !done; k++) {
        size_t cnt = tcount(e, k, (uint32_t)ag->table);
        if ((ag->kind == GC_AGG_COUNT) && !ag->cond.code) {
            *n += (int64_t)cnt;
            continue;
        }
        for (size_t r0 = 0; r0 < cnt && !done; r0 += GC_BATCH) {
            const int nb = cnt - r0 < GC_BATCH ? (int)(cnt - r0) : GC_BATCH;
            bws_reset(w);
            done = agg_block(e, ag, k, r0, nb, w, n, isum, fsum, have, res);
        }
    }
    bws_free(w);
    return 1;
}

/* ---- a level's hoisted aggregates, each class computed once (gc_inv_eval_level_all) ----
 * An aggregate without `outer` has one value a level whichever unit or metric asks for it,
 * so equal ones (gc_inv_assign_memo: same kind, table, value and condition code) are
 * computed once, and all the pending ones over one table in one pass over its rows, each
 * block read once for all of them: the metrics' and the `once` invariants' counts and
 * bounds over tfrag.triangle, tfrag.vertex or tfrag.vertex_info each read the whole table
 * from memory before. gc_inv_eval_level_all also accumulates them inside the invariants'
 * shared pass over their table. Each aggregate runs exactly agg_batch's block loop
 * (agg_block) in row order, so its value is the one its own unit would compute. */

typedef struct memo_ent {
    gc_val v;
    uint8_t state; /* 0 not computed, 1 computed: v */
    uint8_t want;  /* asked for by a unit or metric of this evaluation */
    int fin;       /* accumulating: an all/any has its answer */
    int64_t n, isum;
    double fsum;
    int have;
} memo_ent;

struct gc_memo {
    const gc_inv_set *s;
    const gc_table *const *lv; /* the level (one slot) */
    memo_ent *ent;             /* s->nmemo */
};

static void memo_begin(memo_ent *x)
{
    memset(&x->v, 0, sizeof x->v);
    x->fin = 0;
    x->n = x->isum = 0;
    x->fsum = 0.0;
    x->have = 0;
}

/* An ev for the memo's code: its programs read only the level's tables (no aggregate, no
 * outer row: gc_inv_assign_memo admits no such code). */
static void memo_ev(const struct gc_memo *m, ev *e)
{
    memset(e, 0, sizeof *e);
    e->s = m->s;
    e->levels = m->lv;
    e->nlevels = 1;
    e->outer.r = -1;
}

/* a workspace for the classes list[0..nl) */
static bws *memo_ws(const struct gc_memo *m, const uint32_t *list, size_t nl)
{
    uint32_t ms = 1, np = 0;
    for (size_t j = 0; j < nl; j++) {
        const gc_agg *ag = m->s->memo[list[j]];
        if (ag->cond.code && ag->cond.max_stack > ms)
            ms = ag->cond.max_stack;
        if (ag->value.code && ag->value.max_stack > ms)
            ms = ag->value.max_stack;
        if (ag->npaths > np)
            np = ag->npaths;
    }
    return bws_new(ms + 2, np);
}

/* Rows r0 .. r0+nb-1 into every class of list[0..nl) still accumulating. The block's
 * columns of the current rows stay cached from one class to the next (the same table, the
 * same rows: min(x) and max(x) read x once); the path vectors and the columns read through
 * them are forgotten, as path numbers are each program's own. */
static void memo_block(struct gc_memo *m, ev *e, const uint32_t *list, size_t nl, size_t r0, int nb,
                       bws *w)
{
    bws_reset(w);
    for (size_t j = 0; j < nl; j++) {
        memo_ent *x = &m->ent[list[j]];
        if (x->state != 0 || x->fin)
            continue;
        for (int c = 0; c < w->ncol; c++)
            if (w->key_path[c] != 0)
                w->key_path[c] = UINT32_MAX; /* no path has this number */
        w->pvalid = 0;
        x->fin = agg_block(e, m->s->memo[list[j]], 0, r0, nb, w, &x->n, &x->isum, &x->fsum,
                           &x->have, &x->v);
    }
}

static void memo_finish(struct gc_memo *m, uint32_t c)
{
    memo_ent *x = &m->ent[c];
    agg_finish(m->s->memo[c], x->n, x->isum, x->fsum, x->have, &x->v);
    x->state = 1;
}

/* Every wanted class over table t not computed yet, in one pass over its rows. */
static void memo_table(struct gc_memo *m, int t)
{
    uint32_t *list = malloc((m->s->nmemo ? m->s->nmemo : 1) * sizeof *list);
    if (!list)
        return;
    size_t nl = 0;
    for (uint32_t c = 0; c < m->s->nmemo; c++)
        if (m->ent[c].state == 0 && m->ent[c].want && m->s->memo[c]->table == t) {
            memo_begin(&m->ent[c]);
            list[nl++] = c;
        }
    bws *w = nl ? memo_ws(m, list, nl) : NULL;
    if (w) {
        ev e;
        memo_ev(m, &e);
        const size_t cnt = tcount(&e, 0, (uint32_t)t);
        for (size_t r0 = 0; r0 < cnt; r0 += GC_BATCH)
            memo_block(m, &e, list, nl, r0, cnt - r0 < GC_BATCH ? (int)(cnt - r0) : GC_BATCH, w);
        for (size_t j = 0; j < nl; j++)
            memo_finish(m, list[j]);
        bws_free(w);
    }
    free(list);
}

/* The level's value of ag's class, or NULL (no memory: the unit computes its own). */
static const gc_val *memo_get(ev *e, const gc_agg *ag)
{
    memo_ent *x = &e->memo->ent[ag->memo];
    if (x->state == 0) {
        x->want = 1;
        memo_table(e->memo, ag->table);
    }
    return x->state == 1 ? &x->v : NULL;
}

/* `where` of the block into pass[] (0/1); returns how many rows passed */
static GC_VEC int where_pass(const bslot *ws, int n, uint8_t *pass)
{
    const uint8_t *wn = nulls_of(ws);
    int m = 0;
    for (int i = 0; i < n; i++) {
        const uint8_t p = (uint8_t)((wn[i] == 0) & (ws->v[i].i != 0));
        pass[i] = p;
        m += p;
    }
    return m;
}

/* The rows r0 .. r0+n-1 of level slot k for batch unit e->u: where, then expect on the rows
 * that passed, counts and samples into a. */
static GC_VEC void unit_block(ev *e, bws *bw, size_t k, size_t r0, int n, int lv, acc *a)
{
    const gc_unit *u = e->u;
    gc_inv_result *out = a->out;
    const int64_t *rows = NULL; /* the rows expect runs on when compacted (else r0..) */
    const uint8_t *mask = NULL; /* else, when some rows failed `where`: the ones that passed */
    int m = n;
    bws_next_unit(bw);
    if (u->where.code) {
        const bslot *ws = run_batch(e, &u->where, k, r0, NULL, n, bw);
        m = where_pass(ws, n, bw->pass);
        if (m == 0)
            return;
        if (m < n) {
            if (2 * m >= n) {
                /* most rows passed: expect runs on the whole block (it has no side effects
                 * and never traps) and only the rows that passed count, so the columns
                 * `where` read stay cached and every load stays a sequential one */
                mask = bw->pass;
            } else {
                int j = 0;
                for (int i = 0; i < n; i++)
                    if (bw->pass[i])
                        bw->cur[j++] = (int64_t)(r0 + (size_t)i);
                rows = bw->cur;
                bws_reset(bw); /* the cached columns and paths are of all n rows */
                bw->partial = 1;
            }
        }
    }
    const int ne = rows ? m : n;
    const bslot *x = run_batch(e, &u->expect, k, r0, rows, ne, bw);
    out->checked += (size_t)m;
    if (!mask && !x->nn) {
        /* the common case, every row passing, in one vectorised pass */
        uint64_t bad = 0;
        for (int i = 0; i < ne; i++)
            bad |= bnz(x->v[i].i) ^ 1;
        if (!bad)
            return;
    }
    const uint8_t *xn = nulls_of(x);
    for (int i = 0; i < ne; i++) {
        if ((mask && !mask[i]) || (!xn[i] && x->v[i].i != 0))
            continue;
        out->failed++;
        rowref cur = {k, rows ? rows[i] : (int64_t)(r0 + (size_t)i)};
        e->outer = cur;
        add_sample(e, a, lv, cur, xn[i]);
    }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* Evaluate unit u with aggregates ranging over levels[0..nlevels). level_ids may be NULL
 * (then `level` is reported). Results are added to *out. */
static int eval_unit(const gc_inv_set *s, const gc_unit *u, const gc_table *const *levels,
                     const int *level_ids, int level, size_t nlevels, acc *a, struct gc_memo *memo)
{
    ev e;
    if (ev_init(&e, s, u, levels, nlevels) != 0)
        return -1;
    e.memo = nlevels == 1 ? memo : NULL;
    gc_inv_result *out = a->out;
    if (u->once || u->table < 0) {
        rowref cur = {0, -1};
        int pass = 1;
        if (u->where.code) {
            gc_val w = run(&e, &u->where, cur);
            pass = !w.null && w.u.i;
        }
        if (pass) {
            out->checked++;
            gc_val v = run(&e, &u->expect, cur);
            if (v.null || !v.u.i) {
                out->failed++;
                int lv = nlevels == 1 ? (level_ids ? level_ids[0] : level) : -1;
                add_sample(&e, a, lv, cur, v.null);
            }
        }
        ev_fini(&e);
        return a->oom ? -1 : 0;
    }
    bws *bw = NULL;
    for (size_t k = 0; k < nlevels; k++) {
        size_t cnt = tcount(&e, k, (uint32_t)u->table);
        int lv = level_ids ? level_ids[k] : level;
        if (u->batch) {
            if (!bw) {
                bw = bws_new(u->batch_stack, u->npaths);
                if (!bw) {
                    ev_fini(&e);
                    return -1;
                }
            }
            for (size_t r0 = 0; r0 < cnt; r0 += GC_BATCH) {
                bws_reset(bw);
                unit_block(&e, bw, k, r0, cnt - r0 < GC_BATCH ? (int)(cnt - r0) : GC_BATCH, lv, a);
            }
            continue;
        }
        for (size_t r = 0; r < cnt; r++) {
            rowref cur = {k, (int64_t)r};
            e.outer = cur;
            if (u->where.code) {
                gc_val w = run(&e, &u->where, cur);
                if (w.null || !w.u.i)
                    continue;
            }
            out->checked++;
            gc_val v = run(&e, &u->expect, cur);
            if (v.null || !v.u.i) {
                out->failed++;
                add_sample(&e, a, lv, cur, v.null);
            }
        }
    }
    bws_free(bw);
    ev_fini(&e);
    return a->oom ? -1 : 0;
}

/* ---- row paths (gc_inv_assign_paths) ---- */

#define GC_PATH_STEPS 8

typedef struct path_key {
    gc_ins step[GC_PATH_STEPS];
    uint32_t n;
} path_key;

typedef struct path_table {
    path_key key[GC_BATCH_PATHS];
    uint32_t n;
} path_table;

static int same_step(const gc_ins *x, const gc_ins *y)
{
    return x->op == y->op && x->ctype == y->ctype && x->flags == y->flags && x->a == y->a &&
           x->b == y->b && x->k.u == y->k.u;
}

/* 1-based number of path k in t (added if new), 0 when the table is full */
static uint32_t path_number(path_table *t, const path_key *k)
{
    for (uint32_t i = 0; i < t->n; i++) {
        if (t->key[i].n != k->n)
            continue;
        uint32_t j = 0;
        while (j < k->n && same_step(&t->key[i].step[j], &k->step[j]))
            j++;
        if (j == k->n)
            return i + 1;
    }
    if (t->n == GC_BATCH_PATHS)
        return 0;
    t->key[t->n] = *k;
    return ++t->n;
}

/* The register's state is followed in code order, which is the order the batch VM runs
 * every instruction in (it ignores the short-circuit jumps). A program starts with the
 * register unknown; the compiler emits ROW_CUR before the first step of every path. */
static void number_prog(path_table *t, gc_prog *p)
{
    if (!p->code)
        return;
    path_key cur;
    int known = 0;
    uint32_t num = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        gc_ins *in = &p->code[i];
        switch ((gc_opcode)in->op) {
        case GC_I_ROW_CUR:
            cur.n = 0;
            known = 1;
            num = 0;
            break;
        case GC_I_ROW_OUTER:
            known = 0;
            num = 0;
            break;
        case GC_I_ROW_PREV:
        case GC_I_ROW_NEXT:
        case GC_I_ROW_PARENT:
            if (known && cur.n < GC_PATH_STEPS) {
                cur.step[cur.n++] = *in;
                num = path_number(t, &cur);
            } else {
                known = 0;
                num = 0;
            }
            in->k2 = (int64_t)num;
            break;
        case GC_I_LOAD_REG:
            in->k2 = (int64_t)num;
            break;
        default:
            break;
        }
    }
}

void gc_inv_assign_paths(gc_unit *u)
{
    path_table *t = malloc(sizeof *t);
    if (!t) {
        /* nothing numbered: every k2 stays 0 and nothing is cached */
        u->npaths = 0;
        for (uint32_t a = 0; a < u->nagg; a++)
            u->aggs[a].npaths = 0;
        return;
    }
    t->n = 0;
    number_prog(t, &u->where);
    number_prog(t, &u->expect);
    u->npaths = t->n;
    for (uint32_t a = 0; a < u->nagg; a++) {
        t->n = 0;
        number_prog(t, &u->aggs[a].cond);
        number_prog(t, &u->aggs[a].value);
        u->aggs[a].npaths = t->n;
    }
    free(t);
}

void gc_inv_detect_fast(gc_unit *u)
{
    u->batch = 0;
    u->batch_stack = 0;
    gc_inv_assign_paths(u);
    if (u->table < 0 || u->once)
        return;
    if (u->expect.code && batch_ok(u, &u->expect) && batch_ok(u, &u->where)) {
        uint32_t m = u->expect.max_stack;
        if (u->where.code && u->where.max_stack > m)
            m = u->where.max_stack;
        u->batch = 1;
        u->batch_stack = m;
    }
}

/* field by field: the padding of gc_ins is not compared */
static int prog_eq(const gc_prog *x, const gc_prog *y)
{
    if (!x->code || !y->code)
        return !x->code && !y->code;
    if (x->n != y->n)
        return 0;
    for (uint32_t i = 0; i < x->n; i++) {
        const gc_ins *a = &x->code[i], *b = &y->code[i];
        if (a->op != b->op || a->ctype != b->ctype || a->flags != b->flags || a->pad != b->pad ||
            a->a != b->a || a->b != b->b || a->k.u != b->k.u || a->k2 != b->k2)
            return 0;
    }
    return 1;
}

static void memo_classify(gc_inv_set *s, gc_unit *units, size_t n, size_t *cap)
{
    for (size_t i = 0; i < n; i++)
        for (uint32_t a = 0; a < units[i].nagg; a++) {
            gc_agg *ag = &units[i].aggs[a];
            ag->memo = -1;
            /* a count of every row is the table's row count: nothing to share */
            if (ag->uses_outer || ag->table < 0 || (ag->kind == GC_AGG_COUNT && !ag->cond.code) ||
                !batch_ok(NULL, &ag->cond) || !batch_ok(NULL, &ag->value) || !s->memo)
                continue;
            size_t c = 0;
            while (c < s->nmemo &&
                   !(s->memo[c]->kind == ag->kind && s->memo[c]->table == ag->table &&
                     s->memo[c]->vty == ag->vty && s->memo[c]->npaths == ag->npaths &&
                     prog_eq(&s->memo[c]->cond, &ag->cond) &&
                     prog_eq(&s->memo[c]->value, &ag->value)))
                c++;
            if (c == s->nmemo) {
                if (c == *cap)
                    continue; /* counted below every one: cannot happen */
                s->memo[s->nmemo++] = ag;
            }
            ag->memo = (int)c;
        }
}

void gc_inv_assign_memo(gc_inv_set *s)
{
    size_t cap = 0;
    for (size_t i = 0; i < s->ninv; i++)
        cap += s->invs[i].nagg;
    for (size_t i = 0; i < s->nmet; i++)
        cap += s->mets[i].nagg;
    s->nmemo = 0;
    s->memo = cap ? gc_arena_alloc(&s->arena, cap * sizeof *s->memo) : NULL;
    memo_classify(s, s->invs, s->ninv, &cap);
    memo_classify(s, s->mets, s->nmet, &cap);
}

static void result_zero(gc_inv_result *out)
{
    memset(out, 0, sizeof *out);
}

/* The tables must be laid out as the set was compiled: same descriptor (or one with the
 * same name and row size) in every slot that has one. */
static int tables_match(const gc_inv_set *s, const gc_table *tables)
{
    for (size_t t = 0; t < s->ndesc; t++) {
        const gc_table_desc *d = tables[t].desc;
        if (!d || d == s->descs[t])
            continue;
        if (d->row_size != s->descs[t]->row_size || !d->name ||
            strcmp(d->name, s->descs[t]->name) != 0)
            return 0;
    }
    return 1;
}

int gc_inv_eval_level(const gc_inv_set *s, size_t i, const gc_table *tables, int level,
                      size_t max_samples, gc_inv_result *out)
{
    if (!out)
        return -1;
    result_zero(out);
    if (!s || i >= s->ninv || !tables || !tables_match(s, tables))
        return -1;
    acc a = {out, max_samples, 0, 0};
    const gc_table *const lv[1] = {tables};
    if (eval_unit(s, &s->invs[i], lv, NULL, level, 1, &a, NULL) != 0) {
        gc_inv_result_free(out);
        return -1;
    }
    return 0;
}

static double clock_now(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double mono_now(void)
{
    return clock_now(CLOCK_MONOTONIC);
}

static double cpu_now(void)
{
    return clock_now(CLOCK_THREAD_CPUTIME_ID);
}

int gc_inv_eval_level_many(const gc_inv_set *s, const size_t *idx, size_t n, const gc_table *tables,
                           int level, size_t max_samples, gc_inv_result *out, double *seconds)
{
    return gc_inv_eval_level_many_with(s, idx, n, tables, level, max_samples, out, seconds, NULL,
                                       NULL, NULL);
}

int gc_inv_eval_level_many_with(const gc_inv_set *s, const size_t *idx, size_t n,
                                const gc_table *tables, int level, size_t max_samples,
                                gc_inv_result *out, double *seconds, gc_inv_rows_fn rows, void *ctx,
                                double *rows_seconds)
{
    return gc_inv_eval_level_all(s, idx, n, tables, level, max_samples, out, seconds, rows, ctx,
                                 rows_seconds, NULL, NULL);
}

static int metric_eval(const gc_inv_set *s, size_t m, const gc_table *const *lv,
                       struct gc_memo *memo, double *value, int *is_null)
{
    const gc_unit *u = &s->mets[m];
    ev e;
    if (ev_init(&e, s, u, lv, 1) != 0)
        return -1;
    e.memo = memo;
    rowref cur = {0, -1};
    gc_val v = run(&e, &u->expect, cur);
    ev_fini(&e);
    *is_null = v.null || (u->expect_ty == GC_TY_FLT && isnan(v.u.f));
    if (*is_null)
        *value = 0.0;
    else
        *value = u->expect_ty == GC_TY_FLT ? v.u.f : (double)v.u.i;
    return 0;
}

int gc_inv_eval_level_all(const gc_inv_set *s, const size_t *idx, size_t n, const gc_table *tables,
                          int level, size_t max_samples, gc_inv_result *out, double *seconds,
                          gc_inv_rows_fn rows, void *ctx, double *rows_seconds,
                          double *metric_values, int *metric_null)
{
    if (!s || !tables || !out || (n && !idx) || (!metric_values != !metric_null))
        return -1;
    for (size_t j = 0; j < n; j++)
        if (idx[j] >= s->ninv)
            return -1;
    int rc = 0;
    const gc_table *const lv[1] = {tables};
    /* the units that run block by block on a table, grouped by table; the rest alone */
    uint8_t *grouped = calloc(n ? n : 1, 1);
    uint8_t *isgrp = calloc(n ? n : 1, 1);
    ev *evs = calloc(n ? n : 1, sizeof *evs);
    acc *as = calloc(n ? n : 1, sizeof *as);
    size_t *members = malloc((n ? n : 1) * sizeof *members);
    int *ptab = malloc((n ? n : 1) * sizeof *ptab); /* the shared passes' tables */
    uint8_t *pdone = calloc(n ? n : 1, 1);
    uint32_t *claim = malloc((s->nmemo ? s->nmemo : 1) * sizeof *claim);
    if (!grouped || !isgrp || !evs || !as || !members || !ptab || !pdone || !claim) {
        free(grouped);
        free(isgrp);
        free(evs);
        free(as);
        free(members);
        free(ptab);
        free(pdone);
        free(claim);
        return -1;
    }
    const int match = tables_match(s, tables);
    /* the level's shared aggregates: the classes its units and metrics ask for (without
     * memory for them each unit computes its own, as gc_inv_eval_level does) */
    struct gc_memo mm = {s, lv, match && s->nmemo ? calloc(s->nmemo, sizeof *mm.ent) : NULL};
    struct gc_memo *memo = mm.ent ? &mm : NULL;
    for (size_t j = 0; j < n && memo; j++) {
        const gc_unit *u = &s->invs[idx[j]];
        for (uint32_t a = 0; a < u->nagg; a++)
            if (u->aggs[a].memo >= 0)
                mm.ent[u->aggs[a].memo].want = 1;
    }
    for (size_t m = 0; metric_values && memo && m < s->nmet; m++)
        for (uint32_t a = 0; a < s->mets[m].nagg; a++)
            if (s->mets[m].aggs[a].memo >= 0)
                mm.ent[s->mets[m].aggs[a].memo].want = 1;
    size_t np = 0;
    for (size_t j = 0; j < n; j++) {
        const gc_unit *u = &s->invs[idx[j]];
        isgrp[j] = grouped[j] = match && u->batch && u->table >= 0 && !u->once;
        size_t p = 0;
        while (grouped[j] && p < np && ptab[p] != u->table)
            p++;
        if (grouped[j] && p == np)
            ptab[np++] = u->table;
    }
    /* cons[p * np + q]: an invariant of pass p asks for a shared aggregate over pass q's
     * table (without memory for it, the passes run in their order) */
    uint8_t *cons = memo && np ? calloc(np * np, 1) : NULL;
    for (size_t j = 0; j < n && cons; j++) {
        const gc_unit *u = &s->invs[idx[j]];
        if (!isgrp[j])
            continue;
        size_t p = 0;
        while (ptab[p] != u->table)
            p++;
        for (uint32_t a = 0; a < u->nagg; a++)
            for (size_t q = 0; q < np && u->aggs[a].memo >= 0; q++)
                if (q != p && ptab[q] == u->aggs[a].table)
                    cons[p * np + q] = 1;
    }
    for (size_t step = 0; step < np; step++) {
        /* The passes in their order, except that a pass whose invariants ask for aggregates
         * over another pass's table waits for it: that pass computes them while it reads its
         * table anyway (a cycle runs in order; asked for early, an aggregate is computed at
         * once, in a pass of its own). */
        size_t pick = np;
        for (size_t p = 0; p < np && pick == np; p++) {
            if (pdone[p])
                continue;
            int blocked = 0;
            for (size_t q = 0; q < np && !blocked && cons; q++)
                blocked = !pdone[q] && cons[p * np + q];
            if (!blocked)
                pick = p;
        }
        for (size_t p = 0; p < np && pick == np; p++)
            if (!pdone[p])
                pick = p;
        pdone[pick] = 1;
        /* every grouped unit on the table: one pass over the table's blocks, each block's
         * rows read from memory once for all of them */
        const int table = ptab[pick];
        size_t nm = 0;
        for (size_t q = 0; q < n; q++)
            if (grouped[q] && s->invs[idx[q]].table == table) {
                grouped[q] = 0;
                members[nm++] = q;
            }
        int ok = 1;
        const double cpu0 = seconds ? cpu_now() : 0;
        /* One workspace for the whole group, sized for its largest member: a unit's block
         * starts from an empty workspace (unit_block resets it) and leaves nothing in it that
         * the next one reads, so the members take turns in it. Its slots stay in L1/L2, where
         * a workspace each (some 60-100 KB: 16 on tfrag.patch) pushed each other and the
         * block's rows out of the core's caches. */
        uint32_t gstack = 1, gpaths = 0;
        for (size_t m = 0; m < nm; m++) {
            const gc_unit *u = &s->invs[idx[members[m]]];
            if (u->batch_stack > gstack)
                gstack = u->batch_stack;
            if (u->npaths > gpaths)
                gpaths = u->npaths;
        }
        bws *gw = bws_new(gstack, gpaths);
        if (!gw)
            ok = 0;
        for (size_t m = 0; m < nm; m++) {
            const size_t q = members[m];
            const gc_unit *u = &s->invs[idx[q]];
            result_zero(&out[idx[q]]);
            as[q] = (acc){&out[idx[q]], max_samples, 0, 0};
            if (seconds)
                seconds[idx[q]] = 0;
            if (ev_init(&evs[q], s, u, lv, 1) != 0) {
                memset(&evs[q], 0, sizeof evs[q]); /* ev_fini below skips it */
                ok = 0;
                continue;
            }
            evs[q].memo = memo;
        }
        /* the shared aggregates over this table that no one has computed yet: accumulated
         * block by block in this pass (one asked for before the pass ends is computed at
         * once by memo_get, and this pass's partial sums are dropped) */
        size_t nc = 0;
        for (uint32_t c = 0; memo && c < s->nmemo; c++)
            if (mm.ent[c].state == 0 && mm.ent[c].want && s->memo[c]->table == table) {
                memo_begin(&mm.ent[c]);
                claim[nc++] = c;
            }
        bws *mw = nc && ok ? memo_ws(&mm, claim, nc) : NULL;
        if (!mw)
            nc = 0;
        ev me;
        if (memo)
            memo_ev(&mm, &me);
        const size_t cnt = ok ? tcount(&evs[members[0]], 0, (uint32_t)table) : 0;
        double in_rows = 0; /* CLOCK_MONOTONIC in rows(): not the invariants' time */
        for (size_t r0 = 0; r0 < cnt; r0 += GC_BATCH) {
            const int nb = cnt - r0 < GC_BATCH ? (int)(cnt - r0) : GC_BATCH;
            if (rows) {
                /* the caller's read of the block first: it brings all of the block's rows
                 * into L1 in one sequential sweep, and the members then read their columns
                 * from there instead of each missing on the lines it touches first */
                const double t0 = seconds || rows_seconds ? mono_now() : 0;
                rows(ctx, (size_t)table, r0, (size_t)nb);
                if (seconds || rows_seconds)
                    in_rows += mono_now() - t0;
            }
            if (nc)
                memo_block(&mm, &me, claim, nc, r0, nb, mw);
            bws_reset(gw); /* the members' cache starts empty at each block */
            for (size_t m = 0; m < nm; m++) {
                const size_t q = members[m];
                double t0 = seconds ? mono_now() : 0;
                unit_block(&evs[q], gw, 0, r0, nb, level, &as[q]);
                if (seconds)
                    seconds[idx[q]] += mono_now() - t0;
            }
        }
        for (size_t j = 0; ok && j < nc; j++)
            if (mm.ent[claim[j]].state == 0)
                memo_finish(&mm, claim[j]);
        bws_free(mw);
        if (seconds) {
            /* the group's thread CPU, shared out by each member's share of the blocks' time */
            double sum = 0, cpu = cpu_now() - cpu0;
            for (size_t m = 0; m < nm; m++)
                sum += seconds[idx[members[m]]];
            if (sum + in_rows > 0) /* rows()'s share of the pass is the caller's */
                cpu *= sum / (sum + in_rows);
            for (size_t m = 0; m < nm; m++)
                seconds[idx[members[m]]] =
                    sum > 0 ? cpu * (seconds[idx[members[m]]] / sum) : cpu / (double)nm;
        }
        if (rows_seconds)
            *rows_seconds += in_rows;
        for (size_t m = 0; m < nm; m++) {
            const size_t q = members[m];
            if (!ok || as[q].oom) {
                gc_inv_result_free(&out[idx[q]]);
                rc = -1;
            }
            if (evs[q].s)
                ev_fini(&evs[q]);
        }
        bws_free(gw);
    }
    /* the rest one by one, after the passes: the aggregates they ask for are mostly
     * computed by then */
    for (size_t j = 0; j < n; j++) {
        if (isgrp[j])
            continue;
        double t0 = cpu_now();
        gc_inv_result *o = &out[idx[j]];
        if (!match) {
            if (gc_inv_eval_level(s, idx[j], tables, level, max_samples, o) != 0)
                rc = -1;
        } else {
            result_zero(o);
            acc a = {o, max_samples, 0, 0};
            if (eval_unit(s, &s->invs[idx[j]], lv, NULL, level, 1, &a, memo) != 0) {
                gc_inv_result_free(o);
                rc = -1;
            }
        }
        if (seconds)
            seconds[idx[j]] = cpu_now() - t0;
    }
    for (size_t m = 0; metric_values && m < s->nmet; m++)
        if (!match || metric_eval(s, m, lv, memo, &metric_values[m], &metric_null[m]) != 0)
            rc = -1;
    free(cons);
    free(mm.ent);
    free(grouped);
    free(isgrp);
    free(evs);
    free(as);
    free(members);
    free(ptab);
    free(pdone);
    free(claim);
    return rc;
}

int gc_inv_eval_corpus(const gc_inv_set *s, size_t i, const gc_table *const *levels,
                       const int *level_ids, size_t nlevels, size_t max_samples, gc_inv_result *out)
{
    if (!out)
        return -1;
    result_zero(out);
    if (!s || i >= s->ninv || (nlevels && (!levels || !level_ids)))
        return -1;
    for (size_t k = 0; k < nlevels; k++)
        if (!levels[k] || !tables_match(s, levels[k]))
            return -1;
    const gc_unit *u = &s->invs[i];
    acc a = {out, max_samples, 0, 0};
    int rc = 0;
    if (u->info.scope == GC_SCOPE_LEVEL) {
        for (size_t k = 0; k < nlevels && rc == 0; k++)
            rc = eval_unit(s, u, &levels[k], &level_ids[k], level_ids[k], 1, &a, NULL);
    } else {
        rc = eval_unit(s, u, levels, level_ids, -1, nlevels, &a, NULL);
    }
    if (rc != 0) {
        gc_inv_result_free(out);
        return -1;
    }
    return 0;
}

int gc_inv_eval_metric(const gc_inv_set *s, size_t m, const gc_table *tables, double *value,
                       int *is_null)
{
    if (!s || m >= s->nmet || !tables || !value || !is_null || !tables_match(s, tables))
        return -1;
    const gc_table *const lv[1] = {tables};
    return metric_eval(s, m, lv, NULL, value, is_null);
}

void gc_inv_result_free(gc_inv_result *r)
{
    if (!r)
        return;
    free(r->samples);
    r->samples = NULL;
    r->sample_count = 0;
}
