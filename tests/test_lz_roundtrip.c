/* SPDX-License-Identifier: MIT */
/* Round trips of the WAD LZ encoder (synth/sy_lz.c) through the decoder
 * (decoders/gc_lz.c), and a structural check of every stream the encoder
 * writes by a packet walker local to this file (formats.md §1.2, §1.3, §1.6).
 *
 * The two codecs were written independently; the walker is a third reading
 * of the grammar that also checks what a decoder does not care about: no
 * packet (with its trailing literal bytes) straddles a 0x2000 block, pads are
 * `12 00 00` + 0xEE filler up to a block end and only where the next packet
 * would not fit, no literal packet follows a literal packet or a packet that
 * carries trailing bytes (a pad in between does not count), and no dummy is
 * spent where none was needed. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_lz.h"
#include "sy_lz.h"

/* ---- deterministic data ---------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64: explicit seed, same stream everywhere */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(rng_next(s) % n);
}

static void gen_random(uint8_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rng_next(&seed);
}

/* Runs of one byte value, 1..600 long. */
static void gen_runs(uint8_t *p, size_t n, uint64_t seed)
{
    size_t i = 0;
    while (i < n) {
        size_t r = 1 + rng_below(&seed, 600);
        uint8_t v = (uint8_t)rng_next(&seed);
        for (size_t k = 0; k < r && i < n; k++)
            p[i++] = v;
    }
}

/* Shaped like level data: fixed-stride records with slowly changing fields,
 * palette-indexed texel rows that repeat with small edits, and some noise.
 * Compresses to roughly 0.55..0.65 of its size. */
static void gen_level_like(uint8_t *p, size_t n, uint64_t seed)
{
    size_t i = 0;
    uint32_t counter = 0;
    while (i < n) {
        uint32_t kind = rng_below(&seed, 10);
        size_t seg = 256 + rng_below(&seed, 2048);
        if (seg > n - i)
            seg = n - i;
        if (kind < 4) { /* records: 32 bytes, an index, a few coordinates, flags */
            for (size_t k = 0; k < seg; k++) {
                size_t f = k % 32;
                uint8_t v;
                if (f < 4)
                    v = (uint8_t)(counter >> (8 * f));
                else if (f < 16)
                    v = (uint8_t)(rng_below(&seed, 4) == 0 ? rng_next(&seed) : f * 7);
                else if (f < 24)
                    v = (uint8_t)((counter * 3 + f) & 0x3F);
                else
                    v = 0;
                if (f == 31)
                    counter++;
                p[i + k] = v;
            }
        } else if (kind < 8) { /* texels: 16-colour rows, each row an edit of the last */
            uint8_t row[64];
            for (size_t k = 0; k < sizeof row; k++)
                row[k] = (uint8_t)(rng_below(&seed, 16) + 0x40);
            for (size_t k = 0; k < seg; k++) {
                if (k % sizeof row == 0 && k)
                    for (int e = 0; e < 6; e++)
                        row[rng_below(&seed, sizeof row)] = (uint8_t)(rng_below(&seed, 16) + 0x40);
                p[i + k] = row[k % sizeof row];
            }
        } else { /* noise */
            for (size_t k = 0; k < seg; k++)
                p[i + k] = (uint8_t)rng_next(&seed);
        }
        i += seg;
    }
}

/* ---- the packet walker ------------------------------------------------------ */

#define BLK          0x2000u
#define BLK_LAST_END 0x1FFDu

enum kind {
    K_LIT_MEDIUM,
    K_LIT_BIG,
    K_LITTLE,
    K_MEDIUM,
    K_BIG,
    K_FAR,
    K_FAR_EXT,
    K_DUMMY,
    K_PAD,
    K_TRAIL1,
    K_TRAIL2,
    K_TRAIL3,
    K_COUNT
};

static const char *const kind_name[K_COUNT] = {
    "medium literal",  "big literal", "little match", "medium match",    "big match",  "far match",
    "far match (ext)", "dummy",       "pad",          "1 trailing byte", "2 trailing", "3 trailing",
};

