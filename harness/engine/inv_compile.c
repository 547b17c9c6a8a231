/* SPDX-License-Identifier: MIT */
/* Expression compiler: resolves names against the table descriptors, type-checks, and
 * emits the flat stack bytecode the VM runs per row (docs/invariants.md §3). Every error
 * is reported with its position; compilation goes on after an error to find the others. */
#include "inv_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cbuf {
    gc_ins *v;
    uint32_t n, cap;
    int depth, max;
    int uses_row;   /* reads the current row (top level) */
    int uses_outer; /* reads `outer` (inside an aggregate) */
    int oom;
    /* The row steps that last set the row register, when every path to the end of the
     * buffer ran them (reset at and/or join points): a path with the same steps only
     * needs its load (`patch.cx`, `patch.cy`, ... walk to the parent once). */
    gc_ins reg_steps[8];
    uint32_t nreg_steps;
    int reg_known;
} cbuf;

typedef struct scope {
    int table;       /* the current row's table; -1: there is no row */
    int outer_table; /* the invariant's row table for `outer.`; -1: none */
    int agg_depth;   /* 0 at the top of the expression */
    const char *norow;
} scope;

typedef struct ety {
    gc_ty ty;
    int is_bool;
    int hex;
} ety;

typedef struct cx {
    gc_compile_env *env;
    gc_unit *u;
    const gc_pos_map *map;
    const char *src;
    int errors;
    int collect_refs;
    uint32_t agg_cap, ref_cap;
    gc_ins last_path[48]; /* the full code of the last path compiled (for refs) */
    uint32_t nlast_path;
} cx;

static const ety ERR = {GC_TY_ERR, 0, 0};

#define GC_AGG_DEPTH_MAX 3

static void cerr(cx *c, uint32_t pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void cerr(cx *c, uint32_t pos, const char *fmt, ...)
{
    char msg[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = 1, col = 1;
    c->map->fn(c->map->ctx, pos, &line, &col);
    gc_inv_err_add(c->env->errs, c->map->file_no, c->map->file, line, col, "%s", msg);
    c->errors++;
}

static int stack_effect(const gc_ins *in)
{
    switch ((gc_opcode)in->op) {
    case GC_I_PUSH_I:
    case GC_I_PUSH_F:
    case GC_I_PUSH_S:
    case GC_I_PUSH_NULL:
    case GC_I_LOAD_CUR:
    case GC_I_LOAD_REG:
    case GC_I_REG_INDEX:
    case GC_I_AGG:
    case GC_I_CMP_CC:
    case GC_I_CMP_CK:
        return 1;
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
    case GC_I_BOR:
    case GC_I_CMP_I:
    case GC_I_CMP_F:
    case GC_I_CMP_S:
    case GC_I_AND:
    case GC_I_OR:
        return -1;
    case GC_I_MIN_I:
    case GC_I_MAX_I:
    case GC_I_MIN_F:
    case GC_I_MAX_F:
    case GC_I_COALESCE:
        return 1 - (int)in->a;
    case GC_I_DIST:
        return -5;
    case GC_I_BETWEEN_I:
    case GC_I_BETWEEN_F:
        return -2;
    default:
        return 0;
    }
}

static uint32_t emit(cbuf *b, gc_ins in)
{
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 16;
        gc_ins *v = realloc(b->v, cap * sizeof *v);
        if (!v) {
            b->oom = 1;
            return b->n;
        }
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n] = in;
    b->depth += stack_effect(&in);
    if (b->depth > b->max)
        b->max = b->depth;
    return b->n++;
}

static uint32_t emit_op(cbuf *b, gc_opcode op, uint32_t a)
{
    gc_ins in = {0};
    in.op = (uint8_t)op;
    in.a = a;
    return emit(b, in);
}

/* Finish a buffer into an arena program; reports an over-deep stack. */
static int finish(cx *c, cbuf *b, uint32_t pos, gc_prog *out)
{
    emit_op(b, GC_I_END, 0);
    memset(out, 0, sizeof *out);
    if (b->oom) {
        c->env->errs->oom = 1;
        return -1;
    }
    if (b->max > GC_INV_STACK) {
        cerr(c, pos, "expression too complex (needs a stack of %d values, the limit is %d)", b->max,
             GC_INV_STACK);
        return -1;
    }
    out->code = gc_arena_alloc(c->env->arena, b->n * sizeof *b->v);
    if (!out->code)
        return -1;
    memcpy(out->code, b->v, b->n * sizeof *b->v);
    out->n = b->n;
    out->max_stack = (uint32_t)(b->max > 0 ? b->max : 1);
    return 0;
}

static const gc_table_desc *tdesc(cx *c, int t)
{
    return c->env->descs[t];
}

static int find_table(cx *c, const char *name)
{
    for (size_t i = 0; i < c->env->ndesc; i++)
        if (c->env->descs[i] && strcmp(c->env->descs[i]->name, name) == 0)
            return (int)i;
    return -1;
}

static const gc_column *find_col(const gc_table_desc *d, const char *name)
{
    for (size_t i = 0; i < d->column_count; i++)
        if (strcmp(d->columns[i].name, name) == 0)
            return &d->columns[i];
    return NULL;
}

/* Longest prefix of parts[0..n) that is a registered table name: returns the number of
 * parts it takes (0: none) and the table index. */
static uint32_t table_prefix(cx *c, const char *const *parts, uint32_t n, int *t)
{
    char buf[512];
    for (uint32_t k = n; k > 0; k--) {
        size_t o = 0;
        int ok = 1;
        for (uint32_t i = 0; i < k && ok; i++) {
            size_t l = strlen(parts[i]);
            if (o + l + 2 > sizeof buf)
                ok = 0;
            else {
                if (i)
                    buf[o++] = '.';
                memcpy(buf + o, parts[i], l);
                o += l;
            }
        }
        if (!ok)
            continue;
        buf[o] = '\0';
        int ti = find_table(c, buf);
        if (ti >= 0) {
            *t = ti;
            return k;
        }
    }
    return 0;
}

static void join_parts(const char *const *parts, uint32_t n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && o + 1 < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "." : "", parts[i]);
}

