/* SPDX-License-Identifier: MIT */
/* Tfrag block writer of the synthetic corpus: a level's terrain as tfrag patches (block header,
 * 0x40-byte patch table, per patch five VIF lists, RGBA, light records, spheres). Layout as
 * docs/formats/tfrag.md states it (written from formats.md §5 and level-assets.md); nothing here
 * is shared with decoders/.
 *
 * How the exact totals are met. Every count the plan gives (patches, positions, LOD-0
 * triangles, vertex info per tier, ad-gifs) is spread over the patches with deterministic
 * weights; each patch is then a terrain mesh built to hit its own counts exactly:
 *   - ribbons of w x R grid vertices (R odd): R*ncol positions, 2(R-1)(ncol-K) triangles;
 *   - skirts under the left/right edge add 1..2R-2 triangles for about half as many positions;
 *   - seam copies (a common vertex-info entry, or a position plus its entry, repeating a vertex
 *     with another UV) fill the remaining positions and vertex info without changing triangles.
 * The even-row vertices of the lattice columns (even and last) are the coarse mesh (common
 * tier); the tier of every other vertex is chosen with a running balance (then a repair pass) so
 * each LOD tier holds exactly as many positions as vertex-info entries, paired one to one, as
 * Wrench's reader and recovery step require (docs/formats/tfrag.md §10); the common tier takes
 * the other positions and every surplus entry. About a quarter of the patches are all-common
 * ("flat"). The lists follow Wrench's order, so its positional origin is the real one. */
#include "sy_tfrag.h"

#include <math.h> /* sqrt only: IEEE-exact, see design.md §5 */
#include <stdlib.h>
#include <string.h>

#include "sy_vif.h"

/* ---- format constants (docs/formats/tfrag.md) ---- */
#define TF_TABLE_OFS                  0x40u
#define TF_HDR_BYTES                  0x40u
#define TF_LOD_SCALE                  32.0f
#define TF_VU_ADGIF_ADDR              9u     /* header 5 qw + matrix 4 qw */
#define TF_VU_LIMIT                   0x148u /* strips must end at or below this qw address */
#define TF_ROW_2048                   0x45000000u /* float 2048.0: turns a 12-bit fixed value into a float */
#define TF_ADGIF_QW                   5u
#define TF_REG_TEX0_1                 0x06u
#define TF_REG_TEX1_1                 0x14u
#define TF_REG_CLAMP_1                0x08u
#define TF_REG_MIPTBP1_1              0x34u
#define TF_REG_MIPTBP2_1              0x36u
#define TF_MMIN_LINEAR_MIPMAP_NEAREST 4u
#define TF_ALPHA_OPAQUE               0x80u

/* Trailing "light" STROW rows after the origin, at the end of the common and LOD-0 lists. The
 * notes report such rows on the disc (level-assets.md, "The origin"); Wrench writes none, and
 * without them Wrench's write_tfrags reproduces this writer's blocks byte for byte (checked
 * with Wrench's own reader, allocator and writer outside the project). The notes' value,
 * (186, 186, 186, 186), has the shape of the index row (vertex_info_common_addr in all four
 * lanes) the later lists carry, so the rows may be a misreading; kept until settled, and the
 * decoder's origin rule is right either way (docs/formats/tfrag.md §4). */
#define TF_LIGHT_STROW_ROWS 1

/* ---- geometry constants (1/1024 world units) ---- */
#define TF_CELL        57344 /* 56 units: one patch per cell */
#define TF_HALF        28672 /* +-28 units around the cell centre */
#define TF_SKIRT_DEPTH 1536  /* skirts hang 1.5 units */
#define TF_UV_SEAM     4096  /* a seam copy adds 1.0 to s */

/* ---- limits of one patch ---- */
#define TF_MAX_RIB    16
#define TF_MAX_NODES  256 /* vert_count is u8 */
#define TF_MAX_VI     256 /* indices are u8 */
#define TF_MAX_REFS   1536
#define TF_MAX_STRIPS 256
#define TF_MAX_FLEX   256

enum { T_COMMON = 0, T_LOD01 = 1, T_LOD0 = 2, T_NONE = 3 };
enum { K_GRID = 0, K_SKIRT = 1, K_PDUP = 2, K_ORPHAN = 3 };

static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static uint32_t h3(uint32_t a, uint32_t b, uint32_t c)
{
    return mix32(a * 0x9e3779b1u ^ mix32(b + 0x85ebca6bu) ^ mix32(c * 0xc2b2ae35u + 0x27d4eb2fu));
}

/* ---------------------------------------------------------------- the per-patch plan */

typedef struct tf_plan {
    uint16_t P, T, A;            /* exact positions, LOD-0 triangles, ad-gifs */
    uint8_t R, K, w[TF_MAX_RIB]; /* ribbons */
    uint8_t skirt_t[2];          /* skirt triangles under the left / right edge */
    uint8_t orphans, pdups;      /* positions without vi / seam-copy positions */
    uint8_t vdup[3];             /* seam-copy vertex-info entries per tier */
    uint8_t nflex;               /* non-lattice grid, skirt and pdup vertices, in that order */
    uint8_t flex_tier[TF_MAX_FLEX];
    uint8_t flex_l01[TF_MAX_FLEX / 8]; /* bit set: the flex vertex may be LOD-01 */
    uint16_t sites_c;                  /* seam-copy capacity on common vertices (geo_sites) */
    uint16_t vu_used;                  /* VU qw before vertex-info copies */
    uint8_t idx2;                      /* the LOD tiers carry "indices 2" arrays */
    uint8_t flat; /* every vertex common: both LOD tiers empty (unk_06 = unk_0a = 0) */
} tf_plan;

static unsigned skirt_nodes(unsigned t)
{
    return t ? t / 2 + 1 : 0;
}

/* ---------------------------------------------------------------- heightfield */

typedef struct tf_level {
    int32_t ox, oy, oz; /* level offset away from the world origin (1/1024 units) */
    uint32_t seed, gx;
    double cosv[256], sinv[256];
} tf_level;

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* One octave of value noise: lattice values from a hash, smoothstep-blended in 16.16 fixed
 * point, result in [-amp, amp]. Integer-only, so identical on every machine. */
static int64_t noise_octave(const tf_level *L, int64_t x, int64_t y, int64_t cell, int64_t amp,
                            uint32_t oct)
{
    int64_t ix = floordiv(x, cell), iy = floordiv(y, cell);
    int64_t fx = ((x - ix * cell) << 16) / cell, fy = ((y - iy * cell) << 16) / cell;
    int64_t sx = (fx * fx >> 16) * (196608 - 2 * fx) >> 16; /* 3f^2 - 2f^3 */
    int64_t sy = (fy * fy >> 16) * (196608 - 2 * fy) >> 16;
    int64_t v[4];
    for (int k = 0; k < 4; k++) {
        uint32_t hx = (uint32_t)(ix + (k & 1)), hy = (uint32_t)(iy + (k >> 1));
        v[k] = (int64_t)(h3(hx, hy, L->seed * 31u + oct) & 0xffffu) - 32768;
    }
    int64_t a = v[0] + (((v[1] - v[0]) * sx) >> 16);
    int64_t b = v[2] + (((v[3] - v[2]) * sx) >> 16);
    int64_t m = a + (((b - a) * sy) >> 16);
    return m * amp / 32768;
}

static int32_t height_at(const tf_level *L, int64_t x, int64_t y)
{
    int64_t z = noise_octave(L, x, y, 320 * 1024, 40 * 1024, 1);
    z += noise_octave(L, x, y, 64 * 1024, 5 * 1024, 2);
    z += noise_octave(L, x, y, 16 * 1024, 1024, 3);
    return (int32_t)(L->oz + z);
}

/* cos/sin of i*pi/128 by Taylor series in IEEE double (+ - * / only, no libm). */
static void angle_table(tf_level *L)
{
    const double pi = 3.14159265358979323846;
    for (int i = 0; i < 256; i++) {
        int q = i / 64, r = i % 64; /* reduce to [0, pi/2) then rotate by quadrant */
        double a = pi * r / 128.0, a2 = a * a, s = 0, c = 0, ts = a, tc = 1;
        for (int k = 1; k <= 12; k++) {
            s += ts;
            c += tc;
            ts = -ts * a2 / ((2.0 * k) * (2.0 * k + 1));
            tc = -tc * a2 / ((2.0 * k - 1) * (2.0 * k));
        }
        double cs[4] = {c, -s, -c, s}, sn[4] = {s, c, -s, -c};
        L->cosv[i] = cs[q];
        L->sinv[i] = sn[q];
    }
}

/* Direction (x, y, z), unit length, to (azimuth 0..255, elevation -64..64) indices. */
static void dir_to_angles(const tf_level *L, double x, double y, double z, uint8_t *az, int8_t *el)
{
    int lo = -64, hi = 64; /* sin is increasing on [-64, 64] steps */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (L->sinv[(mid + 256) & 255] < z)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > -64 && z - L->sinv[(lo - 1 + 256) & 255] < L->sinv[(lo + 256) & 255] - z)
        lo--;
    *el = (int8_t)lo;
    int best = 0;
    double bd = -1e30;
    for (int i = 0; i < 256; i += 16) {
        double d = x * L->cosv[i] + y * L->sinv[i];
        if (d > bd) {
            bd = d;
            best = i;
        }
    }
    for (int step = 8; step >= 1; step /= 2) {
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            int i = (best + sgn * step + 256) & 255;
            double d = x * L->cosv[i] + y * L->sinv[i];
            if (d > bd) {
                bd = d;
                best = i;
            }
        }
    }
    *az = (uint8_t)best;
}

