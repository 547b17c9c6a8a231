/* SPDX-License-Identifier: MIT */
/* The tfrag decoder: the static world mesh of a level (core_data's tfrag
 * block), published as tfrag.block, tfrag.patch, tfrag.vertex,
 * tfrag.vertex_info, tfrag.triangle, tfrag.adgif and tfrag.light.
 *
 * Sources: docs/formats/tfrag.md, reference formats.md §5 and level-assets.md
 * "tfrag terrain" .. "The origin". Outline:
 *  1. block header at core.tfrags: table_offset, count, LOD float;
 *  2. count patch headers of 0x40 bytes at block + table_offset, each with a
 *     `data` offset relative to the TABLE (not the block);
 *  3. per patch, five VIF1 lists walked in transfer order (common, LOD 2,
 *     LOD 1, LOD 01, LOD 0) with the code-word walker of gc_vif.h; every
 *     UNPACK is classified by its format AND its VU destination using the VU
 *     header at the head of the common list;
 *  4. geometry is built only from a walk that completed: a patch whose walk
 *     desynchronises gets walk_ok = 0 with the offset, and no geometry rows.
 * The decoder fails as a whole only when the block header or the patch table
 * cannot be read.
 *
 * Choices where the sources leave room:
 *  - indices come from VU addresses, not from emulating STCYCL/STMOD: a
 *    position's index is (addr - positions_common_addr) / 2 + element, a
 *    vertex-info index addr - vertex_info_common_addr + element; the tier is
 *    the list the unpack sits in;
 *  - the origin is the last STROW row seen before the first V3_16 unpack of
 *    the common list; with no common positions, the quadword at light_ofs;
 *  - a V4_8 unsigned unpack is tried, in its own list, against the indices
 *    first, then only the parent arrays of a non-empty tier (unk_06 / unk_0a
 *    != 0); "indices 2" arrays are framed and not decoded;
 *  - a strip that runs past its LOD's index array ends that LOD's strips (no
 *    partial strip); tri_count then shows the shortfall;
 *  - rgba_count counts the colours between rgba_ofs and light_ofs,
 *    light_count the 8-byte records between light_ofs + 0x10 and
 *    light_end_ofs (msphere_ofs when 0): both are measured, not declared;
 *  - beside its own reading (by VU address) the decoder replays Wrench's
 *    (by place in each list; the origin as the sixth code of the common
 *    list; parents as its recovery step derives them) and publishes where
 *    the two differ (docs/formats/tfrag.md §10), so the invariants can hold
 *    a file to both. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_bigmem.h"
#include "gc_level.h"
#include "gc_ps2fpu.h"
#include "gc_reader.h"
#include "gc_vif.h"
#include "ps2fpu_core.h"
#include "ps2fpu_sse2.h"

/* ---- on-disk constants (formats.md §5) ---------------------------------- */

#define TFRAG_BLOCK_HEADER_BYTES 0x10u /* {s32 table_offset, s32 count, f32 lod, u32} */
#define TFRAG_PATCH_BYTES        0x40u /* one patch header */
#define TFRAG_ADGIF_QWORDS       5u    /* TEX0, TEX1, CLAMP, MIPTBP1, MIPTBP2 */
#define TFRAG_ADGIF_BYTES        0x50u
#define TFRAG_LIGHT_HEADER_BYTES 0x10u /* copy of the origin STROW row before the records */
#define TFRAG_LIGHT_RECORD_BYTES 8u
#define TFRAG_RGBA_BYTES         4u
#define TFRAG_VU_HEADER_QWORDS   5u  /* 20 x u16 unpacked V4_16 unsigned to address 0 */
#define TFRAG_STRIP_BYTES        4u  /* {s8 count/flag, s8 y, s8 z, s8 pad} */
#define TFRAG_STRIP_BIAS         128 /* a negative count is biased by -128 */

/* VU1 data memory is 1024 quadwords: every array the VIF can place there is
 * bounded by it, which bounds the per-patch scratch without trusting counts. */
#define VU1_QWORDS 1024u
#define POS_MAX    (VU1_QWORDS / 2u) /* positions take 2 qw (STCYCL 1/2 interleaves colour) */
#define VI_MAX     VU1_QWORDS        /* vertex info takes 1 qw */
/* strip, index and parent entries are bytes: any of them indexes vi_vertex */
_Static_assert(VI_MAX >= 256, "a byte index must stay inside the vertex-info arrays");
/* Wrench takes the origin from the sixth code of the common list (tfrag_low.cpp,
 * read_tfrag_command_lists: common_command_list[5]). */
#define WRENCH_ORIGIN_CODE 5u
#define BYTES_MAX          (VU1_QWORDS * 16u)

/* The three LOD banks and the five lists. */
enum { LOD_COUNT = 3 };
enum { LIST_COMMON, LIST_LOD2, LIST_LOD1, LIST_LOD01, LIST_LOD0, LIST_COUNT };
static const char *const list_names[LIST_COUNT] = {"common", "lod2", "lod1", "lod01", "lod0"};
/* The LOD whose strips/indices a list carries (-1: none). */
static const int list_lod[LIST_COUNT] = {-1, 2, 1, -1, 0};
/* The position / vertex-info tier a list carries (-1: none). */
static const int list_tier[LIST_COUNT] = {0, -1, -1, 1, 2};

/* Walk errors of one patch (tfrag.patch.walk_error). */
enum {
    WALK_OK = 0,
    WALK_LIST_BOUNDS,  /* a list's range is inverted or leaves the patch data / region */
    WALK_VIF_CUT,      /* a code word or payload runs past its list */
    WALK_VIF_UNKNOWN,  /* an undefined VIF command: the walk lost sync */
    WALK_NO_VU_HEADER, /* the common list does not open with the VU header unpack */
    WALK_VU_RANGE,     /* an unpack lands outside VU1 memory or the array it belongs to */
    WALK_ERROR_COUNT
};
static const char *const walk_error_names[WALK_ERROR_COUNT] = {
    "ok", "list_bounds", "vif_cut", "vif_unknown", "no_vu_header", "vu_range"};

/* ---- rows --------------------------------------------------------------- */

typedef struct tfrag_block_row {
    uint64_t file_ofs;     /* offset of the block header in core_data */
    int32_t table_offset;  /* +0x00: patch table, relative to the block (0x40) */
    int32_t count;         /* +0x04: patches */
    float lod_scale;       /* +0x08: LOD distance unit L (32.0) */
    uint32_t unknown_0c;   /* +0x0c */
    uint64_t region_start; /* core.tfrags */
    uint64_t region_end;   /* core.occlusion: the tfrag region ends where occlusion starts */
} tfrag_block_row;

typedef struct tfrag_patch_row {
    uint64_t file_ofs;        /* offset of the 0x40-byte header in core_data */
    uint32_t patch;           /* index in the table */
    float cx, cy, cz, radius; /* +0x00 bsphere */
    int32_t data;             /* +0x10 raw, relative to the table */
    uint64_t data_ofs;        /* absolute in core_data */
    uint16_t lod_2_ofs;       /* +0x14 */
    uint16_t shared_ofs;      /* +0x16 */
    uint16_t lod_1_ofs;       /* +0x18 */
    uint16_t lod_0_ofs;       /* +0x1a */
    uint16_t tex_ofs;         /* +0x1c */
    uint16_t rgba_ofs;        /* +0x1e */
    uint8_t common_size;      /* +0x20 qw */
    uint8_t lod_2_size;       /* +0x21 qw */
    uint8_t lod_1_size;       /* +0x22 qw */
    uint8_t lod_0_size;       /* +0x23 qw */
    uint8_t lod_2_rgba_count; /* +0x24 meaning unclear */
    uint8_t lod_1_rgba_count; /* +0x25 */
    uint8_t lod_0_rgba_count; /* +0x26 */
    uint8_t base_only;        /* +0x27 */
    uint8_t rgba_verts_loc;   /* +0x2a */
    uint8_t occl_index_stash; /* +0x2b */
    uint8_t texture_count;    /* +0x28 */
    uint8_t rgba_size;        /* +0x29 qw */
    uint8_t msphere_count;    /* +0x2c */
    uint8_t flags;            /* +0x2d */
    uint16_t msphere_ofs;     /* +0x2e */
    uint16_t light_ofs;       /* +0x30 */
    uint16_t light_end_ofs;   /* +0x32 */
    uint8_t dir_lights_one;   /* +0x34 */
    uint8_t dir_lights_upd;   /* +0x35 */
    uint16_t point_lights;    /* +0x36 */
    uint16_t cube_ofs;        /* +0x38 */
    uint16_t occl_index;      /* +0x3a */
    uint8_t vert_count;       /* +0x3c */
    uint8_t tri_count;        /* +0x3d */
    uint16_t mip_dist;        /* +0x3e */
    /* VU header (first unpack of the common list) */
    uint16_t vu_positions_common, vu_vi_common, vu_positions_lod01, vu_vi_lod01, vu_positions_lod0,
        vu_vi_lod0;
    /* decoded */
    uint32_t positions_common, positions_lod01, positions_lod0, positions_decoded;
    uint32_t vi_common, vi_lod01, vi_lod0;
    uint32_t indices_lod0, indices_lod1, indices_lod2;
    uint32_t parents_lod01, parents_lod0;
    uint32_t strips_lod0, strips_lod1, strips_lod2;
    uint32_t tris_lod0, tris_lod1, tris_lod2;
    uint32_t adgif_count;
    uint32_t
        adgif_payload_ofs; /* offset of the ad-gif UNPACK payload relative to data (null if none) */
    uint32_t rgba_count;
    uint32_t light_count;
    uint32_t unclassified_unpacks;
    uint32_t positional_mismatches; /* Wrench's by-place reading against ours by address */
    int32_t origin_x, origin_y, origin_z, origin_w;
    uint8_t origin_source; /* 0 none, 1 STROW before the first common V3_16, 2 light_ofs qword */
    uint8_t origin6_strow; /* the sixth code of the common list is a STROW */
    int32_t origin6_x, origin6_y, origin6_z;
    uint8_t walk_ok;
    uint8_t walk_error;
    uint8_t walk_error_list;
    uint64_t walk_error_ofs;
    char walk_error_name[16];
    char walk_where[64];
} tfrag_patch_row;

typedef struct tfrag_vertex_row {
    uint64_t file_ofs;
    uint32_t patch_row;
    uint16_t index;
    uint8_t tier;
    uint8_t has_rgba;
    float x, y, z;
    uint8_t r, g, b, a;
    uint32_t lod_parent0, lod_parent1; /* as Wrench's recovery step derives them */
} tfrag_vertex_row;

typedef struct tfrag_vi_row {
    uint64_t file_ofs;
    uint32_t patch_row;
    uint16_t index;
    uint8_t tier;
    uint8_t claims_parent;
    float s, t;
    int16_t raw_parent;
    int16_t raw_vertex;
    uint32_t vertex;
    uint8_t parents_resolved;
    uint32_t parent_vi;
    uint32_t parent0;
    uint32_t parent1;
} tfrag_vi_row;

typedef struct tfrag_triangle_row {
    uint64_t file_ofs;
    uint32_t patch_row;
    uint8_t lod;
    uint16_t strip;
    uint16_t a, b, c;
    uint32_t va, vb, vc;
    uint32_t v_max; /* largest of va, vb, vc; null if any is null */
    uint32_t adgif;
    uint32_t texture;
    uint32_t vi_lo, vi_hi;
} tfrag_triangle_row;

typedef struct tfrag_adgif_row {
    uint64_t file_ofs;
    uint32_t patch_row;
    uint16_t index;
    int32_t texture;
    int16_t k;
    int32_t mmin;
    int32_t wrap_s;
    int32_t wrap_t;
    int32_t tex1_lo;
    int32_t miptbp1_lo; /* +0x30 MIPTBP1_1 data_lo: TBP1, TBW1, low 12 bits of TBP2 */
    int32_t miptbp1_hi; /* +0x34 MIPTBP1_1 data_hi: rest of TBP2, TBW2, TBP3, TBW3 */
} tfrag_adgif_row;

typedef struct tfrag_light_row {
    uint64_t file_ofs;
    uint32_t patch_row;
    uint16_t index;
    uint8_t unknown_0;
    uint8_t intensity;
    uint8_t azimuth;
    uint8_t elevation;
    uint16_t color;
    uint16_t select;
    /* the lighting pass (lighting_pass below); PS2 float patterns in F32 columns */
    uint8_t normal_found; /* both table entries were read */
    float nx, ny, nz;     /* the decoded normal: negated, in the positions' frame */
    double normal_length; /* |n| in double (a check, not part of the pass) */
    uint8_t base_r, base_g, base_b, base_a; /* PEXT5 of color: 5-bit field << 3, alpha bit << 7 */
    uint8_t set;                            /* select bits 0..7 */
    uint8_t blend;                          /* select bits 8..15 */
    double blend_weight;                    /* blend / 256 */
    uint32_t light_sets;                    /* lights in the bank (gameplay.dir_light rows) */
    uint8_t set_exists;                     /* set < light_sets, and set + 1 too when blended */
    double dir_a_length, dir_b_length;      /* |direction| as used (after any blend) */
    uint8_t lit;               /* the pass ran: normal table, light bank and set all present */
    float lit_r, lit_g, lit_b; /* lit colour, 1.0 = 0x80 */
    uint64_t lit_bits;         /* the three lit patterns folded to 12 bits (a bit-exact metric) */
    uint8_t gs_r, gs_g, gs_b;  /* the lit colour on the GS scale 0..0x80 (0 if !lit) */
} tfrag_light_row;

/* ---- descriptors -------------------------------------------------------- */

#define CD  "bytes in core_data"
#define NUL GC_CF_NULL_IF_MAX

static const gc_column block_cols[] = {
    GC_COL(tfrag_block_row, file_ofs, GC_T_U64, GC_CF_HEX, CD,
           "offset of the tfrag block header (core.tfrags)"),
    GC_COL(tfrag_block_row, table_offset, GC_T_S32, GC_CF_HEX, "bytes",
           "+0x00 patch table offset, relative to the block"),
    GC_COL(tfrag_block_row, count, GC_T_S32, 0, "count", "+0x04 patches in the table"),
    GC_COL(tfrag_block_row, lod_scale, GC_T_F32, 0, "world units",
           "+0x08 LOD unit L; switch distances are 6L, 4L, 2L"),
    GC_COL(tfrag_block_row, unknown_0c, GC_T_U32, GC_CF_HEX, "", "+0x0c not understood"),
    GC_COL(tfrag_block_row, region_start, GC_T_U64, GC_CF_HEX, CD,
           "start of the tfrag region (core.tfrags)"),
    GC_COL(tfrag_block_row, region_end, GC_T_U64, GC_CF_HEX, CD,
           "end of the tfrag region (core.occlusion)"),
};

