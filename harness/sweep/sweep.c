/* SPDX-License-Identifier: MIT */
/* The sweep. One pool task per level decodes it, evaluates the level-scope
 * invariants and metrics and renders its frames; each task writes only its
 * own slot. After the join, corpus-scope invariants run over every level's
 * tables, the results are merged in level order, and the baselines are
 * compared. Nothing in the report depends on --jobs or timing. */
#include "gc_grow.h"
#include "gc_sweep.h"

#include <fnmatch.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "gc_baseline.h"
#include "gc_bigmem.h"
#include "gc_column_store.h"
#include "gc_corpus.h"
#include "gc_corpus_id.h"
#include "gc_corpus_iso.h"
#include "gc_coverage.h"
#include "gc_digest.h"
#include "gc_exit.h"
#include "gc_fsutil.h"
#include "gc_inv.h"
#include "gc_level.h"
#include "gc_membudget.h"
#include "gc_paths.h"
#include "gc_pool.h"
#include "gc_progress.h"
#include "gc_sweep_frames.h"
#include "gc_sweep_samples.h"
#include "gc_sweep_tables.h"
#include "gc_texture.h"
#include "sy_corpus.h"

void gc_sweep_opts_init(gc_sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->scale = SY_SCALE_RETAIL;
    o->seed = 1;
    o->tier_nightly = 1;
    o->max_samples = 5;
}

void gc_sweep_default_paths(const char *key, char *metrics, size_t mlen, char *frames, size_t flen)
{
    const char *suffix = NULL;
    if (strcmp(key, "synthetic-retail-seed1") == 0)
        suffix = "";
    else if (strcmp(key, "synthetic-small-seed1") == 0)
        suffix = "-small";
    else if (strcmp(key, "synthetic-edge-seed1") == 0)
        suffix = "-edge";
    if (!suffix) {
        metrics[0] = frames[0] = '\0';
        return;
    }
    /* the installed share/gcverify, or the build tree's checkout (gc_paths.h) */
    char rel[64];
    snprintf(rel, sizeof rel, "golden/metrics%s.yaml", suffix);
    gc_data_path(metrics, mlen, rel);
    snprintf(rel, sizeof rel, "golden/frames%s.yaml", suffix);
    gc_data_path(frames, flen, rel);
}

int gc_parse_level_list(const char *s, int *levels, size_t *count)
{
    int mark[27] = {0};
    const char *p = s;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10);
        if (end == p || a < 0 || a > 26)
            return -1;
        long b = a;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a || b > 26)
                return -1;
            p = end;
        }
        for (long i = a; i <= b; i++)
            mark[i] = 1;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    *count = 0;
    for (int i = 0; i < 27; i++)
        if (mark[i])
            levels[(*count)++] = i;
    return *count ? 0 : -1;
}

typedef struct level_slot {
    int level;
    gc_corpus_file *file;
    gc_level lv;
    int lv_ready;
    gc_table *tables;
    gc_inv_result *results; /* per invariant (level scope ones used) */
    double *inv_time;       /* per invariant: thread CPU seconds of its evaluation */
    double *metric_values;
    int *metric_null;
    gc_sweep_level_frames frames;
    int oom;
    gc_memacct acct;                   /* this level's share of the memory budget */
    size_t file_charged;               /* of acct: the file's bytes still held */
    double t_decode, t_eval, t_render; /* thread CPU seconds */
    int worker;                        /* pool worker that ran it (--timings) */
    double w_start, w_eval_end, w_end; /* wall seconds from the pool's start */
    gc_rep_digest *digests;            /* every column's digest (gc_digest.h) */
    size_t digest_count;
    gc_rep_digest *table_digests; /* every fingerprinted table's digest (gc_digest.h) */
    size_t table_digest_count;
    size_t tables_reused; /* tables whose column digests were the baseline's */
    double t_digest;      /* thread CPU seconds of the digests (part of t_eval) */
    int store_failed;     /* a column snapshot could not be stored */
    int skipped;          /* left undone: reading the baseline failed (the sweep exits 2) */
    /* slot 0: its first view rendered again on another thread */
    char rerender_hex[GC_SWEEP_RERENDERS][65];
    int rerender_count;
} level_slot;

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct sweep_ctx sweep_ctx;

/* The baseline, read on a thread of its own while the first levels decode: nothing reads it
 * before a level's digests (the column digests it certifies), and a level decodes and
 * evaluates for far longer than the ~2 MB of YAML takes to read, so reading it is off the
 * sweep's critical path (it was most of the serial setup). Its corpus identity is checked
 * before anything is decoded all the same, from the file's header (gc_baseline_peek), and
 * again on what was loaded. A level waits for it before its digests (and before anything it
 * writes); when reading it fails, the levels stop and the sweep reports exactly the error it
 * reported when the baseline was read first. */
typedef struct baseline_job {
    sweep_ctx *c;
    const char *path, *shown_path; /* the file ("": none); as messages name it */
    const char *corpus_key, *corpus_id, *corpus_label; /* this corpus */
    int accept_mismatch;
    gc_baseline base; /* read (when found) */
    int found, mismatch_accepted;
    int rc; /* 0, or 2 with err */
    char err[8192];
    pthread_t thread;
    int threaded, joined;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done; /* under lock */
} baseline_job;

struct sweep_ctx {
    const gc_sweep_opts *o;
    gc_inv_set *set;
    int *selected_inv; /* per invariant: selected by tier/--only */
    size_t ninv, nmetric, ndesc;
    level_slot *slots;
    size_t nslots;
    int fault;
    const gc_sweep_frame_golden *golden;
    pthread_mutex_t lock;
    size_t done;
    int progress;
    double t0; /* wall clock at the start, for the progress line's elapsed and ETA */
    gc_membudget budget;
    char column_store[4096]; /* gc_column_store_dir() */
    const gc_table_desc *const *descs;
    bool *keep_corpus;           /* per table: read by a selected corpus-scope invariant */
    gc_rep_digest *base_digests; /* the baseline's, sorted (gc_digest_find); may be NULL */
    size_t base_digest_count;
    gc_rep_digest *base_tables; /* the baseline's table digests, sorted; may be NULL */
    size_t base_table_count;
    size_t *order; /* pool task -> slot: largest file first (NULL: slot order) */
    /* The process's peak RSS (getrusage) as each phase of each level ends,
     * and where it last rose (--timings; under lock). */
    size_t rss_peak;
    int rss_peak_level;
    double w_pool;   /* wall clock at the pool's start */
    int next_worker; /* worker numbers, in the order workers take their first level */
    const char *rss_peak_phase;
    baseline_job *bl; /* the baseline being read; NULL when there is none */
};

/* Read the baseline, check its corpus identity, and sort its digests for the levels to look
 * up: what the sweep did before decoding, in the same order, with the same messages. */
