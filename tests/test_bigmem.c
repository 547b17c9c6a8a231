/* SPDX-License-Identifier: MIT */
/* The large-block allocator (decoders/gc_bigmem.h): contents survive growth
 * and shrinking, a freed block is handed out again with its pages (whole, cut
 * at a 2 MiB boundary, rejoined), the cache gives way when the process's
 * memory rises past its peak and to its limit, a block's tail is a whole huge
 * page only while the process is below its peak, a discard gives up whole huge pages only, to
 * the cache (moved into the next block that needs them, not cleared), a block made of moved
 * pages grows without copying, and without mappings every block is malloc's.
 * Each test runs in a process of its own (Criterion), so the allocator's process-wide state starts
 * empty in each. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, posix_memalign under -std=c11 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gc_bigmem.h"

#define MiB ((size_t)1 << 20)

static uint8_t pattern(size_t i, unsigned seed)
{
    return (uint8_t)((i * 2654435761u >> 13) ^ seed);
}

static void fill(uint8_t *p, size_t from, size_t to, unsigned seed)
{
    for (size_t i = from; i < to; i++)
        p[i] = pattern(i, seed);
}

/* Every 4099th byte (and the last) of [0, n) still holds the pattern. */
static bool holds(const uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i += 4099)
        if (p[i] != pattern(i, seed))
            return false;
    return n == 0 || p[n - 1] == pattern(n - 1, seed);
}

static bool mapped(const void *p)
{
    return ((uintptr_t)p & (2 * MiB - 1)) == 0;
}

static gc_big_stats stats(void)
{
    gc_big_stats s;
    gc_big_stats_get(&s);
    return s;
}

/* Makes the process hold `bytes` more for a moment and the allocator see
 * it (an allocation and a free are its events): the cache may then keep up
 * to about that much without raising the process's peak. */
static void raise_peak(size_t bytes)
{
    uint8_t *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(m != MAP_FAILED);
    memset(m, 1, bytes);
    gc_big_free(gc_big_alloc(GC_BIG_MIN_BYTES));
    munmap(m, bytes);
}

static void init(void)
{
    gc_big_set_mapping(1); /* off by default under AddressSanitizer */
}

TestSuite(bigmem, .init = init);

Test(bigmem, growth_and_shrinking_keep_the_contents)
{
    uint8_t *p = gc_big_alloc(3 * MiB);
    cr_assert(p && mapped(p));
    fill(p, 0, 3 * MiB, 1);
    uint8_t *q = gc_big_realloc(p, 3 * MiB, 40 * MiB);
    cr_assert(q && mapped(q));
    cr_assert(holds(q, 3 * MiB, 1), "growth lost the contents");
    gc_big_stats s = stats();
    cr_assert_eq(s.grows_in_place + s.moves, 1, "the pages moved without a copy");
    cr_assert_eq(s.copies, 0);
    fill(q, 3 * MiB, 40 * MiB, 1);
    cr_assert(holds(q, 40 * MiB, 1));
    q = gc_big_realloc(q, 40 * MiB, 5 * MiB + 123);
    cr_assert(q && holds(q, 5 * MiB + 123, 1), "shrinking lost the contents");
    cr_assert_leq(stats().live_bytes, 6 * MiB, "the shrink gave back what is past 6 MiB");
    /* below the mapped sizes: malloc's, and back */
    q = gc_big_realloc(q, 5 * MiB + 123, 100000);
    cr_assert(q && holds(q, 100000, 1));
    cr_assert_eq(stats().live_bytes, 0);
    q = gc_big_realloc(q, 100000, 2 * MiB);
    cr_assert(q && mapped(q) && holds(q, 100000, 1));
    gc_big_free(q);
    cr_assert_eq(stats().live_bytes, 0);
}

