/* SPDX-License-Identifier: MIT */
/* The YAML loader: reads invariant files with libyaml's document API, validates their
 * structure and keys, compiles every expression, checks ids across files and writes every
 * diagnostic as "FILE:LINE:COL: message" (docs/invariants.md §1, §4). */
#define _POSIX_C_SOURCE 200809L /* opendir/readdir under -std=c11 */

#include "inv_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Limits of an invariant file (docs/invariants.md §1). */
#define GC_INV_FILE_MAX       (1u << 20)
#define GC_INV_YAML_DEPTH_MAX 32

typedef struct loader {
    gc_inv_set *s;
    gc_inv_errors errs;
    gc_compile_env env;
    size_t cap_inv, cap_met;
    /* the file being loaded */
    const char *file;
    int file_no;
    const char *raw;
    size_t rawlen;
    yaml_document_t *doc;
} loader;

/* ---- positions ---- */

/* libyaml marks count characters; raw is UTF-8 (anything else only loses precision). */
static size_t char_to_byte(const char *raw, size_t len, size_t chars)
{
    size_t i = 0, c = 0;
    if (len >= 3 && memcmp(raw, "\xef\xbb\xbf", 3) == 0)
        i = 3; /* libyaml does not count the byte order mark */
    while (i < len && c < chars) {
        i++;
        while (i < len && ((unsigned char)raw[i] & 0xC0) == 0x80)
            i++;
        c++;
    }
    return i;
}

typedef struct spos {
    const loader *L;
    const yaml_node_t *n;
} spos;

/* Map a byte offset inside a scalar's value to its line/column in the file, following the
 * raw text of plain and quoted scalars (including folded line breaks). */
static void scalar_pos(const void *vctx, uint32_t ofs, int *line, int *col)
{
    const spos *sp = vctx;
    const yaml_node_t *n = sp->n;
    const char *raw = sp->L->raw;
    size_t rawlen = sp->L->rawlen;
    *line = (int)n->start_mark.line + 1;
    *col = (int)n->start_mark.column + 1;
    yaml_scalar_style_t st = n->data.scalar.style;
    if (st == YAML_LITERAL_SCALAR_STYLE || st == YAML_FOLDED_SCALAR_STYLE)
        return;
    const char *v = (const char *)n->data.scalar.value;
    size_t vlen = n->data.scalar.length;
    size_t ri = char_to_byte(raw, rawlen, n->start_mark.index);
    size_t l = n->start_mark.line, c = n->start_mark.column;
    if (st == YAML_SINGLE_QUOTED_SCALAR_STYLE || st == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
        ri++;
        c++;
    }
    size_t vi = 0;
    while (vi < ofs && vi < vlen) {
        if (ri >= rawlen)
            return;
        char rv = raw[ri], vv = v[vi];
        if (rv == vv && rv != '\n') {
            if (((unsigned char)rv & 0xC0) != 0x80)
                c++;
            ri++;
            vi++;
            continue;
        }
        if ((vv == ' ' || vv == '\n') && (rv == '\n' || rv == '\r' || rv == ' ' || rv == '\t')) {
            /* a folded line break: the raw whitespace run (with its newlines) is one char */
            while (ri < rawlen &&
                   (raw[ri] == ' ' || raw[ri] == '\t' || raw[ri] == '\r' || raw[ri] == '\n')) {
                if (raw[ri] == '\n') {
                    l++;
                    c = 0;
                } else
                    c++;
                ri++;
            }
            vi++;
            continue;
        }
        break; /* an escape or something unexpected: stop here, approximately right */
    }
    *line = (int)l + 1;
    *col = (int)c + 1;
}

