/* SPDX-License-Identifier: MIT */
/* Rebuild the report model from a JSON report (for diff and merge). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_digest.h"
#include "gc_grow.h"
#include "gc_json.h"
#include "gc_num.h"
#include "gc_report.h"

static char *dup_or_null(const gc_json *j)
{
    const char *s = gc_json_str(j, NULL);
    return s ? strdup(s) : NULL;
}

static void copy_field(char *dst, size_t cap, const gc_json *j)
{
    snprintf(dst, cap, "%s", gc_json_str(j, ""));
}

/* Whole numbers. A report's counts, offsets, rows and levels are whole numbers in the range
 * of the type that holds them; converting a double outside that range (or atoi and scanf of
 * a number that does not fit) is undefined behaviour in C, so every such field goes through
 * these, and the first field that is not one makes the whole report an error. (fuzz_report
 * found the casts: a report with "checked": 1e300 or "extent_ofs": -5776.) */
typedef struct rd {
    const char *bad; /* the first field that is a number but not a whole one in range */
} rd;

/* 1 with *out set when j is a number (or a boolean, as gc_json_num reads it) that is a whole
 * number in [lo, hi]; 0 when j is absent or not a number (the caller's default applies);
 * 0 with c->bad set when it is a number that is not. */
static int whole(rd *c, const gc_json *j, const char *name, double lo, double hi, double *out)
{
    if (!j || (j->type != GC_JSON_NUM && j->type != GC_JSON_BOOL))
        return 0;
    const double v = gc_json_num(j, 0);
    if (gc_whole_in(v, lo, hi)) {
        *out = v;
        return 1;
    }
    if (!c->bad)
        c->bad = name;
    return 0;
}

#define RD_U64_MAX 0x1p64 /* UINT64_MAX as the writer's decimal reads back: 2^64 */

static uint64_t rd_u64(rd *c, const gc_json *obj, const char *name, uint64_t dflt)
{
    const gc_json *j = gc_json_get(obj, name);
    double v;
    if (j && j->type == GC_JSON_NUM && j->num == RD_U64_MAX)
        return UINT64_MAX;
    return whole(c, j, name, 0, RD_U64_MAX - 2048, &v) ? (uint64_t)v : dflt;
}

static int64_t rd_i64(rd *c, const gc_json *obj, const char *name, int64_t dflt)
{
    double v;
    return whole(c, gc_json_get(obj, name), name, -0x1p63, 0x1p63 - 1024, &v) ? (int64_t)v : dflt;
}

static int rd_int(rd *c, const gc_json *obj, const char *name, int dflt)
{
    double v;
    return whole(c, gc_json_get(obj, name), name, INT_MIN, INT_MAX, &v) ? (int)v : dflt;
}

/* A level: its number, or the corpus when the field is absent or not a number. */
static int level_of(rd *c, const gc_json *obj)
{
    return rd_int(c, obj, "level", GC_LEVEL_CORPUS);
}

/* A level key of the metrics and digests sections: "corpus", or its number. */
static int level_key(rd *c, const char *key)
{
    if (strcmp(key, "corpus") == 0)
        return GC_LEVEL_CORPUS;
    char *end;
    errno = 0;
    const long v = strtol(key, &end, 10);
    if (errno == ERANGE || v < INT_MIN || v > INT_MAX) {
        if (!c->bad)
            c->bad = "level key";
        return 0;
    }
    return (int)v; /* as atoi read it before: no digits are level 0 */
}

/* One entry a key, as the writer writes them: diff and merge look entries up by their key, so
 * a second entry with the same key would go unseen (diff showed such a report differing from
 * itself: fuzz_report). The sections are sorted by their keys here. 1 (err set) or 0. */
static int twice(const gc_report *r, char *err, size_t errlen)
{
    for (size_t i = 1; i < r->level_count; i++)
        if (r->levels[i].level == r->levels[i - 1].level) {
            snprintf(err, errlen, "not a gcverify report: level %d is listed twice",
                     r->levels[i].level);
            return 1;
        }
    for (size_t i = 1; i < r->result_count; i++)
        if (r->results[i].level == r->results[i - 1].level &&
            strcmp(r->results[i].invariant, r->results[i - 1].invariant) == 0) {
            snprintf(err, errlen, "not a gcverify report: result '%.64s' of level %d twice",
                     r->results[i].invariant, r->results[i].level);
            return 1;
        }
    for (size_t i = 1; i < r->metric_count; i++)
        if (r->metrics[i].level == r->metrics[i - 1].level &&
            strcmp(r->metrics[i].name, r->metrics[i - 1].name) == 0) {
            snprintf(err, errlen, "not a gcverify report: metric '%.64s' of level %d twice",
                     r->metrics[i].name, r->metrics[i].level);
            return 1;
        }
    for (size_t i = 1; i < r->frame_count; i++)
        if (r->frames[i].level == r->frames[i - 1].level &&
            strcmp(r->frames[i].view, r->frames[i - 1].view) == 0) {
            snprintf(err, errlen, "not a gcverify report: frame '%.32s' of level %d twice",
                     r->frames[i].view, r->frames[i].level);
            return 1;
        }
    for (size_t i = 1; i < r->digest_count; i++)
        if (r->digests[i].level == r->digests[i - 1].level &&
            strcmp(r->digests[i].field, r->digests[i - 1].field) == 0) {
            snprintf(err, errlen, "not a gcverify report: digest '%.64s' of level %d twice",
                     r->digests[i].field, r->digests[i].level);
            return 1;
        }
    return 0;
}

