/* SPDX-License-Identifier: MIT */
/* Moby class data in core_data (ties: sy_tie.c, shrubs: sy_shrub.c): the writer lays out one class span of
 * an exact byte size, with the headers and packet structures of docs/formats/classes.md, and fills
 * what is left of the span with animation-like bulk data. */
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

#define MOBY_HEADER_BYTES 0x48u
#define MOBY_TABLE_OFS    0x50u

/* Bind-pose data after the packets (Wrench's write_class order: skeleton, common_trans, joints):
 * joint_count 64-byte matrices, joint_count 16-byte MobyTrans, then the joint list. */
#define MOBY_MAX_JOINTS  31u
#define MOBY_JOINT_LISTS 3u
#define MOBY_JOINT_LIST_MAX                                                                        \
    (4u + 4u * MOBY_JOINT_LISTS + MOBY_JOINT_LISTS * (4u + 2u * 8u + 1u + 3u) + 15u)
#define MOBY_TRANS_SEVENTY 0x70u /* MobyTrans +0x0E, Wrench's "seventy": named, never checked */

size_t sy_moby_class_min_bytes(uint32_t packets)
{
    /* table + terminator, one 2-qw VIF list and 2-qw vertex table per packet, the largest
     * skeleton and common_trans (31 joints) and the largest joint list */
    return MOBY_TABLE_OFS + 16u * ((size_t)packets + 1) + 64u * packets +
           (64u + 16u) * (MOBY_MAX_JOINTS + 1u) + MOBY_JOINT_LIST_MAX;
}

/* Bytes one moby packet with m vertices takes: VIF list (ST unpack + index unpack, NOP-padded to
 * a quadword) and the vertex table (16-byte header + m vertices). */
static size_t moby_vif_qw(uint32_t m)
{
    uint32_t idx_elems = 1 + (m + 3) / 4; /* 4-byte header element, then 4 indices per element */
    size_t bytes = 4 + 4u * m + 4 + 4u * idx_elems;
    return (bytes + 15) / 16;
}

