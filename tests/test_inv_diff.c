/* SPDX-License-Identifier: MIT */
/* The batch VM against the row-at-a-time VM, over many random expressions: every invariant
 * is evaluated block by block (as the sweep does) and again with its unit forced onto run(),
 * the reference; checked and failed counts, every failing row, its file offset and its
 * value text (which says "=> null" when the result was null rather than false) must agree.
 * Aggregates are compared the same way through metrics (agg_batch against agg_value's row
 * loop), and several invariants grouped on one table (gc_inv_eval_level_many) against each
 * alone. The tables hold what the fast paths must get right: nulls by pattern in several
 * widths, null / out-of-range / valid parent links two links deep, NaN, infinities, -0.0,
 * integer extremes, a first and last row (prev/next), several blocks with a partial last
 * one, and empty tables. Expressions come from a fixed-seed generator, so a failure names
 * a reproducible expression. */
#include "gc_inv.h"
#include "inv_internal.h" /* white box: force units and aggregates onto the row VM */

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct drow {
    uint64_t file_ofs;
    uint32_t parent_row; /* the link (null when all ones) */
    uint8_t b;
    uint8_t u8;
    int8_t s8;
    uint16_t u16;
    int16_t s16;
    uint32_t u32;
    int32_t s32;
    uint64_t u64;
    int64_t s64;
    float f32;
    double f64;
    uint32_t n32; /* null when all ones */
    uint8_t n8;   /* null when 0xff */
    int16_t ns16; /* null when -1 */
} drow;

#define DCOLS(T)                                                                                   \
    {                                                                                              \
        GC_COL(drow, file_ofs, GC_T_U64, GC_CF_HEX, "bytes", "offset"),                            \
            GC_COL(drow, parent_row, GC_T_U32, GC_CF_NULL_IF_MAX, "row", "link"),                  \
            GC_COL(drow, b, GC_T_BOOL, 0, "", "flag"), GC_COL(drow, u8, GC_T_U8, 0, "", "u8"),     \
            GC_COL(drow, s8, GC_T_S8, 0, "", "s8"), GC_COL(drow, u16, GC_T_U16, 0, "", "u16"),     \
            GC_COL(drow, s16, GC_T_S16, 0, "", "s16"), GC_COL(drow, u32, GC_T_U32, 0, "", "u32"),  \
            GC_COL(drow, s32, GC_T_S32, 0, "", "s32"), GC_COL(drow, u64, GC_T_U64, 0, "", "u64"),  \
            GC_COL(drow, s64, GC_T_S64, 0, "", "s64"), GC_COL(drow, f32, GC_T_F32, 0, "", "f32"),  \
            GC_COL(drow, f64, GC_T_F64, 0, "", "f64"),                                             \
            GC_COL(drow, n32, GC_T_U32, GC_CF_NULL_IF_MAX, "", "n32"),                             \
            GC_COL(drow, n8, GC_T_U8, GC_CF_NULL_IF_MAX, "", "n8"),                                \
            GC_COL(drow, ns16, GC_T_S16, GC_CF_NULL_IF_MAX, "", "ns16")                            \
    }

static const gc_column child_cols[] = DCOLS(child);
static const gc_column parent_cols[] = DCOLS(parent);
static const gc_column gp_cols[] = DCOLS(gp);
static const gc_table_desc child_desc = {
    "t.child",  "children", sizeof(drow), child_cols, GC_COUNTOF(child_cols),
    "t.parent", "parent",   "parent_row"};
static const gc_table_desc parent_desc = {
    "t.parent", "parents", sizeof(drow), parent_cols, GC_COUNTOF(parent_cols),
    "t.gp",     "gp",      "parent_row"};
static const gc_table_desc gp_desc = {
    "t.gp", "grandparents", sizeof(drow), gp_cols, GC_COUNTOF(gp_cols), NULL, NULL, NULL};
static const gc_table_desc *const descs[] = {&child_desc, &parent_desc, &gp_desc};
#define NDESC GC_COUNTOF(descs)

/* ---- deterministic data and expressions ---- */

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)((rng >> 11) % n);
}

static drow *C, *P, *G;
static gc_table tables[NDESC];

static const int64_t int_edges[] = {
    0, 1, -1, 2, 7, 127, -128, 255, 32767, -32768, 65535, INT32_MAX, INT32_MIN, UINT32_MAX,
    INT64_MAX, INT64_MIN, 1 << 20, -(1 << 20), 1000000007, 42,
    /* past 2^51, where a double no longer holds every
     * integer: conversions must round as C's do */
    ((int64_t)1 << 52) + 1, ((int64_t)1 << 60) + 7, -((int64_t)1 << 55) - 3, ((int64_t)1 << 51) - 1,
    ((int64_t)1 << 51) + 5, -((int64_t)1 << 51), -((int64_t)1 << 51) - 1};

static double flt_value(void)
{
    switch (rnd(14)) {
    case 0:
        return NAN;
    case 1:
        return INFINITY;
    case 2:
        return -INFINITY;
    case 3:
        return -0.0;
    case 4:
        return 1e-310; /* subnormal */
    case 5:
        return 1e300;
    case 6:
        return 0.0;
    default:
        return (double)((int)rnd(41) - 20) / 4.0;
    }
}

/* 0: links change from row to row as below; N: they come in runs (a new link on about one
 * row in N), as a decoder's children follow their parent (a packet's vertices), so the batch
 * VM reads through each run once; whole runs are null or past the end too */
static uint32_t link_runs;

static void fill_rows(drow *r, size_t n, size_t nparent)
{
    uint32_t run_link = 0;
    for (size_t i = 0; i < n; i++) {
        drow *x = &r[i];
        memset(x, 0, sizeof *x);
        x->file_ofs = 0x1000 + 0x10 * (uint64_t)i;
        /* links mostly ascending and valid (as decoders write them), some null or past the end */
        uint32_t k = rnd(20);
        x->parent_row = k == 0    ? UINT32_MAX
                        : k == 1  ? (uint32_t)(nparent + rnd(3))
                        : nparent ? (uint32_t)((i * nparent) / (n ? n : 1) + (k == 2 ? 1 : 0))
                                  : 0;
        if (link_runs) {
            if (i == 0 || rnd(link_runs) == 0)
                run_link = x->parent_row;
            x->parent_row = run_link;
        }
        const int edge = rnd(6) == 0;
        const int64_t e = int_edges[rnd(GC_COUNTOF(int_edges))];
        x->b = (uint8_t)(rnd(5) == 0 ? 2 + rnd(200) : rnd(2)); /* non-canonical trues too */
        x->u8 = (uint8_t)(edge ? e : rnd(12));
        x->s8 = (int8_t)(edge ? e : (int)rnd(12) - 6);
        x->u16 = (uint16_t)(edge ? e : rnd(12));
        x->s16 = (int16_t)(edge ? e : (int)rnd(12) - 6);
        x->u32 = (uint32_t)(edge ? e : rnd(12));
        x->s32 = (int32_t)(edge ? e : (int)rnd(12) - 6);
        x->u64 = (uint64_t)(edge ? e : rnd(12));
        x->s64 = edge ? e : (int64_t)rnd(12) - 6;
        x->f32 = (float)flt_value();
        x->f64 = flt_value();
        x->n32 = rnd(8) == 0 ? UINT32_MAX : (uint32_t)rnd(10);
        x->n8 = rnd(8) == 0 ? 0xff : (uint8_t)rnd(10);
        x->ns16 = rnd(8) == 0 ? -1 : (int16_t)((int)rnd(10) - 3);
    }
}

