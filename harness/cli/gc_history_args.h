/* SPDX-License-Identifier: MIT */
/* Command-line selection of a history item (history_args.c). */
#ifndef GC_HISTORY_ARGS_H
#define GC_HISTORY_ARGS_H

#include <stddef.h>

#include "gc_cli_opts.h"
#include "gc_history.h"

typedef struct gc_hist_args {
    const char *db;
    gc_history_query q;
    int item_given; /* how many of --invariant/--frame/--metric */
    int level_given;
} gc_hist_args;

void gc_hist_args_init(gc_hist_args *a);
enum {
    GC_HIST_K_HISTORY = GC_OPT_HIST_BASE,
    GC_HIST_K_INVARIANT,
    GC_HIST_K_FRAME,
    GC_HIST_K_METRIC,
    GC_HIST_K_LEVEL,
    GC_HIST_K_SINCE,
};
extern const gc_opt_group gc_hist_group;
/* Apply an item option: 1 applied, 0 not ours, -1 a bad value (printed). */
int gc_hist_apply(const gc_opts *p, int key, gc_hist_args *a);
/* The history database a->db for reading, for the command `cmd` ("history",
 * "last-good"): NULL, with the reason printed, when none was named, none is
 * there (reading must not create an empty one under a mistyped name), or it
 * does not open. */
gc_history *gc_hist_open_existing(const gc_hist_args *a, const char *cmd);

#endif
