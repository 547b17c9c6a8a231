/* SPDX-License-Identifier: MIT */
/* gcverify bless: accept the current metrics (and, with --frames, the frame
 * hashes) as the new baseline. Runs the sweep, rewrites the baseline file
 * atomically and appends what moved, and why, to golden/LEDGER.md. Refuses in
 * CI and without a reason: a baseline change is a reviewed decision. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gc_baseline.h"
#include "gc_cli.h"
#include "gc_fsutil.h"
#include "gc_golden_frames.h"
#include "gc_sweep.h"

int gc_cmd_bless(int argc, char **argv);

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gcverify bless --reason \"...\" [--frames] [--ledger F] [sweep options]\n\n"
            "Runs the sweep and writes its per-level metrics as the new baseline\n"
            "(golden/metrics.yaml for the default corpus), and with --frames its frame\n"
            "hashes as the new goldens (golden/frames.yaml), each atomically. Appends the\n"
            "date, the reason and every field that moved to golden/LEDGER.md.\n"
            "Refuses when the CI environment variable is set, and without a reason.\n\n%s",
            gc_cli_sweep_options_help);
}

/* Paths inside the project are written relative to it, so the ledger reads
 * the same from every checkout. */
static const char *project_relative(const char *path)
{
    size_t n = strlen(GC_SOURCE_DIR);
    if (strncmp(path, GC_SOURCE_DIR, n) == 0 && path[n] == '/')
        return path + n + 1;
    return path;
}

static int append_ledger(const char *path, const char *reason, const gc_report *rep,
                         const char *metrics_path, const char *frames_path, size_t frames_moved,
                         char *err, size_t errlen)
{
    size_t old_len = 0;
    char *old = gc_read_file(path, &old_len, err, errlen);
    gc_strbuf b;
    gc_sb_init(&b);
    if (old)
        gc_sb_put(&b, old, old_len);
    else
        gc_sb_puts(&b, "# Baseline ledger\n\nEvery `gcverify bless` appends an entry: when, why, "
                       "and what moved.\n");
    free(old);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    gc_sb_printf(&b, "\n## %s — %s\n\n", date, reason);
    gc_sb_printf(&b, "- corpus: %s; levels: %zu; tier: %s\n", rep->corpus_label,
                 rep->selected_count, rep->tier);
    gc_sb_printf(&b, "- metrics: `%s`", project_relative(metrics_path));
    if (frames_path)
        gc_sb_printf(&b, "; frames: `%s` (%zu frame hashes changed)", project_relative(frames_path),
                     frames_moved);
    gc_sb_puts(&b, "\n");
    if (!rep->baseline_found)
        gc_sb_puts(&b, "- first baseline for this corpus\n");
    else if (rep->change_count == 0)
        gc_sb_puts(&b, "- no metric moved\n");
    if (rep->baseline_found && rep->metrics_unblessed)
        gc_sb_printf(&b, "- %llu figures added (new invariants or metrics)\n",
                     (unsigned long long)rep->metrics_unblessed);
    else
        gc_sb_printf(&b, "- %zu fields moved:\n", rep->change_count);
    for (size_t i = 0; rep->baseline_found && i < rep->change_count; i++) {
        if (i == 200) {
            gc_sb_printf(&b, "  - … and %zu more\n", rep->change_count - 200);
            break;
        }
        char line[256];
        gc_report_format_change(&rep->changes[i], line, sizeof line);
        gc_sb_printf(&b, "  - %s\n", line);
    }
    int rc = b.failed ? -1 : gc_write_file_atomic(path, b.s, b.len, err, errlen);
    gc_sb_free(&b);
    return rc;
}

