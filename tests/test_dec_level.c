/* SPDX-License-Identifier: MIT */
/* Tests of the level decoder (decoders/dec_level.c) on the hand-built
 * fixture of tests/dec_fixture.h: header row, sector-unit extents, file
 * order, contents_bytes, and every way the header can be cut or wrong. */
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

TestSuite(dec_level, .init = setup, .fini = teardown);

Test(dec_level, header_row_and_extents)
{
    gc_level lv;
    fx_decode(&lv, fx.file.p, fx.file.len);
    cr_assert(fx_status(&lv, "level")->ok);
    cr_assert(lv.header_ok);
    cr_assert_eq(fx_col(&lv, "level.header", 0, "header_size"), 0x60);
    cr_assert_eq(fx_col(&lv, "level.header", 0, "level_id"), 3);
    cr_assert_eq(fx_col(&lv, "level.header", 0, "disc_sector"), 1234);
    cr_assert_eq(fx_col(&lv, "level.header", 0, "file_size"), (double)fx.file.len);
    cr_assert_eq(fx_col(&lv, "level.header", 0, "file_size_sectors"),
                 (double)(fx.file.len / 0x800));
    cr_assert_eq(fx_col(&lv, "level.header", 0, "header_end_bytes"), 0x800);
    cr_assert_eq(fx_rows(&lv, "level.extent")->count, 10);
    /* declared extents first, in file order: data, sound_bank, gameplay, occlusion */
    const char *order[4] = {"data", "sound_bank", "gameplay", "occlusion"};
    size_t ofs[4] = {fx.data_ofs, fx.sound_ofs, fx.gameplay_ofs, fx.occl_ofs};
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(fx_find(&lv, "level.extent", "name", order[i]), (long)i);
        cr_assert_eq(fx_col(&lv, "level.extent", i, "offset_bytes"), (double)ofs[i]);
        cr_assert_eq(fx_col(&lv, "level.extent", i, "offset_sectors"), (double)(ofs[i] / 0x800));
        cr_assert_eq(fx_col(&lv, "level.extent", i, "present"), 1);
        double end = fx_col(&lv, "level.extent", i, "end_bytes");
        double next = i < 3 ? (double)ofs[i + 1] : (double)fx.file.len;
        cr_assert_eq(end, next, "extent %s does not tile", order[i]);
    }
    cr_assert_eq(fx_col(&lv, "level.extent", 0, "size_bytes"), (double)fx.data_size);
    cr_assert_eq(lv.data_extent.size, fx.data_size);
    cr_assert_eq(lv.data_extent.data, fx.file.p + fx.data_ofs);
    for (size_t i = 4; i < 10; i++)
        cr_assert_eq(fx_col(&lv, "level.extent", i, "declared"), 0);
    /* contents: data = highest header range end; gameplay = LZ length;
     * occlusion = 16 + 8 * mappings */
    cr_assert_eq(fx_col(&lv, "level.extent", 0, "contents_bytes"),
                 (double)(fx.cd_ofs + fx.cd_z_size));
    cr_assert_eq(fx_col(&lv, "level.extent", 2, "contents_bytes"), (double)fx.gameplay_z_size);
    cr_assert_eq(fx_col(&lv, "level.extent", 3, "contents_bytes"), 24);
    cr_assert_eq(fx_col(&lv, "level.extent", 1, "contents_bytes"), 0x400); /* sound bank +0x04 */
    for (size_t i = 4; i < 10; i++) /* undeclared: unknown = null */
        cr_assert_eq(fx_col(&lv, "level.extent", i, "contents_bytes"), (double)UINT64_MAX);
    gc_level_free(&lv);
}

Test(dec_level, truncated_header_every_length)
{
    for (size_t n = 0; n < 0x60; n++) {
        gc_level lv;
        fx_decode(&lv, fx.file.p, n);
        const gc_decode_status_row *r = fx_status(&lv, "level");
        cr_assert_eq(r->status, GC_E_TRUNCATED, "length %zu", n);
        cr_assert(strstr(r->where, "LEVEL3.WAD/header") != NULL, "where '%s'", r->where);
        cr_assert(!lv.header_ok);
        /* every later decoder is skipped, not failed */
        cr_assert(fx_status(&lv, "data")->skipped);
        cr_assert(fx_status(&lv, "gameplay")->skipped);
        gc_level_free(&lv);
    }
}

Test(dec_level, other_header_sizes)
{
    fx_set_u32(&fx.file, 0, 0x68);
    gc_level lv;
    fx_decode(&lv, fx.file.p, fx.file.len);
    cr_assert_eq(fx_status(&lv, "level")->status, GC_E_UNSUPPORTED);
    cr_assert(!fx_status(&lv, "level")->skipped);
    cr_assert_eq(fx_col(&lv, "level.header", 0, "header_size"),
                 0x68); /* row kept for the invariant */
    gc_level_free(&lv);
    fx_set_u32(&fx.file, 0, 0x1018);
    fx_decode(&lv, fx.file.p, fx.file.len);
    cr_assert_eq(fx_status(&lv, "level")->status, GC_E_MAGIC);
    gc_level_free(&lv);
}

