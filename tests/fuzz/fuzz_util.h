/* SPDX-License-Identifier: MIT */
/* What the fuzz targets of files a user hands gcverify share: the contract check, the
 * input as a C string, and one scratch file a run rewrites for every input. Header only:
 * every target is built twice, as a libFuzzer binary and as its replay test. */
#ifndef GC_FUZZ_UTIL_H
#define GC_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A broken contract is a crash, which both engines report with the input. */
static inline void fuzz_check(int cond)
{
    if (!cond)
        abort();
}

/* The input as a NUL-terminated string (malloc'd). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    fuzz_check(text != NULL);
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

/* The run's scratch file, $TMPDIR (else /tmp)/gcverify-fuzz-<tag>-<pid>.<ext>. */
static inline const char *fuzz_scratch_path(const char *tag, const char *ext)
{
    static char path[1024];
    if (!path[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/gcverify-fuzz-%s-%ld.%s", tmp && *tmp ? tmp : "/tmp", tag,
                 (long)getpid(), ext);
    }
    return path;
}

/* Replace the file at path with n bytes. */
static inline void fuzz_write(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    fuzz_check(f != NULL);
    fuzz_check(n == 0 || fwrite(bytes, 1, n, f) == n);
    fuzz_check(fclose(f) == 0);
}

#endif
