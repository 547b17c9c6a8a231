/* SPDX-License-Identifier: MIT */
/* The decoder registry, per-level row storage and the decode.status table. */
#include "gc_level.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_bigmem.h"

#define GC_DECODER(n) extern const gc_decoder gc_dec_##n;
#include "gc_decoders.def"
#undef GC_DECODER

static const gc_decoder *const decoders[] = {
#define GC_DECODER(n) &gc_dec_##n,
#include "gc_decoders.def"
#undef GC_DECODER
    NULL};

#define NDECODERS (GC_COUNTOF(decoders) - 1)
_Static_assert(GC_COUNTOF(decoders) - 1 <= GC_DECODER_MAX, "raise GC_DECODER_MAX");

static const gc_column decode_status_cols[] = {
    GC_COL(gc_decode_status_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "offset where the decoder failed (0 if it did not)"),
    GC_COL(gc_decode_status_row, decoder, GC_T_U32, 0, "", "registry slot of the decoder"),
    GC_COL(gc_decode_status_row, name, GC_T_STR, 0, "", "decoder name"),
    GC_COL(gc_decode_status_row, ok, GC_T_BOOL, 0, "", "the decoder ran and returned ok"),
    GC_COL(gc_decode_status_row, skipped, GC_T_BOOL, 0, "",
           "the decoder did not run because an input it needs was not decoded"),
    GC_COL(gc_decode_status_row, status, GC_T_U32, 0, "", "gc_status code (0 = ok)"),
    GC_COL(gc_decode_status_row, status_name, GC_T_STR, 0, "", "status name"),
    GC_COL(gc_decode_status_row, where, GC_T_STR, 0, "", "breadcrumb path of the failure"),
    GC_COL(gc_decode_status_row, message, GC_T_STR, 0, "", "what went wrong"),
};

const gc_table_desc gc_table_decode_status = {
    .name = "decode.status",
    .doc = "One row per decoder per level: did it decode, and if not where it stopped.",
    .row_size = sizeof(gc_decode_status_row),
    .columns = decode_status_cols,
    .column_count = GC_COUNTOF(decode_status_cols),
};

const gc_decoder *const *gc_decoder_registry(size_t *count)
{
    *count = NDECODERS;
    return decoders;
}

int gc_decoder_slot(const gc_decoder *dec)
{
    for (size_t i = 0; i < NDECODERS; i++)
        if (decoders[i] == dec)
            return (int)i;
    return -1;
}

/* Flattened table registry, built once. Static const arrays cannot be built
 * from the X-macro portably (table counts live in each decoder), so the list
 * is computed on first use; it is immutable afterwards and identical on every
 * call, and the harness calls it before starting threads. */
#define GC_TABLE_MAX 128
static const gc_table_desc *table_list[GC_TABLE_MAX];
static size_t table_list_count;

const gc_table_desc *const *gc_table_registry(size_t *count)
{
    if (table_list_count == 0) {
        size_t n = 0;
        table_list[n++] = &gc_table_decode_status;
        for (size_t i = 0; i < NDECODERS; i++)
            for (size_t t = 0; t < decoders[i]->table_count && n < GC_TABLE_MAX; t++)
                table_list[n++] = decoders[i]->tables[t];
        table_list_count = n;
    }
    *count = table_list_count;
    return table_list;
}

gc_status gc_level_init(gc_level *lv, int index, const char *name, const uint8_t *file,
                        size_t file_size)
{
    memset(lv, 0, sizeof *lv);
    lv->index = index;
    size_t nl = strlen(name);
    if (nl >= sizeof lv->name)
        nl = sizeof lv->name - 1;
    memcpy(lv->name, name, nl);
    lv->file = file;
    lv->file_size = file_size;
    gc_diag_init(&lv->first_error);
    size_t n;
    const gc_table_desc *const *descs = gc_table_registry(&n);
    lv->tables = calloc(n, sizeof *lv->tables);
    if (!lv->tables)
        return GC_E_NOMEM;
    lv->table_count = n;
    for (size_t i = 0; i < n; i++) {
        lv->tables[i].desc = descs[i];
        lv->tables[i].owner = lv;
    }
    return GC_OK;
}