static void baseline_read(baseline_job *j)
{
    sweep_ctx *c = j->c;
    if (!j->path[0])
        return;
    if (gc_baseline_load(j->path, &j->base, &j->found, j->err, sizeof j->err) != 0) {
        j->rc = 2;
        return;
    }
    if (j->found) {
        /* keyed by corpus identity; a baseline written before identities
         * existed is keyed by the corpus key */
        int same = j->base.corpus_id[0] ? strcmp(j->base.corpus_id, j->corpus_id) == 0
                                        : strcmp(j->base.corpus_key, j->corpus_key) == 0;
        if (!same && !j->accept_mismatch) {
            snprintf(j->err, sizeof j->err,
                     "baseline %s was blessed for another corpus (%s %.16s), not this one "
                     "(%s %.16s, %s). If this is a modified copy of that corpus, "
                     "--accept-corpus-mismatch compares it anyway; otherwise bless a baseline "
                     "for it (gcverify bless --baseline NEW.yaml --reason \"...\")",
                     j->shown_path, j->base.corpus_key,
                     j->base.corpus_id[0] ? j->base.corpus_id : "(no id)", j->corpus_key,
                     j->corpus_id, j->corpus_label);
            gc_baseline_free(&j->base);
            j->found = 0;
            j->rc = 2;
            return;
        }
        j->mismatch_accepted = !same;
    }
    if (j->found && j->base.digest_count) {
        /* Sorted where it lies (a written baseline is sorted already: then nothing moves),
         * not copied: the array is 4.7 MB for the retail baseline, held through the run, and
         * nothing here reads it in file order (gc_digest_compare and gc_coverage_compute sort
         * what they read). */
        gc_digest_sort(j->base.digests, j->base.digest_count);
        c->base_digests = j->base.digests;
        c->base_digest_count = j->base.digest_count;
        if (j->base.table_digest_count) {
            c->base_tables =
                gc_digest_sorted_copy(j->base.table_digests, j->base.table_digest_count);
            c->base_table_count = c->base_tables ? j->base.table_digest_count : 0;
            if (!c->base_tables) {
                snprintf(j->err, sizeof j->err, "out of memory");
                j->rc = 2;
                return;
            }
        }
    }
}

/* What guards each decoded column: the loaded invariants and metrics, and the baseline's
 * column digests (none without a baseline: its columns are then guarded only by what the
 * invariants and metrics check). It needs nothing of the levels, and is wanted only in the
 * report: computed on a thread of its own while the main thread builds the report after the
 * levels, on the core that serial tail leaves idle (beside the levels it took that core's
 * time from them). */
typedef struct coverage_job {
    const gc_inv_set *set;
    const gc_rep_digest *digests;
    size_t ndigests;
    gc_rep_coverage coverage;
    int rc;
    pthread_t thread;
    int threaded;
} coverage_job;

static void *coverage_main(void *arg)
{
    coverage_job *j = arg;
    j->rc = gc_coverage_compute(j->set, j->digests, j->ndigests, NULL, NULL, &j->coverage);
    return NULL;
}

static void coverage_start(coverage_job *j)
{
    j->threaded = pthread_create(&j->thread, NULL, coverage_main, j) == 0;
    if (!j->threaded)
        coverage_main(j);
}

static void coverage_join(coverage_job *j)
{
    if (j->threaded) {
        pthread_join(j->thread, NULL);
        j->threaded = 0;
    }
}

/* malloc_trim, one call at a time. glibc initialises its allocator in the first call into it,
 * unlocked; with malloc replaced (AddressSanitizer's, in ci/sanitize.sh) the first calls into
 * glibc's allocator are these two, on the baseline thread and the main thread at once, and
 * racing there crashed a sanitized gcverify in mtrim (CI's test_harden, 2026-12-06). */
static void trim_heap(void)
{
    static pthread_mutex_t trim_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&trim_lock);
    malloc_trim(0);
    pthread_mutex_unlock(&trim_lock);
}

static void *baseline_thread(void *arg)
{
    baseline_job *j = arg;
    baseline_read(j);
    /* What reading it freed (the arrays' growth, the unsorted digests, qsort's buffer) lies
     * between what it keeps: give those pages back now, or they stay resident through the
     * levels (the sweep's malloc_trim ran before the pool, while this was still reading). */
    trim_heap();
    pthread_mutex_lock(&j->lock);
    j->done = 1;
    pthread_cond_broadcast(&j->cond);
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* A level's wait for the baseline (none: no wait); -1 when reading it failed. With block 0
 * it does not wait: -1 only when it is known to have failed already. */
static int baseline_wait(sweep_ctx *c, int block)
{
    baseline_job *j = c->bl;
    if (!j)
        return 0;
    pthread_mutex_lock(&j->lock);
    while (block && !j->done)
        pthread_cond_wait(&j->cond, &j->lock);
    int rc = j->done ? j->rc : 0;
    pthread_mutex_unlock(&j->lock);
    return rc ? -1 : 0;
}

/* The reading thread joined (once); its rc */
static int baseline_join(baseline_job *j)
{
    if (j->threaded && !j->joined) {
        pthread_join(j->thread, NULL);
        j->joined = 1;
    }
    return j->rc;
}

/* The process's peak resident set so far, in bytes (Linux: ru_maxrss in KiB). */
static size_t peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (size_t)ru.ru_maxrss * 1024u;
}

/* A phase of a level ended: if the process's peak rose, it rose in it (or
 * in the phase another level was in meanwhile: with --jobs 2 the figure
 * names one of the two). */
static void note_rss(sweep_ctx *c, int level, const char *phase)
{
    if (!c->o->timings)
        return;
    size_t r = peak_rss_bytes();
    pthread_mutex_lock(&c->lock);
    if (r > c->rss_peak) {
        c->rss_peak = r;
        c->rss_peak_level = level;
        c->rss_peak_phase = phase;
    }
    pthread_mutex_unlock(&c->lock);
}

static void progress_line(sweep_ctx *c, const level_slot *s)
{
    if (!c->progress)
        return;
    pthread_mutex_lock(&c->lock);
    c->done++;
    if (c->progress == 2) {
        gc_progress_draw(stderr, "sweep", "levels", c->done, c->nslots, wall_now() - c->t0,
                         s->file->name);
    } else {
        fprintf(stderr, "sweep: %zu/%zu %s %s\n", c->done, c->nslots, s->file->name,
                s->file->ok
                    ? (s->lv.first_error.status == GC_OK ? "decoded" : "decoded with errors")
                    : "missing");
    }
    fflush(stderr);
    pthread_mutex_unlock(&c->lock);
}

/* Undo a level that the memory budget stopped, so it can run again. */
static void reset_slot(sweep_ctx *c, level_slot *s)
{
    for (size_t k = 0; s->results && k < c->ninv; k++)
        gc_inv_result_free(&s->results[k]);
    free(s->results);
    free(s->tables);
    free(s->metric_values);
    free(s->metric_null);
    free(s->digests);
    gc_sweep_level_frames_free(&s->frames);
    if (s->lv_ready)
        gc_level_free(&s->lv);
    gc_corpus_file_unload(s->file);
    int level = s->level;
    gc_corpus_file *file = s->file;
    memset(s, 0, sizeof *s);
    s->level = level;
    s->file = file;
}

static size_t table_index(const sweep_ctx *c, const char *name)
{
    for (size_t t = 0; name && t < c->ndesc; t++)
        if (strcmp(c->descs[t]->name, name) == 0)
            return t;
    return (size_t)-1;
}

/* The table of a digest's "<table>.<column>" field (table names hold dots,
 * column names do not), or (size_t)-1. */
