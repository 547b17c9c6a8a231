/* SPDX-License-Identifier: MIT */
/* The nightly options of `sweep` and `merge`: --html F, --html-assets DIR,
 * --history DB, --history-runs N. Kept apart from the report writers so the
 * commands only call in before and after their run. */
#ifndef GC_NIGHTLY_H
#define GC_NIGHTLY_H

#include <stddef.h>

#include "gc_cli_opts.h"
#include "gc_report.h"
#include "gc_sweep.h"

typedef struct gc_nightly_opts {
    const char *html, *html_assets, *history;
    size_t history_runs;
    /* a temporary directory for the review images of --html without
     * --golden-images or --html-assets ("" none) */
    char tmp_images[4096];
} gc_nightly_opts;

void gc_nightly_opts_init(gc_nightly_opts *n);
/* The option group and its keys. */
enum {
    GC_NIGHTLY_K_HTML = GC_OPT_NIGHTLY_BASE,
    GC_NIGHTLY_K_HTML_ASSETS,
    GC_NIGHTLY_K_HISTORY,
    GC_NIGHTLY_K_HISTORY_RUNS,
};
extern const gc_opt_group gc_nightly_group;
/* Apply a nightly option: 1 applied, 0 not ours, -1 a bad value (printed). */
int gc_nightly_apply(const gc_opts *p, int key, gc_nightly_opts *n);
/* Before a sweep: make sure the mismatching frames get review images when a
 * page is asked for. 0 or -1. */
int gc_nightly_before_sweep(gc_nightly_opts *n, gc_sweep_opts *o, char *err, size_t errlen);
/* After the run: record into the history, then write the page (with the
 * history strip). Image paths of a temporary directory are dropped from the
 * report afterwards, so the other reports equal a run without --html.
 * 0 or -1 (message printed). */
int gc_nightly_after_sweep(gc_nightly_opts *n, gc_report *r, int argc, char **argv);
void gc_nightly_cleanup(gc_nightly_opts *n);

#endif
