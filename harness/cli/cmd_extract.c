/* SPDX-License-Identifier: MIT */
/* gcverify extract: decode one level and write its extents and decompressed
 * streams as files (the set the reference project's extractor wrote, so users
 * can compare tools): data.bin, core_data.wad, core_data.bin, core_index.bin,
 * gameplay.bin (decompressed), sound_bank.bin, gs_ram.bin. Each file is
 * written atomically (temp file + rename). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli_opts.h"
#include "gc_corpus.h"
#include "gc_exit.h"
#include "gc_fsutil.h"
#include "gc_level.h"
#include "gc_reader.h"

int gc_cmd_extract(int argc, char **argv);

enum { K_CORPUS = GC_OPT_LONG, K_LEVEL };

static const gc_opt extract_opts[] = {
    {"corpus", K_CORPUS, "DIR", "the corpus (default: the synthetic one)"},
    {"level", K_LEVEL, "N", "the level, 0..26 (required)"},
    {"output", 'o', "DIR", "the output directory (required; created if missing)"},
    {"out", 'o', "DIR", NULL},
};
static const gc_opt_group extract_groups[] = {GC_OPT_GROUP(NULL, extract_opts)};
static const gc_cmd_spec extract_spec =
    GC_CMD_SPEC("extract", "[--corpus DIR] --level N -o DIR",
                "Decodes LEVEL<N>.WAD (of DIR, or of the default synthetic corpus) and writes\n"
                "data.bin, core_data.wad, core_data.bin, core_index.bin, gameplay.bin\n"
                "(decompressed), sound_bank.bin and gs_ram.bin into the output directory.\n",
                extract_groups,
                "exit codes: 0 all written; 1 some piece could not be decoded (the others\n"
                "are written); 2 bad usage; 3 corpus or level unreadable; 5 a file could not\n"
                "be written.\n");

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
    gc_opts p;
    if (gc_opts_init(&p, &extract_spec, argc, argv) != 0)
        return 2;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        char *end;
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return 2;
        case GC_OPT_ARG:
            return gc_opts_usage_error(&extract_spec, "unexpected argument '%s'", p.value);
        case K_CORPUS:
            corpus = p.value;
            break;
        case 'o':
            out = p.value;
            break;
        case K_LEVEL:
            level = strtol(p.value, &end, 10);
            if (!*p.value || *end || level < 0 || level >= GC_LEVEL_COUNT)
                return gc_opts_bad(&p, "--level takes 0..%d, not '%s'", GC_LEVEL_COUNT - 1,
                                   p.value);
            break;
        }
    }
    if (level < 0 || !out)
        return gc_opts_usage_error(&extract_spec, "--level N and -o DIR are required");
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
