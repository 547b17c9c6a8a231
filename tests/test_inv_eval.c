/* SPDX-License-Identifier: MIT */
/* Invariant engine evaluation: every operator and its precedence, integer vs float
 * arithmetic, each null rule, functions, aggregates, prev/next at the table ends, parent
 * links (null and out-of-range parents), outer., corpus scope over several levels, metrics,
 * failure samples and determinism. Tables and rows are built here, by hand. */
#include "gc_inv.h"
#include "inv_internal.h" /* white box: compiled units */

#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixture tables ---- */

typedef struct patch_row {
    uint64_t file_ofs;
    uint32_t vert_count;
    uint32_t positions_decoded;
    float cx, cy, cz, radius;
    uint8_t walk_ok;
    int32_t sval;
    uint32_t opt; /* null when 0xffffffff */
    char name[16];
    uint32_t flags;
} patch_row;

static const gc_column patch_cols[] = {
    GC_COL(patch_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes", "offset"),
    GC_COL(patch_row, vert_count, GC_T_U32, 0, "count", "declared"),
    GC_COL(patch_row, positions_decoded, GC_T_U32, 0, "count", "found"),
    GC_COL(patch_row, cx, GC_T_F32, 0, "world units", "centre x"),
    GC_COL(patch_row, cy, GC_T_F32, 0, "world units", "centre y"),
    GC_COL(patch_row, cz, GC_T_F32, 0, "world units", "centre z"),
    GC_COL(patch_row, radius, GC_T_F32, 0, "world units", "radius"),
    GC_COL(patch_row, walk_ok, GC_T_BOOL, 0, "", "walk ok"),
    GC_COL(patch_row, sval, GC_T_S32, 0, "", "signed"),
    GC_COL(patch_row, opt, GC_T_U32, GC_CF_NULL_IF_MAX, "", "optional"),
    GC_COL(patch_row, name, GC_T_STR, 0, "", "name"),
    GC_COL(patch_row, flags, GC_T_U32, GC_CF_HEX, "", "flags"),
};
static const gc_table_desc patch_desc = {
    "tfrag.patch", "patches", sizeof(patch_row), patch_cols, GC_COUNTOF(patch_cols), NULL,
    NULL,          NULL};

typedef struct vertex_row {
    uint64_t file_ofs;
    uint32_t patch_row;
    float x, y, z;
} vertex_row;

static const gc_column vertex_cols[] = {
    GC_COL(vertex_row, file_ofs, GC_T_U64, 0, "bytes", "offset"),
    GC_COL(vertex_row, patch_row, GC_T_U32, GC_CF_NULL_IF_MAX, "row", "parent"),
    GC_COL(vertex_row, x, GC_T_F32, 0, "world units", "x"),
    GC_COL(vertex_row, y, GC_T_F32, 0, "world units", "y"),
    GC_COL(vertex_row, z, GC_T_F32, 0, "world units", "z"),
};
static const gc_table_desc vertex_desc = {
    "tfrag.vertex", "vertices", sizeof(vertex_row), vertex_cols, GC_COUNTOF(vertex_cols),
    "tfrag.patch",  "patch",    "patch_row"};

typedef struct chain_row {
    uint64_t file_ofs;
    uint32_t offset, count, stride_bytes;
} chain_row;

static const gc_column chain_cols[] = {
    GC_COL(chain_row, file_ofs, GC_T_U64, 0, "bytes", "offset"),
    GC_COL(chain_row, offset, GC_T_U32, 0, "bytes", "start"),
    GC_COL(chain_row, count, GC_T_U32, 0, "count", "entries"),
    GC_COL(chain_row, stride_bytes, GC_T_U32, 0, "bytes", "entry size"),
};
static const gc_table_desc chain_desc = {"core.class_table",
                                         "tables",
                                         sizeof(chain_row),
                                         chain_cols,
                                         GC_COUNTOF(chain_cols),
                                         NULL,
                                         NULL,
                                         NULL};

static const gc_table_desc *const descs[] = {&patch_desc, &vertex_desc, &chain_desc};
#define NDESC GC_COUNTOF(descs)

static patch_row P[4];
static vertex_row V[5];
static chain_row C[4];
static gc_table level0[NDESC];

static void fill(void)
{
    memset(P, 0, sizeof P);
    for (int i = 0; i < 4; i++) {
        P[i].file_ofs = 0x100 + 0x40 * (uint64_t)i;
        P[i].vert_count = 10 + (uint32_t)i;
        P[i].positions_decoded = 10 + (uint32_t)i;
        P[i].radius = 2.0f;
        P[i].walk_ok = 1;
        P[i].sval = -5 + i;
        P[i].opt = (uint32_t)i;
        snprintf(P[i].name, sizeof P[i].name, "p%d", i);
        P[i].flags = 0x10u << i;
    }
    P[1].positions_decoded = 75; /* vert_count 11 */
    P[3].positions_decoded = 76; /* vert_count 13 */
    P[2].walk_ok = 0;
    P[2].opt = UINT32_MAX; /* null */
    P[1].cx = 0.5f;
    memset(V, 0, sizeof V);
    V[0] = (vertex_row){0x1000, 0, 1.0f, 0.0f, 0.0f};
    V[1] = (vertex_row){0x1010, 0, 3.0f, 0.0f, 0.0f}; /* outside radius 2 */
    V[2] = (vertex_row){0x1020, 1, 0.5f, 1.0f, 0.0f};
    V[3] = (vertex_row){0x1030, UINT32_MAX, 0.0f, 0.0f, 0.0f}; /* null parent */
    V[4] = (vertex_row){0x1040, 99, 0.0f, 0.0f, 0.0f};         /* out of range */
    C[0] = (chain_row){0x10, 0x100, 4, 16};
    C[1] = (chain_row){0x20, 0x140, 2, 8};
    C[2] = (chain_row){0x30, 0x158, 1, 8}; /* should start at 0x150 */
    C[3] = (chain_row){0x40, 0x160, 3, 4};
    level0[0] = (gc_table){&patch_desc, P, 4};
    level0[1] = (gc_table){&vertex_desc, V, 5};
    level0[2] = (gc_table){&chain_desc, C, 4};
}

static char errbuf[8192];

static gc_inv_set *load(const char *yaml)
{
    gc_inv_set *s = gc_inv_load_string("t.yaml", yaml, descs, NDESC, errbuf, sizeof errbuf);
    cr_assert(s != NULL, "load failed:\n%s\nfor:\n%s", errbuf, yaml);
    return s;
}

/* Evaluate a metric expression on level0: returns the value, *isnull. */
static double mval(const char *expr, int *isnull)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, "metrics:\n  - name: m\n    expr: |-\n      %s\n", expr);
    gc_inv_set *s = load(yaml);
    double v = -12345.0;
    int nul = -1;
    cr_assert_eq(gc_inv_eval_metric(s, 0, level0, &v, &nul), 0);
    gc_inv_free(s);
    *isnull = nul;
    return v;
}

