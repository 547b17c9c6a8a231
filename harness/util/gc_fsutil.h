/* SPDX-License-Identifier: MIT */
/* File helpers for the harness: atomic writes (temp file + rename, so a
 * reader never sees a half-written golden, baseline, report or image). */
#ifndef GC_FSUTIL_H
#define GC_FSUTIL_H

#include <stddef.h>

/* Write len bytes to path via path.tmp.<pid>.<n> + fsync + rename. 0 or -1 (err filled). */
int gc_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);
/* Read a whole file (NUL-terminated copy, *len without the NUL). NULL on failure. */
char *gc_read_file(const char *path, size_t *len, char *err, size_t errlen);
/* mkdir -p. 0 or -1. */
int gc_mkdir_p(const char *dir, char *err, size_t errlen);
/* rm -rf of a directory tree we created (no symlink following). */
void gc_rm_rf(const char *path);

#endif
