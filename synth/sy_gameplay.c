/* SPDX-License-Identifier: MIT */
/* The decompressed gameplay file as the community toolchain's R&C2 block readers read it
 * (docs/formats/gameplay.md): the 0x9C-byte table of 39 block offsets, then every block in the
 * toolchain's write order, 16-aligned (the occlusion mappings 0x40-aligned). Instances are
 * placed on the level's terrain and name classes (by o_class) that exist in the level's core
 * class tables; the occlusion mappings (also the container's occlusion extent) and the raw
 * sound bank are written here too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sy_internal.h"
#include "sy_tfrag.h"

#define GP_TABLE_BYTES       0x9Cu
#define TIE_INSTANCE_BYTES   0x60u
#define SHRUB_INSTANCE_BYTES 0x70u
#define MOBY_INSTANCE_BYTES  0x88u
#define CAMERA_BYTES         0x20u
#define SOUND_BYTES          0x90u
#define SHAPE_BYTES          0x80u
#define GRID_CELLS           64   /* the camera-collision grid is 64 x 64 cells */
#define GRID_CELL_UNITS      16.0 /* of 16 world units each */
#define POINT_LIGHT_MASKS    0x800u
#define MATRIX_W_TRANSLATION 0.01f /* what the toolchain writes into the translation column's w */

/* Block table slots (byte offsets into the 0x9C-byte table). */
enum {
    S_SETTINGS = 0x00,
    S_DIR_LIGHTS = 0x04,
    S_CAMERAS = 0x08,
    S_SOUNDS = 0x0C,
    S_HELP = 0x10, /* 8 languages, 0x10..0x2C */
    S_TIE_CLASSES = 0x30,
    S_TIE_INSTANCES = 0x34,
    S_TIE_GROUPS = 0x38,
    S_SHRUB_CLASSES = 0x3C,
    S_SHRUB_INSTANCES = 0x40,
    S_SHRUB_GROUPS = 0x44,
    S_MOBY_CLASSES = 0x48,
    S_MOBY_INSTANCES = 0x4C,
    S_MOBY_GROUPS = 0x50,
    S_SHARED_DATA = 0x54,
    S_MOBY_LINKS = 0x58,
    S_PVAR_TABLE = 0x5C,
    S_PVAR_DATA = 0x60,
    S_PVAR_POINTERS = 0x64,
    S_CUBOIDS = 0x68,
    S_SPHERES = 0x6C,
    S_CYLINDERS = 0x70,
    S_PILLS = 0x74,
    S_PATHS = 0x78,
    S_GRIND_PATHS = 0x7C,
    S_POINT_LIGHTS = 0x80,
    S_ENV_TRANSITIONS = 0x84,
    S_CAM_COLL_GRID = 0x88,
    S_ENV_SAMPLES = 0x8C,
    S_OCCLUSION = 0x90,
    S_TIE_AMBIENT = 0x94,
    S_AREAS = 0x98,
};

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Instance counts: derived from the plan so the gameplay file and the occlusion extent agree. */
static uint32_t tie_instances(const sy_ctx *c)
{
    return c->plan->tie_classes * 6u;
}
static uint32_t shrub_instances(const sy_ctx *c)
{
    return c->plan->shrub_classes * 12u;
}
static uint32_t moby_instances(const sy_ctx *c)
{
    return c->plan->moby_classes * 2u;
}

/* Moby uid i (also its occlusion id). */
/* Size of one pvar block, fixed by its owner's class: a class's pvars are one C struct in the
 * game, and Wrench's recover_pvars (src/instancemgr/pvar.cpp) refuses a level whose mobys of one
 * o_class carry pvars of different sizes ("Pvars of the same moby class with different sizes").
 * Cameras (by type) and sounds (by o_class) follow the same rule. kind 0 moby, 1 camera,
 * 2 sound; the same class gets the same size on every level. 0x10..0x80 bytes. */
static uint32_t pvar_class_size(uint32_t kind, uint32_t cls)
{
    uint32_t h = (cls + 1u) * 2654435761u ^ (kind + 1u) * 40503u;
    h ^= h >> 15;
    return 0x10u * (1u + (h >> 7) % 8u);
}

static uint32_t moby_uid(uint32_t i)
{
    return 1000u + i;
}

int sy_occlusion_mappings_write(const sy_ctx *c, sy_buf *out)
{
    uint32_t nt = c->plan->tfrag_patches, ni = tie_instances(c), nm = moby_instances(c);
    sy_buf_u32(out, nt); /* 0x00 tfrag_count == the tfrag patch count */
    sy_buf_u32(out, ni); /* 0x04 tie_count */
    sy_buf_u32(out, nm); /* 0x08 moby_count */
    sy_buf_u32(out, 0);  /* 0x0C pad */
    /* {s32 bit_index, s32 occlusion_id}: tfrag id = patch index (its occl_index), tie id = the
     * instance's occlusion_index, moby id = the instance uid. */
    for (uint32_t i = 0; i < nt; i++)
        sy_buf_u32(out, i), sy_buf_u32(out, i);
    for (uint32_t i = 0; i < ni; i++)
        sy_buf_u32(out, nt + i), sy_buf_u32(out, i);
    for (uint32_t i = 0; i < nm; i++)
        sy_buf_u32(out, nt + ni + i), sy_buf_u32(out, moby_uid(i));
    return out->failed ? -1 : 0;
}

/* One kind's classes as the level's core class table lists them. */
typedef struct gp_classes {
    uint32_t count;
    uint32_t *o_class; /* table order */
    uint32_t *pick;    /* the classes instances may name (those with geometry; all if none) */
    uint32_t picks;
} gp_classes;

/* Reads the {count, offset} pair at core header `hdr` and the o_class (+0x04) of every entry of
 * `stride` bytes; an entry whose offset_in_asset_wad (+0x00) is 0 has no geometry. */
static int read_classes(const sy_buf *ix, size_t hdr, size_t stride, gp_classes *k)
{
    memset(k, 0, sizeof *k);
    if (!ix || ix->len < hdr + 8)
        return -1;
    uint32_t n = get_u32(ix->data + hdr), ofs = get_u32(ix->data + hdr + 4);
    if ((uint64_t)ofs + (uint64_t)n * stride > ix->len)
        return -1;
    k->count = n;
    k->o_class = calloc(n ? n : 1, sizeof *k->o_class);
    k->pick = calloc(n ? n : 1, sizeof *k->pick);
    if (!k->o_class || !k->pick)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = ix->data + ofs + (size_t)i * stride;
        k->o_class[i] = get_u32(e + 4);
        if (get_u32(e) != 0)
            k->pick[k->picks++] = k->o_class[i];
    }
    if (k->picks == 0)
        for (uint32_t i = 0; i < n; i++)
            k->pick[k->picks++] = k->o_class[i];
    return 0;
}

static void free_classes(gp_classes *k)
{
    free(k->o_class);
    free(k->pick);
}

/* The class instance i names: the first `picks` instances take every pickable class once, in a
 * shuffled order (so the class list, rebuilt in order of first appearance, lists them all);
 * the rest pick at random. */
static void assign_classes(const gp_classes *k, uint32_t n, uint32_t *out, sy_rng *r)
{
    uint32_t m = k->picks;
    for (uint32_t i = 0; i < n; i++)
        out[i] = m ? k->pick[i < m ? i : sy_rng_below(r, m)] : 0;
    for (uint32_t i = (n < m ? n : m); i > 1; i--) {
        uint32_t j = sy_rng_below(r, i), t = out[i - 1];
        out[i - 1] = out[j], out[j] = t;
    }
}

