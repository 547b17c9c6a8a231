/* SPDX-License-Identifier: MIT */
/* The shrub decoder: the shrub class table of core_index (0x30-byte entries
 * with billboard slots, formats.md §4.3), each class header in core_data
 * (docs/formats/classes.md, "Shrub class") and its packets, published as
 * shrub.class and shrub.packet.
 *
 * The stride is 0x30, not the moby/tie 0x20: read at 0x20 the table still
 * yields 231 of 358 sane-looking entries on the retail disc, which is why
 * the header's own o_class is the check (fault shrub_stride).
 *
 * Header bytes 0x00-0x0F have two readings: Wrench's float bounding sphere
 * (ShrubClassHeader, engine/shrub.h) and the reference notes' "packed data
 * rather than floats". Both are accepted; header_reading says which one the
 * bytes fit. Packets are checked the way Wrench's read_shrub_class reads
 * them: exactly three UNPACKs, GIF tags of triangle lists or strips only,
 * and GS packet offsets that tile in order. */
#include <math.h>
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"
#include "gc_vif.h"

#define SHRUB_CLASS_STRIDE       0x30u
#define SHRUB_CLASS_STRIDE_WRONG 0x20u /* the moby stride (fault shrub_stride) */
#define SHRUB_HEADER_BYTES       0x40u
#define SHRUB_PACKET_ENTRY_BYTES 8u  /* {s32 offset, s32 size} at header + 0x40 */
#define SHRUB_NORMAL_COUNT       24u /* {s16 x, y, z, pad} at normals_offset */
#define SHRUB_PACKET_HEADER      16u /* {texture_count, gif_tag_count, vertex_count, vertex_offset} */
#define SHRUB_GIF_TAG_BYTES      16u     /* GifTag12 + s32 gs_packet_offset */
#define SHRUB_TEXTURE_BYTES      0x40u   /* ShrubTexturePrimitive: 4 A+D records */
#define SHRUB_VERTEX_BYTES       8u      /* V4_16 element */
#define SHRUB_NORMAL_MASK        0x7FFFu /* n_and_stop_cond: the high bit ends the strip loop */
#define GS_PRIM_TRIANGLE         3u
#define GS_PRIM_TRIANGLE_STRIP   4u
/* A+D addresses of a texture primitive, in record order (GS register numbers). */
static const uint8_t shrub_ad_regs[4] = {0x14 /* TEX1_1 */, 0x08 /* CLAMP_1 */,
                                         0x34 /* MIPTBP1_1 */, 0x06 /* TEX0_1 */};
/* Bounds that make 0x00-0x0F read as a bounding sphere rather than packed data. */
#define SHRUB_BSPHERE_LIMIT 1.0e6f

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
    uint8_t header_reading;
    float bsphere_x, bsphere_y, bsphere_z, bsphere_w;
    uint8_t packet_table_inside;
    uint8_t normals_fit;
    uint32_t packets_decoded;
    float max_vertex_radius;
    uint8_t texture_slots;
    uint8_t slots_resolve;
    int32_t billboard_offset;
    uint8_t billboard_fits;
    float billboard_fade;
    uint32_t triangles;
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
    GC_COL(shrub_class_row, header_reading, GC_T_U8, 0, "",
           "header 0x00-0x0F: 1 = float bounding sphere (Wrench), 0 = packed data (the notes)"),
    GC_COL(shrub_class_row, bsphere_x, GC_T_F32, 0, "class units", "header +0x00 as f32"),
    GC_COL(shrub_class_row, bsphere_y, GC_T_F32, 0, "class units", "header +0x04 as f32"),
    GC_COL(shrub_class_row, bsphere_z, GC_T_F32, 0, "class units", "header +0x08 as f32"),
    GC_COL(shrub_class_row, bsphere_w, GC_T_F32, 0, "class units",
           "header +0x0c as f32: the sphere's radius"),
    GC_COL(shrub_class_row, packet_table_inside, GC_T_BOOL, 0, "",
           "packet_count x 8-byte {offset, size} entries at +0x40 fit in the span"),
    GC_COL(shrub_class_row, normals_fit, GC_T_BOOL, 0, "",
           "the 24 x 8-byte normals at data_ofs fit in the span"),
    GC_COL(shrub_class_row, packets_decoded, GC_T_U32, 0, "count", "shrub.packet rows"),
    GC_COL(shrub_class_row, max_vertex_radius, GC_T_F32, 0, "class units",
           "largest distance of a vertex (s16 x scale / 1024) from the sphere centre"),
    GC_COL(shrub_class_row, texture_slots, GC_T_U8, 0, "count",
           "entry +0x10: texture indices before the first 0xFF (of 16)"),
    GC_COL(shrub_class_row, slots_resolve, GC_T_BOOL, 0, "",
           "every used slot indexes the shrub texture table (core_index +0x48)"),
    GC_COL(shrub_class_row, billboard_offset, GC_T_S32, GC_CF_HEX, "bytes in class",
           "header +0x1c: the 0x40-byte billboard, read only if > 0"),
    GC_COL(shrub_class_row, billboard_fits, GC_T_BOOL, 0, "",
           "billboard_offset > 0 and the 0x40 bytes lie in the span"),
    GC_COL(shrub_class_row, billboard_fade, GC_T_F32, 0, "world units",
           "billboard +0x00: fade_distance (0 if none)"),
    GC_COL(shrub_class_row, triangles, GC_T_U32, 0, "count",
           "shrub.triangle rows of the class that Wrench's recovery keeps (not zero_area)"),
};

