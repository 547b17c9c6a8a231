/* SPDX-License-Identifier: MIT */
/* JSON reading for gcverify's own reports (diff, merge): jansson parses, and
 * the result is handed over as this small tree; objects keep their member
 * order. Numbers are doubles, strings UTF-8 (\uXXXX escapes decoded by
 * jansson), duplicate keys are an error, nesting is limited to 64 levels. */
#ifndef GC_JSON_H
#define GC_JSON_H

#include <stddef.h>

typedef enum gc_json_type {
    GC_JSON_NULL,
    GC_JSON_BOOL,
    GC_JSON_NUM,
    GC_JSON_STR,
    GC_JSON_ARR,
    GC_JSON_OBJ
} gc_json_type;

typedef struct gc_json {
    gc_json_type type;
    double num;
    int boolean;
    char *str;              /* GC_JSON_STR */
    char **keys;            /* GC_JSON_OBJ: member names */
    struct gc_json **items; /* ARR elements / OBJ values */
    size_t count;
    /* byte range of this value in the source text (merge copies corpus_tables
     * entries verbatim) */
    size_t src_start, src_end;
} gc_json;

/* Parse text; NULL on error with "line L col C: message" in err. */
gc_json *gc_json_parse(const char *text, char *err, size_t errlen);
void gc_json_free(gc_json *j);
/* Member of an object (NULL if absent or not an object). */
const gc_json *gc_json_get(const gc_json *obj, const char *key);
const char *gc_json_str(const gc_json *j, const char *dflt);
double gc_json_num(const gc_json *j, double dflt);

#endif
