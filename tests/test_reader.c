/* SPDX-License-Identifier: MIT */
/* Tests of the bounds-checked reader (decoders/gc_reader.h) and of the
 * breadcrumb diagnostic (decoders/gc_status.h): every edge of a read, peek,
 * skip, seek and window, the sticky overrun flag, file offsets of nested
 * windows, overflow-checked size arithmetic, and first-error-wins diagnostics
 * with truncation of long paths. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "gc_reader.h"
#include "gc_status.h"

static const uint8_t B[8] = {0x01, 0x02, 0x03, 0x84, 0xFE, 0xFF, 0x00, 0x80};

Test(reader, little_endian_values)
{
    gc_reader r = gc_reader_make(B, sizeof B, 0);
    cr_assert_eq(gc_u8(&r), 0x01);
    cr_assert_eq(gc_u16le(&r), 0x0302);
    cr_assert_eq(gc_s8(&r), (int8_t)0x84);
    cr_assert_eq(gc_s16le(&r), (int16_t)0xFFFE);
    cr_assert_eq(gc_u16le(&r), 0x8000);
    cr_assert_eq(gc_left(&r), 0);
    cr_assert(!r.overrun);

    r = gc_reader_make(B, sizeof B, 0);
    cr_assert_eq(gc_u32le(&r), 0x84030201u);
    cr_assert_eq(gc_s32le(&r), (int32_t)0x8000FFFEu);

    static const uint8_t one[4] = {0x00, 0x00, 0x80, 0x3F}; /* 1.0f */
    r = gc_reader_make(one, 4, 0);
    cr_assert(gc_f32le(&r) == 1.0f);
    cr_assert_eq(gc_load_u32le(B), 0x84030201u);
    cr_assert_eq(gc_load_u16le(B + 4), 0xFFFE);
}

Test(reader, read_at_the_exact_end_succeeds_one_past_fails)
{
    gc_reader r = gc_reader_make(B, 4, 100);
    cr_assert_eq(gc_u32le(&r), 0x84030201u); /* exactly the whole window */
    cr_assert(!r.overrun);
    cr_assert_eq(gc_tell(&r), 4);
    cr_assert_eq(gc_u8(&r), 0); /* one past */
    cr_assert(r.overrun);
    cr_assert_eq(gc_tell(&r), 4, "a failed read must not move the cursor");

    r = gc_reader_make(B, 3, 0); /* a u32 needs 4 */
    cr_assert_eq(gc_u32le(&r), 0);
    cr_assert(r.overrun);
    cr_assert_eq(gc_tell(&r), 0);

    r = gc_reader_make(B, 1, 0);
    cr_assert_eq(gc_u16le(&r), 0);
    cr_assert(r.overrun);
}

Test(reader, overrun_is_sticky)
{
    gc_reader r = gc_reader_make(B, sizeof B, 0);
    cr_assert_eq(gc_u8(&r), 1);
    cr_assert(!gc_skip(&r, 100));
    cr_assert(r.overrun);
    /* a read that would fit still fails, so one check after a batch is enough */
    cr_assert_eq(gc_u8(&r), 0);
    cr_assert_eq(gc_u16le(&r), 0);
    cr_assert_eq(gc_tell(&r), 1);
    cr_assert(gc_take(&r, 0) == NULL);
    cr_assert(!gc_seek(&r, 0));
    gc_reader w = gc_window(&r, 0, 1);
    cr_assert(w.overrun);
    cr_assert_eq(w.size, 0);
}

Test(reader, null_data_is_an_empty_window)
{
    gc_reader r = gc_reader_make(NULL, 99, 5);
    cr_assert_eq(r.size, 0);
    cr_assert_eq(gc_u8(&r), 0);
    cr_assert(r.overrun);
}

