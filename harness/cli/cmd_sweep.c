/* SPDX-License-Identifier: MIT */
/* gcverify sweep: the main job. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gc_bigmem.h"
#include "gc_cli.h"
#include "gc_cli_opts.h"
#include "gc_exit.h"
#include "gc_fsutil.h"
#include "gc_html.h"
#include "gc_nightly.h"
#include "gc_strbuf.h"
#include "gc_sweep.h"

int gc_cmd_sweep(int argc, char **argv);

enum { K_JSON = GC_OPT_LONG, K_JUNIT, K_MARKDOWN, K_TIMINGS };

static const gc_opt report_opts[] = {
    {"json", K_JSON, "F",
     "full results (F = - for stdout; the terminal summary then\n"
     "goes to stderr, so stdout is the JSON alone)"},
    {"junit", K_JUNIT, "F",
     "JUnit XML (junit-10.xsd): one testcase per invariant x\n"
     "level, frame and per-level metric comparison, with its\n"
     "CPU time"},
    {"markdown", K_MARKDOWN, "F", "Markdown summary for a CI job page"},
    {"timings", K_TIMINGS, "F",
     "wall-clock timings as JSON (kept out of the JSON report so\n"
     "it is byte-identical for any --jobs; JUnit times too)"},
    {"quiet", 'q', NULL, "no progress and no summary on the terminal"},
    {"verbose", 'v', NULL, "also list info-severity failures"},
};

static const char about[] =
    "Decode every selected level in parallel, evaluate every invariant in\n"
    "invariants/*.yaml, render and hash the gate views, compare per-level metrics\n"
    "with the blessed baseline and frames with their golden hashes, write reports.\n"
    "On a terminal, progress is one updating line (levels done, percentage, elapsed\n"
    "time, ETA); otherwise one line per level on stderr.\n";

static const char footer[] =
    "The closing line 'sweep: N passed, N failed, N skipped' counts every gated\n"
    "item: invariant x level results, frames, per-level baseline comparisons.\n\n"
    "exit codes: 0 no gating failure; 1 a gating invariant failed, a metric\n"
    "changed against the baseline or a frame regressed; 2 bad usage (also a named\n"
    "file that does not exist, a selection that selects nothing, a baseline of\n"
    "another corpus) or invalid invariant YAML; 3 corpus unreadable; 4 part of the\n"
    "corpus unreadable; 5 a report or other output could not be written.\n";

int gc_cmd_sweep(int argc, char **argv)
{
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    const char *json = NULL, *junit = NULL, *md = NULL, *timings = NULL;
    gc_nightly_opts nightly;
    gc_nightly_opts_init(&nightly);
    int quiet = 0, verbose = 0, color = GC_COLOR_AUTO;
    char err[4096];
    const gc_opt_group groups[] = {
        gc_cli_sweep_groups[0],
        gc_cli_sweep_groups[1],
        gc_cli_sweep_groups[2],
        gc_nightly_group,
        GC_OPT_GROUP("reports:", report_opts),
        gc_opt_color_group,
    };
    const gc_cmd_spec spec = GC_CMD_SPEC("sweep", "[options]", about, groups, footer);
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return GC_EXIT_USAGE;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        int r = gc_cli_sweep_apply(&p, k, &o);
        if (r == 0)
            r = gc_nightly_apply(&p, k, &nightly);
        if (r < 0)
            return GC_EXIT_USAGE;
        if (r > 0)
            continue;
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return GC_EXIT_USAGE;
        case GC_OPT_ARG:
            return gc_opts_usage_error(&spec, "unexpected argument '%s'", p.value);
        case K_JSON:
            json = p.value;
            break;
        case K_JUNIT:
            junit = p.value;
            break;
        case K_MARKDOWN:
            md = p.value;
            break;
        case K_TIMINGS:
            timings = p.value;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'v':
            verbose = 1;
            break;
        case GC_OPT_COLOR:
            if (gc_opts_color(&p, &color) != 0)
                return GC_EXIT_USAGE;
            break;
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
        gc_sb_printf(
            &t,
            "{\n  \"wall_seconds\": %.3f,\n  \"jobs\": %u,\n  \"levels\": %zu,\n"
            "  \"phases_wall_seconds\": {\"setup\": %.3f, \"corpus_open\": %.3f, \"levels\": %.3f, "
            "\"corpus_scope\": %.3f, \"finish\": %.3f},\n"
            "  \"cpu_seconds\": {\"decode\": %.3f, \"evaluate\": %.3f, \"render\": %.3f, "
            "\"digests\": %.3f},\n"
            "  \"digest_tables\": {\"fingerprinted\": %zu, \"taken_from_baseline\": %zu},\n"
            "  \"per_level_cpu_seconds\": [",
            wall, tm.jobs, rep.selected_count, tm.wall_setup, tm.wall_corpus_open, tm.wall_levels,
            tm.wall_corpus_scope, tm.wall_finish, tm.cpu_decode, tm.cpu_eval, tm.cpu_render,
            tm.cpu_digest, tm.digest_tables, tm.digest_tables_reused);
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
                     "\"waits\": %llu, \"reruns\": %llu},\n",
                     tm.memory_limit_bytes, tm.memory_peak_bytes, tm.memory_waits,
                     tm.memory_reruns);
        /* the process's high-water mark of resident memory (charged bytes
         * above are only what the budget sees: no textures, no scene) */
        gc_sb_printf(&t,
                     "  \"peak_rss_bytes\": {\"after_corpus_open\": %zu, \"after_levels\": %zu, "
                     "\"after_corpus_scope\": %zu, \"rose_last_in\": {\"level\": %d, "
                     "\"phase\": \"%s\"}},\n",
                     tm.rss_after_open, tm.rss_after_levels, tm.rss_after_corpus, tm.rss_peak_level,
                     tm.rss_peak_phase);
        /* the large-block allocator (decoders/gc_bigmem.h) over the whole run:
         * how often a block came from the cache rather than fresh pages, how
         * many bytes of its populated blocks the kernel had to clear, how
         * many discarded bytes went to the cache and came back out of it, and
         * how much address space was new (fresh pages when written, but for the
         * cached huge pages moved into it) and how many resident cached bytes the
         * cache's bound unmapped */
        gc_big_stats bs;
        gc_big_stats_get(&bs);
        gc_sb_printf(
            &t,
            "  \"big_blocks\": {\"maps\": %llu, \"reuses\": %llu, \"splits\": %llu, "
            "\"rejoins\": %llu, \"growths\": %llu, \"evictions\": %llu, \"rounded\": %llu, "
            "\"peak_without_cache_bytes\": %zu, \"populated_cleared_bytes\": %llu, "
            "\"donated_bytes\": %llu, \"moved_bytes\": %llu, \"mapped_bytes\": %llu, "
            "\"evicted_bytes\": %llu},\n",
            (unsigned long long)bs.maps, (unsigned long long)bs.reuses,
            (unsigned long long)bs.splits, (unsigned long long)bs.rejoins,
            (unsigned long long)(bs.moves + bs.grows_in_place + bs.copies),
            (unsigned long long)bs.evictions, (unsigned long long)bs.rounded,
            bs.peak_without_cache_bytes, (unsigned long long)bs.populated_cleared_bytes,
            (unsigned long long)bs.donated_bytes, (unsigned long long)bs.moved_bytes,
            (unsigned long long)bs.mapped_bytes, (unsigned long long)bs.evicted_bytes);
        /* The schedule and its critical path: the levels are independent
         * tasks, so the level phase takes at least the larger of the CPU
         * work per job and the longest level; a worker that ends early
         * leaves its core idle for the rest (the tail). */
        double cpu_sum = 0, longest = 0, last_end = 0, first_end = -1;
        int longest_level = -1, last_level = -1;
        double worker_end[64] = {0};
        for (size_t i = 0; i < rep.selected_count; i++) {
            int l = rep.selected[i];
            double c = tm.level_decode[l] + tm.level_eval[l] + tm.level_render[l];
            cpu_sum += c;
            if (c > longest) {
                longest = c;
                longest_level = l;
            }
            if (tm.level_end[l] > last_end) {
                last_end = tm.level_end[l];
                last_level = l;
            }
            int w = tm.level_worker[l];
            if (w >= 0 && w < 64 && tm.level_end[l] > worker_end[w])
                worker_end[w] = tm.level_end[l];
        }
        unsigned nw = tm.jobs < 64 ? tm.jobs : 64;
        for (unsigned w = 0; w < nw; w++)
            if (first_end < 0 || worker_end[w] < first_end)
                first_end = worker_end[w];
        double per_job = tm.jobs ? cpu_sum / tm.jobs : cpu_sum;
        gc_sb_printf(&t,
                     "  \"critical_path\": {\"cpu_per_job_seconds\": %.3f, "
                     "\"longest_level\": %d, \"longest_level_cpu_seconds\": %.3f, "
                     "\"lower_bound_seconds\": %.3f, \"levels_wall_seconds\": %.3f, "
                     "\"last_level\": %d, \"tail_idle_seconds\": %.3f},\n",
                     per_job, longest_level, longest, per_job > longest ? per_job : longest,
                     tm.wall_levels, last_level, first_end < 0 ? 0.0 : last_end - first_end);
        gc_sb_puts(&t, "  \"schedule\": [");
        for (size_t i = 0; i < rep.selected_count; i++) {
            int l = rep.selected[i];
            gc_sb_printf(&t,
                         "%s\n    {\"level\": %d, \"worker\": %d, \"start\": %.3f, "
                         "\"frames_start\": %.3f, \"end\": %.3f}",
                         i ? "," : "", l, tm.level_worker[l], tm.level_start[l],
                         tm.level_eval_end[l], tm.level_end[l]);
        }
        gc_sb_puts(&t, "\n  ]\n}\n");
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
        gc_term_init_color(&term, fileno(out), color);
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
