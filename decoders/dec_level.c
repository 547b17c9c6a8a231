/* SPDX-License-Identifier: MIT */
/* The level decoder: the 0x60-byte LEVEL<n>.WAD container header
 * (formats.md §2.1) and its sector-unit extents, published as level.header
 * and level.extent, and handed to later decoders as gc_level spans.
 *
 * Extents are declared in SECTORS (0x800 bytes). The reference project's
 * first defect read them as bytes; every conversion here goes through
 * gc_sectors_to_bytes(), and each extent row carries `contents_bytes`, the
 * size its own contents declare, so an invariant can compare the two. */
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define LEVEL_HEADER_BYTES       0x60u /* retail R&C2 (and UYA) header */
#define LEVEL_HEADER_OTHER_BUILD 0x68u /* other R&C2 builds: different layout */
#define DATA_HEADER_BYTES        0x58u /* GcUyaLevelDataHeader, formats.md §3.1 */
#define DATA_HEADER_RANGES                                                                         \
    11u /* overlay, core_index, gs_ram, hud_header, hud_banks[5], core_data, transition */
#define OCCL_MAP_HEADER_BYTES 16u /* {tfrag_count, tie_count, moby_count, pad} */
#define OCCL_MAP_ENTRY_BYTES  8u  /* {bit_index, occlusion_id} */
#define CHUNK_HEADER_BYTES    8u  /* {tfrags_ofs, collision_ofs} */
#define NO_VALUE              UINT64_MAX

typedef struct level_header_row {
    uint64_t file_ofs;
    int32_t header_size;
    int32_t disc_sector;
    int32_t level_id;
    int32_t reverb;
    int32_t container;
    uint64_t file_size;
    uint64_t file_size_sectors;
    uint64_t header_end_bytes;
} level_header_row;

