/* SPDX-License-Identifier: MIT */
/* Growable byte buffer. */
#include "sy_buf.h"

#include <stdlib.h>
#include <string.h>

void sy_buf_init(sy_buf *b)
{
    memset(b, 0, sizeof *b);
}

void sy_buf_free(sy_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

int sy_buf_reserve(sy_buf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (n <= b->cap - b->len)
        return 0;
    size_t need = b->len + n;
    if (need < b->len) {
        b->failed = 1;
        return -1;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void sy_buf_put(sy_buf *b, const void *p, size_t n)
{
    if (n == 0 || sy_buf_reserve(b, n) != 0)
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void sy_buf_u8(sy_buf *b, uint8_t v)
{
    sy_buf_put(b, &v, 1);
}

void sy_buf_u16(sy_buf *b, uint16_t v)
{
    uint8_t t[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    sy_buf_put(b, t, 2);
}

void sy_buf_u32(sy_buf *b, uint32_t v)
{
    uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    sy_buf_put(b, t, 4);
}

void sy_buf_f32(sy_buf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    sy_buf_u32(b, u);
}

void sy_buf_zero(sy_buf *b, size_t n)
{
    if (n == 0 || sy_buf_reserve(b, n) != 0)
        return;
    memset(b->data + b->len, 0, n);
    b->len += n;
}

void sy_buf_align(sy_buf *b, size_t align)
{
    if (align > 1 && b->len % align)
        sy_buf_zero(b, align - b->len % align);
}

void sy_buf_set_u32(sy_buf *b, size_t pos, uint32_t v)
{
    if (b->failed || pos + 4 > b->len)
        return;
    b->data[pos] = (uint8_t)v;
    b->data[pos + 1] = (uint8_t)(v >> 8);
    b->data[pos + 2] = (uint8_t)(v >> 16);
    b->data[pos + 3] = (uint8_t)(v >> 24);
}

void sy_buf_set_u16(sy_buf *b, size_t pos, uint16_t v)
{
    if (b->failed || pos + 2 > b->len)
        return;
    b->data[pos] = (uint8_t)v;
    b->data[pos + 1] = (uint8_t)(v >> 8);
}
