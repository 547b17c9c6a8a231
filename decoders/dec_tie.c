/* SPDX-License-Identifier: MIT */
/* The tie decoder (docs/formats/tie.md): the tie class table of core_index (0x20-byte entries,
 * formats.md §4.2), each class's 0x80-byte header, and the geometry of all three LODs: the
 * packet table of each LOD, every packet's vertex records (dinky, then fat) and the triangle
 * strips rebuilt by replaying the GS packet the records describe (tie.md §5). Published as
 * tie.class, tie.packet, tie.vertex and tie.triangle. A packet whose bytes do not replay is
 * reported in its row (walk_ok, walk_error, walk_error_ofs), never fatal: hostile class data
 * costs the class, not the level. */
#include <stdlib.h>
#include <string.h>

#include "gc_faults.h"
#include "gc_level.h"
#include "gc_reader.h"

#define TIE_CLASS_STRIDE 0x20u
#define TIE_HEADER_BYTES 0x80u
#define TIE_SLOTS        16u /* entry +0x10: u8 texture slots, 0xFF ends the list */
#define TIE_SLOT_END     0xFFu
#define TIE_LODS         3
#define TIE_PACKET_HDR   16u
#define TIE_ADGIF_BYTES  0x50u /* ÷ gives the class-local texture of a source offset */
#define TIE_UNPACK_OFS   0x20u
#define TIE_STRIPS_OFS   0x2Cu
#define TIE_DINKY_BYTES  16u
#define TIE_FAT_BYTES    24u
#define TIE_GS_ADGIF_QW  6u
#define TIE_GS_TAG_QW    1u
#define TIE_GS_VERTEX_QW 3u
#define TIE_MAX_ADGIFS   4u
/* vert_size is a u8 count of qw: at most 255 x 16 / 16 records, each giving two GS places. */
#define TIE_MAX_RECORDS 255u
#define TIE_MAX_ITEMS   (2u * TIE_MAX_RECORDS)

enum {
    WALK_OK = 0,
    WALK_DATA_RANGE,   /* packet data outside the class span */
    WALK_DINKY_SIZE,   /* dinky_vertices_size_plus_four below 4 */
    WALK_STRIPS_RANGE, /* the strip records run past the span */
    WALK_VBUF_RANGE,   /* the vertex buffer is outside the span */
    WALK_DINKY_RANGE,  /* more dinky vertices than the buffer holds */
    WALK_NO_STRIP,     /* a vertex before any strip tag */
    WALK_DESYNC,       /* nothing lands at the cursor */
};

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
    int32_t ad_gif_ofs;
    float scale;
    int16_t header_o_class;
    int16_t t_class;
    float bs_x, bs_y, bs_z, bs_r;
    int16_t lod_verts[TIE_LODS], lod_tris[TIE_LODS], lod_strips[TIE_LODS];
    uint8_t lod_ordered;
    uint8_t packets_inside;
    uint8_t adgifs_inside;
    uint8_t texture_slots;
    uint16_t max_texture_slot;
    uint32_t dec_verts[TIE_LODS], dec_tris[TIE_LODS], dec_strips[TIE_LODS];
    uint32_t packets_failed;
} tie_class_row;

typedef struct tie_packet_row {
    uint64_t file_ofs;
    uint32_t class_row;
    uint8_t lod;
    uint16_t index;
    int32_t data;
    uint64_t data_ofs;
    uint8_t shader_count;
    uint8_t vert_ofs;
    uint8_t vert_size;
    uint8_t rgba_count;
    uint8_t strip_count;
    uint8_t dinky_size_plus_four;
    uint32_t dinky_count;
    uint32_t fat_count;
    uint32_t records;
    uint32_t gs_vertices;
    uint32_t strip_vertices_declared;
    uint32_t strip_vertices;
    uint32_t strips;
    uint32_t triangles;
    uint32_t adgifs;
    int32_t texture_min;
    int32_t texture_max;
    uint8_t strips_before_vbuf;
    uint8_t walk_ok;
    uint8_t walk_error;
    uint64_t walk_error_ofs;
} tie_packet_row;

typedef struct tie_vertex_row {
    uint64_t file_ofs;
    uint32_t class_row;
    uint32_t packet_row;
    uint8_t lod;
    uint16_t index;
    uint8_t fat;
    int16_t raw_x, raw_y, raw_z;
    float x, y, z;
    float s, t;
    uint16_t gs_ofs;
    uint16_t gs_ofs_2;
} tie_vertex_row;

typedef struct tie_triangle_row {
    uint64_t file_ofs;
    uint32_t packet_row;
    uint8_t lod;
    uint16_t strip;
    uint16_t a, b, c;
    int32_t texture;
    uint8_t winding;
    uint32_t texture_entry;
} tie_triangle_row;

/* A column over element i of an array member, under its own name. */
#define TIE_COL_AT(T, m, i, name, ty, fl, unit, doc)                                               \
    {                                                                                              \
        (name), (ty), offsetof(T, m) + (i) * sizeof(((T *)0)->m[0]), sizeof(((T *)0)->m[0]), (fl), \
            (unit), (doc)                                                                          \
    }

#define CD  "bytes in core_data"
#define NUL GC_CF_NULL_IF_MAX

