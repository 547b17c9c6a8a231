/* SPDX-License-Identifier: MIT */
/* The content-addressed frame image store (gc_image_store.h). */
#include "gc_image_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gc_fsutil.h"
#include "gc_golden_frames.h"
#include "gc_png.h"

void gc_image_store_dir(const char *override, char *out, size_t len)
{
    if (override && *override) {
        snprintf(out, len, "%s", override);
        return;
    }
    const char *e = getenv("GC_FRAME_STORE");
    if (e && *e) {
        snprintf(out, len, "%s", e);
        return;
    }
    /* the same cache root as the synthetic corpus (harness/sweep/corpus.c) */
    if ((e = getenv("GC_CACHE_DIR")) && *e)
        snprintf(out, len, "%s/frames", e);
    else if ((e = getenv("XDG_CACHE_HOME")) && *e)
        snprintf(out, len, "%s/gcverify/frames", e);
    else if ((e = getenv("HOME")) && *e)
        snprintf(out, len, "%s/.cache/gcverify/frames", e);
    else
        snprintf(out, len, "/tmp/gcverify-cache/frames");
}

static int valid_hash(const char *h)
{
    if (!h || strlen(h) != 64)
        return 0;
    for (const char *p = h; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

void gc_image_store_path(const char *dir, const char *sha256, char *out, size_t len)
{
    snprintf(out, len, "%s/%.2s/%s.png", dir, sha256, sha256);
}

int gc_image_store_put(const char *dir, const char *sha256, const gc_frame *f, char *err,
                       size_t errlen)
{
    if (!valid_hash(sha256) || !f->rgba) {
        snprintf(err, errlen, "image store: bad hash or empty frame");
        return -1;
    }
    char sub[4096], path[4200];
    snprintf(sub, sizeof sub, "%s/%.2s", dir, sha256);
    gc_image_store_path(dir, sha256, path, sizeof path);
    if (access(path, F_OK) == 0)
        return 0; /* content-addressed: the same name is the same picture */
    if (gc_mkdir_p(sub, err, errlen) != 0)
        return -1;
    /* gc_png_write_rgba writes a temporary file and renames it: concurrent
     * writers of one hash leave one whole file */
    return gc_png_write_rgba(path, f->rgba, f->width, f->height, err, errlen);
}

int gc_image_store_get(const char *dir, const char *sha256, const char *view, gc_frame *out,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!valid_hash(sha256))
        return 0;
    char path[4200];
    gc_image_store_path(dir, sha256, path, sizeof path);
    if (access(path, F_OK) != 0)
        return 0;
    if (gc_frame_load_png(path, view, out, err, errlen) != 0)
        return -1;
    char hex[65];
    if (gc_frame_sha256(out, hex, NULL, 0) != 0 || strcmp(hex, sha256) != 0) {
        snprintf(err, errlen, "%s does not hash to its name (a damaged store entry): ignored",
                 path);
        gc_frame_free(out);
        return -1;
    }
    return 1;
}
