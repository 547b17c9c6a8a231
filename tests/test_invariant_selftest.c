/* SPDX-License-Identifier: MIT */
/* A self-test per invariant (issue 5): no invariant may be vacuous.
 *
 * The small synthetic corpus is decoded once per test process. On the clean
 * decode every invariant passes (except the planted warnings) and checks at
 * least one row. Then, for every invariant in invariants/, the table
 * `mutations` below holds one small change to a COPY of one level's decoded
 * rows (a column of a row, set through the table descriptor) that must make
 * exactly that invariant fail: the target's failure count rises, and every
 * other invariant whose failure count rises is in the case's short `also`
 * list. A new invariant without an entry here fails `every_invariant_has_one`.
 *
 * Mutations prefer the decoded side of a comparison and the smallest change
 * that crosses the boundary (one off, one sector short, just outside the
 * tolerance), so an invariant that is looser than it claims fails its
 * self-test too. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_corpus.h"
#include "gc_inv.h"
#include "gc_level.h"
#include "sy_corpus.h"

/* ---- the mutation table ---------------------------------------------------- */

typedef enum {
    MV_NONE,  /* unused slot */
    MV_INT,   /* integer (and bool) literal */
    MV_FLOAT, /* float literal */
    MV_STR,   /* string literal */
    MV_NULL,  /* the all-ones pattern of a GC_CF_NULL_IF_MAX column */
    MV_ADD,   /* the old value plus .i (integer column) or .f (float column) */
    MV_COL,   /* another column of the same row, plus .i / .f */
    MV_LEVEL, /* the same column of the same selected row in level .level */
} mv_kind;

typedef struct mval {
    mv_kind kind;
    int64_t i;
    double f;
    const char *s; /* MV_STR: the string; MV_COL: the column */
    int level;     /* MV_LEVEL */
} mval;

/* clang-format off */
#define INT(v)        {.kind = MV_INT, .i = (v)}
#define FLT(v)        {.kind = MV_FLOAT, .f = (v)}
#define STR(v)        {.kind = MV_STR, .s = (v)}
#define NUL           {.kind = MV_NULL}
#define ADD(v)        {.kind = MV_ADD, .i = (v)}
#define FADD(v)       {.kind = MV_ADD, .f = (v)}
#define COL(c, d)     {.kind = MV_COL, .s = (c), .i = (d)}
#define FROM_LEVEL(l) {.kind = MV_LEVEL, .level = (l)}

#define ALL_LEVELS (-1)
#define ALL_ROWS   (-1)
/* clang-format on */

typedef struct mcond {
    const char *col; /* NULL: no condition */
    mval val;        /* MV_INT, MV_FLOAT or MV_STR */
} mcond;

typedef struct medit {
    const char *column; /* NULL: unused slot */
    mval value;
} medit;

typedef struct mutation {
    const char *invariant; /* the invariant that must fail */
    int level;             /* container index, or ALL_LEVELS */
    const char *table;
    int64_t row;         /* the row-th row (0-based) among those matching `where`, or ALL_ROWS */
    mcond where[2];      /* rows where col == val (both, when two are given) */
    medit edits[3];      /* applied in order to each selected row (MV_COL sees earlier edits) */
    const char *also[4]; /* other invariants allowed to fail too */
} mutation;

/* clang-format off */
/* Row selectors. */
#define AT(n)                  .row = (n)
#define FIRST(c, v)            .row = 0, .where = {{.col = (c), .val = v}}
#define FIRST2(c1, v1, c2, v2) .row = 0, .where = {{.col = (c1), .val = v1}, {.col = (c2), .val = v2}}
#define EVERY                  .row = ALL_ROWS

/* One self-test: MUT(invariant, level, table, selector, column, value) sets one column;
 * MUTX(invariant, level, table, selector, EDITS(SET(column, value), ...), ALSO(id, ...))
 * sets several (a raw field and the column the decoder derives from it) and names the
 * other invariants allowed to fail too (NO_ALSO for none). */
#define SET(col, val) {.column = (col), .value = val}
#define EDITS(...)    {__VA_ARGS__}
#define ALSO(...)     {__VA_ARGS__}
#define NO_ALSO       {NULL}
#define MUTX(inv, lvl, tab, sel, edit_list, also_list)                                             \
    {.invariant = (inv), .level = (lvl), .table = (tab), sel, .edits = edit_list,                  \
     .also = also_list}
#define MUT(inv, lvl, tab, sel, col, val)                                                          \
    {.invariant = (inv), .level = (lvl), .table = (tab), sel,                                      \
     .edits = {{.column = (col), .value = val}}}

