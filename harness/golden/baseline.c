/* SPDX-License-Identifier: MIT */
/* Metric baseline I/O (libyaml to read, plain text to write). */
#include "gc_baseline.h"
#include "gc_grow.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "gc_digest.h"
#include "gc_fsutil.h"
#include "gc_num.h"
#include "gc_strbuf.h"

void gc_baseline_free(gc_baseline *b)
{
    for (size_t i = 0; i < b->count; i++)
        free(b->metrics[i].name);
    free(b->metrics);
    free(b->digests);
    free(b->table_digests);
    memset(b, 0, sizeof *b);
}

static const char *scalar(yaml_document_t *d, yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int add(gc_baseline *b, int level, const char *name, double v, int is_null)
{
    gc_rep_metric *m = gc_grow_one(b->metrics, b->count, sizeof *m);
    if (!m)
        return -1;
    b->metrics = m;
    m = &b->metrics[b->count++];
    m->level = level;
    m->name = strdup(name);
    m->value = v;
    m->is_null = is_null;
    return m->name ? 0 : -1;
}

/* digests: {"<level>": {"<table>.<column>": "<rows> <32 hex digits>"}}, and
 * table_digests: the same with "<table>" keys, into (*arr, *count) */
static int load_digests(yaml_document_t *doc, yaml_node_t *digests, gc_rep_digest **arr,
                        size_t *count, const char *section, const char *path, char *err,
                        size_t errlen)
{
    if (digests->type != YAML_MAPPING_NODE) {
        snprintf(err, errlen, "%s:%zu: '%s' must map levels to columns", path,
                 digests->start_mark.line + 1, section);
        return -1;
    }
    for (yaml_node_pair_t *kv = digests->data.mapping.pairs.start;
         kv < digests->data.mapping.pairs.top; kv++) {
        const char *lk = scalar(doc, yaml_document_get_node(doc, kv->key));
        yaml_node_t *lm = yaml_document_get_node(doc, kv->value);
        if (!lk || !lm || lm->type != YAML_MAPPING_NODE) {
            snprintf(err, errlen, "%s:%zu: each %s level must map names to digests", path,
                     lm ? lm->start_mark.line + 1 : 0, section);
            return -1;
        }
        int level = gc_atoi_clamp(lk);
        for (yaml_node_pair_t *m = lm->data.mapping.pairs.start; m < lm->data.mapping.pairs.top;
             m++) {
            yaml_node_t *vn = yaml_document_get_node(doc, m->value);
            const char *name = scalar(doc, yaml_document_get_node(doc, m->key));
            const char *val = scalar(doc, vn);
            uint64_t rows = 0;
            char hex[GC_DIGEST_HEX + 1] = "";
            if (!name || !val || strlen(name) >= sizeof(*arr)[0].field ||
                !gc_digest_parse(val, &rows, hex)) {
                snprintf(err, errlen, "%s:%zu: %s entries are '<name>: <rows> <%d hex digits>'",
                         path, vn ? vn->start_mark.line + 1 : 0, section, GC_DIGEST_HEX);
                return -1;
            }
            gc_rep_digest *d = gc_grow_one(*arr, *count, sizeof *d);
            if (!d) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            *arr = d;
            d = &d[(*count)++];
            memset(d, 0, sizeof *d);
            d->level = level;
            snprintf(d->field, sizeof d->field, "%s", name);
            d->rows = rows;
            memcpy(d->digest, hex, GC_DIGEST_HEX + 1);
        }
    }
    return 0;
}

int gc_baseline_load_tree(const char *path, gc_baseline *b, int *found, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    *found = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot open baseline %s: %s", path, strerror(errno));
        return -1;
    }
    yaml_parser_t p;
    yaml_document_t doc;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    int rc = -1;
    if (!yaml_parser_load(&p, &doc)) {
        snprintf(err, errlen, "%s:%zu:%zu: %s", path, p.problem_mark.line + 1,
                 p.problem_mark.column + 1, p.problem ? p.problem : "YAML error");
        yaml_parser_delete(&p);
        fclose(f);
        return -1;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        snprintf(err, errlen, "%s: expected a mapping with format, corpus and levels", path);
        goto done;
    }
    yaml_node_t *levels = NULL, *digests = NULL, *tables = NULL;
    for (yaml_node_pair_t *kv = root->data.mapping.pairs.start; kv < root->data.mapping.pairs.top;
         kv++) {
        const char *k = scalar(&doc, yaml_document_get_node(&doc, kv->key));
        yaml_node_t *v = yaml_document_get_node(&doc, kv->value);
        if (!k)
            continue;
        if (strcmp(k, "corpus") == 0 && scalar(&doc, v))
            snprintf(b->corpus_key, sizeof b->corpus_key, "%s", scalar(&doc, v));
        else if (strcmp(k, "corpus_id") == 0 && scalar(&doc, v))
            snprintf(b->corpus_id, sizeof b->corpus_id, "%s", scalar(&doc, v));
        else if (strcmp(k, "levels") == 0)
            levels = v;
        else if (strcmp(k, "digests") == 0)
            digests = v;
        else if (strcmp(k, "table_digests") == 0)
            tables = v;
    }
    if (!levels || levels->type != YAML_MAPPING_NODE) {
        snprintf(err, errlen, "%s: missing 'levels' mapping", path);
        goto done;
    }
    for (yaml_node_pair_t *kv = levels->data.mapping.pairs.start;
         kv < levels->data.mapping.pairs.top; kv++) {
        const char *lk = scalar(&doc, yaml_document_get_node(&doc, kv->key));
        yaml_node_t *lm = yaml_document_get_node(&doc, kv->value);
        if (!lk || !lm || lm->type != YAML_MAPPING_NODE) {
            snprintf(err, errlen, "%s:%zu: each level must map metric names to numbers", path,
                     lm ? lm->start_mark.line + 1 : 0);
            goto done;
        }
        int level = strcmp(lk, "corpus") == 0 ? GC_LEVEL_CORPUS : gc_atoi_clamp(lk);
        for (yaml_node_pair_t *m = lm->data.mapping.pairs.start; m < lm->data.mapping.pairs.top;
             m++) {
            yaml_node_t *kn = yaml_document_get_node(&doc, m->key);
            yaml_node_t *vn = yaml_document_get_node(&doc, m->value);
            const char *name = scalar(&doc, kn), *val = scalar(&doc, vn);
            if (!name || !val) {
                snprintf(err, errlen, "%s:%zu: metric entries are 'name: number'", path,
                         kn ? kn->start_mark.line + 1 : 0);
                goto done;
            }
            int is_null = strcmp(val, "null") == 0 || strcmp(val, "~") == 0;
            char *end = NULL;
            double v = is_null ? 0 : strtod(val, &end);
            if (!is_null && (end == val || *end)) {
                snprintf(err, errlen, "%s:%zu:%zu: '%s' is not a number", path,
                         vn->start_mark.line + 1, vn->start_mark.column + 1, val);
                goto done;
            }
            if (add(b, level, name, v, is_null) != 0) {
                snprintf(err, errlen, "out of memory");
                goto done;
            }
        }
    }
    if (digests && load_digests(&doc, digests, &b->digests, &b->digest_count, "digests", path, err,
                                errlen) != 0)
        goto done;
    if (tables && load_digests(&doc, tables, &b->table_digests, &b->table_digest_count,
                               "table_digests", path, err, errlen) != 0)
        goto done;
    *found = 1;
    rc = 0;
done:
    yaml_document_delete(&doc);
    yaml_parser_delete(&p);
    fclose(f);
    if (rc != 0)
        gc_baseline_free(b);
    return rc;
}