static const gc_column class_cols[] = {
    GC_CLASS_ENTRY_COLUMNS(tie_class_row, "tie"),
    GC_COL(tie_class_row, header_read, GC_T_BOOL, 0, "", "the 0x80-byte header fits in the span"),
    GC_COL(tie_class_row, packet_ofs_0, GC_T_S32, GC_CF_HEX, "bytes in class",
           "header +0x00: LOD 0 packet table"),
    GC_COL(tie_class_row, packet_ofs_1, GC_T_S32, GC_CF_HEX, "bytes in class",
           "header +0x04: LOD 1 packet table"),
    GC_COL(tie_class_row, packet_ofs_2, GC_T_S32, GC_CF_HEX, "bytes in class",
           "header +0x08: LOD 2 packet table"),
    GC_COL(tie_class_row, packet_count_0, GC_T_U8, 0, "count", "header +0x0c"),
    GC_COL(tie_class_row, packet_count_1, GC_T_U8, 0, "count", "header +0x0d"),
    GC_COL(tie_class_row, packet_count_2, GC_T_U8, 0, "count", "header +0x0e"),
    GC_COL(tie_class_row, texture_count, GC_T_U8, 0, "count", "header +0x0f: ad-gif records"),
    GC_COL(tie_class_row, near_dist, GC_T_F32, 0, "world units", "header +0x10"),
    GC_COL(tie_class_row, mid_dist, GC_T_F32, 0, "world units", "header +0x14"),
    GC_COL(tie_class_row, far_dist, GC_T_F32, 0, "world units", "header +0x18"),
    GC_COL(tie_class_row, ad_gif_ofs, GC_T_S32, GC_CF_HEX, "bytes in class",
           "header +0x1c: the 0x50-byte ad-gif records"),
    GC_COL(tie_class_row, scale, GC_T_F32, 0, "", "header +0x40: position = s16 x scale / 1024"),
    GC_COL(tie_class_row, header_o_class, GC_T_S16, 0, "",
           "header +0x44: o_class as the class itself says"),
    GC_COL(tie_class_row, t_class, GC_T_S16, 0, "", "header +0x46"),
    GC_COL(tie_class_row, bs_x, GC_T_F32, 0, "class units", "header +0x50: bsphere centre x"),
    GC_COL(tie_class_row, bs_y, GC_T_F32, 0, "class units", "header +0x54"),
    GC_COL(tie_class_row, bs_z, GC_T_F32, 0, "class units", "header +0x58"),
    GC_COL(tie_class_row, bs_r, GC_T_F32, 0, "class units", "header +0x5c: bsphere radius"),
    TIE_COL_AT(tie_class_row, lod_verts, 0, "lod0_verts", GC_T_S16, 0, "count",
               "header +0x60: LOD 0 vert_count (vertex records)"),
    TIE_COL_AT(tie_class_row, lod_tris, 0, "lod0_tris", GC_T_S16, 0, "count",
               "header +0x62: LOD 0 tri_count"),
    TIE_COL_AT(tie_class_row, lod_strips, 0, "lod0_strips", GC_T_S16, 0, "count",
               "header +0x64: LOD 0 strip_count"),
    TIE_COL_AT(tie_class_row, lod_verts, 1, "lod1_verts", GC_T_S16, 0, "count",
               "header +0x68: LOD 1 vert_count"),
    TIE_COL_AT(tie_class_row, lod_tris, 1, "lod1_tris", GC_T_S16, 0, "count",
               "header +0x6a: LOD 1 tri_count"),
    TIE_COL_AT(tie_class_row, lod_strips, 1, "lod1_strips", GC_T_S16, 0, "count",
               "header +0x6c: LOD 1 strip_count"),
    TIE_COL_AT(tie_class_row, lod_verts, 2, "lod2_verts", GC_T_S16, 0, "count",
               "header +0x70: LOD 2 vert_count"),
    TIE_COL_AT(tie_class_row, lod_tris, 2, "lod2_tris", GC_T_S16, 0, "count",
               "header +0x72: LOD 2 tri_count"),
    TIE_COL_AT(tie_class_row, lod_strips, 2, "lod2_strips", GC_T_S16, 0, "count",
               "header +0x74: LOD 2 strip_count"),
    GC_COL(tie_class_row, lod_ordered, GC_T_BOOL, 0, "", "0 < near_dist < mid_dist < far_dist"),
    GC_COL(tie_class_row, packets_inside, GC_T_BOOL, 0, "",
           "all three packet tables lie inside the class span"),
    GC_COL(tie_class_row, adgifs_inside, GC_T_BOOL, 0, "",
           "texture_count ad-gif records at ad_gif_ofs lie inside the class span"),
    GC_COL(tie_class_row, texture_slots, GC_T_U8, 0, "count",
           "entry +0x10: texture slots before the first 0xFF"),
    GC_COL(tie_class_row, max_texture_slot, GC_T_U16, NUL, "",
           "largest of those slots (a tie texture table index); null if none"),
    TIE_COL_AT(tie_class_row, dec_verts, 0, "dec0_verts", GC_T_U32, 0, "count",
               "vertex records decoded in LOD 0 (dinky + fat)"),
    TIE_COL_AT(tie_class_row, dec_tris, 0, "dec0_tris", GC_T_U32, 0, "count",
               "triangles rebuilt in LOD 0 (packets that replay)"),
    TIE_COL_AT(tie_class_row, dec_strips, 0, "dec0_strips", GC_T_U32, 0, "count",
               "strips rebuilt in LOD 0"),
    TIE_COL_AT(tie_class_row, dec_verts, 1, "dec1_verts", GC_T_U32, 0, "count",
               "vertex records in LOD 1"),
    TIE_COL_AT(tie_class_row, dec_tris, 1, "dec1_tris", GC_T_U32, 0, "count", "triangles in LOD 1"),
    TIE_COL_AT(tie_class_row, dec_strips, 1, "dec1_strips", GC_T_U32, 0, "count",
               "strips in LOD 1"),
    TIE_COL_AT(tie_class_row, dec_verts, 2, "dec2_verts", GC_T_U32, 0, "count",
               "vertex records in LOD 2"),
    TIE_COL_AT(tie_class_row, dec_tris, 2, "dec2_tris", GC_T_U32, 0, "count", "triangles in LOD 2"),
    TIE_COL_AT(tie_class_row, dec_strips, 2, "dec2_strips", GC_T_U32, 0, "count",
               "strips in LOD 2"),
    GC_COL(tie_class_row, packets_failed, GC_T_U32, 0, "count",
           "packets of the three LODs whose GS packet does not replay"),
};

