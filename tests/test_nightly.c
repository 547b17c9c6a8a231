/* SPDX-License-Identifier: MIT */
/* The nightly view: the HTML report (harness/report/html.c) and the SQLite
 * history (harness/history/history.c), on reports built here. The real
 * browser check (headless Chromium over a sweep with an injected fault) and
 * the bisect of a scratch repository are in ci/nightly.sh. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gc_cli.h"
#include "gc_fsutil.h"
#include "gc_history.h"
#include "gc_html.h"
#include "gc_png.h"
#include "gc_report.h"

static char tmpdir[256];

static void mk_tmp(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gc-test-nightly-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void rm_tmp(void)
{
    gc_rm_rf(tmpdir);
}

/* A report of two levels: level 3 fails tfrag.vert_count (gating, one
 * sample whose values need escaping), a warn fails on level 4, frame
 * level 3 regressed with review images, one metric changed. bad = 0 makes
 * everything clean. */
static void build_report(gc_report *r, int bad, const char *img_dir)
{
    gc_report_init(r);
    snprintf(r->version, sizeof r->version, "0.1.0");
    snprintf(r->corpus_label, sizeof r->corpus_label, "synthetic <small> seed 1");
    snprintf(r->corpus_id, sizeof r->corpus_id, "abcd");
    snprintf(r->tier, sizeof r->tier, "gate");
    r->selected[0] = 3;
    r->selected[1] = 4;
    r->selected_count = 2;
    r->invariant_count = 2;
    r->frames_enabled = 1;
    r->baseline = strdup("golden/metrics-small.yaml");
    r->baseline_found = 1;
    for (int lv = 3; lv <= 4; lv++) {
        gc_rep_result *x = gc_report_add_result(r, "tfrag.vert_count", lv);
        snprintf(x->severity, sizeof x->severity, "error");
        snprintf(x->tier, sizeof x->tier, "gate");
        snprintf(x->scope, sizeof x->scope, "row");
        x->checked = 905;
        x->failed = bad && lv == 3 ? 12 : 0;
        x->why = strdup("Vertex counts agree with the unpacks.");
        x->file = strdup("invariants/tfrag.yaml");
        x->line = 3;
        if (x->failed) {
            x->samples = calloc(1, sizeof *x->samples);
            x->sample_count = 1;
            x->samples[0].level = 3;
            x->samples[0].row = 17;
            x->samples[0].file_ofs = 0x16230;
            x->samples[0].values = strdup("vert_count=7 <script>alert(1)</script>");
            x->samples[0].table = strdup("tfrag.patch");
            x->samples[0].parent_table = strdup("tfrag.block");
            x->samples[0].parent_row = 2;
            x->samples[0].location = strdup("core_data+0x16230 (decompressed stream)");
        }
        gc_rep_result *w = gc_report_add_result(r, "lod.strip_lod", lv);
        snprintf(w->severity, sizeof w->severity, "warn");
        snprintf(w->tier, sizeof w->tier, "full");
        snprintf(w->scope, sizeof w->scope, "row");
        w->checked = 10;
        w->failed = bad && lv == 4 ? 1 : 0;
    }
    gc_report_add_metric(r, 3, "tfrag.triangles", bad ? 30977 : 31204, 0);
    if (bad) {
        r->changes = calloc(1, sizeof *r->changes);
        r->change_count = 1;
        r->changes[0].level = 3;
        r->changes[0].field = strdup("tfrag.triangles");
        r->changes[0].old_value = 31204;
        r->changes[0].new_value = 30977;
    }
    gc_rep_frame *f = gc_report_add_frame(r, 3, "default");
    snprintf(f->sha256, sizeof f->sha256, "%064d", bad ? 1 : 2);
    snprintf(f->golden, sizeof f->golden, "%064d", 2);
    snprintf(f->status, sizeof f->status, "%s", bad ? "regressed" : "match");
    f->params = strdup("eye (0, 0, 0)");
    f->manifest = strdup("m");
    f->pixels_changed = UINT64_MAX;
    if (bad && img_dir) {
        uint8_t px[4 * 4 * 4];
        const char *kinds[3] = {"actual", "expected", "diff"};
        char **dst[3] = {&f->image_actual, &f->image_expected, &f->image_diff};
        for (int k = 0; k < 3; k++) {
            memset(px, 40 * (k + 1), sizeof px);
            char p[512], err[256];
            snprintf(p, sizeof p, "%s/LEVEL3_default_%s.png", img_dir, kinds[k]);
            cr_assert_eq(gc_png_write_rgba(p, px, 4, 4, err, sizeof err), 0, "%s", err);
            *dst[k] = strdup(p);
        }
        f->pixels_changed = 9;
    }
    gc_report_summarise(r);
}