enum prev { P_START, P_LITERAL, P_OPEN, P_CLOSED };

typedef struct walk {
    char err[160];
    size_t counts[K_COUNT];
    uint8_t *out; /* the walker's own decode */
    size_t out_len;
    size_t out_cap;
} walk;

static int walk_fail(walk *w, size_t ofs, const char *what)
{
    snprintf(w->err, sizeof w->err, "stream offset 0x%zx: %s", ofs, what);
    return -1;
}

/* Walk stream s[0..n) and decode it into w->out. 0 if every rule holds. */
static int walk_stream(walk *w, const uint8_t *s, size_t n)
{
    memset(w->counts, 0, sizeof w->counts);
    w->err[0] = '\0';
    w->out_len = 0;
    if (n < 16 || memcmp(s, "WAD", 3) != 0)
        return walk_fail(w, 0, "no header");
    uint32_t size =
        (uint32_t)s[3] | (uint32_t)s[4] << 8 | (uint32_t)s[5] << 16 | (uint32_t)s[6] << 24;
    if (size != n)
        return walk_fail(w, 3, "size field differs from the stream length");
    enum prev prev = P_START;
    int dummy_wants_literal = 0; /* a dummy without trailing bytes was spent */
    size_t pos = 16;
    while (pos < n) {
        size_t bstart = 16 + (pos - 16) / BLK * BLK;
        size_t bofs = pos - bstart;
        uint8_t f = s[pos];
        size_t plen = 0, lits = 0, mlen = 0, dist = 0;
        int is_literal = 0;
        if (f < 0x10) {
            is_literal = 1;
            if (f) {
                plen = 1;
                lits = (size_t)f + 3;
                w->counts[K_LIT_MEDIUM]++;
            } else {
                if (pos + 2 > n)
                    return walk_fail(w, pos, "stream ends inside a big literal header");
                plen = 2;
                lits = (size_t)s[pos + 1] + 18;
                if (lits <= 18)
                    return walk_fail(w, pos, "big literal of <= 18 bytes (medium is shorter)");
                w->counts[K_LIT_BIG]++;
            }
            if (prev == P_LITERAL)
                return walk_fail(w, pos, "literal packet after a literal packet");
            if (prev == P_CLOSED)
                return walk_fail(w, pos, "literal packet after a packet carrying trailing bytes");
            dummy_wants_literal = 0;
        } else {
            if (dummy_wants_literal)
                return walk_fail(w, pos, "dummy without trailing bytes not followed by a literal");
            size_t b = pos + 1;
            uint32_t m;
            if (f < 0x20) {
                m = f & 7u;
                int ext = m == 0;
                if (ext) {
                    if (b >= n)
                        return walk_fail(w, pos, "stream ends inside a packet");
                    m = (uint32_t)s[b++] + 7;
                }
                if (b + 2 > n)
                    return walk_fail(w, pos, "stream ends inside a packet");
                if (f & 8)
                    return walk_fail(w, pos, "far packet with bit 3 set");
                uint32_t d = (uint32_t)s[b + 1] * 64 + (s[b] >> 2);
                plen = b + 2 - pos;
                if (d == 0 && m != 1) {
                    /* pad: canonical bytes, second half of the block, filler to
                     * the block end, more stream after it, and only because the
                     * next unit (at most 278 bytes) would not have fitted. */
                    if (f != 0x12 || s[b] != 0 || s[b + 1] != 0)
                        return walk_fail(w, pos, "pad is not 12 00 00");
                    if (bofs + 3 > BLK)
                        return walk_fail(w, pos, "pad straddles a block boundary");
                    if (bofs + 3 + 278 <= BLK)
                        return walk_fail(w, pos, "pad long before the block end");
                    size_t bend = bstart + BLK;
                    if (bend >= n)
                        return walk_fail(w, pos, "pad in the last block");
                    for (size_t k = pos + 3; k < bend; k++)
                        if (s[k] != 0xEE)
                            return walk_fail(w, k, "pad filler is not 0xEE");
                    w->counts[K_PAD]++;
                    pos = bend;
                    continue; /* transparent: prev stays */
                }
                if (d == 0) {
                    if (s[b + 1] != 0 || f != 0x11)
                        return walk_fail(w, pos, "dummy is not 11 0t 00");
                    w->counts[K_DUMMY]++;
                    if ((s[b] & 3) == 0) {
                        if (prev != P_LITERAL && prev != P_CLOSED)
                            return walk_fail(w, pos, "needless dummy");
                        dummy_wants_literal = 1;
                    } else if (prev == P_OPEN) {
                        return walk_fail(w, pos, "dummy carries bytes the previous match could");
                    }
                } else {
                    mlen = m + 2;
                    dist = d + 0x4000;
                    w->counts[ext ? K_FAR_EXT : K_FAR]++;
                }
            } else if (f < 0x40) {
                m = f & 0x1Fu;
                if (m == 0) {
                    if (b >= n)
                        return walk_fail(w, pos, "stream ends inside a packet");
                    m = (uint32_t)s[b++] + 0x1F;
                    w->counts[K_BIG]++;
                } else {
                    w->counts[K_MEDIUM]++;
                }
                if (b + 2 > n)
                    return walk_fail(w, pos, "stream ends inside a packet");
                mlen = m + 2;
                dist = (size_t)s[b + 1] * 64 + (s[b] >> 2) + 1;
                plen = b + 2 - pos;
            } else {
                if (b + 1 > n)
                    return walk_fail(w, pos, "stream ends inside a packet");
                mlen = (size_t)(f >> 5) + 1;
                dist = (size_t)s[b] * 8 + ((f >> 2) & 7u) + 1;
                plen = 2;
                w->counts[K_LITTLE]++;
            }
            lits = s[pos + plen - 2] & 3u;
            if (lits)
                w->counts[K_TRAIL1 + lits - 1]++;
        }
        size_t unit = plen + lits;
        if (pos + unit > n)
            return walk_fail(w, pos, "stream ends inside a packet's bytes");
        if (bofs + unit > BLK)
            return walk_fail(w, pos, "packet straddles a 0x2000 block boundary");
        if (bofs + unit > BLK_LAST_END)
            return walk_fail(w, pos, "packet leaves no room for a pad before the block end");
        if (mlen) {
            if (dist > w->out_len)
                return walk_fail(w, pos, "match reaches before the output start");
            if (w->out_len + mlen > w->out_cap)
                return walk_fail(w, pos, "output longer than expected");
            for (size_t k = 0; k < mlen; k++, w->out_len++)
                w->out[w->out_len] = w->out[w->out_len - dist];
        }
        if (w->out_len + lits > w->out_cap)
            return walk_fail(w, pos, "output longer than expected");
        memcpy(w->out + w->out_len, s + pos + plen, lits);
        w->out_len += lits;
        prev = is_literal ? P_LITERAL : (s[pos + plen - 2] & 3u) ? P_CLOSED : P_OPEN;
        pos += unit;
    }
    if (dummy_wants_literal)
        return walk_fail(w, pos, "stream ends after a needless dummy");
    return 0;
}

