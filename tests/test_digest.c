/* SPDX-License-Identifier: MIT */
/* Column digests (issue 17): the canonical encoding laid out by hand, the
 * comparison a moved value trips, the baseline round trip, and the blessed
 * small baseline carrying a digest for every column the sweep decodes. */
#include <criterion/criterion.h>
#include <math.h>
#include <openssl/evp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gc_baseline.h"
#include "gc_column_store.h"
#include "gc_coverage.h"
#include "gc_digest.h"
#include "gc_report.h"
#include "gc_sweep.h"
#include "sy_corpus.h"

typedef struct row {
    uint64_t file_ofs;
    uint16_t count;
    int32_t delta;
    float radius;
    uint8_t flag;
    char name[8];
} row;

static const gc_column cols[] = {
    GC_COL(row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes", "offset"),
    GC_COL(row, count, GC_T_U16, 0, "count", "a count"),
    GC_COL(row, delta, GC_T_S32, 0, "", "a signed value"),
    GC_COL(row, radius, GC_T_F32, 0, "world units", "a float"),
    GC_COL(row, flag, GC_T_BOOL, 0, "", "a flag"),
    GC_COL(row, name, GC_T_STR, 0, "", "a name"),
};
static const gc_table_desc desc = {"test.row",       "rows", sizeof(row), cols,
                                   GC_COUNTOF(cols), NULL,   NULL,        NULL};

static void sha_hex(const unsigned char *b, size_t n, char *hex)
{
    unsigned char md[32];
    unsigned int len = 0;
    EVP_Digest(b, n, md, &len, EVP_sha256(), NULL);
    for (int i = 0; i < GC_DIGEST_HEX / 2; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
}

static void rows2(row *r)
{
    memset(r, 0, 2 * sizeof *r);
    r[0] = (row){0x1234, 0x0102, -2, 1.5f, 1, "ab"};
    r[1] = (row){0x40, 7, 3, -0.0f, 0, ""};
}

Test(digest, canonical_encoding_by_hand)
{
    row r[2];
    rows2(r);
    gc_table t = {&desc, r, 2};
    char got[GC_DIGEST_HEX + 1], want[GC_DIGEST_HEX + 1];

    /* u16: tag, type byte, then little-endian values */
    unsigned char u16[] = {'G', 'C', 'C', 'O', 'L', '1', GC_T_U16, 0x02, 0x01, 0x07, 0x00};
    sha_hex(u16, sizeof u16, want);
    cr_assert_eq(gc_digest_column(&t, &cols[1], got), 0);
    cr_assert_str_eq(got, want);

    /* s32 -2 and 3, two's complement little-endian */
    unsigned char s32[] = {'G',  'C',  'C',  'O',  'L',  '1',  GC_T_S32, 0xfe,
                           0xff, 0xff, 0xff, 0x03, 0x00, 0x00, 0x00};
    sha_hex(s32, sizeof s32, want);
    cr_assert_eq(gc_digest_column(&t, &cols[2], got), 0);
    cr_assert_str_eq(got, want);

    /* f32 by bit pattern: 1.5 = 0x3fc00000, -0.0 = 0x80000000 */
    unsigned char f32[] = {'G',  'C',  'C',  'O',  'L',  '1',  GC_T_F32, 0x00,
                           0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0x80};
    sha_hex(f32, sizeof f32, want);
    cr_assert_eq(gc_digest_column(&t, &cols[3], got), 0);
    cr_assert_str_eq(got, want);

    /* strings: bytes to the NUL, then one 0x00 */
    unsigned char str[] = {'G', 'C', 'C', 'O', 'L', '1', GC_T_STR, 'a', 'b', 0, 0};
    sha_hex(str, sizeof str, want);
    cr_assert_eq(gc_digest_column(&t, &cols[5], got), 0);
    cr_assert_str_eq(got, want);

    /* u64 */
    unsigned char u64[] = {'G', 'C', 'C', 'O',  'L', '1', GC_T_U64, 0x34, 0x12, 0, 0, 0,
                           0,   0,   0,   0x40, 0,   0,   0,        0,    0,    0, 0};
    sha_hex(u64, sizeof u64, want);
    cr_assert_eq(gc_digest_column(&t, &cols[0], got), 0);
    cr_assert_str_eq(got, want);
}

Test(digest, negative_zero_and_every_bit_count)
{
    row r[2];
    rows2(r);
    gc_table t = {&desc, r, 2};
    char a[GC_DIGEST_HEX + 1], b[GC_DIGEST_HEX + 1];
    cr_assert_eq(gc_digest_column(&t, &cols[3], a), 0);
    r[1].radius = 0.0f; /* compares equal to -0.0 as a float, not as bits */
    cr_assert_eq(gc_digest_column(&t, &cols[3], b), 0);
    cr_assert_str_neq(a, b);
    /* an empty table still has a digest (of the tag alone), and differs by type */
    gc_table e = {&desc, r, 0};
    cr_assert_eq(gc_digest_column(&e, &cols[1], a), 0);
    cr_assert_eq(gc_digest_column(&e, &cols[2], b), 0);
    cr_assert_str_neq(a, b);
}

static void fill_report(gc_report *rep, row *r, size_t n)
{
    gc_report_init(rep);
    rep->selected[0] = 3;
    rep->selected_count = 1;
    gc_table t = {&desc, r, n};
    cr_assert_eq(gc_digest_tables(&t, 1, 3, &rep->digests, &rep->digest_count), 0);
    cr_assert_eq(rep->digest_count, GC_COUNTOF(cols));
}

Test(digest, a_moved_value_is_a_regression_of_that_field)
{
    row r[2];
    rows2(r);
    gc_report old, cur;
    fill_report(&old, r, 2);
    r[1].delta = 4; /* the count stays, the value moves */
    fill_report(&cur, r, 2);
    gc_digest_compare(&cur, old.digests, old.digest_count);
    gc_report_summarise(&cur);
    cr_assert_eq(cur.change_count, 1);
    cr_assert_str_eq(cur.changes[0].field, "test.row.delta");
    cr_assert_eq(cur.digests_changed, 1);
    cr_assert_eq(cur.exit_code, 1, "a digest change gates like a metric change");
    char line[1024];
    gc_report_format_change(&cur.changes[0], line, sizeof line);
    cr_assert(strstr(line, "level 3, test.row.delta: 2 rows, values changed (digest ") == line,
              "%s", line);
    gc_report_free(&cur);

    /* one row more: the row counts are told */
    row r3[3];
    memcpy(r3, r, sizeof r);
    r3[2] = r3[1];
    fill_report(&cur, r3, 3);
    gc_digest_compare(&cur, old.digests, old.digest_count);
    cr_assert_eq(cur.change_count, GC_COUNTOF(cols));
    gc_report_format_change(&cur.changes[1], line, sizeof line);
    cr_assert(strstr(line, ": 2 -> 3 rows"), "%s", line);
    gc_report_free(&cur);

    /* the same values: nothing; an empty old side: all unblessed */
    rows2(r);
    fill_report(&cur, r, 2);
    gc_digest_compare(&cur, old.digests, old.digest_count);
    cr_assert_eq(cur.change_count, 0);
    cr_assert_eq(cur.digests_unblessed, 0);
    gc_report_free(&cur);
    fill_report(&cur, r, 2);
    gc_digest_compare(&cur, NULL, 0);
    cr_assert_eq(cur.change_count, 0);
    cr_assert_eq(cur.digests_unblessed, GC_COUNTOF(cols));
    gc_report_free(&cur);

    /* a column gone from a level that ran */
    fill_report(&cur, r, 2);
    cur.digest_count--;
    gc_digest_compare(&cur, old.digests, old.digest_count);
    cr_assert_eq(cur.change_count, 1);
    cr_assert(cur.changes[0].new_null);
    gc_report_free(&cur);
    gc_report_free(&old);
}

Test(digest, baseline_and_json_round_trip)
{
    row r[2];
    rows2(r);
    gc_report rep;
    fill_report(&rep, r, 2);
    gc_report_summarise(&rep);
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/test-tmp/digest-baseline-%ld.yaml", GC_BINARY_DIR,
             (long)getpid());
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/test-tmp", GC_BINARY_DIR);
    mkdir(dir, 0777);
    cr_assert_eq(gc_baseline_write(path, &rep, NULL, err, sizeof err), 0, "%s", err);
    gc_baseline b;
    int found = 0;
    cr_assert_eq(gc_baseline_load(path, &b, &found, err, sizeof err), 0, "%s", err);
    cr_assert(found);
    cr_assert_eq(b.digest_count, rep.digest_count);
    for (size_t i = 0; i < b.digest_count; i++) {
        cr_assert_eq(b.digests[i].level, 3);
        cr_assert_str_eq(b.digests[i].field, rep.digests[i].field);
        cr_assert_str_eq(b.digests[i].digest, rep.digests[i].digest);
        cr_assert_eq(b.digests[i].rows, 2);
    }
    gc_baseline_free(&b);
    remove(path);

    gc_strbuf sb;
    gc_sb_init(&sb);
    cr_assert_eq(gc_report_json(&rep, &sb), 0);
    gc_report back;
    cr_assert_eq(gc_report_from_json(&back, sb.s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.digest_count, rep.digest_count);
    for (size_t i = 0; i < back.digest_count; i++)
        cr_assert_str_eq(back.digests[i].digest, rep.digests[i].digest);
    gc_sb_free(&sb);
    gc_report_free(&back);
    gc_report_free(&rep);
}

Test(digest, small_baseline_guards_every_decoded_column, .timeout = 600)
{
    setenv("GC_CACHE_DIR", GC_BINARY_DIR "/test-cache", 1);
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    o.scale = SY_SCALE_SMALL;
    o.no_frames = 1;
    o.level_count = 2;
    o.levels[0] = 0;
    o.levels[1] = 14;
    o.baseline = GC_SOURCE_DIR "/golden/metrics-small.yaml";
    gc_sweep_timings tm;
    o.timings = &tm;
    gc_report rep;
    char err[4096];
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    /* every table fingerprinted, and every one certified by the baseline's table digest (the
     * column digests below were taken from it, and still equal it one by one) */
    cr_assert_gt(tm.digest_tables, 0);
    cr_assert_eq(tm.digest_tables_reused, tm.digest_tables,
                 "golden/metrics-small.yaml lacks (or disagrees with) table digests");
    cr_assert_eq(rep.table_digest_count, tm.digest_tables);
    size_t ndesc = 0, ncol = 0;
    const gc_table_desc *const *d = gc_table_registry(&ndesc);
    for (size_t i = 0; i < ndesc; i++)
        ncol += d[i]->column_count;
    cr_assert_eq(rep.digest_count, 2 * ncol, "a digest per level x table x column");
    cr_assert_eq(rep.digests_unblessed, 0, "golden/metrics-small.yaml lacks column digests");
    cr_assert_eq(rep.digests_changed, 0);
    /* coverage: every column but file_ofs counted once, none guarded by nothing */
    size_t nofs = 0;
    for (size_t i = 0; i < ndesc; i++)
        for (size_t k = 0; k < d[i]->column_count; k++)
            nofs += strcmp(d[i]->columns[k].name, "file_ofs") == 0;
    const gc_rep_coverage *cv = &rep.coverage;
    cr_assert_eq(cv->columns, ncol - nofs);
    cr_assert_eq(cv->by_invariant + cv->by_metric_only + cv->digest_only + cv->unguarded,
                 cv->columns);
    cr_assert_eq(cv->unguarded, 0, "columns guarded by nothing against golden/metrics-small.yaml");
    cr_assert_gt(cv->by_invariant, 0);
    cr_assert_gt(cv->digest_only, 0);
    gc_report_free(&rep);
}

/* Without a baseline nothing holds the digests: every column no invariant or metric reads is
 * guarded by nothing, and the report says so. */
Test(digest, coverage_without_a_baseline_counts_the_unguarded, .timeout = 600)
{
    setenv("GC_CACHE_DIR", GC_BINARY_DIR "/test-cache", 1);
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    o.scale = SY_SCALE_SMALL;
    o.no_frames = 1;
    o.level_count = 1;
    o.levels[0] = 3;
    o.baseline = "";
    gc_report rep;
    char err[4096];
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    const gc_rep_coverage *cv = &rep.coverage;
    cr_assert_eq(cv->digest_only, 0);
    cr_assert_gt(cv->unguarded, 0);
    cr_assert_eq(cv->by_invariant + cv->by_metric_only + cv->unguarded, cv->columns);
    gc_report_free(&rep);
}

/* The edge corpus (legal extremes: a 1024-texel side, empty class and texture tables, every sky
 * variant) decodes, passes every gating invariant and matches its own blessed digests and frames
 * on all 27 levels. */
Test(digest, edge_corpus_passes_against_its_baseline, .timeout = 900)
{
    setenv("GC_CACHE_DIR", GC_BINARY_DIR "/test-cache", 1);
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    o.scale = SY_SCALE_EDGE;
    o.baseline = GC_SOURCE_DIR "/golden/metrics-edge.yaml";
    o.frames_golden = GC_SOURCE_DIR "/golden/frames-edge.yaml";
    gc_report rep;
    char err[4096];
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    cr_assert_eq(rep.digests_unblessed, 0, "golden/metrics-edge.yaml lacks column digests");
    cr_assert_eq(rep.digests_changed, 0);
    cr_assert_gt(rep.digest_count, 0);
    gc_report_free(&rep);
}

Test(digest, the_column_store_names_the_changed_rows)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/test-tmp/columns-%ld", GC_BINARY_DIR, (long)getpid());
    row r[2];
    rows2(r);
    gc_report old, cur;
    fill_report(&old, r, 2);
    gc_table t = {&desc, r, 2};
    cr_assert_eq(gc_column_store_put_tables(dir, &t, 1), 0);
    r[1].delta = 4;
    r[0].radius = 2.0f;
    fill_report(&cur, r, 2);
    gc_digest_compare(&cur, old.digests, old.digest_count);
    gc_report_summarise(&cur);
    cr_assert_eq(cur.change_count, 2);
    const gc_table *lt[1] = {&t};
    int ids[1] = {3};
    gc_column_store_attribute(dir, &cur, lt, ids, 1, 1);
    /* canonical order: test.row.delta, test.row.radius */
    cr_assert_eq(cur.changes[0].rows_changed, 1);
    cr_assert_str_eq(cur.changes[0].rows, "row 1: 3 -> 4");
    cr_assert_str_eq(cur.changes[1].rows, "row 0: 1.5 (0x3fc00000) -> 2 (0x40000000)");
    char line[1024];
    gc_report_format_change(&cur.changes[0], line, sizeof line);
    cr_assert_str_eq(line, "level 3, test.row.delta: 2 rows, 1 changed; row 1: 3 -> 4");

    /* diff: both sides from the store */
    cr_assert_eq(gc_column_store_put_tables(dir, &t, 1), 0);
    cur.changes[0].rows_changed = UINT64_MAX;
    cur.changes[0].rows[0] = '\0';
    gc_column_store_attribute(dir, &cur, NULL, NULL, 0, 0);
    cr_assert_str_eq(cur.changes[0].rows, "row 1: 3 -> 4");

    /* a snapshot whose bytes do not hash to its name is not used */
    char path[1200];
    snprintf(path, sizeof path, "%s/%.2s/%s.col", dir, cur.changes[0].old_digest,
             cur.changes[0].old_digest);
    FILE *f = fopen(path, "r+b");
    cr_assert(f);
    fseek(f, 8, SEEK_SET);
    fputc(0x55, f);
    fclose(f);
    cur.changes[0].rows_changed = UINT64_MAX;
    cur.changes[0].rows[0] = '\0';
    gc_column_store_attribute(dir, &cur, lt, ids, 1, 1);
    cr_assert_eq(cur.changes[0].rows_changed, UINT64_MAX);
    cr_assert_str_eq(cur.changes[0].rows, "");
    gc_report_free(&cur);
    gc_report_free(&old);
}

/* Coverage follows an invariant's chain of parent links: `packet.class.bsphere_w` from a
 * moby.vertex row reads moby.class.bsphere_w (two steps), `class.scale` from moby.packet reads
 * moby.class.scale (one step); a column no chain names stays unread. */
typedef struct cov_probe {
    int bsphere_w, scale, bsphere_x, vertex_offset;
} cov_probe;

static void cov_probe_each(const gc_coverage_column *c, void *ctx)
{
    cov_probe *p = ctx;
    const char *t = c->table->name, *n = c->column->name;
    int read = c->invariant_count > 0;
    if (strcmp(t, "moby.class") == 0 && strcmp(n, "bsphere_w") == 0)
        p->bsphere_w = read;
    if (strcmp(t, "moby.class") == 0 && strcmp(n, "scale") == 0)
        p->scale = read;
    if (strcmp(t, "moby.class") == 0 && strcmp(n, "bsphere_x") == 0)
        p->bsphere_x = read;
    if (strcmp(t, "moby.packet") == 0 && strcmp(n, "vertex_offset") == 0)
        p->vertex_offset = read;
}

Test(digest, coverage_follows_link_chains)
{
    size_t ndesc;
    const gc_table_desc *const *descs = gc_table_registry(&ndesc);
    const char *yaml = "invariants:\n"
                       "  - id: t.grandchild\n"
                       "    table: moby.vertex\n"
                       "    expect: centre_distance <= packet.class.bsphere_w\n"
                       "    why: two link steps\n"
                       "  - id: t.child\n"
                       "    table: moby.packet\n"
                       "    expect: class.scale > 0\n"
                       "    why: one link step\n";
    char err[4096] = "";
    gc_inv_set *set = gc_inv_load_string("t.yaml", yaml, descs, ndesc, err, sizeof err);
    cr_assert_not_null(set, "%s", err);
    cov_probe p = {0};
    gc_coverage cv;
    cr_assert_eq(gc_coverage_compute(set, NULL, 0, cov_probe_each, &p, &cv), 0);
    cr_assert(p.bsphere_w, "packet.class.bsphere_w from moby.vertex reads moby.class.bsphere_w");
    cr_assert(p.scale, "class.scale from moby.packet reads moby.class.scale");
    cr_assert_not(p.bsphere_x, "moby.class.bsphere_x is read by nothing");
    cr_assert_not(p.vertex_offset, "moby.packet.vertex_offset is read by nothing");
    gc_inv_free(set);
}

/* A row with no padding and no string: every byte is a column's value. */
typedef struct tight {
    uint32_t a;
    float b;
    uint16_t c;
    uint8_t d, e;
} tight;
static const gc_column tight_cols[] = {
    GC_COL(tight, a, GC_T_U32, 0, "count", ""), GC_COL(tight, b, GC_T_F32, 0, "", ""),
    GC_COL(tight, c, GC_T_U16, 0, "", ""),      GC_COL(tight, d, GC_T_U8, 0, "", ""),
    GC_COL(tight, e, GC_T_BOOL, 0, "", ""),
};
static const gc_table_desc tight_desc = {"test.tight",           "rows", sizeof(tight), tight_cols,
                                         GC_COUNTOF(tight_cols), NULL,   NULL,          NULL};

static void tight_rows(tight *r, size_t n)
{
    memset(r, 0, n * sizeof *r);
    for (size_t i = 0; i < n; i++)
        r[i] = (tight){(uint32_t)(i * 7919u), (float)i * 0.5f, (uint16_t)(i ^ 0x55), (uint8_t)i,
                       (uint8_t)(i & 1)};
}

/* Column digests of the tables and the table digests against `base` (the sorted column and
 * table digests of an earlier run, or none): with fps, through gc_digest_tables_against_fp and
 * the fingerprints the caller fed (the sweep feeds them from the invariants' table passes),
 * else through gc_digest_tables_against, every table hashed the full way. Returns *reused. */
static size_t against_fp(const gc_table *t, size_t nt, const gc_report *base,
                         gc_digest_fp *const *fps, gc_report *out)
{
    gc_report_init(out);
    out->selected[0] = 3;
    out->selected_count = 1;
    gc_rep_digest *bc = base ? gc_digest_sorted_copy(base->digests, base->digest_count) : NULL;
    gc_rep_digest *bt =
        base ? gc_digest_sorted_copy(base->table_digests, base->table_digest_count) : NULL;
    const size_t nbc = bc ? base->digest_count : 0, nbt = bt ? base->table_digest_count : 0;
    size_t reused = 0;
    int rc = fps ? gc_digest_tables_against_fp(t, nt, 3, bc, nbc, bt, nbt, fps, &out->digests,
                                               &out->digest_count, &out->table_digests,
                                               &out->table_digest_count, &reused)
                 : gc_digest_tables_against(t, nt, 3, bc, nbc, bt, nbt, &out->digests,
                                            &out->digest_count, &out->table_digests,
                                            &out->table_digest_count, &reused);
    cr_assert_eq(rc, 0);
    free(bc);
    free(bt);
    return reused;
}

static size_t against(const gc_table *t, size_t nt, const gc_report *base, gc_report *out)
{
    return against_fp(t, nt, base, NULL, out);
}

Test(digest, table_digests_take_the_baselines_columns_only_when_the_rows_are_the_same)
{
    tight tr[300];
    tight_rows(tr, 300);
    row r[2];
    rows2(r);
    gc_table t[2] = {{&tight_desc, tr, 300}, {&desc, r, 2}};
    gc_report full, first, second, moved;
    gc_report_init(&full);
    cr_assert_eq(gc_digest_tables(t, 2, 3, &full.digests, &full.digest_count), 0);
    /* no baseline: every column hashed, and each table has a table digest */
    cr_assert_eq(against(t, 2, NULL, &first), 0);
    cr_assert_eq(first.digest_count, full.digest_count);
    for (size_t i = 0; i < full.digest_count; i++) {
        cr_assert_str_eq(first.digests[i].field, full.digests[i].field);
        cr_assert_str_eq(first.digests[i].digest, full.digests[i].digest);
    }
    cr_assert_eq(first.table_digest_count, 2);
    cr_assert_str_eq(first.table_digests[0].field, "test.tight");
    cr_assert_eq(first.table_digests[0].rows, 300);
    cr_assert_str_eq(first.table_digests[1].field, "test.row");

    /* the same rows against it: the tight table's columns come from the baseline, and are the
     * digests the full way gives */
    cr_assert_eq(against(t, 2, &first, &second), 2);
    for (size_t i = 0; i < full.digest_count; i++)
        cr_assert_str_eq(second.digests[i].digest, full.digests[i].digest);
    cr_assert_str_eq(second.table_digests[0].digest, first.table_digests[0].digest);

    /* what a row's padding, or a string's bytes after its NUL, hold decides nothing: only the
     * values do (test.row has padding after count, flag and name) */
    {
        gc_report pad;
        unsigned char *b0 = (unsigned char *)&r[0];
        b0[offsetof(row, count) + 2] ^= 0xA5;
        r[1].name[5] = 'z';
        cr_assert_eq(against(t, 2, &first, &pad), 2);
        cr_assert_str_eq(pad.table_digests[1].digest, first.table_digests[1].digest);
        gc_report_free(&pad);
        b0[offsetof(row, count) + 2] ^= 0xA5;
        r[1].name[5] = 0;
        /* a string value's own byte does */
        r[0].name[1] = 'c';
        cr_assert_eq(against(t, 2, &first, &pad), 1);
        gc_digest_compare(&pad, first.digests, first.digest_count);
        cr_assert_eq(pad.change_count, 1);
        cr_assert_str_eq(pad.changes[0].field, "test.row.name");
        gc_report_free(&pad);
        r[0].name[1] = 'b';
    }

    /* one value moved: that table is hashed again, and exactly the moved field changes */
    tr[123].c ^= 1;
    cr_assert_eq(against(t, 2, &first, &moved), 1);
    gc_digest_compare(&moved, first.digests, first.digest_count);
    cr_assert_eq(moved.change_count, 1);
    cr_assert_str_eq(moved.changes[0].field, "test.tight.c");
    cr_assert_str_neq(moved.table_digests[0].digest, first.table_digests[0].digest);
    gc_report_free(&moved);
    tr[123].c ^= 1;

    /* a column digest edited in the baseline no longer matches its table digest: hashed again,
     * and the edit shows as a change of that field */
    for (size_t i = 0; i < first.digest_count; i++)
        if (strcmp(first.digests[i].field, "test.tight.b") == 0)
            first.digests[i].digest[0] = first.digests[i].digest[0] == '0' ? '1' : '0';
    cr_assert_eq(against(t, 2, &first, &moved), 1);
    gc_digest_compare(&moved, first.digests, first.digest_count);
    cr_assert_eq(moved.change_count, 1);
    cr_assert_str_eq(moved.changes[0].field, "test.tight.b");
    gc_report_free(&moved);

    /* one row fewer: hashed again, and every column's row count moves */
    t[0].count = 299;
    cr_assert_eq(against(t, 2, &second, &moved), 1);
    gc_digest_compare(&moved, second.digests, second.digest_count);
    cr_assert_eq(moved.change_count, GC_COUNTOF(tight_cols));
    gc_report_free(&moved);
    gc_report_free(&full);
    gc_report_free(&first);
    gc_report_free(&second);
}

static void same_digests(const gc_report *a, const gc_report *b, const char *what)
{
    cr_assert_eq(a->digest_count, b->digest_count, "%s", what);
    for (size_t i = 0; i < a->digest_count; i++) {
        cr_assert_str_eq(a->digests[i].field, b->digests[i].field, "%s", what);
        cr_assert_str_eq(a->digests[i].digest, b->digests[i].digest, "%s", what);
    }
    cr_assert_eq(a->table_digest_count, b->table_digest_count, "%s", what);
    for (size_t i = 0; i < a->table_digest_count; i++)
        cr_assert_str_eq(a->table_digests[i].digest, b->table_digests[i].digest, "%s", what);
}

/* A fingerprint fed a run of rows at a time is the one computed in one go, however the rows
 * are cut (one row, a few, the invariants' 256-row blocks, around the masked copy's batch
 * of FP_BATCH_BYTES / row size rows, all at once): the baseline's table digests match it, so
 * every table is taken from the baseline. A fingerprint fed part of its table, rows out of
 * order or past the end, or made for another table, is not used: the digests compute it
 * from the rows, and the outputs are the same. */
Test(digest, a_fingerprint_fed_in_runs_is_the_one_computed_in_one_go)
{
    enum { NT = 2000, NR = 3001 };
    tight *tr = malloc(NT * sizeof *tr);
    row *r = malloc(NR * sizeof *r);
    cr_assert(tr && r);
    tight_rows(tr, NT);
    memset(r, 0x5A, NR * sizeof *r); /* padding and the bytes after each NUL: not values */
    for (size_t i = 0; i < NR; i++) {
        r[i].file_ofs = 0x10 * i;
        r[i].count = (uint16_t)(i * 31);
        r[i].delta = (int32_t)i - 1500;
        r[i].radius = (float)i / 3.0f;
        r[i].flag = (uint8_t)(i % 3 == 0);
        snprintf(r[i].name, sizeof r[i].name, "n%zu", i % 97);
    }
    gc_table t[2] = {{&tight_desc, tr, NT}, {&desc, r, NR}};
    gc_report first;
    cr_assert_eq(against(t, 2, NULL, &first), 0);
    const size_t cuts[] = {1, 3, 255, 256, 511, 512, 513, 682, 683, 1000, NR};
    for (size_t c = 0; c < GC_COUNTOF(cuts); c++) {
        gc_digest_fp *fps[2];
        for (size_t k = 0; k < 2; k++) {
            fps[k] = gc_digest_fp_new(&t[k]);
            cr_assert_not_null(fps[k]);
            for (size_t r0 = 0; r0 < t[k].count; r0 += cuts[c])
                gc_digest_fp_rows(fps[k], r0,
                                  t[k].count - r0 < cuts[c] ? t[k].count - r0 : cuts[c]);
            unsigned char fp[16];
            cr_assert_eq(gc_digest_fp_final(fps[k], fp), 0, "runs of %zu", cuts[c]);
        }
        gc_report got;
        cr_assert_eq(against_fp(t, 2, &first, fps, &got), 2, "runs of %zu", cuts[c]);
        same_digests(&got, &first, "fed in runs");
        gc_report_free(&got);
        for (size_t k = 0; k < 2; k++)
            gc_digest_fp_free(fps[k]);
    }
    /* part of the table, a gap, rows past the end, another table's: not used */
    for (int bad = 0; bad < 4; bad++) {
        gc_digest_fp *fps[2] = {gc_digest_fp_new(&t[0]), gc_digest_fp_new(&t[1])};
        cr_assert(fps[0] && fps[1]);
        if (bad == 0) {
            gc_digest_fp_rows(fps[1], 0, NR - 1);
        } else if (bad == 1) {
            gc_digest_fp_rows(fps[1], 0, 100);
            gc_digest_fp_rows(fps[1], 101, NR - 101);
        } else if (bad == 2) {
            gc_digest_fp_rows(fps[1], 0, NR - 10);
            gc_digest_fp_rows(fps[1], NR - 10, 11);
        } else {
            gc_digest_fp_rows(fps[0], 0, NT);
            gc_digest_fp *x = fps[0];
            fps[0] = fps[1];
            fps[1] = x; /* each made for the other table */
            gc_digest_fp_rows(fps[0], 0, NR);
        }
        unsigned char fp[16];
        if (bad < 3)
            cr_assert_neq(gc_digest_fp_final(fps[1], fp), 0, "case %d", bad);
        gc_report got;
        cr_assert_eq(against_fp(t, 2, &first, fps, &got), 2, "case %d", bad);
        same_digests(&got, &first, "a fingerprint not used");
        gc_report_free(&got);
        gc_digest_fp_free(fps[0]);
        gc_digest_fp_free(fps[1]);
    }
    /* and one value moved after the rows were fed is seen only when the fingerprint is
     * computed from the rows: the sweep never writes a table between its pass and its
     * digests, which is why it may feed them */
    {
        gc_digest_fp *fps[2] = {gc_digest_fp_new(&t[0]), NULL};
        gc_digest_fp_rows(fps[0], 0, NT);
        tr[5].c ^= 1;
        gc_report got;
        cr_assert_eq(against_fp(t, 2, &first, fps, &got), 2);
        gc_report_free(&got);
        cr_assert_eq(against(t, 2, &first, &got), 1);
        gc_report_free(&got);
        tr[5].c ^= 1;
        gc_digest_fp_free(fps[0]);
    }
    gc_report_free(&first);
    free(tr);
    free(r);
}

/* Rows whose padding is a few words (no string): a run whose padding words are all zero is
 * hashed where it lies, any other through the masked copy. Three layouts: padding in the
 * middle (one word), in the middle and in the row's last four bytes (two words, the second
 * the row's last eight bytes, which start inside a column), three, and more padding words than
 * are checked (always copied). */
typedef struct padmid {
    uint64_t a;
    uint8_t b; /* 7 bytes of padding */
    uint64_t c;
    uint32_t d;
    float e; /* no padding after: 32 bytes */
} padmid;
typedef struct padend {
    uint32_t a[2];
    uint8_t x; /* 3 bytes of padding */
    uint32_t y[9];
    uint8_t b; /* 3 bytes of padding: 52 bytes */
} padend;
typedef struct padthree {
    uint8_t a;
    uint64_t b;
    uint8_t c;
    uint64_t d;
    uint16_t e;
    uint64_t f; /* 3 padded words: 48 bytes */
} padthree;
typedef struct padmany {
    uint8_t a;
    uint64_t b;
    uint8_t c;
    uint64_t d;
    uint8_t e;
    uint64_t f;
    uint8_t g;
    uint64_t h;
    uint8_t i;
    uint64_t j; /* 5 padded words: 80 bytes */
} padmany;
static const gc_column padmid_cols[] = {
    GC_COL(padmid, a, GC_T_U64, 0, "", ""), GC_COL(padmid, b, GC_T_U8, 0, "", ""),
    GC_COL(padmid, c, GC_T_S64, 0, "", ""), GC_COL(padmid, d, GC_T_U32, 0, "", ""),
    GC_COL(padmid, e, GC_T_F32, 0, "", "")};
static const gc_column padend_cols[] = {
    GC_COL(padend, a[0], GC_T_U32, 0, "", ""), GC_COL(padend, a[1], GC_T_U32, 0, "", ""),
    GC_COL(padend, x, GC_T_U8, 0, "", ""),     GC_COL(padend, y[0], GC_T_U32, 0, "", ""),
    GC_COL(padend, y[1], GC_T_U32, 0, "", ""), GC_COL(padend, y[2], GC_T_U32, 0, "", ""),
    GC_COL(padend, y[3], GC_T_U32, 0, "", ""), GC_COL(padend, y[4], GC_T_U32, 0, "", ""),
    GC_COL(padend, y[5], GC_T_U32, 0, "", ""), GC_COL(padend, y[6], GC_T_U32, 0, "", ""),
    GC_COL(padend, y[7], GC_T_U32, 0, "", ""), GC_COL(padend, y[8], GC_T_U32, 0, "", ""),
    GC_COL(padend, b, GC_T_U8, 0, "", "")};
static const gc_column padthree_cols[] = {
    GC_COL(padthree, a, GC_T_U8, 0, "", ""),  GC_COL(padthree, b, GC_T_U64, 0, "", ""),
    GC_COL(padthree, c, GC_T_U8, 0, "", ""),  GC_COL(padthree, d, GC_T_U64, 0, "", ""),
    GC_COL(padthree, e, GC_T_U16, 0, "", ""), GC_COL(padthree, f, GC_T_U64, 0, "", "")};
static const gc_column padmany_cols[] = {
    GC_COL(padmany, a, GC_T_U8, 0, "", ""), GC_COL(padmany, b, GC_T_U64, 0, "", ""),
    GC_COL(padmany, c, GC_T_U8, 0, "", ""), GC_COL(padmany, d, GC_T_U64, 0, "", ""),
    GC_COL(padmany, e, GC_T_U8, 0, "", ""), GC_COL(padmany, f, GC_T_U64, 0, "", ""),
    GC_COL(padmany, g, GC_T_U8, 0, "", ""), GC_COL(padmany, h, GC_T_U64, 0, "", ""),
    GC_COL(padmany, i, GC_T_U8, 0, "", ""), GC_COL(padmany, j, GC_T_U64, 0, "", "")};
static const gc_table_desc pad_descs[] = {
    {"test.padmid", "rows", sizeof(padmid), padmid_cols, GC_COUNTOF(padmid_cols), NULL, NULL, NULL},
    {"test.padend", "rows", sizeof(padend), padend_cols, GC_COUNTOF(padend_cols), NULL, NULL, NULL},
    {"test.padthree", "rows", sizeof(padthree), padthree_cols, GC_COUNTOF(padthree_cols), NULL,
     NULL, NULL},
    {"test.padmany", "rows", sizeof(padmany), padmany_cols, GC_COUNTOF(padmany_cols), NULL, NULL,
     NULL}};

/* t's fingerprint fed in runs of `cut` rows */
static void fp_in_runs(const gc_table *t, size_t cut, unsigned char fp[16])
{
    gc_digest_fp *f = gc_digest_fp_new(t);
    cr_assert_not_null(f);
    for (size_t r0 = 0; r0 < t->count; r0 += cut)
        gc_digest_fp_rows(f, r0, t->count - r0 < cut ? t->count - r0 : cut);
    cr_assert_eq(gc_digest_fp_final(f, fp), 0);
    gc_digest_fp_free(f);
}

Test(digest, rows_with_zero_padding_hash_as_their_masked_copy)
{
    enum { NR = 1000 };
    for (size_t l = 0; l < GC_COUNTOF(pad_descs); l++) {
        const gc_table_desc *d = &pad_descs[l];
        const size_t rs = d->row_size;
        unsigned char *rows = calloc(NR, rs), *valued = malloc(rs);
        cr_assert(rows && valued);
        /* which bytes are values: the columns' */
        memset(valued, 0, rs);
        for (size_t k = 0; k < d->column_count; k++)
            memset(valued + d->columns[k].offset, 1, d->columns[k].size);
        for (size_t i = 0; i < NR * rs; i++)
            if (valued[i % rs])
                rows[i] = (unsigned char)(i * 131 + (i >> 8));
        gc_table t = {d, rows, NR};
        const size_t cuts[] = {NR, 256, 7, 1};
        unsigned char zero[16], fp[16];
        fp_in_runs(&t, NR, zero);
        /* every padding byte of every row set: every run copied */
        for (size_t i = 0; i < NR * rs; i++)
            if (!valued[i % rs])
                rows[i] = 0xA5;
        for (size_t c = 0; c < GC_COUNTOF(cuts); c++) {
            fp_in_runs(&t, cuts[c], fp);
            cr_assert_eq(memcmp(fp, zero, 16), 0, "%s, all padding set, runs of %zu", d->name,
                         cuts[c]);
        }
        for (size_t i = 0; i < NR * rs; i++)
            if (!valued[i % rs])
                rows[i] = 0;
        /* one padding byte set at a time (in the first, a middle and the last row), whatever
         * the runs: the same fingerprint as with none */
        const size_t at[] = {0, 517, NR - 1};
        for (size_t b = 0; b < rs; b++) {
            if (valued[b])
                continue;
            for (size_t a = 0; a < GC_COUNTOF(at); a++) {
                rows[at[a] * rs + b] = 0x80;
                for (size_t c = 0; c < GC_COUNTOF(cuts); c++) {
                    fp_in_runs(&t, cuts[c], fp);
                    cr_assert_eq(memcmp(fp, zero, 16), 0,
                                 "%s, padding byte %zu of row %zu, runs of %zu", d->name, b, at[a],
                                 cuts[c]);
                }
                rows[at[a] * rs + b] = 0;
            }
        }
        /* and a value byte is seen, in rows hashed where they lie */
        for (size_t b = 0; b < rs; b++) {
            if (!valued[b])
                continue;
            rows[517 * rs + b] ^= 1;
            for (size_t c = 0; c < GC_COUNTOF(cuts); c++) {
                fp_in_runs(&t, cuts[c], fp);
                cr_assert_neq(memcmp(fp, zero, 16), 0, "%s, value byte %zu, runs of %zu", d->name,
                              b, cuts[c]);
            }
            rows[517 * rs + b] ^= 1;
        }
        fp_in_runs(&t, 256, fp);
        cr_assert_eq(memcmp(fp, zero, 16), 0, "%s", d->name);
        free(rows);
        free(valued);
    }
}

/* The baseline keeps the table digests across a write and a load. */
Test(digest, table_digests_round_trip_through_the_baseline)
{
    tight tr[40];
    tight_rows(tr, 40);
    gc_table t = {&tight_desc, tr, 40};
    gc_report rep;
    against(&t, 1, NULL, &rep);
    char path[1024], dir[1024], err[512];
    snprintf(dir, sizeof dir, "%s/test-tmp", GC_BINARY_DIR);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/test-tmp/table-digests-%ld.yaml", GC_BINARY_DIR,
             (long)getpid());
    cr_assert_eq(gc_baseline_write(path, &rep, NULL, err, sizeof err), 0, "%s", err);
    gc_baseline b;
    int found = 0;
    cr_assert_eq(gc_baseline_load(path, &b, &found, err, sizeof err), 0, "%s", err);
    cr_assert_eq(b.table_digest_count, 1);
    cr_assert_str_eq(b.table_digests[0].field, "test.tight");
    cr_assert_eq(b.table_digests[0].level, 3);
    cr_assert_eq(b.table_digests[0].rows, 40);
    cr_assert_str_eq(b.table_digests[0].digest, rep.table_digests[0].digest);
    cr_assert_eq(b.digest_count, GC_COUNTOF(tight_cols));
    gc_baseline_free(&b);
    remove(path);
    gc_report_free(&rep);
}

