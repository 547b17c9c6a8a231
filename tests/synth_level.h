/* SPDX-License-Identifier: MIT */
/* One synthetic level built by synth/ and decoded, for tests that need a
 * real retail-shaped level rather than the hand-built fixture of
 * dec_fixture.h (test_memory.c, test_determinism.c). */
#ifndef SYNTH_LEVEL_H
#define SYNTH_LEVEL_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "gc_level.h"
#include "sy_corpus.h"

/* Builds small-scale level n (seed 1) into *b and decodes it into *lv; the
 * caller frees both (gc_level_free, sy_buf_free). */
static inline void synth_level_decode_small(int n, sy_buf *b, gc_level *lv)
{
    sy_options opt = {SY_SCALE_SMALL, 1};
    sy_buf_init(b);
    cr_assert_eq(sy_level_build(&opt, n, b), 0);
    char name[32];
    snprintf(name, sizeof name, "LEVEL%d.WAD", n);
    cr_assert_eq(gc_level_init(lv, n, name, b->data, b->len), GC_OK);
    gc_level_decode(lv);
}

#endif
