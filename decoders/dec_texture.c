/* SPDX-License-Identifier: MIT */
/* The texture decoder: the tfrag texture table of core_index (16-byte
 * TextureEntry, formats.md §4.4) and, per texture, its 8-bit indices in
 * decompressed core_data and its 256-entry CLUT in GS RAM (§6,
 * level-assets.md "Texels"). Publishes texture.tfrag with the figures an
 * invariant needs to tell a right decode from a merely well-formed one:
 * opacity, distinct colours, and the total variation of the image with the
 * CSM1 remap against without it (a right remap is smoother on palettes
 * ordered for smoothness). gc_texture_rgba() is the pixel API. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "gc_level.h"
#include "gc_reader.h"
#include "gc_texture.h"

#define TEX_ENTRY_BYTES      16u
#define TEX_GS_ENTRY_BYTES   16u /* GsRamEntry {s32 psm, s16 w, s16 h, s32 address, s32 offset} */
#define TEX_GS_UNIT          0x100u /* palette/mipmap/pad are GS RAM positions in 0x100-byte units */
#define TEX_CLUT_ENTRIES     256u   /* PSMT8: 256 colours */
#define TEX_CLUT_BYTES       (TEX_CLUT_ENTRIES * 4u)
#define TEX_ALPHA_OPAQUE     0x80u /* PS2: 0x80 = 1.0; above clamps */
#define TEX_ALPHA_OPAQUE_255 0xFFu /* what the alpha_255 fault takes for 1.0 */

/* One TextureEntry as stored. */
typedef struct tex_entry {
    int32_t data_offset; /* +0x0 */
    int16_t width;       /* +0x4 */
    int16_t height;      /* +0x6 */
    int16_t type;        /* +0x8 */
    int16_t palette;     /* +0xa */
    int16_t mipmap;      /* +0xc */
    int16_t pad;         /* +0xe */
} tex_entry;

