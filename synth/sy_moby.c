/* SPDX-License-Identifier: MIT */
/* Moby class geometry in core_data, written from docs/formats/moby.md: the 0x48-byte header, the
 * packet table, the bind pose and joint list, then the high- and low-LOD packets (VIF list with
 * ST, index and texture UNPACKs; vertex table with matrix transfers, duplicates, 2-way, 3-way and
 * main vertices and the epilogue that carries the last seven vertex IDs), and the GIF-usage
 * table. Each packet is one latitude band of an ellipsoid around the class centre, so the mesh is
 * a closed shell that a renderer can show. Integer arithmetic only (plus exact float stores). */
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

/* VIF UNPACK code (formats.md §5.3) with FLG=1 (TOPS-relative) and USN=0, as moby.md says. */
static uint32_t vif_unpack(uint32_t cmd, uint32_t num, uint32_t addr)
{
    return cmd << 24 | (num & 0xFFu) << 16 | 1u << 15 | (addr & 0x3FFu);
}
#define CMD_V2_16_MASKED 0x75u
#define CMD_V4_8         0x6Eu
#define CMD_V4_32        0x6Cu
#define VU_ST_ADDR       0xC2u
#define VU_INDEX_ADDR    0x12Du

#define TABLE_OFS       0x50u /* header 0x48, no sequences, table 16-aligned */
#define MAX_JOINTS      31u
#define JOINT_LISTS     3u
#define JOINT_LIST_MAX  (4u + 4u * JOINT_LISTS + JOINT_LISTS * (4u + 16u + 1u + 3u) + 15u)
#define TRANS_SEVENTY   0x70u
#define VU0_SINK        0xF4u /* "don't store" address of the skinning stores */
#define VU0_BLEND_BASE  0x40u /* our blended matrices: 0x40.., apart from the joint slots */
#define MAX_TVC         96u   /* VU buffer 0xC2 qw at 2 qw per vertex */
#define MAX_INDEX_BYTES 216u  /* index data between VU 0x12D and 0x164 */
#define MAX_TEX_PER_PKT 3u
#define MIN_COLS        3u

/* Integer sine in 1/16384 units of a whole-degree angle (Bhaskara I; exact integers, so every
 * compiler writes the same bytes). */
static int32_t isin(int32_t deg)
{
    deg %= 360;
    if (deg < 0)
        deg += 360;
    int32_t s = 1, d = deg;
    if (d >= 180)
        d -= 180, s = -1;
    int64_t p = (int64_t)d * (180 - d);
    return (int32_t)(s * (int64_t)16384 * 4 * p / (40500 - p));
}
static int32_t icos(int32_t deg)
{
    return isin(deg + 90);
}

uint32_t sy_moby_vif_qw_level_target(int scale, int level)
{
    /* The notes' total of vif_list_size over every packet record (1,270,802 qw over 43,467
     * records) apportioned over the levels by their packet counts: the cumulative share, so the
     * per-level targets sum to the total exactly. The small corpus keeps the same ratio. */
    uint64_t total_pk = 0, before = 0, mine = 0;
    for (int i = 0; i < SY_LEVEL_COUNT; i++) {
        const sy_level_plan *p = sy_plan(scale, i);
        if (!p)
            return 0;
        if (i < level)
            before += p->moby_packets;
        if (i == level)
            mine = p->moby_packets;
        total_pk += p->moby_packets;
    }
    const uint64_t num = 1270802u, den = 43467u;
    uint64_t total_qw = scale != SY_SCALE_RETAIL ? total_pk * num / den : num;
    if (total_pk == 0)
        return 0;
    return (uint32_t)((before + mine) * total_qw / total_pk - before * total_qw / total_pk);
}

size_t sy_moby_class_min_bytes(uint32_t packets)
{
    /* table, shadow qw, the largest bind pose and joint list, the smallest packets (3 columns:
     * about 9 qw of VIF list and 14 qw of vertex table) and the GIF-usage table */
    return TABLE_OFS + 16u * ((size_t)packets + 1) + (64u + 16u) * MAX_JOINTS + JOINT_LIST_MAX +
           16u * 40u * packets + 16u * packets + 64u;
}