Test(bigmem, a_freed_block_is_handed_out_again_with_its_pages)
{
    raise_peak(64 * MiB);
    const uint64_t mapped0 = stats().mapped_bytes; /* raise_peak's own block */
    uint8_t *p = gc_big_alloc_populated(8 * MiB);
    cr_assert(p && mapped(p));
    memset(p, 0xab, 8 * MiB);
    gc_big_free(p);
    gc_big_stats s = stats();
    cr_assert_geq(s.cached_resident_bytes, 8 * MiB, "kept, resident");
    uint64_t reuses = s.reuses;

    /* a populated block's pages are the kernel's to clear only when fresh */
    cr_assert_eq(s.populated_cleared_bytes, 8 * MiB, "a fresh mapping is cleared whole");
    cr_assert_eq(s.mapped_bytes - mapped0, 8 * MiB, "the only new address space");
    uint8_t *q = gc_big_alloc_populated(8 * MiB);
    cr_assert_eq(q, p);
    cr_assert_eq(stats().reuses, reuses + 1);
    cr_assert_eq(stats().mapped_bytes - mapped0, 8 * MiB, "a reuse maps nothing");
    cr_assert_eq(stats().populated_cleared_bytes, 8 * MiB, "recycled resident: nothing cleared");
    cr_assert(q[0] == 0xab && q[8 * MiB - 1] == 0xab, "the pages were not given back");
    /* a huge page discarded goes to the cache, and back into the block's hole when the block
     * is next populated: moved, not cleared */
    q[2 * MiB] = 0x5a;
    cr_assert_eq(gc_big_discard(q, q + 2 * MiB, 2 * MiB), 2 * MiB);
    /* (not read here: a read maps the zero page, and a page that is mapped is no hole) */
    cr_assert_eq(stats().donated_bytes, 2 * MiB);
    gc_big_free(q);
    q = gc_big_alloc_populated(8 * MiB);
    cr_assert_eq(q, p);
    cr_assert_eq(stats().populated_cleared_bytes, 8 * MiB, "the discarded huge page came back");
    cr_assert_eq(stats().moved_bytes, 2 * MiB);
    cr_assert(q[2 * MiB] == 0x5a && q[2 * MiB + 1] == 0xab && q[4 * MiB] == 0xab);
    memset(q, 0xab, 8 * MiB);
    gc_big_free(q);

    /* calloc clears a recycled block */
    uint8_t *z = gc_big_calloc(8, MiB);
    cr_assert_eq(z, p);
    for (size_t i = 0; i < 8 * MiB; i += 4096)
        cr_assert_eq(z[i], 0, "byte %zu", i);
    memset(z, 0xcd, 8 * MiB);
    gc_big_free(z);

    /* a smaller request takes the block cut at the 2 MiB boundary past it,
     * and a growth takes the rest back in place */
    uint64_t splits = stats().splits;
    uint8_t *c = gc_big_alloc(3 * MiB);
    cr_assert_eq(c, p);
    cr_assert_eq(stats().splits, splits + 1);
    cr_assert_eq(stats().cached_bytes, 4 * MiB, "the rest (4-8 MiB) stays cached");
    fill(c, 0, 3 * MiB, 2);
    uint8_t *g = gc_big_realloc(c, 3 * MiB, 7 * MiB);
    cr_assert_eq(g, p, "grown where it was");
    cr_assert_eq(stats().rejoins, 1);
    cr_assert(holds(g, 3 * MiB, 2));
    cr_assert(g[7 * MiB - 1] == 0xcd, "the rest kept its pages");
    gc_big_free(g);
}