static const gc_column packet_cols[] = {
    GC_COL(tie_packet_row, file_ofs, GC_T_U64, GC_CF_HEX, CD,
           "offset of the 16-byte packet header"),
    GC_COL(tie_packet_row, class_row, GC_T_U32, NUL, "", "row of the class in tie.class"),
    GC_COL(tie_packet_row, lod, GC_T_U8, 0, "", "0, 1 or 2"),
    GC_COL(tie_packet_row, index, GC_T_U16, 0, "", "packet index in its LOD table"),
    GC_COL(tie_packet_row, data, GC_T_S32, GC_CF_HEX, "bytes",
           "+0x0: packet data offset, relative to the LOD's packet table"),
    GC_COL(tie_packet_row, data_ofs, GC_T_U64, GC_CF_HEX | NUL, CD,
           "where the packet data starts (null if outside the class span)"),
    GC_COL(tie_packet_row, shader_count, GC_T_U8, 0, "count", "+0x4"),
    GC_COL(tie_packet_row, vert_ofs, GC_T_U8, 0, "qw", "+0x8: vertex buffer, relative to data"),
    GC_COL(tie_packet_row, vert_size, GC_T_U8, 0, "qw", "+0x9: vertex buffer size"),
    GC_COL(tie_packet_row, rgba_count, GC_T_U8, 0, "count", "+0xa"),
    GC_COL(tie_packet_row, strip_count, GC_T_U8, 0, "count", "data +0x23: unpack header byte 3"),
    GC_COL(tie_packet_row, dinky_size_plus_four, GC_T_U8, 0, "",
           "data +0x28: unpack header byte 8 (2 x dinky count + 4)"),
    GC_COL(tie_packet_row, dinky_count, GC_T_U32, 0, "count", "(byte 8 - 4) / 2"),
    GC_COL(tie_packet_row, fat_count, GC_T_U32, 0, "count",
           "(vert_size x 16 - 16 x dinky_count) / 24, rounded down"),
    GC_COL(tie_packet_row, records, GC_T_U32, 0, "count", "dinky_count + fat_count"),
    GC_COL(tie_packet_row, gs_vertices, GC_T_U32, 0, "count",
           "distinct GS places the records name (first and second places)"),
    GC_COL(tie_packet_row, strip_vertices_declared, GC_T_U32, 0, "count",
           "sum of the strip records' vertex_count bytes"),
    GC_COL(tie_packet_row, strip_vertices, GC_T_U32, 0, "count",
           "vertices the replay put into strips"),
    GC_COL(tie_packet_row, strips, GC_T_U32, 0, "count", "strips the replay opened"),
    GC_COL(tie_packet_row, triangles, GC_T_U32, 0, "count", "triangles of those strips"),
    GC_COL(tie_packet_row, adgifs, GC_T_U32, 0, "count", "ad-gifs the replay consumed"),
    GC_COL(tie_packet_row, texture_min, GC_T_S32, 0, "",
           "smallest class-local texture the replay selected (source offset / 0x50)"),
    GC_COL(tie_packet_row, texture_max, GC_T_S32, 0, "", "largest such texture"),
    GC_COL(tie_packet_row, strips_before_vbuf, GC_T_BOOL, 0, "",
           "the strip records end at or before the vertex buffer"),
    GC_COL(tie_packet_row, walk_ok, GC_T_BOOL, 0, "",
           "the GS replay consumed every strip and vertex in step"),
    GC_COL(tie_packet_row, walk_error, GC_T_U8, 0, "",
           "0 ok, 1 data_range, 2 dinky_size, 3 strips_range, 4 vbuf_range, 5 dinky_range, "
           "6 no_strip, 7 desync"),
    GC_COL(tie_packet_row, walk_error_ofs, GC_T_U64, GC_CF_HEX | NUL, CD,
           "the byte the error is about (null if none)"),
};

