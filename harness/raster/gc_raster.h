/* SPDX-License-Identifier: MIT */
/* The deterministic software rasteriser: draws textured, vertex-coloured
 * triangles into an RGBA8 framebuffer with a depth buffer, bit-identically
 * under gcc and clang at any optimisation level.
 *
 * Why each rule is what it is:
 *  - Vertices are snapped to GS-like 12.4 fixed point (GC_RS_SUBPIXEL_BITS)
 *    and coverage is decided by exact 64-bit integer edge functions sampled at
 *    pixel centres (x + 0.5, y + 0.5). Coverage therefore never depends on
 *    float rounding, and the top-left rule makes two triangles that share an
 *    edge draw each pixel on it exactly once.
 *  - Interpolation is strictly ordered IEEE single precision (the build uses
 *    -ffp-contract=off, no -ffast-math, x86-64 SSE), evaluated directly from
 *    the integer edge values, never accumulated, so it is the same on every
 *    compiler. The only libm function used is sqrt (the camera basis).
 *    Where four values are computed alike (a triangle's corners, the 1/w,
 *    s/w, t/w and colour planes) they go through GCC/clang vector lanes:
 *    each lane performs the same IEEE operation as the scalar expression,
 *    in the same order, so the bits do not depend on it.
 *  - Texture coordinates are perspective-correct (s/w, t/w, 1/w interpolated
 *    in screen space, like the GS's STQ); vertex colour is interpolated
 *    affinely in screen space, as GS Gouraud shading is.
 *  - Colours follow the PS2: vertex RGBA with 0x80 = 1.0, texture colour
 *    modulated as (tex * col) >> 7 clamped to 255 (TFX MODULATE), texture
 *    alpha 0..0x80. A texel (after filtering) with alpha 0 is discarded (no
 *    colour, no depth), so grille holes show what is behind them. Mip level
 *    per pixel by the GS's LOD = log2(w) + K rule, nearest or bilinear
 *    within the level, both in integer arithmetic (see gc_rs_texture).
 *    The result is blended over the framebuffer with the GS's default
 *    ALPHA (Cs - Cd) * As >> 7 + Cd, a plain overwrite when As == 0x80.
 *  - Triangles are clipped in camera space against the near plane and a
 *    guard band (GC_RS_GUARD_PX beyond each screen edge) so fixed-point
 *    coordinates stay small; an edge shared by two triangles is clipped
 *    identically for both (intersections are computed from the inside vertex
 *    towards the outside one).
 *
 * Coordinates: camera space is right-handed looking down +forward; screen x
 * grows right, screen y grows down; the principal point is (width/2, height/2). */
#ifndef GC_RASTER_H
#define GC_RASTER_H

#include <stddef.h>
#include <stdint.h>

#define GC_RS_SUBPIXEL_BITS 4                          /* 12.4, as the GS's XYZ registers */
#define GC_RS_SUBPIXEL      (1 << GC_RS_SUBPIXEL_BITS) /* sub-pixel steps per pixel */
#define GC_RS_GUARD_PX      2048.0f /* guard band beyond each screen edge, pixels */
#define GC_RS_MAX_DIM       8192u   /* largest framebuffer side */
/* Bumped whenever the rasteriser's output changes on purpose; it is part of
 * every frame manifest, so a golden made by another version reports
 * "manifest differs" rather than "regressed". */
#define GC_RS_RASTER_VERSION                                                                       \
    4 /* 2: tie, shrub and moby instances drawn; 3: mobys lit; 4: ties, shrubs lit */

/* Texture wrap per axis, as the ad-gif's CLAMP_1 register WMS/WMT fields:
 * 0 REPEAT, 1 CLAMP. REGION_CLAMP (2) and REGION_REPEAT (3) are treated as
 * CLAMP and REPEAT over the whole texture (their MIN/MAX fields are not
 * decoded); gc_rs_wrap_from_clamp() does that mapping. */
enum { GC_RS_WRAP_REPEAT = 0, GC_RS_WRAP_CLAMP = 1 };
int gc_rs_wrap_from_clamp(uint32_t wm);

