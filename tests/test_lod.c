/* SPDX-License-Identifier: MIT */
/* Tests of tfrag LOD selection (decoders/gc_lod.h) and the lod.sweep table:
 * the six modes at the fixed-point thresholds trunc(D * 1024), the sphere
 * (not its centre) being tested, morph weights, monotonicity over random
 * spheres, and the sweep the lod decoder publishes. */
#include <criterion/criterion.h>
#include <string.h>

#include "gc_level.h"
#include "gc_lod.h"
#include "tfrag_fixture.h"

extern const gc_decoder gc_dec_tfrag, gc_dec_lod;

static gc_lod_pick at(float x, float r, float ex)
{
    const float s[4] = {x, 0.0f, 0.0f, r};
    const float e[3] = {ex, 0.0f, 0.0f};
    return gc_lod_select(32.0f, s, e, 0);
}

Test(lod, point_thresholds)
{
    /* L = 32: D = [192, 128, 64] */
    cr_assert_eq(at(0, 0, 0).mode, GC_LOD_MODE_0);
    cr_assert_eq(at(0, 0, 63.99f).mode, GC_LOD_MODE_0);
    cr_assert_eq(at(0, 0, 64.0f).mode, GC_LOD_MODE_0_MORPH);
    cr_assert_eq(at(0, 0, 127.99f).mode, GC_LOD_MODE_0_MORPH);
    cr_assert_eq(at(0, 0, 128.0f).mode, GC_LOD_MODE_1_MORPH);
    cr_assert_eq(at(0, 0, 191.99f).mode, GC_LOD_MODE_1_MORPH);
    cr_assert_eq(at(0, 0, 192.0f).mode, GC_LOD_MODE_2);
    cr_assert_eq(at(0, 0, -500.0f).mode, GC_LOD_MODE_2);
    cr_assert_eq(at(0, 0, 500.0f).strip_lod, 2);
}

Test(lod, fixed_point_truncation)
{
    /* The centre 0.0009 truncates to 0 and the eye 64.0005 to 65536 = T2:
     * in fixed point the eye is exactly at D2 (morph), although the float
     * distance 63.9996 is short of 64. */
    gc_lod_pick p = at(0.0009f, 0.0f, 64.0005f);
    cr_assert_eq(p.mode, GC_LOD_MODE_0_MORPH);
    /* 63.9999 truncates to 65535: still inside D2 */
    cr_assert_eq(at(0.0f, 0.0f, 63.9999f).mode, GC_LOD_MODE_0);
    /* a negative coordinate truncates toward zero: -0.0009 -> 0 */
    const float s[4] = {-0.0009f, 0, 0, 0};
    const float e[3] = {63.9996f, 0, 0};
    cr_assert_eq(gc_lod_select(32.0f, s, e, 0).mode, GC_LOD_MODE_0);
}

Test(lod, the_sphere_is_tested_not_the_centre)
{
    /* radius 10, L = 32 */
    cr_assert_eq(at(0, 10, 50).mode, GC_LOD_MODE_0);           /* far 60 < 64 */
    cr_assert_eq(at(0, 10, 60).mode, GC_LOD_MODE_0_MORPH);     /* far 70 >= 64, centre 60 < 64 */
    cr_assert_eq(at(0, 0, 60).mode, GC_LOD_MODE_0);            /* the centre alone: finer */
    cr_assert_eq(at(0, 10, 125).mode, GC_LOD_MODE_0_COLLAPSE); /* near 115 < 128 <= far 135 */
    cr_assert_eq(at(0, 10, 125).strip_lod, 0);
    cr_assert_eq(at(0, 10, 125).morph_lod0, 0.0f);
    cr_assert_eq(at(0, 10, 140).mode, GC_LOD_MODE_1_MORPH);    /* near 130 >= 128, far 150 < 192 */
    cr_assert_eq(at(0, 10, 185).mode, GC_LOD_MODE_1_COLLAPSE); /* near 175 < 192 <= far 195 */
    cr_assert_eq(at(0, 10, 185).morph_lod01, 0.0f);
    cr_assert_eq(at(0, 10, 185).strip_lod, 1);
    cr_assert_eq(at(0, 10, 203).mode, GC_LOD_MODE_2); /* near 193 */
    /* the eye inside the sphere */
    cr_assert_eq(at(0, 300, 0).mode, GC_LOD_MODE_1_COLLAPSE);
}

