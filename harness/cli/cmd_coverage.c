/* SPDX-License-Identifier: MIT */
/* gcverify coverage: for every table and column, what guards it (the analysis is
 * harness/report/coverage.c): the invariants that read it, the metrics that
 * aggregate it, its column digest in the baseline, or nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_baseline.h"
#include "gc_cli.h"
#include "gc_cli_opts.h"
#include "gc_coverage.h"
#include "gc_inv.h"
#include "gc_level.h"
#include "gc_paths.h"
#include "gc_strbuf.h"

int gc_cmd_coverage(int argc, char **argv);

typedef struct cov_out {
    int markdown;
    const gc_table_desc *table; /* the table being collected */
    size_t read, counted;
    gc_strbuf body, unread;
} cov_out;

static void flush_table(cov_out *o)
{
    if (!o->table)
        return;
    const gc_table_desc *d = o->table;
    double pct = o->counted ? 100.0 * (double)o->read / (double)o->counted : 0;
    if (o->markdown)
        printf("### `%s`: %zu of %zu columns checked semantically (%.0f%%)\n\n"
               "| column | kind | invariants | metrics | guarded by "
               "|\n|---|---|---|---|---|\n%s\n",
               d->name, o->read, o->counted, pct, o->body.s ? o->body.s : "");
    else
        printf("%s: %zu of %zu columns checked semantically (%.0f%%)\n%s", d->name, o->read,
               o->counted, pct, o->body.s ? o->body.s : "");
    gc_sb_free(&o->body);
    gc_sb_init(&o->body);
    o->read = o->counted = 0;
}

static void one_column(const gc_coverage_column *c, void *ctx)
{
    cov_out *o = ctx;
    if (c->table != o->table) {
        flush_table(o);
        o->table = c->table;
    }
    size_t ni = c->invariant_count, nm = c->metric_count;
    if (!c->is_ofs) {
        o->counted++;
        o->read += ni > 0;
    }
    const char *kind = c->kind;
    if (!ni && !c->is_ofs)
        gc_sb_printf(&o->unread, "%s.%s%s%s%s%s\n", c->table->name, c->column->name,
                     kind ? " (" : "", kind ? kind : "", kind ? ")" : "",
                     nm || c->digested ? "" : " UNGUARDED");
    const char *guard = ni ? "invariants + digest" : nm ? "metrics + digest" : "digest only";
    if (!c->digested)
        guard = ni ? "invariants (no digest)" : nm ? "metrics (no digest)" : "**nothing**";
    if (o->markdown)
        gc_sb_printf(&o->body, "| `%s` | %s | %s | %s | %s |\n", c->column->name, kind ? kind : "",
                     c->invariants, c->metrics, guard);
    else
        gc_sb_printf(&o->body, "  %-28s %-9s %s%s%s%s%s%s\n", c->column->name, kind ? kind : "-",
                     ni ? "invariants: " : "", c->invariants, ni && nm ? "; " : "",
                     nm ? "metrics: " : "", c->metrics,
                     ni || nm      ? (c->digested ? "" : " (no digest)")
                     : c->digested ? "DIGEST ONLY"
                                   : "NOTHING");
}

