/* SPDX-License-Identifier: MIT */
/* Corpus loading (read into memory, any-case names) and the synthetic corpus cache. */
#include "gc_corpus.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gc_bigmem.h"
#include "gc_corpus_iso.h"
#include "gc_fsutil.h"
#include "gc_level.h"
#include "gc_pool.h"
#include "gc_progress.h"
#include "gc_synth_hash.h"
#include "sy_corpus.h"

int gc_corpus_level_index_of(const char *name)
{
    if (strncasecmp(name, "level", 5) != 0)
        return -1;
    const char *p = name + 5;
    if (!isdigit((unsigned char)p[0]) || (p[0] == '0' && isdigit((unsigned char)p[1])))
        return -1;
    int n = 0;
    while (isdigit((unsigned char)*p)) {
        n = n * 10 + (*p - '0');
        if (n >= GC_LEVEL_COUNT)
            return -1;
        p++;
    }
    if (strcasecmp(p, ".wad") != 0)
        return -1;
    return n;
}

/* Open without blocking: a FIFO (or a device) named LEVEL7.WAD must not hang
 * the sweep in open(); anything but a regular file is refused. */
static int open_regular(gc_corpus_file *f, struct stat *st)
{
    int fd = open(f->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(f->error, sizeof f->error, "cannot open %s: %s", f->path, strerror(errno));
        return -1;
    }
    if (fstat(fd, st) != 0) {
        snprintf(f->error, sizeof f->error, "cannot stat %s: %s", f->path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        snprintf(f->error, sizeof f->error, "%s is not a regular file (%s)", f->path,
                 S_ISDIR(st->st_mode)    ? "a directory"
                 : S_ISFIFO(st->st_mode) ? "a FIFO"
                 : S_ISCHR(st->st_mode)  ? "a character device"
                 : S_ISBLK(st->st_mode)  ? "a block device"
                 : S_ISSOCK(st->st_mode) ? "a socket"
                                         : "not a file");
        close(fd);
        return -1;
    }
    return fd;
}

static void probe_file(gc_corpus_file *f)
{
    struct stat st;
    int fd = open_regular(f, &st);
    if (fd < 0)
        return;
    f->size = (size_t)st.st_size;
    /* the first sector now: the corpus identity hashes it before any level
     * is read */
    size_t want = f->size < sizeof f->head ? f->size : sizeof f->head, got = 0;
    while (got < want) {
        ssize_t n = pread(fd, f->head + got, want - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (got < want) {
        snprintf(f->error, sizeof f->error, "cannot read the header of %s", f->path);
        return;
    }
    f->head_len = got;
    f->ok = 1;
}

int gc_corpus_file_load(gc_corpus_file *f)
{
    if (!f->ok)
        return -1;
    if (f->data || f->size == 0)
        return 0;
    if (f->image) /* a level file inside a disc image */
        return gc_corpus_iso_file_load(f);
    struct stat st;
    int fd = open_regular(f, &st);
    if (fd < 0) {
        f->ok = 0;
        return -1;
    }
    /* Read, not mmap: a file truncated while the sweep runs is a short read
     * (this level's error), where a mapping would kill the process with
     * SIGBUS. The size is the one the corpus scan saw. */
    /* A large block (decoders/gc_bigmem.h): 9-25 MB per level, in huge pages and
     * recycled from the level before, where malloc's fresh 4 KiB pages cost a
     * fault each (~110,000 per retail sweep). */
    size_t want = f->size;
    uint8_t *buf = gc_big_alloc_populated(want);
    if (!buf) {
        snprintf(f->error, sizeof f->error, "%s: no memory for %zu bytes", f->name, want);
        close(fd);
        f->ok = 0;
        return -1;
    }
    size_t got = 0;
    while (got < want) {
        ssize_t n = pread(fd, buf + got, want - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(f->error, sizeof f->error, "cannot read %s at offset %zu: %s", f->path, got,
                     strerror(errno));
            break;
        }
        if (n == 0) {
            snprintf(f->error, sizeof f->error,
                     "%s shrank from %zu to %zu bytes while it was being read", f->path, want, got);
            break;
        }
        got += (size_t)n;
    }
    close(fd);
    if (got < want) {
        gc_big_free(buf);
        f->ok = 0;
        return -1;
    }
    f->data = buf;
    return 0;
}

void gc_corpus_file_unload(gc_corpus_file *f)
{
    gc_big_free((void *)f->data);
    f->data = NULL;
}

/* Of two names of one level, the canonical upper-case spelling wins, else
 * the byte-wise smaller name (README, "Corpus"): the choice never depends on
 * readdir's order. */
static int better_name(const char *a, const char *b, int index)
{
    char canon[16];
    snprintf(canon, sizeof canon, "LEVEL%d.WAD", index);
    if (strcmp(a, canon) == 0)
        return 1;
    if (strcmp(b, canon) == 0)
        return 0;
    return strcmp(a, b) < 0;
}

int gc_corpus_scan(gc_corpus *c, const char *dir, char *err, size_t errlen)
{
    if (gc_corpus_is_image(dir))
        return gc_corpus_open_iso(c, dir, err, errlen);
    memset(c, 0, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    snprintf(c->label, sizeof c->label, "%s", dir);
    snprintf(c->key, sizeof c->key, "directory");
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        c->files[i].index = i;
        snprintf(c->files[i].name, sizeof c->files[i].name, "LEVEL%d.WAD", i);
        snprintf(c->files[i].error, sizeof c->files[i].error, "LEVEL%d.WAD not found in %s", i,
                 dir);
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot read corpus directory %s: %s", dir, strerror(errno));
        return -1;
    }
    char best[GC_LEVEL_COUNT][64];
    memset(best, 0, sizeof best);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int n = gc_corpus_level_index_of(e->d_name);
        if (n < 0 || strlen(e->d_name) >= sizeof best[n])
            continue;
        if (best[n][0] == '\0') {
            snprintf(best[n], sizeof best[n], "%s", e->d_name);
            continue;
        }
        /* two names differing only in case: say so, naming both */
        const char *keep = better_name(e->d_name, best[n], n) ? e->d_name : best[n];
        const char *drop = keep == e->d_name ? best[n] : e->d_name;
        fprintf(stderr,
                "gcverify: warning: %s and %s in %s both name level %d; using %s (the "
                "LEVEL%d.WAD spelling first, else the byte-wise smaller name)\n",
                keep, drop, dir, n, keep, n);
        c->duplicates++;
        if (keep == e->d_name)
            snprintf(best[n], sizeof best[n], "%s", e->d_name);
    }
    closedir(d);
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        if (!best[i][0])
            continue;
        gc_corpus_file *f = &c->files[i];
        snprintf(f->name, sizeof f->name, "%.63s", best[i]);
        snprintf(f->path, sizeof f->path, "%s/%s", dir, best[i]);
        f->error[0] = '\0';
        probe_file(f);
        if (f->ok)
            c->found++;
    }
    if (c->found == 0) {
        snprintf(err, errlen,
                 "no readable LEVEL*.WAD file in %s (expected LEVEL0.WAD .. LEVEL26.WAD)", dir);
        gc_corpus_close(c);
        return -1;
    }
    return 0;
}

int gc_corpus_load_all(gc_corpus *c, char *err, size_t errlen)
{
    c->found = 0;
    for (int i = 0; i < GC_LEVEL_COUNT; i++)
        if (c->files[i].ok && gc_corpus_file_load(&c->files[i]) == 0)
            c->found++;
    if (c->found == 0) {
        snprintf(err, errlen, "no readable LEVEL*.WAD file in %s", c->dir);
        gc_corpus_close(c);
        return -1;
    }
    return 0;
}

int gc_corpus_open(gc_corpus *c, const char *dir, char *err, size_t errlen)
{
    if (gc_corpus_scan(c, dir, err, errlen) != 0)
        return -1;
    return gc_corpus_load_all(c, err, errlen);
}

void gc_corpus_close(gc_corpus *c)
{
    if (c->image) {
        gc_corpus_close_iso(c);
        return;
    }
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        gc_corpus_file *f = &c->files[i];
        gc_corpus_file_unload(f);
        f->ok = 0;
    }
}

