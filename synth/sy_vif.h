/* SPDX-License-Identifier: MIT */
/* VIF1 code-word writer for the synthetic corpus: UNPACK with padded payloads and the
 * non-unpack codes (STROW, STCOL, STMASK, STMOD, STCYCL, NOP, MPG, DIRECT) a reader must skip.
 * Written from formats.md §5.3 / level-assets.md "The VIF1 code word"; shares nothing with
 * decoders/. */
#ifndef SY_VIF_H
#define SY_VIF_H

#include <stddef.h>
#include <stdint.h>

#include "sy_buf.h"

/* UNPACK vnvl codes: bits 2-3 vn (components - 1), bits 0-1 vl (0 = 32, 1 = 16, 2 = 8 bit). */
enum {
    SY_VIF_S_32 = 0x0,
    SY_VIF_V2_16 = 0x5,
    SY_VIF_V3_16 = 0x9,
    SY_VIF_V4_32 = 0xC,
    SY_VIF_V4_16 = 0xD,
    SY_VIF_V4_8 = 0xE
};

/* Bytes per element of a vnvl format: ((32 >> vl) * (vn + 1)) / 8. */
unsigned sy_vif_elem_bytes(unsigned vnvl);

/* UNPACK of `num` (1..256) elements to VU qw address `addr`, flg = 1; usn 1 = unsigned.
 * `payload` holds num * elem_bytes bytes; it is zero-padded to a 4-byte boundary.
 * Returns the offset of the payload in b (for tex_ofs-style pointers). */
size_t sy_vif_unpack(sy_buf *b, unsigned vnvl, unsigned num, unsigned addr, int usn,
                     const void *payload);
void sy_vif_strow(sy_buf *b, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3);
void sy_vif_stcol(sy_buf *b, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3);
void sy_vif_stmask(sy_buf *b, uint32_t mask);
void sy_vif_stmod(sy_buf *b, unsigned mode);
void sy_vif_stcycl(sy_buf *b, unsigned wl, unsigned cl);
void sy_vif_nop(sy_buf *b);
/* MPG: `num` (1..256) 64-bit VU micro instructions loaded at micro address `loadaddr`.
 * Pads with NOPs first so the instruction data is 8-byte aligned relative to `base`. */
void sy_vif_mpg(sy_buf *b, size_t base, unsigned loadaddr, unsigned num, const uint32_t *words);
/* DIRECT: `qwc` (1..65535) quadwords of GIF data to PATH2. Pads with NOPs first so the data
 * is 16-byte aligned relative to `base`. */
void sy_vif_direct(sy_buf *b, size_t base, unsigned qwc, const uint32_t *words);
/* Zero (NOP) words up to a 16-byte boundary relative to `base`. */
void sy_vif_align16(sy_buf *b, size_t base);

#endif
