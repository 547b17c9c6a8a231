/* SPDX-License-Identifier: MIT */
/* The sweep's memory budget (--memory-limit, --level-memory-limit;
 * docs/golden.md "Memory budget"). Every level in flight charges the bytes
 * it is about to allocate (its file, row buffers, decompressed streams):
 *  - past its own cap the charge is refused and the decoder reports
 *    GC_E_NOMEM "memory limit reached": that level's error, never a crash
 *    or an OOM kill. The cap is a fixed number, so the outcome does not
 *    depend on --jobs or timing;
 *  - past the global budget the charge waits until levels in flight give
 *    memory back. When every level in flight waits, the youngest one (not
 *    the oldest) is stopped, its memory freed, and it runs again once it is
 *    the oldest level in flight, so the pool never deadlocks and the oldest
 *    level always makes progress. A rerun level decodes exactly as it would
 *    have: the report never shows that it waited. */
#ifndef GC_MEMBUDGET_H
#define GC_MEMBUDGET_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gc_memacct gc_memacct;

typedef struct gc_membudget {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t limit_bytes;       /* global budget */
    size_t level_limit_bytes; /* per-level cap (<= limit_bytes) */
    size_t used_bytes, peak_bytes;
    gc_memacct **running; /* levels in flight, by slot (NULL: not running) */
    size_t nslots;
    unsigned nrunning, nwaiting;
    uint64_t waits, reruns; /* how often a charge waited / a level was rerun */
} gc_membudget;

struct gc_memacct {
    gc_membudget *b;
    size_t slot; /* start order: a lower slot is older */
    size_t used_bytes, peak_bytes;
    int waiting;
    int stopped;    /* chosen to free its memory and run again later */
    int over_level; /* refused: over the per-level cap */
};

/* 0 or -1 (out of memory). nslots: the number of levels of the run. */
int gc_membudget_init(gc_membudget *b, size_t limit_bytes, size_t level_limit_bytes, size_t nslots);
void gc_membudget_destroy(gc_membudget *b);

/* A level starts: registers it as in flight. A level that was stopped waits
 * here until no older level is in flight. */
void gc_memacct_begin(gc_membudget *b, gc_memacct *a, size_t slot, int rerun);
/* The level is done (or stopped): gives back everything it charged. */
void gc_memacct_end(gc_memacct *a);
/* The gc_mem_hook functions (ctx = the gc_memacct). */
int gc_memacct_charge(void *ctx, size_t bytes);
void gc_memacct_release(void *ctx, size_t bytes);

/* The default budget: half of physical memory, or of the cgroup's
 * memory.max when that is lower. */
size_t gc_membudget_default_bytes(void);
/* Parse "512M", "2G", "1.5G", "1048576", "64KiB" (binary units). 0 or -1. */
int gc_parse_size(const char *s, size_t *out);

#endif
