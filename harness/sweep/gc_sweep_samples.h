/* SPDX-License-Identifier: MIT */
/* What a failure says: for every result its invariant's why and YAML
 * file:line, and for every failure sample the table, the parent row and a
 * location a person can open (gc_report_locate). Used by the sweep and by
 * merge (over the tables carried in corpus_tables). */
#ifndef GC_SWEEP_SAMPLES_H
#define GC_SWEEP_SAMPLES_H

#include <stddef.h>

#include "gc_inv.h"
#include "gc_report.h"
#include "gc_table.h"

/* tables[k] (ndesc entries in registry order, or NULL) are level ids[k]'s.
 * Also marks corpus-scope results of a run over a level subset as `subset`
 * (reported, not gated). Samples already annotated are left as they are. */
void gc_sweep_annotate(gc_report *rep, const gc_inv_set *set, const gc_table_desc *const *descs,
                       size_t ndesc, const gc_table *const *tables, const int *ids, size_t n);

#endif
