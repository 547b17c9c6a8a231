/* SPDX-License-Identifier: MIT */
/* The sweep as a CI gate: determinism across --jobs, exit codes, isolation of
 * a bad level, shard merge equal to a single run, baseline comparison field
 * by field, bless refusing in CI, report round trips. Runs on the small
 * synthetic corpus (generated into the build tree's cache). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gc_baseline.h"
#include "gc_corpus.h"
#include "gc_fsutil.h"
#include "gc_report.h"
#include "gc_strbuf.h"
#include "gc_sweep.h"
#include "gc_sweep_tables.h"
#include "gc_table.h"
#include "sy_corpus.h"

int gc_cmd_merge(int argc, char **argv);
int gc_cmd_bless(int argc, char **argv);

static void setup(void)
{
    setenv("GC_CACHE_DIR", GC_BINARY_DIR "/test-cache", 1);
    unsetenv("CI");
}

static void small_opts(gc_sweep_opts *o, const char *levels)
{
    gc_sweep_opts_init(o);
    o->scale = SY_SCALE_SMALL;
    o->no_frames = 1;
    o->baseline = "";
    if (levels)
        cr_assert_eq(gc_parse_level_list(levels, o->levels, &o->level_count), 0);
}

static char *run_json(const gc_sweep_opts *o, int *rc_out)
{
    gc_report rep;
    char err[4096] = "";
    int rc = gc_sweep_run(o, &rep, err, sizeof err);
    cr_assert_lt(rc, 2, "sweep failed to run: %s", err);
    gc_strbuf b;
    gc_sb_init(&b);
    cr_assert_eq(gc_report_json(&rep, &b), 0);
    gc_report_free(&rep);
    if (rc_out)
        *rc_out = rc;
    return gc_sb_take(&b);
}

static void tmpdir(char *out, size_t n, const char *tag)
{
    snprintf(out, n, "%s/test-tmp/%s-%ld", GC_BINARY_DIR, tag, (long)getpid());
    gc_rm_rf(out);
    char err[256];
    cr_assert_eq(gc_mkdir_p(out, err, sizeof err), 0, "%s", err);
}

Test(sweep, report_identical_for_any_jobs, .init = setup, .timeout = 900)
{
    gc_sweep_opts o;
    small_opts(&o, "0-8");
    o.jobs = 1;
    char *a = run_json(&o, NULL);
    o.jobs = 2;
    char *b = run_json(&o, NULL);
    o.jobs = 5;
    char *c = run_json(&o, NULL);
    cr_assert_str_eq(a, b, "--jobs 1 and --jobs 2 wrote different reports");
    cr_assert_str_eq(a, c, "--jobs 1 and --jobs 5 wrote different reports");
    cr_assert(strstr(a, "\"results\": [") != NULL);
    free(a);
    free(b);
    free(c);
}

Test(sweep, invalid_yaml_is_exit_2_with_file_and_line, .init = setup)
{
    char dir[1024], path[1100], err[4096] = "";
    tmpdir(dir, sizeof dir, "badyaml");
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    const char *text =
        "invariants:\n  - id: broken.one\n    expect: vert_cout == 1 and (\n    why: x\n";
    cr_assert_eq(gc_write_file_atomic(path, text, strlen(text), err, sizeof err), 0);
    gc_sweep_opts o;
    small_opts(&o, "0");
    o.invariants_dir = dir;
    gc_report rep;
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    gc_report_free(&rep);
    cr_assert_eq(rc, 2);
    cr_assert(strstr(err, "bad.yaml:3:") != NULL, "error should name file and line: %s", err);
}

Test(sweep, unreadable_corpus_is_exit_3, .init = setup)
{
    gc_sweep_opts o;
    small_opts(&o, NULL);
    o.corpus_dir = GC_BINARY_DIR "/no-such-corpus-dir";
    gc_report rep;
    char err[1024] = "";
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    gc_report_free(&rep);
    cr_assert_eq(rc, 3);
    cr_assert(strstr(err, "no-such-corpus-dir") != NULL, "%s", err);
}

static const gc_rep_level *find_level(const gc_report *r, int level)
{
    for (size_t i = 0; i < r->level_count; i++)
        if (r->levels[i].level == level)
            return &r->levels[i];
    return NULL;
}

Test(sweep, bad_level_never_stops_the_others, .init = setup, .timeout = 900)
{
    char cdir[4096], err[4096] = "";
    cr_assert_eq(gc_corpus_synthetic(SY_SCALE_SMALL, 1, 2, 0, cdir, sizeof cdir, err, sizeof err),
                 0, "%s", err);
    char dir[1024];
    tmpdir(dir, sizeof dir, "badlevel");
    for (int i = 2; i <= 6; i++) {
        char src[4200], dst[1200];
        snprintf(src, sizeof src, "%s/LEVEL%d.WAD", cdir, i);
        /* lower-case names: the loader takes any case */
        snprintf(dst, sizeof dst, "%s/level%d.wad", dir, i);
        size_t len;
        char *data = gc_read_file(src, &len, err, sizeof err);
        cr_assert_not_null(data, "%s", err);
        if (i == 3)
            len = len > 5000 ? 5000 : len; /* truncated inside the data extent */
        if (i != 5)                        /* LEVEL5 missing altogether */
            cr_assert_eq(gc_write_file_atomic(dst, data, len, err, sizeof err), 0);
        free(data);
    }
    gc_sweep_opts o;
    small_opts(&o, "2-6");
    o.corpus_dir = dir;
    gc_report bad, good;
    int rc = gc_sweep_run(&o, &bad, err, sizeof err);
    /* 4: part of the corpus (LEVEL5) could not be read (gc_exit.h) */
    cr_assert_eq(rc, 4, "a truncated and a missing level must fail the gate (rc %d: %s)", rc, err);
    o.corpus_dir = cdir;
    cr_assert_lt(gc_sweep_run(&o, &good, err, sizeof err), 2);
    for (int lv = 2; lv <= 6; lv++) {
        const gc_rep_level *b = find_level(&bad, lv), *g = find_level(&good, lv);
        cr_assert_not_null(b);
        cr_assert_not_null(g);
        if (lv == 3) {
            int failed = 0;
            for (size_t d = 0; d < b->decoder_count; d++)
                failed |= !b->decoders[d].ok && !b->decoders[d].skipped;
            cr_assert(failed, "the truncated level must report a decoder error");
        } else if (lv == 5) {
            cr_assert_eq(b->loaded, 0);
            cr_assert(b->error && strstr(b->error, "LEVEL5.WAD"), "missing level error: %s",
                      b->error);
        } else {
            /* the untouched levels decode exactly as in the clean corpus */
            cr_assert_eq(b->decoder_count, g->decoder_count);
            for (size_t d = 0; d < b->decoder_count; d++)
                cr_assert_str_eq(b->decoders[d].status, g->decoders[d].status,
                                 "level %d decoder %s", lv, b->decoders[d].name);
        }
    }
    int decode_ok_failed_3 = 0, decode_ok_failed_5 = 0;
    for (size_t i = 0; i < bad.result_count; i++)
        if (strcmp(bad.results[i].invariant, "decode.ok") == 0 && bad.results[i].failed) {
            decode_ok_failed_3 |= bad.results[i].level == 3;
            decode_ok_failed_5 |= bad.results[i].level == 5;
        }
    cr_assert(decode_ok_failed_3 && decode_ok_failed_5, "decode.ok must fail on levels 3 and 5");
    gc_report_free(&bad);
    gc_report_free(&good);
}