/* ---- the streaming baseline reader against the tree reader ---- */

/* b == a, every field (metric values bit for bit) */
static void expect_same_baseline(const gc_baseline *a, const gc_baseline *b, const char *what)
{
    cr_assert_str_eq(a->corpus_key, b->corpus_key, "%s", what);
    cr_assert_str_eq(a->corpus_id, b->corpus_id, "%s", what);
    cr_assert_eq(a->count, b->count, "%s", what);
    for (size_t i = 0; i < a->count; i++) {
        cr_assert_eq(a->metrics[i].level, b->metrics[i].level, "%s", what);
        cr_assert_str_eq(a->metrics[i].name, b->metrics[i].name, "%s", what);
        cr_assert_eq(a->metrics[i].is_null, b->metrics[i].is_null, "%s", what);
        cr_assert(memcmp(&a->metrics[i].value, &b->metrics[i].value, sizeof(double)) == 0, "%s",
                  what);
    }
    const gc_rep_digest *da[2] = {a->digests, a->table_digests};
    const gc_rep_digest *db[2] = {b->digests, b->table_digests};
    const size_t na[2] = {a->digest_count, a->table_digest_count};
    const size_t nb[2] = {b->digest_count, b->table_digest_count};
    for (int s = 0; s < 2; s++) {
        cr_assert_eq(na[s], nb[s], "%s", what);
        for (size_t i = 0; i < na[s]; i++) {
            cr_assert_eq(da[s][i].level, db[s][i].level, "%s", what);
            cr_assert_str_eq(da[s][i].field, db[s][i].field, "%s", what);
            cr_assert_eq(da[s][i].rows, db[s][i].rows, "%s", what);
            cr_assert_str_eq(da[s][i].digest, db[s][i].digest, "%s", what);
        }
    }
}

