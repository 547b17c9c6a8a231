/* SPDX-License-Identifier: MIT */
/* Large blocks: the decompressed streams, row tables and scratch of a level
 * (and in gcverify the level files, scenes and render targets), megabytes
 * each, allocated and freed once per level.
 *
 * Why not malloc: on the VMs this project is measured on, a first touch of
 * a 4 KiB page costs ~12-40 us (the hypervisor maps it too), and a corpus
 * sweep touched ~1 GB of fresh memory (~270,000 faults, a third of its
 * CPU); a 2 MiB huge page costs about as much as three 4 KiB ones. A block
 * of GC_BIG_MIN_BYTES or more is here a mapping of its own:
 *  - 2 MiB-aligned and madvised for transparent huge pages: one fault per
 *    2 MiB; its tail past the last 2 MiB boundary is a whole huge page too
 *    while the process is below the most it has held (a 4 KiB page's
 *    fault costs 1/250 to 1/10 of a huge page's for 1/512 of its bytes),
 *    and 4 KiB pages otherwise, so that rounding never raises the peak;
 *  - grown by mremap, which moves the page tables (no byte is copied);
 *  - never cut inside a huge page (a shrink or a discard gives back whole
 *    huge pages): a split huge page costs ~4 ms when touched again;
 *  - kept when freed, in a process-wide cache that hands it out again with
 *    its pages resident (whole, or cut at a 2 MiB boundary), and whose whole
 *    huge pages also fill the empty huge pages of a block handed out (moved
 *    by mremap: nothing is cleared or copied). The cache is
 *    bounded by the process's own memory peak: at every call the process's
 *    resident size is read, and cached blocks are unmapped while it is
 *    above the most the process held without them (gc_bigmem.c), so
 *    recycling does not raise the peak. gc_big_trim() empties it.
 *
 * Smaller blocks, and every block where mmap is unavailable or fails, are
 * malloc's: gc_big_free() takes any pointer from malloc, calloc, realloc or
 * these functions, so a caller that hands the library a malloc'd buffer to
 * own (lv->core_data in the tests) keeps working. A block from these
 * functions must not be given to free() or realloc(). Thread-safe. */
#ifndef GC_BIGMEM_H
#define GC_BIGMEM_H

#include <stddef.h>
#include <stdint.h>

/* Blocks from this size up are mapped (when mapping is on). */
#define GC_BIG_MIN_BYTES ((size_t)512 << 10)

/* n bytes (n 0 is taken as 1), uninitialised (a recycled block holds its
 * previous owner's bytes); NULL when out of memory. */
void *gc_big_alloc(size_t n);
/* gc_big_alloc for a block the caller is about to write whole (a file
 * read, a decompressed stream, a copy, a render target): its pages are
 * faulted in by one call (MADV_POPULATE_WRITE) instead of one fault per
 * page as it is written. Not for a capacity that may stay unused: those
 * pages would be resident all the same. */
void *gc_big_alloc_populated(size_t n);
/* count * size zeroed bytes, as calloc (NULL when the product overflows or
 * out of memory). */
void *gc_big_calloc(size_t count, size_t size);
/* Resize p (NULL: allocate) to n bytes, keeping the first min(old_n, n)
 * of them; old_n is the size the caller knows p to have (a malloc'd block's
 * size cannot be asked portably). NULL when out of memory, and p is then
 * unchanged and still owned by the caller. */
void *gc_big_realloc(void *p, size_t old_n, size_t n);
/* Free p (NULL: nothing). */
void gc_big_free(void *p);

/* The caller will never read or write [p, p + n) of `block` again (a block
 * of these functions or of malloc): the pages inside it leave the block now
 * (they would read as zeros); of a mapped block only whole huge pages (and
 * whole pages of its 4 KiB tail). A mapped block's whole huge pages are
 * moved into the cache, resident, where the next blocks that need pages
 * take them instead of having new ones cleared by the kernel (the cache's
 * bound gives them back when the process is at its peak); other pages go
 * back to the kernel. Returns the bytes given up (0 where the system
 * cannot). */
size_t gc_big_discard(void *block, const void *p, size_t n);

/* Unmap every cached block (the live ones stay). */
void gc_big_trim(void);

typedef struct gc_big_stats {
    size_t live_bytes;               /* mapped and handed out */
    size_t spare_bytes;              /* of those, past what their owners asked for */
    size_t cached_bytes;             /* mapped, freed, kept for reuse */
    size_t cached_resident_bytes;    /* of those, resident */
    size_t peak_without_cache_bytes; /* the bound: the process's peak less cached and spare */
    uint64_t maps;                   /* fresh mappings */
    uint64_t reuses;                 /* allocations served from the cache */
    uint64_t splits;                 /* cached blocks cut in two to serve one */
    uint64_t rejoins;                /* growths that took back the cached rest of their mapping */
    uint64_t grows_in_place;         /* realloc growths without moving */
    uint64_t moves;                  /* realloc growths that moved the pages (no copy) */
    uint64_t copies;                 /* growths that copied (no mremap, or it failed) */
    uint64_t evictions;              /* cached blocks unmapped to keep the bounds */
    uint64_t rounded; /* maps and growths given whole huge pages past their request */
    uint64_t populated_cleared_bytes; /* gc_big_alloc_populated's pages not resident before */
    uint64_t donated_bytes;           /* discarded huge pages moved to the cache instead of freed */
    uint64_t moved_bytes;             /* cached huge pages moved into a block's empty range */
    uint64_t mapped_bytes;            /* address space new to the process: mappings, growths */
    uint64_t evicted_bytes;           /* resident bytes of the cached blocks evicted */
} gc_big_stats;
void gc_big_stats_get(gc_big_stats *out);

/* 0: every new block is malloc's, as where mmap does not exist (blocks
 * already mapped stay valid). The default is 1, except under
 * AddressSanitizer, whose checks of malloc'd blocks (overruns, use after
 * free) the mapped blocks would escape: there the default is 0. */
void gc_big_set_mapping(int on);
/* At most `bytes` resident in the cache (0: no cache; evicts at once), on
 * top of the peak bound. Default: the peak bound alone. */
void gc_big_set_cache_limit(size_t bytes);

#endif
