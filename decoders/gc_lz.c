/* SPDX-License-Identifier: MIT */
/* WAD LZ decompressor (formats.md §1; docs/formats/wad-lz.md): checked fast
 * loops that use fixed-size "wild" copies while both buffers have proven
 * slack (a start loop for the first 48 KiB of output, then the main loop,
 * which may assume that no distance reaches before the start), then a
 * byte-exact tail loop with every check, in the manner of lz4.
 *
 * Positions are size_t indices into src/dst, never pointers past a buffer, so
 * a pad packet that skips beyond the declared end is harmless arithmetic.
 *
 * The fast loops do not branch on the packet kind (docs/formats/wad-lz.md,
 * "Decoder design"): every common packet is decoded as "a match of 0..16 bytes,
 * then 0..16 literal bytes" from its first three bytes and a per-flag-byte
 * table, with one well-predicted branch to a general one-packet path for the
 * rest. */
#include "gc_lz.h"

#include <string.h>

#include "gc_reader.h"

/* Stream layout (formats.md §1.1). */
#define LZ_MAGIC_OFS  0u      /* 0x0: 'W','A','D' */
#define LZ_SIZE_OFS   3u      /* 0x3: s32 total size including this header, unaligned LE */
#define LZ_DATA_START 0x10u   /* packets start here; pads count from here */
#define LZ_PAD_ALIGN  0x1000u /* a pad packet skips to the next boundary of this, from 0x10 */

/* Worst case of one packet in the fast loop.
 *   input:  big literal 1 + 1 + 273 bytes, plus the peeked next flag byte,
 *           plus up to 15 bytes of wild over-read                  -> 291
 *   output: big match of 288 plus 3 trailing literals, each copy rounded
 *           up to its 16-byte chunk, plus the 4-byte trailing wild copy -> 311
 * Rounded up; the fast loop runs only while at least this much remains. */
#define LZ_FAST_IN_SLACK  320u
#define LZ_FAST_OUT_SLACK 352u

/* Far-match distance bias and the extra bit 3 of the flag (formats.md §1.2). */
#define LZ_FAR_BIAS 0x4000u

static gc_status lz_header(const uint8_t *src, size_t src_size, uint64_t src_file_ofs,
                           size_t *stream_size, gc_diag *diag)
{
    static const uint8_t magic[3] = {'W', 'A', 'D'};
    size_t have = src_size < 3 ? src_size : 3;
    if (!src && src_size)
        return gc_diag_set(diag, GC_E_INTERNAL, src_file_ofs, "NULL source buffer");
    if (have && memcmp(src + LZ_MAGIC_OFS, magic, have) != 0)
        return gc_diag_set(diag, GC_E_MAGIC, src_file_ofs, "WAD LZ magic missing: %02x %02x %02x",
                           src[0], have > 1 ? src[1] : 0, have > 2 ? src[2] : 0);
    if (src_size < GC_LZ_HEADER_BYTES)
        return gc_diag_set(diag, GC_E_TRUNCATED, src_file_ofs,
                           "WAD LZ header needs 16 bytes, buffer holds %zu", src_size);
    int32_t declared = (int32_t)gc_load_u32le(src + LZ_SIZE_OFS);
    if (declared < (int32_t)GC_LZ_HEADER_BYTES)
        return gc_diag_set(diag, GC_E_RANGE, src_file_ofs + LZ_SIZE_OFS,
                           "WAD LZ size field %d is smaller than the 16-byte header",
                           (int)declared);
    if ((uint64_t)declared > (uint64_t)src_size)
        return gc_diag_set(diag, GC_E_TRUNCATED, src_file_ofs + LZ_SIZE_OFS,
                           "WAD LZ size field %d exceeds the %zu bytes available", (int)declared,
                           src_size);
    *stream_size = (size_t)declared;
    return GC_OK;
}

gc_status gc_lz_stream_size(const uint8_t *src, size_t src_size, uint64_t src_file_ofs,
                            size_t *stream_size, gc_diag *diag)
{
    return lz_header(src, src_size, src_file_ofs, stream_size, diag);
}

/* Most output per stream (docs/formats/wad-lz.md "How much a stream can
 * expand"). The densest packet is a big match, 4 bytes for 288 (72 per byte);
 * nothing else reaches 72 per byte, and the first output cannot come from a
 * match (there is nothing to copy yet). The cheapest start is a dummy with one
 * trailing literal (4 bytes for 1). The 1..3 bytes a length not divisible by
 * 4 leaves are best spent on, in order: a 5-byte literal start instead of the
 * dummy (4 out), a little match of 8 after the dummy (2 bytes), a medium
 * match of 33 (3 bytes). tests/test_lz_decode.c checks this against an
 * exhaustive search over the grammar and decodes a stream reaching it. */
