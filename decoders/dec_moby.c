/* SPDX-License-Identifier: MIT */
/* The moby decoder: the moby class table of core_index (0x20-byte entries,
 * formats.md §4.1), each class's 0x48-byte header in decompressed core_data
 * (§7.1) and its packet table, published as moby.class and moby.packet.
 *
 * The 16-byte packet record is named after Wrench: {u32 vif_list_offset,
 * u16 vif_list_size (qwords), u16 texture_unpack_offset, u32 vertex_offset,
 * u8 vertex_data_size, u8 d, u8 e, u8 transfer_vertex_count}. The reference
 * notes call the same words vertex_offset / vertex_count / next_part; their
 * identity `vertex_offset + 16*vertex_count == next_part` is Wrench's "the VIF
 * list is immediately followed by the vertex table", published as identity_ok.
 *
 * A run ends at the first record whose vif_list_offset is zero. Some of those
 * terminators have a zero vertex_offset too and still carry a count (172 on
 * the retail disc); a walker that stops only on a zero vertex_offset takes
 * them for packets, which is the historical defect moby_zero_next.
 *
 * Beyond the packets, the header's bind-pose pointers are checked the way
 * Wrench's MOBY::read_class reads them (engine/moby_low.cpp): the skeleton
 * (+0x14, joint_count 4x4 matrices) and common_trans (+0x18, joint_count
 * 16-byte MobyTrans) when non-zero, and the joint list (+0x1C), which Wrench
 * reads on every class. The entry's 16 texture slots (+0x10) have two
 * readings: Wrench's list of moby texture indices ended by 0xFF, and the
 * reference notes' "all 0xFF on every level-0 class"; texture_reading says
 * which one an entry shows. */
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define MOBY_CLASS_STRIDE 0x20u
#define MOBY_HEADER_BYTES 0x48u
#define MOBY_PACKET_BYTES 0x10u
#define MOBY_SLOTS        16u /* entry +0x10: texture slots, 0xFF = end */
#define MOBY_SLOT_END     0xFFu
#define MOBY_MATRIX_BYTES 64u   /* skeleton: 4x4 f32 */
#define MOBY_TRANS_BYTES  16u   /* MobyTrans {Vec3f, u16 parent_offset, u16 seventy} */
#define MOBY_PARENT_UNIT  0x40u /* parent_offset = parent joint x 0x40 */
#define MOBY_SEQ_BYTES    4u    /* s32 sequence offsets at +0x48 */
#define MOBY_SOUND_BYTES  0x20u /* MobySoundDef */

typedef struct moby_class_row {
    uint64_t file_ofs;
    uint32_t index;
    int32_t o_class;
    uint32_t offset_in_asset_wad;
    uint64_t span_bytes;
    uint8_t in_core_data;
    uint8_t shares_offset;
    uint8_t header_read;
    uint32_t packet_table_offset;
    uint8_t high_lod_count;
    uint8_t low_lod_count;
    uint8_t metal_count;
    uint8_t metal_begin;
    uint8_t joint_count;
    uint8_t format_flag;
    float scale;
    uint32_t lod_packet_count;
    uint32_t packets;
    uint32_t zero_zero_terminators;
    uint8_t terminated;
    uint8_t texture_slots;
    uint8_t texture_reading;
    uint16_t max_texture_index;
    uint8_t sequence_count;
    uint8_t sound_count;
    uint8_t shadow_qwords;
    uint32_t skeleton_offset;
    uint32_t common_trans_offset;
    uint32_t joints_offset;
    uint32_t sound_defs_offset;
    uint8_t header_lists_fit;
    uint8_t bind_pose_fits;
    uint8_t trans_parents_ok;
    int32_t joint_lists;
    uint8_t joint_lists_ok;
} moby_class_row;

