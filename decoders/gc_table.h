/* SPDX-License-Identifier: MIT */
/* Tables: the seam between the decoders and everything that consumes them.
 *
 * A decoder publishes what it found as named record sets ("tfrag.patch",
 * "tfrag.vertex", ...). Each table's columns are declared as data, in the
 * manner of FFmpeg's AVOption tables: name, C type, offsetof in the row
 * struct, unit, one-line doc. A table may name a parent table and the column
 * that holds the parent row's index, so an invariant on tfrag.vertex can say
 * `patch.radius`.
 *
 * This is the ONLY decoders/ header the invariant engine may include. The
 * engine sees rows as bytes described by these descriptors, nothing more.
 *
 * Conventions every table follows (tests/test_tables.c checks them):
 *  - every row struct has a `uint64_t file_ofs` column named "file_ofs":
 *    the offset the row was decoded from. For rows decoded from inside a
 *    compressed stream it is the offset inside the decompressed stream, and
 *    the column's unit says so ("bytes in core_data").
 *  - column names are [a-z0-9_], unique within the table, unit in the name
 *    where the format mixes units (size_sectors, size_bytes, ofs_qwords).
 *  - rows are in file order (prev/next in the invariant language mean this).
 */
#ifndef GC_TABLE_H
#define GC_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef enum gc_coltype {
    GC_T_BOOL, /* uint8_t, 0 or 1 */
    GC_T_U8,
    GC_T_U16,
    GC_T_U32,
    GC_T_U64,
    GC_T_S8,
    GC_T_S16,
    GC_T_S32,
    GC_T_S64,
    GC_T_F32,
    GC_T_F64,
    GC_T_STR, /* char[size], NUL-terminated inside the row */
} gc_coltype;

enum {
    GC_CF_NONE = 0,
    /* The all-ones bit pattern of an unsigned column (UINT32_MAX for U32,
     * ...) reads as null: "no value" (an unresolved parent, an absent range). */
    GC_CF_NULL_IF_MAX = 1u << 0,
    GC_CF_HEX = 1u << 1, /* print in hexadecimal in reports */
};

typedef struct gc_column {
    const char *name; /* YAML name of the column == C member name */
    gc_coltype type;
    size_t offset; /* offsetof(row struct, member) */
    size_t size;   /* sizeof the member (checked against type by a test) */
    unsigned flags;
    const char *unit; /* "bytes", "sectors", "qwords", "world units", "count", "" */
    const char *doc;  /* one line: what it is and where it comes from (offset) */
} gc_column;

/* Declare a column of row struct T, member m. */
#define GC_COL(T, m, ty, fl, unit, doc)                                                            \
    {                                                                                              \
#m, (ty), offsetof(T, m), sizeof(((T *)0)->m), (fl), (unit), (doc)                         \
    }

typedef struct gc_table_desc {
    const char *name; /* "tfrag.vertex": decoder name, dot, record name */
    const char *doc;  /* one line */
    size_t row_size;  /* sizeof the row struct */
    const gc_column *columns;
    size_t column_count;
    /* Optional parent link: rows of this table belong to rows of parent_table
     * in the same level; parent_column (U32, GC_CF_NULL_IF_MAX) holds the
     * parent's row index. Expressions name the parent row by parent_link. */
    const char *parent_table;  /* "tfrag.patch" or NULL */
    const char *parent_link;   /* "patch" */
    const char *parent_column; /* "patch_row" */
} gc_table_desc;

#define GC_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

/* One table's rows for one level. */
typedef struct gc_table {
    const gc_table_desc *desc;
    const void *rows; /* count * desc->row_size bytes */
    size_t count;
} gc_table;

/* Every table every decoder publishes, in registry order (decoder order, then
 * table order within the decoder). A level's tables come in this same order.
 * Defined in decoders/gc_level.c. */
const gc_table_desc *const *gc_table_registry(size_t *count);

#endif