/* One packet's shape before it is written. */
typedef struct pkt_plan {
    uint32_t cols, ring;    /* band columns; ring = closed by two duplicates */
    uint32_t tex;           /* texture primitives */
    uint32_t pre;           /* preloop matrix transfers */
    uint32_t n2, n3, nm, d; /* 2-way, 3-way, main, duplicates */
    uint32_t strips;        /* strips the band is cut into */
    uint32_t pad_qw;        /* NOP quadwords added to the VIF list */
} pkt_plan;

static uint32_t pkt_n(const pkt_plan *k)
{
    return 2 * k->cols;
}
static uint32_t index_bytes(const pkt_plan *k)
{
    /* strips over the band's 2*cols + 2*ring positions, consecutive strips sharing two; the two
     * strip-opening indices of a texture switch are a 0 byte and one more; 1, 1, 1, 0 end */
    uint32_t pos = 2 * k->cols + 2 * k->ring;
    return pos + 2 * (k->strips - 1) + 4;
}
static uint32_t index_num(const pkt_plan *k) /* index UNPACK NUM: header + bytes, in words */
{
    return 1 + (index_bytes(k) + 3) / 4;
}
static uint32_t vif_bytes_unpadded(const pkt_plan *k)
{
    uint32_t tvc = pkt_n(k) + k->d;
    uint32_t b = 4 + 4 * tvc + 4 + 4 * index_num(k);
    if (k->tex) {
        while (b % 16 != 0xC)
            b += 4;
        b += 4 + 64 * k->tex;
    }
    return (b + 15) / 16 * 16;
}
static uint32_t vif_qw(const pkt_plan *k)
{
    return vif_bytes_unpadded(k) / 16 + k->pad_qw;
}
static uint32_t vt_offset(const pkt_plan *k) /* vertex_table_offset, bytes from the header */
{
    uint32_t a = 16 + 2 * k->pre;
    a = (a + 7) / 8 * 8;
    a += 2 * k->d;
    return (a + 15) / 16 * 16;
}
static uint32_t epi_p(const pkt_plan *k) /* padding vertices before the final epilogue one */
{
    uint32_t p = 0;
    while ((pkt_n(k) + p) % 4 != 2)
        p++;
    return p;
}
static uint32_t vt_qw(const pkt_plan *k)
{
    return vt_offset(k) / 16 + pkt_n(k) + epi_p(k) + 1;
}

typedef struct cls_shape {
    int32_t cx, cy, cz; /* centre, s16 units */
    int32_t rx, ry, rz; /* ellipsoid radii, s16 units */
    uint32_t joints;    /* joint_count */
    uint32_t slots;     /* texture slots of the class entry (0 = none) */
    uint32_t next_id;   /* vertex ID allocator of the LOD list */
} cls_shape;

/* Writes one packet at c + at (VIF list, then its vertex table); fills the table entry e.
 * band/bands: which latitude band of the shell. Returns the bytes written. */
