/* SPDX-License-Identifier: MIT */
/* Hand-assembled tfrag bytes for the tfrag/LOD tests and the fuzz seeds: a
 * core_data buffer holding a tfrag block with N small patches, each with a
 * common tier (4 positions), a LOD-01 tier (1, or 0 with empty_lod01) and a
 * LOD-0 tier (2), every one of the five VIF lists, an ad-gif, RGBA and light
 * records. Lists follow formats.md §5.3 code by code; VU addresses follow
 * the memory map of §5.4. Written from the documentation only (independent
 * of synth/). Header-only so each test executable stays self-contained. */
#ifndef TFRAG_FIXTURE_H
#define TFRAG_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define TF_ORIGIN_X    (100 * 1024 + 5)
#define TF_ORIGIN_Y    (50 * 1024)
#define TF_ORIGIN_Z    (-200 * 1024)
#define TF_TEXTURE     3
#define TF_MAX_PATCHES 4

typedef struct tf_opts {
    int unknown_cmd_in_lod1;  /* an undefined VIF command inside the LOD-1 list */
    int no_common_positions;  /* omit the common V3_16 unpack */
    int empty_lod01;          /* no LOD-01 tier: its VU addresses collapse onto LOD 0's */
    int stcol_in_common;      /* an STCOL before the vertex-info STROW: Wrench's origin moves */
    int big_lod0_parents;     /* the LOD-0 parent array one V4_8 element too long for Wrench */
    int lod0_entries_swapped; /* LOD-0 vertex info before the parent array (Wrench's order broken)
                               */
} tf_opts;

typedef struct tf_core {
    uint8_t b[16384];
    size_t n;
    int32_t tfrags, occlusion;
    uint64_t data_ofs[TF_MAX_PATCHES];     /* absolute patch data */
    uint64_t pos_ofs[TF_MAX_PATCHES][8];   /* absolute offset of each V3_16 element */
    uint64_t pos_code_ofs[TF_MAX_PATCHES]; /* the common positions UNPACK code */
    uint64_t vu_code_ofs[TF_MAX_PATCHES];  /* the VU header UNPACK code */
    uint64_t bad_ofs[TF_MAX_PATCHES];      /* the undefined command, if any */
    size_t rgba_rel[TF_MAX_PATCHES];       /* rgba_ofs */
    size_t light_end_rel[TF_MAX_PATCHES];  /* light_end_ofs */
} tf_core;

static inline void tf_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}
static inline void tf_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}
static inline uint32_t tf_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint16_t tf_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* Position i of a patch, s16 relative to the origin. */
static inline void tf_position(int i, int16_t s[3])
{
    s[0] = (int16_t)(i * 100 - 300);
    s[1] = (int16_t)(-i * 50 + 100);
    s[2] = (int16_t)(i * 30 - 90);
}

typedef struct tf_w {
    uint8_t *b;
    size_t n;
} tf_w;
static inline void tf_w32(tf_w *w, uint32_t v)
{
    tf_put32(w->b + w->n, v);
    w->n += 4;
}
static inline void tf_w16(tf_w *w, uint16_t v)
{
    tf_put16(w->b + w->n, v);
    w->n += 2;
}
static inline void tf_w8(tf_w *w, uint8_t v)
{
    w->b[w->n++] = v;
}
static inline void tf_align(tf_w *w, size_t a)
{
    while (w->n % a)
        w->b[w->n++] = 0;
}
static inline uint32_t tf_unpack(unsigned vnvl, unsigned num, unsigned usn, unsigned addr)
{
    return (0x60u | vnvl) << 24 | (num & 0xffu) << 16 | 1u << 15 | usn << 14 | (addr & 0x3ffu);
}
static inline void tf_strow(tf_w *w, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    tf_w32(w, 0x30000000);
    tf_w32(w, a), tf_w32(w, b), tf_w32(w, c), tf_w32(w, d);
}
/* V4_8 array of n bytes, zero-padded to whole elements. */
static inline void tf_v48(tf_w *w, unsigned usn, unsigned addr, const uint8_t *v, unsigned n)
{
    unsigned elems = (n + 3) / 4;
    tf_w32(w, tf_unpack(0xe, elems, usn, addr));
    for (unsigned i = 0; i < elems * 4; i++)
        tf_w8(w, i < n ? v[i] : 0);
}
static inline void tf_strips(tf_w *w, unsigned addr, unsigned verts)
{
    const uint8_t s[8] = {(uint8_t)(int8_t)(verts - 128), 0, 0, 0, 0, 0, 0, 0};
    tf_v48(w, 0, addr, s, 8);
}
static inline void tf_indices(tf_w *w, unsigned addr, unsigned n)
{
    uint8_t v[16];
    for (unsigned i = 0; i < n; i++)
        v[i] = (uint8_t)i;
    tf_v48(w, 1, addr, v, n);
}