static const gc_column vertex_cols[] = {
    GC_COL(tie_vertex_row, file_ofs, GC_T_U64, GC_CF_HEX, CD, "offset of the vertex record"),
    GC_COL(tie_vertex_row, class_row, GC_T_U32, NUL, "", "row of the class in tie.class"),
    GC_COL(tie_vertex_row, packet_row, GC_T_U32, NUL, "", "row of the packet in tie.packet"),
    GC_COL(tie_vertex_row, lod, GC_T_U8, 0, "", "0, 1 or 2"),
    GC_COL(tie_vertex_row, index, GC_T_U16, 0, "", "record index in the packet (dinky first)"),
    GC_COL(tie_vertex_row, fat, GC_T_BOOL, 0, "", "a 24-byte fat record (else 16-byte dinky)"),
    GC_COL(tie_vertex_row, raw_x, GC_T_S16, 0, "", "dinky +0x0 / fat +0x8"),
    GC_COL(tie_vertex_row, raw_y, GC_T_S16, 0, "", "dinky +0x2 / fat +0xa"),
    GC_COL(tie_vertex_row, raw_z, GC_T_S16, 0, "", "dinky +0x4 / fat +0xc"),
    GC_COL(tie_vertex_row, x, GC_T_F32, 0, "class units", "raw_x x scale / 1024"),
    GC_COL(tie_vertex_row, y, GC_T_F32, 0, "class units", "raw_y x scale / 1024"),
    GC_COL(tie_vertex_row, z, GC_T_F32, 0, "class units", "raw_z x scale / 1024"),
    GC_COL(tie_vertex_row, s, GC_T_F32, 0, "", "dinky +0x8 / fat +0x10, s16 / 4096"),
    GC_COL(tie_vertex_row, t, GC_T_F32, 0, "", "dinky +0xa / fat +0x12, s16 / 4096"),
    GC_COL(tie_vertex_row, gs_ofs, GC_T_U16, 0, "qw", "dinky +0x6 / fat +0x6: GS packet place"),
    GC_COL(tie_vertex_row, gs_ofs_2, GC_T_U16, 0, "qw",
           "dinky +0xe / fat +0x16: second GS place (0 or gs_ofs: none)"),
};

static const gc_column triangle_cols[] = {
    GC_COL(tie_triangle_row, file_ofs, GC_T_U64, GC_CF_HEX, CD, "offset of the strip record"),
    GC_COL(tie_triangle_row, packet_row, GC_T_U32, NUL, "", "row of the packet in tie.packet"),
    GC_COL(tie_triangle_row, lod, GC_T_U8, 0, "", "0, 1 or 2"),
    GC_COL(tie_triangle_row, strip, GC_T_U16, 0, "", "strip index in the packet"),
    GC_COL(tie_triangle_row, a, GC_T_U16, 0, "", "record index (tie.vertex index) of corner a"),
    GC_COL(tie_triangle_row, b, GC_T_U16, 0, "", "corner b"),
    GC_COL(tie_triangle_row, c, GC_T_U16, 0, "", "corner c"),
    GC_COL(tie_triangle_row, texture, GC_T_S32, 0, "",
           "class-local texture (ad-gif source offset / 0x50)"),
    GC_COL(tie_triangle_row, winding, GC_T_BOOL, 0, "", "strip record byte 3 non-zero"),
    GC_COL(tie_triangle_row, texture_entry, GC_T_U32, NUL, "",
           "tie texture table index: class entry slot[texture] (+0x10); null if no such slot"),
};

static const gc_table_desc gc_table_tie_class = {
    .name = "tie.class",
    .doc = "One row per tie class table entry, with the 0x80-byte class header and the "
           "per-LOD totals of the decoded geometry.",
    .row_size = sizeof(tie_class_row),
    .columns = class_cols,
    .column_count = GC_COUNTOF(class_cols),
};
static const gc_table_desc gc_table_tie_packet = {
    .name = "tie.packet",
    .doc = "One row per packet of each LOD's packet table of every tie class.",
    .row_size = sizeof(tie_packet_row),
    .columns = packet_cols,
    .column_count = GC_COUNTOF(packet_cols),
    .parent_table = "tie.class",
    .parent_link = "class",
    .parent_column = "class_row",
};
static const gc_table_desc gc_table_tie_vertex = {
    .name = "tie.vertex",
    .doc = "One row per vertex record (dinky, then fat) of every tie packet.",
    .row_size = sizeof(tie_vertex_row),
    .columns = vertex_cols,
    .column_count = GC_COUNTOF(vertex_cols),
    .parent_table = "tie.class",
    .parent_link = "class",
    .parent_column = "class_row",
};
static const gc_table_desc gc_table_tie_triangle = {
    .name = "tie.triangle",
    .doc = "One row per triangle of the strips the GS replay rebuilds, all three LODs.",
    .row_size = sizeof(tie_triangle_row),
    .columns = triangle_cols,
    .column_count = GC_COUNTOF(triangle_cols),
    .parent_table = "tie.packet",
    .parent_link = "packet",
    .parent_column = "packet_row",
};

