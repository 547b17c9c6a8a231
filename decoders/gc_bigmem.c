/* SPDX-License-Identifier: MIT */
/* Large blocks in huge-page mappings, recycled through a cache bounded by
 * the process's own memory peak (gc_bigmem.h says why). */
#if defined(__linux__)
#define _GNU_SOURCE /* mremap, mincore, MAP_ANONYMOUS, MADV_* under -std=c11 */
#elif defined(__unix__) || defined(__APPLE__)
#define _DEFAULT_SOURCE
#endif
#include "gc_bigmem.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

/* Mapping needs anonymous mmap. Moving pages on growth needs Linux's
 * mremap (without it a growth maps anew and copies). The cache needs to
 * know what the process holds resident (/proc/self/statm) and what a block
 * holds (mincore), and an MADV_DONTNEED that frees at once: Linux's;
 * elsewhere nothing is cached. */
#if defined(MAP_ANONYMOUS) && defined(MAP_FAILED)
#define BIG_CAN_MAP 1
#else
#define BIG_CAN_MAP 0
#endif
#if BIG_CAN_MAP && defined(__linux__) && defined(MREMAP_MAYMOVE) && defined(MREMAP_FIXED)
#define BIG_CAN_MREMAP 1
#else
#define BIG_CAN_MREMAP 0
#endif
#if BIG_CAN_MAP && defined(__linux__) && defined(MADV_DONTNEED)
#define BIG_CAN_CACHE 1
#else
#define BIG_CAN_CACHE 0
#endif
#if BIG_CAN_MAP && defined(MADV_POPULATE_WRITE)
#define BIG_CAN_POPULATE 1
#else
#define BIG_CAN_POPULATE 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define BIG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIG_ASAN 1
#endif
#endif
#ifndef BIG_ASAN
#define BIG_ASAN 0
#endif

#define HUGE_BYTES ((size_t)2 << 20)
/* The cache's margin below the peak (see `peak`): 1/32 of it, at most 4 MiB.
 * The margin covers what the process grows by between two allocator calls,
 * which does not scale with its size: a process that holds a large fixed
 * part (bench_decode keeps all 27 files, 435 MB) would otherwise empty the
 * cache on every large level (issue 10's decode figure: 22,400 -> 14,600
 * faults a pass, docs/performance.md). */
#define MARGIN_MAX ((size_t)4 << 20)
/* Live mapped blocks tracked (a level holds a few dozen of GC_BIG_MIN_BYTES
 * or more; past this many a new block is malloc's), and cached blocks
 * kept. */
#define LIVE_MAX  512
#define CACHE_MAX 64

typedef struct big_block {
    uint8_t *p;      /* 2 MiB-aligned; live and moving: the token of the call moving it */
    size_t len;      /* bytes mapped: a multiple of the page size */
    size_t used;     /* live: the bytes asked for, page-rounded (<= len); the rest is spare */
    size_t res;      /* cached: bytes resident when it was cached (an upper bound) */
    uint8_t *origin; /* start of the mapping it was cut from: pieces of one mapping rejoin */
    size_t pad;      /* live: bytes its mapping was rounded up by, perhaps not resident yet */
    bool moving;     /* live: gc_big_realloc is moving its pages */
    bool whole;      /* cached: every page resident and the length whole huge pages, so its
                      * huge pages can be moved out one by one from its end (fill_holes) */
} big_block;

/* The bound of the cache. What the cache adds to the process's resident
 * memory is its cached blocks and the spare capacity of the blocks it
 * handed out bigger than asked (cut at a 2 MiB boundary or whole): at most
 * cached_res + (live_bytes - live_used). At every event (an allocation, a
 * free, a resize, a discard) the process's resident size R is read, and
 * without_cache = R - cached_res - spare is what it would hold without the
 * cache, at least; its highest value so far is `peak`. Cached blocks are
 * evicted, oldest first, while R > peak - margin (peak / 32, at most
 * MARGIN_MAX): the cache only fills memory the process has already shown
 * it needs, less a margin for what it grows by between two events (a
 * texture decoded with malloc is no event),
 * so recycling does not raise the process's memory peak. (Letting it pass
 * the peak by up to 8 or 16 MiB halved what it evicted, 85-150 MB a retail
 * sweep at --jobs 2, and cut the huge pages the kernel allocated from ~128
 * to ~100 or ~85, but gave no system time that runs could show: a page given
 * back and faulted again within a run comes from the guest's free lists still
 * backed, ~0.13 ms a MB to clear; what is slow is memory the process never
 * held, about its peak (docs/performance.md, lead32). Not kept.) A per-component
 * bound (cached + live big blocks <= their own past maximum) was not
 * enough: it keeps the big blocks at their maximum while the malloc'd
 * memory peaks at another moment (the retail sweep's peak RSS rose 13 MB
 * with it). */
