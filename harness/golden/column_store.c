/* SPDX-License-Identifier: MIT */
/* The column snapshot store (gc_column_store.h). */
#include "gc_column_store.h"

#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gc_digest.h"
#include "gc_fsutil.h"
#include "gc_strbuf.h"

void gc_column_store_dir(char *out, size_t len)
{
    const char *e = getenv("GC_COLUMN_STORE");
    if (e && *e)
        snprintf(out, len, "%s", e);
    else if ((e = getenv("GC_CACHE_DIR")) && *e)
        snprintf(out, len, "%s/columns", e);
    else if ((e = getenv("XDG_CACHE_HOME")) && *e)
        snprintf(out, len, "%s/gcverify/columns", e);
    else if ((e = getenv("HOME")) && *e)
        snprintf(out, len, "%s/.cache/gcverify/columns", e);
    else
        snprintf(out, len, "/tmp/gcverify-cache/columns");
}

/* The canonical encoding of column c of t, whole (tag, type, values). */
static unsigned char *encode(const gc_table *t, const gc_column *c, size_t *len)
{
    size_t w = c->type == GC_T_STR ? c->size + 1 : 8;
    unsigned char *b = malloc(7 + t->count * w + 1);
    if (!b)
        return NULL;
    memcpy(b, "GCCOL1", 6);
    b[6] = (unsigned char)c->type;
    size_t n = 7;
    for (size_t r = 0; r < t->count; r++)
        n += gc_digest_encode(c, (const unsigned char *)t->rows + r * t->desc->row_size, b + n);
    *len = n;
    return b;
}

static void hex_of(const unsigned char *b, size_t n, char *hex)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    hex[0] = '\0';
    if (EVP_Digest(b, n, md, &mdlen, EVP_sha256(), NULL) != 1)
        return;
    for (size_t i = 0; i < GC_DIGEST_HEX / 2; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

static void path_of(const char *dir, const char *hex, char *out, size_t len)
{
    snprintf(out, len, "%s/%.2s/%s.col", dir, hex, hex);
}

int gc_column_store_put_tables(const char *dir, const gc_table *tables, size_t count)
{
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        const gc_table *t = &tables[i];
        for (size_t k = 0; t->desc && k < t->desc->column_count && rc == 0; k++) {
            size_t n = 0;
            unsigned char *b = encode(t, &t->desc->columns[k], &n);
            if (!b)
                return -1;
            char hex[GC_DIGEST_HEX + 1], path[4096], sub[4096], tmp[4200], err[256];
            hex_of(b, n, hex);
            path_of(dir, hex, path, sizeof path);
            if (hex[0] && access(path, F_OK) != 0) {
                snprintf(sub, sizeof sub, "%s/%.2s", dir, hex);
                /* content-addressed: a unique temp name and a rename, so two
                 * threads or runs storing the same column never see half of it */
                snprintf(tmp, sizeof tmp, "%s/.tmp-%s-XXXXXX", sub, hex);
                int fd = gc_mkdir_p(sub, err, sizeof err) == 0 ? mkstemp(tmp) : -1;
                FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
                if (!f) {
                    if (fd >= 0)
                        close(fd);
                    rc = -1;
                } else {
                    int ok = fwrite(b, 1, n, f) == n;
                    ok &= fclose(f) == 0;
                    if (!ok || rename(tmp, path) != 0) {
                        remove(tmp);
                        rc = -1;
                    }
                }
            }
            free(b);
        }
    }
    return rc;
}

/* The snapshot stored under hex, checked against its name; NULL if absent. */
static unsigned char *load(const char *dir, const char *hex, size_t *len)
{
    char path[4096], err[256], got[GC_DIGEST_HEX + 1];
    path_of(dir, hex, path, sizeof path);
    if (access(path, R_OK) != 0)
        return NULL;
    unsigned char *b = (unsigned char *)gc_read_file(path, len, err, sizeof err);
    if (!b)
        return NULL;
    hex_of(b, *len, got);
    if (*len < 7 || strcmp(got, hex) != 0) {
        free(b);
        return NULL;
    }
    return b;
}

/* The next value at p (type ty) as text; returns its encoded length (0:
 * the bytes end). */