static void lerr_at(loader *L, const yaml_node_t *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void lerr_at(loader *L, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gc_inv_err_add(&L->errs, L->file_no, L->file, (int)n->start_mark.line + 1,
                   (int)n->start_mark.column + 1, "%s", msg);
}

/* ---- node helpers ---- */

static yaml_node_t *node(loader *L, yaml_node_item_t id)
{
    return yaml_document_get_node(L->doc, id);
}

static int is_null_scalar(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *v = (const char *)n->data.scalar.value;
    size_t l = n->data.scalar.length;
    return l == 0 || (l == 1 && v[0] == '~') || (l == 4 && memcmp(v, "null", 4) == 0);
}

/* A scalar's text (NUL-free) or NULL with an error. */
static const char *scalar_text(loader *L, const yaml_node_t *n, const char *key, size_t *len)
{
    if (n->type != YAML_SCALAR_NODE) {
        lerr_at(L, n, "'%s' must be a single value, not a %s", key,
                n->type == YAML_MAPPING_NODE ? "mapping" : "sequence");
        return NULL;
    }
    const char *v = (const char *)n->data.scalar.value;
    size_t l = n->data.scalar.length;
    if (memchr(v, '\0', l)) {
        lerr_at(L, n, "'%s' contains a NUL character", key);
        return NULL;
    }
    if (l == 0 && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        lerr_at(L, n, "'%s' has no value", key);
        return NULL;
    }
    *len = l;
    return v;
}

#define NAME_MAX_CHARS 128

static int valid_name(const char *s, size_t n)
{
    if (n == 0 || n > NAME_MAX_CHARS)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
            return 0;
    }
    return 1;
}

/* Look a key up in the candidates; report an unknown key with a suggestion. */
static int key_index(loader *L, const yaml_node_t *k, const char *const *keys, size_t nkeys,
                     const char *what)
{
    if (k->type != YAML_SCALAR_NODE) {
        lerr_at(L, k, "a key in %s must be a plain name", what);
        return -1;
    }
    const char *v = (const char *)k->data.scalar.value;
    for (size_t i = 0; i < nkeys; i++)
        if (strlen(keys[i]) == k->data.scalar.length &&
            memcmp(keys[i], v, k->data.scalar.length) == 0)
            return (int)i;
    char name[64];
    snprintf(name, sizeof name, "%.*s",
             (int)(k->data.scalar.length > 60 ? 60 : k->data.scalar.length), v);
    const char *s = gc_inv_suggest(name, keys, nkeys);
    if (s)
        lerr_at(L, k, "unknown key '%s' in %s; did you mean '%s'?", name, what, s);
    else
        lerr_at(L, k, "unknown key '%s' in %s", name, what);
    return -1;
}

/* Collect a mapping's values by key; duplicates and unknown keys are errors. */
static int collect_keys(loader *L, const yaml_node_t *m, const char *const *keys, size_t nkeys,
                        const char *what, yaml_node_t **vals, yaml_node_t **knodes)
{
    int ok = 1;
    for (size_t i = 0; i < nkeys; i++)
        vals[i] = knodes[i] = NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(L, p->key), *v = node(L, p->value);
        if (!k || !v)
            continue;
        int i = key_index(L, k, keys, nkeys, what);
        if (i < 0) {
            ok = 0;
            continue;
        }
        if (vals[i]) {
            lerr_at(L, k, "duplicate key '%s' in %s (first at line %d)", keys[i], what,
                    (int)knodes[i]->start_mark.line + 1);
            ok = 0;
            continue;
        }
        vals[i] = v;
        knodes[i] = k;
    }
    return ok;
}

static gc_unit *new_unit(loader *L, int metric)
{
    gc_unit **v = metric ? &L->s->mets : &L->s->invs;
    size_t *n = metric ? &L->s->nmet : &L->s->ninv;
    size_t *cap = metric ? &L->cap_met : &L->cap_inv;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        gc_unit *nv = realloc(*v, nc * sizeof *nv);
        if (!nv) {
            L->errs.oom = 1;
            return NULL;
        }
        *v = nv;
        *cap = nc;
    }
    gc_unit *u = &(*v)[(*n)++];
    memset(u, 0, sizeof *u);
    u->table = -1;
    u->file_no = L->file_no;
    u->info.file = L->file;
    return u;
}

static int pick(loader *L, const yaml_node_t *n, const char *key, const char *const *names,
                size_t count, int *out)
{
    size_t len;
    const char *v = scalar_text(L, n, key, &len);
    if (!v)
        return 0;
    for (size_t i = 0; i < count; i++)
        if (strlen(names[i]) == len && memcmp(names[i], v, len) == 0) {
            *out = (int)i;
            return 1;
        }
    char val[64];
    snprintf(val, sizeof val, "%.*s", (int)(len > 60 ? 60 : len), v);
    const char *s = gc_inv_suggest(val, names, count);
    char list[128];
    size_t o = 0;
    list[0] = '\0';
    for (size_t i = 0; i < count && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s",
                              i == 0           ? ""
                              : i + 1 == count ? " or "
                                               : ", ",
                              names[i]);
    if (s)
        lerr_at(L, n, "bad %s '%s': expected %s; did you mean '%s'?", key, val, list, s);
    else
        lerr_at(L, n, "bad %s '%s': expected %s", key, val, list);
    return 0;
}

