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
#include <math.h> /* sqrt: correctly rounded */
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"
#include "gc_vif.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define MOBY_ROW_SSE2 1
#else
#define MOBY_ROW_SSE2 0
#endif

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
    uint8_t slot[MOBY_SLOTS]; /* the slot list itself (not a column; moby.triangle resolves it) */
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
    float bsphere_x, bsphere_y, bsphere_z, bsphere_w;
    uint32_t vertices;
    uint32_t triangles;
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
    GC_COL(moby_class_row, bsphere_x, GC_T_F32, 0, "class units", "header +0x30: bounding sphere"),
    GC_COL(moby_class_row, bsphere_y, GC_T_F32, 0, "class units", "header +0x34"),
    GC_COL(moby_class_row, bsphere_z, GC_T_F32, 0, "class units", "header +0x38"),
    GC_COL(moby_class_row, bsphere_w, GC_T_F32, 0, "class units", "header +0x3c: radius"),
    GC_COL(moby_class_row, vertices, GC_T_U32, 0, "count",
           "moby.vertex rows of the class (VU-buffer vertices: table vertices and duplicates)"),
    GC_COL(moby_class_row, triangles, GC_T_U32, 0, "count", "moby.triangle rows of the class"),
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
    uint8_t lod;
    uint8_t geometry_read;
    uint8_t vif_ok;
    uint8_t follows_previous;
    uint16_t st_count;
    uint16_t index_bytes;
    uint8_t texture_count;
    uint8_t index_header_pad;
    uint16_t matrix_transfer_count;
    uint16_t two_way_count;
    uint16_t three_way_count;
    uint16_t main_count;
    uint16_t duplicate_count;
    uint16_t table_transfer_count;
    uint16_t vertex_table_offset;
    uint8_t epilogue_vertices;
    uint8_t table_fits;
    uint8_t ids_distinct;
    uint16_t duplicates_unresolved;
    uint16_t vu_vertices;
    uint32_t triangles;
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
    GC_COL(moby_packet_row, lod, GC_T_U8, 0, "",
           "0 = high LOD (index < high_lod_count), 1 = low LOD, 2 = beyond the header's counts"),
    GC_COL(moby_packet_row, geometry_read, GC_T_BOOL, 0, "",
           "the VIF list and vertex table were decoded (high- and low-LOD packets)"),
    GC_COL(moby_packet_row, vif_ok, GC_T_BOOL, 0, "",
           "the VIF list frames and holds the ST UNPACK (V2_16), the index UNPACK (V4_8) and at "
           "most one texture UNPACK (V4_32, a multiple of 0x40 bytes), with NOPs only between"),
    GC_COL(moby_packet_row, follows_previous, GC_T_BOOL, 0, "",
           "vif_list_offset == previous packet's vertex_offset + 16 * vertex_data_size (1 on the "
           "first)"),
    GC_COL(moby_packet_row, st_count, GC_T_U16, 0, "count", "ST UNPACK elements"),
    GC_COL(moby_packet_row, index_bytes, GC_T_U16, 0, "bytes",
           "index UNPACK payload after its 4-byte header"),
    GC_COL(moby_packet_row, texture_count, GC_T_U8, 0, "count",
           "0x40-byte texture primitives in the texture UNPACK"),
    GC_COL(moby_packet_row, index_header_pad, GC_T_U8, 0, "", "index header byte 3 (must be 0)"),
    GC_COL(moby_packet_row, matrix_transfer_count, GC_T_U16, 0, "count", "vertex table +0x0"),
    GC_COL(moby_packet_row, two_way_count, GC_T_U16, 0, "count", "vertex table +0x2"),
    GC_COL(moby_packet_row, three_way_count, GC_T_U16, 0, "count", "vertex table +0x4"),
    GC_COL(moby_packet_row, main_count, GC_T_U16, 0, "count", "vertex table +0x6"),
    GC_COL(moby_packet_row, duplicate_count, GC_T_U16, 0, "count", "vertex table +0x8"),
    GC_COL(moby_packet_row, table_transfer_count, GC_T_U16, 0, "count",
           "vertex table +0xa: transfer_vertex_count"),
    GC_COL(moby_packet_row, vertex_table_offset, GC_T_U16, GC_CF_HEX, "bytes in table",
           "vertex table +0xc: first vertex, from the table header"),
    GC_COL(moby_packet_row, epilogue_vertices, GC_T_U8, 0, "count",
           "vertex_data_size - vertex_table_offset/16 - table vertices (1..6 when well formed)"),
    GC_COL(moby_packet_row, table_fits, GC_T_BOOL, 0, "",
           "the vertex table (vertex_data_size qwords) and its vertices lie in the span"),
    GC_COL(moby_packet_row, ids_distinct, GC_T_BOOL, 0, "",
           "the packet's vertex IDs (each stored 7 vertices later) are distinct"),
    GC_COL(moby_packet_row, duplicates_unresolved, GC_T_U16, 0, "count",
           "duplicates whose ID names no vertex yet seen in this LOD list"),
    GC_COL(moby_packet_row, vu_vertices, GC_T_U16, 0, "count",
           "VU-buffer vertices: table vertices plus resolved duplicates"),
    GC_COL(moby_packet_row, triangles, GC_T_U32, 0, "count", "moby.triangle rows of the packet"),
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

typedef struct moby_vertex_row {
    uint64_t file_ofs;
    uint32_t packet_row;
    uint32_t class_row;
    uint16_t slot;
    uint8_t kind;
    uint16_t vertex_id;
    uint32_t source_row;
    int16_t x, y, z;
    uint8_t normal_azimuth, normal_elevation;
    float px, py, pz;
    float centre_distance;
    float bsphere_radius;
    float s, t;
} moby_vertex_row;

