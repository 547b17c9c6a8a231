/* SPDX-License-Identifier: MIT */
/* Expression lexer and recursive-descent parser: text -> AST (docs/invariants.md §3).
 * Names are not resolved here; the compiler does that against the table descriptors. */
#include "inv_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    TK_EOF,
    TK_INT,
    TK_FLT,
    TK_STR,
    TK_NAME,
    TK_AND,
    TK_OR,
    TK_NOT,
    TK_TRUE,
    TK_FALSE,
    TK_NULL,
    TK_LP,
    TK_RP,
    TK_COMMA,
    TK_DOT,
    TK_EQ,
    TK_NE,
    TK_LT,
    TK_LE,
    TK_GT,
    TK_GE,
    TK_BOR,
    TK_BAND,
    TK_SHL,
    TK_SHR,
    TK_PLUS,
    TK_MINUS,
    TK_STAR,
    TK_SLASH,
    TK_DSLASH,
    TK_PERCENT,
    TK_ERROR,
} tk_kind;

typedef struct token {
    tk_kind kind;
    uint32_t pos, end;
    int64_t ival;
    double fval;
    char *str; /* names and strings, arena-owned */
    size_t slen;
} token;

/* Nesting limit: keeps the recursion (and the VM stack) bounded on hostile input. */
#define PARSE_DEPTH_MAX 48
/* Size limit: chains (a + a + ...) are parsed by loops, not recursion, but
 * each term deepens the left-leaning tree the compiler walks; capping the
 * nodes bounds that walk (and the cost of a hostile 1 MB expression). */
#define PARSE_NODES_MAX GC_INV_EXPR_NODES_MAX

typedef struct parser {
    gc_arena *a;
    const char *s;
    size_t len, i;
    token t; /* current token */
    int depth;
    size_t nodes;
    int failed;
    uint32_t err_pos;
    char *err;
    size_t errlen;
} parser;

static void perr(parser *p, uint32_t pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void perr(parser *p, uint32_t pos, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    p->err_pos = pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->errlen, fmt, ap);
    va_end(ap);
}

