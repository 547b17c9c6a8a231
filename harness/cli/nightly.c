/* SPDX-License-Identifier: MIT */
/* The nightly options of sweep and merge (gc_nightly.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli.h"
#include "gc_fsutil.h"
#include "gc_history.h"
#include "gc_html.h"
#include "gc_nightly.h"
#include "gc_paths.h"
#include "gc_strbuf.h"

static const gc_opt nightly_opts[] = {
    {"html", GC_NIGHTLY_K_HTML, "F",
     "one self-contained HTML page: invariants x levels matrix,\n"
     "failing samples, metric changes, frames side by side\n"
     "(docs/html-report.md)"},
    {"html-assets", GC_NIGHTLY_K_HTML_ASSETS, "DIR",
     "write the page's images into DIR (referenced relatively)\n"
     "instead of inlining them"},
    {"history", GC_NIGHTLY_K_HISTORY, "DB",
     "record the run in the SQLite history DB, and show the\n"
     "last runs in the page (docs/history.md)"},
    {"history-runs", GC_NIGHTLY_K_HISTORY_RUNS, "N",
     "runs in the page's history strip (default 20)"},
};
const gc_opt_group gc_nightly_group = GC_OPT_GROUP("nightly:", nightly_opts);

void gc_nightly_opts_init(gc_nightly_opts *n)
{
    memset(n, 0, sizeof *n);
    n->history_runs = 20;
}

int gc_nightly_apply(const gc_opts *p, int key, gc_nightly_opts *n)
{
    switch (key) {
    case GC_NIGHTLY_K_HTML:
        n->html = p->value;
        return 1;
    case GC_NIGHTLY_K_HTML_ASSETS:
        n->html_assets = p->value;
        return 1;
    case GC_NIGHTLY_K_HISTORY:
        n->history = p->value;
        return 1;
    case GC_NIGHTLY_K_HISTORY_RUNS: {
        unsigned long long k;
        if (gc_cli_uint(p->value, 500, &k) != 0 || k == 0)
            return gc_opts_bad(p, "--history-runs takes a number from 1 to 500, not '%s'",
                               p->value),
                   -1;
        n->history_runs = (size_t)k;
        return 1;
    }
    default:
        return 0;
    }
}

int gc_nightly_before_sweep(gc_nightly_opts *n, gc_sweep_opts *o, char *err, size_t errlen)
{
    if (n->html_assets && !n->html) {
        snprintf(err, errlen, "--html-assets needs --html");
        return -1;
    }
    if (!n->html || o->golden_images)
        return 0;
    if (n->html_assets) {
        /* the review images land where the page refers to them */
        if (gc_mkdir_p(n->html_assets, err, errlen) != 0)
            return -1;
        o->golden_images = n->html_assets;
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(n->tmp_images, sizeof n->tmp_images, "%s/gcverify-html-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(n->tmp_images)) {
        snprintf(err, errlen, "cannot make a temporary directory %s", n->tmp_images);
        n->tmp_images[0] = 0;
        return -1;
    }
    o->golden_images = n->tmp_images;
    return 0;
}

static void command_line(gc_strbuf *b, int argc, char **argv)
{
    gc_sb_puts(b, "gcverify");
    for (int i = 0; i < argc; i++) {
        gc_sb_puts(b, " ");
        gc_sb_puts(b, argv[i]);
    }
}

int gc_nightly_after_sweep(gc_nightly_opts *n, gc_report *r, int argc, char **argv)
{
    int rc = 0;
    gc_html_history strip;
    memset(&strip, 0, sizeof strip);
    int have_strip = 0;
    if (n->history) {
        char err[1024];
        gc_history *h = gc_history_open(n->history, err, sizeof err);
        if (!h) {
            fprintf(stderr, "gcverify: %s\n", err);
            rc = -1;
        } else {
            /* the checkout this gcverify was built from, else the working directory */
            char commit[48];
            int dirty = 0;
            const char *dir = gc_data_origin_get() == GC_DATA_BUILD_TREE ? gc_data_dir() : ".";
            gc_history_git_state(dir, commit, sizeof commit, &dirty);
            gc_strbuf cl;
            gc_sb_init(&cl);
            command_line(&cl, argc, argv);
            gc_history_run_info ri = {getenv("GC_HISTORY_TIME"), commit[0] ? commit : NULL, dirty,
                                      cl.s};
            long long id = gc_history_record(h, r, &ri, err, sizeof err);
            gc_sb_free(&cl);
            if (id < 0) {
                fprintf(stderr, "gcverify: history %s: %s\n", n->history, err);
                rc = -1;
            } else if (n->html &&
                       gc_history_strip(h, n->history_runs, &strip, err, sizeof err) == 0) {
                have_strip = 1;
            } else if (n->html) {
                fprintf(stderr, "gcverify: history %s: %s\n", n->history, err);
                rc = -1;
            }
            gc_history_close(h);
        }
    }
    if (n->html) {
        gc_html_opts ho = {n->html_assets, n->html, have_strip ? &strip : NULL};
        if (gc_report_html_write(r, &ho) != 0)
            rc = -1;
    }
    gc_html_history_free(&strip);
    if (n->tmp_images[0]) {
        for (size_t i = 0; i < r->frame_count; i++) {
            gc_rep_frame *f = &r->frames[i];
            free(f->image_actual);
            free(f->image_expected);
            free(f->image_diff);
            f->image_actual = f->image_expected = f->image_diff = NULL;
            f->pixels_changed = UINT64_MAX;
        }
    }
    return rc;
}

void gc_nightly_cleanup(gc_nightly_opts *n)
{
    if (n->tmp_images[0])
        gc_rm_rf(n->tmp_images);
    n->tmp_images[0] = 0;
}