static void expect_val(const char *expr, double want)
{
    int nul;
    double v = mval(expr, &nul);
    cr_expect_eq(nul, 0, "'%s' is null", expr);
    cr_expect(v == want, "'%s' = %.17g, want %.17g", expr, v, want);
}

static void expect_null(const char *expr)
{
    int nul;
    double v = mval(expr, &nul);
    cr_expect_eq(nul, 1, "'%s' should be null, got %.17g", expr, v);
}

typedef struct run1 {
    uint64_t checked, failed;
    size_t nsamples;
    gc_inv_sample s[8];
} run1;

/* One invariant on level0 (level id 3). */
static run1 inv1(const char *table, const char *where, const char *expect)
{
    char yaml[4096];
    int o = snprintf(yaml, sizeof yaml, "invariants:\n  - id: t.x\n    why: test\n");
    if (table)
        o += snprintf(yaml + o, sizeof yaml - (size_t)o, "    table: %s\n", table);
    if (where)
        o += snprintf(yaml + o, sizeof yaml - (size_t)o, "    where: |-\n      %s\n", where);
    snprintf(yaml + o, sizeof yaml - (size_t)o, "    expect: |-\n      %s\n", expect);
    gc_inv_set *s = load(yaml);
    gc_inv_result r;
    cr_assert_eq(gc_inv_eval_level(s, 0, level0, 3, 8, &r), 0);
    run1 x = {r.checked, r.failed, r.sample_count, {{0}}};
    cr_assert(r.sample_count <= 8);
    if (r.sample_count)
        memcpy(x.s, r.samples, r.sample_count * sizeof *r.samples);
    gc_inv_result_free(&r);
    gc_inv_free(s);
    /* the same invariant twice, evaluated together (gc_inv_eval_level_many: one pass over a
     * shared table), gives each the one-at-a-time result, samples included */
    const char *body = strstr(yaml, "    why: test\n") + strlen("    why: test\n");
    char yaml2[8192];
    snprintf(yaml2, sizeof yaml2, "%s  - id: t.y\n    why: test\n%s", yaml, body);
    gc_inv_set *s2 = load(yaml2);
    gc_inv_result rr[2];
    double secs[2];
    const size_t idx[2] = {1, 0};
    cr_assert_eq(gc_inv_eval_level_many(s2, idx, 2, level0, 3, 8, rr, secs), 0);
    for (int j = 0; j < 2; j++) {
        cr_expect_eq(rr[j].checked, x.checked, "%s: grouped checked", expect);
        cr_expect_eq(rr[j].failed, x.failed, "%s: grouped failed", expect);
        cr_assert_eq(rr[j].sample_count, x.nsamples, "%s: grouped samples", expect);
        for (size_t k = 0; k < x.nsamples; k++) {
            cr_expect_eq(rr[j].samples[k].row, x.s[k].row);
            cr_expect_eq(rr[j].samples[k].level, x.s[k].level);
            cr_expect_str_eq(rr[j].samples[k].values, x.s[k].values);
        }
        cr_expect(secs[j] >= 0);
        gc_inv_result_free(&rr[j]);
    }
    gc_inv_free(s2);
    return x;
}

TestSuite(inv_eval, .init = fill);

Test(inv_eval, integer_arithmetic_and_precedence)
{
    expect_val("7 + 3 * 2", 13);
    expect_val("(7 + 3) * 2", 20);
    expect_val("10 - 4 - 3", 3); /* left associative */
    expect_val("7 // 2", 3);
    expect_val("-7 // 2", -3); /* truncates toward zero */
    expect_val("-7 % 3", -1);  /* sign of the dividend */
    expect_val("7 % -3", 1);
    expect_val("2 * -3", -6);
    expect_val("-(2 + 3)", -5);
    expect_val("1 << 2 + 1", 8);            /* + binds tighter than << */
    expect_val("0xf0 | 0x0f & 0x3c", 0xfc); /* & binds tighter than | */
    expect_val("0x100 >> 4", 16);
    expect_val("-16 >> 2", -4);  /* arithmetic shift */
    expect_val("1 | 2 == 3", 1); /* | binds tighter than == */
    expect_val("1 + 2 << 1 == 6", 1);
    expect_val("0x1A4", 420);
    /* exact 64-bit: a double would lose the low bit */
    expect_val("9007199254740993 - 9007199254740992", 1);
    expect_val("9007199254740993 == 9007199254740992", 0);
    /* wrapping, never undefined */
    expect_val("9223372036854775807 + 1 < 0", 1);
    expect_val("0xffffffffffffffff == -1", 1);
    expect_val("-9223372036854775807 - 1 == -9223372036854775807 - 1", 1);
    expect_val("(-9223372036854775807 - 1) // -1 < 0", 1);
    expect_val("true + true", 2);
    expect_val("false", 0);
}

Test(inv_eval, float_arithmetic_and_mixing)
{
    expect_val("7 / 2", 3.5); /* / is float division */
    expect_val("6 / 3", 2.0);
    expect_val("1 + 0.5", 1.5);
    expect_val("0.5 * 4", 2.0);
    expect_val("3 == 3.0", 1);
    expect_val("7.5 // 2", 3.0);
    expect_val("-7.5 // 2", -3.0);
    expect_val("7.5 % 2", 1.5);
    expect_val("1e3 + .5", 1000.5);
    expect_val("2.5e-1", 0.25);
    expect_val("-1.5 < -1", 1);
    expect_val("0.1 + 0.2 == 0.3", 0); /* IEEE doubles, not decimals */
}

