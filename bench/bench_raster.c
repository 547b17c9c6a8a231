/* SPDX-License-Identifier: MIT */
/* Rasteriser benchmark: milliseconds per 640x448 frame on one core.
 *
 *  1. A retail-shaped procedural terrain drawn straight through the
 *     rasteriser: a 400 x 400 unit heightfield of 174 x 174 quads (60,552
 *     triangles, the middle of the 30k-80k a retail view draws after LOD
 *     selection), 16 textures of 64 x 64 with a few transparent texels,
 *     PS2-range vertex colours, bilinear filtering (retail MMIN is
 *     LINEAR_MIPMAP_NEAREST), camera placed as the overview view places it.
 *  2. If a corpus is given (argv[1] = directory) or the synthetic retail
 *     corpus can be opened, the overview and ground views of its levels
 *     through gc_render (geometry gathered once per level, as the sweep does;
 *     textures decoded by one untimed draw of each view; only the draws are
 *     timed), with every tie, shrub and moby instance (the gate frames) and
 *     again terrain only (--objects off).
 * Usage: bench_raster [CORPUS_DIR] [--png FILE] [--lighting off] (FILE: the
 * procedural frame; --lighting off: stored colours, objects unlit), or
 * bench_raster [CORPUS_DIR] --profile LEVEL VIEW REPS [--objects off]
 * [--lighting off] to time (or profile) one level's view alone, or
 * bench_raster [CORPUS_DIR] --sweep retail|small|edge [--level N] for the
 * sweep's frame phase split into its parts (scene, draws, hashes, re-render;
 * --level: that level alone, for callgrind).
 * Figures only; nothing here is asserted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gc_corpus.h"
#include "gc_frame.h"
#include "gc_level.h"
#include "gc_png.h"
#include "gc_raster.h"
#include "gc_render.h"
#include "sy_corpus.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time of this thread: on a shared machine it moves much less with load
 * than wall time, so both are printed. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint32_t rng(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

enum { QUADS = 174, TEXTURES = 16, TEXDIM = 64 };

static float height_at(int i, int j)
{
    /* Integer "noise" summed over three octaves: hills without libm. */
    uint32_t h = 0;
    for (int o = 0; o < 3; o++) {
        int step = 32 >> (2 * o);
        int ci = i / step, cj = j / step;
        uint32_t s =
            (uint32_t)(ci * 73856093) ^ (uint32_t)(cj * 19349663) ^ (uint32_t)(o * 83492791);
        s = s * 2654435761u;
        h += (s >> 24) >> o;
    }
    return (float)h * 0.12f;
}

