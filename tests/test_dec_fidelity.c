/* SPDX-License-Identifier: MIT */
/* Tests of the structures issue 10 brought in line with Wrench's readers: the moby joint list and
 * bind pose (dec_moby.c), shrub packets (dec_shrub.c), part defs (dec_particles.c), the sound
 * remap (dec_sound_remap.c), the overlay's section chain (dec_overlay.c) and collision
 * (dec_collision.c). Each structure is built here from docs/formats/ on the fixture of
 * tests/dec_fixture.h (independent of synth/ and decoders/), decoded, checked, then broken the way
 * a misreading or a hostile file would break it. */
#include <criterion/criterion.h>

#include "dec_fixture.h"

static fx_level fx;

/* core_data grows to this so the last class (the shrub) has room for packets and normals */
#define CD_SIZE 0xC00u
/* core_index items appended after the fixture's tables */
#define CI_PART_DEFS 0x140u
#define PART_SLOTS   0x6Fu
#define PART_INDICES 0x1D0u /* 0x10 + 4 x 0x6F, 16-aligned */
#define CI_REMAP     (CI_PART_DEFS + PART_INDICES + 0x10u)
#define CI_STASH     (CI_REMAP + 0x20u)
#define CI_SIZE      (CI_STASH + 0x10u)

static void put_part_defs(void)
{
    fx_buf *ci = &fx.core_index;
    fx_set_u32(ci, CI_PART_DEFS + 0x0, PART_SLOTS);
    fx_set_u32(ci, CI_PART_DEFS + 0x8, PART_INDICES);
    fx_set_u32(ci, CI_PART_DEFS + 0xC, 5);                          /* five frames */
    fx_set_u32(ci, CI_PART_DEFS + 0x10 + 4 * 3, PART_INDICES + 0);  /* slot 3: frames 0..2 */
    fx_set_u32(ci, CI_PART_DEFS + 0x10 + 4 * 10, PART_INDICES + 3); /* slot 10: frames 3..4 */
    static const uint8_t frames[5] = {0, 1, 0, 2, 1};
    for (int i = 0; i < 5; i++)
        fx_set_u8(ci, CI_PART_DEFS + PART_INDICES + (size_t)i, frames[i]);
    fx_set_u32(ci, 0x6c, CI_PART_DEFS);
}

static void put_sound_remap(void)
{
    fx_buf *ci = &fx.core_index;
    /* two elements; runs of 1 and 2 entries right after them: size 20 + 2 x 4 = 28 */
    fx_set_u16(ci, CI_REMAP + 0, 16); /* second_part_ofs */
    fx_set_u16(ci, CI_REMAP + 2, 0);
    fx_set_u16(ci, CI_REMAP + 4, 16); /* third_part_ofs */
    fx_set_u16(ci, CI_REMAP + 6, 3);  /* third_part_count */
    fx_set_u16(ci, CI_REMAP + 8, 16), fx_set_u16(ci, CI_REMAP + 10, 1);
    fx_set_u16(ci, CI_REMAP + 12, 20), fx_set_u16(ci, CI_REMAP + 14, 2);
    fx_set_u32(ci, 0x70, CI_REMAP);
    fx_set_u16(ci, CI_STASH, 0xFFFF);
    fx_set_u32(ci, 0xac, CI_STASH);
}

/* A shrub packet: STCYCL/NOP/STMOD, the header unpack (header, one tag, one texture), then
 * nv positions and nv STs. Returns its size. */
static size_t put_shrub_packet(fx_buf *cd, size_t at, uint32_t nv, uint32_t prim_type)
{
    fx_set_u32(cd, at + 0, 0x01000404u);
    fx_set_u32(cd, at + 4, 0);
    fx_set_u32(cd, at + 8, 0x05000000u);
    fx_set_u32(cd, at + 12, 0x6C000000u | 6u << 16); /* UNPACK V4_32, 6 qw */
    size_t h = at + 16;
    fx_set_u32(cd, h + 0, 1), fx_set_u32(cd, h + 4, 1), fx_set_u32(cd, h + 8, nv);
    fx_set_u32(cd, h + 12, 6);
    uint64_t tag =
        (uint64_t)nv | 1ull << 15 | 1ull << 46 | (uint64_t)(prim_type | 0x78u) << 47 | 3ull << 60;
    fx_set_u32(cd, h + 16, (uint32_t)tag), fx_set_u32(cd, h + 20, (uint32_t)(tag >> 32));
    fx_set_u32(cd, h + 24, 0x412), fx_set_u32(cd, h + 28, 5); /* regs, GS offset 5 */
    static const uint8_t regs[4] = {0x14, 0x08, 0x34, 0x06};
    for (int q = 0; q < 4; q++)
        fx_set_u8(cd, h + 32 + 16 * (size_t)q + 8, regs[q]);
    fx_set_u32(cd, h + 32 + 12, 0); /* texture primitive at GS offset 0 */
    size_t u1 = h + 16 * 6;
    fx_set_u32(cd, u1, 0x6D000000u | nv << 16 | 6u); /* UNPACK V4_16 */
    for (uint32_t v = 0; v < nv; v++) {
        fx_set_u16(cd, u1 + 4 + 8 * v + 0, (uint16_t)(v * 100));
        fx_set_u16(cd, u1 + 4 + 8 * v + 6, (uint16_t)(6 + 3 * v));
    }
    size_t u2 = u1 + 4 + 8 * nv;
    fx_set_u32(cd, u2, 0x6D000000u | nv << 16 | (6u + nv));
    for (uint32_t v = 0; v < nv; v++)
        fx_set_u16(cd, u2 + 4 + 8 * v + 6, (uint16_t)(v % 24 | (v + 4 == nv ? 0x8000u : 0)));
    return (u2 + 4 + 8 * nv - at + 15) / 16 * 16;
}

