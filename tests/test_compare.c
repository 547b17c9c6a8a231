/* SPDX-License-Identifier: MIT */
/* The baseline comparisons (gc_digest_compare, gc_report_compare_metrics) against the
 * definition written out here (every key of one side looked up in the other, one by one), on
 * random reports: many levels, keys on one side only, moved values, levels not run, corpus
 * figures, counters, duplicate keys. The sweep's comparisons walk the two sorted lists once;
 * a walk that skipped or misplaced a key changes what these find. And gc_report_add_digests
 * against gc_report_add_digest one at a time. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_digest.h"
#include "gc_inv.h"
#include "gc_report.h"
#include "gc_sweep_tables.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* ---- column digests --------------------------------------------------- */

typedef struct ref_change {
    int level;
    char field[128];
    int old_null, new_null;
    double old_value, new_value;
    char old_digest[GC_DIGEST_HEX + 1], new_digest[GC_DIGEST_HEX + 1];
} ref_change;

static int key_cmp(int la, const char *fa, int lb, const char *fb)
{
    return la != lb ? (la > lb) - (la < lb) : strcmp(fa, fb);
}

static int cmp_d(const void *a, const void *b)
{
    const gc_rep_digest *x = a, *y = b;
    return key_cmp(x->level, x->field, y->level, y->field);
}

static const gc_rep_digest *lookup(const gc_rep_digest *d, size_t n, int level, const char *f)
{
    for (size_t i = 0; i < n; i++)
        if (d[i].level == level && strcmp(d[i].field, f) == 0)
            return &d[i];
    return NULL;
}

/* What gc_digest_compare must report: a change for every column of both sides whose rows or
 * digest differ, every column only in this run unblessed, every column of a level that ran
 * (and has digests here) gone from this run a change; this run's columns in key order, then
 * the gone ones in key order. */
static size_t ref_digest_compare(const gc_report *r, const gc_rep_digest *old, size_t nold,
                                 ref_change *out, size_t *unblessed)
{
    gc_rep_digest *so = malloc((nold ? nold : 1) * sizeof *so), *sn;
    sn = malloc((r->digest_count ? r->digest_count : 1) * sizeof *sn);
    cr_assert(so && sn);
    memcpy(so, old, nold * sizeof *so);
    memcpy(sn, r->digests, r->digest_count * sizeof *sn);
    qsort(so, nold, sizeof *so, cmp_d);
    qsort(sn, r->digest_count, sizeof *sn, cmp_d);
    size_t n = 0;
    *unblessed = 0;
    for (size_t i = 0; i < r->digest_count; i++) {
        const gc_rep_digest *o = lookup(so, nold, sn[i].level, sn[i].field);
        if (!o) {
            ++*unblessed;
            continue;
        }
        if (o->rows == sn[i].rows && strcmp(o->digest, sn[i].digest) == 0)
            continue;
        ref_change *c = &out[n++];
        memset(c, 0, sizeof *c);
        c->level = sn[i].level;
        snprintf(c->field, sizeof c->field, "%s", sn[i].field);
        c->old_value = (double)o->rows;
        c->new_value = (double)sn[i].rows;
        snprintf(c->old_digest, sizeof c->old_digest, "%s", o->digest);
        snprintf(c->new_digest, sizeof c->new_digest, "%s", sn[i].digest);
    }
    for (size_t i = 0; i < nold; i++) {
        int ran = 0, has = 0;
        for (size_t k = 0; k < r->selected_count; k++)
            ran |= r->selected[k] == so[i].level;
        for (size_t k = 0; k < r->digest_count; k++)
            has |= sn[k].level == so[i].level;
        if (!ran || !has || lookup(sn, r->digest_count, so[i].level, so[i].field))
            continue;
        ref_change *c = &out[n++];
        memset(c, 0, sizeof *c);
        c->level = so[i].level;
        snprintf(c->field, sizeof c->field, "%s", so[i].field);
        c->new_null = 1;
        c->old_value = (double)so[i].rows;
        snprintf(c->old_digest, sizeof c->old_digest, "%s", so[i].digest);
    }
    free(so);
    free(sn);
    return n;
}