Test(sweep, merged_shards_equal_the_single_run, .init = setup, .timeout = 900)
{
    char dir[1024], err[4096] = "";
    tmpdir(dir, sizeof dir, "shards");
    gc_sweep_opts o;
    small_opts(&o, "0-6");
    o.no_frames = 0;
    o.frames_golden = "";
    char *single = run_json(&o, NULL);
    char paths[3][1200];
    for (int k = 1; k <= 3; k++) {
        o.shard_k = k;
        o.shard_n = 3;
        char *j = run_json(&o, NULL);
        snprintf(paths[k - 1], sizeof paths[k - 1], "%s/shard%d.json", dir, k);
        cr_assert_eq(gc_write_file_atomic(paths[k - 1], j, strlen(j), err, sizeof err), 0);
        free(j);
    }
    char out[1200];
    snprintf(out, sizeof out, "%s/merged.json", dir);
    char *argv[] = {"merge", paths[2], paths[0], paths[1], "-o", out, NULL};
    int rc = gc_cmd_merge(6, argv);
    cr_assert_lt(rc, 2);
    char *merged = gc_read_file(out, NULL, err, sizeof err);
    cr_assert_not_null(merged, "%s", err);
    cr_assert_str_eq(merged, single, "merge of 3 shards differs from the single run");
    free(merged);
    free(single);
}

