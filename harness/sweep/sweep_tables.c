/* SPDX-License-Identifier: MIT */
/* Corpus scope and the corpus_tables report section. */
#include "gc_sweep_tables.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gc_corpus.h"
#include "gc_num.h"
#include "gc_strbuf.h"

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Does `text` mention table `name` as a whole name? */
static int mentions(const char *text, const char *name)
{
    if (!text)
        return 0;
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        int before_ok = p == text || !(name_char(p[-1]) || p[-1] == '.');
        int after_ok = !name_char(p[n]);
        if (before_ok && after_ok)
            return 1;
    }
    return 0;
}

int gc_sweep_table_needed(const gc_inv_set *set, const int *selected, const char *name)
{
    for (size_t k = 0; k < gc_inv_count(set); k++) {
        const gc_inv_info *info = gc_inv_get(set, k);
        if (!selected[k] || info->scope != GC_SCOPE_CORPUS)
            continue;
        if ((info->table && strcmp(info->table, name) == 0) || mentions(info->expect, name) ||
            mentions(info->where, name))
            return 1;
    }
    return 0;
}

static uint64_t all_ones(size_t size)
{
    return size >= 8 ? UINT64_MAX : ((uint64_t)1 << (size * 8)) - 1;
}

/* What "%lld" / "%llu" print, without the printf machinery: the section holds every value of
 * the kept tables' rows, most of them integers, and vsnprintf was ~1,000 instructions a value
 * on the sweep's serial tail (issue 18). */
