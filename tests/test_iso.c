/* SPDX-License-Identifier: MIT */
/* Disc images (issue 14; docs/formats/disc-image.md): the synthetic image
 * writer against xorriso (an independent ISO 9660 implementation) and the
 * reader against images xorriso wrote; determinism of the image bytes; the
 * sweep of an image equal to the sweep of its directory; every table-of-
 * contents disagreement a disc.toc finding; hostile images a clear error.
 * Runs on the small synthetic corpus (the build tree's test cache). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gc_corpus.h"
#include "gc_corpus_iso.h"
#include "gc_fsutil.h"
#include "gc_iso_write.h"
#include "gc_report.h"
#include "gc_sweep.h"
#include "sy_corpus.h"

#define SECTOR 2048u

static char corpus_dir[4096];

static void setup(void)
{
    setenv("GC_CACHE_DIR", GC_BINARY_DIR "/test-cache", 1);
    unsetenv("CI");
    char err[512] = "";
    cr_assert_eq(gc_corpus_synthetic(SY_SCALE_SMALL, 1, 2, 0, corpus_dir, sizeof corpus_dir, err,
                                     sizeof err),
                 0, "%s", err);
}

static void tmpdir(char *out, size_t n, const char *tag)
{
    snprintf(out, n, "%s/test-tmp/iso-%s-%ld", GC_BINARY_DIR, tag, (long)getpid());
    gc_rm_rf(out);
    char err[256];
    cr_assert_eq(gc_mkdir_p(out, err, sizeof err), 0, "%s", err);
}

static void write_image(const char *iso)
{
    static char paths[GC_ISO_WRITE_LEVELS][4200];
    const char *p[GC_ISO_WRITE_LEVELS];
    for (int i = 0; i < GC_ISO_WRITE_LEVELS; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/LEVEL%d.WAD", corpus_dir, i);
        p[i] = paths[i];
    }
    char err[1024] = "";
    cr_assert_eq(gc_iso_write_levels(iso, p, err, sizeof err), 0, "%s", err);
}

static uint8_t *slurp(const char *path, size_t *n)
{
    char err[512];
    uint8_t *b = (uint8_t *)gc_read_file(path, n, err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    return b;
}

static void spit(const char *path, const uint8_t *b, size_t n)
{
    char err[512];
    cr_assert_eq(gc_write_file_atomic(path, b, n, err, sizeof err), 0, "%s", err);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static int have_xorriso(void)
{
    return system("xorriso -version >/dev/null 2>&1") == 0;
}

/* xorriso's own reading of the image: LBA and size of /name, -1 if absent. */
static long xorriso_lba(const char *iso, const char *name, long *size)
{
    char cmd[8192], out[4400];
    snprintf(out, sizeof out, "%s.lba.txt", iso);
    snprintf(cmd, sizeof cmd, "xorriso -indev '%s' -find / -exec report_lba -- > '%s' 2>/dev/null",
             iso, out);
    cr_assert_eq(system(cmd), 0, "xorriso could not read %s", iso);
    FILE *f = fopen(out, "r");
    cr_assert_not_null(f);
    char line[1024], want[128];
    snprintf(want, sizeof want, "'/%s'", name);
    long lba = -1;
    while (fgets(line, sizeof line, f)) {
        long xt, l, blocks, sz;
        char path[512];
        if (sscanf(line, "File data lba: %ld , %ld , %ld , %ld , %511s", &xt, &l, &blocks, &sz,
                   path) == 5 &&
            strcmp(path, want) == 0) {
            lba = l;
            *size = sz;
        }
    }
    fclose(f);
    return lba;
}

