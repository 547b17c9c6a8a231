/* SPDX-License-Identifier: MIT */
/* The collision decoder: the collision block at core header 0x14 (in
 * decompressed core_data, up to the next known start) and the collision
 * blob of every chunk extent (ChunkHeader +4, a WAD-LZ stream), read the way
 * Wrench's read_collision reads them (src/engine/collision.cpp;
 * docs/formats/collision.md):
 *
 *   header {s32 mesh, s32 hero_groups}; at mesh a z/y/x tree of cells:
 *   root {s16 z_coord, u16 z_count, u16 z_offsets[] (4-byte units)},
 *   z node {s16 y_coord, u16 y_count, u32 y_offsets[] (bytes)},
 *   y node {s16 x_coord, u16 x_count, u32 entries[] (offset << 8 | qwords)},
 *   cell {u16 face_count, u8 vertex_count, u8 quad_count, u32 vertices[],
 *         {u8 v0, v1, v2, type} faces[], u8 v3[quad_count]}
 *
 * All offsets relative to the mesh; 0 means empty. The first quad_count
 * faces are quads whose fourth index follows the faces. A vertex packs x, y
 * (10 bits, 1/16 unit) and z (12 bits, 1/64 unit) relative to its cell's
 * centre, (coord x 4 + 2) world units on each axis. Published as
 * collision.mesh (one row per block) and collision.cell (one row per cell).
 * Faces and vertices are checked per cell in C and summed into the cell's
 * columns rather than published one row each: a retail corpus has about
 * 1.7 million faces and 3.1 million packed vertices, and rows for them would
 * double the decode time (docs/performance.md). Hero groups (hero_groups !=
 * 0) bound the mesh but are not decoded: no corpus here has any. */
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "gc_level.h"
#include "gc_lz.h"
#include "gc_reader.h"

#define COL_HEADER_BYTES   8u
#define COL_CELL_UNITS     4.0f
#define CHUNK_HEADER_BYTES 8u /* {s32 tfrags, s32 collision} */
#define CHUNK_SLOTS        3
/* The WAD-LZ output bound: one 4-byte packet can emit at most 288 bytes. */
#define LZ_OUT_PER_IN 72u
#define LZ_FIRST_CAP  0x40000u
/* A chunk's collision is ~0.1-1 MB on retail; no mesh needs more than this. */
#define COL_MAX_BYTES (64u << 20)

typedef struct col_mesh_row {
    uint64_t file_ofs;
    uint8_t chunk;
    uint8_t in_core;
    uint64_t block_bytes;
    int32_t mesh_offset;
    int32_t hero_groups_offset;
    uint64_t mesh_bytes;
    int16_t z_coord;
    uint16_t z_count;
    uint8_t tree_ok;
    uint64_t tree_end;
    uint32_t cells;
    uint32_t faces;
    uint32_t quads;
    uint32_t vertices;
    float min_x, max_x, min_y, max_y, min_z, max_z;
} col_mesh_row;

