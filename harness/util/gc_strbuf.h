/* SPDX-License-Identifier: MIT */
/* Growable string builder for reports. */
#ifndef GC_STRBUF_H
#define GC_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct gc_strbuf {
    char *s;
    size_t len, cap;
    int failed; /* sticky allocation failure */
} gc_strbuf;

void gc_sb_init(gc_strbuf *b);
void gc_sb_free(gc_strbuf *b);
void gc_sb_put(gc_strbuf *b, const char *s, size_t n);
void gc_sb_puts(gc_strbuf *b, const char *s);
void gc_sb_printf(gc_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* JSON string literal with quotes and escapes. */
void gc_sb_json_str(gc_strbuf *b, const char *s);
/* XML-escaped text (for JUnit). */
void gc_sb_xml(gc_strbuf *b, const char *s);
/* A number in canonical JSON form: integers exactly, other values %.17g. */
void gc_sb_num(gc_strbuf *b, double v);
/* Detach the string (caller frees). */
char *gc_sb_take(gc_strbuf *b);

#endif