/* ---------------------------------------------------------------- one patch's mesh */

typedef struct tf_node {
    int32_t x, y, z; /* absolute, 1/1024 units */
    int16_t s, t;    /* UV, 1/4096 */
    uint8_t tier, kind, row;
    int16_t anchor; /* coarse (even-row) node the vertex collapses to: first parent */
    int16_t p1;     /* coarse node of the second parent */
    int16_t src;    /* grid node a copy repeats (itself for grid nodes) */
} tf_node;

typedef struct tf_vi {
    int16_t node;
    uint8_t tier, seam;
} tf_vi;

typedef struct tf_strip {
    uint8_t lod, slot;
    uint16_t first, n;
} tf_strip;

typedef struct tf_geo {
    int nnodes, nvi, nrefs, nstrips;
    tf_node node[TF_MAX_NODES];
    int16_t base_vi[TF_MAX_NODES];
    tf_vi vi[TF_MAX_VI + 8];
    int16_t ref_node[TF_MAX_REFS], ref_vi[TF_MAX_REFS];
    tf_strip strip[TF_MAX_STRIPS];
    int16_t grid[TF_MAX_RIB][9][8]; /* node id of (ribbon, row, column) */
    int32_t cx, cy;                 /* cell centre */
    /* final order */
    int16_t pos_of[TF_MAX_NODES];   /* node -> position index */
    int16_t pos_node[TF_MAX_NODES]; /* position index -> node */
    int16_t vi_of[TF_MAX_VI + 8];   /* vi id -> final index */
    int16_t vi_at[TF_MAX_VI + 8];   /* final index -> vi id */
    int npos[3], nvit[3];
} tf_geo;

static int add_node(tf_geo *g, const tf_node *n)
{
    if (g->nnodes >= TF_MAX_NODES)
        return -1;
    g->node[g->nnodes] = *n;
    return g->nnodes++;
}

static int add_ref(tf_geo *g, int node)
{
    if (g->nrefs >= TF_MAX_REFS)
        return -1;
    g->ref_node[g->nrefs] = (int16_t)node;
    g->ref_vi[g->nrefs] = -1;
    g->nrefs++;
    return 0;
}

static int begin_strip(tf_geo *g, int lod, int slot)
{
    if (g->nstrips >= TF_MAX_STRIPS)
        return -1;
    tf_strip *s = &g->strip[g->nstrips++];
    s->lod = (uint8_t)lod;
    s->slot = (uint8_t)slot;
    s->first = (uint16_t)g->nrefs;
    s->n = 0;
    return 0;
}

static void end_strip(tf_geo *g)
{
    tf_strip *s = &g->strip[g->nstrips - 1];
    s->n = (uint16_t)(g->nrefs - s->first);
}

/* Lattice columns of a ribbon w wide: the even ones and the last. Their even-row vertices are
 * the coarse (LOD-2) mesh and always common. */
static int is_lat(unsigned j, unsigned w)
{
    return j % 2 == 0 || j + 1 == w;
}

static unsigned lat_count(unsigned w)
{
    return (w + 1) / 2 + (w % 2 == 0 ? 1u : 0u);
}

static unsigned plan_ncol(const tf_plan *pl)
{
    unsigned n = 0;
    for (unsigned k = 0; k < pl->K; k++)
        n += pl->w[k];
    return n;
}

/* Builds the patch's vertices and strips from its plan. Flexible vertices take their tier
 * from pl->flex_tier (T_NONE while planning: then they count as LOD-0). Seam copies are not
 * added here (geo_dups). Returns 0 or -1 when a limit is exceeded. */
static int geo_build(const tf_plan *pl, const tf_level *L, uint32_t index, tf_geo *g)
{
    g->nnodes = g->nvi = g->nrefs = g->nstrips = 0;
    unsigned ncol = plan_ncol(pl), R = pl->R, K = pl->K;
    unsigned lcols = ncol - K + 1; /* logical columns: ribbons repeat their shared column */
    uint32_t cellx = index % L->gx, celly = index / L->gx;
    g->cx = L->ox + (int32_t)cellx * TF_CELL + TF_HALF;
    g->cy = L->oy + (int32_t)celly * TF_CELL + TF_HALF;
    unsigned flex = 0;
    unsigned c0 = 0;
    for (unsigned k = 0; k < K; k++) {
        for (unsigned j = 0; j < pl->w[k]; j++) {
            for (unsigned r = 0; r < R; r++) {
                tf_node n;
                memset(&n, 0, sizeof n);
                unsigned lc = c0 + j;
                n.x = g->cx - TF_HALF + (int32_t)((int64_t)TF_CELL * lc / (lcols - 1));
                n.y = g->cy - TF_HALF + (int32_t)((int64_t)TF_CELL * r / (R - 1));
                n.z = height_at(L, n.x, n.y);
                n.s = (int16_t)((n.x - g->cx) / 2);
                n.t = (int16_t)((n.y - g->cy) / 2);
                n.kind = K_GRID;
                n.row = (uint8_t)r;
                n.tier = T_COMMON;
                int id = g->nnodes;
                n.src = (int16_t)id;
                n.anchor = n.p1 = (int16_t)id;
                if ((r & 1) || !is_lat(j, pl->w[k])) {
                    n.tier = flex < pl->nflex ? pl->flex_tier[flex] : T_LOD0;
                    if (n.tier == T_NONE)
                        n.tier = T_LOD0;
                    flex++;
                }
                if (add_node(g, &n) < 0)
                    return -1;
                g->grid[k][r][j] = (int16_t)id;
            }
        }
        c0 += pl->w[k] - 1u;
    }
    /* parents: the lattice vertices around a fine vertex (left/right on an even row, above/below
     * on a lattice column, diagonal otherwise) */
    for (unsigned k = 0; k < K; k++)
        for (unsigned j = 0; j < pl->w[k]; j++)
            for (unsigned r = 0; r < R; r++) {
                int lat = is_lat(j, pl->w[k]);
                if (!(r & 1) && lat)
                    continue;
                tf_node *n = &g->node[g->grid[k][r][j]];
                unsigned r0 = r & 1 ? r - 1 : r, r1 = r & 1 ? r + 1 : r;
                unsigned j0 = lat ? j : j - 1, j1 = lat ? j : j + 1;
                n->anchor = g->grid[k][r0][j0];
                n->p1 = g->grid[k][r1][j1];
            }
    /* skirts: copies of edge vertices dropped by TF_SKIRT_DEPTH */
    int skirt_first[2] = {0, 0};
    for (int e = 0; e < 2; e++) {
        unsigned b = skirt_nodes(pl->skirt_t[e]);
        unsigned k = e ? K - 1 : 0, j = e ? pl->w[K - 1] - 1u : 0;
        skirt_first[e] = g->nnodes;
        for (unsigned i = 0; i < b; i++) {
            const tf_node *top = &g->node[g->grid[k][i][j]];
            tf_node n = *top;
            n.z -= TF_SKIRT_DEPTH;
            n.t = (int16_t)(n.t + 2048); /* the skirt face gets its own strip of texture */
            n.kind = K_SKIRT;
            n.tier = flex < pl->nflex ? pl->flex_tier[flex] : T_LOD0;
            if (n.tier == T_NONE)
                n.tier = T_LOD0;
            flex++;
            n.src = (int16_t)g->grid[k][i][j];
            n.anchor = top->anchor;
            n.p1 = top->p1;
            if (add_node(g, &n) < 0)
                return -1;
        }
    }
    /* orphans: positions no vertex-info entry references (only when the plan has fewer vertex
     * info entries than positions); they repeat grid vertices so they stay inside the sphere */
    int ngrid = (int)(ncol * R);
    for (unsigned i = 0; i < pl->orphans; i++) {
        int srcid = (int)((i * 7u + index) % (unsigned)ngrid);
        tf_node n = g->node[srcid];
        n.kind = K_ORPHAN;
        n.tier = T_COMMON; /* a LOD position without an entry would have no parent */
        n.src = (int16_t)srcid;
        if (add_node(g, &n) < 0)
            return -1;
    }
    /* one base vertex-info entry per referenced vertex */
    for (int i = 0; i < g->nnodes; i++) {
        g->base_vi[i] = -1;
        if (g->node[i].kind == K_ORPHAN)
            continue;
        if (g->nvi >= TF_MAX_VI)
            return -1;
        g->vi[g->nvi].node = (int16_t)i;
        g->vi[g->nvi].tier = g->node[i].tier;
        g->vi[g->nvi].seam = 0;
        g->base_vi[i] = (int16_t)g->nvi++;
    }

    /* texture slots: LOD-0 band strips are numbered s = 0..ns-1 and take slot s*A/ns */
    unsigned segs = (R - 1) / 2, nb = ncol - K, ns = nb * segs;
    unsigned A = pl->A ? pl->A : 1;
#define SLOT_OF(s) ((unsigned)(((s)*A) / ns))
    /* LOD 2: every lattice band (two neighbouring lattice columns) over the even rows */
    unsigned b = 0;
    for (unsigned k = 0; k < K; k++) {
        unsigned w = pl->w[k];
        for (unsigned j = 0; j + 1 < w; j++, b++) {
            if (!is_lat(j, w))
                continue;
            unsigned j2 = is_lat(j + 1, w) ? j + 1 : j + 2;
            if (begin_strip(g, 2, (int)SLOT_OF(b * segs)) < 0)
                return -1;
            for (unsigned r = 0; r < R; r += 2)
                if (add_ref(g, g->grid[k][r][j]) < 0 || add_ref(g, g->grid[k][r][j2]) < 0)
                    return -1;
            end_strip(g);
        }
    }
    /* LOD 1: the same bands, plus the odd rows whose two lattice vertices are common/LOD-01 */
    b = 0;
    for (unsigned k = 0; k < K; k++) {
        unsigned w = pl->w[k];
        for (unsigned j = 0; j + 1 < w; j++, b++) {
            if (!is_lat(j, w))
                continue;
            unsigned j2 = is_lat(j + 1, w) ? j + 1 : j + 2;
            if (begin_strip(g, 1, (int)SLOT_OF(b * segs)) < 0)
                return -1;
            for (unsigned r = 0; r < R; r++) {
                int a = g->grid[k][r][j], c = g->grid[k][r][j2];
                if ((r & 1) && (g->node[a].tier > T_LOD01 || g->node[c].tier > T_LOD01))
                    continue;
                if (add_ref(g, a) < 0 || add_ref(g, c) < 0)
                    return -1;
            }
            end_strip(g);
        }
    }
    /* LOD 0: every band at full resolution, one strip per pair of row steps */
    b = 0;
    for (unsigned k = 0; k < K; k++)
        for (unsigned j = 0; j + 1 < pl->w[k]; j++, b++)
            for (unsigned sg = 0; sg < segs; sg++) {
                if (begin_strip(g, 0, (int)SLOT_OF(b * segs + sg)) < 0)
                    return -1;
                for (unsigned r = 2 * sg; r <= 2 * sg + 2; r++)
                    if (add_ref(g, g->grid[k][r][j]) < 0 || add_ref(g, g->grid[k][r][j + 1]) < 0)
                        return -1;
                end_strip(g);
            }
    /* skirts (LOD 0): top0, bottom0, top1, bottom1, ... [top_b] */
    for (int e = 0; e < 2; e++) {
        unsigned t = pl->skirt_t[e];
        if (!t)
            continue;
        unsigned nbot = skirt_nodes(t), extra = t % 2;
        unsigned k = e ? K - 1 : 0, j = e ? pl->w[K - 1] - 1u : 0;
        if (begin_strip(g, 0, (int)(e ? SLOT_OF(ns - 1) : 0)) < 0)
            return -1;
        for (unsigned i = 0; i < nbot; i++)
            if (add_ref(g, g->grid[k][i][j]) < 0 || add_ref(g, skirt_first[e] + (int)i) < 0)
                return -1;
        if (extra && add_ref(g, g->grid[k][nbot][j]) < 0)
            return -1;
        end_strip(g);
    }
#undef SLOT_OF
    for (int i = 0; i < g->nrefs; i++)
        g->ref_vi[i] = g->base_vi[g->ref_node[i]];
    return 0;
}