static void put_shrub(void)
{
    fx_buf *cd = &fx.core_data;
    const size_t s = FX_CD_SHRUB;
    /* bounding sphere around the vertices (x 0..500 x 1.0 / 1024, y = z = 0) */
    fx_set_f32(cd, s + 0x0, 0.25f), fx_set_f32(cd, s + 0xC, 0.3f);
    fx_set_u16(cd, s + 0x28, 2);    /* packet_count */
    fx_set_u32(cd, s + 0x2C, 0x50); /* normals: 0x50 .. 0x110 */
    size_t a = put_shrub_packet(cd, s + 0x110, 6, 4);
    size_t b = put_shrub_packet(cd, s + 0x110 + a, 9, 3);
    fx_set_u32(cd, s + 0x40, 0x110), fx_set_u32(cd, s + 0x44, (uint32_t)a);
    fx_set_u32(cd, s + 0x48, (uint32_t)(0x110 + a)), fx_set_u32(cd, s + 0x4C, (uint32_t)b);
}

/* Collision at FX_CD_COLLISION: header {mesh 0x10, 0}, root z 1 (count 1), one z node, one
 * y node with two cells: a quad cell and a triangle cell. */
static void put_collision(void)
{
    fx_buf *cd = &fx.core_data;
    const size_t c = FX_CD_COLLISION, m = c + 0x10;
    fx_set_u32(cd, c + 0, 0x10);
    fx_set_u32(cd, c + 4, 0);
    fx_set_u16(cd, m + 0, 1), fx_set_u16(cd, m + 2, 1);             /* z_coord 1, z_count 1 */
    fx_set_u16(cd, m + 4, 8 / 4);                                   /* z node at mesh + 8 */
    fx_set_u16(cd, m + 8, (uint16_t)-3), fx_set_u16(cd, m + 10, 1); /* y_coord -3 */
    fx_set_u32(cd, m + 12, 0x10);                                   /* y node at mesh + 0x10 */
    fx_set_u16(cd, m + 0x10, 7), fx_set_u16(cd, m + 0x12, 3);       /* x_coord 7, x_count 3 */
    /* cell 0 at mesh + 0x20: 4 vertices, 1 quad; 4 + 16 + 4 + 1 = 25 -> 2 qw */
    fx_set_u32(cd, m + 0x14, 0x20u << 8 | 2);
    fx_set_u32(cd, m + 0x18, 0); /* x 8: empty */
    /* cell 2 at mesh + 0x40: 3 vertices, 1 triangle; 4 + 12 + 4 = 20 -> 2 qw */
    fx_set_u32(cd, m + 0x1C, 0x40u << 8 | 2);
    size_t q = m + 0x20;
    fx_set_u16(cd, q, 1), fx_set_u8(cd, q + 2, 4), fx_set_u8(cd, q + 3, 1);
    /* corners at (+-1 unit x, +-1 unit y, 0.5 unit z): 16 = 1 unit in x, y; 64 in z */
    int32_t corner[4][3] = {{-16, -16, 32}, {16, -16, 32}, {16, 16, 32}, {-16, 16, 32}};
    for (int k = 0; k < 4; k++)
        fx_set_u32(cd, q + 4 + 4 * (size_t)k,
                   ((uint32_t)corner[k][0] & 0x3FF) | ((uint32_t)corner[k][1] & 0x3FF) << 10 |
                       ((uint32_t)corner[k][2] & 0xFFF) << 20);
    fx_set_u8(cd, q + 20, 0), fx_set_u8(cd, q + 21, 1), fx_set_u8(cd, q + 22, 2);
    fx_set_u8(cd, q + 23, 5); /* type */
    fx_set_u8(cd, q + 24, 3); /* the quad's v3 */
    size_t t = m + 0x40;
    fx_set_u16(cd, t, 1), fx_set_u8(cd, t + 2, 3), fx_set_u8(cd, t + 3, 0);
    for (int k = 0; k < 3; k++)
        fx_set_u32(cd, t + 4 + 4 * (size_t)k,
                   ((uint32_t)corner[k][0] & 0x3FF) | ((uint32_t)corner[k][1] & 0x3FF) << 10 |
                       ((uint32_t)(-corner[k][2]) & 0xFFF) << 20);
    fx_set_u8(cd, t + 16, 2), fx_set_u8(cd, t + 17, 1), fx_set_u8(cd, t + 18, 0);
}

/* The moby class's joint list at +0x180 and a common_trans of three joints at +0x100. */
static void put_moby_joints(void)
{
    fx_buf *cd = &fx.core_data;
    const size_t k = FX_CD_MOBY;
    fx_set_u32(cd, k + 0x18, 0x100); /* common_trans */
    fx_set_u16(cd, k + 0x100 + 16 + 12, 0x00);
    fx_set_u16(cd, k + 0x100 + 32 + 12, 0x40); /* joint 2's parent is joint 1 */
    fx_set_u32(cd, k + 0x14, 0x130);           /* skeleton: 3 x 64 bytes at 0x130 */
    fx_set_u32(cd, k + 0x1C, 0x1F0);           /* joints */
    fx_set_u32(cd, k + 0x1F0, 1);              /* one list */
    fx_set_u32(cd, k + 0x1F4, 0x1F8);
    fx_set_u16(cd, k + 0x1F8, 2), fx_set_u16(cd, k + 0x1FA, 1);
    fx_set_u8(cd, k + 0x1FC, 0), fx_set_u8(cd, k + 0x1FD, 2), fx_set_u8(cd, k + 0x1FE, 1);
    fx_set_u8(cd, k + 0x1FF, 0xFF);
}

