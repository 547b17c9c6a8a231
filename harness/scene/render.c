/* SPDX-License-Identifier: MIT */
/* Level -> frame: gathers tfrag geometry from the published tables (through
 * the descriptors only), places the named cameras, picks each patch's LOD
 * and morph weights, binds the decoded textures with their ad-gif wrap
 * modes and draws everything with the deterministic rasteriser. */
#include "gc_render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_raster.h"

#include "gc_bigmem.h"
#include "gc_lod.h"
#include "gc_ps2fpu.h"
#include "gc_reader.h"
#include "gc_texture.h"
#include "ps2fpu_core.h" /* the object lighting's short operations, inlined (same bodies) */

#define NONE         UINT32_MAX
#define MAX_INDEX    65536u /* per-patch position / vertex-info indices beyond this are ignored */
#define MAX_TEXTURES 4096u  /* texture indices beyond this draw untextured */
#define MAX_TEX_DIM  4096u

/* Background: a dark slate, distinct from any black terrain texel. */
static const uint8_t background[4] = {0x30, 0x38, 0x48, 0xFF};

static const char *const view_names[] = {"overview", "ground"};

int gc_render_view_names(const char *const **names)
{
    *names = view_names;
    return (int)(sizeof view_names / sizeof view_names[0]);
}

/* ---- reading rows through the descriptors ------------------------------- */

typedef struct colref {
    size_t ofs;
    gc_coltype type;
    unsigned flags;
    int ok;
} colref;

static const gc_table *find_table(const gc_table *ts, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (ts[i].desc && strcmp(ts[i].desc->name, name) == 0)
            return &ts[i];
    return NULL;
}

static colref find_col(const gc_table *t, const char *name)
{
    colref c = {0, GC_T_U8, 0, 0};
    if (!t)
        return c;
    for (size_t i = 0; i < t->desc->column_count; i++) {
        const gc_column *col = &t->desc->columns[i];
        if (strcmp(col->name, name) == 0 && col->type != GC_T_STR &&
            col->offset + col->size <= t->desc->row_size) {
            c.ofs = col->offset;
            c.type = col->type;
            c.flags = col->flags;
            c.ok = 1;
            break;
        }
    }
    return c;
}

static const uint8_t *row_at(const gc_table *t, size_t i)
{
    return (const uint8_t *)t->rows + i * t->desc->row_size;
}