static void bench_procedural(const char *png)
{
    const int nv = (QUADS + 1) * (QUADS + 1);
    gc_rs_vertex *v = malloc((size_t)nv * sizeof *v);
    uint8_t *tex = malloc((size_t)TEXTURES * TEXDIM * TEXDIM * 4);
    if (!v || !tex)
        exit(1);
    uint32_t seed = 0x9e3779b9u;
    for (int t = 0; t < TEXTURES; t++)
        for (int y = 0; y < TEXDIM; y++)
            for (int x = 0; x < TEXDIM; x++) {
                uint8_t *p = tex + (((size_t)t * TEXDIM + y) * TEXDIM + x) * 4;
                uint32_t r = rng(&seed);
                int check = ((x >> 3) ^ (y >> 3)) & 1;
                p[0] = (uint8_t)(60 + 12 * t + (check ? 60 : 0) + (r & 31));
                p[1] = (uint8_t)(90 + (check ? 40 : 0) + ((r >> 8) & 31));
                p[2] = (uint8_t)(50 + 5 * t + ((r >> 16) & 31));
                p[3] = (r >> 24) < 8 ? 0 : 0x80; /* 3% grille holes */
            }
    for (int j = 0; j <= QUADS; j++)
        for (int i = 0; i <= QUADS; i++) {
            gc_rs_vertex *e = &v[j * (QUADS + 1) + i];
            e->pos[0] = (float)i * (400.0f / QUADS) - 200.0f;
            e->pos[1] = (float)j * (400.0f / QUADS) - 200.0f;
            e->pos[2] = height_at(i, j);
            e->s = (float)(i % 8) / 8.0f * 2.0f;
            e->t = (float)(j % 8) / 8.0f * 2.0f;
            uint32_t r = rng(&seed);
            e->rgba[0] = (uint8_t)(0x60 + (r & 0x3f));
            e->rgba[1] = (uint8_t)(0x60 + ((r >> 8) & 0x3f));
            e->rgba[2] = (uint8_t)(0x60 + ((r >> 16) & 0x3f));
            e->rgba[3] = 0x80;
        }
    /* Overview placement: union radius ~ 283 (the square's half-diagonal)
     * plus relief; eye 1.8 radii out towards (-0.5, -0.6, 0.7). */
    const float r = 300.0f, len = 1.0488089f; /* |(-0.5, -0.6, 0.7)| */
    float eye[3] = {-0.5f / len * r * 1.8f, -0.6f / len * r * 1.8f, 15.0f + 0.7f / len * r * 1.8f};
    float target[3] = {0, 0, 15}, up[3] = {0, 0, 1};
    gc_rs_camera cam;
    gc_rs_target t;
    if (gc_rs_camera_look(&cam, eye, target, up, 1.0f, 3.0f, 640, 448) != 0 ||
        gc_rs_target_init(&t, 640, 448, 0) != 0)
        exit(1);
    const uint8_t bg[4] = {0x30, 0x38, 0x48, 0xFF};
    const int frames = 20;
    double best = 1e30, total = 0, cpu_best = 1e30, cpu_total = 0;
    for (int f = 0; f < frames; f++) {
        double t0 = now_ms(), c0 = cpu_ms();
        gc_rs_target_clear(&t, bg);
        for (int j = 0; j < QUADS; j++)
            for (int i = 0; i < QUADS; i++) {
                int a = j * (QUADS + 1) + i;
                gc_rs_texture tx;
                memset(&tx, 0, sizeof tx);
                tx.width = tx.height = TEXDIM;
                tx.rgba = tex + (size_t)((i / 8 + j / 8) % TEXTURES) * TEXDIM * TEXDIM * 4;
                tx.filter = GC_RS_FILTER_LINEAR; /* retail ad-gifs: LINEAR_MIPMAP_NEAREST */
                gc_rs_vertex t1[3] = {v[a], v[a + 1], v[a + QUADS + 2]};
                gc_rs_vertex t2[3] = {v[a], v[a + QUADS + 2], v[a + QUADS + 1]};
                gc_rs_draw_triangle(&t, &cam, t1, &tx);
                gc_rs_draw_triangle(&t, &cam, t2, &tx);
            }
        double ms = now_ms() - t0, cms = cpu_ms() - c0;
        total += ms;
        cpu_total += cms;
        if (ms < best)
            best = ms;
        if (cms < cpu_best)
            cpu_best = cms;
    }
    gc_frame fr = {640, 448, t.rgba, "bench", "", ""};
    char hex[65];
    double h0 = now_ms();
    gc_frame_sha256(&fr, hex, NULL, 0);
    double hash_ms = now_ms() - h0;
    printf("procedural terrain: %d triangles, %llu screen triangles, %llu pixels written "
           "(%.1f%% of the frame)\n",
           2 * QUADS * QUADS, (unsigned long long)t.stats.setups,
           (unsigned long long)t.stats.pixels_written,
           100.0 * (double)t.stats.pixels_written / (640.0 * 448.0));
    printf("  draw: wall best %.2f ms, mean %.2f ms; thread CPU best %.2f ms, mean %.2f ms per "
           "640x448 frame (%d frames); sha256 %.2f ms\n",
           best, total / frames, cpu_best, cpu_total / frames, frames, hash_ms);
    printf("  frame sha256 %s\n", hex);
    char err[256];
    if (png && gc_png_write_rgba(png, t.rgba, 640, 448, err, sizeof err) != 0)
        printf("  %s\n", err);
    gc_rs_target_free(&t);
    free(v);
    free(tex);
}