#define LZ_BEST_PACKET_OUT   288u /* big match: [20, n, b0, b1], len n + 33 */
#define LZ_BEST_PACKET_BYTES 4u

uint64_t gc_lz_max_output(uint64_t stream_size)
{
    static const uint64_t start_out[4] = {1, 4, 9, 34}; /* by (S - 4) % 4 */
    if (stream_size < GC_LZ_HEADER_BYTES + LZ_BEST_PACKET_BYTES)
        return 0;
    uint64_t s = stream_size - GC_LZ_HEADER_BYTES - LZ_BEST_PACKET_BYTES;
    return LZ_BEST_PACKET_OUT * (s / LZ_BEST_PACKET_BYTES) + start_out[s % LZ_BEST_PACKET_BYTES];
}

/* Skip to the next LZ_PAD_ALIGN boundary counted from LZ_DATA_START; a
 * position already on a boundary stays (formats.md §1.2 note on roundup). */
static inline size_t lz_pad_target(size_t ip)
{
    size_t rel = ip - LZ_DATA_START;
    rel = (rel + (LZ_PAD_ALIGN - 1)) & ~(size_t)(LZ_PAD_ALIGN - 1);
    return LZ_DATA_START + rel;
}

/* Match copy for the fast loop: may write up to 15 bytes past op+len (the
 * caller has proven the slack). Never READS a byte not yet final: every chunk
 * ends at or before the write position of that chunk. */
static inline void lz_match_wild(uint8_t *op, size_t dist, size_t len)
{
    const uint8_t *m = op - dist;
    /* the first chunk unconditionally: most matches are short (little
     * matches are 3..8 bytes), so this is the only copy and no loop branch */
    if (dist >= 16) {
        memcpy(op, m, 16);
        for (size_t i = 16; i < len; i += 16)
            memcpy(op + i, m + i, 16);
    } else if (dist >= 8) {
        memcpy(op, m, 8);
        for (size_t i = 8; i < len; i += 8)
            memcpy(op + i, m + i, 8);
    } else if (dist == 1) {
        memset(op, m[0], len);
    } else {
        /* Period dist < 8: the first 8 bytes one at a time; after that the
         * output repeats with any multiple of dist, so copy 8-byte chunks
         * from the smallest multiple >= 8 back (it is <= 14, and always
         * lands inside the already-final pattern that starts at op - dist). */
        size_t n = len < 8 ? len : 8;
        for (size_t i = 0; i < n; i++)
            op[i] = m[i];
        if (len > 8) {
            size_t d2 = dist * ((8 + dist - 1) / dist);
            for (size_t i = 8; i < len; i += 8)
                memcpy(op + i, op + i - d2, 8);
        }
    }
}

/* Per flag byte F, what the branchless fast loop needs. A packet is "common"
 * when it is a literal of 4..16 bytes (F 1..13), a little match, a medium
 * match of 3..16 bytes (F 0x21..0x2E) or a far match without the extension
 * byte (F 0x11..0x17, 0x19..0x1F) and, for all matches, 8 <= dist <= output so
 * far. Everything else (big literal, extended lengths, long medium matches,
 * dummy, pad, short distances, errors) goes to lz_one_packet. D is
 * (byte 2) * 64 + (byte 1 >> 2), the b1 * 64 + (b0 >> 2) of a medium or far
 * match (formats.md §1.2); it is meaningless for other kinds, which do not
 * use it except through the xb test. */
typedef struct lz_ent { /* 8 bytes, so one scaled index reaches it */
    uint16_t dbias;     /* dist = D + dbias (medium, far), 8 * b1 + dbias (little) */
    uint16_t xb;        /* slow path when xb + (pl & lm) > D: 0x4000 always, 1 when D == 0 */
    uint16_t lm;        /* 0x4000 for a literal packet (pl is the previous packet's lm) */
    uint8_t mlen;       /* match length, 0 for a literal packet */
    uint8_t hdr;        /* bytes before the literal data: 1 literal, 2 little, 3 medium/far */
} lz_ent;

#define LZ_IS_LIT(f) ((f) >= 1u && (f) < 0x0Eu) /* 4..16 literal bytes */
#define LZ_ALWAYS(f)                                                                               \
    ((f) == 0u || ((f) >= 0x0Eu && (f) < 0x10u) || (f) == 0x10u || (f) == 0x18u || (f) == 0x20u || \
     ((f) >= 0x2Fu && (f) < 0x40u))