/* A site is a LOD-0 strip reference to a vertex that some earlier strip also references:
 * a seam copy may take it over and the original entry stays in use. Reports the capacity
 * (all sites, sites on common vertices, sites on common or LOD-01 vertices). */
static void geo_sites(const tf_geo *g, unsigned *all, unsigned *c, unsigned *c01, uint8_t *mark)
{
    uint8_t seen[TF_MAX_NODES];
    memset(seen, 0, sizeof seen);
    *all = *c = *c01 = 0;
    for (int s = 0; s < g->nstrips; s++) {
        const tf_strip *st = &g->strip[s];
        for (unsigned i = st->first; i < (unsigned)st->first + st->n; i++) {
            int n = g->ref_node[i];
            int site = st->lod == 0 && seen[n];
            seen[n] = 1;
            if (mark)
                mark[i] = (uint8_t)site;
            if (!site)
                continue;
            (*all)++;
            if (g->node[n].tier == T_COMMON)
                (*c)++;
            if (g->node[n].tier <= T_LOD01)
                (*c01)++;
        }
    }
}

/* Adds the seam copies of the plan: vertex-info copies per tier (their vertex must be in that
 * tier or a coarser one) and position copies (tier from the plan's flex list). */
static int geo_dups(const tf_plan *pl, tf_geo *g, unsigned flex_pdup0)
{
    uint8_t mark[TF_MAX_REFS];
    unsigned all, c, c01;
    geo_sites(g, &all, &c, &c01, mark);
    /* visit sites in a spread order: even-numbered ones first, then odd */
    int order[TF_MAX_REFS], no = 0;
    for (int pass = 0; pass < 2; pass++) {
        int cnt = 0;
        for (int i = 0; i < g->nrefs; i++)
            if (mark[i] && (cnt++ % 2) == pass)
                order[no++] = i;
    }
    uint8_t used[TF_MAX_REFS];
    memset(used, 0, sizeof used);
    struct {
        int tier, pdup;
    } want[512];
    int nw = 0;
    for (int t = 0; t < 3; t++)
        for (unsigned i = 0; i < pl->vdup[t]; i++)
            want[nw].tier = t, want[nw++].pdup = 0;
    for (unsigned i = 0; i < pl->pdups; i++) {
        unsigned f = flex_pdup0 + i;
        int t = f < pl->nflex ? pl->flex_tier[f] : T_LOD0;
        want[nw].tier = t == T_NONE ? T_LOD0 : t;
        want[nw++].pdup = 1;
    }
    for (int d = 0; d < nw; d++) {
        int pick = -1;
        for (int o = 0; o < no && pick < 0; o++) {
            int r = order[o];
            if (used[r])
                continue;
            if (!want[d].pdup && g->node[g->ref_node[r]].tier > want[d].tier)
                continue;
            pick = r;
        }
        if (pick < 0 || g->nvi >= TF_MAX_VI)
            return -1;
        used[pick] = 1;
        int n = g->ref_node[pick];
        if (want[d].pdup) {
            tf_node cp = g->node[n];
            cp.kind = K_PDUP;
            cp.tier = (uint8_t)want[d].tier;
            cp.s = (int16_t)(cp.s + TF_UV_SEAM);
            int id = add_node(g, &cp);
            if (id < 0)
                return -1;
            g->base_vi[id] = (int16_t)g->nvi;
            n = id;
        }
        g->vi[g->nvi].node = (int16_t)n;
        g->vi[g->nvi].tier = (uint8_t)want[d].tier;
        g->vi[g->nvi].seam = want[d].pdup ? 0 : 1;
        g->ref_vi[pick] = (int16_t)g->nvi++;
    }
    return 0;
}

/* Final order: positions common ++ LOD-01 ++ LOD-0 (node order inside a tier); vertex info per
 * tier with the seam copies first, so vertex-info index and position index differ. */
static void geo_order(tf_geo *g)
{
    int p = 0;
    for (int t = 0; t < 3; t++) {
        g->npos[t] = 0;
        for (int i = 0; i < g->nnodes; i++)
            if (g->node[i].tier == t) {
                g->pos_of[i] = (int16_t)p;
                g->pos_node[p++] = (int16_t)i;
                g->npos[t]++;
            }
    }
    int v = 0;
    for (int t = 0; t < 3; t++) {
        g->nvit[t] = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < g->nvi; i++) {
                const tf_vi *e = &g->vi[i];
                int copy = e->seam || g->node[e->node].kind == K_PDUP;
                if (e->tier != t || copy != (pass == 0))
                    continue;
                g->vi_of[i] = (int16_t)v;
                g->vi_at[v++] = (int16_t)i;
                g->nvit[t]++;
            }
    }
}

static unsigned lod_tris(const tf_geo *g, int lod)
{
    unsigned t = 0;
    for (int s = 0; s < g->nstrips; s++)
        if (g->strip[s].lod == lod)
            t += g->strip[s].n - 2u;
    return t;
}

static unsigned lod_refs(const tf_geo *g, int lod, unsigned *nstrips)
{
    unsigned n = 0, ns = 0;
    for (int s = 0; s < g->nstrips; s++)
        if (g->strip[s].lod == lod) {
            n += g->strip[s].n;
            ns++;
        }
    if (nstrips)
        *nstrips = ns;
    return n;
}

static unsigned ceil4(unsigned n)
{
    return (n + 3) / 4;
}

/* VU memory layout of one patch (qw addresses, docs/formats/tfrag.md §6). */
typedef struct tf_vu {
    unsigned pos_c, pos_01, pos_0, pos_end, vi_c, vi_01, vi_0, par01, unk01, par0, unk0, idx,
        strips, end;
} tf_vu;

static void vu_layout(const tf_geo *g, unsigned A, unsigned slack, int idx2, tf_vu *u)
{
    u->pos_c = TF_VU_ADGIF_ADDR + TF_ADGIF_QW * A;
    u->pos_01 = u->pos_c + 2u * (unsigned)g->npos[0];
    u->pos_0 = u->pos_01 + 2u * (unsigned)g->npos[1];
    u->pos_end = u->pos_0 + 2u * (unsigned)g->npos[2];
    u->vi_c = u->pos_end + slack;
    u->vi_01 = u->vi_c + (unsigned)g->nvit[0];
    u->vi_0 = u->vi_01 + (unsigned)g->nvit[1];
    u->par01 = u->vi_0 + (unsigned)g->nvit[2];
    u->unk01 = u->par01 + ceil4((unsigned)g->nvit[1]);
    u->par0 = u->unk01 + (idx2 ? ceil4((unsigned)g->nvit[1]) : 0);
    u->unk0 = u->par0 + ceil4((unsigned)g->nvit[2]);
    u->idx = u->unk0 + (idx2 ? ceil4((unsigned)g->nvit[2]) : 0);
    unsigned mi = 0, ms = 0;
    for (int lod = 0; lod < 3; lod++) {
        unsigned ns, n = lod_refs(g, lod, &ns);
        if (n > mi)
            mi = n;
        if (ns + 1 > ms)
            ms = ns + 1;
    }
    u->strips = u->idx + ceil4(mi);
    u->end = u->strips + ms;
}

