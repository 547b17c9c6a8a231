/* SPDX-License-Identifier: MIT */
/* Structural promises of the synthetic tfrag block writer (synth/sy_tfrag.c), checked with a
 * test-local VIF walker written from docs/formats/tfrag.md (not the decoder): exact totals,
 * per-patch counts against the lists, spheres, list order, the origin STROW trap, parents,
 * empty-tier address collisions, the rules Wrench's reader and recovery step enforce (the
 * origin as the sixth code of the common list, unpack counts and order per list, parent arrays
 * sized by the tier's position count, a parent for every LOD position), and determinism. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sy_corpus.h"
#include "sy_tfrag.h"
#include "sy_vif.h"

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static float rdf(const uint8_t *p)
{
    uint32_t u = rd32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* ---- mini walker ---- */

enum { L2 = 0, LC, L1, L01, L0, NLISTS };

typedef struct unpack {
    int list;
    unsigned vnvl, num, addr, usn;
    const uint8_t *data;
} unpack;

typedef struct strow {
    int list;
    int code;            /* index of the code in its list (0-based) */
    int before_first_v3; /* seen before the first V3_16 of the common list */
    uint32_t r[4];
} strow;

typedef struct walk {
    unpack u[64];
    int nu;
    strow s[32];
    int ns;
    int ok;
    int ncodes[NLISTS];
    unsigned n_stcol, n_stmask, n_mpg, n_direct, n_nop_inline, odd_v3;
} walk;

static void walk_list(walk *w, const uint8_t *p, size_t len, int list, int *seen_common_v3)
{
    size_t o = 0;
    while (o + 4 <= len) {
        uint32_t code = rd32(p + o);
        unsigned cmd = code >> 24, num = (code >> 16) & 0xff, imm = code & 0xffff;
        int code_index = w->ncodes[list]++;
        o += 4;
        if ((cmd & 0x60) == 0x60) {
            unsigned vn = (cmd >> 2) & 3, vl = cmd & 3, n = num ? num : 256;
            unsigned es = ((32u >> vl) * (vn + 1)) / 8;
            size_t bytes = ((size_t)n * es + 3) & ~(size_t)3;
            if (o + bytes > len || w->nu >= 64) {
                w->ok = 0;
                return;
            }
            unpack *u = &w->u[w->nu++];
            u->list = list;
            u->vnvl = cmd & 0xf;
            u->num = n;
            u->addr = imm & 0x3ff;
            u->usn = (imm >> 14) & 1;
            u->data = p + o;
            if (u->vnvl == 0x9) {
                if (list == LC)
                    *seen_common_v3 = 1;
                if (n % 2)
                    w->odd_v3++;
            }
            o += bytes;
            continue;
        }
        switch (cmd) {
        case 0x30:
        case 0x31:
            if (o + 16 > len) {
                w->ok = 0;
                return;
            }
            if (cmd == 0x30 && w->ns < 32) {
                strow *s = &w->s[w->ns++];
                s->list = list;
                s->code = code_index;
                s->before_first_v3 = !*seen_common_v3;
                for (int i = 0; i < 4; i++)
                    s->r[i] = rd32(p + o + 4 * i);
            } else if (cmd == 0x31)
                w->n_stcol++;
            o += 16;
            break;
        case 0x20:
            w->n_stmask++;
            o += 4;
            break;
        case 0x4a:
            w->n_mpg++;
            o += 8u * (num ? num : 256);
            break;
        case 0x50:
        case 0x51:
            w->n_direct++;
            o += 16u * (imm ? imm : 65536);
            break;
        case 0x00:
        case 0x01:
        case 0x05:
            break;
        default:
            w->ok = 0; /* the writer emits nothing else */
            return;
        }
    }
    if (o != len)
        w->ok = 0;
}

typedef struct level_sum {
    uint64_t patches, pos, tri, vi[3], adgifs, seams, collide01, idx2, later_strow_differs;
    uint64_t n_stcol, n_stmask, n_mpg, n_direct, odd_v3, tri1, tri2;
    uint64_t lod_pos, patches_lod_pos, patches_lod_most, pos_common, orphans, collide0;
    uint8_t tex_used[4096];
} level_sum;

static const unpack *find(const walk *w, int list, unsigned vnvl, unsigned addr, int usn)
{
    for (int i = 0; i < w->nu; i++)
        if (w->u[i].list == list && w->u[i].vnvl == vnvl && w->u[i].addr == addr &&
            (int)w->u[i].usn == usn)
            return &w->u[i];
    return NULL;
}