/* One patch's data block at w (relative offsets); fills the header. */
static inline void tf_patch(tf_core *c, int pi, uint8_t *hdr, tf_w *w, const tf_opts *o)
{
    const unsigned nc = 4, n01 = o->empty_lod01 ? 0 : 1, n0 = 2;
    const unsigned nv = nc + n01 + n0;
    /* VU1 memory map (formats.md §5.4) */
    const unsigned pos_addr = 14, pos01_addr = pos_addr + 2 * nc, pos0_addr = pos01_addr + 2 * n01;
    const unsigned vi_addr = 30, vi01_addr = vi_addr + nc, vi0_addr = vi01_addr + n01;
    const unsigned vi_end = vi0_addr + n0;
    const unsigned parent01_addr = vi_end, unk01_addr = parent01_addr + (n01 ? 1 : 0);
    const unsigned parent0_addr = unk01_addr, unk0_addr = parent0_addr + 1;
    const unsigned indices_addr = unk0_addr, strips_addr = indices_addr + 2;
    const uint64_t data_abs = (uint64_t)(w->b - c->b);
    const uint32_t f2048 = 0x45000000; /* 2048.0f */
    /* parents: first parent via the index array, second via the field */
    const uint8_t par01[1] = {1};
    const uint8_t par0[2] = {(uint8_t)(n01 ? 4 : 1), (uint8_t)(n01 ? 0 : 2)};
    const int16_t field01 = 2 * 2;
    const int16_t field0[2] = {(int16_t)(n01 ? 2 * 3 : 0), (int16_t)(n01 ? 2 * 1 : 2 * 3)};

    /* LOD 2 list */
    size_t lod2 = w->n;
    tf_strow(w, vi_addr, vi_addr, vi_addr, vi_addr);
    tf_w32(w, 0x05000001);
    tf_indices(w, indices_addr, 4);
    tf_w32(w, 0x05000000);
    tf_strips(w, strips_addr, 4);
    tf_align(w, 16);

    /* common list */
    size_t shared = w->n;
    c->vu_code_ofs[pi] = data_abs + w->n;
    tf_w32(w, tf_unpack(0xd, 5, 1, 0));
    const uint16_t vu[20] = {(uint16_t)nc,
                             (uint16_t)nc,
                             (uint16_t)n01,
                             (uint16_t)n01,
                             (uint16_t)n0,
                             (uint16_t)n0,
                             (uint16_t)pos_addr,
                             (uint16_t)vi_addr,
                             0,
                             (uint16_t)vi01_addr,
                             0,
                             (uint16_t)vi0_addr,
                             0,
                             (uint16_t)indices_addr,
                             (uint16_t)parent01_addr,
                             (uint16_t)unk01_addr,
                             (uint16_t)parent0_addr,
                             (uint16_t)unk0_addr,
                             (uint16_t)strips_addr,
                             9};
    for (int i = 0; i < 20; i++)
        tf_w16(w, vu[i]);
    tf_w32(w, tf_unpack(0xc, 5, 0, 9)); /* one ad-gif */
    size_t tex = w->n;
    tf_w32(w, TF_TEXTURE), tf_w32(w, 0), tf_w32(w, 0x06), tf_w32(w, 0); /* TEX0_1 */
    tf_w32(w, 0x0f77), tf_w32(w, 4), tf_w32(w, 0x14), tf_w32(w, 0);     /* TEX1_1: K -137, MMIN 4 */
    tf_w32(w, 1), tf_w32(w, 2), tf_w32(w, 0x08), tf_w32(w, 0);          /* CLAMP_1 */
    tf_w32(w, 0), tf_w32(w, 0), tf_w32(w, 0x34), tf_w32(w, 0);          /* MIPTBP1_1 */
    tf_w32(w, 0), tf_w32(w, 0), tf_w32(w, 0x36), tf_w32(w, 0);          /* MIPTBP2_1 */
    if (o->stcol_in_common)
        tf_w32(w, 0x31000000), tf_w32(w, 0x3f800000), tf_w32(w, 0x3f800000), tf_w32(w, 0x3f800000),
            tf_w32(w, 0x3f800000);
    tf_strow(w, f2048, f2048, 0, pos_addr); /* vi1 */
    tf_w32(w, 0x05000001);
    tf_w32(w, tf_unpack(0xd, nc, 0, vi_addr));
    for (unsigned k = 0; k < nc; k++)
        tf_w16(w, (uint16_t)(k * 256)), tf_w16(w, (uint16_t) - (int)(k * 128)), tf_w16(w, 0),
            tf_w16(w, (uint16_t)(2 * k));
    tf_strow(w, (uint32_t)TF_ORIGIN_X, (uint32_t)TF_ORIGIN_Y, (uint32_t)TF_ORIGIN_Z, 0);
    tf_w32(w, 0x01000102);
    if (!o->no_common_positions) {
        c->pos_code_ofs[pi] = data_abs + w->n;
        tf_w32(w, tf_unpack(0x9, nc, 0, pos_addr));
        for (unsigned k = 0; k < nc; k++) {
            int16_t s[3];
            tf_position((int)k, s);
            c->pos_ofs[pi][k] = data_abs + w->n;
            tf_w16(w, (uint16_t)s[0]), tf_w16(w, (uint16_t)s[1]), tf_w16(w, (uint16_t)s[2]);
        }
        tf_align(w, 4);
    }
    tf_w32(w, 0x01000404);
    tf_w32(w, 0x05000000);
    tf_strow(w, 186, 186, 186, 186); /* a later STROW, as RAC2's light rows: not the origin */
    tf_align(w, 16);

    /* LOD 1 list */
    size_t lod1 = w->n;
    tf_strips(w, strips_addr, nc + n01);
    if (o->unknown_cmd_in_lod1) {
        c->bad_ofs[pi] = data_abs + w->n;
        tf_w32(w, 0x45000000);
    }
    tf_strow(w, vi_addr, vi_addr, vi_addr, vi_addr);
    tf_w32(w, 0x05000001);
    tf_indices(w, indices_addr, nc + n01);
    tf_align(w, 16);

    /* LOD 01 list */
    size_t lod01 = w->n;
    if (n01) {
        tf_strow(w, vi_addr, vi_addr, vi_addr, vi_addr);
        tf_w32(w, 0x05000001);
        tf_v48(w, 1, parent01_addr, par01, 1);
        tf_strow(w, f2048, f2048, pos_addr, pos_addr); /* vi2 */
        tf_w32(w, tf_unpack(0xd, n01, 0, vi01_addr));
        tf_w16(w, 4 * 256), tf_w16(w, (uint16_t) - (4 * 128)), tf_w16(w, (uint16_t)field01),
            tf_w16(w, 2 * 4);
    }
    tf_strow(w, (uint32_t)TF_ORIGIN_X, (uint32_t)TF_ORIGIN_Y, (uint32_t)TF_ORIGIN_Z, 0);
    tf_w32(w, 0x01000102);
    if (n01) {
        tf_w32(w, tf_unpack(0x9, n01, 0, pos01_addr));
        int16_t s[3];
        tf_position(4, s);
        c->pos_ofs[pi][4] = data_abs + w->n;
        tf_w16(w, (uint16_t)s[0]), tf_w16(w, (uint16_t)s[1]), tf_w16(w, (uint16_t)s[2]);
        tf_align(w, 4);
    }
    tf_align(w, 16);

    /* LOD 0 list: continues the VIF state of LOD 01 */
    size_t lod0 = w->n;
    tf_w32(w, tf_unpack(0x9, n0, 0, pos0_addr));
    for (unsigned k = 0; k < n0; k++) {
        int16_t s[3];
        tf_position((int)(nc + n01 + k), s);
        c->pos_ofs[pi][nc + n01 + k] = data_abs + w->n;
        tf_w16(w, (uint16_t)s[0]), tf_w16(w, (uint16_t)s[1]), tf_w16(w, (uint16_t)s[2]);
    }
    tf_align(w, 4);
    tf_w32(w, 0x05000000);
    tf_w32(w, 0x01000404);
    tf_strips(w, strips_addr, nv);
    tf_strow(w, vi_addr, vi_addr, vi_addr, vi_addr);
    tf_w32(w, 0x05000001);
    tf_indices(w, indices_addr, nv);
    const uint8_t par0_long[8] = {par0[0], par0[1]};
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0 writes the parent array, pass 1 the vertex info; swapped on request */
        if ((pass == 0) != (o->lod0_entries_swapped != 0)) {
            tf_v48(w, 1, parent0_addr, o->big_lod0_parents ? par0_long : par0,
                   o->big_lod0_parents ? 8 : 2);
            continue;
        }
        tf_strow(w, f2048, f2048, pos_addr, pos_addr);
        tf_w32(w, tf_unpack(0xd, n0, 0, vi0_addr));
        for (unsigned k = 0; k < n0; k++) {
            unsigned i = nc + n01 + k;
            tf_w16(w, (uint16_t)(i * 256)), tf_w16(w, (uint16_t) - (int)(i * 128)),
                tf_w16(w, (uint16_t)field0[k]), tf_w16(w, (uint16_t)(2 * i));
        }
    }
    tf_w32(w, 0x05000000);
    tf_align(w, 16);

    /* RGBA: 2 qw = 8 colours */
    size_t rgba = w->n;
    for (unsigned i = 0; i < 8; i++)
        tf_w8(w, (uint8_t)(i * 10)), tf_w8(w, (uint8_t)(i * 10 + 1)),
            tf_w8(w, (uint8_t)(i * 10 + 2)), tf_w8(w, 0x80);
    /* light block: origin qword, then one record per position */
    size_t light = w->n;
    tf_w32(w, (uint32_t)TF_ORIGIN_X), tf_w32(w, (uint32_t)TF_ORIGIN_Y),
        tf_w32(w, (uint32_t)TF_ORIGIN_Z), tf_w32(w, 0);
    for (unsigned i = 0; i < nv; i++) {
        tf_w8(w, 0), tf_w8(w, 0x40), tf_w8(w, (uint8_t)(i == 3 ? 200 : i * 10)),
            tf_w8(w, (uint8_t)i);
        tf_w16(w, (uint16_t)(0x8000 | i)), tf_w16(w, (uint16_t)(0x0100 | i));
    }
    tf_align(w, 16);
    size_t light_end = w->n;

    /* sphere around the world positions */
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
    const double org[3] = {TF_ORIGIN_X, TF_ORIGIN_Y, TF_ORIGIN_Z};
    for (unsigned i = 0; i < nv; i++) {
        int16_t s[3];
        tf_position((int)i, s);
        for (int a = 0; a < 3; a++) {
            double v = (org[a] + s[a]) / 1024.0;
            lo[a] = v < lo[a] ? v : lo[a];
            hi[a] = v > hi[a] ? v : hi[a];
        }
    }
    float ctr[3];
    double r2 = 0;
    for (int a = 0; a < 3; a++)
        ctr[a] = (float)((lo[a] + hi[a]) / 2);
    for (unsigned i = 0; i < nv; i++) {
        int16_t s[3];
        tf_position((int)i, s);
        double d2 = 0;
        for (int a = 0; a < 3; a++) {
            double d = (org[a] + s[a]) / 1024.0 - ctr[a];
            d2 += d * d;
        }
        r2 = d2 > r2 ? d2 : r2;
    }
    float radius = (float)(sqrt(r2) + 0.01);

    tf_w hw = {hdr, 0};
    uint32_t f;
    for (int a = 0; a < 3; a++) {
        memcpy(&f, &ctr[a], 4);
        tf_w32(&hw, f);
    }
    memcpy(&f, &radius, 4);
    tf_w32(&hw, f);                              /* 0x00 bsphere */
    tf_w32(&hw, 0);                              /* 0x10 data: patched by the caller */
    tf_w16(&hw, (uint16_t)lod2);                 /* 0x14 */
    tf_w16(&hw, (uint16_t)shared);               /* 0x16 */
    tf_w16(&hw, (uint16_t)lod1);                 /* 0x18 */
    tf_w16(&hw, (uint16_t)lod01);                /* 0x1a */
    tf_w16(&hw, (uint16_t)tex);                  /* 0x1c */
    tf_w16(&hw, (uint16_t)rgba);                 /* 0x1e */
    tf_w8(&hw, (uint8_t)((lod1 - shared) / 16)); /* 0x20 common_size */
    tf_w8(&hw, (uint8_t)((lod1 - lod2) / 16));   /* 0x21 lod_2_size */
    tf_w8(&hw, (uint8_t)((lod0 - shared) / 16)); /* 0x22 lod_1_size */
    tf_w8(&hw, (uint8_t)((rgba - lod01) / 16));  /* 0x23 lod_0_size */
    tf_w32(&hw, 0);                              /* 0x24..0x27 */
    tf_w8(&hw, 1);                               /* 0x28 texture_count */
    tf_w8(&hw, 2);                               /* 0x29 rgba_size */
    tf_w16(&hw, 0);                              /* 0x2a */
    tf_w8(&hw, 0);                               /* 0x2c msphere_count */
    tf_w8(&hw, 0);                               /* 0x2d */
    tf_w16(&hw, (uint16_t)light_end);            /* 0x2e msphere_ofs */
    tf_w16(&hw, (uint16_t)light);                /* 0x30 light_ofs */
    tf_w16(&hw, (uint16_t)light_end);            /* 0x32 light_end_ofs */
    tf_w8(&hw, 0xff);                            /* 0x34 dir_lights_one */
    tf_w8(&hw, 0);                               /* 0x35 */
    tf_w16(&hw, 0xffff);                         /* 0x36 point_lights */
    tf_w16(&hw, 0);                              /* 0x38 cube_ofs */
    tf_w16(&hw, (uint16_t)pi);                   /* 0x3a occl_index */
    tf_w8(&hw, (uint8_t)nv);                     /* 0x3c vert_count */
    tf_w8(&hw, (uint8_t)(nv - 2));               /* 0x3d tri_count */
    tf_w16(&hw, 0);                              /* 0x3e */

    c->rgba_rel[pi] = rgba;
    c->light_end_rel[pi] = light_end;
}

