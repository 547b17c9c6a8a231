/* SPDX-License-Identifier: MIT */
/* `gcverify dump-texture`: write one tfrag texture, or one of its mip
 * levels, as a PNG. The reference notes call this the cheapest way to tell a
 * decode that is merely well-formed from one that is right: a wrong CLUT remap
 * or alpha scale is obvious to the eye and invisible to most assertions. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli_opts.h"
#include "gc_corpus.h"
#include "gc_exit.h"
#include "gc_level.h"
#include "gc_png.h"
#include "gc_texture.h"
#include "sy_corpus.h"

int gc_cmd_dump_texture(int argc, char **argv);

enum { K_CORPUS = GC_OPT_LONG, K_LEVEL, K_TEXTURE, K_MIP, K_SCALE, K_SEED };

static const gc_opt dump_opts[] = {
    {"corpus", K_CORPUS, "DIR", "the corpus (default: the synthetic one)"},
    {"level", K_LEVEL, "N", "the level, 0..26 (required)"},
    {"texture", K_TEXTURE, "I", "the tfrag texture index (required)"},
    {"mip", K_MIP, "M", "mip level 0 (default) to 3"},
    {"output", 'o', "FILE.png", "the PNG to write (required; - for stdout)"},
    {"scale", K_SCALE, "retail|small|edge", "synthetic corpus scale (default retail)"},
    {"seed", K_SEED, "S", "synthetic corpus seed (default 1)"},
};
static const gc_opt_group dump_groups[] = {GC_OPT_GROUP(NULL, dump_opts)};
static const gc_cmd_spec dump_spec =
    GC_CMD_SPEC("dump-texture",
                "[--corpus DIR] --level N --texture I [--mip M]\n"
                "-o FILE.png [--scale retail|small|edge] [--seed S]",
                "Decodes LEVEL<N>.WAD (any case) from DIR, or from the synthetic corpus when no\n"
                "--corpus is given, and writes tfrag texture I as an RGBA PNG: 8-bit indices\n"
                "from core_data, the CSM1-ordered CLUT from GS RAM, PS2 alpha 0..0x80 expanded\n"
                "to 0..255. --mip picks mip level 0 (default) to 3: levels 0 and 1 are in the\n"
                "core_data texture block, 2 and 3 in GS RAM. The PNG is written to a temporary\n"
                "file and renamed (-o - is standard output).\n",
                dump_groups,
                "Exit codes: 0 ok; 1 the texture could not be decoded; 2 bad usage; 3 corpus\n"
                "unreadable; 5 the PNG could not be written.\n");

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
    gc_opts p;
    if (gc_opts_init(&p, &dump_spec, argc, argv) != 0)
        return 2;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        const char *v = p.value;
        int bad = 0;
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return 2;
        case GC_OPT_ARG:
            return gc_opts_usage_error(&dump_spec, "unexpected argument '%s'", v);
        case K_CORPUS:
            corpus = v;
            break;
        case 'o':
            out = v;
            break;
        case K_LEVEL:
            bad = parse_uint(v, GC_LEVEL_COUNT - 1, &level);
            break;
        case K_TEXTURE:
            bad = parse_uint(v, UINT32_MAX, &texture);
            break;
        case K_MIP:
            bad = parse_uint(v, GC_TEXTURE_MIP_LEVELS - 1, &mip);
            break;
        case K_SEED:
            bad = parse_uint(v, UINT32_MAX, &seed);
            break;
        case K_SCALE:
            scale = sy_scale_parse(v);
            bad = scale < 0;
            break;
        }
        if (bad)
            return gc_opts_bad(&p, "bad value '%s' for %s", v, p.spelled);
    }
    if (level == ~0ul || texture == ~0ul || !out)
        return gc_opts_usage_error(&dump_spec, "--level, --texture and -o are required");
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
