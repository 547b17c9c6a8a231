/* SPDX-License-Identifier: MIT */
/* Fault-injection switches (SQLite-style test hooks). In a build configured
 * with -DGC_FAULTS=ON, `gcverify sweep --inject-fault NAME` sets lv->fault and
 * each switch re-introduces one historical decoder defect, nothing more. In a
 * normal build GC_FAULT() is the constant 0 and every switch compiles away. */
#ifndef GC_FAULTS_H
#define GC_FAULTS_H

enum gc_fault_id {
    GC_FAULT_NONE = 0,
#define GC_FAULT_DEF(name, inv, desc) GC_FAULT_##name,
#include "gc_faults.def"
#undef GC_FAULT_DEF
    GC_FAULT_COUNT
};

#if defined(GC_FAULTS) && GC_FAULTS
#define GC_FAULTS_BUILT    1
#define GC_FAULT(lv, name) ((lv)->fault == GC_FAULT_##name)
#else
#define GC_FAULTS_BUILT    0
#define GC_FAULT(lv, name) 0
#endif

typedef struct gc_fault_info {
    const char *name;
    const char *invariant; /* the invariant id that must catch it */
    const char *description;
} gc_fault_info;

/* The catalogue (always available, so `gcverify faults` can list it). */
const gc_fault_info *gc_fault_catalogue(int *count); /* entries 1..count-1; [0] is "none" */
/* GC_FAULT_* for a name, or -1. */
int gc_fault_lookup(const char *name);

#endif