int gc_level_mem_charge(gc_level *lv, size_t bytes)
{
    if (lv->mem.charge && lv->mem.charge(lv->mem.ctx, bytes) != 0) {
        lv->mem_refused = true;
        return -1;
    }
    lv->mem_charged += bytes;
    return 0;
}

void gc_level_mem_release(gc_level *lv, size_t bytes)
{
    if (bytes > lv->mem_charged)
        bytes = lv->mem_charged;
    lv->mem_charged -= bytes;
    if (lv->mem.release)
        lv->mem.release(lv->mem.ctx, bytes);
}

size_t gc_level_drop_tables(gc_level *lv, const bool *keep)
{
    size_t freed = 0;
    for (size_t i = 0; i < NDECODERS; i++)
        if (decoders[i]->release)
            decoders[i]->release(lv);
    for (size_t i = 0; i < lv->table_count; i++) {
        gc_rowbuf *rb = &lv->tables[i];
        size_t row = rb->desc->row_size;
        if (!keep || keep[i]) {
            /* a kept table gives back the slack of its growth (none after
             * gc_level_decode, which shrinks every table) */
            size_t cap = rb->cap;
            gc_rows_shrink(rb);
            freed += (cap - rb->cap) * row;
            continue;
        }
        freed += rb->cap * row;
        gc_big_free(rb->data);
        rb->data = NULL;
        rb->count = 0;
        rb->cap = 0;
    }
    gc_big_free(lv->core_data);
    gc_big_free(lv->gameplay);
    gc_big_free(lv->file_copy);
    lv->file_copy = NULL;
    lv->file_copy_size = 0;
    lv->overlay.data = lv->core_index.data = lv->gs_ram.data = NULL;
    lv->core_data = NULL;
    lv->core_data_size = 0;
    lv->gameplay = NULL;
    lv->gameplay_size = 0;
    lv->file = NULL;
    lv->file_size = 0;
    return freed;
}

/* 1 when span's bytes lie in the level's file (not in a decompressed buffer). */
static bool span_in_file(const gc_level *lv, const gc_span *sp)
{
    return sp->data && lv->file && sp->data >= lv->file && sp->data <= lv->file + lv->file_size;
}

size_t gc_level_drop_rows(gc_level *lv, const bool *keep)
{
    size_t freed = 0;
    for (size_t i = 0; i < lv->table_count; i++) {
        gc_rowbuf *rb = &lv->tables[i];
        if (keep[i] || !rb->data)
            continue;
        freed += rb->cap * rb->desc->row_size;
        gc_big_free(rb->data);
        rb->data = NULL;
        rb->count = 0;
        rb->cap = 0;
    }
    gc_level_mem_release(lv, freed);
    return freed;
}

void gc_level_drop_gameplay(gc_level *lv)
{
    if (!lv->gameplay)
        return;
    gc_big_free(lv->gameplay);
    gc_level_mem_release(lv, lv->gameplay_size);
    lv->gameplay = NULL;
    lv->gameplay_size = 0;
}

int gc_level_detach_file(gc_level *lv)
{
    if (!lv->file)
        return 0;
    gc_span *kept[] = {&lv->overlay, &lv->core_index, &lv->gs_ram};
    size_t total = 0;
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        if (span_in_file(lv, kept[i]))
            total += kept[i]->size;
    uint8_t *copy = NULL;
    if (total) {
        if (gc_level_mem_charge(lv, total) != 0)
            return -1;
        copy = gc_big_alloc_populated(total);
        if (!copy) {
            gc_level_mem_release(lv, total);
            return -1;
        }
    }
    size_t at = 0;
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        if (span_in_file(lv, kept[i])) {
            memcpy(copy + at, kept[i]->data, kept[i]->size);
            kept[i]->data = copy + at;
            at += kept[i]->size;
        }
    gc_span *dropped[] = {&lv->data_extent,    &lv->sound_bank,     &lv->gameplay_z,
                          &lv->occlusion_ext,  &lv->chunks[0],      &lv->chunks[1],
                          &lv->chunks[2],      &lv->chunk_banks[0], &lv->chunk_banks[1],
                          &lv->chunk_banks[2], &lv->hud_header,     &lv->core_data_z,
                          &lv->transition};
    for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++)
        if (span_in_file(lv, dropped[i]))
            dropped[i]->data = NULL;
    gc_big_free(lv->file_copy);
    lv->file_copy = copy;
    lv->file_copy_size = total;
    lv->file = NULL;
    return 0;
}

