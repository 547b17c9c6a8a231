/* SPDX-License-Identifier: MIT */
/* Tests of the tfrag decoder on hand-assembled patch bytes: one small patch
 * with every tier (common, LOD-01, LOD-0) and every LOD list, laid out as
 * formats.md §5.3 spells the lists, then each known-bad input (truncation at
 * every boundary, counts past the end, offsets outside the region, a VIF
 * list cut inside a payload, a lost VU header) with its specific status,
 * walk error and breadcrumb. The bytes are assembled here from the format
 * documentation, not by the synthetic-corpus writer. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"
#include "tfrag_fixture.h"

extern const gc_decoder gc_dec_tfrag;

static const gc_rowbuf *rows(gc_level *lv, const char *name)
{
    for (size_t i = 0; i < lv->table_count; i++)
        if (strcmp(lv->tables[i].desc->name, name) == 0)
            return &lv->tables[i];
    cr_assert_fail("table %s not registered", name);
    return NULL;
}

/* Column access through the descriptors (as the engine sees rows). */
static const gc_column *col(const gc_rowbuf *rb, const char *name)
{
    for (size_t i = 0; i < rb->desc->column_count; i++)
        if (strcmp(rb->desc->columns[i].name, name) == 0)
            return &rb->desc->columns[i];
    cr_assert_fail("column %s.%s missing", rb->desc->name, name);
    return NULL;
}
static double num(const gc_rowbuf *rb, size_t row, const char *name)
{
    const gc_column *c = col(rb, name);
    const uint8_t *p = rb->data + row * rb->desc->row_size + c->offset;
    switch (c->type) {
    case GC_T_BOOL:
    case GC_T_U8:
        return *p;
    case GC_T_S8:
        return (int8_t)*p;
    case GC_T_U16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case GC_T_S16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case GC_T_U32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v == UINT32_MAX && (c->flags & GC_CF_NULL_IF_MAX) ? -1.0 : v;
    }
    case GC_T_S32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case GC_T_U64: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v == UINT64_MAX && (c->flags & GC_CF_NULL_IF_MAX) ? -1.0 : (double)v;
    }
    case GC_T_F32: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    default:
        cr_assert_fail("column %s: unexpected type", name);
        return 0;
    }
}
static const char *str(const gc_rowbuf *rb, size_t row, const char *name)
{
    const gc_column *c = col(rb, name);
    return (const char *)(rb->data + row * rb->desc->row_size + c->offset);
}

typedef struct run {
    gc_level lv;
    gc_diag diag;
    gc_status st;
    uint8_t *core;
} run;

/* Decodes `core` (copied into an exact-size heap buffer so the sanitizer
 * sees any overread) with the given region. */
static void decode(run *r, const uint8_t *core, size_t size, int32_t tfrags, int32_t occlusion,
                   int fault)
{
    memset(r, 0, sizeof *r);
    cr_assert_eq(gc_level_init(&r->lv, 0, "TEST", NULL, 0), GC_OK);
    r->core = malloc(size ? size : 1);
    memcpy(r->core, core, size);
    r->lv.core_data = r->core;
    r->lv.core_data_size = size;
    r->lv.core.tfrags = tfrags;
    r->lv.core.occlusion = occlusion;
    r->lv.core_ok = true;
    r->lv.fault = fault;
    gc_diag_init(&r->diag);
    gc_diag_push(&r->diag, "%s", r->lv.name);
    r->st = gc_dec_tfrag.run(&r->lv, &r->diag);
}
static void done(run *r)
{
    r->lv.core_data = NULL; /* owned by gc_level_free */
    free(r->core);
    gc_level_free(&r->lv);
}

