/* SPDX-License-Identifier: MIT */
/* Failure samples that say where and why (gc_sweep_samples.h). */
#include "gc_sweep_samples.h"

#include "gc_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_s(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* invariants/x.yaml, the same from every checkout and install (gc_paths.h) */
static const char *project_relative(const char *path)
{
    return gc_data_relative(path);
}

static const gc_column *find_col(const gc_table_desc *d, const char *name)
{
    for (size_t i = 0; d && name && i < d->column_count; i++)
        if (strcmp(d->columns[i].name, name) == 0)
            return &d->columns[i];
    return NULL;
}

static size_t desc_index(const gc_table_desc *const *descs, size_t ndesc, const char *name)
{
    for (size_t i = 0; name && i < ndesc; i++)
        if (strcmp(descs[i]->name, name) == 0)
            return i;
    return (size_t)-1;
}

/* The parent index stored in row `row` of t (-1 if null, absent or out of range). */
static int64_t parent_of(const gc_table *t, const gc_column *pc, int64_t row)
{
    if (!t || !pc || row < 0 || (size_t)row >= t->count || !t->rows)
        return -1;
    const unsigned char *p = (const unsigned char *)t->rows + (size_t)row * t->desc->row_size;
    uint64_t v = 0;
    switch (pc->type) {
    case GC_T_U8:
        v = p[pc->offset];
        return (pc->flags & GC_CF_NULL_IF_MAX) && v == 0xffu ? -1 : (int64_t)v;
    case GC_T_U16: {
        uint16_t x;
        memcpy(&x, p + pc->offset, sizeof x);
        return (pc->flags & GC_CF_NULL_IF_MAX) && x == 0xffffu ? -1 : (int64_t)x;
    }
    case GC_T_U32: {
        uint32_t x;
        memcpy(&x, p + pc->offset, sizeof x);
        return (pc->flags & GC_CF_NULL_IF_MAX) && x == UINT32_MAX ? -1 : (int64_t)x;
    }
    case GC_T_S32: {
        int32_t x;
        memcpy(&x, p + pc->offset, sizeof x);
        return x < 0 ? -1 : (int64_t)x;
    }
    default:
        return -1;
    }
}

void gc_sweep_annotate(gc_report *rep, const gc_inv_set *set, const gc_table_desc *const *descs,
                       size_t ndesc, const gc_table *const *tables, const int *ids, size_t n)
{
    int complete = gc_report_complete(rep);
    for (size_t i = 0; i < rep->result_count; i++) {
        gc_rep_result *x = &rep->results[i];
        if (x->level == GC_LEVEL_CORPUS && !complete)
            x->subset = 1;
        size_t k = gc_inv_find(set, x->invariant);
        const gc_inv_info *info = k == (size_t)-1 ? NULL : gc_inv_get(set, k);
        if (!info)
            continue;
        if (!x->why)
            x->why = dup_s(info->why);
        if (!x->file && info->file) {
            x->file = dup_s(project_relative(info->file));
            x->line = info->line;
        }
        size_t ti = desc_index(descs, ndesc, info->table);
        const gc_table_desc *d = ti == (size_t)-1 ? NULL : descs[ti];
        const gc_column *fo = find_col(d, "file_ofs");
        const gc_column *pc = d ? find_col(d, d->parent_column) : NULL;
        for (size_t s = 0; s < x->sample_count; s++) {
            gc_rep_sample *sm = &x->samples[s];
            if (sm->table || !d || sm->row < 0)
                continue;
            sm->table = dup_s(d->name);
            sm->parent_row = -1;
            const gc_table *lt = NULL;
            for (size_t l = 0; l < n && !lt; l++)
                if (ids[l] == sm->level && tables[l])
                    lt = &tables[l][ti];
            if (pc && d->parent_table) {
                sm->parent_row = parent_of(lt, pc, sm->row);
                if (sm->parent_row >= 0)
                    sm->parent_table = dup_s(d->parent_table);
            }
            if (fo) {
                char loc[512];
                gc_report_locate(gc_report_level(rep, sm->level), fo->unit, sm->file_ofs, loc,
                                 sizeof loc);
                sm->location = dup_s(loc);
            }
        }
    }
}