static const gc_table_desc gc_table_shrub_class = {
    .name = "shrub.class",
    .doc = "One row per shrub class table entry, with the self-identifying header words.",
    .row_size = sizeof(shrub_class_row),
    .columns = class_cols,
    .column_count = GC_COUNTOF(class_cols),
};

typedef struct shrub_packet_row {
    uint64_t file_ofs;
    uint32_t class_row;
    uint32_t index;
    int32_t offset;
    int32_t size_bytes;
    uint8_t inside_span;
    uint8_t vif_ok;
    uint8_t unpack_count;
    int32_t texture_count;
    int32_t gif_tag_count;
    int32_t vertex_count;
    int32_t vertex_offset_qwords;
    uint8_t header_fits;
    uint8_t vertices_fit;
    uint8_t prim;
    uint32_t non_triangle_tags;
    uint8_t ad_regs_ok;
    uint8_t gs_order_ok;
    uint16_t max_normal_index;
    uint32_t vertices_walked;
    uint32_t padding_vertices;
    uint32_t nloop_sum;
    int32_t stop_index;
    uint32_t stop_bits;
    int32_t max_texture_index;
    uint8_t class_texture_slots;
    uint32_t triangles;
    uint32_t vertex_row;
} shrub_packet_row;

static const gc_column packet_cols[] = {
    GC_COL(shrub_packet_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "offset of the packet's VIF list"),
    GC_COL(shrub_packet_row, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "parent shrub.class row"),
    GC_COL(shrub_packet_row, index, GC_T_U32, 0, "", "packet index in the class"),
    GC_COL(shrub_packet_row, offset, GC_T_S32, GC_CF_HEX, "bytes in class", "entry +0x0"),
    GC_COL(shrub_packet_row, size_bytes, GC_T_S32, 0, "bytes", "entry +0x4: VIF list size"),
    GC_COL(shrub_packet_row, inside_span, GC_T_BOOL, 0, "", "[offset, offset + size) in the span"),
    GC_COL(shrub_packet_row, vif_ok, GC_T_BOOL, 0, "", "the VIF list walks exactly to its end"),
    GC_COL(shrub_packet_row, unpack_count, GC_T_U8, 0, "count", "UNPACKs in the list"),
    GC_COL(shrub_packet_row, texture_count, GC_T_S32, 0, "count", "packet header +0x0"),
    GC_COL(shrub_packet_row, gif_tag_count, GC_T_S32, 0, "count", "packet header +0x4"),
    GC_COL(shrub_packet_row, vertex_count, GC_T_S32, 0, "count", "packet header +0x8"),
    GC_COL(shrub_packet_row, vertex_offset_qwords, GC_T_S32, 0, "qwords",
           "packet header +0xc: VU address of the first vertex"),
    GC_COL(shrub_packet_row, header_fits, GC_T_BOOL, 0, "",
           "UNPACK 1 holds the header, gif_tag_count tags and texture_count 0x40-byte records"),
    GC_COL(shrub_packet_row, vertices_fit, GC_T_BOOL, 0, "",
           "UNPACKs 2 and 3 each hold vertex_count 8-byte elements"),
    GC_COL(shrub_packet_row, prim, GC_T_U8, 0, "",
           "primitive type (PRIM bits 0-2, tag bits 47-49) of the first GIF tag"),
    GC_COL(shrub_packet_row, non_triangle_tags, GC_T_U32, 0, "count",
           "GIF tags whose primitive is neither a triangle list (3) nor a strip (4)"),
    GC_COL(shrub_packet_row, ad_regs_ok, GC_T_BOOL, 0, "",
           "every texture primitive addresses TEX1_1, CLAMP_1, MIPTBP1_1, TEX0_1 in order"),
    GC_COL(shrub_packet_row, gs_order_ok, GC_T_BOOL, 0, "",
           "tags (1 qw), A+D records (5 qw) and vertices (3 qw) tile the GS packet in order"),
    GC_COL(shrub_packet_row, max_normal_index, GC_T_U16, 0, "",
           "largest normal index (n_and_stop_cond & 0x7fff) of the packet's vertices"),
    GC_COL(shrub_packet_row, vertices_walked, GC_T_U32, 0, "count",
           "vertices the GS replay appends to primitives (before the padding)"),
    GC_COL(shrub_packet_row, padding_vertices, GC_T_U32, 0, "count",
           "trailing copies at the previous vertex's GS offset (a packet under 6 vertices)"),
    GC_COL(shrub_packet_row, nloop_sum, GC_T_U32, 0, "count",
           "sum of the GIF tags' NLOOP (bits 0-14)"),
    GC_COL(shrub_packet_row, stop_index, GC_T_S32, 0, "",
           "first vertex with bit 15 of n_and_stop_cond set (-1 if none)"),
    GC_COL(shrub_packet_row, stop_bits, GC_T_U32, 0, "count", "vertices with bit 15 set"),
    GC_COL(shrub_packet_row, max_texture_index, GC_T_S32, 0, "",
           "largest TEX0_1 data_lo (class-local texture index); -1 if no texture primitive"),
    GC_COL(shrub_packet_row, class_texture_slots, GC_T_U8, 0, "count",
           "texture_slots of the parent class (the indices must stay below it)"),
    GC_COL(shrub_packet_row, triangles, GC_T_U32, 0, "count", "shrub.triangle rows of the packet"),
    GC_COL(shrub_packet_row, vertex_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "shrub.vertex row of the packet's first vertex (null if none)"),
};

