/* SPDX-License-Identifier: MIT */
/* Command-line selection of a history item (history_args.c). */
#ifndef GC_HISTORY_ARGS_H
#define GC_HISTORY_ARGS_H

#include <stddef.h>

#include "gc_history.h"

typedef struct gc_hist_args {
    const char *db;
    gc_history_query q;
    int item_given; /* how many of --invariant/--frame/--metric */
    int level_given;
} gc_hist_args;

void gc_hist_args_init(gc_hist_args *a);
/* 1 consumed, 0 not ours, -1 bad value (err). */
int gc_hist_arg(int argc, char **argv, int *i, gc_hist_args *a, char *err, size_t errlen);
extern const char gc_hist_args_help[];

#endif
