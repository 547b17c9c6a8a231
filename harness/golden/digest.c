/* SPDX-License-Identifier: MIT */
/* Column digests (see gc_digest.h for the encoding). */
#include "gc_digest.h"
#include "gc_grow.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
/* XXH3 on the widest vector unit the CPU has (libxxhash's runtime dispatch on x86): the
 * hashes are the same on every path, XXH3 is defined independently of the vector width */
#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h>
#endif
#endif

/* snprintf-free formatting: the digests format a few names per table and level, and
 * snprintf was a tenth of their instructions. Each appends to dst[0..cap) at n, keeps dst
 * NUL-terminated and returns the new length, or cap when the text did not fit. */
static size_t put_str(char *dst, size_t cap, size_t n, const char *s)
{
    if (n >= cap)
        return cap;
    size_t l = strlen(s);
    if (l >= cap - n)
        return cap;
    memcpy(dst + n, s, l + 1);
    return n + l;
}

static size_t put_u64(char *dst, size_t cap, size_t n, unsigned long long v)
{
    char t[24];
    size_t k = sizeof t;
    t[--k] = '\0';
    do {
        t[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return put_str(dst, cap, n, t + k);
}

/* "<a>.<b>" into dst[cap], truncated as snprintf(dst, cap, "%s.%s", a, b) truncates */
static void join_field(char *dst, size_t cap, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), n = 0;
    const char *parts[3] = {a, ".", b};
    const size_t lens[3] = {la, 1, lb};
    for (int i = 0; i < 3 && n + 1 < cap; i++) {
        size_t l = lens[i] < cap - 1 - n ? lens[i] : cap - 1 - n;
        memcpy(dst + n, parts[i], l);
        n += l;
    }
    dst[n] = '\0';
}

static void put_le(unsigned char *out, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)(v >> (8 * i));
}

size_t gc_digest_encode(const gc_column *c, const unsigned char *row, unsigned char *out)
{
    const unsigned char *p = row + c->offset;
    switch (c->type) {
    case GC_T_BOOL:
    case GC_T_U8:
    case GC_T_S8:
        out[0] = *p;
        return 1;
    case GC_T_U16:
    case GC_T_S16: {
        uint16_t v;
        memcpy(&v, p, 2);
        put_le(out, v, 2);
        return 2;
    }
    case GC_T_U32:
    case GC_T_S32:
    case GC_T_F32: { /* floats by bit pattern: memcpy keeps every bit */
        uint32_t v;
        memcpy(&v, p, 4);
        put_le(out, v, 4);
        return 4;
    }
    case GC_T_U64:
    case GC_T_S64:
    case GC_T_F64: {
        uint64_t v;
        memcpy(&v, p, 8);
        put_le(out, v, 8);
        return 8;
    }
    case GC_T_STR: {
        size_t n = 0;
        while (n < c->size && p[n])
            n++;
        memcpy(out, p, n);
        out[n] = 0;
        return n + 1;
    }
    }
    return 0;
}

static void to_hex(const unsigned char *md, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < GC_DIGEST_HEX / 2; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[GC_DIGEST_HEX] = '\0';
}

static int digest_column(EVP_MD_CTX *ctx, const gc_table *t, const gc_column *c, char *hex)
{
    /* values are encoded into a block and hashed a block at a time: one
     * EVP update per 4-byte value would cost more than the hashing */
    unsigned char buf[16384];
    size_t fill = 0;
    unsigned char head[7] = {'G', 'C', 'C', 'O', 'L', '1', (unsigned char)c->type};
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1 ||
        EVP_DigestUpdate(ctx, head, sizeof head) != 1)
        return -1;
    size_t max = c->type == GC_T_STR ? c->size + 1 : 8;
    if (max > sizeof buf)
        return -1;
    const unsigned char *rows = t->rows;
    for (size_t r = 0; r < t->count; r++) {
        if (fill + max > sizeof buf) {
            if (EVP_DigestUpdate(ctx, buf, fill) != 1)
                return -1;
            fill = 0;
        }
        fill += gc_digest_encode(c, rows + r * t->desc->row_size, buf + fill);
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if ((fill && EVP_DigestUpdate(ctx, buf, fill) != 1) ||
        EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen < GC_DIGEST_HEX / 2)
        return -1;
    to_hex(md, hex);
    return 0;
}

int gc_digest_column(const gc_table *t, const gc_column *c, char *hex)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx)
        return -1;
    int rc = digest_column(ctx, t, c, hex);
    EVP_MD_CTX_free(ctx);
    return rc;
}