/* A point on the terrain, world units (the terrain is in 1/1024 units). */
typedef struct gp_place {
    const sy_terrain *t;
    int32_t x0, x1, y0, y1;
} gp_place;

static void place_point(const gp_place *p, sy_rng *r, float lift_lo, float lift_hi, float v[3])
{
    int64_t x = p->x0 + (int64_t)sy_rng_below(r, (uint32_t)(p->x1 - p->x0));
    int64_t y = p->y0 + (int64_t)sy_rng_below(r, (uint32_t)(p->y1 - p->y0));
    float lift = lift_lo + (lift_hi - lift_lo) * (float)sy_rng_below(r, 1001) / 1000.0f;
    v[0] = (float)x / 1024.0f;
    v[1] = (float)y / 1024.0f;
    v[2] = (float)sy_terrain_height(p->t, x, y) / 1024.0f + lift;
}

static void unit3(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0)
        v[0] /= l, v[1] /= l, v[2] /= l;
}

/* A unit direction from an integer vector, normalised with sqrt only. */
static void unit_dir(sy_rng *r, float d[3])
{
    for (;;) {
        int x = (int)sy_rng_below(r, 201) - 100, y = (int)sy_rng_below(r, 201) - 100,
            z = (int)sy_rng_below(r, 201) - 100;
        if (x * x + y * y + z * z < 100)
            continue;
        d[0] = (float)x, d[1] = (float)y, d[2] = (float)z;
        unit3(d);
        return;
    }
}

/* A rotation: a heading in the ground plane, tilted by up to ~`tilt`/64 rad. Columns f, s, u
 * are orthonormal to float rounding (Gram-Schmidt, sqrt only). rot[] gets Euler angles
 * (x, y, z) with R = Rz * Ry * Rx. */
static void rotation(sy_rng *r, int tilt, float R[3][3], float rot[3])
{
    float u[3] = {(float)((int)sy_rng_below(r, 2 * tilt + 1) - tilt),
                  (float)((int)sy_rng_below(r, 2 * tilt + 1) - tilt), 64.0f};
    unit3(u);
    float f[3];
    for (;;) {
        f[0] = (float)((int)sy_rng_below(r, 201) - 100);
        f[1] = (float)((int)sy_rng_below(r, 201) - 100);
        f[2] = 0;
        if (f[0] * f[0] + f[1] * f[1] >= 100)
            break;
    }
    float d = f[0] * u[0] + f[1] * u[1] + f[2] * u[2];
    for (int k = 0; k < 3; k++)
        f[k] -= d * u[k];
    unit3(f);
    float s[3] = {u[1] * f[2] - u[2] * f[1], u[2] * f[0] - u[0] * f[2], u[0] * f[1] - u[1] * f[0]};
    for (int k = 0; k < 3; k++)
        R[k][0] = f[k], R[k][1] = s[k], R[k][2] = u[k]; /* R[row][column] */
    /* R = Rz(c) Ry(b) Rx(a): R[2][0] = -sin b, R[2][1] = cos b sin a, R[1][0] = cos b sin c. */
    double sb = -(double)R[2][0];
    rot[1] = (float)asin(sb > 1 ? 1 : sb < -1 ? -1 : sb);
    rot[0] = (float)atan2((double)R[2][1], (double)R[2][2]);
    rot[2] = (float)atan2((double)R[1][0], (double)R[0][0]);
}

/* Mat4 of R * uniform scale, translation p (w = 0.01, as the toolchain writes it). */
static void put_matrix(sy_buf *out, float R[3][3], float scale, const float p[3])
{
    for (int col = 0; col < 3; col++) {
        for (int row = 0; row < 3; row++)
            sy_buf_f32(out, R[row][col] * scale);
        sy_buf_f32(out, 0.0f);
    }
    sy_buf_f32(out, p[0]), sy_buf_f32(out, p[1]), sy_buf_f32(out, p[2]);
    sy_buf_f32(out, MATRIX_W_TRANSLATION);
}

/* Shapes and sound instances: Mat4 of R * diag(sx, sy, sz) + p, then the first three columns of
 * its inverse (diag(1/s) * R^T), then the Euler rotation. */
static void put_matrix_inverse_rotation(sy_buf *out, float R[3][3], const float sc[3],
                                        const float p[3], const float rot[3])
{
    for (int col = 0; col < 3; col++) {
        for (int row = 0; row < 3; row++)
            sy_buf_f32(out, R[row][col] * sc[col]);
        sy_buf_f32(out, 0.0f);
    }
    sy_buf_f32(out, p[0]), sy_buf_f32(out, p[1]), sy_buf_f32(out, p[2]);
    sy_buf_f32(out, MATRIX_W_TRANSLATION);
    for (int col = 0; col < 3; col++) {
        for (int row = 0; row < 3; row++)
            sy_buf_f32(out, R[col][row] / sc[row]);
        sy_buf_f32(out, 0.0f);
    }
    sy_buf_f32(out, rot[0]), sy_buf_f32(out, rot[1]), sy_buf_f32(out, rot[2]);
}

static size_t begin_block(sy_buf *out, size_t slot, size_t base, size_t align)
{
    sy_buf_align(out, align);
    sy_buf_set_u32(out, base + slot, (uint32_t)(out->len - base));
    return out->len;
}

/* {s32 count, 3 x s32 pad}: the header of most blocks. */
static void table_header(sy_buf *out, uint32_t count)
{
    sy_buf_u32(out, count);
    sy_buf_zero(out, 12);
}

/* A group block: {s32 group_count, s32 data_size, 2 pad}, group_count s32 byte offsets into the
 * member area (-1 = empty group), pad to 16 (from the block start), u16 members (bit 15 ends a
 * group's run), pad to 16. Members are distinct instances of `n`, each in at most one group;
 * group_of[i] gets instance i's group or -1 (NULL: not wanted). */
static void group_block(sy_buf *out, uint32_t n, int32_t *group_of, sy_rng *r)
{
    size_t start = out->len; /* 16-aligned in the file */
    uint32_t groups = n ? 2 + sy_rng_below(r, 4) : 0;
    if (group_of)
        for (uint32_t i = 0; i < n; i++)
            group_of[i] = -1;
    sy_buf_u32(out, groups);
    size_t size_at = out->len;
    sy_buf_zero(out, 12);
    size_t ptr_at = out->len;
    sy_buf_zero(out, 4u * groups);
    while ((out->len - start) % 16)
        sy_buf_u8(out, 0);
    size_t data = out->len;
    /* members: group g takes instances g, g + groups, g + 2*groups, ... (up to 6, and one
     * group stays empty when there are 3 or more) */
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t want = (groups >= 3 && g == groups - 1) ? 0 : 1 + sy_rng_below(r, 6);
        uint32_t have = 0;
        for (uint32_t i = g; i < n && have < want; i += groups)
            have++;
        if (!out->failed)
            put_u32(out->data + ptr_at + 4u * g, have ? (uint32_t)(out->len - data) : 0xFFFFFFFFu);
        uint32_t k = 0;
        for (uint32_t i = g; i < n && k < have; i += groups, k++) {
            sy_buf_u16(out, (uint16_t)((i & 0x7FFFu) | (k + 1 == have ? 0x8000u : 0)));
            if (group_of)
                group_of[i] = (int32_t)g;
        }
    }
    while ((out->len - start) % 16)
        sy_buf_u8(out, 0);
    sy_buf_set_u32(out, size_at, (uint32_t)(out->len - data));
}

