/* SPDX-License-Identifier: MIT */
/* The normals decoder: finds the 256-entry normal table, (cos(i*pi/128),
 * sin(i*pi/128)) as f32 pairs, inside the level code overlay by CONTENT
 * (level-assets.md "The normal table, and why it is found by searching").
 * The overlay has no ELF header (read either as Wrench's chain of section
 * headers or as the notes' raw image, dec_overlay.c), and the table's offset
 * differs per level, so the search ignores any framing: the whole overlay is
 * scanned, offsets are overlay offsets, every 4-byte-aligned (1.0, 0.0) pair is a candidate
 * and only a candidate whose whole curve matches is the table: a lone
 * (1.0, 0.0) occurs by accident in a 2.7 MB executable. Published as
 * normals.table.
 *
 * The reference curve is computed without libm (design.md §5): cos and sin
 * of pi/128 by their Taylor series, then a rotation recurrence in double.
 * The values read from the file are what the game indexes; the reference is
 * only the check. */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "gc_level.h"
#include "gc_reader.h"

#define NORMAL_ENTRIES     256u
#define NORMAL_TABLE_BYTES (NORMAL_ENTRIES * 8u)
#define F32_ONE_BITS       0x3F800000u
/* f32 carries ~6e-8 relative precision; the table's values are |x| <= 1. */
#define NORMAL_TOLERANCE 1e-6
#define PI_DOUBLE        3.14159265358979323846

typedef struct normals_row {
    uint64_t file_ofs;
    uint8_t found;
    uint64_t overlay_ofs;
    uint32_t entries_matched;
    double max_error;
    uint32_t candidates;
    uint64_t overlay_bytes;
} normals_row;

static const gc_column normals_cols[] = {
    GC_COL(normals_row, file_ofs, GC_T_U64, GC_CF_HEX, "bytes",
           "file offset of the accepted table (the overlay's if none)"),
    GC_COL(normals_row, found, GC_T_BOOL, 0, "", "a table was accepted"),
    GC_COL(normals_row, overlay_ofs, GC_T_U64, GC_CF_HEX | GC_CF_NULL_IF_MAX, "bytes in overlay",
           "offset of the accepted table inside the overlay; null if none"),
    GC_COL(normals_row, entries_matched, GC_T_U32, 0, "count",
           "leading entries of the accepted table that match the curve (256 = all)"),
    GC_COL(normals_row, max_error, GC_T_F64, 0, "",
           "largest |stored - reference| over the accepted table's readable entries"),
    /* unit "steps", not "count": it counts the search's work, nothing the format holds
     * (docs/verification.md) */
    GC_COL(normals_row, candidates, GC_T_U32, 0, "steps",
           "(1.0, 0.0) pairs examined up to and including the accepted one"),
    GC_COL(normals_row, overlay_bytes, GC_T_U64, 0, "bytes", "size of the overlay searched"),
};

static const gc_table_desc gc_table_normals = {
    .name = "normals.table",
    .doc = "The overlay's 256-entry normal table, found by content (one row).",
    .row_size = sizeof(normals_row),
    .columns = normals_cols,
    .column_count = GC_COUNTOF(normals_cols),
};

/* cos/sin of i*pi/128 for i = 0..255, IEEE basic operations only. */
static void reference_curve(double c[NORMAL_ENTRIES], double s[NORMAL_ENTRIES])
{
    const double x = PI_DOUBLE / 128.0;
    double c1 = 0.0, s1 = 0.0, term_c = 1.0, term_s = x;
    for (int k = 0; k < 12; k++) { /* x is small: 12 terms are far past double precision */
        c1 += term_c;
        s1 += term_s;
        term_c = -term_c * x * x / ((2.0 * k + 1.0) * (2.0 * k + 2.0));
        term_s = -term_s * x * x / ((2.0 * k + 2.0) * (2.0 * k + 3.0));
    }
    c[0] = 1.0;
    s[0] = 0.0;
    for (unsigned i = 1; i < NORMAL_ENTRIES; i++) {
        c[i] = c[i - 1] * c1 - s[i - 1] * s1;
        s[i] = s[i - 1] * c1 + c[i - 1] * s1;
    }
}

static double absd(double v)
{
    return v < 0 ? -v : v;
}

