/* SPDX-License-Identifier: MIT */
/* WAD LZ compressor for the synthetic corpus, written from formats.md §1
 * (header §1.1, packet grammar §1.2, block rule §1.3, recipe §1.6) and NOT
 * from the decoder in decoders/: a misreading shared by both sides would make
 * every round trip pass, so nothing here is shared with it.
 *
 * Shape of the encoder (docs/formats/wad-lz-encoder.md has the long version):
 *  - parse: one pass, hash chains over a 32 KiB window, greedy with a one-step
 *    lazy look-ahead; the result is a sequence of (literal run, match) pairs;
 *  - emit: each match is held back until the literal run after it is known, so
 *    a run of 1..3 bytes rides in the match's trailing-literal bits and the
 *    match and its trailing bytes are placed as one unit;
 *  - block rule: no unit crosses a 0x2000-byte block of the packet area; when
 *    the next unit does not fit, the block is closed with `12 00 00` and 0xEE
 *    filler. Literal packets are cut to the room left instead of padding early.
 *  - every match and literal run is clamped to the bytes left in the input (the
 *    encoder treats the whole input as one block), which is what Wrench's
 *    encoder gets wrong (formats.md §1.5). */
#include "sy_lz.h"

#include <stdlib.h>
#include <string.h>

/* §1.1 header: "WAD" at 0x0, s32 total size (header included) at 0x3,
 * 9 label bytes at 0x7. */
#define LZ_HEADER_BYTES  16u
#define LZ_SIZE_OFS      3u
#define LZ_LABEL_OFS     7u
#define LZ_LABEL_BYTES   9u
#define LZ_DEFAULT_LABEL "gcverify"

/* §1.3 block rule. Offsets are counted from the first packet byte (stream
 * offset 0x10). A unit may end at block offset LZ_BLOCK_LAST_END at the
 * latest, so the 3-byte pad always still fits in front of the boundary. */
#define LZ_BLOCK_BYTES    0x2000u
#define LZ_PAD_BYTES      3u
#define LZ_BLOCK_LAST_END (LZ_BLOCK_BYTES - LZ_PAD_BYTES) /* 0x1FFD */
#define LZ_FILLER         0xEEu

/* §1.2 packet limits. */
#define LIT_PACKET_MIN 4u /* medium literal F = n - 3, F in 1..15 */
#define LIT_MEDIUM_MAX 18u
#define LIT_BIG_MAX    273u /* big literal: 00, n - 18 (0..255) */
#define TRAIL_MAX      3u   /* 2 trailing-literal bits */

#define MATCH_MIN         3u
#define LITTLE_LEN_MAX    8u     /* F = (len-1)<<5: len 3..8 */
#define LITTLE_DIST_MAX   2048u  /* 8 * b1 + 3 bits of F */
#define MEDIUM_LEN_MAX    33u    /* F = 0x20 | (len - 2), len 3..33 */
#define NEAR_LEN_MAX      288u   /* big match: 20, len - 33 (1..255) */
#define NEAR_DIST_MAX     16384u /* 64 * b1 + (b0 >> 2) + 1 */
#define FAR_SHORT_LEN_MAX 9u     /* F = 0x10 | (len - 2), len 3..9 */
#define FAR_LEN_MAX       264u   /* 10, len - 9 (1..255) */
/* Far distances are 0x4000 + 64 * b1 + (b0 >> 2) with bit 3 of F clear, i.e.
 * 16385..32767. Bit 3 is never set: Wrench's encoder and decoder disagree on
 * what it means (formats.md §1.4), so this encoder stays out of its range. */
#define FAR_DIST_BASE 0x4000u
#define FAR_DIST_MAX  32767u

/* The largest unit the block rule has to place: a big literal packet. */
#define UNIT_MAX (2u + LIT_BIG_MAX)
/* Room to reserve in the output before building one unit (a dummy plus a
 * big literal, or a pad plus its filler plus either). */
#define EMIT_RESERVE (LZ_BLOCK_BYTES + 16u)

_Static_assert(LZ_BLOCK_LAST_END - UNIT_MAX - 3u > LZ_BLOCK_BYTES / 2u,
               "a pad must always sit in the second half of its block, or the decoder's "
               "0x1000-boundary skip would land in the middle of the block");

/* Match finder. Chains link positions whose first 4 bytes hash alike; they
 * are indexed by position modulo the window so that a link always points to
 * a position still inside the window. A 3-byte match only pays as a little
 * match (2 bytes for 3), so 3-byte keys get just a table of the newest
 * position, checked when it is close enough for a little match. Keying the
 * chains on 4 bytes keeps them free of candidates that fail on byte 4: on the
 * bench buffer that was both faster and 1.3% smaller than 3-byte chains. */