/* A core_data buffer: 0x100 bytes of something else, then the tfrag block
 * (header, table at +0x40, patch data), then 0x40 bytes of "occlusion". */
static inline void tf_build(tf_core *c, int patches, const tf_opts *opts)
{
    memset(c, 0, sizeof *c);
    c->tfrags = 0x100;
    uint8_t *blk = c->b + c->tfrags;
    tf_put32(blk + 0, 0x40);
    tf_put32(blk + 4, (uint32_t)patches);
    float L = 32.0f;
    uint32_t f;
    memcpy(&f, &L, 4);
    tf_put32(blk + 8, f);
    size_t table = (size_t)c->tfrags + 0x40;
    size_t at = table + (size_t)patches * 0x40;
    for (int i = 0; i < patches; i++) {
        tf_opts none = {0};
        tf_w w = {c->b + at, 0};
        uint8_t *hdr = c->b + table + (size_t)i * 0x40;
        tf_patch(c, i, hdr, &w, opts ? &opts[i] : &none);
        tf_put32(hdr + 0x10, (uint32_t)(at - table)); /* relative to the TABLE */
        c->data_ofs[i] = at;
        at += w.n;
        at = (at + 15) & ~(size_t)15;
    }
    c->occlusion = (int32_t)at;
    c->n = at + 0x40;
}

#endif