static void put_digest(gc_rep_digest *d, int level, unsigned table, unsigned col, unsigned value)
{
    memset(d, 0, sizeof *d);
    d->level = level;
    snprintf(d->field, sizeof d->field, "t%u.c%u", table, col);
    d->rows = value % 3;
    snprintf(d->digest, sizeof d->digest, "%032x", value);
}

/* One random pair of digest lists: levels, tables and columns drawn from small sets so that
 * keys meet; each side holds a key with some chance, the values agree most of the time. */
static void random_digests(gc_report *cur, gc_rep_digest **old, size_t *nold, int dup)
{
    gc_report_init(cur);
    size_t cap = 27 * 4 * 6 + 8;
    gc_rep_digest *o = calloc(cap, sizeof *o);
    cur->digests = calloc(cap, sizeof *cur->digests);
    cr_assert(o && cur->digests);
    size_t no = 0, nn = 0;
    unsigned pick = 2 + rnd(5);
    for (int level = 0; level < 27; level++) {
        if (rnd(pick) == 0)
            continue;
        if (rnd(4) != 0)
            cur->selected[cur->selected_count++] = level;
        int in_old = rnd(6) != 0, in_new = rnd(6) != 0;
        for (unsigned t = 0; t < 4; t++)
            for (unsigned c = 0; c < 6; c++) {
                unsigned v = rnd(40);
                if (in_old && rnd(5) != 0)
                    put_digest(&o[no++], level, t, c, v);
                if (in_new && rnd(5) != 0) {
                    int ran = 0;
                    for (size_t k = 0; k < cur->selected_count; k++)
                        ran |= cur->selected[k] == level;
                    if (ran)
                        put_digest(&cur->digests[nn++], level, t, c, rnd(8) ? v : v + 1);
                }
            }
    }
    if (dup && no > 0) /* the same key twice, with the same value: either copy is the match */
    {
        o[no] = o[rnd((unsigned)no)];
        no++;
    }
    qsort(o, no, sizeof *o, cmp_d);
    if (rnd(4) == 0) /* this run's digests out of order: compared as sorted */
        for (size_t i = 0; i < nn / 2; i++) {
            gc_rep_digest t = cur->digests[i];
            cur->digests[i] = cur->digests[nn - 1 - i];
            cur->digests[nn - 1 - i] = t;
        }
    cur->digest_count = nn;
    *old = o;
    *nold = no;
}

static void check_digest_run(int dup)
{
    gc_report cur;
    gc_rep_digest *old;
    size_t nold;
    random_digests(&cur, &old, &nold, dup);
    ref_change *want = calloc(2 * (nold + cur.digest_count) + 1, sizeof *want);
    cr_assert(want);
    size_t unblessed;
    size_t n = ref_digest_compare(&cur, old, nold, want, &unblessed);
    gc_digest_compare(&cur, old, nold);
    cr_assert_eq(cur.change_count, n, "changes: %zu, want %zu", cur.change_count, n);
    cr_assert_eq(cur.digests_unblessed, unblessed);
    for (size_t i = 0; i < n; i++) {
        const gc_rep_change *c = &cur.changes[i];
        cr_assert_eq(c->level, want[i].level, "change %zu", i);
        cr_assert_str_eq(c->field, want[i].field, "change %zu", i);
        cr_assert_eq(c->digest, 1);
        cr_assert_eq(c->old_null, want[i].old_null);
        cr_assert_eq(c->new_null, want[i].new_null, "change %zu (%s)", i, c->field);
        cr_assert_eq(c->old_value, want[i].old_value);
        cr_assert_eq(c->new_value, want[i].new_value);
        cr_assert_str_eq(c->old_digest, want[i].old_digest);
        cr_assert_str_eq(c->new_digest, want[i].new_digest);
    }
    free(want);
    free(old);
    gc_report_free(&cur);
}