static const gc_column mesh_cols[] = {
    GC_COL(col_mesh_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "core: offset of the block in core_data; chunk: file offset of its WAD-LZ stream"),
    GC_COL(col_mesh_row, chunk, GC_T_U8, 0, "", "chunk slot (0 for the core's own collision)"),
    GC_COL(col_mesh_row, in_core, GC_T_BOOL, 0, "",
           "the block is core header 0x14's, in core_data (else a chunk extent's)"),
    GC_COL(col_mesh_row, block_bytes, GC_T_U64, 0, "bytes",
           "core: to the next known core_data start; chunk: decompressed size"),
    GC_COL(col_mesh_row, mesh_offset, GC_T_S32, GC_CF_HEX, "bytes in block", "+0x0"),
    GC_COL(col_mesh_row, hero_groups_offset, GC_T_S32, GC_CF_HEX, "bytes in block",
           "+0x4 (0 = no hero groups)"),
    GC_COL(col_mesh_row, mesh_bytes, GC_T_U64, 0, "bytes",
           "the mesh: to hero_groups if non-zero, else to the block's end"),
    GC_COL(col_mesh_row, z_coord, GC_T_S16, 0, "cells", "root +0x0: first z slab"),
    GC_COL(col_mesh_row, z_count, GC_T_U16, 0, "count", "root +0x2"),
    GC_COL(col_mesh_row, tree_ok, GC_T_BOOL, 0, "",
           "every node and offset array lies in the mesh and the walk stayed within its size"),
    GC_COL(col_mesh_row, tree_end, GC_T_U64, GC_CF_HEX, "bytes in mesh",
           "end of the last node byte read (cells come after it)"),
    GC_COL(col_mesh_row, cells, GC_T_U32, 0, "count", "collision.cell rows"),
    GC_COL(col_mesh_row, faces, GC_T_U32, 0, "count", "faces of the cells inside the mesh"),
    GC_COL(col_mesh_row, quads, GC_T_U32, 0, "count", "of those, quads"),
    GC_COL(col_mesh_row, vertices, GC_T_U32, 0, "count",
           "packed vertices of the cells inside the mesh (each cell keeps its own copies)"),
    GC_COL(col_mesh_row, min_x, GC_T_F32, 0, "world units",
           "west face of the westmost cell that holds vertices (0 if none): 4 x cell x"),
    GC_COL(col_mesh_row, max_x, GC_T_F32, 0, "world units", "east face: 4 x (cell x + 1)"),
    GC_COL(col_mesh_row, min_y, GC_T_F32, 0, "world units", "4 x the smallest cell y"),
    GC_COL(col_mesh_row, max_y, GC_T_F32, 0, "world units", "4 x (the largest cell y + 1)"),
    GC_COL(col_mesh_row, min_z, GC_T_F32, 0, "world units", "4 x the smallest cell z (z is up)"),
    GC_COL(col_mesh_row, max_z, GC_T_F32, 0, "world units", "4 x (the largest cell z + 1)"),
};

static const gc_table_desc gc_table_collision_mesh = {
    .name = "collision.mesh",
    .doc = "One row per collision block: the core's and each chunk's.",
    .row_size = sizeof(col_mesh_row),
    .columns = mesh_cols,
    .column_count = GC_COUNTOF(mesh_cols),
};

typedef struct col_cell_row {
    uint64_t file_ofs;
    uint32_t mesh_row;
    uint32_t index;
    int32_t x, y, z;
    uint32_t cell_offset;
    uint8_t size_qwords;
    uint16_t face_count;
    uint8_t vertex_count;
    uint8_t quad_count;
    uint32_t bytes_needed;
    uint8_t inside;
    uint16_t max_vertex_index;
    uint16_t faces_outside;
} col_cell_row;

