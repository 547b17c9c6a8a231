/* SPDX-License-Identifier: MIT */
/* The collision block of core_data and of each chunk (docs/formats/collision.md): a real
 * collision mesh over a rectangle of the level's tfrag terrain, in the layout Wrench's
 * read_collision reads (src/engine/collision.cpp):
 *
 *   header {s32 mesh, s32 hero_groups (0: none)}, the mesh at 0x40:
 *   root {s16 z_coord, u16 z_count, u16 z_offsets[] (4-byte units, 0 = empty)},
 *   z nodes {s16 y_coord, u16 y_count, u32 y_offsets[] (bytes, 0 = empty)},
 *   y nodes {s16 x_coord, u16 x_count, u32 x_entries[] (offset << 8 | size in qwords, 0 = empty)},
 *   cells (16-aligned) {u16 face_count, u8 vertex_count, u8 quad_count, u32 vertices[],
 *                       {u8 v0, v1, v2, type} faces[] (quads first), u8 v3[quad_count]}.
 *
 * Every offset is relative to the mesh. A cell is a 4 x 4 x 4-unit cube; its vertices are packed
 * relative to its centre (x, y: 10 bits, 1/16 unit; z: 12 bits, 1/64 unit). The mesh samples the
 * terrain every 2 units (2 x 2 quads per cell column); a quad is stored in every cell its height
 * range touches, with its own copies of its vertices, so one cell answers a collision query. */
#include <stdlib.h>
#include <string.h>

#include "sy_internal.h"
#include "sy_tfrag.h"

#define COL_HEADER_BYTES 0x40u /* {mesh, hero_groups}, padded as Wrench pads it */
#define COL_CELL_UNITS   4     /* a cell is 4 x 4 x 4 world units */
#define COL_STEP_1024    2048  /* terrain sampled every 2 units (1/1024 units) */
#define COL_Z_PER_CELL   256   /* 4 units in the 1/64 z resolution */
#define COL_MAX_VERTS    9     /* 3 x 3 sample nodes per column */
#define COL_MAX_FACES    8     /* 4 quads, each possibly split in two */
#define COL_CELL_MAX     (4 + 4 * COL_MAX_VERTS + 4 * COL_MAX_FACES + 4)

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}
static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* One stored face of a column: corner node indices (0..8 in the column's 3 x 3 nodes), quad or
 * triangle, surface type, and its height range in 1/64 units. */
typedef struct col_face {
    uint8_t v[4], quad, type;
    int32_t zlo, zhi;
} col_face;

/* One written cell, kept until the tree is laid out. */
typedef struct col_cell {
    int32_t x, y, z; /* cell coordinates (world / 4) */
    uint16_t bytes;  /* stored size before padding */
    uint8_t data[COL_CELL_MAX];
} col_cell;

typedef struct col_mesh {
    col_cell *cell;
    size_t n, cap;
} col_mesh;

static int push_cell(col_mesh *m, const col_cell *c)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1024;
        col_cell *p = realloc(m->cell, cap * sizeof *p);
        if (!p)
            return -1;
        m->cell = p;
        m->cap = cap;
    }
    m->cell[m->n++] = *c;
    return 0;
}

/* The cells of the rectangle [cx0, cx0 + w) x [cy0, cy0 + h) (cell coordinates), in z, y, x
 * order (the order the tree lists them). zq holds the sampled heights (1/64 units) of the
 * (2w + 1) x (2h + 1) nodes. */
