/* SPDX-License-Identifier: MIT */
/* The synthetic disc image writer (gc_iso_write.h, docs/formats/disc-image.md §3). */
#include "gc_iso_write.h"

#include <cdio/iso9660.h>
#include <cdio/logging.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* disc-image.md §3: the layout, restated here on purpose (not shared with the reader). */
#define SECTOR         2048u
#define LBA_PVD        16u
#define LBA_TERMINATOR 17u
#define LBA_PATH_L     18u
#define LBA_PATH_M     19u
#define LBA_ROOT       20u
#define LBA_TOC        1001u /* where the game reads its table of contents */
#define LEVELS         GC_ISO_WRITE_LEVELS
#define TOC_ENTRY      24u /* level, audio, scene SectorRanges */
#define LBA_COPIES     (LBA_TOC + 1u)
#define LBA_FILES      (LBA_COPIES + LEVELS)
/* Every date in the image: 2004-11-11T00:00:00Z, the game's North American
 * release. Fixed so that the same corpus always gives the same bytes. */
#define IMAGE_TIME ((time_t)1100131200)

typedef struct level_in {
    const char *path;
    uint64_t size;
    uint32_t sectors, lba;
    uint8_t header[SECTOR]; /* the first sector of the file */
    uint32_t header_size;
} level_in;

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ECMA-119 9.3: records in a directory are ordered by file name, then
 * extension, each compared as if padded with spaces (so LEVEL1 < LEVEL10 <
 * LEVEL2); the version (all 1 here) does not separate them. */
static int iso_name_cmp(const char *a, const char *b)
{
    const char *da = strchr(a, '.'), *db = strchr(b, '.');
    size_t na = da ? (size_t)(da - a) : strcspn(a, ";");
    size_t nb = db ? (size_t)(db - b) : strcspn(b, ";");
    for (size_t i = 0; i < na || i < nb; i++) {
        unsigned ca = i < na ? (unsigned char)a[i] : ' ', cb = i < nb ? (unsigned char)b[i] : ' ';
        if (ca != cb)
            return ca < cb ? -1 : 1;
    }
    const char *ea = da ? da + 1 : "", *eb = db ? db + 1 : "";
    size_t la = strcspn(ea, ";"), lb = strcspn(eb, ";");
    for (size_t i = 0; i < la || i < lb; i++) {
        unsigned ca = i < la ? (unsigned char)ea[i] : ' ', cb = i < lb ? (unsigned char)eb[i] : ' ';
        if (ca != cb)
            return ca < cb ? -1 : 1;
    }
    return 0;
}

static int pwrite_all(int fd, const void *buf, size_t n, uint64_t ofs, char *err, size_t errlen,
                      const char *what)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t w = pwrite(fd, p, n, (off_t)ofs);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "cannot write %s: %s", what,
                     w < 0 ? strerror(errno) : "no space");
            return -1;
        }
        p += w;
        n -= (size_t)w;
        ofs += (uint64_t)w;
    }
    return 0;
}

/* libiso9660 reports through a process-wide log handler; while we build the
 * image nothing it could say is expected, and the harness, not the library,
 * decides what reaches stderr. */
static void quiet_log(cdio_log_level_t level, const char message[])
{
    (void)level;
    (void)message;
}