/* ---------------------------------------------------------------- planning */

/* Largest-remainder split of `total` in proportion to weights (deterministic). */
static void distribute(uint32_t total, const uint32_t *wt, uint32_t n, uint32_t *out)
{
    uint64_t wsum = 0;
    for (uint32_t i = 0; i < n; i++)
        wsum += wt[i];
    uint64_t given = 0;
    for (uint32_t i = 0; i < n; i++) {
        out[i] = (uint32_t)((uint64_t)total * wt[i] / wsum);
        given += out[i];
    }
    uint32_t left = (uint32_t)(total - given), i = 0;
    while (left) { /* hand the rest out round-robin from a hashed start */
        out[(i * 7919u + 13u) % n]++;
        left--;
        i++;
    }
}

/* Chooses ribbons and skirts so positions <= P and triangles == T exactly; the rest of P is
 * filled with seam-copy positions. Returns the number of those (or -1 if impossible). */
static int solve_shape(tf_plan *pl, unsigned P, unsigned T, unsigned A, double phi)
{
    int best = -1, bscore = 0;
    tf_plan bp = *pl;
    static const unsigned rows[4] = {5, 7, 3, 9};
    for (int ri = 0; ri < 4; ri++) {
        unsigned R = rows[ri];
        for (unsigned ncol = 2; ncol * R <= P && ncol <= 8 * TF_MAX_RIB; ncol++) {
            for (unsigned K = (ncol + 7) / 8; K <= ncol / 2 && K <= TF_MAX_RIB; K++) {
                unsigned nb = ncol - K, tg = 2 * (R - 1) * nb;
                if (tg > T || A > nb * ((R - 1) / 2))
                    continue;
                unsigned dt = T - tg, cap = 2 * R - 2;
                if (dt > 2 * cap)
                    continue;
                unsigned t0 = dt <= cap ? dt : (dt + 1) / 2, t1 = dt - t0;
                unsigned used = ncol * R + skirt_nodes(t0) + skirt_nodes(t1);
                if (used > P)
                    continue;
                int e = (int)(P - used);
                /* prefer few copies, then few skirt vertices, then ribbons about 3 wide;
                 * 5 rows win ties (listed first) */
                int dev = (int)(2 * ncol) - (int)(6 * K);
                int score = e * 100 + (int)(used - ncol * R) * 3 + (dev < 0 ? -dev : dev);
                /* the coarse lattice is common: keep it within the share the tier has left */
                unsigned fixed = 0;
                for (unsigned k = 0; k < K; k++)
                    fixed += lat_count(ncol / K + (k < ncol % K ? 1 : 0)) * ((R + 1) / 2);
                double over = (double)fixed - phi * P;
                if (over > 0)
                    score += (int)(over * 60.0);
                if (best >= 0 && score >= bscore)
                    continue;
                best = e;
                bscore = score;
                bp.R = (uint8_t)R;
                bp.K = (uint8_t)K;
                for (unsigned k = 0; k < K; k++)
                    bp.w[k] = (uint8_t)(ncol / K + (k < ncol % K ? 1 : 0));
                bp.skirt_t[0] = (uint8_t)t0;
                bp.skirt_t[1] = (uint8_t)t1;
            }
        }
    }
    if (best >= 0)
        *pl = bp;
    return best;
}

typedef struct tf_tally {
    int64_t cur[3];    /* positions placed per tier (orphans excluded) */
    int64_t cap[3];    /* vertex-info totals: a tier never holds more positions than entries */
    int64_t tgt[3];    /* positions wanted per tier at the end */
    int64_t done, all; /* referenced positions planned so far / in total */
} tf_tally;

/* Picks a tier for a unit of `size` vertices allowed in tiers `mask`: the one furthest behind
 * its running target that still has room. */
static int pick_tier(const tf_tally *ty, unsigned size, unsigned mask)
{
    int best = -1;
    double bd = 0;
    for (int t = 0; t < 3; t++) {
        if (!(mask & (1u << t)) || ty->cur[t] + (int64_t)size > ty->cap[t])
            continue;
        double want = (double)ty->tgt[t] * (double)ty->done / (double)(ty->all ? ty->all : 1);
        double d = want - (double)ty->cur[t];
        if (best < 0 || d > bd) {
            best = t;
            bd = d;
        }
    }
    return best;
}

/* Records the tier of flex vertex f and whether its unit's mask allowed LOD-01 (repair_tiers
 * may move it there later). */
static void set_flex(tf_plan *pl, unsigned f, int tier, unsigned mask)
{
    pl->flex_tier[f] = (uint8_t)tier;
    if (mask & (1u << T_LOD01))
        pl->flex_l01[f / 8] |= (uint8_t)(1u << (f % 8));
    else
        pl->flex_l01[f / 8] &= (uint8_t) ~(1u << (f % 8));
}

static int assign_tiers(tf_plan *pl, tf_tally *ty, unsigned ref_positions)
{
    unsigned mask = pl->flat ? 1u : 7u;
    unsigned R = pl->R, K = pl->K;
    ty->done += ref_positions;
    int64_t fixed = 0; /* even-row lattice vertices: always common */
    for (unsigned k = 0; k < K; k++)
        fixed += (int64_t)lat_count(pl->w[k]) * ((R + 1) / 2);
    if (ty->cur[T_COMMON] + fixed > ty->cap[T_COMMON])
        return -1;
    ty->cur[T_COMMON] += fixed;
    unsigned f = 0;
    /* The other grid vertices, in geo_build's order (ribbon, column, row). Units: per ribbon and
     * row, the lattice-column vertices of an odd row (whole rows keep LOD-1 bands fine), then
     * the non-lattice vertices of the row. */
    for (unsigned k = 0; k < K; k++) {
        unsigned w = pl->w[k];
        int16_t at[8][9];
        unsigned nf = 0;
        for (unsigned j = 0; j < w; j++)
            for (unsigned r = 0; r < R; r++)
                at[j][r] = (int16_t)(((r & 1) || !is_lat(j, w)) ? (int)(f + nf++) : -1);
        for (unsigned r = 0; r < R; r++)
            for (int pass = 0; pass < 2; pass++) {
                unsigned size = 0;
                for (unsigned j = 0; j < w; j++)
                    size += at[j][r] >= 0 && is_lat(j, w) == (pass == 0);
                if (!size)
                    continue;
                /* LOD-01 only where LOD 1 draws it: odd rows of lattice columns */
                unsigned m = pass == 0 ? mask : (mask & 5u);
                int t = pick_tier(ty, size, m);
                for (unsigned j = 0; j < w; j++) {
                    if (at[j][r] < 0 || is_lat(j, w) != (pass == 0))
                        continue;
                    int tt = t >= 0 ? t : pick_tier(ty, 1, m);
                    if (tt < 0)
                        return -1;
                    set_flex(pl, (unsigned)at[j][r], tt, m);
                    ty->cur[tt]++;
                }
            }
        f += nf;
    }
    for (int e = 0; e < 2; e++) {
        unsigned b = skirt_nodes(pl->skirt_t[e]);
        int t = b ? pick_tier(ty, b, mask) : 0;
        for (unsigned i = 0; i < b; i++) {
            int tt = t >= 0 ? t : pick_tier(ty, 1, mask);
            if (tt < 0)
                return -1;
            set_flex(pl, f++, tt, mask);
            ty->cur[tt]++;
        }
    }
    for (unsigned i = 0; i < pl->pdups; i++) {
        int t = pick_tier(ty, 1, mask);
        if (t < 0)
            return -1;
        set_flex(pl, f++, t, mask);
        ty->cur[t]++;
    }
    pl->nflex = (uint8_t)f;
    return 0;
}

/* Moves common flex vertices of non-flat patches into the LOD tiers the greedy pass left short.
 * A LOD tier must end with exactly as many positions as vertex-info entries (Wrench sizes its
 * parent array by the position count and finds a parent only for entries below it, so entries
 * and positions pair one to one), and the greedy pass can stop a few short when the last
 * patches' coarse lattice is common by force. One vertex per patch per round, the patches
 * visited from a hashed start with a stride, so no patch is emptied of common flex vertices. */