#define HASH_BITS   16u
#define HASH_SIZE   (1u << HASH_BITS)
#define WINDOW_SIZE 32768u /* > FAR_DIST_MAX */
#define WINDOW_MASK (WINDOW_SIZE - 1u)
#define CHAIN_DEPTH 16  /* candidates examined per position */
#define NICE_LEN    64u /* stop searching once a match this long is found */
#define LAZY_LEN    16u /* try the next position only if the match is shorter */
#define GOOD_LEN    8u  /* a match this long gets a quarter of the lazy search */
#define LAZY_DIV    2   /* otherwise the lazy search gets CHAIN_DEPTH / LAZY_DIV */

/* What the last non-pad packet was: decides whether a literal packet may
 * follow (§1.2 rule 1, §1.6 step 4; a pad is transparent for this). */
enum last_kind {
    LAST_START,   /* nothing yet */
    LAST_LITERAL, /* a literal packet: a literal packet may not follow */
    LAST_OPEN,    /* match or dummy whose trailing bits are 0 */
    LAST_CLOSED,  /* match or dummy that carries 1..3 trailing bytes */
};

typedef struct lz_match {
    uint32_t len;
    uint32_t dist;
} lz_match;

typedef struct lz_enc {
    const uint8_t *src;
    size_t len;
    sy_buf *out;
    size_t base; /* out->len where this stream starts */
    enum last_kind last;
    int32_t *head;      /* HASH_SIZE: newest position with this 4-byte hash, or -1 */
    int32_t *chain;     /* WINDOW_SIZE: previous position with the same 4-byte hash */
    int32_t *head3;     /* HASH_SIZE: newest position with this 3-byte hash, or -1 */
    size_t next_insert; /* positions below this are in the hash chains */
} lz_enc;

/* ---- output ------------------------------------------------------------ */

/* Offset of the next output byte inside its 0x2000 block. Always
 * <= LZ_BLOCK_LAST_END: every unit is placed so that it ends there at the
 * latest, and a pad moves to the start of the next block. */
static size_t block_ofs(const lz_enc *e)
{
    return (e->out->len - e->base - LZ_HEADER_BYTES) % LZ_BLOCK_BYTES;
}

static size_t block_room(const lz_enc *e)
{
    return LZ_BLOCK_LAST_END - block_ofs(e);
}

/* Close the current block: pad packet, then filler up to the boundary. The
 * caller has reserved EMIT_RESERVE bytes. */
static void emit_pad(lz_enc *e)
{
    uint8_t *p = e->out->data + e->out->len;
    size_t fill = LZ_BLOCK_BYTES - block_ofs(e) - LZ_PAD_BYTES;
    p[0] = 0x12; /* pad packet: far family, m = 2, zero distance */
    p[1] = 0x00;
    p[2] = 0x00;
    memset(p + LZ_PAD_BYTES, LZ_FILLER, fill);
    e->out->len += LZ_PAD_BYTES + fill;
}

/* Make sure `unit` bytes fit in the current block, padding if they do not. */
static void fit_unit(lz_enc *e, size_t unit)
{
    if (unit > block_room(e))
        emit_pad(e);
}

static uint8_t *out_ptr(lz_enc *e)
{
    return e->out->data + e->out->len;
}

static int reserve(lz_enc *e)
{
    return sy_buf_reserve(e->out, EMIT_RESERVE);
}

/* Dummy packet `11 0t 00` followed by t = n (1..3) literal bytes, or n = 0. */
static int emit_dummy(lz_enc *e, const uint8_t *lits, size_t n)
{
    if (reserve(e) != 0)
        return -1;
    fit_unit(e, 3 + n);
    uint8_t *p = out_ptr(e);
    p[0] = 0x11;
    p[1] = (uint8_t)n; /* b0: distance bits 0, trailing count in bits 0..1 */
    p[2] = 0x00;
    if (n)
        memcpy(p + 3, lits, n);
    e->out->len += 3 + n;
    e->last = n ? LAST_CLOSED : LAST_OPEN;
    return 0;
}

/* A literal run of n >= 1 bytes that does not ride on a match: literal
 * packets of 4..273 bytes, a dummy between two of them, and a remainder of
 * 1..3 bytes in a dummy's trailing bits. */