static const gc_table_desc gc_table_shrub_packet = {
    .name = "shrub.packet",
    .doc = "One row per shrub packet (VIF list), as Wrench's read_shrub_class reads it.",
    .row_size = sizeof(shrub_packet_row),
    .columns = packet_cols,
    .column_count = GC_COUNTOF(packet_cols),
    .parent_table = "shrub.class",
    .parent_link = "class",
    .parent_column = "class_row",
};

typedef struct shrub_vertex_row {
    uint64_t file_ofs;
    uint32_t packet_row;
    uint32_t class_row;
    uint32_t index;
    uint32_t primitive;
    float x, y, z;
    float s, t;
    uint16_t normal;
    uint8_t stop;
    int32_t texture;
    uint8_t sphere_known;
    float radius;
    float bsphere_radius;
} shrub_vertex_row;

static const gc_column vertex_cols[] = {
    GC_COL(shrub_vertex_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "offset of the 8-byte position element (UNPACK 2)"),
    GC_COL(shrub_vertex_row, packet_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "parent shrub.packet row"),
    GC_COL(shrub_vertex_row, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "shrub.class row"),
    GC_COL(shrub_vertex_row, index, GC_T_U32, 0, "", "vertex index in the packet"),
    GC_COL(shrub_vertex_row, primitive, GC_T_U32, 0, "", "GIF tag (strip or list) it belongs to"),
    GC_COL(shrub_vertex_row, x, GC_T_F32, 0, "class units", "+0 s16 x scale / 1024"),
    GC_COL(shrub_vertex_row, y, GC_T_F32, 0, "class units", "+2 s16 x scale / 1024"),
    GC_COL(shrub_vertex_row, z, GC_T_F32, 0, "class units", "+4 s16 x scale / 1024"),
    GC_COL(shrub_vertex_row, s, GC_T_F32, 0, "", "UNPACK 3 +0: s16 / 4096"),
    GC_COL(shrub_vertex_row, t, GC_T_F32, 0, "", "UNPACK 3 +2: s16 / 4096"),
    GC_COL(shrub_vertex_row, normal, GC_T_U16, 0, "", "UNPACK 3 +6 bits 0-14: normal index"),
    GC_COL(shrub_vertex_row, stop, GC_T_BOOL, 0, "", "UNPACK 3 +6 bit 15: the strip loop's stop"),
    GC_COL(shrub_vertex_row, texture, GC_T_S32, 0, "",
           "class-local texture index in force (TEX0_1 data_lo); -1 before any"),
    GC_COL(shrub_vertex_row, sphere_known, GC_T_BOOL, 0, "",
           "the class header reads as a float bounding sphere (header_reading 1)"),
    GC_COL(shrub_vertex_row, radius, GC_T_F32, 0, "class units", "distance from the sphere centre"),
    GC_COL(shrub_vertex_row, bsphere_radius, GC_T_F32, 0, "class units", "header +0x0c"),
};

static const gc_table_desc gc_table_shrub_vertex = {
    .name = "shrub.vertex",
    .doc = "One row per vertex the GS replay of a shrub packet appends (padding copies excluded).",
    .row_size = sizeof(shrub_vertex_row),
    .columns = vertex_cols,
    .column_count = GC_COUNTOF(vertex_cols),
    .parent_table = "shrub.packet",
    .parent_link = "packet",
    .parent_column = "packet_row",
};

typedef struct shrub_triangle_row {
    uint64_t file_ofs;
    uint32_t packet_row;
    uint32_t class_row;
    uint32_t primitive;
    uint8_t list;
    uint32_t a, b, c;
    uint32_t packet_vertices;
    int32_t texture;
    uint8_t zero_area;
    uint32_t texture_entry;
} shrub_triangle_row;