static const gc_column texture_cols[] = {
    GC_COL(gc_texture_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the 16-byte TextureEntry in core_index"),
    GC_COL(gc_texture_row, index, GC_T_U32, 0, "", "entry index in the tfrag texture table"),
    GC_COL(gc_texture_row, data_offset, GC_T_S32, GC_CF_HEX, "bytes in core_data",
           "entry +0x0: indices offset from textures_base"),
    GC_COL(gc_texture_row, width, GC_T_S16, 0, "texels", "entry +0x4"),
    GC_COL(gc_texture_row, height, GC_T_S16, 0, "texels", "entry +0x6"),
    GC_COL(gc_texture_row, type, GC_T_S16, 0, "", "entry +0x8 (Wrench writes 3; 0 = stashed)"),
    GC_COL(gc_texture_row, palette, GC_T_S16, 0, "0x100 bytes in gs_ram",
           "entry +0xa: CLUT position"),
    GC_COL(gc_texture_row, mipmap, GC_T_S16, 0, "0x100 bytes in gs_ram",
           "entry +0xc: mip level 2 position (-1 = none)"),
    GC_COL(gc_texture_row, pad, GC_T_S16, 0, "0x100 bytes in gs_ram",
           "entry +0xe: mip level 3 position (-1 = none)"),
    GC_COL(gc_texture_row, pixel_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "textures_base + data_offset: first index byte"),
    GC_COL(gc_texture_row, clut_ofs, GC_T_U64, GC_CF_HEX, "bytes in gs_ram",
           "palette * 0x100: first CLUT byte"),
    GC_COL(gc_texture_row, pixels_ok, GC_T_BOOL, 0, "",
           "width*height indices inside core_data and the 1 KiB CLUT inside gs_ram"),
    GC_COL(gc_texture_row, mip_levels, GC_T_U8, 0, "count",
           "mip levels 0.. that lie inside their buffers (0..4)"),
    GC_COL(gc_texture_row, fully_opaque, GC_T_BOOL, 0, "",
           "every texel has alpha 0x80 (opaque; 0 when pixels_ok is false)"),
    GC_COL(gc_texture_row, frac_transparent, GC_T_F64, 0, "fraction",
           "texels with alpha 0 (null when pixels_ok is false)"),
    GC_COL(gc_texture_row, distinct_colors, GC_T_U32, GC_CF_NULL_IF_MAX, "count",
           "distinct RGBA values among the texels"),
    GC_COL(gc_texture_row, tv_csm1, GC_T_F64, 0, "",
           "mean |dR|+|dG|+|dB| of horizontally and vertically adjacent texels, as decoded"),
    GC_COL(gc_texture_row, tv_raw, GC_T_F64, 0, "",
           "the same with the CSM1 swap undone (the CLUT in stored order)"),
    GC_COL(gc_texture_row, tv_ratio, GC_T_F64, 0, "", "tv_csm1 / tv_raw (null for a flat image)"),
    GC_COL(gc_texture_row, clut_alpha_max, GC_T_U8, GC_CF_HEX, "",
           "largest alpha byte stored in the 256 CLUT entries (PS2 range 0..0x80; 0 when "
           "pixels_ok is false)"),
    GC_COL(gc_texture_row, palette_opaque, GC_T_BOOL, 0, "",
           "every CLUT entry the texels use stores alpha exactly 0x80 (fully_opaque also takes "
           "alpha above 0x80, which the GS clamps)"),
};

/* texture.gs_ram: the GS RAM table of core_index (core header +0x00), one row
 * per GsRamEntry, so invariants can hold GS addresses from elsewhere (the
 * ad-gifs' MIPTBP1) against it. */
typedef struct gs_ram_row {
    uint64_t file_ofs;
    uint32_t index;
    uint32_t texture; /* index / 3: the texture the entry belongs to (tfrag textures first) */
    uint8_t part;     /* index % 3: 0 palette, 1 mip level 2, 2 mip level 3 */
    int32_t psm;
    int16_t width, height;
    int32_t address;
    int32_t offset;
} gs_ram_row;

static const gc_column gs_ram_cols[] = {
    GC_COL(gs_ram_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the 16-byte GsRamEntry in core_index"),
    GC_COL(gs_ram_row, index, GC_T_U32, 0, "", "entry index in the GS RAM table"),
    GC_COL(gs_ram_row, texture, GC_T_U32, 0, "",
           "index / 3: three entries per texture, tfrag textures first (core-index.md)"),
    GC_COL(gs_ram_row, part, GC_T_U8, 0, "", "index % 3: 0 palette, 1 mip level 2, 2 mip level 3"),
    GC_COL(gs_ram_row, psm, GC_T_S32, GC_CF_HEX, "", "+0x0: pixel format (0 PSMCT32, 0x13 PSMT8)"),
    GC_COL(gs_ram_row, width, GC_T_S16, 0, "texels", "+0x4"),
    GC_COL(gs_ram_row, height, GC_T_S16, 0, "texels", "+0x6"),
    GC_COL(gs_ram_row, address, GC_T_S32, GC_CF_HEX, "bytes in gs_ram", "+0x8: where the item is"),
    GC_COL(gs_ram_row, offset, GC_T_S32, GC_CF_HEX, "bytes in gs_ram",
           "+0xc: equal to address when nothing is stashed"),
};

static const gc_table_desc gc_table_texture_gs_ram = {
    .name = "texture.gs_ram",
    .doc = "One row per GsRamEntry of the GS RAM table: pixel format, size and GS RAM address.",
    .row_size = sizeof(gs_ram_row),
    .columns = gs_ram_cols,
    .column_count = GC_COUNTOF(gs_ram_cols),
};

static const gc_table_desc gc_table_texture_tfrag = {
    .name = "texture.tfrag",
    .doc = "One row per tfrag texture: entry fields, buffer checks, opacity, colours, smoothness.",
    .row_size = sizeof(gc_texture_row),
    .columns = texture_cols,
    .column_count = GC_COUNTOF(texture_cols),
};

/* Logical CLUT index -> stored entry, as this decoder believes the PS2 lays
 * it out. The no_csm1 fault forgets the remap. */
static inline uint32_t tex_remap(const gc_level *lv, uint32_t i)
{
    if (GC_FAULT(lv, no_csm1))
        return i;
    return gc_csm1_swap(i);
}

/* Stored alpha -> PS2 alpha 0..0x80 (0x80 = 1.0, above clamps). The
 * alpha_255 fault reads the byte as 0..255 with 0xFF = 1.0 and scales that
 * into the PS2 range, so a retail 0x80 becomes half transparent. */
static inline uint32_t tex_ps2_alpha(const gc_level *lv, uint32_t a)
{
    if (GC_FAULT(lv, alpha_255))
        return a * TEX_ALPHA_OPAQUE / TEX_ALPHA_OPAQUE_255;
    return a > TEX_ALPHA_OPAQUE ? TEX_ALPHA_OPAQUE : a;
}

/* Read entry `index`; GC_E_RANGE/GC_E_UNSUPPORTED with the diagnostic set. */
static const char *const tex_kind_names[] = {"tfrag", "moby", "tie", "shrub"};

/* Read entry `index` of the kind's table (core header +0x30 tfrag, +0x38 moby, +0x40 tie,
 * +0x48 shrub: the same 16-byte TextureEntry in each); GC_E_RANGE/GC_E_UNSUPPORTED with the
 * diagnostic set. */
static gc_status tex_table_kind(const gc_level *lv, gc_texture_kind kind, size_t *count,
                                gc_reader *tab, gc_diag *diag)
{
    if (!lv->core_ok)
        return GC_NEEDS(diag, "the core header");
    if (!lv->data_ok || !lv->core_data)
        return GC_NEEDS(diag, "decompressed core_data");
    const gc_span *ci = &lv->core_index;
    gc_array_range t = kind == GC_TEXTURE_MOBY    ? lv->core.moby_textures   /* +0x38 */
                       : kind == GC_TEXTURE_TIE   ? lv->core.tie_textures    /* +0x40 */
                       : kind == GC_TEXTURE_SHRUB ? lv->core.shrub_textures  /* +0x48 */
                                                  : lv->core.tfrag_textures; /* +0x30 */
    size_t len = 0;
    if (t.count < 0 || t.offset < 0 || !gc_size_mul((size_t)t.count, TEX_ENTRY_BYTES, &len) ||
        !ci->data || !gc_range_ok((size_t)t.offset, len, ci->size))
        return gc_diag_set(diag, GC_E_RANGE, ci->file_ofs + (t.offset > 0 ? (uint64_t)t.offset : 0),
                           "%s texture table {count %d, offset 0x%x} runs past core_index "
                           "(%zu bytes)",
                           tex_kind_names[kind], (int)t.count, (unsigned)t.offset, ci->size);
    *count = (size_t)t.count;
    *tab = gc_reader_make(ci->data + t.offset, len, ci->file_ofs + (uint64_t)t.offset);
    return GC_OK;
}

static gc_status tex_table(const gc_level *lv, size_t *count, gc_reader *tab, gc_diag *diag)
{
    return tex_table_kind(lv, GC_TEXTURE_TFRAG, count, tab, diag);
}

static tex_entry tex_read_entry(gc_reader *tab)
{
    tex_entry e;
    e.data_offset = gc_s32le(tab); /* +0x0 */
    e.width = gc_s16le(tab);       /* +0x4 */
    e.height = gc_s16le(tab);      /* +0x6 */
    e.type = gc_s16le(tab);        /* +0x8 */
    e.palette = gc_s16le(tab);     /* +0xa */
    e.mipmap = gc_s16le(tab);      /* +0xc */
    e.pad = gc_s16le(tab);         /* +0xe */
    return e;
}

static bool tex_size_ok(const tex_entry *e)
{
    return e->width > 0 && e->height > 0 && e->width <= GC_TEXTURE_MAX_SIDE &&
           e->height <= GC_TEXTURE_MAX_SIDE;
}

/* Where mip level `mip` of e lives: *p and its size in texels, or false if
 * the level is absent or outside its buffer. *where names the buffer for
 * errors and *ofs is the offset inside it. */
static bool tex_level(const gc_level *lv, const tex_entry *e, int mip, const uint8_t **p,
                      uint32_t *w, uint32_t *h, uint64_t *ofs, bool *in_gs)
{
    if (!tex_size_ok(e) || mip < 0 || mip >= GC_TEXTURE_MIP_LEVELS)
        return false;
    uint32_t lw = (uint32_t)e->width >> mip, lh = (uint32_t)e->height >> mip;
    *w = lw;
    *h = lh;
    *in_gs = mip >= 2;
    if (lw == 0 || lh == 0)
        return false;
    size_t n = (size_t)lw * lh;
    if (mip < 2) {
        int64_t base = (int64_t)lv->core.textures_base + (int64_t)e->data_offset;
        if (lv->core.textures_base < 0 || base < 0)
            return false;
        uint64_t o = (uint64_t)base;
        if (mip == 1)
            o += (uint64_t)e->width * (uint64_t)e->height; /* level 1 follows level 0 */
        *ofs = o;
        if (o > lv->core_data_size || !gc_range_ok((size_t)o, n, lv->core_data_size))
            return false;
        *p = lv->core_data + o;
        return true;
    }
    int16_t unit = mip == 2 ? e->mipmap : e->pad;
    *ofs = unit >= 0 ? (uint64_t)unit * TEX_GS_UNIT : 0;
    if (unit < 0 || !lv->gs_ram.data || !gc_range_ok((size_t)*ofs, n, lv->gs_ram.size))
        return false;
    *p = lv->gs_ram.data + *ofs;
    return true;
}

/* Stored CLUT entry `k` as R, G, B, A bytes. PSMCT32: four bytes R, G, B, A.
 * The clut_big_endian fault reads the word the other way round (A, B, G,
 * R); clut_psmct16 reads 16-bit entries (5:5:5 colour, one alpha bit). */
static void tex_clut_entry(const gc_level *lv, const uint8_t *c, uint32_t k, uint8_t rgba[4])
{
    if (GC_FAULT(lv, clut_psmct16)) {
        uint32_t v = (uint32_t)c[2 * k] | (uint32_t)c[2 * k + 1] << 8;
        rgba[0] = (uint8_t)((v & 31u) << 3);
        rgba[1] = (uint8_t)(((v >> 5) & 31u) << 3);
        rgba[2] = (uint8_t)(((v >> 10) & 31u) << 3);
        rgba[3] = (v >> 15) ? (uint8_t)TEX_ALPHA_OPAQUE : 0;
        return;
    }
    const uint8_t *p = c + 4u * k;
    if (GC_FAULT(lv, clut_big_endian)) {
        rgba[0] = p[3], rgba[1] = p[2], rgba[2] = p[1], rgba[3] = p[0];
        return;
    }
    rgba[0] = p[0], rgba[1] = p[1], rgba[2] = p[2], rgba[3] = p[3];
}

/* The 256 colours in logical order, RGBA8 with PS2 alpha (0..0x80);
 * raw_alpha (may be NULL) gets each logical entry's alpha byte as stored,
 * *alpha_max (may be NULL) the largest stored alpha of the 256 entries. */
/* Whether the entry's 1 KiB CLUT lies inside gs_ram. */
static bool tex_clut_inside(const gc_level *lv, const tex_entry *e)
{
    return e->palette >= 0 && lv->gs_ram.data &&
           gc_range_ok((size_t)e->palette * TEX_GS_UNIT, TEX_CLUT_BYTES, lv->gs_ram.size);
}

static bool tex_clut(const gc_level *lv, const tex_entry *e, uint32_t lut[TEX_CLUT_ENTRIES],
                     uint32_t lut_other[TEX_CLUT_ENTRIES], uint8_t raw_alpha[TEX_CLUT_ENTRIES],
                     uint8_t *alpha_max)
{
    if (!tex_clut_inside(lv, e))
        return false;
    size_t o = (size_t)e->palette * TEX_GS_UNIT;
    const uint8_t *c = lv->gs_ram.data + o;
    uint8_t amax = 0;
    for (uint32_t i = 0; i < TEX_CLUT_ENTRIES; i++) {
        uint8_t v[4];
        tex_clut_entry(lv, c, tex_remap(lv, i), v);
        uint32_t a = tex_ps2_alpha(lv, v[3]);
        lut[i] = (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | a << 24;
        if (raw_alpha)
            raw_alpha[i] = v[3];
        if (v[3] > amax)
            amax = v[3];
        if (lut_other) {
            /* the decoder's order with one more CSM1 swap: the stored order
             * for a correct decoder */
            uint8_t w[4];
            tex_clut_entry(lv, c, tex_remap(lv, gc_csm1_swap(i)), w);
            lut_other[i] = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16;
        }
    }
    if (alpha_max)
        *alpha_max = amax;
    return true;
}

/* Statistics of level 0: everything is a 256-entry lookup, and colours are
 * counted through a bitmap of the indices used, never a hash of texels. */
static void tex_stats(const gc_level *lv, const uint8_t *px, uint32_t w, uint32_t h,
                      const uint32_t lut[TEX_CLUT_ENTRIES],
                      const uint32_t lut_other[TEX_CLUT_ENTRIES],
                      const uint8_t raw_alpha[TEX_CLUT_ENTRIES], gc_texture_row *row)
{
    /* at most GC_TEXTURE_MAX_SIDE^2 = 2^20 texels: 32-bit counts */
    uint32_t hist[TEX_CLUT_ENTRIES];
    memset(hist, 0, sizeof hist);
    uint64_t tv = 0, tv_other = 0;
#if defined(__SSE2__)
    /* The sums need only the three channels added, so each index holds its
     * two colourings as bytes, one per 8-byte half ({r, g, b, 0 x5} of the
     * CSM1 order, then of the stored order), and one PSADBW per pixel pair
     * gives both halves' sum of |a - b|: integer, the same totals as the
     * lane loop below (issue 10: this loop was 600 M instructions a corpus
     * decode as eight 16-bit lanes widened to 32). */
    __m128i c16[TEX_CLUT_ENTRIES];
    for (uint32_t i = 0; i < TEX_CLUT_ENTRIES; i++) {
        uint8_t b16[16];
        memset(b16, 0, sizeof b16);
        for (int k = 0; k < 3; k++) {
            b16[k] = (uint8_t)(lut[i] >> (8 * k));
            b16[8 + k] = (uint8_t)(lut_other[i] >> (8 * k));
        }
        c16[i] = _mm_loadu_si128((const __m128i *)(const void *)b16);
    }
    /* One pass over the texels: each is looked up once, as the right-hand
     * neighbour of the one before it, and kept for its own pair with the
     * next and the one below; the histogram counts it on the way (two
     * passes and two lookups of every texel were ~26 instructions a texel,
     * 10.8 M texels a retail-corpus decode). Integer sums: the order of the
     * additions does not change them. */
    __m128i acc_h = _mm_setzero_si128(), acc_v = _mm_setzero_si128();
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *r = px + (size_t)y * w;
        uint8_t i0 = r[0];
        __m128i a = c16[i0];
        hist[i0]++;
        if (y + 1 < h) {
            const uint8_t *below = r + w;
            for (uint32_t x = 1; x < w; x++) {
                uint8_t i = r[x];
                __m128i b = c16[i];
                hist[i]++;
                acc_h = _mm_add_epi64(acc_h, _mm_sad_epu8(a, b));
                acc_v = _mm_add_epi64(acc_v, _mm_sad_epu8(a, c16[below[x - 1]]));
                a = b;
            }
            acc_v = _mm_add_epi64(acc_v, _mm_sad_epu8(a, c16[below[w - 1]]));
        } else {
            for (uint32_t x = 1; x < w; x++) {
                uint8_t i = r[x];
                __m128i b = c16[i];
                hist[i]++;
                acc_h = _mm_add_epi64(acc_h, _mm_sad_epu8(a, b));
                a = b;
            }
        }
    }
    uint64_t halves[2];
    _mm_storeu_si128((__m128i *)(void *)halves, _mm_add_epi64(acc_h, acc_v));
    tv = halves[0], tv_other = halves[1];
#else
    size_t n_px = (size_t)w * h;
    for (size_t k = 0; k < n_px; k++)
        hist[px[k]]++;
    /* Both colourings of each index side by side, so one pair of lookups
     * feeds both sums and the 8 lanes can be vectorised. A texture has at
     * most 2 * 1024 * 1024 pairs of at most 255 per lane: int32 is enough. */
    int16_t c6[TEX_CLUT_ENTRIES][8];
    for (uint32_t i = 0; i < TEX_CLUT_ENTRIES; i++) {
        for (int k = 0; k < 3; k++) {
            c6[i][k] = (int16_t)((lut[i] >> (8 * k)) & 0xFF);
            c6[i][3 + k] = (int16_t)((lut_other[i] >> (8 * k)) & 0xFF);
        }
        c6[i][6] = c6[i][7] = 0;
    }
    int32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *r = px + (size_t)y * w;
        for (uint32_t x = 0; x + 1 < w; x++) {
            const int16_t *a = c6[r[x]], *b = c6[r[x + 1]];
            for (int k = 0; k < 8; k++)
                acc[k] += abs(a[k] - b[k]);
        }
        if (y + 1 < h) {
            for (uint32_t x = 0; x < w; x++) {
                const int16_t *a = c6[r[x]], *b = c6[r[x + w]];
                for (int k = 0; k < 8; k++)
                    acc[k] += abs(a[k] - b[k]);
            }
        }
    }
    tv = (uint64_t)acc[0] + (uint64_t)acc[1] + (uint64_t)acc[2];
    tv_other = (uint64_t)acc[3] + (uint64_t)acc[4] + (uint64_t)acc[5];
#endif
    uint64_t n = (uint64_t)w * h, pairs = (uint64_t)(w - 1) * h + (uint64_t)w * (h - 1);
    uint64_t transparent = 0;
    bool all_opaque = true, palette_opaque = true;
    uint32_t used[TEX_CLUT_ENTRIES];
    uint32_t nused = 0;
    for (uint32_t i = 0; i < TEX_CLUT_ENTRIES; i++) {
        if (!hist[i])
            continue;
        uint32_t a = lut[i] >> 24;
        if (a < TEX_ALPHA_OPAQUE)
            all_opaque = false;
        if (raw_alpha[i] != TEX_ALPHA_OPAQUE)
            palette_opaque = false;
        if (a == 0)
            transparent += hist[i];
        used[nused++] = lut[i];
    }
    /* distinct colours among the used entries: an open-addressed set of 512
     * slots (at most 256 keys) instead of a qsort with a callback (~26 k
     * instructions a texture, 1,595 textures a retail-corpus pass) */
    uint32_t set[2 * TEX_CLUT_ENTRIES];
    uint8_t taken[2 * TEX_CLUT_ENTRIES];
    memset(taken, 0, sizeof taken);
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < nused; i++) {
        uint32_t k = used[i], at = (k * 0x9e3779b1u) >> 23; /* 9 bits */
        while (taken[at] && set[at] != k)
            at = (at + 1) & (2 * TEX_CLUT_ENTRIES - 1);
        if (!taken[at]) {
            taken[at] = 1;
            set[at] = k;
            distinct++;
        }
    }
    row->fully_opaque = all_opaque;
    row->palette_opaque = palette_opaque;
    row->frac_transparent = (double)transparent / (double)n;
    row->distinct_colors = distinct;
    row->tv_csm1 = pairs ? (double)tv / (double)pairs : 0.0;
    row->tv_raw = pairs ? (double)tv_other / (double)pairs : 0.0;
    row->tv_ratio = row->tv_raw > 0.0 ? row->tv_csm1 / row->tv_raw : NAN;
}

