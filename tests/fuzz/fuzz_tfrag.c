/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the tfrag and lod decoders. The input is
 * {s32 tfrags, s32 occlusion, core_data...}: the two core-header region
 * offsets, then the decompressed core_data the tfrag block lives in. Also
 * built as the replay test replay_tfrag over tests/fuzz/corpus/tfrag/ (seeds:
 * the hand-assembled patches of tests/tfrag_fixture.h, whole, cut at
 * structure boundaries, and with hostile counts and offsets).
 *
 * Beyond "no crash, no out-of-bounds access, no leak" it checks the decoder's
 * contract: a failure is a known status with a breadcrumb under core_data/
 * tfrag; a patch whose walk failed has no geometry rows and zero counts; a
 * patch that walked has exactly positions_decoded vertex rows; every row's
 * patch_row names an existing patch; lod.sweep has 24 rows per patch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern const gc_decoder gc_dec_tfrag, gc_dec_lod;

static void check(int cond)
{
    if (!cond)
        abort();
}

static const gc_rowbuf *table(const gc_level *lv, const char *name)
{
    for (size_t i = 0; i < lv->table_count; i++)
        if (strcmp(lv->tables[i].desc->name, name) == 0)
            return &lv->tables[i];
    abort();
}

static uint64_t get(const gc_rowbuf *rb, size_t row, const char *col)
{
    for (size_t c = 0; c < rb->desc->column_count; c++) {
        const gc_column *k = &rb->desc->columns[c];
        if (strcmp(k->name, col) != 0)
            continue;
        const uint8_t *p = rb->data + row * rb->desc->row_size + k->offset;
        uint64_t v = 0;
        memcpy(&v, p, k->size < sizeof v ? k->size : sizeof v); /* little-endian host */
        return v;
    }
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    gc_level lv;
    if (gc_level_init(&lv, 0, "FUZZ", NULL, 0) != GC_OK)
        return 0;
    int32_t tfrags, occlusion;
    memcpy(&tfrags, data, 4);
    memcpy(&occlusion, data + 4, 4);
    lv.core_data_size = size - 8;
    lv.core_data = malloc(lv.core_data_size ? lv.core_data_size : 1);
    if (!lv.core_data) {
        gc_level_free(&lv);
        return 0;
    }
    memcpy(lv.core_data, data + 8, lv.core_data_size);
    lv.core.tfrags = tfrags;
    lv.core.occlusion = occlusion;
    lv.core_ok = true;

    gc_diag d;
    gc_diag_init(&d);
    gc_diag_push(&d, "FUZZ");
    gc_status st = gc_dec_tfrag.run(&lv, &d);
    check(st < GC_STATUS_COUNT);
    check(st == d.status);
    if (st != GC_OK)
        check(strncmp(d.where, "FUZZ/core_data/tfrag", 20) == 0 && d.msg[0] != '\0');

    const gc_rowbuf *p = table(&lv, "tfrag.patch");
    const gc_rowbuf *v = table(&lv, "tfrag.vertex");
    const gc_rowbuf *t = table(&lv, "tfrag.triangle");
    const gc_rowbuf *vi = table(&lv, "tfrag.vertex_info");
    size_t *verts = calloc(p->count + 1, sizeof *verts);
    check(verts != NULL);
    for (size_t i = 0; i < v->count; i++) {
        uint64_t pr = get(v, i, "patch_row");
        check(pr < p->count);
        verts[pr]++;
    }
    for (size_t i = 0; i < p->count; i++) {
        if (get(p, i, "walk_ok")) {
            check(verts[i] == get(p, i, "positions_decoded"));
        } else {
            check(verts[i] == 0);
            check(get(p, i, "positions_decoded") == 0 && get(p, i, "tris_lod0") == 0);
            check(get(p, i, "walk_error") != 0);
        }
    }
    for (size_t i = 0; i < t->count; i++) {
        uint64_t pr = get(t, i, "patch_row");
        check(pr < p->count && get(p, pr, "walk_ok"));
        check(get(t, i, "lod") <= 2);
    }
    for (size_t i = 0; i < vi->count; i++)
        check(get(vi, i, "patch_row") < p->count);
    free(verts);

    if (st == GC_OK) {
        gc_diag_init(&d);
        check(gc_dec_lod.run(&lv, &d) == GC_OK);
        const gc_rowbuf *sw = table(&lv, "lod.sweep");
        check(sw->count == p->count * 24);
        for (size_t i = 1; i < sw->count; i++)
            if (get(sw, i, "patch_row") == get(sw, i - 1, "patch_row"))
                check(get(sw, i, "mode") <= get(sw, i - 1, "mode"));
    }
    gc_level_free(&lv);
    return 0;
}