static int build_cells(col_mesh *m, const int32_t *zq, int32_t cx0, int32_t cy0, int w, int h,
                       sy_rng *r)
{
    int nw = 2 * w + 1;
    col_face *faces = malloc(sizeof *faces * (size_t)w * (size_t)h * COL_MAX_FACES);
    uint8_t *nf = calloc((size_t)w * (size_t)h, 1);
    if (!faces || !nf) {
        free(faces), free(nf);
        return -1;
    }
    int32_t kz_lo = INT32_MAX, kz_hi = INT32_MIN;
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            col_face *f = faces + ((size_t)j * w + i) * COL_MAX_FACES;
            uint8_t k = 0;
            for (int q = 0; q < 4; q++) {
                int a = q & 1, b = q >> 1;
                /* corners in the column's 3 x 3 node numbering, counter-clockwise from above */
                uint8_t c[4] = {(uint8_t)(3 * b + a), (uint8_t)(3 * b + a + 1),
                                (uint8_t)(3 * (b + 1) + a + 1), (uint8_t)(3 * (b + 1) + a)};
                int32_t z[4];
                for (int e = 0; e < 4; e++)
                    z[e] = zq[(size_t)(2 * j + c[e] / 3) * nw + (size_t)(2 * i + c[e] % 3)];
                int32_t lo = z[0], hi = z[0];
                for (int e = 1; e < 4; e++)
                    lo = z[e] < lo ? z[e] : lo, hi = z[e] > hi ? z[e] : hi;
                /* surface type: slope class (flat, gentle, steep) and one of four materials */
                uint8_t slope = (uint8_t)(hi - lo < 32 ? 0 : hi - lo < 96 ? 1 : 2);
                uint8_t type = (uint8_t)(slope | (sy_rng_below(r, 4) << 2));
                if (sy_rng_below(r, 4) == 0) { /* a quad stored as two triangles */
                    uint8_t t0[3] = {c[0], c[1], c[2]}, t1[3] = {c[0], c[2], c[3]};
                    const uint8_t *tri[2] = {t0, t1};
                    for (int s = 0; s < 2; s++) {
                        col_face *o = &f[k++];
                        memcpy(o->v, tri[s], 3);
                        o->v[3] = 0, o->quad = 0, o->type = type;
                        int32_t zl = INT32_MAX, zh = INT32_MIN;
                        for (int e = 0; e < 3; e++) {
                            int32_t zz = zq[(size_t)(2 * j + tri[s][e] / 3) * nw +
                                            (size_t)(2 * i + tri[s][e] % 3)];
                            zl = zz < zl ? zz : zl, zh = zz > zh ? zz : zh;
                        }
                        o->zlo = zl, o->zhi = zh;
                    }
                } else {
                    col_face *o = &f[k++];
                    memcpy(o->v, c, 4);
                    o->quad = 1, o->type = type, o->zlo = lo, o->zhi = hi;
                }
                int32_t k0 = (int32_t)floordiv(lo, COL_Z_PER_CELL),
                        k1 = (int32_t)floordiv(hi, COL_Z_PER_CELL);
                kz_lo = k0 < kz_lo ? k0 : kz_lo, kz_hi = k1 > kz_hi ? k1 : kz_hi;
            }
            nf[(size_t)j * w + i] = k;
        }
    int rc = 0;
    for (int32_t kz = kz_lo; kz <= kz_hi && rc == 0; kz++)
        for (int j = 0; j < h && rc == 0; j++)
            for (int i = 0; i < w && rc == 0; i++) {
                const col_face *f = faces + ((size_t)j * w + i) * COL_MAX_FACES;
                int32_t zc0 = kz * COL_Z_PER_CELL;
                uint8_t pick[COL_MAX_FACES], np = 0, nq = 0;
                for (uint8_t k = 0; k < nf[(size_t)j * w + i]; k++)
                    if (f[k].zhi >= zc0 && f[k].zlo < zc0 + COL_Z_PER_CELL)
                        pick[np++] = k, nq += f[k].quad;
                if (np == 0)
                    continue;
                /* vertex list: the nodes the picked faces use, in node order */
                int8_t slot[COL_MAX_VERTS];
                memset(slot, -1, sizeof slot);
                uint8_t nv = 0;
                for (uint8_t p = 0; p < np; p++)
                    for (int e = 0; e < (f[pick[p]].quad ? 4 : 3); e++)
                        slot[f[pick[p]].v[e]] = 0;
                col_cell cell;
                memset(&cell, 0, sizeof cell);
                cell.x = cx0 + i, cell.y = cy0 + j, cell.z = kz;
                uint8_t *d = cell.data;
                size_t at = 4;
                for (int n = 0; n < COL_MAX_VERTS; n++) {
                    if (slot[n] < 0)
                        continue;
                    slot[n] = (int8_t)nv++;
                    /* relative to the cell centre: x, y in 1/16 unit, z in 1/64 unit */
                    int32_t rx = ((n % 3) * 2 - 2) * 16, ry = ((n / 3) * 2 - 2) * 16;
                    int32_t rz = zq[(size_t)(2 * j + n / 3) * nw + (size_t)(2 * i + n % 3)] -
                                 (zc0 + COL_Z_PER_CELL / 2);
                    if (rz < -2048 || rz > 2047) { /* 12 bits: a cliff no cell can store */
                        free(faces), free(nf);
                        return -1;
                    }
                    put_u32(d + at, ((uint32_t)rx & 0x3FFu) | ((uint32_t)ry & 0x3FFu) << 10 |
                                        ((uint32_t)rz & 0xFFFu) << 20);
                    at += 4;
                }
                for (int pass = 1; pass >= 0; pass--) /* quads first, then triangles */
                    for (uint8_t p = 0; p < np; p++) {
                        const col_face *o = &f[pick[p]];
                        if (o->quad != pass)
                            continue;
                        d[at + 0] = (uint8_t)slot[o->v[0]];
                        d[at + 1] = (uint8_t)slot[o->v[1]];
                        d[at + 2] = (uint8_t)slot[o->v[2]];
                        d[at + 3] = o->type;
                        at += 4;
                    }
                for (uint8_t p = 0; p < np; p++) /* v3 of each quad, in face order */
                    if (f[pick[p]].quad)
                        d[at++] = (uint8_t)slot[f[pick[p]].v[3]];
                put_u16(d + 0, np);
                d[2] = nv;
                d[3] = nq;
                cell.bytes = (uint16_t)at;
                rc = push_cell(m, &cell);
            }
    free(faces), free(nf);
    return rc;
}

