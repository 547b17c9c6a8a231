/* SPDX-License-Identifier: MIT */
/* Rasteriser unit tests with exact expected pixels: top-left coverage, shared
 * edges drawn once, depth ordering, perspective-correct texturing, near-plane
 * clipping, alpha discard, PS2 modulation and wrap modes. Expectations are
 * computed independently here (by hand or from ray/plane geometry in double
 * precision), never by calling the rasteriser a second way. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "gc_raster.h"

static const uint8_t bg[4] = {1, 2, 3, 255};

static gc_rs_svertex sv(int32_t x16, int32_t y16, float q, float s, float t, float r, float g,
                        float b, float a)
{
    gc_rs_svertex v = {x16, y16, q, s * q, t * q, {r, g, b, a}};
    return v;
}

static gc_rs_texture mktex(uint32_t w, uint32_t h, const uint8_t *rgba, int ws, int wt)
{
    gc_rs_texture t;
    memset(&t, 0, sizeof t);
    t.width = w;
    t.height = h;
    t.rgba = rgba;
    t.wrap_s = ws;
    t.wrap_t = wt;
    return t;
}

static void new_target(gc_rs_target *t, uint32_t w, uint32_t h)
{
    cr_assert_eq(gc_rs_target_init(t, w, h, 1), 0);
    gc_rs_target_clear(t, bg);
}

static const uint8_t *px(const gc_rs_target *t, uint32_t x, uint32_t y)
{
    return t->rgba + ((size_t)y * t->width + x) * 4;
}

/* Vertices on pixel centres so the top and left edges pass exactly through
 * sample points: (0.5,0.5) (10.5,0.5) (0.5,10.5). Centre (x+.5, y+.5) is
 * inside iff x >= 0, y >= 0, x + y < 10; on the top edge (y = 0) and the
 * left edge (x = 0) it is included, on the hypotenuse (x + y = 10) not. */
/* A clear puts the colour's four bytes in every pixel (widths and heights
 * whose pixel counts are and are not multiples of the 16-pixel copies,
 * after a frame of other bytes), depth 0 and no writes everywhere. */
Test(raster, clear_fills_every_pixel)
{
    const uint32_t dims[][2] = {{1, 1}, {3, 5}, {16, 1}, {17, 3}, {31, 7}, {96, 72}, {97, 13}};
    const uint8_t col[4] = {0x12, 0x34, 0x56, 0x78};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        gc_rs_target t;
        cr_assert_eq(gc_rs_target_init(&t, dims[d][0], dims[d][1], 1), 0);
        const size_t n = (size_t)dims[d][0] * dims[d][1];
        memset(t.rgba, 0xEE, n * 4);
        for (size_t i = 0; i < n; i++) {
            t.depth[i] = 1.0f;
            t.writes[i] = 3;
        }
        gc_rs_target_clear(&t, col);
        for (size_t i = 0; i < n; i++) {
            cr_assert_eq(memcmp(t.rgba + 4 * i, col, 4), 0, "%ux%u pixel %zu", dims[d][0],
                         dims[d][1], i);
            cr_assert_eq(t.depth[i], 0.0f);
            cr_assert_eq(t.writes[i], 0);
        }
        gc_rs_target_free(&t);
    }
}

Test(raster, single_triangle_top_left_coverage)
{
    for (int winding = 0; winding < 2; winding++) {
        gc_rs_target t;
        new_target(&t, 16, 16);
        gc_rs_svertex v[3] = {sv(8, 8, 1, 0, 0, 200, 100, 50, 0x80),
                              sv(168, 8, 1, 0, 0, 200, 100, 50, 0x80),
                              sv(8, 168, 1, 0, 0, 200, 100, 50, 0x80)};
        if (winding) {
            gc_rs_svertex tmp = v[1];
            v[1] = v[2];
            v[2] = tmp;
        }
        gc_rs_draw_screen_triangle(&t, v, NULL);
        int n = 0;
        for (uint32_t y = 0; y < 16; y++)
            for (uint32_t x = 0; x < 16; x++) {
                int want = x + y < 10;
                int got = t.writes[y * 16 + x];
                cr_assert_eq(got, want, "pixel (%u,%u) written %d times, want %d", x, y, got, want);
                if (want) {
                    const uint8_t *p = px(&t, x, y);
                    cr_assert(p[0] == 200 && p[1] == 100 && p[2] == 50 && p[3] == 255);
                }
                n += got;
            }
        cr_assert_eq(n, 55);
        gc_rs_target_free(&t);
    }
}

/* The complementary triangle (10.5,0.5) (10.5,10.5) (0.5,10.5) shares the
 * hypotenuse: together they cover the 10x10 square, every pixel once. */
Test(raster, shared_edge_square_once)
{
    gc_rs_target t;
    new_target(&t, 16, 16);
    gc_rs_svertex a[3] = {sv(8, 8, 1, 0, 0, 10, 10, 10, 0x80),
                          sv(168, 8, 1, 0, 0, 10, 10, 10, 0x80),
                          sv(8, 168, 1, 0, 0, 10, 10, 10, 0x80)};
    gc_rs_svertex b[3] = {sv(168, 8, 1, 0, 0, 20, 20, 20, 0x80),
                          sv(168, 168, 1, 0, 0, 20, 20, 20, 0x80),
                          sv(8, 168, 1, 0, 0, 20, 20, 20, 0x80)};
    gc_rs_draw_screen_triangle(&t, a, NULL);
    gc_rs_draw_screen_triangle(&t, b, NULL);
    for (uint32_t y = 0; y < 16; y++)
        for (uint32_t x = 0; x < 16; x++) {
            int want = x < 10 && y < 10;
            cr_assert_eq(t.writes[y * 16 + x], want, "pixel (%u,%u)", x, y);
            if (want) /* the second triangle owns x + y >= 10 */
                cr_assert_eq(px(&t, x, y)[0], x + y >= 10 ? 20 : 10, "pixel (%u,%u)", x, y);
        }
    gc_rs_target_free(&t);
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A jittered grid mesh: every interior edge is shared by two triangles with
 * arbitrary sub-pixel endpoints. The outer boundary is the rectangle
 * x in [2.25, 50.75], y in [3.3125, 40.6875] (in 1/16 units: 36..812,
 * 53..651), whose top-left-rule coverage is x in [2, 50], y in [3, 40].
 * Every pixel there is written exactly once, every other pixel never. */
Test(raster, shared_edges_jittered_mesh_once)
{
    enum { N = 8 };
    int32_t gx[N + 1][N + 1], gy[N + 1][N + 1];
    uint32_t seed = 12345;
    for (int j = 0; j <= N; j++)
        for (int i = 0; i <= N; i++) {
            int32_t x = 36 + (812 - 36) * i / N, y = 53 + (651 - 53) * j / N;
            if (i > 0 && i < N)
                x += (int32_t)(lcg(&seed) % 41) - 20; /* cell is 97 units wide */
            if (j > 0 && j < N)
                y += (int32_t)(lcg(&seed) % 31) - 15; /* cell is 74 units tall */
            gx[j][i] = x;
            gy[j][i] = y;
        }
    gc_rs_target t;
    new_target(&t, 64, 48);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            gc_rs_svertex p00 = sv(gx[j][i], gy[j][i], 1, 0, 0, 9, 9, 9, 0x80);
            gc_rs_svertex p10 = sv(gx[j][i + 1], gy[j][i + 1], 1, 0, 0, 9, 9, 9, 0x80);
            gc_rs_svertex p01 = sv(gx[j + 1][i], gy[j + 1][i], 1, 0, 0, 9, 9, 9, 0x80);
            gc_rs_svertex p11 = sv(gx[j + 1][i + 1], gy[j + 1][i + 1], 1, 0, 0, 9, 9, 9, 0x80);
            if (lcg(&seed) & 1) {
                gc_rs_svertex t1[3] = {p00, p10, p11}, t2[3] = {p00, p11, p01};
                gc_rs_draw_screen_triangle(&t, t1, NULL);
                gc_rs_draw_screen_triangle(&t, t2, NULL);
            } else {
                gc_rs_svertex t1[3] = {p00, p10, p01}, t2[3] = {p10, p11, p01};
                gc_rs_draw_screen_triangle(&t, t1, NULL);
                gc_rs_draw_screen_triangle(&t, t2, NULL);
            }
        }
    int total = 0;
    for (uint32_t y = 0; y < 48; y++)
        for (uint32_t x = 0; x < 64; x++) {
            int want = x >= 2 && x <= 50 && y >= 3 && y <= 40;
            cr_assert_eq(t.writes[y * 64 + x], want, "pixel (%u,%u) written %d times", x, y,
                         t.writes[y * 64 + x]);
            total += t.writes[y * 64 + x];
        }
    cr_assert_eq(total, 49 * 38);
    cr_assert_eq(t.stats.setups, 2 * N * N);
    gc_rs_target_free(&t);
}

