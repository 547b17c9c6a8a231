/* SPDX-License-Identifier: MIT */
/* Run the sweep once clean and once per catalogued fault, and say whether
 * each fault is caught by the invariant the catalogue names (issue 7). */
#ifndef GC_FAULTCHECK_H
#define GC_FAULTCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "gc_strbuf.h"
#include "gc_sweep.h"

typedef struct gc_fault_outcome {
    const char *name, *invariant, *description;
    int exit_code;
    int caught;             /* exit 1 and the named invariant failed */
    uint64_t rows_failed;   /* failed rows of the named invariant, all levels */
    uint64_t levels_failed; /* levels (or the corpus) where it failed */
    char also[512];         /* other gating invariants that failed */
} gc_fault_outcome;

/* base: sweep options (corpus, scale, jobs); frames and baselines are turned
 * off. outcomes has room for GC_FAULT_COUNT entries ([0] = the clean run).
 * Returns the number of faults NOT caught (0 = all caught and the clean run
 * passed), or -1 if a sweep could not run (err). */
int gc_faultcheck_run(const gc_sweep_opts *base, gc_fault_outcome *outcomes, size_t *count,
                      int progress, char *err, size_t errlen);
/* docs/fault-catalogue.md text. */
void gc_faultcheck_markdown(const gc_fault_outcome *o, size_t count, const char *corpus_label,
                            gc_strbuf *out);

#endif