static char *html_of(const gc_report *r, const gc_html_opts *o)
{
    gc_strbuf b;
    gc_sb_init(&b);
    char err[512];
    cr_assert_eq(gc_report_html(r, o, &b, err, sizeof err), 0, "%s", err);
    return gc_sb_take(&b);
}

Test(html, summary_line_equals_the_terminal)
{
    for (int bad = 0; bad <= 1; bad++) {
        gc_report r;
        build_report(&r, bad, NULL);
        char *term = NULL;
        size_t tlen = 0;
        FILE *f = open_memstream(&term, &tlen);
        gc_term t;
        gc_term_init(&t, -1); /* not a terminal: no colour */
        gc_cli_print_summary(&r, &t, 0, f);
        fclose(f);
        gc_strbuf s;
        gc_sb_init(&s);
        gc_report_summary_text(&r, &s);
        /* the terminal's last two lines */
        cr_assert_geq(tlen, s.len);
        cr_assert_str_eq(term + tlen - s.len, s.s);
        cr_assert(tlen == s.len || term[tlen - s.len - 1] == '\n');
        char *html = html_of(&r, &(gc_html_opts){0});
        /* and the page shows them, in the pre at the top */
        char want[1024];
        snprintf(want, sizeof want, "<pre id=\"summary\" class=\"%s\">", bad ? "FAILED" : "PASSED");
        char *at = strstr(html, want);
        cr_assert_not_null(at);
        s.s[strcspn(s.s, "\n")] = 0;
        cr_assert(strncmp(at + strlen(want), s.s, strlen(s.s)) == 0);
        free(html);
        free(term);
        gc_sb_free(&s);
        gc_report_free(&r);
    }
}

Test(html, failing_cell_links_to_samples_escaped)
{
    gc_report r;
    build_report(&r, 1, NULL);
    char *html = html_of(&r, &(gc_html_opts){0});
    /* the failing cell links to its section, which holds the sample */
    cr_assert_not_null(strstr(html, "<td class=\"error\" title=\"tfrag.vert_count level 3: 12 of "
                                    "905 failed\"><a href=\"#r-tfrag.vert_count-3\">12</a></td>"));
    char *sec = strstr(html, "<section class=\"cell\" id=\"r-tfrag.vert_count-3\">");
    cr_assert_not_null(sec);
    cr_assert_not_null(strstr(sec, "<td>tfrag.patch</td><td>17</td><td>tfrag.block row 2</td>"));
    cr_assert_not_null(strstr(sec, "vert_count=7 &lt;script&gt;alert(1)&lt;/script&gt;"));
    cr_assert_not_null(strstr(sec, "core_data+0x16230 (decompressed stream)"));
    cr_assert_not_null(strstr(sec, "Vertex counts agree with the unpacks."));
    cr_assert_not_null(strstr(sec, "invariants/tfrag.yaml:3"));
    cr_assert_null(strstr(html, "<script>alert"));
    cr_assert_null(strstr(html, "synthetic <small>"));
    /* the passing cell of level 4 is clean; the warn of level 4 is yellow */
    cr_assert_not_null(strstr(html, "<td class=\"pass\" title=\"tfrag.vert_count level 4"));
    cr_assert_not_null(strstr(html, "<td class=\"warn\" title=\"lod.strip_lod level 4"));
    /* the metric change, field by field */
    cr_assert_not_null(strstr(html, "<tr class=\"change\"><td>3</td><td>tfrag.triangles</td>"
                                    "<td>31204</td><td>30977</td><td>-227</td></tr>"));
    /* filter metadata: tier, severity and table words on the row */
    cr_assert_not_null(strstr(html, "data-tier=\"gate\" data-sev=\"error\" data-table=\"tfrag "
                                    "tfrag.patch tfrag.block\" data-failed=\"1\""));
    /* no external resources */
    cr_assert_null(strstr(html, "http://"));
    cr_assert_null(strstr(html, "https://"));
    cr_assert_null(strstr(html, "<link"));
    cr_assert_null(strstr(html, "<script src"));
    free(html);
    gc_report_free(&r);
}

