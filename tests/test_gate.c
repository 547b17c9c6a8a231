/* SPDX-License-Identifier: MIT */
/* A gate that cannot go green by mistake (issue 13): subset runs compare only
 * what they ran, a mistyped path or an empty selection is exit 2, machine
 * output on stdout is clean, the closing line counts every gated item, a
 * baseline is keyed by the corpus's identity and checked before decoding,
 * JUnit is valid junit-10.xsd with real times and failure text; failures
 * name their table, parent row and a location in the container; show, diff,
 * merge and the frame image store. Small synthetic corpus. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gc_baseline.h"
#include "gc_corpus.h"
#include "gc_fsutil.h"
#include "gc_golden_frames.h"
#include "gc_image_store.h"
#include "gc_json.h"
#include "gc_level.h"
#include "gc_report.h"
#include "gc_sweep.h"
#include "sy_corpus.h"

int gc_cmd_sweep(int argc, char **argv);
int gc_cmd_show(int argc, char **argv);
int gc_cmd_diff(int argc, char **argv);
int gc_cmd_merge(int argc, char **argv);

#define SMALL_METRICS GC_SOURCE_DIR "/golden/metrics-small.yaml"
#define SMALL_FRAMES  GC_SOURCE_DIR "/golden/frames-small.yaml"
#define JUNIT_XSD     GC_SOURCE_DIR "/ci/schemas/junit-10.xsd"

static char store_dir[1024];

static void setup(void)
{
    setenv("GC_CACHE_DIR", GC_BINARY_DIR "/test-cache", 1);
    snprintf(store_dir, sizeof store_dir, "%s/test-tmp/store-%ld", GC_BINARY_DIR, (long)getpid());
    setenv("GC_FRAME_STORE", store_dir, 1);
    setenv("NO_COLOR", "1", 1);
    unsetenv("CI");
}

static void tmpdir(char *out, size_t n, const char *tag)
{
    snprintf(out, n, "%s/test-tmp/gate-%s-%ld", GC_BINARY_DIR, tag, (long)getpid());
    gc_rm_rf(out);
    char err[256];
    cr_assert_eq(gc_mkdir_p(out, err, sizeof err), 0, "%s", err);
}

static int argc_of(char **argv)
{
    int n = 0;
    while (argv[n])
        n++;
    return n;
}

/* Run a command with stdout and stderr sent to files. */
static int run_captured(int (*fn)(int, char **), char **argv, const char *out, const char *err)
{
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(so >= 0 && se >= 0 && fo >= 0 && fe >= 0);
    dup2(fo, 1);
    dup2(fe, 2);
    close(fo);
    close(fe);
    int rc = fn(argc_of(argv), argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    return rc;
}

static char *slurp(const char *path)
{
    char err[512];
    char *s = gc_read_file(path, NULL, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    return s;
}

static void write_text(const char *path, const char *text)
{
    char err[512];
    cr_assert_eq(gc_write_file_atomic(path, text, strlen(text), err, sizeof err), 0, "%s", err);
}

static int xsd_valid(const char *xml)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "xmllint --noout --schema '%s' '%s' 2>/dev/null", JUNIT_XSD, xml);
    int rc = system(cmd);
    return rc == 0;
}

static void need_xmllint(void)
{
    cr_assert_eq(system("command -v xmllint >/dev/null"), 0,
                 "xmllint is needed (libxml2-utils; bash ci/deps.sh installs it)");
}

/* An invariant directory whose one invariant fails on the given vertex rows of level 3. */
static void failing_invariants(char *dir, size_t n, const char *tag, const char *rows_expr)
{
    tmpdir(dir, n, tag);
    char path[1200], text[1024];
    snprintf(path, sizeof path, "%s/t.yaml", dir);
    snprintf(text, sizeof text,
             "invariants:\n"
             "  - id: t.vertex_rows\n"
             "    table: tfrag.vertex\n"
             "    expect: %s\n"
             "    why: the rows the test names\n"
             "    severity: error\n"
             "    tier: gate\n",
             rows_expr);
    write_text(path, text);
}

