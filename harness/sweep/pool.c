/* SPDX-License-Identifier: MIT */
/* pthread pool for per-level work. */
#include "gc_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct pool_state {
    gc_pool_task task;
    void *ctx;
    size_t count;
    atomic_size_t next;
} pool_state;

static void *worker(void *arg)
{
    pool_state *st = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&st->next, 1);
        if (i >= st->count)
            break;
        st->task(st->ctx, i);
    }
    return NULL;
}

int gc_pool_run(unsigned jobs, size_t count, gc_pool_task task, void *ctx)
{
    pool_state st = {.task = task, .ctx = ctx, .count = count};
    atomic_init(&st.next, 0);
    if (jobs > count)
        jobs = (unsigned)count;
    if (jobs <= 1) {
        worker(&st);
        return 0;
    }
    /* The caller's thread is the last of the `jobs` workers: starting `jobs`
     * threads and then working on the caller too ran jobs + 1 tasks at once
     * (three levels in flight with --jobs 2: a third more memory, and three
     * threads contending for two cores; issue 18). */
    pthread_t *t = calloc(jobs - 1, sizeof *t);
    unsigned started = 0;
    if (t)
        for (; started < jobs - 1; started++)
            if (pthread_create(&t[started], NULL, worker, &st) != 0)
                break;
    /* Whatever could not be started, the caller's thread does itself. */
    worker(&st);
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    free(t);
    return started == jobs - 1 ? 0 : -1;
}

unsigned gc_core_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}
