/* SPDX-License-Identifier: MIT */
/* A disc image as a corpus (gc_corpus_iso.h, docs/formats/disc-image.md).
 *
 * libiso9660 (libcdio) parses the volume and its directories and reads the
 * extents; this file decides what is found, bounds every size the image
 * declares before anything is allocated from it, and checks the table of
 * contents. The scan reads the directories, RC2.HDR and each level's first
 * sector; a level's bytes are read when it runs (gc_corpus_file_load), into
 * memory: nothing is extracted to disk. */
#include "gc_corpus_iso.h"

#include "gc_reader.h"

#include <cdio/iso9660.h>
#include <cdio/logging.h>
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define ISO_SECTOR      2048u
#define MAX_DIR_BYTES   (1u << 20)  /* a directory of ~20,000 entries; more is hostile */
#define MAX_DIRS        1024        /* directories visited at most (a loop ends here) */
#define MAX_DEPTH       8           /* ECMA-119's own limit */
#define MAX_TOC_BYTES   (16u << 20) /* Wrench reads 2 MiB; anything past 16 is not a ToC */
#define TOC_NAME        "RC2.HDR"
#define HEADER_PEEK_MAX ISO_SECTOR

/* ---- libiso9660's messages: kept for our error text, never printed ---- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_last[256];

static void capture_log(cdio_log_level_t level, const char message[])
{
    if (level < CDIO_LOG_WARN)
        return;
    pthread_mutex_lock(&log_lock);
    snprintf(log_last, sizeof log_last, "%s", message ? message : "");
    log_last[strcspn(log_last, "\n")] = '\0';
    pthread_mutex_unlock(&log_lock);
}

static void last_log(char *out, size_t n)
{
    pthread_mutex_lock(&log_lock);
    snprintf(out, n, "%s", log_last[0] ? log_last : "no detail from libiso9660");
    log_last[0] = '\0';
    pthread_mutex_unlock(&log_lock);
}

int gc_corpus_is_image(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* "LEVEL12.WAD;1" -> 12 (any case, no leading zeros, version ignored). */
static int level_of(const char *iso_name, char *plain, size_t n)
{
    snprintf(plain, n, "%.*s", (int)strcspn(iso_name, ";"), iso_name);
    size_t l = strlen(plain);
    if (l && plain[l - 1] == '.') /* "NAME." when a name has no extension */
        plain[l - 1] = '\0';
    return gc_corpus_level_index_of(plain);
}

typedef struct found {
    int depth;
    char path[PATH_MAX]; /* in the image, for the label and tie-breaks */
    char name[64];
    uint32_t lba;
    uint64_t size;
} found;

typedef struct scan {
    iso9660_t *iso;
    uint64_t image_sectors;
    found level[GC_LEVEL_COUNT];
    int have[GC_LEVEL_COUNT];
    int toc_found;
    uint32_t toc_lba;
    uint64_t toc_size;
    /* directories still to read, breadth first (the shallowest file wins) */
    char (*queue)[PATH_MAX];
    int *qdepth;
    uint32_t *qlsn;
    size_t qhead, qtail;
} scan;

static int extent_inside(const scan *s, uint64_t lsn, uint64_t bytes)
{
    uint64_t sectors = (bytes + ISO_SECTOR - 1) / ISO_SECTOR;
    return lsn <= s->image_sectors && sectors <= s->image_sectors - lsn;
}

static int seen_dir(const scan *s, uint32_t lsn)
{
    for (size_t i = 0; i < s->qtail; i++)
        if (s->qlsn[i] == lsn)
            return 1;
    return 0;
}

