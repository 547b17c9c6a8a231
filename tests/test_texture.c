/* SPDX-License-Identifier: MIT */
/* Texture decoder tests on a hand-built minimal level (core_index with a
 * tfrag texture table, core_data with index blocks, a GS RAM image with CSM1
 * CLUTs): the CSM1 involution, the alpha scale, the per-texture figures
 * (opacity, transparency, distinct colours, total variation with and without
 * the remap) with exact expected values, mip level placement, and the error
 * paths. The fixture is written here from formats.md §4.4/§6, not by synth/. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gc_level.h"
#include "gc_png.h"
#include "gc_texture.h"
#include "sy_corpus.h"

extern const gc_decoder gc_dec_texture;

#define CI_BYTES      0x400
#define CD_BYTES      0x10000
#define GS_BYTES      0x4000
#define TEX_TABLE_OFS 0x100
#define TEXTURES_BASE 0x1000

typedef struct fixture {
    gc_level lv;
    uint8_t ci[CI_BYTES];
    uint8_t gs[GS_BYTES];
    int count;
} fixture;

static void le16(uint8_t *p, int v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)((unsigned)v >> 8);
}
static void le32(uint8_t *p, int32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)((uint32_t)v >> (8 * i));
}

static void fx_init(fixture *f)
{
    memset(f, 0, sizeof *f);
    cr_assert_eq(gc_level_init(&f->lv, 0, "FAKE.WAD", NULL, 0), GC_OK);
    f->lv.core_data = calloc(1, CD_BYTES);
    f->lv.core_data_size = CD_BYTES;
    f->lv.core_index = (gc_span){f->ci, CI_BYTES, 0x5000, true};
    f->lv.gs_ram = (gc_span){f->gs, GS_BYTES, 0x9000, true};
    f->lv.core.textures_base = TEXTURES_BASE;
    f->lv.core.tfrag_textures.offset = TEX_TABLE_OFS;
    f->lv.core_ok = true;
    f->lv.data_ok = true;
}

/* Append a TextureEntry (16 bytes: data_offset, width, height, type,
 * palette, mipmap, pad). */
static void fx_entry(fixture *f, int32_t data_offset, int w, int h, int palette, int mipmap,
                     int pad)
{
    uint8_t *e = f->ci + TEX_TABLE_OFS + 16 * f->count;
    le32(e + 0x0, data_offset);
    le16(e + 0x4, w);
    le16(e + 0x6, h);
    le16(e + 0x8, 3);
    le16(e + 0xa, palette);
    le16(e + 0xc, mipmap);
    le16(e + 0xe, pad);
    f->count++;
    f->lv.core.tfrag_textures.count = f->count;
}

/* Store logical colour i of CLUT `palette` in CSM1 order. */
static void fx_clut_logical(fixture *f, int palette, uint32_t i, uint8_t r, uint8_t g, uint8_t b,
                            uint8_t a)
{
    uint8_t *c = f->gs + palette * 0x100 + 4 * gc_csm1_swap(i);
    c[0] = r;
    c[1] = g;
    c[2] = b;
    c[3] = a;
}

static uint8_t *fx_pixels(fixture *f, int32_t data_offset)
{
    return f->lv.core_data + TEXTURES_BASE + data_offset;
}

static const gc_texture_row *fx_run(fixture *f, size_t *n)
{
    gc_diag d;
    gc_diag_init(&d);
    gc_status s = gc_dec_texture.run(&f->lv, &d);
    cr_assert_eq(s, GC_OK, "texture decoder: %s (%s)", gc_status_name(s), d.msg);
    gc_rowbuf *rb = gc_level_rows(&f->lv, gc_dec_texture.tables[0]);
    cr_assert(rb != NULL);
    *n = rb->count;
    return (const gc_texture_row *)rb->data;
}

static void fx_free(fixture *f)
{
    gc_level_free(&f->lv);
}

Test(texture, csm1_swap_is_an_involution_on_bits_3_and_4)
{
    for (uint32_t i = 0; i < 256; i++) {
        cr_assert_eq(gc_csm1_swap(gc_csm1_swap(i)), i);
        cr_assert_eq(gc_csm1_swap(i) & ~0x18u, i & ~0x18u, "only bits 3 and 4 move");
    }
    cr_assert_eq(gc_csm1_swap(0x08), 0x10);
    cr_assert_eq(gc_csm1_swap(0x10), 0x08);
    cr_assert_eq(gc_csm1_swap(0x18), 0x18);
    cr_assert_eq(gc_csm1_swap(0x07), 0x07);
    cr_assert_eq(gc_csm1_swap(0x28), 0x30);
    cr_assert_eq(gc_csm1_swap(0xEF), 0xF7);
}

