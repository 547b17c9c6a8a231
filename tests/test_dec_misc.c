/* SPDX-License-Identifier: MIT */
/* Tests of the gameplay, normals, sound_bank, occlusion and sky decoders
 * (decoders/dec_gameplay.c, dec_normals.c, dec_sound_bank.c,
 * dec_occlusion.c, dec_sky.c) on the fixture of tests/dec_fixture.h. */
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

TestSuite(dec_misc, .init = setup, .fini = teardown);

static void decode(gc_level *lv)
{
    fx_assemble(&fx);
    fx_decode(lv, fx.file.p, fx.file.len);
}

Test(dec_misc, gameplay_decompressed)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "gameplay")->ok, "%s", fx_status(&lv, "gameplay")->message);
    cr_assert_eq(lv.gameplay_size, FX_GP_SIZE);
    cr_assert(memcmp(lv.gameplay, fx.gameplay.p, FX_GP_SIZE) == 0);
    cr_assert_eq(fx_rows(&lv, "gameplay.block")->count, 39);
    cr_assert_eq(fx_col(&lv, "gameplay.block", 1, "offset"), FX_GP_LIGHTS);
    cr_assert_eq(fx_col(&lv, "gameplay.block", 1, "inside"), 1);
    cr_assert_eq(fx_find(&lv, "gameplay.block", "name", "occlusion"), 36);
    cr_assert_eq(fx_col(&lv, "gameplay.header", 0, "blocks_present"), 3);
    cr_assert_eq(fx_col(&lv, "gameplay.header", 0, "blocks_inside"), 3);
    cr_assert_eq(fx_col(&lv, "gameplay.header", 0, "lz_size_field"), (double)fx.gameplay_z_size);
    cr_assert_eq(fx_rows(&lv, "gameplay.dir_light")->count, 1);
    cr_assert_float_eq(fx_col(&lv, "gameplay.dir_light", 0, "direction_a_length"), 1.0, 1e-6);
    cr_assert_float_eq(fx_col(&lv, "gameplay.dir_light", 0, "direction_b_length"), 1.0, 1e-6);
    cr_assert_eq(fx_col(&lv, "gameplay.dir_light", 0, "colour_a_r"), 1.0);
    cr_assert_eq(fx_col(&lv, "gameplay.dir_light", 0, "file_ofs"), FX_GP_LIGHTS + 16);
    cr_assert_eq(fx_col(&lv, "gameplay.occlusion_mapping", 0, "tfrag_count"), 1);
    cr_assert_eq(fx_col(&lv, "gameplay.occlusion_mapping", 0, "entries_fit"), 1);
    gc_level_free(&lv);
}

Test(dec_misc, gameplay_bad_inputs)
{
    gc_level lv;
    /* not a WAD-LZ stream */
    fx_assemble(&fx);
    fx.file.p[fx.gameplay_ofs] = 'Z';
    fx_decode(&lv, fx.file.p, fx.file.len);
    cr_assert_eq(fx_status(&lv, "gameplay")->status, GC_E_MAGIC);
    cr_assert(strstr(fx_status(&lv, "gameplay")->where, "gameplay") != NULL);
    gc_level_free(&lv);
    /* light count past the end */
    fx_set_u32(&fx.gameplay, FX_GP_LIGHTS, 1000);
    decode(&lv);
    const gc_decode_status_row *r = fx_status(&lv, "gameplay");
    cr_assert_eq(r->status, GC_E_TRUNCATED);
    cr_assert(strstr(r->where, "dir_lights@0xa0") != NULL, "where '%s'", r->where);
    cr_assert_eq(fx_rows(&lv, "gameplay.dir_light")->count, 0);
    gc_level_free(&lv);
    /* light bank offset outside */
    fx_set_u32(&fx.gameplay, FX_GP_LIGHTS, 1);
    fx_set_u32(&fx.gameplay, 0x04, 0x10000);
    decode(&lv);
    cr_assert_eq(fx_status(&lv, "gameplay")->status, GC_E_RANGE);
    cr_assert_eq(fx_col(&lv, "gameplay.block", 1, "inside"), 0);
    gc_level_free(&lv);
    /* decoded data shorter than the block table */
    fx.gameplay.len = 0x40;
    decode(&lv);
    cr_assert_eq(fx_status(&lv, "gameplay")->status, GC_E_TRUNCATED);
    gc_level_free(&lv);
}