static void bench_corpus(const char *dir, int lighting)
{
    char err[512] = "";
    gc_corpus c;
    if (gc_corpus_open_any(&c, dir, SY_SCALE_RETAIL, 1, 2, 0, err, sizeof err) != 0) {
        printf("corpus: not available (%s)\n", err);
        return;
    }
    printf("corpus: %s%s\n", c.label, lighting ? "" : ", lighting off");
    /* views 0, 1 with objects (the gate frames), 2, 3 the same terrain-only */
    double sum[4] = {0, 0, 0, 0}, worst[4] = {0, 0, 0, 0}, cpu_sum[4] = {0, 0, 0, 0},
           cpu_worst[4] = {0, 0, 0, 0};
    int n = 0;
    uint64_t tris[4] = {0, 0, 0, 0}, otris[4] = {0, 0, 0, 0};
    const char *const *names;
    gc_render_view_names(&names);
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        if (!c.files[i].ok)
            continue;
        gc_level lv;
        if (gc_level_init(&lv, i, c.files[i].name, c.files[i].data, c.files[i].size) != GC_OK)
            continue;
        gc_level_decode(&lv);
        gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
        if (s)
            gc_render_scene_set_lighting(s, lighting);
        if (!s) {
            if (n == 0 && i == 0)
                printf("  LEVEL%d: %s\n", i, err);
            gc_level_free(&lv);
            continue;
        }
        /* one untimed draw of each view first: textures are decoded once per level on first
         * use (the sweep draws both views from one scene), the benchmark times the draws,
         * into one target as the sweep's views share one (raster25: before, each draw
         * allocated its own, and its page faults were part of the figure) */
        gc_rs_target t;
        if (gc_rs_target_init(&t, 640, 448, 0) != 0) {
            gc_render_scene_free(s);
            gc_level_free(&lv);
            continue;
        }
        for (int v = 0; v < 2; v++) {
            gc_frame f;
            gc_render_scene_draw_into(s, names[v], &t, &f, NULL, err, sizeof err);
        }
        for (int v = 0; v < 4; v++) {
            gc_frame f;
            gc_render_scene_set_objects(s, v < 2);
            double t0 = now_ms(), c0 = cpu_ms();
            int rc = gc_render_scene_draw_into(s, names[v % 2], &t, &f, NULL, err, sizeof err);
            double ms = now_ms() - t0, cms = cpu_ms() - c0;
            if (rc == 0) {
                sum[v] += ms;
                cpu_sum[v] += cms;
                if (ms > worst[v])
                    worst[v] = ms;
                if (cms > cpu_worst[v])
                    cpu_worst[v] = cms;
                const gc_render_stats *st = gc_render_scene_stats(s);
                tris[v] += st->triangles_submitted;
                for (int k = 0; k < GC_RENDER_OBJECT_KINDS; k++)
                    otris[v] += st->objects[k].triangles;
            }
        }
        n++;
        gc_rs_target_free(&t);
        gc_render_scene_free(s);
        gc_level_free(&lv);
    }
    gc_corpus_close(&c);
    if (n == 0) {
        printf("  no level had tfrag tables to render\n");
        return;
    }
    for (int v = 0; v < 4; v++)
        printf("  %-8s %-9s wall mean %.2f ms, worst %.2f ms; thread CPU mean %.2f ms, worst "
               "%.2f ms per 640x448 frame over %d levels (mean %.0f terrain + %.0f object "
               "triangles)\n",
               names[v % 2], v < 2 ? "objects" : "terrain", sum[v] / n, worst[v], cpu_sum[v] / n,
               cpu_worst[v], n, (double)tris[v] / n, (double)otris[v] / n);
}

/* One level's view drawn `reps` times after one untimed draw, for perf or
 * callgrind (instruction counts hold on a loaded machine; times do not).
 * lighting 0 draws the stored colours and leaves the objects unlit, so the
 * profile shows the rasteriser without the object lighting's float model. */
