/* SPDX-License-Identifier: MIT */
/* gcverify faults: the fault catalogue, one fault per line:
 * name, catching invariant id, description (whitespace-separated). */
#include <stdio.h>
#include <string.h>

#include "gc_cli.h"
#include "gc_exit.h"
#include "gc_faultcheck.h"
#include "gc_faults.h"
#include "gc_fsutil.h"

int gc_cmd_faults(int argc, char **argv);

int gc_cmd_faults(int argc, char **argv)
{
    int check = 0;
    const char *md = NULL;
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    char err[4096];
    for (int i = 1; i < argc; i++) {
        int r = gc_cli_sweep_option(argc, argv, &i, &o, err, sizeof err);
        if (r < 0) {
            fprintf(stderr, "gcverify faults: %s\n", err);
            return 2;
        }
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--check") == 0) {
            check = 1;
        } else if (strcmp(argv[i], "--markdown") == 0 && i + 1 < argc) {
            md = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: gcverify faults [--check [--markdown F] [sweep options]]\n\n"
                   "Lists the fault catalogue: one historical decoder defect per line as\n"
                   "NAME INVARIANT DESCRIPTION. Re-introduce one with\n"
                   "`gcverify sweep --inject-fault NAME` in a build configured with\n"
                   "-DGC_FAULTS=ON (make FAULTS=ON); this build %s the switches.\n\n"
                   "--check runs the sweep clean and once per fault (default corpus: the small\n"
                   "synthetic one) and exits 1 unless the clean run passes and every fault makes\n"
                   "its named invariant fail; --markdown F writes the table of\n"
                   "docs/fault-catalogue.md.\n",
                   GC_FAULTS_BUILT ? "has" : "does not have");
            return 0;
        } else {
            fprintf(stderr, "gcverify faults: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (check) {
        if (!GC_FAULTS_BUILT) {
            fprintf(stderr,
                    "gcverify faults --check: this build has no fault switches; configure with "
                    "-DGC_FAULTS=ON (make FAULTS=ON BUILD=build-faults)\n");
            return 2;
        }
        int scale_given = 0;
        for (int i = 1; i < argc; i++)
            scale_given |= strcmp(argv[i], "--scale") == 0 || strcmp(argv[i], "--corpus") == 0;
        if (!scale_given)
            o.scale = 1; /* SY_SCALE_SMALL */
        gc_fault_outcome out[GC_FAULT_COUNT];
        size_t n = 0;
        int missed = gc_faultcheck_run(&o, out, &n, 1, err, sizeof err);
        if (missed < 0) {
            fprintf(stderr, "gcverify faults: %s\n", err);
            return 2;
        }
        for (size_t i = 1; i < n; i++)
            printf("%-20s %-28s %-10s rows=%llu levels=%llu%s%s\n", out[i].name, out[i].invariant,
                   out[i].caught ? "caught" : "NOT-CAUGHT", (unsigned long long)out[i].rows_failed,
                   (unsigned long long)out[i].levels_failed, out[i].also[0] ? " also=" : "",
                   out[i].also);
        printf("faults: %zu passed, %d failed\n", n - (size_t)missed, missed);
        if (md) {
            gc_strbuf b;
            gc_sb_init(&b);
            gc_faultcheck_markdown(
                out, n,
                o.corpus_dir ? o.corpus_dir
                             : (o.scale ? "synthetic small seed 1" : "synthetic retail seed 1"),
                &b);
            int wbad = b.failed || gc_write_file_atomic(md, b.s, b.len, err, sizeof err) != 0;
            if (wbad)
                fprintf(stderr, "gcverify faults: %s\n", b.failed ? "out of memory" : err);
            gc_sb_free(&b);
            if (wbad)
                return GC_EXIT_WRITE;
        }
        return missed ? 1 : 0;
    }
    int n;
    const gc_fault_info *f = gc_fault_catalogue(&n);
    for (int i = 1; i < n; i++)
        printf("%s %s %s\n", f[i].name, f[i].invariant, f[i].description);
    return 0;
}
