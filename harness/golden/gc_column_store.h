/* SPDX-License-Identifier: MIT */
/* The column snapshot store: row-level attribution of a moved column digest.
 *
 * Every column's canonical encoding (gc_digest.h: the exact bytes its digest
 * is the hash of) is kept as a file named by that digest, like the frame
 * image store (gc_image_store.h): DIR/<2 hex>/<32 hex>.col. Filled by every
 * bless and by `sweep --snapshots`. When a column's golden digest has its
 * snapshot in the store, the report names the rows that changed, old -> new
 * ("row 3: 17 -> 18"), and counts them; `gcverify diff` does the same between
 * two reports whose runs both kept snapshots. A file whose bytes do not hash
 * to its name is never used. Only digests live in git; the store is a cache
 * (CI keeps it with ~/.cache/gcverify). */
#ifndef GC_COLUMN_STORE_H
#define GC_COLUMN_STORE_H

#include <stddef.h>

#include "gc_report.h"
#include "gc_table.h"

/* $GC_COLUMN_STORE, else the cache root's columns/ ($GC_CACHE_DIR,
 * $XDG_CACHE_HOME/gcverify or ~/.cache/gcverify). */
void gc_column_store_dir(char *out, size_t len);

/* Put every column of the `count` tables into the store (those there already
 * are left alone). Safe from several threads at once. 0 or -1. */
int gc_column_store_put_tables(const char *dir, const gc_table *tables, size_t count);

/* For every digest change of rep with both sides present: when the old
 * digest's snapshot is in the store, count the changed rows into
 * rows_changed and name the first ones in rows. The new side is taken from
 * the tables the run decoded (lt[i] the tables of level ids[i]; ndesc per
 * level) or, when lt is NULL, from the store too (diff). */
void gc_column_store_attribute(const char *dir, gc_report *rep, const gc_table *const *lt,
                               const int *ids, size_t nlevels, size_t ndesc);

#endif
