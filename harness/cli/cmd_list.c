/* SPDX-License-Identifier: MIT */
/* gcverify list: every invariant with table, tier, severity and why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli.h"
#include "gc_cli_opts.h"
#include "gc_inv.h"
#include "gc_level.h"
#include "gc_paths.h"

int gc_cmd_list(int argc, char **argv);

int gc_cmd_list(int argc, char **argv)
{
    char def_dir[4096];
    gc_data_path(def_dir, sizeof def_dir, "invariants");
    const char *dir = def_dir;
    int metrics = 0;
    enum { K_INVARIANTS = GC_OPT_LONG, K_METRICS };
    static const gc_opt opts[] = {
        {"invariants", K_INVARIANTS, "DIR",
         "invariant YAML directory (default: the data directory's)"},
        {"metrics", K_METRICS, NULL, "list the named per-level metrics instead"},
    };
    static const gc_opt_group groups[] = {GC_OPT_GROUP(NULL, opts)};
    static const gc_cmd_spec spec = GC_CMD_SPEC(
        "list", "[--invariants DIR] [--metrics]",
        "One invariant per line: id, table (or '-'), tier, severity, scope, then why.\n", groups,
        NULL);
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
        case K_METRICS:
            metrics = 1;
            break;
        }
    }
    gc_inv_set *set = gc_cli_load_invariants("list", dir);
    if (!set)
        return 2;
    if (metrics) {
        for (size_t m = 0; m < gc_inv_metric_count(set); m++)
            printf("%s\n", gc_inv_metric_name(set, m));
    } else {
        for (size_t i = 0; i < gc_inv_count(set); i++) {
            const gc_inv_info *x = gc_inv_get(set, i);
            printf("%-32s %-20s %-7s %-5s %-6s %s\n", x->id, x->table ? x->table : "-",
                   x->tier == GC_TIER_GATE ? "gate" : "nightly",
                   x->severity == GC_SEV_ERROR  ? "error"
                   : x->severity == GC_SEV_WARN ? "warn"
                                                : "info",
                   x->scope == GC_SCOPE_LEVEL ? "level" : "corpus", x->why);
        }
    }
    gc_inv_free(set);
    return 0;
}
