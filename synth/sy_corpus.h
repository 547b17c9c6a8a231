/* SPDX-License-Identifier: MIT */
/* Public API of the synthetic retail-shaped corpus writer: LEVEL<n>.WAD bytes and the plan of
 * every count each level promises. Written from docs/formats/, never from decoders/. */
#ifndef SY_CORPUS_H
#define SY_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "sy_buf.h"

/* retail: the disc's sizes; small: the same shape divided by 20; edge: small levels at the legal
 * extremes neither of the others reaches (empty tables, 1024-texel sides, sky variants). */
enum { SY_SCALE_RETAIL = 0, SY_SCALE_SMALL = 1, SY_SCALE_EDGE = 2, SY_SCALE_COUNT = 3 };

/* "retail", "small" or "edge" (NULL for any other value). */
const char *sy_scale_name(int scale);
/* The scale named by `name`, or -1. */
int sy_scale_parse(const char *name);

typedef struct sy_options {
    int scale;
    uint32_t seed; /* default 1 */
} sy_options;

#define SY_LEVEL_COUNT 27

/* Bytes of LEVEL<index>.WAD for these options, appended to *out. Deterministic: identical
 * bytes for the same version, options and index on any machine/compiler/thread count.
 * Thread-safe (no globals written), so the caller may build levels on several threads.
 * Returns 0, or -1 (allocation failure; out->failed set). */
int sy_level_build(const sy_options *opt, int index, sy_buf *out);

/* Identifies the generator version for cache keys, e.g. "synth-3". Bump on any output change. */
const char *sy_generator_version(void);

/* The per-level plan (one readable table in synth/sy_plan.c): every count the writer promises. */
typedef struct sy_level_plan {
    int index;
    int32_t level_id;
    uint32_t tfrag_patches, tfrag_positions, tfrag_triangles;
    uint32_t vi_common, vi_lod01, vi_lod0, tfrag_adgifs;
    uint32_t tfrag_textures, tfrag_textures_referenced;
    uint32_t moby_classes, tie_classes, shrub_classes;
    uint32_t moby_packets, moby_packets_zero_zero, tie_lod_out_of_order;
    uint32_t moby_classes_no_geometry, tie_classes_no_geometry, shrub_classes_no_geometry;
    uint32_t has_chunks; /* 1 on exactly 3 levels */
    uint64_t core_data_bytes, core_index_bytes, gs_ram_bytes, sound_bank_bytes, overlay_bytes;
    uint32_t normal_table_offset; /* in the overlay; different on every level */
    uint32_t decoy_offset;        /* the lone (1.0, 0.0) pair before it */
} sy_level_plan;

const sy_level_plan *sy_plan(int scale, int index); /* NULL if out of range */

#endif