static const gc_column patch_cols[] = {
    GC_COL(tfrag_patch_row, file_ofs, GC_T_U64, GC_CF_HEX, CD,
           "offset of the 0x40-byte patch header"),
    GC_COL(tfrag_patch_row, patch, GC_T_U32, 0, "", "index in the patch table"),
    GC_COL(tfrag_patch_row, cx, GC_T_F32, 0, "world units", "+0x00 bounding sphere centre x"),
    GC_COL(tfrag_patch_row, cy, GC_T_F32, 0, "world units", "+0x04 bounding sphere centre y"),
    GC_COL(tfrag_patch_row, cz, GC_T_F32, 0, "world units", "+0x08 bounding sphere centre z"),
    GC_COL(tfrag_patch_row, radius, GC_T_F32, 0, "world units", "+0x0c bounding sphere radius"),
    GC_COL(tfrag_patch_row, data, GC_T_S32, GC_CF_HEX, "bytes",
           "+0x10 patch data, relative to the patch TABLE"),
    GC_COL(tfrag_patch_row, data_ofs, GC_T_U64, GC_CF_HEX, CD,
           "patch data, absolute (table + data)"),
    GC_COL(tfrag_patch_row, lod_2_ofs, GC_T_U16, GC_CF_HEX, "bytes",
           "+0x14 LOD-2 list, relative to data"),
    GC_COL(tfrag_patch_row, shared_ofs, GC_T_U16, GC_CF_HEX, "bytes",
           "+0x16 common list, relative to data"),
    GC_COL(tfrag_patch_row, lod_1_ofs, GC_T_U16, GC_CF_HEX, "bytes",
           "+0x18 LOD-1 list, relative to data"),
    GC_COL(tfrag_patch_row, lod_0_ofs, GC_T_U16, GC_CF_HEX, "bytes",
           "+0x1a LOD-01 list, relative to data"),
    GC_COL(tfrag_patch_row, tex_ofs, GC_T_U16, GC_CF_HEX, "bytes",
           "+0x1c ad-gif UNPACK payload, relative to data"),
    GC_COL(tfrag_patch_row, rgba_ofs, GC_T_U16, GC_CF_HEX, "bytes",
           "+0x1e RGBA array (end of the LOD-0 list), relative to data"),
    GC_COL(tfrag_patch_row, common_size, GC_T_U8, 0, "qwords", "+0x20 common list length"),
    GC_COL(tfrag_patch_row, lod_2_size, GC_T_U8, 0, "qwords", "+0x21 LOD-2 + common"),
    GC_COL(tfrag_patch_row, lod_1_size, GC_T_U8, 0, "qwords",
           "+0x22 common + LOD-1 + LOD-01; the LOD-0 list starts at shared_ofs + 16*lod_1_size"),
    GC_COL(tfrag_patch_row, lod_0_size, GC_T_U8, 0, "qwords", "+0x23 LOD-01 + LOD-0"),
    GC_COL(tfrag_patch_row, lod_2_rgba_count, GC_T_U8, 0, "count",
           "+0x24 meaning unclear in the sources"),
    GC_COL(tfrag_patch_row, lod_1_rgba_count, GC_T_U8, 0, "count",
           "+0x25 meaning unclear in the sources"),
    GC_COL(tfrag_patch_row, lod_0_rgba_count, GC_T_U8, 0, "count",
           "+0x26 meaning unclear in the sources"),
    GC_COL(tfrag_patch_row, base_only, GC_T_U8, 0, "", "+0x27"),
    GC_COL(tfrag_patch_row, rgba_verts_loc, GC_T_U8, 0, "", "+0x2a"),
    GC_COL(tfrag_patch_row, occl_index_stash, GC_T_U8, 0, "", "+0x2b"),
    GC_COL(tfrag_patch_row, texture_count, GC_T_U8, 0, "count", "+0x28 ad-gif records declared"),
    GC_COL(tfrag_patch_row, rgba_size, GC_T_U8, 0, "qwords",
           "+0x29 RGBA array size (4 colours per qw)"),
    GC_COL(tfrag_patch_row, msphere_count, GC_T_U8, 0, "count", "+0x2c"),
    GC_COL(tfrag_patch_row, flags, GC_T_U8, GC_CF_HEX, "", "+0x2d"),
    GC_COL(tfrag_patch_row, msphere_ofs, GC_T_U16, GC_CF_HEX, "bytes", "+0x2e relative to data"),
    GC_COL(tfrag_patch_row, light_ofs, GC_T_U16, GC_CF_HEX, "bytes",
           "+0x30 light block (origin qword, then records), relative to data"),
    GC_COL(tfrag_patch_row, light_end_ofs, GC_T_U16, GC_CF_HEX, "bytes",
           "+0x32 end of the light records (== msphere_ofs on RAC/GC/UYA)"),
    GC_COL(tfrag_patch_row, dir_lights_one, GC_T_U8, GC_CF_HEX, "",
           "+0x34 0xff on every retail patch"),
    GC_COL(tfrag_patch_row, dir_lights_upd, GC_T_U8, GC_CF_HEX, "", "+0x35"),
    GC_COL(tfrag_patch_row, point_lights, GC_T_U16, GC_CF_HEX, "",
           "+0x36 0xffff (none) on every retail patch"),
    GC_COL(tfrag_patch_row, cube_ofs, GC_T_U16, GC_CF_HEX, "bytes", "+0x38 relative to data"),
    GC_COL(tfrag_patch_row, occl_index, GC_T_U16, 0, "", "+0x3a index in the occlusion mappings"),
    GC_COL(tfrag_patch_row, vert_count, GC_T_U8, 0, "count",
           "+0x3c positions over all three tiers (declared)"),
    GC_COL(tfrag_patch_row, tri_count, GC_T_U8, 0, "count", "+0x3d LOD-0 triangles (declared)"),
    GC_COL(tfrag_patch_row, mip_dist, GC_T_U16, 0, "", "+0x3e"),
    GC_COL(tfrag_patch_row, vu_positions_common, GC_T_U16, 0, "count",
           "VU header word 0: common positions"),
    GC_COL(tfrag_patch_row, vu_vi_common, GC_T_U16, 0, "count",
           "VU header word 1: common vertex info"),
    GC_COL(tfrag_patch_row, vu_positions_lod01, GC_T_U16, 0, "count",
           "VU header word 2: LOD-01 positions"),
    GC_COL(tfrag_patch_row, vu_vi_lod01, GC_T_U16, 0, "count",
           "VU header word 3 (unk_06): LOD-01 vertex info; 0 = empty tier"),
    GC_COL(tfrag_patch_row, vu_positions_lod0, GC_T_U16, 0, "count",
           "VU header word 4: LOD-0 positions"),
    GC_COL(tfrag_patch_row, vu_vi_lod0, GC_T_U16, 0, "count",
           "VU header word 5 (unk_0a): LOD-0 vertex info; 0 = empty tier"),
    GC_COL(tfrag_patch_row, positions_common, GC_T_U32, 0, "count",
           "positions decoded from the common list"),
    GC_COL(tfrag_patch_row, positions_lod01, GC_T_U32, 0, "count",
           "positions decoded from the LOD-01 list"),
    GC_COL(tfrag_patch_row, positions_lod0, GC_T_U32, 0, "count",
           "positions decoded from the LOD-0 list"),
    GC_COL(tfrag_patch_row, positions_decoded, GC_T_U32, 0, "count",
           "sum of the three tiers (0 if the walk failed)"),
    GC_COL(tfrag_patch_row, vi_common, GC_T_U32, 0, "count", "vertex-info entries, common tier"),
    GC_COL(tfrag_patch_row, vi_lod01, GC_T_U32, 0, "count", "vertex-info entries, LOD-01 tier"),
    GC_COL(tfrag_patch_row, vi_lod0, GC_T_U32, 0, "count", "vertex-info entries, LOD-0 tier"),
    GC_COL(tfrag_patch_row, indices_lod0, GC_T_U32, 0, "count", "index bytes banked to LOD 0"),
    GC_COL(tfrag_patch_row, indices_lod1, GC_T_U32, 0, "count", "index bytes banked to LOD 1"),
    GC_COL(tfrag_patch_row, indices_lod2, GC_T_U32, 0, "count", "index bytes banked to LOD 2"),
    GC_COL(tfrag_patch_row, parents_lod01, GC_T_U32, 0, "count",
           "parent indices of the LOD-01 tier (4 per V4_8 element)"),
    GC_COL(tfrag_patch_row, parents_lod0, GC_T_U32, 0, "count",
           "parent indices of the LOD-0 tier (4 per V4_8 element)"),
    GC_COL(tfrag_patch_row, strips_lod0, GC_T_U32, 0, "count", "strips of LOD 0"),
    GC_COL(tfrag_patch_row, strips_lod1, GC_T_U32, 0, "count", "strips of LOD 1"),
    GC_COL(tfrag_patch_row, strips_lod2, GC_T_U32, 0, "count", "strips of LOD 2"),
    GC_COL(tfrag_patch_row, tris_lod0, GC_T_U32, 0, "count", "triangles decoded for LOD 0"),
    GC_COL(tfrag_patch_row, tris_lod1, GC_T_U32, 0, "count", "triangles decoded for LOD 1"),
    GC_COL(tfrag_patch_row, tris_lod2, GC_T_U32, 0, "count", "triangles decoded for LOD 2"),
    GC_COL(tfrag_patch_row, adgif_count, GC_T_U32, 0, "count", "ad-gif records decoded"),
    GC_COL(tfrag_patch_row, adgif_payload_ofs, GC_T_U32, GC_CF_HEX | NUL, "bytes",
           "where the ad-gif UNPACK payload was found, relative to data (tex_ofs should equal it)"),
    GC_COL(tfrag_patch_row, rgba_count, GC_T_U32, 0, "count",
           "colours between rgba_ofs and light_ofs"),
    GC_COL(tfrag_patch_row, light_count, GC_T_U32, 0, "count",
           "8-byte light records between light_ofs + 0x10 and light_end_ofs"),
    GC_COL(tfrag_patch_row, unclassified_unpacks, GC_T_U32, 0, "count",
           "unpacks matching no VU header destination"),
    GC_COL(tfrag_patch_row, positional_mismatches, GC_T_U32, 0, "count",
           "unpacks Wrench's reading by place in the list takes for another array than their VU "
           "address names, plus lists whose unpack count it rejects"),
    GC_COL(tfrag_patch_row, origin_x, GC_T_S32, 0, "1/1024 world units", "origin row r0"),
    GC_COL(tfrag_patch_row, origin_y, GC_T_S32, 0, "1/1024 world units", "origin row r1"),
    GC_COL(tfrag_patch_row, origin_z, GC_T_S32, 0, "1/1024 world units", "origin row r2"),
    GC_COL(tfrag_patch_row, origin_w, GC_T_S32, 0, "", "origin row r3"),
    GC_COL(tfrag_patch_row, origin_source, GC_T_U8, 0, "",
           "0 none, 1 STROW before the first common V3_16, 2 the qword at light_ofs"),
    GC_COL(tfrag_patch_row, origin6_strow, GC_T_BOOL, 0, "",
           "the sixth code of the common list is a STROW (where Wrench takes the origin)"),
    GC_COL(tfrag_patch_row, origin6_x, GC_T_S32, 0, "1/1024 world units",
           "row r0 of that STROW (0 if it is none)"),
    GC_COL(tfrag_patch_row, origin6_y, GC_T_S32, 0, "1/1024 world units", "its row r1"),
    GC_COL(tfrag_patch_row, origin6_z, GC_T_S32, 0, "1/1024 world units", "its row r2"),
    GC_COL(tfrag_patch_row, walk_ok, GC_T_BOOL, 0, "", "every list walked to its end in sync"),
    GC_COL(tfrag_patch_row, walk_error, GC_T_U8, 0, "",
           "0 ok, 1 list_bounds, 2 vif_cut, 3 vif_unknown, 4 no_vu_header, 5 vu_range"),
    GC_COL(tfrag_patch_row, walk_error_list, GC_T_U8, 0, "",
           "list of the error: 0 common, 1 lod2, 2 lod1, 3 lod01, 4 lod0"),
    GC_COL(tfrag_patch_row, walk_error_ofs, GC_T_U64, GC_CF_HEX | NUL, CD,
           "where the walk went wrong (null if it did not)"),
    GC_COL(tfrag_patch_row, walk_error_name, GC_T_STR, 0, "", "walk error name"),
    GC_COL(
        tfrag_patch_row, walk_where, GC_T_STR, 0, "",
        "breadcrumb of the walk error: core_data/tfrag[17]/lod0/vif@0x1a4 (offset in core_data)"),
};

static const gc_column vertex_cols[] = {
    GC_COL(tfrag_vertex_row, file_ofs, GC_T_U64, GC_CF_HEX, CD, "offset of the V3_16 element"),
    GC_COL(tfrag_vertex_row, patch_row, GC_T_U32, NUL, "", "row of the patch in tfrag.patch"),
    GC_COL(tfrag_vertex_row, index, GC_T_U16, 0, "", "position index in the patch"),
    GC_COL(tfrag_vertex_row, tier, GC_T_U8, 0, "", "0 common, 1 LOD-01, 2 LOD-0"),
    GC_COL(tfrag_vertex_row, has_rgba, GC_T_BOOL, 0, "",
           "the RGBA array holds a colour for this index"),
    GC_COL(tfrag_vertex_row, x, GC_T_F32, 0, "world units", "(origin_x + s16) / 1024"),
    GC_COL(tfrag_vertex_row, y, GC_T_F32, 0, "world units", "(origin_y + s16) / 1024"),
    GC_COL(tfrag_vertex_row, z, GC_T_F32, 0, "world units", "(origin_z + s16) / 1024"),
    GC_COL(tfrag_vertex_row, r, GC_T_U8, 0, "", "RGBA array +0"),
    GC_COL(tfrag_vertex_row, g, GC_T_U8, 0, "", "RGBA array +1"),
    GC_COL(tfrag_vertex_row, b, GC_T_U8, 0, "", "RGBA array +2"),
    GC_COL(tfrag_vertex_row, a, GC_T_U8, 0, "", "RGBA array +3, 0..0x80 (0x80 opaque)"),
    GC_COL(tfrag_vertex_row, lod_parent0, GC_T_U32, NUL, "",
           "first parent as Wrench's recovery derives it: through the LOD entries naming this "
           "position, only those below the tier's position count; null if none"),
    GC_COL(tfrag_vertex_row, lod_parent1, GC_T_U32, NUL, "",
           "second parent (parent field / 2 of a LOD entry naming this position); null if none"),
};

static const gc_column vi_cols[] = {
    GC_COL(tfrag_vi_row, file_ofs, GC_T_U64, GC_CF_HEX, CD, "offset of the 8-byte V4_16 element"),
    GC_COL(tfrag_vi_row, patch_row, GC_T_U32, NUL, "", "row of the patch in tfrag.patch"),
    GC_COL(tfrag_vi_row, index, GC_T_U16, 0, "", "index in common ++ LOD-01 ++ LOD-0"),
    GC_COL(tfrag_vi_row, tier, GC_T_U8, 0, "", "0 common, 1 LOD-01, 2 LOD-0"),
    GC_COL(tfrag_vi_row, claims_parent, GC_T_BOOL, 0, "",
           "a LOD entry, or a common entry with a non-zero parent field"),
    GC_COL(tfrag_vi_row, s, GC_T_F32, 0, "", "+0 s16 / 4096"),
    GC_COL(tfrag_vi_row, t, GC_T_F32, 0, "", "+2 s16 / 4096"),
    GC_COL(tfrag_vi_row, raw_parent, GC_T_S16, 0, "",
           "+4 parent field as stored (2 x position index)"),
    GC_COL(tfrag_vi_row, raw_vertex, GC_T_S16, 0, "",
           "+6 vertex field as stored (2 x position index)"),
    GC_COL(tfrag_vi_row, vertex, GC_T_U32, NUL, "",
           "position index (raw_vertex / 2); null if it is not a decoded position"),
    GC_COL(tfrag_vi_row, parents_resolved, GC_T_BOOL, 0, "",
           "both parents are decoded positions of the patch"),
    GC_COL(tfrag_vi_row, parent_vi, GC_T_U32, NUL, "",
           "vertex-info index named by the tier's parent-index array"),
    GC_COL(tfrag_vi_row, parent0, GC_T_U32, NUL, "",
           "first parent: position of vertex_info[parent_vi]"),
    GC_COL(tfrag_vi_row, parent1, GC_T_U32, NUL, "", "second parent: raw_parent / 2"),
};

static const gc_column tri_cols[] = {
    GC_COL(tfrag_triangle_row, file_ofs, GC_T_U64, GC_CF_HEX, CD, "offset of the strip record"),
    GC_COL(tfrag_triangle_row, patch_row, GC_T_U32, NUL, "", "row of the patch in tfrag.patch"),
    GC_COL(tfrag_triangle_row, lod, GC_T_U8, 0, "", "0, 1 or 2"),
    GC_COL(tfrag_triangle_row, strip, GC_T_U16, 0, "", "strip number within the LOD"),
    GC_COL(tfrag_triangle_row, a, GC_T_U16, 0, "", "vertex-info index"),
    GC_COL(tfrag_triangle_row, b, GC_T_U16, 0, "", "vertex-info index"),
    GC_COL(tfrag_triangle_row, c, GC_T_U16, 0, "", "vertex-info index"),
    GC_COL(tfrag_triangle_row, va, GC_T_U32, NUL, "", "position index of a (null if unresolved)"),
    GC_COL(tfrag_triangle_row, vb, GC_T_U32, NUL, "", "position index of b"),
    GC_COL(tfrag_triangle_row, vc, GC_T_U32, NUL, "", "position index of c"),
    GC_COL(tfrag_triangle_row, v_max, GC_T_U32, NUL, "",
           "largest of va, vb, vc (null if any is): one parent lookup checks all three corners"),
    GC_COL(tfrag_triangle_row, adgif, GC_T_U32, NUL, "", "ad-gif record the strip selected"),
    GC_COL(tfrag_triangle_row, texture, GC_T_U32, NUL, "",
           "tfrag texture-table index (TEX0 data_lo of that ad-gif)"),
    GC_COL(tfrag_triangle_row, vi_lo, GC_T_U32, 0, "", "first legal vertex-info index of the LOD"),
    GC_COL(tfrag_triangle_row, vi_hi, GC_T_U32, 0, "",
           "one past the last legal vertex-info index of the LOD"),
};

