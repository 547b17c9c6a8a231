/* SPDX-License-Identifier: MIT */
/* Column digests (see gc_digest.h for the encoding). */
#include "gc_digest.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        snprintf(e->field, sizeof e->field, "%s.%s", t->desc->name, cs[k].c->name);
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
    gc_rep_digest key;
    key.level = level;
    snprintf(key.field, sizeof key.field, "%s", field);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_digest(&key, &d[mid]);
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
    gc_rep_change *c = realloc(r->changes, (r->change_count + 1) * sizeof *c);
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

const gc_rep_digest *gc_digest_find(const gc_rep_digest *sorted, size_t n, int level,
                                    const char *field)
{
    return find(sorted, n, level, field);
}

void gc_digest_compare(gc_report *r, const gc_rep_digest *old, size_t old_count)
{
    gc_rep_digest *so = NULL;
    if (old_count) {
        so = malloc(old_count * sizeof *so);
        if (!so)
            return;
        memcpy(so, old, old_count * sizeof *so);
        qsort(so, old_count, sizeof *so, cmp_digest);
    }
    if (r->digest_count)
        qsort(r->digests, r->digest_count, sizeof *r->digests, cmp_digest);
    for (size_t i = 0; i < r->digest_count; i++) {
        const gc_rep_digest *n = &r->digests[i];
        const gc_rep_digest *o = find(so, old_count, n->level, n->field);
        if (!o)
            r->digests_unblessed++;
        else if (o->rows != n->rows || strcmp(o->digest, n->digest) != 0)
            add_change(r, n->level, n->field, o, n);
    }
    /* a column of a level that ran, gone from this run: only when this run
     * has digests for that level at all (an older report has none) */
    for (size_t i = 0; i < old_count; i++) {
        const gc_rep_digest *o = &so[i];
        int present = 0;
        for (size_t k = 0; k < r->selected_count && !present; k++)
            present = r->selected[k] == o->level;
        if (!present || find(r->digests, r->digest_count, o->level, o->field))
            continue;
        int level_has = 0;
        for (size_t k = 0; k < r->digest_count && !level_has; k++)
            level_has = r->digests[k].level == o->level;
        if (level_has)
            add_change(r, o->level, o->field, o, NULL);
    }
    free(so);
}
