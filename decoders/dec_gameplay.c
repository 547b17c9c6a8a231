/* SPDX-License-Identifier: MIT */
/* The gameplay decoder: the container's gameplay extent is a WAD-LZ stream
 * (formats.md §8.3; level-assets.md "gameplay: solved, and the old answer was
 * wrong"). It is decompressed into lv->gameplay, then its 0x9C-byte block
 * table, the directional light bank (block 0x04, §8.2) and the occlusion
 * mapping header (block 0x90, §8.6) are published as gameplay.header,
 * gameplay.block, gameplay.dir_light and gameplay.occlusion_mapping.
 * Offsets in these rows are inside the decompressed stream.
 *
 * The stream carries no decompressed size, so the output buffer grows from
 * 8x the stream size, bounded by 64x and 256 MiB (a bigger claim is an error,
 * not a malloc). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"
#include "gc_lz.h"
#include "gc_reader.h"

#define GAMEPLAY_TABLE_BYTES   0x9Cu
#define GAMEPLAY_BLOCKS        (GAMEPLAY_TABLE_BYTES / 4u)
#define BLOCK_DIR_LIGHTS       1u  /* table +0x04 */
#define BLOCK_OCCLUSION        36u /* table +0x90 */
#define DIR_LIGHT_HEADER_BYTES 16u
#define DIR_LIGHT_BYTES        64u
#define OCCL_MAP_HEADER_BYTES  16u
#define OCCL_MAP_ENTRY_BYTES   8u
#define LZ_FIRST_RATIO         8u
#define GAMEPLAY_MAX_BYTES     (256u * 1024u * 1024u)
#define RAW_SKIP_BYTES         8u /* the historical wrong 8-byte "header" (fault gameplay_raw) */

static const char *const block_names[GAMEPLAY_BLOCKS] = {
    "level_settings", "dir_lights",      "cameras",      "sound_instances", "help_us",
    "help_uk",        "help_fr",         "help_de",      "help_es",         "help_it",
    "help_jp",        "help_kr",         "tie_classes",  "tie_instances",   "tie_groups",
    "shrub_classes",  "shrub_instances", "shrub_groups", "moby_classes",    "moby_instances",
    "moby_groups",    "shared_data",     "pvar_fixups",  "pvar_table",      "pvar_data",
    "pvar_pointers",  "cuboids",         "spheres",      "cylinders",       "pills",
    "paths",          "grind_paths",     "point_lights", "env_transitions", "cam_coll_grid",
    "env_samples",    "occlusion",       "tie_ambient",  "areas",
};

typedef struct gp_header_row {
    uint64_t file_ofs;
    uint64_t extent_bytes;
    int64_t lz_size_field;
    uint64_t stream_bytes;
    uint32_t blocks_present;
    uint32_t blocks_inside;
    int32_t dir_light_count;
} gp_header_row;

