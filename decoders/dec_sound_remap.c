/* SPDX-License-Identifier: MIT */
/* The sound_remap decoder: the sound remap at core header 0x70, an index
 * offset (docs/formats/core-index.md, "Sound remap"), sized the way Wrench's
 * R&C2 path sizes it (unpack_level_core, src/wrenchbuild/level/level_core.cpp;
 * SoundRemapHeader / SoundRemapElement in level_core.h):
 *
 *   header {s16 second_part_ofs, s16 second_part_size, s16 third_part_ofs,
 *           s16 third_part_count}, then {s16 offset, s16 size} elements up to
 *   second_part_ofs; the element at second_part_ofs - 4 is the last, and the
 *   remap is offset + size x 4 bytes long.
 *
 * The header holds offsets, not counts: the element count is derived. Each
 * element names a run of size 4-byte entries at its offset (bytes from the
 * remap start). Published as sound_remap.header (one row) and
 * sound_remap.element (one row per element). */
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define REMAP_HEADER_BYTES  8u
#define REMAP_ELEMENT_BYTES 4u
#define REMAP_ENTRY_BYTES   4u

typedef struct remap_header_row {
    uint64_t file_ofs;
    int32_t remap_offset;
    int16_t second_part_ofs;
    int16_t second_part_size;
    int16_t third_part_ofs;
    int16_t third_part_count;
    int32_t element_count;
    int64_t size_bytes;
    int64_t size_by_third_part;
    uint64_t next_offset;
    uint8_t elements_framed;
    uint8_t inside;
} remap_header_row;