static int repair_tiers(tf_plan *pl, uint32_t n, tf_tally *ty, uint32_t seed)
{
    uint32_t stride = n % 7919u ? 7919u % n : 1u; /* 7919 is prime: coprime with n */
    if (stride == 0)
        stride = 1;
    for (int t = T_LOD01; t <= T_LOD0; t++) {
        int64_t need = ty->cap[t] - ty->cur[t];
        for (unsigned round = 0; need > 0 && round < TF_MAX_FLEX; round++) {
            int moved = 0;
            uint32_t at = h3(seed, (uint32_t)t, round) % n;
            for (uint32_t k = 0; k < n && need > 0; k++, at = (at + stride) % n) {
                tf_plan *q = &pl[at];
                if (q->flat)
                    continue;
                for (int f = (int)q->nflex - 1; f >= 0; f--) {
                    int l01 = (q->flex_l01[f / 8] >> (f % 8)) & 1;
                    if (q->flex_tier[f] != T_COMMON || (t == T_LOD01 && !l01))
                        continue;
                    q->flex_tier[f] = (uint8_t)t;
                    ty->cur[T_COMMON]--;
                    ty->cur[t]++;
                    need--;
                    moved = 1;
                    break;
                }
            }
            if (!moved)
                break;
        }
        if (need != 0)
            return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- writing */

typedef struct tf_counts {
    uint64_t pos, tri, vi[3], adgifs;
} tf_counts;

static void put_s16(uint8_t *p, int v)
{
    p[0] = (uint8_t)((unsigned)v & 0xff);
    p[1] = (uint8_t)(((unsigned)v >> 8) & 0xff);
}

static void put_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void write_strips(sy_buf *b, const tf_geo *g, int lod, unsigned addr)
{
    uint8_t rec[4 * (TF_MAX_STRIPS + 1)];
    unsigned n = 0;
    int prev = -1;
    for (int s = 0; s < g->nstrips; s++) {
        const tf_strip *st = &g->strip[s];
        if (st->lod != lod)
            continue;
        int biased = prev < 0 || st->slot != prev; /* the first record always loads an ad-gif */
        rec[4 * n + 0] = (uint8_t)(biased ? (int)st->n - 128 : (int)st->n); /* +0 count/flag */
        rec[4 * n + 1] = 0;                                                 /* +1 y: load ad-gif */
        rec[4 * n + 2] = (uint8_t)(biased ? TF_ADGIF_QW * st->slot : 0);    /* +2 ad-gif qw */
        rec[4 * n + 3] = 0;                                                 /* +3 pad */
        prev = st->slot;
        n++;
    }
    memset(rec + 4 * n, 0, 4); /* terminator */
    n++;
    sy_vif_unpack(b, SY_VIF_V4_8, n, addr, 0, rec);
}

static void write_indices(sy_buf *b, const tf_geo *g, int lod, unsigned addr)
{
    uint8_t idx[TF_MAX_REFS + 4];
    unsigned n = 0;
    for (int s = 0; s < g->nstrips; s++) {
        const tf_strip *st = &g->strip[s];
        if (st->lod != lod)
            continue;
        for (unsigned i = st->first; i < (unsigned)st->first + st->n; i++)
            idx[n++] = (uint8_t)g->vi_of[g->ref_vi[i]];
    }
    while (n % 4)
        idx[n++] = 0;
    sy_vif_unpack(b, SY_VIF_V4_8, n / 4, addr, 1, idx);
}

/* Vertex-info entries of one tier, in final order. */
static void write_vi(sy_buf *b, const tf_geo *g, int tier, unsigned addr)
{
    uint8_t buf[8 * (TF_MAX_VI + 8)];
    unsigned n = 0, first = 0;
    for (int t = 0; t < tier; t++)
        first += (unsigned)g->nvit[t];
    for (unsigned v = first; v < first + (unsigned)g->nvit[tier]; v++) {
        const tf_vi *e = &g->vi[g->vi_at[v]];
        const tf_node *nd = &g->node[e->node];
        int s = nd->s + (e->seam ? TF_UV_SEAM : 0);
        int parent = 0;
        if (tier != T_COMMON)
            parent = 2 * g->pos_of[nd->tier == T_COMMON ? e->node : nd->p1];
        put_s16(buf + 8 * n + 0, s);                      /* +0 s */
        put_s16(buf + 8 * n + 2, nd->t);                  /* +2 t */
        put_s16(buf + 8 * n + 4, parent);                 /* +4 parent: 2 x position */
        put_s16(buf + 8 * n + 6, 2 * g->pos_of[e->node]); /* +6 vertex: 2 x position */
        n++;
    }
    sy_vif_unpack(b, SY_VIF_V4_16, n, addr, 0, buf);
}

/* Parent index array (which = 0) or "indices 2" array (which = 1) of a LOD tier. */
static void write_parents(sy_buf *b, const tf_geo *g, int tier, int which, unsigned addr)
{
    uint8_t buf[TF_MAX_VI + 8];
    unsigned n = 0, first = 0;
    for (int t = 0; t < tier; t++)
        first += (unsigned)g->nvit[t];
    for (unsigned v = first; v < first + (unsigned)g->nvit[tier]; v++) {
        const tf_vi *e = &g->vi[g->vi_at[v]];
        const tf_node *nd = &g->node[e->node];
        int target;
        if (nd->tier == T_COMMON) /* a seam copy of a coarse vertex collapses onto itself */
            target = g->base_vi[nd->kind == K_PDUP ? nd->src : e->node];
        else
            target = which == 0 ? g->base_vi[nd->anchor] : g->base_vi[nd->p1];
        buf[n++] = (uint8_t)g->vi_of[target];
    }
    while (n % 4)
        buf[n++] = 0;
    sy_vif_unpack(b, SY_VIF_V4_8, n / 4, addr, 1, buf);
}

static void write_positions(sy_buf *b, const tf_geo *g, int tier, unsigned addr,
                            const int32_t org[3])
{
    uint8_t buf[6 * TF_MAX_NODES];
    unsigned n = 0, first = 0;
    for (int t = 0; t < tier; t++)
        first += (unsigned)g->npos[t];
    for (unsigned p = first; p < first + (unsigned)g->npos[tier]; p++) {
        const tf_node *nd = &g->node[g->pos_node[p]];
        put_s16(buf + 6 * n + 0, nd->x - org[0]);
        put_s16(buf + 6 * n + 2, nd->y - org[1]);
        put_s16(buf + 6 * n + 4, nd->z - org[2]);
        n++;
    }
    sy_vif_unpack(b, SY_VIF_V3_16, n, addr, 0, buf);
}

static void write_adgif(uint8_t *p, uint32_t lo, uint32_t hi, uint8_t reg)
{
    memset(p, 0, 16);
    put_u32le(p, lo);
    put_u32le(p + 4, hi);
    p[8] = reg;
}

/* The stored vertex colours are dark: the game's lighting pass is what brightens
 * them (retail level 0 patch 0 stores (25, 26, 26) and (92, 121, 119), seed notes
 * level-assets.md "Why the first frame is dark"; 0x80 = 1.0 on the GS). The
 * albedo below is scaled by TF_STORED_NUM / TF_STORED_DEN (0.45) before it is
 * stored, so an unlit frame comes out dark and the lit one brighter. */
#define TF_STORED_NUM 9
#define TF_STORED_DEN 20

/* Vertex colour from height and slope: grass on the flats, rock on the slopes, darker low. */
static void vertex_colour(const tf_level *L, const tf_node *n, int32_t dzx, int32_t dzy,
                          uint8_t rgb[3])
{
    int64_t slope = (int64_t)dzx * dzx + (int64_t)dzy * dzy; /* (dz per 1024)^2 */
    int rock = (int)(slope / 2048);                          /* 0 on flats, 255 at slope ~0.7 */
    if (rock > 255)
        rock = 255;
    int hshade = (int)((n->z - L->oz) / 512); /* +-96 */
    int grain = (int)(h3((uint32_t)n->x, (uint32_t)n->y, L->seed) % 24u) - 12;
    int g0[3] = {72, 128, 52}, r0[3] = {118, 110, 102};
    for (int c = 0; c < 3; c++) {
        int v = (g0[c] * (255 - rock) + r0[c] * rock) / 255 + hshade / 3 + grain;
        v = (v < 8 ? 8 : v > 250 ? 250 : v) * TF_STORED_NUM / TF_STORED_DEN; /* 3..112 */
        rgb[c] = (uint8_t)v;
    }
}

static int write_patch(const tf_plan *pl, const tf_level *L, uint32_t index, tf_geo *g, sy_buf *out,
                       size_t table_pos, size_t block_start, uint32_t *adgif_ctr, uint32_t tex_refd,
                       tf_counts *cnt)
{
    if (geo_build(pl, L, index, g) < 0)
        return -1;
    unsigned flex_pdup0 = pl->nflex - pl->pdups;
    if (geo_dups(pl, g, flex_pdup0) < 0)
        return -1;
    geo_order(g);
    uint32_t hx = h3(index, L->seed, 0xE7u);
    int idx2 = pl->idx2;
    tf_vu vu;
    vu_layout(g, pl->A, hx % 4u, idx2, &vu);
    if (vu.end > TF_VU_LIMIT || g->nnodes > 255)
        return -1;

    /* origin: cell centre, middle of the height range */
    int32_t zmin = INT32_MAX, zmax = INT32_MIN;
    for (int i = 0; i < g->nnodes; i++) {
        if (g->node[i].z < zmin)
            zmin = g->node[i].z;
        if (g->node[i].z > zmax)
            zmax = g->node[i].z;
    }
    int32_t org[3] = {g->cx, g->cy, (int32_t)(((int64_t)zmin + zmax) / 2)};
    for (int i = 0; i < g->nnodes; i++) { /* only a pathological slope needs this: stay s16 */
        if (g->node[i].z > org[2] + 32000)
            g->node[i].z = org[2] + 32000;
        if (g->node[i].z < org[2] - 32000)
            g->node[i].z = org[2] - 32000;
    }
    for (int lod = 0; lod < 3; lod++)
        if (lod_refs(g, lod, NULL) > 1024 || g->nvit[lod] > 256)
            return -1; /* UNPACK num is 8 bits (256 written as 0) */
    uint32_t orow[4] = {(uint32_t)org[0], (uint32_t)org[1], (uint32_t)org[2], 0};
    uint32_t light_v = vu.vi_c + (unsigned)g->nvi;
    if (light_v == orow[0])
        light_v++;

    size_t d = out->len; /* data start, 16-aligned */
    /* LOD-2 list */
    sy_vif_strow(out, vu.vi_c, vu.vi_c, vu.vi_c, vu.vi_c);
    sy_vif_stmod(out, 1);
    write_indices(out, g, 2, vu.idx);
    sy_vif_stmod(out, 0);
    write_strips(out, g, 2, vu.strips);
    sy_vif_align16(out, d);
    size_t shared = out->len - d;
    /* common list */
    uint16_t hdr[20] = {
        (uint16_t)g->npos[0], (uint16_t)g->nvit[0], (uint16_t)g->npos[1], (uint16_t)g->nvit[1],
        (uint16_t)g->npos[2], (uint16_t)g->nvit[2], (uint16_t)vu.pos_c,   (uint16_t)vu.vi_c,
        (uint16_t)vu.pos_01,  (uint16_t)vu.vi_01,   (uint16_t)vu.pos_0,   (uint16_t)vu.vi_0,
        (uint16_t)vu.pos_end, (uint16_t)vu.idx,     (uint16_t)vu.par01,   (uint16_t)vu.unk01,
        (uint16_t)vu.par0,    (uint16_t)vu.unk0,    (uint16_t)vu.strips,  TF_VU_ADGIF_ADDR};
    uint8_t hb[40];
    for (int i = 0; i < 20; i++)
        put_s16(hb + 2 * i, hdr[i]);
    sy_vif_unpack(out, SY_VIF_V4_16, 5, 0, 1, hb);
    uint8_t ad[80 * 64];
    for (unsigned a = 0; a < pl->A; a++) {
        uint32_t g_i = (*adgif_ctr)++;
        uint32_t tex = tex_refd ? (uint32_t)(((uint64_t)g_i * 0x9E3779B1ull) % tex_refd) : 0;
        if (g_i < tex_refd) /* the first tex_refd ad-gifs of a level name every texture once */
            tex = g_i;
        uint32_t ha = h3(index, a, L->seed ^ 0xAD61Fu);
        int k = -89 - (int)(ha % 49u);
        write_adgif(ad + 80 * a + 0, tex, 0, TF_REG_TEX0_1);
        write_adgif(ad + 80 * a + 16, (uint32_t)k & 0xFFFu, TF_MMIN_LINEAR_MIPMAP_NEAREST,
                    TF_REG_TEX1_1);
        write_adgif(ad + 80 * a + 32, (ha >> 8) % 8u == 0 ? 1u : 0u, (ha >> 12) % 11u == 0,
                    TF_REG_CLAMP_1);
        write_adgif(ad + 80 * a + 48, 0, 0, TF_REG_MIPTBP1_1);
        write_adgif(ad + 80 * a + 64, 0, 0, TF_REG_MIPTBP2_1);
    }
    size_t tex_ofs =
        sy_vif_unpack(out, SY_VIF_V4_32, TF_ADGIF_QW * pl->A, TF_VU_ADGIF_ADDR, 0, ad) - d;
    /* Wrench takes the origin positionally, as the sixth code of this list: nothing may come
     * between the two unpacks above and the vertex-info STROW, STMOD and unpack below. */
    sy_vif_strow(out, TF_ROW_2048, TF_ROW_2048, 0, vu.pos_c);
    sy_vif_stmod(out, 1);
    write_vi(out, g, T_COMMON, vu.vi_c);
    sy_vif_strow(out, orow[0], orow[1], orow[2], orow[3]);
    sy_vif_stcycl(out, 1, 2);
    write_positions(out, g, T_COMMON, vu.pos_c, org);
    sy_vif_stcycl(out, 4, 4);
    sy_vif_stmod(out, 0);
    if (TF_LIGHT_STROW_ROWS)
        sy_vif_strow(out, light_v, light_v, light_v, light_v);
    sy_vif_align16(out, d);
    size_t lod1 = out->len - d;
    /* LOD-1 list */
    write_strips(out, g, 1, vu.strips);
    sy_vif_strow(out, vu.vi_c, vu.vi_c, vu.vi_c, vu.vi_c);
    sy_vif_stmod(out, 1);
    write_indices(out, g, 1, vu.idx);
    sy_vif_align16(out, d);
    size_t lod0 = out->len - d;
    /* LOD-01 list: the index row only before index arrays, offset mode only when something
     * here or in the LOD-0 list is unpacked under it (Wrench's write_tfrag_command_lists) */
    if (g->nvit[1])
        sy_vif_strow(out, vu.vi_c, vu.vi_c, vu.vi_c, vu.vi_c);
    if (g->nvit[1] || g->npos[1] || g->npos[2])
        sy_vif_stmod(out, 1);
    if (g->nvit[1]) {
        write_parents(out, g, T_LOD01, 0, vu.par01);
        if (idx2)
            write_parents(out, g, T_LOD01, 1, vu.unk01);
        sy_vif_strow(out, TF_ROW_2048, TF_ROW_2048, vu.pos_c, vu.pos_c);
        write_vi(out, g, T_LOD01, vu.vi_01);
    }
    sy_vif_strow(out, orow[0], orow[1], orow[2], orow[3]);
    sy_vif_stcycl(out, 1, 2);
    if (g->npos[1])
        write_positions(out, g, T_LOD01, vu.pos_01, org);
    sy_vif_align16(out, d);
    size_t lod0_only = out->len - d;
    /* LOD-0 list */
    if (g->npos[2])
        write_positions(out, g, T_LOD0, vu.pos_0, org);
    sy_vif_stmod(out, 0);
    sy_vif_stcycl(out, 4, 4);
    write_strips(out, g, 0, vu.strips);
    sy_vif_strow(out, vu.vi_c, vu.vi_c, vu.vi_c, vu.vi_c);
    sy_vif_stmod(out, 1);
    write_indices(out, g, 0, vu.idx);
    if (g->nvit[2]) {
        write_parents(out, g, T_LOD0, 0, vu.par0);
        if (idx2)
            write_parents(out, g, T_LOD0, 1, vu.unk0);
        sy_vif_strow(out, TF_ROW_2048, TF_ROW_2048, vu.pos_c, vu.pos_c);
        write_vi(out, g, T_LOD0, vu.vi_0);
    }
    sy_vif_stmod(out, 0);
    if (TF_LIGHT_STROW_ROWS)
        sy_vif_strow(out, light_v, light_v, light_v, light_v);
    sy_vif_align16(out, d);
    size_t rgba = out->len - d;

    /* RGBA and light records */
    unsigned P = (unsigned)g->nnodes, rgba_qw = ceil4(P);
    uint8_t *col = calloc((size_t)rgba_qw * 16u + 8u * P + 16u, 1);
    if (!col)
        return -1;
    uint8_t *lrec = col + (size_t)rgba_qw * 16u;
    for (unsigned p = 0; p < P; p++) {
        const tf_node *nd = &g->node[g->pos_node[p]];
        int32_t dzx = height_at(L, nd->x + 512, nd->y) - height_at(L, nd->x - 512, nd->y);
        int32_t dzy = height_at(L, nd->x, nd->y + 512) - height_at(L, nd->x, nd->y - 512);
        uint8_t rgb[3];
        vertex_colour(L, nd, dzx, dzy, rgb);
        if (nd->kind == K_SKIRT)
            for (int c = 0; c < 3; c++)
                rgb[c] = (uint8_t)(rgb[c] * 3 / 4); /* skirt faces are in shadow */
        memcpy(col + 4 * p, rgb, 3);
        col[4 * p + 3] = TF_ALPHA_OPAQUE;
        /* inward normal = -(up normal) = (dz/dx, dz/dy, -1) normalised */
        double nx = dzx / 1024.0, ny = dzy / 1024.0, nz = -1.0;
        double len = sqrt(nx * nx + ny * ny + nz * nz);
        uint8_t az;
        int8_t el;
        dir_to_angles(L, nx / len, ny / len, nz / len, &az, &el);
        uint16_t c555 =
            (uint16_t)((rgb[0] >> 3) | ((rgb[1] >> 3) << 5) | ((rgb[2] >> 3) << 10) | 0x8000u);
        unsigned set = index % 3u == 1u ? 1u : 0u;
        unsigned blend = (index % 5u == 2u && (nd->row & 1u)) ? 0x80u : 0u;
        uint8_t *r = lrec + 8 * p;
        r[0] = 0;                                  /* +0 unknown_0 */
        r[1] = 0x80;                               /* +1 intensity */
        r[2] = az;                                 /* +2 azimuth index */
        r[3] = (uint8_t)el;                        /* +3 elevation index */
        put_s16(r + 4, c555);                      /* +4 base colour 5:5:5:1 */
        put_s16(r + 6, (int)(set | (blend << 8))); /* +6 select: set, blend / 256 */
    }
    sy_buf_put(out, col, (size_t)rgba_qw * 16u);
    size_t light = out->len - d;
    for (int i = 0; i < 4; i++)
        sy_buf_u32(out, orow[i]);
    sy_buf_put(out, lrec, 8u * P);
    free(col);
    sy_buf_align(out, 16);
    size_t msph = out->len - d;

    /* spheres: exact box centre, max distance rounded up */
    double c[3], r2 = 0;
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (unsigned p = 0; p < P; p++) {
        const tf_node *nd = &g->node[p];
        double v[3] = {nd->x / 1024.0, nd->y / 1024.0, nd->z / 1024.0};
        for (int a = 0; a < 3; a++) {
            lo[a] = v[a] < lo[a] ? v[a] : lo[a];
            hi[a] = v[a] > hi[a] ? v[a] : hi[a];
        }
    }
    for (int a = 0; a < 3; a++)
        c[a] = (float)((lo[a] + hi[a]) / 2); /* the radius is measured from the float centre */
    for (unsigned p = 0; p < P; p++) {
        const tf_node *nd = &g->node[p];
        double dx = nd->x / 1024.0 - c[0], dy = nd->y / 1024.0 - c[1], dz = nd->z / 1024.0 - c[2];
        double q = dx * dx + dy * dy + dz * dz;
        r2 = q > r2 ? q : r2;
    }
    float radius = (float)(sqrt(r2) * (1.0 + 1.0 / 4096) + 1.0 / 256);
    unsigned nms = pl->K < 8 ? pl->K : 8;
    {
        int first = 0;
        for (unsigned k = 0; k < nms; k++) { /* one sub-sphere per ribbon */
            int nk = pl->w[k] * pl->R;
            double l2[3] = {1e300, 1e300, 1e300}, h2[3] = {-1e300, -1e300, -1e300}, m = 0;
            for (int i = first; i < first + nk; i++) {
                double v[3] = {g->node[i].x / 1024.0, g->node[i].y / 1024.0, g->node[i].z / 1024.0};
                for (int a = 0; a < 3; a++) {
                    l2[a] = v[a] < l2[a] ? v[a] : l2[a];
                    h2[a] = v[a] > h2[a] ? v[a] : h2[a];
                }
            }
            float mc[3];
            for (int a = 0; a < 3; a++)
                mc[a] = (float)((l2[a] + h2[a]) / 2);
            for (int i = first; i < first + nk; i++) {
                double dx = g->node[i].x / 1024.0 - mc[0], dy = g->node[i].y / 1024.0 - mc[1],
                       dz = g->node[i].z / 1024.0 - mc[2];
                double q = dx * dx + dy * dy + dz * dz;
                m = q > m ? q : m;
            }
            for (int a = 0; a < 3; a++)
                sy_buf_f32(out, mc[a]);
            sy_buf_f32(out, (float)(sqrt(m) * (1.0 + 1.0 / 4096) + 1.0 / 256));
            first += nk;
        }
    }
    size_t cube = out->len - d;
    for (int k = 0; k < 8; k++) {
        int32_t v[3];
        for (int a = 0; a < 3; a++) {
            int32_t mn = INT32_MAX, mx = INT32_MIN;
            for (unsigned p = 0; p < P; p++) {
                int32_t q = a == 0 ? g->node[p].x : a == 1 ? g->node[p].y : g->node[p].z;
                mn = q < mn ? q : mn;
                mx = q > mx ? q : mx;
            }
            v[a] = ((k >> a) & 1) ? mx - org[a] : mn - org[a];
        }
        for (int a = 0; a < 3; a++)
            sy_buf_u16(out, (uint16_t)(int16_t)v[a]);
        sy_buf_u16(out, 0);
    }
    sy_buf_align(out, 16);
    if (out->failed)
        return -1;

    size_t common_qw = (lod1 - shared) / 16, lod2_qw = lod1 / 16;
    size_t lod1_qw = (lod0_only - shared) / 16, lod0_qw = (rgba - lod0) / 16;
    if (common_qw > 255 || lod2_qw > 255 || lod1_qw > 255 || lod0_qw > 255 || out->len - d > 0xFFFF)
        return -1;
    unsigned tris = lod_tris(g, 0);
    if (tris > 255)
        return -1;

    /* patch header */
    uint8_t h[TF_HDR_BYTES];
    memset(h, 0, sizeof h);
    float sph[4] = {(float)c[0], (float)c[1], (float)c[2], radius};
    for (int i = 0; i < 4; i++) {
        uint32_t u;
        memcpy(&u, &sph[i], 4);
        put_u32le(h + 4 * i, u);
    }
    put_u32le(h + 0x10, (uint32_t)(d - (block_start + TF_TABLE_OFS))); /* data: table-relative */
    put_s16(h + 0x14, 0);            /* lod_2_ofs: the LOD-2 list opens the data block */
    put_s16(h + 0x16, (int)shared);  /* shared_ofs */
    put_s16(h + 0x18, (int)lod1);    /* lod_1_ofs */
    put_s16(h + 0x1a, (int)lod0);    /* lod_0_ofs (the LOD-01 list) */
    put_s16(h + 0x1c, (int)tex_ofs); /* tex_ofs: ad-gif payload, 4 past its code word */
    put_s16(h + 0x1e, (int)rgba);    /* rgba_ofs */
    h[0x20] = (uint8_t)common_qw;    /* common_size */
    h[0x21] = (uint8_t)lod2_qw;      /* lod_2_size: LOD-2 + common */
    h[0x22] = (uint8_t)lod1_qw;      /* lod_1_size: common + LOD-1 + LOD-01 */
    h[0x23] = (uint8_t)lod0_qw;      /* lod_0_size: LOD-01 + LOD-0 */
    h[0x24] = (uint8_t)g->npos[0];   /* lod_2_rgba_count (writer's choice) */
    h[0x25] = (uint8_t)(g->npos[0] + g->npos[1]); /* lod_1_rgba_count (writer's choice) */
    h[0x26] = (uint8_t)P;                         /* lod_0_rgba_count (writer's choice) */
    h[0x28] = (uint8_t)pl->A;                     /* texture_count */
    h[0x29] = (uint8_t)rgba_qw;                   /* rgba_size */
    h[0x2c] = (uint8_t)nms;                       /* msphere_count */
    put_s16(h + 0x2e, (int)msph);                 /* msphere_ofs */
    put_s16(h + 0x30, (int)light);                /* light_ofs */
    put_s16(h + 0x32, (int)msph);                 /* light_end_ofs == msphere_ofs on R&C2 */
    h[0x34] = 0xff;                               /* dir_lights_one */
    put_s16(h + 0x36, 0xffff);                    /* point_lights: none (runtime feature) */
    put_s16(h + 0x38, (int)cube);                 /* cube_ofs */
    put_s16(h + 0x3a, (int)index);                /* occl_index */
    h[0x3c] = (uint8_t)P;                         /* vert_count */
    h[0x3d] = (uint8_t)tris;                      /* tri_count: LOD-0 strips */
    memcpy(out->data + table_pos, h, sizeof h);

    cnt->pos += P;
    cnt->tri += tris;
    for (int t = 0; t < 3; t++)
        cnt->vi[t] += (unsigned)g->nvit[t];
    cnt->adgifs += pl->A;
    return 0;
}

/* ---------------------------------------------------------------- the block */

/* Size weight of a flat (all-common) candidate, percent of an ordinary patch's. Every LOD tier
 * holds exactly its vertex-info count of positions, so the common tier is 55% of the retail
 * positions; with the coarse lattice common by force (about 36-40% of a patch), full-size flat
 * patches could be only about one in six. Half-size ones let about a quarter of the patches be
 * flat, the share the notes measured ("finds positions in roughly a quarter of patches"). */
#define FLAT_WEIGHT_PCT 50u

static int plan_level(const sy_tfrag_params *p, const tf_level *L, tf_plan *pl, tf_geo *g,
                      unsigned margin_permille, int flats)
{
    uint32_t n = p->patch_count;
    uint64_t vi_t = (uint64_t)p->vi_common + p->vi_lod01 + p->vi_lod0;
    uint32_t *wt = malloc(sizeof(uint32_t) * n * 6u);
    if (!wt)
        return -1;
    uint32_t *wt2 = wt + n, *P = wt + 2 * n, *T = wt + 3 * n, *A = wt + 4 * n, *O = wt + 5 * n;
    int rc = -1;
    for (uint32_t i = 0; i < n; i++) {
        wt[i] = 800u + h3(i, p->seed, 1) % 401u;
        if (flats && h3(i, p->seed, 5) % 4u == 0)
            wt[i] = wt[i] * FLAT_WEIGHT_PCT / 100u; /* flat candidates are smaller patches */
        wt2[i] = wt[i] * (920u + h3(i, p->seed, 2) % 161u) / 1000u;
    }
    /* Positions no vertex-info entry can reference, when the plan has fewer entries than
     * positions; plus, when asked, a margin of spare entries so the tiers are never filled to
     * the last slot (the caller starts at 0.5%). They are common positions: a LOD position
     * without an entry would have no parent. */
    uint64_t orphans = p->positions > vi_t ? p->positions - vi_t : 0;
    uint64_t margin = (uint64_t)p->positions * margin_permille / 1000u;
    if (vi_t + orphans < (uint64_t)p->positions + margin)
        orphans += (uint64_t)p->positions + margin - vi_t - orphans;
    if (orphans > p->positions / 4u)
        goto out; /* an implausible plan rather than terrain */
    distribute(p->positions, wt, n, P);
    distribute(p->triangles, wt2, n, T);
    distribute(p->adgifs - n, wt, n, A);
    distribute((uint32_t)orphans, wt, n, O);
    tf_tally ty;
    memset(&ty, 0, sizeof ty);
    ty.cap[0] = p->vi_common;
    ty.cap[1] = p->vi_lod01;
    ty.cap[2] = p->vi_lod0;
    ty.all = (int64_t)p->positions - (int64_t)orphans;
    /* Each LOD tier holds exactly as many positions as vertex-info entries, entry i naming
     * position i of its tier (docs/formats/tfrag.md §7: Wrench sizes a tier's parent array by
     * its position count); the common tier takes the other positions, and the surplus of
     * entries over positions is all seam copies in the common tier. */
    ty.tgt[1] = ty.cap[1];
    ty.tgt[2] = ty.cap[2];
    ty.tgt[0] = ty.all - ty.cap[1] - ty.cap[2];
    if (ty.tgt[0] < 0 || ty.tgt[0] > ty.cap[0])
        goto out;
    int64_t carry = 0; /* triangles a patch could not take, handed to the next one */
    for (uint32_t i = 0; i < n; i++) {
        tf_plan *q = &pl[i];
        memset(q, 0, sizeof *q);
        q->P = (uint16_t)P[i];
        q->A = (uint16_t)(1u + A[i]);
        /* a strip's ad-gif offset is a signed byte of 5 qw per record: at most 25 records */
        if (P[i] > 255 || q->A > 25 || O[i] > P[i] / 2)
            goto out;
        q->orphans = (uint8_t)O[i];
        double left = (double)(ty.all - ty.done);
        double phi = left > 0 ? (double)(ty.tgt[0] - ty.cur[0]) / left : 1.0;
        /* the weighted share, or the nearest count this patch's positions can carry */
        int64_t want = (int64_t)T[i] + carry;
        int e = -1;
        int64_t got = want;
        for (int dlt = 0; dlt <= 40 && e < 0; dlt++)
            for (int sg = -1; sg <= 1 && e < 0; sg += 2) {
                got = want + sg * dlt;
                if (got < 1 || got > 255 || (dlt == 0 && sg > 0))
                    continue;
                e = solve_shape(q, P[i] - O[i], (unsigned)got, q->A, phi);
            }
        if (e < 0 || e > 96)
            goto out;
        carry = want - got;
        q->T = (uint16_t)got;
        q->pdups = (uint8_t)e;
        /* about one patch in four is flat while the common tier has room; that leaves the
         * other patches with most of their positions in the LOD lists, as on the disc */
        double after = left - (double)(P[i] - O[i]);
        double room = (double)(ty.tgt[0] - ty.cur[0]) - (double)(P[i] - O[i]);
        q->flat = (uint8_t)(flats && h3(i, p->seed, 5) % 4u == 0 && room >= 0.45 * after);
        tf_tally keep = ty;
        if (assign_tiers(q, &ty, P[i] - O[i]) < 0) {
            if (!q->flat)
                goto out;
            ty = keep;
            q->flat = 0;
            if (assign_tiers(q, &ty, P[i] - O[i]) < 0)
                goto out;
        }
        uint32_t hx = h3(i, p->seed, 0xE7u);
        q->idx2 = (uint8_t)((hx >> 13) % 4u == 0 || i == 1);
    }
    if (carry != 0)
        goto out;
    if (repair_tiers(pl, n, &ty, p->seed) < 0)
        goto out;
    /* the tiers are final: measure each patch's seam-copy sites and VU use */
    for (uint32_t i = 0; i < n; i++) {
        tf_plan *q = &pl[i];
        if (geo_build(q, L, i, g) < 0)
            goto out;
        unsigned all, c, c01;
        geo_sites(g, &all, &c, &c01, NULL);
        if (all < q->pdups)
            goto out;
        unsigned sites = all - q->pdups;
        q->sites_c = (uint16_t)(c < sites ? c : sites);
        /* VU use before vertex-info copies: the layout as planned (worst-case slack), plus
         * each seam-copy position (2 qw position + 1 qw entry + parent slots) */
        geo_order(g);
        tf_vu vu;
        vu_layout(g, q->A, 3, q->idx2, &vu);
        q->vu_used = (uint16_t)(vu.end + 4u * q->pdups + 4u);
    }
    /* vertex-info copies, all in the common tier: what its total still lacks, spread by
     * weight and capped by each patch's sites and VU room */
    {
        int64_t need = ty.cap[0] - ty.cur[0];
        if (need < 0)
            goto out;
        distribute((uint32_t)need, wt, n, A); /* A reused as scratch */
        int64_t spill = 0;
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t i = 0; i < n; i++) {
                tf_plan *q = &pl[i];
                int used = q->vdup[0];
                int capt = q->sites_c - used;
                /* each copy costs 1 qw of vertex info */
                int room = ((int)TF_VU_LIMIT - (int)q->vu_used) * 2 / 3 - used;
                capt = capt < room ? capt : room;
                capt = capt < 60 - used ? capt : 60 - used;
                capt = capt < 0 ? 0 : capt;
                int64_t want = pass == 0 ? (int64_t)A[i] : (spill < capt ? spill : capt);
                int64_t give = want < capt ? want : capt;
                q->vdup[0] = (uint8_t)(q->vdup[0] + give);
                if (pass == 0)
                    spill += want - give;
                else
                    spill -= give;
            }
        if (spill)
            goto out;
    }
    rc = 0;
out:
    free(wt);
    return rc;
}

/* Where a level's terrain sits and how many patch cells wide it is (shared with
 * sy_tfrag_terrain, so the collision mesh lies on the same ground). */
static void place_level(tf_level *L, const sy_tfrag_params *p)
{
    uint32_t hs = mix32(p->seed ^ 0x7F4A7C15u);
    /* terrain hundreds of units away from the world origin, different per level */
    L->ox = (int32_t)(250 + hs % 400u) * 1024;
    L->oy = -(int32_t)(700 + (hs >> 9) % 400u) * 1024;
    L->oz = (int32_t)(40 + (hs >> 18) % 120u) * 1024;
    uint32_t gx = 1;
    while (gx * gx < p->patch_count)
        gx++;
    L->gx = gx;
}

int sy_tfrag_write(const sy_tfrag_params *p, sy_buf *out, sy_tfrag_stats *st)
{
    if (!p || !out || out->failed || out->len % 16 || p->patch_count == 0 ||
        p->patch_count > 0xFFFF || p->adgifs < p->patch_count ||
        p->textures_referenced > p->texture_count || p->textures_referenced == 0 ||
        p->adgifs < p->textures_referenced)
        return -1;
    size_t start = out->len;
    tf_level *L = malloc(sizeof *L);
    tf_plan *pl = malloc(sizeof *pl * p->patch_count);
    tf_geo *g = malloc(sizeof *g);
    int rc = -1;
    if (!L || !pl || !g)
        goto done;
    memset(L, 0, sizeof *L);
    L->seed = p->seed;
    place_level(L, p);
    angle_table(L);
    /* Plan with as few unreferenced positions as the totals allow (keeping 0.5% spare entries
     * so some vertex-info entries always share a position); if the tiers cannot be filled
     * exactly, retry with more spare room. */
    static const unsigned margins[5] = {5, 10, 20, 40, 80}; /* permille; 5 keeps some seams */
    int planned = -1;
    for (int m = 0; m < 10 && planned < 0; m++) /* flat patches first, then without */
        planned = plan_level(p, L, pl, g, margins[m % 5], m < 5);
    if (planned < 0)
        goto done;

    /* block header + table */
    sy_buf_u32(out, TF_TABLE_OFS);
    sy_buf_u32(out, p->patch_count);
    sy_buf_f32(out, TF_LOD_SCALE);
    sy_buf_u32(out, 0);
    sy_buf_zero(out, TF_TABLE_OFS - 16u + (size_t)TF_HDR_BYTES * p->patch_count);
    if (out->failed)
        goto done;
    tf_counts cnt;
    memset(&cnt, 0, sizeof cnt);
    uint32_t adgif_ctr = 0;
    for (uint32_t i = 0; i < p->patch_count; i++) {
        size_t tpos = start + TF_TABLE_OFS + (size_t)TF_HDR_BYTES * i;
        if (write_patch(&pl[i], L, i, g, out, tpos, start, &adgif_ctr, p->textures_referenced,
                        &cnt) < 0)
            goto done;
    }
    if (cnt.pos != p->positions || cnt.tri != p->triangles || cnt.vi[0] != p->vi_common ||
        cnt.vi[1] != p->vi_lod01 || cnt.vi[2] != p->vi_lod0 || cnt.adgifs != p->adgifs)
        goto done; /* a broken promise is an error, not a level */
    if (st) {
        st->patch_count = p->patch_count;
        st->positions = (uint32_t)cnt.pos;
        st->triangles = (uint32_t)cnt.tri;
        st->vi_common = (uint32_t)cnt.vi[0];
        st->vi_lod01 = (uint32_t)cnt.vi[1];
        st->vi_lod0 = (uint32_t)cnt.vi[2];
        st->adgifs = (uint32_t)cnt.adgifs;
        st->block_bytes = out->len - start;
    }
    rc = 0;
done:
    if (rc != 0 && out->len > start)
        out->len = start;
    free(L);
    free(pl);
    free(g);
    return rc;
}

void sy_tfrag_terrain(const sy_tfrag_params *p, sy_terrain *t)
{
    tf_level L;
    L.seed = p->seed;
    place_level(&L, p);
    uint32_t rows = (p->patch_count + L.gx - 1) / (L.gx ? L.gx : 1);
    t->seed = p->seed;
    t->oz = L.oz;
    t->x0 = L.ox, t->y0 = L.oy;
    t->x1 = L.ox + (int32_t)L.gx * TF_CELL;
    t->y1 = L.oy + (int32_t)rows * TF_CELL;
    /* the last row of cells is only partly filled: x1 holds for the full rows below it */
    t->y1_full = L.oy + (int32_t)(p->patch_count / (L.gx ? L.gx : 1)) * TF_CELL;
}

int32_t sy_terrain_height(const sy_terrain *t, int64_t x, int64_t y)
{
    tf_level L; /* height_at reads only the seed and the base height */
    L.seed = t->seed;
    L.oz = t->oz;
    return height_at(&L, x, y);
}
