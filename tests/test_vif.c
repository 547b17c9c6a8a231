/* SPDX-License-Identifier: MIT */
/* Tests of the VIF1 code-word walker (decoders/gc_vif.h): element sizes from
 * the command byte, 4-byte unpack padding (the 75-element example of
 * level-assets.md), inline payloads, and desynchronisation detection. */
#include <criterion/criterion.h>
#include <string.h>

#include "gc_vif.h"

typedef struct buf {
    uint8_t b[70000];
    size_t n;
} buf;

static void put32(buf *w, uint32_t v)
{
    w->b[w->n++] = (uint8_t)v;
    w->b[w->n++] = (uint8_t)(v >> 8);
    w->b[w->n++] = (uint8_t)(v >> 16);
    w->b[w->n++] = (uint8_t)(v >> 24);
}
static void fill(buf *w, size_t n, uint8_t v)
{
    memset(w->b + w->n, v, n);
    w->n += n;
}
/* UNPACK word as formats.md §5.3 spells it. */
static uint32_t unpack(unsigned vnvl, unsigned num, unsigned usn, unsigned addr)
{
    return (0x60u | vnvl) << 24 | (num & 0xffu) << 16 | 1u << 15 | usn << 14 | (addr & 0x3ffu);
}

static gc_vif_walker start(const buf *w, unsigned framing, uint64_t file_ofs)
{
    gc_vif_walker vw;
    gc_vif_begin(&vw, gc_reader_make(w->b, w->n, file_ofs), framing);
    return vw;
}

Test(vif, element_sizes_from_the_command_byte)
{
    cr_assert_eq(gc_vif_element_bytes(3, 2), 4);  /* V4_8 */
    cr_assert_eq(gc_vif_element_bytes(3, 1), 8);  /* V4_16 */
    cr_assert_eq(gc_vif_element_bytes(3, 0), 16); /* V4_32 */
    cr_assert_eq(gc_vif_element_bytes(2, 1), 6);  /* V3_16: terrain positions */
    cr_assert_eq(gc_vif_element_bytes(1, 1), 4);  /* V2_16 */
    cr_assert_eq(gc_vif_element_bytes(0, 0), 4);  /* S_32 */
    cr_assert_eq(gc_vif_element_bytes(0, 2), 1);  /* S_8 */
    cr_assert_eq(gc_vif_element_bytes(3, 3), 2);  /* V4_5 */

    /* The command byte decides, whatever the immediate's low nibble says:
     * V3_16 (command 0x69) to address 0x00c (nibble 0xc would be V4_32). */
    buf w = {.n = 0};
    put32(&w, unpack(GC_VIF_V3_16, 2, 0, 0x00c));
    fill(&w, 12, 0x11);
    put32(&w, 0x01000404); /* STCYCL */
    gc_vif_walker vw = start(&w, 0, 0);
    gc_vif_code c;
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert(c.is_unpack);
    cr_assert_eq(c.cmd, 0x69);
    cr_assert_eq(c.vn, 2);
    cr_assert_eq(c.vl, 1);
    cr_assert_eq(c.elem_bytes, 6);
    cr_assert_eq(c.count, 2);
    cr_assert_eq(c.addr_qwords, 0x00c);
    cr_assert(!c.usn);
    cr_assert(c.flg);
    cr_assert_eq(c.payload_bytes, 12);
    cr_assert_eq(c.total_bytes, 16);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.cmd, GC_VIF_STCYCL);
    cr_assert_eq(c.ofs, 16);
    cr_assert_eq(gc_vif_next(&vw, &c), 0);

    /* The historical misreading takes 16 bytes per element and loses sync. */
    vw = start(&w, GC_VIF_FRAMING_IMM_NIBBLE, 0);
    cr_assert_eq(gc_vif_next(&vw, &c), -1);
    cr_assert_eq(vw.error, GC_VIF_E_CUT);
    cr_assert_eq(vw.error_ofs, 0);
}