/* Tables of nc, np, ng rows (0: no rows at all, as an empty decoder table has). */
static void make_tables(size_t nc, size_t np, size_t ng)
{
    free(C);
    free(P);
    free(G);
    C = calloc(nc ? nc : 1, sizeof *C);
    P = calloc(np ? np : 1, sizeof *P);
    G = calloc(ng ? ng : 1, sizeof *G);
    cr_assert(C && P && G);
    fill_rows(C, nc, np);
    fill_rows(P, np, ng);
    fill_rows(G, ng, 0);
    tables[0] = (gc_table){&child_desc, nc ? C : NULL, nc};
    tables[1] = (gc_table){&parent_desc, np ? P : NULL, np};
    tables[2] = (gc_table){&gp_desc, ng ? G : NULL, ng};
}

typedef struct gen {
    char *s;
    size_t n, cap;
    int ctx; /* 0 t.child, 1 t.parent, 2 t.gp: the current row's table */
} gen;

static void put(gen *g, const char *t)
{
    size_t l = strlen(t);
    cr_assert(g->n + l + 1 < g->cap, "expression too long");
    memcpy(g->s + g->n, t, l + 1);
    g->n += l;
}

static const char *const int_cols[] = {"b",   "u8",   "s8",         "u16",     "s16",
                                       "u32", "s32",  "u64",        "s64",     "n32",
                                       "n8",  "ns16", "parent_row", "file_ofs"};
static const char *const flt_cols[] = {"f32", "f64"};
/* row steps that start a name, per current table */
static const char *const steps[3][8] = {
    {"", "parent.", "parent.gp.", "prev.", "next.", "prev.parent.", "next.next.", "parent.prev."},
    {"", "gp.", "prev.", "next.", "prev.gp.", "", "next.", "gp.next."},
    {"", "prev.", "next.", "prev.prev.", "", "", "next.", ""}};
static const char *const tname[3] = {"t.child", "t.parent", "t.gp"};

static void gen_int(gen *g, int d);
static void gen_flt(gen *g, int d);
static void gen_cond(gen *g, int d);

static void col_ref(gen *g, int flt)
{
    put(g, steps[g->ctx][rnd(8)]);
    put(g, flt ? flt_cols[rnd(2)] : int_cols[rnd(GC_COUNTOF(int_cols))]);
}

static void gen_num(gen *g, int d)
{
    if (rnd(3) == 0)
        gen_flt(g, d);
    else
        gen_int(g, d);
}

/* an aggregate that does not refer to outer (hoisted: once per evaluation) */
static void gen_agg(gen *g, int flt)
{
    const int t = (int)rnd(3);
    const int saved = g->ctx;
    char head[64];
    static const char *const ik[] = {"count", "sum", "min", "max"};
    static const char *const fk[] = {"mean", "sum", "min", "max"};
    if (!flt && rnd(4) == 0) {
        snprintf(head, sizeof head, "%s(%s", rnd(2) ? "any" : "all", tname[t]);
        put(g, head);
        put(g, ", ");
        g->ctx = t;
        gen_cond(g, 1);
        g->ctx = saved;
        put(g, ")");
        return;
    }
    if (!flt && rnd(4) == 0) {
        snprintf(head, sizeof head, "count(%s", tname[t]);
        put(g, head);
    } else {
        snprintf(head, sizeof head, "%s(%s.", flt ? fk[rnd(4)] : ik[rnd(4)], tname[t]);
        put(g, head);
        g->ctx = t;
        col_ref(g, flt);
    }
    g->ctx = t;
    if (rnd(2)) {
        put(g, ", ");
        gen_cond(g, 1);
    }
    g->ctx = saved;
    put(g, ")");
}

static void gen_int(gen *g, int d)
{
    char buf[64];
    const uint32_t k = rnd(d > 0 ? 14 : 4);
    switch (k) {
    case 0:
    case 1:
        col_ref(g, 0);
        return;
    case 2: {
        const int64_t e = int_edges[rnd(GC_COUNTOF(int_edges))];
        if (e == INT64_MIN)
            snprintf(buf, sizeof buf, "0x8000000000000000");
        else if (e < 0)
            snprintf(buf, sizeof buf, "(%lld)", (long long)e);
        else
            snprintf(buf, sizeof buf, rnd(2) ? "%lld" : "0x%llx", (long long)e);
        put(g, buf);
        return;
    }
    case 3: {
        static const char *const rows[3][3] = {{"row", "prev.row", "parent.row"},
                                               {"row", "next.row", "gp.row"},
                                               {"row", "prev.row", "next.row"}};
        put(g, rows[g->ctx][rnd(3)]);
        return;
    }
    case 4:
    case 5:
    case 6: {
        static const char *const ops[] = {" + ",  " - ",  " * ", " // ", " % ",
                                          " << ", " >> ", " & ", " | "};
        put(g, "(");
        gen_int(g, d - 1);
        put(g, ops[rnd(GC_COUNTOF(ops))]);
        gen_int(g, d - 1);
        put(g, ")");
        return;
    }
    case 7:
        put(g, "-");
        gen_int(g, d - 1);
        return;
    case 8:
        put(g, "abs(");
        gen_int(g, d - 1);
        put(g, ")");
        return;
    case 9: {
        put(g, rnd(2) ? "min(" : "max(");
        const int m = 2 + (int)rnd(2);
        for (int i = 0; i < m; i++) {
            if (i)
                put(g, ", ");
            gen_int(g, d - 1);
        }
        put(g, ")");
        return;
    }
    case 10:
        put(g, "coalesce(");
        gen_int(g, d - 1);
        put(g, ", ");
        gen_int(g, d - 1);
        put(g, ")");
        return;
    case 11:
        put(g, "isnull(");
        gen_num(g, d - 1);
        put(g, ")");
        return;
    case 12:
        gen_agg(g, 0);
        return;
    default:
        put(g, "(");
        gen_cond(g, d - 1); /* a condition is an integer 0/1 (or null) */
        put(g, ")");
        return;
    }
}