/* ---- the streaming reader ----
 * The baseline is ~2 MB of YAML; libyaml's document API builds a tree of ~20 MB of nodes
 * for it (the node stack grows by copying, every page of it faulted in) before a single
 * value is read. The sweep reads it on its critical path, so gc_baseline_load reads the
 * event stream instead and keeps only what it stores. It reads the layout every baseline
 * has (gc_baseline_format's): anything else -- an alias, a repeated section, a key or
 * value that is not a scalar where one is expected, a value the tree reader would reject or
 * read differently, a YAML error -- makes it give up, and the file is read again by
 * gc_baseline_load_tree, whose result (or error message) is then the answer. So both
 * readers always agree; tests/test_digest.c checks it on the goldens and on odd files. */

typedef struct ystream {
    yaml_parser_t p;
    yaml_event_t e; /* the current event (owned when have) */
    int have;
} ystream;

/* Next event into s->e; 0 on a YAML error or an alias (which only the tree reader resolves) */
static int ynext(ystream *s)
{
    if (s->have)
        yaml_event_delete(&s->e);
    s->have = 0;
    if (!yaml_parser_parse(&s->p, &s->e))
        return 0;
    s->have = 1;
    return s->e.type != YAML_ALIAS_EVENT;
}

static const char *yscalar(const ystream *s)
{
    return s->e.type == YAML_SCALAR_EVENT ? (const char *)s->e.data.scalar.value : NULL;
}