Test(iso, xorriso_reads_the_synthetic_image_as_documented, .init = setup, .timeout = 900)
{
    cr_assert(have_xorriso(), "xorriso is needed for this test (bash ci/deps.sh installs it)");
    char dir[1024], iso[1100];
    tmpdir(dir, sizeof dir, "xorriso");
    snprintf(iso, sizeof iso, "%s/s.iso", dir);
    write_image(iso);
    long size = 0;
    cr_assert_eq(xorriso_lba(iso, "RC2.HDR", &size), 1001, "RC2.HDR must be at sector 1001");
    cr_assert_eq(size, 28 * (long)SECTOR);
    long expect = 1029;
    size_t n = 0;
    uint8_t *img = slurp(iso, &n);
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        char name[32], path[4200];
        snprintf(name, sizeof name, "LEVEL%d.WAD", i);
        snprintf(path, sizeof path, "%s/%s", corpus_dir, name);
        struct stat st;
        cr_assert_eq(stat(path, &st), 0);
        long lba = xorriso_lba(iso, name, &size);
        cr_assert_eq(lba, expect, "%s at LBA %ld, the layout says %ld", name, lba, expect);
        cr_assert_eq(size, (long)st.st_size);
        /* RC2.HDR entry i and its header copy, read here byte by byte */
        const uint8_t *e = img + 1001u * SECTOR + 24u * (unsigned)i;
        cr_assert_eq(get32(e), 1002u + (unsigned)i, "entry %d: header copy LBA", i);
        cr_assert_eq(get32(e + 4), (uint32_t)((st.st_size + SECTOR - 1) / SECTOR));
        cr_assert_eq(get32(e + 8) | get32(e + 12) | get32(e + 16) | get32(e + 20), 0u);
        const uint8_t *copy = img + (1002u + (unsigned)i) * SECTOR;
        cr_assert_eq(get32(copy + 4), (uint32_t)lba, "the copy's sector field is the file's LBA");
        size_t fn;
        uint8_t *file = slurp(path, &fn);
        cr_assert_eq(memcmp(copy, file, 4), 0);
        cr_assert_eq(memcmp(copy + 8, file + 8, 0x60 - 8), 0);
        cr_assert_eq(memcmp(img + (size_t)lba * SECTOR, file, fn), 0, "%s copied byte for byte",
                     name);
        free(file);
        expect += (long)((st.st_size + SECTOR - 1) / SECTOR);
    }
    cr_assert_eq((long)(n / SECTOR), expect, "the image ends after the last level");
    free(img);
}

Test(iso, image_bytes_are_deterministic, .init = setup, .timeout = 900)
{
    char dir[1024], a[1100], b[1100];
    tmpdir(dir, sizeof dir, "determinism");
    snprintf(a, sizeof a, "%s/a.iso", dir);
    snprintf(b, sizeof b, "%s/b.iso", dir);
    setenv("TZ", "UTC", 1);
    tzset();
    write_image(a);
    setenv("TZ", "Pacific/Chatham", 1); /* +12:45: any local-time leak shows */
    tzset();
    sleep(1); /* and any clock leak */
    write_image(b);
    unsetenv("TZ");
    tzset();
    size_t na, nb;
    uint8_t *x = slurp(a, &na), *y = slurp(b, &nb);
    cr_assert_eq(na, nb);
    cr_assert_eq(memcmp(x, y, na), 0, "two writes of one corpus differ");
    /* the dates are the fixed 2004-11-11 (PVD creation date at +813) */
    cr_assert_eq(memcmp(x + 16 * SECTOR + 813, "2004111100000000", 16), 0);
    free(x);
    free(y);
}

Test(iso, reader_finds_files_xorriso_wrote, .init = setup, .timeout = 900)
{
    cr_assert(have_xorriso(), "xorriso is needed for this test (bash ci/deps.sh installs it)");
    char dir[1024], iso[1100], cmd[12000], err[1024] = "";
    tmpdir(dir, sizeof dir, "foreign");
    snprintf(iso, sizeof iso, "%s/x.iso", dir);
    /* plain ISO 9660 (no Rock Ridge, no Joliet), the files in a subdirectory */
    snprintf(cmd, sizeof cmd,
             "xorriso -outdev '%s' -rockridge off -joliet off -map '%s' /DATA "
             "-rm /DATA/COMPLETE -- >/dev/null 2>&1",
             iso, corpus_dir);
    cr_assert_eq(system(cmd), 0, "xorriso could not write %s", iso);
    gc_corpus c;
    cr_assert_eq(gc_corpus_open(&c, iso, err, sizeof err), 0, "%s", err);
    cr_assert_not_null(c.image);
    cr_assert_eq(c.found, GC_LEVEL_COUNT);
    cr_assert_eq(c.image->has_toc, 0, "xorriso's image has no RC2.HDR");
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/LEVEL%d.WAD", corpus_dir, i);
        size_t n;
        uint8_t *file = slurp(path, &n);
        cr_assert(c.files[i].ok, "LEVEL%d.WAD: %s", i, c.files[i].error);
        cr_assert_eq(c.files[i].size, n);
        cr_assert_eq(memcmp(c.files[i].data, file, n), 0, "LEVEL%d.WAD bytes", i);
        cr_assert(strstr(c.files[i].path, ":/DATA/LEVEL") != NULL, "%s", c.files[i].path);
        cr_assert_eq(c.image->toc[i].checked, 0);
        free(file);
    }
    gc_corpus_close(&c);
}

