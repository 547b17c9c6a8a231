/* SPDX-License-Identifier: MIT */
/* The synthetic corpus writer's own structural promises, checked by reading its output with
 * small test-local helpers (never the decoders): extents tile the container, tables chain,
 * offsets land inside their regions, totals match the plan, the plan matches the retail
 * figures, and two builds are byte-identical. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sy_corpus.h"

/* ---- test-local readers ---- */

static uint32_t rd32(const uint8_t *p, size_t o)
{
    return (uint32_t)p[o] | (uint32_t)p[o + 1] << 8 | (uint32_t)p[o + 2] << 16 |
           (uint32_t)p[o + 3] << 24;
}
static uint16_t rd16(const uint8_t *p, size_t o)
{
    return (uint16_t)(p[o] | p[o + 1] << 8);
}
static float rdf(const uint8_t *p, size_t o)
{
    uint32_t u = rd32(p, o);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Byte-at-a-time WAD LZ decoder straight from the format's pseudocode (formats.md §1.2).
 * Returns the decompressed length, or (size_t)-1 on any malformation. */
static size_t lz_unpack(const uint8_t *in, size_t avail, uint8_t *out, size_t cap)
{
    if (avail < 16 || memcmp(in, "WAD", 3) != 0)
        return (size_t)-1;
    size_t end = rd32(in, 3), p = 16, n = 0;
    if (end > avail || end < 16)
        return (size_t)-1;
#define NEED(k)                                                                                    \
    do {                                                                                           \
        if (p + (k) > end)                                                                         \
            return (size_t)-1;                                                                     \
    } while (0)
    while (p < end) {
        unsigned f = in[p++];
        size_t len = 0, dist = 0;
        if (f < 0x10) {
            size_t lit;
            if (f) {
                lit = f + 3;
            } else {
                NEED(1);
                lit = (size_t)in[p++] + 18;
            }
            NEED(lit);
            if (n + lit > cap)
                return (size_t)-1;
            memcpy(out + n, in + p, lit);
            n += lit, p += lit;
            if (p < end && in[p] < 0x10)
                return (size_t)-1;
            continue;
        }
        if (f < 0x20) {
            size_t m = f & 7;
            if (!m) {
                NEED(1);
                m = (size_t)in[p++] + 7;
            }
            NEED(2);
            unsigned b0 = in[p++], b1 = in[p++];
            size_t d = ((size_t)(f & 8) << 11) + ((size_t)b1 << 6) + (b0 >> 2);
            if (d == 0) {
                if (m != 1) {
                    p = 16 + (p - 16 + 0xFFF) / 0x1000 * 0x1000;
                    continue;
                }
            } else {
                len = m + 2, dist = d + 0x4000;
            }
        } else if (f < 0x40) {
            size_t m = f & 0x1F;
            if (!m) {
                NEED(1);
                m = (size_t)in[p++] + 0x1F;
            }
            NEED(2);
            len = m + 2;
            unsigned b0 = in[p++], b1 = in[p++];
            dist = ((size_t)b1 << 6) + (b0 >> 2) + 1;
        } else {
            NEED(1);
            unsigned b1 = in[p++];
            len = (f >> 5) + 1;
            dist = ((size_t)b1 << 3) + ((f >> 2) & 7) + 1;
        }
        if (len) {
            if (dist > n || n + len > cap)
                return (size_t)-1;
            for (size_t k = 0; k < len; k++, n++)
                out[n] = out[n - dist];
        }
        size_t t = in[p - 2] & 3;
        NEED(t);
        if (n + t > cap)
            return (size_t)-1;
        memcpy(out + n, in + p, t);
        n += t, p += t;
    }
#undef NEED
    return n;
}

typedef struct level {
    sy_buf file;
    const uint8_t *d;
    size_t size;
    size_t data_at, data_size;
    const uint8_t *index, *gs, *overlay;
    size_t index_size, gs_size, overlay_size;
    uint8_t *core; /* decompressed core_data */
    size_t core_size, core_lz_size;
} level;

static void level_load(level *L, int scale, uint32_t seed, int index)
{
    memset(L, 0, sizeof *L);
    sy_options o = {scale, seed};
    sy_buf_init(&L->file);
    cr_assert_eq(sy_level_build(&o, index, &L->file), 0, "LEVEL%d.WAD did not build", index);
    L->d = L->file.data, L->size = L->file.len;
    L->data_at = (size_t)rd32(L->d, 0x10) * 0x800;
    L->data_size = (size_t)rd32(L->d, 0x14) * 0x800;
    const uint8_t *x = L->d + L->data_at;
    L->overlay = x + rd32(x, 0x00), L->overlay_size = rd32(x, 0x04);
    L->index = x + rd32(x, 0x08), L->index_size = rd32(x, 0x0C);
    L->gs = x + rd32(x, 0x10), L->gs_size = rd32(x, 0x14);
    const uint8_t *lz = x + rd32(x, 0x48);
    L->core_lz_size = rd32(x, 0x4C);
    size_t want = rd32(L->index, 0x8C);
    L->core = malloc(want + 16);
    cr_assert_not_null(L->core);
    L->core_size = lz_unpack(lz, L->core_lz_size, L->core, want + 16);
    cr_assert_eq(L->core_size, want, "core_data decompresses to %zu, header says %zu", L->core_size,
                 want);
}

static void level_free(level *L)
{
    free(L->core);
    sy_buf_free(&L->file);
}

/* ---- the plan ---- */

Test(synth_plan, retail_totals_are_the_measured_disc)
{
    uint64_t s[20] = {0};
    int chunks = 0;
    for (int i = 0; i < SY_LEVEL_COUNT; i++) {
        const sy_level_plan *p = sy_plan(SY_SCALE_RETAIL, i);
        cr_assert_not_null(p);
        cr_assert_eq(p->index, i);
        cr_assert_eq(p->level_id, i == 21 ? 30 : i);
        uint32_t v[] = {p->tfrag_patches,
                        p->tfrag_positions,
                        p->tfrag_triangles,
                        p->vi_common,
                        p->vi_lod01,
                        p->vi_lod0,
                        p->tfrag_adgifs,
                        p->tfrag_textures,
                        p->tfrag_textures_referenced,
                        p->moby_classes,
                        p->tie_classes,
                        p->shrub_classes,
                        p->moby_packets,
                        p->moby_packets_zero_zero,
                        p->tie_lod_out_of_order};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            s[k] += v[k];
        chunks += p->has_chunks != 0;
    }
    uint64_t want[] = {18102, 821439, 809879, 516492, 29043, 341306, 47950, 1595,
                       1429,  5796,   1864,   358,    43467, 172,    80};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        cr_assert_eq(s[k], want[k], "column %zu sums to %llu, retail is %llu", k,
                     (unsigned long long)s[k], (unsigned long long)want[k]);
    cr_assert_eq(s[3] + s[4] + s[5], 886841);
    cr_assert_eq(chunks, 3);
    const sy_level_plan *p0 = sy_plan(SY_SCALE_RETAIL, 0);
    cr_assert_eq(p0->tfrag_patches, 833);
    cr_assert_eq(p0->tfrag_textures, 93);
    cr_assert_eq(p0->moby_classes, 238);
    cr_assert_eq(p0->tie_classes, 74);
    cr_assert_eq(p0->shrub_classes, 7);
    cr_assert_eq(p0->core_data_bytes, 16969296);
    cr_assert_eq(p0->core_index_bytes, 31600);
    cr_assert_eq(p0->gs_ram_bytes, 518656);
    cr_assert_eq(p0->sound_bank_bytes, 1503232);
    cr_assert_null(sy_plan(SY_SCALE_RETAIL, 27));
    cr_assert_null(sy_plan(SY_SCALE_RETAIL, -1));
    cr_assert_null(sy_plan(7, 0));
}

Test(synth_plan, normal_tables_move_and_small_keeps_every_special_case)
{
    for (int scale = 0; scale < 2; scale++)
        for (int i = 0; i < SY_LEVEL_COUNT; i++) {
            const sy_level_plan *p = sy_plan(scale, i);
            cr_assert_lt(p->decoy_offset + 8, p->normal_table_offset);
            cr_assert_leq(p->normal_table_offset + 2048, p->overlay_bytes);
            for (int j = 0; j < i; j++)
                cr_assert_neq(sy_plan(scale, j)->normal_table_offset, p->normal_table_offset);
            for (int k = 0; k < 3; k++) /* per-patch u8 counts must be reachable */
                cr_assert_leq(p->tfrag_positions, 255u * p->tfrag_patches);
            cr_assert_leq(p->tfrag_triangles, 255u * p->tfrag_patches);
            cr_assert_leq(p->tfrag_textures_referenced, p->tfrag_textures);
            if (scale == SY_SCALE_SMALL) {
                cr_assert_geq(p->tfrag_patches, 8);
                cr_assert_geq(p->tfrag_textures, 4);
                cr_assert_geq(p->moby_classes, 3);
                cr_assert_geq(p->tie_classes, 3);
                cr_assert_geq(p->shrub_classes, 3);
                cr_assert_geq(p->moby_packets_zero_zero, 1);
                cr_assert_geq(p->tie_lod_out_of_order, 1);
                cr_assert_geq(p->moby_classes_no_geometry, 1);
                cr_assert_geq(p->shrub_classes_no_geometry, 1);
            }
        }
}

/* ---- what is written (small scale, every level) ---- */

static void check_container(const level *L, const sy_level_plan *p)
{
    const uint8_t *d = L->d;
    cr_assert_eq(rd32(d, 0x00), 0x60);
    cr_assert_eq((int32_t)rd32(d, 0x08), p->level_id);
    cr_assert_eq(L->size % 0x800, 0);
    /* Ranges sorted by offset must tile [1 sector, end) with no gap and no overlap. */
    uint32_t ofs[10], len[10];
    int n = 0, chunk_ranges = 0;
    for (int k = 0; k < 10; k++) {
        uint32_t o = rd32(d, 0x10 + 8 * k), s = rd32(d, 0x14 + 8 * k);
        if (s == 0)
            continue;
        if (k >= 4)
            chunk_ranges++;
        ofs[n] = o, len[n] = s, n++;
    }
    cr_assert_eq(chunk_ranges > 0, p->has_chunks != 0);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (ofs[b] < ofs[a]) {
                uint32_t t = ofs[a];
                ofs[a] = ofs[b], ofs[b] = t, t = len[a], len[a] = len[b], len[b] = t;
            }
    uint32_t at = 1;
    for (int k = 0; k < n; k++) {
        cr_assert_eq(ofs[k], at, "extent %d starts at sector %u, expected %u", k, ofs[k], at);
        at += len[k];
    }
    cr_assert_eq((size_t)at * 0x800, L->size);
}

static void check_data_extent(const level *L, const sy_level_plan *p)
{
    const uint8_t *x = L->d + L->data_at;
    size_t prev_end = 0x58;
    for (int k = 0; k < 11; k++) {
        int32_t o = (int32_t)rd32(x, 8 * k);
        uint32_t s = rd32(x, 8 * k + 4);
        if (o == -1) {
            cr_assert_eq(s, 0);
            continue;
        }
        cr_assert_eq(o % 0x40, 0, "item %d not 0x40-aligned", k);
        cr_assert_geq((size_t)o, prev_end, "item %d overlaps the one before", k);
        cr_assert_leq((size_t)o + s, L->data_size);
        prev_end = (size_t)o + s;
    }
    cr_assert_eq(L->overlay_size, p->overlay_bytes);
    cr_assert_eq(L->index_size, p->core_index_bytes);
    cr_assert_eq(L->gs_size, p->gs_ram_bytes);
    cr_assert_eq(L->core_size, p->core_data_bytes);
    const uint8_t *lz = x + rd32(x, 0x48);
    cr_assert_eq(memcmp(lz, "WAD", 3), 0);
    cr_assert_eq(rd32(lz, 3), L->core_lz_size);
    cr_assert_eq(rd32(L->index, 0x88), L->core_lz_size); /* assets_compressed_size */
}

/* Tables in the original order, each ending exactly where the next begins. */
static void check_index_chain(const level *L, const sy_level_plan *p)
{
    const uint8_t *h = L->index;
    struct {
        size_t count_at, ofs_at, stride;
    } t[] = {{0x18, 0x1C, 32}, {0x20, 0x24, 32}, {0x28, 0x2C, 48}, {0x30, 0x34, 16},
             {0x38, 0x3C, 16}, {0x40, 0x44, 16}, {0x48, 0x4C, 16}, {0x50, 0x54, 16},
             {0x58, 0x5C, 16}, {0x00, 0x04, 16}};
    cr_assert_eq(rd32(h, 0x1C), 0xC0);
    for (size_t k = 0; k + 1 < sizeof t / sizeof t[0]; k++)
        cr_assert_eq(rd32(h, t[k].ofs_at) + rd32(h, t[k].count_at) * t[k].stride,
                     rd32(h, t[k + 1].ofs_at), "table %zu does not end where %zu begins", k, k + 1);
    uint32_t gs_end = rd32(h, 0x04) + rd32(h, 0x00) * 16;
    cr_assert_eq(gs_end, rd32(h, 0x6C));               /* part defs follow the GS RAM table */
    cr_assert_lt(rd32(h, 0x6C), rd32(h, 0x70));        /* sound remap */
    cr_assert_lt(rd32(h, 0x70), rd32(h, 0xAC));        /* moby stash list */
    cr_assert_lt(rd32(h, 0xAC), rd32(h, 0x78));        /* ratchet seqs */
    cr_assert_eq(rd32(h, 0x78) + 1024, L->index_size); /* 256 s32, then the end */
    cr_assert_eq(rd32(h, 0x18), p->moby_classes);
    cr_assert_eq(rd32(h, 0x20), p->tie_classes);
    cr_assert_eq(rd32(h, 0x28), p->shrub_classes);
    cr_assert_eq(rd32(h, 0x30), p->tfrag_textures);
    /* Region offsets strictly increase inside core_data. */
    uint32_t r[] = {rd32(h, 0x08), rd32(h, 0x0C), rd32(h, 0x10), rd32(h, 0x14),
                    rd32(h, 0x60), rd32(h, 0x64), rd32(h, 0x68)};
    cr_assert_eq(r[0], 0);
    for (size_t k = 1; k < sizeof r / sizeof r[0]; k++)
        cr_assert_gt(r[k], r[k - 1]);
    cr_assert_lt(r[6], L->core_size);
    /* The tfrag block at 0: table_offset 0x40, the plan's patch count, LOD 32.0. */
    cr_assert_eq(rd32(L->core, 0), 0x40);
    cr_assert_eq(rd32(L->core, 4), p->tfrag_patches);
    cr_assert_float_eq(rdf(L->core, 8), 32.0f, 0.0f);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t span_end(const uint32_t *sorted, uint32_t k, uint32_t o)
{
    const uint32_t *hit = bsearch(&o, sorted, k, sizeof *sorted, cmp_u32);
    cr_assert_not_null(hit);
    return hit[1];
}

static void check_classes(const level *L, const sy_level_plan *p)
{
    const uint8_t *h = L->index;
    uint32_t n[3] = {rd32(h, 0x18), rd32(h, 0x20), rd32(h, 0x28)};
    uint32_t at[3] = {rd32(h, 0x1C), rd32(h, 0x24), rd32(h, 0x2C)}, stride[3] = {32, 32, 48};
    uint32_t zeros[3] = {0}, total = n[0] + n[1] + n[2], k = 0;
    uint32_t *all = malloc(sizeof *all * (total + 1));
    cr_assert_not_null(all);
    /* class data begins after the fx bank, at it when the bank is empty (no fx textures) */
    uint32_t lo = rd32(h, 0x68), fx_empty = rd32(h, 0x58) == 0;
    for (int t = 0; t < 3; t++)
        for (uint32_t i = 0; i < n[t]; i++) {
            uint32_t o = rd32(h, at[t] + stride[t] * i);
            if (o == 0) {
                zeros[t]++;
                continue;
            }
            cr_assert((o > lo || (fx_empty && o == lo)) && o < L->core_size,
                      "class offset %u outside class data", o);
            all[k++] = o;
        }
    cr_assert_eq(zeros[0], p->moby_classes_no_geometry);
    cr_assert_eq(zeros[1], p->tie_classes_no_geometry);
    cr_assert_eq(zeros[2], p->shrub_classes_no_geometry);
    all[k] = (uint32_t)L->core_size;
    qsort(all, k, sizeof *all, cmp_u32);
    /* Span of a class = up to the next higher class offset (or the end of core_data). */
#define SPAN_END(o) span_end(all, k, (o))
    uint32_t packets = 0, zz = 0, ooo = 0;
    for (uint32_t i = 0; i < n[0]; i++) { /* moby: packet table identity */
        uint32_t o = rd32(h, at[0] + 32 * i);
        if (!o)
            continue;
        const uint8_t *c = L->core + o;
        uint32_t span = SPAN_END(o) - o;
        uint32_t count = c[4] + c[5] + c[6], tab = rd32(c, 0);
        cr_assert_lt(tab + 16 * (count + 1), span);
        /* Records up to the first zero vif_list_offset; every one keeps the identity. */
        uint32_t j = 0;
        for (;; j++) {
            cr_assert_lt(tab + 16 * (j + 1), span, "class %u: run leaves its span", i);
            const uint8_t *e = c + tab + 16 * j;
            uint32_t vif = rd32(e, 0), size = rd16(e, 4), vert = rd32(e, 8);
            if (vif == 0) {
                if (vert == 0) {
                    cr_assert_gt(size, 0, "a zero/zero terminator still carries a count");
                    zz++;
                }
                break;
            }
            packets++;
            cr_assert_eq(vif + 16 * size, vert, "class %u packet %u", i, j);
            cr_assert_leq(vert + 16u * e[12], span);
        }
        cr_assert_eq(j, count, "class %u: header says %u packets, the run has %u", i, count, j);
    }
    cr_assert_eq(packets, p->moby_packets);
    cr_assert_eq(zz, p->moby_packets_zero_zero);
    for (uint32_t i = 0; i < n[1]; i++) { /* tie: o_class at 0x44, LOD distance order */
        uint32_t o = rd32(h, at[1] + 32 * i);
        if (!o)
            continue;
        const uint8_t *c = L->core + o;
        cr_assert_eq(rd16(c, 0x44), rd32(h, at[1] + 32 * i + 4));
        float nd = rdf(c, 0x10), md = rdf(c, 0x14), fd = rdf(c, 0x18);
        if (!(0 < nd && nd < md && md < fd))
            ooo++;
        for (int l = 0; l < 3; l++)
            cr_assert_lt(rd32(c, 4 * l), SPAN_END(o) - o);
    }
    cr_assert_eq(ooo, p->tie_lod_out_of_order);
    for (uint32_t i = 0; i < n[2]; i++) { /* shrub: o_class at +0x24, data offset at +0x2c */
        uint32_t o = rd32(h, at[2] + 48 * i);
        if (!o)
            continue;
        const uint8_t *c = L->core + o;
        cr_assert_eq(rd32(c, 0x24), rd32(h, at[2] + 48 * i + 4));
        cr_assert_lt(rd32(c, 0x2C), SPAN_END(o) - o);
        cr_assert_gt(rd32(c, 0x2C), 0);
    }
#undef SPAN_END
    free(all);
}

static unsigned swap34(unsigned i)
{
    return (i & ~0x18u) | ((i & 8u) << 1) | ((i & 16u) >> 1);
}

/* Textures: square power of two, pixels inside core_data, CLUTs inside GS RAM, alpha <= 0x80;
 * the CSM1 remap gives a smoother image than raw index order. */
static void check_textures(const level *L, uint64_t *opaque, uint64_t *count, uint64_t *smoother)
{
    const uint8_t *h = L->index;
    uint32_t base = rd32(h, 0x60), n = rd32(h, 0x30), at = rd32(h, 0x34);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = h + at + 16 * i;
        uint32_t ofs = rd32(e, 0), w = rd16(e, 4), hh = rd16(e, 6), pal = rd16(e, 10) * 0x100u;
        cr_assert_eq(w, hh);
        cr_assert_eq(w & (w - 1), 0);
        cr_assert_leq((size_t)base + ofs + w * w + (w / 2) * (w / 2), L->core_size);
        cr_assert_leq((size_t)pal + 1024, L->gs_size);
        cr_assert_leq((size_t)rd16(e, 12) * 0x100 + (w / 4) * (w / 4), L->gs_size);
        const uint8_t *px = L->core + base + ofs, *clut = L->gs + pal;
        int all_opaque = 1;
        uint64_t tv_remap = 0, tv_raw = 0;
        for (uint32_t y = 0; y < w; y++)
            for (uint32_t x = 0; x < w; x++) {
                unsigned ix = px[y * w + x];
                uint32_t c = rd32(clut, 4 * swap34(ix));
                cr_assert_leq(c >> 24, 0x80u);
                if ((c >> 24) != 0x80)
                    all_opaque = 0;
                if (x + 1 < w) {
                    unsigned jx = px[y * w + x + 1];
                    uint32_t c2 = rd32(clut, 4 * swap34(jx)), r1 = rd32(clut, 4 * ix),
                             r2 = rd32(clut, 4 * jx);
                    for (int s = 0; s < 24; s += 8) {
                        tv_remap += (uint64_t)abs((int)((c >> s) & 255) - (int)((c2 >> s) & 255));
                        tv_raw += (uint64_t)abs((int)((r1 >> s) & 255) - (int)((r2 >> s) & 255));
                    }
                }
            }
        *opaque += all_opaque;
        *count += 1;
        *smoother += tv_remap < tv_raw;
    }
}

static void check_overlay(const level *L, const sy_level_plan *p)
{
    const uint8_t *o = L->overlay;
    uint32_t t = p->normal_table_offset, d = p->decoy_offset;
    cr_assert_eq(rd32(o, d), 0x3F800000u);
    cr_assert_eq(rd32(o, d + 4), 0);
    cr_assert_neq(rd32(o, d + 8), rd32(o, t + 8), "the decoy must not continue the curve");
    for (int i = 0; i < 256; i++) {
        double a = i * 3.14159265358979323846 / 128.0;
        float c = rdf(o, t + 8 * i), s = rdf(o, t + 8 * i + 4);
        cr_assert_eq(c, (float)cos(a) == 0.0f || fabs(cos(a)) < 1e-9 ? 0.0f : (float)cos(a),
                     "cos entry %d", i);
        cr_assert_eq(s, fabs(sin(a)) < 1e-9 ? 0.0f : (float)sin(a), "sin entry %d", i);
    }
}

static void check_gameplay_sound_occlusion(const level *L, const sy_level_plan *p)
{
    const uint8_t *d = L->d;
    const uint8_t *g = d + (size_t)rd32(d, 0x20) * 0x800;
    size_t gsize = (size_t)rd32(d, 0x24) * 0x800;
    cr_assert_eq(memcmp(g, "WAD", 3), 0);
    size_t cap = 64u << 20;
    uint8_t *gp = malloc(cap);
    cr_assert_not_null(gp);
    size_t n = lz_unpack(g, gsize, gp, cap);
    cr_assert_neq(n, (size_t)-1);
    cr_assert_gt(n, 0x9C);
    for (size_t k = 0; k < 0x9C; k += 4)
        cr_assert_lt(rd32(gp, k), n, "block 0x%zx outside the file", k);
    uint32_t lb = rd32(gp, 0x04), lights = rd32(gp, lb);
    cr_assert_gt(lights, 0);
    for (uint32_t i = 0; i < lights; i++)
        for (int half = 0; half < 2; half++) {
            size_t at = lb + 16 + 64 * i + 32 * half + 16;
            float x = rdf(gp, at), y = rdf(gp, at + 4), z = rdf(gp, at + 8);
            cr_assert_float_eq(x * x + y * y + z * z, 1.0f, 1e-5f);
        }
    uint32_t om = rd32(gp, 0x90);
    cr_assert_eq(rd32(gp, om), p->tfrag_patches);
    const uint8_t *occ = d + (size_t)rd32(d, 0x28) * 0x800;
    size_t occ_bytes = 16 + 8 * (size_t)(rd32(occ, 0) + rd32(occ, 4) + rd32(occ, 8));
    cr_assert_eq(memcmp(occ, gp + om, occ_bytes), 0, "occlusion extent == gameplay block 0x90");
    free(gp);
    const uint8_t *snd = d + (size_t)rd32(d, 0x18) * 0x800;
    cr_assert_eq(memcmp(snd + 0x18, "SBlk", 4), 0);
    cr_assert_eq(memcmp(snd + 0x24, "DAW", 3), 0);
    cr_assert_eq(rd32(snd, 4), p->sound_bank_bytes);
    /* Occlusion grid: masks offset (bytes, as Wrench reads it) inside [occlusion, sky). */
    uint32_t go = rd32(L->index, 0x0C), sky = rd32(L->index, 0x10);
    const uint8_t *og = L->core + go;
    uint32_t masks_at = rd32(og, 0), zc = rd16(og, 6), nodes = 0;
    cr_assert_eq(masks_at % 16, 0u, "masks 16-aligned, as Wrench writes them");
    cr_assert_lt(go + masks_at, sky);
    uint32_t masks = (sky - go - masks_at) / 128;
    cr_assert_gt(masks, 0);
    for (uint32_t z = 0; z < zc; z++) { /* walk root -> z -> y nodes; every mask index valid */
        uint32_t zo = rd16(og, 8 + 2 * z) * 4u;
        if (!zo)
            continue;
        cr_assert_lt(zo, masks_at);
        uint32_t yc = rd16(og, zo + 2);
        for (uint32_t y = 0; y < yc; y++) {
            uint32_t yo = rd16(og, zo + 4 + 2 * y) * 4u, xc = rd16(og, yo + 2);
            cr_assert_lt(yo + 4 + 2 * xc, masks_at + 1);
            for (uint32_t x = 0; x < xc; x++) {
                uint32_t m = rd16(og, yo + 4 + 2 * x);
                cr_assert(m == 0xFFFF || m < masks, "mask index %u of %u", m, masks);
                nodes++;
            }
        }
    }
    cr_assert_gt(nodes, 0);
    /* Sky: shell count 0..8 (the header has 8 shell slots; 0 only on the edge scale), every
     * shell offset inside [sky, collision). */
    const uint8_t *s = L->core + sky;
    uint32_t shells = rd16(s, 6), coll = rd32(L->index, 0x14);
    cr_assert(shells <= 8);
    for (uint32_t k = 0; k < shells; k++) {
        uint32_t sh = rd32(s, 0x20 + 4 * k), clusters = rd32(s, sh);
        cr_assert_lt(sky + sh, coll);
        for (uint32_t c = 0; c < clusters; c++) { /* every vertex inside its cluster's sphere */
            const uint8_t *cl = s + sh + 0x10 + 0x20 * c;
            float cx = rdf(cl, 0), cy = rdf(cl, 4), cz = rdf(cl, 8), r = rdf(cl, 12);
            uint32_t data = rd32(cl, 16), nv = rd16(cl, 20), vo = rd16(cl, 24);
            cr_assert_gt(nv, 0);
            cr_assert_lt(sky + data + vo + 8 * nv, coll);
            for (uint32_t v = 0; v < nv; v++) {
                const uint8_t *q = s + data + vo + 8 * v;
                float dx = (float)(int16_t)rd16(q, 0) / 1024.0f - cx,
                      dy = (float)(int16_t)rd16(q, 2) / 1024.0f - cy,
                      dz = (float)(int16_t)rd16(q, 4) / 1024.0f - cz;
                cr_assert_leq(sqrtf(dx * dx + dy * dy + dz * dz), r, "sky cluster %u vertex %u", c,
                              v);
            }
        }
    }
}

/* Every promise of a level's plan, read without the decoders (both scales). */
static void check_level(const level *L, const sy_level_plan *p, uint64_t *opaque, uint64_t *count,
                        uint64_t *smoother)
{
    check_container(L, p);
    check_data_extent(L, p);
    check_index_chain(L, p);
    check_classes(L, p);
    check_textures(L, opaque, count, smoother);
    check_overlay(L, p);
    check_gameplay_sound_occlusion(L, p);
}

Test(synth_small, every_level_keeps_its_promises, .timeout = 120)
{
    uint64_t opaque = 0, count = 0, smoother = 0;
    for (int i = 0; i < SY_LEVEL_COUNT; i++) {
        const sy_level_plan *p = sy_plan(SY_SCALE_SMALL, i);
        level L;
        level_load(&L, SY_SCALE_SMALL, 1, i);
        check_level(&L, p, &opaque, &count, &smoother);
        level_free(&L);
    }
    cr_assert_eq(smoother, count, "CSM1-remapped images must be smoother than raw index order");
}

/* The edge scale: every level keeps the same promises as the small one, and across the 27
 * levels every extreme the plan names is really on disc (read back here without decoders/). */
Test(synth_edge, every_level_keeps_its_promises_and_reaches_every_extreme, .timeout = 120)
{
    uint64_t opaque = 0, count = 0, smoother = 0;
    unsigned sides_seen = 0, no_tie = 0, no_shrub = 0, no_moby_tex = 0, no_fx = 0;
    unsigned shells_seen = 0, bare_only = 0, untextured_sky = 0;
    for (int i = 0; i < SY_LEVEL_COUNT; i++) {
        const sy_level_plan *p = sy_plan(SY_SCALE_EDGE, i);
        cr_assert_not_null(p);
        level L;
        level_load(&L, SY_SCALE_EDGE, 1, i);
        check_level(&L, p, &opaque, &count, &smoother);
        const uint8_t *h = L.index;
        uint32_t side = rd16(h + rd32(h, 0x34), 4); /* tfrag texture 0 */
        for (unsigned b = 3; b <= 10; b++)
            if (side == 1u << b)
                sides_seen |= 1u << b;
        no_tie += rd32(h, 0x20) == 0;
        no_shrub += rd32(h, 0x28) == 0;
        no_moby_tex += rd32(h, 0x38) == 0;
        no_fx += rd32(h, 0x58) == 0;
        /* Sky header at core.sky: shell_count at +0x06, texture_count at +0x0c, shells from 0x20.
         */
        const uint8_t *sky = L.core + rd32(h, 0x10);
        unsigned shells = rd16(sky, 6), textured = 0;
        cr_assert_leq(shells, 8u);
        shells_seen |= 1u << shells;
        for (unsigned k = 0; k < shells; k++)
            textured += (rd32(sky + rd32(sky, 0x20 + 4 * k), 4) & 1u) == 0;
        bare_only += shells > 0 && textured == 0 && rd16(sky, 0x0c) == 0;
        untextured_sky += shells > 1 && textured == 0 && rd16(sky, 0x0c) > 0;
        level_free(&L);
    }
    /* 8, 16, 64, 128, 256, 512 and 1024 texels a side (bits 3..10 but 5) */
    cr_assert_eq(sides_seen, 0x7D8u, "sides of tfrag texture 0 seen: 0x%x", sides_seen);
    cr_assert_gt(no_tie, 0);
    cr_assert_gt(no_shrub, 0);
    cr_assert_gt(no_moby_tex, 0);
    cr_assert_gt(no_fx, 0);
    cr_assert(shells_seen & 1u, "no level without sky shells");
    cr_assert(shells_seen & (1u << 8), "no level with the header's 8 shells");
    cr_assert_gt(bare_only, 0, "no single untextured shell without textures");
    cr_assert_gt(untextured_sky, 0, "no all-untextured sky over a texture table");
}

Test(synth_small, two_builds_are_byte_identical_and_the_seed_matters)
{
    sy_options a = {SY_SCALE_SMALL, 1}, b = {SY_SCALE_SMALL, 2};
    sy_buf x, y, z;
    sy_buf_init(&x), sy_buf_init(&y), sy_buf_init(&z);
    cr_assert_eq(sy_level_build(&a, 5, &x), 0);
    cr_assert_eq(sy_level_build(&a, 5, &y), 0);
    cr_assert_eq(sy_level_build(&b, 5, &z), 0);
    cr_assert_eq(x.len, y.len);
    cr_assert_eq(memcmp(x.data, y.data, x.len), 0);
    cr_assert(x.len != z.len || memcmp(x.data, z.data, x.len) != 0);
    sy_buf w; /* appending after existing bytes gives the same file */
    sy_buf_init(&w);
    sy_buf_put(&w, "xyz", 3);
    cr_assert_eq(sy_level_build(&a, 5, &w), 0);
    cr_assert_eq(w.len, 3 + x.len);
    cr_assert_eq(memcmp(w.data + 3, x.data, x.len), 0);
    sy_buf_free(&w);
    cr_assert_eq(sy_level_build(&a, 27, &z), -1);
    cr_assert_str_neq(sy_generator_version(), "");
    sy_buf_free(&x), sy_buf_free(&y), sy_buf_free(&z);
}

/* ---- retail level 0: the exact sizes measured on the disc ---- */

Test(synth_retail, level0_sizes, .timeout = 120)
{
    const sy_level_plan *p = sy_plan(SY_SCALE_RETAIL, 0);
    level L;
    level_load(&L, SY_SCALE_RETAIL, 1, 0);
    check_container(&L, p);
    check_data_extent(&L, p);
    check_index_chain(&L, p);
    check_classes(&L, p);
    cr_assert_eq(L.index_size, 31600);
    cr_assert_eq(L.gs_size, 518656);
    cr_assert_eq(L.core_size, 16969296);
    cr_assert_eq(rd32(L.d, 0x1C), 1503232 / 0x800); /* sound bank sectors */
    /* Within 10% of the disc: data extent 6,484 sectors, core_data ~9.74 MB compressed,
     * gameplay ~659 KB. */
    uint32_t data_sectors = rd32(L.d, 0x14), gp_sectors = rd32(L.d, 0x24);
    cr_assert(data_sectors > 6484 * 9 / 10 && data_sectors < 6484 * 11 / 10, "data %u sectors",
              data_sectors);
    cr_assert(L.core_lz_size > 9738678 * 9 / 10 && L.core_lz_size < 9738678 * 11 / 10,
              "core_data compressed %zu", L.core_lz_size);
    cr_assert(gp_sectors * 0x800u > 659456u * 9 / 10 && gp_sectors * 0x800u < 659456u * 11 / 10,
              "gameplay %u sectors", gp_sectors);
    uint64_t opaque = 0, count = 0, smoother = 0;
    check_textures(&L, &opaque, &count, &smoother);
    cr_assert_eq(count, 93);
    cr_assert_eq(opaque, 90, "level 0: every tfrag texture but the three grilles is opaque");
    /* Texture 74 is a vent grille: a real share of its texels are fully transparent holes. */
    const uint8_t *e = L.index + rd32(L.index, 0x34) + 16 * 74;
    uint32_t w = rd16(e, 4), holes = 0;
    const uint8_t *px = L.core + rd32(L.index, 0x60) + rd32(e, 0),
                  *clut = L.gs + rd16(e, 10) * 0x100u;
    for (uint32_t i = 0; i < w * w; i++)
        holes += (rd32(clut, 4 * swap34(px[i])) >> 24) == 0;
    cr_assert(holes > w * w / 10 && holes < w * w / 2, "grille holes %u of %u", holes, w * w);
    level_free(&L);
}

Test(synth_retail, level24_is_the_small_one, .timeout = 60)
{
    sy_options o = {SY_SCALE_RETAIL, 1};
    sy_buf b;
    sy_buf_init(&b);
    cr_assert_eq(sy_level_build(&o, 24, &b), 0);
    uint32_t data_sectors = rd32(b.data, 0x14); /* disc: 2,102 sectors, the smallest data extent */
    cr_assert(data_sectors > 2102 * 9 / 10 && data_sectors < 2102 * 11 / 10, "data %u sectors",
              data_sectors);
    sy_buf_free(&b);
}
