/* SPDX-License-Identifier: MIT */
/* gcverify coverage: for every table and column, what guards it.
 *
 * A column is "read" by an invariant whose expressions name it: a bare name
 * in an invariant on its own table, `<table>.<column>` anywhere (aggregates
 * over another table), or `<link>.<column>` in an invariant on a child table
 * whose parent link names this table. A metric "aggregates" it when its
 * expression names `<table>.<column>` (count(<table>) aggregates the table's
 * rows, not a column). Every column is guarded by its digest (gc_digest.h);
 * a column nothing else names is "digest only": the baseline notices when it
 * moves, but no check says what it should be. The analysis is over the
 * expression texts, the names the invariant language resolves. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli.h"
#include "gc_inv.h"
#include "gc_level.h"
#include "gc_paths.h"
#include "gc_strbuf.h"

int gc_cmd_coverage(int argc, char **argv);

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Does text mention `prefix` + `name` as a whole name? A bare mention
 * (prefix "") must not follow a '.', so `patch.radius` is not `radius`. */
static int mentions(const char *text, const char *prefix, const char *name)
{
    if (!text)
        return 0;
    char want[256];
    snprintf(want, sizeof want, "%s%s", prefix, name);
    size_t n = strlen(want);
    for (const char *p = strstr(text, want); p; p = strstr(p + 1, want)) {
        int before_ok = p == text || !(name_char(p[-1]) || p[-1] == '.');
        if (before_ok && !name_char(p[n]))
            return 1;
    }
    return 0;
}

static int inv_reads(const gc_inv_info *x, const gc_table_desc *const *descs, size_t ndesc,
                     const gc_table_desc *t, const char *col)
{
    char dotted[200];
    snprintf(dotted, sizeof dotted, "%s.", t->name);
    if (mentions(x->expect, dotted, col) || mentions(x->where, dotted, col))
        return 1;
    if (x->table && strcmp(x->table, t->name) == 0 &&
        (mentions(x->expect, "", col) || mentions(x->where, "", col)))
        return 1;
    /* the parent link column: read by every invariant that goes through it */
    if (x->table && strcmp(x->table, t->name) == 0 && t->parent_column &&
        strcmp(t->parent_column, col) == 0) {
        char link[64];
        snprintf(link, sizeof link, "%s.", t->parent_link);
        if (strstr(x->expect ? x->expect : "", link) || strstr(x->where ? x->where : "", link))
            return 1;
    }
    /* a child table's invariant naming its parent row's column */
    for (size_t i = 0; x->table && i < ndesc; i++) {
        const gc_table_desc *d = descs[i];
        if (strcmp(d->name, x->table) != 0 || !d->parent_table ||
            strcmp(d->parent_table, t->name) != 0)
            continue;
        char link[64];
        snprintf(link, sizeof link, "%s.", d->parent_link);
        if (mentions(x->expect, link, col) || mentions(x->where, link, col))
            return 1;
    }
    return 0;
}

/* The mission's named kinds, by column name and unit (README, "mission"). */
static const char *kind_of(const gc_column *c)
{
    const char *n = c->name;
    if (strcmp(n, "file_ofs") == 0)
        return NULL; /* where the row came from: every sample prints it */
    if (strstr(n, "count") || strcmp(c->unit, "count") == 0 || strncmp(n, "n_", 2) == 0)
        return "count";
    if (strstr(n, "next") || strstr(n, "prev") || strstr(n, "chain"))
        return "chain";
    if (strstr(n, "radius") || strstr(n, "sphere"))
        return "sphere";
    if (strstr(n, "alpha") || strstr(n, "opac") || strstr(n, "opaque"))
        return "opacity";
    if (strcmp(n, "x") == 0 || strcmp(n, "y") == 0 || strcmp(n, "z") == 0 || strstr(n, "pos"))
        return "position";
    if (strstr(n, "index") || strstr(n, "_row") || strstr(n, "idx") || strstr(n, "indices") ||
        strncmp(n, "parent", 6) == 0)
        return "index";
    return NULL;
}