Test(sweep, baseline_changes_are_reported_per_field, .init = setup, .timeout = 900)
{
    char dir[1024], path[1200], err[4096] = "";
    tmpdir(dir, sizeof dir, "baseline");
    snprintf(path, sizeof path, "%s/metrics.yaml", dir);
    const char *text = "format: 1\ncorpus: synthetic-small-seed1\nlevels:\n  \"1\":\n"
                       "    decode.decoders_failed: 7\n    decode.ok.failed: 3\n";
    cr_assert_eq(gc_write_file_atomic(path, text, strlen(text), err, sizeof err), 0);
    gc_sweep_opts o;
    small_opts(&o, "1");
    o.baseline = path;
    gc_report rep;
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    cr_assert_eq(rc, 1, "a metric that moved must fail the gate (%s)", err);
    cr_assert(rep.baseline_found);
    int saw = 0;
    for (size_t i = 0; i < rep.change_count; i++) {
        char line[256];
        gc_report_format_change(&rep.changes[i], line, sizeof line);
        if (strcmp(rep.changes[i].field, "decode.decoders_failed") == 0) {
            cr_assert_str_eq(line, "level 1, decode.decoders_failed: 7 -> 0");
            saw |= 1;
        }
        if (strcmp(rep.changes[i].field, "decode.ok.failed") == 0) {
            cr_assert_str_eq(line, "level 1, decode.ok.failed: 3 -> 0");
            saw |= 2;
        }
    }
    cr_assert_eq(saw, 3, "both moved fields must be reported");
    gc_report_free(&rep);

    /* a baseline of another corpus is a usage error, not a silent pass */
    const char *other = "format: 1\ncorpus: synthetic-retail-seed1\nlevels:\n  \"1\":\n    x: 1\n";
    cr_assert_eq(gc_write_file_atomic(path, other, strlen(other), err, sizeof err), 0);
    rc = gc_sweep_run(&o, &rep, err, sizeof err);
    gc_report_free(&rep);
    cr_assert_eq(rc, 2);
    cr_assert(strstr(err, "synthetic-retail-seed1") != NULL, "%s", err);
}

Test(bless, refuses_in_ci_and_without_reason, .init = setup)
{
    char dir[1024], path[1200], ledger[1200];
    tmpdir(dir, sizeof dir, "blessci");
    snprintf(path, sizeof path, "%s/metrics.yaml", dir);
    snprintf(ledger, sizeof ledger, "%s/LEDGER.md", dir);
    setenv("CI", "true", 1);
    char *a1[] = {"bless",       "--reason",   "because", "--scale",  "small", "--levels", "0",
                  "--no-frames", "--baseline", path,      "--ledger", ledger,  NULL};
    cr_assert_eq(gc_cmd_bless(12, a1), 2);
    cr_assert_neq(access(path, F_OK), 0, "bless wrote a baseline in CI");
    unsetenv("CI");
    char *a2[] = {"bless",       "--reason",   "  ", "--scale",  "small", "--levels", "0",
                  "--no-frames", "--baseline", path, "--ledger", ledger,  NULL};
    cr_assert_eq(gc_cmd_bless(12, a2), 2);
    cr_assert_neq(access(path, F_OK), 0, "bless wrote a baseline without a reason");
}