Test(tfrag, full_patch_every_tier)
{
    tf_core c;
    tf_build(&c, 1, NULL);
    run r;
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_eq(r.st, GC_OK, "%s: %s", r.diag.where, r.diag.msg);

    const gc_rowbuf *blk = rows(&r.lv, "tfrag.block");
    cr_assert_eq(blk->count, 1);
    cr_assert_eq(num(blk, 0, "table_offset"), 0x40);
    cr_assert_eq(num(blk, 0, "count"), 1);
    cr_assert_eq(num(blk, 0, "lod_scale"), 32.0);
    cr_assert_eq(num(blk, 0, "region_end"), c.occlusion);

    const gc_rowbuf *p = rows(&r.lv, "tfrag.patch");
    cr_assert_eq(p->count, 1);
    cr_assert_eq(num(p, 0, "walk_ok"), 1, "%s", str(p, 0, "walk_where"));
    cr_assert_eq(num(p, 0, "walk_error_ofs"), -1);
    cr_assert_eq(num(p, 0, "data_ofs"), c.data_ofs[0]);
    cr_assert_eq(num(p, 0, "vert_count"), 7);
    cr_assert_eq(num(p, 0, "positions_common"), 4);
    cr_assert_eq(num(p, 0, "positions_lod01"), 1);
    cr_assert_eq(num(p, 0, "positions_lod0"), 2);
    cr_assert_eq(num(p, 0, "positions_decoded"), 7);
    cr_assert_eq(num(p, 0, "vi_common"), 4);
    cr_assert_eq(num(p, 0, "vi_lod01"), 1);
    cr_assert_eq(num(p, 0, "vi_lod0"), 2);
    cr_assert_eq(num(p, 0, "tri_count"), 5);
    cr_assert_eq(num(p, 0, "tris_lod0"), 5);
    cr_assert_eq(num(p, 0, "tris_lod1"), 3);
    cr_assert_eq(num(p, 0, "tris_lod2"), 2);
    cr_assert_eq(num(p, 0, "strips_lod0"), 1);
    cr_assert_eq(num(p, 0, "strips_lod1"), 1);
    cr_assert_eq(num(p, 0, "strips_lod2"), 1);
    cr_assert_eq(num(p, 0, "parents_lod01"), 4);
    cr_assert_eq(num(p, 0, "parents_lod0"), 4);
    cr_assert_eq(num(p, 0, "adgif_count"), 1);
    cr_assert_eq(num(p, 0, "adgif_payload_ofs"), num(p, 0, "tex_ofs"));
    cr_assert_eq(num(p, 0, "rgba_count"), 8);
    cr_assert_eq(num(p, 0, "rgba_size"), 2);
    cr_assert_eq(num(p, 0, "light_count"), 8); /* 7 records padded to a quadword */
    cr_assert_eq(num(p, 0, "origin_x"), TF_ORIGIN_X);
    cr_assert_eq(num(p, 0, "origin_y"), TF_ORIGIN_Y);
    cr_assert_eq(num(p, 0, "origin_z"), TF_ORIGIN_Z);
    cr_assert_eq(num(p, 0, "origin_source"), 1);
    cr_assert_eq(num(p, 0, "unclassified_unpacks"), 0);
    cr_assert_eq(num(p, 0, "vu_vi_lod01"), 1);
    cr_assert_eq(num(p, 0, "point_lights"), 0xffff);

    const gc_rowbuf *v = rows(&r.lv, "tfrag.vertex");
    cr_assert_eq(v->count, 7);
    for (size_t i = 0; i < 7; i++) {
        cr_assert_eq(num(v, i, "patch_row"), 0);
        cr_assert_eq(num(v, i, "index"), i);
        cr_assert_eq(num(v, i, "tier"), i < 4 ? 0 : i < 5 ? 1 : 2);
        int16_t s[3];
        tf_position((int)i, s);
        cr_assert_eq(num(v, i, "x"), (float)((TF_ORIGIN_X + s[0]) / 1024.0));
        cr_assert_eq(num(v, i, "y"), (float)((TF_ORIGIN_Y + s[1]) / 1024.0));
        cr_assert_eq(num(v, i, "z"), (float)((TF_ORIGIN_Z + s[2]) / 1024.0));
        cr_assert_eq(num(v, i, "r"), i * 10);
        cr_assert_eq(num(v, i, "a"), 0x80);
        cr_assert_eq(num(v, i, "file_ofs"), c.pos_ofs[0][i]);
        /* inside its sphere, which the fixture computed independently */
        double dx = num(v, i, "x") - num(p, 0, "cx"), dy = num(v, i, "y") - num(p, 0, "cy"),
               dz = num(v, i, "z") - num(p, 0, "cz");
        cr_assert(sqrt(dx * dx + dy * dy + dz * dz) <= num(p, 0, "radius"));
    }

    const gc_rowbuf *vi = rows(&r.lv, "tfrag.vertex_info");
    cr_assert_eq(vi->count, 7);
    static const int tier[7] = {0, 0, 0, 0, 1, 2, 2};
    static const double parent0[7] = {-1, -1, -1, -1, 1, 4, 0};
    static const double parent1[7] = {-1, -1, -1, -1, 2, 3, 1};
    for (size_t i = 0; i < 7; i++) {
        cr_assert_eq(num(vi, i, "index"), i);
        cr_assert_eq(num(vi, i, "tier"), tier[i]);
        cr_assert_eq(num(vi, i, "vertex"), i);
        cr_assert_eq(num(vi, i, "s"), (float)(i * 256) / 4096.0f);
        cr_assert_eq(num(vi, i, "t"), -(float)(i * 128) / 4096.0f);
        cr_assert_eq(num(vi, i, "claims_parent"), tier[i] != 0);
        cr_assert_eq(num(vi, i, "parents_resolved"), tier[i] != 0, "vi %zu", i);
        cr_assert_eq(num(vi, i, "parent0"), parent0[i], "vi %zu", i);
        cr_assert_eq(num(vi, i, "parent1"), parent1[i], "vi %zu", i);
    }

    const gc_rowbuf *t = rows(&r.lv, "tfrag.triangle");
    cr_assert_eq(t->count, 10);
    /* LOD 0 comes first (banked by LOD), alternating winding */
    static const int tri0[5][3] = {{0, 1, 2}, {2, 1, 3}, {2, 3, 4}, {4, 3, 5}, {4, 5, 6}};
    for (size_t i = 0; i < 5; i++) {
        cr_assert_eq(num(t, i, "lod"), 0);
        cr_assert_eq(num(t, i, "a"), tri0[i][0], "tri %zu", i);
        cr_assert_eq(num(t, i, "b"), tri0[i][1], "tri %zu", i);
        cr_assert_eq(num(t, i, "c"), tri0[i][2], "tri %zu", i);
        cr_assert_eq(num(t, i, "va"), tri0[i][0]);
        cr_assert_eq(num(t, i, "texture"), TF_TEXTURE);
        cr_assert_eq(num(t, i, "vi_hi"), 7);
    }
    for (size_t i = 5; i < 8; i++) {
        cr_assert_eq(num(t, i, "lod"), 1);
        cr_assert_eq(num(t, i, "vi_hi"), 5);
    }
    for (size_t i = 8; i < 10; i++) {
        cr_assert_eq(num(t, i, "lod"), 2);
        cr_assert_eq(num(t, i, "vi_hi"), 4);
        cr_assert(num(t, i, "c") < 4);
    }

    const gc_rowbuf *a = rows(&r.lv, "tfrag.adgif");
    cr_assert_eq(a->count, 1);
    cr_assert_eq(num(a, 0, "texture"), TF_TEXTURE);
    cr_assert_eq(num(a, 0, "k"), -137);
    cr_assert_eq(num(a, 0, "mmin"), 4);
    cr_assert_eq(num(a, 0, "wrap_s"), 1);
    cr_assert_eq(num(a, 0, "wrap_t"), 2);

    const gc_rowbuf *l = rows(&r.lv, "tfrag.light");
    cr_assert_eq(l->count, 7);
    cr_assert_eq(num(l, 3, "azimuth"), 200); /* read as an index, not as -56 */
    cr_assert_eq(num(l, 3, "elevation"), 3);
    cr_assert_eq(num(l, 3, "color"), 0x8000 | 3);
    cr_assert_eq(num(l, 3, "select"), 0x0100 | 3);
    done(&r);
}

