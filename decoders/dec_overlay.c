/* SPDX-License-Identifier: MIT */
/* The overlay decoder: the data extent's level code overlay
 * (docs/formats/overlay.md), under the two readings the sources give:
 *
 *  - Wrench (read_ratchet_executable, src/core/elf.cpp; docs/file_loading.md):
 *    a "ratchet executable", a chain of 16-byte section headers
 *    {s32 dest_address, s32 copy_size, s32 section_type, s32 entry_point},
 *    each followed by copy_size bytes. The walk stops at the end of the data
 *    or, as the game does, at a header whose entry_point differs from the
 *    first. R&C2 overlays rebuild into Wrench's 7-section donor ELF (.lit,
 *    .bss, .data, lvl.vtbl, lvl.camvtbl, lvl.sndvtbl, .text).
 *  - the reference notes: "a raw loadable image starting with code", no
 *    headers at all.
 *
 * The decoder walks the chain; when it covers the overlay exactly the file
 * is read as a section chain (reading 1), otherwise as a raw image
 * (reading 0) and no sections are published. Either way the normal table is
 * found by content (dec_normals.c). Published as overlay.image (one row) and
 * overlay.section. */
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define OV_HEADER_BYTES       16u
#define OV_HEADER_BYTES_WRONG 12u /* {dest, size, type} without entry_point (fault) */
#define OV_SHT_PROGBITS       1u
#define OV_SHT_NOBITS         8u
#define OV_EE_RAM_BYTES       0x02000000u /* 32 MiB: where a section can load */
#define OV_MAX_SECTIONS       64u         /* far more than any overlay has; the walk stops */

/* Section types of Wrench's R&C2 level donor (DONOR_RAC_GC_UYA_LEVEL_ELF_HEADERS), in order. */
static const uint32_t donor_types[] = {OV_SHT_PROGBITS, OV_SHT_NOBITS,   OV_SHT_PROGBITS,
                                       OV_SHT_PROGBITS, OV_SHT_PROGBITS, OV_SHT_PROGBITS,
                                       OV_SHT_PROGBITS};
#define OV_DONOR_SECTIONS GC_COUNTOF(donor_types)

typedef struct overlay_image_row {
    uint64_t file_ofs;
    uint64_t size_bytes;
    uint8_t reading;
    uint8_t head_is_section_header;
    uint32_t sections_walked;
    uint64_t chain_end;
    uint32_t section_count;
    int32_t entry_point;
    uint8_t types_match;
    uint8_t entry_in_text;
} overlay_image_row;