static int read_levels(level_in *lv, const char *const paths[LEVELS], char *err, size_t errlen)
{
    uint64_t lba = LBA_FILES;
    for (int i = 0; i < LEVELS; i++) {
        level_in *l = &lv[i];
        l->path = paths[i];
        int fd = open(l->path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "cannot read %s: %s", l->path,
                     fd < 0 ? strerror(errno) : "not a regular file");
            if (fd >= 0)
                close(fd);
            return -1;
        }
        l->size = (uint64_t)st.st_size;
        memset(l->header, 0, sizeof l->header);
        ssize_t n = pread(fd, l->header, sizeof l->header, 0);
        close(fd);
        if (n < 8) {
            snprintf(err, errlen, "%s: too short for a level header", l->path);
            return -1;
        }
        /* level-container.md: +0x00 header_size (0x60 for R&C2) */
        l->header_size = (uint32_t)l->header[0] | (uint32_t)l->header[1] << 8 |
                         (uint32_t)l->header[2] << 16 | (uint32_t)l->header[3] << 24;
        if (l->header_size < 8 || l->header_size > SECTOR || l->header_size > (uint64_t)n) {
            snprintf(err, errlen, "%s: header_size 0x%x does not fit one sector", l->path,
                     l->header_size);
            return -1;
        }
        uint64_t sectors = (l->size + SECTOR - 1) / SECTOR;
        /* ISO 9660 sizes are 32-bit bytes; the ToC's are s32 sectors */
        if (l->size > UINT32_MAX || lba + sectors > INT32_MAX) {
            snprintf(err, errlen, "%s: %llu bytes do not fit an ISO 9660 image", l->path,
                     (unsigned long long)l->size);
            return -1;
        }
        l->sectors = (uint32_t)sectors;
        l->lba = (uint32_t)lba;
        lba += sectors;
    }
    return 0;
}

/* Sectors 16..20: volume descriptors, path tables, the root directory. */
static void build_volume(const level_in *lv, uint32_t volume_sectors, uint8_t *vd /* 5 sectors */)
{
    const time_t t = IMAGE_TIME;
    uint8_t *pvd = vd, *term = vd + SECTOR, *pt_l = vd + 2 * SECTOR, *pt_m = vd + 3 * SECTOR,
            *root = vd + 4 * SECTOR;
    memset(vd, 0, 5 * SECTOR);

    /* root: ".", "..", then the files in ECMA-119 order */
    iso9660_dir_init_new(root, LBA_ROOT, SECTOR, LBA_ROOT, SECTOR, &t);
    char names[LEVELS + 1][16];
    uint32_t extent[LEVELS + 1], size[LEVELS + 1];
    int order[LEVELS + 1];
    for (int i = 0; i < LEVELS; i++) {
        snprintf(names[i], sizeof names[i], "LEVEL%d.WAD;1", i);
        extent[i] = lv[i].lba;
        size[i] = (uint32_t)lv[i].size;
    }
    snprintf(names[LEVELS], sizeof names[LEVELS], "RC2.HDR;1");
    extent[LEVELS] = LBA_TOC;
    size[LEVELS] = (1u + LEVELS) * SECTOR;
    for (int i = 0; i <= LEVELS; i++)
        order[i] = i;
    for (int i = 1; i <= LEVELS; i++) /* insertion sort: 28 names */
        for (int j = i; j > 0 && iso_name_cmp(names[order[j - 1]], names[order[j]]) > 0; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (int k = 0; k <= LEVELS; k++) {
        int i = order[k];
        iso9660_dir_add_entry_su(root, names[i], extent[i], size[i], 0, NULL, 0, &t);
    }

    iso9660_pathtable_init(pt_l);
    iso9660_pathtable_init(pt_m);
    iso9660_pathtable_l_add_entry(pt_l, "", LBA_ROOT, 1);
    iso9660_pathtable_m_add_entry(pt_m, "", LBA_ROOT, 1);

    iso9660_set_pvd(pvd, "GCVERIFY_SYNTHETIC", "GCVERIFY SYNTH", "", "", volume_sectors, root,
                    LBA_PATH_L, LBA_PATH_M, iso9660_pathtable_get_size(pt_l), &t);
    iso9660_set_evd(term);
}

/* RC2.HDR: the level table in its first sector, one header copy per sector
 * after it, +0x04 of each copy = the file's LBA (disc-image.md §2). */
static void build_toc(const level_in *lv, uint8_t *toc /* (1 + LEVELS) sectors */)
{
    memset(toc, 0, (1u + LEVELS) * SECTOR);
    for (int i = 0; i < LEVELS; i++) {
        uint8_t *e = toc + (size_t)i * TOC_ENTRY;
        put32(e + 0, LBA_COPIES + (uint32_t)i); /* level part: header copy LBA */
        put32(e + 4, lv[i].sectors);            /* the file's size in sectors */
        /* +0x08 audio, +0x10 scene: the synthetic disc has neither (0, 0) */
        uint8_t *copy = toc + (size_t)(1 + i) * SECTOR;
        memcpy(copy, lv[i].header, lv[i].header_size);
        put32(copy + 4, lv[i].lba);
    }
}

static int copy_level(int out, const level_in *l, uint8_t *buf, size_t buflen, char *err,
                      size_t errlen)
{
    int fd = open(l->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", l->path, strerror(errno));
        return -1;
    }
    uint64_t ofs = 0, base = (uint64_t)l->lba * SECTOR;
    while (ofs < l->size) {
        size_t want = l->size - ofs < buflen ? (size_t)(l->size - ofs) : buflen;
        ssize_t n = pread(fd, buf, want, (off_t)ofs);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(err, errlen, "%s changed while it was being copied (%s)", l->path,
                     n < 0 ? strerror(errno) : "shorter than before");
            close(fd);
            return -1;
        }
        if (pwrite_all(out, buf, (size_t)n, base + ofs, err, errlen, "the image") != 0) {
            close(fd);
            return -1;
        }
        ofs += (uint64_t)n;
    }
    close(fd);
    /* the tail of the last sector is zero */
    uint32_t tail = (uint32_t)(((uint64_t)l->sectors * SECTOR) - l->size);
    if (tail) {
        memset(buf, 0, tail);
        if (pwrite_all(out, buf, tail, base + l->size, err, errlen, "the image") != 0)
            return -1;
    }
    return 0;
}