/* Leading matching entries of the candidate at `at`, and the largest error
 * over the readable entries. */
static uint32_t match_curve(gc_reader ov, size_t at, const double *c, const double *s,
                            double *max_err)
{
    gc_reader r = gc_window(
        &ov, at, gc_left(&ov) - at < NORMAL_TABLE_BYTES ? gc_left(&ov) - at : NORMAL_TABLE_BYTES);
    uint32_t matched = 0;
    bool run = true;
    *max_err = 0.0;
    for (unsigned i = 0; i < NORMAL_ENTRIES && gc_left(&r) >= 8; i++) {
        double x = gc_f32le(&r), y = gc_f32le(&r);
        double e = absd(x - c[i]);
        if (absd(y - s[i]) > e)
            e = absd(y - s[i]);
        if (!(e == e)) /* NaN */
            e = 1e300;
        if (e > *max_err)
            *max_err = e;
        if (run && e <= NORMAL_TOLERANCE)
            matched++;
        else
            run = false;
    }
    return matched;
}

/* The word at `at` is 1.0f: a candidate when the next is 0.0f (and inside the overlay), the
 * table when its whole curve matches. True when the search is over. */
static bool normal_candidate(gc_level *lv, gc_reader r, size_t at, const double *c, const double *s,
                             normals_row *row)
{
    if (at + 8 > r.size || gc_load_u32le(r.data + at + 4) != 0)
        return false;
    row->candidates++;
    double err = 0.0;
    uint32_t m = match_curve(r, at, c, s, &err);
    /* Historical bug: the first lone (1.0, 0.0) accepted as the table. */
    if (m == NORMAL_ENTRIES || GC_FAULT(lv, normal_first_pair)) {
        row->found = 1;
        row->overlay_ofs = at;
        row->file_ofs = r.file_ofs + at;
        row->entries_matched = m;
        row->max_error = err;
        return true;
    }
    return false;
}

static gc_status normals_run(gc_level *lv, gc_diag *diag)
{
    if (!lv->overlay.present)
        return GC_NEEDS(diag, "the overlay from the data decoder");
    gc_diag_push(diag, "data/overlay");
    double c[NORMAL_ENTRIES], s[NORMAL_ENTRIES];
    reference_curve(c, s);
    const gc_span *ov = &lv->overlay;
    gc_reader r = gc_reader_make(ov->data, ov->size, ov->file_ofs);
    normals_row row;
    memset(&row, 0, sizeof row);
    row.file_ofs = ov->file_ofs;
    row.overlay_ofs = UINT64_MAX;
    row.overlay_bytes = ov->size;
    size_t at = 0;
    bool done = false;
#if defined(__SSE2__)
    /* Four aligned words compared with 1.0f at a time; only a word that is 1.0f is looked at
     * as a candidate, in offset order, as below (the word-by-word loop was ~10 instructions a
     * word, 3.4 M words a retail-corpus decode). x86 is little-endian: a lane holds the word
     * gc_load_u32le reads. */
    const __m128i one = _mm_set1_epi32((int)F32_ONE_BITS);
    for (; !done && at + 16 <= ov->size; at += 16) {
        __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(ov->data + at));
        unsigned mask = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(w, one)));
        for (unsigned k = 0; mask && !done && k < 4; k++)
            if (mask >> k & 1u)
                done = normal_candidate(lv, r, at + 4u * k, c, s, &row);
    }
#endif
    for (; !done && at + 8 <= ov->size; at += 4)
        if (gc_load_u32le(ov->data + at) == F32_ONE_BITS)
            done = normal_candidate(lv, r, at, c, s, &row);
    normals_row *out = gc_rows_push(gc_level_rows(lv, &gc_table_normals));
    if (!out)
        return gc_diag_set(diag, GC_E_NOMEM, 0, "no memory for normals.table");
    *out = row;
    return GC_OK;
}

static const gc_table_desc *const normals_tables[] = {&gc_table_normals};

const gc_decoder gc_dec_normals = {
    .name = "normals",
    .doc = "the overlay's 256-entry normal table, found by content",
    .tables = normals_tables,
    .table_count = GC_COUNTOF(normals_tables),
    .run = normals_run,
    .release = NULL,
};