static const gc_column triangle_cols[] = {
    GC_COL(shrub_triangle_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "offset of the GIF tag of its strip or list"),
    GC_COL(shrub_triangle_row, packet_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "parent shrub.packet row"),
    GC_COL(shrub_triangle_row, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "shrub.class row"),
    GC_COL(shrub_triangle_row, primitive, GC_T_U32, 0, "", "GIF tag index in the packet"),
    GC_COL(shrub_triangle_row, list, GC_T_BOOL, 0, "",
           "1 = from a triangle list (every 3), 0 = a strip (i, i+1, i+2)"),
    GC_COL(shrub_triangle_row, a, GC_T_U32, 0, "", "vertex index in the packet"),
    GC_COL(shrub_triangle_row, b, GC_T_U32, 0, "", "vertex index in the packet"),
    GC_COL(shrub_triangle_row, c, GC_T_U32, 0, "", "vertex index in the packet"),
    GC_COL(shrub_triangle_row, packet_vertices, GC_T_U32, 0, "count",
           "vertices the packet's replay appended (a, b, c stay below it)"),
    GC_COL(shrub_triangle_row, texture, GC_T_S32, 0, "",
           "class-local texture index in force; -1 before any"),
    GC_COL(shrub_triangle_row, zero_area, GC_T_BOOL, 0, "",
           "two corners identical in position, UV and normal (Wrench's recovery drops it)"),
    GC_COL(shrub_triangle_row, texture_entry, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "shrub texture table index: class entry slot[texture] (+0x10); null if no such slot"),
};

static const gc_table_desc gc_table_shrub_triangle = {
    .name = "shrub.triangle",
    .doc = "One row per triangle of a shrub packet's strips and lists, as Wrench's recovery forms "
           "them.",
    .row_size = sizeof(shrub_triangle_row),
    .columns = triangle_cols,
    .column_count = GC_COUNTOF(triangle_cols),
    .parent_table = "shrub.packet",
    .parent_link = "packet",
    .parent_column = "packet_row",
};

/* The class's 24 normals (header +0x2c: {s16 x, y, z, pad} each, component / 32767;
 * docs/formats/shrub.md): the shrub renderer lights one colour per normal and instance and every
 * vertex takes the colour of its normal index (Wrench docs/shrub_renderer.md: the instance's
 * 0x18-qw colour palette). */
typedef struct shrub_normal_row {
    uint64_t file_ofs;
    uint32_t class_row;
    uint32_t index;
    int32_t x, y, z;
    double length;
} shrub_normal_row;

static const gc_column normal_cols[] = {
    GC_COL(shrub_normal_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "offset of the 8-byte normal (class + data_ofs + 8 * index)"),
    GC_COL(shrub_normal_row, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "shrub.class row"),
    GC_COL(shrub_normal_row, index, GC_T_U32, 0, "", "0..23: the vertices' normal index"),
    GC_COL(shrub_normal_row, x, GC_T_S32, 0, "1/32767", "+0 s16"),
    GC_COL(shrub_normal_row, y, GC_T_S32, 0, "1/32767", "+2 s16"),
    GC_COL(shrub_normal_row, z, GC_T_S32, 0, "1/32767", "+4 s16 (+6 pad)"),
    GC_COL(shrub_normal_row, length, GC_T_F64, 0, "", "|(x, y, z)| / 32767 (sqrt in double)"),
};

static const gc_table_desc gc_table_shrub_normal = {
    .name = "shrub.normal",
    .doc = "The 24 normals of each shrub class whose normals fit in its span (header +0x2c).",
    .row_size = sizeof(shrub_normal_row),
    .columns = normal_cols,
    .column_count = GC_COUNTOF(normal_cols),
    .parent_table = "shrub.class",
    .parent_link = "class",
    .parent_column = "class_row",
};

/* The GS packet walk of Wrench's read_shrub_class: at each GS offset the next
 * GIF tag (1 qw), A+D record (5 qw) or vertex (3 qw) must sit exactly there;
 * a vertex three back from the cursor is the padding that ends a short packet.
 * *walked gets the vertices appended to primitives before that padding. */
static bool gs_walk(const uint8_t *tags, uint32_t ntags, const uint8_t *tex, uint32_t ntex,
                    const uint8_t *verts, uint32_t nverts, uint32_t *walked)
{
    uint32_t t = 0, a = 0, v = 0;
    int64_t at = 0;
    *walked = 0;
    while (t < ntags || a < ntex || v < nverts) {
        if (t < ntags && (int32_t)gc_load_u32le(tags + SHRUB_GIF_TAG_BYTES * t + 12) == at) {
            t++, at += 1;
            continue;
        }
        if (a < ntex && (int32_t)gc_load_u32le(tex + SHRUB_TEXTURE_BYTES * a + 12) == at) {
            a++, at += 5;
            continue;
        }
        int16_t vofs = v < nverts ? (int16_t)gc_load_u16le(verts + SHRUB_VERTEX_BYTES * v + 6) : 0;
        if (v < nverts && vofs == at) {
            v++, at += 3, *walked = v;
            continue;
        }
        if (v < nverts && vofs == at - 3)
            return true;
        return false;
    }
    return true;
}

/* What the replay needs besides the packet: the class, its normals and the row buffers. */
typedef struct shrub_emit {
    gc_level *lv;
    const shrub_class_row *c;
    uint32_t class_row, packet_row;
    const uint8_t *normals; /* 24 x 8 bytes, or NULL if they do not fit */
    gc_rowbuf *vb, *tb;
    const uint8_t *slots; /* the class entry's texture slots (+0x10), slot_count of them */
    uint32_t slot_count;
} shrub_emit;