/* Walks strips of one LOD, checks every index against the LOD's vertex-info range, returns
 * triangles; -1 on a broken list. */
static long strips_of(const walk *w, int list, unsigned strips_addr, unsigned idx_addr,
                      unsigned vi_hi, unsigned nadgif)
{
    const unpack *s = find(w, list, 0xE, strips_addr, 0);
    const unpack *ix = find(w, list, 0xE, idx_addr, 1);
    if (!s || !ix)
        return -1;
    long tris = 0;
    unsigned used = 0;
    for (unsigned r = 0; r < s->num; r++) {
        int8_t x = (int8_t)s->data[4 * r];
        if (x == 0)
            return used <= ix->num * 4 ? tris : -1;
        if (r == 0 && x >= 0)
            return -1; /* the first record always loads an ad-gif */
        unsigned n = x < 0 ? (unsigned)(x + 128) : (unsigned)x;
        if (x < 0 && (unsigned)(int8_t)s->data[4 * r + 2] / 5 >= nadgif)
            return -1;
        for (unsigned i = 0; i < n; i++)
            if (used + i >= ix->num * 4 || ix->data[used + i] >= vi_hi)
                return -1;
        used += n;
        tris += (long)n - 2;
    }
    return -1; /* no terminator */
}

/* Wrench's reading of one patch, restated in docs/formats/tfrag.md §10 from
 * src/engine/tfrag_low.cpp (read_tfrag_command_lists) and src/engine/tfrag_high.cpp
 * (propagate_tface_information): unpacks are taken by their place in each list, the origin is
 * the sixth code of the common list, a tier's parent array is read only when the tier has
 * positions and must hold their count rounded up to 4, and every LOD position must receive
 * both parents. Returns NULL when the patch passes, else the rule it breaks. */
static const char *wrench_reading(const walk *w, const uint16_t *hv, unsigned P, const strow *org)
{
    const unpack *l[NLISTS][16];
    int n[NLISTS] = {0};
    for (int k = 0; k < w->nu; k++) {
        int li = w->u[k].list;
        if (n[li] >= 16)
            return "too many unpacks";
        l[li][n[li]++] = &w->u[k];
    }
    if (n[L2] != 2 || l[L2][0]->vnvl != 0xE || l[L2][1]->vnvl != 0xE)
        return "LOD 2: two V4_8 unpacks (indices, strips)";
    unsigned idx_addr = l[L2][0]->addr, strips_addr = l[L2][1]->addr;
    if (w->ncodes[LC] <= 5)
        return "common: too few codes";
    const strow *sixth = NULL;
    for (int k = 0; k < w->ns; k++)
        if (w->s[k].list == LC && w->s[k].code == 5)
            sixth = &w->s[k];
    if (!sixth || memcmp(sixth->r, org->r, 16) != 0)
        return "common: the sixth code is not the origin STROW";
    static const unsigned common_fmt[4] = {0xD, 0xC, 0xD, 0x9};
    if (n[LC] != 4)
        return "common: four unpacks";
    for (int k = 0; k < 4; k++)
        if (l[LC][k]->vnvl != common_fmt[k])
            return "common: header, ad-gifs, vertex info, positions";
    if (n[L1] != 2 || l[L1][0]->vnvl != 0xE || l[L1][0]->addr != strips_addr ||
        l[L1][1]->vnvl != 0xE || l[L1][1]->addr != idx_addr)
        return "LOD 1: strips then indices at LOD 2's addresses";
    unsigned p01 = hv[2], p0 = hv[4];
    const unpack *par[2] = {NULL, NULL}, *vi[3] = {l[LC][2], NULL, NULL};
    unsigned parlen[2] = {0, 0}, pos[3] = {l[LC][3]->num, 0, 0};
    int i = 0;
    if (i < n[L01] && l[L01][i]->vnvl == 0xE && p01 > 0) {
        par[0] = l[L01][i++];
        if (par[0]->num * 4 < p01 || par[0]->num * 4 - p01 >= 4)
            return "LOD 01: parent array has bad size";
        parlen[0] = p01;
    }
    if (i < n[L01] && l[L01][i]->vnvl == 0xE && l[L01][i]->addr)
        i++; /* indices 2 */
    if (i < n[L01] && l[L01][i]->vnvl == 0xD)
        vi[1] = l[L01][i++];
    if (i < n[L01] && l[L01][i]->vnvl == 0x9)
        pos[1] = l[L01][i++]->num;
    if (i != n[L01])
        return "LOD 01: an unpack Wrench does not read";
    i = 0;
    if (i < n[L0] && l[L0][i]->vnvl == 0x9)
        pos[2] = l[L0][i++]->num;
    if (i + 2 > n[L0] || l[L0][i]->vnvl != 0xE || l[L0][i]->addr != strips_addr ||
        l[L0][i + 1]->vnvl != 0xE || l[L0][i + 1]->addr != idx_addr)
        return "LOD 0: strips then indices at LOD 2's addresses";
    i += 2;
    if (i < n[L0] && l[L0][i]->vnvl == 0xE && p0 > 0) {
        par[1] = l[L0][i++];
        if (par[1]->num * 4 < p0 || par[1]->num * 4 - p0 >= 4)
            return "LOD 0: parent array has bad size";
        parlen[1] = p0;
    }
    if (i < n[L0] && l[L0][i]->vnvl == 0xE)
        i++; /* indices 2 */
    if (i < n[L0] && l[L0][i]->vnvl == 0xD)
        vi[2] = l[L0][i++];
    if (i != n[L0])
        return "LOD 0: an unpack Wrench does not read";
    if (pos[0] + pos[1] + pos[2] != P)
        return "positions do not add up to vert_count";
    /* recovery: parents of every LOD position, the last entry naming it winning */
    int par0[256], par1[256];
    for (unsigned k = 0; k < 256; k++)
        par0[k] = par1[k] = -1;
    const uint8_t *all[768];
    unsigned nall = 0;
    for (int t = 0; t < 3; t++)
        for (unsigned k = 0; vi[t] && k < vi[t]->num && nall < 768; k++)
            all[nall++] = vi[t]->data + 8 * k;
    for (int t = 1; t < 3; t++)
        for (unsigned k = 0; vi[t] && k < vi[t]->num; k++) {
            const uint8_t *e = vi[t]->data + 8 * k;
            int v = (int16_t)rd16(e + 6) / 2;
            if (v < 0 || (unsigned)v >= P)
                return "a LOD entry names no position";
            if (k < parlen[t - 1]) {
                unsigned pi = par[t - 1]->data[k];
                if (pi >= nall)
                    return "a parent index past the vertex info";
                par0[v] = (int16_t)rd16(all[pi] + 6) / 2;
            }
            par1[v] = (int16_t)rd16(e + 4) / 2;
        }
    for (unsigned k = pos[0]; k < P; k++)
        if (par0[k] < 0 || par1[k] < 0 || (unsigned)par0[k] >= P || (unsigned)par1[k] >= P)
            return "recover_tfrags: a LOD position without both parents";
    return NULL;
}