/* ---- round-trip helper ------------------------------------------------------- */

typedef struct rt_stats {
    size_t counts[K_COUNT];
    size_t in_bytes;
    size_t out_bytes;
} rt_stats;

/* Compress, walk, decode with gc_lz_decompress, compare. Asserts on failure. */
static void round_trip(const uint8_t *src, size_t len, const char *what, rt_stats *st)
{
    sy_buf z;
    sy_buf_init(&z);
    cr_assert_eq(sy_lz_compress(src, len, NULL, &z), 0, "%s (%zu bytes): compress failed", what,
                 len);

    walk w;
    w.out_cap = len;
    w.out = malloc(len ? len : 1);
    cr_assert_not_null(w.out);
    int wr = walk_stream(&w, z.data, z.len);
    cr_assert_eq(wr, 0, "%s (%zu bytes): %s", what, len, w.err);
    cr_assert_eq(w.out_len, len, "%s (%zu bytes): walker decoded %zu bytes", what, len, w.out_len);
    cr_assert(len == 0 || memcmp(w.out, src, len) == 0, "%s (%zu bytes): walker decode differs",
              what, len);
    free(w.out);

    /* Slack in the capacity so a stream that decodes too long is seen. */
    size_t cap = len + 4096;
    uint8_t *dst = malloc(cap);
    cr_assert_not_null(dst);
    size_t dst_len = 0;
    gc_diag d;
    gc_diag_init(&d);
    gc_status s = gc_lz_decompress(z.data, z.len, 0, dst, cap, &dst_len, &d);
    cr_assert_eq(s, GC_OK, "%s (%zu bytes): gc_lz_decompress: %s at 0x%llx: %s", what, len,
                 gc_status_name(s), (unsigned long long)d.file_ofs, d.msg);
    cr_assert_eq(dst_len, len, "%s (%zu bytes): decoded %zu bytes", what, len, dst_len);
    for (size_t i = 0; i < len; i++)
        if (dst[i] != src[i])
            cr_assert_fail("%s (%zu bytes): first difference at %zu", what, len, i);
    free(dst);

    if (st) {
        for (int k = 0; k < K_COUNT; k++)
            st->counts[k] += w.counts[k];
        st->in_bytes += len;
        st->out_bytes += z.len;
    }
    sy_buf_free(&z);
}