/* Skip the node that starts with the current event (a scalar, or a whole collection). */
static int yskip(ystream *s)
{
    int depth = 0;
    for (;;) {
        switch (s->e.type) {
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            depth++;
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth--;
            break;
        case YAML_SCALAR_EVENT:
            break;
        default:
            return 0;
        }
        if (depth == 0)
            return 1;
        if (!ynext(s))
            return 0;
    }
}

/* A digests section (the current event is its value) into (*arr, *count) */
static int stream_digests(ystream *s, gc_rep_digest **arr, size_t *count)
{
    if (s->e.type != YAML_MAPPING_START_EVENT)
        return 0;
    for (;;) {
        if (!ynext(s))
            return 0;
        if (s->e.type == YAML_MAPPING_END_EVENT)
            return 1;
        const char *lk = yscalar(s);
        if (!lk)
            return 0;
        const int level = gc_atoi_clamp(lk);
        if (!ynext(s) || s->e.type != YAML_MAPPING_START_EVENT)
            return 0;
        for (;;) {
            if (!ynext(s))
                return 0;
            if (s->e.type == YAML_MAPPING_END_EVENT)
                break;
            const char *name = yscalar(s);
            if (!name || strlen(name) >= sizeof(*arr)[0].field)
                return 0;
            gc_rep_digest d;
            memset(&d, 0, sizeof d);
            d.level = level;
            memcpy(d.field, name, strlen(name) + 1);
            if (!ynext(s) || !yscalar(s) || !gc_digest_parse(yscalar(s), &d.rows, d.digest))
                return 0;
            gc_rep_digest *grown = gc_grow_one(*arr, *count, sizeof d);
            if (!grown)
                return -1;
            *arr = grown;
            (*arr)[(*count)++] = d;
        }
    }
}

/* The levels section (the current event is its value) into b->metrics */
static int stream_levels(ystream *s, gc_baseline *b)
{
    if (s->e.type != YAML_MAPPING_START_EVENT)
        return 0;
    for (;;) {
        if (!ynext(s))
            return 0;
        if (s->e.type == YAML_MAPPING_END_EVENT)
            return 1;
        const char *lk = yscalar(s);
        if (!lk)
            return 0;
        const int level = strcmp(lk, "corpus") == 0 ? GC_LEVEL_CORPUS : gc_atoi_clamp(lk);
        if (!ynext(s) || s->e.type != YAML_MAPPING_START_EVENT)
            return 0;
        for (;;) {
            if (!ynext(s))
                return 0;
            if (s->e.type == YAML_MAPPING_END_EVENT)
                break;
            if (!yscalar(s))
                return 0;
            char *name = strdup(yscalar(s));
            if (!name)
                return -1;
            if (!ynext(s) || !yscalar(s)) {
                free(name);
                return 0;
            }
            const char *val = yscalar(s);
            const int is_null = strcmp(val, "null") == 0 || strcmp(val, "~") == 0;
            char *end = NULL;
            const double v = is_null ? 0 : strtod(val, &end);
            if (!is_null && (end == val || *end)) {
                free(name);
                return 0;
            }
            gc_rep_metric *grown = gc_grow_one(b->metrics, b->count, sizeof *grown);
            if (!grown) {
                free(name);
                return -1;
            }
            b->metrics = grown;
            gc_rep_metric *m = &b->metrics[b->count++];
            m->level = level;
            m->name = name;
            m->value = v;
            m->is_null = is_null;
        }
    }
}