static void gen_flt(gen *g, int d)
{
    static const char *const lits[] = {"0.0",    "1.5", "-2.25", "1e300",
                                       "1e-300", "0.1", "3.0",   "1024.0"};
    const uint32_t k = rnd(d > 0 ? 12 : 2);
    switch (k) {
    case 0:
        col_ref(g, 1);
        return;
    case 1:
        put(g, lits[rnd(GC_COUNTOF(lits))]);
        return;
    case 2:
    case 3: {
        static const char *const ops[] = {" + ", " - ", " * ", " / ", " // ", " % "};
        put(g, "(");
        gen_num(g, d - 1);
        put(g, ops[rnd(GC_COUNTOF(ops))]);
        gen_flt(g, d - 1);
        put(g, ")");
        return;
    }
    case 4:
        put(g, "(");
        gen_int(g, d - 1);
        put(g, " / ");
        gen_int(g, d - 1);
        put(g, ")");
        return;
    case 5:
        put(g, "sqrt(");
        gen_num(g, d - 1);
        put(g, ")");
        return;
    case 6:
        put(g, "distance(");
        for (int i = 0; i < 6; i++) {
            if (i)
                put(g, ", ");
            gen_num(g, d - 1);
        }
        put(g, ")");
        return;
    case 7:
        put(g, rnd(2) ? "abs(" : "-(");
        gen_flt(g, d - 1);
        put(g, ")");
        return;
    case 8:
        put(g, rnd(2) ? "min(" : "max(");
        gen_flt(g, d - 1);
        put(g, ", ");
        gen_num(g, d - 1);
        put(g, ")");
        return;
    case 9:
        put(g, "coalesce(");
        gen_flt(g, d - 1);
        put(g, ", ");
        gen_num(g, d - 1);
        put(g, ")");
        return;
    case 10:
        gen_agg(g, 1);
        return;
    default:
        put(g, "(");
        gen_flt(g, d - 1);
        put(g, " * 1024 / ");
        gen_int(g, d - 1);
        put(g, ")");
        return;
    }
}

static void gen_cond(gen *g, int d)
{
    static const char *const cmps[] = {" == ", " != ", " < ", " <= ", " > ", " >= "};
    const uint32_t k = rnd(d > 0 ? 13 : 5);
    switch (k) {
    case 0:
    case 1: /* a plain column compare: the fused CMP_CC / CMP_CK instructions */
        put(g, int_cols[rnd(GC_COUNTOF(int_cols))]);
        put(g, cmps[rnd(6)]);
        if (rnd(2))
            put(g, int_cols[rnd(GC_COUNTOF(int_cols))]);
        else {
            char buf[32];
            snprintf(buf, sizeof buf, "%d", (int)rnd(12) - 3);
            put(g, buf);
        }
        return;
    case 2:
        col_ref(g, 0); /* an integer as a condition */
        return;
    case 3: {
        static const char *const nulls[3][4] = {
            {"prev == null", "parent == null", "parent.gp != null", "next == null"},
            {"prev != null", "gp == null", "next == null", "gp.next != null"},
            {"prev == null", "next != null", "prev.prev == null", "next == null"}};
        put(g, nulls[g->ctx][rnd(4)]);
        return;
    }
    case 4:
        put(g, rnd(2) ? "true" : "false");
        return;
    case 5:
    case 6:
        gen_num(g, d - 1);
        put(g, cmps[rnd(6)]);
        gen_num(g, d - 1);
        return;
    case 7:
    case 8:
        put(g, "(");
        gen_cond(g, d - 1);
        put(g, rnd(2) ? " and " : " or ");
        gen_cond(g, d - 1);
        put(g, ")");
        return;
    case 9:
        put(g, "not (");
        gen_cond(g, d - 1);
        put(g, ")");
        return;
    case 10:
        put(g, "between(");
        gen_num(g, d - 1);
        put(g, ", ");
        gen_num(g, d - 1);
        put(g, ", ");
        gen_num(g, d - 1);
        put(g, ")");
        return;
    case 11:
        gen_flt(g, d - 1); /* a float as a condition: NaN is null */
        return;
    default:
        col_ref(g, 0);
        put(g, rnd(2) ? " == null" : " != null");
        return;
    }
}

static char errbuf[8192];

static gc_inv_set *load(const char *yaml)
{
    gc_inv_set *s = gc_inv_load_string("d.yaml", yaml, descs, NDESC, errbuf, sizeof errbuf);
    cr_assert(s != NULL, "load failed:\n%s\nfor:\n%s", errbuf, yaml);
    return s;
}

#define MAXS 4096

/* how many of the random invariants ran on the batch VM (the rest are row-independent) */
static int n_batch, n_checked;

static void expect_same(const gc_inv_result *a, const gc_inv_result *b, const char *what)
{
    cr_assert_eq(a->checked, b->checked, "checked %llu vs %llu: %s", (unsigned long long)a->checked,
                 (unsigned long long)b->checked, what);
    cr_assert_eq(a->failed, b->failed, "failed %llu vs %llu: %s", (unsigned long long)a->failed,
                 (unsigned long long)b->failed, what);
    cr_assert_eq(a->sample_count, b->sample_count, "%s", what);
    for (size_t k = 0; k < a->sample_count; k++) {
        cr_assert_eq(a->samples[k].row, b->samples[k].row, "sample %zu: %s", k, what);
        cr_assert_eq(a->samples[k].level, b->samples[k].level, "%s", what);
        cr_assert_eq(a->samples[k].file_ofs, b->samples[k].file_ofs, "%s", what);
        cr_assert_str_eq(a->samples[k].values, b->samples[k].values, "row %lld: %s",
                         (long long)a->samples[k].row, what);
    }
}

/* Invariant text: table, optional where, expect; batch and row VM must agree. */
static void check_one(const char *table, const char *where, const char *expect)
{
    char *yaml = malloc(1 << 16);
    cr_assert(yaml);
    int o = snprintf(yaml, 1 << 16, "invariants:\n  - id: d.x\n    why: w\n    table: %s\n", table);
    if (where)
        o += snprintf(yaml + o, (size_t)(1 << 16) - (size_t)o, "    where: |-\n      %s\n", where);
    snprintf(yaml + o, (size_t)(1 << 16) - (size_t)o, "    expect: |-\n      %s\n", expect);
    gc_inv_set *s = load(yaml);
    n_batch += s->invs[0].batch != 0; /* a row-independent expect runs once, on run() */
    n_checked++;
    gc_inv_result a, b;
    cr_assert_eq(gc_inv_eval_level(s, 0, tables, 7, MAXS, &a), 0);
    s->invs[0].batch = 0; /* the reference: one row at a time */
    cr_assert_eq(gc_inv_eval_level(s, 0, tables, 7, MAXS, &b), 0);
    expect_same(&a, &b, yaml);
    gc_inv_result_free(&a);
    gc_inv_result_free(&b);
    gc_inv_free(s);
    free(yaml);
}

static char *gen_expr(int ctx, int kind, int depth)
{
    gen g = {malloc(1 << 14), 0, 1 << 14, ctx};
    cr_assert(g.s);
    g.s[0] = '\0';
    if (kind == 0)
        gen_cond(&g, depth);
    else if (kind == 1)
        gen_int(&g, depth);
    else
        gen_flt(&g, depth);
    return g.s;
}

static void random_invariants(int count, int depth)
{
    n_batch = n_checked = 0;
    for (int i = 0; i < count; i++) {
        const int ctx = (int)rnd(3);
        char *e = gen_expr(ctx, 0, depth);
        char *w = rnd(3) == 0 ? gen_expr(ctx, 0, depth - 1) : NULL;
        check_one(tname[ctx], w, e);
        free(e);
        free(w);
    }
    cr_assert(n_batch * 10 >= n_checked * 8, "only %d of %d on the batch VM", n_batch, n_checked);
}

TestSuite(inv_diff);