Test(tfrag, a_bad_patch_does_not_stop_the_others)
{
    tf_core c;
    tf_opts bad = {.unknown_cmd_in_lod1 = 1};
    tf_opts good = {0};
    tf_opts o[2] = {bad, good};
    tf_build(&c, 2, o);
    run r;
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_eq(r.st, GC_OK);
    const gc_rowbuf *p = rows(&r.lv, "tfrag.patch");
    cr_assert_eq(p->count, 2);
    cr_assert_eq(num(p, 0, "walk_ok"), 0);
    cr_assert_str_eq(str(p, 0, "walk_error_name"), "vif_unknown");
    cr_assert_eq(num(p, 0, "walk_error_list"), 2);
    cr_assert_eq(num(p, 0, "walk_error_ofs"), c.bad_ofs[0]);
    char want[64];
    snprintf(want, sizeof want, "core_data/tfrag[0]/lod1/vif@0x%llx",
             (unsigned long long)c.bad_ofs[0]);
    cr_assert_str_eq(str(p, 0, "walk_where"), want);
    cr_assert_eq(num(p, 0, "positions_decoded"), 0);
    cr_assert_eq(num(p, 1, "walk_ok"), 1);
    cr_assert_eq(num(p, 1, "positions_decoded"), 7);
    /* no partial geometry of patch 0 */
    const gc_rowbuf *v = rows(&r.lv, "tfrag.vertex");
    cr_assert_eq(v->count, 7);
    for (size_t i = 0; i < v->count; i++)
        cr_assert_eq(num(v, i, "patch_row"), 1);
    cr_assert_eq(rows(&r.lv, "tfrag.triangle")->count, 10);
    cr_assert_eq(rows(&r.lv, "tfrag.vertex_info")->count, 7);
    cr_assert_eq(rows(&r.lv, "tfrag.adgif")->count, 1);
    cr_assert_eq(rows(&r.lv, "tfrag.light")->count, 7);
    done(&r);
}

Test(tfrag, truncation_at_every_boundary)
{
    tf_core c;
    tf_build(&c, 1, NULL);
    size_t region = (size_t)(c.occlusion - c.tfrags);
    size_t table_end = 0x40 + 0x40;
    size_t data_rel = (size_t)(c.data_ofs[0] - (uint64_t)c.tfrags);
    for (size_t cut = 0; cut < region; cut += 2) {
        run r;
        decode(&r, c.b, (size_t)c.tfrags + cut, c.tfrags, c.tfrags + (int32_t)cut, 0);
        if (cut < 16) {
            cr_assert_eq(r.st, GC_E_TRUNCATED, "cut %zu", cut);
            cr_assert_str_eq(r.diag.where, "TEST/core_data/tfrag/block");
            cr_assert_eq(r.diag.file_ofs, (uint64_t)c.tfrags);
        } else if (cut < table_end) {
            cr_assert_eq(r.st, GC_E_RANGE, "cut %zu", cut);
            cr_assert_str_eq(r.diag.where, "TEST/core_data/tfrag/table");
        } else {
            cr_assert_eq(r.st, GC_OK, "cut %zu: %s", cut, r.diag.msg);
            const gc_rowbuf *p = rows(&r.lv, "tfrag.patch");
            cr_assert_eq(p->count, 1);
            bool lists_whole = cut >= data_rel + c.rgba_rel[0];
            cr_assert_eq(num(p, 0, "walk_ok"), lists_whole, "cut %zu", cut);
            if (!lists_whole) {
                cr_assert_str_eq(str(p, 0, "walk_error_name"), "list_bounds", "cut %zu", cut);
                cr_assert_eq(rows(&r.lv, "tfrag.vertex")->count, 0);
            } else {
                cr_assert_eq(num(p, 0, "positions_decoded"), 7);
                if (cut < data_rel + c.light_end_rel[0])
                    cr_assert_eq(num(p, 0, "light_count"), 0, "cut %zu", cut);
            }
        }
        done(&r);
    }
}