Test(lod, morph_weights_across_their_bands)
{
    gc_lod_pick p = at(0, 0, 96.0f);
    cr_assert_eq(p.mode, GC_LOD_MODE_0_MORPH);
    cr_assert_float_eq(p.morph_lod0, 0.5f, 1e-6);
    cr_assert_eq(p.morph_lod01, 1.0f);
    p = at(0, 0, 160.0f);
    cr_assert_eq(p.mode, GC_LOD_MODE_1_MORPH);
    cr_assert_float_eq(p.morph_lod01, 0.5f, 1e-6);
    cr_assert_eq(p.morph_lod0, 0.0f);
    p = at(0, 0, 10.0f);
    cr_assert_eq(p.morph_lod0, 1.0f);
    cr_assert_eq(p.morph_lod01, 1.0f);
    /* the far edge drives the weight: radius 16 at 80 has f = 96 */
    p = at(0, 16, 80.0f);
    cr_assert_float_eq(p.morph_lod0, 0.5f, 1e-6);
}

Test(lod, scale_follows_the_block_float)
{
    const float s[4] = {0, 0, 0, 0};
    const float e[3] = {100, 0, 0};
    /* L = 16: D = [96, 64, 32] */
    cr_assert_eq(gc_lod_select(16.0f, s, e, 0).mode, GC_LOD_MODE_2);
    /* L = 64: D = [384, 256, 128] */
    cr_assert_eq(gc_lod_select(64.0f, s, e, 0).mode, GC_LOD_MODE_0);
    /* hostile values: deterministic, no UB */
    const float nan_s[4] = {__builtin_nanf(""), 1e30f, -1e30f, __builtin_nanf("")};
    gc_lod_pick p = gc_lod_select(__builtin_nanf(""), nan_s, e, 0);
    cr_assert(p.mode >= GC_LOD_MODE_2 && p.mode <= GC_LOD_MODE_0);
    p = gc_lod_select(-32.0f, s, e, 0);
    cr_assert(p.mode >= GC_LOD_MODE_2 && p.mode <= GC_LOD_MODE_0);
}

Test(lod, walking_away_never_refines)
{
    uint32_t x = 12345;
    for (int trial = 0; trial < 2000; trial++) {
        x = x * 1664525u + 1013904223u;
        float r = (float)(x >> 20) / 64.0f; /* 0..64 */
        x = x * 1664525u + 1013904223u;
        float cx = (float)(int32_t)(x >> 12) / 256.0f - 8000.0f;
        const float s[4] = {cx, 10.0f, -20.0f, r};
        gc_lod_mode last = GC_LOD_MODE_0;
        float w0 = 1.0f, w01 = 1.0f;
        for (int k = 0; k <= 400; k++) {
            float d = (float)k;
            const float e[3] = {cx + 0.6f * d, 10.0f, -20.0f + 0.8f * d};
            gc_lod_pick p = gc_lod_select(32.0f, s, e, 0);
            cr_assert_leq(p.mode, last, "trial %d step %d", trial, k);
            cr_assert_leq(p.morph_lod0, w0);
            cr_assert_leq(p.morph_lod01, w01);
            cr_assert(p.morph_lod0 >= 0.0f && p.morph_lod01 >= 0.0f);
            cr_assert_eq(p.strip_lod, p.mode >= GC_LOD_MODE_0_COLLAPSE   ? 0
                                      : p.mode >= GC_LOD_MODE_1_COLLAPSE ? 1
                                                                         : 2);
            last = p.mode;
            w0 = p.morph_lod0;
            w01 = p.morph_lod01;
        }
        cr_assert_eq(last, GC_LOD_MODE_2);
    }
}

Test(lod, mode_names)
{
    cr_assert_str_eq(gc_lod_mode_name(GC_LOD_MODE_2), "lod2");
    cr_assert_str_eq(gc_lod_mode_name(GC_LOD_MODE_0_COLLAPSE), "lod0_collapse");
    cr_assert_str_eq(gc_lod_mode_name(GC_LOD_MODE_0), "lod0");
    cr_assert_str_eq(gc_lod_mode_name((gc_lod_mode)9), "?");
}

static const gc_rowbuf *rows(gc_level *lv, const char *name)
{
    for (size_t i = 0; i < lv->table_count; i++)
        if (strcmp(lv->tables[i].desc->name, name) == 0)
            return &lv->tables[i];
    cr_assert_fail("no table %s", name);
    return NULL;
}

