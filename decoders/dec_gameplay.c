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

#include "gc_bigmem.h"
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
    int32_t pvar_count;
    uint8_t pvars_fit;
    int32_t ambient_records;
    uint8_t ambient_ok;
    uint8_t settings_ok;
    int32_t chunk_planes;
    int32_t core_sounds_count;
    int32_t moby_spawnable;
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
    GC_COL(gp_header_row, pvar_count, GC_T_S32, 0, "count",
           "pvar table entries: highest pvar_index of the mobys, cameras and sounds, plus 1"),
    GC_COL(gp_header_row, pvars_fit, GC_T_BOOL, 0, "",
           "the pvar table (8 bytes an entry) and max(offset + size) bytes of pvar data fit"),
    GC_COL(gp_header_row, ambient_records, GC_T_S32, 0, "count",
           "tie ambient RGBA records before the s16 -1 (block 0x94)"),
    GC_COL(gp_header_row, ambient_ok, GC_T_BOOL, 0, "",
           "the ambient walk (sizes in 2-byte units) reached -1 inside the data, every index a tie "
           "instance"),
    GC_COL(
        gp_header_row, settings_ok, GC_T_BOOL, 0, "",
        "level settings: 0x5c-byte first part, chunk planes and core_sounds_count inside the data"),
    GC_COL(gp_header_row, chunk_planes, GC_T_S32, 0, "count",
           "level settings +0x5c+0x0c: chunk plane count (0: one terminator record)"),
    /* unit "opaque", not "count": Wrench reads and writes this s32 through
     * (LevelSettingsBlock) without saying what it counts, the level sound
     * bank it may count is unparsed (Wrench docs/sound.md, reference notes
     * "sound_bank: structure unknown"), and no decoded table holds a number
     * it could be checked against (docs/verification.md) */
    GC_COL(gp_header_row, core_sounds_count, GC_T_S32, 0, "opaque",
           "level settings, after the chunk planes (named a count by Wrench; what it counts is "
           "not known)"),
    GC_COL(gp_header_row, moby_spawnable, GC_T_S32, 0, "count",
           "moby block +0x04 spawnable moby count"),
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

/* ---- Instances, class lists, cameras, sounds, pvars, tie ambient RGBAs, settings ----------
 * (docs/formats/gameplay.md). Instances carry the class's o_class; class_row is the row of the
 * core class table of that kind whose o_class it is (the row of tie.class / shrub.class /
 * moby.class: those publish one row per table entry, in table order). */
#define BLOCK_SETTINGS        0u
#define BLOCK_CAMERAS         2u
#define BLOCK_SOUNDS          3u
#define BLOCK_TIE_CLASSES     12u
#define BLOCK_TIE_INSTANCES   13u
#define BLOCK_SHRUB_CLASSES   15u
#define BLOCK_SHRUB_INSTANCES 16u
#define BLOCK_MOBY_CLASSES    18u
#define BLOCK_MOBY_INSTANCES  19u
#define BLOCK_PVAR_TABLE      23u
#define BLOCK_PVAR_DATA       24u
#define BLOCK_TIE_AMBIENT     37u
#define TIE_INSTANCE_BYTES    0x60u
#define SHRUB_INSTANCE_BYTES  0x70u
#define MOBY_INSTANCE_BYTES   0x88u
#define MOBY_INSTANCE_0X70    0x70u /* the old record size (fault moby_instance_0x70) */
#define CAMERA_BYTES          0x20u
#define SOUND_BYTES           0x90u
#define SETTINGS_FIRST_BYTES  0x5Cu
#define CHUNK_PLANE_BYTES     0x20u
#define PVAR_ENTRY_BYTES      8u
#define MOBY_STRIDE_CORE      0x20u
#define TIE_STRIDE_CORE       0x20u
#define SHRUB_STRIDE_CORE     0x30u

enum { KIND_TIE = 0, KIND_SHRUB, KIND_MOBY, KINDS };
static const char *const kind_names[KINDS] = {"tie", "shrub", "moby"};

/* The o_class of every entry of one core class table ({count, offset} pair). */
typedef struct gp_core_classes {
    int32_t *o_class;
    uint32_t count;
} gp_core_classes;

/* One gameplay class list {s32 count, s32 o_class[count]} (entries from +4). */
typedef struct gp_list {
    int32_t *o_class;
    uint32_t count;
    uint8_t present;
} gp_list;

static uint32_t find_class(const gp_core_classes *k, int32_t o_class)
{
    for (uint32_t i = 0; i < k->count; i++)
        if (k->o_class[i] == o_class)
            return i;
    return UINT32_MAX;
}

static uint32_t find_listed(const gp_list *l, int32_t o_class)
{
    for (uint32_t i = 0; i < l->count; i++)
        if (l->o_class[i] == o_class)
            return i;
    return UINT32_MAX;
}

typedef struct gp_list_row {
    uint64_t file_ofs;
    char kind[8];
    uint32_t index;
    int32_t o_class;
    uint32_t class_row;
} gp_list_row;

static const gc_column list_cols[] = {
    GC_COL(gp_list_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in gameplay",
           "offset of the s32 entry (list +4 + 4*index)"),
    GC_COL(gp_list_row, kind, GC_T_STR, 0, "", "tie (block 0x30), shrub (0x3c) or moby (0x48)"),
    GC_COL(gp_list_row, index, GC_T_U32, 0, "", "position in the list"),
    GC_COL(gp_list_row, o_class, GC_T_S32, 0, "", "the listed o_class"),
    GC_COL(gp_list_row, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "row of the core class table of that kind with this o_class; null if none"),
};

