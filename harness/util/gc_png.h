/* SPDX-License-Identifier: MIT */
/* A small PNG writer (libpng) for RGBA8 images: rendered frames, diff images
 * and dumped textures. The file is written to a temporary name and renamed
 * into place, so a failure never leaves a partial PNG behind. */
#ifndef GC_PNG_H
#define GC_PNG_H

#include <stddef.h>
#include <stdint.h>

/* Write w*h RGBA8 pixels (rows top to bottom, 4*w bytes each, no padding) to
 * path as an 8-bit RGBA PNG. Output is deterministic: no time or text chunks.
 * Returns 0 on success; -1 with a message in err (if errlen > 0) otherwise. */
int gc_png_write_rgba(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h, char *err,
                      size_t errlen);

#endif