Test(texture, rgba_applies_the_csm1_remap)
{
    fixture f;
    fx_init(&f);
    fx_entry(&f, 0, 16, 16, 8, -1, -1);
    /* stored entry j holds R = j: logical i must come back as R = swap(i) */
    for (int j = 0; j < 256; j++) {
        uint8_t *c = f.gs + 8 * 0x100 + 4 * j;
        c[0] = (uint8_t)j;
        c[1] = (uint8_t)(255 - j);
        c[2] = 7;
        c[3] = 0x80;
    }
    uint8_t *px = fx_pixels(&f, 0);
    for (int i = 0; i < 256; i++)
        px[i] = (uint8_t)i;
    uint8_t *rgba;
    uint32_t w, h;
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 0, 0, 1, &rgba, &w, &h, &d), GC_OK, "%s", d.msg);
    cr_assert_eq(w, 16);
    cr_assert_eq(h, 16);
    for (uint32_t i = 0; i < 256; i++) {
        cr_assert_eq(rgba[4 * i], gc_csm1_swap(i), "texel %u", i);
        cr_assert_eq(rgba[4 * i + 1], 255 - gc_csm1_swap(i));
        cr_assert_eq(rgba[4 * i + 2], 7);
        cr_assert_eq(rgba[4 * i + 3], 0x80);
    }
    cr_assert_eq(rgba[4 * 8], 16, "logical 8 is stored at 16");
    free(rgba);
    fx_free(&f);
}