static const gc_column adgif_cols[] = {
    GC_COL(tfrag_adgif_row, file_ofs, GC_T_U64, GC_CF_HEX, CD, "offset of the 0x50-byte record"),
    GC_COL(tfrag_adgif_row, patch_row, GC_T_U32, NUL, "", "row of the patch in tfrag.patch"),
    GC_COL(tfrag_adgif_row, index, GC_T_U16, 0, "", "record in the patch"),
    GC_COL(tfrag_adgif_row, texture, GC_T_S32, 0, "",
           "+0x00 TEX0 data_lo: tfrag texture-table index"),
    GC_COL(tfrag_adgif_row, k, GC_T_S16, 0, "1/16 mip level",
           "+0x10 TEX1 data_lo: LOD bias K, signed 12-bit"),
    GC_COL(tfrag_adgif_row, mmin, GC_T_S32, 0, "",
           "+0x14 TEX1 data_hi: MMIN (4 = LinearMipmapNearest)"),
    GC_COL(tfrag_adgif_row, wrap_s, GC_T_S32, 0, "", "+0x20 CLAMP data_lo: s wrap mode"),
    GC_COL(tfrag_adgif_row, wrap_t, GC_T_S32, 0, "", "+0x24 CLAMP data_hi: t wrap mode"),
    GC_COL(tfrag_adgif_row, tex1_lo, GC_T_S32, GC_CF_HEX, "", "+0x10 TEX1 data_lo as stored"),
    GC_COL(tfrag_adgif_row, miptbp1_lo, GC_T_S32, GC_CF_HEX, "",
           "+0x30 MIPTBP1 data_lo: TBP1 bits 0-13, TBW1 14-19, TBP2 low bits 20-31 (0 on disc)"),
    GC_COL(tfrag_adgif_row, miptbp1_hi, GC_T_S32, GC_CF_HEX, "",
           "+0x34 MIPTBP1 data_hi: TBP2 high bits 0-1, TBW2 2-7, TBP3 8-21, TBW3 22-27"),
};

static const gc_column light_cols[] = {
    GC_COL(tfrag_light_row, file_ofs, GC_T_U64, GC_CF_HEX, CD, "offset of the 8-byte record"),
    GC_COL(tfrag_light_row, patch_row, GC_T_U32, NUL, "", "row of the patch in tfrag.patch"),
    GC_COL(tfrag_light_row, index, GC_T_U16, 0, "", "position index"),
    GC_COL(tfrag_light_row, unknown_0, GC_T_U8, GC_CF_HEX, "", "+0"),
    GC_COL(tfrag_light_row, intensity, GC_T_U8, 0, "", "+1"),
    GC_COL(tfrag_light_row, azimuth, GC_T_U8, 0, "1/256 turn", "+2 index into the normal table"),
    GC_COL(tfrag_light_row, elevation, GC_T_U8, 0, "1/256 turn", "+3 index into the normal table"),
    GC_COL(tfrag_light_row, color, GC_T_U16, GC_CF_HEX, "", "+4 base colour 5:5:5:1"),
    GC_COL(tfrag_light_row, select, GC_T_U16, GC_CF_HEX, "",
           "+6 light set, or blend bits 8..15 / 256"),
    GC_COL(tfrag_light_row, normal_found, GC_T_BOOL, 0, "",
           "both normal-table entries (azimuth, elevation & 0xff) were read"),
    GC_COL(tfrag_light_row, nx, GC_T_F32, 0, "", "normal x: -(cos az cos el), PS2 float model"),
    GC_COL(tfrag_light_row, ny, GC_T_F32, 0, "", "normal y: -(sin az cos el)"),
    GC_COL(tfrag_light_row, nz, GC_T_F32, 0, "", "normal z: -(sin el) (Z-up, as positions)"),
    GC_COL(tfrag_light_row, normal_length, GC_T_F64, 0, "", "|normal| (sqrt in double, a check)"),
    GC_COL(tfrag_light_row, base_r, GC_T_U8, 0, "", "PEXT5 of color bits 0..4: field << 3"),
    GC_COL(tfrag_light_row, base_g, GC_T_U8, 0, "", "PEXT5 of color bits 5..9"),
    GC_COL(tfrag_light_row, base_b, GC_T_U8, 0, "", "PEXT5 of color bits 10..14"),
    GC_COL(tfrag_light_row, base_a, GC_T_U8, 0, "", "PEXT5 of color bit 15: 0 or 0x80"),
    GC_COL(tfrag_light_row, set, GC_T_U8, 0, "", "select bits 0..7: the light set"),
    GC_COL(tfrag_light_row, blend, GC_T_U8, 0, "", "select bits 8..15: blend toward set + 1"),
    GC_COL(tfrag_light_row, blend_weight, GC_T_F64, 0, "", "blend / 256"),
    GC_COL(tfrag_light_row, light_sets, GC_T_U32, 0, "count", "rows of gameplay.dir_light"),
    GC_COL(tfrag_light_row, set_exists, GC_T_BOOL, 0, "",
           "set < light_sets (and set + 1 when blended)"),
    GC_COL(tfrag_light_row, dir_a_length, GC_T_F64, 0, "",
           "|direction A| as the pass used it (blended: re-normalised)"),
    GC_COL(tfrag_light_row, dir_b_length, GC_T_F64, 0, "", "|direction B| as the pass used it"),
    GC_COL(tfrag_light_row, lit, GC_T_BOOL, 0, "",
           "lit by the pass (normal table, light bank and set present)"),
    GC_COL(tfrag_light_row, lit_r, GC_T_F32, 0, "1.0 = 0x80", "lit red, PS2 float model"),
    GC_COL(tfrag_light_row, lit_g, GC_T_F32, 0, "1.0 = 0x80", "lit green"),
    GC_COL(tfrag_light_row, lit_b, GC_T_F32, 0, "1.0 = 0x80", "lit blue"),
    GC_COL(tfrag_light_row, lit_bits, GC_T_U64, 0, "",
           "lit_r/g/b bit patterns mixed and folded to 12 bits (bit-exact metric)"),
    GC_COL(tfrag_light_row, gs_r, GC_T_U8, 0, "0x80 = 1.0",
           "FTOI0(MUL(clamp(lit_r, 0, 1.0), 128)): 0..0x80; 0 when not lit"),
    GC_COL(tfrag_light_row, gs_g, GC_T_U8, 0, "0x80 = 1.0", "as gs_r, green"),
    GC_COL(tfrag_light_row, gs_b, GC_T_U8, 0, "0x80 = 1.0", "as gs_r, blue"),
};

#define TABLE(var, nm, doc_, T, cols, parent)                                                      \
    const gc_table_desc var = {                                                                    \
        .name = nm,                                                                                \
        .doc = doc_,                                                                               \
        .row_size = sizeof(T),                                                                     \
        .columns = cols,                                                                           \
        .column_count = GC_COUNTOF(cols),                                                          \
        .parent_table = (parent) ? "tfrag.patch" : NULL,                                           \
        .parent_link = (parent) ? "patch" : NULL,                                                  \
        .parent_column = (parent) ? "patch_row" : NULL,                                            \
    }

/* Exported only so tests and the LOD decoder can find the tables by pointer;
 * the engine finds them through the registry by name. */
extern const gc_table_desc gc_table_tfrag_block, gc_table_tfrag_patch, gc_table_tfrag_vertex,
    gc_table_tfrag_vertex_info, gc_table_tfrag_triangle, gc_table_tfrag_adgif, gc_table_tfrag_light;

TABLE(gc_table_tfrag_block, "tfrag.block", "The tfrag block header (one row per level).",
      tfrag_block_row, block_cols, 0);
TABLE(gc_table_tfrag_patch, "tfrag.patch",
      "One tfrag patch: header fields, VU header, decoded counts per tier and LOD, walk outcome.",
      tfrag_patch_row, patch_cols, 0);
TABLE(gc_table_tfrag_vertex, "tfrag.vertex", "One decoded position of a patch (all three tiers).",
      tfrag_vertex_row, vertex_cols, 1);
TABLE(gc_table_tfrag_vertex_info, "tfrag.vertex_info",
      "One vertex-info entry (UV, own position, LOD parents) of common ++ LOD-01 ++ LOD-0.",
      tfrag_vi_row, vi_cols, 1);
TABLE(gc_table_tfrag_triangle, "tfrag.triangle", "One strip triangle of LOD 0, 1 or 2.",
      tfrag_triangle_row, tri_cols, 1);
TABLE(gc_table_tfrag_adgif, "tfrag.adgif", "One ad-gif record (texture binding) of a patch.",
      tfrag_adgif_row, adgif_cols, 1);
TABLE(gc_table_tfrag_light, "tfrag.light", "One per-vertex light record of a patch.",
      tfrag_light_row, light_cols, 1);

static const gc_table_desc *const tfrag_tables[] = {
    &gc_table_tfrag_block,       &gc_table_tfrag_patch,    &gc_table_tfrag_vertex,
    &gc_table_tfrag_vertex_info, &gc_table_tfrag_triangle, &gc_table_tfrag_adgif,
    &gc_table_tfrag_light,
};

/* ---- per-patch scratch -------------------------------------------------- */

typedef struct vu_header {
    uint16_t w[20]; /* formats.md §5.4, in order */
} vu_header;
enum {
    VU_POS_COMMON_COUNT = 0,
    VU_VI_COMMON_COUNT = 1,
    VU_POS_LOD01_COUNT = 2,
    VU_VI_LOD01_COUNT = 3, /* unk_06 */
    VU_POS_LOD0_COUNT = 4,
    VU_VI_LOD0_COUNT = 5, /* unk_0a */
    VU_POS_COMMON_ADDR = 6,
    VU_VI_COMMON_ADDR = 7,
    VU_VI_LOD01_ADDR = 9,
    VU_VI_LOD0_ADDR = 11,
    VU_INDICES_ADDR = 13,
    VU_PARENT_LOD01_ADDR = 14,
    VU_UNK2_LOD01_ADDR = 15,
    VU_PARENT_LOD0_ADDR = 16,
    VU_UNK2_LOD0_ADDR = 17,
    VU_STRIPS_ADDR = 18,
    VU_ADGIFS_ADDR = 19,
};

typedef struct byte_array {
    uint8_t b[BYTES_MAX];
    uint64_t file_ofs[BYTES_MAX / 4]; /* offset of each 4-byte element (strips) */
    uint32_t n;
} byte_array;

typedef struct scratch {
    /* positions by index */
    int16_t pos[POS_MAX][3];
    uint64_t pos_ofs[POS_MAX];
    uint8_t pos_tier[POS_MAX];
    uint8_t pos_present[POS_MAX];
    /* vertex info by index */
    int16_t vi[VI_MAX][4];
    uint64_t vi_ofs[VI_MAX];
    uint8_t vi_tier[VI_MAX];
    uint8_t vi_present[VI_MAX];
    /* pos_of_field of vi[i][3] for every present entry, UINT32_MAX for every
     * other index (filled once a patch's walk is done, by emit_geometry):
     * the triangles, the parents and the vertex-info rows looked it up
     * about 9 M times a retail-corpus pass, each through present tests */
    uint32_t vi_vertex[VI_MAX];
    unsigned pos_hi, vi_hi; /* one past the highest index written (bounds the loops) */
    /* arrays banked by LOD */
    byte_array strips[LOD_COUNT];
    byte_array indices[LOD_COUNT];
    byte_array parents[2]; /* 0: LOD-01, 1: LOD-0 */
    /* parents of each position as Wrench's recovery step derives them */
    uint32_t lod_parent[POS_MAX][2];
    /* ad-gifs */
    const uint8_t *adgif; /* payload */
    uint64_t adgif_file_ofs;
    uint32_t adgif_n;
} scratch;

/* What an unpack is: by its VU address (this decoder) or by its place in its list (Wrench's
 * read_tfrag_command_lists). */
enum { UK_NONE, UK_HEADER, UK_ADGIF, UK_VI, UK_POS, UK_STRIPS, UK_INDICES, UK_PARENT, UK_IDX2 };
#define SEQ_MAX 24 /* unpacks remembered per list; a well-formed list has at most 6 */

typedef struct list_seq {
    uint8_t n, over;
    uint8_t kind[SEQ_MAX], vnvl[SEQ_MAX];
    uint16_t addr[SEQ_MAX];
} list_seq;

typedef struct walk_state {
    const gc_level *lv;
    scratch *s;
    tfrag_patch_row *row;
    vu_header vu;
    bool have_vu;
    uint32_t strip_arrivals, index_arrivals; /* for the strips_by_arrival fault */
    /* origin: STROW immediately before the first common V3_16 */
    bool have_row, have_origin;
    int32_t last_row[4];
    int32_t origin[4];
    int32_t last_common_row[4];
    bool have_last_common_row;
    int32_t first_common_row[4];
    bool have_first_common_row;
    /* the sixth code of the common list, where Wrench takes the origin */
    bool have_origin6;
    int32_t origin6[4];
    uint32_t codes[LIST_COUNT];
    /* unpacks per list, for the by-place reading */
    list_seq seq[LIST_COUNT];
    int kind; /* kind of the unpack classify_unpack just saw */
    /* error */
    int err;
    int err_list;
    uint64_t err_ofs;
} walk_state;

static int walk_fail(walk_state *w, int err, int list, uint64_t ofs)
{
    if (w->err == WALK_OK) {
        w->err = err;
        w->err_list = list;
        w->err_ofs = ofs;
    }
    return -1;
}

static void append_bytes(byte_array *a, const uint8_t *p, size_t n, uint64_t file_ofs, bool *over)
{
    if (n > BYTES_MAX - a->n) {
        *over = true;
        return;
    }
    for (size_t i = 0; i + 4 <= n && (a->n + i) / 4 < BYTES_MAX / 4; i += 4)
        a->file_ofs[(a->n + i) / 4] = file_ofs + i;
    memcpy(a->b + a->n, p, n);
    a->n += (uint32_t)n;
}

