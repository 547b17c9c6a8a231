/* SPDX-License-Identifier: MIT */
/* The RC2.HDR table of contents against the level files of an image
 * (docs/formats/disc-image.md §2; gc_corpus_iso.h). Written from that page,
 * not from the image writer: the two share nothing. Every read goes through
 * the bounds-checked reader. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gc_corpus_iso.h"
#include "gc_reader.h"

#define TOC_SECTOR     0x800u
#define TOC_ENTRY      24u  /* three SectorRanges: level, audio, scene (R&C2 order) */
#define TOC_GAME_LBA   1001 /* where the game reads the table of contents */
#define LEVEL_HDR_R2   0x60 /* R&C2 level container header sizes (wad_identifier.cpp) */
#define LEVEL_HDR_R2_B 0x68

static int32_t s32_at(const uint8_t *toc, size_t size, uint64_t ofs, int *ok)
{
    gc_reader r = gc_reader_make(toc, size, 0);
    if (ofs > size || !gc_seek(&r, (size_t)ofs)) {
        *ok = 0;
        return 0;
    }
    int32_t v = gc_s32le(&r);
    if (r.overrun)
        *ok = 0;
    return v;
}

/* A level part's header-copy LBA that points at a level header inside the
 * table of contents, in a sector after `after_sector` (relative). */
static int points_at_level_header(const uint8_t *toc, size_t size, uint32_t toc_lba, int32_t lba,
                                  uint64_t after_sector)
{
    if (lba <= 0 || (uint32_t)lba < toc_lba)
        return 0;
    uint64_t rel = (uint64_t)((uint32_t)lba - toc_lba);
    if (rel <= after_sector)
        return 0;
    int ok = 1;
    int32_t hs = s32_at(toc, size, rel * TOC_SECTOR, &ok);
    return ok && (hs == LEVEL_HDR_R2 || hs == LEVEL_HDR_R2_B);
}

/* disc-image.md §2 "Finding the level table". -1 when there is none. */
static int64_t find_level_table(const uint8_t *toc, size_t size, uint32_t toc_lba)
{
    for (uint64_t o = 0; o + 2 * TOC_ENTRY <= size; o += 4) {
        int ok = 1;
        int32_t a0 = s32_at(toc, size, o, &ok), a1 = s32_at(toc, size, o + TOC_ENTRY, &ok);
        if (ok && points_at_level_header(toc, size, toc_lba, a0, o / TOC_SECTOR) &&
            points_at_level_header(toc, size, toc_lba, a1, o / TOC_SECTOR))
            return (int64_t)o;
    }
    return -1;
}

