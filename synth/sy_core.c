/* SPDX-License-Identifier: MIT */
/* The level core: core_index (0xBC header + tables), the GS RAM image and the decompressed
 * core_data (tfrag block, occlusion grid, sky, collision, texture pixels, particle and fx banks,
 * moby/tie/shrub class data), laid out as docs/formats/core-index.md and core-data.md say. */
#include <stdlib.h>
#include <string.h>

#include "sy_internal.h"
#include "sy_tfrag.h"

#define SY_CORE_HEADER_BYTES   0xBCu /* the header proper */
#define SY_CORE_TABLES_START   0xC0u /* first table: the header padded to 16 */
#define SY_RATCHET_SEQS        256u
#define SY_TFRAG_REGION_L0     2117888ull /* [0, occlusion) on retail level 0 */
#define SY_MOBY_NO_SLOTS_LEVEL 0 /* the level whose moby texture slots were measured all 0xFF */

typedef struct tex_slot {
    unsigned dim;
    int kind;
    uint32_t data_offset;                  /* from textures_base */
    uint32_t palette_gs, mip2_gs, mip3_gs; /* byte addresses in GS RAM */
} tex_slot;

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}
static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

/* Texture slots of moby class i's entry (the class writer needs them for its TEX0 indices).
 * Level 0's stay all 0xFF: the reference notes measured "textures == ffff..ff on all 238
 * level-0 moby classes". Elsewhere (no measurement) the slots are filled as Wrench's
 * MobyClassEntry.textures reads them. */
static uint32_t moby_slots_used(const sy_ctx *c, uint32_t i, uint32_t tcount)
{
    if (!tcount || i % 2 != 0 || c->level == SY_MOBY_NO_SLOTS_LEVEL)
        return 0;
    return 1 + (i % 3);
}

/* Region sizes of core_data that are not counted by the plan: proportional to the level's size
 * weight (level 0: occlusion ~0.07 MB, sky ~0.42 MB, collision ~0.90 MB, as measured). */
static size_t region_bytes(const sy_ctx *c, size_t level0_bytes)
{
    size_t v = level0_bytes * c->ext->size_pct / 100;
    if (c->scale != SY_SCALE_RETAIL)
        v /= 20;
    return align_up(v, 0x40);
}

/* The seed of a level's tfrag block (its terrain, which the collision meshes follow). */
static uint32_t tfrag_seed(const sy_ctx *c)
{
    return c->seed * 1000u + (uint32_t)c->level;
}

void sy_level_terrain(const sy_ctx *c, sy_terrain *t)
{
    sy_tfrag_params tp;
    memset(&tp, 0, sizeof tp);
    tp.patch_count = c->plan->tfrag_patches;
    tp.seed = tfrag_seed(c);
    sy_tfrag_terrain(&tp, t);
}