#define LZ_XB(f) (LZ_ALWAYS(f) ? 0x4000u : ((f) > 0x10u && (f) < 0x18u) ? 1u : 0u)
#define LZ_LM(f) (LZ_IS_LIT(f) ? 0x4000u : 0u)
#define LZ_MLEN(f)                                                                                 \
    ((f) < 0x10u   ? 0u                                                                            \
     : (f) < 0x20u ? ((f)&7u) + 2u                                                                 \
     : (f) < 0x40u ? ((f)&0x1Fu) + 2u                                                              \
                   : ((f) >> 5) + 1u)
#define LZ_HDR(f) ((f) < 0x10u ? 1u : (f) < 0x40u ? 3u : 2u)
/* little: dist - 8 * b1 = (F >> 2 & 7) + 1; literal: D + 8, so the unused
 * match copy stays inside the output (the loop checks 8 <= D + 8 <= op) */
#define LZ_DBIAS(f)                                                                                \
    ((f) < 0x10u   ? 8u                                                                            \
     : (f) < 0x20u ? LZ_FAR_BIAS + (((f)&8u) << 11)                                                \
     : (f) < 0x40u ? 1u                                                                            \
                   : (((f) >> 2) & 7u) + 1u)
#define LZ_ENT(f)                                                                                  \
    {                                                                                              \
        LZ_DBIAS(f), LZ_XB(f), LZ_LM(f), LZ_MLEN(f), LZ_HDR(f)                                     \
    }
#define LZ_ENT4(f)  LZ_ENT(f), LZ_ENT((f) + 1u), LZ_ENT((f) + 2u), LZ_ENT((f) + 3u)
#define LZ_ENT16(f) LZ_ENT4(f), LZ_ENT4((f) + 4u), LZ_ENT4((f) + 8u), LZ_ENT4((f) + 12u)
#define LZ_ENT64(f) LZ_ENT16(f), LZ_ENT16((f) + 16u), LZ_ENT16((f) + 32u), LZ_ENT16((f) + 48u)
static const lz_ent lz_tab[256] = {LZ_ENT64(0u), LZ_ENT64(64u), LZ_ENT64(128u), LZ_ENT64(192u)};

/* The next packet's position and the match distance, chosen by F without a
 * branch: r is the literal candidate (ip + F + 4) and becomes the medium/far
 * one rm (ip + 3 + b0's low bits) if F >= 0x10, then the little one rl (ip +
 * 2 + F's low bits) if F >= 0x40; d likewise becomes dl for a little match.
 * The position is the loop's only carried chain, so it must not wait for a
 * mispredicted branch; gcc turns the plain C selects below back into
 * branches, hence the x86-64 form. */
#if defined(__GNUC__) && defined(__x86_64__)
#define LZ_SELECT(f, r, rm, rl, d, dl)                                                             \
    __asm__("cmp $0x10, %[ff]\n\tcmovae %[rrm], %[rr]\n\tcmp $0x40, %[ff]\n\t"                     \
            "cmovae %[rrl], %[rr]\n\tcmovae %[ddl], %[dd]"                                         \
            : [rr] "+&r"(r), [dd] "+&r"(d)                                                         \
            : [ff] "r"(f), [rrm] "r"(rm), [rrl] "r"(rl), [ddl] "r"(dl)                             \
            : "cc")
#else
#define LZ_SELECT(f, r, rm, rl, d, dl)                                                             \
    ((r) = (f) >= 0x40u ? (rl) : (f) >= 0x10u ? (rm) : (r), (d) = (f) >= 0x40u ? (dl) : (d))
#endif

#if defined(__GNUC__)
#define LZ_NOINLINE __attribute__((noinline))
#else
#define LZ_NOINLINE
#endif

enum { LZ_ONE_OK, LZ_ONE_BEFORE_START, LZ_ONE_DOUBLE_LITERAL };

typedef struct lz_pos {
    size_t ip, op;
} lz_pos;

/* One packet of any kind at ip, inside the fast loop's slack (wild copies);
 * returns the positions after it. *rcp becomes LZ_ONE_BEFORE_START with
 * *distp set (nothing written, op unchanged), or LZ_ONE_DOUBLE_LITERAL after
 * a literal packet, ip then at the offending next packet. Out of line, and
 * positions passed by value: it is the rare path, and the fast loop keeps
 * its registers (no position spilled to memory for it). */