static const mutation mutations[] = {
    /* classes.yaml */
    MUT("classes.spans_disjoint", 0, "shrub.class", FIRST("in_core_data", INT(1)), "shares_offset", INT(1)),
    MUT("tie.o_class", 0, "tie.class", FIRST("header_read", INT(1)), "header_o_class", ADD(1)),
    MUT("tie.lod_order", 0, "tie.class", FIRST("lod_ordered", INT(1)), "lod_ordered", INT(0)),
    MUT("tie.packets_inside", 0, "tie.class", FIRST("header_read", INT(1)), "packets_inside", INT(0)),
    /* tie.yaml */
    MUTX("tie.packet_walk", 0, "tie.packet", AT(0), EDITS(SET("walk_ok", INT(0))), ALSO("kinds.tie_packet_counts")),
    MUT("tie.lod_counts", 0, "tie.class", FIRST("header_read", INT(1)), "dec0_tris", ADD(1)),
    MUT("tie.strip_vertex_count", 0, "tie.packet", AT(0), "strip_vertices_declared", ADD(1)),
    MUT("tie.vertex_buffer_inside", 0, "tie.packet", AT(0), "strips_before_vbuf", INT(0)),
    MUT("tie.triangle_range", 0, "tie.triangle", AT(0), "a", INT(9999)),
    MUT("tie.vertex_in_sphere", 0, "tie.vertex", AT(0), "x", FLT(100000.0)),
    MUT("tie.packet_texture", 0, "tie.packet", AT(0), "texture_max", INT(99)),
    MUT("tie.texture_slots", 0, "tie.class", FIRST("header_read", INT(1)), "max_texture_slot", INT(999)),
    MUT("tie.triangle_texture_entry", 0, "tie.triangle", AT(0), "texture_entry", NUL),
    MUT("shrub.span_o_class", 0, "shrub.class", FIRST("header_read", INT(1)), "span_o_class", ADD(1)),
    MUT("shrub.data_offset", 0, "shrub.class", FIRST("header_read", INT(1)), "data_ofs_inside", INT(0)),
    MUT("moby.packet_identity", 0, "moby.packet", AT(0), "identity_ok", INT(0)),
    MUT("moby.packet_count", 0, "moby.class", FIRST("terminated", INT(1)), "packets", ADD(-1)),
    /* the flag on a class whose run ended on an ordinary shadow qword one record earlier: the
     * run read one record short and took a zero/zero record for its end */
    MUTX("kinds.moby_zero_zero_shadow", 0, "moby.class", FIRST("zero_zero_terminators", INT(1)), EDITS(SET("packets", ADD(-1))), ALSO("moby.packet_count")),
    MUT("moby.joint_list", 0, "moby.class", FIRST("header_read", INT(1)), "joint_lists_ok", INT(0)),
    MUT("moby.bind_pose", 0, "moby.class", FIRST("header_read", INT(1)), "bind_pose_fits", INT(0)),
    MUT("moby.trans_parents", 0, "moby.class", FIRST("header_read", INT(1)), "trans_parents_ok", INT(0)),
    MUT("moby.header_lists", 0, "moby.class", FIRST("header_read", INT(1)), "header_lists_fit", INT(0)),
    /* moby.yaml */
    MUT("moby.packet_d_e", 0, "moby.packet", AT(0), "d", ADD(1)),
    MUT("moby.packet_next", 0, "moby.packet", AT(1), "follows_previous", INT(0)),
    MUT("moby.packet_vif", 0, "moby.packet", AT(0), "vif_ok", INT(0)),
    MUT("moby.packet_vertex_table", 0, "moby.packet", AT(0), "epilogue_vertices", INT(7)),
    MUT("moby.vertex_ids_distinct", 0, "moby.packet", AT(0), "ids_distinct", INT(0)),
    MUTX("moby.triangle_index_range", 0, "moby.triangle", AT(0), EDITS(SET("v2", INT(999))), ALSO("kinds.moby_triangle_links")),
    MUT("moby.vertex_bsphere", 0, "moby.vertex", AT(0), "centre_distance", FLT(1.0e6)),
    MUTX("moby.texture_slot", 1, "moby.triangle", FIRST("texture", INT(0)), EDITS(SET("texture", INT(99))), ALSO("kinds.moby_triangle_links")),
    MUT("moby.triangle_texture_entry", 1, "moby.triangle", FIRST("texture", INT(0)), "texture_entry", NUL),
    /* level 0's moby slots are all 0xFF (the notes' measurement), so a level with slot lists */
    MUT("moby.texture_slots", 1, "moby.class", FIRST("texture_reading", INT(1)), "max_texture_index", INT(9999)),
    MUT("shrub.class_layout", 0, "shrub.class", FIRST("header_read", INT(1)), "normals_fit", INT(0)),
    MUT("shrub.packet_unpacks", 0, "shrub.packet", AT(0), "unpack_count", INT(2)),
    MUT("shrub.packet_fits", 0, "shrub.packet", AT(0), "vertices_fit", INT(0)),
    MUT("shrub.gif_prim", 0, "shrub.packet", AT(0), "non_triangle_tags", INT(1)),
    MUT("shrub.gs_order", 0, "shrub.packet", AT(0), "gs_order_ok", INT(0)),
    MUT("shrub.ad_registers", 0, "shrub.packet", AT(0), "ad_regs_ok", INT(0)),
    MUT("shrub.normal_index", 0, "shrub.packet", AT(0), "max_normal_index", INT(24)),
    MUT("shrub.normal_unit", 0, "shrub.normal", AT(0), "length", FLT(1.5)),
    MUT("shrub.normal_layout", 0, "shrub.normal", AT(1), "index", ADD(1)),
    MUTX("shrub.bsphere", 0, "shrub.class", FIRST("header_reading", INT(1)), EDITS(SET("bsphere_w", FLT(0.0))), ALSO("kinds.shrub_vertex_position")),
    MUT("shrub.vertex_count", 0, "shrub.packet", AT(0), "nloop_sum", ADD(1)),
    MUT("shrub.stop_bit", 0, "shrub.packet", AT(0), "stop_index", ADD(1)),
    MUTX("shrub.strip_range", 0, "shrub.triangle", AT(0), EDITS(SET("c", COL("packet_vertices", 0))), ALSO("kinds.shrub_triangle_links")),
    MUT("shrub.vertex_in_bsphere", 0, "shrub.vertex", FIRST("sphere_known", INT(1)), "radius", FLT(1.0e4)),
    MUT("shrub.texture_slot", 0, "shrub.packet", AT(0), "max_texture_index", COL("class_texture_slots", 0)),
    MUT("shrub.triangle_texture_entry", 0, "shrub.triangle", FIRST("texture", INT(0)), "texture_entry", INT(255)),
    MUT("shrub.slots_resolve", 0, "shrub.class", AT(0), "slots_resolve", INT(0)),
    MUT("shrub.billboard_fits", 4, "shrub.class", FIRST("billboard_fits", INT(1)), "billboard_fade", FLT(0.0)),
    /* collision.yaml */
    MUT("collision.tree", 0, "collision.mesh", AT(0), "tree_ok", INT(0)),
    MUTX("collision.cell_inside", 0, "collision.cell", AT(0), EDITS(SET("inside", INT(0))), ALSO("kinds.collision_totals")),
    MUT("collision.cell_size", 0, "collision.cell", AT(0), "size_qwords", ADD(1)),
    MUTX("collision.quads", 0, "collision.cell", AT(0), EDITS(SET("quad_count", COL("face_count", 1))), ALSO("kinds.collision_totals")),
    MUT("collision.face_vertices", 0, "collision.cell", AT(0), "max_vertex_index", COL("vertex_count", 0)),
    MUT("collision.face_in_cell", 0, "collision.cell", AT(0), "faces_outside", INT(1)),
    MUT("collision.terrain_bounds", 0, "collision.mesh", AT(0), "max_z", FADD(8.0)),
    /* core.yaml */
    MUT("core.region_order", 0, "core.region", FIRST("name", STR("tfrags")), "offset", COL("next_offset", 0)),
    MUT("core.table_chain", 0, "core.table", FIRST("name", STR("tie_classes")), "end", ADD(4)),
    MUT("core.table_inside", 0, "core.table", FIRST("name", STR("gs_ram")), "inside", INT(0)),
    MUTX("core.table_start", 0, "core.table", AT(0), EDITS(SET("offset", INT(0xbb))), ALSO("kinds.core_table_count_chain")),
    MUT("core.class_offsets", 0, "moby.class", FIRST("in_core_data", INT(1)), "in_core_data", INT(0)),
    /* data.yaml */
    MUT("data.ranges_inside", 0, "data.range", FIRST("name", STR("core_data")), "inside", INT(0)),
    MUT("data.core_data_magic", 0, "data.core_data", AT(0), "magic_ok", INT(0)),
    MUT("data.core_data_sizes", 0, "data.core_data", AT(0), "decompressed_bytes", ADD(-1)),
    MUT("data.core_index_header", 0, "data.range", FIRST("name", STR("core_index")), "size_bytes", INT(0xbb)),
    MUT("data.lz_streams", 0, "data.lz_stream", FIRST("name", STR("hud_bank2")), "decodes", INT(0)),
    /* decode.yaml */
    MUT("decode.ok", 0, "decode.status", FIRST("name", STR("tfrag")), "ok", INT(0)),
    MUT("decode.all_ran", 0, "decode.status", FIRST("name", STR("sky")), "skipped", INT(1)),
    /* gameplay.yaml */
    MUTX("gameplay.decodes", 0, "gameplay.block", FIRST("present", INT(1)), EDITS(SET("inside", INT(0))), ALSO("kinds.gameplay_blocks")),
    MUT("gameplay.light_units", 0, "gameplay.dir_light", AT(0), "direction_b_length", FADD(0.0011)),
    MUT("gameplay.light_count", 0, "gameplay.header", AT(0), "dir_light_count", ADD(1)),
    MUT("gameplay.occlusion_fits", 0, "gameplay.occlusion_mapping", AT(0), "entries_fit", INT(0)),
    MUTX("gameplay.moby_record_size", 0, "moby.instance", AT(0), EDITS(SET("size", INT(0x70))), ALSO("kinds.moby_instance_index")),
    MUT("gameplay.instance_class_resolves", 0, "tie.instance", AT(0), "class_o_class", ADD(1)),
    MUT("gameplay.shrub_class_resolves", 0, "shrub.instance", AT(0), "class_o_class", ADD(1)),
    MUT("gameplay.moby_class_resolves", 0, "moby.instance", AT(0), "class_o_class", ADD(1)),
    MUT("gameplay.class_list_resolves", 0, "gameplay.class_list", AT(0), "class_row", NUL),
    MUT("gameplay.instance_listed", 0, "tie.instance", AT(0), "list_index", NUL),
    MUT("gameplay.shrub_listed", 0, "shrub.instance", AT(0), "list_index", NUL),
    MUT("gameplay.moby_listed", 0, "moby.instance", AT(0), "list_index", NUL),
    MUT("gameplay.instance_matrix_affine", 0, "tie.instance", AT(0), "c0w", FLT(1.0)),
    MUT("gameplay.shrub_matrix_affine", 0, "shrub.instance", AT(0), "c0w", FLT(1.0)),
    MUT("gameplay.instance_rotation_scale", 0, "tie.instance", AT(0), "max_cos", FLT(0.5)),
    MUT("gameplay.shrub_rotation_scale", 0, "shrub.instance", AT(0), "max_cos", FLT(0.5)),
    MUT("gameplay.tie_in_bounds", 0, "tie.instance", AT(0), "c3x", FLT(1e7)),
    MUT("gameplay.shrub_in_bounds", 0, "shrub.instance", AT(0), "c3x", FLT(1e7)),
    MUT("gameplay.moby_in_bounds", 0, "moby.instance", AT(0), "x", FLT(1e7)),
    MUT("gameplay.moby_scale", 0, "moby.instance", AT(0), "scale", FLT(-1.0)),
    MUT("gameplay.pvar_index_range", 0, "moby.instance", AT(0), "pvar_index", INT(-2)),
    MUT("gameplay.pvar_user_range", 0, "gameplay.pvar_user", AT(0), "pvar_index", INT(-2)),
    MUT("gameplay.pvars_fit", 0, "gameplay.header", AT(0), "pvars_fit", INT(0)),
    MUT("gameplay.ambient_walk", 0, "gameplay.header", AT(0), "ambient_ok", INT(0)),
    MUT("gameplay.ambient_instance", 0, "tie.ambient", AT(0), "instance_row", ADD(1)),
    MUT("gameplay.ambient_chain", 0, "tie.ambient", AT(1), "file_ofs", ADD(2)),
    MUT("gameplay.pvar_class_size", 0, "moby.instance", AT(0), "pvar_class_size_ok", INT(0)),
    MUT("gameplay.settings_fit", 0, "gameplay.header", AT(0), "settings_ok", INT(0)),
    MUT("gameplay.tie_light_range", 0, "tie.instance", AT(0), "dir_light", INT(-1)),
    MUT("gameplay.tie_occlusion_index", 0, "tie.instance", AT(0), "occlusion_index", INT(-1)),
    /* level.yaml */
    MUT("level.header_size", 0, "level.header", AT(0), "header_size", INT(0x50)),
    MUT("level.extents_tile", 0, "level.extent", AT(0), "offset_bytes", ADD(0x800)),
    MUT("level.extents_inside", 0, "level.extent", FIRST("name", STR("data")), "inside_file", INT(0)),
    MUT("level.extent_unit", 0, "level.extent", FIRST("name", STR("data")), "contents_bytes", COL("size_bytes", -0x800)),
    MUT("level.ids_known", 0, "level.header", AT(0), "level_id", INT(21)),
    MUT("level.ids_unique", 1, "level.header", AT(0), "level_id", FROM_LEVEL(0)),
    /* A data extent that is not there also leaves the hole the tiling check sees. */
    MUTX("level.data_present", 0, "level.extent", FIRST("name", STR("data")),
         EDITS(SET("present", INT(0))), ALSO("level.extents_tile")),
    /* lod.yaml */
    MUT("lod.monotonic", 0, "lod.sweep", FIRST2("mode", INT(3), "straddles_far", INT(0)), "mode", INT(4)),
    MUT("lod.sphere_straddle", 0, "lod.sweep", FIRST("straddles_far", INT(1)), "mode_by_centre", COL("mode", 0)),
    MUT("lod.straddle_coverage", 0, "lod.sweep", EVERY, "straddles_far", INT(0)),
    MUT("lod.strip_lod", 0, "lod.sweep", FIRST("mode", INT(5)), "strip_lod", INT(1)),
    MUT("lod.morph_weights", 0, "lod.sweep", AT(0), "morph_lod01", FLT(-0.0625)),
    /* misc.yaml */
    MUT("normals.table_curve", 0, "normals.table", AT(0), "entries_matched", ADD(-1)),
    MUT("sound_bank.signatures", 0, "sound_bank.header", AT(0), "daw_ok", INT(0)),
    MUT("occlusion.mapping_tfrags", 0, "occlusion.mapping", AT(0), "tfrag_count", ADD(1)),
    MUT("occlusion.grid_masks", 0, "occlusion.grid", AT(0), "max_mask_index", COL("mask_capacity", 0)),
    MUT("occlusion.masks_fit", 0, "occlusion.grid", AT(0), "masks_fit", INT(0)),
    MUT("sky.header", 0, "sky.header", AT(0), "shells_inside", ADD(-1)),
    MUT("sky.shells", 0, "sky.shell", AT(0), "clusters_inside", INT(0)),
    /* overlay.yaml */
    MUT("overlay.reading", 0, "overlay.image", AT(0), "reading", INT(0)),
    MUT("overlay.donor_sections", 0, "overlay.image", AT(0), "types_match", INT(0)),
    MUT("overlay.section_align", 0, "overlay.section", FIRST("index", INT(6)), "dest_address", ADD(2)),
    MUTX("overlay.section_memory", 0, "overlay.section", AT(0), EDITS(SET("copy_size", ADD(0x100000))), ALSO("kinds.overlay_section_chain")),
    /* particles.yaml */
    MUTX("particles.slot_count", 0, "particles.header", AT(0), EDITS(SET("particle_count", INT(0x70))), ALSO("kinds.particles_indices")),
    MUT("particles.layout", 0, "particles.header", AT(0), "inside", INT(0)),
    MUT("particles.frames", 0, "particles.slot", FIRST("used", INT(1)), "frames_inside", INT(0)),
    MUT("particles.frame_textures", 0, "particles.slot", FIRST("used", INT(1)), "max_texture_index", INT(200)),
    /* sound_remap.yaml */
    MUT("sound_remap.elements", 0, "sound_remap.header", AT(0), "elements_framed", INT(0)),
    MUT("sound_remap.inside", 0, "sound_remap.header", AT(0), "inside", INT(0)),
    MUTX("sound_remap.runs", 0, "sound_remap.element", AT(0), EDITS(SET("offset", INT(0))), ALSO("kinds.sound_remap_element_chain")),
    /* texture.yaml (corpus-wide figures need every level's rows) */
    MUT("texture.pixels_inside", 0, "texture.tfrag", AT(0), "pixels_ok", INT(0)),
    MUT("texture.size_sane", 0, "texture.tfrag", AT(0), "width", INT(1025)),
    MUT("texture.mip_chain", 0, "texture.tfrag", AT(0), "mip_levels", INT(1)),
    MUTX("texture.referenced", 0, "texture.tfrag", AT(0), EDITS(SET("index", INT(9999))), ALSO("kinds.texture_index")),
    MUT("texture.opacity", ALL_LEVELS, "texture.tfrag", EVERY, "fully_opaque", INT(0)),
    MUT("texture.colour_count", ALL_LEVELS, "texture.tfrag", EVERY, "distinct_colors", INT(8)),
    MUT("texture.csm1_smoother", ALL_LEVELS, "texture.tfrag", EVERY, "tv_csm1", COL("tv_raw", 0)),
    MUT("texture.csm1_ratio", ALL_LEVELS, "texture.tfrag", EVERY, "tv_ratio", FLT(1.0)),
    MUT("texture.clut_alpha", 0, "texture.tfrag", FIRST("pixels_ok", INT(1)), "clut_alpha_max", INT(0x81)),
    MUT("texture.palette_opacity", ALL_LEVELS, "texture.tfrag", EVERY, "palette_opaque", INT(0)),
    MUT("texture.miptbp1_gs_ram", 0, "tfrag.adgif", AT(0), "miptbp1_lo", INT(0x12345)),
    /* tfrag.yaml */
    MUT("tfrag.block_header", 0, "tfrag.block", AT(0), "lod_scale", FLT(16.0)),
    MUT("tfrag.walk_ok", 0, "tfrag.patch", AT(0), "walk_ok", INT(0)),
    /* one position fewer leaves that patch a light row too many */
    MUTX("tfrag.vert_count", 0, "tfrag.patch", AT(0), EDITS(SET("positions_decoded", ADD(-1))),
         ALSO("tfrag.light_rows", "kinds.tfrag_rgba_counts")),
    MUT("tfrag.light_rows", 0, "tfrag.light", AT(0), "index", ADD(1)),
    MUTX("tfrag.tri_count", 0, "tfrag.patch", AT(0), EDITS(SET("tris_lod0", ADD(-1))), ALSO("kinds.tfrag_lod_totals")),
    MUT("tfrag.tier_counts", 0, "tfrag.patch", AT(0), "vi_lod0", ADD(1)),
    MUT("tfrag.triangle_range", 0, "tfrag.triangle", AT(0), "c", COL("vi_hi", 0)),
    MUT("tfrag.triangle_positions", 0, "tfrag.triangle", AT(0), "vb", NUL),
    /* va past any u8 vert_count, and v_max (the column the invariant reads) as the decoder derives it */
    MUTX("tfrag.triangle_vertex_range", 0, "tfrag.triangle", AT(0),
         EDITS(SET("va", INT(255)), SET("v_max", COL("va", 0))), NO_ALSO),
    MUT("tfrag.adgif_texture", 0, "tfrag.adgif", AT(0), "texture", INT(-1)),
    MUT("tfrag.adgif_count", 0, "tfrag.patch", AT(0), "adgif_payload_ofs", ADD(16)),
    MUT("tfrag.triangle_texture", 0, "tfrag.triangle", AT(0), "texture", NUL),
    MUT("tfrag.rgba_size", 0, "tfrag.patch", AT(0), "rgba_count", ADD(-4)),
    MUT("tfrag.light_size", 0, "tfrag.patch", AT(0), "light_count", ADD(2)),
    MUT("tfrag.sphere_containment", 0, "tfrag.vertex", AT(0), "x", FLT(0.0)),
    MUT("tfrag.parents_resolve", 0, "tfrag.vertex_info", FIRST("tier", INT(2)), "parents_resolved", INT(0)),
    MUT("tfrag.lod01_parent_common", 0, "tfrag.vertex_info", FIRST("tier", INT(1)), "parent_vi", COL("index", 0)),
    MUT("tfrag.origin_positional", 0, "tfrag.patch", AT(0), "origin6_x", ADD(1)),
    MUT("tfrag.positional_reading", 0, "tfrag.patch", AT(0), "positional_mismatches", INT(1)),
    MUT("tfrag.parent_array_size", 0, "tfrag.patch", AT(0), "parents_lod0", COL("positions_lod0", 4)),
    MUT("tfrag.lod_position_parents", 0, "tfrag.vertex", FIRST("tier", INT(2)), "lod_parent0", NUL),
    MUT("tfrag.adgif_k_range", 0, "tfrag.adgif", AT(0), "k", COL("tex1_lo", 0)),
    MUT("tfrag.point_lights", 0, "tfrag.patch", AT(0), "point_lights", INT(0)),
    /* lighting.yaml */
    MUT("tfrag.normal_found", 0, "tfrag.light", AT(0), "normal_found", INT(0)),
    MUT("tfrag.normal_unit", 0, "tfrag.light", AT(0), "normal_length", FADD(0.0001)),
    MUT("tfrag.normals_face_up", 0, "tfrag.light", EVERY, "nz", FLT(-0.9)),
    MUT("tfrag.light_set_exists", 0, "tfrag.light", AT(0), "set_exists", INT(0)),
    MUT("tfrag.light_dir_unit", 0, "tfrag.light", AT(0), "dir_a_length", FADD(-0.3)),
    MUT("tfrag.lit_range", 0, "tfrag.light", AT(0), "gs_r", INT(0x81)),
    MUT("tfrag.lit_all", 0, "tfrag.light", AT(0), "lit", INT(0)),
    MUT("tfrag.unclassified", 0, "tfrag.patch", AT(0), "unclassified_unpacks", INT(1)),    /* kinds.yaml (issue 17: the mission-kind columns only the digest guarded) */
    MUT("kinds.core_class_counts", 0, "core.header", AT(0), "moby_classes_count", ADD(1)),
    MUTX("kinds.core_gs_ram_count", 0, "core.header", AT(0), EDITS(SET("moby_gs_stash_count", ADD(1))), ALSO("kinds.core_texture_table_chain")),
    MUT("kinds.core_texture_table_chain", 0, "core.header", AT(0), "shrub_textures_count", ADD(1)),
    MUT("kinds.core_table_count_chain", 0, "core.table", FIRST("name", STR("tie_classes")), "count", ADD(1)),
    MUT("kinds.moby_class_index", 0, "moby.class", AT(1), "index", ADD(1)),
    MUTX("kinds.moby_lod_counts", 3, "moby.class", AT(0), EDITS(SET("high_lod_count", ADD(1))), ALSO("kinds.moby_packet_table_room")),
    MUT("kinds.moby_class_totals", 3, "moby.class", AT(0), "vertices", ADD(1)),
    MUT("kinds.moby_packet_record", 3, "moby.packet", AT(1), "index", ADD(1)),
    MUT("kinds.moby_packet_table_room", 3, "moby.class", AT(0), "metal_count", INT(1)),
    MUT("kinds.moby_bind_pose_chain", 3, "moby.class", AT(0), "joint_count", ADD(1)),
    MUT("kinds.moby_packet_textures", 3, "moby.packet", AT(0), "texture_count", ADD(1)),
    MUT("kinds.moby_vertex_table_layout", 3, "moby.packet", AT(0), "matrix_transfer_count", ADD(4)),
    MUT("kinds.moby_vertex_links", 3, "moby.vertex", AT(0), "class_row", ADD(1)),
    MUT("kinds.moby_vertex_position", 3, "moby.vertex", AT(0), "x", INT(32000)),
    MUT("kinds.moby_triangle_links", 3, "moby.triangle", AT(0), "class_row", ADD(1)),
    MUT("kinds.moby_sound_defs", 3, "moby.class", AT(0), "sound_count", INT(3)),
    MUT("kinds.tie_class_index", 0, "tie.class", AT(1), "index", ADD(1)),
    MUT("kinds.tie_packet_record", 0, "tie.packet", AT(0), "index", ADD(1)),
    MUTX("kinds.tie_packet_counts", 0, "tie.packet", AT(0), EDITS(SET("triangles", ADD(1))), ALSO("kinds.tie_packet_gs")),
    MUT("kinds.tie_packet_gs", 0, "tie.packet", AT(0), "gs_vertices", ADD(1)),
    MUT("kinds.tie_packet_writer_counts", 0, "tie.packet", AT(0), "shader_count", ADD(1)),
    MUT("kinds.tie_vertex_index", 0, "tie.vertex", AT(1), "index", ADD(1)),
    MUT("kinds.shrub_class_index", 0, "shrub.class", AT(1), "index", ADD(1)),
    MUT("kinds.shrub_class_counts", 0, "shrub.class", FIRST("header_read", INT(1)), "packet_count", ADD(1)),
    MUT("kinds.shrub_instance_count_runtime", 0, "shrub.class", FIRST("header_read", INT(1)), "instance_count", INT(4)),
    MUT("kinds.shrub_totals", 0, "shrub.packet", AT(0), "triangles", ADD(1)),
    MUT("kinds.shrub_packet_record", 0, "shrub.packet", AT(0), "offset", ADD(16)),
    MUT("kinds.shrub_vertex_links", 0, "shrub.vertex", AT(0), "primitive", INT(999)),
    MUT("kinds.shrub_vertex_position", 0, "shrub.vertex", FIRST("sphere_known", INT(1)), "x", FLT(1.0e5)),
    MUT("kinds.shrub_triangle_links", 0, "shrub.triangle", AT(0), "class_row", ADD(1)),
    MUT("kinds.texture_index", 0, "texture.tfrag", AT(1), "index", ADD(1)),
    MUT("kinds.gs_ram_index", 0, "texture.gs_ram", AT(1), "index", ADD(1)),
    MUT("kinds.gameplay_blocks", 0, "gameplay.header", AT(0), "blocks_present", ADD(1)),
    MUT("kinds.moby_spawnable", 0, "gameplay.header", AT(0), "moby_spawnable", INT(0)),
    MUT("kinds.gameplay_block_index", 0, "gameplay.block", AT(1), "index", ADD(1)),
    MUT("kinds.dir_light_index", 0, "gameplay.dir_light", AT(1), "file_ofs", ADD(0x10)),
    MUT("kinds.occlusion_mapping_counts", 0, "gameplay.occlusion_mapping", AT(0), "moby_count", ADD(1)),
    MUT("kinds.class_list_index", 0, "gameplay.class_list", AT(1), "index", ADD(1)),
    MUT("kinds.tie_instance_index", 0, "tie.instance", AT(1), "index", ADD(1)),
    MUT("kinds.shrub_instance_index", 0, "shrub.instance", AT(1), "index", ADD(1)),
    MUT("kinds.moby_instance_index", 0, "moby.instance", AT(1), "index", ADD(1)),
    MUT("kinds.pvar_user_index", 0, "gameplay.pvar_user", AT(1), "index", ADD(1)),
    MUT("kinds.pvar_user_in_bounds", 0, "gameplay.pvar_user", AT(0), "x", FLT(1.0e6)),
    MUT("kinds.tfrag_block_count", 0, "tfrag.block", AT(0), "count", ADD(1)),
    MUT("kinds.tfrag_patch_occlusion", 0, "tfrag.patch", AT(0), "occl_index", INT(9999)),
    MUT("kinds.tfrag_patch_layout_counts", 0, "tfrag.patch", AT(0), "msphere_count", ADD(1)),
    MUT("kinds.tfrag_rgba_counts", 0, "tfrag.patch", AT(0), "lod_2_rgba_count", ADD(1)),
    MUT("kinds.tfrag_lod_totals", 0, "tfrag.patch", AT(0), "tris_lod2", ADD(1)),
    MUT("kinds.tfrag_strip_numbers", 0, "tfrag.patch", AT(0), "strips_lod0", INT(0)),
    MUT("kinds.tfrag_strip_indices", 0, "tfrag.patch", AT(0), "indices_lod0", INT(0)),
    MUT("kinds.tfrag_vertex_index", 0, "tfrag.vertex", AT(1), "index", ADD(1)),
    MUT("kinds.tfrag_vertex_info_index", 0, "tfrag.vertex_info", AT(1), "index", ADD(1)),
    MUT("kinds.tfrag_adgif_index", 0, "tfrag.adgif", AT(1), "index", ADD(1)),
    MUT("kinds.tfrag_light_sets", 0, "tfrag.light", AT(0), "light_sets", ADD(1)),
    MUTX("kinds.occlusion_instance_counts", 0, "occlusion.mapping", AT(0), EDITS(SET("tie_count", ADD(1))), ALSO("kinds.occlusion_mapping_counts")),
    MUT("kinds.occlusion_grid_counts", 0, "occlusion.grid", AT(0), "x_cells", INT(100000)),
    MUT("kinds.sky_shell_rows", 0, "sky.shell", AT(0), "index", ADD(1)),
    MUT("kinds.sky_sprite_counts", 0, "sky.header", AT(0), "sprite_count", COL("maximum_sprite_count", 1)),
    MUT("kinds.particles_indices", 0, "particles.header", AT(0), "used_slots", ADD(1)),
    MUT("kinds.sound_remap_counts", 0, "sound_remap.header", AT(0), "element_count", ADD(1)),
    MUT("kinds.sound_remap_element_chain", 0, "sound_remap.element", AT(0), "size", ADD(1)),
    MUT("kinds.overlay_chain", 0, "overlay.image", AT(0), "sections_walked", ADD(1)),
    MUT("kinds.overlay_section_chain", 0, "overlay.section", AT(0), "copy_size", ADD(0x20)),
    MUT("kinds.collision_totals", 0, "collision.mesh", AT(0), "faces", ADD(1)),
    MUT("kinds.collision_cell_order", 0, "collision.cell", AT(1), "z", ADD(1000)),
};
/* clang-format on */