Test(texture, alpha_scale_ps2_and_expanded)
{
    fixture f;
    fx_init(&f);
    fx_entry(&f, 0, 4, 1, 0, -1, -1);
    static const uint8_t stored[4] = {0x00, 0x40, 0x80, 0xA0};
    static const uint8_t want_ps2[4] = {0x00, 0x40, 0x80, 0x80}; /* above 0x80 clamps */
    static const uint8_t want_255[4] = {0x00, 0x80, 0xFF, 0xFF};
    uint8_t *px = fx_pixels(&f, 0);
    for (int i = 0; i < 4; i++) {
        fx_clut_logical(&f, 0, (uint32_t)i, 10, 20, 30, stored[i]);
        px[i] = (uint8_t)i;
    }
    for (int ps2 = 0; ps2 < 2; ps2++) {
        uint8_t *rgba;
        uint32_t w, h;
        gc_diag d;
        gc_diag_init(&d);
        cr_assert_eq(gc_texture_rgba(&f.lv, 0, 0, ps2, &rgba, &w, &h, &d), GC_OK);
        for (int i = 0; i < 4; i++)
            cr_assert_eq(rgba[4 * i + 3], ps2 ? want_ps2[i] : want_255[i], "ps2=%d texel %d", ps2,
                         i);
        free(rgba);
    }
    size_t n;
    const gc_texture_row *r = fx_run(&f, &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(r[0].fully_opaque, 0);
    cr_assert(fabs(r[0].frac_transparent - 0.25) < 1e-12);
    fx_free(&f);
}

Test(texture, stats_opacity_colours_and_smoothness_exact)
{
    fixture f;
    fx_init(&f);
    /* texture 0: 2x1 indices [7, 8] with logical colour i = (i, 0, 0, 0x80).
     * As decoded: |8 - 7| = 1. In stored order: stored 7 is logical 7 (R 7),
     * stored 8 is logical 16 (R 16): 9. */
    fx_entry(&f, 0, 2, 1, 0, -1, -1);
    for (uint32_t i = 0; i < 256; i++)
        fx_clut_logical(&f, 0, i, (uint8_t)i, 0, 0, 0x80);
    fx_pixels(&f, 0)[0] = 7;
    fx_pixels(&f, 0)[1] = 8;
    /* texture 1: 4x4, indices 0..3 repeated, entries 2 and 3 identical, all
     * opaque except index 0 which is fully transparent (4 of 16 texels). */
    fx_entry(&f, 0x100, 4, 4, 4, -1, -1);
    fx_clut_logical(&f, 4, 0, 1, 2, 3, 0x00);
    fx_clut_logical(&f, 4, 1, 50, 60, 70, 0x80);
    fx_clut_logical(&f, 4, 2, 90, 90, 90, 0x80);
    fx_clut_logical(&f, 4, 3, 90, 90, 90, 0x80);
    for (int i = 0; i < 16; i++)
        fx_pixels(&f, 0x100)[i] = (uint8_t)(i % 4);
    /* texture 2: 8x8 of one index: flat, opaque, one colour, no variation */
    fx_entry(&f, 0x200, 8, 8, 8, -1, -1);
    fx_clut_logical(&f, 8, 200, 5, 5, 5, 0x80);
    memset(fx_pixels(&f, 0x200), 200, 64);

    size_t n;
    const gc_texture_row *r = fx_run(&f, &n);
    cr_assert_eq(n, 3);
    cr_assert_eq(r[0].file_ofs, 0x5000 + TEX_TABLE_OFS);
    cr_assert_eq(r[1].file_ofs, 0x5000 + TEX_TABLE_OFS + 16);
    cr_assert_eq(r[1].index, 1);
    cr_assert_eq(r[1].pixel_ofs, TEXTURES_BASE + 0x100);
    cr_assert_eq(r[1].clut_ofs, 0x400);

    cr_assert(r[0].pixels_ok);
    cr_assert_eq(r[0].fully_opaque, 1);
    cr_assert(r[0].frac_transparent == 0.0);
    cr_assert_eq(r[0].distinct_colors, 2);
    cr_assert(r[0].tv_csm1 == 1.0, "tv_csm1 %f", r[0].tv_csm1);
    cr_assert(r[0].tv_raw == 9.0, "tv_raw %f", r[0].tv_raw);
    cr_assert(fabs(r[0].tv_ratio - 1.0 / 9.0) < 1e-12);

    cr_assert_eq(r[1].fully_opaque, 0);
    cr_assert(r[1].frac_transparent == 0.25);
    cr_assert_eq(r[1].distinct_colors, 3, "identical entries count once");
    /* rows 0,1,2,3 | 0,1,2,3 ...: horizontal pairs (0,1) (1,2) (2,3) per row,
     * vertical pairs equal. (0,1): 49+58+67 = 174, (1,2): 40+30+20 = 90,
     * (2,3): 0. Mean over 12 horizontal + 12 vertical pairs: 4*(264)/24 = 44. */
    cr_assert(r[1].tv_csm1 == 44.0, "tv_csm1 %f", r[1].tv_csm1);

    cr_assert_eq(r[2].fully_opaque, 1);
    cr_assert_eq(r[2].distinct_colors, 1);
    cr_assert(r[2].tv_csm1 == 0.0 && r[2].tv_raw == 0.0);
    cr_assert(isnan(r[2].tv_ratio), "a flat image has no ratio");
    fx_free(&f);
}

Test(texture, smooth_palette_is_smoother_with_the_remap)
{
    fixture f;
    fx_init(&f);
    /* a 64x64 gradient over all 256 indices with a palette that is smooth in
     * logical order: the remap must win clearly */
    fx_entry(&f, 0, 64, 64, 0, -1, -1);
    for (uint32_t i = 0; i < 256; i++)
        fx_clut_logical(&f, 0, i, (uint8_t)i, (uint8_t)(255 - i), (uint8_t)(i / 2), 0x80);
    uint8_t *px = fx_pixels(&f, 0);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++)
            px[y * 64 + x] = (uint8_t)((x + y) * 2);
    size_t n;
    const gc_texture_row *r = fx_run(&f, &n);
    /* neighbours differ by 2 logical steps: |2| + |2| + |1| = 5 everywhere */
    cr_assert(r[0].tv_csm1 == 5.0, "csm1 %f", r[0].tv_csm1);
    cr_assert(r[0].tv_raw > 9.0, "raw %f", r[0].tv_raw);
    cr_assert(r[0].tv_ratio < 0.6);
    cr_assert_eq(r[0].distinct_colors, 127, "x + y runs 0..126");
    fx_free(&f);
}

