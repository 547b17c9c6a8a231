/* SPDX-License-Identifier: MIT */
/* Shared command-line helpers for the harness commands. */
#ifndef GC_CLI_H
#define GC_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gc_inv.h"
#include "gc_report.h"
#include "gc_sweep.h"

/* Terminal colours when stdout is a terminal and NO_COLOR is unset. */
typedef struct gc_term {
    int color;
    const char *red, *green, *yellow, *bold, *dim, *reset;
} gc_term;
void gc_term_init(gc_term *t, int fd);

/* Parse a sweep option at argv[*i] into o (advancing *i over its value).
 * Returns 1 if consumed, 0 if not a sweep option, -1 on a bad value (msg in err). */
int gc_cli_sweep_option(int argc, char **argv, int *i, gc_sweep_opts *o, char *err, size_t errlen);
/* The help text for those options. */
extern const char gc_cli_sweep_options_help[];

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
