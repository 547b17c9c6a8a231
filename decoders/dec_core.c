/* SPDX-License-Identifier: MIT */
/* The core decoder: the 0xBC-byte level core header at core_index+0
 * (formats.md §3.3), published as core.header (every field), core.region
 * (the data-offset regions of decompressed core_data, in file order) and
 * core.table (the count/offset tables of core_index, in their file order,
 * each with the next table's offset so the table-chain invariant can check
 * that each ends exactly where the next begins).
 *
 * It also gathers every known start offset inside core_data into
 * lv->core_starts: class spans run from their offset to the next higher
 * start, which is how Wrench sizes them (sizes are implicit, §3.3). */
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define CORE_HEADER_BYTES    0xBCu
#define CORE_HEADER_WORDS    (CORE_HEADER_BYTES / 4u)
#define RATCHET_SEQ_COUNT    256u /* ratchet_seqs -> 256 x s32 data offsets */
#define MOBY_CLASS_STRIDE    0x20u
#define TIE_CLASS_STRIDE     0x20u
#define SHRUB_CLASS_STRIDE   0x30u
#define TEXTURE_ENTRY_STRIDE 0x10u
#define GS_RAM_ENTRY_STRIDE  0x10u
#define NO_VALUE             UINT64_MAX

/* Every word of the header, in order: member name, byte offset, doc. */
#define CORE_FIELDS(X)                                                                             \
    X(gs_ram_count, 0x00, "GsRamEntry count, excluding the moby stash entries")                    \
    X(gs_ram_offset, 0x04, "index offset of the GS RAM table")                                     \
    X(tfrags, 0x08, "data offset of chunk 0's tfrag block")                                        \
    X(occlusion, 0x0c, "data offset of the occlusion grid (0 = none)")                             \
    X(sky, 0x10, "data offset of the sky (0 = none)")                                              \
    X(collision, 0x14, "data offset of chunk 0's collision")                                       \
    X(moby_classes_count, 0x18, "moby class entries (0x20 bytes)")                                 \
    X(moby_classes_offset, 0x1c, "index offset of the moby class table")                           \
    X(tie_classes_count, 0x20, "tie class entries (0x20 bytes)")                                   \
    X(tie_classes_offset, 0x24, "index offset of the tie class table")                             \
    X(shrub_classes_count, 0x28, "shrub class entries (0x30 bytes)")                               \
    X(shrub_classes_offset, 0x2c, "index offset of the shrub class table")                         \
    X(tfrag_textures_count, 0x30, "tfrag TextureEntry count")                                      \
    X(tfrag_textures_offset, 0x34, "index offset of the tfrag texture table")                      \
    X(moby_textures_count, 0x38, "moby TextureEntry count")                                        \
    X(moby_textures_offset, 0x3c, "index offset of the moby texture table")                        \
    X(tie_textures_count, 0x40, "tie TextureEntry count")                                          \
    X(tie_textures_offset, 0x44, "index offset of the tie texture table")                          \
    X(shrub_textures_count, 0x48, "shrub TextureEntry count")                                      \
    X(shrub_textures_offset, 0x4c, "index offset of the shrub texture table")                      \
    X(part_textures_count, 0x50, "particle texture entries")                                       \
    X(part_textures_offset, 0x54, "index offset of the particle texture table")                    \
    X(fx_textures_count, 0x58, "fx texture entries")                                               \
    X(fx_textures_offset, 0x5c, "index offset of the fx texture table")                            \
    X(textures_base, 0x60, "data offset of the level texture pixels")                              \
    X(part_bank, 0x64, "data offset of the particle bank")                                         \
    X(fx_bank, 0x68, "data offset of the fx bank")                                                 \
    X(part_defs, 0x6c, "index offset of the particle definitions")                                 \
    X(sound_remap, 0x70, "index offset of the sound remap")                                        \
    X(unknown_74, 0x74, "unknown")                                                                 \
    X(ratchet_seqs, 0x78, "index offset of 256 ratchet sequence data offsets")                     \
    X(scene_view_size, 0x7c, "data size after the class data (as Wrench writes it)")               \
    X(unknown_80, 0x80, "unknown (index_into_some1_texs)")                                         \
    X(moby_gs_stash_count, 0x84, "GS RAM entries of stashed moby textures")                        \
    X(assets_compressed_size, 0x88, "core_data WAD-LZ size including its 16-byte header")          \
    X(assets_decompressed_size, 0x8c, "core_data decompressed size")                               \
    X(chrome_map_texture, 0x90, "chrome map texture")                                              \
    X(chrome_map_palette, 0x94, "chrome map palette")                                              \
    X(glass_map_texture, 0x98, "glass map texture")                                                \
    X(glass_map_palette, 0x9c, "glass map palette")                                                \
    X(unknown_a0, 0xa0, "unknown")                                                                 \
    X(heightmap, 0xa4, "heightmap offset")                                                         \
    X(occlusion_oct, 0xa8, "occlusion octant offset")                                              \
    X(moby_gs_stash_list, 0xac, "index offset of the stashed o_class list")                        \
    X(occlusion_rad, 0xb0, "occlusion radius offset")                                              \
    X(moby_sound_remap, 0xb4, "moby sound remap offset")                                           \
    X(occlusion_rad2, 0xb8, "second occlusion radius offset")

