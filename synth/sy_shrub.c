/* SPDX-License-Identifier: MIT */
/* Shrub class data in core_data, laid out as docs/formats/shrub.md says: the 0x40-byte header,
 * the packet list, one VIF list per packet (three UNPACKs: header + GIF tags + texture
 * primitives, vertex positions, vertex STs/normals), an optional billboard and the 24 normals,
 * in the writer order of Wrench's shrub writer so that its reader replays the GS packet of every
 * packet into exactly the strips and lists written here. What is left of the span is bulk. */
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

/* VIF codes (shrub.md "Packet VIF list"): UNPACK with FLG=1 (TOPS-relative), USN=0. */
#define SH_UNPACK(vnvl, num, addr)                                                                 \
    ((uint32_t)(vnvl) << 24 | ((uint32_t)(num)&0xFFu) << 16 | 1u << 15 | ((uint32_t)(addr)&0x3FFu))
#define SH_V4_32     0x6Cu
#define SH_V4_16     0x6Du
#define SH_STCYCL_44 0x01000404u
#define SH_STMOD_0   0x05000000u

#define SH_HEADER       0x40u
#define SH_ENTRY        8u
#define SH_NORMALS      24u
#define SH_BILLBOARD    0x40u
#define SH_MIN_VERTICES 6u /* a packet is padded to 6 vertices with copies of its last one */
/* Builder limits per packet (shrub.md "Builder constraints"): VU input and GS packet qwords. */
#define SH_VU_LIMIT 118u
#define SH_GS_LIMIT 168u
#define SH_MAX_RUNS 6u
#define SH_MAX_VERT 48u

/* GS registers of a texture primitive's A+D records, in record order: TEX1_1, CLAMP_1,
 * MIPTBP1_1, TEX0_1; of a billboard's: TEX1_1, TEX0_1, MIPTBP1_1. */
static const uint8_t tex_regs[4] = {0x14, 0x08, 0x34, 0x06};
static const uint8_t bill_regs[3] = {0x14, 0x06, 0x34};
/* PRIM: type 3 (list) or 4 (strip) | IIP | TME | FGE | ABE (bits 3-6). */
#define SH_PRIM_LIST   3u
#define SH_PRIM_STRIP  4u
#define SH_PRIM_SHADED 0x78u
#define SH_GIF_REGS    0x412u /* ST, RGBAQ, XYZF2 */

typedef struct sh_vert {
    int16_t x, y, z, gs;
    int16_t s, t, h;
    uint16_t n;
} sh_vert;

typedef struct sh_run {
    int texture; /* class-local texture index set before this run, -1 = none */
    int list;
    uint32_t first, count;
} sh_run;

/* A starting direction set: the 6 axes, 8 cube corners and 10 of the 12 edge midpoints. Each
 * class jitters and renormalises them, so every class carries its own 24 vectors as retail does. */
static const int8_t base_dirs[SH_NORMALS][3] = {
    {1, 0, 0},   {-1, 0, 0},   {0, 1, 0},  {0, -1, 0},  {0, 0, 1},  {0, 0, -1},
    {1, 1, 1},   {1, 1, -1},   {1, -1, 1}, {1, -1, -1}, {-1, 1, 1}, {-1, 1, -1},
    {-1, -1, 1}, {-1, -1, -1}, {1, 1, 0},  {1, -1, 0},  {-1, 1, 0}, {-1, -1, 0},
    {1, 0, 1},   {1, 0, -1},   {-1, 0, 1}, {-1, 0, -1}, {0, 1, 1},  {0, 1, -1},
};

/* Bytes of one packet's VIF list: 3 words, UNPACK + header qwords, STMOD + UNPACK + positions,
 * STMOD + UNPACK + STs; with 16-byte qwords and 8-byte vertices this is a whole number of qw. */
static size_t packet_bytes(uint32_t tags, uint32_t tex, uint32_t verts)
{
    uint32_t v = verts < SH_MIN_VERTICES ? SH_MIN_VERTICES : verts;
    return 32u + 16u * (1u + tags + 4u * tex) + 16u * (size_t)v;
}

