/* SPDX-License-Identifier: MIT */
/* The decompressed gameplay file (0x9C-byte block table, directional light bank at the block
 * named by offset 0x04, instances, occlusion mappings at 0x90, small placeholders with real
 * headers elsewhere), the occlusion mappings themselves, and the raw sound bank
 * (docs/formats/gameplay.md, sound-bank.md, occlusion.md). */
#include <math.h>
#include <string.h>

#include "sy_internal.h"

#define GP_TABLE_BYTES       0x9Cu
#define GP_DIR_LIGHTS        0x04u
#define GP_OCCLUSION         0x90u
#define TIE_INSTANCE_BYTES   0x60u
#define SHRUB_INSTANCE_BYTES 0x70u
#define MOBY_INSTANCE_BYTES  0x70u

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
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
        sy_buf_u32(out, nt + ni + i), sy_buf_u32(out, 1000 + i);
    return out->failed ? -1 : 0;
}

/* A unit direction from an integer vector, normalised with sqrt only. */
static void unit_dir(sy_rng *r, float d[3])
{
    for (;;) {
        int x = (int)sy_rng_below(r, 201) - 100, y = (int)sy_rng_below(r, 201) - 100,
            z = (int)sy_rng_below(r, 201) - 100;
        int n2 = x * x + y * y + z * z;
        if (n2 < 100)
            continue;
        float len = sqrtf((float)n2);
        d[0] = (float)x / len, d[1] = (float)y / len, d[2] = (float)z / len;
        return;
    }
}

static void begin_block(sy_buf *out, size_t table_slot, size_t base)
{
    sy_buf_align(out, 0x10);
    sy_buf_set_u32(out, base + table_slot, (uint32_t)(out->len - base));
}

/* {s32 count, 3 x s32 pad} followed by count records of `stride` bytes from `fill`. */
static void counted_block(sy_buf *out, size_t slot, size_t base, uint32_t count, size_t stride,
                          sy_rng *r)
{
    begin_block(out, slot, base);
    sy_buf_u32(out, count);
    sy_buf_zero(out, 12);
    for (uint32_t i = 0; i < count; i++)
        for (size_t k = 0; k < stride; k += 4)
            sy_buf_u32(out, k == 0 ? i : (uint32_t)sy_rng_below(r, 1024));
}

static void instance_matrix(sy_buf *out, sy_rng *r)
{
    float d[3];
    unit_dir(r, d);
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    m[12] = (float)((int)sy_rng_below(r, 2048) - 1024) * 0.5f;
    m[13] = (float)((int)sy_rng_below(r, 2048) - 1024) * 0.5f;
    m[14] = (float)((int)sy_rng_below(r, 512)) * 0.5f;
    m[0] = d[0], m[1] = d[1], m[2] = 0; /* yaw only: first row = a direction in the plane */
    float l = sqrtf(d[0] * d[0] + d[1] * d[1]);
    if (l > 0)
        m[0] = d[0] / l, m[1] = d[1] / l, m[4] = -m[1], m[5] = m[0];
    for (int k = 0; k < 16; k++)
        sy_buf_f32(out, m[k]);
}