int gc_cmd_bless(int argc, char **argv)
{
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    const char *reason = NULL, *ledger = GC_SOURCE_DIR "/golden/LEDGER.md";
    int frames = 0;
    char err[4096];
    for (int i = 1; i < argc; i++) {
        int r = gc_cli_sweep_option(argc, argv, &i, &o, err, sizeof err);
        if (r < 0) {
            fprintf(stderr, "gcverify bless: %s\n", err);
            return 2;
        }
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--reason") == 0 && i + 1 < argc) {
            reason = argv[++i];
        } else if (strcmp(argv[i], "--frames") == 0) {
            frames = 1;
        } else if (strcmp(argv[i], "--ledger") == 0 && i + 1 < argc) {
            ledger = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "gcverify bless: unknown option '%s' (see gcverify bless --help)\n",
                    argv[i]);
            return 2;
        }
    }
    const char *ci = getenv("CI");
    if (ci && *ci && strcmp(ci, "0") != 0 && strcmp(ci, "false") != 0) {
        fprintf(stderr,
                "gcverify bless: refusing to bless in CI (CI=%s): baselines change only by a "
                "reviewed commit\n",
                ci);
        return 2;
    }
    if (!reason || !reason[strspn(reason, " \t\n")]) {
        fprintf(stderr,
                "gcverify bless: --reason \"...\" is required (it goes into golden/LEDGER.md)\n");
        return 2;
    }
    o.progress = 1;
    o.goldens_may_be_missing = 1; /* bless writes the first baseline and frames file */
    o.store_frames = frames;      /* the blessed pictures, for --golden-images later */
    gc_report rep;
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    if (rc >= 2) {
        fprintf(stderr, "gcverify bless: %s\n", err);
        gc_report_free(&rep);
        return rc;
    }
    char def_metrics[4096], def_frames[4096];
    gc_sweep_default_paths(rep.corpus_key, def_metrics, sizeof def_metrics, def_frames,
                           sizeof def_frames);
    const char *metrics_path = o.baseline && o.baseline[0] ? o.baseline : def_metrics;
    const char *frames_path = o.frames_golden && o.frames_golden[0] ? o.frames_golden : def_frames;
    if (!metrics_path[0]) {
        fprintf(stderr, "gcverify bless: no default baseline for corpus '%s': pass --baseline F\n",
                rep.corpus_key);
        gc_report_free(&rep);
        return 2;
    }
    gc_baseline keep;
    int found = 0;
    if (gc_baseline_load(metrics_path, &keep, &found, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify bless: %s\n", err);
        gc_report_free(&rep);
        return 2;
    }
    rc = gc_baseline_write(metrics_path, &rep, found ? &keep : NULL, err, sizeof err);
    if (found)
        gc_baseline_free(&keep);
    if (rc != 0) {
        fprintf(stderr, "gcverify bless: %s\n", err);
        gc_report_free(&rep);
        return 2;
    }
    size_t frames_moved = 0;
    if (frames) {
        if (o.no_frames || !frames_path[0]) {
            fprintf(
                stderr,
                "gcverify bless: --frames needs rendering and a frames file (--frames-golden F)\n");
            gc_report_free(&rep);
            return 2;
        }
        gc_golden_frames g;
        if (gc_golden_frames_load(frames_path, &g, err, sizeof err) != 0) {
            fprintf(stderr, "gcverify bless: %s\n", err);
            gc_report_free(&rep);
            return 2;
        }
        for (size_t i = 0; i < rep.frame_count; i++) {
            const gc_rep_frame *f = &rep.frames[i];
            if (strcmp(f->status, "error") == 0 || strcmp(f->status, "nondeterministic") == 0) {
                fprintf(stderr, "gcverify bless: level %d %s is %s; not blessing frames\n",
                        f->level, f->view, f->status);
                gc_golden_frames_free(&g);
                gc_report_free(&rep);
                return 1;
            }
            if (strcmp(f->status, "match") != 0)
                frames_moved++;
            gc_golden_frames_set(&g, f->level, f->view, f->sha256, f->manifest ? f->manifest : "");
        }
        rc = gc_golden_frames_save(frames_path, &g, err, sizeof err);
        gc_golden_frames_free(&g);
        if (rc != 0) {
            fprintf(stderr, "gcverify bless: %s\n", err);
            gc_report_free(&rep);
            return 2;
        }
    }
    if (append_ledger(ledger, reason, &rep, metrics_path, frames ? frames_path : NULL, frames_moved,
                      err, sizeof err) != 0)
        fprintf(stderr, "gcverify bless: %s\n", err);
    if (rep.baseline_found)
        printf("blessed %s (%zu fields moved)%s%s\n", project_relative(metrics_path),
               rep.change_count, frames ? " and " : "",
               frames ? project_relative(frames_path) : "");
    else
        printf("blessed %s (first baseline, %zu fields)%s%s\n", project_relative(metrics_path),
               rep.metric_count, frames ? " and " : "",
               frames ? project_relative(frames_path) : "");
    gc_report_free(&rep);
    return 0;
}