/* 1 read, 0 not read (the tree reader decides), -1 out of memory */
static int load_stream(FILE *f, gc_baseline *b)
{
    ystream s;
    memset(&s, 0, sizeof s);
    if (!yaml_parser_initialize(&s.p))
        return -1;
    yaml_parser_set_input_file(&s.p, f);
    int rc = 0, seen_levels = 0, seen_digests = 0, seen_tables = 0;
    if (!ynext(&s) || s.e.type != YAML_STREAM_START_EVENT || !ynext(&s) ||
        s.e.type != YAML_DOCUMENT_START_EVENT || !ynext(&s) || s.e.type != YAML_MAPPING_START_EVENT)
        goto done;
    for (;;) {
        if (!ynext(&s))
            goto done;
        if (s.e.type == YAML_MAPPING_END_EVENT)
            break;
        const char *k0 = yscalar(&s);
        if (!k0)
            goto done;
        char key[16];
        snprintf(key, sizeof key, "%s", strlen(k0) < sizeof key ? k0 : "");
        if (!ynext(&s))
            goto done;
        if (strcmp(key, "corpus") == 0 || strcmp(key, "corpus_id") == 0) {
            if (!yscalar(&s))
                goto done;
            if (key[6] == '\0')
                snprintf(b->corpus_key, sizeof b->corpus_key, "%s", yscalar(&s));
            else
                snprintf(b->corpus_id, sizeof b->corpus_id, "%s", yscalar(&s));
        } else if (strcmp(key, "levels") == 0) {
            if (seen_levels++ || (rc = stream_levels(&s, b)) != 1)
                goto done;
        } else if (strcmp(key, "digests") == 0) {
            if (seen_digests++ || (rc = stream_digests(&s, &b->digests, &b->digest_count)) != 1)
                goto done;
        } else if (strcmp(key, "table_digests") == 0) {
            if (seen_tables++ ||
                (rc = stream_digests(&s, &b->table_digests, &b->table_digest_count)) != 1)
                goto done;
        } else if (!yskip(&s)) {
            goto done;
        }
        rc = 0;
    }
    /* the tree reader reads one document: so does this */
    if (seen_levels && ynext(&s) && s.e.type == YAML_DOCUMENT_END_EVENT)
        rc = 1;
done:
    if (s.have)
        yaml_event_delete(&s.e);
    yaml_parser_delete(&s.p);
    return rc == 1 ? 1 : rc < 0 ? -1 : 0;
}

/* ---- the line reader ----
 * Even streamed, libyaml costs ~9,000 instructions a line of the baseline (the retail
 * baseline's 41,000 lines: 363 M instructions of the sweep's ~17 G, on the baseline thread,
 * which shares the two cores with the levels). gc_baseline_format writes a small subset of
 * YAML: every line is blank, a comment, or `key:` / `key: value` at indent 0, 2 or 4, whose
 * scalars are plain runs of a few characters (the level keys "<digits>"), so a line's text
 * is the very scalars libyaml would give. This reader takes exactly that subset, line by
 * line, and gives up on anything else: another byte (a tab, a CR, a quote elsewhere, a
 * byte past 0x7E, a flow or block indicator), another shape (a key without its mapping, an
 * indent other than 0/2/4 where it belongs, a document marker, a continued scalar), another
 * top-level key, a section seen twice, or a value the stream reader would give up on. The
 * stream reader then reads the file as before (and the tree reader after it), so the three
 * readers always agree; tests/test_digest.c checks it on the goldens, on odd files and on
 * thousands of random edits of a baseline. */