/* The overlay as a 7-section ratchet executable around the fixture's decoy and table. */
static const uint32_t ov_types[7] = {1, 8, 1, 1, 1, 1, 1};
static void put_overlay_chain(void)
{
    fx_buf *ov = &fx.overlay;
    size_t hdr[7] = {0, 0x20, 0x60, 0xD00, 0xD20, 0xD40, 0xD60};
    uint32_t addr = 0x00400000u, entry = 0;
    uint32_t dest[7];
    for (int k = 0; k < 7; k++) {
        size_t end = k < 6 ? hdr[k + 1] : FX_OV_SIZE;
        dest[k] = addr;
        addr = (addr + (uint32_t)(end - hdr[k] - 16) + 63) / 64 * 64;
    }
    entry = dest[6];
    for (int k = 0; k < 7; k++) {
        size_t end = k < 6 ? hdr[k + 1] : FX_OV_SIZE;
        fx_set_u32(ov, hdr[k] + 0, dest[k]);
        fx_set_u32(ov, hdr[k] + 4, (uint32_t)(end - hdr[k] - 16));
        fx_set_u32(ov, hdr[k] + 8, ov_types[k]);
        fx_set_u32(ov, hdr[k] + 12, entry);
    }
}

static void setup(void)
{
    fx_parts(&fx);
    fx_pad_to(&fx.core_data, CD_SIZE);
    fx_set_u32(&fx.core_index, 0x8c, CD_SIZE);
    fx_pad_to(&fx.core_index, CI_SIZE);
    put_part_defs();
    put_sound_remap();
    put_shrub();
    put_collision();
    put_moby_joints();
}
static void teardown(void)
{
    fx_release(&fx);
}

TestSuite(dec_fidelity, .init = setup, .fini = teardown);

static void decode(gc_level *lv)
{
    fx_assemble(&fx);
    fx_decode(lv, fx.file.p, fx.file.len);
}

/* ---- part defs ---------------------------------------------------------------------------- */

Test(dec_fidelity, part_defs_relative_to_their_header)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "particles")->ok, "%s", fx_status(&lv, "particles")->message);
    cr_assert_eq(fx_col(&lv, "particles.header", 0, "particle_count"), PART_SLOTS);
    cr_assert_eq(fx_col(&lv, "particles.header", 0, "used_slots"), 2);
    cr_assert_eq(fx_col(&lv, "particles.header", 0, "slots_before_indices"), 1);
    cr_assert_eq(fx_col(&lv, "particles.header", 0, "inside"), 1);
    cr_assert_eq(fx_rows(&lv, "particles.slot")->count, PART_SLOTS);
    cr_assert_eq(fx_col(&lv, "particles.slot", 3, "frames"), 3);
    cr_assert_eq(fx_col(&lv, "particles.slot", 3, "max_texture_index"), 1);
    cr_assert_eq(fx_col(&lv, "particles.slot", 10, "frame_begin"), 3);
    cr_assert_eq(fx_col(&lv, "particles.slot", 10, "frames"), 2);
    cr_assert_eq(fx_col(&lv, "particles.slot", 10, "max_texture_index"), 2);
    cr_assert_eq(fx_col(&lv, "particles.slot", 4, "used"), 0);
    gc_level_free(&lv);
    /* offsets written absolute (from core_index): the first frame lies past the frame list */
    fx_set_u32(&fx.core_index, CI_PART_DEFS + 0x10 + 4 * 3, CI_PART_DEFS + PART_INDICES);
    fx_set_u32(&fx.core_index, CI_PART_DEFS + 0x10 + 4 * 10, CI_PART_DEFS + PART_INDICES + 3);
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "particles.slot", 3, "frames_inside"), 0);
    cr_assert_eq(fx_col(&lv, "particles.slot", 10, "frames_inside"), 0);
    gc_level_free(&lv);
}

Test(dec_fidelity, part_defs_bad_inputs)
{
    gc_level lv;
    fx_set_u32(&fx.core_index, 0x6c, CI_SIZE); /* no room for the header */
    decode(&lv);
    const gc_decode_status_row *r = fx_status(&lv, "particles");
    cr_assert_eq(r->status, GC_E_RANGE);
    cr_assert(strstr(r->where, "part_defs") != NULL, "where '%s'", r->where);
    gc_level_free(&lv);
    fx_set_u32(&fx.core_index, 0x6c, CI_PART_DEFS);
    fx_set_u32(&fx.core_index, CI_PART_DEFS, 0x7FFFFFFF); /* a count no core_index holds */
    decode(&lv);
    cr_assert_eq(fx_status(&lv, "particles")->status, GC_E_RANGE);
    cr_assert_eq(fx_rows(&lv, "particles.slot")->count, 0);
    gc_level_free(&lv);
    fx_set_u32(&fx.core_index, 0x6c, 0); /* absent: nothing published, no error */
    decode(&lv);
    cr_assert(fx_status(&lv, "particles")->ok);
    cr_assert_eq(fx_rows(&lv, "particles.header")->count, 0);
    gc_level_free(&lv);
}