/* Both readers on path: the same result, or the same error */
static void both_readers(const char *path, const char *what)
{
    gc_baseline a, b;
    int fa = -1, fb = -1;
    char ea[512] = "", eb[512] = "";
    int ra = gc_baseline_load(path, &a, &fa, ea, sizeof ea);
    int rb = gc_baseline_load_tree(path, &b, &fb, eb, sizeof eb);
    cr_assert_eq(ra, rb, "%s: %s | %s", what, ea, eb);
    cr_assert_eq(fa, fb, "%s", what);
    if (ra == 0)
        expect_same_baseline(&a, &b, what);
    else
        cr_assert_str_eq(ea, eb, "%s", what);
    gc_baseline_free(&a);
    gc_baseline_free(&b);
}

Test(digest, the_streaming_baseline_reader_reads_the_goldens_as_the_tree_reader)
{
    const char *names[] = {"metrics.yaml", "metrics-small.yaml", "metrics-edge.yaml"};
    for (size_t i = 0; i < GC_COUNTOF(names); i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/golden/%s", GC_SOURCE_DIR, names[i]);
        both_readers(path, names[i]);
        gc_baseline b;
        int found = 0;
        char err[512];
        cr_assert_eq(gc_baseline_load(path, &b, &found, err, sizeof err), 0, "%s", err);
        cr_assert(found && b.count > 1000 && b.digest_count > 10000 && b.table_digest_count > 1000,
                  "%s: %zu metrics, %zu digests", names[i], b.count, b.digest_count);
        gc_baseline_free(&b);
    }
}

