/* SPDX-License-Identifier: MIT */
/* The deterministic software rasteriser (see gc_raster.h for the rules and
 * why each one is what it is): camera, clipping, 12.4 fixed-point edge
 * functions with the top-left rule, perspective-correct texturing, PS2-style
 * modulation and blending. */
#include "gc_raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gc_bigmem.h"

/* SSE2 is baseline on x86-64: the linear filter and the modulation of a
 * pixel go through its integer lanes there (filter_modulate_sse2); other
 * targets use the portable form of the same arithmetic. */
#if defined(__SSE2__)
#define GC_RS_SSE2 1
#include <emmintrin.h>
#else
#define GC_RS_SSE2 0
#endif

/* The pixel loop is instantiated once per combination of its per-triangle
 * switches (texture, filter, mip chain, flat colour), so none of them is
 * tested per pixel; the helpers it calls are forced inline for the same
 * reason. Only speed depends on this: each instance does the same
 * arithmetic in the same order. */
#define INLINE static inline __attribute__((always_inline))

/* Four floats or ints evaluated lane by lane (GCC/clang vector extensions:
 * SSE on x86-64). Each lane's result is the IEEE single-precision result of
 * the same scalar operation, so a plane evaluated in a lane has the bits of
 * the scalar expression base + f1 * k1 + f2 * k2 (no contraction). */
typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

INLINE v4f splat(float x)
{
    return (v4f){x, x, x, x};
}

int gc_rs_wrap_from_clamp(uint32_t wm)
{
    /* CLAMP_1 WMS/WMT: 0 REPEAT, 1 CLAMP, 2 REGION_CLAMP, 3 REGION_REPEAT. */
    switch (wm & 3u) {
    case 1:
    case 2:
        return GC_RS_WRAP_CLAMP;
    default:
        return GC_RS_WRAP_REPEAT;
    }
}

int gc_rs_target_init(gc_rs_target *t, uint32_t width, uint32_t height, int count_writes)
{
    memset(t, 0, sizeof *t);
    if (width == 0 || height == 0 || width > GC_RS_MAX_DIM || height > GC_RS_MAX_DIM)
        return -1;
    size_t n = (size_t)width * height;
    t->rgba = gc_big_alloc_populated(n * 4);
    t->depth = gc_big_alloc_populated(n * sizeof *t->depth);
    t->writes = count_writes ? gc_big_calloc(n, sizeof *t->writes) : NULL;
    if (!t->rgba || !t->depth || (count_writes && !t->writes)) {
        gc_rs_target_free(t);
        return -1;
    }
    t->width = width;
    t->height = height;
    return 0;
}

void gc_rs_target_clear(gc_rs_target *t, const uint8_t rgba[4])
{
    size_t n = (size_t)t->width * t->height;
    /* sixteen pixels a copy of a 64-byte pattern (the colour's bytes
     * repeated: no byte order), the rest one by one; was two a store, half
     * of a clear's instructions */
    uint8_t pat[64];
    for (int k = 0; k < 16; k++)
        memcpy(pat + 4 * k, rgba, 4);
    size_t j = 0;
    for (; j + 16 <= n; j += 16)
        memcpy(t->rgba + 4 * j, pat, sizeof pat);
    for (; j < n; j++)
        memcpy(t->rgba + 4 * j, rgba, 4);
    size_t i;
    for (i = 0; i < n; i++)
        t->depth[i] = 0.0f;
    if (t->writes)
        memset(t->writes, 0, n * sizeof *t->writes);
    memset(&t->stats, 0, sizeof t->stats);
}