static const gc_column header_cols[] = {
    GC_COL(remap_header_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the sound remap (core_index + remap_offset)"),
    GC_COL(remap_header_row, remap_offset, GC_T_S32, GC_CF_HEX, "bytes in core_index",
           "core header 0x70"),
    GC_COL(remap_header_row, second_part_ofs, GC_T_S16, GC_CF_HEX, "bytes in remap",
           "+0x0: end of the element array"),
    GC_COL(remap_header_row, second_part_size, GC_T_S16, 0, "", "+0x2"),
    GC_COL(remap_header_row, third_part_ofs, GC_T_S16, GC_CF_HEX, "bytes in remap", "+0x4"),
    GC_COL(remap_header_row, third_part_count, GC_T_S16, 0, "count", "+0x6: 4-byte entries"),
    GC_COL(remap_header_row, element_count, GC_T_S32, 0, "count",
           "(second_part_ofs - 8) / 4 elements"),
    GC_COL(remap_header_row, size_bytes, GC_T_S64, 0, "bytes",
           "Wrench's R&C2 size: offset + 4 x size of the element at second_part_ofs - 4"),
    GC_COL(remap_header_row, size_by_third_part, GC_T_S64, 0, "bytes",
           "third_part_ofs + 4 x third_part_count (the rule Wrench uses on Deadlocked)"),
    GC_COL(remap_header_row, next_offset, GC_T_U64, GC_CF_HEX, "bytes in core_index",
           "where the next core_index item starts (moby stash, ratchet seqs or the end)"),
    GC_COL(remap_header_row, elements_framed, GC_T_BOOL, 0, "",
           "second_part_ofs >= 12 and a whole number of 4-byte elements after the header"),
    GC_COL(remap_header_row, inside, GC_T_BOOL, 0, "", "remap_offset + size_bytes <= next_offset"),
};

static const gc_table_desc gc_table_remap_header = {
    .name = "sound_remap.header",
    .doc = "The R&C2 sound remap header at core header 0x70 and its size (one row).",
    .row_size = sizeof(remap_header_row),
    .columns = header_cols,
    .column_count = GC_COUNTOF(header_cols),
};

typedef struct remap_element_row {
    uint64_t file_ofs;
    uint32_t header_row;
    uint32_t index;
    int16_t offset;
    int16_t size;
    int64_t end;
} remap_element_row;

static const gc_column element_cols[] = {
    GC_COL(remap_element_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes", "file offset of the element"),
    GC_COL(remap_element_row, header_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "parent sound_remap.header row"),
    GC_COL(remap_element_row, index, GC_T_U32, 0, "", "element number"),
    GC_COL(remap_element_row, offset, GC_T_S16, GC_CF_HEX, "bytes in remap",
           "+0x0: start of the element's run"),
    GC_COL(remap_element_row, size, GC_T_S16, 0, "count", "+0x2: 4-byte entries in the run"),
    GC_COL(remap_element_row, end, GC_T_S64, GC_CF_HEX, "bytes in remap", "offset + 4 x size"),
};

static const gc_table_desc gc_table_remap_element = {
    .name = "sound_remap.element",
    .doc = "One row per {offset, size} element of the sound remap, in file order.",
    .row_size = sizeof(remap_element_row),
    .columns = element_cols,
    .column_count = GC_COUNTOF(element_cols),
    .parent_table = "sound_remap.header",
    .parent_link = "header",
    .parent_column = "header_row",
};

/* The smallest core_index item start after `ofs` that the core header names
 * (moby stash list, ratchet seqs), or the index's size. */
static uint64_t next_item(const gc_level *lv, int64_t ofs)
{
    uint64_t best = lv->core_index.size;
    int32_t cand[2] = {lv->core.moby_gs_stash_list, lv->core.ratchet_seqs};
    for (int k = 0; k < 2; k++)
        if (cand[k] > ofs && (uint64_t)cand[k] < best)
            best = (uint64_t)cand[k];
    return best;
}

static gc_status sound_remap_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->core_ok)
        return GC_NEEDS(diag, "the core header");
    gc_diag_push(diag, "data/core_index/sound_remap");
    const gc_span *ci = &lv->core_index;
    int32_t at = lv->core.sound_remap;
    if (at == 0) { /* no sound remap: nothing to publish */
        gc_diag_pop(diag);
        return GC_OK;
    }
    if (at < 0 || !gc_range_ok((size_t)at, REMAP_HEADER_BYTES, ci->size))
        return gc_diag_set(diag, GC_E_RANGE, ci->file_ofs,
                           "sound remap offset 0x%x leaves no 8-byte header inside core_index "
                           "(%zu bytes)",
                           (unsigned)at, ci->size);
    gc_reader r = gc_reader_make(ci->data + at, ci->size - (size_t)at, ci->file_ofs + (uint64_t)at);
    remap_header_row hr;
    memset(&hr, 0, sizeof hr);
    hr.file_ofs = r.file_ofs;
    hr.remap_offset = at;
    hr.second_part_ofs = gc_s16le(&r);  /* +0x0 */
    hr.second_part_size = gc_s16le(&r); /* +0x2 */
    hr.third_part_ofs = gc_s16le(&r);   /* +0x4 */
    hr.third_part_count = gc_s16le(&r); /* +0x6 */
    hr.next_offset = next_item(lv, at);
    hr.elements_framed =
        hr.second_part_ofs >= (int16_t)(REMAP_HEADER_BYTES + REMAP_ELEMENT_BYTES) &&
        (hr.second_part_ofs - REMAP_HEADER_BYTES) % REMAP_ELEMENT_BYTES == 0 &&
        (uint64_t)hr.second_part_ofs <= r.size;
    hr.size_by_third_part =
        (int64_t)hr.third_part_ofs + REMAP_ENTRY_BYTES * (int64_t)hr.third_part_count;
    if (hr.elements_framed) {
        hr.element_count = (hr.second_part_ofs - (int32_t)REMAP_HEADER_BYTES) / 4;
        gc_reader last = gc_window(&r, (size_t)hr.second_part_ofs - REMAP_ELEMENT_BYTES, 4);
        int16_t lo = gc_s16le(&last), ls = gc_s16le(&last);
        hr.size_bytes = (int64_t)lo + REMAP_ENTRY_BYTES * (int64_t)ls;
        /* Historical misreading: the remap sized from a count in the header. */
        if (GC_FAULT(lv, sound_remap_by_count))
            hr.size_bytes = REMAP_HEADER_BYTES + REMAP_ENTRY_BYTES * (int64_t)hr.third_part_count;
    }
    hr.inside = hr.size_bytes > 0 && (uint64_t)at + (uint64_t)hr.size_bytes <= hr.next_offset;
    uint32_t header_row = (uint32_t)gc_level_rows(lv, &gc_table_remap_header)->count;
    gc_rowbuf *eb = gc_level_rows(lv, &gc_table_remap_element);
    gc_reader el = gc_window(&r, REMAP_HEADER_BYTES, 4u * (size_t)hr.element_count);
    for (int32_t i = 0; i < hr.element_count; i++) {
        remap_element_row e;
        memset(&e, 0, sizeof e);
        e.file_ofs = gc_tell_file(&el);
        e.header_row = header_row;
        e.index = (uint32_t)i;
        e.offset = gc_s16le(&el); /* +0x0 */
        e.size = gc_s16le(&el);   /* +0x2 */
        e.end = (int64_t)e.offset + REMAP_ENTRY_BYTES * (int64_t)e.size;
        remap_element_row *row = gc_rows_push(eb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for sound_remap.element");
        *row = e;
    }
    remap_header_row *out = gc_rows_push(gc_level_rows(lv, &gc_table_remap_header));
    if (!out)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for sound_remap.header");
    *out = hr;
    gc_diag_pop(diag);
    return GC_OK;
}

static const gc_table_desc *const remap_tables[] = {&gc_table_remap_header,
                                                    &gc_table_remap_element};

const gc_decoder gc_dec_sound_remap = {
    .name = "sound_remap",
    .doc = "R&C2 sound remap: header offsets, {offset, size} elements, size by the last element",
    .tables = remap_tables,
    .table_count = GC_COUNTOF(remap_tables),
    .run = sound_remap_run,
    .release = NULL,
};
