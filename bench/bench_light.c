/* SPDX-License-Identifier: MIT */
/* Lighting-pass benchmark (issue 12): the tfrag lighting pass of one whole
 * level (every tfrag.light row: normal from the overlay's table, light set
 * and blend, the lit colour in the PS2 float model, the GS colour), on one
 * thread, through gc_tfrag_relight() after a normal decode. Figures only,
 * never assertions; results go to docs/performance.md ("Lighting pass").
 *
 * Usage: bench_light [--corpus DIR] [--scale retail|small|edge] [--runs N]
 * Prints per level the rows, the rows lit and the best of N runs (default 9)
 * in thread CPU time (the build machine is shared; wall time would measure
 * the neighbours). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gc_corpus.h"
#include "gc_level.h"
#include "sy_corpus.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int scale = SY_SCALE_RETAIL, runs = 9;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--corpus") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc &&
                 sy_scale_parse(argv[i + 1]) >= 0) /* an unknown scale is a usage error */
            scale = sy_scale_parse(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
        else {
            fprintf(stderr,
                    "usage: bench_light [--corpus DIR] [--scale retail|small|edge] [--runs N]\n");
            return 2;
        }
    }
    char err[512];
    gc_corpus c;
    if (gc_corpus_open_any(&c, dir, scale, 1, 2, 1, err, sizeof err) != 0) {
        fprintf(stderr, "bench_light: %s\n", err);
        return 3;
    }
    printf("corpus: %s, %d levels\n", c.label, c.found);
    printf("%-12s %10s %10s %10s %12s\n", "level", "rows", "lit", "ms", "ns/vertex");
    double worst = 0, sum = 0;
    size_t all_rows = 0;
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        const gc_corpus_file *f = &c.files[i];
        if (!f->ok)
            continue;
        gc_level lv;
        if (gc_level_init(&lv, f->index, f->name, f->data, f->size) != GC_OK)
            continue;
        gc_level_decode(&lv);
        size_t rows = 0, lit = 0;
        gc_table *ts = calloc(lv.table_count, sizeof *ts);
        gc_level_tables(&lv, ts);
        for (size_t t = 0; t < lv.table_count; t++)
            if (strcmp(ts[t].desc->name, "tfrag.light") == 0)
                rows = ts[t].count;
        free(ts);
        double best = 1e30;
        for (int r = 0; r < runs; r++) {
            double t0 = now_s();
            lit = gc_tfrag_relight(&lv);
            double dt = now_s() - t0;
            if (dt < best)
                best = dt;
        }
        printf("%-12s %10zu %10zu %10.3f %12.1f\n", f->name, rows, lit, best * 1e3,
               rows ? best * 1e9 / (double)rows : 0.0);
        if (best > worst)
            worst = best;
        sum += best;
        all_rows += rows;
        gc_level_free(&lv);
    }
    printf("worst level %.3f ms, all levels %.3f ms, %zu rows, %.1f ns/vertex\n", worst * 1e3,
           sum * 1e3, all_rows, all_rows ? sum * 1e9 / (double)all_rows : 0.0);
    gc_corpus_close(&c);
    return 0;
}