/* ---- synthetic corpus ---- */

typedef struct synth_job {
    const char *dir;
    sy_options opt;
    int progress;
    int failed[GC_LEVEL_COUNT];
    char error[GC_LEVEL_COUNT][256];
    pthread_mutex_t lock;
    int done;
    double t0; /* for the terminal progress line (progress 2) */
} synth_job;

static void synth_one(void *ctx, size_t i)
{
    synth_job *j = ctx;
    sy_buf b;
    sy_buf_init(&b);
    if (sy_level_build(&j->opt, (int)i, &b) != 0 || b.failed) {
        j->failed[i] = 1;
        snprintf(j->error[i], sizeof j->error[i], "LEVEL%zu.WAD: out of memory while building", i);
    } else {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/LEVEL%zu.WAD", j->dir, i);
        if (gc_write_file_atomic(path, b.data, b.len, j->error[i], sizeof j->error[i]) != 0)
            j->failed[i] = 1;
    }
    size_t bytes = b.len;
    sy_buf_free(&b);
    pthread_mutex_lock(&j->lock);
    j->done++;
    if (j->progress == 2) {
        char name[32];
        snprintf(name, sizeof name, "LEVEL%zu.WAD", i);
        gc_progress_draw(stderr, "synth", "levels", (size_t)j->done, GC_LEVEL_COUNT,
                         gc_progress_now() - j->t0, name);
    } else if (j->progress) {
        fprintf(stderr, "synth: [%2d/%d] LEVEL%zu.WAD %8.1f MB\n", j->done, GC_LEVEL_COUNT, i,
                (double)bytes / 1e6);
    }
    pthread_mutex_unlock(&j->lock);
}