/* A class list: {s32 count, s32 o_class[count]}, entries from +4. */
static void class_list(sy_buf *out, size_t slot, size_t base, const uint32_t *v, uint32_t n)
{
    begin_block(out, slot, base, 0x10);
    sy_buf_u32(out, n);
    for (uint32_t i = 0; i < n; i++)
        sy_buf_u32(out, v[i]);
}

/* Distinct values of v[0..n) in order of first appearance (into first[], returns the count). */
static uint32_t first_appearance(const uint32_t *v, uint32_t n, uint32_t *first)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = 0;
        while (k < m && first[k] != v[i])
            k++;
        if (k == m)
            first[m++] = v[i];
    }
    return m;
}

/* Splines {s32 offset[count]} (relative to data), pad 16, then each spline 16-aligned:
 * {s32 count, 3 pad} + count Vec4f. Returns the data start, relative to `block`. */
static size_t splines(sy_buf *out, size_t block, uint32_t count, const gp_place *pl, sy_rng *r)
{
    size_t ofs_at = out->len;
    sy_buf_zero(out, 4u * count);
    sy_buf_align(out, 0x10);
    size_t data = out->len;
    for (uint32_t s = 0; s < count; s++) {
        sy_buf_align(out, 0x10);
        sy_buf_set_u32(out, ofs_at + 4u * s, (uint32_t)(out->len - data));
        uint32_t pts = 3 + sy_rng_below(r, 6);
        table_header(out, pts);
        for (uint32_t k = 0; k < pts; k++) {
            float v[3];
            place_point(pl, r, 1.0f, 4.0f, v);
            sy_buf_f32(out, v[0]), sy_buf_f32(out, v[1]), sy_buf_f32(out, v[2]);
            sy_buf_f32(out, (float)k); /* w: the point's position along the path */
        }
    }
    return data - block;
}

/* Points per camera-collision cell, in 16-unit cells clamped to the 64 x 64 grid. */
static int cell_of(float v)
{
    int c = (int)floor((double)v / GRID_CELL_UNITS);
    return c < 0 ? 0 : c >= GRID_CELLS ? GRID_CELLS - 1 : c;
}

typedef struct gp_shape {
    float p[3], radius;
} gp_shape;

