/* SPDX-License-Identifier: MIT */
/* gcverify faults: the fault catalogue, one fault per line:
 * name, catching invariant id, description (whitespace-separated). */
#include <stdio.h>
#include <string.h>

#include "gc_faults.h"

int gc_cmd_faults(int argc, char **argv);

int gc_cmd_faults(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: gcverify faults\n\n"
                   "Lists the fault catalogue: one historical decoder defect per line as\n"
                   "NAME INVARIANT DESCRIPTION. Re-introduce one with\n"
                   "`gcverify sweep --inject-fault NAME` in a build configured with\n"
                   "-DGC_FAULTS=ON (make FAULTS=ON); this build %s the switches.\n",
                   GC_FAULTS_BUILT ? "has" : "does not have");
            return 0;
        }
        fprintf(stderr, "gcverify faults: unknown option '%s'\n", argv[i]);
        return 2;
    }
    int n;
    const gc_fault_info *f = gc_fault_catalogue(&n);
    for (int i = 1; i < n; i++)
        printf("%s %s %s\n", f[i].name, f[i].invariant, f[i].description);
    return 0;
}
