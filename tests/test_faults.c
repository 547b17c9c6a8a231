/* SPDX-License-Identifier: MIT */
/* The fault catalogue, proven: each historical decoder defect, switched back
 * on, must make the sweep fail ON THE INVARIANT THE CATALOGUE NAMES, and the
 * clean run must pass. Needs a build with -DGC_FAULTS=ON (ci/faults.sh runs
 * it there); in a normal build the switches do not exist and the tests skip. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_faults.h"
#include "gc_report.h"
#include "gc_sweep.h"
#include "sy_corpus.h"

static void setup(void)
{
    setenv("GC_CACHE_DIR", GC_BINARY_DIR "/test-cache", 1);
}

static int run_with(const char *fault, const char *baseline, gc_report *rep)
{
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    o.scale = SY_SCALE_SMALL;
    o.no_frames = 1;
    o.baseline = baseline;
    o.fault = fault;
    o.jobs = 2;
    char err[4096] = "";
    int rc = gc_sweep_run(&o, rep, err, sizeof err);
    cr_assert_lt(rc, 2, "sweep did not run: %s", err);
    return rc;
}

static int run(const char *fault, gc_report *rep)
{
    return run_with(fault, "", rep);
}

Test(faults, clean_run_passes, .init = setup, .timeout = 900)
{
    gc_report rep;
    int rc = run(NULL, &rep);
    for (size_t i = 0; i < rep.result_count; i++)
        cr_expect(!rep.results[i].gating, "clean corpus fails %s on level %d",
                  rep.results[i].invariant, rep.results[i].level);
    cr_assert_eq(rc, 0);
    gc_report_free(&rep);
}

ParameterizedTestParameters(faults, caught_by_name)
{
    static int ids[GC_FAULT_COUNT - 1];
    for (int i = 1; i < GC_FAULT_COUNT; i++)
        ids[i - 1] = i;
    return cr_make_param_array(int, ids, GC_FAULT_COUNT - 1);
}

ParameterizedTest(int *id, faults, caught_by_name, .init = setup, .timeout = 900)
{
    if (!GC_FAULTS_BUILT)
        cr_skip_test("built without -DGC_FAULTS=ON: the fault switches are not compiled in");
    int n;
    const gc_fault_info *f = &gc_fault_catalogue(&n)[*id];
    gc_report rep;
    /* "metric:NAME": caught by that golden metric changing (the default
     * baseline of the small corpus), not by an invariant */
    const char *metric = strncmp(f->invariant, "metric:", 7) == 0 ? f->invariant + 7 : NULL;
    int rc = metric ? run_with(f->name, NULL, &rep) : run(f->name, &rep);
    uint64_t failed = 0;
    for (size_t i = 0; i < rep.result_count; i++)
        if (strcmp(rep.results[i].invariant, f->invariant) == 0)
            failed += rep.results[i].failed;
    for (size_t i = 0; metric && i < rep.change_count; i++)
        if (rep.changes[i].level != GC_LEVEL_CORPUS && strcmp(rep.changes[i].field, metric) == 0)
            failed++;
    gc_report_free(&rep);
    cr_assert_eq(rc, 1, "fault %s: the sweep must fail (exit %d)", f->name, rc);
    cr_assert_gt(failed, 0, "fault %s: invariant %s must fail, and did not", f->name, f->invariant);
}
