/* SPDX-License-Identifier: MIT */
/* Frames in the sweep: render, hash, compare, determinism, annotation. */
#include "gc_sweep_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gc_image_store.h"
#include "gc_png.h"
#include "gc_render.h"

#define GC_FRAME_WIDTH  640
#define GC_FRAME_HEIGHT 448

int gc_sweep_frames_load_golden(const char *path, gc_sweep_frame_golden *g, char *err,
                                size_t errlen)
{
    return gc_golden_frames_load(path, g, err, errlen);
}

void gc_sweep_frames_free_golden(gc_sweep_frame_golden *g)
{
    gc_golden_frames_free(g);
}

void gc_sweep_level_frames_free(gc_sweep_level_frames *f)
{
    f->count = 0;
}

static const char *status_of(gc_frame_verdict v)
{
    switch (v) {
    case GC_FRAME_MATCH:
        return "match";
    case GC_FRAME_NO_GOLDEN:
        return "new";
    case GC_FRAME_MANIFEST_DIFFERS:
        return "manifest_differs";
    case GC_FRAME_REGRESSED:
        return "regressed";
    }
    return "error";
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* --golden-images for one regressed frame: the actual picture, and the
 * expected one from the image store (by the golden hash) with a diff. */
/* 0, or -1 when the review images could not be written (err filled). */
static int review_images(const char *dir, const char *store, int level, const char *view,
                         const gc_frame *actual, const char *golden_sha, gc_sweep_frame_item *it,
                         char *werr, size_t werrlen)
{
    int rc = 0;
    char err[512] = "";
    char actual_p[1024], expected_p[1024], diff_p[1024];
    snprintf(actual_p, sizeof actual_p, "%s/LEVEL%d_%s_actual.png", dir, level, view);
    snprintf(expected_p, sizeof expected_p, "%s/LEVEL%d_%s_expected.png", dir, level, view);
    snprintf(diff_p, sizeof diff_p, "%s/LEVEL%d_%s_diff.png", dir, level, view);
    /* files of an earlier run must not pass for this one's */
    unlink(expected_p);
    unlink(diff_p);
    gc_frame expected;
    memset(&expected, 0, sizeof expected);
    int have = golden_sha && golden_sha[0]
                   ? gc_image_store_get(store, golden_sha, view, &expected, err, sizeof err)
                   : 0;
    if (have < 0) {
        snprintf(it->params + strlen(it->params), sizeof it->params - strlen(it->params),
                 " (image store: %s)", err);
        have = 0;
    }
    if (gc_golden_images_write(dir, level, view, actual, have ? &expected : NULL,
                               &it->pixels_changed, err, sizeof err) == 0) {
        snprintf(it->image_actual, sizeof it->image_actual, "%s", actual_p);
        if (access(expected_p, F_OK) == 0)
            snprintf(it->image_expected, sizeof it->image_expected, "%s", expected_p);
        if (access(diff_p, F_OK) == 0)
            snprintf(it->image_diff, sizeof it->image_diff, "%s", diff_p);
    } else {
        snprintf(it->params + strlen(it->params), sizeof it->params - strlen(it->params),
                 " (could not write review images: %s)", err);
        snprintf(werr, werrlen, "%s", err);
        rc = -1;
    }
    gc_frame_free(&expected);
    return rc;
}

/* A prefix per decoder, not a list of tables (harness/scene/render.c: terrain,
 * objects, their instances, lights, normals, textures), so a renderer that
 * starts reading another table of these decoders still finds it. */
int gc_sweep_frames_reads_table(const char *name)
{
    static const char *const prefixes[] = {"tfrag.",    "moby.",    "tie.",    "shrub.",
                                           "gameplay.", "normals.", "texture."};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

void gc_sweep_render_level(const gc_level *lv, const gc_sweep_opts *o,
                           const gc_sweep_frame_golden *g, gc_sweep_level_frames *out)
{
    char store[4096];
    gc_image_store_dir(o->frame_store, store, sizeof store);
    const char *const *names;
    int nviews = gc_render_view_names(&names);
    out->count = 0;
    char err[256] = "";
    /* one scene per level: geometry gathered and textures decoded once for
     * every view */
    gc_render_scene *scene = gc_render_scene_new(lv, err, sizeof err);
    if (scene)
        gc_render_scene_set_lighting(scene, !o->lighting_off);
    /* one target for the level's views, drawn and hashed in turn: each view
     * allocating (and first-touching) its own 2.3 MB of colour and depth was
     * a third of the frames' CPU on a machine where a page fault costs ~13 us.
     * Without it (no memory), each view allocates its own, as before. */
    gc_rs_target target;
    const int shared = gc_rs_target_init(&target, GC_FRAME_WIDTH, GC_FRAME_HEIGHT, 0) == 0;
    for (int v = 0; v < nviews && out->count < GC_SWEEP_MAX_VIEWS; v++) {
        gc_sweep_frame_item *it = &out->items[out->count++];
        memset(it, 0, sizeof *it);
        it->pixels_changed = UINT64_MAX;
        double t0 = cpu_now();
        snprintf(it->view, sizeof it->view, "%s", names[v]);
        gc_frame f;
        memset(&f, 0, sizeof f);
        gc_view_params vp;
        if (!scene ||
            (shared ? gc_render_scene_draw_into(scene, names[v], &target, &f, &vp, err, sizeof err)
                    : gc_render_scene_draw(scene, names[v], GC_FRAME_WIDTH, GC_FRAME_HEIGHT, &f,
                                           &vp, err, sizeof err)) != 0) {
            snprintf(it->status, sizeof it->status, "error");
            snprintf(it->params, sizeof it->params, "render failed: %s", err);
            continue;
        }
        gc_view_params_text(&vp, it->params, sizeof it->params);
        if (gc_frame_sha256(&f, it->sha256, it->manifest, sizeof it->manifest) != 0) {
            snprintf(it->status, sizeof it->status, "error");
            if (!shared)
                gc_frame_free(&f);
            continue;
        }
        it->time_seconds = cpu_now() - t0;
        const gc_golden_frame *entry = NULL;
        gc_frame_verdict verdict =
            gc_golden_frames_compare(g, lv->index, names[v], it->sha256, it->manifest, &entry);
        snprintf(it->status, sizeof it->status, "%s", status_of(verdict));
        if (entry)
            snprintf(it->golden, sizeof it->golden, "%s", entry->sha256);
        if (o->frames_out) {
            char path[4096];
            snprintf(path, sizeof path, "%s/LEVEL%d_%s.png", o->frames_out, lv->index, names[v]);
            if (gc_png_write_rgba(path, f.rgba, f.width, f.height, err, sizeof err) != 0 &&
                !out->write_failed) {
                out->write_failed = 1;
                snprintf(out->write_error, sizeof out->write_error, "%s", err);
            }
        }
        if ((o->frames_out || o->store_frames) &&
            gc_image_store_put(store, it->sha256, &f, err, sizeof err) != 0) {
            snprintf(it->params + strlen(it->params), sizeof it->params - strlen(it->params),
                     " (image store: %s)", err);
            if (!out->write_failed) {
                out->write_failed = 1;
                snprintf(out->write_error, sizeof out->write_error, "image store: %s", err);
            }
        }
        if (o->golden_images && verdict == GC_FRAME_REGRESSED &&
            review_images(o->golden_images, store, lv->index, names[v], &f, it->golden, it, err,
                          sizeof err) != 0 &&
            !out->write_failed) {
            out->write_failed = 1;
            snprintf(out->write_error, sizeof out->write_error, "%s", err);
        }
        if (!shared)
            gc_frame_free(&f); /* (a shared target's pixels are the target's) */
    }
    if (shared)
        gc_rs_target_free(&target);
    gc_render_scene_free(scene);
}

void gc_sweep_frames_to_report(const gc_sweep_level_frames *f, int level, gc_report *rep)
{
    for (size_t i = 0; i < f->count; i++) {
        const gc_sweep_frame_item *it = &f->items[i];
        gc_rep_frame *x = gc_report_add_frame(rep, level, it->view);
        if (!x)
            return;
        snprintf(x->sha256, sizeof x->sha256, "%s", it->sha256);
        snprintf(x->golden, sizeof x->golden, "%s", it->golden);
        snprintf(x->status, sizeof x->status, "%s", it->status);
        x->manifest = strdup(it->manifest);
        x->params = strdup(it->params);
        x->pixels_changed = it->pixels_changed;
        x->time_seconds = it->time_seconds;
        x->image_actual = it->image_actual[0] ? strdup(it->image_actual) : NULL;
        x->image_expected = it->image_expected[0] ? strdup(it->image_expected) : NULL;
        x->image_diff = it->image_diff[0] ? strdup(it->image_diff) : NULL;
    }
}

int gc_sweep_frames_rerender(const gc_level *lv, const gc_sweep_opts *o,
                             char hex[GC_SWEEP_RERENDERS][65])
{
    const char *const *names;
    if (gc_render_view_names(&names) < 1)
        return 0;
    int n = 0;
    /* each pass builds its own scene, as gc_render_level_lighting does (the
     * whole path from the tables again), and draws into one target the
     * passes share (cleared by every draw) */
    gc_rs_target target;
    if (gc_rs_target_init(&target, GC_FRAME_WIDTH, GC_FRAME_HEIGHT, 0) != 0)
        return 0;
    for (int pass = 0; pass < GC_SWEEP_RERENDERS; pass++) {
        gc_frame f;
        char err[256], manifest[GC_FRAME_MANIFEST_MAX];
        gc_render_scene *scene = gc_render_scene_new(lv, err, sizeof err);
        if (!scene)
            break;
        gc_render_scene_set_lighting(scene, !o->lighting_off);
        int ok =
            gc_render_scene_draw_into(scene, names[0], &target, &f, NULL, err, sizeof err) == 0 &&
            gc_frame_sha256(&f, hex[n], manifest, sizeof manifest) == 0;
        gc_render_scene_free(scene);
        if (!ok)
            break;
        n++;
    }
    gc_rs_target_free(&target);
    return n;
}

void gc_sweep_frames_determinism(gc_report *rep, int level, const char hex[][65], int n)
{
    const char *const *names;
    if (gc_render_view_names(&names) < 1)
        return;
    gc_rep_frame *target = NULL;
    for (size_t i = 0; i < rep->frame_count; i++)
        if (rep->frames[i].level == level && strcmp(rep->frames[i].view, names[0]) == 0)
            target = &rep->frames[i];
    if (!target || strcmp(target->status, "error") == 0)
        return;
    for (int pass = 0; pass < n; pass++)
        if (strcmp(hex[pass], target->sha256) != 0) {
            snprintf(target->status, sizeof target->status, "nondeterministic");
            return;
        }
}

void gc_sweep_frames_annotate(gc_report *rep)
{
    for (size_t i = 0; i < rep->frame_count; i++) {
        gc_rep_frame *f = &rep->frames[i];
        if (strcmp(f->status, "regressed") != 0 && strcmp(f->status, "nondeterministic") != 0)
            continue;
        gc_strbuf b;
        gc_sb_init(&b);
        size_t n = 0;
        for (size_t c = 0; c < rep->change_count; c++) {
            if (rep->changes[c].level != f->level)
                continue;
            if (n++ < 12)
                gc_sb_printf(&b, "%s%s", n > 1 ? ", " : "", rep->changes[c].field);
        }
        if (n > 12)
            gc_sb_printf(&b, " (+%zu more)", n - 12);
        if (n == 0)
            gc_sb_puts(&b, "none (no metric moved: look at the picture)");
        free(f->metrics_changed);
        f->metrics_changed = gc_sb_take(&b);
    }
}
