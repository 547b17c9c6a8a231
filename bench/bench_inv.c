/* SPDX-License-Identifier: MIT */
/* Invariant engine throughput: a synthetic table of 1M rows, evaluated with a simple column
 * comparison (the specialised loop), the same check through the general VM, a where filter,
 * a next-row chain, a parent link, hoisted and per-level aggregates; plus the time to load
 * and compile the project's invariants/ against the real table registry, and with a corpus
 * directory argument (bench_inv [CORPUS_DIR] [--only GLOB] [--reps N]) decode vs evaluation
 * time of every level of that corpus on one thread: each level invariant on its own, and the
 * level's invariants together as the sweep evaluates them (gc_inv_eval_level_many, which shares
 * a pass over each table), and with the metrics in one call (gc_inv_eval_level_all). --only
 * restricts both to the invariants whose id matches GLOB;
 * --cold evicts the caches before each grouped evaluation (the rows come from memory, as in
 * the sweep). Figures only. */
#include "gc_inv.h"
#include "gc_level.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bench_row {
    uint64_t file_ofs;
    uint32_t offset, count, stride_bytes;
    uint32_t vert_count, positions_decoded;
    uint32_t parent_row;
    float x, y, z, radius;
    uint8_t walk_ok;
} bench_row;

static const gc_column cols[] = {
    GC_COL(bench_row, file_ofs, GC_T_U64, 0, "bytes", "offset"),
    GC_COL(bench_row, offset, GC_T_U32, 0, "bytes", "start"),
    GC_COL(bench_row, count, GC_T_U32, 0, "count", "entries"),
    GC_COL(bench_row, stride_bytes, GC_T_U32, 0, "bytes", "entry size"),
    GC_COL(bench_row, vert_count, GC_T_U32, 0, "count", "declared"),
    GC_COL(bench_row, positions_decoded, GC_T_U32, 0, "count", "found"),
    GC_COL(bench_row, parent_row, GC_T_U32, GC_CF_NULL_IF_MAX, "row", "parent"),
    GC_COL(bench_row, x, GC_T_F32, 0, "world units", "x"),
    GC_COL(bench_row, y, GC_T_F32, 0, "world units", "y"),
    GC_COL(bench_row, z, GC_T_F32, 0, "world units", "z"),
    GC_COL(bench_row, radius, GC_T_F32, 0, "world units", "radius"),
    GC_COL(bench_row, walk_ok, GC_T_BOOL, 0, "", "walk ok"),
};
static const gc_table_desc row_desc = {"bench.row", "rows",           sizeof(bench_row),
                                       cols,        GC_COUNTOF(cols), "bench.row",
                                       "parent",    "parent_row"};
static const gc_table_desc *const descs[] = {&row_desc};

#define NROWS 1000000u

/* Thread CPU time: the build machine is shared, and waiting for a core is not work. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char yaml[] =
    "invariants:\n"
    "  - id: b1.fast\n    table: bench.row\n    expect: positions_decoded == vert_count\n"
    "    why: w\n"
    "  - id: b2.general\n    table: bench.row\n"
    "    expect: positions_decoded + 0 == vert_count\n    why: w\n"
    "  - id: b3.where\n    table: bench.row\n    where: walk_ok\n"
    "    expect: positions_decoded == vert_count\n    why: w\n"
    "  - id: b4.chain\n    table: bench.row\n"
    "    expect: next == null or offset + count * stride_bytes == next.offset\n    why: w\n"
    "  - id: b5.sphere\n    table: bench.row\n"
    "    expect: distance(x, y, z, parent.x, parent.y, parent.z) <= parent.radius * 1.001 + "
    "0.01\n    why: w\n"
    "  - id: b6.hoisted\n    table: bench.row\n"
    "    expect: vert_count <= max(bench.row.vert_count) and count(bench.row) > 0\n    why: w\n"
    "metrics:\n"
    "  - b.sum: sum(bench.row.positions_decoded)\n"
    "  - b.mean_cond: mean(bench.row.radius, walk_ok and vert_count > 10)\n";

/* --cold: before each grouped evaluation, write 64 MiB (twice the machine's L3) so that the
 * level's rows come from memory, as in the sweep, where the tables were written while the
 * level decoded and the other job's level shares the cache. */