static const gc_table_desc gc_table_gp_list = {
    .name = "gameplay.class_list",
    .doc =
        "The tie, shrub and moby class lists ({s32 count, s32 o_class[count]}), one row per entry.",
    .row_size = sizeof(gp_list_row),
    .columns = list_cols,
    .column_count = GC_COUNTOF(list_cols),
};

/* Tie and shrub instances share a row: o_class, the 4x4 matrix, light, colour. */
typedef struct gp_inst_row {
    uint64_t file_ofs;
    uint32_t index;
    int32_t o_class;
    uint32_t class_row;
    int32_t class_o_class;
    uint32_t list_index;
    float draw_distance;
    int32_t occlusion_index;
    int32_t dir_light;
    int32_t uid;
    int32_t colour_r, colour_g, colour_b;
    float c0x, c0y, c0z, c0w, c1x, c1y, c1z, c1w, c2x, c2y, c2z, c2w, c3x, c3y, c3z, c3w;
    double scale0, scale1, scale2, max_cos;
} gp_inst_row;

#define MCOL(m, doc) GC_COL(gp_inst_row, m, GC_T_F32, 0, "", doc)
#define INST_COMMON_COLS(KIND, REC)                                                                \
    GC_COL(gp_inst_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in gameplay",                        \
           "offset of the " REC " record"),                                                        \
        GC_COL(gp_inst_row, index, GC_T_U32, 0, "", "instance index"),                             \
        GC_COL(gp_inst_row, o_class, GC_T_S32, 0, "", "+0x00 o_class of the instance's class"),    \
        GC_COL(gp_inst_row, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",                            \
               "row in " KIND ".class whose o_class this is; null if none"),                       \
        GC_COL(gp_inst_row, class_o_class, GC_T_S32, 0, "",                                        \
               "o_class of that class row (-1 if none): equals o_class when resolved right"),      \
        GC_COL(gp_inst_row, list_index, GC_T_U32, GC_CF_NULL_IF_MAX, "",                           \
               "position of o_class in the gameplay class list of the kind; null if unlisted"),    \
        GC_COL(gp_inst_row, draw_distance, GC_T_F32, 0, "world units", "+0x04"),                   \
        MCOL(c0x, "+0x10 matrix column 0 (local x axis, scaled)"), MCOL(c0y, "+0x14"),             \
        MCOL(c0z, "+0x18"), MCOL(c0w, "+0x1c (0)"), MCOL(c1x, "+0x20 column 1"),                   \
        MCOL(c1y, "+0x24"), MCOL(c1z, "+0x28"), MCOL(c1w, "+0x2c (0)"),                            \
        MCOL(c2x, "+0x30 column 2"), MCOL(c2y, "+0x34"), MCOL(c2z, "+0x38"),                       \
        MCOL(c2w, "+0x3c (0)"), MCOL(c3x, "+0x40 column 3: world position x"),                     \
        MCOL(c3y, "+0x44 world position y"), MCOL(c3z, "+0x48 world position z"),                  \
        MCOL(c3w, "+0x4c (0.01 as the toolchain writes it)"),                                      \
        GC_COL(gp_inst_row, scale0, GC_T_F64, 0, "", "|column 0|"),                                \
        GC_COL(gp_inst_row, scale1, GC_T_F64, 0, "", "|column 1|"),                                \
        GC_COL(gp_inst_row, scale2, GC_T_F64, 0, "", "|column 2|"),                                \
        GC_COL(gp_inst_row, max_cos, GC_T_F64, 0, "",                                              \
               "largest |cos| between two of columns 0..2 (0 for rotation x scale)")

static const gc_column tie_inst_cols[] = {
    INST_COMMON_COLS("tie", "0x60-byte"),
    GC_COL(gp_inst_row, occlusion_index, GC_T_S32, 0, "", "+0x0c id in the occlusion mappings"),
    GC_COL(gp_inst_row, dir_light, GC_T_S32, 0, "", "+0x50 directional light index"),
    GC_COL(gp_inst_row, uid, GC_T_S32, 0, "", "+0x54"),
};

static const gc_column shrub_inst_cols[] = {
    INST_COMMON_COLS("shrub", "0x70-byte"),
    GC_COL(gp_inst_row, colour_r, GC_T_S32, 0, "", "+0x50 colour red, s32 0..255"),
    GC_COL(gp_inst_row, colour_g, GC_T_S32, 0, "", "+0x54 green"),
    GC_COL(gp_inst_row, colour_b, GC_T_S32, 0, "", "+0x58 blue"),
    GC_COL(gp_inst_row, dir_light, GC_T_S32, 0, "", "+0x60 directional lights"),
};
#undef MCOL

static const gc_table_desc gc_table_tie_instance = {
    .name = "tie.instance",
    .doc = "One tie instance (gameplay block 0x34): class link and 4x4 local-to-world matrix.",
    .row_size = sizeof(gp_inst_row),
    .columns = tie_inst_cols,
    .column_count = GC_COUNTOF(tie_inst_cols),
    .parent_table = "tie.class",
    .parent_link = "class",
    .parent_column = "class_row",
};

static const gc_table_desc gc_table_shrub_instance = {
    .name = "shrub.instance",
    .doc = "One shrub instance (gameplay block 0x40): class link, matrix, colour.",
    .row_size = sizeof(gp_inst_row),
    .columns = shrub_inst_cols,
    .column_count = GC_COUNTOF(shrub_inst_cols),
    .parent_table = "shrub.class",
    .parent_link = "class",
    .parent_column = "class_row",
};

typedef struct gp_moby_row {
    uint64_t file_ofs;
    uint32_t index;
    int32_t size;
    int32_t uid;
    int32_t o_class;
    uint32_t class_row;
    int32_t class_o_class;
    uint32_t list_index;
    float scale;
    float x, y, z;
    float rot_x, rot_y, rot_z;
    int32_t group;
    int32_t pvar_index;
    int32_t pvar_size;
    uint8_t pvar_class_size_ok;
    int32_t light;
    double c0x, c0y, c0z, c1x, c1y, c1z, c2x, c2y, c2z;
} gp_moby_row;

#define DCOL(m, doc) GC_COL(gp_moby_row, m, GC_T_F64, 0, "", doc)
static const gc_column moby_inst_cols[] = {
    GC_COL(gp_moby_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in gameplay",
           "offset of the 0x88-byte record"),
    GC_COL(gp_moby_row, index, GC_T_U32, 0, "", "instance index"),
    GC_COL(gp_moby_row, size, GC_T_S32, 0, "bytes", "+0x00 record size, always 0x88"),
    GC_COL(gp_moby_row, uid, GC_T_S32, 0, "", "+0x10 uid (the moby's occlusion id)"),
    GC_COL(gp_moby_row, o_class, GC_T_S32, 0, "", "+0x28 o_class"),
    GC_COL(gp_moby_row, class_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "row in moby.class whose o_class this is; null if none"),
    GC_COL(gp_moby_row, class_o_class, GC_T_S32, 0, "", "o_class of that row (-1 if none)"),
    GC_COL(gp_moby_row, list_index, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "position of o_class in the moby class list (block 0x48); null if unlisted"),
    GC_COL(gp_moby_row, scale, GC_T_F32, 0, "", "+0x2c uniform scale"),
    GC_COL(gp_moby_row, x, GC_T_F32, 0, "world units", "+0x40 position x"),
    GC_COL(gp_moby_row, y, GC_T_F32, 0, "world units", "+0x44 position y"),
    GC_COL(gp_moby_row, z, GC_T_F32, 0, "world units", "+0x48 position z"),
    GC_COL(gp_moby_row, rot_x, GC_T_F32, 0, "radians", "+0x4c Euler angle x"),
    GC_COL(gp_moby_row, rot_y, GC_T_F32, 0, "radians", "+0x50 Euler angle y"),
    GC_COL(gp_moby_row, rot_z, GC_T_F32, 0, "radians", "+0x54 Euler angle z"),
    GC_COL(gp_moby_row, group, GC_T_S32, 0, "", "+0x58 moby group index or -1"),
    GC_COL(gp_moby_row, pvar_index, GC_T_S32, 0, "", "+0x68 pvar table index or -1"),
    GC_COL(
        gp_moby_row, pvar_size, GC_T_S32, 0, "bytes",
        "size (+0x04) of the pvar table entry pvar_index names; -1 if none or outside the table"),
    GC_COL(gp_moby_row, pvar_class_size_ok, GC_T_BOOL, 0, "",
           "no moby of the same o_class with a non-empty pvar has a pvar of another size"),
    GC_COL(gp_moby_row, light, GC_T_S32, 0, "", "+0x80 directional light index"),
    DCOL(c0x, "matrix column 0 of scale * Rz * Ry * Rx, x (computed)"),
    DCOL(c0y, "column 0 y"),
    DCOL(c0z, "column 0 z"),
    DCOL(c1x, "column 1 x"),
    DCOL(c1y, "column 1 y"),
    DCOL(c1z, "column 1 z"),
    DCOL(c2x, "column 2 x"),
    DCOL(c2y, "column 2 y"),
    DCOL(c2z, "column 2 z"),
};
#undef DCOL

static const gc_table_desc gc_table_moby_instance = {
    .name = "moby.instance",
    .doc = "One moby instance (gameplay block 0x4c): class link, position, Euler angles, scale.",
    .row_size = sizeof(gp_moby_row),
    .columns = moby_inst_cols,
    .column_count = GC_COUNTOF(moby_inst_cols),
    .parent_table = "moby.class",
    .parent_link = "class",
    .parent_column = "class_row",
};

typedef struct gp_cam_row {
    uint64_t file_ofs;
    uint32_t index;
    char kind[8];
    int32_t type;
    float x, y, z;
    int32_t pvar_index;
} gp_cam_row;

static const gc_column cam_cols[] = {
    GC_COL(gp_cam_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in gameplay", "offset of the record"),
    GC_COL(gp_cam_row, index, GC_T_U32, 0, "", "instance index"),
    GC_COL(gp_cam_row, kind, GC_T_STR, 0, "",
           "camera (block 0x08, 0x20-byte records) or sound (block 0x0c, 0x90-byte records)"),
    GC_COL(gp_cam_row, type, GC_T_S32, 0, "", "camera +0x00 type; sound +0x00 s16 o_class"),
    GC_COL(gp_cam_row, x, GC_T_F32, 0, "world units",
           "camera +0x04 position x; sound +0x40 matrix translation x"),
    GC_COL(gp_cam_row, y, GC_T_F32, 0, "world units", "camera +0x08; sound +0x44"),
    GC_COL(gp_cam_row, z, GC_T_F32, 0, "world units", "camera +0x0c; sound +0x48"),
    GC_COL(gp_cam_row, pvar_index, GC_T_S32, 0, "", "camera +0x1c; sound +0x08: pvar index or -1"),
};

static const gc_table_desc gc_table_gp_cam = {
    .name = "gameplay.pvar_user",
    .doc = "Camera and sound instances: the instances besides mobys that index the pvar table.",
    .row_size = sizeof(gp_cam_row),
    .columns = cam_cols,
    .column_count = GC_COUNTOF(cam_cols),
};

/* Reads the o_class (+0x04) of every entry of a core class table. */
static void read_core_classes(gc_level *lv, gc_array_range t, size_t stride, const char *what,
                              gp_core_classes *k, gc_diag *diag)
{
    memset(k, 0, sizeof *k);
    if (!lv->core_ok)
        return;
    gc_diag scratch; /* a bad table is the class decoders' to report */
    memset(&scratch, 0, sizeof scratch);
    gc_diag_clear(&scratch);
    (void)diag;
    gc_reader tab;
    if (gc_class_table_reader(lv, t, stride, what, &tab, &scratch) != GC_OK || t.count <= 0)
        return; /* the class decoders report a bad table; here it resolves nothing */
    k->o_class = malloc(sizeof *k->o_class * (size_t)t.count);
    if (!k->o_class)
        return;
    k->count = (uint32_t)t.count;
    for (uint32_t i = 0; i < k->count; i++) {
        gc_reader e = gc_take_window(&tab, stride);
        (void)gc_u32le(&e);           /* +0x00 offset_in_asset_wad */
        k->o_class[i] = gc_s32le(&e); /* +0x04 o_class */
    }
}

/* What the object pass adds to gameplay.header. */
typedef struct gp_objects {
    int32_t pvar_count;
    uint8_t pvars_fit;
    int32_t ambient_records;
    uint8_t ambient_ok;
    uint8_t settings_ok;
    int32_t chunk_planes;
    int32_t core_sounds_count;
    int32_t moby_spawnable;
} gp_objects;

/* The pvar table is as long as the highest pvar index in use, plus one (an index of INT32_MAX,
 * hostile, saturates instead of overflowing). */
static void note_pvar(gp_objects *ob, int32_t pvar_index)
{
    if (pvar_index >= ob->pvar_count)
        ob->pvar_count = pvar_index < INT32_MAX ? pvar_index + 1 : INT32_MAX;
}

/* The block's bytes up to the end of the data (0 if absent or outside). */
static gc_reader block_reader(gc_reader *g, int64_t ofs, size_t size)
{
    if (ofs <= 0 || (uint64_t)ofs > size)
        return gc_reader_make(NULL, 0, 0);
    return gc_window(g, (size_t)ofs, size - (size_t)ofs);
}

static void read_list(gc_level *lv, gc_reader *g, int64_t ofs, int kind, const gp_core_classes *k,
                      gp_list *l, gc_rowbuf *rb)
{
    memset(l, 0, sizeof *l);
    gc_reader b = block_reader(g, ofs, lv->gameplay_size);
    if (gc_left(&b) < 4)
        return;
    int32_t n = gc_s32le(&b); /* +0x00 count, entries from +0x04 */
    if (GC_FAULT(lv, class_list_from_0))
        gc_seek(&b, 0); /* historical misreading: entries taken from +0x00 */
    if (n < 0 || (size_t)n > gc_left(&b) / 4)
        return;
    l->present = 1;
    l->o_class = malloc(sizeof *l->o_class * ((size_t)n ? (size_t)n : 1));
    if (!l->o_class)
        return;
    l->count = (uint32_t)n;
    for (uint32_t i = 0; i < l->count; i++) {
        gp_list_row *row = gc_rows_push(rb);
        uint64_t at = gc_tell_file(&b);
        l->o_class[i] = gc_s32le(&b);
        if (!row)
            continue;
        row->file_ofs = at;
        memcpy(row->kind, kind_names[kind], strlen(kind_names[kind]) + 1);
        row->index = i;
        row->o_class = l->o_class[i];
        row->class_row = find_class(k, l->o_class[i]);
    }
}

static void resolve(gc_level *lv, const gp_core_classes *k, const gp_list *l, int32_t o_class,
                    uint32_t *class_row, int32_t *class_o_class, uint32_t *list_index)
{
    uint32_t row = find_class(k, o_class);
    if (GC_FAULT(lv, instance_o_class)) /* the stored value taken as a row index */
        row = o_class >= 0 && (uint32_t)o_class < k->count ? (uint32_t)o_class : UINT32_MAX;
    *class_row = row;
    *class_o_class = row != UINT32_MAX ? k->o_class[row] : -1;
    *list_index = find_listed(l, o_class);
}

/* 16 floats of a Mat4 as four columns (the transposed read under fault). */
static void read_matrix(gc_level *lv, gc_reader *r, float c[4][4])
{
    float m[16];
    for (int k = 0; k < 16; k++)
        m[k] = gc_f32le(r);
    int t = GC_FAULT(lv, instance_matrix_transposed);
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++)
            c[col][row] = t ? m[row * 4 + col] : m[col * 4 + row];
}

static void matrix_shape(gp_inst_row *o, float c[4][4])
{
    o->c0x = c[0][0], o->c0y = c[0][1], o->c0z = c[0][2], o->c0w = c[0][3];
    o->c1x = c[1][0], o->c1y = c[1][1], o->c1z = c[1][2], o->c1w = c[1][3];
    o->c2x = c[2][0], o->c2y = c[2][1], o->c2z = c[2][2], o->c2w = c[2][3];
    o->c3x = c[3][0], o->c3y = c[3][1], o->c3z = c[3][2], o->c3w = c[3][3];
    double len[3], worst = 0;
    for (int a = 0; a < 3; a++)
        len[a] =
            sqrt((double)c[a][0] * c[a][0] + (double)c[a][1] * c[a][1] + (double)c[a][2] * c[a][2]);
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++) {
            double d =
                (double)c[a][0] * c[b][0] + (double)c[a][1] * c[b][1] + (double)c[a][2] * c[b][2];
            double cs = len[a] > 0 && len[b] > 0 ? fabs(d) / (len[a] * len[b]) : 1.0;
            if (cs > worst)
                worst = cs;
        }
    o->scale0 = len[0], o->scale1 = len[1], o->scale2 = len[2], o->max_cos = worst;
}

