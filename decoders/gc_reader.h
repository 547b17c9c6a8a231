/* SPDX-License-Identifier: MIT */
/* Bounds-checked little-endian reader over a byte window.
 *
 * Every read from a file goes through this. A read past the end claims
 * nothing, returns 0 and sets the sticky `overrun` flag, so a batch of reads
 * can be followed by one check. Sub-windows carry the absolute file offset of
 * their first byte, so any error can name the file offset of the bad byte.
 * Never cast a file buffer to a struct pointer. */
#ifndef GC_READER_H
#define GC_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct gc_reader {
    const uint8_t *data; /* first byte of this window */
    size_t size;         /* bytes in the window */
    size_t pos;          /* cursor, always <= size */
    uint64_t file_ofs;   /* absolute file offset of data[0] */
    bool overrun;        /* sticky: set by the first read/seek/window past the end */
} gc_reader;

/* A reader over [data, data+size) whose first byte sits at file offset `file_ofs`. */
inline gc_reader gc_reader_make(const uint8_t *data, size_t size, uint64_t file_ofs)
{
    gc_reader r = {
        .data = data, .size = data ? size : 0, .pos = 0, .file_ofs = file_ofs, .overrun = false};
    return r;
}

static inline size_t gc_left(const gc_reader *r)
{
    return r->size - r->pos;
}
static inline size_t gc_tell(const gc_reader *r)
{
    return r->pos;
}
/* Absolute file offset of the cursor. */
static inline uint64_t gc_tell_file(const gc_reader *r)
{
    return r->file_ofs + r->pos;
}

/* Claims n bytes; on failure sets the sticky flag, leaves pos alone, returns NULL. */
static inline const uint8_t *gc_take(gc_reader *r, size_t n)
{
    if (r->overrun || r->size - r->pos < n) {
        r->overrun = true;
        return NULL;
    }
    const uint8_t *p = r->data + r->pos;
    r->pos += n;
    return p;
}

static inline uint8_t gc_u8(gc_reader *r)
{
    const uint8_t *p = gc_take(r, 1);
    return p ? p[0] : 0;
}
static inline uint16_t gc_u16le(gc_reader *r)
{
    const uint8_t *p = gc_take(r, 2);
    return p ? (uint16_t)(p[0] | (uint16_t)p[1] << 8) : 0;
}
static inline int16_t gc_s16le(gc_reader *r)
{
    return (int16_t)gc_u16le(r);
}
static inline uint32_t gc_u32le(gc_reader *r)
{
    const uint8_t *p = gc_take(r, 4);
    return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
             : 0;
}
static inline int32_t gc_s32le(gc_reader *r)
{
    return (int32_t)gc_u32le(r);
}
static inline int8_t gc_s8(gc_reader *r)
{
    return (int8_t)gc_u8(r);
}
static inline float gc_f32le(gc_reader *r)
{
    uint32_t u = gc_u32le(r);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
/* Copies n bytes into dst (zero-filled on overrun). */
bool gc_bytes(gc_reader *r, void *dst, size_t n);

/* Peeks do not move the cursor; a peek past the end returns 0 and sets overrun. */
uint8_t gc_peek_u8(gc_reader *r, size_t ahead);
uint32_t gc_peek_u32le(gc_reader *r, size_t ahead);

/* Moves the cursor; past the end sets overrun and leaves pos unchanged.
 * (gc_take's test restated: an external inline function may not call a
 * static one.) */
inline bool gc_skip(gc_reader *r, size_t n)
{
    if (r->overrun || r->size - r->pos < n) {
        r->overrun = true;
        return false;
    }
    r->pos += n;
    return true;
}
inline bool gc_seek(gc_reader *r, size_t pos)
{
    if (r->overrun || pos > r->size) {
        r->overrun = true;
        return false;
    }
    r->pos = pos;
    return true;
}

/* True when [ofs, ofs+len) lies inside [0, size) (no overflow). Inline (C11
 * `inline`, external definition in gc_reader.c) like gc_window below: the
 * decoders open millions of small windows per corpus (the moby decoder one
 * per vertex), and the call cost 48 instructions each. */
inline bool gc_range_ok(size_t ofs, size_t len, size_t size)
{
    return ofs <= size && len <= size - ofs;
}

/* Window over [ofs, ofs+len) of r (relative to r->data, not the cursor).
 * Out of range: returns an empty window with overrun set, and sets r->overrun.
 * The range check cannot overflow. */
inline gc_reader gc_window(gc_reader *r, size_t ofs, size_t len)
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
/* Window of the next len bytes at the cursor, advancing past them. */
inline gc_reader gc_take_window(gc_reader *r, size_t len)
{
    gc_reader w = gc_window(r, r->pos, len);
    if (!w.overrun)
        r->pos += len;
    return w;
}

/* Reads of a value at a fixed position without a reader (for peeking into
 * buffers already checked to hold them). */
static inline uint32_t gc_load_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint16_t gc_load_u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

/* Overflow-checked size arithmetic: *out = a*b + c, false on overflow. */
bool gc_size_mad(size_t a, size_t b, size_t c, size_t *out);
bool gc_size_add(size_t a, size_t b, size_t *out);
bool gc_size_mul(size_t a, size_t b, size_t *out);

#endif