static int cold;
static unsigned char *evict_buf;
#define EVICT_BYTES ((size_t)64 << 20)

static void evict_caches(void)
{
    if (!evict_buf)
        evict_buf = malloc(EVICT_BYTES);
    if (!evict_buf)
        return;
    static unsigned char tick;
    tick++;
    for (size_t i = 0; i < EVICT_BYTES; i += 64)
        evict_buf[i] = tick;
}

/* Decode every level of dir on one thread; time decoding and evaluating separately (best of
 * reps evaluations of each). */
static void corpus_figures(const char *dir, const gc_inv_set *p, size_t nreg, const char *only,
                           int reps)
{
    double t_decode = 0, t_level = 0, t_metric = 0, t_corpus = 0, t_group = 0, t_all = 0;
    size_t *idx = calloc(gc_inv_count(p) + 1, sizeof *idx), nidx = 0;
    gc_inv_result *res = calloc(gc_inv_count(p) + 1, sizeof *res);
    if (!idx || !res) {
        free(idx);
        free(res);
        return;
    }
    for (size_t i = 0; i < gc_inv_count(p); i++)
        if (gc_inv_get(p, i)->scope == GC_SCOPE_LEVEL &&
            (!only || fnmatch(only, gc_inv_get(p, i)->id, 0) == 0))
            idx[nidx++] = i;
    uint64_t checks = 0, rows = 0;
    size_t nlev = 0;
    gc_table *all[27];
    gc_level *lvs = calloc(27, sizeof *lvs);
    static double per_inv[256];
    uint8_t *bufs[27] = {0};
    int ids[27];
    if (!lvs)
        return;
    for (int l = 0; l < 27; l++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/LEVEL%d.WAD", dir, l);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        fseek(f, 0, SEEK_END);
        long sz = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *buf = sz > 0 ? malloc((size_t)sz) : NULL;
        if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
            fclose(f);
            free(buf);
            continue;
        }
        fclose(f);
        gc_level *lv = &lvs[nlev];
        double t0 = now_ms();
        if (gc_level_init(lv, l, path, buf, (size_t)sz) != GC_OK) {
            free(buf);
            continue;
        }
        gc_level_decode(lv);
        t_decode += now_ms() - t0;
        gc_table *tables = calloc(nreg, sizeof *tables);
        if (!tables)
            break;
        gc_level_tables(lv, tables);
        for (size_t t = 0; t < nreg; t++)
            rows += tables[t].count;
        /* best of reps per invariant and level */
        for (size_t j = 0; j < nidx && idx[j] < 256; j++) {
            const size_t i = idx[j];
            double best = 1e30;
            for (int rep = 0; rep < reps; rep++) {
                gc_inv_result r;
                t0 = now_ms();
                int rc = gc_inv_eval_level(p, i, tables, l, 5, &r);
                double dt = now_ms() - t0;
                if (rc == 0 && rep == 0)
                    checks += r.checked;
                gc_inv_result_free(&r);
                if (dt < best)
                    best = dt;
            }
            t_level += best;
            per_inv[i] += best;
        }
        /* the same invariants together, as the sweep runs them */
        double gbest = 1e30;
        for (int rep = 0; rep < reps; rep++) {
            if (cold)
                evict_caches();
            t0 = now_ms();
            gc_inv_eval_level_many(p, idx, nidx, tables, l, 5, res, NULL);
            double dt = now_ms() - t0;
            for (size_t j = 0; j < nidx; j++)
                gc_inv_result_free(&res[idx[j]]);
            if (dt < gbest)
                gbest = dt;
        }
        t_group += gbest;
        double best = 1e30;
        for (int rep = 0; rep < reps; rep++) {
            t0 = now_ms();
            for (size_t m = 0; m < gc_inv_metric_count(p); m++) {
                double v;
                int nul;
                gc_inv_eval_metric(p, m, tables, &v, &nul);
            }
            double dt = now_ms() - t0;
            if (dt < best)
                best = dt;
        }
        t_metric += best;
        /* and the level's invariants with every metric in one call, as the sweep now runs
         * them: the aggregates they share computed once (gc_inv_eval_level_all) */
        double abest = 1e30;
        double *mv = malloc((gc_inv_metric_count(p) + 1) * sizeof *mv);
        int *mn = malloc((gc_inv_metric_count(p) + 1) * sizeof *mn);
        for (int rep = 0; rep < reps && mv && mn; rep++) {
            if (cold)
                evict_caches();
            t0 = now_ms();
            gc_inv_eval_level_all(p, idx, nidx, tables, l, 5, res, NULL, NULL, NULL, NULL, mv, mn);
            double dt = now_ms() - t0;
            for (size_t j = 0; j < nidx; j++)
                gc_inv_result_free(&res[idx[j]]);
            if (dt < abest)
                abest = dt;
        }
        free(mv);
        free(mn);
        t_all += abest;
        all[nlev] = tables;
        bufs[nlev] = buf;
        ids[nlev] = l;
        nlev++;
    }
    double t0 = now_ms();
    for (size_t i = 0; i < gc_inv_count(p); i++) {
        if (gc_inv_get(p, i)->scope != GC_SCOPE_CORPUS ||
            (only && fnmatch(only, gc_inv_get(p, i)->id, 0) != 0))
            continue;
        gc_inv_result r;
        if (gc_inv_eval_corpus(p, i, (const gc_table *const *)all, ids, nlev, 5, &r) == 0)
            checks += r.checked;
        gc_inv_result_free(&r);
    }
    t_corpus = now_ms() - t0;
    double t_eval = t_level + t_metric + t_corpus;
    printf("  corpus %s: %zu levels, %llu rows, %llu checks, one thread, CPU ms (evaluation best "
           "of %d):\n",
           dir, nlev, (unsigned long long)rows, (unsigned long long)checks, reps);
    printf("    decode %.1f ms; evaluate %.1f ms (level invariants %.1f, metrics %.1f, corpus "
           "invariants %.1f) = %.1f%% of decode + evaluate\n",
           t_decode, t_eval, t_level, t_metric, t_corpus, 100.0 * t_eval / (t_decode + t_eval));
    printf("    level invariants%s%s evaluated together as the sweep does "
           "(gc_inv_eval_level_many%s): %.1f ms\n",
           only ? " matching " : "", only ? only : "", cold ? ", caches evicted first" : "",
           t_group);
    printf("    and with the metrics in the same call (gc_inv_eval_level_all%s): %.1f ms, against "
           "%.1f ms apart\n",
           cold ? ", caches evicted first" : "", t_all, t_group + t_metric);
    /* the eight most expensive level invariants */
    for (int top = 0; top < 8; top++) {
        size_t best = 0;
        for (size_t i = 1; i < gc_inv_count(p) && i < 256; i++)
            if (per_inv[i] > per_inv[best])
                best = i;
        if (per_inv[best] <= 0)
            break;
        printf("    %-28s %7.2f ms  %s\n", gc_inv_get(p, best)->id, per_inv[best],
               gc_inv_get(p, best)->expect);
        per_inv[best] = -1;
    }
    for (size_t k = 0; k < nlev; k++) {
        free(all[k]);
        gc_level_free(&lvs[k]);
        free(bufs[k]);
    }
    free(lvs);
    free(idx);
    free(res);
}