void gc_rs_target_free(gc_rs_target *t)
{
    gc_big_free(t->rgba);
    gc_big_free(t->depth);
    gc_big_free(t->writes);
    t->rgba = NULL;
    t->depth = NULL;
    t->writes = NULL;
}

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(float out[3], const float a[3], const float b[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Normalise in place; returns the length before normalisation. */
static float normalise3(float v[3])
{
    float len = sqrtf(dot3(v, v));
    if (len > 0.0f) {
        v[0] = v[0] / len;
        v[1] = v[1] / len;
        v[2] = v[2] / len;
    }
    return len;
}

int gc_rs_camera_look(gc_rs_camera *c, const float eye[3], const float target[3], const float up[3],
                      float focal, float near, uint32_t width, uint32_t height)
{
    memset(c, 0, sizeof *c);
    if (!(focal > 0.0f) || !(near > 0.0f) || width == 0 || height == 0)
        return -1;
    float fwd[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    if (!(normalise3(fwd) > 0.0f))
        return -1;
    float right[3];
    cross3(right, fwd, up);
    /* |right| is sin(angle between fwd and up) * |up|: refuse near-parallel. */
    float up_len = sqrtf(dot3(up, up));
    if (!(normalise3(right) > 1e-4f * up_len))
        return -1;
    float cam_up[3];
    cross3(cam_up, right, fwd);
    memcpy(c->eye, eye, sizeof c->eye);
    memcpy(c->forward, fwd, sizeof c->forward);
    memcpy(c->right, right, sizeof c->right);
    memcpy(c->up, cam_up, sizeof c->up);
    c->focal = focal;
    c->focal_px = focal * ((float)width * 0.5f);
    c->near = near;
    c->cx = (float)width * 0.5f;
    c->cy = (float)height * 0.5f;
    c->width = width;
    c->height = height;
    return 0;
}

INLINE int32_t to_fixed(float px)
{
    const float lim = (float)(1 << 20);
    if (!(px > -lim))
        px = -lim;
    if (px > lim)
        px = lim;
    float v = px * (float)GC_RS_SUBPIXEL;
    return (int32_t)(v + (v >= 0.0f ? 0.5f : -0.5f));
}

int32_t gc_rs_to_fixed(float px)
{
    return to_fixed(px);
}

/* ---- screen-space rasterisation ---------------------------------------- */

/* floor(a / 16): gcc and clang shift signed integers arithmetically (both
 * document it), which is the floor for negative a too. */
static int64_t floor_div16(int64_t a)
{
    return a >> 4;
}

INLINE int32_t floor_to_int(float u)
{
    if (!(u > -1e9f))
        u = -1e9f;
    if (u > 1e9f)
        u = 1e9f;
    int32_t i = (int32_t)u;
    if ((float)i > u)
        i--;
    return i;
}

INLINE uint32_t wrap_coord(int32_t i, uint32_t n, int mode)
{
    if (mode == GC_RS_WRAP_CLAMP) {
        if (i < 0)
            return 0;
        if ((uint32_t)i >= n)
            return n - 1;
        return (uint32_t)i;
    }
    if ((n & (n - 1)) == 0) /* power of two (every GS texture): same value, no divide */
        return (uint32_t)i & (n - 1);
    int32_t m = i % (int32_t)n;
    if (m < 0)
        m += (int32_t)n;
    return (uint32_t)m;
}

/* Always inlined into the pixel loop: one call per textured pixel cost more
 * than the level computation itself. */
INLINE uint32_t mip_level(float q, float lod_k, uint32_t mip_count)
{
    if (mip_count == 0 || !(q > 0.0f))
        return 0;
    uint32_t bits;
    memcpy(&bits, &q, sizeof bits);
    /* log2(q) ~ exponent + mantissa fraction; exact at powers of two. */
    float e = (float)((int32_t)((bits >> 23) & 0xFFu) - 127);
    float m = (float)(bits & 0x7FFFFFu) * (1.0f / 8388608.0f);
    float lod = lod_k - (e + m);
    if (!(lod > 0.0f))
        return 0;
    float lvl = lod + 0.5f;
    if (lvl >= (float)mip_count)
        return mip_count;
    return (uint32_t)lvl;
}

uint32_t gc_rs_mip_level(float q, float lod_k, uint32_t mip_count)
{
    return mip_level(q, lod_k, mip_count);
}

/* mip_level by comparisons. For q > 0 (every pixel that passes the depth
 * test: the depth buffer starts at 0 and only takes such q) the level does
 * not rise as q's bits rise: e + m does not fall (for one exponent m grows
 * with the bits and the float sum rounds monotonically; at the next
 * exponent e + 1 + 0 >= e + m rounded, as m < 1), and lod_k - x, + 0.5, the
 * comparisons and the truncation are monotonic too. So level(q) is the
 * number of l in 1..mip_count with bits(q) <= cut[l - 1], the largest bits
 * whose level is >= l (found by bisection over the positive floats with
 * mip_level itself), or 0 when none is. The comparison is made on
 * bits - 1, unsigned, so +0 (bits 0) wraps above every cut and gets level
 * 0 as mip_level gives it; negative and NaN bits lie above every cut too.
 * tests/test_raster.c compares the two around every cut and at random. */
INLINE void mip_cuts_compute(float lod_k, uint32_t mip_count, uint32_t cut[GC_RS_MIP_EXTRA])
{
    for (uint32_t l = 1; l <= GC_RS_MIP_EXTRA; l++) {
        cut[l - 1] = 0;
        if (l > mip_count)
            continue;
        uint32_t lo = 1, hi = 0x7F800000u; /* smallest positive float .. +inf */
        float q;
        memcpy(&q, &lo, sizeof q);
        if (mip_level(q, lod_k, mip_count) < l)
            continue; /* none reaches level l */
        /* mip_level(lo) >= l; find the last such bits in lo..hi */
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo + 1) / 2;
            memcpy(&q, &mid, sizeof q);
            if (mip_level(q, lod_k, mip_count) >= l)
                lo = mid;
            else
                hi = mid - 1;
        }
        cut[l - 1] = lo;
    }
}

/* The cuts of recently used (lod_k, mip_count) pairs, per thread (sweep
 * jobs render in parallel): a level's textures share a few K values, and
 * the bisection costs about 100 mip_level calls, far more than a triangle's
 * pixels would save. */
typedef struct mip_cut_entry {
    uint32_t k_bits, count; /* count 0: empty */
    uint32_t cut[GC_RS_MIP_EXTRA];
} mip_cut_entry;
#define MIP_CUT_SLOTS 256
static _Thread_local mip_cut_entry mip_cut_cache[MIP_CUT_SLOTS];

static __attribute__((noinline)) void mip_cuts_fill(mip_cut_entry *e, float lod_k, uint32_t k,
                                                    uint32_t mip_count)
{
    mip_cuts_compute(lod_k, mip_count, e->cut);
    e->k_bits = k;
    e->count = mip_count;
}

/* (the lookup inline in each pixel-loop setup, the bisection out of line:
 * a call per textured triangle cost more than the lookup) */
INLINE const uint32_t *mip_cuts(float lod_k, uint32_t mip_count)
{
    uint32_t k;
    memcpy(&k, &lod_k, sizeof k);
    mip_cut_entry *e = &mip_cut_cache[((k + mip_count) * 0x9E3779B1u) >> 24]; /* 256 slots */
    if (e->count != mip_count || e->k_bits != k)
        mip_cuts_fill(e, lod_k, k, mip_count);
    return e->cut;
}

INLINE uint32_t mip_level_cut(float q, const uint32_t cut[GC_RS_MIP_EXTRA])
{
    uint32_t bits;
    memcpy(&bits, &q, sizeof bits);
    const uint32_t b = bits - 1u;
    return (uint32_t)(b < cut[0]) + (uint32_t)(b < cut[1]) + (uint32_t)(b < cut[2]);
}

uint32_t gc_rs_mip_level_by_cuts(float q, float lod_k, uint32_t mip_count)
{
    if (mip_count > GC_RS_MIP_EXTRA)
        mip_count = GC_RS_MIP_EXTRA;
    return mip_level_cut(q, mip_cuts(lod_k, mip_count));
}

/* Bilinear sample at texel-space (u, v): see GC_RS_FILTER_LINEAR. */
/* Bytes b0..b3 of u into the four 16-bit lanes of a 64-bit word. */
INLINE uint64_t spread16(uint32_t u)
{
    uint64_t x = u;
    x = (x | x << 16) & 0x0000FFFF0000FFFFull;
    return (x | x << 8) & 0x00FF00FF00FF00FFull;
}

INLINE uint32_t load_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The four channels are filtered at once in the lanes of 64-bit integers
 * (the same integer sums as one channel at a time, none can carry into the
 * next lane): the horizontal pass t*(256-fx) + t'*fx <= 255*256 fits a
 * 16-bit lane, the vertical pass and its rounding term, <= 255*256*256 +
 * 32768 < 2^24, a 32-bit lane (channels 0 and 2 in one word, 1 and 3 in
 * the other). fx = fu - 256 floor(fu / 256) is fu's low byte. */
void gc_rs_clut_lanes(gc_rs_clut *c)
{
    for (int i = 0; i < 256; i++)
        c->lanes[i] = spread16(c->rgba[i]);
}

/* Texel k of a level: four RGBA8 bytes, or (indexed) the colour of its
 * 8-bit index; either way the bytes R, G, B, A in memory order. */
INLINE uint32_t texel_at(const uint8_t *texels, size_t k, const gc_rs_clut *clut, const int indexed)
{
    return indexed ? clut->rgba[texels[k]] : load_u32(texels + k * 4);
}

/* The same texel's bytes in 16-bit lanes (spread16), from the CLUT's table
 * when indexed. */
INLINE uint64_t texel_lanes(const uint8_t *texels, size_t k, const gc_rs_clut *clut,
                            const int indexed)
{
    return indexed ? clut->lanes[texels[k]] : spread16(load_u32(texels + k * 4));
}

/* The four texels of a bilinear sample at texel-space (u, v), in 16-bit
 * lanes (t[0] t00, t[1] t10, t[2] t01, t[3] t11), and the weights' fx, fy. */
/* floor_to_int(u * 256 - 128) of u and v, taken from lanes 1 and 2 of uv. */
INLINE void floor_uv(v4f uv, int32_t *fu, int32_t *fv, v4i *lanes)
{
#if GC_RS_SSE2
    /* the same operations lane by lane: max(x, -1e9) keeps x only when x >
     * -1e9 (so NaN gives -1e9) and min(x, 1e9) keeps it when x < 1e9, as
     * floor_to_int's two tests; truncation, and one less where the
     * truncated value converted back exceeds x */
    const __m128 x = (__m128)(uv * splat(256.0f) - splat(128.0f));
    const __m128 c = _mm_min_ps(_mm_max_ps(x, _mm_set1_ps(-1e9f)), _mm_set1_ps(1e9f));
    __m128i i = _mm_cvttps_epi32(c);
    i = _mm_add_epi32(i, _mm_castps_si128(_mm_cmpgt_ps(_mm_cvtepi32_ps(i), c)));
    *fu = _mm_cvtsi128_si32(_mm_shuffle_epi32(i, 1));
    *fv = _mm_cvtsi128_si32(_mm_shuffle_epi32(i, 2));
    *lanes = (v4i)i;
#else
    *fu = floor_to_int(uv[1] * 256.0f - 128.0f);
    *fv = floor_to_int(uv[2] * 256.0f - 128.0f);
    *lanes = (v4i){0, *fu, *fv, 0};
#endif
}

/* uv: lanes 1 and 2 the texel-space coordinates u and v; *fuv gets the
 * fixed-point coordinates fu, fv in its lanes 1 and 2 (the weights' source
 * for filter_weights_sse2). */
INLINE void bilinear_texels(uint64_t t[4], int32_t *pfx, int32_t *pfy, v4i *fuv,
                            const uint8_t *rgba, uint32_t w, uint32_t h, v4f uv, int wrap_s,
                            int wrap_t, const gc_rs_clut *clut, const int indexed, const int rep)
{
    int32_t fu, fv;
    floor_uv(uv, &fu, &fv, fuv);
    *pfx = fu & 255;
    *pfy = fv & 255;
    /* floor(fu / 256) by a shift of a non-negative value (|fu| <= 1e9 < 2^30) */
    int32_t x0 = (int32_t)((uint32_t)(fu + 0x40000000) >> 8) - 0x400000;
    int32_t y0 = (int32_t)((uint32_t)(fv + 0x40000000) >> 8) - 0x400000;
    uint32_t xa, xb, ya, yb;
    if (rep) { /* wrap_coord's REPEAT of a power of two, without testing for it */
        xa = (uint32_t)x0 & (w - 1);
        xb = (uint32_t)(x0 + 1) & (w - 1);
        ya = (uint32_t)y0 & (h - 1);
        yb = (uint32_t)(y0 + 1) & (h - 1);
    } else {
        xa = wrap_coord(x0, w, wrap_s);
        xb = wrap_coord(x0 + 1, w, wrap_s);
        ya = wrap_coord(y0, h, wrap_t);
        yb = wrap_coord(y0 + 1, h, wrap_t);
    }
    t[0] = texel_lanes(rgba, (size_t)ya * w + xa, clut, indexed);
    t[1] = texel_lanes(rgba, (size_t)ya * w + xb, clut, indexed);
    t[2] = texel_lanes(rgba, (size_t)yb * w + xa, clut, indexed);
    t[3] = texel_lanes(rgba, (size_t)yb * w + xb, clut, indexed);
}

/* The filter of GC_RS_FILTER_LINEAR on four texels in 16-bit lanes: the
 * portable form, one 64-bit word holding the four channels. */
INLINE void filter_scalar(uint8_t out[4], const uint64_t t[4], int32_t fx, int32_t fy)
{
    const uint64_t t00 = t[0], t10 = t[1], t01 = t[2], t11 = t[3];
    const uint64_t gx = (uint64_t)(256 - fx), hx = (uint64_t)fx;
    const uint64_t gy = (uint64_t)(256 - fy), hy = (uint64_t)fy;
    uint64_t top = t00 * gx + t10 * hx;
    uint64_t bot = t01 * gx + t11 * hx;
    const uint64_t lanes = 0x0000FFFF0000FFFFull, half = 0x0000800000008000ull;
    uint64_t even = (top & lanes) * gy + (bot & lanes) * hy + half;
    uint64_t odd = ((top >> 16) & lanes) * gy + ((bot >> 16) & lanes) * hy + half;
    out[0] = (uint8_t)(even >> 16);
    out[1] = (uint8_t)(odd >> 16);
    out[2] = (uint8_t)(even >> 48);
    out[3] = (uint8_t)(odd >> 48);
}

#if GC_RS_SSE2
/* filter_scalar and the modulation (tex * col) >> 7 clamped to 255 for
 * one pixel in SSE2 lanes (baseline on x86-64), integer arithmetic with the
 * same exact values, so the same bytes (tests/test_raster.c compares the two
 * on random and extreme inputs). t00 and t01 share a register, t10 and t11
 * another: the horizontal pass gives top and bottom at once in 16-bit
 * lanes (each <= 255 * 256, as filter_scalar's bound); the vertical pass
 * is the 32-bit products from the low and high halves of 16 x 16 bit
 * multiplies; the modulation's product <= 255 * 255 fits a 16-bit lane
 * unsigned, and after the shift (<= 508) the signed-to-unsigned byte pack
 * saturates at 255, which is the clamp. col: the colour, 0..255 in 32-bit
 * lanes. Returns 0 (and leaves *out) when the filtered alpha is 0; else
 * *out holds R, G, B, A in memory order (x86 is little-endian). */
/* The weights from the fixed-point coordinates fu, fv in lanes 1 and 2 of
 * fuv: fx = fu & 255, fy = fv & 255 (the low bytes, as bilinear_texels
 * takes them) and 256 - fx, 256 - fy, packed into 16-bit lanes 1 (256 -
 * fx), 2 (256 - fy), 5 (fx) and 6 (fy), all <= 256. Five vector
 * operations here and six shuffles in filter_modulate_sse2, where
 * broadcasting four scalars took ~20 instructions a pixel. */
INLINE __m128i filter_weights_sse2(__m128i fuv)
{
    const __m128i f = _mm_and_si128(fuv, _mm_set1_epi32(255));
    return _mm_packs_epi32(_mm_sub_epi32(_mm_set1_epi32(256), f), f);
}

INLINE int filter_modulate_sse2(uint32_t *out, const uint64_t t[4], __m128i wts, __m128i col)
{
    const __m128i x = _mm_set_epi64x((long long)t[2], (long long)t[0]);
    const __m128i y = _mm_set_epi64x((long long)t[3], (long long)t[1]);
    /* 256 - fx and fx in every lane; 256 - fy in the low four, fy in the high four */
    const __m128i gx = _mm_shuffle_epi32(_mm_shufflelo_epi16(wts, 0x55), 0x00),
                  hx = _mm_shuffle_epi32(_mm_shufflehi_epi16(wts, 0x55), 0xAA);
    const __m128i tb = _mm_add_epi16(_mm_mullo_epi16(x, gx), _mm_mullo_epi16(y, hx));
    const __m128i vy = _mm_shufflehi_epi16(_mm_shufflelo_epi16(wts, 0xAA), 0xAA);
    const __m128i lo = _mm_mullo_epi16(tb, vy), hi = _mm_mulhi_epu16(tb, vy);
    const __m128i top = _mm_unpacklo_epi16(lo, hi), bot = _mm_unpackhi_epi16(lo, hi);
    const __m128i f =
        _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(top, bot), _mm_set1_epi32(32768)), 16);
    if (_mm_extract_epi16(f, 6) == 0)
        return 0;
    const __m128i m =
        _mm_srli_epi16(_mm_mullo_epi16(_mm_packs_epi32(f, f), _mm_packs_epi32(col, col)), 7);
    *out = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(m, m));
    return 1;
}
#endif

