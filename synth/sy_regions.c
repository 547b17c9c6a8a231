/* SPDX-License-Identifier: MIT */
/* The smaller regions of core_data: the occlusion grid, the sky (header, textures, shells and
 * clusters), and the bulk filler that gives class data its retail-like compressibility
 * (docs/formats/core-data.md). The collision block is sy_collision.c. */
#include <math.h>
#include <string.h>

#include "sy_internal.h"

/* Share (in 1/256) of bulk words that are fresh noise rather than a repeat of recent data:
 * tuned so level 0's core_data compresses to about the measured 9.7 MB of 16.97 MB (9.82 MB
 * with the Wrench-layout collision mesh; data extent 6,388 sectors against the disc's 6,484). */
#define SY_BULK_NOISE_256 218u

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

void sy_fill_bulk(uint8_t *p, size_t n, sy_rng *r)
{
    /* 16-byte keyframe records {u16 time, u16 joint, s16 x, y, z, w, u32 flags}: smooth walks
     * with a noisy low byte, and now and then a run copied from up to 4 KiB back. */
    size_t i = 0;
    int32_t a = 0, b = 0, c = 0;
    uint32_t t = 0;
    while (i + 16 <= n) {
        uint32_t roll = sy_rng_below(r, 256);
        if (roll >= SY_BULK_NOISE_256 && i >= 256) {
            size_t back = 16 * (1 + sy_rng_below(r, (uint32_t)(i < 4096 ? i / 16 : 256)));
            size_t len = 16 * (1 + sy_rng_below(r, 6));
            for (size_t k = 0; k < len && i < n; k++, i++)
                p[i] = p[i - back];
            continue;
        }
        a += (int32_t)sy_rng_below(r, 33) - 16;
        b += (int32_t)sy_rng_below(r, 33) - 16;
        c += (int32_t)sy_rng_below(r, 33) - 16;
        uint8_t *q = p + i;
        put_u16(q + 0, (uint16_t)t++);
        put_u16(q + 2, (uint16_t)(t / 32));
        put_u16(q + 4, (uint16_t)(int16_t)a);
        put_u16(q + 6, (uint16_t)(int16_t)b);
        put_u16(q + 8, (uint16_t)(int16_t)c);
        put_u16(q + 10, (uint16_t)sy_rng_below(r, 65536));
        put_u32(q + 12, (uint32_t)sy_rng_below(r, 4) << 24 | (t & 0xFF));
        i += 16;
    }
    for (; i < n; i++)
        p[i] = 0;
}

/* Occlusion grid (formats.md §8.5, docs/formats/core-data.md), every node offset in 4-byte
 * units from the block start: root {s32 masks_offset, u16 z_coord, u16 z_count,
 * u16 z_offsets[]} (0 = empty), z node {u16 y_coord, u16 y_count, u16 y_offsets[]}, y node
 * {u16 x_coord, u16 x_count, u16 mask_index[]} (0xFFFF = none), then 128-byte masks at
 * masks_offset + index*128. masks_offset is in BYTES, as Wrench reads and writes it
 * (occlusion.cpp); the notes report no measured unit, so the corpus follows Wrench. */