static size_t field_table(const sweep_ctx *c, const char *field)
{
    const char *dot = strrchr(field, '.');
    for (size_t t = 0; dot && t < c->ndesc; t++) {
        size_t n = strlen(c->descs[t]->name);
        if (n == (size_t)(dot - field) && strncmp(c->descs[t]->name, field, n) == 0)
            return t;
    }
    return (size_t)-1;
}

/* Once a level's invariants, metrics, digests and frames are done, all that
 * is read of it after the join is: the tables of the corpus-scope
 * invariants (and the corpus_tables of a shard's report), decode.status
 * (the report's decoder list), the table of each failure sample (its parent
 * row, in gc_sweep_annotate), and each table with a column whose digest
 * moved against the baseline (its rows, in gc_column_store_attribute).
 * Everything else is freed here, so the sweep's memory is one working set
 * per job plus those, not all 27 levels' tables (issue 18: 905 MB before).
 * A failed allocation here only keeps everything. */
/* Per table: still read after the level's worker (see trim_level), or NULL
 * (out of memory, or a level whose tables are not the registry's). */
static bool *keep_mask(sweep_ctx *c, level_slot *s)
{
    bool *keep = calloc(c->ndesc ? c->ndesc : 1, sizeof *keep);
    if (!keep || !s->lv_ready || s->lv.table_count != c->ndesc) {
        free(keep);
        return NULL;
    }
    for (size_t t = 0; t < c->ndesc; t++)
        keep[t] = c->keep_corpus[t] || c->descs[t] == &gc_table_decode_status;
    for (size_t k = 0; s->results && k < c->ninv; k++) {
        const gc_inv_info *info = gc_inv_get(c->set, k);
        if (!c->selected_inv[k] || info->scope != GC_SCOPE_LEVEL || !s->results[k].sample_count)
            continue;
        size_t t = table_index(c, info->table);
        if (t != (size_t)-1)
            keep[t] = true;
    }
    for (size_t d = 0; c->base_digests && d < s->digest_count; d++) {
        const gc_rep_digest *n = &s->digests[d];
        const gc_rep_digest *o =
            gc_digest_find(c->base_digests, c->base_digest_count, s->level, n->field);
        if (o && (o->rows != n->rows || strcmp(o->digest, n->digest) != 0)) {
            size_t t = field_table(c, n->field);
            if (t != (size_t)-1)
                keep[t] = true;
        }
    }
    return keep;
}

static void trim_level(sweep_ctx *c, level_slot *s)
{
    gc_corpus_file_unload(s->file);
    bool *keep = keep_mask(c, s);
    if (!keep)
        return;
    gc_level_drop_tables(&s->lv, keep);
    gc_level_tables(&s->lv, s->tables);
    free(keep);
}

/* Before the frames: the rows that neither the renderer nor anything after
 * the join reads (collision, lod, sound, data, ... 2.3 MB of LEVEL3) go
 * now, not after the frames: two levels render side by side at --jobs 2,
 * and that is the sweep's peak. */
static void trim_before_render(sweep_ctx *c, level_slot *s)
{
    bool *keep = keep_mask(c, s);
    if (!keep)
        return;
    for (size_t t = 0; t < c->ndesc; t++)
        keep[t] = keep[t] || gc_sweep_frames_reads_table(c->descs[t]->name);
    gc_level_drop_rows(&s->lv, keep);
    gc_level_tables(&s->lv, s->tables);
    free(keep);
}

typedef struct rerender_job {
    const gc_level *lv;
    const gc_sweep_opts *o;
    level_slot *s;
} rerender_job;

static void *rerender_main(void *v)
{
    rerender_job *j = v;
    j->s->rerender_count = gc_sweep_frames_rerender(j->lv, j->o, j->s->rerender_hex);
    return NULL;
}

/* The determinism check of the first level, while its tables are still
 * whole: rendered again on a thread of its own (a renderer that kept state
 * per thread, or read memory it never wrote, hashes differently there).
 * Without a thread the check is skipped, as with --no-determinism. */
static void rerender_on_other_thread(sweep_ctx *c, level_slot *s)
{
    rerender_job j = {&s->lv, c->o, s};
    pthread_t t;
    if (pthread_create(&t, NULL, rerender_main, &j) == 0)
        pthread_join(t, NULL);
}

/* gc_mem_hook.discard: the whole pages inside [p, p + n) of the level's file
 * buffer (ours, from gc_corpus_file_load) are never read again, so their
 * memory goes back to the kernel now (gc_big_discard; they would read as
 * zeros), while the level's tables are still growing: at --jobs 2 the two
 * largest levels decode side by side, and the compressed core_data is 17 of
 * LEVEL3's 25 MB. ctx is the level's gc_memacct (gc_mem_hook.ctx): the pages
 * given back leave its charge for the file, so a level waiting for budget
 * can start. */
static void discard_pages(void *ctx, const void *p, size_t n)
{
    level_slot *s = (level_slot *)((char *)ctx - offsetof(level_slot, acct));
    size_t freed = gc_big_discard((void *)s->file->data, p, n);
    if (freed > s->file_charged)
        freed = s->file_charged;
    s->file_charged -= freed;
    gc_memacct_release(&s->acct, freed);
}

/* The shared invariant passes' per-block hook (gc_inv_eval_level_many_with): each block of a
 * table's rows goes into its fingerprint while the pass has it in cache, so the digests that
 * follow find those tables fingerprinted and read none of their rows again. A table's
 * fingerprint starts at its first block. */
typedef struct fp_feed {
    const gc_table *tables;
    gc_digest_fp **fps; /* per table, NULL until its first block */
} fp_feed;

static void feed_fingerprint(void *ctx, size_t t, size_t first, size_t n)
{
    fp_feed *f = ctx;
    if (!f->fps[t] && first == 0)
        f->fps[t] = gc_digest_fp_new(&f->tables[t]); /* NULL: the digests compute it */
    gc_digest_fp_rows(f->fps[t], first, n);
}

/* One attempt at a level; 1 when the memory budget stopped it (to be run
 * again), 0 when done. */