typedef struct sweep_row_view {
    uint32_t patch_row;
    uint16_t step;
    uint8_t mode, mode_by_centre, straddles, straddles_far;
    float distance;
} sweep_row_view;

static sweep_row_view view(const gc_rowbuf *rb, size_t i)
{
    sweep_row_view v;
    const uint8_t *row = rb->data + i * rb->desc->row_size;
    for (size_t c = 0; c < rb->desc->column_count; c++) {
        const gc_column *col = &rb->desc->columns[c];
        const uint8_t *p = row + col->offset;
        if (!strcmp(col->name, "patch_row"))
            memcpy(&v.patch_row, p, 4);
        else if (!strcmp(col->name, "step"))
            memcpy(&v.step, p, 2);
        else if (!strcmp(col->name, "mode"))
            v.mode = *p;
        else if (!strcmp(col->name, "mode_by_centre"))
            v.mode_by_centre = *p;
        else if (!strcmp(col->name, "straddles"))
            v.straddles = *p;
        else if (!strcmp(col->name, "straddles_far"))
            v.straddles_far = *p;
        else if (!strcmp(col->name, "distance"))
            memcpy(&v.distance, p, 4);
    }
    return v;
}

Test(lod, sweep_over_decoded_patches)
{
    tf_core c;
    tf_build(&c, 3, NULL);
    gc_level lv;
    cr_assert_eq(gc_level_init(&lv, 0, "TEST", NULL, 0), GC_OK);
    lv.core_data = malloc(c.n);
    memcpy(lv.core_data, c.b, c.n);
    lv.core_data_size = c.n;
    lv.core.tfrags = c.tfrags;
    lv.core.occlusion = c.occlusion;
    lv.core_ok = true;
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_lod.run(&lv, &d), GC_E_UNSUPPORTED, "lod needs tfrag first");
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_tfrag.run(&lv, &d), GC_OK);
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_lod.run(&lv, &d), GC_OK, "%s", d.msg);

    const gc_rowbuf *sw = rows(&lv, "lod.sweep");
    cr_assert_eq(sw->count, 3 * 24);
    size_t straddling = 0;
    for (size_t i = 0; i < sw->count; i++) {
        sweep_row_view v = view(sw, i);
        cr_assert_eq(v.patch_row, i / 24);
        cr_assert_eq(v.step, i % 24);
        if (i % 24) {
            sweep_row_view prev = view(sw, i - 1);
            cr_assert_leq(v.mode, prev.mode, "row %zu", i);
            cr_assert_geq(v.distance, prev.distance);
        }
        {
            /* the sweep's mode is what the public rule picks at that eye */
            const gc_rowbuf *pt = rows(&lv, "tfrag.patch");
            float sph[4];
            static const char *const cn[4] = {"cx", "cy", "cz", "radius"};
            for (int k = 0; k < 4; k++)
                for (size_t cc = 0; cc < pt->desc->column_count; cc++)
                    if (!strcmp(pt->desc->columns[cc].name, cn[k]))
                        memcpy(&sph[k],
                               pt->data + v.patch_row * pt->desc->row_size +
                                   pt->desc->columns[cc].offset,
                               4);
            const float eye[3] = {sph[0] + v.distance * 0.6f, sph[1] + v.distance * 0.0f,
                                  sph[2] + v.distance * 0.8f};
            cr_assert_eq(gc_lod_select(32.0f, sph, eye, 0).mode, v.mode, "row %zu", i);
        }
        if (v.straddles_far) {
            straddling++;
            cr_assert_lt(v.mode, v.mode_by_centre, "row %zu", i);
            cr_assert(v.straddles);
        }
    }
    /* the probes at D - r/2: one straddling row per threshold per patch at least */
    cr_assert_geq(straddling, 3 * 3);
    gc_level_free(&lv);
}

#if GC_FAULTS_BUILT
Test(lod, lod_centre_fault_tests_the_centre)
{
    const float s[4] = {0, 0, 0, 10};
    const float e[3] = {60, 0, 0};
    cr_assert_eq(gc_lod_select(32.0f, s, e, 0).mode, GC_LOD_MODE_0_MORPH);
    cr_assert_eq(gc_lod_select(32.0f, s, e, GC_FAULT_lod_centre).mode, GC_LOD_MODE_0);
}
#endif
