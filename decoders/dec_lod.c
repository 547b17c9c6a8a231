/* SPDX-License-Identifier: MIT */
/* tfrag LOD selection (gc_lod.h) and the lod decoder, which publishes
 * lod.sweep: the mode every patch takes from a fixed, deterministic set of
 * eye positions walking away from its sphere centre. The rule is written
 * out in docs/formats/lod.md; the invariants in invariants/lod.yaml check
 * that walking away never refines the mode and that the sphere, not its
 * centre, is what is tested. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "gc_level.h"
#include "gc_lod.h"

/* Fixed-point values are clamped to +-2^30 (about a million world units) so
 * squared distances fit in uint64 exactly: (2^31)^2 * 3 < 2^64. */
#define FX_LIMIT ((int64_t)1 << 30)

static int64_t fx(double v)
{
    if (!(v == v))
        return 0; /* NaN */
    double s = v * GC_LOD_FIXED_ONE;
    if (s >= (double)FX_LIMIT)
        return FX_LIMIT;
    if (s <= -(double)FX_LIMIT)
        return -FX_LIMIT;
    return (int64_t)s; /* truncates toward zero */
}

typedef struct lod_eval {
    uint64_t d2;  /* squared centre distance, fixed point */
    int64_t r;    /* radius, fixed point, >= 0 */
    int64_t t[3]; /* thresholds T0 = trunc(6L*1024), T1 = trunc(4L*1024), T2 = trunc(2L*1024) */
    /* The tests' squared bounds, which depend on r and t only (bounds());
     * lod_run keeps them for a patch's whole walk and sets d2 a sample. */
    uint64_t near2[3];   /* sq(t + r) */
    uint64_t far2[3];    /* sq(t - r) */
    uint64_t centre2[3]; /* sq(t) */
    bool far_always[3];  /* r >= t */
} lod_eval;

static uint64_t sq(int64_t v)
{
    uint64_t a = (uint64_t)(v < 0 ? -v : v);
    return a * a;
}

/* The thresholds depend on lod_scale alone: lod_run takes them once a level. */
static void thresholds(float lod_scale, int64_t t[3])
{
    static const int units[3] = {GC_LOD_D0_UNITS, GC_LOD_D1_UNITS, GC_LOD_D2_UNITS};
    for (int k = 0; k < 3; k++) {
        float d = (float)units[k] * lod_scale;
        t[k] = fx(d);
        if (t[k] < 0)
            t[k] = 0;
    }
}

static void bounds(lod_eval *e)
{
    for (int k = 0; k < 3; k++) {
        e->near2[k] = sq(e->t[k] + e->r);
        e->far2[k] = sq(e->t[k] - e->r);
        e->centre2[k] = sq(e->t[k]);
        e->far_always[k] = e->r >= e->t[k];
    }
}

static lod_eval evaluate(float lod_scale, const float sphere[4], const float eye[3], int use_radius)
{
    lod_eval e;
    e.d2 = 0;
    for (int i = 0; i < 3; i++)
        e.d2 += sq(fx(eye[i]) - fx(sphere[i]));
    e.r = use_radius ? fx(sphere[3]) : 0;
    if (e.r < 0)
        e.r = 0;
    thresholds(lod_scale, e.t);
    bounds(&e);
    return e;
}

/* The whole sphere is at least T away: |c| - r >= T. */
static int near_ge(const lod_eval *e, int k)
{
    return e->d2 >= e->near2[k];
}
/* Some of the sphere is at least T away: |c| + r >= T. */
static int far_ge(const lod_eval *e, int k)
{
    return e->far_always[k] || e->d2 >= e->far2[k];
}
/* The centre is at least T away. */
static int centre_ge(const lod_eval *e, int k)
{
    return e->d2 >= e->centre2[k];
}

static gc_lod_mode mode_of(const lod_eval *e)
{
    /* Coarsest test first; each test only turns true as the eye walks away,
     * so the mode never gets finer (lod.monotonic). */
    if (near_ge(e, 0))
        return GC_LOD_MODE_2; /* the whole sphere is past D0 */
    if (far_ge(e, 0))
        return GC_LOD_MODE_1_COLLAPSE; /* straddles D0: LOD-01 entries collapse */
    if (near_ge(e, 1))
        return GC_LOD_MODE_1_MORPH; /* the whole sphere is in [D1, D0) */
    if (far_ge(e, 1))
        return GC_LOD_MODE_0_COLLAPSE; /* straddles D1: LOD-0 entries collapse */
    if (far_ge(e, 2))
        return GC_LOD_MODE_0_MORPH; /* reaches past D2 */
    return GC_LOD_MODE_0;
}