/* The textured pixel of the linear filter, both ways, for the tests. */
int gc_rs_filter_modulate(int simd, const uint32_t texel[4], uint32_t fx, uint32_t fy,
                          const int colour[4], uint8_t out[4])
{
    const uint64_t t[4] = {spread16(texel[0]), spread16(texel[1]), spread16(texel[2]),
                           spread16(texel[3])};
    const int32_t x = (int32_t)(fx & 255u), y = (int32_t)(fy & 255u);
    int c[4];
    for (int k = 0; k < 4; k++)
        c[k] = colour[k] < 0 ? 0 : colour[k] > 255 ? 255 : colour[k];
#if GC_RS_SSE2
    if (simd) {
        uint32_t px;
        if (!filter_modulate_sse2(&px, t, filter_weights_sse2(_mm_set_epi32(0, y, x, 0)),
                                  _mm_set_epi32(c[3], c[2], c[1], c[0])))
            return 0;
        memcpy(out, &px, 4);
        return 1;
    }
#else
    (void)simd;
#endif
    uint8_t tx[4];
    filter_scalar(tx, t, x, y);
    if (tx[3] == 0)
        return 0;
    for (int k = 0; k < 4; k++) {
        const int v = (tx[k] * c[k]) >> 7;
        out[k] = (uint8_t)(v > 255 ? 255 : v);
    }
    return 1;
}

/* Cd + ((Cs - Cd) * As >> 7), arithmetic (flooring) shift, clamped: the GS's
 * default ALPHA with COLCLAMP. */