/* Whether pixel (x, y) of a screen triangle is covered, from the rule in
 * gc_raster.h alone: edges p->q with E(P) = (q.x-p.x)(P.y-p.y) -
 * (q.y-p.y)(P.x-p.x) > 0 inside (the corners ordered so the area is
 * positive), at the centre P = (16x + 8, 16y + 8), a pixel on an edge
 * covered when the edge is top or left (dy < 0, or dy == 0 and dx > 0). */
static int covers(const gc_rs_svertex v[3], int64_t x, int64_t y)
{
    const gc_rs_svertex *a = &v[0], *b = &v[1], *c = &v[2];
    int64_t area = ((int64_t)b->x - a->x) * (c->y - a->y) - ((int64_t)b->y - a->y) * (c->x - a->x);
    if (area == 0)
        return 0;
    if (area < 0) {
        const gc_rs_svertex *tmp = b;
        b = c;
        c = tmp;
    }
    const gc_rs_svertex *ep[3] = {b, c, a}, *eq[3] = {c, a, b};
    const int64_t px = 16 * x + 8, py = 16 * y + 8;
    for (int e = 0; e < 3; e++) {
        const int64_t dx = (int64_t)eq[e]->x - ep[e]->x, dy = (int64_t)eq[e]->y - ep[e]->y;
        const int64_t E = dx * (py - ep[e]->y) - dy * (px - ep[e]->x);
        if (E < 0 || (E == 0 && !(dy < 0 || (dy == 0 && dx > 0))))
            return 0;
    }
    return 1;
}

/* Triangles from under a pixel to a few dozen wide (boxes narrower than
 * the pixel loop's span width, found pixel by pixel, and wider, found by
 * division), some with edges through pixel centres: every pixel written
 * exactly where the rule covers it, and the counters the loop keeps per
 * row or derives (covered, written = covered - depth failures -
 * discards) equal the per-pixel counts: a first draw writes every covered
 * pixel, the same triangle again fails the depth test on each, and with
 * a texture whose left half is transparent each covered pixel is either
 * discarded or written. */
Test(raster, covered_runs_and_counters)
{
    static const uint8_t texels[8] = {9, 9, 9, 0, 200, 100, 50, 0x80}; /* transparent, opaque */
    const gc_rs_texture tex = mktex(2, 1, texels, GC_RS_WRAP_CLAMP, GC_RS_WRAP_CLAMP);
    uint32_t seed = 777;
    int narrow = 0, wide = 0, some_discarded = 0;
    for (int iter = 0; iter < 3000; iter++) {
        const int32_t span = (int32_t)(iter % 3 == 0 ? 24 : iter % 3 == 1 ? 160 : 640);
        const int32_t ox = 64 + (int32_t)(lcg(&seed) % 256), oy = 64 + (int32_t)(lcg(&seed) % 256);
        gc_rs_svertex v[3];
        for (int k = 0; k < 3; k++) {
            int32_t x = ox + (int32_t)(lcg(&seed) % (uint32_t)span);
            int32_t y = oy + (int32_t)(lcg(&seed) % (uint32_t)span);
            if (lcg(&seed) % 4 == 0) { /* on a pixel centre */
                x = x / 16 * 16 + 8;
                y = y / 16 * 16 + 8;
            }
            v[k] = sv(x, y, 0.5f, (float)(x - ox) / (float)span, 0.5f, 0x80, 0x80, 0x80, 0x80);
        }
        const int textured = iter % 2;
        gc_rs_target t;
        new_target(&t, 64, 64);
        uint64_t want = 0;
        int64_t x0 = 64, x1 = -1;
        for (int64_t y = 0; y < 64; y++)
            for (int64_t x = 0; x < 64; x++)
                if (covers(v, x, y)) {
                    want++;
                    x0 = x < x0 ? x : x0;
                    x1 = x > x1 ? x : x1;
                }
        gc_rs_draw_screen_triangle(&t, v, textured ? &tex : NULL);
        uint64_t written = 0;
        for (int64_t y = 0; y < 64; y++)
            for (int64_t x = 0; x < 64; x++) {
                const int w = t.writes[y * 64 + x];
                cr_assert(w <= covers(v, x, y), "iteration %d: pixel (%lld,%lld) written %d times",
                          iter, (long long)x, (long long)y, w);
                cr_assert(textured || w == covers(v, x, y),
                          "iteration %d: pixel (%lld,%lld) not written", iter, (long long)x,
                          (long long)y);
                written += (uint64_t)w;
            }
        cr_assert_eq(t.stats.pixels_covered, want, "iteration %d", iter);
        cr_assert_eq(t.stats.pixels_depth_fail, 0);
        cr_assert_eq(t.stats.pixels_written, written, "iteration %d", iter);
        cr_assert_eq(t.stats.pixels_written + t.stats.texels_discarded, want, "iteration %d", iter);
        some_discarded += t.stats.texels_discarded > 0 && written > 0;
        if (want) {
            narrow += x1 - x0 < 7;
            wide += x1 - x0 >= 12;
        }
        memset(&t.stats, 0, sizeof t.stats);
        gc_rs_draw_screen_triangle(&t, v, textured ? &tex : NULL);
        cr_assert_eq(t.stats.pixels_covered, want);
        cr_assert_eq(t.stats.pixels_depth_fail, written, "iteration %d", iter);
        cr_assert_eq(t.stats.pixels_written, 0, "iteration %d", iter);
        gc_rs_target_free(&t);
    }
    cr_assert(narrow > 300 && wide > 300 && some_discarded > 50, "narrow %d wide %d discarded %d",
              narrow, wide, some_discarded);
}

/* Nearer (larger q) wins whatever the drawing order. */
Test(raster, depth_ordering)
{
    for (int order = 0; order < 2; order++) {
        gc_rs_target t;
        new_target(&t, 16, 16);
        gc_rs_svertex near_tri[3] = {sv(0, 0, 0.5f, 0, 0, 255, 0, 0, 0x80),
                                     sv(160, 0, 0.5f, 0, 0, 255, 0, 0, 0x80),
                                     sv(0, 160, 0.5f, 0, 0, 255, 0, 0, 0x80)};
        gc_rs_svertex far_quad[2][3] = {
            {sv(0, 0, 0.25f, 0, 0, 0, 255, 0, 0x80), sv(256, 0, 0.25f, 0, 0, 0, 255, 0, 0x80),
             sv(256, 256, 0.25f, 0, 0, 0, 255, 0, 0x80)},
            {sv(0, 0, 0.25f, 0, 0, 0, 255, 0, 0x80), sv(256, 256, 0.25f, 0, 0, 0, 255, 0, 0x80),
             sv(0, 256, 0.25f, 0, 0, 0, 255, 0, 0x80)}};
        if (order == 0) {
            gc_rs_draw_screen_triangle(&t, near_tri, NULL);
            gc_rs_draw_screen_triangle(&t, far_quad[0], NULL);
            gc_rs_draw_screen_triangle(&t, far_quad[1], NULL);
        } else {
            gc_rs_draw_screen_triangle(&t, far_quad[0], NULL);
            gc_rs_draw_screen_triangle(&t, far_quad[1], NULL);
            gc_rs_draw_screen_triangle(&t, near_tri, NULL);
        }
        for (uint32_t y = 0; y < 16; y++)
            for (uint32_t x = 0; x < 16; x++) {
                const uint8_t *p = px(&t, x, y);
                if (x + y < 9) /* inside the near triangle (x+.5 + y+.5 < 10) */
                    cr_assert(p[0] == 255 && p[1] == 0, "order %d pixel (%u,%u)", order, x, y);
                else
                    cr_assert(p[0] == 0 && p[1] == 255, "order %d pixel (%u,%u)", order, x, y);
                cr_assert_eq(t.depth[y * 16 + x], x + y < 9 ? 0.5f : 0.25f);
            }
        cr_assert_eq(t.stats.pixels_depth_fail, order == 0 ? 45 : 0);
        gc_rs_target_free(&t);
    }
}