/* ---- sound remap ---------------------------------------------------------------------------- */

Test(dec_fidelity, sound_remap_sized_by_its_last_element)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "sound_remap")->ok, "%s", fx_status(&lv, "sound_remap")->message);
    cr_assert_eq(fx_col(&lv, "sound_remap.header", 0, "element_count"), 2);
    cr_assert_eq(fx_col(&lv, "sound_remap.header", 0, "size_bytes"), 28);
    cr_assert_eq(fx_col(&lv, "sound_remap.header", 0, "size_by_third_part"), 28);
    cr_assert_eq(fx_col(&lv, "sound_remap.header", 0, "next_offset"), CI_STASH);
    cr_assert_eq(fx_col(&lv, "sound_remap.header", 0, "inside"), 1);
    cr_assert_eq(fx_rows(&lv, "sound_remap.element")->count, 2);
    cr_assert_eq(fx_col(&lv, "sound_remap.element", 1, "end"), 28);
    gc_level_free(&lv);
    /* the old layout, counts in the header: not a whole element array */
    fx_set_u16(&fx.core_index, CI_REMAP + 0, 1);
    fx_set_u16(&fx.core_index, CI_REMAP + 2, 1);
    fx_set_u16(&fx.core_index, CI_REMAP + 4, 2);
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "sound_remap.header", 0, "elements_framed"), 0);
    cr_assert_eq(fx_rows(&lv, "sound_remap.element")->count, 0);
    gc_level_free(&lv);
    /* a last element sizing the remap past the stash list: not inside */
    fx_set_u16(&fx.core_index, CI_REMAP + 0, 16);
    fx_set_u16(&fx.core_index, CI_REMAP + 14, 200);
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "sound_remap.header", 0, "inside"), 0);
    gc_level_free(&lv);
    fx_set_u32(&fx.core_index, 0x70, 0x7FFFFFF0); /* past core_index */
    decode(&lv);
    cr_assert_eq(fx_status(&lv, "sound_remap")->status, GC_E_RANGE);
    gc_level_free(&lv);
}

/* ---- overlay -------------------------------------------------------------------------------- */

Test(dec_fidelity, overlay_both_readings)
{
    gc_level lv;
    decode(&lv); /* the fixture's raw image */
    cr_assert(fx_status(&lv, "overlay")->ok);
    cr_assert_eq(fx_col(&lv, "overlay.image", 0, "reading"), 0);
    cr_assert_eq(fx_col(&lv, "overlay.image", 0, "head_is_section_header"), 0);
    cr_assert_eq(fx_rows(&lv, "overlay.section")->count, 0);
    gc_level_free(&lv);
    put_overlay_chain();
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "overlay.image", 0, "reading"), 1);
    cr_assert_eq(fx_col(&lv, "overlay.image", 0, "section_count"), 7);
    cr_assert_eq(fx_col(&lv, "overlay.image", 0, "types_match"), 1);
    cr_assert_eq(fx_col(&lv, "overlay.image", 0, "entry_in_text"), 1);
    cr_assert_eq(fx_col(&lv, "overlay.section", 1, "section_type"), 8);
    cr_assert_eq(fx_col(&lv, "overlay.section", 6, "data_ofs"), 0xD70);
    /* the normal table is still found by content, the decoy rejected */
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "found"), 1);
    cr_assert_eq(fx_col(&lv, "normals.table", 0, "overlay_ofs"), FX_OV_TABLE);
    gc_level_free(&lv);
    /* a size off by one word: the chain no longer covers the overlay */
    fx_set_u32(&fx.overlay, 0x20 + 4, 0x40 - 16 + 4);
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "overlay.image", 0, "reading"), 0);
    cr_assert_eq(fx_col(&lv, "overlay.image", 0, "head_is_section_header"), 1);
    cr_assert_eq(fx_rows(&lv, "overlay.section")->count, 0);
    gc_level_free(&lv);
    /* another entry point ends the chain early (the game's rule) */
    fx_set_u32(&fx.overlay, 0x20 + 4, 0x40 - 16);
    fx_set_u32(&fx.overlay, 0xD20 + 12, 0x1234);
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "overlay.image", 0, "sections_walked"), 4);
    cr_assert_eq(fx_col(&lv, "overlay.image", 0, "reading"), 0);
    gc_level_free(&lv);
}

/* ---- normals --------------------------------------------------------------------------------- */

/* The search as docs/formats state it, word by word: every 4-aligned (1.0f, 0.0f) pair before
 * the table (at `table`, or none: SIZE_MAX) is a candidate. The decoder compares four words a
 * time and looks at the 1.0f lanes only. */
static uint32_t ref_candidates(const fx_buf *ov, size_t table)
{
    uint32_t n = 0;
    for (size_t at = 0; at + 8 <= ov->len && at <= table; at += 4) {
        uint32_t a, b;
        memcpy(&a, ov->p + at, 4);
        memcpy(&b, ov->p + at + 4, 4);
        n += a == 0x3F800000u && b == 0;
    }
    return n;
}

/* Lone (1.0, 0.0) decoys in each of the four lanes, 1.0 before a non-zero word, the table at
 * each of the four word offsets within 16 bytes, and with the table gone decoys in the overlay's
 * last 16 bytes and a 1.0 in its last word (no pair: the lane's bounds check). */
