/* SPDX-License-Identifier: MIT */
/* The particles decoder: the particle definitions at core header 0x6c, an
 * index offset (docs/formats/core-index.md, "Part defs"), read the way
 * Wrench's unpack_particle_textures reads them
 * (src/wrenchbuild/level/level_textures.cpp, PartDefsHeader):
 *
 *   {s32 particle_count, s32 unknown_4, s32 indices_offset, s32 indices_size},
 *   particle_count s32 slot offsets at +0x10, then indices_size u8 frames.
 *
 * Every offset is relative to the part-defs header. A slot offset of 0 means
 * the slot is unused; otherwise its frames run from (offset - indices_offset)
 * to the next used slot's start (or to indices_size), and each frame indexes
 * the particle texture table. Published as particles.header (one row) and
 * particles.slot (one row per slot). */
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define PART_DEFS_HEADER_BYTES 0x10u
#define PART_SLOT_BYTES        4u
/* More slots than any game uses (R&C1 0x51, R&C2 0x6f, R&C3/DL 0x81): a count
 * past this came from the wrong word, and is not used to size a loop. */
#define PART_SLOTS_MAX 0x400

typedef struct particles_header_row {
    uint64_t file_ofs;
    int32_t defs_offset;
    int32_t particle_count;
    int32_t unknown_4;
    int32_t indices_offset;
    int32_t indices_size;
    uint64_t next_offset;
    uint8_t slots_before_indices;
    uint8_t inside;
    uint32_t used_slots;
} particles_header_row;

