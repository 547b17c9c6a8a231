/* SPDX-License-Identifier: MIT */
/* Status names and the breadcrumb diagnostic. */
#include "gc_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *gc_status_name(gc_status s)
{
    static const char *const names[GC_STATUS_COUNT] = {
        [GC_OK] = "ok",
        [GC_E_TRUNCATED] = "truncated",
        [GC_E_MAGIC] = "bad_magic",
        [GC_E_RANGE] = "out_of_range",
        [GC_E_CORRUPT] = "corrupt",
        [GC_E_UNSUPPORTED] = "unsupported",
        [GC_E_NOMEM] = "no_memory",
        [GC_E_IO] = "io",
        [GC_E_INTERNAL] = "internal",
    };
    if ((unsigned)s >= GC_STATUS_COUNT)
        return "?";
    return names[s];
}

void gc_diag_init(gc_diag *d)
{
    memset(d, 0, sizeof *d);
}

/* The bookkeeping of a push: remember where this level's text starts (so a
 * pop restores it), count the depth even past the limit (so pops balance),
 * and append the '/' separator. Returns the room left for the level's text,
 * terminator included; 0 or 1 means the text is dropped (too deep or full). */
static size_t diag_open(gc_diag *d)
{
    if (d->depth < GC_DIAG_DEPTH_MAX)
        d->mark[d->depth] = d->path_len;
    d->depth++;
    if (d->depth > GC_DIAG_DEPTH_MAX)
        return 0;
    size_t room = sizeof d->path - d->path_len;
    if (room <= 1)
        return room;
    if (d->path_len > 0) {
        d->path[d->path_len++] = '/';
        d->path[d->path_len] = '\0';
        room--;
    }
    return room;
}

void gc_diag_push(gc_diag *d, const char *fmt, ...)
{
    size_t room = diag_open(d);
    if (room <= 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(d->path + d->path_len, room, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    d->path_len += (size_t)n < room ? (size_t)n : room - 1;
}

void gc_diag_push_index(gc_diag *d, const char *name, uint32_t index)
{
    /* gc_diag_push's bookkeeping, then the text "name[index]" appended as
     * vsnprintf would (cut at the buffer's end) */
    size_t room = diag_open(d);
    if (room <= 1)
        return;
    char digits[12];
    size_t k = 0;
    digits[k++] = ']';
    do {
        digits[k++] = (char)('0' + index % 10u);
        index /= 10u;
    } while (index);
    digits[k++] = '[';
    size_t n = strlen(name);
    for (size_t i = 0; i < n && room > 1; i++, room--)
        d->path[d->path_len++] = name[i];
    while (k && room > 1) {
        d->path[d->path_len++] = digits[--k];
        room--;
    }
    d->path[d->path_len] = '\0';
}

void gc_diag_pop(gc_diag *d)
{
    if (d->depth == 0)
        return;
    d->depth--;
    if (d->depth < GC_DIAG_DEPTH_MAX) {
        d->path_len = d->mark[d->depth];
        d->path[d->path_len] = '\0';
    }
}

gc_status gc_diag_set(gc_diag *d, gc_status s, uint64_t file_ofs, const char *fmt, ...)
{
    if (s == GC_OK || d->status != GC_OK)
        return s;
    d->status = s;
    d->file_ofs = file_ofs;
    memcpy(d->where, d->path, d->path_len + 1);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    return s;
}

void gc_diag_clear(gc_diag *d)
{
    d->status = GC_OK;
    d->file_ofs = 0;
    d->where[0] = '\0';
    d->msg[0] = '\0';
}