int gc_iso_write_levels(const char *out_path, const char *const level_paths[GC_ISO_WRITE_LEVELS],
                        char *err, size_t errlen)
{
    static level_in lv[LEVELS]; /* 27 x 2 KiB headers; one writer at a time */
    if (read_levels(lv, level_paths, err, errlen) != 0)
        return -1;
    uint64_t volume = (uint64_t)lv[LEVELS - 1].lba + lv[LEVELS - 1].sectors;

    cdio_log_handler_t old = cdio_log_set_handler(quiet_log);
    uint8_t *vd = malloc(5 * SECTOR), *toc = malloc((1u + LEVELS) * SECTOR);
    size_t buflen = 1u << 20;
    uint8_t *buf = calloc(1, buflen);
    char tmp[PATH_MAX + 32] = "";
    int out = -1, rc = -1;
    if (!vd || !toc || !buf) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    build_volume(lv, (uint32_t)volume, vd);
    build_toc(lv, toc);

    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out_path, (long)getpid());
    out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (out < 0) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        goto done;
    }
    /* zeros in every sector nothing is placed in: system area, 21..1000 */
    memset(buf, 0, buflen);
    for (uint64_t s = 0; s < LBA_TOC; s += buflen / SECTOR) {
        uint64_t n = LBA_TOC - s < buflen / SECTOR ? LBA_TOC - s : buflen / SECTOR;
        if (pwrite_all(out, buf, (size_t)(n * SECTOR), s * SECTOR, err, errlen, "the image") != 0)
            goto done;
    }
    if (pwrite_all(out, vd, 5 * SECTOR, (uint64_t)LBA_PVD * SECTOR, err, errlen, "the image") !=
            0 ||
        pwrite_all(out, toc, (1u + LEVELS) * SECTOR, (uint64_t)LBA_TOC * SECTOR, err, errlen,
                   "the image") != 0)
        goto done;
    for (int i = 0; i < LEVELS; i++)
        if (copy_level(out, &lv[i], buf, buflen, err, errlen) != 0)
            goto done;
    if (fsync(out) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto done;
    }
    if (close(out) != 0) {
        out = -1;
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        goto done;
    }
    out = -1;
    if (rename(tmp, out_path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, out_path, strerror(errno));
        goto done;
    }
    tmp[0] = '\0';
    rc = 0;
done:
    if (out >= 0)
        close(out);
    if (rc != 0 && tmp[0])
        unlink(tmp);
    cdio_log_set_handler(old);
    free(vd);
    free(toc);
    free(buf);
    return rc;
}