Test(tfrag, counts_and_offsets_outside_the_region)
{
    tf_core c;
    tf_build(&c, 1, NULL);
    run r;
    uint8_t *blk = c.b + c.tfrags;

    /* count past the end */
    tf_put32(blk + 4, 1000);
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_eq(r.st, GC_E_RANGE);
    cr_assert_str_eq(r.diag.where, "TEST/core_data/tfrag/table");
    cr_assert_eq(r.diag.file_ofs, (uint64_t)c.tfrags + 4);
    done(&r);
    tf_put32(blk + 4, 0x7fffffff); /* overflow-checked */
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_eq(r.st, GC_E_RANGE);
    done(&r);
    tf_put32(blk + 4, 0xffffffff);
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_eq(r.st, GC_E_RANGE);
    cr_assert(strstr(r.diag.msg, "negative") != NULL);
    done(&r);
    tf_put32(blk + 4, 1);

    /* table offset outside the region, or inside the block header */
    tf_put32(blk + 0, 0x7fff0000);
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_eq(r.st, GC_E_RANGE);
    done(&r);
    tf_put32(blk + 0, 8);
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_eq(r.st, GC_E_RANGE);
    done(&r);
    tf_put32(blk + 0, 0x40);

    /* region inverted; region past core_data */
    decode(&r, c.b, c.n, c.tfrags, c.tfrags - 1, 0);
    cr_assert_eq(r.st, GC_E_RANGE);
    done(&r);
    decode(&r, c.b, c.n, c.tfrags, (int32_t)c.n + 16, 0);
    cr_assert_eq(r.st, GC_E_TRUNCATED);
    cr_assert_eq(r.diag.file_ofs, c.n);
    done(&r);

    /* patch data offset outside the region (either side): a walk error of that patch */
    uint8_t *hdr = blk + 0x40;
    uint32_t data = tf_get32(hdr + 0x10);
    int32_t bad_data[] = {0x7fffffff, -64, (int32_t)(c.occlusion - c.tfrags)};
    for (size_t i = 0; i < 3; i++) {
        tf_put32(hdr + 0x10, (uint32_t)bad_data[i]);
        decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
        cr_assert_eq(r.st, GC_OK);
        const gc_rowbuf *p = rows(&r.lv, "tfrag.patch");
        cr_assert_eq(num(p, 0, "walk_ok"), 0);
        cr_assert_str_eq(str(p, 0, "walk_error_name"), "list_bounds");
        cr_assert_eq(rows(&r.lv, "tfrag.vertex")->count, 0);
        done(&r);
    }
    tf_put32(hdr + 0x10, data);

    /* a list offset past the patch data */
    uint16_t rgba = tf_get16(hdr + 0x1e);
    tf_put16(hdr + 0x1e, 0xfff0);
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_eq(num(rows(&r.lv, "tfrag.patch"), 0, "walk_ok"), 0);
    cr_assert_str_eq(str(rows(&r.lv, "tfrag.patch"), 0, "walk_error_name"), "list_bounds");
    cr_assert_eq(num(rows(&r.lv, "tfrag.patch"), 0, "walk_error_list"), 4);
    done(&r);
    tf_put16(hdr + 0x1e, rgba);

    /* inverted lists: the common list ending before it starts */
    uint16_t l1 = tf_get16(hdr + 0x18);
    tf_put16(hdr + 0x18, (uint16_t)(tf_get16(hdr + 0x16) - 16));
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_str_eq(str(rows(&r.lv, "tfrag.patch"), 0, "walk_error_name"), "list_bounds");
    cr_assert_eq(num(rows(&r.lv, "tfrag.patch"), 0, "walk_error_list"), 0);
    done(&r);
    tf_put16(hdr + 0x18, l1);
}

Test(tfrag, vif_list_cut_inside_a_payload)
{
    tf_core c;
    tf_build(&c, 1, NULL);
    uint8_t *hdr = c.b + c.tfrags + 0x40;
    /* end the common list (lod_1_ofs) 8 bytes into the common positions payload */
    uint64_t pos_code = c.pos_code_ofs[0];
    uint16_t cut_rel = (uint16_t)(pos_code + 4 + 8 - c.data_ofs[0]);
    tf_put16(hdr + 0x18, cut_rel);
    run r;
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_eq(r.st, GC_OK);
    const gc_rowbuf *p = rows(&r.lv, "tfrag.patch");
    cr_assert_eq(num(p, 0, "walk_ok"), 0);
    cr_assert_str_eq(str(p, 0, "walk_error_name"), "vif_cut");
    cr_assert_eq(num(p, 0, "walk_error_list"), 0);
    cr_assert_eq(num(p, 0, "walk_error_ofs"), pos_code);
    cr_assert_eq(num(p, 0, "positions_decoded"), 0);
    cr_assert_eq(rows(&r.lv, "tfrag.vertex")->count, 0);
    cr_assert_eq(rows(&r.lv, "tfrag.triangle")->count, 0);
    done(&r);
}

