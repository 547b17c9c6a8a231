/* The sweep's determinism check (harness/sweep/sweep_frames.c): the first view
 * of a level is rendered again on another thread, and a hash that differs from
 * the report's marks the frame "nondeterministic", which gates like a
 * regression. The marking and its verdict are checked on hand-built reports;
 * the re-render itself on a level of the small synthetic corpus. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"
#include "gc_render.h"
#include "gc_report.h"
#include "gc_sweep.h"
#include "gc_sweep_frames.h"
#include "sy_corpus.h"
#include "synth_level.h"

static const char *sha_a = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
static const char *sha_b = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

/* Two levels, every view of each, all matching their golden hash sha_a. */
static void matching_report(gc_report *r)
{
    const char *const *names;
    int nv = gc_render_view_names(&names);
    cr_assert_geq(nv, 2, "the check needs a second view to leave alone");
    gc_report_init(r);
    for (int level = 2; level <= 3; level++)
        for (int v = 0; v < nv; v++) {
            gc_rep_frame *f = gc_report_add_frame(r, level, names[v]);
            cr_assert(f);
            snprintf(f->sha256, sizeof f->sha256, "%s", sha_a);
            snprintf(f->golden, sizeof f->golden, "%s", sha_a);
            snprintf(f->status, sizeof f->status, "match");
        }
}

static const gc_rep_frame *frame_of(const gc_report *r, int level, const char *view)
{
    for (size_t i = 0; i < r->frame_count; i++)
        if (r->frames[i].level == level && strcmp(r->frames[i].view, view) == 0)
            return &r->frames[i];
    cr_assert_fail("no frame for level %d view %s", level, view);
    return NULL;
}

Test(determinism, equal_rerenders_leave_the_verdict_green)
{
    gc_report r;
    matching_report(&r);
    char hex[GC_SWEEP_RERENDERS][65];
    for (int i = 0; i < GC_SWEEP_RERENDERS; i++)
        snprintf(hex[i], sizeof hex[i], "%s", sha_a);
    gc_sweep_frames_determinism(&r, 3, (const char(*)[65])hex, GC_SWEEP_RERENDERS);
    gc_report_summarise(&r);
    for (size_t i = 0; i < r.frame_count; i++)
        cr_assert_str_eq(r.frames[i].status, "match");
    cr_assert_eq(r.frames_mismatched, 0);
    cr_assert_eq(r.exit_code, 0);
    gc_report_free(&r);
}

/* One re-render out of two differs (the second): only that level's first view
 * is marked, and the run fails with exit 1 like a regressed frame. */
Test(determinism, one_differing_rerender_marks_the_frame_and_gates)
{
    const char *const *names;
    int nv = gc_render_view_names(&names);
    gc_report r;
    matching_report(&r);
    char hex[GC_SWEEP_RERENDERS][65];
    for (int i = 0; i < GC_SWEEP_RERENDERS; i++)
        snprintf(hex[i], sizeof hex[i], "%s", i == GC_SWEEP_RERENDERS - 1 ? sha_b : sha_a);
    gc_sweep_frames_determinism(&r, 3, (const char(*)[65])hex, GC_SWEEP_RERENDERS);
    gc_report_summarise(&r);
    cr_assert_str_eq(frame_of(&r, 3, names[0])->status, "nondeterministic");
    cr_assert(gc_report_frame_failed(frame_of(&r, 3, names[0])));
    for (int v = 1; v < nv; v++)
        cr_assert_str_eq(frame_of(&r, 3, names[v])->status, "match", "%s", names[v]);
    for (int v = 0; v < nv; v++)
        cr_assert_str_eq(frame_of(&r, 2, names[v])->status, "match", "level 2 %s", names[v]);
    cr_assert_eq(r.frames_mismatched, 1);
    cr_assert_eq(r.exit_code, 1);
    gc_report_free(&r);
}

/* A frame that failed to render keeps its "error" (the more specific cause);
 * no re-render at all (n = 0) marks nothing. */
Test(determinism, error_frames_and_missing_rerenders)
{
    const char *const *names;
    gc_render_view_names(&names);
    gc_report r;
    matching_report(&r);
    gc_rep_frame *f = NULL;
    for (size_t i = 0; i < r.frame_count; i++)
        if (r.frames[i].level == 2 && strcmp(r.frames[i].view, names[0]) == 0)
            f = &r.frames[i];
    cr_assert(f);
    snprintf(f->status, sizeof f->status, "error");
    char hex[GC_SWEEP_RERENDERS][65];
    for (int i = 0; i < GC_SWEEP_RERENDERS; i++)
        snprintf(hex[i], sizeof hex[i], "%s", sha_b);
    gc_sweep_frames_determinism(&r, 2, (const char(*)[65])hex, GC_SWEEP_RERENDERS);
    cr_assert_str_eq(frame_of(&r, 2, names[0])->status, "error");
    gc_sweep_frames_determinism(&r, 3, (const char(*)[65])hex, 0);
    cr_assert_str_eq(frame_of(&r, 3, names[0])->status, "match");
    gc_report_free(&r);
}

/* The re-render of a real decoded level: both passes hash to the first view's
 * frame as the sweep itself renders it for the report (gc_sweep_render_level,
 * one scene for every view), with lighting on and off. */
Test(determinism, rerender_of_a_synthetic_level_equals_the_sweep_render, .timeout = 300)
{
    sy_buf b;
    gc_level lv;
    synth_level_decode_small(4, &b, &lv);
    gc_sweep_frame_golden none;
    memset(&none, 0, sizeof none);
    char lit_hex[65] = "";
    for (int lighting_off = 0; lighting_off <= 1; lighting_off++) {
        gc_sweep_opts o;
        gc_sweep_opts_init(&o);
        o.lighting_off = lighting_off;
        gc_sweep_level_frames *fr = calloc(1, sizeof *fr);
        cr_assert(fr);
        gc_sweep_render_level(&lv, &o, &none, fr);
        cr_assert_geq(fr->count, 1);
        cr_assert_str_eq(fr->items[0].status, "new", "no golden entry: %s", fr->items[0].params);
        char hex[GC_SWEEP_RERENDERS][65];
        cr_assert_eq(gc_sweep_frames_rerender(&lv, &o, hex), GC_SWEEP_RERENDERS);
        for (int i = 0; i < GC_SWEEP_RERENDERS; i++)
            cr_assert_str_eq(hex[i], fr->items[0].sha256, "lighting_off=%d pass %d", lighting_off,
                             i);
        if (!lighting_off)
            snprintf(lit_hex, sizeof lit_hex, "%s", fr->items[0].sha256);
        else /* the option reaches both paths: lit and unlit frames differ */
            cr_assert_str_neq(fr->items[0].sha256, lit_hex);
        gc_sweep_level_frames_free(fr);
        free(fr);
    }
    gc_level_free(&lv);
    sy_buf_free(&b);
}