/* The tree over m's cells (z, y, x order), then the cells; appended to out at its length. */
static int write_tree(sy_buf *out, const col_mesh *m)
{
    size_t base = out->len;
    int32_t z0 = m->cell[0].z, z1 = m->cell[m->n - 1].z;
    uint32_t zc = (uint32_t)(z1 - z0 + 1);
    /* per z slab: first/last cell index, y range; per (z, y) row: x range */
    size_t *zfirst = malloc(sizeof *zfirst * (zc + 1));
    if (!zfirst)
        return -1;
    for (uint32_t z = 0, k = 0; z <= zc; z++) {
        while (k < m->n && m->cell[k].z < z0 + (int32_t)z)
            k++;
        zfirst[z] = k;
    }
    /* root */
    size_t at = 4 + 2 * (size_t)zc;
    at = (at + 3) / 4 * 4;
    size_t root = at;
    /* z nodes */
    size_t *znode = calloc(zc, sizeof *znode);
    if (!znode) {
        free(zfirst);
        return -1;
    }
    for (uint32_t z = 0; z < zc; z++) {
        if (zfirst[z] == zfirst[z + 1])
            continue;
        znode[z] = at;
        int32_t y0 = m->cell[zfirst[z]].y, y1 = m->cell[zfirst[z + 1] - 1].y;
        at += 4 + 4 * (size_t)(y1 - y0 + 1);
    }
    /* y nodes: one per non-empty (z, y) row */
    size_t ynodes = at;
    size_t rows = 0;
    for (size_t k = 0; k < m->n; k++)
        if (k == 0 || m->cell[k].y != m->cell[k - 1].y || m->cell[k].z != m->cell[k - 1].z)
            rows++;
    size_t *rowat = malloc(sizeof *rowat * (rows + 1)),
           *rowfirst = malloc(sizeof *rowfirst * (rows + 1));
    if (!rowat || !rowfirst) {
        free(zfirst), free(znode), free(rowat), free(rowfirst);
        return -1;
    }
    size_t nr = 0;
    for (size_t k = 0; k < m->n; k++)
        if (k == 0 || m->cell[k].y != m->cell[k - 1].y || m->cell[k].z != m->cell[k - 1].z)
            rowfirst[nr++] = k;
    rowfirst[nr] = m->n;
    for (size_t q = 0; q < nr; q++) {
        rowat[q] = at;
        int32_t x0 = m->cell[rowfirst[q]].x, x1 = m->cell[rowfirst[q + 1] - 1].x;
        at += 4 + 4 * (size_t)(x1 - x0 + 1);
    }
    (void)ynodes;
    size_t cells_at = (at + 15) / 16 * 16;
    size_t total = cells_at;
    for (size_t k = 0; k < m->n; k++)
        total += (m->cell[k].bytes + 15u) / 16u * 16u;
    int rc = -1;
    if (sy_buf_reserve(out, total) != 0 || total > 0xFFFFFFu /* cell offsets are 24 bits */)
        goto done;
    sy_buf_zero(out, total);
    uint8_t *g = out->data + base;
    put_u16(g + 0, (uint16_t)(int16_t)z0);
    put_u16(g + 2, (uint16_t)zc);
    for (uint32_t z = 0; z < zc; z++) {
        if (!znode[z])
            continue;
        if (znode[z] / 4 > 0xFFFF) /* z offsets are u16 in 4-byte units */
            goto done;
        put_u16(g + 4 + 2 * z, (uint16_t)(znode[z] / 4));
        int32_t y0 = m->cell[zfirst[z]].y, y1 = m->cell[zfirst[z + 1] - 1].y;
        put_u16(g + znode[z], (uint16_t)(int16_t)y0);
        put_u16(g + znode[z] + 2, (uint16_t)(y1 - y0 + 1));
    }
    size_t cat = cells_at;
    for (size_t q = 0; q < nr; q++) {
        const col_cell *first = &m->cell[rowfirst[q]];
        uint32_t z = (uint32_t)(first->z - z0);
        int32_t y0 = m->cell[zfirst[z]].y;
        put_u32(g + znode[z] + 4 + 4 * (size_t)(first->y - y0), (uint32_t)rowat[q]);
        int32_t x0 = first->x, x1 = m->cell[rowfirst[q + 1] - 1].x;
        put_u16(g + rowat[q], (uint16_t)(int16_t)x0);
        put_u16(g + rowat[q] + 2, (uint16_t)(x1 - x0 + 1));
        for (size_t k = rowfirst[q]; k < rowfirst[q + 1]; k++) {
            const col_cell *c = &m->cell[k];
            uint32_t qw = (c->bytes + 15u) / 16u;
            memcpy(g + cat, c->data, c->bytes);
            put_u32(g + rowat[q] + 4 + 4 * (size_t)(c->x - x0), (uint32_t)cat << 8 | qw);
            cat += 16u * qw;
        }
    }
    (void)root;
    rc = 0;
done:
    free(zfirst), free(znode), free(rowat), free(rowfirst);
    return rc;
}

