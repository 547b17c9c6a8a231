/* SPDX-License-Identifier: MIT */
/* What the sweep frees early, and the pool's concurrency (issue 18): a
 * decoded level renders the same frames after it let go of its file, of the
 * rows the renderer does not read and of the core_data around its texels;
 * the tables end decoding at their row counts; the pool never runs more than
 * `jobs` tasks at once. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gc_level.h"
#include "gc_pool.h"
#include "gc_sweep.h"
#include "gc_sweep_frames.h"
#include "gc_texture.h"
#include "sy_corpus.h"
#include "synth_level.h"

typedef struct pool_probe {
    atomic_int in_flight, most;
    atomic_int ran[32];
} pool_probe;

static void probe_task(void *ctx, size_t i)
{
    pool_probe *p = ctx;
    int now = atomic_fetch_add(&p->in_flight, 1) + 1;
    int m = atomic_load(&p->most);
    while (now > m && !atomic_compare_exchange_weak(&p->most, &m, now))
        ;
    struct timespec t = {0, 3 * 1000 * 1000};
    nanosleep(&t, NULL);
    atomic_fetch_add(&p->ran[i], 1);
    atomic_fetch_sub(&p->in_flight, 1);
}

/* --jobs 2 once ran three tasks at once: the caller's thread worked beside
 * the two threads it had started. */
Test(memory, pool_runs_at_most_jobs_tasks_at_once)
{
    for (unsigned jobs = 1; jobs <= 3; jobs++) {
        pool_probe p;
        memset(&p, 0, sizeof p);
        cr_assert_eq(gc_pool_run(jobs, 32, probe_task, &p), 0);
        cr_assert_leq(atomic_load(&p.most), (int)jobs, "jobs %u: %d tasks at once", jobs,
                      atomic_load(&p.most));
        for (int i = 0; i < 32; i++)
            cr_assert_eq(atomic_load(&p.ran[i]), 1, "jobs %u: task %d ran %d times", jobs, i,
                         atomic_load(&p.ran[i]));
    }
}

static gc_rowbuf *rows_named(gc_level *lv, const char *name)
{
    for (size_t t = 0; t < lv->table_count; t++)
        if (strcmp(lv->tables[t].desc->name, name) == 0)
            return &lv->tables[t];
    return NULL;
}

static void render_hashes(const gc_level *lv, char hex[GC_SWEEP_MAX_VIEWS][65], size_t *n)
{
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    gc_sweep_frame_golden none;
    memset(&none, 0, sizeof none);
    gc_sweep_level_frames *fr = calloc(1, sizeof *fr);
    cr_assert(fr);
    gc_sweep_render_level(lv, &o, &none, fr);
    cr_assert_geq(fr->count, 2);
    *n = fr->count;
    for (size_t i = 0; i < fr->count; i++) {
        cr_assert_str_eq(fr->items[i].status, "new", "%s", fr->items[i].params);
        memcpy(hex[i], fr->items[i].sha256, 65);
    }
    gc_sweep_level_frames_free(fr);
    free(fr);
}

Test(memory, a_level_renders_the_same_without_its_file_and_its_core_data_around_the_texels,
     .timeout = 300)
{
    sy_buf b;
    gc_level lv;
    synth_level_decode_small(4, &b, &lv);
    cr_assert(lv.overlay.present && lv.core_index.present && lv.gs_ram.present);

    /* every table ends decoding at its row count (the doubling's slack given back) */
    for (size_t t = 0; t < lv.table_count; t++)
        cr_assert(lv.tables[t].count == 0 || lv.tables[t].cap == lv.tables[t].count,
                  "%s: %zu rows, capacity %zu", lv.tables[t].desc->name, lv.tables[t].count,
                  lv.tables[t].cap);

    char before[GC_SWEEP_MAX_VIEWS][65], after[GC_SWEEP_MAX_VIEWS][65];
    size_t nb = 0, na = 0;
    render_hashes(&lv, before, &nb);

    /* the file goes: its bytes are overwritten, so a read of them would show */
    cr_assert_eq(gc_level_detach_file(&lv), 0);
    cr_assert_null(lv.file);
    const gc_span *kept[] = {&lv.overlay, &lv.core_index, &lv.gs_ram};
    for (size_t i = 0; i < 3; i++)
        cr_assert(kept[i]->data && (kept[i]->data < b.data || kept[i]->data >= b.data + b.len),
                  "span %zu still points into the file", i);
    cr_assert_null(lv.data_extent.data);
    memset(b.data, 0x5a, b.len);

    /* the rows of the tables the renderer does not draw from go (as the
     * sweep drops them before its frames) */
    bool *keep = calloc(lv.table_count, sizeof *keep);
    cr_assert(keep);
    size_t dropped = 0;
    for (size_t t = 0; t < lv.table_count; t++) {
        keep[t] = gc_sweep_frames_reads_table(lv.tables[t].desc->name) != 0;
        dropped += !keep[t] && lv.tables[t].count;
    }
    cr_assert_gt(dropped, 0);
    gc_level_drop_rows(&lv, keep);
    free(keep);

    /* and core_data below the lowest texture's pixels and past the highest
     * reads as zeros */
    size_t lowest = gc_texture_pixels_lowest(&lv), end = gc_texture_pixels_end(&lv);
    cr_assert_gt(lowest, 0);
    cr_assert_lt(lowest, end);
    cr_assert_lt(end, lv.core_data_size, "nothing past the texels: the test would not test it");
    const gc_rowbuf *tt = rows_named(&lv, "texture.tfrag");
    cr_assert(tt && tt->count > 0);
    for (size_t i = 0; i < tt->count; i++) {
        const gc_texture_row *r = gc_rows_at(tt, i);
        if (!r->pixels_ok)
            continue;
        cr_assert_geq(r->pixel_ofs, lowest, "texture %zu below the lowest", i);
        size_t w = (size_t)r->width, h = (size_t)r->height;
        cr_assert_leq(r->pixel_ofs + w * h, end, "texture %zu past the end", i);
    }
    memset(lv.core_data, 0, lowest);
    memset(lv.core_data + end, 0, lv.core_data_size - end);

    render_hashes(&lv, after, &na);
    cr_assert_eq(na, nb);
    for (size_t i = 0; i < nb; i++)
        cr_assert_str_eq(after[i], before[i], "view %zu changed", i);
    gc_level_free(&lv);
    sy_buf_free(&b);
}

