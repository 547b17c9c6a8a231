/* SPDX-License-Identifier: MIT */
/* Exit codes of every gcverify command (README "Exit codes", docs/golden.md).
 * 0-3 keep their first meanings; 4 and 5 were added so a CI job can tell an
 * incomplete verdict and a lost report from a regression. */
#ifndef GC_EXIT_H
#define GC_EXIT_H

enum {
    GC_EXIT_OK = 0,      /* no gating failure */
    GC_EXIT_FAIL = 1,    /* a gating invariant failed, a metric moved or a frame changed */
    GC_EXIT_USAGE = 2,   /* bad usage, invalid invariant YAML, unreadable baseline or ledger */
    GC_EXIT_CORPUS = 3,  /* no level of the corpus could be read */
    GC_EXIT_PARTIAL = 4, /* part of the corpus could not be read (missing, unreadable, not a
                          * regular file, changed while read): the verdict is incomplete */
    GC_EXIT_WRITE = 5,   /* an output (report, file, stdout) could not be written */
};

/* The code of a run that also failed to write something: a write failure
 * replaces 0, 1 and 4 (the run finished but its output is lost); 2 and 3
 * (nothing ran) stay. */
static inline int gc_exit_with_write_failure(int rc)
{
    return rc == GC_EXIT_USAGE || rc == GC_EXIT_CORPUS ? rc : GC_EXIT_WRITE;
}

#endif