/* One UNPACK of list `list`. Returns -1 on a fatal walk error. */
static int classify_unpack(walk_state *w, int list, const gc_vif_code *c)
{
    scratch *s = w->s;
    const uint16_t *h = w->vu.w;
    unsigned addr = c->addr_qwords;
    bool over = false;
    w->kind = UK_NONE;

    if (!w->have_vu) {
        /* The first unpack of the common list must be the VU header:
         * V4_16 unsigned, 5 elements, to address 0 (formats.md §5.4). */
        if (list != LIST_COMMON || c->vnvl != GC_VIF_V4_16 || !c->usn || addr != 0 ||
            c->count < TFRAG_VU_HEADER_QWORDS)
            return walk_fail(w, WALK_NO_VU_HEADER, list, c->file_ofs);
        gc_reader r = gc_reader_make(c->payload, c->payload_bytes, c->file_ofs + 4);
        for (int i = 0; i < 20; i++)
            w->vu.w[i] = gc_u16le(&r);
        w->have_vu = true;
        w->kind = UK_HEADER;
        return 0;
    }

    switch (c->vnvl) {
    case GC_VIF_V3_16: { /* positions */
        w->kind = UK_POS;
        if (GC_FAULT(w->lv, common_only) && list != LIST_COMMON)
            return 0;
        if (list == LIST_COMMON && !w->have_origin) {
            w->have_origin = true;
            if (w->have_row) {
                memcpy(w->origin, w->last_row, sizeof w->origin);
                w->row->origin_source = 1;
            }
            /* historical: the first STROW of the list (the vertex-info row) taken as the origin */
            if (GC_FAULT(w->lv, origin_first_strow) && w->have_first_common_row)
                memcpy(w->origin, w->first_common_row, sizeof w->origin);
        }
        int tier = list_tier[list];
        if (tier < 0 || addr < h[VU_POS_COMMON_ADDR] || ((addr - h[VU_POS_COMMON_ADDR]) & 1)) {
            w->row->unclassified_unpacks++;
            w->kind = UK_NONE;
            return 0;
        }
        unsigned first = (addr - h[VU_POS_COMMON_ADDR]) / 2;
        if (first + c->count > POS_MAX)
            return walk_fail(w, WALK_VU_RANGE, list, c->file_ofs);
        if (c->payload_bytes >= 6u * (size_t)c->count) {
            /* the usual case: every element is there, one check for all */
            const uint8_t *q = c->payload;
            uint64_t f = c->file_ofs + 4;
            for (unsigned i = 0; i < c->count; i++, q += 6) {
                unsigned k = first + i;
                s->pos_ofs[k] = f + 6u * i;
                s->pos[k][0] = (int16_t)gc_load_u16le(q);
                s->pos[k][1] = (int16_t)gc_load_u16le(q + 2);
                s->pos[k][2] = (int16_t)gc_load_u16le(q + 4);
                s->pos_tier[k] = (uint8_t)tier;
                s->pos_present[k] = 1;
            }
        } else {
            /* a payload framed short (the vif_imm_nibble fault): the reader
             * gives 0 past its end, and the offsets stop moving */
            gc_reader r = gc_reader_make(c->payload, c->payload_bytes, c->file_ofs + 4);
            for (unsigned i = 0; i < c->count; i++) {
                unsigned k = first + i;
                s->pos_ofs[k] = gc_tell_file(&r);
                s->pos[k][0] = gc_s16le(&r);
                s->pos[k][1] = gc_s16le(&r);
                s->pos[k][2] = gc_s16le(&r);
                s->pos_tier[k] = (uint8_t)tier;
                s->pos_present[k] = 1;
            }
        }
        if (first + c->count > s->pos_hi)
            s->pos_hi = first + c->count;
        return 0;
    }
    case GC_VIF_V4_16: { /* vertex info (signed) */
        int tier = list_tier[list];
        static const int tier_addr[3] = {VU_VI_COMMON_ADDR, VU_VI_LOD01_ADDR, VU_VI_LOD0_ADDR};
        if (c->usn || tier < 0 || addr != h[tier_addr[tier]] || addr < h[VU_VI_COMMON_ADDR]) {
            w->row->unclassified_unpacks++;
            return 0;
        }
        unsigned first = addr - h[VU_VI_COMMON_ADDR];
        if (first + c->count > VI_MAX)
            return walk_fail(w, WALK_VU_RANGE, list, c->file_ofs);
        if (c->payload_bytes >= 8u * (size_t)c->count) {
            const uint8_t *q = c->payload;
            uint64_t f = c->file_ofs + 4;
            for (unsigned i = 0; i < c->count; i++, q += 8) {
                unsigned k = first + i;
                s->vi_ofs[k] = f + 8u * i;
                for (int j = 0; j < 4; j++)
                    s->vi[k][j] = (int16_t)gc_load_u16le(q + 2 * j);
                s->vi_tier[k] = (uint8_t)tier;
                s->vi_present[k] = 1;
            }
        } else {
            gc_reader r = gc_reader_make(c->payload, c->payload_bytes, c->file_ofs + 4);
            for (unsigned i = 0; i < c->count; i++) {
                unsigned k = first + i;
                s->vi_ofs[k] = gc_tell_file(&r);
                for (int j = 0; j < 4; j++)
                    s->vi[k][j] = gc_s16le(&r);
                s->vi_tier[k] = (uint8_t)tier;
                s->vi_present[k] = 1;
            }
        }
        if (first + c->count > s->vi_hi)
            s->vi_hi = first + c->count;
        w->kind = UK_VI;
        return 0;
    }
    case GC_VIF_V4_32: /* ad-gifs */
        if (list != LIST_COMMON || addr != h[VU_ADGIFS_ADDR] || s->adgif) {
            w->row->unclassified_unpacks++;
            return 0;
        }
        s->adgif = c->payload;
        s->adgif_file_ofs = c->file_ofs + 4;
        s->adgif_n = c->count / TFRAG_ADGIF_QWORDS;
        w->row->adgif_payload_ofs = (uint32_t)(c->file_ofs + 4 - w->row->data_ofs);
        w->kind = UK_ADGIF;
        return 0;
    case GC_VIF_V4_8:
        break;
    default:
        w->row->unclassified_unpacks++;
        return 0;
    }

    /* V4_8: strips (signed), indices and parent arrays (unsigned). They are
     * told apart only by destination address, and addresses collide when an
     * array is empty, so the parent arrays are guarded by their tier being
     * non-empty (unk_06 / unk_0a) and looked for only in the list that
     * carries that tier. */
    size_t bytes = c->payload_bytes;
    int lod = list_lod[list];
    if (!c->usn) {
        if (addr != h[VU_STRIPS_ADDR] || lod < 0) {
            w->row->unclassified_unpacks++;
            return 0;
        }
        int bank = GC_FAULT(w->lv, strips_by_arrival) ? (int)(w->strip_arrivals % LOD_COUNT) : lod;
        w->strip_arrivals++;
        append_bytes(&s->strips[bank], c->payload, bytes, c->file_ofs + 4, &over);
        w->kind = UK_STRIPS;
    } else if (GC_FAULT(w->lv, parent_addr_only)) {
        /* historical: address alone, no list, no empty-tier guard */
        int bank = GC_FAULT(w->lv, strips_by_arrival) ? (int)(w->index_arrivals % LOD_COUNT) : lod;
        if (addr == h[VU_INDICES_ADDR] && lod >= 0) {
            w->index_arrivals++;
            append_bytes(&s->indices[bank], c->payload, bytes, c->file_ofs + 4, &over);
            w->kind = UK_INDICES;
        } else if (addr == h[VU_PARENT_LOD01_ADDR]) {
            append_bytes(&s->parents[0], c->payload, bytes, c->file_ofs + 4, &over);
            w->kind = UK_PARENT;
        } else if (addr == h[VU_PARENT_LOD0_ADDR]) {
            append_bytes(&s->parents[1], c->payload, bytes, c->file_ofs + 4, &over);
            w->kind = UK_PARENT;
        } else if (addr != h[VU_UNK2_LOD01_ADDR] && addr != h[VU_UNK2_LOD0_ADDR]) {
            w->row->unclassified_unpacks++;
        } else {
            w->kind = UK_IDX2;
        }
    } else if (addr == h[VU_INDICES_ADDR] && lod >= 0) {
        int bank = GC_FAULT(w->lv, strips_by_arrival) ? (int)(w->index_arrivals % LOD_COUNT) : lod;
        w->index_arrivals++;
        append_bytes(&s->indices[bank], c->payload, bytes, c->file_ofs + 4, &over);
        w->kind = UK_INDICES;
    } else if (list == LIST_LOD01 && h[VU_VI_LOD01_COUNT] != 0 && addr == h[VU_PARENT_LOD01_ADDR]) {
        append_bytes(&s->parents[0], c->payload, bytes, c->file_ofs + 4, &over);
        w->kind = UK_PARENT;
    } else if (list == LIST_LOD01 && h[VU_VI_LOD01_COUNT] != 0 && addr == h[VU_UNK2_LOD01_ADDR]) {
        /* "unknown indices 2": not understood, framed only */
        w->kind = UK_IDX2;
    } else if (list == LIST_LOD0 && h[VU_VI_LOD0_COUNT] != 0 && addr == h[VU_PARENT_LOD0_ADDR]) {
        append_bytes(&s->parents[1], c->payload, bytes, c->file_ofs + 4, &over);
        w->kind = UK_PARENT;
    } else if (list == LIST_LOD0 && h[VU_VI_LOD0_COUNT] != 0 && addr == h[VU_UNK2_LOD0_ADDR]) {
        /* framed only */
        w->kind = UK_IDX2;
    } else {
        w->row->unclassified_unpacks++;
    }
    if (over)
        return walk_fail(w, WALK_VU_RANGE, list, c->file_ofs);
    return 0;
}

static unsigned vif_framing(const gc_level *lv)
{
    unsigned f = 0;
    if (GC_FAULT(lv, vif_imm_nibble))
        f |= GC_VIF_FRAMING_IMM_NIBBLE;
    if (GC_FAULT(lv, pad2))
        f |= GC_VIF_FRAMING_PAD2;
    if (GC_FAULT(lv, inline_payloads))
        f |= GC_VIF_FRAMING_NO_INLINE;
    (void)lv;
    return f;
}

static int walk_list(walk_state *w, int list, gc_reader win)
{
    gc_vif_walker vw;
    gc_vif_begin(&vw, win, vif_framing(w->lv));
    gc_vif_code c;
    int rc;
    for (;;) {
        /* a NOP does nothing here but take a code index: stepped over in bulk */
        w->codes[list] += gc_vif_skip_nops(&vw);
        if ((rc = gc_vif_next(&vw, &c)) <= 0)
            break;
        uint32_t code_index = w->codes[list]++;
        if (c.cmd == GC_VIF_STROW && c.payload) {
            gc_reader r = gc_reader_make(c.payload, c.payload_bytes, c.file_ofs + 4);
            for (int i = 0; i < 4; i++)
                w->last_row[i] = gc_s32le(&r);
            w->have_row = true;
            if (list == LIST_COMMON) {
                memcpy(w->last_common_row, w->last_row, sizeof w->last_row);
                w->have_last_common_row = true;
                if (!w->have_first_common_row) {
                    memcpy(w->first_common_row, w->last_row, sizeof w->last_row);
                    w->have_first_common_row = true;
                }
                if (code_index == WRENCH_ORIGIN_CODE) {
                    memcpy(w->origin6, w->last_row, sizeof w->last_row);
                    w->have_origin6 = true;
                }
            }
        } else if (c.is_unpack) {
            if (classify_unpack(w, list, &c) < 0)
                return -1;
            list_seq *q = &w->seq[list];
            if (q->n < SEQ_MAX) {
                q->kind[q->n] = (uint8_t)w->kind;
                q->vnvl[q->n] = c.vnvl;
                q->addr[q->n] = c.addr_qwords;
                q->n++;
            } else {
                q->over = 1;
            }
        }
    }
    if (rc < 0)
        return walk_fail(w, vw.error == GC_VIF_E_UNKNOWN ? WALK_VIF_UNKNOWN : WALK_VIF_CUT, list,
                         vw.error_file_ofs);
    if (list == LIST_COMMON && !w->have_vu)
        return walk_fail(w, WALK_NO_VU_HEADER, list, win.file_ofs);
    return 0;
}

/* Wrench's reading of the lists (src/engine/tfrag_low.cpp, read_tfrag_command_lists;
 * docs/formats/tfrag.md §10) takes each unpack for an array by its place in its list, where
 * this decoder goes by VU address. Returns the unpacks the two readings take for different
 * arrays (an unpack Wrench skips counts: it loses that data), plus one for every list whose
 * unpack count or formats Wrench rejects outright. */
static uint32_t fixed_list_mismatches(const list_seq *q, const uint8_t *kind, const uint8_t *fmt,
                                      unsigned n)
{
    if (q->n != n)
        return 1; /* "Incorrect number of ... VIF unpacks" */
    uint32_t bad = 0;
    for (unsigned i = 0; i < n; i++) {
        if (q->vnvl[i] != fmt[i])
            return bad + 1; /* "Bad VIF command" */
        bad += q->kind[i] != kind[i];
    }
    return bad;
}

static uint32_t positional_mismatches(const walk_state *w)
{
    static const uint8_t lod2_kind[2] = {UK_INDICES, UK_STRIPS};
    static const uint8_t lod1_kind[2] = {UK_STRIPS, UK_INDICES};
    static const uint8_t v4_8s[2] = {GC_VIF_V4_8, GC_VIF_V4_8};
    static const uint8_t common_kind[4] = {UK_HEADER, UK_ADGIF, UK_VI, UK_POS};
    static const uint8_t common_fmt[4] = {GC_VIF_V4_16, GC_VIF_V4_32, GC_VIF_V4_16, GC_VIF_V3_16};
    const uint16_t *h = w->vu.w;
    uint32_t bad = 0;
    for (int l = 0; l < LIST_COUNT; l++)
        bad += w->seq[l].over;
    bad += fixed_list_mismatches(&w->seq[LIST_LOD2], lod2_kind, v4_8s, 2);
    bad += fixed_list_mismatches(&w->seq[LIST_COMMON], common_kind, common_fmt, 4);
    bad += fixed_list_mismatches(&w->seq[LIST_LOD1], lod1_kind, v4_8s, 2);

    /* LOD 01: [parent array if the tier has positions] [indices 2 if its address is not 0]
     * [vertex info] [positions]; anything after that is never read */
    const list_seq *q = &w->seq[LIST_LOD01];
    unsigned i = 0;
    uint8_t want[SEQ_MAX];
    if (i < q->n && q->vnvl[i] == GC_VIF_V4_8 && h[VU_POS_LOD01_COUNT] > 0)
        want[i++] = UK_PARENT;
    if (i < q->n && q->vnvl[i] == GC_VIF_V4_8 && q->addr[i] != 0)
        want[i++] = UK_IDX2;
    if (i < q->n && q->vnvl[i] == GC_VIF_V4_16)
        want[i++] = UK_VI;
    if (i < q->n && q->vnvl[i] == GC_VIF_V3_16)
        want[i++] = UK_POS;
    for (unsigned k = 0; k < i; k++)
        bad += q->kind[k] != want[k];
    bad += q->n - i;

    /* LOD 0: [positions] strips indices [parent array if the tier has positions]
     * [indices 2] [vertex info]; strips and indices must be there */
    q = &w->seq[LIST_LOD0];
    i = 0;
    if (i < q->n && q->vnvl[i] == GC_VIF_V3_16)
        want[i++] = UK_POS;
    for (int k = 0; k < 2; k++) {
        if (i >= q->n || q->vnvl[i] != GC_VIF_V4_8)
            return bad + 1; /* "Too few LOD 0 VIF unpacks" / "Bad VIF command" */
        want[i++] = k == 0 ? UK_STRIPS : UK_INDICES;
    }
    if (i < q->n && q->vnvl[i] == GC_VIF_V4_8 && h[VU_POS_LOD0_COUNT] > 0)
        want[i++] = UK_PARENT;
    if (i < q->n && q->vnvl[i] == GC_VIF_V4_8)
        want[i++] = UK_IDX2;
    if (i < q->n && q->vnvl[i] == GC_VIF_V4_16)
        want[i++] = UK_VI;
    for (unsigned k = 0; k < i; k++)
        bad += q->kind[k] != want[k];
    bad += q->n - i;
    return bad;
}

/* ---- geometry ------------------------------------------------------------ */

static float pos_world(int32_t origin, int16_t v)
{
    /* (origin + s16) / 1024: exact in double, one rounding to float */
    return (float)((double)((int64_t)origin + v) / 1024.0);
}

/* Position index named by a stored 2 x index field, or UINT32_MAX. */
static uint32_t pos_of_field(const scratch *s, int16_t field)
{
    if (field < 0 || (field & 1) || (unsigned)(field / 2) >= POS_MAX || !s->pos_present[field / 2])
        return UINT32_MAX;
    return (uint32_t)(field / 2);
}

typedef struct tfrag_ctx {
    gc_level *lv;
    gc_rowbuf *rb_patch, *rb_vertex, *rb_vi, *rb_tri, *rb_adgif, *rb_light;
    scratch *s;
} tfrag_ctx;

#define PUSH(rb, T, var)                                                                           \
    T *var = GC_ROWS_PUSH(rb, T);                                                                  \
    if (!var)                                                                                      \
        return GC_E_NOMEM;

/* Room for `n` rows of `size` bytes at the end of rb when its capacity already
 * holds them (tfrag_run reserves the tables from the patches' declared
 * counts), else NULL: the caller then pushes row by row. The count is not
 * advanced; the caller zeroes each row it takes (ROOM_ROW: a constant-size
 * memset, as GC_ROWS_PUSH does) and adds the rows it filled. This drops the
 * push's capacity and size tests and count update from every row (about
 * 5 M tfrag rows a retail-corpus decode); the rows hold the same bytes and
 * nothing is allocated or charged differently. (dec_moby.c has the same.) */
static void *rows_room(gc_rowbuf *rb, size_t n, size_t size)
{
    /* No rows, no room: a table not allocated yet has data NULL, and NULL + 0 is undefined
     * (UBSan, fuzz_level_full); the caller's row-by-row path takes no rows either. */
    if (n == 0 || !rb || size != rb->desc->row_size || rb->cap - rb->count < n)
        return NULL;
    return rb->data + rb->count * size;
}

/* Row i of a room, zeroed, or (room NULL) a pushed row; NOMEM as PUSH. */
#define ROOM_ROW(room, i, rb, T, var)                                                              \
    T *var = (room) ? memset(&(room)[i], 0, sizeof(T)) : GC_ROWS_PUSH(rb, T);                      \
    if (!var)                                                                                      \
        return GC_E_NOMEM;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TRI_ROW_WORDS 1
/* The triangle row as seven 8-byte words, written whole (tri_row_words): the
 * layout it assumes, byte by byte. */
_Static_assert(
    sizeof(tfrag_triangle_row) == 56 && offsetof(tfrag_triangle_row, patch_row) == 8 &&
        offsetof(tfrag_triangle_row, lod) == 12 && offsetof(tfrag_triangle_row, strip) == 14 &&
        offsetof(tfrag_triangle_row, a) == 16 && offsetof(tfrag_triangle_row, b) == 18 &&
        offsetof(tfrag_triangle_row, c) == 20 && offsetof(tfrag_triangle_row, va) == 24 &&
        offsetof(tfrag_triangle_row, vb) == 28 && offsetof(tfrag_triangle_row, vc) == 32 &&
        offsetof(tfrag_triangle_row, v_max) == 36 && offsetof(tfrag_triangle_row, adgif) == 40 &&
        offsetof(tfrag_triangle_row, texture) == 44 && offsetof(tfrag_triangle_row, vi_lo) == 48 &&
        offsetof(tfrag_triangle_row, vi_hi) == 52,
    "tfrag_triangle_row as tri_row_words writes it");