/* The GS RAM table's entries (count excludes the moby stash entries). A
 * table outside core_index publishes nothing: core.table_inside reports it. */
static gc_status gs_ram_rows(gc_level *lv, gc_diag *diag)
{
    const gc_span *ci = &lv->core_index;
    gc_array_range t = lv->core.gs_ram; /* core header +0x00 */
    size_t len = 0;
    if (t.count <= 0 || t.offset < 0 || !ci->data ||
        !gc_size_mul((size_t)t.count, TEX_GS_ENTRY_BYTES, &len) ||
        !gc_range_ok((size_t)t.offset, len, ci->size))
        return GC_OK;
    gc_reader r = gc_reader_make(ci->data + t.offset, len, ci->file_ofs + (uint64_t)t.offset);
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_texture_gs_ram);
    for (uint32_t i = 0; i < (uint32_t)t.count; i++) {
        gs_ram_row *row = gc_rows_push(rb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, r.file_ofs, "no memory for texture.gs_ram");
        row->file_ofs = gc_tell_file(&r);
        row->index = i;
        row->texture = i / 3;
        row->part = (uint8_t)(i % 3);
        row->psm = gc_s32le(&r);     /* +0x0 */
        row->width = gc_s16le(&r);   /* +0x4 */
        row->height = gc_s16le(&r);  /* +0x6 */
        row->address = gc_s32le(&r); /* +0x8 */
        row->offset = gc_s32le(&r);  /* +0xc */
    }
    return GC_OK;
}

