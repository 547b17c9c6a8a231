/* SPDX-License-Identifier: MIT */
/* String builder. */
#include "gc_strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gc_sb_init(gc_strbuf *b)
{
    memset(b, 0, sizeof *b);
}

void gc_sb_free(gc_strbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

static int grow(gc_strbuf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->s = p;
    b->cap = cap;
    return 0;
}

void gc_sb_put(gc_strbuf *b, const char *s, size_t n)
{
    if (grow(b, n) != 0)
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void gc_sb_puts(gc_strbuf *b, const char *s)
{
    gc_sb_put(b, s, strlen(s));
}

void gc_sb_printf(gc_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        gc_sb_put(b, tmp, (size_t)n);
        return;
    }
    if (grow(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void gc_sb_json_str(gc_strbuf *b, const char *s)
{
    gc_sb_put(b, "\"", 1);
    if (s)
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
            switch (*p) {
            case '"':
                gc_sb_put(b, "\\\"", 2);
                break;
            case '\\':
                gc_sb_put(b, "\\\\", 2);
                break;
            case '\n':
                gc_sb_put(b, "\\n", 2);
                break;
            case '\t':
                gc_sb_put(b, "\\t", 2);
                break;
            case '\r':
                gc_sb_put(b, "\\r", 2);
                break;
            default:
                if (*p < 0x20)
                    gc_sb_printf(b, "\\u%04x", *p);
                else
                    gc_sb_put(b, (const char *)p, 1);
            }
        }
    gc_sb_put(b, "\"", 1);
}

void gc_sb_xml(gc_strbuf *b, const char *s)
{
    if (!s)
        return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '<':
            gc_sb_puts(b, "&lt;");
            break;
        case '>':
            gc_sb_puts(b, "&gt;");
            break;
        case '&':
            gc_sb_puts(b, "&amp;");
            break;
        case '"':
            gc_sb_puts(b, "&quot;");
            break;
        default:
            /* XML 1.0 forbids most control characters, even escaped. */
            if (*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r')
                gc_sb_put(b, "?", 1);
            else
                gc_sb_put(b, (const char *)p, 1);
        }
    }
}

void gc_sb_num(gc_strbuf *b, double v)
{
    if (isnan(v) || isinf(v)) {
        gc_sb_puts(b, "null");
        return;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        gc_sb_printf(b, "%lld", (long long)v);
        return;
    }
    gc_sb_printf(b, "%.17g", v);
}

char *gc_sb_take(gc_strbuf *b)
{
    char *s = b->s;
    if (!s)
        s = calloc(1, 1);
    memset(b, 0, sizeof *b);
    return s;
}
