/* SPDX-License-Identifier: MIT */
/* Rebuild the report model from a JSON report (for diff and merge). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_grow.h"
#include "gc_json.h"
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

static int level_of(const gc_json *j)
{
    return j && j->type == GC_JSON_NUM ? (int)j->num : GC_LEVEL_CORPUS;
}

int gc_report_from_json(gc_report *r, const char *text, char *err, size_t errlen)
{
    gc_report_init(r);
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
    r->baseline_found = (int)gc_json_num(gc_json_get(run, "baseline_found"), 0);
    r->corpus_mismatch_accepted = (int)gc_json_num(gc_json_get(run, "corpus_mismatch_accepted"), 0);
    r->frames_enabled = (int)gc_json_num(gc_json_get(run, "frames"), 0);
    r->invariant_count = (size_t)gc_json_num(gc_json_get(run, "invariants"), 0);
    const gc_json *sel = gc_json_get(run, "levels");
    for (size_t i = 0; sel && sel->type == GC_JSON_ARR && i < sel->count && i < 64; i++)
        r->selected[r->selected_count++] = (int)gc_json_num(sel->items[i], 0);

    const gc_json *levels = gc_json_get(root, "levels");
    if (levels && levels->type == GC_JSON_ARR && levels->count) {
        r->levels = calloc(levels->count, sizeof *r->levels);
        if (!r->levels)
            goto oom;
        for (size_t i = 0; i < levels->count; i++) {
            const gc_json *l = levels->items[i];
            gc_rep_level *x = &r->levels[r->level_count++];
            x->level = (int)gc_json_num(gc_json_get(l, "level"), 0);
            copy_field(x->file, sizeof x->file, gc_json_get(l, "file"));
            x->loaded = (int)gc_json_num(gc_json_get(l, "loaded"), 0);
            x->size_bytes = (uint64_t)gc_json_num(gc_json_get(l, "size_bytes"), 0);
            x->error = dup_or_null(gc_json_get(l, "error"));
            const gc_json *regs = gc_json_get(l, "regions");
            for (size_t g = 0; regs && regs->type == GC_JSON_ARR && g < regs->count &&
                               x->region_count < GC_REP_MAX_REGIONS;
                 g++) {
                const gc_json *rj = regs->items[g];
                gc_rep_region *y = &x->regions[x->region_count++];
                copy_field(y->name, sizeof y->name, gc_json_get(rj, "name"));
                y->stream = strcmp(gc_json_str(gc_json_get(rj, "kind"), ""), "stream") == 0;
                y->container_ofs = (uint64_t)gc_json_num(gc_json_get(rj, "container_ofs"), 0);
                y->size_bytes = (uint64_t)gc_json_num(gc_json_get(rj, "size_bytes"), 0);
                copy_field(y->extent, sizeof y->extent, gc_json_get(rj, "extent"));
                y->extent_ofs = (uint64_t)gc_json_num(gc_json_get(rj, "extent_ofs"), 0);
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
                    y->ok = (int)gc_json_num(gc_json_get(dj, "ok"), 0);
                    y->skipped = (int)gc_json_num(gc_json_get(dj, "skipped"), 0);
                    y->file_ofs = (uint64_t)gc_json_num(gc_json_get(dj, "file_ofs"), 0);
                    y->where = dup_or_null(gc_json_get(dj, "where"));
                    y->message = dup_or_null(gc_json_get(dj, "message"));
                }
            }
        }
    }
    const gc_json *results = gc_json_get(root, "results");
    for (size_t i = 0; results && results->type == GC_JSON_ARR && i < results->count; i++) {
        const gc_json *j = results->items[i];
        gc_rep_result *x = gc_report_add_result(r, gc_json_str(gc_json_get(j, "invariant"), ""),
                                                level_of(gc_json_get(j, "level")));
        if (!x)
            goto oom;
        copy_field(x->severity, sizeof x->severity, gc_json_get(j, "severity"));
        copy_field(x->tier, sizeof x->tier, gc_json_get(j, "tier"));
        copy_field(x->scope, sizeof x->scope, gc_json_get(j, "scope"));
        x->checked = (uint64_t)gc_json_num(gc_json_get(j, "checked"), 0);
        x->failed = (uint64_t)gc_json_num(gc_json_get(j, "failed"), 0);
        x->subset = (int)gc_json_num(gc_json_get(j, "subset"), 0);
        x->why = dup_or_null(gc_json_get(j, "why"));
        x->file = dup_or_null(gc_json_get(j, "file"));
        x->line = (int)gc_json_num(gc_json_get(j, "line"), 0);
        const gc_json *sm = gc_json_get(j, "samples");
        if (sm && sm->type == GC_JSON_ARR && sm->count) {
            x->samples = calloc(sm->count, sizeof *x->samples);
            if (!x->samples)
                goto oom;
            for (size_t s = 0; s < sm->count; s++) {
                gc_rep_sample *y = &x->samples[x->sample_count++];
                y->level = level_of(gc_json_get(sm->items[s], "level"));
                y->row = (int64_t)gc_json_num(gc_json_get(sm->items[s], "row"), -1);
                y->file_ofs = (uint64_t)gc_json_num(gc_json_get(sm->items[s], "file_ofs"), 0);
                y->values = dup_or_null(gc_json_get(sm->items[s], "values"));
                y->table = dup_or_null(gc_json_get(sm->items[s], "table"));
                y->parent_table = dup_or_null(gc_json_get(sm->items[s], "parent_table"));
                y->parent_row = (int64_t)gc_json_num(gc_json_get(sm->items[s], "parent_row"), -1);
                y->location = dup_or_null(gc_json_get(sm->items[s], "location"));
            }
        }
    }
    const gc_json *metrics = gc_json_get(root, "metrics");
    for (size_t l = 0; metrics && metrics->type == GC_JSON_OBJ && l < metrics->count; l++) {
        int level =
            strcmp(metrics->keys[l], "corpus") == 0 ? GC_LEVEL_CORPUS : atoi(metrics->keys[l]);
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
        c->level = level_of(gc_json_get(j, "level"));
        c->field = dup_or_null(gc_json_get(j, "field"));
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
        const gc_json *rcj = gc_json_get(j, "rows_changed");
        c->rows_changed =
            !rcj || rcj->type == GC_JSON_NULL ? UINT64_MAX : (uint64_t)gc_json_num(rcj, 0);
        snprintf(c->rows, sizeof c->rows, "%s", gc_json_str(gc_json_get(j, "rows"), ""));
    }
    const gc_json *digests = gc_json_get(root, "digests");
    for (size_t l = 0; digests && digests->type == GC_JSON_OBJ && l < digests->count; l++) {
        int level = atoi(digests->keys[l]);
        const gc_json *lm = digests->items[l];
        for (size_t m = 0; lm && lm->type == GC_JSON_OBJ && m < lm->count; m++) {
            unsigned long long rows = 0;
            char hex[GC_DIGEST_HEX + 2] = "";
            if (sscanf(gc_json_str(lm->items[m], ""), "%llu %33s", &rows, hex) != 2) {
                snprintf(err, errlen, "digests.%s.%s: expected \"<rows> <digest>\"",
                         digests->keys[l], lm->keys[m]);
                goto done;
            }
            if (!gc_report_add_digest(r, level, lm->keys[m], rows, hex))
                goto oom;
        }
    }
    const gc_json *frames = gc_json_get(root, "frames");
    for (size_t i = 0; frames && frames->type == GC_JSON_ARR && i < frames->count; i++) {
        const gc_json *j = frames->items[i];
        gc_rep_frame *f = gc_report_add_frame(r, (int)gc_json_num(gc_json_get(j, "level"), 0),
                                              gc_json_str(gc_json_get(j, "view"), ""));
        if (!f)
            goto oom;
        copy_field(f->sha256, sizeof f->sha256, gc_json_get(j, "sha256"));
        copy_field(f->golden, sizeof f->golden, gc_json_get(j, "golden"));
        copy_field(f->status, sizeof f->status, gc_json_get(j, "status"));
        const gc_json *pc = gc_json_get(j, "pixels_changed");
        f->pixels_changed = pc && pc->type == GC_JSON_NUM ? (uint64_t)pc->num : UINT64_MAX;
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
    r->metrics_unblessed =
        (uint64_t)gc_json_num(gc_json_get(gc_json_get(root, "summary"), "metrics_unblessed"), 0);
    r->digests_unblessed =
        (uint64_t)gc_json_num(gc_json_get(gc_json_get(root, "summary"), "digests_unblessed"), 0);
    {
        const gc_json *cv = gc_json_get(root, "coverage");
        gc_rep_coverage *c = &r->coverage;
        c->columns = (uint64_t)gc_json_num(gc_json_get(cv, "columns"), 0);
        c->by_invariant = (uint64_t)gc_json_num(gc_json_get(cv, "by_invariant"), 0);
        c->by_metric_only = (uint64_t)gc_json_num(gc_json_get(cv, "by_metric_only"), 0);
        c->digest_only = (uint64_t)gc_json_num(gc_json_get(cv, "digest_only"), 0);
        c->unguarded = (uint64_t)gc_json_num(gc_json_get(cv, "unguarded"), 0);
        c->mission_unread = (uint64_t)gc_json_num(gc_json_get(cv, "mission_unread"), 0);
    }
    gc_report_summarise(r);
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
