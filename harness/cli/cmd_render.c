/* SPDX-License-Identifier: MIT */
/* `gcverify render`: decode one level, draw one named view, print its
 * SHA-256, manifest and camera, and optionally write it as a PNG and compare
 * it with golden/frames.yaml. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli.h"
#include "gc_cli_opts.h"
#include "gc_corpus.h"
#include "gc_exit.h"
#include "gc_frame.h"
#include "gc_fsutil.h"
#include "gc_golden_frames.h"
#include "gc_image_store.h"
#include "gc_level.h"
#include "gc_png.h"
#include "gc_render.h"
#include "sy_corpus.h"

int gc_cmd_render(int argc, char **argv);

/* The options of render. To add one: a K_ key here, a line in render_opts,
 * a case in gc_cmd_render's switch (gc_cli_opts.h). */
enum {
    K_CORPUS = GC_OPT_LONG,
    K_LEVEL,
    K_VIEW,
    K_WIDTH,
    K_HEIGHT,
    K_GOLDEN,
    K_GOLDEN_IMAGES,
    K_SCALE,
    K_SEED,
    K_INJECT_FAULT,
    K_LIGHTING,
    K_OBJECTS,
};

static const gc_opt render_opts[] = {
    {"corpus", K_CORPUS, "DIR", "the corpus (default: the synthetic one)"},
    {"level", K_LEVEL, "N|all", "the level 0..26, or all"},
    {"view", K_VIEW, "NAME", "overview or ground (default overview)"},
    {"output", 'o', "FILE.png",
     "write the frame as a PNG (- for stdout; with --level\n"
     "all a directory for every frame)"},
    {"width", K_WIDTH, "W", "frame width (default " GC_OPT_STR(GC_RENDER_WIDTH) ")"},
    {"height", K_HEIGHT, "H", "frame height (default " GC_OPT_STR(GC_RENDER_HEIGHT) ")"},
    {"golden", K_GOLDEN, "FILE",
     "compare the hash with a frames YAML file (exit 1 if it\n"
     "regressed)"},
    {"golden-images", K_GOLDEN_IMAGES, "DIR", "write the actual, expected and diff PNGs into DIR"},
    {"scale", K_SCALE, "retail|small|edge", "synthetic corpus scale (default retail)"},
    {"seed", K_SEED, "N", "synthetic corpus seed (default 1)"},
    {"inject-fault", K_INJECT_FAULT, "NAME",
     "decode with a catalogued decoder defect (GC_FAULTS\n"
     "builds)"},
    {"lighting", K_LIGHTING, "on|off",
     "the lighting pass's tfrag colours (on, the default) or\n"
     "the stored unlit ones (off)"},
    {"objects", K_OBJECTS, "on|off",
     "draw the tie, shrub and moby instances (on, the default)\n"
     "or the terrain only (off)"},
};

static const char render_about[] =
    "Decodes LEVEL<N>.WAD (any case) from DIR, or from the synthetic corpus when\n"
    "no --corpus is given, renders view NAME (overview, ground; default overview)\n"
    "at W x H, prints the frame's sha256, its manifest and the\n"
    "view's camera, and writes FILE.png if asked. --golden compares the hash with\n"
    "a frames YAML file (exit 1 if it regressed); --golden-images writes\n"
    "LEVEL<N>_<view>_actual.png into DIR and, when the golden hash is in the frame\n"
    "image store ($GC_FRAME_STORE or ~/.cache/gcverify/frames), _expected.png and\n"
    "_diff.png with the count of changed pixels. --inject-fault NAME decodes with a\n"
    "catalogued decoder defect switched on (GC_FAULTS builds; see gcverify faults).\n"
    "--lighting off draws the stored (unlit) tfrag colours instead of the lighting\n"
    "pass's (the manifest says lighting=lit or lighting=unlit). --objects off draws\n"
    "the terrain only, without the tie, shrub and moby instances (the manifest's\n"
    "objects= says off, or per kind the instances and triangles drawn).\n";

static const char render_footer[] =
    "--level all renders every view of every level and prints one line each,\n"
    "\"<level> <view> <sha256>\" (or \"<level> <view> error <message>\"), in level\n"
    "then view order; -o DIR then writes DIR/LEVEL<N>_<view>.png. Exit 1 if any\n"
    "frame could not be rendered (ci/frames_crosscheck.sh diffs these lines), 4 if\n"
    "a level could not be read.\n"
    "-o - writes the PNG to standard output (the description goes to stderr).\n"
    "A PNG that cannot be written is exit 5.\n";

