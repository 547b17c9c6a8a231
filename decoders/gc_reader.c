/* SPDX-License-Identifier: MIT */
/* Out-of-line parts of the bounds-checked reader. */
#include "gc_reader.h"

gc_reader gc_reader_make(const uint8_t *data, size_t size, uint64_t file_ofs)
{
    gc_reader r = {
        .data = data, .size = data ? size : 0, .pos = 0, .file_ofs = file_ofs, .overrun = false};
    return r;
}

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

bool gc_skip(gc_reader *r, size_t n)
{
    return gc_take(r, n) != NULL;
}

bool gc_seek(gc_reader *r, size_t pos)
{
    if (r->overrun || pos > r->size) {
        r->overrun = true;
        return false;
    }
    r->pos = pos;
    return true;
}

bool gc_range_ok(size_t ofs, size_t len, size_t size)
{
    return ofs <= size && len <= size - ofs;
}

gc_reader gc_window(gc_reader *r, size_t ofs, size_t len)
{
    gc_reader w = {.data = r->data, .size = 0, .pos = 0, .file_ofs = r->file_ofs, .overrun = true};
    if (r->overrun || !gc_range_ok(ofs, len, r->size)) {
        r->overrun = true;
        return w;
    }
    w.data = r->data + ofs;
    w.size = len;
    w.file_ofs = r->file_ofs + ofs;
    w.overrun = false;
    return w;
}

gc_reader gc_take_window(gc_reader *r, size_t len)
{
    gc_reader w = gc_window(r, r->pos, len);
    if (!w.overrun)
        r->pos += len;
    return w;
}

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