Test(compare, column_digests_as_one_by_one_lookups_say)
{
    for (int run = 0; run < 400; run++)
        check_digest_run(0);
}

Test(compare, column_digests_with_a_key_twice)
{
    for (int run = 0; run < 100; run++)
        check_digest_run(1);
}

/* ---- metrics ------------------------------------------------------------ */

static int lkey(int level)
{
    return level == GC_LEVEL_CORPUS ? 1 << 30 : level;
}

static int cmp_m(const void *a, const void *b)
{
    const gc_rep_metric *x = a, *y = b;
    if (lkey(x->level) != lkey(y->level))
        return (lkey(x->level) > lkey(y->level)) - (lkey(x->level) < lkey(y->level));
    return strcmp(x->name, y->name);
}

static const gc_rep_metric *mlookup(const gc_rep_metric *m, size_t n, int level, const char *nm)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].level == level && strcmp(m[i].name, nm) == 0)
            return &m[i];
    return NULL;
}

static int same(const gc_rep_metric *a, const gc_rep_metric *b)
{
    if (a->is_null || b->is_null)
        return a->is_null == b->is_null;
    return a->value == b->value ||
           fabs(a->value - b->value) <= 1e-9 * fmax(fabs(a->value), fabs(b->value));
}

static int is_counter(const char *name)
{
    size_t nl = strlen(name);
    return (nl > 8 && strcmp(name + nl - 8, ".checked") == 0) ||
           (nl > 7 && strcmp(name + nl - 7, ".failed") == 0);
}

static const char *const metric_names[] = {"a.count",   "a.checked", "a.failed",  "b.mean",
                                           "b.checked", "tfrag.max", "zz.failed", "m"};

static void check_metric_run(int dup, int complete)
{
    gc_report cur;
    gc_report_init(&cur);
    size_t cap = 28 * 8 + 8, no = 0;
    gc_rep_metric *old = calloc(cap, sizeof *old);
    cr_assert(old);
    for (int li = -1; li < 27; li++) {
        int level = li < 0 ? GC_LEVEL_CORPUS : li;
        if (li >= 0 && (complete || rnd(4) != 0))
            cur.selected[cur.selected_count++] = level;
        int ran = li < 0;
        for (size_t k = 0; k < cur.selected_count; k++)
            ran |= cur.selected[k] == level;
        for (size_t m = 0; m < sizeof metric_names / sizeof *metric_names; m++) {
            double v = rnd(5) == 0 ? 0.5 * rnd(6) : (double)rnd(6);
            int null = rnd(9) == 0;
            if (rnd(6) != 0) {
                gc_rep_metric *x = &old[no++];
                x->level = level;
                x->name = (char *)metric_names[m];
                x->value = v;
                x->is_null = null;
            }
            if (ran && rnd(6) != 0)
                gc_report_add_metric(&cur, level, metric_names[m], rnd(7) ? v : v + 1,
                                     rnd(9) ? null : !null);
        }
    }
    if (dup && no > 0) {
        old[no] = old[rnd((unsigned)no)];
        no++;
    }
    if (rnd(2)) /* the baseline sorted, as a written one is, or not */
        qsort(old, no, sizeof *old, cmp_m);

    /* the definition: every metric of this run in key order, then the gone ones */
    gc_rep_metric *so = malloc((no ? no : 1) * sizeof *so);
    gc_rep_metric *sn = malloc((cur.metric_count ? cur.metric_count : 1) * sizeof *sn);
    cr_assert(so && sn);
    memcpy(so, old, no * sizeof *so);
    memcpy(sn, cur.metrics, cur.metric_count * sizeof *sn);
    qsort(so, no, sizeof *so, cmp_m);
    qsort(sn, cur.metric_count, sizeof *sn, cmp_m);
    int full = gc_report_complete(&cur);
    typedef struct {
        int level;
        const char *name;
        int old_null, new_null;
        double old_value, new_value;
    } want_change;
    want_change *want = calloc(no + cur.metric_count + 1, sizeof *want);
    cr_assert(want);
    size_t nw = 0, unblessed = 0;
    for (size_t i = 0; i < cur.metric_count; i++) {
        if (sn[i].level == GC_LEVEL_CORPUS && !full)
            continue;
        const gc_rep_metric *o = mlookup(so, no, sn[i].level, sn[i].name);
        if (!o)
            unblessed++;
        else if (!same(o, &sn[i]))
            want[nw++] = (want_change){sn[i].level,   sn[i].name, o->is_null,
                                       sn[i].is_null, o->value,   sn[i].value};
    }
    for (size_t i = 0; i < no; i++) {
        int present = so[i].level == GC_LEVEL_CORPUS && full;
        for (size_t k = 0; k < cur.selected_count; k++)
            present |= cur.selected[k] == so[i].level;
        if (present && !is_counter(so[i].name) &&
            !mlookup(sn, cur.metric_count, so[i].level, so[i].name))
            want[nw++] = (want_change){so[i].level, so[i].name, so[i].is_null, 1, so[i].value, 0};
    }

    gc_report_compare_metrics(&cur, old, no);
    cr_assert_eq(cur.change_count, nw, "changes: %zu, want %zu", cur.change_count, nw);
    cr_assert_eq(cur.metrics_unblessed, unblessed);
    for (size_t i = 0; i < nw; i++) {
        cr_assert_eq(cur.changes[i].level, want[i].level, "change %zu", i);
        cr_assert_str_eq(cur.changes[i].field, want[i].name, "change %zu", i);
        cr_assert_eq(cur.changes[i].old_null, want[i].old_null, "change %zu", i);
        cr_assert_eq(cur.changes[i].new_null, want[i].new_null, "change %zu", i);
        cr_assert_eq(cur.changes[i].old_value, want[i].old_value, "change %zu", i);
        cr_assert_eq(cur.changes[i].new_value, want[i].new_value, "change %zu", i);
    }
    free(want);
    free(so);
    free(sn);
    free(old);
    gc_report_free(&cur);
}