int sy_shrub_class_write(sy_buf *out, size_t span, uint32_t o_class, uint32_t slots, sy_rng *r)
{
    size_t base = out->len;
    if (span < SY_SHRUB_CLASS_MIN_BYTES || sy_buf_reserve(out, span) != 0)
        return -1;
    sy_buf_zero(out, span);
    uint8_t *c = out->data + base;
    static const float scales[4] = {0.125f, 0.25f, 0.5f, 1.0f};
    const float scale = scales[sy_rng_below(r, 4)];
    const int mip5 = sy_rng_below(r, 5) != 0;
    const float mip = mip5 ? 5.0f : 7.5f;
    /* round(-log2(mip) * 16 - 73), precomputed for the two distances (no logarithm at run time) */
    const int16_t lod_k = mip5 ? -110 : -120;
    const int extent = 600 + (int)sy_rng_below(r, 3400); /* half-size of the class, s16 units */
    const int billboard = sy_rng_below(r, 4) == 0;
    uint32_t want = 1 + sy_rng_below(r, 4);
    put_f32(c + 0x10, mip);               /* mip_distance */
    put_u16(c + 0x14, 0);                 /* mode_bits */
    put_f32(c + 0x20, scale);             /* scale */
    put_u16(c + 0x24, (uint16_t)o_class); /* o_class */

    size_t tail = (billboard ? SH_BILLBOARD + 16u : 0u) + 8u * SH_NORMALS + 16u;
    size_t at = (SH_HEADER + SH_ENTRY * want + 15u) / 16u * 16u;
    int32_t lo[3] = {INT16_MAX, INT16_MAX, INT16_MAX}, hi[3] = {INT16_MIN, INT16_MIN, INT16_MIN};
    uint32_t packets = 0;
    for (uint32_t k = 0; k < want; k++) {
        sh_run runs[SH_MAX_RUNS];
        sh_vert v[SH_MAX_VERT];
        uint32_t nruns = 0, nv = 0, ntex = 0, nwant = 1 + sy_rng_below(r, SH_MAX_RUNS);
        int cur_tex = -1;
        for (uint32_t q = 0; q < nwant; q++) {
            int list = sy_rng_below(r, 3) == 0;
            uint32_t cnt = list ? 3u * (1 + sy_rng_below(r, 4)) : 3u + sy_rng_below(r, 10);
            /* A texture primitive opens every packet (as Wrench's builder emits them) and
             * sometimes changes the material between runs; classes without texture slots
             * carry none. */
            int tex = -1;
            if (slots && (q == 0 || (slots > 1 && sy_rng_below(r, 3) == 0)))
                tex = (int)sy_rng_below(r, slots);
            uint32_t t2 = ntex + (tex >= 0), g2 = nruns + 1, v2 = nv + cnt;
            uint32_t vu = 1 + g2 + 2 * (v2 < SH_MIN_VERTICES ? SH_MIN_VERTICES : v2) + 4 * t2;
            uint32_t gs = g2 + 3 * v2 + 5 * t2;
            int fits = at + packet_bytes(g2, t2, v2) + tail <= span;
            if (v2 > SH_MAX_VERT || vu > SH_VU_LIMIT || gs > SH_GS_LIMIT || !fits) {
                if (nruns)
                    break;
                cnt = 3, list = 0; /* the smallest packet: one triangle, padded */
                t2 = ntex + (tex >= 0), v2 = cnt;
                if (at + packet_bytes(1, t2, v2) + tail > span)
                    break;
            }
            runs[nruns] = (sh_run){tex, list, nv, cnt};
            ntex += tex >= 0;
            if (tex >= 0)
                cur_tex = tex;
            /* Vertices about a run centre; a list's triangles and a strip's ribbon both stay
             * inside the class box, which sets the bounding sphere below. */
            int cx = (int)sy_rng_below(r, (uint32_t)extent) - extent / 2;
            int cy = (int)sy_rng_below(r, (uint32_t)extent);
            int cz = (int)sy_rng_below(r, (uint32_t)extent) - extent / 2;
            int spread = extent / 2;
            for (uint32_t i = 0; i < cnt; i++) {
                sh_vert *w = &v[nv + i];
                int p[3] = {cx + (int)sy_rng_below(r, (uint32_t)spread) - spread / 2,
                            cy + (int)sy_rng_below(r, (uint32_t)spread) - spread / 2,
                            cz + (int)sy_rng_below(r, (uint32_t)spread) - spread / 2};
                w->x = (int16_t)p[0], w->y = (int16_t)p[1], w->z = (int16_t)p[2];
                for (int a = 0; a < 3; a++) {
                    lo[a] = p[a] < lo[a] ? p[a] : lo[a];
                    hi[a] = p[a] > hi[a] ? p[a] : hi[a];
                }
                w->s = (int16_t)sy_rng_below(r, 8192); /* 4.12: 0 .. 2 */
                w->t = (int16_t)sy_rng_below(r, 8192);
                w->h = 0x1000;
                w->n = (uint16_t)sy_rng_below(r, SH_NORMALS);
            }
            nv += cnt;
            nruns++;
        }
        (void)cur_tex;
        if (!nruns)
            break;
        /* GS packet order: [texture primitive (5 qw)] tag (1 qw) vertices (3 qw each), per run. */
        uint32_t off = 0;
        uint32_t gs_tag[SH_MAX_RUNS], gs_tex[SH_MAX_RUNS];
        for (uint32_t q = 0; q < nruns; q++) {
            if (runs[q].texture >= 0)
                gs_tex[q] = off, off += 5;
            gs_tag[q] = off, off += 1;
            for (uint32_t i = 0; i < runs[q].count; i++)
                v[runs[q].first + i].gs = (int16_t)off, off += 3;
        }
        uint32_t total = nv;
        while (total < SH_MIN_VERTICES) /* padding: exact copies, GS offset included */
            v[total] = v[total - 1], total++;
        v[total - 4].n |= 0x8000u; /* the strip loop's stop, on the 4th-from-last vertex */

        uint32_t hdr_qw = 1 + nruns + 4 * ntex;
        uint8_t *p = c + at;
        put_u32(p + 0, SH_STCYCL_44);
        put_u32(p + 4, 0); /* NOP */
        put_u32(p + 8, SH_STMOD_0);
        put_u32(p + 12, SH_UNPACK(SH_V4_32, hdr_qw, 0));
        uint8_t *h = p + 16;
        put_u32(h + 0, ntex), put_u32(h + 4, nruns), put_u32(h + 8, total);
        put_u32(h + 12, hdr_qw); /* vertex_offset: VU qw of the first position */
        uint8_t *tex = h + 16 + 16 * nruns;
        for (uint32_t q = 0, t = 0; q < nruns; q++) {
            uint8_t *g = h + 16 + 16 * q;
            uint32_t prim = (runs[q].list ? SH_PRIM_LIST : SH_PRIM_STRIP) | SH_PRIM_SHADED;
            uint64_t tag = (uint64_t)runs[q].count | (uint64_t)(q + 1 == nruns) << 15 | 1ull << 46 |
                           (uint64_t)prim << 47 | 3ull << 60;
            put_u32(g + 0, (uint32_t)tag), put_u32(g + 4, (uint32_t)(tag >> 32));
            put_u32(g + 8, SH_GIF_REGS);
            put_u32(g + 12, gs_tag[q]);
            if (runs[q].texture < 0)
                continue;
            uint8_t *a = tex + 64 * t++;
            for (int i = 0; i < 4; i++)
                a[16 * i + 8] = tex_regs[i];
            put_u32(a + 12, gs_tex[q]);      /* gs_packet_offset after TEX1_1's 12 bytes */
            put_u32(a + 0, (uint16_t)lod_k); /* TEX1_1 data_lo: LOD K of mip_distance */
            put_u32(a + 4, 4);               /* TEX1_1 data_hi: MMIN */
            put_u32(a + 16, (uint32_t)(runs[q].count & 1)); /* CLAMP_1: clamp S or not */
            put_u32(a + 32, (uint32_t)runs[q].texture);     /* MIPTBP1_1: the texture index */
            put_u32(a + 48, (uint32_t)runs[q].texture);     /* TEX0_1 data_lo: the material */
        }
        uint8_t *u1 = h + 16 * hdr_qw;
        put_u32(u1, SH_STMOD_0);
        put_u32(u1 + 4, SH_UNPACK(SH_V4_16, total, hdr_qw));
        uint8_t *u2 = u1 + 8 + 8 * total;
        put_u32(u2, SH_STMOD_0);
        put_u32(u2 + 4, SH_UNPACK(SH_V4_16, total, hdr_qw + total));
        for (uint32_t i = 0; i < total; i++) {
            uint8_t *a = u1 + 8 + 8 * i, *b = u2 + 8 + 8 * i;
            put_u16(a + 0, (uint16_t)v[i].x), put_u16(a + 2, (uint16_t)v[i].y);
            put_u16(a + 4, (uint16_t)v[i].z), put_u16(a + 6, (uint16_t)v[i].gs);
            put_u16(b + 0, (uint16_t)v[i].s), put_u16(b + 2, (uint16_t)v[i].t);
            put_u16(b + 4, (uint16_t)v[i].h), put_u16(b + 6, v[i].n);
        }
        size_t bytes = packet_bytes(nruns, ntex, total);
        put_u32(c + SH_HEADER + SH_ENTRY * k, (uint32_t)at);        /* packet offset */
        put_u32(c + SH_HEADER + SH_ENTRY * k + 4, (uint32_t)bytes); /* packet size */
        at += bytes; /* a whole number of qw: the next packet is 16-aligned */
        packets++;
    }
    put_u16(c + 0x28, (uint16_t)packets); /* packet_count: entries beyond it stay zero */
    if (billboard) {
        /* ShrubBillboard: f32 fade_distance, width, height, z_ofs, then three 16-byte A+D
         * records. fade_distance is a power of two so that the TEX1 LOD K, round(-log2(d)*16 -
         * 73), is exact without a logarithm. */
        static const float fades[3] = {32.0f, 64.0f, 128.0f};
        static const int16_t lodk[3] = {-153, -169, -185};
        uint32_t f = sy_rng_below(r, 3);
        uint8_t *b = c + at;
        put_f32(b + 0x00, fades[f]);
        put_f32(b + 0x04, (float)(hi[0] - lo[0]) * scale / 1024.0f);
        put_f32(b + 0x08, (float)(hi[1] - lo[1]) * scale / 1024.0f);
        put_f32(b + 0x0C, 0.0f);
        for (int i = 0; i < 3; i++)
            b[0x10 + 16 * i + 8] = bill_regs[i];
        put_u32(b + 0x10, (uint16_t)lodk[f]); /* TEX1_1 data_lo: K */
        put_u32(b + 0x14, 4);                 /* TEX1_1 data_hi */
        put_u32(b + 0x20, 1);                 /* TEX0_1 data_lo */
        put_u32(c + 0x1C, (uint32_t)at);      /* billboard_offset */
        at += SH_BILLBOARD;
    }
    at = (at + 15) / 16 * 16;
    put_u32(c + 0x2C, (uint32_t)at); /* normals_offset */
    for (uint32_t n = 0; n < SH_NORMALS; n++) {
        float d[3], len2 = 0;
        for (int a = 0; a < 3; a++) {
            d[a] = (float)base_dirs[n][a] + ((float)sy_rng_below(r, 201) - 100.0f) / 400.0f;
            len2 += d[a] * d[a];
        }
        float inv = 32767.0f / sqrtf(len2);
        for (int a = 0; a < 3; a++)
            put_u16(c + at + 8 * n + 2 * (uint32_t)a, (uint16_t)(int16_t)(d[a] * inv));
    }
    at += 8u * SH_NORMALS;
    /* bounding_sphere (0x00), in class units (s16 x scale / 1024): the centre of the vertices'
     * box and the distance to its farthest corner, a hair larger so it encloses every vertex. */
    if (packets) {
        float rad2 = 0;
        for (int a = 0; a < 3; a++) {
            float half = (float)(hi[a] - lo[a]) * 0.5f * scale / 1024.0f;
            rad2 += half * half;
            put_f32(c + 4 * (uint32_t)a, (float)(lo[a] + hi[a]) * 0.5f * scale / 1024.0f);
        }
        put_f32(c + 0x0C, sqrtf(rad2) * 1.001f + 0.001f);
    }
    if (at > span)
        return -1;
    if (at < span)
        sy_fill_bulk(c + at, span - at, r);
    return 0;
}