static int is_name0(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void lex_number(parser *p, token *t)
{
    const char *s = p->s;
    size_t i = p->i, n = p->len;
    if (s[i] == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        size_t j = i + 2;
        uint64_t v = 0;
        int digits = 0, over = 0;
        while (j < n && hexval((unsigned char)s[j]) >= 0) {
            if (v >> 60)
                over = 1;
            v = v << 4 | (uint64_t)hexval((unsigned char)s[j]);
            j++;
            digits++;
        }
        if (!digits || (j < n && (is_name0((unsigned char)s[j]) || is_digit(s[j])))) {
            perr(p, (uint32_t)i, "malformed hex literal");
            t->kind = TK_ERROR;
            return;
        }
        if (over) {
            perr(p, (uint32_t)i, "hex literal does not fit in 64 bits");
            t->kind = TK_ERROR;
            return;
        }
        t->kind = TK_INT;
        t->ival = (int64_t)v; /* two's-complement pattern (documented) */
        p->i = j;
        return;
    }
    size_t j = i;
    int is_float = 0;
    while (j < n && is_digit(s[j]))
        j++;
    if (j < n && s[j] == '.') {
        is_float = 1;
        j++;
        while (j < n && is_digit(s[j]))
            j++;
    }
    if (j < n && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        if (k < n && is_digit(s[k])) {
            is_float = 1;
            j = k;
            while (j < n && is_digit(s[j]))
                j++;
        }
    }
    if (j < n && (is_name0((unsigned char)s[j]) || s[j] == '.')) {
        perr(p, (uint32_t)i, "malformed number");
        t->kind = TK_ERROR;
        return;
    }
    char buf[64];
    if (j - i >= sizeof buf) {
        perr(p, (uint32_t)i, "number literal too long");
        t->kind = TK_ERROR;
        return;
    }
    memcpy(buf, s + i, j - i);
    buf[j - i] = '\0';
    if (is_float) {
        t->kind = TK_FLT;
        t->fval = strtod(buf, NULL);
    } else {
        uint64_t v = 0;
        for (size_t k = 0; buf[k]; k++) {
            uint64_t d = (uint64_t)(buf[k] - '0');
            if (v > (UINT64_C(9223372036854775807) - d) / 10) {
                perr(p, (uint32_t)i, "integer literal does not fit in 64 bits");
                t->kind = TK_ERROR;
                return;
            }
            v = v * 10 + d;
        }
        t->kind = TK_INT;
        t->ival = (int64_t)v;
    }
    p->i = j;
}

static void lex_string(parser *p, token *t)
{
    const char *s = p->s;
    char q = s[p->i];
    size_t j = p->i + 1;
    char *out = gc_arena_alloc(p->a, p->len - p->i + 1);
    if (!out) {
        perr(p, (uint32_t)p->i, "out of memory");
        t->kind = TK_ERROR;
        return;
    }
    size_t o = 0;
    for (;;) {
        if (j >= p->len) {
            perr(p, (uint32_t)p->i, "unterminated string");
            t->kind = TK_ERROR;
            return;
        }
        char c = s[j];
        if (c == q) {
            j++;
            break;
        }
        if (c == '\\' && j + 1 < p->len &&
            (s[j + 1] == '\\' || s[j + 1] == '"' || s[j + 1] == '\'')) {
            out[o++] = s[j + 1];
            j += 2;
            continue;
        }
        out[o++] = c;
        j++;
    }
    out[o] = '\0';
    t->kind = TK_STR;
    t->str = out;
    t->slen = o;
    p->i = j;
}

static void next(parser *p)
{
    token *t = &p->t;
    memset(t, 0, sizeof *t);
    const char *s = p->s;
    while (p->i < p->len &&
           (s[p->i] == ' ' || s[p->i] == '\t' || s[p->i] == '\n' || s[p->i] == '\r'))
        p->i++;
    t->pos = (uint32_t)p->i;
    if (p->failed) {
        t->kind = TK_ERROR;
        return;
    }
    if (p->i >= p->len) {
        t->kind = TK_EOF;
        t->end = t->pos;
        return;
    }
    unsigned char c = (unsigned char)s[p->i];
    unsigned char c1 = p->i + 1 < p->len ? (unsigned char)s[p->i + 1] : 0;
    size_t w = 1;
    if (is_name0(c)) {
        size_t j = p->i;
        while (j < p->len && (is_name0((unsigned char)s[j]) || is_digit(s[j])))
            j++;
        size_t n = j - p->i;
        static const struct {
            const char *w;
            tk_kind k;
        } kw[] = {{"and", TK_AND},   {"or", TK_OR},       {"not", TK_NOT},
                  {"true", TK_TRUE}, {"false", TK_FALSE}, {"null", TK_NULL}};
        t->kind = TK_NAME;
        for (size_t k = 0; k < GC_COUNTOF(kw); k++)
            if (strlen(kw[k].w) == n && memcmp(kw[k].w, s + p->i, n) == 0)
                t->kind = kw[k].k;
        if (t->kind == TK_NAME) {
            t->str = gc_arena_strndup(p->a, s + p->i, n);
            t->slen = n;
            if (!t->str) {
                perr(p, t->pos, "out of memory");
                t->kind = TK_ERROR;
                return;
            }
        }
        p->i = j;
        t->end = (uint32_t)j;
        return;
    }
    if (is_digit(c) || (c == '.' && is_digit(c1))) {
        lex_number(p, t);
        t->end = (uint32_t)p->i;
        return;
    }
    if (c == '"' || c == '\'') {
        lex_string(p, t);
        t->end = (uint32_t)p->i;
        return;
    }
    switch (c) {
    case '(':
        t->kind = TK_LP;
        break;
    case ')':
        t->kind = TK_RP;
        break;
    case ',':
        t->kind = TK_COMMA;
        break;
    case '.':
        t->kind = TK_DOT;
        break;
    case '+':
        t->kind = TK_PLUS;
        break;
    case '-':
        t->kind = TK_MINUS;
        break;
    case '*':
        t->kind = TK_STAR;
        break;
    case '%':
        t->kind = TK_PERCENT;
        break;
    case '/':
        t->kind = c1 == '/' ? TK_DSLASH : TK_SLASH;
        w = c1 == '/' ? 2 : 1;
        break;
    case '=':
        if (c1 == '=') {
            t->kind = TK_EQ;
            w = 2;
        } else {
            perr(p, t->pos, "'=' is not an operator; did you mean '=='?");
            t->kind = TK_ERROR;
            return;
        }
        break;
    case '!':
        if (c1 == '=') {
            t->kind = TK_NE;
            w = 2;
        } else {
            perr(p, t->pos, "'!' is not an operator; use 'not'");
            t->kind = TK_ERROR;
            return;
        }
        break;
    case '<':
        if (c1 == '=') {
            t->kind = TK_LE;
            w = 2;
        } else if (c1 == '<') {
            t->kind = TK_SHL;
            w = 2;
        } else {
            t->kind = TK_LT;
        }
        break;
    case '>':
        if (c1 == '=') {
            t->kind = TK_GE;
            w = 2;
        } else if (c1 == '>') {
            t->kind = TK_SHR;
            w = 2;
        } else {
            t->kind = TK_GT;
        }
        break;
    case '&':
        if (c1 == '&') {
            perr(p, t->pos, "'&&' is not an operator; use 'and'");
            t->kind = TK_ERROR;
            return;
        }
        t->kind = TK_BAND;
        break;
    case '|':
        if (c1 == '|') {
            perr(p, t->pos, "'||' is not an operator; use 'or'");
            t->kind = TK_ERROR;
            return;
        }
        t->kind = TK_BOR;
        break;
    default:
        if (c >= 0x21 && c < 0x7f)
            perr(p, t->pos, "unexpected character '%c'", c);
        else
            perr(p, t->pos, "unexpected byte 0x%02x", c);
        t->kind = TK_ERROR;
        return;
    }
    p->i += w;
    t->end = (uint32_t)p->i;
}

static gc_node *mk(parser *p, gc_node_kind k, uint32_t pos, uint32_t end)
{
    if (++p->nodes > PARSE_NODES_MAX) {
        perr(p, p->t.pos, "expression too long: more than %d terms and operators", PARSE_NODES_MAX);
        return NULL;
    }
    gc_node *n = gc_arena_alloc(p->a, sizeof *n);
    if (!n) {
        perr(p, pos, "out of memory");
        return NULL;
    }
    n->kind = k;
    n->pos = pos;
    n->end = end;
    return n;
}

static gc_node *mk2(parser *p, gc_node_kind k, gc_binop op, uint32_t op_pos, gc_node *l, gc_node *r)
{
    gc_node *n = mk(p, k, l->pos, r->end);
    if (!n)
        return NULL;
    n->op = op;
    n->op_pos = op_pos;
    n->kids = gc_arena_alloc(p->a, 2 * sizeof *n->kids);
    if (!n->kids) {
        perr(p, l->pos, "out of memory");
        return NULL;
    }
    n->kids[0] = l;
    n->kids[1] = r;
    n->nkids = 2;
    return n;
}

static const char *tk_text(const token *t)
{
    switch (t->kind) {
    case TK_EOF:
        return "end of expression";
    case TK_INT:
    case TK_FLT:
        return "a number";
    case TK_STR:
        return "a string";
    case TK_NAME:
        return "a name";
    case TK_RP:
        return "')'";
    case TK_LP:
        return "'('";
    case TK_COMMA:
        return "','";
    case TK_DOT:
        return "'.'";
    default:
        return "an operator";
    }
}

static gc_node *p_expr(parser *p);

static gc_node *p_primary(parser *p)
{
    token t = p->t;
    gc_node *n = NULL;
    switch (t.kind) {
    case TK_INT:
        n = mk(p, GC_N_INT, t.pos, t.end);
        if (n)
            n->ival = t.ival;
        next(p);
        return n;
    case TK_FLT:
        n = mk(p, GC_N_FLT, t.pos, t.end);
        if (n)
            n->fval = t.fval;
        next(p);
        return n;
    case TK_TRUE:
    case TK_FALSE:
        n = mk(p, GC_N_INT, t.pos, t.end);
        if (n) {
            n->ival = t.kind == TK_TRUE;
            n->is_bool_lit = 1;
        }
        next(p);
        return n;
    case TK_NULL:
        n = mk(p, GC_N_NULL, t.pos, t.end);
        next(p);
        return n;
    case TK_STR:
        n = mk(p, GC_N_STR, t.pos, t.end);
        if (n) {
            n->str = t.str;
            n->slen = t.slen;
        }
        next(p);
        return n;
    case TK_LP: {
        next(p);
        gc_node *e = p_expr(p);
        if (!e)
            return NULL;
        if (p->t.kind != TK_RP) {
            perr(p, p->t.pos, "expected ')', found %s", tk_text(&p->t));
            return NULL;
        }
        next(p);
        return e;
    }
    case TK_NAME: {
        next(p);
        if (p->t.kind == TK_LP) {
            n = mk(p, GC_N_CALL, t.pos, t.end);
            if (!n)
                return NULL;
            n->str = t.str;
            next(p);
            gc_node *args[64];
            uint32_t na = 0;
            if (p->t.kind != TK_RP) {
                for (;;) {
                    if (na == GC_COUNTOF(args)) {
                        perr(p, p->t.pos, "too many arguments");
                        return NULL;
                    }
                    gc_node *e = p_expr(p);
                    if (!e)
                        return NULL;
                    args[na++] = e;
                    if (p->t.kind == TK_COMMA) {
                        next(p);
                        continue;
                    }
                    break;
                }
            }
            if (p->t.kind != TK_RP) {
                perr(p, p->t.pos, "expected ',' or ')' in the arguments of %s(), found %s", t.str,
                     tk_text(&p->t));
                return NULL;
            }
            n->end = p->t.end;
            next(p);
            n->kids = gc_arena_alloc(p->a, (na ? na : 1) * sizeof *n->kids);
            if (!n->kids) {
                perr(p, t.pos, "out of memory");
                return NULL;
            }
            memcpy(n->kids, args, na * sizeof *args);
            n->nkids = na;
            return n;
        }
        const char *parts[32];
        uint32_t ppos[32];
        uint32_t np = 0, end = t.end;
        parts[np] = t.str;
        ppos[np++] = t.pos;
        while (p->t.kind == TK_DOT) {
            next(p);
            if (p->t.kind != TK_NAME) {
                perr(p, p->t.pos, "expected a name after '.', found %s", tk_text(&p->t));
                return NULL;
            }
            if (np == GC_COUNTOF(parts)) {
                perr(p, p->t.pos, "name has too many components");
                return NULL;
            }
            parts[np] = p->t.str;
            ppos[np++] = p->t.pos;
            end = p->t.end;
            next(p);
        }
        n = mk(p, GC_N_PATH, t.pos, end);
        if (!n)
            return NULL;
        n->parts = gc_arena_alloc(p->a, np * sizeof *n->parts);
        n->part_pos = gc_arena_alloc(p->a, np * sizeof *n->part_pos);
        if (!n->parts || !n->part_pos) {
            perr(p, t.pos, "out of memory");
            return NULL;
        }
        memcpy(n->parts, parts, np * sizeof *parts);
        memcpy(n->part_pos, ppos, np * sizeof *ppos);
        n->nparts = np;
        return n;
    }
    case TK_ERROR:
        return NULL;
    default:
        perr(p, t.pos, "expected a value, found %s", tk_text(&t));
        return NULL;
    }
}

static int enter(parser *p)
{
    if (++p->depth > PARSE_DEPTH_MAX) {
        perr(p, p->t.pos, "expression nested too deeply");
        return 0;
    }
    return 1;
}

static gc_node *p_unary(parser *p)
{
    if (p->t.kind == TK_MINUS) {
        uint32_t pos = p->t.pos;
        if (!enter(p))
            return NULL;
        next(p);
        gc_node *e = p_unary(p);
        p->depth--;
        if (!e)
            return NULL;
        /* Fold -literal so that -9223372036854775808 style bounds stay literals. */
        if (e->kind == GC_N_INT && !e->is_bool_lit) {
            e->ival = (int64_t)(0 - (uint64_t)e->ival);
            e->pos = pos;
            return e;
        }
        if (e->kind == GC_N_FLT) {
            e->fval = -e->fval;
            e->pos = pos;
            return e;
        }
        gc_node *n = mk(p, GC_N_NEG, pos, e->end);
        if (!n)
            return NULL;
        n->kids = gc_arena_alloc(p->a, sizeof *n->kids);
        if (!n->kids) {
            perr(p, pos, "out of memory");
            return NULL;
        }
        n->kids[0] = e;
        n->nkids = 1;
        return n;
    }
    return p_primary(p);
}

typedef struct opmap {
    tk_kind tk;
    gc_binop op;
} opmap;

static int find_op(const opmap *m, size_t n, tk_kind k, gc_binop *op)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].tk == k) {
            *op = m[i].op;
            return 1;
        }
    return 0;
}