/* Suggest a table for a misspelt prefix of parts: tries every prefix, longest first. */
static const char *suggest_table(cx *c, const char *const *parts, uint32_t n, uint32_t *taken,
                                 char *name, size_t namelen)
{
    const char *cands[256];
    size_t nc = 0;
    for (size_t i = 0; i < c->env->ndesc && nc < GC_COUNTOF(cands); i++)
        if (c->env->descs[i])
            cands[nc++] = c->env->descs[i]->name;
    for (uint32_t k = n; k > 0; k--) {
        join_parts(parts, k, name, namelen);
        const char *s = gc_inv_suggest(name, cands, nc);
        if (s) {
            *taken = k;
            return s;
        }
    }
    return NULL;
}

static ety col_ety(const gc_column *col)
{
    ety e = {GC_TY_INT, 0, (col->flags & GC_CF_HEX) != 0};
    if (col->type == GC_T_BOOL)
        e.is_bool = 1;
    else if (col->type == GC_T_F32 || col->type == GC_T_F64)
        e.ty = GC_TY_FLT;
    else if (col->type == GC_T_STR)
        e.ty = GC_TY_STR;
    return e;
}

static int is_int_coltype(gc_coltype t)
{
    return t != GC_T_F32 && t != GC_T_F64 && t != GC_T_STR;
}

static void emit_load(cbuf *b, int from_reg, int table, const gc_column *col)
{
    gc_ins in = {0};
    in.op = (uint8_t)(from_reg ? GC_I_LOAD_REG : GC_I_LOAD_CUR);
    in.ctype = (uint8_t)col->type;
    in.flags = (uint8_t)col->flags;
    in.a = (uint32_t)table;
    in.b = (uint32_t)col->size;
    in.k.u = col->offset;
    emit(b, in);
}

/* Resolve parts[0..n) relative to the current row (or `outer`) and emit its load. */
static ety c_path_raw(cx *c, cbuf *b, const char *const *parts, const uint32_t *ppos, uint32_t n,
                      scope sc)
{
    char full[256];
    join_parts(parts, n, full, sizeof full);
    if (sc.table < 0) {
        int t;
        if (table_prefix(c, parts, n, &t))
            cerr(c, ppos[0], "table '%s' can only be used as the first argument of an aggregate",
                 tdesc(c, t)->name);
        else if (strcmp(parts[0], "outer") == 0)
            cerr(c, ppos[0], "'outer' used where there is no enclosing row");
        else if (strcmp(parts[0], "prev") == 0 || strcmp(parts[0], "next") == 0)
            cerr(c, ppos[0], "'%s' used where there is no row (%s)", parts[0], sc.norow);
        else
            cerr(c, ppos[0], "'%s' used where there is no row (%s); aggregate it, e.g. sum(T.%s)",
                 full, sc.norow, parts[n - 1]);
        return ERR;
    }
    int t = sc.table;
    int have_reg = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = parts[i];
        const gc_table_desc *d = tdesc(c, t);
        if (strcmp(name, "outer") == 0) {
            if (i != 0) {
                cerr(c, ppos[i], "'outer' can only start a name");
                return ERR;
            }
            if (sc.outer_table < 0) {
                if (sc.agg_depth == 0)
                    cerr(c, ppos[i], "'outer' is only valid inside an aggregate's arguments");
                else
                    cerr(c, ppos[i], "'outer' used but the invariant has no row (no table)");
                return ERR;
            }
            emit_op(b, GC_I_ROW_OUTER, 0);
            b->uses_outer = 1;
            t = sc.outer_table;
            have_reg = 1;
        } else if (strcmp(name, "row") == 0 && i == n - 1 && !find_col(d, "row")) {
            /* `row`, `prev.row`, `patch.row`: the index of the row reached so
             * far (the current row when it stands alone), as samples print it */
            if (!have_reg) {
                emit_op(b, GC_I_ROW_CUR, 0);
                b->uses_row = 1;
            }
            have_reg = 1;
        } else if (strcmp(name, "prev") == 0 || strcmp(name, "next") == 0) {
            if (!have_reg) {
                emit_op(b, GC_I_ROW_CUR, 0);
                b->uses_row = 1;
            }
            emit_op(b, name[0] == 'p' ? GC_I_ROW_PREV : GC_I_ROW_NEXT, (uint32_t)t);
            have_reg = 1;
        } else if (d->parent_link && strcmp(name, d->parent_link) == 0) {
            int pt = d->parent_table ? find_table(c, d->parent_table) : -1;
            const gc_column *pc = d->parent_column ? find_col(d, d->parent_column) : NULL;
            if (pt < 0) {
                cerr(c, ppos[i], "link '%s' of %s names table '%s', which is not loaded", name,
                     d->name, d->parent_table ? d->parent_table : "(none)");
                return ERR;
            }
            if (!pc || !is_int_coltype(pc->type)) {
                cerr(c, ppos[i], "link '%s' of %s has no integer parent column '%s'", name, d->name,
                     d->parent_column ? d->parent_column : "(none)");
                return ERR;
            }
            if (!have_reg) {
                emit_op(b, GC_I_ROW_CUR, 0);
                b->uses_row = 1;
            }
            gc_ins in = {0};
            in.op = GC_I_ROW_PARENT;
            in.ctype = (uint8_t)pc->type;
            in.flags = (uint8_t)pc->flags;
            in.a = (uint32_t)t;
            in.b = (uint32_t)pt;
            in.k.u = pc->offset;
            emit(b, in);
            t = pt;
            have_reg = 1;
        } else {
            const gc_column *col = find_col(d, name);
            if (col) {
                if (i != n - 1) {
                    cerr(c, ppos[i + 1], "'%s' is a column of %s; nothing can follow it", name,
                         d->name);
                    return ERR;
                }
                if (!have_reg)
                    b->uses_row = 1;
                emit_load(b, have_reg, t, col);
                return col_ety(col);
            }
            int tt;
            if (i == 0 && table_prefix(c, parts, n, &tt)) {
                cerr(c, ppos[0],
                     "table '%s' can only be used as the first argument of an aggregate",
                     tdesc(c, tt)->name);
                return ERR;
            }
            const char *cands[300];
            size_t nc = 0;
            if (i + 1 < n) {
                /* something follows: this was meant as a row step */
                cands[nc++] = "prev";
                cands[nc++] = "next";
                if (d->parent_link)
                    cands[nc++] = d->parent_link;
                if (i == 0 && sc.outer_table >= 0)
                    cands[nc++] = "outer";
                const char *s = gc_inv_suggest(name, cands, nc);
                if (s)
                    cerr(c, ppos[i], "unknown link '%s' in %s; did you mean '%s'?", name, d->name,
                         s);
                else if (d->parent_link)
                    cerr(c, ppos[i], "unknown link '%s' in %s (its parent link is '%s')", name,
                         d->name, d->parent_link);
                else
                    cerr(c, ppos[i], "unknown link '%s' in %s (%s has no parent link)", name,
                         d->name, d->name);
                return ERR;
            }
            for (size_t k = 0; k < d->column_count && nc < GC_COUNTOF(cands) - 5; k++)
                cands[nc++] = d->columns[k].name;
            cands[nc++] = "row";
            cands[nc++] = "prev";
            cands[nc++] = "next";
            if (d->parent_link)
                cands[nc++] = d->parent_link;
            if (i == 0 && sc.outer_table >= 0)
                cands[nc++] = "outer";
            const char *s = gc_inv_suggest(name, cands, nc);
            if (s)
                cerr(c, ppos[i], "unknown column '%s' in %s; did you mean '%s'?", name, d->name, s);
            else
                cerr(c, ppos[i], "unknown column '%s' in %s", name, d->name);
            return ERR;
        }
    }
    /* ended on a row: its index, or null when it does not exist */
    emit_op(b, GC_I_REG_INDEX, 0);
    ety e = {GC_TY_INT, 0, 0};
    return e;
}

