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

static int agg_batch(ev *e, const gc_agg *ag, int64_t *n, int64_t *isum, double *fsum, int *have,
                     gc_val *res);

static gc_val agg_value(ev *e, uint32_t ai)
{
    const gc_agg *ag = &e->u->aggs[ai];
    if (!ag->uses_outer && e->done[ai])
        return e->cache[ai];
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
    switch (ag->kind) {
    case GC_AGG_COUNT:
    case GC_AGG_COUNT_VAL:
        res.u.i = n;
        break;
    case GC_AGG_SUM:
        if (ag->vty == GC_TY_FLT)
            res.u.f = fsum;
        else
            res.u.i = isum;
        break;
    case GC_AGG_MEAN:
        if (!n)
            res.null = 1;
        else
            res.u.f = (ag->vty == GC_TY_FLT ? fsum : (double)isum) / (double)n;
        break;
    case GC_AGG_MIN:
    case GC_AGG_MAX:
        res.null = !have;
        break;
    case GC_AGG_ALL:
        if (!have)
            res.u.i = 1;
        break;
    case GC_AGG_ANY:
        if (!have)
            res.u.i = 0;
        break;
    }
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
    free(e->cache);
    free(e->done);
}

/* ---- the batch VM: the same bytecode, one instruction over a block of rows at a time ----
 * Every instruction of a row expression is free of side effects and never traps, so a
 * block of rows can run each instruction over all its rows before the next one: the
 * dispatch, the type switches and the table lookups are paid once per block, not per row.
 * `and`/`or` evaluate both sides (the short-circuit only saves work; three-valued `and` and
 * `or` give the same value either way), and each element follows exactly the scalar rules
 * of run(). Units with strings or `outer` aggregates stay on run(). */

#define GC_BATCH 256

/* The block loops below are simple element-wise loops; let GCC vectorise them at -O2 too.
 * Vectorising element-wise loops does not reassociate anything: results are identical. */
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
    uint8_t n[GC_BATCH]; /* null */
    int nn;              /* 0: no element is null (all of n[] is 0); 1: some may be */
} bslot;

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
            if (in->a >= u->nagg || u->aggs[in->a].uses_outer)
                return 0;
            break;
        case GC_I_COALESCE:
            break;
        default:
            if (in->op > GC_I_CMP_CK)
                return 0;
            break;
        }
    }
    return 1;
}

