/* SPDX-License-Identifier: MIT */
/* gcverify last-good: the newest clean run of an item and the first bad one
 * after it (docs/last-good.md). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gc_exit.h"
#include "gc_history.h"
#include "gc_history_args.h"

int gc_cmd_last_good(int argc, char **argv);

int gc_cmd_last_good(int argc, char **argv)
{
    gc_hist_args a;
    gc_hist_args_init(&a);
    char err[1024];
    for (int i = 1; i < argc; i++) {
        int r = gc_hist_arg(argc, argv, &i, &a, err, sizeof err);
        if (r < 0) {
            fprintf(stderr, "gcverify last-good: %s\n", err);
            return GC_EXIT_USAGE;
        }
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: gcverify last-good ID [--level N] --history DB\n"
                   "       gcverify last-good --frame N:VIEW | --metric N:NAME --history DB\n\n"
                   "The newest recorded run in which the invariant ID (on every level, or on\n"
                   "--level N) was clean, the frame matched, or the metric did not move\n"
                   "against the baseline, and the first run after it that was not, with\n"
                   "their commits.\n\n"
                   "exit codes: 0 a clean run was found; 1 bad in every recorded run;\n"
                   "2 bad usage, or the item was never recorded.\n\n%s",
                   gc_hist_args_help);
            return 0;
        }
        if (argv[i][0] != '-' && !a.item_given) {
            a.q.kind = GC_HIST_INVARIANT;
            a.q.id = argv[i];
            a.item_given = 1;
            continue;
        }
        fprintf(stderr, "gcverify last-good: unexpected '%s' (see gcverify last-good --help)\n",
                argv[i]);
        return GC_EXIT_USAGE;
    }
    if (!a.db) {
        fprintf(stderr, "gcverify last-good: which database? --history DB (or "
                        "$GCVERIFY_HISTORY)\n");
        return GC_EXIT_USAGE;
    }
    if (a.item_given != 1 || !a.q.id) {
        fprintf(stderr, "gcverify last-good: name one item: ID, --frame N:VIEW or --metric "
                        "N:NAME\n");
        return GC_EXIT_USAGE;
    }
    /* reading must not create an empty database under a mistyped name */
    if (access(a.db, F_OK) != 0) {
        fprintf(stderr, "gcverify last-good: no history database at %s\n", a.db);
        return GC_EXIT_USAGE;
    }
    gc_history *h = gc_history_open(a.db, err, sizeof err);
    if (!h) {
        fprintf(stderr, "gcverify last-good: %s\n", err);
        return GC_EXIT_USAGE;
    }
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