static int same_ins(const gc_ins *x, const gc_ins *y)
{
    return x->op == y->op && x->ctype == y->ctype && x->flags == y->flags && x->pad == y->pad &&
           x->a == y->a && x->b == y->b && x->k.u == y->k.u && x->k2 == y->k2;
}

/* Compile a path into a scratch buffer, then emit it, leaving out its row steps when the
 * register already holds exactly that row on every path to here. */
static ety c_path(cx *c, cbuf *b, const char *const *parts, const uint32_t *ppos, uint32_t n,
                  scope sc)
{
    cbuf pb = {0};
    ety e = c_path_raw(c, &pb, parts, ppos, n, sc);
    c->nlast_path = 0;
    if (pb.oom) {
        b->oom = 1;
        free(pb.v);
        return ERR;
    }
    if (e.ty == GC_TY_ERR || pb.n == 0 || pb.n > GC_COUNTOF(c->last_path)) {
        if (e.ty != GC_TY_ERR)
            cerr(c, ppos[0], "name has too many steps");
        free(pb.v);
        return ERR;
    }
    memcpy(c->last_path, pb.v, pb.n * sizeof *pb.v);
    c->nlast_path = pb.n;
    uint32_t nsteps = pb.n - 1, from = 0;
    if (nsteps && b->reg_known && b->nreg_steps == nsteps) {
        int same = 1;
        for (uint32_t i = 0; i < nsteps && same; i++)
            same = same_ins(&b->reg_steps[i], &pb.v[i]);
        if (same)
            from = nsteps;
    }
    for (uint32_t i = from; i < pb.n; i++)
        emit(b, pb.v[i]);
    if (nsteps && from == 0) {
        b->reg_known = nsteps <= GC_COUNTOF(b->reg_steps);
        if (b->reg_known) {
            memcpy(b->reg_steps, pb.v, nsteps * sizeof *pb.v);
            b->nreg_steps = nsteps;
        }
    }
    b->uses_row |= pb.uses_row;
    b->uses_outer |= pb.uses_outer;
    free(pb.v);
    return e;
}

static ety c_expr(cx *c, cbuf *b, const gc_node *n, scope sc);

/* Convert to a condition (0/1/null). */
static ety c_cond(cx *c, cbuf *b, const gc_node *n, scope sc)
{
    ety e = c_expr(c, b, n, sc);
    switch (e.ty) {
    case GC_TY_INT:
        if (!e.is_bool)
            emit_op(b, GC_I_TRUTH_I, 0);
        break;
    case GC_TY_FLT:
        emit_op(b, GC_I_TRUTH_F, 0);
        break;
    case GC_TY_STR:
        cerr(c, n->pos, "a string is not a condition");
        return ERR;
    default:
        break;
    }
    ety r = {e.ty == GC_TY_ERR ? GC_TY_ERR : GC_TY_INT, 1, 0};
    if (e.ty == GC_TY_NULL)
        r.ty = GC_TY_INT;
    return r;
}

/* Record a value shown in samples: code[0..len) pushes it (and must stand alone). */
static void add_ref(cx *c, const char *label, const gc_ins *src, uint32_t len, ety e, int oom)
{
    gc_unit *u = c->u;
    if (!c->collect_refs || e.ty == GC_TY_ERR || u->nref >= 16)
        return;
    for (uint32_t i = 0; i < u->nref; i++)
        if (strcmp(u->refs[i].label, label) == 0)
            return;
    if (u->nref == c->ref_cap) {
        uint32_t cap = c->ref_cap ? c->ref_cap * 2 : 8;
        gc_ref *v = gc_arena_alloc(c->env->arena, cap * sizeof *v);
        if (!v)
            return;
        if (u->nref)
            memcpy(v, u->refs, u->nref * sizeof *v);
        u->refs = v;
        c->ref_cap = cap;
    }
    gc_ins *code = gc_arena_alloc(c->env->arena, (len + 1) * sizeof *code);
    const char *l = gc_arena_strdup(c->env->arena, label);
    if (!code || !l || oom || len == 0)
        return;
    memcpy(code, src, len * sizeof *code);
    code[len].op = GC_I_END;
    gc_ref *r = &u->refs[u->nref++];
    r->label = l;
    r->prog.code = code;
    r->prog.n = len + 1;
    r->prog.max_stack = 1;
    r->ty = e.ty;
    r->hex = e.hex;
}