Test(inv_diff, batch_matches_row_vm_on_random_expressions)
{
    make_tables(1300, 300, 40); /* 6 blocks, the last partial; parents over two blocks */
    random_invariants(700, 4);
}

Test(inv_diff, batch_matches_row_vm_at_block_edges_and_on_empty_tables)
{
    /* one block exactly, one row past it, one row; parents absent or a single row */
    const size_t shapes[][3] = {{256, 3, 1}, {257, 256, 0}, {1, 1, 1}, {0, 5, 5}, {600, 0, 3}};
    for (size_t k = 0; k < GC_COUNTOF(shapes); k++) {
        make_tables(shapes[k][0], shapes[k][1], shapes[k][2]);
        random_invariants(120, 3);
    }
}

Test(inv_diff, batch_matches_row_vm_when_links_come_in_runs)
{
    /* children in runs of one parent (about 40 rows, some a single row), whole runs null or
     * past the end, two links deep: the columns and steps read once per run must be the
     * row VM's, at block edges and in partial blocks too */
    link_runs = 40;
    make_tables(1300, 300, 40);
    random_invariants(500, 4);
    link_runs = 6;
    make_tables(700, 120, 9);
    random_invariants(200, 3);
    link_runs = 300;
    make_tables(600, 3, 2); /* a run over a whole block and past it */
    random_invariants(150, 3);
    link_runs = 0;
}

Test(inv_diff, aggregates_on_the_batch_vm_match_the_row_loop)
{
    make_tables(1300, 300, 40);
    for (int i = 0; i < 400; i++) {
        const int ctx = (int)rnd(3);
        gen g = {malloc(1 << 14), 0, 1 << 14, ctx};
        cr_assert(g.s);
        g.s[0] = '\0';
        gen_agg(&g, (int)rnd(2));
        char yaml[1 << 15];
        snprintf(yaml, sizeof yaml, "metrics:\n  - name: m\n    expr: |-\n      %s\n", g.s);
        gc_inv_set *s = load(yaml);
        double va = 0, vb = 0;
        int na = -1, nb = -1;
        cr_assert_eq(gc_inv_eval_metric(s, 0, tables, &va, &na), 0);
        for (uint32_t a = 0; a < s->mets[0].nagg; a++)
            s->mets[0].aggs[a].uses_outer = 1; /* never on agg_batch: agg_value's row loop */
        cr_assert_eq(gc_inv_eval_metric(s, 0, tables, &vb, &nb), 0);
        cr_assert_eq(na, nb, "null %d vs %d: %s", na, nb, g.s);
        cr_assert(na || memcmp(&va, &vb, sizeof va) == 0, "%.17g vs %.17g: %s", va, vb, g.s);
        gc_inv_free(s);
        free(g.s);
    }
}

Test(inv_diff, grouped_evaluation_matches_each_alone)
{
    for (int round = 0; round < 40; round++) {
        if (round % 20 == 0) {
            link_runs = round ? 30 : 0; /* the second half: links in runs */
            make_tables(1300, 300, 40);
        }
        /* six invariants, most on one table (one shared pass), one elsewhere */
        char *yaml = malloc(1 << 17);
        cr_assert(yaml);
        int o = snprintf(yaml, 1 << 17, "invariants:\n");
        for (int j = 0; j < 6; j++) {
            const int ctx = j == 5 ? 1 : 0;
            char *e = gen_expr(ctx, 0, 3);
            char *w = rnd(3) == 0 ? gen_expr(ctx, 0, 2) : NULL;
            o += snprintf(yaml + o, (size_t)(1 << 17) - (size_t)o,
                          "  - id: d.x%d\n    why: w\n    table: %s\n", j, tname[ctx]);
            if (w)
                o += snprintf(yaml + o, (size_t)(1 << 17) - (size_t)o, "    where: |-\n      %s\n",
                              w);
            o += snprintf(yaml + o, (size_t)(1 << 17) - (size_t)o, "    expect: |-\n      %s\n", e);
            free(e);
            free(w);
        }
        gc_inv_set *s = load(yaml);
        gc_inv_result grouped[6], alone[6];
        const size_t idx[6] = {3, 0, 5, 1, 4, 2};
        double secs[6];
        cr_assert_eq(gc_inv_eval_level_many(s, idx, 6, tables, 2, 50, grouped, secs), 0);
        for (size_t j = 0; j < 6; j++) {
            s->invs[j].batch = 0;
            cr_assert_eq(gc_inv_eval_level(s, j, tables, 2, 50, &alone[j]), 0);
            expect_same(&grouped[j], &alone[j], yaml);
            gc_inv_result_free(&grouped[j]);
            gc_inv_result_free(&alone[j]);
        }
        gc_inv_free(s);
        free(yaml);
    }
}

/* In a shared pass the units of a block take turns in one workspace, and the columns of the
 * block's rows one unit loaded stay cached for the next. The first unit here fills the cache
 * (GC_BATCH_COLS, 24 entries) with all 16 columns and 8 through `parent`; the second finds file_ofs
 * there, keeps it on its stack and then needs entries for columns through `parent` (and a third
 * compacts its rows with a rare `where` before a fourth reads the same columns of all rows): a
 * replaced entry that the running unit still holds, a path column kept from another unit's program,
 * or a compacted column kept for the next unit would each give another result than each invariant
 * alone. */
Test(inv_diff, a_shared_pass_keeps_only_what_the_next_unit_may_read)
{
    link_runs = 0;
    make_tables(1300, 300, 40);
    static const char *const exprs[][2] = {
        {NULL, "file_ofs + parent_row + b + u8 + s8 + u16 + s16 + u32 + s32 + u64 + s64 + f32 + "
               "f64 + n32 + n8 + ns16 + parent.u8 + parent.s8 + parent.u16 + parent.s16 + "
               "parent.u32 + parent.s32 + parent.u64 + parent.s64 != 7"},
        {NULL, "file_ofs != parent.file_ofs and u8 + parent.u16 + parent.s16 + parent.u32 + "
               "parent.gp.s32 != s8 + parent.gp.u8"},
        {"u8 % 16 == 3", "u16 + parent.u16 != s16 + n32"},
        {NULL, "u16 + parent.u16 != s16 + n32 or u8 % 16 == 3"},
        {NULL, "parent.u16 + u32 != parent.s16 + parent.gp.u16"},
    };
    enum { NI = GC_COUNTOF(exprs) };
    char yaml[1 << 13];
    int o = snprintf(yaml, sizeof yaml, "invariants:\n");
    for (int j = 0; j < NI; j++) {
        o += snprintf(yaml + o, sizeof yaml - (size_t)o,
                      "  - id: d.k%d\n    why: w\n    table: t.child\n", j);
        if (exprs[j][0])
            o += snprintf(yaml + o, sizeof yaml - (size_t)o, "    where: %s\n", exprs[j][0]);
        o += snprintf(yaml + o, sizeof yaml - (size_t)o, "    expect: %s\n", exprs[j][1]);
    }
    gc_inv_set *s = load(yaml);
    gc_inv_result grouped[NI], alone[NI];
    const size_t idx[NI] = {0, 1, 2, 3, 4};
    cr_assert_eq(gc_inv_eval_level_many(s, idx, NI, tables, 2, 50, grouped, NULL), 0);
    for (size_t j = 0; j < NI; j++) {
        cr_assert_eq(gc_inv_eval_level(s, j, tables, 2, 50, &alone[j]), 0);
        expect_same(&grouped[j], &alone[j], yaml);
        cr_assert_gt(alone[j].checked, 0, "%s", exprs[j][1]);
        gc_inv_result_free(&grouped[j]);
        gc_inv_result_free(&alone[j]);
    }
    gc_inv_free(s);
}

