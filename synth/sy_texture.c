/* SPDX-License-Identifier: MIT */
/* Procedural level textures: bevelled metal panels with rivets, grilles with fully transparent
 * holes, rock, grass and a few flat signs, as 8-bit logical palette indices plus a smooth
 * 256-entry logical palette. Integer arithmetic only (design.md §5). */
#include <string.h>

#include "sy_internal.h"

static const unsigned dims[8] = {64, 128, 64, 64, 32, 128, 64, 64};

/* Edge scale: tfrag texture 0 spans the legal sides, from the GS's largest (1024, TW = 10) to
 * 8, whose level 3 is a single texel. */
static const unsigned edge_sides[7] = {1024, 512, 256, 128, 64, 16, 8};

unsigned sy_texture_dim(int scale, int table, unsigned i, int level)
{
    if (scale == SY_SCALE_EDGE && table == SY_TEX_TFRAG && i == 0)
        return edge_sides[(unsigned)level % 7u];
    return dims[(i * 3u + (unsigned)table * 5u + (unsigned)level) % 8u];
}

int sy_texture_kind(int table, unsigned i, int level)
{
    unsigned L = (unsigned)level, t = (unsigned)table;
    if ((i + 13u * L + 7u * t) % 29u == 16u)
        return SY_KIND_GRILLE; /* level 0: tfrag textures 16, 45, 74 */
    if ((i * 7u + L * 3u + t) % 27u == 5u)
        return SY_KIND_SIGN;
    switch ((i + t) % 4u) {
    case 0:
        return SY_KIND_PANEL;
    case 1:
        return SY_KIND_ROCK;
    case 2:
        return SY_KIND_GRASS;
    default:
        return (i / 4u) % 2u ? SY_KIND_PANEL : SY_KIND_ROCK;
    }
}

static uint32_t hash3(uint32_t x, uint32_t y, uint32_t s)
{
    uint32_t h = x * 0x8DA6B343u ^ y * 0xD8163841u ^ s * 0xCB1AB31Fu;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return h;
}

/* Value noise 0..255 with a cell of `cell` pixels, bilinear, wrapping at `dim` so textures tile. */
static int vnoise(unsigned x, unsigned y, unsigned cell, unsigned dim, uint32_t s)
{
    unsigned cells = dim / cell;
    unsigned cx = x / cell, cy = y / cell, fx = x % cell, fy = y % cell;
    unsigned x1 = (cx + 1) % cells, y1 = (cy + 1) % cells;
    int a = (int)(hash3(cx, cy, s) & 255), b = (int)(hash3(x1, cy, s) & 255);
    int c = (int)(hash3(cx, y1, s) & 255), d = (int)(hash3(x1, y1, s) & 255);
    int top = a * (int)(cell - fx) + b * (int)fx, bot = c * (int)(cell - fx) + d * (int)fx;
    return (top * (int)(cell - fy) + bot * (int)fy) / (int)(cell * cell);
}

static int fbm(unsigned x, unsigned y, unsigned dim, uint32_t s)
{
    unsigned c0 = dim / 4 ? dim / 4 : 1, c1 = dim / 8 ? dim / 8 : 1, c2 = dim / 16 ? dim / 16 : 1;
    return (vnoise(x, y, c0, dim, s) * 4 + vnoise(x, y, c1, dim, s + 1) * 2 +
            vnoise(x, y, c2, dim, s + 2)) /
           7;
}

static uint8_t clamp_index(int v, int lo)
{
    return (uint8_t)(v < lo ? lo : v > 255 ? 255 : v);
}

/* Logical palette: a smooth ramp between two colours through a mid tone. */
static void ramp(uint32_t pal[256], const uint8_t lo[3], const uint8_t mid[3], const uint8_t hi[3])
{
    for (unsigned i = 0; i < 256; i++) {
        const uint8_t *a = i < 128 ? lo : mid, *b = i < 128 ? mid : hi;
        unsigned f = i < 128 ? i : i - 128;
        uint32_t rgb[3];
        for (int k = 0; k < 3; k++)
            rgb[k] = (a[k] * (128u - f) + b[k] * f) / 128u;
        pal[i] = rgb[0] | rgb[1] << 8 | rgb[2] << 16 | 0x80u << 24;
    }
}