static const gc_opt_group render_groups[] = {GC_OPT_GROUP(NULL, render_opts)};
static const gc_cmd_spec render_spec =
    GC_CMD_SPEC("render",
                "[--corpus DIR] --level N|all [--view NAME] [-o FILE.png]\n"
                "[--width W --height H] [--golden FILE]\n"
                "[--golden-images DIR] [--scale small|retail|edge]\n"
                "[--seed N]\n"
                "[--inject-fault NAME] [--lighting on|off] [--objects on|off]",
                render_about, render_groups, render_footer);

/* Every view of every level, one line each; PNGs into dir when given. */
static int render_all(gc_corpus *c, uint32_t width, uint32_t height, const char *dir, int fault,
                      int lighting, int objects)
{
    const char *const *names;
    int nv = gc_render_view_names(&names), rc = 0;
    char err[512];
    if (dir && gc_mkdir_p(dir, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify render: %s\n", err);
        return GC_EXIT_WRITE;
    }
    int wrc = 0;
    int partial = 0;
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        gc_corpus_file *file = &c->files[i];
        if (!file->ok || gc_corpus_file_load(file) != 0) {
            for (int v = 0; v < nv; v++)
                printf("%d %s error %s\n", i, names[v], file->error);
            partial = 1;
            continue;
        }
        gc_level lv;
        if (gc_level_init(&lv, i, file->name, file->data, file->size) != GC_OK) {
            printf("%d - error out of memory\n", i);
            rc = 1;
            continue;
        }
        lv.fault = fault;
        gc_level_decode(&lv);
        err[0] = '\0';
        gc_render_scene *scene = gc_render_scene_new(&lv, err, sizeof err);
        if (scene) {
            gc_render_scene_set_lighting(scene, lighting);
            gc_render_scene_set_objects(scene, objects);
        }
        for (int v = 0; v < nv; v++) {
            gc_frame f;
            char hex[65];
            if (!scene || gc_render_scene_draw(scene, names[v], width, height, &f, NULL, err,
                                               sizeof err) != 0) {
                printf("%d %s error %s\n", i, names[v], err);
                rc = 1;
                continue;
            }
            if (gc_frame_sha256(&f, hex, NULL, 0) != 0) {
                printf("%d %s error hashing failed\n", i, names[v]);
                rc = 1;
            } else {
                printf("%d %s %s\n", i, names[v], hex);
            }
            if (dir) {
                char path[4096];
                snprintf(path, sizeof path, "%s/LEVEL%d_%s.png", dir, i, names[v]);
                if (gc_png_write_rgba(path, f.rgba, f.width, f.height, err, sizeof err) != 0) {
                    fprintf(stderr, "gcverify render: %s\n", err);
                    wrc = GC_EXIT_WRITE;
                }
            }
            gc_frame_free(&f);
        }
        gc_render_scene_free(scene);
        gc_level_free(&lv);
        gc_corpus_file_unload(file);
    }
    fflush(stdout);
    return wrc ? wrc : partial ? GC_EXIT_PARTIAL : rc;
}

