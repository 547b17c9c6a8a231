/* SPDX-License-Identifier: MIT */
/* gcverify extract: decode one level and write its extents and decompressed
 * streams as files (the set the reference project's extractor wrote, so users
 * can compare tools): data.bin, core_data.wad, core_data.bin, core_index.bin,
 * gameplay.bin (decompressed), sound_bank.bin, gs_ram.bin. Each file is
 * written atomically (temp file + rename). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_corpus.h"
#include "gc_exit.h"
#include "gc_fsutil.h"
#include "gc_level.h"
#include "gc_reader.h"

int gc_cmd_extract(int argc, char **argv);

static void usage(FILE *f)
{
    fprintf(f, "usage: gcverify extract [--corpus DIR] --level N --out DIR\n"
               "  Decodes LEVEL<N>.WAD (of DIR, or of the default synthetic corpus) and writes\n"
               "  data.bin, core_data.wad, core_data.bin, core_index.bin, gameplay.bin\n"
               "  (decompressed), sound_bank.bin and gs_ram.bin into the output directory.\n"
               "exit codes: 0 all written; 1 some piece could not be decoded (the others\n"
               "are written); 2 bad usage; 3 corpus or level unreadable; 5 a file could not\n"
               "be written.\n");
}

static int write_one(const char *dir, const char *name, const uint8_t *p, size_t n, int have)
{
    char path[PATH_MAX], err[512];
    if (!have) {
        fprintf(stderr, "gcverify extract: %s not written: not decoded\n", name);
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (gc_write_file_atomic(path, p, n, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify extract: %s\n", err);
        return 2; /* a failed write, not a missing piece */
    }
    printf("%-16s %12zu\n", name, n);
    return 0;
}

int gc_cmd_extract(int argc, char **argv)
{
    const char *corpus = NULL, *out = NULL;
    long level = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--corpus") == 0 && i + 1 < argc) {
            corpus = argv[++i];
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--level") == 0 && i + 1 < argc) {
            char *end;
            level = strtol(argv[++i], &end, 10);
            if (*end || level < 0 || level >= GC_LEVEL_COUNT) {
                fprintf(stderr, "gcverify extract: --level wants 0..%d, got '%s'\n",
                        GC_LEVEL_COUNT - 1, argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "gcverify extract: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (level < 0 || !out) {
        usage(stderr);
        return 2;
    }
    char err[512];
    gc_corpus c;
    gc_level lv;
    int orc = gc_corpus_decode_level("extract", corpus, 0, 1, (int)level, 0, &c, &lv);
    if (orc != 0)
        return orc;
    if (gc_mkdir_p(out, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify extract: %s\n", err);
        gc_level_free(&lv);
        gc_corpus_close(&c);
        return GC_EXIT_WRITE;
    }
    /* core_data.wad is the stream itself, without the range's padding */
    size_t z = lv.core_data_z.size;
    if (lv.core_data_z.present && z >= 7) {
        int32_t n = (int32_t)gc_load_u32le(lv.core_data_z.data + 3);
        if (n > 0 && (size_t)n <= z)
            z = (size_t)n;
    }
    int bad = 0;
    bad |= write_one(out, "data.bin", lv.data_extent.data, lv.data_extent.size,
                     lv.data_extent.present);
    bad |= write_one(out, "core_data.wad", lv.core_data_z.data, z, lv.core_data_z.present);
    bad |= write_one(out, "core_data.bin", lv.core_data, lv.core_data_size, lv.data_ok);
    bad |= write_one(out, "core_index.bin", lv.core_index.data, lv.core_index.size,
                     lv.core_index.present);
    bad |= write_one(out, "gameplay.bin", lv.gameplay, lv.gameplay_size, lv.gameplay != NULL);
    bad |= write_one(out, "sound_bank.bin", lv.sound_bank.data, lv.sound_bank.size,
                     lv.sound_bank.present);
    bad |= write_one(out, "gs_ram.bin", lv.gs_ram.data, lv.gs_ram.size, lv.gs_ram.present);
    if (lv.first_error.status != GC_OK)
        fprintf(stderr, "gcverify extract: %s: %s at 0x%llx: %s\n", lv.first_error.where,
                gc_status_name(lv.first_error.status), (unsigned long long)lv.first_error.file_ofs,
                lv.first_error.msg);
    gc_level_free(&lv);
    gc_corpus_close(&c);
    return (bad & 2) ? GC_EXIT_WRITE : bad ? 1 : 0;
}