int gc_cmd_coverage(int argc, char **argv)
{
    char def_dir[4096], def_base[4096];
    gc_data_path(def_dir, sizeof def_dir, "invariants");
    gc_data_path(def_base, sizeof def_base, "golden/metrics-small.yaml");
    const char *dir = def_dir, *baseline = def_base;
    int check = 0, check_kinds = 0, markdown = 0;
    enum { K_INVARIANTS = GC_OPT_LONG, K_BASELINE, K_CHECK, K_CHECK_KINDS, K_MARKDOWN };
    static const gc_opt opts[] = {
        {"invariants", K_INVARIANTS, "DIR",
         "invariant YAML directory (default: the data directory's)"},
        {"baseline", K_BASELINE, "F",
         "the baseline whose column digests count as guards\n"
         "(default golden/metrics-small.yaml; 'none': no digests)"},
        {"markdown", K_MARKDOWN, NULL, "Markdown tables instead of text"},
        {"check", K_CHECK, NULL, "exit 1 if a column is guarded by nothing (the gate runs it)"},
        {"check-kinds", K_CHECK_KINDS, NULL,
         "exit 1 if a column of the mission's kinds is read by no\n"
         "invariant (a metric or its digest alone guards it)"},
    };
    static const gc_opt_group groups[] = {GC_OPT_GROUP(NULL, opts)};
    static const gc_cmd_spec spec =
        GC_CMD_SPEC("coverage",
                    "[--invariants DIR] [--baseline F] [--markdown]\n"
                    "[--check] [--check-kinds]",
                    "For every table and column: the invariants that read it, the metrics that\n"
                    "aggregate it, 'digest only' when only its column digest in the baseline\n"
                    "guards it, or 'nothing'; per table the share of columns a semantic invariant\n"
                    "checks; then the columns no invariant reads, with the mission's kinds\n"
                    "(counts, chains, spheres, opacity, positions, indices) named. See\n"
                    "docs/verification.md.\n",
                    groups, NULL);
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return 2;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return 2;
        case GC_OPT_ARG:
            return gc_opts_usage_error(&spec, "unexpected argument '%s'", p.value);
        case K_INVARIANTS:
            dir = p.value;
            break;
        case K_BASELINE:
            baseline = p.value;
            break;
        case K_CHECK:
            check = 1;
            break;
        case K_CHECK_KINDS:
            check_kinds = 1;
            break;
        case K_MARKDOWN:
            markdown = 1;
            break;
        }
    }
    gc_inv_set *set = gc_cli_load_invariants("coverage", dir);
    if (!set)
        return 2;
    gc_baseline base;
    memset(&base, 0, sizeof base);
    if (strcmp(baseline, "none") != 0) {
        char err[4096];
        int found = 0;
        if (gc_baseline_load(baseline, &base, &found, err, sizeof err) != 0 || !found) {
            fprintf(stderr, "gcverify coverage: %s: %s\n", baseline,
                    found ? err : "no such baseline (--baseline none for no digests)");
            gc_inv_free(set);
            return 2;
        }
    }
    cov_out o;
    memset(&o, 0, sizeof o);
    o.markdown = markdown;
    gc_sb_init(&o.body);
    gc_sb_init(&o.unread);
    gc_coverage cov;
    int rc = gc_coverage_compute(set, base.digests, base.digest_count, one_column, &o, &cov);
    flush_table(&o);
    if (rc != 0) {
        fprintf(stderr, "gcverify coverage: out of memory\n");
        rc = 2;
    } else {
        printf("%s%llu of %llu columns (file_ofs aside) read by an invariant (%.1f%%), %llu by a "
               "metric only, %llu by the digest only, %llu by nothing; %llu of the mission's "
               "kinds read by no invariant\n",
               markdown ? "\n**" : "\n", (unsigned long long)cov.by_invariant,
               (unsigned long long)cov.columns,
               cov.columns ? 100.0 * (double)cov.by_invariant / (double)cov.columns : 0,
               (unsigned long long)cov.by_metric_only, (unsigned long long)cov.digest_only,
               (unsigned long long)cov.unguarded, (unsigned long long)cov.mission_unread);
        if (markdown)
            printf("**\n");
        printf("\nColumns no invariant reads:\n%s", o.unread.s ? o.unread.s : "(none)\n");
        rc = (check && cov.unguarded) || (check_kinds && cov.mission_unread) ? 1 : 0;
        if (check && cov.unguarded)
            fprintf(stderr,
                    "gcverify coverage: %llu columns are guarded by nothing (no invariant, no "
                    "metric, no digest in %s)\n",
                    (unsigned long long)cov.unguarded, baseline);
    }
    gc_sb_free(&o.body);
    gc_sb_free(&o.unread);
    gc_baseline_free(&base);
    gc_inv_free(set);
    return rc;
}
