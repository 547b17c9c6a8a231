/* SPDX-License-Identifier: MIT */
/* Tie class data (docs/formats/tie.md): the 0x80-byte header, the 0x50-byte ad-gif records, one
 * packet table per LOD and the packets, written so that the GS-packet replay the format
 * documents (tie.md §5) rebuilds exactly the strips planned here. No reader is consulted: every
 * constant below is restated from tie.md, and every choice the format leaves open is one of the
 * documented generator choices (tie.md §7). */
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

#define TIE_HEADER_BYTES 0x80u
#define TIE_ADGIF_BYTES  0x50u /* five 16-byte A+D records */
#define TIE_TABLE_ALIGN  0x40u /* choice: LOD 0's table at 0x100 when there is one ad-gif */
#define TIE_PACKET_HDR   16u
#define TIE_STRIPS_OFS   0x2Cu /* 4+4 s32 ad-gif offsets, 12-byte unpack header */
#define TIE_STRIP_BYTES  4u
#define TIE_DINKY_BYTES  16u
#define TIE_FAT_BYTES    24u
#define TIE_GS_ADGIF_QW  6u /* GIF tag + 5 A+D registers */
#define TIE_GS_TAG_QW    1u
#define TIE_GS_VERTEX_QW 3u   /* ST, RGBAQ, XYZ */
#define TIE_GS_LAST      255u /* strip tag offsets are u8: keep every GS offset below 256 */
#define TIE_MAX_ADGIFS   4u
#define TIE_MAX_STRIPS   16u
#define TIE_MAX_RECORDS  80u
#define TIE_MIN_RECORDS  4u   /* the VU program wants 4 regular vertices: pad with copies */
#define TIE_MAX_DINKY    125u /* (2 x dinky + 4) fits its u8 */
#define TIE_MIN_PACKET   144u /* 3 qw of header and strips + 4 fat vertices */
#define TIE_RING         16u

/* GS register numbers of the five ad-gif records, in the tie order: TEX0_1, TEX1_1, MIPTBP1_1,
 * CLAMP_1, MIPTBP2_1. */
static const uint8_t tie_ad_regs[5] = {0x06, 0x14, 0x34, 0x08, 0x36};

/* cos(2 pi k / 16) x 1024, rounded (no transcendental is ever called); sin k = cos (k - 4). */
static const int16_t ring_cos[TIE_RING] = {1024,  946,  724,  392,  0, -392, -724, -946,
                                           -1024, -946, -724, -392, 0, 392,  724,  946};

typedef struct tie_rec {
    int16_t x, y, z;
    uint16_t s, t;
    uint16_t gs, gs2; /* GS packet offsets (qw); gs2 = 0: one place only */
} tie_rec;

typedef struct tie_shape {
    int32_t cx, cz, radius, band, height;
    int32_t lo[3], hi[3];
} tie_shape;

static void note_box(tie_shape *sh, const tie_rec *v)
{
    int32_t p[3] = {v->x, v->y, v->z};
    for (int a = 0; a < 3; a++) {
        sh->lo[a] = p[a] < sh->lo[a] ? p[a] : sh->lo[a];
        sh->hi[a] = p[a] > sh->hi[a] ? p[a] : sh->hi[a];
    }
}

static int16_t clamp16(int32_t v)
{
    return (int16_t)(v < -32767 ? -32767 : v > 32767 ? 32767 : v);
}

/* Vertex j of a strip: a band around the class's vertical axis, alternating between the ring at
 * y0 and the ring above it, stepping one angle every second vertex, so the strip's triangles are
 * the band's quads split in two. */
static tie_rec band_vertex(const tie_shape *sh, uint32_t a0, int32_t y0, uint32_t j, int32_t jit)
{
    uint32_t a = (a0 + (j >> 1)) % TIE_RING, ring = j & 1u;
    int32_t r = sh->radius + jit;
    tie_rec v;
    memset(&v, 0, sizeof v);
    v.x = clamp16(sh->cx + r * ring_cos[a] / 1024);
    v.z = clamp16(sh->cz + r * ring_cos[(a + TIE_RING - 4) % TIE_RING] / 1024);
    v.y = clamp16(y0 + (int32_t)ring * sh->band);
    v.s = (uint16_t)(((a0 + (j >> 1)) * 4096u / TIE_RING) & 0x7FFFu); /* 4.12, 0 .. 1 per turn */
    v.t = (uint16_t)(ring * 4096u);
    return v;
}