Test(digest, the_streaming_baseline_reader_agrees_on_odd_and_broken_files)
{
    static const char *const digest_line = "0123456789abcdef0123456789abcdef";
    char d[64], dbig[80];
    snprintf(d, sizeof d, "12 %s", digest_line);
    snprintf(dbig, sizeof dbig, "18446744073709551616 %s", digest_line); /* 2^64 */
    char texts[24][1024];
    int n = 0;
#define ADD(...) snprintf(texts[n++], sizeof texts[0], __VA_ARGS__)
    /* read by the stream reader */
    ADD("format: 2\ncorpus: c\ncorpus_id: abc\nlevels:\n  \"0\":\n    a.b: 1\n    c: null\n"
        "    e: ~\n    f: -2.5e3\n  corpus:\n    g: 7\ndigests:\n  \"0\":\n    t.x: %s\n",
        d);
    ADD("levels: {}\n");
    ADD("levels:\n  \"1\": {x: 1, 'y': \"2\"}\nextra: [1, {a: b}, [c]]\ntable_digests:\n  \"1\":\n"
        "    t: %s\n",
        d);
    ADD("# comment\nlevels:\n  \"3\":\n    x: 0x10\n    y: inf\n    z: nan\n...\n---\nnot: read\n");
    ADD("corpus: first\nlevels:\n  \"0\":\n    x: 1\ncorpus: second\n");
    /* read by the tree reader (the stream reader gives up), or refused by both */
    ADD("anchors:\n  v: &v 5\nlevels:\n  \"0\":\n    x: *v\n");
    ADD("levels:\n  \"0\":\n    x: 1\nlevels:\n  \"1\":\n    y: 2\n");
    ADD("levels:\n  \"0\":\n    x: 1\ndigests:\n  \"0\":\n    t.x:   12   %s\n", digest_line);
    ADD("levels:\n  \"0\":\n    x: 1\ndigests:\n  \"0\":\n    t.x: +12 %s\n", digest_line);
    ADD("levels:\n  \"0\":\n    x: 1\ndigests:\n  \"0\":\n    t.x: %s\n", dbig);
    ADD("levels:\n  \"0\":\n    x: 1\ndigests:\n  \"0\":\n    t.x: 12 %sff\n", digest_line);
    ADD("levels:\n  \"0\":\n    x: 1\ndigests:\n  \"0\":\n    t.x: 12 0123ABCDEF\n");
    ADD("levels:\n  \"0\":\n    x: abc\n");
    ADD("levels:\n  \"0\":\n    x:\n");
    ADD("levels:\n  \"0\": [1, 2]\n");
    ADD("levels: 5\n");
    ADD("corpus: c\n");
    ADD("- a\n- b\n");
    ADD("%s", "");
    ADD("levels:\n  \"0\":\n    x: [1\n");
    ADD("levels:\n  \"0\":\n    {a: 1}: 2\n");
    ADD("corpus: [a]\nlevels: {}\n");
    ADD("levels:\n  \"0\":\n    x: 1\ndigests: [1]\n");
#undef ADD
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/test-tmp", GC_BINARY_DIR);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/odd-baseline-%ld.yaml", dir, (long)getpid());
    for (int i = 0; i < n; i++) {
        FILE *f = fopen(path, "wb");
        cr_assert(f);
        fputs(texts[i], f);
        fclose(f);
        both_readers(path, texts[i]);
    }
    remove(path);
    /* and the first five are the stream reader's own: what they hold, by hand */
    FILE *f = fopen(path, "wb");
    fputs(texts[0], f);
    fclose(f);
    gc_baseline b;
    int found = 0;
    char err[256];
    cr_assert_eq(gc_baseline_load(path, &b, &found, err, sizeof err), 0, "%s", err);
    cr_assert_eq(b.count, 5);
    cr_assert_str_eq(b.corpus_key, "c");
    cr_assert_str_eq(b.corpus_id, "abc");
    cr_assert(b.metrics[1].is_null && b.metrics[2].is_null);
    cr_assert_eq(b.metrics[3].value, -2500.0);
    cr_assert_eq(b.metrics[4].level, GC_LEVEL_CORPUS);
    cr_assert_eq(b.digest_count, 1);
    cr_assert_eq(b.digests[0].rows, 12);
    gc_baseline_free(&b);
    remove(path);
}

