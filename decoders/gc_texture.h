/* SPDX-License-Identifier: MIT */
/* Tfrag textures (formats.md §4.4 and §6, level-assets.md "Texels"): 8-bit
 * palette indices in decompressed core_data, 256-entry CLUTs in GS RAM in
 * CSM1 order, alpha 0..0x80. The texture decoder (dec_texture.c) publishes
 * the texture.tfrag table; this header is the pixel API for the rasteriser
 * and `gcverify dump-texture`. */
#ifndef GC_TEXTURE_H
#define GC_TEXTURE_H

#include <stdint.h>

#include "gc_level.h"
#include "gc_status.h"

/* The four mip levels the notes place: 0 and 1 in the core_data texture
 * block (1 right after 0), 2 and 3 in GS RAM at mipmap*0x100 and pad*0x100. */
#define GC_TEXTURE_MIP_LEVELS 4
/* Largest side the GS can address (TW/TH are 2^0..2^10). */
#define GC_TEXTURE_MAX_SIDE 1024

/* CSM1 stores logical CLUT entry i at swap_bits_3_and_4(i); its own inverse. */
static inline uint32_t gc_csm1_swap(uint32_t i)
{
    return (i & ~0x18u) | ((i & 0x08u) << 1) | ((i & 0x10u) >> 1);
}

/* Decode tfrag texture `index` of the level's tfrag texture table at mip level
 * `mip` (0..3) into malloc'd RGBA8 rows, top to bottom, *width x *height
 * pixels (the caller frees *rgba). ps2_alpha = 1 keeps alpha in the PS2 range
 * 0..0x80 (values above clamp to 0x80); 0 expands it to 0..255 (0x80 -> 255,
 * a -> 2a below) for PNG. Needs the data and core decoders to have run
 * (lv->data_ok, lv->core_ok); does not need the texture decoder.
 * Errors: GC_E_UNSUPPORTED (inputs not decoded, or an absent mip level),
 * GC_E_RANGE (index, mip or size out of range), GC_E_TRUNCATED (indices or
 * CLUT outside their buffers), GC_E_NOMEM. */
gc_status gc_texture_rgba(const gc_level *lv, uint32_t index, int mip, int ps2_alpha,
                          uint8_t **rgba, uint32_t *width, uint32_t *height, gc_diag *diag);

/* The four tables of 16-byte TextureEntry records (core-index.md), in GS RAM table order. */
typedef enum gc_texture_kind {
    GC_TEXTURE_TFRAG = 0, /* core header +0x30 */
    GC_TEXTURE_MOBY = 1,  /* +0x38: moby class slots index it */
    GC_TEXTURE_TIE = 2,   /* +0x40: tie class slots */
    GC_TEXTURE_SHRUB = 3  /* +0x48: shrub class slots */
} gc_texture_kind;

/* gc_texture_rgba for entry `index` of the kind's table: the same pixel
 * layout (indices at textures_base + data_offset, CSM1 CLUT at palette *
 * 0x100 in gs_ram), the same errors, GC_E_RANGE for an unknown kind. */
gc_status gc_texture_rgba_kind(const gc_level *lv, gc_texture_kind kind, uint32_t index, int mip,
                               int ps2_alpha, uint8_t **rgba, uint32_t *width, uint32_t *height,
                               gc_diag *diag);

/* The same texture as 8-bit indices and their colours, without expanding
 * them: *texels points at the level's *width x *height indices where they lie
 * in the level's buffers (core_data or gs_ram; valid while the level is and
 * its buffers are not released), rows top to bottom, and clut (may be NULL:
 * only checked) receives the 256 colours, each the four bytes R, G, B, A in
 * memory order, so texel k of gc_texture_rgba_kind's rows is the four bytes
 * of clut[(*texels)[k]] (the same alpha rule, the same checks, statuses and
 * diagnostics; it is the path gc_texture_rgba_kind expands). The rasteriser
 * samples it in place: a decoded RGBA copy is four times the bytes, all of
 * them written and page-faulted in before the first pixel is drawn. */
#define GC_TEXTURE_CLUT_ENTRIES 256
gc_status gc_texture_indexed_kind(const gc_level *lv, gc_texture_kind kind, uint32_t index, int mip,
                                  int ps2_alpha, const uint8_t **texels,
                                  uint32_t clut[GC_TEXTURE_CLUT_ENTRIES], uint32_t *width,
                                  uint32_t *height, gc_diag *diag);

/* The lowest core_data offset that gc_texture_rgba / gc_texture_rgba_kind /
 * gc_texture_indexed_kind can read texels from, over every entry of the four tables (core_data_size
 * when none can be read): the bytes below it are never read by them. The
 * sweep gives those pages back before rendering (issue 18). */
size_t gc_texture_pixels_lowest(const gc_level *lv);
/* One past the highest core_data byte they can read texels from (0 when
 * none can be read): the bytes from it on are never read by them either.
 * On the retail-shaped corpus the texels are 3 MB in the middle of a 17-29
 * MB core_data, so the sweep gives back the rest too (issue 18). */
size_t gc_texture_pixels_end(const gc_level *lv);

/* Rows of texture.tfrag, one per tfrag texture table entry. */
typedef struct gc_texture_row {
    uint64_t file_ofs;        /* the 16-byte entry in core_index (absolute file offset) */
    uint32_t index;           /* entry index in the tfrag texture table */
    int32_t data_offset;      /* +0x0: indices at core_data[textures_base + data_offset] */
    int16_t width;            /* +0x4 */
    int16_t height;           /* +0x6 */
    int16_t type;             /* +0x8 */
    int16_t palette;          /* +0xa: CLUT at gs_ram[palette * 0x100] */
    int16_t mipmap;           /* +0xc: mip level 2 at gs_ram[mipmap * 0x100] */
    int16_t pad;              /* +0xe: mip level 3 at gs_ram[pad * 0x100] */
    uint64_t pixel_ofs;       /* textures_base + data_offset (bytes in core_data) */
    uint64_t clut_ofs;        /* palette * 0x100 (bytes in gs_ram) */
    uint8_t pixels_ok;        /* level-0 indices and the CLUT lie inside their buffers */
    uint8_t mip_levels;       /* consecutive mip levels from 0 that lie inside their buffers */
    uint8_t fully_opaque;     /* every texel's alpha is opaque (0x80, or above: clamps) */
    double frac_transparent;  /* fraction of texels with alpha 0 */
    uint32_t distinct_colors; /* distinct RGBA values among the texels */
    double tv_csm1;           /* mean |dR|+|dG|+|dB| of adjacent texels, CSM1-remapped CLUT */
    double tv_raw;            /* the same with the CSM1 swap undone: the stored order */
    double tv_ratio;          /* tv_csm1 / tv_raw */
    uint8_t clut_alpha_max;   /* largest stored alpha of the 256 CLUT entries (PS2: <= 0x80) */
    uint8_t palette_opaque;   /* every CLUT entry the texels use stores alpha exactly 0x80 */
} gc_texture_row;

#endif