static const gc_column *column(const gc_table_desc *d, const char *name)
{
    for (size_t i = 0; i < d->column_count; i++)
        if (strcmp(d->columns[i].name, name) == 0)
            return &d->columns[i];
    cr_assert_fail("no column %s in %s", name, d->name);
    return NULL;
}

/* ---- defect 1: --levels subsets ---- */

Test(gate, levels_subset_passes_against_the_full_baseline, .init = setup, .timeout = 900)
{
    char dir[1024];
    tmpdir(dir, sizeof dir, "subset");
    char out[1200], err[1200];
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    const char *sets[] = {"0", "0-2", "5,9"};
    for (size_t i = 0; i < 3; i++) {
        char *argv[] = {"sweep", "--scale", "small", "--levels", (char *)sets[i], NULL};
        int rc = run_captured(gc_cmd_sweep, argv, out, err);
        char *o = slurp(out);
        cr_assert_eq(rc, 0, "--levels %s against golden/metrics-small.yaml: exit %d\n%s", sets[i],
                     rc, o);
        cr_assert_null(strstr(o, "CHANGED"), "%s", o);
        free(o);
    }
}

Test(gate, subset_bless_keeps_the_corpus_figures, .init = setup, .timeout = 900)
{
    gc_baseline keep;
    int found = 0;
    char err[4096] = "";
    cr_assert_eq(gc_baseline_load(SMALL_METRICS, &keep, &found, err, sizeof err), 0, "%s", err);
    cr_assert(found);
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    o.scale = SY_SCALE_SMALL;
    o.no_frames = 1;
    o.baseline = "";
    cr_assert_eq(gc_parse_level_list("0", o.levels, &o.level_count), 0);
    gc_report rep;
    cr_assert_lt(gc_sweep_run(&o, &rep, err, sizeof err), 2, "%s", err);
    char dir[1024], path[1200];
    tmpdir(dir, sizeof dir, "subsetbless");
    snprintf(path, sizeof path, "%s/metrics.yaml", dir);
    cr_assert_eq(gc_baseline_write(path, &rep, &keep, err, sizeof err), 0, "%s", err);
    gc_baseline b;
    cr_assert_eq(gc_baseline_load(path, &b, &found, err, sizeof err), 0, "%s", err);
    size_t compared = 0;
    for (size_t i = 0; i < keep.count; i++) {
        if (keep.metrics[i].level != GC_LEVEL_CORPUS)
            continue;
        for (size_t k = 0; k < b.count; k++)
            if (b.metrics[k].level == GC_LEVEL_CORPUS &&
                strcmp(b.metrics[k].name, keep.metrics[i].name) == 0) {
                cr_assert_eq(b.metrics[k].value, keep.metrics[i].value,
                             "a --levels 0 bless moved the corpus figure %s", keep.metrics[i].name);
                compared++;
            }
    }
    cr_assert_gt(compared, 0);
    gc_baseline_free(&b);
    gc_baseline_free(&keep);
    gc_report_free(&rep);
}

/* ---- defect 2: typos ---- */

Test(gate, a_missing_named_file_or_an_empty_selection_is_exit_2, .init = setup)
{
    gc_sweep_opts o;
    gc_report rep;
    char err[4096];
    struct {
        const char *baseline, *frames, *only, *want;
    } cases[] = {
        {"/nonexistent/metrics.yaml", NULL, NULL, "/nonexistent/metrics.yaml"},
        {NULL, "/nonexistent/frames.yaml", NULL, "/nonexistent/frames.yaml"},
        {NULL, NULL, "zzz*", "selects none"},
    };
    for (size_t i = 0; i < 3; i++) {
        gc_sweep_opts_init(&o);
        o.scale = SY_SCALE_SMALL;
        cr_assert_eq(gc_parse_level_list("0", o.levels, &o.level_count), 0);
        o.baseline = cases[i].baseline;
        o.frames_golden = cases[i].frames;
        o.only = cases[i].only;
        err[0] = '\0';
        int rc = gc_sweep_run(&o, &rep, err, sizeof err);
        gc_report_free(&rep);
        cr_assert_eq(rc, 2, "case %zu: exit %d (%s)", i, rc, err);
        cr_assert(strstr(err, cases[i].want) != NULL, "case %zu: %s", i, err);
    }
}