Test(inv_eval, integer_literals_beside_floats_convert_as_c_converts)
{
    /* an integer literal that meets a double is converted when the expression is compiled:
     * the value must be C's conversion, rounding included, on either side and as an
     * argument */
    expect_val("9007199254740993 * 1.0", 9007199254740992.0); /* 2^53 + 1 rounds to even */
    expect_val("1.0 * 9007199254740995", 9007199254740996.0);
    expect_val("0x7fffffffffffffff + 0.0", 9223372036854775807.0);
    expect_val("0x8000000000000000 - 0.0", -9223372036854775808.0);
    expect_val("-3 / 2", -1.5);
    expect_val("max(3, 2.5)", 3.0);
    expect_val("min(2.5, -4)", -4.0);
    expect_val("distance(3, 4, 0, 0, 0, 0)", 5.0);
    expect_val("between(2.5, 2, 3)", 1);
    expect_val("sum(tfrag.patch.radius) / 4", 2.0);
    expect_val("7 // 2.0", 3.0);
}

Test(inv_eval, comparisons_and_logic)
{
    expect_val("1 < 2", 1);
    expect_val("2 <= 2", 1);
    expect_val("3 > 4", 0);
    expect_val("4 >= 5", 0);
    expect_val("1 != 1", 0);
    expect_val("1 == 1", 1);
    expect_val("true or false and false", 1); /* and binds tighter than or */
    expect_val("(true or false) and false", 0);
    expect_val("not 1 == 2", 1); /* not is looser than == */
    expect_val("not true or true", 1);
    expect_val("not (true or true)", 0);
    expect_val("not 0", 1);
    expect_val("not 5", 0);
    expect_val("2 and 3", 1); /* non-zero is true */
    expect_val("0.0 or 0.5", 1);
}

Test(inv_eval, division_by_zero_and_bad_shifts_are_null)
{
    expect_null("1 // 0");
    expect_null("1 % 0");
    expect_null("1 / 0");
    expect_null("1.5 / 0.0");
    expect_null("1 << 64");
    expect_null("1 >> -1");
}

Test(inv_eval, null_rules)
{
    expect_null("null + 1");
    expect_null("2 * null");
    expect_null("-null");
    expect_null("null & 1");
    expect_null("null < 1");
    expect_null("1 >= null");
    expect_val("null == null", 1);
    expect_val("1 == null", 0);
    expect_val("null != null", 0);
    expect_val("1 != null", 1);
    expect_null("not null");
    expect_val("false and null", 0);
    expect_val("null and false", 0);
    expect_null("true and null");
    expect_null("null and true");
    expect_val("true or null", 1);
    expect_val("null or true", 1);
    expect_null("false or null");
    expect_null("null or false");
    expect_null("null");
    expect_val("isnull(null)", 1);
    expect_val("isnull(1 // 0)", 1);
    expect_val("isnull(3)", 0);
    expect_val("coalesce(null, 5)", 5);
    expect_val("coalesce(2, 5)", 2);
    expect_null("coalesce(null, null)");
    expect_null("abs(null)");
    expect_null("min(1, null)");
    expect_null("max(null, 1, 2)");
    expect_null("sqrt(null)");
    expect_null("between(null, 0, 1)");
    expect_null("distance(0, 0, 0, 1, 1, null)");
    expect_val("(1 // 0) == null", 1);
}

Test(inv_eval, scalar_functions)
{
    expect_val("abs(-5)", 5);
    expect_val("abs(-2.5)", 2.5);
    expect_val("min(3, 1, 2)", 1);
    expect_val("max(3, 1, 2)", 3);
    expect_val("max(3, 1.5)", 3.0);
    expect_val("min(-1, -1.5)", -1.5);
    expect_val("sqrt(16)", 4.0);
    expect_null("sqrt(-1)");
    expect_val("distance(0, 0, 0, 3, 4, 0)", 5.0);
    expect_val("distance(1, 1, 1, 1, 1, 1)", 0.0);
    expect_val("between(5, 1, 5)", 1);
    expect_val("between(1, 1, 5)", 1);
    expect_val("between(6, 1, 5)", 0);
    expect_val("between(0.5, 0, 1)", 1);
}

Test(inv_eval, aggregates_without_condition)
{
    expect_val("count(tfrag.patch)", 4);
    expect_val("count(tfrag.vertex)", 5);
    expect_val("sum(tfrag.patch.vert_count)", 10 + 11 + 12 + 13);
    expect_val("sum(tfrag.patch.positions_decoded)", 10 + 75 + 12 + 76);
    expect_val("min(tfrag.patch.sval)", -5);
    expect_val("max(tfrag.patch.sval)", -2);
    expect_val("mean(tfrag.patch.vert_count)", 11.5);
    expect_val("sum(tfrag.patch.walk_ok)", 3); /* bools are 0/1 */
    expect_val("mean(tfrag.patch.walk_ok)", 0.75);
    expect_val("sum(tfrag.patch.radius)", 8.0); /* f32 as double */
    /* the null opt of row 2 is skipped: 0 + 1 + 3 */
    expect_val("sum(tfrag.patch.opt)", 4);
    expect_val("count(tfrag.patch.opt)", 3);
    expect_val("mean(tfrag.patch.opt)", 4.0 / 3.0);
    expect_val("max(tfrag.patch.opt)", 3);
    /* through a link from the aggregated row: V0,V1 -> P0 (radius 2), V2 -> P1 (2) */
    expect_val("sum(tfrag.vertex.patch.radius)", 6.0);
    expect_val("count(tfrag.vertex.patch)", 3);
}