int main(int argc, char **argv)
{
    const char *corpus = NULL, *only = NULL;
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--cold") == 0)
            cold = 1;
        else if (argv[i][0] != '-' && !corpus)
            corpus = argv[i];
        else {
            fprintf(stderr, "usage: bench_inv [CORPUS_DIR] [--only GLOB] [--reps N] [--cold]\n");
            return 2;
        }
    }
    bench_row *rows = calloc(NROWS, sizeof *rows);
    if (!rows)
        return 1;
    uint32_t seed = 12345u, ofs = 0;
    for (uint32_t i = 0; i < NROWS; i++) {
        seed = seed * 1664525u + 1013904223u; /* integer LCG: deterministic rows */
        bench_row *r = &rows[i];
        r->file_ofs = (uint64_t)i * 64u;
        r->count = 1 + (seed >> 28);
        r->stride_bytes = 16;
        r->offset = ofs;
        ofs += r->count * r->stride_bytes;
        r->vert_count = 8 + (seed >> 26);
        r->positions_decoded = r->vert_count + ((seed & 0xffff) == 7); /* rare failures */
        r->parent_row = i / 16 * 16;
        r->x = (float)((seed >> 8) & 0xff) / 64.0f;
        r->y = (float)((seed >> 16) & 0xff) / 64.0f;
        r->z = 0.0f;
        r->radius = 6.0f;
        r->walk_ok = (seed & 3) != 0;
    }
    char err[4096];
    gc_inv_set *s = gc_inv_load_string("bench.yaml", yaml, descs, 1, err, sizeof err);
    if (!s) {
        fprintf(stderr, "bench_inv: %s", err);
        return 1;
    }
    gc_table tables[1] = {{&row_desc, rows, NROWS}};
    printf("bench_inv: %u rows of %zu bytes\n", NROWS, sizeof(bench_row));
    for (size_t i = 0; i < gc_inv_count(s); i++) {
        const gc_inv_info *info = gc_inv_get(s, i);
        double best = 1e30;
        gc_inv_result r = {0};
        for (int rep = 0; rep < 5; rep++) {
            gc_inv_result_free(&r);
            double t0 = now_ms();
            if (gc_inv_eval_level(s, i, tables, 0, 10, &r) != 0)
                return 1;
            double t = now_ms() - t0;
            if (t < best)
                best = t;
        }
        printf("  %-12s %8.2f ms  %6.1f ns/row  checked=%llu failed=%llu   %s\n", info->id, best,
               best * 1e6 / NROWS, (unsigned long long)r.checked, (unsigned long long)r.failed,
               info->expect);
        gc_inv_result_free(&r);
    }
    for (size_t m = 0; m < gc_inv_metric_count(s); m++) {
        double best = 1e30, v = 0;
        int nul = 0;
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now_ms();
            if (gc_inv_eval_metric(s, m, tables, &v, &nul) != 0)
                return 1;
            double t = now_ms() - t0;
            if (t < best)
                best = t;
        }
        printf("  %-12s %8.2f ms  %6.1f ns/row  value=%.6g%s\n", gc_inv_metric_name(s, m), best,
               best * 1e6 / NROWS, v, nul ? " (null)" : "");
    }
    gc_inv_free(s);
    free(rows);

    /* load + compile the project's invariants against the real registry */
    size_t nreg = 0;
    const gc_table_desc *const *reg = gc_table_registry(&nreg);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/invariants", GC_SOURCE_DIR);
    static char lerr[1 << 16];
    double t0 = now_ms();
    gc_inv_set *p = gc_inv_load_dir(dir, reg, nreg, lerr, sizeof lerr);
    double t = now_ms() - t0;
    if (p) {
        printf("  load %s: %zu invariants, %zu metrics, %zu tables: %.2f ms\n", dir,
               gc_inv_count(p), gc_inv_metric_count(p), nreg, t);
        if (corpus)
            corpus_figures(corpus, p, nreg, only, reps);
        gc_inv_free(p);
    } else {
        printf("  load %s: failed in %.2f ms:\n%s", dir, t, lerr);
    }
    free(evict_buf);
    return 0;
}
