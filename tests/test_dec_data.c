/* SPDX-License-Identifier: MIT */
/* Tests of the data decoder (decoders/dec_data.c): the 0x58-byte data
 * header, core_data decompression sized from the core header, and each
 * hostile size or range giving its own status and breadcrumb. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

#include "dec_fixture.h"
#include "gc_fsutil.h"
#include "gc_lz.h"

int gc_cmd_extract(int argc, char **argv); /* harness/cli/cmd_extract.c */

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

TestSuite(dec_data, .init = setup, .fini = teardown);

static const gc_decode_status_row *decode(gc_level *lv)
{
    fx_decode(lv, fx.file.p, fx.file.len);
    return fx_status(lv, "data");
}

Test(dec_data, ranges_and_core_data)
{
    gc_level lv;
    cr_assert(decode(&lv)->ok, "%s", fx_status(&lv, "data")->message);
    cr_assert(lv.data_ok);
    cr_assert_eq(fx_rows(&lv, "data.range")->count, 11);
    cr_assert_eq(fx_col(&lv, "data.range", 1, "offset_bytes"), (double)fx.ci_ofs);
    cr_assert_eq(fx_col(&lv, "data.range", 1, "size_bytes"), FX_CI_SIZE);
    cr_assert_eq(fx_col(&lv, "data.range", 1, "file_ofs"), (double)(fx.data_ofs + 8));
    cr_assert_eq(fx_col(&lv, "data.range", 3, "declared"), 0); /* hud_header {-1, 0} */
    cr_assert_eq(fx_col(&lv, "data.range", 9, "present"), 1);
    cr_assert_eq(lv.core_index.data, fx.file.p + fx.data_ofs + fx.ci_ofs);
    cr_assert_eq(lv.overlay.size, FX_OV_SIZE);
    cr_assert_eq(lv.core_data_size, FX_CD_SIZE);
    cr_assert(memcmp(lv.core_data, fx.core_data.p, FX_CD_SIZE) == 0);
    cr_assert_eq(fx_col(&lv, "data.core_data", 0, "lz_size_field"), (double)fx.cd_z_size);
    cr_assert_eq(fx_col(&lv, "data.core_data", 0, "assets_compressed_size"), (double)fx.cd_z_size);
    cr_assert_eq(fx_col(&lv, "data.core_data", 0, "assets_decompressed_size"), FX_CD_SIZE);
    cr_assert_eq(fx_col(&lv, "data.core_data", 0, "decompressed_bytes"), FX_CD_SIZE);
    cr_assert_eq(fx_col(&lv, "data.core_data", 0, "magic_ok"), 1);
    gc_level_free(&lv);
}

Test(dec_data, data_header_truncated)
{
    fx_set_u32(&fx.file, 0x14, 0); /* data extent of 0 sectors: not declared */
    gc_level lv;
    cr_assert(decode(&lv)->skipped);
    gc_level_free(&lv);
    /* a data extent shorter than 0x58 bytes: place it at the last byte of the file */
    fx_buf b = {0};
    fx_put(&b, fx.file.p, fx.file.len);
    fx_zero(&b, 0x800);
    fx_set_u32(&b, 0x10, (uint32_t)(fx.file.len / 0x800));
    fx_set_u32(&b, 0x14, 1);
    gc_level_init(&lv, 3, "LEVEL3.WAD", b.p, b.len - 0x800 + 0x40); /* file ends 0x40 into it */
    gc_level_decode(&lv);
    cr_assert(fx_status(&lv, "data")->skipped); /* extent not inside the file */
    gc_level_free(&lv);
    fx_free(&b);
}

Test(dec_data, core_index_outside_extent)
{
    fx_set_u32(&fx.file, fx.data_ofs + 12,
               (uint32_t)fx.data_size); /* core_index size = whole extent */
    gc_level lv;
    const gc_decode_status_row *r = decode(&lv);
    cr_assert_eq(r->status, GC_E_RANGE);
    cr_assert(strstr(r->where, "data/core_index") != NULL, "where '%s'", r->where);
    cr_assert_eq(fx_col(&lv, "data.range", 1, "inside"), 0);
    cr_assert(!lv.data_ok);
    cr_assert(fx_status(&lv, "moby")->skipped);
    gc_level_free(&lv);
}

Test(dec_data, core_index_shorter_than_header)
{
    fx_set_u32(&fx.file, fx.data_ofs + 12, 0xB8);
    gc_level lv;
    const gc_decode_status_row *r = decode(&lv);
    cr_assert_eq(r->status, GC_E_TRUNCATED);
    cr_assert_eq(r->file_ofs, fx.data_ofs + fx.ci_ofs + 0xB8);
    gc_level_free(&lv);
}

Test(dec_data, bad_magic)
{
    fx.file.p[fx.data_ofs + fx.cd_ofs] = 'X';
    gc_level lv;
    const gc_decode_status_row *r = decode(&lv);
    cr_assert_eq(r->status, GC_E_MAGIC);
    cr_assert(strstr(r->where, "core_data") != NULL);
    cr_assert_eq(fx_col(&lv, "data.core_data", 0, "magic_ok"), 0);
    gc_level_free(&lv);
}

Test(dec_data, impossible_decompressed_sizes)
{
    /* the last is one byte more than the stream's packets can produce (wad-lz.md) */
    uint32_t bad[3] = {0, 0xFFFFFFFFu, (uint32_t)gc_lz_max_output(fx.cd_z_size) + 1};
    for (int i = 0; i < 3; i++) {
        fx_set_u32(&fx.file, fx.data_ofs + fx.ci_ofs + 0x8c, bad[i]);
        gc_level lv;
        const gc_decode_status_row *r = decode(&lv);
        cr_assert_eq(r->status, GC_E_RANGE, "size 0x%x", bad[i]);
        cr_assert_eq(r->file_ofs, fx.data_ofs + fx.ci_ofs + 0x8c);
        gc_level_free(&lv);
    }
}