int sy_occlusion_grid_write(sy_buf *out, size_t target, sy_rng *r)
{
    size_t base = out->len;
    if (target < 0x400)
        target = 0x400;
    unsigned zc = 8 + sy_rng_below(r, 16), yc = 6 + sy_rng_below(r, 10),
             xc = 8 + sy_rng_below(r, 24);
    /* Nodes take about zc*yc*(4+2*xc) bytes; shrink the grid if that leaves no room for masks. */
    while ((size_t)zc * yc * (8 + 2 * xc) + 1024 > target / 2 && xc > 2)
        xc /= 2, yc = yc > 2 ? yc - 1 : yc;
    size_t root = (8 + 2 * (size_t)zc + 3) / 4 * 4;
    size_t znode = (4 + 2 * (size_t)yc + 3) / 4 * 4, ynode = (4 + 2 * (size_t)xc + 3) / 4 * 4;
    size_t nodes = root + (size_t)zc * (znode + (size_t)yc * ynode);
    size_t masks_at = (nodes + 15) / 16 * 16;
    size_t mask_count = target > masks_at + 128 ? (target - masks_at) / 128 : 1;
    if (mask_count > 0xFFFE)
        mask_count = 0xFFFE;
    size_t total = masks_at + 128 * mask_count;
    if (sy_buf_reserve(out, total) != 0)
        return -1;
    sy_buf_zero(out, total);
    uint8_t *g = out->data + base;
    put_u32(g, (uint32_t)masks_at); /* bytes from the block start */
    put_u16(g + 4, (uint16_t)(12 + sy_rng_below(r, 8)));
    put_u16(g + 6, (uint16_t)zc);
    size_t at = root;
    for (unsigned z = 0; z < zc; z++) {
        int empty = z > 0 && sy_rng_below(r, 8) == 0;
        size_t zat = at;
        at += znode + (size_t)yc * ynode;
        if (empty)
            continue; /* offset stays 0: an empty slab (its node bytes stay unused zeros) */
        put_u16(g + 8 + 2 * z, (uint16_t)(zat / 4));
        put_u16(g + zat, (uint16_t)(sy_rng_below(r, 16)));
        put_u16(g + zat + 2, (uint16_t)yc);
        for (unsigned y = 0; y < yc; y++) {
            size_t yat = zat + znode + (size_t)y * ynode;
            put_u16(g + zat + 4 + 2 * y, (uint16_t)(yat / 4));
            put_u16(g + yat, (uint16_t)sy_rng_below(r, 16));
            put_u16(g + yat + 2, (uint16_t)xc);
            for (unsigned x = 0; x < xc; x++) {
                uint32_t m =
                    sy_rng_below(r, 10) == 0 ? 0xFFFFu : sy_rng_below(r, (uint32_t)mask_count);
                put_u16(g + yat + 4 + 2 * x, (uint16_t)m);
            }
        }
    }
    for (size_t m = 0; m < mask_count; m++) /* visibility bitmasks: sparse set bits */
        for (int k = 0; k < 6; k++) {
            uint32_t bit = sy_rng_below(r, 1024);
            g[masks_at + 128 * m + bit / 8] |= (uint8_t)(1u << (bit % 8));
        }
    return 0;
}

/* Sky (formats.md §8.4; offsets relative to the sky block): header 0x40, texture defs,
 * textures (CSM1 palette + pixels), shells {s32 cluster_count, s32 flags} with clusters of 0x20
 * bytes at shell + 0x10, cluster data {s16 x, y, z, alpha} vertices, s16 STs and
 * {u8 i0, i1, i2, texture} faces. */