static int read_dir(scan *s, const char *dir, int depth, const char *image, char *err,
                    size_t errlen)
{
    CdioList_t *list = iso9660_ifs_readdir(s->iso, dir);
    if (!list) {
        char why[256];
        last_log(why, sizeof why);
        snprintf(err, errlen, "%s: cannot read directory %s of the ISO 9660 image (%s)", image, dir,
                 why);
        return -1;
    }
    CdioListNode_t *node;
    _CDIO_LIST_FOREACH(node, list)
    {
        iso9660_stat_t *st = _cdio_list_node_data(node);
        if (!st || !st->filename[0] || strcmp(st->filename, ".") == 0 ||
            strcmp(st->filename, "..") == 0)
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", st->filename) >=
            (int)sizeof path)
            continue;
        if (st->type == _STAT_DIR) {
            if (depth + 1 >= MAX_DEPTH || seen_dir(s, st->lsn))
                continue;
            if (st->size > MAX_DIR_BYTES || !extent_inside(s, st->lsn, st->size)) {
                snprintf(err, errlen,
                         "%s: directory %s declares %u bytes at LBA %u, past the image or over "
                         "%u bytes",
                         image, path, st->size, (unsigned)st->lsn, MAX_DIR_BYTES);
                iso9660_filelist_free(list);
                return -1;
            }
            if (s->qtail < MAX_DIRS) {
                snprintf(s->queue[s->qtail], PATH_MAX, "%s", path);
                s->qdepth[s->qtail] = depth + 1;
                s->qlsn[s->qtail] = (uint32_t)st->lsn;
                s->qtail++;
            }
            continue;
        }
        char plain[256];
        int idx = level_of(st->filename, plain, sizeof plain);
        if (depth == 0 && strcasecmp(plain, TOC_NAME) == 0) {
            s->toc_found = 1;
            s->toc_lba = (uint32_t)st->lsn;
            s->toc_size = st->size;
            continue;
        }
        if (idx < 0 || strlen(plain) >= sizeof s->level[idx].name)
            continue;
        found *f = &s->level[idx];
        if (s->have[idx] && (f->depth < depth || (f->depth == depth && strcmp(f->path, path) <= 0)))
            continue;
        s->have[idx] = 1;
        f->depth = depth;
        snprintf(f->path, sizeof f->path, "%s", path);
        snprintf(f->name, sizeof f->name, "%s", plain);
        f->lba = (uint32_t)st->lsn;
        f->size = st->size;
    }
    iso9660_filelist_free(list);
    return 0;
}

/* Read [lba, lba + bytes) through libiso9660 into a new buffer (bytes was
 * checked against the image's size first). */
static uint8_t *read_extent(iso9660_t *iso, uint32_t lba, uint64_t bytes, char *why, size_t n)
{
    uint64_t sectors = (bytes + ISO_SECTOR - 1) / ISO_SECTOR;
    uint8_t *buf = malloc(sectors ? (size_t)(sectors * ISO_SECTOR) : 1);
    if (!buf) {
        snprintf(why, n, "out of memory for %llu bytes", (unsigned long long)bytes);
        return NULL;
    }
    /* in pieces of 512 sectors: one short read names where it happened */
    for (uint64_t done = 0; done < sectors;) {
        long chunk = (long)(sectors - done < 512 ? sectors - done : 512);
        long got = iso9660_iso_seek_read(iso, buf + done * ISO_SECTOR, (lsn_t)(lba + done), chunk);
        if (got != chunk * (long)ISO_SECTOR) {
            char lib[200];
            last_log(lib, sizeof lib);
            snprintf(why, n, "short read at LBA %llu (%s)", (unsigned long long)(lba + done), lib);
            free(buf);
            return NULL;
        }
        done += (uint64_t)chunk;
    }
    return buf;
}

