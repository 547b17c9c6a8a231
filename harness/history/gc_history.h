/* SPDX-License-Identifier: MIT */
/* The history of sweeps: an SQLite database (one file, no server) that
 * `sweep --history DB` appends a run to and `gcverify history`, `last-good`
 * and the HTML report's history strip read. docs/history.md gives the schema.
 *
 * A run is written in one IMMEDIATE transaction: a run killed half-way leaves
 * the database as it was (SQLite's journal rolls the torn transaction back on
 * the next open), and a second writer waits on the busy timeout instead of
 * failing or interleaving. The schema carries its version in PRAGMA
 * user_version; opening an older database migrates it in place, step by step,
 * inside a transaction. */
#ifndef GC_HISTORY_H
#define GC_HISTORY_H

#include <stddef.h>
#include <stdio.h>

#include "gc_html.h"
#include "gc_report.h"

#define GC_HISTORY_SCHEMA  2      /* the version this build writes */
#define GC_HISTORY_BUSY_MS 120000 /* how long a writer waits for another */

typedef struct gc_history gc_history;

/* Open (creating and migrating as needed). NULL with err. */
gc_history *gc_history_open(const char *path, char *err, size_t errlen);
/* Open creating or migrating only up to schema version `version` (tests of
 * the migration build an old database with it). */
gc_history *gc_history_open_at(const char *path, int version, char *err, size_t errlen);
void gc_history_close(gc_history *h);
int gc_history_schema_version(gc_history *h);

/* What a run records besides the report. */
typedef struct gc_history_run_info {
    const char *time;       /* "2026-12-02T05:00:00Z"; NULL: now */
    const char *git_commit; /* NULL: not in a checkout */
    int git_dirty;
    const char *options; /* the command line */
} gc_history_run_info;

/* Record r as a new run, in one transaction. The run's id, or -1 (err). */
long long gc_history_record(gc_history *h, const gc_report *r, const gc_history_run_info *ri,
                            char *err, size_t errlen);

/* The git commit and dirty flag of the checkout at dir (commit "" when dir
 * is not in one). */
void gc_history_git_state(const char *dir, char *commit, size_t len, int *dirty);

/* What a series is of: one of invariant (with level or every level), frame
 * (level:view) or metric (level:name). */
typedef enum gc_history_kind { GC_HIST_INVARIANT, GC_HIST_FRAME, GC_HIST_METRIC } gc_history_kind;

typedef struct gc_history_query {
    gc_history_kind kind;
    const char *id;    /* invariant id, view name or metric name; NULL = all (invariants) */
    int level;         /* -2 = every level; GC_LEVEL_CORPUS; 0..26 */
    const char *since; /* "2026-12-01" (compared as text with the run time) or NULL */
} gc_history_query;

/* Print the series as lines "run time commit level id value/state". 0 or -1 (err). */
int gc_history_print(gc_history *h, const gc_history_query *q, FILE *out, char *err, size_t errlen);

/* last-good: the newest run in which the item was clean, and the first run
 * after it that was not. Prints; returns 0 found, 1 never clean, 2 never
 * recorded, -1 error. */
int gc_history_last_good(gc_history *h, const gc_history_query *q, FILE *out, char *err,
                         size_t errlen);

/* The strip for the HTML report: for every invariant x level that failed in
 * any of the last n runs (or in r), its states in those runs. 0 or -1. */
int gc_history_strip(gc_history *h, size_t n, gc_html_history *out, char *err, size_t errlen);

#endif
