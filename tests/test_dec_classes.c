/* SPDX-License-Identifier: MIT */
/* Tests of the moby, tie and shrub decoders (decoders/dec_moby.c,
 * dec_tie.c, dec_shrub.c): class rows and spans, the moby packet run and its
 * zero/zero terminator, tie's verified header prefix, shrub's
 * self-identifying words, and tables or offsets out of place. */
#include <criterion/criterion.h>
#include <math.h>

#include "dec_fixture.h"
#include "synth_level.h"

static fx_level fx;

static void setup(void)
{
    fx_parts(&fx);
}
static void teardown(void)
{
    fx_release(&fx);
}

TestSuite(dec_classes, .init = setup, .fini = teardown);

static void decode(gc_level *lv)
{
    fx_assemble(&fx);
    fx_decode(lv, fx.file.p, fx.file.len);
}

Test(dec_classes, moby_class_and_packets)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "moby")->ok, "%s", fx_status(&lv, "moby")->message);
    cr_assert_eq(fx_rows(&lv, "moby.class")->count, 1);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "o_class"), FX_MOBY_OCLASS);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "offset_in_asset_wad"), FX_CD_MOBY);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "span_bytes"), FX_CD_TIE - FX_CD_MOBY);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "file_ofs"),
                 (double)(fx.data_ofs + fx.ci_ofs + FX_CI_MOBY));
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "high_lod_count"), 2);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "joint_count"), 3);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "scale"), 0.25);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "packets"), 2);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "lod_packet_count"), 2);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "terminated"), 1);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "zero_zero_terminators"), 1);
    cr_assert_eq(fx_rows(&lv, "moby.packet")->count, 2);
    for (size_t i = 0; i < 2; i++) {
        cr_assert_eq(fx_col(&lv, "moby.packet", i, "identity_ok"), 1);
        cr_assert_eq(fx_col(&lv, "moby.packet", i, "class_row"), 0);
        cr_assert_eq(fx_col(&lv, "moby.packet", i, "file_ofs"),
                     FX_CD_MOBY + 0x50 + 16.0 * (double)i);
    }
    cr_assert_eq(fx_col(&lv, "moby.packet", 1, "vif_list_size_qwords"), 1);
    cr_assert_eq(fx_col(&lv, "moby.packet", 1, "vertex_offset"), 0xD0);
    gc_level_free(&lv);
}

Test(dec_classes, moby_identity_broken_is_a_row_value)
{
    fx_set_u32(&fx.core_data, FX_CD_MOBY + 0x68, 0xD4); /* vertex_offset != 0xC0 + 16 */
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "moby")->ok);
    cr_assert_eq(fx_col(&lv, "moby.packet", 1, "identity_ok"), 0);
    gc_level_free(&lv);
}

Test(dec_classes, moby_run_bounded_by_span)
{
    /* no terminator: the run stops at the lowest VIF list, not in garbage */
    fx_set_u16(&fx.core_data, FX_CD_MOBY + 0x74, 0);
    fx_set_u32(&fx.core_data, FX_CD_MOBY + 0x70, 0x90);
    fx_set_u32(&fx.core_data, FX_CD_MOBY + 0x78, 0x90);
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "moby")->ok);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "packets"), 3);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "terminated"), 0);
    gc_level_free(&lv);
}

#if GC_FAULTS_BUILT
Test(dec_classes, fault_moby_zero_next_takes_terminator)
{
    fx_assemble(&fx);
    gc_level lv;
    gc_level_init(&lv, 3, "LEVEL3.WAD", fx.file.p, fx.file.len);
    lv.fault = GC_FAULT_moby_zero_next;
    gc_level_decode(&lv);
    cr_assert_eq(fx_rows(&lv, "moby.packet")->count, 3);
    cr_assert_eq(fx_col(&lv, "moby.packet", 2, "zero_zero"), 1);
    cr_assert_eq(fx_col(&lv, "moby.packet", 2, "identity_ok"), 0);
    gc_level_free(&lv);
}

Test(dec_classes, fault_shrub_stride_misreads)
{
    /* two shrub entries so the 0x20 stride lands inside the table */
    fx_set_u32(&fx.core_index, 0x28, 2);
    fx_assemble(&fx);
    gc_level lv;
    gc_level_init(&lv, 3, "LEVEL3.WAD", fx.file.p, fx.file.len);
    lv.fault = GC_FAULT_shrub_stride;
    gc_level_decode(&lv);
    cr_assert_eq(fx_rows(&lv, "shrub.class")->count, 2);
    /* entry 1 at +0x20 reads the billboard slots and texture bytes: no header */
    cr_assert_eq(fx_col(&lv, "shrub.class", 1, "header_read"), 0);
    gc_level_free(&lv);
}
#endif

Test(dec_classes, tie_prefix)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "tie")->ok);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "header_o_class"), FX_TIE_OCLASS);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "o_class"), FX_TIE_OCLASS);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "near_dist"), 12.0);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "far_dist"), 40.0);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "lod_ordered"), 1);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "packets_inside"), 1);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "packet_ofs_2"), 0xA0);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "span_bytes"), FX_CD_SHRUB - FX_CD_TIE);
    gc_level_free(&lv);
    fx_set_f32(&fx.core_data, FX_CD_TIE + 0x14, 50.0f); /* mid > far */
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "lod_ordered"), 0);
    gc_level_free(&lv);
}