Test(inv_eval, aggregates_with_condition)
{
    expect_val("count(tfrag.patch, walk_ok)", 3);
    expect_val("count(tfrag.patch, positions_decoded != vert_count)", 2);
    expect_val("sum(tfrag.patch.vert_count, walk_ok)", 10 + 11 + 13);
    expect_val("min(tfrag.patch.vert_count, vert_count > 10)", 11);
    expect_val("max(tfrag.patch.vert_count, vert_count < 13)", 12);
    expect_val("mean(tfrag.patch.sval, sval < -3)", -4.5);
    expect_val("all(tfrag.patch, radius == 2)", 1);
    expect_val("all(tfrag.patch, walk_ok)", 0);
    expect_val("any(tfrag.patch, positions_decoded == 76)", 1);
    expect_val("any(tfrag.patch, sval > 100)", 0);
    /* conditions whose value is null are skipped */
    expect_val("count(tfrag.patch, opt >= 0)", 3);
    expect_val("all(tfrag.patch, opt < 10)", 1);
    /* prev/next relative to the aggregated row */
    expect_val("count(core.class_table, next != null)", 3);
    expect_val("count(core.class_table, next == null or offset + count * stride_bytes == "
               "next.offset)",
               3);
    /* a nested aggregate (hoisted) */
    expect_val("count(tfrag.patch, vert_count == max(tfrag.patch.vert_count))", 1);
    /* of no rows */
    expect_val("count(tfrag.patch, sval > 100)", 0);
    expect_val("sum(tfrag.patch.vert_count, sval > 100)", 0);
    expect_null("min(tfrag.patch.vert_count, sval > 100)");
    expect_null("max(tfrag.patch.vert_count, sval > 100)");
    expect_null("mean(tfrag.patch.vert_count, sval > 100)");
    expect_val("all(tfrag.patch, sval > 100 and false)", 0);
    expect_val("all(core.class_table, null)", 1); /* every condition null: no rows */
    expect_val("any(core.class_table, count > 100)", 0);
}

Test(inv_eval, aggregates_of_an_empty_table)
{
    level0[0].count = 0;
    expect_val("count(tfrag.patch)", 0);
    expect_val("sum(tfrag.patch.vert_count)", 0);
    expect_val("sum(tfrag.patch.radius)", 0.0);
    expect_null("min(tfrag.patch.vert_count)");
    expect_null("max(tfrag.patch.radius)");
    expect_null("mean(tfrag.patch.vert_count)");
    expect_val("all(tfrag.patch, false)", 1);
    expect_val("any(tfrag.patch, true)", 0);
}

Test(inv_eval, row_checks_count_checked_and_failed)
{
    run1 r = inv1("tfrag.patch", NULL, "positions_decoded == vert_count");
    cr_assert_eq(r.checked, 4);
    cr_assert_eq(r.failed, 2);
    cr_assert_eq(r.nsamples, 2);
    cr_assert_eq(r.s[0].row, 1);
    cr_assert_eq(r.s[0].level, 3);
    cr_assert_eq(r.s[0].file_ofs, 0x140);
    cr_assert_str_eq(r.s[0].values, "positions_decoded=75 vert_count=11");
    cr_assert_eq(r.s[1].row, 3);
    cr_assert_eq(r.s[1].file_ofs, 0x1c0);
    cr_assert_str_eq(r.s[1].values, "positions_decoded=76 vert_count=13");
}

Test(inv_eval, fast_and_general_paths_agree)
{
    const char *forms[] = {"positions_decoded == vert_count", "positions_decoded + 0 == vert_count",
                           "vert_count == positions_decoded", "positions_decoded <= 12",
                           "(positions_decoded * 1) <= 12"};
    run1 a = inv1("tfrag.patch", NULL, forms[0]);
    run1 b = inv1("tfrag.patch", NULL, forms[1]);
    run1 c = inv1("tfrag.patch", NULL, forms[2]);
    cr_assert_eq(a.failed, b.failed);
    cr_assert_eq(a.failed, c.failed);
    for (size_t i = 0; i < a.nsamples; i++) {
        cr_assert_eq(a.s[i].row, b.s[i].row);
        cr_assert_eq(a.s[i].row, c.s[i].row);
    }
    run1 d = inv1("tfrag.patch", NULL, forms[3]);
    run1 e = inv1("tfrag.patch", NULL, forms[4]);
    cr_assert_eq(d.failed, 2);
    cr_assert_eq(e.failed, 2);
    cr_assert_eq(d.s[0].row, 1);
    cr_assert_eq(e.s[1].row, 3);
    cr_assert_str_eq(d.s[0].values, "positions_decoded=75");
}

Test(inv_eval, where_filters_rows_and_null_where_skips)
{
    run1 r = inv1("tfrag.patch", "walk_ok", "positions_decoded == vert_count");
    cr_assert_eq(r.checked, 3);
    cr_assert_eq(r.failed, 2);
    /* opt is null on row 2: where null skips it */
    r = inv1("tfrag.patch", "opt >= 0", "vert_count > 0");
    cr_assert_eq(r.checked, 3);
    cr_assert_eq(r.failed, 0);
    r = inv1("tfrag.patch", "false", "vert_count > 0");
    cr_assert_eq(r.checked, 0);
}

Test(inv_eval, null_expect_is_a_failure_reported_as_null)
{
    run1 r = inv1("tfrag.patch", NULL, "opt < 100");
    cr_assert_eq(r.checked, 4);
    cr_assert_eq(r.failed, 1);
    cr_assert_eq(r.s[0].row, 2);
    cr_assert_str_eq(r.s[0].values, "opt=null => null");
    r = inv1("tfrag.patch", NULL, "opt == null or opt < 100");
    cr_assert_eq(r.failed, 0);
}

Test(inv_eval, prev_and_next_at_both_ends)
{
    run1 r = inv1("core.class_table", NULL,
                  "next == null or offset + count * stride_bytes == next.offset");
    cr_assert_eq(r.checked, 4);
    cr_assert_eq(r.failed, 1);
    cr_assert_eq(r.s[0].row, 1); /* 0x140 + 2*8 = 0x150 != 0x158 */
    cr_assert_str_eq(r.s[0].values, "next=2 offset=320 count=2 stride_bytes=8 next.offset=344");
    /* the last row has no next: next.offset is null, so without the guard it fails as null */
    r = inv1("core.class_table", NULL, "offset + count * stride_bytes == next.offset");
    cr_assert_eq(r.failed, 2);
    cr_assert_eq(r.s[1].row, 3);
    cr_assert_str_eq(r.s[1].values, "offset=352 count=3 stride_bytes=4 next.offset=null => null");
    /* prev at the first row */
    r = inv1("core.class_table", NULL, "prev == null");
    cr_assert_eq(r.failed, 3);
    cr_assert_eq(r.s[0].row, 1);
    r = inv1("core.class_table", "prev != null", "offset > prev.offset");
    cr_assert_eq(r.checked, 3);
    cr_assert_eq(r.failed, 0);
    r = inv1("core.class_table", NULL, "isnull(prev.offset)");
    cr_assert_eq(r.failed, 3);
    r = inv1("core.class_table", NULL, "prev.prev == null");
    cr_assert_eq(r.failed, 2); /* rows 2 and 3 have a row two back */
    r = inv1("core.class_table", NULL, "next.next.next == null");
    cr_assert_eq(r.failed, 1); /* only row 0 has a row three ahead */
}

