/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the golden frames file (harness/golden/golden_frames.c,
 * `--frames-golden F`, docs/golden.md): a file the sweep and bless read and
 * write. Also built as the replay test replay_frames over
 * tests/fuzz/corpus/frames/.
 *
 * Input: the file's bytes. Beyond "no crash, no out-of-bounds access, no
 * leak" (ASan, UBSan, LSan) it checks the contract: a refused file says why
 * and names the file; an accepted one is formatted by the writer into a text
 * that loads back and formats to the same bytes (bless writes what the sweep
 * reads), with every entry still found. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "gc_golden_frames.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1u << 16)
        return 0;
    const char *path = fuzz_scratch_path("frames", "yaml");
    fuzz_write(path, data, size);
    gc_golden_frames g;
    char err[1024] = "";
    if (gc_golden_frames_load(path, &g, err, sizeof err) != 0) {
        fuzz_check(err[0] != '\0' && memchr(err, '\0', sizeof err) != NULL);
        fuzz_check(strstr(err, path) != NULL);
        gc_golden_frames_free(&g);
        unlink(path);
        return 0;
    }
    size_t n1 = 0, n2 = 0;
    char *t1 = gc_golden_frames_format(&g, &n1, err, sizeof err);
    fuzz_check(t1 != NULL);
    fuzz_write(path, t1, n1);
    gc_golden_frames back;
    fuzz_check(gc_golden_frames_load(path, &back, err, sizeof err) == 0);
    fuzz_check(back.count == g.count);
    for (size_t i = 0; i < g.count; i++) {
        const gc_golden_frame *e = gc_golden_frames_find(&back, g.v[i].level, g.v[i].view);
        fuzz_check(e != NULL);
        fuzz_check(strcmp(e->sha256, g.v[i].sha256) == 0 &&
                   strcmp(e->manifest, g.v[i].manifest) == 0);
    }
    char *t2 = gc_golden_frames_format(&back, &n2, err, sizeof err);
    fuzz_check(t2 != NULL && n1 == n2 && memcmp(t1, t2, n1) == 0);
    free(t1);
    free(t2);
    gc_golden_frames_free(&back);
    gc_golden_frames_free(&g);
    unlink(path);
    return 0;
}