Test(inv_diff, integer_to_double_is_exact_at_the_fast_conversion_bounds)
{
    /* block 0 within +-2^51 (the vector conversion), block 1 up to +-2^52 (past it, where the
     * block must fall back), block 2 the 64-bit extremes; f64 holds C's own conversion */
    const int64_t two51 = (int64_t)1 << 51, two52 = (int64_t)1 << 52;
    const int64_t near[3][6] = {{two51 - 1, -two51, two51 - 3, -1, 0, 12345},
                                {two51, two51 + 5, -two51 - 1, two52 - 1, -two52, two51 + 1},
                                {INT64_MAX, INT64_MIN, two52 + 1, -two52 - 3, INT64_MAX - 1, 7}};
    make_tables(3 * 256, 1, 1);
    for (size_t i = 0; i < 3 * 256; i++) {
        C[i].s64 = near[i / 256][i % 6];
        C[i].f64 = (double)C[i].s64;
    }
    check_one("t.child", NULL, "s64 + 0.0 == f64 and s64 * 1.0 == f64 and s64 / 1 == f64");
    gc_inv_set *s = load("invariants:\n  - id: d.c\n    why: w\n    table: t.child\n"
                         "    expect: s64 + 0.0 == f64\n");
    gc_inv_result r;
    cr_assert_eq(gc_inv_eval_level(s, 0, tables, 0, 4, &r), 0);
    cr_assert_eq(r.checked, 3 * 256);
    cr_assert_eq(r.failed, 0, "%s", r.sample_count ? r.samples[0].values : "");
    gc_inv_result_free(&r);
    gc_inv_free(s);
}

/* The columns of a block's own rows and of its `prev` and `next` windows (bload's sequential
 * loops, bload_seq) at every width and place in the row: tables of packed rows of odd strides
 * with every type at the start, in the middle and at the end of the row, with and without the
 * null pattern, allocated to the byte, rows of all ones, of zeros but one small byte, and of
 * mixed bytes (so patterns, negative and small values are common at every width), row counts
 * around the vector groups and the blocks: `col < 2` must fail on the same rows (every one in
 * the samples) as on the row VM. (Written for eval32's column gathers, not kept: a gather
 * path for these loads must pass it, and valgrind memcheck, to the byte.) */
static int gt_ncols;
static gc_column gt_cols[128];
static char gt_names[128][8];

static void gather_table(size_t stride, size_t nrows, uint8_t **rows, gc_table_desc *d)
{
    static const struct {
        gc_coltype t;
        size_t sz;
        int nim;
    } kinds[] = {{GC_T_BOOL, 1, 0}, {GC_T_BOOL, 1, 1}, {GC_T_U8, 1, 0},  {GC_T_U8, 1, 1},
                 {GC_T_S8, 1, 0},   {GC_T_S8, 1, 1},   {GC_T_U16, 2, 0}, {GC_T_U16, 2, 1},
                 {GC_T_S16, 2, 0},  {GC_T_S16, 2, 1},  {GC_T_U32, 4, 0}, {GC_T_U32, 4, 1},
                 {GC_T_S32, 4, 0},  {GC_T_S32, 4, 1},  {GC_T_U64, 8, 0}, {GC_T_U64, 8, 1},
                 {GC_T_S64, 8, 0},  {GC_T_S64, 8, 1},  {GC_T_F32, 4, 0}, {GC_T_F64, 8, 0}};
    gt_ncols = 0;
    for (size_t k = 0; k < GC_COUNTOF(kinds); k++) {
        if (kinds[k].sz > stride)
            continue;
        const size_t at[3] = {0, (stride - kinds[k].sz) / 2, stride - kinds[k].sz};
        for (int j = 0; j < 3; j++) {
            if (j > 0 && at[j] == at[j - 1])
                continue;
            cr_assert(gt_ncols < 128);
            snprintf(gt_names[gt_ncols], sizeof gt_names[0], "c%d", gt_ncols);
            gt_cols[gt_ncols] = (gc_column){gt_names[gt_ncols],
                                            kinds[k].t,
                                            at[j],
                                            kinds[k].sz,
                                            kinds[k].nim ? GC_CF_NULL_IF_MAX : 0u,
                                            "",
                                            "g"};
            gt_ncols++;
        }
    }
    /* exactly nrows * stride bytes: nothing past the last row to read by mistake */
    cr_assert(nrows > 0);
    uint8_t *r = malloc(nrows * stride);
    cr_assert(r);
    /* a sixth of the rows all ones (null by every pattern, -1, NaN), a sixth zeros but for
     * one small byte (so that 8-byte columns hold small values too), the rest bytes of 0
     * (half), 0xff, a set sign bit or small */
    for (size_t i = 0; i < nrows; i++) {
        uint8_t *x = r + i * stride;
        const uint32_t kind = rnd(6);
        for (size_t j = 0; j < stride; j++) {
            const uint32_t b = rnd(8);
            x[j] = kind == 0   ? 0xff
                   : kind == 1 ? 0
                   : b < 4     ? 0
                   : b < 6     ? 0xff
                   : b < 7     ? (uint8_t)(0x80 | rnd(128))
                               : (uint8_t)rnd(5);
        }
        if (kind == 1)
            x[rnd((uint32_t)stride)] = (uint8_t)rnd(5);
    }
    *rows = r;
    *d = (gc_table_desc){"g.t", "gathered", stride, gt_cols, (size_t)gt_ncols, NULL, NULL, NULL};
}

Test(inv_diff, columns_match_the_row_vm_at_every_width_offset_and_stride)
{
    static const size_t strides[] = {4, 5, 7, 8, 9, 13, 24, 61};
    static const size_t counts[] = {7, 8, 11, 16, 21, 255, 256, 269, 700};
    int batched = 0, checked = 0;
    for (size_t si = 0; si < GC_COUNTOF(strides); si++)
        for (size_t ni = 0; ni < GC_COUNTOF(counts); ni++) {
            uint8_t *rows;
            gc_table_desc d;
            gather_table(strides[si], counts[ni], &rows, &d);
            const gc_table_desc *const dd[] = {&d};
            const gc_table tb[] = {{&d, rows, counts[ni]}};
            for (int c = 0; c < gt_ncols; c++)
                for (int step = 0; step < 3; step++) {
                    const int flt = gt_cols[c].type == GC_T_F32 || gt_cols[c].type == GC_T_F64;
                    static const char *const pre[] = {"", "prev.", "next."};
                    char yaml[512];
                    snprintf(yaml, sizeof yaml,
                             "invariants:\n  - id: d.g\n    why: w\n    table: g.t\n"
                             "    expect: %s%s < %s\n",
                             pre[step], gt_names[c], flt ? "0.5" : "2");
                    gc_inv_set *s =
                        gc_inv_load_string("g.yaml", yaml, dd, 1, errbuf, sizeof errbuf);
                    cr_assert(s != NULL, "load failed:\n%s\nfor:\n%s", errbuf, yaml);
                    batched += s->invs[0].batch != 0;
                    checked++;
                    gc_inv_result a, b;
                    cr_assert_eq(gc_inv_eval_level(s, 0, tb, 7, MAXS, &a), 0);
                    s->invs[0].batch = 0; /* the reference: one row at a time */
                    cr_assert_eq(gc_inv_eval_level(s, 0, tb, 7, MAXS, &b), 0);
                    char what[640];
                    snprintf(what, sizeof what, "stride %zu, %zu rows, column at %zu: %s",
                             strides[si], counts[ni], gt_cols[c].offset, yaml);
                    expect_same(&a, &b, what);
                    cr_assert_eq(a.failed, a.sample_count, "%s", what); /* every failure seen */
                    gc_inv_result_free(&a);
                    gc_inv_result_free(&b);
                    gc_inv_free(s);
                }
            free(rows);
        }
    cr_assert_eq(batched, checked, "only %d of %d on the batch VM", batched, checked);
}

