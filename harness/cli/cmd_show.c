/* SPDX-License-Identifier: MIT */
/* gcverify show --level N TABLE [--where EXPR] [--columns a,b] [--format csv|json|table]:
 * the rows of one table of one level, selected with the invariant language.
 * The selection is compiled and run by the invariant engine itself (as the
 * `where` of a one-off invariant), so an expression from a failure sample or
 * an invariant's YAML can be pasted as it is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli.h"
#include "gc_cli_opts.h"
#include "gc_corpus.h"
#include "gc_inv.h"
#include "gc_level.h"
#include "gc_strbuf.h"
#include "sy_corpus.h"

int gc_cmd_show(int argc, char **argv);

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

enum {
    K_LEVEL = GC_OPT_LONG,
    K_WHERE,
    K_COLUMNS,
    K_FORMAT,
    K_LIMIT,
    K_CORPUS,
    K_SCALE,
    K_SEED,
    K_INJECT_FAULT,
};

static const gc_opt show_opts[] = {
    {"level", K_LEVEL, "N", "the level, 0..26 (required)"},
    {"where", K_WHERE, "EXPR", "only the rows for which EXPR is true"},
    {"columns", K_COLUMNS, "a,b", "these columns only (default: all), in this order"},
    {"format", K_FORMAT, "F", "table (aligned text, default), csv or json"},
    {"limit", K_LIMIT, "N", "at most N rows"},
    {"corpus", K_CORPUS, "DIR", "the corpus (default: the synthetic one)"},
    {"scale", K_SCALE, "retail|small|edge", "synthetic corpus scale (default retail)"},
    {"seed", K_SEED, "N", "synthetic corpus seed (default 1)"},
    {"inject-fault", K_INJECT_FAULT, "NAME", "decode with a catalogued decoder defect"},
};
static const gc_opt_group show_groups[] = {GC_OPT_GROUP(NULL, show_opts)};
static const gc_cmd_spec show_spec =
    GC_CMD_SPEC("show",
                "--level N TABLE [--where EXPR] [--columns a,b]\n"
                "[--format table|csv|json] [--limit N] [--corpus DIR]\n"
                "[--scale retail|small|edge] [--seed N]\n"
                "[--inject-fault NAME]",
                "Prints the rows of TABLE (gcverify fields lists the tables) of level N,\n"
                "optionally only those for which EXPR is true. EXPR is the invariant language\n"
                "(docs/invariants.md): columns, `row` (the row index), links such as\n"
                "patch.radius, prev/next, aggregates. A failure sample's row can be looked at\n"
                "with --where 'row == 332'; an invariant's `expect` with --where 'not (EXPR)'\n"
                "lists the rows it fails on.\n",
                show_groups,
                "Exit 0; 2 on bad usage, an unknown table or column, or an invalid EXPR;\n"
                "3 when the corpus or level cannot be read.\n");

static const gc_table_desc *find_table(const char *name, size_t *index)
{
    size_t n;
    const gc_table_desc *const *d = gc_table_registry(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(d[i]->name, name) == 0) {
            *index = i;
            return d[i];
        }
    return NULL;
}

/* One cell as text (NULL: a null value). */
static const char *cell(const gc_table_desc *d, const gc_column *c, const unsigned char *row,
                        int hex, char *buf, size_t len)
{
    const unsigned char *p = row + c->offset;
    int null_max = (c->flags & GC_CF_NULL_IF_MAX) != 0;
    hex = hex && (c->flags & GC_CF_HEX);
    (void)d;
    uint64_t u = 0;
    int64_t s = 0;
    int is_signed = 0;
    switch (c->type) {
    case GC_T_BOOL:
    case GC_T_U8:
        u = p[0];
        if (null_max && u == 0xffu)
            return NULL;
        break;
    case GC_T_U16: {
        uint16_t x;
        memcpy(&x, p, sizeof x);
        if (null_max && x == 0xffffu)
            return NULL;
        u = x;
        break;
    }
    case GC_T_U32: {
        uint32_t x;
        memcpy(&x, p, sizeof x);
        if (null_max && x == UINT32_MAX)
            return NULL;
        u = x;
        break;
    }
    case GC_T_U64: {
        uint64_t x;
        memcpy(&x, p, sizeof x);
        if (null_max && x == UINT64_MAX)
            return NULL;
        u = x;
        break;
    }
    case GC_T_S8:
        s = (int8_t)p[0];
        is_signed = 1;
        break;
    case GC_T_S16: {
        int16_t x;
        memcpy(&x, p, sizeof x);
        s = x;
        is_signed = 1;
        break;
    }
    case GC_T_S32: {
        int32_t x;
        memcpy(&x, p, sizeof x);
        s = x;
        is_signed = 1;
        break;
    }
    case GC_T_S64: {
        int64_t x;
        memcpy(&x, p, sizeof x);
        s = x;
        is_signed = 1;
        break;
    }
    case GC_T_F32: {
        float x;
        memcpy(&x, p, sizeof x);
        if (x != x)
            return NULL;
        snprintf(buf, len, "%.9g", (double)x);
        return buf;
    }
    case GC_T_F64: {
        double x;
        memcpy(&x, p, sizeof x);
        if (x != x)
            return NULL;
        snprintf(buf, len, "%.17g", x);
        return buf;
    }
    case GC_T_STR: {
        size_t n = strnlen((const char *)p, c->size);
        snprintf(buf, len, "%.*s", (int)n, (const char *)p);
        return buf;
    }
    }
    if (is_signed) {
        if (hex && s < 0)
            snprintf(buf, len, "-0x%llx", (unsigned long long)(-(s + 1)) + 1ull);
        else if (hex)
            snprintf(buf, len, "0x%llx", (unsigned long long)s);
        else
            snprintf(buf, len, "%lld", (long long)s);
    } else if (hex) {
        snprintf(buf, len, "0x%llx", (unsigned long long)u);
    } else {
        snprintf(buf, len, "%llu", (unsigned long long)u);
    }
    return buf;
}