static const gc_column cell_cols[] = {
    GC_COL(col_cell_row, file_ofs, GC_T_U64, GC_CF_HEX,
           "bytes in core_data or the decompressed chunk collision", "offset of the cell"),
    GC_COL(col_cell_row, mesh_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", "parent collision.mesh row"),
    GC_COL(col_cell_row, index, GC_T_U32, 0, "", "cell number in tree order (z, y, x)"),
    GC_COL(col_cell_row, x, GC_T_S32, 0, "cells", "x_coord + index in its y node"),
    GC_COL(col_cell_row, y, GC_T_S32, 0, "cells", "y_coord + index in its z node"),
    GC_COL(col_cell_row, z, GC_T_S32, 0, "cells", "z_coord + index in the root"),
    GC_COL(col_cell_row, cell_offset, GC_T_U32, GC_CF_HEX, "bytes in mesh",
           "x entry >> 8: where the cell is"),
    GC_COL(col_cell_row, size_qwords, GC_T_U8, 0, "qwords", "x entry & 0xff: the cell's size"),
    GC_COL(col_cell_row, face_count, GC_T_U16, 0, "count", "cell +0x0: faces, quads included"),
    GC_COL(col_cell_row, vertex_count, GC_T_U8, 0, "count", "cell +0x2"),
    GC_COL(col_cell_row, quad_count, GC_T_U8, 0, "count", "cell +0x3: the first faces are quads"),
    GC_COL(col_cell_row, bytes_needed, GC_T_U32, 0, "bytes",
           "4 + 4 x vertex_count + 4 x face_count + quad_count"),
    GC_COL(col_cell_row, inside, GC_T_BOOL, 0, "",
           "the cell starts after the tree and its bytes_needed end inside the mesh"),
    GC_COL(col_cell_row, max_vertex_index, GC_T_U16, GC_CF_NULL_IF_MAX, "",
           "largest vertex index of the cell's faces (v0..v2, and v3 of the quads); null "
           "without faces or when the cell is not inside"),
    GC_COL(col_cell_row, faces_outside, GC_T_U16, 0, "count",
           "faces whose vertices' box misses the +-2-unit cube around the cell centre their "
           "vertices are packed against (indices past the vertex list are left out of the box)"),
};

static const gc_table_desc gc_table_collision_cell = {
    .name = "collision.cell",
    .doc = "One row per 4x4x4 collision cell (octant), in tree order.",
    .row_size = sizeof(col_cell_row),
    .columns = cell_cols,
    .column_count = GC_COUNTOF(cell_cols),
    .parent_table = "collision.mesh",
    .parent_link = "mesh",
    .parent_column = "mesh_row",
};

typedef struct col_walk {
    gc_level *lv;
    gc_diag *diag;
    gc_reader mesh;    /* the mesh window */
    uint64_t base_ofs; /* offset of the mesh in the stream the rows' file_ofs name */
    col_mesh_row *m;
    uint32_t mesh_row;
    uint64_t budget; /* node entries and cell bytes left before the walk is runaway */
    gc_rowbuf *cells;
} col_walk;

static void note_end(col_walk *w, uint64_t end)
{
    if (end > w->m->tree_end)
        w->m->tree_end = end;
}

/* Charge `n` units of work; false (and tree_ok cleared) once a well-formed mesh of this size
 * could not need more: shared or overlapping nodes would otherwise multiply the walk. */
static bool charge(col_walk *w, uint64_t n)
{
    if (n > w->budget) {
        w->m->tree_ok = 0;
        w->budget = 0;
        return false;
    }
    w->budget -= n;
    return true;
}

#if defined(__SSE2__)
/* The outcodes (below) of the four packed vertices at p, one byte each. */
static inline uint32_t outcodes4(const uint8_t *p)
{
    const __m128i lo_xy = _mm_set1_epi32(-32), hi_xy = _mm_set1_epi32(32);
    const __m128i lo_z = _mm_set1_epi32(-128), hi_z = _mm_set1_epi32(128);
    __m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i x = _mm_srai_epi32(_mm_slli_epi32(w, 22), 22); /* bits 0-9 */
    __m128i y = _mm_srai_epi32(_mm_slli_epi32(w, 12), 22); /* bits 10-19 */
    __m128i z = _mm_srai_epi32(w, 20);                     /* bits 20-31 */
    __m128i k = _mm_and_si128(_mm_cmplt_epi32(x, lo_xy), _mm_set1_epi32(1));
    k = _mm_or_si128(k, _mm_and_si128(_mm_cmpgt_epi32(x, hi_xy), _mm_set1_epi32(2)));
    k = _mm_or_si128(k, _mm_and_si128(_mm_cmplt_epi32(y, lo_xy), _mm_set1_epi32(4)));
    k = _mm_or_si128(k, _mm_and_si128(_mm_cmpgt_epi32(y, hi_xy), _mm_set1_epi32(8)));
    k = _mm_or_si128(k, _mm_and_si128(_mm_cmplt_epi32(z, lo_z), _mm_set1_epi32(16)));
    k = _mm_or_si128(k, _mm_and_si128(_mm_cmpgt_epi32(z, hi_z), _mm_set1_epi32(32)));
    k = _mm_packs_epi32(k, k); /* 0..63: no saturation */
    k = _mm_packus_epi16(k, k);
    return (uint32_t)_mm_cvtsi128_si32(k);
}

/* 16 zero bytes then 16 0xFF: the 16 bytes at tail_mask + r have their last r lanes set. */
static const uint8_t tail_mask[32] = {
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
#endif

static void read_faces(col_walk *w, col_cell_row *cp);

static gc_status read_cell(col_walk *w, int32_t x, int32_t y, int32_t z, uint32_t entry)
{
    col_cell_row c;
    memset(&c, 0, sizeof c);
    c.mesh_row = w->mesh_row;
    c.index = w->m->cells;
    c.x = x, c.y = y, c.z = z;
    /* Historical misreading: the whole entry taken as the cell offset. */
    c.cell_offset = GC_FAULT(w->lv, collision_cell_word) ? entry : entry >> 8;
    c.size_qwords = (uint8_t)(entry & 0xFFu);
    c.file_ofs = w->base_ofs + c.cell_offset;
    c.max_vertex_index = UINT16_MAX;
    const uint64_t n = w->mesh.size;
    if ((uint64_t)c.cell_offset + 4 <= n) { /* the 4-byte cell header is inside the mesh */
        const uint8_t *h = w->mesh.data + c.cell_offset;
        c.face_count = gc_load_u16le(h); /* +0x0 */
        c.vertex_count = h[2];           /* +0x2 */
        c.quad_count = h[3];             /* +0x3 */
        c.bytes_needed = 4u + 4u * c.vertex_count + 4u * c.face_count + c.quad_count;
        c.inside = c.cell_offset >= w->m->tree_end && (uint64_t)c.cell_offset + c.bytes_needed <= n;
    }
    w->m->cells++;
    if (c.inside && charge(w, c.bytes_needed))
        read_faces(w, &c);
    col_cell_row *cr = GC_ROWS_PUSH(w->cells, col_cell_row);
    if (!cr)
        return gc_diag_set(w->diag, GC_E_NOMEM, 0, "no memory for collision.cell");
    *cr = c;
    return GC_OK;
}

/* The vertices and faces of a cell that lies inside the mesh: the mesh's bounds and totals,
 * and the cell's largest face index and faces that miss it. Integer math throughout: x and y
 * in 1/16 unit, z in 1/64 unit, relative to the cell centre (the cube is +-2 units = +-32 in x,
 * y and +-128 in z). A face's vertex box misses the cube exactly when all its vertices lie
 * beyond the same face of the cube: the AND of their outcodes is non-zero. */
static void read_faces(col_walk *w, col_cell_row *cp)
{
    const col_cell_row c = *cp;
    const uint8_t *d = w->mesh.data + c.cell_offset; /* [cell, cell + bytes_needed): inside */
    uint8_t code[256];
    const uint8_t *v = d + 4;
    uint32_t i0 = 0;
#if defined(__SSE2__)
    /* Four vertices at a time: every outcode bit computed (a vertex in the
     * cube gets 0, as below), then narrowed to bytes. The scalar loop was
     * ~22 instructions a vertex, 3.1 M vertices a retail-corpus decode. A
     * list of four or more that is not a multiple of four ends with the last
     * four vertices again (their codes rewritten with the same values) rather
     * than the scalar loop. */
    for (; i0 + 4 <= c.vertex_count; i0 += 4) {
        uint32_t four = outcodes4(v + 4 * i0);
        memcpy(code + i0, &four, 4);
    }
    if (i0 < c.vertex_count && c.vertex_count >= 4) {
        i0 = c.vertex_count - 4u;
        uint32_t four = outcodes4(v + 4 * i0);
        memcpy(code + i0, &four, 4);
        i0 = c.vertex_count;
    }
#endif
    for (uint32_t i = i0; i < c.vertex_count; i++) {
        uint32_t p = gc_load_u32le(v + 4 * i);
        int32_t x = (int32_t)(p << 22) >> 22; /* bits 0-9, 1/16 unit */
        int32_t y = (int32_t)(p << 12) >> 22; /* bits 10-19, 1/16 unit */
        int32_t z = (int32_t)p >> 20;         /* bits 20-31, 1/64 unit */
        /* most vertices lie in the cube: one unsigned range test per axis */
        code[i] = (uint32_t)(x + 32) <= 64 && (uint32_t)(y + 32) <= 64 && (uint32_t)(z + 128) <= 256
                      ? 0
                      : (uint8_t)((x < -32) | (x > 32) << 1 | (y < -32) << 2 | (y > 32) << 3 |
                                  (z < -128) << 4 | (z > 128) << 5);
    }
    /* The block's bounds: the cubes of the cells that hold vertices. */
    col_mesh_row *m = w->m;
    if (c.vertex_count) {
        float b[6] = {(float)c.x * COL_CELL_UNITS, (float)(c.x + 1) * COL_CELL_UNITS,
                      (float)c.y * COL_CELL_UNITS, (float)(c.y + 1) * COL_CELL_UNITS,
                      (float)c.z * COL_CELL_UNITS, (float)(c.z + 1) * COL_CELL_UNITS};
        if (m->vertices == 0) {
            m->min_x = b[0], m->max_x = b[1], m->min_y = b[2], m->max_y = b[3];
            m->min_z = b[4], m->max_z = b[5];
        } else {
            m->min_x = b[0] < m->min_x ? b[0] : m->min_x;
            m->max_x = b[1] > m->max_x ? b[1] : m->max_x;
            m->min_y = b[2] < m->min_y ? b[2] : m->min_y;
            m->max_y = b[3] > m->max_y ? b[3] : m->max_y;
            m->min_z = b[4] < m->min_z ? b[4] : m->min_z;
            m->max_z = b[5] > m->max_z ? b[5] : m->max_z;
        }
        m->vertices += c.vertex_count;
    }
    /* Faces {v0, v1, v2, type}; the quads (the first quad_count) take their fourth index
     * from the bytes after the faces, one per quad in face order. */
    const uint8_t *f = v + 4u * c.vertex_count, *q = f + 4u * c.face_count;
    const uint32_t nq = c.quad_count < c.face_count ? c.quad_count : c.face_count;
    uint8_t maxv = 0;
    uint16_t outside = 0;
    uint32_t fi = 0, qi = 0;
#if defined(__SSE2__)
    /* The largest index: four faces (16 bytes, each type byte masked to 0) and sixteen quad
     * indices at a time, one byte lane per index. The byte-by-byte loops were ~25 instructions
     * a face (1.7 M faces a retail-corpus decode). Every load is inside the cell's
     * bytes_needed: fi + 4 <= face_count, qi + 16 <= nq. */
    {
        const __m128i idx = _mm_set1_epi32(0x00FFFFFF);
        __m128i mx = _mm_setzero_si128();
        for (; fi + 4 <= c.face_count; fi += 4)
            mx = _mm_max_epu8(
                mx,
                _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(f + 4 * fi)), idx));
        for (; qi + 16 <= nq; qi += 16)
            mx = _mm_max_epu8(mx, _mm_loadu_si128((const __m128i *)(const void *)(q + qi)));
        /* The rest (< 4 faces, < 16 quad indices): the 16 bytes that end where they end, the
         * lanes before them masked off, when those bytes start inside the cell (the faces at
         * f - d, the quads' indices at q - d). The faces' 16 bytes end on a face boundary, so
         * each dword is a face and its type byte is lane 3 as above. */
        const size_t fr = c.face_count - fi, qr = nq - qi;
        if (fr && (size_t)(f - d) + 4u * c.face_count >= 16) {
            __m128i b =
                _mm_loadu_si128((const __m128i *)(const void *)(f + 4u * c.face_count - 16));
            __m128i k = _mm_loadu_si128((const __m128i *)(const void *)(tail_mask + 4 * fr));
            mx = _mm_max_epu8(mx, _mm_and_si128(b, _mm_and_si128(k, idx)));
            fi = c.face_count;
        }
        if (qr && (size_t)(q - d) + nq >= 16) {
            __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(q + nq - 16));
            __m128i k = _mm_loadu_si128((const __m128i *)(const void *)(tail_mask + qr));
            mx = _mm_max_epu8(mx, _mm_and_si128(b, k));
            qi = nq;
        }
        mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 8));
        mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 4));
        mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 2));
        mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 1));
        maxv = (uint8_t)_mm_cvtsi128_si32(mx);
    }