static bool in_span(int32_t ofs, uint64_t span)
{
    return ofs >= 0 && (uint64_t)ofs < span;
}

/* A window of [ofs, ofs+len) of the class span, or false if it does not fit. */
static bool class_window(const gc_reader *cls, uint64_t ofs, uint64_t len, gc_reader *out)
{
    if (ofs > cls->size || len > cls->size - ofs)
        return false;
    *out = gc_reader_make(cls->data + ofs, (size_t)len, cls->file_ofs + ofs);
    return true;
}

/* One GS-packet item: a vertex record landing at a GS place. */
typedef struct tie_item {
    uint16_t gs;
    uint16_t rec;
} tie_item;

typedef struct tie_rec {
    int16_t x, y, z;
    int16_t s, t;
    uint16_t gs, gs2;
    uint8_t fat;
    uint64_t file_ofs;
} tie_rec;

typedef struct tie_work {
    tie_rec rec[TIE_MAX_RECORDS];
    tie_item item[TIE_MAX_ITEMS];
    uint16_t strip_rec[TIE_MAX_ITEMS]; /* records of the open strip, in strip order */
    uint8_t slots[TIE_SLOTS];          /* the class entry's texture slots (+0x10) */
    uint32_t slot_count;               /* before the first 0xFF */
} tie_work;

/* Insertion sort by GS place, record index breaking ties (at most 510 items). */
static void sort_items(tie_item *it, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        tie_item v = it[i];
        uint32_t j = i;
        while (j > 0 && (it[j - 1].gs > v.gs || (it[j - 1].gs == v.gs && it[j - 1].rec > v.rec))) {
            it[j] = it[j - 1];
            j--;
        }
        it[j] = v;
    }
}

typedef struct tie_ctx {
    gc_level *lv;
    gc_rowbuf *packets, *vertices, *triangles;
    tie_work *w;
} tie_ctx;

static gc_status emit_strip(tie_ctx *t, tie_packet_row *p, uint32_t prow, uint32_t strip,
                            uint32_t n, int32_t texture, uint8_t wind, uint64_t strip_ofs)
{
    for (uint32_t i = 2; i < n; i++) {
        tie_triangle_row *tr = GC_ROWS_PUSH(t->triangles, tie_triangle_row);
        if (!tr)
            return GC_E_NOMEM;
        memset(tr, 0, sizeof *tr);
        tr->file_ofs = strip_ofs;
        tr->packet_row = prow;
        tr->lod = p->lod;
        tr->strip = (uint16_t)strip;
        tr->texture = texture;
        tr->winding = wind;
        /* class-local texture i is the entry's slot i (tie.md "texture") */
        tr->texture_entry = texture >= 0 && (uint32_t)texture < t->w->slot_count
                                ? t->w->slots[texture]
                                : UINT32_MAX;
        const uint16_t *r = t->w->strip_rec;
        if (i % 2 == wind)
            tr->a = r[i - 2], tr->b = r[i - 1], tr->c = r[i];
        else
            tr->a = r[i], tr->b = r[i - 1], tr->c = r[i - 2];
        p->triangles++;
    }
    return GC_OK;
}

/* Decodes one packet whose data starts at class offset data_at; fills p and pushes the vertex
 * and triangle rows. Returns GC_OK unless memory ran out: bad bytes go into p->walk_error. */
