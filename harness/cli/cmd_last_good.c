/* SPDX-License-Identifier: MIT */
/* gcverify last-good: the newest clean run of an item and the first bad one
 * after it (docs/last-good.md). */
#include <stdio.h>
#include <string.h>

#include "gc_cli_opts.h"
#include "gc_exit.h"
#include "gc_history.h"
#include "gc_history_args.h"

int gc_cmd_last_good(int argc, char **argv);

int gc_cmd_last_good(int argc, char **argv)
{
    gc_hist_args a;
    gc_hist_args_init(&a);
    char err[1024];
    const gc_opt_group groups[] = {gc_hist_group};
    const gc_cmd_spec spec =
        GC_CMD_SPEC("last-good",
                    "ID [--level N] --history DB\n"
                    "--frame N:VIEW | --metric N:NAME --history DB",
                    "The newest recorded run in which the invariant ID (on every level, or on\n"
                    "--level N) was clean, the frame matched, or the metric did not move\n"
                    "against the baseline, and the first run after it that was not, with\n"
                    "their commits.\n",
                    groups,
                    "exit codes: 0 a clean run was found; 1 bad in every recorded run;\n"
                    "2 bad usage, or the item was never recorded.\n");
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return GC_EXIT_USAGE;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        int r = gc_hist_apply(&p, k, &a);
        if (r < 0 || k == GC_OPT_ERROR)
            return GC_EXIT_USAGE;
        if (k == GC_OPT_HELP)
            return 0;
        if (k != GC_OPT_ARG)
            continue;
        if (a.item_given)
            return gc_opts_usage_error(&spec, "unexpected '%s'", p.value);
        a.q.kind = GC_HIST_INVARIANT;
        a.q.id = p.value;
        a.item_given = 1;
    }
    if (a.item_given != 1 || !a.q.id) {
        fprintf(stderr, "gcverify last-good: name one item: ID, --frame N:VIEW or --metric "
                        "N:NAME\n");
        return GC_EXIT_USAGE;
    }
    gc_history *h = gc_hist_open_existing(&a, "last-good");
    if (!h)
        return GC_EXIT_USAGE;
    int rc = gc_history_last_good(h, &a.q, stdout, err, sizeof err);
    gc_history_close(h);
    if (rc < 0) {
        fprintf(stderr, "gcverify last-good: %s\n", err);
        return GC_EXIT_USAGE;
    }
    if (rc == 2) {
        fprintf(stderr, "gcverify last-good: %s was never recorded in %s\n", a.q.id, a.db);
        return GC_EXIT_USAGE;
    }
    return rc;
}