static size_t write_packet(uint8_t *c, size_t at, uint8_t *e, const pkt_plan *k, cls_shape *s,
                           uint32_t band, uint32_t bands, int first_of_lod, sy_rng *r, uint8_t *gif,
                           uint32_t *gif_count)
{
    uint32_t n = pkt_n(k), tvc = n + k->d;
    uint32_t vq = vif_qw(k), tq = vt_qw(k);
    uint8_t *v = c + at;
    size_t vt_at = at + 16u * vq;
    /* Packet table entry. */
    put_u32(e + 0x0, (uint32_t)at);
    put_u16(e + 0x4, (uint16_t)vq);
    put_u16(e + 0x6, (uint16_t)(4 * k->tex));
    put_u32(e + 0x8, (uint32_t)vt_at);
    e[0xC] = (uint8_t)tq;
    e[0xD] = (uint8_t)((15 + 6 * tvc) / 16);
    e[0xE] = (uint8_t)((3 + tvc) / 4);
    e[0xF] = (uint8_t)tvc;
    /* Band geometry: latitudes lat0 (even VU slots) and lat1 (odd), longitudes over the ring or
     * an arc; the two duplicates (ring) repeat slots 0 and 1 to close it. */
    int32_t lat0 = -80 + (int32_t)(160 * band / bands),
            lat1 = -80 + (int32_t)(160 * (band + 1) / bands);
    if (lat1 == 90 || lat1 == lat0)
        lat1 = lat0 + 1;
    int32_t lon0 = (int32_t)sy_rng_below(r, 360);
    int32_t arc = k->ring ? 360 : 90 + (int32_t)sy_rng_below(r, 180);
    uint32_t span_cols = k->ring ? k->cols : k->cols - 1;
    /* ST UNPACK: tvc (s, t) in 4.12, slot order (table vertices, then duplicates). */
    put_u32(v, vif_unpack(CMD_V2_16_MASKED, tvc, VU_ST_ADDR));
    for (uint32_t i = 0; i < tvc; i++) {
        uint32_t slot = i < n ? i : i - n; /* duplicate i-n repeats slot i-n */
        uint32_t col = slot / 2 + (i < n ? 0 : k->cols);
        put_u16(v + 4 + 4 * i, (uint16_t)(col * 4096 / (k->cols + 1)));
        put_u16(v + 6 + 4 * i,
                (uint16_t)((slot & 1) ? 4096 * (band + 1) / bands : 4096 * band / bands));
    }
    /* Index UNPACK: {u8 0, u8 texture_unpack_offset_qw, s8 secret[0], u8 0}, index bytes. */
    uint8_t *ix = v + 4 + 4 * tvc;
    uint32_t inum = index_num(k);
    put_u32(ix, vif_unpack(CMD_V4_8, inum, VU_INDEX_ADDR));
    uint8_t *hd = ix + 4, *ib = ix + 8;
    hd[0] = 0, hd[1] = (uint8_t)(k->tex ? inum : 0), hd[3] = 0;
    uint8_t secret[1 + MAX_TEX_PER_PKT];
    memset(secret, 0, sizeof secret);
    uint32_t pos =
        2 * k->cols + 2 * k->ring; /* strip positions: slot sequence 0,1,2,..,n-1,(n,n+1) */
    uint32_t nb = 0, sw = 0;
    for (uint32_t st = 0; st < k->strips; st++) {
        uint32_t a = st * (pos - 2) / k->strips, b = (st + 1) * (pos - 2) / k->strips + 2;
        /* texture switches open the first strips (one each) */
        int switching = st < k->tex;
        for (uint32_t q = a; q < b; q++) {
            uint32_t one_based = q + 1; /* positions 0..n-1 are table slots, n, n+1 duplicates */
            if (q == a && switching) {
                ib[nb++] = 0;
                secret[sw++] = (uint8_t)one_based; /* the reader adds bit 7's inverse: no kick */
            } else if (q < a + 2) {
                ib[nb++] = (uint8_t)(one_based | 0x80u); /* strip opener: no kick */
            } else {
                ib[nb++] = (uint8_t)one_based;
            }
        }
    }
    ib[nb++] = 1, ib[nb++] = 1, ib[nb++] = 1, ib[nb++] = 0; /* microprogram end */
    secret[sw] = 0;                                         /* the end's secret index */
    hd[2] = secret[0];
    uint32_t b = 4 + 4 * tvc + 4 + 4 * inum;
    /* Quota NOPs sit before the texture UNPACK so its data still ends the list. */
    b += 16u * k->pad_qw;
    if (k->tex) {
        while (b % 16 != 0xC)
            b += 4; /* zero words: VIF NOPs */
        put_u32(v + b, vif_unpack(CMD_V4_32, 4 * k->tex, VU_INDEX_ADDR + inum));
        uint32_t code_at = (uint32_t)at + b;
        uint8_t *tp = v + b + 4;
        uint8_t *g = gif + 16u * *gif_count;
        memset(g, 0xFF, 12);
        for (uint32_t t = 0; t < k->tex; t++) {
            uint8_t *pr = tp + 64 * t;
            uint32_t tex = sy_rng_below(r, s->slots);
            /* TEX1_1, CLAMP_1, TEX0_1 (data_lo = class-local texture), MIPTBP1_1 */
            put_u32(pr + 0x00, 0xFF92u), put_u32(pr + 0x04, 4), pr[0x08] = 0x14;
            put_u16(pr + 0x0A, 0x41A0u);
            pr[0x18] = 0x08;
            put_u32(pr + 0x20, tex), pr[0x28] = 0x06;
            pr[0x38] = 0x34;
            g[t] = (uint8_t)tex;
        }
        for (uint32_t q = 1; q <= k->tex; q++)
            tp[16 * (q - 1) + 0xC] = secret[q]; /* secret index q: payload qw q-1, +0xC */
        put_u32(g + 12, code_at - 0xC);
        (*gif_count)++;
        b += 4 + 64 * k->tex;
    }
    (void)first_of_lod;
    /* Vertex table header. */
    uint8_t *vt = c + vt_at;
    uint32_t vto = vt_offset(k);
    put_u16(vt + 0x0, (uint16_t)k->pre);
    put_u16(vt + 0x2, (uint16_t)k->n2);
    put_u16(vt + 0x4, (uint16_t)k->n3);
    put_u16(vt + 0x6, (uint16_t)k->nm);
    put_u16(vt + 0x8, (uint16_t)k->d);
    put_u16(vt + 0xA, (uint16_t)tvc);
    put_u16(vt + 0xC, (uint16_t)vto);
    put_u16(vt + 0xE, (uint16_t)sy_rng_below(r, 0x10000)); /* glow_rgba: copied through */
    /* Preloop matrix transfers: distinct joints into VU0 slots 0, 4, 8, .. */
    uint8_t pj[8];
    for (uint32_t j = 0; j < k->pre; j++) {
        pj[j] = (uint8_t)((j * 7 + sy_rng_below(r, 3)) % s->joints);
        vt[0x10 + 2 * j] = pj[j];
        vt[0x11 + 2 * j] = (uint8_t)(4 * j);
    }
    /* IDs: slots of the 512-entry buffer, fresh for each vertex of the LOD list. */
    uint16_t ids[2 * 48];
    for (uint32_t i = 0; i < n; i++)
        ids[i] = (uint16_t)((s->next_id + i) & 0x1FF);
    s->next_id += n;
    uint32_t dup_at = (16 + 2 * k->pre + 7) / 8 * 8;
    for (uint32_t i = 0; i < k->d; i++)
        put_u16(vt + dup_at + 2 * i, (uint16_t)(ids[i] << 7)); /* duplicates of slots 0, 1 */
    /* Vertices: 2-way, 3-way, then main; the ID of vertex i is stored in vertex i+7. */
    uint32_t blends = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *q = vt + vto + 16 * i;
        uint16_t low = i >= 7 ? ids[i - 7] : 0;
        if (i < k->n2) {
            uint32_t a = sy_rng_below(r, k->pre),
                     bb = (a + 1 + sy_rng_below(r, k->pre - 1)) % k->pre;
            uint32_t w = 1 + sy_rng_below(r, 254);
            q[2] = (uint8_t)(4 * a), q[3] = (uint8_t)(4 * bb);
            q[4] = (uint8_t)w, q[5] = (uint8_t)(255 - w);
            q[6] = VU0_SINK;
            q[7] = (uint8_t)(VU0_BLEND_BASE + 4 * (blends++ % 16));
        } else if (i < k->n2 + k->n3) {
            uint32_t a = sy_rng_below(r, k->pre), bb = (a + 1) % k->pre, cc = (a + 2) % k->pre;
            uint32_t w1 = 1 + sy_rng_below(r, 120), w2 = 1 + sy_rng_below(r, 120);
            low |= (uint16_t)((4 * cc / 2) << 9); /* load_addr_3 / 2 */
            q[2] = (uint8_t)(4 * a), q[3] = (uint8_t)(4 * bb);
            q[4] = (uint8_t)w1, q[5] = (uint8_t)w2, q[6] = (uint8_t)(255 - w1 - w2);
            q[7] = (uint8_t)(VU0_BLEND_BASE + 4 * (blends++ % 16));
        } else {
            /* a joint slot, or a matrix blended earlier in this packet */
            uint32_t from = blends && sy_rng_below(r, 2)
                                ? VU0_BLEND_BASE + 4 * sy_rng_below(r, blends < 16 ? blends : 16)
                                : 4 * sy_rng_below(r, k->pre);
            low |=
                (uint16_t)(sy_rng_below(r, s->joints) << 9); /* transferred joint (to the sink) */
            q[2] = (uint8_t)from;
            q[3] = VU0_SINK;
        }
        put_u16(q, low);
        int32_t slot_lat = (i & 1) ? lat1 : lat0;
        int32_t lon = lon0 + (int32_t)((int64_t)arc * (i / 2) / (int32_t)span_cols);
        int32_t cl = icos(slot_lat);
        int32_t x = s->cx + (int32_t)((int64_t)s->rx * cl / 16384 * isin(lon) / 16384);
        int32_t y = s->cy + (int32_t)((int64_t)s->ry * cl / 16384 * icos(lon) / 16384);
        int32_t z = s->cz + (int32_t)((int64_t)s->rz * isin(slot_lat) / 16384);
        q[8] = (uint8_t)(((lon % 360 + 360) % 360) * 256 / 360); /* normal azimuth */
        q[9] = (uint8_t)((slot_lat * 256 / 360) & 0xFF);         /* normal elevation */
        put_u16(q + 10, (uint16_t)(int16_t)x);
        put_u16(q + 12, (uint16_t)(int16_t)y);
        put_u16(q + 14, (uint16_t)(int16_t)z);
    }
    /* Epilogue: E = IDs of the last seven vertices (zeros before the first); p padding vertices
     * carry E[0..p-1], the final one E[p] in its low halfword and E[p+1..6] at +0x4. */
    uint16_t E[7];
    for (int j = 0; j < 7; j++) {
        int32_t src = (int32_t)n - 7 + j;
        E[j] = src >= 0 ? ids[src] : 0;
    }
    uint32_t p = epi_p(k);
    uint8_t *ep = vt + vto + 16 * n;
    for (uint32_t j = 0; j < p; j++)
        put_u16(ep + 16 * j, E[j]);
    uint8_t *fin = ep + 16 * p;
    put_u16(fin, E[p]);
    for (uint32_t j = p + 1; j < 7; j++)
        put_u16(fin + 4 + 2 * (j - p - 1), E[j]);
    return 16u * (vq + tq);
}