INLINE uint8_t blend(int cs, int cd, int as)
{
    int x = (cs - cd) * as;
    int d = x >= 0 ? x / 128 : -((-x + 127) / 128);
    int v = cd + d;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Top-left rule for an edge p->q of a triangle whose inside has E > 0 (see
 * gc_rs_draw_screen_triangle): a left edge runs upwards on screen (dy < 0),
 * a top edge is horizontal with the inside below it (dy == 0, dx > 0). */
static int is_top_left(int64_t dx, int64_t dy)
{
    return dy < 0 || (dy == 0 && dx > 0);
}

/* One screen triangle after setup: what the pixel loop reads. */
typedef struct tri_setup {
    v4f qst[3];                 /* planes of 1/w, s/w, t/w (and 0): base, k1, k2 */
    v4f col[3];                 /* planes of R, G, B, A: base, k1, k2 */
    int64_t px0, px1, py0, py1; /* pixel bounding box, inside the target */
    int64_t stepx[3], stepy[3], row[3], bias[3];
    int flat[4]; /* the colour when it is the same at every pixel */
} tri_setup;

/* An interpolated colour to an integer, four lanes: 0 unless c > 0, 255
 * when c > 255, else (int)(c + 0.5f) (round half up); the clamp comes first
 * so every conversion is in range. */
INLINE v4i colour_to_int4(v4f c)
{
    const v4f zero = {0.0f, 0.0f, 0.0f, 0.0f}, top = {255.0f, 255.0f, 255.0f, 255.0f};
    const v4f half = {0.5f, 0.5f, 0.5f, 0.5f};
    v4i pos = c > zero, big = c > top;
    v4i bits = ((v4i)c & ~big) | ((v4i)top & big);
    v4f clamped = (v4f)(bits & pos);
    return __builtin_convertvector(clamped + half, v4i);
}

/* to_fixed on four lanes for a point inside the guard band (outcode 0): the
 * same scale, sign-dependent half and truncation; the clamp
 * cannot act (|f x / z| <= hx, a few thousand pixels, far inside 2^20, and z
 * >= near > 0, so no NaN), and adding 0.5 with the sign of v rounds as
 * to_fixed does (v = -0 gives -0.5 instead of +0.5: both truncate to 0). */
INLINE v4i to_fixed4_inside(v4f px)
{
    const v4f v = px * splat((float)GC_RS_SUBPIXEL);
    const v4i sign = (v4i)v & (v4i){INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};
    return __builtin_convertvector(v + (v4f)((v4i)splat(0.5f) | sign), v4i);
}

/* -1e30 < x < 1e30 (false for NaN) in every lane of x[0 .. n-1]: |x| below
 * 1e30 compared on the bits (the order of non-negative floats is the order
 * of their bit patterns; NaN and infinity have every exponent bit set,
 * above 1e30). */
INLINE int in_range_lanes(const v4f *x, int n)
{
    const v4i abs = {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF};
    const v4i lim = {0x7149F2CA, 0x7149F2CA, 0x7149F2CA, 0x7149F2CA}; /* the bits of 1e30f */
    v4i bad = {0, 0, 0, 0};
    for (int i = 0; i < n; i++)
        bad |= ((v4i)x[i] & abs) >= lim;
    return !(bad[0] | bad[1] | bad[2] | bad[3]);
}

/* The first and last pixel offset k in 0..n-1 of a row where E + k * step
 * >= 0 for one edge, E = row value + top-left bias; exact integer bounds, so
 * the span holds exactly the pixels the per-pixel test would pass. */
INLINE void edge_span(int64_t e, int64_t step, int64_t *lo, int64_t *hi)
{
    if (step > 0) {
        if (e < 0) {
            int64_t k = (-e + step - 1) / step;
            if (k > *lo)
                *lo = k;
        }
    } else if (step < 0) {
        if (e < 0) {
            *hi = -1;
        } else {
            int64_t k = e / -step;
            if (k < *hi)
                *hi = k;
        }
    } else if (e < 0) {
        *hi = -1;
    }
}

/* Bounding boxes at least this wide find each row's covered span by
 * division (three per row) instead of testing every pixel of the box. */
#define SPAN_MIN_WIDTH 8

INLINE void pixel_loop(gc_rs_target *t, const tri_setup *su, const gc_rs_texture *tex,
                       const int textured, const int indexed, const int linear, const int mip,
                       const int flat, const int rep)
{
    const uint32_t W = t->width;
    uint8_t *const rgba = t->rgba;
    float *const depth = t->depth;
    uint16_t *const writes = t->writes;
    uint64_t n_covered = 0, n_depth_fail = 0, n_discarded = 0;
    /* Everything read per pixel is copied to locals first: the framebuffer
     * is written through a byte pointer, which may alias any object the
     * compiler cannot see is private, so it would reload those per pixel. */
    const v4f q0 = su->qst[0], q1 = su->qst[1], q2 = su->qst[2];
    const v4f c0 = su->col[0], c1 = su->col[1], c2 = su->col[2];
    const v4i fci = {su->flat[0], su->flat[1], su->flat[2], su->flat[3]};
    /* level l of the chain: 0 the base, 1.. the mip levels */
    uint32_t lv_w[GC_RS_MIP_EXTRA + 1] = {0}, lv_h[GC_RS_MIP_EXTRA + 1] = {0};
    float lv_fw[GC_RS_MIP_EXTRA + 1] = {0}, lv_fh[GC_RS_MIP_EXTRA + 1] = {0};
    const uint8_t *lv_rgba[GC_RS_MIP_EXTRA + 1] = {NULL};
    if (textured) {
        lv_w[0] = tex->width;
        lv_h[0] = tex->height;
        lv_rgba[0] = tex->rgba;
        for (uint32_t l = 1; mip && l <= tex->mip_count && l <= GC_RS_MIP_EXTRA; l++) {
            lv_w[l] = tex->mip_width[l - 1];
            lv_h[l] = tex->mip_height[l - 1];
            lv_rgba[l] = tex->mip_rgba[l - 1];
        }
        for (int l = 0; l <= GC_RS_MIP_EXTRA; l++) {
            lv_fw[l] = (float)lv_w[l];
            lv_fh[l] = (float)lv_h[l];
        }
    }
    /* (mip_count is at most GC_RS_MIP_EXTRA by contract; the bound keeps a
     * bad caller inside the level tables) */
    const uint32_t mip_count =
        textured ? (tex->mip_count < GC_RS_MIP_EXTRA ? tex->mip_count : GC_RS_MIP_EXTRA) : 0;
    const float lod_k = textured ? tex->lod_k : 0.0f;
    /* the level by three compares (mip_level_cut); in locals, as above */
    uint32_t cut[GC_RS_MIP_EXTRA] = {0, 0, 0};
    if (textured && mip)
        memcpy(cut, mip_cuts(lod_k, mip_count), sizeof cut);
    const uint32_t cut0 = cut[0], cut1 = cut[1], cut2 = cut[2];
    const gc_rs_clut *const clut = indexed ? tex->clut : NULL;
    const int wrap_s = textured ? tex->wrap_s : 0, wrap_t = textured ? tex->wrap_t : 0;
    const int64_t width = su->px1 - su->px0 + 1;
    const int spans = width >= SPAN_MIN_WIDTH;
    int64_t row0 = su->row[0], row1 = su->row[1], row2 = su->row[2];
    const int64_t sx0 = su->stepx[0], sx1 = su->stepx[1], sx2 = su->stepx[2];
    const int64_t b0 = su->bias[0], b1 = su->bias[1], b2 = su->bias[2];
    for (int64_t py = su->py0; py <= su->py1;
         py++, row0 += su->stepy[0], row1 += su->stepy[1], row2 += su->stepy[2]) {
        /* The row's covered pixels are one run lo..hi: each edge value is
         * linear in k, so each edge passes an interval of k and all three
         * their intersection. A narrow box finds the run by testing pixels
         * from each end (the per-pixel test, without divisions), a wide one
         * by edge_span; either way the loop below visits exactly the
         * covered pixels, in order, with no coverage test or edge 0 of its
         * own, and counts them once a row. */
        int64_t lo = 0, hi = width - 1;
        if (spans) {
            edge_span(row0 + b0, sx0, &lo, &hi);
            edge_span(row1 + b1, sx1, &lo, &hi);
            edge_span(row2 + b2, sx2, &lo, &hi);
        } else {
            while (lo <= hi &&
                   ((row0 + b0 + lo * sx0) | (row1 + b1 + lo * sx1) | (row2 + b2 + lo * sx2)) < 0)
                lo++;
            while (hi > lo &&
                   ((row0 + b0 + hi * sx0) | (row1 + b1 + hi * sx1) | (row2 + b2 + hi * sx2)) < 0)
                hi--;
        }
        if (lo > hi)
            continue;
        n_covered += (uint64_t)(hi - lo + 1);
        int64_t w1 = row1 + lo * sx1, w2 = row2 + lo * sx2;
        size_t idx = (size_t)py * W + (size_t)(su->px0 + lo);
        for (int64_t k = lo; k <= hi; k++, idx++, w1 += sx1, w2 += sx2) {
            const float f1 = (float)w1, f2 = (float)w2;
            const v4f f1v = {f1, f1, f1, f1}, f2v = {f2, f2, f2, f2};
            const v4f qst = q0 + f1v * q1 + f2v * q2;
            const float q = qst[0];
            if (!(q > depth[idx])) {
                n_depth_fail++;
                continue;
            }
            const v4i ci = flat ? fci : colour_to_int4(c0 + f1v * c1 + f2v * c2);
            uint8_t *dst = rgba + idx * 4;
            int r, g, bl, al;
            if (textured) {
                const v4f st = qst / (v4f){q, q, q, q};
                const float s = st[1], tt = st[2];
                const uint32_t l =
                    mip ? mip_level_cut(q, (const uint32_t[GC_RS_MIP_EXTRA]){cut0, cut1, cut2}) : 0;
                const uint32_t lw = lv_w[l], lh = lv_h[l];
                const uint8_t *lrgba = lv_rgba[l];
                const float fw = lv_fw[l], fh = lv_fh[l];
                uint8_t tx[4];
                if (linear) {
                    uint64_t t4[4];
                    int32_t fx, fy;
                    v4i fuv;
                    bilinear_texels(t4, &fx, &fy, &fuv, lrgba, lw, lh,
                                    st * (v4f){0.0f, fw, fh, 0.0f}, wrap_s, wrap_t, clut, indexed,
                                    rep);
#if GC_RS_SSE2
                    uint32_t px;
                    if (!filter_modulate_sse2(&px, t4, filter_weights_sse2((__m128i)fuv),
                                              (__m128i)ci)) {
                        n_discarded++;
                        continue;
                    }
                    if (px >> 24 == 0x80) {
                        /* the common case, an opaque pixel: one store of
                         * its four bytes, alpha 0xFF (little-endian) */
                        px = (px & 0x00FFFFFFu) | 0xFF000000u;
                        memcpy(dst, &px, 4);
                        goto written;
                    }
                    r = (int)(px & 0xFF);
                    g = (int)((px >> 8) & 0xFF);
                    bl = (int)((px >> 16) & 0xFF);
                    al = (int)(px >> 24);
                    goto blend_it;
#else
                    filter_scalar(tx, t4, fx, fy);
#endif
                } else {
                    const int32_t fs = floor_to_int(s * fw), ft = floor_to_int(tt * fh);
                    const uint32_t ix = rep ? (uint32_t)fs & (lw - 1) : wrap_coord(fs, lw, wrap_s);
                    const uint32_t iy = rep ? (uint32_t)ft & (lh - 1) : wrap_coord(ft, lh, wrap_t);
                    const uint32_t c = texel_at(lrgba, (size_t)iy * lw + ix, clut, indexed);
                    memcpy(tx, &c, sizeof tx);
                }
                if (tx[3] == 0) {
                    n_discarded++;
                    continue;
                }
                r = (tx[0] * ci[0]) >> 7;
                g = (tx[1] * ci[1]) >> 7;
                bl = (tx[2] * ci[2]) >> 7;
                al = (tx[3] * ci[3]) >> 7;
                if (r > 255)
                    r = 255;
                if (g > 255)
                    g = 255;
                if (bl > 255)
                    bl = 255;
                if (al > 255)
                    al = 255;
            } else {
                r = ci[0];
                g = ci[1];
                bl = ci[2];
                al = ci[3];
            }
#if GC_RS_SSE2
        blend_it:
#endif
            if (al == 0x80) {
                dst[0] = (uint8_t)r;
                dst[1] = (uint8_t)g;
                dst[2] = (uint8_t)bl;
            } else {
                dst[0] = blend(r, dst[0], al);
                dst[1] = blend(g, dst[1], al);
                dst[2] = blend(bl, dst[2], al);
            }
            dst[3] = 0xFF;
#if GC_RS_SSE2
        written:
#endif
            depth[idx] = q;
            if (writes && writes[idx] != UINT16_MAX)
                writes[idx]++;
        }
    }
    t->stats.pixels_covered += n_covered;
    t->stats.pixels_depth_fail += n_depth_fail;
    t->stats.texels_discarded += n_discarded;
    /* a covered pixel fails the depth test, is discarded or is written:
     * counted here rather than once a pixel */
    t->stats.pixels_written += n_covered - n_depth_fail - n_discarded;
}

/* The first half of a screen triangle's setup, from the snapped positions
 * alone: the winding (b and c swapped when clockwise), the area and the
 * pixel box. 0 when no pixel centre can be covered: the caller need not
 * compute the other attributes of the vertices then (most object triangles
 * are smaller than a pixel). */
INLINE int tri_bounds(gc_rs_target *t, const gc_rs_svertex *a, const gc_rs_svertex **pb,
                      const gc_rs_svertex **pc, tri_setup *su, int64_t *parea)
{
    const gc_rs_svertex *b = *pb, *c = *pc;
    int64_t area = (int64_t)(b->x - a->x) * (c->y - a->y) - (int64_t)(b->y - a->y) * (c->x - a->x);
    if (area == 0)
        return 0;
    if (area < 0) {
        const gc_rs_svertex *tmp = b;
        b = c;
        c = tmp;
        area = -area;
        *pb = b;
        *pc = c;
    }
    *parea = area;
    t->stats.setups++;

    int64_t minx = a->x, maxx = a->x, miny = a->y, maxy = a->y;
    if (b->x < minx)
        minx = b->x;
    if (c->x < minx)
        minx = c->x;
    if (b->x > maxx)
        maxx = b->x;
    if (c->x > maxx)
        maxx = c->x;
    if (b->y < miny)
        miny = b->y;
    if (c->y < miny)
        miny = c->y;
    if (b->y > maxy)
        maxy = b->y;
    if (c->y > maxy)
        maxy = c->y;
    /* Pixel px samples at 16*px + 8: the first px with 16px+8 >= min. */
    su->px0 = -floor_div16(-(minx - 8));
    su->px1 = floor_div16(maxx - 8);
    su->py0 = -floor_div16(-(miny - 8));
    su->py1 = floor_div16(maxy - 8);
    if (su->px0 < 0)
        su->px0 = 0;
    if (su->py0 < 0)
        su->py0 = 0;
    if (su->px1 > (int64_t)t->width - 1)
        su->px1 = (int64_t)t->width - 1;
    if (su->py1 > (int64_t)t->height - 1)
        su->py1 = (int64_t)t->height - 1;
    return su->px0 <= su->px1 && su->py0 <= su->py1;
}

/* The rest of the setup (edges, attribute planes) and the pixels, for a
 * triangle tri_bounds passed (a, b, c in its winding). */
/* The edge functions of a triangle tri_bounds passed, at its box's first
 * pixel centre, and their steps. */
INLINE void tri_edges(tri_setup *su, const gc_rs_svertex *a, const gc_rs_svertex *b,
                      const gc_rs_svertex *c)
{
    /* Edge p->q: E(P) = (q.x-p.x)*(P.y-p.y) - (q.y-p.y)*(P.x-p.x), > 0 inside.
     * e0 = b->c weighs a, e1 = c->a weighs b, e2 = a->b weighs c. */
    const gc_rs_svertex *ep[3] = {b, c, a}, *eq[3] = {c, a, b};
    int64_t sx0 = 16 * su->px0 + 8, sy0 = 16 * su->py0 + 8;
    for (int e = 0; e < 3; e++) {
        int64_t dx = (int64_t)eq[e]->x - ep[e]->x, dy = (int64_t)eq[e]->y - ep[e]->y;
        su->stepx[e] = -dy * 16;
        su->stepy[e] = dx * 16;
        su->row[e] = dx * (sy0 - ep[e]->y) - dy * (sx0 - ep[e]->x);
        su->bias[e] = is_top_left(dx, dy) ? 0 : -1;
    }
}

/* Whether some covered pixel of a triangle tri_bounds passed lies in front
 * of what the frame holds (a, b, c in its winding, only x, y and q read).
 * Each covered pixel's depth is the pixel loop's, lane 0 of q0 + f1 q1 + f2
 * q2 with the planes' lane-0 expressions, so this is the loop's own depth
 * test. When none is in front the loop would only count the covered pixels
 * as failing it: that is done here and 0 returned, so the caller need not
 * compute the corners' colours (lighting them is what costs). */
static int tri_depth_probe(gc_rs_target *t, const tri_setup *su, const gc_rs_svertex *a,
                           const gc_rs_svertex *b, const gc_rs_svertex *c, int64_t area)
{
    /* tri_edges' integers in locals (tri_fill makes its own), the top-left
     * bias carried in the running values and taken off again for a covered
     * pixel's weights: through the tri_setup in memory the setup cost ~200
     * instructions a probe, and most probes find no covered pixel. */
    const int64_t sx = 16 * su->px0 + 8, sy = 16 * su->py0 + 8;
    const int64_t dx0 = (int64_t)c->x - b->x, dy0 = (int64_t)c->y - b->y;
    const int64_t dx1 = (int64_t)a->x - c->x, dy1 = (int64_t)a->y - c->y;
    const int64_t dx2 = (int64_t)b->x - a->x, dy2 = (int64_t)b->y - a->y;
    const int64_t b0 = is_top_left(dx0, dy0) ? 0 : -1, b1 = is_top_left(dx1, dy1) ? 0 : -1,
                  b2 = is_top_left(dx2, dy2) ? 0 : -1;
    int64_t row0 = dx0 * (sy - b->y) - dy0 * (sx - b->x) + b0;
    int64_t row1 = dx1 * (sy - c->y) - dy1 * (sx - c->x) + b1;
    int64_t row2 = dx2 * (sy - a->y) - dy2 * (sx - a->x) + b2;
    const int64_t stx0 = -dy0 * 16, stx1 = -dy1 * 16, stx2 = -dy2 * 16;
    const int64_t sty0 = dx0 * 16, sty1 = dx1 * 16, sty2 = dx2 * 16;
    /* the depth plane only once a pixel is covered (the same expressions) */
    int have_q = 0;
    float q0 = 0.0f, q1 = 0.0f, q2 = 0.0f;
    const uint32_t W = t->width;
    const float *const depth = t->depth;
    uint64_t n = 0;
    const int64_t width = su->px1 - su->px0 + 1;
    for (int64_t py = su->py0; py <= su->py1; py++, row0 += sty0, row1 += sty1, row2 += sty2) {
        int64_t e0 = row0, e1 = row1, e2 = row2;
        size_t idx = (size_t)py * W + (size_t)su->px0;
        for (int64_t k = 0; k < width; k++, idx++, e0 += stx0, e1 += stx1, e2 += stx2) {
            if ((e0 | e1 | e2) < 0)
                continue;
            n++;
            if (!have_q) {
                const float inv = 1.0f / (float)area;
                q0 = a->q;
                q1 = (b->q - a->q) * inv;
                q2 = (c->q - a->q) * inv;
                have_q = 1;
            }
            const int64_t w1 = e1 - b1, w2 = e2 - b2;
            const float q = q0 + (float)w1 * q1 + (float)w2 * q2;
            if (q > depth[idx])
                return 1;
        }
    }
    t->stats.pixels_covered += n;
    t->stats.pixels_depth_fail += n;
    return 0;
}

static void tri_fill(gc_rs_target *t, tri_setup *su, const gc_rs_svertex *a, const gc_rs_svertex *b,
                     const gc_rs_svertex *c, int64_t area, const gc_rs_texture *tex)
{
    tri_edges(su, a, b, c);

    /* Attribute planes: A(P) = A_a + w1 * (A_b - A_a)/area + w2 * (A_c - A_a)/area. */
    const float inv = 1.0f / (float)area;
    const v4f iv = splat(inv), zero = splat(0.0f);
    const v4f qa = {a->q, a->sq, a->tq, 0.0f}, qb = {b->q, b->sq, b->tq, 0.0f},
              qc = {c->q, c->sq, c->tq, 0.0f};
    const v4f ca = {a->rgba[0], a->rgba[1], a->rgba[2], a->rgba[3]},
              cb = {b->rgba[0], b->rgba[1], b->rgba[2], b->rgba[3]},
              cc = {c->rgba[0], c->rgba[1], c->rgba[2], c->rgba[3]};
    su->qst[0] = qa;
    su->qst[1] = (qb - qa) * iv;
    su->qst[2] = (qc - qa) * iv;
    su->col[0] = ca;
    su->col[1] = (cb - ca) * iv;
    su->col[2] = (cc - ca) * iv;
    /* Flat colour: with both gradients zero, base + f1 * k1 + f2 * k2 is base
     * at every covered pixel (f1, f2 >= 0 there, so the products are zeros
     * and adding them leaves base, or turns -0 into +0, both colour 0). */
    const v4i moving = (su->col[1] != zero) | (su->col[2] != zero);
    const int flat = !(moving[0] | moving[1] | moving[2] | moving[3]);
    const v4i fc = colour_to_int4(ca);
    for (int k = 0; k < 4; k++)
        su->flat[k] = fc[k];
    if (!tex) {
        if (flat)
            pixel_loop(t, su, NULL, 0, 0, 0, 0, 1, 0);
        else
            pixel_loop(t, su, NULL, 0, 0, 0, 0, 0, 0);
        return;
    }
    const int indexed = tex->clut != NULL;
    const int linear = tex->filter == GC_RS_FILTER_LINEAR, mip = tex->mip_count != 0;
    /* Both axes REPEAT and every level a power of two on both sides (as
     * every GS texture is): wrapping is a mask, with no test of the mode
     * or the size per texel. */
    /* (levels 0 .. min(mip_count, GC_RS_MIP_EXTRA), a level's sides ORed
     * in under a mask rather than tested one by one: the same answer) */
    const uint32_t nl = tex->mip_count < GC_RS_MIP_EXTRA ? tex->mip_count : GC_RS_MIP_EXTRA;
    uint32_t npow = (tex->width & (tex->width - 1)) | (tex->height & (tex->height - 1));
    for (uint32_t l = 0; l < GC_RS_MIP_EXTRA; l++) {
        const uint32_t w = tex->mip_width[l], h = tex->mip_height[l];
        npow |= ((w & (w - 1)) | (h & (h - 1))) & (l < nl ? ~0u : 0u);
    }
    const int rep =
        tex->wrap_s == GC_RS_WRAP_REPEAT && tex->wrap_t == GC_RS_WRAP_REPEAT && npow == 0;
    /* one instance of the loop per combination: case bits rep, indexed, linear, mip, flat */
#define PIXEL_CASE(n)                                                                              \
    case n:                                                                                        \
        pixel_loop(t, su, tex, 1, (n >> 3) & 1, (n >> 2) & 1, (n >> 1) & 1, n & 1, (n >> 4) & 1);  \
        break
    switch ((rep << 4) | (indexed << 3) | (linear << 2) | (mip << 1) | flat) {
        PIXEL_CASE(0);
        PIXEL_CASE(1);
        PIXEL_CASE(2);
        PIXEL_CASE(3);
        PIXEL_CASE(4);
        PIXEL_CASE(5);
        PIXEL_CASE(6);
        PIXEL_CASE(7);
        PIXEL_CASE(8);
        PIXEL_CASE(9);
        PIXEL_CASE(10);
        PIXEL_CASE(11);
        PIXEL_CASE(12);
        PIXEL_CASE(13);
        PIXEL_CASE(14);
        PIXEL_CASE(15);
        PIXEL_CASE(16);
        PIXEL_CASE(17);
        PIXEL_CASE(18);
        PIXEL_CASE(19);
        PIXEL_CASE(20);
        PIXEL_CASE(21);
        PIXEL_CASE(22);
        PIXEL_CASE(23);
        PIXEL_CASE(24);
        PIXEL_CASE(25);
        PIXEL_CASE(26);
        PIXEL_CASE(27);
        PIXEL_CASE(28);
        PIXEL_CASE(29);
        PIXEL_CASE(30);
    default:
        pixel_loop(t, su, tex, 1, 1, 1, 1, 1, 1);
        break;
    }
#undef PIXEL_CASE
}

static void raster_triangle(gc_rs_target *t, const gc_rs_svertex *a, const gc_rs_svertex *b,
                            const gc_rs_svertex *c, const gc_rs_texture *tex)
{
    tri_setup su;
    int64_t area;
    if (tri_bounds(t, a, &b, &c, &su, &area))
        tri_fill(t, &su, a, b, c, area, tex);
}

void gc_rs_draw_screen_triangle(gc_rs_target *t, const gc_rs_svertex v[3], const gc_rs_texture *tex)
{
    raster_triangle(t, &v[0], &v[1], &v[2], tex);
}

/* ---- camera space: clipping and projection ------------------------------ */

typedef struct cvert {
    float p[3]; /* camera space: x right, y up, z forward */
    float s, t;
    float c[4];
} cvert;

#define CLIP_PLANES 5
#define CLIP_MAX    16

/* Signed distance-like value of v against clip plane `pl`; >= 0 is inside.
 * Plane 0 is the near plane; 1..4 keep the projected point within hx/hy
 * pixels of the principal point (sx - cx = f*x/z, so |f*x| <= hx*z). */
static float plane_dist(const cvert *v, int pl, float f, float near, float hx, float hy)
{
    switch (pl) {
    case 0:
        return v->p[2] - near;
    case 1:
        return hx * v->p[2] - f * v->p[0];
    case 2:
        return hx * v->p[2] + f * v->p[0];
    case 3:
        return hy * v->p[2] - f * v->p[1];
    default:
        return hy * v->p[2] + f * v->p[1];
    }
}

/* The point where in -> out crosses the plane. Always computed from the
 * inside vertex, so an edge shared by two triangles gets the same point. */
static cvert intersect(const cvert *in, float din, const cvert *out, float dout)
{
    float u = din / (din - dout);
    cvert r;
    for (int k = 0; k < 3; k++)
        r.p[k] = in->p[k] + (out->p[k] - in->p[k]) * u;
    r.s = in->s + (out->s - in->s) * u;
    r.t = in->t + (out->t - in->t) * u;
    for (int k = 0; k < 4; k++)
        r.c[k] = in->c[k] + (out->c[k] - in->c[k]) * u;
    return r;
}

/* Position and depth of a projected camera-space point. */
INLINE void project_xy(gc_rs_svertex *o, const float p[3], const gc_rs_camera *cam)
{
    float q = 1.0f / p[2];
    float sx = cam->cx + (cam->focal_px * p[0]) * q;
    float sy = cam->cy - (cam->focal_px * p[1]) * q;
    o->x = to_fixed(sx);
    o->y = to_fixed(sy);
    o->q = q;
}

static void project(gc_rs_svertex *o, const cvert *v, const gc_rs_camera *cam)
{
    project_xy(o, v->p, cam);
    float q = o->q;
    o->sq = v->s * q;
    o->tq = v->t * q;
    for (int k = 0; k < 4; k++)
        o->rgba[k] = v->c[k];
}

/* The corners' camera-space coordinates (lanes 0..2) and their outcodes,
 * from world positions in lanes 0..2: d . axis summed in dot3's order, and
 * bit pl of a lane set when plane_dist < 0 for plane pl (the same
 * expressions). gc_rs_draw_triangle does this per triangle, gc_rs_project
 * per vertex: the lanes give the same bits either way. */
INLINE v4i camera_lanes(const gc_rs_camera *cam, v4f wx, v4f wy, v4f wz, v4f *px, v4f *py, v4f *pz)
{
    const float f = cam->focal_px, hx = cam->cx + GC_RS_GUARD_PX, hy = cam->cy + GC_RS_GUARD_PX;
    const v4f dx = wx - splat(cam->eye[0]), dy = wy - splat(cam->eye[1]),
              dz = wz - splat(cam->eye[2]);
    *px = dx * splat(cam->right[0]) + dy * splat(cam->right[1]) + dz * splat(cam->right[2]);
    *py = dx * splat(cam->up[0]) + dy * splat(cam->up[1]) + dz * splat(cam->up[2]);
    *pz = dx * splat(cam->forward[0]) + dy * splat(cam->forward[1]) + dz * splat(cam->forward[2]);
    const v4f zero = splat(0.0f), hxv = splat(hx), hyv = splat(hy), fv = splat(f);
    return ((*pz - splat(cam->near) < zero) & 1) | ((hxv * *pz - fv * *px < zero) & 2) |
           ((hxv * *pz + fv * *px < zero) & 4) | ((hyv * *pz - fv * *py < zero) & 8) |
           ((hyv * *pz + fv * *py < zero) & 16);
}

/* The projection of points inside the guard band (outcode 0): project()'s
 * expressions lane by lane. */
INLINE void project_lanes_f(const gc_rs_camera *cam, v4f px, v4f py, v4f pz, v4f *q, v4i *sx,
                            v4i *sy, v4f *fx, v4f *fy)
{
    const v4f fv = splat(cam->focal_px);
    *q = splat(1.0f) / pz;
    *fx = splat(cam->cx) + (fv * px) * *q;
    *fy = splat(cam->cy) - (fv * py) * *q;
    *sx = to_fixed4_inside(*fx);
    *sy = to_fixed4_inside(*fy);
}

INLINE void project_lanes(const gc_rs_camera *cam, v4f px, v4f py, v4f pz, v4f *q, v4i *sx, v4i *sy)
{
    v4f fx, fy;
    project_lanes_f(cam, px, py, pz, q, sx, sy, &fx, &fy);
}

/* The lesser and greater of each lane (the operand order of minps / maxps;
 * only ever given numbers here). */
INLINE v4f min4(v4f a, v4f b)
{
#if GC_RS_SSE2
    return (v4f)_mm_min_ps((__m128)a, (__m128)b);
#else
    const v4i m = a < b;
    return (v4f)(((v4i)a & m) | ((v4i)b & ~m));
#endif
}

INLINE v4f max4(v4f a, v4f b)
{
#if GC_RS_SSE2
    return (v4f)_mm_max_ps((__m128)a, (__m128)b);
#else
    const v4i m = a > b;
    return (v4f)(((v4i)a & m) | ((v4i)b & ~m));
#endif
}

/* A triangle crossing a clip plane (any_out: the planes its corners are
 * outside of): clipped in camera space, projected and rasterised as a fan. */
static void draw_clipped(gc_rs_target *t, const gc_rs_camera *cam, const float px[3],
                         const float py[3], const float pz[3], unsigned any_out,
                         const gc_rs_vertex v[3], const gc_rs_texture *tex)
{
    cvert poly[CLIP_MAX], tmp[CLIP_MAX];
    const float f = cam->focal_px, hx = cam->cx + GC_RS_GUARD_PX, hy = cam->cy + GC_RS_GUARD_PX;
    for (int i = 0; i < 3; i++) {
        poly[i].p[0] = px[i];
        poly[i].p[1] = py[i];
        poly[i].p[2] = pz[i];
        poly[i].s = v[i].s;
        poly[i].t = v[i].t;
        for (int k = 0; k < 4; k++)
            poly[i].c[k] = (float)v[i].rgba[k];
    }
    int n = 3;
    t->stats.triangles_clipped++;
    for (int pl = 0; pl < CLIP_PLANES && n > 0; pl++) {
        if (!(any_out & (1u << pl)))
            continue;
        int m = 0;
        for (int i = 0; i < n; i++) {
            const cvert *cur = &poly[i], *prev = &poly[(i + n - 1) % n];
            float dc = plane_dist(cur, pl, f, cam->near, hx, hy);
            float dp = plane_dist(prev, pl, f, cam->near, hx, hy);
            if (dc >= 0.0f) {
                if (dp < 0.0f)
                    tmp[m++] = intersect(cur, dc, prev, dp);
                tmp[m++] = *cur;
            } else if (dp >= 0.0f) {
                tmp[m++] = intersect(prev, dp, cur, dc);
            }
        }
        memcpy(poly, tmp, (size_t)m * sizeof *poly);
        n = m;
        /* Later planes may not have flagged a vertex the clip created;
         * test every remaining plane from here on. */
        any_out = ~0u;
    }
    if (n < 3)
        return;
    gc_rs_svertex sv[CLIP_MAX];
    for (int i = 0; i < n; i++)
        project(&sv[i], &poly[i], cam);
    for (int i = 1; i + 1 < n; i++)
        raster_triangle(t, &sv[0], &sv[i], &sv[i + 1], tex);
}

/* The rest of a wholly inside triangle once tri_bounds has passed it: the
 * attributes project() gives (s q, t q, the colour as floats), then the
 * setup and the pixels. */
INLINE void fill_inside(gc_rs_target *t, tri_setup *su, gc_rs_svertex sv[3], const gc_rs_svertex *a,
                        const gc_rs_svertex *b, const gc_rs_svertex *c, int64_t area,
                        const gc_rs_vertex v[3], const gc_rs_texture *tex)
{
    for (int i = 0; i < 3; i++) {
        sv[i].sq = v[i].s * sv[i].q;
        sv[i].tq = v[i].t * sv[i].q;
#if GC_RS_SSE2
        /* the four bytes widened in lanes and converted at once (each an
         * integer 0..255, exact as a float either way): one by one this
         * was ~28 instructions a corner */
        const __m128i z = _mm_setzero_si128();
        const __m128i c8 = _mm_cvtsi32_si128((int)load_u32(v[i].rgba));
        const __m128 cf = _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_unpacklo_epi8(c8, z), z));
        memcpy(sv[i].rgba, &cf, sizeof sv[i].rgba);
#else
        for (int k = 0; k < 4; k++)
            sv[i].rgba[k] = (float)v[i].rgba[k];
#endif
    }
    tri_fill(t, su, a, b, c, area, tex);
}