static const gc_column header_cols[] = {
    GC_COL(level_header_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the header (0)"),
    GC_COL(level_header_row, header_size, GC_T_S32, GC_CF_HEX, "bytes",
           "0x00: header size (0x60 retail)"),
    GC_COL(level_header_row, disc_sector, GC_T_S32, 0, "sectors",
           "0x04: absolute LBA of the file on the disc"),
    GC_COL(level_header_row, level_id, GC_T_S32, 0, "",
           "0x08: level id (not the container number)"),
    GC_COL(level_header_row, reverb, GC_T_S32, 0, "", "0x0c: reverb setting"),
    GC_COL(level_header_row, container, GC_T_S32, 0, "", "container number n of LEVEL<n>.WAD"),
    GC_COL(level_header_row, file_size, GC_T_U64, 0, "bytes", "size of the container file"),
    GC_COL(level_header_row, file_size_sectors, GC_T_U64, 0, "sectors",
           "file size rounded up to whole sectors"),
    GC_COL(level_header_row, header_end_bytes, GC_T_U64, GC_CF_HEX, "bytes",
           "header_size rounded up to a sector: where the first extent must start"),
};

static const gc_table_desc gc_table_level_header = {
    .name = "level.header",
    .doc = "The 0x60-byte container header, one row per level.",
    .row_size = sizeof(level_header_row),
    .columns = header_cols,
    .column_count = GC_COUNTOF(header_cols),
};

typedef struct level_extent_row {
    uint64_t file_ofs;
    uint32_t header_row;
    uint32_t slot;
    char name[16];
    int64_t offset_sectors;
    int64_t size_sectors;
    uint64_t offset_bytes;
    uint64_t size_bytes;
    uint64_t end_bytes;
    uint8_t declared;
    uint8_t inside_file;
    uint8_t present;
    uint64_t contents_bytes;
} level_extent_row;

static const gc_column extent_cols[] = {
    GC_COL(level_extent_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the extent's SectorRange in the header (0x10 + 8*slot)"),
    GC_COL(level_extent_row, header_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "parent level.header row"),
    GC_COL(level_extent_row, slot, GC_T_U32, 0, "", "position of the range in the header (0..9)"),
    GC_COL(level_extent_row, name, GC_T_STR, 0, "",
           "data, sound_bank, gameplay, occlusion, chunk0..2, chunk_bank0..2"),
    GC_COL(level_extent_row, offset_sectors, GC_T_S64, 0, "sectors",
           "SectorRange +0: offset from file start"),
    GC_COL(level_extent_row, size_sectors, GC_T_S64, 0, "sectors", "SectorRange +4: size"),
    GC_COL(level_extent_row, offset_bytes, GC_T_U64, GC_CF_HEX, "bytes", "offset_sectors * 0x800"),
    GC_COL(level_extent_row, size_bytes, GC_T_U64, 0, "bytes", "size_sectors * 0x800"),
    GC_COL(level_extent_row, end_bytes, GC_T_U64, GC_CF_HEX, "bytes", "offset_bytes + size_bytes"),
    GC_COL(level_extent_row, declared, GC_T_BOOL, 0, "", "size_sectors > 0"),
    GC_COL(level_extent_row, inside_file, GC_T_BOOL, 0, "", "the byte range lies inside the file"),
    GC_COL(level_extent_row, present, GC_T_BOOL, 0, "", "declared and inside the file"),
    GC_COL(level_extent_row, contents_bytes, GC_T_U64, GC_CF_NULL_IF_MAX, "bytes",
           "size the contents declare (data: highest 0x58-header range end; sound_bank: +0x04 "
           "total size; gameplay: LZ length; occlusion: mapping size; chunk: highest blob end); "
           "null if unknown"),
};

static const gc_table_desc gc_table_level_extent = {
    .name = "level.extent",
    .doc = "One row per container extent, declared ones in file order, then undeclared ones.",
    .row_size = sizeof(level_extent_row),
    .columns = extent_cols,
    .column_count = GC_COUNTOF(extent_cols),
    .parent_table = "level.header",
    .parent_link = "header",
    .parent_column = "header_row",
};

static const char *const extent_names[10] = {
    "data",   "sound_bank", "gameplay",    "occlusion",   "chunk0",
    "chunk1", "chunk2",     "chunk_bank0", "chunk_bank1", "chunk_bank2",
};

/* Highest end of the data extent header's byte ranges ({-1, 0} = absent). */
static uint64_t data_contents(gc_reader r)
{
    if (gc_left(&r) < DATA_HEADER_BYTES)
        return NO_VALUE;
    uint64_t hi = 0;
    for (unsigned i = 0; i < DATA_HEADER_RANGES; i++) {
        int32_t ofs = gc_s32le(&r);  /* ByteRange +0 */
        int32_t size = gc_s32le(&r); /* ByteRange +4 */
        if (ofs < 0 || size <= 0)
            continue;
        uint64_t end = (uint64_t)ofs + (uint64_t)size;
        if (end > hi)
            hi = end;
    }
    return hi;
}

/* A WAD-LZ stream's own total size (its s32 at byte 3), or NO_VALUE. */
static uint64_t lz_contents(const uint8_t *p, size_t size)
{
    if (size < 7 || memcmp(p, "WAD", 3) != 0)
        return NO_VALUE;
    int32_t n = (int32_t)gc_load_u32le(p + 3);
    return n < 0 ? NO_VALUE : (uint64_t)n;
}

/* The 989snd bank's total size at +0x04, trusted only when the "SBlk"
 * signature at +0x18 says this is a bank (docs/formats/sound-bank.md). */
static uint64_t sound_bank_contents(const uint8_t *p, size_t size)
{
    if (size < 0x1C || memcmp(p + 0x18, "SBlk", 4) != 0)
        return NO_VALUE;
    return gc_load_u32le(p + 4);
}

static uint64_t occlusion_contents(gc_reader r)
{
    if (gc_left(&r) < OCCL_MAP_HEADER_BYTES)
        return NO_VALUE;
    int64_t t = gc_s32le(&r), ti = gc_s32le(&r), m = gc_s32le(&r);
    if (t < 0 || ti < 0 || m < 0)
        return NO_VALUE;
    return OCCL_MAP_HEADER_BYTES + (uint64_t)(t + ti + m) * OCCL_MAP_ENTRY_BYTES;
}

static uint64_t chunk_contents(gc_reader r)
{
    if (gc_left(&r) < CHUNK_HEADER_BYTES)
        return NO_VALUE;
    uint64_t hi = CHUNK_HEADER_BYTES;
    for (int i = 0; i < 2; i++) {
        int32_t ofs = gc_s32le(&r); /* +0 tfrags_ofs, +4 collision_ofs */
        if (ofs <= 0 || (size_t)ofs >= r.size)
            continue;
        uint64_t n = lz_contents(r.data + ofs, r.size - (size_t)ofs);
        if (n != NO_VALUE && (uint64_t)ofs + n > hi)
            hi = (uint64_t)ofs + n;
    }
    return hi;
}

static gc_span *extent_span(gc_level *lv, unsigned slot)
{
    switch (slot) {
    case 0:
        return &lv->data_extent;
    case 1:
        return &lv->sound_bank;
    case 2:
        return &lv->gameplay_z;
    case 3:
        return &lv->occlusion_ext;
    default:
        return slot < 7 ? &lv->chunks[slot - 4] : &lv->chunk_banks[slot - 7];
    }
}

static gc_status level_run(gc_level *lv, gc_diag *diag)
{
    gc_diag_push(diag, "header");
    gc_reader r = gc_reader_make(lv->file, lv->file_size, 0);
    gc_container_header *h = &lv->hdr;
    memset(h, 0, sizeof *h);
    h->header_size = gc_s32le(&r); /* 0x00 */
    if (r.overrun || lv->file_size < LEVEL_HEADER_BYTES)
        return gc_diag_set(diag, GC_E_TRUNCATED, 0,
                           "file of %zu bytes is shorter than the 0x60-byte level header",
                           lv->file_size);
    h->disc_sector = gc_s32le(&r); /* 0x04 */
    h->level_id = gc_s32le(&r);    /* 0x08 */
    h->reverb = gc_s32le(&r);      /* 0x0c */
    gc_sector_range *ranges[10] = {
        &h->data,      &h->sound_bank, &h->gameplay,       &h->occlusion,      &h->chunks[0],
        &h->chunks[1], &h->chunks[2],  &h->chunk_banks[0], &h->chunk_banks[1], &h->chunk_banks[2]};
    for (unsigned i = 0; i < 10; i++) { /* 0x10 + 8*i: {offset_sectors, size_sectors} */
        ranges[i]->offset_sectors = gc_s32le(&r);
        ranges[i]->size_sectors = gc_s32le(&r);
    }

    level_header_row *hr = gc_rows_push(gc_level_rows(lv, &gc_table_level_header));
    if (!hr)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for level.header");
    hr->header_size = h->header_size;
    hr->disc_sector = h->disc_sector;
    hr->level_id = h->level_id;
    hr->reverb = h->reverb;
    hr->container = lv->index;
    hr->file_size = lv->file_size;
    hr->file_size_sectors = (lv->file_size + GC_SECTOR_BYTES - 1) / GC_SECTOR_BYTES;
    hr->header_end_bytes =
        h->header_size > 0 ? gc_sectors_to_bytes(((uint64_t)h->header_size + GC_SECTOR_BYTES - 1) /
                                                 GC_SECTOR_BYTES)
                           : 0;

    if ((uint32_t)h->header_size == LEVEL_HEADER_OTHER_BUILD)
        return gc_diag_set(diag, GC_E_UNSUPPORTED, 0,
                           "0x68-byte header of a non-retail build (formats.md §2.3)");
    if ((uint32_t)h->header_size != LEVEL_HEADER_BYTES)
        return gc_diag_set(diag, GC_E_MAGIC, 0, "header_size 0x%x is not a level header (0x60)",
                           (unsigned)h->header_size);
    gc_diag_pop(diag);

    /* Extents: declared ones sorted by offset (file order), then the rest. */
    level_extent_row rows[10];
    memset(rows, 0, sizeof rows);
    for (unsigned i = 0; i < 10; i++) {
        level_extent_row *e = &rows[i];
        e->file_ofs = 0x10 + 8u * i;
        e->header_row = 0;
        e->slot = i;
        memcpy(e->name, extent_names[i], strlen(extent_names[i]) + 1);
        e->offset_sectors = ranges[i]->offset_sectors;
        e->size_sectors = ranges[i]->size_sectors;
        e->declared = e->size_sectors > 0;
        uint64_t ofs_s = e->offset_sectors > 0 ? (uint64_t)e->offset_sectors : 0;
        uint64_t size_s = e->size_sectors > 0 ? (uint64_t)e->size_sectors : 0;
        e->offset_bytes = gc_sectors_to_bytes(ofs_s);
        e->size_bytes = gc_sectors_to_bytes(size_s);
        if (GC_FAULT(lv, extent_bytes))
            e->size_bytes = size_s; /* historical bug: the sector count taken as bytes */
        e->end_bytes = e->offset_bytes + e->size_bytes;
        e->inside_file = e->offset_sectors >= 0 && e->end_bytes <= lv->file_size;
        e->present = e->declared && e->inside_file;
        e->contents_bytes = NO_VALUE;
        gc_span *sp = extent_span(lv, i);
        memset(sp, 0, sizeof *sp);
        sp->file_ofs = e->offset_bytes;
        if (e->present) {
            sp->data = lv->file + e->offset_bytes;
            sp->size = (size_t)e->size_bytes;
            sp->present = true;
            gc_reader w = gc_reader_make(sp->data, sp->size, sp->file_ofs);
            if (i == 0)
                e->contents_bytes = data_contents(w);
            else if (i == 1)
                e->contents_bytes = sound_bank_contents(sp->data, sp->size);
            else if (i == 2)
                e->contents_bytes = lz_contents(sp->data, sp->size);
            else if (i == 3)
                e->contents_bytes = occlusion_contents(w);
            else if (i >= 4 && i < 7)
                e->contents_bytes = chunk_contents(w);
        }
    }
    /* Stable insertion sort: declared before undeclared, then by offset. */
    for (unsigned i = 1; i < 10; i++) {
        level_extent_row key = rows[i];
        unsigned j = i;
        while (j > 0) {
            const level_extent_row *p = &rows[j - 1];
            bool after = (!p->declared && key.declared) ||
                         (p->declared && key.declared && p->offset_bytes > key.offset_bytes);
            if (!after)
                break;
            rows[j] = rows[j - 1];
            j--;
        }
        rows[j] = key;
    }
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_level_extent);
    for (unsigned i = 0; i < 10; i++) {
        level_extent_row *e = gc_rows_push(rb);
        if (!e)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for level.extent");
        *e = rows[i];
    }
    lv->header_ok = true;
    /* The header is fine and every extent inside the file is handed on, but
     * a file shorter than what its header declares is a truncated container:
     * reported once, for the first such extent in header order. */
    for (unsigned i = 0; i < 10; i++) {
        const gc_sector_range *x = ranges[i];
        if (x->size_sectors <= 0)
            continue;
        if (x->offset_sectors < 0)
            return gc_diag_set(diag, GC_E_RANGE, 0x10 + 8u * i, "%s extent at negative sector %d",
                               extent_names[i], (int)x->offset_sectors);
        const gc_span *sp = extent_span(lv, i);
        if (!sp->present) {
            gc_diag_push(diag, "%s", extent_names[i]);
            return gc_diag_set(diag, GC_E_TRUNCATED, lv->file_size,
                               "%s extent (sectors %d + %d) ends past the end of the %zu-byte file",
                               extent_names[i], (int)x->offset_sectors, (int)x->size_sectors,
                               lv->file_size);
        }
    }
    return GC_OK;
}

static const gc_table_desc *const level_tables[] = {&gc_table_level_header, &gc_table_level_extent};

const gc_decoder gc_dec_level = {
    .name = "level",
    .doc = "LEVEL<n>.WAD container header and its sector-unit extents",
    .tables = level_tables,
    .table_count = GC_COUNTOF(level_tables),
    .run = level_run,
    .release = NULL,
};