/* Chooses a packet's shape for a target VIF-list size (qw, before quota padding). */
static void plan_packet(pkt_plan *k, uint32_t target_qw, const cls_shape *s, int first_of_lod,
                        sy_rng *r)
{
    memset(k, 0, sizeof *k);
    k->ring = sy_rng_below(r, 3) != 0;
    k->d = k->ring ? 2 : 0;
    if (s->slots)
        k->tex = first_of_lod ? 1 + sy_rng_below(r, 2) : sy_rng_below(r, 3);
    k->strips = 1 + sy_rng_below(r, 3);
    if (k->strips < k->tex)
        k->strips = k->tex;
    k->pre = 1 + sy_rng_below(r, s->joints < 4 ? s->joints : 4);
    /* the largest column count whose list fits the target and the VU limits */
    k->cols = MIN_COLS;
    for (uint32_t cols = MIN_COLS + 1; cols <= 47; cols++) {
        pkt_plan t = *k;
        t.cols = cols;
        if (2 * cols + t.d > MAX_TVC || index_bytes(&t) > MAX_INDEX_BYTES || vif_qw(&t) > target_qw)
            break;
        k->cols = cols;
    }
    uint32_t n = pkt_n(k);
    if (k->pre >= 2)
        k->n2 = sy_rng_below(r, n / 3 + 1);
    if (k->pre >= 3)
        k->n3 = sy_rng_below(r, (n - k->n2) / 3 + 1);
    k->nm = n - k->n2 - k->n3;
}