Test(tfrag, common_list_must_open_with_the_vu_header)
{
    tf_core c;
    tf_build(&c, 1, NULL);
    /* the VU header unpack sent to address 1 instead of 0 */
    uint8_t *code = c.b + c.vu_code_ofs[0];
    tf_put32(code, tf_get32(code) | 1);
    run r;
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    const gc_rowbuf *p = rows(&r.lv, "tfrag.patch");
    cr_assert_eq(num(p, 0, "walk_ok"), 0);
    cr_assert_str_eq(str(p, 0, "walk_error_name"), "no_vu_header");
    cr_assert_eq(num(p, 0, "walk_error_ofs"), c.vu_code_ofs[0]);
    done(&r);
}

Test(tfrag, origin_falls_back_to_the_light_block)
{
    /* no common positions: the origin is the quadword at light_ofs */
    tf_core c;
    tf_opts o = {.no_common_positions = 1};
    tf_build(&c, 1, &o);
    run r;
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    const gc_rowbuf *p = rows(&r.lv, "tfrag.patch");
    cr_assert_eq(num(p, 0, "walk_ok"), 1);
    cr_assert_eq(num(p, 0, "origin_source"), 2);
    cr_assert_eq(num(p, 0, "origin_x"), TF_ORIGIN_X);
    cr_assert_eq(num(p, 0, "origin_z"), TF_ORIGIN_Z);
    cr_assert_eq(num(p, 0, "positions_common"), 0);
    cr_assert_eq(num(p, 0, "positions_decoded"), 3);
    done(&r);
}

Test(tfrag, an_unpack_to_no_known_address_is_counted_not_decoded)
{
    /* the ad-gif unpack sent to VU address 10 instead of the header's 9 */
    tf_core c;
    tf_build(&c, 1, NULL);
    uint8_t *code = c.b + c.data_ofs[0] + tf_get16(c.b + c.tfrags + 0x40 + 0x1c) - 4;
    cr_assert_eq(tf_get32(code) & 0x3ff, 9);
    tf_put32(code, (tf_get32(code) & ~0x3ffu) | 10);
    run r;
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    const gc_rowbuf *p = rows(&r.lv, "tfrag.patch");
    cr_assert_eq(num(p, 0, "walk_ok"), 1);
    cr_assert_eq(num(p, 0, "unclassified_unpacks"), 1);
    cr_assert_eq(num(p, 0, "adgif_count"), 0);
    cr_assert_eq(num(p, 0, "adgif_payload_ofs"), -1);
    cr_assert_eq(rows(&r.lv, "tfrag.adgif")->count, 0);
    /* triangles keep their rows but name no texture */
    const gc_rowbuf *t = rows(&r.lv, "tfrag.triangle");
    cr_assert_eq(t->count, 10);
    cr_assert_eq(num(t, 0, "texture"), -1);
    done(&r);
}

Test(tfrag, needs_the_core_header)
{
    gc_level lv;
    cr_assert_eq(gc_level_init(&lv, 0, "TEST", NULL, 0), GC_OK);
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_tfrag.run(&lv, &d), GC_E_UNSUPPORTED);
    cr_assert_str_eq(d.msg, "needs core header");
    gc_level_free(&lv);
}

Test(tfrag, empty_lod01_tier_parents_resolve)
{
    /* With no LOD-01 tier every LOD-01 VU address collapses onto the LOD-0
     * parent array's; the empty-tier guard keeps it for LOD 0. */
    tf_core c;
    tf_opts o = {.empty_lod01 = 1};
    tf_build(&c, 1, &o);
    run r;
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    const gc_rowbuf *p = rows(&r.lv, "tfrag.patch");
    cr_assert_eq(num(p, 0, "walk_ok"), 1, "%s", str(p, 0, "walk_where"));
    cr_assert_eq(num(p, 0, "positions_decoded"), 6);
    cr_assert_eq(num(p, 0, "vi_lod01"), 0);
    cr_assert_eq(num(p, 0, "parents_lod0"), 4);
    const gc_rowbuf *vi = rows(&r.lv, "tfrag.vertex_info");
    for (size_t i = 0; i < vi->count; i++)
        if (num(vi, i, "tier") != 0)
            cr_assert_eq(num(vi, i, "parents_resolved"), 1, "vi %zu", i);
    done(&r);
}

/* Wrench's reading replayed by the decoder (docs/formats/tfrag.md §10): on a clean patch the
 * sixth code of the common list is the origin STROW, every unpack is where Wrench looks for it
 * and every LOD position has both parents; each defect shows in its own column only. */
