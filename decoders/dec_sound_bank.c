/* SPDX-License-Identifier: MIT */
/* The sound_bank decoder: the container's sound bank extent, a raw Sony
 * 989snd bank (formats.md §8.7). Its structure is not parsed (Wrench does
 * not either); what is checked is what the reference notes found on all 27
 * retail levels: "SBlk" at +0x18 and "DAW" at +0x24. Published as
 * sound_bank.header. */
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

#define SBLK_OFS             0x18u
#define DAW_OFS              0x24u
#define SOUND_BANK_MIN_BYTES 0x28u /* through the DAW signature word */

typedef struct sound_bank_row {
    uint64_t file_ofs;
    uint64_t size_bytes;
    uint32_t word_00;
    uint32_t total_size;
    uint8_t sblk_ok;
    uint8_t daw_ok;
} sound_bank_row;

static const gc_column sb_cols[] = {
    GC_COL(sound_bank_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the sound bank extent"),
    GC_COL(sound_bank_row, size_bytes, GC_T_U64, 0, "bytes", "extent size"),
    GC_COL(sound_bank_row, word_00, GC_T_U32, GC_CF_HEX, "", "+0x00 (undecoded)"),
    GC_COL(
        sound_bank_row, total_size, GC_T_U32, 0, "bytes",
        "+0x04: the bank's total size (docs/formats/sound-bank.md; level.extent_unit checks it)"),
    GC_COL(sound_bank_row, sblk_ok, GC_T_BOOL, 0, "", "\"SBlk\" at +0x18"),
    GC_COL(sound_bank_row, daw_ok, GC_T_BOOL, 0, "", "\"DAW\" at +0x24"),
};

static const gc_table_desc gc_table_sound_bank = {
    .name = "sound_bank.header",
    .doc = "The level sound bank's signatures (one row).",
    .row_size = sizeof(sound_bank_row),
    .columns = sb_cols,
    .column_count = GC_COUNTOF(sb_cols),
};

static gc_status sound_bank_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->header_ok)
        return GC_NEEDS(diag, "the level header");
    if (!lv->sound_bank.present)
        return GC_NEEDS(diag, "a sound bank extent inside the file");
    gc_diag_push(diag, "sound_bank");
    const gc_span *sb = &lv->sound_bank;
    if (sb->size < SOUND_BANK_MIN_BYTES)
        return gc_diag_set(diag, GC_E_TRUNCATED, sb->file_ofs + sb->size,
                           "sound bank of %zu bytes ends before its signatures", sb->size);
    gc_reader r = gc_reader_make(sb->data, sb->size, sb->file_ofs);
    sound_bank_row row;
    memset(&row, 0, sizeof row);
    row.file_ofs = sb->file_ofs;
    row.size_bytes = sb->size;
    row.word_00 = gc_u32le(&r);    /* +0x00 */
    row.total_size = gc_u32le(&r); /* +0x04 */
    row.sblk_ok = memcmp(sb->data + SBLK_OFS, "SBlk", 4) == 0;
    row.daw_ok = memcmp(sb->data + DAW_OFS, "DAW", 3) == 0;
    sound_bank_row *out = gc_rows_push(gc_level_rows(lv, &gc_table_sound_bank));
    if (!out)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for sound_bank.header");
    *out = row;
    return GC_OK;
}

static const gc_table_desc *const sb_tables[] = {&gc_table_sound_bank};

const gc_decoder gc_dec_sound_bank = {
    .name = "sound_bank",
    .doc = "the level sound bank's SBlk/DAW signatures",
    .tables = sb_tables,
    .table_count = GC_COUNTOF(sb_tables),
    .run = sound_bank_run,
    .release = NULL,
};