/* One packet's plan: strips grouped in texture runs, and the vertex records feeding them. */
typedef struct tie_packet_plan {
    uint32_t runs, strips, records, tris, dinky;
    int32_t dest[4], src[4];
    uint8_t strip_verts[TIE_MAX_STRIPS], strip_tag[TIE_MAX_STRIPS], strip_wind[TIE_MAX_STRIPS];
    tie_rec rec[TIE_MAX_RECORDS + TIE_MIN_RECORDS];
    uint32_t vert_ofs, vert_size; /* qw */
} tie_packet_plan;

static size_t plan_bytes(const tie_packet_plan *p)
{
    return 16u * ((size_t)p->vert_ofs + p->vert_size);
}

/* Plans a packet of at most max_bytes bytes and at most want strip vertices. */
static void plan_packet(tie_packet_plan *p, tie_shape *sh, size_t max_bytes, uint32_t want,
                        uint32_t textures, uint32_t first_tex, sy_rng *r)
{
    memset(p, 0, sizeof *p);
    uint32_t strip_cap =
        max_bytes >= 1024 ? TIE_MAX_STRIPS : 1u + (uint32_t)(max_bytes - TIE_MIN_PACKET) / 128u;
    if (strip_cap > TIE_MAX_STRIPS)
        strip_cap = TIE_MAX_STRIPS;
    size_t hdr_qw = (TIE_STRIPS_OFS + TIE_STRIP_BYTES * strip_cap + 15) / 16;
    uint32_t rec_cap = (uint32_t)((max_bytes - 16u * hdr_qw) / TIE_FAT_BYTES);
    if (rec_cap > TIE_MAX_RECORDS)
        rec_cap = TIE_MAX_RECORDS;
    if (want > rec_cap)
        want = rec_cap;
    if (want < 3)
        want = 3;
    uint32_t max_runs = textures < TIE_MAX_ADGIFS ? textures : TIE_MAX_ADGIFS;
    if (max_runs > strip_cap)
        max_runs = strip_cap;
    if (max_runs > want / 3) /* each run needs a strip of 3 records */
        max_runs = want / 3;
    p->runs = 1 + sy_rng_below(r, max_runs);
    uint32_t off = TIE_GS_ADGIF_QW, used = 0; /* the first ad-gif sits at GS offset 0 */
    int32_t y0 = sh->height;
    for (uint32_t run = 0; run < p->runs; run++) {
        uint32_t tex = (first_tex + run) % textures;
        p->src[run] = (int32_t)(TIE_ADGIF_BYTES * tex);
        if (run > 0) { /* the ad-gif that switches to this run's texture */
            p->dest[run - 1] = (int32_t)off;
            off += TIE_GS_ADGIF_QW;
        }
        uint32_t runs_left = p->runs - run - 1;
        uint32_t in_run = 1 + sy_rng_below(r, 3);
        for (uint32_t k = 0; k < in_run && p->strips < strip_cap - runs_left; k++) {
            /* room kept for each later run: an ad-gif and one 3-vertex strip */
            uint32_t reserve = runs_left * (TIE_GS_ADGIF_QW + TIE_GS_TAG_QW + 3 * TIE_GS_VERTEX_QW);
            uint32_t n = 3 + sy_rng_below(r, 10);
            /* Half the strips after the first start on the previous strip's last vertex: that
             * record then also names this strip's first GS place (gs_packet_write_ofs_2). */
            int share = p->strips > 0 && sy_rng_below(r, 2) == 0 && p->rec[p->records - 1].gs2 == 0;
            uint32_t gs_room =
                off + TIE_GS_TAG_QW + reserve < TIE_GS_LAST
                    ? (TIE_GS_LAST - off - TIE_GS_TAG_QW - reserve) / TIE_GS_VERTEX_QW
                    : 0;
            uint32_t rec_room = want > used + 3 * runs_left ? want - used - 3 * runs_left : 0;
            if (n > gs_room)
                n = gs_room;
            if (n > rec_room + (share ? 1u : 0u))
                n = rec_room + (share ? 1u : 0u);
            if (n < 3) {
                if (k > 0)
                    break;
                n = 3; /* every run has a strip: the reserve above keeps room for it */
            }
            uint32_t a0 = sy_rng_below(r, TIE_RING);
            p->strip_tag[p->strips] = (uint8_t)off;
            p->strip_wind[p->strips] = (uint8_t)sy_rng_below(r, 2);
            p->strip_verts[p->strips] = (uint8_t)n;
            off += TIE_GS_TAG_QW;
            for (uint32_t j = 0; j < n; j++, off += TIE_GS_VERTEX_QW) {
                if (j == 0 && share) {
                    p->rec[p->records - 1].gs2 = (uint16_t)off;
                    continue;
                }
                int32_t jit = (int32_t)sy_rng_below(r, 65) - 32;
                tie_rec v = band_vertex(sh, a0, y0, j, jit);
                v.gs = (uint16_t)off;
                note_box(sh, &v);
                p->rec[p->records++] = v;
                used++;
            }
            p->tris += n - 2;
            p->strips++;
            y0 += sh->band / 2;
        }
    }
    /* Small packets are padded to 4 records with copies of the last one (same GS place). */
    while (p->records < TIE_MIN_RECORDS) {
        p->rec[p->records] = p->rec[p->records - 1];
        p->records++;
    }
    /* File order is not GS order: the records are shuffled, then the first ones are dinky. */
    for (uint32_t i = p->records; i > 1; i--) {
        uint32_t j = sy_rng_below(r, i);
        tie_rec t = p->rec[i - 1];
        p->rec[i - 1] = p->rec[j];
        p->rec[j] = t;
    }
    p->dinky = sy_rng_below(r, p->records + 1);
    if (p->dinky > TIE_MAX_DINKY)
        p->dinky = TIE_MAX_DINKY;
    p->vert_ofs = (uint32_t)((TIE_STRIPS_OFS + TIE_STRIP_BYTES * p->strips + 15) / 16);
    size_t vb = TIE_DINKY_BYTES * p->dinky + TIE_FAT_BYTES * (p->records - p->dinky);
    p->vert_size = (uint32_t)((vb + 15) / 16);
}