static int compile_expr(loader *L, gc_unit *u, gc_expr_role role, const yaml_node_t *n,
                        const char *key, gc_prog *out, gc_ty *ty, int *uses_row, const char **text)
{
    size_t len;
    const char *v = scalar_text(L, n, key, &len);
    if (!v)
        return -1;
    *text = gc_arena_strndup(&L->s->arena, v, len);
    if (!*text)
        return -1;
    spos sp = {L, n};
    gc_pos_map map = {scalar_pos, &sp, L->file_no, L->file};
    return gc_inv_compile(&L->env, u, role, *text, len, &map, out, ty, uses_row);
}

static void load_invariant(loader *L, const yaml_node_t *m)
{
    if (m->type != YAML_MAPPING_NODE) {
        lerr_at(L, m, "an invariant must be a mapping (id:, expect:, why:, ...)");
        return;
    }
    static const char *const keys[] = {"id",  "table",    "where", "expect",
                                       "why", "severity", "tier",  "scope"};
    enum { K_ID, K_TABLE, K_WHERE, K_EXPECT, K_WHY, K_SEV, K_TIER, K_SCOPE };
    yaml_node_t *val[8], *kn[8];
    collect_keys(L, m, keys, GC_COUNTOF(keys), "invariant", val, kn);
    gc_unit *u = new_unit(L, 0);
    if (!u)
        return;
    gc_arena *a = &L->s->arena;
    u->info.line = (int)m->start_mark.line + 1;
    u->id_line = u->info.line;
    u->id_col = (int)m->start_mark.column + 1;
    int ok = 1;
    size_t len;
    char idbuf[80] = "";
    if (!val[K_ID]) {
        lerr_at(L, m, "invariant without 'id'");
        ok = 0;
    } else {
        const char *v = scalar_text(L, val[K_ID], "id", &len);
        if (!v)
            ok = 0;
        else if (len > NAME_MAX_CHARS) {
            lerr_at(L, val[K_ID], "id '%.40s...' is %zu characters long; the limit is %d", v, len,
                    NAME_MAX_CHARS);
            ok = 0;
        } else if (!valid_name(v, len)) {
            lerr_at(L, val[K_ID], "bad id '%.*s': use lower-case letters, digits, '_' and '.'",
                    (int)(len > 60 ? 60 : len), v);
            ok = 0;
        } else {
            u->info.id = gc_arena_strndup(a, v, len);
            snprintf(idbuf, sizeof idbuf, "'%.*s' ", (int)(len > 60 ? 60 : len), v);
            u->id_line = (int)val[K_ID]->start_mark.line + 1;
            u->id_col = (int)val[K_ID]->start_mark.column + 1;
        }
    }
    if (!val[K_EXPECT]) {
        lerr_at(L, m, "invariant %shas no 'expect'", idbuf);
        ok = 0;
    }
    if (!val[K_WHY]) {
        lerr_at(L, m, "invariant %shas no 'why' (one sentence: the bug it catches)", idbuf);
        ok = 0;
    } else {
        const char *v = scalar_text(L, val[K_WHY], "why", &len);
        if (v)
            u->info.why = gc_arena_strndup(a, v, len);
        else
            ok = 0;
    }
    static const char *const sev[] = {"error", "warn", "info"};
    static const char *const tier[] = {"gate", "nightly"};
    static const char *const scope[] = {"level", "corpus"};
    int x = 0;
    u->info.severity = GC_SEV_ERROR;
    u->info.tier = GC_TIER_GATE;
    u->info.scope = GC_SCOPE_LEVEL;
    if (val[K_SEV]) {
        if (pick(L, val[K_SEV], "severity", sev, 3, &x))
            u->info.severity = (gc_inv_severity)x;
        else
            ok = 0;
    }
    if (val[K_TIER]) {
        if (pick(L, val[K_TIER], "tier", tier, 2, &x))
            u->info.tier = (gc_inv_tier)x;
        else
            ok = 0;
    }
    if (val[K_SCOPE]) {
        if (pick(L, val[K_SCOPE], "scope", scope, 2, &x))
            u->info.scope = (gc_inv_scope)x;
        else
            ok = 0;
    }
    int table_ok = 1;
    if (val[K_TABLE]) {
        const char *v = scalar_text(L, val[K_TABLE], "table", &len);
        table_ok = 0;
        if (v) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(len > 120 ? 120 : len), v);
            const char *cands[256];
            size_t nc = 0;
            for (size_t i = 0; i < L->s->ndesc; i++) {
                if (strcmp(L->s->descs[i]->name, name) == 0 && len < 120) {
                    u->table = (int)i;
                    u->info.table = L->s->descs[i]->name;
                    table_ok = 1;
                }
                if (nc < GC_COUNTOF(cands))
                    cands[nc++] = L->s->descs[i]->name;
            }
            if (!table_ok) {
                const char *s = gc_inv_suggest(name, cands, nc);
                if (s)
                    lerr_at(L, val[K_TABLE], "unknown table '%s'; did you mean '%s'?", name, s);
                else
                    lerr_at(L, val[K_TABLE], "unknown table '%s'", name);
            }
        }
        if (!table_ok)
            ok = 0;
    }
    /* Compile even after other errors (to report expression errors too), but not against
     * a table that does not exist: every name would be an error. */
    int w_row = 0, e_row = 0;
    gc_ty ty;
    if (table_ok && val[K_WHERE]) {
        if (compile_expr(L, u, GC_EXPR_WHERE, val[K_WHERE], "where", &u->where, &ty, &w_row,
                         &u->info.where) != 0)
            ok = 0;
    }
    if (table_ok && val[K_EXPECT]) {
        if (compile_expr(L, u, GC_EXPR_EXPECT, val[K_EXPECT], "expect", &u->expect, &u->expect_ty,
                         &e_row, &u->info.expect) != 0)
            ok = 0;
    }
    if (!ok || !u->info.id) {
        /* keep the unit only for duplicate detection when it has an id */
        if (!u->info.id)
            L->s->ninv--;
        return;
    }
    u->once = u->table >= 0 && !w_row && !e_row;
    if (u->table >= 0) {
        const gc_table_desc *d = L->s->descs[u->table];
        for (size_t i = 0; i < d->column_count; i++)
            if (strcmp(d->columns[i].name, "file_ofs") == 0 && d->columns[i].type != GC_T_STR &&
                d->columns[i].type != GC_T_F32 && d->columns[i].type != GC_T_F64) {
                u->has_file_ofs = 1;
                u->file_ofs_offset = d->columns[i].offset;
                u->file_ofs_ctype = (uint8_t)d->columns[i].type;
            }
    }
    gc_inv_detect_fast(u);
}

