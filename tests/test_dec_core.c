/* SPDX-License-Identifier: MIT */
/* Tests of the core decoder (decoders/dec_core.c): every 0xBC header field,
 * regions in file order, the table chain with next offsets, the known-start
 * list that sizes class spans, and the fault switches of the core header. */
#include <criterion/criterion.h>

#include "dec_fixture.h"

static fx_level fx;

static void setup(void)
{
    fx_parts(&fx);
    fx_assemble(&fx);
}
static void teardown(void)
{
    fx_release(&fx);
}

TestSuite(dec_core, .init = setup, .fini = teardown);

Test(dec_core, header_regions_tables)
{
    gc_level lv;
    fx_decode(&lv, fx.file.p, fx.file.len);
    cr_assert(fx_status(&lv, "core")->ok, "%s", fx_status(&lv, "core")->message);
    cr_assert(lv.core_ok);
    cr_assert_eq(fx_col(&lv, "core.header", 0, "occlusion"), FX_CD_OCCLUSION);
    cr_assert_eq(fx_col(&lv, "core.header", 0, "shrub_classes_offset"), FX_CI_SHRUB);
    cr_assert_eq(fx_col(&lv, "core.header", 0, "assets_decompressed_size"), FX_CD_SIZE);
    cr_assert_eq(fx_col(&lv, "core.header", 0, "assets_compressed_size"), (double)fx.cd_z_size);
    cr_assert_eq(fx_rows(&lv, "core.header")->desc->column_count, 1 + 47);
    /* regions: tfrags, occlusion, sky, collision, textures_base */
    double want_ofs[5] = {0, FX_CD_OCCLUSION, FX_CD_SKY, FX_CD_COLLISION, FX_CD_TEXTURES};
    double want_next[5] = {FX_CD_OCCLUSION, FX_CD_SKY, FX_CD_COLLISION, FX_CD_TEXTURES, FX_CD_SIZE};
    for (size_t i = 0; i < 5; i++) {
        cr_assert_eq(fx_col(&lv, "core.region", i, "offset"), want_ofs[i]);
        cr_assert_eq(fx_col(&lv, "core.region", i, "next_offset"), want_next[i]);
        cr_assert_eq(fx_col(&lv, "core.region", i, "size"), want_next[i] - want_ofs[i]);
        cr_assert_eq(fx_col(&lv, "core.region", i, "inside"), 1);
    }
    /* tables in original order, each ending where the next begins */
    cr_assert_eq(fx_rows(&lv, "core.table")->count, 10);
    cr_assert_eq(fx_find(&lv, "core.table", "name", "moby_classes"), 0);
    cr_assert_eq(fx_find(&lv, "core.table", "name", "gs_ram"), 9);
    cr_assert_eq(fx_col(&lv, "core.table", 0, "end"), FX_CI_TIE);
    cr_assert_eq(fx_col(&lv, "core.table", 0, "next_offset"), FX_CI_TIE);
    cr_assert_eq(fx_col(&lv, "core.table", 2, "stride_bytes"), 0x30);
    cr_assert_eq(fx_col(&lv, "core.table", 2, "end"), FX_CI_TEXTURES);
    cr_assert_eq(fx_col(&lv, "core.table", 9, "end"), FX_CI_SIZE);
    cr_assert_eq(fx_col(&lv, "core.table", 9, "next_offset"), (double)UINT64_MAX); /* null */
    for (size_t i = 0; i < 9; i++)
        cr_assert_eq(fx_col(&lv, "core.table", i, "end"),
                     fx_col(&lv, "core.table", i, "next_offset"), "table %zu", i);
    /* known starts size the class spans */
    cr_assert_eq(gc_core_next_start(&lv, FX_CD_MOBY, 0), FX_CD_TIE);
    cr_assert_eq(gc_core_next_start(&lv, FX_CD_SHRUB, 0), FX_CD_SIZE);
    cr_assert_eq(gc_core_class_offset_uses(&lv, FX_CD_TIE), 1);
    gc_level_free(&lv);
}

Test(dec_core, gs_ram_counts_stash_entries)
{
    fx_set_u32(&fx.file, fx.data_ofs + fx.ci_ofs + 0x84, 2); /* moby_gs_stash_count */
    gc_level lv;
    fx_decode(&lv, fx.file.p, fx.file.len);
    cr_assert_eq(fx_col(&lv, "core.table", 9, "count"), 3);
    cr_assert_eq(fx_col(&lv, "core.table", 9, "inside"), 0); /* 3 entries run past core_index */
    gc_level_free(&lv);
}

Test(dec_core, region_out_of_order_is_a_row_value)
{
    fx_set_u32(&fx.file, fx.data_ofs + fx.ci_ofs + 0x10,
               FX_CD_SIZE + 0x100); /* sky past core_data */
    gc_level lv;
    fx_decode(&lv, fx.file.p, fx.file.len);
    cr_assert(fx_status(&lv, "core")->ok);
    cr_assert_eq(fx_col(&lv, "core.region", 2, "inside"), 0);
    cr_assert_eq(fx_status(&lv, "sky")->status, GC_E_RANGE);
    cr_assert(strstr(fx_status(&lv, "sky")->where, "sky@") != NULL);
    gc_level_free(&lv);
}

#if GC_FAULTS_BUILT
Test(dec_core, fault_class_one_word_breaks_chain)
{
    gc_level lv;
    gc_level_init(&lv, 3, "LEVEL3.WAD", fx.file.p, fx.file.len);
    lv.fault = GC_FAULT_class_one_word;
    gc_level_decode(&lv);
    int broken = 0;
    for (size_t i = 0; i < 9; i++)
        broken +=
            fx_col(&lv, "core.table", i, "end") != fx_col(&lv, "core.table", i, "next_offset");
    cr_assert(broken > 0);
    gc_level_free(&lv);
}

Test(dec_core, fault_region_sizes_breaks_order)
{
    gc_level lv;
    gc_level_init(&lv, 3, "LEVEL3.WAD", fx.file.p, fx.file.len);
    lv.fault = GC_FAULT_region_sizes;
    gc_level_decode(&lv);
    int bad = 0;
    for (size_t i = 0; i < 5; i++)
        bad += !(fx_col(&lv, "core.region", i, "offset") <
                 fx_col(&lv, "core.region", i, "next_offset"));
    cr_assert(bad > 0);
    gc_level_free(&lv);
}
#endif
