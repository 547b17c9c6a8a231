/* SPDX-License-Identifier: MIT */
/* Frame hashing, golden/frames.yaml and level rendering: the canonical
 * layout hashed against sha256sum over bytes this test lays out by hand,
 * golden round trip with stable order and every verdict, malformed golden
 * files, and rendering a hand-built level (tables built here with their own
 * descriptors, so no decoder is involved): not empty, deterministic,
 * sensitive to one vertex, views placed as documented. */
#include <criterion/criterion.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gc_bigmem.h"
#include "gc_frame.h"
#include "gc_golden_frames.h"
#include "gc_raster.h"
#include "gc_render.h"

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "/tmp/gc_test_frame_%ld_%s", (long)getpid(), name);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

/* sha256sum of a file, via the coreutils tool: an independent SHA-256. */
static void sha256sum_file(const char *path, char out[65])
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    cr_assert_eq(fscanf(p, "%64s", out), 1);
    pclose(p);
}

Test(frame, canonical_layout_matches_sha256sum)
{
    uint8_t px[3 * 2 * 4];
    for (int i = 0; i < 24; i++)
        px[i] = (uint8_t)(i * 37 + 5);
    gc_frame f = {3, 2, px, "tiny", "", ""};
    /* docs/golden.md: tag, raster version, width, height (u32 LE), pixel
     * format NUL-padded to 8, view NUL-padded to 32, then the rows. */
    uint8_t bytes[60 + 24];
    memset(bytes, 0, sizeof bytes);
    memcpy(bytes, "GCFRAME1", 8);
    put32(bytes + 8, GC_RS_RASTER_VERSION);
    put32(bytes + 12, 3);
    put32(bytes + 16, 2);
    memcpy(bytes + 20, "RGBA8", 5);
    memcpy(bytes + 28, "tiny", 4);
    memcpy(bytes + 60, px, 24);
    char path[256];
    tmp_path(path, sizeof path, "tiny.bin");
    FILE *fp = fopen(path, "wb");
    cr_assert(fp);
    cr_assert_eq(fwrite(bytes, 1, sizeof bytes, fp), sizeof bytes);
    fclose(fp);
    char want[65], got[65], manifest[128];
    sha256sum_file(path, want);
    unlink(path);
    cr_assert_eq(gc_frame_sha256(&f, got, manifest, sizeof manifest), 0);
    cr_assert_str_eq(got, want);
    char expect_manifest[128];
    snprintf(expect_manifest, sizeof expect_manifest, "GCFRAME1 raster=%d 3x2 RGBA8 view=tiny",
             GC_RS_RASTER_VERSION);
    cr_assert_str_eq(manifest, expect_manifest);

    uint8_t hdr[GC_FRAME_HEADER_BYTES];
    cr_assert_eq(gc_frame_header(&f, hdr), 0);
    cr_assert_eq(memcmp(hdr, bytes, 60), 0);

    /* One bit of one pixel, or the view name, changes the hash. */
    char other[65];
    px[23] ^= 1;
    cr_assert_eq(gc_frame_sha256(&f, other, NULL, 0), 0);
    cr_assert_str_neq(other, got);
    px[23] ^= 1;
    gc_frame g = {3, 2, px, "tinz", "", ""};
    cr_assert_eq(gc_frame_sha256(&g, other, NULL, 0), 0);
    cr_assert_str_neq(other, got);
    /* Same bytes, other shape: 2x3 is not 3x2. */
    gc_frame h = {2, 3, px, "tiny", "", ""};
    cr_assert_eq(gc_frame_sha256(&h, other, NULL, 0), 0);
    cr_assert_str_neq(other, got);
    cr_assert_eq(gc_frame_changed_pixels(&f, &g), 0);
    cr_assert_eq(gc_frame_changed_pixels(&f, &h), UINT64_MAX);
}

Test(frame, bad_frames_refused)
{
    char hex[65];
    gc_frame f = {0, 2, NULL, "x", "", ""};
    cr_assert_eq(gc_frame_sha256(&f, hex, NULL, 0), -1);
    uint8_t px[4] = {0};
    gc_frame g = {1, 1, px, "", "", ""};
    memset(g.view, 'a', sizeof g.view); /* not NUL-terminated within 32 */
    cr_assert_eq(gc_frame_sha256(&g, hex, NULL, 0), -1);
}

static const char *sha_a = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
static const char *sha_b = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