int sy_gameplay_write(const sy_ctx *c, const sy_buf *core_index, sy_buf *out)
{
    size_t base = out->len;
    sy_rng r = sy_rng_make(c->seed, c->level, 0x6A3E);
    int rc = -1;
    gp_classes mc, tc, sc;
    uint32_t nti = tie_instances(c), nsi = shrub_instances(c), nmi = moby_instances(c);
    uint32_t *tie_cls = calloc(nti + 1, sizeof *tie_cls);
    uint32_t *shrub_cls = calloc(nsi + 1, sizeof *shrub_cls);
    uint32_t *moby_cls = calloc(nmi + 1, sizeof *moby_cls);
    uint32_t *list = calloc(nti + nsi + 1, sizeof *list);
    int32_t *moby_group = calloc(nmi + 1, sizeof *moby_group);
    int32_t *moby_pvar = calloc(nmi + 1, sizeof *moby_pvar);
    /* pvar index -> its owner's class size (pvar_class_size); filled as the owners are written */
    uint32_t *pv_size = NULL;
    int have = read_classes(core_index, 0x18, 0x20, &mc) == 0;
    have &= read_classes(core_index, 0x20, 0x20, &tc) == 0;
    have &= read_classes(core_index, 0x28, 0x30, &sc) == 0;
    if (!have || !tie_cls || !shrub_cls || !moby_cls || !list || !moby_group || !moby_pvar)
        goto done;
    assign_classes(&tc, nti, tie_cls, &r);
    assign_classes(&sc, nsi, shrub_cls, &r);
    assign_classes(&mc, nmi, moby_cls, &r);

    sy_terrain terrain;
    sy_level_terrain(c, &terrain);
    gp_place pl = {&terrain, terrain.x0, terrain.x1, terrain.y0,
                   terrain.y1_full > terrain.y0 ? terrain.y1_full : terrain.y1};
    if (pl.x1 <= pl.x0)
        pl.x1 = pl.x0 + 1;
    if (pl.y1 <= pl.y0)
        pl.y1 = pl.y0 + 1;

    /* Per-level counts of the small blocks (realistic variety, deterministic). */
    uint32_t nlights = 4 + sy_rng_below(&r, 12);
    uint32_t ncams = 2 + sy_rng_below(&r, 10);
    uint32_t nsounds = 3 + sy_rng_below(&r, 20);
    uint32_t nshape[4] = {4 + sy_rng_below(&r, 12), 2 + sy_rng_below(&r, 6),
                          1 + sy_rng_below(&r, 4), 1 + sy_rng_below(&r, 3)};
    uint32_t npaths = 2 + sy_rng_below(&r, 5), ngrind = sy_rng_below(&r, 3);
    uint32_t nenv = 4 + sy_rng_below(&r, 9), ntrans = sy_rng_below(&r, 3);
    uint32_t nareas = 1 + sy_rng_below(&r, 3);
    /* pvars: every camera and sound instance and about a third of the mobys have one; indices
     * run mobys first, then cameras, then sounds, so the table is dense. */
    int32_t npvars = 0;
    for (uint32_t i = 0; i < nmi; i++)
        moby_pvar[i] = sy_rng_below(&r, 3) == 0 ? npvars++ : -1;
    int32_t cam_pvar0 = npvars;
    npvars += (int32_t)ncams;
    int32_t sound_pvar0 = npvars;
    npvars += (int32_t)nsounds;
    pv_size = calloc((size_t)npvars + 1, sizeof *pv_size);
    if (!pv_size)
        goto done;
    for (uint32_t i = 0; i < nmi; i++)
        if (moby_pvar[i] >= 0)
            pv_size[moby_pvar[i]] = pvar_class_size(0, moby_cls[i]);

    sy_buf_zero(out, GP_TABLE_BYTES);

    /* 0x8C env sample points: table header + 0x20-byte records (s16 position x4). */
    begin_block(out, S_ENV_SAMPLES, base, 0x10);
    table_header(out, nenv);
    for (uint32_t i = 0; i < nenv; i++) {
        float v[3];
        place_point(&pl, &r, 1.0f, 3.0f, v);
        sy_buf_u32(out, sy_rng_below(&r, nlights)); /* 0x00 hero_light */
        for (int k = 0; k < 3; k++)                 /* 0x04 position x 4 */
            sy_buf_u16(out, (uint16_t)(int16_t)lrintf(v[k] * 4.0f));
        sy_buf_u16(out, (uint16_t)sy_rng_below(&r, 64));        /* 0x0A reverb_depth */
        sy_buf_u16(out, (uint16_t)sy_rng_below(&r, 8));         /* 0x0C music_track */
        sy_buf_u8(out, (uint8_t)sy_rng_below(&r, 128));         /* 0x0E fog near intensity */
        sy_buf_u8(out, (uint8_t)(128 + sy_rng_below(&r, 128))); /* 0x0F fog far intensity */
        for (int k = 0; k < 3; k++)                             /* 0x10 hero colour */
            sy_buf_u8(out, (uint8_t)(96 + sy_rng_below(&r, 160)));
        sy_buf_u8(out, (uint8_t)sy_rng_below(&r, 8));  /* 0x13 reverb type */
        sy_buf_u8(out, (uint8_t)sy_rng_below(&r, 64)); /* 0x14 reverb delay */
        sy_buf_u8(out, (uint8_t)sy_rng_below(&r, 64)); /* 0x15 reverb feedback */
        sy_buf_u8(out, (uint8_t)sy_rng_below(&r, 2));  /* 0x16 enable reverb */
        for (int k = 0; k < 3; k++)                    /* 0x17 fog colour */
            sy_buf_u8(out, (uint8_t)sy_rng_below(&r, 256));
        uint16_t fog_near = (uint16_t)(20 + sy_rng_below(&r, 80));
        sy_buf_u16(out, fog_near);                                          /* 0x1A */
        sy_buf_u16(out, (uint16_t)(fog_near + 50 + sy_rng_below(&r, 400))); /* 0x1C */
        sy_buf_u16(out, 0xFFFFu);                                           /* 0x1E unused */
    }

    /* 0x00 level settings: the 0x5C-byte first part, the chunk planes (one all-zero
     * terminator record when there are none), then s32 core_sounds_count. */
    begin_block(out, S_SETTINGS, base, 0x10);
    {
        for (int k = 0; k < 3; k++) /* 0x00 background colour, 3 x s32 0..255 */
            sy_buf_u32(out, sy_rng_below(&r, 256));
        for (int k = 0; k < 3; k++) /* 0x0C fog colour */
            sy_buf_u32(out, sy_rng_below(&r, 256));
        float fog_near = (float)(50 + sy_rng_below(&r, 150));
        sy_buf_f32(out, fog_near);                                        /* 0x18 */
        sy_buf_f32(out, fog_near + (float)(200 + sy_rng_below(&r, 800))); /* 0x1C */
        sy_buf_f32(out, (float)sy_rng_below(&r, 64) / 255.0f);            /* 0x20 */
        sy_buf_f32(out, (float)(128 + sy_rng_below(&r, 128)) / 255.0f);   /* 0x24 */
        sy_buf_f32(out, (float)terrain.oz / 1024.0f - 40.0f); /* 0x28 death height, below ground */
        sy_buf_u32(out, 0);                                   /* 0x2C is_spherical_world */
        sy_buf_zero(out, 12);                                 /* 0x30 sphere centre */
        float ship[3];
        place_point(&pl, &r, 2.0f, 2.0f, ship);
        sy_buf_f32(out, ship[0]), sy_buf_f32(out, ship[1]), sy_buf_f32(out, ship[2]); /* 0x3C */
        sy_buf_f32(out, (float)sy_rng_below(&r, 628) / 100.0f - 3.14f); /* 0x48 ship rot z */
        sy_buf_u32(out, 0); /* 0x4C ship path (index into the paths) */
        sy_buf_u32(out, 0); /* 0x50 ship camera cuboid start */
        sy_buf_u32(out, 1); /* 0x54 ship camera cuboid end */
        sy_buf_u32(out, 0); /* 0x58 pad */
        uint32_t planes = c->plan->has_chunks ? 2 : 0;
        for (uint32_t i = 0; i < (planes ? planes : 1); i++) {
            float v[3] = {0, 0, 0}, n[3] = {0, 0, 0};
            if (planes) {
                place_point(&pl, &r, 0.0f, 0.0f, v);
                n[0] = i ? 0.0f : 1.0f, n[1] = i ? 1.0f : 0.0f;
            }
            sy_buf_f32(out, v[0]), sy_buf_f32(out, v[1]), sy_buf_f32(out, v[2]);
            sy_buf_u32(out, planes); /* +0x0C plane count, in every record */
            sy_buf_f32(out, n[0]), sy_buf_f32(out, n[1]), sy_buf_f32(out, n[2]);
            sy_buf_u32(out, 0);
        }
        sy_buf_u32(out, 20 + sy_rng_below(&r, 60)); /* core_sounds_count */
    }

    /* 0x10..0x2C help messages, 8 languages: {s32 count, s32 size}, count x 16-byte entries
     * {s32 offset, 6 x s16 ids}, strings (offsets and size from the block start, each string
     * NUL-terminated and padded to 4). */
    for (size_t lang = 0; lang < 8; lang++) {
        static const char *const msg[] = {"PRESS START", "HOLD R1 TO GRIND", "USE THE SWINGSHOT",
                                          "GET THE BOLTS", "THE SHIP IS READY"};
        uint32_t n = 2 + sy_rng_below(&r, 4);
        size_t start = begin_block(out, S_HELP + 4 * lang, base, 0x10);
        sy_buf_u32(out, n);
        size_t size_at = out->len;
        sy_buf_u32(out, 0);
        size_t ent = out->len;
        sy_buf_zero(out, 16u * n);
        for (uint32_t i = 0; i < n; i++) {
            const char *s = msg[(i + lang) % 5];
            size_t e = ent + 16u * i;
            sy_buf_set_u32(out, e, (uint32_t)(out->len - start));           /* offset */
            sy_buf_set_u16(out, e + 4, (uint16_t)(0x1000 + 16 * lang + i)); /* id */
            sy_buf_set_u16(out, e + 6, (uint16_t)i);                        /* short id */
            sy_buf_set_u16(out, e + 8, 0xFFFFu);                            /* third person */
            sy_buf_set_u16(out, e + 10, 0xFFFFu);                           /* coop */
            sy_buf_set_u16(out, e + 12, (uint16_t)(200 + i));               /* vag */
            sy_buf_set_u16(out, e + 14, (uint16_t)(i % 3));                 /* character */
            sy_buf_put(out, s, strlen(s) + 1);
            while ((out->len - start) % 4)
                sy_buf_u8(out, 0);
        }
        sy_buf_set_u32(out, size_at, (uint32_t)(out->len - start));
    }

    /* 0x04 directional lights: table header, count x {colour_a, direction_a, colour_b,
     * direction_b} (Vec4f each; directions unit length, w = 0).
     *
     * Each set is a key light (a) and a fill light (b). The tfrag pass adds
     * colour * max(d, d * w) per light (d = normal . direction), so the colour's
     * w lane says what a face turned away receives: the key light's w = 0
     * gives max(d, 0), nothing past the terminator; the fill light's w = -0.25
     * gives a quarter of its colour, reaching faces turned away (so no light
     * ever subtracts, and a lit vertex is never darker than its stored colour).
     * The key light comes from above (direction z >= ~0.45, Z-up): terrain is
     * lit from the sky. Directions and colours draw the same random numbers as
     * before either choice; only what is written from them changed. */
    begin_block(out, S_DIR_LIGHTS, base, 0x10);
    table_header(out, nlights);
    for (uint32_t i = 0; i < nlights; i++)
        for (int half = 0; half < 2; half++) {
            float d[3];
            unit_dir(&r, d);
            if (!half) { /* key light: z' = 0.5 + 0.5 |z| before normalising again */
                d[2] = 0.5f + 0.5f * (d[2] < 0 ? -d[2] : d[2]);
                unit3(d);
            }
            /* colours: the key light 0.875..1.375 a channel, the fill 0.5..1.0 (a key
             * light of 0.5 left the dimmest levels' lit frames below the unlit
             * frames of the corpus before the stored colours were darkened) */
            int lo = half ? 64 : 112;
            sy_buf_f32(out, (float)(lo + (int)sy_rng_below(&r, 64)) / 128.0f);
            sy_buf_f32(out, (float)(lo + (int)sy_rng_below(&r, 64)) / 128.0f);
            sy_buf_f32(out, (float)(lo + (int)sy_rng_below(&r, 64)) / 128.0f);
            sy_buf_f32(out, half ? -0.25f : 0.0f); /* w: what a face turned away gets */
            sy_buf_f32(out, d[0]), sy_buf_f32(out, d[1]), sy_buf_f32(out, d[2]);
            sy_buf_f32(out, 0.0f);
        }

    /* 0x84 env transitions: table header, count x Vec4f bounding sphere, then count x 0x80
     * {Mat4 inverse matrix, colours, lights, flags, fog}. */
    begin_block(out, S_ENV_TRANSITIONS, base, 0x10);
    {
        table_header(out, ntrans);
        float tp[3][3], ts[3];
        for (uint32_t i = 0; i < ntrans; i++) {
            place_point(&pl, &r, 2.0f, 6.0f, tp[i]);
            ts[i] = (float)(8 + sy_rng_below(&r, 24));
            sy_buf_f32(out, tp[i][0]), sy_buf_f32(out, tp[i][1]), sy_buf_f32(out, tp[i][2]);
            sy_buf_f32(out, ts[i] * 1.7320508f); /* the cube's corner distance */
        }
        for (uint32_t i = 0; i < ntrans; i++) {
            /* inverse of translate(p) * scale(s): scale 1/s, translation -p/s */
            for (int col = 0; col < 4; col++)
                for (int row = 0; row < 4; row++)
                    sy_buf_f32(out, col == 3 ? (row == 3 ? 1.0f : -tp[i][row] / ts[i])
                                             : (row == col ? 1.0f / ts[i] : 0.0f));
            for (int k = 0; k < 2; k++) /* 0x40, 0x44 hero colours (RGB + pad) */
                sy_buf_u32(out, sy_rng_below(&r, 0x1000000));
            sy_buf_u32(out, sy_rng_below(&r, nlights)); /* 0x48 hero light 1 */
            sy_buf_u32(out, sy_rng_below(&r, nlights)); /* 0x4C hero light 2 */
            sy_buf_u32(out, 1 + sy_rng_below(&r, 3));   /* 0x50 flags: bit 0 hero, bit 1 fog */
            for (int k = 0; k < 2; k++)                 /* 0x54, 0x58 fog colours */
                sy_buf_u32(out, sy_rng_below(&r, 0x1000000));
            for (int k = 0; k < 2; k++) { /* 0x5C..0x78 near dist, near int, far dist, far int */
                float nd = (float)(20 + sy_rng_below(&r, 80));
                sy_buf_f32(out, nd), sy_buf_f32(out, 0.25f);
                sy_buf_f32(out, nd + 300.0f), sy_buf_f32(out, 0.75f);
            }
            sy_buf_u32(out, 0); /* 0x7C */
        }
    }

    /* 0x08 cameras: table header, 0x20-byte {s32 type, Vec3f position, Vec3f rotation, s32
     * pvar_index}; every camera has a pvar. */
    begin_block(out, S_CAMERAS, base, 0x10);
    table_header(out, ncams);
    for (uint32_t i = 0; i < ncams; i++) {
        float v[3], R[3][3], rot[3];
        place_point(&pl, &r, 4.0f, 16.0f, v);
        rotation(&r, 16, R, rot);
        uint32_t cam_type = sy_rng_below(&r, 8);
        pv_size[cam_pvar0 + (int32_t)i] = pvar_class_size(1, cam_type);
        sy_buf_u32(out, cam_type);
        sy_buf_f32(out, v[0]), sy_buf_f32(out, v[1]), sy_buf_f32(out, v[2]);
        sy_buf_f32(out, rot[0]), sy_buf_f32(out, rot[1]), sy_buf_f32(out, rot[2]);
        sy_buf_u32(out, (uint32_t)(cam_pvar0 + (int32_t)i));
    }

    /* 0x0C sound instances: table header, 0x90-byte {s16 o_class, s16 m_class, u32 0, s32
     * pvar_index, f32 range, Mat4 matrix, Mat3 inverse, Vec3f rotation, f32 0}. */
    begin_block(out, S_SOUNDS, base, 0x10);
    table_header(out, nsounds);
    for (uint32_t i = 0; i < nsounds; i++) {
        float v[3], R[3][3], rot[3];
        place_point(&pl, &r, 1.0f, 6.0f, v);
        rotation(&r, 0, R, rot);
        float range = (float)(8 + sy_rng_below(&r, 56));
        float s3[3] = {range, range, range};
        uint32_t sound_class = sy_rng_below(&r, 120);
        pv_size[sound_pvar0 + (int32_t)i] = pvar_class_size(2, sound_class);
        sy_buf_u16(out, (uint16_t)sound_class);                /* 0x00 o_class (sound class) */
        sy_buf_u16(out, (uint16_t)sy_rng_below(&r, 4));        /* 0x02 m_class */
        sy_buf_u32(out, 0);                                    /* 0x04 update function (runtime) */
        sy_buf_u32(out, (uint32_t)(sound_pvar0 + (int32_t)i)); /* 0x08 pvar_index */
        sy_buf_f32(out, range);                                /* 0x0C range */
        put_matrix_inverse_rotation(out, R, s3, v, rot);       /* 0x10, 0x50, 0x80 */
        sy_buf_f32(out, 0.0f);                                 /* 0x8C pad */
    }

    /* 0x48 moby classes: every moby class of the core table, in table order. */
    class_list(out, S_MOBY_CLASSES, base, mc.o_class, mc.count);

    /* Moby groups are decided before the instances, which carry their group index. */
    sy_rng rg = sy_rng_make(c->seed, c->level, 0x6A3F);
    sy_buf groups_tmp;
    sy_buf_init(&groups_tmp);
    group_block(&groups_tmp, nmi, moby_group, &rg);

    /* 0x4C moby instances: {s32 static_count, s32 spawnable_moby_count, 2 pad}, then
     * static_count 0x88-byte records whose first word is 0x88. */
    begin_block(out, S_MOBY_INSTANCES, base, 0x10);
    sy_buf_u32(out, nmi);
    sy_buf_u32(out, nmi + 32 + sy_rng_below(&r, 64));
    sy_buf_zero(out, 8);
    for (uint32_t i = 0; i < nmi; i++) {
        float v[3];
        place_point(&pl, &r, 0.0f, 2.0f, v);
        sy_buf_u32(out, MOBY_INSTANCE_BYTES);                /* 0x00 size */
        sy_buf_u32(out, (uint32_t)-1 + sy_rng_below(&r, 3)); /* 0x04 mission: -1, 0 or 1 */
        sy_buf_u32(out, 0), sy_buf_u32(out, 0);              /* 0x08, 0x0C */
        sy_buf_u32(out, moby_uid(i));                        /* 0x10 uid (the occlusion id) */
        sy_buf_u32(out, sy_rng_below(&r, 4) == 0 ? 5 * sy_rng_below(&r, 20) : 0); /* 0x14 bolts */
        for (int k = 0; k < 4; k++)                                               /* 0x18..0x24 */
            sy_buf_u32(out, 0xFFFFFFFFu);
        sy_buf_u32(out, moby_cls[i]);                                        /* 0x28 o_class */
        sy_buf_f32(out, (float)(50 + sy_rng_below(&r, 151)) / 100.0f);       /* 0x2C scale */
        sy_buf_u32(out, 64 + sy_rng_below(&r, 192));                         /* 0x30 draw dist */
        sy_buf_u32(out, 64 + sy_rng_below(&r, 192));                         /* 0x34 update dist */
        sy_buf_u32(out, 32), sy_buf_u32(out, 64);                            /* 0x38, 0x3C */
        sy_buf_f32(out, v[0]), sy_buf_f32(out, v[1]), sy_buf_f32(out, v[2]); /* 0x40 */
        for (int k = 0; k < 3; k++) /* 0x4C Euler angles, radians in (-pi, pi]: mostly yaw */
            sy_buf_f32(out, (k == 2 || sy_rng_below(&r, 8) == 0)
                                ? (float)((int)sy_rng_below(&r, 2048) - 1023) * 3.1415927f / 1024.0f
                                : 0.0f);
        sy_buf_u32(out, (uint32_t)moby_group[i]);            /* 0x58 group */
        sy_buf_u32(out, 0);                                  /* 0x5C is_rooted */
        sy_buf_f32(out, 0.0f);                               /* 0x60 rooted distance */
        sy_buf_u32(out, 1);                                  /* 0x64 */
        sy_buf_u32(out, (uint32_t)moby_pvar[i]);             /* 0x68 pvar_index */
        sy_buf_u32(out, 0);                                  /* 0x6C occlusion: precompute */
        sy_buf_u32(out, sy_rng_below(&r, 4) == 0 ? 0x4 : 0); /* 0x70 mode bits */
        for (int k = 0; k < 3; k++)                          /* 0x74 light colour */
            sy_buf_u32(out, 64 + sy_rng_below(&r, 192));
        sy_buf_u32(out, sy_rng_below(&r, nlights)); /* 0x80 light */
        sy_buf_u32(out, 0xFFFFFFFFu);               /* 0x84 */
    }

    /* 0x5C pvar table {s32 offset, s32 size} x (highest pvar index + 1); 0x60 pvar data. */
    uint32_t *pv_ofs = calloc((size_t)npvars + 1, sizeof *pv_ofs);
    if (!pv_ofs) {
        sy_buf_free(&groups_tmp);
        goto done;
    }
    uint32_t pv_total = 0;
    for (int32_t i = 0; i < npvars; i++) {
        pv_ofs[i] = pv_total;
        pv_total += pv_size[i];
    }
    begin_block(out, S_PVAR_TABLE, base, 0x10);
    for (int32_t i = 0; i < npvars; i++)
        sy_buf_u32(out, pv_ofs[i]), sy_buf_u32(out, pv_size[i]);
    size_t pdata = begin_block(out, S_PVAR_DATA, base, 0x10);
    for (uint32_t k = 0; k < pv_total; k += 4)
        sy_buf_u32(out, sy_rng_below(&r, 0x10000));
    /* 0x58 moby-link fixups {s32 pvar_index, u32 offset}: the pvar's word at +0 holds a moby
     * instance index; 0x64 relative pointers: the word at +4 holds an offset inside the same
     * pvar. Both end with {-1, -1}. */
    begin_block(out, S_MOBY_LINKS, base, 0x10);
    for (int32_t i = 0; i < npvars; i += 3) {
        sy_buf_u32(out, (uint32_t)i), sy_buf_u32(out, 0);
        sy_buf_set_u32(out, pdata + pv_ofs[i], nmi ? sy_rng_below(&r, nmi) : 0);
    }
    sy_buf_u32(out, 0xFFFFFFFFu), sy_buf_u32(out, 0xFFFFFFFFu);
    begin_block(out, S_PVAR_POINTERS, base, 0x10);
    for (int32_t i = 1; i < npvars; i += 4) {
        sy_buf_u32(out, (uint32_t)i), sy_buf_u32(out, 4);
        sy_buf_set_u32(out, pdata + pv_ofs[i] + 4, 8u * sy_rng_below(&r, pv_size[i] / 8));
    }
    sy_buf_u32(out, 0xFFFFFFFFu), sy_buf_u32(out, 0xFFFFFFFFu);

    /* 0x50 moby groups (built above). */
    begin_block(out, S_MOBY_GROUPS, base, 0x10);
    sy_buf_put(out, groups_tmp.data, groups_tmp.len);
    if (groups_tmp.failed)
        out->failed = 1;
    sy_buf_free(&groups_tmp);

    /* 0x54 shared data {s32 data_size, s32 pointer_count, 2 pad}, data_size bytes (a multiple
     * of 16), then pointer_count x {u16 pvar_index, u16 pointer_offset, s32 data offset}. */
    begin_block(out, S_SHARED_DATA, base, 0x10);
    {
        uint32_t bytes = 0x10u * (2 + sy_rng_below(&r, 14));
        uint32_t ptrs = npvars >= 3 ? 1 + sy_rng_below(&r, 1 + (uint32_t)(npvars - 3) / 4) : 0;
        if (ptrs > 4)
            ptrs = 4;
        sy_buf_u32(out, bytes), sy_buf_u32(out, ptrs);
        sy_buf_zero(out, 8);
        for (uint32_t k = 0; k < bytes; k += 4)
            sy_buf_u32(out, sy_rng_below(&r, 0x10000));
        for (uint32_t k = 0; k < ptrs; k++) {
            uint32_t pv = 2 + 4 * k; /* pvars whose word at +8 is free */
            sy_buf_u16(out, (uint16_t)pv);
            sy_buf_u16(out, 8);
            sy_buf_u32(out, 0x10u * sy_rng_below(&r, bytes / 0x10));
        }
    }
    free(pv_ofs);

    /* 0x30 tie classes {count, o_class...} in order of first appearance among the instances. */
    uint32_t m = first_appearance(tie_cls, nti, list);
    class_list(out, S_TIE_CLASSES, base, list, m);
    /* 0x34 tie instances: table header, 0x60-byte records {s32 o_class, s32 draw_distance,
     * s32 0, s32 occlusion_index, Mat4 (0x10), s32 directional_lights (0x50), s32 uid, 2 x 0}. */
    begin_block(out, S_TIE_INSTANCES, base, 0x10);
    table_header(out, nti);
    for (uint32_t i = 0; i < nti; i++) {
        float v[3], R[3][3], rot[3];
        place_point(&pl, &r, -0.5f, 0.0f, v);
        rotation(&r, 6, R, rot);
        sy_buf_u32(out, tie_cls[i]);                  /* 0x00 o_class */
        sy_buf_u32(out, 100 + sy_rng_below(&r, 400)); /* 0x04 draw distance (an integer) */
        sy_buf_u32(out, 0);                           /* 0x08 */
        sy_buf_u32(out, i);                           /* 0x0C occlusion index */
        put_matrix(out, R, (float)(75 + sy_rng_below(&r, 76)) / 100.0f, v); /* 0x10 */
        sy_buf_u32(out, sy_rng_below(&r, nlights));                         /* 0x50 */
        sy_buf_u32(out, i);                                                 /* 0x54 uid */
        sy_buf_zero(out, 8);
    }
    /* 0x94 tie ambient RGBAs: per tie instance {s16 index, s16 size in 2-byte units}, the
     * 16-bit colours, no alignment between records, then s16 -1; the bulk of the file.
     * Each colour is a pre-lit shade, 5:5:5:1 with red in bits 0-4 (synth-12): a per-instance
     * tint of 10..13 of 31 on red and green and 8..11 on blue, each colour adding 0..3 to red
     * and green, 0..7 to blue, and a random alpha bit (one draw a colour, as before): expanded
     * v << 3 with 0x80 = 1.0 that is 0.625..1.0 red and green, 0.5..1.125 blue. synth-11 wrote a
     * wandering colour (one random bit flipped a colour), noise when read as vertex colours;
     * these 8 random bits a colour keep the block about as incompressible, so the gameplay
     * extent stays within the seed's 10% of the disc's 659 KB. */
    begin_block(out, S_TIE_AMBIENT, base, 0x10);
    {
        size_t target = (size_t)600000 * c->ext->size_pct / 100;
        if (c->scale != SY_SCALE_RETAIL)
            target /= 20;
        size_t per = nti ? target / nti / 2 * 2 : 0;
        if (per > 0xFFFE)
            per = 0xFFFE;
        for (uint32_t i = 0; i < nti && per; i++) {
            sy_buf_u16(out, (uint16_t)i);
            sy_buf_u16(out, (uint16_t)(per / 2));
            uint32_t shade = sy_rng_below(&r, 0x8000), tint = 0;
            for (unsigned ch = 0; ch < 3; ch++)
                tint |= ((ch == 2 ? 8u : 10u) + ((shade >> (5 * ch)) % 4u)) << (5 * ch);
            for (size_t k = 0; k < per / 2; k++) {
                uint32_t v = sy_rng_below(&r, 256); /* + 0..3 on R and G, 0..7 on B; alpha */
                uint32_t col = tint + (v & 3u) + ((v >> 2 & 3u) << 5) + ((v >> 4 & 7u) << 10);
                sy_buf_u16(out, (uint16_t)(col | (v >> 7 & 1u) << 15));
            }
        }
        sy_buf_u16(out, 0xFFFFu);
    }
    begin_block(out, S_TIE_GROUPS, base, 0x10);
    group_block(out, nti, NULL, &r);

    /* 0x3C shrub classes, 0x40 shrub instances: 0x70-byte {s32 o_class, f32 draw_distance,
     * 2 x 0, Mat4 (0x10), 3 x s32 colour (0x50), s32 0, s32 dir_lights (0x60), 3 x 0}. */
    m = first_appearance(shrub_cls, nsi, list);
    class_list(out, S_SHRUB_CLASSES, base, list, m);
    begin_block(out, S_SHRUB_INSTANCES, base, 0x10);
    table_header(out, nsi);
    for (uint32_t i = 0; i < nsi; i++) {
        float v[3], R[3][3], rot[3];
        place_point(&pl, &r, 0.0f, 0.0f, v);
        rotation(&r, 10, R, rot);
        sy_buf_u32(out, shrub_cls[i]);
        sy_buf_f32(out, (float)(40 + sy_rng_below(&r, 80)));
        sy_buf_zero(out, 8);
        put_matrix(out, R, (float)(60 + sy_rng_below(&r, 101)) / 100.0f, v);
        sy_buf_u32(out, 64 + sy_rng_below(&r, 96));  /* 0x50 r */
        sy_buf_u32(out, 96 + sy_rng_below(&r, 128)); /* 0x54 g */
        sy_buf_u32(out, 48 + sy_rng_below(&r, 80));  /* 0x58 b */
        sy_buf_u32(out, 0);
        sy_buf_u32(out, sy_rng_below(&r, nlights)); /* 0x60 */
        sy_buf_zero(out, 12);
    }
    begin_block(out, S_SHRUB_GROUPS, base, 0x10);
    group_block(out, nsi, NULL, &r);

    /* 0x78 paths {s32 count, s32 data offset (from the block), s32 data size, pad}, splines. */
    {
        size_t start = begin_block(out, S_PATHS, base, 0x10);
        sy_buf_u32(out, npaths);
        sy_buf_zero(out, 12);
        size_t data = splines(out, start, npaths, &pl, &r);
        sy_buf_set_u32(out, start + 4, (uint32_t)data);
        sy_buf_set_u32(out, start + 8, (uint32_t)(out->len - start - data));
    }

    /* 0x68..0x74 cuboids, spheres, cylinders, pills: 0x80-byte {Mat4 matrix, Mat3 inverse,
     * Vec3f rotation, f32 0}. */
    gp_shape *shapes[4] = {NULL, NULL, NULL, NULL};
    for (int k = 0; k < 4; k++) {
        shapes[k] = calloc(nshape[k], sizeof *shapes[k]);
        if (!shapes[k]) {
            for (int j = 0; j < k; j++)
                free(shapes[j]);
            goto done;
        }
        begin_block(out, (size_t)S_CUBOIDS + 4u * (size_t)k, base, 0x10);
        table_header(out, nshape[k]);
        for (uint32_t i = 0; i < nshape[k]; i++) {
            float v[3], R[3][3], rot[3], s3[3];
            place_point(&pl, &r, 0.0f, 6.0f, v);
            rotation(&r, 0, R, rot);
            for (int a = 0; a < 3; a++)
                s3[a] = (float)(2 + sy_rng_below(&r, 14));
            if (k > 0) /* spheres, cylinders and pills are round in x and y */
                s3[1] = s3[0];
            if (k == 1)
                s3[2] = s3[0];
            put_matrix_inverse_rotation(out, R, s3, v, rot);
            sy_buf_f32(out, 0.0f);
            memcpy(shapes[k][i].p, v, sizeof v);
            shapes[k][i].radius = sqrtf(s3[0] * s3[0] + s3[1] * s3[1] + s3[2] * s3[2]);
        }
    }

    /* 0x88 camera-collision grid: {s32 size (bytes after this word), 3 pad}, 64 x 64 s32
     * offsets (from the grid start; 0 = empty cell), then per used cell {s32 count, 3 pad} +
     * count x 0x30 {Vec4f bsphere, s32 type (3 cuboid, 5 sphere, 6 cylinder, 7 pill), s32
     * index, s32 flags, s32 i_value, f32 f_value, {-1, 0, 0}}. The first cuboid and the first
     * sphere of the level take part. */
    {
        size_t start = begin_block(out, S_CAM_COLL_GRID, base, 0x10);
        table_header(out, 0);
        size_t grid = out->len;
        sy_buf_zero(out, 4u * GRID_CELLS * GRID_CELLS);
        static const uint32_t types[2] = {3, 5};
        const gp_shape *use[2] = {&shapes[0][0], &shapes[1][0]};
        int cx0[2], cx1[2], cy0[2], cy1[2];
        for (int k = 0; k < 2; k++) {
            cx0[k] = cell_of(use[k]->p[0] - use[k]->radius);
            cx1[k] = cell_of(use[k]->p[0] + use[k]->radius);
            cy0[k] = cell_of(use[k]->p[1] - use[k]->radius);
            cy1[k] = cell_of(use[k]->p[1] + use[k]->radius);
        }
        for (int y = 0; y < GRID_CELLS; y++)
            for (int x = 0; x < GRID_CELLS; x++) {
                uint32_t n = 0;
                for (int k = 0; k < 2; k++)
                    n += x >= cx0[k] && x <= cx1[k] && y >= cy0[k] && y <= cy1[k];
                if (!n)
                    continue;
                sy_buf_align(out, 0x10);
                sy_buf_set_u32(out, grid + 4u * (size_t)(y * GRID_CELLS + x),
                               (uint32_t)(out->len - grid));
                table_header(out, n);
                for (int k = 0; k < 2; k++) {
                    if (!(x >= cx0[k] && x <= cx1[k] && y >= cy0[k] && y <= cy1[k]))
                        continue;
                    sy_buf_f32(out, use[k]->p[0]), sy_buf_f32(out, use[k]->p[1]);
                    sy_buf_f32(out, 0.0f), sy_buf_f32(out, use[k]->radius);
                    sy_buf_u32(out, types[k]);
                    sy_buf_u32(out, 0); /* index: the first of its kind */
                    sy_buf_u32(out, 1);
                    sy_buf_u32(out, 0);
                    sy_buf_f32(out, 1.0f);
                    sy_buf_u32(out, 0xFFFFFFFFu), sy_buf_u32(out, 0), sy_buf_u32(out, 0);
                }
            }
        sy_buf_set_u32(out, start, (uint32_t)(out->len - start - 4));
    }

    /* 0x80 point lights: {count 0, 3 pad} + the 0x800-byte x/y slab masks, all zero (the
     * reference notes: point lights are spawned at run time and absent from the disc). */
    begin_block(out, S_POINT_LIGHTS, base, 0x10);
    table_header(out, 0);
    sy_buf_zero(out, POINT_LIGHT_MASKS);

    /* 0x7C grind paths {s32 count, s32 data offset, s32 data size, pad}, count x 0x20
     * {Vec4f bsphere, s32 unknown, s32 wrap, s32 inactive, pad}, then the splines. */
    {
        size_t start = begin_block(out, S_GRIND_PATHS, base, 0x10);
        sy_buf_u32(out, ngrind);
        sy_buf_zero(out, 12);
        for (uint32_t i = 0; i < ngrind; i++) {
            float v[3];
            place_point(&pl, &r, 2.0f, 6.0f, v);
            sy_buf_f32(out, v[0]), sy_buf_f32(out, v[1]), sy_buf_f32(out, v[2]);
            sy_buf_f32(out, 64.0f);
            sy_buf_u32(out, 0), sy_buf_u32(out, sy_rng_below(&r, 2)), sy_buf_u32(out, 0);
            sy_buf_u32(out, 0);
        }
        size_t data = splines(out, start, ngrind, &pl, &r);
        sy_buf_set_u32(out, start + 4, (uint32_t)data);
        sy_buf_set_u32(out, start + 8, (uint32_t)(out->len - start - data));
    }

    /* 0x98 areas: s32 size, then (offsets from here) {s32 area_count, s32 part_offsets[5]
     * (paths, cuboids, spheres, cylinders, negative cuboids), 2 x 0}, area_count x 0x30
     * {Vec4f bsphere, s16 part_counts[5], s16 last_update_time, s32 relative offsets[5]},
     * then the s32 link arrays. Area a links cuboid a and sphere a (when they exist). */
    {
        size_t start = begin_block(out, S_AREAS, base, 0x10);
        sy_buf_u32(out, 0);
        size_t hdr = out->len;
        sy_buf_u32(out, nareas);
        size_t parts = out->len;
        sy_buf_zero(out, 4 * 5 + 8);
        uint32_t nc = 0, ns = 0;
        for (uint32_t a = 0; a < nareas; a++) {
            uint32_t hc = a < nshape[0], hs = a < nshape[1];
            const gp_shape *s = &shapes[0][a < nshape[0] ? a : 0];
            sy_buf_f32(out, s->p[0]), sy_buf_f32(out, s->p[1]), sy_buf_f32(out, s->p[2]);
            sy_buf_f32(out, s->radius * 4.0f);
            sy_buf_u16(out, 0), sy_buf_u16(out, (uint16_t)hc), sy_buf_u16(out, (uint16_t)hs);
            sy_buf_u16(out, 0), sy_buf_u16(out, 0), sy_buf_u16(out, 0);
            sy_buf_u32(out, 0), sy_buf_u32(out, hc ? 4 * nc : 0), sy_buf_u32(out, hs ? 4 * ns : 0);
            sy_buf_u32(out, 0), sy_buf_u32(out, 0);
            nc += hc, ns += hs;
        }
        if (nc) {
            sy_buf_set_u32(out, parts + 4, (uint32_t)(out->len - hdr));
            for (uint32_t a = 0; a < nc; a++)
                sy_buf_u32(out, a);
        }
        if (ns) {
            sy_buf_set_u32(out, parts + 8, (uint32_t)(out->len - hdr));
            for (uint32_t a = 0; a < ns; a++)
                sy_buf_u32(out, a);
        }
        sy_buf_set_u32(out, start, (uint32_t)(out->len - hdr));
    }
    for (int k = 0; k < 4; k++)
        free(shapes[k]);

    /* 0x90 occlusion mappings, 0x40-aligned. */
    begin_block(out, S_OCCLUSION, base, 0x40);
    if (sy_occlusion_mappings_write(c, out) != 0)
        goto done;
    sy_buf_align(out, 0x10);
    rc = out->failed ? -1 : 0;
done:
    free_classes(&mc), free_classes(&tc), free_classes(&sc);
    free(tie_cls), free(shrub_cls), free(moby_cls), free(list), free(moby_group), free(moby_pvar);
    free(pv_size);
    return rc;
}