typedef void (*gen_fn)(uint8_t *, size_t, uint64_t);

static void round_trip_gen(gen_fn gen, size_t len, uint64_t seed, const char *what, rt_stats *st)
{
    uint8_t *p = malloc(len ? len : 1);
    cr_assert_not_null(p);
    gen(p, len, seed);
    round_trip(p, len, what, st);
    free(p);
}

/* ---- tests -------------------------------------------------------------------- */

Test(lz_roundtrip, empty_input_is_a_bare_header)
{
    sy_buf z;
    sy_buf_init(&z);
    cr_assert_eq(sy_lz_compress(NULL, 0, NULL, &z), 0);
    static const uint8_t want[16] = {'W', 'A', 'D', 16,  0,   0,   0,   'g',
                                     'c', 'v', 'e', 'r', 'i', 'f', 'y', 0};
    cr_assert_eq(z.len, 16);
    cr_assert_arr_eq(z.data, want, 16);
    uint8_t dst[8];
    size_t dst_len = 99;
    gc_diag d;
    gc_diag_init(&d);
    cr_assert_eq(gc_lz_decompress(z.data, z.len, 0, dst, sizeof dst, &dst_len, &d), GC_OK);
    cr_assert_eq(dst_len, 0);
    sy_buf_free(&z);
}

Test(lz_roundtrip, one_byte_rides_in_a_dummy)
{
    for (int v = 0; v < 256; v += 17) {
        uint8_t b = (uint8_t)v;
        sy_buf z;
        sy_buf_init(&z);
        cr_assert_eq(sy_lz_compress(&b, 1, "x", &z), 0);
        /* header, then dummy 11 01 00 carrying the byte (§1.6 step 3) */
        cr_assert_eq(z.len, 20);
        cr_assert_eq(z.data[3], 20);
        cr_assert_eq(z.data[7], 'x');
        cr_assert_eq(z.data[8], 0);
        const uint8_t want[4] = {0x11, 0x01, 0x00, b};
        cr_assert_arr_eq(z.data + 16, want, 4);
        sy_buf_free(&z);
        round_trip(&b, 1, "one byte", NULL);
    }
}