static void check_block(const uint8_t *b, size_t len, const sy_tfrag_params *p, level_sum *ls)
{
    memset(ls, 0, sizeof *ls);
    cr_assert_eq(rd32(b), 0x40u);
    cr_assert_eq(rd32(b + 4), p->patch_count);
    cr_assert_eq(rdf(b + 8), 32.0f);
    const uint8_t *table = b + 0x40;
    for (uint32_t i = 0; i < p->patch_count; i++) {
        const uint8_t *h = table + 0x40 * i;
        size_t data = (size_t)rd32(h + 0x10);
        cr_assert_lt(0x40 + data, len);
        const uint8_t *d = table + data;
        unsigned lod2 = rd16(h + 0x14), shared = rd16(h + 0x16), lod1 = rd16(h + 0x18),
                 lod0 = rd16(h + 0x1a), rgba = rd16(h + 0x1e);
        unsigned lod1_size = h[0x22], l0only = shared + lod1_size * 16u;
        cr_assert_lt(lod2, shared, "LOD-2 list must precede the common list");
        cr_assert(shared < lod1 && lod1 <= lod0 && lod0 <= l0only && l0only <= rgba);
        cr_assert_eq(h[0x20] * 16u, lod1 - shared);
        cr_assert_eq(h[0x21] * 16u, lod1 - lod2);
        cr_assert_eq(h[0x23] * 16u, rgba - lod0);
        cr_assert_eq(rd16(h + 0x1c), shared + 48u);
        walk w;
        memset(&w, 0, sizeof w);
        w.ok = 1;
        int seen = 0;
        /* transfer order */
        walk_list(&w, d + lod2, shared - lod2, L2, &seen);
        walk_list(&w, d + shared, lod1 - shared, LC, &seen);
        walk_list(&w, d + lod1, lod0 - lod1, L1, &seen);
        walk_list(&w, d + lod0, l0only - lod0, L01, &seen);
        walk_list(&w, d + l0only, rgba - l0only, L0, &seen);
        cr_assert(w.ok, "patch %u: VIF walk desynchronised", i);
        const unpack *vh = find(&w, LC, 0xD, 0, 1);
        cr_assert_not_null(vh);
        uint16_t hv[20];
        for (int k = 0; k < 20; k++)
            hv[k] = rd16(vh->data + 2 * k);
        unsigned pc = hv[0], vic = hv[1], p01 = hv[2], vi01 = hv[3], p0 = hv[4], vi0 = hv[5];
        unsigned P = h[0x3c], T = h[0x3d], A = h[0x28];
        /* positions, per tier, at their VU addresses */
        const unpack *uc = find(&w, LC, 0x9, hv[6], 0);
        cr_assert_not_null(uc);
        cr_assert_eq(uc->num, pc);
        unsigned got = pc;
        const unpack *u01 = find(&w, L01, 0x9, hv[6] + 2 * pc, 0);
        const unpack *u0 = find(&w, L0, 0x9, hv[6] + 2 * (pc + p01), 0);
        cr_assert_eq(u01 ? u01->num : 0, p01);
        cr_assert_eq(u0 ? u0->num : 0, p0);
        got += p01 + p0;
        cr_assert_eq(got, P, "patch %u: vert_count %u but lists hold %u", i, P, got);
        /* origin = last STROW before the first common V3_16; later ones differ */
        const strow *org = NULL;
        for (int k = 0; k < w.ns; k++)
            if (w.s[k].before_first_v3)
                org = &w.s[k];
        cr_assert_not_null(org);
        cr_assert_eq(org->list, LC);
        const strow *last = &w.s[w.ns - 1];
        cr_assert(memcmp(last->r, org->r, 16) != 0, "the last STROW must not be the origin");
        ls->later_strow_differs++;
        const uint8_t *light = d + rd16(h + 0x30);
        for (int k = 0; k < 4; k++)
            cr_assert_eq(rd32(light + 4 * k), org->r[k], "light_ofs copy of the origin");
        /* sphere contains every absolute vertex */
        float cx = rdf(h), cy = rdf(h + 4), cz = rdf(h + 8), rad = rdf(h + 12);
        const unpack *tiers[3] = {uc, u01, u0};
        double xyz[256][3];
        unsigned np = 0;
        for (int t = 0; t < 3; t++)
            for (unsigned v = 0; tiers[t] && v < tiers[t]->num; v++, np++) {
                const uint8_t *q = tiers[t]->data + 6 * v;
                for (int a = 0; a < 3; a++)
                    xyz[np][a] = (int16_t)rd16(q + 2 * a) / 1024.0;
                double x = ((int32_t)org->r[0] + (int16_t)rd16(q)) / 1024.0;
                double y = ((int32_t)org->r[1] + (int16_t)rd16(q + 2)) / 1024.0;
                double z = ((int32_t)org->r[2] + (int16_t)rd16(q + 4)) / 1024.0;
                double dd = sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz));
                cr_assert_leq(dd, rad, "patch %u vertex outside its sphere", i);
                cr_assert_gt(fabs(x) + fabs(y), 100.0, "terrain sits away from the origin");
            }
        /* vertex info: vertex = 2 x position index, tiers sized as the VU header says */
        const unpack *vc = find(&w, LC, 0xD, hv[7], 0);
        const unpack *v1 = vi01 ? find(&w, L01, 0xD, hv[9], 0) : NULL;
        const unpack *v0 = vi0 ? find(&w, L0, 0xD, hv[11], 0) : NULL;
        cr_assert_not_null(vc);
        cr_assert_eq(vc->num, vic);
        cr_assert_eq(v1 ? v1->num : 0, vi01);
        cr_assert_eq(v0 ? v0->num : 0, vi0);
        unsigned vit = vic + vi01 + vi0;
        uint8_t refd[256];
        memset(refd, 0, sizeof refd);
        const unpack *vis[3] = {vc, v1, v0};
        for (int t = 0; t < 3; t++)
            for (unsigned v = 0; vis[t] && v < vis[t]->num; v++) {
                int16_t vert = (int16_t)rd16(vis[t]->data + 8 * v + 6);
                cr_assert(vert >= 0 && vert % 2 == 0 && (unsigned)vert / 2 < P);
                if (t == 0)
                    cr_assert_lt((unsigned)vert / 2, pc, "common entries use common positions");
                if (refd[vert / 2]++)
                    ls->seams++;
                if (t > 0) {
                    int16_t par = (int16_t)rd16(vis[t]->data + 8 * v + 4);
                    cr_assert(par >= 0 && par % 2 == 0 && (unsigned)par / 2 < P);
                    cr_assert_lt((unsigned)par / 2, pc, "second parents are coarse vertices");
                    const double *va = xyz[vert / 2], *vb = xyz[par / 2];
                    double dd =
                        sqrt((va[0] - vb[0]) * (va[0] - vb[0]) + (va[1] - vb[1]) * (va[1] - vb[1]) +
                             (va[2] - vb[2]) * (va[2] - vb[2]));
                    cr_assert_leq(dd, 64.0, "a parent is a neighbour in the coarser mesh");
                }
            }
        for (unsigned v = 0; v < P; v++)
            ls->orphans += refd[v] == 0;
        /* each LOD tier pairs its entries with its own positions one to one (so its parent
         * array, sized by the position count, covers every entry), and orphans are common */
        cr_assert_eq(vi01, p01, "patch %u: LOD-01 entries == LOD-01 positions", i);
        cr_assert_eq(vi0, p0, "patch %u: LOD-0 entries == LOD-0 positions", i);
        for (int t = 1; t < 3; t++) {
            uint8_t own[256];
            memset(own, 0, sizeof own);
            unsigned lo = t == 1 ? pc : pc + p01, hi = t == 1 ? pc + p01 : P;
            for (unsigned v = 0; vis[t] && v < vis[t]->num; v++) {
                unsigned vert = (unsigned)(int16_t)rd16(vis[t]->data + 8 * v + 6) / 2;
                cr_assert(vert >= lo && vert < hi, "patch %u: a LOD entry names its own tier", i);
                cr_assert_eq(own[vert]++, 0, "patch %u: one entry per LOD position", i);
            }
        }
        const char *wr = wrench_reading(&w, hv, P, org);
        cr_assert(wr == NULL, "patch %u: Wrench's reading fails: %s", i, wr ? wr : "");
        /* parents: LOD tiers' arrays name common entries */
        if (vi01) {
            const unpack *pa = find(&w, L01, 0xE, hv[14], 1);
            cr_assert_not_null(pa);
            for (unsigned k = 0; k < vi01; k++)
                cr_assert_lt(pa->data[k], vic);
        } else {
            cr_assert_eq(hv[14], hv[16], "empty LOD-01 tier: address collides with the next");
            ls->collide01++;
        }
        if (vi0) {
            const unpack *pa = find(&w, L0, 0xE, hv[16], 1);
            cr_assert_not_null(pa);
            for (unsigned k = 0; k < vi0; k++)
                cr_assert_lt(pa->data[k], vic);
        } else {
            cr_assert_eq(hv[16], hv[17], "empty LOD-0 tier: address collides with the next");
            ls->collide0++;
        }
        if (hv[15] != hv[16] || hv[17] != hv[13])
            ls->idx2++;
        /* strips: LOD 0 gives tri_count; every LOD stays inside its vertex-info range */
        long t0 = strips_of(&w, L0, hv[18], hv[13], vit, A);
        long t1 = strips_of(&w, L1, hv[18], hv[13], vic + vi01, A);
        long t2 = strips_of(&w, L2, hv[18], hv[13], vic, A);
        cr_assert(t0 >= 0 && t1 > 0 && t2 > 0, "patch %u: strips %ld %ld %ld", i, t0, t1, t2);
        cr_assert_eq((unsigned)t0, T, "patch %u tri_count", i);
        cr_assert_leq(t2, t1);
        cr_assert_leq(hv[18] + 1u, 0x148u);
        /* ad-gifs */
        const unpack *ag = find(&w, LC, 0xC, 9, 0);
        cr_assert_not_null(ag);
        cr_assert_eq(ag->num, 5 * A);
        cr_assert_eq(ag->data, d + rd16(h + 0x1c), "tex_ofs points at the ad-gif payload");
        for (unsigned a = 0; a < A; a++) {
            const uint8_t *r = ag->data + 80 * a;
            uint32_t tex = rd32(r);
            cr_assert_lt(tex, p->textures_referenced);
            ls->tex_used[tex] = 1;
            cr_assert_eq(r[8], 0x06);
            cr_assert_eq(r[16 + 8], 0x14);
            uint32_t kf = rd32(r + 16);
            cr_assert_eq(kf & ~0xfffu, 0u, "K is a 12-bit field");
            int k = (int16_t)(kf << 4) >> 4;
            cr_assert(k >= -137 && k <= -89, "K %d", k);
            cr_assert_eq(rd32(r + 20), 4u, "MMIN");
            cr_assert_eq(r[32 + 8], 0x08);
        }
        /* RGBA and light sizes */
        cr_assert_eq(h[0x29], (P + 3) / 4);
        cr_assert_eq(rd16(h + 0x30), rgba + h[0x29] * 16u);
        cr_assert_eq(rd16(h + 0x32), rd16(h + 0x2e));
        cr_assert_geq(rd16(h + 0x2e), rd16(h + 0x30) + 16u + 8u * P);
        cr_assert_eq(h[0x34], 0xff);
        cr_assert_eq(rd16(h + 0x36), 0xffff);
        int coloured = 0;
        for (unsigned v = 0; v < P; v++) {
            const uint8_t *c = d + rgba + 4 * v;
            cr_assert_eq(c[3], 0x80);
            coloured += !(c[0] == c[1] && c[1] == c[2]);
        }
        cr_assert_gt(coloured, 0);
        /* light records: inward normals (the terrain is Z-up, so they point down), base colour
         * 5:5:5:1 matching the vertex colour */
        for (unsigned v = 0; v < P; v++) {
            const uint8_t *r = light + 16 + 8 * v;
            double el = (int8_t)r[3] * 3.14159265358979 / 128.0;
            cr_assert_lt(sin(el), -0.5, "patch %u light %u: normal must point into the ground", i,
                         v);
            uint16_t c = rd16(r + 4);
            const uint8_t *rgb = d + rgba + 4 * v;
            cr_assert_eq(c & 0x1f, rgb[0] >> 3);
            cr_assert_eq((c >> 5) & 0x1f, rgb[1] >> 3);
            cr_assert_eq((c >> 10) & 0x1f, rgb[2] >> 3);
            cr_assert(c & 0x8000);
        }
        ls->patches++;
        ls->pos_common += pc;
        ls->lod_pos += p01 + p0;
        ls->patches_lod_pos += (p01 + p0) > 0;
        ls->patches_lod_most += (p01 + p0) > pc;
        ls->pos += P;
        ls->tri += T;
        ls->tri1 += (unsigned long)t1;
        ls->tri2 += (unsigned long)t2;
        ls->vi[0] += vic;
        ls->vi[1] += vi01;
        ls->vi[2] += vi0;
        ls->adgifs += A;
        ls->n_stcol += w.n_stcol;
        ls->n_stmask += w.n_stmask;
        ls->n_mpg += w.n_mpg;
        ls->n_direct += w.n_direct;
        ls->odd_v3 += w.odd_v3;
    }
}

