/* SPDX-License-Identifier: MIT */
/* Internal seams of the level writer (synth/ only): PRNG, plan extension, and the builders of
 * each extent. Nothing here is shared with decoders/. */
#ifndef SY_INTERNAL_H
#define SY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sy_buf.h"
#include "sy_corpus.h"

/* Columns of the plan that only the writer needs (sy_plan.c). */
typedef struct sy_plan_ext {
    int index;
    uint32_t moby_textures, tie_textures, shrub_textures;
    uint32_t part_textures, fx_textures;
    uint32_t part_frames;       /* u8 frame indices after the particle defs */
    uint32_t sound_remap_count; /* {offset, size} elements of the sound remap */
    uint32_t size_pct;          /* size weight, level 0 = 100 */
} sy_plan_ext;

const sy_plan_ext *sy_plan_ext_get(int scale, int index);

/* splitmix64: integer-only, explicit seed, identical everywhere. */
typedef struct sy_rng {
    uint64_t s;
} sy_rng;

static inline uint64_t sy_rng_next(sy_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform-enough value in [0, n) (n > 0); the tiny modulo bias does not matter here. */
static inline uint32_t sy_rng_below(sy_rng *r, uint32_t n)
{
    return (uint32_t)((sy_rng_next(r) >> 32) % n);
}

/* A stream for one purpose of one level: independent of every other stream. */
static inline sy_rng sy_rng_make(uint32_t seed, int level, uint32_t stream)
{
    sy_rng r = {((uint64_t)seed << 32) ^ ((uint64_t)(uint32_t)level << 16) ^ stream};
    (void)sy_rng_next(&r);
    return r;
}

/* Four texture tables of the core index, in their on-disk order. */
enum { SY_TEX_TFRAG = 0, SY_TEX_MOBY, SY_TEX_TIE, SY_TEX_SHRUB, SY_TEX_TABLES };

/* Procedural image kinds (sy_texture.c). */
enum { SY_KIND_PANEL = 0, SY_KIND_GRILLE, SY_KIND_ROCK, SY_KIND_GRASS, SY_KIND_SIGN };

/* Square edge of texture i of a table on a level (a formula, so the plan can predict the GS RAM
 * image size). */
unsigned sy_texture_dim(int scale, int table, unsigned i, int level);
#define SY_TEXTURE_DIM_MAX 1024u
/* Which procedural image texture i of a table gets. */
int sy_texture_kind(int table, unsigned i, int level);
/* Draws one texture: dim*dim logical palette indices into pix, and the 256-entry logical
 * palette (RGBA, alpha 0..0x80) into pal. seed varies the image within its kind. */
void sy_texture_draw(int kind, unsigned dim, uint32_t seed, uint8_t *pix, uint32_t pal[256]);
/* CSM1 storage position of logical CLUT entry i (bits 3 and 4 exchanged; an involution). */
static inline unsigned sy_csm1(unsigned i)
{
    return (i & ~0x18u) | ((i & 0x08u) << 1) | ((i & 0x10u) >> 1);
}
/* Box-filter a dim x dim index image down by 2 into out (dim/2 x dim/2), keeping indices
 * (the mean of the four indices; with hole0, index 0 is a transparent hole that wins when it
 * covers half the block, and is left out of the mean otherwise). */
void sy_texture_halve(const uint8_t *pix, unsigned dim, int hole0, uint8_t *out);

/* Everything the core builder produced, for the data extent. */
typedef struct sy_core_out {
    sy_buf core_index;
    sy_buf gs_ram;
    sy_buf core_data; /* decompressed */
    uint32_t tfrag_patch_count;
} sy_core_out;

typedef struct sy_ctx {
    const sy_level_plan *plan;
    const sy_plan_ext *ext;
    int scale;
    int level; /* container index 0..26 */
    uint32_t seed;
} sy_ctx;

int sy_core_build(const sy_ctx *c, sy_core_out *out);
void sy_core_free(sy_core_out *out);

/* Moby class data (sy_moby.c): appends one class span of exactly span_bytes at
 * out->len. */
typedef struct sy_moby_spec {
    uint32_t packets;   /* high + low packet records */
    uint32_t zero_zero; /* the qw after the table is a zero/zero "record" (0 or 1) */
    uint32_t o_class;
    uint32_t texture_slots; /* slots of the class entry (0: the packets switch no texture) */
    uint32_t vif_qw_quota;  /* vif_list_size to spend over the class's packets */
} sy_moby_spec;
/* *vif_qw_written: the sum of vif_list_size actually written (the quota, span permitting). */
int sy_moby_class_write(sy_buf *out, size_t span_bytes, const sy_moby_spec *spec, sy_rng *r,
                        uint32_t *vif_qw_written);
/* Per-level share of the notes' 1,270,802 qw of VIF lists (sums exactly over the 27 levels). */
uint32_t sy_moby_vif_qw_level_target(int scale, int level);
/* Tie (sy_tie.c): at most max_textures (the tie texture table's size) class textures; the
 * count chosen is returned, for the entry's texture slots. */
int sy_tie_class_write(sy_buf *out, size_t span_bytes, uint32_t o_class, int lod_out_of_order,
                       uint32_t max_textures, uint32_t *texture_count, sy_rng *r);
/* Shrub class data (sy_shrub.c); texture_slots: the used slots of the class table entry, which
 * the packets' texture indices stay below. */
int sy_shrub_class_write(sy_buf *out, size_t span_bytes, uint32_t o_class, uint32_t texture_slots,
                         sy_rng *r);
/* Smallest span each writer accepts. */
size_t sy_moby_class_min_bytes(uint32_t packets);
#define SY_TIE_CLASS_MIN_BYTES   0x400u
#define SY_SHRUB_CLASS_MIN_BYTES 0x300u

/* Regions of core_data (sy_regions.c); each appends at out->len, 16-aligned start. */
int sy_occlusion_grid_write(sy_buf *out, size_t target_bytes, sy_rng *r);
/* Sky variants: the retail shape (2-4 shells, the outermost untextured), one untextured shell and
 * no textures, the header's 8 shells all textured, no shells at all, every shell untextured over
 * a texture table that no face uses. */
enum {
    SY_SKY_RETAIL = 0,
    SY_SKY_ONE_BARE,
    SY_SKY_EIGHT_TEXTURED,
    SY_SKY_NO_SHELLS,
    SY_SKY_ALL_BARE
};
int sy_sky_write(sy_buf *out, size_t target_bytes, int variant, sy_rng *r);
/* Collision (sy_collision.c): a mesh over a rectangle of the level's terrain (area 0: the middle,
 * for the core; 1 and 2: opposite corners, for the chunks), zero-padded to target_bytes. */
struct sy_terrain;
int sy_collision_write(sy_buf *out, size_t target_bytes, const struct sy_terrain *t, int area,
                       sy_rng *r);
/* The terrain of a level's tfrag block (the seed sy_core.c gives the tfrag writer). */
void sy_level_terrain(const sy_ctx *c, struct sy_terrain *t);
/* Filler with a tunable share of repeated structure, used by the bulk of class data. */
void sy_fill_bulk(uint8_t *p, size_t n, sy_rng *r);

/* Occlusion mappings (shared by the gameplay block 0x90 and the container's occlusion extent). */
int sy_occlusion_mappings_write(const sy_ctx *c, sy_buf *out);
/* Decompressed gameplay file; its class lists and instances name the classes of the core index
 * (core_index: the core_index bytes sy_core_build wrote). */
int sy_gameplay_write(const sy_ctx *c, const sy_buf *core_index, sy_buf *out);
/* Raw overlay image with the normal table and its decoy. */
int sy_overlay_write(const sy_ctx *c, sy_buf *out);
/* The 256-entry (cos, sin) table as f32 bit patterns, computed without libm. */
void sy_normal_table(uint32_t bits[512]);
/* Raw sound bank of exactly `bytes` bytes. */
int sy_sound_bank_write(sy_buf *out, size_t bytes, uint32_t seed, int level);

#endif