/* Sweep reports of the directory and of its image: equal once the image's
 * disc.toc results are taken out and the label (the path) is the same. */
static char *report_without_toc(const char *corpus, int *toc_results, int *toc_failed)
{
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    o.scale = SY_SCALE_SMALL;
    o.corpus_dir = corpus;
    o.baseline = "";
    o.frames_golden = GC_SOURCE_DIR "/golden/frames-small.yaml";
    o.jobs = 2;
    gc_report rep;
    char err[4096] = "";
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    cr_assert_lt(rc, 2, "%s", err);
    *toc_results = *toc_failed = 0;
    size_t k = 0;
    for (size_t i = 0; i < rep.result_count; i++) {
        if (strcmp(rep.results[i].invariant, GC_TOC_INVARIANT) == 0) {
            (*toc_results)++;
            *toc_failed += (int)rep.results[i].failed;
            for (size_t s = 0; s < rep.results[i].sample_count; s++)
                free(rep.results[i].samples[s].values);
            free(rep.results[i].samples);
            free(rep.results[i].invariant);
            continue;
        }
        rep.results[k++] = rep.results[i];
    }
    rep.result_count = k;
    snprintf(rep.corpus_label, sizeof rep.corpus_label, "CORPUS");
    gc_report_summarise(&rep);
    gc_strbuf b;
    gc_sb_init(&b);
    cr_assert_eq(gc_report_json(&rep, &b), 0);
    gc_report_free(&rep);
    return gc_sb_take(&b);
}

Test(iso, image_sweep_equals_directory_sweep, .init = setup, .timeout = 600)
{
    char dir[1024], iso[1100];
    tmpdir(dir, sizeof dir, "sweep");
    snprintf(iso, sizeof iso, "%s/s.iso", dir);
    write_image(iso);
    int dn, df, in, inf;
    char *d = report_without_toc(corpus_dir, &dn, &df);
    char *i = report_without_toc(iso, &in, &inf);
    cr_assert_eq(dn, 0, "a directory has no table of contents");
    cr_assert_eq(in, GC_LEVEL_COUNT, "one disc.toc result per level");
    cr_assert_eq(inf, 0, "the synthetic image's table of contents agrees with its files");
    cr_assert_str_eq(d, i, "the image's report differs from the directory's");
    cr_assert(strstr(d, "\"frames\": true") != NULL, "frames were rendered and compared");
    free(d);
    free(i);
}

/* Open a mutated copy of the synthetic image; the disc.toc outcome per level. */
typedef void (*mutator)(uint8_t *img, size_t n);

static void open_mutated(mutator m, const char *tag, gc_corpus *c)
{
    char dir[1024], iso[1100], bad[1100], err[1024] = "";
    tmpdir(dir, sizeof dir, tag);
    snprintf(iso, sizeof iso, "%s/s.iso", dir);
    snprintf(bad, sizeof bad, "%s/bad.iso", dir);
    write_image(iso);
    size_t n;
    uint8_t *img = slurp(iso, &n);
    m(img, n);
    spit(bad, img, n);
    free(img);
    cr_assert_eq(gc_corpus_open(c, bad, err, sizeof err), 0, "%s", err);
    cr_assert_not_null(c->image);
    cr_assert(c->image->has_toc);
}

static uint8_t *entry(uint8_t *img, int i)
{
    return img + 1001u * SECTOR + 24u * (unsigned)i;
}