Test(dec_classes, shrub_words)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "shrub")->ok);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "span_o_class"), FX_SHRUB_OCLASS);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "data_ofs"), 0x60);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "data_ofs_inside"), 1);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "mip_distance"), 5.0);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "file_ofs"),
                 (double)(fx.data_ofs + fx.ci_ofs + FX_CI_SHRUB));
    gc_level_free(&lv);
    fx_set_u32(&fx.core_data, FX_CD_SHRUB + 0x2c, 0x100); /* == span: outside */
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "data_ofs_inside"), 0);
    gc_level_free(&lv);
}

Test(dec_classes, table_past_core_index)
{
    const struct {
        size_t count_at;
        const char *dec, *crumb;
    } cases[3] = {{0x18, "moby", "moby_classes"},
                  {0x20, "tie", "tie_classes"},
                  {0x28, "shrub", "shrub_classes"}};
    for (int i = 0; i < 3; i++) {
        fx_release(&fx);
        fx_parts(&fx);
        fx_set_u32(&fx.core_index, cases[i].count_at, 100);
        gc_level lv;
        decode(&lv);
        const gc_decode_status_row *r = fx_status(&lv, cases[i].dec);
        cr_assert_eq(r->status, GC_E_RANGE, "%s", cases[i].dec);
        cr_assert(strstr(r->where, cases[i].crumb) != NULL, "where '%s'", r->where);
        cr_assert_eq(fx_rows(&lv, "moby.class")->count, i == 0 ? 0u : 1u);
        gc_level_free(&lv);
    }
    fx_release(&fx);
    fx_parts(&fx);
    fx_set_u32(&fx.core_index, 0x18, 0xFFFFFFFFu); /* negative count */
    gc_level lv;
    decode(&lv);
    cr_assert_eq(fx_status(&lv, "moby")->status, GC_E_RANGE);
    gc_level_free(&lv);
}

Test(dec_classes, offsets_outside_core_data_and_shared)
{
    fx_set_u32(&fx.core_index, FX_CI_MOBY, FX_CD_SIZE + 0x40); /* moby outside core_data */
    fx_set_u32(&fx.core_index, FX_CI_SHRUB, FX_CD_TIE);        /* shrub on the tie's offset */
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "moby")->ok);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "in_core_data"), 0);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "header_read"), 0);
    cr_assert_eq(fx_rows(&lv, "moby.packet")->count, 0);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "shares_offset"), 1);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "shares_offset"), 1);
    gc_level_free(&lv);
}

Test(dec_classes, zero_offset_means_no_geometry)
{
    fx_set_u32(&fx.core_index, FX_CI_TIE, 0);
    gc_level lv;
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "in_core_data"), 0);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "header_read"), 0);
    /* the moby span now runs to the shrub (the tie start is gone) */
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "span_bytes"), FX_CD_SHRUB - FX_CD_MOBY);
    gc_level_free(&lv);
}

/* The 27 small synthetic levels: every decoder of this file set succeeds
 * and the decoded totals equal the plan the writer used (tests may link
 * synth/; decoders/ never does). */
#include "sy_corpus.h"