static void csv_field(gc_strbuf *b, const char *s)
{
    if (!s)
        return; /* null: an empty field */
    if (!strpbrk(s, ",\"\n")) {
        gc_sb_puts(b, s);
        return;
    }
    gc_sb_puts(b, "\"");
    for (const char *p = s; *p; p++)
        gc_sb_put(b, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
    gc_sb_puts(b, "\"");
}

/* The selection as a one-off invariant: rows passing `where` are checked and
 * fail an expect that no row satisfies, so the failures are the selection. */
static gc_inv_set *compile_selection(const char *table, const char *where, char *err, size_t errlen)
{
    gc_strbuf y;
    gc_sb_init(&y);
    gc_sb_printf(&y, "invariants:\n  - id: show.selection\n    table: %s\n", table);
    if (where) {
        /* a single-quoted scalar: only ' needs escaping (doubled) */
        gc_sb_puts(&y, "    where: '");
        for (const char *p = where; *p; p++) {
            if (*p == '\'')
                gc_sb_puts(&y, "''");
            else
                gc_sb_put(&y, (*p == '\n' || *p == '\r') ? " " : p, 1);
        }
        gc_sb_puts(&y, "'\n");
    }
    gc_sb_puts(&y, "    expect: row < 0\n    why: the rows gcverify show prints\n"
                   "    severity: info\n    tier: gate\n");
    if (y.failed) {
        gc_sb_free(&y);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    size_t ndesc;
    const gc_table_desc *const *descs = gc_table_registry(&ndesc);
    char *lerr = malloc(8192);
    if (!lerr) {
        gc_sb_free(&y);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    lerr[0] = '\0';
    gc_inv_set *set = gc_inv_load_string("--where", y.s, descs, ndesc, lerr, 8192);
    gc_sb_free(&y);
    if (!set) {
        /* "--where:4:C: message" -> "--where, column C-12: message" (the
         * expression starts at column 13 of line 4 of the text above) */
        int line = 0, col = 0, used = 0;
        if (sscanf(lerr, "--where:%d:%d: %n", &line, &col, &used) == 2 && line == 4 && used > 0 &&
            col > 12)
            snprintf(err, errlen, "--where, column %d: %s", col - 12, lerr + used);
        else
            snprintf(err, errlen, "%s", lerr);
        size_t n = strlen(err);
        while (n && err[n - 1] == '\n')
            err[--n] = '\0';
    }
    free(lerr);
    return set;
}

int gc_cmd_show(int argc, char **argv)
{
    const char *table = NULL, *where = NULL, *columns = NULL, *corpus = NULL, *fault = NULL;
    long long level = -1;
    unsigned long long limit = UINT64_MAX, n;
    int fmt = FMT_TABLE, scale = SY_SCALE_RETAIL;
    uint32_t seed = 1;
    gc_opts p;
    if (gc_opts_init(&p, &show_spec, argc, argv) != 0)
        return 2;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        const char *v = p.value;
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return 2;
        case GC_OPT_ARG:
            if (table)
                return gc_opts_bad(&p, "one table only ('%s' and '%s')", table, v);
            table = v;
            break;
        case K_LEVEL:
            if (gc_cli_uint(v, 26, &n) != 0)
                return gc_opts_bad(&p, "--level takes 0..26, not '%s'", v);
            level = (long long)n;
            break;
        case K_WHERE:
            where = v;
            break;
        case K_COLUMNS:
            columns = v;
            break;
        case K_FORMAT:
            if (strcmp(v, "table") == 0)
                fmt = FMT_TABLE;
            else if (strcmp(v, "csv") == 0)
                fmt = FMT_CSV;
            else if (strcmp(v, "json") == 0)
                fmt = FMT_JSON;
            else
                return gc_opts_bad(&p, "--format takes table, csv or json, not '%s'", v);
            break;
        case K_LIMIT:
            if (gc_cli_uint(v, UINT64_MAX, &limit) != 0)
                return gc_opts_bad(&p, "--limit takes a number, not '%s'", v);
            break;
        case K_CORPUS:
            corpus = v;
            break;
        case K_SCALE:
            scale = sy_scale_parse(v);
            if (scale < 0)
                return gc_opts_bad(&p, "--scale takes retail, small or edge, not '%s'", v);
            break;
        case K_SEED:
            if (gc_cli_uint(v, 0xffffffffu, &n) != 0)
                return gc_opts_bad(&p, "--seed takes a number, not '%s'", v);
            seed = (uint32_t)n;
            break;
        case K_INJECT_FAULT:
            fault = v;
            break;
        }
    }
    if (!table || level < 0)
        return gc_opts_usage_error(&show_spec, "--level N and a TABLE are needed");
    size_t ti = 0;
    const gc_table_desc *d = find_table(table, &ti);
    if (!d) {
        fprintf(stderr, "gcverify show: no table '%s' (gcverify fields lists them)\n", table);
        return 2;
    }
    int fault_id = 0;
    if (fault) {
        fault_id = gc_fault_lookup(fault);
        if (fault_id < 0 || !GC_FAULTS_BUILT) {
            fprintf(stderr, "gcverify show: %s\n",
                    fault_id < 0 ? "unknown fault (gcverify faults lists them)"
                                 : "this build has no fault switches (make FAULTS=ON)");
            return 2;
        }
    }
    /* the columns, validated before the level is decoded */
    const gc_column *cols[256];
    size_t ncol = 0;
    if (columns) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s", columns);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            while (*tok == ' ')
                tok++;
            if (strcmp(tok, "row") == 0)
                continue; /* always the first column */
            const gc_column *c = NULL;
            for (size_t k = 0; k < d->column_count && !c; k++)
                if (strcmp(d->columns[k].name, tok) == 0)
                    c = &d->columns[k];
            if (!c) {
                fprintf(stderr, "gcverify show: %s has no column '%s' (gcverify fields)\n", d->name,
                        tok);
                return 2;
            }
            if (ncol < GC_COUNTOF(cols))
                cols[ncol++] = c;
        }
    } else {
        for (size_t k = 0; k < d->column_count && ncol < GC_COUNTOF(cols); k++)
            cols[ncol++] = &d->columns[k];
    }
    char err[4096];
    gc_inv_set *set = compile_selection(table, where, err, sizeof err);
    if (!set) {
        fprintf(stderr, "gcverify show: %s\n", err);
        return 2;
    }
    gc_corpus c;
    gc_level lv;
    int rc = gc_corpus_decode_level("show", corpus, scale, seed, (int)level, fault_id, &c, &lv);
    if (rc != 0) {
        gc_inv_free(set);
        return rc;
    }
    size_t ndesc;
    gc_table_registry(&ndesc);
    gc_table *tables = calloc(ndesc, sizeof *tables);
    gc_inv_result res;
    memset(&res, 0, sizeof res);
    if (!tables) {
        fprintf(stderr, "gcverify show: out of memory\n");
        rc = 1;
        goto done;
    }
    gc_level_tables(&lv, tables);
    const gc_table *t = &tables[ti];
    if (gc_inv_eval_level(set, 0, tables, (int)level, t->count, &res) != 0) {
        fprintf(stderr, "gcverify show: out of memory\n");
        rc = 1;
        goto done;
    }
    size_t shown = res.sample_count < limit ? res.sample_count : (size_t)limit;
    gc_strbuf b;
    gc_sb_init(&b);
    char vb[512];
    if (fmt == FMT_CSV) {
        gc_sb_puts(&b, "row");
        for (size_t k = 0; k < ncol; k++)
            gc_sb_printf(&b, ",%s", cols[k]->name);
        gc_sb_puts(&b, "\n");
        for (size_t r = 0; r < shown; r++) {
            int64_t ri = res.samples[r].row;
            const unsigned char *row = (const unsigned char *)t->rows + (size_t)ri * d->row_size;
            gc_sb_printf(&b, "%lld", (long long)ri);
            for (size_t k = 0; k < ncol; k++) {
                gc_sb_puts(&b, ",");
                csv_field(&b, cell(d, cols[k], row, 1, vb, sizeof vb));
            }
            gc_sb_puts(&b, "\n");
        }
    } else if (fmt == FMT_JSON) {
        gc_sb_puts(&b, "[");
        for (size_t r = 0; r < shown; r++) {
            int64_t ri = res.samples[r].row;
            const unsigned char *row = (const unsigned char *)t->rows + (size_t)ri * d->row_size;
            gc_sb_printf(&b, "%s\n  {\"row\": %lld", r ? "," : "", (long long)ri);
            for (size_t k = 0; k < ncol; k++) {
                const char *v = cell(d, cols[k], row, 0, vb, sizeof vb);
                gc_sb_printf(&b, ", \"%s\": ", cols[k]->name);
                if (!v)
                    gc_sb_puts(&b, "null");
                else if (cols[k]->type == GC_T_STR)
                    gc_sb_json_str(&b, v);
                else if (cols[k]->type == GC_T_BOOL)
                    gc_sb_puts(&b, strcmp(v, "0") ? "true" : "false");
                else
                    gc_sb_puts(&b, v);
            }
            gc_sb_puts(&b, "}");
        }
        gc_sb_puts(&b, shown ? "\n]\n" : "]\n");
    } else {
        /* aligned columns: widths from the header and the rows shown */
        size_t w[257];
        w[0] = 3;
        for (size_t k = 0; k < ncol; k++)
            w[k + 1] = strlen(cols[k]->name);
        for (size_t r = 0; r < shown; r++) {
            int64_t ri = res.samples[r].row;
            const unsigned char *row = (const unsigned char *)t->rows + (size_t)ri * d->row_size;
            int l = snprintf(vb, sizeof vb, "%lld", (long long)ri);
            if ((size_t)l > w[0])
                w[0] = (size_t)l;
            for (size_t k = 0; k < ncol; k++) {
                const char *v = cell(d, cols[k], row, 1, vb, sizeof vb);
                size_t vl = v ? strlen(v) : 4;
                if (vl > w[k + 1])
                    w[k + 1] = vl;
            }
        }
        gc_sb_printf(&b, "%*s", (int)w[0], "row");
        for (size_t k = 0; k < ncol; k++)
            gc_sb_printf(&b, "  %*s", (int)w[k + 1], cols[k]->name);
        gc_sb_puts(&b, "\n");
        for (size_t r = 0; r < shown; r++) {
            int64_t ri = res.samples[r].row;
            const unsigned char *row = (const unsigned char *)t->rows + (size_t)ri * d->row_size;
            gc_sb_printf(&b, "%*lld", (int)w[0], (long long)ri);
            for (size_t k = 0; k < ncol; k++) {
                const char *v = cell(d, cols[k], row, 1, vb, sizeof vb);
                gc_sb_printf(&b, "  %*s", (int)w[k + 1], v ? v : "null");
            }
            gc_sb_puts(&b, "\n");
        }
    }
    if (b.failed) {
        fprintf(stderr, "gcverify show: out of memory\n");
        rc = 1;
    } else {
        fwrite(b.s, 1, b.len, stdout);
        fprintf(stderr, "show: %s level %lld: %zu of %zu rows%s%s%s\n", d->name, level, shown,
                t->count, where ? " where " : "", where ? where : "",
                shown < res.sample_count ? " (--limit)" : "");
    }
    gc_sb_free(&b);
done:
    gc_inv_result_free(&res);
    free(tables);
    gc_level_free(&lv);
    gc_corpus_close(&c);
    gc_inv_free(set);
    return rc;
}