int gc_report_from_json(gc_report *r, const char *text, char *err, size_t errlen)
{
    gc_report_init(r);
    rd num0 = {NULL};
    rd *const num = &num0;
    gc_json *root = gc_json_parse(text, err, errlen);
    if (!root)
        return -1;
    int rc = -1;
    if (root->type != GC_JSON_OBJ ||
        gc_json_num(gc_json_get(root, "format"), 0) != GC_REPORT_FORMAT) {
        snprintf(err, errlen, "not a gcverify report of format %d", GC_REPORT_FORMAT);
        goto done;
    }
    copy_field(r->version, sizeof r->version, gc_json_get(root, "gcverify"));
    const gc_json *corpus = gc_json_get(root, "corpus");
    copy_field(r->corpus_label, sizeof r->corpus_label, gc_json_get(corpus, "label"));
    copy_field(r->corpus_key, sizeof r->corpus_key, gc_json_get(corpus, "key"));
    copy_field(r->corpus_id, sizeof r->corpus_id, gc_json_get(corpus, "id"));
    const gc_json *run = gc_json_get(root, "run");
    copy_field(r->tier, sizeof r->tier, gc_json_get(run, "tier"));
    r->only = dup_or_null(gc_json_get(run, "only"));
    r->baseline = dup_or_null(gc_json_get(run, "baseline"));
    copy_field(r->shard, sizeof r->shard, gc_json_get(run, "shard"));
    r->baseline_found = rd_int(num, run, "baseline_found", 0);
    r->corpus_mismatch_accepted = rd_int(num, run, "corpus_mismatch_accepted", 0);
    r->frames_enabled = rd_int(num, run, "frames", 0);
    r->invariant_count = (size_t)rd_u64(num, run, "invariants", 0);
    const gc_json *sel = gc_json_get(run, "levels");
    for (size_t i = 0; sel && sel->type == GC_JSON_ARR && i < sel->count && i < 64; i++) {
        double v;
        r->selected[r->selected_count++] =
            whole(num, sel->items[i], "run.levels", INT_MIN, INT_MAX, &v) ? (int)v : 0;
    }

    const gc_json *levels = gc_json_get(root, "levels");
    if (levels && levels->type == GC_JSON_ARR && levels->count) {
        r->levels = calloc(levels->count, sizeof *r->levels);
        if (!r->levels)
            goto oom;
        for (size_t i = 0; i < levels->count; i++) {
            const gc_json *l = levels->items[i];
            gc_rep_level *x = &r->levels[r->level_count++];
            x->level = rd_int(num, l, "level", 0);
            copy_field(x->file, sizeof x->file, gc_json_get(l, "file"));
            x->loaded = rd_int(num, l, "loaded", 0);
            x->size_bytes = rd_u64(num, l, "size_bytes", 0);
            x->error = dup_or_null(gc_json_get(l, "error"));
            const gc_json *regs = gc_json_get(l, "regions");
            for (size_t g = 0; regs && regs->type == GC_JSON_ARR && g < regs->count &&
                               x->region_count < GC_REP_MAX_REGIONS;
                 g++) {
                const gc_json *rj = regs->items[g];
                gc_rep_region *y = &x->regions[x->region_count++];
                copy_field(y->name, sizeof y->name, gc_json_get(rj, "name"));
                y->stream = strcmp(gc_json_str(gc_json_get(rj, "kind"), ""), "stream") == 0;
                y->container_ofs = rd_u64(num, rj, "container_ofs", 0);
                y->size_bytes = rd_u64(num, rj, "size_bytes", 0);
                copy_field(y->extent, sizeof y->extent, gc_json_get(rj, "extent"));
                y->extent_ofs = rd_u64(num, rj, "extent_ofs", 0);
            }
            const gc_json *decs = gc_json_get(l, "decoders");
            if (decs && decs->type == GC_JSON_ARR && decs->count) {
                x->decoders = calloc(decs->count, sizeof *x->decoders);
                if (!x->decoders)
                    goto oom;
                for (size_t d = 0; d < decs->count; d++) {
                    const gc_json *dj = decs->items[d];
                    gc_rep_decoder *y = &x->decoders[x->decoder_count++];
                    copy_field(y->name, sizeof y->name, gc_json_get(dj, "decoder"));
                    copy_field(y->status, sizeof y->status, gc_json_get(dj, "status"));
                    y->ok = rd_int(num, dj, "ok", 0);
                    y->skipped = rd_int(num, dj, "skipped", 0);
                    y->file_ofs = rd_u64(num, dj, "file_ofs", 0);
                    y->where = dup_or_null(gc_json_get(dj, "where"));
                    y->message = dup_or_null(gc_json_get(dj, "message"));
                }
            }
        }
    }
    const gc_json *results = gc_json_get(root, "results");
    for (size_t i = 0; results && results->type == GC_JSON_ARR && i < results->count; i++) {
        const gc_json *j = results->items[i];
        gc_rep_result *x =
            gc_report_add_result(r, gc_json_str(gc_json_get(j, "invariant"), ""), level_of(num, j));
        if (!x)
            goto oom;
        copy_field(x->severity, sizeof x->severity, gc_json_get(j, "severity"));
        copy_field(x->tier, sizeof x->tier, gc_json_get(j, "tier"));
        copy_field(x->scope, sizeof x->scope, gc_json_get(j, "scope"));
        x->checked = rd_u64(num, j, "checked", 0);
        x->failed = rd_u64(num, j, "failed", 0);
        x->subset = rd_int(num, j, "subset", 0);
        x->why = dup_or_null(gc_json_get(j, "why"));
        x->file = dup_or_null(gc_json_get(j, "file"));
        x->line = rd_int(num, j, "line", 0);
        const gc_json *sm = gc_json_get(j, "samples");
        if (sm && sm->type == GC_JSON_ARR && sm->count) {
            x->samples = calloc(sm->count, sizeof *x->samples);
            if (!x->samples)
                goto oom;
            for (size_t s = 0; s < sm->count; s++) {
                gc_rep_sample *y = &x->samples[x->sample_count++];
                y->level = level_of(num, sm->items[s]);
                y->row = rd_i64(num, sm->items[s], "row", -1);
                y->file_ofs = rd_u64(num, sm->items[s], "file_ofs", 0);
                y->values = dup_or_null(gc_json_get(sm->items[s], "values"));
                y->table = dup_or_null(gc_json_get(sm->items[s], "table"));
                y->parent_table = dup_or_null(gc_json_get(sm->items[s], "parent_table"));
                y->parent_row = rd_i64(num, sm->items[s], "parent_row", -1);
                y->location = dup_or_null(gc_json_get(sm->items[s], "location"));
            }
        }
    }
    const gc_json *metrics = gc_json_get(root, "metrics");
    for (size_t l = 0; metrics && metrics->type == GC_JSON_OBJ && l < metrics->count; l++) {
        int level = level_key(num, metrics->keys[l]);
        const gc_json *lm = metrics->items[l];
        for (size_t m = 0; lm && lm->type == GC_JSON_OBJ && m < lm->count; m++) {
            const gc_json *v = lm->items[m];
            if (!gc_report_add_metric(r, level, lm->keys[m], gc_json_num(v, 0),
                                      v->type == GC_JSON_NULL))
                goto oom;
        }
    }
    const gc_json *changes = gc_json_get(root, "changes");
    for (size_t i = 0; changes && changes->type == GC_JSON_ARR && i < changes->count; i++) {
        const gc_json *j = changes->items[i];
        gc_rep_change *c = gc_grow_one(r->changes, r->change_count, sizeof *c);
        if (!c)
            goto oom;
        r->changes = c;
        c = &r->changes[r->change_count++];
        memset(c, 0, sizeof *c);
        c->level = level_of(num, j);
        /* the change's name: every change has one (the report's sort and diff compare it) */
        const char *field = gc_json_str(gc_json_get(j, "field"), NULL);
        if (!field) {
            snprintf(err, errlen, "not a gcverify report: changes[%zu] has no field", i);
            goto done;
        }
        if (!(c->field = strdup(field)))
            goto oom;
        const gc_json *o = gc_json_get(j, "old"), *n = gc_json_get(j, "new");
        c->old_null = !o || o->type == GC_JSON_NULL;
        c->new_null = !n || n->type == GC_JSON_NULL;
        c->old_value = gc_json_num(o, 0);
        c->new_value = gc_json_num(n, 0);
        c->digest = strcmp(gc_json_str(gc_json_get(j, "kind"), "metric"), "digest") == 0;
        snprintf(c->old_digest, sizeof c->old_digest, "%s",
                 gc_json_str(gc_json_get(j, "old_digest"), ""));
        snprintf(c->new_digest, sizeof c->new_digest, "%s",
                 gc_json_str(gc_json_get(j, "new_digest"), ""));
        c->rows_changed = rd_u64(num, j, "rows_changed", UINT64_MAX); /* null: unknown */
        snprintf(c->rows, sizeof c->rows, "%s", gc_json_str(gc_json_get(j, "rows"), ""));
    }
    const gc_json *digests = gc_json_get(root, "digests");
    for (size_t l = 0; digests && digests->type == GC_JSON_OBJ && l < digests->count; l++) {
        int level = level_key(num, digests->keys[l]);
        const gc_json *lm = digests->items[l];
        for (size_t m = 0; lm && lm->type == GC_JSON_OBJ && m < lm->count; m++) {
            /* "<rows> <digest>" exactly as the writer writes it (it writes the digest
             * unescaped: anything but hex would make its JSON invalid) */
            uint64_t rows = 0;
            char hex[GC_DIGEST_HEX + 1];
            if (!gc_digest_parse(gc_json_str(lm->items[m], ""), &rows, hex)) {
                snprintf(err, errlen, "digests.%s.%s: expected \"<rows> <%d hex digits>\"",
                         digests->keys[l], lm->keys[m], GC_DIGEST_HEX);
                goto done;
            }
            if (!gc_report_add_digest(r, level, lm->keys[m], rows, hex))
                goto oom;
        }
    }
    const gc_json *frames = gc_json_get(root, "frames");
    for (size_t i = 0; frames && frames->type == GC_JSON_ARR && i < frames->count; i++) {
        const gc_json *j = frames->items[i];
        gc_rep_frame *f = gc_report_add_frame(r, rd_int(num, j, "level", 0),
                                              gc_json_str(gc_json_get(j, "view"), ""));
        if (!f)
            goto oom;
        copy_field(f->sha256, sizeof f->sha256, gc_json_get(j, "sha256"));
        copy_field(f->golden, sizeof f->golden, gc_json_get(j, "golden"));
        copy_field(f->status, sizeof f->status, gc_json_get(j, "status"));
        f->pixels_changed = rd_u64(num, j, "pixels_changed", UINT64_MAX); /* null: not compared */
        const gc_json *im = gc_json_get(j, "images");
        f->image_actual = dup_or_null(gc_json_get(im, "actual"));
        f->image_expected = dup_or_null(gc_json_get(im, "expected"));
        f->image_diff = dup_or_null(gc_json_get(im, "diff"));
        f->metrics_changed = dup_or_null(gc_json_get(j, "metrics_changed"));
        f->manifest = dup_or_null(gc_json_get(j, "manifest"));
        f->params = dup_or_null(gc_json_get(j, "params"));
    }
    const gc_json *ct = gc_json_get(root, "corpus_tables");
    if (ct) {
        r->corpus_tables = malloc(ct->src_end - ct->src_start + 1);
        if (!r->corpus_tables)
            goto oom;
        memcpy(r->corpus_tables, text + ct->src_start, ct->src_end - ct->src_start);
        r->corpus_tables[ct->src_end - ct->src_start] = '\0';
    }
    r->metrics_unblessed = rd_u64(num, gc_json_get(root, "summary"), "metrics_unblessed", 0);
    r->digests_unblessed = rd_u64(num, gc_json_get(root, "summary"), "digests_unblessed", 0);
    {
        const gc_json *cv = gc_json_get(root, "coverage");
        gc_rep_coverage *g = &r->coverage;
        g->columns = rd_u64(num, cv, "columns", 0);
        g->by_invariant = rd_u64(num, cv, "by_invariant", 0);
        g->by_metric_only = rd_u64(num, cv, "by_metric_only", 0);
        g->digest_only = rd_u64(num, cv, "digest_only", 0);
        g->unguarded = rd_u64(num, cv, "unguarded", 0);
        g->mission_unread = rd_u64(num, cv, "mission_unread", 0);
    }
    if (num->bad) {
        snprintf(err, errlen, "not a gcverify report: '%s' is not a whole number in its range",
                 num->bad);
        goto done;
    }
    gc_report_summarise(r); /* sorts every section by its key */
    if (twice(r, err, errlen))
        goto done;
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory");
done:
    gc_json_free(root);
    if (rc != 0)
        gc_report_free(r);
    return rc;
}