static int run_level_once(sweep_ctx *c, level_slot *s, size_t i)
{
    gc_corpus_file *f = s->file;
    if (baseline_wait(c, 0) != 0) { /* the sweep is failing: decode nothing more */
        s->skipped = 1;
        return 0;
    }
    /* the file's bytes are the level's first charge: a level waits here
     * while the levels in flight hold the budget */
    if (f->ok && f->size > 0) {
        if (gc_memacct_charge(&s->acct, f->size) != 0) {
            if (s->acct.stopped)
                return 1;
            snprintf(f->error, sizeof f->error,
                     "%s: memory limit reached: the file's %zu bytes exceed the per-level cap of "
                     "%zu bytes (--level-memory-limit)",
                     f->name, f->size, c->budget.level_limit_bytes);
            f->ok = 0;
        } else if (gc_corpus_file_load(f) != 0) {
            gc_memacct_release(&s->acct, f->size);
        } else {
            s->file_charged = f->size;
        }
    }
    if (gc_level_init(&s->lv, s->level, f->name, f->ok ? f->data : NULL, f->ok ? f->size : 0) !=
        GC_OK) {
        s->oom = 1;
        return 0;
    }
    s->lv_ready = 1;
    s->lv.fault = c->fault;
    s->lv.mem.charge = gc_memacct_charge;
    s->lv.mem.release = gc_memacct_release;
    s->lv.mem.discard = discard_pages;
    s->lv.mem.ctx = &s->acct;
    double t0 = cpu_now();
    if (f->ok) {
        gc_level_decode(&s->lv);
        if (s->acct.stopped)
            return 1;
        /* Nothing after the decoders reads the container but the renderer's
         * few spans (gc_level_detach_file copies them): its bytes leave the
         * level's working set here, not after the frames. If the copy is
         * refused the file simply stays until trim_level. */
        if (gc_level_detach_file(&s->lv) == 0) {
            gc_corpus_file_unload(f);
            gc_memacct_release(&s->acct, s->file_charged);
            s->file_charged = 0;
        }
        if (s->acct.stopped)
            return 1;
    } else {
        /* A missing or unreadable file is that level's error row; the other
         * levels run on regardless. */
        gc_rowbuf *rb = gc_level_rows(&s->lv, &gc_table_decode_status);
        gc_decode_status_row *row = gc_rows_push(rb);
        if (row) {
            snprintf(row->name, sizeof row->name, "load");
            row->status = GC_E_IO;
            snprintf(row->status_name, sizeof row->status_name, "%s", gc_status_name(GC_E_IO));
            snprintf(row->where, sizeof row->where, "%s", f->name);
            snprintf(row->message, sizeof row->message, "%s", f->error);
        }
    }
    note_rss(c, s->level, "decode");
    s->tables = calloc(c->ndesc, sizeof *s->tables);
    s->results = calloc(c->ninv ? c->ninv : 1, sizeof *s->results);
    s->inv_time = calloc(c->ninv ? c->ninv : 1, sizeof *s->inv_time);
    s->metric_values = calloc(c->nmetric ? c->nmetric : 1, sizeof *s->metric_values);
    s->metric_null = calloc(c->nmetric ? c->nmetric : 1, sizeof *s->metric_null);
    if (!s->tables || !s->results || !s->inv_time || !s->metric_values || !s->metric_null) {
        s->oom = 1;
        return 0;
    }
    gc_level_tables(&s->lv, s->tables);
    double t1 = cpu_now();
    /* every selected level-scope invariant at once: those on one table share one pass over
     * its rows (gc_inv_eval_level_many), results as one by one */
    size_t *idx = malloc((c->ninv ? c->ninv : 1) * sizeof *idx), nidx = 0;
    if (!idx) {
        s->oom = 1;
        return 0;
    }
    for (size_t k = 0; k < c->ninv; k++)
        if (c->selected_inv[k] && gc_inv_get(c->set, k)->scope == GC_SCOPE_LEVEL)
            idx[nidx++] = k;
    fp_feed feed = {s->tables, calloc(c->ndesc ? c->ndesc : 1, sizeof *feed.fps)};
    double t_fed = 0; /* CLOCK_MONOTONIC spent fingerprinting inside the passes */
    /* and the metrics in the same call: an aggregate that invariants and metrics share is
     * computed once, with the others over its table, while a shared pass reads it */
    if (gc_inv_eval_level_all(c->set, idx, nidx, s->tables, s->level, c->o->max_samples, s->results,
                              s->inv_time, feed.fps ? feed_fingerprint : NULL, &feed, &t_fed,
                              c->nmetric ? s->metric_values : NULL,
                              c->nmetric ? s->metric_null : NULL) != 0)
        s->oom = 1;
    free(idx);
    /* the digests need the baseline (and a level writes nothing before them) */
    if (baseline_wait(c, 1) != 0) {
        for (size_t t = 0; feed.fps && t < c->ndesc; t++)
            gc_digest_fp_free(feed.fps[t]);
        free(feed.fps);
        s->skipped = 1;
        return 0;
    }
    double td = cpu_now();
    /* the baseline's column digests are taken for a table its table digest
     * certifies, except when every column is to be stored (bless, --snapshots),
     * where they are all hashed from the rows themselves */
    int reuse = !c->o->store_columns && c->base_tables;
    if (gc_digest_tables_against_fp(s->tables, c->ndesc, s->level, reuse ? c->base_digests : NULL,
                                    reuse ? c->base_digest_count : 0, reuse ? c->base_tables : NULL,
                                    reuse ? c->base_table_count : 0, feed.fps, &s->digests,
                                    &s->digest_count, &s->table_digests, &s->table_digest_count,
                                    &s->tables_reused) != 0)
        s->oom = 1;
    for (size_t t = 0; feed.fps && t < c->ndesc; t++)
        gc_digest_fp_free(feed.fps[t]);
    free(feed.fps);
    /* a snapshot store that cannot be written costs the row attribution
     * only: warned about, never a failed sweep */
    if (c->o->store_columns &&
        gc_column_store_put_tables(c->column_store, s->tables, c->ndesc) != 0)
        s->store_failed = 1;
    double t2 = cpu_now();
    s->t_digest = t2 - td + t_fed; /* the fingerprints fed during the passes included */
    note_rss(c, s->level, "evaluate");
    s->w_eval_end = wall_now() - c->w_pool;
    /* The tables, digests and snapshots are done; what the renderer reads of
     * core_data is texels, through the texture API, never below the lowest
     * texture's pixels nor past the highest: the class geometry around them
     * (26 of LEVEL3's 29 MB: the texels lie at 5.2-8.4 MB) goes back now,
     * while the level renders (two levels render side by side at --jobs 2:
     * the sweep's peak). Whole huge pages only (gc_big_discard). */
    if (!c->o->no_frames)
        trim_before_render(c, s);
    if (!c->o->no_frames && s->lv.core_data) {
        size_t lo = gc_texture_pixels_lowest(&s->lv), end = gc_texture_pixels_end(&s->lv);
        size_t n = s->lv.core_data_size;
        if (end <= lo) /* no texel can be read: all of it goes */
            lo = end = n;
        size_t freed = gc_big_discard(s->lv.core_data, s->lv.core_data, lo) +
                       gc_big_discard(s->lv.core_data, s->lv.core_data + end, n - end);
        gc_level_mem_release(&s->lv, freed);
    }
    if (!c->o->no_frames)
        gc_sweep_render_level(&s->lv, c->o, c->golden, &s->frames);
    double t3 = cpu_now();
    note_rss(c, s->level, "render");
    s->t_decode = t1 - t0;
    s->t_eval = t2 - t1;
    s->t_render = t3 - t2;
    if (i == 0 && !c->o->no_frames && !c->o->skip_determinism)
        rerender_on_other_thread(c, s);
    trim_level(c, s);
    return 0;
}

static size_t slot_size(const sweep_ctx *c, size_t i)
{
    return c->slots[i].file->ok ? c->slots[i].file->size : 0;
}

/* Pool task p runs slot order[p]; the memory budget ages levels by p (the
 * order they were claimed in). */
static _Thread_local int worker_number = -1;

static void run_level(void *vctx, size_t p)
{
    sweep_ctx *c = vctx;
    size_t i = c->order ? c->order[p] : p;
    level_slot *s = &c->slots[i];
    double w0 = wall_now() - c->w_pool;
    for (int rerun = 0;; rerun = 1) {
        gc_memacct_begin(&c->budget, &s->acct, p, rerun);
        if (!run_level_once(c, s, i))
            break;
        gc_memacct_end(&s->acct);
        reset_slot(c, s);
    }
    /* the retained tables leave the budget: it bounds the levels in flight */
    gc_memacct_end(&s->acct);
    memset(&s->lv.mem, 0, sizeof s->lv.mem);
    pthread_mutex_lock(&c->lock);
    if (worker_number < 0)
        worker_number = c->next_worker++;
    pthread_mutex_unlock(&c->lock);
    s->worker = worker_number;
    s->w_start = w0;
    s->w_end = wall_now() - c->w_pool;
    if (!s->skipped)
        progress_line(c, s);
}