#define NMUT GC_COUNTOF(mutations)

/* Failures the clean synthetic corpus has on purpose (retail-shaped exceptions). */
static const char *const planted[] = {
    "tie.lod_order",      /* warn: retail has 80 ties with unordered LOD distances */
    "texture.referenced", /* info: retail has 166 of 1,595 textures no ad-gif uses */
};

/* ---- the decoded corpus (once per test process) ------------------------------ */

static struct {
    gc_corpus corpus;
    gc_level lv[GC_LEVEL_COUNT];
    gc_table *tables[GC_LEVEL_COUNT]; /* ndesc entries per decoded level */
    const gc_table *levels[GC_LEVEL_COUNT];
    int ids[GC_LEVEL_COUNT];
    size_t nlevels;
    const gc_table_desc *const *descs;
    size_t ndesc;
    gc_inv_set *set;
    size_t ninv;
    uint64_t *base_checked, *base_failed;
} S;

typedef struct evaluation {
    uint64_t *checked, *failed;
    char (*sample)[256]; /* first failure's values */
    int64_t *sample_level, *sample_row;
} evaluation;

static void eval_init(evaluation *e)
{
    e->checked = calloc(S.ninv, sizeof *e->checked);
    e->failed = calloc(S.ninv, sizeof *e->failed);
    e->sample = calloc(S.ninv, sizeof *e->sample);
    e->sample_level = calloc(S.ninv, sizeof *e->sample_level);
    e->sample_row = calloc(S.ninv, sizeof *e->sample_row);
    cr_assert(e->checked && e->failed && e->sample && e->sample_level && e->sample_row);
}

