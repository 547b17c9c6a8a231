/* SPDX-License-Identifier: MIT */
/* Replays a fuzz corpus without a fuzzing engine (zstd's regression driver,
 * SQLite's fuzzcheck): calls LLVMFuzzerTestOneInput on every regular file in
 * the directory argv[1], in byte order of the file names, so any compiler can
 * run the corpus as an ordinary ctest test. A crash or abort fails the test;
 * a missing or empty corpus is an error too, since replaying nothing proves
 * nothing. Each input is copied into a buffer of exactly its size, so ASan
 * catches a target that reads past it. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            uint8_t *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (!buf || err) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        return -1;
    }
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        fprintf(stderr, "replay: cannot open corpus directory %s\n", argv[1]);
        return 1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(argv[1]) + 1 + strlen(e->d_name) + 1;
        char *path = malloc(len);
        if (!path)
            return 1;
        snprintf(path, len, "%s/%s", argv[1], e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            char **p = realloc(names, cap * sizeof *names);
            if (!p)
                return 1;
            names = p;
        }
        names[count++] = path;
    }
    closedir(dir);
    if (count == 0) {
        fprintf(stderr, "replay: no corpus files in %s\n", argv[1]);
        return 1;
    }
    qsort(names, count, sizeof *names, by_name);
    size_t passed = 0, failed = 0;
    for (size_t i = 0; i < count; i++) {
        if (replay_file(names[i]) == 0)
            passed++;
        else
            failed++;
        free(names[i]);
    }
    free(names);
    printf("replay: %zu passed, %zu failed\n", passed, failed);
    return failed ? 1 : 0;
}
