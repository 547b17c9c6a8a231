/* SPDX-License-Identifier: MIT */
/* The invariant engine: loads the invariants/ YAML files (libyaml), validates and compiles every
 * expression once against the table descriptors, and evaluates invariants and metrics on
 * a level's tables (or the whole corpus). The language is docs/invariants.md.
 *
 * The engine sees rows only through gc_table.h descriptors; it never prints: load errors
 * are written into the caller's buffer as "FILE:LINE:COL: message" lines. */
#ifndef GC_INV_H
#define GC_INV_H

#include "gc_table.h"

#include <stddef.h>
#include <stdint.h>

typedef struct gc_inv_set gc_inv_set;

typedef enum { GC_SEV_ERROR, GC_SEV_WARN, GC_SEV_INFO } gc_inv_severity;
typedef enum { GC_TIER_GATE, GC_TIER_NIGHTLY } gc_inv_tier;
typedef enum { GC_SCOPE_LEVEL, GC_SCOPE_CORPUS } gc_inv_scope;

typedef struct gc_inv_info {
    const char *id, *table /* NULL if none */, *why, *expect, *where /* NULL */, *file;
    int line;
    gc_inv_severity severity;
    gc_inv_tier tier;
    gc_inv_scope scope;
} gc_inv_info;

typedef struct gc_inv_sample {
    int level;         /* level index given by the caller */
    int64_t row;       /* row index in its table, -1 for a once-per-level/corpus check */
    uint64_t file_ofs; /* the row's file_ofs column, 0 if none */
    char values[256];  /* the values involved: "positions_decoded=75 vert_count=76" */
} gc_inv_sample;

typedef struct gc_inv_result {
    uint64_t checked, failed;
    gc_inv_sample *samples; /* first max_samples failures, in row order (level order, then row) */
    size_t sample_count;
} gc_inv_result;

/* Load every *.yaml in dir (sorted by file name) against the given table descriptors (the
 * order of `descs` is the order of the tables arrays passed to eval; the array is copied,
 * the descriptors must outlive the set). On error returns NULL and writes every
 * diagnostic, one per line, "FILE:LINE:COL: message", into err (truncated to errlen, always
 * NUL-terminated when errlen > 0). A directory without *.yaml files gives an empty set. */
gc_inv_set *gc_inv_load_dir(const char *dir, const gc_table_desc *const *descs, size_t ndesc,
                            char *err, size_t errlen);
/* Load one YAML text; `name` is the FILE of diagnostics and gc_inv_info.file. */
gc_inv_set *gc_inv_load_string(const char *name, const char *yaml,
                               const gc_table_desc *const *descs, size_t ndesc, char *err,
                               size_t errlen);
/* Load several texts as one set (as load_dir does with files, in the order given). */
gc_inv_set *gc_inv_load_strings(const char *const *names, const char *const *yamls, size_t n,
                                const gc_table_desc *const *descs, size_t ndesc, char *err,
                                size_t errlen);
void gc_inv_free(gc_inv_set *s);

size_t gc_inv_count(const gc_inv_set *s);
const gc_inv_info *gc_inv_get(const gc_inv_set *s,
                              size_t i); /* sorted by id; NULL if i out of range */
/* Index of the invariant with this id, or (size_t)-1. */
size_t gc_inv_find(const gc_inv_set *s, const char *id);
size_t gc_inv_metric_count(const gc_inv_set *s);
const char *gc_inv_metric_name(const gc_inv_set *s, size_t i); /* sorted by name */
const char *gc_inv_metric_why(const gc_inv_set *s, size_t i);  /* "" if none */
const char *gc_inv_metric_expr(const gc_inv_set *s, size_t i);

/* Level scope: evaluate invariant i on one level's tables (ndesc entries, descs order).
 * Thread-safe: concurrent calls on different levels with the same set are allowed.
 * (A corpus-scope invariant given here is evaluated as if this level were the corpus.) */
int gc_inv_eval_level(const gc_inv_set *s, size_t i, const gc_table *tables, int level,
                      size_t max_samples, gc_inv_result *out);

/* Evaluate invariants idx[0..n) on one level, as gc_inv_eval_level does each (results
 * identical: out[idx[j]]), but the units that run block by block on a table share one
 * pass over it: each block of 256 rows is read from memory once for every invariant on
 * that table. seconds (optional) gets each invariant's thread CPU time, seconds[idx[j]]; in a
 * shared pass, the pass's thread CPU shared out in proportion to each invariant's
 * CLOCK_MONOTONIC time over its blocks. Returns -1 if any
 * evaluation failed (that invariant's result is then empty). */
int gc_inv_eval_level_many(const gc_inv_set *s, const size_t *idx, size_t n, const gc_table *tables,
                           int level, size_t max_samples, gc_inv_result *out, double *seconds);
/* gc_inv_eval_level_many, and rows(ctx, t, first, count) for each block of rows of
 * tables[t] that a shared pass reads, in row order from row 0, before its invariants read
 * it: a caller that must read every row of the table too (the sweep's table fingerprints,
 * gc_digest_fp_rows) does so while the block is in cache. A pass that fails part way stops
 * calling it (the caller sees fewer rows than the table holds). The time spent in rows() is
 * left out of seconds[] and added to *rows_seconds (CLOCK_MONOTONIC; either may be NULL).
 * rows may be NULL (then this is gc_inv_eval_level_many). */
typedef void (*gc_inv_rows_fn)(void *ctx, size_t table, size_t first, size_t count);
int gc_inv_eval_level_many_with(const gc_inv_set *s, const size_t *idx, size_t n,
                                const gc_table *tables, int level, size_t max_samples,
                                gc_inv_result *out, double *seconds, gc_inv_rows_fn rows, void *ctx,
                                double *rows_seconds);
/* gc_inv_eval_level_many_with, and every metric of the set on the same level into
 * metric_values[m] / metric_null[m] (as gc_inv_eval_metric gives them; both NULL: no
 * metrics). The aggregates without `outer` that several invariants and metrics ask for
 * (the same kind, table, value and condition) are computed once for all of them, those over
 * one table in one pass over its rows, and inside the invariants' shared pass over that
 * table when it has one: results identical to one call at a time. */
int gc_inv_eval_level_all(const gc_inv_set *s, const size_t *idx, size_t n, const gc_table *tables,
                          int level, size_t max_samples, gc_inv_result *out, double *seconds,
                          gc_inv_rows_fn rows, void *ctx, double *rows_seconds,
                          double *metric_values, int *metric_null);
/* Corpus scope: tables of every level (levels[k] points at ndesc gc_tables), level_ids[k]
 * is the level index reported in samples. (A level-scope invariant given here is evaluated
 * level by level, its counts summed.) */
int gc_inv_eval_corpus(const gc_inv_set *s, size_t i, const gc_table *const *levels,
                       const int *level_ids, size_t nlevels, size_t max_samples,
                       gc_inv_result *out);
/* Metric m on one level: *is_null set when the value is null. */
int gc_inv_eval_metric(const gc_inv_set *s, size_t m, const gc_table *tables, double *value,
                       int *is_null);
void gc_inv_result_free(gc_inv_result *r);
/* (return values: 0 ok, -1 out of memory or bad arguments: an index out of range, NULL
 * tables, or a table slot whose descriptor is not the one the set was loaded with.
 * *out is zeroed first. A once-per-corpus check reports its sample with level -1.) */

/* The closest candidate at edit distance <= 2 (first on ties), or NULL: the
 * "did you mean" of the invariant loader, also used by the command line. */
const char *gc_inv_suggest(const char *name, const char *const *cands, size_t n);

#endif