/* ---- defect 3: clean stdout, closing line ---- */

Test(gate, json_on_stdout_is_the_json_alone, .init = setup, .timeout = 900)
{
    char dir[1024], out[1200], errp[1200], err[512];
    tmpdir(dir, sizeof dir, "jsonstdout");
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    char *argv[] = {"sweep",      "--scale", "small",  "--levels", "0",
                    "--baseline", "none",    "--json", "-",        NULL};
    int rc = run_captured(gc_cmd_sweep, argv, out, errp);
    cr_assert_eq(rc, 0);
    char *o = slurp(out), *e = slurp(errp);
    gc_json *j = gc_json_parse(o, err, sizeof err);
    cr_assert_not_null(j, "stdout is not JSON alone: %s", err);
    cr_assert_eq(gc_json_num(gc_json_get(j, "format"), 0), GC_REPORT_FORMAT);
    cr_assert(strstr(e, "PASSED") != NULL, "the summary belongs on stderr: %s", e);
    gc_json_free(j);
    free(o);
    free(e);
}

Test(gate, closing_line_counts_frame_regressions, .init = setup, .timeout = 900)
{
    char dir[1024], frames[1200], out[1200], errp[1200], junit[1200], err[4096];
    tmpdir(dir, sizeof dir, "closing");
    snprintf(frames, sizeof frames, "%s/frames.yaml", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    snprintf(junit, sizeof junit, "%s/junit.xml", dir);
    gc_golden_frames g;
    cr_assert_eq(gc_golden_frames_load(SMALL_FRAMES, &g, err, sizeof err), 0, "%s", err);
    size_t changed = 0;
    for (size_t i = 0; i < g.count; i++)
        if (g.v[i].level == 0) {
            memset(g.v[i].sha256, 'a', 64);
            changed++;
        }
    cr_assert_eq(changed, 2, "level 0 has two views");
    cr_assert_eq(gc_golden_frames_save(frames, &g, err, sizeof err), 0, "%s", err);
    gc_golden_frames_free(&g);
    char *argv[] = {"sweep",           "--scale", "small",   "--levels", "0,1",
                    "--frames-golden", frames,    "--junit", junit,      NULL};
    int rc = run_captured(gc_cmd_sweep, argv, out, errp);
    char *o = slurp(out);
    cr_assert_eq(rc, 1, "two regressed frames must fail the gate\n%s", o);
    const char *line = strstr(o, "sweep: ");
    cr_assert_not_null(line, "%s", o);
    unsigned long long passed = 0, failed = 0, skipped = 0;
    cr_assert_eq(
        sscanf(line, "sweep: %llu passed, %llu failed, %llu skipped", &passed, &failed, &skipped),
        3, "%s", line);
    cr_assert_eq(failed, 2, "the closing line must count the 2 regressed frames: %s", line);
    cr_assert_gt(passed, 0);
    char *j = slurp(junit);
    cr_assert(strstr(j, "failures=\"2\"") != NULL, "JUnit counts the same items");
    free(j);
    free(o);
}

/* ---- defect 4: baselines keyed by corpus identity, checked before decoding ---- */

static void copy_corpus(const char *dst, int modify_level)
{
    char src[4096], err[4096];
    cr_assert_eq(gc_corpus_synthetic(SY_SCALE_SMALL, 1, 2, 0, src, sizeof src, err, sizeof err), 0,
                 "%s", err);
    for (int i = 0; i < 27; i++) {
        char a[4200], b[1200];
        snprintf(a, sizeof a, "%s/LEVEL%d.WAD", src, i);
        snprintf(b, sizeof b, "%s/LEVEL%d.WAD", dst, i);
        if (i != modify_level) {
            cr_assert_eq(symlink(a, b), 0);
            continue;
        }
        size_t len;
        char *data = gc_read_file(a, &len, err, sizeof err);
        cr_assert_not_null(data, "%s", err);
        data[0x0c] ^= 0x01; /* the reverb word of the container header */
        cr_assert_eq(gc_write_file_atomic(b, data, len, err, sizeof err), 0, "%s", err);
        free(data);
    }
}

Test(gate, baseline_is_keyed_by_corpus_identity, .init = setup, .timeout = 900)
{
    char same[1024], moved[1024], err[4096];
    tmpdir(same, sizeof same, "copy");
    tmpdir(moved, sizeof moved, "modified");
    copy_corpus(same, -1);
    copy_corpus(moved, 5);
    gc_sweep_opts o;
    gc_report rep;
    gc_sweep_opts_init(&o);
    o.no_frames = 1;
    o.baseline = SMALL_METRICS;
    /* an unmodified copy in another directory is the same corpus */
    o.corpus_dir = same;
    err[0] = '\0';
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    cr_assert_eq(rc, 0, "a copy of the blessed corpus must use its baseline: exit %d (%s)", rc,
                 err);
    cr_assert(rep.baseline_found);
    cr_assert_eq(rep.change_count, 0);
    gc_report_free(&rep);
    /* another header is another corpus: refused before anything is decoded */
    o.corpus_dir = moved;
    gc_sweep_timings tm;
    o.timings = &tm;
    err[0] = '\0';
    rc = gc_sweep_run(&o, &rep, err, sizeof err);
    cr_assert_eq(rc, 2, "%s", err);
    cr_assert(strstr(err, "--accept-corpus-mismatch") != NULL, "%s", err);
    cr_assert_eq(rep.level_count, 0, "the mismatch must be found before decoding");
    cr_assert_eq(tm.cpu_decode, 0.0);
    gc_report_free(&rep);
    /* unless the user says it is a modified copy */
    o.accept_corpus_mismatch = 1;
    rc = gc_sweep_run(&o, &rep, err, sizeof err);
    cr_assert_lt(rc, 2, "%s", err);
    cr_assert(rep.corpus_mismatch_accepted);
    cr_assert(rep.baseline_found);
    cr_assert_eq(rep.level_count, 27);
    gc_report_free(&rep);
}

/* ---- defect 6: JUnit ---- */

Test(gate, junit_is_valid_junit10_with_times_and_failure_text, .init = setup, .timeout = 900)
{
    need_xmllint();
    char inv[1024], dir[1024], junit[1200], out[1200], errp[1200];
    failing_invariants(inv, sizeof inv, "junitinv", "row != 7");
    tmpdir(dir, sizeof dir, "junit");
    snprintf(junit, sizeof junit, "%s/r.xml", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    /* the project's invariants with frames and baseline: every kind of case */
    char *a1[] = {"sweep", "--scale", "small", "--junit", junit, NULL};
    cr_assert_eq(run_captured(gc_cmd_sweep, a1, out, errp), 0);
    cr_assert(xsd_valid(junit), "JUnit report is not valid against ci/schemas/junit-10.xsd");
    char *j = slurp(junit);
    const char *ts = strstr(j, "<testsuites");
    cr_assert_not_null(ts);
    char tag[512];
    snprintf(tag, sizeof tag, "%.*s", (int)(strchr(ts, '>') - ts), ts);
    cr_assert_null(strstr(tag, "skipped="), "testsuites takes no skipped: %s", tag);
    size_t nonzero = 0;
    for (const char *p = j; (p = strstr(p, "<testcase ")) != NULL; p++) {
        const char *t = strstr(p, "time=\"");
        double v = t ? atof(t + 6) : 0;
        nonzero += v > 0;
    }
    cr_assert_gt(nonzero, 10, "testcases carry their real CPU time");
    cr_assert(strstr(j, "name=\"metrics.baseline\"") != NULL);
    free(j);
    /* a failure says why, and where the invariant is written */
    char *a2[] = {"sweep", "--scale",    "small", "--levels", "3",   "--no-frames", "--invariants",
                  inv,     "--baseline", "none",  "--junit",  junit, NULL};
    cr_assert_eq(run_captured(gc_cmd_sweep, a2, out, errp), 1);
    cr_assert(xsd_valid(junit));
    j = slurp(junit);
    /* project paths are written relative to the project */
    char want[1200];
    size_t sl = strlen(GC_SOURCE_DIR);
    snprintf(want, sizeof want, "invariant: %s/t.yaml:2",
             strncmp(inv, GC_SOURCE_DIR "/", sl + 1) == 0 ? inv + sl + 1 : inv);
    cr_assert(strstr(j, "why: the rows the test names") != NULL, "%s", j);
    cr_assert(strstr(j, want) != NULL, "%s", j);
    cr_assert(strstr(j, "tfrag.vertex row 7") != NULL, "%s", j);
    free(j);
}

/* ---- failures that say where ---- */

Test(gate, sample_names_table_parent_and_container_location, .init = setup, .timeout = 900)
{
    char inv[1024], err[4096];
    failing_invariants(inv, sizeof inv, "locinv", "row != 7");
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    o.scale = SY_SCALE_SMALL;
    o.no_frames = 1;
    o.baseline = "";
    o.invariants_dir = inv;
    cr_assert_eq(gc_parse_level_list("3", o.levels, &o.level_count), 0);
    gc_report rep;
    cr_assert_eq(gc_sweep_run(&o, &rep, err, sizeof err), 1, "%s", err);
    cr_assert_eq(rep.result_count, 1);
    const gc_rep_result *x = &rep.results[0];
    cr_assert_eq(x->sample_count, 1);
    const gc_rep_sample *s = &x->samples[0];
    cr_assert_str_eq(x->why, "the rows the test names");
    cr_assert_eq(x->line, 2);
    cr_assert_str_eq(s->table, "tfrag.vertex");
    cr_assert_eq(s->row, 7);

    /* the truth, from the decoder directly */
    gc_corpus c;
    gc_level lv;
    cr_assert_eq(gc_corpus_decode_level("test", NULL, SY_SCALE_SMALL, 1, 3, 0, &c, &lv), 0);
    size_t ndesc;
    gc_table_registry(&ndesc);
    gc_table *t = calloc(ndesc, sizeof *t);
    gc_level_tables(&lv, t);
    const gc_table *vt = NULL;
    for (size_t i = 0; i < ndesc; i++)
        if (strcmp(t[i].desc->name, "tfrag.vertex") == 0)
            vt = &t[i];
    cr_assert_not_null(vt);
    const unsigned char *row = (const unsigned char *)vt->rows + 7 * vt->desc->row_size;
    uint32_t patch;
    uint64_t ofs;
    memcpy(&patch, row + column(vt->desc, "patch_row")->offset, sizeof patch);
    memcpy(&ofs, row + column(vt->desc, "file_ofs")->offset, sizeof ofs);
    char want[512];
    snprintf(want, sizeof want,
             "core_data+0x%llx (decompressed stream, LEVEL3.WAD data extent +0x%llx, WAD LZ at "
             "LEVEL3.WAD+0x%llx)",
             (unsigned long long)ofs,
             (unsigned long long)(lv.core_data_z.file_ofs - lv.data_extent.file_ofs),
             (unsigned long long)lv.core_data_z.file_ofs);
    cr_assert_str_eq(s->location, want);
    cr_assert_str_eq(s->parent_table, "tfrag.patch");
    cr_assert_eq(s->parent_row, (int64_t)patch);
    /* the WAD LZ header really is there */
    cr_assert_eq(memcmp(lv.file + lv.core_data_z.file_ofs, "WAD", 3), 0);
    free(t);
    gc_level_free(&lv);
    gc_corpus_close(&c);
    gc_report_free(&rep);
}

/* ---- show ---- */

Test(gate, show_prints_the_rows_the_expression_selects, .init = setup, .timeout = 900)
{
    char dir[1024], out[1200], errp[1200];
    tmpdir(dir, sizeof dir, "show");
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    char *a1[] = {"show",      "--scale",
                  "small",     "--level",
                  "3",         "tfrag.vertex",
                  "--where",   "row == 7 or row == 9",
                  "--columns", "file_ofs,patch_row,x",
                  "--format",  "csv",
                  NULL};
    cr_assert_eq(run_captured(gc_cmd_show, a1, out, errp), 0);
    char *o = slurp(out);

    gc_corpus c;
    gc_level lv;
    cr_assert_eq(gc_corpus_decode_level("test", NULL, SY_SCALE_SMALL, 1, 3, 0, &c, &lv), 0);
    size_t ndesc;
    gc_table_registry(&ndesc);
    gc_table *t = calloc(ndesc, sizeof *t);
    gc_level_tables(&lv, t);
    const gc_table *vt = NULL;
    for (size_t i = 0; i < ndesc; i++)
        if (strcmp(t[i].desc->name, "tfrag.vertex") == 0)
            vt = &t[i];
    char want[512] = "row,file_ofs,patch_row,x\n";
    for (int r = 7; r <= 9; r += 2) {
        const unsigned char *row = (const unsigned char *)vt->rows + (size_t)r * vt->desc->row_size;
        uint32_t patch;
        uint64_t ofs;
        float x;
        memcpy(&patch, row + column(vt->desc, "patch_row")->offset, sizeof patch);
        memcpy(&ofs, row + column(vt->desc, "file_ofs")->offset, sizeof ofs);
        memcpy(&x, row + column(vt->desc, "x")->offset, sizeof x);
        size_t n = strlen(want);
        snprintf(want + n, sizeof want - n, "%d,0x%llx,%u,%.9g\n", r, (unsigned long long)ofs,
                 patch, (double)x);
    }
    cr_assert_str_eq(o, want);
    free(o);
    free(t);
    gc_level_free(&lv);
    gc_corpus_close(&c);
    /* a link column: every vertex of patch 0 and no other */
    char *a2[] = {"show",    "--scale",        "small",     "--level",   "3",        "tfrag.vertex",
                  "--where", "patch.row == 0", "--columns", "patch_row", "--format", "json",
                  NULL};
    cr_assert_eq(run_captured(gc_cmd_show, a2, out, errp), 0);
    o = slurp(out);
    char jerr[256];
    gc_json *j = gc_json_parse(o, jerr, sizeof jerr);
    cr_assert_not_null(j, "%s", jerr);
    cr_assert_gt(j->count, 1);
    for (size_t i = 0; i < j->count; i++)
        cr_assert_eq(gc_json_num(gc_json_get(j->items[i], "patch_row"), -1), 0);
    gc_json_free(j);
    free(o);
    /* a mistyped column is exit 2 with its position in the expression */
    char *a3[] = {"show",         "--scale", "small",           "--level", "3",
                  "tfrag.vertex", "--where", "patch.radiu > 1", NULL};
    cr_assert_eq(run_captured(gc_cmd_show, a3, out, errp), 2);
    char *e = slurp(errp);
    cr_assert(strstr(e, "column 7") && strstr(e, "radius"), "%s", e);
    free(e);
}

/* ---- diff and merge ---- */

static void sweep_to(const char *inv, const char *json)
{
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    o.scale = SY_SCALE_SMALL;
    o.no_frames = 1;
    o.baseline = "";
    o.invariants_dir = inv;
    cr_assert_eq(gc_parse_level_list("3", o.levels, &o.level_count), 0);
    gc_report rep;
    char err[4096];
    cr_assert_lt(gc_sweep_run(&o, &rep, err, sizeof err), 2, "%s", err);
    gc_strbuf b;
    gc_sb_init(&b);
    cr_assert_eq(gc_report_json(&rep, &b), 0);
    write_text(json, b.s);
    gc_sb_free(&b);
    gc_report_free(&rep);
}

Test(gate, diff_lists_rows_newly_failing_and_passing, .init = setup, .timeout = 900)
{
    char inv1[1024], inv2[1024], dir[1024], a[1200], b[1200], out[1200], errp[1200], err[256];
    failing_invariants(inv1, sizeof inv1, "diffa", "row != 7 and row != 8");
    failing_invariants(inv2, sizeof inv2, "diffb", "row != 7 and row != 9");
    tmpdir(dir, sizeof dir, "diff");
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    sweep_to(inv1, a);
    sweep_to(inv2, b);
    char *argv[] = {"diff", a, b, "--format", "json", NULL};
    cr_assert_eq(run_captured(gc_cmd_diff, argv, out, errp), 1);
    char *o = slurp(out);
    gc_json *j = gc_json_parse(o, err, sizeof err);
    cr_assert_not_null(j, "%s", err);
    const gc_json *res = gc_json_get(j, "results");
    cr_assert_eq(res->count, 1);
    const gc_json *nf = gc_json_get(res->items[0], "newly_failing");
    const gc_json *np = gc_json_get(res->items[0], "newly_passing");
    cr_assert_eq(nf->count, 1);
    cr_assert_eq(np->count, 1);
    cr_assert_eq(gc_json_num(gc_json_get(nf->items[0], "row"), -1), 9);
    cr_assert_eq(gc_json_num(gc_json_get(np->items[0], "row"), -1), 8);
    cr_assert(gc_json_get(res->items[0], "rows_complete")->boolean);
    gc_json_free(j);
    free(o);
    char *t[] = {"diff", a, b, NULL};
    cr_assert_eq(run_captured(gc_cmd_diff, t, out, errp), 1);
    o = slurp(out);
    cr_assert(strstr(o, "+ level 3 tfrag.vertex row 9") != NULL, "%s", o);
    cr_assert(strstr(o, "- level 3 tfrag.vertex row 8") != NULL, "%s", o);
    free(o);
    char *same[] = {"diff", a, a, NULL};
    cr_assert_eq(run_captured(gc_cmd_diff, same, out, errp), 0);
}

Test(gate, merge_writes_junit_and_names_a_missing_shard, .init = setup, .timeout = 900)
{
    need_xmllint();
    char dir[1024], s1[1200], s2[1200], out[1200], junit[1200], md[1200], o1[1200], e1[1200];
    char err[4096];
    tmpdir(dir, sizeof dir, "merge");
    snprintf(s1, sizeof s1, "%s/s1.json", dir);
    snprintf(s2, sizeof s2, "%s/s2.json", dir);
    snprintf(out, sizeof out, "%s/m.json", dir);
    snprintf(junit, sizeof junit, "%s/m.xml", dir);
    snprintf(md, sizeof md, "%s/m.md", dir);
    snprintf(o1, sizeof o1, "%s/out.txt", dir);
    snprintf(e1, sizeof e1, "%s/err.txt", dir);
    for (int k = 1; k <= 2; k++) {
        gc_sweep_opts o;
        gc_sweep_opts_init(&o);
        o.scale = SY_SCALE_SMALL;
        o.no_frames = 1;
        o.shard_k = k;
        o.shard_n = 2;
        gc_report rep;
        cr_assert_lt(gc_sweep_run(&o, &rep, err, sizeof err), 2, "%s", err);
        gc_strbuf b;
        gc_sb_init(&b);
        cr_assert_eq(gc_report_json(&rep, &b), 0);
        write_text(k == 1 ? s1 : s2, b.s);
        gc_sb_free(&b);
        gc_report_free(&rep);
    }
    char *argv[] = {"merge", s2, s1, "-o", out, "--junit", junit, "--markdown", md, NULL};
    cr_assert_eq(run_captured(gc_cmd_merge, argv, o1, e1), 0);
    cr_assert(xsd_valid(junit));
    char *j = slurp(junit), *m = slurp(md);
    cr_assert(strstr(j, "classname=\"corpus\" name=\"texture.opacity\"") != NULL);
    cr_assert(strstr(m, "## gcverify sweep: passed") != NULL, "%s", m);
    free(j);
    free(m);
    char *missing[] = {"merge", s1, "-o", out, NULL};
    cr_assert_eq(run_captured(gc_cmd_merge, missing, o1, e1), 2);
    char *e = slurp(e1);
    cr_assert(strstr(e, "shard 2/2 missing") != NULL, "%s", e);
    free(e);
}

/* ---- the frame image store ---- */

Test(gate, regressed_frame_gets_expected_and_diff_from_the_store, .init = setup, .timeout = 900)
{
    char dir[1024], frames_out[1200], review[1200], golden[1200], err[4096];
    tmpdir(dir, sizeof dir, "store");
    gc_rm_rf(store_dir);
    snprintf(frames_out, sizeof frames_out, "%s/frames", dir);
    snprintf(review, sizeof review, "%s/review", dir);
    snprintf(golden, sizeof golden, "%s/frames.yaml", dir);
    /* a sweep with --frames-out fills the store with level 0's pictures */
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    o.scale = SY_SCALE_SMALL;
    o.baseline = "";
    o.frames_golden = "";
    o.frames_out = frames_out;
    cr_assert_eq(gc_parse_level_list("0", o.levels, &o.level_count), 0);
    gc_report rep;
    cr_assert_lt(gc_sweep_run(&o, &rep, err, sizeof err), 2, "%s", err);
    cr_assert_eq(rep.frame_count, 2);
    char ground0[65];
    const char *manifest = NULL;
    for (size_t i = 0; i < rep.frame_count; i++)
        if (strcmp(rep.frames[i].view, "ground") == 0) {
            snprintf(ground0, sizeof ground0, "%s", rep.frames[i].sha256);
            manifest = rep.frames[i].manifest;
        }
    char path[4200];
    gc_image_store_path(store_dir, ground0, path, sizeof path);
    cr_assert_eq(access(path, F_OK), 0, "the store holds level 0's ground frame at %s", path);
    gc_frame f;
    cr_assert_eq(gc_image_store_get(store_dir, ground0, "ground", &f, err, sizeof err), 1, "%s",
                 err);
    gc_frame_free(&f);
    /* a golden that says level 1's ground view is level 0's picture */
    gc_golden_frames g;
    memset(&g, 0, sizeof g);
    cr_assert_eq(gc_golden_frames_set(&g, 1, "ground", ground0, manifest), 0);
    cr_assert_eq(gc_golden_frames_save(golden, &g, err, sizeof err), 0, "%s", err);
    gc_golden_frames_free(&g);
    gc_report_free(&rep);
    o.frames_out = NULL;
    o.frames_golden = golden;
    o.golden_images = review;
    cr_assert_eq(gc_parse_level_list("1", o.levels, &o.level_count), 0);
    cr_assert_eq(gc_sweep_run(&o, &rep, err, sizeof err), 1, "%s", err);
    const gc_rep_frame *r = NULL;
    for (size_t i = 0; i < rep.frame_count; i++)
        if (strcmp(rep.frames[i].view, "ground") == 0)
            r = &rep.frames[i];
    cr_assert_not_null(r);
    cr_assert_str_eq(r->status, "regressed");
    cr_assert_not_null(r->image_expected, "the expected picture comes from the store");
    cr_assert_not_null(r->image_diff);
    cr_assert_not_null(r->image_actual);
    cr_assert_eq(access(r->image_diff, F_OK), 0);
    /* the count is the true number of differing pixels of the two pictures */
    gc_frame a, e;
    cr_assert_eq(gc_frame_load_png(r->image_actual, "ground", &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(gc_frame_load_png(r->image_expected, "ground", &e, err, sizeof err), 0, "%s", err);
    uint64_t n = gc_frame_changed_pixels(&a, &e);
    cr_assert_gt(n, 0);
    cr_assert_eq(r->pixels_changed, n);
    gc_frame_free(&a);
    gc_frame_free(&e);
    gc_strbuf md;
    gc_sb_init(&md);
    cr_assert_eq(gc_report_markdown(&rep, &md), 0);
    cr_assert(strstr(md.s, r->image_diff) != NULL, "Markdown names the diff image");
    gc_sb_free(&md);
    gc_report_free(&rep);
}
