/* SPDX-License-Identifier: MIT */
/* gcverify sweep: the main job. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gc_cli.h"
#include "gc_exit.h"
#include "gc_fsutil.h"
#include "gc_html.h"
#include "gc_nightly.h"
#include "gc_strbuf.h"
#include "gc_sweep.h"

int gc_cmd_sweep(int argc, char **argv);

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gcverify sweep [options]\n\n"
            "Decode every selected level in parallel, evaluate every invariant in\n"
            "invariants/*.yaml, render and hash the gate views, compare per-level metrics\n"
            "with the blessed baseline and frames with their golden hashes, write reports.\n\n"
            "%s%s"
            "reports:\n"
            "  --json F             full results (F = - for stdout; the terminal summary then\n"
            "                       goes to stderr, so stdout is the JSON alone)\n"
            "  --junit F            JUnit XML (junit-10.xsd): one testcase per invariant x\n"
            "                       level, frame and per-level metric comparison, with its\n"
            "                       CPU time\n"
            "  --markdown F         Markdown summary for a CI job page\n"
            "  --timings F          wall-clock timings as JSON (kept out of the JSON report so\n"
            "                       it is byte-identical for any --jobs; JUnit times too)\n"
            "  --quiet              no progress and no summary on the terminal\n"
            "  --verbose            also list info-severity failures\n\n"
            "The closing line 'sweep: N passed, N failed, N skipped' counts every gated\n"
            "item: invariant x level results, frames, per-level baseline comparisons.\n\n"
            "exit codes: 0 no gating failure; 1 a gating invariant failed, a metric\n"
            "changed against the baseline or a frame regressed; 2 bad usage (also a named\n"
            "file that does not exist, a selection that selects nothing, a baseline of\n"
            "another corpus) or invalid invariant YAML; 3 corpus unreadable; 4 part of the\n"
            "corpus unreadable; 5 a report or other output could not be written.\n",
            gc_cli_sweep_options_help, gc_nightly_options_help);
}

int gc_cmd_sweep(int argc, char **argv)
{
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    const char *json = NULL, *junit = NULL, *md = NULL, *timings = NULL;
    gc_nightly_opts nightly;
    gc_nightly_opts_init(&nightly);
    int quiet = 0, verbose = 0;
    char err[4096];
    for (int i = 1; i < argc; i++) {
        int r = gc_cli_sweep_option(argc, argv, &i, &o, err, sizeof err);
        if (r < 0) {
            fprintf(stderr, "gcverify sweep: %s\n", err);
            return 2;
        }
        if (r > 0)
            continue;
        r = gc_nightly_option(argc, argv, &i, &nightly, err, sizeof err);
        if (r < 0) {
            fprintf(stderr, "gcverify sweep: %s\n", err);
            return 2;
        }
        if (r > 0)
            continue;
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0 || strcmp(a, "--junit") == 0 ||
                   strcmp(a, "--markdown") == 0 || strcmp(a, "--timings") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gcverify sweep: %s needs a value\n", a);
                return 2;
            }
            const char **dst = a[2] == 'j'   ? (a[3] == 's' ? &json : &junit)
                               : a[2] == 'm' ? &md
                                             : &timings;
            *dst = argv[++i];
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            verbose = 1;
        } else {
            fprintf(stderr, "gcverify sweep: unknown option '%s' (see gcverify sweep --help)\n", a);
            return 2;
        }
    }
    /* an output directory that cannot be made is a failed write, before
     * anything runs */
    if ((o.frames_out && gc_mkdir_p(o.frames_out, err, sizeof err) != 0) ||
        (o.golden_images && gc_mkdir_p(o.golden_images, err, sizeof err) != 0)) {
        fprintf(stderr, "gcverify sweep: %s\n", err);
        return GC_EXIT_WRITE;
    }
    if (gc_nightly_before_sweep(&nightly, &o, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify sweep: %s\n", err);
        return GC_EXIT_WRITE;
    }
    o.progress = quiet ? 0 : isatty(2) ? 2 : 1;
    gc_sweep_timings tm;
    o.timings = &tm;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gc_report rep;
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (rc == GC_EXIT_USAGE || rc == GC_EXIT_CORPUS) {
        fprintf(stderr, "gcverify sweep: %s\n", err);
        gc_report_free(&rep);
        gc_nightly_cleanup(&nightly);
        return rc;
    }
    if (gc_nightly_after_sweep(&nightly, &rep, argc, argv) != 0)
        rc = gc_exit_with_write_failure(rc);
    if (gc_cli_write_reports(&rep, json, junit, md) != 0)
        rc = gc_exit_with_write_failure(rc);
    if (timings) {
        gc_strbuf t;
        gc_sb_init(&t);
        gc_sb_printf(&t,
                     "{\n  \"wall_seconds\": %.3f,\n  \"jobs\": %u,\n  \"levels\": %zu,\n"
                     "  \"phases_wall_seconds\": {\"corpus_open\": %.3f, \"levels\": %.3f, "
                     "\"corpus_scope\": %.3f},\n"
                     "  \"cpu_seconds\": {\"decode\": %.3f, \"evaluate\": %.3f, \"render\": %.3f, "
                     "\"digests\": %.3f},\n"
                     "  \"per_level_cpu_seconds\": [",
                     wall, tm.jobs, rep.selected_count, tm.wall_corpus_open, tm.wall_levels,
                     tm.wall_corpus_scope, tm.cpu_decode, tm.cpu_eval, tm.cpu_render,
                     tm.cpu_digest);
        for (size_t i = 0; i < rep.selected_count; i++) {
            int l = rep.selected[i];
            gc_sb_printf(
                &t,
                "%s\n    {\"level\": %d, \"decode\": %.4f, \"evaluate\": %.4f, \"render\": %.4f}",
                i ? "," : "", l, tm.level_decode[l], tm.level_eval[l], tm.level_render[l]);
        }
        gc_sb_puts(&t, "\n  ],\n  \"cases_cpu_seconds\": {");
        size_t nc = 0;
        for (size_t i = 0; i < rep.result_count; i++) {
            const gc_rep_result *x = &rep.results[i];
            char lv[16];
            if (x->level == GC_LEVEL_CORPUS)
                snprintf(lv, sizeof lv, "corpus");
            else
                snprintf(lv, sizeof lv, "%d", x->level);
            gc_sb_printf(&t, "%s\n    \"%s@%s\": %.6f", nc++ ? "," : "", x->invariant, lv,
                         x->time_seconds);
        }
        for (size_t i = 0; i < rep.frame_count; i++)
            gc_sb_printf(&t, "%s\n    \"frame.%s@%d\": %.6f", nc++ ? "," : "", rep.frames[i].view,
                         rep.frames[i].level, rep.frames[i].time_seconds);
        gc_sb_printf(&t,
                     "\n  },\n  \"memory\": {\"limit_bytes\": %zu, \"peak_bytes\": %zu, "
                     "\"waits\": %llu, \"reruns\": %llu}\n}\n",
                     tm.memory_limit_bytes, tm.memory_peak_bytes, tm.memory_waits,
                     tm.memory_reruns);
        if (t.failed || gc_write_file_atomic(timings, t.s, t.len, err, sizeof err) != 0) {
            fprintf(stderr, "gcverify sweep: cannot write %s: %s\n", timings,
                    t.failed ? "out of memory" : err);
            rc = gc_exit_with_write_failure(rc);
        }
        gc_sb_free(&t);
    }
    if (!quiet) {
        /* a report on stdout is machine output: keep it clean */
        int to_stdout = (json && strcmp(json, "-") == 0) || (junit && strcmp(junit, "-") == 0) ||
                        (md && strcmp(md, "-") == 0);
        FILE *out = to_stdout ? stderr : stdout;
        gc_term term;
        gc_term_init(&term, fileno(out));
        gc_cli_print_summary(&rep, &term, verbose, out);
        fprintf(stderr,
                "sweep: %.2f s wall on %u jobs (cpu: decode %.2f s, invariants %.2f s, frames %.2f "
                "s)\n",
                wall, tm.jobs, tm.cpu_decode, tm.cpu_eval, tm.cpu_render);
    }
    gc_report_free(&rep);
    gc_nightly_cleanup(&nightly);
    return rc;
}