static void run(const sy_tfrag_params *p, level_sum *ls, sy_buf *keep)
{
    sy_buf b;
    sy_buf_init(&b);
    sy_tfrag_stats st;
    memset(&st, 0, sizeof st);
    cr_assert_eq(sy_tfrag_write(p, &b, &st), 0, "sy_tfrag_write failed");
    cr_assert_eq(st.block_bytes, b.len);
    check_block(b.data, b.len, p, ls);
    cr_assert_eq(ls->patches, p->patch_count);
    cr_assert_eq(ls->pos, p->positions);
    cr_assert_eq(ls->tri, p->triangles);
    cr_assert_eq(ls->vi[0], p->vi_common);
    cr_assert_eq(ls->vi[1], p->vi_lod01);
    cr_assert_eq(ls->vi[2], p->vi_lod0);
    cr_assert_eq(ls->adgifs, p->adgifs);
    cr_assert_eq(st.positions, p->positions);
    cr_assert_eq(st.triangles, p->triangles);
    for (uint32_t t = 0; t < p->textures_referenced; t++)
        cr_assert(ls->tex_used[t], "texture %u never referenced", t);
    cr_assert_gt(ls->seams, 0u, "several entries share one position");
    cr_assert_gt(ls->odd_v3, 0u, "odd V3_16 counts exercise the 2-byte padding");
    /* positions no vertex-info entry references exist only when the plan has fewer entries */
    uint64_t vi = (uint64_t)p->vi_common + p->vi_lod01 + p->vi_lod0;
    uint64_t must = p->positions > vi ? p->positions - vi : 0;
    cr_assert_geq(ls->orphans, must);
    cr_assert_leq(ls->orphans, must + p->positions / 25u);
    if (vi >= (uint64_t)p->positions + p->positions / 20u)
        cr_assert_eq(ls->orphans, 0u, "every position has a vertex-info entry");
    if (keep)
        *keep = b;
    else
        sy_buf_free(&b);
}