int gc_cmd_render(int argc, char **argv)
{
    const char *corpus = NULL, *view = "overview", *out_png = NULL, *golden = NULL,
               *golden_images = NULL;
    int lighting = 1, objects = 1;
    unsigned long long level = ~0ull, width = GC_RENDER_WIDTH, height = GC_RENDER_HEIGHT, seed = 1;
    int scale = SY_SCALE_RETAIL, all = 0, fault = 0;
    gc_opts p;
    if (gc_opts_init(&p, &render_spec, argc, argv) != 0)
        return GC_EXIT_USAGE;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        const char *v = p.value;
        int bad = 0;
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return GC_EXIT_USAGE;
        case GC_OPT_ARG:
            return gc_opts_usage_error(&render_spec, "unexpected argument '%s'", v);
        case K_CORPUS:
            corpus = v;
            break;
        case K_LEVEL:
            if (strcmp(v, "all") == 0)
                all = 1;
            else
                bad = gc_cli_uint(v, GC_LEVEL_COUNT - 1, &level) != 0;
            break;
        case K_LIGHTING:
            if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
                return gc_opts_bad(&p, "--lighting takes on or off, not '%s'", v);
            lighting = strcmp(v, "on") == 0;
            break;
        case K_OBJECTS:
            if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
                return gc_opts_bad(&p, "--objects takes on or off, not '%s'", v);
            objects = strcmp(v, "on") == 0;
            break;
        case K_VIEW:
            view = v;
            break;
        case 'o':
            out_png = v;
            break;
        case K_WIDTH:
            bad = gc_cli_uint(v, 8192, &width) != 0 || width == 0;
            break;
        case K_HEIGHT:
            bad = gc_cli_uint(v, 8192, &height) != 0 || height == 0;
            break;
        case K_GOLDEN:
            golden = v;
            break;
        case K_GOLDEN_IMAGES:
            golden_images = v;
            break;
        case K_INJECT_FAULT:
            fault = gc_fault_lookup(v);
            if (fault <= 0)
                return gc_opts_bad(&p, "unknown fault '%s' (see gcverify faults)", v);
            if (!GC_FAULTS_BUILT)
                return gc_opts_bad(&p, "--inject-fault needs a build configured with "
                                       "-DGC_FAULTS=ON (make FAULTS=ON)");
            break;
        case K_SEED:
            bad = gc_cli_uint(v, UINT32_MAX, &seed) != 0;
            break;
        case K_SCALE:
            scale = sy_scale_parse(v);
            bad = scale < 0;
            break;
        }
        if (bad)
            return gc_opts_bad(&p, "bad value '%s' for %s", v, p.spelled);
    }
    if (all) {
        char err[512] = "";
        gc_corpus c;
        if (gc_corpus_scan_any(&c, corpus, scale, (uint32_t)seed, 2, 1, err, sizeof err) != 0) {
            fprintf(stderr, "gcverify render: %s\n", err);
            return 3;
        }
        int rc =
            render_all(&c, (uint32_t)width, (uint32_t)height, out_png, fault, lighting, objects);
        gc_corpus_close(&c);
        return rc;
    }
    if (level == ~0ull) {
        return gc_opts_usage_error(&render_spec, "--level N is required");
    }
    const char *const *names;
    int nv = gc_render_view_names(&names), known = 0;
    for (int k = 0; k < nv; k++)
        known |= strcmp(names[k], view) == 0;
    if (!known) {
        fprintf(stderr, "gcverify render: unknown view '%s' (views:", view);
        for (int k = 0; k < nv; k++)
            fprintf(stderr, " %s", names[k]);
        fprintf(stderr, ")\n");
        return 2;
    }

    char err[512] = "";
    gc_corpus c;
    gc_level lv;
    int orc =
        gc_corpus_decode_level("render", corpus, scale, (uint32_t)seed, (int)level, fault, &c, &lv);
    if (orc != 0)
        return orc;
    const gc_corpus_file *file = &c.files[level];

    int rc = 0;
    gc_frame f;
    gc_view_params vp;
    gc_render_scene *scene = gc_render_scene_new(&lv, err, sizeof err);
    if (scene) {
        gc_render_scene_set_lighting(scene, lighting);
        gc_render_scene_set_objects(scene, objects);
    }
    if (!scene || gc_render_scene_draw(scene, view, (uint32_t)width, (uint32_t)height, &f, &vp, err,
                                       sizeof err) != 0) {
        fprintf(stderr, "gcverify render: %s: %s\n", file->name, err);
        if (lv.first_error.status != GC_OK)
            fprintf(stderr, "  first decoder error: %s at 0x%llx (%s): %s\n",
                    gc_status_name(lv.first_error.status),
                    (unsigned long long)lv.first_error.file_ofs, lv.first_error.where,
                    lv.first_error.msg);
        gc_render_scene_free(scene);
        gc_level_free(&lv);
        gc_corpus_close(&c);
        return 1;
    }
    char hex[65], manifest[GC_FRAME_MANIFEST_MAX], params[512], golden_sha[65] = "";
    if (gc_frame_sha256(&f, hex, manifest, sizeof manifest) != 0) {
        fprintf(stderr, "gcverify render: hashing failed\n");
        rc = 1;
        goto done;
    }
    gc_view_params_text(&vp, params, sizeof params);
    /* with -o - the PNG is on stdout: the description goes to stderr */
    FILE *info = out_png && strcmp(out_png, "-") == 0 ? stderr : stdout;
    const gc_render_stats *st = gc_render_scene_stats(scene);
    fprintf(info, "level     %llu (%s)\n", level, file->name);
    fprintf(info, "sha256    %s\n", hex);
    fprintf(info, "manifest  %s\n", manifest);
    fprintf(info, "camera    %s\n", params);
    fprintf(info,
            "drawn     %llu patches (lod0 %llu, lod1 %llu, lod2 %llu; %s), %llu triangles "
            "(%llu untextured, %llu bad index), %llu pixels written\n",
            (unsigned long long)st->patches, (unsigned long long)st->patches_by_lod[0],
            (unsigned long long)st->patches_by_lod[1], (unsigned long long)st->patches_by_lod[2],
            st->lod_rule ? "LOD rule" : "no LOD module: LOD 0",
            (unsigned long long)st->triangles_submitted,
            (unsigned long long)st->triangles_untextured,
            (unsigned long long)st->triangles_bad_index, (unsigned long long)st->pixels_written);
    fprintf(info, "textures  %u decoded, %u failed%s\n", st->textures_decoded, st->textures_failed,
            st->textures ? "" : " (no texture module: vertex colour only)");
    static const char *const kinds[GC_RENDER_OBJECT_KINDS] = {"tie", "shrub", "moby"};
    for (int k = 0; st->objects_on && k < GC_RENDER_OBJECT_KINDS; k++)
        fprintf(info, "%-9s %llu instances (%llu not drawn), %llu triangles (%llu untextured)\n",
                kinds[k], (unsigned long long)st->objects[k].instances,
                (unsigned long long)st->objects[k].unresolved,
                (unsigned long long)st->objects[k].triangles,
                (unsigned long long)st->objects[k].triangles_untextured);
    if (golden) {
        gc_golden_frames g;
        if (gc_golden_frames_load(golden, &g, err, sizeof err) != 0) {
            fprintf(stderr, "gcverify render: %s\n", err);
            rc = 2;
            goto done;
        }
        const gc_golden_frame *e = NULL;
        gc_frame_verdict verdict =
            gc_golden_frames_compare(&g, (int)level, view, hex, manifest, &e);
        fprintf(info, "golden    %s%s%s\n", gc_frame_verdict_name(verdict), e ? " " : "",
                e ? e->sha256 : "");
        if (e)
            snprintf(golden_sha, sizeof golden_sha, "%s", e->sha256);
        if (verdict == GC_FRAME_REGRESSED)
            rc = 1;
        gc_golden_frames_free(&g);
    }
    if (golden_images) {
        /* the expected picture: the golden hash's entry in the image store */
        char store[4096];
        gc_image_store_dir(NULL, store, sizeof store);
        gc_frame expected;
        memset(&expected, 0, sizeof expected);
        int have = golden_sha[0] && strcmp(golden_sha, hex) != 0
                       ? gc_image_store_get(store, golden_sha, view, &expected, err, sizeof err)
                       : 0;
        if (have < 0)
            fprintf(stderr, "gcverify render: %s\n", err);
        uint64_t changed = UINT64_MAX;
        if (gc_golden_images_write(golden_images, (int)level, view, &f, have > 0 ? &expected : NULL,
                                   &changed, err, sizeof err) != 0) {
            fprintf(stderr, "gcverify render: %s\n", err);
            rc = gc_exit_with_write_failure(rc);
        } else if (changed != UINT64_MAX) {
            fprintf(info, "review    %s/LEVEL%lld_%s_diff.png: %llu pixels changed\n",
                    golden_images, (long long)level, view, (unsigned long long)changed);
        }
        gc_frame_free(&expected);
    }
    if (out_png) {
        if (gc_png_write_rgba(out_png, f.rgba, f.width, f.height, err, sizeof err) != 0) {
            fprintf(stderr, "gcverify render: %s\n", err);
            rc = gc_exit_with_write_failure(rc);
        } else {
            fprintf(info, "wrote     %s\n", out_png);
        }
    }
done:
    gc_frame_free(&f);
    gc_render_scene_free(scene);
    gc_level_free(&lv);
    gc_corpus_close(&c);
    return rc;
}