Test(vif, seventy_five_positions_pad_to_452)
{
    /* level-assets.md: 75 V3_16 elements are 450 bytes; the next code sits
     * at +452 (STCYCL 0x01000404). Reading it at +450 finds a plausible
     * ITOP 0x04040000 instead, which is the 2-byte-padding mistake. */
    buf w = {.n = 0};
    put32(&w, unpack(GC_VIF_V3_16, 75, 0, 14));
    for (int i = 0; i < 450; i++)
        w.b[w.n++] = (uint8_t)(i * 7 + 1);
    fill(&w, 2, 0);
    put32(&w, 0x01000404); /* STCYCL wl=4 cl=4 */
    put32(&w, 0x05000000); /* STMOD 0 */

    gc_vif_walker vw = start(&w, 0, 0x2000);
    gc_vif_code c;
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.count, 75);
    cr_assert_eq(c.payload_bytes, 450);
    cr_assert_eq(c.total_bytes, 456);
    cr_assert_eq(c.payload_ofs, 4);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.word, 0x01000404);
    cr_assert_eq(c.ofs, 4 + 452);
    cr_assert_eq(c.file_ofs, 0x2000 + 4 + 452);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.cmd, GC_VIF_STMOD);
    cr_assert_eq(gc_vif_next(&vw, &c), 0);
    cr_assert_eq(vw.codes, 3);

    vw = start(&w, GC_VIF_FRAMING_PAD2, 0x2000);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.ofs, 4 + 450);
    cr_assert_eq(c.word, 0x04040000);
    cr_assert_eq(c.cmd, GC_VIF_ITOP);
    /* and from there the walk runs off the end */
    int rc;
    while ((rc = gc_vif_next(&vw, &c)) > 0)
        ;
    cr_assert_eq(rc, -1);
    cr_assert_eq(vw.error, GC_VIF_E_CUT);
}

Test(vif, inline_payloads_are_skipped)
{
    buf w = {.n = 0};
    put32(&w, 0x30000000); /* STROW: 4 words follow */
    put32(&w, 0x45000000);
    put32(&w, 0x45000000);
    put32(&w, 0);
    put32(&w, 14);
    put32(&w, 0x31000000); /* STCOL */
    fill(&w, 16, 0x47);
    put32(&w, 0x20000000); /* STMASK: 1 word */
    put32(&w, 0x4b4b4b4b);
    put32(&w, 0x4a020000); /* MPG num=2: 16 bytes */
    fill(&w, 16, 0x4c);
    put32(&w, 0x50000001); /* DIRECT imm=1: one quadword */
    fill(&w, 16, 0x4d);
    put32(&w, 0x51000002); /* DIRECTHL imm=2 */
    fill(&w, 32, 0x4e);
    put32(&w, 0x94000000); /* MSCAL with the interrupt bit */
    put32(&w, unpack(GC_VIF_V4_8, 1, 1, 40));
    put32(&w, 0x03020100);

    static const uint8_t want[] = {GC_VIF_STROW,  GC_VIF_STCOL,    GC_VIF_STMASK, GC_VIF_MPG,
                                   GC_VIF_DIRECT, GC_VIF_DIRECTHL, GC_VIF_MSCAL,  0x6e};
    static const size_t want_ofs[] = {0, 20, 40, 48, 68, 88, 124, 128};
    static const size_t want_payload[] = {16, 16, 4, 16, 16, 32, 0, 4};
    gc_vif_walker vw = start(&w, 0, 0);
    gc_vif_code c;
    for (size_t i = 0; i < sizeof want; i++) {
        cr_assert_eq(gc_vif_next(&vw, &c), 1, "code %zu", i);
        cr_assert_eq(c.cmd, want[i], "code %zu: cmd 0x%x", i, c.cmd);
        cr_assert_eq(c.ofs, want_ofs[i], "code %zu at %zu", i, c.ofs);
        cr_assert_eq(c.payload_bytes, want_payload[i], "code %zu", i);
    }
    cr_assert_eq(gc_load_u32le(c.payload), 0x03020100);
    cr_assert_eq(gc_vif_next(&vw, &c), 0);
    cr_assert_str_eq(gc_vif_cmd_name(0x94), "MSCAL");

    /* Not skipping them reads the STROW row 0x45000000 as a command. */
    vw = start(&w, GC_VIF_FRAMING_NO_INLINE, 0x100);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.cmd, GC_VIF_STROW);
    cr_assert_eq(gc_vif_next(&vw, &c), -1);
    cr_assert_eq(vw.error, GC_VIF_E_UNKNOWN);
    cr_assert_eq(vw.error_ofs, 4);
    cr_assert_eq(vw.error_file_ofs, 0x104);
    cr_assert_str_eq(gc_vif_error_name(vw.error), "unknown_command");
}