static void load_metric(loader *L, const yaml_node_t *m)
{
    if (m->type != YAML_MAPPING_NODE) {
        lerr_at(L, m, "a metric is 'name: expression' or a mapping with name:, expr: and why:");
        return;
    }
    const yaml_node_t *name_n = NULL, *expr_n = NULL, *why_n = NULL;
    int long_form = 0;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(L, p->key);
        if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == 4 &&
            memcmp(k->data.scalar.value, "name", 4) == 0)
            long_form = 1;
    }
    if (long_form) {
        static const char *const keys[] = {"name", "expr", "why"};
        yaml_node_t *val[3], *kn[3];
        collect_keys(L, m, keys, 3, "metric", val, kn);
        name_n = val[0];
        expr_n = val[1];
        why_n = val[2];
        if (!expr_n) {
            lerr_at(L, m, "metric without 'expr'");
            return;
        }
    } else {
        size_t np = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
        if (np != 1) {
            lerr_at(L, m,
                    "a metric is 'name: expression' (one key) or a mapping with name: and expr:");
            return;
        }
        name_n = node(L, m->data.mapping.pairs.start->key);
        expr_n = node(L, m->data.mapping.pairs.start->value);
        if (!name_n || !expr_n)
            return;
    }
    if (!name_n) {
        lerr_at(L, m, "metric without 'name'");
        return;
    }
    size_t len;
    const char *nm = scalar_text(L, name_n, "name", &len);
    if (!nm)
        return;
    if (len > NAME_MAX_CHARS) {
        lerr_at(L, name_n, "metric name '%.40s...' is %zu characters long; the limit is %d", nm,
                len, NAME_MAX_CHARS);
        return;
    }
    if (!valid_name(nm, len)) {
        lerr_at(L, name_n, "bad metric name '%.*s': use lower-case letters, digits, '_' and '.'",
                (int)(len > 60 ? 60 : len), nm);
        return;
    }
    gc_unit *u = new_unit(L, 1);
    if (!u)
        return;
    gc_arena *a = &L->s->arena;
    u->info.id = gc_arena_strndup(a, nm, len);
    u->info.line = (int)m->start_mark.line + 1;
    u->id_line = (int)name_n->start_mark.line + 1;
    u->id_col = (int)name_n->start_mark.column + 1;
    u->info.why = "";
    if (why_n) {
        const char *w = scalar_text(L, why_n, "why", &len);
        if (w)
            u->info.why = gc_arena_strndup(a, w, len);
    }
    int uses_row;
    if (compile_expr(L, u, GC_EXPR_METRIC, expr_n, "expr", &u->expect, &u->expect_ty, &uses_row,
                     &u->info.expect) != 0) {
        /* keep it for duplicate detection; the set is discarded anyway */
    }
    gc_inv_assign_paths(u);
}

