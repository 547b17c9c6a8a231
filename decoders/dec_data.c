/* SPDX-License-Identifier: MIT */
/* The data decoder: the 0x58-byte header at the start of the level's data
 * extent (formats.md §3.1, byte ranges relative to the extent), published as
 * data.range, and core_data decompressed into lv->core_data (data.core_data).
 *
 * The decompressed size comes from the level core header (core_index+0x8c,
 * formats.md §3.3): the WAD-LZ header holds none. This decoder reads the two
 * size words at 0x88/0x8c itself rather than waiting for the core decoder,
 * so the registry order level -> data -> core holds and the core decoder can
 * check its region offsets against the real decompressed length. The size is
 * checked against the stream's own length field and a sane bound before it
 * sizes the allocation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_bigmem.h"
#include "gc_level.h"
#include "gc_lz.h"
#include "gc_reader.h"

#define DATA_HEADER_BYTES            0x58u
#define CORE_HEADER_BYTES            0xBCu
#define CORE_OFS_ASSETS_COMPRESSED   0x88u
#define CORE_OFS_ASSETS_DECOMPRESSED 0x8Cu
/* Largest core_data. The decompressed size is also checked against the most
 * the stream's packets can produce (gc_lz_max_output, about 72:1; the retail
 * ratio is about 1.75:1): a 4 GB "decompressed size" in a 9 MB stream is an
 * error, not a malloc. */
#define CORE_DATA_MAX_BYTES (256u * 1024u * 1024u)
/* Output beyond the declared size is accepted (formats.md §1.5: Wrench's
 * encoder can emit up to 265 extra bytes) and shows up as a row value;
 * output short of it is a truncated stream. */
#define LZ_SLACK_BYTES 4096u

enum {
    R_OVERLAY,
    R_CORE_INDEX,
    R_GS_RAM,
    R_HUD_HEADER,
    R_HUD0,
    R_CORE_DATA = 9,
    R_TRANSITION,
    R_COUNT
};

static const char *const range_names[R_COUNT] = {
    "overlay",   "core_index", "gs_ram",    "hud_header", "hud_bank0",  "hud_bank1",
    "hud_bank2", "hud_bank3",  "hud_bank4", "core_data",  "transition",
};

typedef struct data_range_row {
    uint64_t file_ofs;
    uint32_t slot;
    char name[16];
    int64_t offset_bytes;
    int64_t size_bytes;
    int64_t end_bytes;
    uint64_t extent_size_bytes;
    uint8_t declared;
    uint8_t inside;
    uint8_t present;
} data_range_row;

