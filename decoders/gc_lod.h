/* SPDX-License-Identifier: MIT */
/* tfrag LOD selection: which strips a patch draws, and how far its LOD
 * entries have morphed toward their parents, for a given eye position.
 * The rule is documented exactly in docs/formats/lod.md (from
 * level-assets.md "LOD selection"); the rasteriser calls gc_lod_select and
 * the lod decoder publishes a deterministic sweep of it as lod.sweep. */
#ifndef GC_LOD_H
#define GC_LOD_H

#include <stdint.h>

/* Coarsest first: walking away from a patch never increases the mode. */
typedef enum gc_lod_mode {
    GC_LOD_MODE_2 = 0,
    GC_LOD_MODE_1_COLLAPSE,
    GC_LOD_MODE_1_MORPH,
    GC_LOD_MODE_0_COLLAPSE,
    GC_LOD_MODE_0_MORPH,
    GC_LOD_MODE_0
} gc_lod_mode;

typedef struct gc_lod_pick {
    gc_lod_mode mode;
    int strip_lod;     /* which strips to draw: 0, 1 or 2 */
    float morph_lod01; /* weight of the LOD-01 entries' own positions (1) vs their parents (0) */
    float morph_lod0;  /* same for LOD-0 entries */
} gc_lod_pick;

/* Switch distances in units of the block's LOD float L (level-assets.md):
 * [D0, D1, D2] = [6L, 4L, 2L]. */
#define GC_LOD_D0_UNITS 6
#define GC_LOD_D1_UNITS 4
#define GC_LOD_D2_UNITS 2
/* Fixed point of the distance test: world units * 1024, truncated. */
#define GC_LOD_FIXED_ONE 1024

/** Picks the LOD mode of a patch with bounding sphere `sphere` (centre x, y,
 *  z, radius; world units) seen from `eye`, for block LOD float `lod_scale`.
 *  The sphere and the eye are truncated to fixed point (x 1024) and the
 *  sphere's near and far edges are compared exactly (integer arithmetic)
 *  against trunc(D * 1024); see docs/formats/lod.md. `fault` is lv->fault:
 *  with GC_FAULT_lod_centre in a GC_FAULTS build the sphere's centre is
 *  tested instead of the sphere (the historical bug). Never fails: NaN or
 *  out-of-range inputs are clamped to a deterministic answer. */
gc_lod_pick gc_lod_select(float lod_scale, const float sphere[4], const float eye[3], int fault);

/** Short name of a mode: "lod2", "lod1_collapse", "lod1_morph",
 *  "lod0_collapse", "lod0_morph", "lod0"; "?" otherwise. */
const char *gc_lod_mode_name(gc_lod_mode m);

#endif