/* Cells of one rectangle; returns the mesh size in bytes, or 0 on failure. */
static size_t mesh_for(col_mesh *m, const sy_terrain *t, int32_t cx0, int32_t cy0, int w, int h,
                       uint64_t rng_state)
{
    int nw = 2 * w + 1, nh = 2 * h + 1;
    int32_t *zq = malloc(sizeof *zq * (size_t)nw * (size_t)nh);
    if (!zq)
        return 0;
    for (int b = 0; b < nh; b++)
        for (int a = 0; a < nw; a++) {
            int64_t x = (int64_t)cx0 * COL_CELL_UNITS * 1024 + (int64_t)a * COL_STEP_1024;
            int64_t y = (int64_t)cy0 * COL_CELL_UNITS * 1024 + (int64_t)b * COL_STEP_1024;
            /* 1/1024 units to the 1/64 z resolution, rounded */
            zq[(size_t)b * nw + a] = (int32_t)floordiv(sy_terrain_height(t, x, y) + 8, 16);
        }
    sy_rng r = {rng_state};
    m->n = 0;
    int rc = build_cells(m, zq, cx0, cy0, w, h, &r);
    free(zq);
    if (rc != 0 || m->n == 0)
        return 0;
    size_t bytes = 64; /* tree estimate: nodes are small next to the cells */
    for (size_t k = 0; k < m->n; k++)
        bytes += (m->cell[k].bytes + 15u) / 16u * 16u + 4;
    return bytes;
}