static gc_status texture_run(gc_level *lv, gc_diag *diag)
{
    size_t count = 0;
    gc_reader tab;
    gc_diag_push(diag, "data/core_index/tfrag_textures");
    gc_status s = tex_table(lv, &count, &tab, diag);
    gc_diag_pop(diag);
    if (s != GC_OK)
        return s;
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_texture_tfrag);
    for (size_t i = 0; i < count; i++) {
        gc_texture_row r;
        memset(&r, 0, sizeof r);
        r.file_ofs = gc_tell_file(&tab);
        r.index = (uint32_t)i;
        tex_entry e = tex_read_entry(&tab);
        r.data_offset = e.data_offset;
        r.width = e.width;
        r.height = e.height;
        r.type = e.type;
        r.palette = e.palette;
        r.mipmap = e.mipmap;
        r.pad = e.pad;
        int64_t po = (int64_t)lv->core.textures_base + (int64_t)e.data_offset;
        r.pixel_ofs = po > 0 ? (uint64_t)po : 0;
        r.clut_ofs = e.palette > 0 ? (uint64_t)e.palette * TEX_GS_UNIT : 0;
        r.frac_transparent = NAN;
        r.distinct_colors = UINT32_MAX;
        r.tv_csm1 = r.tv_raw = r.tv_ratio = NAN;

        const uint8_t *px = NULL;
        uint32_t w = 0, h = 0;
        uint64_t ofs = 0;
        bool in_gs = false;
        for (int m = 0; m < GC_TEXTURE_MIP_LEVELS; m++) {
            const uint8_t *q;
            uint32_t mw, mh;
            if (!tex_level(lv, &e, m, &q, &mw, &mh, &ofs, &in_gs))
                break;
            if (m == 0) {
                px = q;
                w = mw;
                h = mh;
            }
            r.mip_levels = (uint8_t)(m + 1);
        }
        uint32_t lut[TEX_CLUT_ENTRIES], lut_other[TEX_CLUT_ENTRIES];
        uint8_t raw_alpha[TEX_CLUT_ENTRIES];
        r.pixels_ok = px != NULL && tex_clut(lv, &e, lut, lut_other, raw_alpha, &r.clut_alpha_max);
        if (r.pixels_ok)
            tex_stats(lv, px, w, h, lut, lut_other, raw_alpha, &r);
        gc_texture_row *row = gc_rows_push(rb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, r.file_ofs, "no memory for texture.tfrag");
        *row = r;
    }
    return gs_ram_rows(lv, diag);
}

