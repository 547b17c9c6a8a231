/* SPDX-License-Identifier: MIT */
/* `gcverify synth`: write the synthetic retail-shaped corpus LEVEL0..26.WAD into a directory,
 * one level per pool task, each file written atomically (temp + rename). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gc_cli_opts.h"
#include "gc_corpus.h"
#include "gc_exit.h"
#include "gc_iso_write.h"
#include "gc_pool.h"
#include "sy_corpus.h"

int gc_cmd_synth(int argc, char **argv);

enum { K_ISO = GC_OPT_LONG, K_SCALE, K_SEED };

static const gc_opt synth_opts[] = {
    {"output", 'o', "DIR", "output directory (created if missing)"},
    {"out", 'o', "DIR", NULL},
    {"iso", K_ISO, "F",
     "an ISO 9660 image F with the level files and the RC2.HDR table of\n"
     "contents at sector 1001, as the retail disc has them\n"
     "(docs/formats/disc-image.md); deterministic bytes. With -o the\n"
     "image is made from DIR, else from the synthetic corpus cache"},
    {"scale", K_SCALE, "S",
     "retail (default): the real disc's shape; small: about 1/20 of it;\n"
     "edge: small levels at the format's legal extremes"},
    {"seed", K_SEED, "N", "generator seed (default 1); same version+scale+seed = same bytes"},
    {"jobs", 'j', "N", "levels built at once (default: the number of cores)"},
};
static const gc_opt_group synth_groups[] = {GC_OPT_GROUP(NULL, synth_opts)};

static int parse_u32(const char *s, uint32_t *v)
{
    char *end;
    unsigned long long x = strtoull(s, &end, 0);
    if (!*s || *end || x > UINT32_MAX)
        return -1;
    *v = (uint32_t)x;
    return 0;
}

/* The disc image of the corpus in dir (NULL: the cached synthetic corpus). */
static int synth_iso(const char *iso, const char *dir, int scale, uint32_t seed, unsigned jobs,
                     int progress)
{
    char err[1024] = "", cache[PATH_MAX];
    if (!dir) {
        if (gc_corpus_synthetic(scale, seed, jobs, progress, cache, sizeof cache, err,
                                sizeof err) != 0) {
            fprintf(stderr, "gcverify synth: %s\n", err);
            return GC_EXIT_WRITE;
        }
        dir = cache;
    }
    static char paths[SY_LEVEL_COUNT][PATH_MAX + 32];
    const char *p[SY_LEVEL_COUNT];
    for (int i = 0; i < SY_LEVEL_COUNT; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/LEVEL%d.WAD", dir, i);
        p[i] = paths[i];
    }
    if (gc_iso_write_levels(iso, p, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify synth: %s\n", err);
        return GC_EXIT_WRITE;
    }
    struct stat st;
    printf("synth: wrote the disc image %s (%s, seed %" PRIu32 ", %s): %.1f MB, RC2.HDR at "
           "sector 1001\n",
           iso, sy_scale_name(scale), seed, sy_generator_version(),
           stat(iso, &st) == 0 ? (double)st.st_size / 1e6 : 0.0);
    return 0;
}

int gc_cmd_synth(int argc, char **argv)
{
    const char *out = NULL, *iso = NULL;
    int scale = SY_SCALE_RETAIL;
    uint32_t seed = 1, jobs = 0;
    char about[512];
    snprintf(about, sizeof about,
             "Writes LEVEL0.WAD .. LEVEL26.WAD of the synthetic corpus (generator %s)\n"
             "into DIR, or as a disc image. On a terminal, progress is one updating line.\n",
             sy_generator_version());
    const gc_cmd_spec spec =
        GC_CMD_SPEC("synth", "-o DIR | --iso F [--scale retail|small|edge] [--seed N]\n[--jobs N]",
                    about, synth_groups, NULL);
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return 2;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        const char *v = p.value;
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return 2;
        case GC_OPT_ARG:
            return gc_opts_usage_error(&spec, "unexpected argument '%s'", v);
        case 'o':
            out = v;
            break;
        case K_ISO:
            iso = v;
            break;
        case K_SCALE:
            scale = sy_scale_parse(v);
            if (scale < 0)
                return gc_opts_bad(&p, "--scale takes retail, small or edge, not '%s'", v);
            break;
        case K_SEED:
            if (parse_u32(v, &seed) != 0)
                return gc_opts_bad(&p, "--seed takes a number, not '%s'", v);
            break;
        case 'j':
            if (parse_u32(v, &jobs) != 0 || jobs == 0 || jobs > 256)
                return gc_opts_bad(&p, "--jobs takes a number from 1 to 256, not '%s'", v);
            break;
        }
    }
    if (!out && !iso)
        return gc_opts_usage_error(&spec, "-o DIR or --iso F is required");
    if (jobs == 0)
        jobs = gc_core_count();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char err[512] = "";
    /* the updating line on a terminal; nothing per level otherwise */
    int tty = isatty(STDERR_FILENO) ? 2 : 0;
    if (!out) /* the image alone: from the cache, generated there if needed */
        return synth_iso(iso, NULL, scale, seed, jobs, tty);
    if (gc_corpus_write_synthetic(out, scale, seed, jobs, tty, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify synth: %s\n", err[0] ? err : "failed");
        return GC_EXIT_WRITE;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    uint64_t total = 0;
    for (int i = 0; i < SY_LEVEL_COUNT; i++) {
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/LEVEL%d.WAD", out, i);
        if (stat(path, &st) == 0)
            total += (uint64_t)st.st_size;
    }
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("synth: wrote %d levels (%s, seed %" PRIu32 ", %s) to %s: %.1f MB in %.2f s on %" PRIu32
           " jobs\n",
           SY_LEVEL_COUNT, sy_scale_name(scale), seed, sy_generator_version(), out,
           (double)total / 1e6, secs, jobs);
    return iso ? synth_iso(iso, out, scale, seed, jobs, tty) : 0;
}