Test(dec_misc, gameplay_grows_its_buffer)
{
    /* a highly compressible... here: a large literal stream still decodes
     * (output > 8x is impossible for literals, so check a big one) */
    fx_pad_to(&fx.gameplay, 0x30000);
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "gameplay")->ok);
    cr_assert_eq(lv.gameplay_size, 0x30000);
    gc_level_free(&lv);
}

#if GC_FAULTS_BUILT
Test(dec_misc, fault_gameplay_raw)
{
    fx_assemble(&fx);
    gc_level lv;
    gc_level_init(&lv, 3, "LEVEL3.WAD", fx.file.p, fx.file.len);
    lv.fault = GC_FAULT_gameplay_raw;
    gc_level_decode(&lv);
    cr_assert(fx_col(&lv, "gameplay.header", 0, "blocks_inside") <
                  fx_col(&lv, "gameplay.header", 0, "blocks_present") ||
              !fx_status(&lv, "gameplay")->ok);
    gc_level_free(&lv);
}

Test(dec_misc, fault_normal_first_pair)
{
    fx_assemble(&fx);
    gc_level lv;
    gc_level_init(&lv, 3, "LEVEL3.WAD", fx.file.p, fx.file.len);
    lv.fault = GC_FAULT_normal_first_pair;
    gc_level_decode(&lv);
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "overlay_ofs"), FX_OV_DECOY);
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "entries_matched"), 1);
    gc_level_free(&lv);
}
#endif

Test(dec_misc, normals_found_past_decoy)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "normals")->ok);
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "found"), 1);
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "overlay_ofs"), FX_OV_TABLE);
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "file_ofs"),
                 (double)(fx.data_ofs + fx.ov_ofs + FX_OV_TABLE));
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "entries_matched"), 256);
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "candidates"), 2);
    cr_assert(fx_col(&lv, "normals.table", 0, "max_error") < 1e-7);
    gc_level_free(&lv);
}

Test(dec_misc, normals_one_bad_entry_is_no_table)
{
    fx_set_f32(&fx.overlay, FX_OV_TABLE + 8 * 200, 0.5f);
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "normals")->ok);
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "found"), 0);
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "overlay_ofs"), (double)UINT64_MAX);
    gc_level_free(&lv);
}

Test(dec_misc, normals_table_cut_by_overlay_end)
{
    fx.overlay.len = FX_OV_TABLE + 1024; /* half the table */
    gc_level lv;
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "found"), 0);
    gc_level_free(&lv);
}

Test(dec_misc, sound_bank)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "sound_bank")->ok);
    cr_assert_eq(fx_col(&lv, "sound_bank.header", 0, "sblk_ok"), 1);
    cr_assert_eq(fx_col(&lv, "sound_bank.header", 0, "daw_ok"), 1);
    cr_assert_eq(fx_col(&lv, "sound_bank.header", 0, "total_size"), 0x400);
    gc_level_free(&lv);
    fx.sound_bank.p[0x25] = 'X';
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "sound_bank.header", 0, "daw_ok"), 0);
    cr_assert_eq(fx_col(&lv, "sound_bank.header", 0, "sblk_ok"), 1);
    gc_level_free(&lv);
    /* a sound bank extent that ends at the file end before the signatures */
    fx_assemble(&fx);
    gc_level_init(&lv, 3, "LEVEL3.WAD", fx.file.p, fx.sound_ofs + 0x20);
    gc_level_decode(&lv);
    cr_assert(fx_status(&lv, "sound_bank")->skipped); /* extent not inside the file */
    gc_level_free(&lv);
}