Test(dec_fidelity, normals_candidates_every_lane)
{
    fx_buf *ov = &fx.overlay;
    cr_assert_eq(ov->len, FX_OV_SIZE);
    for (int t = 0; t <= 4; t++) {
        for (size_t i = 0x200; i < FX_OV_SIZE; i += 4) /* code-ish words again */
            fx_set_u32(ov, i, 0x27BD0000u + (uint32_t)i);
        for (int k = 0; k < 4; k++) {
            size_t d = 0x220 + 0x20 * (size_t)k + 4u * (size_t)k; /* lane k of its 16 bytes */
            fx_set_f32(ov, d, 1.0f), fx_set_u32(ov, d + 4, 0), fx_set_f32(ov, d + 8, 0.25f);
        }
        fx_set_f32(ov, 0x2C4, 1.0f), fx_set_u32(ov, 0x2C8, 7); /* not a pair */
        /* a pair in lane 1 of the last 16 bytes, then 1.0 in the last word (no word after) */
        fx_set_f32(ov, FX_OV_SIZE - 12, 1.0f), fx_set_u32(ov, FX_OV_SIZE - 8, 0);
        fx_set_f32(ov, FX_OV_SIZE - 4, 1.0f);
        fx_set_f32(ov, FX_OV_SIZE - 20, 1.0f), fx_set_u32(ov, FX_OV_SIZE - 16, 0);
        size_t table = t < 4 ? 0x400 + 4u * (size_t)t : SIZE_MAX;
        if (t < 4)
            fx_normals(ov, table);
        gc_level lv;
        decode(&lv);
        cr_assert_eq(fx_col(&lv, "normals.table", 0, "found"), t < 4, "t %d", t);
        if (t < 4)
            cr_assert_eq(fx_col(&lv, "normals.table", 0, "overlay_ofs"), table, "t %d", t);
        cr_assert_eq(fx_col(&lv, "normals.table", 0, "candidates"), ref_candidates(ov, table),
                     "t %d", t);
        cr_assert_eq(ref_candidates(ov, table), t < 4 ? 6u : 7u); /* the decoys were seen */
        gc_level_free(&lv);
    }
}

/* ---- collision ------------------------------------------------------------------------------ */

Test(dec_fidelity, collision_cells)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "collision")->ok, "%s", fx_status(&lv, "collision")->message);
    cr_assert_eq(fx_rows(&lv, "collision.mesh")->count, 1);
    cr_assert_eq(fx_col(&lv, "collision.mesh", 0, "tree_ok"), 1);
    cr_assert_eq(fx_col(&lv, "collision.mesh", 0, "cells"), 2);
    cr_assert_eq(fx_col(&lv, "collision.mesh", 0, "faces"), 2);
    cr_assert_eq(fx_col(&lv, "collision.mesh", 0, "quads"), 1);
    cr_assert_eq(fx_col(&lv, "collision.mesh", 0, "vertices"), 7);
    cr_assert_eq(fx_col(&lv, "collision.mesh", 0, "tree_end"), 0x20);
    /* cell (7, -3, 1): centre (30, -10, 6); corners +-1, z 6 + 0.5 */
    cr_assert_eq(fx_col(&lv, "collision.cell", 0, "x"), 7);
    cr_assert_eq(fx_col(&lv, "collision.cell", 0, "y"), -3);
    cr_assert_eq(fx_col(&lv, "collision.cell", 0, "z"), 1);
    cr_assert_eq(fx_col(&lv, "collision.cell", 1, "x"), 9);
    cr_assert_eq(fx_col(&lv, "collision.cell", 0, "bytes_needed"), 25);
    cr_assert_eq(fx_col(&lv, "collision.cell", 0, "max_vertex_index"), 3);
    cr_assert_eq(fx_col(&lv, "collision.cell", 0, "faces_outside"), 0);
    cr_assert_eq(fx_col(&lv, "collision.cell", 0, "inside"), 1);
    /* bounds: the cubes of cells (7..9, -3, 1) */
    cr_assert_float_eq(fx_col(&lv, "collision.mesh", 0, "min_x"), 28.0, 1e-6);
    cr_assert_float_eq(fx_col(&lv, "collision.mesh", 0, "max_x"), 40.0, 1e-6);
    cr_assert_float_eq(fx_col(&lv, "collision.mesh", 0, "min_y"), -12.0, 1e-6);
    cr_assert_float_eq(fx_col(&lv, "collision.mesh", 0, "max_y"), -8.0, 1e-6);
    cr_assert_float_eq(fx_col(&lv, "collision.mesh", 0, "min_z"), 4.0, 1e-6);
    cr_assert_float_eq(fx_col(&lv, "collision.mesh", 0, "max_z"), 8.0, 1e-6);
    gc_level_free(&lv);
    /* the quad's fourth index past the vertex list; a vertex moved out of its cube */
    const size_t q = FX_CD_COLLISION + 0x10 + 0x20;
    fx_set_u8(&fx.core_data, q + 24, 4);
    fx_set_u32(&fx.core_data, FX_CD_COLLISION + 0x10 + 0x40 + 4, 0x7FFu << 20); /* z +32 */
    fx_set_u32(&fx.core_data, FX_CD_COLLISION + 0x10 + 0x40 + 8, 0x7FFu << 20);
    fx_set_u32(&fx.core_data, FX_CD_COLLISION + 0x10 + 0x40 + 12, 0x7FFu << 20);
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "collision.cell", 0, "max_vertex_index"), 4);
    cr_assert_eq(fx_col(&lv, "collision.cell", 1, "faces_outside"), 1);
    gc_level_free(&lv);
}

