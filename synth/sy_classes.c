/* SPDX-License-Identifier: MIT */
/* Moby, tie and shrub class data in core_data: each writer lays out one class span of an exact
 * byte size, with the headers and packet structures of docs/formats/classes.md, and fills what is
 * left of the span with animation-like bulk data. */
#include <math.h> /* sqrtf only: IEEE-exact */
#include <string.h>

#include "sy_internal.h"

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}
static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}
static void put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(p, u);
}

/* VIF code words (formats.md §5.3): UNPACK = (0x60|vnvl)<<24 | num<<16 | flg<<15 | usn<<14 | addr.
 */
#define VIF_UNPACK(cmd, num, usn, addr)                                                            \
    ((uint32_t)(cmd) << 24 | ((uint32_t)(num)&0xFFu) << 16 | 1u << 15 | (uint32_t)(usn) << 14 |    \
     ((uint32_t)(addr)&0x3FFu))
#define VIF_V2_16_MASKED 0x75u /* 0x60 | mask bit 0x10 | V2_16 */
#define VIF_V4_8         0x6Eu
#define VIF_V4_16        0x6Du
#define VIF_V4_32        0x6Cu
#define VIF_STCYCL_4_4   0x01000404u
#define VIF_STMOD_0      0x05000000u

/* Moby classes: synth/sy_moby.c. */

#define TIE_HEADER_BYTES 0x80u