static int cmp_digest(const void *a, const void *b)
{
    const gc_rep_digest *x = a, *y = b;
    if (x->level != y->level)
        return (x->level > y->level) - (x->level < y->level);
    return strcmp(x->field, y->field);
}

/* One column's state while a table is hashed row by row. */
typedef struct col_state {
    EVP_MD_CTX *ctx;
    const gc_column *c;
    size_t width;       /* fixed-width value bytes; 0 for strings */
    unsigned char *buf; /* STAGE_BYTES of staging */
} col_state;

#define BATCH_ROWS  512
#define STAGE_BYTES (8 * BATCH_ROWS) /* a batch of the widest fixed type */

static int host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static size_t fixed_width(gc_coltype t)
{
    switch (t) {
    case GC_T_BOOL:
    case GC_T_U8:
    case GC_T_S8:
        return 1;
    case GC_T_U16:
    case GC_T_S16:
        return 2;
    case GC_T_U32:
    case GC_T_S32:
    case GC_T_F32:
        return 4;
    case GC_T_U64:
    case GC_T_S64:
    case GC_T_F64:
        return 8;
    case GC_T_STR:
        return 0;
    }
    return 0;
}

/* Every column of t at once, in one pass over its rows: the rows are read
 * once, not once per column (a table of 80 columns is otherwise read 80
 * times), each column's values staged and hashed a block at a time. The
 * bytes hashed are exactly gc_digest_column's. */
static int digest_table(const gc_table *t, int level, gc_rep_digest *out)
{
    size_t nc = t->desc->column_count;
    col_state *cs = calloc(nc ? nc : 1, sizeof *cs);
    unsigned char *stage = malloc((nc ? nc : 1) * STAGE_BYTES);
    int rc = cs && stage ? 0 : -1;
    int le = host_little_endian();
    for (size_t k = 0; k < nc && rc == 0; k++) {
        const gc_column *c = &t->desc->columns[k];
        cs[k].c = c;
        cs[k].width = fixed_width(c->type);
        cs[k].buf = stage + k * STAGE_BYTES;
        unsigned char head[7] = {'G', 'C', 'C', 'O', 'L', '1', (unsigned char)c->type};
        cs[k].ctx = EVP_MD_CTX_new();
        if (!cs[k].ctx || EVP_DigestInit_ex(cs[k].ctx, EVP_sha256(), NULL) != 1 ||
            EVP_DigestUpdate(cs[k].ctx, head, sizeof head) != 1 || c->size + 1 > STAGE_BYTES)
            rc = -1;
    }
    /* rows in batches that stay in cache; within a batch column by column,
     * each a tight loop of constant-size copies (on a little-endian host the
     * canonical bytes are the member's own), hashed once per batch */
    const unsigned char *rows = t->rows;
    size_t rs = t->desc->row_size;
    for (size_t r0 = 0; r0 < t->count && rc == 0; r0 += BATCH_ROWS) {
        size_t nb = t->count - r0 < BATCH_ROWS ? t->count - r0 : BATCH_ROWS;
        const unsigned char *base = rows + r0 * rs;
        for (size_t k = 0; k < nc && rc == 0; k++) {
            col_state *x = &cs[k];
            const unsigned char *src = base + x->c->offset;
            unsigned char *dst = x->buf;
            size_t w = le ? x->width : 0, n = 0;
            switch (w) {
            case 1:
                for (size_t i = 0; i < nb; i++)
                    dst[i] = src[i * rs];
                n = nb;
                break;
            case 2:
                for (size_t i = 0; i < nb; i++)
                    memcpy(dst + 2 * i, src + i * rs, 2);
                n = 2 * nb;
                break;
            case 4:
                for (size_t i = 0; i < nb; i++)
                    memcpy(dst + 4 * i, src + i * rs, 4);
                n = 4 * nb;
                break;
            case 8:
                for (size_t i = 0; i < nb; i++)
                    memcpy(dst + 8 * i, src + i * rs, 8);
                n = 8 * nb;
                break;
            default: /* strings, or a big-endian host: value by value */
                for (size_t i = 0; i < nb && rc == 0; i++) {
                    size_t max = x->width ? x->width : x->c->size + 1;
                    if (n + max > STAGE_BYTES) {
                        if (EVP_DigestUpdate(x->ctx, dst, n) != 1)
                            rc = -1;
                        n = 0;
                    }
                    n += gc_digest_encode(x->c, base + i * rs, dst + n);
                }
            }
            if (n && EVP_DigestUpdate(x->ctx, dst, n) != 1)
                rc = -1;
        }
    }
    for (size_t k = 0; k < nc && rc == 0; k++) {
        gc_rep_digest *e = &out[k];
        memset(e, 0, sizeof *e);
        e->level = level;
        join_field(e->field, sizeof e->field, t->desc->name, cs[k].c->name);
        e->rows = t->count;
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int mdlen = 0;
        if (EVP_DigestFinal_ex(cs[k].ctx, md, &mdlen) != 1 || mdlen < GC_DIGEST_HEX / 2)
            rc = -1;
        else
            to_hex(md, e->digest);
    }
    for (size_t k = 0; cs && k < nc; k++)
        EVP_MD_CTX_free(cs[k].ctx);
    free(cs);
    free(stage);
    return rc;
}

