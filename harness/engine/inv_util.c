/* SPDX-License-Identifier: MIT */
/* Engine plumbing: the arena a set lives in, the load-error sink and the
 * edit-distance suggestions ("did you mean 'vert_count'?"). */
#include "inv_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gc_arena_block {
    gc_arena_block *next;
    size_t used, cap;
    max_align_t data[]; /* aligned storage */
};

#define GC_ARENA_BLOCK 65536u

void *gc_arena_alloc(gc_arena *a, size_t size)
{
    const size_t align = sizeof(max_align_t);
    if (size > SIZE_MAX / 2) {
        a->failed = 1;
        return NULL;
    }
    size = (size + align - 1) / align * align;
    if (size == 0)
        size = align;
    gc_arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > GC_ARENA_BLOCK ? size : GC_ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b) {
            a->failed = 1;
            return NULL;
        }
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *gc_arena_strndup(gc_arena *a, const char *s, size_t n)
{
    char *p = gc_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *gc_arena_strdup(gc_arena *a, const char *s)
{
    return gc_arena_strndup(a, s, strlen(s));
}

void gc_arena_free(gc_arena *a)
{
    gc_arena_block *b = a->head;
    while (b) {
        gc_arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
}

void gc_inv_err_add(gc_inv_errors *e, int file_no, const char *file, int line, int col,
                    const char *fmt, ...)
{
    if (e->n >= GC_INV_MAX_ERRORS) {
        e->dropped++;
        return;
    }
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 16;
        gc_inv_error *v = realloc(e->v, cap * sizeof *v);
        if (!v) {
            e->oom = 1;
            e->dropped++;
            return;
        }
        e->v = v;
        e->cap = cap;
    }
    gc_inv_error *x = &e->v[e->n];
    x->file_no = file_no;
    x->file = file;
    x->line = line;
    x->col = col;
    x->seq = (unsigned)e->n;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->msg, sizeof x->msg, fmt, ap);
    va_end(ap);
    /* one diagnostic per line: echoed file text must not break the line */
    for (char *p = x->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    e->n++;
}

size_t gc_inv_edit_distance(const char *a, const char *b, size_t cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if ((la > lb ? la - lb : lb - la) > cap)
        return cap + 1;
    if (lb > 63 || la > 63)
        return strcmp(a, b) == 0 ? 0 : cap + 1;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        size_t best = row[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
            if (v < best)
                best = v;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[lb] > cap ? cap + 1 : row[lb];
}

const char *gc_inv_suggest(const char *name, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t bestd = 3;
    for (size_t i = 0; i < n; i++) {
        if (!cands[i] || strcmp(cands[i], name) == 0)
            continue;
        size_t d = gc_inv_edit_distance(name, cands[i], 2);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    return best;
}