#define LINES_CHUNK   ((size_t)64 << 10) /* read buffer; a longer line gives up */
#define LINES_KEY_MAX 1000               /* libyaml's simple keys end at 1024 characters */

static int l_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The length of the plain scalar that starts at p (0: none), of the kind that means its own
 * text wherever this reader takes one (key or value): a letter, digit or '_' first, then
 * letters, digits and "_.-"; a value may also hold '+' (an exponent), start with '-', '+'
 * or '.' (a number), or be "~" alone (null). The caller checks what follows it. */
static size_t l_plain(const char *p, const char *end, int value)
{
    const char *q = p;
    if (q == end)
        return 0;
    if (value && *q == '~')
        return 1;
    if (!(l_alnum(*q) || *q == '_' || (value && (*q == '-' || *q == '+' || *q == '.'))))
        return 0;
    for (q++; q < end; q++)
        if (!(l_alnum(*q) || *q == '_' || *q == '.' || *q == '-' || (value && *q == '+')))
            break;
    return (size_t)(q - p);
}

typedef struct lines_state {
    gc_baseline *b;
    int sec;   /* 0 none, 1 levels, 2 digests, 3 table_digests */
    int open;  /* 0: a section key waits for its first level; 1: a level key for its first
                  entry; 2: inside a level's entries; 3: between top-level keys */
    int level; /* the current level key's */
    int seen[4];
} lines_state;

/* One line (no '\n'): 1 taken, 0 give up, -1 out of memory */
static int lines_one(lines_state *st, const char *p, const char *end)
{
    const char *q = p;
    while (q < end && *q == ' ')
        q++;
    const size_t indent = (size_t)(q - p);
    for (const char *c = q; c < end; c++)
        if (*c < 0x20 || *c > 0x7e)
            return 0;
    if (q == end || *q == '#') /* blank, or a comment: no structure */
        return 1;
    if (indent == 0) {
        if (st->open == 0 || st->open == 1) /* a section or level key left empty (null) */
            return 0;
        const size_t k = l_plain(q, end, 0);
        if (k == 0 || k > LINES_KEY_MAX || q + k == end || q[k] != ':')
            return 0;
        const char *key = q, *v = q + k + 1;
        if (v == end) { /* a section */
            int sec = k == 6 && memcmp(key, "levels", 6) == 0            ? 1
                      : k == 7 && memcmp(key, "digests", 7) == 0         ? 2
                      : k == 13 && memcmp(key, "table_digests", 13) == 0 ? 3
                                                                         : 0;
            if (!sec || st->seen[sec]++)
                return 0;
            st->sec = sec;
            st->open = 0;
            return 1;
        }
        if (*v != ' ' || v + 1 == end || l_plain(v + 1, end, 1) != (size_t)(end - v - 1) ||
            v[1] == '-' || v[1] == '+' || v[1] == '.' || v[1] == '~')
            return 0;
        v++;
        char *dst = NULL;
        size_t cap = 0;
        if (k == 6 && memcmp(key, "corpus", 6) == 0) {
            dst = st->b->corpus_key;
            cap = sizeof st->b->corpus_key;
        } else if (k == 9 && memcmp(key, "corpus_id", 9) == 0) {
            dst = st->b->corpus_id;
            cap = sizeof st->b->corpus_id;
        } else if (!(k == 6 && memcmp(key, "format", 6) == 0)) {
            return 0;
        }
        if (dst) /* snprintf's truncation, as the stream reader's */
            snprintf(dst, cap, "%.*s", (int)(end - v), v);
        st->sec = 0;
        st->open = 3;
        return 1;
    }
    if (indent == 2) {
        if (st->sec == 0 || st->open == 1 || st->open == 3)
            return 0;
        if (end - q == 7 && memcmp(q, "corpus:", 7) == 0 && st->sec == 1) {
            st->level = GC_LEVEL_CORPUS;
        } else {
            const char *d = q + 1;
            int level = 0;
            if (*q != '"')
                return 0;
            while (d < end && *d >= '0' && *d <= '9' && d - q <= 9)
                level = level * 10 + (*d++ - '0');
            if (d == q + 1 || end - d != 2 || d[0] != '"' || d[1] != ':')
                return 0;
            st->level = level;
        }
        st->open = 1;
        return 1;
    }
    if (indent != 4 || (st->open != 1 && st->open != 2))
        return 0;
    const size_t k = l_plain(q, end, 0);
    if (k == 0 || k > LINES_KEY_MAX || end - q < (ptrdiff_t)k + 3 || q[k] != ':' || q[k + 1] != ' ')
        return 0;
    const char *v = q + k + 2;
    st->open = 2;
    if (st->sec == 1) {
        if (l_plain(v, end, 1) != (size_t)(end - v))
            return 0;
        char val[64];
        if ((size_t)(end - v) >= sizeof val)
            return 0;
        memcpy(val, v, (size_t)(end - v));
        val[end - v] = '\0';
        const int is_null = strcmp(val, "null") == 0 || strcmp(val, "~") == 0;
        char *stop = NULL;
        const double x = is_null ? 0 : strtod(val, &stop);
        if (!is_null && (stop == val || *stop))
            return 0;
        char *name = malloc(k + 1);
        if (!name)
            return -1;
        memcpy(name, q, k);
        name[k] = '\0';
        gc_rep_metric *grown = gc_grow_one(st->b->metrics, st->b->count, sizeof *grown);
        if (!grown) {
            free(name);
            return -1;
        }
        st->b->metrics = grown;
        gc_rep_metric *m = &grown[st->b->count++];
        m->level = st->level;
        m->name = name;
        m->value = x;
        m->is_null = is_null;
        return 1;
    }
    gc_rep_digest d;
    char val[GC_DIGEST_HEX + 24];
    if (k >= sizeof d.field || (size_t)(end - v) >= sizeof val)
        return 0;
    memcpy(val, v, (size_t)(end - v));
    val[end - v] = '\0';
    memset(&d, 0, sizeof d);
    d.level = st->level;
    memcpy(d.field, q, k);
    if (!gc_digest_parse(val, &d.rows, d.digest))
        return 0;
    gc_rep_digest **arr = st->sec == 2 ? &st->b->digests : &st->b->table_digests;
    size_t *count = st->sec == 2 ? &st->b->digest_count : &st->b->table_digest_count;
    gc_rep_digest *grown = gc_grow_one(*arr, *count, sizeof d);
    if (!grown)
        return -1;
    *arr = grown;
    grown[(*count)++] = d;
    return 1;
}