static float band_weight(double f, int64_t lo, int64_t hi)
{
    /* 1 at the band's near edge lo, 0 at its far edge hi */
    if (hi <= lo)
        return f < (double)hi ? 1.0f : 0.0f;
    double w = ((double)hi - f) / ((double)hi - (double)lo);
    if (!(w > 0.0))
        return 0.0f;
    if (w > 1.0)
        return 1.0f;
    return (float)w;
}

/* historical bug (fault lod_centre): the centre is tested, not the sphere */
static int centre_fault(int fault)
{
    return GC_FAULTS_BUILT && fault == GC_FAULT_lod_centre;
}

static gc_lod_pick pick_of(const lod_eval *ev)
{
    const lod_eval *e = ev;
    gc_lod_pick p;
    p.mode = mode_of(e);
    /* morph weights follow the sphere's far edge, in fixed-point units;
     * only the three morph modes use them, so only they take the root
     * (the same operations as before, so the same bits) */
    double f = 0.0;
    if (p.mode == GC_LOD_MODE_0_MORPH || p.mode == GC_LOD_MODE_0_COLLAPSE ||
        p.mode == GC_LOD_MODE_1_MORPH)
        f = sqrt((double)e->d2) + (double)e->r;
    switch (p.mode) {
    case GC_LOD_MODE_0:
        p.strip_lod = 0, p.morph_lod0 = 1.0f, p.morph_lod01 = 1.0f;
        break;
    case GC_LOD_MODE_0_MORPH:
        p.strip_lod = 0;
        p.morph_lod0 = band_weight(f, e->t[2], e->t[1]);  /* LOD-0 band: D2 .. D1 */
        p.morph_lod01 = band_weight(f, e->t[1], e->t[0]); /* LOD-01 band: D1 .. D0 */
        break;
    case GC_LOD_MODE_0_COLLAPSE:
        p.strip_lod = 0, p.morph_lod0 = 0.0f, p.morph_lod01 = band_weight(f, e->t[1], e->t[0]);
        break;
    case GC_LOD_MODE_1_MORPH:
        p.strip_lod = 1, p.morph_lod0 = 0.0f, p.morph_lod01 = band_weight(f, e->t[1], e->t[0]);
        break;
    case GC_LOD_MODE_1_COLLAPSE:
        p.strip_lod = 1, p.morph_lod0 = 0.0f, p.morph_lod01 = 0.0f;
        break;
    case GC_LOD_MODE_2:
    default:
        p.strip_lod = 2, p.morph_lod0 = 0.0f, p.morph_lod01 = 0.0f;
        break;
    }
    return p;
}

gc_lod_pick gc_lod_select(float lod_scale, const float sphere[4], const float eye[3], int fault)
{
    lod_eval e = evaluate(lod_scale, sphere, eye, !centre_fault(fault));
    return pick_of(&e);
}

const char *gc_lod_mode_name(gc_lod_mode m)
{
    static const char *const names[] = {"lod2",          "lod1_collapse", "lod1_morph",
                                        "lod0_collapse", "lod0_morph",    "lod0"};
    if ((unsigned)m >= GC_COUNTOF(names))
        return "?";
    return names[m];
}

/* ---- lod.sweep ----------------------------------------------------------- */

typedef struct lod_sweep_row {
    uint64_t file_ofs;  /* the patch header's offset in core_data */
    uint32_t patch_row; /* row in tfrag.patch */
    uint16_t step;      /* 0.. within the patch, in order of distance */
    uint8_t mode;       /* gc_lod_mode */
    uint8_t strip_lod;
    float distance;  /* eye to sphere centre, world units */
    float near_dist; /* distance - radius */
    float far_dist;  /* distance + radius */
    float morph_lod01;
    float morph_lod0;
    uint8_t straddles;     /* a threshold lies in (near, far] */
    uint8_t straddles_far; /* a threshold lies in (centre, far]: only the far half crosses it */
    uint8_t mode_by_centre;
} lod_sweep_row;

