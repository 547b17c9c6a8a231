/* SPDX-License-Identifier: MIT */
/* Tests of the moby, tie and shrub decoders (decoders/dec_moby.c,
 * dec_tie.c, dec_shrub.c): class rows and spans, the moby packet run and its
 * zero/zero terminator, tie's verified header prefix, shrub's
 * self-identifying words, and tables or offsets out of place. */
#include <criterion/criterion.h>

#include "dec_fixture.h"

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
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "file_ofs"), (double)(fx.data_ofs + fx.ci_ofs + FX_CI_MOBY));
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "high_lod_count"), 2);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "joint_count"), 3);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "scale"), 0.25);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "packets"), 2);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "terminated"), 1);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "zero_zero_terminators"), 1);
    cr_assert_eq(fx_rows(&lv, "moby.packet")->count, 2);
    for (size_t i = 0; i < 2; i++) {
        cr_assert_eq(fx_col(&lv, "moby.packet", i, "identity_ok"), 1);
        cr_assert_eq(fx_col(&lv, "moby.packet", i, "class_row"), 0);
        cr_assert_eq(fx_col(&lv, "moby.packet", i, "file_ofs"), FX_CD_MOBY + 0x50 + 16.0 * (double)i);
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
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "file_ofs"), (double)(fx.data_ofs + fx.ci_ofs + FX_CI_SHRUB));
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
    } cases[3] = {{0x18, "moby", "moby_classes"}, {0x20, "tie", "tie_classes"}, {0x28, "shrub", "shrub_classes"}};
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