static const gc_column range_cols[] = {
    GC_COL(data_range_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the ByteRange in the data header (extent + 8*slot)"),
    GC_COL(data_range_row, slot, GC_T_U32, 0, "", "position in the 0x58-byte header (0..10)"),
    GC_COL(data_range_row, name, GC_T_STR, 0, "",
           "overlay, core_index, gs_ram, hud_header, hud_bank0..4, core_data, transition"),
    GC_COL(data_range_row, offset_bytes, GC_T_S64, GC_CF_HEX, "bytes",
           "ByteRange +0: offset from the data extent start (-1 = absent)"),
    GC_COL(data_range_row, size_bytes, GC_T_S64, 0, "bytes", "ByteRange +4: size"),
    GC_COL(data_range_row, end_bytes, GC_T_S64, GC_CF_HEX, "bytes", "offset_bytes + size_bytes"),
    GC_COL(data_range_row, extent_size_bytes, GC_T_U64, 0, "bytes", "size of the data extent"),
    GC_COL(data_range_row, declared, GC_T_BOOL, 0, "", "offset >= 0 and size > 0"),
    GC_COL(data_range_row, inside, GC_T_BOOL, 0, "", "the range lies inside the data extent"),
    GC_COL(data_range_row, present, GC_T_BOOL, 0, "", "declared and inside"),
};

static const gc_table_desc gc_table_data_range = {
    .name = "data.range",
    .doc = "The byte ranges of the data extent's 0x58-byte header, in header order.",
    .row_size = sizeof(data_range_row),
    .columns = range_cols,
    .column_count = GC_COUNTOF(range_cols),
};

typedef struct data_core_data_row {
    uint64_t file_ofs;
    uint64_t range_size_bytes;
    int64_t lz_size_field;
    int64_t assets_compressed_size;
    int64_t assets_decompressed_size;
    uint64_t decompressed_bytes;
    uint8_t magic_ok;
    uint8_t decompressed;
} data_core_data_row;

static const gc_column core_data_cols[] = {
    GC_COL(data_core_data_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the WAD-LZ stream"),
    GC_COL(data_core_data_row, range_size_bytes, GC_T_U64, 0, "bytes",
           "size of the core_data ByteRange (stream plus padding)"),
    GC_COL(data_core_data_row, lz_size_field, GC_T_S64, 0, "bytes",
           "stream +3: the LZ header's total size, header included (-1 if unreadable)"),
    GC_COL(data_core_data_row, assets_compressed_size, GC_T_S64, 0, "bytes", "core_index +0x88"),
    GC_COL(data_core_data_row, assets_decompressed_size, GC_T_S64, 0, "bytes", "core_index +0x8c"),
    GC_COL(data_core_data_row, decompressed_bytes, GC_T_U64, 0, "bytes",
           "what the stream actually decompressed to (0 if it was not)"),
    GC_COL(data_core_data_row, magic_ok, GC_T_BOOL, 0, "", "the stream starts with \"WAD\""),
    GC_COL(data_core_data_row, decompressed, GC_T_BOOL, 0, "", "decompression succeeded"),
};

static const gc_table_desc gc_table_data_core_data = {
    .name = "data.core_data",
    .doc = "The core_data WAD-LZ stream against the sizes the core header declares (one row).",
    .row_size = sizeof(data_core_data_row),
    .columns = core_data_cols,
    .column_count = GC_COUNTOF(core_data_cols),
};

/* Largest output decoded for one of the data extent's other WAD-LZ items (HUD banks,
 * transition textures): a stream whose packets could produce more is not allocated for. */
#define LZ_ITEM_MAX_BYTES (64u * 1024u * 1024u)

typedef struct data_lz_row {
    uint64_t file_ofs;
    uint32_t slot;
    char name[16];
    uint64_t range_size_bytes;
    int64_t stream_bytes;
    uint64_t max_output_bytes;
    uint64_t decoded_bytes;
    uint8_t decodes;
    char status[16];
} data_lz_row;

static const gc_column lz_cols[] = {
    GC_COL(data_lz_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes", "file offset of the stream"),
    GC_COL(data_lz_row, slot, GC_T_U32, 0, "", "position in the 0x58-byte data header"),
    GC_COL(data_lz_row, name, GC_T_STR, 0, "", "hud_bank0..4, core_data, transition"),
    GC_COL(data_lz_row, range_size_bytes, GC_T_U64, 0, "bytes", "size of the item's ByteRange"),
    GC_COL(data_lz_row, stream_bytes, GC_T_S64, 0, "bytes",
           "stream +3: total size, header included (-1 if the header is unreadable)"),
    GC_COL(data_lz_row, max_output_bytes, GC_T_U64, 0, "bytes",
           "the most that many bytes of packets can decode to (docs/formats/wad-lz.md)"),
    GC_COL(data_lz_row, decoded_bytes, GC_T_U64, 0, "bytes", "what the stream decoded to"),
    GC_COL(data_lz_row, decodes, GC_T_BOOL, 0, "", "the stream decoded without an error"),
    GC_COL(data_lz_row, status, GC_T_STR, 0, "", "the decoder's status (ok, corrupt, ...)"),
};

static const gc_table_desc gc_table_data_lz = {
    .name = "data.lz_stream",
    .doc = "Every present WAD-LZ item of the data extent (HUD banks, core_data, transition "
           "textures), decoded with no bound but what its packets can produce.",
    .row_size = sizeof(data_lz_row),
    .columns = lz_cols,
    .column_count = GC_COUNTOF(lz_cols),
};

/* The most output the stream can produce; the historical bound was a guessed
 * ratio of 64, which refuses legal streams between 64:1 and 72:1. */
static uint64_t lz_most(const gc_level *lv, size_t stream_size)
{
    if (GC_FAULT(lv, lz_ratio_cap))
        return (uint64_t)stream_size * 64u;
    (void)lv;
    return gc_lz_max_output(stream_size);
}

/* Decodes one WAD-LZ item into a scratch buffer and fills its row; never fails the decoder. */
static gc_status lz_item(gc_level *lv, const data_range_row *rg, const gc_span *sp,
                         data_lz_row *row)
{
    memset(row, 0, sizeof *row);
    row->file_ofs = sp->file_ofs;
    row->slot = rg->slot;
    memcpy(row->name, rg->name, sizeof row->name);
    row->range_size_bytes = sp->size;
    row->stream_bytes = -1;
    gc_diag d;
    gc_diag_init(&d);
    size_t size = 0;
    gc_status s = gc_lz_stream_size(sp->data, sp->size, sp->file_ofs, &size, &d);
    if (s == GC_OK) {
        row->stream_bytes = (int64_t)size;
        row->max_output_bytes = lz_most(lv, size);
        size_t cap = row->max_output_bytes < LZ_ITEM_MAX_BYTES ? (size_t)row->max_output_bytes
                                                               : LZ_ITEM_MAX_BYTES;
        if (gc_level_mem_charge(lv, cap) != 0)
            return GC_E_NOMEM; /* the level's memory budget refused it */
        uint8_t *out = malloc(cap ? cap : 1);
        if (!out) {
            gc_level_mem_release(lv, cap);
            return GC_E_NOMEM;
        }
        size_t got = 0;
        s = gc_lz_decompress(sp->data, sp->size, sp->file_ofs, out, cap, &got, &d);
        row->decoded_bytes = got;
        free(out);
        gc_level_mem_release(lv, cap);
    }
    row->decodes = s == GC_OK;
    snprintf(row->status, sizeof row->status, "%s", gc_status_name(s));
    return GC_OK;
}

static gc_span *range_span(gc_level *lv, unsigned slot)
{
    switch (slot) {
    case R_OVERLAY:
        return &lv->overlay;
    case R_CORE_INDEX:
        return &lv->core_index;
    case R_GS_RAM:
        return &lv->gs_ram;
    case R_HUD_HEADER:
        return &lv->hud_header;
    case R_CORE_DATA:
        return &lv->core_data_z;
    case R_TRANSITION:
        return &lv->transition;
    default:
        return NULL; /* HUD banks: published as rows only */
    }
}

static gc_status decompress_core_data(gc_level *lv, gc_diag *diag, data_core_data_row *row)
{
    const gc_span *ci = &lv->core_index;
    const gc_span *cz = &lv->core_data_z;
    gc_diag_push(diag, "core_index");
    if (!ci->present)
        return gc_diag_set(diag, GC_E_RANGE, ci->file_ofs,
                           "core_index range is absent or outside the data extent");
    if (ci->size < CORE_HEADER_BYTES)
        return gc_diag_set(diag, GC_E_TRUNCATED, ci->file_ofs + ci->size,
                           "core_index of %zu bytes is shorter than the 0xBC core header",
                           ci->size);
    gc_reader r = gc_reader_make(ci->data, ci->size, ci->file_ofs);
    gc_seek(&r, CORE_OFS_ASSETS_COMPRESSED);
    row->assets_compressed_size = gc_s32le(&r);   /* 0x88 */
    row->assets_decompressed_size = gc_s32le(&r); /* 0x8c */
    gc_diag_pop(diag);

    gc_diag_push(diag, "core_data");
    row->file_ofs = cz->file_ofs;
    row->range_size_bytes = cz->size;
    row->lz_size_field = -1;
    if (!cz->present)
        return gc_diag_set(diag, GC_E_RANGE, cz->file_ofs,
                           "core_data range is absent or outside the data extent");
    row->magic_ok = cz->size >= 3 && memcmp(cz->data, "WAD", 3) == 0;
    if (cz->size >= 7)
        row->lz_size_field = (int32_t)gc_load_u32le(cz->data + 3);
    size_t stream_size = 0;
    gc_status s = gc_lz_stream_size(cz->data, cz->size, cz->file_ofs, &stream_size, diag);
    if (s != GC_OK)
        return s;
    int64_t want = row->assets_decompressed_size;
    if (want <= 0 || (uint64_t)want > CORE_DATA_MAX_BYTES ||
        (uint64_t)want > lz_most(lv, stream_size))
        return gc_diag_set(diag, GC_E_RANGE, ci->file_ofs + CORE_OFS_ASSETS_DECOMPRESSED,
                           "assets_decompressed_size %lld is impossible for a %zu-byte stream",
                           (long long)want, stream_size);
    uint64_t most = lz_most(lv, stream_size);
    size_t cap =
        (uint64_t)want + LZ_SLACK_BYTES < most ? (size_t)want + LZ_SLACK_BYTES : (size_t)most;
    uint8_t *out = gc_level_mem_charge(lv, cap) == 0 ? gc_big_alloc_populated(cap) : NULL;
    if (!out)
        return gc_diag_set(diag, GC_E_NOMEM, cz->file_ofs, "no memory for %zu bytes of core_data",
                           cap);
    size_t got = 0;
    s = gc_lz_decompress(cz->data, cz->size, cz->file_ofs, out, cap, &got, diag);
    if (s != GC_OK) {
        gc_big_free(out);
        gc_level_mem_release(lv, cap);
        return s;
    }
    row->decompressed_bytes = got;
    if (got < (size_t)want) {
        /* The stream ended before the size the core header declares: every
         * offset into the missing tail would read nothing, so stop here. */
        gc_big_free(out);
        gc_level_mem_release(lv, cap);
        return gc_diag_set(diag, GC_E_TRUNCATED, cz->file_ofs + stream_size,
                           "core_data decompressed to %zu bytes, the core header declares %lld",
                           got, (long long)want);
    }
    gc_big_free(lv->core_data);
    lv->core_data = out;
    lv->core_data_size = got;
    row->decompressed = 1;
    gc_diag_pop(diag);
    return GC_OK;
}

static gc_status data_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->header_ok)
        return GC_NEEDS(diag, "the level header");
    if (!lv->data_extent.present)
        return GC_NEEDS(diag, "a data extent inside the file");
    gc_diag_push(diag, "data");
    const gc_span *ext = &lv->data_extent;
    gc_reader r = gc_reader_make(ext->data, ext->size, ext->file_ofs);
    if (ext->size < DATA_HEADER_BYTES)
        return gc_diag_set(diag, GC_E_TRUNCATED, ext->file_ofs + ext->size,
                           "data extent of %zu bytes is shorter than its 0x58-byte header",
                           ext->size);
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_data_range);
    for (unsigned i = 0; i < R_COUNT; i++) {
        data_range_row *row = gc_rows_push(rb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for data.range");
        row->file_ofs = gc_tell_file(&r);
        row->slot = i;
        memcpy(row->name, range_names[i], strlen(range_names[i]) + 1);
        row->offset_bytes = gc_s32le(&r); /* 8*i + 0 */
        row->size_bytes = gc_s32le(&r);   /* 8*i + 4 */
        row->end_bytes = row->offset_bytes + row->size_bytes;
        row->extent_size_bytes = ext->size;
        row->declared = row->offset_bytes >= 0 && row->size_bytes > 0;
        row->inside = row->declared && (uint64_t)row->end_bytes <= ext->size;
        row->present = row->inside;
        gc_span *sp = range_span(lv, i);
        if (sp) {
            memset(sp, 0, sizeof *sp);
            if (row->present) {
                sp->data = ext->data + row->offset_bytes;
                sp->size = (size_t)row->size_bytes;
                sp->file_ofs = ext->file_ofs + (uint64_t)row->offset_bytes;
                sp->present = true;
            } else if (row->offset_bytes >= 0) {
                sp->file_ofs = ext->file_ofs + (uint64_t)row->offset_bytes;
            }
        }
    }
    data_core_data_row cd;
    memset(&cd, 0, sizeof cd);
    gc_status s = decompress_core_data(lv, diag, &cd);
    data_core_data_row *row = gc_rows_push(gc_level_rows(lv, &gc_table_data_core_data));
    if (!row)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for data.core_data");
    *row = cd;
    /* every other WAD-LZ item: HUD banks and transition textures (core_data's row repeats
     * the decode above) */
    gc_rowbuf *rl = gc_level_rows(lv, &gc_table_data_lz);
    for (unsigned i = R_HUD0; i < R_COUNT; i++) {
        const data_range_row *rg = gc_rows_at(rb, i);
        if (!rg->present)
            continue;
        data_lz_row *lr = gc_rows_push(rl);
        if (!lr)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for data.lz_stream");
        if (i == R_CORE_DATA) {
            memset(lr, 0, sizeof *lr);
            lr->file_ofs = lv->core_data_z.file_ofs;
            lr->slot = i;
            memcpy(lr->name, rg->name, sizeof lr->name);
            lr->range_size_bytes = lv->core_data_z.size;
            lr->stream_bytes = cd.lz_size_field;
            lr->max_output_bytes =
                cd.lz_size_field >= 0 ? lz_most(lv, (size_t)cd.lz_size_field) : 0;
            lr->decoded_bytes = cd.decompressed_bytes;
            lr->decodes = s == GC_OK;
            snprintf(lr->status, sizeof lr->status, "%s", gc_status_name(s));
            continue;
        }
        gc_span sp = {ext->data + rg->offset_bytes, (size_t)rg->size_bytes,
                      ext->file_ofs + (uint64_t)rg->offset_bytes, true};
        if (lz_item(lv, rg, &sp, lr) != GC_OK)
            return gc_diag_set(diag, GC_E_NOMEM, sp.file_ofs, "no memory to decode %s", rg->name);
    }
    if (s != GC_OK)
        return s;
    lv->data_ok = true;
    return GC_OK;
}

static const gc_table_desc *const data_tables[] = {&gc_table_data_range, &gc_table_data_core_data,
                                                   &gc_table_data_lz};

const gc_decoder gc_dec_data = {
    .name = "data",
    .doc = "data extent header (byte ranges) and core_data decompression",
    .tables = data_tables,
    .table_count = GC_COUNTOF(data_tables),
    .run = data_run,
    .release = NULL, /* lv->core_data is freed by gc_level_free */
};