static const char *const scalar_fns[] = {"abs",     "min",    "max",      "sqrt",  "distance",
                                         "between", "isnull", "coalesce", "count", "sum",
                                         "mean",    "all",    "any"};

static int arity(cx *c, const gc_node *n, uint32_t lo, uint32_t hi)
{
    if (n->nkids >= lo && n->nkids <= hi)
        return 1;
    if (lo == hi)
        cerr(c, n->pos, "%s() takes %u argument%s, got %u", n->str, lo, lo == 1 ? "" : "s",
             n->nkids);
    else if (hi == UINT32_MAX)
        cerr(c, n->pos, "%s() takes at least %u arguments, got %u", n->str, lo, n->nkids);
    else
        cerr(c, n->pos, "%s() takes %u to %u arguments, got %u", n->str, lo, hi, n->nkids);
    return 0;
}

/* An operand that is an integer literal alone (code[start..end) is one PUSH_I) becomes its
 * double at compile time, the conversion I2F would do on every row (C's conversion either
 * way): 1 when done, else the caller emits I2F. */
static int literal_to_float(cbuf *b, uint32_t start, uint32_t end)
{
    if (b->oom || end != start + 1 || b->v[start].op != GC_I_PUSH_I)
        return 0;
    b->v[start].op = GC_I_PUSH_F;
    b->v[start].k.f = (double)b->v[start].k.i;
    return 1;
}

/* Compile all arguments as numbers and unify them to INT or FLT; returns the type. */
static gc_ty c_num_args(cx *c, cbuf *b, const gc_node *n, scope sc, int force_float)
{
    gc_ty tys[64];
    uint32_t start[65];
    int err = 0, any_flt = force_float;
    for (uint32_t i = 0; i < n->nkids; i++) {
        start[i] = b->n;
        ety e = c_expr(c, b, n->kids[i], sc);
        tys[i] = e.ty;
        if (e.ty == GC_TY_ERR)
            err = 1;
        else if (e.ty == GC_TY_STR) {
            cerr(c, n->kids[i]->pos, "%s() needs a number, not a string", n->str);
            err = 1;
        } else if (e.ty == GC_TY_FLT)
            any_flt = 1;
    }
    if (err)
        return GC_TY_ERR;
    start[n->nkids] = b->n;
    if (any_flt) {
        for (uint32_t i = 0; i < n->nkids; i++)
            if (tys[i] != GC_TY_FLT && !literal_to_float(b, start[i], start[i + 1]))
                emit_op(b, GC_I_I2F, n->nkids - 1 - i);
        return GC_TY_FLT;
    }
    return GC_TY_INT;
}

/* 1 when the subtree calls nothing (so compiling it again registers no aggregate twice). */
static int no_calls(const gc_node *n)
{
    if (n->kind == GC_N_CALL)
        return 0;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (!no_calls(n->kids[i]))
            return 0;
    return 1;
}

/* Whether code[0..n) reads nothing of the current row (so its value is one per outer row):
 * its loads are through the row register, which it sets from `outer` only. */
static int outer_only(const gc_ins *code, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        switch ((gc_opcode)code[i].op) {
        case GC_I_LOAD_CUR:
        case GC_I_ROW_CUR:
        case GC_I_CMP_CC:
        case GC_I_CMP_CK:
        case GC_I_AGG:
        case GC_I_PUSH_S:
            return 0;
        default:
            break;
        }
    return 1;
}

/* An `any` condition's equality `col == key` (either way round) that every row the condition
 * holds for must satisfy: a conjunct of a chain of `and`s (three-valued: the chain is true only
 * when every conjunct is), col one integer column of the aggregated table, key an integer
 * expression of `outer` and literals. Compiles both sides on their own into ag->keycol /
 * ag->key and sets ag->keyed; leaves ag alone when there is none. Only called once the whole
 * condition compiled without error, so the sides compile again without error. */
static void find_key(cx *c, const gc_node *n, scope in, gc_agg *ag)
{
    if (ag->keyed)
        return;
    if (n->kind == GC_N_AND) {
        find_key(c, n->kids[0], in, ag);
        find_key(c, n->kids[1], in, ag);
        return;
    }
    if (n->kind != GC_N_BIN || n->op != GC_OP_EQ)
        return;
    for (int side = 0; side < 2 && !ag->keyed; side++) {
        const gc_node *col = n->kids[side], *key = n->kids[1 - side];
        if (col->kind != GC_N_PATH || col->nparts != 1 || key->kind == GC_N_NULL || !no_calls(key))
            continue;
        const int refs = c->collect_refs; /* nothing here is a sample's value */
        c->collect_refs = 0;
        cbuf cb = {0}, kb = {0};
        ety ce = c_expr(c, &cb, col, in);
        ety ke = c_expr(c, &kb, key, in);
        c->collect_refs = refs;
        gc_prog kp;
        if (!cb.oom && !kb.oom && ce.ty == GC_TY_INT && ke.ty == GC_TY_INT && cb.n == 1 &&
            cb.v[0].op == GC_I_LOAD_CUR && cb.v[0].a == (uint32_t)in.table &&
            outer_only(kb.v, kb.n) && kb.max <= GC_INV_STACK &&
            finish(c, &kb, key->pos, &kp) == 0) {
            ag->keyed = 1;
            ag->keycol = cb.v[0];
            ag->key = kp;
        }
        free(cb.v);
        free(kb.v);
    }
}