/* An `any` over another table whose condition has `col == <expression of outer>` in a chain of
 * `and`s looks up the rows of that key in an index (gc_agg.keyed) instead of running the
 * condition on every row; the reference is the same unit with the index switched off (the
 * row loop of agg_value). Keys from nullable columns (null keys, null key columns), integer
 * edges, bools, links, paths from outer, arithmetic; the equality either way round, first,
 * last or nested in the chain; more conditions on the inner and outer rows beside it; empty
 * and one-row tables. */
static void keyed_any_invariants(int count)
{
    static const char *const okeys[] = {"outer.%s",       "(outer.%s + 1)",
                                        "(outer.%s & 3)", "((outer.%s >> 1) * 2)",
                                        "outer.prev.%s",  "(outer.%s - outer.u8)"};
    int keyed = 0;
    for (int i = 0; i < count; i++) {
        const int ctx = (int)rnd(3), t = (int)rnd(3);
        char key[128], eq[256], inner[64];
        snprintf(inner, sizeof inner, "%s", int_cols[rnd(GC_COUNTOF(int_cols))]);
        if (ctx == 0 && rnd(4) == 0) /* outer.parent.x: a link from the outer row */
            snprintf(key, sizeof key, "outer.parent.%s", int_cols[rnd(GC_COUNTOF(int_cols))]);
        else
            snprintf(key, sizeof key, okeys[rnd(GC_COUNTOF(okeys))],
                     int_cols[rnd(GC_COUNTOF(int_cols))]);
        if (rnd(2))
            snprintf(eq, sizeof eq, "%s == %s", inner, key);
        else
            snprintf(eq, sizeof eq, "%s == %s", key, inner);
        gen g = {malloc(1 << 14), 0, 1 << 14, t};
        cr_assert(g.s);
        g.s[0] = '\0';
        const uint32_t shape = rnd(5);
        char *e = malloc(1 << 15);
        cr_assert(e);
        if (shape == 0) { /* the equality alone */
            snprintf(e, 1 << 15, "any(%s, %s)", tname[t], eq);
        } else {
            gen_cond(&g, 2);
            if (shape == 1)
                snprintf(e, 1 << 15, "any(%s, %s and %s)", tname[t], eq, g.s);
            else if (shape == 2)
                snprintf(e, 1 << 15, "any(%s, %s and %s)", tname[t], g.s, eq);
            else if (shape == 3) /* nested, beside a condition on the outer row */
                snprintf(e, 1 << 15, "any(%s, (%s and (%s and u8 <= outer.u8)))", tname[t], g.s,
                         eq);
            else /* in an `or`: no key; and the aggregate inside a larger expression */
                snprintf(e, 1 << 15, "n8 == 1 or any(%s, %s or %s)", tname[t], eq, g.s);
        }
        char yaml[1 << 16];
        snprintf(yaml, sizeof yaml,
                 "invariants:\n  - id: d.k\n    why: w\n    table: %s\n    expect: |-\n      %s\n",
                 tname[ctx], e);
        gc_inv_set *s = load(yaml);
        int any_keyed = 0;
        for (uint32_t a = 0; a < s->invs[0].nagg; a++)
            any_keyed |= s->invs[0].aggs[a].keyed;
        cr_assert_eq(any_keyed, shape != 4, "keyed %d: %s", any_keyed, e);
        keyed += any_keyed;
        gc_inv_result a, b;
        cr_assert_eq(gc_inv_eval_level(s, 0, tables, 7, MAXS, &a), 0);
        for (uint32_t k = 0; k < s->invs[0].nagg; k++)
            s->invs[0].aggs[k].keyed = 0; /* the reference: every row of the table */
        cr_assert_eq(gc_inv_eval_level(s, 0, tables, 7, MAXS, &b), 0);
        expect_same(&a, &b, yaml);
        gc_inv_result_free(&a);
        gc_inv_result_free(&b);
        gc_inv_free(s);
        free(g.s);
        free(e);
    }
    cr_assert(keyed * 2 >= count, "only %d of %d keyed", keyed, count);
}

Test(inv_diff, keyed_any_matches_the_scan)
{
    make_tables(1300, 300, 40);
    keyed_any_invariants(400);
    const size_t shapes[][3] = {{300, 0, 5}, {0, 40, 3}, {1, 1, 1}, {257, 256, 0}};
    for (size_t k = 0; k < GC_COUNTOF(shapes); k++) {
        make_tables(shapes[k][0], shapes[k][1], shapes[k][2]);
        keyed_any_invariants(100);
    }
}

Test(inv_diff, keyed_any_only_where_the_equality_bounds_every_true_row)
{
    /* no index where a row whose column differs could still make the condition true (an `or`,
     * a `not`, an inequality), where the key reads the inner row, or for `all` */
    static const char *const no[] = {"any(t.parent, u8 == outer.u8 or s8 == 1)",
                                     "any(t.parent, not (u8 == outer.u8))",
                                     "any(t.parent, u8 != outer.u8)",
                                     "any(t.parent, u8 == outer.u8 + s8)",
                                     "all(t.parent, u8 == outer.u8)",
                                     "any(t.parent, f32 == outer.f32)",
                                     "any(t.parent, u8 + 0 == outer.u8)",
                                     "any(t.parent, u8 == count(t.gp, u8 == 1))"};
    for (size_t k = 0; k < GC_COUNTOF(no); k++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "invariants:\n  - id: d.k\n    why: w\n    table: t.child\n    expect: %s\n",
                 no[k]);
        gc_inv_set *s = load(yaml);
        for (uint32_t a = 0; a < s->invs[0].nagg; a++)
            cr_assert_eq(s->invs[0].aggs[a].keyed, 0, "%s", no[k]);
        gc_inv_free(s);
    }
}

