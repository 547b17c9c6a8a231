/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the WAD LZ decoder (decoders/gc_lz.c). Also built as
 * the replay test replay_lz over tests/fuzz/corpus/lz/.
 *
 * Input: if the first byte is odd, the rest is a packet stream and a valid
 * header is put in front of it (so the fuzzer explores packets instead of
 * rediscovering the magic); otherwise the input is the whole stream as is.
 * Beyond "no crash, no out-of-bounds access" (ASan) it checks the contract:
 * the status is one of the documented ones and matches the diagnostic; the
 * output never passes the capacity (guard bytes); a decode that succeeds with
 * ample room succeeds again with exactly its output size (which runs the tail
 * loop where the first run used the fast loop) and gives the same bytes; one
 * byte less gives GC_E_RANGE. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gc_lz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define GUARD   64u
#define MAX_OUT (4u << 20)

static void check(int cond)
{
    if (!cond)
        abort();
}

static gc_status run(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *got)
{
    gc_diag d;
    gc_diag_init(&d);
    memset(dst + cap, 0xA5, GUARD);
    *got = 0;
    gc_status s = gc_lz_decompress(src, n, 0x800, dst, cap, got, &d);
    check(s == GC_OK || s == GC_E_MAGIC || s == GC_E_TRUNCATED || s == GC_E_RANGE ||
          s == GC_E_CORRUPT);
    check(d.status == s);
    check(*got <= cap);
    if (s != GC_OK)
        check(d.file_ofs >= 0x800 && d.file_ofs < 0x800 + (n > 16 ? n : 16));
    for (size_t i = 0; i < GUARD; i++)
        check(dst[cap + i] == 0xA5);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *src;
    size_t n;
    if (size > 0 && (data[0] & 1)) {
        n = 16 + size - 1;
        src = malloc(n);
        if (!src)
            return 0;
        memcpy(src, "WAD\0\0\0\0fuzzlabel", 16);
        uint32_t v = (uint32_t)n;
        for (int i = 0; i < 4; i++)
            src[3 + i] = (uint8_t)(v >> (8 * i));
        memcpy(src + 16, data + 1, size - 1);
    } else {
        n = size;
        src = malloc(n ? n : 1);
        if (!src)
            return 0;
        if (n)
            memcpy(src, data, n);
    }
    /* output is bounded by 289 bytes per input byte; cap it for speed */
    size_t cap = n * 64 + 1024;
    if (cap > MAX_OUT)
        cap = MAX_OUT;
    uint8_t *dst = malloc(cap + GUARD);
    uint8_t *dst2 = malloc(cap + GUARD);
    if (dst && dst2) {
        size_t got = 0, got2 = 0;
        gc_status s = run(src, n, dst, cap, &got);
        if (s == GC_OK) {
            check(run(src, n, dst2, got, &got2) == GC_OK);
            check(got2 == got && memcmp(dst, dst2, got) == 0);
            if (got > 0)
                check(run(src, n, dst2, got - 1, &got2) == GC_E_RANGE);
        }
        /* a small capacity exercises the tail loop from the start */
        run(src, n, dst2, cap < 200 ? cap : 200, &got2);
    }
    free(dst2);
    free(dst);
    free(src);
    return 0;
}
