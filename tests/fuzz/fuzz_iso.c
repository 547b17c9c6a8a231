/* SPDX-License-Identifier: MIT */
/* libFuzzer target for opening a disc image as the corpus (`--corpus F.iso`:
 * harness/sweep/corpus_iso.c over libcdio, docs/formats/disc-image.md). Also
 * built as the replay test replay_iso over tests/fuzz/corpus/iso/.
 *
 * Input: the image's sectors from 16 on (the volume descriptors, the path
 * tables and the directories; the committed seeds are sectors 16..20 of
 * `gcverify synth --iso F --scale small`). The target writes them to a file
 * after 16 zero sectors of system area and extends it, sparse, to 12,000
 * sectors, so that the level files of the synthetic layout (LBA 1029 + 400 i)
 * and the table of contents (LBA 1001) lie inside the image and read as
 * zeros: directory records, extents and the table-of-contents check all run.
 *
 * Beyond "no crash, no out-of-bounds access" (ASan, UBSan) it checks the
 * contract: a refused image says why and names the file; an opened one has
 * every level either found or with a terminated reason, and counts its found
 * levels right. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "gc_corpus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { SECTOR = 2048, SYSTEM_AREA = 16 * SECTOR, IMAGE_SECTORS = 12000 };

static int write_image(const char *path, const uint8_t *data, size_t size)
{
    static const uint8_t zeros[SYSTEM_AREA];
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(zeros, 1, sizeof zeros, f) == sizeof zeros &&
             (size == 0 || fwrite(data, 1, size, f) == size) && fflush(f) == 0;
    long end = (long)IMAGE_SECTORS * SECTOR;
    if (ok && (long)(SYSTEM_AREA + size) < end)
        ok = ftruncate(fileno(f), end) == 0; /* sparse: the rest reads as zeros */
    return fclose(f) == 0 && ok ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 64 * SECTOR) /* the directories, not the levels */
        return 0;
    const char *path = fuzz_scratch_path("iso", "iso");
    fuzz_check(write_image(path, data, size) == 0);
    gc_corpus c;
    char err[1024] = "";
    if (gc_corpus_open(&c, path, err, sizeof err) != 0) {
        fuzz_check(memchr(err, '\0', sizeof err) != NULL);
        fuzz_check(err[0] != '\0');
        fuzz_check(strstr(err, path) != NULL);
        unlink(path);
        return 0;
    }
    int found = 0;
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        const gc_corpus_file *f = &c.files[i];
        fuzz_check(f->index == i);
        fuzz_check(memchr(f->error, '\0', sizeof f->error) != NULL);
        fuzz_check(memchr(f->name, '\0', sizeof f->name) != NULL);
        fuzz_check(f->ok || f->error[0] != '\0');
        fuzz_check(f->head_len <= sizeof f->head);
        found += f->ok != 0;
    }
    fuzz_check(found == c.found);
    gc_corpus_close(&c);
    unlink(path);
    return 0;
}
