/* SPDX-License-Identifier: MIT */
/* A rendered frame and its hash: the canonical byte layout that SHA-256 is
 * taken over, and the one-line manifest that names that layout. What is
 * hashed is specified in docs/golden.md; keep the two in step. */
#ifndef GC_FRAME_H
#define GC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define GC_FRAME_TAG          "GCFRAME1" /* 8 bytes, first in the canonical layout */
#define GC_FRAME_PIXEL_FORMAT "RGBA8"    /* stored NUL-padded to 8 bytes */
#define GC_FRAME_VIEW_BYTES   32         /* view name, NUL-padded */
#define GC_FRAME_HEADER_BYTES 60         /* 8 tag + 4 raster + 4 w + 4 h + 8 fmt + 32 view */
#define GC_FRAME_MANIFEST_MAX 256

/* RGBA8 rows top to bottom, no padding (width * 4 bytes per row). */
typedef struct gc_frame {
    uint32_t width, height;
    uint8_t *rgba;
    char view[32];
    char lighting[8]; /* "lit", "unlit", or "" (not a rendered level frame) */
    /* "off", or "tie:I/T,shrub:I/T,moby:I/T" (instances placed / the
     * triangles of their classes, culled instances included), or "" (not a
     * rendered level frame) */
    char objects[96];
} gc_frame;

void gc_frame_free(gc_frame *f);

/* The 60-byte canonical header of f (docs/golden.md). 0, or -1 if the view
 * name does not fit. */
int gc_frame_header(const gc_frame *f, uint8_t out[GC_FRAME_HEADER_BYTES]);

/* The manifest line, e.g. "GCFRAME1 raster=2 640x448 RGBA8 view=overview
 * lighting=lit objects=tie:12/3400,shrub:9/800,moby:20/5100".
 * Two frames with equal manifests are hashed over the same layout, so their
 * hashes are comparable. Returns 0, or -1 if it does not fit. */
int gc_frame_manifest(const gc_frame *f, char *manifest, size_t manifest_len);

/* SHA-256 of the canonical layout, lowercase hex (65 bytes with NUL); the
 * manifest too (manifest may be NULL). 0, or -1 (bad frame, OpenSSL failure). */
int gc_frame_sha256(const gc_frame *f, char hex[65], char *manifest, size_t manifest_len);

/* Pixels that differ between two frames of equal size (any channel), or
 * UINT64_MAX if the sizes differ. */
uint64_t gc_frame_changed_pixels(const gc_frame *a, const gc_frame *b);

#endif
