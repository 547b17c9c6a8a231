/* SPDX-License-Identifier: MIT */
/* Corpus-scope evaluation, and the rows it needs carried in reports so that
 * `merge` can evaluate corpus scope over shards exactly as one run would. */
#ifndef GC_SWEEP_TABLES_H
#define GC_SWEEP_TABLES_H

#include <stddef.h>

#include "gc_inv.h"
#include "gc_json.h"
#include "gc_report.h"
#include "gc_table.h"

/* 1 when a selected corpus-scope invariant reads table `name` (its table,
 * or named in its expect or where): the tables kept after a level's worker. */
int gc_sweep_table_needed(const gc_inv_set *set, const int *selected, const char *name);

/* JSON object {"<level>": {"<table>": {"columns": [...], "rows": [[...]]}}}
 * holding every table that a selected corpus-scope invariant reads. */
char *gc_sweep_corpus_tables_json(const gc_inv_set *set, const int *selected,
                                  const gc_table_desc *const *descs, size_t ndesc,
                                  const gc_table *const *levels, const int *ids, size_t nlevels);

/* Evaluate the selected corpus-scope invariants; results and their
 * checked/failed counters (level "corpus") go into rep. */
void gc_sweep_eval_corpus(const gc_inv_set *set, const int *selected, const gc_table *const *levels,
                          const int *ids, size_t nlevels, size_t max_samples, gc_report *rep);

/* Tables rebuilt from corpus_tables JSON objects (possibly several, from shards). */
typedef struct gc_loaded_tables {
    size_t nlevels;
    int *ids;
    gc_table **tables; /* [nlevels][ndesc] */
    void **bufs;       /* row storage to free */
    size_t nbufs;
    size_t ndesc;
} gc_loaded_tables;

int gc_sweep_tables_load(const gc_json *const *objs, size_t nobjs,
                         const gc_table_desc *const *descs, size_t ndesc, gc_loaded_tables *out,
                         char *err, size_t errlen);
void gc_loaded_tables_free(gc_loaded_tables *t);
/* Canonical JSON text of several corpus_tables objects merged (levels ascending). */
char *gc_sweep_tables_merge_json(const gc_json *const *objs, const char *const *srcs, size_t nobjs);

#endif
