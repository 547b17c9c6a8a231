/* SPDX-License-Identifier: MIT */
/* JSON reading through jansson (Debian's libjansson), converted into the
 * small gc_json tree the report readers walk (issue 14: a maintained library
 * instead of our own parser). The writers stay ours (report_write.c): they fix
 * key order and number formatting so reports are byte-identical, which
 * jansson's dumper does not promise for reals.
 *
 * jansson keeps no source positions, but `merge` echoes a shard's
 * corpus_tables entries byte for byte. So src_start/src_end of every value are
 * found afterwards by a structural scan of the text jansson has accepted as
 * valid JSON (no value is decoded twice). */
#include "gc_json.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nesting accepted (jansson's own limit is 2048): reports nest about 8 deep;
 * the conversion below recurses once per level. */
#define GC_JSON_MAX_DEPTH 64

static gc_json *node(gc_json_type t)
{
    gc_json *j = calloc(1, sizeof *j);
    if (j)
        j->type = t;
    return j;
}

static gc_json *convert(json_t *v, int depth, int *too_deep)
{
    if (depth > GC_JSON_MAX_DEPTH) {
        *too_deep = 1;
        return NULL;
    }
    gc_json *j = NULL;
    switch (json_typeof(v)) {
    case JSON_NULL:
        return node(GC_JSON_NULL);
    case JSON_TRUE:
    case JSON_FALSE:
        j = node(GC_JSON_BOOL);
        if (j)
            j->boolean = json_is_true(v);
        return j;
    case JSON_INTEGER:
        j = node(GC_JSON_NUM);
        if (j)
            j->num = (double)json_integer_value(v);
        return j;
    case JSON_REAL:
        j = node(GC_JSON_NUM);
        if (j)
            j->num = json_real_value(v);
        return j;
    case JSON_STRING:
        j = node(GC_JSON_STR);
        if (j && !(j->str = strdup(json_string_value(v)))) {
            free(j);
            return NULL;
        }
        return j;
    case JSON_ARRAY: {
        j = node(GC_JSON_ARR);
        size_t n = json_array_size(v);
        if (!j || (n && !(j->items = calloc(n, sizeof *j->items))))
            goto fail;
        for (size_t i = 0; i < n; i++, j->count++)
            if (!(j->items[i] = convert(json_array_get(v, i), depth + 1, too_deep)))
                goto fail;
        return j;
    }
    case JSON_OBJECT: {
        j = node(GC_JSON_OBJ);
        size_t n = json_object_size(v);
        if (!j || (n && (!(j->items = calloc(n, sizeof *j->items)) ||
                         !(j->keys = calloc(n, sizeof *j->keys)))))
            goto fail;
        /* jansson iterates an object in the order its members were read */
        const char *key;
        json_t *val;
        json_object_foreach(v, key, val)
        {
            if (!(j->keys[j->count] = strdup(key)))
                goto fail;
            gc_json *c = convert(val, depth + 1, too_deep);
            if (!c) {
                free(j->keys[j->count]);
                goto fail;
            }
            j->items[j->count++] = c;
        }
        return j;
    }
    }
fail:
    gc_json_free(j);
    return NULL;
}

/* End of the JSON string whose opening quote is at s[i] (index after it). */
static size_t skip_string(const char *s, size_t i)
{
    for (i++; s[i] && s[i] != '"'; i++)
        if (s[i] == '\\' && s[i + 1])
            i++;
    return s[i] ? i + 1 : i;
}

static size_t skip_ws(const char *s, size_t i)
{
    while (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')
        i++;
    return i;
}

/* End of the (valid) scalar JSON value starting at s[i]. */
static size_t skip_value(const char *s, size_t i)
{
    if (s[i] == '"')
        return skip_string(s, i);
    while (s[i] && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n' &&
           s[i] != '\t' && s[i] != '\r')
        i++;
    return i;
}

/* Sets the byte range of j, the (valid) value starting at s[i], and of every
 * value inside it, in the order jansson read them (the order of j->items);
 * returns the index after it. A structural scan only: the text has already
 * been parsed and validated by jansson, values are not decoded again. */
static size_t locate(const char *s, gc_json *j, size_t i)
{
    i = skip_ws(s, i);
    j->src_start = i;
    if (j->type == GC_JSON_OBJ || j->type == GC_JSON_ARR) {
        i++; /* past '{' or '[' */
        for (size_t m = 0; m < j->count; m++) {
            i = skip_ws(s, i);
            if (s[i] == ',')
                i = skip_ws(s, i + 1);
            if (j->type == GC_JSON_OBJ) {
                i = skip_ws(s, skip_string(s, i)); /* the key */
                i++;                               /* past ':' */
            }
            i = locate(s, j->items[m], i);
        }
        i = skip_ws(s, i);
        j->src_end = s[i] ? i + 1 : i; /* past '}' or ']' */
    } else {
        j->src_end = skip_value(s, i);
    }
    return j->src_end;
}

gc_json *gc_json_parse(const char *text, char *err, size_t errlen)
{
    json_error_t e;
    /* Duplicate keys would make "the member called k" ambiguous: refused.
     * Every number is read as a double (JSON_DECODE_INT_AS_REAL), as the tree
     * promises, so a 64-bit count past 2^63 is not an error. */
    json_t *v =
        json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &e);
    if (!v) {
        snprintf(err, errlen, "line %d col %d: %s", e.line, e.column, e.text);
        return NULL;
    }
    int too_deep = 0;
    gc_json *j = convert(v, 0, &too_deep);
    json_decref(v);
    if (!j) {
        snprintf(err, errlen, "%s",
                 too_deep ? "nesting deeper than 64 levels" : "out of memory reading JSON");
        return NULL;
    }
    locate(text, j, 0);
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

/* A number, or a boolean as 0/1 (the readers take flags this way). */
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
