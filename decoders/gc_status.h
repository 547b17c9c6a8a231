/* SPDX-License-Identifier: MIT */
/* Status codes and the per-job diagnostic. Every decoder function that can
 * fail returns a gc_status; the detail (file offset, breadcrumb path, message)
 * goes into the gc_diag owned by the caller's job. No globals, no errno. */
#ifndef GC_STATUS_H
#define GC_STATUS_H

#include <stddef.h>
#include <stdint.h>

typedef enum gc_status {
    GC_OK = 0,
    GC_E_TRUNCATED,   /* input ended inside a field or a declared range */
    GC_E_MAGIC,       /* wrong signature: not this format at all */
    GC_E_RANGE,       /* a value outside what the format can hold (count, size, offset) */
    GC_E_CORRUPT,     /* internally inconsistent (bad back-reference, desynchronised walk) */
    GC_E_UNSUPPORTED, /* plausibly valid, not implemented */
    GC_E_NOMEM,       /* an allocation failed */
    GC_E_IO,          /* the operating system refused a read or a map */
    GC_E_INTERNAL,    /* a bug caught at run time; never caused by input */
    GC_STATUS_COUNT
} gc_status;

/* "ok", "truncated", "bad_magic", "out_of_range", "corrupt", "unsupported",
 * "no_memory", "io", "internal"; "?" for a value outside the enum. */
const char *gc_status_name(gc_status s);

#define GC_DIAG_PATH_MAX  256
#define GC_DIAG_MSG_MAX   256
#define GC_DIAG_DEPTH_MAX 24

/* First error wins: once status != GC_OK later errors do not overwrite it.
 * The breadcrumb stack is pushed/popped around structures being decoded;
 * when an error is set the current path is copied into `where`. */
typedef struct gc_diag {
    gc_status status;             /* GC_OK until the first error */
    uint64_t file_ofs;            /* absolute offset of the offending byte */
    char where[GC_DIAG_PATH_MAX]; /* breadcrumb at the error:
                                     "LEVEL3.WAD/data/core_data/tfrag[17]/vif@0x1a4" */
    char msg[GC_DIAG_MSG_MAX]; /* human message: "unpack of 75 elements runs 12 bytes past the list"
                                */
    /* live breadcrumb stack */
    char path[GC_DIAG_PATH_MAX];
    size_t path_len;
    size_t depth;
    size_t mark[GC_DIAG_DEPTH_MAX]; /* path_len before each push */
} gc_diag;

void gc_diag_init(gc_diag *d);
/* Push one breadcrumb component ("tfrag[17]"); '/' is added between components.
 * Components past GC_DIAG_DEPTH_MAX or the path buffer are truncated, never overflowed. */
void gc_diag_push(gc_diag *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* gc_diag_push(d, "%s[%u]", name, index) without the printf machinery: the
 * same text (truncated the same way), for breadcrumbs pushed once per
 * packet or patch (the moby and tfrag decoders push ~60,000 a retail
 * corpus, at ~750 instructions each through vsnprintf). */
void gc_diag_push_index(gc_diag *d, const char *name, uint32_t index);
void gc_diag_pop(gc_diag *d);
/* Record an error (first one wins) and return `s` so callers can
 * `return gc_diag_set(...)`. Setting GC_OK is a no-op returning GC_OK. */
gc_status gc_diag_set(gc_diag *d, gc_status s, uint64_t file_ofs, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Clear the error (not the breadcrumb stack). */
void gc_diag_clear(gc_diag *d);

#endif