static const gc_column sweep_cols[] = {
    GC_COL(lod_sweep_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in core_data",
           "offset of the patch header"),
    GC_COL(lod_sweep_row, patch_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "row of the patch in tfrag.patch"),
    GC_COL(lod_sweep_row, step, GC_T_U16, 0, "",
           "sample number within the patch, in order of distance"),
    GC_COL(lod_sweep_row, mode, GC_T_U8, 0, "",
           "0 lod2, 1 lod1_collapse, 2 lod1_morph, 3 lod0_collapse, 4 lod0_morph, 5 lod0"),
    GC_COL(lod_sweep_row, strip_lod, GC_T_U8, 0, "", "strips drawn: 0, 1 or 2"),
    GC_COL(lod_sweep_row, distance, GC_T_F32, 0, "world units", "eye to sphere centre"),
    GC_COL(lod_sweep_row, near_dist, GC_T_F32, 0, "world units", "distance - radius"),
    GC_COL(lod_sweep_row, far_dist, GC_T_F32, 0, "world units", "distance + radius"),
    GC_COL(lod_sweep_row, morph_lod01, GC_T_F32, 0, "",
           "weight of the LOD-01 entries' own positions"),
    GC_COL(lod_sweep_row, morph_lod0, GC_T_F32, 0, "",
           "weight of the LOD-0 entries' own positions"),
    GC_COL(lod_sweep_row, straddles, GC_T_BOOL, 0, "",
           "a switch distance lies in (near_dist, far_dist] (fixed point)"),
    GC_COL(lod_sweep_row, straddles_far, GC_T_BOOL, 0, "",
           "a switch distance lies in (distance, far_dist]: the centre has not reached it, the "
           "sphere has"),
    GC_COL(lod_sweep_row, mode_by_centre, GC_T_U8, 0, "", "the mode a centre-only rule picks"),
};

const gc_table_desc gc_table_lod_sweep = {
    .name = "lod.sweep",
    .doc = "The LOD mode of every patch from eye positions walking away from its sphere centre.",
    .row_size = sizeof(lod_sweep_row),
    .columns = sweep_cols,
    .column_count = GC_COUNTOF(sweep_cols),
    .parent_table = "tfrag.patch",
    .parent_link = "patch",
    .parent_column = "patch_row",
};

static const gc_table_desc *const lod_tables[] = {&gc_table_lod_sweep};

/* Samples per patch: SWEEP_UNIFORM distances k * 8L / (SWEEP_UNIFORM - 1),
 * plus a probe either side of each switch distance at D -+ radius / 2, so
 * every patch with a radius has rows whose sphere straddles each threshold. */
#define SWEEP_UNIFORM    18
#define SWEEP_PROBES     6
#define SWEEP_SPAN_UNITS 8
/* The ray: a fixed unit direction (3/5, 0, 4/5). */
static const float sweep_dir[3] = {0.6f, 0.0f, 0.8f};

/* The tables are found through their descriptors by name, as the engine
 * finds them: this decoder does not see the tfrag decoder's row structs. */
static const gc_rowbuf *find_rows(const gc_level *lv, const char *name)
{
    for (size_t i = 0; i < lv->table_count; i++)
        if (strcmp(lv->tables[i].desc->name, name) == 0)
            return &lv->tables[i];
    return NULL;
}

static int find_f32(const gc_table_desc *d, const char *col, size_t *ofs)
{
    for (size_t i = 0; i < d->column_count; i++)
        if (strcmp(d->columns[i].name, col) == 0 && d->columns[i].type == GC_T_F32) {
            *ofs = d->columns[i].offset;
            return 1;
        }
    return 0;
}

static float load_f32(const uint8_t *row, size_t ofs)
{
    float f;
    memcpy(&f, row + ofs, sizeof f);
    return f;
}

