/* SPDX-License-Identifier: MIT */
/* gcverify diff OLD.json NEW.json: what changed between two sweep reports:
 * every metric field, every frame hash, and per invariant x level the rows
 * that newly fail and newly pass (from the failure samples). Text, JSON
 * (docs/report-format.md, "diff") or Markdown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli_opts.h"
#include "gc_column_store.h"
#include "gc_digest.h"
#include "gc_fsutil.h"
#include "gc_report.h"
#include "gc_strbuf.h"

int gc_cmd_diff(int argc, char **argv);

enum { FMT_TEXT, FMT_JSON, FMT_MD };

static int load(const char *path, gc_report *r)
{
    char err[512];
    char *text = gc_read_file(path, NULL, err, sizeof err);
    if (!text) {
        fprintf(stderr, "gcverify diff: %s\n", err);
        return -1;
    }
    int rc = gc_report_from_json(r, text, err, sizeof err);
    free(text);
    if (rc != 0)
        fprintf(stderr, "gcverify diff: %s: %s\n", path, err);
    return rc;
}

static const gc_rep_result *find_result(const gc_report *r, const char *id, int level)
{
    for (size_t i = 0; i < r->result_count; i++)
        if (r->results[i].level == level && strcmp(r->results[i].invariant, id) == 0)
            return &r->results[i];
    return NULL;
}

static int same_sample(const gc_rep_sample *a, const gc_rep_sample *b)
{
    return a->level == b->level && a->row == b->row &&
           strcmp(a->table ? a->table : "", b->table ? b->table : "") == 0;
}

static int has_sample(const gc_rep_result *x, const gc_rep_sample *s)
{
    for (size_t i = 0; x && i < x->sample_count; i++)
        if (same_sample(&x->samples[i], s))
            return 1;
    return 0;
}

/* One invariant x level whose failures moved. */
typedef struct moved {
    const char *invariant;
    int level;
    uint64_t old_failed, new_failed, old_checked, new_checked;
    const gc_rep_result *o, *n;
    int complete; /* every failure of both sides is a sample: the row lists are exact */
} moved;

static void level_text(char *buf, size_t len, int level)
{
    if (level == GC_LEVEL_CORPUS)
        snprintf(buf, len, "corpus");
    else
        snprintf(buf, len, "level %d", level);
}

static void json_sample_list(gc_strbuf *b, const gc_rep_result *from, const gc_rep_result *other)
{
    gc_sb_puts(b, "[");
    size_t k = 0;
    for (size_t i = 0; from && i < from->sample_count; i++) {
        const gc_rep_sample *s = &from->samples[i];
        if (has_sample(other, s))
            continue;
        gc_sb_printf(b, "%s{\"level\": ", k++ ? ", " : "");
        if (s->level == GC_LEVEL_CORPUS)
            gc_sb_puts(b, "null");
        else
            gc_sb_printf(b, "%d", s->level);
        gc_sb_puts(b, ", \"table\": ");
        if (s->table)
            gc_sb_json_str(b, s->table);
        else
            gc_sb_puts(b, "null");
        gc_sb_printf(b, ", \"row\": %lld, \"location\": ", (long long)s->row);
        if (s->location)
            gc_sb_json_str(b, s->location);
        else
            gc_sb_puts(b, "null");
        gc_sb_puts(b, ", \"values\": ");
        gc_sb_json_str(b, s->values ? s->values : "");
        gc_sb_puts(b, "}");
    }
    gc_sb_puts(b, "]");
}

static void text_sample_list(gc_strbuf *b, const char *sign, const gc_rep_result *from,
                             const gc_rep_result *other, int md)
{
    for (size_t i = 0; from && i < from->sample_count; i++) {
        const gc_rep_sample *s = &from->samples[i];
        if (has_sample(other, s))
            continue;
        char line[1024];
        gc_report_format_sample(s, line, sizeof line);
        if (md)
            gc_sb_printf(b, "  - %s `%s`\n", sign, line);
        else
            gc_sb_printf(b, "    %s %s\n", sign, line);
    }
}