Test(inv_eval, parent_links_with_null_and_out_of_range_parents)
{
    run1 r = inv1("tfrag.vertex", NULL,
                  "distance(x, y, z, patch.cx, patch.cy, patch.cz) <= patch.radius");
    cr_assert_eq(r.checked, 5);
    cr_assert_eq(r.failed, 3); /* V1 outside, V3 null parent, V4 out of range */
    cr_assert_eq(r.s[0].row, 1);
    cr_assert_eq(r.s[0].file_ofs, 0x1010);
    cr_assert_str_eq(r.s[0].values, "x=3 y=0 z=0 patch.cx=0 patch.cy=0 patch.cz=0 patch.radius=2");
    cr_assert_eq(r.s[1].row, 3);
    cr_assert_str_eq(r.s[1].values,
                     "x=0 y=0 z=0 patch.cx=null patch.cy=null patch.cz=null patch.radius=null "
                     "=> null");
    cr_assert_eq(r.s[2].row, 4);
    r = inv1("tfrag.vertex", NULL, "patch != null");
    cr_assert_eq(r.failed, 2);
    cr_assert_eq(r.s[0].row, 3);
    cr_assert_eq(r.s[1].row, 4);
    r = inv1("tfrag.vertex", "patch != null", "patch.cx == x - 1 or patch.cx == 0.5");
    cr_assert_eq(r.checked, 3);
    cr_assert_eq(r.failed, 1); /* V1: 0 != 2 */
    /* steps after a link are the parent table's */
    r = inv1("tfrag.vertex", NULL, "patch.next.vert_count == 11");
    cr_assert_eq(r.failed, 3); /* V2's parent P1 -> next P2 has 12; V3/V4 null */
    r = inv1("tfrag.vertex", NULL, "patch == patch_row");
    cr_assert_eq(r.failed, 2);
}

Test(inv_eval, outer_refers_to_the_invariant_row)
{
    P[3].vert_count = 10; /* duplicate of row 0 */
    run1 r = inv1("tfrag.patch", NULL, "count(tfrag.patch, vert_count == outer.vert_count) == 1");
    cr_assert_eq(r.checked, 4);
    cr_assert_eq(r.failed, 2);
    cr_assert_eq(r.s[0].row, 0);
    cr_assert_eq(r.s[1].row, 3);
    cr_assert_str_eq(r.s[0].values, "count(tfrag.patch, vert_count == outer.vert_count)=2");
    /* vertices of each patch counted through outer */
    r = inv1("tfrag.patch", NULL,
             "count(tfrag.vertex, patch_row == outer.file_ofs // 0x40 - 4) >= 1");
    cr_assert_eq(r.failed, 2); /* P0 has V0,V1; P1 has V2; P2, P3 none */
}

Test(inv_eval, row_independent_invariant_with_table_runs_once)
{
    run1 r = inv1("tfrag.patch", NULL, "mean(walk_ok) >= 0.9");
    cr_assert_eq(r.checked, 1);
    cr_assert_eq(r.failed, 1);
    cr_assert_eq(r.s[0].row, -1);
    cr_assert_eq(r.s[0].file_ofs, 0);
    cr_assert_str_eq(r.s[0].values, "mean(walk_ok)=0.75");
    r = inv1("tfrag.patch", NULL, "count(tfrag.patch) == 4");
    cr_assert_eq(r.checked, 1);
    cr_assert_eq(r.failed, 0);
    r = inv1(NULL, NULL, "sum(tfrag.patch.vert_count) == 46");
    cr_assert_eq(r.checked, 1);
    cr_assert_eq(r.failed, 0);
    r = inv1(NULL, "count(tfrag.vertex) > 100", "false");
    cr_assert_eq(r.checked, 0);
}

Test(inv_eval, strings_compare_with_literals)
{
    run1 r = inv1("tfrag.patch", NULL, "name != \"p2\"");
    cr_assert_eq(r.failed, 1);
    cr_assert_eq(r.s[0].row, 2);
    cr_assert_str_eq(r.s[0].values, "name=\"p2\"");
    r = inv1("tfrag.patch", NULL, "name == 'p0' or name == 'p1'");
    cr_assert_eq(r.failed, 2);
    expect_val("count(tfrag.patch, name == \"p3\")", 1);
    expect_val("count(tfrag.patch.name)", 4);
}

Test(inv_eval, f32_columns_read_as_double_and_hex_columns_print_in_hex)
{
    expect_val("count(tfrag.patch, cx == 0.5)", 1);
    /* 0.1f widened is not the double 0.1 */
    P[0].cx = 0.1f;
    expect_val("count(tfrag.patch, cx == 0.1)", 0);
    expect_val("count(tfrag.patch, abs(cx - 0.1) < 1e-6)", 1);
    run1 r = inv1("tfrag.patch", NULL, "flags < 0x40");
    cr_assert_eq(r.failed, 2);
    cr_assert_str_eq(r.s[0].values, "flags=0x40");
}

Test(inv_eval, samples_are_the_first_n_in_row_order)
{
    gc_inv_set *s = load("invariants:\n  - id: a.b\n    table: tfrag.vertex\n    expect: x < 0\n"
                         "    why: w\n");
    gc_inv_result r;
    cr_assert_eq(gc_inv_eval_level(s, 0, level0, 7, 2, &r), 0);
    cr_assert_eq(r.checked, 5);
    cr_assert_eq(r.failed, 5);
    cr_assert_eq(r.sample_count, 2);
    cr_assert_eq(r.samples[0].row, 0);
    cr_assert_eq(r.samples[1].row, 1);
    cr_assert_eq(r.samples[1].file_ofs, 0x1010);
    cr_assert_eq(r.samples[1].level, 7);
    cr_assert_str_eq(r.samples[1].values, "x=3");
    gc_inv_result_free(&r);
    cr_assert_eq(gc_inv_eval_level(s, 0, level0, 7, 0, &r), 0);
    cr_assert_eq(r.failed, 5);
    cr_assert_eq(r.sample_count, 0);
    gc_inv_result_free(&r);
    gc_inv_free(s);
}