static void load_list(loader *L, const yaml_node_t *n, int metrics)
{
    if (is_null_scalar(n))
        return;
    if (n->type != YAML_SEQUENCE_NODE) {
        lerr_at(L, n, "'%s' must be a sequence of %s (each item starting with '- ')",
                metrics ? "metrics" : "invariants", metrics ? "metrics" : "invariants");
        return;
    }
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        yaml_node_t *x = node(L, *it);
        if (!x)
            continue;
        if (metrics)
            load_metric(L, x);
        else
            load_invariant(L, x);
    }
}

static void mark_to_pos(const loader *L, yaml_mark_t mk, int *line, int *col)
{
    *line = (int)mk.line + 1;
    *col = (int)mk.column + 1;
    (void)L;
}

static void yaml_error(loader *L, const yaml_parser_t *p)
{
    int line = 1, col = 1;
    if (p->error == YAML_READER_ERROR) {
        /* problem_offset is a byte offset: count lines up to it */
        size_t o = p->problem_offset < L->rawlen ? p->problem_offset : L->rawlen;
        for (size_t i = 0; i < o; i++) {
            if (L->raw[i] == '\n') {
                line++;
                col = 1;
            } else
                col++;
        }
    } else
        mark_to_pos(L, p->problem_mark, &line, &col);
    const char *prob = p->problem ? p->problem : "malformed YAML";
    if (p->context)
        gc_inv_err_add(&L->errs, L->file_no, L->file, line, col, "YAML syntax error: %s %s",
                       p->context, prob);
    else
        gc_inv_err_add(&L->errs, L->file_no, L->file, line, col, "YAML syntax error: %s", prob);
}

/* Walk the file's events once, counting nesting, before libyaml builds a
 * document: its scanner keeps one possible simple key per flow level and
 * re-checks them all for every token, so 100,000 nested '[' cost ~10^10
 * steps. Stopping at GC_INV_YAML_DEPTH_MAX keeps every file linear. 0, or
 * -1 with the error added (a syntax error is left to the real parse). */
static int check_depth(loader *L, const char *text, size_t len)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        L->errs.oom = 1;
        return -1;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int depth = 0, rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev))
            break; /* the document parse reports it, with its position */
        yaml_event_type_t t = ev.type;
        if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
            if (++depth > GC_INV_YAML_DEPTH_MAX) {
                gc_inv_err_add(&L->errs, L->file_no, L->file, (int)ev.start_mark.line + 1,
                               (int)ev.start_mark.column + 1,
                               "YAML nested more than %d levels deep (invariant files need 4)",
                               GC_INV_YAML_DEPTH_MAX);
                rc = -1;
            }
        } else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&ev);
        if (rc != 0 || t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&p);
    return rc;
}