/* 1 read, 0 not read (the stream reader decides; f is then anywhere), -1 out of memory */
static int load_lines(FILE *f, gc_baseline *b)
{
    char *buf = malloc(LINES_CHUNK);
    if (!buf)
        return -1;
    lines_state st;
    memset(&st, 0, sizeof st);
    st.b = b;
    st.open = 3;
    size_t have = 0;
    int rc = 1, eof = 0;
    while (rc == 1 && !eof) {
        const size_t got = fread(buf + have, 1, LINES_CHUNK - have, f);
        if (got < LINES_CHUNK - have) {
            if (ferror(f)) {
                rc = 0;
                break;
            }
            eof = 1;
        }
        have += got;
        const char *p = buf, *end = buf + have;
        for (;;) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl)
                break;
            if ((rc = lines_one(&st, p, nl)) != 1)
                break;
            p = nl + 1;
        }
        if (rc != 1)
            break;
        have = (size_t)(end - p);
        if (have == LINES_CHUNK) { /* a line longer than the buffer */
            rc = 0;
            break;
        }
        memmove(buf, p, have);
        if (eof && have) /* the last line, without its newline */
            rc = lines_one(&st, buf, buf + have);
    }
    free(buf);
    if (rc == 1 && (st.open == 0 || st.open == 1 || !st.seen[1]))
        rc = 0; /* a key left without its mapping (null), or no levels */
    return rc;
}

int gc_baseline_load_lines(const char *path, gc_baseline *b)
{
    memset(b, 0, sizeof *b);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    const int rc = load_lines(f, b);
    fclose(f);
    if (rc != 1)
        gc_baseline_free(b);
    return rc;
}

