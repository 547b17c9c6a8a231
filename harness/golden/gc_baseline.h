/* SPDX-License-Identifier: MIT */
/* golden/metrics.yaml: the blessed per-level metrics, reviewed as text diffs.
 * Written atomically; compared field by field. */
#ifndef GC_BASELINE_H
#define GC_BASELINE_H

#include <stddef.h>

#include "gc_report.h"
#include "gc_strbuf.h"

typedef struct gc_baseline {
    char corpus_key[96];
    char corpus_id[65]; /* gc_corpus_identity() of the blessed corpus; "" in older files */
    gc_rep_metric *metrics;
    size_t count;
    /* the `digests:` section: per level x table x column the row count and
     * the column digest (gc_digest.h); empty in files written before it */
    gc_rep_digest *digests;
    size_t digest_count;
    /* the `table_digests:` section: per level x table the rows and the table
     * digest (gc_digest.h, gc_digest_tables_against); empty in older files,
     * which only costs the sweep the cheap path */
    gc_rep_digest *table_digests;
    size_t table_digest_count;
} gc_baseline;

/* Load path. *found = 0 (and 0 returned) when the file does not exist;
 * -1 with err on a malformed file. */
int gc_baseline_load(const char *path, gc_baseline *b, int *found, char *err, size_t errlen);
/* The corpus and corpus_id a baseline starts with (gc_baseline_format writes them first),
 * read without reading the rest: 1 when the file begins with a mapping whose first keys are
 * format/corpus/corpus_id scalars (either may be absent: ""), 0 when the file does not exist,
 * -1 otherwise (unreadable, or laid out otherwise: load it to know). A later key of the same
 * name overrides these in gc_baseline_load; the sweep checks the loaded values again. */
int gc_baseline_peek(const char *path, char *corpus_key, size_t keylen, char *corpus_id,
                     size_t idlen);
/* The same through libyaml's document API: the reader gc_baseline_load falls back to for a
 * file it does not read as a stream, and the reference tests compare it with. */
int gc_baseline_load_tree(const char *path, gc_baseline *b, int *found, char *err, size_t errlen);
/* The line reader alone, which gc_baseline_load tries first (the layout gc_baseline_format
 * writes, line by line, without libyaml): 1 read, 0 it gives up (another layout: b is left
 * empty, the other readers decide), -1 the file cannot be opened or memory ran out. */
int gc_baseline_load_lines(const char *path, gc_baseline *b);
void gc_baseline_free(gc_baseline *b);
/* Append the per-field changes of rep against b to rep->changes. */
void gc_baseline_compare(const gc_baseline *b, gc_report *rep);
/* Write rep's metrics as the new baseline. When `keep` is given, its levels
 * that rep did not run are kept as they were (blessing a subset). 0 or -1. */
int gc_baseline_write(const char *path, const gc_report *rep, const gc_baseline *keep, char *err,
                      size_t errlen);

/* The text gc_baseline_write writes, appended to sb (bless stages it). 0 or -1. */
int gc_baseline_format(const gc_report *rep, const gc_baseline *keep, gc_strbuf *sb, char *err,
                       size_t errlen);

#endif