void gc_rows_shrink(gc_rowbuf *rb)
{
    if (!rb->count || rb->count >= rb->cap)
        return;
    size_t rs = rb->desc->row_size;
    /* a mapped block shrinks in place (what is past the 2 MiB boundary after
     * its rows is unmapped), without a copy */
    void *p = gc_big_realloc(rb->data, rb->cap * rs, rb->count * rs);
    if (!p)
        return;
    if (rb->owner)
        gc_level_mem_release(rb->owner, (rb->cap - rb->count) * rs);
    rb->data = p;
    rb->cap = rb->count;
}

int gc_rows_reserve(gc_rowbuf *rb, size_t rows)
{
    if (!rb || rows <= rb->cap)
        return 0;
    size_t rs = rb->desc->row_size;
    if (rows > SIZE_MAX / rs)
        return -1;
    size_t more = (rows - rb->cap) * rs;
    /* A refused hint is not the level's failure: lv->mem_refused (which
     * names a later GC_E_NOMEM the budget's) is left alone. */
    gc_level *lv = rb->owner;
    if (lv && lv->mem.charge && lv->mem.charge(lv->mem.ctx, more) != 0)
        return -1;
    if (lv)
        lv->mem_charged += more;
    uint8_t *p = gc_big_realloc(rb->data, rb->cap * rs, rows * rs);
    if (!p) {
        if (rb->owner)
            gc_level_mem_release(rb->owner, more);
        return -1;
    }
    rb->data = p;
    rb->cap = rows;
    return 0;
}

gc_rowbuf *gc_level_rows(gc_level *lv, const gc_table_desc *desc)
{
    for (size_t i = 0; i < lv->table_count; i++)
        if (lv->tables[i].desc == desc)
            return &lv->tables[i];
    return NULL;
}

extern inline void *gc_rows_push(gc_rowbuf *rb);

void *gc_rows_push_grow(gc_rowbuf *rb)
{
    if (!rb)
        return NULL;
    size_t rs = rb->desc->row_size;
    if (rb->count == rb->cap) {
        size_t cap = rb->cap ? rb->cap * 2 : 64;
        if (cap > SIZE_MAX / rs)
            return NULL;
        size_t more = (cap - rb->cap) * rs;
        if (rb->owner && gc_level_mem_charge(rb->owner, more) != 0)
            return NULL;
        uint8_t *p = gc_big_realloc(rb->data, rb->cap * rs, cap * rs);
        if (!p) {
            if (rb->owner)
                gc_level_mem_release(rb->owner, more);
            return NULL;
        }
        rb->data = p;
        rb->cap = cap;
    }
    void *row = rb->data + rb->count * rs;
    memset(row, 0, rs);
    rb->count++;
    return row;
}

const void *gc_rows_at(const gc_rowbuf *rb, size_t i)
{
    if (i >= rb->count)
        return NULL;
    return rb->data + i * rb->desc->row_size;
}

void gc_level_tables(const gc_level *lv, gc_table *out)
{
    for (size_t i = 0; i < lv->table_count; i++) {
        out[i].desc = lv->tables[i].desc;
        out[i].rows = lv->tables[i].data;
        out[i].count = lv->tables[i].count;
    }
}

static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static bool spans_overlap(const gc_span *a, const gc_span *b)
{
    return a->data && b->data && a->size && b->size && a->data < b->data + b->size &&
           b->data < a->data + a->size;
}

