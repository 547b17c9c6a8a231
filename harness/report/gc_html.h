/* SPDX-License-Identifier: MIT */
/* The nightly view: one self-contained HTML file written from the in-memory
 * report (gc_report.h), for a person to read in the morning. No network, no
 * external script, style or font: the CSS and the small filtering script are
 * inline, the frame images are data: URIs (or files in an assets directory
 * referenced relatively). Everything but filtering works with JavaScript
 * disabled (links between cells and their details are anchors, details are
 * static). docs/html-report.md describes the page. */
#ifndef GC_HTML_H
#define GC_HTML_H

#include <stddef.h>

#include "gc_report.h"
#include "gc_strbuf.h"

/* The history strip: per invariant x level, the state in the last runs of a
 * history database (oldest first). Filled by harness/history (or by a test). */
#define GC_HTML_HIST_NONE  0 /* not recorded in that run */
#define GC_HTML_HIST_CLEAN 1
#define GC_HTML_HIST_FAIL  2
typedef struct gc_html_hist_row {
    char *invariant;      /* owned */
    int level;            /* GC_LEVEL_CORPUS for corpus scope */
    unsigned char *state; /* owned: run_count states */
} gc_html_hist_row;

typedef struct gc_html_history {
    size_t run_count;
    char **run_labels; /* owned: "run 12, 2026-12-02 05:00, abc1234" */
    gc_html_hist_row *rows;
    size_t row_count;
} gc_html_history;

void gc_html_history_free(gc_html_history *h);

typedef struct gc_html_opts {
    /* NULL: images inlined as data: URIs. Else images are copied into this
     * directory (created) and referenced by their path relative to the
     * directory of html_path. */
    const char *assets_dir;
    const char *html_path;
    const gc_html_history *history; /* NULL: no history strip */
} gc_html_opts;

/* The page for r. 0, or -1 with err (an image that cannot be read or copied). */
int gc_report_html(const gc_report *r, const gc_html_opts *o, gc_strbuf *out, char *err,
                   size_t errlen);

/* The two closing lines of the terminal summary (gc_cli_print_summary without
 * colour): "PASSED 27 levels, ...\nsweep: N passed, N failed, N skipped\n". */
void gc_report_summary_text(const gc_report *r, gc_strbuf *out);

/* Write the page to o->html_path atomically. 0 or -1 (message printed). */
int gc_report_html_write(const gc_report *r, const gc_html_opts *o);

#endif
