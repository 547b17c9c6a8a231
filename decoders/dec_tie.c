/* SPDX-License-Identifier: MIT */
/* The tie decoder: the tie class table of core_index (0x20-byte entries,
 * formats.md §4.2) and the part of each class header the reference notes
 * verified on the retail disc, the first 0x48 bytes (§7.2): per-LOD packet
 * offsets and counts, the near/mid/far LOD distances, scale and o_class at
 * +0x44. Past 0x48 the retail header does not match the documented layout
 * (level-assets.md "Tie: the class header only partly matches"), so nothing
 * there is decoded. Published as tie.class. */
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define TIE_CLASS_STRIDE        0x20u
#define TIE_HEADER_PREFIX_BYTES 0x48u /* the verified prefix */

typedef struct tie_class_row {
    uint64_t file_ofs;
    uint32_t index;
    int32_t o_class;
    uint32_t offset_in_asset_wad;
    uint64_t span_bytes;
    uint8_t in_core_data;
    uint8_t shares_offset;
    uint8_t header_read;
    int32_t packet_ofs_0;
    int32_t packet_ofs_1;
    int32_t packet_ofs_2;
    uint8_t packet_count_0;
    uint8_t packet_count_1;
    uint8_t packet_count_2;
    uint8_t texture_count;
    float near_dist;
    float mid_dist;
    float far_dist;
    float scale;
    int16_t header_o_class;
    int16_t t_class;
    uint8_t lod_ordered;
    uint8_t packets_inside;
} tie_class_row;

static const gc_column class_cols[] = {
    GC_CLASS_ENTRY_COLUMNS(tie_class_row, "tie"),
    GC_COL(tie_class_row, header_read, GC_T_BOOL, 0, "",
           "the 0x48-byte header prefix fits in the span"),
    GC_COL(tie_class_row, packet_ofs_0, GC_T_S32, GC_CF_HEX, "bytes in class",
           "header +0x00: LOD 0 packets"),
    GC_COL(tie_class_row, packet_ofs_1, GC_T_S32, GC_CF_HEX, "bytes in class",
           "header +0x04: LOD 1 packets"),
    GC_COL(tie_class_row, packet_ofs_2, GC_T_S32, GC_CF_HEX, "bytes in class",
           "header +0x08: LOD 2 packets"),
    GC_COL(tie_class_row, packet_count_0, GC_T_U8, 0, "count", "header +0x0c"),
    GC_COL(tie_class_row, packet_count_1, GC_T_U8, 0, "count", "header +0x0d"),
    GC_COL(tie_class_row, packet_count_2, GC_T_U8, 0, "count", "header +0x0e"),
    GC_COL(tie_class_row, texture_count, GC_T_U8, 0, "count", "header +0x0f"),
    GC_COL(tie_class_row, near_dist, GC_T_F32, 0, "world units", "header +0x10"),
    GC_COL(tie_class_row, mid_dist, GC_T_F32, 0, "world units", "header +0x14"),
    GC_COL(tie_class_row, far_dist, GC_T_F32, 0, "world units", "header +0x18"),
    GC_COL(tie_class_row, scale, GC_T_F32, 0, "", "header +0x40"),
    GC_COL(tie_class_row, header_o_class, GC_T_S16, 0, "",
           "header +0x44: o_class as the class itself says"),
    GC_COL(tie_class_row, t_class, GC_T_S16, 0, "", "header +0x46"),
    GC_COL(tie_class_row, lod_ordered, GC_T_BOOL, 0, "", "0 < near_dist < mid_dist < far_dist"),
    GC_COL(tie_class_row, packets_inside, GC_T_BOOL, 0, "",
           "all three packet offsets lie inside the class span"),
};

static const gc_table_desc gc_table_tie_class = {
    .name = "tie.class",
    .doc = "One row per tie class table entry, with the verified 0x48-byte header prefix.",
    .row_size = sizeof(tie_class_row),
    .columns = class_cols,
    .column_count = GC_COUNTOF(class_cols),
};

static bool in_span(int32_t ofs, uint64_t span)
{
    return ofs >= 0 && (uint64_t)ofs < span;
}

static gc_status tie_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->core_ok)
        return GC_NEEDS(diag, "the core header");
    if (!lv->data_ok)
        return GC_NEEDS(diag, "decompressed core_data");
    gc_array_range t = lv->core.tie_classes;
    gc_reader tab;
    gc_status st = gc_class_table_reader(lv, t, TIE_CLASS_STRIDE, "tie", &tab, diag);
    if (st != GC_OK)
        return st;
    gc_reader cd = gc_reader_make(lv->core_data, lv->core_data_size, 0);
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_tie_class);
    for (int32_t i = 0; i < t.count; i++) {
        tie_class_row c;
        memset(&c, 0, sizeof c);
        c.file_ofs = gc_tell_file(&tab);
        c.index = (uint32_t)i;
        gc_reader e = gc_take_window(&tab, TIE_CLASS_STRIDE);
        c.offset_in_asset_wad = gc_u32le(&e); /* +0x00 */
        c.o_class = gc_s32le(&e);             /* +0x04 */
        gc_class_span sp = gc_class_span_of(lv, c.offset_in_asset_wad);
        c.in_core_data = sp.in_core_data;
        c.span_bytes = sp.span_bytes;
        c.shares_offset = sp.shares_offset;
        if (c.in_core_data && c.span_bytes >= TIE_HEADER_PREFIX_BYTES) {
            gc_reader h = gc_window(&cd, c.offset_in_asset_wad, TIE_HEADER_PREFIX_BYTES);
            c.header_read = 1;
            c.packet_ofs_0 = gc_s32le(&h); /* +0x00 */
            c.packet_ofs_1 = gc_s32le(&h); /* +0x04 */
            c.packet_ofs_2 = gc_s32le(&h); /* +0x08 */
            c.packet_count_0 = gc_u8(&h);  /* +0x0c */
            c.packet_count_1 = gc_u8(&h);  /* +0x0d */
            c.packet_count_2 = gc_u8(&h);  /* +0x0e */
            c.texture_count = gc_u8(&h);   /* +0x0f */
            c.near_dist = gc_f32le(&h);    /* +0x10 */
            c.mid_dist = gc_f32le(&h);     /* +0x14 */
            c.far_dist = gc_f32le(&h);     /* +0x18 */
            gc_seek(&h, 0x40);
            c.scale = gc_f32le(&h);          /* +0x40 */
            c.header_o_class = gc_s16le(&h); /* +0x44 */
            c.t_class = gc_s16le(&h);        /* +0x46 */
            c.lod_ordered =
                0.0f < c.near_dist && c.near_dist < c.mid_dist && c.mid_dist < c.far_dist;
            c.packets_inside = in_span(c.packet_ofs_0, c.span_bytes) &&
                               in_span(c.packet_ofs_1, c.span_bytes) &&
                               in_span(c.packet_ofs_2, c.span_bytes);
        }
        tie_class_row *row = gc_rows_push(rb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for tie.class");
        *row = c;
    }
    return GC_OK;
}

static const gc_table_desc *const tie_tables[] = {&gc_table_tie_class};

const gc_decoder gc_dec_tie = {
    .name = "tie",
    .doc = "tie class table and the verified class header prefix",
    .tables = tie_tables,
    .table_count = GC_COUNTOF(tie_tables),
    .run = tie_run,
    .release = NULL,
};