/* Sound bank: raw 989snd-shaped header with "SBlk" at +0x18 and "DAW" at +0x24, a sound table
 * and VAG-style ADPCM frames (16 bytes: shift/filter, flags, 14 bytes of nibbles). */
int sy_sound_bank_write(sy_buf *out, size_t bytes, uint32_t seed, int level)
{
    size_t base = out->len;
    if (bytes < 0x200 || sy_buf_reserve(out, bytes) != 0)
        return -1;
    sy_buf_zero(out, bytes);
    uint8_t *b = out->data + base;
    sy_rng r = sy_rng_make(seed, level, 0x50BD);
    uint32_t sounds = 16 + sy_rng_below(&r, 48);
    size_t table = 0x40, data = table + 16u * sounds;
    data = (data + 15) / 16 * 16;
    put_u32(b + 0x00, 2);               /* version */
    put_u32(b + 0x04, (uint32_t)bytes); /* total size */
    put_u32(b + 0x08, (uint32_t)table); /* sound table */
    put_u32(b + 0x0C, sounds);
    put_u32(b + 0x10, (uint32_t)data); /* sample data */
    put_u32(b + 0x14, (uint32_t)(bytes - data));
    memcpy(b + 0x18, "SBlk", 4);
    put_u32(b + 0x1C, 1);
    put_u32(b + 0x20, sounds);
    memcpy(b + 0x24, "DAW", 3);
    size_t per = (bytes - data) / sounds / 16 * 16;
    for (uint32_t s = 0; s < sounds; s++) {
        put_u32(b + table + 16 * s, (uint32_t)(data + per * s - data)); /* offset in data */
        put_u32(b + table + 16 * s + 4, (uint32_t)per);
        put_u32(b + table + 16 * s + 8, 22050); /* sample rate */
        put_u32(b + table + 16 * s + 12, s);
    }
    for (size_t f = data; f + 16 <= bytes; f += 16) {
        b[f] = (uint8_t)(sy_rng_below(&r, 5) << 4 | sy_rng_below(&r, 12));
        b[f + 1] = (uint8_t)((f - data) % per == per - 16 ? 1 : 0); /* end-of-sample flag */
        for (int k = 2; k < 16; k++)
            b[f + k] = (uint8_t)sy_rng_below(&r, 256);
    }
    return 0;
}