static const gc_column image_cols[] = {
    GC_COL(overlay_image_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes", "file offset of the overlay"),
    GC_COL(overlay_image_row, size_bytes, GC_T_U64, 0, "bytes", "the data extent's overlay size"),
    GC_COL(overlay_image_row, reading, GC_T_U8, 0, "",
           "1 = ratchet executable: section chain covering the overlay (Wrench), 0 = raw image "
           "(the notes)"),
    GC_COL(overlay_image_row, head_is_section_header, GC_T_BOOL, 0, "",
           "the first 16 bytes form a well-formed section header (4-aligned load address and "
           "size inside EE RAM and the overlay, entry point in EE RAM)"),
    GC_COL(overlay_image_row, sections_walked, GC_T_U32, 0, "count",
           "headers the chain walk read before it stopped"),
    GC_COL(overlay_image_row, chain_end, GC_T_U64, GC_CF_HEX, "bytes in overlay",
           "where the walk stopped"),
    GC_COL(overlay_image_row, section_count, GC_T_U32, 0, "count",
           "overlay.section rows (sections_walked when reading 1, else 0)"),
    GC_COL(overlay_image_row, entry_point, GC_T_S32, GC_CF_HEX, "address",
           "+0xc of the first header (startlevel)"),
    GC_COL(overlay_image_row, types_match, GC_T_BOOL, 0, "",
           "section types are Wrench's R&C2 donor order (PROGBITS, NOBITS, PROGBITS x 5)"),
    GC_COL(overlay_image_row, entry_in_text, GC_T_BOOL, 0, "",
           "entry_point lies inside the last section's (.text) load range"),
};

static const gc_table_desc gc_table_overlay_image = {
    .name = "overlay.image",
    .doc = "The level code overlay and which reading its bytes fit (one row).",
    .row_size = sizeof(overlay_image_row),
    .columns = image_cols,
    .column_count = GC_COUNTOF(image_cols),
};

typedef struct overlay_section_row {
    uint64_t file_ofs;
    uint32_t image_row;
    uint32_t index;
    uint64_t header_ofs;
    int32_t dest_address;
    int32_t copy_size;
    uint32_t section_type;
    int32_t entry_point;
    uint64_t data_ofs;
    uint32_t donor_type;
} overlay_section_row;

static const gc_column section_cols[] = {
    GC_COL(overlay_section_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the section header"),
    GC_COL(overlay_section_row, image_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "parent overlay.image row"),
    GC_COL(overlay_section_row, index, GC_T_U32, 0, "", "section number in the chain"),
    GC_COL(overlay_section_row, header_ofs, GC_T_U64, GC_CF_HEX, "bytes in overlay",
           "offset of the header"),
    GC_COL(overlay_section_row, dest_address, GC_T_S32, GC_CF_HEX, "address",
           "+0x0: where the section's data is copied"),
    GC_COL(overlay_section_row, copy_size, GC_T_S32, 0, "bytes", "+0x4: data after the header"),
    GC_COL(overlay_section_row, section_type, GC_T_U32, 0, "",
           "+0x8: ELF sh_type (1 PROGBITS, 8 NOBITS); unused by the game"),
    GC_COL(overlay_section_row, entry_point, GC_T_S32, GC_CF_HEX, "address",
           "+0xc: startlevel, the same in every header"),
    GC_COL(overlay_section_row, data_ofs, GC_T_U64, GC_CF_HEX, "bytes in overlay",
           "header_ofs + 16: the section's data"),
    GC_COL(overlay_section_row, donor_type, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "the donor ELF's sh_type for this section number; null past the donor's 7"),
};

static const gc_table_desc gc_table_overlay_section = {
    .name = "overlay.section",
    .doc = "One row per section header of an overlay read as a ratchet executable.",
    .row_size = sizeof(overlay_section_row),
    .columns = section_cols,
    .column_count = GC_COUNTOF(section_cols),
    .parent_table = "overlay.image",
    .parent_link = "image",
    .parent_column = "image_row",
};

typedef struct ov_header {
    int32_t dest, size, entry;
    uint32_t type;
} ov_header;

static ov_header read_header(gc_reader *r, bool with_entry)
{
    ov_header h;
    h.dest = gc_s32le(r);                   /* +0x0 dest_address */
    h.size = gc_s32le(r);                   /* +0x4 copy_size */
    h.type = gc_u32le(r);                   /* +0x8 section_type */
    h.entry = with_entry ? gc_s32le(r) : 0; /* +0xc entry_point */
    return h;
}

static bool in_ee_ram(int32_t a)
{
    return a >= 0 && (uint32_t)a < OV_EE_RAM_BYTES;
}

static gc_status overlay_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->overlay.present)
        return GC_NEEDS(diag, "the overlay from the data decoder");
    gc_diag_push(diag, "data/overlay");
    const gc_span *ov = &lv->overlay;
    gc_reader all = gc_reader_make(ov->data, ov->size, ov->file_ofs);
    overlay_image_row im;
    memset(&im, 0, sizeof im);
    im.file_ofs = ov->file_ofs;
    im.size_bytes = ov->size;
    if (ov->size >= OV_HEADER_BYTES) {
        gc_reader h0 = gc_window(&all, 0, OV_HEADER_BYTES);
        ov_header h = read_header(&h0, true);
        im.entry_point = h.entry;
        im.head_is_section_header =
            in_ee_ram(h.dest) && h.dest % 4 == 0 && h.size >= 0 && h.size % 4 == 0 &&
            (uint64_t)h.size <= ov->size - OV_HEADER_BYTES && in_ee_ram(h.entry) && h.entry != 0;
    }
    /* The chain walk. Historical misreading: 12-byte headers (no entry_point). */
    const bool wrong = GC_FAULT(lv, overlay_header_12);
    const size_t hb = wrong ? OV_HEADER_BYTES_WRONG : OV_HEADER_BYTES;
    ov_header hs[OV_MAX_SECTIONS];
    uint64_t at[OV_MAX_SECTIONS];
    uint64_t ofs = 0;
    bool broken = false;
    uint32_t n = 0;
    while (ofs < ov->size && n < OV_MAX_SECTIONS) {
        if (ov->size - ofs < hb) {
            broken = true;
            break;
        }
        gc_reader hr = gc_window(&all, (size_t)ofs, hb);
        ov_header h = read_header(&hr, !wrong);
        if (n > 0 && h.entry != hs[0].entry)
            break; /* the game's end of the chain */
        if (h.size < 0 || (uint64_t)h.size > ov->size - ofs - hb) {
            broken = true;
            break;
        }
        hs[n] = h;
        at[n] = ofs;
        n++;
        ofs += hb + (uint64_t)h.size;
    }
    im.sections_walked = n;
    im.chain_end = ofs;
    im.reading = !broken && n > 0 && ofs == ov->size;
    if (im.reading) {
        im.section_count = n;
        im.types_match = n == OV_DONOR_SECTIONS;
        for (uint32_t k = 0; k < n && im.types_match; k++)
            im.types_match = hs[k].type == donor_types[k];
        const ov_header *t = &hs[n - 1];
        im.entry_in_text = (int64_t)im.entry_point >= (int64_t)t->dest &&
                           (int64_t)im.entry_point < (int64_t)t->dest + t->size;
        uint32_t image_row = (uint32_t)gc_level_rows(lv, &gc_table_overlay_image)->count;
        gc_rowbuf *sb = gc_level_rows(lv, &gc_table_overlay_section);
        for (uint32_t k = 0; k < n; k++) {
            overlay_section_row *s = gc_rows_push(sb);
            if (!s)
                return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for overlay.section");
            s->file_ofs = ov->file_ofs + at[k];
            s->image_row = image_row;
            s->index = k;
            s->header_ofs = at[k];
            s->dest_address = hs[k].dest;
            s->copy_size = hs[k].size;
            s->section_type = hs[k].type;
            s->entry_point = hs[k].entry;
            s->data_ofs = at[k] + hb;
            s->donor_type = k < OV_DONOR_SECTIONS ? donor_types[k] : UINT32_MAX;
        }
    }
    overlay_image_row *row = gc_rows_push(gc_level_rows(lv, &gc_table_overlay_image));
    if (!row)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for overlay.image");
    *row = im;
    gc_diag_pop(diag);
    return GC_OK;
}

static const gc_table_desc *const overlay_tables[] = {&gc_table_overlay_image,
                                                      &gc_table_overlay_section};

const gc_decoder gc_dec_overlay = {
    .name = "overlay",
    .doc = "level code overlay: ratchet-executable section chain or raw image",
    .tables = overlay_tables,
    .table_count = GC_COUNTOF(overlay_tables),
    .run = overlay_run,
    .release = NULL,
};