Test(bigmem, the_cache_gives_way_past_the_process_peak_and_to_its_limit)
{
    raise_peak(64 * MiB);
    uint8_t *p = gc_big_alloc_populated(16 * MiB);
    cr_assert(p);
    gc_big_free(p);
    cr_assert_geq(stats().cached_resident_bytes, 16 * MiB);

    /* the process grows past the most it held: at the next event the
     * cached block goes rather than add to a new peak */
    size_t big = 160 * MiB;
    uint8_t *m = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(m != MAP_FAILED);
    memset(m, 1, big);
    uint64_t ev = stats().evictions, ev_bytes = stats().evicted_bytes;
    gc_big_free(gc_big_alloc(GC_BIG_MIN_BYTES));
    gc_big_stats s = stats();
    cr_assert_eq(s.cached_bytes, 0, "%zu bytes still cached at a new peak", s.cached_bytes);
    cr_assert_gt(s.evictions, ev);
    /* the 16 MiB, resident: 14 of them cached when the event's block was cut from them, then
     * its 2 MiB when it was freed */
    cr_assert_eq(s.evicted_bytes - ev_bytes, 16 * MiB, "%llu bytes evicted",
                 (unsigned long long)(s.evicted_bytes - ev_bytes));
    munmap(m, big);

    /* back below the peak, blocks are kept again, up to the limit */
    gc_big_free(gc_big_alloc_populated(8 * MiB));
    cr_assert_geq(stats().cached_resident_bytes, 8 * MiB);
    gc_big_set_cache_limit(4 * MiB);
    cr_assert_eq(stats().cached_bytes, 0, "the limit evicts at once");
    gc_big_free(gc_big_alloc_populated(8 * MiB));
    cr_assert_eq(stats().cached_bytes, 0, "8 MiB resident is over the limit");
    gc_big_free(gc_big_alloc_populated(2 * MiB));
    cr_assert_geq(stats().cached_resident_bytes, 2 * MiB);
    gc_big_set_cache_limit(0);
    cr_assert_eq(stats().cached_bytes, 0);
    gc_big_free(gc_big_alloc_populated(2 * MiB));
    cr_assert_eq(stats().cached_bytes, 0, "no cache");
}

Test(bigmem, a_tail_is_a_whole_huge_page_only_below_the_process_peak)
{
    size_t n = 3 * MiB + 4096;
    /* a new process has held nothing more than it holds: the tail past
     * 2 MiB stays 4 KiB pages, nothing resident that was not asked for */
    uint8_t *p = gc_big_alloc(n);
    cr_assert(p && mapped(p));
    cr_assert_eq(stats().spare_bytes, 0, "no headroom: mapped as asked");
    cr_assert_eq(stats().rounded, 0);
    gc_big_free(p);
    gc_big_trim();

    /* below its peak, the tail is mapped as a whole huge page */
    raise_peak(64 * MiB);
    gc_big_trim();
    p = gc_big_alloc(n);
    cr_assert(p && mapped(p));
    cr_assert_eq(stats().spare_bytes, 4 * MiB - n, "%zu", stats().spare_bytes);
    cr_assert_eq(stats().rounded, 1);
    fill(p, 0, n, 3);
    /* a growth past the capacity likewise, and the contents stay */
    uint8_t *q = gc_big_realloc(p, n, 5 * MiB + 4096);
    cr_assert(q && mapped(q) && holds(q, n, 3));
    cr_assert_eq(stats().live_bytes, 6 * MiB);
    cr_assert_eq(stats().rounded, 2);
    /* within the rounded capacity: no mapping at all */
    uint64_t grown = stats().grows_in_place + stats().moves + stats().copies;
    q = gc_big_realloc(q, 5 * MiB + 4096, 6 * MiB);
    cr_assert(q && holds(q, n, 3));
    cr_assert_eq(stats().grows_in_place + stats().moves + stats().copies, grown);
    gc_big_free(q);
    gc_big_trim();

    /* tails not written yet count as resident: blocks allocated one after
     * another stop being rounded before their tails could pass the peak */
    enum { NB = 100 };
    uint8_t *many[NB];
    uint64_t before = stats().rounded;
    for (int k = 0; k < NB; k++) {
        many[k] = gc_big_alloc(n);
        cr_assert(many[k]);
    }
    uint64_t rounded = stats().rounded - before;
    cr_assert_gt(rounded, 0);
    cr_assert_lt(rounded, 64, "%llu of %d blocks rounded: 1 MiB each under a 64 MiB peak",
                 (unsigned long long)rounded, NB);
    for (int k = 0; k < NB; k++)
        gc_big_free(many[k]);
    gc_big_trim();

    /* the process past its peak: as asked again */
    size_t big = 160 * MiB;
    uint8_t *m = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(m != MAP_FAILED);
    memset(m, 1, big);
    before = stats().rounded;
    p = gc_big_alloc(n);
    cr_assert(p && mapped(p));
    cr_assert_eq(stats().spare_bytes, 0, "at a new peak: %zu spare", stats().spare_bytes);
    cr_assert_eq(stats().rounded, before);
    gc_big_free(p);
    munmap(m, big);
}