LZ_NOINLINE static lz_pos lz_one_packet(const uint8_t *src, uint8_t *dst, size_t ip, size_t op,
                                        size_t *distp, int *rcp)
{
    size_t len, dist;
    lz_pos at;
    unsigned f = src[ip++];
    if (f >= 0x40) {
        /* little match: [F, b1]; F = LLLDDDTT (formats.md §1.2) */
        len = (f >> 5) + 1;
        dist = ((size_t)src[ip] << 3) + ((f >> 2) & 7) + 1;
        ip++;
    } else if (f >= 0x20) {
        /* medium/big match: [F, (n), b0, b1] */
        len = f & 0x1F;
        if (len == 0)
            len = (size_t)src[ip++] + 0x1F;
        len += 2;
        dist = ((size_t)src[ip + 1] << 6) + (src[ip] >> 2) + 1;
        ip += 2;
    } else if (f >= 0x10) {
        /* far match / dummy / pad: [F, (n), b0, b1] */
        size_t m = f & 7;
        if (m == 0)
            m = (size_t)src[ip++] + 7;
        size_t d = ((size_t)(f & 8) << 11) + ((size_t)src[ip + 1] << 6) + (src[ip] >> 2);
        ip += 2;
        if (d == 0) {
            if (m != 1) {
                at.ip = lz_pad_target(ip); /* pad: no trailing literal */
                at.op = op;
                return at;
            }
            len = 0; /* dummy: only its trailing literal applies */
            dist = 0;
        } else {
            len = m + 2;
            dist = d + LZ_FAR_BIAS;
        }
    } else {
        /* literal packet: F 1..15 -> F+3 bytes; F 0 -> [0, n] n+18 bytes */
        size_t n = f ? (size_t)f + 3 : (size_t)src[ip++] + 18;
        for (size_t i = 0; i < n; i += 16)
            memcpy(dst + op + i, src + ip + i, 16);
        at.op = op + n;
        at.ip = ip + n;
        if (src[ip + n] < 0x10)
            *rcp = LZ_ONE_DOUBLE_LITERAL;
        return at;
    }
    if (len) {
        if (dist > op) {
            *distp = dist;
            *rcp = LZ_ONE_BEFORE_START;
            at.ip = ip;
            at.op = op;
            return at;
        }
        lz_match_wild(dst + op, dist, len);
        op += len;
    }
    /* trailing 0..3 literals: low bits of the packet's second-to-last byte */
    size_t t = src[ip - 2] & 3u;
    memcpy(dst + op, src + ip, 4);
    at.op = op + t;
    at.ip = ip + t;
    return at;
}

/* ---- the main loop: once 48 KiB are out ---------------------------------
 *
 * Once op >= LZ_MAIN_MIN_OP no distance the format can express (at most
 * 49151) reaches before the output start, so the main loop drops the
 * "dist <= op" test and folds every other condition that sends a packet off
 * the common path into one compare against the selected distance d: a packet
 * is uncommon when xb + (pl & lm) > d, with xb and lm from a table indexed by
 * the flag byte (issue 18, branch lz25). That lets the common path take more
 * packets than the start loop's: a match of ml <= 16 bytes is copied by ONE
 * 16-byte load and store from o - d whenever d >= ml (not only d >= 8). Its
 * first ml bytes then come from bytes before o, all final; the chunk's other
 * bytes may be bytes this copy has not written yet (indeterminate for the
 * copy, never for the output: they land past the match, where the packet's
 * literal and the next packets overwrite them). Measured on the retail
 * corpus: uncommon packets fall from 7.3% to 5.9% of all, and each one costs
 * a mispredicted branch of about 30 cycles on the machine of branch lz25. */
#define LZ_MAIN_MIN_OP 0xC000u /* > 49151, the longest distance */

typedef struct lz_ment { /* 8 bytes, so one scaled index reaches it */
    uint16_t dbias;      /* as lz_ent */
    uint16_t xb;         /* uncommon when xb + (pl & lm) > d */
    uint16_t lm;         /* 0x8000 for a common literal packet (> any literal's d) */
    uint8_t ml;          /* match length, 0 for a literal packet */
    uint8_t hdr;         /* bytes before the literal data */
} lz_ment;