/* The outcode of a packed vertex as docs/formats/collision.md states it, written out per axis
 * (the decoder computes four at a time): bit 0 x < -2 units, 1 x > 2, 2 y < -2, 3 y > 2, 4
 * z < -2, 5 z > 2; x, y in 1/16 unit (10 bits), z in 1/64 unit (12 bits). */
static unsigned ref_outcode(int x, int y, int z)
{
    return (unsigned)(x < -32) | (unsigned)(x > 32) << 1 | (unsigned)(y < -32) << 2 |
           (unsigned)(y > 32) << 3 | (unsigned)(z < -128) << 4 | (unsigned)(z > 128) << 5;
}

/* A cell of 19 vertices (four blocks of four and a tail of three) at each axis's boundaries and
 * extremes, and 24 faces: one of each vertex alone (outside exactly when its outcode is not 0),
 * then pairs of outside vertices with disjoint outcodes (not outside) and with a shared bit
 * (outside), so every vertex's code, in every lane, and the bits apart are checked. */
Test(dec_fidelity, collision_outcodes_every_lane)
{
    static const int xy[9] = {-512, -33, -32, -1, 0, 31, 32, 33, 511};
    static const int zz[9] = {-2048, -129, -128, -1, 0, 127, 128, 129, 2047};
    enum { NV = 19, NF = 24 };
    int vx[NV], vy[NV], vz[NV];
    unsigned code[NV];
    fx_buf *cd = &fx.core_data;
    const size_t t = FX_CD_COLLISION + 0x10 + 0x40; /* the triangle cell: 176 bytes to 0x500 */
    cr_assert_leq(4u + 4u * NV + 4u * NF, 0x500u - t);
    fx_set_u16(cd, t, NF), fx_set_u8(cd, t + 2, NV), fx_set_u8(cd, t + 3, 0);
    for (int k = 0; k < NV; k++) {
        vx[k] = xy[k % 9], vy[k] = xy[(k / 3 + k) % 9], vz[k] = zz[(k / 9 + 2 * k) % 9];
        code[k] = ref_outcode(vx[k], vy[k], vz[k]);
        fx_set_u32(cd, t + 4 + 4 * (size_t)k,
                   ((uint32_t)vx[k] & 0x3FF) | ((uint32_t)vy[k] & 0x3FF) << 10 |
                       ((uint32_t)vz[k] & 0xFFF) << 20);
    }
    int face[NF][3], nf = 0, want = 0, apart = 0, shared = 0;
    for (int k = 0; k < NV; k++, nf++) {
        face[nf][0] = face[nf][1] = face[nf][2] = k;
        want += code[k] != 0;
    }
    for (int a = 0; a < NV && nf < NF; a++)
        for (int b = a + 1; b < NV && nf < NF; b++) {
            if (!code[a] || !code[b] || code[a] == code[b])
                continue;
            bool disjoint = (code[a] & code[b]) == 0;
            if (disjoint ? apart >= 3 : shared >= 2)
                continue;
            apart += disjoint, shared += !disjoint;
            face[nf][0] = a, face[nf][1] = face[nf][2] = b, nf++;
            want += !disjoint;
        }
    cr_assert_eq(nf, NF);
    cr_assert(want > 3 && want < NF - 3, "a face set that tells right from wrong (%d)", want);
    for (int f = 0; f < NF; f++)
        for (int j = 0; j < 3; j++)
            fx_set_u8(cd, t + 4 + 4 * NV + 4 * (size_t)f + (size_t)j, (uint8_t)face[f][j]);
    gc_level lv;
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "collision.cell", 1, "inside"), 1);
    cr_assert_eq(fx_col(&lv, "collision.cell", 1, "vertex_count"), NV);
    cr_assert_eq(fx_col(&lv, "collision.cell", 1, "faces_outside"), want);
    gc_level_free(&lv);
}

/* The triangle cell refilled with 7 vertices of varied outcodes, 30 faces and 20 quads (172 of
 * its 176 bytes): the decoder takes the largest index sixteen bytes at a time (a type byte
 * masked, the last faces and quad indices from 16 bytes that end at theirs), the outcodes four
 * vertices at a time (the last four again when 7 is no multiple of four) and a face's indices
 * from one 4-byte word. Each index byte in turn is raised to the largest vertex, then past the
 * list; max_vertex_index and faces_outside are checked against a byte-by-byte reference each
 * time, so a lane lost, a type byte let through or a quad index misplaced shows. */
enum { CF_NV = 7, CF_NF = 30, CF_NQ = 20 };

static void collision_faces_reference(const uint8_t *face, const uint8_t *v3, const unsigned *code,
                                      unsigned *max, unsigned *outside)
{
    *max = 0, *outside = 0;
    for (int f = 0; f < CF_NF; f++) {
        unsigned out = 0x3F;
        for (int j = 0; j < 3; j++) {
            unsigned i = face[4 * f + j];
            *max = i > *max ? i : *max;
            out &= i < CF_NV ? code[i] : 0x3F;
        }
        if (f < CF_NQ) {
            *max = v3[f] > *max ? v3[f] : *max;
            out &= v3[f] < CF_NV ? code[v3[f]] : 0x3F;
        }
        *outside += out != 0;
    }
}

