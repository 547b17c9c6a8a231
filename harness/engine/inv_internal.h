/* SPDX-License-Identifier: MIT */
/* Private to harness/engine/: the expression AST, the compiled bytecode, the compiled
 * invariant/metric units and the error sink shared by the loader, compiler and VM. */
#ifndef GC_INV_INTERNAL_H
#define GC_INV_INTERNAL_H

#include "gc_inv.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---- arena: everything a set owns lives in one, freed at once ---- */

typedef struct gc_arena_block gc_arena_block;
typedef struct gc_arena {
    gc_arena_block *head;
    int failed; /* sticky: an allocation failed */
} gc_arena;

void *gc_arena_alloc(gc_arena *a, size_t size);
char *gc_arena_strndup(gc_arena *a, const char *s, size_t n);
char *gc_arena_strdup(gc_arena *a, const char *s);
void gc_arena_free(gc_arena *a);

/* ---- error sink ---- */

typedef struct gc_inv_error {
    int file_no; /* order of the file in the load */
    const char *file;
    int line, col; /* 1-based */
    unsigned seq;  /* discovery order (ties) */
    char msg[240];
} gc_inv_error;

#define GC_INV_MAX_ERRORS 500

typedef struct gc_inv_errors {
    gc_inv_error *v;
    size_t n, cap;
    size_t dropped; /* past GC_INV_MAX_ERRORS */
    int oom;
} gc_inv_errors;