static void write_packet(uint8_t *b, const tie_packet_plan *p)
{
    for (int k = 0; k < 4; k++) {
        put_u32(b + 4 * k, (uint32_t)p->dest[k]);       /* ad_gif_dest_offsets */
        put_u32(b + 0x10 + 4 * k, (uint32_t)p->src[k]); /* ad_gif_src_offsets */
    }
    uint8_t *u = b + 0x20; /* unpack header */
    u[3] = (uint8_t)p->strips;
    u[8] = (uint8_t)(2 * p->dinky + 4);
    u[9] = (uint8_t)((TIE_FAT_BYTES * (p->records - p->dinky) + 15) / 16); /* fat area, qw */
    for (uint32_t s = 0; s < p->strips; s++) {
        uint8_t *st = b + TIE_STRIPS_OFS + TIE_STRIP_BYTES * s;
        st[0] = p->strip_verts[s];
        st[2] = p->strip_tag[s];
        st[3] = p->strip_wind[s];
    }
    uint8_t *v = b + 16u * p->vert_ofs;
    for (uint32_t i = 0; i < p->records; i++) {
        const tie_rec *q = &p->rec[i];
        if (i < p->dinky) {
            put_u16(v + 0x0, (uint16_t)q->x);
            put_u16(v + 0x2, (uint16_t)q->y);
            put_u16(v + 0x4, (uint16_t)q->z);
            put_u16(v + 0x6, q->gs);
            put_u16(v + 0x8, q->s);
            put_u16(v + 0xA, q->t);
            put_u16(v + 0xC, 4096); /* q = 1.0 in 4.12 */
            put_u16(v + 0xE, q->gs2);
            v += TIE_DINKY_BYTES;
        } else {
            /* +0x00..+0x05: three u16 the format does not explain; ours hold a light-ish
             * value per vertex, never read back. */
            put_u16(v + 0x00, (uint16_t)(0x80 + (q->gs & 0x3F)));
            put_u16(v + 0x06, q->gs);
            put_u16(v + 0x08, (uint16_t)q->x);
            put_u16(v + 0x0A, (uint16_t)q->y);
            put_u16(v + 0x0C, (uint16_t)q->z);
            put_u16(v + 0x10, q->s);
            put_u16(v + 0x12, q->t);
            put_u16(v + 0x14, 4096);
            put_u16(v + 0x16, q->gs2);
            v += TIE_FAT_BYTES;
        }
    }
}