Test(dec_data, declared_size_smaller_than_stream_output)
{
    /* output beyond the declared size (within the slack) is a row value */
    fx_set_u32(&fx.file, fx.data_ofs + fx.ci_ofs + 0x8c, FX_CD_SIZE - 16);
    gc_level lv;
    cr_assert(decode(&lv)->ok);
    cr_assert_eq(fx_col(&lv, "data.core_data", 0, "decompressed_bytes"), FX_CD_SIZE);
    cr_assert_eq(fx_col(&lv, "data.core_data", 0, "assets_decompressed_size"), FX_CD_SIZE - 16);
    gc_level_free(&lv);
}

Test(dec_data, stream_output_short_of_declared_size)
{
    fx_set_u32(&fx.file, fx.data_ofs + fx.ci_ofs + 0x8c, FX_CD_SIZE + 16);
    gc_level lv;
    const gc_decode_status_row *r = decode(&lv);
    cr_assert_eq(r->status, GC_E_TRUNCATED);
    cr_assert(strstr(r->where, "core_data") != NULL);
    cr_assert_eq(fx_col(&lv, "data.core_data", 0, "decompressed_bytes"), FX_CD_SIZE);
    cr_assert_eq(fx_col(&lv, "data.core_data", 0, "decompressed"), 0);
    cr_assert(!lv.data_ok);
    cr_assert(lv.core_data == NULL);
    cr_assert(fx_status(&lv, "moby")->skipped);
    gc_level_free(&lv);
}

Test(dec_data, stream_output_far_beyond_declared_size)
{
    /* a 12 KiB core_data declared as 256 bytes: the decoder stops at the
     * buffer it sized from the declared value, it never grows it */
    fx_pad_to(&fx.core_data, 0x3000);
    fx_set_u32(&fx.core_index, 0x8c, 0x3000);
    fx_assemble(&fx);
    fx_set_u32(&fx.file, fx.data_ofs + fx.ci_ofs + 0x8c, 0x100);
    gc_level lv;
    const gc_decode_status_row *r = decode(&lv);
    cr_assert_eq(r->status, GC_E_RANGE);
    cr_assert(strstr(r->where, "core_data") != NULL);
    cr_assert(!lv.data_ok);
    gc_level_free(&lv);
}

Test(dec_data, stream_cut_short)
{
    /* the core_data range ends before the stream's own length */
    fx_set_u32(&fx.file, fx.data_ofs + 9 * 8 + 4, (uint32_t)(fx.cd_z_size - 10));
    gc_level lv;
    const gc_decode_status_row *r = decode(&lv);
    cr_assert_eq(r->status, GC_E_TRUNCATED);
    cr_assert(strstr(r->where, "core_data") != NULL);
    gc_level_free(&lv);
}

Test(dec_data, core_data_outside_extent)
{
    fx_set_u32(&fx.file, fx.data_ofs + 9 * 8, (uint32_t)fx.data_size);
    gc_level lv;
    const gc_decode_status_row *r = decode(&lv);
    cr_assert_eq(r->status, GC_E_RANGE);
    cr_assert(strstr(r->where, "core_data") != NULL);
    gc_level_free(&lv);
}

static void expect_file(const char *dir, const char *name, const uint8_t *want, size_t n)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len = 0;
    char *got = gc_read_file(path, &len, err, sizeof err);
    cr_assert_not_null(got, "%s: %s", name, err);
    cr_assert_eq(len, n, "%s: %zu bytes, want %zu", name, len, n);
    cr_assert(memcmp(got, want, n) == 0, "%s differs", name);
    free(got);
}

Test(dec_data, extract_writes_every_piece)
{
    char dir[] = "/tmp/gc_extract_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char in[600], out[600], path[700], err[256];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    cr_assert_eq(gc_mkdir_p(in, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/level3.wad", in); /* any case */
    cr_assert_eq(gc_write_file_atomic(path, fx.file.p, fx.file.len, err, sizeof err), 0);
    char *argv[] = {"extract", "--corpus", in, "--level", "3", "--out", out, NULL};
    cr_assert_eq(gc_cmd_extract(7, argv), 0);
    expect_file(out, "data.bin", fx.file.p + fx.data_ofs, fx.data_size);
    expect_file(out, "core_data.wad", fx.file.p + fx.data_ofs + fx.cd_ofs, fx.cd_z_size);
    expect_file(out, "core_data.bin", fx.core_data.p, fx.core_data.len);
    expect_file(out, "core_index.bin", fx.core_index.p, fx.core_index.len);
    expect_file(out, "gameplay.bin", fx.gameplay.p, fx.gameplay.len);
    expect_file(out, "sound_bank.bin", fx.file.p + fx.sound_ofs, 0x800);
    expect_file(out, "gs_ram.bin", fx.file.p + fx.data_ofs + fx.cd_ofs - 0x40, 0x40);
    char *bad_level[] = {"extract", "--corpus", in, "--level", "4", "--out", out, NULL};
    cr_assert_eq(gc_cmd_extract(7, bad_level), 3); /* LEVEL4.WAD missing */
    char *usage[] = {"extract", "--corpus", in, NULL};
    cr_assert_eq(gc_cmd_extract(3, usage), 2);
    gc_rm_rf(dir);
}