int gc_digest_tables(const gc_table *tables, size_t count, int level, gc_rep_digest **out,
                     size_t *out_count)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (tables[i].desc)
            n += tables[i].desc->column_count;
    gc_rep_digest *d = realloc(*out, (*out_count + n + 1) * sizeof *d);
    if (!d)
        return -1;
    *out = d;
    size_t first = *out_count;
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        const gc_table *t = &tables[i];
        if (!t->desc)
            continue;
        rc = digest_table(t, level, d + *out_count);
        *out_count += t->desc->column_count;
    }
    qsort(d + first, *out_count - first, sizeof *d, cmp_digest);
    return rc;
}

static const gc_rep_digest *find(const gc_rep_digest *d, size_t n, int level, const char *field)
{
    size_t lo = 0, hi = n;
    /* the key as a stored field would hold it (truncated to the field's size) */
    char cut[sizeof d->field];
    if (strlen(field) >= sizeof cut) {
        memcpy(cut, field, sizeof cut - 1);
        cut[sizeof cut - 1] = '\0';
        field = cut;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = level != d[mid].level ? (level > d[mid].level) - (level < d[mid].level)
                                      : strcmp(field, d[mid].field);
        if (c == 0)
            return &d[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static void add_change(gc_report *r, int level, const char *field, const gc_rep_digest *o,
                       const gc_rep_digest *n)
{
    gc_rep_change *c = gc_grow_one(r->changes, r->change_count, sizeof *c);
    if (!c)
        return;
    r->changes = c;
    c = &r->changes[r->change_count];
    memset(c, 0, sizeof *c);
    c->field = strdup(field);
    if (!c->field)
        return;
    r->change_count++;
    c->level = level;
    c->digest = 1;
    c->old_null = !o;
    c->new_null = !n;
    c->old_value = o ? (double)o->rows : 0;
    c->new_value = n ? (double)n->rows : 0;
    if (o)
        snprintf(c->old_digest, sizeof c->old_digest, "%s", o->digest);
    if (n)
        snprintf(c->new_digest, sizeof c->new_digest, "%s", n->digest);
    c->rows_changed = UINT64_MAX;
}

gc_rep_digest *gc_digest_sorted_copy(const gc_rep_digest *d, size_t n)
{
    gc_rep_digest *s = n ? malloc(n * sizeof *s) : NULL;
    if (!s)
        return NULL;
    memcpy(s, d, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_digest);
    return s;
}

void gc_digest_sort(gc_rep_digest *d, size_t n)
{
    /* glibc's qsort is a stable merge sort: a sorted array comes back as it was, after
     * ~n log n / 2 compares and the moves of its indirect sort (a written baseline's ~26 k
     * digests are sorted already) */
    for (size_t i = 1; i < n; i++)
        if (cmp_digest(&d[i - 1], &d[i]) > 0) {
            qsort(d, n, sizeof *d, cmp_digest);
            return;
        }
}

const gc_rep_digest *gc_digest_find(const gc_rep_digest *sorted, size_t n, int level,
                                    const char *field)
{
    return find(sorted, n, level, field);
}

static int is_sorted(const gc_rep_digest *d, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (cmp_digest(&d[i - 1], &d[i]) > 0)
            return 0;
    return 1;
}

static int strictly_sorted(const gc_rep_digest *d, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (cmp_digest(&d[i - 1], &d[i]) >= 0)
            return 0;
    return 1;
}

void gc_digest_compare(gc_report *r, const gc_rep_digest *old, size_t old_count)
{
    /* Both sides usually come sorted already (the sweep's baseline digests are its sorted
     * copy, and a sweep adds each level's sorted digests in level order): then neither is
     * copied or sorted again (glibc's qsort is a stable merge sort, so a sorted array is
     * what sorting would give). */
    const gc_rep_digest *so = old;
    gc_rep_digest *own = NULL;
    if (old_count && !is_sorted(old, old_count)) {
        own = malloc(old_count * sizeof *own);
        if (!own)
            return;
        memcpy(own, old, old_count * sizeof *own);
        qsort(own, old_count, sizeof *own, cmp_digest);
        so = own;
    }
    if (r->digest_count && !is_sorted(r->digests, r->digest_count))
        qsort(r->digests, r->digest_count, sizeof *r->digests, cmp_digest);
    /* With no key twice on either side (every sweep and baseline: one digest a column of a
     * level), the binary searches below find what one merge walk of the two sorted lists
     * finds, in ~50 k string compares instead of ~750 k on a retail sweep's serial tail */
    const int walk = strictly_sorted(so, old_count) && strictly_sorted(r->digests, r->digest_count);
    size_t j = 0;
    for (size_t i = 0; i < r->digest_count; i++) {
        const gc_rep_digest *n = &r->digests[i];
        const gc_rep_digest *o = NULL;
        if (walk) {
            int c = -1;
            while (j < old_count && (c = cmp_digest(&so[j], n)) < 0)
                j++;
            o = j < old_count && c == 0 ? &so[j] : NULL;
        } else {
            o = find(so, old_count, n->level, n->field);
        }
        if (!o)
            r->digests_unblessed++;
        else if (o->rows != n->rows || strcmp(o->digest, n->digest) != 0)
            add_change(r, n->level, n->field, o, n);
    }
    /* a column of a level that ran, gone from this run: only when this run
     * has digests for that level at all (an older report has none) */
    j = 0;
    for (size_t i = 0; i < old_count; i++) {
        const gc_rep_digest *o = &so[i];
        int present = 0;
        for (size_t k = 0; k < r->selected_count && !present; k++)
            present = r->selected[k] == o->level;
        int found;
        if (walk) {
            int c = -1;
            while (j < r->digest_count && (c = cmp_digest(&r->digests[j], o)) < 0)
                j++;
            found = j < r->digest_count && c == 0;
        } else {
            found = present && find(r->digests, r->digest_count, o->level, o->field) != NULL;
        }
        if (!present || found)
            continue;
        int level_has = 0;
        for (size_t k = 0; k < r->digest_count && !level_has; k++)
            level_has = r->digests[k].level == o->level;
        if (level_has)
            add_change(r, o->level, o->field, o, NULL);
    }
    free(own);
}

/* ---- Table fingerprints (gc_digest.h, "table digests") ---------------- */

/* The bytes of t's row that hold a column's value: mask[i] = 0xFF there,
 * 0 on padding and on anything the column list does not name. Strings are
 * listed in str[] (their bytes after the NUL are zeroed per row). 0, or -1
 * when the table cannot be fingerprinted (a big-endian host, whose row bytes
 * are not the little-endian encoding, or a column outside the row). */
#define MAX_FP_ROW 4096
static int row_mask(const gc_table_desc *d, unsigned char *mask, const gc_column **str,
                    size_t *nstr, int *full)
{
    if (!host_little_endian() || d->row_size == 0 || d->row_size > MAX_FP_ROW)
        return -1;
    memset(mask, 0, d->row_size);
    *nstr = 0;
    for (size_t k = 0; k < d->column_count; k++) {
        const gc_column *c = &d->columns[k];
        size_t w = c->type == GC_T_STR ? c->size : fixed_width(c->type);
        if (w == 0 || (c->type != GC_T_STR && w != c->size) || c->offset + w > d->row_size)
            return -1;
        memset(mask + c->offset, 0xFF, w);
        if (c->type == GC_T_STR)
            str[(*nstr)++] = c;
    }
    *full = *nstr == 0;
    for (size_t i = 0; i < d->row_size && *full; i++)
        *full = mask[i] == 0xFF;
    return 0;
}

/* the stage and its mask stay in L1 while XXH3 reads the one just written */
#define FP_BATCH_BYTES 16384

/* dst = src AND mask. A plain byte loop, vectorised (GCC needs to be asked at -O2): 16
 * bytes per instruction; the eight-byte loop it replaced cost as much as the hashing. With
 * GCC, built for AVX2 and AVX-512 too and chosen when the program loads (as the engine's
 * block loops are): 32 or 64 bytes per instruction, the same bytes (an AND is an AND).
 * clang 14 miscompiles the clones of a static function (harness/engine/inv_eval.c). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define GC_MASK_VEC __attribute__((target_clones("default", "avx2", "arch=x86-64-v4")))
#endif
#endif
#ifndef GC_MASK_VEC
#define GC_MASK_VEC
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("tree-vectorize")
#endif
static GC_MASK_VEC void mask_copy(unsigned char *restrict dst, const unsigned char *restrict src,
                                  const unsigned char *restrict mask, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i] & mask[i];
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* The padding of a row without strings as at most FP_PAD_WORDS eight-byte words (offset and
 * the bits the mask zeroes): a run of rows whose padding words are all zero is its own masked
 * copy, and is hashed where it lies. Reading a word or two of each row costs less than the
 * copy (AVX2: ~9 instructions a 56-byte row, and its stores), so the check is made only where
 * each word stands for at least FP_PAD_ROW_BYTES bytes of the row. */
#define FP_PAD_WORDS     4
#define FP_PAD_ROW_BYTES 16

/* Whether some padding word of rows p[0..n) (row size rs) has a set bit: the words ORed
 * together first (per word of the row), masked once at the end. */
static int pad_nonzero(const unsigned char *p, size_t rs, size_t n, const uint32_t *ofs,
                       const uint64_t *bits, int npad)
{
    uint64_t acc[FP_PAD_WORDS] = {0};
    if (npad == 1) {
        const unsigned char *q = p + ofs[0];
        uint64_t a0 = 0, a1 = 0;
        size_t i = 0;
        for (; i + 2 <= n; i += 2, q += 2 * rs) {
            uint64_t w0, w1;
            memcpy(&w0, q, sizeof w0);
            memcpy(&w1, q + rs, sizeof w1);
            a0 |= w0;
            a1 |= w1;
        }
        if (i < n) {
            uint64_t w;
            memcpy(&w, q, sizeof w);
            a0 |= w;
        }
        return ((a0 | a1) & bits[0]) != 0;
    }
    if (npad == 2) {
        const unsigned char *q0 = p + ofs[0], *q1 = p + ofs[1];
        uint64_t a0 = 0, a1 = 0;
        for (size_t i = 0; i < n; i++, q0 += rs, q1 += rs) {
            uint64_t w0, w1;
            memcpy(&w0, q0, sizeof w0);
            memcpy(&w1, q1, sizeof w1);
            a0 |= w0;
            a1 |= w1;
        }
        return ((a0 & bits[0]) | (a1 & bits[1])) != 0;
    }
    for (size_t i = 0; i < n; i++, p += rs)
        for (int k = 0; k < npad; k++) {
            uint64_t w;
            memcpy(&w, p + ofs[k], sizeof w);
            acc[k] |= w;
        }
    uint64_t any = 0;
    for (int k = 0; k < npad; k++)
        any |= acc[k] & bits[k];
    return any != 0;
}

/* The 128-bit fingerprint of t's rows: XXH3-128 (libxxhash) over the rows'
 * value bytes in row order, padding and unnamed bytes zeroed, strings zeroed
 * after their NUL, so only the values decide it (what a row's padding
 * happens to hold never does), seeded by the table's layout (name, row size,
 * each column's name, type and offset: a table read with another layout never
 * matches). Rows with no padding and no string are hashed where they lie;
 * the others a batch at a time through a masked copy.
 *
 * Computed a run of rows at a time (gc_digest_fp_rows): XXH3's streaming state
 * gives the same hash however the input is cut, so a caller that reads a
 * table's rows block by block anyway (the sweep's invariant passes) can hash
 * each block while it is still in cache, and the digests then need not read
 * the table from memory a second time. */
struct gc_digest_fp {
    const gc_table *t;
    XXH3_state_t *st;
    const gc_column **str; /* the string columns (their bytes after the NUL are zeroed) */
    size_t nstr;
    int full; /* no padding, no string: rows hashed where they lie */
    int npad; /* > 0: padding words checked (pad_nonzero), a zero run hashed
               * where it lies */
    uint32_t pad_ofs[FP_PAD_WORDS];
    uint64_t pad_bits[FP_PAD_WORDS];
    int broken;             /* rows not fed in order, or a failure: no fingerprint */
    size_t done;            /* rows hashed so far */
    size_t per;             /* rows per masked batch (FP_BATCH_BYTES of them) */
    unsigned char *stage;   /* per rows: the masked copy; allocated at first use, */
    unsigned char *maskrun; /* freed when the last row is in */
    unsigned char mask[MAX_FP_ROW];
};

gc_digest_fp *gc_digest_fp_new(const gc_table *t)
{
    if (!t || !t->desc)
        return NULL;
    const gc_table_desc *d = t->desc;
    gc_digest_fp *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->t = t;
    f->str = malloc((d->column_count ? d->column_count : 1) * sizeof *f->str);
    f->st = XXH3_createState();
    char layout[8192];
    size_t n = 0;
    int rc = f->str && f->st && row_mask(d, f->mask, f->str, &f->nstr, &f->full) == 0 ? 0 : -1;
    if (rc == 0) {
        /* "GCTAB1 <name> <row size>" and " <column>:<type>@<offset>" per column */
        n = put_str(layout, sizeof layout, 0, "GCTAB1 ");
        n = put_str(layout, sizeof layout, n, d->name);
        n = put_str(layout, sizeof layout, n, " ");
        n = put_u64(layout, sizeof layout, n, d->row_size);
        for (size_t k = 0; k < d->column_count && n < sizeof layout; k++) {
            n = put_str(layout, sizeof layout, n, " ");
            n = put_str(layout, sizeof layout, n, d->columns[k].name);
            n = put_str(layout, sizeof layout, n, ":");
            n = put_u64(layout, sizeof layout, n, (unsigned long long)d->columns[k].type);
            n = put_str(layout, sizeof layout, n, "@");
            n = put_u64(layout, sizeof layout, n, d->columns[k].offset);
        }
        if (n >= sizeof layout ||
            XXH3_128bits_reset_withSeed(f->st, XXH3_64bits(layout, n)) != XXH_OK)
            rc = -1;
    }
    if (rc != 0) {
        gc_digest_fp_free(f);
        return NULL;
    }
    size_t rs = d->row_size;
    if (!f->full && f->nstr == 0 && rs >= 8) {
        /* the words of the row that hold padding (the last one ends at the row's end) */
        for (size_t o = 0; o < rs && f->npad >= 0; o += 8) {
            const size_t wo = o + 8 <= rs ? o : rs - 8;
            uint64_t bits = 0;
            for (size_t b = 0; b < 8; b++)
                if (!f->mask[wo + b])
                    bits |= (uint64_t)0xFF << (8 * b);
            if (!bits)
                continue;
            if (f->npad == FP_PAD_WORDS) {
                f->npad = -1;
                break;
            }
            f->pad_ofs[f->npad] = (uint32_t)wo;
            f->pad_bits[f->npad++] = bits;
        }
        if (f->npad > 0 && rs < (size_t)f->npad * FP_PAD_ROW_BYTES)
            f->npad = 0;
        if (f->npad < 0)
            f->npad = 0;
    }
    f->per = FP_BATCH_BYTES / rs ? FP_BATCH_BYTES / rs : 1;
    if (f->per > t->count)
        f->per = t->count ? t->count : 1;
    return f;
}

void gc_digest_fp_rows(gc_digest_fp *f, size_t first, size_t n)
{
    if (!f || f->broken)
        return;
    const gc_table *t = f->t;
    if (first != f->done || n > t->count - first) { /* out of order: no fingerprint */
        f->broken = 1;
        return;
    }
    const size_t rs = t->desc->row_size;
    const unsigned char *rows = t->rows;
    if (f->full) {
        if (n && XXH3_128bits_update(f->st, rows + first * rs, n * rs) != XXH_OK)
            f->broken = 1;
        f->done += n;
        return;
    }
    for (size_t r0 = first; r0 < first + n && !f->broken; r0 += f->per) {
        size_t nb = first + n - r0 < f->per ? first + n - r0 : f->per;
        size_t bytes = nb * rs;
        if (f->npad > 0 && !pad_nonzero(rows + r0 * rs, rs, nb, f->pad_ofs, f->pad_bits, f->npad)) {
            /* the padding words are zero: the masked copy would be these very bytes */
            if (XXH3_128bits_update(f->st, rows + r0 * rs, bytes) != XXH_OK)
                f->broken = 1;
            continue;
        }
        if (!f->stage) {
            f->stage = malloc(f->per * rs);
            f->maskrun = malloc(f->per * rs);
            if (!f->stage || !f->maskrun) {
                f->broken = 1;
                return;
            }
            for (size_t i = 0; i < f->per; i++)
                memcpy(f->maskrun + i * rs, f->mask, rs);
        }
        unsigned char *stage = f->stage;
        mask_copy(stage, rows + r0 * rs, f->maskrun, bytes);
        /* in locals: the stores into the stage could otherwise alias f's fields, and each
         * row would load them again */
        const size_t nstr = f->nstr;
        const gc_column *const *str = f->str;
        for (size_t i = 0; i < nb && nstr; i++)
            for (size_t k = 0; k < nstr; k++) {
                unsigned char *v = stage + i * rs + str[k]->offset;
                const size_t size = str[k]->size;
                size_t len = 0;
                while (len < size && v[len])
                    len++;
                if (len < size)
                    memset(v + len, 0, size - len);
            }
        if (XXH3_128bits_update(f->st, stage, bytes) != XXH_OK)
            f->broken = 1;
    }
    f->done += n;
    if (f->done == t->count) { /* the last rows: the staging goes back now */
        free(f->stage);
        free(f->maskrun);
        f->stage = f->maskrun = NULL;
    }
}

int gc_digest_fp_final(const gc_digest_fp *f, unsigned char fp[16])
{
    if (!f || f->broken || f->done != f->t->count)
        return -1;
    XXH128_hash_t h = XXH3_128bits_digest(f->st);
    put_le(fp, h.low64, 8);
    put_le(fp + 8, h.high64, 8);
    return 0;
}

void gc_digest_fp_free(gc_digest_fp *f)
{
    if (!f)
        return;
    XXH3_freeState(f->st);
    free(f->stage);
    free(f->maskrun);
    free(f->str);
    free(f);
}

/* The fingerprint of all of t's rows in one go. 0, or -1 when the table has no
 * fingerprint. */
static int table_fingerprint(const gc_table *t, unsigned char fp[16])
{
    gc_digest_fp *f = gc_digest_fp_new(t);
    if (f)
        gc_digest_fp_rows(f, 0, t->count);
    int rc = gc_digest_fp_final(f, fp);
    gc_digest_fp_free(f);
    return rc;
}

/* The table digest: SHA-256 over "GCTAB1", the rows' fingerprint, and each
 * column's name, row count and column digest in the table's column order.
 * It certifies "rows with this fingerprint have these column digests": a
 * later run whose rows have the same fingerprint and whose baseline still
 * holds the same column digests computes the same table digest, and may take
 * the column digests as they are; a column digest edited in the baseline, or
 * one row byte changed, makes it differ. */
static int table_digest(const gc_table *t, const unsigned char fp[16],
                        const gc_rep_digest *const *cols, char *hex)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
                     EVP_DigestUpdate(ctx, "GCTAB1", 6) == 1 && EVP_DigestUpdate(ctx, fp, 16) == 1
                 ? 0
                 : -1;
    for (size_t k = 0; rc == 0 && k < t->desc->column_count; k++) {
        /* "<column> <rows> <digest>\n" */
        char line[300];
        size_t n = put_str(line, sizeof line, 0, t->desc->columns[k].name);
        n = put_str(line, sizeof line, n, " ");
        n = put_u64(line, sizeof line, n, (unsigned long long)cols[k]->rows);
        n = put_str(line, sizeof line, n, " ");
        n = put_str(line, sizeof line, n, cols[k]->digest);
        n = put_str(line, sizeof line, n, "\n");
        if (n >= sizeof line || EVP_DigestUpdate(ctx, line, n) != 1)
            rc = -1;
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (rc == 0 && (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen < GC_DIGEST_HEX / 2))
        rc = -1;
    if (rc == 0)
        to_hex(md, hex);
    EVP_MD_CTX_free(ctx);
    return rc;
}

static int append_table_digest(gc_rep_digest **tout, size_t *tcount, int level, const gc_table *t,
                               const char *hex)
{
    gc_rep_digest *d = gc_grow_one(*tout, *tcount, sizeof *d);
    if (!d)
        return -1;
    *tout = d;
    d = &d[(*tcount)++];
    memset(d, 0, sizeof *d);
    d->level = level;
    size_t l = strlen(t->desc->name); /* truncated as snprintf "%s" truncates */
    if (l >= sizeof d->field)
        l = sizeof d->field - 1;
    memcpy(d->field, t->desc->name, l);
    d->field[l] = '\0';
    d->rows = t->count;
    memcpy(d->digest, hex, GC_DIGEST_HEX + 1);
    return 0;
}

int gc_digest_tables_against(const gc_table *tables, size_t count, int level,
                             const gc_rep_digest *base_cols, size_t nbase_cols,
                             const gc_rep_digest *base_tabs, size_t nbase_tabs, gc_rep_digest **out,
                             size_t *out_count, gc_rep_digest **tout, size_t *tout_count,
                             size_t *reused)
{
    return gc_digest_tables_against_fp(tables, count, level, base_cols, nbase_cols, base_tabs,
                                       nbase_tabs, NULL, out, out_count, tout, tout_count, reused);
}

int gc_digest_tables_against_fp(const gc_table *tables, size_t count, int level,
                                const gc_rep_digest *base_cols, size_t nbase_cols,
                                const gc_rep_digest *base_tabs, size_t nbase_tabs,
                                gc_digest_fp *const *fps, gc_rep_digest **out, size_t *out_count,
                                gc_rep_digest **tout, size_t *tout_count, size_t *reused)
{
    size_t n = 0, maxc = 1;
    for (size_t i = 0; i < count; i++)
        if (tables[i].desc) {
            n += tables[i].desc->column_count;
            if (tables[i].desc->column_count > maxc)
                maxc = tables[i].desc->column_count;
        }
    gc_rep_digest *d = realloc(*out, (*out_count + n + 1) * sizeof *d);
    const gc_rep_digest **cols = malloc(maxc * sizeof *cols);
    if (!d || !cols) {
        if (d)
            *out = d;
        free(cols);
        return -1;
    }
    *out = d;
    size_t first = *out_count;
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        const gc_table *t = &tables[i];
        if (!t->desc)
            continue;
        size_t nc = t->desc->column_count;
        gc_rep_digest *mine = d + *out_count;
        unsigned char fp[16];
        /* a fingerprint fed every row of this very table in order is the one table_fingerprint
         * would compute; any other (none, partial, another table's) is computed here */
        int have_fp = fps && fps[i] && fps[i]->t == t && gc_digest_fp_final(fps[i], fp) == 0;
        if (!have_fp)
            have_fp = table_fingerprint(t, fp) == 0;
        int taken = 0;
        char hex[GC_DIGEST_HEX + 1];
        /* the fast path: the baseline's column digests, when the baseline's
         * table digest certifies them for rows with this fingerprint */
        const gc_rep_digest *bt =
            have_fp && base_tabs ? find(base_tabs, nbase_tabs, level, t->desc->name) : NULL;
        if (bt && bt->rows == t->count) {
            int all = 1;
            for (size_t k = 0; k < nc && all; k++) {
                char field[sizeof d->field];
                join_field(field, sizeof field, t->desc->name, t->desc->columns[k].name);
                cols[k] = find(base_cols, nbase_cols, level, field);
                all = cols[k] && cols[k]->rows == t->count;
            }
            if (all && table_digest(t, fp, cols, hex) == 0 && strcmp(hex, bt->digest) == 0) {
                for (size_t k = 0; k < nc; k++)
                    mine[k] = *cols[k];
                taken = 1;
                if (reused)
                    (*reused)++;
            }
        }
        if (!taken)
            rc = digest_table(t, level, mine);
        *out_count += nc;
        if (rc == 0 && have_fp) {
            /* taken: these columns are the ones the digest in hex was just computed over */
            if (!taken) {
                for (size_t k = 0; k < nc; k++)
                    cols[k] = &mine[k];
                rc = table_digest(t, fp, cols, hex);
            }
            if (rc == 0)
                rc = append_table_digest(tout, tout_count, level, t, hex);
        }
    }
    free(cols);
    qsort(d + first, *out_count - first, sizeof *d, cmp_digest);
    return rc;
}

int gc_digest_parse(const char *v, uint64_t *rows, char *hex)
{
    uint64_t r = 0;
    size_t i = 0;
    if (v[0] < '0' || v[0] > '9')
        return 0;
    for (; v[i] >= '0' && v[i] <= '9'; i++) {
        const unsigned d = (unsigned)(v[i] - '0');
        if (r > (UINT64_MAX - d) / 10)
            return 0;
        r = r * 10 + d;
    }
    if (v[i++] != ' ')
        return 0;
    for (size_t k = 0; k < GC_DIGEST_HEX; k++) {
        const char c = v[i + k];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return 0;
        hex[k] = c;
    }
    if (v[i + GC_DIGEST_HEX] != '\0')
        return 0;
    hex[GC_DIGEST_HEX] = '\0';
    *rows = r;
    return 1;
}