Test(compare, metrics_as_one_by_one_lookups_say)
{
    for (int run = 0; run < 400; run++)
        check_metric_run(0, run % 3 == 0);
}

Test(compare, metrics_with_a_key_twice)
{
    for (int run = 0; run < 100; run++)
        check_metric_run(1, run % 2 == 0);
}

/* ---- gc_report_add_digests ------------------------------------------- */

Test(compare, digests_added_at_once_as_one_by_one)
{
    gc_report a, b;
    gc_report_init(&a);
    gc_report_init(&b);
    gc_rep_digest src[40];
    /* room made first for part of them: nothing added by it, the rest grows as before */
    cr_assert_eq(gc_report_reserve_digests(&b, 300), 0);
    cr_assert_eq(b.digest_count, 0);
    for (int round = 0; round < 30; round++) {
        size_t n = rnd(40);
        for (size_t i = 0; i < n; i++) {
            /* garbage after each text, as a digest read from a baseline may hold */
            memset(&src[i], 0x5A, sizeof src[i]);
            src[i].level = 99; /* the level given wins */
            size_t len = i == 0 ? sizeof src[i].field - 1 : 1 + rnd(30);
            memset(src[i].field, 'a' + (int)rnd(26), len);
            src[i].field[len] = '\0';
            src[i].rows = rnd(1000);
            snprintf(src[i].digest, sizeof src[i].digest, "%032x", rnd(1u << 30));
        }
        for (size_t i = 0; i < n; i++)
            cr_assert(gc_report_add_digest(&a, round, src[i].field, src[i].rows, src[i].digest));
        cr_assert_eq(gc_report_add_digests(&b, round, src, n), 0);
        cr_assert_eq(a.digest_count, b.digest_count);
        cr_assert_eq(memcmp(a.digests, b.digests, a.digest_count * sizeof *a.digests), 0,
                     "round %d", round);
    }
    gc_report_free(&a);
    gc_report_free(&b);
}