/* Tie (kind 0) or shrub (kind 1) instances: {count, 3 pad} + count records. */
static gc_status read_instances(gc_level *lv, gc_reader *g, int64_t ofs, int kind,
                                const gp_core_classes *k, const gp_list *l, uint32_t *count,
                                gc_diag *diag)
{
    *count = 0;
    if (ofs == 0)
        return GC_OK;
    size_t stride = kind == KIND_TIE ? TIE_INSTANCE_BYTES : SHRUB_INSTANCE_BYTES;
    gc_reader b = block_reader(g, ofs, lv->gameplay_size);
    gc_diag_push(diag, "%s_instances@0x%llx", kind_names[kind], (unsigned long long)ofs);
    int32_t n = gc_s32le(&b);
    gc_skip(&b, 12);
    size_t need = 0;
    if (b.overrun || n < 0 || !gc_size_mul((size_t)n, stride, &need) || need > gc_left(&b))
        return gc_diag_set(diag, GC_E_TRUNCATED, (uint64_t)ofs,
                           "%d %s instances of 0x%zx bytes run past the gameplay data", (int)n,
                           kind_names[kind], stride);
    gc_rowbuf *rb =
        gc_level_rows(lv, kind == KIND_TIE ? &gc_table_tie_instance : &gc_table_shrub_instance);
    for (int32_t i = 0; i < n; i++) {
        gp_inst_row *o = gc_rows_push(rb);
        if (!o)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for %s.instance", kind_names[kind]);
        memset(o, 0, sizeof *o);
        o->file_ofs = gc_tell_file(&b);
        o->index = (uint32_t)i;
        gc_reader e = gc_take_window(&b, stride);
        o->o_class = gc_s32le(&e); /* +0x00 */
        if (kind == KIND_TIE) {
            o->draw_distance = (float)gc_s32le(&e); /* +0x04, an integer for ties */
            gc_skip(&e, 4);                         /* +0x08 */
            o->occlusion_index = gc_s32le(&e);      /* +0x0c */
        } else {
            o->draw_distance = gc_f32le(&e); /* +0x04, a float for shrubs */
            gc_skip(&e, 8);
        }
        float c[4][4];
        read_matrix(lv, &e, c); /* +0x10..0x4f */
        matrix_shape(o, c);
        if (kind == KIND_TIE) {
            o->dir_light = gc_s32le(&e); /* +0x50 */
            o->uid = gc_s32le(&e);       /* +0x54 */
        } else {
            o->colour_r = gc_s32le(&e); /* +0x50 */
            o->colour_g = gc_s32le(&e); /* +0x54 */
            o->colour_b = gc_s32le(&e); /* +0x58 */
            gc_skip(&e, 4);
            o->dir_light = gc_s32le(&e); /* +0x60 */
        }
        resolve(lv, k, l, o->o_class, &o->class_row, &o->class_o_class, &o->list_index);
    }
    *count = (uint32_t)n;
    gc_diag_pop(diag);
    return GC_OK;
}