#endif
    for (; fi < c.face_count; fi++) {
        uint8_t k = f[4 * fi] > f[4 * fi + 1] ? f[4 * fi] : f[4 * fi + 1];
        k = f[4 * fi + 2] > k ? f[4 * fi + 2] : k;
        maxv = k > maxv ? k : maxv;
    }
    for (; qi < nq; qi++)
        maxv = q[qi] > maxv ? q[qi] : maxv;
    if (maxv >= c.vertex_count) /* an index past the list (its own invariant): out of the box */
        memset(code + c.vertex_count, 0x3F, 256u - c.vertex_count);
    /* A face's three indices from one 4-byte load; the quads (the first nq faces) in a loop of
     * their own, so neither loop tests i < nq. */
    uint32_t i = 0;
    for (; i < nq; i++) {
        const uint32_t e = gc_load_u32le(f + 4 * i);
        const uint8_t out =
            code[e & 0xFFu] & code[e >> 8 & 0xFFu] & code[e >> 16 & 0xFFu] & code[q[i]];
        outside += out != 0;
    }
    for (; i < c.face_count; i++) {
        const uint32_t e = gc_load_u32le(f + 4 * i);
        const uint8_t out = code[e & 0xFFu] & code[e >> 8 & 0xFFu] & code[e >> 16 & 0xFFu];
        outside += out != 0;
    }
    m->faces += c.face_count;
    m->quads += nq;
    cp->max_vertex_index = c.face_count ? maxv : UINT16_MAX;
    cp->faces_outside = outside;
}