static void m_copy_sector(uint8_t *img, size_t n)
{
    uint8_t *copy = img + (size_t)get32(entry(img, 3)) * SECTOR;
    put32(copy + 4, get32(copy + 4) + 1);
}
static void m_entry_size(uint8_t *img, size_t n)
{
    put32(entry(img, 5) + 4, get32(entry(img, 5) + 4) - 1);
}
static void m_copy_byte(uint8_t *img, size_t n)
{
    img[(size_t)get32(entry(img, 9)) * SECTOR + 0x10] ^= 0x40;
}
static void m_unlisted(uint8_t *img, size_t n)
{
    memset(entry(img, 7), 0, 8);
}
static void m_copy_outside(uint8_t *img, size_t n)
{
    put32(entry(img, 11), 900); /* before RC2.HDR */
}
static void m_no_table(uint8_t *img, size_t n)
{
    memset(img + 1001u * SECTOR, 0xEE, SECTOR);
}

Test(iso, toc_disagreements_are_findings, .init = setup, .timeout = 900)
{
    struct {
        mutator m;
        int level;
        const char *text;
    } cases[] = {
        {m_copy_sector, 3, "header copy sector"},
        {m_entry_size, 5, "entry size"},
        {m_copy_byte, 9, "differs from LEVEL9.WAD's header at +0x10"},
        {m_unlisted, 7, "lists no level"},
        {m_copy_outside, 11, "outside RC2.HDR"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gc_corpus c;
        open_mutated(cases[k].m, "toc", &c);
        for (int i = 0; i < GC_LEVEL_COUNT; i++) {
            const gc_toc_check *t = &c.image->toc[i];
            cr_assert(t->checked, "level %d checked", i);
            if (i == cases[k].level) {
                cr_assert(t->failed, "case %zu: level %d should fail", k, i);
                cr_assert(strstr(t->text, cases[k].text) != NULL, "case %zu: '%s' lacks '%s'", k,
                          t->text, cases[k].text);
                cr_assert_eq(t->entry_file_ofs, 1001u * SECTOR + 24u * (unsigned)i);
            } else {
                cr_assert(!t->failed, "case %zu: level %d: %s", k, i, t->text);
            }
        }
        gc_corpus_close(&c);
    }
    gc_corpus c;
    open_mutated(m_no_table, "notable", &c);
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        cr_assert(c.image->toc[i].failed);
        cr_assert(strstr(c.image->toc[i].text, "no level table") != NULL);
    }
    /* the levels themselves still load: a ToC finding is not a read error */
    cr_assert_eq(c.found, GC_LEVEL_COUNT);
    gc_corpus_close(&c);
}

Test(iso, toc_finding_gates_the_sweep, .init = setup, .timeout = 900)
{
    char dir[1024], iso[1100], bad[1100];
    tmpdir(dir, sizeof dir, "gate");
    snprintf(iso, sizeof iso, "%s/s.iso", dir);
    snprintf(bad, sizeof bad, "%s/bad.iso", dir);
    write_image(iso);
    size_t n;
    uint8_t *img = slurp(iso, &n);
    m_copy_sector(img, n);
    spit(bad, img, n);
    free(img);
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    o.scale = SY_SCALE_SMALL;
    o.corpus_dir = bad;
    o.baseline = "";
    o.no_frames = 1;
    cr_assert_eq(gc_parse_level_list("2-4", o.levels, &o.level_count), 0);
    gc_report rep;
    char err[4096] = "";
    int rc = gc_sweep_run(&o, &rep, err, sizeof err);
    cr_assert_eq(rc, 1, "a table-of-contents mismatch gates (exit 1): %s", err);
    int seen = 0;
    for (size_t i = 0; i < rep.result_count; i++) {
        const gc_rep_result *x = &rep.results[i];
        if (strcmp(x->invariant, GC_TOC_INVARIANT) != 0)
            continue;
        seen++;
        cr_assert_eq(x->failed, x->level == 3 ? 1u : 0u, "level %d", x->level);
        if (x->level == 3) {
            cr_assert_eq(x->sample_count, 1u);
            cr_assert(strstr(x->samples[0].values, "LEVEL3.WAD's LBA") != NULL);
        }
    }
    cr_assert_eq(seen, 3, "one result per selected level");
    gc_report_free(&rep);
    /* --only without disc.toc leaves it out */
    o.only = "tfrag.*";
    rc = gc_sweep_run(&o, &rep, err, sizeof err);
    for (size_t i = 0; i < rep.result_count; i++)
        cr_assert_str_neq(rep.results[i].invariant, GC_TOC_INVARIANT);
    gc_report_free(&rep);
}