Test(reader, bytes_copy_and_zero_fill)
{
    gc_reader r = gc_reader_make(B, sizeof B, 0);
    uint8_t dst[8];
    cr_assert(gc_bytes(&r, dst, 8));
    cr_assert(memcmp(dst, B, 8) == 0);
    memset(dst, 0x77, sizeof dst);
    cr_assert(!gc_bytes(&r, dst, 1));
    cr_assert_eq(dst[0], 0, "dst is zero-filled on overrun");
    cr_assert_eq(dst[1], 0x77);
    r = gc_reader_make(B, sizeof B, 0);
    cr_assert(gc_bytes(&r, dst, 0));
    cr_assert(!r.overrun);
}

Test(reader, peek_does_not_move_and_checks_bounds)
{
    gc_reader r = gc_reader_make(B, sizeof B, 0);
    gc_skip(&r, 2);
    cr_assert_eq(gc_peek_u8(&r, 0), 0x03);
    cr_assert_eq(gc_peek_u8(&r, 5), 0x80); /* last byte */
    cr_assert_eq(gc_tell(&r), 2);
    cr_assert(!r.overrun);
    cr_assert_eq(gc_peek_u32le(&r, 2), 0x8000FFFEu); /* ends at the exact end */
    cr_assert(!r.overrun);
    cr_assert_eq(gc_peek_u32le(&r, 3), 0); /* one past */
    cr_assert(r.overrun);

    r = gc_reader_make(B, sizeof B, 0);
    cr_assert_eq(gc_peek_u8(&r, 8), 0);
    cr_assert(r.overrun);

    r = gc_reader_make(B, 3, 0);
    cr_assert_eq(gc_peek_u32le(&r, 0), 0); /* window smaller than a u32 */
    cr_assert(r.overrun);

    r = gc_reader_make(B, sizeof B, 0);
    cr_assert_eq(gc_peek_u32le(&r, SIZE_MAX), 0); /* huge ahead cannot wrap */
    cr_assert(r.overrun);
    r = gc_reader_make(B, sizeof B, 0);
    cr_assert_eq(gc_peek_u8(&r, SIZE_MAX), 0);
    cr_assert(r.overrun);
}

Test(reader, skip_and_seek_edges)
{
    gc_reader r = gc_reader_make(B, sizeof B, 0);
    cr_assert(gc_skip(&r, 8)); /* to the exact end */
    cr_assert_eq(gc_left(&r), 0);
    cr_assert(!r.overrun);
    cr_assert(!gc_skip(&r, 1));
    cr_assert(r.overrun);
    cr_assert_eq(gc_tell(&r), 8);

    r = gc_reader_make(B, sizeof B, 0);
    cr_assert(gc_seek(&r, 8)); /* seek to the end is allowed */
    cr_assert(gc_seek(&r, 3));
    cr_assert_eq(gc_u8(&r), 0x84);
    cr_assert(!gc_seek(&r, 9));
    cr_assert(r.overrun);
    cr_assert_eq(gc_tell(&r), 4, "a failed seek leaves pos alone");

    r = gc_reader_make(B, sizeof B, 0);
    gc_skip(&r, 3);
    cr_assert(!gc_skip(&r, SIZE_MAX)); /* cannot wrap */
    cr_assert_eq(gc_tell(&r), 3);
}

Test(reader, windows_carry_absolute_file_offsets)
{
    gc_reader r = gc_reader_make(B, sizeof B, 0x1000);
    gc_skip(&r, 5); /* gc_window is relative to data, not the cursor */
    gc_reader w = gc_window(&r, 2, 4);
    cr_assert(!w.overrun);
    cr_assert_eq(w.size, 4);
    cr_assert_eq(w.file_ofs, 0x1002);
    cr_assert_eq(gc_u8(&w), 0x03);
    cr_assert_eq(gc_tell_file(&w), 0x1003);
    gc_reader w2 = gc_window(&w, 1, 3); /* nested */
    cr_assert_eq(w2.file_ofs, 0x1003);
    cr_assert_eq(gc_u8(&w2), 0x84);
    cr_assert_eq(gc_tell_file(&w2), 0x1004);
    /* a nested window cannot escape its parent, even though the buffer goes on */
    gc_reader w3 = gc_window(&w2, 1, 3);
    cr_assert(w3.overrun);
    cr_assert(w2.overrun, "a bad window marks its parent");
    cr_assert_eq(gc_tell(&r), 5, "a window does not move the parent's cursor");
    cr_assert(!r.overrun);
}