static ety c_aggregate(cx *c, cbuf *b, const gc_node *n, scope sc, gc_agg_kind kind)
{
    const char *fn = n->str;
    int wants_col =
        kind == GC_AGG_SUM || kind == GC_AGG_MIN || kind == GC_AGG_MAX || kind == GC_AGG_MEAN;
    if (kind == GC_AGG_ALL || kind == GC_AGG_ANY) {
        if (!arity(c, n, 2, 2))
            return ERR;
    } else if (!arity(c, n, 1, 2))
        return ERR;
    if (sc.agg_depth >= GC_AGG_DEPTH_MAX) {
        /* per-row aggregates inside per-row aggregates cost rows^depth */
        cerr(c, n->pos, "aggregates nested too deeply (at most %d levels)", GC_AGG_DEPTH_MAX);
        return ERR;
    }
    const gc_node *first = n->kids[0];
    if (first->kind != GC_N_PATH) {
        if (wants_col)
            cerr(c, first->pos, "%s() needs a column as its first argument: %s(T.col)", fn, fn);
        else
            cerr(c, first->pos, "%s() needs a table as its first argument: %s(T%s)", fn, fn,
                 kind == GC_AGG_COUNT ? "" : ", cond");
        return ERR;
    }
    int t = -1;
    uint32_t taken = table_prefix(c, first->parts, first->nparts, &t);
    const char *const *rest = first->parts + taken;
    const uint32_t *rest_pos = first->part_pos + taken;
    uint32_t nrest = first->nparts - taken;
    if (!taken) {
        /* own-table shorthand: sum(col) over the current table */
        if (wants_col && sc.table >= 0 && find_col(tdesc(c, sc.table), first->parts[0])) {
            t = sc.table;
            rest = first->parts;
            rest_pos = first->part_pos;
            nrest = first->nparts;
        } else {
            char name[256];
            uint32_t k = 0;
            const char *s = suggest_table(c, first->parts, first->nparts, &k, name, sizeof name);
            if (s)
                cerr(c, first->pos, "unknown table '%s'; did you mean '%s'?", name, s);
            else {
                join_parts(first->parts,
                           wants_col && first->nparts > 1 ? first->nparts - 1 : first->nparts, name,
                           sizeof name);
                if (wants_col && sc.table >= 0 && first->nparts == 1)
                    cerr(c, first->pos, "unknown table or column '%s' in %s()", name, fn);
                else
                    cerr(c, first->pos, "unknown table '%s'", name);
            }
            return ERR;
        }
    }
    if (wants_col && nrest == 0) {
        cerr(c, first->pos, "%s() needs a column: %s(%s.<column>)", fn, fn, tdesc(c, t)->name);
        return ERR;
    }
    if ((kind == GC_AGG_ALL || kind == GC_AGG_ANY) && nrest != 0) {
        cerr(c, rest_pos[0], "%s() takes a table, not a column: %s(%s, cond)", fn, fn,
             tdesc(c, t)->name);
        return ERR;
    }
    if (kind == GC_AGG_COUNT && nrest)
        kind = GC_AGG_COUNT_VAL;

    scope in = {t, sc.agg_depth == 0 ? sc.table : sc.outer_table, sc.agg_depth + 1, NULL};
    gc_agg ag = {0};
    ag.kind = kind;
    ag.table = t;
    ag.vty = GC_TY_INT;
    int bad = 0;
    if (nrest) {
        cbuf vb = {0};
        ety e = c_path(c, &vb, rest, rest_pos, nrest, in);
        if (e.ty == GC_TY_ERR)
            bad = 1;
        else if (e.ty == GC_TY_STR && kind != GC_AGG_COUNT_VAL) {
            cerr(c, rest_pos[nrest - 1], "%s() of a string column '%s'", fn, rest[nrest - 1]);
            bad = 1;
        }
        ag.vty = e.ty == GC_TY_FLT ? GC_TY_FLT : GC_TY_INT;
        if (!bad && finish(c, &vb, first->pos, &ag.value) != 0)
            bad = 1;
        ag.uses_outer |= vb.uses_outer;
        free(vb.v);
    }
    if (n->nkids == 2) {
        cbuf cb = {0};
        ety e = c_cond(c, &cb, n->kids[1], in);
        if (e.ty == GC_TY_ERR)
            bad = 1;
        if (!bad && finish(c, &cb, n->kids[1]->pos, &ag.cond) != 0)
            bad = 1;
        ag.uses_outer |= cb.uses_outer;
        free(cb.v);
    }
    if (bad)
        return ERR;
    if (kind == GC_AGG_ANY && ag.uses_outer && n->nkids == 2)
        find_key(c, n->kids[1], in, &ag);
    gc_unit *u = c->u;
    if (u->nagg == c->agg_cap) {
        uint32_t cap = c->agg_cap ? c->agg_cap * 2 : 4;
        gc_agg *v = gc_arena_alloc(c->env->arena, cap * sizeof *v);
        if (!v)
            return ERR;
        if (u->nagg)
            memcpy(v, u->aggs, u->nagg * sizeof *v);
        u->aggs = v;
        c->agg_cap = cap;
    }
    if (u->nagg >= 1024) {
        cerr(c, n->pos, "too many aggregates in one invariant");
        return ERR;
    }
    u->aggs[u->nagg] = ag;
    emit_op(b, GC_I_AGG, u->nagg);
    u->nagg++;
    if (ag.uses_outer) {
        if (sc.agg_depth == 0)
            b->uses_row = 1;
        else
            b->uses_outer = 1;
    }
    ety r = {GC_TY_INT, 0, 0};
    switch (kind) {
    case GC_AGG_ALL:
    case GC_AGG_ANY:
        r.is_bool = 1;
        break;
    case GC_AGG_SUM:
    case GC_AGG_MIN:
    case GC_AGG_MAX:
        r.ty = ag.vty;
        break;
    case GC_AGG_MEAN:
        r.ty = GC_TY_FLT;
        break;
    default:
        break;
    }
    return r;
}

