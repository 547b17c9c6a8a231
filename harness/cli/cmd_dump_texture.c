/* SPDX-License-Identifier: MIT */
/* `gcverify dump-texture`: write one tfrag texture, or one of its mip
 * levels, as a PNG. The reference notes call this the cheapest way to tell a
 * decode that is merely well-formed from one that is right: a wrong CLUT remap
 * or alpha scale is obvious to the eye and invisible to most assertions. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_corpus.h"
#include "gc_exit.h"
#include "gc_level.h"
#include "gc_png.h"
#include "gc_texture.h"
#include "sy_corpus.h"

int gc_cmd_dump_texture(int argc, char **argv);

static void dump_usage(FILE *f)
{
    fprintf(f, "usage: gcverify dump-texture [--corpus DIR] --level N --texture I [--mip M]\n"
               "                             -o FILE.png [--scale retail|small|edge] [--seed S]\n"
               "\n"
               "Decodes LEVEL<N>.WAD (any case) from DIR, or from the synthetic corpus when no\n"
               "--corpus is given, and writes tfrag texture I as an RGBA PNG: 8-bit indices\n"
               "from core_data, the CSM1-ordered CLUT from GS RAM, PS2 alpha 0..0x80 expanded\n"
               "to 0..255. --mip picks mip level 0 (default) to 3: levels 0 and 1 are in the\n"
               "core_data texture block, 2 and 3 in GS RAM. The PNG is written to a temporary\n"
               "file and renamed (-o - is standard output). Exit codes: 0 ok; 1 the texture\n"
               "could not be decoded; 2 bad usage; 3 corpus unreadable; 5 the PNG could not\n"
               "be written.\n");
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(s, &end, 0);
    if (errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

int gc_cmd_dump_texture(int argc, char **argv)
{
    const char *corpus = NULL, *out = NULL;
    unsigned long level = ~0ul, texture = ~0ul, mip = 0, seed = 1;
    int scale = SY_SCALE_RETAIL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            dump_usage(stdout);
            return 0;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(a, "--corpus") == 0 || strcmp(a, "--level") == 0 ||
                    strcmp(a, "--texture") == 0 || strcmp(a, "--mip") == 0 ||
                    strcmp(a, "-o") == 0 || strcmp(a, "--scale") == 0 || strcmp(a, "--seed") == 0;
        if (!takes) {
            fprintf(stderr, "gcverify dump-texture: unknown option '%s'\n", a);
            dump_usage(stderr);
            return 2;
        }
        if (!v) {
            fprintf(stderr, "gcverify dump-texture: %s needs a value\n", a);
            return 2;
        }
        i++;
        int bad = 0;
        if (strcmp(a, "--corpus") == 0)
            corpus = v;
        else if (strcmp(a, "-o") == 0)
            out = v;
        else if (strcmp(a, "--level") == 0)
            bad = parse_uint(v, GC_LEVEL_COUNT - 1, &level);
        else if (strcmp(a, "--texture") == 0)
            bad = parse_uint(v, UINT32_MAX, &texture);
        else if (strcmp(a, "--mip") == 0)
            bad = parse_uint(v, GC_TEXTURE_MIP_LEVELS - 1, &mip);
        else if (strcmp(a, "--seed") == 0)
            bad = parse_uint(v, UINT32_MAX, &seed);
        else {
            scale = sy_scale_parse(v);
            bad = scale < 0;
        }
        if (bad) {
            fprintf(stderr, "gcverify dump-texture: bad value '%s' for %s\n", v, a);
            return 2;
        }
    }
    if (level == ~0ul || texture == ~0ul || !out) {
        fprintf(stderr, "gcverify dump-texture: --level, --texture and -o are required\n");
        dump_usage(stderr);
        return 2;
    }

    char err[512] = "";
    gc_corpus c;
    gc_level lv;
    int orc = gc_corpus_decode_level("dump-texture", corpus, scale, (uint32_t)seed, (int)level, 0,
                                     &c, &lv);
    if (orc != 0)
        return orc;
    const gc_corpus_file *file = &c.files[level];
    int rc = 0;
    uint8_t *rgba = NULL;
    uint32_t w = 0, h = 0;
    gc_diag d;
    gc_diag_init(&d);
    gc_diag_push(&d, "%s", file->name);
    gc_diag_push(&d, "texture.tfrag[%lu]/mip%lu", texture, mip);
    gc_status s = gc_texture_rgba(&lv, (uint32_t)texture, (int)mip, 0, &rgba, &w, &h, &d);
    if (s != GC_OK) {
        fprintf(stderr, "gcverify dump-texture: %s: %s at file offset 0x%llx: %s\n", d.where,
                gc_status_name(s), (unsigned long long)d.file_ofs, d.msg);
        if (lv.first_error.status != GC_OK)
            fprintf(stderr, "  first decoder error: %s at 0x%llx (%s): %s\n",
                    gc_status_name(lv.first_error.status),
                    (unsigned long long)lv.first_error.file_ofs, lv.first_error.where,
                    lv.first_error.msg);
        rc = 1;
    } else if (gc_png_write_rgba(out, rgba, w, h, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify dump-texture: %s\n", err);
        rc = GC_EXIT_WRITE;
    } else {
        fprintf(strcmp(out, "-") == 0 ? stderr : stdout, "%s texture %lu mip %lu: %ux%u -> %s\n",
                file->name, texture, mip, (unsigned)w, (unsigned)h, out);
    }
    free(rgba);
    gc_level_free(&lv);
    gc_corpus_close(&c);
    return rc;
}