static inline void put64(void *row, size_t at, uint64_t w)
{
    memcpy((uint8_t *)row + at, &w, 8);
}

/* One strip triangle's row, every byte of it (the padding after lod and
 * after c zero, vi_lo 0, as a pushed row holds them): w0, w1 are the words
 * the strip fixes ({file_ofs}, {patch_row, lod, strip}), w5, w6 {adgif,
 * texture} and {vi_lo, vi_hi}. Seven 8-byte stores instead of the zeroing
 * and thirteen field stores (1.3 M rows a retail-corpus decode); the same
 * bytes. */
static inline void tri_row_words(tfrag_triangle_row *t, uint64_t w0, uint64_t w1, uint64_t w5,
                                 uint64_t w6, uint16_t a, uint16_t b, uint16_t c, uint32_t va,
                                 uint32_t vb, uint32_t vc)
{
    uint32_t m = va > vb ? va : vb;
    m = m > vc ? m : vc;
    put64(t, 0, w0);
    put64(t, 8, w1);
    put64(t, 16, (uint64_t)a | (uint64_t)b << 16 | (uint64_t)c << 32);
    put64(t, 24, (uint64_t)va | (uint64_t)vb << 32);
    put64(t, 32, (uint64_t)vc | (uint64_t)m << 32);
    put64(t, 40, w5);
    put64(t, 48, w6);
}

/* The light row's record part as the words light_row_words writes: file_ofs, {patch_row,
 * index, unknown_0, intensity}, then azimuth, elevation, color and select, the record's
 * bytes 2..7 as they lie, at 16..21; everything from normal_found on is the lighting pass's
 * and starts zero. */
_Static_assert(
    sizeof(tfrag_light_row) == 120 && offsetof(tfrag_light_row, patch_row) == 8 &&
        offsetof(tfrag_light_row, index) == 12 && offsetof(tfrag_light_row, unknown_0) == 14 &&
        offsetof(tfrag_light_row, intensity) == 15 && offsetof(tfrag_light_row, azimuth) == 16 &&
        offsetof(tfrag_light_row, elevation) == 17 && offsetof(tfrag_light_row, color) == 18 &&
        offsetof(tfrag_light_row, select) == 20 && offsetof(tfrag_light_row, normal_found) == 22,
    "tfrag_light_row as light_row_words writes it");

/* Eight bytes as one word: little-endian, as the host (TRI_ROW_WORDS). */
static inline uint64_t load64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* One light record's row, every byte of it, from the record's 8 bytes as one little-endian
 * word: three 8-byte stores and the 96 zero bytes of the derived part, instead of the zeroing
 * and nine field stores (0.8 M rows a retail-corpus decode). */
static inline void light_row_words(tfrag_light_row *l, uint64_t file_ofs, uint32_t prow,
                                   uint16_t index, uint64_t rec)
{
    put64(l, 0, file_ofs);
    put64(l, 8, (uint64_t)prow | (uint64_t)index << 32 | (rec & 0xFFFFu) << 48);
    put64(l, 16, rec >> 16); /* bytes 22, 23 (normal_found, padding): the zeros shifted in */
    memset((uint8_t *)l + 24, 0, sizeof *l - 24);
}
#else
#define TRI_ROW_WORDS 0
#endif

/* Triangles of one LOD: strip records walk consecutive index entries. */
static gc_status emit_triangles(tfrag_ctx *x, uint32_t prow, int lod, uint32_t vi_hi,
                                uint32_t *strips_out, uint32_t *tris_out)
{
    const scratch *s = x->s;
    const byte_array *st = &s->strips[lod];
    const byte_array *ix = &s->indices[lod];
    uint32_t cur = 0, strips = 0, tris = 0;
    uint32_t adgif = UINT32_MAX;
    for (uint32_t e = 0; e + TFRAG_STRIP_BYTES <= st->n; e += TFRAG_STRIP_BYTES) {
        int8_t cnt = (int8_t)st->b[e];
        int8_t y = (int8_t)st->b[e + 1];
        uint8_t z = st->b[e + 2]; /* qword offset of the ad-gif: 5 x its number */
        if (cnt == 0)
            break; /* zero count ends the list */
        int n = cnt;
        if (cnt < 0) {
            /* biased record: carries a command; y == 0 loads the ad-gif at
             * quadword offset z (docs/formats/tfrag.md §7). The first
             * record of every list is of this kind. */
            n = cnt + TFRAG_STRIP_BIAS;
            if (y == 0)
                adgif = (uint32_t)z / TFRAG_ADGIF_QWORDS;
        }
        if ((uint32_t)n > ix->n - cur)
            break; /* the strip runs past its index array: no partial strip */
        uint32_t texture = UINT32_MAX;
        if (adgif < s->adgif_n) {
            int32_t t = (int32_t)gc_load_u32le(s->adgif + (size_t)adgif * TFRAG_ADGIF_BYTES);
            texture = t >= 0 ? (uint32_t)t : UINT32_MAX;
        }
        uint64_t strip_ofs = st->file_ofs[e / 4];
        /* The last two entries (and their positions) ride along in registers: each triangle
         * reads one new entry. Strip indices address the vertex-info array; the position is
         * vertex_info[i].vertex / 2 (several entries share a position). */
        const uint8_t *sb = ix->b + cur;
        const bool by_index = GC_FAULT(x->lv, strip_index_position);
        uint16_t i0 = n > 2 ? sb[0] : 0, i1 = n > 2 ? sb[1] : 0;
        uint32_t p0 = s->vi_vertex[i0], p1 = s->vi_vertex[i1]; /* < 256 <= VI_MAX */
        if (by_index)
            p0 = i0, p1 = i1;
        tfrag_triangle_row *room = n > 2 ? rows_room(x->rb_tri, (size_t)n - 2, sizeof *room) : NULL;
#if TRI_ROW_WORDS
        if (room) {
            const uint64_t w1 =
                (uint64_t)prow | (uint64_t)(uint8_t)lod << 32 | (uint64_t)(uint16_t)strips << 48;
            const uint64_t w5 = (uint64_t)adgif | (uint64_t)texture << 32;
            const uint64_t w6 = (uint64_t)vi_hi << 32;
            for (int j = 0; j + 2 < n; j++) {
                uint16_t i2 = sb[j + 2];
                uint32_t p2 = by_index ? i2 : s->vi_vertex[i2];
                if (j & 1) /* alternating winding */
                    tri_row_words(&room[j], strip_ofs, w1, w5, w6, i1, i0, i2, p1, p0, p2);
                else
                    tri_row_words(&room[j], strip_ofs, w1, w5, w6, i0, i1, i2, p0, p1, p2);
                i0 = i1, i1 = i2, p0 = p1, p1 = p2;
            }
            tris += (uint32_t)n - 2;
            x->rb_tri->count += (size_t)n - 2;
            cur += (uint32_t)n;
            strips++;
            continue;
        }
#endif
        for (int j = 0; j + 2 < n; j++) {
            uint16_t i2 = sb[j + 2];
            uint32_t p2 = by_index ? i2 : s->vi_vertex[i2];
            ROOM_ROW(room, j, x->rb_tri, tfrag_triangle_row, t);
            t->file_ofs = strip_ofs;
            t->patch_row = prow;
            t->lod = (uint8_t)lod;
            t->strip = (uint16_t)strips;
            if (j & 1) { /* alternating winding */
                t->a = i1, t->b = i0, t->va = p1, t->vb = p0;
            } else {
                t->a = i0, t->b = i1, t->va = p0, t->vb = p1;
            }
            t->c = i2;
            t->vc = p2;
            /* UINT32_MAX (no position) is the largest value, so the max of
             * the three is already UINT32_MAX when any corner has none */
            uint32_t m = p0 > p1 ? p0 : p1;
            t->v_max = m > p2 ? m : p2;
            t->adgif = adgif;
            t->texture = texture;
            t->vi_hi = vi_hi; /* vi_lo: 0, as pushed */
            tris++;
            i0 = i1, i1 = i2, p0 = p1, p1 = p2;
        }
        if (room)
            x->rb_tri->count += (size_t)n - 2;
        cur += (uint32_t)n;
        strips++;
    }
    *strips_out = strips;
    *tris_out = tris;
    return GC_OK;
}

static gc_status emit_geometry(tfrag_ctx *x, uint32_t prow, tfrag_patch_row *p, walk_state *w,
                               gc_reader *data)
{
    scratch *s = x->s;

    /* positions */
    uint32_t tier_pos[3] = {0, 0, 0};
    for (unsigned i = 0; i < s->pos_hi; i++)
        if (s->pos_present[i])
            tier_pos[s->pos_tier[i]]++;
    p->positions_common = tier_pos[0];
    p->positions_lod01 = tier_pos[1];
    p->positions_lod0 = tier_pos[2];
    p->positions_decoded = tier_pos[0] + tier_pos[1] + tier_pos[2];

    /* vertex info */
    uint32_t tier_vi[3] = {0, 0, 0};
    for (unsigned i = 0; i < s->vi_hi; i++)
        if (s->vi_present[i])
            tier_vi[s->vi_tier[i]]++;
    p->vi_common = tier_vi[0];
    p->vi_lod01 = tier_vi[1];
    p->vi_lod0 = tier_vi[2];
    for (unsigned i = 0; i < s->vi_hi; i++)
        if (s->vi_present[i])
            s->vi_vertex[i] = pos_of_field(s, s->vi[i][3]);
    p->indices_lod0 = s->indices[0].n;
    p->indices_lod1 = s->indices[1].n;
    p->indices_lod2 = s->indices[2].n;
    uint32_t per = GC_FAULT(x->lv, v4_8_one_index) ? 4 : 1;
    p->parents_lod01 = s->parents[0].n / per;
    p->parents_lod0 = s->parents[1].n / per;
    p->adgif_count = s->adgif_n;

    /* RGBA array: rgba_ofs up to the light block */
    size_t rgba_n = 0;
    const uint8_t *rgba = NULL;
    if (p->light_ofs > p->rgba_ofs && p->light_ofs <= data->size) {
        rgba_n = (size_t)(p->light_ofs - p->rgba_ofs) / TFRAG_RGBA_BYTES;
        rgba = data->data + p->rgba_ofs;
    }
    p->rgba_count = (uint32_t)rgba_n;

    /* Parents as Wrench's recovery step derives them (tfrag_high.cpp,
     * propagate_tface_information): each LOD entry, in tier order, gives the position it names
     * its second parent (parent field / 2) and, only if its index in the tier is below the
     * tier's position count (the length Wrench cuts the parent array to), its first parent
     * through the parent array. A later entry naming the same position overrides. */
    uint32_t tier_start[3] = {0, tier_vi[0], tier_vi[0] + tier_vi[1]};
    for (unsigned i = 0; i < s->pos_hi; i++)
        s->lod_parent[i][0] = s->lod_parent[i][1] = UINT32_MAX;
    for (unsigned tier = 1; tier < 3; tier++) {
        const byte_array *pa = &s->parents[tier - 1];
        uint32_t npos = tier == 1 ? p->vu_positions_lod01 : p->vu_positions_lod0;
        uint32_t plen = npos < pa->n ? npos : pa->n;
        for (uint32_t j = 0; j < tier_vi[tier]; j++) {
            unsigned i = tier_start[tier] + j;
            if (i >= VI_MAX || !s->vi_present[i])
                continue;
            uint32_t v = s->vi_vertex[i];
            if (v == UINT32_MAX)
                continue;
            if (j < plen)
                s->lod_parent[v][0] = s->vi_vertex[pa->b[j]]; /* a byte: < VI_MAX */
            s->lod_parent[v][1] = pos_of_field(s, s->vi[i][2]);
        }
    }

    /* one row per present position: positions_decoded of them */
    tfrag_vertex_row *vroom = rows_room(x->rb_vertex, p->positions_decoded, sizeof *vroom);
    uint32_t nv = 0;
    for (unsigned i = 0; i < s->pos_hi; i++) {
        if (!s->pos_present[i])
            continue;
        ROOM_ROW(vroom, nv, x->rb_vertex, tfrag_vertex_row, v);
        nv++;
        v->lod_parent0 = s->lod_parent[i][0];
        v->lod_parent1 = s->lod_parent[i][1];
        v->file_ofs = s->pos_ofs[i];
        v->patch_row = prow;
        v->index = (uint16_t)i;
        v->tier = s->pos_tier[i];
        v->x = pos_world(w->origin[0], s->pos[i][0]);
        v->y = pos_world(w->origin[1], s->pos[i][1]);
        v->z = pos_world(w->origin[2], s->pos[i][2]);
        if (i < rgba_n) {
            v->has_rgba = 1;
            v->r = rgba[i * 4 + 0];
            v->g = rgba[i * 4 + 1];
            v->b = rgba[i * 4 + 2];
            v->a = rgba[i * 4 + 3];
        }
    }
    if (vroom)
        x->rb_vertex->count += nv;

    /* one row per present vertex-info entry: the three tiers' counts */
    tfrag_vi_row *iroom =
        rows_room(x->rb_vi, (size_t)tier_vi[0] + tier_vi[1] + tier_vi[2], sizeof *iroom);
    uint32_t ni = 0;
    for (unsigned i = 0; i < s->vi_hi; i++) {
        if (!s->vi_present[i])
            continue;
        ROOM_ROW(iroom, ni, x->rb_vi, tfrag_vi_row, r);
        ni++;
        const int16_t *e = s->vi[i];
        unsigned tier = s->vi_tier[i];
        r->file_ofs = s->vi_ofs[i];
        r->patch_row = prow;
        r->index = (uint16_t)i;
        r->tier = (uint8_t)tier;
        r->s = (float)e[0] / 4096.0f;
        r->t = (float)e[1] / 4096.0f;
        r->raw_parent = e[2];
        r->raw_vertex = e[3];
        r->vertex = s->vi_vertex[i];
        r->parent_vi = r->parent0 = r->parent1 = UINT32_MAX;
        r->claims_parent = tier != 0 || e[2] != 0;
        if (tier != 0) {
            const byte_array *pa = &s->parents[tier - 1];
            uint32_t j = i - tier_start[tier];
            /* 4 indices per V4_8 element; the historical bug took one per
             * element, so only the first n/4 entries had a parent */
            uint32_t avail = GC_FAULT(x->lv, v4_8_one_index) ? pa->n / 4 : pa->n;
            if (j < avail) {
                uint32_t pv = pa->b[j];
                r->parent_vi = pv;
                r->parent0 = s->vi_vertex[pv]; /* a byte: < VI_MAX */
            }
            r->parent1 = pos_of_field(s, e[2]);
            r->parents_resolved = r->parent0 != UINT32_MAX && r->parent1 != UINT32_MAX;
        }
    }
    if (iroom)
        x->rb_vi->count += ni;

    /* triangles, banked by LOD: LOD 0 sees every tier, LOD 1 common ++ LOD-01, LOD 2 common */
    uint32_t vi_hi[LOD_COUNT] = {tier_vi[0] + tier_vi[1] + tier_vi[2], tier_vi[0] + tier_vi[1],
                                 tier_vi[0]};
    uint32_t strips[LOD_COUNT], tris[LOD_COUNT];
    for (int lod = 0; lod < LOD_COUNT; lod++) {
        gc_status st = emit_triangles(x, prow, lod, vi_hi[lod], &strips[lod], &tris[lod]);
        if (st != GC_OK)
            return st;
    }
    p->strips_lod0 = strips[0];
    p->strips_lod1 = strips[1];
    p->strips_lod2 = strips[2];
    p->tris_lod0 = tris[0];
    p->tris_lod1 = tris[1];
    p->tris_lod2 = tris[2];

    /* ad-gifs: five A+D quadwords {s32 data_lo, s32 data_hi, u8 reg, u8, u16, u32} */
    for (uint32_t i = 0; i < s->adgif_n; i++) {
        gc_reader r = gc_reader_make(s->adgif + (size_t)i * TFRAG_ADGIF_BYTES, TFRAG_ADGIF_BYTES,
                                     s->adgif_file_ofs + (uint64_t)i * TFRAG_ADGIF_BYTES);
        PUSH(x->rb_adgif, tfrag_adgif_row, a);
        a->file_ofs = r.file_ofs;
        a->patch_row = prow;
        a->index = (uint16_t)i;
        a->texture = gc_s32le(&r); /* 0x00 TEX0 data_lo */
        gc_skip(&r, 12);
        a->tex1_lo = gc_s32le(&r); /* 0x10 TEX1 data_lo: K */
        a->mmin = gc_s32le(&r);    /* 0x14 TEX1 data_hi */
        gc_skip(&r, 8);
        a->wrap_s = gc_s32le(&r); /* 0x20 CLAMP data_lo */
        a->wrap_t = gc_s32le(&r); /* 0x24 CLAMP data_hi */
        gc_skip(&r, 8);
        a->miptbp1_lo = gc_s32le(&r); /* 0x30 MIPTBP1 data_lo */
        a->miptbp1_hi = gc_s32le(&r); /* 0x34 MIPTBP1 data_hi */
        if (GC_FAULT(x->lv, adgif_tie_order)) {
            /* A misreading nothing caught before issue 13: the tie ad-gif order (TEX0, TEX1,
             * MIPTBP1, CLAMP, MIPTBP2) applied to tfrag records. */
            int32_t s_ = a->wrap_s, t_ = a->wrap_t;
            a->wrap_s = a->miptbp1_lo;
            a->wrap_t = a->miptbp1_hi;
            a->miptbp1_lo = s_;
            a->miptbp1_hi = t_;
        }
        uint16_t k12 = (uint16_t)((uint32_t)a->tex1_lo & 0x0fffu);
        if (GC_FAULT(x->lv, k_unsigned))
            a->k = (int16_t)k12;
        else
            a->k = (int16_t)((int16_t)(k12 << 4) >> 4); /* sign-extend 12 bits */
    }

    /* light records: light_ofs + 0x10, 8 bytes each, up to light_end_ofs */
    uint32_t light_end = p->light_end_ofs ? p->light_end_ofs : p->msphere_ofs;
    uint32_t first = (uint32_t)p->light_ofs + TFRAG_LIGHT_HEADER_BYTES;
    uint32_t nl = 0;
    if (light_end > first && light_end <= data->size)
        nl = (light_end - first) / TFRAG_LIGHT_RECORD_BYTES;
    p->light_count = nl;
    uint32_t emit = nl < p->positions_decoded ? nl : p->positions_decoded;
    if (!data->overrun) {
        /* first + 8 nl <= light_end <= data->size: every record is inside
         * (and with no records, no pointer is formed past the data) */
        const uint8_t *q = emit ? data->data + first : NULL;
        tfrag_light_row *lroom = rows_room(x->rb_light, emit, sizeof *lroom);
#if TRI_ROW_WORDS
        if (lroom) {
            const uint64_t ofs = data->file_ofs + first;
            for (uint32_t i = 0; i < emit; i++, q += TFRAG_LIGHT_RECORD_BYTES)
                light_row_words(&lroom[i], ofs + (uint64_t)i * TFRAG_LIGHT_RECORD_BYTES, prow,
                                (uint16_t)i, load64(q));
            x->rb_light->count += emit;
            return GC_OK;
        }
#endif
        for (uint32_t i = 0; i < emit; i++, q += TFRAG_LIGHT_RECORD_BYTES) {
            ROOM_ROW(lroom, i, x->rb_light, tfrag_light_row, l);
            l->file_ofs = data->file_ofs + first + (uint64_t)i * TFRAG_LIGHT_RECORD_BYTES;
            l->patch_row = prow;
            l->index = (uint16_t)i;
            l->unknown_0 = q[0];
            l->intensity = q[1];
            l->azimuth = q[2];
            l->elevation = q[3];
            l->color = gc_load_u16le(q + 4);
            l->select = gc_load_u16le(q + 6);
        }
        if (lroom)
            x->rb_light->count += emit;
        return GC_OK;
    }
    for (uint32_t i = 0; i < emit; i++) { /* every window fails: rows of zeros, as ever */
        gc_reader r =
            gc_window(data, first + (size_t)i * TFRAG_LIGHT_RECORD_BYTES, TFRAG_LIGHT_RECORD_BYTES);
        PUSH(x->rb_light, tfrag_light_row, l);
        l->file_ofs = r.file_ofs;
        l->patch_row = prow;
        l->index = (uint16_t)i;
        l->unknown_0 = gc_u8(&r);
        l->intensity = gc_u8(&r);
        l->azimuth = gc_u8(&r);
        l->elevation = gc_u8(&r);
        l->color = gc_u16le(&r);
        l->select = gc_u16le(&r);
    }
    return GC_OK;
}