int sy_tie_class_write(sy_buf *out, size_t span, uint32_t o_class, int lod_out_of_order,
                       uint32_t max_textures, uint32_t *texture_count_out, sy_rng *r)
{
    size_t base = out->len;
    if (span < SY_TIE_CLASS_MIN_BYTES || sy_buf_reserve(out, span) != 0)
        return -1;
    sy_buf_zero(out, span);
    uint8_t *c = out->data + base;
    uint32_t cap_tex = max_textures < TIE_MAX_ADGIFS ? max_textures : TIE_MAX_ADGIFS;
    if (cap_tex == 0)
        cap_tex = 1;
    uint32_t texture_count = 1 + sy_rng_below(r, cap_tex);
    *texture_count_out = texture_count;
    float near_d = (float)(8 + (int)sy_rng_below(r, 8)),
          mid_d = near_d + (float)(8 + (int)sy_rng_below(r, 16));
    float far_d = mid_d + (float)(10 + (int)sy_rng_below(r, 30));
    if (lod_out_of_order) { /* the real disc has a few of these: mid before near */
        float t = near_d;
        near_d = mid_d;
        mid_d = t;
    }
    static const float scales[4] = {0.25f, 0.5f, 1.0f, 2.0f};
    float scale = scales[sy_rng_below(r, 4)];
    tie_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.cx = (int32_t)sy_rng_below(r, 4001) - 2000;
    sh.cz = (int32_t)sy_rng_below(r, 4001) - 2000;
    sh.radius = 1500 + (int32_t)sy_rng_below(r, 8000);
    sh.band = 800 + (int32_t)sy_rng_below(r, 3000);
    sh.height = (int32_t)sy_rng_below(r, 2001) - 1000;
    for (int a = 0; a < 3; a++)
        sh.lo[a] = INT32_MAX, sh.hi[a] = INT32_MIN;

    put_f32(c + 0x10, near_d);
    put_f32(c + 0x14, mid_d);
    put_f32(c + 0x18, far_d);
    put_u32(c + 0x1C, TIE_HEADER_BYTES); /* ad_gif_ofs: right after the header */
    c[0x0F] = (uint8_t)texture_count;
    put_f32(c + 0x40, scale);
    put_u16(c + 0x44, (uint16_t)o_class); /* o_class == the table's class number */
    put_u16(c + 0x46, 0);                 /* t_class */
    put_f32(c + 0x48, far_d * 2.0f);      /* mip_dist */
    put_u32(c + 0x4C, 0x80808080u);       /* glow_rgba */
    for (uint32_t t = 0; t < texture_count; t++) {
        uint8_t *a = c + TIE_HEADER_BYTES + TIE_ADGIF_BYTES * t;
        for (int k = 0; k < 5; k++)
            a[16 * k + 8] = tie_ad_regs[k];
        put_u32(a, t); /* TEX0 data_lo: the class-local texture (GS addresses are runtime) */
    }
    size_t at = TIE_HEADER_BYTES + TIE_ADGIF_BYTES * texture_count;
    at = (at + TIE_TABLE_ALIGN - 1) / TIE_TABLE_ALIGN * TIE_TABLE_ALIGN;
    /* Geometry budget: a share of the span, capped so a class stays a prop-sized object; the
     * rest of the span is the filler every class span ends with. */
    size_t cap = 3072u + 512u * sy_rng_below(r, 24);
    size_t room = span - at;
    size_t budget = room < cap ? room : cap;
    uint32_t pc0 = 1 + sy_rng_below(r, 6);
    uint32_t pcs[3] = {pc0, pc0 > 1 ? pc0 / 2 : 1, 1};
    static const uint32_t share_pct[3] = {60, 28, 12};
    static const uint32_t want_lo[3] = {16, 8, 4}, want_span[3] = {48, 24, 12};
    for (int l = 0; l < 3; l++) {
        /* what LODs after this one need at the least */
        size_t later = (size_t)(2 - l) * (TIE_PACKET_HDR + TIE_MIN_PACKET);
        size_t left = span - at;
        if (left < later + TIE_PACKET_HDR + TIE_MIN_PACKET)
            return -1;
        size_t lod_budget = budget * share_pct[l] / 100;
        if (lod_budget > left - later)
            lod_budget = left - later;
        uint32_t pc = pcs[l];
        while (pc > 1 && lod_budget < (size_t)pc * (TIE_PACKET_HDR + TIE_MIN_PACKET))
            pc--;
        if (lod_budget < TIE_PACKET_HDR + TIE_MIN_PACKET)
            lod_budget = TIE_PACKET_HDR + TIE_MIN_PACKET;
        size_t table = at;
        put_u32(c + 4 * l, (uint32_t)table); /* packets[l] */
        c[0x0C + l] = (uint8_t)pc;           /* packet_count[l] */
        size_t body = (table + TIE_PACKET_HDR * pc + 15) / 16 * 16;
        size_t lod_end = table + lod_budget;
        uint32_t recs = 0, tris = 0, strips = 0;
        for (uint32_t k = 0; k < pc; k++) {
            size_t per = (lod_end > body ? lod_end - body : 0) / (pc - k);
            per = per / 16 * 16;
            if (per < TIE_MIN_PACKET)
                per = TIE_MIN_PACKET;
            if (body + per > span)
                return -1;
            tie_packet_plan p;
            uint32_t want = want_lo[l] + sy_rng_below(r, want_span[l]);
            plan_packet(&p, &sh, per, want, texture_count, k, r);
            if (plan_bytes(&p) > per)
                return -1; /* the plan must honour its budget */
            uint8_t *h = c + table + TIE_PACKET_HDR * k;
            put_u32(h + 0, (uint32_t)(body - table)); /* data, relative to packets[l] */
            h[4] = (uint8_t)p.runs;                   /* shader_count: ad-gifs in the packet */
            h[8] = (uint8_t)p.vert_ofs;
            h[9] = (uint8_t)p.vert_size;
            h[10] = (uint8_t)p.records; /* rgba_count: one colour per vertex record */
            write_packet(c + body, &p);
            recs += p.records, tris += p.tris, strips += p.strips;
            body += plan_bytes(&p);
        }
        put_u16(c + 0x60 + 8 * l, (uint16_t)recs); /* lods[l] {vert, tri, strip, pad} */
        put_u16(c + 0x62 + 8 * l, (uint16_t)tris);
        put_u16(c + 0x64 + 8 * l, (uint16_t)strips);
        at = body;
    }
    /* bsphere: centre of the vertices' box and the distance to its farthest corner, in class
     * units (s16 x scale / 1024), so it encloses every vertex of every LOD. */
    float rad2 = 0;
    for (int a = 0; a < 3; a++) {
        float ctr = (float)(sh.lo[a] + sh.hi[a]) * 0.5f * scale / 1024.0f;
        float half = (float)(sh.hi[a] - sh.lo[a]) * 0.5f * scale / 1024.0f;
        rad2 += half * half;
        put_f32(c + 0x50 + 4 * a, ctr);
    }
    put_f32(c + 0x5C, sqrtf(rad2) * 1.001f + 0.001f);
    if (at > span)
        return -1;
    if (at < span)
        sy_fill_bulk(c + at, span - at, r);
    return 0;
}