Test(html, frames_inline_and_assets, .init = mk_tmp, .fini = rm_tmp)
{
    char img[300], assets[300], page[300];
    snprintf(img, sizeof img, "%s/img", tmpdir);
    snprintf(assets, sizeof assets, "%s/out/assets", tmpdir);
    snprintf(page, sizeof page, "%s/out/report.html", tmpdir);
    char err[256];
    cr_assert_eq(gc_mkdir_p(img, err, sizeof err), 0);
    gc_report r;
    build_report(&r, 1, img);
    char *html = html_of(&r, &(gc_html_opts){0});
    cr_assert_not_null(strstr(html, "<span class=\"pixels\">9</span> pixels changed"));
    /* three images, inline: the data URI is the file's bytes in base64 */
    size_t n = 0;
    for (char *p = html; (p = strstr(p, "src=\"data:image/png;base64,")) != NULL; p++)
        n++;
    cr_assert_eq(n, 3);
    cr_assert_not_null(strstr(html, "<figure class=\"diff\"><img class=\"diff\""));
    free(html);
    /* with an assets directory: files copied, referenced relatively */
    cr_assert_eq(gc_mkdir_p(assets, err, sizeof err), 0);
    html = html_of(&r, &(gc_html_opts){.assets_dir = assets, .html_path = page});
    cr_assert_not_null(strstr(html, "src=\"assets/LEVEL3_default_diff.png\""), "%s",
                       strstr(html, "<figure"));
    cr_assert_null(strstr(html, "data:image/png"));
    size_t a_len, b_len;
    char a_p[400];
    snprintf(a_p, sizeof a_p, "%s/LEVEL3_default_diff.png", assets);
    char *a = gc_read_file(a_p, &a_len, err, sizeof err);
    char *b = gc_read_file(r.frames[0].image_diff, &b_len, err, sizeof err);
    cr_assert(a && b && a_len == b_len && memcmp(a, b, a_len) == 0);
    free(a);
    free(b);
    free(html);
    gc_report_free(&r);
}

/* ---- history ---- */

static long long count(const char *db, const char *sql)
{
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(d, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(d));
    long long v = -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(d);
    return v;
}

static long long record(const char *db, int bad, const char *time, const char *commit)
{
    char err[512];
    gc_history *h = gc_history_open(db, err, sizeof err);
    cr_assert_not_null(h, "%s", err);
    gc_report r;
    build_report(&r, bad, NULL);
    gc_history_run_info ri = {time, commit, 0, "gcverify sweep"};
    long long id = gc_history_record(h, &r, &ri, err, sizeof err);
    cr_assert_geq(id, 1, "%s", err);
    gc_report_free(&r);
    gc_history_close(h);
    return id;
}

static char *last_good(const char *db, const gc_history_query *q, int *rc)
{
    char err[512], *out = NULL;
    size_t len = 0;
    gc_history *h = gc_history_open(db, err, sizeof err);
    cr_assert_not_null(h, "%s", err);
    FILE *f = open_memstream(&out, &len);
    *rc = gc_history_last_good(h, q, f, err, sizeof err);
    fclose(f);
    gc_history_close(h);
    return out;
}

