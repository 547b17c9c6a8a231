/* SPDX-License-Identifier: MIT */
/* The level overlay: a ratchet executable (section headers, no ELF header) with the 256-entry
 * normal table at the plan's per-level offset and a decoy lone (1.0, 0.0) pair before it, both in
 * its .data section (docs/formats/overlay.md).
 * The table is computed with integer fixed point only, so it is bit-identical everywhere. */
#include <string.h>

#include "sy_internal.h"

/* round(pi * 2^62): the angles are built from it in Q62 fixed point. */
#define SY_PI_Q62 0xC90FDAA22168C235ull

/* High 64 bits and low 64 bits of a 64x64 product, portably. */
static void mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *lo = (mid << 32) | (uint32_t)p00;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* (a * b) >> 62 for non-negative Q62 values below 4. */
static uint64_t mulq62(uint64_t a, uint64_t b)
{
    uint64_t hi, lo;
    mul64(a, b, &hi, &lo);
    return (hi << 2) | (lo >> 62);
}

/* cos and sin of r*pi/128 for r in 0..64, Q62, by Taylor series to far below f32 precision
 * (the terms fall under 2^-62 long before k = 30; theta <= pi/2). */
static void cos_sin_q62(unsigned r, int64_t *c, int64_t *s)
{
    uint64_t theta = (uint64_t)r * (SY_PI_Q62 >> 7);
    uint64_t t2 = mulq62(theta, theta);
    int64_t sc = 0, ss = 0;
    uint64_t term_c = 1ull << 62, term_s = theta;
    for (unsigned k = 0; k < 30; k++) {
        sc += (k & 1) ? -(int64_t)term_c : (int64_t)term_c;
        ss += (k & 1) ? -(int64_t)term_s : (int64_t)term_s;
        term_c = mulq62(term_c, t2) / ((2 * k + 1) * (2 * k + 2));
        term_s = mulq62(term_s, t2) / ((2 * k + 2) * (2 * k + 3));
    }
    *c = sc;
    *s = ss;
}