/* gc_texture_pixels_lowest and gc_texture_pixels_end are bounds the
 * texture API respects: every texture of every kind decodes to the same
 * RGBA with core_data below the one and from the other on zeroed. */
Test(memory, textures_do_not_read_outside_the_pixel_bounds, .timeout = 120)
{
    sy_buf b;
    gc_level lv;
    synth_level_decode_small(4, &b, &lv);
    size_t lowest = gc_texture_pixels_lowest(&lv), end = gc_texture_pixels_end(&lv);
    cr_assert(lowest < end && end < lv.core_data_size);
    uint8_t *saved = malloc(lv.core_data_size);
    cr_assert(saved);
    memcpy(saved, lv.core_data, lv.core_data_size);
    size_t compared = 0;
    const int32_t counts[4] = {lv.core.tfrag_textures.count, lv.core.moby_textures.count,
                               lv.core.tie_textures.count, lv.core.shrub_textures.count};
    for (int kind = GC_TEXTURE_TFRAG; kind <= GC_TEXTURE_SHRUB; kind++)
        for (int32_t idx = 0; idx < counts[kind]; idx++)
            for (int mip = 0; mip < 2; mip++) {
                uint8_t *x = NULL, *y = NULL;
                uint32_t w0 = 0, h0 = 0, w1 = 0, h1 = 0;
                gc_diag d;
                gc_diag_init(&d);
                gc_status s0 =
                    gc_texture_rgba_kind(&lv, kind, (uint32_t)idx, mip, 1, &x, &w0, &h0, &d);
                memset(lv.core_data, 0, lowest);
                memset(lv.core_data + end, 0, lv.core_data_size - end);
                gc_diag_init(&d);
                gc_status s1 =
                    gc_texture_rgba_kind(&lv, kind, (uint32_t)idx, mip, 1, &y, &w1, &h1, &d);
                memcpy(lv.core_data, saved, lv.core_data_size);
                cr_assert_eq(s0, s1);
                if (s0 == GC_OK) {
                    cr_assert(w0 == w1 && h0 == h1);
                    cr_assert(memcmp(x, y, (size_t)w0 * h0 * 4) == 0,
                              "kind %d texture %d mip %d reads outside [%zu, %zu)", kind, idx, mip,
                              lowest, end);
                    compared++;
                }
                free(x);
                free(y);
            }
    cr_assert_gt(compared, 0);
    free(saved);
    gc_level_free(&lv);
    sy_buf_free(&b);
}

Test(memory, a_reservation_is_a_hint)
{
    gc_level lv;
    cr_assert_eq(gc_level_init(&lv, 0, "X.WAD", NULL, 0), GC_OK);
    gc_rowbuf *rb = rows_named(&lv, "texture.tfrag");
    cr_assert(rb);
    cr_assert_eq(gc_rows_reserve(rb, 1000), 0);
    cr_assert_eq(rb->cap, 1000);
    for (int i = 0; i < 1000; i++)
        cr_assert(gc_rows_push(rb));
    cr_assert_eq(rb->cap, 1000, "no growth within the reservation");
    cr_assert(gc_rows_push(rb));
    cr_assert_gt(rb->cap, 1001);
    gc_rows_shrink(rb);
    cr_assert_eq(rb->cap, 1001);
    cr_assert_eq(lv.mem_charged, 1001 * rb->desc->row_size);
    gc_level_free(&lv);
}