Test(dec_classes, synthetic_corpus_matches_plan)
{
    sy_options o = {SY_SCALE_SMALL, 1};
    const char *mine[] = {"level",    "data",    "core",       "moby",      "tie", "shrub",
                          "gameplay", "normals", "sound_bank", "occlusion", "sky"};
    unsigned chunk_levels = 0;
    int32_t ids[SY_LEVEL_COUNT];
    for (int i = 0; i < SY_LEVEL_COUNT; i++) {
        const sy_level_plan *p = sy_plan(SY_SCALE_SMALL, i);
        cr_assert_not_null(p);
        sy_buf b;
        sy_buf_init(&b);
        cr_assert_eq(sy_level_build(&o, i, &b), 0);
        gc_level lv;
        gc_level_init(&lv, i, "LEVEL.WAD", b.data, b.len);
        gc_level_decode(&lv);
        for (size_t d = 0; d < sizeof mine / sizeof mine[0]; d++)
            cr_assert(fx_status(&lv, mine[d])->ok, "level %d %s: %s %s", i, mine[d],
                      fx_status(&lv, mine[d])->where, fx_status(&lv, mine[d])->message);
        ids[i] = (int32_t)fx_col(&lv, "level.header", 0, "level_id");
        cr_assert_eq(ids[i], p->level_id, "level %d", i);
        cr_assert_eq(lv.core_data_size, p->core_data_bytes, "level %d", i);
        cr_assert_eq(lv.core_index.size, p->core_index_bytes, "level %d", i);
        cr_assert_eq(lv.gs_ram.size, p->gs_ram_bytes, "level %d", i);
        cr_assert_eq(lv.overlay.size, p->overlay_bytes, "level %d", i);
        cr_assert_eq(fx_rows(&lv, "moby.class")->count, p->moby_classes, "level %d", i);
        cr_assert_eq(fx_rows(&lv, "tie.class")->count, p->tie_classes, "level %d", i);
        cr_assert_eq(fx_rows(&lv, "shrub.class")->count, p->shrub_classes, "level %d", i);
        cr_assert_eq(fx_rows(&lv, "moby.packet")->count, p->moby_packets, "level %d", i);
        unsigned zz = 0, moby_none = 0, tie_none = 0, shrub_none = 0, tie_bad_lod = 0;
        for (size_t k = 0; k < fx_rows(&lv, "moby.class")->count; k++) {
            zz += (unsigned)fx_col(&lv, "moby.class", k, "zero_zero_terminators");
            moby_none += fx_col(&lv, "moby.class", k, "offset_in_asset_wad") == 0;
        }
        for (size_t k = 0; k < fx_rows(&lv, "tie.class")->count; k++) {
            tie_none += fx_col(&lv, "tie.class", k, "offset_in_asset_wad") == 0;
            tie_bad_lod += fx_col(&lv, "tie.class", k, "header_read") == 1 &&
                           fx_col(&lv, "tie.class", k, "lod_ordered") == 0;
        }
        for (size_t k = 0; k < fx_rows(&lv, "shrub.class")->count; k++)
            shrub_none += fx_col(&lv, "shrub.class", k, "offset_in_asset_wad") == 0;
        cr_assert_eq(zz, p->moby_packets_zero_zero, "level %d", i);
        cr_assert_eq(moby_none, p->moby_classes_no_geometry, "level %d", i);
        cr_assert_eq(tie_none, p->tie_classes_no_geometry, "level %d", i);
        cr_assert_eq(shrub_none, p->shrub_classes_no_geometry, "level %d", i);
        cr_assert_eq(tie_bad_lod, p->tie_lod_out_of_order, "level %d", i);
        cr_assert_eq(fx_col(&lv, "normals.table", 0, "overlay_ofs"), p->normal_table_offset,
                     "level %d", i);
        cr_assert_eq(fx_col(&lv, "normals.table", 0, "entries_matched"), 256);
        if (lv.sound_bank.present)
            cr_assert_eq(lv.sound_bank.size, p->sound_bank_bytes, "level %d", i);
        chunk_levels += lv.chunks[0].present || lv.chunks[1].present || lv.chunks[2].present;
        cr_assert_eq(lv.chunks[0].present || lv.chunks[1].present || lv.chunks[2].present,
                     p->has_chunks != 0, "level %d", i);
        gc_level_free(&lv);
        sy_buf_free(&b);
    }
    cr_assert_eq(chunk_levels, 3);
    cr_assert_eq(ids[21], 30); /* container order is not level identity */
}

Test(dec_classes, span_clamped_to_core_data)
{
    /* a known start past the end of core_data (moby_sound_remap) must not
     * stretch the last class's span beyond the data */
    fx_set_u32(&fx.core_index, 0xb4, FX_CD_SIZE + 0x4000);
    gc_level lv;
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "span_bytes"), FX_CD_SIZE - FX_CD_SHRUB);
    gc_level_free(&lv);
}

/* The figures level-assets.md measured on the real disc, checked when a real
 * corpus is configured (GC_RETAIL_CORPUS=DIR with the 27 LEVEL*.WAD files);
 * skipped otherwise. Game files never go into git. */
#include "gc_corpus.h"