Test(dec_level, extent_past_end_of_file)
{
    /* gameplay size one sector too big: declared, not inside, no span */
    uint32_t sz = gc_load_u32le(fx.file.p + 0x24);
    fx_set_u32(&fx.file, 0x24, sz + 1000);
    gc_level lv;
    fx_decode(&lv, fx.file.p, fx.file.len);
    const gc_decode_status_row *r = fx_status(&lv, "level");
    cr_assert_eq(r->status, GC_E_TRUNCATED); /* the file is shorter than its header says */
    cr_assert_eq(r->file_ofs, fx.file.len);
    cr_assert(strstr(r->where, "LEVEL3.WAD/gameplay") != NULL, "where '%s'", r->where);
    cr_assert(lv.header_ok); /* the other extents are still handed on */
    cr_assert(fx_status(&lv, "data")->ok);
    long g = fx_find(&lv, "level.extent", "name", "gameplay");
    cr_assert_eq(fx_col(&lv, "level.extent", (size_t)g, "declared"), 1);
    cr_assert_eq(fx_col(&lv, "level.extent", (size_t)g, "inside_file"), 0);
    cr_assert_eq(fx_col(&lv, "level.extent", (size_t)g, "present"), 0);
    cr_assert(!lv.gameplay_z.present);
    cr_assert(fx_status(&lv, "gameplay")->skipped);
    gc_level_free(&lv);
}

Test(dec_level, negative_and_huge_ranges)
{
    fx_set_u32(&fx.file, 0x18, 0xFFFFFFFFu); /* sound bank offset -1 */
    fx_set_u32(&fx.file, 0x2c, 0x7FFFFFFFu); /* occlusion size 2^31-1 sectors */
    gc_level lv;
    fx_decode(&lv, fx.file.p, fx.file.len);
    cr_assert_eq(fx_status(&lv, "level")->status,
                 GC_E_RANGE); /* sound bank first in header order */
    cr_assert_eq(fx_status(&lv, "level")->file_ofs, 0x18);
    cr_assert(!lv.sound_bank.present);
    cr_assert(!lv.occlusion_ext.present);
    long o = fx_find(&lv, "level.extent", "name", "occlusion");
    cr_assert_eq(fx_col(&lv, "level.extent", (size_t)o, "size_bytes"), 0x7FFFFFFFu * 2048.0);
    gc_level_free(&lv);
}

Test(dec_level, sectors_converted_not_bytes)
{
    /* the 2048x unit error: the data extent's contents fill its last
     * sector, so contents_bytes / size_bytes is near 1, never 1/2048 */
    gc_level lv;
    fx_decode(&lv, fx.file.p, fx.file.len);
    double size = fx_col(&lv, "level.extent", 0, "size_bytes");
    double contents = fx_col(&lv, "level.extent", 0, "contents_bytes");
    cr_assert(contents <= size && size - contents < 2048, "contents %g size %g", contents, size);
    cr_assert_eq(size, fx_col(&lv, "level.extent", 0, "size_sectors") * 2048);
#if GC_FAULTS_BUILT
    gc_level_free(&lv);
    gc_level_init(&lv, 3, "LEVEL3.WAD", fx.file.p, fx.file.len);
    lv.fault = GC_FAULT_extent_bytes;
    gc_level_decode(&lv);
    cr_assert_eq(fx_col(&lv, "level.extent", 0, "size_bytes"),
                 fx_col(&lv, "level.extent", 0, "size_sectors"));
#endif
    gc_level_free(&lv);
}

Test(dec_level, file_cut_inside_an_extent)
{
    /* every cut between the header and the end: the level decoder reports
     * truncated at the file end, and the extents wholly before the cut still
     * decode */
    size_t cuts[] = {0x60,
                     0x800,
                     fx.data_ofs + 0x100,
                     fx.sound_ofs + 1,
                     fx.gameplay_ofs + 0x10,
                     fx.occl_ofs + 0x7FF};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        gc_level lv;
        fx_decode(&lv, fx.file.p, cuts[i]);
        const gc_decode_status_row *r = fx_status(&lv, "level");
        cr_assert_eq(r->status, GC_E_TRUNCATED, "cut at 0x%zx", cuts[i]);
        cr_assert_eq(r->file_ofs, cuts[i]);
        cr_assert(lv.header_ok);
        bool data_whole = fx.data_ofs + fx.data_size <= cuts[i];
        cr_assert_eq(fx_status(&lv, "data")->ok, data_whole, "cut at 0x%zx", cuts[i]);
        cr_assert_eq(fx_status(&lv, "data")->skipped, !data_whole, "cut at 0x%zx", cuts[i]);
        gc_level_free(&lv);
    }
}