Test(bigmem, a_discard_gives_back_whole_huge_pages_only)
{
    size_t n = 8 * MiB + 100 * 1024;
    uint8_t *p = gc_big_alloc_populated(n);
    cr_assert(p && mapped(p));
    memset(p, 0x11, n);
    /* [1, 7) MiB: the huge pages [2, 6) MiB go, the two it cuts stay whole */
    cr_assert_eq(gc_big_discard(p, p + MiB, 6 * MiB), 4 * MiB);
    cr_assert_eq(p[MiB + MiB / 2], 0x11);
    cr_assert_eq(p[2 * MiB], 0);
    cr_assert_eq(p[6 * MiB - 1], 0);
    cr_assert_eq(p[6 * MiB + MiB / 2], 0x11);
    /* the 4 KiB tail past 8 MiB has no huge page to split: its whole pages go */
    size_t got = gc_big_discard(p, p + 8 * MiB + 1, n - 8 * MiB - 1);
    cr_assert_eq(got, (n - 8 * MiB) / 4096 * 4096 - 4096, "%zu", got);
    cr_assert_eq(p[8 * MiB], 0x11, "the page it starts in stays");
    cr_assert_eq(p[8 * MiB + 4096], 0);
    gc_big_free(p);

    /* a malloc'd block: page by page */
    uint8_t *m = malloc(4 * MiB);
    cr_assert(m);
    memset(m, 0x22, 4 * MiB);
    cr_assert_geq(gc_big_discard(m, m + 4096, 2 * MiB), 2 * MiB - 8192);
    cr_assert_eq(m[0], 0x22);
    cr_assert_eq(m[3 * MiB], 0x22);
    gc_big_free(m);
}

/* The whole huge pages a discard gives up are moved to the cache with their bytes (the block
 * reads zeros there and stays usable), and a populated block that fits them is handed them
 * without the kernel clearing anything. */
Test(bigmem, discarded_huge_pages_are_recycled_not_cleared)
{
    raise_peak(64 * MiB);
    uint8_t *p = gc_big_alloc_populated(8 * MiB);
    cr_assert(p && mapped(p));
    fill(p, 0, 8 * MiB, 7);
    gc_big_stats s0 = stats();
    cr_assert_eq(gc_big_discard(p, p + 2 * MiB, 4 * MiB), 4 * MiB);
    gc_big_stats s1 = stats();
    cr_assert_eq(s1.donated_bytes - s0.donated_bytes, 4 * MiB);
    cr_assert_eq(s1.cached_resident_bytes - s0.cached_resident_bytes, 4 * MiB, "kept resident");
    cr_assert(p[2 * MiB] == 0 && p[6 * MiB - 1] == 0, "the range reads as zeros");
    cr_assert(holds(p, 2 * MiB, 7) && p[6 * MiB] == pattern(6 * MiB, 7), "the rest is untouched");
    memset(p + 2 * MiB, 0x33, 4 * MiB); /* and can be written again */
    cr_assert_eq(p[4 * MiB], 0x33);

    /* a block of their size is them: the bytes they held, nothing cleared */
    uint8_t *q = gc_big_alloc_populated(4 * MiB);
    cr_assert(q && mapped(q) && q != p);
    cr_assert_eq(stats().populated_cleared_bytes, s1.populated_cleared_bytes);
    for (size_t i = 0; i < 4 * MiB; i += 4099)
        cr_assert_eq(q[i], pattern(2 * MiB + i, 7), "byte %zu", i);
    cr_assert_eq(p[4 * MiB], 0x33, "p keeps its own pages");
    gc_big_free(q);
    gc_big_free(p);
}