static const opmap ops_mul[] = {
    {TK_STAR, GC_OP_MUL}, {TK_SLASH, GC_OP_DIV}, {TK_DSLASH, GC_OP_IDIV}, {TK_PERCENT, GC_OP_MOD}};
static const opmap ops_add[] = {{TK_PLUS, GC_OP_ADD}, {TK_MINUS, GC_OP_SUB}};
static const opmap ops_shift[] = {{TK_SHL, GC_OP_SHL}, {TK_SHR, GC_OP_SHR}};
static const opmap ops_band[] = {{TK_BAND, GC_OP_BAND}};
static const opmap ops_bor[] = {{TK_BOR, GC_OP_BOR}};
static const opmap ops_cmp[] = {{TK_EQ, GC_OP_EQ}, {TK_NE, GC_OP_NE}, {TK_LT, GC_OP_LT},
                                {TK_LE, GC_OP_LE}, {TK_GT, GC_OP_GT}, {TK_GE, GC_OP_GE}};

/* One left-associative binary level; level 0 is the tightest (mul). */
static gc_node *p_binary(parser *p, int level)
{
    static const struct {
        const opmap *m;
        size_t n;
    } levels[] = {{ops_mul, GC_COUNTOF(ops_mul)},
                  {ops_add, GC_COUNTOF(ops_add)},
                  {ops_shift, GC_COUNTOF(ops_shift)},
                  {ops_band, GC_COUNTOF(ops_band)},
                  {ops_bor, GC_COUNTOF(ops_bor)}};
    gc_node *l = level == 0 ? p_unary(p) : p_binary(p, level - 1);
    gc_binop op;
    while (l && find_op(levels[level].m, levels[level].n, p->t.kind, &op)) {
        uint32_t op_pos = p->t.pos;
        next(p);
        gc_node *r = level == 0 ? p_unary(p) : p_binary(p, level - 1);
        if (!r) {
            l = NULL;
            break;
        }
        l = mk2(p, GC_N_BIN, op, op_pos, l, r);
    }
    return l;
}