/* ---- the lighting pass ---------------------------------------------------
 *
 * Per vertex, in the PS2 float model (gc_ps2fpu.h; docs/formats/tfrag.md §8,
 * level-assets.md "The lighting pass itself"):
 *
 *   lit = base + A.rgb * max(dA, dA * wA) + B.rgb * max(dB, dB * wB)
 *
 * base is the record's 5:5:5:1 colour expanded as PEXT5 does (field << 3),
 * scaled so 0x80 is 1.0 (ITOF7, exact); dA, dB are dot3(normal, direction)
 * of the two lights of the selected set; wA, wB are the colours' w lanes. The
 * normal is (cos az cos el, sin az cos el, sin el) from the overlay's normal
 * table (the stored values, never recomputed; azimuth and elevation are
 * indices 0..255, the byte value), negated (the stored normal points into the
 * surface). Positions are published Z-up as stored (no swap), so the normal
 * stays in that frame too. select bits 0..7 name the set; bits 8..15, when
 * non-zero, blend toward set + 1 by blend / 256: colours and directions are
 * mixed (1 - t) * S + t * S1, and a blended direction is re-normalised
 * (RSQRT of its squared length); an unblended one is used as stored.
 *
 * The gameplay decoder and the normals decoder run before this one
 * (gc_decoders.def); their rows are read by column NAME through the
 * descriptors, so this file shares no struct with theirs. */

/* The divide-unit model of the one RSQRT in the pass (docs/ps2-float.md,
 * "Two models of the divide unit"): the console's. */
#define LIGHT_FDIV GC_PS2_FDIV_CONSOLE

typedef struct light_set {
    uint32_t col[2][4]; /* colour_a, colour_b: r, g, b, w */
    uint32_t dir[2][3]; /* direction_a, direction_b */
    double len[2];      /* |direction_a|, |direction_b| (the dir_*_length columns) */
} light_set;

static const gc_rowbuf *rows_by_name(gc_level *lv, const char *name)
{
    for (size_t i = 0; i < lv->table_count; i++)
        if (lv->tables[i].desc && strcmp(lv->tables[i].desc->name, name) == 0)
            return &lv->tables[i];
    return NULL;
}

/* Offset of a column of the given type, or SIZE_MAX. */
static size_t col_ofs(const gc_rowbuf *rb, const char *name, gc_coltype type)
{
    for (size_t i = 0; rb && i < rb->desc->column_count; i++) {
        const gc_column *c = &rb->desc->columns[i];
        if (strcmp(c->name, name) == 0 && c->type == type)
            return c->offset;
    }
    return SIZE_MAX;
}

static uint32_t bits_at(const uint8_t *row, size_t ofs)
{
    uint32_t v;
    memcpy(&v, row + ofs, 4);
    return v;
}

/* |v| in host double: a check column only, never an input of the pass. */
static double len3(const uint32_t v[3])
{
    double s = 0;
    for (int k = 0; k < 3; k++) {
        float f;
        memcpy(&f, &v[k], 4);
        s += (double)f * f;
    }
    return sqrt(s);
}

/* The light bank from gameplay.dir_light (colour_a_r .. direction_b_z), as
 * raw patterns. NULL with *n = 0 when there is none or a column is missing. */
static light_set *load_lights(gc_level *lv, uint32_t *n)
{
    static const char *const names[2][2] = {{"colour_a", "direction_a"},
                                            {"colour_b", "direction_b"}};
    static const char lanes[4] = {'r', 'g', 'b', 'w'}, axes[3] = {'x', 'y', 'z'};
    const gc_rowbuf *rb = rows_by_name(lv, "gameplay.dir_light");
    *n = 0;
    if (!rb || rb->count == 0 || rb->count > 0xffffu)
        return NULL;
    size_t ofs[2][7];
    for (int h = 0; h < 2; h++)
        for (int k = 0; k < 7; k++) {
            char nm[32];
            if (k < 4)
                snprintf(nm, sizeof nm, "%s_%c", names[h][0], lanes[k]);
            else
                snprintf(nm, sizeof nm, "%s_%c", names[h][1], axes[k - 4]);
            ofs[h][k] = col_ofs(rb, nm, GC_T_F32);
            if (ofs[h][k] == SIZE_MAX)
                return NULL;
        }
    light_set *ls = calloc(rb->count, sizeof *ls);
    if (!ls)
        return NULL;
    for (size_t i = 0; i < rb->count; i++) {
        const uint8_t *row = rb->data + i * rb->desc->row_size;
        for (int h = 0; h < 2; h++) {
            for (int k = 0; k < 4; k++)
                ls[i].col[h][k] = bits_at(row, ofs[h][k]);
            for (int k = 0; k < 3; k++)
                ls[i].dir[h][k] = bits_at(row, ofs[h][4 + k]);
        }
    }
    for (size_t i = 0; i < rb->count; i++)
        for (int h = 0; h < 2; h++)
            ls[i].len[h] = len3(ls[i].dir[h]);
    *n = (uint32_t)rb->count;
    return ls;
}

/* The accepted normal table: 256 (cos, sin) pattern pairs inside the
 * overlay, or NULL. */
static const uint8_t *load_normal_table(gc_level *lv)
{
    const gc_rowbuf *rb = rows_by_name(lv, "normals.table");
    size_t f = col_ofs(rb, "found", GC_T_BOOL), o = col_ofs(rb, "overlay_ofs", GC_T_U64);
    if (!rb || rb->count != 1 || f == SIZE_MAX || o == SIZE_MAX || !lv->overlay.present)
        return NULL;
    uint64_t at;
    memcpy(&at, rb->data + o, 8);
    if (!rb->data[f] || at > lv->overlay.size || lv->overlay.size - at < 256u * 8u)
        return NULL;
    return lv->overlay.data + at;
}

static float as_f(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static uint32_t as_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* One channel: base + ca * max(dA, dA wA) + cb * max(dB, dB wB), in the
 * float model, or (fault light_host_float) in host IEEE float. The float
 * model's operations are the inline bodies of ps2fpu_core.h (the same bodies
 * as gc_ps2_madd & co., without a call per operation: the pass makes about
 * 30 per vertex). */
static inline uint32_t light_channel(int host_float, uint32_t base, uint32_t ca, uint32_t ta,
                                     uint32_t cb, uint32_t tb)
{
    if (host_float) /* fault light_host_float: the pass in host float */
        return as_bits(as_f(base) + as_f(ca) * as_f(ta) + as_f(cb) * as_f(tb));
    return gc_ps2i_madd(gc_ps2i_madd(base, ca, ta), cb, tb);
}

static inline uint32_t light_term(int host_float, const uint32_t n[3], const uint32_t d[3],
                                  uint32_t w)
{
    if (host_float) {
        float dd = as_f(n[0]) * as_f(d[0]) + as_f(n[1]) * as_f(d[1]) + as_f(n[2]) * as_f(d[2]);
        float dw = dd * as_f(w);
        return as_bits(dd > dw ? dd : dw);
    }
    uint32_t dd = gc_ps2i_dot3(n, d);
    return gc_ps2i_max(dd, gc_ps2i_mul(dd, w));
}

static inline uint8_t to_gs(uint32_t v)
{
    /* clamp to [0, 1.0] (MAX.S, MIN.S), scale by 128, FTOI0: 0..0x80, in
     * closed form (the same bits: ps2fpu_core.h) */
    return (uint8_t)gc_ps2i_gs_colour(v);
}

/* Per select word: the light set the pass uses (set, or the blend of set and
 * set + 1 by blend / 256, its directions re-normalised). Blended sets are
 * made once per distinct select word and kept in a dense array in order of
 * first use, found through a 65,536-slot index (256 KB): the retail-shaped
 * levels blend 0-3 select words, and the 3.7 MB table of every possible
 * set this replaced cost a page-clearing calloc per level (100 M
 * instructions a corpus decode) for those few entries. */
typedef struct set_cache {
    uint32_t *slot; /* [select]: entry of L + 1, or 0 */
    light_set *L;   /* capacity: one per row of the pass, at most 65,536 */
    uint32_t n;
} set_cache;

static const light_set *blended_set(const gc_level *lv, const light_set *ls, set_cache *cache,
                                    uint8_t set, uint8_t blend)
{
    if (!blend)
        return &ls[set];
    unsigned key = (unsigned)set | (unsigned)blend << 8;
    if (cache->slot[key])
        return &cache->L[cache->slot[key] - 1];
    light_set *L = &cache->L[cache->n++];
    *L = ls[set];
    const light_set *L1 = &ls[set + 1u];
    uint32_t t = gc_ps2_itof(blend, 8), u = gc_ps2_sub(GC_PS2_ONE, t);
    for (int h = 0; h < 2; h++) {
        for (int k = 0; k < 4; k++)
            L->col[h][k] = gc_ps2_madd(gc_ps2_mul(u, L->col[h][k]), t, L1->col[h][k]);
        for (int k = 0; k < 3; k++)
            L->dir[h][k] = gc_ps2_madd(gc_ps2_mul(u, L->dir[h][k]), t, L1->dir[h][k]);
        if (!GC_FAULT(lv, blend_not_normalised)) { /* Historical bug: blend not re-normalised */
            uint32_t inv =
                gc_ps2_rsqrt_m(LIGHT_FDIV, GC_PS2_ONE, gc_ps2_dot3(L->dir[h], L->dir[h]));
            for (int k = 0; k < 3; k++)
                L->dir[h][k] = gc_ps2_mul(L->dir[h][k], inv);
        }
        L->len[h] = len3(L->dir[h]);
    }
    cache->slot[key] = cache->n;
    return L;
}

static void decode_normal(const gc_level *lv, const uint8_t *table, uint8_t azimuth,
                          uint8_t elevation, uint32_t n[3], uint8_t *found)
{
    n[0] = n[1] = n[2] = 0;
    *found = 0;
    if (!table)
        return;
    int32_t az = azimuth, el = elevation;
    if (GC_FAULT(lv, azimuth_signed)) /* Historical bug: azimuth read as s8 (-56, not 200) */
        az = (int8_t)azimuth;
    /* the table pointer plus the index: a negative index reads before it */
    const uint8_t *lo = lv->overlay.data, *hi = lv->overlay.data + lv->overlay.size;
    const uint8_t *pa = table + (ptrdiff_t)az * 8, *pe = table + (ptrdiff_t)el * 8;
    if (!(pa >= lo && pa + 8 <= hi && pe >= lo && pe + 8 <= hi))
        return;
    uint32_t ca = gc_load_u32le(pa), sa = gc_load_u32le(pa + 4);
    uint32_t ce = gc_load_u32le(pe), se = gc_load_u32le(pe + 4);
    n[0] = gc_ps2i_mul(ca, ce);
    n[1] = gc_ps2i_mul(sa, ce);
    n[2] = se;
    if (!GC_FAULT(lv, normal_not_negated)) /* Historical bug: the inward normal used */
        for (int k = 0; k < 3; k++)
            n[k] = gc_ps2_neg(n[k]);
    if (GC_FAULT(lv, normal_axes)) { /* Historical bug: the normal alone given a */
        uint32_t y = n[1];           /* Z-up -> Y-up swap, positions not */
        n[1] = n[2];
        n[2] = gc_ps2_neg(y);
    }
    *found = 1;
}

/* What the pass derives once per distinct input instead of once per vertex
 * (a level's 20,000-50,000 vertices use about 3,500 (azimuth, elevation)
 * pairs and 8,000 (pair, select) combinations on the synthetic corpus):
 *
 *  - per (azimuth, elevation) byte pair, the decoded normal and its length;
 *  - per (pair, select word), the products the two MADD.S of each channel
 *    add: colour_a.k * max(dA, dA wA) and colour_b.k * max(dB, dB wB), each
 *    truncated to a single as MUL.S gives it. MADD.S is not fused, so the
 *    product depends only on this key, never on the vertex's base colour; a
 *    vertex then costs the two ADD.S per channel.
 *
 * Both live in dense arrays filled in order of first use (capacity: one
 * entry per row at most), found through a 65,536-slot index by pair and,
 * per pair, a short list by select word: no hashing, and the memory touched
 * is what is used (page clearing of large sparse tables had cost as much as
 * the arithmetic it saved). */
typedef struct normal_entry {
    uint32_t n[3];
    double length;
    uint8_t found;
    uint32_t first_lit; /* head of this pair's lit_entry list, or UINT32_MAX */
} normal_entry;