gc_status gc_texture_rgba(const gc_level *lv, uint32_t index, int mip, int ps2_alpha,
                          uint8_t **rgba, uint32_t *width, uint32_t *height, gc_diag *diag)
{
    return gc_texture_rgba_kind(lv, GC_TEXTURE_TFRAG, index, mip, ps2_alpha, rgba, width, height,
                                diag);
}

/* gc_texture_indexed_kind, and the entry's file offset for the caller's own
 * diagnostics. */
static gc_status tex_indexed(const gc_level *lv, gc_texture_kind kind, uint32_t index, int mip,
                             int ps2_alpha, const uint8_t **texels, uint32_t clut[TEX_CLUT_ENTRIES],
                             uint32_t *width, uint32_t *height, uint64_t *entry_at, gc_diag *diag)
{
    *texels = NULL;
    *width = *height = 0;
    if ((unsigned)kind > GC_TEXTURE_SHRUB)
        return gc_diag_set(diag, GC_E_RANGE, 0, "texture kind %d is not 0..3", (int)kind);
    size_t count = 0;
    gc_reader tab;
    gc_status s = tex_table_kind(lv, kind, &count, &tab, diag);
    if (s != GC_OK)
        return s;
    if (index >= count)
        return gc_diag_set(diag, GC_E_RANGE, tab.file_ofs,
                           "%s texture %u does not exist (the table has %zu)", tex_kind_names[kind],
                           (unsigned)index, count);
    uint64_t entry_ofs = tab.file_ofs + (uint64_t)index * TEX_ENTRY_BYTES;
    *entry_at = entry_ofs;
    gc_seek(&tab, (size_t)index * TEX_ENTRY_BYTES);
    tex_entry e = tex_read_entry(&tab);
    if (mip < 0 || mip >= GC_TEXTURE_MIP_LEVELS)
        return gc_diag_set(diag, GC_E_RANGE, entry_ofs, "mip level %d is not 0..%d", mip,
                           GC_TEXTURE_MIP_LEVELS - 1);
    if (!tex_size_ok(&e))
        return gc_diag_set(diag, GC_E_RANGE, entry_ofs + 4, "texture %u is %dx%d texels",
                           (unsigned)index, (int)e.width, (int)e.height);
    const uint8_t *px = NULL;
    uint32_t w = 0, h = 0;
    uint64_t ofs = 0;
    bool in_gs = false;
    if (!tex_level(lv, &e, mip, &px, &w, &h, &ofs, &in_gs)) {
        int16_t unit = mip == 2 ? e.mipmap : e.pad;
        if (w == 0 || h == 0)
            return gc_diag_set(diag, GC_E_RANGE, entry_ofs + 4,
                               "a %dx%d texture has no mip level %d", (int)e.width, (int)e.height,
                               mip);
        if (in_gs && unit < 0)
            return gc_diag_set(diag, GC_E_UNSUPPORTED, entry_ofs + (mip == 2 ? 0xc : 0xe),
                               "texture %u has no mip level %d (position %d)", (unsigned)index, mip,
                               (int)unit);
        return gc_diag_set(diag, GC_E_TRUNCATED, in_gs ? lv->gs_ram.file_ofs + ofs : ofs,
                           "mip level %d of texture %u (%ux%u texels at 0x%llx in %s) runs "
                           "past its buffer",
                           mip, (unsigned)index, (unsigned)w, (unsigned)h, (unsigned long long)ofs,
                           in_gs ? "gs_ram" : "core_data");
    }
    uint32_t lut[TEX_CLUT_ENTRIES];
    /* without clut only where it lies is checked (tex_clut's own test) */
    if (clut ? !tex_clut(lv, &e, lut, NULL, NULL, NULL) : !tex_clut_inside(lv, &e))
        return gc_diag_set(diag, GC_E_TRUNCATED, entry_ofs + 0xa,
                           "CLUT of texture %u at palette %d (0x%llx) runs past gs_ram (%zu "
                           "bytes)",
                           (unsigned)index, (int)e.palette,
                           (unsigned long long)((int64_t)e.palette * TEX_GS_UNIT), lv->gs_ram.size);
    if (clut) {
        for (uint32_t i = 0; i < TEX_CLUT_ENTRIES; i++) {
            uint32_t c = lut[i], a = c >> 24;
            if (!ps2_alpha)
                a = a >= TEX_ALPHA_OPAQUE ? 0xFFu : a * 2u;
            /* the bytes R, G, B, A in memory order, whatever the host's */
            const uint8_t b[4] = {(uint8_t)c, (uint8_t)(c >> 8), (uint8_t)(c >> 16), (uint8_t)a};
            memcpy(&clut[i], b, 4);
        }
    }
    *texels = px;
    *width = w;
    *height = h;
    return GC_OK;
}

