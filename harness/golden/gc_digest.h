/* SPDX-License-Identifier: MIT */
/* Column digests: every decoded value in the baseline.
 *
 * The metric baseline blesses counts and thresholds; a decoder change that
 * keeps every count is invisible to it. So per level x table x column the
 * sweep also records the row count and a digest of the column's values, and
 * a digest that moved is a regression of that field, gated like a metric
 * change. Generic over gc_table_registry(): a new table gets digests
 * without any code here.
 *
 * The canonical encoding (docs/golden.md, "Column digests"): SHA-256 over
 * the ASCII tag "GCCOL1", one type byte (the gc_coltype value), then each
 * row's value in row order: integers and bools at their declared width,
 * little-endian; F32/F64 by their IEEE bit pattern, little-endian (so -0.0,
 * NaN payloads and denormals are all told apart); strings as their bytes up
 * to the terminating NUL, then one 0x00. The first 128 bits, as 32 lowercase
 * hex digits, are kept. Independent of host byte order, compiler, -O level
 * and --jobs (each level's digests are computed from its own tables). */
#ifndef GC_DIGEST_H
#define GC_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "gc_report.h"
#include "gc_table.h"

/* Digests of every column of the `count` tables (a level's tables, registry
 * order; a table with a NULL desc is skipped). Appends to *out (realloc'd)
 * in (table, column) name order. 0, or -1 out of memory / OpenSSL failure. */
int gc_digest_tables(const gc_table *tables, size_t count, int level, gc_rep_digest **out,
                     size_t *out_count);

/* Table digests: the cheap path of gc_digest_tables. On a little-endian host
 * (where a row's bytes hold its values' canonical encodings) every table has
 * a 128-bit fingerprint of its rows' value bytes (XXH3-128 of libxxhash, the
 * padding and the bytes after a string's NUL zeroed, seeded by the table's
 * layout), and a table digest: SHA-256 over "GCTAB1", the fingerprint and each column's
 * name, rows and column digest. The baseline keeps the table digests beside
 * the column digests (`table_digests:`). When this run's fingerprint, with the
 * baseline's column digests of that table, gives the baseline's table digest,
 * the rows hash as they did when blessed and the column digests are the
 * baseline's: they are copied, and no value is gathered or hashed with SHA-256.
 * Otherwise (a changed byte, an edited column digest, no table digest in the
 * baseline, a table that has no fingerprint) the table's columns are hashed as
 * gc_digest_tables does. The column digests out are the same either way.
 *
 * base_cols / base_tabs: sorted (gc_digest_sorted_copy); either may be NULL.
 * Appends the column digests to *out as gc_digest_tables does, each
 * fingerprinted table's digest to *tout (table order), and counts in *reused
 * (may be NULL) the tables taken from the baseline. 0 or -1. */
int gc_digest_tables_against(const gc_table *tables, size_t count, int level,
                             const gc_rep_digest *base_cols, size_t nbase_cols,
                             const gc_rep_digest *base_tabs, size_t nbase_tabs, gc_rep_digest **out,
                             size_t *out_count, gc_rep_digest **tout, size_t *tout_count,
                             size_t *reused);

/* A table's fingerprint (the one above) computed a run of rows at a time, so
 * that a caller that reads the table's rows block by block anyway (the sweep's
 * shared invariant passes, gc_inv_eval_level_many_with) hashes each block while
 * it is in cache and the digests need not stream the table from memory again.
 * XXH3's streaming state gives the same fingerprint however the rows are cut.
 *
 * gc_digest_fp_new: NULL when t has no fingerprint or out of memory.
 * gc_digest_fp_rows: rows [first, first + n) of t; rows must come in order
 * from 0 without gaps, or the fingerprint is spoilt (final then fails).
 * gc_digest_fp_final: 0 with fp[16] once every row of t came in order, else -1.
 * The table's rows must not change between the first rows and the digests. */
typedef struct gc_digest_fp gc_digest_fp;
gc_digest_fp *gc_digest_fp_new(const gc_table *t);
void gc_digest_fp_rows(gc_digest_fp *f, size_t first, size_t n);
int gc_digest_fp_final(const gc_digest_fp *f, unsigned char fp[16]);
void gc_digest_fp_free(gc_digest_fp *f);

/* gc_digest_tables_against with fingerprints fed beforehand: fps[i] (NULL, or
 * made by gc_digest_fp_new(&tables[i])) is used for table i when it is
 * complete; a missing, partial or spoilt one is computed here from the rows.
 * fps may be NULL. The outputs are the same as gc_digest_tables_against's. */
int gc_digest_tables_against_fp(const gc_table *tables, size_t count, int level,
                                const gc_rep_digest *base_cols, size_t nbase_cols,
                                const gc_rep_digest *base_tabs, size_t nbase_tabs,
                                gc_digest_fp *const *fps, gc_rep_digest **out, size_t *out_count,
                                gc_rep_digest **tout, size_t *tout_count, size_t *reused);

/* A "<rows> <digest>" entry of a baseline or report, exactly as the writers write it: the
 * decimal row count (no sign, no leading space, at most UINT64_MAX), one space, then
 * GC_DIGEST_HEX lowercase hex digits and the end. 1 with *rows and hex[GC_DIGEST_HEX + 1]
 * set, or 0. */
int gc_digest_parse(const char *v, uint64_t *rows, char *hex);

/* The digest of one column (hex into hex[GC_DIGEST_HEX + 1]). 0 or -1. */
int gc_digest_column(const gc_table *t, const gc_column *c, char *hex);

/* The canonical encoding of one value of column c of `row` into out (at most
 * 8 bytes, or c->size + 1 for strings); returns its length. */
size_t gc_digest_encode(const gc_column *c, const unsigned char *row, unsigned char *out);

/* Compare r->digests (the levels r ran) with `old` (a baseline or an older
 * report): a moved digest, a column that vanished, or a changed row count
 * is appended to r->changes (digest = 1); a column the old side lacks counts
 * in r->digests_unblessed. */
void gc_digest_compare(gc_report *r, const gc_rep_digest *old, size_t old_count);

/* A copy of d[0..n) sorted by (level, field) for gc_digest_find; NULL when n
 * is 0 or out of memory. The caller frees it. */
gc_rep_digest *gc_digest_sorted_copy(const gc_rep_digest *d, size_t n);
/* d sorted where it lies, as gc_digest_sorted_copy sorts its copy. */
void gc_digest_sort(gc_rep_digest *d, size_t n);
/* The entry of `level` and `field` in a sorted array, or NULL. */
const gc_rep_digest *gc_digest_find(const gc_rep_digest *sorted, size_t n, int level,
                                    const char *field);

#endif