Test(dec_classes, retail_disc_figures)
{
    const char *dir = getenv("GC_RETAIL_CORPUS");
    if (!dir || !*dir)
        cr_skip_test("GC_RETAIL_CORPUS is not set: no real game files configured");
    static gc_corpus c;
    char err[512];
    cr_assert_eq(gc_corpus_open(&c, dir, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.found, 27, "%d of 27 level files found in %s", c.found, dir);
    unsigned moby = 0, tie = 0, shrub = 0, packets = 0, zz = 0, bad_lod = 0, chunks = 0;
    for (int i = 0; i < 27; i++) {
        gc_level lv;
        gc_level_init(&lv, i, c.files[i].name, c.files[i].data, c.files[i].size);
        gc_level_decode(&lv);
        const char *mine[] = {"level",    "data",    "core",       "moby",      "tie", "shrub",
                              "gameplay", "normals", "sound_bank", "occlusion", "sky"};
        for (size_t d = 0; d < sizeof mine / sizeof mine[0]; d++)
            cr_expect(fx_status(&lv, mine[d])->ok, "level %d %s: %s", i, mine[d],
                      fx_status(&lv, mine[d])->message);
        moby += (unsigned)fx_rows(&lv, "moby.class")->count;
        tie += (unsigned)fx_rows(&lv, "tie.class")->count;
        shrub += (unsigned)fx_rows(&lv, "shrub.class")->count;
        packets += (unsigned)fx_rows(&lv, "moby.packet")->count;
        for (size_t k = 0; k < fx_rows(&lv, "moby.class")->count; k++)
            zz += (unsigned)fx_col(&lv, "moby.class", k, "zero_zero_terminators");
        for (size_t k = 0; k < fx_rows(&lv, "moby.packet")->count; k++)
            cr_expect(fx_col(&lv, "moby.packet", k, "identity_ok") == 1, "level %d packet %zu", i,
                      k);
        for (size_t k = 0; k < fx_rows(&lv, "tie.class")->count; k++) {
            if (fx_col(&lv, "tie.class", k, "offset_in_asset_wad") == 0)
                continue;
            bad_lod += fx_col(&lv, "tie.class", k, "lod_ordered") == 0;
            cr_expect(fx_col(&lv, "tie.class", k, "header_o_class") ==
                      fx_col(&lv, "tie.class", k, "o_class"));
        }
        for (size_t k = 0; k < fx_rows(&lv, "shrub.class")->count; k++) {
            if (fx_col(&lv, "shrub.class", k, "offset_in_asset_wad") == 0)
                continue;
            cr_expect(fx_col(&lv, "shrub.class", k, "span_o_class") ==
                      fx_col(&lv, "shrub.class", k, "o_class"));
            cr_expect(fx_col(&lv, "shrub.class", k, "data_ofs_inside") == 1);
        }
        cr_expect(fx_col(&lv, "sound_bank.header", 0, "sblk_ok") == 1 &&
                      fx_col(&lv, "sound_bank.header", 0, "daw_ok") == 1,
                  "level %d", i);
        chunks += lv.chunks[0].present || lv.chunks[1].present || lv.chunks[2].present;
        if (i == 0) {
            cr_expect_eq(fx_col(&lv, "level.extent",
                                (size_t)fx_find(&lv, "level.extent", "name", "data"),
                                "size_sectors"),
                         6484);
            cr_expect_eq(fx_col(&lv, "level.extent",
                                (size_t)fx_find(&lv, "level.extent", "name", "data"),
                                "contents_bytes"),
                         13277920);
            cr_expect_eq(fx_col(&lv, "level.extent",
                                (size_t)fx_find(&lv, "level.extent", "name", "gameplay"),
                                "contents_bytes"),
                         0x0a0d79);
            cr_expect_eq(lv.core_data_size, 16969296u);
            cr_expect_eq(lv.core_index.size, 31600u);
            cr_expect_eq(lv.sound_bank.size, 1503232u);
            cr_expect_eq(fx_col(&lv, "data.core_data", 0, "lz_size_field"), 9738678);
            cr_expect_eq(fx_col(&lv, "core.header", 0, "occlusion"), 2117888);
            cr_expect_eq(fx_col(&lv, "core.header", 0, "sky"), 2192576);
            cr_expect_eq(fx_col(&lv, "core.header", 0, "moby_classes_offset"), 192);
            cr_expect_eq(fx_col(&lv, "core.header", 0, "tie_classes_offset"), 7808);
            cr_expect_eq(fx_col(&lv, "core.header", 0, "shrub_classes_offset"), 10176);
            cr_expect_eq(fx_col(&lv, "core.header", 0, "tfrag_textures_offset"), 10512);
            cr_expect_eq(fx_col(&lv, "core.header", 0, "moby_textures_offset"), 12000);
            cr_expect_eq(fx_rows(&lv, "moby.class")->count, 238u);
            cr_expect_eq(fx_rows(&lv, "tie.class")->count, 74u);
            cr_expect_eq(fx_rows(&lv, "shrub.class")->count, 7u);
        }
        if (i == 21)
            cr_expect_eq(fx_col(&lv, "level.header", 0, "level_id"), 30);
        const struct {
            int level;
            double ofs;
        } normals[3] = {{0, 0xb650c}, {5, 0xcca30}, {26, 0xb6284}};
        for (int k = 0; k < 3; k++)
            if (i == normals[k].level)
                cr_expect_eq(fx_col(&lv, "normals.table", 0, "overlay_ofs"), normals[k].ofs,
                             "level %d", i);
        gc_level_free(&lv);
    }
    cr_expect_eq(moby, 5796u);
    cr_expect_eq(tie, 1864u);
    cr_expect_eq(shrub, 358u);
    cr_expect_eq(packets, 43467u);
    cr_expect_eq(zz, 172u);
    cr_expect_eq(bad_lod, 80u);
    cr_expect_eq(chunks, 3u);
    gc_corpus_close(&c);
}

/* A hand-built tie class (docs/formats/tie.md §4-§5), independent of synth/: one LOD-0 packet
 * with two texture runs, two strips of opposite winding, a record feeding two GS places
 * (gs_packet_write_ofs_2), a padding copy, records out of GS order, three dinky and four fat. */
#define TIE_T FX_CD_SIZE /* the class goes after the fixture's data */
static void tie_put_rec(size_t at, int fat, int16_t x, uint16_t gs, uint16_t gs2)
{
    fx_buf *cd = &fx.core_data;
    size_t p = fat ? 8 : 0, g = 6, s = fat ? 0x10 : 8, g2 = fat ? 0x16 : 0xE;
    fx_set_u16(cd, at + p + 0, (uint16_t)x);
    fx_set_u16(cd, at + p + 2, (uint16_t)(int16_t)(-x / 10));
    fx_set_u16(cd, at + p + 4, 7);
    fx_set_u16(cd, at + g, gs);
    fx_set_u16(cd, at + s, 2048); /* s = 0.5 */
    fx_set_u16(cd, at + g2, gs2);
}

Test(dec_classes, tie_packet_replay)
{
    fx_buf *cd = &fx.core_data, *ci = &fx.core_index;
    fx_pad_to(cd, TIE_T + 0x200);
    fx_set_u32(ci, 0x8c, TIE_T + 0x200); /* assets_decompressed_size */
    fx_set_u32(ci, FX_CI_TIE + 0x00, TIE_T);
    fx_set_u8(ci, FX_CI_TIE + 0x10, 1), fx_set_u8(ci, FX_CI_TIE + 0x11, 0); /* two slots */
    fx_set_u32(cd, TIE_T + 0x00, 0x80), fx_set_u32(cd, TIE_T + 0x04, 0x80);
    fx_set_u32(cd, TIE_T + 0x08, 0x80);
    fx_set_u8(cd, TIE_T + 0x0c, 1); /* one LOD-0 packet, none in LODs 1 and 2 */
    fx_set_u8(cd, TIE_T + 0x0f, 2);
    fx_set_u32(cd, TIE_T + 0x1c, 0x160); /* two ad-gifs up to the span end */
    fx_set_f32(cd, TIE_T + 0x40, 2.0f);
    fx_set_u16(cd, TIE_T + 0x44, FX_TIE_OCLASS);
    fx_set_f32(cd, TIE_T + 0x5c, 2.0f); /* bsphere r around 0 */
    fx_set_u16(cd, TIE_T + 0x60, 7), fx_set_u16(cd, TIE_T + 0x62, 3);
    fx_set_u16(cd, TIE_T + 0x64, 2);
    /* packet table at 0x80: data 0x10 after it, vertex buffer at 4 qw, 9 qw long */
    fx_set_u32(cd, TIE_T + 0x80, 0x10);
    fx_set_u8(cd, TIE_T + 0x88, 4), fx_set_u8(cd, TIE_T + 0x89, 9);
    size_t d = TIE_T + 0x90;
    fx_set_u32(cd, d + 0x00, 19);   /* ad-gif 1 at GS place 19 */
    fx_set_u32(cd, d + 0x10, 0x50); /* ad-gif 0: texture 1 */
    fx_set_u32(cd, d + 0x14, 0x00); /* ad-gif 1: texture 0 */
    fx_set_u8(cd, d + 0x23, 2);     /* strips */
    fx_set_u8(cd, d + 0x28, 3 * 2 + 4);
    fx_set_u8(cd, d + 0x2c, 4), fx_set_u8(cd, d + 0x2e, 6);  /* strip 0: tag at 6 */
    fx_set_u8(cd, d + 0x30, 3), fx_set_u8(cd, d + 0x32, 25); /* strip 1: tag at 25 */
    fx_set_u8(cd, d + 0x33, 1);                              /* winding flipped */
    /* GS order R0..R5 at 7, 10, 13, 16 (and 26), 29, 32; file order R4 R0 R3 | R5 R1 R5 R2 */
    size_t v = d + 0x40;
    tie_put_rec(v + 0x00, 0, 400, 29, 0);
    tie_put_rec(v + 0x10, 0, 0, 7, 7); /* second place equal to the first: none */
    tie_put_rec(v + 0x20, 0, 300, 16, 26);
    tie_put_rec(v + 0x30, 1, 500, 32, 0);
    tie_put_rec(v + 0x48, 1, 100, 10, 0);
    tie_put_rec(v + 0x60, 1, 500, 32, 0); /* padding copy */
    tie_put_rec(v + 0x78, 1, 200, 13, 0);
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "tie")->ok, "%s", fx_status(&lv, "tie")->message);
    cr_assert_eq(fx_rows(&lv, "tie.packet")->count, 1);
    cr_assert_eq(fx_col(&lv, "tie.packet", 0, "walk_ok"), 1);
    cr_assert_eq(fx_col(&lv, "tie.packet", 0, "data_ofs"), TIE_T + 0x90);
    cr_assert_eq(fx_col(&lv, "tie.packet", 0, "dinky_count"), 3);
    cr_assert_eq(fx_col(&lv, "tie.packet", 0, "fat_count"), 4);
    cr_assert_eq(fx_col(&lv, "tie.packet", 0, "gs_vertices"), 7);
    cr_assert_eq(fx_col(&lv, "tie.packet", 0, "strip_vertices"), 7);
    cr_assert_eq(fx_col(&lv, "tie.packet", 0, "adgifs"), 2);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "dec0_tris"), 3);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "lod0_tris"), 3);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "dec0_verts"), 7);
    cr_assert_eq(fx_col(&lv, "tie.class", 0, "texture_slots"), 2);
    /* records: R4=0 R0=1 R3=2 R5=3 R1=4 R2=6; strip 0 (R0 R1 R2 R3, texture 1) gives
     * (R0 R1 R2) and (R3 R2 R1); strip 1 (R3 R4 R5, texture 0, flipped) gives (R5 R4 R3). */
    static const int want[3][4] = {{1, 4, 6, 1}, {2, 6, 4, 1}, {3, 0, 2, 0}};
    cr_assert_eq(fx_rows(&lv, "tie.triangle")->count, 3);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(fx_col(&lv, "tie.triangle", i, "a"), want[i][0], "triangle %zu", i);
        cr_assert_eq(fx_col(&lv, "tie.triangle", i, "b"), want[i][1], "triangle %zu", i);
        cr_assert_eq(fx_col(&lv, "tie.triangle", i, "c"), want[i][2], "triangle %zu", i);
        cr_assert_eq(fx_col(&lv, "tie.triangle", i, "texture"), want[i][3], "triangle %zu", i);
    }
    cr_assert_eq(fx_rows(&lv, "tie.vertex")->count, 7);
    cr_assert_eq(fx_col(&lv, "tie.vertex", 3, "fat"), 1);
    cr_assert_eq(fx_col(&lv, "tie.vertex", 3, "x"), 500 * 2.0 / 1024);
    cr_assert_eq(fx_col(&lv, "tie.vertex", 3, "s"), 0.5);
    gc_level_free(&lv);
    /* one strip tag moved off its place: the replay loses step and says where */
    fx_set_u8(cd, d + 0x32, 24);
    decode(&lv);
    cr_assert(fx_status(&lv, "tie")->ok);
    cr_assert_eq(fx_col(&lv, "tie.packet", 0, "walk_ok"), 0);
    cr_assert_eq(fx_col(&lv, "tie.packet", 0, "walk_error"), 7);
    gc_level_free(&lv);
}