Test(texture, mip_levels_are_where_the_notes_put_them)
{
    fixture f;
    fx_init(&f);
    /* 16x16: level 0 at data_offset, level 1 (8x8) right after it, level 2
     * (4x4) at gs_ram[mipmap*0x100], level 3 (2x2) at gs_ram[pad*0x100] */
    fx_entry(&f, 0x40, 16, 16, 2, 0x20, 0x21);
    for (uint32_t i = 0; i < 256; i++)
        fx_clut_logical(&f, 2, i, (uint8_t)i, 0, 0, 0x80);
    memset(fx_pixels(&f, 0x40), 11, 256);
    memset(fx_pixels(&f, 0x40) + 256, 22, 64);
    memset(f.gs + 0x20 * 0x100, 33, 16);
    memset(f.gs + 0x21 * 0x100, 44, 4);
    static const uint32_t want_w[4] = {16, 8, 4, 2};
    static const uint8_t want_v[4] = {11, 22, 33, 44};
    for (int m = 0; m < 4; m++) {
        uint8_t *rgba;
        uint32_t w, h;
        gc_diag d;
        gc_diag_init(&d);
        cr_assert_eq(gc_texture_rgba(&f.lv, 0, m, 1, &rgba, &w, &h, &d), GC_OK, "mip %d: %s", m,
                     d.msg);
        cr_assert_eq(w, want_w[m]);
        cr_assert_eq(h, want_w[m]);
        for (uint32_t i = 0; i < w * h; i++)
            cr_assert_eq(rgba[4 * i], want_v[m], "mip %d texel %u", m, i);
        free(rgba);
    }
    size_t n;
    const gc_texture_row *r = fx_run(&f, &n);
    cr_assert_eq(r[0].mip_levels, 4);
    fx_free(&f);
}

Test(texture, absent_and_broken_mip_levels)
{
    fixture f;
    fx_init(&f);
    fx_entry(&f, 0, 16, 16, 0, 0x20, -1);   /* no level 3 */
    fx_entry(&f, 0, 16, 16, 0, 0x7FFF, -1); /* level 2 past gs_ram */
    fx_entry(&f, 0, 4, 4, 0, 0x20, 0x21);   /* 4x4: level 3 would be 0x0 */
    size_t n;
    const gc_texture_row *r = fx_run(&f, &n);
    cr_assert_eq(r[0].mip_levels, 3);
    cr_assert_eq(r[1].mip_levels, 2);
    cr_assert_eq(r[2].mip_levels, 3);
    uint8_t *rgba;
    uint32_t w, h;
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 0, 3, 1, &rgba, &w, &h, &d), GC_E_UNSUPPORTED);
    cr_assert_eq(d.file_ofs, 0x5000 + TEX_TABLE_OFS + 0xe);
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 1, 2, 1, &rgba, &w, &h, &d), GC_E_TRUNCATED);
    cr_assert_eq(d.file_ofs, 0x9000 + 0x7FFFull * 0x100);
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 2, 3, 1, &rgba, &w, &h, &d), GC_E_RANGE);
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 0, 4, 1, &rgba, &w, &h, &d), GC_E_RANGE);
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 0, -1, 1, &rgba, &w, &h, &d), GC_E_RANGE);
    cr_assert(rgba == NULL);
    fx_free(&f);
}