void gc_rs_draw_triangle(gc_rs_target *t, const gc_rs_camera *cam, const gc_rs_vertex v[3],
                         const gc_rs_texture *tex)
{
    t->stats.triangles++;
    /* The three corners in lanes 0..2 (lane 3 repeats corner 0 and is never
     * read). */
    const v4f w[5] = {{v[0].pos[0], v[1].pos[0], v[2].pos[0], v[0].pos[0]},
                      {v[0].pos[1], v[1].pos[1], v[2].pos[1], v[0].pos[1]},
                      {v[0].pos[2], v[1].pos[2], v[2].pos[2], v[0].pos[2]},
                      {v[0].s, v[1].s, v[2].s, v[0].s},
                      {v[0].t, v[1].t, v[2].t, v[0].t}};
    if (!in_range_lanes(w, 5)) {
        t->stats.triangles_skipped++;
        return;
    }
    v4f px, py, pz;
    const v4i code = camera_lanes(cam, w[0], w[1], w[2], &px, &py, &pz);
    const unsigned all_out = (unsigned)(code[0] & code[1] & code[2]);
    const unsigned any_out = (unsigned)(code[0] | code[1] | code[2]);
    if (all_out) {
        t->stats.triangles_culled++;
        return;
    }
    if (!any_out) {
        /* Wholly inside (the common case): project and snap the corners
         * and stop there if no pixel centre is covered. */
        v4f q;
        v4i sx, sy;
        project_lanes(cam, px, py, pz, &q, &sx, &sy);
        gc_rs_svertex sv[3];
        for (int i = 0; i < 3; i++) {
            sv[i].x = sx[i];
            sv[i].y = sy[i];
            sv[i].q = q[i];
        }
        const gc_rs_svertex *a = &sv[0], *b = &sv[1], *c = &sv[2];
        tri_setup su;
        int64_t area;
        if (tri_bounds(t, a, &b, &c, &su, &area))
            fill_inside(t, &su, sv, a, b, c, area, v, tex);
        return;
    }
    const float cx[3] = {px[0], px[1], px[2]}, cy[3] = {py[0], py[1], py[2]},
                cz[3] = {pz[0], pz[1], pz[2]};
    draw_clipped(t, cam, cx, cy, cz, any_out, v, tex);
}