/* Numeric value of a column as double (0 when the column is absent). */
static double get_f(const uint8_t *row, colref c)
{
    if (!c.ok)
        return 0.0;
    const uint8_t *p = row + c.ofs;
    switch (c.type) {
    case GC_T_BOOL:
    case GC_T_U8:
        return p[0];
    case GC_T_S8:
        return (int8_t)p[0];
    case GC_T_U16: {
        uint16_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    case GC_T_S16: {
        int16_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    case GC_T_U32: {
        uint32_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    case GC_T_S32: {
        int32_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    case GC_T_U64: {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        return (double)v;
    }
    case GC_T_S64: {
        int64_t v;
        memcpy(&v, p, sizeof v);
        return (double)v;
    }
    case GC_T_F32: {
        float v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    case GC_T_F64: {
        double v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    case GC_T_STR:
        break;
    }
    return 0.0;
}

/* A column as float, for coordinates. */
static float get_fl(const uint8_t *row, colref c)
{
    return (float)get_f(row, c);
}

/* An index column: NONE when absent, null (GC_CF_NULL_IF_MAX all-ones),
 * negative, fractional or too large to be an index. Integer columns are
 * read directly (this runs for every row of every tfrag table). */
static uint32_t get_index(const uint8_t *row, colref c)
{
    if (!c.ok)
        return NONE;
    const uint8_t *p = row + c.ofs;
    const int nullable = (c.flags & GC_CF_NULL_IF_MAX) != 0;
    uint64_t u;
    switch (c.type) {
    case GC_T_BOOL:
    case GC_T_U8:
        if (nullable && p[0] == UINT8_MAX)
            return NONE;
        u = p[0];
        break;
    case GC_T_U16: {
        uint16_t v;
        memcpy(&v, p, sizeof v);
        if (nullable && v == UINT16_MAX)
            return NONE;
        u = v;
        break;
    }
    case GC_T_U32: {
        uint32_t v;
        memcpy(&v, p, sizeof v);
        if (nullable && v == UINT32_MAX)
            return NONE;
        u = v;
        break;
    }
    case GC_T_U64: {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        if (nullable && v == UINT64_MAX)
            return NONE;
        u = v;
        break;
    }
    default: { /* signed and floating columns: through the double value */
        double d = get_f(row, c);
        if (!(d >= 0.0) || d >= 4294967295.0 || d != (double)(uint32_t)d)
            return NONE;
        return (uint32_t)d;
    }
    }
    return u >= UINT32_MAX ? NONE : (uint32_t)u;
}

/* ---- a column, a chunk of rows at a time -------------------------------- */

/* The scene reads a few columns of every row of the large tables (moby.vertex
 * alone has 100k rows on a retail level). Reading them a chunk at a time
 * hoists the column's type switch out of the row loop: each reader gives
 * exactly get_index / get_fl / get_f of the row, one loop per column type
 * the descriptors use, and the other types row by row through those. */
#define CHUNK 256 /* a multiple of 4: the triangle pass reads its arrays four at a time */

typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef int32_t i32x4 __attribute__((vector_size(16)));
_Static_assert(CHUNK % 4 == 0, "whole vectors in a chunk");

typedef struct chunk {
    size_t i0, n; /* rows i0 .. i0 + n - 1, n <= CHUNK */
} chunk;

static int next_chunk(const gc_table *t, chunk *ck)
{
    ck->i0 += ck->n;
    if (ck->i0 >= t->count)
        return 0;
    ck->n = t->count - ck->i0 < CHUNK ? t->count - ck->i0 : CHUNK;
    return 1;
}

#define FOR_CHUNKS(t, ck) for (chunk ck = {0, 0}; next_chunk((t), &ck);)

/* Each reader walks the column with a pointer stepping a row at a time, and
 * decides what does not change per row (the type, nullability) before its
 * loop, so the loop is a load, a conversion and a store. Unrolled four times:
 * otherwise the pointer step, the counter and the branch were twice the
 * load and store (~6 instructions a value, 0.7 G of the sweep's frames). */
#define COL_LOOP(T, base, stride, n, v, body)                                                      \
    do {                                                                                           \
        const uint8_t *q_ = (base);                                                                \
        _Pragma("GCC unroll 4") for (size_t k = 0; k < (n); k++, q_ += (stride))                   \
        {                                                                                          \
            T v;                                                                                   \
            memcpy(&v, q_, sizeof v);                                                              \
            body;                                                                                  \
        }                                                                                          \
    } while (0)

static void chunk_index(const gc_table *t, colref c, chunk ck, uint32_t *out)
{
    if (!c.ok) {
        for (size_t k = 0; k < ck.n; k++)
            out[k] = NONE;
        return;
    }
    const size_t rs = t->desc->row_size;
    const uint8_t *base = row_at(t, ck.i0) + c.ofs;
    const int nullable = (c.flags & GC_CF_NULL_IF_MAX) != 0;
    switch (c.type) {
    case GC_T_BOOL:
    case GC_T_U8:
        if (nullable)
            COL_LOOP(uint8_t, base, rs, ck.n, v, out[k] = v == UINT8_MAX ? NONE : v);
        else
            COL_LOOP(uint8_t, base, rs, ck.n, v, out[k] = v);
        return;
    case GC_T_U16:
        if (nullable)
            COL_LOOP(uint16_t, base, rs, ck.n, v, out[k] = v == UINT16_MAX ? NONE : v);
        else
            COL_LOOP(uint16_t, base, rs, ck.n, v, out[k] = v);
        return;
    case GC_T_U32:
        /* null (all ones) and UINT32_MAX itself both read as NONE, which is all ones */
        COL_LOOP(uint32_t, base, rs, ck.n, v, out[k] = v);
        return;
    default:
        for (size_t k = 0; k < ck.n; k++)
            out[k] = get_index(row_at(t, ck.i0 + k), c);
        return;
    }
}

static void chunk_double(const gc_table *t, colref c, chunk ck, double *out)
{
    if (!c.ok) {
        for (size_t k = 0; k < ck.n; k++)
            out[k] = 0.0;
        return;
    }
    const size_t rs = t->desc->row_size;
    const uint8_t *base = row_at(t, ck.i0) + c.ofs;
    switch (c.type) {
    case GC_T_BOOL:
    case GC_T_U8:
        COL_LOOP(uint8_t, base, rs, ck.n, v, out[k] = v);
        return;
    case GC_T_U16:
        COL_LOOP(uint16_t, base, rs, ck.n, v, out[k] = v);
        return;
    case GC_T_U32:
        COL_LOOP(uint32_t, base, rs, ck.n, v, out[k] = v);
        return;
    case GC_T_F32:
        COL_LOOP(float, base, rs, ck.n, v, out[k] = v);
        return;
    default:
        for (size_t k = 0; k < ck.n; k++)
            out[k] = get_f(row_at(t, ck.i0 + k), c);
        return;
    }
}

/* get_fl: the column through get_f's double, then to float (for F32 the
 * same conversions, so a NaN comes out as get_fl gives it) */
static void chunk_float(const gc_table *t, colref c, chunk ck, float *out)
{
    if (c.ok && c.type == GC_T_F32) {
        COL_LOOP(float, row_at(t, ck.i0) + c.ofs, t->desc->row_size, ck.n, v,
                 out[k] = (float)(double)v);
        return;
    }
    for (size_t k = 0; k < ck.n; k++)
        out[k] = get_fl(row_at(t, ck.i0 + k), c);
}

/* A colour channel: the column's value c (get_f's double; `absent` when the
 * column is not there) as (uint8_t)(c > 0 ? (c < hi ? c : hi) : 0). A U8
 * column (every colour the decoders publish) is read as bytes, the clamp
 * on the integer (0 and the values below hi are themselves, the rest hi,
 * as through the double), without a double per value. */
static void chunk_byte(const gc_table *t, colref c, chunk ck, double absent, uint8_t hi,
                       uint8_t *out)
{
    if (c.ok && (c.type == GC_T_U8 || c.type == GC_T_BOOL)) {
        COL_LOOP(uint8_t, row_at(t, ck.i0) + c.ofs, t->desc->row_size, ck.n, v,
                 out[k] = v < hi ? v : hi);
        return;
    }
    double d[CHUNK];
    chunk_double(t, c, ck, d);
    for (size_t k = 0; k < ck.n; k++) {
        const double x = c.ok ? d[k] : absent;
        out[k] = (uint8_t)(x > 0 ? (x < hi ? x : hi) : 0);
    }
}

/* The columns below are compared with small integers only (a LOD, a flag,
 * a normal's index), which they hold in the unsigned integer types every
 * decoder publishes them in: those are read as integers, giving what the
 * comparisons of get_f's double give (the double of an unsigned integer
 * is exact), without converting each value to a double and testing the
 * double; any other column type goes through the double as before. */

/* A LOD 0, 1 or 2 as itself, anything else 255 (never selected). */
static void chunk_lod3(const gc_table *t, colref c, chunk ck, uint8_t *out)
{
    if (c.ok && (c.type == GC_T_U8 || c.type == GC_T_BOOL)) {
        COL_LOOP(uint8_t, row_at(t, ck.i0) + c.ofs, t->desc->row_size, ck.n, v,
                 out[k] = v <= 2 ? v : 255);
        return;
    }
    double d[CHUNK];
    chunk_double(t, c, ck, d);
    for (size_t k = 0; k < ck.n; k++) {
        const double lod = d[k];
        out[k] = (uint8_t)(lod == 0 || lod == 1 || lod == 2 ? lod : 255);
    }
}

/* 1 where the column's value is not 0 (a NaN is not), else 0. */
static void chunk_nonzero(const gc_table *t, colref c, chunk ck, uint8_t *out)
{
    if (c.ok && (c.type == GC_T_U8 || c.type == GC_T_BOOL)) {
        COL_LOOP(uint8_t, row_at(t, ck.i0) + c.ofs, t->desc->row_size, ck.n, v, out[k] = v != 0);
        return;
    }
    double d[CHUNK];
    chunk_double(t, c, ck, d);
    for (size_t k = 0; k < ck.n; k++)
        out[k] = d[k] != 0.0;
}

/* An index into a small table: (uint8_t)v where 0 <= v <= hi (incl) or 0 <=
 * v < hi (!incl) for the column's value v (hi <= 255), else -1. */
static void chunk_small(const gc_table *t, colref c, chunk ck, uint32_t hi, int incl, int16_t *out)
{
    const uint32_t below = incl ? hi + 1 : hi;
    if (c.ok && (c.type == GC_T_U8 || c.type == GC_T_BOOL) && below > UINT8_MAX) {
        COL_LOOP(uint8_t, row_at(t, ck.i0) + c.ofs, t->desc->row_size, ck.n, v, out[k] = v);
        return;
    }
    if (c.ok && (c.type == GC_T_U8 || c.type == GC_T_BOOL)) {
        COL_LOOP(uint8_t, row_at(t, ck.i0) + c.ofs, t->desc->row_size, ck.n, v,
                 out[k] = (int16_t)(v < below ? v : -1));
        return;
    }
    if (c.ok && c.type == GC_T_U16) {
        COL_LOOP(uint16_t, row_at(t, ck.i0) + c.ofs, t->desc->row_size, ck.n, v,
                 out[k] = (int16_t)(v < below ? v : -1));
        return;
    }
    double d[CHUNK];
    chunk_double(t, c, ck, d);
    for (size_t k = 0; k < ck.n; k++) {
        const double v = d[k];
        const int in = v >= 0 && (incl ? v <= (double)hi : v < (double)hi);
        out[k] = (int16_t)(in ? (uint8_t)v : -1);
    }
}

/* A CLAMP_1 WMS/WMT field (0..3); anything else reads as REPEAT (0). */
static uint32_t wrap_mode(const uint8_t *row, colref c)
{
    double v = get_f(row, c);
    return v >= 0.0 && v <= 3.0 ? (uint32_t)v : 0u;
}

/* ---- the scene ----------------------------------------------------------- */

typedef struct rpatch {
    float sphere[4]; /* cx, cy, cz, radius */
    int usable;      /* finite sphere */
    uint32_t vert_first, vert_count;
    uint32_t vi_first, vi_count;
} rpatch;

/* Positions and vertex-info entries are 20 and 16 bytes: the scene holds one
 * per tfrag.vertex and tfrag.vertex_info row (50k each on a retail level). */
typedef struct rvert {
    float pos[3];
    uint8_t rgba[4];
    uint8_t lit_rgb[3]; /* tfrag.light gs_r/g/b (0..0x80), when RV_LIT */
    uint8_t flags;      /* RV_VALID (a row filled it), RV_LIT */
} rvert;
enum { RV_VALID = 1, RV_LIT = 2 };

typedef struct rvi {
    float s, t;
    uint16_t vertex;  /* its position within the patch, where VI_VERTEX */
    uint16_t parent0; /* its first parent within the patch, where VI_PARENT */
    uint8_t tier;
    uint8_t flags;
} rvi;
/* VI_VALID: a row filled it; VI_VERTEX: vertex names a position of the patch;
 * VI_VERTEX_BAD: the row's vertex is past the patch's positions (not null):
 * a corner through it does not resolve; VI_PARENT: parent0 names one. */
enum { VI_VALID = 1, VI_VERTEX = 2, VI_VERTEX_BAD = 4, VI_PARENT = 8 };

/* A terrain triangle, 24 bytes (a level has up to ~80k over its three LODs):
 * corner indices within the patch as 16 bits (a patch has at most MAX_INDEX
 * entries) with a bit saying each is present, which is what corner() asks
 * of them (an index at or past the patch's count reads as absent). */
typedef struct rtri {
    uint32_t patch;
    uint32_t adgif;   /* find_adgif's answer, looked up once: index in adgifs, or NONE */
    uint16_t vi[3];   /* vertex-info index within the patch, where bit k of has is set */
    uint16_t v[3];    /* position index within the patch, where bit 3 + k of has is set */
    uint16_t texture; /* TEX_NONE: none, or not below MAX_TEXTURES (drawn untextured) */
    uint8_t lod;
    uint8_t has;
} rtri;
#define TEX_NONE 0xFFFFu

/* Consecutive terrain triangles of one patch and one LOD (table order):
 * a view draws the runs whose LOD its patch picked and passes over the
 * others whole. Most rows are of a LOD the view does not draw (94% over
 * the retail sweep's views), and testing them one by one was a load of
 * the row, its patch's pick and a compare each. */
typedef struct rrun {
    uint32_t first, count, patch, lod;
} rrun;
_Static_assert(MAX_TEXTURES < TEX_NONE && MAX_INDEX <= 65536u, "rtri's 16-bit fields");

/* Ad-gif wrap modes, keyed by (patch, key): key is the record index within
 * the patch when both tables carry it (tfrag.triangle.adgif and
 * tfrag.adgif.index), else the texture index. */
typedef struct radgif {
    uint32_t patch, key, row;
    uint8_t wrap_s, wrap_t;
    uint8_t has_k;
    uint8_t linear; /* MMIN is LINEAR (1), LINEAR_MIPMAP_NEAREST (4) or LINEAR_MIPMAP_LINEAR (5) */
    float lod_k;    /* TEX1 K in mip levels (k / 16) */
} radgif;

#define MIP_LEVELS 4 /* 0 and 1 in core_data, 2 and 3 in GS RAM (gc_texture.h) */

typedef struct rtex {
    int state;       /* 0 not tried, 1 decoded, -1 failed */
    uint32_t levels; /* decoded levels, 1..MIP_LEVELS (consecutive from 0) */
    uint32_t w[MIP_LEVELS], h[MIP_LEVELS];
    const uint8_t *texels[MIP_LEVELS]; /* the level's 8-bit indices, in the level's buffers */
    gc_rs_clut *clut;                  /* their 256 colours (malloc'd) */
    gc_rs_texture rs;                  /* what get_texture_of hands out, built once at decode */
} rtex;

/* ---- objects: ties, shrubs and mobys ------------------------------------- */

/* One object kind gathered from its tables: class geometry (the highest
 * LOD, class-local coordinates) as vertices shared by the triangles that
 * index them, grouped by class row, and the instances that place it. The
 * draw loop places and lights each vertex once per instance (a per-vertex
 * cache), not once per triangle corner. */
typedef struct overt {
    /* (the position, class units, is in okind.kx/ky/kz) */
    float s, t;
    union { /* by the kind's lighting: 12 bytes a vertex, 100k of them on a retail level */
        struct {
            uint8_t naz, nel; /* moby: normal_azimuth/_elevation, indices into normals.table;
                                 shrub: naz = the normal index (0..23) */
            uint8_t has_normal;
        };
        uint32_t slot; /* tie: the vertex's colour in its instance's ambient record; NONE: none */
    };
} overt;

typedef struct otri {
    uint32_t v[3];    /* into okind.verts */
    uint32_t texture; /* index in the kind's texture table, NONE = untextured */
} otri;

typedef struct oclass {
    uint32_t tri_first, tri_count;
    uint32_t vlo, vhi; /* the vertices its triangles use lie in [vlo, vhi) */
    uint32_t normals;  /* shrub: first of its 24 rows in okind.normals; NONE: none decoded */
    double radius;     /* largest |corner| of its triangles, class units (from the class origin) */
    uint32_t untextured; /* its triangles without a texture, once untextured_known */
    int stbad;           /* some vertex in [vlo, vhi) has s or t out of the rasteriser's range */
    int untextured_known;
} oclass;

typedef struct oinst {
    uint32_t cls;
    uint32_t row;       /* its row in the instance table */
    float m[12];        /* columns 0, 1, 2 (local axes, scaled) and 3 (position), x y z each */
    double reach;       /* every placed corner lies within this of column 3 (instance_outside) */
    int64_t light;      /* moby/shrub: the instance's gameplay.dir_light row, -1 when none */
    uint8_t colour[3];  /* shrub: the instance colour (+0x50..+0x58, 0..255) */
    uint64_t amb_ofs;   /* tie: gameplay offset of its ambient record's first colour */
    uint32_t amb_count; /* tie: colours in that record; 0: no record */
} oinst;

/* How a kind's instances are lit (docs/golden.md "What is lit"). */
enum { OLIGHT_NONE = 0, OLIGHT_TIE, OLIGHT_SHRUB, OLIGHT_MOBY };

#define RSQ_BITS   10
#define RSQ_SLOTS  (1u << RSQ_BITS)
#define MEMO_BITS  12
#define MEMO_SLOTS (1u << MEMO_BITS)
typedef struct mmemo {
    uint32_t stamp;    /* the instance serial it was filled for (0: never) */
    uint16_t key;      /* azimuth << 8 | elevation */
    uint8_t state;     /* as cstate (bits 1, 2) */
    uint8_t col[2][4]; /* textured, plain */
} mmemo;

typedef struct okind {
    const char *name;      /* "tie", "shrub", "moby": the manifest's key */
    gc_texture_kind tkind; /* whose texture table the slots index */
    uint8_t plain[4];      /* vertex colour of an untextured triangle */
    overt *verts;
    size_t nverts;
    otri *tris;
    size_t ntris;
    oclass *classes;
    size_t nclasses;
    oinst *inst;
    size_t ninst;
    uint64_t unresolved;   /* instance rows not placed: no such class, or a non-finite matrix */
    int lightable;         /* OLIGHT_*: what the kind's tables give its lighting (NONE: unlit) */
    int32_t (*normals)[3]; /* shrub: shrub.normal x, y, z (1/32767), 24 per class */
    size_t nnormals;
    uint32_t span; /* the widest class vertex range (vhi - vlo): the cache's size */
    /* the class positions again as three arrays (gc_rs_project reads them four
     * at a time), and per vertex whether s or t is out of the rasteriser's range */
    float *kx, *ky, *kz;
    uint8_t *stbad;
    /* per-instance vertex cache: every vertex of the class placed and projected
     * (gc_rs_project), and the colour for a textured (base 0x80) and an
     * untextured (base plain) triangle, each made on first use */
    gc_rs_pvertex *pv;
    uint8_t (*ccol)[2][4];
    uint8_t *cstate; /* bit 1 textured colour, bit 2 plain colour */
    uint32_t rot[9]; /* moby: the instance's columns 0..2 each normalised (PS2 float) */
    /* moby: the instance's colours by normal (many vertices of a class share
     * one), MEMO_SLOTS entries indexed by a hash of the normal (azimuth << 8 |
     * elevation); an entry holds its key and is valid while its stamp is the
     * serial of the lit instance being drawn. A normal whose slot another
     * holds is lit again: the same float-model operations give the same
     * colour, so what the memo keeps changes the time only. */
    struct mmemo *memo;
    uint32_t serial;
    /* moby: RSQRT.S of recent column lengths (instance_rotation), 8 KB; key 0 empty */
    uint32_t rsq_key[RSQ_SLOTS], rsq_val[RSQ_SLOTS];
    uint8_t pstate[24];     /* shrub: the instance's palette, as cstate (bits 1, 2) */
    uint8_t pcol[24][2][4]; /* shrub: palette colours, textured and plain */
    rtex *tex;              /* ntex, decoded on first use */
    uint32_t ntex;          /* 1 + the largest texture index a triangle names (<= MAX_TEXTURES) */
} okind;

struct gc_render_scene {
    const gc_level *lv;
    float lod_scale;
    rpatch *patches;
    size_t npatches;
    rvert *verts;
    rvi *vis;
    rtri *tris;
    rrun *runs; /* the triangles in runs of one patch and LOD, in order */
    size_t nruns, cap_runs;
    size_t ntris;
    radgif *adgifs;
    size_t nadgifs;
    rtex *tex; /* ntex, decoded on first use */
    uint32_t ntex;
    int lighting; /* draw the lit colours (default); 0: the stored ones */
    int objects;  /* draw the tie, shrub and moby instances (default) */
    int cull;     /* skip instances wholly outside the view (default; changes no pixel) */
    okind kinds[GC_RENDER_OBJECT_KINDS];
    uint64_t vertices_lit;
    /* object lighting: the overlay's normal table (256 (cos, sin) pattern
     * pairs; mobys) and the light bank as raw PS2 float patterns (mobys and
     * shrubs) */
    const uint8_t *normal_table;
    uint32_t (*lights)[2][7]; /* [set][a/b][r g b w, dir x y z] */
    uint32_t nlights;
    gc_render_stats stats;
};

static uint32_t fbits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static void scene_err(char *err, size_t errlen, const char *what, const char *table)
{
    if (err && errlen)
        snprintf(err, errlen, "render: %s %s", what, table);
}

static int finite_f(float v)
{
    return v > -1e30f && v < 1e30f;
}

static const radgif *find_adgif(const gc_render_scene *s, uint32_t patch, uint32_t key);

static int cmp_adgif(const void *a, const void *b)
{
    const radgif *x = a, *y = b;
    if (x->patch != y->patch)
        return x->patch < y->patch ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* How one kind is published (docs/fields.md): the column names differ, the
 * shape does not. */
typedef struct okind_spec {
    const char *name;
    gc_texture_kind tkind;
    uint8_t plain[4];
    const char *class_t, *packet_t, *vertex_t, *triangle_t, *instance_t;
    const char *packet_lod;   /* packet column that must be 0 (NULL: none) */
    const char *vertex_index; /* the vertex's index within its packet */
    const char *vpos[3];      /* class-unit position columns */
    const char *tri_lod;      /* triangle column that must be 0 (NULL: none) */
    const char *tri_skip;     /* triangle bool column that drops the row (NULL: none) */
    const char *corner[3];    /* the corners' vertex indices within the packet */
    const char *translation[3];
    int light_mode;        /* OLIGHT_*: what lights the kind when its tables allow */
    const char *normal[2]; /* moby: vertex normal azimuth, elevation; shrub: [0] normal index */
    const char *light;     /* moby, shrub: instance light-set column */
} okind_spec;

static const okind_spec okind_specs[GC_RENDER_OBJECT_KINDS] = {
    /* tie.triangle has every LOD: LOD 0 (nearest, most detailed) is drawn */
    {"tie",
     GC_TEXTURE_TIE,
     {0x60, 0x60, 0x60, 0x80},
     "tie.class",
     "tie.packet",
     "tie.vertex",
     "tie.triangle",
     "tie.instance",
     NULL,
     "index",
     {"x", "y", "z"},
     "lod",
     NULL,
     {"a", "b", "c"},
     {"c3x", "c3y", "c3z"},
     OLIGHT_TIE,
     {NULL, NULL},
     NULL},
    /* shrubs have one LOD; the triangles Wrench's recovery drops (zero area) are skipped */
    {"shrub",
     GC_TEXTURE_SHRUB,
     {0x40, 0x70, 0x40, 0x80},
     "shrub.class",
     "shrub.packet",
     "shrub.vertex",
     "shrub.triangle",
     "shrub.instance",
     NULL,
     "index",
     {"x", "y", "z"},
     NULL,
     "zero_area",
     {"a", "b", "c"},
     {"c3x", "c3y", "c3z"},
     OLIGHT_SHRUB,
     {"normal", NULL},
     "dir_light"},
    /* moby packets of the high LOD (moby.packet lod 0), vertices in bind pose; the instance's
     * c0..c2 are the decoder's scale * Rz * Ry * Rx, its position x, y, z */
    {"moby",
     GC_TEXTURE_MOBY,
     {0x80, 0x60, 0x30, 0x80},
     "moby.class",
     "moby.packet",
     "moby.vertex",
     "moby.triangle",
     "moby.instance",
     "lod",
     "slot",
     {"px", "py", "pz"},
     NULL,
     NULL,
     {"v0", "v1", "v2"},
     {"x", "y", "z"},
     OLIGHT_MOBY,
     {"normal_azimuth", "normal_elevation"},
     "light"},
};

static void okind_free(okind *k)
{
    if (k->tex)
        for (size_t i = 0; i < k->ntex; i++)
            free(k->tex[i].clut);
    free(k->tex);
    gc_big_free(k->verts);
    gc_big_free(k->tris);
    free(k->classes);
    free(k->inst);
    free(k->normals);
    free(k->kx);
    free(k->ky);
    free(k->kz);
    free(k->stbad);
    free(k->pv);
    free(k->ccol);
    free(k->cstate);
    free(k->memo);
    memset(k, 0, sizeof *k);
}

/* A kind's light inputs beyond its geometry tables: shrubs need the class
 * normals (shrub.normal), ties their instances' ambient records
 * (tie.ambient). 0, or -1 when memory runs out; a missing table or column
 * leaves the kind unlit. */
static int okind_gather_light(okind *k, const gc_table *ts, size_t nt)
{
    if (k->lightable == OLIGHT_SHRUB) {
        const gc_table *tn = find_table(ts, nt, "shrub.normal");
        colref nc = find_col(tn, "class_row"), ni = find_col(tn, "index"), nx = find_col(tn, "x"),
               ny = find_col(tn, "y"), nz = find_col(tn, "z");
        if (!tn || !nc.ok || !ni.ok || !nx.ok || !ny.ok || !nz.ok) {
            k->lightable = OLIGHT_NONE;
            return 0;
        }
        for (size_t c = 0; c < k->nclasses; c++)
            k->classes[c].normals = NONE;
        /* 24 per class, filled by (class_row, index); a class with a row
         * missing keeps NONE */
        k->normals = calloc(k->nclasses * 24 + 1, sizeof *k->normals);
        uint8_t *have = calloc(k->nclasses * 24 + 1, 1);
        if (!k->normals || !have) {
            free(have);
            return -1;
        }
        for (size_t i = 0; i < tn->count; i++) {
            const uint8_t *r = row_at(tn, i);
            uint32_t c = get_index(r, nc), j = get_index(r, ni);
            if (c == NONE || c >= k->nclasses || j == NONE || j >= 24)
                continue;
            const colref xyz[3] = {nx, ny, nz};
            for (int a = 0; a < 3; a++) {
                double v = get_f(r, xyz[a]);
                k->normals[c * 24 + j][a] = (int32_t)(v >= -32768 && v <= 65535 ? v : 0);
            }
            have[c * 24 + j] = 1;
        }
        for (size_t c = 0; c < k->nclasses; c++) {
            int all = 1;
            for (int j = 0; j < 24; j++)
                all = all && have[c * 24 + j];
            if (all)
                k->classes[c].normals = (uint32_t)(c * 24);
        }
        k->nnormals = k->nclasses * 24;
        free(have);
    } else if (k->lightable == OLIGHT_TIE) {
        const gc_table *ta = find_table(ts, nt, "tie.ambient");
        colref ai = find_col(ta, "instance_row"), an = find_col(ta, "colours"),
               ad = find_col(ta, "data_ofs");
        if (!ta || !ai.ok || !an.ok || !ad.ok) {
            k->lightable = OLIGHT_NONE;
            return 0;
        }
        /* k->inst is in table order with unplaced rows dropped: map row -> placed */
        for (size_t i = 0; i < ta->count; i++) {
            const uint8_t *r = row_at(ta, i);
            uint32_t row = get_index(r, ai);
            double n = get_f(r, an), d = get_f(r, ad);
            if (row == NONE || !(n > 0 && n < 65536) || !(d >= 0 && d < 1e15))
                continue;
            /* instances are few; a binary search over the placed rows' table index */
            size_t lo = 0, hi = k->ninst;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (k->inst[mid].row < row)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < k->ninst && k->inst[lo].row == row && k->inst[lo].amb_count == 0) {
                k->inst[lo].amb_ofs = (uint64_t)d;
                k->inst[lo].amb_count = (uint32_t)n;
            }
        }
    }
    return 0;
}

/* The texture cache's size: 1 + the largest texture index below
 * MAX_TEXTURES among n triangles (the field at first, stride bytes apart),
 * so a level's few hundred textures do not cost a 4096-entry cache each
 * kind. Every index a triangle can ask for is below it (larger ones draw
 * untextured without a lookup, as before). */
static uint32_t texture_span(const uint32_t *first, size_t n, size_t stride)
{
    uint32_t span = 0;
    const uint8_t *p = (const uint8_t *)first;
    for (size_t i = 0; i < n; i++, p += stride) {
        uint32_t t;
        memcpy(&t, p, sizeof t);
        if (t < MAX_TEXTURES && t + 1 > span)
            span = t + 1;
    }
    return span;
}

/* Gather one kind. A kind whose tables are absent or lack a column simply
 * has nothing to draw (0); -1 only when memory runs out. */
enum { VV_VALID = 1, VV_CORNER = 2 }; /* okind_gather's per-vertex flags */

/* Rows 0 .. n-1 of a chunk of vertices: vv[j] VV_VALID when x, y, z, s and
 * t are all finite_f, else 0; sb[j] 1 when s or t is out of the
 * rasteriser's range (gc_rs_draw_triangle's test), else 0. Both tests are
 * |v| < 1e30 on the bits (finite_f's -1e30 < v < 1e30 exactly: the order
 * of non-negative floats is that of their bits, and NaN's bits lie above
 * 1e30's), four rows a step in a vector type (compares and masks, no
 * branch; was ~30 instructions a row). The arrays are CHUNK long: the
 * lanes past n are zeroed first and never read back. */
static void vertex_checks(float *x, float *y, float *z, float *s, float *t, size_t n, uint32_t *vv,
                          uint32_t *sb)
{
    const size_t n4 = (n + 3) & ~(size_t)3;
    for (size_t j = n; j < n4; j++)
        x[j] = y[j] = z[j] = s[j] = t[j] = 0.0f;
    /* (signed lanes: both sides of the compare are non-negative) */
    const i32x4 abs = {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF};
    const i32x4 lim = {0x7149F2CA, 0x7149F2CA, 0x7149F2CA, 0x7149F2CA}; /* bits of 1e30f */
    const i32x4 one = {1, 1, 1, 1};
    for (size_t j = 0; j < n4; j += 4) {
        i32x4 a[5];
        memcpy(&a[0], x + j, sizeof a[0]);
        memcpy(&a[1], y + j, sizeof a[1]);
        memcpy(&a[2], z + j, sizeof a[2]);
        memcpy(&a[3], s + j, sizeof a[3]);
        memcpy(&a[4], t + j, sizeof a[4]);
        i32x4 in[5];
        for (int c = 0; c < 5; c++)
            in[c] = (a[c] & abs) < lim; /* all ones in range, else 0 */
        const i32x4 st = in[3] & in[4], all = in[0] & in[1] & in[2] & st;
        const i32x4 v = all & one, b = ~st & one; /* (VV_VALID is 1) */
        memcpy(vv + j, &v, sizeof v);
        memcpy(sb + j, &b, sizeof b);
    }
}

/* The vertex table's columns okind_gather reads. */
typedef struct vcols {
    colref pk, ix, p[3], s, t, n[2];
} vcols;

/* A chunk of vertex rows: packet and index, position, s and t, the normal
 * (moby: azimuth and elevation each in 0..255; shrub: the index below 24)
 * and vertex_checks' flags. */
typedef struct vrows {
    uint32_t P[CHUNK], IX[CHUNK];
    float X[CHUNK], Y[CHUNK], Z[CHUNK], S[CHUNK], T[CHUNK];
    int16_t N0[CHUNK], N1[CHUNK];
    uint32_t VV[CHUNK], SB[CHUNK];
} vrows;

static inline void vertex_rows_read(const gc_table *tv, const vcols *c, int lightable, chunk ck,
                                    vrows *r)
{
    chunk_index(tv, c->pk, ck, r->P);
    chunk_index(tv, c->ix, ck, r->IX);
    chunk_float(tv, c->p[0], ck, r->X);
    chunk_float(tv, c->p[1], ck, r->Y);
    chunk_float(tv, c->p[2], ck, r->Z);
    chunk_float(tv, c->s, ck, r->S);
    chunk_float(tv, c->t, ck, r->T);
    if (lightable == OLIGHT_MOBY) {
        chunk_small(tv, c->n[0], ck, 255, 1, r->N0);
        chunk_small(tv, c->n[1], ck, 255, 1, r->N1);
    } else if (lightable == OLIGHT_SHRUB) {
        chunk_small(tv, c->n[0], ck, 24, 0, r->N0);
    }
    vertex_checks(r->X, r->Y, r->Z, r->S, r->T, ck.n, r->VV, r->SB);
}

/* Row j of the chunk as the kind's vertex g (a tie's with its colour slot
 * when has_slot). The vertex built in a local and stored whole, the kind's
 * arrays in locals: the byte stores (has_normal, naz, nel, vvalid, stbad)
 * may alias anything, so field by field the compiler reloaded k->verts,
 * k->kx .. k->stbad and k->lightable after each. The same bytes: slot
 * first, then the normal's three bytes over its low ones. */
static inline void vertex_store(okind *k, uint8_t *vvalid, const vrows *r, size_t j, uint32_t g,
                                int has_slot, uint32_t slot)
{
    overt *const verts = k->verts;
    float *const kx = k->kx, *const ky = k->ky, *const kz = k->kz;
    uint8_t *const stbad = k->stbad;
    const int lightable = k->lightable;
    overt o;
    kx[g] = r->X[j];
    ky[g] = r->Y[j];
    kz[g] = r->Z[j];
    o.s = r->S[j];
    o.t = r->T[j];
    o.slot = NONE;
    if (lightable == OLIGHT_MOBY) {
        const int has = (r->N0[j] | r->N1[j]) >= 0;
        o.has_normal = (uint8_t)has;
        o.naz = (uint8_t)(has ? r->N0[j] : 0);
        o.nel = (uint8_t)(has ? r->N1[j] : 0);
    } else if (lightable == OLIGHT_SHRUB) {
        const int has = r->N0[j] >= 0;
        o.has_normal = (uint8_t)has;
        o.naz = (uint8_t)(has ? r->N0[j] : 0);
    } else if (lightable == OLIGHT_TIE && has_slot) {
        o.slot = slot;
    }
    verts[g] = o;
    vvalid[g] = (uint8_t)r->VV[j];
    stbad[g] = (uint8_t)r->SB[j];
}

/* Each packet's first vertex: the prefix sums of the counts; *total their
 * sum. -1 when it passes UINT32_MAX / 2. */
static int vertex_firsts(uint32_t *vfirst, const uint32_t *vcount, size_t np, uint64_t *total)
{
    uint64_t sum = 0;
    for (size_t p = 0; p < np; p++) {
        vfirst[p] = (uint32_t)sum;
        sum += vcount[p];
        if (sum > UINT32_MAX / 2)
            return -1;
    }
    *total = sum;
    return 0;
}

static void okind_verts_free(okind *k, uint8_t **vvalid)
{
    gc_big_free(k->verts);
    free(k->kx);
    free(k->ky);
    free(k->kz);
    free(k->stbad);
    free(*vvalid);
    k->verts = NULL;
    k->kx = k->ky = k->kz = NULL;
    k->stbad = NULL;
    *vvalid = NULL;
    k->nverts = 0;
}

/* okind_gather's one-pass placement zeroes its arrays this many vertices
 * ahead of the furthest placed (rather than all of one vertex a row). */
#define ZERO_AHEAD 1024

/* Vertices from .. min(to, cap) - 1 of the kind's arrays zeroed (none when
 * to <= from); returns the new end of the zeroed range. */
static size_t okind_verts_zero(okind *k, uint8_t *vvalid, size_t from, uint64_t to, size_t cap)
{
    const size_t end = to < cap ? (size_t)to : cap;
    if (end <= from)
        return from;
    const size_t n = end - from;
    memset(k->verts + from, 0, n * sizeof *k->verts);
    memset(k->kx + from, 0, n * sizeof *k->kx);
    memset(k->ky + from, 0, n * sizeof *k->ky);
    memset(k->kz + from, 0, n * sizeof *k->kz);
    memset(vvalid + from, 0, n);
    memset(k->stbad + from, 0, n);
    return end;
}

/* okind_gather's vertices in one pass. A packet's vertices are placed
 * after the packets before it, so a row can be placed as it is read when
 * every packet before its own is complete: when the placed rows' packets
 * never go down (the decoders publish a kind's vertices packet by packet).
 * Then each packet's first vertex is the running total of the counts
 * before it, and its count the largest index so far + 1; the arrays are
 * sized for one vertex a row (a packet's indices 0 .. n-1 are n rows) and
 * cut to the total at the end. The two-pass way (count, then place) reads
 * the table's packet and index columns twice (~16 instructions a row and
 * a second walk over the table's cache lines). Places what it would: the
 * same rows (an unplaced row fails the same tests), at the same vertex (a
 * later row of the same packet and index overwrites, as there), the
 * entries no row names zero, and vfirst / vcount the same prefix sums and
 * counts. 1 when done (k->verts .. k->stbad, *vvalid, k->nverts, vfirst,
 * vcount set), 0 when a placed row's packet is below the one before or a
 * vertex would lie past one a row (nothing kept: the arrays freed, vcount
 * zero), -1 when memory runs out. */
static int gather_verts_in_order(okind *k, const gc_table *tv, const vcols *vc, size_t np,
                                 const uint32_t *pk_class, uint32_t *vfirst, uint32_t *vcount,
                                 const uint32_t *slot_first, const uint32_t *slot_n,
                                 uint8_t **vvalid)
{
    const size_t cap = tv->count; /* vertices at most: one a row */
    /* not zeroed whole: only as far as the vertices reach (below) */
    k->verts = gc_big_alloc((cap ? cap : 1) * sizeof *k->verts);
    k->kx = malloc((cap + 3) * sizeof *k->kx);
    k->ky = malloc((cap + 3) * sizeof *k->ky);
    k->kz = malloc((cap + 3) * sizeof *k->kz);
    *vvalid = malloc(cap ? cap : 1);
    k->stbad = malloc(cap ? cap : 1);
    if (!k->verts || !*vvalid || !k->kx || !k->ky || !k->kz || !k->stbad)
        return -1;
    uint32_t cur = NONE; /* the packet of the last placed row */
    uint64_t first = 0;  /* its first vertex */
    size_t zeroed = 0;   /* vertices below it zeroed or placed */
    FOR_CHUNKS(tv, ck)
    {
        vrows r;
        vertex_rows_read(tv, vc, k->lightable, ck, &r);
        for (size_t j = 0; j < ck.n; j++) {
            const uint32_t p = r.P[j], ix = r.IX[j];
            if (p == NONE || p >= np || pk_class[p] == NONE || ix == NONE || ix >= MAX_INDEX)
                continue;
            if (p != cur) {
                if (cur != NONE) {
                    if (p < cur)
                        goto give_up;
                    first += vcount[cur];
                }
                cur = p;
            }
            const uint64_t g = first + ix;
            if (g >= cap)
                goto give_up;
            if (g >= zeroed) /* zeroed ahead in blocks, so that a vertex no row names is zero */
                zeroed = okind_verts_zero(k, *vvalid, zeroed, g + 1 + ZERO_AHEAD, cap);
            if (ix + 1 > vcount[p])
                vcount[p] = ix + 1;
            vertex_store(k, *vvalid, &r, j, (uint32_t)g, ix < slot_n[p], slot_first[p] + ix);
        }
    }
    uint64_t sum = 0;
    if (vertex_firsts(vfirst, vcount, np, &sum) != 0)
        return -1; /* (cannot happen: sum <= cap) */
    k->nverts = (size_t)sum;
    /* every vertex below sum is placed or zeroed (a placed one lies below
     * `zeroed`, and sum is one past the last placed); the one entry of an
     * empty kind too, and the positions' 3 entries of slack */
    okind_verts_zero(k, *vvalid, zeroed, sum ? (size_t)sum : 1, cap ? cap : 1);
    for (size_t e = (size_t)sum; e < (size_t)sum + 3; e++)
        k->kx[e] = k->ky[e] = k->kz[e] = 0.0f;
    if (sum < cap) { /* cut to the total (a failed cut keeps the larger block, still valid) */
        const size_t n = sum ? (size_t)sum : 1;
        overt *v = gc_big_realloc(k->verts, cap * sizeof *k->verts, n * sizeof *k->verts);
        float *x = realloc(k->kx, (sum + 3) * sizeof *k->kx);
        float *y = realloc(k->ky, (sum + 3) * sizeof *k->ky);
        float *z = realloc(k->kz, (sum + 3) * sizeof *k->kz);
        uint8_t *vv = realloc(*vvalid, n), *sb = realloc(k->stbad, n);
        k->verts = v ? v : k->verts;
        k->kx = x ? x : k->kx;
        k->ky = y ? y : k->ky;
        k->kz = z ? z : k->kz;
        *vvalid = vv ? vv : *vvalid;
        k->stbad = sb ? sb : k->stbad;
    }
    return 1;
give_up:
    okind_verts_free(k, vvalid);
    memset(vcount, 0, np * sizeof *vcount);
    return 0;
}

/* A chunk of triangle rows: packet, the drop flag (a LOD other than 0, or
 * the skip flag set) and the three corners. */
static void tri_rows_read(const gc_table *tt, colref tpk, colref tlod, colref tskip,
                          const colref tcn[3], chunk ck, uint32_t *P, uint8_t *DROP, uint32_t *C0,
                          uint32_t *C1, uint32_t *C2)
{
    chunk_index(tt, tpk, ck, P);
    if (tlod.ok)
        chunk_nonzero(tt, tlod, ck, DROP);
    else
        memset(DROP, 0, ck.n);
    if (tskip.ok) {
        uint8_t SKIP[CHUNK];
        chunk_nonzero(tt, tskip, ck, SKIP);
        for (size_t j = 0; j < ck.n; j++)
            DROP[j] |= SKIP[j];
    }
    chunk_index(tt, tcn[0], ck, C0);
    chunk_index(tt, tcn[1], ck, C1);
    chunk_index(tt, tcn[2], ck, C2);
}

/* A triangle row is drawn when its packet is of a class and of the highest
 * LOD, the row is not dropped, and each corner is below the packet's vertex
 * count (NONE is not) and a valid vertex. */
static inline int tri_row_kept(uint32_t p, uint32_t i0, uint32_t i1, uint32_t i2, uint8_t drop,
                               size_t np, const uint32_t *pk_class, const uint32_t *vfirst,
                               const uint32_t *vcount, const uint8_t *vvalid)
{
    if (p == NONE || p >= np || pk_class[p] == NONE)
        return 0;
    if (drop)
        return 0;
    const uint32_t vc = vcount[p];
    if (!(i0 < vc && i1 < vc && i2 < vc))
        return 0;
    const uint8_t *vv = vvalid + vfirst[p];
    return (vv[i0] & vv[i1] & vv[i2] & VV_VALID) != 0;
}

/* A kept triangle's corners: into its class's vertex range, and marked as
 * corners (for the radius). */
static inline void tri_mark(oclass *cl, const otri *o, uint8_t *vvalid)
{
    uint32_t vlo = cl->vlo, vhi = cl->vhi;
    for (int c = 0; c < 3; c++) {
        const uint32_t g = o->v[c];
        if (g < vlo)
            vlo = g;
        if (g + 1 > vhi)
            vhi = g + 1;
    }
    cl->vlo = vlo;
    cl->vhi = vhi;
    for (int c = 0; c < 3; c++)
        vvalid[o->v[c]] |= VV_CORNER;
}

/* The classes' first triangle and count from the per-class counts, which
 * become each class's running place; k->ntris the total. -1 when it does
 * not fit the 32-bit indices. */
static int place_classes(okind *k, uint32_t *per_class, size_t nc)
{
    uint64_t run = 0;
    for (size_t c = 0; c < nc; c++) {
        k->classes[c].tri_first = (uint32_t)run;
        k->classes[c].tri_count = per_class[c];
        per_class[c] = (uint32_t)run;
        run += k->classes[c].tri_count;
        if (run > UINT32_MAX / 2)
            return -1;
    }
    k->ntris = (size_t)run;
    return 0;
}

/* okind_gather's triangles in one pass, for rows whose kept classes never
 * go down (see there): each kept row's triangle stored at the next place,
 * which is where the stable counting sort would put it. 1 when done
 * (k->tris, k->ntris, the classes' first and count set, per_class the
 * counts' running places), 0 when a kept row's class is below the one
 * before (k->tris not set; per_class, the classes' vertex ranges and the
 * corner marks hold what the rows before it gave), -1 when memory runs
 * out. */
static int gather_tris_in_order(okind *k, const gc_table *tt, colref tpk, colref tlod, colref tskip,
                                const colref tcn[3], colref ttex, size_t np,
                                const uint32_t *pk_class, const uint32_t *vfirst,
                                const uint32_t *vcount, uint8_t *vvalid, uint32_t *per_class,
                                size_t nc)
{
    const size_t cap = tt->count ? tt->count : 1; /* at most one triangle a row */
    /* written as the rows are kept, not zeroed first; the pages past the
     * kept triangles are not touched (and given back below) */
    otri *tris = gc_big_alloc(cap * sizeof *tris);
    if (!tris)
        return -1;
    oclass *const classes = k->classes;
    size_t n = 0;
    uint32_t last = 0;
    FOR_CHUNKS(tt, ck)
    {
        uint32_t P[CHUNK], C0[CHUNK], C1[CHUNK], C2[CHUNK], TX[CHUNK];
        uint8_t DROP[CHUNK];
        tri_rows_read(tt, tpk, tlod, tskip, tcn, ck, P, DROP, C0, C1, C2);
        chunk_index(tt, ttex, ck, TX);
        for (size_t j = 0; j < ck.n; j++) {
            const uint32_t p = P[j];
            if (!tri_row_kept(p, C0[j], C1[j], C2[j], DROP[j], np, pk_class, vfirst, vcount,
                              vvalid))
                continue;
            const uint32_t cls = pk_class[p], vf = vfirst[p];
            if (cls < last) {
                gc_big_free(tris);
                return 0;
            }
            last = cls;
            const otri o = {{vf + C0[j], vf + C1[j], vf + C2[j]}, TX[j]};
            tris[n++] = o;
            per_class[cls]++;
            tri_mark(&classes[cls], &o, vvalid);
        }
    }
    if (place_classes(k, per_class, nc) != 0) {
        gc_big_free(tris);
        return -1;
    }
    const size_t keep = n ? n : 1;
    if (keep < cap) {
        otri *t = gc_big_realloc(tris, cap * sizeof *tris, keep * sizeof *tris);
        if (t) /* (a failed shrink keeps the larger block, still valid) */
            tris = t;
    }
    k->tris = tris;
    return 1;
}

static int okind_gather(okind *k, const okind_spec *sp, const gc_table *ts, size_t nt)
{
    memset(k, 0, sizeof *k);
    k->name = sp->name;
    k->tkind = sp->tkind;
    memcpy(k->plain, sp->plain, sizeof k->plain);
    const gc_table *tc = find_table(ts, nt, sp->class_t), *tp = find_table(ts, nt, sp->packet_t),
                   *tv = find_table(ts, nt, sp->vertex_t), *tt = find_table(ts, nt, sp->triangle_t),
                   *ti = find_table(ts, nt, sp->instance_t);
    if (!tc || !tp || !tv || !tt || !ti)
        return 0;
    static const colref none = {0, GC_T_U8, 0, 0};
    colref pcls = find_col(tp, "class_row"),
           plod = sp->packet_lod ? find_col(tp, sp->packet_lod) : none;
    colref vpk = find_col(tv, "packet_row"), vix = find_col(tv, sp->vertex_index),
           vs = find_col(tv, "s"), vt = find_col(tv, "t"), vp[3];
    colref tpk = find_col(tt, "packet_row"), ttex = find_col(tt, "texture_entry"),
           tlod = sp->tri_lod ? find_col(tt, sp->tri_lod) : none,
           tskip = sp->tri_skip ? find_col(tt, sp->tri_skip) : none, tcn[3];
    colref icls = find_col(ti, "class_row"), im[12];
    colref vn[2] = {sp->normal[0] ? find_col(tv, sp->normal[0]) : none,
                    sp->normal[1] ? find_col(tv, sp->normal[1]) : none};
    colref ilight = sp->light ? find_col(ti, sp->light) : none;
    colref icol[3] = {find_col(ti, "colour_r"), find_col(ti, "colour_g"), find_col(ti, "colour_b")};
    /* tie: the packet's rgba_count (+0xa) colours, one per vertex record (the
     * LOD's packets in table order); its lod column says which are LOD 0 */
    colref prgba = find_col(tp, "rgba_count"), ptlod = find_col(tp, "lod");
    switch (sp->light_mode) {
    case OLIGHT_MOBY:
        k->lightable = vn[0].ok && vn[1].ok && ilight.ok ? OLIGHT_MOBY : OLIGHT_NONE;
        break;
    case OLIGHT_SHRUB:
        k->lightable = vn[0].ok && ilight.ok && icol[0].ok && icol[1].ok && icol[2].ok
                           ? OLIGHT_SHRUB
                           : OLIGHT_NONE;
        break;
    case OLIGHT_TIE:
        k->lightable = prgba.ok && ptlod.ok ? OLIGHT_TIE : OLIGHT_NONE;
        break;
    default:
        k->lightable = OLIGHT_NONE;
    }
    static const char *const mcol[9] = {"c0x", "c0y", "c0z", "c1x", "c1y",
                                        "c1z", "c2x", "c2y", "c2z"};
    int ok = pcls.ok && vpk.ok && vix.ok && tpk.ok && icls.ok;
    for (int c = 0; c < 3; c++) {
        vp[c] = find_col(tv, sp->vpos[c]);
        tcn[c] = find_col(tt, sp->corner[c]);
        im[9 + c] = find_col(ti, sp->translation[c]);
        ok = ok && vp[c].ok && tcn[c].ok && im[9 + c].ok;
    }
    for (int c = 0; c < 9; c++) {
        im[c] = find_col(ti, mcol[c]);
        ok = ok && im[c].ok;
    }
    if (!ok || (sp->packet_lod && !plod.ok) || (sp->tri_lod && !tlod.ok))
        return 0;

    size_t np = tp->count, nc = tc->count;
    uint32_t *pk_class = malloc((np ? np : 1) * sizeof *pk_class);
    uint32_t *vfirst = calloc(np + 1, sizeof *vfirst), *vcount = calloc(np + 1, sizeof *vcount);
    uint32_t *per_class = calloc(nc + 1, sizeof *per_class);
    uint32_t *slot_first = calloc(np + 1, sizeof *slot_first),
             *slot_n = calloc(np + 1, sizeof *slot_n);
    /* per vertex: VV_VALID finite position, s and t; VV_CORNER a corner of a
     * kept triangle (set by the second triangle pass) */
    uint8_t *vvalid = NULL;
    uint32_t *kept = NULL; /* per triangle row: its packet, or NONE when not drawn */
    int rc = -1;
    k->classes = calloc(nc ? nc : 1, sizeof *k->classes);
    if (!pk_class || !vfirst || !vcount || !per_class || !slot_first || !slot_n || !k->classes)
        goto out;
    k->nclasses = nc;
    {
        uint32_t *slot_run = per_class; /* per-class running colour count (reset below) */
        for (size_t p = 0; p < np; p++) {
            const uint8_t *r = row_at(tp, p);
            uint32_t c = get_index(r, pcls);
            if (c != NONE && c >= nc)
                c = NONE;
            if (plod.ok && get_f(r, plod) != 0.0)
                c = NONE; /* not the highest LOD: not drawn */
            pk_class[p] = c;
            if (k->lightable == OLIGHT_TIE && c != NONE && get_f(r, ptlod) == 0.0) {
                uint32_t n = get_index(r, prgba);
                slot_first[p] = slot_run[c];
                slot_n[p] = n == NONE ? 0 : n;
                slot_run[c] += slot_n[p];
            }
        }
        memset(per_class, 0, (nc + 1) * sizeof *per_class);
    }
    /* vertices, bucketed by (packet, index within the packet): in one pass
     * when the placed rows' packets never go down (see
     * gather_verts_in_order), else by counting first */
    const vcols vc = {vpk, vix, {vp[0], vp[1], vp[2]}, vs, vt, {vn[0], vn[1]}};
    const int verts_in_order = gather_verts_in_order(k, tv, &vc, np, pk_class, vfirst, vcount,
                                                     slot_first, slot_n, &vvalid);
    if (verts_in_order < 0)
        goto out;
    if (!verts_in_order) {
        FOR_CHUNKS(tv, ck)
        {
            uint32_t P[CHUNK], IX[CHUNK];
            chunk_index(tv, vpk, ck, P);
            chunk_index(tv, vix, ck, IX);
            for (size_t j = 0; j < ck.n; j++) {
                uint32_t p = P[j], ix = IX[j];
                if (p == NONE || p >= np || pk_class[p] == NONE || ix == NONE || ix >= MAX_INDEX)
                    continue;
                if (ix + 1 > vcount[p])
                    vcount[p] = ix + 1;
            }
        }
        uint64_t sum = 0;
        if (vertex_firsts(vfirst, vcount, np, &sum) != 0)
            goto out;
        k->verts = gc_big_calloc(sum ? sum : 1, sizeof *k->verts);
        k->nverts = (size_t)sum;
        /* positions as three arrays (gc_rs_project reads them four at a time:
         * 3 entries of slack) */
        k->kx = calloc(k->nverts + 3, sizeof *k->kx);
        k->ky = calloc(k->nverts + 3, sizeof *k->ky);
        k->kz = calloc(k->nverts + 3, sizeof *k->kz);
        vvalid = calloc(sum ? sum : 1, 1);
        k->stbad = calloc(sum ? sum : 1, 1);
        if (!k->verts || !vvalid || !k->kx || !k->ky || !k->kz || !k->stbad)
            goto out;
        FOR_CHUNKS(tv, ck)
        {
            vrows r;
            vertex_rows_read(tv, &vc, k->lightable, ck, &r);
            for (size_t j = 0; j < ck.n; j++) {
                uint32_t p = r.P[j], ix = r.IX[j];
                if (p == NONE || p >= np || ix == NONE || ix >= vcount[p])
                    continue;
                vertex_store(k, vvalid, &r, j, vfirst[p] + ix, ix < slot_n[p], slot_first[p] + ix);
            }
        }
    }
    for (size_t c = 0; c < nc; c++) {
        k->classes[c].vlo = UINT32_MAX;
        k->classes[c].vhi = 0;
    }
    /* Triangles, placed class by class (a stable counting sort). The
     * decoders publish a kind's triangles class by class (packets in class
     * order, triangles in packet order), and then the sort leaves every kept
     * row where it lies in row order: one pass checks each row and stores
     * its triangle at the next place, counting per class and noting whether
     * the kept rows' classes ever go down. Only if they do are the rows
     * sorted by the two passes below (the first keeps each row's packet,
     * NONE for a row not drawn, so the second reads only the corners and the
     * texture): a second read of the triangle table's columns (~8
     * instructions a row, and its cache misses) is paid only then. The
     * corner marks and the classes' vertex ranges are a union and a
     * minimum / maximum, so what the one pass set before giving up is
     * set again, to the same values, by the second. */
    const int in_order = gather_tris_in_order(k, tt, tpk, tlod, tskip, tcn, ttex, np, pk_class,
                                              vfirst, vcount, vvalid, per_class, nc);
    if (in_order < 0)
        goto out;
    if (!in_order) {
        memset(per_class, 0, (nc + 1) * sizeof *per_class);
        kept = malloc((tt->count ? tt->count : 1) * sizeof *kept);
        if (!kept)
            goto out;
        /* (the two passes as two loops, a row's corners in scalars: as one
         * loop switching on the pass, with the corners in an array, the
         * compiler rebuilt the array on the stack for every row of both) */
        FOR_CHUNKS(tt, ck)
        {
            uint32_t P[CHUNK], C0[CHUNK], C1[CHUNK], C2[CHUNK];
            uint8_t DROP[CHUNK];
            uint32_t *const KP = kept + ck.i0;
            tri_rows_read(tt, tpk, tlod, tskip, tcn, ck, P, DROP, C0, C1, C2);
            for (size_t j = 0; j < ck.n; j++) {
                const uint32_t p = P[j];
                KP[j] = NONE;
                if (!tri_row_kept(p, C0[j], C1[j], C2[j], DROP[j], np, pk_class, vfirst, vcount,
                                  vvalid))
                    continue;
                KP[j] = p;
                per_class[pk_class[p]]++;
            }
        }
        if (place_classes(k, per_class, nc) != 0)
            goto out;
        /* every entry is written below (one per kept row): not zeroed first */
        k->tris = gc_big_alloc((k->ntris ? k->ntris : 1) * sizeof *k->tris);
        if (!k->tris)
            goto out;
        FOR_CHUNKS(tt, ck)
        {
            uint32_t C0[CHUNK], C1[CHUNK], C2[CHUNK], TX[CHUNK];
            const uint32_t *const KP = kept + ck.i0;
            chunk_index(tt, tcn[0], ck, C0);
            chunk_index(tt, tcn[1], ck, C1);
            chunk_index(tt, tcn[2], ck, C2);
            chunk_index(tt, ttex, ck, TX);
            /* (the kind's arrays in locals, the triangle stored whole: the
             * vvalid byte stores may alias anything, and field by field the
             * compiler reloaded k->tris and k->classes after each) */
            otri *const tris = k->tris;
            oclass *const classes = k->classes;
            for (size_t j = 0; j < ck.n; j++) {
                const uint32_t p = KP[j];
                if (p == NONE)
                    continue;
                const uint32_t cls = pk_class[p], vf = vfirst[p];
                const otri o = {{vf + C0[j], vf + C1[j], vf + C2[j]}, TX[j]};
                tris[per_class[cls]++] = o;
                tri_mark(&classes[cls], &o, vvalid);
            }
        }
    }
    free(kept);
    kept = NULL;
    /* The class's radius: the largest squared distance of a vertex some kept
     * triangle names (marked above), its square root once below: sqrt is
     * correctly rounded and monotonic, so that is the largest of the
     * corners' distances, bit for bit. Once a vertex, not once a corner
     * (each vertex is a corner of about three triangles): the same values,
     * and a maximum does not depend on the order or on repeats. A corner
     * of a packet's triangle is a vertex of that packet, so its class is
     * the packet's. */
    for (size_t p = 0; p < np; p++) {
        if (pk_class[p] == NONE)
            continue;
        oclass *cl = &k->classes[pk_class[p]];
        double radius = cl->radius;
        for (uint32_t g = vfirst[p], ge = vfirst[p] + vcount[p]; g < ge; g++) {
            if (!(vvalid[g] & VV_CORNER))
                continue;
            const double x = k->kx[g], y = k->ky[g], z = k->kz[g];
            const double len2 = x * x + y * y + z * z;
            if (len2 > radius)
                radius = len2;
        }
        cl->radius = radius;
    }
    for (size_t c = 0; c < nc; c++) {
        oclass *cl = &k->classes[c];
        cl->radius = sqrt(cl->radius); /* the largest squared distance until here */
        if (cl->vhi <= cl->vlo)
            cl->vlo = cl->vhi = 0;
        if (cl->vhi - cl->vlo > k->span)
            k->span = cl->vhi - cl->vlo;
    }
    /* gc_rs_project works four points at a time: 3 entries of slack */
    k->pv = calloc((size_t)k->span + 3, sizeof *k->pv);
    k->ccol = calloc(k->span ? k->span : 1, sizeof *k->ccol);
    k->cstate = calloc(k->span ? k->span : 1, 1);
    if (!k->pv || !k->ccol || !k->cstate)
        goto out;
    for (size_t c = 0; c < nc; c++)
        for (uint32_t g = k->classes[c].vlo; g < k->classes[c].vhi; g++)
            k->classes[c].stbad |= k->stbad[g];
    if (k->lightable == OLIGHT_MOBY) {
        k->memo = calloc(MEMO_SLOTS, sizeof *k->memo);
        if (!k->memo)
            goto out;
    }
    /* instances, in table order */
    k->inst = calloc(ti->count ? ti->count : 1, sizeof *k->inst);
    if (!k->inst)
        goto out;
    for (size_t i = 0; i < ti->count; i++) {
        const uint8_t *r = row_at(ti, i);
        uint32_t c = get_index(r, icls);
        oinst *o = &k->inst[k->ninst];
        memset(o, 0, sizeof *o);
        int good = c != NONE && c < nc;
        for (int e = 0; e < 12 && good; e++) {
            o->m[e] = get_fl(r, im[e]);
            good = finite_f(o->m[e]);
        }
        if (!good) {
            k->unresolved++;
            continue;
        }
        o->cls = c;
        o->row = (uint32_t)i;
        o->light = -1;
        if (k->lightable == OLIGHT_MOBY || k->lightable == OLIGHT_SHRUB) {
            double l = get_f(r, ilight);
            o->light = l >= 0 && l < 4294967296.0 ? (int64_t)l : -1;
        }
        if (k->lightable == OLIGHT_SHRUB)
            for (int a = 0; a < 3; a++) {
                double v = get_f(r, icol[a]);
                o->colour[a] = (uint8_t)(v > 0 ? (v < 255 ? v : 255) : 0);
            }
        /* |M v| <= |M|_F |v| for the 3x3 part; the float evaluation in gc_rs_project adds at most
         * a few ulps of the terms, covered by the relative and absolute margins */
        double fro = 0.0, t2 = 0.0;
        for (int e = 0; e < 9; e++)
            fro += (double)o->m[e] * o->m[e];
        for (int e = 9; e < 12; e++)
            t2 += (double)o->m[e] * o->m[e];
        double span = sqrt(fro) * k->classes[c].radius; /* the triangles are gathered */
        o->reach = span * (1.0 + 1e-5) + 1e-5 * (sqrt(t2) + span) + 1e-3;
        k->ninst++;
    }
    k->ntex = texture_span(&k->tris[0].texture, k->ntris, sizeof *k->tris);
    k->tex = calloc(k->ntex ? k->ntex : 1, sizeof *k->tex);
    if (!k->tex)
        goto out;
    rc = okind_gather_light(k, ts, nt);
out:
    free(pk_class);
    free(vfirst);
    free(vcount);
    free(per_class);
    free(slot_first);
    free(slot_n);
    free(vvalid);
    free(kept);
    return rc;
}

/* A patch's vertex-info count (vi), else its position count. */
static inline uint32_t *patch_count(rpatch *pt, int vi)
{
    return vi ? &pt->vi_count : &pt->vert_count;
}

/* Each patch's first position (vi: first vertex-info entry), the running total of the counts
 * before it; -1 when the total passes UINT32_MAX / 2 (not below one a row of a table in
 * memory). */
static int patch_firsts(rpatch *patches, size_t npatches, int vi, uint64_t *total)
{
    uint64_t sum = 0;
    for (size_t p = 0; p < npatches; p++) {
        if (vi) {
            patches[p].vi_first = (uint32_t)sum;
            sum += patches[p].vi_count;
        } else {
            patches[p].vert_first = (uint32_t)sum;
            sum += patches[p].vert_count;
        }
        if (sum > UINT32_MAX / 2)
            return -1;
    }
    *total = sum;
    return 0;
}

/* Bucket rows of a per-patch table by (patch_row, index): counts[p] becomes
 * the largest index + 1, then first[] the prefix sums. */
static int bucket(const gc_table *t, colref patch_c, colref index_c, rpatch *patches,
                  size_t npatches, int vi, uint32_t *total)
{
    FOR_CHUNKS(t, ck)
    {
        uint32_t P[CHUNK], IX[CHUNK];
        chunk_index(t, patch_c, ck, P);
        chunk_index(t, index_c, ck, IX);
        for (size_t j = 0; j < ck.n; j++) {
            uint32_t p = P[j], ix = IX[j];
            if (p == NONE || p >= npatches || ix == NONE || ix >= MAX_INDEX)
                continue;
            uint32_t *cnt = patch_count(&patches[p], vi);
            if (ix + 1 > *cnt)
                *cnt = ix + 1;
        }
    }
    uint64_t sum;
    if (patch_firsts(patches, npatches, vi, &sum) != 0)
        return -1;
    *total = (uint32_t)sum;
    return 0;
}

/* The raw 32-bit pattern of an F32 column (the light bank is PS2 float:
 * patterns the host reads as NaN or infinity must reach the float model
 * unchanged, so not through get_f's double). */
static int f32_bits(const uint8_t *row, colref c, uint32_t *out)
{
    if (!c.ok || c.type != GC_T_F32)
        return 0;
    memcpy(out, row + c.ofs, 4);
    return 1;
}

/* What object lighting needs from the level: the accepted normal table
 * (normals.table: found, overlay_ofs; 256 entries of (cos, sin) patterns in
 * the overlay) and the light bank (gameplay.dir_light colour_a_r ..
 * direction_b_z), the same inputs the tfrag lighting pass reads
 * (docs/formats/tfrag.md 8). Mobys need both, shrubs the bank. -1 only when
 * memory runs out. */
static int load_object_lights(gc_render_scene *s, const gc_table *ts, size_t nt)
{
    const gc_table *tn = find_table(ts, nt, "normals.table");
    colref nf = find_col(tn, "found"), no = find_col(tn, "overlay_ofs");
    if (tn && tn->count == 1 && nf.ok && no.ok && s->lv->overlay.present &&
        get_f(row_at(tn, 0), nf) != 0.0) {
        double at = get_f(row_at(tn, 0), no);
        if (at >= 0 && at <= (double)s->lv->overlay.size &&
            s->lv->overlay.size - (uint64_t)at >= 256u * 8u)
            s->normal_table = s->lv->overlay.data + (uint64_t)at;
    }
    /* the bank without a normal table still lights the shrubs (their normals are their own) */
    const gc_table *tl = find_table(ts, nt, "gameplay.dir_light");
    if (!tl || tl->count == 0)
        return 0;
    static const char *const names[2][2] = {{"colour_a", "direction_a"},
                                            {"colour_b", "direction_b"}};
    static const char lanes[4] = {'r', 'g', 'b', 'w'}, axes[3] = {'x', 'y', 'z'};
    colref c[2][7];
    for (int h = 0; h < 2; h++)
        for (int e = 0; e < 7; e++) {
            char nm[32];
            if (e < 4)
                snprintf(nm, sizeof nm, "%s_%c", names[h][0], lanes[e]);
            else
                snprintf(nm, sizeof nm, "%s_%c", names[h][1], axes[e - 4]);
            c[h][e] = find_col(tl, nm);
            if (!c[h][e].ok || c[h][e].type != GC_T_F32)
                return 0;
        }
    s->lights = calloc(tl->count, sizeof *s->lights);
    if (!s->lights)
        return -1;
    for (size_t i = 0; i < tl->count; i++)
        for (int h = 0; h < 2; h++)
            for (int e = 0; e < 7; e++)
                f32_bits(row_at(tl, i), c[h][e], &s->lights[i][h][e]);
    s->nlights = tl->count > UINT32_MAX ? UINT32_MAX : (uint32_t)tl->count;
    return 0;
}

/* tfrag.vertex's columns the scene reads, and a chunk of its rows. */
typedef struct tcols {
    colref pk, ix, p[3], c[4];
} tcols;
typedef struct trows {
    uint32_t P[CHUNK], IX[CHUNK];
    float X[CHUNK], Y[CHUNK], Z[CHUNK];
    uint8_t C[4][CHUNK];
} trows;

static inline void tfrag_rows_read(const gc_table *tv, const tcols *c, chunk ck, trows *r)
{
    chunk_index(tv, c->pk, ck, r->P);
    chunk_index(tv, c->ix, ck, r->IX);
    chunk_float(tv, c->p[0], ck, r->X);
    chunk_float(tv, c->p[1], ck, r->Y);
    chunk_float(tv, c->p[2], ck, r->Z);
    for (int k = 0; k < 4; k++)
        chunk_byte(tv, c->c[k], ck, 128.0, 255, r->C[k]);
}

/* The one-pass placement tfrag_verts_in_order and tfrag_vis_in_order share,
 * as gather_verts_in_order does the objects' (see there): while the placed
 * rows' patches never go down and no index lies past one a row, each row's
 * slot is the running total of the counts of the patches before its own plus
 * its index, and it is placed as it is read. vi selects the patches' vi
 * counts, else their position counts, as in bucket. */
typedef struct in_order {
    rpatch *patches;
    size_t npatches;
    size_t cap; /* slots at most: one a row */
    int vi;
    uint32_t cur;   /* the patch of the last placed row */
    uint64_t first; /* its first slot */
} in_order;

#define IN_ORDER_SKIP    UINT64_MAX        /* a row no patch takes (bucket skips it too) */
#define IN_ORDER_GIVE_UP (UINT64_MAX - 1u) /* out of order, or past cap */

static in_order in_order_start(gc_render_scene *s, size_t rows, int vi)
{
    in_order io = {s->patches, s->npatches, rows, vi, NONE, 0};
    return io;
}

/* Row (p, ix)'s slot, its patch's count raised to ix + 1, or one of the two
 * markers above. */
static inline uint64_t in_order_slot(in_order *io, uint32_t p, uint32_t ix)
{
    if (p == NONE || p >= io->npatches || ix == NONE || ix >= MAX_INDEX)
        return IN_ORDER_SKIP;
    if (p != io->cur) {
        if (io->cur != NONE) {
            if (p < io->cur)
                return IN_ORDER_GIVE_UP;
            io->first += *patch_count(&io->patches[io->cur], io->vi);
        }
        io->cur = p;
    }
    const uint64_t g = io->first + ix;
    if (g >= io->cap)
        return IN_ORDER_GIVE_UP;
    uint32_t *n = patch_count(&io->patches[p], io->vi);
    if (ix + 1 > *n)
        *n = ix + 1;
    return g;
}

/* The end of a placement into buf (io->cap slots of elem bytes); returns the
 * block to keep. *rc is 1 when done (the patches' firsts are bucket's, the
 * block cut to the total; a failed cut keeps the larger block, still valid),
 * 0 when it gave up (the block freed, NULL returned, the counts zero: the
 * caller places the rows in two passes), -1 when the total overflows. */
static void *in_order_finish(const in_order *io, void *buf, size_t elem, int gave_up, int *rc)
{
    if (gave_up) {
        gc_big_free(buf);
        for (size_t p = 0; p < io->npatches; p++)
            *patch_count(&io->patches[p], io->vi) = 0;
        *rc = 0;
        return NULL;
    }
    uint64_t sum;
    if (patch_firsts(io->patches, io->npatches, io->vi, &sum) != 0) {
        *rc = -1;
        return buf;
    }
    if (sum < io->cap) {
        const size_t n = sum ? (size_t)sum : 1;
        void *v = gc_big_realloc(buf, io->cap * elem, n * elem);
        buf = v ? v : buf;
    }
    *rc = 1;
    return buf;
}

static inline void tfrag_vert_store(rvert *v, const trows *r, size_t j)
{
    v->pos[0] = r->X[j];
    v->pos[1] = r->Y[j];
    v->pos[2] = r->Z[j];
    for (int k = 0; k < 4; k++)
        v->rgba[k] = r->C[k][j];
    v->flags |= RV_VALID;
}

/* The terrain's positions in one pass (in_order above). 1 when done
 * (s->verts), 0 when it gave up (s->verts freed, the counts zero), -1 when
 * memory runs out. */
static int tfrag_verts_in_order(gc_render_scene *s, const gc_table *tv, const tcols *c)
{
    in_order io = in_order_start(s, tv->count, 0);
    s->verts = gc_big_calloc(io.cap ? io.cap : 1, sizeof *s->verts);
    if (!s->verts)
        return -1;
    int gave_up = 0, rc;
    FOR_CHUNKS(tv, ck)
    {
        trows r;
        tfrag_rows_read(tv, c, ck, &r);
        for (size_t j = 0; j < ck.n; j++) {
            const uint64_t g = in_order_slot(&io, r.P[j], r.IX[j]);
            if (g == IN_ORDER_SKIP)
                continue;
            if (g == IN_ORDER_GIVE_UP) {
                gave_up = 1;
                goto done;
            }
            tfrag_vert_store(&s->verts[g], &r, j);
        }
    }
done:
    s->verts = in_order_finish(&io, s->verts, sizeof *s->verts, gave_up, &rc);
    return rc;
}

/* tfrag.vertex_info's columns the scene reads, and a chunk of its rows. */
typedef struct icols {
    colref pk, ix, s, t, v, par, tier;
} icols;
typedef struct irows {
    uint32_t P[CHUNK], IX[CHUNK], V[CHUNK], PAR[CHUNK];
    float S[CHUNK], T[CHUNK];
    double TIER[CHUNK];
} irows;

static inline void tfrag_vi_read(const gc_table *ti, const icols *c, chunk ck, irows *r)
{
    chunk_index(ti, c->pk, ck, r->P);
    chunk_index(ti, c->ix, ck, r->IX);
    chunk_float(ti, c->s, ck, r->S);
    chunk_float(ti, c->t, ck, r->T);
    chunk_index(ti, c->v, ck, r->V);
    chunk_index(ti, c->par, ck, r->PAR);
    chunk_double(ti, c->tier, ck, r->TIER);
}

/* Row j as a vertex-info entry of a patch with nv positions. */
static inline void tfrag_vi_store(rvi *e, const irows *r, size_t j, uint32_t nv)
{
    e->s = r->S[j];
    e->t = r->T[j];
    e->flags = VI_VALID;
    e->vertex = (uint16_t)(r->V[j] < nv ? r->V[j] : 0);
    e->flags |= r->V[j] < nv ? VI_VERTEX : r->V[j] != NONE ? VI_VERTEX_BAD : 0;
    e->parent0 = (uint16_t)(r->PAR[j] < nv ? r->PAR[j] : 0);
    e->flags |= r->PAR[j] < nv ? VI_PARENT : 0;
    double tier = r->TIER[j];
    e->tier = (uint8_t)(tier >= 1 && tier <= 2 ? tier : 0);
}

/* The terrain's vertex-info entries in one pass (in_order above; the
 * patches' vi counts). 1 when done (s->vis), 0 when it gave up (s->vis
 * freed, the vi counts zero), -1 when memory runs out. */
static int tfrag_vis_in_order(gc_render_scene *s, const gc_table *ti, const icols *c)
{
    in_order io = in_order_start(s, ti->count, 1);
    s->vis = gc_big_calloc(io.cap ? io.cap : 1, sizeof *s->vis);
    if (!s->vis)
        return -1;
    int gave_up = 0, rc;
    FOR_CHUNKS(ti, ck)
    {
        irows r;
        tfrag_vi_read(ti, c, ck, &r);
        for (size_t j = 0; j < ck.n; j++) {
            const uint64_t g = in_order_slot(&io, r.P[j], r.IX[j]);
            if (g == IN_ORDER_SKIP)
                continue;
            if (g == IN_ORDER_GIVE_UP) {
                gave_up = 1;
                goto done;
            }
            tfrag_vi_store(&s->vis[g], &r, j, s->patches[r.P[j]].vert_count);
        }
    }
done:
    s->vis = in_order_finish(&io, s->vis, sizeof *s->vis, gave_up, &rc);
    return rc;
}

gc_render_scene *gc_render_scene_new(const gc_level *lv, char *err, size_t errlen)
{
    gc_table *ts = calloc(lv->table_count ? lv->table_count : 1, sizeof *ts);
    gc_render_scene *s = calloc(1, sizeof *s);
    if (!ts || !s) {
        free(ts);
        free(s);
        scene_err(err, errlen, "out of memory", "");
        return NULL;
    }
    s->lv = lv;
    gc_level_tables(lv, ts);
    size_t nt = lv->table_count;
    const gc_table *tb = find_table(ts, nt, "tfrag.block");
    const gc_table *tp = find_table(ts, nt, "tfrag.patch");
    const gc_table *tv = find_table(ts, nt, "tfrag.vertex");
    const gc_table *ti = find_table(ts, nt, "tfrag.vertex_info");
    const gc_table *tt = find_table(ts, nt, "tfrag.triangle");
    const gc_table *ta = find_table(ts, nt, "tfrag.adgif");
    if (!tp || !tv || !tt) {
        scene_err(err, errlen,
                  "no tfrag geometry tables (tfrag.patch, tfrag.vertex, tfrag.triangle)",
                  "in this build");
        goto fail;
    }
    s->lod_scale = 32.0f; /* formats.md 5.1: the block's LOD float, 32.0 on every retail level */
    if (tb && tb->count > 0) {
        colref c = find_col(tb, "lod_scale");
        float v = get_fl(row_at(tb, 0), c);
        if (c.ok && v > 0.0f && finite_f(v))
            s->lod_scale = v;
    }

    /* patches */
    colref pcx = find_col(tp, "cx"), pcy = find_col(tp, "cy"), pcz = find_col(tp, "cz"),
           prad = find_col(tp, "radius");
    if (!pcx.ok || !pcy.ok || !pcz.ok || !prad.ok) {
        scene_err(err, errlen, "missing sphere columns (cx, cy, cz, radius) in", "tfrag.patch");
        goto fail;
    }
    s->npatches = tp->count;
    s->patches = calloc(s->npatches ? s->npatches : 1, sizeof *s->patches);
    if (!s->patches)
        goto nomem;
    for (size_t i = 0; i < tp->count; i++) {
        const uint8_t *r = row_at(tp, i);
        rpatch *p = &s->patches[i];
        p->sphere[0] = get_fl(r, pcx);
        p->sphere[1] = get_fl(r, pcy);
        p->sphere[2] = get_fl(r, pcz);
        p->sphere[3] = get_fl(r, prad);
        p->usable = finite_f(p->sphere[0]) && finite_f(p->sphere[1]) && finite_f(p->sphere[2]) &&
                    p->sphere[3] >= 0.0f && p->sphere[3] < 1e7f;
    }

    /* positions */
    colref vp = find_col(tv, "patch_row"), vix = find_col(tv, "index"), vx = find_col(tv, "x"),
           vy = find_col(tv, "y"), vz = find_col(tv, "z"), vr = find_col(tv, "r"),
           vg = find_col(tv, "g"), vb = find_col(tv, "b"), va = find_col(tv, "a");
    if (!vp.ok || !vix.ok || !vx.ok || !vy.ok || !vz.ok) {
        scene_err(err, errlen, "missing patch_row/index/x/y/z in", "tfrag.vertex");
        goto fail;
    }
    /* Absent colour columns draw at 1.0 (0x80), the neutral modulation. */
    const tcols tvc = {vp, vix, {vx, vy, vz}, {vr, vg, vb, va}};
    const int verts_in_order = tfrag_verts_in_order(s, tv, &tvc);
    if (verts_in_order < 0)
        goto nomem;
    if (!verts_in_order) {
        uint32_t nverts = 0;
        if (bucket(tv, vp, vix, s->patches, s->npatches, 0, &nverts) != 0)
            goto nomem;
        s->verts = gc_big_calloc(nverts ? nverts : 1, sizeof *s->verts);
        if (!s->verts)
            goto nomem;
        FOR_CHUNKS(tv, ck)
        {
            trows r;
            tfrag_rows_read(tv, &tvc, ck, &r);
            for (size_t j = 0; j < ck.n; j++) {
                uint32_t p = r.P[j], ix = r.IX[j];
                if (p == NONE || p >= s->npatches || ix == NONE || ix >= s->patches[p].vert_count)
                    continue;
                tfrag_vert_store(&s->verts[s->patches[p].vert_first + ix], &r, j);
            }
        }
    }

    /* lit colours (optional: tfrag.light from the decoder's lighting pass,
     * docs/formats/tfrag.md §8.1); a vertex without a lit row keeps its
     * stored colour */
    s->lighting = 1;
    const gc_table *tl = find_table(ts, nt, "tfrag.light");
    if (tl) {
        colref lp = find_col(tl, "patch_row"), lix = find_col(tl, "index"),
               llit = find_col(tl, "lit"), lr = find_col(tl, "gs_r"), lg = find_col(tl, "gs_g"),
               lb = find_col(tl, "gs_b");
        if (lp.ok && lix.ok && llit.ok && lr.ok && lg.ok && lb.ok)
            FOR_CHUNKS(tl, ck)
            {
                uint32_t P[CHUNK], IX[CHUNK];
                double LIT[CHUNK];
                uint8_t C[3][CHUNK];
                chunk_index(tl, lp, ck, P);
                chunk_index(tl, lix, ck, IX);
                chunk_double(tl, llit, ck, LIT);
                const colref cc[3] = {lr, lg, lb};
                for (int k = 0; k < 3; k++)
                    chunk_byte(tl, cc[k], ck, 0.0, 0x80, C[k]);
                for (size_t j = 0; j < ck.n; j++) {
                    uint32_t p = P[j], ix = IX[j];
                    if (p == NONE || p >= s->npatches || ix == NONE ||
                        ix >= s->patches[p].vert_count || LIT[j] == 0.0)
                        continue;
                    rvert *v = &s->verts[s->patches[p].vert_first + ix];
                    for (int k = 0; k < 3; k++)
                        v->lit_rgb[k] = C[k][j];
                    v->flags |= RV_LIT;
                    s->vertices_lit++;
                }
            }
    }

    /* vertex info (optional: without it triangles use their position
     * indices and draw untextured-looking at s = t = 0) */
    if (ti) {
        colref ip = find_col(ti, "patch_row"), iix = find_col(ti, "index"),
               itier = find_col(ti, "tier"), is = find_col(ti, "s"), it = find_col(ti, "t"),
               iv = find_col(ti, "vertex"), ipar = find_col(ti, "parent0");
        if (ip.ok && iix.ok && iv.ok) {
            const icols ic = {ip, iix, is, it, iv, ipar, itier};
            const int vis_in_order = tfrag_vis_in_order(s, ti, &ic);
            if (vis_in_order < 0)
                goto nomem;
            if (!vis_in_order) {
                uint32_t nvis = 0;
                if (bucket(ti, ip, iix, s->patches, s->npatches, 1, &nvis) != 0)
                    goto nomem;
                s->vis = gc_big_calloc(nvis ? nvis : 1, sizeof *s->vis);
                if (!s->vis)
                    goto nomem;
                FOR_CHUNKS(ti, ck)
                {
                    irows r;
                    tfrag_vi_read(ti, &ic, ck, &r);
                    for (size_t j = 0; j < ck.n; j++) {
                        uint32_t p = r.P[j], ix = r.IX[j];
                        if (p == NONE || p >= s->npatches || ix == NONE ||
                            ix >= s->patches[p].vi_count)
                            continue;
                        tfrag_vi_store(&s->vis[s->patches[p].vi_first + ix], &r, j,
                                       s->patches[p].vert_count);
                    }
                }
            }
        }
    }

    /* triangles */
    colref tpr = find_col(tt, "patch_row"), tlod = find_col(tt, "lod"), tcorner[3], tpos[3],
           ttex = find_col(tt, "texture"), tadg = find_col(tt, "adgif");
    colref aidx = find_col(ta, "index");
    const int adgif_by_index = tadg.ok && aidx.ok;
    static const char *const cn[3] = {"a", "b", "c"}, *const pn[3] = {"va", "vb", "vc"};
    for (int k = 0; k < 3; k++) {
        tcorner[k] = find_col(tt, cn[k]);
        tpos[k] = find_col(tt, pn[k]);
    }
    if (!tpr.ok || !((tcorner[0].ok && tcorner[1].ok && tcorner[2].ok) ||
                     (tpos[0].ok && tpos[1].ok && tpos[2].ok))) {
        scene_err(err, errlen, "missing patch_row and a/b/c or va/vb/vc in", "tfrag.triangle");
        goto fail;
    }
    /* ad-gif wrap modes, looked up by (patch, texture) */
    if (ta) {
        colref ap = find_col(ta, "patch_row"), atex = find_col(ta, "texture"),
               aws = find_col(ta, "wrap_s"), awt = find_col(ta, "wrap_t"), ak = find_col(ta, "k"),
               ammin = find_col(ta, "mmin");
        if (ap.ok && atex.ok) {
            s->adgifs = calloc(ta->count ? ta->count : 1, sizeof *s->adgifs);
            if (!s->adgifs)
                goto nomem;
            for (size_t i = 0; i < ta->count; i++) {
                const uint8_t *r = row_at(ta, i);
                radgif *g = &s->adgifs[s->nadgifs];
                g->patch = get_index(r, ap);
                g->key = get_index(r, adgif_by_index ? aidx : atex);
                if (g->patch == NONE || g->key == NONE)
                    continue;
                g->row = (uint32_t)i;
                g->wrap_s = (uint8_t)gc_rs_wrap_from_clamp(wrap_mode(r, aws));
                g->wrap_t = (uint8_t)gc_rs_wrap_from_clamp(wrap_mode(r, awt));
                /* TEX1 MMIN 2..5 are the mipmapped minification filters
                 * (retail uses 4, LINEAR_MIPMAP_NEAREST); 0 and 1 sample
                 * the base level only. Without an MMIN column, assume 4. */
                double mmin = ammin.ok ? get_f(r, ammin) : 4.0;
                g->has_k = ak.ok && mmin >= 2.0 && mmin <= 5.0;
                /* The MMAG bit is not decoded: the MMIN filter type is used
                 * for magnification too. */
                g->linear = mmin == 1.0 || mmin == 4.0 || mmin == 5.0;
                g->lod_k = ak.ok ? (float)get_f(r, ak) / 16.0f : 0.0f;
                s->nadgifs++;
            }
            qsort(s->adgifs, s->nadgifs, sizeof *s->adgifs, cmp_adgif);
        }
    }
    s->tris = gc_big_calloc(tt->count ? tt->count : 1, sizeof *s->tris);
    if (!s->tris)
        goto nomem;
    const radgif *last_g = NULL;               /* consecutive triangles mostly share their ad-gif */
    uint32_t run_patch = NONE, run_lod = NONE; /* the last run's (NONE: none yet) */
    uint32_t last_patch = NONE, last_key = NONE;
    FOR_CHUNKS(tt, ck)
    {
        uint32_t P[CHUNK], VI[3][CHUNK], V[3][CHUNK], TX[CHUNK], AG[CHUNK];
        uint8_t LOD[CHUNK];
        chunk_index(tt, tpr, ck, P);
        chunk_lod3(tt, tlod, ck, LOD);
        for (int k = 0; k < 3; k++) {
            chunk_index(tt, tcorner[k], ck, VI[k]);
            chunk_index(tt, tpos[k], ck, V[k]);
        }
        chunk_index(tt, ttex, ck, TX);
        chunk_index(tt, tadg, ck, AG);
        /* The corners' checks a column at a time, over the whole chunk (no
         * branch, so the compiler can put them in vector lanes), against
         * each row's patch counts gathered first; then one pass builds the
         * rows. Row by row, with the byte stores of `has` aliasing the
         * patch, this loop cost ~150 instructions a row. A row whose patch
         * is out of range reads counts 0 and is skipped below. */
        const rpatch *const patches = s->patches;
        const size_t npatches = s->npatches;
        uint32_t NVI[CHUNK], NV[CHUNK], HAS[CHUNK];
        for (size_t j = 0; j < ck.n; j++) {
            const uint32_t p = P[j];
            const int in = p < npatches; /* (NONE is not: a count is below it) */
            NVI[j] = in ? patches[p].vi_count : 0;
            NV[j] = in ? patches[p].vert_count : 0;
            HAS[j] = 0;
        }
        /* four rows a step in a vector type (unsigned compares, masks: the
         * same integers as the scalar form); the lanes past ck.n are zeroed
         * first and never read back */
        const size_t n4 = (ck.n + 3) & ~(size_t)3;
        for (size_t j = ck.n; j < n4; j++) {
            NVI[j] = NV[j] = HAS[j] = 0;
            for (int k = 0; k < 3; k++)
                VI[k][j] = V[k][j] = 0;
        }
        for (size_t j = 0; j < n4; j += 4) {
            u32x4 nvi, nv, has = {0, 0, 0, 0};
            memcpy(&nvi, NVI + j, sizeof nvi);
            memcpy(&nv, NV + j, sizeof nv);
            for (int k = 0; k < 3; k++) {
                u32x4 a, b;
                memcpy(&a, VI[k] + j, sizeof a);
                memcpy(&b, V[k] + j, sizeof b);
                /* NONE is at or past any count */
                const u32x4 has_vi = (u32x4)(a < nvi), has_v = (u32x4)(b < nv);
                a &= has_vi;
                b &= has_v;
                has |= (has_vi & (1u << k)) | (has_v & (8u << k));
                memcpy(VI[k] + j, &a, sizeof a);
                memcpy(V[k] + j, &b, sizeof b);
            }
            memcpy(HAS + j, &has, sizeof has);
        }
        for (size_t j = 0; j < ck.n; j++) {
            uint32_t p = P[j];
            if (p == NONE || p >= npatches)
                continue;
            rtri *tr = &s->tris[s->ntris++];
            tr->patch = p;
            /* A LOD outside 0..2 is never selected, so such a row is not drawn. */
            tr->lod = LOD[j];
            if (p != run_patch || tr->lod != run_lod) { /* a new run (each run's count below) */
                if (s->nruns == s->cap_runs) {
                    const size_t cap = s->cap_runs ? 2 * s->cap_runs : 256;
                    rrun *r = realloc(s->runs, cap * sizeof *r);
                    if (!r)
                        goto nomem;
                    s->runs = r;
                    s->cap_runs = cap;
                }
                s->runs[s->nruns++] = (rrun){(uint32_t)(s->ntris - 1), 0, p, tr->lod};
                run_patch = p;
                run_lod = tr->lod;
            }
            tr->has = (uint8_t)HAS[j];
            for (int k = 0; k < 3; k++) {
                tr->vi[k] = (uint16_t)VI[k][j];
                tr->v[k] = (uint16_t)V[k][j];
            }
            const uint32_t tex = TX[j];
            tr->texture = (uint16_t)(tex < MAX_TEXTURES ? tex : TEX_NONE);
            if (tex < MAX_TEXTURES && tex + 1 > s->ntex)
                s->ntex = tex + 1;
            const uint32_t key = adgif_by_index ? AG[j] : tex;
            if (key != last_key || p != last_patch) {
                last_g = key == NONE ? NULL : find_adgif(s, p, key);
                last_key = key;
                last_patch = p;
            }
            tr->adgif = last_g ? (uint32_t)(last_g - s->adgifs) : NONE;
        }
    }

    /* each run ends where the next begins */
    for (size_t r = 0; r < s->nruns; r++)
        s->runs[r].count =
            (r + 1 < s->nruns ? s->runs[r + 1].first : (uint32_t)s->ntris) - s->runs[r].first;
    /* (s->ntex: 1 + the largest texture index below MAX_TEXTURES, as texture_span) */
    s->tex = calloc(s->ntex ? s->ntex : 1, sizeof *s->tex);
    if (!s->tex)
        goto nomem;
    s->objects = 1;
    s->cull = 1;
    for (int k = 0; k < GC_RENDER_OBJECT_KINDS; k++)
        if (okind_gather(&s->kinds[k], &okind_specs[k], ts, nt) != 0)
            goto nomem;
    if (load_object_lights(s, ts, nt) != 0)
        goto nomem;
    free(ts);
    return s;
nomem:
    scene_err(err, errlen, "out of memory building the scene", "");
fail:
    free(ts);
    gc_render_scene_free(s);
    return NULL;
}

void gc_render_scene_free(gc_render_scene *s)
{
    if (!s)
        return;
    if (s->tex)
        for (size_t i = 0; i < s->ntex; i++)
            free(s->tex[i].clut);
    free(s->tex);
    for (int k = 0; k < GC_RENDER_OBJECT_KINDS; k++)
        okind_free(&s->kinds[k]);
    free(s->patches);
    gc_big_free(s->verts);
    gc_big_free(s->vis);
    gc_big_free(s->tris);
    free(s->runs);
    free(s->adgifs);
    free(s->lights);
    free(s);
}

const gc_render_stats *gc_render_scene_stats(const gc_render_scene *s)
{
    return &s->stats;
}

/* ---- views --------------------------------------------------------------- */

static void set3(float o[3], float x, float y, float z)
{
    o[0] = x;
    o[1] = y;
    o[2] = z;
}

/* Union of the patch spheres: centre of their bounding box, radius reaching
 * the farthest sphere surface. mn receives the box's minimum corner. */
static int sphere_union(const gc_render_scene *s, float c[3], float *r, float mn[3])
{
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    int any = 0;
    for (size_t i = 0; i < s->npatches; i++) {
        const rpatch *p = &s->patches[i];
        if (!p->usable)
            continue;
        for (int k = 0; k < 3; k++) {
            float a = p->sphere[k] - p->sphere[3], b = p->sphere[k] + p->sphere[3];
            if (!any || a < lo[k])
                lo[k] = a;
            if (!any || b > hi[k])
                hi[k] = b;
        }
        any = 1;
    }
    if (!any)
        return -1;
    for (int k = 0; k < 3; k++) {
        c[k] = (lo[k] + hi[k]) * 0.5f;
        mn[k] = lo[k];
    }
    float rr = 0.0f;
    for (size_t i = 0; i < s->npatches; i++) {
        const rpatch *p = &s->patches[i];
        if (!p->usable)
            continue;
        float d[3] = {p->sphere[0] - c[0], p->sphere[1] - c[1], p->sphere[2] - c[2]};
        float e = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + p->sphere[3];
        if (e > rr)
            rr = e;
    }
    *r = rr > 1.0f ? rr : 1.0f;
    return 0;
}

/* Overview: from outside the union, 1.8 radii from its centre along a fixed
 * direction (south-west, 42 degrees up; world z is up), looking at the
 * centre. At focal 1 and 640x448 the vertical half-angle is atan(0.7) = 35
 * degrees and the union subtends asin(1/1.8) = 33.7, so all of it is in
 * frame; the steep angle keeps mostly flat terrain from becoming a sliver. */
#define OVERVIEW_DISTANCE 1.8f
/* Ground: 2 units above the top of the chosen patch's sphere, looking
 * towards the union centre, pitched down 3 in 10 (about 17 degrees). */
#define GROUND_CLEARANCE 2.0f
#define GROUND_PITCH     0.3f

int gc_render_scene_view(const gc_render_scene *s, const char *view, gc_view_params *vp, char *err,
                         size_t errlen)
{
    memset(vp, 0, sizeof *vp);
    float c[3], r, mn[3];
    if (sphere_union(s, c, &r, mn) != 0) {
        scene_err(err, errlen, "level has no usable tfrag patch spheres for view", view);
        return -1;
    }
    memcpy(vp->union_centre, c, sizeof vp->union_centre);
    vp->union_radius = r;
    set3(vp->up, 0, 0, 1);
    vp->focal = 1.0f;
    vp->patch = NONE;
    if (strcmp(view, "overview") == 0) {
        float dir[3] = {-0.5f, -0.6f, 0.7f};
        float len = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        for (int k = 0; k < 3; k++)
            vp->eye[k] = c[k] + dir[k] / len * (r * OVERVIEW_DISTANCE);
        memcpy(vp->target, c, sizeof vp->target);
        vp->near = r * 0.01f;
    } else if (strcmp(view, "ground") == 0) {
        /* The patch nearest (in x, y) to the point halfway from the centre
         * to the bounding box's minimum corner: inside the terrain, with
         * most of it ahead. Ties go to the lower patch index. */
        float ax = c[0] + (mn[0] - c[0]) * 0.5f, ay = c[1] + (mn[1] - c[1]) * 0.5f;
        float best = 0.0f;
        for (size_t i = 0; i < s->npatches; i++) {
            const rpatch *p = &s->patches[i];
            if (!p->usable)
                continue;
            float dx = p->sphere[0] - ax, dy = p->sphere[1] - ay;
            float d = dx * dx + dy * dy;
            if (vp->patch == NONE || d < best) {
                best = d;
                vp->patch = (uint32_t)i;
            }
        }
        const rpatch *p = &s->patches[vp->patch];
        set3(vp->eye, p->sphere[0], p->sphere[1], p->sphere[2] + p->sphere[3] + GROUND_CLEARANCE);
        float hx = c[0] - vp->eye[0], hy = c[1] - vp->eye[1];
        float hl = sqrtf(hx * hx + hy * hy);
        if (hl < 1e-3f) {
            hx = 1.0f;
            hy = 0.0f;
        } else {
            hx = hx / hl;
            hy = hy / hl;
        }
        set3(vp->target, vp->eye[0] + hx * 10.0f, vp->eye[1] + hy * 10.0f,
             vp->eye[2] - GROUND_PITCH * 10.0f);
        vp->near = 0.05f;
    } else {
        scene_err(err, errlen, "unknown view (known: overview, ground):", view);
        return -1;
    }
    snprintf(vp->name, sizeof vp->name, "%s", view);
    return 0;
}

int gc_view_params_text(const gc_view_params *vp, char *buf, size_t len)
{
    char patch[16];
    if (vp->patch == NONE)
        snprintf(patch, sizeof patch, "-");
    else
        snprintf(patch, sizeof patch, "%u", vp->patch);
    int n = snprintf(
        buf, len,
        "view=%s eye=(%.3f,%.3f,%.3f) target=(%.3f,%.3f,%.3f) up=(%.0f,%.0f,%.0f) "
        "focal=%.3f near=%.3f patch=%s union=(%.3f,%.3f,%.3f) r=%.3f",
        vp->name, (double)vp->eye[0], (double)vp->eye[1], (double)vp->eye[2], (double)vp->target[0],
        (double)vp->target[1], (double)vp->target[2], (double)vp->up[0], (double)vp->up[1],
        (double)vp->up[2], (double)vp->focal, (double)vp->near, patch, (double)vp->union_centre[0],
        (double)vp->union_centre[1], (double)vp->union_centre[2], (double)vp->union_radius);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* ---- drawing ------------------------------------------------------------- */

/* Texture `index`, decoded on first use with as many consecutive mip levels
 * as gc_texture_indexed_kind delivers (a level that fails or does not halve
 * ends the chain). NULL if level 0 cannot be decoded. The levels stay 8-bit
 * indices where they lie in the level's buffers, sampled through the
 * texture's 256 colours (gc_rs_texture.clut): the same texels
 * gc_texture_rgba_kind would expand, without writing four bytes per texel
 * of every texture a view might sample (49 M texels, 196 MB over the retail
 * sweep, most of its frames' page faults, for 31 M texels ever sampled). */
static const gc_rs_texture *get_texture_of(gc_render_scene *s, rtex *cache, uint32_t ncache,
                                           gc_texture_kind kind, uint32_t index, gc_rs_texture *out)
{
    if (index == NONE || index >= ncache) /* (every index a triangle names below MAX_TEXTURES) */
        return NULL;
    rtex *t = &cache[index];
    if (t->state == 0) {
        t->state = -1;
        for (int m = 0; m < MIP_LEVELS; m++) {
            gc_diag d;
            gc_diag_init(&d);
            const uint8_t *texels = NULL;
            uint32_t w = 0, h = 0;
            if (m == 0 && !t->clut && !(t->clut = malloc(sizeof *t->clut)))
                break; /* out of memory: untextured, as a texture that does not decode */
            /* the CLUT is the entry's, the same for every level: filled once */
            gc_status st = gc_texture_indexed_kind(s->lv, kind, index, m, 1, &texels,
                                                   m == 0 ? t->clut->rgba : NULL, &w, &h, &d);
            int ok =
                st == GC_OK && texels && w > 0 && h > 0 && w <= MAX_TEX_DIM && h <= MAX_TEX_DIM;
            if (ok && m > 0) /* each level halves the one before (1 stays 1) */
                ok = w == (t->w[m - 1] > 1 ? t->w[m - 1] / 2 : 1) &&
                     h == (t->h[m - 1] > 1 ? t->h[m - 1] / 2 : 1);
            if (!ok)
                break;
            t->texels[m] = texels;
            t->w[m] = w;
            t->h[m] = h;
            t->levels = (uint32_t)m + 1;
            t->state = 1;
        }
        if (t->state == 1) {
            s->stats.textures_decoded++;
            gc_rs_texture *rs = &t->rs;
            memset(rs, 0, sizeof *rs);
            rs->width = t->w[0];
            rs->height = t->h[0];
            rs->rgba = t->texels[0];
            gc_rs_clut_lanes(t->clut);
            rs->clut = t->clut;
            rs->wrap_s = GC_RS_WRAP_REPEAT;
            rs->wrap_t = GC_RS_WRAP_REPEAT;
            for (uint32_t m = 1; m < t->levels; m++) {
                rs->mip_width[m - 1] = t->w[m];
                rs->mip_height[m - 1] = t->h[m];
                rs->mip_rgba[m - 1] = t->texels[m];
            }
            /* The chain is used only with a K from the ad-gif (see the draw loop). */
            rs->mip_count = 0;
        } else {
            s->stats.textures_failed++;
        }
    }
    if (t->state != 1)
        return NULL;
    /* one copy per triangle: the description is built once, at decode */
    *out = t->rs;
    return out;
}

static const gc_rs_texture *get_texture(gc_render_scene *s, uint32_t index, gc_rs_texture *out)
{
    return get_texture_of(s, s->tex, s->ntex, GC_TEXTURE_TFRAG, index, out);
}

/* Every instance of every kind, after the terrain, in kind then table order
 * (the depth buffer settles what is in front). Textured triangles draw with
 * vertex colour 0x80 (texel x 1.0; the objects' own lighting is not
 * modelled), untextured ones with the kind's plain colour. Textures sample
 * the base level, nearest, REPEAT: the objects' ad-gif CLAMP/TEX1 are not
 * published as tables. */
/* An instance's bounding sphere in camera space: its centre (column 3 of
 * the instance matrix) in the camera's basis, in double, and its reach
 * widened by the float error the rasteriser's own camera-space coordinates
 * carry (relative 1e-5 of the distance to the eye). */
static void instance_sphere(const oinst *in, const gc_rs_camera *cam, double *x, double *y,
                            double *z, double *r)
{
    double d[3], cx = 0, cy = 0, cz = 0;
    for (int a = 0; a < 3; a++)
        d[a] = (double)in->m[9 + a] - cam->eye[a];
    for (int a = 0; a < 3; a++) {
        cx += d[a] * cam->right[a];
        cy += d[a] * cam->up[a];
        cz += d[a] * cam->forward[a];
    }
    *x = cx;
    *y = cy;
    *z = cz;
    *r = in->reach + 1e-5 * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* An instance none of whose triangles can cover a pixel centre: its sphere
 * (column 3, reach) lies wholly behind the near plane, or wholly beyond one
 * of the planes through the eye 2 pixels outside a frame edge (|f x| <=
 * (c + 2) z for x and y: the frame is centred). Every corner, every point of
 * every triangle and of what clipping makes of it is inside the sphere, so
 * on the culled side: nothing it would draw lands in the frame, and skipping
 * it changes no pixel. Evaluated in double from the camera's float basis;
 * the 2-pixel band covers the rasteriser's float projection and 1/16 snap. */
static int instance_outside(const oinst *in, const gc_rs_camera *cam)
{
    double x, y, z, r;
    instance_sphere(in, cam, &x, &y, &z, &r);
    if (z + r < cam->near)
        return 1;
    const double f = cam->focal_px, ex = cam->cx + 2.0, ey = cam->cy + 2.0;
    const double nx = sqrt(f * f + ex * ex), ny = sqrt(f * f + ey * ey);
    return (f * x - ex * z) / nx > r || (-f * x - ex * z) / nx > r || (f * y - ey * z) / ny > r ||
           (-f * y - ey * z) / ny > r;
}

/* An instance in front of the near plane whose every pixel would fail the
 * depth test: on every pixel of a box holding its sphere's image, the frame
 * already has a depth at or above a bound on the 1/w of any point of the
 * sphere. The sphere is instance_outside's (column 3, reach, the same
 * float-error margin on the camera-space coordinates); its points have
 * camera z >= zn = z - r > near, so 1/w <= 1 / zn, and the bound is 1.001 /
 * zn: the rasteriser's 1/w (a float reciprocal of a float z, interpolated
 * in single precision with weights summing to 1 inside the triangle) is
 * within a few float ulps of the exact one. The box bounds x/z and y/z over
 * the sphere's bounding box in camera space and adds 2 pixels (the 1/16
 * snap and the float projection). A pixel there whose depth is below the
 * bound keeps the instance. Nothing it would draw can pass the depth test,
 * so skipping it changes no pixel; its pixels are not counted in the
 * rasteriser's covered / depth-fail statistics. */
static int instance_hidden(const oinst *in, const gc_rs_camera *cam, const gc_rs_target *t)
{
    double x, y, z, r;
    instance_sphere(in, cam, &x, &y, &z, &r);
    const double zn = z - r, zf = z + r;
    if (!(zn > cam->near) || !(zn > 0.0))
        return 0;
    /* x/z over the box [x - r, x + r] x [zn, zf] (zn > 0): the largest value
     * divides a positive numerator by zn, a negative one by zf */
    const double xmax = (x + r) > 0 ? (x + r) / zn : (x + r) / zf;
    const double xmin = (x - r) > 0 ? (x - r) / zf : (x - r) / zn;
    const double ymax = (y + r) > 0 ? (y + r) / zn : (y + r) / zf;
    const double ymin = (y - r) > 0 ? (y - r) / zf : (y - r) / zn;
    const double f = cam->focal_px;
    const double sx0 = cam->cx + f * xmin - 2.0, sx1 = cam->cx + f * xmax + 2.0;
    const double sy0 = cam->cy - f * ymax - 2.0, sy1 = cam->cy - f * ymin + 2.0;
    /* outside +-2^30 the box is clamped anyway; the guard keeps the casts defined */
    const double lim = 1073741824.0;
    if (!(sx0 > -lim && sx1 < lim && sy0 > -lim && sy1 < lim))
        return 0;
    const double qb = 1.001 / zn;
    if (!(qb < 3.0e38))
        return 0;
    return gc_rs_depth_hides(t, (int64_t)floor(sx0), (int64_t)floor(sy0), (int64_t)ceil(sx1),
                             (int64_t)ceil(sy1), (float)qb);
}

/* The two-light sum of the tfrag pass for a unit normal n (docs/formats/tfrag.md 8;
 * decoders/dec_tfrag.c light_vertex): t = max(d, d w) with d = n.dir, for light A
 * and light B of set L; what each colour channel adds is L[h][k] t[h]. */
static void light_terms(const uint32_t (*L)[7], const uint32_t n[3], uint32_t t[2])
{
    for (int h = 0; h < 2; h++) {
        uint32_t d = gc_ps2i_dot3(n, &L[h][4]);
        t[h] = gc_ps2i_max(d, gc_ps2i_mul(d, L[h][3]));
    }
}

/* M3 v normalised (M3: the instance's columns 0..2, scale * R, so normalising
 * removes the scale; RSQRT.S of r.r). 0 when the result is zero. */
static int turn_normal(const oinst *in, const uint32_t v[3], uint32_t r[3])
{
    for (int a = 0; a < 3; a++)
        r[a] = gc_ps2i_madd(
            gc_ps2i_madd(gc_ps2i_mul(fbits(in->m[a]), v[0]), fbits(in->m[3 + a]), v[1]),
            fbits(in->m[6 + a]), v[2]);
    uint32_t len2 = gc_ps2i_dot3(r, r);
    if (gc_ps2_is_zero(len2))
        return 0;
    uint32_t inv = gc_ps2_rsqrt(GC_PS2_ONE, len2);
    for (int a = 0; a < 3; a++)
        r[a] = gc_ps2i_mul(r[a], inv);
    return 1;
}

/* x clamped to 0..1.0 and scaled to the GS 0..0x80 */
static uint8_t gs_colour(uint32_t x)
{
    return (uint8_t)gc_ps2i_ftoi(
        gc_ps2i_mul(gc_ps2i_clamp(x, 0, GC_PS2_ONE), 0x43000000u /* 128 */), 0);
}

/* The instance's lighting rotation: columns 0..2 of its matrix (scale * R)
 * each normalised (RSQRT.S of the column's dot with itself), which is R
 * for a rotation under any per-axis scale; a zero column stays zero. Once
 * per instance, so no vertex pays a square root or a divide. */
static void instance_rotation(okind *k, const oinst *in, uint32_t rot[9])
{
    for (int c = 0; c < 3; c++) {
        uint32_t col[3] = {fbits(in->m[3 * c]), fbits(in->m[3 * c + 1]), fbits(in->m[3 * c + 2])};
        uint32_t len2 = gc_ps2i_dot3(col, col);
        uint32_t inv = 0;
        if (!gc_ps2_is_zero(len2)) {
            /* RSQRT.S is a function of len2's bits alone (the float model
             * keeps no state), ~2,800 instructions of it, and instances
             * repeat their scales (most columns' len2 is one of a few
             * patterns near 1.0): a direct-mapped memo of len2 -> result.
             * A zero len2 never gets here, so key 0 marks an empty slot. */
            const uint32_t h = (len2 * 2654435761u) >> (32 - RSQ_BITS);
            if (k->rsq_key[h] != len2) {
                k->rsq_key[h] = len2;
                k->rsq_val[h] = gc_ps2_rsqrt(GC_PS2_ONE, len2);
            }
            inv = k->rsq_val[h];
        }
        for (int a = 0; a < 3; a++)
            rot[3 * c + a] = gc_ps2i_mul(col[a], inv);
    }
}

/* A moby vertex lit, in the PS2 float model (gc_ps2_*: bit-exact on every
 * compiler and optimisation level), as the tfrag pass lights a vertex:
 *
 *   n     = (sin az cos el, cos az cos el, sin el) from the normal table:
 *           the moby vertex's own convention (docs/formats/moby.md; not the
 *           tfrag records' negated (cos, sin) order), a unit vector;
 *   n'    = R n, R the instance's rotation (instance_rotation: the scale
 *           taken out of each column), so n' is unit too;
 *   out.k = base.k + A.k t_A + B.k t_B (two MADD.S), clamped to 0..1.0 and
 *           scaled to the GS 0..0x80.
 *
 * base is the colour the vertex draws with unlit (0x80 textured, the kind's
 * plain colour untextured) read as 0x80 = 1.0. */
static void light_moby(const gc_render_scene *s, const uint32_t rot[9], const oinst *in,
                       const overt *c, uint8_t rgba[4])
{
    const uint8_t *pa = s->normal_table + (size_t)c->naz * 8,
                  *pe = s->normal_table + (size_t)c->nel * 8;
    uint32_t ca = gc_load_u32le(pa), sa = gc_load_u32le(pa + 4);
    uint32_t ce = gc_load_u32le(pe), se = gc_load_u32le(pe + 4);
    uint32_t n[3] = {gc_ps2i_mul(sa, ce), gc_ps2i_mul(ca, ce), se}, r[3], t[2];
    for (int a = 0; a < 3; a++)
        r[a] = gc_ps2i_madd(gc_ps2i_madd(gc_ps2i_mul(rot[a], n[0]), rot[3 + a], n[1]), rot[6 + a],
                            n[2]);
    const uint32_t(*L)[7] = s->lights[in->light];
    light_terms(L, r, t);
    for (int k = 0; k < 3; k++)
        rgba[k] = gs_colour(
            gc_ps2i_madd(gc_ps2i_madd(gc_ps2i_itof(rgba[k], 7), L[0][k], t[0]), L[1][k], t[1]));
}

/* A shrub palette entry: the class's normal j (x, y, z / 32767, shrub.normal)
 * turned by the instance and lit by the instance's light set (+0x60) with
 * the tfrag pass's two-light sum, then modulated by the instance colour
 * (+0x50, 0x80 = 1.0) and the base (0x80 textured, plain untextured):
 *
 *   out.k = clamp(base.k * colour.k * (A.k t_A + B.k t_B), 0, 1) * 0x80
 *
 * Every vertex takes the entry of its normal index: the shrub renderer's
 * per-instance colour palette of 24 (Wrench docs/shrub_renderer.md); no
 * per-vertex base colour is on the disc. rgb is left as it is when the
 * turned normal is zero. */
static void light_shrub(const gc_render_scene *s, const okind *k, const oinst *in, uint32_t j,
                        uint8_t rgba[4])
{
    const int32_t *q = k->normals[k->classes[in->cls].normals + j];
    const uint32_t unit = gc_ps2i_itof(32767, 0);
    uint32_t n[3], r[3], t[2];
    for (int a = 0; a < 3; a++)
        n[a] = gc_ps2_div(gc_ps2i_itof(q[a], 0), unit);
    if (!turn_normal(in, n, r))
        return;
    const uint32_t(*L)[7] = s->lights[in->light];
    light_terms(L, r, t);
    for (int c = 0; c < 3; c++) {
        uint32_t l = gc_ps2i_madd(gc_ps2i_mul(L[0][c], t[0]), L[1][c], t[1]);
        uint32_t m = gc_ps2i_mul(gc_ps2i_itof(rgba[c], 7), gc_ps2i_itof(in->colour[c], 7));
        rgba[c] = gs_colour(gc_ps2i_mul(m, l));
    }
}

/* A tie vertex in its instance's ambient record (gameplay block 0x94,
 * tie.ambient): colour `slot` of the record, 16 bits 5:5:5:1 (red in bits
 * 0-4), each channel expanded as PEXT5 does (v << 3, 0x80 = 1.0), modulating
 * the base: out.k = clamp(base.k * amb.k, 0, 1) * 0x80. The ambient colours
 * are the instance's pre-lit vertex colours; ties carry no vertex normals,
 * so the instance's directional set (+0x50) is not applied. 0 when the
 * record has no such colour. */
static int light_tie(const gc_render_scene *s, const oinst *in, uint32_t slot, uint8_t rgba[4])
{
    if (slot == NONE || slot >= in->amb_count || in->amb_ofs > s->lv->gameplay_size ||
        s->lv->gameplay_size - in->amb_ofs < 2u * (uint64_t)slot + 2u)
        return 0;
    uint16_t c = gc_load_u16le(s->lv->gameplay + in->amb_ofs + 2u * slot);
    for (int k = 0; k < 3; k++) {
        int32_t v = (int32_t)((c >> (5 * k)) & 31u) << 3;
        rgba[k] = gs_colour(gc_ps2i_mul(gc_ps2i_itof(rgba[k], 7), gc_ps2i_itof(v, 7)));
    }
    return 1;
}

/* Whether instance in of kind k is drawn lit (lighting on and its inputs present). */
static int instance_lit(const gc_render_scene *s, const okind *k, const oinst *in)
{
    if (!s->lighting)
        return 0;
    switch (k->lightable) {
    case OLIGHT_MOBY:
        return s->normal_table && in->light >= 0 && in->light < (int64_t)s->nlights;
    case OLIGHT_SHRUB:
        return s->lights && k->classes[in->cls].normals != NONE && in->light >= 0 &&
               in->light < (int64_t)s->nlights;
    case OLIGHT_TIE:
        return in->amb_count > 0 && s->lv->gameplay != NULL;
    default:
        return 0;
    }
}

/* The colour of vertex v (class-relative cache slot e) for base variant b
 * (0 textured, 1 plain), made on first use in this instance. */
static const uint8_t *vertex_colour(const gc_render_scene *s, okind *k, const oinst *in, int lit,
                                    const overt *v, uint32_t e, int b)
{
    uint8_t bit = (uint8_t)(2u << b);
    uint8_t *col = k->ccol[e][b];
    if (k->cstate[e] & bit)
        return col;
    k->cstate[e] |= bit;
    static const uint8_t neutral[4] = {0x80, 0x80, 0x80, 0x80};
    memcpy(col, b ? k->plain : neutral, 4);
    if (!lit)
        return col;
    if (k->lightable == OLIGHT_MOBY && v->has_normal) {
        const uint16_t key = (uint16_t)(v->naz << 8 | v->nel);
        /* Fibonacci hashing: the product's top MEMO_BITS bits */
        mmemo *m = &k->memo[((uint32_t)key * 2654435761u) >> (32 - MEMO_BITS)];
        if (m->stamp != k->serial || m->key != key) {
            m->stamp = k->serial;
            m->key = key;
            m->state = 0;
        }
        uint8_t *mc = m->col[b];
        if (!(m->state & bit)) {
            m->state |= bit;
            memcpy(mc, col, 4);
            light_moby(s, k->rot, in, v, mc);
        }
        memcpy(col, mc, 4);
    } else if (k->lightable == OLIGHT_SHRUB && v->has_normal) {
        uint8_t *pc = k->pcol[v->naz][b];
        if (!(k->pstate[v->naz] & bit)) {
            k->pstate[v->naz] |= bit;
            memcpy(pc, col, 4);
            light_shrub(s, k, in, v->naz, pc);
        }
        memcpy(col, pc, 4);
    } else if (k->lightable == OLIGHT_TIE) {
        light_tie(s, in, v->slot, col);
    }
    return col;
}

/* The texture of an object triangle: the kind's table entry, decoded on first
 * use, shared (objects do not change the description per triangle). */
static const gc_rs_texture *object_texture(gc_render_scene *s, okind *k, uint32_t index)
{
    if (index != NONE && index < k->ntex && k->tex[index].state == 1)
        return &k->tex[index].rs; /* decoded before */
    gc_rs_texture unused;
    if (!get_texture_of(s, k->tex, k->ntex, k->tkind, index, &unused))
        return NULL;
    return &k->tex[index].rs;
}

/* What gc_rs_draw_indexed asks for a triangle that can reach a pixel. */
typedef struct obj_ctx {
    gc_render_scene *s;
    okind *k;
    const oinst *in;
    const oclass *cl;
    int lit;
} obj_ctx;

static const gc_rs_texture *object_corners(void *vctx, size_t j, gc_rs_vertex v[3])
{
    obj_ctx *x = vctx;
    okind *k = x->k;
    const otri *tr = &k->tris[x->cl->tri_first + j];
    const gc_rs_texture *tex = object_texture(x->s, k, tr->texture);
    for (int c = 0; c < 3; c++) {
        const overt *ov = &k->verts[tr->v[c]];
        v[c].s = ov->s;
        v[c].t = ov->t;
        memcpy(v[c].rgba,
               vertex_colour(x->s, k, x->in, x->lit, ov, tr->v[c] - x->cl->vlo, tex ? 0 : 1),
               sizeof v[c].rgba);
    }
    return tex;
}

static void draw_objects(gc_render_scene *s, gc_rs_target *t, const gc_rs_camera *cam)
{
    for (int kd = 0; kd < GC_RENDER_OBJECT_KINDS; kd++) {
        okind *k = &s->kinds[kd];
        gc_render_object_stats *os = &s->stats.objects[kd];
        os->unresolved = k->unresolved;
        for (size_t i = 0; i < k->ninst; i++) {
            const oinst *in = &k->inst[i];
            oclass *cl = &k->classes[in->cls];
            int lit = instance_lit(s, k, in);
            os->instances++;
            os->triangles += cl->tri_count;
            if (s->cull && cl->tri_count && instance_outside(in, cam)) {
                os->culled++;
                continue;
            }
            if (!cl->tri_count)
                continue;
            os->lit += lit != 0;
            /* Every triangle's texture is looked up (decoded on first use) as
             * when each was drawn; a texture's state is settled by its first
             * lookup, so the class's count is too. */
            if (!cl->untextured_known) {
                for (uint32_t j = 0; j < cl->tri_count; j++) {
                    const uint32_t tx = k->tris[cl->tri_first + j].texture;
                    /* The lookup's answer inline once it is settled: no
                     * texture (NONE or past the table: get_texture_of's
                     * NULL), decoded, or failed (a million lookups of the
                     * retail sweep's objects are of failed or absent
                     * textures); only a first lookup goes through it. */
                    if (tx >= k->ntex)
                        cl->untextured++;
                    else if (k->tex[tx].state != 0)
                        cl->untextured += k->tex[tx].state != 1;
                    else
                        cl->untextured += !object_texture(s, k, tx);
                }
                cl->untextured_known = 1;
            }
            os->triangles_untextured += cl->untextured;
            if (s->cull && instance_hidden(in, cam, t)) {
                os->hidden++;
                continue;
            }
            const uint32_t n = cl->vhi - cl->vlo;
            memset(k->cstate, 0, n);
            memset(k->pstate, 0, sizeof k->pstate);
            if (lit && k->lightable == OLIGHT_MOBY) {
                instance_rotation(k, in, k->rot);
                if (++k->serial == 0) { /* wrapped: no stamp may match a past instance */
                    memset(k->memo, 0, MEMO_SLOTS * sizeof *k->memo);
                    k->serial = 1;
                }
            }
            gc_rs_pbounds pb;
            gc_rs_project_bounds(cam, in->m, n, k->kx + cl->vlo, k->ky + cl->vlo, k->kz + cl->vlo,
                                 k->pv, &pb);
            for (uint32_t e = 0; cl->stbad && e < n; e++)
                k->pv[e].code |= k->stbad[cl->vlo + e] ? GC_RS_PV_BAD : 0u;
            if (cl->stbad)
                pb.code |= GC_RS_PV_BAD;
            obj_ctx ctx = {s, k, in, cl, lit};
            gc_rs_draw_indexed_bounded(t, cam, k->pv, &pb, cl->vlo, k->tris[cl->tri_first].v,
                                       sizeof(otri) / sizeof(uint32_t), cl->tri_count,
                                       object_corners, &ctx);
        }
    }
}

static const radgif *find_adgif(const gc_render_scene *s, uint32_t patch, uint32_t key)
{
    size_t lo = 0, hi = s->nadgifs;
    while (lo < hi) { /* first entry >= (patch, key) */
        size_t mid = lo + (hi - lo) / 2;
        const radgif *g = &s->adgifs[mid];
        if (g->patch < patch || (g->patch == patch && g->key < key))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->nadgifs && s->adgifs[lo].patch == patch && s->adgifs[lo].key == key)
        return &s->adgifs[lo];
    return NULL;
}

typedef struct patch_pick {
    int strip_lod;
    float morph01, morph0;
} patch_pick;

static patch_pick pick_lod(const gc_render_scene *s, const rpatch *p, const float eye[3])
{
    patch_pick pk = {0, 1.0f, 1.0f};
    gc_lod_pick g = gc_lod_select(s->lod_scale, p->sphere, eye, s->lv->fault);
    pk.strip_lod = g.strip_lod >= 0 && g.strip_lod <= 2 ? g.strip_lod : 0;
    pk.morph01 = g.morph_lod01;
    pk.morph0 = g.morph_lod0;
    return pk;
}

/* One corner of a triangle: position (morphed toward the first parent by
 * the tier's weight), colour of its own position, texture coordinates of
 * its vertex-info entry. 0, or -1 if an index does not resolve. */
static int corner(const gc_render_scene *s, const rpatch *p, const rtri *tr, int k,
                  const patch_pick *pk, gc_rs_vertex *out)
{
    uint32_t vertex = tr->has & (8u << k) ? tr->v[k] : NONE;
    const rvi *e = NULL;
    if (tr->has & (1u << k)) { /* (below the patch's vi_count: 0 without s->vis) */
        e = &s->vis[p->vi_first + tr->vi[k]];
        if (!(e->flags & VI_VALID))
            e = NULL;
        else if (e->flags & VI_VERTEX_BAD) /* past the patch's positions */
            return -1;
        else if (e->flags & VI_VERTEX)
            vertex = e->vertex;
    }
    if (vertex == NONE || !(s->verts[p->vert_first + vertex].flags & RV_VALID))
        return -1; /* (a vertex below NONE is below the patch's count) */
    const rvert *own = &s->verts[p->vert_first + vertex];
    memcpy(out->pos, own->pos, sizeof out->pos);
    memcpy(out->rgba, own->rgba, sizeof out->rgba);
    if (s->lighting && (own->flags & RV_LIT))
        memcpy(out->rgba, own->lit_rgb, sizeof own->lit_rgb);
    out->s = e ? e->s : 0.0f;
    out->t = e ? e->t : 0.0f;
    if (e && e->tier != 0 && (e->flags & VI_PARENT) &&
        (s->verts[p->vert_first + e->parent0].flags & RV_VALID)) {
        float w = e->tier == 1 ? pk->morph01 : pk->morph0;
        if (!(w >= 1.0f)) {
            const rvert *par = &s->verts[p->vert_first + e->parent0];
            for (int c = 0; c < 3; c++)
                out->pos[c] =
                    w > 0.0f ? par->pos[c] + (own->pos[c] - par->pos[c]) * w : par->pos[c];
        }
    }
    return 0;
}

/* The view's camera for a frame of width x height (vp, and vp_out when not
 * NULL, filled once the view is known). 0, or -1 with err filled. */
static int view_camera(gc_render_scene *s, const char *view, uint32_t width, uint32_t height,
                       gc_view_params *vp, gc_view_params *vp_out, gc_rs_camera *cam, char *err,
                       size_t errlen)
{
    if (gc_render_scene_view(s, view, vp, err, errlen) != 0)
        return -1;
    if (vp_out)
        *vp_out = *vp;
    if (gc_rs_camera_look(cam, vp->eye, vp->target, vp->up, vp->focal, vp->near, width, height) !=
        0) {
        scene_err(err, errlen, "degenerate camera for view", view);
        return -1;
    }
    return 0;
}

static int draw_view(gc_render_scene *s, const char *view, const gc_view_params *vp,
                     const gc_rs_camera *camp, gc_rs_target *tp, gc_frame *out, char *err,
                     size_t errlen);

int gc_render_scene_draw(gc_render_scene *s, const char *view, uint32_t width, uint32_t height,
                         gc_frame *out, gc_view_params *vp_out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    gc_view_params vp;
    gc_rs_camera cam;
    int rc = view_camera(s, view, width, height, &vp, vp_out, &cam, err, errlen);
    if (rc != 0)
        return -1;
    gc_rs_target t;
    if (gc_rs_target_init(&t, width, height, 0) != 0) {
        scene_err(err, errlen, "bad frame size or out of memory for view", view);
        return -1;
    }
    rc = draw_view(s, view, &vp, &cam, &t, out, err, errlen);
    if (rc == 0)
        t.rgba = NULL; /* the frame's now */
    gc_rs_target_free(&t);
    return rc;
}

int gc_render_scene_draw_into(gc_render_scene *s, const char *view, gc_rs_target *t, gc_frame *out,
                              gc_view_params *vp_out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    gc_view_params vp;
    gc_rs_camera cam;
    if (view_camera(s, view, t->width, t->height, &vp, vp_out, &cam, err, errlen) != 0)
        return -1;
    return draw_view(s, view, &vp, &cam, t, out, err, errlen);
}

/* Clear the target and draw the view into it; out describes the frame,
 * its rgba the target's (whoever owns the target owns the pixels). */
static int draw_view(gc_render_scene *s, const char *view, const gc_view_params *vp,
                     const gc_rs_camera *camp, gc_rs_target *tp, gc_frame *out, char *err,
                     size_t errlen)
{
    const gc_rs_camera cam = *camp;
    gc_rs_target t = *tp; /* a local copy, put back at the end (as before: a local target) */
    const uint32_t width = t.width, height = t.height;
    gc_rs_target_clear(&t, background);
    uint32_t tex_decoded = s->stats.textures_decoded, tex_failed = s->stats.textures_failed;
    memset(&s->stats, 0, sizeof s->stats);
    s->stats.textures_decoded = tex_decoded;
    s->stats.textures_failed = tex_failed;
    s->stats.lod_rule = 1;
    s->stats.textures = 1;

    patch_pick *picks = malloc((s->npatches ? s->npatches : 1) * sizeof *picks);
    if (!picks) {
        *tp = t;
        scene_err(err, errlen, "out of memory for view", view);
        return -1;
    }
    for (size_t i = 0; i < s->npatches; i++) {
        picks[i] = pick_lod(s, &s->patches[i], vp->eye);
        s->stats.patches++;
        s->stats.patches_by_lod[picks[i].strip_lod]++;
    }
    gc_rs_texture texbuf;
    const gc_rs_texture *tex = NULL;
    int have_last = 0;
    uint32_t last_tex = NONE, last_adgif = NONE;
    for (size_t r = 0; r < s->nruns; r++) {
        const rrun *run = &s->runs[r];
        const patch_pick *pk = &picks[run->patch];
        if (run->lod != (uint32_t)pk->strip_lod)
            continue; /* (every triangle of the run: the same patch and LOD) */
        const rpatch *p = &s->patches[run->patch];
        for (size_t i = run->first, end = (size_t)run->first + run->count; i < end; i++) {
            const rtri *tr = &s->tris[i];
            gc_rs_vertex v[3];
            if (corner(s, p, tr, 0, pk, &v[0]) || corner(s, p, tr, 1, pk, &v[1]) ||
                corner(s, p, tr, 2, pk, &v[2])) {
                s->stats.triangles_bad_index++;
                continue;
            }
            const uint32_t tex_index = tr->texture == TEX_NONE ? NONE : tr->texture;
            /* Consecutive triangles mostly share their texture and ad-gif: the
             * description built for the last pair is reused (the draw does not
             * change it, and the texture's state was settled by the first
             * lookup, so get_texture would give the same). */
            if (!have_last || tex_index != last_tex || tr->adgif != last_adgif) {
                tex = get_texture(s, tex_index, &texbuf);
                if (tex) {
                    const radgif *g = tr->adgif == NONE ? NULL : &s->adgifs[tr->adgif];
                    if (g) {
                        texbuf.wrap_s = g->wrap_s;
                        texbuf.wrap_t = g->wrap_t;
                        texbuf.filter = g->linear ? GC_RS_FILTER_LINEAR : GC_RS_FILTER_NEAREST;
                        if (g->has_k) { /* MIPMAP_NEAREST with the ad-gif's K */
                            texbuf.mip_count = s->tex[tex_index].levels - 1;
                            texbuf.lod_k = g->lod_k;
                        }
                    }
                }
                have_last = 1;
                last_tex = tex_index;
                last_adgif = tr->adgif;
            }
            if (!tex)
                s->stats.triangles_untextured++;
            s->stats.triangles_submitted++;
            gc_rs_draw_triangle(&t, &cam, v, tex);
        }
    }
    free(picks);
    if (s->objects)
        draw_objects(s, &t, &cam);
    s->stats.objects_on = s->objects;
    s->stats.pixels_written = t.stats.pixels_written;
    s->stats.pixels_covered = t.stats.pixels_covered;
    *tp = t;
    out->width = width;
    out->height = height;
    out->rgba = t.rgba;
    snprintf(out->view, sizeof out->view, "%s", view);
    /* lit: the lighting pass's colours were drawn (every vertex with a lit
     * row); unlit: --lighting off, or the level had nothing lit */
    snprintf(out->lighting, sizeof out->lighting, "%s",
             s->lighting && s->vertices_lit ? "lit" : "unlit");
    /* objects=off, or per kind the instances placed and their classes'
     * triangles (an instance culled as out of view counts: it is drawn, it
     * just lands nowhere) */
    if (!s->objects) {
        snprintf(out->objects, sizeof out->objects, "off");
    } else {
        const gc_render_object_stats *o = s->stats.objects;
        /* then which kinds have an instance drawn lit (in kind order, e.g.
         * "lit:tie,shrub,moby"), or "lit:none": lighting on and the instance's
         * inputs present (ties: an ambient record; shrubs: the class normals
         * and a set in the bank; mobys: a set in the bank), culled or not */
        char lit[32] = "";
        for (int kd = 0; kd < GC_RENDER_OBJECT_KINDS; kd++) {
            const okind *k = &s->kinds[kd];
            for (size_t i = 0; i < k->ninst; i++)
                if (instance_lit(s, k, &k->inst[i])) {
                    size_t n = strlen(lit);
                    snprintf(lit + n, sizeof lit - n, "%s%s", n ? "," : "", k->name);
                    break;
                }
        }
        if (!lit[0])
            snprintf(lit, sizeof lit, "none");
        snprintf(out->objects, sizeof out->objects, "%s:%llu/%llu,%s:%llu/%llu,%s:%llu/%llu,lit:%s",
                 okind_specs[0].name, (unsigned long long)o[0].instances,
                 (unsigned long long)o[0].triangles, okind_specs[1].name,
                 (unsigned long long)o[1].instances, (unsigned long long)o[1].triangles,
                 okind_specs[2].name, (unsigned long long)o[2].instances,
                 (unsigned long long)o[2].triangles, lit);
    }
    return 0;
}

void gc_render_scene_set_lighting(gc_render_scene *s, int on)
{
    s->lighting = on != 0;
}

void gc_render_scene_set_objects(gc_render_scene *s, int on)
{
    s->objects = on != 0;
}

void gc_render_scene_set_cull(gc_render_scene *s, int on)
{
    s->cull = on != 0;
}

uint64_t gc_render_scene_vertices_lit(const gc_render_scene *s)
{
    return s->vertices_lit;
}

int gc_render_level(const gc_level *lv, const char *view, uint32_t width, uint32_t height,
                    gc_frame *out, char *params, size_t params_len, char *err, size_t errlen)
{
    return gc_render_level_lighting(lv, 1, view, width, height, out, params, params_len, err,
                                    errlen);
}

int gc_render_level_lighting(const gc_level *lv, int lighting, const char *view, uint32_t width,
                             uint32_t height, gc_frame *out, char *params, size_t params_len,
                             char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    gc_render_scene *s = gc_render_scene_new(lv, err, errlen);
    if (!s)
        return -1;
    gc_render_scene_set_lighting(s, lighting);
    gc_view_params vp;
    int rc = gc_render_scene_draw(s, view, width, height, out, &vp, err, errlen);
    if (rc == 0 && params && params_len)
        gc_view_params_text(&vp, params, params_len);
    gc_render_scene_free(s);
    return rc;
}