int sy_moby_class_write(sy_buf *out, size_t span, uint32_t packets, uint32_t zero_zero,
                        uint32_t o_class, sy_rng *r)
{
    size_t base = out->len;
    if (span < sy_moby_class_min_bytes(packets) || sy_buf_reserve(out, span) != 0)
        return -1;
    sy_buf_zero(out, span);
    uint8_t *c = out->data + base;
    uint32_t joints = 4 + sy_rng_below(r, MOBY_MAX_JOINTS - 3);
    uint32_t real = packets - zero_zero;
    uint32_t high = (packets + 1) / 2, low = packets - high;
    size_t tail = (64u + 16u) * (size_t)joints + MOBY_JOINT_LIST_MAX; /* bind pose + joints */
    size_t fixed = MOBY_TABLE_OFS + 16u * ((size_t)packets + 1) + tail;
    size_t budget = span > fixed ? (span - fixed) * 3 / 5 : 0; /* packets take ~60% */
    /* Header (offsets relative to the class start). */
    put_u32(c + 0x00, MOBY_TABLE_OFS);             /* packet_table_offset */
    c[0x04] = (uint8_t)high;                       /* high_lod_count */
    c[0x05] = (uint8_t)low;                        /* low_lod_count */
    c[0x06] = 0;                                   /* metal_count */
    c[0x07] = (uint8_t)packets;                    /* metal_begin */
    c[0x08] = (uint8_t)joints;                     /* joint_count */
    c[0x0B] = 0;                                   /* format flag: R&C2 */
    c[0x0C] = 0;                                   /* sequence_count */
    c[0x0E] = (uint8_t)(1 + sy_rng_below(r, 8));   /* lod_trans */
    put_f32(c + 0x24, 0.25f);                      /* scale */
    c[0x2D] = (uint8_t)(32 + sy_rng_below(r, 64)); /* mip_dist */
    put_f32(c + 0x30, 0.0f);                       /* bounding_sphere */
    put_f32(c + 0x34, 0.0f);
    put_f32(c + 0x38, (float)(int)sy_rng_below(r, 8));
    put_f32(c + 0x3C, (float)(2 + (int)sy_rng_below(r, 30)));
    put_u32(c + 0x40, 0x80808080u);                  /* glow_rgba */
    put_u16(c + 0x44, (uint16_t)(o_class & 0x7FFF)); /* mode_bits (carries the class) */
    /* Packet bodies after the table (+ all-zero terminator record). */
    size_t at = MOBY_TABLE_OFS + 16u * ((size_t)packets + 1);
    uint32_t per = real ? (uint32_t)(budget / real) : 0;
    uint32_t m_cap = per > 64 ? (per - 48) / 22 : 1;
    if (m_cap > 254)
        m_cap = 254;
    /* The `packets` records are followed by the record that ends the run: its vif_list_offset
     * is 0. Usually its vertex_offset is not (it names the data after the packets); with
     * zero_zero it is a zero/zero record that still carries a count (172 such on the disc). */
    if (zero_zero > 1)
        return -1;
    for (uint32_t k = 0; k < packets; k++) {
        uint8_t *e = c + MOBY_TABLE_OFS + 16u * k;
        uint32_t m = 1 + sy_rng_below(r, m_cap);
        size_t lq = moby_vif_qw(m), vq = 1 + m;
        if (at + 16 * (lq + vq) + tail > span) {
            m = 1, lq = moby_vif_qw(1), vq = 2;
            if (at + 16 * (lq + vq) + tail > span)
                return -1;
        }
        put_u32(e + 0x0, (uint32_t)at);             /* vif_list_offset */
        put_u16(e + 0x4, (uint16_t)lq);             /* vif_list_size (qw) */
        put_u16(e + 0x6, 0);                        /* texture_unpack_offset */
        put_u32(e + 0x8, (uint32_t)(at + 16 * lq)); /* vertex_offset */
        e[0xC] = (uint8_t)vq;                       /* vertex_data_size (qw) */
        e[0xD] = (uint8_t)((15 + 6 * m) / 16);      /* d */
        e[0xE] = (uint8_t)((3 + m) / 4);            /* e */
        e[0xF] = (uint8_t)m;                        /* transfer_vertex_count */
        uint8_t *v = c + at;
        put_u32(v, VIF_UNPACK(VIF_V2_16_MASKED, m, 0, 0xC2)); /* STs */
        for (uint32_t i = 0; i < m; i++) {
            put_u16(v + 4 + 4 * i, (uint16_t)(i * 4096 / (m + 1)));
            put_u16(v + 6 + 4 * i, (uint16_t)((i * 7 % (m + 1)) * 4096 / (m + 1)));
        }
        uint8_t *ix = v + 4 + 4 * m;
        uint32_t ie = 1 + (m + 3) / 4;
        put_u32(ix, VIF_UNPACK(VIF_V4_8, ie, 1, 0x12D)); /* index buffer */
        ix[4] = 0, ix[5] = 0, ix[6] = (uint8_t)(int8_t)-1, ix[7] = 0;
        for (uint32_t i = 0; i < 4 * (ie - 1); i++)
            ix[8 + i] = (uint8_t)(i < m ? i : 0);
        /* Vertex table: 8 x u16 header, then 16-byte vertices. */
        uint8_t *vt = c + at + 16 * lq;
        put_u16(vt + 6, (uint16_t)m);  /* main_count */
        put_u16(vt + 10, (uint16_t)m); /* transfer_vertex_count */
        put_u16(vt + 12, 16);          /* vertex_table_offset */
        int32_t px = (int32_t)sy_rng_below(r, 2048) - 1024, py = 0, pz = 0;
        for (uint32_t i = 0; i < m; i++) {
            uint8_t *q = vt + 16 + 16 * i;
            put_u16(q + 0, (uint16_t)(i >= 7 ? (i - 7) & 0x1FF : 0)); /* index of vertex i-7 */
            q[8] = (uint8_t)sy_rng_below(r, 256);                     /* normal azimuth */
            q[9] = (uint8_t)sy_rng_below(r, 128);                     /* normal elevation */
            px += (int32_t)sy_rng_below(r, 65) - 32;
            py += (int32_t)sy_rng_below(r, 65) - 32;
            pz += (int32_t)sy_rng_below(r, 65) - 32;
            put_u16(q + 10, (uint16_t)(int16_t)px);
            put_u16(q + 12, (uint16_t)(int16_t)py);
            put_u16(q + 14, (uint16_t)(int16_t)pz);
        }
        at += 16 * (lq + vq);
    }
    {
        uint8_t *t = c + MOBY_TABLE_OFS + 16u * packets; /* the terminator */
        if (zero_zero) {
            put_u16(t + 0x4, (uint16_t)(1 + sy_rng_below(r, 6))); /* vif_list_size: a count */
            t[0xF] = (uint8_t)(1 + sy_rng_below(r, 12));          /* transfer_vertex_count */
        } else {
            put_u32(t + 0x8, (uint32_t)at); /* "next": the skeleton that follows */
        }
    }
    /* Skeleton (+0x14): joint_count 4x4 f32 matrices of the bind pose (identity rotations, the
     * joint's offset in the translation row, in the 1/1024 units of the vertex positions). No
     * shadow data precedes it (+0x0F = 0). */
    uint8_t parent[MOBY_MAX_JOINTS];
    float jt[MOBY_MAX_JOINTS][3];
    put_u32(c + 0x14, (uint32_t)at);
    for (uint32_t j = 0; j < joints; j++) {
        uint8_t *mtx = c + at + 64u * j;
        parent[j] = (uint8_t)(j == 0 ? 0 : sy_rng_below(r, j)); /* parents come first */
        for (int d = 0; d < 3; d++)
            jt[j][d] = (float)((int)sy_rng_below(r, 64) - 32) * 64.0f;
        for (int d = 0; d < 4; d++)
            put_f32(mtx + 20 * d, 1.0f);
        put_f32(mtx + 48, jt[j][0]), put_f32(mtx + 52, jt[j][1]), put_f32(mtx + 56, jt[j][2]);
    }
    at += 64u * joints;
    /* common_trans (+0x18): joint_count MobyTrans {Vec3f offset from the parent joint,
     * u16 parent_offset = parent x 0x40 (0 for the root), u16 "seventy"}. */
    put_u32(c + 0x18, (uint32_t)at);
    for (uint32_t j = 0; j < joints; j++) {
        uint8_t *t = c + at + 16u * j;
        for (int d = 0; d < 3; d++)
            put_f32(t + 4 * d, j == 0 ? jt[j][d] : jt[j][d] - jt[parent[j]][d]);
        put_u16(t + 12, (uint16_t)(parent[j] * 0x40u));
        put_u16(t + 14, MOBY_TRANS_SEVENTY);
    }
    at += 16u * joints;
    /* Joint list (+0x1C, always present; Wrench reads it unconditionally): s32 list_count,
     * list_count s32 class offsets, then per list {s16 n1, s16 n2, u8[n1], u8[n2], u8 0xFF},
     * each 4-aligned. What the two byte lists mean is unknown; ours hold joint indices. */
    uint32_t lists = 1 + sy_rng_below(r, MOBY_JOINT_LISTS);
    put_u32(c + 0x1C, (uint32_t)at);
    put_u32(c + at, lists);
    size_t lat = at + 4 + 4u * lists;
    for (uint32_t l = 0; l < lists; l++) {
        uint32_t n1 = 1 + sy_rng_below(r, 8), n2 = sy_rng_below(r, 9);
        lat = (lat + 3) / 4 * 4;
        put_u32(c + at + 4 + 4 * l, (uint32_t)lat);
        put_u16(c + lat, (uint16_t)n1), put_u16(c + lat + 2, (uint16_t)n2);
        for (uint32_t k = 0; k < n1 + n2; k++)
            c[lat + 4 + k] = (uint8_t)sy_rng_below(r, joints);
        c[lat + 4 + n1 + n2] = 0xFF;
        lat += 4 + n1 + n2 + 1;
    }
    at = (lat + 15) / 16 * 16;
    sy_fill_bulk(c + at, span - at, r); /* animation-like data to the end of the span */
    (void)MOBY_HEADER_BYTES;
    return 0;
}