Test(inv_eval, corpus_scope_over_several_levels)
{
    static patch_row P2[2];
    memset(P2, 0, sizeof P2);
    P2[0].vert_count = 10; /* duplicate of level 0 row 0 */
    P2[0].positions_decoded = 10;
    P2[0].walk_ok = 1;
    P2[1].vert_count = 50;
    P2[1].positions_decoded = 51;
    P2[1].walk_ok = 1;
    P2[1].file_ofs = 0x999;
    gc_table level1[NDESC] = {
        {&patch_desc, P2, 2}, {&vertex_desc, NULL, 0}, {&chain_desc, NULL, 0}};
    const gc_table *levels[2] = {level0, level1};
    const int ids[2] = {4, 9};
    gc_inv_set *s = load("invariants:\n"
                         "  - id: c.mean\n    scope: corpus\n"
                         "    expect: mean(tfrag.patch.walk_ok) >= 0.8\n    why: w\n"
                         "  - id: c.rows\n    table: tfrag.patch\n    scope: corpus\n"
                         "    expect: positions_decoded == vert_count\n    why: w\n"
                         "  - id: c.unique\n    table: tfrag.patch\n    scope: corpus\n"
                         "    expect: count(tfrag.patch, vert_count == outer.vert_count) == 1\n"
                         "    why: w\n"
                         "  - id: l.count\n    table: tfrag.patch\n"
                         "    expect: count(tfrag.patch) >= 3\n    why: w\n");
    gc_inv_result r;
    size_t i = gc_inv_find(s, "c.mean");
    cr_assert_eq(gc_inv_eval_corpus(s, i, levels, ids, 2, 10, &r), 0);
    cr_assert_eq(r.checked, 1);
    cr_assert_eq(r.failed, 0); /* 5 of 6 over the corpus; level 0 alone is 0.75 */
    gc_inv_result_free(&r);
    cr_assert_eq(gc_inv_eval_level(s, i, level0, 4, 10, &r), 0);
    cr_assert_eq(r.failed, 1);
    gc_inv_result_free(&r);

    i = gc_inv_find(s, "c.rows");
    cr_assert_eq(gc_inv_eval_corpus(s, i, levels, ids, 2, 10, &r), 0);
    cr_assert_eq(r.checked, 6);
    cr_assert_eq(r.failed, 3);
    cr_assert_eq(r.samples[2].level, 9);
    cr_assert_eq(r.samples[2].row, 1);
    cr_assert_eq(r.samples[2].file_ofs, 0x999);
    cr_assert_eq(r.samples[0].level, 4);
    gc_inv_result_free(&r);

    i = gc_inv_find(s, "c.unique");
    cr_assert_eq(gc_inv_eval_corpus(s, i, levels, ids, 2, 10, &r), 0);
    cr_assert_eq(r.failed, 2); /* vert_count 10 in level 4 row 0 and level 9 row 0 */
    cr_assert_eq(r.samples[0].level, 4);
    cr_assert_eq(r.samples[0].row, 0);
    cr_assert_eq(r.samples[1].level, 9);
    cr_assert_eq(r.samples[1].row, 0);
    gc_inv_result_free(&r);

    /* a level-scope invariant through eval_corpus: aggregates stay per level */
    i = gc_inv_find(s, "l.count");
    cr_assert_eq(gc_inv_eval_corpus(s, i, levels, ids, 2, 10, &r), 0);
    cr_assert_eq(r.checked, 2);
    cr_assert_eq(r.failed, 1);
    cr_assert_eq(r.samples[0].level, 9);
    gc_inv_result_free(&r);
    gc_inv_free(s);
}

Test(inv_eval, metrics_values_and_order)
{
    gc_inv_set *s = load("metrics:\n"
                         "  - tfrag.positions: sum(tfrag.patch.positions_decoded)\n"
                         "  - name: tfrag.patches\n    expr: count(tfrag.patch)\n    why: w\n"
                         "  - a.mean_radius: mean(tfrag.patch.radius, sval > 100)\n"
                         "  - a.ratio: sum(tfrag.patch.walk_ok) / count(tfrag.patch)\n");
    cr_assert_eq(gc_inv_metric_count(s), 4);
    cr_assert_str_eq(gc_inv_metric_name(s, 0), "a.mean_radius");
    cr_assert_str_eq(gc_inv_metric_name(s, 1), "a.ratio");
    cr_assert_str_eq(gc_inv_metric_name(s, 2), "tfrag.patches");
    cr_assert_str_eq(gc_inv_metric_name(s, 3), "tfrag.positions");
    cr_assert_str_eq(gc_inv_metric_why(s, 2), "w");
    double v;
    int nul;
    cr_assert_eq(gc_inv_eval_metric(s, 0, level0, &v, &nul), 0);
    cr_assert_eq(nul, 1);
    cr_assert_eq(gc_inv_eval_metric(s, 1, level0, &v, &nul), 0);
    cr_assert(nul == 0 && v == 0.75);
    cr_assert_eq(gc_inv_eval_metric(s, 2, level0, &v, &nul), 0);
    cr_assert(nul == 0 && v == 4.0);
    cr_assert_eq(gc_inv_eval_metric(s, 3, level0, &v, &nul), 0);
    cr_assert(nul == 0 && v == 173.0);
    cr_assert_eq(gc_inv_eval_metric(s, 4, level0, &v, &nul), -1);
    gc_inv_free(s);
}