/* Aggregates without `outer` that several invariants and metrics of a level ask for are
 * computed once a class (gc_inv_assign_memo: the same kind, table, value and condition),
 * all those over one table in one pass, inside the invariants' shared pass over it when
 * there is one (gc_inv_eval_level_all). The reference is each invariant and metric on its
 * own (gc_inv_eval_level, gc_inv_eval_metric: no sharing). The aggregates come from a small
 * pool, so many are asked for by several units, on the table they aggregate (asked for
 * while its own pass runs) or another, in `where`, `expect`, once-a-level units, nested in
 * another aggregate's condition and in metrics; beside them near twins that must not be
 * taken for them (another literal, column, path, kind or table). */
static const char *const agg_twins[][2] = {
    {"count(t.child, u8 > 3)", "count(t.child, u8 > 4)"},
    {"count(t.child, u8 > 3)", "count(t.child, u16 > 3)"},
    {"min(t.child.f64)", "max(t.child.f64)"},
    {"min(t.child.f64)", "min(t.child.f32)"},
    {"sum(t.child.s64)", "sum(t.parent.s64)"},
    {"sum(t.child.parent.s32)", "sum(t.child.prev.s32)"},
    {"max(t.child.s64, n8 != null)", "max(t.child.s64, n8 == null)"},
    {"mean(t.child.f32)", "sum(t.child.f32)"},
    {"any(t.parent, s16 < -3)", "all(t.parent, s16 < -3)"},
    {"count(t.gp, prev.u8 > 2)", "count(t.gp, next.u8 > 2)"},
    {"sum(t.child.n32)", "sum(t.child.parent_row)"}, /* the same type and flags */
    {"max(t.child.s32, s32 * 3 > 5)", "max(t.child.s32, s32 * 5 > 5)"},
};

static void shared_aggregate_sets(int rounds)
{
    for (int round = 0; round < rounds; round++) {
        char *pool[10];
        int npool = 0;
        const size_t tw = rnd(GC_COUNTOF(agg_twins));
        pool[npool++] = strdup(agg_twins[tw][0]);
        pool[npool++] = strdup(agg_twins[tw][1]);
        while (npool < 10) {
            gen g = {malloc(1 << 14), 0, 1 << 14, (int)rnd(3)};
            cr_assert(g.s);
            g.s[0] = '\0';
            gen_agg(&g, (int)rnd(2));
            pool[npool++] = g.s;
        }
        char *yaml = malloc(1 << 18);
        cr_assert(yaml);
        const size_t cap = 1 << 18;
        int o = snprintf(yaml, cap, "invariants:\n");
        const int ninv = 8;
        for (int j = 0; j < ninv; j++) {
            const int a = (int)rnd(10), b = (int)rnd(10), kind = (int)rnd(6);
            const int ctx = (int)rnd(3);
            char *c = gen_expr(ctx, 0, 2);
            o += snprintf(yaml + o, cap - (size_t)o, "  - id: d.s%d\n    why: w\n", j);
            if (kind == 0) /* no table: once a level */
                o += snprintf(yaml + o, cap - (size_t)o, "    expect: |-\n      (%s) <= (%s)\n",
                              pool[a], pool[b]);
            else if (kind == 1) /* a table, no row read: once a level too */
                o += snprintf(yaml + o, cap - (size_t)o,
                              "    table: %s\n    expect: |-\n      (%s) != (%s) or (%s) > 2\n",
                              tname[ctx], pool[a], pool[b], pool[a]);
            else if (kind == 2) /* in where */
                o += snprintf(yaml + o, cap - (size_t)o,
                              "    table: %s\n    where: |-\n      (%s) >= u8\n"
                              "    expect: |-\n      %s\n",
                              tname[ctx], pool[a], c);
            else if (kind == 3) /* nested in another aggregate's condition */
                o += snprintf(yaml + o, cap - (size_t)o,
                              "    table: %s\n    expect: |-\n"
                              "      count(%s, (%s) <= s8) >= 0 and ((%s) < s16 or %s)\n",
                              tname[ctx], tname[rnd(3)], pool[a], pool[b], c);
            else /* beside the row's own values */
                o += snprintf(yaml + o, cap - (size_t)o,
                              "    table: %s\n    expect: |-\n      ((%s) <= (%s)) == (%s)\n",
                              tname[ctx], pool[a], pool[b], c);
            free(c);
        }
        o += snprintf(yaml + o, cap - (size_t)o, "metrics:\n");
        for (int m = 0; m < 4; m++)
            o += snprintf(yaml + o, cap - (size_t)o, "  - name: m%d\n    expr: |-\n      %s\n", m,
                          pool[rnd(10)]);
        gc_inv_set *s = load(yaml);
        size_t idx[8];
        for (int j = 0; j < ninv; j++)
            idx[j] = (size_t)((j * 5 + round) % ninv); /* the passes in various orders */
        gc_inv_result all[8], alone[8];
        double mv[4], mv1[4];
        int mn[4], mn1[4];
        cr_assert_eq(
            gc_inv_eval_level_all(s, idx, 8, tables, 3, 20, all, NULL, NULL, NULL, NULL, mv, mn),
            0);
        for (int j = 0; j < ninv; j++) {
            cr_assert_eq(gc_inv_eval_level(s, (size_t)j, tables, 3, 20, &alone[j]), 0);
            expect_same(&all[j], &alone[j], yaml);
            gc_inv_result_free(&all[j]);
            gc_inv_result_free(&alone[j]);
        }
        for (size_t m = 0; m < 4; m++) {
            cr_assert_eq(gc_inv_eval_metric(s, m, tables, &mv1[m], &mn1[m]), 0);
            cr_assert_eq(mn[m], mn1[m], "metric %zu null %d vs %d: %s", m, mn[m], mn1[m], yaml);
            cr_assert(mn[m] || memcmp(&mv[m], &mv1[m], sizeof mv[m]) == 0,
                      "metric %zu: %.17g vs %.17g: %s", m, mv[m], mv1[m], yaml);
        }
        gc_inv_free(s);
        free(yaml);
        for (int k = 0; k < npool; k++)
            free(pool[k]);
    }
}

Test(inv_diff, shared_aggregates_match_each_alone)
{
    make_tables(1300, 300, 40);
    shared_aggregate_sets(150);
    link_runs = 30;
    make_tables(900, 200, 30);
    shared_aggregate_sets(60);
    link_runs = 0;
    /* one block, one row past it, empty tables (aggregates of no rows: null minima) */
    const size_t shapes[][3] = {{256, 3, 1}, {257, 256, 0}, {1, 1, 1}, {0, 5, 5}, {600, 0, 3}};
    for (size_t k = 0; k < GC_COUNTOF(shapes); k++) {
        make_tables(shapes[k][0], shapes[k][1], shapes[k][2]);
        shared_aggregate_sets(30);
    }
}