/* ---- moby.vertex rows against the bytes they came from ------------------------------------ */

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* Every table vertex (kind 0-2) of a synthetic level, every column the vertex loop writes,
 * recomputed from its 16 bytes in core_data and its class row: slot and file offset step by one
 * vertex within a packet, the ID is the low 9 bits of the vertex 7 slots on, x/y/z and the
 * normal bytes are as stored, px/py/pz are x * (scale / 1024) in float and the centre distance
 * the double root rounded to float, bit for bit. dec_moby.c writes these rows two ways (four
 * 16-byte words with SSE2, field by field otherwise): either must give these values. */
Test(dec_classes, moby_vertex_rows_from_their_bytes, .timeout = 300)
{
    sy_buf b;
    gc_level lv;
    synth_level_decode_small(4, &b, &lv);
    gc_rowbuf *vb = fx_rows(&lv, "moby.vertex");
    cr_assert(vb);
    size_t checked = 0, ids = 0;
    for (size_t i = 0; i < vb->count; i++) {
        if (fx_col(&lv, "moby.vertex", i, "kind") == 3)
            continue;
        double ofs = fx_col(&lv, "moby.vertex", i, "file_ofs");
        cr_assert(ofs + 16 <= (double)lv.core_data_size);
        const uint8_t *v = lv.core_data + (size_t)ofs;
        size_t c = (size_t)fx_col(&lv, "moby.vertex", i, "class_row");
        float scale = (float)fx_col(&lv, "moby.class", c, "scale");
        double bx = fx_col(&lv, "moby.class", c, "bsphere_x");
        double by = fx_col(&lv, "moby.class", c, "bsphere_y");
        double bz = fx_col(&lv, "moby.class", c, "bsphere_z");
        int16_t x = (int16_t)le16(v + 0xa), y = (int16_t)le16(v + 0xc), z = (int16_t)le16(v + 0xe);
        float unit = scale / 1024.0f;
        float px = (float)x * unit, py = (float)y * unit, pz = (float)z * unit;
        double dx = (double)px - bx, dy = (double)py - by, dz = (double)pz - bz;
        float cd = (float)sqrt(dx * dx + dy * dy + dz * dz);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "x"), x, "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "y"), y, "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "z"), z, "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "normal_azimuth"), v[8], "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "normal_elevation"), v[9], "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "px"), px, "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "py"), py, "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "pz"), pz, "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "centre_distance"), cd, "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "bsphere_radius"),
                     fx_col(&lv, "moby.class", c, "bsphere_w"), "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.vertex", i, "source_row"), (double)UINT32_MAX);
        double slot = fx_col(&lv, "moby.vertex", i, "slot");
        cr_assert_lt(slot, 256);
        if (slot > 0) { /* the row before is the same packet's previous vertex */
            cr_assert_eq(fx_col(&lv, "moby.vertex", i - 1, "slot"), slot - 1, "row %zu", i);
            cr_assert_eq(fx_col(&lv, "moby.vertex", i - 1, "file_ofs"), ofs - 16, "row %zu", i);
            cr_assert_eq(fx_col(&lv, "moby.vertex", i - 1, "packet_row"),
                         fx_col(&lv, "moby.vertex", i, "packet_row"), "row %zu", i);
            cr_assert_leq(fx_col(&lv, "moby.vertex", i - 1, "kind"),
                          fx_col(&lv, "moby.vertex", i, "kind"), "row %zu", i);
        }
        /* the ID of slot j is the low 9 bits of slot j + 7's first u16 (when that one is a
         * table vertex of the same packet) */
        if (i + 7 < vb->count && fx_col(&lv, "moby.vertex", i + 7, "slot") == slot + 7 &&
            fx_col(&lv, "moby.vertex", i + 7, "kind") != 3) {
            cr_assert_eq(fx_col(&lv, "moby.vertex", i, "vertex_id"), le16(v + 7 * 16) & 0x1ff,
                         "row %zu", i);
            ids++;
        }
        checked++;
    }
    cr_assert_gt(checked, 100, "only %zu table vertices", checked);
    cr_assert_gt(ids, 50);
    gc_level_free(&lv);
    sy_buf_free(&b);
}