Test(dec_misc, occlusion_mapping_and_grid)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "occlusion")->ok, "%s", fx_status(&lv, "occlusion")->message);
    cr_assert_eq(fx_col(&lv, "occlusion.mapping", 0, "tfrag_count"), 1);
    cr_assert_eq(fx_col(&lv, "occlusion.mapping", 0, "size_bytes"), 24);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "z_count"), 2);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "z_nodes"), 1);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "y_nodes"), 1);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "x_cells"), 1);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "max_mask_index"), 0);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "mask_capacity"), 1);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "region_bytes"), FX_CD_SKY - FX_CD_OCCLUSION);
    /* the fixture's masks_offset 8 only fits as words: in bytes it would start inside the
     * y node that ends at byte 28 */
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "tree_end_bytes"), 28);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "masks_unit_bytes"), 4);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "masks_at_bytes"), 32);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "masks_fit"), 1);
    gc_level_free(&lv);
}

/* The same grid with masks_offset written in bytes, as Wrench writes it: only the byte
 * reading fits (as words the one mask would end past the block). */
Test(dec_misc, occlusion_masks_offset_in_bytes)
{
    gc_level lv;
    fx_set_u32(&fx.core_data, FX_CD_OCCLUSION + 0, 32);
    decode(&lv);
    cr_assert(fx_status(&lv, "occlusion")->ok, "%s", fx_status(&lv, "occlusion")->message);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "masks_unit_bytes"), 1);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "masks_at_bytes"), 32);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "masks_fit"), 1);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "mask_capacity"), 1);
    gc_level_free(&lv);
    /* neither reading fits: masks_offset 4 starts inside the tree both ways */
    fx_set_u32(&fx.core_data, FX_CD_OCCLUSION + 0, 4);
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "masks_unit_bytes"), 1);
    cr_assert_eq(fx_col(&lv, "occlusion.grid", 0, "masks_fit"), 0);
    gc_level_free(&lv);
}

Test(dec_misc, occlusion_bad_inputs)
{
    gc_level lv;
    fx_set_u32(&fx.occlusion, 0, 500); /* 500 mappings in a sector */
    decode(&lv);
    cr_assert_eq(fx_status(&lv, "occlusion")->status, GC_E_TRUNCATED);
    gc_level_free(&lv);
    fx_set_u32(&fx.occlusion, 0, 0xFFFFFFFFu);
    decode(&lv);
    cr_assert_eq(fx_status(&lv, "occlusion")->status, GC_E_RANGE);
    gc_level_free(&lv);
    fx_set_u32(&fx.occlusion, 0, 1);
    fx_set_u16(&fx.core_data, FX_CD_OCCLUSION + 16, 0x3000); /* y[0] far outside */
    decode(&lv);
    const gc_decode_status_row *r = fx_status(&lv, "occlusion");
    cr_assert_eq(r->status, GC_E_RANGE);
    cr_assert(strstr(r->where, "occlusion@0x100/z[0]") != NULL, "where '%s'", r->where);
    gc_level_free(&lv);
    fx_set_u16(&fx.core_data, FX_CD_OCCLUSION + 16, 5);
    fx_set_u16(&fx.core_data, FX_CD_OCCLUSION + 22, 0x7000); /* x_count past the block */
    decode(&lv);
    cr_assert_eq(fx_status(&lv, "occlusion")->status, GC_E_TRUNCATED);
    gc_level_free(&lv);
    fx_set_u16(&fx.core_data, FX_CD_OCCLUSION + 22, 2);
    fx_set_u16(&fx.core_data, FX_CD_OCCLUSION + 6, 0x7000); /* z_count past the block */
    decode(&lv);
    cr_assert_eq(fx_status(&lv, "occlusion")->status, GC_E_TRUNCATED);
    gc_level_free(&lv);
}