int gc_cmd_coverage(int argc, char **argv)
{
    char def_dir[4096];
    gc_data_path(def_dir, sizeof def_dir, "invariants");
    const char *dir = def_dir;
    int check = 0, markdown = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--invariants") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--check") == 0) {
            check = 1;
        } else if (strcmp(argv[i], "--markdown") == 0) {
            markdown = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: gcverify coverage [--invariants DIR] [--markdown] [--check]\n\n"
                   "For every table and column: the invariants that read it, the metrics that\n"
                   "aggregate it, or 'digest only' when only its column digest in the baseline\n"
                   "guards it; per table the share of columns a semantic invariant checks; then\n"
                   "the columns of the mission's kinds (counts, chains, spheres, opacity,\n"
                   "positions, indices) that no invariant reads. --check: exit 1 if there is\n"
                   "one. See docs/verification.md.\n");
            return 0;
        } else {
            fprintf(stderr, "gcverify coverage: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    gc_inv_set *set = gc_cli_load_invariants("coverage", dir);
    if (!set)
        return 2;
    size_t ndesc;
    const gc_table_desc *const *descs = gc_table_registry(&ndesc);
    gc_strbuf unread;
    gc_sb_init(&unread);
    size_t total = 0, read_total = 0, mission_unread = 0;
    for (size_t t = 0; t < ndesc; t++) {
        const gc_table_desc *d = descs[t];
        size_t read = 0, counted = 0;
        gc_strbuf body;
        gc_sb_init(&body);
        for (size_t k = 0; k < d->column_count; k++) {
            const gc_column *c = &d->columns[k];
            gc_strbuf invs, mets;
            gc_sb_init(&invs);
            gc_sb_init(&mets);
            size_t ni = 0, nm = 0;
            for (size_t i = 0; i < gc_inv_count(set); i++) {
                const gc_inv_info *x = gc_inv_get(set, i);
                if (inv_reads(x, descs, ndesc, d, c->name)) {
                    gc_sb_printf(&invs, "%s%s", ni++ ? ", " : "", x->id);
                }
            }
            char dotted[200];
            snprintf(dotted, sizeof dotted, "%s.", d->name);
            for (size_t m = 0; m < gc_inv_metric_count(set); m++)
                if (mentions(gc_inv_metric_expr(set, m), dotted, c->name))
                    gc_sb_printf(&mets, "%s%s", nm++ ? ", " : "", gc_inv_metric_name(set, m));
            int is_ofs = strcmp(c->name, "file_ofs") == 0;
            if (!is_ofs) {
                counted++;
                read += ni > 0;
            }
            const char *kind = kind_of(c);
            if (!ni && !is_ofs) {
                gc_sb_printf(&unread, "%s.%s%s%s%s\n", d->name, c->name, kind ? " (" : "",
                             kind ? kind : "", kind ? ")" : "");
                mission_unread += kind != NULL;
            }
            if (markdown)
                gc_sb_printf(&body, "| `%s` | %s | %s | %s | %s |\n", c->name, kind ? kind : "",
                             ni ? invs.s : "", nm ? mets.s : "",
                             ni   ? "invariants + digest"
                             : nm ? "metrics + digest"
                                  : "digest only");
            else
                gc_sb_printf(&body, "  %-28s %-9s %s%s%s%s%s\n", c->name, kind ? kind : "-",
                             ni ? "invariants: " : "", ni ? invs.s : "", ni && nm ? "; " : "",
                             nm ? "metrics: " : "", nm ? mets.s : (ni ? "" : "DIGEST ONLY"));
            gc_sb_free(&invs);
            gc_sb_free(&mets);
        }
        total += counted;
        read_total += read;
        if (markdown)
            printf("### `%s`: %zu of %zu columns checked semantically (%.0f%%)\n\n"
                   "| column | kind | invariants | metrics | guarded by "
                   "|\n|---|---|---|---|---|\n%s\n",
                   d->name, read, counted, counted ? 100.0 * (double)read / (double)counted : 0,
                   body.s ? body.s : "");
        else
            printf("%s: %zu of %zu columns checked semantically (%.0f%%)\n%s", d->name, read,
                   counted, counted ? 100.0 * (double)read / (double)counted : 0,
                   body.s ? body.s : "");
        gc_sb_free(&body);
    }
    printf("%s%zu of %zu columns (file_ofs aside) read by an invariant (%.1f%%); %zu of the "
           "mission's kinds guarded by the digest alone\n",
           markdown ? "\n**" : "\n", read_total, total,
           total ? 100.0 * (double)read_total / (double)total : 0, mission_unread);
    if (markdown)
        printf("**\n");
    printf("%sColumns no invariant reads:\n%s", markdown ? "\n" : "\n",
           unread.s ? unread.s : "(none)\n");
    gc_sb_free(&unread);
    gc_inv_free(set);
    return check && mission_unread ? 1 : 0;
}
