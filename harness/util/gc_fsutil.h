/* SPDX-License-Identifier: MIT */
/* File helpers for the harness. Every file gcverify writes goes through
 * gc_write_file_atomic (docs/golden.md "How files are written"):
 *  - "-" means standard output;
 *  - a symlink is followed: its target is written, the link stays;
 *  - an existing regular file, or a missing one, is replaced atomically:
 *    temp file beside the target, fsync, rename, fsync of the directory, so
 *    a reader or a crash sees the old bytes or the new ones, never a mix;
 *  - an existing character device or FIFO (/dev/null, /dev/stdout, a pipe)
 *    is written through, never replaced by a regular file;
 *  - a directory, block device or socket is refused. */
#ifndef GC_FSUTIL_H
#define GC_FSUTIL_H

#include <stddef.h>

/* Write len bytes to path as described above. 0 or -1 (err filled). */
int gc_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);
/* Write len bytes to stdout and flush; 0 or -1 (err filled). */
int gc_write_stdout(const void *data, size_t len, char *err, size_t errlen);

/* The two halves of an atomic replace, for writers that must replace
 * several files as one transaction (bless). gc_stage_file resolves path
 * (following symlinks; a non-regular target is refused), writes data to a
 * fresh temp file beside it and fsyncs it; final and tmp receive the
 * resolved target and the temp path. gc_commit_file renames tmp over final
 * and fsyncs the directory. 0 or -1. */
int gc_stage_file(const char *path, const void *data, size_t len, char *final, size_t finallen,
                  char *tmp, size_t tmplen, char *err, size_t errlen);
int gc_commit_file(const char *tmp, const char *final, char *err, size_t errlen);
/* fsync the directory that holds path. 0 or -1 (errno). */
int gc_fsync_parent(const char *path);
/* Resolve symlinks of path (the last component may be missing). 0 or -1. */
int gc_resolve_path(const char *path, char *out, size_t outlen, char *err, size_t errlen);
/* Is name a temp file that gc_write_file_atomic leaves for target base name
 * `base` ("metrics.yaml.tmp.<pid>.<n>")? */
int gc_is_temp_of(const char *name, const char *base);

/* Read a whole file (NUL-terminated copy, *len without the NUL). NULL on failure. */
char *gc_read_file(const char *path, size_t *len, char *err, size_t errlen);
/* mkdir -p; an existing non-directory on the way is an error. 0 or -1. */
int gc_mkdir_p(const char *dir, char *err, size_t errlen);
/* rm -rf of a directory tree we created (no symlink following). */
void gc_rm_rf(const char *path);

/* Flush and close stdout, reporting a failed write (ENOSPC, EIO, EPIPE):
 * every command's output is checked once more at exit. 0 or -1 (err). */
int gc_close_stdout(char *err, size_t errlen);

#endif