static const char *sev_name(gc_inv_severity s)
{
    return s == GC_SEV_ERROR ? "error" : s == GC_SEV_WARN ? "warn" : "info";
}

/* snprintf(dst, cap, "%s", src) without the format machinery: the merge of the levels'
 * results runs on the main thread alone after them (31,000 calls a retail sweep, 19 M
 * instructions through vsnprintf) */
static void put_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* snprintf(dst, cap, "%s%s", a, b), the same way */
static void put_cat(char *dst, size_t cap, const char *a, const char *b)
{
    put_str(dst, cap, a);
    const size_t na = strlen(dst);
    put_str(dst + na, cap - na, b);
}

static void copy_result(gc_rep_result *x, const gc_inv_info *info, const gc_inv_result *res)
{
    put_str(x->severity, sizeof x->severity, sev_name(info->severity));
    put_str(x->tier, sizeof x->tier, info->tier == GC_TIER_GATE ? "gate" : "nightly");
    put_str(x->scope, sizeof x->scope, info->scope == GC_SCOPE_LEVEL ? "level" : "corpus");
    x->checked = res->checked;
    x->failed = res->failed;
    if (res->sample_count) {
        x->samples = calloc(res->sample_count, sizeof *x->samples);
        if (x->samples) {
            x->sample_count = res->sample_count;
            for (size_t s = 0; s < res->sample_count; s++) {
                x->samples[s].level = res->samples[s].level;
                x->samples[s].row = res->samples[s].row;
                x->samples[s].file_ofs = res->samples[s].file_ofs;
                x->samples[s].parent_row = -1;
                x->samples[s].values = strdup(res->samples[s].values);
            }
        }
    }
}

static void add_counters(gc_report *rep, int level, const char *id, const gc_inv_result *res)
{
    char name[256];
    put_cat(name, sizeof name, id, ".checked");
    gc_report_add_metric(rep, level, name, (double)res->checked, 0);
    put_cat(name, sizeof name, id, ".failed");
    gc_report_add_metric(rep, level, name, (double)res->failed, 0);
}