int sy_gameplay_write(const sy_ctx *c, sy_buf *out)
{
    size_t base = out->len;
    sy_rng r = sy_rng_make(c->seed, c->level, 0x6A3E);
    sy_buf_zero(out, GP_TABLE_BYTES);
    /* 0x00 level settings: background RGB, fog, death height, ship position. */
    begin_block(out, 0x00, base);
    sy_buf_u32(out, 0x00203040u);
    for (int k = 0; k < 15; k++)
        sy_buf_f32(out, (float)(k * 16));
    /* 0x04 directional lights {count, pad x3}, count x {colour_a, direction_a, colour_b,
     * direction_b} (Vec4f each; directions unit length, w = 0). */
    uint32_t nlights = 4 + sy_rng_below(&r, 12);
    begin_block(out, GP_DIR_LIGHTS, base);
    sy_buf_u32(out, nlights);
    sy_buf_zero(out, 12);
    for (uint32_t i = 0; i < nlights; i++)
        for (int half = 0; half < 2; half++) {
            float d[3];
            unit_dir(&r, d);
            sy_buf_f32(out, (float)(64 + (int)sy_rng_below(&r, 64)) / 128.0f);
            sy_buf_f32(out, (float)(64 + (int)sy_rng_below(&r, 64)) / 128.0f);
            sy_buf_f32(out, (float)(64 + (int)sy_rng_below(&r, 64)) / 128.0f);
            sy_buf_f32(out, half ? 0.5f : 1.0f); /* w: the blend weight lane */
            sy_buf_f32(out, d[0]), sy_buf_f32(out, d[1]), sy_buf_f32(out, d[2]);
            sy_buf_f32(out, 0.0f);
        }
    counted_block(out, 0x08, base, 2, 0x20, &r); /* cameras */
    counted_block(out, 0x0C, base, 3, 0x30, &r); /* sound instances */
    for (size_t lang = 0; lang < 8; lang++) {    /* help text: {count, size}, {id, offset}, text */
        begin_block(out, 0x10 + 4 * lang, base);
        static const char msg[] = "PRESS START";
        sy_buf_u32(out, 1);
        sy_buf_u32(out, (uint32_t)(16 + sizeof msg));
        sy_buf_u32(out, (uint32_t)lang);
        sy_buf_u32(out, 16);
        sy_buf_put(out, msg, sizeof msg);
    }
    /* 0x30 tie classes, 0x34 tie instances (0x60: s32 o_class, s32 occlusion_index,
     * 2 x pad, 4x4 f32 matrix at 0x10, s32 directional_lights at 0x50, uid, 2 x pad). */
    uint32_t ntc = c->plan->tie_classes, nti = tie_instances(c);
    counted_block(out, 0x30, base, ntc, 4, &r);
    begin_block(out, 0x34, base);
    sy_buf_u32(out, nti);
    sy_buf_zero(out, 12);
    for (uint32_t i = 0; i < nti; i++) {
        sy_buf_u32(out, i % (ntc ? ntc : 1));
        sy_buf_u32(out, i);
        sy_buf_zero(out, 8);
        instance_matrix(out, &r);
        sy_buf_u32(out, sy_rng_below(&r, nlights)); /* 0x50 directional_lights */
        sy_buf_u32(out, i);
        sy_buf_zero(out, 8);
    }
    counted_block(out, 0x38, base, 0, 0, &r); /* tie groups */
    /* 0x3C shrub classes, 0x40 shrub instances (0x70; dir_lights at 0x60). */
    uint32_t nsc = c->plan->shrub_classes, nsi = shrub_instances(c);
    counted_block(out, 0x3C, base, nsc, 4, &r);
    begin_block(out, 0x40, base);
    sy_buf_u32(out, nsi);
    sy_buf_zero(out, 12);
    for (uint32_t i = 0; i < nsi; i++) {
        sy_buf_u32(out, i % (nsc ? nsc : 1));
        sy_buf_f32(out, 64.0f);
        sy_buf_zero(out, 8);
        instance_matrix(out, &r);
        sy_buf_u32(out, 0x80808080u);
        sy_buf_zero(out, 12);
        sy_buf_u32(out, sy_rng_below(&r, nlights)); /* 0x60 dir_lights */
        sy_buf_zero(out, 12);
    }
    counted_block(out, 0x44, base, 0, 0, &r); /* shrub groups */
    /* 0x48 moby classes, 0x4C moby instances (0x70: uid, o_class, light at 0x08, position,
     * rotation, pvar index). */
    uint32_t nmc = c->plan->moby_classes, nmi = moby_instances(c);
    counted_block(out, 0x48, base, nmc, 4, &r);
    begin_block(out, 0x4C, base);
    sy_buf_u32(out, nmi);
    sy_buf_zero(out, 12);
    for (uint32_t i = 0; i < nmi; i++) {
        sy_buf_u32(out, 1000 + i); /* uid */
        sy_buf_u32(out, i % (nmc ? nmc : 1));
        sy_buf_u32(out, sy_rng_below(&r, nlights)); /* light */
        sy_buf_u32(out, 0xFFFFFFFFu);               /* pvar index: none */
        for (int k = 0; k < 24; k++)
            sy_buf_f32(out, (float)((int)sy_rng_below(&r, 4096) - 2048) / 4.0f);
    }
    static const size_t empty[] = {0x50, 0x54, 0x58, 0x5C, 0x60, 0x64,
                                   0x78, 0x7C, 0x84, 0x88, 0x8C, 0x98};
    for (size_t k = 0; k < sizeof empty / sizeof empty[0]; k++)
        counted_block(out, empty[k], base, 0, 0, &r); /* present, empty, with a real header */
    counted_block(out, 0x68, base, 4, 0x80, &r);      /* cuboids */
    counted_block(out, 0x6C, base, 4, 0x80, &r);      /* spheres */
    counted_block(out, 0x70, base, 2, 0x80, &r);      /* cylinders */
    counted_block(out, 0x74, base, 1, 0x80, &r);      /* pills */
    /* 0x80 point lights: {count, pad x3}, the 0x800-byte slab grid, no lights (runtime only). */
    begin_block(out, 0x80, base);
    sy_buf_zero(out, 16 + 0x800);
    begin_block(out, GP_OCCLUSION, base);
    if (sy_occlusion_mappings_write(c, out) != 0)
        return -1;
    /* 0x94 tie ambient RGBAs: per tie instance {s16 instance, s16 size} + 16-bit colours; the
     * bulk of the file (it is what makes gameplay ~650 KB compressed on level 0). */
    begin_block(out, 0x94, base);
    size_t target = (size_t)600000 * c->ext->size_pct / 100;
    if (c->scale == SY_SCALE_SMALL)
        target /= 20;
    size_t per = nti ? target / nti / 2 * 2 : 0;
    if (per > 0x7FF0)
        per = 0x7FF0;
    for (uint32_t i = 0; i < nti; i++) {
        sy_buf_u16(out, (uint16_t)i);
        sy_buf_u16(out, (uint16_t)per);
        uint32_t col = sy_rng_below(&r, 0x8000);
        for (size_t k = 0; k < per / 2; k++) {
            col ^= 1u << sy_rng_below(&r, 15); /* a wandering 5:5:5 colour */
            sy_buf_u16(out, (uint16_t)(col | 0x8000u));
        }
    }
    sy_buf_align(out, 0x10);
    return out->failed ? -1 : 0;
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
