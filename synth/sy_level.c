/* SPDX-License-Identifier: MIT */
/* One LEVEL<n>.WAD: the 0x60-byte container header and its sector-aligned extents (sound bank,
 * data, gameplay, occlusion, chunks, chunk banks), the data extent's 0x58-byte header and items
 * (docs/formats/level-container.md, data-extent.md). */
#include <string.h>

#include "sy_internal.h"
#include "sy_lz.h"
#include "sy_tfrag.h"

#define SY_SECTOR             0x800u
#define SY_LEVEL_HEADER_BYTES 0x60u
#define SY_DATA_HEADER_BYTES  0x58u
#define SY_DATA_ITEM_ALIGN    0x40u
#define SY_CHUNK_SLOTS        3

const char *sy_generator_version(void)
{
    return "synth-12";
}

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

/* The data extent: header of ByteRanges {offset, size} relative to the extent, then the items,
 * each 0x40-aligned. Missing items are {-1, 0}. */
static int build_data_extent(const sy_ctx *c, sy_core_out *core, sy_buf *ext)
{
    sy_buf overlay, lz, hud, trans;
    sy_buf_init(&overlay), sy_buf_init(&lz), sy_buf_init(&hud), sy_buf_init(&trans);
    int rc = -1;
    if (sy_overlay_write(c, &overlay) != 0)
        goto done;
    if (sy_lz_compress(core->core_data.data, core->core_data.len, "coredata", &lz) != 0)
        goto done;
    /* assets_compressed_size (core header 0x88): the stream including its 16-byte header. */
    sy_buf_set_u32(&core->core_index, 0x88, (uint32_t)lz.len);
    size_t ranges[9][2]; /* overlay, core_index, gs_ram, hud_header, hud_banks[5] */
    size_t core_at = 0, trans_at = 0;
    sy_buf_zero(ext, SY_DATA_HEADER_BYTES);
    const sy_buf *items[4] = {&overlay, &core->core_index, &core->gs_ram, NULL};
    for (int k = 0; k < 3; k++) {
        sy_buf_align(ext, SY_DATA_ITEM_ALIGN);
        ranges[k][0] = ext->len, ranges[k][1] = items[k]->len;
        sy_buf_put(ext, items[k]->data, items[k]->len);
    }
    /* hud_header: 0x40 raw bytes (bank count, sizes); two small WAD-LZ hud banks and a blank
     * one (64 KiB of zeros: it compresses to about 70:1, near the format's 72:1 ceiling, so a
     * decoder whose output bound is a guessed ratio fails on it, docs/formats/wad-lz.md). */
    sy_buf_align(ext, SY_DATA_ITEM_ALIGN);
    ranges[3][0] = ext->len, ranges[3][1] = 0x40;
    sy_buf_u32(ext, 3);
    sy_buf_zero(ext, 0x3C);
    for (int k = 0; k < 5; k++) {
        if (k >= 3) {
            ranges[4 + k][0] = (size_t)-1, ranges[4 + k][1] = 0;
            continue;
        }
        sy_buf_init(&hud);
        if (k == 2) {
            sy_buf_zero(&hud, 0x10000);
        } else {
            uint8_t img[32 * 32];
            uint32_t pal[256];
            sy_texture_draw(SY_KIND_SIGN, 32, (uint32_t)k, img, pal);
            sy_buf_put(&hud, pal, sizeof pal);
            sy_buf_put(&hud, img, sizeof img);
        }
        sy_buf trash;
        sy_buf_init(&trash);
        int e = sy_lz_compress(hud.data, hud.len, "hud_bank", &trash);
        sy_buf_align(ext, SY_DATA_ITEM_ALIGN);
        ranges[4 + k][0] = ext->len, ranges[4 + k][1] = trash.len;
        sy_buf_put(ext, trash.data, trash.len);
        sy_buf_free(&trash), sy_buf_free(&hud);
        if (e != 0)
            goto done;
    }
    sy_buf_align(ext, SY_DATA_ITEM_ALIGN);
    core_at = ext->len;
    sy_buf_put(ext, lz.data, lz.len);
    /* transition textures: WAD-LZ of one PIF8-style image {"PIF2", size, w, h, ...}. */
    {
        uint8_t img[64 * 64];
        uint32_t pal[256];
        sy_texture_draw(SY_KIND_PANEL, 64, 0x7A, img, pal);
        sy_buf_put(&trans, "PIF2", 4);
        sy_buf_u32(&trans, (uint32_t)(16 + sizeof pal + sizeof img));
        sy_buf_u32(&trans, 64), sy_buf_u32(&trans, 64);
        sy_buf_put(&trans, pal, sizeof pal);
        sy_buf_put(&trans, img, sizeof img);
        sy_buf tz;
        sy_buf_init(&tz);
        int e = sy_lz_compress(trans.data, trans.len, "transition", &tz);
        sy_buf_align(ext, SY_DATA_ITEM_ALIGN);
        trans_at = ext->len;
        sy_buf_put(ext, tz.data, tz.len);
        size_t tl = tz.len;
        sy_buf_free(&tz);
        if (e != 0 || ext->failed)
            goto done;
        uint8_t *h = ext->data;
        for (int k = 0; k < 9; k++) {
            put_u32(h + 8 * k, (uint32_t)ranges[k][0]);
            put_u32(h + 8 * k + 4, (uint32_t)ranges[k][1]);
        }
        put_u32(h + 0x48, (uint32_t)core_at), put_u32(h + 0x4C, (uint32_t)lz.len);
        put_u32(h + 0x50, (uint32_t)trans_at), put_u32(h + 0x54, (uint32_t)tl);
    }
    rc = ext->failed ? -1 : 0;
done:
    sy_buf_free(&overlay), sy_buf_free(&lz), sy_buf_free(&trans);
    return rc;
}