Test(history, last_good_and_strip, .init = mk_tmp, .fini = rm_tmp)
{
    char db[300];
    snprintf(db, sizeof db, "%s/h.db", tmpdir);
    record(db, 0, "2026-12-01T01:00:00Z", "1111111111111111111111111111111111111111");
    record(db, 1, "2026-12-01T02:00:00Z", "2222222222222222222222222222222222222222");
    record(db, 0, "2026-12-01T03:00:00Z", "3333333333333333333333333333333333333333");
    record(db, 1, "2026-12-01T04:00:00Z", "4444444444444444444444444444444444444444");
    cr_assert_eq(count(db, "SELECT count(*) FROM runs"), 4);
    cr_assert_eq(count(db, "SELECT count(*) FROM results"), 16);
    cr_assert_eq(count(db, "SELECT sum(changed) FROM metrics"), 2);
    int rc;
    gc_history_query q = {GC_HIST_INVARIANT, "tfrag.vert_count", -2, NULL};
    char *o = last_good(db, &q, &rc);
    cr_assert_eq(rc, 0);
    cr_assert_str_eq(o, "last good: run 3 at 2026-12-01T03:00:00Z, commit "
                        "3333333333333333333333333333333333333333\n"
                        "first bad: run 4 at 2026-12-01T04:00:00Z, commit "
                        "4444444444444444444444444444444444444444\n");
    free(o);
    /* level 4 never failed it */
    q.level = 4;
    o = last_good(db, &q, &rc);
    cr_assert_eq(rc, 0);
    cr_assert(strstr(o, "last good: run 4 ") && strstr(o, "first bad: none"), "%s", o);
    free(o);
    /* frames and metrics */
    gc_history_query fq = {GC_HIST_FRAME, "default", 3, NULL};
    o = last_good(db, &fq, &rc);
    cr_assert(rc == 0 && strstr(o, "last good: run 3 ") && strstr(o, "first bad: run 4 "), "%s", o);
    free(o);
    gc_history_query mq = {GC_HIST_METRIC, "tfrag.triangles", 3, NULL};
    o = last_good(db, &mq, &rc);
    cr_assert(rc == 0 && strstr(o, "first bad: run 4 "), "%s", o);
    free(o);
    gc_history_query nq = {GC_HIST_INVARIANT, "no.such", -2, NULL};
    o = last_good(db, &nq, &rc);
    cr_assert_eq(rc, 2);
    free(o);
    /* the strip: the last 3 runs, the items that failed in them */
    char err[512];
    gc_history *h = gc_history_open(db, err, sizeof err);
    gc_html_history s;
    cr_assert_eq(gc_history_strip(h, 3, &s, err, sizeof err), 0, "%s", err);
    gc_history_close(h);
    cr_assert_eq(s.run_count, 3);
    cr_assert(strncmp(s.run_labels[0], "run 2, 2026-12-01T02:00:00Z, 222222222222", 40) == 0, "%s",
              s.run_labels[0]);
    cr_assert_eq(s.row_count, 2); /* lod.strip_lod@4 and tfrag.vert_count@3 */
    cr_assert_str_eq(s.rows[1].invariant, "tfrag.vert_count");
    cr_assert_eq(s.rows[1].level, 3);
    cr_assert_eq(s.rows[1].state[0], GC_HTML_HIST_FAIL);
    cr_assert_eq(s.rows[1].state[1], GC_HTML_HIST_CLEAN);
    cr_assert_eq(s.rows[1].state[2], GC_HTML_HIST_FAIL);
    gc_report r;
    build_report(&r, 1, NULL);
    char *html = html_of(&r, &(gc_html_opts){.history = &s});
    cr_assert_not_null(strstr(html, "<span class=\"h2\" title=\"run 4, 2026-12-01T04:00:00Z"));
    free(html);
    gc_report_free(&r);
    gc_html_history_free(&s);
    /* the series, --since */
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    h = gc_history_open(db, err, sizeof err);
    gc_history_query sq = {GC_HIST_INVARIANT, "tfrag.vert_count", 3, "2026-12-01T03"};
    cr_assert_eq(gc_history_print(h, &sq, f, err, sizeof err), 0);
    gc_history_close(h);
    fclose(f);
    cr_assert(strstr(out, "run 3    2026-12-01T03:00:00Z 333333333333") &&
                  strstr(out, "failed 0 of 905 (error)") &&
                  strstr(out, "failed 12 of 905 (error, "
                              "gating)") &&
                  !strstr(out, "run 2 "),
              "%s", out);
    free(out);
}