gc_status gc_texture_indexed_kind(const gc_level *lv, gc_texture_kind kind, uint32_t index, int mip,
                                  int ps2_alpha, const uint8_t **texels,
                                  uint32_t clut[GC_TEXTURE_CLUT_ENTRIES], uint32_t *width,
                                  uint32_t *height, gc_diag *diag)
{
    uint64_t entry_ofs = 0;
    return tex_indexed(lv, kind, index, mip, ps2_alpha, texels, clut, width, height, &entry_ofs,
                       diag);
}

gc_status gc_texture_rgba_kind(const gc_level *lv, gc_texture_kind kind, uint32_t index, int mip,
                               int ps2_alpha, uint8_t **rgba, uint32_t *width, uint32_t *height,
                               gc_diag *diag)
{
    *rgba = NULL;
    *width = *height = 0;
    /* the indexed texels and their colours, expanded: one path, so the two
     * APIs cannot disagree */
    const uint8_t *px = NULL;
    uint32_t clut[TEX_CLUT_ENTRIES], w = 0, h = 0;
    uint64_t entry_ofs = 0;
    gc_status s = tex_indexed(lv, kind, index, mip, ps2_alpha, &px, clut, &w, &h, &entry_ofs, diag);
    if (s != GC_OK)
        return s;
    size_t n = (size_t)w * h;
    uint8_t *out = malloc(n * 4);
    if (!out)
        return gc_diag_set(diag, GC_E_NOMEM, entry_ofs, "no memory for %ux%u RGBA", (unsigned)w,
                           (unsigned)h);
    for (size_t i = 0; i < n; i++)
        memcpy(out + 4 * i, &clut[px[i]], 4);
    *rgba = out;
    *width = w;
    *height = h;
    return GC_OK;
}