static const gc_column header_cols[] = {
    GC_COL(gp_header_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the gameplay extent"),
    GC_COL(gp_header_row, extent_bytes, GC_T_U64, 0, "bytes", "size of the gameplay extent"),
    GC_COL(gp_header_row, lz_size_field, GC_T_S64, 0, "bytes",
           "extent +3: WAD-LZ total size (-1 if no WAD magic)"),
    GC_COL(gp_header_row, stream_bytes, GC_T_U64, 0, "bytes", "size of the decoded gameplay data"),
    GC_COL(gp_header_row, blocks_present, GC_T_U32, 0, "count", "non-zero block table entries"),
    GC_COL(gp_header_row, blocks_inside, GC_T_U32, 0, "count",
           "non-zero entries pointing past the table and inside the data"),
    GC_COL(gp_header_row, dir_light_count, GC_T_S32, 0, "count", "light bank +0x00 (0 if no bank)"),
};

static const gc_table_desc gc_table_gp_header = {
    .name = "gameplay.header",
    .doc = "The decoded gameplay extent (one row).",
    .row_size = sizeof(gp_header_row),
    .columns = header_cols,
    .column_count = GC_COUNTOF(header_cols),
};

typedef struct gp_block_row {
    uint64_t file_ofs;
    uint32_t index;
    char name[20];
    int64_t offset;
    uint64_t stream_bytes;
    uint8_t present;
    uint8_t inside;
} gp_block_row;

static const gc_column block_cols[] = {
    GC_COL(gp_block_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in gameplay",
           "offset of the table entry (4*index)"),
    GC_COL(gp_block_row, index, GC_T_U32, 0, "", "entry index (0..38)"),
    GC_COL(gp_block_row, name, GC_T_STR, 0, "", "block name (formats.md §8.3)"),
    GC_COL(gp_block_row, offset, GC_T_S64, GC_CF_HEX, "bytes in gameplay",
           "the s32 entry (0 = absent)"),
    GC_COL(gp_block_row, stream_bytes, GC_T_U64, 0, "bytes", "size of the decoded gameplay data"),
    GC_COL(gp_block_row, present, GC_T_BOOL, 0, "", "offset != 0"),
    GC_COL(gp_block_row, inside, GC_T_BOOL, 0, "",
           "0x9c <= offset <= stream_bytes (an empty last block may end the data)"),
};

static const gc_table_desc gc_table_gp_block = {
    .name = "gameplay.block",
    .doc = "The 0x9C-byte block table at the start of the decoded gameplay data.",
    .row_size = sizeof(gp_block_row),
    .columns = block_cols,
    .column_count = GC_COUNTOF(block_cols),
};

typedef struct gp_light_row {
    uint64_t file_ofs;
    uint32_t index;
    float colour_a_r, colour_a_g, colour_a_b, colour_a_w;
    float direction_a_x, direction_a_y, direction_a_z, direction_a_w;
    float colour_b_r, colour_b_g, colour_b_b, colour_b_w;
    float direction_b_x, direction_b_y, direction_b_z, direction_b_w;
    double direction_a_length;
    double direction_b_length;
} gp_light_row;

#define LCOL(m, doc) GC_COL(gp_light_row, m, GC_T_F32, 0, "", doc)
static const gc_column light_cols[] = {
    GC_COL(gp_light_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in gameplay",
           "offset of the 64-byte light"),
    GC_COL(gp_light_row, index, GC_T_U32, 0, "", "light index"),
    LCOL(colour_a_r, "+0x00"),
    LCOL(colour_a_g, "+0x04"),
    LCOL(colour_a_b, "+0x08"),
    LCOL(colour_a_w, "+0x0c"),
    LCOL(direction_a_x, "+0x10"),
    LCOL(direction_a_y, "+0x14"),
    LCOL(direction_a_z, "+0x18"),
    LCOL(direction_a_w, "+0x1c"),
    LCOL(colour_b_r, "+0x20"),
    LCOL(colour_b_g, "+0x24"),
    LCOL(colour_b_b, "+0x28"),
    LCOL(colour_b_w, "+0x2c"),
    LCOL(direction_b_x, "+0x30"),
    LCOL(direction_b_y, "+0x34"),
    LCOL(direction_b_z, "+0x38"),
    LCOL(direction_b_w, "+0x3c"),
    GC_COL(gp_light_row, direction_a_length, GC_T_F64, 0, "", "|direction_a.xyz| (sqrt in double)"),
    GC_COL(gp_light_row, direction_b_length, GC_T_F64, 0, "", "|direction_b.xyz| (sqrt in double)"),
};
#undef LCOL

static const gc_table_desc gc_table_gp_light = {
    .name = "gameplay.dir_light",
    .doc = "The directional light bank (block 0x04): count x 64-byte lights.",
    .row_size = sizeof(gp_light_row),
    .columns = light_cols,
    .column_count = GC_COUNTOF(light_cols),
};

typedef struct gp_occl_row {
    uint64_t file_ofs;
    uint8_t present;
    int32_t tfrag_count;
    int32_t tie_count;
    int32_t moby_count;
    uint64_t size_bytes;
    uint8_t entries_fit;
} gp_occl_row;

static const gc_column occl_cols[] = {
    GC_COL(gp_occl_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in gameplay",
           "offset of the mapping block"),
    GC_COL(gp_occl_row, present, GC_T_BOOL, 0, "",
           "block 0x90 present and its header inside the data"),
    GC_COL(gp_occl_row, tfrag_count, GC_T_S32, 0, "count", "+0x00"),
    GC_COL(gp_occl_row, tie_count, GC_T_S32, 0, "count", "+0x04"),
    GC_COL(gp_occl_row, moby_count, GC_T_S32, 0, "count", "+0x08"),
    GC_COL(gp_occl_row, size_bytes, GC_T_U64, 0, "bytes", "16 + 8 * (tfrag + tie + moby)"),
    GC_COL(gp_occl_row, entries_fit, GC_T_BOOL, 0, "", "the mapping entries fit inside the data"),
};

static const gc_table_desc gc_table_gp_occl = {
    .name = "gameplay.occlusion_mapping",
    .doc = "Header of the occlusion mappings in gameplay block 0x90 (one row).",
    .row_size = sizeof(gp_occl_row),
    .columns = occl_cols,
    .column_count = GC_COUNTOF(occl_cols),
};

static gc_status decompress(gc_level *lv, gc_diag *diag, const gc_span *z)
{
    size_t stream = 0;
    gc_status s = gc_lz_stream_size(z->data, z->size, z->file_ofs, &stream, diag);
    if (s != GC_OK)
        return s;
    uint64_t max = gc_lz_max_output(stream); /* the most its packets can produce */
    if (max > GAMEPLAY_MAX_BYTES)
        max = GAMEPLAY_MAX_BYTES;
    uint64_t cap = (uint64_t)stream * LZ_FIRST_RATIO;
    if (cap < 0x10000)
        cap = 0x10000;
    for (;;) {
        if (cap > max)
            cap = max;
        /* a stream of no packets makes 0 bytes: still allocate one */
        uint8_t *out =
            gc_level_mem_charge(lv, (size_t)cap) == 0 ? malloc(cap ? (size_t)cap : 1) : NULL;
        if (!out)
            return gc_diag_set(diag, GC_E_NOMEM, z->file_ofs,
                               "no memory for %llu bytes of gameplay", (unsigned long long)cap);
        size_t got = 0;
        s = gc_lz_decompress(z->data, z->size, z->file_ofs, out, (size_t)cap, &got, diag);
        if (s == GC_OK) {
            uint8_t *fit = realloc(out, got ? got : 1); /* give back the unused tail */
            if (fit) {
                out = fit;
                gc_level_mem_release(lv, (size_t)cap - (got ? got : 1));
            }
            free(lv->gameplay);
            lv->gameplay = out;
            lv->gameplay_size = got;
            return GC_OK;
        }
        free(out);
        gc_level_mem_release(lv, (size_t)cap);
        /* The stream size was already validated, so GC_E_RANGE here means the
         * output outgrew the buffer: grow, unless at the bound already. */
        if (s != GC_E_RANGE || cap >= max)
            return s;
        gc_diag_clear(diag);
        cap *= 2;
    }
}

static gc_status gameplay_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->header_ok)
        return GC_NEEDS(diag, "the level header");
    if (!lv->gameplay_z.present)
        return GC_NEEDS(diag, "a gameplay extent inside the file");
    gc_diag_push(diag, "gameplay");
    const gc_span *z = &lv->gameplay_z;
    gp_header_row hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.file_ofs = z->file_ofs;
    hdr.extent_bytes = z->size;
    hdr.lz_size_field =
        z->size >= 7 && memcmp(z->data, "WAD", 3) == 0 ? (int32_t)gc_load_u32le(z->data + 3) : -1;
    if (GC_FAULT(lv, gameplay_raw)) {
        /* Historical bug: the extent parsed raw after an 8-byte skip. */
        size_t n = z->size > RAW_SKIP_BYTES ? z->size - RAW_SKIP_BYTES : 0;
        uint8_t *raw = malloc(n ? n : 1);
        if (!raw)
            return gc_diag_set(diag, GC_E_NOMEM, z->file_ofs, "no memory for the gameplay extent");
        if (n)
            memcpy(raw, z->data + RAW_SKIP_BYTES, n);
        free(lv->gameplay);
        lv->gameplay = raw;
        lv->gameplay_size = n;
    } else {
        gc_status s = decompress(lv, diag, z);
        if (s != GC_OK)
            return s;
    }
    gc_diag_pop(diag);
    gc_diag_push(diag, "gameplay.bin");
    hdr.stream_bytes = lv->gameplay_size;
    gc_reader g = gc_reader_make(lv->gameplay, lv->gameplay_size, 0);
    if (lv->gameplay_size < GAMEPLAY_TABLE_BYTES)
        return gc_diag_set(
            diag, GC_E_TRUNCATED, lv->gameplay_size,
            "decoded gameplay of %zu bytes is shorter than its 0x9C-byte block table",
            lv->gameplay_size);
    int64_t ofs[GAMEPLAY_BLOCKS];
    gc_rowbuf *brb = gc_level_rows(lv, &gc_table_gp_block);
    for (unsigned i = 0; i < GAMEPLAY_BLOCKS; i++) {
        gp_block_row *b = gc_rows_push(brb);
        if (!b)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for gameplay.block");
        b->file_ofs = 4u * i;
        b->index = i;
        memcpy(b->name, block_names[i], strlen(block_names[i]) + 1);
        ofs[i] = b->offset = gc_s32le(&g); /* 4*i */
        b->stream_bytes = lv->gameplay_size;
        b->present = b->offset != 0;
        /* <= : an empty last block may start at the very end of the data */
        b->inside =
            b->offset >= (int64_t)GAMEPLAY_TABLE_BYTES && (uint64_t)b->offset <= lv->gameplay_size;
        hdr.blocks_present += b->present;
        hdr.blocks_inside += b->present && b->inside;
    }

    gp_occl_row oc;
    memset(&oc, 0, sizeof oc);
    int64_t mo = ofs[BLOCK_OCCLUSION];
    if (mo > 0 && gc_range_ok((size_t)mo, OCCL_MAP_HEADER_BYTES, lv->gameplay_size)) {
        gc_reader m = gc_window(&g, (size_t)mo, OCCL_MAP_HEADER_BYTES);
        oc.file_ofs = (uint64_t)mo;
        oc.present = 1;
        oc.tfrag_count = gc_s32le(&m); /* +0x00 */
        oc.tie_count = gc_s32le(&m);   /* +0x04 */
        oc.moby_count = gc_s32le(&m);  /* +0x08 */
        if (oc.tfrag_count >= 0 && oc.tie_count >= 0 && oc.moby_count >= 0) {
            oc.size_bytes =
                OCCL_MAP_HEADER_BYTES +
                OCCL_MAP_ENTRY_BYTES *
                    ((uint64_t)oc.tfrag_count + (uint64_t)oc.tie_count + (uint64_t)oc.moby_count);
            oc.entries_fit = (uint64_t)mo + oc.size_bytes <= lv->gameplay_size;
        }
    }
    gp_occl_row *ocr = gc_rows_push(gc_level_rows(lv, &gc_table_gp_occl));
    if (!ocr)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for gameplay.occlusion_mapping");
    *ocr = oc;

    gc_status st = GC_OK;
    int64_t lo = ofs[BLOCK_DIR_LIGHTS];
    if (lo != 0) {
        gc_diag_push(diag, "dir_lights@0x%llx", (unsigned long long)lo);
        if (lo < 0 || !gc_range_ok((size_t)lo, DIR_LIGHT_HEADER_BYTES, lv->gameplay_size)) {
            st = gc_diag_set(diag, GC_E_RANGE, (uint64_t)lo,
                             "light bank offset 0x%llx is outside the %zu-byte gameplay data",
                             (unsigned long long)lo, lv->gameplay_size);
        } else {
            gc_reader lb = gc_window(&g, (size_t)lo, lv->gameplay_size - (size_t)lo);
            int32_t count = gc_s32le(&lb); /* +0x00, then 3 x s32 pad */
            gc_skip(&lb, 12);
            hdr.dir_light_count = count;
            size_t need = 0;
            if (count < 0 || !gc_size_mul((size_t)count, DIR_LIGHT_BYTES, &need) ||
                need > gc_left(&lb)) {
                st = gc_diag_set(diag, GC_E_TRUNCATED, (uint64_t)lo,
                                 "light bank of %d lights runs past the gameplay data", (int)count);
            } else {
                gc_rowbuf *lrb = gc_level_rows(lv, &gc_table_gp_light);
                for (int32_t i = 0; i < count; i++) {
                    gp_light_row *l = gc_rows_push(lrb);
                    if (!l) {
                        st = gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for gameplay.dir_light");
                        break;
                    }
                    l->file_ofs = gc_tell_file(&lb);
                    l->index = (uint32_t)i;
                    float v[16]; /* +0x00 colour_a, +0x10 direction_a, +0x20 colour_b, +0x30
                                    direction_b */
                    for (int k = 0; k < 16; k++)
                        v[k] = gc_f32le(&lb);
                    l->colour_a_r = v[0], l->colour_a_g = v[1], l->colour_a_b = v[2],
                    l->colour_a_w = v[3];
                    l->direction_a_x = v[4], l->direction_a_y = v[5], l->direction_a_z = v[6];
                    l->direction_a_w = v[7];
                    l->colour_b_r = v[8], l->colour_b_g = v[9], l->colour_b_b = v[10],
                    l->colour_b_w = v[11];
                    l->direction_b_x = v[12], l->direction_b_y = v[13], l->direction_b_z = v[14];
                    l->direction_b_w = v[15];
                    double ax = l->direction_a_x, ay = l->direction_a_y, az = l->direction_a_z;
                    double bx = l->direction_b_x, by = l->direction_b_y, bz = l->direction_b_z;
                    l->direction_a_length = sqrt(ax * ax + ay * ay + az * az);
                    l->direction_b_length = sqrt(bx * bx + by * by + bz * bz);
                }
            }
        }
        gc_diag_pop(diag);
    }
    gp_header_row *hr = gc_rows_push(gc_level_rows(lv, &gc_table_gp_header));
    if (!hr)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for gameplay.header");
    *hr = hdr;
    return st;
}

static const gc_table_desc *const gameplay_tables[] = {&gc_table_gp_header, &gc_table_gp_block,
                                                       &gc_table_gp_light, &gc_table_gp_occl};

const gc_decoder gc_dec_gameplay = {
    .name = "gameplay",
    .doc = "gameplay extent: WAD-LZ decompression, block table, light bank, occlusion mapping",
    .tables = gameplay_tables,
    .table_count = GC_COUNTOF(gameplay_tables),
    .run = gameplay_run,
    .release = NULL, /* lv->gameplay is freed by gc_level_free */
};
