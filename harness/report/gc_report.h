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

#define GC_REPORT_FORMAT 4
#define GC_LEVEL_CORPUS  (-1) /* "level" of a corpus-scope result or metric */

typedef struct gc_rep_decoder {
    char name[24];
    char status[16];
    int ok, skipped;
    uint64_t file_ofs;
    char *where, *message; /* owned */
} gc_rep_decoder;

/* Where a byte range of a level sits, so a row's file_ofs can be told as a
 * place a person can open: an extent of the container (unit "bytes") or a
 * decompressed stream (unit "bytes in <name>") with the container range of
 * its compressed bytes. */
typedef struct gc_rep_region {
    char name[24];          /* "data", "gameplay" (extents); "core_data", "gameplay" (streams) */
    int stream;             /* 1: a decompressed stream; 0: an extent of the container */
    uint64_t container_ofs; /* extent: its first byte; stream: its WAD LZ header, in the file */
    uint64_t size_bytes;    /* extent: its size; stream: the compressed bytes in the file */
    char extent[24];        /* stream: the extent holding its compressed bytes ("" none) */
    uint64_t extent_ofs;    /* stream: container_ofs relative to that extent */
} gc_rep_region;

#define GC_REP_MAX_REGIONS 12

typedef struct gc_rep_level {
    int level;
    char file[64];
    int loaded;
    char *error; /* owned; NULL when loaded */
    uint64_t size_bytes;
    gc_rep_decoder *decoders;
    size_t decoder_count;
    gc_rep_region regions[GC_REP_MAX_REGIONS];
    size_t region_count;
} gc_rep_level;

typedef struct gc_rep_sample {
    int level;
    int64_t row;
    uint64_t file_ofs;
    char *values;       /* owned */
    char *table;        /* owned: the table the row is in (NULL: a once-per-level check) */
    char *parent_table; /* owned: the table of parent_row (NULL: none) */
    int64_t parent_row; /* -1: no parent */
    char *location;     /* owned: "core_data+0x16230 (decompressed stream, ...)" or NULL */
} gc_rep_sample;

typedef struct gc_rep_result {
    char *invariant; /* owned */
    int level;       /* GC_LEVEL_CORPUS for corpus scope */
    char severity[8], tier[8], scope[8];
    uint64_t checked, failed;
    int gating; /* failed and severity error (and not a corpus result of a subset) */
    /* a corpus-scope result over a subset of the levels (--levels): reported,
     * never gated, its counters never compared (the baseline's are over all) */
    int subset;
    char *why;           /* owned: the invariant's why (NULL if unknown) */
    char *file;          /* owned: its YAML file, project-relative */
    int line;            /* and line (0 if unknown) */
    double time_seconds; /* CPU time of its evaluation; JUnit only, never in JSON */
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
    char golden[65];         /* "" when there is no golden entry */
    char status[24];         /* match, regressed, new, manifest_differs, nondeterministic, error */
    char *manifest;          /* owned */
    char *params;            /* owned: view parameters */
    char *metrics_changed;   /* owned: "tfrag.triangles, tfrag.tri_count.failed" or NULL */
    uint64_t pixels_changed; /* with --golden-images and an expected image; UINT64_MAX unknown */
    /* --golden-images: the files written for a mismatch (owned, NULL if not written) */
    char *image_actual, *image_expected, *image_diff;
    double time_seconds; /* CPU time of its render; JUnit only, never in JSON */
} gc_rep_frame;

/* The digest of one decoded column of one level (harness/golden/gc_digest.h):
 * every value of the column, canonically encoded, hashed. */
#define GC_DIGEST_HEX 32 /* hex digits kept: the first 128 bits of a SHA-256 */
typedef struct gc_rep_digest {
    int level;
    char field[128]; /* "<table>.<column>": "texture.tfrag.distinct_colors" */
    uint64_t rows;
    char digest[GC_DIGEST_HEX + 1];
} gc_rep_digest;

/* What guards the decoded columns in this run (harness/report/gc_coverage.h): over every column
 * of every registered table, file_ofs aside. */
typedef struct gc_rep_coverage {
    uint64_t columns;
    uint64_t by_invariant;   /* read by at least one invariant */
    uint64_t by_metric_only; /* aggregated by a metric, read by no invariant */
    uint64_t digest_only;    /* only its column digest in the baseline guards it */
    uint64_t unguarded;      /* no invariant, no metric and no digest in the baseline */
    uint64_t mission_unread; /* of the mission's kinds and read by no invariant */
} gc_rep_coverage;