/* xb by kind: 0xC000 (> any d, d <= 0xBFFF) for the kinds the common path
 * cannot take (LZ_ALWAYS: big literal, literals of 17..18, extended far,
 * medium of 17..33, big match); 0x4001 for F 0x11..0x17, whose d = D + 0x4000
 * is 0x4000 exactly for a dummy or pad (D == 0); the match length (<= 16) for
 * little and medium matches, so that d < ml (a copy reading its own output)
 * goes to the general path; 0 otherwise (common literals, far matches with
 * bit 3 set, whose d >= 0x8000). */
#define LZ_M_XB(f)                                                                                 \
    (LZ_ALWAYS(f)                   ? 0xC000u                                                      \
     : ((f) > 0x10u && (f) < 0x18u) ? 0x4001u                                                      \
     : (f) >= 0x20u                 ? LZ_MLEN(f)                                                   \
                                    : 0u)
#define LZ_M_LM(f) (LZ_IS_LIT(f) ? 0x8000u : 0u)
#define LZ_MENT(f)                                                                                 \
    {                                                                                              \
        LZ_DBIAS(f), LZ_M_XB(f), LZ_M_LM(f), LZ_MLEN(f), LZ_HDR(f)                                 \
    }
#define LZ_MENT4(f)  LZ_MENT(f), LZ_MENT((f) + 1u), LZ_MENT((f) + 2u), LZ_MENT((f) + 3u)
#define LZ_MENT16(f) LZ_MENT4(f), LZ_MENT4((f) + 4u), LZ_MENT4((f) + 8u), LZ_MENT4((f) + 12u)
#define LZ_MENT64(f) LZ_MENT16(f), LZ_MENT16((f) + 16u), LZ_MENT16((f) + 32u), LZ_MENT16((f) + 48u)
static const lz_ment lz_mtab[256] = {LZ_MENT64(0u), LZ_MENT64(64u), LZ_MENT64(128u),
                                     LZ_MENT64(192u)};

typedef struct lz_mstate {
    size_t ip, op; /* next packet, output so far */
    size_t pl;     /* nonzero right after a common literal packet */
} lz_mstate;

/* The main loop, from st while ip < in_limit and op < out_limit (the fast
 * loop's limits: every copy below stays inside their slack). Returns 0, or 1
 * for a literal packet right after a literal one (st->ip at the second,
 * st->op after the first), the only error possible here: truncation needs the
 * tail, a match before the start needs op < LZ_MAIN_MIN_OP. Out of line, so
 * that its registers are its own. */