/* Level 0's retail totals as the plan gives them. */
static const sy_tfrag_params level0 = {833, 37941, 37939, 23477, 1292, 16689, 2024, 93, 84, 1000};

Test(synth_tfrag, level0_retail_totals)
{
    level_sum ls;
    run(&level0, &ls, NULL);
    /* Wrench's list order (docs/tfrag_renderer.md) has none of these */
    cr_assert_eq(ls.n_stcol, 0u);
    cr_assert_eq(ls.n_stmask, 0u);
    cr_assert_eq(ls.n_mpg, 0u);
    cr_assert_eq(ls.n_direct, 0u);
    cr_assert_gt(ls.collide01, 0u, "some patches have an empty LOD-01 tier");
    cr_assert_gt(ls.idx2, 0u);
    cr_assert_lt(ls.idx2, ls.patches);
    /* a walker that reads only the common list must fail on most patches */
    cr_log_info("level 0: %llu of %llu positions in the LOD lists; %llu/%llu patches with LOD "
                "positions, %llu with more LOD than common; LOD-1 %llu, LOD-2 %llu triangles",
                (unsigned long long)ls.lod_pos, (unsigned long long)ls.pos,
                (unsigned long long)ls.patches_lod_pos, (unsigned long long)ls.patches,
                (unsigned long long)ls.patches_lod_most, (unsigned long long)ls.tri1,
                (unsigned long long)ls.tri2);
    cr_assert_gt(ls.collide0, 0u, "some patches are flat: both LOD tiers empty");
    /* about a quarter of the patches are flat (common-only), as on the disc; most of the others
     * keep most of their positions in the LOD lists */
    cr_assert_geq(ls.patches_lod_pos * 10, ls.patches * 6);
    cr_assert_leq(ls.patches_lod_pos * 10, ls.patches * 9);
    cr_assert_gt(ls.patches_lod_most * 2, ls.patches_lod_pos);
}