/* Once the data decoder has decompressed core_data, no decoder reads the
 * compressed stream again: offer those bytes to the discard hook, unless
 * another span of the file overlaps them (a malformed file may nest them;
 * those bytes are still read). The data extent is their parent and does
 * not count: only the level and data decoders read it, before this. */
static void discard_compressed_core_data(gc_level *lv)
{
    const gc_span *z = &lv->core_data_z;
    if (!lv->mem.discard || !lv->core_data || !z->present || !z->data || !lv->file ||
        z->data < lv->file || z->data + z->size > lv->file + lv->file_size)
        return;
    const gc_span *others[] = {&lv->sound_bank,     &lv->gameplay_z,     &lv->occlusion_ext,
                               &lv->chunks[0],      &lv->chunks[1],      &lv->chunks[2],
                               &lv->chunk_banks[0], &lv->chunk_banks[1], &lv->chunk_banks[2],
                               &lv->overlay,        &lv->core_index,     &lv->gs_ram,
                               &lv->hud_header,     &lv->transition};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        if (spans_overlap(z, others[i]))
            return;
    lv->mem.discard(lv->mem.ctx, z->data, z->size);
    lv->core_data_z.data = NULL; /* offset, size and presence stay */
}

void gc_level_decode(gc_level *lv)
{
    gc_rowbuf *status_rows = gc_level_rows(lv, &gc_table_decode_status);
    for (size_t i = 0; i < NDECODERS; i++) {
        const gc_decoder *dec = decoders[i];
        gc_diag d;
        gc_diag_init(&d);
        gc_diag_push(&d, "%s", lv->name);
        gc_status s = dec->run(lv, &d);
        if (s != GC_OK && d.status == GC_OK)
            gc_diag_set(&d, s, 0, "%s failed without a diagnostic", dec->name);
        if (s == GC_E_NOMEM && lv->mem_refused) {
            /* the memory budget refused it, not malloc: say so */
            char msg[GC_DIAG_MSG_MAX];
            snprintf(msg, sizeof msg, "memory limit reached (%s)", d.msg);
            copy_str(d.msg, sizeof d.msg, msg);
        }
        /* A decoder reports "skipped" by returning GC_E_UNSUPPORTED with a
         * message starting "needs " (see GC_NEEDS in the decoders). */
        bool skipped = s == GC_E_UNSUPPORTED && strncmp(d.msg, "needs ", 6) == 0;
        gc_decode_status_row *row = gc_rows_push(status_rows);
        if (row) {
            row->file_ofs = d.file_ofs;
            row->decoder = (uint32_t)i;
            copy_str(row->name, sizeof row->name, dec->name);
            row->ok = s == GC_OK;
            row->skipped = skipped;
            row->status = (uint32_t)s;
            copy_str(row->status_name, sizeof row->status_name, gc_status_name(s));
            copy_str(row->where, sizeof row->where, d.where);
            copy_str(row->message, sizeof row->message, d.msg);
        }
        if (s != GC_OK && !skipped && lv->first_error.status == GC_OK)
            lv->first_error = d;
        if (dec == &gc_dec_data)
            discard_compressed_core_data(lv);
    }
    /* The tables are complete: give back the slack of their doubling growth
     * now (up to half of each buffer), not after the level's invariants and
     * frames, so the working set of a level in flight is its rows. */
    for (size_t i = 0; i < lv->table_count; i++)
        gc_rows_shrink(&lv->tables[i]);
}

void gc_level_free(gc_level *lv)
{
    for (size_t i = 0; i < NDECODERS; i++)
        if (decoders[i]->release)
            decoders[i]->release(lv);
    for (size_t i = 0; i < lv->table_count; i++)
        gc_big_free(lv->tables[i].data);
    free(lv->tables);
    gc_big_free(lv->core_data);
    gc_big_free(lv->gameplay);
    gc_big_free(lv->file_copy);
    lv->file_copy = NULL;
    gc_level_mem_release(lv, lv->mem_charged);
    lv->tables = NULL;
    lv->core_data = NULL;
    lv->gameplay = NULL;
}
