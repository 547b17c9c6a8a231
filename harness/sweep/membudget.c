/* SPDX-License-Identifier: MIT */
/* The sweep's memory budget: see gc_membudget.h for the rules. */
#include "gc_membudget.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gc_membudget_init(gc_membudget *b, size_t limit_bytes, size_t level_limit_bytes, size_t nslots)
{
    memset(b, 0, sizeof *b);
    b->limit_bytes = limit_bytes;
    b->level_limit_bytes = level_limit_bytes < limit_bytes ? level_limit_bytes : limit_bytes;
    b->nslots = nslots;
    b->running = calloc(nslots ? nslots : 1, sizeof *b->running);
    if (!b->running)
        return -1;
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    return 0;
}

void gc_membudget_destroy(gc_membudget *b)
{
    if (!b->running)
        return;
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
    free(b->running);
    b->running = NULL;
}

void gc_memacct_begin(gc_membudget *b, gc_memacct *a, size_t slot, int rerun)
{
    memset(a, 0, sizeof *a);
    a->b = b;
    a->slot = slot;
    pthread_mutex_lock(&b->mu);
    /* a stopped level runs again once it is the oldest in flight: then it is
     * never the one stopped, so it finishes */
    for (;;) {
        int older = 0;
        for (size_t i = 0; rerun && i < slot && !older; i++)
            older = b->running[i] != NULL;
        if (!older)
            break;
        pthread_cond_wait(&b->cv, &b->mu);
    }
    b->running[slot] = a;
    b->nrunning++;
    pthread_mutex_unlock(&b->mu);
}

void gc_memacct_end(gc_memacct *a)
{
    gc_membudget *b = a->b;
    pthread_mutex_lock(&b->mu);
    b->used_bytes -= a->used_bytes < b->used_bytes ? a->used_bytes : b->used_bytes;
    a->used_bytes = 0;
    if (b->running[a->slot] == a) {
        b->running[a->slot] = NULL;
        b->nrunning--;
    }
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

/* Every level in flight waits for memory: stop the youngest waiting one
 * that is not the oldest in flight. Called with the lock held. */
static void break_deadlock(gc_membudget *b)
{
    size_t oldest = b->nslots;
    for (size_t i = 0; i < b->nslots && oldest == b->nslots; i++)
        if (b->running[i])
            oldest = i;
    for (size_t i = b->nslots; i-- > oldest + 1;) {
        gc_memacct *x = b->running[i];
        if (x && x->waiting && !x->stopped) {
            x->stopped = 1;
            b->reruns++;
            pthread_cond_broadcast(&b->cv);
            return;
        }
    }
}

int gc_memacct_charge(void *ctx, size_t bytes)
{
    gc_memacct *a = ctx;
    gc_membudget *b = a->b;
    pthread_mutex_lock(&b->mu);
    int rc = 0;
    if (a->stopped) {
        rc = -1;
    } else if (bytes > b->level_limit_bytes || a->used_bytes > b->level_limit_bytes - bytes) {
        a->over_level = 1;
        rc = -1;
    } else {
        while (b->used_bytes > b->limit_bytes || bytes > b->limit_bytes - b->used_bytes) {
            if (b->nrunning <= 1)
                break; /* alone: its own cap (checked above) bounds it */
            a->waiting = 1;
            b->nwaiting++;
            if (b->nwaiting >= b->nrunning)
                break_deadlock(b);
            if (!a->stopped) {
                b->waits++;
                pthread_cond_wait(&b->cv, &b->mu);
            }
            a->waiting = 0;
            b->nwaiting--;
            if (a->stopped) {
                rc = -1;
                break;
            }
        }
        if (rc == 0) {
            b->used_bytes += bytes;
            a->used_bytes += bytes;
            if (b->used_bytes > b->peak_bytes)
                b->peak_bytes = b->used_bytes;
            if (a->used_bytes > a->peak_bytes)
                a->peak_bytes = a->used_bytes;
        }
    }
    pthread_mutex_unlock(&b->mu);
    return rc;
}

void gc_memacct_release(void *ctx, size_t bytes)
{
    gc_memacct *a = ctx;
    gc_membudget *b = a->b;
    pthread_mutex_lock(&b->mu);
    if (bytes > a->used_bytes)
        bytes = a->used_bytes;
    a->used_bytes -= bytes;
    b->used_bytes -= bytes < b->used_bytes ? bytes : b->used_bytes;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

size_t gc_membudget_default_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    unsigned long long phys =
        pages > 0 && page > 0 ? (unsigned long long)pages * (unsigned long long)page : 4ull << 30;
    /* in a container the cgroup's limit is what the OOM killer enforces */
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (f) {
        unsigned long long cg;
        if (fscanf(f, "%llu", &cg) == 1 && cg > 0 && cg < phys)
            phys = cg;
        fclose(f);
    }
    unsigned long long half = phys / 2;
    return half > (unsigned long long)SIZE_MAX ? SIZE_MAX : (size_t)half;
}

int gc_parse_size(const char *s, size_t *out)
{
    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || !(v >= 0))
        return -1;
    double mul = 1;
    switch (*end) {
    case 'k':
    case 'K':
        mul = 1024.0;
        end++;
        break;
    case 'm':
    case 'M':
        mul = 1024.0 * 1024.0;
        end++;
        break;
    case 'g':
    case 'G':
        mul = 1024.0 * 1024.0 * 1024.0;
        end++;
        break;
    case 't':
    case 'T':
        mul = 1024.0 * 1024.0 * 1024.0 * 1024.0;
        end++;
        break;
    default:
        break;
    }
    if (mul > 1 && *end == 'i')
        end++;
    if (*end == 'B')
        end++;
    if (*end)
        return -1;
    double bytes = v * mul;
    if (bytes < 1 || bytes > 9.0e18)
        return -1;
    *out = (size_t)bytes;
    return 0;
}