/* Walk the z/y/x tree of the mesh window. */
static gc_status walk_tree(col_walk *w)
{
    col_mesh_row *m = w->m;
    const uint64_t n = w->mesh.size;
    m->tree_ok = 1;
    if (n < 4) {
        m->tree_ok = 0;
        return GC_OK;
    }
    gc_reader root = w->mesh;
    m->z_coord = gc_s16le(&root);
    m->z_count = gc_u16le(&root);
    if (4 + 2 * (uint64_t)m->z_count > n) {
        m->tree_ok = 0;
        return GC_OK;
    }
    note_end(w, 4 + 2 * (uint64_t)m->z_count);
    gc_reader zr = gc_window(&w->mesh, 4, 2u * m->z_count);
    uint64_t entries = 0; /* x entries of the y nodes the cell pass will walk */
    for (uint32_t z = 0; z < m->z_count; z++) {
        uint64_t zo = 4u * (uint64_t)gc_u16le(&zr); /* 4-byte units */
        if (zo == 0)
            continue;
        if (zo + 4 > n) {
            m->tree_ok = 0;
            continue;
        }
        gc_reader zn = gc_window(&w->mesh, (size_t)zo + 2, 2);
        uint16_t y_count = gc_u16le(&zn); /* +0x2; y_coord at +0x0 is read in the cell pass */
        if (zo + 4 + 4u * (uint64_t)y_count > n || !charge(w, y_count)) {
            m->tree_ok = 0;
            continue;
        }
        note_end(w, zo + 4 + 4u * (uint64_t)y_count);
        gc_reader yr = gc_window(&w->mesh, (size_t)zo + 4, 4u * y_count);
        for (uint32_t y = 0; y < y_count; y++) {
            uint64_t yo = gc_u32le(&yr);
            if (yo == 0)
                continue;
            if (yo + 4 > n) {
                m->tree_ok = 0;
                continue;
            }
            gc_reader yn = gc_window(&w->mesh, (size_t)yo + 2, 2);
            uint16_t x_count = gc_u16le(&yn); /* +0x2 */
            if (yo + 4 + 4u * (uint64_t)x_count > n || !charge(w, x_count)) {
                m->tree_ok = 0;
                continue;
            }
            note_end(w, yo + 4 + 4u * (uint64_t)x_count);
            entries += x_count;
        }
    }
    /* Every cell row comes from one of these entries (the empty ones make none): reserving
     * them once takes the rows in one allocation instead of doubling from 64 and copying
     * (~270 growths a retail-corpus decode). A hint only, capped at one row per 4 mesh bytes
     * (an entry's size: only shared nodes repeat entries); a refused reservation is no error
     * (the push that needs the memory reports it). */
    if (entries && w->cells)
        (void)gc_rows_reserve(w->cells,
                              w->cells->count + (size_t)(entries < n / 4 ? entries : n / 4));
    /* Cells come after every node: a second pass, once tree_end is known. */
    gc_reader zr2 = gc_window(&w->mesh, 4, 2u * m->z_count);
    for (uint32_t z = 0; z < m->z_count && w->budget; z++) {
        uint64_t zo = 4u * (uint64_t)gc_u16le(&zr2);
        if (zo == 0 || zo + 4 > n)
            continue;
        gc_reader zn = gc_window(&w->mesh, (size_t)zo, 4);
        int16_t y_coord = gc_s16le(&zn);
        uint16_t y_count = gc_u16le(&zn);
        if (zo + 4 + 4u * (uint64_t)y_count > n)
            continue;
        gc_reader yr = gc_window(&w->mesh, (size_t)zo + 4, 4u * y_count);
        for (uint32_t y = 0; y < y_count && w->budget; y++) {
            uint64_t yo = gc_u32le(&yr);
            if (yo == 0 || yo + 4 > n)
                continue;
            gc_reader yn = gc_window(&w->mesh, (size_t)yo, 4);
            int16_t x_coord = gc_s16le(&yn);
            uint16_t x_count = gc_u16le(&yn);
            if (yo + 4 + 4u * (uint64_t)x_count > n)
                continue;
            gc_reader xr = gc_window(&w->mesh, (size_t)yo + 4, 4u * x_count);
            for (uint32_t x = 0; x < x_count && w->budget; x++) {
                uint32_t e = gc_u32le(&xr);
                if ((e >> 8) == 0)
                    continue;
                gc_status s =
                    read_cell(w, (int32_t)x_coord + (int32_t)x, (int32_t)y_coord + (int32_t)y,
                              (int32_t)m->z_coord + (int32_t)z, e);
                if (s != GC_OK)
                    return s;
            }
        }
    }
    return GC_OK;
}

