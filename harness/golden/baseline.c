/* SPDX-License-Identifier: MIT */
/* Metric baseline I/O (libyaml to read, plain text to write). */
#include "gc_baseline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "gc_digest.h"
#include "gc_fsutil.h"
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
    gc_rep_metric *m = realloc(b->metrics, (b->count + 1) * sizeof *m);
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
        int level = atoi(lk);
        for (yaml_node_pair_t *m = lm->data.mapping.pairs.start; m < lm->data.mapping.pairs.top;
             m++) {
            yaml_node_t *vn = yaml_document_get_node(doc, m->value);
            const char *name = scalar(doc, yaml_document_get_node(doc, m->key));
            const char *val = scalar(doc, vn);
            unsigned long long rows = 0;
            char hex[GC_DIGEST_HEX + 2] = "";
            int used = 0;
            if (!name || !val || strlen(name) >= sizeof(*arr)[0].field ||
                sscanf(val, "%llu %33[0-9a-f]%n", &rows, hex, &used) != 2 || val[used] ||
                strlen(hex) != GC_DIGEST_HEX) {
                snprintf(err, errlen, "%s:%zu: %s entries are '<name>: <rows> <%d hex digits>'",
                         path, vn ? vn->start_mark.line + 1 : 0, section, GC_DIGEST_HEX);
                return -1;
            }
            gc_rep_digest *d = realloc(*arr, (*count + 1) * sizeof *d);
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
        int level = strcmp(lk, "corpus") == 0 ? GC_LEVEL_CORPUS : atoi(lk);
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