Test(texture, buffers_outside_give_pixels_ok_false_and_errors)
{
    fixture f;
    fx_init(&f);
    fx_entry(&f, 0, 16, 16, GS_BYTES / 0x100 - 3, -1, -1); /* CLUT 1 KiB crosses the end */
    fx_entry(&f, CD_BYTES - TEXTURES_BASE - 255, 16, 16, 0, -1, -1); /* indices cross the end */
    fx_entry(&f, -TEXTURES_BASE - 1, 16, 16, 0, -1, -1);             /* before core_data */
    fx_entry(&f, 0, 0, 16, 0, -1, -1);                               /* zero width */
    fx_entry(&f, 0, -16, 16, 0, -1, -1);                             /* negative width */
    fx_entry(&f, 0, 2048, 16, 0, -1, -1);                            /* wider than the GS */
    fx_entry(&f, 0, 16, 16, -1, -1, -1);                             /* negative palette */
    fx_entry(&f, CD_BYTES - TEXTURES_BASE - 256, 16, 16, GS_BYTES / 0x100 - 4, -1, -1); /* fits */
    size_t n;
    const gc_texture_row *r = fx_run(&f, &n);
    cr_assert_eq(n, 8);
    for (size_t i = 0; i < 7; i++) {
        cr_assert_eq(r[i].pixels_ok, 0, "row %zu", i);
        cr_assert_eq(r[i].fully_opaque, 0);
        cr_assert(isnan(r[i].frac_transparent));
        cr_assert_eq(r[i].distinct_colors, UINT32_MAX, "null");
    }
    cr_assert_eq(r[7].pixels_ok, 1, "a texture ending exactly at both ends is inside");
    uint8_t *rgba;
    uint32_t w, h;
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 0, 0, 1, &rgba, &w, &h, &d), GC_E_TRUNCATED);
    cr_assert_eq(d.file_ofs, 0x5000 + TEX_TABLE_OFS + 0xa, "points at the palette field");
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 1, 0, 1, &rgba, &w, &h, &d), GC_E_TRUNCATED);
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 3, 0, 1, &rgba, &w, &h, &d), GC_E_RANGE);
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 5, 0, 1, &rgba, &w, &h, &d), GC_E_RANGE);
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 8, 0, 1, &rgba, &w, &h, &d), GC_E_RANGE, "no texture 8");
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 7, 0, 1, &rgba, &w, &h, &d), GC_OK);
    free(rgba);
    fx_free(&f);
}

Test(texture, table_past_core_index_is_an_error)
{
    fixture f;
    fx_init(&f);
    f.lv.core.tfrag_textures.count = (CI_BYTES - TEX_TABLE_OFS) / 16 + 1;
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_texture.run(&f.lv, &d), GC_E_RANGE);
    cr_assert_eq(d.file_ofs, 0x5000 + TEX_TABLE_OFS);
    cr_assert(strstr(d.where, "tfrag_textures") != NULL, "breadcrumb '%s'", d.where);
    f.lv.core.tfrag_textures.count = 0x7FFFFFFF; /* count * 16 must not wrap into range */
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_texture.run(&f.lv, &d), GC_E_RANGE);
    f.lv.core.tfrag_textures.count = -1;
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_texture.run(&f.lv, &d), GC_E_RANGE);
    f.lv.core.tfrag_textures.count = 0;
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_texture.run(&f.lv, &d), GC_OK, "an empty table is fine");
    fx_free(&f);
}

Test(texture, missing_inputs_are_a_skip_not_an_error)
{
    fixture f;
    fx_init(&f);
    f.lv.core_ok = false;
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_texture.run(&f.lv, &d), GC_E_UNSUPPORTED);
    cr_assert(strncmp(d.msg, "needs ", 6) == 0, "msg '%s'", d.msg);
    f.lv.core_ok = true;
    f.lv.data_ok = false;
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_texture.run(&f.lv, &d), GC_E_UNSUPPORTED);
    cr_assert(strncmp(d.msg, "needs ", 6) == 0);
    uint8_t *rgba;
    uint32_t w, h;
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 0, 0, 1, &rgba, &w, &h, &d), GC_E_UNSUPPORTED);
    fx_free(&f);
}

#if GC_FAULTS_BUILT
Test(texture, fault_no_csm1_makes_the_raw_order_look_smoother)
{
    fixture f;
    fx_init(&f);
    fx_entry(&f, 0, 2, 1, 0, -1, -1);
    for (uint32_t i = 0; i < 256; i++)
        fx_clut_logical(&f, 0, i, (uint8_t)i, 0, 0, 0x80);
    fx_pixels(&f, 0)[0] = 7;
    fx_pixels(&f, 0)[1] = 8;
    f.lv.fault = GC_FAULT_no_csm1;
    size_t n;
    const gc_texture_row *r = fx_run(&f, &n);
    cr_assert(r[0].tv_csm1 == 9.0 && r[0].tv_raw == 1.0);
    fx_free(&f);
}

Test(texture, fault_alpha_255_loses_opacity)
{
    fixture f;
    fx_init(&f);
    fx_entry(&f, 0, 2, 1, 0, -1, -1);
    fx_clut_logical(&f, 0, 0, 1, 2, 3, 0x80);
    f.lv.fault = GC_FAULT_alpha_255;
    size_t n;
    const gc_texture_row *r = fx_run(&f, &n);
    cr_assert_eq(r[0].fully_opaque, 0);
    uint8_t *rgba;
    uint32_t w, h;
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&f.lv, 0, 0, 1, &rgba, &w, &h, &d), GC_OK);
    cr_assert_eq(rgba[3], 0x40, "0x80 read as 0..255 is half of 1.0");
    free(rgba);
    fx_free(&f);
}
#endif

