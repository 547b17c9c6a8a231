/* SPDX-License-Identifier: MIT */
/* The sweep: decode the selected levels in parallel, evaluate every selected
 * invariant and metric, render and hash frames, compare with the baselines,
 * and fill a gc_report. Used by `sweep`, `bless` and the tests. */
#ifndef GC_SWEEP_H
#define GC_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "gc_report.h"

/* Where the time went (filled when opts.timings is set). CPU seconds are
 * per-thread CPU time summed over levels; wall seconds are for the phase. */
typedef struct gc_sweep_timings {
    double wall_total, wall_corpus_open, wall_levels, wall_corpus_scope;
    /* serial wall time on the caller's thread: from the start to the pool less the corpus
     * opening (invariants, baseline and frame goldens loaded), and after the corpus scope
     * (baseline comparison, coverage, summary) */
    double wall_setup, wall_finish;
    double cpu_decode, cpu_eval, cpu_render;
    double cpu_digest; /* the column digests (counted in cpu_eval too) */
    /* fingerprinted tables, and those of them whose column digests were the
     * baseline's (gc_digest_tables_against) */
    size_t digest_tables, digest_tables_reused;
    double level_decode[27], level_eval[27], level_render[27];
    unsigned jobs;
    size_t memory_limit_bytes, memory_peak_bytes; /* the budget and its high-water mark */
    unsigned long long memory_waits, memory_reruns;
    /* The process's peak RSS (getrusage) after the corpus was opened, after
     * the levels, after corpus scope; and the level and phase ("decode",
     * "evaluate", "render") at whose end it last rose. */
    size_t rss_after_open, rss_after_levels, rss_after_corpus;
    int rss_peak_level;
    char rss_peak_phase[16];
    /* The schedule: per level, the pool worker that ran it and its wall
     * seconds from the pool's start (start, end of decode+evaluate, end). */
    int level_worker[27];
    double level_start[27], level_eval_end[27], level_end[27];
} gc_sweep_timings;

typedef struct gc_sweep_opts {
    const char *corpus_dir; /* NULL: synthetic corpus at (scale, seed) */
    int scale;              /* SY_SCALE_RETAIL / SY_SCALE_SMALL */
    uint32_t seed;
    unsigned jobs;              /* 0: core count */
    int levels[27];             /* selected levels, ascending */
    size_t level_count;         /* 0: all 27 */
    int shard_k, shard_n;       /* --shard K/N (1-based K); n == 0: none */
    const char *only;           /* invariant id glob, NULL: all */
    int tier_nightly;           /* 0: gate tier only; 1: gate + nightly */
    const char *invariants_dir; /* NULL: invariants/ of the data directory (gc_paths.h) */
    const char *baseline;       /* metrics baseline; NULL: default for the corpus; "" none */
    const char *frames_golden;  /* frame goldens; NULL: default for the corpus; "" none */
    /* A baseline or frames file named explicitly must exist (a typo is exit 2);
     * bless sets this, since it writes the first one. */
    int goldens_may_be_missing;
    /* Compare with a baseline blessed for another corpus identity (a modified
     * copy): otherwise that is exit 2, before anything is decoded. */
    int accept_corpus_mismatch;
    int no_frames;
    int lighting_off;          /* --lighting off: frames drawn with the stored (unlit) colours */
    const char *frames_out;    /* write every frame PNG here */
    const char *golden_images; /* write expected/actual/diff PNGs for mismatches here */
    const char *frame_store;   /* image store directory; NULL: $GC_FRAME_STORE or the cache's */
    int store_frames;          /* put every rendered frame in the store (bless --frames) */
    int store_columns;         /* put every column in the column store (bless, --snapshots) */
    const char *fault;         /* --inject-fault NAME */
    size_t max_samples;        /* failures kept per invariant per level (default 5) */
    int progress;              /* progress on stderr: 0 none, 1 plain lines, 2 bar */
    int skip_determinism;      /* skip the repeated-render determinism check */
    gc_sweep_timings *timings; /* optional: filled with where the time went */
    size_t memory_limit_bytes; /* --memory-limit; 0: gc_membudget_default_bytes() */
    size_t level_memory_limit_bytes; /* --level-memory-limit; 0: the memory limit */
} gc_sweep_opts;

void gc_sweep_opts_init(gc_sweep_opts *o);

/* Fills rep. Returns the exit code (gc_exit.h): 0, 1 (gating failure), 4
 * (part of the corpus unreadable), 5 (a frame image could not be written:
 * message on stderr) with rep complete; 2 (bad usage or invalid YAML) or 3
 * (corpus unreadable) with the message in err and rep empty. */
int gc_sweep_run(const gc_sweep_opts *o, gc_report *rep, char *err, size_t errlen);
/* Configures glibc's malloc as gc_sweep_run does (its mmap and trim
 * thresholds); for tools and benchmarks that decode levels as the sweep does. */
void gc_sweep_tune_malloc(void);

/* Default baseline/golden paths for a corpus key (synthetic retail: the
 * project's golden/metrics.yaml and golden/frames.yaml; small:
 * golden/metrics-small.yaml, golden/frames-small.yaml; a directory: none). */
void gc_sweep_default_paths(const char *corpus_key, char *metrics, size_t mlen, char *frames,
                            size_t flen);

/* Parse "0,3,5-7" into levels (ascending, unique). 0 or -1. */
int gc_parse_level_list(const char *s, int *levels, size_t *count);

#endif