static void eval_free(evaluation *e)
{
    free(e->checked);
    free(e->failed);
    free(e->sample);
    free(e->sample_level);
    free(e->sample_row);
}

/* Every invariant over every decoded level (level-scope ones level by level, summed). */
static void eval_all(evaluation *e)
{
    for (size_t i = 0; i < S.ninv; i++) {
        gc_inv_result r;
        cr_assert_eq(gc_inv_eval_corpus(S.set, i, S.levels, S.ids, S.nlevels, 1, &r), 0,
                     "evaluating %s failed", gc_inv_get(S.set, i)->id);
        e->checked[i] = r.checked;
        e->failed[i] = r.failed;
        e->sample[i][0] = '\0';
        if (r.sample_count) {
            snprintf(e->sample[i], sizeof e->sample[i], "%s", r.samples[0].values);
            e->sample_level[i] = r.samples[0].level;
            e->sample_row[i] = r.samples[0].row;
        }
        gc_inv_result_free(&r);
    }
}

static void setup(void)
{
    setenv("GC_CACHE_DIR", GC_BINARY_DIR "/test-cache", 1);
    char dir[4096], err[65536] = "";
    cr_assert_eq(gc_corpus_synthetic(SY_SCALE_SMALL, 1, 2, 0, dir, sizeof dir, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(gc_corpus_open(&S.corpus, dir, err, sizeof err), 0, "%s", err);
    S.descs = gc_table_registry(&S.ndesc);
    for (int k = 0; k < GC_LEVEL_COUNT; k++) {
        const gc_corpus_file *f = &S.corpus.files[k];
        cr_assert(f->ok, "synthetic %s missing: %s", f->name, f->error);
        gc_level *lv = &S.lv[S.nlevels];
        cr_assert_eq(gc_level_init(lv, f->index, f->name, f->data, f->size), GC_OK);
        gc_level_decode(lv);
        S.tables[S.nlevels] = calloc(S.ndesc, sizeof(gc_table));
        cr_assert_not_null(S.tables[S.nlevels]);
        gc_level_tables(lv, S.tables[S.nlevels]);
        S.levels[S.nlevels] = S.tables[S.nlevels];
        S.ids[S.nlevels] = f->index;
        S.nlevels++;
    }
    S.set = gc_inv_load_dir(GC_SOURCE_DIR "/invariants", S.descs, S.ndesc, err, sizeof err);
    cr_assert_not_null(S.set, "invariants/ does not load:\n%s", err);
    S.ninv = gc_inv_count(S.set);
    cr_assert_gt(S.ninv, 0);

    evaluation e;
    eval_init(&e);
    eval_all(&e);
    S.base_checked = e.checked;
    S.base_failed = e.failed;
    free(e.sample);
    free(e.sample_level);
    free(e.sample_row);
}

static void teardown(void)
{
    free(S.base_checked);
    free(S.base_failed);
    gc_inv_free(S.set);
    for (size_t k = 0; k < S.nlevels; k++) {
        gc_level_free(&S.lv[k]);
        free(S.tables[k]);
    }
    gc_corpus_close(&S.corpus);
    memset(&S, 0, sizeof S);
}

static int is_planted(const char *id)
{
    for (size_t i = 0; i < GC_COUNTOF(planted); i++)
        if (strcmp(planted[i], id) == 0)
            return 1;
    return 0;
}

/* ---- reading and writing one column of a row, by descriptor ------------------ */

static const gc_column *find_column(const gc_table_desc *d, const char *name)
{
    for (size_t i = 0; i < d->column_count; i++)
        if (strcmp(d->columns[i].name, name) == 0)
            return &d->columns[i];
    return NULL;
}

static size_t table_slot(const char *name)
{
    for (size_t t = 0; t < S.ndesc; t++)
        if (strcmp(S.descs[t]->name, name) == 0)
            return t;
    return (size_t)-1;
}

static size_t level_pos(int container)
{
    for (size_t k = 0; k < S.nlevels; k++)
        if (S.ids[k] == container)
            return k;
    return (size_t)-1;
}

static int is_float(gc_coltype t)
{
    return t == GC_T_F32 || t == GC_T_F64;
}

static int is_signed(gc_coltype t)
{
    return t == GC_T_S8 || t == GC_T_S16 || t == GC_T_S32 || t == GC_T_S64;
}

/* A cell: integer columns as int64 (u64 as its bit pattern), floats as double. */
typedef struct cell {
    int null; /* GC_CF_NULL_IF_MAX column holding all ones */
    int64_t i;
    double f;
    const char *s; /* GC_T_STR: points into the row (size-bounded, NUL inside) */
} cell;

static uint64_t width_mask(size_t size)
{
    return size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
}

static cell get_cell(const gc_column *c, const uint8_t *row)
{
    cell v = {0};
    const uint8_t *p = row + c->offset;
    switch (c->type) {
    case GC_T_STR:
        v.s = (const char *)p;
        return v;
    case GC_T_F32: {
        float x;
        memcpy(&x, p, sizeof x);
        v.f = x;
        return v;
    }
    case GC_T_F64:
        memcpy(&v.f, p, sizeof v.f);
        return v;
    default:
        break;
    }
    uint64_t u = 0;
    memcpy(&u, p, c->size); /* little-endian host (the decoders assume it too) */
    if ((c->flags & GC_CF_NULL_IF_MAX) && u == width_mask(c->size))
        v.null = 1;
    if (is_signed(c->type) && c->size < 8 && (u >> (8 * c->size - 1)) & 1)
        u |= ~width_mask(c->size);
    v.i = (int64_t)u;
    return v;
}

static void cell_str(const gc_column *c, cell v, char *out, size_t n)
{
    if (c->type == GC_T_STR)
        snprintf(out, n, "\"%.*s\"", (int)(c->size < n ? c->size : n), v.s);
    else if (v.null)
        snprintf(out, n, "null");
    else if (is_float(c->type))
        snprintf(out, n, "%.9g", v.f);
    else if (c->flags & GC_CF_HEX)
        snprintf(out, n, "0x%" PRIx64, (uint64_t)v.i);
    else if (c->type == GC_T_U64)
        snprintf(out, n, "%" PRIu64, (uint64_t)v.i);
    else
        snprintf(out, n, "%" PRId64, v.i);
}

/* Write v into the column; a value the column cannot hold fails the test (a
 * silently truncated mutation would test something else). */
static void put_cell(const gc_column *c, uint8_t *row, cell v, const char *what)
{
    uint8_t *p = row + c->offset;
    if (c->type == GC_T_STR) {
        size_t len = strlen(v.s);
        cr_assert_lt(len, c->size, "%s: \"%s\" does not fit %s (str[%zu])", what, v.s, c->name,
                     c->size);
        memset(p, 0, c->size);
        memcpy(p, v.s, len);
        return;
    }
    if (c->type == GC_T_F32) {
        float x = (float)v.f;
        memcpy(p, &x, sizeof x);
        return;
    }
    if (c->type == GC_T_F64) {
        memcpy(p, &v.f, sizeof v.f);
        return;
    }
    uint64_t u = (uint64_t)v.i;
    if (v.null) {
        cr_assert(c->flags & GC_CF_NULL_IF_MAX, "%s: column %s cannot hold null", what, c->name);
        u = width_mask(c->size);
    } else if (c->type == GC_T_BOOL) {
        cr_assert(v.i == 0 || v.i == 1, "%s: bool column %s takes 0 or 1", what, c->name);
    } else if (is_signed(c->type) && c->size < 8) {
        int64_t lim = (int64_t)1 << (8 * c->size - 1);
        cr_assert(v.i >= -lim && v.i < lim, "%s: %" PRId64 " does not fit %s", what, v.i, c->name);
    } else if (!is_signed(c->type) && c->size < 8) {
        cr_assert(v.i >= 0 && (uint64_t)v.i <= width_mask(c->size),
                  "%s: %" PRId64 " does not fit %s", what, v.i, c->name);
        cr_assert(!(c->flags & GC_CF_NULL_IF_MAX) || u != width_mask(c->size),
                  "%s: %" PRId64 " reads as null in %s; use NUL", what, v.i, c->name);
    }
    memcpy(p, &u, c->size);
}

static int cond_holds(const gc_table_desc *d, const mcond *k, const uint8_t *row)
{
    const gc_column *c = find_column(d, k->col);
    cr_assert_not_null(c, "selector: no column %s in %s", k->col, d->name);
    cell v = get_cell(c, row);
    switch (k->val.kind) {
    case MV_STR:
        cr_assert_eq(c->type, GC_T_STR, "selector: %s.%s is not a string", d->name, c->name);
        return strncmp(v.s, k->val.s, c->size) == 0;
    case MV_INT:
        cr_assert(c->type != GC_T_STR, "selector: %s.%s is a string", d->name, c->name);
        return !v.null && (is_float(c->type) ? v.f == (double)k->val.i : v.i == k->val.i);
    case MV_FLOAT:
        cr_assert(is_float(c->type), "selector: %s.%s is not a float", d->name, c->name);
        return v.f == k->val.f;
    default:
        cr_assert_fail("selector: bad value kind");
    }
    return 0;
}

static int row_selected(const mutation *m, const gc_table_desc *d, const uint8_t *row)
{
    for (size_t w = 0; w < GC_COUNTOF(m->where); w++)
        if (m->where[w].col && !cond_holds(d, &m->where[w], row))
            return 0;
    return 1;
}

/* Index of the selected row of a level's table, or -1. */
static int64_t select_row(const mutation *m, const gc_table *t)
{
    int64_t seen = 0;
    for (size_t r = 0; r < t->count; r++)
        if (row_selected(m, t->desc, (const uint8_t *)t->rows + r * t->desc->row_size))
            if (seen++ == m->row)
                return (int64_t)r;
    return -1;
}

static void edit_str(const mval *v, char *out, size_t n)
{
    switch (v->kind) {
    case MV_INT:
        snprintf(out, n, "%" PRId64, v->i);
        break;
    case MV_FLOAT:
        snprintf(out, n, "%g", v->f);
        break;
    case MV_STR:
        snprintf(out, n, "\"%s\"", v->s);
        break;
    case MV_NULL:
        snprintf(out, n, "null");
        break;
    case MV_ADD:
        if (v->f != 0)
            snprintf(out, n, "old %+g", v->f);
        else
            snprintf(out, n, "old %+" PRId64, v->i);
        break;
    case MV_COL:
        if (v->i)
            snprintf(out, n, "%s %+" PRId64, v->s, v->i);
        else
            snprintf(out, n, "%s", v->s);
        break;
    case MV_LEVEL:
        snprintf(out, n, "LEVEL%d's value", v->level);
        break;
    default:
        snprintf(out, n, "?");
    }
}

/* "LEVEL0 tfrag.patch[row 0] positions_decoded := old -1" */
static void describe(const mutation *m, char *out, size_t n)
{
    char sel[160] = "", val[96] = "";
    if (m->row == ALL_ROWS && !m->where[0].col)
        snprintf(sel, sizeof sel, "every row");
    else if (!m->where[0].col)
        snprintf(sel, sizeof sel, "row %" PRId64, m->row);
    else {
        size_t o = (size_t)snprintf(sel, sizeof sel, "%s row where",
                                    m->row == ALL_ROWS ? "every"
                                    : m->row == 0      ? "first"
                                                       : "n-th");
        for (size_t w = 0; w < GC_COUNTOF(m->where) && m->where[w].col && o < sizeof sel; w++) {
            const mval *v = &m->where[w].val;
            char lit[64];
            if (v->kind == MV_STR)
                snprintf(lit, sizeof lit, "\"%s\"", v->s);
            else if (v->kind == MV_FLOAT)
                snprintf(lit, sizeof lit, "%g", v->f);
            else
                snprintf(lit, sizeof lit, "%" PRId64, v->i);
            o += (size_t)snprintf(sel + o, sizeof sel - o, "%s %s == %s", w ? " and" : "",
                                  m->where[w].col, lit);
        }
    }
    char vals[320] = "";
    size_t vo = 0;
    for (size_t j = 0; j < GC_COUNTOF(m->edits) && m->edits[j].column && vo < sizeof vals; j++) {
        edit_str(&m->edits[j].value, val, sizeof val);
        vo += (size_t)snprintf(vals + vo, sizeof vals - vo, "%s%s := %s", j ? ", " : " ",
                               m->edits[j].column, val);
    }
    char lvl[32];
    if (m->level == ALL_LEVELS)
        snprintf(lvl, sizeof lvl, "every level");
    else
        snprintf(lvl, sizeof lvl, "LEVEL%d", m->level);
    snprintf(out, n, "%s %s[%s]%s", lvl, m->table, sel, vals);
}

/* ---- applying a mutation to copies of the row buffers ------------------------- */

typedef struct applied {
    size_t slot;
    const void *orig[GC_LEVEL_COUNT]; /* per level position; NULL if untouched */
    uint8_t *copy[GC_LEVEL_COUNT];
    size_t rows_changed;
    char first_change[256]; /* "LEVEL0 row 3: 44 -> 43" */
} applied;

/* The new value of one row's column. */
static cell new_value(const mutation *m, const mval *mv, const gc_table *t, const gc_column *c,
                      const uint8_t *row, const char *what)
{
    cell old = get_cell(c, row), v = {0};
    switch (mv->kind) {
    case MV_INT:
        if (is_float(c->type))
            v.f = (double)mv->i;
        v.i = mv->i;
        break;
    case MV_FLOAT:
        cr_assert(is_float(c->type), "%s: float literal for the integer column %s", what, c->name);
        v.f = mv->f;
        break;
    case MV_STR:
        cr_assert_eq(c->type, GC_T_STR, "%s: string literal for %s", what, c->name);
        v.s = mv->s;
        break;
    case MV_NULL:
        v.null = 1;
        break;
    case MV_ADD:
        cr_assert(c->type != GC_T_STR && !old.null, "%s: cannot add to %s", what, c->name);
        v.i = old.i + mv->i;
        v.f = old.f + mv->f;
        break;
    case MV_COL: {
        const gc_column *src = find_column(t->desc, mv->s);
        cr_assert_not_null(src, "%s: no column %s in %s", what, mv->s, t->desc->name);
        cell s = get_cell(src, row);
        cr_assert(!s.null && src->type != GC_T_STR, "%s: %s is null or a string", what, mv->s);
        if (is_float(c->type))
            v.f = (is_float(src->type) ? s.f : (double)s.i) + (double)mv->i;
        else
            v.i = (is_float(src->type) ? (int64_t)s.f : s.i) + mv->i;
        break;
    }
    case MV_LEVEL: {
        size_t k = level_pos(mv->level);
        cr_assert_neq(k, (size_t)-1, "%s: LEVEL%d not decoded", what, mv->level);
        const gc_table *src = &S.levels[k][table_slot(m->table)];
        int64_t r = select_row(m, src);
        cr_assert_geq(r, 0, "%s: LEVEL%d has no such row", what, mv->level);
        v = get_cell(c, (const uint8_t *)src->rows + (size_t)r * src->desc->row_size);
        break;
    }
    default:
        cr_assert_fail("%s: bad value kind", what);
    }
    return v;
}

static int cells_equal(const gc_column *c, cell a, cell b)
{
    if (c->type == GC_T_STR)
        return strncmp(a.s, b.s, c->size) == 0;
    if (a.null || b.null)
        return a.null == b.null;
    if (c->type == GC_T_F32)
        return (float)a.f == (float)b.f;
    if (is_float(c->type))
        return a.f == b.f;
    return ((uint64_t)(a.i ^ b.i) & width_mask(c->size)) == 0;
}

static void apply(const mutation *m, applied *a, const char *what)
{
    memset(a, 0, sizeof *a);
    a->slot = table_slot(m->table);
    cr_assert_neq(a->slot, (size_t)-1, "%s: no table %s", what, m->table);
    const gc_table_desc *d = S.descs[a->slot];
    const gc_column *cols[GC_COUNTOF(m->edits)] = {0};
    size_t nedit = 0;
    for (; nedit < GC_COUNTOF(m->edits) && m->edits[nedit].column; nedit++) {
        cols[nedit] = find_column(d, m->edits[nedit].column);
        cr_assert_not_null(cols[nedit], "%s: no column %s in %s", what, m->edits[nedit].column,
                           m->table);
    }
    cr_assert_gt(nedit, 0, "%s: no edit", what);
    for (size_t k = 0; k < S.nlevels; k++) {
        if (m->level != ALL_LEVELS && S.ids[k] != m->level)
            continue;
        gc_table *t = &S.tables[k][a->slot];
        if (m->level == ALL_LEVELS && t->count == 0)
            continue;
        cr_assert_gt(t->count, 0, "%s: %s is empty in LEVEL%d", what, m->table, S.ids[k]);
        uint8_t *copy = malloc(t->count * d->row_size);
        cr_assert_not_null(copy);
        memcpy(copy, t->rows, t->count * d->row_size);
        int64_t only = m->row == ALL_ROWS ? -1 : select_row(m, t);
        cr_assert(m->row == ALL_ROWS || only >= 0, "%s: no such row in LEVEL%d", what, S.ids[k]);
        for (size_t r = 0; r < t->count; r++) {
            uint8_t *row = copy + r * d->row_size;
            if (only >= 0 ? (int64_t)r != only : !row_selected(m, d, row))
                continue;
            char change[256];
            size_t co = (size_t)snprintf(change, sizeof change, "LEVEL%d row %zu:", S.ids[k], r);
            int changed = 0;
            for (size_t j = 0; j < nedit; j++) {
                const gc_column *c = cols[j];
                cell old = get_cell(c, row), v = new_value(m, &m->edits[j].value, t, c, row, what);
                if (cells_equal(c, old, v))
                    continue;
                char before[64], after[64];
                cell_str(c, old, before, sizeof before);
                put_cell(c, row, v, what);
                cell_str(c, get_cell(c, row), after, sizeof after);
                if (co < sizeof change)
                    co += (size_t)snprintf(change + co, sizeof change - co, "%s %s %s -> %s",
                                           changed ? "," : "", c->name, before, after);
                changed = 1;
            }
            if (changed && a->rows_changed++ == 0)
                snprintf(a->first_change, sizeof a->first_change, "%s", change);
        }
        a->orig[k] = t->rows;
        a->copy[k] = copy;
        t->rows = copy;
    }
    cr_assert_gt(a->rows_changed, 0, "%s: the mutation changes no value", what);
}

static void restore(applied *a)
{
    for (size_t k = 0; k < S.nlevels; k++)
        if (a->copy[k]) {
            S.tables[k][a->slot].rows = a->orig[k];
            free(a->copy[k]);
            a->copy[k] = NULL;
        }
}

static int allowed_also(const mutation *m, const char *id)
{
    for (size_t j = 0; j < GC_COUNTOF(m->also) && m->also[j]; j++)
        if (strcmp(m->also[j], id) == 0)
            return 1;
    return 0;
}

/* ---- the tests ----------------------------------------------------------------- */

TestSuite(invariant_selftest, .init = setup, .fini = teardown, .timeout = 900);

Test(invariant_selftest, clean_corpus_passes_every_invariant)
{
    for (size_t i = 0; i < S.ninv; i++) {
        const gc_inv_info *info = gc_inv_get(S.set, i);
        if (is_planted(info->id)) {
            cr_expect_neq(info->severity, GC_SEV_ERROR,
                          "%s fails on the clean corpus on purpose, so it must not gate", info->id);
            continue;
        }
        cr_expect_eq(S.base_failed[i], 0,
                     "%s (%s:%d) fails %" PRIu64 " of %" PRIu64 " checks on the clean corpus",
                     info->id, info->file, info->line, S.base_failed[i], S.base_checked[i]);
    }
    for (size_t p = 0; p < GC_COUNTOF(planted); p++)
        cr_expect_neq(gc_inv_find(S.set, planted[p]), (size_t)-1,
                      "planted failure %s names no loaded invariant", planted[p]);
}

Test(invariant_selftest, no_invariant_checks_zero_rows)
{
    for (size_t i = 0; i < S.ninv; i++) {
        const gc_inv_info *info = gc_inv_get(S.set, i);
        cr_expect_gt(S.base_checked[i], 0,
                     "%s (%s:%d) checks nothing anywhere in the corpus: it is vacuous", info->id,
                     info->file, info->line);
    }
}

Test(invariant_selftest, every_invariant_has_one)
{
    for (size_t i = 0; i < S.ninv; i++) {
        const char *id = gc_inv_get(S.set, i)->id;
        int found = 0;
        for (size_t k = 0; k < NMUT && !found; k++)
            found = strcmp(mutations[k].invariant, id) == 0;
        cr_expect(found,
                  "invariant %s has no self-test: add a mutation that makes exactly it fail to "
                  "`mutations` in tests/test_invariant_selftest.c",
                  id);
    }
    for (size_t k = 0; k < NMUT; k++) {
        cr_expect_neq(gc_inv_find(S.set, mutations[k].invariant), (size_t)-1,
                      "mutation %zu names %s, which is not a loaded invariant", k,
                      mutations[k].invariant);
        for (size_t j = 0; j < GC_COUNTOF(mutations[k].also) && mutations[k].also[j]; j++)
            cr_expect_neq(gc_inv_find(S.set, mutations[k].also[j]), (size_t)-1,
                          "mutation for %s allows %s, which is not a loaded invariant",
                          mutations[k].invariant, mutations[k].also[j]);
    }
}

ParameterizedTestParameters(invariant_selftest, mutation_fails_exactly_its_invariant)
{
    static int idx[NMUT];
    for (size_t k = 0; k < NMUT; k++)
        idx[k] = (int)k;
    return cr_make_param_array(int, idx, NMUT);
}

ParameterizedTest(int *k, invariant_selftest, mutation_fails_exactly_its_invariant)
{
    const mutation *m = &mutations[*k];
    char what[512], desc[400];
    describe(m, desc, sizeof desc);
    snprintf(what, sizeof what, "%s self-test (%s)", m->invariant, desc);
    size_t target = gc_inv_find(S.set, m->invariant);
    cr_assert_neq(target, (size_t)-1, "%s: no such invariant is loaded", what);

    applied a;
    apply(m, &a, what);
    evaluation e;
    eval_init(&e);
    eval_all(&e);
    restore(&a);

    cr_expect_gt(e.failed[target], S.base_failed[target],
                 "%s: %s does not fail (checked %" PRIu64 ", failed %" PRIu64
                 " as on the clean corpus); changed %zu row(s), first %s",
                 what, m->invariant, e.checked[target], e.failed[target], a.rows_changed,
                 a.first_change);
    for (size_t i = 0; i < S.ninv; i++) {
        const char *id = gc_inv_get(S.set, i)->id;
        if (i == target || allowed_also(m, id))
            continue;
        cr_expect_leq(e.failed[i], S.base_failed[i],
                      "%s: %s fails too (%" PRIu64 " failures, %" PRIu64
                      " on the clean corpus; first at level %" PRId64 " row %" PRId64 ": %s); "
                      "either make the mutation more specific or list %s in its `also`",
                      what, id, e.failed[i], S.base_failed[i], e.sample_level[i], e.sample_row[i],
                      e.sample[i], id);
    }
    eval_free(&e);
}