Test(inv_eval, results_are_deterministic)
{
    gc_inv_set *s = load("invariants:\n  - id: a.b\n    table: tfrag.vertex\n"
                         "    expect: distance(x, y, z, patch.cx, patch.cy, patch.cz) * 1.001 <= "
                         "patch.radius + mean(tfrag.vertex.x) / 3\n    why: w\n");
    gc_inv_result a, b;
    cr_assert_eq(gc_inv_eval_level(s, 0, level0, 1, 10, &a), 0);
    cr_assert_eq(gc_inv_eval_level(s, 0, level0, 1, 10, &b), 0);
    cr_assert_eq(a.checked, b.checked);
    cr_assert_eq(a.failed, b.failed);
    cr_assert_eq(a.sample_count, b.sample_count);
    cr_assert(a.sample_count > 0);
    cr_assert_eq(memcmp(a.samples, b.samples, a.sample_count * sizeof *a.samples), 0);
    gc_inv_result_free(&a);
    gc_inv_result_free(&b);
    gc_inv_free(s);
}

Test(inv_eval, bad_arguments)
{
    gc_inv_set *s = load("invariants:\n  - id: a.b\n    expect: true\n    why: w\n");
    gc_inv_result r;
    cr_assert_eq(gc_inv_eval_level(s, 1, level0, 0, 1, &r), -1);
    cr_assert_eq(r.checked, 0);
    cr_assert_eq(gc_inv_eval_level(s, 0, NULL, 0, 1, &r), -1);
    cr_assert_eq(gc_inv_eval_level(s, 0, level0, 0, 1, &r), 0);
    cr_assert_eq(r.checked, 1);
    cr_assert_eq(r.failed, 0);
    gc_inv_result_free(&r);
    gc_inv_free(s);
}

Test(inv_eval, nan_is_null_in_conditions_and_aggregates)
{
    P[0].radius = NAN;
    expect_val("mean(tfrag.patch.radius)", 2.0);
    expect_val("max(tfrag.patch.radius)", 2.0);
    expect_val("count(tfrag.patch, radius)", 3);
    run1 r = inv1("tfrag.patch", NULL, "radius");
    cr_assert_eq(r.failed, 1);
    cr_assert_eq(r.s[0].row, 0);
    cr_assert_str_eq(r.s[0].values, "radius=nan => null");
    r = inv1("tfrag.patch", NULL, "radius <= 2"); /* IEEE: NaN compares false */
    cr_assert_eq(r.failed, 1);
    cr_assert_str_eq(r.s[0].values, "radius=nan");
}

Test(inv_eval, specialised_where_matches_the_general_one)
{
    const char *pairs[][2] = {
        {"walk_ok", "walk_ok and true"},
        {"vert_count > 10", "vert_count + 0 > 10"},
        {"sval", "sval != 0"},
        {"vert_count != positions_decoded", "not vert_count == positions_decoded"}};
    for (size_t i = 0; i < GC_COUNTOF(pairs); i++) {
        run1 a = inv1("tfrag.patch", pairs[i][0], "positions_decoded == vert_count");
        run1 b = inv1("tfrag.patch", pairs[i][1], "positions_decoded == vert_count");
        cr_assert_eq(a.checked, b.checked, "%s", pairs[i][0]);
        cr_assert_eq(a.failed, b.failed, "%s", pairs[i][0]);
        for (size_t k = 0; k < a.nsamples; k++)
            cr_assert_eq(a.s[k].row, b.s[k].row);
    }
    run1 r = inv1("tfrag.patch", "vert_count > 10", "positions_decoded == vert_count");
    cr_assert_eq(r.checked, 3);
    cr_assert_eq(r.failed, 2);
    r = inv1("tfrag.patch", "vert_count != positions_decoded", "positions_decoded == vert_count");
    cr_assert_eq(r.checked, 2);
    cr_assert_eq(r.failed, 2);
}

Test(inv_eval, specialised_chains_match_the_vm_with_nulls)
{
    /* each pair: a plain column compare (the batch VM's one-loop and no-null paths) and
     * the same condition with `+ 0` (general arithmetic); results, samples and their
     * values must be identical */
    const char *pairs[][2] = {
        {"opt != null and vert_count > 10", "opt + 0 != null and vert_count + 0 > 10"},
        {"opt == 1 or opt == 3", "opt + 0 == 1 or opt + 0 == 3"},
        {"opt == null or opt < 2", "opt + 0 == null or opt + 0 < 2"},
        {"walk_ok and opt >= 0 and sval < -3",
         "walk_ok + 0 != 0 and opt + 0 >= 0 and sval + 0 < -3"},
        {"isnull(opt) or 2 < opt", "isnull(opt + 0) or 2 < opt + 0"},
        {"opt and walk_ok", "opt + 0 != 0 and walk_ok + 0 != 0"},
        {"opt < vert_count", "opt + 0 < vert_count + 0"},
    };
    for (size_t i = 0; i < GC_COUNTOF(pairs); i++) {
        run1 a = inv1("tfrag.patch", NULL, pairs[i][0]);
        run1 b = inv1("tfrag.patch", NULL, pairs[i][1]);
        cr_assert_eq(a.checked, b.checked, "%s", pairs[i][0]);
        cr_assert_eq(a.failed, b.failed, "%s: %llu vs %llu", pairs[i][0],
                     (unsigned long long)a.failed, (unsigned long long)b.failed);
        for (size_t k = 0; k < a.nsamples; k++) {
            cr_assert_eq(a.s[k].row, b.s[k].row, "%s", pairs[i][0]);
            cr_assert_str_eq(a.s[k].values, b.s[k].values, "%s", pairs[i][0]);
        }
        run1 w = inv1("tfrag.patch", pairs[i][0], "true");
        run1 x = inv1("tfrag.patch", pairs[i][1], "true");
        cr_assert_eq(w.checked, x.checked, "where %s", pairs[i][0]);
    }
    /* and the figures themselves: opt is 0, 1, null, 3 */
    run1 r = inv1("tfrag.patch", NULL, "opt == 1 or opt == 3");
    cr_assert_eq(r.failed, 2);
    cr_assert_str_eq(r.s[0].values, "opt=0");
    cr_assert_str_eq(r.s[1].values, "opt=null => null");
    r = inv1("tfrag.patch", "opt != null and vert_count > 10", "true");
    cr_assert_eq(r.checked, 2);
}