static void add_region(gc_rep_level *l, const char *name, const gc_span *sp)
{
    if (!sp->present || l->region_count >= GC_REP_MAX_REGIONS)
        return;
    gc_rep_region *g = &l->regions[l->region_count++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->container_ofs = sp->file_ofs;
    g->size_bytes = sp->size;
}

static void add_stream(gc_rep_level *l, const char *name, const gc_span *z, const char *extent,
                       const gc_span *ext)
{
    if (!z->present || l->region_count >= GC_REP_MAX_REGIONS)
        return;
    gc_rep_region *g = &l->regions[l->region_count++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->stream = 1;
    g->container_ofs = z->file_ofs;
    g->size_bytes = z->size;
    if (ext && ext->present && z->file_ofs >= ext->file_ofs) {
        snprintf(g->extent, sizeof g->extent, "%s", extent);
        g->extent_ofs = z->file_ofs - ext->file_ofs;
    }
}

/* Where the level's extents and streams are, for sample locations. The
 * stream names are those of the "bytes in <stream>" file_ofs units. */
static void add_regions(gc_rep_level *l, const gc_level *lv)
{
    if (!lv->header_ok)
        return;
    add_region(l, "data extent", &lv->data_extent);
    add_region(l, "sound bank extent", &lv->sound_bank);
    add_region(l, "gameplay extent", &lv->gameplay_z);
    add_region(l, "occlusion extent", &lv->occlusion_ext);
    if (lv->data_ok) {
        add_region(l, "core_index", &lv->core_index);
        add_region(l, "gs_ram", &lv->gs_ram);
        add_region(l, "core_data LZ", &lv->core_data_z);
        add_stream(l, "core_data", &lv->core_data_z, "data extent", &lv->data_extent);
    }
    add_stream(l, "gameplay", &lv->gameplay_z, "gameplay extent", &lv->gameplay_z);
}

static void add_level_entry(gc_report *rep, const level_slot *s)
{
    gc_rep_level *l = gc_grow_one(rep->levels, rep->level_count, sizeof *l);
    if (!l)
        return;
    rep->levels = l;
    l = &rep->levels[rep->level_count++];
    memset(l, 0, sizeof *l);
    l->level = s->level;
    snprintf(l->file, sizeof l->file, "%s", s->file->name);
    l->loaded = s->file->ok;
    l->size_bytes = s->file->ok ? s->file->size : 0;
    if (!s->file->ok)
        l->error = strdup(s->file->error);
    if (!s->lv_ready)
        return;
    add_regions(l, &s->lv);
    const gc_rowbuf *rb = gc_level_rows((gc_level *)&s->lv, &gc_table_decode_status);
    if (!rb || rb->count == 0)
        return;
    l->decoders = calloc(rb->count, sizeof *l->decoders);
    if (!l->decoders)
        return;
    l->decoder_count = rb->count;
    for (size_t d = 0; d < rb->count; d++) {
        const gc_decode_status_row *row = gc_rows_at(rb, d);
        gc_rep_decoder *x = &l->decoders[d];
        snprintf(x->name, sizeof x->name, "%s", row->name);
        snprintf(x->status, sizeof x->status, "%s", row->status_name);
        x->ok = row->ok;
        x->skipped = row->skipped;
        x->file_ofs = row->file_ofs;
        x->where = strdup(row->where);
        x->message = strdup(row->message);
    }
}

static int select_levels(const gc_sweep_opts *o, int *out, size_t *n)
{
    int all[27];
    size_t na = 0;
    if (o->level_count) {
        memcpy(all, o->levels, o->level_count * sizeof *all);
        na = o->level_count;
    } else {
        for (int i = 0; i < 27; i++)
            all[na++] = i;
    }
    *n = 0;
    for (size_t i = 0; i < na; i++)
        if (o->shard_n == 0 || (int)(i % (size_t)o->shard_n) == o->shard_k - 1)
            out[(*n)++] = all[i];
    return *n ? 0 : -1;
}

/* A file named on the command line must exist: a typo would otherwise
 * disable a comparison and pass. */
static int must_exist(const char *what, const char *path, char *err, size_t errlen)
{
    if (access(path, F_OK) == 0)
        return 0;
    snprintf(err, errlen, "%s %s does not exist (check the path; 'none' disables the comparison)",
             what, path);
    return -1;
}

/* Paths in the data directory are reported relative to it, so reports from
 * two checkouts, or from an installed and a build-tree gcverify, compare equal. */
static const char *project_relative(const char *path)
{
    return gc_data_relative(path);
}

/* glibc's malloc as the sweep wants it (bench_decode sets it the same way,
 * so that it measures the decoders as the sweep runs them). */
void gc_sweep_tune_malloc(void)
{
    /* Blocks of 16 MiB and more (files, decompressed streams, the biggest
     * row tables) are mapped and unmapped, never left in an arena: glibc's
     * default threshold rises to 32 MiB after the first such free, and then
     * a freed level's streams stay in the worker thread's arena as holes
     * the next level only partly reuses. Retail sweep at --jobs 2 with the
     * rest of issue 18's changes: 238 MB peak RSS and 0.58 s system time
     * without this, 199.7 MB and ~1.0 s with 16 MiB, 198.8 MB and ~1.2 s
     * with 1 MiB (the kernel clears each fresh mapping). */
    mallopt(M_MMAP_THRESHOLD, 16 << 20);
    /* What the arenas free at their top stays mapped up to 4 MiB (glibc's
     * default gives back anything past 128 KiB): a level's small tables and
     * the renderer's per-kind arrays are freed and allocated again by the
     * next level on the same worker, and each page given back is a page
     * fault (~12 us on a virtual machine) when it is touched again. Retail
     * sweep at --jobs 2 (issue 18): faults 59k -> 39k, system time 0.86 ->
     * 0.57 s, peak RSS +3 MB (docs/performance.md, "Memory"). */
    mallopt(M_TRIM_THRESHOLD, 4 << 20);
}

int gc_sweep_run(const gc_sweep_opts *o, gc_report *rep, char *err, size_t errlen)
{
    double w_start = wall_now(), w_levels = 0, w_corpus = 0, w_open = 0, w_setup = 0;
    double w_finish0 = 0;
    size_t rss_open = 0, rss_levels = 0, rss_corpus = 0;
    gc_report_init(rep);
    size_t ndesc;
    const gc_table_desc *const *descs = gc_table_registry(&ndesc);

    int fault = 0;
    if (o->fault) {
        fault = gc_fault_lookup(o->fault);
        if (fault < 0) {
            snprintf(err, errlen, "unknown fault '%s' (gcverify faults lists them)", o->fault);
            return 2;
        }
        if (!GC_FAULTS_BUILT) {
            snprintf(
                err, errlen,
                "this build has no fault switches: configure with -DGC_FAULTS=ON (make FAULTS=ON)");
            return 2;
        }
    }
    if (!o->goldens_may_be_missing &&
        ((o->baseline && o->baseline[0] && must_exist("baseline", o->baseline, err, errlen) != 0) ||
         (o->frames_golden && o->frames_golden[0] && !o->no_frames &&
          must_exist("frames golden", o->frames_golden, err, errlen) != 0)))
        return 2;

    char inv_dir[PATH_MAX];
    if (o->invariants_dir)
        snprintf(inv_dir, sizeof inv_dir, "%s", o->invariants_dir);
    else if (gc_data_path(inv_dir, sizeof inv_dir, "invariants") != 0) {
        snprintf(err, errlen, "%s", gc_no_data_dir_message);
        return 2;
    }
    if (o->invariants_dir && must_exist("invariants directory", inv_dir, err, errlen) != 0)
        return 2;
    char *load_err = malloc(65536);
    if (!load_err) {
        snprintf(err, errlen, "out of memory");
        return 2;
    }
    load_err[0] = '\0';
    gc_inv_set *set = gc_inv_load_dir(inv_dir, descs, ndesc, load_err, 65536);
    if (!set) {
        snprintf(err, errlen, "%s", load_err[0] ? load_err : "cannot load invariants");
        free(load_err);
        return 2;
    }
    free(load_err);

    int sel[27];
    size_t nsel;
    if (select_levels(o, sel, &nsel) != 0) {
        snprintf(err, errlen, "no level selected (check --levels and --shard)");
        gc_inv_free(set);
        return 2;
    }

    sweep_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.set = set;
    c.ninv = gc_inv_count(set);
    c.nmetric = gc_inv_metric_count(set);
    c.ndesc = ndesc;
    c.descs = descs;
    c.fault = fault;
    c.progress = o->progress;
    c.t0 = wall_now();
    gc_column_store_dir(c.column_store, sizeof c.column_store);
    c.selected_inv = calloc(c.ninv ? c.ninv : 1, sizeof *c.selected_inv);
    if (!c.selected_inv) {
        snprintf(err, errlen, "out of memory");
        gc_inv_free(set);
        return 2;
    }
    size_t nselected = 0;
    for (size_t k = 0; k < c.ninv; k++) {
        const gc_inv_info *info = gc_inv_get(set, k);
        c.selected_inv[k] = (o->tier_nightly || info->tier == GC_TIER_GATE) &&
                            (!o->only || fnmatch(o->only, info->id, 0) == 0);
        nselected += (size_t)c.selected_inv[k];
    }
    /* a selection that selects nothing checks nothing: never a pass */
    if (nselected == 0) {
        if (o->only)
            snprintf(err, errlen,
                     "--only '%s' selects none of the %zu invariants of the %s tier (see "
                     "gcverify list)",
                     o->only, c.ninv, o->tier_nightly ? "nightly" : "gate");
        else
            snprintf(err, errlen, "no invariant in %s (tier %s)", inv_dir,
                     o->tier_nightly ? "nightly" : "gate");
        free(c.selected_inv);
        gc_inv_free(set);
        return 2;
    }

    unsigned jobs = o->jobs ? o->jobs : gc_core_count();
    gc_sweep_tune_malloc();
    gc_corpus corpus;
    double w_open0 = wall_now();
    if (gc_corpus_scan_any(&corpus, o->corpus_dir, o->scale, o->seed, jobs, o->progress, err,
                           errlen) != 0) {
        free(c.selected_inv);
        gc_inv_free(set);
        return 3;
    }
    w_open = wall_now() - w_open0;

    /* report header */
    snprintf(rep->corpus_label, sizeof rep->corpus_label, "%s", corpus.label);
    snprintf(rep->corpus_key, sizeof rep->corpus_key, "%s", corpus.key);
    snprintf(rep->tier, sizeof rep->tier, "%s", o->tier_nightly ? "nightly" : "gate");
    rep->only = o->only ? strdup(o->only) : NULL;
    rep->frames_enabled = !o->no_frames;
    rep->invariant_count = nselected;
    if (o->shard_n)
        snprintf(rep->shard, sizeof rep->shard, "%d/%d", o->shard_k, o->shard_n);
    memcpy(rep->selected, sel, nsel * sizeof *sel);
    rep->selected_count = nsel;

    char def_metrics[PATH_MAX], def_frames[PATH_MAX];
    gc_sweep_default_paths(corpus.key, def_metrics, sizeof def_metrics, def_frames,
                           sizeof def_frames);
    const char *baseline_path = o->baseline ? o->baseline : def_metrics;
    const char *frames_path = o->frames_golden ? o->frames_golden : def_frames;

    c.slots = calloc(nsel, sizeof *c.slots);
    c.nslots = nsel;
    int rc = 0;
    gc_sweep_frame_golden golden;
    memset(&golden, 0, sizeof golden);
    gc_baseline base;
    memset(&base, 0, sizeof base);
    int base_found = 0;
    baseline_job bl;
    memset(&bl, 0, sizeof bl);
    coverage_job cov;
    memset(&cov, 0, sizeof cov);
    if (!c.slots) {
        snprintf(err, errlen, "out of memory");
        rc = 2;
        goto out;
    }
    if (gc_corpus_identity(&corpus, rep->corpus_id) != 0) {
        snprintf(err, errlen, "cannot hash the corpus headers (OpenSSL)");
        rc = 2;
        goto out;
    }

    /* The baseline's corpus is checked before anything is decoded: a baseline of another
     * corpus is a usage error, found at once. The rest of it is read on its own thread
     * while the levels start (baseline_job); a file whose header does not say it is this
     * corpus's is read here, first, as before. */
    /* project paths are reported relative to the project, so reports
     * from two checkouts compare equal */
    if (baseline_path[0])
        rep->baseline = strdup(project_relative(baseline_path));
    bl.c = &c;
    bl.path = baseline_path;
    bl.shown_path = project_relative(baseline_path);
    bl.corpus_key = corpus.key;
    bl.corpus_id = rep->corpus_id;
    bl.corpus_label = corpus.label;
    bl.accept_mismatch = o->accept_corpus_mismatch;
    pthread_mutex_init(&bl.lock, NULL);
    pthread_cond_init(&bl.cond, NULL);
    c.bl = &bl;
    {
        char pk[sizeof base.corpus_key], pid[sizeof base.corpus_id];
        const int peek =
            baseline_path[0] ? gc_baseline_peek(baseline_path, pk, sizeof pk, pid, sizeof pid) : 0;
        if (peek == 0 || (peek == 1 && (pid[0] ? strcmp(pid, rep->corpus_id) == 0
                                               : strcmp(pk, corpus.key) == 0)))
            bl.threaded = pthread_create(&bl.thread, NULL, baseline_thread, &bl) == 0;
    }
    if (!bl.threaded) {
        baseline_read(&bl);
        bl.done = 1;
        if (bl.rc != 0) {
            snprintf(err, errlen, "%s", bl.err);
            rc = 2;
            goto out;
        }
    }
    if (!o->no_frames && frames_path[0]) {
        if (gc_sweep_frames_load_golden(frames_path, &golden, err, errlen) != 0) {
            rc = 2;
            goto out;
        }
    }
    c.golden = &golden;
    if ((o->frames_out && gc_mkdir_p(o->frames_out, err, errlen) != 0) ||
        (o->golden_images && gc_mkdir_p(o->golden_images, err, errlen) != 0)) {
        rc = 2;
        goto out;
    }
    for (size_t i = 0; i < nsel; i++) {
        c.slots[i].level = sel[i];
        c.slots[i].file = &corpus.files[sel[i]];
    }
    c.keep_corpus = calloc(ndesc ? ndesc : 1, sizeof *c.keep_corpus);
    if (!c.keep_corpus) {
        snprintf(err, errlen, "out of memory");
        rc = 2;
        goto out;
    }
    for (size_t t = 0; t < ndesc; t++)
        c.keep_corpus[t] = gc_sweep_table_needed(set, c.selected_inv, descs[t]->name) != 0;
    size_t mem_limit = o->memory_limit_bytes ? o->memory_limit_bytes : gc_membudget_default_bytes();
    size_t level_limit = o->level_memory_limit_bytes ? o->level_memory_limit_bytes : mem_limit;
    if (gc_membudget_init(&c.budget, mem_limit, level_limit, nsel) != 0) {
        snprintf(err, errlen, "out of memory");
        rc = 2;
        goto out;
    }
    /* With two or more jobs the largest levels start first: level work is
     * uneven (LEVEL3 is 4x LEVEL24), and a big level claimed last leaves the
     * other cores idle while it runs alone. One job keeps container order.
     * The report is built in slot order after the join, so this changes
     * nothing but the wall time (and the order of the progress lines). */
    if (jobs > 1 && nsel > 1 && (c.order = malloc(nsel * sizeof *c.order)) != NULL) {
        for (size_t i = 0; i < nsel; i++)
            c.order[i] = i;
        for (size_t i = 1; i < nsel; i++) /* insertion sort: 27 entries, stable */
            for (size_t j = i; j > 0 && slot_size(&c, c.order[j]) > slot_size(&c, c.order[j - 1]);
                 j--) {
                size_t t = c.order[j];
                c.order[j] = c.order[j - 1];
                c.order[j - 1] = t;
            }
        /* ...except the second largest, claimed fourth: while the largest runs on one
         * worker the other runs the third and fourth, so the two largest levels do not
         * decode and render side by side. That pair was the sweep's memory peak (197 MiB
         * at --jobs 2; 187-190 MiB with this order, retail, frames on). */
        if (nsel > 3) {
            size_t t = c.order[1];
            c.order[1] = c.order[2];
            c.order[2] = c.order[3];
            c.order[3] = t;
        }
    }
    pthread_mutex_init(&c.lock, NULL);
    /* The baseline's YAML document (~20 MB of nodes for a 2 MB file) is
     * freed by now, but its pages lie between the blocks that stay (the
     * baseline's digests and metrics): give them back before the levels
     * start, or they stay resident for the whole run (issue 18). */
    trim_heap();
    rss_open = peak_rss_bytes();
    double w_pool = wall_now();
    w_setup = w_pool - w_start - w_open;
    c.w_pool = w_pool;
    gc_pool_run(jobs, nsel, run_level, &c);
    w_levels = wall_now() - w_pool;
    rss_levels = peak_rss_bytes();
    pthread_mutex_destroy(&c.lock);
    if (c.bl) {
        if (baseline_join(&bl) != 0) {
            snprintf(err, errlen, "%s", bl.err);
            rc = 2;
            goto out;
        }
        base = bl.base;
        base_found = bl.found;
        memset(&bl.base, 0, sizeof bl.base);
        cov.set = set;
        cov.digests = base_found ? base.digests : NULL;
        cov.ndigests = base_found ? base.digest_count : 0;
        coverage_start(&cov);
        rep->corpus_mismatch_accepted = bl.mismatch_accepted;
    }
    int write_failed = 0;
    for (size_t i = 0; i < nsel; i++)
        if (c.slots[i].frames.write_failed) {
            /* the report is complete; the lost image is a failed write */
            fprintf(stderr, "gcverify: %s\n", c.slots[i].frames.write_error);
            write_failed = 1;
        }

    /* the report's digest array at its final size at once (5.6 MB for a retail sweep): grown
     * level by level it was copied and its fresh pages faulted twice over, on the serial tail */
    size_t ndigests = rep->digest_count;
    for (size_t i = 0; i < nsel; i++)
        ndigests += c.slots[i].digest_count;
    if (gc_report_reserve_digests(rep, ndigests) != 0) {
        snprintf(err, errlen, "out of memory");
        rc = 2;
        goto out;
    }
    for (size_t i = 0; i < nsel; i++) {
        level_slot *s = &c.slots[i];
        if (s->oom) {
            snprintf(err, errlen, "out of memory while sweeping %s", s->file->name);
            rc = 2;
            goto out;
        }
        add_level_entry(rep, s);
        for (size_t k = 0; k < c.ninv; k++) {
            const gc_inv_info *info = gc_inv_get(set, k);
            if (!c.selected_inv[k] || info->scope != GC_SCOPE_LEVEL)
                continue;
            gc_rep_result *x = gc_report_add_result(rep, info->id, s->level);
            if (x) {
                copy_result(x, info, &s->results[k]);
                x->time_seconds = s->inv_time[k];
            }
            add_counters(rep, s->level, info->id, &s->results[k]);
        }
        for (size_t m = 0; m < c.nmetric; m++)
            gc_report_add_metric(rep, s->level, gc_inv_metric_name(set, m), s->metric_values[m],
                                 s->metric_null[m]);
        if (gc_report_add_digests(rep, s->level, s->digests, s->digest_count) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = 2;
            goto out;
        }
        for (size_t d = 0; d < s->table_digest_count; d++) {
            gc_rep_digest *x = gc_grow_one(rep->table_digests, rep->table_digest_count, sizeof *x);
            if (!x) {
                snprintf(err, errlen, "out of memory");
                rc = 2;
                goto out;
            }
            rep->table_digests = x;
            rep->table_digests[rep->table_digest_count++] = s->table_digests[d];
        }
        gc_sweep_frames_to_report(&s->frames, s->level, rep);
    }

    /* A disc image's table of contents against its files (disc.toc). */
    gc_corpus_toc_to_report(&corpus, sel, nsel, o->only, rep);

    /* Corpus scope: over the selected levels, except in a shard, whose
     * corpus-scope results are computed by `merge` from corpus_tables. Over
     * a --levels subset they are reported but not gated (gc_rep_result.subset). */
    double w_corpus0 = wall_now();
    {
        const gc_table **lt = calloc(nsel, sizeof *lt);
        int *ids = calloc(nsel, sizeof *ids);
        if (!lt || !ids) {
            free(lt);
            free(ids);
            snprintf(err, errlen, "out of memory");
            rc = 2;
            goto out;
        }
        for (size_t i = 0; i < nsel; i++) {
            lt[i] = c.slots[i].tables;
            ids[i] = c.slots[i].level;
        }
        rep->corpus_tables =
            gc_sweep_corpus_tables_json(set, c.selected_inv, descs, ndesc, lt, ids, nsel);
        if (!o->shard_n)
            gc_sweep_eval_corpus(set, c.selected_inv, lt, ids, nsel, o->max_samples, rep);
        /* tables, parents, why and where for every failure sample */
        gc_sweep_annotate(rep, set, descs, ndesc, lt, ids, nsel);
        free(lt);
        free(ids);
    }
    w_corpus = wall_now() - w_corpus0;
    w_finish0 = wall_now();
    rss_corpus = peak_rss_bytes();

    /* Determinism: the first level's first view, rendered again on another
     * thread while its worker ran (rerender_on_other_thread), must hash the
     * same as the pool's render. */
    if (!o->no_frames && !o->skip_determinism && nsel > 0)
        gc_sweep_frames_determinism(rep, c.slots[0].level,
                                    (const char(*)[65])c.slots[0].rerender_hex,
                                    c.slots[0].rerender_count);

    /* Baseline comparison (only the levels that ran; corpus figures only
     * when every level ran). */
    if (base_found) {
        rep->baseline_found = 1;
        gc_baseline_compare(&base, rep);
        /* the rows behind each moved column digest, from the column store */
        const gc_table **lt = calloc(nsel ? nsel : 1, sizeof *lt);
        int *ids = calloc(nsel ? nsel : 1, sizeof *ids);
        if (lt && ids) {
            for (size_t i = 0; i < nsel; i++) {
                lt[i] = c.slots[i].tables;
                ids[i] = c.slots[i].level;
            }
            gc_column_store_attribute(c.column_store, rep, lt, ids, nsel, ndesc);
        }
        free(lt);
        free(ids);
    }
    for (size_t i = 0; i < nsel; i++)
        if (c.slots[i].store_failed) {
            fprintf(stderr, "gcverify: warning: cannot store column snapshots in %s\n",
                    c.column_store);
            break;
        }
    /* What guards each decoded column in this run (computed beside this tail, coverage_job) */
    coverage_join(&cov);
    if (cov.rc != 0) {
        snprintf(err, errlen, "out of memory");
        rc = 2;
        goto out;
    }
    rep->coverage = cov.coverage;
    gc_sweep_frames_annotate(rep);
    gc_report_summarise(rep);
    rc = write_failed ? gc_exit_with_write_failure(rep->exit_code) : rep->exit_code;

out:
    coverage_join(&cov); /* it reads the baseline freed below */
    if (c.bl) {
        /* the baseline's error comes first, as when it was read before anything else */
        if (baseline_join(&bl) != 0) {
            snprintf(err, errlen, "%s", bl.err);
            rc = 2;
        }
        gc_baseline_free(&bl.base);
        pthread_mutex_destroy(&bl.lock);
        pthread_cond_destroy(&bl.cond);
    }
    if (base_found)
        gc_baseline_free(&base);
    if (o->timings) {
        gc_sweep_timings *t = o->timings;
        memset(t, 0, sizeof *t);
        t->jobs = jobs;
        t->wall_corpus_open = w_open;
        t->wall_levels = w_levels;
        t->wall_corpus_scope = w_corpus;
        t->wall_setup = w_setup;
        t->wall_finish = w_finish0 > 0 ? wall_now() - w_finish0 : 0;
        for (size_t i = 0; c.slots && i < nsel; i++) {
            const level_slot *s = &c.slots[i];
            t->cpu_decode += s->t_decode;
            t->cpu_eval += s->t_eval;
            t->cpu_render += s->t_render;
            t->cpu_digest += s->t_digest;
            t->digest_tables_reused += s->tables_reused;
            t->digest_tables += s->table_digest_count;
            t->level_decode[s->level] = s->t_decode;
            t->level_eval[s->level] = s->t_eval;
            t->level_render[s->level] = s->t_render;
            t->level_worker[s->level] = s->worker;
            t->level_start[s->level] = s->w_start;
            t->level_eval_end[s->level] = s->w_eval_end;
            t->level_end[s->level] = s->w_end;
        }
        t->rss_after_open = rss_open;
        t->rss_after_levels = rss_levels;
        t->rss_after_corpus = rss_corpus;
        t->rss_peak_level = c.rss_peak_level;
        snprintf(t->rss_peak_phase, sizeof t->rss_peak_phase, "%s",
                 c.rss_peak_phase ? c.rss_peak_phase : "");
        t->wall_total = wall_now() - w_start;
        t->memory_limit_bytes = c.budget.limit_bytes;
        t->memory_peak_bytes = c.budget.peak_bytes;
        t->memory_waits = c.budget.waits;
        t->memory_reruns = c.budget.reruns;
    }
    for (size_t i = 0; c.slots && i < nsel; i++) {
        level_slot *s = &c.slots[i];
        for (size_t k = 0; s->results && k < c.ninv; k++)
            gc_inv_result_free(&s->results[k]);
        free(s->results);
        free(s->inv_time);
        free(s->tables);
        free(s->metric_values);
        free(s->metric_null);
        free(s->digests);
        free(s->table_digests);
        gc_sweep_level_frames_free(&s->frames);
        if (s->lv_ready)
            gc_level_free(&s->lv);
    }
    free(c.slots);
    free(c.keep_corpus);
    free(c.order);
    /* c.base_digests is base.digests, freed with the baseline */
    free(c.base_tables);
    free(c.selected_inv);
    gc_membudget_destroy(&c.budget);
    gc_sweep_frames_free_golden(&golden);
    gc_corpus_close(&corpus);
    gc_inv_free(set);
    return rc;
}