/* Wrench's recovery merges vertices equal in position, UV and normal, then drops triangles with
 * two merged corners: compare exactly what it compares (the float position, s, t, the normal's
 * components). */
static bool same_vertex(const shrub_emit *e, const uint8_t *v1, const uint8_t *v2, uint32_t i,
                        uint32_t j, double k)
{
    for (int a = 0; a < 3; a++)
        if ((float)((int16_t)gc_load_u16le(v1 + 8 * i + 2 * a) * k) !=
            (float)((int16_t)gc_load_u16le(v1 + 8 * j + 2 * a) * k))
            return false;
    if (gc_load_u32le(v2 + 8 * i) != gc_load_u32le(v2 + 8 * j)) /* s, t */
        return false;
    uint16_t ni = gc_load_u16le(v2 + 8 * i + 6) & SHRUB_NORMAL_MASK,
             nj = gc_load_u16le(v2 + 8 * j + 6) & SHRUB_NORMAL_MASK;
    if (ni == nj)
        return true;
    if (!e->normals || ni >= SHRUB_NORMAL_COUNT || nj >= SHRUB_NORMAL_COUNT)
        return false;
    return memcmp(e->normals + 8 * ni, e->normals + 8 * nj, 6) == 0;
}

/* Triangles of one primitive: every 3 vertices of a list, (i, i+1, i+2) of a strip. */
static gc_status close_primitive(const shrub_emit *e, shrub_packet_row *p, shrub_triangle_row *t,
                                 uint32_t first, uint32_t count, const uint8_t *v1,
                                 const uint8_t *v2, double k, gc_diag *diag)
{
    uint32_t step = t->list ? 3 : 1;
    for (uint32_t i = 0; i + 2 < count; i += step) {
        shrub_triangle_row *row = gc_rows_push(e->tb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for shrub.triangle");
        *row = *t;
        row->a = first + i, row->b = first + i + 1, row->c = first + i + 2;
        row->zero_area = same_vertex(e, v1, v2, row->a, row->b, k) ||
                         same_vertex(e, v1, v2, row->a, row->c, k) ||
                         same_vertex(e, v1, v2, row->b, row->c, k);
        p->triangles++;
    }
    return GC_OK;
}

/* The replay of read_shrub_class once the walk is known to succeed: a tag starts a primitive
 * of its type, a texture primitive makes its index current (and also ends the primitive in
 * progress), each vertex is appended; padding ends the packet. */
static gc_status replay(const shrub_emit *e, shrub_packet_row *p, const uint8_t *tags,
                        const uint8_t *tex, const uint8_t *v1, const uint8_t *v2,
                        uint64_t tags_file, uint64_t v1_file, double k, gc_diag *diag)
{
    const shrub_class_row *c = e->c;
    uint32_t t = 0, a = 0, v = 0, nt = (uint32_t)p->gif_tag_count, na = (uint32_t)p->texture_count;
    uint32_t nv = p->vertices_walked, prim_count = 0, first = 0;
    int64_t at = 0;
    int open = 0, list = 0;
    int32_t cur_tex = -1;
    uint32_t cur_tag = 0;
    shrub_triangle_row tri;
    memset(&tri, 0, sizeof tri);
    tri.packet_row = e->packet_row, tri.class_row = e->class_row;
    tri.packet_vertices = nv;
    p->vertex_row = nv ? (uint32_t)e->vb->count : UINT32_MAX;
    gc_status st = GC_OK;
#define SHRUB_CLOSE()                                                                              \
    do {                                                                                           \
        if (open &&                                                                                \
            (st = close_primitive(e, p, &tri, first, v - first, v1, v2, k, diag)) != GC_OK)        \
            return st;                                                                             \
        open = 0;                                                                                  \
    } while (0)
    while (v < nv && (t < nt || a < na || v < nv)) {
        if (t < nt && (int32_t)gc_load_u32le(tags + SHRUB_GIF_TAG_BYTES * t + 12) == at) {
            SHRUB_CLOSE();
            uint32_t hi = gc_load_u32le(tags + SHRUB_GIF_TAG_BYTES * t + 4);
            list = ((hi >> 15) & 7u) == GS_PRIM_TRIANGLE;
            cur_tag = t++, at += 1;
            continue;
        }
        if (a < na && (int32_t)gc_load_u32le(tex + SHRUB_TEXTURE_BYTES * a + 12) == at) {
            SHRUB_CLOSE();
            cur_tex = (int32_t)gc_load_u32le(tex + SHRUB_TEXTURE_BYTES * a + 48); /* TEX0_1 lo */
            a++, at += 5;
            continue;
        }
        if (!open) {
            open = 1, first = v;
            tri.primitive = prim_count++;
            tri.list = (uint8_t)list;
            tri.texture = cur_tex;
            /* the class-local index selects the entry's slot (shrub.md) */
            tri.texture_entry =
                cur_tex >= 0 && (uint32_t)cur_tex < e->slot_count ? e->slots[cur_tex] : UINT32_MAX;
            tri.file_ofs = tags_file + SHRUB_GIF_TAG_BYTES * (uint64_t)cur_tag;
        }
        shrub_vertex_row *row = gc_rows_push(e->vb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for shrub.vertex");
        memset(row, 0, sizeof *row);
        const uint8_t *q = v1 + SHRUB_VERTEX_BYTES * v, *w = v2 + SHRUB_VERTEX_BYTES * v;
        row->file_ofs = v1_file + SHRUB_VERTEX_BYTES * (uint64_t)v;
        row->packet_row = e->packet_row, row->class_row = e->class_row;
        row->index = v, row->primitive = tri.primitive;
        row->x = (float)((int16_t)gc_load_u16le(q) * k);
        row->y = (float)((int16_t)gc_load_u16le(q + 2) * k);
        row->z = (float)((int16_t)gc_load_u16le(q + 4) * k);
        row->s = (float)(int16_t)gc_load_u16le(w) / 4096.0f;
        row->t = (float)(int16_t)gc_load_u16le(w + 2) / 4096.0f;
        uint16_t n = gc_load_u16le(w + 6);
        row->normal = n & SHRUB_NORMAL_MASK;
        row->stop = (uint8_t)(n >> 15);
        row->texture = cur_tex;
        row->sphere_known = c->header_reading;
        double dx = row->x - c->bsphere_x, dy = row->y - c->bsphere_y, dz = row->z - c->bsphere_z;
        row->radius = (float)sqrt(dx * dx + dy * dy + dz * dz);
        row->bsphere_radius = c->bsphere_w;
        v++, at += 3;
    }
    SHRUB_CLOSE();
#undef SHRUB_CLOSE
    return GC_OK;
}

/* One packet's VIF list (the window `list`), checked as read_shrub_class reads it; once its GS
 * packet replays, its vertices and triangles are published. */
static gc_status read_packet(const shrub_emit *e, gc_reader list, shrub_packet_row *p,
                             double *max_r2, gc_diag *diag)
{
    gc_level *lv = e->lv;
    (void)lv; /* only the fault switches read it */
    const shrub_class_row *c = e->c;
    p->stop_index = -1;
    p->max_texture_index = -1;
    p->vertex_row = UINT32_MAX;
    gc_vif_walker w;
    gc_vif_begin(&w, list, 0);
    gc_vif_code code, un[3];
    int rc;
    while ((rc = gc_vif_next(&w, &code)) > 0)
        if (code.is_unpack) {
            if (p->unpack_count < 3)
                un[p->unpack_count] = code;
            if (p->unpack_count < UINT8_MAX)
                p->unpack_count++;
        }
    p->vif_ok = rc == 0;
    if (p->unpack_count < 3)
        return GC_OK;
    gc_reader h = gc_reader_make(un[0].payload, un[0].payload_bytes, un[0].file_ofs + 4);
    p->texture_count = gc_s32le(&h);
    p->gif_tag_count = gc_s32le(&h);
    p->vertex_count = gc_s32le(&h);
    p->vertex_offset_qwords = gc_s32le(&h);
    if (h.overrun || p->texture_count < 0 || p->gif_tag_count < 0 || p->vertex_count < 0)
        return GC_OK;
    size_t need;
    p->header_fits =
        gc_size_mad((size_t)p->gif_tag_count, SHRUB_GIF_TAG_BYTES, SHRUB_PACKET_HEADER, &need) &&
        gc_size_mad((size_t)p->texture_count, SHRUB_TEXTURE_BYTES, need, &need) &&
        need <= un[0].payload_bytes;
    p->vertices_fit = gc_size_mul((size_t)p->vertex_count, SHRUB_VERTEX_BYTES, &need) &&
                      need <= un[1].payload_bytes && need <= un[2].payload_bytes;
    if (!p->header_fits || !p->vertices_fit)
        return GC_OK;
    const uint8_t *tags = un[0].payload + SHRUB_PACKET_HEADER;
    const uint8_t *tex = tags + SHRUB_GIF_TAG_BYTES * (size_t)p->gif_tag_count;
    for (int32_t t = 0; t < p->gif_tag_count; t++) {
        const uint8_t *g = tags + SHRUB_GIF_TAG_BYTES * (size_t)t;
        uint64_t tag = (uint64_t)gc_load_u32le(g) | (uint64_t)gc_load_u32le(g + 4) << 32;
        /* PRIM is tag bits 47-57; its primitive type is the low three bits. Historical
         * bug: the field taken from bits 32.. (the start of the tag's high word). */
        unsigned shift = GC_FAULT(lv, shrub_prim_bits) ? 32u : 47u;
        uint8_t type = (uint8_t)((tag >> shift) & 7u);
        if (t == 0)
            p->prim = type;
        if (type != GS_PRIM_TRIANGLE && type != GS_PRIM_TRIANGLE_STRIP)
            p->non_triangle_tags++;
        p->nloop_sum += (uint32_t)(tag & 0x7FFFu); /* NLOOP: bits 0-14 */
    }
    p->ad_regs_ok = 1;
    for (int32_t a = 0; a < p->texture_count; a++) {
        for (int q = 0; q < 4; q++)
            if (tex[SHRUB_TEXTURE_BYTES * (size_t)a + 16u * (size_t)q + 8] != shrub_ad_regs[q])
                p->ad_regs_ok = 0;
        int32_t ti = (int32_t)gc_load_u32le(tex + SHRUB_TEXTURE_BYTES * (size_t)a + 48);
        if (ti > p->max_texture_index)
            p->max_texture_index = ti;
    }
    const uint8_t *v1 = un[1].payload, *v2 = un[2].payload;
    p->gs_order_ok = gs_walk(tags, (uint32_t)p->gif_tag_count, tex, (uint32_t)p->texture_count, v1,
                             (uint32_t)p->vertex_count, &p->vertices_walked);
    if (p->gs_order_ok)
        p->padding_vertices = (uint32_t)p->vertex_count - p->vertices_walked;
    /* Position = s16 x scale / 1024. Historical bug: the /1024 left out (fault
     * shrub_vertex_scale), which puts every vertex 1024 times too far out. */
    double k = (double)c->scale / (GC_FAULT(lv, shrub_vertex_scale) ? 1.0 : 1024.0);
    for (int32_t v = 0; v < p->vertex_count; v++) {
        uint16_t raw = gc_load_u16le(v2 + SHRUB_VERTEX_BYTES * (size_t)v + 6);
        /* Bit 15 is the strip loop's stop, not part of the index. Historical bug: the
         * field taken whole (fault shrub_stop_bit). */
        uint16_t n = GC_FAULT(lv, shrub_stop_bit) ? raw : (uint16_t)(raw & SHRUB_NORMAL_MASK);
        if (raw & 0x8000u) {
            if (p->stop_index < 0)
                p->stop_index = v;
            p->stop_bits++;
        }
        if (n > p->max_normal_index)
            p->max_normal_index = n;
        const uint8_t *q = v1 + SHRUB_VERTEX_BYTES * (size_t)v;
        double dx = (int16_t)gc_load_u16le(q) * k - c->bsphere_x,
               dy = (int16_t)gc_load_u16le(q + 2) * k - c->bsphere_y,
               dz = (int16_t)gc_load_u16le(q + 4) * k - c->bsphere_z;
        double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 > *max_r2)
            *max_r2 = r2;
    }
    if (!p->gs_order_ok)
        return GC_OK;
    return replay(e, p, tags, tex, v1, v2, un[0].file_ofs + 4 + SHRUB_PACKET_HEADER,
                  un[1].file_ofs + 4, k, diag);
}

static bool sphere_like(float v)
{
    return isfinite(v) && v > -SHRUB_BSPHERE_LIMIT && v < SHRUB_BSPHERE_LIMIT;
}

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
    gc_rowbuf *pb = gc_level_rows(lv, &gc_table_shrub_packet);
    gc_rowbuf *vb = gc_level_rows(lv, &gc_table_shrub_vertex);
    gc_rowbuf *tb = gc_level_rows(lv, &gc_table_shrub_triangle);
    gc_rowbuf *nb = gc_level_rows(lv, &gc_table_shrub_normal);
    for (int32_t i = 0; i < t.count; i++) {
        shrub_class_row c;
        memset(&c, 0, sizeof c);
        c.file_ofs = gc_tell_file(&tab);
        c.index = (uint32_t)i;
        gc_reader e = gc_take_window(&tab, stride);
        c.offset_in_asset_wad = gc_u32le(&e); /* +0x00 */
        c.o_class = gc_s32le(&e);             /* +0x04 */
        /* +0x10: 16 texture slots into the shrub texture table, 0xFF ends the list. */
        gc_seek(&e, 0x10);
        c.slots_resolve = 1;
        uint8_t slots[16];
        for (int sl = 0; sl < 16; sl++) {
            uint8_t v = gc_u8(&e);
            if (v == 0xFF)
                break;
            slots[c.texture_slots++] = v;
            if (lv->core.shrub_textures.count < 0 || v >= (uint32_t)lv->core.shrub_textures.count)
                c.slots_resolve = 0;
        }
        if (stride >= 0x24) {
            gc_seek(&e, 0x20);
            c.billboard_width = gc_s16le(&e);  /* +0x20 */
            c.billboard_height = gc_s16le(&e); /* +0x22 */
        }
        gc_class_span sp = gc_class_span_of(lv, c.offset_in_asset_wad);
        c.in_core_data = sp.in_core_data;
        c.span_bytes = sp.span_bytes;
        c.shares_offset = sp.shares_offset;
        uint32_t class_row = (uint32_t)rb->count;
        if (c.in_core_data && c.span_bytes >= SHRUB_HEADER_BYTES) {
            gc_reader cls = gc_window(&cd, c.offset_in_asset_wad, (size_t)c.span_bytes);
            gc_reader h = gc_window(&cls, 0, SHRUB_HEADER_BYTES);
            c.header_read = 1;
            c.bsphere_x = gc_f32le(&h); /* +0x00 */
            c.bsphere_y = gc_f32le(&h); /* +0x04 */
            c.bsphere_z = gc_f32le(&h); /* +0x08 */
            c.bsphere_w = gc_f32le(&h); /* +0x0c */
            c.header_reading = sphere_like(c.bsphere_x) && sphere_like(c.bsphere_y) &&
                               sphere_like(c.bsphere_z) && sphere_like(c.bsphere_w) &&
                               c.bsphere_w > 0.0f;
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
            c.normals_fit = c.data_ofs > 0 &&
                            gc_range_ok((size_t)c.data_ofs, SHRUB_NORMAL_COUNT * 8u, cls.size);
            c.packet_table_inside =
                c.packet_count >= 0 &&
                gc_range_ok(SHRUB_HEADER_BYTES, (size_t)c.packet_count * SHRUB_PACKET_ENTRY_BYTES,
                            cls.size);
            gc_seek(&h, 0x1C);
            c.billboard_offset = gc_s32le(&h); /* +0x1c */
            c.billboard_fits =
                c.billboard_offset > 0 && gc_range_ok((size_t)c.billboard_offset, 0x40u, cls.size);
            if (c.billboard_fits) {
                gc_reader b = gc_window(&cls, (size_t)c.billboard_offset, 0x40u);
                c.billboard_fade = gc_f32le(&b); /* billboard +0x00 */
            }
            if (!c.header_reading) /* packed data: no centre to measure from */
                c.bsphere_x = c.bsphere_y = c.bsphere_z = c.bsphere_w = 0.0f;
            shrub_emit em = {.lv = lv,
                             .c = &c,
                             .class_row = class_row,
                             .vb = vb,
                             .tb = tb,
                             .slots = slots,
                             .slot_count = c.texture_slots};
            if (c.normals_fit) {
                em.normals = cls.data + c.data_ofs;
                for (uint32_t n = 0; n < SHRUB_NORMAL_COUNT; n++) {
                    shrub_normal_row *nr = gc_rows_push(nb);
                    if (!nr)
                        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for shrub.normal");
                    const uint8_t *q = em.normals + 8u * n;
                    int32_t xyz[3];
                    double l2 = 0;
                    for (int a = 0; a < 3; a++) {
                        uint16_t raw = gc_load_u16le(q + 2 * a);
                        /* fault: the components read unsigned (a negative one becomes 32768..) */
                        xyz[a] = GC_FAULT(lv, shrub_normal_unsigned) ? (int32_t)raw
                                                                     : (int32_t)(int16_t)raw;
                        l2 += (double)xyz[a] * xyz[a];
                    }
                    *nr =
                        (shrub_normal_row){.file_ofs = cls.file_ofs + (uint64_t)c.data_ofs + 8u * n,
                                           .class_row = class_row,
                                           .index = n,
                                           .x = xyz[0],
                                           .y = xyz[1],
                                           .z = xyz[2],
                                           .length = sqrt(l2) / 32767.0};
                }
            }
            double max_r2 = 0;
            gc_diag_push(diag, "core_data/shrub[%d]", (int)i);
            for (int32_t k = 0; c.packet_table_inside && k < c.packet_count; k++) {
                gc_reader e2 =
                    gc_window(&cls, SHRUB_HEADER_BYTES + SHRUB_PACKET_ENTRY_BYTES * (size_t)k,
                              SHRUB_PACKET_ENTRY_BYTES);
                shrub_packet_row p;
                memset(&p, 0, sizeof p);
                p.class_row = class_row;
                p.index = (uint32_t)k;
                p.class_texture_slots = c.texture_slots;
                p.offset = gc_s32le(&e2);     /* +0x0 */
                p.size_bytes = gc_s32le(&e2); /* +0x4 */
                p.inside_span = p.offset >= 0 && p.size_bytes >= 0 &&
                                gc_range_ok((size_t)p.offset, (size_t)p.size_bytes, cls.size);
                p.file_ofs = cls.file_ofs + (p.offset > 0 ? (uint64_t)p.offset : 0);
                em.packet_row = (uint32_t)pb->count;
                if (p.inside_span) {
                    gc_status ps =
                        read_packet(&em, gc_window(&cls, (size_t)p.offset, (size_t)p.size_bytes),
                                    &p, &max_r2, diag);
                    if (ps != GC_OK)
                        return ps;
                }
                for (uint32_t q = 0; q < p.triangles; q++)
                    c.triangles +=
                        !((const shrub_triangle_row *)tb->data)[tb->count - 1 - q].zero_area;
                shrub_packet_row *prow = gc_rows_push(pb);
                if (!prow)
                    return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for shrub.packet");
                *prow = p;
                c.packets_decoded++;
            }
            gc_diag_pop(diag);
            c.max_vertex_radius = (float)sqrt(max_r2);
        }
        shrub_class_row *row = gc_rows_push(rb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for shrub.class");
        *row = c;
    }
    return GC_OK;
}

static const gc_table_desc *const shrub_tables[] = {
    &gc_table_shrub_class, &gc_table_shrub_packet, &gc_table_shrub_vertex, &gc_table_shrub_triangle,
    &gc_table_shrub_normal};

const gc_decoder gc_dec_shrub = {
    .name = "shrub",
    .doc = "shrub class table (0x30 stride), class headers, packets, vertices and triangles",
    .tables = shrub_tables,
    .table_count = GC_COUNTOF(shrub_tables),
    .run = shrub_run,
    .release = NULL,
};