static int emit_literals(lz_enc *e, const uint8_t *lits, size_t n)
{
    while (n > 0) {
        if (n <= TRAIL_MAX) {
            /* Nothing before can take the bytes: the stream start, a literal
             * packet, or a packet already carrying trailing bytes. */
            return emit_dummy(e, lits, n);
        }
        if (reserve(e) != 0)
            return -1;
        int need_dummy = e->last == LAST_LITERAL || e->last == LAST_CLOSED;
        size_t room = block_room(e);
        size_t dummy = need_dummy ? 3u : 0u;
        size_t k = n < LIT_BIG_MAX ? n : LIT_BIG_MAX;
        size_t hdr = k <= LIT_MEDIUM_MAX ? 1u : 2u;
        if (dummy + hdr + k > room) {
            /* Cut the packet to the room left in the block rather than pad
             * early; the rest goes to the next block. */
            size_t avail = room > dummy ? room - dummy : 0;
            if (avail >= 2 + LIT_MEDIUM_MAX + 1)
                k = avail - 2;
            else if (avail >= 1 + LIT_PACKET_MIN)
                k = avail - 1 < LIT_MEDIUM_MAX ? avail - 1 : LIT_MEDIUM_MAX;
            else
                k = 0;
            if (k > n)
                k = n;
            if (k < LIT_PACKET_MIN) {
                emit_pad(e);
                continue; /* last is unchanged: the pad is transparent */
            }
            hdr = k <= LIT_MEDIUM_MAX ? 1u : 2u;
        }
        uint8_t *p = out_ptr(e);
        if (need_dummy) {
            p[0] = 0x11;
            p[1] = 0x00;
            p[2] = 0x00;
            p += 3;
        }
        if (hdr == 1) {
            p[0] = (uint8_t)(k - 3); /* medium literal: F = n - 3 */
        } else {
            p[0] = 0x00; /* big literal: 00, n - 18 */
            p[1] = (uint8_t)(k - LIT_MEDIUM_MAX);
        }
        memcpy(p + hdr, lits, k);
        e->out->len += dummy + hdr + k;
        e->last = LAST_LITERAL;
        lits += k;
        n -= k;
    }
    return 0;
}

/* Encoded size of a match packet (without trailing bytes). */
static uint32_t match_cost(uint32_t len, uint32_t dist)
{
    if (len <= LITTLE_LEN_MAX && dist <= LITTLE_DIST_MAX)
        return 2;
    if (dist <= NEAR_DIST_MAX)
        return len <= MEDIUM_LEN_MAX ? 3 : 4;
    return len <= FAR_SHORT_LEN_MAX ? 3 : 4;
}

/* A match followed by t = n (0..3) trailing literal bytes, placed as one unit. */
static int emit_match(lz_enc *e, lz_match m, const uint8_t *lits, size_t n)
{
    if (reserve(e) != 0)
        return -1;
    uint8_t pk[4];
    size_t k = 0;
    uint32_t t = (uint32_t)n;
    if (m.len <= LITTLE_LEN_MAX && m.dist <= LITTLE_DIST_MAX) {
        /* little: F = len-1 (3 bits) | dist-1 low 3 bits | t; b1 = (dist-1) >> 3 */
        uint32_t d = m.dist - 1;
        pk[k++] = (uint8_t)(((m.len - 1) << 5) | ((d & 7u) << 2) | t);
        pk[k++] = (uint8_t)(d >> 3);
    } else if (m.dist <= NEAR_DIST_MAX) {
        uint32_t d = m.dist - 1;
        if (m.len <= MEDIUM_LEN_MAX) {
            pk[k++] = (uint8_t)(0x20u | (m.len - 2));
        } else {
            pk[k++] = 0x20;
            pk[k++] = (uint8_t)(m.len - MEDIUM_LEN_MAX);
        }
        pk[k++] = (uint8_t)(((d & 63u) << 2) | t); /* b0 */
        pk[k++] = (uint8_t)(d >> 6);               /* b1 */
    } else {
        uint32_t x = m.dist - FAR_DIST_BASE; /* 1..16383: bit 3 of F stays clear */
        if (m.len <= FAR_SHORT_LEN_MAX) {
            pk[k++] = (uint8_t)(0x10u | (m.len - 2));
        } else {
            pk[k++] = 0x10;
            pk[k++] = (uint8_t)(m.len - FAR_SHORT_LEN_MAX);
        }
        pk[k++] = (uint8_t)(((x & 63u) << 2) | t);
        pk[k++] = (uint8_t)(x >> 6);
    }
    fit_unit(e, k + n);
    uint8_t *p = out_ptr(e);
    memcpy(p, pk, k);
    if (n)
        memcpy(p + k, lits, n);
    e->out->len += k + n;
    e->last = n ? LAST_CLOSED : LAST_OPEN;
    return 0;
}

