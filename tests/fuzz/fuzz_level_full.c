/* SPDX-License-Identifier: MIT */
/* libFuzzer target for whole, full-size level files: the input is a mutation
 * script, not a file. Its first byte picks one of the 27 levels of the small
 * synthetic corpus (built in memory once, by synth/), the rest is a list of
 * 6-byte in-place edits of that level (offset, kind, value): flip or set a
 * byte, write an interesting 32-bit value (0, -1, INT32_MAX, INT32_MIN, the
 * file size, a sector count), or cut the file. So every execution decodes a
 * real-sized level (hundreds of KiB, every extent, LZ stream and class
 * table present) with a few hostile fields, which fuzz_level's 16 KiB
 * inputs cannot reach: size-dependent failures (a count that only
 * overflows against a big table, an extent pointing past a real tail) live
 * here. Also built as the replay test replay_level_full over
 * tests/fuzz/corpus/level_full/ (scripts are small, so the corpus is too).
 *
 * Checks the decode.status contract of fuzz_level on every input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"
#include "sy_buf.h"
#include "sy_corpus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

static sy_buf levels[SY_LEVEL_COUNT];
static int built[SY_LEVEL_COUNT];

static const sy_buf *level_bytes(int i)
{
    if (!built[i]) {
        sy_options opt = {SY_SCALE_SMALL, 1};
        sy_buf_init(&levels[i]);
        check(sy_level_build(&opt, i, &levels[i]) == 0 && !levels[i].failed);
        built[i] = 1;
    }
    return &levels[i];
}

static void put_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 6 * 64 + 1)
        return 0;
    int li = data[0] % SY_LEVEL_COUNT;
    const sy_buf *src = level_bytes(li);
    size_t n = src->len;
    /* exactly n bytes, so ASan sees any read past the (possibly cut) end */
    uint8_t *f = malloc(n ? n : 1);
    check(f != NULL);
    memcpy(f, src->data, n);
    for (size_t k = 1; k + 6 <= size; k += 6) {
        uint32_t ofs32 = (uint32_t)data[k] | (uint32_t)data[k + 1] << 8 |
                         (uint32_t)data[k + 2] << 16 | (uint32_t)data[k + 3] << 24;
        uint8_t kind = data[k + 4], v = data[k + 5];
        if (n == 0)
            break;
        /* offsets favour the structured front of the file: the container
         * header and the data extent's tables */
        size_t ofs = (kind & 0x80) ? ofs32 % (n < 0x4000 ? n : 0x4000) : ofs32 % n;
        switch (kind & 7) {
        case 0:
            f[ofs] ^= v ? v : 1;
            break;
        case 1:
            f[ofs] = v;
            break;
        case 2:
        case 3: {
            static const uint32_t interesting[] = {
                0,     0xffffffffu, 0x7fffffffu, 0x80000000u, 1,           0x800u,
                0x10u, 0xfffffff0u, 0x00010000u, 0x40000000u, 0x00100000u, 0x000000ffu};
            uint32_t val = (kind & 7) == 2 ? interesting[v % GC_COUNTOF(interesting)]
                                           : (uint32_t)(n / 0x800) + (uint32_t)(int8_t)v;
            ofs &= ~(size_t)3;
            if (ofs + 4 <= n)
                put_u32le(f + ofs, val);
            break;
        }
        case 4:
            if (ofs + 4 <= n)
                put_u32le(f + ofs, (uint32_t)n + (uint32_t)v * 0x800u);
            break;
        case 5: /* cut the file here: a truncated tail, at a real offset */
            n = ofs;
            break;
        default: /* a run of bytes */
            for (size_t j = 0; j < (size_t)(v % 32) && ofs + j < n; j++)
                f[ofs + j] = (uint8_t)(kind ^ j);
            break;
        }
    }
    uint8_t *exact = malloc(n ? n : 1);
    check(exact != NULL);
    memcpy(exact, f, n);
    free(f);
    gc_level lv;
    if (gc_level_init(&lv, li, "LEVEL.WAD", exact, n) != GC_OK) {
        free(exact);
        return 0;
    }
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
            check(strncmp(r->where, "LEVEL.WAD", 9) == 0 && r->message[0] != '\0');
    }
    if (lv.data_ok)
        check(lv.core_data != NULL && lv.core_data_size > 0);
    if (lv.header_ok && lv.data_extent.present)
        check(lv.data_extent.data >= exact &&
              lv.data_extent.data + lv.data_extent.size <= exact + n);
    gc_level_free(&lv);
    free(exact);
    return 0;
}
