/* SPDX-License-Identifier: MIT */
/* What guards each decoded column: the invariants that read it, the metrics that aggregate it,
 * its column digest in a baseline, or nothing. Shared by `gcverify coverage` and the coverage
 * section of every sweep report (docs/verification.md, "Coverage"). */
#ifndef GC_COVERAGE_H
#define GC_COVERAGE_H

#include <stddef.h>
#include <stdint.h>

#include "gc_inv.h"
#include "gc_level.h"
#include "gc_report.h"

typedef struct gc_coverage_column {
    const gc_table_desc *table;
    const gc_column *column;
    const char *kind;       /* the mission's kind (count, chain, ...) or NULL */
    const char *invariants; /* ids of the invariants that read it, ", "-joined; "" if none */
    const char *metrics;    /* names of the metrics that aggregate it; "" if none */
    size_t invariant_count, metric_count;
    int digested; /* a digest of it is in the digests given */
    int is_ofs;   /* file_ofs: where the row came from, left out of every figure */
} gc_coverage_column;

/* Figures over every column of every registered table, file_ofs aside (gc_report.h). */
typedef gc_rep_coverage gc_coverage;

typedef void (*gc_coverage_fn)(const gc_coverage_column *c, void *ctx);

/* Walk every column of gc_table_registry() in order, calling each (may be NULL) per column, and
 * fill *out. digests/ndigests: the column digests that guard the run (a baseline's, or a
 * report's); a column is digested when any level has a digest of "<table>.<column>".
 * 0, or -1 on allocation failure. */
int gc_coverage_compute(const gc_inv_set *set, const gc_rep_digest *digests, size_t ndigests,
                        gc_coverage_fn each, void *ctx, gc_coverage *out);

/* The mission's kind of a column (by name and unit), or NULL. */
const char *gc_coverage_kind(const gc_column *c);

#endif