static const gc_column class_cols[] = {
    GC_CLASS_ENTRY_COLUMNS(moby_class_row, "moby"),
    GC_COL(moby_class_row, header_read, GC_T_BOOL, 0, "",
           "the 0x48-byte class header fits in its span"),
    GC_COL(moby_class_row, packet_table_offset, GC_T_U32, GC_CF_HEX, "bytes in class",
           "header +0x00 (0 = no mesh)"),
    GC_COL(moby_class_row, high_lod_count, GC_T_U8, 0, "count", "header +0x04"),
    GC_COL(moby_class_row, low_lod_count, GC_T_U8, 0, "count", "header +0x05"),
    GC_COL(moby_class_row, metal_count, GC_T_U8, 0, "count", "header +0x06"),
    GC_COL(moby_class_row, metal_begin, GC_T_U8, 0, "", "header +0x07"),
    GC_COL(moby_class_row, joint_count, GC_T_U8, 0, "count", "header +0x08"),
    GC_COL(moby_class_row, format_flag, GC_T_U8, 0, "", "header +0x0b: 0 = R&C2 format"),
    GC_COL(moby_class_row, scale, GC_T_F32, 0, "", "header +0x24"),
    GC_COL(moby_class_row, lod_packet_count, GC_T_U32, 0, "count",
           "high_lod_count + low_lod_count"),
    GC_COL(moby_class_row, packets, GC_T_U32, 0, "count",
           "packet records decoded (moby.packet rows)"),
    GC_COL(moby_class_row, zero_zero_terminators, GC_T_U32, 0, "count",
           "the run ended on a record with zero vif_list_offset and zero vertex_offset (0 or 1)"),
    GC_COL(moby_class_row, terminated, GC_T_BOOL, 0, "", "the run ended on a zero vif_list_offset"),
    GC_COL(moby_class_row, texture_slots, GC_T_U8, 0, "count",
           "entry +0x10: texture indices before the first 0xFF (of 16)"),
    GC_COL(moby_class_row, texture_reading, GC_T_U8, 0, "",
           "1 = slot list (Wrench's MobyClassEntry.textures), 0 = all 0xFF (the notes' level 0)"),
    GC_COL(moby_class_row, max_texture_index, GC_T_U16, GC_CF_NULL_IF_MAX, "",
           "largest texture slot index; null if no slots"),
    GC_COL(moby_class_row, sequence_count, GC_T_U8, 0, "count", "header +0x0c"),
    GC_COL(moby_class_row, sound_count, GC_T_U8, 0, "count", "header +0x0d"),
    GC_COL(moby_class_row, shadow_qwords, GC_T_U8, 0, "qwords",
           "header +0x0f: shadow data just before the skeleton"),
    GC_COL(moby_class_row, skeleton_offset, GC_T_U32, GC_CF_HEX, "bytes in class",
           "header +0x14: joint_count 4x4 f32 bind matrices (0 = none)"),
    GC_COL(moby_class_row, common_trans_offset, GC_T_U32, GC_CF_HEX, "bytes in class",
           "header +0x18: joint_count 16-byte MobyTrans (0 = none)"),
    GC_COL(moby_class_row, joints_offset, GC_T_U32, GC_CF_HEX, "bytes in class",
           "header +0x1c: the joint list (read on every class)"),
    GC_COL(moby_class_row, sound_defs_offset, GC_T_U32, GC_CF_HEX, "bytes in class",
           "header +0x28: sound_count 0x20-byte sound defs"),
    GC_COL(moby_class_row, header_lists_fit, GC_T_BOOL, 0, "",
           "sequence_count offsets at +0x48 and sound_count defs at sound_defs fit in the span"),
    GC_COL(moby_class_row, bind_pose_fits, GC_T_BOOL, 0, "",
           "shadow, skeleton and common_trans (when non-zero) fit in the span"),
    GC_COL(moby_class_row, trans_parents_ok, GC_T_BOOL, 0, "",
           "every MobyTrans after the first names parent_offset / 0x40 < its own index"),
    GC_COL(moby_class_row, joint_lists, GC_T_S32, 0, "count",
           "joint list +0x0: list count (as read, even when the list does not frame)"),
    GC_COL(moby_class_row, joint_lists_ok, GC_T_BOOL, 0, "",
           "every list {s16 n1, s16 n2, u8[n1], u8[n2], u8 0xFF} lies in the span"),
};

static const gc_table_desc gc_table_moby_class = {
    .name = "moby.class",
    .doc = "One row per moby class table entry, with its class header and packet run.",
    .row_size = sizeof(moby_class_row),
    .columns = class_cols,
    .column_count = GC_COUNTOF(class_cols),
};