static void put_decimal(gc_strbuf *b, int negative, uint64_t magnitude)
{
    char buf[24]; /* '-' and 20 digits of 2^64 - 1, and the NUL */
    char *p = buf + sizeof buf - 1;
    *p = '\0';
    do {
        *--p = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (negative)
        *--p = '-';
    gc_sb_puts(b, p);
}

static void put_value(gc_strbuf *b, const gc_column *c, const unsigned char *row)
{
    const unsigned char *p = row + c->offset;
    uint64_t u = 0;
    int64_t s = 0;
    switch (c->type) {
    case GC_T_BOOL:
    case GC_T_U8:
        u = *p;
        break;
    case GC_T_U16: {
        uint16_t v;
        memcpy(&v, p, 2);
        u = v;
    } break;
    case GC_T_U32: {
        uint32_t v;
        memcpy(&v, p, 4);
        u = v;
    } break;
    case GC_T_U64:
        memcpy(&u, p, 8);
        break;
    case GC_T_S8:
        s = (int8_t)*p;
        break;
    case GC_T_S16: {
        int16_t v;
        memcpy(&v, p, 2);
        s = v;
    } break;
    case GC_T_S32: {
        int32_t v;
        memcpy(&v, p, 4);
        s = v;
    } break;
    case GC_T_S64:
        memcpy(&s, p, 8);
        break;
    case GC_T_F32: {
        float v;
        memcpy(&v, p, 4);
        gc_sb_printf(b, "%.9g", (double)v);
    }
        return;
    case GC_T_F64: {
        double v;
        memcpy(&v, p, 8);
        gc_sb_printf(b, "%.17g", v);
    }
        return;
    case GC_T_STR: {
        char tmp[1024];
        size_t n = c->size < sizeof tmp ? c->size : sizeof tmp - 1;
        memcpy(tmp, p, n);
        tmp[n] = '\0';
        gc_sb_json_str(b, tmp);
    }
        return;
    }
    if (c->type == GC_T_S8 || c->type == GC_T_S16 || c->type == GC_T_S32 || c->type == GC_T_S64) {
        put_decimal(b, s < 0, s < 0 ? 0 - (uint64_t)s : (uint64_t)s);
        return;
    }
    if ((c->flags & GC_CF_NULL_IF_MAX) && u == all_ones(c->size)) {
        gc_sb_puts(b, "null");
        return;
    }
    put_decimal(b, 0, u);
}

char *gc_sweep_corpus_tables_json(const gc_inv_set *set, const int *selected,
                                  const gc_table_desc *const *descs, size_t ndesc,
                                  const gc_table *const *levels, const int *ids, size_t nlevels)
{
    /* which tables go in is a property of the selection, not of the level: asked once a table
     * (each asking scans every invariant's text) */
    unsigned char *needed = calloc(ndesc ? ndesc : 1, 1);
    if (!needed)
        return NULL;
    for (size_t t = 0; t < ndesc; t++)
        needed[t] = gc_sweep_table_needed(set, selected, descs[t]->name) != 0;
    gc_strbuf b;
    gc_sb_init(&b);
    gc_sb_puts(&b, "{");
    int any_level = 0;
    for (size_t l = 0; l < nlevels; l++) {
        int any_table = 0;
        for (size_t t = 0; t < ndesc; t++) {
            if (!needed[t])
                continue;
            const gc_table *tab = &levels[l][t];
            if (!any_table)
                gc_sb_printf(&b, "%s\n    \"%d\": {", any_level++ ? "," : "", ids[l]);
            gc_sb_printf(&b, "%s\"%s\": {\"columns\": [", any_table++ ? ", " : "", descs[t]->name);
            for (size_t c = 0; c < descs[t]->column_count; c++)
                gc_sb_printf(&b, "%s\"%s\"", c ? ", " : "", descs[t]->columns[c].name);
            gc_sb_puts(&b, "], \"rows\": [");
            for (size_t r = 0; r < tab->count; r++) {
                const unsigned char *row =
                    (const unsigned char *)tab->rows + r * descs[t]->row_size;
                gc_sb_puts(&b, r ? ", [" : "[");
                for (size_t c = 0; c < descs[t]->column_count; c++) {
                    if (c)
                        gc_sb_puts(&b, ", ");
                    put_value(&b, &descs[t]->columns[c], row);
                }
                gc_sb_puts(&b, "]");
            }
            gc_sb_puts(&b, "]}");
        }
        if (any_table)
            gc_sb_puts(&b, "}");
    }
    gc_sb_puts(&b, any_level ? "\n  }" : "}");
    free(needed);
    if (b.failed) {
        gc_sb_free(&b);
        return NULL;
    }
    return gc_sb_take(&b);
}

void gc_sweep_eval_corpus(const gc_inv_set *set, const int *selected, const gc_table *const *levels,
                          const int *ids, size_t nlevels, size_t max_samples, gc_report *rep)
{
    for (size_t k = 0; k < gc_inv_count(set); k++) {
        const gc_inv_info *info = gc_inv_get(set, k);
        if (!selected[k] || info->scope != GC_SCOPE_CORPUS)
            continue;
        gc_inv_result res;
        memset(&res, 0, sizeof res);
        struct timespec t0, t1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        gc_inv_eval_corpus(set, k, levels, ids, nlevels, max_samples, &res);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        gc_rep_result *x = gc_report_add_result(rep, info->id, GC_LEVEL_CORPUS);
        if (x) {
            snprintf(x->severity, sizeof x->severity, "%s",
                     info->severity == GC_SEV_ERROR  ? "error"
                     : info->severity == GC_SEV_WARN ? "warn"
                                                     : "info");
            snprintf(x->tier, sizeof x->tier, "%s",
                     info->tier == GC_TIER_GATE ? "gate" : "nightly");
            snprintf(x->scope, sizeof x->scope, "corpus");
            x->checked = res.checked;
            x->failed = res.failed;
            x->time_seconds =
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
            if (res.sample_count && (x->samples = calloc(res.sample_count, sizeof *x->samples))) {
                x->sample_count = res.sample_count;
                for (size_t s = 0; s < res.sample_count; s++) {
                    x->samples[s].level = res.samples[s].level;
                    x->samples[s].row = res.samples[s].row;
                    x->samples[s].file_ofs = res.samples[s].file_ofs;
                    x->samples[s].parent_row = -1;
                    x->samples[s].values = strdup(res.samples[s].values);
                }
            }
        }
        char name[256];
        snprintf(name, sizeof name, "%s.checked", info->id);
        gc_report_add_metric(rep, GC_LEVEL_CORPUS, name, (double)res.checked, 0);
        snprintf(name, sizeof name, "%s.failed", info->id);
        gc_report_add_metric(rep, GC_LEVEL_CORPUS, name, (double)res.failed, 0);
        gc_inv_result_free(&res);
    }
}

/* ---- loading (merge) ---- */

/* Row value v of column c. 0, or -1 when v is a number that column cannot hold (not a whole
 * number in an integer column's range): converting such a double is undefined behaviour, and
 * no report gcverify writes has one. */
static int set_value(const gc_column *c, unsigned char *row, const gc_json *v)
{
    unsigned char *p = row + c->offset;
    if (c->type == GC_T_STR) {
        const char *s = v && v->type == GC_JSON_STR ? v->str : "";
        size_t n = strlen(s);
        if (n >= c->size)
            n = c->size - 1;
        memcpy(p, s, n);
        p[n] = '\0';
        return 0;
    }
    if (!v || v->type == GC_JSON_NULL) {
        uint64_t ones = all_ones(c->size);
        memcpy(p, &ones, c->size < 8 ? c->size : 8);
        return 0;
    }
    double d = gc_json_num(v, 0);
    switch (c->type) {
    case GC_T_BOOL:
    case GC_T_U8:
        if (!gc_whole_in(d, 0, UINT8_MAX))
            return -1;
        *p = (uint8_t)d;
        break;
    case GC_T_U16: {
        if (!gc_whole_in(d, 0, UINT16_MAX))
            return -1;
        uint16_t x = (uint16_t)d;
        memcpy(p, &x, 2);
    } break;
    case GC_T_U32: {
        if (!gc_whole_in(d, 0, UINT32_MAX))
            return -1;
        uint32_t x = (uint32_t)d;
        memcpy(p, &x, 4);
    } break;
    case GC_T_U64: {
        /* 2^64 is UINT64_MAX as its decimal reads back */
        if (d != 0x1p64 && !gc_whole_in(d, 0, 0x1p64 - 2048))
            return -1;
        uint64_t x = d == 0x1p64 ? UINT64_MAX : (uint64_t)d;
        memcpy(p, &x, 8);
    } break;
    case GC_T_S8:
        if (!gc_whole_in(d, INT8_MIN, INT8_MAX))
            return -1;
        *p = (unsigned char)(int8_t)d;
        break;
    case GC_T_S16: {
        if (!gc_whole_in(d, INT16_MIN, INT16_MAX))
            return -1;
        int16_t x = (int16_t)d;
        memcpy(p, &x, 2);
    } break;
    case GC_T_S32: {
        if (!gc_whole_in(d, INT32_MIN, INT32_MAX))
            return -1;
        int32_t x = (int32_t)d;
        memcpy(p, &x, 4);
    } break;
    case GC_T_S64: {
        if (!gc_whole_in(d, -0x1p63, 0x1p63 - 1024))
            return -1;
        int64_t x = (int64_t)d;
        memcpy(p, &x, 8);
    } break;
    case GC_T_F32: {
        float x = (float)d; /* IEEE: past float's range it is an infinity */
        memcpy(p, &x, 4);
    } break;
    case GC_T_F64:
        memcpy(p, &d, 8);
        break;
    case GC_T_STR:
        break;
    }
    return 0;
}

/* The level of a corpus_tables key written as the writer writes one, or -1. */
static int level_id(const char *key)
{
    size_t n = strlen(key);
    if (n == 0 || n > 2 || (n == 2 && key[0] == '0'))
        return -1;
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (key[i] < '0' || key[i] > '9')
            return -1;
        v = v * 10 + (key[i] - '0');
    }
    return v < GC_LEVEL_COUNT ? v : -1;
}

