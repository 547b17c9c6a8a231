/* SPDX-License-Identifier: MIT */
/* gcverify list: every invariant with table, tier, severity and why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli.h"
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
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--invariants") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--metrics") == 0) {
            metrics = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: gcverify list [--invariants DIR] [--metrics]\n\n"
                   "One invariant per line: id, table (or '-'), tier, severity, scope, then why.\n"
                   "--metrics lists the named per-level metrics instead.\n");
            return 0;
        } else {
            fprintf(stderr, "gcverify list: unknown option '%s'\n", argv[i]);
            return 2;
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