Test(reader, windows_past_the_end)
{
    gc_reader r = gc_reader_make(B, sizeof B, 0);
    gc_reader w = gc_window(&r, 8, 0); /* empty window at the exact end: fine */
    cr_assert(!w.overrun);
    cr_assert_eq(w.size, 0);
    cr_assert_eq(w.file_ofs, 8);
    w = gc_window(&r, 0, 8);
    cr_assert(!w.overrun);
    w = gc_window(&r, 4, 5); /* one past */
    cr_assert(w.overrun);
    cr_assert_eq(w.size, 0);
    cr_assert_eq(gc_u8(&w), 0);
    cr_assert(r.overrun);

    r = gc_reader_make(B, sizeof B, 0);
    w = gc_window(&r, 9, 0); /* start past the end */
    cr_assert(w.overrun);
    r = gc_reader_make(B, sizeof B, 0);
    w = gc_window(&r, 2, SIZE_MAX - 1); /* ofs + len wraps: must not pass */
    cr_assert(w.overrun);
    r = gc_reader_make(B, sizeof B, 0);
    w = gc_window(&r, SIZE_MAX, 2);
    cr_assert(w.overrun);
}

Test(reader, take_window_advances_only_on_success)
{
    gc_reader r = gc_reader_make(B, sizeof B, 0x40);
    gc_skip(&r, 1);
    gc_reader w = gc_take_window(&r, 3);
    cr_assert(!w.overrun);
    cr_assert_eq(w.file_ofs, 0x41);
    cr_assert_eq(gc_tell(&r), 4);
    cr_assert_eq(gc_u16le(&w), 0x0302);
    gc_reader bad = gc_take_window(&r, 5);
    cr_assert(bad.overrun);
    cr_assert_eq(gc_tell(&r), 4);
    cr_assert(r.overrun);
}

Test(reader, range_ok_edges)
{
    cr_assert(gc_range_ok(0, 0, 0));
    cr_assert(gc_range_ok(8, 0, 8));
    cr_assert(gc_range_ok(0, 8, 8));
    cr_assert(!gc_range_ok(1, 8, 8));
    cr_assert(!gc_range_ok(9, 0, 8));
    cr_assert(!gc_range_ok(4, SIZE_MAX, 8));
    cr_assert(!gc_range_ok(SIZE_MAX, SIZE_MAX, SIZE_MAX - 1));
    cr_assert(gc_range_ok(SIZE_MAX, 0, SIZE_MAX));
}

Test(reader, size_mad_overflow)
{
    size_t out = 42;
    cr_assert(gc_size_mad(3, 4, 5, &out));
    cr_assert_eq(out, 17);
    cr_assert(gc_size_mad(0, SIZE_MAX, 7, &out));
    cr_assert_eq(out, 7);
    cr_assert(gc_size_mad(SIZE_MAX, 1, 0, &out));
    cr_assert_eq(out, SIZE_MAX);
    out = 42;
    cr_assert(!gc_size_mad(SIZE_MAX / 2 + 1, 2, 0, &out), "product overflows");
    cr_assert(!gc_size_mad(SIZE_MAX, 1, 1, &out), "sum overflows");
    cr_assert(!gc_size_mad(SIZE_MAX / 16, 16, 16, &out), "a*b fits, +c does not");
    cr_assert_eq(out, 42, "out untouched on overflow");
    /* the 32-bit shape of a hostile count: 0x10000000 entries of 16 bytes is fine
     * on 64-bit, 0x1000000000000000 * 16 is not */
    cr_assert(!gc_size_mad((size_t)1 << (sizeof(size_t) * 8 - 4), 16, 0, &out));

    cr_assert(gc_size_add(SIZE_MAX - 1, 1, &out));
    cr_assert_eq(out, SIZE_MAX);
    cr_assert(!gc_size_add(SIZE_MAX, 1, &out));
    cr_assert(gc_size_mul(SIZE_MAX, 1, &out));
    cr_assert(gc_size_mul(0, 0, &out));
    cr_assert_eq(out, 0);
    cr_assert(!gc_size_mul(SIZE_MAX / 3 + 1, 3, &out));
}