/* Counters for reports and benchmarks (not hashed). */
typedef struct gc_rs_stats {
    uint64_t triangles;         /* gc_rs_draw_triangle calls */
    uint64_t triangles_culled;  /* entirely behind the near plane or outside the guard band */
    uint64_t triangles_clipped; /* crossed the near plane or the guard band */
    uint64_t triangles_skipped; /* non-finite input or degenerate */
    uint64_t setups;            /* screen triangles rasterised (after clipping) */
    uint64_t pixels_covered;    /* pixel centres inside a screen triangle */
    uint64_t pixels_depth_fail; /* covered but behind what was there */
    uint64_t texels_discarded;  /* covered, in front, texel alpha 0 */
    uint64_t pixels_written;
} gc_rs_stats;

/* The framebuffer. rgba: width*height*4 bytes, rows top to bottom, R,G,B,A.
 * depth: 1/w of the nearest surface per pixel, 0 = nothing drawn (infinitely
 * far). writes: when non-NULL, incremented at every pixel write (tests count
 * overdraw with it). */
typedef struct gc_rs_target {
    uint32_t width, height;
    uint8_t *rgba;
    float *depth;
    uint16_t *writes;
    gc_rs_stats stats;
} gc_rs_target;

/* Allocate a target (count_writes != 0 also allocates `writes`). Returns 0,
 * or -1 if a side is 0 or above GC_RS_MAX_DIM, or allocation fails. */
int gc_rs_target_init(gc_rs_target *t, uint32_t width, uint32_t height, int count_writes);
/* Fill colour with `rgba`, depth with 0, writes and stats with 0. */
void gc_rs_target_clear(gc_rs_target *t, const uint8_t rgba[4]);
void gc_rs_target_free(gc_rs_target *t);

/* A pinhole camera. focal is the focal length in units of half the
 * framebuffer width (1.0 = 90 degrees horizontal field of view); square
 * pixels. near > 0 in world units. */
typedef struct gc_rs_camera {
    float eye[3];
    float right[3], up[3], forward[3]; /* orthonormal basis, world space */
    float focal;                       /* as given */
    float focal_px;                    /* focal * width / 2 */
    float near;
    float cx, cy; /* principal point, pixels */
    uint32_t width, height;
} gc_rs_camera;

/* Camera at `eye` looking at `target`, with `up` giving the roll. Returns 0,
 * or -1 if eye == target, up is parallel to the view direction, focal or
 * near is not positive, or a size is 0. */
int gc_rs_camera_look(gc_rs_camera *c, const float eye[3], const float target[3], const float up[3],
                      float focal, float near, uint32_t width, uint32_t height);

/* A texture: width*height*4 bytes RGBA8, rows top to bottom, alpha 0..0x80
 * (PS2 convention). (s, t) = (0, 0) is the top-left corner of texel (0, 0),
 * (1, 1) the bottom-right corner of the last texel. Sampling is nearest
 * texel: index floor(s * width), then wrapped.
 *
 * Optional mip chain (the GS's MIPTBP1 levels 1..3): mip_count extra levels
 * in mip_*[0 .. mip_count-1]. With mip_count > 0 each pixel picks its level
 * the GS way for MIPMAP_NEAREST, LOD = log2(w) + K with w = 1/q the camera
 * depth, level = round(LOD) clamped to 0..mip_count; log2 is the exponent
 * plus the linear mantissa fraction of the float's bits (integer, exact on
 * every compiler, no libm). Within a level sampling is `filter`. */
#define GC_RS_MIP_EXTRA 3
/* Filtering within a level. LINEAR is the GS's bilinear (MMIN LINEAR and
 * LINEAR_MIPMAP_*): texel centres at +0.5, weights in 1/256 texel from the
 * fixed-point coordinate floor(u * 256 - 128), each channel
 * ((t00(256-fx) + t10 fx)(256-fy) + (t01(256-fx) + t11 fx) fy + 32768) >> 16,
 * each of the four texels wrapped on its own; a filtered alpha of 0 is
 * discarded like a transparent texel. */