int sy_sky_write(sy_buf *out, size_t target, int variant, sy_rng *r)
{
    size_t base = out->len;
    unsigned shells = 2 + sy_rng_below(r, 3), clusters = 8, grid = 4; /* 5x5 verts, 32 tris */
    /* Which shells are untextured (flags bit 0, every face texture 0xFF). */
    int bare_last = 1, bare_all = 0, no_textures = 0;
    switch (variant) {
    case SY_SKY_ONE_BARE:
        shells = 1, no_textures = 1;
        break;
    case SY_SKY_EIGHT_TEXTURED:
        shells = 8, bare_last = 0; /* the header's eight shell slots, all used */
        break;
    case SY_SKY_NO_SHELLS:
        shells = 0;
        break;
    case SY_SKY_ALL_BARE:
        bare_all = 1;
        break;
    default:
        break;
    }
    unsigned verts = (grid + 1) * (grid + 1), tris = grid * grid * 2;
    size_t cl_data = (size_t)verts * 8 + (size_t)verts * 4 + (size_t)tris * 4;
    size_t geo = (size_t)shells * (16 + 32u * clusters + (size_t)clusters * cl_data);
    unsigned dim = target > 0x20000 ? 128 : target > 0x8000 ? 64 : 32;
    size_t tex_bytes = 1024 + (size_t)dim * dim;
    size_t fixed = 0x40 + 16 * 8 + geo + 64;
    unsigned ntex = target > fixed + tex_bytes ? (unsigned)((target - fixed) / tex_bytes) : 1;
    if (ntex > 64)
        ntex = 64;
    if (no_textures)
        ntex = 0;
    sy_buf_zero(out, 0x40);
    if (out->failed)
        return -1;
    size_t defs = ntex ? out->len - base : 0; /* no table: offset 0, as for fx and sprites */
    sy_buf_zero(out, 16 * (size_t)ntex);
    sy_buf_align(out, 0x10);
    size_t tdata = ntex ? out->len - base : 0;
    uint8_t pix[128 * 128];
    for (unsigned t = 0; t < ntex; t++) {
        uint32_t pal[256];
        sy_texture_draw(t % 2 ? SY_KIND_ROCK : SY_KIND_GRASS, dim,
                        0x5C1u + t * 17u + (uint32_t)sy_rng_below(r, 1000), pix, pal);
        size_t pofs = out->len - base - tdata;
        uint8_t clut[1024];
        for (unsigned j = 0; j < 256; j++)
            put_u32(clut + 4 * sy_csm1(j), pal[j]);
        sy_buf_put(out, clut, 1024);
        size_t tofs = out->len - base - tdata;
        sy_buf_put(out, pix, (size_t)dim * dim);
        if (out->failed)
            return -1;
        uint8_t *d = out->data + base + defs + 16 * t;
        put_u32(d + 0, (uint32_t)pofs), put_u32(d + 4, (uint32_t)tofs);
        put_u32(d + 8, dim), put_u32(d + 12, dim);
    }
    sy_buf_align(out, 0x10);
    size_t shell_ofs[8] = {0};
    for (unsigned s = 0; s < shells; s++) {
        shell_ofs[s] = out->len - base;
        sy_buf_u32(out, clusters);
        int bare = bare_all || (bare_last && s == shells - 1) || ntex == 0;
        sy_buf_u32(out, bare ? 1u : 0u); /* flags: bit 0 = untextured (outermost) */
        sy_buf_zero(out, 8);
        size_t ctab = out->len - base;
        sy_buf_zero(out, 32u * clusters);
        for (unsigned k = 0; k < clusters; k++) {
            size_t data = out->len - base;
            /* A 4x4 quad patch of a dome: ring k of 8 around the zenith, radius 1000 units. */
            float cx, cy, cz, pts[25][3];
            for (unsigned v = 0; v < verts; v++) {
                float u = (float)(v % (grid + 1)) / (float)grid,
                      w = (float)(v / (grid + 1)) / (float)grid;
                float x = ((float)(int)(k % 4) - 2.0f + u) * 0.5f,
                      y = ((float)(int)(k / 4) - 1.0f + w) * 0.5f;
                float z = 1.0f, len = sqrtf(x * x + y * y + z * z);
                pts[v][0] = x / len * (1000.0f - 100.0f * (float)s);
                pts[v][1] = y / len * (1000.0f - 100.0f * (float)s);
                pts[v][2] = z / len * (1000.0f - 100.0f * (float)s);
            }
            /* Stored: s16 x, y, z (read back as s16 / 1024; the 1000-unit dome is stored at
             * 32/1024 of its size to fit s16) and s16 alpha. The bsphere is computed from the
             * positions as they read back, so it contains every stored vertex exactly. */
            int16_t qp[25][3];
            cx = cy = cz = 0;
            for (unsigned v = 0; v < verts; v++)
                for (int a = 0; a < 3; a++)
                    qp[v][a] = (int16_t)(pts[v][a] * 32.0f);
            for (unsigned v = 0; v < verts; v++)
                cx += (float)qp[v][0] / 1024.0f, cy += (float)qp[v][1] / 1024.0f,
                    cz += (float)qp[v][2] / 1024.0f;
            cx /= (float)verts, cy /= (float)verts, cz /= (float)verts;
            float rad = 0;
            for (unsigned v = 0; v < verts; v++) {
                float dx = (float)qp[v][0] / 1024.0f - cx, dy = (float)qp[v][1] / 1024.0f - cy,
                      dz = (float)qp[v][2] / 1024.0f - cz;
                float d = sqrtf(dx * dx + dy * dy + dz * dz);
                rad = d > rad ? d : rad;
                sy_buf_u16(out, (uint16_t)qp[v][0]);
                sy_buf_u16(out, (uint16_t)qp[v][1]);
                sy_buf_u16(out, (uint16_t)qp[v][2]);
                sy_buf_u16(out, (uint16_t)(0x40 + 0x40 * (v % 2))); /* alpha, 0x80 = opaque */
            }
            size_t st = out->len - base - data;
            for (unsigned v = 0; v < verts; v++) {
                sy_buf_u16(out, (uint16_t)(v % (grid + 1) * 4096 / grid));
                sy_buf_u16(out, (uint16_t)(v / (grid + 1) * 4096 / grid));
            }
            size_t tri = out->len - base - data;
            for (unsigned q = 0; q < grid * grid; q++) {
                unsigned a = q / grid * (grid + 1) + q % grid;
                uint8_t f[8] = {(uint8_t)a,
                                (uint8_t)(a + 1),
                                (uint8_t)(a + grid + 1),
                                (uint8_t)(bare ? 0xFF : k % ntex),
                                (uint8_t)(a + 1),
                                (uint8_t)(a + grid + 2),
                                (uint8_t)(a + grid + 1),
                                (uint8_t)(bare ? 0xFF : k % ntex)};
                sy_buf_put(out, f, 8);
            }
            if (out->failed)
                return -1;
            uint8_t *cl = out->data + base + ctab + 32u * k;
            put_f32(cl + 0, cx), put_f32(cl + 4, cy), put_f32(cl + 8, cz);
            put_f32(cl + 12, rad * 1.001f + 0.001f); /* bsphere radius, rounded up */
            put_u32(cl + 16, (uint32_t)data);        /* data (from the sky block) */
            put_u16(cl + 20, (uint16_t)verts), put_u16(cl + 22, (uint16_t)tris);
            put_u16(cl + 24, 0), put_u16(cl + 26, (uint16_t)st), put_u16(cl + 28, (uint16_t)tri);
            put_u16(cl + 30, (uint16_t)(out->len - base - data)); /* data_size */
        }
        sy_buf_align(out, 0x10);
    }
    if (out->failed)
        return -1;
    uint8_t *h = out->data + base;
    put_u32(h + 0x00, 0x80402010u);      /* RGBA colour */
    put_u16(h + 0x04, 1);                /* clear_screen */
    put_u16(h + 0x06, (uint16_t)shells); /* shell_count */
    put_u16(h + 0x08, 0);                /* sprite_count */
    put_u16(h + 0x0A, 0);                /* maximum_sprite_count */
    put_u16(h + 0x0C, (uint16_t)ntex);   /* texture_count */
    put_u16(h + 0x0E, 0);                /* fx_count */
    put_u32(h + 0x10, (uint32_t)defs);   /* texture_defs */
    put_u32(h + 0x14, (uint32_t)tdata);  /* texture_data */
    put_u32(h + 0x18, 0);                /* fx_list */
    put_u32(h + 0x1C, 0);                /* sprites */
    for (unsigned s = 0; s < shells; s++)
        put_u32(h + 0x20 + 4 * s, (uint32_t)shell_ofs[s]);
    return 0;
}