Test(lz_roundtrip, labels_have_strncpy_semantics)
{
    static const struct {
        const char *label;
        const char want[9];
    } cases[] = {
        {NULL, "gcverify"},
        {"", ""},
        {"gameplay", "gameplay"},
        {"chnktfrag", {'c', 'h', 'n', 'k', 't', 'f', 'r', 'a', 'g'}},
        {"transition", {'t', 'r', 'a', 'n', 's', 'i', 't', 'i', 'o'}},
    };
    uint8_t src[100];
    gen_level_like(src, sizeof src, 5);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sy_buf z;
        sy_buf_init(&z);
        cr_assert_eq(sy_lz_compress(src, sizeof src, cases[i].label, &z), 0);
        cr_assert_arr_eq(z.data + 7, cases[i].want, 9, "label %zu", i);
        sy_buf_free(&z);
    }
}

Test(lz_roundtrip, every_small_size)
{
    for (size_t n = 0; n <= 300; n++) {
        round_trip_gen(gen_random, n, 100 + n, "small random", NULL);
        round_trip_gen(gen_runs, n, 200 + n, "small runs", NULL);
        round_trip_gen(gen_level_like, n, 300 + n, "small level-like", NULL);
    }
}

Test(lz_roundtrip, runs_compress_hard)
{
    size_t n = 1u << 20;
    uint8_t *p = calloc(n, 1);
    cr_assert_not_null(p);
    rt_stats st = {{0}, 0, 0};
    round_trip(p, n, "zeros", &st);
    /* 1 MiB of zeros is ~4000 big matches of 288: a broken matcher cannot hit this */
    cr_assert_lt(st.out_bytes, n / 60, "1 MiB of zeros took %zu bytes", st.out_bytes);
    memset(p, 'A', n);
    p[n / 2] = 'B';
    round_trip(p, n, "one run with a bump", NULL);
    free(p);
    round_trip_gen(gen_runs, 300000, 7, "runs", NULL);
}

Test(lz_roundtrip, random_sizes)
{
    uint64_t seed = 42;
    for (int i = 0; i < 200; i++) {
        size_t n = 1 + rng_below(&seed, 3200);
        round_trip_gen(gen_random, n, seed + (uint64_t)i, "random", NULL);
        round_trip_gen(gen_level_like, n, seed ^ (uint64_t)i, "level-like", NULL);
    }
}

/* Incompressible input puts the first output block seam right around input
 * size 0x2000: every size from 0x2000-300 to 0x2000+300 moves the seam across
 * every kind of packet and every literal split. */
Test(lz_roundtrip, every_size_around_the_first_block_seam)
{
    rt_stats st = {{0}, 0, 0};
    for (size_t n = BLK - 300; n <= BLK + 300; n++) {
        round_trip_gen(gen_random, n, n, "seam random", &st);
        round_trip_gen(gen_level_like, n, n * 3, "seam level-like", &st);
    }
    cr_assert_gt(st.counts[K_PAD], 300, "only %zu pads in 1202 streams", st.counts[K_PAD]);
}

Test(lz_roundtrip, sizes_around_multiples_of_the_block)
{
    static const size_t mult[] = {2, 3, 4, 7, 8, 16, 33};
    for (size_t i = 0; i < sizeof mult / sizeof mult[0]; i++)
        for (size_t d = 0; d <= 6; d++) {
            size_t n = mult[i] * BLK + d - 3;
            round_trip_gen(gen_random, n, n, "multiple random", NULL);
            round_trip_gen(gen_level_like, n, n + 1, "multiple level-like", NULL);
            round_trip_gen(gen_runs, n, n + 2, "multiple runs", NULL);
        }
}

Test(lz_roundtrip, multi_megabyte)
{
    rt_stats st = {{0}, 0, 0};
    round_trip_gen(gen_level_like, 5u << 20, 2026, "5 MiB level-like", &st);
    /* 1.5:1 or better on level-shaped data (the reference levels run ~1.7:1) */
    cr_assert_lt(st.out_bytes * 3, st.in_bytes * 2, "level-like: %zu -> %zu bytes", st.in_bytes,
                 st.out_bytes);
    round_trip_gen(gen_random, 2u << 20, 99, "2 MiB random", NULL);
}