static void load_text(loader *L, const char *file, int file_no, const char *text, size_t len)
{
    L->file = file;
    L->file_no = file_no;
    L->raw = text;
    L->rawlen = len;
    if (len > GC_INV_FILE_MAX) {
        gc_inv_err_add(&L->errs, file_no, file, 1, 1, "file is %zu bytes; the limit is %u MiB", len,
                       GC_INV_FILE_MAX >> 20);
        return;
    }
    if (check_depth(L, text, len) != 0)
        return;
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        L->errs.oom = 1;
        return;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    yaml_document_t doc;
    if (!yaml_parser_load(&p, &doc)) {
        yaml_error(L, &p);
        yaml_parser_delete(&p);
        return;
    }
    L->doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root) {
        if (root->type == YAML_SEQUENCE_NODE) {
            load_list(L, root, 0);
        } else if (root->type == YAML_MAPPING_NODE) {
            static const char *const keys[] = {"invariants", "metrics"};
            yaml_node_t *val[2], *kn[2];
            collect_keys(L, root, keys, 2, "the top level", val, kn);
            if (val[0])
                load_list(L, val[0], 0);
            if (val[1])
                load_list(L, val[1], 1);
        } else if (!is_null_scalar(root)) {
            lerr_at(L, root, "expected a mapping with 'invariants:' and/or 'metrics:'");
        }
        yaml_document_t doc2;
        if (yaml_parser_load(&p, &doc2)) {
            yaml_node_t *r2 = yaml_document_get_root_node(&doc2);
            if (r2)
                gc_inv_err_add(&L->errs, file_no, file, (int)r2->start_mark.line + 1,
                               (int)r2->start_mark.column + 1,
                               "only one YAML document per file (found a second one)");
            yaml_document_delete(&doc2);
        } else {
            yaml_error(L, &p);
        }
    }
    L->doc = NULL;
    yaml_document_delete(&doc);
    yaml_parser_delete(&p);
}

/* ---- set assembly ---- */

static int cmp_unit_id(const void *a, const void *b)
{
    const gc_unit *x = a, *y = b;
    int c = strcmp(x->info.id, y->info.id);
    if (c)
        return c;
    if (x->file_no != y->file_no)
        return x->file_no < y->file_no ? -1 : 1;
    if (x->id_line != y->id_line)
        return x->id_line < y->id_line ? -1 : 1;
    return (x->id_col > y->id_col) - (x->id_col < y->id_col);
}

static void check_dups(loader *L, gc_unit *v, size_t n, const char *what)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_unit_id);
    for (size_t i = 1; i < n; i++) {
        size_t j = i;
        while (j > 0 && strcmp(v[j - 1].info.id, v[i].info.id) == 0)
            j--;
        if (j == i)
            continue;
        const gc_unit *first = &v[j];
        gc_inv_err_add(&L->errs, v[i].file_no, v[i].info.file, v[i].id_line, v[i].id_col,
                       "duplicate %s '%s' (first at %s:%d:%d)", what, v[i].info.id,
                       first->info.file, first->id_line, first->id_col);
    }
}

