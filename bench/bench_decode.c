/* SPDX-License-Identifier: MIT */
/* Decode benchmark (issue 4): the whole decoder chain (every registered
 * decoder, registry order) over the 27 levels of a corpus: time per level on
 * one thread, then all 27 on 1 and 2 threads (a pthread work queue, one
 * gc_level per job, as the sweep does), MB/s of input, and peak RSS.
 * Figures only, never assertions; results go to docs/performance.md ("Decode").
 *
 * Usage: bench_decode [--corpus DIR] [--scale retail|small|edge] [--runs N] [--one-thread]
 * --one-thread runs only the all-levels pass on one thread (for perf/callgrind).
 * Without --corpus the cached synthetic corpus of that scale is used (it is
 * generated on first use). Each figure is the best of N runs (default 3). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gc_bigmem.h"
#include "gc_corpus.h"
#include "gc_level.h"
#include "gc_sweep.h"
#include "sy_corpus.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time (user + sys) of the whole process: on a machine shared with other
 * builds, waiting for a core is not work, so the CPU figure is the one to
 * compare across runs (issue 10's budget is CPU time). */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct queue {
    const gc_corpus *c;
    pthread_mutex_t mu;
    int next;
    int errors;
} queue;

/* Per-decoder wall and thread CPU time of the per-level pass (main thread only). */
static double dec_time[GC_DECODER_MAX], dec_cpu[GC_DECODER_MAX];

static int decode_one(const gc_corpus_file *f)
{
    gc_level lv;
    if (gc_level_init(&lv, f->index, f->name, f->data, f->size) != GC_OK)
        return 1;
    gc_level_decode(&lv);
    int bad = lv.first_error.status != GC_OK;
    gc_level_free(&lv);
    return bad;
}

/* The same chain as gc_level_decode, each decoder timed on its own. */
static void decode_timed(const gc_corpus_file *f)
{
    gc_level lv;
    if (gc_level_init(&lv, f->index, f->name, f->data, f->size) != GC_OK)
        return;
    size_t n;
    const gc_decoder *const *decs = gc_decoder_registry(&n);
    for (size_t i = 0; i < n; i++) {
        gc_diag d;
        gc_diag_init(&d);
        double t0 = now_s(), c0 = thread_cpu_s();
        decs[i]->run(&lv, &d);
        dec_time[i] += now_s() - t0;
        dec_cpu[i] += thread_cpu_s() - c0;
    }
    gc_level_free(&lv);
}