static gc_status read_mobys(gc_level *lv, gc_reader *g, int64_t ofs, const gp_core_classes *k,
                            const gp_list *l, gp_objects *ob, gc_diag *diag)
{
    if (ofs == 0)
        return GC_OK;
    size_t stride = GC_FAULT(lv, moby_instance_0x70) ? MOBY_INSTANCE_0X70 : MOBY_INSTANCE_BYTES;
    gc_reader b = block_reader(g, ofs, lv->gameplay_size);
    gc_diag_push(diag, "moby_instances@0x%llx", (unsigned long long)ofs);
    int32_t n = gc_s32le(&b);          /* +0x00 static count */
    ob->moby_spawnable = gc_s32le(&b); /* +0x04 spawnable moby count */
    gc_skip(&b, 8);
    size_t need = 0;
    if (b.overrun || n < 0 || !gc_size_mul((size_t)n, stride, &need) || need > gc_left(&b))
        return gc_diag_set(diag, GC_E_TRUNCATED, (uint64_t)ofs,
                           "%d moby instances of 0x%zx bytes run past the gameplay data", (int)n,
                           stride);
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_moby_instance);
    for (int32_t i = 0; i < n; i++) {
        gp_moby_row *o = gc_rows_push(rb);
        if (!o)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for moby.instance");
        memset(o, 0, sizeof *o);
        o->file_ofs = gc_tell_file(&b);
        o->index = (uint32_t)i;
        gc_reader e = gc_take_window(&b, stride);
        gc_reader f = gc_window(&e, 0, gc_left(&e));
        o->size = gc_s32le(&f); /* +0x00 */
        gc_skip(&f, 12);
        o->uid = gc_s32le(&f); /* +0x10 */
        gc_skip(&f, 0x14);
        o->o_class = gc_s32le(&f); /* +0x28 */
        o->scale = gc_f32le(&f);   /* +0x2c */
        gc_skip(&f, 0x10);
        o->x = gc_f32le(&f), o->y = gc_f32le(&f), o->z = gc_f32le(&f);             /* +0x40 */
        o->rot_x = gc_f32le(&f), o->rot_y = gc_f32le(&f), o->rot_z = gc_f32le(&f); /* +0x4c */
        o->group = gc_s32le(&f);                                                   /* +0x58 */
        gc_skip(&f, 0x0c);
        o->pvar_index = gc_s32le(&f); /* +0x68 */
        gc_skip(&f, 0x14);
        o->light = gc_s32le(&f); /* +0x80 (past a 0x70 record: read as 0) */
        note_pvar(ob, o->pvar_index);
        /* M = scale * Rz(c) * Ry(b) * Rx(a), column vectors */
        double ca = cos(o->rot_x), sa = sin(o->rot_x), cb = cos(o->rot_y), sb = sin(o->rot_y);
        double cc = cos(o->rot_z), sc = sin(o->rot_z), s = o->scale;
        o->c0x = s * cc * cb, o->c0y = s * sc * cb, o->c0z = -s * sb;
        o->c1x = s * (cc * sb * sa - sc * ca), o->c1y = s * (sc * sb * sa + cc * ca);
        o->c1z = s * cb * sa;
        o->c2x = s * (cc * sb * ca + sc * sa), o->c2y = s * (sc * sb * ca - cc * sa);
        o->c2z = s * cb * ca;
        resolve(lv, k, l, o->o_class, &o->class_row, &o->class_o_class, &o->list_index);
    }
    gc_diag_pop(diag);
    return GC_OK;
}