Test(bless, writes_baseline_atomically_and_appends_the_ledger, .init = setup, .timeout = 900)
{
    char dir[1024], path[1200], ledger[1200], err[4096] = "";
    tmpdir(dir, sizeof dir, "bless");
    snprintf(path, sizeof path, "%s/metrics.yaml", dir);
    snprintf(ledger, sizeof ledger, "%s/LEDGER.md", dir);
    char *argv[] = {"bless",   "--reason",    "first baseline for the test",
                    "--scale", "small",       "--levels",
                    "0,1",     "--no-frames", "--baseline",
                    path,      "--ledger",    ledger,
                    NULL};
    cr_assert_eq(gc_cmd_bless(12, argv), 0);
    char *b = gc_read_file(path, NULL, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    cr_assert(strstr(b, "corpus: synthetic-small-seed1") != NULL);
    cr_assert(strstr(b, "\"1\":") != NULL);
    free(b);
    char *l = gc_read_file(ledger, NULL, err, sizeof err);
    cr_assert_not_null(l, "%s", err);
    cr_assert(strstr(l, "first baseline for the test") != NULL);
    free(l);
    /* no temp file left beside it */
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "ls %s | grep -q tmp", dir);
    cr_assert_neq(system(cmd), 0, "a temporary file was left behind");
    /* the blessed figures now compare equal */
    gc_sweep_opts o;
    small_opts(&o, "0,1");
    o.baseline = path;
    gc_report rep;
    cr_assert_lt(gc_sweep_run(&o, &rep, err, sizeof err), 2);
    cr_assert(rep.baseline_found);
    cr_assert_eq(rep.change_count, 0, "fresh baseline must compare equal");
    gc_report_free(&rep);
}

Test(report, json_round_trip_and_junit_testcases, .init = setup, .timeout = 900)
{
    gc_sweep_opts o;
    small_opts(&o, "0,4");
    gc_report rep;
    char err[4096] = "";
    cr_assert_lt(gc_sweep_run(&o, &rep, err, sizeof err), 2, "%s", err);
    gc_strbuf a, b, j;
    gc_sb_init(&a);
    gc_sb_init(&b);
    gc_sb_init(&j);
    cr_assert_eq(gc_report_json(&rep, &a), 0);
    gc_report back;
    cr_assert_eq(gc_report_from_json(&back, a.s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(gc_report_json(&back, &b), 0);
    cr_assert_str_eq(a.s, b.s, "JSON report does not round-trip");
    cr_assert_eq(gc_report_junit(&rep, &j), 0);
    size_t cases = 0;
    for (const char *p = j.s; (p = strstr(p, "<testcase ")) != NULL; p++)
        cases++;
    cr_assert_eq(cases, rep.result_count + rep.frame_count, "one testcase per invariant x level");
    cr_assert(strstr(j.s, "<testsuites") && strstr(j.s, "</testsuites>"));
    gc_report_free(&back);
    gc_report_free(&rep);
    gc_sb_free(&a);
    gc_sb_free(&b);
    gc_sb_free(&j);
}

/* Reading a report someone hands diff or merge: a count, offset, row or level that is not a
 * whole number in its type's range, a change without its field, or an entry whose key is
 * another's (diff looks entries up by key: it showed such a report differing from itself)
 * is an error that names it (converting such a double was undefined behaviour, and a change without
 * a field crashed the sort: fuzz_report found both); the extremes the writer itself writes still
 * read. */
static int read_report(const char *body, gc_report *r, char *err, size_t errlen)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"format\": %d, %s}", GC_REPORT_FORMAT, body);
    return gc_report_from_json(r, text, err, errlen);
}