LZ_NOINLINE static int lz_main(const uint8_t *src, uint8_t *dst, size_t in_limit, size_t out_limit,
                               lz_mstate *st)
{
    const uint8_t *p = src + st->ip, *const plim = src + in_limit;
    uint8_t *o = dst + st->op, *const olim = dst + out_limit;
    size_t pl = st->pl ? 0x8000u : 0u;
    for (;;) {
        if (p >= plim || o >= olim)
            break;
        /* A common packet writes at most 16 output bytes per input byte (a
         * medium match of 16 from 3), so o stays below olim while p stays
         * below plim2: one limit test a packet. Recomputed after every
         * uncommon packet, which may write up to 291 bytes from 4. */
        size_t room = (size_t)(olim - o) / 16u;
        const uint8_t *plim2 = (size_t)(plim - p) > room ? p + room : plim;
        if (p >= plim2)
            break;
        while (p < plim2) {
            __builtin_prefetch(p + 256); /* p + 256 < end: 320 bytes of input slack */
            size_t fl = p[0], b1 = p[1], w = (size_t)p[1] | (size_t)p[2] << 8;
            const lz_ment *t = &lz_mtab[fl];
            size_t D = w >> 2;                    /* b1 * 64 + (b0 >> 2) of a medium or far match */
            const uint8_t *nx = p + 4 + fl;       /* literal: F, F + 3 bytes */
            const uint8_t *nm = p + 3 + (b1 & 3); /* medium/far: F b0 b1, trailing */
            const uint8_t *nl = p + 2 + (fl & 3); /* little: F b1, trailing */
            size_t d = D + t->dbias;              /* medium/far (literal: D + 8) */
            size_t dl = (b1 << 3) + t->dbias;     /* little */
            LZ_SELECT(fl, nx, nm, nl, d, dl);
            if (__builtin_expect((size_t)t->xb + (pl & t->lm) > d, 0))
                goto uncommon;
            {
                /* a match of ml <= 16 bytes with d >= ml (see above), then the
                 * packet's literal bytes (<= 16) over the chunk's tail; a
                 * literal packet's "match" reads from D + 8 <= 16391 back */
                size_t ml = t->ml, hdr = t->hdr;
                uint8_t chunk[16]; /* d may be under 16: all loaded before any is stored */
                memcpy(chunk, o - d, 16);
                memcpy(o, chunk, 16);
                memcpy(o + ml, p + hdr, 16);
                o += ml + (size_t)(nx - p) - hdr;
                p = nx;
                pl = t->lm;
                continue;
            }
        uncommon:
            if (pl && fl < 0x10) {
                st->ip = (size_t)(p - src);
                st->op = (size_t)(o - dst);
                st->pl = 0;
                return 1;
            }
            pl = 0;
            if (fl >= 0x20 && fl < 0x40) {
                /* Medium matches of 17..33 and big matches (3.8% of packets)
                 * at 16 <= dist: 16-byte chunks, each reading only final
                 * bytes. Seven of them unconditionally (big matches are
                 * mostly 32..111 bytes: no loop branch to mispredict), the
                 * rest of the longest (288 + 4 trailing bytes) in a loop;
                 * all inside the output slack. The length byte's presence
                 * is selected without a branch (F 0x20 and F 0x2F..0x3F are
                 * both common here). */
                size_t x = fl & 0x1F, h = 1 + (x == 0);
                size_t blen = x ? x + 2 : (size_t)p[1] + 0x21;
                size_t dd = ((size_t)p[h + 1] << 6) + (p[h] >> 2) + 1;
                if (dd >= 16) {
                    size_t tr = p[h] & 3u;
                    const uint8_t *mm = o - dd;
                    memcpy(o, mm, 16);
                    memcpy(o + 16, mm + 16, 16);
                    memcpy(o + 32, mm + 32, 16);
                    memcpy(o + 48, mm + 48, 16);
                    memcpy(o + 64, mm + 64, 16);
                    memcpy(o + 80, mm + 80, 16);
                    memcpy(o + 96, mm + 96, 16);
                    for (size_t i = 112; i < blen; i += 16)
                        memcpy(o + i, mm + i, 16);
                    o += blen;
                    p += h + 2;
                    memcpy(o, p, 4);
                    o += tr;
                    p += tr;
                    break;
                }
            }
            {
                /* everything else: the general one-packet decoder (it checks
                 * a literal's next flag byte itself, hence pl = 0) */
                size_t dist;
                int rc = LZ_ONE_OK;
                lz_pos at =
                    lz_one_packet(src, dst, (size_t)(p - src), (size_t)(o - dst), &dist, &rc);
                if (rc != LZ_ONE_OK || at.ip >= in_limit) {
                    /* LZ_ONE_DOUBLE_LITERAL (op >= 48 KiB, so nothing else),
                     * or a pad that skips past the fast slack, possibly past
                     * the buffer: left as an index, never made a pointer */
                    st->ip = at.ip;
                    st->op = at.op;
                    st->pl = 0;
                    return rc != LZ_ONE_OK;
                }
                p = src + at.ip;
                o = dst + at.op;
            }
            break;
        }
    }
    st->ip = (size_t)(p - src);
    st->op = (size_t)(o - dst);
    st->pl = pl;
    return 0;
}