static const gc_column vertex_cols[] = {
    GC_COL(moby_vertex_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "the 16-byte vertex (a duplicate: its u16 entry)"),
    GC_COL(moby_vertex_row, packet_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "parent moby.packet row"),
    GC_COL(moby_vertex_row, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "moby.class row"),
    GC_COL(moby_vertex_row, slot, GC_T_U16, 0, "", "VU-buffer position (index byte - 1)"),
    GC_COL(moby_vertex_row, kind, GC_T_U8, 0, "",
           "0 = 2-way blend, 1 = 3-way blend, 2 = main (unblended), 3 = duplicate"),
    GC_COL(moby_vertex_row, vertex_id, GC_T_U16, 0, "",
           "9-bit ID: low bits of vertex slot+7 (or the epilogue); a duplicate: its entry >> 7"),
    GC_COL(moby_vertex_row, source_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "duplicate: the moby.vertex row its ID resolved to; null otherwise"),
    GC_COL(moby_vertex_row, x, GC_T_S16, 0, "1/1024 scale", "+0xa"),
    GC_COL(moby_vertex_row, y, GC_T_S16, 0, "1/1024 scale", "+0xc"),
    GC_COL(moby_vertex_row, z, GC_T_S16, 0, "1/1024 scale", "+0xe"),
    GC_COL(moby_vertex_row, normal_azimuth, GC_T_U8, 0, "1/256 turn", "+0x8"),
    GC_COL(moby_vertex_row, normal_elevation, GC_T_U8, 0, "1/256 turn", "+0x9"),
    GC_COL(moby_vertex_row, px, GC_T_F32, 0, "class units", "x * scale / 1024"),
    GC_COL(moby_vertex_row, py, GC_T_F32, 0, "class units", "y * scale / 1024"),
    GC_COL(moby_vertex_row, pz, GC_T_F32, 0, "class units", "z * scale / 1024"),
    GC_COL(moby_vertex_row, centre_distance, GC_T_F32, 0, "class units",
           "distance from the class bounding sphere's centre"),
    GC_COL(moby_vertex_row, bsphere_radius, GC_T_F32, 0, "class units",
           "the class bounding sphere's radius (header +0x3c)"),
    GC_COL(moby_vertex_row, s, GC_T_F32, 0, "",
           "ST UNPACK element `slot` +0x0: s16 / 4096 (4.12); 0 if the UNPACK is shorter"),
    GC_COL(moby_vertex_row, t, GC_T_F32, 0, "", "ST UNPACK element `slot` +0x2: s16 / 4096"),
};

static const gc_table_desc gc_table_moby_vertex = {
    .name = "moby.vertex",
    .doc = "One row per VU-buffer vertex of a high- or low-LOD moby packet (bind pose).",
    .row_size = sizeof(moby_vertex_row),
    .columns = vertex_cols,
    .column_count = GC_COUNTOF(vertex_cols),
    .parent_table = "moby.packet",
    .parent_link = "packet",
    .parent_column = "packet_row",
};

typedef struct moby_triangle_row {
    uint64_t file_ofs;
    uint32_t packet_row;
    uint32_t class_row;
    uint16_t v0, v1, v2;
    uint16_t vu_vertices;
    int32_t texture;
    uint8_t texture_slots;
    uint32_t texture_entry;
} moby_triangle_row;

static const gc_column triangle_cols[] = {
    GC_COL(moby_triangle_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "the index byte that draws the triangle"),
    GC_COL(moby_triangle_row, packet_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "parent moby.packet row"),
    GC_COL(moby_triangle_row, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "moby.class row"),
    GC_COL(moby_triangle_row, v0, GC_T_U16, 0, "", "VU-buffer slot (0-based)"),
    GC_COL(moby_triangle_row, v1, GC_T_U16, 0, "", "VU-buffer slot"),
    GC_COL(moby_triangle_row, v2, GC_T_U16, 0, "", "VU-buffer slot (the kicking index)"),
    GC_COL(moby_triangle_row, vu_vertices, GC_T_U16, 0, "count", "the packet's VU-buffer vertices"),
    GC_COL(moby_triangle_row, texture, GC_T_S32, 0, "",
           "TEX0 data_lo of the current texture primitive (class-local); -1 before any switch"),
    GC_COL(moby_triangle_row, texture_slots, GC_T_U8, 0, "count",
           "the class entry's texture slots (moby.class texture_slots)"),
    GC_COL(moby_triangle_row, texture_entry, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "moby texture table index: class entry slot[texture] (+0x10); null if no such slot"),
};