/* A database from elsewhere whose text columns hold NULL (its tables made without the NOT
 * NULL our schema declares): the strip and the series read them as "", not as a NULL handed to
 * strdup (a crash) or to printf's %s. */
Test(history, null_text_from_another_database, .init = mk_tmp, .fini = rm_tmp)
{
    char db[300], err[512];
    snprintf(db, sizeof db, "%s/n.db", tmpdir);
    record(db, 1, "2026-12-01T01:00:00Z", "1111111111111111111111111111111111111111");
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d,
                              "PRAGMA writable_schema=ON;"
                              "UPDATE sqlite_master SET sql=replace(sql, 'invariant TEXT NOT NULL',"
                              " 'invariant TEXT') WHERE name='results';"
                              "UPDATE sqlite_master SET sql=replace(sql, 'time TEXT NOT NULL',"
                              " 'time TEXT') WHERE name='runs';"
                              "PRAGMA writable_schema=OFF;",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE results SET invariant=NULL; UPDATE runs SET time=NULL;",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
    cr_assert_eq(count(db, "SELECT count(*) FROM results WHERE invariant IS NULL"), 4);

    gc_history *h = gc_history_open(db, err, sizeof err);
    cr_assert_not_null(h, "%s", err);
    gc_html_history s;
    cr_assert_eq(gc_history_strip(h, 3, &s, err, sizeof err), 0, "%s", err);
    cr_assert_gt(s.row_count, 0);
    cr_assert_str_eq(s.rows[0].invariant, "");
    gc_html_history_free(&s);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    gc_history_query q = {GC_HIST_INVARIANT, NULL, -2, NULL};
    cr_assert_eq(gc_history_print(h, &q, f, err, sizeof err), 0, "%s", err);
    fclose(f);
    cr_assert(strstr(out, "(null)") == NULL, "%s", out);
    free(out);
    gc_history_close(h);
}

Test(history, migrates_schema_1, .init = mk_tmp, .fini = rm_tmp)
{
    char db[300], err[512];
    snprintf(db, sizeof db, "%s/old.db", tmpdir);
    gc_history *h = gc_history_open_at(db, 1, err, sizeof err);
    cr_assert_not_null(h, "%s", err);
    cr_assert_eq(gc_history_schema_version(h), 1);
    gc_history_close(h);
    /* a schema-1 writer's run (no exit_code, no changed column) */
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d,
                              "INSERT INTO runs(time, corpus_label, corpus_id, version, options,"
                              " tier, levels) VALUES('2026-11-30T00:00:00Z', 'c', 'id', '0.0.9',"
                              " '', 'gate', 27);"
                              "INSERT INTO results VALUES(1, 'tfrag.vert_count', 3, 'error', 5, 0,"
                              " 0);",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
    h = gc_history_open(db, err, sizeof err);
    cr_assert_not_null(h, "%s", err);
    cr_assert_eq(gc_history_schema_version(h), GC_HISTORY_SCHEMA);
    gc_history_close(h);
    cr_assert_eq(count(db, "SELECT count(*) FROM runs WHERE exit_code IS NULL"), 1);
    record(db, 1, "2026-12-01T00:00:00Z", NULL);
    int rc;
    gc_history_query q = {GC_HIST_INVARIANT, "tfrag.vert_count", 3, NULL};
    char *o = last_good(db, &q, &rc);
    cr_assert(rc == 0 && strstr(o, "last good: run 1 at 2026-11-30") &&
                  strstr(o, "first bad: run 2 "),
              "%s", o);
    free(o);
    /* a newer schema than ours is refused, not written into */
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    sqlite3_exec(d, "PRAGMA user_version=99", NULL, NULL, NULL);
    sqlite3_close(d);
    cr_assert_null(gc_history_open(db, err, sizeof err));
    cr_assert_not_null(strstr(err, "newer"), "%s", err);
    /* and so is a database of something else */
    snprintf(db, sizeof db, "%s/other.db", tmpdir);
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    sqlite3_exec(d, "CREATE TABLE t(x)", NULL, NULL, NULL);
    sqlite3_close(d);
    cr_assert_null(gc_history_open(db, err, sizeof err));
}