gc_status gc_lz_decompress(const uint8_t *src, size_t src_size, uint64_t src_file_ofs, uint8_t *dst,
                           size_t dst_capacity, size_t *dst_len, gc_diag *diag)
{
    size_t end = 0;
    *dst_len = 0;
    gc_status s = lz_header(src, src_size, src_file_ofs, &end, diag);
    if (s != GC_OK)
        return s;
    if (!dst)
        dst_capacity = 0;

    size_t ip = LZ_DATA_START; /* input position, index into src */
    size_t op = 0;             /* output length so far */
    size_t pkt = ip;           /* start of the packet being decoded (for errors) */
    unsigned f = 0;            /* its flag byte */
    size_t len = 0, dist = 0;  /* the current match */

    /* ---- fast loop: both buffers have LZ_FAST_*_SLACK bytes of room ---- */
    if (end >= LZ_FAST_IN_SLACK && dst_capacity >= LZ_FAST_OUT_SLACK) {
        const size_t in_limit = end - LZ_FAST_IN_SLACK;
        const size_t out_limit = dst_capacity - LZ_FAST_OUT_SLACK;
        size_t pl = 0; /* 0x4000 right after a common literal packet, else 0 */
        int rc = LZ_ONE_OK;
        /* the common-packet loop copies 8-byte chunks from dist >= 8 back, so
         * it starts once 8 bytes are out (the first packets are literals) */
        while (op < 8 && ip < in_limit && op < out_limit) {
            pkt = ip;
            f = src[ip];
            lz_pos at = lz_one_packet(src, dst, ip, op, &dist, &rc);
            ip = at.ip;
            op = at.op;
            if (rc != LZ_ONE_OK)
                goto one_failed;
        }
        {
            /* Pointers rather than indices here: src and dst then need no
             * registers of their own, and the table base stays in one (with
             * indices gcc re-derived it three times a packet and kept the
             * limits on the stack). */
            const uint8_t *p = src + ip, *const plim = src + in_limit;
            uint8_t *o = dst + op, *const olim = dst + out_limit, *const dst8 = dst + 8;
            /* the start loop ends where the main loop can take over */
            uint8_t *const olim1 = out_limit > LZ_MAIN_MIN_OP ? dst + LZ_MAIN_MIN_OP : olim;
            while (p < plim && o < olim1) {
                /* The packet chain waits on each flag byte's load; streaming
                 * through 285 MB of input, the hardware prefetcher alone left
                 * about one L1 miss per cache line (8 packets) on that chain.
                 * p + 256 < end (the loop keeps 320 bytes of input slack). */
                __builtin_prefetch(p + 256);
                /* three byte loads rather than one word: each candidate next
                 * position is then one or two steps from its load */
                size_t fl = p[0], b1 = p[1], b2 = p[2];
                const lz_ent *t = &lz_tab[fl];
                size_t D = (b1 >> 2) + (b2 << 6);
                const uint8_t *nx = p + 4 + fl;       /* literal: F, F + 3 bytes */
                const uint8_t *nm = p + 3 + (b1 & 3); /* medium/far: F b0 b1, trailing */
                const uint8_t *nl = p + 2 + (fl & 3); /* little: F b1, trailing */
                size_t d = D + t->dbias;              /* medium/far (literal: unused) */
                size_t dl = (b1 << 3) + t->dbias;     /* little */
                LZ_SELECT(fl, nx, nm, nl, d, dl);
                /* uncommon kinds, a literal right after a literal, and
                 * distances outside 8..op (o - dst8 is op - 8) all take the
                 * general path (rare, so predicted) */
                if (__builtin_expect((size_t)t->xb + (pl & t->lm) > D || d - 8 > (size_t)(o - dst8),
                                     0)) {
                    if (fl >= 0x20 && fl < 0x40) {
                        /* Medium matches of 17..33 and big matches (3.8% of
                         * packets) at 16 <= dist <= op: 16-byte chunks here,
                         * without the general path's call and its second
                         * mispredicted kind test (about 1.04x). Each chunk
                         * reads only final bytes (dist >= 16); the longest,
                         * 288 + 4 trailing bytes, fits the output slack.
                         * Shorter distances and errors go on below. */
                        size_t blen = fl & 0x1F, h = 1;
                        if (blen == 0)
                            blen = (size_t)p[h++] + 0x1F;
                        blen += 2;
                        size_t dd = ((size_t)p[h + 1] << 6) + (p[h] >> 2) + 1;
                        if (dd >= 16 && dd <= (size_t)(o - dst)) {
                            size_t tr = p[h] & 3u;
                            const uint8_t *mm = o - dd;
                            for (size_t i = 0; i < blen; i += 16)
                                memcpy(o + i, mm + i, 16);
                            o += blen;
                            p += h + 2;
                            memcpy(o, p, 4);
                            o += tr;
                            p += tr;
                            pl = 0;
                            continue;
                        }
                    }
                    ip = (size_t)(p - src);
                    op = (size_t)(o - dst);
                    pkt = ip;
                    f = (unsigned)fl;
                    if (pl && f < 0x10)
                        goto double_literal;
                    pl = 0;
                    lz_pos at = lz_one_packet(src, dst, ip, op, &dist, &rc);
                    ip = at.ip;
                    op = at.op;
                    if (rc != LZ_ONE_OK)
                        goto one_failed;
                    if (ip >= in_limit) /* a pad past the slack: an index, not a pointer */
                        goto fast_done;
                    p = src + ip;
                    o = dst + op;
                    continue;
                }
                /* a match of mlen <= 16 bytes (two 8-byte chunks, each
                 * reading only final bytes since d >= 8), then the packet's
                 * literal bytes (<= 16) over the copy's rounded-up tail */
                size_t mlen = t->mlen, hdr = t->hdr;
                const uint8_t *m = o - d;
                memcpy(o, m, 8);
                memcpy(o + 8, m + 8, 8);
                memcpy(o + mlen, p + hdr, 16);
                o += mlen + (size_t)(nx - p) - hdr;
                p = nx;
                pl = t->lm;
            }
            ip = (size_t)(p - src);
            op = (size_t)(o - dst);
            if (o >= olim1 && o < olim && p < plim) {
                lz_mstate st = {ip, op, pl};
                int mrc = lz_main(src, dst, in_limit, out_limit, &st);
                ip = st.ip;
                op = st.op;
                pl = st.pl;
                if (mrc)
                    goto double_literal;
            }
        }
    fast_done:
        /* the literal-after-literal check of the last common packet */
        if (pl && ip < end && src[ip] < 0x10)
            goto double_literal;
        goto tail;
    one_failed:
        if (rc == LZ_ONE_BEFORE_START)
            goto before_start;
        goto double_literal;
    }

    /* ---- tail loop: byte-exact, every read and write checked ---- */
tail:
    while (ip < end) {
        pkt = ip;
        f = src[ip++];
        len = 0;
        dist = 0;
        if (f < 0x10) {
            size_t n;
            if (f) {
                n = (size_t)f + 3;
            } else {
                if (ip >= end)
                    goto truncated;
                n = (size_t)src[ip++] + 18;
            }
            if (end - ip < n)
                goto truncated;
            if (dst_capacity - op < n)
                goto overflow;
            memcpy(dst + op, src + ip, n);
            op += n;
            ip += n;
            /* Wrench: "the game disallows this" - a literal directly after a literal. */
            if (ip < end && src[ip] < 0x10)
                goto double_literal;
            continue;
        }
        if (f < 0x20) {
            size_t m = f & 7;
            if (m == 0) {
                if (ip >= end)
                    goto truncated;
                m = (size_t)src[ip++] + 7;
            }
            if (end - ip < 2)
                goto truncated;
            size_t d = ((size_t)(f & 8) << 11) + ((size_t)src[ip + 1] << 6) + (src[ip] >> 2);
            ip += 2;
            if (d == 0) {
                if (m != 1) {
                    ip = lz_pad_target(ip);
                    continue;
                }
            } else {
                len = m + 2;
                dist = d + LZ_FAR_BIAS;
            }
        } else if (f < 0x40) {
            len = f & 0x1F;
            if (len == 0) {
                if (ip >= end)
                    goto truncated;
                len = (size_t)src[ip++] + 0x1F;
            }
            len += 2;
            if (end - ip < 2)
                goto truncated;
            dist = ((size_t)src[ip + 1] << 6) + (src[ip] >> 2) + 1;
            ip += 2;
        } else {
            if (ip >= end)
                goto truncated;
            len = (f >> 5) + 1;
            dist = ((size_t)src[ip] << 3) + ((f >> 2) & 7) + 1;
            ip++;
        }
        if (len) {
            if (dist > op)
                goto before_start;
            if (dst_capacity - op < len)
                goto overflow;
            /* forward byte copy: overlap (dist < len) repeats the pattern */
            uint8_t *o = dst + op;
            const uint8_t *m = o - dist;
            for (size_t i = 0; i < len; i++)
                o[i] = m[i];
            op += len;
        }
        size_t t = src[ip - 2] & 3u;
        if (t) {
            if (end - ip < t)
                goto truncated;
            if (dst_capacity - op < t)
                goto overflow;
            memcpy(dst + op, src + ip, t);
            op += t;
            ip += t;
        }
    }
    *dst_len = op;
    return GC_OK;

truncated:
    *dst_len = op;
    return gc_diag_set(diag, GC_E_TRUNCATED, src_file_ofs + pkt,
                       "WAD LZ stream ends inside the packet at 0x%zx (flag 0x%02x, size 0x%zx)",
                       pkt, f, end);
overflow:
    *dst_len = op;
    return gc_diag_set(diag, GC_E_RANGE, src_file_ofs + pkt,
                       "WAD LZ output exceeds the capacity of %zu bytes at packet 0x%zx (flag "
                       "0x%02x)",
                       dst_capacity, pkt, f);
before_start:
    *dst_len = op;
    return gc_diag_set(diag, GC_E_CORRUPT, src_file_ofs + pkt,
                       "WAD LZ match at 0x%zx (flag 0x%02x) reaches %zu bytes back with only %zu "
                       "produced",
                       pkt, f, dist, op);
double_literal:
    *dst_len = op;
    return gc_diag_set(diag, GC_E_CORRUPT, src_file_ofs + ip,
                       "WAD LZ literal packet at 0x%zx follows a literal packet (flag 0x%02x)", ip,
                       src[ip]);
}