static gc_node *p_cmp(parser *p)
{
    gc_node *l = p_binary(p, 4);
    gc_binop op, op2;
    if (l && find_op(ops_cmp, GC_COUNTOF(ops_cmp), p->t.kind, &op)) {
        uint32_t op_pos = p->t.pos;
        next(p);
        gc_node *r = p_binary(p, 4);
        if (!r)
            return NULL;
        if (find_op(ops_cmp, GC_COUNTOF(ops_cmp), p->t.kind, &op2)) {
            perr(p, p->t.pos, "comparisons cannot be chained; write 'a < b and b < c'");
            return NULL;
        }
        return mk2(p, GC_N_BIN, op, op_pos, l, r);
    }
    return l;
}

static gc_node *p_not(parser *p)
{
    if (p->t.kind == TK_NOT) {
        uint32_t pos = p->t.pos;
        if (!enter(p))
            return NULL;
        next(p);
        gc_node *e = p_not(p);
        p->depth--;
        if (!e)
            return NULL;
        gc_node *n = mk(p, GC_N_NOT, pos, e->end);
        if (!n)
            return NULL;
        n->kids = gc_arena_alloc(p->a, sizeof *n->kids);
        if (!n->kids) {
            perr(p, pos, "out of memory");
            return NULL;
        }
        n->kids[0] = e;
        n->nkids = 1;
        return n;
    }
    return p_cmp(p);
}