/* ---- the small synthetic corpus: decoded totals against the writer's plan */

Test(texture, synthetic_corpus_matches_plan_and_shape)
{
    sy_options o = {SY_SCALE_SMALL, 1};
    size_t total = 0, opaque = 0, many = 0, smoother = 0, varied = 0;
    for (int i = 0; i < SY_LEVEL_COUNT; i++) {
        const sy_level_plan *p = sy_plan(SY_SCALE_SMALL, i);
        cr_assert_not_null(p);
        sy_buf b;
        sy_buf_init(&b);
        cr_assert_eq(sy_level_build(&o, i, &b), 0);
        gc_level lv;
        cr_assert_eq(gc_level_init(&lv, i, "LEVEL.WAD", b.data, b.len), GC_OK);
        gc_level_decode(&lv);
        gc_rowbuf *st = gc_level_rows(&lv, &gc_table_decode_status);
        int found = 0;
        for (size_t k = 0; k < st->count; k++) {
            const gc_decode_status_row *r = gc_rows_at(st, k);
            if (strcmp(r->name, "texture") == 0) {
                cr_assert(r->ok, "level %d: %s %s", i, r->where, r->message);
                found = 1;
            }
        }
        cr_assert(found, "the texture decoder is registered");
        gc_rowbuf *rb = gc_level_rows(&lv, gc_dec_texture.tables[0]);
        cr_assert_eq(rb->count, p->tfrag_textures, "level %d", i);
        for (size_t k = 0; k < rb->count; k++) {
            const gc_texture_row *r = gc_rows_at(rb, k);
            cr_assert(r->pixels_ok, "level %d texture %zu", i, k);
            cr_assert_geq(r->mip_levels, 2, "level %d texture %zu", i, k);
            cr_assert_eq(r->width, r->height, "tfrag textures are square");
            total++;
            opaque += r->fully_opaque;
            many += r->distinct_colors > 8;
            if (r->tv_raw > 0) {
                varied++;
                smoother += r->tv_csm1 < r->tv_raw;
            }
        }
        gc_level_free(&lv);
        sy_buf_free(&b);
    }
    /* the corpus invariants of invariants/texture.yaml, with the retail shape */
    cr_assert_geq(opaque * 100, total * 90, "%zu of %zu fully opaque", opaque, total);
    cr_assert_lt(opaque, total, "some textures have transparent texels (grilles)");
    cr_assert_geq(many * 100, total * 90, "%zu of %zu with > 8 colours", many, total);
    cr_assert_geq(smoother * 100, varied * 75, "%zu of %zu smoother with CSM1", smoother, varied);
}

/* ---- PNG output and gcverify dump-texture --------------------------- */

static uint8_t *png_read(const char *path, uint32_t *w, uint32_t *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path))
        return NULL;
    img.format = PNG_FORMAT_RGBA;
    uint8_t *buf = malloc(PNG_IMAGE_SIZE(img));
    if (!buf || !png_image_finish_read(&img, NULL, buf, 0, NULL)) {
        free(buf);
        png_image_free(&img);
        return NULL;
    }
    *w = img.width;
    *h = img.height;
    return buf;
}