typedef struct moby_packet_row {
    uint64_t file_ofs;
    uint32_t class_row;
    uint32_t index;
    uint32_t vif_list_offset;
    uint16_t vif_list_size_qwords;
    uint16_t texture_unpack_offset;
    uint32_t vertex_offset;
    uint8_t vertex_data_size_qwords;
    uint8_t d;
    uint8_t e;
    uint8_t transfer_vertex_count;
    uint8_t identity_ok;
    uint8_t zero_zero;
    uint8_t inside_span;
} moby_packet_row;

static const gc_column packet_cols[] = {
    GC_COL(moby_packet_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "offset of the 16-byte record"),
    GC_COL(moby_packet_row, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "parent moby.class row"),
    GC_COL(moby_packet_row, index, GC_T_U32, 0, "", "record index in the class's packet table"),
    GC_COL(moby_packet_row, vif_list_offset, GC_T_U32, GC_CF_HEX, "bytes in class", "+0x00"),
    GC_COL(moby_packet_row, vif_list_size_qwords, GC_T_U16, 0, "qwords", "+0x04"),
    GC_COL(moby_packet_row, texture_unpack_offset, GC_T_U16, 0, "", "+0x06"),
    GC_COL(moby_packet_row, vertex_offset, GC_T_U32, GC_CF_HEX, "bytes in class", "+0x08"),
    GC_COL(moby_packet_row, vertex_data_size_qwords, GC_T_U8, 0, "qwords", "+0x0c"),
    GC_COL(moby_packet_row, d, GC_T_U8, 0, "", "+0x0d"),
    GC_COL(moby_packet_row, e, GC_T_U8, 0, "", "+0x0e"),
    GC_COL(moby_packet_row, transfer_vertex_count, GC_T_U8, 0, "count", "+0x0f"),
    GC_COL(moby_packet_row, identity_ok, GC_T_BOOL, 0, "",
           "vif_list_offset + 16 * vif_list_size_qwords == vertex_offset"),
    GC_COL(moby_packet_row, zero_zero, GC_T_BOOL, 0, "",
           "vif_list_offset and vertex_offset both zero"),
    GC_COL(moby_packet_row, inside_span, GC_T_BOOL, 0, "",
           "vertex_offset lies inside the class span"),
};

static const gc_table_desc gc_table_moby_packet = {
    .name = "moby.packet",
    .doc = "One row per moby packet-table record, in file order.",
    .row_size = sizeof(moby_packet_row),
    .columns = packet_cols,
    .column_count = GC_COUNTOF(packet_cols),
    .parent_table = "moby.class",
    .parent_link = "class",
    .parent_column = "class_row",
};

/* Walk one class's packet table. `cls` is the class header window (the whole
 * span). Records are bounded by the span and by the lowest VIF list seen so
 * far: the table cannot run into the data it points at. */
static gc_status walk_packets(gc_level *lv, gc_diag *diag, gc_reader cls, moby_class_row *cr,
                              uint32_t class_row)
{
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_moby_packet);
    uint64_t data_floor = cls.size;
    for (uint32_t k = 0;; k++) {
        uint64_t at = (uint64_t)cr->packet_table_offset + (uint64_t)k * MOBY_PACKET_BYTES;
        if (at + MOBY_PACKET_BYTES > cls.size || at >= data_floor)
            return GC_OK; /* ran out of span: terminated stays 0 */
        gc_reader r = gc_window(&cls, (size_t)at, MOBY_PACKET_BYTES);
        moby_packet_row p;
        memset(&p, 0, sizeof p);
        p.file_ofs = r.file_ofs;
        p.class_row = class_row;
        p.index = k;
        p.vif_list_offset = gc_u32le(&r);       /* +0x00 */
        p.vif_list_size_qwords = gc_u16le(&r);  /* +0x04 */
        p.texture_unpack_offset = gc_u16le(&r); /* +0x06 */
        p.vertex_offset = gc_u32le(&r);         /* +0x08 */
        p.vertex_data_size_qwords = gc_u8(&r);  /* +0x0c */
        p.d = gc_u8(&r);                        /* +0x0d */
        p.e = gc_u8(&r);                        /* +0x0e */
        p.transfer_vertex_count = gc_u8(&r);    /* +0x0f */
        p.zero_zero = p.vif_list_offset == 0 && p.vertex_offset == 0;
        p.identity_ok =
            (uint64_t)p.vif_list_offset + 16u * (uint64_t)p.vif_list_size_qwords == p.vertex_offset;
        p.inside_span = p.vertex_offset < cls.size;
        if (!GC_FAULT(lv, moby_zero_next) && p.vif_list_offset == 0) {
            cr->terminated = 1;
            cr->zero_zero_terminators = p.zero_zero;
            return GC_OK;
        }
        moby_packet_row *row = gc_rows_push(rb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for moby.packet");
        *row = p;
        cr->packets++;
        if (p.vif_list_offset != 0 && p.vif_list_offset < data_floor)
            data_floor = p.vif_list_offset;
        /* Historical bug: the run ended only on a zero "next" value, so the
         * zero/zero terminators that still carry a count became packets. */
        if (GC_FAULT(lv, moby_zero_next) && p.vertex_offset == 0) {
            cr->terminated = 1;
            return GC_OK;
        }
    }
}