Test(dec_fidelity, collision_face_indices_every_lane, .timeout = 60)
{
    /* inside, x<, x< y<, z>, x< z>, y>, x> */
    static const int pos[CF_NV][3] = {{0, 0, 0},     {-40, 0, 0},  {-40, -40, 0}, {0, 0, 200},
                                      {-40, 0, 200}, {0, 40, -10}, {40, 5, 5}};
    fx_buf *cd = &fx.core_data;
    const size_t t = FX_CD_COLLISION + 0x10 + 0x40, fo = t + 4 + 4 * CF_NV, qo = fo + 4 * CF_NF;
    cr_assert_leq(qo + CF_NQ, 0x500u);
    unsigned code[CF_NV];
    fx_set_u16(cd, t, CF_NF), fx_set_u8(cd, t + 2, CF_NV), fx_set_u8(cd, t + 3, CF_NQ);
    for (int k = 0; k < CF_NV; k++) {
        code[k] = ref_outcode(pos[k][0], pos[k][1], pos[k][2]);
        fx_set_u32(cd, t + 4 + 4 * (size_t)k,
                   ((uint32_t)pos[k][0] & 0x3FF) | ((uint32_t)pos[k][1] & 0x3FF) << 10 |
                       ((uint32_t)pos[k][2] & 0xFFF) << 20);
    }
    uint8_t face[4 * CF_NF], v3[CF_NQ];
    uint32_t r = 12345;
    for (int f = 0; f < CF_NF; f++) {
        for (int j = 0; j < 3; j++) {
            r = r * 1103515245u + 12345u;
            face[4 * f + j] = (uint8_t)(1 + (r >> 16) % 4); /* 1..4: below the largest, 6 */
        }
        face[4 * f + 3] = 0xFE; /* type: never an index */
    }
    for (int f = 0; f < CF_NQ; f++) {
        r = r * 1103515245u + 12345u;
        v3[f] = (uint8_t)(1 + (r >> 16) % 4);
    }
    unsigned want_max, want_out;
    collision_faces_reference(face, v3, code, &want_max, &want_out);
    cr_assert(want_out > 3 && want_out < CF_NF - 3, "a face set that tells right from wrong (%u)",
              want_out);
    const int nbytes = 3 * CF_NF + CF_NQ;
    for (int p = -1; p < 2 * nbytes; p++) {
        uint8_t *at = NULL;
        if (p >= 0) {
            int b = p % nbytes;
            at = b < 3 * CF_NF ? &face[4 * (b / 3) + b % 3] : &v3[b - 3 * CF_NF];
        }
        uint8_t was = at ? *at : 0;
        if (at)
            *at = p < nbytes ? CF_NV - 1 : 200; /* the largest vertex, then past the list */
        for (int k = 0; k < 4 * CF_NF; k++)
            fx_set_u8(cd, fo + (size_t)k, face[k]);
        for (int k = 0; k < CF_NQ; k++)
            fx_set_u8(cd, qo + (size_t)k, v3[k]);
        collision_faces_reference(face, v3, code, &want_max, &want_out);
        gc_level lv;
        decode(&lv);
        cr_assert_eq(fx_col(&lv, "collision.cell", 1, "inside"), 1);
        cr_assert_eq(fx_col(&lv, "collision.cell", 1, "max_vertex_index"), want_max, "byte %d", p);
        cr_assert_eq(fx_col(&lv, "collision.cell", 1, "faces_outside"), want_out, "byte %d", p);
        gc_level_free(&lv);
        if (at)
            *at = was;
    }
}

Test(dec_fidelity, collision_bad_inputs, .timeout = 20)
{
    gc_level lv;
    fx_buf *cd = &fx.core_data;
    const size_t m = FX_CD_COLLISION + 0x10;
    /* a cell entry pointing into the tree */
    fx_set_u32(cd, m + 0x14, 0x10u << 8 | 2);
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "collision.cell", 0, "inside"), 0);
    gc_level_free(&lv);
    fx_set_u32(cd, m + 0x14, 0x20u << 8 | 2);
    /* nodes shared to multiply the walk: 2,000 z slabs on one z node whose 60 rows share one
     * y node. The block goes at the end of core_data so it may be big; the walk is bounded by
     * the mesh's size (12 KiB), not by the 120,000 cells the product would give. */
    const size_t c2 = CD_SIZE, m2 = c2 + 0x10;
    fx_pad_to(cd, c2 + 0x3000);
    fx_set_u32(&fx.core_index, 0x8c, (uint32_t)cd->len);
    fx_set_u32(&fx.core_index, 0x14, (uint32_t)c2);
    fx_set_u32(cd, c2, 0x10);
    fx_set_u16(cd, m2 + 2, 2000);
    for (size_t z = 0; z < 2000; z++)
        fx_set_u16(cd, m2 + 4 + 2 * z, 0x1000 / 4);
    fx_set_u16(cd, m2 + 0x1000, 0), fx_set_u16(cd, m2 + 0x1002, 60);
    for (size_t y = 0; y < 60; y++)
        fx_set_u32(cd, m2 + 0x1004 + 4 * y, 0x1100);
    fx_set_u16(cd, m2 + 0x1100, 0), fx_set_u16(cd, m2 + 0x1102, 3);
    fx_set_u32(cd, m2 + 0x1104, 0x1200u << 8 | 1);
    decode(&lv);
    cr_assert(fx_status(&lv, "collision")->ok, "%s", fx_status(&lv, "collision")->message);
    cr_assert_eq(fx_col(&lv, "collision.mesh", 0, "tree_ok"), 0);
    cr_assert_lt(fx_rows(&lv, "collision.cell")->count, 0x3000);
    gc_level_free(&lv);
    /* the collision offset past core_data */
    fx_set_u32(&fx.core_index, 0x14, 0x7FFFFF00);
    decode(&lv);
    const gc_decode_status_row *r = fx_status(&lv, "collision");
    cr_assert_eq(r->status, GC_E_RANGE);
    cr_assert(strstr(r->where, "collision") != NULL, "where '%s'", r->where);
    gc_level_free(&lv);
}