Test(history, killed_run_leaves_the_database_as_it_was, .init = mk_tmp, .fini = rm_tmp)
{
    char db[300];
    snprintf(db, sizeof db, "%s/h.db", tmpdir);
    record(db, 0, "2026-12-01T01:00:00Z", NULL);
    for (int at = 1; at <= 6; at += 5) {
        /* killed after the run row (1) and inside the results (6) */
        fflush(NULL);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            char n[16];
            snprintf(n, sizeof n, "%d", at);
            setenv("GC_HISTORY_TEST_KILL", n, 1);
            char err[512];
            gc_history *h = gc_history_open(db, err, sizeof err);
            gc_report r;
            build_report(&r, 1, NULL);
            gc_history_record(h, &r, NULL, err, sizeof err);
            _exit(0); /* not reached: the hook kills first */
        }
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the writer was not killed");
        /* the next open rolls the torn transaction back */
        cr_assert_eq(count(db, "SELECT count(*) FROM runs"), 1);
        cr_assert_eq(count(db, "SELECT count(*) FROM results"), 4);
        cr_assert_eq(count(db, "SELECT count(*) FROM results WHERE failed > 0"), 0);
    }
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(d, "PRAGMA integrity_check", -1, &st, NULL);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    sqlite3_close(d);
    /* and it takes the next run */
    cr_assert_eq(record(db, 1, NULL, NULL), 2);
}

Test(history, concurrent_writers_wait, .init = mk_tmp, .fini = rm_tmp)
{
    char db[300];
    snprintf(db, sizeof db, "%s/h.db", tmpdir);
    enum { WRITERS = 3, RUNS = 15 };
    pid_t pids[WRITERS];
    fflush(NULL);
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        cr_assert_geq(pids[w], 0);
        if (pids[w] == 0) {
            /* every writer opens (and the first creates) at the same time */
            for (int k = 0; k < RUNS; k++) {
                char err[512];
                gc_history *h = gc_history_open(db, err, sizeof err);
                if (!h)
                    _exit(2);
                gc_report r;
                build_report(&r, (k + w) % 2, NULL);
                long long id = gc_history_record(h, &r, NULL, err, sizeof err);
                gc_report_free(&r);
                gc_history_close(h);
                if (id < 0) {
                    fprintf(stderr, "writer %d: %s\n", w, err);
                    _exit(1);
                }
            }
            _exit(0);
        }
    }
    for (int w = 0; w < WRITERS; w++) {
        int st;
        cr_assert_eq(waitpid(pids[w], &st, 0), pids[w]);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d failed", w);
    }
    cr_assert_eq(count(db, "SELECT count(*) FROM runs"), WRITERS * RUNS);
    cr_assert_eq(count(db, "SELECT count(*) FROM results"), WRITERS * RUNS * 4);
    /* no run is torn: each has all its rows */
    cr_assert_eq(count(db, "SELECT count(*) FROM runs WHERE (SELECT count(*) FROM results"
                           " WHERE run = runs.id) != 4 OR (SELECT count(*) FROM frames"
                           " WHERE run = runs.id) != 1"),
                 0);
}