static void draw_panel(unsigned dim, uint32_t s, uint8_t *pix, int grille)
{
    unsigned bev = dim / 16 ? dim / 16 : 1, rr = bev + bev / 2;
    unsigned rv[4][2] = {{bev * 3, bev * 3},
                         {dim - bev * 3, bev * 3},
                         {bev * 3, dim - bev * 3},
                         {dim - bev * 3, dim - bev * 3}};
    unsigned slots = 4, pitch = dim / slots;
    for (unsigned y = 0; y < dim; y++)
        for (unsigned x = 0; x < dim; x++) {
            int v = 120 + (fbm(x, y, dim, s) - 128) / 6 + (int)(y * 24 / dim); /* brushed */
            v += (int)(hash3(x, y, s ^ 0x55u) & 7) - 3;
            if (x < bev || y < bev)
                v += 60; /* lit bevel */
            else if (x >= dim - bev || y >= dim - bev)
                v -= 60; /* shaded bevel */
            int rivet = 0;
            for (int k = 0; k < 4; k++) {
                int dx = (int)x - (int)rv[k][0], dy = (int)y - (int)rv[k][1];
                int d2 = dx * dx + dy * dy, r2 = (int)(rr * rr);
                if (d2 <= r2) {
                    v = 150 + (r2 - d2) * 90 / (r2 ? r2 : 1) - (dx + dy) * 20 / (int)(rr ? rr : 1);
                    rivet = 1;
                }
            }
            uint8_t idx = clamp_index(v, grille ? 4 : 0);
            if (grille) {
                unsigned gx = x % pitch, gy = y % pitch, m = pitch / 5 ? pitch / 5 : 1;
                int frame = x < bev * 2 || y < bev * 2 || x >= dim - bev * 2 || y >= dim - bev * 2;
                if (!frame && !rivet && gx >= m && gx < pitch - m && gy >= m && gy < pitch - m)
                    idx = 0; /* punched window: fully transparent */
            }
            pix[y * dim + x] = idx;
        }
}

void sy_texture_draw(int kind, unsigned dim, uint32_t seed, uint8_t *pix, uint32_t pal[256])
{
    static const uint8_t metal[3][3] = {{20, 24, 30}, {110, 118, 128}, {235, 240, 245}};
    static const uint8_t rock[3][3] = {{30, 24, 18}, {112, 98, 84}, {210, 200, 186}};
    static const uint8_t grass[3][3] = {{12, 30, 8}, {60, 120, 36}, {170, 220, 110}};
    static const uint8_t sign[3][3] = {{40, 30, 0}, {200, 160, 20}, {250, 240, 200}};
    switch (kind) {
    case SY_KIND_PANEL:
    case SY_KIND_GRILLE:
        ramp(pal, metal[0], metal[1], metal[2]);
        draw_panel(dim, seed, pix, kind == SY_KIND_GRILLE);
        if (kind == SY_KIND_GRILLE) {
            pal[0] = 0;                                  /* hole: alpha 0 */
            pal[1] = (pal[1] & 0xFFFFFFu) | 0x20u << 24; /* anti-aliased rim entries */
            pal[2] = (pal[2] & 0xFFFFFFu) | 0x40u << 24;
            pal[3] = (pal[3] & 0xFFFFFFu) | 0x60u << 24;
        }
        break;
    case SY_KIND_ROCK:
        ramp(pal, rock[0], rock[1], rock[2]);
        for (unsigned y = 0; y < dim; y++)
            for (unsigned x = 0; x < dim; x++) {
                int n = fbm(x, y, dim, seed);
                int crack = vnoise(x, y, dim / 8 ? dim / 8 : 1, dim, seed + 9);
                int v = n + (int)(hash3(x, y, seed) & 15) - 8;
                if (crack > 118 && crack < 126)
                    v -= 70;
                pix[y * dim + x] = clamp_index(v, 0);
            }
        break;
    case SY_KIND_GRASS:
        ramp(pal, grass[0], grass[1], grass[2]);
        for (unsigned y = 0; y < dim; y++)
            for (unsigned x = 0; x < dim; x++) {
                int blade = (int)(hash3(x, y / 8, seed) & 63) - 32; /* vertical streaks */
                int v = fbm(x, y, dim, seed) + blade + (int)(hash3(x, y, seed + 3) & 7);
                pix[y * dim + x] = clamp_index(v, 0);
            }
        break;
    default: /* sign: hazard stripes, deliberately few colours */
        ramp(pal, sign[0], sign[1], sign[2]);
        for (unsigned y = 0; y < dim; y++)
            for (unsigned x = 0; x < dim; x++) {
                unsigned band = ((x + y) * 6 / dim) % 2;
                int edge =
                    x < dim / 16 || y < dim / 16 || x >= dim - dim / 16 || y >= dim - dim / 16;
                pix[y * dim + x] = (uint8_t)(edge ? 24 : band ? 60 : 200);
            }
        break;
    }
}

void sy_texture_halve(const uint8_t *pix, unsigned dim, int hole0, uint8_t *out)
{
    unsigned h = dim / 2;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < h; x++) {
            const uint8_t *p = pix + (2 * y) * dim + 2 * x;
            unsigned v[4] = {p[0], p[1], p[dim], p[dim + 1]}, sum = 0, n = 0, zeros = 0;
            for (int k = 0; k < 4; k++) {
                if (hole0 && v[k] == 0)
                    zeros++;
                else
                    sum += v[k], n++;
            }
            out[y * h + x] = (uint8_t)(hole0 && zeros * 2 >= 4 ? 0 : (sum + n / 2) / n);
        }
}