Test(dec_misc, occlusion_shared_nodes_bounded)
{
    /* 60 z entries all pointing at one node whose 60 entries point at
     * itself: 3,600 reads from a 256-byte block; the work budget stops it */
    fx_set_u16(&fx.core_data, FX_CD_OCCLUSION + 6, 60);
    for (unsigned i = 0; i < 60; i++)
        fx_set_u16(&fx.core_data, FX_CD_OCCLUSION + 8 + 2 * i, 0x20); /* -> word 0x20 */
    fx_set_u16(&fx.core_data, FX_CD_OCCLUSION + 0x82, 60);
    for (unsigned i = 0; i < 60; i++)
        fx_set_u16(&fx.core_data, FX_CD_OCCLUSION + 0x84 + 2 * i, 0x20);
    gc_level lv;
    decode(&lv);
    cr_assert_eq(fx_status(&lv, "occlusion")->status, GC_E_CORRUPT);
    gc_level_free(&lv);
}

Test(dec_misc, sky_header_and_shell)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "sky")->ok, "%s", fx_status(&lv, "sky")->message);
    cr_assert_eq(fx_col(&lv, "sky.header", 0, "shell_count"), 1);
    cr_assert_eq(fx_col(&lv, "sky.header", 0, "shells_inside"), 1);
    cr_assert_eq(fx_col(&lv, "sky.header", 0, "colour"), (double)0x80402010u);
    cr_assert_eq(fx_col(&lv, "sky.header", 0, "region_bytes"), FX_CD_COLLISION - FX_CD_SKY);
    cr_assert_eq(fx_rows(&lv, "sky.shell")->count, 1);
    cr_assert_eq(fx_col(&lv, "sky.shell", 0, "cluster_count"), 1);
    cr_assert_eq(fx_col(&lv, "sky.shell", 0, "vertex_total"), 3);
    cr_assert_eq(fx_col(&lv, "sky.shell", 0, "clusters_inside"), 1);
    cr_assert_eq(fx_col(&lv, "sky.shell", 0, "textured"), 1);
    gc_level_free(&lv);
    fx_set_u32(&fx.core_data, FX_CD_SKY + 0x40, 1000); /* clusters past the block */
    decode(&lv);
    cr_assert(fx_status(&lv, "sky")->ok);
    cr_assert_eq(fx_col(&lv, "sky.shell", 0, "inside"), 0);
    cr_assert_eq(fx_col(&lv, "sky.header", 0, "shells_inside"), 0);
    gc_level_free(&lv);
}

Test(dec_misc, sky_truncated)
{
    /* collision right after the sky start: a 0x20-byte sky block */
    fx_set_u32(&fx.core_index, 0x14, FX_CD_SKY + 0x20);
    gc_level lv;
    decode(&lv);
    const gc_decode_status_row *r = fx_status(&lv, "sky");
    cr_assert_eq(r->status, GC_E_TRUNCATED);
    cr_assert(strstr(r->where, "core_data/sky@0x200") != NULL, "where '%s'", r->where);
    gc_level_free(&lv);
}

/* Seeded mutations of the fixture: 3,000 decodes of the whole chain with 1..8
 * bytes changed; none may crash, read out of bounds (sanitizer build) or
 * leave the status table inconsistent. */
