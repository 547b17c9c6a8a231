/* SPDX-License-Identifier: MIT */
/* golden/frames.yaml read/write (libyaml document API for reading, plain
 * text for writing so the file stays a clean diff), the comparison verdict
 * and the --golden-images writer. */
#include "gc_golden_frames.h"

#include <errno.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "gc_fsutil.h"
#include "gc_png.h"

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int valid_view(const char *v)
{
    size_t n = strlen(v);
    if (n == 0 || n >= 32)
        return 0;
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
            return 0;
    return 1;
}

static int valid_sha(const char *s)
{
    if (strlen(s) != 64)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

static int valid_manifest(const char *m)
{
    size_t n = strlen(m);
    if (n == 0 || n >= GC_FRAME_MANIFEST_MAX)
        return 0;
    for (const char *p = m; *p; p++)
        if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
            return 0;
    return 1;
}

int gc_golden_frames_set(gc_golden_frames *g, int level, const char *view, const char *sha256,
                         const char *manifest)
{
    if (level < 0 || !valid_view(view) || !valid_sha(sha256) || !valid_manifest(manifest))
        return -1;
    gc_golden_frame *e = (gc_golden_frame *)gc_golden_frames_find(g, level, view);
    if (!e) {
        if (g->count == g->cap) {
            size_t cap = g->cap ? g->cap * 2 : 64;
            gc_golden_frame *nv = realloc(g->v, cap * sizeof *nv);
            if (!nv)
                return -1;
            g->v = nv;
            g->cap = cap;
        }
        e = &g->v[g->count++];
        memset(e, 0, sizeof *e);
        e->level = level;
        memcpy(e->view, view, strlen(view) + 1);
    }
    memcpy(e->sha256, sha256, 65);
    memcpy(e->manifest, manifest, strlen(manifest) + 1);
    return 0;
}

const gc_golden_frame *gc_golden_frames_find(const gc_golden_frames *g, int level, const char *view)
{
    for (size_t i = 0; i < g->count; i++)
        if (g->v[i].level == level && strcmp(g->v[i].view, view) == 0)
            return &g->v[i];
    return NULL;
}

void gc_golden_frames_free(gc_golden_frames *g)
{
    free(g->v);
    memset(g, 0, sizeof *g);
}

static const char *scalar(yaml_document_t *doc, yaml_node_t *n)
{
    (void)doc;
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int gc_golden_frames_load(const char *path, gc_golden_frames *g, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        if (errno == ENOENT)
            return 0;
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        fclose(fp);
        set_err(err, errlen, "%s: yaml parser init failed", path);
        return -1;
    }
    yaml_parser_set_input_file(&parser, fp);
    if (!yaml_parser_load(&parser, &doc)) {
        set_err(err, errlen, "%s:%lu: %s", path, (unsigned long)parser.problem_mark.line + 1,
                parser.problem ? parser.problem : "YAML syntax error");
        yaml_parser_delete(&parser);
        fclose(fp);
        return -1;
    }
    int rc = 0;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) /* empty file: nothing blessed */
        goto done;
    if (root->type != YAML_MAPPING_NODE) {
        set_err(err, errlen, "%s:%lu: %s", path, (unsigned long)root->start_mark.line + 1,
                "top level must be a mapping with a 'frames' list");
        rc = -1;
        goto done;
    }
    yaml_node_t *frames = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        const char *k = scalar(&doc, yaml_document_get_node(&doc, p->key));
        if (k && strcmp(k, "frames") == 0)
            frames = yaml_document_get_node(&doc, p->value);
    }
    if (!frames || (frames->type == YAML_SCALAR_NODE && frames->data.scalar.length == 0))
        goto done; /* "frames:" with nothing under it */
    if (frames->type != YAML_SEQUENCE_NODE) {
        set_err(err, errlen, "%s:%lu: %s", path, (unsigned long)frames->start_mark.line + 1,
                "'frames' must be a list");
        rc = -1;
        goto done;
    }
    for (yaml_node_item_t *it = frames->data.sequence.items.start;
         it < frames->data.sequence.items.top; it++) {
        yaml_node_t *e = yaml_document_get_node(&doc, *it);
        unsigned long line = e ? (unsigned long)e->start_mark.line + 1 : 0;
        if (!e || e->type != YAML_MAPPING_NODE) {
            set_err(err, errlen, "%s:%lu: %s", path, line, "each frame entry must be a mapping");
            rc = -1;
            goto done;
        }
        const char *level = NULL, *view = NULL, *sha = NULL, *manifest = NULL;
        for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top;
             p++) {
            const char *k = scalar(&doc, yaml_document_get_node(&doc, p->key));
            const char *v = scalar(&doc, yaml_document_get_node(&doc, p->value));
            if (!k || !v) {
                set_err(err, errlen, "%s:%lu: %s", path, line, "keys and values must be scalars");
                rc = -1;
                goto done;
            }
            if (strcmp(k, "level") == 0)
                level = v;
            else if (strcmp(k, "view") == 0)
                view = v;
            else if (strcmp(k, "sha256") == 0)
                sha = v;
            else if (strcmp(k, "manifest") == 0)
                manifest = v;
            else {
                set_err(err, errlen, "%s:%lu: unknown key '%s'", path, line, k);
                rc = -1;
                goto done;
            }
        }
        char *end = NULL;
        long lvl = level ? strtol(level, &end, 10) : -1;
        if (!level || *end || lvl < 0 || lvl > 9999 || !view || !sha || !manifest) {
            set_err(err, errlen, "%s:%lu: %s", path, line,
                    "entry needs level (number), view, sha256 and manifest");
            rc = -1;
            goto done;
        }
        if (gc_golden_frames_find(g, (int)lvl, view)) {
            set_err(err, errlen, "%s:%lu: duplicate entry for view '%s'", path, line, view);
            rc = -1;
            goto done;
        }
        if (gc_golden_frames_set(g, (int)lvl, view, sha, manifest) != 0) {
            set_err(err, errlen, "%s:%lu: %s", path, line,
                    "bad view name, sha256 (64 lowercase hex digits) or manifest");
            rc = -1;
            goto done;
        }
    }