/* Integer loads of one column for n rows: rows[] (NULL: consecutive rows from base) */
#define BLOAD_INT(T, NULLPAT, CONV)                                                                \
    do {                                                                                           \
        if (!rows && !nim) {                                                                       \
            for (int i = 0; i < n; i++) {                                                          \
                T x;                                                                               \
                memcpy(&x, base + (size_t)i * stride, sizeof x);                                   \
                nl[i] = 0;                                                                         \
                v[i].i = CONV;                                                                     \
            }                                                                                      \
        } else if (!rows) {                                                                        \
            for (int i = 0; i < n; i++) {                                                          \
                T x;                                                                               \
                memcpy(&x, base + (size_t)i * stride, sizeof x);                                   \
                nl[i] = (uint8_t)(x == (T)(NULLPAT));                                              \
                v[i].i = CONV;                                                                     \
            }                                                                                      \
        } else {                                                                                   \
            for (int i = 0; i < n; i++) {                                                          \
                if (rows[i] < 0) {                                                                 \
                    nl[i] = 1;                                                                     \
                    v[i].i = 0;                                                                    \
                    continue;                                                                      \
                }                                                                                  \
                T x;                                                                               \
                memcpy(&x, base + (size_t)rows[i] * stride, sizeof x);                             \
                nl[i] = (uint8_t)(nim & (x == (T)(NULLPAT)));                                      \
                v[i].i = CONV;                                                                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define BLOAD_FLT(T)                                                                               \
    do {                                                                                           \
        if (!rows) {                                                                               \
            for (int i = 0; i < n; i++) {                                                          \
                T x;                                                                               \
                memcpy(&x, base + (size_t)i * stride, sizeof x);                                   \
                nl[i] = 0;                                                                         \
                v[i].f = x;                                                                        \
            }                                                                                      \
        } else {                                                                                   \
            for (int i = 0; i < n; i++) {                                                          \
                if (rows[i] < 0) {                                                                 \
                    nl[i] = 1;                                                                     \
                    v[i].i = 0;                                                                    \
                    continue;                                                                      \
                }                                                                                  \
                T x;                                                                               \
                memcpy(&x, base + (size_t)rows[i] * stride, sizeof x);                             \
                nl[i] = 0;                                                                         \
                v[i].f = x;                                                                        \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* base already includes the column offset */
static void bload(const uint8_t *base, size_t stride, const int64_t *rows, unsigned ctype,
                  unsigned flags, int n, bnum *v, uint8_t *nl)
{
    const int nim = (flags & GC_CF_NULL_IF_MAX) != 0;
    switch (ctype) {
    case GC_T_BOOL:
        BLOAD_INT(uint8_t, UINT8_MAX, x != 0);
        break;
    case GC_T_U8:
        BLOAD_INT(uint8_t, UINT8_MAX, x);
        break;
    case GC_T_S8:
        BLOAD_INT(int8_t, -1, x);
        break;
    case GC_T_U16:
        BLOAD_INT(uint16_t, UINT16_MAX, x);
        break;
    case GC_T_S16:
        BLOAD_INT(int16_t, -1, x);
        break;
    case GC_T_U32:
        BLOAD_INT(uint32_t, UINT32_MAX, x);
        break;
    case GC_T_S32:
        BLOAD_INT(int32_t, -1, x);
        break;
    case GC_T_U64:
        BLOAD_INT(uint64_t, UINT64_MAX, (int64_t)x);
        break;
    case GC_T_S64:
        BLOAD_INT(int64_t, -1, x);
        break;
    case GC_T_F32:
        BLOAD_FLT(float);
        break;
    default: /* GC_T_F64 */
        BLOAD_FLT(double);
        break;
    }
}

#define BCMP_LOOP(OP, A, B)                                                                        \
    for (int i = 0; i < n; i++) {                                                                  \
        uint8_t nn = (uint8_t)(an[i] | bn[i]);                                                     \
        an[i] = nn;                                                                                \
        av[i].i = nn ? 0 : (A OP B);                                                               \
    }

static void bcmp_i(gc_binop op, bnum *av, uint8_t *an, const bnum *bv, const uint8_t *bn, int n)
{
    switch (op) {
    case GC_OP_EQ:
        BCMP_LOOP(==, av[i].i, bv[i].i);
        break;
    case GC_OP_NE:
        BCMP_LOOP(!=, av[i].i, bv[i].i);
        break;
    case GC_OP_LT:
        BCMP_LOOP(<, av[i].i, bv[i].i);
        break;
    case GC_OP_LE:
        BCMP_LOOP(<=, av[i].i, bv[i].i);
        break;
    case GC_OP_GT:
        BCMP_LOOP(>, av[i].i, bv[i].i);
        break;
    default:
        BCMP_LOOP(>=, av[i].i, bv[i].i);
        break;
    }
}

static void bcmp_f(gc_binop op, bnum *av, uint8_t *an, const bnum *bv, const uint8_t *bn, int n)
{
    switch (op) {
    case GC_OP_EQ:
        BCMP_LOOP(==, av[i].f, bv[i].f);
        break;
    case GC_OP_NE:
        BCMP_LOOP(!=, av[i].f, bv[i].f);
        break;
    case GC_OP_LT:
        BCMP_LOOP(<, av[i].f, bv[i].f);
        break;
    case GC_OP_LE:
        BCMP_LOOP(<=, av[i].f, bv[i].f);
        break;
    case GC_OP_GT:
        BCMP_LOOP(>, av[i].f, bv[i].f);
        break;
    default:
        BCMP_LOOP(>=, av[i].f, bv[i].f);
        break;
    }
}

#define GC_BATCH_COLS 24
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

/* What run_batch works in: the stack, the row register, and the columns of the current
 * rows loaded so far for this block (shared by where and expect: a column is read from
 * the rows once per block however often the expressions use it). */
typedef struct bws {
    bslot *st;                /* stack slots, then two scratch slots */
    bslot *col;               /* GC_BATCH_COLS cached columns */
    int64_t reg[2][GC_BATCH]; /* the row register of an unnumbered path (two: steps are
                               * computed out of place) */
    int64_t cur[GC_BATCH];    /* the current rows when not consecutive */
    /* the row vector of each numbered path (gc_inv_assign_paths) reached in this block:
     * path p (1-based) is preg[p - 1], valid when bit p - 1 of pvalid is set. Like the
     * column cache, it describes the block's current rows and is reset with ncol. */
    int64_t (*preg)[GC_BATCH];
    uint32_t npaths;
    uint64_t pvalid;
    /* cached columns: LOAD_CUR (key_path 0) or LOAD_REG through numbered path key_path */
    size_t key_ofs[GC_BATCH_COLS];
    uint32_t key_path[GC_BATCH_COLS];
    uint8_t key_ctype[GC_BATCH_COLS], key_flags[GC_BATCH_COLS];
    int ncol;
    uint32_t scratch; /* index of the first scratch slot */
} bws;

/* A block's caches start empty: new rows (or the rows that passed `where`). */
static inline void bws_reset(bws *w)
{
    w->ncol = 0;
    w->pvalid = 0;
}

/* Allocate a workspace for stack slots `stack` (scratch included) and `npaths` paths. */
static bws *bws_new(uint32_t stack, uint32_t npaths)
{
    bws *w = malloc(sizeof *w);
    bslot *sl = malloc(((size_t)stack + GC_BATCH_COLS) * sizeof *sl);
    int64_t(*preg)[GC_BATCH] = npaths ? malloc((size_t)npaths * sizeof *preg) : NULL;
    if (!w || !sl || (npaths && !preg)) {
        free(w);
        free(sl);
        free(preg);
        return NULL;
    }
    w->st = sl;
    w->col = sl + stack;
    w->preg = preg;
    w->npaths = npaths;
    bws_reset(w);
    return w;
}

static void bws_free(bws *w)
{
    if (!w)
        return;
    free(w->st);
    free(w->preg);
    free(w);
}

/* Column ofs (ctype, flags) of the current rows: cached, or loaded into `spare`. */
static const bslot *bcol(ev *e, bws *w, uint32_t t, size_t k, size_t r0, const int64_t *cur, int n,
                         size_t ofs, unsigned ctype, unsigned flags, bslot *spare)
{
    for (int c = 0; c < w->ncol; c++)
        if (w->key_ofs[c] == ofs && w->key_path[c] == 0 && w->key_ctype[c] == ctype &&
            w->key_flags[c] == flags)
            return &w->col[c];
    bslot *d = spare;
    if (w->ncol < GC_BATCH_COLS) {
        int c = w->ncol++;
        w->key_ofs[c] = ofs;
        w->key_path[c] = 0;
        w->key_ctype[c] = (uint8_t)ctype;
        w->key_flags[c] = (uint8_t)flags;
        d = &w->col[c];
    }
    const size_t rs = e->s->descs[t]->row_size;
    if (cur)
        bload((const uint8_t *)e->levels[k][t].rows + ofs, rs, cur, ctype, flags, n, d->v, d->n);
    else
        bload(rowp(e, k, t, (int64_t)r0) + ofs, rs, NULL, ctype, flags, n, d->v, d->n);
    /* the current rows all exist: only the all-ones pattern of a flagged column is null */
    d->nn = ctype != GC_T_F32 && ctype != GC_T_F64 && (flags & GC_CF_NULL_IF_MAX) != 0;
    return d;
}

#define BCMP3_LOOP(OP, Y)                                                                          \
    if (!anynull) {                                                                                \
        for (int i = 0; i < n; i++) {                                                              \
            on[i] = 0;                                                                             \
            ov[i].i = (int64_t)BOPF_##OP(xv[i].i, (Y));                                            \
        }                                                                                          \
    } else {                                                                                       \
        for (int i = 0; i < n; i++) {                                                              \
            uint8_t nn = (uint8_t)(xn[i] | (YN));                                                  \
            on[i] = nn;                                                                            \
            ov[i].i = nn ? 0 : (int64_t)BOPF_##OP(xv[i].i, (Y));                                   \
        }                                                                                          \
    }

#define BCMP3_OPS(Y)                                                                               \
    switch (op) {                                                                                  \
    case GC_OP_EQ:                                                                                 \
        BCMP3_LOOP(EQ, Y);                                                                         \
        break;                                                                                     \
    case GC_OP_NE:                                                                                 \
        BCMP3_LOOP(NE, Y);                                                                         \
        break;                                                                                     \
    case GC_OP_LT:                                                                                 \
        BCMP3_LOOP(LT, Y);                                                                         \
        break;                                                                                     \
    case GC_OP_LE:                                                                                 \
        BCMP3_LOOP(LE, Y);                                                                         \
        break;                                                                                     \
    case GC_OP_GT:                                                                                 \
        BCMP3_LOOP(GT, Y);                                                                         \
        break;                                                                                     \
    default:                                                                                       \
        BCMP3_LOOP(GE, Y);                                                                         \
        break;                                                                                     \
    }

#define BOPF_EQ b_eq
#define BOPF_NE b_ne
#define BOPF_LT b_lt
#define BOPF_LE b_le
#define BOPF_GT b_gt
#define BOPF_GE b_ge

/* o = x OP y (integers) */
static void bcmp_cc(gc_binop op, bslot *o, const bslot *x, const bslot *y, int n)
{
    bnum *ov = o->v;
    uint8_t *on = o->n;
    const bnum *xv = x->v, *yv = y->v;
    const uint8_t *xn = x->n, *yn = y->n;
    const int anynull = x->nn | y->nn;
    o->nn = anynull;
#define YN yn[i]
    BCMP3_OPS(yv[i].i)
#undef YN
}

/* o = x OP k */
static void bcmp_ck(gc_binop op, bslot *o, const bslot *x, int64_t k, int n)
{
    bnum *ov = o->v;
    uint8_t *on = o->n;
    const bnum *xv = x->v;
    const uint8_t *xn = x->n;
    const int anynull = x->nn;
    o->nn = anynull;
#define YN 0
    BCMP3_OPS(k)
#undef YN
}

#define BFOLD_LOOP(OP, Y, CONN)                                                                    \
    for (int i = 0; i < n; i++)                                                                    \
        cv[i].i = (int64_t)(bnz(cv[i].i) CONN BOPF_##OP(xv[i].i, (Y)));

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

/* c = c and/or (x OP y) (or x OP *k), where none of c, x, y has a null: c stays null-free */
static void bfold(gc_binop op, int is_and, bslot *c, const bslot *x, const int64_t *k,
                  const bslot *y, int n)
{
    bnum *cv = c->v;
    const bnum *xv = x->v;
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

/* Run p for the current rows of level slot k: r0 .. r0+n-1, or cur[0..n) when cur is not
 * NULL (absolute row indices); returns the slot holding the results. */
static bslot *run_batch(ev *e, const gc_prog *p, size_t k, size_t r0, const int64_t *cur, int n,
                        bws *w)
{
    int sp = 0;
    const gc_ins *code = p->code;
    bslot *st = w->st;
    const int64_t *reg = w->reg[0]; /* the row register: a current-row vector, w->reg or preg */
    bslot *scratch = &st[w->scratch];
    for (uint32_t pc = 0;; pc++) {
        const gc_ins *in = &code[pc];
        switch ((gc_opcode)in->op) {
        case GC_I_END:
            return &st[sp - 1];
        case GC_I_PUSH_I:
        case GC_I_PUSH_F: {
            bslot *s = &st[sp++];
            s->nn = 0;
            for (int i = 0; i < n; i++) {
                s->v[i].i = in->k.i; /* the union's bits: an integer or a double */
                s->n[i] = 0;
            }
            break;
        }
        case GC_I_PUSH_NULL: {
            bslot *s = &st[sp++];
            s->nn = 1;
            for (int i = 0; i < n; i++) {
                s->v[i].i = 0;
                s->n[i] = 1;
            }
            break;
        }
        case GC_I_LOAD_CUR: {
            bslot *s = &st[sp++];
            const bslot *c = bcol(e, w, in->a, k, r0, cur, n, in->k.u, in->ctype, in->flags, s);
            if (c != s) {
                memcpy(s->v, c->v, (size_t)n * sizeof *s->v);
                memcpy(s->n, c->n, (size_t)n);
                s->nn = c->nn;
            }
            break;
        }
        case GC_I_LOAD_REG: {
            const size_t rs = e->s->descs[in->a]->row_size;
            bslot *s = &st[sp++];
            s->nn = 1;
            if (!e->levels[k][in->a].rows) { /* no rows: every register is -1 */
                for (int i = 0; i < n; i++) {
                    s->v[i].i = 0;
                    s->n[i] = 1;
                }
                break;
            }
            /* a column through a numbered path is read once per block (the column cache,
             * keyed by the path as well) */
            bslot *d = s;
            const uint32_t path = (uint32_t)in->k2;
            if (path) {
                int c = 0;
                while (c < w->ncol &&
                       !(w->key_path[c] == path && w->key_ofs[c] == in->k.u &&
                         w->key_ctype[c] == in->ctype && w->key_flags[c] == in->flags))
                    c++;
                if (c < w->ncol) {
                    memcpy(s->v, w->col[c].v, (size_t)n * sizeof *s->v);
                    memcpy(s->n, w->col[c].n, (size_t)n);
                    break;
                }
                if (w->ncol < GC_BATCH_COLS) {
                    c = w->ncol++;
                    w->key_ofs[c] = in->k.u;
                    w->key_path[c] = path;
                    w->key_ctype[c] = in->ctype;
                    w->key_flags[c] = in->flags;
                    d = &w->col[c];
                    d->nn = 1;
                }
            }
            const uint8_t *base = (const uint8_t *)e->levels[k][in->a].rows + in->k.u;
            bload(base, rs, reg, in->ctype, in->flags, n, d->v, d->n);
            if (d != s) {
                memcpy(s->v, d->v, (size_t)n * sizeof *s->v);
                memcpy(s->n, d->n, (size_t)n);
            }
            break;
        }
        case GC_I_CMP_CC:
        case GC_I_CMP_CK: {
            const uint32_t t = in->a >> 8;
            bslot *s = &st[sp++];
            const bslot *x = bcol(e, w, t, k, r0, cur, n, in->k.u, in->ctype,
                                  (in->flags & 1) ? GC_CF_NULL_IF_MAX : 0, &scratch[0]);
            const gc_ins *nx = &code[pc + 1];
            if (sp >= 2 && (nx->op == GC_I_AND || nx->op == GC_I_OR) && !st[sp - 2].nn && !x->nn) {
                /* `c and x OP y` with no nulls: fold the compare into c (the batch VM runs
                 * instructions in order whatever the jumps, so skipping the AND is safe) */
                const bslot *y = NULL;
                if (in->op == GC_I_CMP_CC) {
                    y = bcol(e, w, t, k, r0, cur, n, in->b, in->pad,
                             (in->flags & 2) ? GC_CF_NULL_IF_MAX : 0, &scratch[1]);
                    if (y->nn)
                        goto unfused;
                }
                bfold((gc_binop)(in->a & 0xff), nx->op == GC_I_AND, &st[sp - 2], x,
                      y ? NULL : &in->k2, y, n);
                sp--;
                pc++;
                break;
            }
        unfused:
            if (in->op == GC_I_CMP_CK) {
                bcmp_ck((gc_binop)(in->a & 0xff), s, x, in->k2, n);
            } else {
                const bslot *y = bcol(e, w, t, k, r0, cur, n, in->b, in->pad,
                                      (in->flags & 2) ? GC_CF_NULL_IF_MAX : 0, &scratch[1]);
                bcmp_cc((gc_binop)(in->a & 0xff), s, x, y, n);
            }
            break;
        }
        case GC_I_ROW_CUR:
            if (cur) {
                reg = cur;
                break;
            }
            for (int i = 0; i < n; i++)
                w->reg[0][i] = (int64_t)(r0 + (size_t)i);
            reg = w->reg[0];
            break;
        case GC_I_ROW_PREV:
        case GC_I_ROW_NEXT:
        case GC_I_ROW_PARENT: {
            /* A step is computed out of place, into its path's vector when the path is
             * numbered (and taken from there when this block already reached it) */
            const uint32_t path = (uint32_t)in->k2;
            int64_t *dst;
            if (path && path <= w->npaths) {
                if (w->pvalid >> (path - 1) & 1) {
                    reg = w->preg[path - 1];
                    break;
                }
                dst = w->preg[path - 1];
                w->pvalid |= (uint64_t)1 << (path - 1);
            } else {
                dst = reg == w->reg[0] ? w->reg[1] : w->reg[0];
            }
            if (in->op == GC_I_ROW_PREV) {
                for (int i = 0; i < n; i++)
                    dst[i] = reg[i] >= 0 ? reg[i] - 1 : reg[i];
            } else if (in->op == GC_I_ROW_NEXT) {
                const int64_t cnt = (int64_t)tcount(e, k, in->a);
                for (int i = 0; i < n; i++)
                    dst[i] = reg[i] < 0 ? reg[i] : reg[i] + 1 >= cnt ? -1 : reg[i] + 1;
            } else if (!e->levels[k][in->a].rows) {
                for (int i = 0; i < n; i++)
                    dst[i] = -1;
            } else {
                const int64_t cnt = (int64_t)tcount(e, k, in->b);
                const size_t rs = e->s->descs[in->a]->row_size;
                const uint8_t *base = (const uint8_t *)e->levels[k][in->a].rows + in->k.u;
                bslot *s = scratch;
                bload(base, rs, reg, in->ctype, in->flags, n, s->v, s->n);
                for (int i = 0; i < n; i++) {
                    const int64_t v = s->v[i].i;
                    dst[i] = reg[i] < 0 ? reg[i] : (s->n[i] || v < 0 || v >= cnt) ? -1 : v;
                }
            }
            reg = dst;
            break;
        }
        case GC_I_REG_INDEX: {
            bslot *s = &st[sp++];
            s->nn = 1;
            for (int i = 0; i < n; i++) {
                s->v[i].i = reg[i];
                s->n[i] = reg[i] < 0;
            }
            break;
        }
        case GC_I_I2F: {
            bslot *s = &st[sp - 1 - (int)in->a];
            for (int i = 0; i < n; i++)
                s->v[i].f = (double)s->v[i].i; /* a null's value is never read */
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
            bslot *as = &st[sp - 2], *bs = &st[sp - 1];
            sp--;
            bnum *av = as->v;
            const bnum *bv = bs->v;
            uint8_t *an = as->n;
            const uint8_t *bn = bs->n;
            if (bs->nn)
                for (int i = 0; i < n; i++)
                    an[i] |= bn[i];
            as->nn |= bs->nn;
            switch ((gc_opcode)in->op) {
            case GC_I_ADD_I:
                for (int i = 0; i < n; i++)
                    av[i].i = wrap_add(av[i].i, bv[i].i);
                break;
            case GC_I_SUB_I:
                for (int i = 0; i < n; i++)
                    av[i].i = wrap_sub(av[i].i, bv[i].i);
                break;
            case GC_I_MUL_I:
                for (int i = 0; i < n; i++)
                    av[i].i = wrap_mul(av[i].i, bv[i].i);
                break;
            case GC_I_ADD_F:
                for (int i = 0; i < n; i++)
                    av[i].f = av[i].f + bv[i].f;
                break;
            case GC_I_SUB_F:
                for (int i = 0; i < n; i++)
                    av[i].f = av[i].f - bv[i].f;
                break;
            case GC_I_MUL_F:
                for (int i = 0; i < n; i++)
                    av[i].f = av[i].f * bv[i].f;
                break;
            case GC_I_DIV_F:
                /* one branch-free loop (it vectorises): a zero divisor makes a null, whose
                 * value is left as it was, as below */
                as->nn = 1;
                for (int i = 0; i < n; i++) {
                    const double fx = av[i].f, fy = bv[i].f;
                    const int z = fy == 0.0;
                    const double q = fx / (z ? 1.0 : fy);
                    an[i] = (uint8_t)(an[i] | z);
                    av[i].f = (an[i] != 0) ? fx : q;
                }
                break;
            case GC_I_BAND: /* a null keeps its value, as below */
                for (int i = 0; i < n; i++)
                    av[i].i = an[i] ? av[i].i : av[i].i & bv[i].i;
                break;
            case GC_I_BOR:
                for (int i = 0; i < n; i++)
                    av[i].i = an[i] ? av[i].i : av[i].i | bv[i].i;
                break;
            default:
                as->nn = 1; /* these can make a null */
                for (int i = 0; i < n; i++) {
                    if (an[i])
                        continue;
                    int64_t x = av[i].i, y = bv[i].i;
                    double fx = av[i].f, fy = bv[i].f;
                    switch ((gc_opcode)in->op) {
                    case GC_I_DIV_F:
                        if (fy == 0.0)
                            an[i] = 1;
                        else
                            av[i].f = fx / fy;
                        break;
                    case GC_I_IDIV_I:
                        if (y == 0)
                            an[i] = 1;
                        else if (x == INT64_MIN && y == -1)
                            av[i].i = INT64_MIN;
                        else
                            av[i].i = x / y;
                        break;
                    case GC_I_IDIV_F:
                        if (fy == 0.0)
                            an[i] = 1;
                        else
                            av[i].f = trunc(fx / fy);
                        break;
                    case GC_I_MOD_I:
                        if (y == 0)
                            an[i] = 1;
                        else if (y == -1)
                            av[i].i = 0;
                        else
                            av[i].i = x % y;
                        break;
                    case GC_I_MOD_F:
                        if (fy == 0.0)
                            an[i] = 1;
                        else
                            av[i].f = fmod(fx, fy);
                        break;
                    case GC_I_SHL:
                        if (y < 0 || y > 63)
                            an[i] = 1;
                        else
                            av[i].i = (int64_t)((uint64_t)x << y);
                        break;
                    case GC_I_SHR:
                        if (y < 0 || y > 63)
                            an[i] = 1;
                        else
                            av[i].i = x < 0 ? ~(~x >> y) : x >> y;
                        break;
                    case GC_I_BAND:
                        av[i].i = x & y;
                        break;
                    default:
                        av[i].i = x | y;
                        break;
                    }
                }
                break;
            }
            break;
        }
        case GC_I_CMP_I:
        case GC_I_CMP_F: {
            bslot *as = &st[sp - 2], *bs = &st[sp - 1];
            sp--;
            as->nn |= bs->nn;
            if (in->op == GC_I_CMP_I)
                bcmp_i((gc_binop)in->a, as->v, as->n, bs->v, bs->n, n);
            else
                bcmp_f((gc_binop)in->a, as->v, as->n, bs->v, bs->n, n);
            break;
        }
        case GC_I_ISNULL:
        case GC_I_NOTNULL: {
            bslot *s = &st[sp - 1];
            const int want = in->op == GC_I_ISNULL;
            s->nn = 0;
            for (int i = 0; i < n; i++) {
                s->v[i].i = want ? s->n[i] : !s->n[i];
                s->n[i] = 0;
            }
            break;
        }
        case GC_I_TRUTH_I: {
            bslot *s = &st[sp - 1];
            for (int i = 0; i < n; i++)
                s->v[i].i = s->v[i].i != 0;
            break;
        }
        case GC_I_TRUTH_F: {
            bslot *s = &st[sp - 1];
            s->nn = 1; /* NaN */
            for (int i = 0; i < n; i++) {
                if (s->n[i])
                    continue;
                if (isnan(s->v[i].f))
                    s->n[i] = 1;
                else
                    s->v[i].i = s->v[i].f != 0.0;
            }
            break;
        }
        case GC_I_NOT: {
            bslot *s = &st[sp - 1];
            for (int i = 0; i < n; i++)
                s->v[i].i = !s->v[i].i;
            break;
        }
        case GC_I_AND_SC:
        case GC_I_OR_SC:
            break; /* both sides run: see above */
        case GC_I_AND:
        case GC_I_OR: {
            bslot *as = &st[sp - 2], *bs = &st[sp - 1];
            sp--;
            /* branch-free three-valued logic: a side that is not null and equals `decide`
             * decides; else null if either side is null; else the other value */
            bnum *av = as->v;
            uint8_t *an = as->n;
            const bnum *bv = bs->v;
            const uint8_t *bn = bs->n;
            if (!as->nn && !bs->nn) {
                /* no nulls: non-null conditions are 0 or 1 */
                if (in->op == GC_I_AND)
                    for (int i = 0; i < n; i++)
                        av[i].i = (int64_t)(bnz(av[i].i) & bnz(bv[i].i));
                else
                    for (int i = 0; i < n; i++)
                        av[i].i = (int64_t)(bnz(av[i].i) | bnz(bv[i].i));
                break;
            }
            as->nn = 1;
            if (in->op == GC_I_AND) {
                for (int i = 0; i < n; i++) {
                    const int f = ((an[i] == 0) & (av[i].i == 0)) | ((bn[i] == 0) & (bv[i].i == 0));
                    const int nn = (f == 0) & (an[i] | bn[i]);
                    an[i] = (uint8_t)nn;
                    av[i].i = !f;
                }
            } else {
                for (int i = 0; i < n; i++) {
                    const int t = ((an[i] == 0) & (av[i].i != 0)) | ((bn[i] == 0) & (bv[i].i != 0));
                    const int nn = (t == 0) & (an[i] | bn[i]);
                    an[i] = (uint8_t)nn;
                    av[i].i = t;
                }
            }
            break;
        }
        case GC_I_NEG_I: {
            bslot *s = &st[sp - 1];
            for (int i = 0; i < n; i++)
                s->v[i].i = wrap_sub(0, s->v[i].i);
            break;
        }
        case GC_I_NEG_F: {
            bslot *s = &st[sp - 1];
            for (int i = 0; i < n; i++)
                s->v[i].f = -s->v[i].f;
            break;
        }
        case GC_I_ABS_I: {
            bslot *s = &st[sp - 1];
            for (int i = 0; i < n; i++)
                if (s->v[i].i < 0)
                    s->v[i].i = wrap_sub(0, s->v[i].i);
            break;
        }
        case GC_I_ABS_F: {
            bslot *s = &st[sp - 1];
            for (int i = 0; i < n; i++)
                s->v[i].f = fabs(s->v[i].f);
            break;
        }
        case GC_I_MIN_I:
        case GC_I_MAX_I:
        case GC_I_MIN_F:
        case GC_I_MAX_F: {
            const int m = (int)in->a;
            bslot *a = &st[sp - m];
            for (int j = 1; j < m; j++) {
                const bslot *b = &a[j];
                a->nn |= b->nn;
                for (int i = 0; i < n; i++) {
                    a->n[i] |= b->n[i];
                    switch ((gc_opcode)in->op) {
                    case GC_I_MIN_I:
                        if (b->v[i].i < a->v[i].i)
                            a->v[i].i = b->v[i].i;
                        break;
                    case GC_I_MAX_I:
                        if (b->v[i].i > a->v[i].i)
                            a->v[i].i = b->v[i].i;
                        break;
                    case GC_I_MIN_F:
                        if (b->v[i].f < a->v[i].f)
                            a->v[i].f = b->v[i].f;
                        break;
                    default:
                        if (b->v[i].f > a->v[i].f)
                            a->v[i].f = b->v[i].f;
                        break;
                    }
                }
            }
            sp -= m - 1;
            break;
        }
        case GC_I_SQRT: {
            bslot *s = &st[sp - 1];
            s->nn = 1;
            for (int i = 0; i < n; i++) {
                if (s->n[i])
                    continue;
                if (s->v[i].f < 0.0)
                    s->n[i] = 1;
                else
                    s->v[i].f = sqrt(s->v[i].f);
            }
            break;
        }
        case GC_I_DIST: {
            bslot *a = &st[sp - 6];
            a[0].nn = a[0].nn | a[1].nn | a[2].nn | a[3].nn | a[4].nn | a[5].nn;
            for (int i = 0; i < n; i++) {
                const uint8_t nn = (uint8_t)(a[0].n[i] | a[1].n[i] | a[2].n[i] | a[3].n[i] |
                                             a[4].n[i] | a[5].n[i]);
                /* computed for nulls too (their values are defined, the result unused):
                 * no branch, so the loop vectorises */
                a[0].n[i] = nn;
                double dx = a[0].v[i].f - a[3].v[i].f;
                double dy = a[1].v[i].f - a[4].v[i].f;
                double dz = a[2].v[i].f - a[5].v[i].f;
                a[0].v[i].f = sqrt(dx * dx + dy * dy + dz * dz);
            }
            sp -= 5;
            break;
        }
        case GC_I_BETWEEN_I:
        case GC_I_BETWEEN_F: {
            bslot *a = &st[sp - 3];
            a[0].nn = a[0].nn | a[1].nn | a[2].nn;
            /* branch-free: lo <= x and x <= hi, 0 for a null */
            if (in->op == GC_I_BETWEEN_I)
                for (int i = 0; i < n; i++) {
                    const uint8_t nn = (uint8_t)(a[0].n[i] | a[1].n[i] | a[2].n[i]);
                    a[0].n[i] = nn;
                    a[0].v[i].i =
                        (nn == 0) & (a[1].v[i].i <= a[0].v[i].i) & (a[0].v[i].i <= a[2].v[i].i);
                }
            else
                for (int i = 0; i < n; i++) {
                    const uint8_t nn = (uint8_t)(a[0].n[i] | a[1].n[i] | a[2].n[i]);
                    a[0].n[i] = nn;
                    a[0].v[i].i =
                        (nn == 0) & (a[1].v[i].f <= a[0].v[i].f) & (a[0].v[i].f <= a[2].v[i].f);
                }
            sp -= 2;
            break;
        }
        case GC_I_COALESCE: {
            const int m = (int)in->a;
            bslot *a = &st[sp - m];
            a[0].nn = 1;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < m; j++)
                    if (!a[j].n[i]) {
                        a[0].v[i] = a[j].v[i];
                        a[0].n[i] = 0;
                        break;
                    }
            sp -= m - 1;
            break;
        }
        case GC_I_AGG: {
            gc_val r = agg_value(e, in->a);
            bslot *s = &st[sp++];
            s->nn = r.null;
            for (int i = 0; i < n; i++) {
                s->v[i].i = r.u.i;
                s->n[i] = r.null;
            }
            break;
        }
        default: /* not reached: gc_inv_batch_ok admits only the cases above */
            return &st[sp - 1];
        }
    }
}

/* The row loop of agg_value on the batch VM (same order, same accumulation); returns 0
 * when the aggregate cannot run there (then agg_value runs it row by row). */
static int agg_batch(ev *e, const gc_agg *ag, int64_t *n, int64_t *isum, double *fsum, int *have,
                     gc_val *res)
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
    w->scratch = ms;
    const int allany = ag->kind == GC_AGG_ALL || ag->kind == GC_AGG_ANY;
    int done = 0;
    for (size_t k = 0; k < e->nlevels && !done; k++) {
        size_t cnt = tcount(e, k, (uint32_t)ag->table);
        if ((ag->kind == GC_AGG_COUNT) && !ag->cond.code) {
            *n += (int64_t)cnt;
            continue;
        }
        for (size_t r0 = 0; r0 < cnt && !done; r0 += GC_BATCH) {
            const int nb = cnt - r0 < GC_BATCH ? (int)(cnt - r0) : GC_BATCH;
            uint8_t pass[GC_BATCH]; /* 0 false, 1 true, 2 null */
            bws_reset(w);
            if (ag->cond.code) {
                const bslot *c = run_batch(e, &ag->cond, k, r0, NULL, nb, w);
                for (int i = 0; i < nb; i++)
                    pass[i] = c->n[i] ? 2 : c->v[i].i != 0;
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
                        done = 1;
                        break;
                    }
                    if (ag->kind == GC_AGG_ANY && pass[i]) {
                        res->u.i = 1;
                        *have = 1;
                        done = 1;
                        break;
                    }
                }
                continue;
            }
            if (ag->kind == GC_AGG_COUNT) {
                for (int i = 0; i < nb; i++)
                    *n += pass[i] == 1;
                continue;
            }
            const bslot *v = run_batch(e, &ag->value, k, r0, NULL, nb, w);
            for (int i = 0; i < nb; i++) {
                if (pass[i] != 1)
                    continue;
                if (v->n[i] || (ag->vty == GC_TY_FLT && isnan(v->v[i].f)))
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
                        better =
                            ag->kind == GC_AGG_MIN ? v->v[i].f < res->u.f : v->v[i].f > res->u.f;
                    else
                        better =
                            ag->kind == GC_AGG_MIN ? v->v[i].i < res->u.i : v->v[i].i > res->u.i;
                    if (better)
                        res->u.i = v->v[i].i; /* the bits: an integer or a double */
                    *have = 1;
                    break;
                }
                default:
                    break;
                }
            }
        }
    }
    bws_free(w);
    return 1;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* The rows r0 .. r0+n-1 of level slot k for batch unit e->u: where, then expect on the rows
 * that passed, counts and samples into a. */
static void unit_block(ev *e, bws *bw, size_t k, size_t r0, int n, int lv, acc *a)
{
    const gc_unit *u = e->u;
    gc_inv_result *out = a->out;
    const int64_t *rows = NULL; /* the rows expect runs on: r0.. or bw->cur */
    int m = n;
    bws_reset(bw);
    if (u->where.code) {
        const bslot *ws = run_batch(e, &u->where, k, r0, NULL, n, bw);
        m = 0;
        for (int i = 0; i < n; i++) {
            bw->cur[m] = (int64_t)(r0 + (size_t)i);
            m += !ws->n[i] && ws->v[i].i != 0;
        }
        if (m == 0)
            return;
        if (m < n) {
            rows = bw->cur;
            bws_reset(bw); /* the cached columns and paths are of all n rows */
        }
    }
    const bslot *x = run_batch(e, &u->expect, k, r0, rows, m, bw);
    out->checked += (size_t)m;
    for (int i = 0; i < m; i++) {
        if (!x->n[i] && x->v[i].i != 0)
            continue;
        out->failed++;
        rowref cur = {k, rows ? rows[i] : (int64_t)(r0 + (size_t)i)};
        e->outer = cur;
        add_sample(e, a, lv, cur, x->n[i]);
    }
}

/* Evaluate unit u with aggregates ranging over levels[0..nlevels). level_ids may be NULL
 * (then `level` is reported). Results are added to *out. */
static int eval_unit(const gc_inv_set *s, const gc_unit *u, const gc_table *const *levels,
                     const int *level_ids, int level, size_t nlevels, acc *a)
{
    ev e;
    if (ev_init(&e, s, u, levels, nlevels) != 0)
        return -1;
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
                bw->scratch = u->batch_stack - 2;
            }
            for (size_t r0 = 0; r0 < cnt; r0 += GC_BATCH)
                unit_block(&e, bw, k, r0, cnt - r0 < GC_BATCH ? (int)(cnt - r0) : GC_BATCH, lv, a);
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
        u->batch_stack = m + 2; /* two scratch slots */
    }
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
    if (eval_unit(s, &s->invs[i], lv, NULL, level, 1, &a) != 0) {
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
    if (!s || !tables || !out || (n && !idx))
        return -1;
    for (size_t j = 0; j < n; j++)
        if (idx[j] >= s->ninv)
            return -1;
    int rc = 0;
    const gc_table *const lv[1] = {tables};
    /* the units that run block by block on a table, grouped by table; the rest alone */
    uint8_t *grouped = calloc(n ? n : 1, 1);
    ev *evs = calloc(n ? n : 1, sizeof *evs);
    bws **ws = calloc(n ? n : 1, sizeof *ws);
    acc *as = calloc(n ? n : 1, sizeof *as);
    size_t *members = malloc((n ? n : 1) * sizeof *members);
    if (!grouped || !evs || !ws || !as || !members) {
        free(grouped);
        free(evs);
        free(ws);
        free(as);
        free(members);
        return -1;
    }
    const int match = tables_match(s, tables);
    for (size_t j = 0; j < n; j++) {
        const gc_unit *u = &s->invs[idx[j]];
        grouped[j] = match && u->batch && u->table >= 0 && !u->once;
        if (grouped[j])
            continue;
        double t0 = cpu_now();
        if (gc_inv_eval_level(s, idx[j], tables, level, max_samples, &out[idx[j]]) != 0)
            rc = -1;
        if (seconds)
            seconds[idx[j]] = cpu_now() - t0;
    }
    for (size_t j = 0; j < n; j++) {
        if (!grouped[j])
            continue;
        /* j and every later grouped unit on its table: one pass over the table's blocks, each
         * block's rows read from memory once for all of them */
        const int table = s->invs[idx[j]].table;
        size_t nm = 0;
        for (size_t q = j; q < n; q++)
            if (grouped[q] && s->invs[idx[q]].table == table) {
                grouped[q] = 0;
                members[nm++] = q;
            }
        int ok = 1;
        const double cpu0 = seconds ? cpu_now() : 0;
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
            ws[q] = bws_new(u->batch_stack, u->npaths);
            if (!ws[q])
                ok = 0;
            else
                ws[q]->scratch = u->batch_stack - 2;
        }
        const size_t cnt = ok ? tcount(&evs[members[0]], 0, (uint32_t)table) : 0;
        for (size_t r0 = 0; r0 < cnt; r0 += GC_BATCH) {
            const int nb = cnt - r0 < GC_BATCH ? (int)(cnt - r0) : GC_BATCH;
            for (size_t m = 0; m < nm; m++) {
                const size_t q = members[m];
                double t0 = seconds ? mono_now() : 0;
                unit_block(&evs[q], ws[q], 0, r0, nb, level, &as[q]);
                if (seconds)
                    seconds[idx[q]] += mono_now() - t0;
            }
        }
        if (seconds) {
            /* the group's thread CPU, shared out by each member's share of the blocks' time */
            double sum = 0, cpu = cpu_now() - cpu0;
            for (size_t m = 0; m < nm; m++)
                sum += seconds[idx[members[m]]];
            for (size_t m = 0; m < nm; m++)
                seconds[idx[members[m]]] =
                    sum > 0 ? cpu * (seconds[idx[members[m]]] / sum) : cpu / (double)nm;
        }
        for (size_t m = 0; m < nm; m++) {
            const size_t q = members[m];
            if (!ok || as[q].oom) {
                gc_inv_result_free(&out[idx[q]]);
                rc = -1;
            }
            bws_free(ws[q]);
            ws[q] = NULL;
            if (evs[q].s)
                ev_fini(&evs[q]);
        }
    }
    free(grouped);
    free(evs);
    free(ws);
    free(as);
    free(members);
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
            rc = eval_unit(s, u, &levels[k], &level_ids[k], level_ids[k], 1, &a);
    } else {
        rc = eval_unit(s, u, levels, level_ids, -1, nlevels, &a);
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
    const gc_unit *u = &s->mets[m];
    const gc_table *const lv[1] = {tables};
    ev e;
    if (ev_init(&e, s, u, lv, 1) != 0)
        return -1;
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

void gc_inv_result_free(gc_inv_result *r)
{
    if (!r)
        return;
    free(r->samples);
    r->samples = NULL;
    r->sample_count = 0;
}