/* The joint list at `ofs`, framed as Wrench's read_moby_joints reads it:
 * s32 count, count s32 class-relative list offsets, each list
 * {s16 n1, s16 n2, u8[n1], u8[n2], u8 0xFF}. */
static bool joint_lists_frame(gc_reader cls, uint64_t ofs, int32_t *count)
{
    if (ofs + 4 > cls.size)
        return false;
    gc_reader h = gc_window(&cls, (size_t)ofs, 4);
    *count = gc_s32le(&h);
    if (*count < 0 || (uint64_t)*count > (cls.size - ofs - 4) / 4)
        return false;
    gc_reader offs = gc_window(&cls, (size_t)ofs + 4, 4u * (size_t)*count);
    for (int32_t i = 0; i < *count; i++) {
        int32_t lo = gc_s32le(&offs);
        if (lo < 0 || (uint64_t)lo + 4 > cls.size)
            return false;
        gc_reader l = gc_window(&cls, (size_t)lo, 4);
        int16_t n1 = gc_s16le(&l), n2 = gc_s16le(&l);
        if (n1 < 0 || n2 < 0)
            return false;
        uint64_t term = (uint64_t)lo + 4 + (uint64_t)n1 + (uint64_t)n2;
        if (term >= cls.size)
            return false;
        gc_reader t = gc_window(&cls, (size_t)term, 1);
        if (gc_u8(&t) != 0xFF)
            return false;
    }
    return !offs.overrun;
}

/* Header +0x0c.. : the lists Wrench's read_class follows besides the packets. */
static void read_bind_pose(gc_level *lv, gc_reader cls, moby_class_row *c)
{
    gc_reader h = cls;
    gc_seek(&h, 0x0c);
    c->sequence_count = gc_u8(&h);         /* +0x0c */
    c->sound_count = gc_u8(&h);            /* +0x0d */
    gc_skip(&h, 1);                        /* +0x0e lod_trans */
    c->shadow_qwords = gc_u8(&h);          /* +0x0f */
    gc_skip(&h, 4);                        /* +0x10 collision */
    c->skeleton_offset = gc_u32le(&h);     /* +0x14 */
    c->common_trans_offset = gc_u32le(&h); /* +0x18 */
    c->joints_offset = gc_u32le(&h);       /* +0x1c */
    gc_seek(&h, 0x28);
    c->sound_defs_offset = gc_u32le(&h); /* +0x28 */
    uint64_t n = cls.size, j = c->joint_count;
    c->header_lists_fit =
        MOBY_HEADER_BYTES + MOBY_SEQ_BYTES * (uint64_t)c->sequence_count <= n &&
        (c->sound_count == 0 ||
         (uint64_t)c->sound_defs_offset + MOBY_SOUND_BYTES * (uint64_t)c->sound_count <= n);
    uint64_t shadow = 16u * (uint64_t)c->shadow_qwords;
    c->bind_pose_fits =
        (c->skeleton_offset == 0 ||
         (c->skeleton_offset >= shadow && c->skeleton_offset + MOBY_MATRIX_BYTES * j <= n)) &&
        (c->common_trans_offset == 0 || c->common_trans_offset + MOBY_TRANS_BYTES * j <= n);
    c->trans_parents_ok = 1;
    if (c->common_trans_offset != 0 && c->bind_pose_fits) {
        gc_reader t = gc_window(&cls, c->common_trans_offset, MOBY_TRANS_BYTES * (size_t)j);
        for (uint32_t i = 0; i < j; i++) {
            gc_skip(&t, 12);
            uint16_t po = gc_u16le(&t); /* +0x0c parent_offset */
            gc_skip(&t, 2);             /* +0x0e seventy */
            if (i > 0 && (po % MOBY_PARENT_UNIT != 0 || po / MOBY_PARENT_UNIT >= i))
                c->trans_parents_ok = 0;
        }
    }
    /* Historical misreading: the joint list taken at the class start, as a reader that
     * ignores the +0x1c pointer (or a class that leaves it 0) would. */
    uint64_t at = GC_FAULT(lv, moby_joints_ignored) ? 0 : c->joints_offset;
    c->joint_lists_ok = joint_lists_frame(cls, at, &c->joint_lists);
}