typedef struct lit_entry {
    uint16_t select;
    uint8_t ovf[2];     /* bit k: the product of channel k overflowed (MADD.S returns it) */
    uint32_t next;      /* next entry of the same pair, or UINT32_MAX */
    uint32_t p[2][3];   /* [light a/b][r, g, b] */
    uint32_t first_col; /* head of this entry's colour_entry list, or UINT32_MAX */
    uint32_t ncol;      /* entries in that list (at most LIGHT_COLOURS_KEPT) */
} lit_entry;
/* add_products loads p[0] and p[1] as 16 bytes each (the fourth lane, p[1][0]
 * or first_col, is computed on and dropped): both loads stay inside the entry */
_Static_assert(offsetof(lit_entry, first_col) == offsetof(lit_entry, p) + 24,
               "p[1] is followed by 4 bytes of the same entry");

/* Per (lit entry, vertex colour word): the first row lit with it. Every
 * derived column of a row (normal_found onward) is a function of its
 * (azimuth, elevation, select, color) alone, and a lit entry fixes the
 * first three, so a later row with the same entry and colour word takes
 * that row's derived bytes whole (the same bytes: the same operations ran
 * once for the first, and the padding is zero in both). A retail-shaped
 * level's vertices use about 40 colour words, so about half of the lit
 * vertices repeat an earlier (pair, select, colour) and skip the six ADD.S,
 * the three clamp/MUL.S/FTOI and the ~30 field stores. A list longer than
 * LIGHT_COLOURS_KEPT is not searched further (hostile input with every
 * colour at one normal costs the arithmetic, not a long walk). */
#define LIGHT_COLOURS_KEPT 16u
typedef struct colour_entry {
    const struct tfrag_light_row *row; /* the row lit first with this colour */
    uint32_t next;                     /* next colour of the same lit entry, or UINT32_MAX */
    uint16_t color;
    /* 24 bytes, as the entry was when it held the lit patterns: at 16 a corpus
     * decode took ~120 more page faults (bench_decode --one-thread), the block
     * sizes changing which of the pass's blocks gc_bigmem maps or recycles */
    uint8_t spare[8];
} colour_entry;
_Static_assert(sizeof(colour_entry) == 24 || sizeof(void *) != 8, "see spare");
/* the derived columns, copied whole from the row a colour_entry names */
#define LIGHT_DERIVED offsetof(tfrag_light_row, normal_found)
_Static_assert(offsetof(tfrag_light_row, select) + 2 <= LIGHT_DERIVED &&
                   offsetof(tfrag_light_row, nx) > LIGHT_DERIVED &&
                   offsetof(tfrag_light_row, gs_b) > LIGHT_DERIVED,
               "the record's columns precede the derived ones");

typedef struct light_ctx {
    const gc_level *lv;
    const uint8_t *table;
    const light_set *ls;
    uint32_t nsets;
    int host_float; /* fault light_host_float, read once per pass */
    set_cache sets;
    uint32_t *pair_slot; /* [azimuth | elevation << 8]: normal entry + 1, or 0 */
    normal_entry *normals;
    lit_entry *lit;
    colour_entry *cols;
    uint32_t nnormals, nlit, ncols; /* entries used (capacity: the pass's rows) */
    uint32_t itof7[32];             /* ITOF7 of (5-bit field << 3): the PEXT5 base as 0x80 = 1.0 */
} light_ctx;

static normal_entry *normal_of(light_ctx *cx, uint8_t azimuth, uint8_t elevation)
{
    uint32_t *slot = &cx->pair_slot[(unsigned)azimuth | (unsigned)elevation << 8];
    if (*slot)
        return &cx->normals[*slot - 1];
    normal_entry *e = &cx->normals[cx->nnormals++];
    decode_normal(cx->lv, cx->table, azimuth, elevation, e->n, &e->found);
    e->length = len3(e->n);
    e->first_lit = UINT32_MAX;
    *slot = cx->nnormals;
    return e;
}

/* The products of (normal entry ne, select word) from normal n and set L. */
static lit_entry *lit_products(light_ctx *cx, normal_entry *ne, uint16_t select, const light_set *L)
{
    for (uint32_t i = ne->first_lit; i != UINT32_MAX; i = cx->lit[i].next)
        if (cx->lit[i].select == select)
            return &cx->lit[i];
    lit_entry *e = &cx->lit[cx->nlit];
    e->select = select;
    e->ovf[0] = e->ovf[1] = 0;
    e->first_col = UINT32_MAX;
    e->ncol = 0;
    e->next = ne->first_lit;
    ne->first_lit = cx->nlit++;
#if GC_PS2V
    /* the same operations in SSE2 lanes (the same bits, ps2fpu_sse2.h): the
     * two lights' dot products side by side (lanes 0, 1), then each light's
     * three colour products */
    const uint32_t *n = ne->n;
    __m128i o01, o2, ow, oa, ob;
    __m128i m01 =
        gc_ps2v_mul(_mm_setr_epi32((int32_t)n[0], (int32_t)n[0], (int32_t)n[1], (int32_t)n[1]),
                    _mm_setr_epi32((int32_t)L->dir[0][0], (int32_t)L->dir[1][0],
                                   (int32_t)L->dir[0][1], (int32_t)L->dir[1][1]),
                    &o01);
    __m128i m2 =
        gc_ps2v_mul(_mm_setr_epi32((int32_t)n[2], (int32_t)n[2], 0, 0),
                    _mm_setr_epi32((int32_t)L->dir[0][2], (int32_t)L->dir[1][2], 0, 0), &o2);
    __m128i m1 = _mm_srli_si128(m01, 8), o1 = _mm_srli_si128(o01, 8);
    __m128i dd = gc_ps2v_select(o1, m1, gc_ps2v_add(m01, m1)); /* MADD.S */
    dd = gc_ps2v_select(o2, m2, gc_ps2v_add(dd, m2));
    __m128i dw =
        gc_ps2v_mul(dd, _mm_setr_epi32((int32_t)L->col[0][3], (int32_t)L->col[1][3], 0, 0), &ow);
    __m128i t = gc_ps2v_max(dd, dw);
    /* lane 3 is w times t: computed, not stored */
    __m128i pa = gc_ps2v_mul(_mm_loadu_si128((const __m128i *)(const void *)L->col[0]),
                             _mm_shuffle_epi32(t, 0x00), &oa);
    __m128i pb = gc_ps2v_mul(_mm_loadu_si128((const __m128i *)(const void *)L->col[1]),
                             _mm_shuffle_epi32(t, 0x55), &ob);
    _mm_storel_epi64((__m128i *)(void *)e->p[0], pa);
    e->p[0][2] = (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(pa, 0xaa));
    _mm_storel_epi64((__m128i *)(void *)e->p[1], pb);
    e->p[1][2] = (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(pb, 0xaa));
    e->ovf[0] = (uint8_t)(_mm_movemask_ps(_mm_castsi128_ps(oa)) & 7);
    e->ovf[1] = (uint8_t)(_mm_movemask_ps(_mm_castsi128_ps(ob)) & 7);
#else
    for (int h = 0; h < 2; h++) {
        uint32_t t = light_term(0, ne->n, L->dir[h], L->col[h][3]);
        for (int k = 0; k < 3; k++) {
            int ovf;
            e->p[h][k] = gc_ps2i_mul_ovf(L->col[h][k], t, &ovf);
            e->ovf[h] |= (uint8_t)(ovf << k);
        }
    }
#endif
    return e;
}

/* The three channels' base + product a + product b (two MADD.S each, the
 * products already formed): out[k] = madd_product(madd_product(base[k],
 * p[0][k], ovf 0 bit k), p[1][k], ovf 1 bit k). With SSE2 the three
 * channels' ADD.S run as lanes of gc_ps2v_add (the same bits). */
#if GC_PS2V
static void add_products(const lit_entry *e, const uint32_t base[3], uint32_t out[3])
{
    /* lane k all ones when bit k of the index is set: an overflowed product
     * is MADD.S's result whatever the accumulator */
    static const int32_t ovf_lanes[8][4] = {
        {0, 0, 0, 0},  {-1, 0, 0, 0},  {0, -1, 0, 0},  {-1, -1, 0, 0},
        {0, 0, -1, 0}, {-1, 0, -1, 0}, {0, -1, -1, 0}, {-1, -1, -1, 0},
    };
    __m128i p0 = _mm_loadu_si128((const __m128i *)(const void *)e->p[0]);
    __m128i p1 = _mm_loadu_si128((const __m128i *)(const void *)e->p[1]);
    __m128i m0 = _mm_loadu_si128((const __m128i *)(const void *)ovf_lanes[e->ovf[0] & 7u]);
    __m128i m1 = _mm_loadu_si128((const __m128i *)(const void *)ovf_lanes[e->ovf[1] & 7u]);
    __m128i acc = _mm_setr_epi32((int32_t)base[0], (int32_t)base[1], (int32_t)base[2], 0);
    acc = gc_ps2v_select(m0, p0, gc_ps2v_add(acc, p0));
    acc = gc_ps2v_select(m1, p1, gc_ps2v_add(acc, p1));
    uint32_t lanes[4];
    _mm_storeu_si128((__m128i *)(void *)lanes, acc);
    out[0] = lanes[0], out[1] = lanes[1], out[2] = lanes[2];
}
#else
/* MADD.S(acc, a, b) given the product a * b already formed: the product
 * itself when it overflowed, else ADD.S (gc_ps2i_madd, split in two). */
static inline uint32_t madd_product(uint32_t acc, uint32_t prod, int overflowed)
{
    return overflowed ? prod : gc_ps2i_add(acc, prod);
}

static void add_products(const lit_entry *e, const uint32_t base[3], uint32_t out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = madd_product(madd_product(base[k], e->p[0][k], e->ovf[0] >> k & 1), e->p[1][k],
                              e->ovf[1] >> k & 1);
}
#endif

/* The three lit patterns mixed (multiply-xorshift) and folded to 12 bits:
 * any change to any of them moves the value to another of 4,096, so the
 * per-level sum, metric tfrag.lit_bits, changes. The sum of the raw patterns
 * (about 10^13 a level) did not do that: the metric comparison forgives a
 * relative 1e-9 (harness/report/report.c, same_value), about 10^4 there,
 * more than the host-float pass moves it on half the levels. 12 bits keep a
 * level's sum below 2^28 (50,000 rows at most 4,095 each), where 1e-9
 * relative is under one unit. */
static uint64_t fold_lit_bits(const uint32_t out[3])
{
    uint32_t x = out[0] * 0x9e3779b1u ^ out[1] * 0x85ebca77u ^ out[2] * 0xc2b2ae3du;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 16;
    return x & 0xfffu;
}

static void light_vertex(light_ctx *cx, tfrag_light_row *l)
{
    uint16_t c = l->color;
    uint8_t set = (uint8_t)(l->select & 0xffu), blend = (uint8_t)(l->select >> 8);
    bool set_exists = set < cx->nsets && (blend == 0 || set + 1u < cx->nsets);

    /* the normal: two table entries, by index 0..255 (the byte) */
    normal_entry *ne = normal_of(cx, l->azimuth, l->elevation);
    /* the light set, blended toward set + 1 when bits 8..15 are set (one
     * computation per distinct select word, cached: it depends on nothing
     * else) */
    const light_set *L = NULL;
    lit_entry *e = NULL;
    if (ne->found && set_exists) {
        L = blended_set(cx->lv, cx->ls, &cx->sets, set, blend);
        if (!cx->host_float) {
            e = lit_products(cx, ne, l->select, L);
            for (uint32_t i = e->first_col; i != UINT32_MAX; i = cx->cols[i].next)
                if (cx->cols[i].color == c) { /* lit before: its derived bytes */
                    memcpy((uint8_t *)l + LIGHT_DERIVED,
                           (const uint8_t *)cx->cols[i].row + LIGHT_DERIVED,
                           sizeof *l - LIGHT_DERIVED);
                    return;
                }
        }
    }

    l->base_r = (uint8_t)((c & 31u) << 3);
    l->base_g = (uint8_t)(((c >> 5) & 31u) << 3);
    l->base_b = (uint8_t)(((c >> 10) & 31u) << 3);
    l->base_a = (uint8_t)((c >> 15) << 7);
    l->set = set;
    l->blend = blend;
    l->blend_weight = blend / 256.0;
    l->light_sets = cx->nsets;
    l->set_exists = set_exists;
    const uint32_t *n = ne->n;
    l->normal_found = ne->found;
    l->nx = as_f(n[0]), l->ny = as_f(n[1]), l->nz = as_f(n[2]);
    l->normal_length = ne->length;
    if (!L)
        return;
    l->dir_a_length = L->len[0];
    l->dir_b_length = L->len[1];
    const unsigned field[3] = {c & 31u, (c >> 5) & 31u, (c >> 10) & 31u};
    uint32_t out[3];
    if (e) {
        const uint32_t base[3] = {cx->itof7[field[0]], cx->itof7[field[1]], cx->itof7[field[2]]};
        add_products(e, base, out);
        if (e->ncol < LIGHT_COLOURS_KEPT) {
            colour_entry *keep = &cx->cols[cx->ncols];
            keep->row = l;
            keep->color = c;
            keep->next = e->first_col;
            e->first_col = cx->ncols++;
            e->ncol++;
        }
    } else {
        uint32_t ta = light_term(cx->host_float, n, L->dir[0], L->col[0][3]);
        uint32_t tb = light_term(cx->host_float, n, L->dir[1], L->col[1][3]);
        for (int k = 0; k < 3; k++)
            out[k] = light_channel(cx->host_float, cx->itof7[field[k]], L->col[0][k], ta,
                                   L->col[1][k], tb);
    }
    l->lit_r = as_f(out[0]), l->lit_g = as_f(out[1]), l->lit_b = as_f(out[2]);
    l->lit_bits = fold_lit_bits(out);
    l->gs_r = to_gs(out[0]), l->gs_g = to_gs(out[1]), l->gs_b = to_gs(out[2]);
    l->lit = 1;
}

/* fresh: the rows were just pushed (zeroed, then the record's fields
 * written), so nothing derived is there to clear; gc_tfrag_relight passes
 * false. */
static size_t lighting_pass(gc_level *lv, gc_rowbuf *rb, bool fresh)
{
    /* Historical bug (fault light_host_float): the pass in host IEEE float
     * (light_channel, light_term); constant 0 unless faults are compiled in */
    light_ctx cx = {.lv = lv, .host_float = GC_FAULTS_BUILT && GC_FAULT(lv, light_host_float)};
    light_set *ls = load_lights(lv, &cx.nsets);
    cx.ls = ls;
    cx.table = load_normal_table(lv);
    size_t cap = rb->count ? rb->count : 1;
    /* The two 65536-entry slot maps share one zeroed 512 KiB block: at that size it is
     * gc_bigmem's (a recycled block with its pages resident, or one huge page), where two
     * 256 KiB callocs were malloc's and took up to 128 fresh 4 KiB pages a level, touched
     * sparsely by the (azimuth, elevation) pairs and selects a level uses (~1,300 of a
     * retail-corpus decode's faults). */
    uint32_t *slots = gc_big_calloc(2 * 65536, sizeof *slots);
    if (ls) {
        cx.sets.slot = slots ? slots + 65536 : NULL;
        cx.sets.L = gc_big_alloc((cap < 65536 ? cap : 65536) * sizeof *cx.sets.L);
    }
    cx.pair_slot = slots;
    cx.normals = gc_big_alloc(cap * sizeof *cx.normals);
    cx.lit = gc_big_alloc(cap * sizeof *cx.lit);
    cx.cols = gc_big_alloc(cap * sizeof *cx.cols);
    for (unsigned f = 0; f < 32; f++)
        cx.itof7[f] = gc_ps2i_itof((int32_t)(f << 3), 7);
    int ok =
        cx.pair_slot && cx.normals && cx.lit && cx.cols && (!ls || (cx.sets.slot && cx.sets.L));
    if (!ok) {
        /* no memory: nothing is lit (the frame stays unlit), and the rows
         * keep only what the records hold */
        free(ls);
        ls = NULL, cx.ls = NULL, cx.nsets = 0;
    }
    size_t lit = 0;
    for (size_t i = 0; i < rb->count; i++) {
        tfrag_light_row *l = (tfrag_light_row *)(void *)(rb->data + i * rb->desc->row_size);
        if (!fresh) {
            /* clear what a previous pass derived; keep what the record holds */
            tfrag_light_row rec = *l;
            memset(l, 0, sizeof *l);
            l->file_ofs = rec.file_ofs, l->patch_row = rec.patch_row, l->index = rec.index;
            l->unknown_0 = rec.unknown_0, l->intensity = rec.intensity, l->azimuth = rec.azimuth;
            l->elevation = rec.elevation, l->color = rec.color, l->select = rec.select;
        }
        if (ok)
            light_vertex(&cx, l);
        lit += l->lit;
    }
    gc_big_free(cx.cols);
    gc_big_free(cx.lit);
    gc_big_free(cx.normals);
    gc_big_free(slots);
    gc_big_free(cx.sets.L);
    free(ls);
    return lit;
}

