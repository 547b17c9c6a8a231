/* SPDX-License-Identifier: MIT */
/* The occlusion decoder: the occlusion MAPPINGS in the container's occlusion
 * extent (uncompressed, formats.md §8.6) and the occlusion GRID in
 * decompressed core_data at the core header's `occlusion` offset (§8.5),
 * published as occlusion.mapping and occlusion.grid.
 *
 * Grid node offsets are in 4-byte units from the block start. masks_offset
 * is read in BYTES by Wrench (src/engine/occlusion.cpp, read_occlusion_grid
 * and write_occlusion_grid) and was read in 4-byte words here before, from
 * formats.md's restatement that lists it under the node-offset rule; the
 * seed's notes report only the raw level-0 value (5152), not its unit. So
 * both readings are tried: a reading fits when its masks start at or after
 * the end of the last node and every mask index names a 128-byte mask inside
 * the block. When both fit, the one whose masks start closer after the tree
 * wins (a writer puts them right after it; Wrench pads to 16 bytes), which is
 * always the byte reading. The row publishes the unit it chose
 * (docs/formats/core-data.md). */
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define OCCL_MAP_HEADER_BYTES  16u
#define OCCL_MAP_ENTRY_BYTES   8u
#define OCCL_UNIT_BYTES        4u /* grid node offsets count 4-byte words */
#define OCCL_MASKS_UNIT_WRENCH 1u /* masks_offset in bytes (Wrench) */
#define OCCL_MASKS_UNIT_WORDS  4u /* masks_offset in 4-byte words (formats.md §8.5 as restated) */
#define OCCL_MASK_BYTES        128u
#define OCCL_NO_MASK           0xFFFFu

typedef struct occl_mapping_row {
    uint64_t file_ofs;
    int32_t tfrag_count;
    int32_t tie_count;
    int32_t moby_count;
    uint64_t extent_bytes;
    uint64_t size_bytes;
} occl_mapping_row;

