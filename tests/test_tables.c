/* SPDX-License-Identifier: MIT */
/* Checks every table descriptor in gc_table_registry() against the
 * conventions of decoders/gc_table.h and the name rules of docs/invariants.md,
 * and keeps docs/fields.md equal to what the descriptors generate.
 *
 * The descriptor checker is tried on hand-made bad descriptors first, one
 * defect each, so a checker that accepted everything could not pass. The
 * registry test then holds for whatever the decoders register at the moment
 * (at least decode.status). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_fields_doc.h"
#include "gc_level.h"
#include "gc_table.h"

/* ---- the checker ------------------------------------------------------------- */

typedef struct reg_view {
    const gc_table_desc *const *tables; /* where parent links must point */
    size_t count;
} reg_view;

static int fail(char *err, size_t cap, const char *table, const char *fmt, const char *what)
{
    char msg[200];
    snprintf(msg, sizeof msg, fmt, what ? what : "(null)");
    snprintf(err, cap, "table '%s': %s", table ? table : "(null)", msg);
    return -1;
}

/* [a-z_][a-z0-9_]*: a name the invariant language can spell (docs/invariants.md
 * allows upper case too; the project convention is snake_case). */
static int is_ident(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

/* Words an expression reads as something else: reserved words, and names that
 * take precedence over a column of the same name (docs/invariants.md). */
static int is_shadowed(const char *s)
{
    static const char *const words[] = {"and",  "or",   "not",  "true", "false",
                                        "null", "prev", "next", "outer"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(s, words[i]) == 0)
            return 1;
    return 0;
}

static size_t type_size(gc_coltype t)
{
    switch (t) {
    case GC_T_BOOL:
    case GC_T_U8:
    case GC_T_S8:
        return 1;
    case GC_T_U16:
    case GC_T_S16:
        return 2;
    case GC_T_U32:
    case GC_T_S32:
    case GC_T_F32:
        return 4;
    case GC_T_U64:
    case GC_T_S64:
    case GC_T_F64:
        return 8;
    case GC_T_STR:
        return 0; /* any size >= 2 */
    }
    return SIZE_MAX;
}

static int is_unsigned(gc_coltype t)
{
    return t == GC_T_U8 || t == GC_T_U16 || t == GC_T_U32 || t == GC_T_U64;
}

static int is_integer(gc_coltype t)
{
    return is_unsigned(t) || t == GC_T_S8 || t == GC_T_S16 || t == GC_T_S32 || t == GC_T_S64;
}

static const gc_column *find_column(const gc_table_desc *t, const char *name)
{
    for (size_t k = 0; k < t->column_count; k++)
        if (t->columns[k].name && strcmp(t->columns[k].name, name) == 0)
            return &t->columns[k];
    return NULL;
}

/* One descriptor. 0 if it follows every convention, else -1 and a message. */
static int check_table(const gc_table_desc *t, const reg_view *rv, char *err, size_t cap)
{
    const char *tn = t->name;
    if (!tn)
        return fail(err, cap, tn, "%s", "no name");
    const char *dot = strchr(tn, '.');
    if (!dot || strchr(dot + 1, '.') || !is_ident(tn, (size_t)(dot - tn)) ||
        !is_ident(dot + 1, strlen(dot + 1)))
        return fail(err, cap, tn, "name is not of the form decoder.record (%s)", tn);
    if (!t->doc || !*t->doc)
        return fail(err, cap, tn, "%s", "empty doc");
    if (t->row_size == 0)
        return fail(err, cap, tn, "%s", "row_size is 0");
    if (t->column_count == 0 || !t->columns)
        return fail(err, cap, tn, "%s", "no columns");

    for (size_t k = 0; k < t->column_count; k++) {
        const gc_column *c = &t->columns[k];
        if (!c->name || !is_ident(c->name, strlen(c->name)))
            return fail(err, cap, tn, "column name '%s' is not [a-z_][a-z0-9_]*", c->name);
        if (is_shadowed(c->name))
            return fail(err, cap, tn, "column name '%s' is a reserved or shadowed word", c->name);
        for (size_t j = 0; j < k; j++)
            if (strcmp(t->columns[j].name, c->name) == 0)
                return fail(err, cap, tn, "duplicate column name '%s'", c->name);
        size_t want = type_size(c->type);
        if (want == SIZE_MAX)
            return fail(err, cap, tn, "column '%s' has an unknown type", c->name);
        if (want == 0 ? c->size < 2 : c->size != want)
            return fail(err, cap, tn, "column '%s': member size does not match its type", c->name);
        if (c->offset > t->row_size || c->size > t->row_size - c->offset)
            return fail(err, cap, tn, "column '%s' lies outside row_size", c->name);
        for (size_t j = 0; j < k; j++) {
            const gc_column *o = &t->columns[j];
            if (c->offset < o->offset + o->size && o->offset < c->offset + c->size)
                return fail(err, cap, tn, "column '%s' overlaps another column", c->name);
        }
        if (!c->unit)
            return fail(err, cap, tn, "column '%s': unit is NULL (use \"\")", c->name);
        if (!c->doc || !*c->doc)
            return fail(err, cap, tn, "column '%s': empty doc", c->name);
        if (c->flags & ~(unsigned)(GC_CF_NULL_IF_MAX | GC_CF_HEX))
            return fail(err, cap, tn, "column '%s': unknown flag bits", c->name);
        if ((c->flags & GC_CF_NULL_IF_MAX) && !is_unsigned(c->type))
            return fail(err, cap, tn, "column '%s': null-if-max on a non-unsigned column", c->name);
        if ((c->flags & GC_CF_HEX) && !is_integer(c->type))
            return fail(err, cap, tn, "column '%s': hex on a non-integer column", c->name);
    }

    const gc_column *fo = find_column(t, "file_ofs");
    if (!fo || fo->type != GC_T_U64)
        return fail(err, cap, tn, "%s", "no GC_T_U64 column named file_ofs");

    if (!t->parent_table) {
        if (t->parent_link || t->parent_column)
            return fail(err, cap, tn, "%s", "parent_link/parent_column without parent_table");
        return 0;
    }
    int found = 0;
    for (size_t i = 0; i < rv->count; i++)
        if (rv->tables[i]->name && strcmp(rv->tables[i]->name, t->parent_table) == 0)
            found = 1;
    if (!found)
        return fail(err, cap, tn, "parent table '%s' is not registered", t->parent_table);
    if (!t->parent_link || !is_ident(t->parent_link, strlen(t->parent_link)) ||
        is_shadowed(t->parent_link))
        return fail(err, cap, tn, "parent link '%s' is not a usable name", t->parent_link);
    if (find_column(t, t->parent_link))
        return fail(err, cap, tn, "parent link '%s' hides a column of the same name",
                    t->parent_link);
    const gc_column *pc = t->parent_column ? find_column(t, t->parent_column) : NULL;
    if (!pc || pc->type != GC_T_U32)
        return fail(err, cap, tn, "parent column '%s' is not a GC_T_U32 column of the table",
                    t->parent_column);
    return 0;
}

/* ---- the checker catches each defect --------------------------------------------- */

typedef struct fx_row {
    uint64_t file_ofs;
    uint32_t owner_row;
    int32_t delta;
    char label[8];
    float weight;
    uint8_t flag;
} fx_row;

#define FX_NCOL 6

static const gc_column fx_good_cols[FX_NCOL] = {
    GC_COL(fx_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes", "where the row came from"),
    GC_COL(fx_row, owner_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "parent row index"),
    GC_COL(fx_row, delta, GC_T_S32, 0, "count", "a signed count"),
    GC_COL(fx_row, label, GC_T_STR, 0, "", "a name"),
    GC_COL(fx_row, weight, GC_T_F32, 0, "world units", "a float"),
    GC_COL(fx_row, flag, GC_T_BOOL, 0, "", "a flag"),
};

static gc_column fx_cols[FX_NCOL];
static gc_table_desc fx_desc;

static void fx_reset(void)
{
    memcpy(fx_cols, fx_good_cols, sizeof fx_cols);
    fx_desc = (gc_table_desc){
        .name = "fixture.row",
        .doc = "A fixture table.",
        .row_size = sizeof(fx_row),
        .columns = fx_cols,
        .column_count = FX_NCOL,
        .parent_table = "decode.status",
        .parent_link = "owner",
        .parent_column = "owner_row",
    };
}

/* The fixture as modified must be rejected, with `want` in the message. */
static void expect_rejected(const char *want)
{
    size_t n;
    const gc_table_desc *const *reg = gc_table_registry(&n);
    reg_view rv = {reg, n};
    char err[256] = "";
    cr_assert_eq(check_table(&fx_desc, &rv, err, sizeof err), -1, "accepted; wanted '%s'", want);
    cr_assert(strstr(err, want) != NULL, "message '%s' does not mention '%s'", err, want);
    fx_reset();
}

Test(tables, checker_accepts_the_good_fixture)
{
    fx_reset();
    size_t n;
    const gc_table_desc *const *reg = gc_table_registry(&n);
    reg_view rv = {reg, n};
    char err[256] = "";
    cr_assert_eq(check_table(&fx_desc, &rv, err, sizeof err), 0, "%s", err);
}

Test(tables, checker_rejects_each_defect)
{
    fx_reset();
    fx_desc.name = "fixture_row";
    expect_rejected("decoder.record");
    fx_desc.name = "fixture.row.extra";
    expect_rejected("decoder.record");
    fx_desc.name = "Fixture.row";
    expect_rejected("decoder.record");
    fx_desc.doc = "";
    expect_rejected("empty doc");
    fx_desc.column_count = 0;
    expect_rejected("no columns");

    fx_cols[2].name = "Delta";
    expect_rejected("not [a-z_]");
    fx_cols[2].name = "2delta";
    expect_rejected("not [a-z_]");
    fx_cols[2].name = "next";
    expect_rejected("shadowed");
    fx_cols[2].name = "label";
    expect_rejected("duplicate column");
    fx_cols[2].type = GC_T_U16;
    expect_rejected("member size");
    fx_cols[4].type = GC_T_F64;
    expect_rejected("member size");
    fx_cols[3].size = 1;
    expect_rejected("member size");
    fx_cols[5].offset = sizeof(fx_row);
    expect_rejected("outside row_size");
    fx_cols[2].offset = fx_cols[1].offset;
    expect_rejected("overlaps");
    fx_cols[4].unit = NULL;
    expect_rejected("unit is NULL");
    fx_cols[4].doc = "";
    expect_rejected("empty doc");
    fx_cols[2].flags = GC_CF_NULL_IF_MAX;
    expect_rejected("null-if-max");
    fx_cols[4].flags = GC_CF_HEX;
    expect_rejected("hex on");
    fx_cols[4].flags = 1u << 7;
    expect_rejected("unknown flag");

    fx_cols[0].type = GC_T_S64;
    expect_rejected("file_ofs");
    fx_cols[0].name = "file_offset";
    expect_rejected("file_ofs");

    fx_desc.parent_table = "no.such_table";
    expect_rejected("not registered");
    fx_desc.parent_link = "label";
    expect_rejected("hides a column");
    fx_desc.parent_link = NULL;
    expect_rejected("parent link");
    fx_desc.parent_column = "delta";
    expect_rejected("parent column");
    fx_desc.parent_column = "missing";
    expect_rejected("parent column");
    fx_desc.parent_table = NULL;
    expect_rejected("without parent_table");
}

/* ---- the registry ---------------------------------------------------------------- */

Test(tables, every_registered_descriptor_follows_the_conventions)
{
    size_t n;
    const gc_table_desc *const *reg = gc_table_registry(&n);
    cr_assert_geq(n, 1);
    cr_assert_eq(reg[0], &gc_table_decode_status, "decode.status comes first");
    reg_view rv = {reg, n};
    for (size_t i = 0; i < n; i++) {
        char err[256] = "";
        cr_assert_not_null(reg[i], "registry entry %zu is NULL", i);
        cr_expect_eq(check_table(reg[i], &rv, err, sizeof err), 0, "%s", err);
        for (size_t j = 0; j < i; j++)
            cr_expect(strcmp(reg[i]->name, reg[j]->name) != 0, "table '%s' registered twice",
                      reg[i]->name);
    }
}

/* Table names start with the name of a registered decoder (decode.status is
 * the registry's own), and the registry holds every table of every decoder:
 * it is a fixed-size list and silently drops what does not fit. */
Test(tables, registry_is_complete_and_named_by_decoder)
{
    size_t n, nd;
    const gc_table_desc *const *reg = gc_table_registry(&n);
    const gc_decoder *const *decs = gc_decoder_registry(&nd);
    size_t want = 1;
    for (size_t d = 0; d < nd; d++) {
        cr_assert_not_null(decs[d]->name);
        cr_expect(is_ident(decs[d]->name, strlen(decs[d]->name)), "decoder name '%s'",
                  decs[d]->name);
        cr_expect(decs[d]->doc && *decs[d]->doc, "decoder %s has no doc", decs[d]->name);
        for (size_t e = 0; e < d; e++)
            cr_expect(strcmp(decs[e]->name, decs[d]->name) != 0, "decoder %s registered twice",
                      decs[d]->name);
        cr_expect(decs[d]->table_count == 0 || decs[d]->tables != NULL, "decoder %s",
                  decs[d]->name);
        want += decs[d]->table_count;
        for (size_t t = 0; t < decs[d]->table_count; t++) {
            int in_reg = 0;
            for (size_t i = 0; i < n; i++)
                in_reg |= reg[i] == decs[d]->tables[t];
            cr_expect(in_reg, "a table of decoder %s is missing from the registry", decs[d]->name);
        }
    }
    cr_expect_eq(n, want, "registry holds %zu tables, the decoders declare %zu", n, want);
    for (size_t i = 0; i < n; i++) {
        const char *dot = strchr(reg[i]->name, '.');
        cr_assert_not_null(dot);
        size_t plen = (size_t)(dot - reg[i]->name);
        int ok = plen == 6 && strncmp(reg[i]->name, "decode", 6) == 0;
        for (size_t d = 0; d < nd && !ok; d++)
            ok = strlen(decs[d]->name) == plen && strncmp(decs[d]->name, reg[i]->name, plen) == 0;
        cr_expect(ok, "table '%s' is not named after a registered decoder", reg[i]->name);
    }
}

/* ---- docs/fields.md --------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap + 1);
    while (s) {
        size_t r = fread(s + n, 1, cap - n, f);
        n += r;
        if (n < cap)
            break;
        char *t = realloc(s, cap * 2 + 1);
        if (!t) {
            free(s);
            s = NULL;
            break;
        }
        s = t;
        cap *= 2;
    }
    fclose(f);
    if (s) {
        s[n] = '\0';
        *len = n;
    }
    return s;
}

Test(tables, markdown_documents_every_column)
{
    char *md = gc_fields_markdown();
    cr_assert_not_null(md);
    size_t n;
    const gc_table_desc *const *reg = gc_table_registry(&n);
    for (size_t i = 0; i < n; i++) {
        char want[512];
        snprintf(want, sizeof want, "\n## `%s`\n\n%s\n", reg[i]->name, reg[i]->doc);
        cr_expect(strstr(md, want) != NULL, "no section for %s", reg[i]->name);
        for (size_t k = 0; k < reg[i]->column_count; k++) {
            const gc_column *c = &reg[i]->columns[k];
            snprintf(want, sizeof want, "| `%s` | %s", c->name, gc_fields_type_name(c->type));
            cr_expect(strstr(md, want) != NULL, "%s.%s missing", reg[i]->name, c->name);
        }
    }
    /* decode.status is always there; spot-check one row exactly */
    cr_assert(strstr(md, "| `file_ofs` | u64, hex | bytes | offset where the decoder failed "
                         "(0 if it did not) |\n") != NULL);
    cr_assert(strstr(md, "| `name` | str[24] | - | decoder name |\n") != NULL);
    free(md);
    char *txt = gc_fields_text();
    cr_assert_not_null(txt);
    cr_assert(strncmp(txt, "decode.status: ", 15) == 0);
    free(txt);
}

Test(tables, committed_fields_md_is_current)
{
    char *md = gc_fields_markdown();
    cr_assert_not_null(md);
    size_t len = 0;
    char *disk = read_file(GC_TEST_DATA_DIR "/../docs/fields.md", &len);
    if (!disk) {
        free(md);
        cr_assert_fail("docs/fields.md is missing: run ./build/gcverify fields --markdown > "
                       "docs/fields.md");
    }
    size_t line = 0;
    if (strcmp(md, disk) != 0) {
        size_t i = 0;
        line = 1;
        while (md[i] && md[i] == disk[i]) {
            if (md[i] == '\n')
                line++;
            i++;
        }
    }
    free(md);
    free(disk);
    cr_assert_eq(line, 0,
                 "docs/fields.md is stale: run ./build/gcverify fields --markdown > "
                 "docs/fields.md (first difference on line %zu)",
                 line);
}