static const gc_table_desc gc_table_moby_triangle = {
    .name = "moby.triangle",
    .doc = "One row per triangle a moby packet's index stream draws (GS strip replay).",
    .row_size = sizeof(moby_triangle_row),
    .columns = triangle_cols,
    .column_count = GC_COUNTOF(triangle_cols),
    .parent_table = "moby.packet",
    .parent_link = "packet",
    .parent_column = "packet_row",
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
        moby_packet_row *row = GC_ROWS_PUSH(rb, moby_packet_row);
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

/* ---- Packet geometry (docs/formats/moby.md "VIF list", "Vertex table", "Index stream") ---- */

#define MOBY_ID_SLOTS   512u /* the intermediate buffer the vertex IDs index */
#define MOBY_ID_SHIFT   7u   /* duplicate entries hold ID << 7 */
#define MOBY_ID_LAG     7u   /* the ID of vertex j is stored in vertex j + 7 */
#define MOBY_VERTEX     16u
#define MOBY_TEX_PRIM   0x40u /* texture primitive: TEX1, CLAMP, TEX0, MIPTBP1 A+D slots */
#define MOBY_TEX0_LO    0x20u /* TEX0_1 data_lo inside the primitive */
#define MOBY_SECRET_AT  0x0Cu /* secret index k >= 1: low byte at +0xC of texture qw k-1 */
#define MOBY_NO_KICK    0x80u /* index bit 7: the vertex enters the strip without drawing */
#define MOBY_END_DUMMY  3u    /* indices before the end that the microprogram never draws */
#define MOBY_MAX_STREAM 1024u /* a V4_8 UNPACK carries at most 256 * 4 bytes */

typedef struct moby_lod_state {
    uint32_t cache[MOBY_ID_SLOTS]; /* moby.vertex row + 1 written at each ID; 0 = never */
    int32_t texture;               /* current TEX0 data_lo, -1 before the first switch */
} moby_lod_state;

typedef struct moby_vif_parts {
    gc_reader st, index, texture;
    bool has_texture;
} moby_vif_parts;

/* Frames the VIF list: the ST UNPACK, the index UNPACK, an optional texture UNPACK; NOPs may
 * sit between them. Anything else (another command, a fourth UNPACK) makes it not ok. */
static bool read_vif_list(gc_reader cls, const moby_packet_row *p, moby_vif_parts *out)
{
    memset(out, 0, sizeof *out);
    gc_reader list = gc_window(&cls, p->vif_list_offset, 16u * (size_t)p->vif_list_size_qwords);
    if (list.overrun)
        return false;
    gc_vif_walker w;
    gc_vif_begin(&w, list, 0);
    gc_vif_code code;
    unsigned unpacks = 0;
    bool ok = true;
    int rc;
    for (;;) {
        /* NOPs are allowed anywhere and change nothing: stepped over in bulk */
        (void)gc_vif_skip_nops(&w);
        if ((rc = gc_vif_next(&w, &code)) != 1)
            break;
        if (!code.is_unpack) {
            ok = ok && code.cmd == GC_VIF_NOP;
            continue;
        }
        gc_reader pay = gc_window(&list, code.payload_ofs, code.payload_bytes);
        if (unpacks == 0) {
            ok = ok && code.vnvl == GC_VIF_V2_16;
            out->st = pay;
        } else if (unpacks == 1) {
            ok = ok && code.vnvl == GC_VIF_V4_8 && code.payload_bytes >= 4;
            out->index = pay;
        } else if (unpacks == 2) {
            ok = ok && code.vnvl == GC_VIF_V4_32 && code.payload_bytes % MOBY_TEX_PRIM == 0;
            out->texture = pay;
            out->has_texture = true;
        } else {
            ok = false;
        }
        unpacks++;
    }
    return ok && rc == 0 && unpacks >= 2;
}

/* The read-ahead (count_geometry) frames every decoded packet's VIF list; the
 * decode frames the same lists again. read_vif_list is a function of the class
 * window and the packet's list offset and size alone, so the read-ahead keeps
 * each result with that key and the decode takes it when the key matches (in
 * the decode's order, which is the read-ahead's unless a fault variant walks
 * the packets differently; a mismatch is framed afresh, so the memo only ever
 * saves the second walk, ~60 M instructions a retail pass). */
typedef struct vif_memo_entry {
    const uint8_t *cls_data;
    size_t cls_size;
    uint64_t cls_file_ofs;
    uint32_t vif_list_offset;
    uint16_t vif_list_size_qwords;
    bool ok;
    moby_vif_parts parts;
} vif_memo_entry;

typedef struct vif_memo {
    vif_memo_entry *e;
    size_t count, cap, next; /* next: the decode's cursor */
} vif_memo;

static bool memo_key_is(const vif_memo_entry *m, gc_reader cls, const moby_packet_row *p)
{
    return m->cls_data == cls.data && m->cls_size == cls.size && m->cls_file_ofs == cls.file_ofs &&
           m->vif_list_offset == p->vif_list_offset &&
           m->vif_list_size_qwords == p->vif_list_size_qwords;
}

/* read_vif_list, remembered; a refused allocation only stops the remembering */
static bool read_vif_list_keep(vif_memo *mm, gc_reader cls, const moby_packet_row *p,
                               moby_vif_parts *out)
{
    bool ok = read_vif_list(cls, p, out);
    if (mm->count == mm->cap) {
        size_t cap = mm->cap ? 2 * mm->cap : 1024;
        vif_memo_entry *e = cap <= SIZE_MAX / sizeof *e ? realloc(mm->e, cap * sizeof *e) : NULL;
        if (!e)
            return ok;
        mm->e = e, mm->cap = cap;
    }
    vif_memo_entry *m = &mm->e[mm->count++];
    m->cls_data = cls.data, m->cls_size = cls.size, m->cls_file_ofs = cls.file_ofs;
    m->vif_list_offset = p->vif_list_offset;
    m->vif_list_size_qwords = p->vif_list_size_qwords;
    m->ok = ok;
    m->parts = *out;
    return ok;
}

/* the decode's read_vif_list: the read-ahead's result when it framed this list */
static bool read_vif_list_memo(vif_memo *mm, gc_reader cls, const moby_packet_row *p,
                               moby_vif_parts *out)
{
    if (mm->next < mm->count && memo_key_is(&mm->e[mm->next], cls, p)) {
        const vif_memo_entry *m = &mm->e[mm->next++];
        *out = m->parts;
        return m->ok;
    }
    return read_vif_list(cls, p, out);
}

/* Room for `n` rows of `size` bytes at the end of rb when its capacity already
 * holds them (the moby tables are reserved from the read-ahead's counts, so
 * nearly every packet fits); NULL otherwise, and the caller pushes row by
 * row as before. The count is not advanced: the caller zeroes each row it
 * takes (a constant-size memset, as GC_ROWS_PUSH does: one libc memset of a
 * packet's rows costs more, and valgrind counts its `rep stosb` a byte) and
 * adds the rows it filled. This drops the push's capacity and size tests
 * and count update from every row (6.5 M vertex and triangle rows a
 * retail-corpus decode); the rows hold the same bytes, and nothing is
 * allocated or charged differently (capacity only). */
static void *rows_room(gc_rowbuf *rb, size_t n, size_t size)
{
    /* No rows, no room: a table not allocated yet has data NULL, and NULL + 0 is undefined
     * (UBSan, fuzz_level_full); the caller's row-by-row path takes no rows either. */
    if (n == 0 || !rb || size != rb->desc->row_size || rb->cap - rb->count < n)
        return NULL;
    return rb->data + rb->count * size;
}

#if MOBY_ROW_SSE2
/* The vertex row as four 16-byte words, written whole (vertex_row_sse2): the
 * layout it assumes, byte by byte. */
_Static_assert(sizeof(moby_vertex_row) == 64 && offsetof(moby_vertex_row, packet_row) == 8 &&
                   offsetof(moby_vertex_row, class_row) == 12 &&
                   offsetof(moby_vertex_row, slot) == 16 && offsetof(moby_vertex_row, kind) == 18 &&
                   offsetof(moby_vertex_row, vertex_id) == 20 &&
                   offsetof(moby_vertex_row, source_row) == 24 &&
                   offsetof(moby_vertex_row, x) == 28 && offsetof(moby_vertex_row, y) == 30 &&
                   offsetof(moby_vertex_row, z) == 32 &&
                   offsetof(moby_vertex_row, normal_azimuth) == 34 &&
                   offsetof(moby_vertex_row, normal_elevation) == 35 &&
                   offsetof(moby_vertex_row, px) == 36 && offsetof(moby_vertex_row, py) == 40 &&
                   offsetof(moby_vertex_row, pz) == 44 &&
                   offsetof(moby_vertex_row, centre_distance) == 48 &&
                   offsetof(moby_vertex_row, bsphere_radius) == 52 &&
                   offsetof(moby_vertex_row, s) == 56 && offsetof(moby_vertex_row, t) == 60,
               "moby_vertex_row as vertex_row_sse2 writes it");

/* One table vertex's row, every byte of it (padding and s, t zero, as a
 * pushed row holds them), from the 16-byte vertex v: the same values as the
 * field-by-field path. head is {file_ofs, packet_row, class_row}, sk the
 * slot | kind << 16; unit4 holds the class's scale / 1024, bxy / bz the
 * sphere's centre, bw4 {_, radius, 0, 0}. Positions are the same MULSS as
 * `(float)x * unit` (an int16 converts exactly), the centre distance the
 * same double operations in the same order ((dx dx + dy dy) + dz dz, then
 * the root and the rounding to float): each lane is one IEEE operation, so
 * the same bits. The field-by-field path took ~60 instructions a vertex
 * (stores after a zeroing), 3.3 M table vertices a retail-corpus decode. */
static inline void vertex_row_sse2(moby_vertex_row *row, const uint8_t *v, __m128i head,
                                   uint32_t sk, uint32_t id, __m128 unit4, __m128d bxy, __m128d bz,
                                   __m128 bw4)
{
    /* +0x8: words azimuth|elevation, x, y, z */
    __m128i raw = _mm_loadl_epi64((const __m128i *)(const void *)(v + 8));
    __m128i w32 = _mm_srai_epi32(_mm_unpacklo_epi16(raw, raw), 16); /* sign-extended */
    __m128 p = _mm_mul_ps(_mm_cvtepi32_ps(w32), unit4);             /* {_, px, py, pz} */
    /* bytes 32..35: z, azimuth, elevation (as stored at +0xe, +0x8, +0x9) */
    __m128i zae = _mm_shufflelo_epi16(raw, _MM_SHUFFLE(2, 1, 0, 3));
    __m128i w2 = _mm_castps_si128(_mm_move_ss(p, _mm_castsi128_ps(zae)));
    /* bytes 16..31: slot, kind, 0, vertex_id, 0, source_row (none), x, y */
    __m128i w1 =
        _mm_setr_epi32((int32_t)sk, (int32_t)id, -1, _mm_cvtsi128_si32(_mm_srli_si128(raw, 2)));
    __m128d pxy = _mm_cvtps_pd(_mm_shuffle_ps(p, p, _MM_SHUFFLE(3, 3, 2, 1)));
    __m128d pz = _mm_cvtss_sd(_mm_setzero_pd(), _mm_shuffle_ps(p, p, _MM_SHUFFLE(3, 3, 3, 3)));
    __m128d dxy = _mm_sub_pd(pxy, bxy), dz = _mm_sub_sd(pz, bz);
    dxy = _mm_mul_pd(dxy, dxy);
    dz = _mm_mul_sd(dz, dz);
    __m128d sum = _mm_add_sd(_mm_add_sd(dxy, _mm_unpackhi_pd(dxy, dxy)), dz);
    __m128 w3 = _mm_cvtsd_ss(bw4, _mm_sqrt_sd(sum, sum)); /* {distance, radius, 0, 0} */
    __m128i *out = (__m128i *)(void *)row;
    _mm_storeu_si128(out, head);
    _mm_storeu_si128(out + 1, w1);
    _mm_storeu_si128(out + 2, w2);
    _mm_storeu_si128(out + 3, _mm_castps_si128(w3));
}
#endif

#if MOBY_ROW_SSE2
/* The triangle row as two 16-byte words and one 8-byte word, written whole
 * (triangle_row_sse2): the layout it assumes, byte by byte. */
_Static_assert(sizeof(moby_triangle_row) == 40 && offsetof(moby_triangle_row, packet_row) == 8 &&
                   offsetof(moby_triangle_row, class_row) == 12 &&
                   offsetof(moby_triangle_row, v0) == 16 && offsetof(moby_triangle_row, v1) == 18 &&
                   offsetof(moby_triangle_row, v2) == 20 &&
                   offsetof(moby_triangle_row, vu_vertices) == 22 &&
                   offsetof(moby_triangle_row, texture) == 24 &&
                   offsetof(moby_triangle_row, texture_slots) == 28 &&
                   offsetof(moby_triangle_row, texture_entry) == 32,
               "moby_triangle_row as triangle_row_sse2 writes it");

/* Bytes 16..31 of a triangle row but for the three slots: {0, vu_vertices
 * << 16, texture, texture_slots} (the padding after texture_slots zero). */
static inline __m128i triangle_tail(uint16_t vu_vertices, int32_t texture, uint8_t texture_slots)
{
    return _mm_setr_epi32(0, (int32_t)((uint32_t)vu_vertices << 16), texture, texture_slots);
}

/* One triangle's row, every byte of it (padding zero, as a pushed row holds
 * it): head is {stream base offset, packet_row, class_row}, i the byte's
 * position in the stream, tail from triangle_tail. The field-by-field path
 * zeroes the 40 bytes and then stores ten fields (~3.2 M triangle rows a
 * retail-corpus decode); the same bytes. */
static inline void triangle_row_sse2(moby_triangle_row *row, __m128i head, uint32_t i, __m128i tail,
                                     uint16_t s0, uint16_t s1, uint16_t s2, uint32_t entry)
{
    uint64_t slots = (uint64_t)s0 | (uint64_t)s1 << 16 | (uint64_t)s2 << 32;
    __m128i *out = (__m128i *)(void *)row;
    _mm_storeu_si128(out, _mm_add_epi64(head, _mm_set_epi64x(0, (int64_t)i)));
    _mm_storeu_si128(out + 1, _mm_or_si128(tail, _mm_set_epi64x(0, (int64_t)slots)));
    _mm_storel_epi64(out + 2, _mm_cvtsi32_si128((int32_t)entry));
}
#endif

static uint16_t low9(gc_reader vt, size_t at)
{
    gc_reader v = gc_window(&vt, at, 2);
    return (uint16_t)(gc_u16le(&v) & (MOBY_ID_SLOTS - 1));
}

/* The vertex table: header, vertices (with their IDs recovered from 7 places later and the
 * epilogue), duplicates resolved through the LOD list's ID cache. */
static gc_status read_vertices(gc_level *lv, gc_diag *diag, gc_rowbuf *vb, gc_reader cls,
                               moby_packet_row *p, uint32_t packet_row, uint32_t class_row,
                               const moby_class_row *cr, moby_lod_state *ls)
{
    gc_reader vt = gc_window(&cls, p->vertex_offset, 16u * (size_t)p->vertex_data_size_qwords);
    if (vt.overrun || vt.size < 16)
        return GC_OK; /* table_fits stays 0 */
    gc_reader h = vt;
    p->matrix_transfer_count = gc_u16le(&h); /* +0x0 */
    p->two_way_count = gc_u16le(&h);         /* +0x2 */
    p->three_way_count = gc_u16le(&h);       /* +0x4 */
    p->main_count = gc_u16le(&h);            /* +0x6 */
    p->duplicate_count = gc_u16le(&h);       /* +0x8 */
    p->table_transfer_count = gc_u16le(&h);  /* +0xa */
    p->vertex_table_offset = gc_u16le(&h);   /* +0xc */
    uint32_t n = (uint32_t)p->two_way_count + p->three_way_count + p->main_count;
    uint64_t vto_qw = p->vertex_table_offset / 16u;
    int64_t epi = (int64_t)p->vertex_data_size_qwords - (int64_t)vto_qw - (int64_t)n;
    p->epilogue_vertices = epi < 0 ? 0xFF : epi > 0xFE ? 0xFE : (uint8_t)epi;
    size_t vbase = p->vertex_table_offset;
    if (GC_FAULT(lv, moby_part_records)) {
        /* The notes' reading: vertex_count (= vif_list_size) 16-byte vertices at
         * vertex_offset (= vif_list_offset), no table header, no duplicates. */
        vt = gc_window(&cls, p->vif_list_offset, 16u * (size_t)p->vif_list_size_qwords);
        if (vt.overrun)
            return GC_OK;
        n = p->vif_list_size_qwords, vbase = 0, epi = 0;
        p->duplicate_count = 0;
    }
    int64_t min_epi = GC_FAULT(lv, moby_part_records) ? 0 : 1; /* records have no epilogue */
    p->table_fits = p->vertex_table_offset % 16u == 0 && epi >= min_epi &&
                    vbase + (uint64_t)MOBY_VERTEX * ((uint64_t)n + (uint64_t)epi) <= vt.size;
    if (!p->table_fits)
        return GC_OK;
    /* IDs: the low 9 bits of vertex j + 7, then the epilogue vertices, then the final one's six
     * u16s at +0x4 (Wrench's read_vertex_table). */
    uint16_t ids[256 + MOBY_ID_LAG];
    memset(ids, 0, sizeof ids);
    if (n > 256) /* vertex_data_size is a u8: n + epilogue <= 255 once table_fits */
        return GC_OK;
    if (GC_FAULT(lv, moby_id_in_place)) {
        for (uint32_t i = 0; i < n; i++)
            ids[i] = low9(vt, vbase + MOBY_VERTEX * i);
    } else {
        uint32_t q = (uint32_t)epi, skip = n < MOBY_ID_LAG ? MOBY_ID_LAG - n : 0;
        for (uint32_t i = MOBY_ID_LAG; i < n; i++)
            ids[i - MOBY_ID_LAG] = low9(vt, vbase + MOBY_VERTEX * i);
        for (uint32_t j = skip; j < q; j++)
            ids[n + j - MOBY_ID_LAG] = low9(vt, vbase + MOBY_VERTEX * (n + j));
        uint32_t last = n + (q > skip ? q : skip) - 1;
        for (uint32_t i = 0; i < 6; i++) {
            int64_t d = (int64_t)n + q + i - MOBY_ID_LAG;
            if (d >= 0 && d < (int64_t)n)
                ids[d] = low9(vt, vbase + MOBY_VERTEX * last + 4 + 2 * i);
        }
    }
    uint8_t seen[MOBY_ID_SLOTS];
    memset(seen, 0, sizeof seen);
    p->ids_distinct = 1;
    float scale = cr->scale;
    /* table_fits put all n vertices inside vt (vbase + 16 n <= vt.size), so
     * they are loaded directly: one range check for the table instead of a
     * window and five bounds-checked reads a vertex (3.3 M vertices a
     * retail-corpus pass). */
    const uint8_t *vdata = vt.data + vbase;
    uint64_t vfile = vt.file_ofs + vbase;
    uint32_t three_from = p->two_way_count, main_from = three_from + p->three_way_count;
    /* the class's values in locals: a float store to the row may alias them,
     * so the compiler reloaded each of them every vertex */
    const float unit = scale / 1024.0f, bw = cr->bsphere_w;
    const double bx = cr->bsphere_x, by = cr->bsphere_y, bz = cr->bsphere_z;
    /* kind 0 (2-way blend) below three_from, 1 (3-way) below main_from, 2 (main) after:
     * taken a range at a time rather than by two compares a vertex (the fault variant's n
     * may be below either bound) */
    const uint32_t kind_end[3] = {three_from, main_from, n};
    moby_vertex_row *room = rows_room(vb, n, sizeof *room);
    bool filled = false;
#if MOBY_ROW_SSE2
    if (room) {
        const __m128 unit4 = _mm_set1_ps(unit), bw4 = _mm_setr_ps(0.0f, bw, 0.0f, 0.0f);
        const __m128d bxy = _mm_setr_pd(bx, by), bz1 = _mm_set_sd(bz);
        __m128i head =
            _mm_set_epi64x((int64_t)((uint64_t)class_row << 32 | packet_row), (int64_t)vfile);
        const __m128i step = _mm_set_epi64x(0, MOBY_VERTEX);
        for (uint32_t i = 0, kind = 0; kind < 3; kind++)
            for (uint32_t end = kind_end[kind] < n ? kind_end[kind] : n; i < end; i++) {
                vertex_row_sse2(&room[i], vdata + (size_t)MOBY_VERTEX * i, head, i | kind << 16,
                                ids[i], unit4, bxy, bz1, bw4);
                head = _mm_add_epi64(head, step);
                if (seen[ids[i]])
                    p->ids_distinct = 0;
                seen[ids[i]] = 1;
            }
        filled = true;
    }
#endif
    for (uint32_t i = 0, kind = 0; !filled && kind < 3; kind++)
        for (uint32_t end = kind_end[kind] < n ? kind_end[kind] : n; i < end; i++) {
            const uint8_t *v = vdata + (size_t)MOBY_VERTEX * i;
            moby_vertex_row *row =
                room ? memset(&room[i], 0, sizeof *row) : GC_ROWS_PUSH(vb, moby_vertex_row);
            if (!row)
                return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for moby.vertex");
            row->file_ofs = vfile + (uint64_t)MOBY_VERTEX * i;
            row->packet_row = packet_row;
            row->class_row = class_row;
            row->slot = (uint16_t)i;
            row->kind = (uint8_t)kind;
            row->vertex_id = ids[i];
            row->source_row = UINT32_MAX;
            /* +0x0 skinning bytes */
            row->normal_azimuth = v[8];                  /* +0x8 */
            row->normal_elevation = v[9];                /* +0x9 */
            int16_t x = (int16_t)gc_load_u16le(v + 0xa); /* +0xa */
            int16_t y = (int16_t)gc_load_u16le(v + 0xc); /* +0xc */
            int16_t z = (int16_t)gc_load_u16le(v + 0xe); /* +0xe */
            row->x = x, row->y = y, row->z = z;
            float px = (float)x * unit, py = (float)y * unit, pz = (float)z * unit;
            row->px = px, row->py = py, row->pz = pz;
            double dx = (double)px - bx, dy = (double)py - by, dz = (double)pz - bz;
            row->centre_distance = (float)sqrt(dx * dx + dy * dy + dz * dz);
            row->bsphere_radius = bw;
            if (seen[ids[i]])
                p->ids_distinct = 0;
            seen[ids[i]] = 1;
        }
    if (room)
        vb->count += n;
    /* Every vertex enters the cache at its ID once the packet's table is read. */
    size_t first = vb->count - n;
    for (uint32_t i = 0; i < n; i++)
        ls->cache[ids[i]] = (uint32_t)(first + i + 1);
    /* Duplicates: u16 entries after the matrix transfers, 8-aligned. */
    size_t dup_at = 16u + 2u * (size_t)p->matrix_transfer_count;
    dup_at = (dup_at + 7) / 8 * 8;
    p->vu_vertices = (uint16_t)n;
    if (GC_FAULT(lv, moby_part_records))
        return GC_OK;
    for (uint32_t k = 0; k < p->duplicate_count; k++) {
        gc_reader d = gc_window(&vt, dup_at + 2u * k, 2);
        if (d.overrun) {
            p->duplicates_unresolved = (uint16_t)(p->duplicate_count - k);
            break;
        }
        uint16_t id = (uint16_t)(gc_u16le(&d) >> MOBY_ID_SHIFT);
        uint32_t src = ls->cache[id & (MOBY_ID_SLOTS - 1)];
        moby_vertex_row *row = GC_ROWS_PUSH(vb, moby_vertex_row);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for moby.vertex");
        if (src) {
            *row = ((moby_vertex_row *)vb->data)[src - 1];
            row->source_row = src - 1;
        } else {
            memset(row, 0, sizeof *row);
            row->source_row = UINT32_MAX;
            p->duplicates_unresolved++;
        }
        row->file_ofs = d.file_ofs;
        row->packet_row = packet_row;
        row->class_row = class_row;
        row->slot = (uint16_t)(n + k);
        row->kind = 3;
        row->vertex_id = id;
        p->vu_vertices++;
    }
    return GC_OK;
}

/* The index stream to triangles (GS strip replay): a byte 1..127 is a 1-based VU slot, bit 7
 * = no kick; a 0 byte takes the next secret index: 0 ends the packet (the 3 dummies before it
 * are dropped), otherwise it switches to the next texture primitive and stands, bit 7
 * inverted, for the index byte. Every kicked index with two before it draws the last three.
 * The stream is read straight from its UNPACK (one byte per entry, so entry j is at file
 * offset base + j: no per-byte reader or stored offset), into small parallel arrays. */
static gc_status read_triangles(gc_level *lv, gc_diag *diag, gc_rowbuf *tb,
                                const moby_vif_parts *vp, moby_packet_row *p, uint32_t packet_row,
                                uint32_t class_row, const moby_class_row *cr, moby_lod_state *ls)
{
    gc_reader ix = vp->index;
    uint8_t hdr[4];
    if (!gc_bytes(&ix, hdr, 4))
        return GC_OK;
    p->index_header_pad = hdr[3];
    size_t left = gc_left(&ix);
    p->index_bytes = (uint16_t)left;
    uint32_t tex_count = vp->has_texture ? (uint32_t)(vp->texture.size / MOBY_TEX_PRIM) : 0;
    p->texture_count = (uint8_t)(tex_count > 255 ? 255 : tex_count);
    const uint8_t *bytes = ix.data + ix.pos;
    uint64_t base = gc_tell_file(&ix);
    /* Two passes: the first visits only the zero bytes (memchr), where the texture switches
     * and the stream may end, and notes each switch's position, standing byte and texture;
     * the second walks the bytes once, keeping the last two slots in registers. (Arrays of
     * slot, kick and texture for every byte, filled and read back, were ~25 instructions a
     * byte, 3.6 M index bytes a retail-corpus decode.) */
    uint16_t sw_pos[MOBY_MAX_STREAM];
    uint8_t sw_byte[MOBY_MAX_STREAM];
    int32_t sw_tex[MOBY_MAX_STREAM];
    uint32_t ns = 0, sw = 0;
    uint32_t limit = left < MOBY_MAX_STREAM ? (uint32_t)left : MOBY_MAX_STREAM;
    bool ended = false, zero_based = GC_FAULT(lv, moby_index_zero_based);
    for (;;) {
        const uint8_t *z = limit > ns ? memchr(bytes + ns, 0, limit - ns) : NULL;
        if (!z) {
            ns = limit;
            break;
        }
        ns = (uint32_t)(z - bytes);
        uint8_t secret;
        if (sw == 0) {
            secret = hdr[2];
        } else if (sw <= tex_count) {
            gc_reader t = vp->texture;
            gc_reader q = gc_window(&t, 16u * (sw - 1) + MOBY_SECRET_AT, 1);
            secret = gc_u8(&q);
        } else {
            break; /* more zero bytes than secret indices: malformed, stop here */
        }
        if (secret == 0) {
            ended = true;
            break;
        }
        if (sw >= tex_count)
            break; /* a switch with no texture primitive left */
        gc_reader t = vp->texture;
        gc_reader q = gc_window(&t, MOBY_TEX_PRIM * sw + MOBY_TEX0_LO, 4);
        sw_pos[sw] = (uint16_t)ns; /* < MOBY_MAX_STREAM */
        sw_byte[sw] = (uint8_t)(secret ^ MOBY_NO_KICK);
        sw_tex[sw] = gc_s32le(&q);
        sw++;
        ns++;
    }
    if (ended)
        ns = ns >= MOBY_END_DUMMY ? ns - MOBY_END_DUMMY : 0;
    uint16_t vu_vertices = p->vu_vertices;
    uint8_t texture_slots = cr->texture_slots;
    uint32_t tris = 0;
    /* the entry of the texture in force, recomputed when it switches */
    int32_t entry_of = -1;
    uint32_t entry = UINT32_MAX; /* -1 names none */
    /* the texture in force from the first byte; the LOD's state takes the last switch read
     * (the dropped dummies' included), as when every byte set it */
    int32_t tex = ls->texture;
    if (sw)
        ls->texture = sw_tex[sw - 1];
    uint32_t next_sw = 0; /* the next switch to take */
    uint16_t s0 = 0, s1 = 0;
    /* at most one triangle a byte past the first two */
    moby_triangle_row *room = rows_room(tb, ns, sizeof *room);
#if MOBY_ROW_SSE2
    if (room) {
        /* The same replay with each row written whole (triangle_row_sse2), the next switch's
         * position in a register (no position past ns: it never matches) and the texture's
         * entry taken when it switches (a function of the texture alone, as below). */
        const __m128i head =
            _mm_set_epi64x((int64_t)((uint64_t)class_row << 32 | packet_row), (int64_t)base);
        const uint32_t off = zero_based ? 0 : 1;
        uint32_t next_pos = sw ? sw_pos[0] : UINT32_MAX;
        entry = tex >= 0 && (uint32_t)tex < texture_slots ? cr->slot[tex] : UINT32_MAX;
        __m128i tail = triangle_tail(vu_vertices, tex, texture_slots);
        for (uint32_t i = 0; i < ns; i++) {
            uint8_t b = bytes[i];
            if (i == next_pos) {
                b = sw_byte[next_sw];
                tex = sw_tex[next_sw++];
                next_pos = next_sw < sw ? sw_pos[next_sw] : UINT32_MAX;
                entry = tex >= 0 && (uint32_t)tex < texture_slots ? cr->slot[tex] : UINT32_MAX;
                tail = triangle_tail(vu_vertices, tex, texture_slots);
            }
            /* 1-based: byte 0 wraps to UINT16_MAX (no such slot) */
            uint16_t s2 = (uint16_t)((b & 0x7Fu) - off);
            if ((b & MOBY_NO_KICK) == 0 && i >= 2)
                triangle_row_sse2(&room[tris++], head, i, tail, s0, s1, s2, entry);
            s0 = s1, s1 = s2;
        }
        tb->count += tris;
        p->triangles += tris;
        return GC_OK;
    }
#endif
    for (uint32_t i = 0; i < ns; i++) {
        uint8_t b = bytes[i];
        if (next_sw < sw && i == sw_pos[next_sw]) {
            b = sw_byte[next_sw];
            tex = sw_tex[next_sw++];
        }
        uint32_t one_based = b & 0x7Fu;
        /* 1-based: byte 0 wraps to UINT16_MAX (no such slot) */
        uint16_t s2 = zero_based ? (uint16_t)one_based : (uint16_t)(one_based - 1);
        if (i >= 2 && (b & MOBY_NO_KICK) == 0) {
            moby_triangle_row *t =
                room ? memset(&room[tris], 0, sizeof *t) : GC_ROWS_PUSH(tb, moby_triangle_row);
            if (!t) {
                p->triangles += tris;
                return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for moby.triangle");
            }
            t->file_ofs = base + i;
            t->packet_row = packet_row;
            t->class_row = class_row;
            t->v0 = s0, t->v1 = s1, t->v2 = s2;
            t->vu_vertices = vu_vertices;
            t->texture = tex;
            t->texture_slots = texture_slots;
            /* data_lo is class-local: slot i of the entry (moby.md); -1/-2/-3 name none */
            if (tex != entry_of) {
                entry_of = tex;
                entry = tex >= 0 && (uint32_t)tex < texture_slots ? cr->slot[tex] : UINT32_MAX;
            }
            t->texture_entry = entry;
            tris++;
        }
        s0 = s1, s1 = s2;
    }
    if (room)
        tb->count += tris;
    p->triangles += tris;
    return GC_OK;
}

/* Decodes the high- and low-LOD packets of one class (rows [first, first + count) of
 * moby.packet), each LOD list with its own ID cache and texture state. */
static gc_status decode_geometry(gc_level *lv, gc_diag *diag, gc_reader cls, moby_class_row *cr,
                                 uint32_t class_row, size_t first, size_t count, vif_memo *mm)
{
    gc_rowbuf *pb = gc_level_rows(lv, &gc_table_moby_packet);
    /* looked up once a class, not three to five times a packet (a linear search of the
     * level's tables: ~17 M instructions a retail-corpus decode) */
    gc_rowbuf *vb = gc_level_rows(lv, &gc_table_moby_vertex);
    gc_rowbuf *tb = gc_level_rows(lv, &gc_table_moby_triangle);
    moby_lod_state *ls = malloc(sizeof *ls);
    if (!ls)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for the moby ID cache");
    int cur_lod = -1;
    gc_status st = GC_OK;
    for (size_t k = 0; k < count && st == GC_OK; k++) {
        moby_packet_row *p = (moby_packet_row *)pb->data + first + k;
        const moby_packet_row *prev = k ? p - 1 : NULL;
        p->follows_previous = !prev || (uint64_t)prev->vertex_offset +
                                               16u * (uint64_t)prev->vertex_data_size_qwords ==
                                           p->vif_list_offset;
        p->lod = p->index < cr->high_lod_count ? 0 : p->index < cr->lod_packet_count ? 1 : 2;
        if (p->lod == 2)
            continue;
        if (p->lod != cur_lod) {
            memset(ls, 0, sizeof *ls);
            ls->texture = -1;
            cur_lod = p->lod;
        }
        gc_diag_push_index(diag, "packet", p->index);
        moby_vif_parts vp;
        p->vif_ok = read_vif_list_memo(mm, cls, p, &vp);
        p->st_count = (uint16_t)(vp.st.size / 4 > UINT16_MAX ? UINT16_MAX : vp.st.size / 4);
        size_t vbefore = vb->count;
        st = read_vertices(lv, diag, vb, cls, p, (uint32_t)(first + k), class_row, cr, ls);
        if (st == GC_OK && vb->count > vbefore) { /* ST: one {s16 s, s16 t} 4.12 per slot */
            /* read_vertices pushes the packet's rows in slot order from 0 (the vertices, then
             * the duplicates at n + k), so row vbefore + j is slot j: no slot load and test a
             * row. A slot past a short UNPACK (or no ST UNPACK) reads 0; a duplicate there may
             * hold its source's values, so those rows are still written. */
            size_t st_slots = vp.st.overrun ? 0 : vp.st.size / 4;
            size_t rows = vb->count - vbefore, with_st = rows < st_slots ? rows : st_slots;
            moby_vertex_row *row = (moby_vertex_row *)vb->data + vbefore;
            const uint8_t *e = vp.st.data;
            for (size_t j = 0; j < with_st; j++, e += 4) {
                row[j].s = (float)(int16_t)gc_load_u16le(e) / 4096.0f;
                row[j].t = (float)(int16_t)gc_load_u16le(e + 2) / 4096.0f;
            }
            for (size_t j = with_st; j < rows; j++)
                row[j].s = row[j].t = 0.0f;
        }
        if (st == GC_OK && p->vif_ok)
            st = read_triangles(lv, diag, tb, &vp, p, (uint32_t)(first + k), class_row, cr, ls);
        p->geometry_read = p->vif_ok && p->table_fits;
        cr->vertices += (uint32_t)(vb->count - vbefore);
        cr->triangles += p->triangles;
        gc_diag_pop(diag);
    }
    free(ls);
    return st;
}

/* How many moby.vertex and (at most) moby.triangle rows the level's classes
 * will give, read ahead of the decode so the two tables (3.3 M and 3.2 M
 * rows, 340 MB, a retail-shaped corpus) are allocated once instead of
 * doubling: the doubling copied 440 MB a corpus decode. A hint only (the
 * decode grows the tables past it as usual): the packet walk and the vertex
 * table framing are walk_packets' and read_vertices' (their fault variants
 * aside), so the vertex figure is the count the decode pushes; the triangle
 * figure is the index bytes after the 4-byte header less the first two,
 * capped at twice the vertices so a hostile stream of non-kicking indices
 * cannot make a large reservation. */
static void count_geometry(gc_level *lv, gc_reader tab, int32_t classes, size_t *vertices,
                           size_t *triangles, vif_memo *mm)
{
    gc_reader cd = gc_reader_make(lv->core_data, lv->core_data_size, 0);
    size_t nv = 0, nt = 0;
    for (int32_t i = 0; i < classes; i++) {
        gc_reader e = gc_take_window(&tab, MOBY_CLASS_STRIDE);
        uint32_t ofs = gc_u32le(&e); /* +0x00 */
        gc_class_span sp = gc_class_span_of(lv, ofs);
        if (!sp.in_core_data || sp.span_bytes < MOBY_HEADER_BYTES)
            continue;
        gc_reader cls = gc_window(&cd, ofs, (size_t)sp.span_bytes), h = cls;
        uint32_t table = gc_u32le(&h);                   /* +0x00 */
        uint32_t lods = (uint32_t)gc_u8(&h) + gc_u8(&h); /* +0x04, +0x05 */
        uint64_t data_floor = cls.size;
        for (uint32_t k = 0; table != 0; k++) {
            uint64_t at = (uint64_t)table + (uint64_t)k * MOBY_PACKET_BYTES;
            if (at + MOBY_PACKET_BYTES > cls.size || at >= data_floor)
                break;
            gc_reader r = gc_window(&cls, (size_t)at, MOBY_PACKET_BYTES);
            moby_packet_row p;
            memset(&p, 0, sizeof p);
            p.vif_list_offset = gc_u32le(&r);      /* +0x00 */
            p.vif_list_size_qwords = gc_u16le(&r); /* +0x04 */
            gc_skip(&r, 2);
            p.vertex_offset = gc_u32le(&r);        /* +0x08 */
            p.vertex_data_size_qwords = gc_u8(&r); /* +0x0c */
            if (p.vif_list_offset == 0)
                break;
            if (p.vif_list_offset < data_floor)
                data_floor = p.vif_list_offset;
            if (k >= lods)
                continue; /* LOD 2: not decoded */
            /* framed for every decoded packet (the decode frames them all) */
            moby_vif_parts vp;
            bool vif_ok = read_vif_list_keep(mm, cls, &p, &vp);
            gc_reader vt =
                gc_window(&cls, p.vertex_offset, 16u * (size_t)p.vertex_data_size_qwords);
            if (vt.overrun || vt.size < 16)
                continue;
            gc_reader vh = vt;
            uint32_t mtx = gc_u16le(&vh), n = 0;
            for (int c = 0; c < 3; c++)
                n += gc_u16le(&vh);
            uint32_t dups = gc_u16le(&vh);
            gc_skip(&vh, 2);
            uint32_t vto = gc_u16le(&vh);
            int64_t epi = (int64_t)p.vertex_data_size_qwords - vto / 16u - (int64_t)n;
            if (vto % 16u != 0 || epi < 1 || n > 256 ||
                vto + (uint64_t)MOBY_VERTEX * ((uint64_t)n + (uint64_t)epi) > vt.size)
                continue;
            size_t dup_at = (16u + 2u * (size_t)mtx + 7) / 8 * 8;
            size_t room = vt.size > dup_at ? (vt.size - dup_at) / 2 : 0;
            nv += n + (dups < room ? dups : room);
            if (vif_ok && vp.index.size > 6)
                nt += vp.index.size - 6 < MOBY_MAX_STREAM ? vp.index.size - 6 : MOBY_MAX_STREAM;
        }
    }
    *vertices = nv;
    *triangles = nt < 2 * nv + 64 ? nt : 2 * nv + 64;
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
    c->sequence_count = gc_u8(&h); /* +0x0c */
    c->sound_count = gc_u8(&h);    /* +0x0d */
    uint8_t lod_trans = gc_u8(&h); /* +0x0e lod_trans (not published) */
    /* the fault: the count taken one byte late */
    if (GC_FAULT(lv, moby_sound_lod_trans))
        c->sound_count = lod_trans;
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

/* The class table's rows and each class's packets and geometry. */
static gc_status decode_classes(gc_level *lv, gc_diag *diag, gc_reader tab, int32_t classes,
                                vif_memo *mm)
{
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_moby_class);
    gc_reader cd = gc_reader_make(lv->core_data, lv->core_data_size, 0);
    for (int32_t i = 0; i < classes; i++) {
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
                c.slot[c.texture_slots++] = v;
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
            /* the fault: +0x07 taken for the count */
            if (GC_FAULT(lv, moby_metal_begin))
                c.metal_count = c.metal_begin;
            c.joint_count = gc_u8(&h); /* +0x08 */
            gc_skip(&h, 2);
            c.format_flag = gc_u8(&h); /* +0x0b */
            gc_seek(&h, 0x24);
            c.scale = gc_f32le(&h); /* +0x24 */
            gc_seek(&h, 0x30);
            c.bsphere_x = gc_f32le(&h); /* +0x30 bounding sphere */
            c.bsphere_y = gc_f32le(&h);
            c.bsphere_z = gc_f32le(&h);
            c.bsphere_w = gc_f32le(&h);
            read_bind_pose(lv, cls, &c);
            gc_diag_push(diag, "core_data/moby[%d]", (int)i);
            if (c.packet_table_offset != 0) {
                size_t first = gc_level_rows(lv, &gc_table_moby_packet)->count;
                gc_status s = walk_packets(lv, diag, cls, &c, class_row);
                if (s == GC_OK)
                    s = decode_geometry(lv, diag, cls, &c, class_row, first, c.packets, mm);
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
    /* one row per declared class (core header +0x18): allocated once (a
     * hint; a refused reservation fails at the push, as before) */
    if (t.count > 0)
        (void)gc_rows_reserve(rb, (size_t)t.count);
    size_t nv, nt;
    vif_memo mm = {0};
    count_geometry(lv, tab, t.count, &nv, &nt, &mm);
    (void)gc_rows_reserve(gc_level_rows(lv, &gc_table_moby_vertex), nv);
    (void)gc_rows_reserve(gc_level_rows(lv, &gc_table_moby_triangle), nt);
    st = decode_classes(lv, diag, tab, t.count, &mm);
    free(mm.e);
    return st;
}

static const gc_table_desc *const moby_tables[] = {&gc_table_moby_class, &gc_table_moby_packet,
                                                   &gc_table_moby_vertex, &gc_table_moby_triangle};

const gc_decoder gc_dec_moby = {
    .name = "moby",
    .doc = "moby class table, class headers, bind pose, joint lists and packet tables",
    .tables = moby_tables,
    .table_count = GC_COUNTOF(moby_tables),
    .run = moby_run,
    .release = NULL,
};