/* Fewer vertex-info entries than positions (plan row 3) and other ratios. */
Test(synth_tfrag, other_shapes)
{
    static const sy_tfrag_params sets[] = {
        {1135, 55243, 46063, 29703, 2038, 19127, 3172, 85, 77, 3003},
        {800, 32865, 39322, 21396, 1202, 16477, 2194, 82, 74, 1001},
        {11, 456, 446, 309, 19, 211, 25, 4, 3, 24024},
        {8, 300, 300, 200, 0, 130, 20, 4, 4, 7},
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        level_sum ls;
        run(&sets[i], &ls, NULL);
    }
}

Test(synth_tfrag, deterministic_and_seeded)
{
    sy_buf a, b, c;
    level_sum ls;
    sy_tfrag_params p = {40, 1800, 1790, 1130, 60, 800, 100, 8, 6, 77};
    run(&p, &ls, &a);
    run(&p, &ls, &b);
    cr_assert_eq(a.len, b.len);
    cr_assert(memcmp(a.data, b.data, a.len) == 0, "same params, same bytes");
    p.seed = 78;
    run(&p, &ls, &c);
    cr_assert(a.len != c.len || memcmp(a.data, c.data, a.len) != 0);
    sy_buf_free(&a);
    sy_buf_free(&b);
    sy_buf_free(&c);
}