done:
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    fclose(fp);
    if (rc != 0)
        gc_golden_frames_free(g);
    return rc;
}

static int cmp_entry(const void *a, const void *b)
{
    const gc_golden_frame *x = a, *y = b;
    if (x->level != y->level)
        return x->level < y->level ? -1 : 1;
    return strcmp(x->view, y->view);
}

char *gc_golden_frames_format(const gc_golden_frames *g, size_t *len, char *err, size_t errlen)
{
    const char *path = "frames";
    gc_golden_frame *sorted = NULL;
    if (g->count) {
        sorted = malloc(g->count * sizeof *sorted);
        if (!sorted) {
            set_err(err, errlen, "%s: out of memory", path);
            return NULL;
        }
        memcpy(sorted, g->v, g->count * sizeof *sorted);
        qsort(sorted, g->count, sizeof *sorted, cmp_entry);
    }
    /* 64 header bytes + ~200 per entry. */
    size_t cap = 512 + g->count * 320;
    char *text = malloc(cap);
    if (!text) {
        free(sorted);
        set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    size_t n = (size_t)snprintf(text, cap,
                                "# Expected frame hashes, one entry per level x view.\n"
                                "# What is hashed, and what the manifest means: docs/golden.md.\n"
                                "# Update with: gcverify bless --frames --reason \"...\"\n"
                                "frames:%s\n",
                                g->count ? "" : " []");
    for (size_t i = 0; i < g->count; i++) {
        const gc_golden_frame *e = &sorted[i];
        n += (size_t)snprintf(text + n, cap - n,
                              "  - level: %d\n    view: %s\n    sha256: %s\n"
                              "    manifest: \"%s\"\n",
                              e->level, e->view, e->sha256, e->manifest);
    }
    free(sorted);
    *len = n;
    return text;
}

int gc_golden_frames_save(const char *path, const gc_golden_frames *g, char *err, size_t errlen)
{
    size_t n = 0;
    char *text = gc_golden_frames_format(g, &n, err, errlen);
    if (!text)
        return -1;
    int rc = gc_write_file_atomic(path, text, n, err, errlen);
    free(text);
    return rc;
}

const char *gc_frame_verdict_name(gc_frame_verdict v)
{
    switch (v) {
    case GC_FRAME_MATCH:
        return "match";
    case GC_FRAME_NO_GOLDEN:
        return "no golden";
    case GC_FRAME_MANIFEST_DIFFERS:
        return "manifest differs";
    case GC_FRAME_REGRESSED:
        return "regressed";
    }
    return "?";
}

int gc_frame_manifests_comparable(const char *a, const char *b)
{
    /* Walk both in step; inside the objects= field (it runs to the next
     * space or the end) a run of digits on one side matches a run of digits
     * on the other, whatever their values: the counts are what was drawn,
     * not how it was hashed, so a change in them is the picture's change. */
    static const char key[] = " objects=";
    const char *oa = strstr(a, key), *ob = strstr(b, key);
    if (!oa || !ob || oa - a != ob - b || strncmp(a, b, (size_t)(oa - a)) != 0)
        return strcmp(a, b) == 0;
    a = oa + sizeof key - 1;
    b = ob + sizeof key - 1;
    while (*a && *a != ' ' && *b && *b != ' ') {
        int da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';
        if (da != db)
            return 0;
        if (da) {
            while (*a >= '0' && *a <= '9')
                a++;
            while (*b >= '0' && *b <= '9')
                b++;
            continue;
        }
        if (*a++ != *b++)
            return 0;
    }
    if ((*a && *a != ' ') || (*b && *b != ' '))
        return 0;
    return strcmp(a, b) == 0;
}

gc_frame_verdict gc_golden_frames_compare(const gc_golden_frames *g, int level, const char *view,
                                          const char *sha256, const char *manifest,
                                          const gc_golden_frame **entry)
{
    const gc_golden_frame *e = gc_golden_frames_find(g, level, view);
    if (entry)
        *entry = e;
    if (!e)
        return GC_FRAME_NO_GOLDEN;
    if (!gc_frame_manifests_comparable(e->manifest, manifest))
        return GC_FRAME_MANIFEST_DIFFERS;
    /* other object counts with the same pixels (an instance lost off screen) still regress */
    return strcmp(e->sha256, sha256) == 0 && strcmp(e->manifest, manifest) == 0
               ? GC_FRAME_MATCH
               : GC_FRAME_REGRESSED;
}

static int golden_diff(const char *dir, int level, const char *view, const gc_frame *actual,
                       const gc_frame *expected, uint64_t *changed, char *err, size_t errlen);

int gc_frame_load_png(const char *path, const char *view, gc_frame *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) {
        set_err(err, errlen, "%s: %s", path, img.message);
        return -1;
    }
    img.format = PNG_FORMAT_RGBA;
    if (img.width == 0 || img.height == 0 || img.width > 8192 || img.height > 8192) {
        png_image_free(&img);
        set_err(err, errlen, "%s: %ux%u is not a frame size", path, img.width, img.height);
        return -1;
    }
    uint8_t *px = malloc(PNG_IMAGE_SIZE(img));
    if (!px) {
        png_image_free(&img);
        set_err(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (!png_image_finish_read(&img, NULL, px, 0, NULL)) {
        set_err(err, errlen, "%s: %s", path, img.message);
        free(px);
        return -1;
    }
    out->width = img.width;
    out->height = img.height;
    out->rgba = px;
    snprintf(out->view, sizeof out->view, "%s", view);
    return 0;
}

int gc_golden_images_write(const char *dir, int level, const char *view, const gc_frame *actual,
                           const gc_frame *expected, uint64_t *changed, char *err, size_t errlen)
{
    if (changed)
        *changed = UINT64_MAX;
    if (!valid_view(view) || !actual->rgba) {
        set_err(err, errlen, "golden images: bad view name or empty frame");
        return -1;
    }
    if (gc_mkdir_p(dir, err, errlen) != 0)
        return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/LEVEL%d_%s_actual.png", dir, level, view);
    if (gc_png_write_rgba(path, actual->rgba, actual->width, actual->height, err, errlen) != 0)
        return -1;
    /* No expected frame given: use DIR/expected/LEVEL<n>_<view>.png when
     * it is there (a baseline run's --frames-out, copied or linked). */
    gc_frame loaded;
    memset(&loaded, 0, sizeof loaded);
    if (!expected || !expected->rgba) {
        char lerr[256];
        snprintf(path, sizeof path, "%s/expected/LEVEL%d_%s.png", dir, level, view);
        if (gc_frame_load_png(path, view, &loaded, lerr, sizeof lerr) != 0)
            return 0;
        expected = &loaded;
    }
    int rc = golden_diff(dir, level, view, actual, expected, changed, err, errlen);
    gc_frame_free(&loaded);
    return rc;
}

static int golden_diff(const char *dir, int level, const char *view, const gc_frame *actual,
                       const gc_frame *expected, uint64_t *changed, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/LEVEL%d_%s_expected.png", dir, level, view);
    if (gc_png_write_rgba(path, expected->rgba, expected->width, expected->height, err, errlen) !=
        0)
        return -1;
    uint64_t n = gc_frame_changed_pixels(actual, expected);
    if (changed)
        *changed = n;
    if (n == UINT64_MAX) /* sizes differ: no pixel-wise diff */
        return 0;
    size_t count = (size_t)actual->width * actual->height;
    uint8_t *diff = malloc(count * 4);
    if (!diff) {
        set_err(err, errlen, "golden images: out of memory");
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        const uint8_t *a = actual->rgba + 4 * i, *b = expected->rgba + 4 * i;
        uint8_t *d = diff + 4 * i;
        if (memcmp(a, b, 4) != 0) {
            d[0] = 255, d[1] = 0, d[2] = 255;
        } else {
            /* Integer luma (BT.601 weights /256), dimmed to a third. */
            unsigned y = (77u * a[0] + 150u * a[1] + 29u * a[2]) >> 8;
            d[0] = d[1] = d[2] = (uint8_t)(y / 3);
        }
        d[3] = 255;
    }
    snprintf(path, sizeof path, "%s/LEVEL%d_%s_diff.png", dir, level, view);
    int rc = gc_png_write_rgba(path, diff, actual->width, actual->height, err, errlen);
    free(diff);
    return rc;
}