/* Every byte of every row of table `name` that no column covers is zero, as in a pushed
 * (zeroed) row: a row written whole (dec_moby.c's triangle rows with SSE2, dec_tfrag.c's
 * triangle rows as 8-byte words, a lit row copied from an earlier one) must not leave
 * anything in its padding. Returns the rows checked. */
static size_t padding_is_zero(gc_level *lv, const char *name)
{
    gc_rowbuf *rb = fx_rows(lv, name);
    cr_assert(rb, "%s", name);
    size_t size = rb->desc->row_size;
    uint8_t covered[256] = {0};
    cr_assert_leq(size, sizeof covered);
    for (size_t c = 0; c < rb->desc->column_count; c++)
        memset(covered + rb->desc->columns[c].offset, 1, rb->desc->columns[c].size);
    size_t holes = 0;
    for (size_t k = 0; k < size; k++)
        holes += !covered[k];
    cr_assert_gt(holes, 0, "%s has no padding to check", name);
    for (size_t i = 0; i < rb->count; i++) {
        const uint8_t *row = gc_rows_at(rb, i);
        for (size_t k = 0; k < size; k++)
            cr_assert(covered[k] || row[k] == 0, "%s row %zu byte %zu is %u", name, i, k, row[k]);
    }
    return rb->count;
}

