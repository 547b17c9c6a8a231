/* SPDX-License-Identifier: MIT */
/* Rendering a decoded level: named views that are deterministic functions
 * of the level's tables, LOD selection and morphing per patch, textures
 * decoded once per level, all drawn by the rasteriser of harness/raster/.
 *
 * The level is read only through the table descriptors (gc_level_tables(),
 * a table by name, a column by name, the value at its offset), never through
 * decoder internals, so a decoder change reaches the picture exactly as it
 * reaches the invariants. Tables used: tfrag.block (lod_scale), tfrag.patch
 * (cx, cy, cz, radius), tfrag.vertex (patch_row, index, tier, x, y, z, r, g,
 * b, a), tfrag.vertex_info (patch_row, index, tier, s, t, vertex, parent0),
 * tfrag.triangle (patch_row, lod, a, b, c, va, vb, vc, texture) and
 * tfrag.adgif (patch_row, texture, wrap_s, wrap_t); for the objects
 * tie/shrub/moby.class (rows only), .packet (class_row; moby lod),
 * .vertex (packet_row, index or moby slot, x y z or moby px py pz, s, t),
 * .triangle (packet_row, a b c or moby v0 v1 v2, texture_entry; tie lod,
 * shrub zero_area) and .instance (class_row, c0x..c2z, and c3x c3y c3z or
 * moby x y z); docs/golden.md "What is drawn". */
#ifndef GC_RENDER_H
#define GC_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "gc_frame.h"
#include "gc_level.h"
#include "gc_raster.h"

#define GC_RENDER_WIDTH  640
#define GC_RENDER_HEIGHT 448

/* The view names, in report order: "overview", "ground". Returns the count. */
int gc_render_view_names(const char *const **names);

/* Render view `view` of a decoded level. Returns 0, or -1 with err filled.
 * Deterministic: the same tables give the same bytes on any compiler, at
 * any optimisation level, on any thread. params (may be NULL) receives the
 * view's parameter line (gc_view_params_text). */
int gc_render_level(const gc_level *lv, const char *view, uint32_t width, uint32_t height,
                    gc_frame *out, char *params, size_t params_len, char *err, size_t errlen);

/* The same with lighting on (1, what gc_render_level does) or off (0). */
int gc_render_level_lighting(const gc_level *lv, int lighting, const char *view, uint32_t width,
                             uint32_t height, gc_frame *out, char *params, size_t params_len,
                             char *err, size_t errlen);

/* A view's camera, as the report lists it. */
typedef struct gc_view_params {
    char name[32];
    float eye[3], target[3], up[3];
    float focal;           /* focal length / half the frame width (1 = 90 degrees horizontally) */
    float near;            /* world units */
    uint32_t patch;        /* ground: the patch it stands over; UINT32_MAX for overview */
    float union_centre[3]; /* centre and radius of the union of the patch spheres */
    float union_radius;
} gc_view_params;

/* "view=ground eye=(…) target=(…) up=(0,0,1) focal=1.000 near=0.050 patch=17
 * union=(…) r=…", fixed-point decimal with 3 places. 0, or -1 if it does not fit. */
int gc_view_params_text(const gc_view_params *vp, char *buf, size_t len);

/* A level prepared for rendering several views: geometry gathered from the
 * tables once, textures decoded on first use and cached. Owned by one job
 * (not shared between threads). */
typedef struct gc_render_scene gc_render_scene;

/* NULL with err filled when the level has no usable tfrag tables. */
gc_render_scene *gc_render_scene_new(const gc_level *lv, char *err, size_t errlen);
void gc_render_scene_free(gc_render_scene *s);
/* Lighting on (the default): vertices lit by the tfrag decoder's lighting
 * pass (tfrag.light lit, gs_r/g/b) draw with those colours; off: every
 * vertex draws its stored RGBA (the unlit path, to tell a lighting
 * regression from a geometry one). The frame's manifest says which. */
void gc_render_scene_set_lighting(gc_render_scene *s, int on);
/* Objects on (the default): after the terrain, every tie, shrub and moby
 * instance whose class resolves is drawn (tie LOD 0, moby high LOD in bind
 * pose), each class vertex placed by the instance's matrix and textured
 * through the class's texture slots into its kind's texture table. Off:
 * terrain only. The manifest's objects= field says which, and how much. */
void gc_render_scene_set_objects(gc_render_scene *s, int on);
/* Instance culling on (the default) skips instances whose bounding sphere
 * lies wholly outside the view, or whose sphere's screen box is wholly
 * behind what the depth buffer already holds; it changes no pixel (tests
 * compare it with off), only the time and the culled / hidden counts. */
void gc_render_scene_set_cull(gc_render_scene *s, int on);
/* Vertices that have a lit colour (whether or not lighting is on). */
uint64_t gc_render_scene_vertices_lit(const gc_render_scene *s);
/* The camera of a view. 0, or -1 for an unknown view or no patches. */
int gc_render_scene_view(const gc_render_scene *s, const char *view, gc_view_params *vp, char *err,
                         size_t errlen);
/* Draw a view into out (out->rgba malloc'd; gc_frame_free releases it). */
int gc_render_scene_draw(gc_render_scene *s, const char *view, uint32_t width, uint32_t height,
                         gc_frame *out, gc_view_params *vp, char *err, size_t errlen);
/* The same into a target the caller made (gc_rs_target_init; its size is
 * the frame's), cleared first: out->rgba is the target's (do not
 * gc_frame_free it; valid until the target is drawn into again or freed).
 * The same bytes as gc_render_scene_draw; several views drawn in turn
 * share one target's memory instead of each allocating and first-touching
 * 2.3 MB (colour and depth of 640 x 448). */
int gc_render_scene_draw_into(gc_render_scene *s, const char *view, gc_rs_target *t, gc_frame *out,
                              gc_view_params *vp, char *err, size_t errlen);

/* Object kinds in draw order: tie, shrub, moby. */
#define GC_RENDER_OBJECT_KINDS 3
typedef struct gc_render_object_stats {
    uint64_t instances;            /* instances placed (class resolved, finite matrix) */
    uint64_t triangles;            /* their classes' drawable triangles (culled ones included) */
    uint64_t triangles_untextured; /* of those rasterised: no texture slot, or no decode */
    uint64_t unresolved;           /* instance rows not drawn: no class, or a non-finite matrix */
    uint64_t culled; /* of instances: wholly outside the view, not rasterised (no pixel lost) */
    uint64_t lit;    /* of instances rasterised (not culled): drawn with their lighting */
    uint64_t hidden; /* of those: every pixel behind what the frame held (depth), skipped */
} gc_render_object_stats;

/* What the last draw did (for reports and the benchmark; not hashed). */
typedef struct gc_render_stats {
    uint64_t patches, patches_by_lod[3];
    uint64_t triangles_submitted, triangles_untextured, triangles_bad_index;
    uint64_t pixels_written, pixels_covered;
    uint32_t textures_decoded, textures_failed;
    int lod_rule; /* 1: gc_lod_select() picked each patch's strips (always in this build) */
    int textures; /* 1: gc_texture_rgba() supplied the texels (always in this build) */
    int objects_on;
    gc_render_object_stats objects[GC_RENDER_OBJECT_KINDS]; /* tie, shrub, moby */
} gc_render_stats;
const gc_render_stats *gc_render_scene_stats(const gc_render_scene *s);

#endif
