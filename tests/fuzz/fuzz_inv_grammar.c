/* SPDX-License-Identifier: MIT */
/* Structure-aware libFuzzer target for the invariant loader: the input is not
 * YAML but a stream of choices, from which this target writes an invariant
 * file that is almost always well formed as YAML and mostly well typed as
 * expressions (names are the real table columns, operators and functions
 * from the grammar of docs/invariants.md §3), then loads it against the real
 * table registry and evaluates what loads on empty tables. Besides ordinary
 * rules it writes the size-dependent shapes byte fuzzing of fuzz_inv never
 * reaches from 1 KB inputs: flat operator chains of up to 40,000 terms,
 * parentheses nested thousands deep, YAML nested up to 200,000 deep, ids and
 * names hundreds of characters long, files near the 1 MiB cap.
 *
 * Contract checked: no crash, hang or sanitizer report; a failed load writes
 * whole "FILE:LINE:COL: message" lines; a loaded set evaluates to 0. Also
 * built as the replay test replay_inv_grammar over tests/fuzz/corpus/inv_grammar/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_inv.h"
#include "gc_level.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

typedef struct src {
    const uint8_t *p;
    size_t n, i;
} src;

static unsigned u8(src *s)
{
    return s->i < s->n ? s->p[s->i++] : 0;
}

static unsigned u16(src *s)
{
    unsigned a = u8(s);
    return a | u8(s) << 8;
}

typedef struct out {
    char *s;
    size_t len, cap;
} out;

#define OUT_MAX (3u << 20) /* past the loader's 1 MiB cap, so the cap is fuzzed too */

static void put(out *o, const char *t, size_t n)
{
    if (o->len + n + 1 > OUT_MAX)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t c = o->cap ? o->cap : 4096;
        while (c < o->len + n + 1)
            c *= 2;
        char *p = realloc(o->s, c);
        check(p != NULL);
        o->s = p;
        o->cap = c;
    }
    memcpy(o->s + o->len, t, n);
    o->len += n;
    o->s[o->len] = '\0';
}

static void puts_(out *o, const char *t)
{
    put(o, t, strlen(t));
}

static void putc_n(out *o, char c, size_t n)
{
    for (size_t i = 0; i < n && o->len < OUT_MAX; i++)
        put(o, &c, 1);
}

static const gc_table_desc *const *g_descs;
static size_t g_ndesc;

static const char *const binops[] = {"+", "-",  "*",  "/", "//", "%", "<<", ">>",  "&",
                                     "|", "==", "!=", "<", "<=", ">", ">=", "and", "or"};
static const char *const fns[] = {"abs",     "min",    "max",      "sqrt",  "distance",
                                  "between", "isnull", "coalesce", "count", "sum",
                                  "mean",    "all",    "any",      "nosuch"};

static void column(src *s, out *o, const gc_table_desc *t)
{
    if (!t || t->column_count == 0 || u8(s) % 16 == 0) {
        static const char *const odd[] = {"row",        "outer.file_ofs", "next.file_ofs",
                                          "prev.index", "x.y.z",          "no_such_column"};
        puts_(o, odd[u8(s) % 6]);
        return;
    }
    unsigned k = u8(s);
    if (k % 8 == 1 && t->parent_link) {
        puts_(o, t->parent_link);
        puts_(o, ".");
    } else if (k % 8 == 2) {
        puts_(o, k & 0x80 ? "next." : "prev.");
    }
    puts_(o, t->columns[u8(s) % t->column_count].name);
}

static void literal(src *s, out *o)
{
    char b[64];
    switch (u8(s) % 8) {
    case 0:
        snprintf(b, sizeof b, "%u", u16(s));
        break;
    case 1:
        snprintf(b, sizeof b, "0x%x", u16(s) * 0x10001u);
        break;
    case 2:
        snprintf(b, sizeof b, "%u.%ue%d", u8(s), u8(s), (int)(u8(s) % 80) - 40);
        break;
    case 3:
        snprintf(b, sizeof b, "\"%c%c\"", 'a' + u8(s) % 26, 'a' + u8(s) % 26);
        break;
    case 4:
        snprintf(b, sizeof b, "%s", u8(s) & 1 ? "true" : "false");
        break;
    case 5:
        snprintf(b, sizeof b, "null");
        break;
    case 6:
        snprintf(b, sizeof b, "-9223372036854775808");
        break;
    default:
        snprintf(b, sizeof b, "%u", u8(s) % 3);
        break;
    }
    puts_(o, b);
}