/* A retail-shaped RC2.HDR: global headers first, then the level table; the
 * finder must skip the globals (disc-image.md §2). */
Test(iso, level_table_found_after_global_headers)
{
    enum { TOC_LBA = 1001, COPIES = 4 };
    size_t size = (size_t)(COPIES + GC_LEVEL_COUNT) * SECTOR;
    uint8_t *toc = calloc(1, size);
    cr_assert_not_null(toc);
    /* two globals (header_size, sector, ranges pointing far away) */
    size_t o = 0;
    for (int g = 0; g < 2; g++) {
        uint32_t hs = g ? 0x328 : 0x40;
        put32(toc + o, hs);
        put32(toc + o + 4, 300000u + (uint32_t)g);
        for (size_t k = 8; k + 8 <= hs; k += 8) {
            put32(toc + o + k, 400000u + (uint32_t)k);
            put32(toc + o + k + 4, 12);
        }
        o += hs;
    }
    gc_toc_file files[GC_LEVEL_COUNT];
    memset(files, 0, sizeof files);
    static uint8_t heads[GC_LEVEL_COUNT][0x60];
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        uint32_t copy_rel = (uint32_t)(COPIES + i);
        put32(toc + o + 24u * (unsigned)i, TOC_LBA + copy_rel);
        put32(toc + o + 24u * (unsigned)i + 4, 100u + (unsigned)i);
        put32(toc + o + 24u * (unsigned)i + 8, 500000u); /* an audio part elsewhere */
        put32(toc + o + 24u * (unsigned)i + 12, 3);
        uint8_t *copy = toc + (size_t)copy_rel * SECTOR;
        put32(heads[i], 0x60);
        put32(heads[i] + 4, 7);
        put32(heads[i] + 8, (uint32_t)i);
        memcpy(copy, heads[i], 0x60);
        put32(copy + 4, 20000u + 200u * (unsigned)i);
        files[i].present = 1;
        files[i].lba = 20000u + 200u * (unsigned)i;
        files[i].size = (uint64_t)(100u + (unsigned)i) * SECTOR - 5;
        files[i].data = heads[i];
        files[i].data_size = 0x60;
    }
    gc_toc_check out[GC_LEVEL_COUNT];
    gc_toc_check_levels(toc, size, TOC_LBA, files, out);
    for (int i = 0; i < GC_LEVEL_COUNT; i++) {
        cr_assert(out[i].checked);
        cr_assert(!out[i].failed, "level %d: %s", i, out[i].text);
        cr_assert_eq(out[i].entry_file_ofs, (uint64_t)TOC_LBA * SECTOR + o + 24u * (unsigned)i);
    }
    /* the same table read from the wrong LBA is a finding, not a crash */
    gc_toc_check_levels(toc, size, 1500, files, out);
    for (int i = 0; i < GC_LEVEL_COUNT; i++)
        cr_assert(out[i].failed);
    /* every truncation of the table of contents: a result, never a crash */
    for (size_t cut = 0; cut < size; cut += 7)
        gc_toc_check_levels(toc, cut, TOC_LBA, files, out);
    free(toc);
}

static int open_fails(const uint8_t *img, size_t n, const char *tag, const char *want)
{
    char dir[1024], bad[1100], err[1024] = "";
    tmpdir(dir, sizeof dir, tag);
    snprintf(bad, sizeof bad, "%s/bad.iso", dir);
    spit(bad, img, n);
    gc_corpus c;
    int rc = gc_corpus_open(&c, bad, err, sizeof err);
    if (rc == 0) {
        gc_corpus_close(&c);
        return 0;
    }
    cr_assert(strstr(err, want) != NULL, "error '%s' lacks '%s'", err, want);
    cr_assert(strstr(err, bad) != NULL, "error names the image: %s", err);
    return 1;
}