static pthread_mutex_t big_mu = PTHREAD_MUTEX_INITIALIZER;
static big_block live[LIVE_MAX];
static size_t nlive;
static big_block cache[CACHE_MAX]; /* oldest first */
static size_t ncache;
static size_t live_bytes, live_used, cached_bytes, cached_res, peak;
static size_t live_pad; /* the live blocks' pad: what rounding may still add to the resident size */
static size_t cache_limit = BIG_CAN_CACHE ? SIZE_MAX : 0;
static int mapping = BIG_CAN_MAP && !BIG_ASAN;
static int statm_fd = -2; /* -2: not opened yet, -1: cannot be read (no cache) */
/* A forked child (Criterion runs each test in one) must open its own statm: a handler run in
 * the child marks the inherited descriptor stale, where asking getpid() at every event cost
 * a system call each (~2 us on the VM of docs/performance.md, ~2,200 a retail sweep). */
static volatile int statm_stale;
static pthread_once_t statm_once = PTHREAD_ONCE_INIT;
static gc_big_stats counts; /* the event counters; the byte figures are the variables above */

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) & ~(to - 1);
}

#if BIG_CAN_MAP
static size_t page_bytes(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (size_t)ps : 4096;
}

/* Anonymous mapping of len bytes starting on a 2 MiB boundary (a huge page
 * can back a 2 MiB range only if it lies whole in the mapping). The length
 * is the caller's (map_len_locked decides whether a tail past the last
 * boundary is rounded up to a huge page or stays in 4 KiB pages). NULL on
 * failure. */
