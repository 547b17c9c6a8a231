/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the invariant engine (harness/engine/): the input is one YAML file
 * given to gc_inv_load_string. Also built as the replay test replay_inv over
 * tests/fuzz/corpus/inv/.
 *
 * Beyond "no crash, no out-of-bounds access, no undefined behaviour" it checks the
 * contract: a failed load writes at least one "FILE:LINE:COL: message" line, every line
 * whole and in that form (or the "more errors" note); a successful load evaluates every invariant
 * and metric on small fixed tables (with a parent link, a nullable column, a string column and an
 * empty table) returning 0, with failed <= checked and at most max_samples samples, in row order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gc_inv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

typedef struct f_patch {
    uint64_t file_ofs;
    uint32_t vert_count;
    int32_t sval;
    uint32_t opt;
    float radius;
    uint8_t ok;
    char name[8];
} f_patch;

static const gc_column patch_cols[] = {
    GC_COL(f_patch, file_ofs, GC_T_U64, GC_CF_HEX, "bytes", "offset"),
    GC_COL(f_patch, vert_count, GC_T_U32, 0, "count", "declared"),
    GC_COL(f_patch, sval, GC_T_S32, 0, "", "signed"),
    GC_COL(f_patch, opt, GC_T_U32, GC_CF_NULL_IF_MAX, "", "nullable"),
    GC_COL(f_patch, radius, GC_T_F32, 0, "world units", "radius"),
    GC_COL(f_patch, ok, GC_T_BOOL, 0, "", "flag"),
    GC_COL(f_patch, name, GC_T_STR, 0, "", "name"),
};
static const gc_table_desc patch_desc = {
    "t.patch", "", sizeof(f_patch), patch_cols, GC_COUNTOF(patch_cols), NULL, NULL, NULL};

typedef struct f_vertex {
    uint64_t file_ofs;
    uint32_t patch_row;
    float x;
} f_vertex;

static const gc_column vertex_cols[] = {
    GC_COL(f_vertex, file_ofs, GC_T_U64, 0, "bytes", "offset"),
    GC_COL(f_vertex, patch_row, GC_T_U32, GC_CF_NULL_IF_MAX, "row", "parent"),
    GC_COL(f_vertex, x, GC_T_F32, 0, "world units", "x"),
};
static const gc_table_desc vertex_desc = {
    "t.vertex", "",      sizeof(f_vertex), vertex_cols, GC_COUNTOF(vertex_cols),
    "t.patch",  "patch", "patch_row"};

static const gc_column empty_cols[] = {
    GC_COL(f_vertex, file_ofs, GC_T_U64, 0, "bytes", "offset"),
};
static const gc_table_desc empty_desc = {"t.empty", "",  sizeof(f_vertex), empty_cols, 1, NULL,
                                         NULL,      NULL};

static const gc_table_desc *const descs[] = {&patch_desc, &vertex_desc, &empty_desc};

static const f_patch patches[3] = {
    {0x10, 4, -3, 1, 1.5f, 1, "a"},
    {0x20, 0, 2147483647, UINT32_MAX, -0.0f, 0, "bb"},
    {0x30, UINT32_MAX, -2147483647 - 1, 0, 1e30f, 1, "ccccccc"},
};
static const f_vertex vertices[4] = {
    {0x100, 0, 0.5f}, {0x104, 2, -1.0f}, {0x108, UINT32_MAX, 0.0f}, {0x10c, 7, 3.0f}};

/* Every line is "FILE:LINE:COL: message" with LINE, COL >= 1. */
static void check_diagnostics(const char *err)
{
    check(err[0] != '\0');
    const char *p = err;
    while (*p) {
        const char *nl = strchr(p, '\n');
        check(nl != NULL); /* whole lines only */
        if (strncmp(p, "f.yaml:", 7) == 0) {
            const char *q = p + 7;
            char *e;
            long line = strtol(q, &e, 10);
            check(line >= 1 && *e == ':');
            long col = strtol(e + 1, &e, 10);
            check(col >= 1 && *e == ':' && e[1] == ' ');
        } else {
            /* only the "more errors" and out-of-memory notes */
            check(*p == '(' || strncmp(p, "out of memory", 13) == 0);
        }
        p = nl + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    char *yaml = malloc(size + 1);
    if (!yaml)
        return 0;
    memcpy(yaml, data, size);
    yaml[size] = '\0';
    static char err[16384];
    err[0] = '\0';
    gc_inv_set *s = gc_inv_load_string("f.yaml", yaml, descs, GC_COUNTOF(descs), err, sizeof err);
    free(yaml);
    if (!s) {
        check_diagnostics(err);
        return 0;
    }
    gc_table level[3] = {
        {&patch_desc, patches, 3}, {&vertex_desc, vertices, 4}, {&empty_desc, NULL, 0}};
    gc_table level2[3] = {
        {&patch_desc, patches + 1, 2}, {&vertex_desc, NULL, 0}, {&empty_desc, NULL, 0}};
    const gc_table *levels[2] = {level, level2};
    const int ids[2] = {0, 5};
    for (size_t i = 0; i < gc_inv_count(s); i++) {
        const gc_inv_info *info = gc_inv_get(s, i);
        check(info && info->id && info->expect && info->why && info->file);
        gc_inv_result r;
        check(gc_inv_eval_level(s, i, level, 0, 2, &r) == 0);
        check(r.failed <= r.checked && r.sample_count <= 2 && r.sample_count <= r.failed);
        for (size_t k = 1; k < r.sample_count; k++)
            check(r.samples[k].row > r.samples[k - 1].row);
        for (size_t k = 0; k < r.sample_count; k++)
            check(memchr(r.samples[k].values, '\0', sizeof r.samples[k].values) != NULL);
        gc_inv_result_free(&r);
        check(gc_inv_eval_corpus(s, i, levels, ids, 2, 3, &r) == 0);
        check(r.failed <= r.checked && r.sample_count <= 3);
        gc_inv_result_free(&r);
    }
    for (size_t m = 0; m < gc_inv_metric_count(s); m++) {
        double v;
        int nul;
        check(gc_inv_metric_name(s, m) != NULL);
        check(gc_inv_eval_metric(s, m, level, &v, &nul) == 0);
        check(nul == 0 || nul == 1);
    }
    gc_inv_free(s);
    return 0;
}