/* Camera at the origin looking down +z with +y up, 64x64, focal 1 (32 px).
 * Right is -x in this right-handed world. */
static gc_rs_camera test_camera(void)
{
    gc_rs_camera c;
    const float eye[3] = {0, 0, 0}, target[3] = {0, 0, 1}, up[3] = {0, 1, 0};
    cr_assert_eq(gc_rs_camera_look(&c, eye, target, up, 1.0f, 0.5f, 64, 64), 0);
    cr_assert_eq(c.right[0], -1.0f);
    cr_assert_eq(c.focal_px, 32.0f);
    return c;
}

/* Where the ray through pixel centre (px, py) meets the floor y = -1:
 * sy = 32 + 32/z and sx = 32 - 32x/z. Returns 0 above the horizon. */
static int floor_hit(uint32_t x, uint32_t y, double *wx, double *wz)
{
    double sy = y + 0.5 - 32.0;
    if (sy <= 0)
        return 0;
    *wz = 32.0 / sy;
    *wx = -(x + 0.5 - 32.0) * *wz / 32.0;
    return 1;
}

static void floor_vertex(gc_rs_vertex *v, float x, float z, float s, float t)
{
    memset(v, 0, sizeof *v);
    v->pos[0] = x;
    v->pos[1] = -1.0f;
    v->pos[2] = z;
    v->s = s;
    v->t = t;
    v->rgba[0] = v->rgba[1] = v->rgba[2] = v->rgba[3] = 0x80;
}

/* A floor quad x in [-4, 4], z in [1, 3], s = (x+4)/8, t = (z-1)/2, with a
 * 2x2 checkerboard. The texel row changes at z = 2, i.e. screen row 48; an
 * affine interpolator would change it at row 53.3, so rows 48..52 tell the
 * two apart. Every pixel away from a boundary is checked against the
 * ray-plane intersection. */
Test(raster, perspective_correct_checkerboard)
{
    gc_rs_camera cam = test_camera();
    gc_rs_target t;
    new_target(&t, 64, 64);
    static const uint8_t texels[16] = {255, 255, 255, 0x80, 0,   0,   0,   0x80,
                                       0,   0,   0,   0x80, 255, 255, 255, 0x80};
    gc_rs_texture tex = mktex(2, 2, texels, GC_RS_WRAP_REPEAT, GC_RS_WRAP_REPEAT);
    gc_rs_vertex q[4];
    floor_vertex(&q[0], -4, 1, 0, 0);
    floor_vertex(&q[1], 4, 1, 1, 0);
    floor_vertex(&q[2], 4, 3, 1, 1);
    floor_vertex(&q[3], -4, 3, 0, 1);
    gc_rs_vertex t1[3] = {q[0], q[1], q[2]}, t2[3] = {q[0], q[2], q[3]};
    gc_rs_draw_triangle(&t, &cam, t1, &tex);
    gc_rs_draw_triangle(&t, &cam, t2, &tex);

    /* Hand-picked pixels first: col 0 is x < 0, i.e. screen x >= 32. */
    cr_assert_eq(px(&t, 40, 50)[0], 255); /* z = 1.73: row 0, col 0: white (affine: black) */
    cr_assert_eq(px(&t, 20, 50)[0], 0);   /* row 0, col 1 */
    cr_assert_eq(px(&t, 40, 45)[0], 0);   /* z = 2.37: row 1, col 0 */
    cr_assert_eq(px(&t, 20, 45)[0], 255);
    cr_assert_eq(px(&t, 40, 42)[0], 1); /* z = 3.05: beyond the quad, background */

    int checked = 0;
    for (uint32_t y = 0; y < 64; y++)
        for (uint32_t x = 0; x < 64; x++) {
            double wx, wz;
            const uint8_t *p = px(&t, x, y);
            if (!floor_hit(x, y, &wx, &wz)) {
                cr_assert_eq(t.writes[y * 64 + x], 0, "above the horizon (%u,%u)", x, y);
                continue;
            }
            double s = (wx + 4) / 8, tt = (wz - 1) / 2;
            int inside = s > 0.01 && s < 0.99 && tt > 0.01 && tt < 0.99;
            int outside = s < -0.01 || s > 1.01 || tt < -0.01 || tt > 1.01;
            if (outside)
                cr_assert_eq(t.writes[y * 64 + x], 0, "outside (%u,%u)", x, y);
            if (!inside || (s > 0.49 && s < 0.51) || (tt > 0.48 && tt < 0.52))
                continue;
            int col = s >= 0.5, row = tt >= 0.5;
            uint8_t want = col == row ? 255 : 0;
            cr_assert_eq(t.writes[y * 64 + x], 1, "(%u,%u)", x, y);
            cr_assert_eq(p[0], want, "(%u,%u) s %.3f t %.3f", x, y, s, tt);
            checked++;
        }
    cr_assert_gt(checked, 500);
    gc_rs_target_free(&t);
}

/* A floor triangle with two vertices behind the camera. Unclipped, those
 * would project mirrored above the horizon; clipped, exactly the part of
 * the floor triangle in front of the near plane is drawn. */
Test(raster, near_plane_clipping)
{
    gc_rs_camera cam = test_camera();
    gc_rs_target t;
    new_target(&t, 64, 64);
    gc_rs_vertex v[3];
    floor_vertex(&v[0], -6, -2, 0, 0);
    floor_vertex(&v[1], 6, -2, 0, 0);
    floor_vertex(&v[2], 0, 6, 0, 0);
    gc_rs_draw_triangle(&t, &cam, v, NULL);
    cr_assert_eq(t.stats.triangles_clipped, 1);
    cr_assert_eq(t.stats.setups, 1); /* one vertex in front: the clipped polygon is a triangle */
    int checked = 0;
    for (uint32_t y = 0; y < 64; y++)
        for (uint32_t x = 0; x < 64; x++) {
            double wx, wz;
            int w = t.writes[y * 64 + x];
            if (!floor_hit(x, y, &wx, &wz)) {
                cr_assert_eq(w, 0, "drawn above the horizon at (%u,%u)", x, y);
                continue;
            }
            /* Edge functions of the triangle in the (x, z) plane, normalised
             * to distances in world units. Left edge from (-6,-2) to (0,6):
             * inside where 8x - 6z + (-36)... computed as signed distance. */
            double d1 = ((0 - -6) * (wz - -2) - (6 - -2) * (wx - -6)) / 10.0; /* v0->v2 */
            double d2 = ((6 - 0) * (wz - 6) - (-2 - 6) * (wx - 0)) / 10.0;    /* v2->v1 */
            double d3 = wz + 2;                                               /* v1->v0: z = -2 */
            int inside = d1 < -0.05 && d2 < -0.05 && d3 > 0.05;
            int outside = d1 > 0.05 || d2 > 0.05;
            if (inside) {
                cr_assert_eq(w, 1, "(%u,%u) z %.2f", x, y, wz);
                checked++;
            } else if (outside) {
                cr_assert_eq(w, 0, "(%u,%u) z %.2f", x, y, wz);
            }
        }
    cr_assert_gt(checked, 600);
    /* The bottom-centre pixel sees the floor at z = 32/31.5 ~ 1.02: drawn. */
    cr_assert_eq(t.writes[63 * 64 + 32], 1);
    gc_rs_target_free(&t);
}

/* A texel with alpha 0 writes neither colour nor depth: the far quad drawn
 * afterwards shows through the hole; the opaque texel's pixels keep it out. */