static uint8_t *map_aligned(size_t len, int prot)
{
    if (len > SIZE_MAX - HUGE_BYTES)
        return NULL;
    size_t span = len + HUGE_BYTES;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
    if (prot == PROT_NONE)
        flags |= MAP_NORESERVE;
#endif
    uint8_t *r = mmap(NULL, span, prot, flags, -1, 0);
    if (r == MAP_FAILED)
        return NULL;
    uintptr_t lo = (uintptr_t)r, a = (lo + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
    if (a > lo)
        munmap(r, a - lo);
    if (lo + span > a + len)
        munmap((void *)(a + len), lo + span - (a + len));
    return (uint8_t *)a;
}

static void advise_huge(uint8_t *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    (void)madvise(p, len, MADV_HUGEPAGE); /* a hint: refused, it is 4 KiB pages */
#else
    (void)p;
    (void)len;
#endif
}

static uint8_t *map_fresh(size_t len)
{
    uint8_t *p = map_aligned(len, PROT_READ | PROT_WRITE);
    if (p)
        advise_huge(p, len);
    return p;
}

#if BIG_CAN_MREMAP
/* Moves the pages of [from, from + n) to [to, to + n) (to reserved or mapped; both 2 MiB-aligned)
 * one kernel mapping at a time, and returns the bytes moved (n unless a move failed). A block
 * that gave pages to the cache (donate_locked) or took some from it (fill_holes) is several
 * kernel mappings, and one mremap moves one mapping only. Pieces are whole 2 MiB (a huge page
 * moves whole) or, within 2 MiB where a mapping ends (a growth in place at an unaligned size),
 * single pages. */
static size_t move_range(uint8_t *from, uint8_t *to, size_t n)
{
    size_t page = page_bytes(), off = 0;
    while (off < n) {
        size_t k = n - off < HUGE_BYTES ? n - off : HUGE_BYTES;
        if (mremap(from + off, k, k, MREMAP_MAYMOVE | MREMAP_FIXED, to + off) != MAP_FAILED) {
            off += k;
            continue;
        }
        for (size_t j = 0; j < k; j += page, off += page)
            if (mremap(from + off, page, page, MREMAP_MAYMOVE | MREMAP_FIXED, to + off) ==
                MAP_FAILED)
                return off;
    }
    return off;
}
#endif

/* Grow the mapping p from old to len bytes (page multiples, old < len),
 * keeping its first old bytes if keep: in place if the address space after
 * it is free, else by moving the page tables to a 2 MiB-aligned reservation
 * (mremap: no byte is copied, resident pages stay resident, huge pages stay
 * whole), else by mapping anew and copying. A block of several kernel
 * mappings (move_range) grows in place by a mapping of its own after it, or
 * moves a mapping at a time. NULL on failure, p then unchanged. *how: 0 in
 * place, 1 moved, 2 copied. */
static uint8_t *grow_map(uint8_t *p, size_t old, size_t len, int keep, int *how)
{
    *how = 0;
#if BIG_CAN_MREMAP
    if (mremap(p, old, len, 0) != MAP_FAILED) {
        advise_huge(p, len);
        return p;
    }
#ifdef MAP_FIXED_NOREPLACE
    /* several kernel mappings (see move_range), with free address space after them: grown in
     * place by one more */
    void *t = mmap(p + old, len - old, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (t == p + old) {
        advise_huge(p, len);
        return p;
    }
    if (t != MAP_FAILED) /* a kernel before 4.17 took the address as a hint */
        munmap(t, len - old);
#endif
    uint8_t *r = map_aligned(len, PROT_NONE);
    if (r) {
        if (mremap(p, old, len, MREMAP_MAYMOVE | MREMAP_FIXED, r) != MAP_FAILED) {
            advise_huge(r, len);
            *how = 1;
            return r;
        }
        /* several kernel mappings: the new part mapped first (in the reservation: ours), then
         * the pages moved a mapping at a time. A move that fails leaves the rest to be copied
         * (nothing is moved back: a range a move vacated may be another thread's by now). */
        if (mmap(r + old, len - old, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            size_t moved = move_range(p, r, old);
            if (moved == old) {
                advise_huge(r, len);
                *how = 1;
                return r;
            }
            if (mmap(r + moved, old - moved, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
                abort(); /* the block is now in two places, and p's first part may be gone */
            if (keep)
                memcpy(r + moved, p + moved, old - moved);
            munmap(p + moved, old - moved);
            advise_huge(r, len);
            *how = 2;
            return r;
        }
        munmap(r, len);
    }
#endif
    uint8_t *q = map_fresh(len);
    if (!q)
        return NULL;
    if (keep)
        memcpy(q, p, old);
    munmap(p, old);
    *how = 2;
    return q;
}
#endif

#if BIG_CAN_CACHE
/* Bytes of [p, p + len) resident now (a range that cannot be asked counts
 * whole: the figure is an upper bound). */
static size_t resident_bytes(const uint8_t *p, size_t len)
{
    size_t page = page_bytes(), total = 0;
    unsigned char vec[1024];
    for (size_t off = 0; off < len;) {
        size_t n = len - off < sizeof vec * page ? len - off : sizeof vec * page;
        size_t pages = (n + page - 1) / page;
        if (mincore((void *)(p + off), n, vec) != 0) {
            total += pages * page;
        } else {
            for (size_t i = 0; i < pages; i++)
                total += (vec[i] & 1) * page;
        }
        off += n;
    }
    return total;
}

static void statm_after_fork(void)
{
    statm_stale = 1;
}

static void statm_watch_forks(void)
{
    (void)pthread_atfork(NULL, NULL, statm_after_fork);
}

/* The process's resident bytes, or 0 when they cannot be read (lock held;
 * the file stays open: one pread per event, ~3 us). */
static size_t process_resident_locked(void)
{
    if (statm_stale) {
        if (statm_fd >= 0)
            close(statm_fd);
        statm_fd = -2;
        statm_stale = 0;
    }
    if (statm_fd == -2) {
        /* registered before the first open: a fork after it marks the descriptor stale */
        pthread_once(&statm_once, statm_watch_forks);
        statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    }
    if (statm_fd < 0)
        return 0;
    char buf[96];
    ssize_t n = pread(statm_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* "size resident shared ...", in pages */
    char *end;
    (void)strtoull(buf, &end, 10);
    unsigned long long pages = strtoull(end, NULL, 10);
    return (size_t)pages * page_bytes();
}
#endif

/* The length to map for a block of len bytes (page-rounded), lock held.
 * A block's tail past its last 2 MiB boundary is 4 KiB pages, one fault
 * each as it is written (~12 us on the VM of docs/performance.md, against
 * 0.13-3 ms for a whole 2 MiB huge page, 512 times the bytes), and a
 * block grown or cut later keeps those pages: a row table
 * that starts under 2 MiB and doubles stays in 4 KiB pages in its first
 * 2 MiB for as long as it is mapped. Mapping the tail as a whole huge page
 * instead makes up to 2 MiB - 4 KiB resident that nobody asked for, so it
 * is done only while the process is that much below the most it has held
 * (`peak`, the cache's bound, less its margin), counting the rounding of
 * every live block as resident already (its tail may not be written yet);
 * the spare counts as the cache does in that bound, so rounding never
 * raises the peak; it uses the headroom the largest levels leave for the
 * others (issue 10's
 * bench_decode: 14,600 -> ~3,000 faults a pass). */
static size_t map_len_locked(size_t len)
{
#if BIG_CAN_CACHE
    size_t tail = len & (HUGE_BYTES - 1);
    if (!tail || len > SIZE_MAX - HUGE_BYTES)
        return len;
    size_t r = process_resident_locked();
    size_t margin = peak / 32 < MARGIN_MAX ? peak / 32 : MARGIN_MAX;
    if (r == 0 || r + live_pad + (HUGE_BYTES - tail) + margin > peak)
        return len;
    return round_up(len, HUGE_BYTES);
#else
    return len;
#endif
}

static size_t find_live(const void *p)
{
    for (size_t i = 0; i < nlive; i++)
        if (live[i].p == p)
            return i;
    return (size_t)-1;
}

static void cache_remove_locked(size_t i)
{
    cached_bytes -= cache[i].len;
    cached_res -= cache[i].res;
    memmove(cache + i, cache + i + 1, (ncache - i - 1) * sizeof *cache);
    ncache--;
}

/* Append b to the cache (lock held; the caller made room). */
static void cache_add_locked(const big_block *b)
{
    cache[ncache++] = *b;
    cached_bytes += b->len;
    cached_res += b->res;
}

/* An event: measure, and take cached blocks out, oldest first, until the
 * bound holds (see `peak`) and the cache limit too; they go to out[]
 * (CACHE_MAX) to be unmapped after the lock is released. Lock held. */
static size_t evict_locked(big_block *out)
{
    size_t n = 0;
#if BIG_CAN_CACHE
    size_t r = ncache || cache_limit ? process_resident_locked() : 0;
    size_t extra = cached_res + (live_bytes - live_used);
    if (r > extra && r - extra > peak)
        peak = r - extra;
    size_t margin = peak / 32 < MARGIN_MAX ? peak / 32 : MARGIN_MAX;
    while (ncache && (r == 0 || r > peak - margin || cached_res > cache_limit)) {
        r -= r > cache[0].res ? cache[0].res : r;
        counts.evicted_bytes += cache[0].res;
        out[n++] = cache[0];
        cache_remove_locked(0);
        counts.evictions++;
    }
#else
    (void)out;
#endif
    return n;
}

static void unmap_all(const big_block *b, size_t n)
{
#if BIG_CAN_MAP
    for (size_t i = 0; i < n; i++)
        munmap(b[i].p, b[i].len);
#else
    (void)b;
    (void)n;
#endif
}

/* Register a mapped block as live (lock held); false when the table is full. */
static bool add_live_locked(const big_block *b)
{
    if (nlive == LIVE_MAX)
        return false;
    live[nlive++] = *b;
    live_bytes += b->len;
    live_used += b->used;
    live_pad += b->pad;
    return true;
}

#if BIG_CAN_MREMAP && BIG_CAN_CACHE
/* The pages a discard gives up are moved, not freed: the whole huge pages [lo, lo + len) of a
 * live mapped block (lo 2 MiB-aligned, len a multiple of 2 MiB) become a cached block of their
 * own, at a new address, with their pages resident, and the block gets empty pages in their
 * place (they read as zeros, as after MADV_DONTNEED). Why: a discarded page was given back and
 * the next block to use that memory had it cleared again by the kernel. A level's compressed
 * core_data (9-17 MB) and its class geometry (up to 26 MB) were discarded for the peak and
 * cleared again for the next level's file and core_data, ~690 MB a retail sweep, 11% of its
 * CPU profile in clear_page_erms (docs/performance.md, lead31); fill_holes moves the cached
 * pages into those blocks instead. The cache's bound (evict_locked) still holds: the pages
 * count as cached, and are unmapped, oldest first, while the process is above its peak.
 * Lock held; false when it cannot be done (the caller then discards as before). */
static bool donate_locked(uint8_t *lo, size_t len)
{
#ifdef MREMAP_DONTUNMAP
    if (cache_limit < len || ncache == CACHE_MAX || statm_fd == -1)
        return false;
    uint8_t *r = map_aligned(len, PROT_NONE);
    if (!r)
        return false;
    /* The pages move to r and the block's range stays mapped, empty (Linux 5.7+; refused
     * before, and the caller discards). Never unmapped, not even between two calls: another
     * thread's mmap (malloc's, a thread stack's) may take any range that is free for a moment,
     * and a MAP_FIXED mapping put back there would replace it (a first version moved the pages
     * out and mapped the range again). */
    if (mremap(lo, len, len, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, r) == MAP_FAILED) {
        munmap(r, len);
        return false;
    }
    big_block c;
    memset(&c, 0, sizeof c);
    c.p = c.origin = r;
    c.len = len;
    c.res = resident_bytes(r, len);
    c.whole = c.res == len;
    cache_add_locked(&c);
    counts.donated_bytes += len;
    return true;
#else
    (void)lo;
    (void)len;
    return false;
#endif
}

/* Gives the empty 2 MiB pages of [p, p + len) (p 2 MiB-aligned: a mapped block's start; only
 * pages wholly inside the range) huge pages of whole cached blocks, moved from their ends by
 * mremap (the page tables move, no byte is written), oldest cached block first: they would be
 * evicted first. A page with any resident part is left as it is. Returns the bytes moved; the
 * moved pages hold their last owner's bytes, like a recycled block. Lock not held. */
static size_t fill_holes(uint8_t *p, size_t len)
{
    size_t page = page_bytes(), per = HUGE_BYTES / page, moved = 0;
    if (per > 512 || len < HUGE_BYTES)
        return 0;
    for (size_t at = 0; at + HUGE_BYTES <= len;) {
        /* up to 32 empty huge pages, found with mincore (per 4 KiB page) */
        uint8_t *dst[32], *src[32];
        size_t nh = 0;
        unsigned char vec[512];
        for (; at + HUGE_BYTES <= len && nh < 32; at += HUGE_BYTES) {
            if (mincore(p + at, HUGE_BYTES, vec) != 0)
                return moved;
            size_t k = 0;
            while (k < per && !(vec[k] & 1))
                k++;
            if (k == per)
                dst[nh++] = p + at;
        }
        if (!nh)
            continue;
        size_t ns = 0;
        pthread_mutex_lock(&big_mu);
        for (size_t i = 0; i < ncache && ns < nh;) {
            big_block *c = &cache[i];
            if (!c->whole) {
                i++;
                continue;
            }
            src[ns++] = c->p + c->len - HUGE_BYTES;
            c->len -= HUGE_BYTES;
            c->res -= HUGE_BYTES;
            cached_bytes -= HUGE_BYTES;
            cached_res -= HUGE_BYTES;
            if (c->len == 0)
                cache_remove_locked(i); /* the next block moves into i */
        }
        pthread_mutex_unlock(&big_mu);
        /* the pages taken are no longer the cache's: nobody else can reach them */
        for (size_t k = 0; k < ns; k++) {
            if (mremap(src[k], HUGE_BYTES, HUGE_BYTES, MREMAP_MAYMOVE | MREMAP_FIXED, dst[k]) ==
                MAP_FAILED) {
                munmap(src[k], HUGE_BYTES); /* the hole stays: faulted or populated as before */
                continue;
            }
            moved += HUGE_BYTES;
        }
        if (ns < nh)
            break; /* no whole cached block left */
    }
    if (moved) {
        pthread_mutex_lock(&big_mu);
        counts.moved_bytes += moved;
        pthread_mutex_unlock(&big_mu);
    }
    return moved;
}
#else
static inline size_t fill_holes(uint8_t *p, size_t len)
{
    (void)p;
    (void)len;
    return 0;
}
#endif

/* A mapped block of n bytes, or NULL (the caller then uses malloc).
 * *fresh: its bytes are zero (a new mapping), else recycled. populate:
 * fault its pages in now, after taking cached huge pages into its empty
 * ones (fill_holes). */
static uint8_t *big_map(size_t n, bool *fresh, bool populate)
{
#if BIG_CAN_MAP
    size_t page = page_bytes();
    if (n > SIZE_MAX - 2 * HUGE_BYTES)
        return NULL;
    size_t len = round_up(n, page);
    /* From the cache: the smallest block that holds len, whole, or cut at
     * the first 2 MiB boundary past len when at least 2 MiB would be left
     * (the rest stays cached; no system call, no huge page split). With
     * none, the largest smaller one, grown. Cutting and handing out whole
     * keep the cached pages resident: shrinking a block to each request and
     * growing another later (sizes differ from level to level) gave pages
     * back and faulted new ones in. */
    big_block b;
    memset(&b, 0, sizeof b);
    bool grow = false;
    pthread_mutex_lock(&big_mu);
    size_t fit = (size_t)-1, under = (size_t)-1;
    for (size_t i = 0; i < ncache; i++) {
        if (cache[i].len >= len) {
            if (fit == (size_t)-1 || cache[i].len < cache[fit].len)
                fit = i;
        } else if (under == (size_t)-1 || cache[i].len > cache[under].len) {
            under = i;
        }
    }
    /* what a mapping or growth would be (a cached block that fits is handed out as it is) */
    size_t maplen = fit == (size_t)-1 ? map_len_locked(len) : len;
    if (fit != (size_t)-1) {
        b = cache[fit];
        cache_remove_locked(fit);
        size_t cut = round_up(len, HUGE_BYTES);
        if (b.len >= cut + HUGE_BYTES) {
            big_block tail = b;
            tail.p = b.p + cut;
            tail.len = b.len - cut;
#if BIG_CAN_CACHE
            tail.res = resident_bytes(tail.p, tail.len);
            tail.whole = tail.res == tail.len && tail.len % HUGE_BYTES == 0;
#endif
            cache_add_locked(&tail);
            b.len = cut;
            counts.splits++;
        }
    } else if (under != (size_t)-1) {
        b = cache[under];
        cache_remove_locked(under);
        grow = true;
    }
    pthread_mutex_unlock(&big_mu);

    *fresh = b.p == NULL;
    bool rounded = false; /* mapped or grown here to maplen > len */
    size_t newspace = 0;  /* address space new to the process: its pages are fresh */
    if (grow) {
        int how;
        uint8_t *q = grow_map(b.p, b.len, maplen, 0, &how);
        if (q) {
            newspace = maplen - b.len;
            if (q != b.p)
                b.origin = q;
            b.p = q;
            b.len = maplen;
            rounded = maplen != len;
        } else {
            munmap(b.p, b.len);
            memset(&b, 0, sizeof b);
            *fresh = true;
        }
    }
    if (!b.p) {
        b.p = b.origin = map_fresh(maplen);
        b.len = maplen;
        rounded = maplen != len;
        newspace = maplen;
    }
    if (!b.p)
        return NULL;
    b.used = len;
    b.pad = rounded ? maplen - len : 0;
    b.res = 0;
    b.moving = false;
    b.whole = false;
    /* A block about to be written whole takes cached huge pages into its empty ones (not
     * cleared). Other blocks do not: a row table's capacity may stay unused, and pages moved
     * there would be missing for the next blocks (bench_decode: 6,193 -> 12,240 faults a
     * pass when every block took them); and calloc's must be zero. */
    if (populate) {
        size_t span = round_up(b.used, HUGE_BYTES);
        if (fill_holes(b.p, span < b.len ? span : b.len))
            *fresh = false;
    }
#if BIG_CAN_POPULATE
    /* One call faults in every page not yet resident, instead of one
     * exception per 4 KiB page as the caller writes (on the 2-vCPU VM of
     * docs/performance.md ~18 us each, ~10 us populated). A kernel before
     * 5.14 refuses, and the pages fault as they are written. */
    /* What the kernel is about to clear (a figure of --timings): the
     * pages of a fresh mapping, or those a discard, an eviction or a
     * shrink gave back from the block before it was cached. */
    size_t cleared = 0;
    if (populate) {
#if BIG_CAN_CACHE
        cleared = *fresh ? b.used : b.used - resident_bytes(b.p, b.used);
#else
        cleared = b.used;
#endif
        (void)madvise(b.p, b.used, MADV_POPULATE_WRITE);
    }
#else
    (void)populate;
    size_t cleared = 0;
#endif

    big_block ev[CACHE_MAX];
    pthread_mutex_lock(&big_mu);
    bool ok = add_live_locked(&b);
    counts.populated_cleared_bytes += cleared;
    if (ok)
        counts.mapped_bytes += newspace;
    if (ok && rounded)
        counts.rounded++;
    if (ok) {
        if (*fresh)
            counts.maps++;
        else
            counts.reuses++;
    }
    size_t nev = evict_locked(ev);
    pthread_mutex_unlock(&big_mu);
    unmap_all(ev, nev);
    if (!ok) {
        munmap(b.p, b.len);
        return NULL;
    }
    return b.p;
#else
    (void)n;
    (void)fresh;
    (void)populate;
    return NULL;
#endif
}

static bool want_map(size_t n)
{
    if (n < GC_BIG_MIN_BYTES)
        return false;
    pthread_mutex_lock(&big_mu);
    bool on = mapping != 0;
    pthread_mutex_unlock(&big_mu);
    return on;
}

static void *big_alloc(size_t n, bool populate)
{
    if (n == 0)
        n = 1;
    bool fresh;
    void *p = want_map(n) ? big_map(n, &fresh, populate) : NULL;
    return p ? p : malloc(n);
}

void *gc_big_alloc(size_t n)
{
    return big_alloc(n, false);
}

void *gc_big_alloc_populated(size_t n)
{
    return big_alloc(n, true);
}

void *gc_big_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t n = count * size;
    if (n == 0)
        n = 1;
    bool fresh = false;
    void *p = want_map(n) ? big_map(n, &fresh, false) : NULL;
    if (!p)
        return calloc(1, n);
    if (!fresh) /* a recycled block holds its last owner's bytes */
        memset(p, 0, n);
    return p;
}

/* A mapped block starts on a 2 MiB boundary; malloc's blocks (16 bytes
 * past a chunk header) practically never do, and are freed without the
 * lock. One that does is looked up and not found. */
static bool maybe_mapped(const void *p)
{
    return ((uintptr_t)p & (HUGE_BYTES - 1)) == 0;
}

void gc_big_free(void *p)
{
    if (!p)
        return;
    if (!maybe_mapped(p)) {
        free(p);
        return;
    }
    big_block out[2 * CACHE_MAX + 1];
    size_t n = 0;
    pthread_mutex_lock(&big_mu);
    size_t i = find_live(p);
    if (i == (size_t)-1) {
        pthread_mutex_unlock(&big_mu);
        free(p);
        return;
    }
    n += evict_locked(out); /* measured before the free lowers what is live */
    big_block b = live[i];
    live[i] = live[--nlive];
    live_bytes -= b.len;
    live_used -= b.used;
    live_pad -= b.pad;
    b.pad = 0;
    bool keep = false;
#if BIG_CAN_CACHE
    if (cache_limit > 0 && statm_fd != -1) {
        b.res = resident_bytes(b.p, b.len);
        b.whole = b.res == b.len && b.len % HUGE_BYTES == 0;
        keep = b.res <= cache_limit;
    }
#endif
    if (keep) {
        if (ncache == CACHE_MAX) {
            counts.evicted_bytes += cache[0].res;
            out[n++] = cache[0];
            cache_remove_locked(0);
            counts.evictions++;
        }
        cache_add_locked(&b);
    } else {
        out[n++] = b;
    }
    n += evict_locked(out + n);
    pthread_mutex_unlock(&big_mu);
    unmap_all(out, n);
}

void *gc_big_realloc(void *p, size_t old_n, size_t n)
{
    if (!p)
        return gc_big_alloc(n);
    if (n == 0)
        n = 1;
    size_t used_old = 0;
    if (maybe_mapped(p)) {
        pthread_mutex_lock(&big_mu);
        size_t i = find_live(p);
        if (i != (size_t)-1)
            used_old = live[i].used;
        pthread_mutex_unlock(&big_mu);
    }
    if (!used_old) { /* malloc's block */
        if (!want_map(n))
            return realloc(p, n);
        void *q = gc_big_alloc(n);
        if (!q)
            return NULL;
        memcpy(q, p, old_n < n ? old_n : n);
        free(p);
        return q;
    }
#if BIG_CAN_MAP
    if (!want_map(n)) { /* shrunk below the mapped sizes, or mapping turned off */
        void *q = malloc(n);
        if (!q)
            return NULL;
        memcpy(q, p, n < used_old ? n : used_old);
        gc_big_free(p);
        return q;
    }
    size_t page = page_bytes();
    if (n > SIZE_MAX - 2 * HUGE_BYTES)
        return NULL;
    size_t len = round_up(n, page);
    big_block ev[CACHE_MAX];
    size_t nev = 0;
    pthread_mutex_lock(&big_mu);
    size_t i = find_live(p);
    big_block *b = &live[i];
    if (len < b->used) {
        /* A shrink: the caller gives back what it does not need (the slack
         * of a row table). Unmapped at once, spare capacity included, but
         * only from the 2 MiB boundary past the new size when the range up
         * to it may be a huge page: cutting a huge page splits it into 512
         * page-table entries, and on the VM of docs/performance.md touching
         * the 4 KiB pages of a split huge page again costs ~4 ms (each
         * entry is faulted into the hypervisor's tables anew). The partly
         * used huge page was resident whole already. (Caching what goes,
         * 70-95 MB of resident pages a retail sweep, saved 5-10 of its huge
         * pages and doubled bench_decode's faults: not kept, lead32.) */
        size_t cut = round_up(len, HUGE_BYTES) <= b->len ? round_up(len, HUGE_BYTES) : len;
        uint8_t *tail = b->p + cut;
        size_t tail_len = b->len - cut;
        nev = evict_locked(ev); /* measured before what the shrink gives back */
        live_bytes -= tail_len;
        live_used = live_used - b->used + len;
        live_pad -= b->pad; /* what is left of it is in the huge page written up to len */
        b->pad = 0;
        b->len = cut;
        b->used = len;
        pthread_mutex_unlock(&big_mu);
        if (tail_len)
            munmap(tail, tail_len);
        unmap_all(ev, nev);
        return p;
    }
    if (len > b->len) {
        /* Past the capacity: first take back the cached block cut from
         * this one's own mapping right after it, if there is one. */
        for (size_t k = 0; k < ncache; k++)
            if (cache[k].p == b->p + b->len && cache[k].origin == b->origin) {
                live_bytes += cache[k].len;
                b->len += cache[k].len;
                cache_remove_locked(k);
                counts.rejoins++;
                break;
            }
    }
    if (len <= b->len) { /* within the capacity: nothing to map */
        live_used = live_used - b->used + len;
        b->used = len;
        if (b->pad > b->len - len) {
            live_pad -= b->pad - (b->len - len);
            b->pad = b->len - len;
        }
        nev = evict_locked(ev);
        pthread_mutex_unlock(&big_mu);
        unmap_all(ev, nev);
        return p;
    }
    /* While the pages move, the entry is keyed by a token of this call (an
     * address on its stack, never a block's): once p's range is unmapped,
     * another thread may map a new block at p and register it. */
    char token;
    size_t have = b->len;
    size_t maplen = map_len_locked(len);
    b->p = (uint8_t *)&token;
    b->moving = true;
    pthread_mutex_unlock(&big_mu);
    int how = 0;
    uint8_t *q = grow_map(p, have, maplen, 1, &how);
    pthread_mutex_lock(&big_mu);
    i = find_live(&token);
    b = &live[i];
    b->p = q ? q : (uint8_t *)p;
    b->moving = false;
    if (q) {
        if (q != p)
            b->origin = q;
        live_bytes = live_bytes - have + maplen;
        live_used = live_used - b->used + len;
        b->len = maplen;
        b->used = len;
        live_pad = live_pad - b->pad + (maplen - len);
        b->pad = maplen - len;
        if (maplen != len)
            counts.rounded++;
        how == 0 ? counts.grows_in_place++ : how == 1 ? counts.moves++ : counts.copies++;
        counts.mapped_bytes += maplen - have;
        nev = evict_locked(ev);
    }
    pthread_mutex_unlock(&big_mu);
    unmap_all(ev, nev);
    return q;
#else
    (void)old_n;
    return NULL; /* unreachable: nothing is mapped */
#endif
}

size_t gc_big_discard(void *block, const void *p, size_t n)
{
#if BIG_CAN_CACHE
    size_t page = page_bytes();
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);
    if (!block || !p || hi <= lo)
        return 0;
    big_block ev[2 * CACHE_MAX + 1];
    size_t nev = 0;
    pthread_mutex_lock(&big_mu);
    size_t i = maybe_mapped(block) ? find_live(block) : (size_t)-1;
    if (i != (size_t)-1) {
        /* In a mapped block only whole huge pages go (a huge page cut in
         * two is split, and its other part costs ~4 ms when next touched;
         * see gc_big_realloc), except in the 4 KiB tail past its last
         * 2 MiB boundary, where there is no huge page to split. */
        uintptr_t base = (uintptr_t)live[i].p;
        uintptr_t tail = base + (live[i].len & ~(HUGE_BYTES - 1));
        uintptr_t lo2 = (lo + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
        if (lo2 > tail)
            lo2 = lo > tail ? lo : tail;
        hi = hi > tail ? hi : hi & ~(uintptr_t)(HUGE_BYTES - 1);
        lo = lo2;
        nev = evict_locked(ev); /* measured before what the discard gives back */
    }
    int rc = hi > lo ? 0 : -1;
    uintptr_t dhi = lo; /* [lo, dhi): given to the cache */
#if BIG_CAN_MREMAP
    /* The whole huge pages of a mapped block go to the cache (donate_locked), not to the
     * kernel; a 4 KiB tail past them is given back as before. */
    if (i != (size_t)-1 && (lo & (HUGE_BYTES - 1)) == 0) {
        uintptr_t top = hi & ~(uintptr_t)(HUGE_BYTES - 1);
        if (top > lo) {
            if (ncache == CACHE_MAX) { /* room for it: the oldest goes */
                counts.evicted_bytes += cache[0].res;
                ev[nev++] = cache[0];
                cache_remove_locked(0);
                counts.evictions++;
            }
            if (donate_locked((uint8_t *)lo, top - lo)) {
                dhi = top;
                nev += evict_locked(ev + nev); /* the bound, the pages now counted as cached */
            }
        }
    }
#endif
    if (rc == 0 && hi > dhi)
        rc = madvise((void *)dhi, hi - dhi, MADV_DONTNEED);
    pthread_mutex_unlock(&big_mu);
    unmap_all(ev, nev);
    return rc == 0 ? hi - lo : 0;
#else
    (void)block;
    (void)p;
    (void)n;
    return 0;
#endif
}

void gc_big_trim(void)
{
    big_block out[CACHE_MAX];
    pthread_mutex_lock(&big_mu);
    size_t n = ncache;
    memcpy(out, cache, n * sizeof *cache);
    ncache = 0;
    cached_bytes = 0;
    cached_res = 0;
    pthread_mutex_unlock(&big_mu);
    unmap_all(out, n);
}

void gc_big_stats_get(gc_big_stats *out)
{
    pthread_mutex_lock(&big_mu);
    *out = counts;
    out->live_bytes = live_bytes;
    out->spare_bytes = live_bytes - live_used;
    out->cached_bytes = cached_bytes;
    out->cached_resident_bytes = cached_res;
    out->peak_without_cache_bytes = peak;
    pthread_mutex_unlock(&big_mu);
}

void gc_big_set_mapping(int on)
{
    pthread_mutex_lock(&big_mu);
    mapping = BIG_CAN_MAP && on;
    pthread_mutex_unlock(&big_mu);
}

void gc_big_set_cache_limit(size_t bytes)
{
    big_block out[CACHE_MAX];
    pthread_mutex_lock(&big_mu);
    cache_limit = BIG_CAN_CACHE ? bytes : 0;
    size_t n = evict_locked(out);
    pthread_mutex_unlock(&big_mu);
    unmap_all(out, n);
}