/* A permutation of 0..n-1 (Fisher-Yates on the level's stream). */
static int shuffle(uint32_t *v, uint32_t n, sy_rng *r)
{
    for (uint32_t i = 0; i < n; i++)
        v[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = sy_rng_below(r, i), t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
    return 0;
}

/* Distinct class numbers: the first n of a shuffled 0..range-1. */
static uint32_t *class_numbers(uint32_t n, uint32_t range, sy_rng *r)
{
    if (range < n)
        range = n;
    uint32_t *all = malloc(sizeof *all * range);
    if (!all)
        return NULL;
    shuffle(all, range, r);
    return all;
}

/* Marks which classes of a table have no geometry: `none` of them, never the first. */
static void pick_no_geometry(uint8_t *flag, uint32_t n, uint32_t none, sy_rng *r)
{
    memset(flag, 0, n);
    for (uint32_t k = 0; k < none && n > 1;) {
        uint32_t i = 1 + sy_rng_below(r, n - 1);
        if (!flag[i])
            flag[i] = 1, k++;
    }
}

/* Used texture slots of entry i of class table k (0 moby, 1 tie, 2 shrub) over a texture table
 * of tcount entries. Moby slots on level 0 stay all 0xFF: the reference notes measured "textures
 * == ffff..ff on all 238 level-0 moby classes". Elsewhere (no measurement) every other entry uses
 * 1-3 slots, as Wrench's class entries' textures read them; the shrub writer keeps its texture
 * indices below this count. */
static uint32_t class_slots(const sy_ctx *c, int k, uint32_t i, uint32_t tcount)
{
    if (!tcount || i % 2 != 0 || (k == 0 && c->level == SY_MOBY_NO_SLOTS_LEVEL))
        return 0;
    return 1 + (i % 3);
}

static int write_textures(const sy_ctx *c, tex_slot *slots, const uint32_t counts[SY_TEX_TABLES],
                          sy_buf *data, size_t textures_base, sy_buf *gs, sy_buf *gs_table)
{
    const size_t m = SY_TEXTURE_DIM_MAX;
    uint8_t *pix = malloc(m * m), *half = malloc(m * m / 4), *q = malloc(m * m / 16),
            *e = malloc(m * m / 64);
    if (!pix || !half || !q || !e) {
        free(pix), free(half), free(q), free(e);
        return -1;
    }
    unsigned k = 0;
    for (int t = 0; t < SY_TEX_TABLES; t++)
        for (unsigned i = 0; i < counts[t]; i++, k++) {
            tex_slot *s = &slots[k];
            s->dim = sy_texture_dim(c->scale, t, i, c->level);
            s->kind = sy_texture_kind(t, i, c->level);
            uint32_t pal[256];
            sy_texture_draw(s->kind, s->dim, c->seed * 0x9E37u + (uint32_t)c->level * 977u + k, pix,
                            pal);
            int hole0 = s->kind == SY_KIND_GRILLE;
            unsigned d = s->dim;
            sy_texture_halve(pix, d, hole0, half);
            sy_texture_halve(half, d / 2, hole0, q);
            sy_texture_halve(q, d / 4, hole0, e);
            /* Levels 0 and 1 in core_data, back to back. */
            sy_buf_align(data, 0x10);
            s->data_offset = (uint32_t)(data->len - textures_base);
            sy_buf_put(data, pix, (size_t)d * d);
            sy_buf_put(data, half, (size_t)(d / 2) * (d / 2));
            /* Palette in CSM1 order, then levels 2 and 3, each 0x100-aligned in GS RAM. */
            uint8_t clut[1024];
            for (unsigned j = 0; j < 256; j++)
                put_u32(clut + 4 * sy_csm1(j), pal[j]);
            sy_buf_align(gs, 0x100);
            s->palette_gs = (uint32_t)gs->len;
            sy_buf_put(gs, clut, sizeof clut);
            sy_buf_align(gs, 0x100);
            s->mip2_gs = (uint32_t)gs->len;
            sy_buf_put(gs, q, (size_t)(d / 4) * (d / 4));
            sy_buf_align(gs, 0x100);
            s->mip3_gs = (uint32_t)gs->len;
            sy_buf_put(gs, e, (size_t)(d / 8) * (d / 8));
            sy_buf_align(gs, 0x100);
            /* GsRamEntry {s32 psm, s16 width, s16 height, s32 address, s32 offset}. */
            uint8_t ent[48] = {0};
            put_u32(ent + 0x00, 0x00); /* PSMCT32 palette, no dimensions */
            put_u32(ent + 0x08, s->palette_gs);
            put_u32(ent + 0x0C, s->palette_gs);
            put_u32(ent + 0x10, 0x13); /* PSMT8 */
            put_u16(ent + 0x14, (uint16_t)(d / 4));
            put_u16(ent + 0x16, (uint16_t)(d / 4));
            put_u32(ent + 0x18, s->mip2_gs);
            put_u32(ent + 0x1C, s->mip2_gs);
            put_u32(ent + 0x20, 0x13);
            put_u16(ent + 0x24, (uint16_t)(d / 8));
            put_u16(ent + 0x26, (uint16_t)(d / 8));
            put_u32(ent + 0x28, s->mip3_gs);
            put_u32(ent + 0x2C, s->mip3_gs);
            sy_buf_put(gs_table, ent, sizeof ent);
        }
    free(pix), free(half), free(q), free(e);
    return data->failed || gs->failed || gs_table->failed ? -1 : 0;
}

/* Particle / fx bank: `n` small square textures, each a 1 KiB CSM1 palette and side*side
 * indices; the index entries give offsets relative to the bank. kind 0 = particle entry
 * {palette, unknown_4, texture, side}, kind 1 = fx entry {palette, texture, width, height}. */
static void write_bank(const sy_ctx *c, sy_buf *data, size_t bank, uint32_t n, int fx,
                       sy_buf *entries)
{
    uint8_t pix[32 * 32];
    uint32_t pal[256];
    for (uint32_t i = 0; i < n; i++) {
        unsigned side = (i % 3 == 0) ? 32 : 16;
        sy_texture_draw(i % 2 ? SY_KIND_ROCK : SY_KIND_PANEL, side,
                        c->seed * 31u + (uint32_t)c->level * 7u + i + (fx ? 1000u : 0u), pix, pal);
        for (unsigned j = 0; j < side * side; j++) /* soft round sprite: alpha via index 0 */
            if (((j % side) * 2 + 1 - side) * ((j % side) * 2 + 1 - side) +
                    ((j / side) * 2 + 1 - side) * ((j / side) * 2 + 1 - side) >
                side * side)
                pix[j] = 0;
        pal[0] = 0;
        uint8_t clut[1024];
        for (unsigned j = 0; j < 256; j++)
            put_u32(clut + 4 * sy_csm1(j), pal[j]);
        sy_buf_align(data, 0x10);
        uint32_t pal_ofs = (uint32_t)(data->len - bank);
        sy_buf_put(data, clut, sizeof clut);
        uint32_t tex_ofs = (uint32_t)(data->len - bank);
        sy_buf_put(data, pix, (size_t)side * side);
        uint8_t ent[16];
        put_u32(ent + 0, pal_ofs);
        if (fx) {
            put_u32(ent + 4, tex_ofs);
            put_u32(ent + 8, side);
            put_u32(ent + 12, side);
        } else {
            put_u32(ent + 4, 0);
            put_u32(ent + 8, tex_ofs);
            put_u32(ent + 12, side);
        }
        sy_buf_put(entries, ent, 16);
    }
}

/* Particle slots on R&C2 (Wrench's pack_particle_textures writes 0x6F for R&C2). */
#define SY_PART_SLOTS 0x6Fu

/* The part defs block (see the call site): frames spread over the used slots, each frame an
 * index into the particle texture table. */
static int write_part_defs(const sy_ctx *c, sy_buf *ix)
{
    const sy_plan_ext *x = c->ext;
    uint32_t frames = x->part_frames, ntex = x->part_textures;
    if (frames == 0 || ntex == 0)
        return -1;
    size_t base = ix->len;
    uint32_t indices_ofs = (16u + 4u * SY_PART_SLOTS + 15u) / 16u * 16u;
    sy_buf_u32(ix, SY_PART_SLOTS);
    sy_buf_u32(ix, 0);
    sy_buf_u32(ix, indices_ofs);
    sy_buf_u32(ix, frames);
    /* Used slots: roughly two in three, never more than there are frames. */
    uint32_t used = 0;
    uint8_t on[SY_PART_SLOTS];
    for (uint32_t k = 0; k < SY_PART_SLOTS; k++) {
        on[k] = (uint8_t)((k * 7u + (uint32_t)c->level) % 3u != 0 && used < frames);
        used += on[k];
    }
    uint32_t at = 0, seen = 0;
    for (uint32_t k = 0; k < SY_PART_SLOTS; k++) {
        if (!on[k]) {
            sy_buf_u32(ix, 0);
            continue;
        }
        sy_buf_u32(ix, indices_ofs + at);
        seen++;
        at = (uint32_t)((uint64_t)frames * seen / used); /* next slot's first frame */
    }
    sy_buf_zero(ix, base + indices_ofs - ix->len);
    for (uint32_t i = 0; i < frames; i++)
        sy_buf_u8(ix, (uint8_t)((i * 5u + (uint32_t)c->level) % ntex));
    return ix->failed ? -1 : 0;
}

/* The sound remap block (see the call site). Our layout, which Wrench's two sizing rules read
 * the same way: the elements' runs of 4-byte entries follow the element array back to back,
 * so the last element ends the remap; they form the third part (third_part_ofs =
 * second_part_ofs, third_part_count = the entries), the second part is empty. */
static void write_sound_remap(const sy_ctx *c, sy_buf *ix)
{
    uint32_t n = c->ext->sound_remap_count, entries = 0;
    for (uint32_t i = 0; i < n; i++)
        entries += 1 + i % 3;
    uint32_t second = 8 + 4 * n;
    sy_buf_u16(ix, (uint16_t)second);  /* second_part_ofs */
    sy_buf_u16(ix, 0);                 /* second_part_size */
    sy_buf_u16(ix, (uint16_t)second);  /* third_part_ofs */
    sy_buf_u16(ix, (uint16_t)entries); /* third_part_count */
    uint32_t run = second;
    for (uint32_t i = 0; i < n; i++) {
        sy_buf_u16(ix, (uint16_t)run);         /* offset: bytes from the remap start */
        sy_buf_u16(ix, (uint16_t)(1 + i % 3)); /* size: 4-byte entries */
        run += 4 * (1 + i % 3);
    }
    for (uint32_t e = 0; e < entries; e++) /* entries: sound indices into the level's bank */
        sy_buf_u32(ix, (e * 13u + (uint32_t)c->level) % 512u);
}

typedef struct class_job {
    uint32_t table_index;
    size_t span;
} class_job;

int sy_core_build(const sy_ctx *c, sy_core_out *o)
{
    const sy_level_plan *p = c->plan;
    const sy_plan_ext *x = c->ext;
    memset(o, 0, sizeof *o);
    sy_buf *data = &o->core_data, *gs = &o->gs_ram, *ix = &o->core_index;
    sy_buf gs_table, part_ent, fx_ent;
    sy_buf_init(&gs_table), sy_buf_init(&part_ent), sy_buf_init(&fx_ent);
    uint32_t counts[SY_TEX_TABLES] = {p->tfrag_textures, x->moby_textures, x->tie_textures,
                                      x->shrub_textures};
    uint32_t ntex = counts[0] + counts[1] + counts[2] + counts[3];
    uint32_t nclass = p->moby_classes + p->tie_classes + p->shrub_classes;
    tex_slot *slots = calloc(ntex ? ntex : 1, sizeof *slots);
    uint32_t *onum[3] = {NULL, NULL, NULL};
    uint8_t *nogeo = calloc(nclass ? nclass : 1, 1);
    uint32_t *offsets = calloc(nclass ? nclass : 1, sizeof *offsets);
    uint8_t *tie_tc = calloc(nclass ? nclass : 1, 1); /* textures each tie class chose */
    int rc = -1;
    if (!slots || !nogeo || !offsets || !tie_tc ||
        sy_buf_reserve(data, (size_t)p->core_data_bytes) != 0)
        goto done;
    sy_rng r = sy_rng_make(c->seed, c->level, 0xC0DE);

    /* 1. tfrag block at data offset 0, so core.tfrags == 0 and the region is [0, occlusion). */
    sy_tfrag_params tp = {p->tfrag_patches, p->tfrag_positions, p->tfrag_triangles,
                          p->vi_common,     p->vi_lod01,        p->vi_lod0,
                          p->tfrag_adgifs,  p->tfrag_textures,  p->tfrag_textures_referenced,
                          tfrag_seed(c)};
    sy_tfrag_stats ts;
    memset(&ts, 0, sizeof ts);
    if (sy_tfrag_write(&tp, data, &ts) != 0)
        goto done;
    if (ts.patch_count != tp.patch_count || ts.positions != tp.positions ||
        ts.triangles != tp.triangles || ts.vi_common != tp.vi_common ||
        ts.vi_lod01 != tp.vi_lod01 || ts.vi_lod0 != tp.vi_lod0 || ts.adgifs != tp.adgifs)
        goto done; /* the plan is a promise: never write a level that breaks it */
    o->tfrag_patch_count = ts.patch_count;
    /* The region is zero-padded (as Wrench pads it to the largest chunk) to the disc's measured
     * size per patch: level 0's occlusion grid starts at 2,117,888 with 833 patches. */
    {
        size_t want = (size_t)(SY_TFRAG_REGION_L0 * p->tfrag_patches / 833u) / 0x100 * 0x100;
        if (data->len < want)
            sy_buf_zero(data, want - data->len);
    }
    sy_buf_align(data, 0x100);
    uint32_t ofs_occlusion = (uint32_t)data->len;
    if (sy_occlusion_grid_write(data, region_bytes(c, 70000), &r) != 0)
        goto done;
    sy_buf_align(data, 0x40);
    uint32_t ofs_sky = (uint32_t)data->len;
    /* The edge scale cycles through the sky variants; the others keep the retail shape. */
    int sky = c->scale == SY_SCALE_EDGE ? c->level % 5 : SY_SKY_RETAIL;
    if (sy_sky_write(data, region_bytes(c, 420000), sky, &r) != 0)
        goto done;
    sy_buf_align(data, 0x40);
    uint32_t ofs_collision = (uint32_t)data->len;
    sy_terrain terrain;
    sy_tfrag_terrain(&tp, &terrain);
    if (sy_collision_write(data, region_bytes(c, 900000), &terrain, 0, &r) != 0)
        goto done;

    /* 2. Texture pixels at textures_base (0x100-aligned). */
    sy_buf_align(data, 0x100);
    uint32_t textures_base = (uint32_t)data->len;
    if (write_textures(c, slots, counts, data, textures_base, gs, &gs_table) != 0)
        goto done;
    if (gs->len > p->gs_ram_bytes)
        goto done;
    sy_buf_zero(gs, (size_t)p->gs_ram_bytes - gs->len); /* unused GS RAM up to the image size */

    /* 3. Particle and fx banks. */
    sy_buf_align(data, 0x100);
    uint32_t part_bank = (uint32_t)data->len;
    write_bank(c, data, part_bank, x->part_textures, 0, &part_ent);
    sy_buf_align(data, 0x100);
    uint32_t fx_bank = (uint32_t)data->len;
    write_bank(c, data, fx_bank, x->fx_textures, 1, &fx_ent);
    sy_buf_align(data, 0x40);
    if (data->failed || part_ent.failed || fx_ent.failed)
        goto done;

    /* 4. Class data: every class with geometry gets a span; the spans fill core_data exactly. */
    uint32_t ncl[3] = {p->moby_classes, p->tie_classes, p->shrub_classes};
    uint32_t nng[3] = {p->moby_classes_no_geometry, p->tie_classes_no_geometry,
                       p->shrub_classes_no_geometry};
    uint32_t base_of[3] = {0, ncl[0], ncl[0] + ncl[1]};
    for (int k = 0; k < 3; k++) {
        pick_no_geometry(nogeo + base_of[k], ncl[k], nng[k], &r);
        onum[k] = class_numbers(ncl[k], k == 0 ? 5000 : k == 1 ? 2000 : 600, &r);
        if (!onum[k])
            goto done;
    }
    size_t start = data->len, end = (size_t)p->core_data_bytes;
    uint32_t geo = nclass - nng[0] - nng[1] - nng[2];
    uint32_t moby_geo = ncl[0] - nng[0];
    /* Packets per moby class with geometry: at least 1 each, the rest spread at random. */
    uint32_t *packets = calloc(ncl[0] ? ncl[0] : 1, sizeof *packets);
    uint32_t *zz = calloc(ncl[0] ? ncl[0] : 1, sizeof *zz);
    uint32_t *weight = calloc(nclass ? nclass : 1, sizeof *weight);
    uint8_t *ooo = calloc(ncl[1] ? ncl[1] : 1, 1);
    /* Plans the loops below could not meet (they would never finish) are refused up front. */
    if (!packets || !zz || !weight || !ooo || moby_geo == 0 || p->moby_packets < moby_geo ||
        p->moby_packets > 40u * moby_geo || p->moby_packets_zero_zero > moby_geo ||
        p->tie_lod_out_of_order > ncl[1] - nng[1]) {
        free(packets), free(zz), free(weight), free(ooo);
        goto done;
    }
    {
        uint32_t left = p->moby_packets - moby_geo;
        for (uint32_t i = 0; i < ncl[0]; i++)
            packets[i] = nogeo[i] ? 0 : 1;
        while (left) {
            uint32_t i = sy_rng_below(&r, ncl[0]);
            if (!nogeo[i] && packets[i] < 40)
                packets[i]++, left--;
        }
        /* Which classes end their run on a zero/zero terminator (at most one per class). */
        for (uint32_t k = 0; k < p->moby_packets_zero_zero && k < moby_geo;) {
            uint32_t i = sy_rng_below(&r, ncl[0]);
            if (!nogeo[i] && zz[i] == 0)
                zz[i] = 1, k++;
        }
        for (uint32_t k = 0; k < p->tie_lod_out_of_order && k < ncl[1];) {
            uint32_t i = sy_rng_below(&r, ncl[1]);
            if (!nogeo[base_of[1] + i] && !ooo[i])
                ooo[i] = 1, k++;
        }
    }
    size_t need = 0;
    uint64_t wsum = 0;
    for (uint32_t i = 0; i < nclass; i++) {
        if (nogeo[i])
            continue;
        size_t mn = i < base_of[1]   ? sy_moby_class_min_bytes(packets[i])
                    : i < base_of[2] ? SY_TIE_CLASS_MIN_BYTES
                                     : SY_SHRUB_CLASS_MIN_BYTES;
        need += align_up(mn, 0x40);
        weight[i] = 1 + sy_rng_below(&r, 4) + (i < base_of[1] ? packets[i] / 4 : 0);
        wsum += weight[i];
    }
    if (end < start || end - start < need || geo == 0) {
        free(packets), free(zz), free(weight), free(ooo);
        goto done;
    }
    {
        size_t spare = end - start - need;
        /* Moby data in a shuffled order (offsets within a table are not monotonic on disc),
         * tie and shrub in table order; the class written last absorbs the rounding (a moby
         * class when the tie and shrub tables are empty, as on some edge levels). */
        uint32_t *order = malloc(sizeof *order * (ncl[0] ? ncl[0] : 1));
        if (!order) {
            free(packets), free(zz), free(weight), free(ooo);
            goto done;
        }
        shuffle(order, ncl[0], &r);
        uint32_t last_geo = 0;
        for (uint32_t step = 0; step < nclass; step++) {
            uint32_t i = step < ncl[0] ? order[step] : step;
            if (!nogeo[i])
                last_geo = i;
        }
        uint32_t vif_left = sy_moby_vif_qw_level_target(c->scale, c->level);
        uint32_t packets_left = p->moby_packets;
        for (uint32_t step = 0; step < nclass && rc != -2; step++) {
            uint32_t i = step < ncl[0] ? order[step] : step;
            if (nogeo[i])
                continue;
            size_t mn = i < base_of[1]   ? sy_moby_class_min_bytes(packets[i])
                        : i < base_of[2] ? SY_TIE_CLASS_MIN_BYTES
                                         : SY_SHRUB_CLASS_MIN_BYTES;
            size_t span = align_up(mn, 0x40) + (size_t)(spare * weight[i] / wsum) / 0x40 * 0x40;
            if (i == last_geo)
                span = end - data->len;
            offsets[i] = (uint32_t)data->len;
            int w;
            if (i < base_of[1]) {
                /* This class's share of the level's VIF-list quadwords; what a class cannot
                 * place (span) carries over to the classes after it. */
                sy_moby_spec ms = {packets[i], zz[i], onum[0][i],
                                   moby_slots_used(c, i, counts[SY_TEX_MOBY]), 0};
                ms.vif_qw_quota = (uint32_t)((uint64_t)vif_left * packets[i] / packets_left);
                if (packets_left == packets[i])
                    ms.vif_qw_quota = vif_left;
                uint32_t got = 0;
                w = sy_moby_class_write(data, span, &ms, &r, &got);
                vif_left -= got < vif_left ? got : vif_left;
                packets_left -= packets[i];
            } else if (i < base_of[2]) {
                uint32_t tc = 0;
                w = sy_tie_class_write(data, span, onum[1][i - base_of[1]], ooo[i - base_of[1]],
                                       counts[2], &tc, &r);
                tie_tc[i] = (uint8_t)tc;
            } else
                w = sy_shrub_class_write(data, span, onum[2][i - base_of[2]],
                                         class_slots(c, 2, i - base_of[2], counts[3]), &r);
            if (w != 0)
                rc = -2;
        }
        free(order);
        if (vif_left != 0) /* the spans could not hold the level's VIF-list quadwords */
            rc = -2;
    }
    free(packets), free(zz), free(weight), free(ooo);
    if (rc == -2 || data->failed || data->len != end) {
        rc = -1;
        goto done;
    }

    /* 5. core_index: header, then every table in the original order, each ending where the
     * next begins. */
    sy_buf_zero(ix, SY_CORE_TABLES_START);
    uint32_t t_moby = (uint32_t)ix->len;
    for (int k = 0; k < 3; k++) {
        for (uint32_t i = 0; i < ncl[k]; i++) {
            uint8_t ent[48];
            memset(ent, 0, sizeof ent);
            memset(ent + 0x10, 0xFF, 16); /* texture slots, 0xFF = end */
            put_u32(ent + 0x00, offsets[base_of[k] + i]);
            put_u32(ent + 0x04, onum[k][i]);
            uint32_t tcount = counts[k + 1];
            /* Moby slots on level 0 stay all 0xFF (moby_slots_used): the reference notes
             * measured "textures == ffff..ff on all 238 level-0 moby classes". Elsewhere (no
             * measurement) the slots are filled as Wrench's MobyClassEntry.textures reads them. */
            uint32_t used = k == 0 ? moby_slots_used(c, i, tcount) : class_slots(c, k, i, tcount);
            if (k == 1 && tcount) {
                /* A tie's ad-gif record t is class-local texture t, so slots 0 .. count-1 are
                 * all filled (docs/formats/tie.md §2). */
                for (uint32_t s = 0; s < tie_tc[base_of[1] + i] && s < 15; s++)
                    ent[0x10 + s] = (uint8_t)((i * 5 + s * 3) % (tcount < 255 ? tcount : 255));
            } else if (used) {
                for (uint32_t s = 0; s < used && s < 15; s++)
                    ent[0x10 + s] = (uint8_t)((i * 5 + s * 3) % (tcount < 255 ? tcount : 255));
            }
            /* Shrub entries carry 16 bytes of billboard info at 0x20: all zero = none. */
            sy_buf_put(ix, ent, k == 2 ? 48 : 32);
        }
    }
    uint32_t t_tie = t_moby + 32 * ncl[0], t_shrub = t_tie + 32 * ncl[1];
    uint32_t t_tex[SY_TEX_TABLES];
    t_tex[0] = t_shrub + 48 * ncl[2];
    for (int t = 1; t < SY_TEX_TABLES; t++)
        t_tex[t] = t_tex[t - 1] + 16 * counts[t - 1];
    for (uint32_t k = 0; k < ntex; k++) {
        /* TextureEntry {s32 data_offset, s16 width, s16 height, s16 type, s16 palette,
         * s16 mipmap, s16 pad}; GS positions in 0x100-byte units, level 3 in the pad slot. */
        uint8_t ent[16];
        put_u32(ent + 0x0, slots[k].data_offset);
        put_u16(ent + 0x4, (uint16_t)slots[k].dim);
        put_u16(ent + 0x6, (uint16_t)slots[k].dim);
        put_u16(ent + 0x8, 3);
        put_u16(ent + 0xA, (uint16_t)(slots[k].palette_gs / 0x100));
        put_u16(ent + 0xC, (uint16_t)(slots[k].mip2_gs / 0x100));
        put_u16(ent + 0xE, (uint16_t)(slots[k].mip3_gs / 0x100));
        sy_buf_put(ix, ent, 16);
    }
    uint32_t t_part = (uint32_t)ix->len;
    sy_buf_put(ix, part_ent.data, part_ent.len);
    uint32_t t_fx = (uint32_t)ix->len;
    sy_buf_put(ix, fx_ent.data, fx_ent.len);
    uint32_t t_gs = (uint32_t)ix->len;
    sy_buf_put(ix, gs_table.data, gs_table.len);
    /* Particle defs (Wrench's PartDefsHeader): {s32 particle_count = 0x6F slots on R&C2,
     * s32 unknown_4 (0), s32 indices_offset, s32 indices_size}, then particle_count s32 slot
     * offsets, then the u8 frame list. Every offset is relative to the part-defs header; a slot
     * offset is indices_offset + the slot's first frame, 0 for an unused slot. */
    uint32_t t_partdefs = (uint32_t)ix->len;
    if (write_part_defs(c, ix) != 0)
        goto done;
    sy_buf_align(ix, 16);
    /* Sound remap (R&C2): {s16 second_part_ofs, s16 second_part_size, s16 third_part_ofs,
     * s16 third_part_count}, then {s16 offset, s16 size} elements up to second_part_ofs. Wrench
     * sizes the remap from the element just before second_part_ofs: offset + size x 4. */
    uint32_t t_sound = (uint32_t)ix->len;
    write_sound_remap(c, ix);
    sy_buf_align(ix, 16);
    uint32_t t_stash = (uint32_t)ix->len; /* s16 o_class list, ends at the first negative */
    sy_buf_u16(ix, 0xFFFF);
    sy_buf_align(ix, 16);
    uint32_t t_ratchet = (uint32_t)ix->len; /* 256 data offsets, 0 = none */
    sy_buf_zero(ix, 4 * SY_RATCHET_SEQS);
    if (ix->failed || ix->len != p->core_index_bytes) {
        rc = -1;
        goto done;
    }
    uint8_t *h = ix->data;
    put_u32(h + 0x00, ntex * 3);      /* gs_ram count (no stash entries) */
    put_u32(h + 0x04, t_gs);          /* gs_ram offset */
    put_u32(h + 0x08, 0);             /* tfrags */
    put_u32(h + 0x0C, ofs_occlusion); /* occlusion */
    put_u32(h + 0x10, ofs_sky);       /* sky */
    put_u32(h + 0x14, ofs_collision); /* collision */
    put_u32(h + 0x18, ncl[0]);        /* moby_classes {count, offset} */
    put_u32(h + 0x1C, t_moby);
    put_u32(h + 0x20, ncl[1]); /* tie_classes */
    put_u32(h + 0x24, t_tie);
    put_u32(h + 0x28, ncl[2]); /* shrub_classes */
    put_u32(h + 0x2C, t_shrub);
    for (int t = 0; t < SY_TEX_TABLES; t++) { /* tfrag/moby/tie/shrub textures at 0x30..0x48 */
        put_u32(h + 0x30 + 8 * t, counts[t]);
        put_u32(h + 0x34 + 8 * t, t_tex[t]);
    }
    put_u32(h + 0x50, x->part_textures); /* part_textures */
    put_u32(h + 0x54, t_part);
    put_u32(h + 0x58, x->fx_textures); /* fx_textures */
    put_u32(h + 0x5C, t_fx);
    put_u32(h + 0x60, textures_base); /* textures_base_offset */
    put_u32(h + 0x64, part_bank);     /* part_bank_offset */
    put_u32(h + 0x68, fx_bank);       /* fx_bank_offset */
    put_u32(h + 0x6C, t_partdefs);    /* part_defs_offset */
    put_u32(h + 0x70, t_sound);       /* sound_remap_offset */
    put_u32(h + 0x78, t_ratchet);     /* ratchet_seqs */
    put_u32(h + 0x84, 0);             /* moby_gs_stash_count */
    put_u32(h + 0x88, 0);             /* assets_compressed_size: patched by the caller */
    put_u32(h + 0x8C, (uint32_t)p->core_data_bytes); /* assets_decompressed_size */
    put_u32(h + 0x98, 0x4000);                       /* glass_map_texture */
    put_u32(h + 0x9C, 0x400);                        /* glass_map_palette */
    put_u32(h + 0xAC, t_stash);                      /* moby_gs_stash_list */
    (void)SY_CORE_HEADER_BYTES;
    rc = 0;
done:
    free(slots), free(nogeo), free(offsets), free(tie_tc);
    for (int k = 0; k < 3; k++)
        free(onum[k]);
    sy_buf_free(&gs_table), sy_buf_free(&part_ent), sy_buf_free(&fx_ent);
    if (rc != 0)
        sy_core_free(o);
    return rc;
}

void sy_core_free(sy_core_out *o)
{
    sy_buf_free(&o->core_index);
    sy_buf_free(&o->gs_ram);
    sy_buf_free(&o->core_data);
}