/* Cameras (0x20) and sounds (0x90): the other pvar users. */
static gc_status read_pvar_users(gc_level *lv, gc_reader *g, int64_t ofs, int sound, gp_objects *ob,
                                 gc_diag *diag)
{
    if (ofs == 0)
        return GC_OK;
    size_t stride = sound ? SOUND_BYTES : CAMERA_BYTES;
    gc_reader b = block_reader(g, ofs, lv->gameplay_size);
    gc_diag_push(diag, "%s@0x%llx", sound ? "sound_instances" : "cameras", (unsigned long long)ofs);
    int32_t n = gc_s32le(&b);
    gc_skip(&b, 12);
    size_t need = 0;
    if (b.overrun || n < 0 || !gc_size_mul((size_t)n, stride, &need) || need > gc_left(&b))
        return gc_diag_set(diag, GC_E_TRUNCATED, (uint64_t)ofs,
                           "%d records of 0x%zx bytes run past the gameplay data", (int)n, stride);
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_gp_cam);
    for (int32_t i = 0; i < n; i++) {
        gp_cam_row *o = gc_rows_push(rb);
        if (!o)
            return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for gameplay.pvar_user");
        memset(o, 0, sizeof *o);
        o->file_ofs = gc_tell_file(&b);
        o->index = (uint32_t)i;
        memcpy(o->kind, sound ? "sound" : "camera", sound ? 6 : 7);
        gc_reader e = gc_take_window(&b, stride);
        if (sound) {
            o->type = gc_s16le(&e); /* +0x00 o_class, +0x02 m_class, +0x04 update function */
            gc_skip(&e, 6);
            o->pvar_index = gc_s32le(&e); /* +0x08 */
            gc_skip(&e, 4 + 0x30);        /* +0x0c range, matrix columns 0..2 */
            o->x = gc_f32le(&e), o->y = gc_f32le(&e), o->z = gc_f32le(&e); /* +0x40 */
        } else {
            o->type = gc_s32le(&e);                                        /* +0x00 */
            o->x = gc_f32le(&e), o->y = gc_f32le(&e), o->z = gc_f32le(&e); /* +0x04 */
            gc_skip(&e, 12);                                               /* +0x10 rotation */
            o->pvar_index = gc_s32le(&e);                                  /* +0x1c */
        }
        note_pvar(ob, o->pvar_index);
    }
    gc_diag_pop(diag);
    return GC_OK;
}