/* One collision block (`blk`, whose byte 0 sits at `base_ofs` of its stream). */
static gc_status read_block(gc_level *lv, gc_diag *diag, gc_reader blk, uint64_t base_ofs,
                            uint64_t row_ofs, uint8_t chunk, bool in_core)
{
    col_mesh_row m;
    memset(&m, 0, sizeof m);
    m.file_ofs = row_ofs;
    m.chunk = chunk;
    m.in_core = in_core;
    m.block_bytes = blk.size;
    gc_reader h = blk;
    m.mesh_offset = gc_s32le(&h);        /* +0x0 */
    m.hero_groups_offset = gc_s32le(&h); /* +0x4 */
    uint64_t end = blk.size;
    if (m.hero_groups_offset != 0)
        end = m.hero_groups_offset > 0 ? (uint64_t)m.hero_groups_offset : 0;
    col_walk w;
    memset(&w, 0, sizeof w);
    w.lv = lv, w.diag = diag, w.m = &m;
    w.mesh_row = (uint32_t)gc_level_rows(lv, &gc_table_collision_mesh)->count;
    w.cells = gc_level_rows(lv, &gc_table_collision_cell);
    gc_status s = GC_OK;
    if (h.overrun || m.mesh_offset < (int32_t)COL_HEADER_BYTES || (uint64_t)m.mesh_offset >= end ||
        end > blk.size) {
        m.tree_ok = 0;
    } else {
        m.mesh_bytes = end - (uint64_t)m.mesh_offset;
        w.mesh = gc_window(&blk, (size_t)m.mesh_offset, (size_t)m.mesh_bytes);
        w.base_ofs = base_ofs + (uint64_t)m.mesh_offset;
        w.budget = m.mesh_bytes; /* node entries and cell bytes are each at least a byte */
        s = walk_tree(&w);
    }
    col_mesh_row *row = gc_rows_push(gc_level_rows(lv, &gc_table_collision_mesh));
    if (!row)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for collision.mesh");
    *row = m;
    return s;
}