static const gc_column map_cols[] = {
    GC_COL(occl_mapping_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the occlusion extent"),
    GC_COL(occl_mapping_row, tfrag_count, GC_T_S32, 0, "count", "+0x00: tfrag mappings"),
    GC_COL(occl_mapping_row, tie_count, GC_T_S32, 0, "count", "+0x04: tie instance mappings"),
    GC_COL(occl_mapping_row, moby_count, GC_T_S32, 0, "count", "+0x08: moby mappings"),
    GC_COL(occl_mapping_row, extent_bytes, GC_T_U64, 0, "bytes", "size of the occlusion extent"),
    GC_COL(occl_mapping_row, size_bytes, GC_T_U64, 0, "bytes", "16 + 8 * (tfrag + tie + moby)"),
};

static const gc_table_desc gc_table_occl_mapping = {
    .name = "occlusion.mapping",
    .doc = "Header of the occlusion mappings in the container's occlusion extent (one row).",
    .row_size = sizeof(occl_mapping_row),
    .columns = map_cols,
    .column_count = GC_COUNTOF(map_cols),
};

typedef struct occl_grid_row {
    uint64_t file_ofs;
    uint64_t region_bytes;
    int32_t masks_offset;
    uint32_t masks_unit_bytes;
    uint64_t masks_at_bytes;
    uint64_t tree_end_bytes;
    uint8_t masks_fit;
    uint16_t z_coord;
    uint16_t z_count;
    uint32_t z_nodes;
    uint32_t y_nodes;
    uint32_t x_cells;
    uint32_t max_mask_index;
    uint64_t mask_capacity;
} occl_grid_row;

static const gc_column grid_cols[] = {
    GC_COL(occl_grid_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "offset of the grid block"),
    GC_COL(occl_grid_row, region_bytes, GC_T_U64, 0, "bytes",
           "block size, to the next known start"),
    GC_COL(occl_grid_row, masks_offset, GC_T_S32, 0, "x masks_unit_bytes",
           "root +0x00: mask array offset as stored"),
    GC_COL(occl_grid_row, masks_unit_bytes, GC_T_U32, 0, "bytes",
           "unit the file uses for masks_offset: 1 (bytes, Wrench) or 4 (words); the reading "
           "that fits, bytes when both do, 1 when neither does"),
    GC_COL(occl_grid_row, masks_at_bytes, GC_T_U64, GC_CF_HEX, "bytes",
           "masks_offset * masks_unit_bytes: where the masks start, from the block start"),
    GC_COL(occl_grid_row, tree_end_bytes, GC_T_U64, GC_CF_HEX, "bytes",
           "end of the last node (root, z or y), from the block start"),
    GC_COL(occl_grid_row, masks_fit, GC_T_BOOL, 0, "",
           "in the chosen unit the masks start at or after tree_end_bytes and every mask index "
           "names a mask inside the block"),
    GC_COL(occl_grid_row, z_coord, GC_T_U16, 0, "octants", "root +0x04"),
    GC_COL(occl_grid_row, z_count, GC_T_U16, 0, "count", "root +0x06"),
    GC_COL(occl_grid_row, z_nodes, GC_T_U32, 0, "count", "non-empty z offsets"),
    GC_COL(occl_grid_row, y_nodes, GC_T_U32, 0, "count", "non-empty y offsets over all z nodes"),
    GC_COL(occl_grid_row, x_cells, GC_T_U32, 0, "count", "mask indices other than 0xffff"),
    GC_COL(occl_grid_row, max_mask_index, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "largest mask index; null if none"),
    GC_COL(occl_grid_row, mask_capacity, GC_T_U64, 0, "count",
           "128-byte masks that fit between masks_at_bytes and the block end"),
};

static const gc_table_desc gc_table_occl_grid = {
    .name = "occlusion.grid",
    .doc = "The z/y/x occlusion octant grid in core_data (one row).",
    .row_size = sizeof(occl_grid_row),
    .columns = grid_cols,
    .column_count = GC_COUNTOF(grid_cols),
};

static gc_status decode_mapping(gc_level *lv, gc_diag *diag)
{
    const gc_span *ext = &lv->occlusion_ext;
    gc_diag_push(diag, "occlusion");
    if (ext->size < OCCL_MAP_HEADER_BYTES)
        return gc_diag_set(diag, GC_E_TRUNCATED, ext->file_ofs + ext->size,
                           "occlusion extent of %zu bytes is shorter than its 16-byte header",
                           ext->size);
    gc_reader r = gc_reader_make(ext->data, ext->size, ext->file_ofs);
    occl_mapping_row m;
    memset(&m, 0, sizeof m);
    m.file_ofs = ext->file_ofs;
    m.tfrag_count = gc_s32le(&r); /* +0x00 */
    m.tie_count = gc_s32le(&r);   /* +0x04 */
    m.moby_count = gc_s32le(&r);  /* +0x08 */
    m.extent_bytes = ext->size;
    if (m.tfrag_count < 0 || m.tie_count < 0 || m.moby_count < 0)
        return gc_diag_set(diag, GC_E_RANGE, ext->file_ofs, "negative mapping count (%d, %d, %d)",
                           (int)m.tfrag_count, (int)m.tie_count, (int)m.moby_count);
    m.size_bytes = OCCL_MAP_HEADER_BYTES +
                   OCCL_MAP_ENTRY_BYTES *
                       ((uint64_t)m.tfrag_count + (uint64_t)m.tie_count + (uint64_t)m.moby_count);
    if (m.size_bytes > ext->size)
        return gc_diag_set(diag, GC_E_TRUNCATED, ext->file_ofs,
                           "%llu bytes of mappings declared in a %zu-byte extent",
                           (unsigned long long)m.size_bytes, ext->size);
    occl_mapping_row *out = gc_rows_push(gc_level_rows(lv, &gc_table_occl_mapping));
    if (!out)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for occlusion.mapping");
    *out = m;
    gc_diag_pop(diag);
    return GC_OK;
}

/* A node {u16 coord, u16 count, u16 entries[count]} at word offset `words`. */
static gc_status read_node(gc_diag *diag, gc_reader *blk, uint32_t words, gc_reader *entries,
                           uint16_t *count, uint64_t *tree_end)
{
    uint64_t at = (uint64_t)words * OCCL_UNIT_BYTES;
    if (at + 4 > blk->size)
        return gc_diag_set(diag, GC_E_RANGE, blk->file_ofs + at,
                           "node at word 0x%x lies outside the %zu-byte grid block",
                           (unsigned)words, blk->size);
    gc_reader n = gc_window(blk, (size_t)at, 4);
    gc_u16le(&n);          /* +0x00 coord */
    *count = gc_u16le(&n); /* +0x02 count */
    if (at + 4 + 2u * *count > blk->size)
        return gc_diag_set(diag, GC_E_TRUNCATED, blk->file_ofs + at,
                           "node of %u entries runs past the grid block", (unsigned)*count);
    *entries = gc_window(blk, (size_t)at + 4, 2u * *count);
    if (at + 4 + 2u * *count > *tree_end)
        *tree_end = at + 4 + 2u * *count;
    return GC_OK;
}

/* Whether masks_offset read in `unit` bytes puts the masks after every node and every mask
 * index inside the block. */
static int masks_fit(const occl_grid_row *g, uint32_t unit, uint64_t block_bytes)
{
    if (g->masks_offset < 0)
        return 0;
    uint64_t at = (uint64_t)g->masks_offset * unit;
    uint64_t used = g->max_mask_index == UINT32_MAX ? 0 : (uint64_t)g->max_mask_index + 1;
    return at >= g->tree_end_bytes && at <= block_bytes &&
           used <= (block_bytes - at) / OCCL_MASK_BYTES;
}

static gc_status decode_grid(gc_level *lv, gc_diag *diag)
{
    uint64_t ofs = (uint32_t)lv->core.occlusion;
    gc_diag_push(diag, "core_data/occlusion@0x%llx", (unsigned long long)ofs);
    if (ofs >= lv->core_data_size)
        return gc_diag_set(diag, GC_E_RANGE, ofs,
                           "occlusion offset 0x%llx is outside the %zu-byte core_data",
                           (unsigned long long)ofs, lv->core_data_size);
    uint64_t end = gc_core_next_start(lv, ofs, lv->core_data_size);
    if (end > lv->core_data_size)
        end = lv->core_data_size;
    gc_reader blk = gc_reader_make(lv->core_data + ofs, (size_t)(end - ofs), ofs);
    occl_grid_row g;
    memset(&g, 0, sizeof g);
    g.file_ofs = ofs;
    g.region_bytes = end - ofs;
    g.max_mask_index = UINT32_MAX;
    g.masks_offset = gc_s32le(&blk); /* +0x00 */
    g.z_coord = gc_u16le(&blk);      /* +0x04 */
    g.z_count = gc_u16le(&blk);      /* +0x06 */
    if (blk.overrun || 8u + 2u * g.z_count > blk.size)
        return gc_diag_set(diag, GC_E_TRUNCATED, ofs,
                           "grid root of %u z entries runs past the block", (unsigned)g.z_count);
    g.tree_end_bytes = 8u + 2u * (uint64_t)g.z_count;
    gc_reader zs = gc_window(&blk, 8, 2u * g.z_count);
    /* In a well-formed grid every node is visited once, so the entries read
     * cannot exceed the block's halfwords; nodes shared beyond that would
     * make a small hostile block cost billions of reads. */
    uint64_t budget = blk.size / 2u + 16u;
    for (unsigned z = 0; z < g.z_count; z++) {
        uint16_t zo = gc_u16le(&zs);
        if (zo == 0)
            continue;
        g.z_nodes++;
        gc_diag_push(diag, "z[%u]", z);
        gc_reader ys;
        uint16_t yc = 0;
        gc_status s = read_node(diag, &blk, zo, &ys, &yc, &g.tree_end_bytes);
        if (s != GC_OK)
            return s;
        if (yc > budget)
            return gc_diag_set(diag, GC_E_CORRUPT, ofs + 4u * zo,
                               "grid nodes are shared beyond the block size");
        budget -= yc;
        for (unsigned y = 0; y < yc; y++) {
            uint16_t yo = gc_u16le(&ys);
            if (yo == 0)
                continue;
            g.y_nodes++;
            gc_diag_push(diag, "y[%u]", y);
            gc_reader xs;
            uint16_t xc = 0;
            s = read_node(diag, &blk, yo, &xs, &xc, &g.tree_end_bytes);
            if (s != GC_OK)
                return s;
            if (xc > budget)
                return gc_diag_set(diag, GC_E_CORRUPT, ofs + 4u * yo,
                                   "grid nodes are shared beyond the block size");
            budget -= xc;
            for (unsigned x = 0; x < xc; x++) {
                uint16_t mi = gc_u16le(&xs);
                if (mi == OCCL_NO_MASK)
                    continue;
                g.x_cells++;
                if (g.max_mask_index == UINT32_MAX || mi > g.max_mask_index)
                    g.max_mask_index = mi;
            }
            gc_diag_pop(diag);
        }
        gc_diag_pop(diag);
    }
    /* masks_offset: bytes (Wrench) or 4-byte words; see the comment at the top */
    int fit_b = masks_fit(&g, OCCL_MASKS_UNIT_WRENCH, blk.size);
    int fit_w = masks_fit(&g, OCCL_MASKS_UNIT_WORDS, blk.size);
    g.masks_unit_bytes = fit_w && !fit_b ? OCCL_MASKS_UNIT_WORDS : OCCL_MASKS_UNIT_WRENCH;
    if (GC_FAULT(lv, masks_offset_words))
        g.masks_unit_bytes = OCCL_MASKS_UNIT_WORDS; /* historical: always words */
    g.masks_fit = (uint8_t)masks_fit(&g, g.masks_unit_bytes, blk.size);
    g.masks_at_bytes = g.masks_offset > 0 ? (uint64_t)g.masks_offset * g.masks_unit_bytes : 0;
    g.mask_capacity =
        g.masks_at_bytes < blk.size ? (blk.size - g.masks_at_bytes) / OCCL_MASK_BYTES : 0;
    occl_grid_row *out = gc_rows_push(gc_level_rows(lv, &gc_table_occl_grid));
    if (!out)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for occlusion.grid");
    *out = g;
    gc_diag_pop(diag);
    return GC_OK;
}

static gc_status occlusion_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->header_ok)
        return GC_NEEDS(diag, "the level header");
    if (lv->occlusion_ext.present) {
        gc_status s = decode_mapping(lv, diag);
        if (s != GC_OK)
            return s;
    }
    if (!lv->core_ok || !lv->data_ok)
        return GC_NEEDS(diag, "the core header and decompressed core_data");
    if (lv->core.occlusion == 0)
        return GC_OK; /* "0 = none" */
    return decode_grid(lv, diag);
}

static const gc_table_desc *const occl_tables[] = {&gc_table_occl_mapping, &gc_table_occl_grid};

const gc_decoder gc_dec_occlusion = {
    .name = "occlusion",
    .doc = "occlusion mappings (container extent) and occlusion grid (core_data)",
    .tables = occl_tables,
    .table_count = GC_COUNTOF(occl_tables),
    .run = occlusion_run,
    .release = NULL,
};