Test(bigmem, empty_huge_pages_of_a_block_are_filled_from_the_cache)
{
    raise_peak(64 * MiB);
    uint8_t *x = gc_big_alloc_populated(8 * MiB);
    cr_assert(x && mapped(x));
    fill(x, 0, 8 * MiB, 3);
    cr_assert_eq(gc_big_discard(x, x, 4 * MiB), 4 * MiB); /* 4 MiB to the cache, whole */
    gc_big_free(x);                                       /* cached: 8 MiB, its first 4 MiB empty */
    gc_big_stats s = stats();
    /* the 8 MiB block fits (the 4 MiB one does not): its empty pages get the 4 MiB's */
    uint8_t *y = gc_big_alloc_populated(8 * MiB);
    cr_assert_eq(y, x);
    gc_big_stats t = stats();
    cr_assert_eq(t.moved_bytes - s.moved_bytes, 4 * MiB);
    cr_assert_eq(t.populated_cleared_bytes, s.populated_cleared_bytes, "nothing cleared");
    cr_assert_eq(t.cached_bytes, 0, "the donor block is used up");
    /* each of the first two huge pages is one of the donor's, whole, in either order */
    for (size_t h = 0; h < 2; h++) {
        size_t from = y[h * 2 * MiB] == pattern(0, 3) ? 0 : 2 * MiB;
        for (size_t i = 0; i < 2 * MiB; i += 4099)
            cr_assert_eq(y[h * 2 * MiB + i], pattern(from + i, 3), "page %zu byte %zu", h, i);
    }
    cr_assert(y[4 * MiB] == pattern(4 * MiB, 3) && y[8 * MiB - 1] == pattern(8 * MiB - 1, 3));
    gc_big_free(y);
}

/* A block made of pages from several mappings (the kernel keeps one mapping per moved piece,
 * and one mremap moves one mapping only) grows by moving its pages, in place or not, never by
 * copying them. */