int gc_corpus_open_iso(gc_corpus *c, const char *path, char *err, size_t errlen)
{
    /* every libiso9660 message lands in log_last instead of stderr */
    cdio_log_set_handler(capture_log);

    memset(c, 0, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "%s", path);
    snprintf(c->label, sizeof c->label, "%s", path);
    /* a corpus the user supplies, like a directory: baselines are matched by
     * content, and the image's report equals the directory's (README) */
    snprintf(c->key, sizeof c->key, "directory");
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        c->files[i].index = i;
        snprintf(c->files[i].name, sizeof c->files[i].name, "LEVEL%d.WAD", i);
        snprintf(c->files[i].error, sizeof c->files[i].error, "LEVEL%d.WAD not found in %s", i,
                 path);
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot read disc image %s: %s", path,
                 errno ? strerror(errno) : "not a regular file");
        return -1;
    }
    gc_corpus_image *img = calloc(1, sizeof *img);
    scan *s = calloc(1, sizeof *s);
    if (s) {
        s->queue = calloc(MAX_DIRS, sizeof *s->queue);
        s->qdepth = calloc(MAX_DIRS, sizeof *s->qdepth);
        s->qlsn = calloc(MAX_DIRS, sizeof *s->qlsn);
    }
    int rc = -1;
    if (!img || !s || !s->queue || !s->qdepth || !s->qlsn) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    img->image_bytes = (uint64_t)st.st_size;
    s->image_sectors = (uint64_t)st.st_size / ISO_SECTOR;
    s->iso = iso9660_open_ext(path, ISO_EXTENSION_NONE);
    if (!s->iso) {
        char why[256];
        last_log(why, sizeof why);
        snprintf(err, errlen,
                 "%s is not a readable ISO 9660 image (no primary volume descriptor 'CD001' at "
                 "sector 16: %s)",
                 path, why);
        goto out;
    }
    iso9660_pvd_t pvd;
    if (!iso9660_ifs_read_pvd(s->iso, &pvd)) {
        char why[256];
        last_log(why, sizeof why);
        snprintf(err, errlen, "%s: cannot read the primary volume descriptor (%s)", path, why);
        goto out;
    }
    /* ECMA-119 9.1: the root record's extent at +2 and size at +10, both-endian;
     * the little-endian halves, read by hand (libcdio's inline from_733 shifts
     * a byte into the sign bit on hostile values) */
    const uint8_t *rr = (const uint8_t *)&pvd.root_directory_record;
    uint32_t root_lsn = gc_load_u32le(rr + 2), root_bytes = gc_load_u32le(rr + 10);
    if (iso9660_get_pvd_block_size(&pvd) != ISO_SECTOR || root_bytes == 0 ||
        root_bytes > MAX_DIR_BYTES || !extent_inside(s, root_lsn, root_bytes)) {
        snprintf(err, errlen,
                 "%s: not a 2048-byte-sector ISO 9660 volume with a root directory inside it "
                 "(block size %d, root at LBA %u, %u bytes; image %llu sectors)",
                 path, iso9660_get_pvd_block_size(&pvd), root_lsn, root_bytes,
                 (unsigned long long)s->image_sectors);
        goto out;
    }
    snprintf(s->queue[0], PATH_MAX, "/");
    s->qlsn[0] = root_lsn;
    s->qtail = 1;
    while (s->qhead < s->qtail) {
        size_t k = s->qhead++;
        if (read_dir(s, s->queue[k], s->qdepth[k], path, err, errlen) != 0)
            goto out;
    }

    /* the level files: bounded by the image; their first sector now (the
     * corpus identity and the ToC check), the rest when a level runs */
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        if (!s->have[i])
            continue;
        found *f = &s->level[i];
        gc_corpus_file *cf = &c->files[i];
        snprintf(cf->name, sizeof cf->name, "%s", f->name);
        snprintf(cf->path, sizeof cf->path, "%s:%s", path, f->path);
        cf->error[0] = '\0';
        if (!extent_inside(s, f->lba, f->size) || f->size > SIZE_MAX) {
            snprintf(cf->error, sizeof cf->error,
                     "%s:%s: its extent (LBA %u, %llu bytes) runs past the end of the image "
                     "(%llu sectors)",
                     path, f->path, f->lba, (unsigned long long)f->size,
                     (unsigned long long)s->image_sectors);
            continue;
        }
        char why[256];
        uint64_t head = f->size < sizeof cf->head ? f->size : sizeof cf->head;
        uint8_t *h = head ? read_extent(s->iso, f->lba, head, why, sizeof why) : NULL;
        if (head && !h) {
            snprintf(cf->error, sizeof cf->error, "%s:%s: %s", path, f->path, why);
            continue;
        }
        if (h)
            memcpy(cf->head, h, (size_t)head);
        free(h);
        cf->head_len = (size_t)head;
        cf->size = (size_t)f->size;
        cf->image = img;
        cf->image_lba = f->lba;
        cf->ok = 1;
        c->found++;
    }
    if (c->found == 0) {
        snprintf(err, errlen, "no readable LEVEL*.WAD file in the disc image %s", path);
        goto out;
    }

    /* the table of contents against what was found */
    if (s->toc_found) {
        img->has_toc = 1;
        img->toc_lba = s->toc_lba;
        gc_toc_file tf[GC_LEVEL_COUNT];
        memset(tf, 0, sizeof tf);
        for (int i = 0; i < GC_LEVEL_COUNT; i++)
            if (s->have[i]) {
                tf[i].present = 1;
                tf[i].lba = s->level[i].lba;
                tf[i].size = s->level[i].size;
                tf[i].data = c->files[i].ok ? c->files[i].head : NULL;
                tf[i].data_size = c->files[i].ok ? c->files[i].head_len : 0;
            }
        uint8_t *toc = NULL;
        uint64_t toc_bytes = s->toc_size > MAX_TOC_BYTES ? MAX_TOC_BYTES : s->toc_size;
        char why[256] = "";
        if (extent_inside(s, s->toc_lba, toc_bytes))
            toc = read_extent(s->iso, s->toc_lba, toc_bytes, why, sizeof why);
        else
            snprintf(why, sizeof why, "its extent (LBA %u, %llu bytes) runs past the image",
                     s->toc_lba, (unsigned long long)s->toc_size);
        if (toc) {
            gc_toc_check_levels(toc, (size_t)toc_bytes, s->toc_lba, tf, img->toc);
            free(toc);
        } else {
            for (int i = 0; i < GC_LEVEL_COUNT; i++)
                if (s->have[i]) {
                    img->toc[i].checked = img->toc[i].failed = 1;
                    snprintf(img->toc[i].text, sizeof img->toc[i].text,
                             "RC2.HDR cannot be read: %s", why);
                }
        }
    }
    pthread_mutex_init(&img->lock, NULL);
    img->iso = s->iso; /* stays open for gc_corpus_iso_file_load */
    s->iso = NULL;
    c->image = img;
    img = NULL;
    rc = 0;
