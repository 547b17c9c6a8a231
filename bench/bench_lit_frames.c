/* SPDX-License-Identifier: MIT */
/* Lit against unlit frames (issue 12): renders both gate views of every level
 * twice, with the lighting pass's colours and with the stored ones
 * (`--lighting off`), and prints the mean luminance of each frame. Figures
 * only, never assertions; the table goes to docs/golden.md ("Lit frames") and
 * docs/performance.md.
 *
 * Luminance is 0.2126 R + 0.7152 G + 0.0722 B (Rec. 709 weights, 0..255),
 * averaged over the pixels that are not the background (the renderer clears
 * to (0x30, 0x38, 0x48), harness/scene/render.c), so a view that shows less
 * terrain is not counted darker for it.
 *
 * Usage: bench_lit_frames [--corpus DIR] [--scale retail|small|edge]
 * Prints per level the four means, then the means over all levels and the
 * number of levels whose lit frame is brighter than the unlit one. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_corpus.h"
#include "gc_level.h"
#include "gc_render.h"
#include "sy_corpus.h"

static const uint8_t background[3] = {0x30, 0x38, 0x48};

/* Mean luminance of the non-background pixels, or -1 when there are none. */
static double mean_luma(const gc_frame *f)
{
    double sum = 0;
    size_t n = 0, px = (size_t)f->width * f->height;
    for (size_t i = 0; i < px; i++) {
        const uint8_t *p = f->rgba + 4 * i;
        if (p[0] == background[0] && p[1] == background[1] && p[2] == background[2])
            continue;
        sum += 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
        n++;
    }
    return n ? sum / (double)n : -1.0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int scale = SY_SCALE_RETAIL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--corpus") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc &&
                 sy_scale_parse(argv[i + 1]) >= 0) /* an unknown scale is a usage error */
            scale = sy_scale_parse(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_lit_frames [--corpus DIR] [--scale retail|small|edge]\n");
            return 2;
        }
    }
    char err[512];
    gc_corpus c;
    if (gc_corpus_open_any(&c, dir, scale, 1, 2, 1, err, sizeof err) != 0) {
        fprintf(stderr, "bench_lit_frames: %s\n", err);
        return 3;
    }
    static const char *const views[2] = {"overview", "ground"};
    printf("corpus: %s, %d levels\n", c.label, c.found);
    printf("%-12s %14s %14s %14s %14s\n", "level", "overview-unlit", "overview-lit", "ground-unlit",
           "ground-lit");
    double total[2][2] = {{0, 0}, {0, 0}};
    int levels = 0, brighter[2] = {0, 0}, failed = 0;
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        const gc_corpus_file *f = &c.files[i];
        if (!f->ok)
            continue;
        gc_level lv;
        if (gc_level_init(&lv, f->index, f->name, f->data, f->size) != GC_OK)
            continue;
        gc_level_decode(&lv);
        double m[2][2]; /* [view][lit] */
        int ok = 1;
        for (int v = 0; v < 2; v++)
            for (int lit = 0; lit < 2; lit++) {
                gc_frame fr;
                if (gc_render_level_lighting(&lv, lit, views[v], GC_RENDER_WIDTH, GC_RENDER_HEIGHT,
                                             &fr, NULL, 0, err, sizeof err) != 0) {
                    fprintf(stderr, "%s %s: %s\n", f->name, views[v], err);
                    ok = 0;
                    m[v][lit] = -1;
                    continue;
                }
                m[v][lit] = mean_luma(&fr);
                gc_frame_free(&fr);
            }
        gc_level_free(&lv);
        if (!ok) {
            failed++;
            continue;
        }
        printf("%-12s %14.1f %14.1f %14.1f %14.1f\n", f->name, m[0][0], m[0][1], m[1][0], m[1][1]);
        for (int v = 0; v < 2; v++) {
            total[v][0] += m[v][0], total[v][1] += m[v][1];
            brighter[v] += m[v][1] > m[v][0];
        }
        levels++;
    }
    if (levels)
        printf("%-12s %14.1f %14.1f %14.1f %14.1f\n", "mean", total[0][0] / levels,
               total[0][1] / levels, total[1][0] / levels, total[1][1] / levels);
    printf("lit brighter than unlit: overview %d/%d levels, ground %d/%d levels", brighter[0],
           levels, brighter[1], levels);
    if (failed)
        printf(" (%d levels not rendered)", failed);
    printf("\n");
    gc_corpus_close(&c);
    return failed ? 1 : 0;
}
