/* SPDX-License-Identifier: MIT */
/* Structure-aware libFuzzer target for the decoders that read decompressed
 * data (core, moby, tie, shrub, gameplay, occlusion, sky, and the tfrag and
 * texture decoders behind them). Random bytes almost never survive WAD-LZ
 * decompression, so fuzz_level rarely reaches them; here the input supplies
 * the PARTS of a level and the fixture writer of tests/dec_fixture.h wraps
 * them in a valid container with valid LZ streams. Also built as the replay
 * test replay_level_parts over tests/fuzz/corpus/level_parts/.
 *
 * Input: u16 core_index length, u16 gameplay length, u16 occlusion-mapping
 * length (little-endian, each taken modulo what is left + 1), then those
 * three parts, then core_data (the rest). The overlay and sound bank are the
 * fixture's; core_index+0x88/0x8c are set to the true stream sizes. Checks as fuzz_level: no crash,
 * no out-of-bounds access, and a consistent decode.status table. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../dec_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 6 || size > (1u << 20))
        return 0;
    size_t lens[3];
    for (int i = 0; i < 3; i++)
        lens[i] = (size_t)(data[2 * i] | data[2 * i + 1] << 8);
    const uint8_t *p = data + 6;
    size_t left = size - 6;
    fx_level f;
    fx_parts(&f);
    fx_buf *parts[3] = {&f.core_index, &f.gameplay, &f.occlusion};
    for (int i = 0; i < 3; i++) {
        size_t n = lens[i] % (left + 1);
        parts[i]->len = 0;
        fx_put(parts[i], p, n);
        p += n;
        left -= n;
    }
    f.core_data.len = 0;
    fx_put(&f.core_data, p, left);
    /* the two size words the data decoder checks are set to the truth (and
     * fx_assemble writes 0x88), so the decoders behind it are reached; those
     * checks themselves are fuzz_level's */
    fx_set_u32(&f.core_index, 0x8c, (uint32_t)f.core_data.len);
    fx_assemble(&f);
    gc_level lv;
    if (gc_level_init(&lv, 5, "LEVEL5.WAD", f.file.p, f.file.len) == GC_OK) {
        gc_level_decode(&lv);
        size_t ndec;
        gc_decoder_registry(&ndec);
        gc_rowbuf *st = gc_level_rows(&lv, &gc_table_decode_status);
        check(st->count == ndec);
        for (size_t i = 0; i < st->count; i++) {
            const gc_decode_status_row *r = gc_rows_at(st, i);
            check(r->status < GC_STATUS_COUNT);
            check(r->ok == (r->status == GC_OK));
            if (!r->ok && !r->skipped)
                check(strncmp(r->where, "LEVEL5.WAD", 10) == 0 && r->message[0] != '\0');
        }
        if (lv.data_ok)
            check(lv.core_data_size >= f.core_data.len);
        gc_level_free(&lv);
    }
    fx_release(&f);
    return 0;
}