static int bench_profile(const char *dir, int level, const char *view, int reps, int objects,
                         int lighting)
{
    char err[512] = "";
    gc_corpus c;
    if (gc_corpus_open_any(&c, dir, SY_SCALE_RETAIL, 1, 2, 0, err, sizeof err) != 0) {
        printf("corpus: not available (%s)\n", err);
        return 1;
    }
    int rc = 1;
    gc_level lv;
    if (level < 0 || level >= GC_LEVEL_COUNT || !c.files[level].ok ||
        gc_level_init(&lv, level, c.files[level].name, c.files[level].data, c.files[level].size) !=
            GC_OK) {
        printf("LEVEL%d: not available\n", level);
        gc_corpus_close(&c);
        return 1;
    }
    gc_level_decode(&lv);
    gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
    if (s) {
        gc_render_scene_set_objects(s, objects);
        gc_render_scene_set_lighting(s, lighting);
        gc_frame f;
        gc_rs_target t;
        const int have_target = gc_rs_target_init(&t, 640, 448, 0) == 0;
        if (have_target && gc_render_scene_draw_into(s, view, &t, &f, NULL, err, sizeof err) == 0) {
            double c0 = cpu_ms();
            for (int r = 0; r < reps; r++)
                gc_render_scene_draw_into(s, view, &t, &f, NULL, err, sizeof err);
            double ms = (cpu_ms() - c0) / reps;
            const gc_render_stats *st = gc_render_scene_stats(s);
            uint64_t otris = 0, inst = 0, culled = 0, hidden = 0;
            for (int k = 0; k < GC_RENDER_OBJECT_KINDS; k++) {
                otris += st->objects[k].triangles;
                inst += st->objects[k].instances;
                culled += st->objects[k].culled;
                hidden += st->objects[k].hidden;
            }
            printf("LEVEL%d %s objects %s lighting %s: thread CPU mean %.2f ms over %d draws; "
                   "%llu terrain + %llu object triangles, %llu pixels covered, %llu written; "
                   "%llu instances, %llu outside the view, %llu hidden by depth\n",
                   level, view, objects ? "on" : "off", lighting ? "on" : "off", ms, reps,
                   (unsigned long long)st->triangles_submitted, (unsigned long long)otris,
                   (unsigned long long)st->pixels_covered, (unsigned long long)st->pixels_written,
                   (unsigned long long)inst, (unsigned long long)culled,
                   (unsigned long long)hidden);
            rc = 0;
        }
        if (have_target)
            gc_rs_target_free(&t);
        gc_render_scene_free(s);
    }
    if (rc)
        printf("LEVEL%d %s: %s\n", level, view, err);
    gc_level_free(&lv);
    gc_corpus_close(&c);
    return rc;
}

/* The sweep's frame phase, level by level, as gc_sweep_render_level does it:
 * the scene built from the decoded tables, both views drawn from it into one
 * target (the first draw decodes the textures it samples), each frame
 * hashed, the scene freed; then the determinism check's two re-renders of the
 * first level's first view (each a scene of its own, one target). Thread CPU per part, summed over
 * the levels: what `gcverify sweep --timings` counts as frames, split up. */
