/* SPDX-License-Identifier: MIT */
/* The fault catalogue as data. */
#include "gc_faults.h"

#include <string.h>

static const gc_fault_info catalogue[GC_FAULT_COUNT] = {
    {"none", "", "no fault"},
#define GC_FAULT_DEF(name, inv, desc) {#name, inv, desc},
#include "gc_faults.def"
#undef GC_FAULT_DEF
};

const gc_fault_info *gc_fault_catalogue(int *count)
{
    *count = GC_FAULT_COUNT;
    return catalogue;
}

int gc_fault_lookup(const char *name)
{
    for (int i = 1; i < GC_FAULT_COUNT; i++)
        if (strcmp(catalogue[i].name, name) == 0)
            return i;
    return -1;
}
