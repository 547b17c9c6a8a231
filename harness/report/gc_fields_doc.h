/* SPDX-License-Identifier: MIT */
/* The table and column reference, generated from the table descriptors
 * (decoders/gc_table.h): docs/fields.md and `gcverify fields`. Because it is
 * generated, the reference can never disagree with what the invariant engine
 * resolves; tests/test_tables.c fails when the committed copy is stale. */
#ifndef GC_FIELDS_DOC_H
#define GC_FIELDS_DOC_H

#include "gc_table.h"

/* Markdown reference of every registered table, in registry order: an index,
 * then per table its doc, parent link and a column table (name, type, unit,
 * doc). Deterministic for a given registry. malloc'd and NUL-terminated;
 * NULL if an allocation failed. The caller frees. */
char *gc_fields_markdown(void);

/* The same reference as aligned plain text, for a terminal. */
char *gc_fields_text(void);

/* "bool", "u8" .. "f64", "str"; "?" for a value outside the enum. */
const char *gc_fields_type_name(gc_coltype t);

#endif