/* The pvar table has (highest pvar index + 1) {s32 offset, s32 size} entries; the pvar data
 * block must hold max(offset + size) bytes. */
static void check_pvars(gc_level *lv, const int64_t *ofs, gp_objects *ob)
{
    ob->pvars_fit = 1;
    if (ob->pvar_count <= 0)
        return;
    int64_t t = ofs[BLOCK_PVAR_TABLE], d = ofs[BLOCK_PVAR_DATA];
    size_t need = 0;
    if (t <= 0 || d <= 0 || !gc_size_mul((size_t)ob->pvar_count, PVAR_ENTRY_BYTES, &need) ||
        !gc_range_ok((size_t)t, need, lv->gameplay_size)) {
        ob->pvars_fit = 0;
        return;
    }
    int64_t data_need = 0;
    for (int32_t i = 0; i < ob->pvar_count; i++) {
        const uint8_t *p = lv->gameplay + (size_t)t + 8u * (size_t)i;
        int64_t o = (int32_t)gc_load_u32le(p), s = (int32_t)gc_load_u32le(p + 4);
        if (o < 0 || s < 0) {
            ob->pvars_fit = 0;
            return;
        }
        if (o + s > data_need)
            data_need = o + s;
    }
    ob->pvars_fit = gc_range_ok((size_t)d, (size_t)data_need, lv->gameplay_size);
}

/* Pvar sizes per moby class. Wrench's recover_pvars (src/instancemgr/pvar.cpp) refuses a level
 * in which two mobys of one o_class carry non-empty pvars of different sizes: a class's pvars are
 * one structure. Fills moby.instance pvar_size from the table (entry +0x04; the fault
 * pvar_size_from_offset takes +0x00) and pvar_class_size_ok by sorting the mobys with pvars by
 * (o_class, row), so a hostile count of mobys costs n log n, not n^2. */
typedef struct gp_pvar_key {
    int32_t o_class;
    uint32_t row;
} gp_pvar_key;