Test(vif, counts_of_zero_mean_the_maximum)
{
    buf w = {.n = 0};
    put32(&w, unpack(GC_VIF_V4_8, 0, 1, 0)); /* num 0 = 256 elements = 1024 bytes */
    fill(&w, 1024, 0);
    put32(&w, 0x4a000000); /* MPG num 0 = 256 instructions = 2048 bytes */
    fill(&w, 2048, 0);
    put32(&w, 0x50000000); /* DIRECT imm 0 = 65536 quadwords: longer than the list */
    fill(&w, 64, 0);
    gc_vif_walker vw = start(&w, 0, 0);
    gc_vif_code c;
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.count, 256);
    cr_assert_eq(c.payload_bytes, 1024);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.payload_bytes, 2048);
    cr_assert_eq(gc_vif_next(&vw, &c), -1);
    cr_assert_eq(vw.error, GC_VIF_E_CUT);
    cr_assert_eq(vw.error_ofs, 4 + 1024 + 4 + 2048);
}

Test(vif, desync_is_detected_not_papered_over)
{
    /* an unpack whose payload runs past the list */
    buf w = {.n = 0};
    put32(&w, 0);                              /* NOP */
    put32(&w, unpack(GC_VIF_V4_32, 10, 0, 9)); /* 160 bytes claimed */
    fill(&w, 32, 0);
    gc_vif_walker vw = start(&w, 0, 0x500);
    gc_vif_code c;
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.cmd, GC_VIF_NOP);
    cr_assert_eq(gc_vif_next(&vw, &c), -1);
    cr_assert_eq(vw.error, GC_VIF_E_CUT);
    cr_assert_eq(vw.error_ofs, 4);
    cr_assert_eq(vw.error_file_ofs, 0x504);
    cr_assert_eq(gc_vif_next(&vw, &c), -1, "errors are sticky");

    /* undefined commands: 0x08, 0x12, 0x21, 0x40, 0x52 */
    static const uint8_t bad[] = {0x08, 0x12, 0x21, 0x40, 0x52, 0x5f};
    for (size_t i = 0; i < sizeof bad; i++) {
        buf b = {.n = 0};
        put32(&b, 0x01000102);
        put32(&b, (uint32_t)bad[i] << 24);
        vw = start(&b, 0, 0);
        cr_assert_eq(gc_vif_next(&vw, &c), 1);
        cr_assert_eq(gc_vif_next(&vw, &c), -1, "cmd 0x%x", bad[i]);
        cr_assert_eq(vw.error, GC_VIF_E_UNKNOWN);
        cr_assert_eq(vw.error_ofs, 4);
    }

    /* a list that ends inside a code word */
    buf t = {.n = 0};
    put32(&t, 0);
    t.b[t.n++] = 0x01;
    t.b[t.n++] = 0x02;
    vw = start(&t, 0, 0);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(gc_vif_next(&vw, &c), -1);
    cr_assert_eq(vw.error, GC_VIF_E_CUT);

    /* a STROW cut inside its row */
    buf s = {.n = 0};
    put32(&s, 0x30000000);
    put32(&s, 1);
    put32(&s, 2);
    vw = start(&s, 0, 0);
    cr_assert_eq(gc_vif_next(&vw, &c), -1);
    cr_assert_eq(vw.error, GC_VIF_E_CUT);
    cr_assert_eq(vw.error_ofs, 0);
}

Test(vif, empty_list_ends_at_once)
{
    gc_vif_walker vw;
    gc_vif_begin(&vw, gc_reader_make(NULL, 0, 0), 0);
    gc_vif_code c;
    cr_assert_eq(gc_vif_next(&vw, &c), 0);
    cr_assert_eq(vw.error, GC_VIF_OK);
}

/* gc_vif_next writes its code field by field into *out: every UNPACK-only
 * field must still read zero for another code, whatever *out held before,
 * and a failing call must leave *out as it was. */
