/* SPDX-License-Identifier: MIT */
/* The sweep's frame oracle: render each level's named views, hash them,
 * compare with golden/frames*.yaml, check determinism, and say which of the
 * level's metrics moved when a picture did. */
#ifndef GC_SWEEP_FRAMES_H
#define GC_SWEEP_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "gc_golden_frames.h"
#include "gc_level.h"
#include "gc_report.h"
#include "gc_sweep.h"

typedef gc_golden_frames gc_sweep_frame_golden;

#define GC_SWEEP_MAX_VIEWS 8

typedef struct gc_sweep_frame_item {
    char view[32];
    char sha256[65];
    char manifest[GC_FRAME_MANIFEST_MAX];
    char params[512];
    char status[24];
    char golden[65];
    uint64_t pixels_changed; /* UINT64_MAX: not compared pixel by pixel */
    /* --golden-images files written for this frame ("" none) */
    char image_actual[1024], image_expected[1024], image_diff[1024];
    double time_seconds; /* thread CPU time of the render and hash */
} gc_sweep_frame_item;

typedef struct gc_sweep_level_frames {
    gc_sweep_frame_item items[GC_SWEEP_MAX_VIEWS];
    size_t count;
    int write_failed;      /* a --frames-out or --golden-images PNG could not be written */
    char write_error[600]; /* the first such failure */
} gc_sweep_level_frames;

int gc_sweep_frames_load_golden(const char *path, gc_sweep_frame_golden *g, char *err,
                                size_t errlen);
void gc_sweep_frames_free_golden(gc_sweep_frame_golden *g);
/* Render and compare every view of one decoded level (thread-safe). */
/* 1 when table `name` belongs to a decoder the renderer draws from (tfrag,
 * moby, tie, shrub, gameplay, normals, texture): the sweep drops the rows of
 * every other table that nothing after the join reads before it renders
 * (tests/test_memory.c renders with only these). */
int gc_sweep_frames_reads_table(const char *name);
void gc_sweep_render_level(const gc_level *lv, const gc_sweep_opts *o,
                           const gc_sweep_frame_golden *g, gc_sweep_level_frames *out);
void gc_sweep_frames_to_report(const gc_sweep_level_frames *f, int level, gc_report *rep);
/* The determinism check: the first view of a level rendered again, twice,
 * on a thread other than the one that rendered it for the report.
 * gc_sweep_frames_rerender hashes the passes into hex (returns how many);
 * gc_sweep_frames_determinism marks the report's frame "nondeterministic"
 * when one of them differs from it. */
#define GC_SWEEP_RERENDERS 2
int gc_sweep_frames_rerender(const gc_level *lv, const gc_sweep_opts *o,
                             char hex[GC_SWEEP_RERENDERS][65]);
void gc_sweep_frames_determinism(gc_report *rep, int level, const char hex[][65], int n);
/* Attach to each mismatching frame the names of its level's changed metrics. */
void gc_sweep_frames_annotate(gc_report *rep);
void gc_sweep_level_frames_free(gc_sweep_level_frames *f);

#endif