/* Every moby.triangle row of a synthetic level against its index bytes in core_data and its
 * parents: the byte at file_ofs kicks (bit 7 clear) and names v2 (1-based); a triangle drawn by
 * the next byte of the same packet slides the strip (its v0, v1 are this one's v1, v2) and
 * keeps the texture unless that byte is a switch (0); vu_vertices, class_row and
 * texture_slots are the packet's and the class's; the texture entry is null for a texture
 * outside the class's slots and one entry per (class, texture) otherwise; no padding byte is
 * set. dec_moby.c writes these rows two ways (two 16-byte words and an 8-byte one with SSE2,
 * field by field otherwise): either must give these values. */
Test(dec_classes, moby_triangle_rows_from_their_bytes, .timeout = 300)
{
    sy_buf b;
    gc_level lv;
    synth_level_decode_small(4, &b, &lv);
    gc_rowbuf *tb = fx_rows(&lv, "moby.triangle");
    cr_assert(tb);
    size_t slid = 0, named = 0, entries = 0;
    double entry_of[64][64];
    for (size_t c = 0; c < 64; c++)
        for (size_t t = 0; t < 64; t++)
            entry_of[c][t] = -1;
    for (size_t i = 0; i < tb->count; i++) {
        double ofs = fx_col(&lv, "moby.triangle", i, "file_ofs");
        cr_assert_lt(ofs, (double)lv.core_data_size);
        uint8_t byte = lv.core_data[(size_t)ofs];
        size_t p = (size_t)fx_col(&lv, "moby.triangle", i, "packet_row");
        size_t c = (size_t)fx_col(&lv, "moby.triangle", i, "class_row");
        cr_assert_eq(c, fx_col(&lv, "moby.packet", p, "class_row"), "row %zu", i);
        cr_assert_eq(fx_col(&lv, "moby.triangle", i, "vu_vertices"),
                     fx_col(&lv, "moby.packet", p, "vu_vertices"), "row %zu", i);
        double slots = fx_col(&lv, "moby.class", c, "texture_slots");
        cr_assert_eq(fx_col(&lv, "moby.triangle", i, "texture_slots"), slots, "row %zu", i);
        double v2 = fx_col(&lv, "moby.triangle", i, "v2");
        if (byte != 0) { /* not a switch: the byte itself */
            cr_assert_eq(byte & 0x80, 0, "row %zu", i);
            cr_assert_eq(v2, (byte & 0x7f) - 1, "row %zu", i);
            named++;
        }
        double tex = fx_col(&lv, "moby.triangle", i, "texture");
        double entry = fx_col(&lv, "moby.triangle", i, "texture_entry");
        if (tex < 0 || tex >= slots) {
            cr_assert_eq(entry, (double)UINT32_MAX, "row %zu", i);
        } else {
            cr_assert_lt(c, 64);
            cr_assert_lt(tex, 64);
            double *e = &entry_of[c][(size_t)tex];
            if (*e < 0)
                *e = entry, entries++;
            cr_assert_eq(entry, *e, "row %zu", i);
        }
        if (i + 1 < tb->count && fx_col(&lv, "moby.triangle", i + 1, "packet_row") == p &&
            fx_col(&lv, "moby.triangle", i + 1, "file_ofs") == ofs + 1) {
            cr_assert_eq(fx_col(&lv, "moby.triangle", i + 1, "v0"),
                         fx_col(&lv, "moby.triangle", i, "v1"), "row %zu", i);
            cr_assert_eq(fx_col(&lv, "moby.triangle", i + 1, "v1"), v2, "row %zu", i);
            if (lv.core_data[(size_t)ofs + 1] != 0)
                cr_assert_eq(fx_col(&lv, "moby.triangle", i + 1, "texture"), tex, "row %zu", i);
            slid++;
        }
    }
    cr_assert_gt(named, 100, "only %zu triangles", named);
    cr_assert_gt(slid, 100);
    cr_assert_gt(entries, 2);
    cr_assert_eq(padding_is_zero(&lv, "moby.triangle"), tb->count);
    gc_level_free(&lv);
    sy_buf_free(&b);
}