Test(tfrag, wrench_reading_columns)
{
    tf_opts o[4] = {
        {0}, {.stcol_in_common = 1}, {.big_lod0_parents = 1}, {.lod0_entries_swapped = 1}};
    tf_core c;
    tf_build(&c, 4, o);
    run r;
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, 0);
    cr_assert_eq(r.st, GC_OK);
    const gc_rowbuf *p = rows(&r.lv, "tfrag.patch");
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(num(p, i, "walk_ok"), 1, "patch %zu", i);
        cr_assert_eq(num(p, i, "origin_x"), TF_ORIGIN_X, "the robust rule holds on every patch");
        cr_assert_eq(num(p, i, "positions_lod0"), 2);
    }
    /* clean */
    cr_assert_eq(num(p, 0, "origin6_strow"), 1);
    cr_assert_eq(num(p, 0, "origin6_x"), TF_ORIGIN_X);
    cr_assert_eq(num(p, 0, "origin6_z"), TF_ORIGIN_Z);
    cr_assert_eq(num(p, 0, "positional_mismatches"), 0);
    cr_assert_eq(num(p, 0, "parents_lod0"), 4, "2 positions rounded up to 4");
    /* an STCOL makes the sixth code the vertex-info UNPACK */
    cr_assert_eq(num(p, 1, "origin6_strow"), 0);
    cr_assert_eq(num(p, 1, "positional_mismatches"), 0, "STCOL is not an unpack");
    /* a parent array of 8 entries for 2 positions */
    cr_assert_eq(num(p, 2, "parents_lod0"), 8);
    cr_assert_eq(num(p, 2, "positional_mismatches"), 0);
    cr_assert_eq(num(p, 2, "origin6_strow"), 1);
    /* vertex info before the parent array: Wrench takes the V4_16 for... nothing at that place
     * (it wants a V4_8 parent array there) and never reads the V4_8 after it */
    cr_assert_gt(num(p, 3, "positional_mismatches"), 0);
    cr_assert_eq(num(p, 3, "parents_lod0"), 4);
    /* every LOD position of the clean patch has both parents */
    const gc_rowbuf *v = rows(&r.lv, "tfrag.vertex");
    size_t lod = 0;
    for (size_t i = 0; i < v->count; i++) {
        if (num(v, i, "patch_row") != 0)
            continue;
        if (num(v, i, "tier") != 0) {
            lod++;
            /* the fixture's LOD-0 entries name the LOD-01 position as a first parent */
            cr_assert_lt(num(v, i, "lod_parent0"), 7.0, "a position of the patch (row %zu)", i);
            cr_assert_lt(num(v, i, "lod_parent1"), 7.0, "row %zu", i);
        }
    }
    cr_assert_eq(lod, 3u, "one LOD-01 and two LOD-0 positions");
    done(&r);
}

#if GC_FAULTS_BUILT
/* Each fault switch changes exactly what its invariant column shows. */
Test(tfrag, fault_switches_show_in_their_columns)
{
    tf_core c;
    tf_build(&c, 1, NULL);
    run r;
    static const int vert_faults[] = {GC_FAULT_patch_data_block, GC_FAULT_common_only,
                                      GC_FAULT_vif_imm_nibble, GC_FAULT_pad2,
                                      GC_FAULT_inline_payloads};
    for (size_t i = 0; i < sizeof vert_faults / sizeof vert_faults[0]; i++) {
        decode(&r, c.b, c.n, c.tfrags, c.occlusion, vert_faults[i]);
        cr_assert_neq(num(rows(&r.lv, "tfrag.patch"), 0, "positions_decoded"), 7, "fault %d",
                      vert_faults[i]);
        done(&r);
    }
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, GC_FAULT_strips_by_arrival);
    cr_assert_neq(num(rows(&r.lv, "tfrag.patch"), 0, "tris_lod0"), 5);
    done(&r);
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, GC_FAULT_origin_last_strow);
    cr_assert_eq(num(rows(&r.lv, "tfrag.patch"), 0, "origin_x"), 186);
    done(&r);
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, GC_FAULT_k_unsigned);
    cr_assert_gt(num(rows(&r.lv, "tfrag.adgif"), 0, "k"), 0);
    done(&r);
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, GC_FAULT_v4_8_one_index);
    const gc_rowbuf *vi = rows(&r.lv, "tfrag.vertex_info");
    cr_assert_eq(num(vi, 6, "parents_resolved"), 0);
    done(&r);
    tf_opts o = {.empty_lod01 = 1};
    tf_build(&c, 1, &o);
    decode(&r, c.b, c.n, c.tfrags, c.occlusion, GC_FAULT_parent_addr_only);
    vi = rows(&r.lv, "tfrag.vertex_info");
    size_t unresolved = 0;
    for (size_t i = 0; i < vi->count; i++)
        unresolved += num(vi, i, "tier") != 0 && num(vi, i, "parents_resolved") == 0;
    cr_assert_gt(unresolved, 0);
    done(&r);
}
#endif

/* ---- the YAML invariants on the hand-assembled level --------------------- */

#include "gc_inv.h"

