/* SPDX-License-Identifier: MIT */
/* golden/frames.yaml: the expected SHA-256 of every level x view frame,
 * each with the manifest of the layout it was hashed over (docs/golden.md).
 * Read, update, and write back atomically in a stable order (level, then
 * view name), so a bless is a reviewable text diff. Also the comparison
 * verdict, and the --golden-images writer (expected / actual / diff PNGs). */
#ifndef GC_GOLDEN_FRAMES_H
#define GC_GOLDEN_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "gc_frame.h"

typedef struct gc_golden_frame {
    int level;                            /* container number: LEVEL<level>.WAD */
    char view[32];                        /* "overview", "ground" */
    char sha256[65];                      /* lowercase hex */
    char manifest[GC_FRAME_MANIFEST_MAX]; /* gc_frame_manifest() of the hashed frame */
} gc_golden_frame;

typedef struct gc_golden_frames {
    gc_golden_frame *v;
    size_t count, cap;
} gc_golden_frames;

/* Load path into *g (initialised here). A missing file is an empty set and
 * returns 0 (nothing blessed yet); a file that exists but is not valid
 * frames YAML returns -1 with "path:line: what" in err. */
int gc_golden_frames_load(const char *path, gc_golden_frames *g, char *err, size_t errlen);
/* Write *g to path atomically (temp + rename), sorted by (level, view). */
int gc_golden_frames_save(const char *path, const gc_golden_frames *g, char *err, size_t errlen);
/* The text gc_golden_frames_save writes (malloc'd; *len bytes), or NULL (err). */
char *gc_golden_frames_format(const gc_golden_frames *g, size_t *len, char *err, size_t errlen);
/* Add or replace the entry for (level, view). 0, or -1 (bad view/hash, no memory). */
int gc_golden_frames_set(gc_golden_frames *g, int level, const char *view, const char *sha256,
                         const char *manifest);
const gc_golden_frame *gc_golden_frames_find(const gc_golden_frames *g, int level,
                                             const char *view);
void gc_golden_frames_free(gc_golden_frames *g);

typedef enum gc_frame_verdict {
    GC_FRAME_MATCH = 0,        /* same manifest, same hash */
    GC_FRAME_NO_GOLDEN,        /* nothing blessed for this level x view */
    GC_FRAME_MANIFEST_DIFFERS, /* hashed over another layout: not comparable, not a regression */
    GC_FRAME_REGRESSED,        /* comparable manifest, other hash or counts: a gating failure */
} gc_frame_verdict;

/* "match", "no golden", "manifest differs", "regressed". */
const char *gc_frame_verdict_name(gc_frame_verdict v);
/* Two manifests name the same layout: equal, except that the numbers inside
 * their objects= fields may differ (those are what was drawn, not how it was
 * hashed: "tie:12/3400" and "tie:11/3100" compare; "off" and "tie:..." do
 * not). 1 or 0. */
int gc_frame_manifests_comparable(const char *a, const char *b);
/* Compare a rendered frame's hash and manifest with the golden set; *entry
 * (may be NULL) receives the golden entry when there is one. Manifests that
 * are not comparable give manifest differs; comparable ones match only when
 * the hash and the whole manifest (object counts too) are equal, else the
 * frame regressed. */
gc_frame_verdict gc_golden_frames_compare(const gc_golden_frames *g, int level, const char *view,
                                          const char *sha256, const char *manifest,
                                          const gc_golden_frame **entry);

/* --golden-images: write DIR/LEVEL<n>_<view>_actual.png, and when an
 * expected frame is available DIR/LEVEL<n>_<view>_expected.png and
 * _diff.png, where changed pixels are magenta over a dimmed grey copy of the
 * actual frame. The expected frame is `expected` when given, else
 * DIR/expected/LEVEL<n>_<view>.png if that file exists (put a baseline
 * run's --frames-out PNGs there). *changed (may be NULL) gets the number of
 * changed pixels (UINT64_MAX without an expected frame or when sizes
 * differ). DIR is created. 0 or -1. */
int gc_golden_images_write(const char *dir, int level, const char *view, const gc_frame *actual,
                           const gc_frame *expected, uint64_t *changed, char *err, size_t errlen);

/* Read a PNG (any libpng-readable format, converted to RGBA8) as a frame
 * named `view`. 0, or -1 with err filled. Free with gc_frame_free. */
int gc_frame_load_png(const char *path, const char *view, gc_frame *out, char *err, size_t errlen);

#endif