/* Every tfrag.triangle row of a synthetic level against its strip and its patch: within a
 * strip (same patch, LOD, strip number and record offset) the three vertex-info indices
 * slide one entry a triangle with the winding alternating ((i0, i1, i2), (i2, i1, i3), ...);
 * each position is the vertex-info row's, v_max their largest; the ad-gif's texture (null
 * when negative or no such record); vi_lo 0 and vi_hi the patch's vertex-info count of the
 * tiers the LOD sees; no padding byte set. dec_tfrag.c writes these rows two ways (seven
 * 8-byte words on little-endian hosts, field by field otherwise): either must give these
 * values. */
Test(dec_classes, tfrag_triangle_rows_from_their_strips, .timeout = 300)
{
    sy_buf b;
    gc_level lv;
    synth_level_decode_small(4, &b, &lv);
    gc_rowbuf *tb = fx_rows(&lv, "tfrag.triangle");
    size_t np = fx_rows(&lv, "tfrag.patch")->count;
    cr_assert(tb && np);
    /* vertex of (patch, vertex-info index), texture of (patch, ad-gif), NAN where no row */
    enum { VI = 1024, AG = 256 };
    double *vert = malloc(np * VI * sizeof *vert), *tex = malloc(np * AG * sizeof *tex);
    cr_assert(vert && tex);
    for (size_t k = 0; k < np * VI; k++)
        vert[k] = NAN;
    for (size_t k = 0; k < np * AG; k++)
        tex[k] = NAN;
    for (size_t i = 0; i < fx_rows(&lv, "tfrag.vertex_info")->count; i++) {
        size_t p = (size_t)fx_col(&lv, "tfrag.vertex_info", i, "patch_row");
        size_t x = (size_t)fx_col(&lv, "tfrag.vertex_info", i, "index");
        cr_assert(p < np && x < VI);
        vert[p * VI + x] = fx_col(&lv, "tfrag.vertex_info", i, "vertex");
    }
    for (size_t i = 0; i < fx_rows(&lv, "tfrag.adgif")->count; i++) {
        size_t p = (size_t)fx_col(&lv, "tfrag.adgif", i, "patch_row");
        size_t x = (size_t)fx_col(&lv, "tfrag.adgif", i, "index");
        cr_assert(p < np && x < AG);
        tex[p * AG + x] = fx_col(&lv, "tfrag.adgif", i, "texture");
    }
    static const char *const tiers[3] = {"vi_common", "vi_lod01", "vi_lod0"};
    size_t slid = 0, resolved = 0, textured = 0, j = 0;
    double w0 = 0, w1 = 0;
    for (size_t i = 0; i < tb->count; i++) {
#define T(col) fx_col(&lv, "tfrag.triangle", i, col)
        size_t p = (size_t)T("patch_row");
        cr_assert_lt(p, np);
        double lod = T("lod"), a = T("a"), bb = T("b"), c = T("c");
        bool same = i > 0 && fx_col(&lv, "tfrag.triangle", i - 1, "patch_row") == p &&
                    fx_col(&lv, "tfrag.triangle", i - 1, "lod") == lod &&
                    fx_col(&lv, "tfrag.triangle", i - 1, "strip") == T("strip") &&
                    fx_col(&lv, "tfrag.triangle", i - 1, "file_ofs") == T("file_ofs");
        if (same) { /* triangle j of the strip: the window slid by one */
            j++;
            cr_assert_eq(a, j & 1 ? w1 : w0, "row %zu", i);
            cr_assert_eq(bb, j & 1 ? w0 : w1, "row %zu", i);
            slid++;
        } else {
            j = 0;
        }
        w0 = j & 1 ? a : bb, w1 = c; /* the window's last two entries */
        double v[3], idx[3] = {a, bb, c}, m = 0;
        static const char *const vcol[3] = {"va", "vb", "vc"};
        for (int k = 0; k < 3; k++) {
            v[k] = T(vcol[k]);
            m = v[k] > m ? v[k] : m;
            double want = vert[p * VI + (size_t)idx[k]];
            if (!isnan(want)) {
                cr_assert_eq(v[k], want, "row %zu corner %d", i, k);
                resolved++;
            }
        }
        cr_assert_eq(T("v_max"), m, "row %zu", i);
        double ag = T("adgif"), want = (double)UINT32_MAX;
        if (ag < AG && !isnan(tex[p * AG + (size_t)ag]) && tex[p * AG + (size_t)ag] >= 0)
            want = tex[p * AG + (size_t)ag], textured++;
        cr_assert_eq(T("texture"), want, "row %zu", i);
        double hi = 0;
        for (int k = 0; k < 3 - (int)lod; k++)
            hi += fx_col(&lv, "tfrag.patch", p, tiers[k]);
        cr_assert_eq(T("vi_hi"), hi, "row %zu", i);
        cr_assert_eq(T("vi_lo"), 0, "row %zu", i);
#undef T
    }
    cr_assert_gt(slid, 100, "only %zu triangles slid", slid);
    cr_assert_gt(resolved, 300);
    cr_assert_gt(textured, 100);
    cr_assert_eq(padding_is_zero(&lv, "tfrag.triangle"), tb->count);
    free(vert);
    free(tex);
    gc_level_free(&lv);
    sy_buf_free(&b);
}