static gc_status moby_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->core_ok)
        return GC_NEEDS(diag, "the core header");
    if (!lv->data_ok)
        return GC_NEEDS(diag, "decompressed core_data");
    gc_array_range t = lv->core.moby_classes;
    gc_reader tab;
    gc_status st = gc_class_table_reader(lv, t, MOBY_CLASS_STRIDE, "moby", &tab, diag);
    if (st != GC_OK)
        return st;
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_moby_class);
    gc_reader cd = gc_reader_make(lv->core_data, lv->core_data_size, 0);
    for (int32_t i = 0; i < t.count; i++) {
        moby_class_row c;
        memset(&c, 0, sizeof c);
        c.file_ofs = gc_tell_file(&tab);
        c.index = (uint32_t)i;
        gc_reader e = gc_take_window(&tab, MOBY_CLASS_STRIDE);
        c.offset_in_asset_wad = gc_u32le(&e); /* +0x00 */
        c.o_class = gc_s32le(&e);             /* +0x04 */
        gc_seek(&e, 0x10);                    /* +0x10 texture slots */
        c.max_texture_index = UINT16_MAX;
        uint8_t ends = 0;
        for (unsigned k = 0; k < MOBY_SLOTS; k++) {
            uint8_t v = gc_u8(&e);
            if (v == MOBY_SLOT_END) {
                ends++;
                continue;
            }
            if (ends == 0) {
                c.texture_slots++;
                if (c.max_texture_index == UINT16_MAX || v > c.max_texture_index)
                    c.max_texture_index = v;
            }
        }
        c.texture_reading = ends != MOBY_SLOTS;
        gc_class_span sp = gc_class_span_of(lv, c.offset_in_asset_wad);
        c.in_core_data = sp.in_core_data;
        c.span_bytes = sp.span_bytes;
        c.shares_offset = sp.shares_offset;
        uint32_t class_row = (uint32_t)rb->count;
        if (c.in_core_data && c.span_bytes >= MOBY_HEADER_BYTES) {
            gc_reader cls = gc_window(&cd, c.offset_in_asset_wad, (size_t)c.span_bytes);
            gc_reader h = cls;
            c.header_read = 1;
            c.packet_table_offset = gc_u32le(&h); /* +0x00 */
            c.high_lod_count = gc_u8(&h);         /* +0x04 */
            c.low_lod_count = gc_u8(&h);          /* +0x05 */
            c.lod_packet_count = (uint32_t)c.high_lod_count + c.low_lod_count;
            c.metal_count = gc_u8(&h); /* +0x06 */
            c.metal_begin = gc_u8(&h); /* +0x07 */
            c.joint_count = gc_u8(&h); /* +0x08 */
            gc_skip(&h, 2);
            c.format_flag = gc_u8(&h); /* +0x0b */
            gc_seek(&h, 0x24);
            c.scale = gc_f32le(&h); /* +0x24 */
            read_bind_pose(lv, cls, &c);
            gc_diag_push(diag, "core_data/moby[%d]", (int)i);
            if (c.packet_table_offset != 0) {
                gc_status s = walk_packets(lv, diag, cls, &c, class_row);
                if (s != GC_OK)
                    return s;
            }
            gc_diag_pop(diag);
        }
        moby_class_row *row = gc_rows_push(rb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for moby.class");
        *row = c;
    }
    return GC_OK;
}

static const gc_table_desc *const moby_tables[] = {&gc_table_moby_class, &gc_table_moby_packet};

const gc_decoder gc_dec_moby = {
    .name = "moby",
    .doc = "moby class table, class headers, bind pose, joint lists and packet tables",
    .tables = moby_tables,
    .table_count = GC_COUNTOF(moby_tables),
    .run = moby_run,
    .release = NULL,
};
