/* SPDX-License-Identifier: MIT */
/* A minimal pthread pool: run `count` independent tasks on `jobs` threads.
 * Tasks are claimed in index order from an atomic counter; each task writes
 * only its own result slot, so the merged output never depends on which
 * thread ran what (design.md §5). */
#ifndef GC_POOL_H
#define GC_POOL_H

#include <stddef.h>

typedef void (*gc_pool_task)(void *ctx, size_t index);

/* Runs task(ctx, i) for i in [0, count). jobs <= 1 runs inline on the caller's
 * thread. Returns 0, or -1 if no thread could be started (then everything
 * ran inline). */
int gc_pool_run(unsigned jobs, size_t count, gc_pool_task task, void *ctx);

/* Number of online cores (at least 1). */
unsigned gc_core_count(void);

#endif