Test(iso, hostile_images_are_clear_errors, .init = setup, .timeout = 900)
{
    char dir[1024], iso[1100], err[1024] = "";
    tmpdir(dir, sizeof dir, "hostile");
    snprintf(iso, sizeof iso, "%s/s.iso", dir);
    write_image(iso);
    size_t n;
    uint8_t *img = slurp(iso, &n);
    uint8_t *work = malloc(n);
    cr_assert_not_null(work);

    static const uint8_t nothing[1] = {0};
    cr_assert(open_fails(nothing, 0, "empty", "not a readable ISO 9660 image"));
    memset(work, 0x5A, 64 * SECTOR);
    cr_assert(open_fails(work, 64 * SECTOR, "noise", "not a readable ISO 9660 image"));

    /* root directory declared 3 GB long */
    memcpy(work, img, n);
    put32(work + 16 * SECTOR + 156 + 10, 0xC0000000u);
    for (int k = 0; k < 4; k++) /* big-endian half */
        work[16 * SECTOR + 156 + 14 + k] = (uint8_t)(0xC0000000u >> (24 - 8 * k));
    cr_assert(open_fails(work, n, "rootsize", "root directory"));

    /* truncated after the table of contents: the levels past the end are
     * unreadable entries, the image opens; cut before it: no level at all */
    gc_corpus c;
    char bad[1100];
    snprintf(bad, sizeof bad, "%s/cut.iso", dir);
    spit(bad, img, 3000u * SECTOR);
    cr_assert_eq(gc_corpus_open(&c, bad, err, sizeof err), 0, "%s", err);
    cr_assert(c.files[0].ok, "LEVEL0.WAD lies before the cut");
    cr_assert(!c.files[26].ok);
    cr_assert(strstr(c.files[26].error, "runs past the end of the image") != NULL, "%s",
              c.files[26].error);
    gc_corpus_close(&c);
    cr_assert(open_fails(img, 1029u * SECTOR, "cut2", "no readable LEVEL*.WAD"));

    /* a level's directory record pointing past the end of the image */
    memcpy(work, img, n);
    uint8_t *root = work + 20 * SECTOR;
    for (size_t p = 0; p < SECTOR && root[p];) {
        if (root[p + 32] >= 10 && memcmp(root + p + 33, "LEVEL5.WAD", 10) == 0) {
            put32(root + p + 2, 0x7FFFFFF0u);
            for (int k = 0; k < 4; k++)
                root[p + 6 + k] = (uint8_t)(0x7FFFFFF0u >> (24 - 8 * k));
        }
        p += root[p];
    }
    snprintf(bad, sizeof bad, "%s/far.iso", dir);
    spit(bad, work, n);
    cr_assert_eq(gc_corpus_open(&c, bad, err, sizeof err), 0, "%s", err);
    cr_assert(!c.files[5].ok);
    cr_assert(strstr(c.files[5].error, "runs past the end") != NULL, "%s", c.files[5].error);
    cr_assert(c.image->toc[5].failed, "the ToC still names the file's real LBA");
    gc_corpus_close(&c);

    /* random damage to the volume descriptors and the root directory: an
     * error or a corpus, never a crash (run under ASan in ci/sanitize.sh) */
    uint64_t x = 0x9E3779B97F4A7C15ull;
    size_t keep = 1100u * SECTOR; /* the ToC and the first levels are enough */
    memcpy(work, img, keep);
    for (int round = 0; round < 100; round++) {
        memcpy(work, img, 21 * SECTOR);
        for (int k = 0; k < 8; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            size_t at = 16 * SECTOR + (size_t)(x % (5 * SECTOR));
            work[at] = (uint8_t)(x >> 32);
        }
        snprintf(bad, sizeof bad, "%s/r.iso", dir);
        FILE *f = fopen(bad, "wb");
        cr_assert_not_null(f);
        cr_assert_eq(fwrite(work, 1, keep, f), keep);
        fclose(f);
        if (gc_corpus_open(&c, bad, err, sizeof err) == 0)
            gc_corpus_close(&c);
        else
            cr_assert(strstr(err, bad) != NULL, "round %d: error names the image: %s", round, err);
    }
    free(work);
    free(img);
}
