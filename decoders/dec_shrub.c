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

/* The GS packet walk of Wrench's read_shrub_class: at each GS offset the next
 * GIF tag (1 qw), A+D record (5 qw) or vertex (3 qw) must sit exactly there;
 * a vertex three back from the cursor is the padding that ends a short packet. */
static bool gs_walk(const uint8_t *tags, uint32_t ntags, const uint8_t *tex, uint32_t ntex,
                    const uint8_t *verts, uint32_t nverts)
{
    uint32_t t = 0, a = 0, v = 0;
    int64_t at = 0;
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
            v++, at += 3;
            continue;
        }
        if (v < nverts && vofs == at - 3)
            return true;
        return false;
    }
    return true;
}

/* One packet's VIF list (the window `list`), checked as read_shrub_class reads it. */
static void read_packet(gc_level *lv, gc_reader list, shrub_packet_row *p, const shrub_class_row *c,
                        double *max_r2)
{
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
        return;
    gc_reader h = gc_reader_make(un[0].payload, un[0].payload_bytes, un[0].file_ofs + 4);
    p->texture_count = gc_s32le(&h);
    p->gif_tag_count = gc_s32le(&h);
    p->vertex_count = gc_s32le(&h);
    p->vertex_offset_qwords = gc_s32le(&h);
    if (h.overrun || p->texture_count < 0 || p->gif_tag_count < 0 || p->vertex_count < 0)
        return;
    size_t need;
    p->header_fits =
        gc_size_mad((size_t)p->gif_tag_count, SHRUB_GIF_TAG_BYTES, SHRUB_PACKET_HEADER, &need) &&
        gc_size_mad((size_t)p->texture_count, SHRUB_TEXTURE_BYTES, need, &need) &&
        need <= un[0].payload_bytes;
    p->vertices_fit = gc_size_mul((size_t)p->vertex_count, SHRUB_VERTEX_BYTES, &need) &&
                      need <= un[1].payload_bytes && need <= un[2].payload_bytes;
    if (!p->header_fits || !p->vertices_fit)
        return;
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
    }
    p->ad_regs_ok = 1;
    for (int32_t a = 0; a < p->texture_count; a++)
        for (int q = 0; q < 4; q++)
            if (tex[SHRUB_TEXTURE_BYTES * (size_t)a + 16u * (size_t)q + 8] != shrub_ad_regs[q])
                p->ad_regs_ok = 0;
    const uint8_t *v1 = un[1].payload, *v2 = un[2].payload;
    p->gs_order_ok = gs_walk(tags, (uint32_t)p->gif_tag_count, tex, (uint32_t)p->texture_count, v1,
                             (uint32_t)p->vertex_count);
    double k = (double)c->scale / 1024.0;
    for (int32_t v = 0; v < p->vertex_count; v++) {
        uint16_t n = gc_load_u16le(v2 + SHRUB_VERTEX_BYTES * (size_t)v + 6) & SHRUB_NORMAL_MASK;
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
            if (!c.header_reading) /* packed data: no centre to measure from */
                c.bsphere_x = c.bsphere_y = c.bsphere_z = c.bsphere_w = 0.0f;
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
                p.offset = gc_s32le(&e2);     /* +0x0 */
                p.size_bytes = gc_s32le(&e2); /* +0x4 */
                p.inside_span = p.offset >= 0 && p.size_bytes >= 0 &&
                                gc_range_ok((size_t)p.offset, (size_t)p.size_bytes, cls.size);
                p.file_ofs = cls.file_ofs + (p.offset > 0 ? (uint64_t)p.offset : 0);
                if (p.inside_span)
                    read_packet(lv, gc_window(&cls, (size_t)p.offset, (size_t)p.size_bytes), &p, &c,
                                &max_r2);
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

static const gc_table_desc *const shrub_tables[] = {&gc_table_shrub_class, &gc_table_shrub_packet};

const gc_decoder gc_dec_shrub = {
    .name = "shrub",
    .doc = "shrub class table (0x30 stride), class headers and packets",
    .tables = shrub_tables,
    .table_count = GC_COUNTOF(shrub_tables),
    .run = shrub_run,
    .release = NULL,
};
