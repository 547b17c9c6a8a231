/* The tfrag lighting pass (decoders/dec_tfrag.c, docs/formats/tfrag.md §8.1)
 * against a reference written here from the formula, vertex by vertex: the
 * normal from the overlay's normal table, the light set of the select word
 * (blended and re-normalised when bits 8..15 are set), the two light terms and
 * the two MADD.S per channel, through the exported gc_ps2_* operations one
 * call at a time. The pass itself computes each normal once per (azimuth,
 * elevation) and each light product once per (pair, select), with the inline
 * bodies of ps2fpu_core.h; a cache keyed wrongly, or an inline body that
 * drifted from the exported one, gives other bits on some vertex here. Also:
 * on every level of the small synthetic corpus, every lit vertex is at least
 * as bright as its stored colour (the synthetic bank's lights only add) and the
 * light adds something on average. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"
#include "gc_ps2fpu.h"
#include "gc_reader.h"
#include "sy_corpus.h"

typedef struct tab {
    const gc_table_desc *desc;
    const uint8_t *rows;
    size_t count;
} tab;

static tab find_tab(const gc_table *ts, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ts[i].desc->name, name) == 0)
            return (tab){ts[i].desc, ts[i].rows, ts[i].count};
    cr_assert_fail("no table %s", name);
    return (tab){0};
}

static size_t col(const tab *t, const char *name)
{
    for (size_t i = 0; i < t->desc->column_count; i++)
        if (strcmp(t->desc->columns[i].name, name) == 0)
            return t->desc->columns[i].offset;
    cr_assert_fail("no column %s.%s", t->desc->name, name);
    return 0;
}

static const uint8_t *row(const tab *t, size_t i)
{
    return t->rows + i * t->desc->row_size;
}

static uint32_t u32_at(const uint8_t *r, size_t ofs)
{
    uint32_t v;
    memcpy(&v, r + ofs, 4);
    return v;
}

static uint16_t u16_at(const uint8_t *r, size_t ofs)
{
    uint16_t v;
    memcpy(&v, r + ofs, 2);
    return v;
}

typedef struct set {
    uint32_t col[2][4], dir[2][3];
} set;

static uint8_t gs_of(uint32_t v)
{
    return (uint8_t)gc_ps2_ftoi0(gc_ps2_mul(gc_ps2_clamp(v, 0, GC_PS2_ONE), 0x43000000u));
}

/* One level of the small corpus: every tfrag.light row against the reference.
 * Returns the number of lit rows; adds (lit - base) summed over channels, in
 * GS units, to *gain. */
