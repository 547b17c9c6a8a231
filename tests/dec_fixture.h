/* SPDX-License-Identifier: MIT */
/* A small hand-built LEVEL<n>.WAD for the decoder tests (tests/test_dec_*.c).
 *
 * Written from formats.md, independently of both decoders/ and synth/: the
 * parts (overlay, core_index, decompressed core_data, decompressed gameplay,
 * sound bank, occlusion mappings) are built first by fx_parts(), a test may
 * change any of them, and fx_assemble() lays out the container, compressing
 * core_data and gameplay with a literal-only WAD-LZ writer. Every offset a
 * test may want to patch is recorded in fx_level. */
#ifndef DEC_FIXTURE_H
#define DEC_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"
#include "gc_reader.h"

typedef struct fx_buf {
    uint8_t *p;
    size_t len, cap;
} fx_buf;

static inline void fx_reserve(fx_buf *b, size_t n)
{
    if (b->len + n <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
        cap *= 2;
    b->p = realloc(b->p, cap);
    if (!b->p)
        abort();
    b->cap = cap;
}
static inline void fx_put(fx_buf *b, const void *src, size_t n)
{
    fx_reserve(b, n);
    memcpy(b->p + b->len, src, n);
    b->len += n;
}
static inline void fx_zero(fx_buf *b, size_t n)
{
    fx_reserve(b, n);
    memset(b->p + b->len, 0, n);
    b->len += n;
}
static inline void fx_pad_to(fx_buf *b, size_t at)
{
    if (b->len < at)
        fx_zero(b, at - b->len);
}
static inline void fx_align(fx_buf *b, size_t a)
{
    fx_pad_to(b, (b->len + a - 1) / a * a);
}
static inline void fx_set_u8(fx_buf *b, size_t at, uint8_t v)
{
    fx_pad_to(b, at + 1);
    b->p[at] = v;
}
static inline void fx_set_u16(fx_buf *b, size_t at, uint16_t v)
{
    fx_pad_to(b, at + 2);
    b->p[at] = (uint8_t)v;
    b->p[at + 1] = (uint8_t)(v >> 8);
}
static inline void fx_set_u32(fx_buf *b, size_t at, uint32_t v)
{
    fx_pad_to(b, at + 4);
    for (int i = 0; i < 4; i++)
        b->p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}
static inline void fx_set_f32(fx_buf *b, size_t at, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    fx_set_u32(b, at, u);
}
static inline void fx_u32(fx_buf *b, uint32_t v)
{
    fx_set_u32(b, b->len, v);
}
static inline void fx_free(fx_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* Literal-only WAD-LZ (formats.md §1.2): big/medium literal packets of up to
 * 273 bytes, a dummy "11 t 00" between them (no literal after a literal), and
 * a 1..3-byte tail in the dummy's trailing-literal bits. */
static inline void fx_lz(fx_buf *out, const uint8_t *src, size_t n)
{
    size_t start = out->len;
    fx_put(out, "WAD", 3);
    fx_zero(out, 4 + 9);
    size_t i = 0;
    while (i < n) {
        size_t rem = n - i;
        if (rem < 4) {
            uint8_t d[3] = {0x11, (uint8_t)rem, 0x00};
            fx_put(out, d, 3);
            fx_put(out, src + i, rem);
            break;
        }
        size_t k = rem > 273 ? 273 : rem;
        if (k < 18) {
            uint8_t f = (uint8_t)(k - 3);
            fx_put(out, &f, 1);
        } else {
            uint8_t f[2] = {0x00, (uint8_t)(k - 18)};
            fx_put(out, f, 2);
        }
        fx_put(out, src + i, k);
        i += k;
        if (i < n) {
            size_t t = n - i <= 3 ? n - i : 0;
            uint8_t d[3] = {0x11, (uint8_t)t, 0x00};
            fx_put(out, d, 3);
            fx_put(out, src + i, t);
            i += t;
        }
    }
    fx_set_u32(out, start + 3, (uint32_t)(out->len - start));
}

/* Offsets of the fixture (decompressed core_data and gameplay are 0-based). */
enum {
    FX_CD_OCCLUSION = 0x100,
    FX_CD_SKY = 0x200,
    FX_CD_COLLISION = 0x400,
    FX_CD_TEXTURES = 0x500,
    FX_CD_MOBY = 0x600,
    FX_CD_TIE = 0x800,
    FX_CD_SHRUB = 0x900,
    FX_CD_SIZE = 0xA00,
    FX_CI_MOBY = 0xC0,
    FX_CI_TIE = 0xE0,
    FX_CI_SHRUB = 0x100,
    FX_CI_TEXTURES = 0x130,
    FX_CI_SIZE = 0x140,
    FX_OV_DECOY = 0x100,
    FX_OV_TABLE = 0x400,
    FX_OV_SIZE = 0x1000,
    FX_GP_LIGHTS = 0xA0,
    FX_GP_OCCL = 0xF0,
    FX_GP_SIZE = 0x110,
    FX_MOBY_OCLASS = 14,
    FX_TIE_OCLASS = 501,
    FX_SHRUB_OCLASS = 7001,
};

typedef struct fx_level {
    fx_buf overlay, core_index, core_data, gameplay, sound_bank, occlusion;
    fx_buf file;
    int32_t level_id;
    /* filled by fx_assemble: absolute file offsets */
    size_t data_ofs, data_size;
    size_t ov_ofs, ci_ofs, cd_ofs, cd_z_size; /* relative to the data extent */
    size_t sound_ofs, gameplay_ofs, gameplay_z_size, occl_ofs;
} fx_level;

static inline void fx_normals(fx_buf *ov, size_t at)
{
    for (int i = 0; i < 256; i++) {
        double a = i * 3.14159265358979323846 / 128.0;
        float c = (float)cos(a), s = (float)sin(a);
        if (i == 0) /* exact, as the game stores them */
            c = 1.0f, s = 0.0f;
        fx_set_f32(ov, at + 8u * (size_t)i, c);
        fx_set_f32(ov, at + 8u * (size_t)i + 4, s);
    }
}

static inline void fx_parts(fx_level *f)
{
    memset(f, 0, sizeof *f);
    f->level_id = 3;
    /* overlay: code-ish words, a decoy lone (1.0, 0.0) then the table */
    for (size_t i = 0; i < FX_OV_SIZE; i += 4)
        fx_set_u32(&f->overlay, i, 0x27BD0000u + (uint32_t)i);
    fx_set_f32(&f->overlay, FX_OV_DECOY, 1.0f);
    fx_set_u32(&f->overlay, FX_OV_DECOY + 4, 0);
    fx_set_f32(&f->overlay, FX_OV_DECOY + 8, 0.25f);
    fx_normals(&f->overlay, FX_OV_TABLE);

    /* core_data image */
    fx_buf *cd = &f->core_data;
    fx_pad_to(cd, FX_CD_SIZE);
    /* occlusion grid: root, one z node, one y node, one mask */
    fx_set_u32(cd, FX_CD_OCCLUSION + 0, 8);  /* masks at word 8 */
    fx_set_u16(cd, FX_CD_OCCLUSION + 4, 5);  /* z_coord */
    fx_set_u16(cd, FX_CD_OCCLUSION + 6, 2);  /* z_count */
    fx_set_u16(cd, FX_CD_OCCLUSION + 8, 3);  /* z[0] -> word 3 */
    fx_set_u16(cd, FX_CD_OCCLUSION + 10, 0); /* z[1] empty */
    fx_set_u16(cd, FX_CD_OCCLUSION + 12, 1); /* y_coord */
    fx_set_u16(cd, FX_CD_OCCLUSION + 14, 1); /* y_count */
    fx_set_u16(cd, FX_CD_OCCLUSION + 16, 5); /* y[0] -> word 5 */
    fx_set_u16(cd, FX_CD_OCCLUSION + 20, 2); /* x_coord */
    fx_set_u16(cd, FX_CD_OCCLUSION + 22, 2); /* x_count */
    fx_set_u16(cd, FX_CD_OCCLUSION + 24, 0); /* mask 0 */
    fx_set_u16(cd, FX_CD_OCCLUSION + 26, 0xFFFF);
    /* sky: one shell with one cluster */
    fx_set_u32(cd, FX_CD_SKY + 0x00, 0x80402010u);
    fx_set_u16(cd, FX_CD_SKY + 0x06, 1);           /* shell_count */
    fx_set_u32(cd, FX_CD_SKY + 0x20, 0x40);        /* shells[0] */
    fx_set_u32(cd, FX_CD_SKY + 0x40, 1);           /* cluster_count */
    fx_set_u32(cd, FX_CD_SKY + 0x44, 0);           /* flags: textured */
    fx_set_u32(cd, FX_CD_SKY + 0x50 + 0x10, 0x70); /* cluster data */
    fx_set_u16(cd, FX_CD_SKY + 0x50 + 0x14, 3);    /* vertex_count */
    fx_set_u16(cd, FX_CD_SKY + 0x50 + 0x16, 1);    /* tri_count */
    /* moby class: header, packet table at +0x50 (two packets and a
     * zero/zero terminator that still carries a count) */
    fx_set_u32(cd, FX_CD_MOBY + 0x00, 0x50);
    fx_set_u8(cd, FX_CD_MOBY + 0x04, 2); /* high_lod_count */
    fx_set_u8(cd, FX_CD_MOBY + 0x08, 3); /* joint_count */
    fx_set_f32(cd, FX_CD_MOBY + 0x24, 0.25f);
    fx_set_u32(cd, FX_CD_MOBY + 0x50, 0x80); /* vif_list_offset */
    fx_set_u16(cd, FX_CD_MOBY + 0x54, 2);    /* vif_list_size */
    fx_set_u32(cd, FX_CD_MOBY + 0x58, 0xA0); /* vertex_offset = 0x80 + 2*16 */
    fx_set_u32(cd, FX_CD_MOBY + 0x60, 0xC0);
    fx_set_u16(cd, FX_CD_MOBY + 0x64, 1);
    fx_set_u32(cd, FX_CD_MOBY + 0x68, 0xD0);
    fx_set_u16(cd, FX_CD_MOBY + 0x74, 3); /* terminator: zero offsets, count 3 */
    /* tie class prefix */
    fx_set_u32(cd, FX_CD_TIE + 0x00, 0x80);
    fx_set_u32(cd, FX_CD_TIE + 0x04, 0x90);
    fx_set_u32(cd, FX_CD_TIE + 0x08, 0xA0);
    fx_set_u8(cd, FX_CD_TIE + 0x0c, 1);
    fx_set_u8(cd, FX_CD_TIE + 0x0d, 1);
    fx_set_u8(cd, FX_CD_TIE + 0x0e, 1);
    fx_set_f32(cd, FX_CD_TIE + 0x10, 12.0f);
    fx_set_f32(cd, FX_CD_TIE + 0x14, 25.0f);
    fx_set_f32(cd, FX_CD_TIE + 0x18, 40.0f);
    fx_set_f32(cd, FX_CD_TIE + 0x40, 1.0f);
    fx_set_u16(cd, FX_CD_TIE + 0x44, FX_TIE_OCLASS);
    /* shrub class header */
    fx_set_f32(cd, FX_CD_SHRUB + 0x10, 5.0f);
    fx_set_f32(cd, FX_CD_SHRUB + 0x20, 1.0f);
    fx_set_u16(cd, FX_CD_SHRUB + 0x24, FX_SHRUB_OCLASS);
    fx_set_u16(cd, FX_CD_SHRUB + 0x28, 1);
    fx_set_u32(cd, FX_CD_SHRUB + 0x2c, 0x60);

    /* core_index: 0xBC header, then the tables in their original order */
    fx_buf *ci = &f->core_index;
    fx_pad_to(ci, FX_CI_SIZE);
    fx_set_u32(ci, 0x00, 1);              /* gs_ram count */
    fx_set_u32(ci, 0x04, FX_CI_TEXTURES); /* gs_ram offset */
    fx_set_u32(ci, 0x08, 0);              /* tfrags */
    fx_set_u32(ci, 0x0c, FX_CD_OCCLUSION);
    fx_set_u32(ci, 0x10, FX_CD_SKY);
    fx_set_u32(ci, 0x14, FX_CD_COLLISION);
    fx_set_u32(ci, 0x18, 1);
    fx_set_u32(ci, 0x1c, FX_CI_MOBY);
    fx_set_u32(ci, 0x20, 1);
    fx_set_u32(ci, 0x24, FX_CI_TIE);
    fx_set_u32(ci, 0x28, 1);
    fx_set_u32(ci, 0x2c, FX_CI_SHRUB);
    for (unsigned t = 0; t < 6; t++) { /* texture tables, all empty */
        fx_set_u32(ci, 0x30 + 8 * t, 0);
        fx_set_u32(ci, 0x34 + 8 * t, FX_CI_TEXTURES);
    }
    fx_set_u32(ci, 0x60, FX_CD_TEXTURES);
    fx_set_u32(ci, 0x8c, FX_CD_SIZE); /* assets_decompressed_size; 0x88 set by fx_assemble */
    fx_set_u32(ci, FX_CI_MOBY + 0x00, FX_CD_MOBY);
    fx_set_u32(ci, FX_CI_MOBY + 0x04, FX_MOBY_OCLASS);
    memset(ci->p + FX_CI_MOBY + 0x10, 0xFF, 16);
    fx_set_u32(ci, FX_CI_TIE + 0x00, FX_CD_TIE);
    fx_set_u32(ci, FX_CI_TIE + 0x04, FX_TIE_OCLASS);
    memset(ci->p + FX_CI_TIE + 0x10, 0xFF, 16);
    fx_set_u32(ci, FX_CI_SHRUB + 0x00, FX_CD_SHRUB);
    fx_set_u32(ci, FX_CI_SHRUB + 0x04, FX_SHRUB_OCLASS);
    memset(ci->p + FX_CI_SHRUB + 0x10, 0xFF, 16);

    /* gameplay: block table, one directional light, occlusion mapping */
    fx_buf *gp = &f->gameplay;
    fx_pad_to(gp, FX_GP_SIZE);
    fx_set_u32(gp, 0x00, 0x9C);
    fx_set_u32(gp, 0x04, FX_GP_LIGHTS);
    fx_set_u32(gp, 0x90, FX_GP_OCCL);
    fx_set_u32(gp, FX_GP_LIGHTS, 1);
    fx_set_f32(gp, FX_GP_LIGHTS + 0x10, 1.0f);        /* colour_a.r */
    fx_set_f32(gp, FX_GP_LIGHTS + 0x10 + 0x14, 0.6f); /* direction_a.y */
    fx_set_f32(gp, FX_GP_LIGHTS + 0x10 + 0x18, 0.8f); /* direction_a.z */
    fx_set_f32(gp, FX_GP_LIGHTS + 0x10 + 0x30, 1.0f); /* direction_b.x */
    fx_set_u32(gp, FX_GP_OCCL, 1);

    /* sound bank and occlusion mappings (raw extents) */
    fx_pad_to(&f->sound_bank, 0x400);
    fx_set_u32(&f->sound_bank, 0x04, 0x400); /* total size */
    memcpy(f->sound_bank.p + 0x18, "SBlk", 4);
    memcpy(f->sound_bank.p + 0x24, "DAW", 3);
    fx_set_u32(&f->occlusion, 0, 1); /* tfrag_count */
    fx_pad_to(&f->occlusion, 0x18);
}

/* Lay out LEVEL.WAD: header, data, sound bank, gameplay, occlusion. */
static inline void fx_assemble(fx_level *f)
{
    fx_free(&f->file);
    fx_buf *b = &f->file;
    fx_pad_to(b, 0x800);
    /* data extent */
    fx_buf z = {0};
    fx_lz(&z, f->core_data.p, f->core_data.len);
    f->cd_z_size = z.len;
    fx_set_u32(&f->core_index, 0x88, (uint32_t)z.len); /* assets_compressed_size */
    f->data_ofs = b->len;
    fx_zero(b, 0x58);
    fx_align(b, 0x40);
    f->ov_ofs = b->len - f->data_ofs;
    fx_put(b, f->overlay.p, f->overlay.len);
    fx_align(b, 0x40);
    f->ci_ofs = b->len - f->data_ofs;
    fx_put(b, f->core_index.p, f->core_index.len);
    fx_align(b, 0x40);
    size_t gs_ofs = b->len - f->data_ofs;
    fx_zero(b, 0x40);
    f->cd_ofs = b->len - f->data_ofs;
    fx_put(b, z.p, z.len);
    size_t data_end = b->len - f->data_ofs;
    fx_align(b, 0x800);
    f->data_size = b->len - f->data_ofs;
    int32_t ranges[11][2] = {
        {(int32_t)f->ov_ofs, (int32_t)f->overlay.len},
        {(int32_t)f->ci_ofs, (int32_t)f->core_index.len},
        {(int32_t)gs_ofs, 0x40},
        {-1, 0},
        {-1, 0},
        {-1, 0},
        {-1, 0},
        {-1, 0},
        {-1, 0},
        {(int32_t)f->cd_ofs, (int32_t)(data_end - f->cd_ofs)},
        {-1, 0},
    };
    for (int i = 0; i < 11; i++) {
        fx_set_u32(b, f->data_ofs + 8u * (size_t)i, (uint32_t)ranges[i][0]);
        fx_set_u32(b, f->data_ofs + 8u * (size_t)i + 4, (uint32_t)ranges[i][1]);
    }
    fx_free(&z);
    /* sound bank */
    f->sound_ofs = b->len;
    fx_put(b, f->sound_bank.p, f->sound_bank.len);
    fx_align(b, 0x800);
    size_t sound_size = b->len - f->sound_ofs;
    /* gameplay (WAD-LZ) */
    f->gameplay_ofs = b->len;
    fx_lz(b, f->gameplay.p, f->gameplay.len);
    f->gameplay_z_size = b->len - f->gameplay_ofs;
    fx_align(b, 0x800);
    size_t gp_size = b->len - f->gameplay_ofs;
    /* occlusion mappings */
    f->occl_ofs = b->len;
    fx_put(b, f->occlusion.p, f->occlusion.len);
    fx_align(b, 0x800);
    size_t occl_size = b->len - f->occl_ofs;
    /* header */
    fx_set_u32(b, 0x00, 0x60);
    fx_set_u32(b, 0x04, 1234);
    fx_set_u32(b, 0x08, (uint32_t)f->level_id);
    fx_set_u32(b, 0x0c, 2);
    size_t ext[4][2] = {{f->data_ofs, f->data_size},
                        {f->sound_ofs, sound_size},
                        {f->gameplay_ofs, gp_size},
                        {f->occl_ofs, occl_size}};
    for (int i = 0; i < 4; i++) {
        fx_set_u32(b, 0x10 + 8u * (size_t)i, (uint32_t)(ext[i][0] / 0x800));
        fx_set_u32(b, 0x14 + 8u * (size_t)i, (uint32_t)(ext[i][1] / 0x800));
    }
}

static inline void fx_release(fx_level *f)
{
    fx_free(&f->overlay);
    fx_free(&f->core_index);
    fx_free(&f->core_data);
    fx_free(&f->gameplay);
    fx_free(&f->sound_bank);
    fx_free(&f->occlusion);
    fx_free(&f->file);
}

/* Decode `size` bytes into *lv (caller frees with gc_level_free). */
static inline void fx_decode(gc_level *lv, const uint8_t *p, size_t size)
{
    gc_level_init(lv, 3, "LEVEL3.WAD", p, size);
    gc_level_decode(lv);
}

/* The decode.status row of decoder `name`, or NULL. */
static inline const gc_decode_status_row *fx_status(gc_level *lv, const char *name)
{
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_decode_status);
    for (size_t i = 0; i < rb->count; i++) {
        const gc_decode_status_row *r = gc_rows_at(rb, i);
        if (strcmp(r->name, name) == 0)
            return r;
    }
    return NULL;
}

/* The rows of the registered table called `name` (NULL if none). */
static inline gc_rowbuf *fx_rows(gc_level *lv, const char *name)
{
    for (size_t i = 0; i < lv->table_count; i++)
        if (strcmp(lv->tables[i].desc->name, name) == 0)
            return &lv->tables[i];
    return NULL;
}

/* Value of column `col` of row i of table `name` as a double (ints too). */
static inline double fx_col(gc_level *lv, const char *table, size_t i, const char *col)
{
    gc_rowbuf *rb = fx_rows(lv, table);
    if (!rb || i >= rb->count)
        return NAN;
    const uint8_t *row = gc_rows_at(rb, i);
    for (size_t c = 0; c < rb->desc->column_count; c++) {
        const gc_column *k = &rb->desc->columns[c];
        if (strcmp(k->name, col) != 0)
            continue;
        const uint8_t *p = row + k->offset;
        switch (k->type) {
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
            return v;
        }
        case GC_T_S32: {
            int32_t v;
            memcpy(&v, p, 4);
            return v;
        }
        case GC_T_U64: {
            uint64_t v;
            memcpy(&v, p, 8);
            return (double)v;
        }
        case GC_T_S64: {
            int64_t v;
            memcpy(&v, p, 8);
            return (double)v;
        }
        case GC_T_F32: {
            float v;
            memcpy(&v, p, 4);
            return v;
        }
        case GC_T_F64: {
            double v;
            memcpy(&v, p, 8);
            return v;
        }
        default:
            return NAN;
        }
    }
    return NAN;
}

/* Row index in table `name` whose string column `col` equals `val`, or -1. */
static inline long fx_find(gc_level *lv, const char *table, const char *col, const char *val)
{
    gc_rowbuf *rb = fx_rows(lv, table);
    if (!rb)
        return -1;
    for (size_t c = 0; c < rb->desc->column_count; c++) {
        const gc_column *k = &rb->desc->columns[c];
        if (strcmp(k->name, col) != 0 || k->type != GC_T_STR)
            continue;
        for (size_t i = 0; i < rb->count; i++)
            if (strcmp((const char *)gc_rows_at(rb, i) + k->offset, val) == 0)
                return (long)i;
    }
    return -1;
}

#endif
