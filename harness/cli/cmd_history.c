/* SPDX-License-Identifier: MIT */
/* gcverify history: print recorded series (docs/history.md). */
#include <stdio.h>
#include <string.h>

#include "gc_cli_opts.h"
#include "gc_exit.h"
#include "gc_history.h"
#include "gc_history_args.h"

int gc_cmd_history(int argc, char **argv);

int gc_cmd_history(int argc, char **argv)
{
    gc_hist_args a;
    gc_hist_args_init(&a);
    char err[1024];
    const gc_opt_group groups[] = {gc_hist_group};
    const gc_cmd_spec spec =
        GC_CMD_SPEC("history",
                    "--history DB [--invariant ID | --frame [N:]VIEW |\n"
                    "--metric [N:]NAME] [--level N] [--since DATE]",
                    "Print the recorded series, one line per run and level: run id, time (UTC),\n"
                    "commit (+dirty), level, item, and the value: failed/checked and severity\n"
                    "for an invariant, status and hash for a frame, the value for a metric.\n"
                    "With no item, every invariant. --since DATE keeps runs at or after DATE\n"
                    "(2026-12-01 or 2026-12-01T05:00:00Z).\n",
                    groups, NULL);
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return GC_EXIT_USAGE;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        int r = gc_hist_apply(&p, k, &a);
        if (r < 0 || k == GC_OPT_ERROR)
            return GC_EXIT_USAGE;
        if (k == GC_OPT_HELP)
            return 0;
        if (k == GC_OPT_ARG)
            return gc_opts_usage_error(&spec, "unexpected argument '%s'", p.value);
    }
    if (a.item_given > 1) {
        fprintf(stderr, "gcverify history: one of --invariant, --frame, --metric\n");
        return GC_EXIT_USAGE;
    }
    gc_history *h = gc_hist_open_existing(&a, "history");
    if (!h)
        return GC_EXIT_USAGE;
    int rc = gc_history_print(h, &a.q, stdout, err, sizeof err);
    gc_history_close(h);
    if (rc != 0) {
        fprintf(stderr, "gcverify history: %s\n", err);
        return GC_EXIT_USAGE;
    }
    return 0;
}