int gc_cmd_diff(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    int np = 0, fmt = FMT_TEXT;
    enum { K_FORMAT = GC_OPT_LONG };
    static const gc_opt opts[] = {
        {"format", K_FORMAT, "text|json|markdown", "output form (default text; md = markdown)"},
    };
    static const gc_opt_group groups[] = {GC_OPT_GROUP(NULL, opts)};
    static const gc_cmd_spec spec =
        GC_CMD_SPEC("diff", "OLD.json NEW.json [--format text|json|markdown]",
                    "Reports every metric (including each invariant's checked and failed counts)\n"
                    "and every frame hash that differs between two sweep reports, field by field,\n"
                    "and per invariant x level the rows that newly fail (+) and newly pass (-),\n"
                    "from the reports' failure samples (exact when every failure is a sample;\n"
                    "raise `sweep --samples N` otherwise). The JSON form is described in\n"
                    "docs/report-format.md. Exit 0 if nothing changed, 1 if something did, 2 on\n"
                    "bad input.\n",
                    groups, NULL);
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return 2;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return 2;
        case GC_OPT_ARG:
            if (np < 2)
                paths[np] = p.value;
            np++;
            break;
        case K_FORMAT:
            if (strcmp(p.value, "text") == 0)
                fmt = FMT_TEXT;
            else if (strcmp(p.value, "json") == 0)
                fmt = FMT_JSON;
            else if (strcmp(p.value, "markdown") == 0 || strcmp(p.value, "md") == 0)
                fmt = FMT_MD;
            else
                return gc_opts_bad(&p, "--format takes text, json or markdown, not '%s'", p.value);
            break;
        }
    }
    if (np != 2)
        return gc_opts_usage_error(&spec, "two reports are needed, OLD.json and NEW.json");
    gc_report a, b;
    if (load(paths[0], &a) != 0)
        return 2;
    if (load(paths[1], &b) != 0) {
        gc_report_free(&a);
        return 2;
    }
    /* compare b's metrics against a's, over the levels either ran */
    for (size_t i = 0; i < b.change_count; i++)
        free(b.changes[i].field);
    free(b.changes);
    b.changes = NULL;
    b.change_count = 0;
    size_t sel = b.selected_count;
    for (size_t i = 0; i < a.selected_count && sel < 64; i++) {
        int have = 0;
        for (size_t k = 0; k < sel; k++)
            have |= b.selected[k] == a.selected[i];
        if (!have)
            b.selected[sel++] = a.selected[i];
    }
    b.selected_count = sel;
    gc_report_compare_metrics(&b, a.metrics, a.metric_count);
    /* and every decoded column's digest (reports of format 3 carry them) */
    gc_digest_compare(&b, a.digests, a.digest_count);
    {
        /* the changed rows, when both runs kept their columns (--snapshots) */
        char store[4096];
        gc_column_store_dir(store, sizeof store);
        gc_column_store_attribute(store, &b, NULL, NULL, 0, 0);
    }
    gc_report_summarise(&b);

    /* results whose failures moved, in b's order then a's leftovers */
    size_t cap = a.result_count + b.result_count + 1, nm = 0;
    moved *mv = calloc(cap, sizeof *mv);
    if (!mv) {
        fprintf(stderr, "gcverify diff: out of memory\n");
        gc_report_free(&a);
        gc_report_free(&b);
        return 2;
    }
    for (int side = 0; side < 2; side++) {
        const gc_report *r = side ? &a : &b;
        for (size_t i = 0; i < r->result_count; i++) {
            const gc_rep_result *x = &r->results[i];
            const gc_rep_result *o = side ? x : find_result(&a, x->invariant, x->level);
            const gc_rep_result *n = side ? find_result(&b, x->invariant, x->level) : x;
            if (side && n)
                continue; /* already seen from b */
            int rows_moved = 0;
            for (size_t s = 0; n && s < n->sample_count && !rows_moved; s++)
                rows_moved = !has_sample(o, &n->samples[s]);
            for (size_t s = 0; o && s < o->sample_count && !rows_moved; s++)
                rows_moved = !has_sample(n, &o->samples[s]);
            uint64_t of = o ? o->failed : 0, nf = n ? n->failed : 0;
            if (!rows_moved && of == nf)
                continue;
            moved *m = &mv[nm++];
            m->invariant = x->invariant;
            m->level = x->level;
            m->o = o;
            m->n = n;
            m->old_failed = of;
            m->new_failed = nf;
            m->old_checked = o ? o->checked : 0;
            m->new_checked = n ? n->checked : 0;
            m->complete =
                (!o || o->sample_count == o->failed) && (!n || n->sample_count == n->failed);
        }
    }
    /* frames */
    typedef struct fchange {
        const gc_rep_frame *o, *n;
    } fchange;
    fchange *fc = calloc(b.frame_count + a.frame_count + 1, sizeof *fc);
    size_t nfc = 0;
    for (size_t i = 0; fc && i < b.frame_count; i++) {
        const gc_rep_frame *nf = &b.frames[i], *of = NULL;
        for (size_t k = 0; k < a.frame_count; k++)
            if (a.frames[k].level == nf->level && strcmp(a.frames[k].view, nf->view) == 0)
                of = &a.frames[k];
        if (!of || strcmp(of->sha256, nf->sha256) != 0)
            fc[nfc++] = (fchange){of, nf};
    }
    size_t changed = b.change_count + nfc + nm;
    gc_strbuf o;
    gc_sb_init(&o);
    char lv[16];
    if (fmt == FMT_JSON) {
        gc_sb_puts(&o,
                   "{\n  \"format\": 1,\n  \"kind\": \"gcverify-diff\",\n  \"old\": {\"path\": ");
        gc_sb_json_str(&o, paths[0]);
        gc_sb_puts(&o, ", \"corpus_id\": ");
        gc_sb_json_str(&o, a.corpus_id);
        gc_sb_puts(&o, "},\n  \"new\": {\"path\": ");
        gc_sb_json_str(&o, paths[1]);
        gc_sb_puts(&o, ", \"corpus_id\": ");
        gc_sb_json_str(&o, b.corpus_id);
        gc_sb_printf(&o, "},\n  \"same_corpus\": %s,\n  \"changes\": [",
                     strcmp(a.corpus_id, b.corpus_id) == 0 ? "true" : "false");
        for (size_t i = 0; i < b.change_count; i++) {
            const gc_rep_change *c = &b.changes[i];
            char line[1024];
            gc_report_format_change(c, line, sizeof line);
            gc_sb_printf(&o, "%s\n    {\"level\": ", i ? "," : "");
            if (c->level == GC_LEVEL_CORPUS)
                gc_sb_puts(&o, "null");
            else
                gc_sb_printf(&o, "%d", c->level);
            gc_sb_puts(&o, ", \"field\": ");
            gc_sb_json_str(&o, c->field);
            gc_sb_puts(&o, ", \"old\": ");
            if (c->old_null)
                gc_sb_puts(&o, "null");
            else
                gc_sb_num(&o, c->old_value);
            gc_sb_puts(&o, ", \"new\": ");
            if (c->new_null)
                gc_sb_puts(&o, "null");
            else
                gc_sb_num(&o, c->new_value);
            gc_sb_puts(&o, ", \"text\": ");
            gc_sb_json_str(&o, line);
            gc_sb_printf(&o, ", \"kind\": \"%s\"}", c->digest ? "digest" : "metric");
        }
        gc_sb_puts(&o, b.change_count ? "\n  ],\n  \"frames\": [" : "],\n  \"frames\": [");
        for (size_t i = 0; i < nfc; i++) {
            gc_sb_printf(&o, "%s\n    {\"level\": %d, \"view\": ", i ? "," : "", fc[i].n->level);
            gc_sb_json_str(&o, fc[i].n->view);
            gc_sb_puts(&o, ", \"old\": ");
            if (fc[i].o)
                gc_sb_json_str(&o, fc[i].o->sha256);
            else
                gc_sb_puts(&o, "null");
            gc_sb_puts(&o, ", \"new\": ");
            gc_sb_json_str(&o, fc[i].n->sha256);
            gc_sb_puts(&o, "}");
        }
        gc_sb_puts(&o, nfc ? "\n  ],\n  \"results\": [" : "],\n  \"results\": [");
        for (size_t i = 0; i < nm; i++) {
            const moved *m = &mv[i];
            gc_sb_printf(&o, "%s\n    {\"invariant\": ", i ? "," : "");
            gc_sb_json_str(&o, m->invariant);
            gc_sb_puts(&o, ", \"level\": ");
            if (m->level == GC_LEVEL_CORPUS)
                gc_sb_puts(&o, "null");
            else
                gc_sb_printf(&o, "%d", m->level);
            gc_sb_printf(&o,
                         ", \"old_failed\": %llu, \"new_failed\": %llu, \"old_checked\": %llu, "
                         "\"new_checked\": %llu, \"rows_complete\": %s,\n      \"newly_failing\": ",
                         (unsigned long long)m->old_failed, (unsigned long long)m->new_failed,
                         (unsigned long long)m->old_checked, (unsigned long long)m->new_checked,
                         m->complete ? "true" : "false");
            json_sample_list(&o, m->n, m->o);
            gc_sb_puts(&o, ",\n      \"newly_passing\": ");
            json_sample_list(&o, m->o, m->n);
            gc_sb_puts(&o, "}");
        }
        gc_sb_printf(&o,
                     "%s,\n  \"summary\": {\"metric_changes\": %zu, \"frame_changes\": %zu, "
                     "\"result_changes\": %zu, \"changed\": %zu}\n}\n",
                     nm ? "\n  ]" : "]", b.change_count, nfc, nm, changed);
    } else {
        int md = fmt == FMT_MD;
        if (md)
            gc_sb_printf(&o, "## gcverify diff: %zu changed\n\n`%s` → `%s`\n\n", changed, paths[0],
                         paths[1]);
        if (strcmp(a.corpus_id, b.corpus_id) != 0)
            gc_sb_printf(&o,
                         "%snote: the reports are of different corpora (%s %.16s, %s %.16s)\n%s",
                         md ? "> " : "", a.corpus_key, a.corpus_id, b.corpus_key, b.corpus_id,
                         md ? "\n" : "");
        if (md && b.change_count)
            gc_sb_puts(&o, "### Metric changes\n\n");
        for (size_t i = 0; i < b.change_count; i++) {
            char line[1024];
            gc_report_format_change(&b.changes[i], line, sizeof line);
            gc_sb_printf(&o, "%s%s\n", md ? "- " : "", line);
        }
        if (md && b.change_count)
            gc_sb_puts(&o, "\n");
        if (md && nfc)
            gc_sb_puts(&o, "### Frames\n\n");
        for (size_t i = 0; i < nfc; i++) {
            if (fc[i].o)
                gc_sb_printf(&o, "%slevel %d, frame %s: %.16s… -> %.16s…\n", md ? "- " : "",
                             fc[i].n->level, fc[i].n->view, fc[i].o->sha256, fc[i].n->sha256);
            else
                gc_sb_printf(&o, "%slevel %d, frame %s: new (%.16s…)\n", md ? "- " : "",
                             fc[i].n->level, fc[i].n->view, fc[i].n->sha256);
        }
        if (md && nfc)
            gc_sb_puts(&o, "\n");
        if (md && nm)
            gc_sb_puts(&o, "### Rows newly failing (+) and newly passing (−)\n\n");
        for (size_t i = 0; i < nm; i++) {
            const moved *m = &mv[i];
            level_text(lv, sizeof lv, m->level);
            const char *what = m->old_failed == 0 && m->new_failed   ? "newly failing"
                               : m->new_failed == 0 && m->old_failed ? "newly passing"
                                                                     : "failures moved";
            gc_sb_printf(&o, "%s%s %s: %s, %llu -> %llu of %llu failed%s\n", md ? "- " : "",
                         m->invariant, lv, what, (unsigned long long)m->old_failed,
                         (unsigned long long)m->new_failed, (unsigned long long)m->new_checked,
                         m->complete ? "" : " (rows from the samples only)");
            text_sample_list(&o, "+", m->n, m->o, md);
            text_sample_list(&o, md ? "−" : "-", m->o, m->n, md);
        }
        if (md && nm)
            gc_sb_puts(&o, "\n");
        if (!md)
            gc_sb_printf(&o, "diff: %zu changed (%zu metric fields, %zu frames, %zu results)\n",
                         changed, b.change_count, nfc, nm);
        else if (!changed)
            gc_sb_puts(&o, "Nothing changed.\n");
    }
    int rc = changed ? 1 : 0;
    if (o.failed) {
        fprintf(stderr, "gcverify diff: out of memory\n");
        rc = 2;
    } else {
        fwrite(o.s, 1, o.len, stdout);
    }
    gc_sb_free(&o);
    free(fc);
    free(mv);
    gc_report_free(&a);
    gc_report_free(&b);
    return rc;
}