static void expr(src *s, out *o, const gc_table_desc *t, int depth)
{
    unsigned k = u8(s) % (depth > 6 ? 3 : 8);
    switch (k) {
    case 0:
        literal(s, o);
        return;
    case 1:
    case 2:
        column(s, o, t);
        return;
    case 3:
        puts_(o, u8(s) & 1 ? "-" : "not ");
        expr(s, o, t, depth + 1);
        return;
    case 4:
        puts_(o, "(");
        expr(s, o, t, depth + 1);
        puts_(o, ")");
        return;
    case 5: {
        const char *f = fns[u8(s) % GC_COUNTOF(fns)];
        puts_(o, f);
        puts_(o, "(");
        unsigned n = u8(s) % 4;
        /* an aggregate's table argument, now and then */
        if (n && u8(s) % 3 == 0 && g_ndesc) {
            const gc_table_desc *x = g_descs[u8(s) % g_ndesc];
            puts_(o, x->name);
            if (x->column_count) {
                puts_(o, ".");
                puts_(o, x->columns[u8(s) % x->column_count].name);
            }
        } else if (n) {
            expr(s, o, t, depth + 1);
        }
        for (unsigned i = 1; i < n; i++) {
            puts_(o, ", ");
            expr(s, o, t, depth + 1);
        }
        puts_(o, ")");
        return;
    }
    default:
        expr(s, o, t, depth + 1);
        puts_(o, " ");
        puts_(o, binops[u8(s) % GC_COUNTOF(binops)]);
        puts_(o, " ");
        expr(s, o, t, depth + 1);
        return;
    }
}

/* The size-dependent shapes. */
static void long_chain(src *s, out *o, const gc_table_desc *t)
{
    unsigned terms = 1 + u16(s) % 40000;
    const char *op = binops[u8(s) % GC_COUNTOF(binops)];
    column(s, o, t);
    for (unsigned i = 1; i < terms; i++) {
        puts_(o, " ");
        puts_(o, op);
        puts_(o, " ");
        if (u8(s) % 4 == 0)
            literal(s, o);
        else
            column(s, o, t);
    }
}

static void deep_parens(src *s, out *o, const gc_table_desc *t)
{
    unsigned d = u16(s) % 5000;
    putc_n(o, u8(s) & 1 ? '(' : '-', d);
    column(s, o, t);
    putc_n(o, ')', d);
}

static void one_invariant(src *s, out *o, int i)
{
    const gc_table_desc *t = g_ndesc ? g_descs[u8(s) % g_ndesc] : NULL;
    char b[96];
    unsigned idlen = u8(s) % 16 == 0 ? 100 + u8(s) : 0;
    snprintf(b, sizeof b, "  - id: fz.r%d", i);
    puts_(o, b);
    putc_n(o, 'x', idlen);
    puts_(o, "\n");
    if (t && u8(s) % 8) {
        puts_(o, "    table: ");
        puts_(o, t->name);
        puts_(o, "\n");
    }
    if (u8(s) % 4 == 0) {
        puts_(o, "    where: ");
        expr(s, o, t, 2);
        puts_(o, "\n");
    }
    puts_(o, u8(s) % 8 == 0 ? "    expect: >-\n      " : "    expect: ");
    switch (u8(s) % 8) {
    case 0:
        long_chain(s, o, t);
        break;
    case 1:
        deep_parens(s, o, t);
        break;
    default:
        expr(s, o, t, 0);
        break;
    }
    puts_(o, "\n    why: fuzz\n");
    if (u8(s) % 4 == 0) {
        static const char *const sev[] = {"error", "warn", "info", "fatal"};
        puts_(o, "    severity: ");
        puts_(o, sev[u8(s) % 4]);
        puts_(o, "\n");
    }
    if (u8(s) % 4 == 0)
        puts_(o, u8(s) & 1 ? "    scope: corpus\n" : "    tier: nightly\n");
}