static gc_node *p_and(parser *p)
{
    gc_node *l = p_not(p);
    while (l && p->t.kind == TK_AND) {
        uint32_t op_pos = p->t.pos;
        next(p);
        gc_node *r = p_not(p);
        if (!r)
            return NULL;
        l = mk2(p, GC_N_AND, GC_OP_EQ, op_pos, l, r);
    }
    return l;
}

static gc_node *p_or(parser *p)
{
    gc_node *l = p_and(p);
    while (l && p->t.kind == TK_OR) {
        uint32_t op_pos = p->t.pos;
        next(p);
        gc_node *r = p_and(p);
        if (!r)
            return NULL;
        l = mk2(p, GC_N_OR, GC_OP_EQ, op_pos, l, r);
    }
    return l;
}

static gc_node *p_expr(parser *p)
{
    if (!enter(p))
        return NULL;
    gc_node *e = p_or(p);
    p->depth--;
    return e;
}

gc_node *gc_inv_parse(gc_arena *a, const char *src, size_t len, uint32_t *err_pos, char *err,
                      size_t errlen)
{
    parser p = {.a = a, .s = src, .len = len, .err = err, .errlen = errlen};
    err[0] = '\0';
    next(&p);
    if (p.t.kind == TK_EOF) {
        *err_pos = 0;
        snprintf(err, errlen, "empty expression");
        return NULL;
    }
    gc_node *e = p_expr(&p);
    if (e && !p.failed && p.t.kind != TK_EOF) {
        if (p.t.kind == TK_NAME || p.t.kind == TK_INT || p.t.kind == TK_FLT || p.t.kind == TK_STR ||
            p.t.kind == TK_LP)
            perr(&p, p.t.pos, "expected an operator, found %s", tk_text(&p.t));
        else
            perr(&p, p.t.pos, "unexpected %s", tk_text(&p.t));
    }
    if (p.failed || !e) {
        if (!p.failed)
            perr(&p, p.t.pos, "syntax error");
        *err_pos = p.err_pos;
        return NULL;
    }
    return e;
}