/* ---- the line reader (gc_baseline_load's first) against the tree reader ---- */

/* The line reader on path: when it takes the file, the tree reader must read the same;
 * returns what the line reader said */
static int lines_agree(const char *path, const char *what)
{
    gc_baseline a, b;
    int r = gc_baseline_load_lines(path, &a);
    cr_assert(r == 0 || r == 1, "%s: %d", what, r);
    if (r == 1) {
        int found = 0;
        char err[512] = "";
        cr_assert_eq(gc_baseline_load_tree(path, &b, &found, err, sizeof err), 0,
                     "%s: the line reader took a file the tree reader refuses: %s", what, err);
        cr_assert(found);
        expect_same_baseline(&a, &b, what);
        gc_baseline_free(&b);
    } else {
        cr_assert(a.count == 0 && a.digest_count == 0 && a.metrics == NULL, "%s", what);
    }
    gc_baseline_free(&a);
    return r;
}

/* The goldens are what it is for: it must take them whole (else the sweep pays libyaml). */
Test(digest, the_line_reader_reads_the_goldens_as_the_tree_reader)
{
    const char *names[] = {"metrics.yaml", "metrics-small.yaml", "metrics-edge.yaml"};
    for (size_t i = 0; i < GC_COUNTOF(names); i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/golden/%s", GC_SOURCE_DIR, names[i]);
        cr_assert_eq(lines_agree(path, names[i]), 1, "%s: the line reader gave up", names[i]);
    }
}