Test(dec_misc, seeded_mutations)
{
    fx_assemble(&fx);
    size_t ndec;
    gc_decoder_registry(&ndec);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    uint8_t *buf = malloc(fx.file.len);
    cr_assert_not_null(buf);
    unsigned failed_somewhere = 0;
    for (int it = 0; it < 3000; it++) {
        memcpy(buf, fx.file.p, fx.file.len);
        int flips = 1 + (int)(s % 8);
        for (int k = 0; k < flips; k++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            size_t at = (size_t)(s % fx.file.len);
            buf[at] = (uint8_t)(s >> 32);
        }
        size_t len = fx.file.len;
        if (it % 7 == 0) /* also cut the file */
            len = (size_t)((s >> 16) % fx.file.len);
        gc_level lv;
        gc_level_init(&lv, 3, "LEVEL3.WAD", buf, len);
        gc_level_decode(&lv);
        gc_rowbuf *st = gc_level_rows(&lv, &gc_table_decode_status);
        cr_assert_eq(st->count, ndec);
        for (size_t i = 0; i < st->count; i++) {
            const gc_decode_status_row *r = gc_rows_at(st, i);
            cr_assert_lt(r->status, GC_STATUS_COUNT);
            failed_somewhere += !r->ok;
        }
        gc_level_free(&lv);
    }
    free(buf);
    cr_assert_gt(failed_somewhere, 0); /* the mutations did reach the decoders' checks */
}

/* ---- every invariant of invariants/{level,data,core,classes,gameplay,misc}.yaml
 * passes on the clean fixture and fails on a mutation made for it, so no
 * invariant can be vacuous ---------------------------------------------------- */
#include "gc_inv.h"

typedef void (*fx_mut)(fx_level *f);

static void m_none(fx_level *f)
{
    (void)f;
}
static void m_header_size(fx_level *f)
{
    fx_set_u32(&f->file, 0, 0x68);
}
static void m_tile(fx_level *f)
{
    fx_set_u32(&f->file, 0x1c, 0);
} /* sound bank size 0: a gap */
static void m_inside(fx_level *f)
{
    fx_set_u32(&f->file, 0x24, 1000);
}
static void m_unit(fx_level *f)
{
    fx_set_u32(&f->sound_bank, 4, 0x900);
}
static void m_ids_known(fx_level *f)
{
    f->level_id = 21;
}
static void m_data_present(fx_level *f)
{
    fx_set_u32(&f->file, 0x14, 0);
}
static void m_ranges_inside(fx_level *f)
{
    fx_set_u32(&f->file, f->data_ofs + 0x18, (uint32_t)f->data_size - 8);
    fx_set_u32(&f->file, f->data_ofs + 0x1c, 16);
}
static void m_magic(fx_level *f)
{
    f->file.p[f->data_ofs + f->cd_ofs] = 'M';
}
static void m_sizes(fx_level *f)
{
    fx_set_u32(&f->file, f->data_ofs + f->ci_ofs + 0x88, (uint32_t)f->cd_z_size + 1);
}
static void m_ci_header(fx_level *f)
{
    fx_set_u32(&f->file, f->data_ofs + 12, 0xB0);
}
static void m_region(fx_level *f)
{
    fx_set_u32(&f->core_index, 0x10, 0x50);
}
static void m_chain(fx_level *f)
{
    fx_set_u32(&f->core_index, 0x24, FX_CI_TIE + 0x10);
}
static void m_table_inside(fx_level *f)
{
    fx_set_u32(&f->core_index, 0x00, 5);
}
static void m_table_start(fx_level *f)
{
    fx_set_u32(&f->core_index, 0x1c, 0x80);
}
static void m_class_ofs(fx_level *f)
{
    fx_set_u32(&f->core_index, FX_CI_MOBY, FX_CD_SIZE + 0x10);
}
static void m_disjoint(fx_level *f)
{
    fx_set_u32(&f->core_index, FX_CI_SHRUB, FX_CD_TIE);
}
static void m_tie_oclass(fx_level *f)
{
    fx_set_u16(&f->core_data, FX_CD_TIE + 0x44, FX_TIE_OCLASS + 1);
}
static void m_tie_lod(fx_level *f)
{
    fx_set_f32(&f->core_data, FX_CD_TIE + 0x14, 50.0f);
}
static void m_tie_packets(fx_level *f)
{
    fx_set_u32(&f->core_data, FX_CD_TIE + 0x08, 0x1000);
}
static void m_shrub_oclass(fx_level *f)
{
    fx_set_u16(&f->core_data, FX_CD_SHRUB + 0x24, FX_SHRUB_OCLASS + 1);
}
static void m_shrub_data(fx_level *f)
{
    fx_set_u32(&f->core_data, FX_CD_SHRUB + 0x2c, 0x100);
}
static void m_identity(fx_level *f)
{
    fx_set_u32(&f->core_data, FX_CD_MOBY + 0x68, 0xD4);
}
static void m_packet_count(fx_level *f)
{
    fx_set_u8(&f->core_data, FX_CD_MOBY + 0x04, 3);
}
static void m_gp_decodes(fx_level *f)
{
    fx_set_u32(&f->gameplay, 0x14, 0x5000);
}
static void m_light_units(fx_level *f)
{
    fx_set_f32(&f->gameplay, FX_GP_LIGHTS + 0x10 + 0x18, 0.9f);
}
static void m_light_count(fx_level *f)
{
    fx_set_u32(&f->gameplay, FX_GP_LIGHTS, 2);
}
static void m_gp_occl(fx_level *f)
{
    fx_set_u32(&f->gameplay, FX_GP_OCCL, 100);
}
static void m_normals(fx_level *f)
{
    fx_set_f32(&f->overlay, FX_OV_TABLE + 8 * 200, 0.5f);
}
static void m_sound(fx_level *f)
{
    f->sound_bank.p[0x24] = 'd';
}
static void m_map_tfrags(fx_level *f)
{
    fx_set_u32(&f->occlusion, 0, 1);
} /* 1 mapping, 0 patches */
static void m_grid_masks(fx_level *f)
{
    fx_set_u16(&f->core_data, FX_CD_OCCLUSION + 24, 5);
}
static void m_masks_fit(fx_level *f)
{
    fx_set_u32(&f->core_data, FX_CD_OCCLUSION + 0, 4); /* inside the tree in either unit */
}
static void m_sky_header(fx_level *f)
{
    fx_set_u16(&f->core_data, FX_CD_SKY + 6, 9);
}
static void m_sky_shells(fx_level *f)
{
    fx_set_u32(&f->core_data, FX_CD_SKY + 0x40, 1000);
}