/* Clamping (formats.md §1.5): a match or literal run that would reach past
 * the input end is cut, and the stream decodes to exactly the input length
 * (round_trip gives the decoder 4 KiB of spare capacity to show any excess). */
Test(lz_roundtrip, matches_and_literals_clamped_at_the_input_end)
{
    uint8_t *p = malloc(6000);
    cr_assert_not_null(p);
    for (size_t tail = 0; tail <= 300; tail++) {
        gen_random(p, 5000, tail);
        memset(p + 5000, 0x5A, tail);
        round_trip(p, 5000 + tail, "random then a run", NULL);
        /* the same 300-byte phrase repeated, cut at every length */
        for (size_t k = 0; k < 300 + tail; k++)
            p[300 + k] = p[k];
        round_trip(p, 300 + 300 + tail, "phrase repeated", NULL);
    }
    free(p);
}

Test(lz_roundtrip, every_packet_kind_is_used)
{
    rt_stats st = {{0}, 0, 0};
    /* far matches: a phrase repeated 20000 bytes later */
    size_t n = 60000;
    uint8_t *p = malloc(n);
    cr_assert_not_null(p);
    gen_random(p, n, 1);
    memcpy(p + 21000, p + 100, 8);     /* short far match */
    memcpy(p + 30000, p + 9000, 400);  /* long far match */
    memcpy(p + 40000, p + 39000, 500); /* long near match */
    round_trip(p, n, "far", &st);
    free(p);
    round_trip_gen(gen_level_like, 200000, 3, "level-like", &st);
    round_trip_gen(gen_runs, 100000, 4, "runs", &st);
    for (int k = 0; k < K_COUNT; k++)
        cr_assert_gt(st.counts[k], 0, "no %s in any stream", kind_name[k]);
}

Test(lz_roundtrip, deterministic_and_appends)
{
    size_t n = 300000;
    uint8_t *p = malloc(n);
    cr_assert_not_null(p);
    gen_level_like(p, n, 77);
    sy_buf a, b;
    sy_buf_init(&a);
    sy_buf_init(&b);
    cr_assert_eq(sy_lz_compress(p, n, "gameplay", &a), 0);
    /* the second stream goes after existing bytes: block offsets are counted
     * from its own start, so its bytes are the same */
    sy_buf_put(&b, "prefix", 6);
    cr_assert_eq(sy_lz_compress(p, n, "gameplay", &b), 0);
    cr_assert_eq(b.len, a.len + 6);
    cr_assert_arr_eq(b.data, "prefix", 6);
    cr_assert(memcmp(a.data, b.data + 6, a.len) == 0, "two runs differ");
    sy_buf_free(&a);
    sy_buf_free(&b);
    free(p);
}

/* -1 leaves the buffer as it was: a buffer already failed is not touched, and
 * an input whose stream could not fit the s32 size field is refused before
 * anything is read or written. */
Test(lz_roundtrip, failure_leaves_the_buffer_as_it_was)
{
    uint8_t src[4] = {1, 2, 3, 4};
    sy_buf b;
    sy_buf_init(&b);
    sy_buf_put(&b, "abc", 3);
    b.failed = 1;
    cr_assert_eq(sy_lz_compress(src, sizeof src, NULL, &b), -1);
    cr_assert_eq(b.len, 3);
    b.failed = 0;
    cr_assert_eq(sy_lz_compress(src, (size_t)INT32_MAX, NULL, &b), -1);
    cr_assert_eq(b.len, 3);
    cr_assert_eq(b.failed, 0);
    cr_assert_arr_eq(b.data, "abc", 3);
    cr_assert_eq(sy_lz_compress(src, sizeof src, NULL, &b), 0);
    cr_assert_eq(b.len, 3 + 16 + 5, "4 bytes: medium literal 01 + 4 bytes");
    sy_buf_free(&b);
}