/* ---- diagnostics ---------------------------------------------------- */

Test(diag, status_names)
{
    cr_assert_str_eq(gc_status_name(GC_OK), "ok");
    cr_assert_str_eq(gc_status_name(GC_E_TRUNCATED), "truncated");
    cr_assert_str_eq(gc_status_name(GC_E_MAGIC), "bad_magic");
    cr_assert_str_eq(gc_status_name(GC_E_RANGE), "out_of_range");
    cr_assert_str_eq(gc_status_name(GC_E_CORRUPT), "corrupt");
    cr_assert_str_eq(gc_status_name(GC_E_UNSUPPORTED), "unsupported");
    cr_assert_str_eq(gc_status_name(GC_E_NOMEM), "no_memory");
    cr_assert_str_eq(gc_status_name(GC_E_IO), "io");
    cr_assert_str_eq(gc_status_name(GC_E_INTERNAL), "internal");
    cr_assert_str_eq(gc_status_name(GC_STATUS_COUNT), "?");
    cr_assert_str_eq(gc_status_name((gc_status)-1), "?");
}

Test(diag, push_pop_builds_the_breadcrumb)
{
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(d.status, GC_OK);
    cr_assert_str_eq(d.path, "");
    gc_diag_push(&d, "%s", "LEVEL3.WAD");
    gc_diag_push(&d, "data");
    gc_diag_push(&d, "tfrag[%d]", 17);
    cr_assert_str_eq(d.path, "LEVEL3.WAD/data/tfrag[17]");
    gc_diag_pop(&d);
    cr_assert_str_eq(d.path, "LEVEL3.WAD/data");
    gc_diag_push(&d, "vif@0x%x", 0x1a4);
    cr_assert_str_eq(d.path, "LEVEL3.WAD/data/vif@0x1a4");
    gc_diag_pop(&d);
    gc_diag_pop(&d);
    gc_diag_pop(&d);
    cr_assert_str_eq(d.path, "");
    gc_diag_pop(&d); /* extra pop is harmless */
    cr_assert_eq(d.depth, 0);
    cr_assert_str_eq(d.path, "");
}

Test(diag, set_copies_path_and_first_error_wins)
{
    gc_diag d;
    gc_diag_init(&d);
    gc_diag_push(&d, "LEVEL0.WAD");
    gc_diag_push(&d, "core");
    cr_assert_eq(gc_diag_set(&d, GC_OK, 5, "nothing"), GC_OK);
    cr_assert_eq(d.status, GC_OK, "setting GC_OK is a no-op");
    cr_assert_str_eq(d.msg, "");
    cr_assert_eq(gc_diag_set(&d, GC_E_TRUNCATED, 0x1234, "count %d past the end", 9),
                 GC_E_TRUNCATED);
    cr_assert_eq(d.file_ofs, 0x1234);
    cr_assert_str_eq(d.where, "LEVEL0.WAD/core");
    cr_assert_str_eq(d.msg, "count 9 past the end");
    gc_diag_pop(&d);
    gc_diag_push(&d, "other");
    /* a later error returns its own status but does not overwrite the first */
    cr_assert_eq(gc_diag_set(&d, GC_E_CORRUPT, 0x99, "second"), GC_E_CORRUPT);
    cr_assert_eq(d.status, GC_E_TRUNCATED);
    cr_assert_eq(d.file_ofs, 0x1234);
    cr_assert_str_eq(d.where, "LEVEL0.WAD/core");
    cr_assert_str_eq(d.msg, "count 9 past the end");
    cr_assert_str_eq(d.path, "LEVEL0.WAD/other", "the live path moves on");
    gc_diag_clear(&d);
    cr_assert_eq(d.status, GC_OK);
    cr_assert_str_eq(d.where, "");
    cr_assert_str_eq(d.path, "LEVEL0.WAD/other", "clear keeps the breadcrumb stack");
    cr_assert_eq(gc_diag_set(&d, GC_E_MAGIC, 1, "third"), GC_E_MAGIC);
    cr_assert_eq(d.status, GC_E_MAGIC);
}

