/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the RC2.HDR table-of-contents check
 * (harness/sweep/corpus_toc.c, docs/formats/disc-image.md §2). Also built as
 * the replay test replay_toc over tests/fuzz/corpus/toc/.
 *
 * Input: the table of contents as read from LBA 1001. The level files it is
 * checked against are fixed: LEVEL<i>.WAD at LBA 1029 + 400 i, 400 sectors,
 * with a 0x60-byte header. Beyond "no crash, no out-of-bounds read" (ASan)
 * it checks the contract: a level reported failed was checked, its text is
 * terminated, and an entry offset lies inside the table of contents. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gc_corpus_iso.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t header[0x60];
    header[0] = 0x60;
    gc_toc_file files[GC_LEVEL_COUNT];
    memset(files, 0, sizeof files);
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        files[i].present = i != 13; /* one level missing from the filesystem */
        files[i].lba = 1029u + 400u * (unsigned)i;
        files[i].size = 400u * 2048u;
        files[i].data = header;
        files[i].data_size = sizeof header;
    }
    gc_toc_check out[GC_LEVEL_COUNT];
    gc_toc_check_levels(data, size, 1001, files, out);
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        check(!out[i].failed || out[i].checked);
        check(memchr(out[i].text, '\0', sizeof out[i].text) != NULL);
        check(out[i].entry_file_ofs == 0 || (out[i].entry_file_ofs >= 1001u * 2048u &&
                                             out[i].entry_file_ofs - 1001u * 2048u < size));
    }
    return 0;
}