static void *worker(void *arg)
{
    queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        int i = q->next++;
        pthread_mutex_unlock(&q->mu);
        if (i >= GC_LEVEL_COUNT)
            return NULL;
        if (!q->c->files[i].ok)
            continue;
        int bad = decode_one(&q->c->files[i]);
        pthread_mutex_lock(&q->mu);
        q->errors += bad;
        pthread_mutex_unlock(&q->mu);
    }
}

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static double run_all(const gc_corpus *c, int threads, int *errors, double *cpu, long *faults)
{
    queue q = {c, PTHREAD_MUTEX_INITIALIZER, 0, 0};
    pthread_t t[8];
    long f0 = minor_faults();
    double t0 = now_s(), c0 = cpu_s();
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, worker, &q);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    *errors = q.errors;
    *cpu = cpu_s() - c0;
    *faults = minor_faults() - f0;
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int scale = SY_SCALE_RETAIL, runs = 3, one_thread = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--corpus") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc &&
                 sy_scale_parse(argv[i + 1]) >= 0) /* an unknown scale is a usage error */
            scale = sy_scale_parse(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
        else if (strcmp(argv[i], "--one-thread") == 0)
            one_thread = 1;
        else {
            fprintf(stderr,
                    "usage: bench_decode [--corpus DIR] [--scale retail|small|edge] [--runs N] "
                    "[--one-thread]\n");
            return 2;
        }
    }
    gc_sweep_tune_malloc(); /* as the sweep runs the decoders */
    char err[512];
    gc_corpus c;
    if (gc_corpus_open_any(&c, dir, scale, 1, 2, 1, err, sizeof err) != 0) {
        fprintf(stderr, "bench_decode: %s\n", err);
        return 3;
    }
    double total_mb = 0;
    for (int i = 0; i < GC_LEVEL_COUNT; i++)
        if (c.files[i].ok)
            total_mb += (double)c.files[i].size / 1e6;
    printf("corpus: %s, %d levels, %.1f MB\n", c.label, c.found, total_mb);
    if (!one_thread)
        printf("%-12s %10s %10s %10s\n", "level", "MB", "ms", "MB/s");
    for (int i = 0; i < GC_LEVEL_COUNT && !one_thread; i++) {
        const gc_corpus_file *f = &c.files[i];
        if (!f->ok)
            continue;
        double best = 1e9;
        int bad = 0;
        for (int r = 0; r < runs; r++) {
            double t0 = now_s();
            bad = decode_one(f);
            double t = now_s() - t0;
            if (t < best)
                best = t;
        }
        printf("%-12s %10.2f %10.2f %10.0f%s\n", f->name, (double)f->size / 1e6, best * 1e3,
               (double)f->size / 1e6 / best, bad ? "  (decoder errors)" : "");
    }
    if (!one_thread) {
        size_t n;
        const gc_decoder *const *decs = gc_decoder_registry(&n);
        for (int i = 0; i < GC_LEVEL_COUNT; i++)
            if (c.files[i].ok)
                decode_timed(&c.files[i]);
        double sum = 0, csum = 0;
        for (size_t i = 0; i < n; i++) {
            sum += dec_time[i];
            csum += dec_cpu[i];
        }
        printf("per decoder, all levels, 1 thread, wall:");
        for (size_t i = 0; i < n; i++)
            printf(" %s %.0f ms%s", decs[i]->name, dec_time[i] * 1e3, i + 1 < n ? "," : "");
        printf(" (sum %.0f ms)\n", sum * 1e3);
        printf("per decoder, all levels, 1 thread, CPU:");
        for (size_t i = 0; i < n; i++)
            printf(" %s %.0f ms%s", decs[i]->name, dec_cpu[i] * 1e3, i + 1 < n ? "," : "");
        printf(" (sum %.0f ms)\n", csum * 1e3);
    }
    for (int threads = 1; threads <= (one_thread ? 1 : 2); threads++) {
        double best = 1e9, best_cpu = 1e9;
        long best_faults = -1;
        int errors = 0;
        for (int r = 0; r < runs; r++) {
            double cpu;
            long faults;
            double t = run_all(&c, threads, &errors, &cpu, &faults);
            if (t < best)
                best = t;
            if (cpu < best_cpu)
                best_cpu = cpu;
            if (best_faults < 0 || faults < best_faults)
                best_faults = faults;
        }
        /* page faults cost ~12 us each on a virtual machine: the figure
         * that explains most run-to-run differences of the CPU time */
        printf("all 27 levels, %d thread%s: %.3f s wall, %.0f MB/s of input, %.3f s CPU "
               "(user+sys), %ld minor faults%s\n",
               threads, threads > 1 ? "s" : "", best, total_mb / best, best_cpu, best_faults,
               errors ? " (levels with decoder errors!)" : "");
    }
    /* the large-block allocator's work over every pass: a block mapped (and
     * its huge pages zeroed by the kernel) against one reused from the cache */
    gc_big_stats bs;
    gc_big_stats_get(&bs);
    printf("large blocks: %llu mapped, %llu reused, %llu split, %llu evicted, %llu rounded up to "
           "whole "
           "huge pages; cache bound %.1f MB\n",
           (unsigned long long)bs.maps, (unsigned long long)bs.reuses,
           (unsigned long long)bs.splits, (unsigned long long)bs.evictions,
           (unsigned long long)bs.rounded, (double)bs.peak_without_cache_bytes / 1e6);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS: %.1f MB (input files are mapped and count in it)\n",
           (double)ru.ru_maxrss / 1024.0);
    gc_corpus_close(&c);
    return 0;
}