Test(texture, png_writer_round_trip_and_failures)
{
    char dir[] = "/tmp/gc_png_XXXXXX";
    cr_assert(mkdtemp(dir) != NULL);
    char path[256], bad[256];
    snprintf(path, sizeof path, "%s/t.png", dir);
    snprintf(bad, sizeof bad, "%s/missing/t.png", dir);
    uint8_t px[3 * 2 * 4];
    for (size_t i = 0; i < sizeof px; i++)
        px[i] = (uint8_t)(i * 37 + 5);
    char err[256];
    cr_assert_eq(gc_png_write_rgba(path, px, 3, 2, err, sizeof err), 0, "%s", err);
    uint32_t w = 0, h = 0;
    uint8_t *back = png_read(path, &w, &h);
    cr_assert_not_null(back);
    cr_assert(w == 3 && h == 2);
    cr_assert(memcmp(back, px, sizeof px) == 0, "RGBA bytes survive exactly");
    free(back);
    /* same pixels, same bytes: nothing time- or build-dependent in the file */
    char path2[256];
    snprintf(path2, sizeof path2, "%s/t2.png", dir);
    cr_assert_eq(gc_png_write_rgba(path2, px, 3, 2, err, sizeof err), 0);
    FILE *a = fopen(path, "rb"), *b = fopen(path2, "rb");
    uint8_t fa[4096], fb[4096];
    size_t na = fread(fa, 1, sizeof fa, a), nb = fread(fb, 1, sizeof fb, b);
    fclose(a);
    fclose(b);
    cr_assert(na == nb && memcmp(fa, fb, na) == 0);
    err[0] = '\0';
    cr_assert_eq(gc_png_write_rgba(bad, px, 3, 2, err, sizeof err), -1);
    cr_assert(err[0] != '\0');
    cr_assert_eq(gc_png_write_rgba(path, px, 0, 2, err, sizeof err), -1, "empty image");
    cr_assert_eq(gc_png_write_rgba(path, NULL, 3, 2, err, sizeof err), -1);
    unlink(path);
    unlink(path2);
    cr_assert_eq(rmdir(dir), 0, "no temporary file left behind");
}

int gc_cmd_dump_texture(int argc, char **argv);

Test(texture, dump_texture_writes_the_decoded_image)
{
    char dir[] = "/tmp/gc_dumptex_XXXXXX";
    cr_assert(mkdtemp(dir) != NULL);
    char lvl[256], png[256];
    snprintf(lvl, sizeof lvl, "%s/level0.wad", dir); /* any case */
    snprintf(png, sizeof png, "%s/t.png", dir);
    sy_options o = {SY_SCALE_SMALL, 1};
    sy_buf b;
    sy_buf_init(&b);
    cr_assert_eq(sy_level_build(&o, 0, &b), 0);
    FILE *f = fopen(lvl, "wb");
    cr_assert_eq(fwrite(b.data, 1, b.len, f), b.len);
    fclose(f);

    char *argv[] = {"dump-texture", "--corpus", dir,  "--level", "0", "--texture", "0",
                    "--mip",        "1",        "-o", png,       NULL};
    cr_assert_eq(gc_cmd_dump_texture(11, argv), 0);
    uint32_t w = 0, h = 0;
    uint8_t *img = png_read(png, &w, &h);
    cr_assert_not_null(img);
    /* the same pixels through the API, alpha expanded to 0..255 */
    gc_level lv;
    gc_level_init(&lv, 0, "LEVEL0.WAD", b.data, b.len);
    gc_level_decode(&lv);
    uint8_t *rgba;
    uint32_t tw, th;
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_texture_rgba(&lv, 0, 1, 0, &rgba, &tw, &th, &d), GC_OK, "%s", d.msg);
    cr_assert(w == tw && h == th);
    cr_assert(memcmp(img, rgba, (size_t)w * h * 4) == 0);
    free(rgba);
    free(img);
    gc_level_free(&lv);

    char *bad_tex[] = {"dump-texture", "--corpus", dir,  "--level", "0",
                       "--texture",    "99999",    "-o", png,       NULL};
    unlink(png);
    cr_assert_eq(gc_cmd_dump_texture(9, bad_tex), 1);
    cr_assert(access(png, F_OK) != 0, "no PNG for a texture that does not exist");
    char *no_out[] = {"dump-texture", "--level", "0", "--texture", "0", NULL};
    cr_assert_eq(gc_cmd_dump_texture(5, no_out), 2);
    char *bad_mip[] = {"dump-texture", "--level", "0",  "--texture", "0",
                       "--mip",        "4",       "-o", png,         NULL};
    cr_assert_eq(gc_cmd_dump_texture(9, bad_mip), 2);
    unlink(lvl);
    sy_buf_free(&b);
    cr_assert_eq(rmdir(dir), 0);
}

/* gc_texture_indexed_kind: the texels in place (a pointer into core_data or
 * gs_ram, where mip_levels_are_where_the_notes_put_them puts each level) and
 * the CLUT in logical order with the alpha rule, so that expanding them gives
 * gc_texture_rgba's bytes; a texture that fails fails with the same status
 * and offset either way. */
