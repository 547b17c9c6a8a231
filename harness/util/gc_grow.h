/* SPDX-License-Identifier: MIT */
/* Arrays that grow one element at a time (report rows, digests, baseline
 * entries). */
#ifndef GC_GROW_H
#define GC_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h> /* malloc_usable_size: glibc, musl and the sanitizers' allocators */
#define GC_GROW_USABLE_SIZE 1
#else
#define GC_GROW_USABLE_SIZE 0
#endif

/* realloc(arr, (count + 1) * elem) in effect: the array (moved or not) with
 * room for element `count`, or NULL (arr then unchanged and still valid).
 * Where the allocator can say how large a block is, the array doubles
 * instead: realloc to one more element copies the whole array whenever it
 * cannot grow in place, which AddressSanitizer's allocator never does, and
 * a sweep appends ~20,000 digests one at a time (quadratic: minutes per
 * sweep under the sanitizers, and a page fault per copied page without
 * them). The capacity is the block's usable size, so arrays built or
 * replaced elsewhere with an exact size need no bookkeeping. */
static inline void *gc_grow_one(void *arr, size_t count, size_t elem)
{
    if (elem == 0 || count >= SIZE_MAX / 2 / elem - 16)
        return NULL;
#if GC_GROW_USABLE_SIZE
    if (arr && (count + 1) * elem <= malloc_usable_size(arr))
        return arr;
    return realloc(arr, (count < 8 ? 16 : 2 * count) * elem);
#else
    return realloc(arr, (count + 1) * elem);
#endif
}

#endif
