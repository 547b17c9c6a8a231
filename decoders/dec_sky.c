/* SPDX-License-Identifier: MIT */
/* The sky decoder: the sky block in decompressed core_data at the core
 * header's `sky` offset, region [sky, next known start) (formats.md §8.4):
 * its 0x40-byte header and, per shell, the {cluster_count, flags} shell
 * header and its 0x20-byte cluster records at shell + 0x10. All offsets are
 * relative to the sky block. Published as sky.header and sky.shell.
 *
 * The reference notes could not make one fixed header fit every retail
 * level, so header values are published, never failed on: only a block too
 * short for its own header stops the decoder. */
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define SKY_HEADER_BYTES       0x40u
#define SKY_MAX_SHELLS         8u
#define SKY_SHELL_HEADER_BYTES 0x10u /* {cluster_count, flags}, clusters at +0x10 */
#define SKY_CLUSTER_BYTES      0x20u

typedef struct sky_header_row {
    uint64_t file_ofs;
    uint64_t region_bytes;
    uint32_t colour;
    int16_t clear_screen;
    int16_t shell_count;
    int16_t sprite_count;
    int16_t maximum_sprite_count;
    int16_t texture_count;
    int16_t fx_count;
    int32_t texture_defs;
    int32_t texture_data;
    int32_t fx_list;
    int32_t sprites;
    uint32_t shells_inside;
    uint8_t offsets_inside;
} sky_header_row;

static const gc_column header_cols[] = {
    GC_COL(sky_header_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "offset of the sky block"),
    GC_COL(sky_header_row, region_bytes, GC_T_U64, 0, "bytes",
           "block size, to the next known start"),
    GC_COL(sky_header_row, colour, GC_T_U32, GC_CF_HEX, "", "+0x00: RGBA"),
    GC_COL(sky_header_row, clear_screen, GC_T_S16, 0, "", "+0x04"),
    GC_COL(sky_header_row, shell_count, GC_T_S16, 0, "count", "+0x06 (at most 8)"),
    GC_COL(sky_header_row, sprite_count, GC_T_S16, 0, "count", "+0x08"),
    GC_COL(sky_header_row, maximum_sprite_count, GC_T_S16, 0, "count", "+0x0a"),
    GC_COL(sky_header_row, texture_count, GC_T_S16, 0, "count", "+0x0c"),
    GC_COL(sky_header_row, fx_count, GC_T_S16, 0, "count", "+0x0e"),
    GC_COL(sky_header_row, texture_defs, GC_T_S32, GC_CF_HEX, "bytes in sky", "+0x10"),
    GC_COL(sky_header_row, texture_data, GC_T_S32, GC_CF_HEX, "bytes in sky", "+0x14"),
    GC_COL(sky_header_row, fx_list, GC_T_S32, GC_CF_HEX, "bytes in sky", "+0x18"),
    GC_COL(sky_header_row, sprites, GC_T_S32, GC_CF_HEX, "bytes in sky", "+0x1c"),
    GC_COL(sky_header_row, shells_inside, GC_T_U32, 0, "count",
           "shells among the first shell_count whose header and clusters lie inside the block"),
    GC_COL(sky_header_row, offsets_inside, GC_T_BOOL, 0, "",
           "texture_defs, texture_data, fx_list, sprites are each 0 or inside the block"),
};

static const gc_table_desc gc_table_sky_header = {
    .name = "sky.header",
    .doc = "The sky block's 0x40-byte header (one row, none if the level has no sky).",
    .row_size = sizeof(sky_header_row),
    .columns = header_cols,
    .column_count = GC_COUNTOF(header_cols),
};

typedef struct sky_shell_row {
    uint64_t file_ofs;
    uint32_t header_row;
    uint32_t index;
    int32_t offset;
    int32_t cluster_count;
    int32_t flags;
    uint8_t textured;
    uint8_t inside;
    uint32_t vertex_total;
    uint32_t tri_total;
    uint8_t clusters_inside;
} sky_shell_row;

static const gc_column shell_cols[] = {
    GC_COL(sky_shell_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "offset of the shell header"),
    GC_COL(sky_shell_row, header_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "parent sky.header row"),
    GC_COL(sky_shell_row, index, GC_T_U32, 0, "", "shell slot (header +0x20 + 4*index)"),
    GC_COL(sky_shell_row, offset, GC_T_S32, GC_CF_HEX, "bytes in sky", "shells[index]"),
    GC_COL(sky_shell_row, cluster_count, GC_T_S32, 0, "count", "shell +0x00"),
    GC_COL(sky_shell_row, flags, GC_T_S32, GC_CF_HEX, "", "shell +0x04: bit 0 = untextured"),
    GC_COL(sky_shell_row, textured, GC_T_BOOL, 0, "", "flags bit 0 clear"),
    GC_COL(sky_shell_row, inside, GC_T_BOOL, 0, "",
           "the shell header and its clusters lie inside the block"),
    GC_COL(sky_shell_row, vertex_total, GC_T_U32, 0, "count",
           "sum of cluster vertex_count (+0x14)"),
    GC_COL(sky_shell_row, tri_total, GC_T_U32, 0, "count", "sum of cluster tri_count (+0x16)"),
    GC_COL(sky_shell_row, clusters_inside, GC_T_BOOL, 0, "",
           "every cluster's data offset (+0x10) lies inside the block"),
};

static const gc_table_desc gc_table_sky_shell = {
    .name = "sky.shell",
    .doc = "One row per sky shell named by the header (the first shell_count slots).",
    .row_size = sizeof(sky_shell_row),
    .columns = shell_cols,
    .column_count = GC_COUNTOF(shell_cols),
    .parent_table = "sky.header",
    .parent_link = "header",
    .parent_column = "header_row",
};