/* Inflate the chunk's collision stream; *out is malloc'd. */
static gc_status inflate(const gc_span *chunk, size_t at, uint8_t **out, size_t *len, gc_diag *diag)
{
    size_t stream = 0;
    const uint8_t *src = chunk->data + at;
    size_t avail = chunk->size - at;
    uint64_t ofs = chunk->file_ofs + at;
    gc_status s = gc_lz_stream_size(src, avail, ofs, &stream, diag);
    if (s != GC_OK)
        return s;
    uint64_t max = (uint64_t)stream * LZ_OUT_PER_IN;
    if (max > COL_MAX_BYTES)
        max = COL_MAX_BYTES;
    uint64_t cap = max < LZ_FIRST_CAP ? max : LZ_FIRST_CAP;
    for (;;) {
        uint8_t *buf = malloc(cap ? (size_t)cap : 1);
        if (!buf)
            return gc_diag_set(diag, GC_E_NOMEM, ofs, "no memory for %llu bytes of collision",
                               (unsigned long long)cap);
        size_t got = 0;
        s = gc_lz_decompress(src, avail, ofs, buf, (size_t)cap, &got, diag);
        if (s == GC_OK) {
            *out = buf;
            *len = got;
            return GC_OK;
        }
        free(buf);
        if (s != GC_E_RANGE || cap >= max)
            return s;
        gc_diag_clear(diag);
        cap = cap * 4 > max ? max : cap * 4;
    }
}