void gc_inv_err_add(gc_inv_errors *e, int file_no, const char *file, int line, int col,
                    const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Levenshtein distance, capped (returns cap+1 when larger). */
size_t gc_inv_edit_distance(const char *a, const char *b, size_t cap);

/* ---- expression AST ---- */

typedef enum {
    GC_N_INT,
    GC_N_FLT,
    GC_N_STR,
    GC_N_NULL,
    GC_N_PATH, /* a.b.c */
    GC_N_CALL, /* name(args) */
    GC_N_NEG,
    GC_N_NOT,
    GC_N_AND,
    GC_N_OR,
    GC_N_BIN, /* op in .op */
} gc_node_kind;

typedef enum {
    GC_OP_ADD,
    GC_OP_SUB,
    GC_OP_MUL,
    GC_OP_DIV,
    GC_OP_IDIV,
    GC_OP_MOD,
    GC_OP_SHL,
    GC_OP_SHR,
    GC_OP_BAND,
    GC_OP_BOR,
    GC_OP_EQ,
    GC_OP_NE,
    GC_OP_LT,
    GC_OP_LE,
    GC_OP_GT,
    GC_OP_GE,
} gc_binop;

typedef struct gc_node {
    gc_node_kind kind;
    gc_binop op;
    uint32_t pos, end; /* byte span in the expression source */
    uint32_t op_pos;   /* GC_N_BIN/AND/OR: the operator token */
    int64_t ival;
    double fval;
    int is_bool_lit; /* true/false */
    const char *str; /* string literal (len in slen) or call name */
    size_t slen;
    const char **parts; /* path components */
    uint32_t *part_pos;
    uint32_t nparts;
    struct gc_node **kids;
    uint32_t nkids;
} gc_node;

/* Parse src[0..len) into an AST in arena. On a syntax error returns NULL and sets
 * *err_pos / err (message). */
gc_node *gc_inv_parse(gc_arena *a, const char *src, size_t len, uint32_t *err_pos, char *err,
                      size_t errlen);

/* ---- bytecode ---- */

typedef enum {
    GC_I_END,
    GC_I_PUSH_I,
    GC_I_PUSH_F,
    GC_I_PUSH_S,
    GC_I_PUSH_NULL,
    GC_I_LOAD_CUR,  /* a=table, k.u=offset, ctype, flags, b=size */
    GC_I_LOAD_REG,  /* same, from the row register */
    GC_I_ROW_CUR,   /* reg = current row */
    GC_I_ROW_OUTER, /* reg = the invariant's row */
    GC_I_ROW_PREV,
    GC_I_ROW_NEXT,   /* a=table */
    GC_I_ROW_PARENT, /* a=from table, b=to table, k.u=parent column offset, ctype, flags */
    GC_I_REG_INDEX,  /* push the register's row index or null */
    GC_I_I2F,        /* a=depth from top (0 = top) */
    GC_I_ADD_I,
    GC_I_SUB_I,
    GC_I_MUL_I,
    GC_I_ADD_F,
    GC_I_SUB_F,
    GC_I_MUL_F,
    GC_I_DIV_F,
    GC_I_IDIV_I,
    GC_I_IDIV_F,
    GC_I_MOD_I,
    GC_I_MOD_F,
    GC_I_NEG_I,
    GC_I_NEG_F,
    GC_I_SHL,
    GC_I_SHR,
    GC_I_BAND,
    GC_I_BOR,
    GC_I_CMP_I, /* a = gc_binop (EQ..GE) */
    GC_I_CMP_F,
    GC_I_CMP_S, /* EQ / NE */
    GC_I_ISNULL,
    GC_I_NOTNULL,
    GC_I_TRUTH_I,
    GC_I_TRUTH_F,
    GC_I_NOT,
    GC_I_AND_SC, /* if top is false: jump to a */
    GC_I_OR_SC,  /* if top is true: jump to a */
    GC_I_AND,
    GC_I_OR,
    GC_I_ABS_I,
    GC_I_ABS_F,
    GC_I_MIN_I, /* a = argc */
    GC_I_MAX_I,
    GC_I_MIN_F,
    GC_I_MAX_F,
    GC_I_SQRT,
    GC_I_DIST,
    GC_I_BETWEEN_I,
    GC_I_BETWEEN_F,
    GC_I_COALESCE, /* a = argc */
    GC_I_AGG,      /* a = aggregate index in the unit */
    /* fused `col CMP col` / `col CMP literal` on integer columns of the current row:
     * a = gc_binop | table << 8; k.u = offset and ctype/flags bit 0 (null if max) of the
     * first column; CC: b = offset, pad = ctype, flags bit 1 of the second; CK: k2 = literal */
    GC_I_CMP_CC,
    GC_I_CMP_CK,
} gc_opcode;

typedef struct gc_ins {
    uint8_t op;
    uint8_t ctype; /* gc_coltype of a load */
    uint8_t flags; /* GC_CF_* of a load */
    uint8_t pad;
    uint32_t a, b;
    union {
        int64_t i;
        double f;
        uint64_t u;
        const char *s;
    } k;
    int64_t k2;
} gc_ins;

#define GC_INV_STACK 128
/* Most AST nodes (terms, names, operators, calls) of one expression. */
#define GC_INV_EXPR_NODES_MAX 1024

typedef struct gc_prog {
    gc_ins *code; /* NULL when absent */
    uint32_t n;
    uint32_t max_stack;
} gc_prog;

typedef enum {
    GC_TY_ERR, /* after a reported error: suppress follow-on errors */
    GC_TY_INT,
    GC_TY_FLT,
    GC_TY_STR,
    GC_TY_NULL, /* the literal null */
} gc_ty;

typedef enum {
    GC_AGG_COUNT,
    GC_AGG_COUNT_VAL,
    GC_AGG_SUM,
    GC_AGG_MIN,
    GC_AGG_MAX,
    GC_AGG_MEAN,
    GC_AGG_ALL,
    GC_AGG_ANY,
} gc_agg_kind;

typedef struct gc_agg {
    gc_agg_kind kind;
    int table;
    gc_ty vty;       /* type of value (INT or FLT) */
    gc_prog value;   /* absent for count/all/any */
    gc_prog cond;    /* absent: every row */
    int uses_outer;  /* depends on the invariant's row: not hoisted */
    uint32_t npaths; /* distinct row paths of value + cond (gc_inv_assign_paths) */
    /* An `any` with `outer` whose condition is `col == key and ...` (the equality anywhere in a
     * chain of `and`s; col an integer column of the aggregated table, key an integer
     * expression of `outer` and literals alone): only rows whose col equals the key can make
     * the condition true, so the row VM looks them up in an index of col built once per
     * evaluation (inv_eval.c, agg_keyed) instead of running the condition on every row.
     * keyed: 0 (no such equality) or 1; keycol: the column's load; key: the key's code. */
    int keyed;
    gc_ins keycol;
    gc_prog key;
    /* Its class among the set's hoisted aggregates (gc_inv_assign_memo), or -1: aggregates
     * of any unit or metric with the same kind, table, value and condition code have the
     * same value on a level, so gc_inv_eval_level_all computes each class once a level. */
    int memo;
} gc_agg;

/* A value shown in failure samples. */
typedef struct gc_ref {
    const char *label;
    gc_prog prog;
    gc_ty ty;
    int hex;
} gc_ref;

/* A compiled invariant or metric. */
typedef struct gc_unit {
    gc_inv_info info;
    int file_no;
    int id_line, id_col; /* where the id (metric name) is written, for duplicate errors */
    int table;           /* -1: none */
    int once;            /* evaluated once per level / corpus */
    gc_prog expect, where;
    gc_ty expect_ty;
    gc_agg *aggs;
    uint32_t nagg;
    gc_ref *refs;
    uint32_t nref;
    int has_file_ofs;
    size_t file_ofs_offset;
    uint8_t file_ofs_ctype;
    /* the batch VM runs expect and where (no strings, no `outer` aggregates); batch_stack
     * is the number of block slots it needs */
    int batch;
    uint32_t batch_stack;
    /* distinct row paths of expect + where (gc_inv_assign_paths): the batch VM keeps each
     * path's row vector per block, so `packet.class.a` and `packet.class.b` resolve the two
     * links once; aggregate programs number theirs in gc_agg.npaths */
    uint32_t npaths;
} gc_unit;

struct gc_inv_set {
    gc_arena arena;
    const gc_table_desc **descs;
    size_t ndesc;
    gc_unit *invs;
    size_t ninv;
    gc_unit *mets;
    size_t nmet;
    /* the classes of hoisted aggregates (gc_inv_assign_memo): memo[c] is the first
     * aggregate of class c, whose code computes it */
    const gc_agg **memo;
    size_t nmemo;
};

/* Compile one expression of a unit. `src` is the expression text; error positions are
 * byte offsets into it, mapped to file positions by `map`. Returns 0 if compiled. */
typedef struct gc_pos_map {
    /* maps a byte offset inside the scalar's value to a 1-based line/column */
    void (*fn)(const void *ctx, uint32_t ofs, int *line, int *col);
    const void *ctx;
    int file_no;
    const char *file;
} gc_pos_map;

typedef struct gc_compile_env {
    gc_arena *arena;
    const gc_table_desc *const *descs;
    size_t ndesc;
    gc_inv_errors *errs;
} gc_compile_env;

typedef enum { GC_EXPR_EXPECT, GC_EXPR_WHERE, GC_EXPR_METRIC } gc_expr_role;

/* Compile `src` as the expect/where of unit u (u->table set) or as a metric. Aggregates
 * are appended to u->aggs; refs (for expect) to u->refs. *uses_row is set when the
 * expression reads the current row. Returns 0 on success. */
int gc_inv_compile(gc_compile_env *env, gc_unit *u, gc_expr_role role, const char *src, size_t len,
                   const gc_pos_map *map, gc_prog *out, gc_ty *out_ty, int *uses_row);

/* Decide after compiling whether the batch VM can run a unit (sets u->batch), and number
 * its row paths (gc_inv_assign_paths). */
void gc_inv_detect_fast(gc_unit *u);

/* Number the distinct row paths of u's expect and where, and of each aggregate's value and
 * cond: every ROW_PREV/NEXT/PARENT and LOAD_REG gets in k2 the 1-based number of the path
 * the row register holds after it (0: not numbered, never cached). A path is the sequence
 * of row steps since the last ROW_CUR, in the linear order the batch VM runs the code in.
 * Called once per unit after compiling (metrics too). */
void gc_inv_assign_paths(gc_unit *u);

/* Sort the set's hoisted aggregates (no `outer`, batch VM code, no aggregate inside) into
 * classes of equal ones: sets every gc_agg.memo and s->memo. Called once after loading;
 * without memory every memo stays -1 (each unit computes its own, as before). */
void gc_inv_assign_memo(gc_inv_set *s);

#endif