static gc_status decode_packet(tie_ctx *t, const gc_reader *cls, const tie_class_row *c,
                               uint32_t crow, uint64_t data_at, tie_packet_row *p, uint32_t prow)
{
    tie_work *w = t->w;
    gc_reader d;
    p->texture_min = INT32_MAX, p->texture_max = INT32_MIN;
    if (!class_window(cls, data_at, TIE_STRIPS_OFS, &d)) {
        p->walk_error = WALK_DATA_RANGE;
        p->walk_error_ofs = cls->file_ofs + (data_at < cls->size ? data_at : 0);
        return GC_OK;
    }
    p->data_ofs = d.file_ofs;
    int32_t dest[4], src[4];
    for (int k = 0; k < 4; k++)
        dest[k] = gc_s32le(&d);
    for (int k = 0; k < 4; k++)
        src[k] = gc_s32le(&d);
    uint8_t unpack[12];
    gc_bytes(&d, unpack, sizeof unpack);
    p->strip_count = unpack[3];
    p->dinky_size_plus_four = unpack[8];
    p->strips_before_vbuf = TIE_STRIPS_OFS + 4u * p->strip_count <= 16u * p->vert_ofs;
    gc_reader sr;
    if (!class_window(cls, data_at + TIE_STRIPS_OFS, 4u * p->strip_count, &sr)) {
        p->walk_error = WALK_STRIPS_RANGE;
        p->walk_error_ofs = d.file_ofs + 0x23;
        return GC_OK;
    }
    uint8_t strips[256][4];
    for (uint32_t s = 0; s < p->strip_count; s++) {
        gc_bytes(&sr, strips[s], 4);
        p->strip_vertices_declared += strips[s][0];
    }
    gc_reader vb;
    if (!class_window(cls, data_at + 16u * p->vert_ofs, 16u * p->vert_size, &vb)) {
        p->walk_error = WALK_VBUF_RANGE;
        p->walk_error_ofs = p->file_ofs + 8;
        return GC_OK;
    }
    if (p->dinky_size_plus_four < 4) {
        p->walk_error = WALK_DINKY_SIZE;
        p->walk_error_ofs = d.file_ofs + 0x28;
        return GC_OK;
    }
    uint32_t dinky = (uint32_t)(p->dinky_size_plus_four - 4) / 2;
    if (GC_FAULT(t->lv, tie_dinky_plus_one))
        dinky = (uint32_t)(p->dinky_size_plus_four - 2) / 2;
    if ((size_t)dinky * TIE_DINKY_BYTES > vb.size) {
        p->walk_error = WALK_DINKY_RANGE;
        p->walk_error_ofs = d.file_ofs + 0x28;
        return GC_OK;
    }
    uint32_t fat = (uint32_t)((vb.size - dinky * TIE_DINKY_BYTES) / TIE_FAT_BYTES);
    p->dinky_count = dinky, p->fat_count = fat, p->records = dinky + fat;
    /* Positions as the format scales them: s16 x (scale / 1024). */
    float unit = GC_FAULT(t->lv, tie_scale_no_1024) ? c->scale : c->scale / 1024.0f;
    uint32_t nitems = 0;
    for (uint32_t i = 0; i < p->records; i++) {
        tie_rec *r = &w->rec[i];
        memset(r, 0, sizeof *r);
        r->file_ofs = gc_tell_file(&vb);
        if (i < dinky) {
            r->x = gc_s16le(&vb), r->y = gc_s16le(&vb), r->z = gc_s16le(&vb);
            r->gs = gc_u16le(&vb);
            r->s = gc_s16le(&vb), r->t = gc_s16le(&vb);
            (void)gc_u16le(&vb); /* q */
            r->gs2 = gc_u16le(&vb);
        } else {
            r->fat = 1;
            gc_skip(&vb, 6); /* three u16 the format does not explain */
            r->gs = gc_u16le(&vb);
            r->x = gc_s16le(&vb), r->y = gc_s16le(&vb), r->z = gc_s16le(&vb);
            (void)gc_u16le(&vb); /* pad */
            r->s = gc_s16le(&vb), r->t = gc_s16le(&vb);
            (void)gc_u16le(&vb); /* q */
            r->gs2 = gc_u16le(&vb);
        }
        w->item[nitems++] = (tie_item){r->gs, (uint16_t)i};
        if (r->gs2 != 0 && r->gs2 != r->gs)
            w->item[nitems++] = (tie_item){r->gs2, (uint16_t)i};
        tie_vertex_row *v = GC_ROWS_PUSH(t->vertices, tie_vertex_row);
        if (!v)
            return GC_E_NOMEM;
        memset(v, 0, sizeof *v);
        v->file_ofs = r->file_ofs;
        v->class_row = crow;
        v->packet_row = prow;
        v->lod = p->lod;
        v->index = (uint16_t)i;
        v->fat = r->fat;
        v->raw_x = r->x, v->raw_y = r->y, v->raw_z = r->z;
        v->x = (float)r->x * unit, v->y = (float)r->y * unit, v->z = (float)r->z * unit;
        v->s = (float)r->s / 4096.0f, v->t = (float)r->t / 4096.0f;
        v->gs_ofs = r->gs, v->gs_ofs_2 = r->gs2;
    }
    sort_items(w->item, nitems);
    uint32_t uniq = 0; /* copies at one GS place are padding: keep the first */
    for (uint32_t i = 0; i < nitems; i++)
        if (uniq == 0 || w->item[i].gs != w->item[uniq - 1].gs)
            w->item[uniq++] = w->item[i];
    p->gs_vertices = uniq;
    /* The replay (tie.md §5.4): the first ad-gif at GS 0, then at each place a strip tag, a
     * vertex or the next ad-gif, in that order of precedence. */
    uint32_t off = TIE_GS_ADGIF_QW, ns = 0, nv = 0, na = 1, open = 0, open_n = 0;
    int32_t tex = src[0] / (int32_t)TIE_ADGIF_BYTES;
    if (GC_FAULT(t->lv, tie_adgif_no_div))
        tex = src[0];
    int32_t open_tex = tex;
    uint8_t wind = 0;
    uint64_t strip_ofs = 0;
    while (ns < p->strip_count || nv < uniq) {
        if (ns < p->strip_count && strips[ns][2] == off) {
            if (open) {
                gc_status st =
                    emit_strip(t, p, prow, p->strips - 1, open_n, open_tex, wind, strip_ofs);
                if (st != GC_OK)
                    return st;
            }
            open = 1, open_n = 0, open_tex = tex;
            wind = strips[ns][3] != 0;
            strip_ofs = sr.file_ofs + 4u * ns;
            p->strips++;
            if (tex < p->texture_min)
                p->texture_min = tex;
            if (tex > p->texture_max)
                p->texture_max = tex;
            ns++, off += TIE_GS_TAG_QW;
            continue;
        }
        if (nv < uniq && w->item[nv].gs == off) {
            if (!open) {
                p->walk_error = WALK_NO_STRIP;
                p->walk_error_ofs = w->rec[w->item[nv].rec].file_ofs;
                break;
            }
            w->strip_rec[open_n++] = w->item[nv].rec;
            p->strip_vertices++;
            nv++, off += TIE_GS_VERTEX_QW;
            continue;
        }
        if (na < TIE_MAX_ADGIFS && dest[na - 1] >= 0 && (uint32_t)dest[na - 1] == off) {
            /* A texture switch ends nothing: the open strip keeps the texture it opened with,
             * later strips take the new one. */
            int32_t next = src[na] / (int32_t)TIE_ADGIF_BYTES;
            if (GC_FAULT(t->lv, tie_adgif_no_div))
                next = src[na];
            tex = next;
            na++, off += TIE_GS_ADGIF_QW;
            continue;
        }
        p->walk_error = WALK_DESYNC;
        p->walk_error_ofs = p->data_ofs;
        break;
    }
    p->adgifs = na;
    if (p->walk_error == WALK_OK) {
        if (open) {
            gc_status st = emit_strip(t, p, prow, p->strips - 1, open_n, open_tex, wind, strip_ofs);
            if (st != GC_OK)
                return st;
        }
        p->walk_ok = 1;
    }
    if (p->texture_min == INT32_MAX)
        p->texture_min = 0, p->texture_max = 0;
    return GC_OK;
}