Test(vif, code_fields_written_in_place)
{
    buf w = {.n = 0};
    put32(&w, 0x30000000); /* STROW + 16 bytes */
    fill(&w, 16, 0x22);
    put32(&w, unpack(GC_VIF_V4_8, 1, 1, 0x123));
    fill(&w, 4, 0x33);
    put32(&w, 0x01000404); /* STCYCL */
    w.b[w.n++] = 0x00;     /* a cut word */
    gc_vif_walker vw = start(&w, 0, 0x1000);
    gc_vif_code c;
    memset(&c, 0xab, sizeof c);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.cmd, GC_VIF_STROW);
    cr_assert(!c.is_unpack);
    cr_assert_eq(c.vnvl, 0);
    cr_assert_eq(c.vn, 0);
    cr_assert_eq(c.vl, 0);
    cr_assert(!c.usn && !c.flg && !c.mask);
    cr_assert_eq(c.addr_qwords, 0);
    cr_assert_eq(c.count, 0);
    cr_assert_eq(c.elem_bytes, 0);
    cr_assert_eq(c.payload, w.b + 4);
    cr_assert_eq(c.payload_bytes, 16);
    cr_assert_eq(c.payload_ofs, 4);
    cr_assert_eq(c.total_bytes, 20);
    cr_assert_eq(c.file_ofs, 0x1000);

    memset(&c, 0xab, sizeof c);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert(c.is_unpack);
    cr_assert_eq(c.vnvl, GC_VIF_V4_8);
    cr_assert_eq(c.vn, 3);
    cr_assert_eq(c.vl, 2);
    cr_assert(c.usn && c.flg && !c.mask);
    cr_assert_eq(c.addr_qwords, 0x123);
    cr_assert_eq(c.count, 1);
    cr_assert_eq(c.elem_bytes, 4);
    cr_assert_eq(c.payload_ofs, 24);
    cr_assert_eq(c.file_ofs, 0x1000 + 20);

    memset(&c, 0xab, sizeof c);
    cr_assert_eq(gc_vif_next(&vw, &c), 1);
    cr_assert_eq(c.cmd, GC_VIF_STCYCL);
    cr_assert_null(c.payload);
    cr_assert_eq(c.payload_bytes, 0);
    cr_assert_eq(c.payload_ofs, 0);
    cr_assert_eq(c.count, 0);
    cr_assert_eq(c.vnvl, 0);

    gc_vif_code before;
    memset(&c, 0xcd, sizeof c);
    memcpy(&before, &c, sizeof c);
    cr_assert_eq(gc_vif_next(&vw, &c), -1);
    cr_assert_eq(vw.error, GC_VIF_E_CUT);
    cr_assert_eq(memcmp(&before, &c, sizeof c), 0, "a failing call wrote *out");
}

/* gc_vif_skip_nops walks exactly as gc_vif_next would over NOP codes (any
 * num/imm, the interrupt bit set or not), counts them in w->codes, and leaves
 * everything else (another code, a cut word) to gc_vif_next. */
Test(vif, skip_nops_is_the_same_walk)
{
    buf w = {.n = 0};
    put32(&w, 0x00000000);
    put32(&w, 0x80ff1234); /* NOP with the interrupt bit, num and imm */
    put32(&w, 0x00ab0001);
    put32(&w, unpack(GC_VIF_V4_8, 1, 1, 0x10));
    fill(&w, 4, 0x00); /* a payload of zeros is not a NOP */
    put32(&w, 0x00000000);
    put32(&w, 0x01000404); /* STCYCL */
    put32(&w, 0x00000000);
    put32(&w, 0x00000000);
    w.b[w.n++] = 0x00; /* a cut word: 3 bytes */
    w.b[w.n++] = 0x00;
    w.b[w.n++] = 0x00;

    /* every code through gc_vif_next */
    gc_vif_walker a = start(&w, 0, 0);
    gc_vif_code c;
    size_t ofs_a[16];
    unsigned na = 0;
    int rc;
    while ((rc = gc_vif_next(&a, &c)) == 1)
        if (c.cmd != GC_VIF_NOP)
            ofs_a[na++] = c.ofs;
    cr_assert_eq(rc, -1);

    gc_vif_walker b = start(&w, 0, 0);
    size_t ofs_b[16];
    unsigned nb = 0, skipped = 0;
    for (;;) {
        uint32_t k = gc_vif_skip_nops(&b);
        skipped += k;
        if (nb == 0)
            cr_assert_eq(k, 3, "three NOPs lead the list");
        rc = gc_vif_next(&b, &c);
        if (rc != 1)
            break;
        cr_assert_neq(c.cmd, GC_VIF_NOP, "a NOP was left for gc_vif_next");
        ofs_b[nb++] = c.ofs;
    }
    cr_assert_eq(rc, -1);
    cr_assert_eq(skipped, 6);
    cr_assert_eq(na, 2);
    cr_assert_eq(nb, na);
    for (unsigned i = 0; i < na; i++)
        cr_assert_eq(ofs_b[i], ofs_a[i]);
    cr_assert_eq(b.codes, a.codes);
    cr_assert_eq(b.error, a.error);
    cr_assert_eq(b.error_ofs, a.error_ofs);
    cr_assert_eq(b.error_file_ofs, a.error_file_ofs);
    cr_assert_eq(gc_vif_skip_nops(&b), 0, "no skipping after an error");
}
