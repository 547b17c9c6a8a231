/* SPDX-License-Identifier: MIT */
/* The sweep's result model. The sweep fills it; the JSON, JUnit and Markdown
 * writers read it; `merge` and `diff` rebuild it from JSON reports. Every
 * list is kept in a fixed order (levels ascending; within a level invariant
 * ids ascending; corpus results last), so reports are byte-identical for any
 * --jobs and a merge of shards equals the single run. */
#ifndef GC_REPORT_H
#define GC_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "gc_strbuf.h"

#define GC_REPORT_FORMAT 1
#define GC_LEVEL_CORPUS  (-1) /* "level" of a corpus-scope result or metric */

typedef struct gc_rep_decoder {
    char name[24];
    char status[16];
    int ok, skipped;
    uint64_t file_ofs;
    char *where, *message; /* owned */
} gc_rep_decoder;

typedef struct gc_rep_level {
    int level;
    char file[64];
    int loaded;
    char *error; /* owned; NULL when loaded */
    uint64_t size_bytes;
    gc_rep_decoder *decoders;
    size_t decoder_count;
} gc_rep_level;

typedef struct gc_rep_sample {
    int level;
    int64_t row;
    uint64_t file_ofs;
    char *values; /* owned */
} gc_rep_sample;

typedef struct gc_rep_result {
    char *invariant; /* owned */
    int level;       /* GC_LEVEL_CORPUS for corpus scope */
    char severity[8], tier[8], scope[8];
    uint64_t checked, failed;
    int gating; /* failed and severity error */
    gc_rep_sample *samples;
    size_t sample_count;
} gc_rep_result;

typedef struct gc_rep_metric {
    int level; /* GC_LEVEL_CORPUS for corpus figures */
    char *name;
    double value;
    int is_null;
} gc_rep_metric;

typedef struct gc_rep_frame {
    int level;
    char view[32];
    char sha256[65];
    char golden[65];       /* "" when there is no golden entry */
    char status[24];       /* match, regressed, new, manifest_differs, nondeterministic, error */
    char *manifest;        /* owned */
    char *params;          /* owned: view parameters */
    char *metrics_changed; /* owned: "tfrag.triangles, tfrag.tri_count.failed" or NULL */
    uint64_t pixels_changed;
} gc_rep_frame;

typedef struct gc_rep_change {
    int level; /* GC_LEVEL_CORPUS for corpus figures */
    char *field;
    double old_value, new_value;
    int old_null, new_null; /* null = absent on that side */
} gc_rep_change;

typedef struct gc_report {
    char version[16];
    char corpus_label[160];
    char corpus_key[96];
    char tier[8];
    char *only;     /* owned, NULL = all */
    char *baseline; /* owned path, NULL = none */
    int baseline_found;
    int frames_enabled;
    char shard[16]; /* "" = not sharded */
    int selected[64];
    size_t selected_count;
    size_t invariant_count;

    gc_rep_level *levels;
    size_t level_count;
    gc_rep_result *results;
    size_t result_count;
    gc_rep_metric *metrics;
    size_t metric_count;
    gc_rep_frame *frames;
    size_t frame_count;
    gc_rep_change *changes;
    size_t change_count;
    /* rows of the tables corpus-scope invariants read, per level, so `merge`
     * can evaluate corpus scope exactly as a single run would: raw JSON text
     * (owned), one object per level, already in canonical form */
    char *corpus_tables;

    /* summary (derived by gc_report_summarise) */
    uint64_t checks, failures, gating_failures, warnings;
    uint64_t frames_mismatched, metrics_changed;
    uint64_t metrics_unblessed; /* figures not in the baseline yet (not a change) */
    int exit_code;
} gc_report;

void gc_report_init(gc_report *r);
void gc_report_free(gc_report *r);
/* Sort every list into canonical order and compute the summary and exit code. */
void gc_report_summarise(gc_report *r);

/* Writers: 0 or -1. */
int gc_report_json(const gc_report *r, gc_strbuf *out);
int gc_report_junit(const gc_report *r, gc_strbuf *out);
int gc_report_markdown(const gc_report *r, gc_strbuf *out);
/* Rebuild from a JSON report written by gc_report_json. 0 or -1 (err). */
int gc_report_from_json(gc_report *r, const char *json, char *err, size_t errlen);

/* Per-field comparison of metrics: appends changes (old -> new) to r from
 * `old_metrics` (the baseline or an older report). */
void gc_report_compare_metrics(gc_report *r, const gc_rep_metric *old_metrics, size_t old_count);

/* Human lines for the changes: "level 3, tfrag.triangles: 31,204 -> 30,977". */
void gc_report_format_change(const gc_rep_change *c, char *buf, size_t len);

/* Helpers to append to the lists (copying strings). */
gc_rep_metric *gc_report_add_metric(gc_report *r, int level, const char *name, double v,
                                    int is_null);
gc_rep_result *gc_report_add_result(gc_report *r, const char *invariant, int level);
gc_rep_frame *gc_report_add_frame(gc_report *r, int level, const char *view);

#endif