/* Where the texels of every texture lie in core_data: the lowest mip 0 start
 * and the end of the highest mip 1 (mip 1 follows mip 0, tex_level; mips 2
 * and 3 are in gs_ram), clamped to core_data. */
static void texel_span(const gc_level *lv, size_t *lowest, size_t *end)
{
    *lowest = lv->core_data_size;
    *end = 0;
    for (int k = GC_TEXTURE_TFRAG; k <= GC_TEXTURE_SHRUB; k++) {
        size_t count = 0;
        gc_reader tab;
        gc_diag d;
        gc_diag_init(&d);
        if (tex_table_kind(lv, (gc_texture_kind)k, &count, &tab, &d) != GC_OK)
            continue; /* that kind's pixels cannot be asked for */
        for (size_t i = 0; i < count; i++) {
            tex_entry e = tex_read_entry(&tab);
            if (!tex_size_ok(&e) || lv->core.textures_base < 0)
                continue;
            int64_t base = (int64_t)lv->core.textures_base + (int64_t)e.data_offset;
            if (base < 0)
                continue;
            if ((uint64_t)base < *lowest)
                *lowest = (size_t)base;
            uint64_t w = (uint64_t)e.width, h = (uint64_t)e.height;
            uint64_t top = (uint64_t)base + w * h + (w >> 1) * (h >> 1);
            if (top > *end)
                *end = top < lv->core_data_size ? (size_t)top : lv->core_data_size;
        }
    }
}

size_t gc_texture_pixels_lowest(const gc_level *lv)
{
    size_t lowest, end;
    texel_span(lv, &lowest, &end);
    return lowest;
}

size_t gc_texture_pixels_end(const gc_level *lv)
{
    size_t lowest, end;
    texel_span(lv, &lowest, &end);
    return end;
}

static const gc_table_desc *const texture_tables[] = {&gc_table_texture_tfrag,
                                                      &gc_table_texture_gs_ram};

const gc_decoder gc_dec_texture = {
    .name = "texture",
    .doc = "tfrag texture table, indices, CSM1 CLUTs, opacity and smoothness figures",
    .tables = texture_tables,
    .table_count = GC_COUNTOF(texture_tables),
    .run = texture_run,
    .release = NULL,
};