static void write_text(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(text, 1, n, f), n);
    fclose(f);
}

/* Thousands of random edits of a baseline, with the bytes YAML gives meaning to: whatever
 * the line reader takes, the tree reader reads the same (a continued scalar, a key left
 * null, an inline comment, a quote, an indicator, an indent it does not know would each
 * read differently); and it takes a fair share of them (digits and letters changed). */
Test(digest, the_line_reader_takes_only_what_the_tree_reader_reads_the_same)
{
    static const char base[] =
        "# comment\nformat: 2\ncorpus: synthetic-retail-seed1\ncorpus_id: 4d0355a05c\n"
        "levels:\n  \"0\":\n    classes.moby: 238\n    collision.cells: 12264\n"
        "    frame.mean: 0.33333333333333331\n    f: -2.5e-3\n    n: null\n    t: ~\n"
        "  \"12\":\n    a_b: 7\n    big: 1.2e+300\n  corpus:\n    g: 7\n"
        "# Per level x table x column\ndigests:\n  \"0\":\n"
        "    collision.cell.x: 12264 4b0f43d400e7af0353e3b7b09f91acd0\n"
        "    tie.vertex.s: 8262 2c28de7334571ac9c1e2dd996e20f691\n  \"3\":\n"
        "    t.y: 0 0123456789abcdef0123456789abcdef\n"
        "table_digests:\n  \"0\":\n    collision.cell: 12264 5f61641664b090dfc3ab4a39b35dbbcb\n";
    /* single bytes, and the pieces YAML reads as structure: an indent, a line of a
     * continued scalar, a comment after a value, an indicator and its space */
    static const char *const pieces[] = {
        " ",          "\n",          ":",         "#",          "\"",        "'",        "-",
        "?",          ".",           "~",         "+",          "&",         "*",        "!",
        "|",          ">",           "{",         "}",          "[",         "]",        ",",
        "%",          "@",           "`",         "\t",         "\r",        "0",        "7",
        "9",          "a",           "e",         "f",          "n",         "x",        "_",
        "  ",         "\n  ",        "\n    ",    "\n      ",   "\n      x", "\n  x: 1", ": ",
        " #",         " # c",        "- ",        "? ",         "\n- a",     "\n---\n",  "\n...\n",
        "  \"9\":\n", "\n  corpus:", "\nlevels:", "\ndigests:", "null",      "1e5",      "\xc3\xa9",
        "\"0\"",
    };
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/test-tmp", GC_BINARY_DIR);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/lines-baseline-%ld.yaml", dir, (long)getpid());
    write_text(path, base, sizeof base - 1);
    cr_assert_eq(lines_agree(path, "the unedited text"), 1);
    /* edits the random ones reach rarely: each read the same, or given up */
    static const char *const lines[] = {
        "corpus: a #b\nlevels:\n  \"0\":\n    x: 1\n",
        "corpus: a b\nlevels:\n  \"0\":\n    x: 1\n",
        "corpus: a\n  b\nlevels:\n  \"0\":\n    x: 1\n",
        "corpus: a\n  \"0\":\nlevels:\n  \"0\":\n    x: 1\n",
        "levels:\n  \"0\":\n    x: 1 # c\n",
        "levels:\n  \"0\":\n    x: 1\n      2\n",
        "levels:\n  \"0\":\n    x: 1\n\n      2\n",
        "levels:\n  \"0\":\n    x: 1\n# c\n    y: 2\n",
        "levels:\n  \"0\":\n  \"1\":\n    x: 1\n",
        "levels:\n  \"0\":\n    x: -\n",
        "levels:\n  \"0\":\n    x: 1\n  \"0\":\n    x: 2\n",
        "levels:\n  \"0\":\n    x: 1\nformat:\n",
        "levels:\n  \"0\":\n    x: 1\ncorpus: \n",
        "levels:\n  \"0\":\n    x: 1\ndigests:\n",
        "levels:\n  \"0\":\n    x: 1",
        "levels:\n  \"0\":\n    x: 1\n  corpus:\n    y: 0x1p3\n",
        "levels:\n  \"0000000001\":\n    x: 1\n",
        "levels:\n  \"0\":\n    x:1\n",
        "levels:\n  \"0\":\n    x:  1\n",
    };
    for (size_t i = 0; i < GC_COUNTOF(lines); i++) {
        write_text(path, lines[i], strlen(lines[i]));
        lines_agree(path, lines[i]);
    }
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int taken = 0, given_up = 0;
    char text[sizeof base + 64];
    for (int round = 0; round < 5000; round++) {
        size_t n = sizeof base - 1;
        memcpy(text, base, n);
        const int edits = 1 + round % 3;
        for (int e = 0; e < edits; e++) {
            x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
            const uint64_t r = x * 0x2545f4914f6cdd1dull;
            size_t at = (size_t)(r >> 8) % n;
            while ((r >> 62) == 3 && at > 0 && text[at - 1] != '\n') /* 1 in 4: a line's start */
                at--;
            const char *piece = pieces[(r >> 40) % GC_COUNTOF(pieces)];
            const size_t len = strlen(piece);
            switch (r % 3) {
            case 0: /* replace a byte */
                if (n + len < sizeof text) {
                    memmove(text + at + len, text + at + 1, n - at - 1);
                    memcpy(text + at, piece, len);
                    n += len - 1;
                }
                break;
            case 1: /* insert */
                if (n + len < sizeof text) {
                    memmove(text + at + len, text + at, n - at);
                    memcpy(text + at, piece, len);
                    n += len;
                }
                break;
            default: /* delete a byte */
                memmove(text + at, text + at + 1, n - at - 1);
                n--;
            }
        }
        write_text(path, text, n);
        char what[64];
        snprintf(what, sizeof what, "edit round %d", round);
        if (lines_agree(path, what) == 1)
            taken++;
        else
            given_up++;
    }
    remove(path);
    cr_assert(taken > 300 && given_up > 300, "taken %d, given up %d", taken, given_up);
}