int sy_tie_class_write(sy_buf *out, size_t span, uint32_t o_class, int lod_out_of_order, sy_rng *r)
{
    size_t base = out->len;
    if (span < SY_TIE_CLASS_MIN_BYTES || sy_buf_reserve(out, span) != 0)
        return -1;
    sy_buf_zero(out, span);
    uint8_t *c = out->data + base;
    uint32_t texture_count = 1 + sy_rng_below(r, 3);
    float near_d = (float)(8 + (int)sy_rng_below(r, 8)),
          mid_d = near_d + (float)(8 + (int)sy_rng_below(r, 16));
    float far_d = mid_d + (float)(10 + (int)sy_rng_below(r, 30));
    if (lod_out_of_order) { /* the real disc has a few of these: mid before near */
        float t = near_d;
        near_d = mid_d;
        mid_d = t;
    }
    put_f32(c + 0x10, near_d);
    put_f32(c + 0x14, mid_d);
    put_f32(c + 0x18, far_d);
    put_u32(c + 0x1C, TIE_HEADER_BYTES); /* ad_gif_ofs */
    c[0x0F] = (uint8_t)texture_count;
    put_f32(c + 0x40, 0.25f);             /* scale */
    put_u16(c + 0x44, (uint16_t)o_class); /* o_class == the table's class number */
    put_u16(c + 0x46, 0);                 /* t_class */
    put_f32(c + 0x48, far_d * 2.0f);      /* mip_dist */
    put_u32(c + 0x4C, 0x80808080u);       /* glow_rgba */
    put_f32(c + 0x5C, 4.0f + (float)(int)sy_rng_below(r, 12)); /* bsphere radius */
    for (uint32_t t = 0; t < texture_count; t++) { /* ad-gifs: TEX0 TEX1 MIPTBP1 CLAMP MIPTBP2 */
        uint8_t *a = c + TIE_HEADER_BYTES + 0x50 * t;
        static const uint8_t regs[5] = {0x06, 0x14, 0x34, 0x08, 0x36};
        for (int k = 0; k < 5; k++)
            a[16 * k + 8] = regs[k];
        put_u32(a, t);
    }
    size_t lod_area = span - 0x100;
    size_t at = 0x100;
    for (int l = 0; l < 3; l++) {
        uint32_t pc = 1 + sy_rng_below(r, 3);
        size_t share = (l == 2 ? span - at : lod_area / 3) / 16 * 16;
        size_t per = share > 16u * pc ? (share - 16u * pc) / pc / 16 * 16 : 0;
        if (per < 0x50)
            pc = 1, per = share > 0x60 ? (share - 16) / 16 * 16 : 0;
        if (per < 0x40)
            return -1;
        put_u32(c + 4 * l, (uint32_t)at); /* packets[l] */
        c[0x0C + l] = (uint8_t)pc;        /* packet_count[l] */
        size_t body = at + 16u * pc;
        uint32_t verts_total = 0, strips_total = 0;
        for (uint32_t k = 0; k < pc; k++) {
            uint8_t *h = c + at + 16u * k, *b = c + body;
            uint32_t strips = 1 + sy_rng_below(r, 4);
            size_t vert_ofs = (0x2C + 4u * strips + 15) / 16;
            size_t vert_qw = per / 16 > vert_ofs ? per / 16 - vert_ofs : 1;
            if (vert_qw > 255)
                vert_qw = 255;
            put_u32(h + 0, (uint32_t)(body - at)); /* data, relative to packets[l] */
            h[4] = (uint8_t)texture_count;         /* shader_count */
            h[8] = (uint8_t)vert_ofs;              /* vert_ofs (qw) */
            h[9] = (uint8_t)vert_qw;               /* vert_size (qw) */
            h[10] = (uint8_t)(vert_qw > 255 ? 255 : vert_qw);
            for (uint32_t s = 0; s < texture_count && s < 4; s++) {
                put_u32(b + 4 * s, 0x20 + 0x10 * s); /* ad-gif destinations */
                put_u32(b + 0x10 + 4 * s, 0x50 * s); /* sources (/0x50 = texture) */
            }
            b[0x23] = (uint8_t)strips;                  /* unpack header: strip_count */
            b[0x28] = (uint8_t)(vert_qw * 16 / 16 + 4); /* dinky_vertices_size + 4 */
            for (uint32_t s = 0; s < strips; s++) {
                uint8_t *st = b + 0x2C + 4 * s;
                st[0] = (uint8_t)(3 + sy_rng_below(r, 10));
                st[2] = (uint8_t)(s * 4);
                st[3] = (uint8_t)(s & 1);
            }
            /* Dinky vertices: s16 x, y, z, pad, then packed uv/colour words. */
            int32_t x = 0, y = 0, z = 0;
            for (size_t q = 0; q < vert_qw; q++) {
                uint8_t *v = b + 16 * (vert_ofs + q);
                x += (int32_t)sy_rng_below(r, 129) - 64;
                y += (int32_t)sy_rng_below(r, 129) - 64;
                z += (int32_t)sy_rng_below(r, 129) - 64;
                put_u16(v + 0, (uint16_t)(int16_t)x);
                put_u16(v + 2, (uint16_t)(int16_t)y);
                put_u16(v + 4, (uint16_t)(int16_t)z);
                put_u16(v + 8, (uint16_t)(q * 97));
                put_u16(v + 10, (uint16_t)(q * 61));
                put_u32(v + 12, 0x80000000u | (uint32_t)q);
            }
            verts_total += (uint32_t)vert_qw;
            strips_total += strips;
            body += per;
        }
        put_u16(c + 0x60 + 8 * l, (uint16_t)verts_total); /* lods[l] {vert, tri, strip, pad} */
        put_u16(c + 0x62 + 8 * l, (uint16_t)(verts_total > 2 ? verts_total - 2 : 0));
        put_u16(c + 0x64 + 8 * l, (uint16_t)strips_total);
        at = body;
        if (at > span)
            return -1;
    }
    if (at < span)
        sy_fill_bulk(c + at, span - at, r);
    return 0;
}

#define SHRUB_HEADER_BYTES 0x40u

/* GS register numbers of the shrub texture primitive's A+D records, in Wrench's order
 * (ShrubTexturePrimitive, engine/shrub.h): TEX1_1, CLAMP_1, MIPTBP1_1, TEX0_1. */
