/* SPDX-License-Identifier: MIT */
/* Out-of-line parts of the bounds-checked reader. */
#include "gc_reader.h"

bool gc_bytes(gc_reader *r, void *dst, size_t n)
{
    const uint8_t *p = gc_take(r, n);
    if (!p) {
        if (n)
            memset(dst, 0, n);
        return false;
    }
    if (n)
        memcpy(dst, p, n);
    return true;
}

uint8_t gc_peek_u8(gc_reader *r, size_t ahead)
{
    if (r->overrun || ahead >= r->size - r->pos) {
        r->overrun = true;
        return 0;
    }
    return r->data[r->pos + ahead];
}

uint32_t gc_peek_u32le(gc_reader *r, size_t ahead)
{
    if (r->overrun || r->size - r->pos < 4 || ahead > r->size - r->pos - 4) {
        r->overrun = true;
        return 0;
    }
    return gc_load_u32le(r->data + r->pos + ahead);
}

/* The external definitions of the header's inline functions (C11 6.7.4). */
extern inline gc_reader gc_reader_make(const uint8_t *data, size_t size, uint64_t file_ofs);
extern inline bool gc_skip(gc_reader *r, size_t n);
extern inline bool gc_seek(gc_reader *r, size_t pos);
extern inline bool gc_range_ok(size_t ofs, size_t len, size_t size);
extern inline gc_reader gc_window(gc_reader *r, size_t ofs, size_t len);
extern inline gc_reader gc_take_window(gc_reader *r, size_t len);

bool gc_size_add(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a)
        return false;
    *out = a + b;
    return true;
}

bool gc_size_mul(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return false;
    *out = a * b;
    return true;
}

bool gc_size_mad(size_t a, size_t b, size_t c, size_t *out)
{
    size_t m;
    return gc_size_mul(a, b, &m) && gc_size_add(m, c, out);
}