int gc_corpus_write_synthetic(const char *out_dir, int scale, uint32_t seed, unsigned jobs,
                              int progress, char *err, size_t errlen)
{
    if (gc_mkdir_p(out_dir, err, errlen) != 0)
        return -1;
    synth_job j;
    memset(&j, 0, sizeof j);
    j.dir = out_dir;
    j.opt.scale = scale;
    j.opt.seed = seed;
    j.progress = progress;
    j.t0 = gc_progress_now();
    pthread_mutex_init(&j.lock, NULL);
    gc_pool_run(jobs, GC_LEVEL_COUNT, synth_one, &j);
    pthread_mutex_destroy(&j.lock);
    for (int i = 0; i < GC_LEVEL_COUNT; i++)
        if (j.failed[i]) {
            snprintf(err, errlen, "%s", j.error[i]);
            return -1;
        }
    return 0;
}

static const char *scale_name(int scale)
{
    const char *n = sy_scale_name(scale);
    return n ? n : "retail";
}

/* Remove older generations of the same scale and seed from the cache (each
 * retail corpus is ~400 MB): any synth-*-<scale>-seed<seed> but ours. */
static void prune_cache(const char *root, const char *keep_name, const char *suffix)
{
    DIR *d = opendir(root);
    if (!d)
        return;
    struct dirent *e;
    size_t sl = strlen(suffix);
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "synth-", 6) != 0 || n <= sl ||
            strcmp(e->d_name + n - sl, suffix) != 0 || strcmp(e->d_name, keep_name) == 0)
            continue;
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        gc_rm_rf(path);
    }
    closedir(d);
}

static void cache_root(char *out, size_t n)
{
    const char *e = getenv("GC_CACHE_DIR");
    if (e && *e) {
        snprintf(out, n, "%s", e);
        return;
    }
    e = getenv("XDG_CACHE_HOME");
    if (e && *e) {
        snprintf(out, n, "%s/gcverify", e);
        return;
    }
    e = getenv("HOME");
    if (e && *e) {
        snprintf(out, n, "%s/.cache/gcverify", e);
        return;
    }
    snprintf(out, n, "/tmp/gcverify-cache");
}