Test(synth_tfrag, appends_at_offset_and_rejects_bad_params)
{
    sy_buf b;
    sy_buf_init(&b);
    sy_buf_zero(&b, 32);
    sy_tfrag_params p = {10, 450, 440, 290, 15, 200, 25, 5, 5, 3};
    sy_tfrag_stats st;
    cr_assert_eq(sy_tfrag_write(&p, &b, &st), 0);
    cr_assert_eq(rd32(b.data + 32), 0x40u);
    cr_assert_eq(st.block_bytes, b.len - 32);
    size_t len = b.len;
    sy_tfrag_params bad = p;
    bad.triangles = 10 * 300; /* 300 per patch cannot fit a u8 tri_count */
    cr_assert_eq(sy_tfrag_write(&bad, &b, &st), -1);
    cr_assert_eq(b.len, len, "a failed write leaves the buffer as it was");
    bad = p;
    bad.textures_referenced = 6; /* more than the table holds */
    cr_assert_eq(sy_tfrag_write(&bad, &b, &st), -1);
    sy_buf_free(&b);
}

/* The whole retail plan: exact corpus totals (the figures measured on the real disc). */
Test(synth_tfrag, retail_plan_corpus_totals, .timeout = 120)
{
    uint64_t tot[7] = {0};
    for (int lv = 0; lv < SY_LEVEL_COUNT; lv++) {
        const sy_level_plan *pl = sy_plan(SY_SCALE_RETAIL, lv);
        cr_assert_not_null(pl);
        sy_tfrag_params p = {
            pl->tfrag_patches,   pl->tfrag_positions, pl->tfrag_triangles,
            pl->vi_common,       pl->vi_lod01,        pl->vi_lod0,
            pl->tfrag_adgifs,    pl->tfrag_textures,  pl->tfrag_textures_referenced,
            1000u + (uint32_t)lv};
        sy_buf b;
        sy_buf_init(&b);
        sy_tfrag_stats st;
        cr_assert_eq(sy_tfrag_write(&p, &b, &st), 0, "level %d", lv);
        tot[0] += st.patch_count;
        tot[1] += st.positions;
        tot[2] += st.triangles;
        tot[3] += st.vi_common;
        tot[4] += st.vi_lod01;
        tot[5] += st.vi_lod0;
        tot[6] += st.adgifs;
        sy_buf_free(&b);
    }
    cr_assert_eq(tot[0], 18102u);
    cr_assert_eq(tot[1], 821439u);
    cr_assert_eq(tot[2], 809879u);
    cr_assert_eq(tot[3], 516492u);
    cr_assert_eq(tot[4], 29043u);
    cr_assert_eq(tot[5], 341306u);
    cr_assert_eq(tot[6], 47950u);
}