int sy_moby_class_write(sy_buf *out, size_t span, const sy_moby_spec *sp, sy_rng *r,
                        uint32_t *vif_qw_written)
{
    size_t base = out->len;
    uint32_t packets = sp->packets;
    *vif_qw_written = 0;
    if (span < sy_moby_class_min_bytes(packets) || sy_buf_reserve(out, span) != 0 || packets == 0 ||
        packets > 255 || sp->zero_zero > 1)
        return -1;
    sy_buf_zero(out, span);
    uint8_t *c = out->data + base;
    cls_shape s;
    memset(&s, 0, sizeof s);
    s.joints = 4 + sy_rng_below(r, MAX_JOINTS - 3);
    s.slots = sp->texture_slots;
    s.rx = 2000 + (int32_t)sy_rng_below(r, 9000);
    s.ry = 2000 + (int32_t)sy_rng_below(r, 9000);
    s.rz = 2000 + (int32_t)sy_rng_below(r, 12000);
    s.cx = (int32_t)sy_rng_below(r, 4001) - 2000;
    s.cy = (int32_t)sy_rng_below(r, 4001) - 2000;
    s.cz = (int32_t)s.rz + (int32_t)sy_rng_below(r, 2000) - 1000;
    uint32_t high = (packets + 1) / 2, low = packets - high;
    const float scale = 0.25f;
    /* Header. */
    put_u32(c + 0x00, TABLE_OFS);
    c[0x04] = (uint8_t)high, c[0x05] = (uint8_t)low;
    c[0x06] = 0, c[0x07] = (uint8_t)(high + low); /* metal_count, metal_begin = high + low */
    c[0x08] = (uint8_t)s.joints;
    c[0x0E] = (uint8_t)(1 + sy_rng_below(r, 8)); /* lod_trans */
    c[0x0F] = 1;                                 /* shadow: one qw just before the skeleton */
    put_f32(c + 0x24, scale);
    c[0x2D] = (uint8_t)(32 + sy_rng_below(r, 64)); /* mip_dist */
    {
        /* bounding sphere in class units (s16 x scale / 1024): the centre and the largest radius,
         * plus 1% and the integer-sine slack */
        int32_t rmax = s.rx > s.ry ? s.rx : s.ry;
        rmax = rmax > s.rz ? rmax : s.rz;
        put_f32(c + 0x30, (float)s.cx * scale / 1024.0f);
        put_f32(c + 0x34, (float)s.cy * scale / 1024.0f);
        put_f32(c + 0x38, (float)s.cz * scale / 1024.0f);
        put_f32(c + 0x3C, (float)(rmax + rmax / 100 + 16) * scale / 1024.0f);
    }
    put_u32(c + 0x40, 0x80808080u);
    put_u16(c + 0x44, (uint16_t)(sp->o_class & 0x7FFF)); /* mode_bits (carries the class) */
    /* The qw after the table is the shadow data (Wrench's order: table, collision (none),
     * shadow, skeleton). Its first word is 0, which is where the notes' record run stops; its
     * third word is either an offset (ordinary) or 0 with counts around it (zero/zero). */
    size_t at = TABLE_OFS + 16u * packets;
    uint8_t *sh = c + at;
    if (sp->zero_zero) {
        put_u16(sh + 0x4, (uint16_t)(1 + sy_rng_below(r, 6)));
        sh[0xF] = (uint8_t)(1 + sy_rng_below(r, 12));
    }
    at += 16;
    /* Skeleton, common_trans, joint list (as before this file: identity rotations, offsets). */
    uint8_t parent[MAX_JOINTS];
    float jt[MAX_JOINTS][3];
    put_u32(c + 0x14, (uint32_t)at);
    for (uint32_t j = 0; j < s.joints; j++) {
        uint8_t *mtx = c + at + 64u * j;
        parent[j] = (uint8_t)(j == 0 ? 0 : sy_rng_below(r, j));
        for (int d = 0; d < 3; d++)
            jt[j][d] = (float)((int)sy_rng_below(r, 64) - 32) * 64.0f;
        for (int d = 0; d < 4; d++)
            put_f32(mtx + 20 * d, 1.0f);
        put_f32(mtx + 48, jt[j][0]), put_f32(mtx + 52, jt[j][1]), put_f32(mtx + 56, jt[j][2]);
    }
    at += 64u * s.joints;
    put_u32(c + 0x18, (uint32_t)at);
    for (uint32_t j = 0; j < s.joints; j++) {
        uint8_t *t = c + at + 16u * j;
        for (int d = 0; d < 3; d++)
            put_f32(t + 4 * d, j == 0 ? jt[j][d] : jt[j][d] - jt[parent[j]][d]);
        put_u16(t + 12, (uint16_t)(parent[j] * 0x40u));
        put_u16(t + 14, TRANS_SEVENTY);
    }
    at += 16u * s.joints;
    uint32_t lists = 1 + sy_rng_below(r, JOINT_LISTS);
    put_u32(c + 0x1C, (uint32_t)at);
    put_u32(c + at, lists);
    size_t lat = at + 4 + 4u * lists;
    for (uint32_t l = 0; l < lists; l++) {
        uint32_t n1 = 1 + sy_rng_below(r, 8), n2 = sy_rng_below(r, 9);
        lat = (lat + 3) / 4 * 4;
        put_u32(c + at + 4 + 4 * l, (uint32_t)lat);
        put_u16(c + lat, (uint16_t)n1), put_u16(c + lat + 2, (uint16_t)n2);
        for (uint32_t k = 0; k < n1 + n2; k++)
            c[lat + 4 + k] = (uint8_t)sy_rng_below(r, s.joints);
        c[lat + 4 + n1 + n2] = 0xFF;
        lat += 4 + n1 + n2 + 1;
    }
    at = (lat + 15) / 16 * 16;
    /* Packets: plan every shape first, so the VIF-list quota can be met exactly. */
    pkt_plan pk[255];
    uint32_t quota = sp->vif_qw_quota;
    size_t room = span > at + 16u * (packets + 1) + 64 ? span - at - 16u * (packets + 1) - 64 : 0;
    uint32_t per = quota / packets;
    uint32_t natural = 0;
    size_t bytes = 0;
    for (uint32_t i = 0; i < packets; i++) {
        int first = i == 0 || i == high;
        plan_packet(&pk[i], per > 2 ? per - 1 - sy_rng_below(r, 2) : 1, &s, first, r);
        natural += vif_qw(&pk[i]);
        bytes += 16u * (vif_qw(&pk[i]) + vt_qw(&pk[i]));
    }
    while (bytes > room) { /* a span too small for the plan: shrink the largest packets */
        uint32_t big = 0;
        for (uint32_t i = 1; i < packets; i++)
            if (pk[i].cols > pk[big].cols)
                big = i;
        if (pk[big].cols <= MIN_COLS)
            return -1;
        bytes -= 16u * (vif_qw(&pk[big]) + vt_qw(&pk[big]));
        natural -= vif_qw(&pk[big]);
        pk[big].cols--;
        uint32_t n = pkt_n(&pk[big]);
        pk[big].n2 = pk[big].n2 < n / 3 ? pk[big].n2 : n / 3;
        pk[big].n3 = pk[big].n3 < (n - pk[big].n2) / 3 ? pk[big].n3 : (n - pk[big].n2) / 3;
        pk[big].nm = n - pk[big].n2 - pk[big].n3;
        bytes += 16u * (vif_qw(&pk[big]) + vt_qw(&pk[big]));
        natural += vif_qw(&pk[big]);
    }
    /* NOP quadwords to meet the quota, spread over the packets, as far as the span allows. */
    if (natural < quota) {
        uint32_t pad = quota - natural;
        size_t fit = (room - bytes) / 16;
        if (pad > fit)
            pad = (uint32_t)fit;
        for (uint32_t i = 0; i < packets; i++)
            pk[i].pad_qw = pad / packets + (i < pad % packets ? 1 : 0);
        natural += pad;
    }
    uint8_t gif[16u * 255];
    uint32_t gif_count = 0;
    s.next_id = 0;
    for (uint32_t i = 0; i < packets; i++) {
        if (i == high)
            s.next_id = 0; /* each LOD list starts its own ID buffer */
        uint32_t lod_n = i < high ? high : low, band = i < high ? i : i - high;
        at += write_packet(c, at, c + TABLE_OFS + 16u * i, &pk[i], &s, band, lod_n,
                           i == 0 || i == high, r, gif, &gif_count);
    }
    /* The ordinary shadow qw: a non-zero third word (the skeleton offset that follows it). */
    if (!sp->zero_zero)
        put_u32(sh + 0x8, (uint32_t)(TABLE_OFS + 16u * (packets + 1)));
    /* GIF-usage table: one entry per packet with a texture UNPACK, bit 31 on the last. */
    if (gif_count) {
        put_u32(c + 0x20, (uint32_t)at);
        uint8_t *last = gif + 16u * (gif_count - 1) + 12;
        put_u32(last, (last[0] | (uint32_t)last[1] << 8 | (uint32_t)last[2] << 16 |
                       (uint32_t)last[3] << 24) |
                          0x80000000u);
        memcpy(c + at, gif, 16u * gif_count);
        at += 16u * gif_count;
    }
    if (at > span)
        return -1;
    sy_fill_bulk(c + at, span - at, r); /* animation-like data to the end of the span */
    *vif_qw_written = natural;
    return 0;
}
