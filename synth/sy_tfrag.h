/* SPDX-License-Identifier: MIT */
/* Tfrag block writer of the synthetic corpus: the terrain patches of one level's core_data. */
#ifndef SY_TFRAG_H
#define SY_TFRAG_H

#include <stddef.h>
#include <stdint.h>

#include "sy_buf.h"

typedef struct sy_tfrag_params {
    uint32_t patch_count, positions, triangles;    /* exact totals to write */
    uint32_t vi_common, vi_lod01, vi_lod0, adgifs; /* exact totals to write */
    uint32_t texture_count;                        /* entries in this level's tfrag texture table */
    uint32_t textures_referenced; /* ad-gifs use exactly textures 0..textures_referenced-1 */
    uint32_t seed;
} sy_tfrag_params;

typedef struct sy_tfrag_stats {
    uint32_t patch_count, positions, triangles, vi_common, vi_lod01, vi_lod0, adgifs;
    size_t block_bytes;
} sy_tfrag_stats;

/* Appends the complete tfrag block (block header, 0x40-byte patch table at 0x40, patch data)
 * to out, starting at out->len (must be 16-aligned). Deterministic for the same params.
 * Returns 0, or -1 on allocation failure or params that cannot be met (e.g. totals that do
 * not fit the u8 vert_count/tri_count per patch). */
int sy_tfrag_write(const sy_tfrag_params *p, sy_buf *out, sy_tfrag_stats *st);

/* The ground the tfrag block covers, for writers that must agree with it (the collision mesh).
 * 1/1024 world units: patches fill [x0, x1) x [y0, y1_full) completely and [x0, ...) x
 * [y1_full, y1) partly; z is up. */
typedef struct sy_terrain {
    int32_t x0, y0, x1, y1, y1_full;
    int32_t oz;
    uint32_t seed;
} sy_terrain;

/* The terrain of the block sy_tfrag_write writes for the same params. */
void sy_tfrag_terrain(const sy_tfrag_params *p, sy_terrain *t);
/* Height (z) of that terrain's surface at (x, y), 1/1024 units; integer-only. */
int32_t sy_terrain_height(const sy_terrain *t, int64_t x, int64_t y);

#endif