static const uint8_t shrub_ad_regs[4] = {0x14, 0x08, 0x34, 0x06};
/* GS PRIM register: primitive type in bits 0-2 (3 = triangle list, 4 = triangle strip), then
 * IIP (bit 3), TME (4), FGE (5), ABE (6), as Wrench's shrub builder sets them. */
#define GS_PRIM_TRIANGLE       3u
#define GS_PRIM_TRIANGLE_STRIP 4u
#define GS_PRIM_SHADED         0x78u
/* Register descriptors of a shrub vertex GIF tag (PACKED, NREG 3): ST, RGBAQ, XYZF2. */
#define GIF_SHRUB_REGS 0x412u

int sy_shrub_class_write(sy_buf *out, size_t span, uint32_t o_class, sy_rng *r)
{
    size_t base = out->len;
    if (span < SY_SHRUB_CLASS_MIN_BYTES || sy_buf_reserve(out, span) != 0)
        return -1;
    sy_buf_zero(out, span);
    uint8_t *c = out->data + base;
    uint32_t packets = 1 + sy_rng_below(r, 3);
    const float scale = 0.25f;
    put_f32(c + 0x10, sy_rng_below(r, 5) ? 5.0f : 7.5f); /* mip_distance */
    put_u16(c + 0x14, 0);                                /* mode_bits */
    put_f32(c + 0x20, scale);                            /* scale */
    put_u16(c + 0x24, (uint16_t)o_class);                /* o_class */
    put_u16(c + 0x26, 0);                                /* s_class */
    put_u16(c + 0x28, (uint16_t)packets);                /* packet_count */
    size_t normals = SHRUB_HEADER_BYTES + 8u * packets;
    normals = (normals + 15) / 16 * 16;
    put_u32(c + 0x2C, (uint32_t)normals); /* normals_offset: inside the span */
    for (int n = 0; n < 24; n++) {        /* 24 x {s16 x, y, z, pad} */
        put_u16(c + normals + 8 * n + 0, (uint16_t)(int16_t)((n % 3 - 1) * 0x3000));
        put_u16(c + normals + 8 * n + 2, (uint16_t)(int16_t)((n / 3 % 3 - 1) * 0x3000));
        put_u16(c + normals + 8 * n + 4, (uint16_t)(int16_t)0x3000);
    }
    size_t at = normals + 24 * 8;
    uint32_t drawn = 0;
    int32_t lo[3] = {INT16_MAX, INT16_MAX, INT16_MAX}, hi[3] = {INT16_MIN, INT16_MIN, INT16_MIN};
    for (uint32_t k = 0; k < packets; k++) {
        /* Every third packet is a triangle list (a whole number of triangles), the others one
         * strip; Wrench's reader accepts only these two primitives. */
        int list = k % 3 == 2;
        uint32_t nv = 6 + sy_rng_below(r, 26), tex = 1, tags = 1;
        if (list)
            nv = nv / 3 * 3;
        size_t hdr_qw = 1 + tags + 4 * tex; /* header, GIF tags, 0x40-byte A+D records */
        size_t bytes = 12 + 4 + 16 * hdr_qw + 4 + 8 * nv + 4 + 8 * nv;
        bytes = (bytes + 15) / 16 * 16;
        if (at + bytes > span)
            break;
        uint8_t *p = c + at;
        put_u32(p + 0, VIF_STCYCL_4_4);
        put_u32(p + 4, 0); /* NOP */
        put_u32(p + 8, VIF_STMOD_0);
        put_u32(p + 12, VIF_UNPACK(VIF_V4_32, hdr_qw, 0, 0));
        uint8_t *h = p + 16;
        /* ShrubPacketHeader {texture_count, gif_tag_count, vertex_count, vertex_offset (qw)} */
        put_u32(h + 0, tex), put_u32(h + 4, tags), put_u32(h + 8, nv);
        put_u32(h + 12, (uint32_t)hdr_qw);
        /* GS packet order: the texture primitive (5 qw) at 0, the vertex GIF tag at 5, then
         * 3 qw per vertex (ST, RGBAQ, XYZF2); each record names its own GS packet offset. */
        uint32_t gs_tag = 5 * tex;
        uint8_t *g = h + 16; /* GIF tag: NLOOP, EOP, PRE, PRIM, FLG PACKED, NREG 3 */
        uint32_t prim = (list ? GS_PRIM_TRIANGLE : GS_PRIM_TRIANGLE_STRIP) | GS_PRIM_SHADED;
        uint64_t tag = (uint64_t)nv | 1ull << 15 | 1ull << 46 | (uint64_t)prim << 47 | 3ull << 60;
        put_u32(g + 0, (uint32_t)tag), put_u32(g + 4, (uint32_t)(tag >> 32));
        put_u32(g + 8, GIF_SHRUB_REGS);
        put_u32(g + 12, gs_tag);
        for (uint32_t t = 0; t < tex; t++) {
            uint8_t *a = h + 16 * (1 + tags) + 64 * t;
            for (int q = 0; q < 4; q++)
                a[16 * q + 8] = shrub_ad_regs[q];
            put_u32(a + 12, 5 * t); /* gs_packet_offset, in the slot after TEX1_1's register */
            put_u32(a + 48, t);     /* TEX0_1 data_lo: texture slot of the class */
        }
        uint8_t *u1 = h + 16 * hdr_qw;
        put_u32(u1, VIF_UNPACK(VIF_V4_16, nv, 0, hdr_qw));
        for (uint32_t v = 0; v < nv; v++) {
            uint8_t *q = u1 + 4 + 8 * v;
            int32_t xyz[3] = {(int)sy_rng_below(r, 2048) - 1024, (int)sy_rng_below(r, 2048),
                              (int)sy_rng_below(r, 2048) - 1024};
            for (int a = 0; a < 3; a++) {
                put_u16(q + 2 * a, (uint16_t)(int16_t)xyz[a]);
                lo[a] = xyz[a] < lo[a] ? xyz[a] : lo[a];
                hi[a] = xyz[a] > hi[a] ? xyz[a] : hi[a];
            }
            put_u16(q + 6, (uint16_t)(gs_tag + 1 + 3 * v)); /* gs_packet_offset */
        }
        uint8_t *u2 = u1 + 4 + 8 * nv;
        put_u32(u2, VIF_UNPACK(VIF_V4_16, nv, 0, hdr_qw + nv));
        for (uint32_t v = 0; v < nv; v++) {
            uint8_t *q = u2 + 4 + 8 * v;
            put_u16(q + 0, (uint16_t)(v * 256));
            put_u16(q + 2, (uint16_t)((v & 1) * 4096));
            put_u16(q + 4, 0);
            put_u16(q + 6, (uint16_t)((v % 24) | (v + 4 == nv ? 0x8000u : 0))); /* stop bit */
        }
        put_u32(c + SHRUB_HEADER_BYTES + 8 * k, (uint32_t)at);        /* packet offset */
        put_u32(c + SHRUB_HEADER_BYTES + 8 * k + 4, (uint32_t)bytes); /* packet size */
        at += bytes;
        drawn++;
    }
    put_u16(c + 0x28, (uint16_t)drawn);
    put_u16(c + 0x34, (uint16_t)drawn); /* drawn_count */
    /* bounding_sphere (0x00): centre of the vertices' box and the distance to its farthest
     * corner, in class units (s16 x scale / 1024), so it encloses every vertex. */
    if (drawn) {
        float half[3], ctr[3], rad2 = 0;
        for (int a = 0; a < 3; a++) {
            ctr[a] = (float)(lo[a] + hi[a]) * 0.5f * scale / 1024.0f;
            half[a] = (float)(hi[a] - lo[a]) * 0.5f * scale / 1024.0f;
            rad2 += half[a] * half[a];
            put_f32(c + 4 * a, ctr[a]);
        }
        put_f32(c + 0x0C, sqrtf(rad2) * 1.001f + 0.001f);
    }
    if (at < span)
        sy_fill_bulk(c + at, span - at, r);
    return 0;
}