static const gc_column header_cols[] = {
    GC_COL(particles_header_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the part defs (core_index + defs_offset)"),
    GC_COL(particles_header_row, defs_offset, GC_T_S32, GC_CF_HEX, "bytes in core_index",
           "core header 0x6c"),
    GC_COL(particles_header_row, particle_count, GC_T_S32, 0, "count", "+0x0: particle slots"),
    GC_COL(particles_header_row, unknown_4, GC_T_S32, 0, "", "+0x4"),
    GC_COL(particles_header_row, indices_offset, GC_T_S32, GC_CF_HEX, "bytes in part defs",
           "+0x8: the frame list, relative to the part-defs header"),
    GC_COL(particles_header_row, indices_size, GC_T_S32, 0, "count", "+0xc: u8 frames"),
    GC_COL(particles_header_row, next_offset, GC_T_U64, GC_CF_HEX, "bytes in core_index",
           "where the next core_index item starts (the sound remap, else the index's end)"),
    GC_COL(particles_header_row, slots_before_indices, GC_T_BOOL, 0, "",
           "the slot offsets (+0x10, particle_count x 4) end at or before indices_offset"),
    GC_COL(particles_header_row, inside, GC_T_BOOL, 0, "",
           "the frame list ends at or before next_offset"),
    GC_COL(particles_header_row, used_slots, GC_T_U32, 0, "count", "slots with a non-zero offset"),
};

static const gc_table_desc gc_table_particles_header = {
    .name = "particles.header",
    .doc = "The particle definitions header at core header 0x6c (one row).",
    .row_size = sizeof(particles_header_row),
    .columns = header_cols,
    .column_count = GC_COUNTOF(header_cols),
};

typedef struct particles_slot_row {
    uint64_t file_ofs;
    uint32_t header_row;
    uint32_t slot;
    int32_t offset;
    uint8_t used;
    int64_t frame_begin;
    int64_t frame_end;
    uint8_t frames_inside;
    uint32_t frames;
    uint16_t max_texture_index;
} particles_slot_row;

static const gc_column slot_cols[] = {
    GC_COL(particles_slot_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the slot's s32 offset"),
    GC_COL(particles_slot_row, header_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "parent particles.header row"),
    GC_COL(particles_slot_row, slot, GC_T_U32, 0, "", "slot number"),
    GC_COL(particles_slot_row, offset, GC_T_S32, GC_CF_HEX, "bytes in part defs",
           "+0x10 + 4 x slot: first frame, relative to the part-defs header (0 = unused)"),
    GC_COL(particles_slot_row, used, GC_T_BOOL, 0, "", "offset != 0"),
    GC_COL(particles_slot_row, frame_begin, GC_T_S64, 0, "",
           "offset - indices_offset: first frame in the frame list"),
    GC_COL(particles_slot_row, frame_end, GC_T_S64, 0, "",
           "the next used slot's frame_begin, or indices_size"),
    GC_COL(particles_slot_row, frames_inside, GC_T_BOOL, 0, "",
           "0 <= frame_begin <= frame_end <= indices_size"),
    GC_COL(particles_slot_row, frames, GC_T_U32, 0, "count",
           "frame_end - frame_begin (0 unless frames_inside)"),
    GC_COL(particles_slot_row, max_texture_index, GC_T_U16, GC_CF_NULL_IF_MAX, "",
           "largest frame value (a particle texture index); null without frames"),
};

static const gc_table_desc gc_table_particles_slot = {
    .name = "particles.slot",
    .doc = "One row per particle slot of the part defs, in slot order.",
    .row_size = sizeof(particles_slot_row),
    .columns = slot_cols,
    .column_count = GC_COUNTOF(slot_cols),
    .parent_table = "particles.header",
    .parent_link = "header",
    .parent_column = "header_row",
};

static gc_status particles_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->core_ok)
        return GC_NEEDS(diag, "the core header");
    gc_diag_push(diag, "data/core_index/part_defs");
    const gc_span *ci = &lv->core_index;
    const gc_core_header *h = &lv->core;
    if (h->part_defs == 0) { /* no part defs: nothing to publish (every R&C2 level has them) */
        gc_diag_pop(diag);
        return GC_OK;
    }
    if (h->part_defs < 0 || !gc_range_ok((size_t)h->part_defs, PART_DEFS_HEADER_BYTES, ci->size))
        return gc_diag_set(diag, GC_E_RANGE, ci->file_ofs,
                           "part defs offset 0x%x leaves no 16-byte header inside core_index "
                           "(%zu bytes)",
                           (unsigned)h->part_defs, ci->size);
    gc_reader defs = gc_reader_make(ci->data + h->part_defs, ci->size - (size_t)h->part_defs,
                                    ci->file_ofs + (uint64_t)h->part_defs);
    particles_header_row hr;
    memset(&hr, 0, sizeof hr);
    hr.file_ofs = defs.file_ofs;
    hr.defs_offset = h->part_defs;
    hr.particle_count = gc_s32le(&defs); /* +0x0 */
    hr.unknown_4 = gc_s32le(&defs);      /* +0x4 */
    hr.indices_offset = gc_s32le(&defs); /* +0x8 */
    hr.indices_size = gc_s32le(&defs);   /* +0xc */
    hr.next_offset = ci->size;
    if (h->sound_remap > h->part_defs && (size_t)h->sound_remap < ci->size)
        hr.next_offset = (uint64_t)h->sound_remap;
    uint64_t room = hr.next_offset - (uint64_t)h->part_defs; /* bytes the defs may use */
    hr.slots_before_indices =
        hr.particle_count >= 0 && hr.indices_offset >= 0 &&
        PART_DEFS_HEADER_BYTES + PART_SLOT_BYTES * (uint64_t)hr.particle_count <=
            (uint64_t)hr.indices_offset;
    hr.inside = hr.indices_offset >= 0 && hr.indices_size >= 0 &&
                (uint64_t)hr.indices_offset + (uint64_t)hr.indices_size <= room;
    if (hr.particle_count < 0 || hr.particle_count > PART_SLOTS_MAX ||
        PART_DEFS_HEADER_BYTES + PART_SLOT_BYTES * (uint64_t)hr.particle_count > defs.size)
        return gc_diag_set(diag, GC_E_RANGE, hr.file_ofs,
                           "part defs declare %d slots, more than core_index holds",
                           (int)hr.particle_count);
    /* Slot offsets, then each used slot's frame range. */
    int32_t n = hr.particle_count;
    int64_t begin_of[PART_SLOTS_MAX];
    int32_t offset_of[PART_SLOTS_MAX];
    for (int32_t k = 0; k < n; k++) {
        offset_of[k] = gc_s32le(&defs);
        /* Historical misreading: slot offsets taken as absolute core_index offsets. */
        int64_t base = GC_FAULT(lv, part_defs_absolute) ? (int64_t)h->part_defs : 0;
        begin_of[k] = (int64_t)offset_of[k] - base - hr.indices_offset;
        hr.used_slots += offset_of[k] != 0;
    }
    bool frames_readable = hr.inside;
    gc_rowbuf *sb = gc_level_rows(lv, &gc_table_particles_slot);
    uint32_t header_row = (uint32_t)gc_level_rows(lv, &gc_table_particles_header)->count;
    for (int32_t k = 0; k < n; k++) {
        particles_slot_row s;
        memset(&s, 0, sizeof s);
        s.file_ofs = hr.file_ofs + PART_DEFS_HEADER_BYTES + PART_SLOT_BYTES * (uint64_t)k;
        s.header_row = header_row;
        s.slot = (uint32_t)k;
        s.offset = offset_of[k];
        s.used = s.offset != 0;
        s.max_texture_index = UINT16_MAX;
        if (s.used) {
            s.frame_begin = begin_of[k];
            s.frame_end = hr.indices_size;
            for (int32_t j = k + 1; j < n; j++)
                if (offset_of[j] != 0) {
                    s.frame_end = begin_of[j];
                    break;
                }
            s.frames_inside = s.frame_begin >= 0 && s.frame_end >= s.frame_begin &&
                              s.frame_end <= hr.indices_size;
            if (s.frames_inside) {
                s.frames = (uint32_t)(s.frame_end - s.frame_begin);
                if (frames_readable && s.frames) {
                    gc_reader f = gc_window(
                        &defs, (size_t)hr.indices_offset + (size_t)s.frame_begin, s.frames);
                    for (uint32_t i = 0; i < s.frames; i++) {
                        uint8_t v = gc_u8(&f);
                        if (s.max_texture_index == UINT16_MAX || v > s.max_texture_index)
                            s.max_texture_index = v;
                    }
                }
            }
        }
        particles_slot_row *row = gc_rows_push(sb);
        if (!row)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for particles.slot");
        *row = s;
    }
    particles_header_row *out = gc_rows_push(gc_level_rows(lv, &gc_table_particles_header));
    if (!out)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for particles.header");
    *out = hr;
    gc_diag_pop(diag);
    return GC_OK;
}

static const gc_table_desc *const particles_tables[] = {&gc_table_particles_header,
                                                        &gc_table_particles_slot};

const gc_decoder gc_dec_particles = {
    .name = "particles",
    .doc = "particle definitions: slot offsets relative to the part-defs header, frame lists",
    .tables = particles_tables,
    .table_count = GC_COUNTOF(particles_tables),
    .run = particles_run,
    .release = NULL,
};