static void deep_yaml(src *s, out *o)
{
    unsigned d = (unsigned)(u16(s) * 4u) % 200001u;
    switch (u8(s) % 3) {
    case 0:
        puts_(o, "invariants: ");
        putc_n(o, '[', d);
        putc_n(o, ']', d);
        break;
    case 1:
        puts_(o, "invariants: ");
        for (unsigned i = 0; i < d && o->len < OUT_MAX; i++)
            puts_(o, "{a: ");
        puts_(o, "b");
        putc_n(o, '}', d);
        break;
    default: /* block nesting: the indentation itself bounds the depth by the file cap */
        puts_(o, "invariants:\n");
        for (unsigned i = 0; i < d % 2000 && o->len < OUT_MAX; i++) {
            putc_n(o, ' ', i);
            puts_(o, "- \n");
        }
        break;
    }
    puts_(o, "\n");
}

static void check_diagnostics(const char *err)
{
    check(err[0] != '\0');
    const char *p = err;
    while (*p) {
        const char *nl = strchr(p, '\n');
        check(nl != NULL);
        if (strncmp(p, "g.yaml:", 7) == 0) {
            char *e;
            long line = strtol(p + 7, &e, 10);
            check(line >= 1 && *e == ':');
            long col = strtol(e + 1, &e, 10);
            check(col >= 1 && *e == ':' && e[1] == ' ');
        } else {
            check(*p == '(' || strncmp(p, "out of memory", 13) == 0);
        }
        p = nl + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_descs)
        g_descs = gc_table_registry(&g_ndesc);
    src s = {data, size, 0};
    out o = {0};
    unsigned mode = u8(&s);
    if (mode % 8 == 7) {
        deep_yaml(&s, &o);
    } else {
        puts_(&o, "invariants:\n");
        unsigned n = 1 + u8(&s) % 6;
        for (unsigned i = 0; i < n; i++)
            one_invariant(&s, &o, (int)i);
        if (mode & 0x10) {
            puts_(&o, "metrics:\n  - fz.m: ");
            if (mode & 0x20)
                long_chain(&s, &o, NULL);
            else
                expr(&s, &o, NULL, 0);
            puts_(&o, "\n");
        }
        if (mode & 0x40) /* pad towards the file-size cap */
            for (unsigned k = u16(&s) % 1200; k > 0 && o.len < OUT_MAX; k--)
                puts_(&o, "# --------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n"
                          "# ------------------------------------------------------------\n");
    }
    static char err[16384];
    err[0] = '\0';
    gc_inv_set *set =
        gc_inv_load_string("g.yaml", o.s ? o.s : "", g_descs, g_ndesc, err, sizeof err);
    free(o.s);
    if (!set) {
        check_diagnostics(err);
        return 0;
    }
    /* every table empty: aggregates over nothing, no row to read */
    static gc_table empty[256];
    check(g_ndesc <= 256);
    for (size_t i = 0; i < g_ndesc; i++) {
        empty[i].desc = g_descs[i];
        empty[i].rows = NULL;
        empty[i].count = 0;
    }
    const gc_table *levels[1] = {empty};
    const int ids[1] = {0};
    for (size_t i = 0; i < gc_inv_count(set); i++) {
        gc_inv_result r;
        check(gc_inv_eval_level(set, i, empty, 0, 2, &r) == 0);
        check(r.failed <= r.checked);
        gc_inv_result_free(&r);
        check(gc_inv_eval_corpus(set, i, levels, ids, 1, 2, &r) == 0);
        gc_inv_result_free(&r);
    }
    for (size_t m = 0; m < gc_inv_metric_count(set); m++) {
        double v;
        int nul;
        check(gc_inv_eval_metric(set, m, empty, &v, &nul) == 0);
    }
    gc_inv_free(set);
    return 0;
}