/* A baseline whose header names this corpus is read while the levels run: when the rest of
 * it is broken, or names another corpus after all, the sweep still fails with the error it
 * gave when it read the baseline first, and reports no level. */
Test(digest, a_baseline_read_beside_the_levels_fails_the_sweep_as_before, .timeout = 900)
{
    setenv("GC_CACHE_DIR", GC_BINARY_DIR "/test-cache", 1);
    char golden[1200], head[512] = "";
    snprintf(golden, sizeof golden, "%s/golden/metrics-small.yaml", GC_SOURCE_DIR);
    FILE *g = fopen(golden, "rb");
    cr_assert(g);
    char line[512];
    while (fgets(line, sizeof line, g) && strncmp(line, "levels:", 7) != 0)
        strncat(head, line, sizeof head - strlen(head) - 1); /* comments, format, corpus, id */
    fclose(g);
    cr_assert(strstr(head, "corpus_id: ") != NULL);
    const char *tails[] = {
        "levels:\n  \"0\":\n    x: abc\n",                          /* not a number */
        "levels:\n  \"0\":\n    x: 1\ndigests: [1]\n",              /* not a mapping */
        "levels:\n  \"0\":\n    x: [1\n",                           /* a YAML error */
        "levels:\n  \"0\":\n    x: 1\ncorpus_id: another-corpus\n", /* another corpus */
    };
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/test-tmp", GC_BINARY_DIR);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/late-baseline-%ld.yaml", dir, (long)getpid());
    for (size_t i = 0; i < GC_COUNTOF(tails); i++) {
        FILE *f = fopen(path, "wb");
        cr_assert(f);
        fputs(head, f);
        fputs(tails[i], f);
        fclose(f);
        char want[4096] = "";
        if (i < 3) {
            gc_baseline b;
            int found = 0;
            cr_assert_eq(gc_baseline_load_tree(path, &b, &found, want, sizeof want), -1);
        }
        gc_sweep_opts o;
        gc_sweep_opts_init(&o);
        o.scale = SY_SCALE_SMALL;
        o.no_frames = 1;
        o.jobs = 2;
        o.baseline = path;
        gc_report rep;
        char err[4096] = "";
        int rc = gc_sweep_run(&o, &rep, err, sizeof err);
        cr_assert_eq(rc, 2, "%s: exit %d (%s)", tails[i], rc, err);
        if (i < 3)
            cr_assert_str_eq(err, want);
        else
            cr_assert(strstr(err, "was blessed for another corpus (synthetic-small-seed1 "
                                  "another-corpus") != NULL,
                      "%s", err);
        cr_assert_eq(rep.level_count, 0, "%s", tails[i]);
        gc_report_free(&rep);
    }
    remove(path);
}