static ety c_call(cx *c, cbuf *b, const gc_node *n, scope sc)
{
    const char *fn = n->str;
    static const struct {
        const char *name;
        gc_agg_kind kind;
    } aggs[] = {{"count", GC_AGG_COUNT},
                {"sum", GC_AGG_SUM},
                {"mean", GC_AGG_MEAN},
                {"all", GC_AGG_ALL},
                {"any", GC_AGG_ANY}};
    for (size_t i = 0; i < GC_COUNTOF(aggs); i++)
        if (strcmp(fn, aggs[i].name) == 0)
            return c_aggregate(c, b, n, sc, aggs[i].kind);
    int is_min = strcmp(fn, "min") == 0, is_max = strcmp(fn, "max") == 0;
    if (is_min || is_max) {
        int t;
        const gc_node *f = n->nkids ? n->kids[0] : NULL;
        int table_arg = f && f->kind == GC_N_PATH && table_prefix(c, f->parts, f->nparts, &t);
        if (n->nkids == 1 || (n->nkids == 2 && table_arg))
            return c_aggregate(c, b, n, sc, is_min ? GC_AGG_MIN : GC_AGG_MAX);
        if (n->nkids == 0) {
            cerr(c, n->pos, "%s() needs a column T.col (aggregate) or two or more values", fn);
            return ERR;
        }
        gc_ty ty = c_num_args(c, b, n, sc, 0);
        if (ty == GC_TY_ERR)
            return ERR;
        gc_opcode op = ty == GC_TY_FLT ? (is_min ? GC_I_MIN_F : GC_I_MAX_F)
                                       : (is_min ? GC_I_MIN_I : GC_I_MAX_I);
        emit_op(b, op, n->nkids);
        ety r = {ty, 0, 0};
        return r;
    }
    if (strcmp(fn, "abs") == 0) {
        if (!arity(c, n, 1, 1))
            return ERR;
        gc_ty ty = c_num_args(c, b, n, sc, 0);
        if (ty == GC_TY_ERR)
            return ERR;
        emit_op(b, ty == GC_TY_FLT ? GC_I_ABS_F : GC_I_ABS_I, 0);
        ety r = {ty, 0, 0};
        return r;
    }
    if (strcmp(fn, "sqrt") == 0 || strcmp(fn, "distance") == 0) {
        int d = fn[0] == 'd';
        if (!arity(c, n, d ? 6 : 1, d ? 6 : 1))
            return ERR;
        if (c_num_args(c, b, n, sc, 1) == GC_TY_ERR)
            return ERR;
        emit_op(b, d ? GC_I_DIST : GC_I_SQRT, 0);
        ety r = {GC_TY_FLT, 0, 0};
        return r;
    }
    if (strcmp(fn, "between") == 0) {
        if (!arity(c, n, 3, 3))
            return ERR;
        gc_ty ty = c_num_args(c, b, n, sc, 0);
        if (ty == GC_TY_ERR)
            return ERR;
        emit_op(b, ty == GC_TY_FLT ? GC_I_BETWEEN_F : GC_I_BETWEEN_I, 0);
        ety r = {GC_TY_INT, 1, 0};
        return r;
    }
    if (strcmp(fn, "isnull") == 0) {
        if (!arity(c, n, 1, 1))
            return ERR;
        ety e = c_expr(c, b, n->kids[0], sc);
        if (e.ty == GC_TY_ERR)
            return ERR;
        emit_op(b, GC_I_ISNULL, 0);
        ety r = {GC_TY_INT, 1, 0};
        return r;
    }
    if (strcmp(fn, "coalesce") == 0) {
        if (!arity(c, n, 2, 64))
            return ERR;
        /* strings or numbers, not a mix */
        int any_str = 0, any_num = 0, err = 0, any_flt = 0;
        gc_ty tys[64];
        for (uint32_t i = 0; i < n->nkids; i++) {
            ety e = c_expr(c, b, n->kids[i], sc);
            tys[i] = e.ty;
            if (e.ty == GC_TY_ERR)
                err = 1;
            else if (e.ty == GC_TY_STR)
                any_str = 1;
            else if (e.ty != GC_TY_NULL)
                any_num = 1;
            if (e.ty == GC_TY_FLT)
                any_flt = 1;
        }
        if (err)
            return ERR;
        if (any_str && any_num) {
            cerr(c, n->pos, "coalesce() mixes strings and numbers");
            return ERR;
        }
        if (any_flt)
            for (uint32_t i = 0; i < n->nkids; i++)
                if (tys[i] == GC_TY_INT)
                    emit_op(b, GC_I_I2F, n->nkids - 1 - i);
        emit_op(b, GC_I_COALESCE, n->nkids);
        ety r = {any_str ? GC_TY_STR : any_flt ? GC_TY_FLT : GC_TY_INT, 0, 0};
        return r;
    }
    const char *s = gc_inv_suggest(fn, scalar_fns, GC_COUNTOF(scalar_fns));
    if (s)
        cerr(c, n->pos, "unknown function '%s'; did you mean '%s'?", fn, s);
    else
        cerr(c, n->pos, "unknown function '%s'", fn);
    return ERR;
}

static const char *op_text(gc_binop op)
{
    static const char *const t[] = {"+", "-", "*",  "/",  "//", "%",  "<<", ">>",
                                    "&", "|", "==", "!=", "<",  "<=", ">",  ">="};
    return t[op];
}

static int int_load(const gc_ins *in)
{
    return in->op == GC_I_LOAD_CUR && is_int_coltype((gc_coltype)in->ctype);
}

static gc_binop mirror(gc_binop op)
{
    switch (op) {
    case GC_OP_LT:
        return GC_OP_GT;
    case GC_OP_LE:
        return GC_OP_GE;
    case GC_OP_GT:
        return GC_OP_LT;
    case GC_OP_GE:
        return GC_OP_LE;
    default:
        return op;
    }
}

/* Replace [LOAD_CUR x][LOAD_CUR y | PUSH_I k] (each operand one instruction) by one fused
 * compare. Jump targets never point past the end of the buffer, so shrinking the tail is
 * safe; a target at the left operand now lands on the fused instruction, as it should. */
