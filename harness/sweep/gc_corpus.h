/* SPDX-License-Identifier: MIT */
/* The corpus: 27 level containers, each read into memory when its level
 * runs (not mapped: a file truncated under a mapping is SIGBUS). Either a user's
 * directory (--corpus DIR, file names in any case) or the synthetic corpus,
 * generated once into a cache directory keyed by generator version, scale
 * and seed, and reused. */
#ifndef GC_CORPUS_H
#define GC_CORPUS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define GC_LEVEL_COUNT 27

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

typedef struct gc_corpus_file {
    int index;     /* container number: LEVEL<index>.WAD */
    char name[64]; /* name as found on disk, or "LEVEL<index>.WAD" if missing */
    char path[PATH_MAX];
    const uint8_t *data; /* once loaded (owned, a gc_big block); NULL before, or when empty */
    size_t size;         /* as the scan saw it */
    int ok;              /* a regular file, and (once loaded) read whole */
    uint8_t head[0x800]; /* the first sector, read by the scan (corpus identity) */
    size_t head_len;     /* min(size, 0x800) */
    char error[256];     /* why not, when !ok */
    /* in a disc image: where its extent is (gc_corpus_file_load reads it) */
    struct gc_corpus_image *image;
    uint32_t image_lba;
} gc_corpus_file;

typedef struct gc_corpus {
    char dir[PATH_MAX];
    char label[160]; /* "synthetic retail seed 1 (synth-3)" or the directory */
    char key[96];    /* baseline key: "synthetic-retail-seed1" / "directory" */
    int synthetic;
    int scale; /* SY_SCALE_* when synthetic */
    gc_corpus_file files[GC_LEVEL_COUNT];
    int found;      /* files with ok */
    int duplicates; /* level names found twice (differing in case); warned on stderr */
    /* set when the corpus is a disc image (--corpus F.iso): the open image and
     * its table-of-contents check (gc_corpus_iso.h) */
    struct gc_corpus_image *image;
} gc_corpus;

/* "level12.wad" in any case -> 12; -1 otherwise. No leading zeros. */
int gc_corpus_level_index_of(const char *name);

/* dir may also be an ISO 9660 image file (gc_corpus_iso.h): scanned and
 * loaded the same way as far as callers can tell.
 * Find every LEVEL*.WAD of dir, in any case, and check each is a regular
 * file (opened O_NONBLOCK: a FIFO never hangs the scan), without reading
 * it. Two names of one level differing only in case are warned about on
 * stderr, naming both; LEVEL<n>.WAD wins, else the byte-wise smaller name.
 * Returns 0 when the directory could be read and at least one level file
 * was found (missing ones are !ok entries with an error), -1 otherwise with
 * err filled (exit code 3 territory). */
int gc_corpus_scan(gc_corpus *c, const char *dir, char *err, size_t errlen);
/* Read one scanned file into memory (pread; a short read because the file
 * shrank is an error, not a crash). 0, or -1 with f->ok cleared and
 * f->error set. */
int gc_corpus_file_load(gc_corpus_file *f);
void gc_corpus_file_unload(gc_corpus_file *f);
/* Load every ok file; -1 (err) if none could be read. */
int gc_corpus_load_all(gc_corpus *c, char *err, size_t errlen);
/* gc_corpus_scan + gc_corpus_load_all. */
int gc_corpus_open(gc_corpus *c, const char *dir, char *err, size_t errlen);
void gc_corpus_close(gc_corpus *c);

/* Directory of the synthetic corpus for (scale, seed), generating it first
 * when it is not in the cache yet (on `jobs` threads; progress on stderr:
 * 0 none, 1 a line per level, 2 the terminal's updating line, gc_progress.h). Concurrent callers
 * are safe: the corpus is built in a private temporary directory and renamed into place. 0 or -1.
 */
int gc_corpus_synthetic(int scale, uint32_t seed, unsigned jobs, int progress, char *dir,
                        size_t dirlen, char *err, size_t errlen);

/* Write all 27 synthetic levels into out_dir (created if needed), each file
 * atomically. Used by the cache and by `gcverify synth`. 0 or -1. */
int gc_corpus_write_synthetic(const char *out_dir, int scale, uint32_t seed, unsigned jobs,
                              int progress, char *err, size_t errlen);

/* Scan the default or a given corpus in one call: dir == NULL means the
 * synthetic corpus at (scale, seed). */
int gc_corpus_scan_any(gc_corpus *c, const char *dir, int scale, uint32_t seed, unsigned jobs,
                       int progress, char *err, size_t errlen);
/* gc_corpus_scan_any + gc_corpus_load_all. */
int gc_corpus_open_any(gc_corpus *c, const char *dir, int scale, uint32_t seed, unsigned jobs,
                       int progress, char *err, size_t errlen);

/* For the one-level commands (render, dump-texture, extract): open the corpus
 * (dir, or the synthetic one at scale/seed), then init and decode level
 * `level` into *lv with fault `fault`. On failure prints "gcverify CMD: why"
 * to stderr, releases everything and returns the exit code (3: corpus or
 * file unreadable, 1: out of memory); 0 on success, when the caller owns
 * *c and *lv (gc_level_free, then gc_corpus_close). */
typedef struct gc_level gc_level;
int gc_corpus_decode_level(const char *cmd, const char *dir, int scale, uint32_t seed, int level,
                           int fault, gc_corpus *c, gc_level *lv);

#endif