static const struct {
    const char *id;
    fx_mut parts; /* applied to the parts, before fx_assemble */
    fx_mut file;  /* applied to the assembled file */
} inv_cases[] = {
    {"level.header_size", m_none, m_header_size},
    {"level.extents_tile", m_none, m_tile},
    {"level.extents_inside", m_none, m_inside},
    {"level.extent_unit", m_unit, m_none},
    {"level.ids_known", m_ids_known, m_none},
    {"level.data_present", m_none, m_data_present},
    {"data.ranges_inside", m_none, m_ranges_inside},
    {"data.core_data_magic", m_none, m_magic},
    {"data.core_data_sizes", m_none, m_sizes},
    {"data.core_index_header", m_none, m_ci_header},
    {"core.region_order", m_region, m_none},
    {"core.table_chain", m_chain, m_none},
    {"core.table_inside", m_table_inside, m_none},
    {"core.table_start", m_table_start, m_none},
    {"core.class_offsets", m_class_ofs, m_none},
    {"classes.spans_disjoint", m_disjoint, m_none},
    {"tie.o_class", m_tie_oclass, m_none},
    {"tie.lod_order", m_tie_lod, m_none},
    {"tie.packets_inside", m_tie_packets, m_none},
    {"shrub.span_o_class", m_shrub_oclass, m_none},
    {"shrub.data_offset", m_shrub_data, m_none},
    {"moby.packet_identity", m_identity, m_none},
    {"moby.packet_count", m_packet_count, m_none},
    {"gameplay.decodes", m_gp_decodes, m_none},
    {"gameplay.light_units", m_light_units, m_none},
    {"gameplay.light_count", m_light_count, m_none},
    {"gameplay.occlusion_fits", m_gp_occl, m_none},
    {"normals.table_curve", m_normals, m_none},
    {"sound_bank.signatures", m_sound, m_none},
    {"occlusion.mapping_tfrags", m_map_tfrags, m_none},
    {"occlusion.grid_masks", m_grid_masks, m_none},
    {"occlusion.masks_fit", m_masks_fit, m_none},
    {"sky.header", m_sky_header, m_none},
    {"sky.shells", m_sky_shells, m_none},
};

