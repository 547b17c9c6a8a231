/* SPDX-License-Identifier: MIT */
/* The shrub decoder: the shrub class table of core_index (0x30-byte entries
 * with billboard slots, formats.md §4.3) and the self-identifying words of
 * each class header in core_data (§7.3): o_class at +0x24 and the data
 * (normals) offset at +0x2c, which the reference notes found exact on all
 * 358 retail spans. Published as shrub.class.
 *
 * The stride is 0x30, not the moby/tie 0x20: read at 0x20 the table still
 * yields 231 of 358 sane-looking entries on the retail disc, which is why
 * the header's own o_class is the check (fault shrub_stride). */
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define SHRUB_CLASS_STRIDE       0x30u
#define SHRUB_CLASS_STRIDE_WRONG 0x20u /* the moby stride (fault shrub_stride) */
#define SHRUB_HEADER_BYTES       0x40u

typedef struct shrub_class_row {
    uint64_t file_ofs;
    uint32_t index;
    int32_t o_class;
    uint32_t offset_in_asset_wad;
    uint64_t span_bytes;
    uint8_t in_core_data;
    uint8_t shares_offset;
    uint8_t header_read;
    int16_t billboard_width;
    int16_t billboard_height;
    float mip_distance;
    int16_t instance_count;
    float scale;
    int16_t span_o_class;
    int16_t s_class;
    int16_t packet_count;
    int32_t data_ofs;
    uint8_t data_ofs_inside;
} shrub_class_row;

static const gc_column class_cols[] = {
    GC_CLASS_ENTRY_COLUMNS(shrub_class_row, "shrub"),
    GC_COL(shrub_class_row, header_read, GC_T_BOOL, 0, "",
           "the 0x40-byte class header fits in the span"),
    GC_COL(shrub_class_row, billboard_width, GC_T_S16, 0, "pixels",
           "entry +0x20: 0 = no billboard"),
    GC_COL(shrub_class_row, billboard_height, GC_T_S16, 0, "pixels", "entry +0x22"),
    GC_COL(shrub_class_row, mip_distance, GC_T_F32, 0, "world units", "header +0x10"),
    GC_COL(shrub_class_row, instance_count, GC_T_S16, 0, "count", "header +0x16"),
    GC_COL(shrub_class_row, scale, GC_T_F32, 0, "", "header +0x20"),
    GC_COL(shrub_class_row, span_o_class, GC_T_S16, 0, "",
           "header +0x24: o_class as the class itself says"),
    GC_COL(shrub_class_row, s_class, GC_T_S16, 0, "", "header +0x26"),
    GC_COL(shrub_class_row, packet_count, GC_T_S16, 0, "count", "header +0x28"),
    GC_COL(shrub_class_row, data_ofs, GC_T_S32, GC_CF_HEX, "bytes in class",
           "header +0x2c: normals/data offset"),
    GC_COL(shrub_class_row, data_ofs_inside, GC_T_BOOL, 0, "", "0 < data_ofs < span_bytes"),
};

static const gc_table_desc gc_table_shrub_class = {
    .name = "shrub.class",
    .doc = "One row per shrub class table entry, with the self-identifying header words.",
    .row_size = sizeof(shrub_class_row),
    .columns = class_cols,
    .column_count = GC_COUNTOF(class_cols),
};

static gc_status shrub_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->core_ok)
        return GC_NEEDS(diag, "the core header");
    if (!lv->data_ok)
        return GC_NEEDS(diag, "decompressed core_data");
    /* Historical bug: the table read at the moby stride. */
    const size_t stride =
        GC_FAULT(lv, shrub_stride) ? SHRUB_CLASS_STRIDE_WRONG : SHRUB_CLASS_STRIDE;
    gc_array_range t = lv->core.shrub_classes;
    gc_reader tab;
    gc_status st = gc_class_table_reader(lv, t, stride, "shrub", &tab, diag);
    if (st != GC_OK)
        return st;
    gc_reader cd = gc_reader_make(lv->core_data, lv->core_data_size, 0);
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_shrub_class);
    for (int32_t i = 0; i < t.count; i++) {
        shrub_class_row c;
        memset(&c, 0, sizeof c);
        c.file_ofs = gc_tell_file(&tab);
        c.index = (uint32_t)i;
        gc_reader e = gc_take_window(&tab, stride);
        c.offset_in_asset_wad = gc_u32le(&e); /* +0x00 */
        c.o_class = gc_s32le(&e);             /* +0x04 */
        if (stride >= 0x24) {
            gc_seek(&e, 0x20);
            c.billboard_width = gc_s16le(&e);  /* +0x20 */
            c.billboard_height = gc_s16le(&e); /* +0x22 */
        }
        gc_class_span sp = gc_class_span_of(lv, c.offset_in_asset_wad);
        c.in_core_data = sp.in_core_data;
        c.span_bytes = sp.span_bytes;
        c.shares_offset = sp.shares_offset;
        if (c.in_core_data && c.span_bytes >= SHRUB_HEADER_BYTES) {
            gc_reader h = gc_window(&cd, c.offset_in_asset_wad, SHRUB_HEADER_BYTES);
            c.header_read = 1;
            gc_seek(&h, 0x10);
            c.mip_distance = gc_f32le(&h);   /* +0x10 */
            gc_skip(&h, 2);                  /* +0x14 mode_bits */
            c.instance_count = gc_s16le(&h); /* +0x16 */
            gc_seek(&h, 0x20);
            c.scale = gc_f32le(&h);        /* +0x20 */
            c.span_o_class = gc_s16le(&h); /* +0x24 */
            c.s_class = gc_s16le(&h);      /* +0x26 */
            c.packet_count = gc_s16le(&h); /* +0x28 */
            gc_skip(&h, 2);                /* +0x2a pad */
            c.data_ofs = gc_s32le(&h);     /* +0x2c */
            c.data_ofs_inside = c.data_ofs > 0 && (uint64_t)c.data_ofs < c.span_bytes;
        }
        shrub_class_row *row = gc_rows_push(rb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for shrub.class");
        *row = c;
    }
    return GC_OK;
}

static const gc_table_desc *const shrub_tables[] = {&gc_table_shrub_class};

const gc_decoder gc_dec_shrub = {
    .name = "shrub",
    .doc = "shrub class table (0x30 stride) and self-identifying class header words",
    .tables = shrub_tables,
    .table_count = GC_COUNTOF(shrub_tables),
    .run = shrub_run,
    .release = NULL,
};