static size_t value_text(int ty, const unsigned char *p, size_t left, char *out, size_t len)
{
    static const unsigned char widths[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
    if (ty == GC_T_STR) {
        const unsigned char *z = memchr(p, 0, left);
        if (!z)
            return 0;
        snprintf(out, len, "\"%.*s\"", (int)(z - p), (const char *)p);
        return (size_t)(z - p) + 1;
    }
    if (ty < 0 || ty > GC_T_F64 || widths[ty] > left)
        return 0;
    size_t w = widths[ty];
    uint64_t u = 0;
    for (size_t i = 0; i < w; i++)
        u |= (uint64_t)p[i] << (8 * i);
    switch (ty) {
    case GC_T_S8:
        snprintf(out, len, "%d", (int)(int8_t)u);
        break;
    case GC_T_S16:
        snprintf(out, len, "%d", (int)(int16_t)u);
        break;
    case GC_T_S32:
        snprintf(out, len, "%" PRId32, (int32_t)u);
        break;
    case GC_T_S64:
        snprintf(out, len, "%" PRId64, (int64_t)u);
        break;
    case GC_T_F32: {
        uint32_t v = (uint32_t)u;
        float f;
        memcpy(&f, &v, 4);
        snprintf(out, len, "%.9g (0x%08" PRIx32 ")", (double)f, v);
    } break;
    case GC_T_F64: {
        double d;
        memcpy(&d, &u, 8);
        snprintf(out, len, "%.17g", d);
    } break;
    default:
        snprintf(out, len, "%" PRIu64, u);
    }
    return w;
}

/* Compare two encodings row by row into c. */
static void compare(gc_rep_change *c, const unsigned char *a, size_t alen, const unsigned char *b,
                    size_t blen)
{
    if (a[6] != b[6])
        return; /* the column's type changed: no row-wise comparison */
    int ty = a[6];
    size_t pa = 7, pb = 7, changed = 0, shown = 0, row = 0, used = 0;
    c->rows[0] = '\0';
    for (;; row++) {
        char va[96], vb[96];
        size_t la = pa < alen ? value_text(ty, a + pa, alen - pa, va, sizeof va) : 0;
        size_t lb = pb < blen ? value_text(ty, b + pb, blen - pb, vb, sizeof vb) : 0;
        if (!la || !lb)
            break;
        if (la != lb || memcmp(a + pa, b + pb, la) != 0) {
            changed++;
            if (shown < 3) {
                int k = snprintf(c->rows + used, sizeof c->rows - used, "%srow %zu: %s -> %s",
                                 shown ? "; " : "", row, va, vb);
                if (k > 0 && used + (size_t)k < sizeof c->rows)
                    used += (size_t)k;
                shown++;
            }
        }
        pa += la;
        pb += lb;
    }
    if (changed > shown && used + 16 < sizeof c->rows)
        snprintf(c->rows + used, sizeof c->rows - used, "; …");
    c->rows_changed = changed;
}

static const gc_table *find_column(const gc_table *tables, size_t ndesc, const char *field,
                                   const gc_column **col)
{
    for (size_t i = 0; i < ndesc; i++) {
        const gc_table_desc *d = tables[i].desc;
        size_t n = d ? strlen(d->name) : 0;
        if (!d || strncmp(field, d->name, n) != 0 || field[n] != '.')
            continue;
        for (size_t k = 0; k < d->column_count; k++)
            if (strcmp(field + n + 1, d->columns[k].name) == 0) {
                *col = &d->columns[k];
                return &tables[i];
            }
    }
    return NULL;
}

void gc_column_store_attribute(const char *dir, gc_report *rep, const gc_table *const *lt,
                               const int *ids, size_t nlevels, size_t ndesc)
{
    for (size_t i = 0; i < rep->change_count; i++) {
        gc_rep_change *c = &rep->changes[i];
        if (!c->digest || c->old_null || c->new_null)
            continue;
        size_t alen = 0, blen = 0;
        unsigned char *a = load(dir, c->old_digest, &alen), *b = NULL;
        if (!a)
            continue;
        if (lt) {
            for (size_t l = 0; l < nlevels && !b; l++) {
                const gc_column *col = NULL;
                const gc_table *t =
                    ids[l] == c->level ? find_column(lt[l], ndesc, c->field, &col) : NULL;
                if (t)
                    b = encode(t, col, &blen);
            }
        } else {
            b = load(dir, c->new_digest, &blen);
        }
        if (b)
            compare(c, a, alen, b, blen);
        free(a);
        free(b);
    }
}