/* A chunk extent: ChunkHeader {s32 tfrags_ofs, s32 collision_ofs} (bytes from the extent, 0 =
 * absent) and a WAD-LZ collision blob; this corpus carries no chunk tfrags. */
static int build_chunk(const sy_ctx *c, int slot, sy_buf *out)
{
    sy_buf raw;
    sy_buf_init(&raw);
    sy_rng r = sy_rng_make(c->seed, c->level, 0xC400u + (uint32_t)slot);
    sy_terrain terrain;
    sy_level_terrain(c, &terrain);
    int rc = sy_collision_write(&raw, c->scale != SY_SCALE_RETAIL ? 0x2000 : 0x20000, &terrain,
                                slot, &r);
    sy_buf_u32(out, 0);
    sy_buf_u32(out, 0x10);
    sy_buf_zero(out, 8);
    if (rc == 0)
        rc = sy_lz_compress(raw.data, raw.len, "chunkcoll", out);
    sy_buf_free(&raw);
    return rc == 0 && !out->failed ? 0 : -1;
}

int sy_level_build(const sy_options *opt, int index, sy_buf *out)
{
    sy_options def = {SY_SCALE_RETAIL, 1};
    if (!opt)
        opt = &def;
    sy_ctx c = {sy_plan(opt->scale, index), sy_plan_ext_get(opt->scale, index), opt->scale, index,
                opt->seed};
    if (!c.plan || !c.ext) {
        out->failed = 1;
        return -1;
    }
    sy_core_out core;
    sy_buf data, gp_raw, gp, occ, snd, chunk[SY_CHUNK_SLOTS], cbank[SY_CHUNK_SLOTS];
    sy_buf_init(&data), sy_buf_init(&gp_raw), sy_buf_init(&gp), sy_buf_init(&occ);
    sy_buf_init(&snd);
    for (int k = 0; k < SY_CHUNK_SLOTS; k++)
        sy_buf_init(&chunk[k]), sy_buf_init(&cbank[k]);
    int rc = -1;
    if (sy_core_build(&c, &core) != 0)
        goto fail_nocore;
    if (build_data_extent(&c, &core, &data) != 0)
        goto fail;
    if (sy_gameplay_write(&c, &core.core_index, &gp_raw) != 0 ||
        sy_lz_compress(gp_raw.data, gp_raw.len, "gameplay", &gp) != 0)
        goto fail;
    if (sy_occlusion_mappings_write(&c, &occ) != 0)
        goto fail;
    if (sy_sound_bank_write(&snd, (size_t)c.plan->sound_bank_bytes, c.seed, index) != 0)
        goto fail;
    if (c.plan->has_chunks)
        for (int k = 1; k < SY_CHUNK_SLOTS; k++) /* slot 0 lives in the core */
            if (build_chunk(&c, k, &chunk[k]) != 0 ||
                sy_sound_bank_write(&cbank[k], c.scale != SY_SCALE_RETAIL ? 0x1000 : 0x10000,
                                    c.seed, index * 8 + k) != 0)
                goto fail;
    /* Container: header padded to a sector, then the extents in Wrench's packing order. */
    {
        size_t base = out->len;
        sy_buf_zero(out, SY_SECTOR);
        const sy_buf *ext[4 + 2 * SY_CHUNK_SLOTS] = {&snd, &data, &gp, &occ};
        size_t slot[4 + 2 * SY_CHUNK_SLOTS] = {0x18, 0x10, 0x20, 0x28};
        for (int k = 0; k < SY_CHUNK_SLOTS; k++) {
            ext[4 + k] = &chunk[k], slot[4 + k] = 0x30 + 8u * (size_t)k;
            ext[4 + SY_CHUNK_SLOTS + k] = &cbank[k],
                                     slot[4 + SY_CHUNK_SLOTS + k] = 0x48 + 8u * (size_t)k;
        }
        uint8_t hdr[SY_LEVEL_HEADER_BYTES];
        memset(hdr, 0, sizeof hdr);
        put_u32(hdr + 0x00, SY_LEVEL_HEADER_BYTES);              /* header_size */
        put_u32(hdr + 0x04, 0x3E9u + 0x4000u * (uint32_t)index); /* sector: synthetic LBA */
        put_u32(hdr + 0x08, (uint32_t)c.plan->level_id);         /* id */
        put_u32(hdr + 0x0C, (uint32_t)(index % 5));              /* reverb */
        for (int k = 0; k < 4 + 2 * SY_CHUNK_SLOTS; k++) {
            if (ext[k]->len == 0)
                continue; /* empty range: {0, 0} */
            size_t at = out->len - base;
            put_u32(hdr + slot[k], (uint32_t)(at / SY_SECTOR));
            put_u32(hdr + slot[k] + 4, (uint32_t)((ext[k]->len + SY_SECTOR - 1) / SY_SECTOR));
            sy_buf_put(out, ext[k]->data, ext[k]->len);
            if ((out->len - base) % SY_SECTOR) /* sectors count from the file start, not out's */
                sy_buf_zero(out, SY_SECTOR - (out->len - base) % SY_SECTOR);
        }
        if (out->failed)
            goto fail;
        memcpy(out->data + base, hdr, sizeof hdr);
    }
    rc = 0;
fail:
    sy_core_free(&core);
fail_nocore:
    sy_buf_free(&data), sy_buf_free(&gp_raw), sy_buf_free(&gp), sy_buf_free(&occ);
    sy_buf_free(&snd);
    for (int k = 0; k < SY_CHUNK_SLOTS; k++)
        sy_buf_free(&chunk[k]), sy_buf_free(&cbank[k]);
    if (rc != 0)
        out->failed = 1;
    return rc;
}