typedef struct core_header_row {
    uint64_t file_ofs;
#define X(n, o, d) int32_t n;
    CORE_FIELDS(X)
#undef X
} core_header_row;

static const gc_column header_cols[] = {
    GC_COL(core_header_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes", "file offset of core_index"),
#define X(n, o, d) GC_COL(core_header_row, n, GC_T_S32, 0, "", #o ": " d),
    CORE_FIELDS(X)
#undef X
};

static const gc_table_desc gc_table_core_header = {
    .name = "core.header",
    .doc = "The 0xBC-byte level core header at core_index+0, every field (one row).",
    .row_size = sizeof(core_header_row),
    .columns = header_cols,
    .column_count = GC_COUNTOF(header_cols),
};

typedef struct core_region_row {
    uint64_t file_ofs;
    char name[16];
    int64_t offset;
    int64_t next_offset;
    int64_t size;
    uint64_t core_data_bytes;
    uint8_t present;
    uint8_t inside;
} core_region_row;

static const gc_column region_cols[] = {
    GC_COL(core_region_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "offset of the region in decompressed core_data"),
    GC_COL(core_region_row, name, GC_T_STR, 0, "",
           "tfrags, occlusion, sky, collision, textures_base"),
    GC_COL(core_region_row, offset, GC_T_S64, GC_CF_HEX, "bytes in core_data",
           "region start as the decoder derived it from the core header"),
    GC_COL(core_region_row, next_offset, GC_T_S64, GC_CF_HEX, "bytes in core_data",
           "start of the next present region (last: core_data size)"),
    GC_COL(core_region_row, size, GC_T_S64, 0, "bytes", "next_offset - offset"),
    GC_COL(core_region_row, core_data_bytes, GC_T_U64, 0, "bytes",
           "decompressed core_data length (0 if not decompressed)"),
    GC_COL(core_region_row, present, GC_T_BOOL, 0, "", "offset non-zero (tfrags: always)"),
    GC_COL(core_region_row, inside, GC_T_BOOL, 0, "", "0 <= offset < core_data_bytes"),
};

static const gc_table_desc gc_table_core_region = {
    .name = "core.region",
    .doc = "Data-offset regions of decompressed core_data named by the core header, in file order.",
    .row_size = sizeof(core_region_row),
    .columns = region_cols,
    .column_count = GC_COUNTOF(region_cols),
};

typedef struct core_table_row {
    uint64_t file_ofs;
    char name[16];
    int64_t offset;
    int64_t count;
    uint32_t stride_bytes;
    int64_t end;
    uint64_t next_offset;
    uint8_t placed;
    uint8_t inside;
} core_table_row;

static const gc_column table_cols[] = {
    GC_COL(core_table_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the table (core_index + offset)"),
    GC_COL(core_table_row, name, GC_T_STR, 0, "",
           "moby_classes .. fx_textures, gs_ram (original file order)"),
    GC_COL(core_table_row, offset, GC_T_S64, GC_CF_HEX, "bytes in core_index", "ArrayRange +4"),
    GC_COL(core_table_row, count, GC_T_S64, 0, "count",
           "ArrayRange +0 (gs_ram: count + moby_gs_stash_count entries are stored)"),
    GC_COL(core_table_row, stride_bytes, GC_T_U32, 0, "bytes", "entry size"),
    GC_COL(core_table_row, end, GC_T_S64, GC_CF_HEX, "bytes in core_index",
           "offset + count * stride_bytes"),
    GC_COL(core_table_row, next_offset, GC_T_U64, GC_CF_HEX | GC_CF_NULL_IF_MAX,
           "bytes in core_index",
           "offset of the next placed table (gs_ram: part_defs); null if none"),
    GC_COL(core_table_row, placed, GC_T_BOOL, 0, "", "not (count == 0 and offset == 0)"),
    GC_COL(core_table_row, inside, GC_T_BOOL, 0, "", "[offset, end) lies inside core_index"),
};

static const gc_table_desc gc_table_core_table = {
    .name = "core.table",
    .doc = "The count/offset tables of core_index in their original file order.",
    .row_size = sizeof(core_table_row),
    .columns = table_cols,
    .column_count = GC_COUNTOF(table_cols),
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

typedef struct start_list {
    uint32_t *v;
    size_t n, cap;
} start_list;

static bool add_start(start_list *l, int64_t ofs)
{
    if (ofs <= 0 || ofs > (int64_t)UINT32_MAX)
        return true;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        uint32_t *p = realloc(l->v, cap * sizeof *p);
        if (!p)
            return false;
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = (uint32_t)ofs;
    return true;
}

/* Class offsets of one class table (offset_in_asset_wad at entry +0x00). */
static bool add_class_starts(start_list *l, const gc_span *ci, gc_array_range t, uint32_t stride)
{
    if (t.count <= 0 || t.offset < 0)
        return true;
    size_t len;
    if (!gc_size_mul((size_t)t.count, stride, &len) ||
        !gc_range_ok((size_t)t.offset, len, ci->size))
        return true; /* out of place: the class decoder reports it */
    for (int32_t i = 0; i < t.count; i++)
        if (!add_start(l, (int32_t)gc_load_u32le(ci->data + (size_t)t.offset + (size_t)i * stride)))
            return false;
    return true;
}

static gc_status build_starts(gc_level *lv, gc_diag *diag)
{
    const gc_core_header *h = &lv->core;
    start_list c = {0};
    if (!add_class_starts(&c, &lv->core_index, h->moby_classes, MOBY_CLASS_STRIDE) ||
        !add_class_starts(&c, &lv->core_index, h->tie_classes, TIE_CLASS_STRIDE) ||
        !add_class_starts(&c, &lv->core_index, h->shrub_classes, SHRUB_CLASS_STRIDE)) {
        free(c.v);
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for the class offset list");
    }
    if (c.n)
        qsort(c.v, c.n, sizeof *c.v, cmp_u32);
    free(lv->class_offsets);
    lv->class_offsets = c.v;
    lv->class_offset_count = c.n;

    start_list l = {0};
    bool ok = add_start(&l, h->tfrags) && add_start(&l, h->occlusion) && add_start(&l, h->sky) &&
              add_start(&l, h->collision) && add_start(&l, h->textures_base) &&
              add_start(&l, h->part_bank) && add_start(&l, h->fx_bank) &&
              add_start(&l, h->assets_decompressed_size) && add_start(&l, h->moby_sound_remap) &&
              add_class_starts(&l, &lv->core_index, h->moby_classes, MOBY_CLASS_STRIDE) &&
              add_class_starts(&l, &lv->core_index, h->tie_classes, TIE_CLASS_STRIDE) &&
              add_class_starts(&l, &lv->core_index, h->shrub_classes, SHRUB_CLASS_STRIDE);
    if (ok && h->ratchet_seqs > 0 &&
        gc_range_ok((size_t)h->ratchet_seqs, RATCHET_SEQ_COUNT * 4u, lv->core_index.size))
        for (unsigned i = 0; ok && i < RATCHET_SEQ_COUNT; i++)
            ok = add_start(
                &l, (int32_t)gc_load_u32le(lv->core_index.data + (size_t)h->ratchet_seqs + 4u * i));
    if (!ok) {
        free(l.v);
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for the core_data start list");
    }
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_u32);
    size_t w = 0;
    for (size_t i = 0; i < l.n; i++)
        if (w == 0 || l.v[w - 1] != l.v[i])
            l.v[w++] = l.v[i];
    free(lv->core_starts);
    lv->core_starts = l.v;
    lv->core_start_count = w;
    return GC_OK;
}

static gc_status core_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->core_index.present)
        return GC_NEEDS(diag, "core_index from the data decoder");
    gc_diag_push(diag, "data/core_index/header");
    const gc_span *ci = &lv->core_index;
    if (ci->size < CORE_HEADER_BYTES)
        return gc_diag_set(diag, GC_E_TRUNCATED, ci->file_ofs + ci->size,
                           "core_index of %zu bytes is shorter than the 0xBC core header",
                           ci->size);
    gc_reader r = gc_reader_make(ci->data, ci->size, ci->file_ofs);
    int32_t w[CORE_HEADER_WORDS];
    for (unsigned i = 0; i < CORE_HEADER_WORDS; i++) {
        /* Historical bug: the three class tables taken as one word each
         * (words 6, 8, 10 are their counts), shifting every later field. */
        if (GC_FAULT(lv, class_one_word) && (i == 6 || i == 8 || i == 10)) {
            w[i] = 0;
            continue;
        }
        w[i] = gc_s32le(&r);
    }
    core_header_row *row = gc_rows_push(gc_level_rows(lv, &gc_table_core_header));
    if (!row)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for core.header");
    row->file_ofs = ci->file_ofs;
    {
        unsigned k = 0;
#define X(n, o, d) row->n = w[k++];
        CORE_FIELDS(X)
#undef X
    }
    gc_core_header *h = &lv->core;
    h->gs_ram = (gc_array_range){row->gs_ram_count, row->gs_ram_offset};
    h->tfrags = row->tfrags;
    h->occlusion = row->occlusion;
    h->sky = row->sky;
    h->collision = row->collision;
    h->moby_classes = (gc_array_range){row->moby_classes_count, row->moby_classes_offset};
    h->tie_classes = (gc_array_range){row->tie_classes_count, row->tie_classes_offset};
    h->shrub_classes = (gc_array_range){row->shrub_classes_count, row->shrub_classes_offset};
    h->tfrag_textures = (gc_array_range){row->tfrag_textures_count, row->tfrag_textures_offset};
    h->moby_textures = (gc_array_range){row->moby_textures_count, row->moby_textures_offset};
    h->tie_textures = (gc_array_range){row->tie_textures_count, row->tie_textures_offset};
    h->shrub_textures = (gc_array_range){row->shrub_textures_count, row->shrub_textures_offset};
    h->part_textures = (gc_array_range){row->part_textures_count, row->part_textures_offset};
    h->fx_textures = (gc_array_range){row->fx_textures_count, row->fx_textures_offset};
    h->textures_base = row->textures_base;
    h->part_bank = row->part_bank;
    h->fx_bank = row->fx_bank;
    h->part_defs = row->part_defs;
    h->sound_remap = row->sound_remap;
    h->unknown_74 = row->unknown_74;
    h->ratchet_seqs = row->ratchet_seqs;
    h->scene_view_size = row->scene_view_size;
    h->unknown_80 = row->unknown_80;
    h->moby_gs_stash_count = row->moby_gs_stash_count;
    h->assets_compressed_size = row->assets_compressed_size;
    h->assets_decompressed_size = row->assets_decompressed_size;
    h->chrome_map_texture = row->chrome_map_texture;
    h->chrome_map_palette = row->chrome_map_palette;
    h->glass_map_texture = row->glass_map_texture;
    h->glass_map_palette = row->glass_map_palette;
    h->unknown_a0 = row->unknown_a0;
    h->heightmap = row->heightmap;
    h->occlusion_oct = row->occlusion_oct;
    h->moby_gs_stash_list = row->moby_gs_stash_list;
    h->occlusion_rad = row->occlusion_rad;
    h->moby_sound_remap = row->moby_sound_remap;
    h->occlusion_rad2 = row->occlusion_rad2;
    if (GC_FAULT(lv, region_sizes)) {
        /* Historical bug: 0x0c/0x10/0x14 read as region sizes laid end to
         * end after the tfrag block, instead of as offsets. */
        int64_t occl = (int64_t)h->tfrags + h->occlusion;
        int64_t sky = occl + h->sky;
        int64_t coll = sky + h->collision;
        h->occlusion = (int32_t)occl;
        h->sky = (int32_t)(sky > INT32_MAX ? INT32_MAX : sky);
        h->collision = (int32_t)(coll > INT32_MAX ? INT32_MAX : coll);
    }
    gc_diag_pop(diag);

    /* core.region, in file order; next_offset skips absent regions. */
    const char *rnames[5] = {"tfrags", "occlusion", "sky", "collision", "textures_base"};
    int64_t rofs[5] = {h->tfrags, h->occlusion, h->sky, h->collision, h->textures_base};
    uint64_t cd = lv->data_ok ? lv->core_data_size : 0;
    gc_rowbuf *rrb = gc_level_rows(lv, &gc_table_core_region);
    for (unsigned i = 0; i < 5; i++) {
        core_region_row *rr = gc_rows_push(rrb);
        if (!rr)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for core.region");
        memcpy(rr->name, rnames[i], strlen(rnames[i]) + 1);
        rr->offset = rofs[i];
        rr->file_ofs = rofs[i] > 0 ? (uint64_t)rofs[i] : 0;
        rr->present = i == 0 || rofs[i] != 0;
        rr->next_offset = (int64_t)cd;
        for (unsigned j = i + 1; j < 5; j++)
            if (rofs[j] != 0) {
                rr->next_offset = rofs[j];
                break;
            }
        rr->size = rr->next_offset - rr->offset;
        rr->core_data_bytes = cd;
        rr->inside = rofs[i] >= 0 && (uint64_t)rofs[i] < cd;
    }

    /* core.table, original order inside core_index (docs/level_core.md). */
    struct {
        const char *name;
        gc_array_range t;
        uint32_t stride;
    } tabs[10] = {
        {"moby_classes", h->moby_classes, MOBY_CLASS_STRIDE},
        {"tie_classes", h->tie_classes, TIE_CLASS_STRIDE},
        {"shrub_classes", h->shrub_classes, SHRUB_CLASS_STRIDE},
        {"tfrag_textures", h->tfrag_textures, TEXTURE_ENTRY_STRIDE},
        {"moby_textures", h->moby_textures, TEXTURE_ENTRY_STRIDE},
        {"tie_textures", h->tie_textures, TEXTURE_ENTRY_STRIDE},
        {"shrub_textures", h->shrub_textures, TEXTURE_ENTRY_STRIDE},
        {"part_textures", h->part_textures, TEXTURE_ENTRY_STRIDE},
        {"fx_textures", h->fx_textures, TEXTURE_ENTRY_STRIDE},
        {"gs_ram", {h->gs_ram.count, h->gs_ram.offset}, GS_RAM_ENTRY_STRIDE},
    };
    /* The GS RAM table stores count + moby_gs_stash_count entries (§3.3). */
    if (h->moby_gs_stash_count > 0)
        tabs[9].t.count = (int32_t)((int64_t)tabs[9].t.count + h->moby_gs_stash_count > INT32_MAX
                                        ? INT32_MAX
                                        : tabs[9].t.count + h->moby_gs_stash_count);
    gc_rowbuf *trb = gc_level_rows(lv, &gc_table_core_table);
    for (unsigned i = 0; i < 10; i++) {
        core_table_row *tr = gc_rows_push(trb);
        if (!tr)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for core.table");
        memcpy(tr->name, tabs[i].name, strlen(tabs[i].name) + 1);
        tr->offset = tabs[i].t.offset;
        tr->count = tabs[i].t.count;
        tr->stride_bytes = tabs[i].stride;
        tr->end = tr->offset + tr->count * (int64_t)tr->stride_bytes;
        tr->file_ofs = ci->file_ofs + (tr->offset > 0 ? (uint64_t)tr->offset : 0);
        tr->placed = !(tr->count == 0 && tr->offset == 0);
        tr->inside = tr->offset >= 0 && tr->count >= 0 && (uint64_t)tr->end <= ci->size;
        tr->next_offset = NO_VALUE;
        for (unsigned j = i + 1; j < 10; j++)
            if (!(tabs[j].t.count == 0 && tabs[j].t.offset == 0)) {
                tr->next_offset = tabs[j].t.offset >= 0 ? (uint64_t)tabs[j].t.offset : NO_VALUE;
                break;
            }
        if (i == 9 && h->part_defs > 0)
            tr->next_offset = (uint64_t)h->part_defs;
    }

    gc_status s = build_starts(lv, diag);
    if (s != GC_OK)
        return s;
    lv->core_ok = true;
    return GC_OK;
}

static void core_release(gc_level *lv)
{
    free(lv->core_starts);
    lv->core_starts = NULL;
    lv->core_start_count = 0;
    free(lv->class_offsets);
    lv->class_offsets = NULL;
    lv->class_offset_count = 0;
}

static const gc_table_desc *const core_tables[] = {&gc_table_core_header, &gc_table_core_region,
                                                   &gc_table_core_table};

const gc_decoder gc_dec_core = {
    .name = "core",
    .doc = "0xBC level core header: region offsets, table ranges, known core_data starts",
    .tables = core_tables,
    .table_count = GC_COUNTOF(core_tables),
    .run = core_run,
    .release = core_release,
};