enum { GC_RS_FILTER_NEAREST = 0, GC_RS_FILTER_LINEAR = 1 };
typedef struct gc_rs_texture {
    uint32_t width, height;
    const uint8_t *rgba;
    int wrap_s, wrap_t; /* GC_RS_WRAP_* */
    uint32_t mip_count; /* extra levels present, 0..GC_RS_MIP_EXTRA */
    uint32_t mip_width[GC_RS_MIP_EXTRA], mip_height[GC_RS_MIP_EXTRA];
    const uint8_t *mip_rgba[GC_RS_MIP_EXTRA];
    float lod_k; /* TEX1 K in mip levels (the stored 1/16 units divided by 16) */
    int filter;  /* GC_RS_FILTER_*: within the chosen level */
    /* NULL: rgba and mip_rgba hold RGBA8 texels. Otherwise they hold 8-bit
     * indices (width * height bytes a level) into these 256 colours: the
     * texel is the colour, sampled exactly as the RGBA8 texel would be
     * (PSMT8 as the GS reads it; the scene samples the level's texels in
     * place instead of expanding them to four times the bytes). */
    const struct gc_rs_clut *clut;
} gc_rs_texture;

/* The 256 colours of 8-bit texels: rgba[i] the four bytes R, G, B, A in
 * memory order; lanes[i] the same four bytes each in a 16-bit lane of a
 * 64-bit word (byte k in bits 16k .. 16k + 7), the form the bilinear filter
 * multiplies, made once per texture by gc_rs_clut_lanes rather than per
 * texel fetch. */
typedef struct gc_rs_clut {
    uint32_t rgba[256];
    uint64_t lanes[256];
} gc_rs_clut;

/* Fill c->lanes from c->rgba. */
void gc_rs_clut_lanes(gc_rs_clut *c);

/* One pixel of the linear filter and the TFX MODULATE, as the pixel loop
 * does it: texel[0..3] the four texels (t00, t10, t01, t11, bytes R, G, B,
 * A in memory order), fx, fy the weights' fractions (0..255), colour the
 * vertex colour (0..255). Returns 0 when the filtered alpha is 0 (the
 * pixel is discarded), else 1 with out the modulated R, G, B, A. simd != 0
 * takes the vector path the pixel loop uses where there is one (SSE2 on
 * x86-64), 0 the portable one; both must give the same bytes (tests). */
int gc_rs_filter_modulate(int simd, const uint32_t texel[4], uint32_t fx, uint32_t fy,
                          const int colour[4], uint8_t out[4]);

/* The mip level a pixel at depth value q (= 1/w) samples: round(log2(1/q)
 * + lod_k) clamped to 0..mip_count. Exposed for tests and reports. */
uint32_t gc_rs_mip_level(float q, float lod_k, uint32_t mip_count);
/* The same level as the pixel loop finds it, by comparing q's bits with
 * the cuts between levels (found once per lod_k and mip_count, at most
 * GC_RS_MIP_EXTRA); equal to gc_rs_mip_level for every q (tests). */
uint32_t gc_rs_mip_level_by_cuts(float q, float lod_k, uint32_t mip_count);

/* A world-space vertex. rgba: vertex colour, 0x80 = 1.0 (alpha 0..0x80). */
typedef struct gc_rs_vertex {
    float pos[3];
    float s, t;
    uint8_t rgba[4];
} gc_rs_vertex;

/* A vertex after projection: what the GS receives. */
typedef struct gc_rs_svertex {
    int32_t x, y;  /* 12.4 fixed-point pixels, y down */
    float q;       /* 1/w: the depth value, larger is nearer, > 0 */
    float sq, tq;  /* s * q, t * q */
    float rgba[4]; /* vertex colour, 0x80 = 1.0 */
} gc_rs_svertex;

/* Draw one world-space triangle (either winding; no back-face culling) with
 * texture `tex` (NULL: vertex colour only). Clips, projects, rasterises. */
void gc_rs_draw_triangle(gc_rs_target *t, const gc_rs_camera *cam, const gc_rs_vertex v[3],
                         const gc_rs_texture *tex);

/* Shared vertices (the object path: an instance's triangles index its
 * class's vertices). A vertex is placed, moved to camera space, outcoded,
 * projected and snapped once, by gc_rs_project, and every triangle that
 * uses it reads the result; gc_rs_draw_indexed then draws the triangles
 * exactly as gc_rs_draw_triangle would draw them one by one (the same
 * lane expressions give the same bits; only repeated work is shared), and
 * asks for a triangle's texture coordinates, colours and texture only when
 * it can put a pixel in the frame: most object triangles cover no pixel
 * centre, and lighting their corners would be wasted. */