static gc_inv_set *load_invariants(void)
{
    size_t n;
    const gc_table_desc *const *d = gc_table_registry(&n);
    static char err[8192];
    gc_inv_set *s = gc_inv_load_dir(GC_TEST_DATA_DIR "/../invariants", d, n, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    return s;
}

/* Failed rows of invariant `id` on the fixture after the two mutations. */
static uint64_t failures(gc_inv_set *s, const char *id, fx_mut parts, fx_mut file)
{
    fx_release(&fx);
    fx_parts(&fx);
    fx_set_u32(&fx.occlusion, 0, 0); /* the fixture has no tfrag patches */
    parts(&fx);
    fx_assemble(&fx);
    file(&fx);
    size_t k = gc_inv_find(s, id);
    cr_assert_neq(k, (size_t)-1, "invariant %s not loaded", id);
    gc_level lv;
    fx_decode(&lv, fx.file.p, fx.file.len);
    gc_table *tabs = calloc(lv.table_count, sizeof *tabs);
    gc_level_tables(&lv, tabs);
    gc_inv_result r;
    cr_assert_eq(gc_inv_eval_level(s, k, tabs, 3, 1, &r), 0);
    uint64_t failed = r.failed;
    cr_assert(r.checked > 0 || failed > 0, "%s checked nothing", id);
    gc_inv_result_free(&r);
    free(tabs);
    gc_level_free(&lv);
    return failed;
}

Test(dec_misc, invariants_pass_clean_and_fail_mutated)
{
    gc_inv_set *s = load_invariants();
    for (size_t i = 0; i < sizeof inv_cases / sizeof inv_cases[0]; i++) {
        cr_assert_eq(failures(s, inv_cases[i].id, m_none, m_none), 0,
                     "%s fails on the clean fixture", inv_cases[i].id);
        cr_assert_gt(failures(s, inv_cases[i].id, inv_cases[i].parts, inv_cases[i].file), 0,
                     "%s does not catch its mutation", inv_cases[i].id);
    }
    gc_inv_free(s);
}

Test(dec_misc, level_ids_unique_across_corpus)
{
    gc_inv_set *s = load_invariants();
    size_t k = gc_inv_find(s, "level.ids_unique");
    cr_assert_neq(k, (size_t)-1);
    fx_assemble(&fx);
    fx_level other;
    fx_parts(&other);
    for (int same = 0; same < 2; same++) {
        other.level_id = same ? fx.level_id : 30;
        fx_assemble(&other);
        gc_level a, b;
        fx_decode(&a, fx.file.p, fx.file.len);
        fx_decode(&b, other.file.p, other.file.len);
        gc_table *ta = calloc(a.table_count, sizeof *ta), *tb = calloc(b.table_count, sizeof *tb);
        gc_level_tables(&a, ta);
        gc_level_tables(&b, tb);
        const gc_table *levels[2] = {ta, tb};
        int ids[2] = {3, 21};
        gc_inv_result r;
        cr_assert_eq(gc_inv_eval_corpus(s, k, levels, ids, 2, 2, &r), 0);
        cr_assert_eq(r.failed, same ? 2u : 0u, "same=%d", same);
        gc_inv_result_free(&r);
        free(ta);
        free(tb);
        gc_level_free(&a);
        gc_level_free(&b);
    }
    fx_release(&other);
    gc_inv_free(s);
}