/* ---- the VIF code-word writer on its own ---- */

Test(synth_vif, code_words_and_padding)
{
    sy_buf b;
    sy_buf_init(&b);
    uint8_t pos[75 * 6];
    for (size_t i = 0; i < sizeof pos; i++)
        pos[i] = (uint8_t)(i * 7 + 1);
    size_t at = sy_vif_unpack(&b, SY_VIF_V3_16, 75, 0x12, 0, pos);
    cr_assert_eq(at, 4u);
    cr_assert_eq(rd32(b.data), 0x694b8012u, "V3_16 signed, num 75, flg, addr 0x12");
    cr_assert_eq(b.len, 4u + 452u, "450 payload bytes pad to 452");
    cr_assert_eq(rd16(b.data + 4 + 450), 0, "the padding is zero");
    sy_vif_stcycl(&b, 1, 2);
    cr_assert_eq(rd32(b.data + 456), 0x01000102u);
    sy_vif_stmod(&b, 1);
    cr_assert_eq(rd32(b.data + 460), 0x05000001u);
    sy_vif_strow(&b, 1, 2, 3, 4);
    cr_assert_eq(rd32(b.data + 464), 0x30000000u);
    cr_assert_eq(rd32(b.data + 476), 3u);
    sy_vif_stmask(&b, 0xabcdef01u);
    cr_assert_eq(rd32(b.data + 484), 0x20000000u);
    cr_assert_eq(b.len, 492u);
    uint8_t v48[256 * 4];
    memset(v48, 0x11, sizeof v48);
    sy_vif_unpack(&b, SY_VIF_V4_8, 256, 0x3ff, 1, v48);
    cr_assert_eq(rd32(b.data + 492), 0x6e00c3ffu, "num 256 is written as 0; usn is bit 14");
    cr_assert_eq(b.len, 492u + 4 + 1024);
    /* MPG data 8-aligned, DIRECT data 16-aligned, relative to the list start (0 here) */
    uint32_t code[4] = {0x8000033cu, 0x000002ffu, 0x8000033cu, 0x000002ffu};
    sy_vif_mpg(&b, 0, 0x100, 2, code);
    size_t mpg_data = b.len - 16;
    cr_assert_eq(mpg_data % 8, 0u);
    cr_assert_eq(rd32(b.data + mpg_data - 4), 0x4a020100u);
    uint32_t gif[4] = {0x8001u, 0x10000000u, 0xeu, 0};
    sy_vif_direct(&b, 0, 1, gif);
    size_t dir_data = b.len - 16;
    cr_assert_eq(dir_data % 16, 0u);
    cr_assert_eq(rd32(b.data + dir_data - 4), 0x50000001u);
    sy_vif_align16(&b, 0);
    cr_assert_eq(b.len % 16, 0u);
    cr_assert_eq(sy_vif_elem_bytes(SY_VIF_V4_32), 16u);
    cr_assert_eq(sy_vif_elem_bytes(SY_VIF_V4_16), 8u);
    cr_assert_eq(sy_vif_elem_bytes(SY_VIF_V2_16), 4u);
    sy_buf_free(&b);
}