/* ---- match finder ------------------------------------------------------- */

static uint32_t hash3(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
    return (v * 2654435761u) >> (32u - HASH_BITS);
}

static uint32_t hash4(const uint8_t *p)
{
    uint32_t v =
        (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    return (v * 2654435761u) >> (32u - HASH_BITS);
}

/* Enter every position below `upto` into the 3-byte table (if 3 bytes follow
 * it) and the 4-byte chains (if 4 do), each exactly once: a position chained
 * twice would link to itself. */
static void insert_upto(lz_enc *e, size_t upto)
{
    size_t stop3 = e->len >= 3 ? e->len - 2 : 0;
    size_t stop4 = e->len >= 4 ? e->len - 3 : 0;
    if (upto > stop3)
        upto = stop3;
    for (size_t i = e->next_insert; i < upto; i++) {
        e->head3[hash3(e->src + i)] = (int32_t)i;
        if (i < stop4) {
            uint32_t h = hash4(e->src + i);
            e->chain[i & WINDOW_MASK] = e->head[h];
            e->head[h] = (int32_t)i;
        }
    }
    if (upto > e->next_insert)
        e->next_insert = upto;
}

/* Length of the common prefix of a and b, at most max. Compares 8 bytes at a
 * time and finishes byte by byte, so the result is the same on any host. */
static uint32_t common_len(const uint8_t *a, const uint8_t *b, uint32_t max)
{
    uint32_t n = 0;
    while (n + 8 <= max) {
        uint64_t x, y;
        memcpy(&x, a + n, 8);
        memcpy(&y, b + n, 8);
        if (x != y)
            break;
        n += 8;
    }
    while (n < max && a[n] == b[n])
        n++;
    return n;
}

/* Bytes a match saves over sending its bytes as literals. */
static int32_t match_gain(uint32_t len, uint32_t dist)
{
    return (int32_t)len - (int32_t)match_cost(len, dist);
}

/* Best match for the bytes at pos among the chained earlier positions that is
 * longer than bar_len and saves more than bar_gain bytes; len 0 if there is
 * none. The length is clamped to the bytes left in the input, so no match can
 * reach past the end (the defect of formats.md §1.5). */
static lz_match find_match(const lz_enc *e, size_t pos, uint32_t bar_len, int32_t bar_gain,
                           int depth)
{
    lz_match best = {0, 0};
    size_t left = e->len - pos;
    if (left < MATCH_MIN || left <= bar_len)
        return best;
    uint32_t near_max = left < NEAR_LEN_MAX ? (uint32_t)left : NEAR_LEN_MAX;
    uint32_t far_max = left < FAR_LEN_MAX ? (uint32_t)left : FAR_LEN_MAX;
    const uint8_t *cur = e->src + pos;
    uint32_t beat = bar_len; /* a candidate must be longer than this */
    int32_t best_gain = bar_gain;
    if (beat < MATCH_MIN) {
        /* the newest 3-byte match, if a little match can reach it */
        int32_t c3 = e->head3[hash3(cur)];
        size_t dist = pos - (size_t)c3;
        if (c3 >= 0 && dist != 0 && dist <= LITTLE_DIST_MAX) {
            const uint8_t *c = e->src + c3;
            if (c[0] == cur[0] && c[1] == cur[1] && c[2] == cur[2]) {
                uint32_t l = common_len(c, cur, near_max);
                int32_t g = match_gain(l, (uint32_t)dist);
                if (g > best_gain) {
                    best.len = l;
                    best.dist = (uint32_t)dist;
                    best_gain = g;
                    beat = l;
                }
            }
        }
    }
    if (left < 4)
        return best;
    int32_t cand = e->head[hash4(cur)];
    for (; cand >= 0 && depth > 0; depth--) {
        size_t dist = pos - (size_t)cand;
        if (dist > FAR_DIST_MAX || dist == 0)
            break;
        uint32_t max = dist > NEAR_DIST_MAX ? far_max : near_max;
        const uint8_t *c = e->src + cand;
        /* Candidates come nearest first and a farther one never costs less
         * for the same length, so it only wins by being longer than the best
         * so far: test the byte that would make it longer first. */
        if (beat < max && c[beat] == cur[beat] && c[0] == cur[0] && c[1] == cur[1] &&
            c[2] == cur[2]) {
            uint32_t l = common_len(c, cur, max);
            int32_t g = match_gain(l, (uint32_t)dist);
            if (l > beat && l >= MATCH_MIN && g > best_gain) {
                best.len = l;
                best.dist = (uint32_t)dist;
                best_gain = g;
                beat = l;
                if (l >= NICE_LEN || l == max)
                    break;
            }
        }
        cand = e->chain[(size_t)cand & WINDOW_MASK];
    }
    return best;
}

/* ---- driver ------------------------------------------------------------- */

/* Emit the match held back so far (if any) together with the literal run
 * that followed it. */
static int flush(lz_enc *e, const lz_match *held, const uint8_t *lits, size_t n)
{
    if (held && n <= TRAIL_MAX)
        return emit_match(e, *held, lits, n);
    if (held && emit_match(e, *held, NULL, 0) != 0)
        return -1;
    return n ? emit_literals(e, lits, n) : 0;
}

static int encode(lz_enc *e)
{
    const uint8_t *src = e->src;
    size_t len = e->len;
    size_t pos = 0, lit_start = 0;
    lz_match held = {0, 0};
    int have_held = 0;
    while (pos + MATCH_MIN <= len) {
        insert_upto(e, pos);
        lz_match m = find_match(e, pos, 0, 0, CHAIN_DEPTH);
        if (m.len == 0) {
            pos++;
            continue;
        }
        /* One-step lazy evaluation: a longer match that saves more one byte
         * later is worth one more literal byte. A match that is already good
         * gets a shorter look. */
        while (m.len < LAZY_LEN && pos + 1 + MATCH_MIN <= len) {
            insert_upto(e, pos + 1);
            int depth = m.len >= GOOD_LEN ? CHAIN_DEPTH / 4 : CHAIN_DEPTH / LAZY_DIV;
            lz_match m2 = find_match(e, pos + 1, m.len, match_gain(m.len, m.dist), depth);
            if (m2.len == 0)
                break;
            m = m2;
            pos++;
        }
        if (flush(e, have_held ? &held : NULL, src + lit_start, pos - lit_start) != 0)
            return -1;
        held = m;
        have_held = 1;
        pos += m.len; /* m.len <= len - pos: clamped by find_match */
        lit_start = pos;
    }
    return flush(e, have_held ? &held : NULL, src + lit_start, len - lit_start);
}

int sy_lz_compress(const uint8_t *src, size_t len, const char *label, sy_buf *out)
{
    if (out->failed)
        return -1;
    /* The size field is an s32; even incompressible input grows by ~2%. */
    if (len > (size_t)INT32_MAX / 2)
        return -1;
    if (len > 0 && !src)
        return -1;
    size_t base = out->len;
    lz_enc e;
    memset(&e, 0, sizeof e);
    e.src = src;
    e.len = len;
    e.out = out;
    e.base = base;
    e.last = LAST_START;
    e.head = malloc(HASH_SIZE * sizeof *e.head);
    e.chain = malloc(WINDOW_SIZE * sizeof *e.chain);
    e.head3 = malloc(HASH_SIZE * sizeof *e.head3);
    int rc = -1;
    if (e.head && e.chain && e.head3 && sy_buf_reserve(out, LZ_HEADER_BYTES) == 0) {
        memset(e.head, 0xFF, HASH_SIZE * sizeof *e.head); /* all -1 */
        memset(e.head3, 0xFF, HASH_SIZE * sizeof *e.head3);
        uint8_t hdr[LZ_HEADER_BYTES] = {'W', 'A', 'D'};
        const char *lab = label ? label : LZ_DEFAULT_LABEL;
        /* strncpy semantics: up to 9 bytes, zero-padded, not terminated. */
        for (size_t i = 0; i < LZ_LABEL_BYTES && lab[i]; i++)
            hdr[LZ_LABEL_OFS + i] = (uint8_t)lab[i];
        memcpy(out->data + out->len, hdr, LZ_HEADER_BYTES);
        out->len += LZ_HEADER_BYTES;
        rc = len ? encode(&e) : 0; /* empty input: the header alone */
        if (rc == 0 && out->len - base > (size_t)INT32_MAX)
            rc = -1;
    }
    if (rc == 0) {
        size_t total = out->len - base; /* header included (§1.1) */
        out->data[base + LZ_SIZE_OFS + 0] = (uint8_t)total;
        out->data[base + LZ_SIZE_OFS + 1] = (uint8_t)(total >> 8);
        out->data[base + LZ_SIZE_OFS + 2] = (uint8_t)(total >> 16);
        out->data[base + LZ_SIZE_OFS + 3] = (uint8_t)(total >> 24);
    } else {
        out->len = base;
        out->failed = 0;
    }
    free(e.head);
    free(e.chain);
    free(e.head3);
    return rc;
}