Test(golden, round_trip_stable_order_and_verdicts)
{
    gc_golden_frames g;
    memset(&g, 0, sizeof g);
    const char *m = "GCFRAME1 raster=1 640x448 RGBA8 view=overview";
    cr_assert_eq(gc_golden_frames_set(&g, 12, "overview", sha_a, m), 0);
    cr_assert_eq(gc_golden_frames_set(&g, 3, "overview", sha_b, m), 0);
    cr_assert_eq(
        gc_golden_frames_set(&g, 3, "ground", sha_a, "GCFRAME1 raster=1 640x448 RGBA8 view=ground"),
        0);
    cr_assert_eq(gc_golden_frames_set(&g, 12, "overview", sha_b, m), 0); /* replace */
    cr_assert_eq(g.count, 3);
    cr_assert_eq(gc_golden_frames_set(&g, 1, "Bad View", sha_a, m), -1);
    cr_assert_eq(gc_golden_frames_set(&g, 1, "overview", "abc", m), -1);

    char path[256], err[256] = "";
    tmp_path(path, sizeof path, "frames.yaml");
    cr_assert_eq(gc_golden_frames_save(path, &g, err, sizeof err), 0, "%s", err);
    gc_golden_frames back;
    cr_assert_eq(gc_golden_frames_load(path, &back, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.count, 3);
    /* Stable order: level, then view name. */
    cr_assert_eq(back.v[0].level, 3);
    cr_assert_str_eq(back.v[0].view, "ground");
    cr_assert_eq(back.v[1].level, 3);
    cr_assert_str_eq(back.v[1].view, "overview");
    cr_assert_eq(back.v[2].level, 12);
    cr_assert_str_eq(back.v[2].sha256, sha_b);
    cr_assert_str_eq(back.v[2].manifest, m);

    /* Saving what was loaded gives the same bytes. */
    size_t n1 = 0, n2 = 0;
    char path2[256];
    tmp_path(path2, sizeof path2, "frames2.yaml");
    cr_assert_eq(gc_golden_frames_save(path2, &back, err, sizeof err), 0);
    FILE *a = fopen(path, "rb"), *b = fopen(path2, "rb");
    char ba[4096], bb[4096];
    n1 = fread(ba, 1, sizeof ba, a);
    n2 = fread(bb, 1, sizeof bb, b);
    fclose(a);
    fclose(b);
    cr_assert_eq(n1, n2);
    cr_assert_eq(memcmp(ba, bb, n1), 0);
    unlink(path);
    unlink(path2);

    const gc_golden_frame *e = NULL;
    cr_assert_eq(gc_golden_frames_compare(&back, 3, "overview", sha_b, m, &e), GC_FRAME_MATCH);
    cr_assert(e && e->level == 3);
    cr_assert_eq(gc_golden_frames_compare(&back, 3, "overview", sha_a, m, &e), GC_FRAME_REGRESSED);
    cr_assert_eq(gc_golden_frames_compare(&back, 3, "overview", sha_a,
                                          "GCFRAME1 raster=2 640x448 RGBA8 view=overview", &e),
                 GC_FRAME_MANIFEST_DIFFERS);
    /* A different size is a different manifest too, even with the old hash. */
    cr_assert_eq(gc_golden_frames_compare(&back, 3, "overview", sha_b,
                                          "GCFRAME1 raster=1 320x224 RGBA8 view=overview", &e),
                 GC_FRAME_MANIFEST_DIFFERS);
    cr_assert_eq(gc_golden_frames_compare(&back, 4, "overview", sha_b, m, &e), GC_FRAME_NO_GOLDEN);
    cr_assert_null(e);
    cr_assert_str_eq(gc_frame_verdict_name(GC_FRAME_MANIFEST_DIFFERS), "manifest differs");
    cr_assert_str_eq(gc_frame_verdict_name(GC_FRAME_REGRESSED), "regressed");
    gc_golden_frames_free(&g);
    gc_golden_frames_free(&back);
}

static int load_text(const char *text, char *err, size_t errlen, gc_golden_frames *g)
{
    char path[256];
    tmp_path(path, sizeof path, "bad.yaml");
    FILE *fp = fopen(path, "wb");
    fputs(text, fp);
    fclose(fp);
    int rc = gc_golden_frames_load(path, g, err, errlen);
    unlink(path);
    return rc;
}

Test(golden, missing_empty_and_malformed)
{
    gc_golden_frames g;
    char err[256] = "";
    cr_assert_eq(gc_golden_frames_load("/nonexistent/dir/frames.yaml", &g, err, sizeof err), 0);
    cr_assert_eq(g.count, 0);
    cr_assert_eq(load_text("frames: []\n", err, sizeof err, &g), 0);
    cr_assert_eq(g.count, 0);
    cr_assert_eq(load_text("frames:\n  - level: 1\n    view: ground\n", err, sizeof err, &g), -1);
    cr_assert(strstr(err, ":2:") != NULL, "line number in '%s'", err);
    cr_assert_eq(
        load_text("frames:\n  - level: x\n    view: ground\n    sha256: 00\n    manifest: m\n", err,
                  sizeof err, &g),
        -1);
    cr_assert_eq(load_text("frames: [\n", err, sizeof err, &g), -1);
    char dup[1024];
    snprintf(dup, sizeof dup,
             "frames:\n  - {level: 1, view: ground, sha256: %s, manifest: m}\n"
             "  - {level: 1, view: ground, sha256: %s, manifest: m}\n",
             sha_a, sha_b);
    cr_assert_eq(load_text(dup, err, sizeof err, &g), -1);
    cr_assert(strstr(err, "duplicate") != NULL, "%s", err);
    snprintf(dup, sizeof dup, "frames:\n  - {level: 1, view: ground, sha256: %s, colour: red}\n",
             sha_a);
    cr_assert_eq(load_text(dup, err, sizeof err, &g), -1);
    cr_assert(strstr(err, "unknown key 'colour'") != NULL, "%s", err);
}

/* ---- a hand-built level --------------------------------------------------- */

typedef struct t_block {
    uint64_t file_ofs;
    float lod_scale;
} t_block;
typedef struct t_patch {
    uint64_t file_ofs;
    float cx, cy, cz, radius;
} t_patch;
typedef struct t_vertex {
    uint64_t file_ofs;
    uint32_t patch_row, index;
    uint8_t tier;
    float x, y, z;
    uint8_t r, g, b, a;
} t_vertex;
typedef struct t_vi {
    uint64_t file_ofs;
    uint32_t patch_row, index;
    uint8_t tier;
    float s, t;
    uint32_t vertex, parent0, parent1;
} t_vi;
typedef struct t_tri {
    uint64_t file_ofs;
    uint32_t patch_row;
    uint8_t lod;
    uint32_t a, b, c, va, vb, vc, texture;
} t_tri;

static const gc_column block_cols[] = {GC_COL(t_block, file_ofs, GC_T_U64, 0, "", ""),
                                       GC_COL(t_block, lod_scale, GC_T_F32, 0, "", "")};
static const gc_column patch_cols[] = {
    GC_COL(t_patch, file_ofs, GC_T_U64, 0, "", ""), GC_COL(t_patch, cx, GC_T_F32, 0, "", ""),
    GC_COL(t_patch, cy, GC_T_F32, 0, "", ""), GC_COL(t_patch, cz, GC_T_F32, 0, "", ""),
    GC_COL(t_patch, radius, GC_T_F32, 0, "", "")};
static const gc_column vertex_cols[] = {
    GC_COL(t_vertex, file_ofs, GC_T_U64, 0, "", ""),
    GC_COL(t_vertex, patch_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
    GC_COL(t_vertex, index, GC_T_U32, 0, "", ""),
    GC_COL(t_vertex, tier, GC_T_U8, 0, "", ""),
    GC_COL(t_vertex, x, GC_T_F32, 0, "", ""),
    GC_COL(t_vertex, y, GC_T_F32, 0, "", ""),
    GC_COL(t_vertex, z, GC_T_F32, 0, "", ""),
    GC_COL(t_vertex, r, GC_T_U8, 0, "", ""),
    GC_COL(t_vertex, g, GC_T_U8, 0, "", ""),
    GC_COL(t_vertex, b, GC_T_U8, 0, "", ""),
    GC_COL(t_vertex, a, GC_T_U8, 0, "", "")};
static const gc_column vi_cols[] = {GC_COL(t_vi, file_ofs, GC_T_U64, 0, "", ""),
                                    GC_COL(t_vi, patch_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
                                    GC_COL(t_vi, index, GC_T_U32, 0, "", ""),
                                    GC_COL(t_vi, tier, GC_T_U8, 0, "", ""),
                                    GC_COL(t_vi, s, GC_T_F32, 0, "", ""),
                                    GC_COL(t_vi, t, GC_T_F32, 0, "", ""),
                                    GC_COL(t_vi, vertex, GC_T_U32, 0, "", ""),
                                    GC_COL(t_vi, parent0, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
                                    GC_COL(t_vi, parent1, GC_T_U32, GC_CF_NULL_IF_MAX, "", "")};
static const gc_column tri_cols[] = {GC_COL(t_tri, file_ofs, GC_T_U64, 0, "", ""),
                                     GC_COL(t_tri, patch_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
                                     GC_COL(t_tri, lod, GC_T_U8, 0, "", ""),
                                     GC_COL(t_tri, a, GC_T_U32, 0, "", ""),
                                     GC_COL(t_tri, b, GC_T_U32, 0, "", ""),
                                     GC_COL(t_tri, c, GC_T_U32, 0, "", ""),
                                     GC_COL(t_tri, va, GC_T_U32, 0, "", ""),
                                     GC_COL(t_tri, vb, GC_T_U32, 0, "", ""),
                                     GC_COL(t_tri, vc, GC_T_U32, 0, "", ""),
                                     GC_COL(t_tri, texture, GC_T_U32, GC_CF_NULL_IF_MAX, "", "")};

#define DESC(var, nm, T, cols)                                                                     \
    static const gc_table_desc var = {nm, "", sizeof(T), cols, GC_COUNTOF(cols), NULL, NULL, NULL}
DESC(d_block, "tfrag.block", t_block, block_cols);
DESC(d_patch, "tfrag.patch", t_patch, patch_cols);
DESC(d_vertex, "tfrag.vertex", t_vertex, vertex_cols);
DESC(d_vi, "tfrag.vertex_info", t_vi, vi_cols);
DESC(d_tri, "tfrag.triangle", t_tri, tri_cols);

enum { GRID = 6 }; /* vertices per side per patch */

/* Two patches side by side, each a GRID x GRID sheet of vertices 4 units
 * apart on a gentle slope, coloured by position; every quad two LOD-0
 * triangles. Vertex-info entry i is position i with s, t across the sheet. */
static void build_level(gc_level *lv, gc_rowbuf *rb)
{
    memset(lv, 0, sizeof *lv);
    const gc_table_desc *descs[5] = {&d_block, &d_patch, &d_vertex, &d_vi, &d_tri};
    for (int i = 0; i < 5; i++) {
        memset(&rb[i], 0, sizeof rb[i]);
        rb[i].desc = descs[i];
    }
    lv->tables = rb;
    lv->table_count = 5;
    t_block *blk = gc_rows_push(&rb[0]);
    blk->lod_scale = 32.0f;
    for (uint32_t p = 0; p < 2; p++) {
        t_patch *pt = gc_rows_push(&rb[1]);
        float x0 = 20.0f * (float)p;
        pt->cx = x0 + 10.0f;
        pt->cy = 10.0f;
        pt->cz = 1.0f;
        pt->radius = 15.0f;
        for (uint32_t j = 0; j < GRID; j++)
            for (uint32_t i = 0; i < GRID; i++) {
                t_vertex *v = gc_rows_push(&rb[2]);
                v->patch_row = p;
                v->index = j * GRID + i;
                v->x = x0 + 4.0f * (float)i;
                v->y = 4.0f * (float)j;
                v->z = 0.1f * (float)(i + j);
                v->r = (uint8_t)(40 + 30 * i);
                v->g = (uint8_t)(40 + 30 * j);
                v->b = (uint8_t)(p ? 200 : 60);
                v->a = 0x80;
                t_vi *e = gc_rows_push(&rb[3]);
                e->patch_row = p;
                e->index = j * GRID + i;
                e->s = (float)i / (GRID - 1);
                e->t = (float)j / (GRID - 1);
                e->vertex = j * GRID + i;
                e->parent0 = e->parent1 = UINT32_MAX;
            }
        for (uint32_t j = 0; j + 1 < GRID; j++)
            for (uint32_t i = 0; i + 1 < GRID; i++) {
                uint32_t q[4] = {j * GRID + i, j * GRID + i + 1, (j + 1) * GRID + i + 1,
                                 (j + 1) * GRID + i};
                for (int h = 0; h < 2; h++) {
                    t_tri *t = gc_rows_push(&rb[4]);
                    t->patch_row = p;
                    t->lod = 0;
                    t->a = t->va = q[0];
                    t->b = t->vb = q[h ? 2 : 1];
                    t->c = t->vc = q[h ? 3 : 2];
                    t->texture = UINT32_MAX;
                }
            }
    }
    /* The same sheets at LOD 1 and 2 as two big triangles each, so every
     * LOD the selection might pick draws something. */
    for (uint32_t p = 0; p < 2; p++)
        for (uint8_t lod = 1; lod <= 2; lod++)
            for (int h = 0; h < 2; h++) {
                uint32_t c0 = 0, c1 = GRID - 1, c2 = GRID * GRID - 1, c3 = GRID * (GRID - 1);
                t_tri *t = gc_rows_push(&rb[4]);
                t->patch_row = p;
                t->lod = lod;
                t->a = t->va = c0;
                t->b = t->vb = h ? c2 : c1;
                t->c = t->vc = h ? c3 : c2;
                t->texture = UINT32_MAX;
            }
}

static uint32_t lcg_next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

static void free_level(gc_rowbuf *rb)
{
    for (int i = 0; i < 5; i++)
        gc_big_free(rb[i].data);
}

static uint64_t non_background(const gc_frame *f)
{
    uint64_t n = 0;
    for (size_t i = 0; i < (size_t)f->width * f->height; i++) {
        const uint8_t *p = f->rgba + 4 * i;
        n += !(p[0] == 0x30 && p[1] == 0x38 && p[2] == 0x48);
    }
    return n;
}

Test(render, views_draw_terrain_deterministically)
{
    gc_level lv;
    gc_rowbuf rb[5];
    build_level(&lv, rb);
    const char *const *names;
    int nv = gc_render_view_names(&names);
    cr_assert_eq(nv, 2);
    cr_assert_str_eq(names[0], "overview");
    cr_assert_str_eq(names[1], "ground");
    for (int v = 0; v < nv; v++) {
        gc_frame f1, f2;
        char params[512], err[256] = "", h1[65], h2[65];
        cr_assert_eq(
            gc_render_level(&lv, names[v], 160, 112, &f1, params, sizeof params, err, sizeof err),
            0, "%s", err);
        cr_assert_str_eq(f1.view, names[v]);
        cr_assert(strncmp(params, "view=", 5) == 0 && strstr(params, names[v]), "%s", params);
        uint64_t drawn = non_background(&f1);
        /* The terrain fills a real part of the frame, not a speck, not all. */
        cr_assert_gt(drawn, 160 * 112 / 20, "%s: %llu pixels drawn", names[v],
                     (unsigned long long)drawn);
        cr_assert_eq(gc_render_level(&lv, names[v], 160, 112, &f2, NULL, 0, err, sizeof err), 0);
        cr_assert_eq(gc_frame_sha256(&f1, h1, NULL, 0), 0);
        cr_assert_eq(gc_frame_sha256(&f2, h2, NULL, 0), 0);
        cr_assert_str_eq(h1, h2);
        gc_frame_free(&f2);
        /* Lifting one vertex of the middle of patch 0 changes the picture. */
        t_vertex *vx = (t_vertex *)(void *)rb[2].data;
        vx[2 * GRID + 2].z += 3.0f;
        cr_assert_eq(gc_render_level(&lv, names[v], 160, 112, &f2, NULL, 0, err, sizeof err), 0);
        cr_assert_eq(gc_frame_sha256(&f2, h2, NULL, 0), 0);
        vx[2 * GRID + 2].z -= 3.0f;
        gc_frame_free(&f2);
        gc_frame_free(&f1);
        if (v ==
            0) /* the overview sees all of patch 0; LOD may hide a lone vertex, so only there */
            cr_assert_str_neq(h1, h2, "%s: moving a vertex did not change the frame", names[v]);
    }
    free_level(rb);
}

Test(render, view_placement)
{
    gc_level lv;
    gc_rowbuf rb[5];
    build_level(&lv, rb);
    char err[256] = "";
    gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
    cr_assert(s, "%s", err);
    gc_view_params ov, gr;
    cr_assert_eq(gc_render_scene_view(s, "overview", &ov, err, sizeof err), 0);
    cr_assert_eq(gc_render_scene_view(s, "ground", &gr, err, sizeof err), 0);
    /* Union of spheres (10,10,1,15) and (30,10,1,15): box x -5..45, y -5..25,
     * z -14..16, centre (20,10,1); radius 10 + 15 = 25. */
    cr_assert_eq(ov.union_centre[0], 20.0f);
    cr_assert_eq(ov.union_centre[1], 10.0f);
    cr_assert_eq(ov.union_centre[2], 1.0f);
    cr_assert_eq(ov.union_radius, 25.0f);
    float d[3] = {ov.eye[0] - 20.0f, ov.eye[1] - 10.0f, ov.eye[2] - 1.0f};
    float dist2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    cr_assert(dist2 > 25.0f * 25.0f, "overview eye inside the union");
    cr_assert_eq(ov.target[0], 20.0f);
    /* Ground: the anchor is halfway to the box's min corner, (7.5, 2.5):
     * patch 0 (centre x 10) is nearer than patch 1 (x 30). Eye 2 above
     * the sphere top: z = 1 + 15 + 2. */
    cr_assert_eq(gr.patch, 0);
    cr_assert_eq(gr.eye[0], 10.0f);
    cr_assert_eq(gr.eye[2], 18.0f);
    cr_assert(gr.target[2] < gr.eye[2]);
    char text[512];
    cr_assert_eq(gc_view_params_text(&gr, text, sizeof text), 0);
    cr_assert(strstr(text, "view=ground eye=(10.000,10.000,18.000)") == text, "%s", text);
    cr_assert(strstr(text, "patch=0 "), "%s", text);
    cr_assert_eq(gc_render_scene_view(s, "sideways", &gr, err, sizeof err), -1);
    cr_assert(strstr(err, "sideways"), "%s", err);
    gc_render_scene_free(s);
    free_level(rb);
}

Test(render, missing_tables_is_an_error)
{
    gc_level lv;
    gc_rowbuf rb[5];
    build_level(&lv, rb);
    lv.table_count = 2; /* block and patch only */
    gc_frame f;
    char err[256] = "";
    cr_assert_eq(gc_render_level(&lv, "overview", 64, 64, &f, NULL, 0, err, sizeof err), -1);
    cr_assert(strstr(err, "tfrag"), "%s", err);
    cr_assert_null(f.rgba);
    free_level(rb);
}

/* A triangle whose index points past the patch's positions is skipped and
 * counted, never read out of bounds. */
Test(render, bad_indices_are_skipped)
{
    gc_level lv;
    gc_rowbuf rb[5];
    build_level(&lv, rb);
    t_tri *t = (t_tri *)(void *)rb[4].data;
    t[0].a = t[0].va = 9999;
    t[1].patch_row = 77;
    /* a corner's vertex-info entry naming a position past the patch's: its
     * triangles (the last quad's two at LOD 0) do not resolve, though their
     * va/vb/vc do; one whose vertex is null falls back to the triangle's
     * va/vb/vc; a vertex-info index past the patch's takes va/vb/vc alone */
    t_vi *e = (t_vi *)(void *)rb[3].data;
    e[GRID * GRID - 1].vertex = 5000;
    e[1].vertex = UINT32_MAX;
    t[4].b = 7777;
    char err[256] = "";
    gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
    cr_assert(s, "%s", err);
    gc_frame f;
    cr_assert_eq(gc_render_scene_draw(s, "ground", 64, 64, &f, NULL, err, sizeof err), 0, "%s",
                 err);
    const gc_render_stats *st = gc_render_scene_stats(s);
    cr_assert_eq(st->patches, 2);
    cr_assert_eq(st->patches_by_lod[0], 2, "both patches near: LOD 0");
    cr_assert_eq(st->triangles_bad_index, 3);
    cr_assert_eq(st->triangles_submitted, 2 * 2 * (GRID - 1) * (GRID - 1) - 1 - 3);
    gc_frame_free(&f);
    gc_render_scene_free(s);
    free_level(rb);
}

/* --golden-images: actual, expected and diff PNGs with the changed pixels
 * counted and marked; the expected frame found in DIR/expected/ by name. */
Test(golden, images_actual_expected_diff)
{
    uint8_t a[8 * 4 * 4], b[8 * 4 * 4];
    for (int i = 0; i < 32; i++) {
        a[4 * i] = (uint8_t)(i * 7), a[4 * i + 1] = 100, a[4 * i + 2] = 50, a[4 * i + 3] = 255;
    }
    memcpy(b, a, sizeof a);
    b[4 * 5] ^= 1;     /* pixel 5 */
    b[4 * 17 + 2] = 9; /* pixel 17 */
    b[4 * 31 + 1] = 0; /* pixel 31 */
    gc_frame fa = {8, 4, a, "ground", "", ""}, fb = {8, 4, b, "ground", "", ""};
    char dir[256], err[256] = "", path[512];
    tmp_path(dir, sizeof dir, "goldimg");
    uint64_t changed = 0;
    cr_assert_eq(gc_golden_images_write(dir, 7, "ground", &fa, &fb, &changed, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(changed, 3);
    gc_frame d;
    snprintf(path, sizeof path, "%s/LEVEL7_ground_diff.png", dir);
    cr_assert_eq(gc_frame_load_png(path, "ground", &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.width, 8);
    for (int i = 0; i < 32; i++) {
        int is_changed = i == 5 || i == 17 || i == 31;
        const uint8_t *p = d.rgba + 4 * i;
        cr_assert_eq(p[0] == 255 && p[1] == 0 && p[2] == 255, is_changed, "pixel %d", i);
    }
    gc_frame_free(&d);
    snprintf(path, sizeof path, "%s/LEVEL7_ground_actual.png", dir);
    cr_assert_eq(gc_frame_load_png(path, "ground", &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(memcmp(d.rgba, a, sizeof a), 0);
    gc_frame_free(&d);

    /* No expected frame: nothing to diff unless DIR/expected/ has one. */
    char sub[300];
    snprintf(sub, sizeof sub, "%s/expected", dir);
    cr_assert_eq(gc_golden_images_write(sub, 7, "ground", &fb, NULL, &changed, err, sizeof err), 0);
    cr_assert_eq(changed, UINT64_MAX);
    /* sub now holds LEVEL7_ground_actual.png; name it as --frames-out would. */
    char from[512], to[512];
    snprintf(from, sizeof from, "%s/LEVEL7_ground_actual.png", sub);
    snprintf(to, sizeof to, "%s/LEVEL7_ground.png", sub);
    cr_assert_eq(rename(from, to), 0);
    cr_assert_eq(gc_golden_images_write(dir, 7, "ground", &fa, NULL, &changed, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(changed, 3);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Hostile tables: random indices, NaN, infinite and huge coordinates,
 * absurd LODs and texture coordinates. Rendering must neither crash nor
 * read out of bounds (ASan/UBSan builds run this), and stays deterministic. */
Test(render, hostile_tables_do_not_crash)
{
    uint32_t seed = 777;
    for (int round = 0; round < 20; round++) {
        gc_level lv;
        gc_rowbuf rb[5];
        build_level(&lv, rb);
        static const float weird[] = {0.0f, -0.0f, 1e29f, -1e29f, 1e38f, 3.0e-39f, 65504.0f, -7.5f};
        const uint32_t inf_bits = 0x7f800000u, nan_bits = 0x7fc00000u;
        float inf, nan;
        memcpy(&inf, &inf_bits, sizeof inf);
        memcpy(&nan, &nan_bits, sizeof nan);
        t_vertex *vx = (t_vertex *)(void *)rb[2].data;
        t_vi *vi = (t_vi *)(void *)rb[3].data;
        t_tri *tr = (t_tri *)(void *)rb[4].data;
        t_patch *pt = (t_patch *)(void *)rb[1].data;
        for (int k = 0; k < 40; k++) {
            uint32_t r = lcg_next(&seed);
            float w = (r & 15) == 0 ? nan : (r & 15) == 1 ? inf : weird[(r >> 4) & 7];
            switch ((r >> 8) % 9) {
            case 0:
                vx[r % rb[2].count].x = w;
                break;
            case 1:
                vx[r % rb[2].count].index = r;
                break;
            case 2:
                vi[r % rb[3].count].vertex = r >> 3;
                break;
            case 3:
                vi[r % rb[3].count].s = w;
                break;
            case 4:
                tr[r % rb[4].count].a = r >> 5;
                break;
            case 5:
                tr[r % rb[4].count].lod = (uint8_t)r;
                break;
            case 6:
                tr[r % rb[4].count].patch_row = r & 3;
                break;
            case 7:
                pt[r & 1].radius = w;
                break;
            default:
                vi[r % rb[3].count].tier = (uint8_t)(r & 3);
                vi[r % rb[3].count].parent0 = r >> 7;
                break;
            }
        }
        const char *const *names;
        int nv = gc_render_view_names(&names);
        for (int v = 0; v < nv; v++) {
            gc_frame f1, f2;
            char err[256] = "", h1[65], h2[65];
            int rc1 = gc_render_level(&lv, names[v], 64, 48, &f1, NULL, 0, err, sizeof err);
            int rc2 = gc_render_level(&lv, names[v], 64, 48, &f2, NULL, 0, err, sizeof err);
            cr_assert_eq(rc1, rc2);
            if (rc1 == 0) {
                gc_frame_sha256(&f1, h1, NULL, 0);
                gc_frame_sha256(&f2, h2, NULL, 0);
                cr_assert_str_eq(h1, h2, "round %d view %s", round, names[v]);
            }
            gc_frame_free(&f1);
            gc_frame_free(&f2);
        }
        free_level(rb);
    }
}

/* ---- a synthetic level, decoded by the real decoders ---------------------- */

#include "sy_corpus.h"

/* Level `index` of the small synthetic corpus built into *b (its file: the
 * level points into it) and decoded by every decoder into *lv. */
static void decode_small_level(int index, const char *name, sy_buf *b, gc_level *lv)
{
    sy_options opt = {SY_SCALE_SMALL, 1};
    sy_buf_init(b);
    cr_assert_eq(sy_level_build(&opt, index, b), 0);
    cr_assert_eq(gc_level_init(lv, index, name, b->data, b->len), GC_OK);
    gc_level_decode(lv);
}

/* Level 0 of the small synthetic corpus through every decoder and both
 * views: the frames are textured terrain (textures decoded, no triangle left
 * untextured or unresolved, many distinct colours, a real share of the frame
 * covered) and each view renders to the same bytes twice. */
Test(render, synthetic_level_textured_and_deterministic)
{
    sy_buf b;
    gc_level lv;
    decode_small_level(0, "LEVEL0.WAD", &b, &lv);
    char err[256] = "";
    gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
    cr_assert(s, "%s", err);
    const char *const *names;
    int nv = gc_render_view_names(&names);
    for (int v = 0; v < nv; v++) {
        gc_frame f1, f2;
        gc_view_params vp;
        cr_assert_eq(gc_render_scene_draw(s, names[v], 320, 224, &f1, &vp, err, sizeof err), 0,
                     "%s", err);
        const gc_render_stats *st = gc_render_scene_stats(s);
        cr_assert_gt(st->triangles_submitted, 100, "%s", names[v]);
        cr_assert_eq(st->triangles_untextured, 0, "%s", names[v]);
        cr_assert_eq(st->triangles_bad_index, 0, "%s", names[v]);
        cr_assert_gt(st->textures_decoded, 0);
        cr_assert_eq(st->textures_failed, 0);
        uint64_t drawn = non_background(&f1);
        cr_assert_gt(drawn, 320 * 224 / 8, "%s: %llu pixels drawn", names[v],
                     (unsigned long long)drawn);
        /* Textured, not flat: count distinct RGB values (bitmap of 2^24). */
        uint8_t *seen = calloc(1u << 21, 1);
        cr_assert(seen);
        uint32_t distinct = 0;
        for (size_t i = 0; i < (size_t)320 * 224; i++) {
            const uint8_t *p = f1.rgba + 4 * i;
            uint32_t k = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
            if (!(seen[k >> 3] & (1u << (k & 7)))) {
                seen[k >> 3] |= (uint8_t)(1u << (k & 7));
                distinct++;
            }
        }
        free(seen);
        cr_assert_gt(distinct, 500, "%s: only %u distinct colours", names[v], distinct);
        cr_assert_eq(gc_render_scene_draw(s, names[v], 320, 224, &f2, NULL, err, sizeof err), 0);
        cr_assert_eq(memcmp(f1.rgba, f2.rgba, (size_t)320 * 224 * 4), 0, "%s", names[v]);
        gc_frame_free(&f1);
        gc_frame_free(&f2);
    }
    gc_render_scene_free(s);
    gc_level_free(&lv);
    sy_buf_free(&b);
}

/* gc_render_scene_draw_into: each view drawn into one target that the views
 * share (and that holds the other view's pixels and depths when it is drawn
 * into again) gives the bytes, camera, manifest fields and counters that
 * gc_render_scene_draw gives with a target of its own; the frame's pixels are
 * the target's. */
Test(render, draw_into_a_shared_target_equals_draw)
{
    sy_buf b;
    gc_level lv;
    decode_small_level(3, "LEVEL3.WAD", &b, &lv);
    char err[256] = "";
    gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
    cr_assert(s, "%s", err);
    const char *const *names;
    int nv = gc_render_view_names(&names);
    gc_rs_target t;
    cr_assert_eq(gc_rs_target_init(&t, 320, 224, 0), 0);
    /* the views twice over, so every draw but the first finds another
     * view's frame in the target */
    for (int k = 0; k < 2 * nv; k++) {
        const char *view = names[(k + 1) % nv];
        gc_frame own, into;
        gc_view_params vp_own, vp_into;
        cr_assert_eq(gc_render_scene_draw(s, view, 320, 224, &own, &vp_own, err, sizeof err), 0,
                     "%s", err);
        gc_render_stats st_own = *gc_render_scene_stats(s);
        cr_assert_eq(gc_render_scene_draw_into(s, view, &t, &into, &vp_into, err, sizeof err), 0,
                     "%s", err);
        const gc_render_stats *st_into = gc_render_scene_stats(s);
        cr_assert(into.rgba == t.rgba, "the frame's pixels are the target's");
        cr_assert(into.width == 320 && into.height == 224);
        cr_assert_eq(memcmp(own.rgba, into.rgba, (size_t)320 * 224 * 4), 0, "%s", view);
        cr_assert_eq(memcmp(&vp_own, &vp_into, sizeof vp_own), 0, "%s", view);
        cr_assert_str_eq(own.view, into.view);
        cr_assert_str_eq(own.lighting, into.lighting);
        cr_assert_str_eq(own.objects, into.objects);
        cr_assert_eq(memcmp(&st_own, st_into, sizeof st_own), 0, "%s: counters", view);
        cr_assert_gt(non_background(&into), 320 * 224 / 8, "%s", view);
        gc_frame_free(&own);
    }
    gc_rs_target_free(&t);
    gc_render_scene_free(s);
    gc_level_free(&lv);
    sy_buf_free(&b);
}

/* `gcverify render` end to end: the printed sha256 is the in-process
 * render's, the PNG holds exactly the frame, and --level all prints the same
 * hash in its one-line form. */
Test(render, cli_render_matches_library)
{
    sy_options opt = {SY_SCALE_SMALL, 1};
    sy_buf b;
    sy_buf_init(&b);
    cr_assert_eq(sy_level_build(&opt, 0, &b), 0);
    char dir[256], path[512], png[512], cmd[2048];
    tmp_path(dir, sizeof dir, "cli");
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/level0.wad", dir); /* any case */
    FILE *fp = fopen(path, "wb");
    cr_assert(fp);
    cr_assert_eq(fwrite(b.data, 1, b.len, fp), b.len);
    fclose(fp);

    gc_level lv;
    cr_assert_eq(gc_level_init(&lv, 0, "LEVEL0.WAD", b.data, b.len), GC_OK);
    gc_level_decode(&lv);
    gc_frame f;
    char err[256] = "", want[65];
    cr_assert_eq(gc_render_level(&lv, "ground", 160, 112, &f, NULL, 0, err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(gc_frame_sha256(&f, want, NULL, 0), 0);

    snprintf(png, sizeof png, "%s/g.png", dir);
    snprintf(cmd, sizeof cmd,
             "'%s/gcverify' render --corpus '%s' --level 0 --view ground --width 160 "
             "--height 112 -o '%s'",
             GC_BINARY_DIR, dir, png);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    char line[1024], got[65] = "";
    while (fgets(line, sizeof line, p))
        if (strncmp(line, "sha256", 6) == 0)
            cr_assert_eq(sscanf(line, "sha256 %64s", got), 1);
    cr_assert_eq(pclose(p), 0);
    cr_assert_str_eq(got, want);
    gc_frame back;
    cr_assert_eq(gc_frame_load_png(png, "ground", &back, err, sizeof err), 0, "%s", err);
    cr_assert_eq(back.width, 160);
    cr_assert_eq(back.height, 112);
    cr_assert_eq(memcmp(back.rgba, f.rgba, (size_t)160 * 112 * 4), 0);
    gc_frame_free(&back);

    snprintf(cmd, sizeof cmd,
             "'%s/gcverify' render --corpus '%s' --level all --width 160 --height 112",
             GC_BINARY_DIR, dir);
    p = popen(cmd, "r");
    cr_assert(p);
    int found = 0;
    while (fgets(line, sizeof line, p)) {
        char view[32], sha[80];
        int level;
        if (sscanf(line, "%d %31s %79s", &level, view, sha) == 3 && level == 0 &&
            strcmp(view, "ground") == 0) {
            cr_assert_str_eq(sha, want);
            found = 1;
        }
    }
    cr_assert_neq(pclose(p), 0); /* levels 1..26 are missing: exit 1 */
    cr_assert(found);

    gc_frame_free(&f);
    gc_level_free(&lv);
    sy_buf_free(&b);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ---- objects: hand-built tie and moby tables ------------------------------ */

/* The object tables as docs/fields.md names their columns, built here with
 * their own descriptors (no decoder involved). */
typedef struct o_class {
    uint64_t file_ofs;
} o_class;
typedef struct o_packet {
    uint64_t file_ofs;
    uint32_t class_row;
    uint8_t lod;
    uint8_t rgba_count; /* tie.packet +0xa (only the lit tie's descriptor names it) */
} o_packet;
typedef struct o_vertex {
    uint64_t file_ofs;
    uint32_t packet_row;
    uint16_t index;
    float x, y, z, s, t;
    uint8_t naz, nel; /* moby.vertex normal_azimuth, normal_elevation (the moby table only) */
    uint16_t normal;  /* shrub.vertex normal index (the shrub table only) */
} o_vertex;
typedef struct o_tri {
    uint64_t file_ofs;
    uint32_t packet_row;
    uint8_t lod;
    uint16_t a, b, c;
    uint32_t texture_entry;
} o_tri;
typedef struct o_inst {
    uint64_t file_ofs;
    uint32_t class_row;
    float m[12];   /* c0x c0y c0z c1x .. c3z; the moby table names c3 x, y, z */
    int32_t light; /* moby.instance.light (the moby table only) */
} o_inst;

static const gc_column oc_cols[] = {GC_COL(o_class, file_ofs, GC_T_U64, 0, "", "")};
static const gc_column op_cols[] = {
    GC_COL(o_packet, file_ofs, GC_T_U64, 0, "", ""),
    GC_COL(o_packet, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
    GC_COL(o_packet, lod, GC_T_U8, 0, "", "")};
#define OV_COLS(px, py, pz, ix)                                                                    \
    {                                                                                              \
        GC_COL(o_vertex, file_ofs, GC_T_U64, 0, "", ""),                                           \
            GC_COL(o_vertex, packet_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),                     \
            {ix, GC_T_U16, offsetof(o_vertex, index), 2, 0, "", ""},                               \
            {px, GC_T_F32, offsetof(o_vertex, x), 4, 0, "", ""},                                   \
            {py, GC_T_F32, offsetof(o_vertex, y), 4, 0, "", ""},                                   \
            {pz, GC_T_F32, offsetof(o_vertex, z), 4, 0, "", ""},                                   \
            GC_COL(o_vertex, s, GC_T_F32, 0, "", ""), GC_COL(o_vertex, t, GC_T_F32, 0, "", "")     \
    }
static const gc_column tv_cols[] = OV_COLS("x", "y", "z", "index");
static const gc_column mv_cols[] = {
    GC_COL(o_vertex, file_ofs, GC_T_U64, 0, "", ""),
    GC_COL(o_vertex, packet_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
    {"slot", GC_T_U16, offsetof(o_vertex, index), 2, 0, "", ""},
    {"px", GC_T_F32, offsetof(o_vertex, x), 4, 0, "", ""},
    {"py", GC_T_F32, offsetof(o_vertex, y), 4, 0, "", ""},
    {"pz", GC_T_F32, offsetof(o_vertex, z), 4, 0, "", ""},
    GC_COL(o_vertex, s, GC_T_F32, 0, "", ""),
    GC_COL(o_vertex, t, GC_T_F32, 0, "", ""),
    {"normal_azimuth", GC_T_U8, offsetof(o_vertex, naz), 1, 0, "", ""},
    {"normal_elevation", GC_T_U8, offsetof(o_vertex, nel), 1, 0, "", ""}};
#define OT_COLS(A_, B_, C_)                                                                        \
    {                                                                                              \
        GC_COL(o_tri, file_ofs, GC_T_U64, 0, "", ""),                                              \
            GC_COL(o_tri, packet_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),                        \
            GC_COL(o_tri, lod, GC_T_U8, 0, "", ""),                                                \
            {A_, GC_T_U16, offsetof(o_tri, a), 2, 0, "", ""},                                      \
            {B_, GC_T_U16, offsetof(o_tri, b), 2, 0, "", ""},                                      \
            {C_, GC_T_U16, offsetof(o_tri, c), 2, 0, "", ""},                                      \
            GC_COL(o_tri, texture_entry, GC_T_U32, GC_CF_NULL_IF_MAX, "", "")                      \
    }
static const gc_column tt_cols[] = OT_COLS("a", "b", "c");
static const gc_column mt_cols[] = OT_COLS("v0", "v1", "v2");
#define OI_COL(nm, i)                                                                              \
    {                                                                                              \
        nm, GC_T_F32, offsetof(o_inst, m) + 4 * (i), 4, 0, "", ""                                  \
    }
#define OI_COLS(tx, ty, tz)                                                                        \
    {                                                                                              \
        GC_COL(o_inst, file_ofs, GC_T_U64, 0, "", ""),                                             \
            GC_COL(o_inst, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""), OI_COL("c0x", 0),      \
            OI_COL("c0y", 1), OI_COL("c0z", 2), OI_COL("c1x", 3), OI_COL("c1y", 4),                \
            OI_COL("c1z", 5), OI_COL("c2x", 6), OI_COL("c2y", 7), OI_COL("c2z", 8), OI_COL(tx, 9), \
            OI_COL(ty, 10), OI_COL(tz, 11)                                                         \
    }
static const gc_column ti_cols[] = OI_COLS("c3x", "c3y", "c3z");
static const gc_column mi_cols[] = {GC_COL(o_inst, file_ofs, GC_T_U64, 0, "", ""),
                                    GC_COL(o_inst, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
                                    OI_COL("c0x", 0),
                                    OI_COL("c0y", 1),
                                    OI_COL("c0z", 2),
                                    OI_COL("c1x", 3),
                                    OI_COL("c1y", 4),
                                    OI_COL("c1z", 5),
                                    OI_COL("c2x", 6),
                                    OI_COL("c2y", 7),
                                    OI_COL("c2z", 8),
                                    OI_COL("x", 9),
                                    OI_COL("y", 10),
                                    OI_COL("z", 11),
                                    GC_COL(o_inst, light, GC_T_S32, 0, "", "")};
DESC(d_tie_class, "tie.class", o_class, oc_cols);
DESC(d_tie_packet, "tie.packet", o_packet, op_cols);
DESC(d_tie_vertex, "tie.vertex", o_vertex, tv_cols);
DESC(d_tie_tri, "tie.triangle", o_tri, tt_cols);
DESC(d_tie_inst, "tie.instance", o_inst, ti_cols);
DESC(d_moby_class, "moby.class", o_class, oc_cols);
DESC(d_moby_packet, "moby.packet", o_packet, op_cols);
DESC(d_moby_vertex, "moby.vertex", o_vertex, mv_cols);
DESC(d_moby_tri, "moby.triangle", o_tri, mt_cols);
DESC(d_moby_inst, "moby.instance", o_inst, mi_cols);

enum { OBJ_TABLES = 15 };

/* One class of each kind: a single triangle 6..9 units along local +x,
 * 3 units wide, flat (local z 0); an untextured LOD-1 triangle that must
 * not draw. One instance each, 5 units above the sheets: the tie turned 90
 * degrees about z (local +x -> world +y) at (20, 4, 6), the moby unrotated
 * at (28, 6, 6). */
static void build_objects(gc_level *lv, gc_rowbuf *rb)
{
    build_level(lv, rb);
    const gc_table_desc *descs[10] = {&d_tie_class, &d_tie_packet, &d_tie_vertex,  &d_tie_tri,
                                      &d_tie_inst,  &d_moby_class, &d_moby_packet, &d_moby_vertex,
                                      &d_moby_tri,  &d_moby_inst};
    for (int i = 0; i < 10; i++) {
        memset(&rb[5 + i], 0, sizeof rb[5 + i]);
        rb[5 + i].desc = descs[i];
    }
    lv->table_count = OBJ_TABLES;
    for (int k = 0; k < 2; k++) {
        gc_rowbuf *b = rb + 5 + 5 * k;
        cr_assert(gc_rows_push(&b[0]));
        for (uint8_t lod = 0; lod < 2; lod++) {
            o_packet *p = gc_rows_push(&b[1]);
            p->class_row = 0;
            p->lod = k == 1 ? lod : 0; /* moby: the packet says the LOD */
            static const float lx[3] = {6, 9, 6}, ly[3] = {-1.5f, 0, 1.5f};
            for (uint16_t i = 0; i < 3; i++) {
                o_vertex *v = gc_rows_push(&b[2]);
                v->packet_row = lod;
                v->index = i;
                v->x = lod ? 0.0f : lx[i];
                v->y = lod ? 50.0f * (float)i : ly[i];
                v->z = 0;
            }
            o_tri *t = gc_rows_push(&b[3]);
            t->packet_row = lod;
            t->lod = k == 0 ? lod : 0; /* tie: the triangle says the LOD */
            t->a = 0, t->b = 1, t->c = 2;
            t->texture_entry = UINT32_MAX;
        }
        o_inst *in = gc_rows_push(&b[4]);
        in->class_row = 0;
        static const float tie_m[12] = {0, 1, 0, -1, 0, 0, 0, 0, 1, 20, 4, 6},
                           moby_m[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 28, 6, 6};
        memcpy(in->m, k ? moby_m : tie_m, sizeof in->m);
    }
}

static void free_objects(gc_rowbuf *rb)
{
    for (int i = 0; i < OBJ_TABLES; i++)
        gc_big_free(rb[i].data);
}

/* Where world point p lands, from the view's camera in double precision:
 * right = forward x up, screen y down, principal point at the centre. */
static void project(const gc_view_params *vp, const double p[3], uint32_t w, uint32_t h, double *sx,
                    double *sy)
{
    double f[3], r[3], u[3], d[3];
    double fl = 0, rl = 0;
    for (int i = 0; i < 3; i++) {
        f[i] = (double)vp->target[i] - vp->eye[i];
        d[i] = p[i] - vp->eye[i];
        fl += f[i] * f[i];
    }
    for (int i = 0; i < 3; i++)
        f[i] /= sqrt(fl);
    r[0] = f[1] * vp->up[2] - f[2] * vp->up[1];
    r[1] = f[2] * vp->up[0] - f[0] * vp->up[2];
    r[2] = f[0] * vp->up[1] - f[1] * vp->up[0];
    for (int i = 0; i < 3; i++)
        rl += r[i] * r[i];
    for (int i = 0; i < 3; i++)
        r[i] /= sqrt(rl);
    u[0] = r[1] * f[2] - r[2] * f[1];
    u[1] = r[2] * f[0] - r[0] * f[2];
    u[2] = r[0] * f[1] - r[1] * f[0];
    double x = 0, y = 0, z = 0;
    for (int i = 0; i < 3; i++)
        x += d[i] * r[i], y += d[i] * u[i], z += d[i] * f[i];
    double fp = vp->focal * w / 2.0;
    *sx = w / 2.0 + fp * x / z;
    *sy = h / 2.0 - fp * y / z;
}

static const uint8_t *pixel(const gc_frame *f, double x, double y)
{
    return f->rgba + ((size_t)(uint32_t)y * f->width + (uint32_t)x) * 4;
}

/* Each instance lands where its matrix puts it: the untextured plain colour
 * of its kind (tie 0x60 grey, moby 0x80/0x60/0x30) at the projected centroid
 * of its triangle, the terrain there with objects off; nothing of the tie
 * where a transposed matrix would have put it (world (20, -4, 6)... here
 * (20, 4 - 7, 6)), and the LOD-1 triangles (50 units long) never drawn. The
 * manifest counts one instance and one triangle of each. */
Test(render, objects_land_where_their_matrix_puts_them)
{
    gc_level lv;
    gc_rowbuf rb[OBJ_TABLES];
    build_objects(&lv, rb);
    char err[256] = "", man[GC_FRAME_MANIFEST_MAX];
    gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
    cr_assert(s, "%s", err);
    const uint32_t W = 320, H = 224;
    gc_frame on, off;
    gc_view_params vp;
    cr_assert_eq(gc_render_scene_draw(s, "overview", W, H, &on, &vp, err, sizeof err), 0, "%s",
                 err);
    const gc_render_stats *st = gc_render_scene_stats(s);
    cr_assert_eq(st->objects[0].instances, 1);
    cr_assert_eq(st->objects[0].triangles, 1);
    cr_assert_eq(st->objects[1].instances, 0);
    cr_assert_eq(st->objects[2].instances, 1);
    cr_assert_eq(st->objects[2].triangles, 1);
    cr_assert_eq(gc_frame_manifest(&on, man, sizeof man), 0);
    cr_assert(strstr(man, " objects=tie:1/1,shrub:0/0,moby:1/1"), "%s", man);
    gc_render_scene_set_objects(s, 0);
    cr_assert_eq(gc_render_scene_draw(s, "overview", W, H, &off, NULL, err, sizeof err), 0);
    cr_assert_eq(gc_frame_manifest(&off, man, sizeof man), 0);
    cr_assert(strstr(man, " objects=off"), "%s", man);
    /* tie: local centroid (7, 0, 0) -> world (20, 4 + 7, 6); moby: (28 + 7, 6, 6) */
    const double tie_c[3] = {20, 11, 6}, moby_c[3] = {35, 6, 6}, tie_t[3] = {20, -3, 6};
    double x, y;
    project(&vp, tie_c, W, H, &x, &y);
    cr_assert(x > 2 && x < W - 2 && y > 2 && y < H - 2, "tie centroid off screen (%f, %f)", x, y);
    const uint8_t *p = pixel(&on, x, y);
    cr_assert(p[0] == 0x60 && p[1] == 0x60 && p[2] == 0x60, "tie pixel (%f,%f) = %u %u %u", x, y,
              p[0], p[1], p[2]);
    p = pixel(&off, x, y);
    cr_assert(!(p[0] == 0x60 && p[1] == 0x60 && p[2] == 0x60));
    project(&vp, moby_c, W, H, &x, &y);
    p = pixel(&on, x, y);
    cr_assert(p[0] == 0x80 && p[1] == 0x60 && p[2] == 0x30, "moby pixel (%f,%f) = %u %u %u", x, y,
              p[0], p[1], p[2]);
    project(&vp, tie_t, W, H, &x, &y);
    p = pixel(&on, x, y);
    cr_assert(!(p[0] == 0x60 && p[1] == 0x60 && p[2] == 0x60), "tie drawn transposed");
    /* only the two small triangles differ: the LOD-1 ones would cover far more */
    uint64_t changed = gc_frame_changed_pixels(&on, &off);
    cr_assert(changed > 4 && changed < 400, "%llu pixels changed", (unsigned long long)changed);
    gc_frame_free(&on);
    gc_frame_free(&off);
    gc_render_scene_free(s);
    free_objects(rb);
}

/* ---- moby lighting: a normal table in a hand-built overlay, one light set -- */

typedef struct o_normals {
    uint8_t found;
    uint64_t overlay_ofs;
} o_normals;
typedef struct o_light {
    float v[2][7]; /* colour_a r g b w, direction_a x y z; then light b */
} o_light;
static const gc_column on_cols[] = {
    GC_COL(o_normals, found, GC_T_BOOL, 0, "", ""),
    GC_COL(o_normals, overlay_ofs, GC_T_U64, GC_CF_NULL_IF_MAX, "", "")};
#define OL_COL(nm, i)                                                                              \
    {                                                                                              \
        nm, GC_T_F32, offsetof(o_light, v) + 4 * (i), 4, 0, "", ""                                 \
    }
static const gc_column ol_cols[] = {
    OL_COL("colour_a_r", 0),     OL_COL("colour_a_g", 1),    OL_COL("colour_a_b", 2),
    OL_COL("colour_a_w", 3),     OL_COL("direction_a_x", 4), OL_COL("direction_a_y", 5),
    OL_COL("direction_a_z", 6),  OL_COL("colour_b_r", 7),    OL_COL("colour_b_g", 8),
    OL_COL("colour_b_b", 9),     OL_COL("colour_b_w", 10),   OL_COL("direction_b_x", 11),
    OL_COL("direction_b_y", 12), OL_COL("direction_b_z", 13)};
DESC(d_normals, "normals.table", o_normals, on_cols);
DESC(d_dir_light, "gameplay.dir_light", o_light, ol_cols);

enum { LIT_TABLES = OBJ_TABLES + 2 };

/* The overlay: 16 bytes of padding, then 256 (cos, sin) float pairs of
 * i/256 turn (the quarter points exact). */
static uint8_t lit_overlay[16 + 256 * 8];

/* build_objects plus the moby's lighting inputs: every moby vertex's normal
 * is (azimuth 0, elevation 64): (sin 0 cos 90, cos 0 cos 90, sin 90) =
 * (0, 0, 1), world up before the instance turns it (docs/formats/moby.md). One light set: light A
 * colour (0.5, 0.25, 0) from direction (0, 0, 1), w_a; light B black. The
 * moby instance names set `light` and gets the 3x3 part m3. */
static void build_lit_objects(gc_level *lv, gc_rowbuf *rb, int32_t light, float w_a,
                              const float m3[9])
{
    build_objects(lv, rb);
    memset(lit_overlay, 0, sizeof lit_overlay);
    for (int i = 0; i < 256; i++) {
        float cs[2] = {(float)cos(i * (2 * 3.14159265358979323846 / 256)),
                       (float)sin(i * (2 * 3.14159265358979323846 / 256))};
        if (i % 64 == 0) {
            static const float q[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
            cs[0] = q[i / 64][0], cs[1] = q[i / 64][1];
        }
        memcpy(lit_overlay + 16 + 8 * i, cs, 8);
    }
    lv->overlay.data = lit_overlay;
    lv->overlay.size = sizeof lit_overlay;
    lv->overlay.present = true;
    memset(&rb[OBJ_TABLES], 0, 2 * sizeof rb[0]);
    rb[OBJ_TABLES].desc = &d_normals;
    rb[OBJ_TABLES + 1].desc = &d_dir_light;
    o_normals *nt = gc_rows_push(&rb[OBJ_TABLES]);
    nt->found = 1;
    nt->overlay_ofs = 16;
    o_light *l = gc_rows_push(&rb[OBJ_TABLES + 1]);
    const float a[7] = {0.5f, 0.25f, 0, w_a, 0, 0, 1}, b[7] = {0, 0, 0, 0, 1, 0, 0};
    memcpy(l->v[0], a, sizeof a);
    memcpy(l->v[1], b, sizeof b);
    lv->table_count = LIT_TABLES;
    gc_rowbuf *mv = &rb[5 + 5 + 2], *mi = &rb[5 + 5 + 4];
    for (size_t i = 0; i < mv->count; i++) {
        o_vertex *v = (o_vertex *)(void *)(mv->data + i * sizeof *v);
        v->naz = 0;
        v->nel = 64;
    }
    o_inst *in = (o_inst *)(void *)mi->data;
    in->light = light;
    memcpy(in->m, m3, 9 * sizeof *m3);
}

static void free_lit_objects(gc_rowbuf *rb)
{
    free_objects(rb);
    gc_big_free(rb[OBJ_TABLES].data);
    gc_big_free(rb[OBJ_TABLES + 1].data);
}

/* Draws a hand-built level's overview lit, then with --lighting off, and
 * writes both manifests; the scene is returned for the caller to free. */
static gc_render_scene *draw_overview_on_off(const gc_level *lv, uint32_t W, uint32_t H,
                                             gc_frame *on, gc_frame *off, gc_view_params *vp,
                                             char *man_on, char *man_off)
{
    char err[256] = "";
    gc_render_scene *s = gc_render_scene_new(lv, err, sizeof err);
    cr_assert(s, "%s", err);
    cr_assert_eq(gc_render_scene_draw(s, "overview", W, H, on, vp, err, sizeof err), 0, "%s", err);
    gc_render_scene_set_lighting(s, 0);
    cr_assert_eq(gc_render_scene_draw(s, "overview", W, H, off, NULL, err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(gc_frame_manifest(on, man_on, GC_FRAME_MANIFEST_MAX), 0);
    cr_assert_eq(gc_frame_manifest(off, man_off, GC_FRAME_MANIFEST_MAX), 0);
    return s;
}

/* Draws the hand-built lit level's overview with lighting on and off; the
 * pixels at the moby's and the tie's centroids. */
static void draw_lit(int32_t light, float w_a, const float m3[9], uint8_t moby_on[3],
                     uint8_t moby_off[3], uint8_t tie_on[3], uint8_t tie_off[3], uint64_t *changed,
                     char *man_on, char *man_off)
{
    gc_level lv;
    gc_rowbuf rb[LIT_TABLES];
    build_lit_objects(&lv, rb, light, w_a, m3);
    const uint32_t W = 320, H = 224;
    gc_frame on, off;
    gc_view_params vp;
    gc_render_scene *s = draw_overview_on_off(&lv, W, H, &on, &off, &vp, man_on, man_off);
    const double tie_c[3] = {20, 11, 6}, moby_c[3] = {35, 6, 6};
    double x, y;
    project(&vp, moby_c, W, H, &x, &y);
    memcpy(moby_on, pixel(&on, x, y), 3);
    memcpy(moby_off, pixel(&off, x, y), 3);
    project(&vp, tie_c, W, H, &x, &y);
    memcpy(tie_on, pixel(&on, x, y), 3);
    memcpy(tie_off, pixel(&off, x, y), 3);
    *changed = gc_frame_changed_pixels(&on, &off);
    gc_frame_free(&on);
    gc_frame_free(&off);
    gc_render_scene_free(s);
    free_lit_objects(rb);
}

/* A lit moby: its plain colour (0x80, 0x60, 0x30) = (1.0, 0.75, 0.375) plus
 * light A (0.5, 0.25, 0) x max(n'.dir, n'.dir w). Column 2 scaled by 2 turns
 * the normal into (0, 0, 2): normalised, d = 1 -> (1.5, 1.0, 0.375), clamped
 * to 1.0: (0x80, 0x80, 0x30). Turned 180 degrees about x, column 2 again
 * scaled by 2 (the triangle's shape is symmetric in y, so it covers the same
 * pixels) the normal points down: d = -1 (-2 unnormalised), with w = 0.5
 * t = -0.5 -> (0.75, 0.625, 0.375) = (0x60, 0x50, 0x30); without the
 * normalisation it would be (0x40, 0x40, 0x30). The tie stays its plain 0x60 grey either way (ties
 * are unlit), and with lighting off the moby draws plain. The manifest says lit:moby when lit,
 * lit:none with lighting off. */
Test(render, moby_lit_by_its_instance_light_set)
{
    static const float up2[9] = {1, 0, 0, 0, 1, 0, 0, 0, 2},
                       flip[9] = {1, 0, 0, 0, -1, 0, 0, 0, -2};
    uint8_t mon[3], moff[3], ton[3], toff[3];
    uint64_t changed;
    char man_on[GC_FRAME_MANIFEST_MAX], man_off[GC_FRAME_MANIFEST_MAX];
    draw_lit(0, 0.0f, up2, mon, moff, ton, toff, &changed, man_on, man_off);
    cr_assert(mon[0] == 0x80 && mon[1] == 0x80 && mon[2] == 0x30, "lit moby %u %u %u", mon[0],
              mon[1], mon[2]);
    cr_assert(moff[0] == 0x80 && moff[1] == 0x60 && moff[2] == 0x30, "unlit moby %u %u %u", moff[0],
              moff[1], moff[2]);
    cr_assert(ton[0] == 0x60 && ton[1] == 0x60 && ton[2] == 0x60 && !memcmp(ton, toff, 3),
              "tie %u %u %u", ton[0], ton[1], ton[2]);
    cr_assert_gt(changed, 0);
    cr_assert(strstr(man_on, ",moby:1/1,lit:moby"), "%s", man_on);
    cr_assert(strstr(man_off, ",moby:1/1,lit:none"), "%s", man_off);
    cr_assert_not(gc_frame_manifests_comparable(man_on, man_off));

    draw_lit(0, 0.5f, flip, mon, moff, ton, toff, &changed, man_on, man_off);
    cr_assert(mon[0] == 0x60 && mon[1] == 0x50 && mon[2] == 0x30, "turned moby %u %u %u", mon[0],
              mon[1], mon[2]);
    cr_assert(moff[0] == 0x80 && moff[1] == 0x60 && moff[2] == 0x30);
}

/* A moby whose instance names no set in the bank (one set: index 1, 7, -1)
 * draws exactly as with lighting off, and the manifest says lit:none. */
Test(render, moby_light_index_out_of_range_stays_unlit)
{
    static const float up[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const int32_t bad[3] = {1, 7, -1};
    for (int i = 0; i < 3; i++) {
        uint8_t mon[3], moff[3], ton[3], toff[3];
        uint64_t changed = 1;
        char man_on[GC_FRAME_MANIFEST_MAX], man_off[GC_FRAME_MANIFEST_MAX];
        draw_lit(bad[i], 0.0f, up, mon, moff, ton, toff, &changed, man_on, man_off);
        cr_assert_eq(changed, 0, "light %d: %llu pixels differ", bad[i],
                     (unsigned long long)changed);
        cr_assert(mon[0] == 0x80 && mon[1] == 0x60 && mon[2] == 0x30, "light %d: %u %u %u", bad[i],
                  mon[0], mon[1], mon[2]);
        cr_assert(strstr(man_on, ",lit:none"), "%s", man_on);
        cr_assert_str_eq(man_on, man_off);
    }
}

/* ---- tie and shrub lighting: an ambient record, a class normal table ----- */

typedef struct o_sinst {
    uint64_t file_ofs;
    uint32_t class_row;
    float m[12];
    int32_t colour[3]; /* shrub.instance colour_r, _g, _b */
    int32_t dir_light; /* shrub.instance dir_light */
} o_sinst;
typedef struct o_snormal {
    uint32_t class_row, index;
    int32_t x, y, z;
} o_snormal;
typedef struct o_amb {
    uint32_t instance_row;
    int32_t colours;
    uint64_t data_ofs;
} o_amb;
static const gc_column tpr_cols[] = {
    GC_COL(o_packet, file_ofs, GC_T_U64, 0, "", ""),
    GC_COL(o_packet, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
    GC_COL(o_packet, lod, GC_T_U8, 0, "", ""), GC_COL(o_packet, rgba_count, GC_T_U8, 0, "", "")};
static const gc_column sv_cols[] = {
    GC_COL(o_vertex, file_ofs, GC_T_U64, 0, "", ""),
    GC_COL(o_vertex, packet_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
    {"index", GC_T_U16, offsetof(o_vertex, index), 2, 0, "", ""},
    GC_COL(o_vertex, x, GC_T_F32, 0, "", ""),
    GC_COL(o_vertex, y, GC_T_F32, 0, "", ""),
    GC_COL(o_vertex, z, GC_T_F32, 0, "", ""),
    GC_COL(o_vertex, s, GC_T_F32, 0, "", ""),
    GC_COL(o_vertex, t, GC_T_F32, 0, "", ""),
    GC_COL(o_vertex, normal, GC_T_U16, 0, "", "")};
#define OSI_COL(nm, i)                                                                             \
    {                                                                                              \
        nm, GC_T_F32, offsetof(o_sinst, m) + 4 * (i), 4, 0, "", ""                                 \
    }
static const gc_column si_cols[] = {
    GC_COL(o_sinst, file_ofs, GC_T_U64, 0, "", ""),
    GC_COL(o_sinst, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "", ""),
    OSI_COL("c0x", 0),
    OSI_COL("c0y", 1),
    OSI_COL("c0z", 2),
    OSI_COL("c1x", 3),
    OSI_COL("c1y", 4),
    OSI_COL("c1z", 5),
    OSI_COL("c2x", 6),
    OSI_COL("c2y", 7),
    OSI_COL("c2z", 8),
    OSI_COL("c3x", 9),
    OSI_COL("c3y", 10),
    OSI_COL("c3z", 11),
    {"colour_r", GC_T_S32, offsetof(o_sinst, colour), 4, 0, "", ""},
    {"colour_g", GC_T_S32, offsetof(o_sinst, colour) + 4, 4, 0, "", ""},
    {"colour_b", GC_T_S32, offsetof(o_sinst, colour) + 8, 4, 0, "", ""},
    GC_COL(o_sinst, dir_light, GC_T_S32, 0, "", "")};
static const gc_column sn_cols[] = {
    GC_COL(o_snormal, class_row, GC_T_U32, 0, "", ""),
    GC_COL(o_snormal, index, GC_T_U32, 0, "", ""), GC_COL(o_snormal, x, GC_T_S32, 0, "", ""),
    GC_COL(o_snormal, y, GC_T_S32, 0, "", ""), GC_COL(o_snormal, z, GC_T_S32, 0, "", "")};
static const gc_column am_cols[] = {GC_COL(o_amb, instance_row, GC_T_U32, 0, "", ""),
                                    GC_COL(o_amb, colours, GC_T_S32, 0, "", ""),
                                    GC_COL(o_amb, data_ofs, GC_T_U64, 0, "", "")};
DESC(d_tie_packet_rgba, "tie.packet", o_packet, tpr_cols);
DESC(d_tie_ambient, "tie.ambient", o_amb, am_cols);
DESC(d_shrub_class, "shrub.class", o_class, oc_cols);
DESC(d_shrub_packet, "shrub.packet", o_packet, op_cols);
DESC(d_shrub_vertex, "shrub.vertex", o_vertex, sv_cols);
DESC(d_shrub_tri, "shrub.triangle", o_tri, tt_cols);
DESC(d_shrub_inst, "shrub.instance", o_sinst, si_cols);
DESC(d_shrub_normal, "shrub.normal", o_snormal, sn_cols);

enum { ALL_TABLES = LIT_TABLES + 7 };

/* The gameplay bytes the tie's ambient record points into: 6 bytes of other
 * data, then {s16 instance 0, s16 size 3} and three colours (data at 10). */
static uint8_t amb_gameplay[16];

/* The tie ambient colour of the lit tie: red 8, green 16, blue 31 (5 bits
 * each, red lowest) and the alpha bit: expanded (v << 3) 0.5, 1.0, 1.9375. */
#define AMB_COLOUR (8u | 16u << 5 | 31u << 10 | 0x8000u)

/* build_lit_objects plus a lit tie and a lit shrub.
 * Tie: its LOD-0 packet has rgba_count 3 and the instance an ambient record
 * of 3 colours (AMB_COLOUR, a decoy 0x7fff before it) when `tie_record`.
 * Shrub: one class, the moby's triangle at (10, 0, 6) under the 3x3 part m3
 * (world x 16..19, y 4.5..7.5); every vertex has normal index 5, and the
 * class's normal 5 is (0, 0, 32767), the other 23 (32767, 0, 0); instance
 * colour (128, 255, 64), light set `shrub_light`. */
static void build_all_lit(gc_level *lv, gc_rowbuf *rb, int tie_record, int32_t shrub_light,
                          const float m3[9])
{
    static const float up[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    build_lit_objects(lv, rb, 0, 0.0f, up);
    rb[6].desc = &d_tie_packet_rgba;
    for (size_t i = 0; i < rb[6].count; i++)
        ((o_packet *)(void *)(rb[6].data + i * sizeof(o_packet)))->rgba_count = 3;
    const gc_table_desc *descs[7] = {&d_tie_ambient,  &d_shrub_class, &d_shrub_packet,
                                     &d_shrub_vertex, &d_shrub_tri,   &d_shrub_inst,
                                     &d_shrub_normal};
    gc_rowbuf *b = rb + LIT_TABLES;
    for (int i = 0; i < 7; i++) {
        memset(&b[i], 0, sizeof b[i]);
        b[i].desc = descs[i];
    }
    memset(amb_gameplay, 0, sizeof amb_gameplay);
    for (int k = 0; k < 3; k++) {
        amb_gameplay[4 + 2 * k] = 0xff, amb_gameplay[5 + 2 * k] = 0x7f; /* decoys at 4, 6, 8 */
        amb_gameplay[10 + 2 * k] = (uint8_t)AMB_COLOUR;
        amb_gameplay[11 + 2 * k] = (uint8_t)(AMB_COLOUR >> 8);
    }
    lv->gameplay = amb_gameplay;
    lv->gameplay_size = sizeof amb_gameplay;
    if (tie_record) {
        o_amb *a = gc_rows_push(&b[0]);
        a->instance_row = 0, a->colours = 3, a->data_ofs = 10;
    }
    cr_assert(gc_rows_push(&b[1]));
    o_packet *p = gc_rows_push(&b[2]);
    p->class_row = 0;
    static const float lx[3] = {6, 9, 6}, ly[3] = {-1.5f, 0, 1.5f};
    for (uint16_t i = 0; i < 3; i++) {
        o_vertex *v = gc_rows_push(&b[3]);
        v->packet_row = 0, v->index = i, v->x = lx[i], v->y = ly[i], v->z = 0, v->normal = 5;
    }
    o_tri *t = gc_rows_push(&b[4]);
    t->packet_row = 0, t->a = 0, t->b = 1, t->c = 2, t->texture_entry = UINT32_MAX;
    o_sinst *in = gc_rows_push(&b[5]);
    in->class_row = 0;
    memcpy(in->m, m3, 9 * sizeof *m3);
    in->m[9] = 10, in->m[10] = 6, in->m[11] = 6;
    in->colour[0] = 128, in->colour[1] = 255, in->colour[2] = 64;
    in->dir_light = shrub_light;
    for (uint32_t j = 0; j < 24; j++) {
        o_snormal *n = gc_rows_push(&b[6]);
        n->class_row = 0, n->index = j;
        n->x = j == 5 ? 0 : 32767, n->y = 0, n->z = j == 5 ? 32767 : 0;
    }
    lv->table_count = ALL_TABLES;
}

/* Draws build_all_lit's overview lit and unlit: the tie's and the shrub's
 * centroid pixels, the manifests. */
static void draw_all_lit(int tie_record, int32_t shrub_light, const float m3[9], int normal_table,
                         uint8_t tie_on[3], uint8_t tie_off[3], uint8_t shrub_on[3],
                         uint8_t shrub_off[3], char *man_on, char *man_off)
{
    gc_level lv;
    gc_rowbuf rb[ALL_TABLES];
    build_all_lit(&lv, rb, tie_record, shrub_light, m3);
    ((o_normals *)(void *)rb[OBJ_TABLES].data)->found = (uint8_t)normal_table;
    const uint32_t W = 320, H = 224;
    gc_frame on, off;
    gc_view_params vp;
    gc_render_scene *s = draw_overview_on_off(&lv, W, H, &on, &off, &vp, man_on, man_off);
    const double tie_c[3] = {20, 11, 6}, shrub_c[3] = {17, 6, 6};
    double x, y;
    project(&vp, tie_c, W, H, &x, &y);
    memcpy(tie_on, pixel(&on, x, y), 3);
    memcpy(tie_off, pixel(&off, x, y), 3);
    project(&vp, shrub_c, W, H, &x, &y);
    cr_assert(x > 2 && x < W - 2 && y > 2 && y < H - 2, "shrub centroid off screen");
    memcpy(shrub_on, pixel(&on, x, y), 3);
    memcpy(shrub_off, pixel(&off, x, y), 3);
    gc_frame_free(&on);
    gc_frame_free(&off);
    gc_render_scene_free(s);
    free_lit_objects(rb);
    for (int i = LIT_TABLES; i < ALL_TABLES; i++)
        gc_big_free(rb[i].data);
}

/* The lit tie: its plain 0x60 grey (0.75) times the ambient colour (0.5, 1.0,
 * 1.9375) = (0.375, 0.75, 1.45) clamped: (0x30, 0x60, 0x80); with the
 * channels read in the other order (blue lowest) it would be (0x80, 0x60,
 * 0x30), with the decoys before the record (0x7fff: 1.9375 each) 0x80 grey.
 * The lit shrub: plain (0x40, 0x70, 0x40) = (0.5, 0.875, 0.5) times the
 * instance colour (1.0, 1.9921875, 0.5) times light A (0.5, 0.25, 0) x d,
 * d = normal 5 (0, 0, 1) . (0, 0, 1) = 1: (0.25, 0.4358, 0) -> (0x20, 0x37,
 * 0x00). Normal 4 or 6 ((1, 0, 0): d = 0) would draw black; without the
 * instance colour green would be 0x1c; column 2 scaled by 2 changes nothing
 * (the turned normal is normalised; unnormalised, d = 2, green 0x6f). Lit,
 * the manifest names every kind. */
Test(render, tie_and_shrub_lit)
{
    static const float up[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, up2[9] = {1, 0, 0, 0, 1, 0, 0, 0, 2};
    const float *ms[2] = {up, up2};
    for (int m = 0; m < 2; m++) {
        uint8_t ton[3], toff[3], son[3], soff[3];
        char man_on[GC_FRAME_MANIFEST_MAX], man_off[GC_FRAME_MANIFEST_MAX];
        draw_all_lit(1, 0, ms[m], 1, ton, toff, son, soff, man_on, man_off);
        cr_assert(ton[0] == 0x30 && ton[1] == 0x60 && ton[2] == 0x80, "lit tie %u %u %u", ton[0],
                  ton[1], ton[2]);
        cr_assert(toff[0] == 0x60 && toff[1] == 0x60 && toff[2] == 0x60, "unlit tie %u %u %u",
                  toff[0], toff[1], toff[2]);
        cr_assert(son[0] == 0x20 && son[1] == 0x37 && son[2] == 0x00, "lit shrub %u %u %u", son[0],
                  son[1], son[2]);
        cr_assert(soff[0] == 0x40 && soff[1] == 0x70 && soff[2] == 0x40, "unlit shrub %u %u %u",
                  soff[0], soff[1], soff[2]);
        cr_assert(strstr(man_on, ",lit:tie,shrub,moby"), "%s", man_on);
        cr_assert(strstr(man_off, ",lit:none"), "%s", man_off);
    }
}

/* Without an accepted normal table (normals.table found 0) the moby is unlit
 * but the shrub, whose normals are its class's own, is lit as before. */
Test(render, shrub_lit_without_the_moby_normal_table)
{
    static const float up[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    uint8_t ton[3], toff[3], son[3], soff[3];
    char man_on[GC_FRAME_MANIFEST_MAX], man_off[GC_FRAME_MANIFEST_MAX];
    draw_all_lit(1, 0, up, 0, ton, toff, son, soff, man_on, man_off);
    cr_assert(son[0] == 0x20 && son[1] == 0x37 && son[2] == 0x00, "lit shrub %u %u %u", son[0],
              son[1], son[2]);
    const char *tail = ",lit:tie,shrub";
    size_t n = strlen(man_on), t = strlen(tail);
    cr_assert(n > t && strcmp(man_on + n - t, tail) == 0, "%s", man_on);
}

/* No ambient record for the tie, a shrub light set not in the bank (1, -1):
 * both draw as with lighting off, and the manifest names only the moby. */
Test(render, tie_without_record_and_shrub_without_set_stay_unlit)
{
    static const float up[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const int32_t bad[2] = {1, -1};
    for (int i = 0; i < 2; i++) {
        uint8_t ton[3], toff[3], son[3], soff[3];
        char man_on[GC_FRAME_MANIFEST_MAX], man_off[GC_FRAME_MANIFEST_MAX];
        draw_all_lit(0, bad[i], up, 1, ton, toff, son, soff, man_on, man_off);
        cr_assert(!memcmp(ton, toff, 3) && ton[0] == 0x60, "tie %u %u %u", ton[0], ton[1], ton[2]);
        cr_assert(!memcmp(son, soff, 3) && son[0] == 0x40 && son[1] == 0x70, "shrub %u %u %u",
                  son[0], son[1], son[2]);
        cr_assert(strstr(man_on, ",lit:moby"), "%s", man_on);
    }
}

/* A decoded synthetic level: every instance of every kind is drawn (the
 * manifest's counts are the instance tables' resolved rows), objects change
 * the frame, ties sample their kind's texture table (some triangles
 * textured), and the frame is the same with instance culling off. */
Test(render, synthetic_level_draws_every_instance)
{
    sy_buf b;
    gc_level lv;
    decode_small_level(3, "LEVEL3.WAD", &b, &lv);
    gc_table *ts = calloc(lv.table_count, sizeof *ts);
    cr_assert(ts);
    gc_level_tables(&lv, ts);
    static const char *const inst[3] = {"tie.instance", "shrub.instance", "moby.instance"};
    uint64_t want[3] = {0, 0, 0};
    for (size_t i = 0; i < lv.table_count; i++)
        for (int k = 0; k < 3; k++) {
            if (!ts[i].desc || strcmp(ts[i].desc->name, inst[k]) != 0)
                continue;
            const gc_column *cc = NULL;
            for (size_t c = 0; c < ts[i].desc->column_count; c++)
                if (strcmp(ts[i].desc->columns[c].name, "class_row") == 0)
                    cc = &ts[i].desc->columns[c];
            cr_assert(cc);
            for (size_t r = 0; r < ts[i].count; r++) {
                uint32_t v;
                memcpy(&v, (const uint8_t *)ts[i].rows + r * ts[i].desc->row_size + cc->offset, 4);
                want[k] += v != UINT32_MAX;
            }
        }
    free(ts);
    for (int k = 0; k < 3; k++)
        cr_assert_gt(want[k], 0, "%s has no resolved rows", inst[k]);
    char err[256] = "", man[GC_FRAME_MANIFEST_MAX], exp[128];
    gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
    cr_assert(s, "%s", err);
    gc_frame on, again, off;
    cr_assert_eq(gc_render_scene_draw(s, "ground", 320, 224, &on, NULL, err, sizeof err), 0);
    const gc_render_stats *st = gc_render_scene_stats(s);
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(st->objects[k].instances, want[k], "%s", inst[k]);
        cr_assert_gt(st->objects[k].triangles, st->objects[k].instances, "%s", inst[k]);
    }
    cr_assert_lt(st->objects[0].triangles_untextured, st->objects[0].triangles);
    snprintf(exp, sizeof exp, " objects=tie:%llu/%llu,shrub:%llu/%llu,moby:%llu/%llu",
             (unsigned long long)want[0], (unsigned long long)st->objects[0].triangles,
             (unsigned long long)want[1], (unsigned long long)st->objects[1].triangles,
             (unsigned long long)want[2], (unsigned long long)st->objects[2].triangles);
    cr_assert_eq(gc_frame_manifest(&on, man, sizeof man), 0);
    cr_assert(strstr(man, exp), "%s lacks %s", man, exp);
    uint64_t culled = st->objects[0].culled + st->objects[1].culled + st->objects[2].culled;
    cr_assert_gt(culled, 0, "the ground view culled no instance");
    /* culling skips only what draws nothing: the same bytes without it */
    gc_render_scene_set_cull(s, 0);
    cr_assert_eq(gc_render_scene_draw(s, "ground", 320, 224, &again, NULL, err, sizeof err), 0);
    cr_assert_eq(st->objects[0].culled + st->objects[1].culled + st->objects[2].culled, 0);
    cr_assert_eq(memcmp(on.rgba, again.rgba, (size_t)320 * 224 * 4), 0);
    gc_render_scene_set_cull(s, 1);
    gc_render_scene_set_objects(s, 0);
    cr_assert_eq(gc_render_scene_draw(s, "ground", 320, 224, &off, NULL, err, sizeof err), 0);
    uint64_t changed = gc_frame_changed_pixels(&on, &off);
    cr_assert_gt(changed, 100, "objects changed only %llu pixels", (unsigned long long)changed);
    gc_frame_free(&on);
    gc_frame_free(&again);
    gc_frame_free(&off);
    gc_render_scene_free(s);
    gc_level_free(&lv);
    sy_buf_free(&b);
}

/* Object counts are data, not layout: a golden whose counts differ is still
 * compared (a changed count regresses, even with the same pixels), while
 * objects=off against objects on, or any other field, is another layout. */
Test(golden, object_counts_compare_as_data)
{
    const char *m = "GCFRAME1 raster=2 640x448 RGBA8 view=ground lighting=lit "
                    "objects=tie:12/3400,shrub:9/800,moby:20/5100";
    const char *fewer = "GCFRAME1 raster=2 640x448 RGBA8 view=ground lighting=lit "
                        "objects=tie:11/3100,shrub:9/800,moby:20/5100";
    const char *off = "GCFRAME1 raster=2 640x448 RGBA8 view=ground lighting=lit objects=off";
    const char *unlit = "GCFRAME1 raster=2 640x448 RGBA8 view=ground lighting=unlit "
                        "objects=tie:12/3400,shrub:9/800,moby:20/5100";
    const char *other_kind = "GCFRAME1 raster=2 640x448 RGBA8 view=ground lighting=lit "
                             "objects=tie:12/3400,bush:9/800,moby:20/5100";
    cr_assert(gc_frame_manifests_comparable(m, m));
    cr_assert(gc_frame_manifests_comparable(m, fewer));
    cr_assert(!gc_frame_manifests_comparable(m, off));
    cr_assert(!gc_frame_manifests_comparable(off, m));
    cr_assert(!gc_frame_manifests_comparable(m, unlit));
    cr_assert(!gc_frame_manifests_comparable(m, other_kind));
    cr_assert(gc_frame_manifests_comparable(off, off));
    /* which kinds are lit (raster 3) is layout: lit:moby against lit:none is not comparable,
     * other counts with the same lit kinds are */
    const char *lit = "GCFRAME1 raster=4 640x448 RGBA8 view=ground lighting=lit "
                      "objects=tie:12/3400,shrub:9/800,moby:20/5100,lit:moby";
    const char *lit_fewer = "GCFRAME1 raster=4 640x448 RGBA8 view=ground lighting=lit "
                            "objects=tie:11/3400,shrub:9/800,moby:19/5000,lit:moby";
    const char *lit_none = "GCFRAME1 raster=4 640x448 RGBA8 view=ground lighting=lit "
                           "objects=tie:12/3400,shrub:9/800,moby:20/5100,lit:none";
    cr_assert(gc_frame_manifests_comparable(lit, lit_fewer));
    cr_assert(!gc_frame_manifests_comparable(lit, lit_none));
    cr_assert(!gc_frame_manifests_comparable(lit_none, lit));
    cr_assert(!gc_frame_manifests_comparable("GCFRAME1 raster=1 8x8 RGBA8 view=a",
                                             "GCFRAME1 raster=2 8x8 RGBA8 view=a"));
    char sha_a[65], sha_b[65];
    memset(sha_a, 'a', 64), sha_a[64] = 0;
    memset(sha_b, 'b', 64), sha_b[64] = 0;
    gc_golden_frames g;
    memset(&g, 0, sizeof g);
    cr_assert_eq(gc_golden_frames_set(&g, 0, "ground", sha_a, m), 0);
    cr_assert_eq(gc_golden_frames_compare(&g, 0, "ground", sha_a, m, NULL), GC_FRAME_MATCH);
    cr_assert_eq(gc_golden_frames_compare(&g, 0, "ground", sha_b, fewer, NULL), GC_FRAME_REGRESSED);
    cr_assert_eq(gc_golden_frames_compare(&g, 0, "ground", sha_a, fewer, NULL), GC_FRAME_REGRESSED);
    cr_assert_eq(gc_golden_frames_compare(&g, 0, "ground", sha_b, off, NULL),
                 GC_FRAME_MANIFEST_DIFFERS);
    gc_golden_frames_free(&g);
}

/* Hostile object tables: out-of-range class, packet and corner indices,
 * NaN, infinite and huge coordinates and matrices never crash or read out of
 * bounds (the sanitizer build runs this), a row that cannot be placed is
 * counted as not drawn, and each frame is the same twice and the same with
 * culling off. */
Test(render, hostile_object_tables_do_not_crash)
{
    uint32_t seed = 4242;
    static const float weird[] = {0.0f, -0.0f, 1e29f, -1e29f, 1e38f, 3.0e-39f, 65504.0f, -7.5f};
    const uint32_t inf_bits = 0x7f800000u, nan_bits = 0x7fc00000u;
    float inf, nan;
    memcpy(&inf, &inf_bits, sizeof inf);
    memcpy(&nan, &nan_bits, sizeof nan);
    for (int round = 0; round < 30; round++) {
        gc_level lv;
        gc_rowbuf rb[OBJ_TABLES];
        build_objects(&lv, rb);
        for (int k = 0; k < 12; k++) {
            uint32_t r = lcg_next(&seed);
            float w = (r & 15) == 0 ? nan : (r & 15) == 1 ? inf : weird[(r >> 4) & 7];
            gc_rowbuf *b = rb + 5 + 5 * (int)((r >> 20) & 1);
            o_packet *p = (o_packet *)(void *)b[1].data;
            o_vertex *v = (o_vertex *)(void *)b[2].data;
            o_tri *t = (o_tri *)(void *)b[3].data;
            o_inst *in = (o_inst *)(void *)b[4].data;
            switch ((r >> 8) % 7) {
            case 0:
                p[r % b[1].count].class_row = r >> 4;
                break;
            case 1:
                v[r % b[2].count].index = (uint16_t)(r >> 3);
                break;
            case 2:
                v[r % b[2].count].x = w;
                break;
            case 3:
                t[r % b[3].count].a = (uint16_t)(r >> 5);
                break;
            case 4:
                t[r % b[3].count].packet_row = r >> 6;
                break;
            case 5:
                in[0].m[r % 12] = w;
                break;
            default:
                in[0].class_row = r & 3 ? UINT32_MAX : r;
                break;
            }
        }
        char err[256] = "";
        gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
        cr_assert(s, "%s", err);
        const char *const *names;
        int nv = gc_render_view_names(&names);
        for (int v = 0; v < nv; v++) {
            gc_frame f[3];
            for (int pass = 0; pass < 3; pass++) {
                gc_render_scene_set_cull(s, pass < 2);
                cr_assert_eq(
                    gc_render_scene_draw(s, names[v], 64, 48, &f[pass], NULL, err, sizeof err), 0,
                    "%s", err);
            }
            const gc_render_stats *st = gc_render_scene_stats(s);
            cr_assert_eq(st->objects[0].instances + st->objects[0].unresolved, 1);
            cr_assert_eq(st->objects[2].instances + st->objects[2].unresolved, 1);
            for (int pass = 1; pass < 3; pass++)
                cr_assert_eq(memcmp(f[0].rgba, f[pass].rgba, (size_t)64 * 48 * 4), 0,
                             "round %d view %s pass %d", round, names[v], pass);
            for (int pass = 0; pass < 3; pass++)
                gc_frame_free(&f[pass]);
        }
        gc_render_scene_free(s);
        free_objects(rb);
    }
}

/* A row's index column (packet_row of a triangle, class_row of a packet)
 * through its descriptor: U32 or U16, NULL_IF_MAX read as UINT32_MAX. */
static uint32_t row_index(const gc_table *t, size_t r, const char *name)
{
    for (size_t c = 0; c < t->desc->column_count; c++) {
        const gc_column *cc = &t->desc->columns[c];
        if (strcmp(cc->name, name) != 0)
            continue;
        const uint8_t *p = (const uint8_t *)t->rows + r * t->desc->row_size + cc->offset;
        if (cc->type == GC_T_U32) {
            uint32_t v;
            memcpy(&v, p, 4);
            return v;
        }
        cr_assert_eq(cc->type, GC_T_U16, "%s.%s", t->desc->name, name);
        uint16_t v;
        memcpy(&v, p, 2);
        return v == UINT16_MAX && (cc->flags & GC_CF_NULL_IF_MAX) ? UINT32_MAX : v;
    }
    cr_assert_fail("%s has no column %s", t->desc->name, name);
    return UINT32_MAX;
}

static const gc_table *table_named(const gc_table *ts, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (ts[i].desc && strcmp(ts[i].desc->name, name) == 0)
            return &ts[i];
    cr_assert_fail("no table %s", name);
    return NULL;
}

typedef struct row_key {
    uint32_t key; /* UINT32_MAX: none */
    size_t row;
} row_key;

/* key descending, then the row order (a stable sort by key) */
static int cmp_row_key(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The rows of table t moved into descending key order (the row order kept
 * among equal keys), in the level's own row buffer (the scene reads the
 * tables in place). keys[r].key is row r's key on entry. */
static void move_rows(const gc_table *t, row_key *keys)
{
    const size_t n = t->count, rs = t->desc->row_size;
    uint8_t *moved = malloc(n * rs + 1);
    cr_assert(moved);
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t r = 0; r < n; r++)
        if (keys[r].key != UINT32_MAX) {
            lo = keys[r].key < lo ? keys[r].key : lo;
            hi = keys[r].key > hi ? keys[r].key : hi;
        }
    cr_assert_lt(lo, hi, "%s: fewer than two keys", t->desc->name); /* the order does change */
    qsort(keys, n, sizeof *keys, cmp_row_key);
    for (size_t r = 0; r < n; r++)
        memcpy(moved + r * rs, (const uint8_t *)t->rows + keys[r].row * rs, rs);
    memcpy((void *)(uintptr_t)t->rows, moved, n * rs);
    free(moved);
}

/* The rows of table t moved into descending order of their index column `column` (as
 * move_rows). */
static void move_rows_by(const gc_table *t, const char *column)
{
    row_key *keys = malloc((t->count ? t->count : 1) * sizeof *keys);
    cr_assert(keys);
    for (size_t r = 0; r < t->count; r++) {
        keys[r].key = row_index(t, r, column);
        keys[r].row = r;
    }
    move_rows(t, keys);
    free(keys);
}

/* The scene keeps each object kind's vertices packet by packet and its
 * triangles class by class, and the terrain's positions and vertex-info
 * entries patch by patch, in row order within a packet, class or patch
 * (stable sorts). Rows published in that order are placed in one pass as
 * they come; rows whose packets, classes or patches go down take the
 * counting passes. So the small synthetic level's object vertex rows moved
 * into descending packet order, its object triangle rows into descending
 * class order and its tfrag.vertex and tfrag.vertex_info rows into
 * descending patch order (row order kept within each) must give the scene
 * the same geometry: the same frames and counts in both views as the
 * tables as decoded. It fails if a one-pass placement kept rows that are
 * out of order (vertices at the wrong place, classes drawing each other's
 * triangles) or if the passes after it gave up part-way went wrong. */
Test(render, rows_out_of_order)
{
    sy_buf b;
    gc_level lv;
    decode_small_level(3, "LEVEL3.WAD", &b, &lv);
    const char *const *names;
    const int nv = gc_render_view_names(&names);
    cr_assert_eq(nv, 2);
    enum { W = 320, H = 224 };
    gc_frame before[2], after[2];
    gc_render_stats st_before[2];
    char err[256] = "";
    gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
    cr_assert(s, "%s", err);
    for (int v = 0; v < nv; v++) {
        cr_assert_eq(gc_render_scene_draw(s, names[v], W, H, &before[v], NULL, err, sizeof err), 0,
                     "%s", err);
        memcpy(&st_before[v], gc_render_scene_stats(s), sizeof st_before[v]);
    }
    gc_render_scene_free(s);

    gc_table *ts = calloc(lv.table_count, sizeof *ts);
    cr_assert(ts);
    gc_level_tables(&lv, ts);
    static const char *const kinds[3] = {"tie", "shrub", "moby"};
    for (int k = 0; k < 3; k++) {
        char tn[32], pn[32], vn[32];
        snprintf(tn, sizeof tn, "%s.triangle", kinds[k]);
        snprintf(pn, sizeof pn, "%s.packet", kinds[k]);
        snprintf(vn, sizeof vn, "%s.vertex", kinds[k]);
        const gc_table *tt = table_named(ts, lv.table_count, tn),
                       *tp = table_named(ts, lv.table_count, pn),
                       *tv = table_named(ts, lv.table_count, vn);
        /* triangles by their packet's class (read before the vertices move:
         * the packets stay) */
        row_key *keys = malloc((tt->count ? tt->count : 1) * sizeof *keys);
        cr_assert(keys);
        for (size_t r = 0; r < tt->count; r++) {
            const uint32_t p = row_index(tt, r, "packet_row");
            keys[r].key = p < tp->count ? row_index(tp, p, "class_row") : UINT32_MAX;
            keys[r].row = r;
        }
        move_rows(tt, keys);
        free(keys);
        move_rows_by(tv, "packet_row"); /* vertices by packet */
    }
    /* the terrain's positions and vertex-info entries by patch */
    static const char *const tfrag[2] = {"tfrag.vertex", "tfrag.vertex_info"};
    for (int k = 0; k < 2; k++)
        move_rows_by(table_named(ts, lv.table_count, tfrag[k]), "patch_row");
    free(ts);

    s = gc_render_scene_new(&lv, err, sizeof err);
    cr_assert(s, "%s", err);
    for (int v = 0; v < nv; v++) {
        cr_assert_eq(gc_render_scene_draw(s, names[v], W, H, &after[v], NULL, err, sizeof err), 0,
                     "%s", err);
        const gc_render_stats *st = gc_render_scene_stats(s);
        cr_assert_eq(memcmp(st->objects, st_before[v].objects, sizeof st->objects), 0, "%s",
                     names[v]);
        cr_assert_eq(st->pixels_written, st_before[v].pixels_written, "%s", names[v]);
        cr_assert_eq(st->pixels_covered, st_before[v].pixels_covered, "%s", names[v]);
        cr_assert_gt(st->objects[0].triangles + st->objects[2].triangles, 0);
        cr_assert_eq(memcmp(after[v].rgba, before[v].rgba, (size_t)W * H * 4), 0, "%s", names[v]);
        gc_frame_free(&before[v]);
        gc_frame_free(&after[v]);
    }
    gc_render_scene_free(s);
    gc_level_free(&lv);
    sy_buf_free(&b);
}

/* Indices with gaps (the objects' vertices 0, 4, 8 in place of 0, 1, 2,
 * the terrain's positions and vertex-info entries at twice their index,
 * and everything naming them likewise) make a packet's or patch's range
 * longer than its rows, so the one-pass placements (sized one entry a row)
 * give up and the counting passes place them: the frames and counts must
 * be those of the dense indices. */
Test(render, indices_with_gaps)
{
    enum { W = 320, H = 224 };
    gc_frame f[2][2];
    gc_render_stats st[2][2];
    const char *const *names;
    const int nv = gc_render_view_names(&names);
    cr_assert_eq(nv, 2);
    for (int sparse = 0; sparse < 2; sparse++) {
        gc_level lv;
        gc_rowbuf rb[OBJ_TABLES];
        build_objects(&lv, rb);
        if (sparse) { /* the terrain's: positions, vertex-info entries and corners */
            t_vertex *v = (t_vertex *)(void *)rb[2].data;
            t_vi *e = (t_vi *)(void *)rb[3].data;
            t_tri *t = (t_tri *)(void *)rb[4].data;
            for (size_t i = 0; i < rb[2].count; i++)
                v[i].index *= 2;
            for (size_t i = 0; i < rb[3].count; i++) {
                e[i].index *= 2;
                e[i].vertex *= 2;
            }
            for (size_t i = 0; i < rb[4].count; i++) {
                t[i].a *= 2, t[i].b *= 2, t[i].c *= 2;
                t[i].va *= 2, t[i].vb *= 2, t[i].vc *= 2;
            }
        }
        for (int k = 0; sparse && k < 2; k++) {
            gc_rowbuf *b = rb + 5 + 5 * k;
            o_vertex *v = (o_vertex *)(void *)b[2].data;
            o_tri *t = (o_tri *)(void *)b[3].data;
            for (size_t i = 0; i < b[2].count; i++)
                v[i].index = (uint16_t)(4 * v[i].index);
            for (size_t i = 0; i < b[3].count; i++) {
                t[i].a = (uint16_t)(4 * t[i].a);
                t[i].b = (uint16_t)(4 * t[i].b);
                t[i].c = (uint16_t)(4 * t[i].c);
            }
        }
        char err[256] = "";
        gc_render_scene *s = gc_render_scene_new(&lv, err, sizeof err);
        cr_assert(s, "%s", err);
        for (int v = 0; v < nv; v++) {
            cr_assert_eq(
                gc_render_scene_draw(s, names[v], W, H, &f[sparse][v], NULL, err, sizeof err), 0,
                "%s", err);
            memcpy(&st[sparse][v], gc_render_scene_stats(s), sizeof st[sparse][v]);
        }
        gc_render_scene_free(s);
        free_objects(rb);
    }
    for (int v = 0; v < nv; v++) {
        cr_assert_eq(st[0][v].objects[0].triangles, 1);
        cr_assert_eq(st[0][v].objects[2].triangles, 1);
        cr_assert_eq(memcmp(st[1][v].objects, st[0][v].objects, sizeof st[0][v].objects), 0, "%s",
                     names[v]);
        cr_assert_eq(st[1][v].pixels_written, st[0][v].pixels_written, "%s", names[v]);
        cr_assert_eq(memcmp(f[1][v].rgba, f[0][v].rgba, (size_t)W * H * 4), 0, "%s", names[v]);
        gc_frame_free(&f[0][v]);
        gc_frame_free(&f[1][v]);
    }
}