Test(raster, alpha_discard)
{
    gc_rs_target t;
    new_target(&t, 16, 8);
    static const uint8_t texels[8] = {255, 0, 0, 0, 0, 255, 0, 0x80};
    gc_rs_texture tex = mktex(2, 1, texels, GC_RS_WRAP_CLAMP, GC_RS_WRAP_CLAMP);
    /* Near quad over x in [0,16), y in [0,8): s = x / 16. */
    gc_rs_svertex n1[3] = {sv(0, 0, 1, 0, 0, 0x80, 0x80, 0x80, 0x80),
                           sv(256, 0, 1, 1, 0, 0x80, 0x80, 0x80, 0x80),
                           sv(256, 128, 1, 1, 1, 0x80, 0x80, 0x80, 0x80)};
    gc_rs_svertex n2[3] = {sv(0, 0, 1, 0, 0, 0x80, 0x80, 0x80, 0x80),
                           sv(256, 128, 1, 1, 1, 0x80, 0x80, 0x80, 0x80),
                           sv(0, 128, 1, 0, 1, 0x80, 0x80, 0x80, 0x80)};
    gc_rs_svertex f1[3] = {sv(0, 0, 0.5f, 0, 0, 0, 0, 255, 0x80),
                           sv(256, 0, 0.5f, 0, 0, 0, 0, 255, 0x80),
                           sv(256, 128, 0.5f, 0, 0, 0, 0, 255, 0x80)};
    gc_rs_svertex f2[3] = {sv(0, 0, 0.5f, 0, 0, 0, 0, 255, 0x80),
                           sv(256, 128, 0.5f, 0, 0, 0, 0, 255, 0x80),
                           sv(0, 128, 0.5f, 0, 0, 0, 0, 255, 0x80)};
    gc_rs_draw_screen_triangle(&t, n1, &tex);
    gc_rs_draw_screen_triangle(&t, n2, &tex);
    cr_assert_eq(t.stats.texels_discarded, 64);
    gc_rs_draw_screen_triangle(&t, f1, NULL);
    gc_rs_draw_screen_triangle(&t, f2, NULL);
    for (uint32_t y = 0; y < 8; y++)
        for (uint32_t x = 0; x < 16; x++) {
            const uint8_t *p = px(&t, x, y);
            if (x < 8) /* s = (x+.5)/16 < 0.5: texel 0, transparent */
                cr_assert(p[0] == 0 && p[1] == 0 && p[2] == 255, "hole (%u,%u)", x, y);
            else
                cr_assert(p[0] == 0 && p[1] == 255 && p[2] == 0, "opaque (%u,%u)", x, y);
        }
    gc_rs_target_free(&t);
}

/* (tex * col) >> 7 clamped, alpha 0..0x80, and the GS blend for As < 0x80. */
Test(raster, ps2_modulate_and_blend)
{
    gc_rs_target t;
    new_target(&t, 4, 4);
    static const uint8_t texel[4] = {200, 100, 50, 0x80};
    gc_rs_texture tex = mktex(1, 1, texel, GC_RS_WRAP_REPEAT, GC_RS_WRAP_REPEAT);
    gc_rs_svertex a[3] = {sv(0, 0, 1, 0, 0, 0x40, 0x80, 0xFF, 0x80),
                          sv(64, 0, 1, 0, 0, 0x40, 0x80, 0xFF, 0x80),
                          sv(0, 64, 1, 0, 0, 0x40, 0x80, 0xFF, 0x80)};
    gc_rs_draw_screen_triangle(&t, a, &tex);
    const uint8_t *p = px(&t, 0, 0);
    cr_assert_eq(p[0], 100); /* 200 * 64 >> 7 */
    cr_assert_eq(p[1], 100); /* 100 * 128 >> 7 */
    cr_assert_eq(p[2], 99);  /* 50 * 255 >> 7 */
    cr_assert_eq(p[3], 255);
    /* Half alpha over background (1,2,3): Cd + (Cs - Cd) * 0x40 >> 7. */
    gc_rs_svertex b[3] = {sv(0, 0, 2, 0, 0, 0x80, 0x80, 0x80, 0x40),
                          sv(64, 0, 2, 0, 0, 0x80, 0x80, 0x80, 0x40),
                          sv(0, 64, 2, 0, 0, 0x80, 0x80, 0x80, 0x40)};
    gc_rs_draw_screen_triangle(&t, b, &tex);
    cr_assert_eq(p[0], 150); /* 100 + (200 - 100) * 64 / 128 */
    cr_assert_eq(p[1], 100);
    cr_assert_eq(p[2], 74); /* 99 + floor((50 - 99) * 64 / 128) = 99 - 25 */
    gc_rs_target_free(&t);
}