static gc_status collision_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->core_ok)
        return GC_NEEDS(diag, "the core header");
    if (!lv->data_ok)
        return GC_NEEDS(diag, "decompressed core_data");
    gc_diag_push(diag, "data/core_data/collision");
    int32_t at = lv->core.collision;
    if (at <= 0 || (uint64_t)at >= lv->core_data_size)
        return gc_diag_set(diag, GC_E_RANGE, 0,
                           "collision offset 0x%x is not inside core_data (%zu bytes)",
                           (unsigned)at, lv->core_data_size);
    uint64_t end = gc_core_next_start(lv, (uint64_t)at, lv->core_data_size);
    gc_reader cd = gc_reader_make(lv->core_data, lv->core_data_size, 0);
    gc_status s = read_block(lv, diag, gc_window(&cd, (size_t)at, (size_t)(end - (uint64_t)at)),
                             (uint64_t)at, (uint64_t)at, 0, true);
    if (s != GC_OK)
        return s;
    gc_diag_pop(diag);
    for (int k = 0; k < CHUNK_SLOTS; k++) {
        const gc_span *ch = &lv->chunks[k];
        if (!ch->present || ch->size < CHUNK_HEADER_BYTES)
            continue;
        gc_diag_push(diag, "chunk%d/collision", k);
        gc_reader h = gc_reader_make(ch->data, ch->size, ch->file_ofs);
        gc_skip(&h, 4);            /* +0x0 tfrags */
        int32_t co = gc_s32le(&h); /* +0x4 collision */
        if (co > 0) {
            if ((size_t)co >= ch->size)
                return gc_diag_set(diag, GC_E_RANGE, ch->file_ofs,
                                   "chunk %d collision offset 0x%x is past the extent", k,
                                   (unsigned)co);
            uint8_t *buf = NULL;
            size_t len = 0;
            s = inflate(ch, (size_t)co, &buf, &len, diag);
            if (s != GC_OK)
                return s;
            s = read_block(lv, diag, gc_reader_make(buf, len, 0), 0, ch->file_ofs + (uint64_t)co,
                           (uint8_t)k, false);
            free(buf);
            if (s != GC_OK)
                return s;
        }
        gc_diag_pop(diag);
    }
    return GC_OK;
}

static const gc_table_desc *const collision_tables[] = {&gc_table_collision_mesh,
                                                        &gc_table_collision_cell};

const gc_decoder gc_dec_collision = {
    .name = "collision",
    .doc = "collision of the core and every chunk: octree of 4x4x4 cells, faces and vertices",
    .tables = collision_tables,
    .table_count = GC_COUNTOF(collision_tables),
    .run = collision_run,
    .release = NULL,
};