static void sort_floats(float *v, int n)
{
    for (int i = 1; i < n; i++) { /* insertion sort: n is 24 */
        float x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
}

static gc_status lod_run(gc_level *lv, gc_diag *diag)
{
    const gc_rowbuf *blocks = find_rows(lv, "tfrag.block");
    const gc_rowbuf *patches = find_rows(lv, "tfrag.patch");
    if (!blocks || !patches || blocks->count == 0)
        return GC_NEEDS(diag, "tfrag block");
    size_t o_lod, o_cx, o_cy, o_cz, o_r;
    if (!find_f32(blocks->desc, "lod_scale", &o_lod) || !find_f32(patches->desc, "cx", &o_cx) ||
        !find_f32(patches->desc, "cy", &o_cy) || !find_f32(patches->desc, "cz", &o_cz) ||
        !find_f32(patches->desc, "radius", &o_r))
        return gc_diag_set(diag, GC_E_INTERNAL, 0, "tfrag tables lack the LOD columns");
    size_t o_ofs = 0; /* file_ofs is the first column of every table */
    float L = load_f32(blocks->data, o_lod);
    /* what does not change along the walk is taken once: the thresholds a
     * level, the sphere's fixed-point centre and radius a patch (the same
     * fx() of the same floats evaluate() takes, so the same integers) */
    int64_t thr[3];
    thresholds(L, thr);
    gc_rowbuf *out = gc_level_rows(lv, &gc_table_lod_sweep);
    if (!out)
        return gc_diag_set(diag, GC_E_INTERNAL, 0, "lod.sweep is not registered");
    /* exactly SWEEP_UNIFORM + SWEEP_PROBES rows per patch: one allocation
     * (a hint; a refused one grows at the push as before) */
    if (patches->count <= SIZE_MAX / (SWEEP_UNIFORM + SWEEP_PROBES))
        (void)gc_rows_reserve(out, patches->count * (SWEEP_UNIFORM + SWEEP_PROBES));
    gc_diag_push(diag, "core_data");
    gc_diag_push(diag, "lod");

    for (size_t i = 0; i < patches->count; i++) {
        const uint8_t *row = patches->data + i * patches->desc->row_size;
        float sphere[4] = {load_f32(row, o_cx), load_f32(row, o_cy), load_f32(row, o_cz),
                           load_f32(row, o_r)};
        uint64_t pofs;
        memcpy(&pofs, row + o_ofs, sizeof pofs);
        float r = sphere[3] == sphere[3] && sphere[3] > 0.0f ? sphere[3] : 0.0f;

        float dist[SWEEP_UNIFORM + SWEEP_PROBES];
        int n = 0;
        float span = (float)SWEEP_SPAN_UNITS * L;
        if (!(span == span) || span < 0.0f)
            span = 0.0f;
        /* an infinite span made the first distance inf * 0, a NaN, which the sort cannot place
         * and the walk then stepped back towards the sphere (fuzz_tfrag, lod-scale-infinite) */
        if (span > FLT_MAX)
            span = FLT_MAX;
        for (int k = 0; k < SWEEP_UNIFORM; k++)
            dist[n++] = span * (float)k / (float)(SWEEP_UNIFORM - 1);
        static const int units[3] = {GC_LOD_D0_UNITS, GC_LOD_D1_UNITS, GC_LOD_D2_UNITS};
        for (int k = 0; k < 3; k++) {
            float d = (float)units[k] * L;
            if (!(d == d))
                d = 0.0f;
            float a = d - r * 0.5f, b = d + r * 0.5f;
            dist[n++] = a > 0.0f ? a : 0.0f;
            dist[n++] = b > 0.0f ? b : 0.0f;
        }
        sort_floats(dist, n);
        int64_t cfx[3] = {fx(sphere[0]), fx(sphere[1]), fx(sphere[2])};
        /* e: the sphere's tests, ec: the centre-only rule's (radius 0) */
        lod_eval e, ec;
        e.d2 = ec.d2 = 0;
        e.r = fx(sphere[3]);
        if (e.r < 0)
            e.r = 0;
        ec.r = 0;
        memcpy(e.t, thr, sizeof thr);
        memcpy(ec.t, thr, sizeof thr);
        bounds(&e);
        bounds(&ec);

        for (int k = 0; k < n; k++) {
            float eye[3];
            for (int a = 0; a < 3; a++)
                eye[a] = sphere[a] + dist[k] * sweep_dir[a];
            /* one evaluation serves the pick (as gc_lod_select makes it),
             * the centre-only rule and the straddle flags */
            uint64_t d2 = 0; /* as evaluate(L, sphere, eye, 1) */
            for (int a = 0; a < 3; a++)
                d2 += sq(fx(eye[a]) - cfx[a]);
            e.d2 = ec.d2 = d2;
            gc_lod_pick p = pick_of(centre_fault(lv->fault) ? &ec : &e);
            int str = 0, str_far = 0;
            for (int t = 0; t < 3; t++) {
                if (!near_ge(&e, t) && far_ge(&e, t))
                    str = 1;
                if (!centre_ge(&e, t) && far_ge(&e, t))
                    str_far = 1;
            }
            lod_sweep_row *s = GC_ROWS_PUSH(out, lod_sweep_row);
            if (!s) {
                gc_status st = gc_diag_set(diag, GC_E_NOMEM, pofs, "lod.sweep row");
                gc_diag_pop(diag);
                gc_diag_pop(diag);
                return st;
            }
            s->file_ofs = pofs;
            s->patch_row = (uint32_t)i;
            s->step = (uint16_t)k;
            s->mode = (uint8_t)p.mode;
            s->strip_lod = (uint8_t)p.strip_lod;
            s->distance = dist[k];
            s->near_dist = dist[k] - r;
            s->far_dist = dist[k] + r;
            s->morph_lod01 = p.morph_lod01;
            s->morph_lod0 = p.morph_lod0;
            s->straddles = (uint8_t)str;
            s->straddles_far = (uint8_t)str_far;
            /* under the fault the pick already is the centre-only rule */
            s->mode_by_centre = (uint8_t)(centre_fault(lv->fault) ? p.mode : mode_of(&ec));
        }
    }
    gc_diag_pop(diag);
    gc_diag_pop(diag);
    return GC_OK;
}

const gc_decoder gc_dec_lod = {
    .name = "lod",
    .doc = "tfrag LOD selection swept over a fixed set of eye distances per patch",
    .tables = lod_tables,
    .table_count = GC_COUNTOF(lod_tables),
    .run = lod_run,
    .release = NULL,
};