/* s from -0.5 to 1.5 across 16 pixels on a 2-texel texture. */
Test(raster, wrap_repeat_and_clamp)
{
    static const uint8_t texels[8] = {10, 0, 0, 0x80, 20, 0, 0, 0x80};
    for (int mode = 0; mode < 2; mode++) {
        gc_rs_target t;
        new_target(&t, 16, 1);
        gc_rs_texture tex = mktex(2, 1, texels, mode, GC_RS_WRAP_REPEAT);
        gc_rs_svertex a[3] = {sv(0, 0, 1, -0.5f, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(256, 0, 1, 1.5f, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(0, 64, 1, -0.5f, 0, 0x80, 0x80, 0x80, 0x80)};
        gc_rs_svertex b[3] = {sv(256, 0, 1, 1.5f, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(256, 64, 1, 1.5f, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(0, 64, 1, -0.5f, 0, 0x80, 0x80, 0x80, 0x80)};
        gc_rs_draw_screen_triangle(&t, a, &tex);
        gc_rs_draw_screen_triangle(&t, b, &tex);
        for (uint32_t x = 0; x < 16; x++) {
            double s = -0.5 + 2.0 * (x + 0.5) / 16.0; /* texel u = 2s */
            int u = (int)(2 * s + 2) - 2;             /* floor for u in [-1, 3) */
            int want;
            if (mode == GC_RS_WRAP_CLAMP)
                want = u <= 0 ? 10 : 20;
            else
                want = ((u % 2) + 2) % 2 == 0 ? 10 : 20;
            cr_assert_eq(px(&t, x, 0)[0], want, "mode %d x %u", mode, x);
        }
        gc_rs_target_free(&t);
    }
    cr_assert_eq(gc_rs_wrap_from_clamp(0), GC_RS_WRAP_REPEAT);
    cr_assert_eq(gc_rs_wrap_from_clamp(1), GC_RS_WRAP_CLAMP);
}

Test(raster, bad_arguments)
{
    gc_rs_target t;
    cr_assert_eq(gc_rs_target_init(&t, 0, 10, 0), -1);
    cr_assert_eq(gc_rs_target_init(&t, GC_RS_MAX_DIM + 1, 10, 0), -1);
    gc_rs_camera c;
    const float e[3] = {0, 0, 0}, up[3] = {0, 0, 1}, tz[3] = {0, 0, 5}, tx[3] = {5, 0, 0};
    cr_assert_eq(gc_rs_camera_look(&c, e, e, up, 1, 0.1f, 64, 64), -1);  /* eye == target */
    cr_assert_eq(gc_rs_camera_look(&c, e, tz, up, 1, 0.1f, 64, 64), -1); /* up parallel */
    cr_assert_eq(gc_rs_camera_look(&c, e, tx, up, 0, 0.1f, 64, 64), -1); /* focal 0 */
    cr_assert_eq(gc_rs_camera_look(&c, e, tx, up, 1, 0.1f, 64, 64), 0);
    cr_assert_eq(gc_rs_to_fixed(1.0f), 16);
    cr_assert_eq(gc_rs_to_fixed(-1.03125f), -17); /* -16.5 rounds away from zero */
    cr_assert_eq(gc_rs_to_fixed(1e30f), 1 << 24);
}

/* Mip selection, MIPMAP_NEAREST: level = round(log2(1/q) + K), clamped.
 * At q = 1/4, log2(w) = 2 exactly; K = -1 gives level 1. */
Test(raster, mip_level_selection)
{
    cr_assert_eq(gc_rs_mip_level(0.25f, -1.0f, 3), 1);
    cr_assert_eq(gc_rs_mip_level(1.0f / 1.5f, -1.0f, 3), 0);  /* 0.58 - 1 < 0 */
    cr_assert_eq(gc_rs_mip_level(1.0f / 16.0f, -1.0f, 3), 3); /* 4 - 1 */
    cr_assert_eq(gc_rs_mip_level(1.0f / 64.0f, -1.0f, 2), 2); /* 5 clamps to the chain */
    cr_assert_eq(gc_rs_mip_level(1.0f / 64.0f, -1.0f, 0), 0); /* no chain: base */
    cr_assert_eq(gc_rs_mip_level(1.0f / 6.0f, 0.0f, 3), 3);   /* log2 6 ~ 2.5: rounds up */
    cr_assert_eq(gc_rs_mip_level(1.0f / 5.0f, 0.0f, 3), 2);   /* ~ 2.25 (linear mantissa) */
    /* A retail K (-137/16) keeps near surfaces on level 0. */
    cr_assert_eq(gc_rs_mip_level(1.0f / 100.0f, -137.0f / 16.0f, 3), 0);
    cr_assert_eq(gc_rs_mip_level(1.0f / 2000.0f, -137.0f / 16.0f, 3), 2);

    /* Drawn: red base, green level 1, blue level 2; the same triangle at
     * q = 1/1.5, 1/4 and 1/8 (K = -1) takes levels 0, 1 and 2. */
    static const uint8_t red[16] = {200, 0, 0, 0x80, 200, 0, 0, 0x80,
                                    200, 0, 0, 0x80, 200, 0, 0, 0x80};
    static const uint8_t green[4] = {0, 200, 0, 0x80}, blue[4] = {0, 0, 200, 0x80};
    gc_rs_texture tex = mktex(2, 2, red, GC_RS_WRAP_REPEAT, GC_RS_WRAP_REPEAT);
    tex.mip_count = 2;
    tex.mip_width[0] = tex.mip_height[0] = 1;
    tex.mip_rgba[0] = green;
    tex.mip_width[1] = tex.mip_height[1] = 1;
    tex.mip_rgba[1] = blue;
    tex.lod_k = -1.0f;
    const float qs[3] = {1.0f / 1.5f, 0.25f, 0.125f};
    const int want[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++) {
        gc_rs_target t;
        new_target(&t, 4, 4);
        gc_rs_svertex a[3] = {sv(0, 0, qs[i], 0, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(64, 0, qs[i], 1, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(0, 64, qs[i], 0, 1, 0x80, 0x80, 0x80, 0x80)};
        gc_rs_draw_screen_triangle(&t, a, &tex);
        const uint8_t *p = px(&t, 0, 0);
        cr_assert_eq(p[0] == 200, want[i] == 0, "q %f", qs[i]);
        cr_assert_eq(p[1] == 200, want[i] == 1, "q %f", qs[i]);
        cr_assert_eq(p[2] == 200, want[i] == 2, "q %f", qs[i]);
        gc_rs_target_free(&t);
    }
}

/* Bilinear within a level: texel centres at +0.5, 1/256 weights. A 2x1
 * texture (0 | 200) across 16 pixels: u*256 - 128 = (x + 0.5) * 32 - 128. */
/* The pixel loop finds the mip level by comparing q's bits with the cuts
 * between levels (gc_rs_mip_level_by_cuts); it must equal gc_rs_mip_level
 * at every q. Checked for several K (retail ones among them) and chain
 * lengths: on a grid of bits over q = 2^-31 .. 2^21, every bits value
 * between two grid points whose levels differ (so each transition is
 * checked exactly), random bits over all 2^32 (negative, NaN, infinities)
 * and the special values. */
static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

Test(raster, mip_level_by_cuts_equals_mip_level)
{
    static const float ks[] = {-137.0f / 16.0f, -1.0f,   0.0f,   0.5f,   1.25f,
                               -0.0625f,        7.9375f, 100.0f, -100.0f};
    static const uint32_t special[] = {0u,          0x80000000u, 1u,          0x007FFFFFu,
                                       0x00800000u, 0x3F800000u, 0x7F7FFFFFu, 0x7F800000u,
                                       0x7FC00000u, 0xFF800000u, 0xBF800000u};
    uint32_t seed = 777;
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (uint32_t n = 0; n <= 3; n++) {
            const float k = ks[ki];
            const uint32_t step = 4097;
            unsigned transitions = 0;
            for (uint32_t b = 0x30000000u; b < 0x4A000000u; b += step) {
                const uint32_t l0 = gc_rs_mip_level(from_bits(b), k, n);
                cr_assert_eq(gc_rs_mip_level_by_cuts(from_bits(b), k, n), l0, "k %f n %u bits %08x",
                             k, n, b);
                if (gc_rs_mip_level(from_bits(b + step), k, n) == l0)
                    continue;
                transitions++;
                for (uint32_t c = b + 1; c < b + step; c++)
                    cr_assert_eq(gc_rs_mip_level_by_cuts(from_bits(c), k, n),
                                 gc_rs_mip_level(from_bits(c), k, n), "k %f n %u bits %08x", k, n,
                                 c);
            }
            /* K 100 and -100 put every q of the grid on one level */
            if (k > -50.0f && k < 50.0f)
                cr_assert_geq(transitions, n, "k %f n %u", k, n);
            for (int i = 0; i < 20000; i++) {
                const uint32_t b = lcg(&seed) ^ lcg(&seed) << 16;
                cr_assert_eq(gc_rs_mip_level_by_cuts(from_bits(b), k, n),
                             gc_rs_mip_level(from_bits(b), k, n), "k %f n %u bits %08x", k, n, b);
            }
            for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
                cr_assert_eq(gc_rs_mip_level_by_cuts(from_bits(special[i]), k, n),
                             gc_rs_mip_level(from_bits(special[i]), k, n), "k %f n %u bits %08x", k,
                             n, special[i]);
        }
}

Test(raster, bilinear_filter)
{
    static const uint8_t texels[8] = {0, 0, 0, 0x80, 200, 0, 0, 0x80};
    for (int mode = 0; mode < 2; mode++) {
        gc_rs_target t;
        new_target(&t, 16, 1);
        gc_rs_texture tex = mktex(2, 1, texels, mode, GC_RS_WRAP_CLAMP);
        tex.filter = GC_RS_FILTER_LINEAR;
        gc_rs_svertex a[3] = {sv(0, 0, 1, 0, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(256, 0, 1, 1, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(0, 64, 1, 0, 0.5f, 0x80, 0x80, 0x80, 0x80)};
        gc_rs_svertex b[3] = {sv(256, 0, 1, 1, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(256, 64, 1, 1, 0.5f, 0x80, 0x80, 0x80, 0x80),
                              sv(0, 64, 1, 0, 0.5f, 0x80, 0x80, 0x80, 0x80)};
        gc_rs_draw_screen_triangle(&t, a, &tex);
        gc_rs_draw_screen_triangle(&t, b, &tex);
        for (uint32_t x = 0; x < 16; x++) {
            int fu = (int)((x + 0.5) * 32) - 128; /* exact: multiples of 16 */
            int x0 = fu >= 0 ? fu / 256 : -1, fx = fu - x0 * 256;
            int c0, c1;
            if (mode == GC_RS_WRAP_CLAMP) {
                c0 = x0 <= 0 ? 0 : 200;
                c1 = x0 + 1 <= 0 ? 0 : 200;
            } else {
                c0 = ((x0 % 2) + 2) % 2 ? 200 : 0;
                c1 = (((x0 + 1) % 2) + 2) % 2 ? 200 : 0;
            }
            int top = c0 * (256 - fx) + c1 * fx;
            int want = (top * 256 + 32768) >> 16;
            cr_assert_eq(px(&t, x, 0)[0], want, "mode %d x %u", mode, x);
        }
        /* Spot values worked by hand: x = 7 blends 112/256 of texel 1 -> 88. */
        cr_assert_eq(px(&t, 7, 0)[0], 88);
        cr_assert_eq(px(&t, 15, 0)[0], mode == GC_RS_WRAP_CLAMP ? 200 : 113);
        gc_rs_target_free(&t);
    }
}

/* The pixel loop's linear filter and modulation (gc_rs_filter_modulate):
 * its vector path (SSE2 lanes on x86-64) and its portable path against the
 * GC_RS_FILTER_LINEAR formula written out channel by channel, on random
 * inputs drawn mostly from the extremes (bytes 0, 1, 127, 128, 254, 255,
 * weights 0 and 255: where a lane could overflow or a clamp act) and on
 * every (fx, fy) pair with the largest texels and colours. */
static uint32_t pick_byte(uint32_t *seed)
{
    static const uint8_t edge[6] = {0, 1, 127, 128, 254, 255};
    uint32_t r = lcg(seed);
    return (r & 1) ? edge[(r >> 1) % 6] : (r >> 4) & 255;
}

static void check_filter_modulate(const uint32_t tx[4], uint32_t fx, uint32_t fy, const int col[4])
{
    uint8_t want[4];
    int keep = 1;
    for (int k = 0; k < 4; k++) {
        const int t00 = (int)(tx[0] >> (8 * k) & 255), t10 = (int)(tx[1] >> (8 * k) & 255),
                  t01 = (int)(tx[2] >> (8 * k) & 255), t11 = (int)(tx[3] >> (8 * k) & 255);
        const int gx = 256 - (int)fx, gy = 256 - (int)fy;
        const int f =
            ((t00 * gx + t10 * (int)fx) * gy + (t01 * gx + t11 * (int)fx) * (int)fy + 32768) >> 16;
        if (k == 3 && f == 0)
            keep = 0;
        const int m = (f * col[k]) >> 7;
        want[k] = (uint8_t)(m > 255 ? 255 : m);
    }
    for (int simd = 0; simd < 2; simd++) {
        uint8_t got[4] = {0, 0, 0, 0};
        const int r = gc_rs_filter_modulate(simd, tx, fx, fy, col, got);
        cr_assert_eq(r, keep, "simd %d fx %u fy %u", simd, fx, fy);
        if (keep)
            cr_assert_arr_eq(
                got, want, 4, "simd %d texels %08x %08x %08x %08x fx %u fy %u colour %d %d %d %d",
                simd, tx[0], tx[1], tx[2], tx[3], fx, fy, col[0], col[1], col[2], col[3]);
    }
}

Test(raster, filter_modulate_paths_agree)
{
    uint32_t seed = 12345;
    for (int i = 0; i < 400000; i++) {
        uint32_t tx[4];
        for (int j = 0; j < 4; j++)
            tx[j] = pick_byte(&seed) | pick_byte(&seed) << 8 | pick_byte(&seed) << 16 |
                    pick_byte(&seed) << 24;
        const int col[4] = {(int)pick_byte(&seed), (int)pick_byte(&seed), (int)pick_byte(&seed),
                            (int)pick_byte(&seed)};
        check_filter_modulate(tx, pick_byte(&seed), pick_byte(&seed), col);
    }
    const uint32_t hi[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
    const uint32_t mixed[4] = {0xFF00FF00u, 0x00FF00FFu, 0x80FF0180u, 0x01807FFEu};
    const int white[4] = {255, 255, 255, 255}, ps2[4] = {0x80, 0x81, 0x7F, 0x80};
    for (uint32_t fx = 0; fx < 256; fx++)
        for (uint32_t fy = 0; fy < 256; fy++) {
            check_filter_modulate(hi, fx, fy, white);
            check_filter_modulate(mixed, fx, fy, ps2);
        }
}

/* ---- shared vertices (gc_rs_project + gc_rs_draw_indexed) ---------------- */

typedef struct mesh_ctx {
    const gc_rs_vertex *verts; /* s, t, rgba per vertex */
    const uint32_t (*tris)[4]; /* corners and, in [3], 1 = textured */
    const gc_rs_texture *tex;
    size_t calls;
} mesh_ctx;

static const gc_rs_texture *mesh_corners(void *vctx, size_t j, gc_rs_vertex v[3])
{
    mesh_ctx *m = vctx;
    m->calls++;
    for (int c = 0; c < 3; c++)
        v[c] = m->verts[m->tris[j][c]];
    return m->tris[j][3] ? m->tex : NULL;
}

/* Layers of jittered grids, placed by a rotating, scaling matrix, some
 * crossing the near plane and the guard band, overlapping so that many
 * triangles lie behind earlier ones, plus a vertex at NaN and one with an
 * out-of-range s: drawn one triangle at a time and as an indexed mesh, the
 * frames, depths, write counts and counters are identical, and the indexed
 * path asks for fewer corners than it has triangles. */
Test(raster, indexed_mesh_equals_triangles)
{
    enum { G = 24, NV = G * G, NT = 2 * (G - 1) * (G - 1) };
    static float kx[NV + 3], ky[NV + 3], kz[NV + 3];
    static gc_rs_vertex wv[NV];
    static uint32_t tris[NT][4];
    static gc_rs_pvertex pv[NV + 3];
    static uint8_t texels[8 * 8 * 4];
    uint32_t seed = 7;
    for (size_t i = 0; i < sizeof texels; i++)
        texels[i] = (uint8_t)(i % 4 == 3 ? ((i / 4) % 5 ? 0x80 : 0) : lcg(&seed) & 0xFF);
    gc_rs_texture tex = mktex(8, 8, texels, GC_RS_WRAP_REPEAT, GC_RS_WRAP_CLAMP);
    tex.filter = GC_RS_FILTER_LINEAR;
    gc_rs_camera cam;
    const float eye[3] = {0.3f, 0.2f, -1.0f}, target[3] = {0, 0, 4}, up[3] = {0, 1, 0};
    cr_assert_eq(gc_rs_camera_look(&cam, eye, target, up, 1.0f, 0.05f, 96, 72), 0);
    gc_rs_target a, b;
    new_target(&a, 96, 72);
    new_target(&b, 96, 72);
    size_t drawn = 0, calls = 0;
    for (int layer = 0; layer < 6; layer++) {
        for (int i = 0; i < NV; i++) {
            int gx = i % G, gy = i / G;
            kx[i] = (float)gx / (G - 1) * 6.0f - 3.0f + (float)(lcg(&seed) % 100) * 1e-3f;
            ky[i] = (float)gy / (G - 1) * 4.0f - 2.0f + (float)(lcg(&seed) % 100) * 1e-3f;
            kz[i] = (float)(lcg(&seed) % 1000) * 1e-3f;
            memset(&wv[i], 0, sizeof wv[i]);
            wv[i].s = (float)gx * 0.37f;
            wv[i].t = (float)gy * 0.29f;
            for (int k = 0; k < 4; k++)
                wv[i].rgba[k] = (uint8_t)(k == 3 ? 0x40 + lcg(&seed) % 0x41 : lcg(&seed) % 256);
        }
        if (layer == 2)
            kx[5] = __builtin_nanf("");
        if (layer == 3)
            wv[40].s = 1e31f;
        int nt = 0;
        for (int y = 0; y + 1 < G; y++)
            for (int x = 0; x + 1 < G; x++) {
                uint32_t v0 = (uint32_t)(y * G + x), v1 = v0 + 1, v2 = v0 + G, v3 = v2 + 1;
                uint32_t textured = (uint32_t)((x + y + layer) % 3 != 0);
                const uint32_t t0[4] = {v0, v1, v3, textured}, t1[4] = {v0, v3, v2, textured};
                memcpy(tris[nt++], t0, sizeof t0);
                memcpy(tris[nt++], t1, sizeof t1);
            }
        /* layer 0 near (crosses the near plane), later ones further back,
         * turned and scaled; layer 5 partly beyond the guard band */
        const float ang = 0.3f * (float)layer, sc = 1.0f + 0.25f * (float)layer;
        const float cs = 1.0f - ang * ang / 2, sn = ang - ang * ang * ang / 6;
        const float m[12] = {sc * cs, sc * sn,
                             0,       -sc * sn,
                             sc * cs, 0,
                             0,       0,
                             sc,      layer == 5 ? 390.0f : 0.0f,
                             0,       layer == 0 ? -1.5f : 1.5f * (float)layer};
        for (int i = 0; i < NV; i++)
            for (int k = 0; k < 3; k++)
                wv[i].pos[k] = m[k] * kx[i] + m[3 + k] * ky[i] + m[6 + k] * kz[i] + m[9 + k];
        for (int j = 0; j < nt; j++) {
            gc_rs_vertex v[3] = {wv[tris[j][0]], wv[tris[j][1]], wv[tris[j][2]]};
            gc_rs_draw_triangle(&a, &cam, v, tris[j][3] ? &tex : NULL);
        }
        gc_rs_project(&cam, m, NV, kx, ky, kz, pv);
        for (int i = 0; i < NV; i++)
            if (!(wv[i].s > -1e30f && wv[i].s < 1e30f))
                pv[i].code |= GC_RS_PV_BAD;
        mesh_ctx mc = {wv, (const uint32_t(*)[4])tris, &tex, 0};
        gc_rs_draw_indexed(&b, &cam, pv, 0, tris[0], 4, (size_t)nt, mesh_corners, &mc);
        drawn += (size_t)nt;
        calls += mc.calls;
    }
    cr_assert_eq(memcmp(a.rgba, b.rgba, (size_t)96 * 72 * 4), 0);
    cr_assert_eq(memcmp(a.depth, b.depth, (size_t)96 * 72 * sizeof *a.depth), 0);
    cr_assert_eq(memcmp(a.writes, b.writes, (size_t)96 * 72 * sizeof *a.writes), 0);
    cr_assert_eq(memcmp(&a.stats, &b.stats, sizeof a.stats), 0);
    cr_log_info(
        "written %llu depth-fail %llu clipped %llu culled %llu skipped %llu calls %zu of %zu",
        (unsigned long long)a.stats.pixels_written, (unsigned long long)a.stats.pixels_depth_fail,
        (unsigned long long)a.stats.triangles_clipped, (unsigned long long)a.stats.triangles_culled,
        (unsigned long long)a.stats.triangles_skipped, calls, drawn);
    cr_assert_gt(a.stats.pixels_written, 1000);
    cr_assert_gt(a.stats.pixels_depth_fail, 1000);
    cr_assert_gt(a.stats.triangles_clipped, 10);
    cr_assert_gt(a.stats.triangles_culled, 10);
    cr_assert_gt(a.stats.triangles_skipped, 0);
    cr_assert_lt(calls, drawn / 2, "corners asked for %zu of %zu triangles", calls, drawn);
    gc_rs_target_free(&a);
    gc_rs_target_free(&b);
}

static int64_t fdiv16_floor(int64_t a)
{
    return a >= 0 ? a / 16 : -((-a + 15) / 16);
}

static int64_t fdiv16_ceil(int64_t a)
{
    return -fdiv16_floor(-a);
}

/* gc_rs_project_bounds: the same points as gc_rs_project, and its bounds are
 * the OR of the codes and the least and greatest x and y of points 0 .. n-1
 * (n not a multiple of four, the slack entries far outside: a bound taken
 * over a scratch lane fails). gc_rs_draw_indexed_bounded: meshes from far
 * smaller than a pixel to crossing the near plane, drawn with and without
 * the bounds, give the same frame, depths, write counts and counters; some
 * meshes take the counting-only path (every point inside the guard band,
 * no pixel centre in their box) with triangles of non-zero area (a count
 * of setups left out fails) and none of those asks for a corner. */
Test(raster, project_bounds_and_bounded_draw)
{
    enum { G = 5, NV = G * G, NT = 2 * (G - 1) * (G - 1), TRIALS = 400 };
    static float kx[NV + 3], ky[NV + 3], kz[NV + 3];
    static gc_rs_vertex wv[NV];
    static uint32_t tris[NT][4];
    static gc_rs_pvertex pv[NV + 3], pv_plain[NV + 3];
    uint32_t seed = 11;
    gc_rs_camera cam;
    const float eye[3] = {0.0f, 0.0f, -1.0f}, target[3] = {0, 0, 4}, up[3] = {0, 1, 0};
    cr_assert_eq(gc_rs_camera_look(&cam, eye, target, up, 1.0f, 0.05f, 96, 72), 0);
    gc_rs_target a, b;
    new_target(&a, 96, 72);
    new_target(&b, 96, 72);
    int nt = 0;
    for (int y = 0; y + 1 < G; y++)
        for (int x = 0; x + 1 < G; x++) {
            uint32_t v0 = (uint32_t)(y * G + x), v1 = v0 + 1, v2 = v0 + G, v3 = v2 + 1;
            const uint32_t t0[4] = {v0, v1, v3, 0}, t1[4] = {v0, v3, v2, 0};
            memcpy(tris[nt++], t0, sizeof t0);
            memcpy(tris[nt++], t1, sizeof t1);
        }
    int counted_only = 0, drawn_in_box = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
        /* sizes from a hundredth of a pixel to several times the frame */
        const float size = 1e-4f * (float)(1u << (lcg(&seed) % 16)) * (float)(1 + lcg(&seed) % 7);
        const float ox = (float)((int)(lcg(&seed) % 2001) - 1000) * 1e-3f * 2.0f,
                    oy = (float)((int)(lcg(&seed) % 2001) - 1000) * 1e-3f * 1.5f,
                    oz = (float)(lcg(&seed) % 1000) * 6e-3f - 0.5f;
        for (int i = 0; i < NV; i++) {
            kx[i] = ((float)(i % G) + (float)(lcg(&seed) % 100) * 4e-3f) * size;
            ky[i] = ((float)(i / G) + (float)(lcg(&seed) % 100) * 4e-3f) * size;
            kz[i] = (float)(lcg(&seed) % 100) * 1e-2f * size;
            memset(&wv[i], 0, sizeof wv[i]);
            for (int k = 0; k < 4; k++)
                wv[i].rgba[k] = (uint8_t)(k == 3 ? 0x80 : lcg(&seed) % 256);
        }
        /* the points past n (here the last row's slack) lie far outside */
        const size_t n = NV - (size_t)(trial % 4);
        for (size_t i = n; i < NV + 3; i++)
            kx[i] = ky[i] = 1e4f * (float)(i % 2 ? 1 : -1), kz[i] = 3.0f;
        const float m[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, ox, oy, oz};
        gc_rs_project(&cam, m, n, kx, ky, kz, pv_plain);
        gc_rs_pbounds pb;
        gc_rs_project_bounds(&cam, m, n, kx, ky, kz, pv, &pb);
        cr_assert_eq(memcmp(pv, pv_plain, n * sizeof *pv), 0);
        gc_rs_pbounds want = {0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN};
        for (size_t i = 0; i < n; i++) {
            want.code |= pv[i].code;
            want.x0 = pv[i].x < want.x0 ? pv[i].x : want.x0;
            want.x1 = pv[i].x > want.x1 ? pv[i].x : want.x1;
            want.y0 = pv[i].y < want.y0 ? pv[i].y : want.y0;
            want.y1 = pv[i].y > want.y1 ? pv[i].y : want.y1;
        }
        cr_assert_eq(pb.code, want.code, "trial %d", trial);
        if (want.code == 0) {
            cr_assert_eq(pb.x0, want.x0, "trial %d", trial);
            cr_assert_eq(pb.x1, want.x1, "trial %d", trial);
            cr_assert_eq(pb.y0, want.y0, "trial %d", trial);
            cr_assert_eq(pb.y1, want.y1, "trial %d", trial);
        }
        /* the triangles whose corners are all below n */
        size_t ntris = 0;
        static uint32_t use[NT][4];
        for (int j = 0; j < nt; j++)
            if (tris[j][0] < n && tris[j][1] < n && tris[j][2] < n)
                memcpy(use[ntris++], tris[j], sizeof use[0]);
        mesh_ctx ma = {wv, (const uint32_t(*)[4])use, NULL, 0};
        mesh_ctx mb = {wv, (const uint32_t(*)[4])use, NULL, 0};
        const gc_rs_stats before = b.stats;
        gc_rs_draw_indexed(&a, &cam, pv, 0, use[0], 4, ntris, mesh_corners, &ma);
        gc_rs_draw_indexed_bounded(&b, &cam, pv, &pb, 0, use[0], 4, ntris, mesh_corners, &mb);
        cr_assert_eq(memcmp(&a.stats, &b.stats, sizeof a.stats), 0, "trial %d", trial);
        cr_assert_eq(ma.calls, mb.calls, "trial %d", trial);
        /* no pixel centre 16 p + 8 of the frame within [x0, x1] x [y0, y1] */
        const int64_t px0 = fdiv16_ceil((int64_t)pb.x0 - 8), px1 = fdiv16_floor((int64_t)pb.x1 - 8),
                      py0 = fdiv16_ceil((int64_t)pb.y0 - 8), py1 = fdiv16_floor((int64_t)pb.y1 - 8);
        const int empty = (px0 > 95 || px1 < 0 || px0 > px1) || (py0 > 71 || py1 < 0 || py0 > py1);
        if (pb.code == 0 && empty && b.stats.setups > before.setups) {
            counted_only++;
            cr_assert_eq(mb.calls, 0);
        }
        drawn_in_box += pb.code == 0 && !empty && mb.calls > 0;
    }
    cr_assert_eq(memcmp(a.rgba, b.rgba, (size_t)96 * 72 * 4), 0);
    cr_assert_eq(memcmp(a.depth, b.depth, (size_t)96 * 72 * sizeof *a.depth), 0);
    cr_assert_eq(memcmp(a.writes, b.writes, (size_t)96 * 72 * sizeof *a.writes), 0);
    cr_log_info("counted only %d, drawn %d of %d; written %llu, clipped %llu", counted_only,
                drawn_in_box, TRIALS, (unsigned long long)b.stats.pixels_written,
                (unsigned long long)b.stats.triangles_clipped);
    cr_assert_gt(counted_only, 10);
    cr_assert_gt(drawn_in_box, 10);
    cr_assert_gt(b.stats.triangles_clipped, 0);
    gc_rs_target_free(&a);
    gc_rs_target_free(&b);
}

/* ---- indexed textures (gc_rs_texture.clut) ------------------------------- */

/* 8-bit indices sample the colour their CLUT entry holds, nearest and
 * bilinear, worked by hand as bilinear_filter does: a 2x1 texture whose
 * indices are {7, 3}, entry 7 black and entry 3 (200, 0, 0), so it reads as
 * bilinear_filter's (0 | 200); every other entry is a colour no expected
 * pixel has, so a texel read as RGBA bytes or through the wrong entry shows. */
Test(raster, indexed_texels_sample_their_clut)
{
    static const uint8_t idx[2] = {7, 3};
    static gc_rs_clut clut;
    for (uint32_t i = 0; i < 256; i++) {
        const uint8_t c[4] = {(uint8_t)(i == 3   ? 200
                                        : i == 7 ? 0
                                                 : 77),
                              0, (uint8_t)(i == 3 || i == 7 ? 0 : 99), 0x80};
        memcpy(&clut.rgba[i], c, 4);
    }
    gc_rs_clut_lanes(&clut);
    for (int filter = 0; filter < 2; filter++) {
        gc_rs_target t;
        new_target(&t, 16, 1);
        gc_rs_texture tex = mktex(2, 1, idx, GC_RS_WRAP_CLAMP, GC_RS_WRAP_CLAMP);
        tex.clut = &clut;
        tex.filter = filter;
        gc_rs_svertex a[3] = {sv(0, 0, 1, 0, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(256, 0, 1, 1, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(0, 64, 1, 0, 0.5f, 0x80, 0x80, 0x80, 0x80)};
        gc_rs_svertex b[3] = {sv(256, 0, 1, 1, 0, 0x80, 0x80, 0x80, 0x80),
                              sv(256, 64, 1, 1, 0.5f, 0x80, 0x80, 0x80, 0x80),
                              sv(0, 64, 1, 0, 0.5f, 0x80, 0x80, 0x80, 0x80)};
        gc_rs_draw_screen_triangle(&t, a, &tex);
        gc_rs_draw_screen_triangle(&t, b, &tex);
        for (uint32_t x = 0; x < 16; x++) {
            int want;
            if (filter == GC_RS_FILTER_NEAREST) {
                want = x < 8 ? 0 : 200; /* s = (x + 0.5) / 16: texel 0 below 1/2 */
            } else {
                int fu = (int)((x + 0.5) * 32) - 128;
                int x0 = fu >= 0 ? fu / 256 : -1, fx = fu - x0 * 256;
                int c0 = x0 <= 0 ? 0 : 200, c1 = x0 + 1 <= 0 ? 0 : 200;
                want = ((c0 * (256 - fx) + c1 * fx) * 256 + 32768) >> 16;
            }
            cr_assert_eq(px(&t, x, 0)[0], want, "filter %d x %u", filter, x);
            cr_assert_eq(px(&t, x, 0)[2], 0, "filter %d x %u: blue from another entry", filter, x);
        }
        gc_rs_target_free(&t);
    }
}

/* A perspective floor of textured triangles (bilinear and nearest, with a
 * three-level mip chain picked per pixel, REPEAT and CLAMP, entries with
 * alpha 0 and partial alpha, vertex colours that modulate) drawn twice:
 * with RGBA8 textures, and with the same texels as 8-bit indices into a
 * CLUT. Frames, depths, write counts and counters are identical; and a
 * CLUT with two entries swapped changes the indexed frame (it is read). */
Test(raster, indexed_texture_equals_rgba)
{
    enum { W0 = 16, NLEV = 3, PAL = 256 };
    uint32_t seed = 11;
    static gc_rs_clut clut, swapped;
    for (uint32_t i = 0; i < PAL; i++) {
        uint8_t c[4] = {(uint8_t)lcg(&seed), (uint8_t)lcg(&seed), (uint8_t)lcg(&seed),
                        (uint8_t)(i % 9 == 0   ? 0
                                  : i % 5 == 0 ? 0x30
                                               : 0x80)};
        memcpy(&clut.rgba[i], c, 4);
    }
    gc_rs_clut_lanes(&clut);
    static uint8_t idx[NLEV][W0 * W0], rgba[NLEV][W0 * W0 * 4];
    for (int l = 0; l < NLEV; l++) {
        uint32_t w = W0 >> l;
        for (uint32_t k = 0; k < w * w; k++) {
            idx[l][k] = (uint8_t)(lcg(&seed) >> 8);
            memcpy(rgba[l] + 4 * k, &clut.rgba[idx[l][k]], 4);
        }
    }
    swapped = clut;
    swapped.rgba[idx[0][5]] = clut.rgba[idx[0][6]];
    swapped.rgba[idx[0][6]] = clut.rgba[idx[0][5]];
    gc_rs_clut_lanes(&swapped);
    gc_rs_camera cam = test_camera();
    gc_rs_target a, b, c;
    new_target(&a, 64, 64);
    new_target(&b, 64, 64);
    new_target(&c, 64, 64);
    for (int variant = 0; variant < 4; variant++) {
        gc_rs_texture tr = mktex(W0, W0, rgba[0], variant & 1, GC_RS_WRAP_REPEAT);
        tr.filter = variant & 2 ? GC_RS_FILTER_LINEAR : GC_RS_FILTER_NEAREST;
        tr.mip_count = NLEV - 1;
        tr.lod_k = -0.5f * (float)variant;
        for (int l = 1; l < NLEV; l++) {
            tr.mip_width[l - 1] = tr.mip_height[l - 1] = W0 >> l;
            tr.mip_rgba[l - 1] = rgba[l];
        }
        gc_rs_texture ti = tr, tc = tr;
        ti.rgba = tc.rgba = idx[0];
        for (int l = 1; l < NLEV; l++)
            ti.mip_rgba[l - 1] = tc.mip_rgba[l - 1] = idx[l];
        ti.clut = &clut;
        tc.clut = &swapped;
        /* a strip of the floor per variant, s and t running over several repeats */
        const float x0 = -4.0f + 2.0f * (float)variant, x1 = x0 + 2.0f;
        gc_rs_vertex q[4];
        floor_vertex(&q[0], x0, 1.0f, -0.3f, 0.0f);
        floor_vertex(&q[1], x1, 1.0f, 2.7f, 0.0f);
        floor_vertex(&q[2], x1, 40.0f, 2.7f, 19.0f);
        floor_vertex(&q[3], x0, 40.0f, -0.3f, 19.0f);
        for (int k = 0; k < 4; k++)
            q[k].rgba[k % 3] = (uint8_t)(0x40 + 0x30 * k);
        const gc_rs_vertex t1[3] = {q[0], q[1], q[2]}, t2[3] = {q[0], q[2], q[3]};
        gc_rs_draw_triangle(&a, &cam, t1, &tr);
        gc_rs_draw_triangle(&a, &cam, t2, &tr);
        gc_rs_draw_triangle(&b, &cam, t1, &ti);
        gc_rs_draw_triangle(&b, &cam, t2, &ti);
        gc_rs_draw_triangle(&c, &cam, t1, &tc);
        gc_rs_draw_triangle(&c, &cam, t2, &tc);
    }
    cr_assert_eq(memcmp(a.rgba, b.rgba, (size_t)64 * 64 * 4), 0);
    cr_assert_eq(memcmp(a.depth, b.depth, (size_t)64 * 64 * sizeof *a.depth), 0);
    cr_assert_eq(memcmp(a.writes, b.writes, (size_t)64 * 64 * sizeof *a.writes), 0);
    cr_assert_eq(memcmp(&a.stats, &b.stats, sizeof a.stats), 0);
    cr_assert_gt(a.stats.pixels_written, 1000);
    cr_assert_gt(a.stats.texels_discarded, 10);
    cr_assert_neq(memcmp(b.rgba, c.rgba, (size_t)64 * 64 * 4), 0, "the CLUT is not read");
    gc_rs_target_free(&a);
    gc_rs_target_free(&b);
    gc_rs_target_free(&c);
}
