/* SPDX-License-Identifier: MIT */
/* The whole sweep on the synthetic retail-shaped corpus (or --corpus DIR):
 * wall time on 1 and 2 jobs, with and without frames, where the CPU went
 * (decode / invariants / frames), and peak memory. Figures only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "gc_sweep.h"
#include "sy_corpus.h"

static void run(const char *corpus, int scale, unsigned jobs, int frames, int reps)
{
    double best = 1e30;
    gc_sweep_timings best_t;
    memset(&best_t, 0, sizeof best_t);
    int rc = 0;
    for (int r = 0; r < reps; r++) {
        gc_sweep_opts o;
        gc_sweep_opts_init(&o);
        o.corpus_dir = corpus;
        o.scale = scale;
        o.jobs = jobs;
        o.no_frames = !frames;
        o.skip_determinism = 0;
        gc_sweep_timings t;
        o.timings = &t;
        gc_report rep;
        char err[4096];
        rc = gc_sweep_run(&o, &rep, err, sizeof err);
        if (rc >= 2) {
            fprintf(stderr, "bench_sweep: %s\n", err);
            exit(1);
        }
        gc_report_free(&rep);
        if (t.wall_total < best) {
            best = t.wall_total;
            best_t = t;
        }
    }
    double cpu = best_t.cpu_decode + best_t.cpu_eval + best_t.cpu_render;
    printf("jobs %u, frames %-3s: best of %d %6.3f s wall (levels %.3f, corpus scope %.3f) | cpu "
           "decode %.3f "
           "invariants %.3f (%.1f%% of decode+invariants) frames %.3f | exit %d\n",
           jobs, frames ? "on" : "off", reps, best, best_t.wall_levels, best_t.wall_corpus_scope,
           best_t.cpu_decode, best_t.cpu_eval,
           100.0 * best_t.cpu_eval /
               (best_t.cpu_decode + best_t.cpu_eval > 0 ? best_t.cpu_decode + best_t.cpu_eval : 1),
           best_t.cpu_render, rc);
    /* the column digests (issue 17) are inside "invariants": their share of
     * the whole sweep CPU is the figure docs/performance.md records */
    printf("    column digests %.3f s cpu = %.2f%% of the sweep's cpu %.3f s\n", best_t.cpu_digest,
           100.0 * best_t.cpu_digest / (cpu > 0 ? cpu : 1), cpu);
}

int main(int argc, char **argv)
{
    const char *corpus = NULL;
    int scale = SY_SCALE_RETAIL, reps = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--corpus") == 0 && i + 1 < argc)
            corpus = argv[++i];
        else if (strcmp(argv[i], "--small") == 0)
            scale = SY_SCALE_SMALL;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_sweep [--corpus DIR | --small] [--reps N]\n");
            return 2;
        }
    }
    printf("bench_sweep: %s corpus\n", corpus                    ? corpus
                                       : scale == SY_SCALE_SMALL ? "synthetic small"
                                                                 : "synthetic retail");
    run(corpus, scale, 2, 0, 1); /* warm the corpus cache and the page cache */
    for (unsigned jobs = 1; jobs <= 2; jobs++)
        for (int frames = 0; frames <= 1; frames++)
            run(corpus, scale, jobs, frames, reps);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
