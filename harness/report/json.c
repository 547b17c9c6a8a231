/* SPDX-License-Identifier: MIT */
/* Recursive-descent JSON parser (depth-limited). */
#include "gc_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *s;
    size_t pos;
    char *err;
    size_t errlen;
    int failed;
    int depth;
} parser;

static void fail(parser *p, const char *msg)
{
    if (p->failed)
        return;
    p->failed = 1;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < p->pos && p->s[i]; i++) {
        if (p->s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(p->err, p->errlen, "line %zu col %zu: %s", line, col, msg);
}

static void ws(parser *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\n' || p->s[p->pos] == '\t' ||
           p->s[p->pos] == '\r')
        p->pos++;
}

static gc_json *node(gc_json_type t)
{
    gc_json *j = calloc(1, sizeof *j);
    if (j)
        j->type = t;
    return j;
}

static int push(gc_json *j, gc_json *item, char *key)
{
    if ((j->count & (j->count - 1)) == 0) { /* grow at powers of two */
        size_t cap = j->count ? j->count * 2 : 4;
        gc_json **ni = realloc(j->items, cap * sizeof *ni);
        if (!ni)
            return -1;
        j->items = ni;
        if (j->type == GC_JSON_OBJ) {
            char **nk = realloc(j->keys, cap * sizeof *nk);
            if (!nk)
                return -1;
            j->keys = nk;
        }
    }
    j->items[j->count] = item;
    if (j->type == GC_JSON_OBJ)
        j->keys[j->count] = key;
    j->count++;
    return 0;
}

static void put_utf8(char *out, size_t *n, unsigned cp)
{
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xc0 | cp >> 6);
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*n)++] = (char)(0xe0 | cp >> 12);
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

static char *parse_string(parser *p)
{
    if (p->s[p->pos] != '"') {
        fail(p, "expected a string");
        return NULL;
    }
    p->pos++;
    size_t start = p->pos, n = 0;
    while (p->s[p->pos] && p->s[p->pos] != '"') {
        if (p->s[p->pos] == '\\' && p->s[p->pos + 1])
            p->pos++;
        p->pos++;
    }
    if (p->s[p->pos] != '"') {
        fail(p, "unterminated string");
        return NULL;
    }
    char *out = malloc(p->pos - start + 1);
    if (!out) {
        fail(p, "out of memory");
        return NULL;
    }
    for (size_t i = start; i < p->pos; i++) {
        char c = p->s[i];
        if (c != '\\') {
            out[n++] = c;
            continue;
        }
        c = p->s[++i];
        switch (c) {
        case 'n':
            out[n++] = '\n';
            break;
        case 't':
            out[n++] = '\t';
            break;
        case 'r':
            out[n++] = '\r';
            break;
        case 'b':
            out[n++] = '\b';
            break;
        case 'f':
            out[n++] = '\f';
            break;
        case 'u': {
            unsigned cp = 0;
            int k;
            for (k = 1; k <= 4; k++) {
                char h = p->s[i + (size_t)k];
                cp <<= 4;
                if (h >= '0' && h <= '9')
                    cp |= (unsigned)(h - '0');
                else if (h >= 'a' && h <= 'f')
                    cp |= (unsigned)(h - 'a' + 10);
                else if (h >= 'A' && h <= 'F')
                    cp |= (unsigned)(h - 'A' + 10);
                else
                    break;
            }
            if (k <= 4) {
                free(out);
                fail(p, "bad \\u escape");
                return NULL;
            }
            i += 4;
            put_utf8(out, &n, cp);
            break;
        }
        default:
            out[n++] = c;
        }
    }
    out[n] = '\0';
    p->pos++;
    return out;
}

static gc_json *parse_value(parser *p);

static gc_json *parse_container(parser *p, int obj)
{
    gc_json *j = node(obj ? GC_JSON_OBJ : GC_JSON_ARR);
    if (!j) {
        fail(p, "out of memory");
        return NULL;
    }
    p->pos++;
    ws(p);
    char close = obj ? '}' : ']';
    if (p->s[p->pos] == close) {
        p->pos++;
        return j;
    }
    for (;;) {
        char *key = NULL;
        if (obj) {
            ws(p);
            key = parse_string(p);
            if (!key)
                break;
            ws(p);
            if (p->s[p->pos] != ':') {
                free(key);
                fail(p, "expected ':'");
                break;
            }
            p->pos++;
        }
        gc_json *v = parse_value(p);
        if (!v) {
            free(key);
            break;
        }
        if (push(j, v, key) != 0) {
            free(key);
            gc_json_free(v);
            fail(p, "out of memory");
            break;
        }
        ws(p);
        if (p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->s[p->pos] == close) {
            p->pos++;
            return j;
        }
        fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
    }
    gc_json_free(j);
    return NULL;
}

static gc_json *parse_value(parser *p)
{
    ws(p);
    if (++p->depth > 64) {
        fail(p, "nesting too deep");
        return NULL;
    }
    size_t start = p->pos;
    gc_json *j = NULL;
    char c = p->s[p->pos];
    if (c == '{' || c == '[') {
        j = parse_container(p, c == '{');
    } else if (c == '"') {
        char *s = parse_string(p);
        if (s) {
            j = node(GC_JSON_STR);
            if (j)
                j->str = s;
            else
                free(s);
        }
    } else if (strncmp(p->s + p->pos, "null", 4) == 0) {
        p->pos += 4;
        j = node(GC_JSON_NULL);
    } else if (strncmp(p->s + p->pos, "true", 4) == 0) {
        p->pos += 4;
        j = node(GC_JSON_BOOL);
        if (j)
            j->boolean = 1;
    } else if (strncmp(p->s + p->pos, "false", 5) == 0) {
        p->pos += 5;
        j = node(GC_JSON_BOOL);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        double v = strtod(p->s + p->pos, &end);
        if (end == p->s + p->pos) {
            fail(p, "bad number");
        } else {
            p->pos = (size_t)(end - p->s);
            j = node(GC_JSON_NUM);
            if (j)
                j->num = v;
        }
    } else {
        fail(p, "unexpected character");
    }
    p->depth--;
    if (j) {
        j->src_start = start;
        j->src_end = p->pos;
    } else if (!p->failed) {
        fail(p, "out of memory");
    }
    return j;
}

gc_json *gc_json_parse(const char *text, char *err, size_t errlen)
{
    parser p = {.s = text, .err = err, .errlen = errlen};
    gc_json *j = parse_value(&p);
    if (j) {
        ws(&p);
        if (p.s[p.pos] != '\0') {
            fail(&p, "trailing characters after the value");
            gc_json_free(j);
            j = NULL;
        }
    }
    return j;
}

void gc_json_free(gc_json *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->count; i++) {
        gc_json_free(j->items[i]);
        if (j->keys)
            free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    free(j->str);
    free(j);
}

const gc_json *gc_json_get(const gc_json *obj, const char *key)
{
    if (!obj || obj->type != GC_JSON_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

const char *gc_json_str(const gc_json *j, const char *dflt)
{
    return j && j->type == GC_JSON_STR ? j->str : dflt;
}

double gc_json_num(const gc_json *j, double dflt)
{
    if (!j)
        return dflt;
    if (j->type == GC_JSON_NUM)
        return j->num;
    if (j->type == GC_JSON_BOOL)
        return j->boolean;
    return dflt;
}