int gc_corpus_synthetic(int scale, uint32_t seed, unsigned jobs, int progress, char *dir,
                        size_t dirlen, char *err, size_t errlen)
{
    char root[PATH_MAX];
    cache_root(root, sizeof root);
    if (gc_mkdir_p(root, err, errlen) != 0)
        return -1;
    /* keyed by the generator version AND a hash of its sources, so a changed
     * writer never reuses a stale corpus */
    snprintf(dir, dirlen, "%s/%s-%s-%s-seed%u", root, sy_generator_version(), GC_SYNTH_SOURCE_HASH,
             scale_name(scale), (unsigned)seed);
    char marker[PATH_MAX + 16];
    snprintf(marker, sizeof marker, "%s/COMPLETE", dir);
    if (access(marker, F_OK) == 0)
        return 0;
    /* Build privately, then rename the whole directory into place: a
     * concurrent builder either wins the rename or finds ours complete. */
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%ld", dir, (long)getpid(), (long)time(NULL));
    if (progress)
        fprintf(stderr, "synth: generating the %s synthetic corpus (seed %u) into %s\n",
                scale_name(scale), (unsigned)seed, dir);
    if (gc_corpus_write_synthetic(tmp, scale, seed, jobs, progress, err, errlen) != 0) {
        gc_rm_rf(tmp);
        return -1;
    }
    char tmarker[PATH_MAX + 80];
    snprintf(tmarker, sizeof tmarker, "%s/COMPLETE", tmp);
    char note[256];
    int nl = snprintf(note, sizeof note, "%s %s seed %u\n", sy_generator_version(),
                      scale_name(scale), (unsigned)seed);
    if (gc_write_file_atomic(tmarker, note, (size_t)nl, err, errlen) != 0) {
        gc_rm_rf(tmp);
        return -1;
    }
    if (rename(tmp, dir) != 0) {
        gc_rm_rf(tmp);
        if (access(marker, F_OK) == 0)
            return 0; /* someone else finished first */
        snprintf(err, errlen, "cannot move the synthetic corpus into %s: %s", dir, strerror(errno));
        return -1;
    }
    char suffix[64];
    snprintf(suffix, sizeof suffix, "-%s-seed%u", scale_name(scale), (unsigned)seed);
    prune_cache(root, strrchr(dir, '/') + 1, suffix);
    return 0;
}

int gc_corpus_scan_any(gc_corpus *c, const char *dir, int scale, uint32_t seed, unsigned jobs,
                       int progress, char *err, size_t errlen)
{
    if (dir)
        return gc_corpus_scan(c, dir, err, errlen);
    char sdir[PATH_MAX];
    if (gc_corpus_synthetic(scale, seed, jobs, progress, sdir, sizeof sdir, err, errlen) != 0)
        return -1;
    if (gc_corpus_scan(c, sdir, err, errlen) != 0)
        return -1;
    c->synthetic = 1;
    c->scale = scale;
    snprintf(c->label, sizeof c->label, "synthetic %s seed %u (%s)", scale_name(scale),
             (unsigned)seed, sy_generator_version());
    snprintf(c->key, sizeof c->key, "synthetic-%s-seed%u", scale_name(scale), (unsigned)seed);
    return 0;
}

int gc_corpus_open_any(gc_corpus *c, const char *dir, int scale, uint32_t seed, unsigned jobs,
                       int progress, char *err, size_t errlen)
{
    if (gc_corpus_scan_any(c, dir, scale, seed, jobs, progress, err, errlen) != 0)
        return -1;
    return gc_corpus_load_all(c, err, errlen);
}

int gc_corpus_decode_level(const char *cmd, const char *dir, int scale, uint32_t seed, int level,
                           int fault, gc_corpus *c, gc_level *lv)
{
    char err[512] = "";
    if (gc_corpus_scan_any(c, dir, scale, seed, 2, 1, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify %s: %s\n", cmd, err);
        return 3;
    }
    gc_corpus_file *f = &c->files[level];
    if (!f->ok || gc_corpus_file_load(f) != 0) {
        fprintf(stderr, "gcverify %s: %s: %s\n", cmd, f->name, f->error);
        gc_corpus_close(c);
        return 3;
    }
    if (gc_level_init(lv, level, f->name, f->data, f->size) != GC_OK) {
        fprintf(stderr, "gcverify %s: out of memory\n", cmd);
        gc_corpus_close(c);
        return 1;
    }
    lv->fault = fault;
    gc_level_decode(lv);
    return 0;
}
