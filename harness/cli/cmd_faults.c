/* SPDX-License-Identifier: MIT */
/* gcverify faults: the fault catalogue, one fault per line:
 * name, catching invariant id, description (whitespace-separated). */
#include <stdio.h>
#include <string.h>

#include "gc_cli.h"
#include "gc_cli_opts.h"
#include "gc_exit.h"
#include "gc_faultcheck.h"
#include "gc_faults.h"
#include "gc_fsutil.h"

int gc_cmd_faults(int argc, char **argv);

enum { K_CHECK = GC_OPT_LONG, K_MARKDOWN };

static const gc_opt faults_opts[] = {
    {"check", K_CHECK, NULL,
     "run the sweep clean and once per fault (default corpus:\n"
     "the small synthetic one); exit 1 unless the clean run\n"
     "passes and every fault makes its named invariant fail"},
    {"markdown", K_MARKDOWN, "F", "with --check: write the table of docs/fault-catalogue.md"},
};

int gc_cmd_faults(int argc, char **argv)
{
    int check = 0, scale_given = 0;
    const char *md = NULL;
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    char err[4096];
    char about[512];
    snprintf(about, sizeof about,
             "Lists the fault catalogue: one historical decoder defect per line as\n"
             "NAME INVARIANT DESCRIPTION. Re-introduce one with\n"
             "`gcverify sweep --inject-fault NAME` in a build configured with\n"
             "-DGC_FAULTS=ON (make FAULTS=ON); this build %s the switches.\n",
             GC_FAULTS_BUILT ? "has" : "does not have");
    const gc_opt_group groups[] = {
        GC_OPT_GROUP("faults:", faults_opts),
        gc_cli_sweep_groups[0],
        gc_cli_sweep_groups[1],
        gc_cli_sweep_groups[2],
    };
    const gc_cmd_spec spec =
        GC_CMD_SPEC("faults", "[--check [--markdown F] [sweep options]]", about, groups, NULL);
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return GC_EXIT_USAGE;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        int r = gc_cli_sweep_apply(&p, k, &o);
        if (r < 0)
            return GC_EXIT_USAGE;
        scale_given |= k == GC_SWEEP_K_SCALE || k == GC_SWEEP_K_CORPUS;
        if (r > 0)
            continue;
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return GC_EXIT_USAGE;
        case GC_OPT_ARG:
            return gc_opts_usage_error(&spec, "unexpected argument '%s'", p.value);
        case K_CHECK:
            check = 1;
            break;
        case K_MARKDOWN:
            md = p.value;
            break;
        }
    }
    if (check) {
        if (!GC_FAULTS_BUILT) {
            fprintf(stderr,
                    "gcverify faults --check: this build has no fault switches; configure with "
                    "-DGC_FAULTS=ON (make FAULTS=ON BUILD=build-faults)\n");
            return 2;
        }
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