extern const gc_decoder gc_dec_lod;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static gc_inv_set *load_rules(void)
{
    static const char *const files[] = {GC_TEST_DATA_DIR "/../invariants/tfrag.yaml",
                                        GC_TEST_DATA_DIR "/../invariants/lod.yaml"};
    char *texts[2] = {slurp(files[0]), slurp(files[1])};
    size_t n;
    const gc_table_desc *const *descs = gc_table_registry(&n);
    char err[4096] = "";
    gc_inv_set *s =
        gc_inv_load_strings(files, (const char *const *)texts, 2, descs, n, err, sizeof err);
    free(texts[0]);
    free(texts[1]);
    cr_assert(s, "invariants do not load:\n%s", err);
    return s;
}

/* Decode the fixture with tfrag and lod, plus a 4-entry texture table. */
static void decode_all(run *r, const tf_core *c, int fault)
{
    decode(r, c->b, c->n, c->tfrags, c->occlusion, fault);
    cr_assert_eq(r->st, GC_OK);
    gc_rowbuf *tex = (gc_rowbuf *)rows(&r->lv, "texture.tfrag");
    for (int i = 0; i < 4; i++)
        cr_assert(gc_rows_push(tex));
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_dec_lod.run(&r->lv, &d), GC_OK, "%s", d.msg);
}

static uint64_t failures(const gc_inv_set *s, run *r, const char *id, char *sample, size_t cap,
                         uint64_t *checked)
{
    size_t i = gc_inv_find(s, id);
    cr_assert_neq(i, (size_t)-1, "no invariant %s", id);
    gc_table *t = calloc(r->lv.table_count, sizeof *t);
    gc_level_tables(&r->lv, t);
    gc_inv_result res;
    cr_assert_eq(gc_inv_eval_level(s, i, t, 0, 1, &res), 0);
    uint64_t f = res.failed;
    if (sample && cap)
        snprintf(sample, cap, "%s", res.sample_count ? res.samples[0].values : "");
    if (checked)
        *checked = res.checked;
    gc_inv_result_free(&res);
    free(t);
    return f;
}

Test(tfrag_rules, every_invariant_passes_on_a_correct_decode)
{
    gc_inv_set *s = load_rules();
    tf_opts variants[2] = {{0}, {.empty_lod01 = 1}};
    for (int v = 0; v < 2; v++) {
        tf_core c;
        tf_build(&c, 1, &variants[v]);
        run r;
        decode_all(&r, &c, 0);
        for (size_t i = 0; i < gc_inv_count(s); i++) {
            const gc_inv_info *info = gc_inv_get(s, i);
            if (strncmp(info->id, "tfrag.", 6) && strncmp(info->id, "lod.", 4))
                continue;
            char sample[256];
            uint64_t checked;
            uint64_t f = failures(s, &r, info->id, sample, sizeof sample, &checked);
            cr_assert_eq(f, 0, "variant %d: %s fails: %s", v, info->id, sample);
            if (v == 0)
                cr_assert_gt(checked, 0, "%s checked nothing", info->id);
        }
        done(&r);
    }
    gc_inv_free(s);
}

#if GC_FAULTS_BUILT
/* Each tfrag fault (and lod_centre) fails the invariant the catalogue names. */
Test(tfrag_rules, each_fault_fails_its_named_invariant)
{
    gc_inv_set *s = load_rules();
    static const char *const faults[] = {
        "patch_data_block", "common_only",       "vif_imm_nibble",    "pad2",
        "inline_payloads",  "strips_by_arrival", "origin_last_strow", "parent_addr_only",
        "v4_8_one_index",   "k_unsigned",        "lod_centre",        "origin_first_strow"};
    int count;
    const gc_fault_info *cat = gc_fault_catalogue(&count);
    for (size_t k = 0; k < sizeof faults / sizeof faults[0]; k++) {
        int id = gc_fault_lookup(faults[k]);
        cr_assert_gt(id, 0, "%s not in the catalogue", faults[k]);
        tf_core c;
        tf_opts o = {.empty_lod01 = strcmp(faults[k], "parent_addr_only") == 0};
        tf_build(&c, 1, &o);
        run r;
        decode_all(&r, &c, id);
        uint64_t f = failures(s, &r, cat[id].invariant, NULL, 0, NULL);
        cr_assert_gt(f, 0, "fault %s does not fail %s", faults[k], cat[id].invariant);
        done(&r);
    }
    gc_inv_free(s);
}
#endif

/* ---- the synthetic corpus: decoded totals equal the writer's plan -------- */

#include "sy_corpus.h"

static size_t count_where(const gc_rowbuf *rb, const char *colname, double v)
{
    size_t n = 0;
    for (size_t i = 0; i < rb->count; i++)
        n += num(rb, i, colname) == v;
    return n;
}

