/* SPDX-License-Identifier: MIT */
/* libgcformats: the decoders of gcverify as a library (docs/library.md).
 *
 *   #include <gcformats/gcformats.h>
 *   cc app.c $(pkg-config --cflags --libs gcformats)
 *
 * A level file (LEVEL<n>.WAD) is decoded from bytes you hold into typed
 * tables; each table's columns are described by data (gc_table.h), so a tool
 * can list, print or check them without knowing each format. Errors are a
 * status plus a diagnostic (file offset, breadcrumb), never a crash, on any
 * input. The library never prints, allocates only what a checked size from
 * the file allows, and depends on libc and libm only. Its large blocks come
 * from gc_bigmem.h, which keeps freed ones for reuse within a bound
 * (gc_big_trim gives them back). */
#ifndef GCFORMATS_H
#define GCFORMATS_H

/* The headers below are C; a C++ tool includes them through this one. */
#ifdef __cplusplus
extern "C" {
#endif

#include "gc_bigmem.h"  /* the large blocks of rows and streams: gc_big_free, gc_big_trim */
#include "gc_level.h"   /* gc_level_init / gc_level_decode / gc_level_tables / gc_level_free */
#include "gc_lz.h"      /* WAD-LZ streams: size and decompression */
#include "gc_reader.h"  /* the bounds-checked little-endian reader the decoders use */
#include "gc_status.h"  /* gc_status, gc_diag */
#include "gc_table.h"   /* table and column descriptors, gc_table_registry() */
#include "gc_texture.h" /* texture slot -> RGBA8 */

/* The library's version, "MAJOR.MINOR.PATCH" (the gcverify release it came with). */
const char *gc_formats_version(void);

#ifdef __cplusplus
}
#endif

#endif