static int bench_sweep_frames(const char *dir, int scale, int only)
{
    char err[512] = "";
    gc_corpus c;
    if (gc_corpus_open_any(&c, dir, scale, 1, 2, 0, err, sizeof err) != 0) {
        printf("corpus: not available (%s)\n", err);
        return 1;
    }
    const char *const *names;
    int nviews = gc_render_view_names(&names);
    double t_new = 0, t_draw[2] = {0, 0}, t_hash = 0, t_free = 0, t_rerender = 0, worst = 0;
    int n = 0, first = -1;
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        if (!c.files[i].ok || (only >= 0 && i != only))
            continue;
        gc_level lv;
        if (gc_level_init(&lv, i, c.files[i].name, c.files[i].data, c.files[i].size) != GC_OK)
            continue;
        gc_level_decode(&lv);
        double l0 = cpu_ms(), c0 = l0;
        gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
        t_new += cpu_ms() - c0;
        if (!s) {
            gc_level_free(&lv);
            continue;
        }
        /* one target for the level's views, as the sweep (its setup counted
         * with the first view) */
        gc_rs_target t;
        c0 = cpu_ms();
        int have_target = gc_rs_target_init(&t, 640, 448, 0) == 0;
        t_draw[0] += cpu_ms() - c0;
        for (int v = 0; have_target && v < nviews && v < 2; v++) {
            gc_frame f;
            c0 = cpu_ms();
            int rc = gc_render_scene_draw_into(s, names[v], &t, &f, NULL, err, sizeof err);
            t_draw[v] += cpu_ms() - c0;
            if (rc != 0)
                continue;
            char hex[65], manifest[GC_FRAME_MANIFEST_MAX];
            c0 = cpu_ms();
            gc_frame_sha256(&f, hex, manifest, sizeof manifest);
            t_hash += cpu_ms() - c0;
        }
        c0 = cpu_ms();
        if (have_target)
            gc_rs_target_free(&t);
        gc_render_scene_free(s);
        t_free += cpu_ms() - c0;
        if (cpu_ms() - l0 > worst)
            worst = cpu_ms() - l0;
        if (first < 0) {
            first = i;
            /* as gc_sweep_frames_rerender: a scene per pass, one target */
            c0 = cpu_ms();
            if (gc_rs_target_init(&t, 640, 448, 0) == 0) {
                for (int pass = 0; pass < 2; pass++) {
                    gc_frame f;
                    char hex[65];
                    gc_render_scene *r = gc_render_scene_new(&lv, err, sizeof err);
                    if (r &&
                        gc_render_scene_draw_into(r, names[0], &t, &f, NULL, err, sizeof err) == 0)
                        gc_frame_sha256(&f, hex, NULL, 0);
                    gc_render_scene_free(r);
                }
                gc_rs_target_free(&t);
            }
            t_rerender += cpu_ms() - c0;
        }
        n++;
        gc_level_free(&lv);
    }
    gc_corpus_close(&c);
    double total = t_new + t_draw[0] + t_draw[1] + t_hash + t_free;
    printf("sweep frames, %s, %d levels, thread CPU ms: total %.1f (worst level %.1f) = scene %.1f "
           "+ %s %.1f + %s %.1f + sha256 %.1f + free %.1f; determinism re-render (LEVEL%d) "
           "%.1f\n",
           c.label, n, total, worst, t_new, names[0], t_draw[0], names[1], t_draw[1], t_hash,
           t_free, first, t_rerender);
    return n ? 0 : 1;
}

int main(int argc, char **argv)
{
    /* bench_raster [CORPUS_DIR] [--png FILE]: FILE gets the procedural frame.
     * bench_raster [CORPUS_DIR] --profile LEVEL VIEW REPS [--objects off] [--lighting off]:
     * one level's view only (see bench_profile). */
    const char *dir = NULL, *png = NULL, *view = NULL;
    int level = -1, reps = 0, objects = 1, lighting = 1, sweep = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--png") == 0 && i + 1 < argc)
            png = argv[++i];
        else if (strcmp(argv[i], "--profile") == 0 && i + 3 < argc) {
            level = atoi(argv[++i]);
            view = argv[++i];
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--level") == 0 && i + 1 < argc)
            level = atoi(argv[++i]);
        else if (strcmp(argv[i], "--objects") == 0 && i + 1 < argc)
            objects = strcmp(argv[++i], "off") != 0;
        else if (strcmp(argv[i], "--sweep") == 0 && i + 1 < argc &&
                 sy_scale_parse(argv[i + 1]) >= 0)
            sweep = sy_scale_parse(argv[++i]);
        else if (strcmp(argv[i], "--lighting") == 0 && i + 1 < argc)
            lighting = strcmp(argv[++i], "off") != 0;
        else
            dir = argv[i];
    }
    if (sweep >= 0)
        return bench_sweep_frames(dir, sweep, level);
    if (view)
        return bench_profile(dir, level, view, reps > 0 ? reps : 1, objects, lighting);
    bench_procedural(png);
    bench_corpus(dir, lighting);
    return 0;
}
