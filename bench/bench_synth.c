/* SPDX-License-Identifier: MIT */
/* Benchmark of the synthetic corpus writer: wall time to write all 27 levels at each scale on
 * N threads, size on disk, the slowest level, and peak memory. Figures, never assertions. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "gc_corpus.h"
#include "gc_fsutil.h"
#include "sy_corpus.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU seconds of the whole process (every thread): the figure that contention does not inflate. */
static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int run(int scale, unsigned jobs)
{
    char dir[] = "/tmp/gc-bench-synth-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return -1;
    }
    char err[512] = "";
    double t0 = now_s(), c0 = cpu_s();
    int rc = gc_corpus_write_synthetic(dir, scale, 1, jobs, 0, err, sizeof err);
    double t1 = now_s(), c1 = cpu_s();
    uint64_t total = 0;
    for (int i = 0; i < SY_LEVEL_COUNT; i++) {
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/LEVEL%d.WAD", dir, i);
        if (stat(path, &st) == 0)
            total += (uint64_t)st.st_size;
    }
    gc_rm_rf(dir);
    if (rc != 0) {
        fprintf(stderr, "bench_synth: %s\n", err);
        return -1;
    }
    printf("%-6s corpus, %u jobs: %7.2f s wall, %7.2f s CPU, %8.1f MB on disk\n",
           scale == SY_SCALE_SMALL ? "small" : "retail", jobs, t1 - t0, c1 - c0,
           (double)total / 1e6);
    return 0;
}

/* One level at a time on this thread: the slowest level and the per-level memory. */
static void per_level(int scale)
{
    sy_options o = {scale, 1};
    double worst = 0, sum = 0;
    int worst_i = 0;
    for (int i = 0; i < SY_LEVEL_COUNT; i++) {
        sy_buf b;
        sy_buf_init(&b);
        double t0 = cpu_s();
        sy_level_build(&o, i, &b);
        double dt = cpu_s() - t0;
        sum += dt;
        if (dt > worst)
            worst = dt, worst_i = i;
        sy_buf_free(&b);
    }
    printf("%-6s levels on 1 thread: %.2f s CPU in all, slowest LEVEL%d.WAD %.3f s\n",
           scale == SY_SCALE_SMALL ? "small" : "retail", sum, worst_i, worst);
}

int main(int argc, char **argv)
{
    unsigned jobs = 2;
    int only_small = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
            jobs = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--small") == 0)
            only_small = 1;
        else {
            fprintf(stderr, "usage: bench_synth [--jobs N] [--small]\n");
            return 2;
        }
    }
    printf("synthetic corpus writer %s\n", sy_generator_version());
    if (run(SY_SCALE_SMALL, jobs) != 0)
        return 1;
    per_level(SY_SCALE_SMALL);
    if (!only_small) {
        if (run(SY_SCALE_RETAIL, jobs) != 0 || run(SY_SCALE_RETAIL, 1) != 0)
            return 1;
        per_level(SY_SCALE_RETAIL);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