int sy_collision_write(sy_buf *out, size_t target, const sy_terrain *t, int area, sy_rng *r)
{
    size_t base = out->len;
    /* Cells that lie over fully covered patch rows, one cell in from the edge. */
    int32_t tx0 = (int32_t)floordiv(t->x0, 4096) + 1, tx1 = (int32_t)floordiv(t->x1, 4096) - 1;
    int32_t ty0 = (int32_t)floordiv(t->y0, 4096) + 1, ty1 = (int32_t)floordiv(t->y1_full, 4096) - 1;
    if (tx1 - tx0 < 4 || ty1 - ty0 < 4 || target < COL_HEADER_BYTES + 0x400)
        return -1;
    /* A square of columns sized for the target (about 1.35 cells of 64 bytes per column),
     * then re-fitted once to the size it actually takes. */
    size_t cols = (target - COL_HEADER_BYTES) / 86;
    int w = 2, h = 2;
    while ((size_t)(w + 1) * (size_t)(w + 1) <= cols)
        w++;
    if (w > tx1 - tx0)
        w = tx1 - tx0;
    h = (int)(cols / (size_t)w);
    if (h > ty1 - ty0)
        h = ty1 - ty0;
    if (h < 2)
        h = 2;
    uint64_t state = sy_rng_next(r);
    col_mesh m = {NULL, 0, 0};
    int32_t cx0 = 0, cy0 = 0;
    size_t bytes = 0;
    for (int pass = 0; pass < 3; pass++) {
        /* area 0 (the core) in the middle of the terrain, chunks 1 and 2 in opposite corners */
        cx0 = area == 0 ? tx0 + (tx1 - tx0 - w) / 2 : area == 1 ? tx0 : tx1 - w;
        cy0 = area == 0 ? ty0 + (ty1 - ty0 - h) / 2 : area == 1 ? ty0 : ty1 - h;
        bytes = mesh_for(&m, t, cx0, cy0, w, h, state);
        if (bytes == 0) {
            free(m.cell);
            return -1;
        }
        if (COL_HEADER_BYTES + bytes <= target || h <= 2)
            break;
        int nh = (int)((uint64_t)h * (target - COL_HEADER_BYTES) / (COL_HEADER_BYTES + bytes));
        h = nh < 2 ? 2 : nh;
    }
    sy_buf_zero(out, COL_HEADER_BYTES);
    int rc = out->failed ? -1 : write_tree(out, &m);
    free(m.cell);
    if (rc != 0)
        return -1;
    uint8_t *hd = out->data + base;
    put_u32(hd + 0, COL_HEADER_BYTES); /* mesh */
    put_u32(hd + 4, 0);                /* hero_groups: none */
    if (out->len - base < target)      /* zero padding up to the region's size */
        sy_buf_zero(out, target - (out->len - base));
    return out->failed ? -1 : 0;
}