static uint32_t q62_to_f32_bits(int64_t v)
{
    /* int64 -> float is one correctly rounded conversion; the 2^-62 scale is exact. */
    float f = (float)v * 0x1p-62f;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

void sy_normal_table(uint32_t bits[512])
{
    for (unsigned i = 0; i < 256; i++) {
        unsigned q = i / 64, r = i % 64;
        int64_t c, s;
        cos_sin_q62(r, &c, &s);
        if (r == 0) { /* exact axes: never let the series leave a 1e-19 residue */
            c = 1ll << 62;
            s = 0;
        }
        int64_t x, y; /* rotate the first-quadrant value by q quarter turns */
        switch (q) {
        case 0:
            x = c, y = s;
            break;
        case 1:
            x = -s, y = c;
            break;
        case 2:
            x = -c, y = -s;
            break;
        default:
            x = s, y = -c;
            break;
        }
        bits[2 * i] = x == 0 ? 0 : q62_to_f32_bits(x);
        bits[2 * i + 1] = y == 0 ? 0 : q62_to_f32_bits(y);
    }
}

static void put_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

/* The ratchet executable (Wrench's read_ratchet_executable, src/core/elf.cpp;
 * docs/file_loading.md): a chain of {s32 dest_address, s32 copy_size, s32 section_type, s32
 * entry_point} headers, each followed by copy_size bytes, to the end of the overlay. R&C2 level
 * overlays have the seven sections of Wrench's DONOR_RAC_GC_UYA_LEVEL_ELF_HEADERS, in this order.
 */
#define OV_SECTIONS     7
#define OV_HEADER_BYTES 16u
#define OV_SHT_PROGBITS 1u
#define OV_SHT_NOBITS   8u
#define OV_LOAD_BASE    0x00300000u /* where the first section loads (EE RAM, ours) */
enum { OV_LIT = 0, OV_BSS, OV_DATA, OV_VTBL, OV_CAMVTBL, OV_SNDVTBL, OV_TEXT };
static const uint32_t ov_types[OV_SECTIONS] = {OV_SHT_PROGBITS, OV_SHT_NOBITS,   OV_SHT_PROGBITS,
                                               OV_SHT_PROGBITS, OV_SHT_PROGBITS, OV_SHT_PROGBITS,
                                               OV_SHT_PROGBITS};
/* Memory alignment of each section (the donor's sh_addralign; vtables 4 for 32-bit pointers). */
static const uint32_t ov_align[OV_SECTIONS] = {64, 64, 64, 4, 4, 4, 64};

/* One R5900-looking instruction word: the mix of a compiled function body; jal targets land in
 * the .text section [text_lo, text_lo + text_len). */
static uint32_t code_word(sy_rng *r, uint32_t text_lo, uint32_t text_len)
{
    uint32_t rs = sy_rng_below(r, 32), rt = sy_rng_below(r, 32), rd = sy_rng_below(r, 32);
    uint32_t imm = (uint32_t)sy_rng_below(r, 0x200) * 4;
    switch (sy_rng_below(r, 12)) {
    case 0:
        return 0x8C000000u | rs << 21 | rt << 16 | imm; /* lw */
    case 1:
        return 0xAC000000u | rs << 21 | rt << 16 | imm; /* sw */
    case 2:
        return 0x24000000u | rs << 21 | rt << 16 | (imm >> 2); /* addiu */
    case 3:
        return 0x00000021u | rs << 21 | rt << 16 | rd << 11; /* addu */
    case 4: {
        uint32_t target = text_lo + sy_rng_below(r, text_len / 4) * 4;
        return 0x0C000000u | ((target >> 2) & 0x3FFFFFFu); /* jal */
    }
    case 5:
        return 0x00000000u; /* nop (delay slot) */
    case 6:
        return 0x3C000000u | rt << 16 | (0x0010 + sy_rng_below(r, 0x30)); /* lui */
    case 7:
        return 0x34000000u | rs << 21 | rt << 16 | imm; /* ori */
    case 8:
        return 0x10000000u | rs << 21 | rt << 16 | (sy_rng_below(r, 64) + 1); /* beq */
    case 9:
        return 0xC4000000u | rs << 21 | rt << 16 | imm; /* lwc1 */
    case 10:
        return 0x46000002u | rt << 16 | rd << 11 | rs << 6; /* mul.s */
    default:
        return 0x7C000000u | rs << 21 | rt << 16 | imm; /* sq */
    }
}

/* Compiled functions (prologue, body, epilogue) over p[0, n). */
static void write_code(uint8_t *p, size_t n, sy_rng *r, uint32_t text_lo, uint32_t text_len)
{
    size_t i = 0;
    while (i < n) {
        uint32_t frame = 16 * (2 + sy_rng_below(r, 14));
        uint32_t pro[2] = {0x27BD0000u | (uint16_t)(0u - frame), 0xAFBF0000u | (frame - 4)};
        for (int w = 0; w < 2 && i < n; w++, i += 4)
            put_u32le(p + i, pro[w]);
        size_t body = 6 + sy_rng_below(r, 90);
        for (size_t w = 0; w < body && i < n; w++, i += 4)
            put_u32le(p + i, code_word(r, text_lo, text_len));
        uint32_t epi[4] = {0x8FBF0000u | (frame - 4), 0x03E00008u, 0x27BD0000u | frame, 0};
        for (int w = 0; w < 4 && i < n; w++, i += 4)
            put_u32le(p + i, epi[w]);
    }
}

int sy_overlay_write(const sy_ctx *c, sy_buf *out)
{
    size_t n = (size_t)c->plan->overlay_bytes, base = out->len;
    size_t table = c->plan->normal_table_offset, decoy = c->plan->decoy_offset;
    if (n % 4 || table % 4 || decoy % 4 || decoy + 16 > table || table + 2048 > n || decoy < 0x400)
        return -1;
    if (sy_buf_reserve(out, n) != 0)
        return -1;
    uint8_t *p = out->data + base;
    memset(p, 0, n);
    sy_rng r = sy_rng_make(c->seed, c->level, 0x0E71);
    /* File layout: each section's header, then its data. The normal table and its decoy sit in
     * .data, at the plan's offsets (the offsets the disc has are overlay offsets). */
    size_t hdr[OV_SECTIONS], len[OV_SECTIONS];
    hdr[OV_LIT] = 0;
    len[OV_LIT] = (decoy / 3) & ~(size_t)15;
    hdr[OV_BSS] = OV_HEADER_BYTES + len[OV_LIT];
    len[OV_BSS] = ((decoy - hdr[OV_BSS] - 64) / 2) & ~(size_t)15;
    hdr[OV_DATA] = hdr[OV_BSS] + OV_HEADER_BYTES + len[OV_BSS];
    len[OV_DATA] = (table + 2048 + 0x400 - hdr[OV_DATA] - OV_HEADER_BYTES) & ~(size_t)15;
    uint32_t nfun[3] = {16 + sy_rng_below(&r, 48), 4 + sy_rng_below(&r, 12),
                        4 + sy_rng_below(&r, 12)}; /* moby, camera, sound update functions */
    for (int k = OV_VTBL; k <= OV_SNDVTBL; k++) {
        hdr[k] = hdr[k - 1] + OV_HEADER_BYTES + len[k - 1];
        len[k] = 4u * nfun[k - OV_VTBL];
    }
    hdr[OV_TEXT] = hdr[OV_SNDVTBL] + OV_HEADER_BYTES + len[OV_SNDVTBL];
    if (hdr[OV_TEXT] + OV_HEADER_BYTES + 0x400 > n)
        return -1;
    len[OV_TEXT] = n - hdr[OV_TEXT] - OV_HEADER_BYTES; /* the chain ends at the overlay's end */
    /* Load addresses: in section order, each aligned as the donor says. */
    uint32_t addr[OV_SECTIONS], at = OV_LOAD_BASE;
    for (int k = 0; k < OV_SECTIONS; k++) {
        at = (at + ov_align[k] - 1) / ov_align[k] * ov_align[k];
        addr[k] = at;
        at += (uint32_t)len[k];
    }
    uint32_t text_lo = addr[OV_TEXT], text_len = (uint32_t)len[OV_TEXT];
    uint32_t entry = text_lo; /* startlevel: the first function of .text */
    for (int k = 0; k < OV_SECTIONS; k++) {
        uint8_t *h = p + hdr[k];
        put_u32le(h + 0x0, addr[k]);          /* dest_address */
        put_u32le(h + 0x4, (uint32_t)len[k]); /* copy_size */
        put_u32le(h + 0x8, ov_types[k]);      /* section_type (ELF sh_type) */
        put_u32le(h + 0xC, entry);            /* entry_point: the same in every header */
    }
    /* .lit: f32 constants of the literal pool. */
    uint8_t *lit = p + hdr[OV_LIT] + OV_HEADER_BYTES;
    for (size_t i = 0; i < len[OV_LIT]; i += 4)
        put_u32le(lit + i, 0x3F000000u + sy_rng_below(&r, 0x1000000));
    /* .bss stays zero (the image carries it as zeros). .data: code-like words with runs of
     * constants, the decoy and the normal table. */
    write_code(p + hdr[OV_DATA] + OV_HEADER_BYTES, len[OV_DATA], &r, text_lo, text_len);
    /* Decoy: angle zero on its own, followed by a pair that is not the next angle. */
    put_u32le(p + decoy, 0x3F800000u);
    put_u32le(p + decoy + 4, 0);
    put_u32le(p + decoy + 8, 0x3F000000u);  /* 0.5 */
    put_u32le(p + decoy + 12, 0x3E800000u); /* 0.25 */
    uint32_t bits[512];
    sy_normal_table(bits);
    for (unsigned k = 0; k < 512; k++)
        put_u32le(p + table + 4 * k, bits[k]);
    /* Vtables: update-function pointers into .text. */
    for (int k = OV_VTBL; k <= OV_SNDVTBL; k++)
        for (size_t i = 0; i < len[k]; i += 4)
            put_u32le(p + hdr[k] + OV_HEADER_BYTES + i,
                      text_lo + sy_rng_below(&r, text_len / 64) * 64);
    write_code(p + hdr[OV_TEXT] + OV_HEADER_BYTES, len[OV_TEXT], &r, text_lo, text_len);
    out->len = base + n;
    return 0;
}