/* ---- moby joint list, bind pose; shrub packets ------------------------------------------------
 */

Test(dec_fidelity, moby_joint_list)
{
    gc_level lv;
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "joint_lists"), 1);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "joint_lists_ok"), 1);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "bind_pose_fits"), 1);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "trans_parents_ok"), 1);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "texture_reading"), 0); /* all 0xFF */
    gc_level_free(&lv);
    fx_set_u8(&fx.core_data, FX_CD_MOBY + 0x1FF, 0);               /* terminator missing */
    fx_set_u16(&fx.core_data, FX_CD_MOBY + 0x100 + 32 + 12, 0x80); /* joint 2 its own parent */
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "joint_lists_ok"), 0);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "trans_parents_ok"), 0);
    gc_level_free(&lv);
    fx_set_u8(&fx.core_data, FX_CD_MOBY + 0x1FF, 0xFF);
    fx_set_u32(&fx.core_data, FX_CD_MOBY + 0x1C, 0); /* no pointer: the first word is the count */
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "joint_lists"), 0x50);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "joint_lists_ok"), 0);
    gc_level_free(&lv);
    /* texture slots: Wrench's reading */
    fx_set_u8(&fx.core_index, FX_CI_MOBY + 0x10, 4);
    fx_set_u8(&fx.core_index, FX_CI_MOBY + 0x11, 2);
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "texture_reading"), 1);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "texture_slots"), 2);
    cr_assert_eq(fx_col(&lv, "moby.class", 0, "max_texture_index"), 4);
    gc_level_free(&lv);
}

Test(dec_fidelity, shrub_packets)
{
    gc_level lv;
    decode(&lv);
    cr_assert(fx_status(&lv, "shrub")->ok, "%s", fx_status(&lv, "shrub")->message);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "header_reading"), 1);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "normals_fit"), 1);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "packets_decoded"), 2);
    cr_assert_eq(fx_rows(&lv, "shrub.packet")->count, 2);
    for (size_t k = 0; k < 2; k++) {
        cr_assert_eq(fx_col(&lv, "shrub.packet", k, "vif_ok"), 1);
        cr_assert_eq(fx_col(&lv, "shrub.packet", k, "unpack_count"), 3);
        cr_assert_eq(fx_col(&lv, "shrub.packet", k, "header_fits"), 1);
        cr_assert_eq(fx_col(&lv, "shrub.packet", k, "vertices_fit"), 1);
        cr_assert_eq(fx_col(&lv, "shrub.packet", k, "non_triangle_tags"), 0);
        cr_assert_eq(fx_col(&lv, "shrub.packet", k, "ad_regs_ok"), 1);
        cr_assert_eq(fx_col(&lv, "shrub.packet", k, "gs_order_ok"), 1);
    }
    cr_assert_eq(fx_col(&lv, "shrub.packet", 0, "prim"), 4);
    cr_assert_eq(fx_col(&lv, "shrub.packet", 1, "prim"), 3);
    cr_assert_eq(fx_col(&lv, "shrub.packet", 1, "max_normal_index"), 8);
    /* vertex x 0 .. 800 (scale 1.0 / 1024) around the centre 0.25: farthest 800 / 1024 - 0.25 */
    cr_assert_float_eq(fx_col(&lv, "shrub.class", 0, "max_vertex_radius"), 0.53125, 1e-6);
    gc_level_free(&lv);
    /* PRIM 0 (points), a vertex at the wrong GS offset, the registers swapped */
    const size_t p = FX_CD_SHRUB + 0x110, h = p + 16;
    uint64_t tag = 6u | 1ull << 15 | 1ull << 46 | 0x78ull << 47 | 3ull << 60;
    fx_set_u32(&fx.core_data, h + 16, (uint32_t)tag);
    fx_set_u32(&fx.core_data, h + 20, (uint32_t)(tag >> 32));
    fx_set_u16(&fx.core_data, h + 16 * 6 + 4 + 8 * 2 + 6, 99);
    fx_set_u8(&fx.core_data, h + 32 + 8, 0x06);
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "shrub.packet", 0, "prim"), 0);
    cr_assert_eq(fx_col(&lv, "shrub.packet", 0, "non_triangle_tags"), 1);
    cr_assert_eq(fx_col(&lv, "shrub.packet", 0, "gs_order_ok"), 0);
    cr_assert_eq(fx_col(&lv, "shrub.packet", 0, "ad_regs_ok"), 0);
    gc_level_free(&lv);
    /* a fourth UNPACK (S_32, one word) in the first packet's padding; packed data where the
     * sphere is */
    fx_set_u32(&fx.core_data, p + 216, 0x60010000u);
    fx_set_u32(&fx.core_data, FX_CD_SHRUB + 0xC, 0xFFFFFFFFu); /* a NaN radius */
    decode(&lv);
    cr_assert_eq(fx_col(&lv, "shrub.packet", 0, "vif_ok"), 1);
    cr_assert_eq(fx_col(&lv, "shrub.packet", 0, "unpack_count"), 4);
    cr_assert_eq(fx_col(&lv, "shrub.class", 0, "header_reading"), 0);
    gc_level_free(&lv);
}