/* ---- shared vertices: project once, draw indexed triangles --------------- */

/* Rows a, b, c, d of a 4 x 4 matrix to its columns (lane k of each row into
 * column k), moving bits only. */
INLINE void transpose4(v4i a, v4i b, v4i c, v4i d, v4i out[4])
{
    const v4i t0 = __builtin_shufflevector(a, b, 0, 4, 1, 5),
              t1 = __builtin_shufflevector(a, b, 2, 6, 3, 7),
              t2 = __builtin_shufflevector(c, d, 0, 4, 1, 5),
              t3 = __builtin_shufflevector(c, d, 2, 6, 3, 7);
    out[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    out[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    out[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    out[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

/* gc_rs_project, and with `bounds` the OR of the n points' codes and the
 * bounds of their x and y (an instance per value of `bounds`, so the plain
 * projection pays nothing for them). */
INLINE void project_points(const gc_rs_camera *cam_in, const float m[12], size_t n, const float *x,
                           const float *y, const float *z, gc_rs_pvertex *out, gc_rs_pbounds *pb,
                           const int bounds)
{
    /* A local copy of the camera: the stores to out[] could alias *cam_in,
     * so with it the compiler reloaded and re-broadcast every camera field
     * (36 movss + 32 shufps) on each pass of four points; a local whose
     * address does not escape lets it keep the broadcasts out of the loop.
     * The same values, the same operations. */
    const gc_rs_camera cam_local = *cam_in, *const cam = &cam_local;
    const v4i abs = {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF};
    const v4i lim = {0x7149F2CA, 0x7149F2CA, 0x7149F2CA, 0x7149F2CA}; /* the bits of 1e30f */
    _Static_assert(sizeof(gc_rs_pvertex) == 32, "two 16-byte halves per vertex");
    /* the matrix's entries broadcast once a call, not once a pass (column
     * c, row a is m[3c + a]: w[a] = m[a] x + m[3 + a] y + m[6 + a] z + m[9 + a]) */
    v4f mb[12];
    for (int e = 0; e < 12; e++)
        mb[e] = splat(m[e]);
    /* The bounds over whole passes of four in lanes (the last pass's lanes
     * past n are scratch: those points are added one by one below), taken
     * on the screen positions before they are snapped: the snap (x 16, a
     * half away from zero, truncation) never decreases as its argument
     * grows, so the snap of the least position is the least snapped
     * position, and likewise the greatest. Only read when every code is 0,
     * when no lane holds a NaN. */
    const size_t whole = bounds ? n / 4 * 4 : 0;
    v4i b_code = {0, 0, 0, 0};
    v4f b_x0 = splat(__builtin_inff()), b_y0 = b_x0, b_x1 = -b_x0, b_y1 = b_x1;
    for (size_t i = 0; i < n; i += 4) {
        /* four points a pass (the arrays are padded to a multiple of four) */
        v4f lx, ly, lz;
        memcpy(&lx, x + i, sizeof lx);
        memcpy(&ly, y + i, sizeof ly);
        memcpy(&lz, z + i, sizeof lz);
        v4f w[3];
        for (int a = 0; a < 3; a++)
            w[a] = mb[a] * lx + mb[3 + a] * ly + mb[6 + a] * lz + mb[9 + a];
        v4i bad =
            (((v4i)w[0] & abs) >= lim) | (((v4i)w[1] & abs) >= lim) | (((v4i)w[2] & abs) >= lim);
        v4f px, py, pz;
        v4i code = camera_lanes(cam, w[0], w[1], w[2], &px, &py, &pz) | (bad & GC_RS_PV_BAD);
        /* points outside the guard band are not projected here (the clip
         * path does that); their lanes divide and convert harmless values */
        const v4i in = code == 0;
        const v4f one = splat(1.0f);
        v4f q;
        v4i sx, sy;
        v4f fx, fy;
        project_lanes_f(cam, (v4f)((v4i)px & in), (v4f)((v4i)py & in),
                        (v4f)(((v4i)pz & in) | ((v4i)one & ~in)), &q, &sx, &sy, &fx, &fy);
        v4i head[4], tail[4];
        transpose4(sx, sy, (v4i)q, code, head);
        transpose4((v4i)px, (v4i)py, (v4i)pz, (v4i){0, 0, 0, 0}, tail);
        for (int k = 0; k < 4; k++) {
            memcpy(&out[i + (size_t)k], &head[k], 16);
            memcpy((char *)&out[i + (size_t)k] + 16, &tail[k], 16);
        }
        if (bounds && i < whole) {
            b_code |= code;
            b_x0 = min4(fx, b_x0);
            b_x1 = max4(fx, b_x1);
            b_y0 = min4(fy, b_y0);
            b_y1 = max4(fy, b_y1);
        }
    }
    if (bounds) {
        gc_rs_pbounds b = {0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN};
        for (int k = 0; k < 4; k++)
            b.code |= (uint32_t)b_code[k];
        if (whole && b.code == 0) {
            float x0 = b_x0[0], x1 = b_x1[0], y0 = b_y0[0], y1 = b_y1[0];
            for (int k = 1; k < 4; k++) {
                x0 = b_x0[k] < x0 ? b_x0[k] : x0;
                x1 = b_x1[k] > x1 ? b_x1[k] : x1;
                y0 = b_y0[k] < y0 ? b_y0[k] : y0;
                y1 = b_y1[k] > y1 ? b_y1[k] : y1;
            }
            const v4i lo = to_fixed4_inside((v4f){x0, y0, 0.0f, 0.0f}),
                      hi = to_fixed4_inside((v4f){x1, y1, 0.0f, 0.0f});
            b.x0 = lo[0];
            b.y0 = lo[1];
            b.x1 = hi[0];
            b.y1 = hi[1];
        }
        for (size_t i = whole; i < n; i++) {
            b.code |= out[i].code;
            b.x0 = out[i].x < b.x0 ? out[i].x : b.x0;
            b.x1 = out[i].x > b.x1 ? out[i].x : b.x1;
            b.y0 = out[i].y < b.y0 ? out[i].y : b.y0;
            b.y1 = out[i].y > b.y1 ? out[i].y : b.y1;
        }
        *pb = b;
    }
}

void gc_rs_project(const gc_rs_camera *cam, const float m[12], size_t n, const float *x,
                   const float *y, const float *z, gc_rs_pvertex *out)
{
    project_points(cam, m, n, x, y, z, out, NULL, 0);
}

void gc_rs_project_bounds(const gc_rs_camera *cam, const float m[12], size_t n, const float *x,
                          const float *y, const float *z, gc_rs_pvertex *out, gc_rs_pbounds *b)
{
    project_points(cam, m, n, x, y, z, out, b, 1);
}

INLINE int64_t min3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a < b ? a : b;
    return m < c ? m : c;
}

INLINE int64_t max3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* One triangle of gc_rs_draw_indexed whose corners are all inside the guard
 * band (outcode 0): tri_bounds' area and pixel box from the shared vertices
 * in registers (most object triangles stop here), then the depth probe,
 * the corners and the fill. With clamp 0 the caller knows every corner's
 * pixel box lies inside the frame, so the box's clamps could not act. */
INLINE void indexed_inside(gc_rs_target *t, const gc_rs_pvertex *p0, const gc_rs_pvertex *p1,
                           const gc_rs_pvertex *p2, size_t j, int64_t xmax, int64_t ymax,
                           const int clamp, gc_rs_corners_fn corners, void *ctx, uint64_t *n_setups)
{
    const int64_t ax = p0->x, ay = p0->y, bx = p1->x, by = p1->y, cx = p2->x, cy = p2->y;
    const int64_t area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area == 0)
        return;
    ++*n_setups;
    /* ceil((m - 8) / 16) is floor((m - 8 + 15) / 16): the box's first pixel
     * without the two negations of -floor_div16(-(m - 8)) (the same integer) */
    int64_t px0 = floor_div16(min3(ax, bx, cx) + 7);
    int64_t px1 = floor_div16(max3(ax, bx, cx) - 8);
    int64_t py0 = floor_div16(min3(ay, by, cy) + 7);
    int64_t py1 = floor_div16(max3(ay, by, cy) - 8);
    if (clamp) {
        px0 = px0 < 0 ? 0 : px0;
        py0 = py0 < 0 ? 0 : py0;
        px1 = px1 > xmax ? xmax : px1;
        py1 = py1 > ymax ? ymax : py1;
    }
    if (px0 > px1 || py0 > py1)
        return;
    gc_rs_svertex sv[3];
    sv[0].x = p0->x;
    sv[0].y = p0->y;
    sv[0].q = p0->q;
    sv[1].x = p1->x;
    sv[1].y = p1->y;
    sv[1].q = p1->q;
    sv[2].x = p2->x;
    sv[2].y = p2->y;
    sv[2].q = p2->q;
    /* tri_bounds' winding: b and c swapped when clockwise */
    const gc_rs_svertex *a = &sv[0], *b = area < 0 ? &sv[2] : &sv[1],
                        *c = area < 0 ? &sv[1] : &sv[2];
    tri_setup su;
    su.px0 = px0;
    su.px1 = px1;
    su.py0 = py0;
    su.py1 = py1;
    const int64_t aarea = area < 0 ? -area : area;
    if (!tri_depth_probe(t, &su, a, b, c, aarea))
        return;
    gc_rs_vertex v[3];
    const gc_rs_texture *tex = corners(ctx, j, v);
    fill_inside(t, &su, sv, a, b, c, aarea, v, tex);
}

void gc_rs_draw_indexed(gc_rs_target *t, const gc_rs_camera *cam, const gc_rs_pvertex *pv,
                        uint32_t base, const uint32_t *idx, size_t stride, size_t ntris,
                        gc_rs_corners_fn corners, void *ctx)
{
    /* the counters in locals: the callback and the pixel stores could alias them */
    uint64_t n_tri = 0, n_skipped = 0, n_culled = 0, n_setups = 0;
    const int64_t xmax = (int64_t)t->width - 1, ymax = (int64_t)t->height - 1;
    for (size_t j = 0; j < ntris; j++, idx += stride) {
        const gc_rs_pvertex *p0 = &pv[idx[0] - base], *p1 = &pv[idx[1] - base],
                            *p2 = &pv[idx[2] - base];
        n_tri++;
        const uint32_t c0 = p0->code, c1 = p1->code, c2 = p2->code;
        const uint32_t any_out = c0 | c1 | c2;
        if (any_out & GC_RS_PV_BAD) {
            n_skipped++;
            continue;
        }
        if (c0 & c1 & c2) {
            n_culled++;
            continue;
        }
        if (!any_out) {
            indexed_inside(t, p0, p1, p2, j, xmax, ymax, 1, corners, ctx, &n_setups);
            continue;
        }
        gc_rs_vertex v[3];
        const gc_rs_texture *tex = corners(ctx, j, v);
        const float cx[3] = {p0->cam[0], p1->cam[0], p2->cam[0]},
                    cy[3] = {p0->cam[1], p1->cam[1], p2->cam[1]},
                    cz[3] = {p0->cam[2], p1->cam[2], p2->cam[2]};
        draw_clipped(t, cam, cx, cy, cz, any_out, v, tex);
    }
    t->stats.triangles += n_tri;
    t->stats.triangles_skipped += n_skipped;
    t->stats.triangles_culled += n_culled;
    t->stats.setups += n_setups;
}

/* gc_rs_draw_indexed's loop for points all inside the guard band (the
 * bounds' code 0): no triangle can be skipped, culled or clipped, so the
 * corners' codes are not read; with clamp 0 (the points' pixel box inside
 * the frame) neither are the boxes clamped. The same triangles in the same
 * order reach the same path. */
INLINE void indexed_all_inside(gc_rs_target *t, const gc_rs_pvertex *pv, uint32_t base,
                               const uint32_t *idx, size_t stride, size_t ntris, const int clamp,
                               gc_rs_corners_fn corners, void *ctx)
{
    uint64_t n_setups = 0;
    const int64_t xmax = (int64_t)t->width - 1, ymax = (int64_t)t->height - 1;
    for (size_t j = 0; j < ntris; j++, idx += stride)
        indexed_inside(t, &pv[idx[0] - base], &pv[idx[1] - base], &pv[idx[2] - base], j, xmax, ymax,
                       clamp, corners, ctx, &n_setups);
    t->stats.triangles += ntris;
    t->stats.setups += n_setups;
}

void gc_rs_draw_indexed_bounded(gc_rs_target *t, const gc_rs_camera *cam, const gc_rs_pvertex *pv,
                                const gc_rs_pbounds *b, uint32_t base, const uint32_t *idx,
                                size_t stride, size_t ntris, gc_rs_corners_fn corners, void *ctx)
{
    /* Every point inside the guard band (so no triangle is skipped, culled
     * or clipped) and no pixel centre in the points' box: each triangle's
     * pixel box lies inside that box (the box of a subset, and the rounding
     * and clamping below are monotonic), so gc_rs_draw_indexed would stop
     * every triangle at its area or its box, counting it and, when its
     * area is not zero, a setup. A third of the sweep's object triangles
     * are in such instances (far objects smaller than a pixel). */
    if (b->code == 0) {
        const int64_t xmax = (int64_t)t->width - 1, ymax = (int64_t)t->height - 1;
        const int64_t ux0 = -floor_div16(-((int64_t)b->x0 - 8)),
                      ux1 = floor_div16((int64_t)b->x1 - 8);
        const int64_t uy0 = -floor_div16(-((int64_t)b->y0 - 8)),
                      uy1 = floor_div16((int64_t)b->y1 - 8);
        const int64_t px0 = ux0 < 0 ? 0 : ux0, py0 = uy0 < 0 ? 0 : uy0;
        const int64_t px1 = ux1 > xmax ? xmax : ux1, py1 = uy1 > ymax ? ymax : uy1;
        if (px0 > px1 || py0 > py1) {
            uint64_t n_setups = 0;
            for (size_t j = 0; j < ntris; j++, idx += stride) {
                const gc_rs_pvertex *p0 = &pv[idx[0] - base], *p1 = &pv[idx[1] - base],
                                    *p2 = &pv[idx[2] - base];
                const int64_t ax = p0->x, ay = p0->y, bx = p1->x, by = p1->y, cx = p2->x,
                              cy = p2->y;
                n_setups += (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) != 0;
            }
            t->stats.triangles += ntris;
            t->stats.setups += n_setups;
            return;
        }
        /* Each triangle's unclamped box lies in the points' (ux0..ux1,
         * uy0..uy1): when that is inside the frame, no clamp can act. */
        if (ux0 >= 0 && uy0 >= 0 && ux1 <= xmax && uy1 <= ymax)
            indexed_all_inside(t, pv, base, idx, stride, ntris, 0, corners, ctx);
        else
            indexed_all_inside(t, pv, base, idx, stride, ntris, 1, corners, ctx);
        return;
    }
    gc_rs_draw_indexed(t, cam, pv, base, idx, stride, ntris, corners, ctx);
}

int gc_rs_depth_hides(const gc_rs_target *t, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
                      float q)
{
    if (x0 < 0)
        x0 = 0;
    if (y0 < 0)
        y0 = 0;
    if (x1 > (int64_t)t->width - 1)
        x1 = (int64_t)t->width - 1;
    if (y1 > (int64_t)t->height - 1)
        y1 = (int64_t)t->height - 1;
    for (int64_t y = y0; y <= y1; y++) {
        const float *row = t->depth + (size_t)y * t->width;
        int open = 0; /* no early exit inside a row: the compiler vectorises the compares */
        for (int64_t x = x0; x <= x1; x++)
            open |= !(row[x] >= q);
        if (open)
            return 0;
    }
    return 1;
}
