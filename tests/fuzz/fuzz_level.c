/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the whole decoder chain of one level file (every
 * registered decoder, in registry order). Also built as the replay test
 * replay_level over tests/fuzz/corpus/level/ (seeds: the hand-built fixture
 * of tests/dec_fixture.h, cut at structure boundaries and with hostile
 * counts and offsets).
 *
 * Beyond "no crash, no out-of-bounds access, no leak" (ASan) it checks the
 * decode.status contract: one row per decoder; a failed row carries a known
 * status and a breadcrumb rooted at the level name; a decoder never reports
 * ok and an error at once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gc_level lv;
    if (gc_level_init(&lv, 5, "LEVEL5.WAD", data, size) != GC_OK)
        return 0;
    gc_level_decode(&lv);
    size_t ndec;
    gc_decoder_registry(&ndec);
    gc_rowbuf *st = gc_level_rows(&lv, &gc_table_decode_status);
    check(st->count == ndec);
    for (size_t i = 0; i < st->count; i++) {
        const gc_decode_status_row *r = gc_rows_at(st, i);
        check(r->decoder == i);
        check(r->status < GC_STATUS_COUNT);
        check(r->ok == (r->status == GC_OK));
        if (!r->ok && !r->skipped)
            check(strncmp(r->where, "LEVEL5.WAD", 10) == 0 && r->message[0] != '\0');
    }
    /* shared state is consistent with what the decoders claim */
    if (lv.data_ok)
        check(lv.core_data != NULL && lv.core_data_size > 0);
    if (lv.header_ok && lv.data_extent.present)
        check(lv.data_extent.data >= data &&
              lv.data_extent.data + lv.data_extent.size <= data + size);
    gc_level_free(&lv);
    return 0;
}
