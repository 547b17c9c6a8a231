/* SPDX-License-Identifier: MIT */
/* Growable byte buffer with little-endian writers, for the synthetic corpus. */
#ifndef SY_BUF_H
#define SY_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct sy_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    int failed; /* sticky: an allocation failed; further writes are dropped */
} sy_buf;

void sy_buf_init(sy_buf *b);
void sy_buf_free(sy_buf *b);
/* Make room for n more bytes; 0 or -1 (sets failed). */
int sy_buf_reserve(sy_buf *b, size_t n);
void sy_buf_put(sy_buf *b, const void *p, size_t n);
void sy_buf_u8(sy_buf *b, uint8_t v);
void sy_buf_u16(sy_buf *b, uint16_t v);
void sy_buf_u32(sy_buf *b, uint32_t v);
void sy_buf_f32(sy_buf *b, float v);
void sy_buf_zero(sy_buf *b, size_t n);
/* Zero-pad to a multiple of `align` (a power of two or any positive value). */
void sy_buf_align(sy_buf *b, size_t align);
/* Overwrite at an existing position (pos + width <= len). */
void sy_buf_set_u32(sy_buf *b, size_t pos, uint32_t v);
void sy_buf_set_u16(sy_buf *b, size_t pos, uint16_t v);

#endif