Test(diag, long_paths_truncate_and_pops_still_balance)
{
    gc_diag d;
    gc_diag_init(&d);
    char big[300];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    gc_diag_push(&d, "root");
    gc_diag_push(&d, "%s", big); /* longer than the whole buffer */
    cr_assert_lt(strlen(d.path), GC_DIAG_PATH_MAX);
    cr_assert_eq(strlen(d.path), d.path_len);
    cr_assert(strncmp(d.path, "root/xxx", 8) == 0);
    gc_diag_push(&d, "more"); /* no room at all */
    cr_assert_lt(strlen(d.path), GC_DIAG_PATH_MAX);
    gc_diag_set(&d, GC_E_RANGE, 0, "%s", big); /* message truncates too */
    cr_assert_eq(strlen(d.msg), GC_DIAG_MSG_MAX - 1);
    cr_assert_eq(strlen(d.where), strlen(d.path));
    gc_diag_pop(&d);
    gc_diag_pop(&d);
    cr_assert_str_eq(d.path, "root");
    gc_diag_pop(&d);
    cr_assert_str_eq(d.path, "");
}

Test(diag, depth_past_the_limit_drops_text_and_balances)
{
    gc_diag d;
    gc_diag_init(&d);
    for (int i = 0; i < GC_DIAG_DEPTH_MAX + 6; i++)
        gc_diag_push(&d, "%d", i % 10);
    /* only the first GC_DIAG_DEPTH_MAX components are kept */
    cr_assert_eq(d.path_len, (size_t)GC_DIAG_DEPTH_MAX * 2 - 1);
    for (int i = 0; i < 6; i++)
        gc_diag_pop(&d);
    cr_assert_eq(d.path_len, (size_t)GC_DIAG_DEPTH_MAX * 2 - 1, "pops of dropped pushes");
    gc_diag_pop(&d);
    cr_assert_eq(d.path_len, (size_t)GC_DIAG_DEPTH_MAX * 2 - 3);
    while (d.depth)
        gc_diag_pop(&d);
    cr_assert_str_eq(d.path, "");
}

/* gc_diag_push_index writes what gc_diag_push(d, "%s[%u]", ...) writes, at
 * every fill of the path buffer (the cut at its end included), and keeps
 * the same depth and marks, so pops restore the same paths. */
Test(diag, push_index_is_the_formatted_push)
{
    static const uint32_t indices[] = {0, 7, 17, 4294967295u};
    for (size_t fill = 0; fill < GC_DIAG_PATH_MAX + 4; fill += 1) {
        for (size_t k = 0; k < sizeof indices / sizeof *indices; k++) {
            gc_diag a, b;
            gc_diag_init(&a);
            gc_diag_init(&b);
            char pre[GC_DIAG_PATH_MAX + 8];
            memset(pre, 'p', fill);
            pre[fill] = '\0';
            if (fill) {
                gc_diag_push(&a, "%s", pre);
                gc_diag_push(&b, "%s", pre);
            }
            gc_diag_push(&a, "%s[%u]", "packet", (unsigned)indices[k]);
            gc_diag_push_index(&b, "packet", indices[k]);
            cr_assert_str_eq(b.path, a.path, "fill %zu index %u", fill, (unsigned)indices[k]);
            cr_assert_eq(b.path_len, a.path_len);
            cr_assert_eq(b.depth, a.depth);
            gc_diag_pop(&a);
            gc_diag_pop(&b);
            cr_assert_str_eq(b.path, a.path);
        }
    }
    gc_diag deep;
    gc_diag_init(&deep);
    for (int i = 0; i < GC_DIAG_DEPTH_MAX + 3; i++)
        gc_diag_push_index(&deep, "x", (uint32_t)i);
    cr_assert_eq(deep.depth, GC_DIAG_DEPTH_MAX + 3u);
    for (int i = 0; i < GC_DIAG_DEPTH_MAX + 3; i++)
        gc_diag_pop(&deep);
    cr_assert_str_eq(deep.path, "");
}