static void corpus_level(const gc_inv_set *s, int index)
{
    sy_options opt = {.scale = SY_SCALE_SMALL, .seed = 1};
    sy_buf b;
    memset(&b, 0, sizeof b);
    cr_assert_eq(sy_level_build(&opt, index, &b), 0);
    const sy_level_plan *plan = sy_plan(SY_SCALE_SMALL, index);
    cr_assert(plan);
    gc_level lv;
    char name[32];
    snprintf(name, sizeof name, "LEVEL%d.WAD", index);
    cr_assert_eq(gc_level_init(&lv, index, name, b.data, b.len), GC_OK);
    gc_level_decode(&lv);
    const gc_rowbuf *st = rows(&lv, "decode.status");
    for (size_t i = 0; i < st->count; i++) {
        const char *dn = str(st, i, "name");
        if (!strcmp(dn, "tfrag") || !strcmp(dn, "lod"))
            cr_assert_eq(num(st, i, "ok"), 1, "%s: %s %s: %s", name, dn, str(st, i, "where"),
                         str(st, i, "message"));
    }
    const gc_rowbuf *p = rows(&lv, "tfrag.patch");
    cr_assert_eq(p->count, plan->tfrag_patches, "%s patches", name);
    double pos = 0, tris = 0;
    for (size_t i = 0; i < p->count; i++) {
        pos += num(p, i, "positions_decoded");
        tris += num(p, i, "tris_lod0");
    }
    cr_assert_eq(pos, plan->tfrag_positions, "%s positions", name);
    cr_assert_eq(tris, plan->tfrag_triangles, "%s triangles", name);
    const gc_rowbuf *vi = rows(&lv, "tfrag.vertex_info");
    cr_assert_eq(count_where(vi, "tier", 0), plan->vi_common, "%s vi common", name);
    cr_assert_eq(count_where(vi, "tier", 1), plan->vi_lod01, "%s vi lod01", name);
    cr_assert_eq(count_where(vi, "tier", 2), plan->vi_lod0, "%s vi lod0", name);
    cr_assert_eq(rows(&lv, "tfrag.adgif")->count, plan->tfrag_adgifs, "%s adgifs", name);
    cr_assert_eq(rows(&lv, "tfrag.vertex")->count, plan->tfrag_positions);
    cr_log_info(
        "%s: %zu patches, %.0f positions, %.0f LOD-0 triangles, %zu vertex info, %zu ad-gifs", name,
        p->count, pos, tris, vi->count, rows(&lv, "tfrag.adgif")->count);

    gc_table *t = calloc(lv.table_count, sizeof *t);
    gc_level_tables(&lv, t);
    for (size_t i = 0; i < gc_inv_count(s); i++) {
        const gc_inv_info *info = gc_inv_get(s, i);
        if (strncmp(info->id, "tfrag.", 6) && strncmp(info->id, "lod.", 4))
            continue;
        gc_inv_result res;
        cr_assert_eq(gc_inv_eval_level(s, i, t, index, 1, &res), 0);
        cr_assert_eq(res.failed, 0, "%s: %s fails %llu of %llu: %s", name, info->id,
                     (unsigned long long)res.failed, (unsigned long long)res.checked,
                     res.sample_count ? res.samples[0].values : "");
        gc_inv_result_free(&res);
    }
    free(t);
    gc_level_free(&lv);
    sy_buf_free(&b);
}

Test(tfrag_corpus, small_corpus_matches_the_plan, .timeout = 600)
{
    gc_inv_set *s = load_rules();
    for (int i = 0; i < SY_LEVEL_COUNT; i++)
        corpus_level(s, i);
    gc_inv_free(s);
}

#if GC_FAULTS_BUILT
/* On the synthetic corpus too, each tfrag fault (and lod_centre) fails the
 * invariant the catalogue names (levels 0 and 13 are enough to show it). */
Test(tfrag_corpus, each_fault_fails_its_named_invariant, .timeout = 600)
{
    gc_inv_set *s = load_rules();
    static const char *const faults[] = {
        "patch_data_block", "common_only",       "vif_imm_nibble",    "pad2",
        "inline_payloads",  "strips_by_arrival", "origin_last_strow", "parent_addr_only",
        "v4_8_one_index",   "k_unsigned",        "lod_centre",        "origin_first_strow"};
    int count;
    const gc_fault_info *cat = gc_fault_catalogue(&count);
    static const int levels[] = {0, 13};
    for (size_t li = 0; li < 2; li++) {
        sy_options opt = {.scale = SY_SCALE_SMALL, .seed = 1};
        sy_buf b;
        memset(&b, 0, sizeof b);
        cr_assert_eq(sy_level_build(&opt, levels[li], &b), 0);
        for (size_t k = 0; k < sizeof faults / sizeof faults[0]; k++) {
            int id = gc_fault_lookup(faults[k]);
            gc_level lv;
            cr_assert_eq(gc_level_init(&lv, levels[li], "L", b.data, b.len), GC_OK);
            lv.fault = id;
            gc_level_decode(&lv);
            gc_table *t = calloc(lv.table_count, sizeof *t);
            gc_level_tables(&lv, t);
            gc_inv_result res;
            size_t inv = gc_inv_find(s, cat[id].invariant);
            cr_assert_neq(inv, (size_t)-1);
            cr_assert_eq(gc_inv_eval_level(s, inv, t, 0, 1, &res), 0);
            cr_assert_gt(res.failed, 0, "level %d: fault %s does not fail %s", levels[li],
                         faults[k], cat[id].invariant);
            cr_log_info("level %d: %s fails %s on %llu of %llu rows", levels[li], faults[k],
                        cat[id].invariant, (unsigned long long)res.failed,
                        (unsigned long long)res.checked);
            gc_inv_result_free(&res);
            free(t);
            gc_level_free(&lv);
        }
        sy_buf_free(&b);
    }
    gc_inv_free(s);
}
#endif