static int cmp_pvar_key(const void *a, const void *b)
{
    const gp_pvar_key *x = a, *y = b;
    if (x->o_class != y->o_class)
        return x->o_class < y->o_class ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static gc_status pvar_class_sizes(gc_level *lv, const int64_t *ofs, const gp_objects *ob,
                                  gc_diag *diag)
{
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_moby_instance);
    if (!rb || rb->count == 0)
        return GC_OK;
    int64_t t = ofs[BLOCK_PVAR_TABLE];
    size_t field = GC_FAULT(lv, pvar_size_from_offset) ? 0u : 4u;
    gp_pvar_key *keys = malloc(rb->count * sizeof *keys);
    if (!keys)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for the pvar class check");
    size_t nk = 0;
    for (size_t i = 0; i < rb->count; i++) {
        gp_moby_row *o = (gp_moby_row *)(rb->data + i * sizeof(gp_moby_row));
        o->pvar_size = -1;
        o->pvar_class_size_ok = 1;
        if (o->pvar_index < 0 || o->pvar_index >= ob->pvar_count || t <= 0 ||
            !gc_range_ok((size_t)t + PVAR_ENTRY_BYTES * (size_t)o->pvar_index, PVAR_ENTRY_BYTES,
                         lv->gameplay_size))
            continue;
        const uint8_t *p = lv->gameplay + (size_t)t + PVAR_ENTRY_BYTES * (size_t)o->pvar_index;
        o->pvar_size = (int32_t)gc_load_u32le(p + field);
        if (o->pvar_size > 0) /* Wrench groups only mobys whose pvar data is not empty */
            keys[nk].o_class = o->o_class, keys[nk].row = (uint32_t)i, nk++;
    }
    qsort(keys, nk, sizeof *keys, cmp_pvar_key);
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        const gp_moby_row *first =
            (const gp_moby_row *)(rb->data + keys[i].row * sizeof(gp_moby_row));
        for (; j < nk && keys[j].o_class == keys[i].o_class; j++) {
            gp_moby_row *o = (gp_moby_row *)(rb->data + keys[j].row * sizeof(gp_moby_row));
            o->pvar_class_size_ok = o->pvar_size == first->pvar_size;
        }
        i = j;
    }
    free(keys);
    return GC_OK;
}

/* One tie ambient RGBA record (block 0x94): the colours themselves stay in the gameplay data
 * (data_ofs, colours x 16 bits); the renderer reads them there as the tie instance's per-vertex
 * colours (docs/formats/gameplay.md, "Tie ambient RGBAs"). */
typedef struct gp_ambient_row {
    uint64_t file_ofs;
    uint32_t index;
    uint32_t instance_row;
    int32_t colours;
    uint64_t data_ofs;
} gp_ambient_row;

static const gc_column ambient_cols[] = {
    GC_COL(gp_ambient_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes in gameplay",
           "offset of the record's s16 instance index"),
    GC_COL(gp_ambient_row, index, GC_T_U32, 0, "", "record position in the block"),
    GC_COL(gp_ambient_row, instance_row, GC_T_U32, GC_CF_NULL_IF_MAX, "",
           "+0x0 s16: the tie instance (its row of tie.instance)"),
    GC_COL(gp_ambient_row, colours, GC_T_S32, 0, "count",
           "+0x2 s16: size in 2-byte units, one 16-bit colour each"),
    GC_COL(gp_ambient_row, data_ofs, GC_T_U64, GC_CF_HEX, "bytes in gameplay",
           "+0x4: the first colour (file_ofs + 4)"),
};

static const gc_table_desc gc_table_tie_ambient = {
    .name = "tie.ambient",
    .doc = "One row per tie ambient RGBA record (gameplay block 0x94) the walk accepted.",
    .row_size = sizeof(gp_ambient_row),
    .columns = ambient_cols,
    .column_count = GC_COUNTOF(ambient_cols),
    .parent_table = "tie.instance",
    .parent_link = "instance",
    .parent_column = "instance_row",
};

/* Tie ambient RGBAs: {s16 instance, s16 size in 2-byte units, bytes}... then s16 -1. */
static void walk_ambient(gc_level *lv, gc_reader *g, int64_t ofs, uint32_t ties, gp_objects *ob)
{
    ob->ambient_ok = 1;
    if (ofs == 0)
        return;
    gc_reader b = block_reader(g, ofs, lv->gameplay_size);
    ob->ambient_ok = 0;
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_tie_ambient);
    for (;;) {
        uint64_t at = gc_tell_file(&b);
        int16_t index = gc_s16le(&b);
        if (b.overrun)
            return;
        if (index == -1)
            break;
        int16_t size = gc_s16le(&b);
        size_t bytes =
            GC_FAULT(lv, tie_ambient_bytes) ? (size_t)(uint16_t)size : 2u * (size_t)(uint16_t)size;
        if (b.overrun || index < 0 || (uint32_t)index >= ties || size < 0 || !gc_skip(&b, bytes))
            return;
        gp_ambient_row *o = gc_rows_push(rb);
        if (o)
            *o = (gp_ambient_row){.file_ofs = at,
                                  .index = (uint32_t)ob->ambient_records,
                                  .instance_row = (uint32_t)index, /* >= 0 here */
                                  .colours = size,
                                  .data_ofs = at + 4};
        ob->ambient_records++;
    }
    ob->ambient_ok = 1;
}

/* Level settings: the 0x5c-byte first part, chunk planes (count at each record's +0x0c; one
 * terminator record when there are none), s32 core_sounds_count. */
static void read_settings(gc_level *lv, gc_reader *g, int64_t ofs, gp_objects *ob)
{
    if (ofs == 0)
        return;
    gc_reader b = block_reader(g, ofs, lv->gameplay_size);
    gc_skip(&b, SETTINGS_FIRST_BYTES);
    int32_t planes = (int32_t)gc_peek_u32le(&b, 0x0c);
    ob->chunk_planes = planes;
    size_t skip = 0;
    if (planes > 0 && !gc_size_mul((size_t)planes, CHUNK_PLANE_BYTES, &skip))
        return;
    gc_skip(&b, planes > 0 ? skip : CHUNK_PLANE_BYTES);
    ob->core_sounds_count = gc_s32le(&b);
    ob->settings_ok = !b.overrun;
}