size_t gc_tfrag_relight(gc_level *lv)
{
    gc_rowbuf *rb = gc_level_rows(lv, &gc_table_tfrag_light);
    return rb ? lighting_pass(lv, rb, false) : 0;
}

static void clear_scratch(scratch *s)
{
    memset(s->pos_present, 0, s->pos_hi);
    memset(s->vi_present, 0, s->vi_hi);
    memset(s->vi_vertex, 0xff, s->vi_hi * sizeof s->vi_vertex[0]);
    s->pos_hi = s->vi_hi = 0;
    for (int i = 0; i < LOD_COUNT; i++) {
        s->strips[i].n = 0;
        s->indices[i].n = 0;
    }
    s->parents[0].n = s->parents[1].n = 0;
    s->adgif = NULL;
    s->adgif_n = 0;
    s->adgif_file_ofs = 0;
}

/* Reads one patch header and walks its lists. Only an allocation failure is
 * returned as an error; everything the bytes can do wrong lands in the row. */
static gc_status decode_patch(tfrag_ctx *x, gc_reader *region, size_t table_pos, size_t block_pos,
                              uint32_t index)
{
    gc_level *lv = x->lv;
    uint32_t prow = (uint32_t)x->rb_patch->count;
    PUSH(x->rb_patch, tfrag_patch_row, p);
    gc_reader h =
        gc_window(region, table_pos + (size_t)index * TFRAG_PATCH_BYTES, TFRAG_PATCH_BYTES);
    p->file_ofs = h.file_ofs;
    p->patch = index;
    p->cx = gc_f32le(&h);            /* 0x00 */
    p->cy = gc_f32le(&h);            /* 0x04 */
    p->cz = gc_f32le(&h);            /* 0x08 */
    p->radius = gc_f32le(&h);        /* 0x0c */
    p->data = gc_s32le(&h);          /* 0x10 */
    p->lod_2_ofs = gc_u16le(&h);     /* 0x14 */
    p->shared_ofs = gc_u16le(&h);    /* 0x16 */
    p->lod_1_ofs = gc_u16le(&h);     /* 0x18 */
    p->lod_0_ofs = gc_u16le(&h);     /* 0x1a */
    p->tex_ofs = gc_u16le(&h);       /* 0x1c */
    p->rgba_ofs = gc_u16le(&h);      /* 0x1e */
    p->common_size = gc_u8(&h);      /* 0x20 */
    p->lod_2_size = gc_u8(&h);       /* 0x21 */
    p->lod_1_size = gc_u8(&h);       /* 0x22 */
    p->lod_0_size = gc_u8(&h);       /* 0x23 */
    p->lod_2_rgba_count = gc_u8(&h); /* 0x24 */
    p->lod_1_rgba_count = gc_u8(&h); /* 0x25 */
    p->lod_0_rgba_count = gc_u8(&h); /* 0x26 */
    p->base_only = gc_u8(&h);        /* 0x27 */
    p->texture_count = gc_u8(&h);    /* 0x28 */
    p->rgba_size = gc_u8(&h);        /* 0x29 */
    p->rgba_verts_loc = gc_u8(&h);   /* 0x2a */
    p->occl_index_stash = gc_u8(&h); /* 0x2b */
    p->msphere_count = gc_u8(&h);    /* 0x2c */
    p->flags = gc_u8(&h);            /* 0x2d */
    if (GC_FAULT(x->lv, tfrag_msphere_flags))
        p->msphere_count = p->flags; /* the fault: the count read from the flags byte */
    p->msphere_ofs = gc_u16le(&h);   /* 0x2e */
    p->light_ofs = gc_u16le(&h);     /* 0x30 */
    p->light_end_ofs = gc_u16le(&h); /* 0x32 */
    p->dir_lights_one = gc_u8(&h);   /* 0x34 */
    p->dir_lights_upd = gc_u8(&h);   /* 0x35 */
    p->point_lights = gc_u16le(&h);  /* 0x36 */
    p->cube_ofs = gc_u16le(&h);      /* 0x38 */
    p->occl_index = gc_u16le(&h);    /* 0x3a */
    p->vert_count = gc_u8(&h);       /* 0x3c */
    p->tri_count = gc_u8(&h);        /* 0x3d */
    p->mip_dist = gc_u16le(&h);      /* 0x3e */
    p->adgif_payload_ofs = UINT32_MAX;
    p->walk_error_ofs = UINT64_MAX;

    walk_state w;
    memset(&w, 0, sizeof w);
    w.lv = lv;
    w.s = x->s;
    w.row = p;
    clear_scratch(x->s);

    /* data is relative to the table; the historical bug took it from the block */
    size_t base = GC_FAULT(lv, patch_data_block) ? block_pos : table_pos;
    int64_t data_pos = (int64_t)base + p->data;
    gc_reader data = {0};
    if (h.overrun) {
        walk_fail(&w, WALK_LIST_BOUNDS, LIST_COMMON, p->file_ofs);
    } else if (p->data < 0 || data_pos > (int64_t)region->size) {
        walk_fail(&w, WALK_LIST_BOUNDS, LIST_COMMON, p->file_ofs + 0x10);
    } else {
        p->data_ofs = region->file_ofs + (uint64_t)data_pos;
        data = gc_window(region, (size_t)data_pos, region->size - (size_t)data_pos);
    }

    /* list ranges relative to data, in transfer order */
    uint32_t lo[LIST_COUNT], hi[LIST_COUNT];
    uint32_t lod0_start = (uint32_t)p->shared_ofs + (uint32_t)p->lod_1_size * 16u;
    lo[LIST_COMMON] = p->shared_ofs, hi[LIST_COMMON] = p->lod_1_ofs;
    lo[LIST_LOD2] = p->lod_2_ofs, hi[LIST_LOD2] = p->shared_ofs;
    lo[LIST_LOD1] = p->lod_1_ofs, hi[LIST_LOD1] = p->lod_0_ofs;
    lo[LIST_LOD01] = p->lod_0_ofs, hi[LIST_LOD01] = lod0_start;
    lo[LIST_LOD0] = lod0_start, hi[LIST_LOD0] = p->rgba_ofs;
    if (GC_FAULT(lv, lod0_from_lod_0_ofs)) {
        /* historical: the LOD-0 list taken from the header's lod_0_ofs (and lod_0_size) to
         * rgba_ofs, so the LOD-01 list is walked as part of it */
        hi[LIST_LOD01] = lo[LIST_LOD01];
        lo[LIST_LOD0] = p->lod_0_ofs;
    }

    for (int l = 0; l < LIST_COUNT && w.err == WALK_OK; l++) {
        if (lo[l] > hi[l] || hi[l] > data.size) {
            walk_fail(&w, WALK_LIST_BOUNDS, l, data.file_ofs + (lo[l] <= data.size ? lo[l] : 0));
            break;
        }
        gc_reader win = gc_window(&data, lo[l], hi[l] - lo[l]);
        walk_list(&w, l, win);
    }

    if (w.err == WALK_OK && !w.have_origin) {
        /* no common positions: the origin is the quadword at light_ofs */
        gc_reader o = gc_window(&data, p->light_ofs, 16);
        for (int i = 0; i < 4; i++)
            w.origin[i] = gc_s32le(&o);
        p->origin_source = o.overrun ? 0 : 2;
        if (o.overrun)
            memset(w.origin, 0, sizeof w.origin);
    }
    if (GC_FAULT(lv, origin_last_strow) && w.have_last_common_row) {
        memcpy(w.origin, w.last_common_row, sizeof w.origin);
        p->origin_source = 1;
    }

    p->origin6_strow = w.have_origin6;
    if (w.have_origin6) {
        p->origin6_x = w.origin6[0];
        p->origin6_y = w.origin6[1];
        p->origin6_z = w.origin6[2];
    }
    p->positional_mismatches = w.err == WALK_OK ? positional_mismatches(&w) : 0;
    p->vu_positions_common = w.vu.w[VU_POS_COMMON_COUNT];
    p->vu_vi_common = w.vu.w[VU_VI_COMMON_COUNT];
    p->vu_positions_lod01 = w.vu.w[VU_POS_LOD01_COUNT];
    p->vu_vi_lod01 = w.vu.w[VU_VI_LOD01_COUNT];
    p->vu_positions_lod0 = w.vu.w[VU_POS_LOD0_COUNT];
    p->vu_vi_lod0 = w.vu.w[VU_VI_LOD0_COUNT];

    if (w.err != WALK_OK) {
        /* no partial geometry: counts stay zero, no rows */
        p->walk_ok = 0;
        p->walk_error = (uint8_t)w.err;
        p->walk_error_list = (uint8_t)w.err_list;
        p->walk_error_ofs = w.err_ofs;
        snprintf(p->walk_error_name, sizeof p->walk_error_name, "%s", walk_error_names[w.err]);
        snprintf(p->walk_where, sizeof p->walk_where, "core_data/tfrag[%u]/%s/vif@0x%llx", index,
                 list_names[w.err_list], (unsigned long long)w.err_ofs);
        p->unclassified_unpacks = 0;
        p->adgif_payload_ofs = UINT32_MAX;
        return GC_OK;
    }
    p->walk_ok = 1;
    snprintf(p->walk_error_name, sizeof p->walk_error_name, "%s", walk_error_names[0]);
    p->origin_x = w.origin[0];
    p->origin_y = w.origin[1];
    p->origin_z = w.origin[2];
    p->origin_w = w.origin[3];
    return emit_geometry(x, prow, p, &w, &data);
}

static gc_status tfrag_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->core_ok)
        return GC_NEEDS(diag, "core header");
    gc_diag_push(diag, "core_data");
    gc_diag_push(diag, "tfrag");
    gc_status st = GC_OK;
    scratch *s = NULL;

    int64_t start = lv->core.tfrags, end = lv->core.occlusion;
    if (!lv->core_data) {
        st = gc_diag_set(diag, GC_E_TRUNCATED, 0, "no decompressed core_data");
        goto out;
    }
    if (start < 0 || end < start) {
        st = gc_diag_set(diag, GC_E_RANGE, start < 0 ? 0 : (uint64_t)start,
                         "tfrag region [0x%llx, 0x%llx) is inverted or negative", (long long)start,
                         (long long)end);
        goto out;
    }
    if ((uint64_t)end > lv->core_data_size) {
        st = gc_diag_set(diag, GC_E_TRUNCATED, lv->core_data_size,
                         "tfrag region ends at 0x%llx but core_data holds 0x%zx bytes",
                         (long long)end, lv->core_data_size);
        goto out;
    }
    gc_reader region =
        gc_reader_make(lv->core_data + start, (size_t)(end - start), (uint64_t)start);

    gc_diag_push(diag, "block");
    int32_t table_offset = gc_s32le(&region); /* 0x00 */
    int32_t count = gc_s32le(&region);        /* 0x04 */
    float lod = gc_f32le(&region);            /* 0x08 */
    uint32_t unk = gc_u32le(&region);         /* 0x0c */
    if (region.overrun) {
        st = gc_diag_set(diag, GC_E_TRUNCATED, (uint64_t)start,
                         "tfrag block header needs %u bytes, region holds %zu",
                         TFRAG_BLOCK_HEADER_BYTES, region.size);
        goto out;
    }
    gc_diag_pop(diag);
    gc_rowbuf *rb_block = gc_level_rows(lv, &gc_table_tfrag_block);
    tfrag_block_row *b = gc_rows_push(rb_block);
    if (!b) {
        st = gc_diag_set(diag, GC_E_NOMEM, (uint64_t)start, "tfrag.block row");
        goto out;
    }
    b->file_ofs = (uint64_t)start;
    b->table_offset = table_offset;
    b->count = count;
    b->lod_scale = lod;
    b->unknown_0c = unk;
    b->region_start = (uint64_t)start;
    b->region_end = (uint64_t)end;

    gc_diag_push(diag, "table");
    if (table_offset < (int32_t)TFRAG_BLOCK_HEADER_BYTES || (size_t)table_offset > region.size) {
        st = gc_diag_set(diag, GC_E_RANGE, (uint64_t)start,
                         "patch table offset 0x%x outside the tfrag region (0x%zx bytes)",
                         (unsigned)table_offset, region.size);
        goto out;
    }
    if (count < 0) {
        st = gc_diag_set(diag, GC_E_RANGE, (uint64_t)start + 4, "negative patch count %d", count);
        goto out;
    }
    size_t table_end;
    if (!gc_size_mad((size_t)count, TFRAG_PATCH_BYTES, (size_t)table_offset, &table_end) ||
        table_end > region.size) {
        st = gc_diag_set(diag, GC_E_RANGE, (uint64_t)start + 4,
                         "%d patches of 0x40 bytes at 0x%x run past the region end (0x%zx bytes)",
                         count, (unsigned)table_offset, region.size);
        goto out;
    }
    gc_diag_pop(diag);

    s = calloc(1, sizeof *s);
    if (!s) {
        st = gc_diag_set(diag, GC_E_NOMEM, (uint64_t)start, "tfrag scratch");
        goto out;
    }
    memset(s->vi_vertex, 0xff, sizeof s->vi_vertex);
    tfrag_ctx x = {
        .lv = lv,
        .rb_patch = gc_level_rows(lv, &gc_table_tfrag_patch),
        .rb_vertex = gc_level_rows(lv, &gc_table_tfrag_vertex),
        .rb_vi = gc_level_rows(lv, &gc_table_tfrag_vertex_info),
        .rb_tri = gc_level_rows(lv, &gc_table_tfrag_triangle),
        .rb_adgif = gc_level_rows(lv, &gc_table_tfrag_adgif),
        .rb_light = gc_level_rows(lv, &gc_table_tfrag_light),
        .s = s,
    };
    if (!x.rb_patch || !x.rb_vertex || !x.rb_vi || !x.rb_tri || !x.rb_adgif || !x.rb_light) {
        st = gc_diag_set(diag, GC_E_INTERNAL, 0, "tfrag tables are not registered");
        goto out;
    }
    /* Presize the row tables from the patch headers' declared counts
     * (+0x3c vertices: exactly the vertex and light rows; +0x3d LOD-0
     * triangles and +0x28 ad-gifs): one allocation each instead of doubling
     * from 64 rows and copying (issue 10). Hints only: a table that outgrows
     * them (vertex info, the LOD 1 and 2 triangles) grows as usual and
     * gc_level_decode shrinks it; a refused reservation is no error here
     * (the push that needs the memory reports it). */
    {
        size_t verts = 0, tris = 0, adgifs = 0;
        for (int32_t i = 0; i < count; i++) {
            gc_reader h = gc_window(&region, (size_t)table_offset + (size_t)i * TFRAG_PATCH_BYTES,
                                    TFRAG_PATCH_BYTES);
            gc_seek(&h, 0x28);
            adgifs += gc_u8(&h);
            gc_seek(&h, 0x3c);
            verts += gc_u8(&h);
            tris += gc_u8(&h);
        }
        (void)gc_rows_reserve(x.rb_patch, (size_t)count);
        (void)gc_rows_reserve(x.rb_vertex, verts);
        /* Vertex info and the LOD 1/2 triangles have no declared count:
         * vertex info runs ~8% past the positions on the retail-shaped
         * corpus and LOD 1 + 2 add ~2/3 to the LOD-0 triangles, so a quarter
         * more and twice as many are reserved (no more than the first
         * doubling would have allocated; the unused rest is given back by
         * gc_level_decode's shrink, in place). */
        (void)gc_rows_reserve(x.rb_vi, verts + verts / 4);
        (void)gc_rows_reserve(x.rb_light, verts);
        (void)gc_rows_reserve(x.rb_tri, 2 * tris);
        (void)gc_rows_reserve(x.rb_adgif, adgifs);
    }
    for (int32_t i = 0; i < count; i++) {
        gc_diag_push_index(diag, "tfrag", (uint32_t)i);
        st = decode_patch(&x, &region, (size_t)table_offset, 0, (uint32_t)i);
        if (st != GC_OK) {
            gc_diag_set(diag, st, (uint64_t)start + (uint64_t)table_offset + (uint64_t)i * 0x40,
                        "out of memory storing patch rows");
            goto out;
        }
        gc_diag_pop(diag);
    }
    lighting_pass(lv, x.rb_light, true);
out:
    free(s);
    return st;
}

const gc_decoder gc_dec_tfrag = {
    .name = "tfrag",
    .doc = "tfrag terrain: block, patch table, VIF lists, positions, vertex info, strips, ad-gifs, "
           "lights",
    .tables = tfrag_tables,
    .table_count = GC_COUNTOF(tfrag_tables),
    .run = tfrag_run,
    .release = NULL,
};