#define GC_RS_PV_BAD 32u /* gc_rs_pvertex.code: a coordinate not within +-1e30 (or NaN) */
typedef struct gc_rs_pvertex {
    int32_t x, y; /* 12.4 fixed-point pixels, when code == 0 */
    float q;      /* 1/w, when code == 0 */
    uint32_t
        code; /* bit pl set: outside clip plane pl (0 near, 1..4 the guard band); GC_RS_PV_BAD */
    float cam[3]; /* camera space: x right, y up, z forward */
    float pad;
} gc_rs_pvertex;

/* Points i < n of (x[i], y[i], z[i]) placed by m (columns 0, 1, 2 and the
 * position 3, three floats each: world = c0 x + c1 y + c2 z + c3, summed in
 * that order in single precision) and projected into out[0 .. n-1]. The
 * caller adds GC_RS_PV_BAD to the code of a vertex whose s or t is not
 * within +-1e30 (gc_rs_draw_triangle skips such a triangle). Points are
 * taken four at a time: x, y and z must be readable, and out writable, up
 * to n rounded up to a multiple of 4 (the extra entries are scratch). */
void gc_rs_project(const gc_rs_camera *cam, const float m[12], size_t n, const float *x,
                   const float *y, const float *z, gc_rs_pvertex *out);

/* What gc_rs_project_bounds found over points 0 .. n-1: the OR of their
 * codes, and the least and greatest x and y (meaningful when code is 0). */
typedef struct gc_rs_pbounds {
    uint32_t code;
    int32_t x0, x1, y0, y1;
} gc_rs_pbounds;

/* gc_rs_project, and the points' bounds into *b (n 0: code 0, an empty box).
 * A caller that sets GC_RS_PV_BAD in a code afterwards sets it in b->code. */
void gc_rs_project_bounds(const gc_rs_camera *cam, const float m[12], size_t n, const float *x,
                          const float *y, const float *z, gc_rs_pvertex *out, gc_rs_pbounds *b);

/* Fill v[0..2].s, .t, .rgba (pos is not read) for triangle j of a
 * gc_rs_draw_indexed call and return its texture (NULL: vertex colour). */
typedef const gc_rs_texture *(*gc_rs_corners_fn)(void *ctx, size_t j, gc_rs_vertex v[3]);

/* Triangles j < ntris, corners idx[j*stride + 0..2] - base into pv, in
 * order, with the results gc_rs_draw_triangle gives for the same corners. */
void gc_rs_draw_indexed(gc_rs_target *t, const gc_rs_camera *cam, const gc_rs_pvertex *pv,
                        uint32_t base, const uint32_t *idx, size_t stride, size_t ntris,
                        gc_rs_corners_fn corners, void *ctx);
/* gc_rs_draw_indexed for points whose bounds *b gc_rs_project_bounds gave
 * (every vertex the triangles name among them): the same frame and
 * counters, and when no pixel centre lies in the points' box, only the
 * counting (no corner is asked for). */
void gc_rs_draw_indexed_bounded(gc_rs_target *t, const gc_rs_camera *cam, const gc_rs_pvertex *pv,
                                const gc_rs_pbounds *b, uint32_t base, const uint32_t *idx,
                                size_t stride, size_t ntris, gc_rs_corners_fn corners, void *ctx);

/* 1 when every pixel of the box x0..x1, y0..y1 (clamped to the frame; an
 * empty box too) holds a depth >= q: a surface none of whose pixels can
 * have 1/w above q fails the depth test on every pixel there, so drawing
 * it would change nothing. The object path culls an instance with it. */
int gc_rs_depth_hides(const gc_rs_target *t, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
                      float q);

/* Rasterise one screen-space triangle (either winding). The caller
 * guarantees |x|, |y| < 2^20 (the camera path's guard band does). */
void gc_rs_draw_screen_triangle(gc_rs_target *t, const gc_rs_svertex v[3],
                                const gc_rs_texture *tex);

/* Snap a pixel coordinate to 12.4 fixed point, rounding half away from zero;
 * values are clamped to +-2^20 pixels. */
int32_t gc_rs_to_fixed(float px);

#endif