static int cmp_err(const void *a, const void *b)
{
    const gc_inv_error *x = a, *y = b;
    if (x->file_no != y->file_no)
        return x->file_no < y->file_no ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Whole lines only: when the buffer cannot hold every diagnostic, the ones that fit are
 * followed by a "(N more errors not shown)" note if that fits too. */
static void write_errors(loader *L, char *err, size_t errlen)
{
    if (!err || errlen == 0)
        return;
    err[0] = '\0';
    size_t o = 0, shown = 0;
    if (L->errs.n > 1)
        qsort(L->errs.v, L->errs.n, sizeof *L->errs.v, cmp_err);
    const size_t reserve = 48; /* room for the note */
    for (; shown < L->errs.n; shown++) {
        const gc_inv_error *x = &L->errs.v[shown];
        char line[512];
        int w = snprintf(line, sizeof line, "%s:%d:%d: %s\n", x->file, x->line, x->col, x->msg);
        if (w < 0)
            break;
        size_t lw = (size_t)w < sizeof line ? (size_t)w : sizeof line - 1;
        if ((size_t)w >= sizeof line)
            line[lw - 1] = '\n'; /* a path too long for the line buffer: still one line */
        int last = shown + 1 == L->errs.n && !L->errs.dropped;
        if (o + lw + 1 + (last ? 0 : reserve) > errlen)
            break;
        memcpy(err + o, line, lw);
        o += lw;
        err[o] = '\0';
    }
    size_t more = L->errs.n - shown + L->errs.dropped;
    if (more && o + 1 < errlen) {
        int w = snprintf(err + o, errlen - o, "(%zu more errors not shown)\n", more);
        if (w > 0 && o + (size_t)w < errlen)
            o += (size_t)w;
        else
            err[o] = '\0'; /* only whole lines */
    }
    if ((L->errs.oom || L->s->arena.failed) && o + 1 < errlen) {
        int w = snprintf(err + o, errlen - o, "out of memory while loading invariants\n");
        if (!(w > 0 && o + (size_t)w < errlen))
            err[o] = '\0';
    }
}

static gc_inv_set *set_new(const gc_table_desc *const *descs, size_t ndesc)
{
    gc_inv_set *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->descs = ndesc ? calloc(ndesc, sizeof *s->descs) : NULL;
    if (ndesc && !s->descs) {
        free(s);
        return NULL;
    }
    for (size_t i = 0; i < ndesc; i++)
        s->descs[i] = descs[i];
    s->ndesc = ndesc;
    return s;
}

typedef struct src_file {
    const char *name;
    const char *text;
    size_t len;
} src_file;

static gc_inv_set *load_all(const src_file *files, size_t n, const gc_table_desc *const *descs,
                            size_t ndesc, const gc_inv_error *pre, size_t npre, char *err,
                            size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    for (size_t i = 0; i < ndesc; i++)
        if (!descs[i] || !descs[i]->name) {
            if (err && errlen)
                snprintf(err, errlen, "(engine): table descriptor %zu is NULL\n", i);
            return NULL;
        }
    loader L;
    memset(&L, 0, sizeof L);
    L.s = set_new(descs, ndesc);
    if (!L.s) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory while loading invariants\n");
        return NULL;
    }
    L.env.arena = &L.s->arena;
    L.env.descs = (const gc_table_desc *const *)L.s->descs;
    L.env.ndesc = ndesc;
    L.env.errs = &L.errs;
    for (size_t i = 0; i < npre; i++)
        gc_inv_err_add(&L.errs, pre[i].file_no, pre[i].file, pre[i].line, pre[i].col, "%s",
                       pre[i].msg);
    for (size_t i = 0; i < n; i++) {
        const char *fname = gc_arena_strdup(&L.s->arena, files[i].name);
        if (!fname)
            break;
        load_text(&L, fname, (int)i, files[i].text, files[i].len);
    }
    check_dups(&L, L.s->invs, L.s->ninv, "id");
    check_dups(&L, L.s->mets, L.s->nmet, "metric");
    if (L.errs.n || L.errs.oom || L.errs.dropped || L.s->arena.failed) {
        write_errors(&L, err, errlen);
        free(L.errs.v);
        gc_inv_free(L.s);
        return NULL;
    }
    free(L.errs.v);
    gc_inv_assign_memo(L.s);
    return L.s;
}

gc_inv_set *gc_inv_load_strings(const char *const *names, const char *const *yamls, size_t n,
                                const gc_table_desc *const *descs, size_t ndesc, char *err,
                                size_t errlen)
{
    if ((n && (!names || !yamls)) || (ndesc && !descs))
        return NULL;
    src_file *f = calloc(n ? n : 1, sizeof *f);
    if (!f)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        f[i].name = names[i] ? names[i] : "(string)";
        f[i].text = yamls[i] ? yamls[i] : "";
        f[i].len = strlen(f[i].text);
    }
    gc_inv_set *s = load_all(f, n, descs, ndesc, NULL, 0, err, errlen);
    free(f);
    return s;
}