Test(report, out_of_range_numbers_and_nameless_changes_are_errors)
{
    static const struct {
        const char *body, *names;
    } bad[] = {
        {"\"results\": [{\"invariant\": \"x\", \"checked\": 1e300}]", "'checked'"},
        {"\"results\": [{\"invariant\": \"x\", \"failed\": -1}]", "'failed'"},
        {"\"results\": [{\"invariant\": \"x\", \"checked\": 2.5}]", "'checked'"},
        {"\"results\": [{\"invariant\": \"x\", \"level\": 3e9}]", "'level'"},
        {"\"levels\": [{\"level\": 0, \"regions\": [{\"extent_ofs\": -5776}]}]", "'extent_ofs'"},
        {"\"frames\": [{\"level\": 0, \"view\": \"v\", \"pixels_changed\": 1e20}]",
         "'pixels_changed'"},
        {"\"metrics\": {\"99999999999\": {\"m\": 1}}", "'level key'"},
        {"\"digests\": {\"0\": {\"t.c\": \"99999999999999999999999 "
         "0123456789abcdef0123456789abcdef\"}}",
         "digests.0.t.c"},
        {"\"changes\": [{\"level\": 0, \"old\": 1, \"new\": 2}]", "changes[0] has no field"},
        {"\"frames\": [{\"level\": 0, \"view\": \"g\"}, {\"level\": 0, \"view\": \"g\"}]",
         "frame 'g' of level 0 twice"},
        {"\"results\": [{\"invariant\": \"x\", \"level\": 2}, {\"invariant\": \"x\", "
         "\"level\": 2}]",
         "result 'x' of level 2 twice"},
        {"\"metrics\": {\"0\": {\"m\": 1}, \"00\": {\"m\": 2}}", "metric 'm' of level 0 twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gc_report r;
        char err[512] = "";
        cr_assert_neq(read_report(bad[i].body, &r, err, sizeof err), 0, "%s", bad[i].body);
        cr_assert(strstr(err, bad[i].names) != NULL, "%s: %s", bad[i].body, err);
    }
    /* UINT64_MAX as the writer prints it, a -1 row, 2^53 */
    gc_report r;
    char err[512] = "";
    cr_assert_eq(read_report("\"changes\": [{\"field\": \"a\", \"rows_changed\": "
                             "18446744073709551615}], \"results\": [{\"invariant\": \"x\", "
                             "\"checked\": 9007199254740992, \"samples\": [{\"row\": -1}]}]",
                             &r, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(r.changes[0].rows_changed, UINT64_MAX);
    cr_assert_eq(r.results[0].checked, 9007199254740992ull);
    cr_assert_eq(r.results[0].samples[0].row, -1);
    gc_report_free(&r);

    /* what a report holds, written again, reads back: a severity with a quote and a CR is
     * escaped (it was written raw), and a digest that is not 32 hex digits, which the writer
     * could not write as valid JSON, is refused on reading */
    cr_assert_eq(read_report("\"results\": [{\"invariant\": \"x\", \"severity\": "
                             "\"e\\\"\\r\", \"tier\": \"gate\", \"scope\": \"level\"}]",
                             &r, err, sizeof err),
                 0, "%s", err);
    gc_strbuf a;
    gc_sb_init(&a);
    cr_assert_eq(gc_report_json(&r, &a), 0);
    gc_report back;
    cr_assert_eq(gc_report_from_json(&back, a.s, err, sizeof err), 0, "%s: %s", err, a.s);
    cr_assert_str_eq(back.results[0].severity, "e\"\r");
    gc_report_free(&back);
    gc_report_free(&r);
    gc_sb_free(&a);
    cr_assert_neq(read_report("\"digests\": {\"0\": {\"t.c\": \"12 "
                              "0123456789abcdef0123456789abcde\\\\\"}}",
                              &r, err, sizeof err),
                  0);
    cr_assert(strstr(err, "digests.0.t.c") != NULL, "%s", err);
}

/* The corpus tables merge rebuilds from a shard's report: a value its column cannot hold
 * (converting it was undefined behaviour), a level key not written as the writer writes it,
 * or one level twice (merge echoed both as one key, a duplicate) are errors that say so. */
Test(report, corpus_tables_values_and_level_keys_are_checked)
{
    static const struct {
        const char *json, *says;
    } cases[] = {
        {"{\"0\": {\"level.header\": {\"columns\": [\"header_size\"], \"rows\": [[96]]}}}", NULL},
        {"{\"0\": {\"level.header\": {\"columns\": [\"header_size\"], \"rows\": [[1e300]]}}}",
         "header_size cannot hold that value"},
        {"{\"0\": {\"level.header\": {\"columns\": [\"file_size\"], \"rows\": [[-1]]}}}",
         "file_size cannot hold that value"},
        {"{\"0\": {\"level.header\": {\"columns\": [\"header_size\"], \"rows\": [[2.5]]}}}",
         "header_size cannot hold that value"},
        {"{\"00\": {}}", "is not a level number"},
        {"{\"27\": {}}", "is not a level number"},
        {"{\"x\": {}}", "is not a level number"},
    };
    size_t ndesc;
    const gc_table_desc *const *descs = gc_table_registry(&ndesc);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char err[512] = "";
        gc_json *j = gc_json_parse(cases[i].json, err, sizeof err);
        cr_assert(j, "%s", err);
        const gc_json *objs[1] = {j};
        gc_loaded_tables lt;
        int rc = gc_sweep_tables_load(objs, 1, descs, ndesc, &lt, err, sizeof err);
        if (!cases[i].says) {
            cr_assert_eq(rc, 0, "%s: %s", cases[i].json, err);
            gc_loaded_tables_free(&lt);
        } else {
            cr_assert_neq(rc, 0, "%s", cases[i].json);
            cr_assert(strstr(err, cases[i].says) != NULL, "%s: %s", cases[i].json, err);
        }
        gc_json_free(j);
    }
    /* the same level in two shards */
    char err[512] = "";
    gc_json *a = gc_json_parse("{\"3\": {}}", err, sizeof err);
    gc_json *b = gc_json_parse("{\"3\": {}}", err, sizeof err);
    const gc_json *two[2] = {a, b};
    gc_loaded_tables lt;
    cr_assert_neq(gc_sweep_tables_load(two, 2, descs, ndesc, &lt, err, sizeof err), 0);
    cr_assert(strstr(err, "appears twice") != NULL, "%s", err);
    gc_json_free(a);
    gc_json_free(b);
}

/* The blessed retail baseline must add up to every figure the reference notes
 * measured on the real disc (level-assets.md), so a re-bless can never quietly
 * move the synthetic corpus away from the retail shape. CI's gate sweep then
 * checks that the corpus still decodes to exactly these per-level figures. */
Test(baseline, retail_figures_equal_the_disc)
{
    gc_baseline b;
    int found = 0;
    char err[1024] = "";
    cr_assert_eq(
        gc_baseline_load(GC_SOURCE_DIR "/golden/metrics.yaml", &b, &found, err, sizeof err), 0,
        "%s", err);
    cr_assert(found, "golden/metrics.yaml is missing");
    cr_assert_str_eq(b.corpus_key, "synthetic-retail-seed1");
    static const struct {
        const char *metric;
        double total, level0; /* level0 < 0: no level-0 figure recorded */
    } disc[] = {
        {"tfrag.patches", 18102, 833},
        {"tfrag.positions", 821439, -1},
        {"tfrag.triangles", 809879, -1},
        {"tfrag.vertex_info", 886841, -1},
        {"tfrag.vertex_info_common", 516492, -1},
        {"tfrag.vertex_info_lod01", 29043, -1},
        {"tfrag.vertex_info_lod0", 341306, -1},
        {"tfrag.adgifs", 47950, -1},
        {"texture.tfrag", 1595, 93},
        {"classes.moby", 5796, 238},
        {"classes.tie", 1864, 74},
        {"classes.shrub", 358, 7},
        {"moby.packets", 43467, -1},
        {"moby.packets_zero_zero", 172, -1},
        {"moby.vif_qwords", 1270802, -1},
        {"tie.lod_order.failed", 80, -1},
        {"texture.referenced.checked", 1595, -1},
        {"texture.referenced.failed", 1595 - 1429, -1},
    };
    for (size_t i = 0; i < sizeof disc / sizeof disc[0]; i++) {
        double sum = 0, l0 = -1;
        int levels = 0;
        for (size_t k = 0; k < b.count; k++)
            if (b.metrics[k].level != GC_LEVEL_CORPUS &&
                strcmp(b.metrics[k].name, disc[i].metric) == 0) {
                sum += b.metrics[k].value;
                levels++;
                if (b.metrics[k].level == 0)
                    l0 = b.metrics[k].value;
            }
        cr_expect_eq(levels, 27, "%s: %d levels in the baseline", disc[i].metric, levels);
        cr_expect_eq(sum, disc[i].total, "%s: baseline total %.0f, the disc has %.0f",
                     disc[i].metric, sum, disc[i].total);
        if (disc[i].level0 >= 0)
            cr_expect_eq(l0, disc[i].level0, "%s on level 0: %.0f, the disc has %.0f",
                         disc[i].metric, l0, disc[i].level0);
    }
    gc_baseline_free(&b);
}