/* Presize the vertex and triangle tables from the class headers' declared counts (+0x60
 * lods[3] {vert, tri, ...}, the three LODs' packets together): one allocation each instead of
 * doubling from 64 rows and copying (~590 growths a retail-corpus decode, the copies' pages
 * faulted in twice). Hints only: a header is read where its 0x80 bytes lie in core_data (the
 * walk reads it inside its class span), a negative count adds nothing, and the total is capped
 * at what core_data's bytes could hold (a vertex record is 16 bytes or more; a strip makes at
 * most one triangle a vertex record it names, twice at most); a table that outgrows the hint
 * grows as usual, gc_level_decode shrinks one that did not fill it, and a refused reservation
 * is no error (the push that needs the memory reports it). */
static void reserve_rows(gc_level *lv, const gc_reader *tab, int32_t count, tie_ctx *ctx)
{
    uint64_t verts = 0, tris = 0;
    for (int32_t i = 0; i < count; i++) {
        uint32_t at = gc_load_u32le(tab->data + (size_t)i * TIE_CLASS_STRIDE); /* +0x00 */
        if (at == 0 || at > lv->core_data_size || lv->core_data_size - at < TIE_HEADER_BYTES)
            continue;
        const uint8_t *h = lv->core_data + at + 0x60;
        for (int l = 0; l < TIE_LODS; l++) {
            int16_t v = (int16_t)gc_load_u16le(h + 8 * l),
                    tr = (int16_t)gc_load_u16le(h + 8 * l + 2);
            verts += v > 0 ? (uint64_t)v : 0;
            tris += tr > 0 ? (uint64_t)tr : 0;
        }
    }
    const uint64_t cap = lv->core_data_size / TIE_DINKY_BYTES;
    if (verts)
        (void)gc_rows_reserve(ctx->vertices,
                              ctx->vertices->count + (size_t)(verts < cap ? verts : cap));
    if (tris)
        (void)gc_rows_reserve(ctx->triangles,
                              ctx->triangles->count + (size_t)(tris < 2 * cap ? tris : 2 * cap));
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
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_tie_class);
    tie_ctx ctx = {lv, gc_level_rows(lv, &gc_table_tie_packet),
                   gc_level_rows(lv, &gc_table_tie_vertex),
                   gc_level_rows(lv, &gc_table_tie_triangle), malloc(sizeof(tie_work))};
    if (!ctx.w)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for the tie decoder");
    st = GC_OK;
    reserve_rows(lv, &tab, t.count, &ctx);
    for (int32_t i = 0; i < t.count && st == GC_OK; i++) {
        tie_class_row c;
        memset(&c, 0, sizeof c);
        c.file_ofs = gc_tell_file(&tab);
        c.index = (uint32_t)i;
        gc_reader e = gc_take_window(&tab, TIE_CLASS_STRIDE);
        c.offset_in_asset_wad = gc_u32le(&e); /* +0x00 */
        c.o_class = gc_s32le(&e);             /* +0x04 */
        gc_seek(&e, 0x10);                    /* +0x10 texture slots */
        c.max_texture_slot = UINT16_MAX;
        ctx.w->slot_count = 0;
        for (unsigned k = 0; k < TIE_SLOTS; k++) {
            uint8_t v = gc_u8(&e);
            if (v == TIE_SLOT_END)
                break;
            ctx.w->slots[ctx.w->slot_count++] = v;
            c.texture_slots++;
            if (c.max_texture_slot == UINT16_MAX || v > c.max_texture_slot)
                c.max_texture_slot = v;
        }
        gc_class_span sp = gc_class_span_of(lv, c.offset_in_asset_wad);
        c.in_core_data = sp.in_core_data;
        c.span_bytes = sp.span_bytes;
        c.shares_offset = sp.shares_offset;
        gc_reader cls = gc_reader_make(NULL, 0, 0);
        if (c.in_core_data)
            cls = gc_reader_make(lv->core_data + c.offset_in_asset_wad, (size_t)c.span_bytes,
                                 c.offset_in_asset_wad);
        gc_reader h;
        if (c.in_core_data && class_window(&cls, 0, TIE_HEADER_BYTES, &h)) {
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
            c.ad_gif_ofs = gc_s32le(&h);   /* +0x1c */
            gc_seek(&h, 0x40);
            c.scale = gc_f32le(&h);          /* +0x40 */
            c.header_o_class = gc_s16le(&h); /* +0x44 */
            c.t_class = gc_s16le(&h);        /* +0x46 */
            gc_seek(&h, 0x50);
            c.bs_x = gc_f32le(&h), c.bs_y = gc_f32le(&h); /* +0x50 bsphere */
            c.bs_z = gc_f32le(&h), c.bs_r = gc_f32le(&h);
            for (int l = 0; l < TIE_LODS; l++) { /* +0x60 lods[3] {vert, tri, strip, pad} */
                c.lod_verts[l] = gc_s16le(&h);
                c.lod_tris[l] = gc_s16le(&h);
                c.lod_strips[l] = gc_s16le(&h);
                (void)gc_s16le(&h);
            }
            c.lod_ordered =
                0.0f < c.near_dist && c.near_dist < c.mid_dist && c.mid_dist < c.far_dist;
            c.packets_inside = in_span(c.packet_ofs_0, c.span_bytes) &&
                               in_span(c.packet_ofs_1, c.span_bytes) &&
                               in_span(c.packet_ofs_2, c.span_bytes);
            c.adgifs_inside =
                c.ad_gif_ofs >= 0 &&
                (uint64_t)c.ad_gif_ofs + (uint64_t)TIE_ADGIF_BYTES * c.texture_count <=
                    c.span_bytes;
        }
        uint32_t crow = (uint32_t)rb->count;
        if (c.header_read) {
            const int32_t tables[TIE_LODS] = {c.packet_ofs_0, c.packet_ofs_1, c.packet_ofs_2};
            const uint8_t counts[TIE_LODS] = {c.packet_count_0, c.packet_count_1, c.packet_count_2};
            for (int l = 0; l < TIE_LODS && st == GC_OK; l++) {
                gc_reader pt;
                if (tables[l] < 0 || !class_window(&cls, (uint64_t)tables[l],
                                                   (uint64_t)TIE_PACKET_HDR * counts[l], &pt)) {
                    c.packets_failed += counts[l];
                    continue;
                }
                for (uint32_t k = 0; k < counts[l] && st == GC_OK; k++) {
                    tie_packet_row p;
                    memset(&p, 0, sizeof p);
                    p.file_ofs = gc_tell_file(&pt);
                    p.class_row = crow;
                    p.lod = (uint8_t)l;
                    p.index = (uint16_t)k;
                    p.data = gc_s32le(&pt);
                    p.shader_count = gc_u8(&pt);
                    gc_skip(&pt, 3); /* bfc_distance, control_count, control_size */
                    p.vert_ofs = gc_u8(&pt);
                    p.vert_size = gc_u8(&pt);
                    p.rgba_count = gc_u8(&pt);
                    gc_skip(&pt, 5); /* multipass_ofs .. multipass_uv_size */
                    p.data_ofs = UINT64_MAX;
                    p.walk_error_ofs = UINT64_MAX;
                    /* The data offset counts from the LOD's packet table, not the class. */
                    int64_t at = (GC_FAULT(lv, tie_data_from_class) ? 0 : (int64_t)tables[l]) +
                                 (int64_t)p.data;
                    uint32_t prow = (uint32_t)ctx.packets->count;
                    if (at < 0) {
                        p.walk_error = WALK_DATA_RANGE;
                        p.walk_error_ofs = p.file_ofs;
                    } else {
                        st = decode_packet(&ctx, &cls, &c, crow, (uint64_t)at, &p, prow);
                        if (st != GC_OK)
                            break;
                    }
                    c.dec_verts[l] += p.records;
                    if (p.walk_ok) {
                        c.dec_tris[l] += p.triangles;
                        c.dec_strips[l] += p.strips;
                    } else {
                        c.packets_failed++;
                    }
                    tie_packet_row *row = gc_rows_push(ctx.packets);
                    if (!row) {
                        st = GC_E_NOMEM;
                        break;
                    }
                    *row = p;
                }
            }
        }
        if (st != GC_OK)
            break;
        tie_class_row *row = gc_rows_push(rb);
        if (!row) {
            st = GC_E_NOMEM;
            break;
        }
        *row = c;
    }
    free(ctx.w);
    if (st != GC_OK)
        return gc_diag_set(diag, st, 0, "no memory for the tie tables");
    return GC_OK;
}

static const gc_table_desc *const tie_tables[] = {&gc_table_tie_class, &gc_table_tie_packet,
                                                  &gc_table_tie_vertex, &gc_table_tie_triangle};

const gc_decoder gc_dec_tie = {
    .name = "tie",
    .doc = "tie classes: the class table, the 0x80-byte header and all three LODs' packets, "
           "vertex records and rebuilt triangles",
    .tables = tie_tables,
    .table_count = GC_COUNTOF(tie_tables),
    .run = tie_run,
    .release = NULL,
};