static int fuse_cmp(cbuf *b, gc_binop op, uint32_t start_l, uint32_t start_r)
{
    if (b->oom || b->n < 2 || start_l + 2 != b->n || start_r + 1 != b->n)
        return 0;
    gc_ins x = b->v[start_l], y = b->v[start_r];
    gc_ins f = {0};
    if (int_load(&x) && int_load(&y)) {
        f.op = GC_I_CMP_CC;
        f.ctype = x.ctype;
        f.pad = y.ctype;
        f.flags = (uint8_t)(((x.flags & GC_CF_NULL_IF_MAX) ? 1 : 0) |
                            ((y.flags & GC_CF_NULL_IF_MAX) ? 2 : 0));
        f.a = (uint32_t)op | x.a << 8;
        f.k.u = x.k.u;
        f.b = (uint32_t)y.k.u;
        if (y.k.u > UINT32_MAX || x.a != y.a)
            return 0;
    } else if (int_load(&x) && y.op == GC_I_PUSH_I) {
        f.op = GC_I_CMP_CK;
        f.ctype = x.ctype;
        f.flags = (x.flags & GC_CF_NULL_IF_MAX) ? 1 : 0;
        f.a = (uint32_t)op | x.a << 8;
        f.k.u = x.k.u;
        f.k2 = y.k.i;
    } else if (x.op == GC_I_PUSH_I && int_load(&y)) {
        f.op = GC_I_CMP_CK;
        f.ctype = y.ctype;
        f.flags = (y.flags & GC_CF_NULL_IF_MAX) ? 1 : 0;
        f.a = (uint32_t)mirror(op) | y.a << 8;
        f.k.u = y.k.u;
        f.k2 = x.k.i;
    } else {
        return 0;
    }
    if (f.a >> 8 != (f.op == GC_I_CMP_CK && x.op == GC_I_PUSH_I ? y.a : x.a))
        return 0; /* table index too large for the packing */
    b->n -= 2;
    b->depth -= 2;
    emit(b, f);
    return 1;
}

static ety c_bin(cx *c, cbuf *b, const gc_node *n, scope sc)
{
    gc_binop op = n->op;
    const gc_node *l = n->kids[0], *r = n->kids[1];
    int is_cmp = op >= GC_OP_EQ;
    if (is_cmp && (op == GC_OP_EQ || op == GC_OP_NE) &&
        (l->kind == GC_N_NULL || r->kind == GC_N_NULL)) {
        if (l->kind == GC_N_NULL && r->kind == GC_N_NULL) {
            gc_ins in = {0};
            in.op = GC_I_PUSH_I;
            in.k.i = op == GC_OP_EQ;
            emit(b, in);
        } else {
            ety e = c_expr(c, b, l->kind == GC_N_NULL ? r : l, sc);
            if (e.ty == GC_TY_ERR)
                return ERR;
            emit_op(b, op == GC_OP_EQ ? GC_I_ISNULL : GC_I_NOTNULL, 0);
        }
        ety res = {GC_TY_INT, 1, 0};
        return res;
    }
    uint32_t start_l = b->n;
    ety a = c_expr(c, b, l, sc);
    uint32_t start_r = b->n;
    ety bb = c_expr(c, b, r, sc);
    if (a.ty == GC_TY_ERR || bb.ty == GC_TY_ERR)
        return ERR;
    if (a.ty == GC_TY_STR || bb.ty == GC_TY_STR) {
        if (!is_cmp) {
            cerr(c, n->op_pos, "'%s' needs numbers, not a string", op_text(op));
            return ERR;
        }
        if (op != GC_OP_EQ && op != GC_OP_NE) {
            cerr(c, n->op_pos, "strings can only be compared with == and !=");
            return ERR;
        }
        if (!(a.ty == GC_TY_STR || a.ty == GC_TY_NULL) ||
            !(bb.ty == GC_TY_STR || bb.ty == GC_TY_NULL)) {
            cerr(c, n->op_pos, "cannot compare a string with a number");
            return ERR;
        }
        emit_op(b, GC_I_CMP_S, op);
        ety res = {GC_TY_INT, 1, 0};
        return res;
    }
    int flt = a.ty == GC_TY_FLT || bb.ty == GC_TY_FLT || op == GC_OP_DIV;
    if (op == GC_OP_SHL || op == GC_OP_SHR || op == GC_OP_BAND || op == GC_OP_BOR) {
        if (a.ty == GC_TY_FLT || bb.ty == GC_TY_FLT) {
            cerr(c, n->op_pos, "'%s' needs integer operands", op_text(op));
            return ERR;
        }
        static const gc_opcode bop[] = {[GC_OP_SHL] = GC_I_SHL,
                                        [GC_OP_SHR] = GC_I_SHR,
                                        [GC_OP_BAND] = GC_I_BAND,
                                        [GC_OP_BOR] = GC_I_BOR};
        emit_op(b, bop[op], 0);
        ety res = {GC_TY_INT, 0, 0};
        return res;
    }
    if (flt) {
        const uint32_t end_r = b->n;
        if (a.ty != GC_TY_FLT && !literal_to_float(b, start_l, start_r))
            emit_op(b, GC_I_I2F, 1);
        if (bb.ty != GC_TY_FLT && !literal_to_float(b, start_r, end_r))
            emit_op(b, GC_I_I2F, 0);
    }
    if (is_cmp) {
        if (!flt && fuse_cmp(b, op, start_l, start_r)) {
            ety res = {GC_TY_INT, 1, 0};
            return res;
        }
        emit_op(b, flt ? GC_I_CMP_F : GC_I_CMP_I, op);
        ety res = {GC_TY_INT, 1, 0};
        return res;
    }
    gc_opcode code;
    switch (op) {
    case GC_OP_ADD:
        code = flt ? GC_I_ADD_F : GC_I_ADD_I;
        break;
    case GC_OP_SUB:
        code = flt ? GC_I_SUB_F : GC_I_SUB_I;
        break;
    case GC_OP_MUL:
        code = flt ? GC_I_MUL_F : GC_I_MUL_I;
        break;
    case GC_OP_DIV:
        code = GC_I_DIV_F;
        break;
    case GC_OP_IDIV:
        code = flt ? GC_I_IDIV_F : GC_I_IDIV_I;
        break;
    default:
        code = flt ? GC_I_MOD_F : GC_I_MOD_I;
        break;
    }
    emit_op(b, code, 0);
    ety res = {flt ? GC_TY_FLT : GC_TY_INT, 0, 0};
    return res;
}