/* ---- corpus_tables: integers as printf prints them ---------------------- */

typedef struct ints_row {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32, n32;
    uint64_t u64;
    int8_t s8;
    int16_t s16;
    int32_t s32;
    int64_t s64;
} ints_row;
static const gc_column ints_cols[] = {
    GC_COL(ints_row, u8, GC_T_U8, 0, "", ""),
    GC_COL(ints_row, u16, GC_T_U16, 0, "", ""),
    GC_COL(ints_row, u32, GC_T_U32, 0, "", ""),
    GC_COL(ints_row, n32, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
    GC_COL(ints_row, u64, GC_T_U64, 0, "", ""),
    GC_COL(ints_row, s8, GC_T_S8, 0, "", ""),
    GC_COL(ints_row, s16, GC_T_S16, 0, "", ""),
    GC_COL(ints_row, s32, GC_T_S32, 0, "", ""),
    GC_COL(ints_row, s64, GC_T_S64, 0, "", ""),
};
static const gc_table_desc ints_desc = {
    "ints.row", "integers", sizeof(ints_row), ints_cols, GC_COUNTOF(ints_cols), NULL, NULL, NULL};

Test(compare, corpus_tables_print_integers_as_printf)
{
    const gc_table_desc *descs[] = {&ints_desc};
    const char *yaml = "invariants:\n"
                       "  - id: ints.seen\n"
                       "    table: ints.row\n"
                       "    scope: corpus\n"
                       "    expect: u8 >= 0\n"
                       "    why: keeps ints.row in corpus_tables\n";
    char err[4096] = "";
    gc_inv_set *set = gc_inv_load_string("t.yaml", yaml, descs, 1, err, sizeof err);
    cr_assert_not_null(set, "%s", err);
    ints_row rows[64];
    memset(rows, 0, sizeof rows);
    rows[1] = (ints_row){UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT32_MAX, UINT64_MAX,
                         INT8_MIN,  INT16_MIN,  INT32_MIN,  INT64_MIN};
    rows[2] = (ints_row){1,        10,        100,       UINT32_MAX - 1, 1000000000000ull,
                         INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
    for (size_t i = 3; i < 64; i++) {
        uint64_t v = (uint64_t)rnd(1u << 30) << 34 ^ rnd(1u << 30);
        v >>= rnd(64);
        rows[i] = (ints_row){(uint8_t)v,
                             (uint16_t)v,
                             (uint32_t)v,
                             (uint32_t)(v >> 3),
                             v,
                             (int8_t)(v >> 1),
                             (int16_t)(v >> 2),
                             (int32_t)(v >> 5),
                             (int64_t)(v * 0x9E3779B97F4A7C15ull)};
    }
    gc_table levels[1] = {{&ints_desc, rows, 64}};
    const gc_table *lt[1] = {levels};
    int ids[1] = {5}, selected[1] = {1};
    char *json = gc_sweep_corpus_tables_json(set, selected, descs, 1, lt, ids, 1);
    cr_assert_not_null(json);
    /* each row as "%llu" / "%lld" print it, null for the all-ones of a NULL_IF_MAX column */
    for (size_t i = 0; i < 64; i++) {
        const ints_row *r = &rows[i];
        char want[512], n32[24];
        if (r->n32 == UINT32_MAX)
            snprintf(n32, sizeof n32, "null");
        else
            snprintf(n32, sizeof n32, "%llu", (unsigned long long)r->n32);
        snprintf(want, sizeof want, "[%llu, %llu, %llu, %s, %llu, %lld, %lld, %lld, %lld]",
                 (unsigned long long)r->u8, (unsigned long long)r->u16, (unsigned long long)r->u32,
                 n32, (unsigned long long)r->u64, (long long)r->s8, (long long)r->s16,
                 (long long)r->s32, (long long)r->s64);
        cr_assert(strstr(json, want), "row %zu: %s not in %.300s", i, want, json);
    }
    free(json);
    gc_inv_free(set);
}
