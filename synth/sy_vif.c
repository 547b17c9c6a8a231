/* SPDX-License-Identifier: MIT */
/* VIF1 code-word writer (see sy_vif.h). Encodings from formats.md §5.3. */
#include "sy_vif.h"

/* Command bytes (bits 24..31 of a code word). */
#define SY_VIF_CMD_NOP    0x00u
#define SY_VIF_CMD_STCYCL 0x01u
#define SY_VIF_CMD_STMOD  0x05u
#define SY_VIF_CMD_STMASK 0x20u
#define SY_VIF_CMD_STROW  0x30u
#define SY_VIF_CMD_STCOL  0x31u
#define SY_VIF_CMD_MPG    0x4Au
#define SY_VIF_CMD_DIRECT 0x50u
#define SY_VIF_CMD_UNPACK 0x60u
#define SY_VIF_UNPACK_FLG 0x8000u /* imm bit 15: add VIF1 TOPS */
#define SY_VIF_UNPACK_USN 0x4000u /* imm bit 14: zero-extend instead of sign-extend */

unsigned sy_vif_elem_bytes(unsigned vnvl)
{
    unsigned vn = (vnvl >> 2) & 3u, vl = vnvl & 3u;
    return ((32u >> vl) * (vn + 1u)) / 8u;
}

size_t sy_vif_unpack(sy_buf *b, unsigned vnvl, unsigned num, unsigned addr, int usn,
                     const void *payload)
{
    uint32_t imm = (addr & 0x3FFu) | SY_VIF_UNPACK_FLG | (usn ? SY_VIF_UNPACK_USN : 0u);
    sy_buf_u32(b, ((SY_VIF_CMD_UNPACK | (vnvl & 0xFu)) << 24) | ((num & 0xFFu) << 16) | imm);
    size_t at = b->len;
    size_t bytes = (size_t)num * sy_vif_elem_bytes(vnvl);
    sy_buf_put(b, payload, bytes);
    sy_buf_zero(b, (4u - bytes % 4u) % 4u); /* payloads pad to a 4-byte boundary */
    return at;
}

static void row(sy_buf *b, uint32_t cmd, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3)
{
    sy_buf_u32(b, cmd << 24);
    sy_buf_u32(b, r0);
    sy_buf_u32(b, r1);
    sy_buf_u32(b, r2);
    sy_buf_u32(b, r3);
}

void sy_vif_strow(sy_buf *b, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3)
{
    row(b, SY_VIF_CMD_STROW, r0, r1, r2, r3);
}

void sy_vif_stcol(sy_buf *b, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3)
{
    row(b, SY_VIF_CMD_STCOL, c0, c1, c2, c3);
}

void sy_vif_stmask(sy_buf *b, uint32_t mask)
{
    sy_buf_u32(b, SY_VIF_CMD_STMASK << 24);
    sy_buf_u32(b, mask);
}

void sy_vif_stmod(sy_buf *b, unsigned mode)
{
    sy_buf_u32(b, (SY_VIF_CMD_STMOD << 24) | (mode & 3u));
}

void sy_vif_stcycl(sy_buf *b, unsigned wl, unsigned cl)
{
    sy_buf_u32(b, (SY_VIF_CMD_STCYCL << 24) | ((wl & 0xFFu) << 8) | (cl & 0xFFu));
}

void sy_vif_nop(sy_buf *b)
{
    sy_buf_u32(b, SY_VIF_CMD_NOP << 24);
}

void sy_vif_mpg(sy_buf *b, size_t base, unsigned loadaddr, unsigned num, const uint32_t *words)
{
    /* The code word must sit at an odd word so the instructions start 8-aligned. */
    if (((b->len - base) / 4) % 2 == 0)
        sy_vif_nop(b);
    sy_buf_u32(b, (SY_VIF_CMD_MPG << 24) | ((num & 0xFFu) << 16) | (loadaddr & 0xFFFFu));
    for (unsigned i = 0; i < 2u * num; i++)
        sy_buf_u32(b, words[i]);
}

void sy_vif_direct(sy_buf *b, size_t base, unsigned qwc, const uint32_t *words)
{
    /* The code word must be the last word of a qw so the GIF data starts 16-aligned. */
    while (((b->len - base) / 4) % 4 != 3)
        sy_vif_nop(b);
    sy_buf_u32(b, (SY_VIF_CMD_DIRECT << 24) | (qwc & 0xFFFFu));
    for (unsigned i = 0; i < 4u * qwc; i++)
        sy_buf_u32(b, words[i]);
}

void sy_vif_align16(sy_buf *b, size_t base)
{
    while ((b->len - base) % 16)
        sy_vif_nop(b);
}
