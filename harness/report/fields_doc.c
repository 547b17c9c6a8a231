/* SPDX-License-Identifier: MIT */
/* Generates the table and column reference (docs/fields.md, `gcverify
 * fields`) from the registered table descriptors. Nothing here knows any
 * table: whatever the decoders register is what gets documented. Row sizes
 * and member offsets are left out on purpose: they depend on the C ABI, and
 * the committed docs/fields.md must be the same on every machine. */
#include "gc_fields_doc.h"

#include <stdlib.h>
#include <string.h>

#include "gc_strbuf.h"

const char *gc_fields_type_name(gc_coltype t)
{
    switch (t) {
    case GC_T_BOOL:
        return "bool";
    case GC_T_U8:
        return "u8";
    case GC_T_U16:
        return "u16";
    case GC_T_U32:
        return "u32";
    case GC_T_U64:
        return "u64";
    case GC_T_S8:
        return "s8";
    case GC_T_S16:
        return "s16";
    case GC_T_S32:
        return "s32";
    case GC_T_S64:
        return "s64";
    case GC_T_F32:
        return "f32";
    case GC_T_F64:
        return "f64";
    case GC_T_STR:
        return "str";
    }
    return "?";
}

/* "u32", "u64, hex", "u32, null if all ones", "str[24]". */
static void put_type(gc_strbuf *b, const gc_column *c)
{
    gc_sb_puts(b, gc_fields_type_name(c->type));
    if (c->type == GC_T_STR)
        gc_sb_printf(b, "[%zu]", c->size);
    if (c->flags & GC_CF_HEX)
        gc_sb_puts(b, ", hex");
    if (c->flags & GC_CF_NULL_IF_MAX)
        gc_sb_puts(b, ", null if all ones");
}

/* Text inside a Markdown table cell: '|' would end the cell and a newline the
 * row, so both are neutralised. */
static void put_cell(gc_strbuf *b, const char *s)
{
    if (!s || !*s) {
        gc_sb_puts(b, "-");
        return;
    }
    for (; *s; s++) {
        if (*s == '|')
            gc_sb_puts(b, "\\|");
        else if (*s == '\n' || *s == '\r' || *s == '\t')
            gc_sb_put(b, " ", 1);
        else
            gc_sb_put(b, s, 1);
    }
}

/* GitHub's heading anchor for "## `name`": lower case, punctuation other
 * than '-' and '_' dropped ("tfrag.vertex_info" -> "tfragvertex_info"). */
static void put_anchor(gc_strbuf *b, const char *name)
{
    for (; *name; name++) {
        char ch = *name;
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-')
            gc_sb_put(b, &ch, 1);
    }
}

static char *finish(gc_strbuf *b)
{
    if (b->failed) {
        gc_sb_free(b);
        return NULL;
    }
    return gc_sb_take(b);
}