static ety c_expr(cx *c, cbuf *b, const gc_node *n, scope sc)
{
    gc_ins in = {0};
    uint32_t start = b->n;
    switch (n->kind) {
    case GC_N_INT: {
        in.op = GC_I_PUSH_I;
        in.k.i = n->ival;
        emit(b, in);
        ety e = {GC_TY_INT, n->is_bool_lit || n->ival == 0 || n->ival == 1, 0};
        return e;
    }
    case GC_N_FLT: {
        in.op = GC_I_PUSH_F;
        in.k.f = n->fval;
        emit(b, in);
        ety e = {GC_TY_FLT, 0, 0};
        return e;
    }
    case GC_N_STR: {
        in.op = GC_I_PUSH_S;
        in.k.s = n->str;
        in.b = (uint32_t)n->slen;
        emit(b, in);
        ety e = {GC_TY_STR, 0, 0};
        return e;
    }
    case GC_N_NULL: {
        in.op = GC_I_PUSH_NULL;
        emit(b, in);
        ety e = {GC_TY_NULL, 0, 0};
        return e;
    }
    case GC_N_PATH: {
        ety e = c_path(c, b, n->parts, n->part_pos, n->nparts, sc);
        if (sc.agg_depth == 0) {
            char label[256];
            join_parts(n->parts, n->nparts, label, sizeof label);
            add_ref(c, label, c->last_path, c->nlast_path, e, b->oom);
        }
        return e;
    }
    case GC_N_CALL: {
        ety e = c_call(c, b, n, sc);
        if (sc.agg_depth == 0 && b->n == start + 1 && b->v && b->v[start].op == GC_I_AGG) {
            char label[256];
            size_t len = n->end - n->pos;
            if (len >= sizeof label)
                len = sizeof label - 1;
            memcpy(label, c->src + n->pos, len);
            label[len] = '\0';
            add_ref(c, label, b->v + start, 1, e, b->oom);
        }
        return e;
    }
    case GC_N_NEG: {
        ety e = c_expr(c, b, n->kids[0], sc);
        if (e.ty == GC_TY_ERR)
            return ERR;
        if (e.ty == GC_TY_STR) {
            cerr(c, n->pos, "'-' needs a number, not a string");
            return ERR;
        }
        emit_op(b, e.ty == GC_TY_FLT ? GC_I_NEG_F : GC_I_NEG_I, 0);
        ety r = {e.ty == GC_TY_FLT ? GC_TY_FLT : GC_TY_INT, 0, 0};
        return r;
    }
    case GC_N_NOT: {
        ety e = c_cond(c, b, n->kids[0], sc);
        if (e.ty == GC_TY_ERR)
            return ERR;
        emit_op(b, GC_I_NOT, 0);
        ety r = {GC_TY_INT, 1, 0};
        return r;
    }
    case GC_N_AND:
    case GC_N_OR: {
        int is_and = n->kind == GC_N_AND;
        ety a = c_cond(c, b, n->kids[0], sc);
        uint32_t j = emit_op(b, is_and ? GC_I_AND_SC : GC_I_OR_SC, 0);
        ety r = c_cond(c, b, n->kids[1], sc);
        emit_op(b, is_and ? GC_I_AND : GC_I_OR, 0);
        if (j < b->n && !b->oom)
            b->v[j].a = b->n;
        b->reg_known = 0; /* a join: the jump skipped the right side's row steps */
        if (a.ty == GC_TY_ERR || r.ty == GC_TY_ERR)
            return ERR;
        ety e = {GC_TY_INT, 1, 0};
        return e;
    }
    case GC_N_BIN:
        return c_bin(c, b, n, sc);
    }
    return ERR;
}

int gc_inv_compile(gc_compile_env *env, gc_unit *u, gc_expr_role role, const char *src, size_t len,
                   const gc_pos_map *map, gc_prog *out, gc_ty *out_ty, int *uses_row)
{
    memset(out, 0, sizeof *out);
    *out_ty = GC_TY_ERR;
    *uses_row = 0;
    cx c = {.env = env, .u = u, .map = map, .src = src, .collect_refs = role == GC_EXPR_EXPECT};
    /* the unit's arrays may already hold aggregates of another expression */
    c.agg_cap = u->nagg;
    c.ref_cap = u->nref;
    char perrmsg[200];
    uint32_t perr_pos = 0;
    gc_node *ast = gc_inv_parse(env->arena, src, len, &perr_pos, perrmsg, sizeof perrmsg);
    if (!ast) {
        cerr(&c, perr_pos, "%s", perrmsg);
        return -1;
    }
    scope sc = {u->table, -1, 0,
                role == GC_EXPR_METRIC ? "metrics have no row" : "the invariant has no table"};
    cbuf b = {0};
    ety e;
    if (role == GC_EXPR_METRIC) {
        e = c_expr(&c, &b, ast, sc);
        if (e.ty == GC_TY_STR) {
            cerr(&c, ast->pos, "a metric must be a number, not a string");
            e = ERR;
        }
    } else {
        e = c_cond(&c, &b, ast, sc);
    }
    int rc = -1;
    if (e.ty != GC_TY_ERR && c.errors == 0)
        rc = finish(&c, &b, ast->pos, out);
    *out_ty = e.ty;
    *uses_row = b.uses_row;
    free(b.v);
    return rc;
}
