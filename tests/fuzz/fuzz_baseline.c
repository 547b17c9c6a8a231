/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the baseline readers (harness/golden/baseline.c): a
 * baseline is a file a user hands the sweep (`--baseline F`), and three
 * readers take it: the line reader for the layout gc_baseline_format writes,
 * the libyaml event-stream reader when the line reader gives up, and the
 * libyaml document reader when both give up (gc_baseline_load_tree, which
 * also stands alone). Also built as the replay test replay_baseline over
 * tests/fuzz/corpus/baseline/.
 *
 * Input: the file's bytes. Beyond "no crash, no out-of-bounds access, no
 * leak" (ASan, UBSan, LSan) it checks the readers' contract, differentially:
 * gc_baseline_load and gc_baseline_load_tree return the same status, the
 * same "found", and the same baseline or the same error text; a file the
 * line reader takes reads the same through the tree reader; a refused one
 * leaves nothing allocated. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "gc_baseline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_digests(const gc_rep_digest *a, const gc_rep_digest *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fuzz_check(a[i].level == b[i].level);
        fuzz_check(strcmp(a[i].field, b[i].field) == 0);
        fuzz_check(a[i].rows == b[i].rows);
        fuzz_check(strcmp(a[i].digest, b[i].digest) == 0);
    }
}

static void same_baseline(const gc_baseline *a, const gc_baseline *b)
{
    fuzz_check(strcmp(a->corpus_key, b->corpus_key) == 0);
    fuzz_check(strcmp(a->corpus_id, b->corpus_id) == 0);
    fuzz_check(a->count == b->count);
    for (size_t i = 0; i < a->count; i++) {
        fuzz_check(a->metrics[i].level == b->metrics[i].level);
        fuzz_check(strcmp(a->metrics[i].name, b->metrics[i].name) == 0);
        fuzz_check(a->metrics[i].is_null == b->metrics[i].is_null);
        fuzz_check(memcmp(&a->metrics[i].value, &b->metrics[i].value, sizeof(double)) == 0);
    }
    fuzz_check(a->digest_count == b->digest_count);
    same_digests(a->digests, b->digests, a->digest_count);
    fuzz_check(a->table_digest_count == b->table_digest_count);
    same_digests(a->table_digests, b->table_digests, a->table_digest_count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1u << 16)
        return 0;
    const char *path = fuzz_scratch_path("baseline", "yaml");
    fuzz_write(path, data, size);

    gc_baseline a, b, l;
    int fa = -1, fb = -1;
    char ea[512] = "", eb[512] = "";
    const int ra = gc_baseline_load(path, &a, &fa, ea, sizeof ea);
    const int rb = gc_baseline_load_tree(path, &b, &fb, eb, sizeof eb);
    fuzz_check(ra == rb);
    fuzz_check(fa == fb);
    if (ra == 0)
        same_baseline(&a, &b);
    else
        fuzz_check(strcmp(ea, eb) == 0 && ea[0] != '\0');

    const int rl = gc_baseline_load_lines(path, &l);
    fuzz_check(rl == 0 || rl == 1);
    if (rl == 1) {
        fuzz_check(rb == 0 && fb == 1);
        same_baseline(&l, &b);
    } else {
        fuzz_check(l.count == 0 && l.metrics == NULL && l.digest_count == 0 && l.digests == NULL &&
                   l.table_digest_count == 0 && l.table_digests == NULL);
    }
    gc_baseline_free(&a);
    gc_baseline_free(&b);
    gc_baseline_free(&l);
    unlink(path);
    return 0;
}