gc_inv_set *gc_inv_load_string(const char *name, const char *yaml,
                               const gc_table_desc *const *descs, size_t ndesc, char *err,
                               size_t errlen)
{
    return gc_inv_load_strings(&name, &yaml, 1, descs, ndesc, err, errlen);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *read_file(const char *path, size_t *len, int *err_no, int *too_big)
{
    *too_big = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        *err_no = errno;
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= GC_INV_FILE_MAX) {
                *too_big = 1;
                free(buf);
                buf = NULL;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) {
                *err_no = errno;
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    fclose(f);
    if (buf)
        *len = n;
    else if (!*too_big && !*err_no)
        *err_no = ENOMEM;
    return buf;
}

gc_inv_set *gc_inv_load_dir(const char *dir, const gc_table_desc *const *descs, size_t ndesc,
                            char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!dir || (ndesc && !descs))
        return NULL;
    DIR *d = opendir(dir);
    if (!d) {
        if (err && errlen)
            snprintf(err, errlen, "%s:1:1: cannot open the invariants directory: %s\n", dir,
                     strerror(errno));
        return NULL;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int oom = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        /* *.yaml and *.yml alike: a rule in a .yml file must never be
         * skipped silently */
        int yaml = l > 5 && strcmp(de->d_name + l - 5, ".yaml") == 0;
        int yml = l > 4 && strcmp(de->d_name + l - 4, ".yml") == 0;
        if (de->d_name[0] == '.' || !(yaml || yml))
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **nn = realloc(names, nc * sizeof *nn);
            if (!nn) {
                oom = 1;
                break;
            }
            names = nn;
            cap = nc;
        }
        size_t dl = strlen(dir);
        int slash = dl > 0 && dir[dl - 1] == '/';
        names[n] = malloc(dl + l + 2);
        if (!names[n]) {
            oom = 1;
            break;
        }
        snprintf(names[n], dl + l + 2, "%s%s%s", dir, slash ? "" : "/", de->d_name);
        n++;
    }
    closedir(d);
    gc_inv_set *s = NULL;
    src_file *files = oom ? NULL : calloc(n ? n : 1, sizeof *files);
    gc_inv_error *pre = oom ? NULL : calloc(n ? n : 1, sizeof *pre);
    size_t npre = 0, nf = 0;
    if (files && pre) {
        if (n > 1)
            qsort(names, n, sizeof *names, cmp_str);
        for (size_t i = 0; i < n; i++) {
            size_t len = 0;
            int e = 0, big = 0;
            char *text = read_file(names[i], &len, &e, &big);
            if (!text) {
                gc_inv_error *x = &pre[npre++];
                x->file = names[i];
                x->file_no = (int)i;
                x->line = x->col = 1;
                snprintf(x->msg, sizeof x->msg, "%s",
                         big ? "file too large (the limit is 1 MiB)" : strerror(e));
                continue;
            }
            files[nf].name = names[i];
            files[nf].text = text;
            files[nf].len = len;
            nf++;
        }
        s = load_all(files, nf, descs, ndesc, pre, npre, err, errlen);
        /* a run that checks nothing must not pass */
        if (s && s->ninv == 0) {
            if (err && errlen)
                snprintf(err, errlen,
                         "%s:1:1: no invariants found (%zu files *.yaml or *.yml); a run that "
                         "checks nothing cannot pass\n",
                         dir, n);
            gc_inv_free(s);
            s = NULL;
        }
    } else if (err && errlen) {
        snprintf(err, errlen, "out of memory while loading invariants\n");
    }
    for (size_t i = 0; files && i < nf; i++)
        free((char *)files[i].text);
    free(files);
    free(pre);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return s;
}

void gc_inv_free(gc_inv_set *s)
{
    if (!s)
        return;
    gc_arena_free(&s->arena);
    free(s->invs);
    free(s->mets);
    free(s->descs);
    free(s);
}

size_t gc_inv_count(const gc_inv_set *s)
{
    return s ? s->ninv : 0;
}

const gc_inv_info *gc_inv_get(const gc_inv_set *s, size_t i)
{
    return s && i < s->ninv ? &s->invs[i].info : NULL;
}

size_t gc_inv_find(const gc_inv_set *s, const char *id)
{
    if (!s || !id)
        return (size_t)-1;
    size_t lo = 0, hi = s->ninv;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->invs[mid].info.id, id);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (size_t)-1;
}

size_t gc_inv_metric_count(const gc_inv_set *s)
{
    return s ? s->nmet : 0;
}

const char *gc_inv_metric_name(const gc_inv_set *s, size_t i)
{
    return s && i < s->nmet ? s->mets[i].info.id : NULL;
}

const char *gc_inv_metric_why(const gc_inv_set *s, size_t i)
{
    return s && i < s->nmet ? s->mets[i].info.why : NULL;
}

const char *gc_inv_metric_expr(const gc_inv_set *s, size_t i)
{
    return s && i < s->nmet ? s->mets[i].info.expect : NULL;
}