Test(texture, indexed_texels_in_place_and_their_clut)
{
    fixture f;
    fx_init(&f);
    fx_entry(&f, 0x40, 16, 16, 2, 0x20, 0x21);
    fx_entry(&f, 0, 16, 16, GS_BYTES / 0x100 - 3, -1, -1); /* CLUT crosses the end */
    fx_entry(&f, 0, 16, 16, 0, 0x20, -1);                  /* no level 3 */
    static const uint8_t alphas[5] = {0x00, 0x10, 0x7F, 0x80, 0xC0};
    for (uint32_t i = 0; i < 256; i++)
        fx_clut_logical(&f, 2, i, (uint8_t)i, (uint8_t)(255 - i), (uint8_t)(i * 7), alphas[i % 5]);
    uint8_t *p = fx_pixels(&f, 0x40);
    for (int i = 0; i < 256 + 64; i++)
        p[i] = (uint8_t)(i * 13 + 5);
    for (int i = 0; i < 16; i++)
        f.gs[0x20 * 0x100 + i] = (uint8_t)(200 - i);
    for (int i = 0; i < 4; i++)
        f.gs[0x21 * 0x100 + i] = (uint8_t)(i * 60);
    const uint8_t *const want_at[4] = {p, p + 256, f.gs + 0x20 * 0x100, f.gs + 0x21 * 0x100};
    size_t compared = 0;
    for (uint32_t tex = 0; tex < 4; tex++)
        for (int m = 0; m < 4; m++)
            for (int ps2 = 0; ps2 < 2; ps2++) {
                uint8_t *rgba = NULL;
                uint32_t w0 = 0, h0 = 0, w1 = 9, h1 = 9, clut[GC_TEXTURE_CLUT_ENTRIES];
                const uint8_t *texels = p;
                gc_diag d0, d1;
                gc_diag_init(&d0);
                gc_diag_init(&d1);
                gc_status s0 = gc_texture_rgba(&f.lv, tex, m, ps2, &rgba, &w0, &h0, &d0);
                gc_status s1 = gc_texture_indexed_kind(&f.lv, GC_TEXTURE_TFRAG, tex, m, ps2,
                                                       &texels, clut, &w1, &h1, &d1);
                cr_assert_eq(s1, s0, "texture %u mip %d", tex, m);
                cr_assert_eq(d1.file_ofs, d0.file_ofs, "texture %u mip %d", tex, m);
                if (s0 != GC_OK) {
                    cr_assert(texels == NULL && w1 == 0 && h1 == 0);
                    continue;
                }
                cr_assert(w1 == w0 && h1 == h0);
                if (tex == 0)
                    cr_assert_eq(texels, want_at[m], "mip %d read in place", m);
                for (uint32_t k = 0; k < w0 * h0; k++)
                    cr_assert_eq(memcmp(&clut[texels[k]], rgba + 4 * k, 4), 0,
                                 "texture %u mip %d ps2 %d texel %u", tex, m, ps2, k);
                /* the CLUT may be left out: the same answer, nothing written */
                const uint8_t *again = NULL;
                cr_assert_eq(gc_texture_indexed_kind(&f.lv, GC_TEXTURE_TFRAG, tex, m, ps2, &again,
                                                     NULL, &w1, &h1, &d1),
                             GC_OK);
                cr_assert_eq(again, texels);
                free(rgba);
                compared++;
            }
    cr_assert_eq(compared, 2 * (4 + 3), "texture 0 all four levels, texture 2 three");
    /* the alpha rule in the CLUT itself, entry by entry */
    const uint8_t *texels;
    uint32_t w, h, clut[GC_TEXTURE_CLUT_ENTRIES];
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(
        gc_texture_indexed_kind(&f.lv, GC_TEXTURE_TFRAG, 0, 0, 1, &texels, clut, &w, &h, &d),
        GC_OK);
    for (uint32_t i = 0; i < 256; i++) {
        uint8_t c[4];
        memcpy(c, &clut[i], 4);
        cr_assert_eq(c[0], (uint8_t)i, "entry %u is logical, not stored, order", i);
        cr_assert_eq(c[3], alphas[i % 5] > 0x80 ? 0x80 : alphas[i % 5]);
    }
    cr_assert_eq(gc_texture_indexed_kind(&f.lv, 7, 0, 0, 1, &texels, clut, &w, &h, &d), GC_E_RANGE);
    fx_free(&f);
}
