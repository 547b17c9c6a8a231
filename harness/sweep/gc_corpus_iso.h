/* SPDX-License-Identifier: MIT */
/* A disc image as a corpus (docs/formats/disc-image.md): `--corpus F.iso`
 * reads LEVEL*.WAD straight out of an ISO 9660 image through libiso9660,
 * without extracting anything to disk, and checks the RC2.HDR table of
 * contents against the files it found (disc.toc results, not errors). */
#ifndef GC_CORPUS_ISO_H
#define GC_CORPUS_ISO_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "gc_corpus.h"
#include "gc_report.h"

#define GC_TOC_INVARIANT "disc.toc"

/* What one level's table-of-contents entry said against its file. */
typedef struct gc_toc_check {
    int checked;             /* there was something to compare (entry or file) */
    int failed;              /* they disagree */
    uint64_t entry_file_ofs; /* byte offset of the entry in the image (0: no table) */
    char text[320];          /* on failure: what disagreed; else what agreed */
} gc_toc_check;

/* One level file as the ISO directory has it, for the check. */
typedef struct gc_toc_file {
    int present;
    uint32_t lba;
    uint64_t size;
    const uint8_t *data; /* at least min(size, 0x800) bytes, NULL if not read */
    size_t data_size;
} gc_toc_file;

/* Check entries 0..26 of the table of contents `toc` (toc_size bytes, read
 * from LBA toc_lba) against files[]. Pure: no I/O, every read bounds-checked;
 * any byte string gives a result per level, never a crash. */
void gc_toc_check_levels(const uint8_t *toc, size_t toc_size, uint32_t toc_lba,
                         const gc_toc_file files[GC_LEVEL_COUNT], gc_toc_check out[GC_LEVEL_COUNT]);

typedef struct gc_corpus_image {
    void *iso;            /* the open libiso9660 image (iso9660_t *) */
    pthread_mutex_t lock; /* libiso9660 reads through one stream: one read at a time */
    int has_toc;          /* RC2.HDR was in the root directory */
    uint32_t toc_lba;
    uint64_t image_bytes;
    gc_toc_check toc[GC_LEVEL_COUNT];
} gc_corpus_image;

/* 1 when path names a regular file (an image), 0 for anything else (a
 * directory corpus, or nothing: the directory reader reports that). */
int gc_corpus_is_image(const char *path);

/* Scan an ISO 9660 image as a corpus: the same contract as gc_corpus_scan
 * (0 with missing levels as !ok entries; -1 with err when the image cannot
 * be read at all or holds no level file). Reads the directories, each level
 * file's first sector (corpus identity) and RC2.HDR, and checks the table of
 * contents; the level files' bytes are read by gc_corpus_file_load, through
 * gc_corpus_iso_file_load. Hostile images give an error naming the image
 * and what is wrong, never a crash or an unbounded allocation. */
int gc_corpus_open_iso(gc_corpus *c, const char *path, char *err, size_t errlen);
/* Read one scanned level file of an image (f->image set). 0, or -1 with
 * f->ok cleared and f->error set. Thread-safe. */
int gc_corpus_iso_file_load(gc_corpus_file *f);
void gc_corpus_close_iso(gc_corpus *c);

/* The disc.toc results of the selected levels (one per level with something
 * to check; only when the image has RC2.HDR and `only` is NULL or matches
 * "disc.toc") into rep. */
void gc_corpus_toc_to_report(const gc_corpus *c, const int *levels, size_t nlevels,
                             const char *only, gc_report *rep);

#endif
