/* SPDX-License-Identifier: MIT */
/* The frame image store: every rendered frame's PNG kept under its frame
 * hash (the SHA-256 of docs/golden.md, the one golden/frames*.yaml holds),
 * so a golden hash can be turned back into a picture. Filled by
 * `bless --frames` and by any sweep with --frames-out; read on a mismatch
 * by --golden-images. Layout: DIR/<2 hex>/<64 hex>.png. A file whose pixels
 * do not hash to its name is never used. Only hashes live in git; the store
 * is a cache (CI keeps it with ~/.cache/gcverify). */
#ifndef GC_IMAGE_STORE_H
#define GC_IMAGE_STORE_H

#include <stddef.h>

#include "gc_frame.h"

/* The store directory: `override` if given, else $GC_FRAME_STORE, else the
 * cache root's frames/ ($GC_CACHE_DIR, $XDG_CACHE_HOME/gcverify or
 * ~/.cache/gcverify, as for the synthetic corpus). */
void gc_image_store_dir(const char *override, char *out, size_t len);
/* DIR/<2 hex>/<sha256>.png */
void gc_image_store_path(const char *dir, const char *sha256, char *out, size_t len);
/* Store f (whose hash is sha256) unless it is there already. 0 or -1 (err). */
int gc_image_store_put(const char *dir, const char *sha256, const gc_frame *f, char *err,
                       size_t errlen);
/* Load the frame stored under sha256 as view `view`, checking that it hashes
 * to sha256. 1 found, 0 not in the store, -1 present but unreadable or not
 * that frame (err says which). Free *out with gc_frame_free. */
int gc_image_store_get(const char *dir, const char *sha256, const char *view, gc_frame *out,
                       char *err, size_t errlen);

#endif