Test(bigmem, a_block_of_moved_pages_grows_without_copying)
{
    raise_peak(96 * MiB);
    uint8_t *x = gc_big_alloc_populated(8 * MiB);
    cr_assert(x);
    memset(x, 1, 8 * MiB);
    cr_assert_eq(gc_big_discard(x, x + 2 * MiB, 4 * MiB), 4 * MiB);
    gc_big_free(x);
    uint8_t *y = gc_big_alloc_populated(8 * MiB); /* pages moved into [2, 6) MiB */
    cr_assert_eq(y, x);
    cr_assert_eq(stats().moved_bytes, 4 * MiB);
    fill(y, 0, 8 * MiB, 9);

    /* in place if the address space after it is free, else moved: either way not copied */
    gc_big_stats s = stats();
    uint8_t *z = gc_big_realloc(y, 8 * MiB, 12 * MiB + 4096);
    cr_assert(z);
    cr_assert_eq(stats().copies, s.copies, "grown without a copy");
    cr_assert(holds(z, 8 * MiB, 9));
    fill(z, 8 * MiB, 12 * MiB + 4096, 9);

    /* the address space after it taken: the growth must move its pieces */
    size_t len = 12 * MiB + 4096;
    void *guard = mmap(z + 14 * MiB, 4096, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    cr_assert(guard == (void *)(z + 14 * MiB), "the address after the block is free");
    s = stats();
    uint8_t *w = gc_big_realloc(z, len, 40 * MiB);
    cr_assert(w && w != z, "moved");
    gc_big_stats t = stats();
    cr_assert_eq(t.copies, s.copies, "moved without a copy");
    cr_assert_eq(t.moves, s.moves + 1);
    cr_assert(holds(w, len, 9));
    fill(w, len, 40 * MiB, 9);
    cr_assert(holds(w, 40 * MiB, 9));
    munmap(guard, 4096);
    gc_big_free(w);
}

Test(bigmem, without_mappings_every_block_is_mallocs)
{
    uint8_t *kept = gc_big_alloc(4 * MiB); /* mapped before the switch */
    cr_assert(kept && mapped(kept));
    fill(kept, 0, 4 * MiB, 3);
    gc_big_set_mapping(0);
    uint64_t maps = stats().maps;
    uint8_t *p = gc_big_alloc(4 * MiB);
    cr_assert(p);
    cr_assert_eq(stats().maps, maps, "no mapping");
    cr_assert_eq(stats().live_bytes, 4 * MiB, "only the block mapped before");
    fill(p, 0, 4 * MiB, 4);
    p = gc_big_realloc(p, 4 * MiB, 16 * MiB);
    cr_assert(p && holds(p, 4 * MiB, 4));
    gc_big_free(p);
    uint8_t *z = gc_big_calloc(3, MiB);
    cr_assert(z);
    for (size_t i = 0; i < 3 * MiB; i += 4096)
        cr_assert_eq(z[i], 0);
    gc_big_free(z);
    /* the block mapped before moves to malloc when it is resized */
    kept = gc_big_realloc(kept, 4 * MiB, 8 * MiB);
    cr_assert(kept && holds(kept, 4 * MiB, 3));
    cr_assert_eq(stats().live_bytes, 0);
    gc_big_free(kept);
    /* gc_big_free takes malloc's pointers, 2 MiB-aligned ones included */
    void *a = NULL;
    cr_assert_eq(posix_memalign(&a, 2 * MiB, 3 * MiB), 0);
    gc_big_free(a);
    gc_big_free(malloc(10));
    gc_big_free(NULL);
}

typedef struct worker_arg {
    unsigned seed;
    int bad;
} worker_arg;

static void *worker(void *v)
{
    worker_arg *w = v;
    uint32_t r = w->seed;
    for (int it = 0; it < 60; it++) {
        r = r * 1664525u + 1013904223u;
        size_t n = GC_BIG_MIN_BYTES + (r >> 8) % (6 * MiB);
        uint8_t *p = gc_big_alloc(n);
        if (!p) {
            w->bad = 1;
            return NULL;
        }
        fill(p, 0, n, w->seed + (unsigned)it);
        size_t m = it % 2 ? n * 2 : n / 3 + 1;
        uint8_t *q = gc_big_realloc(p, n, m);
        if (!q || !holds(q, m < n ? m : n, w->seed + (unsigned)it)) {
            w->bad = 1;
            return NULL;
        }
        gc_big_free(q);
    }
    return NULL;
}

Test(bigmem, two_threads_share_it)
{
    raise_peak(64 * MiB);
    worker_arg a[2] = {{7, 0}, {11, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, worker, &a[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    cr_assert(!a[0].bad && !a[1].bad, "a block lost its contents");
    gc_big_stats s = stats();
    cr_assert_eq(s.live_bytes, 0);
    cr_assert_gt(s.reuses, 0, "the threads recycled each other's blocks");
}

/* A forked child measures its own memory, not its parent's: the parent holds 96 MiB resident
 * when it forks (its peak, which the child inherits) and keeps holding it; the child gives its
 * copy back, so a block it frees fits under the peak and is cached. Reading the parent's
 * figures through the descriptor it inherited, the child would see itself at the peak and
 * evict the block. */
Test(bigmem, a_forked_child_reads_its_own_resident_size)
{
    const size_t big = 96 * MiB;
    uint8_t *m = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(m != MAP_FAILED);
    memset(m, 1, big);
    gc_big_free(gc_big_alloc(GC_BIG_MIN_BYTES)); /* an event: the peak, and statm opened */
    cr_assert_geq(stats().peak_without_cache_bytes, big);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        munmap(m, big);
        uint8_t *p = gc_big_alloc_populated(8 * MiB);
        memset(p, 0x5a, 8 * MiB);
        gc_big_free(p);
        _exit(stats().cached_resident_bytes >= 8 * MiB ? 0 : 1);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the child evicted its block: it read its parent's resident size");
    munmap(m, big);
}