typedef struct gc_rep_change {
    int level; /* GC_LEVEL_CORPUS for corpus figures */
    char *field;
    double old_value, new_value;
    int old_null, new_null; /* null = absent on that side */
    /* digest = 1: a decoded column's digest moved; old/new_value are then the
     * row counts, and the digests are kept (fixed arrays: changes are copied
     * by value between reports) */
    int digest;
    char old_digest[GC_DIGEST_HEX + 1], new_digest[GC_DIGEST_HEX + 1];
    uint64_t rows_changed; /* rows whose value differs; UINT64_MAX when not known */
    char rows[400];        /* the first changed rows, "row 3: 17 -> 18; ..." ("" none) */
} gc_rep_change;

typedef struct gc_report {
    char version[16];
    char corpus_label[160];
    char corpus_key[96];
    char corpus_id[65];           /* gc_corpus_identity(): what baselines are keyed by */
    int corpus_mismatch_accepted; /* --accept-corpus-mismatch let another corpus's baseline in */
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
    gc_rep_digest *digests; /* per level x table x column, canonical order */
    size_t digest_count;
    /* per level x fingerprinted table: the table digest (gc_digest.h), field =
     * the table's name; what bless writes to the baseline's `table_digests:`.
     * In memory only: the JSON report carries the column digests alone */
    gc_rep_digest *table_digests;
    size_t table_digest_count;
    gc_rep_coverage coverage; /* set by the sweep (gc_coverage_compute) */
    /* rows of the tables corpus-scope invariants read, per level, so `merge`
     * can evaluate corpus scope exactly as a single run would: raw JSON text
     * (owned), one object per level, already in canonical form */
    char *corpus_tables;

    /* summary (derived by gc_report_summarise) */
    uint64_t checks, failures, gating_failures, warnings;
    uint64_t frames_mismatched, metrics_changed;
    uint64_t metrics_unblessed; /* figures not in the baseline yet (not a change) */
    uint64_t digests_changed;   /* the changes that are column digests */
    uint64_t digests_unblessed; /* column digests not in the baseline yet (not a change) */
    /* every gated item: invariant x level results, frames, and per level
     * (and the corpus) the metric comparison with the baseline; the closing
     * line, the JUnit counts and the exit code agree on these */
    uint64_t items_passed, items_failed, items_skipped;
    int exit_code;
} gc_report;

/* 1 when the run selected every level (corpus-scope figures are then the
 * corpus's, comparable with a baseline's). */
int gc_report_complete(const gc_report *r);
/* A frame status that gates: regressed, nondeterministic, error. */
int gc_report_frame_failed(const gc_rep_frame *f);

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

/* Where file_ofs of a row of a table whose file_ofs unit is `unit` lies in
 * level l, as text: "core_data+0x16230 (decompressed stream, LEVEL3.WAD data
 * extent +0x1c2000, WAD LZ at LEVEL3.WAD+0x6b3a40)" or "LEVEL3.WAD+0x1c2040
 * (data extent +0x40)". Unknown units or regions say what is known. */
void gc_report_locate(const gc_rep_level *l, const char *unit, uint64_t file_ofs, char *buf,
                      size_t len);
/* The level entry of level n, or NULL. */
const gc_rep_level *gc_report_level(const gc_report *r, int n);
/* "level 3 row 332 of tfrag.vertex (patch row 17 of tfrag.patch) at <location>: <values>" */
void gc_report_format_sample(const gc_rep_sample *s, char *buf, size_t len);

/* Helpers to append to the lists (copying strings). */
gc_rep_metric *gc_report_add_metric(gc_report *r, int level, const char *name, double v,
                                    int is_null);
gc_rep_result *gc_report_add_result(gc_report *r, const char *invariant, int level);
gc_rep_frame *gc_report_add_frame(gc_report *r, int level, const char *view);
gc_rep_digest *gc_report_add_digest(gc_report *r, int level, const char *field, uint64_t rows,
                                    const char *digest);
/* The n digests of src appended as n gc_report_add_digest calls would append them (the level
 * given, each field and digest text as "%s" copies them); 0, or -1 on allocation failure with
 * nothing appended. */
int gc_report_add_digests(gc_report *r, int level, const gc_rep_digest *src, size_t n);
/* Room for n digests in all (a sweep's every level), so that adding them grows nothing; 0, or
 * -1 on allocation failure (nothing lost). */
int gc_report_reserve_digests(gc_report *r, size_t n);

#endif