Test(inv_diff, equal_aggregates_share_a_class_and_twins_do_not)
{
    /* the classes themselves: each twin pair stays apart, an aggregate written twice (in two
     * units, a metric and an invariant) is one class, and `outer` or a whole-table count is
     * in none */
    for (size_t k = 0; k < GC_COUNTOF(agg_twins); k++) {
        char yaml[2048];
        snprintf(yaml, sizeof yaml,
                 "invariants:\n"
                 "  - id: d.a\n    why: w\n    table: t.child\n    expect: (%s) == (%s) or u8 > 0\n"
                 "  - id: d.b\n    why: w\n    table: t.parent\n"
                 "    expect: (%s) >= 0 or count(t.child, parent.u8 == outer.u8) > count(t.gp)\n"
                 "metrics:\n  - name: m\n    expr: %s\n",
                 agg_twins[k][0], agg_twins[k][1], agg_twins[k][1], agg_twins[k][0]);
        gc_inv_set *s = load(yaml);
        const gc_unit *a = &s->invs[0], *b = &s->invs[1], *m = &s->mets[0];
        cr_assert_eq(a->nagg, 2);
        cr_assert_eq(b->nagg, 3);
        cr_assert(a->aggs[0].memo >= 0 && a->aggs[1].memo >= 0, "%s", yaml);
        cr_assert_neq(a->aggs[0].memo, a->aggs[1].memo, "twins in one class: %s", yaml);
        cr_assert_eq(b->aggs[0].memo, a->aggs[1].memo, "%s", yaml);
        cr_assert_eq(m->aggs[0].memo, a->aggs[0].memo, "%s", yaml);
        cr_assert_eq(b->aggs[1].memo, -1, "an aggregate of outer shared: %s", yaml);
        cr_assert_eq(b->aggs[2].memo, -1, "a row count shared: %s", yaml);
        cr_assert_eq(s->nmemo, 2);
        gc_inv_free(s);
    }
}

Test(inv_diff, only_code_the_batch_vm_runs_without_aggregates_is_shared)
{
    /* batch_ok decides both which units run on the batch VM (an aggregate of the unit's own
     * that does not read `outer` is allowed) and which aggregates may form a class (its code
     * is run for whichever unit asks first, so no aggregate inside at all: batch_ok(NULL, p)).
     * Each aggregate below is the last of its invariant's (an aggregate inside another comes
     * before it); memo >= 0 when it may be shared. */
    static const struct {
        const char *agg;
        int shared;
    } cases[] = {
        {"count(t.child, coalesce(n8, 3) > 2)", 1},
        {"max(t.child.s32, abs(s16) > 3 and n32 != null)", 1},
        {"sum(t.child.parent.u8, between(s8, -3, 3) or parent.gp.u8 > 1)", 1},
        {"min(t.child.f64, distance(f64, f32, 0, 1, 2, 3) < 2.5)", 1},
        {"count(t.child, u8 < max(t.parent.u8))", 0},          /* an aggregate in the condition */
        {"sum(t.child.u8, coalesce(n8, count(t.gp)) > 1)", 0}, /* a row count too */
        {"count(t.child, 'a' == 'b' or u8 > 1)", 0},           /* a string */
    };
    for (size_t k = 0; k < GC_COUNTOF(cases); k++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "invariants:\n"
                 "  - id: d.a\n    why: w\n    table: t.child\n    expect: (%s) >= 0 or u8 > 0\n"
                 "  - id: d.b\n    why: w\n    table: t.parent\n"
                 "    expect: count(t.child, parent.u8 == outer.u8) > 0 or (%s) != 1\n",
                 cases[k].agg, cases[k].agg);
        gc_inv_set *s = load(yaml);
        const gc_unit *a = &s->invs[0], *b = &s->invs[1];
        const gc_agg *x = &a->aggs[a->nagg - 1], *y = &b->aggs[b->nagg - 1];
        cr_assert_eq(x->memo >= 0, cases[k].shared, "%s", cases[k].agg);
        /* written twice, the same class (or none) */
        cr_assert_eq(y->memo, x->memo, "%s", cases[k].agg);
        /* the unit's own aggregates (whatever their code: it runs apart) do not keep it off
         * the batch VM, one of `outer` does */
        cr_assert_eq(a->batch, 1, "%s", cases[k].agg);
        cr_assert_eq(b->batch, 0, "%s", cases[k].agg);
        gc_inv_free(s);
    }
}

Test(inv_diff, aggregate_loops_keep_signed_zeros_infinities_and_the_first_of_equals)
{
    /* float sums and bounds over columns of zeros of both signs, NaNs (skipped), infinities
     * and integer extremes, in blocks without nulls (the batch VM's branch-free loops) and
     * with them, against agg_value's row loop: -0.0 + -0.0 stays -0.0, min(0.0, -0.0) is the
     * first of the two, a column of +inf or INT64_MAX alone is its own bound */
    static const double fz[][4] = {{-0.0, -0.0, NAN, -0.0},     {0.0, -0.0, NAN, 0.0},
                                   {-0.0, 0.0, -0.0, NAN},      {INFINITY, NAN, INFINITY, NAN},
                                   {-INFINITY, -0.0, NAN, 0.0}, {NAN, NAN, NAN, NAN}};
    static const int64_t iz[][4] = {{INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX},
                                    {INT64_MIN, INT64_MIN, 0, INT64_MIN},
                                    {INT64_MAX, 1, INT64_MIN, -1}};
    static const char *const exprs[] = {
        "sum(t.child.f64)", "mean(t.child.f64)", "min(t.child.f64)", "max(t.child.f64)",
        "count(t.child.f64)", "min(t.child.f64, u8 > 0)", "sum(t.child.f64, prev.f64 != null)",
        "max(t.child.s64)", "min(t.child.s64)", "sum(t.child.s64)", "mean(t.child.s64, u8 > 0)",
        "max(t.child.prev.s64)",
        /* near the extremes, where a double would round */
        "min(t.child.s64) - 9223372036854775000", "max(t.child.s64) + 9223372036854775000"};
    for (size_t pat = 0; pat < GC_COUNTOF(fz) + GC_COUNTOF(iz); pat++)
        for (size_t shape = 0; shape < 3; shape++) {
            const size_t nrows = shape == 0 ? 3 : shape == 1 ? 256 : 700;
            make_tables(nrows, 4, 2);
            for (size_t i = 0; i < nrows; i++) {
                if (pat < GC_COUNTOF(fz))
                    C[i].f64 = fz[pat][(i * 7 / 5) % 4];
                else
                    C[i].s64 = iz[pat - GC_COUNTOF(fz)][(i * 3 / 2) % 4];
                C[i].u8 = (uint8_t)(i % 3);
            }
            for (size_t k = 0; k < GC_COUNTOF(exprs); k++) {
                char yaml[512];
                snprintf(yaml, sizeof yaml, "metrics:\n  - name: m\n    expr: %s\n", exprs[k]);
                gc_inv_set *s = load(yaml);
                double va = 0, vb = 0;
                int na = -1, nb = -1;
                cr_assert_eq(gc_inv_eval_metric(s, 0, tables, &va, &na), 0);
                for (uint32_t a = 0; a < s->mets[0].nagg; a++)
                    s->mets[0].aggs[a].uses_outer = 1; /* agg_value's row loop */
                cr_assert_eq(gc_inv_eval_metric(s, 0, tables, &vb, &nb), 0);
                cr_assert_eq(na, nb, "null %d vs %d: %s, pattern %zu", na, nb, exprs[k], pat);
                cr_assert(na || memcmp(&va, &vb, sizeof va) == 0, "%a vs %a: %s, pattern %zu", va,
                          vb, exprs[k], pat);
                gc_inv_free(s);
            }
        }
}