void gc_loaded_tables_free(gc_loaded_tables *t)
{
    for (size_t i = 0; i < t->nbufs; i++)
        free(t->bufs[i]);
    free(t->bufs);
    for (size_t l = 0; l < t->nlevels; l++)
        free(t->tables[l]);
    free(t->tables);
    free(t->ids);
    memset(t, 0, sizeof *t);
}

int gc_sweep_tables_load(const gc_json *const *objs, size_t nobjs,
                         const gc_table_desc *const *descs, size_t ndesc, gc_loaded_tables *out,
                         char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->ndesc = ndesc;
    size_t total = 0;
    for (size_t o = 0; o < nobjs; o++)
        total += objs[o] && objs[o]->type == GC_JSON_OBJ ? objs[o]->count : 0;
    out->ids = calloc(total ? total : 1, sizeof *out->ids);
    out->tables = calloc(total ? total : 1, sizeof *out->tables);
    if (!out->ids || !out->tables)
        goto oom;
    for (size_t o = 0; o < nobjs; o++) {
        const gc_json *obj = objs[o];
        if (!obj || obj->type != GC_JSON_OBJ)
            continue;
        for (size_t l = 0; l < obj->count; l++) {
            /* a level key as the writer writes it ("0".."26", no sign, no leading zero), and
             * each level once over all the shards: merge echoes the keys as numbers, and two
             * spellings of one level would make it a duplicate key */
            const char *key = obj->keys[l];
            const int id = level_id(key);
            int seen = 0;
            for (size_t e = 0; e < out->nlevels; e++)
                seen |= out->ids[e] == id;
            if (id < 0 || seen) {
                snprintf(err, errlen, "corpus_tables: level key '%.32s' %s", key,
                         id < 0 ? "is not a level number 0..26" : "appears twice");
                gc_loaded_tables_free(out);
                return -1;
            }
            size_t li = out->nlevels++;
            out->ids[li] = id;
            out->tables[li] = calloc(ndesc, sizeof **out->tables);
            if (!out->tables[li])
                goto oom;
            for (size_t t = 0; t < ndesc; t++)
                out->tables[li][t].desc = descs[t];
            const gc_json *lv = obj->items[l];
            for (size_t k = 0; lv && lv->type == GC_JSON_OBJ && k < lv->count; k++) {
                size_t t = 0;
                while (t < ndesc && strcmp(descs[t]->name, lv->keys[k]) != 0)
                    t++;
                if (t == ndesc) {
                    snprintf(err, errlen, "corpus_tables: unknown table '%s'", lv->keys[k]);
                    gc_loaded_tables_free(out);
                    return -1;
                }
                const gc_json *cols = gc_json_get(lv->items[k], "columns");
                const gc_json *rows = gc_json_get(lv->items[k], "rows");
                if (!cols || cols->type != GC_JSON_ARR || !rows || rows->type != GC_JSON_ARR) {
                    snprintf(err, errlen, "corpus_tables: %s needs columns and rows", lv->keys[k]);
                    gc_loaded_tables_free(out);
                    return -1;
                }
                /* map the report's column order onto the descriptor's */
                const gc_table_desc *d = descs[t];
                int map[256];
                size_t nc = cols->count < 256 ? cols->count : 256;
                for (size_t c = 0; c < nc; c++) {
                    map[c] = -1;
                    for (size_t dc = 0; dc < d->column_count; dc++)
                        if (strcmp(d->columns[dc].name, gc_json_str(cols->items[c], "")) == 0)
                            map[c] = (int)dc;
                }
                unsigned char *buf = calloc(rows->count ? rows->count : 1, d->row_size);
                void **nb = realloc(out->bufs, (out->nbufs + 1) * sizeof *nb);
                if (!buf || !nb) {
                    free(buf);
                    if (nb)
                        out->bufs = nb;
                    goto oom;
                }
                out->bufs = nb;
                out->bufs[out->nbufs++] = buf;
                for (size_t r = 0; r < rows->count; r++) {
                    const gc_json *row = rows->items[r];
                    for (size_t c = 0; row && row->type == GC_JSON_ARR && c < nc && c < row->count;
                         c++)
                        if (map[c] >= 0 && set_value(&d->columns[map[c]], buf + r * d->row_size,
                                                     row->items[c]) != 0) {
                            snprintf(err, errlen,
                                     "corpus_tables: level %s %s row %zu: %s cannot hold that "
                                     "value",
                                     obj->keys[l], lv->keys[k], r, d->columns[map[c]].name);
                            gc_loaded_tables_free(out);
                            return -1;
                        }
                }
                out->tables[li][t].rows = buf;
                out->tables[li][t].count = rows->count;
            }
        }
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    gc_loaded_tables_free(out);
    return -1;
}

typedef struct member {
    int level;
    const char *src;
    size_t start, end;
} member;

static int cmp_member(const void *a, const void *b)
{
    const member *x = a, *y = b;
    return (x->level > y->level) - (x->level < y->level);
}

char *gc_sweep_tables_merge_json(const gc_json *const *objs, const char *const *srcs, size_t nobjs)
{
    size_t total = 0;
    for (size_t o = 0; o < nobjs; o++)
        total += objs[o] && objs[o]->type == GC_JSON_OBJ ? objs[o]->count : 0;
    member *m = calloc(total ? total : 1, sizeof *m);
    if (!m)
        return NULL;
    size_t n = 0;
    for (size_t o = 0; o < nobjs; o++)
        for (size_t l = 0; objs[o] && objs[o]->type == GC_JSON_OBJ && l < objs[o]->count; l++) {
            m[n].level = gc_atoi_clamp(objs[o]->keys[l]);
            m[n].src = srcs[o];
            m[n].start = objs[o]->items[l]->src_start;
            m[n].end = objs[o]->items[l]->src_end;
            n++;
        }
    qsort(m, n, sizeof *m, cmp_member);
    gc_strbuf b;
    gc_sb_init(&b);
    gc_sb_puts(&b, "{");
    for (size_t i = 0; i < n; i++) {
        gc_sb_printf(&b, "%s\n    \"%d\": ", i ? "," : "", m[i].level);
        gc_sb_put(&b, m[i].src + m[i].start, m[i].end - m[i].start);
    }
    gc_sb_puts(&b, n ? "\n  }" : "}");
    free(m);
    if (b.failed) {
        gc_sb_free(&b);
        return NULL;
    }
    return gc_sb_take(&b);
}
