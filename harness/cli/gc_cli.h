/* SPDX-License-Identifier: MIT */
/* Shared command-line helpers for the harness commands. */
#ifndef GC_CLI_H
#define GC_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gc_cli_opts.h"
#include "gc_inv.h"
#include "gc_report.h"
#include "gc_sweep.h"

/* Terminal colours: gc_term_init as --color auto (gc_color_enabled). */
typedef struct gc_term {
    int color;
    const char *red, *green, *yellow, *bold, *dim, *reset;
} gc_term;
void gc_term_init(gc_term *t, int fd);
void gc_term_init_color(gc_term *t, int fd, int mode); /* GC_COLOR_* */

/* The sweep options (corpus, selection, baselines), shared by sweep, bless and
 * faults: three option groups, and their keys (--jobs is also -j). */
enum {
    GC_SWEEP_K_CORPUS = GC_OPT_SWEEP_BASE,
    GC_SWEEP_K_SCALE,
    GC_SWEEP_K_SEED,
    GC_SWEEP_K_LEVELS,
    GC_SWEEP_K_SHARD,
    GC_SWEEP_K_ONLY,
    GC_SWEEP_K_TIER,
    GC_SWEEP_K_INVARIANTS,
    GC_SWEEP_K_MEMORY_LIMIT,
    GC_SWEEP_K_LEVEL_MEMORY_LIMIT,
    GC_SWEEP_K_BASELINE,
    GC_SWEEP_K_ACCEPT_CORPUS_MISMATCH,
    GC_SWEEP_K_FRAMES_GOLDEN,
    GC_SWEEP_K_NO_FRAMES,
    GC_SWEEP_K_LIGHTING,
    GC_SWEEP_K_SNAPSHOTS,
    GC_SWEEP_K_FRAMES_OUT,
    GC_SWEEP_K_GOLDEN_IMAGES,
    GC_SWEEP_K_FRAME_STORE,
    GC_SWEEP_K_INJECT_FAULT,
    GC_SWEEP_K_SAMPLES,
};
enum { GC_CLI_SWEEP_GROUPS = 3 };
extern const gc_opt_group gc_cli_sweep_groups[GC_CLI_SWEEP_GROUPS];
/* Apply the sweep option `key` (p->value its value) to o: 1 applied, 0 not a
 * sweep option, -1 a bad value (the message printed; exit 2). */
int gc_cli_sweep_apply(const gc_opts *p, int key, gc_sweep_opts *o);

/* Print the human summary of a report to out (stderr when a report goes to stdout). */
void gc_cli_print_summary(const gc_report *r, const gc_term *t, int verbose, FILE *out);

/* Write a report in each requested format (NULL paths skipped). 0 or -1 (message printed). */
int gc_cli_write_reports(const gc_report *r, const char *json, const char *junit, const char *md);

/* The invariant set of DIR over every registered table, for command CMD; NULL after
 * printing why on stderr (no data directory, or the loader's errors). */
gc_inv_set *gc_cli_load_invariants(const char *cmd, const char *dir);

/* Parse an unsigned number; 0 or -1. */
int gc_cli_uint(const char *s, unsigned long long max, unsigned long long *out);

#endif