static size_t check_level(int index, double *gain)
{
    sy_options opt = {SY_SCALE_SMALL, 1};
    sy_buf b;
    sy_buf_init(&b);
    cr_assert_eq(sy_level_build(&opt, index, &b), 0);
    gc_level lv;
    cr_assert_eq(gc_level_init(&lv, index, "LEVEL.WAD", b.data, b.len), GC_OK);
    gc_level_decode(&lv);
    gc_table *ts = calloc(lv.table_count, sizeof *ts);
    cr_assert(ts);
    gc_level_tables(&lv, ts);

    tab nt = find_tab(ts, lv.table_count, "normals.table");
    cr_assert_eq(nt.count, 1);
    cr_assert(row(&nt, 0)[col(&nt, "found")], "level %d: normal table not found", index);
    uint64_t table_ofs;
    memcpy(&table_ofs, row(&nt, 0) + col(&nt, "overlay_ofs"), 8);
    cr_assert_leq(table_ofs + 256 * 8, lv.overlay.size);
    const uint8_t *table = lv.overlay.data + table_ofs;

    tab dl = find_tab(ts, lv.table_count, "gameplay.dir_light");
    cr_assert_gt(dl.count, 0);
    set *bank = calloc(dl.count, sizeof *bank);
    static const char *const half[2][2] = {{"colour_a", "direction_a"},
                                           {"colour_b", "direction_b"}};
    for (size_t i = 0; i < dl.count; i++)
        for (int h = 0; h < 2; h++)
            for (int k = 0; k < 4; k++) {
                char nm[32];
                snprintf(nm, sizeof nm, "%s_%c", half[h][0], "rgbw"[k]);
                bank[i].col[h][k] = u32_at(row(&dl, i), col(&dl, nm));
                if (k < 3) {
                    snprintf(nm, sizeof nm, "%s_%c", half[h][1], "xyz"[k]);
                    bank[i].dir[h][k] = u32_at(row(&dl, i), col(&dl, nm));
                }
            }

    tab tl = find_tab(ts, lv.table_count, "tfrag.light");
    cr_assert_gt(tl.count, 0);
    size_t c_az = col(&tl, "azimuth"), c_el = col(&tl, "elevation"), c_col = col(&tl, "color"),
           c_sel = col(&tl, "select"), c_lit = col(&tl, "lit"), c_lr = col(&tl, "lit_r"),
           c_gs = col(&tl, "gs_r"), c_nx = col(&tl, "nx");
    cr_assert_eq(col(&tl, "lit_g"), c_lr + 4);
    cr_assert_eq(col(&tl, "lit_b"), c_lr + 8);
    cr_assert_eq(col(&tl, "gs_g"), c_gs + 1);
    cr_assert_eq(col(&tl, "gs_b"), c_gs + 2);
    cr_assert_eq(col(&tl, "ny"), c_nx + 4);
    cr_assert_eq(col(&tl, "nz"), c_nx + 8);
    /* the bytes no column covers (they stay zero: a lit row may be copied whole from an
     * earlier one with the same inputs, padding included) */
    uint8_t covered[256] = {0};
    cr_assert_leq(tl.desc->row_size, sizeof covered);
    for (size_t k = 0; k < tl.desc->column_count; k++)
        memset(covered + tl.desc->columns[k].offset, 1, tl.desc->columns[k].size);
    size_t c_nf = col(&tl, "normal_found"), c_base = col(&tl, "base_r"), c_set = col(&tl, "set"),
           c_blend = col(&tl, "blend"), c_ls = col(&tl, "light_sets"),
           c_se = col(&tl, "set_exists"), c_bits = col(&tl, "lit_bits");
    cr_assert_eq(col(&tl, "base_a"), c_base + 3);
    /* rows whose (azimuth, elevation, colour, select) an earlier row had: the pass takes
     * their derived columns from that row, so this test must meet some */
    enum { KEYS = 1 << 16 };
    uint64_t *seen = calloc(KEYS, sizeof *seen);
    cr_assert(seen);
    size_t repeats = 0;
    size_t lit = 0;
    /* the record's columns against its 8 bytes in core_data (the decoder writes a row's
     * first 22 bytes as three words of those bytes): a patch's rows index its records from
     * 0, 8 bytes apart */
    size_t c_fo = col(&tl, "file_ofs"), c_pr = col(&tl, "patch_row"), c_ix = col(&tl, "index"),
           c_u0 = col(&tl, "unknown_0"), c_in = col(&tl, "intensity");
    uint64_t prev_fo = 0;
    uint32_t prev_pr = UINT32_MAX;
    uint16_t prev_ix = 0;
    for (size_t i = 0; i < tl.count; i++) {
        const uint8_t *r = row(&tl, i);
        unsigned az = r[c_az], el = r[c_el];
        uint16_t c = u16_at(r, c_col), sel = u16_at(r, c_sel);
        uint64_t fo;
        memcpy(&fo, r + c_fo, 8);
        cr_assert_leq(fo + 8, lv.core_data_size, "level %d row %zu file_ofs", index, i);
        const uint8_t *rec = lv.core_data + fo;
        cr_assert(r[c_u0] == rec[0] && r[c_in] == rec[1] && az == rec[2] && el == rec[3] &&
                      c == gc_load_u16le(rec + 4) && sel == gc_load_u16le(rec + 6),
                  "level %d row %zu: not its record's bytes", index, i);
        uint32_t pr = u32_at(r, c_pr);
        uint16_t ix = u16_at(r, c_ix);
        if (pr == prev_pr)
            cr_assert(ix == prev_ix + 1 && fo == prev_fo + 8, "level %d row %zu index", index, i);
        else
            cr_assert(ix == 0 && (prev_pr == UINT32_MAX || pr > prev_pr),
                      "level %d row %zu: a patch's first record", index, i);
        prev_fo = fo, prev_pr = pr, prev_ix = ix;
        uint64_t key = (uint64_t)az | (uint64_t)el << 8 | (uint64_t)c << 16 | (uint64_t)sel << 32;
        for (size_t h = (size_t)((key * 0x9e3779b97f4a7c15u) >> 48);; h = (h + 1) % KEYS) {
            cr_assert_lt(i, KEYS / 2);
            if (seen[h] == key + 1) {
                repeats++;
                break;
            }
            if (!seen[h]) {
                seen[h] = key + 1;
                break;
            }
        }
        for (size_t k = 0; k < tl.desc->row_size; k++)
            cr_assert(covered[k] || r[k] == 0, "level %d row %zu padding byte %zu", index, i, k);
        cr_assert_eq(r[c_nf], 1, "level %d row %zu normal_found", index, i);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(r[c_base + k], ((c >> (5 * k)) & 31u) << 3, "level %d row %zu base %d",
                         index, i, k);
        cr_assert_eq(r[c_base + 3], (c >> 15) << 7, "level %d row %zu base_a", index, i);
        cr_assert_eq(r[c_set], sel & 0xffu, "level %d row %zu set", index, i);
        cr_assert_eq(r[c_blend], sel >> 8, "level %d row %zu blend", index, i);
        cr_assert_eq(u32_at(r, c_ls), dl.count, "level %d row %zu light_sets", index, i);
        cr_assert_eq(r[c_se], 1, "level %d row %zu set_exists", index, i);
        /* the normal: (cos az cos el, sin az cos el, sin el) from the table, negated */
        uint32_t ca = gc_load_u32le(table + 8 * az), sa = gc_load_u32le(table + 8 * az + 4);
        uint32_t ce = gc_load_u32le(table + 8 * el), se = gc_load_u32le(table + 8 * el + 4);
        uint32_t n[3] = {gc_ps2_neg(gc_ps2_mul(ca, ce)), gc_ps2_neg(gc_ps2_mul(sa, ce)),
                         gc_ps2_neg(se)};
        for (int k = 0; k < 3; k++)
            cr_assert_eq(u32_at(r, c_nx + 4 * k), n[k], "level %d row %zu normal %d", index, i, k);
        unsigned s = sel & 0xffu, blend = sel >> 8;
        cr_assert_lt(s + (blend ? 1u : 0u), dl.count, "level %d row %zu: set", index, i);
        cr_assert(r[c_lit], "level %d row %zu not lit", index, i);
        set L = bank[s];
        if (blend) {
            uint32_t t = gc_ps2_itof((int32_t)blend, 8), u = gc_ps2_sub(GC_PS2_ONE, t);
            for (int h = 0; h < 2; h++) {
                for (int k = 0; k < 4; k++)
                    L.col[h][k] = gc_ps2_madd(gc_ps2_mul(u, L.col[h][k]), t, bank[s + 1].col[h][k]);
                for (int k = 0; k < 3; k++)
                    L.dir[h][k] = gc_ps2_madd(gc_ps2_mul(u, L.dir[h][k]), t, bank[s + 1].dir[h][k]);
                uint32_t inv = gc_ps2_rsqrt(GC_PS2_ONE, gc_ps2_dot3(L.dir[h], L.dir[h]));
                for (int k = 0; k < 3; k++)
                    L.dir[h][k] = gc_ps2_mul(L.dir[h][k], inv);
            }
        }
        uint32_t term[2];
        for (int h = 0; h < 2; h++) {
            uint32_t d = gc_ps2_dot3(n, L.dir[h]);
            term[h] = gc_ps2_max(d, gc_ps2_mul(d, L.col[h][3]));
        }
        for (int k = 0; k < 3; k++) {
            uint32_t base = gc_ps2_itof((int32_t)(((c >> (5 * k)) & 31u) << 3), 7);
            uint32_t v = gc_ps2_madd(gc_ps2_madd(base, L.col[0][k], term[0]), L.col[1][k], term[1]);
            cr_assert_eq(u32_at(r, c_lr + 4 * k), v, "level %d row %zu channel %d: %08x, not %08x",
                         index, i, k, u32_at(r, c_lr + 4 * k), v);
            cr_assert_eq(r[c_gs + k], gs_of(v), "level %d row %zu channel %d GS", index, i, k);
            /* the synthetic bank's lights only add (w = 0 and -0.25) */
            uint8_t stored = (uint8_t)(((c >> (5 * k)) & 31u) << 3);
            unsigned base_gs = stored < 0x80 ? stored : 0x80;
            cr_assert_geq(r[c_gs + k], base_gs, "level %d row %zu channel %d darker than stored",
                          index, i, k);
            *gain += (double)r[c_gs + k] - base_gs;
        }
        /* lit_bits: the three patterns mixed and folded to 12 bits (dec_tfrag.c's fold) */
        uint32_t x = u32_at(r, c_lr) * 0x9e3779b1u ^ u32_at(r, c_lr + 4) * 0x85ebca77u ^
                     u32_at(r, c_lr + 8) * 0xc2b2ae3du;
        x ^= x >> 15;
        x *= 0x2c1b3c6du;
        x ^= x >> 16;
        uint64_t bits;
        memcpy(&bits, r + c_bits, 8);
        cr_assert_eq(bits, x & 0xfffu, "level %d row %zu lit_bits", index, i);
        lit++;
    }
    cr_assert_gt(repeats, tl.count / 10, "level %d: %zu of %zu rows repeat an earlier row's inputs",
                 index, repeats, tl.count);
    free(seen);
    free(bank);
    free(ts);
    gc_level_free(&lv);
    sy_buf_free(&b);
    return lit;
}

Test(lighting, pass_matches_the_formula_on_every_small_level, .timeout = 600)
{
    for (int i = 0; i < 27; i++) {
        double gain = 0;
        size_t lit = check_level(i, &gain);
        cr_assert_gt(lit, 0, "level %d: nothing lit", i);
        /* on average the lights add at least 0.1 of full scale per channel */
        cr_assert_gt(gain / (3.0 * (double)lit), 12.8, "level %d: lights add %.2f a channel", i,
                     gain / (3.0 * (double)lit));
    }
}