static bool zero_or_inside(int32_t ofs, size_t size)
{
    return ofs == 0 || (ofs > 0 && (size_t)ofs < size);
}

static gc_status sky_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->core_ok || !lv->data_ok)
        return GC_NEEDS(diag, "the core header and decompressed core_data");
    if (lv->core.sky == 0)
        return GC_OK; /* "0 = none" */
    uint64_t ofs = (uint32_t)lv->core.sky;
    gc_diag_push(diag, "core_data/sky@0x%llx", (unsigned long long)ofs);
    if (ofs >= lv->core_data_size)
        return gc_diag_set(diag, GC_E_RANGE, ofs, "sky offset is outside the %zu-byte core_data",
                           lv->core_data_size);
    uint64_t end = gc_core_next_start(lv, ofs, lv->core_data_size);
    if (end > lv->core_data_size)
        end = lv->core_data_size;
    gc_reader blk = gc_reader_make(lv->core_data + ofs, (size_t)(end - ofs), ofs);
    if (blk.size < SKY_HEADER_BYTES)
        return gc_diag_set(diag, GC_E_TRUNCATED, end,
                           "sky block of %zu bytes is shorter than its header", blk.size);
    sky_header_row h;
    memset(&h, 0, sizeof h);
    h.file_ofs = ofs;
    h.region_bytes = blk.size;
    h.colour = gc_u32le(&blk);               /* +0x00 */
    h.clear_screen = gc_s16le(&blk);         /* +0x04 */
    h.shell_count = gc_s16le(&blk);          /* +0x06 */
    h.sprite_count = gc_s16le(&blk);         /* +0x08 */
    h.maximum_sprite_count = gc_s16le(&blk); /* +0x0a */
    h.texture_count = gc_s16le(&blk);        /* +0x0c */
    h.fx_count = gc_s16le(&blk);             /* +0x0e */
    h.texture_defs = gc_s32le(&blk);         /* +0x10 */
    h.texture_data = gc_s32le(&blk);         /* +0x14 */
    h.fx_list = gc_s32le(&blk);              /* +0x18 */
    h.sprites = gc_s32le(&blk);              /* +0x1c */
    int32_t shells[SKY_MAX_SHELLS];
    for (unsigned i = 0; i < SKY_MAX_SHELLS; i++)
        shells[i] = gc_s32le(&blk); /* +0x20 + 4*i */
    h.offsets_inside = zero_or_inside(h.texture_defs, blk.size) &&
                       zero_or_inside(h.texture_data, blk.size) &&
                       zero_or_inside(h.fx_list, blk.size) && zero_or_inside(h.sprites, blk.size);
    gc_rowbuf *hrb = gc_level_rows(lv, &gc_table_sky_header);
    uint32_t header_row = (uint32_t)hrb->count;
    unsigned n = h.shell_count < 0 ? 0 : (unsigned)h.shell_count;
    if (n > SKY_MAX_SHELLS)
        n = SKY_MAX_SHELLS;
    gc_rowbuf *srb = gc_level_rows(lv, &gc_table_sky_shell);
    for (unsigned i = 0; i < n; i++) {
        sky_shell_row s;
        memset(&s, 0, sizeof s);
        s.header_row = header_row;
        s.index = i;
        s.offset = shells[i];
        s.file_ofs = ofs + (shells[i] > 0 ? (uint64_t)shells[i] : 0);
        if (shells[i] > 0 && (uint64_t)shells[i] + SKY_SHELL_HEADER_BYTES <= blk.size) {
            gc_reader sh = gc_window(&blk, (size_t)shells[i], blk.size - (size_t)shells[i]);
            s.cluster_count = gc_s32le(&sh); /* +0x00 */
            s.flags = gc_s32le(&sh);         /* +0x04 */
            s.textured = (s.flags & 1) == 0;
            size_t need = 0;
            if (s.cluster_count >= 0 &&
                gc_size_mad((size_t)s.cluster_count, SKY_CLUSTER_BYTES, SKY_SHELL_HEADER_BYTES,
                            &need) &&
                need <= sh.size) {
                s.inside = 1;
                s.clusters_inside = 1;
                gc_seek(&sh, SKY_SHELL_HEADER_BYTES);
                for (int32_t c = 0; c < s.cluster_count; c++) {
                    gc_reader cl = gc_take_window(&sh, SKY_CLUSTER_BYTES);
                    gc_skip(&cl, 16);             /* +0x00 bsphere */
                    int32_t data = gc_s32le(&cl); /* +0x10 */
                    int16_t vc = gc_s16le(&cl);   /* +0x14 */
                    int16_t tc = gc_s16le(&cl);   /* +0x16 */
                    if (!(data > 0 && (size_t)data < blk.size))
                        s.clusters_inside = 0;
                    s.vertex_total += vc > 0 ? (uint32_t)vc : 0;
                    s.tri_total += tc > 0 ? (uint32_t)tc : 0;
                }
            }
        }
        h.shells_inside += s.inside;
        sky_shell_row *out = gc_rows_push(srb);
        if (!out)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for sky.shell");
        *out = s;
    }
    sky_header_row *out = gc_rows_push(hrb);
    if (!out)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for sky.header");
    *out = h;
    gc_diag_pop(diag);
    return GC_OK;
}

static const gc_table_desc *const sky_tables[] = {&gc_table_sky_header, &gc_table_sky_shell};

const gc_decoder gc_dec_sky = {
    .name = "sky",
    .doc = "sky block header, shells and cluster records",
    .tables = sky_tables,
    .table_count = GC_COUNTOF(sky_tables),
    .run = sky_run,
    .release = NULL,
};