static void addf(gc_toc_check *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void addf(gc_toc_check *c, const char *fmt, ...)
{
    size_t l = strlen(c->text);
    if (l + 3 >= sizeof c->text)
        return;
    if (l)
        l += (size_t)snprintf(c->text + l, sizeof c->text - l, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->text + l, sizeof c->text - l, fmt, ap);
    va_end(ap);
}

static void check_one(const uint8_t *toc, size_t size, uint32_t toc_lba, int64_t table, int i,
                      const gc_toc_file *f, gc_toc_check *c)
{
    memset(c, 0, sizeof *c);
    if (toc_lba != TOC_GAME_LBA)
        addf(c, "RC2.HDR is at LBA %u; the game reads its table of contents from LBA %d", toc_lba,
             TOC_GAME_LBA);
    if (table < 0) {
        if (f->present) {
            c->checked = c->failed = 1;
            addf(c, "RC2.HDR holds no level table (no two consecutive entries point at level "
                    "header copies inside it)");
        }
        return;
    }
    uint64_t e = (uint64_t)table + (uint64_t)i * TOC_ENTRY;
    c->entry_file_ofs = (uint64_t)toc_lba * TOC_SECTOR + e;
    int ok = 1;
    int32_t lba = s32_at(toc, size, e, &ok), sectors = s32_at(toc, size, e + 4, &ok);
    if (!ok) {
        if (f->present) {
            c->checked = c->failed = 1;
            addf(c, "RC2.HDR (%zu bytes) ends before level table entry %d", size, i);
        }
        return;
    }
    int listed = lba > 0 && sectors > 0;
    if (!listed && !f->present)
        return;
    c->checked = 1;
    if (c->text[0])
        c->failed = 1; /* the ToC is not where the game looks */
    if (!listed) {
        c->failed = 1;
        addf(c, "LEVEL%d.WAD is on the filesystem (LBA %u, %llu bytes) but entry %d lists no level",
             i, f->lba, (unsigned long long)f->size, i);
        return;
    }
    if (!f->present) {
        c->failed = 1;
        addf(c,
             "entry %d lists a level (header copy at LBA %d, %d sectors) but the filesystem has "
             "no LEVEL%d.WAD",
             i, lba, sectors, i);
        return;
    }
    uint64_t rel = (uint32_t)lba >= toc_lba ? (uint64_t)((uint32_t)lba - toc_lba) : UINT64_MAX;
    int32_t hs = 0, copy_sector = 0;
    if (rel != UINT64_MAX) {
        hs = s32_at(toc, size, rel * TOC_SECTOR, &ok);
        copy_sector = s32_at(toc, size, rel * TOC_SECTOR + 4, &ok);
    }
    if (rel == UINT64_MAX || !ok) {
        c->failed = 1;
        addf(c, "entry %d: header copy LBA %d lies outside RC2.HDR (LBA %u, %zu bytes)", i, lba,
             toc_lba, size);
        return;
    }
    if ((hs != LEVEL_HDR_R2 && hs != LEVEL_HDR_R2_B) ||
        !gc_range_ok((size_t)(rel * TOC_SECTOR), (size_t)hs, size)) {
        c->failed = 1;
        addf(c, "entry %d: the header copy at LBA %d has header_size 0x%x, not a level header", i,
             lba, (unsigned)hs);
        return;
    }
    uint64_t file_sectors = (f->size + TOC_SECTOR - 1) / TOC_SECTOR;
    if ((uint32_t)copy_sector != f->lba) {
        c->failed = 1;
        addf(c, "header copy sector %d != LEVEL%d.WAD's LBA %u", copy_sector, i, f->lba);
    }
    if ((uint64_t)sectors != file_sectors) {
        c->failed = 1;
        addf(c, "entry size %d sectors != LEVEL%d.WAD's %llu sectors (%llu bytes)", sectors, i,
             (unsigned long long)file_sectors, (unsigned long long)f->size);
    }
    /* the copy is the file's header except +0x04 (rewritten to the LBA) */
    const uint8_t *copy = toc + rel * TOC_SECTOR;
    if (!f->data || f->data_size < (size_t)hs) {
        c->failed = 1;
        addf(c, "LEVEL%d.WAD is shorter (%zu bytes) than the header copy (0x%x)", i, f->data_size,
             (unsigned)hs);
    } else {
        for (size_t k = 0; k < (size_t)hs; k++)
            if ((k < 4 || k >= 8) && copy[k] != f->data[k]) {
                c->failed = 1;
                addf(c,
                     "header copy differs from LEVEL%d.WAD's header at +0x%zx (0x%02x != 0x%02x)",
                     i, k, copy[k], f->data[k]);
                break;
            }
    }
    if (!c->failed)
        addf(c, "entry %d: header copy at LBA %d, sector %u, %d sectors: agrees with LEVEL%d.WAD",
             i, lba, f->lba, sectors, i);
}

void gc_toc_check_levels(const uint8_t *toc, size_t toc_size, uint32_t toc_lba,
                         const gc_toc_file files[GC_LEVEL_COUNT], gc_toc_check out[GC_LEVEL_COUNT])
{
    int64_t table = toc ? find_level_table(toc, toc_size, toc_lba) : -1;
    for (int i = 0; i < GC_LEVEL_COUNT; i++)
        check_one(toc, toc ? toc_size : 0, toc_lba, table, i, &files[i], &out[i]);
}