int gc_baseline_peek(const char *path, char *corpus_key, size_t keylen, char *corpus_id,
                     size_t idlen)
{
    corpus_key[0] = corpus_id[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : -1;
    ystream s;
    memset(&s, 0, sizeof s);
    int rc = -1;
    if (!yaml_parser_initialize(&s.p)) {
        fclose(f);
        return -1;
    }
    yaml_parser_set_input_file(&s.p, f);
    if (!ynext(&s) || s.e.type != YAML_STREAM_START_EVENT || !ynext(&s) ||
        s.e.type != YAML_DOCUMENT_START_EVENT || !ynext(&s) || s.e.type != YAML_MAPPING_START_EVENT)
        goto done;
    /* format, corpus, corpus_id, in any order, then the first other key ends the header */
    for (;;) {
        if (!ynext(&s) || !yscalar(&s))
            goto done;
        char key[16];
        snprintf(key, sizeof key, "%s", strlen(yscalar(&s)) < sizeof key ? yscalar(&s) : "");
        if (strcmp(key, "format") != 0 && strcmp(key, "corpus") != 0 &&
            strcmp(key, "corpus_id") != 0)
            break;
        if (!ynext(&s) || !yscalar(&s))
            goto done;
        if (strcmp(key, "corpus") == 0)
            snprintf(corpus_key, keylen, "%s", yscalar(&s));
        else if (strcmp(key, "corpus_id") == 0)
            snprintf(corpus_id, idlen, "%s", yscalar(&s));
    }
    rc = 1;
done:
    if (s.have)
        yaml_event_delete(&s.e);
    yaml_parser_delete(&s.p);
    fclose(f);
    return rc;
}

int gc_baseline_load(const char *path, gc_baseline *b, int *found, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    *found = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot open baseline %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = load_lines(f, b);
    if (rc == 0) {
        gc_baseline_free(b);
        rc = fseek(f, 0, SEEK_SET) == 0 ? load_stream(f, b) : 0;
    }
    fclose(f);
    if (rc == 1) {
        *found = 1;
        return 0;
    }
    gc_baseline_free(b);
    if (rc < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return gc_baseline_load_tree(path, b, found, err, errlen);
}

void gc_baseline_compare(const gc_baseline *b, gc_report *rep)
{
    gc_report_compare_metrics(rep, b->metrics, b->count);
    gc_digest_compare(rep, b->digests, b->digest_count);
}

static int level_ran(const gc_report *rep, int level)
{
    for (size_t s = 0; s < rep->selected_count; s++)
        if (rep->selected[s] == level)
            return 1;
    return 0;
}

/* A digests section: rep's (mine) for the levels it ran, keep's (theirs) for
 * the others. */
static void format_digests(const gc_report *rep, const gc_rep_digest *mine, size_t nmine,
                           const gc_rep_digest *theirs, size_t ntheirs, const char *head,
                           gc_strbuf *sb)
{
    size_t n = nmine + ntheirs;
    if (n == 0)
        return;
    const gc_rep_digest **all = calloc(n, sizeof *all);
    if (!all) {
        sb->failed = 1;
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < nmine; i++)
        all[k++] = &mine[i];
    for (size_t i = 0; i < ntheirs; i++)
        if (!level_ran(rep, theirs[i].level))
            all[k++] = &theirs[i];
    /* insertion into (level, field) order: both inputs are sorted already, so
     * this is a merge in practice */
    for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0; j--) {
            const gc_rep_digest *x = all[j - 1], *y = all[j];
            int c = x->level != y->level ? (x->level > y->level) - (x->level < y->level)
                                         : strcmp(x->field, y->field);
            if (c <= 0)
                break;
            all[j - 1] = y;
            all[j] = x;
        }
    gc_sb_puts(sb, head);
    int cur = -2;
    for (size_t i = 0; i < k; i++) {
        if (all[i]->level != cur) {
            cur = all[i]->level;
            gc_sb_printf(sb, "  \"%d\":\n", cur);
        }
        gc_sb_printf(sb, "    %s: %llu %s\n", all[i]->field, (unsigned long long)all[i]->rows,
                     all[i]->digest);
    }
    free(all);
}

static int cmp_metric(const void *a, const void *b)
{
    const gc_rep_metric *x = a, *y = b;
    int kx = x->level == GC_LEVEL_CORPUS ? 1 << 30 : x->level;
    int ky = y->level == GC_LEVEL_CORPUS ? 1 << 30 : y->level;
    if (kx != ky)
        return (kx > ky) - (kx < ky);
    return strcmp(x->name, y->name);
}

int gc_baseline_format(const gc_report *rep, const gc_baseline *keep, gc_strbuf *sb, char *err,
                       size_t errlen)
{
    /* rep's metrics for the levels it ran, plus keep's other levels */
    size_t n = rep->metric_count + (keep ? keep->count : 0);
    gc_rep_metric *all = calloc(n ? n : 1, sizeof *all);
    if (!all) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t k = 0;
    /* corpus figures of a --levels subset describe the subset: the blessed
     * corpus figures stay */
    int complete = gc_report_complete(rep);
    for (size_t i = 0; i < rep->metric_count; i++)
        if (complete || rep->metrics[i].level != GC_LEVEL_CORPUS)
            all[k++] = rep->metrics[i];
    for (size_t i = 0; keep && i < keep->count; i++) {
        int ran = keep->metrics[i].level == GC_LEVEL_CORPUS && complete;
        for (size_t s = 0; s < rep->selected_count && !ran; s++)
            ran = rep->selected[s] == keep->metrics[i].level;
        if (!ran)
            all[k++] = keep->metrics[i];
    }
    qsort(all, k, sizeof *all, cmp_metric);
    gc_sb_puts(sb, "# gcverify metric baseline: the blessed per-level figures of one corpus.\n"
                   "# Written by `gcverify bless --reason \"...\"` (see golden/LEDGER.md);\n"
                   "# review changes to it like code. Do not edit by hand.\n");
    gc_sb_printf(sb, "format: 2\ncorpus: %s\n", rep->corpus_key);
    if (rep->corpus_id[0])
        gc_sb_printf(sb, "corpus_id: %s\n", rep->corpus_id);
    gc_sb_puts(sb, k ? "levels:\n" : "levels: {}\n"); /* a mapping even when empty */
    int cur = 0x7fffffff;
    for (size_t i = 0; i < k; i++) {
        if (all[i].level != cur) {
            cur = all[i].level;
            if (cur == GC_LEVEL_CORPUS)
                gc_sb_puts(sb, "  corpus:\n");
            else
                gc_sb_printf(sb, "  \"%d\":\n", cur);
        }
        gc_sb_printf(sb, "    %s: ", all[i].name);
        if (all[i].is_null)
            gc_sb_puts(sb, "null");
        else
            gc_sb_num(sb, all[i].value);
        gc_sb_puts(sb, "\n");
    }
    free(all);
    format_digests(rep, rep->digests, rep->digest_count, keep ? keep->digests : NULL,
                   keep ? keep->digest_count : 0,
                   "# Per level x table x column: rows and the column digest (docs/golden.md).\n"
                   "digests:\n",
                   sb);
    format_digests(rep, rep->table_digests, rep->table_digest_count,
                   keep ? keep->table_digests : NULL, keep ? keep->table_digest_count : 0,
                   "# Per level x table: rows and the table digest, which lets a sweep take the\n"
                   "# column digests above without hashing the columns (docs/golden.md).\n"
                   "table_digests:\n",
                   sb);
    if (sb->failed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int gc_baseline_write(const char *path, const gc_report *rep, const gc_baseline *keep, char *err,
                      size_t errlen)
{
    gc_strbuf sb;
    gc_sb_init(&sb);
    if (gc_baseline_format(rep, keep, &sb, err, errlen) != 0) {
        gc_sb_free(&sb);
        return -1;
    }
    int rc = gc_write_file_atomic(path, sb.s, sb.len, err, errlen);
    gc_sb_free(&sb);
    return rc;
}