static gc_status decode_objects(gc_level *lv, gc_reader *g, const int64_t *ofs, gp_objects *ob,
                                gc_diag *diag)
{
    gp_core_classes core[KINDS];
    gp_list list[KINDS];
    memset(list, 0, sizeof list);
    read_core_classes(lv, lv->core.tie_classes, TIE_STRIDE_CORE, "tie", &core[KIND_TIE], diag);
    read_core_classes(lv, lv->core.shrub_classes, SHRUB_STRIDE_CORE, "shrub", &core[KIND_SHRUB],
                      diag);
    read_core_classes(lv, lv->core.moby_classes, MOBY_STRIDE_CORE, "moby", &core[KIND_MOBY], diag);
    gc_rowbuf *lrb = gc_level_rows(lv, &gc_table_gp_list);
    static const unsigned list_block[KINDS] = {BLOCK_TIE_CLASSES, BLOCK_SHRUB_CLASSES,
                                               BLOCK_MOBY_CLASSES};
    for (int k = 0; k < KINDS; k++)
        read_list(lv, g, ofs[list_block[k]], k, &core[k], &list[k], lrb);
    read_settings(lv, g, ofs[BLOCK_SETTINGS], ob);
    uint32_t ties = 0, shrubs = 0;
    gc_status st = read_instances(lv, g, ofs[BLOCK_TIE_INSTANCES], KIND_TIE, &core[KIND_TIE],
                                  &list[KIND_TIE], &ties, diag);
    if (st == GC_OK)
        st = read_instances(lv, g, ofs[BLOCK_SHRUB_INSTANCES], KIND_SHRUB, &core[KIND_SHRUB],
                            &list[KIND_SHRUB], &shrubs, diag);
    if (st == GC_OK)
        st = read_mobys(lv, g, ofs[BLOCK_MOBY_INSTANCES], &core[KIND_MOBY], &list[KIND_MOBY], ob,
                        diag);
    if (st == GC_OK)
        st = read_pvar_users(lv, g, ofs[BLOCK_CAMERAS], 0, ob, diag);
    if (st == GC_OK)
        st = read_pvar_users(lv, g, ofs[BLOCK_SOUNDS], 1, ob, diag);
    check_pvars(lv, ofs, ob);
    if (st == GC_OK)
        st = pvar_class_sizes(lv, ofs, ob, diag);
    walk_ambient(lv, g, ofs[BLOCK_TIE_AMBIENT], ties, ob);
    for (int k = 0; k < KINDS; k++)
        free(core[k].o_class), free(list[k].o_class);
    return st;
}

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
        uint8_t *out = gc_level_mem_charge(lv, (size_t)cap) == 0 ? gc_big_alloc((size_t)cap) : NULL;
        if (!out)
            return gc_diag_set(diag, GC_E_NOMEM, z->file_ofs,
                               "no memory for %llu bytes of gameplay", (unsigned long long)cap);
        size_t got = 0;
        s = gc_lz_decompress(z->data, z->size, z->file_ofs, out, (size_t)cap, &got, diag);
        if (s == GC_OK) {
            /* give back the unused tail */
            uint8_t *fit = gc_big_realloc(out, (size_t)cap, got ? got : 1);
            if (fit) {
                out = fit;
                gc_level_mem_release(lv, (size_t)cap - (got ? got : 1));
            }
            gc_big_free(lv->gameplay);
            lv->gameplay = out;
            lv->gameplay_size = got;
            return GC_OK;
        }
        gc_big_free(out);
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
        uint8_t *raw = gc_big_alloc(n);
        if (!raw)
            return gc_diag_set(diag, GC_E_NOMEM, z->file_ofs, "no memory for the gameplay extent");
        if (n)
            memcpy(raw, z->data + RAW_SKIP_BYTES, n);
        gc_big_free(lv->gameplay);
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
    gp_objects ob;
    memset(&ob, 0, sizeof ob);
    gc_status so = decode_objects(lv, &g, ofs, &ob, diag);
    if (st == GC_OK)
        st = so;
    hdr.pvar_count = ob.pvar_count;
    hdr.pvars_fit = ob.pvars_fit;
    hdr.ambient_records = ob.ambient_records;
    hdr.ambient_ok = ob.ambient_ok;
    hdr.settings_ok = ob.settings_ok;
    hdr.chunk_planes = ob.chunk_planes;
    hdr.core_sounds_count = ob.core_sounds_count;
    hdr.moby_spawnable = ob.moby_spawnable;
    gp_header_row *hr = gc_rows_push(gc_level_rows(lv, &gc_table_gp_header));
    if (!hr)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for gameplay.header");
    *hr = hdr;
    return st;
}

static const gc_table_desc *const gameplay_tables[] = {
    &gc_table_gp_header, &gc_table_gp_block,     &gc_table_gp_light,       &gc_table_gp_occl,
    &gc_table_gp_list,   &gc_table_tie_instance, &gc_table_shrub_instance, &gc_table_moby_instance,
    &gc_table_gp_cam,    &gc_table_tie_ambient};

const gc_decoder gc_dec_gameplay = {
    .name = "gameplay",
    .doc = "gameplay extent: WAD-LZ decompression, block table, light bank, occlusion mapping, "
           "class lists, instances, pvars",
    .tables = gameplay_tables,
    .table_count = GC_COUNTOF(gameplay_tables),
    .run = gameplay_run,
    .release = NULL, /* lv->gameplay is freed by gc_level_free */
};
