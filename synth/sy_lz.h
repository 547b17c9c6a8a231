/* SPDX-License-Identifier: MIT */
/* WAD LZ compressor for the synthetic corpus. Written from formats.md §1
 * independently of decoders/gc_lz.c (no shared header or constant). */
#ifndef SY_LZ_H
#define SY_LZ_H

#include <stddef.h>
#include <stdint.h>

#include "sy_buf.h"

/* Append a complete WAD LZ stream (16-byte header with `label`, zero-padded
 * to 9 bytes, then packets) encoding src[0..len) to *out. Deterministic.
 * Returns 0, or -1 on allocation failure (out is left as it was). */
int sy_lz_compress(const uint8_t *src, size_t len, const char *label, sy_buf *out);

#endif