char *gc_fields_markdown(void)
{
    size_t n;
    const gc_table_desc *const *reg = gc_table_registry(&n);
    gc_strbuf b;
    gc_sb_init(&b);
    gc_sb_puts(&b, "# Table and column reference\n\n"
                   "<!-- Generated from the table descriptors in decoders/ by\n"
                   "     ./build/gcverify fields --markdown > docs/fields.md\n"
                   "     Do not edit by hand: tests/test_tables.c fails when this file is stale. "
                   "-->\n\n");
    gc_sb_puts(&b,
               "Every table the decoders publish, in registry order (decoder run order, then\n"
               "the decoder's own order). An invariant names a table by its full name and a\n"
               "column by its name. A table with a parent link can also reach the columns of\n"
               "the row it belongs to as `link.column`. Every row carries `file_ofs`, the\n"
               "offset it was decoded from; for rows decoded from inside a compressed stream\n"
               "the offset is inside the decompressed stream, and the column's unit says so.\n\n");
    gc_sb_puts(&b, "Types: `bool` is 0 or 1; `u8`..`u64` and `s8`..`s64` are integers; `f32` and\n"
                   "`f64` are floats; `str[N]` is a string of at most N-1 bytes. \"hex\": reports\n"
                   "print the value in hexadecimal. \"null if all ones\": the all-ones value\n"
                   "(0xffffffff for a `u32`) reads as null in expressions, meaning \"no value\".\n"
                   "A unit of `-` means the column has no unit.\n\n");
    gc_sb_printf(&b, "%zu table%s.\n\n", n, n == 1 ? "" : "s");
    gc_sb_puts(&b, "| table | columns | parent | doc |\n|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const gc_table_desc *t = reg[i];
        gc_sb_printf(&b, "| [`%s`](#", t->name);
        put_anchor(&b, t->name);
        gc_sb_printf(&b, ") | %zu | ", t->column_count);
        if (t->parent_table)
            gc_sb_printf(&b, "`%s`", t->parent_table);
        else
            gc_sb_puts(&b, "-");
        gc_sb_puts(&b, " | ");
        put_cell(&b, t->doc);
        gc_sb_puts(&b, " |\n");
    }
    for (size_t i = 0; i < n; i++) {
        const gc_table_desc *t = reg[i];
        gc_sb_printf(&b, "\n## `%s`\n\n", t->name);
        put_cell(&b, t->doc);
        gc_sb_puts(&b, "\n\n");
        if (t->parent_table)
            gc_sb_printf(&b,
                         "Parent: each row belongs to a row of `%s`, named `%s` in expressions; "
                         "its row index is in `%s`.\n\n",
                         t->parent_table, t->parent_link ? t->parent_link : "?",
                         t->parent_column ? t->parent_column : "?");
        gc_sb_puts(&b, "| column | type | unit | doc |\n|---|---|---|---|\n");
        for (size_t k = 0; k < t->column_count; k++) {
            const gc_column *c = &t->columns[k];
            gc_sb_printf(&b, "| `%s` | ", c->name);
            put_type(&b, c);
            gc_sb_puts(&b, " | ");
            put_cell(&b, c->unit);
            gc_sb_puts(&b, " | ");
            put_cell(&b, c->doc);
            gc_sb_puts(&b, " |\n");
        }
    }
    return finish(&b);
}

char *gc_fields_text(void)
{
    size_t n;
    const gc_table_desc *const *reg = gc_table_registry(&n);
    gc_strbuf b;
    gc_sb_init(&b);
    for (size_t i = 0; i < n; i++) {
        const gc_table_desc *t = reg[i];
        if (i)
            gc_sb_puts(&b, "\n");
        gc_sb_printf(&b, "%s: %s\n", t->name, t->doc ? t->doc : "");
        if (t->parent_table)
            gc_sb_printf(&b, "  parent %s as '%s' (row index in %s)\n", t->parent_table,
                         t->parent_link ? t->parent_link : "?",
                         t->parent_column ? t->parent_column : "?");
        size_t wname = 4, wtype = 4, wunit = 4;
        for (size_t k = 0; k < t->column_count; k++) {
            const gc_column *c = &t->columns[k];
            gc_strbuf ty;
            gc_sb_init(&ty);
            put_type(&ty, c);
            if (strlen(c->name) > wname)
                wname = strlen(c->name);
            if (ty.len > wtype)
                wtype = ty.len;
            if (c->unit && strlen(c->unit) > wunit)
                wunit = strlen(c->unit);
            gc_sb_free(&ty);
        }
        for (size_t k = 0; k < t->column_count; k++) {
            const gc_column *c = &t->columns[k];
            gc_strbuf ty;
            gc_sb_init(&ty);
            put_type(&ty, c);
            gc_sb_printf(&b, "  %-*s  %-*s  %-*s  %s\n", (int)wname, c->name, (int)wtype,
                         ty.s ? ty.s : "?", (int)wunit, c->unit && *c->unit ? c->unit : "-",
                         c->doc ? c->doc : "");
            if (ty.failed)
                b.failed = 1;
            gc_sb_free(&ty);
        }
    }
    return finish(&b);
}