Test(inv_eval, bool_columns_are_zero_or_one_whatever_the_byte)
{
    P[0].walk_ok = 2; /* a decoder that stored a non-canonical true */
    run1 r = inv1("tfrag.patch", NULL, "walk_ok or false");
    cr_assert_eq(r.failed, 1); /* only row 2 (walk_ok 0) */
    cr_assert_eq(r.s[0].row, 2);
    r = inv1("tfrag.patch", NULL, "walk_ok + 0 or false");
    cr_assert_eq(r.failed, 1);
    expect_val("sum(tfrag.patch.walk_ok)", 3);
}

Test(inv_eval, tables_laid_out_differently_are_refused)
{
    gc_inv_set *s = load("invariants:\n  - id: a.b\n    table: tfrag.patch\n"
                         "    expect: vert_count > 0\n    why: w\n");
    gc_table swapped[NDESC] = {level0[1], level0[0], level0[2]};
    gc_inv_result r;
    cr_assert_eq(gc_inv_eval_level(s, 0, swapped, 0, 1, &r), -1);
    cr_assert_eq(r.checked, 0);
    const gc_table *lv[1] = {swapped};
    const int ids[1] = {0};
    cr_assert_eq(gc_inv_eval_corpus(s, 0, lv, ids, 1, 1, &r), -1);
    gc_table empty[NDESC] = {{NULL, NULL, 0}, {NULL, NULL, 0}, {NULL, NULL, 0}};
    cr_assert_eq(gc_inv_eval_level(s, 0, empty, 0, 1, &r), 0); /* no rows, no descriptors */
    cr_assert_eq(r.checked, 0);
    gc_inv_free(s);
}

Test(inv_eval, row_steps_are_shared_only_where_every_path_ran_them)
{
    /* the compiler walks to the parent once for patch.cx/patch.cy/...; after an and/or
     * join it must walk again, because the short-circuit may have skipped the first walk */
    run1 r = inv1("tfrag.vertex", "patch != null",
                  "(x > 100 and patch.radius > 0) or patch.cx == 0 or patch.cx == 0.5");
    cr_assert_eq(r.checked, 3);
    cr_assert_eq(r.failed, 0);
    r = inv1("core.class_table", NULL,
             "(offset > 0x1000 and next.offset > 0) or next == null or next.offset > offset");
    cr_assert_eq(r.failed, 0);
    /* shared walk within one operand list: all four loads see the parent */
    r = inv1("tfrag.vertex", NULL, "patch.cx + patch.cy + patch.cz + patch.radius == 2");
    cr_assert_eq(r.failed, 3); /* V2's parent P1 has cx 0.5; V3, V4 have none */
    cr_assert_eq(r.s[0].row, 2);
    cr_assert_str_eq(r.s[0].values, "patch.cx=0.5 patch.cy=0 patch.cz=0 patch.radius=2");
}

typedef struct thread_job {
    const gc_inv_set *s;
    uint64_t failed[4];
    char first[4][256];
    int rc;
} thread_job;

static void *eval_many(void *arg)
{
    thread_job *j = arg;
    for (int rep = 0; rep < 200; rep++)
        for (size_t i = 0; i < gc_inv_count(j->s); i++) {
            gc_inv_result r;
            if (gc_inv_eval_level(j->s, i, level0, 0, 1, &r) != 0) {
                j->rc = -1;
                return NULL;
            }
            j->failed[i] = r.failed;
            snprintf(j->first[i], sizeof j->first[i], "%s",
                     r.sample_count ? r.samples[0].values : "");
            gc_inv_result_free(&r);
        }
    return NULL;
}

Test(inv_eval, one_set_serves_concurrent_evaluations)
{
    gc_inv_set *s =
        load("invariants:\n"
             "  - id: a.agg\n    table: tfrag.patch\n"
             "    expect: count(tfrag.patch, vert_count == outer.vert_count) == 1 and "
             "vert_count <= max(tfrag.patch.vert_count)\n    why: w\n"
             "  - id: a.link\n    table: tfrag.vertex\n"
             "    expect: distance(x, y, z, patch.cx, patch.cy, patch.cz) <= "
             "patch.radius\n    why: w\n"
             "  - id: a.rows\n    table: tfrag.patch\n"
             "    expect: positions_decoded == vert_count\n    why: w\n"
             "  - id: a.once\n    expect: mean(tfrag.patch.walk_ok) > 0.9\n    why: w\n");
    P[3].vert_count = 10;
    thread_job jobs[4];
    pthread_t th[4];
    for (int t = 0; t < 4; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].s = s;
        cr_assert_eq(pthread_create(&th[t], NULL, eval_many, &jobs[t]), 0);
    }
    for (int t = 0; t < 4; t++)
        cr_assert_eq(pthread_join(th[t], NULL), 0);
    const uint64_t want[4] = {2, 3, 1, 2}; /* sorted by id: a.agg, a.link, a.once, a.rows */
    for (int t = 0; t < 4; t++) {
        cr_assert_eq(jobs[t].rc, 0);
        for (int i = 0; i < 4; i++) {
            cr_assert_eq(jobs[t].failed[i], want[i], "thread %d invariant %d", t, i);
            cr_assert_str_eq(jobs[t].first[i], jobs[0].first[i]);
        }
    }
    cr_assert_str_eq(jobs[0].first[2], "mean(tfrag.patch.walk_ok)=0.75");
    gc_inv_free(s);
}

Test(inv_eval, long_sample_values_are_truncated_with_an_ellipsis)
{
    /* 15 values of ~20 characters: more than the 255 a sample holds */
    run1 r = inv1("tfrag.patch", NULL,
                  "file_ofs + vert_count + positions_decoded + sval + flags + prev.file_ofs + "
                  "next.file_ofs + prev.positions_decoded + next.positions_decoded + "
                  "prev.vert_count + next.vert_count + prev.flags + next.flags + prev.sval + "
                  "next.sval < 0");
    cr_assert_eq(r.failed, 4);
    size_t len = strlen(r.s[1].values);
    cr_assert_eq(len, 255, "%zu: %s", len, r.s[1].values);
    cr_assert_str_eq(r.s[1].values + 252, "...");
    cr_assert_eq(
        strncmp(r.s[1].values, "file_ofs=0x140 vert_count=11 positions_decoded=75 sval=-4 ", 58), 0,
        "%s", r.s[1].values);
}