out:
    if (s && s->iso)
        iso9660_close(s->iso);
    if (s) {
        free(s->queue);
        free(s->qdepth);
        free(s->qlsn);
    }
    free(s);
    if (img) {
        free(img);
        for (int i = 0; i < GC_LEVEL_COUNT; i++) {
            c->files[i].ok = 0;
            c->files[i].image = NULL;
        }
    }
    return rc;
}

int gc_corpus_iso_file_load(gc_corpus_file *f)
{
    gc_corpus_image *img = f->image;
    if (!f->ok || !img)
        return -1;
    if (f->data || f->size == 0)
        return 0;
    char why[256];
    pthread_mutex_lock(&img->lock);
    uint8_t *buf = read_extent(img->iso, f->image_lba, f->size, why, sizeof why);
    pthread_mutex_unlock(&img->lock);
    if (!buf) {
        snprintf(f->error, sizeof f->error, "%s: %s", f->path, why);
        f->ok = 0;
        return -1;
    }
    f->data = buf;
    return 0;
}

void gc_corpus_close_iso(gc_corpus *c)
{
    gc_corpus_image *img = c->image;
    if (!img)
        return;
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        gc_corpus_file *f = &c->files[i];
        free((void *)f->data);
        f->data = NULL;
        f->ok = 0;
        f->image = NULL;
    }
    iso9660_close(img->iso);
    pthread_mutex_destroy(&img->lock);
    free(img);
    c->image = NULL;
}

void gc_corpus_toc_to_report(const gc_corpus *c, const int *levels, size_t nlevels,
                             const char *only, gc_report *rep)
{
    const gc_corpus_image *img = c->image;
    if (!img || !img->has_toc || (only && fnmatch(only, GC_TOC_INVARIANT, 0) != 0))
        return;
    for (size_t k = 0; k < nlevels; k++) {
        int i = levels[k];
        if (i < 0 || i >= GC_LEVEL_COUNT || !img->toc[i].checked)
            continue;
        const gc_toc_check *t = &img->toc[i];
        gc_rep_result *x = gc_report_add_result(rep, GC_TOC_INVARIANT, i);
        if (!x)
            continue;
        /* the table of contents is what the game loads by: a disagreement gates */
        snprintf(x->severity, sizeof x->severity, "error");
        snprintf(x->tier, sizeof x->tier, "gate");
        snprintf(x->scope, sizeof x->scope, "level");
        x->checked = 1;
        x->failed = (uint64_t)t->failed;
        x->gating = t->failed;
        x->why = strdup("RC2.HDR is what the game loads a level by: a LEVEL file that disagrees "
                        "with its entry (moved, resized, or rebuilt without rewriting the table "
                        "of contents) is not the level the game reads "
                        "(docs/formats/disc-image.md)");
        if (t->failed) {
            x->samples = calloc(1, sizeof *x->samples);
            if (x->samples) {
                x->samples[0].level = i;
                x->samples[0].row = i;
                x->samples[0].file_ofs = t->entry_file_ofs;
                x->samples[0].values = strdup(t->text);
                x->samples[0].parent_row = -1;
                if (t->entry_file_ofs) {
                    char loc[160];
                    uint64_t base = (uint64_t)img->toc_lba * 2048u;
                    snprintf(loc, sizeof loc, "RC2.HDR+0x%llx (level table entry %d, image+0x%llx)",
                             (unsigned long long)(t->entry_file_ofs - base), i,
                             (unsigned long long)t->entry_file_ofs);
                    x->samples[0].location = strdup(loc);
                }
                x->sample_count = 1;
            }
        }
    }
}
