/* SPDX-License-Identifier: MIT */
/* The HTML report (gc_html.h). Reads only the in-memory report, so `sweep
 * --html` and `merge --html` write the same page for the same results; the
 * page holds no time or host name, so it is byte-identical for any --jobs
 * like the JSON report (inlined images are the PNG files the sweep wrote). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_fsutil.h"
#include "gc_html.h"
#include "gc_paths.h"

void gc_html_history_free(gc_html_history *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->run_count; i++)
        free(h->run_labels[i]);
    free(h->run_labels);
    for (size_t i = 0; i < h->row_count; i++) {
        free(h->rows[i].invariant);
        free(h->rows[i].state);
    }
    free(h->rows);
    memset(h, 0, sizeof *h);
}

void gc_report_summary_text(const gc_report *r, gc_strbuf *out)
{
    /* the same format strings as gc_cli_print_summary's closing lines
     * (tests/test_html.c compares them) */
    gc_sb_printf(out,
                 "%s %zu levels, %zu invariants, %llu checks; %llu gating failures, %llu "
                 "warnings, %llu metric changes, %llu field digest changes, %llu frame "
                 "mismatches\n",
                 r->exit_code ? "FAILED" : "PASSED", r->selected_count, r->invariant_count,
                 (unsigned long long)r->checks, (unsigned long long)r->gating_failures,
                 (unsigned long long)r->warnings, (unsigned long long)r->metrics_changed,
                 (unsigned long long)r->digests_changed, (unsigned long long)r->frames_mismatched);
    gc_sb_printf(out, "sweep: %llu passed, %llu failed, %llu skipped\n",
                 (unsigned long long)r->items_passed, (unsigned long long)r->items_failed,
                 (unsigned long long)r->items_skipped);
}

static void esc(gc_strbuf *b, const char *s)
{
    gc_sb_xml(b, s ? s : "");
}

/* An id usable in an HTML id attribute and a URL fragment. */
static void anchor(char *out, size_t n, const char *inv, int level)
{
    size_t k = 0;
    const char *p = "r-";
    for (; *p && k + 1 < n; p++)
        out[k++] = *p;
    for (p = inv; *p && k + 1 < n; p++) {
        char c = *p;
        out[k++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-')
                       ? c
                       : '_';
    }
    if (level == GC_LEVEL_CORPUS)
        snprintf(out + k, n - k, "-corpus");
    else
        snprintf(out + k, n - k, "-%d", level);
}

static void level_name(char *out, size_t n, int level)
{
    if (level == GC_LEVEL_CORPUS)
        snprintf(out, n, "corpus");
    else
        snprintf(out, n, "%d", level);
}

static int sev_rank(const char *s)
{
    return strcmp(s, "error") == 0 ? 3 : strcmp(s, "warn") == 0 ? 2 : 1;
}

/* The state class of one result: what colours its cell. */
static const char *cell_class(const gc_rep_result *x)
{
    if (!x)
        return "none";
    if (x->failed == 0)
        return "pass";
    if (x->gating)
        return "error";
    if (strcmp(x->severity, "error") == 0)
        return "subset"; /* an error-severity corpus result over a subset: not gated */
    return strcmp(x->severity, "warn") == 0 ? "warn" : "info";
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ---- files and images ---- */

static int read_all(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    gc_strbuf b;
    gc_sb_init(&b);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        gc_sb_put(&b, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad || b.failed) {
        gc_sb_free(&b);
        return -1;
    }
    *len = b.len;
    *out = b.s ? gc_sb_take(&b) : calloc(1, 1);
    return *out ? 0 : -1;
}

static void base64(gc_strbuf *b, const unsigned char *p, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char q[4];
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        q[0] = t[(v >> 18) & 63];
        q[1] = t[(v >> 12) & 63];
        q[2] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        q[3] = i + 2 < n ? t[v & 63] : '=';
        gc_sb_put(b, q, 4);
    }
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The path of `target` relative to directory `from_dir` (both made absolute). */
static int relpath(const char *from_dir, const char *target, char *out, size_t n)
{
    char a[PATH_MAX], t[PATH_MAX];
    if (!realpath(from_dir, a) || !realpath(target, t))
        return -1;
    if (strcmp(a, "/") == 0) {
        snprintf(out, n, "%s", t + 1);
        return 0;
    }
    size_t i = 0, last = 0;
    while (a[i] && a[i] == t[i]) {
        if (a[i] == '/')
            last = i;
        i++;
    }
    if (a[i] == 0 && t[i] == '/')
        last = i; /* the target lies under from_dir */
    size_t k = 0;
    out[0] = 0;
    for (size_t j = last; a[j]; j++)
        if (a[j] == '/' && k + 4 < n) {
            memcpy(out + k, "../", 4);
            k += 3;
        }
    int w = snprintf(out + k, n - k, "%s", t + last + 1);
    return w >= 0 && (size_t)w < n - k ? 0 : -1;
}

typedef struct html_ctx {
    const gc_html_opts *o;
    char html_dir[PATH_MAX];
    char *err;
    size_t errlen;
    int failed;
} html_ctx;

/* Emit an <img> for the PNG at path: inline, or copied into the assets
 * directory under `name` and referenced relatively. */
static void image(html_ctx *c, gc_strbuf *b, const char *path, const char *name, const char *cls,
                  const char *alt)
{
    char *data = NULL;
    size_t len = 0;
    if (read_all(path, &data, &len) != 0) {
        gc_sb_printf(b, "<p class=\"missing\">image not readable: ");
        esc(b, path);
        gc_sb_puts(b, "</p>");
        if (!c->failed)
            snprintf(c->err, c->errlen, "cannot read %s: %s", path, strerror(errno));
        c->failed = 1;
        return;
    }
    gc_sb_printf(b, "<img class=\"%s\" alt=\"", cls);
    esc(b, alt);
    gc_sb_puts(b, "\" src=\"");
    if (!c->o->assets_dir) {
        gc_sb_puts(b, "data:image/png;base64,");
        base64(b, (const unsigned char *)data, len);
    } else {
        char dst[PATH_MAX], rel[PATH_MAX], e[512];
        snprintf(dst, sizeof dst, "%s/%s", c->o->assets_dir, name);
        if (gc_write_file_atomic(dst, data, len, e, sizeof e) != 0 ||
            relpath(c->html_dir, dst, rel, sizeof rel) != 0) {
            if (!c->failed)
                snprintf(c->err, c->errlen, "cannot write %s: %s", dst, e);
            c->failed = 1;
            snprintf(rel, sizeof rel, "%s", name);
        }
        esc(b, rel);
    }
    gc_sb_puts(b, "\">");
    free(data);
}

/* The invariant's YAML, from its line to the next list item at its indent. */
static void yaml_source(gc_strbuf *b, const char *file, int line)
{
    if (!file || line <= 0)
        return;
    char path[PATH_MAX];
    FILE *f = NULL;
    if (gc_data_path(path, sizeof path, file) == 0)
        f = fopen(path, "r");
    if (!f)
        f = fopen(file, "r");
    if (!f) {
        gc_sb_puts(b, "<p class=\"dim\">(YAML source not found here)</p>");
        return;
    }
    char buf[4096];
    int n = 0, indent = -1, emitted = 0;
    gc_strbuf s;
    gc_sb_init(&s);
    while (fgets(buf, sizeof buf, f)) {
        n++;
        if (n < line)
            continue;
        int ind = 0;
        while (buf[ind] == ' ')
            ind++;
        if (n == line) {
            indent = ind;
        } else if (buf[ind] != '\n' && buf[ind] != 0 &&
                   (ind < indent || (ind == indent && buf[ind] == '-'))) {
            break;
        }
        gc_sb_puts(&s, buf);
        if (++emitted >= 60)
            break;
    }
    fclose(f);
    /* trailing blank lines are the gap to the next item */
    while (s.len && (s.s[s.len - 1] == '\n' || s.s[s.len - 1] == ' '))
        s.s[--s.len] = 0;
    gc_sb_puts(b, "<pre class=\"yaml\">");
    esc(b, s.s);
    gc_sb_puts(b, "</pre>");
    gc_sb_free(&s);
}

static const char css[] =
    "body{font:14px/1.4 sans-serif;margin:1em 2em;color:#222;background:#fff}"
    "h1{font-size:1.4em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}"
    "pre{background:#f6f6f6;padding:.5em;overflow-x:auto}"
    "pre#summary{font-size:1.05em;border-left:6px solid #888}"
    "pre#summary.FAILED{border-color:#c62828}pre#summary.PASSED{border-color:#2e7d32}"
    "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 5px}"
    "table.matrix td{text-align:center;min-width:1.6em;font-size:11px;padding:1px 2px}"
    "table.matrix th.inv{text-align:left;white-space:nowrap;font-weight:normal}"
    "td.pass{background:#c8e6c9}td.none{background:#eee;color:#999}"
    "td.error{background:#e53935;color:#fff;font-weight:bold}td.subset{background:#ffb74d}"
    "td.warn{background:#fff176}td.info{background:#bbdefb}"
    "td a{color:inherit;text-decoration:none;display:block}"
    ".legend span{padding:2px 6px;margin-right:4px}"
    "span.error{background:#e53935;color:#fff}span.warn{background:#fff176}"
    "span.info{background:#bbdefb}span.pass{background:#c8e6c9}span.subset{background:#ffb74d}"
    "span.none{background:#eee}"
    "section.cell{border:1px solid #ddd;padding:.5em 1em;margin:1em 0}"
    "section.cell:target{outline:3px solid #1565c0}"
    ".dim{color:#777}.missing{color:#c62828}"
    "figure{display:inline-block;margin:0 1em 1em 0;vertical-align:top}"
    "figure img{max-width:320px;image-rendering:pixelated;border:1px solid #999}"
    "#filters{display:none;margin:.5em 0}#filters label{margin-right:1em}"
    ".strip span{display:inline-block;width:10px;height:14px;margin-right:1px}"
    ".strip .h0{background:#eee}.strip .h1{background:#66bb6a}.strip .h2{background:#e53935}"
    "tr.hidden{display:none}";

/* Filtering only: everything else on the page is static. The filters can be
 * preset from the URL: page.html?tier=gate&sev=error&table=tfrag&text=vert&failing=1 */
static const char js[] =
    "(function(){var f=document.getElementById('filters');f.style.display='block';"
    "var q=function(i){return document.getElementById(i);};"
    "function apply(){var t=q('f-tier').value,s=q('f-sev').value,tb=q('f-table').value,"
    "x=q('f-text').value.toLowerCase(),o=q('f-fail').checked,n=0;"
    "var rows=document.querySelectorAll('tr.inv');for(var i=0;i<rows.length;i++){var r=rows[i];"
    "var ok=(!t||r.dataset.tier===t)&&(!s||r.dataset.sev===s)&&"
    "(!tb||(' '+r.dataset.table+' ').indexOf(' '+tb+' ')>=0)&&"
    "(!x||r.dataset.text.indexOf(x)>=0)&&(!o||r.dataset.failed==='1');"
    "r.className=ok?'inv':'inv hidden';if(ok)n++;}"
    "q('f-count').textContent=n+' of '+rows.length+' invariants shown';}"
    "var p=new URLSearchParams(location.search);"
    "[['tier','f-tier'],['sev','f-sev'],['table','f-table'],['text','f-text']].forEach(function(k){"
    "if(p.has(k[0]))q(k[1]).value=p.get(k[0]);});if(p.get('failing')==='1')q('f-fail').checked="
    "true;"
    "['f-tier','f-sev','f-table','f-text','f-fail'].forEach(function(i){"
    "q(i).addEventListener('input',apply);q(i).addEventListener('change',apply);});apply();})();";

typedef struct inv_row {
    const char *id;
    const gc_rep_result **cells; /* per column */
    const gc_rep_result *any;
    int failed;
    int worst; /* rank of the worst failing severity */
    gc_strbuf tables;
} inv_row;

static void add_word(gc_strbuf *b, const char *w)
{
    if (!w || !*w)
        return;
    size_t n = strlen(w);
    for (const char *p = b->s; p && (p = strstr(p, w)) != NULL; p += n)
        if ((p == b->s || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
            return;
    if (b->len)
        gc_sb_puts(b, " ");
    gc_sb_puts(b, w);
}

int gc_report_html(const gc_report *r, const gc_html_opts *o, gc_strbuf *b, char *err,
                   size_t errlen)
{
    html_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.err = err;
    c.errlen = errlen;
    snprintf(c.html_dir, sizeof c.html_dir, "%s", o->html_path ? o->html_path : ".");
    char *slash = strrchr(c.html_dir, '/');
    if (!o->html_path || !slash)
        snprintf(c.html_dir, sizeof c.html_dir, ".");
    else if (slash == c.html_dir)
        c.html_dir[1] = 0;
    else
        *slash = 0;
    if (o->assets_dir && gc_mkdir_p(o->assets_dir, err, errlen) != 0)
        return -1;

    /* columns: the selected levels, then the corpus when it has results */
    int cols[66];
    size_t ncol = 0;
    for (size_t i = 0; i < r->selected_count && ncol < 64; i++)
        cols[ncol++] = r->selected[i];
    int has_corpus = 0;
    for (size_t i = 0; i < r->result_count; i++)
        has_corpus |= r->results[i].level == GC_LEVEL_CORPUS;
    if (has_corpus)
        cols[ncol++] = GC_LEVEL_CORPUS;

    /* rows: the invariant ids, sorted */
    const char **ids = calloc(r->result_count + 1, sizeof *ids);
    inv_row *rows = calloc(r->result_count + 1, sizeof *rows);
    if (!ids || !rows) {
        free(ids);
        free(rows);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t nid = 0;
    for (size_t i = 0; i < r->result_count; i++)
        ids[nid++] = r->results[i].invariant;
    qsort(ids, nid, sizeof *ids, cmp_str);
    size_t nrow = 0;
    for (size_t i = 0; i < nid; i++)
        if (i == 0 || strcmp(ids[i], ids[i - 1]) != 0)
            rows[nrow++].id = ids[i];
    for (size_t k = 0; k < nrow; k++) {
        rows[k].cells = calloc(ncol ? ncol : 1, sizeof *rows[k].cells);
        gc_sb_init(&rows[k].tables);
        /* the family (id prefix) names the table group even when no sample does */
        char fam[64];
        snprintf(fam, sizeof fam, "%s", rows[k].id);
        char *dot = strchr(fam, '.');
        if (dot)
            *dot = 0;
        add_word(&rows[k].tables, fam);
    }
    for (size_t i = 0; i < r->result_count; i++) {
        const gc_rep_result *x = &r->results[i];
        const char *key = x->invariant;
        size_t lo = 0, hi = nrow;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (strcmp(rows[mid].id, key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        inv_row *row = &rows[lo];
        row->any = row->any ? row->any : x;
        for (size_t cc = 0; cc < ncol; cc++)
            if (cols[cc] == x->level && row->cells)
                row->cells[cc] = x;
        if (x->failed) {
            row->failed = 1;
            int rk = x->gating ? 4 : sev_rank(x->severity);
            if (rk > row->worst)
                row->worst = rk;
        }
        for (size_t s = 0; s < x->sample_count; s++) {
            add_word(&row->tables, x->samples[s].table);
            add_word(&row->tables, x->samples[s].parent_table);
        }
    }

    gc_sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    gc_sb_puts(b, "<meta name=\"viewport\" content=\"width=device-width\">\n<title>gcverify ");
    gc_sb_puts(b, r->exit_code ? "FAILED" : "PASSED");
    gc_sb_puts(b, ": ");
    esc(b, r->corpus_label);
    gc_sb_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
    gc_sb_printf(b, "<h1>gcverify %s report</h1>\n", r->shard[0] ? "shard" : "sweep");
    gc_sb_puts(b, "<pre id=\"summary\" class=\"");
    gc_sb_puts(b, r->exit_code ? "FAILED" : "PASSED");
    gc_sb_puts(b, "\">");
    gc_strbuf sum;
    gc_sb_init(&sum);
    gc_report_summary_text(r, &sum);
    if (sum.len)
        sum.s[--sum.len] = 0; /* no trailing newline inside the pre */
    esc(b, sum.s);
    gc_sb_free(&sum);
    gc_sb_printf(b, "</pre>\n<p id=\"exit\">exit code %d</p>\n<table class=\"meta\">\n",
                 r->exit_code);
    const char *mk[] = {"gcverify", "corpus", "corpus id", "tier", "only", "baseline", "shard"};
    const char *mv[] = {r->version,
                        r->corpus_label,
                        r->corpus_id,
                        r->tier,
                        r->only ? r->only : "all invariants",
                        r->baseline ? r->baseline : "none",
                        r->shard[0] ? r->shard : "not sharded"};
    for (size_t i = 0; i < sizeof mk / sizeof *mk; i++) {
        gc_sb_printf(b, "<tr><th>%s</th><td>", mk[i]);
        esc(b, mv[i]);
        if (i == 5 && r->baseline && !r->baseline_found)
            gc_sb_puts(b, " (not found: nothing compared)");
        if (i == 5 && r->corpus_mismatch_accepted)
            gc_sb_puts(b, " (blessed for another corpus, --accept-corpus-mismatch)");
        gc_sb_puts(b, "</td></tr>\n");
    }
    gc_sb_puts(b, "</table>\n");

    /* contents, for readers without a scroll wheel and without JS */
    gc_sb_puts(b, "<p><a href=\"#matrix\">matrix</a> · <a href=\"#failures\">failing cells</a> · "
                  "<a href=\"#loading\">load and decode</a> · <a href=\"#metrics\">metrics "
                  "changed</a> · <a href=\"#frames\">frames</a>");
    if (o->history)
        gc_sb_puts(b, " · <a href=\"#history\">history</a>");
    gc_sb_puts(b, "</p>\n");

    /* ---- the matrix ---- */
    gc_sb_puts(b, "<h2 id=\"matrix\">Invariants × levels</h2>\n");
    gc_sb_puts(b, "<p class=\"legend\"><span class=\"error\">gating failure</span>"
                  "<span class=\"subset\">error, not gated (subset)</span>"
                  "<span class=\"warn\">warn</span><span class=\"info\">info</span>"
                  "<span class=\"pass\">clean</span><span class=\"none\">not run</span> "
                  "cells give the failed rows; a failing cell links to its samples</p>\n");
    /* the filters: shown (and working) only with JavaScript */
    gc_sb_puts(b, "<div id=\"filters\"><label>tier <select id=\"f-tier\"><option value=\"\">any"
                  "</option>");
    /* the tiers and severities present, in their first-seen order of the rows */
    for (size_t k = 0; k < nrow; k++) {
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++)
            seen = strcmp(rows[j].any->tier, rows[k].any->tier) == 0;
        if (!seen) {
            gc_sb_puts(b, "<option>");
            esc(b, rows[k].any->tier);
            gc_sb_puts(b, "</option>");
        }
    }
    gc_sb_puts(b, "</select></label><label>severity <select id=\"f-sev\"><option value=\"\">any"
                  "</option><option>error</option><option>warn</option><option>info</option>"
                  "</select></label><label>table <select id=\"f-table\"><option value=\"\">any"
                  "</option>");
    {
        /* every table word of every row, sorted and unique */
        size_t nw = 0, cap = 0;
        char **words = NULL;
        for (size_t k = 0; k < nrow; k++) {
            char *dup = rows[k].tables.s ? strdup(rows[k].tables.s) : NULL;
            for (char *sv = NULL, *w = dup ? strtok_r(dup, " ", &sv) : NULL; w;
                 w = strtok_r(NULL, " ", &sv)) {
                if (nw == cap) {
                    cap = cap ? cap * 2 : 64;
                    char **nwds = realloc(words, cap * sizeof *words);
                    if (!nwds)
                        break;
                    words = nwds;
                }
                words[nw++] = strdup(w);
            }
            free(dup);
        }
        qsort(words, nw, sizeof *words, cmp_str);
        for (size_t i = 0; i < nw; i++) {
            if (words[i] && (i == 0 || strcmp(words[i], words[i - 1]) != 0)) {
                gc_sb_puts(b, "<option>");
                esc(b, words[i]);
                gc_sb_puts(b, "</option>");
            }
        }
        for (size_t i = 0; i < nw; i++)
            free(words[i]);
        free(words);
    }
    gc_sb_puts(b, "</select></label><label>text <input id=\"f-text\" type=\"search\"></label>"
                  "<label><input id=\"f-fail\" type=\"checkbox\"> failing only</label>"
                  "<span id=\"f-count\"></span></div>\n<noscript><p class=\"dim\">Filtering "
                  "needs JavaScript; everything else on this page works without it.</p>"
                  "</noscript>\n");
    gc_sb_puts(b, "<table class=\"matrix\">\n<thead><tr><th>invariant</th><th>tier</th>"
                  "<th>sev</th>");
    for (size_t cc = 0; cc < ncol; cc++) {
        char ln[16];
        level_name(ln, sizeof ln, cols[cc]);
        gc_sb_printf(b, "<th>%s</th>", ln);
    }
    gc_sb_puts(b, "</tr></thead>\n<tbody>\n");
    for (size_t k = 0; k < nrow; k++) {
        const inv_row *row = &rows[k];
        const gc_rep_result *a = row->any;
        gc_sb_puts(b, "<tr class=\"inv\" data-tier=\"");
        esc(b, a->tier);
        gc_sb_puts(b, "\" data-sev=\"");
        esc(b, a->severity);
        gc_sb_puts(b, "\" data-table=\"");
        esc(b, row->tables.s);
        gc_sb_printf(b, "\" data-failed=\"%d\" data-text=\"", row->failed);
        gc_strbuf t;
        gc_sb_init(&t);
        gc_sb_puts(&t, row->id);
        gc_sb_puts(&t, " ");
        gc_sb_puts(&t, a->why ? a->why : "");
        for (size_t i = 0; i < t.len; i++)
            if (t.s[i] >= 'A' && t.s[i] <= 'Z')
                t.s[i] = (char)(t.s[i] - 'A' + 'a');
        esc(b, t.s);
        gc_sb_free(&t);
        gc_sb_puts(b, "\"><th class=\"inv\" title=\"");
        esc(b, a->why);
        gc_sb_puts(b, "\">");
        esc(b, row->id);
        gc_sb_puts(b, "</th><td>");
        esc(b, a->tier);
        gc_sb_puts(b, "</td><td>");
        esc(b, a->severity);
        gc_sb_puts(b, "</td>");
        for (size_t cc = 0; cc < ncol; cc++) {
            const gc_rep_result *x = row->cells[cc];
            char ln[16];
            level_name(ln, sizeof ln, cols[cc]);
            if (!x) {
                gc_sb_puts(b, "<td class=\"none\"></td>");
                continue;
            }
            gc_sb_printf(b, "<td class=\"%s\" title=\"", cell_class(x));
            esc(b, row->id);
            gc_sb_printf(b, " level %s: %llu of %llu failed\">", ln, (unsigned long long)x->failed,
                         (unsigned long long)x->checked);
            if (x->failed) {
                char an[192];
                anchor(an, sizeof an, x->invariant, x->level);
                gc_sb_printf(b, "<a href=\"#%s\">%llu</a>", an, (unsigned long long)x->failed);
            }
            gc_sb_puts(b, "</td>");
        }
        gc_sb_puts(b, "</tr>\n");
    }
    gc_sb_puts(b, "</tbody>\n</table>\n");

    /* ---- failing cells ---- */
    gc_sb_puts(b, "<h2 id=\"failures\">Failing cells</h2>\n");
    size_t nfail = 0;
    /* gating first, then the rest by severity, each in report order */
    for (int pass = 0; pass < 4; pass++) {
        for (size_t i = 0; i < r->result_count; i++) {
            const gc_rep_result *x = &r->results[i];
            if (!x->failed)
                continue;
            int rank = x->gating ? 0 : 4 - sev_rank(x->severity);
            if (rank != pass)
                continue;
            nfail++;
            char an[192], ln[16];
            anchor(an, sizeof an, x->invariant, x->level);
            level_name(ln, sizeof ln, x->level);
            gc_sb_printf(b, "<section class=\"cell\" id=\"%s\">\n<h3><span class=\"%s\">%s</span> ",
                         an, cell_class(x),
                         x->gating ? "FAIL" : (x->subset ? "SUBSET" : x->severity));
            esc(b, x->invariant);
            gc_sb_printf(b, " — %s%s: %llu of %llu failed</h3>\n",
                         x->level == GC_LEVEL_CORPUS ? "" : "level ", ln,
                         (unsigned long long)x->failed, (unsigned long long)x->checked);
            gc_sb_puts(b, "<p class=\"why\"><b>why:</b> ");
            esc(b, x->why ? x->why : "(unknown)");
            gc_sb_puts(b, "</p>\n<p class=\"src\"><b>invariant:</b> ");
            if (x->file) {
                esc(b, x->file);
                gc_sb_printf(b, ":%d", x->line);
            } else {
                gc_sb_puts(b, "(source unknown)");
            }
            gc_sb_printf(b, " · tier %s · severity %s · scope %s</p>\n", x->tier, x->severity,
                         x->scope);
            yaml_source(b, x->file, x->line);
            if (x->sample_count) {
                gc_sb_puts(b, "<table class=\"samples\"><thead><tr><th>level</th><th>table</th>"
                              "<th>row</th><th>parent</th><th>values</th><th>location</th>"
                              "</tr></thead><tbody>\n");
                for (size_t s = 0; s < x->sample_count; s++) {
                    const gc_rep_sample *sm = &x->samples[s];
                    char sl[16];
                    level_name(sl, sizeof sl, sm->level);
                    gc_sb_printf(b, "<tr class=\"sample\"><td>%s</td><td>", sl);
                    esc(b, sm->table ? sm->table : "(per level)");
                    gc_sb_printf(b, "</td><td>%lld</td><td>", (long long)sm->row);
                    if (sm->parent_row >= 0) {
                        esc(b, sm->parent_table ? sm->parent_table : "");
                        gc_sb_printf(b, " row %lld", (long long)sm->parent_row);
                    }
                    gc_sb_puts(b, "</td><td><code>");
                    esc(b, sm->values);
                    gc_sb_puts(b, "</code></td><td>");
                    if (sm->location)
                        esc(b, sm->location);
                    else
                        gc_sb_printf(b, "0x%llx", (unsigned long long)sm->file_ofs);
                    gc_sb_puts(b, "</td></tr>\n");
                }
                gc_sb_puts(b, "</tbody></table>\n");
                if (x->samples[0].table && x->samples[0].level != GC_LEVEL_CORPUS) {
                    gc_sb_printf(b, "<p class=\"dim\">more: <code>gcverify show --level %d ",
                                 x->samples[0].level);
                    esc(b, x->samples[0].table);
                    gc_sb_printf(b, " --where 'row == %lld'</code></p>\n",
                                 (long long)x->samples[0].row);
                }
            } else {
                gc_sb_puts(b, "<p class=\"dim\">no samples recorded</p>\n");
            }
            gc_sb_puts(b, "</section>\n");
        }
    }
    if (!nfail)
        gc_sb_puts(b, "<p>No invariant failed.</p>\n");

    /* ---- loading and decoding ---- */
    gc_sb_puts(b, "<h2 id=\"loading\">Load and decode</h2>\n");
    size_t nload = 0;
    for (size_t i = 0; i < r->level_count; i++) {
        const gc_rep_level *l = &r->levels[i];
        if (!l->loaded) {
            gc_sb_puts(b, "<p class=\"missing\">LOAD ");
            esc(b, l->file);
            gc_sb_puts(b, ": ");
            esc(b, l->error ? l->error : "not loaded");
            gc_sb_puts(b, "</p>\n");
            nload++;
        }
        for (size_t d = 0; d < l->decoder_count; d++) {
            const gc_rep_decoder *x = &l->decoders[d];
            if (x->ok || x->skipped || !l->loaded)
                continue;
            gc_sb_puts(b, "<p class=\"missing\">DECODE ");
            esc(b, l->file);
            gc_sb_puts(b, " ");
            esc(b, x->name);
            gc_sb_puts(b, ": ");
            esc(b, x->status);
            gc_sb_printf(b, " at 0x%llx (", (unsigned long long)x->file_ofs);
            esc(b, x->where);
            gc_sb_puts(b, "): ");
            esc(b, x->message);
            gc_sb_puts(b, "</p>\n");
            nload++;
        }
    }
    if (!nload)
        gc_sb_printf(b,
                     "<p>Every selected level loaded and every decoder succeeded (%zu "
                     "levels).</p>\n",
                     r->level_count);

    /* ---- metrics ---- */
    gc_sb_puts(b, "<h2 id=\"metrics\">Metrics changed against the baseline</h2>\n");
    if (!r->baseline)
        gc_sb_puts(b, "<p>No baseline was given: nothing compared.</p>\n");
    else if (!r->baseline_found)
        gc_sb_puts(b, "<p>The baseline does not exist yet: nothing compared.</p>\n");
    else if (!r->change_count)
        gc_sb_puts(b, "<p>No metric changed.</p>\n");
    if (r->change_count) {
        gc_sb_puts(b, "<table class=\"changes\"><thead><tr><th>level</th><th>field</th>"
                      "<th>baseline</th><th>this run</th><th>change</th></tr></thead><tbody>\n");
        for (size_t i = 0; i < r->change_count; i++) {
            const gc_rep_change *ch = &r->changes[i];
            char ln[16];
            level_name(ln, sizeof ln, ch->level);
            gc_sb_printf(b, "<tr class=\"change\"><td>%s</td><td>", ln);
            esc(b, ch->field);
            gc_sb_puts(b, "</td><td>");
            if (ch->old_null)
                gc_sb_puts(b, "absent");
            else
                gc_sb_printf(b, "%.17g", ch->old_value);
            gc_sb_puts(b, "</td><td>");
            if (ch->new_null)
                gc_sb_puts(b, "absent");
            else
                gc_sb_printf(b, "%.17g", ch->new_value);
            gc_sb_puts(b, "</td><td>");
            if (!ch->old_null && !ch->new_null)
                gc_sb_printf(b, "%+.17g", ch->new_value - ch->old_value);
            gc_sb_puts(b, "</td></tr>\n");
        }
        gc_sb_puts(b, "</tbody></table>\n");
    }
    if (r->metrics_unblessed)
        gc_sb_printf(b,
                     "<p class=\"dim\">%llu figures are not in the baseline yet (not a "
                     "change).</p>\n",
                     (unsigned long long)r->metrics_unblessed);

    /* ---- frames ---- */
    gc_sb_puts(b, "<h2 id=\"frames\">Frames</h2>\n");
    if (!r->frames_enabled || !r->frame_count) {
        gc_sb_puts(b, "<p>No frames were rendered in this run.</p>\n");
    } else {
        gc_sb_puts(b, "<table class=\"frames\"><thead><tr><th>level</th><th>view</th>"
                      "<th>status</th><th>sha256</th><th>golden</th><th>pixels changed</th>"
                      "<th>metrics changed</th></tr></thead><tbody>\n");
        for (size_t i = 0; i < r->frame_count; i++) {
            const gc_rep_frame *f = &r->frames[i];
            int bad = strcmp(f->status, "match") != 0;
            gc_sb_printf(b, "<tr class=\"frame %s\"><td>%d</td><td>", bad ? "mismatch" : "match",
                         f->level);
            esc(b, f->view);
            gc_sb_puts(b, "</td><td>");
            if (f->image_actual)
                gc_sb_printf(b, "<a href=\"#frame-%d-", f->level);
            if (f->image_actual) {
                esc(b, f->view);
                gc_sb_puts(b, "\">");
            }
            esc(b, f->status);
            if (f->image_actual)
                gc_sb_puts(b, "</a>");
            gc_sb_printf(b, "</td><td><code>%.16s</code></td><td><code>%.16s</code></td><td>",
                         f->sha256, f->golden[0] ? f->golden : "none");
            if (f->pixels_changed != UINT64_MAX && f->image_diff)
                gc_sb_printf(b, "%llu", (unsigned long long)f->pixels_changed);
            gc_sb_puts(b, "</td><td>");
            esc(b, f->metrics_changed);
            gc_sb_puts(b, "</td></tr>\n");
        }
        gc_sb_puts(b, "</tbody></table>\n");
        size_t shown = 0;
        for (size_t i = 0; i < r->frame_count; i++) {
            const gc_rep_frame *f = &r->frames[i];
            if (!f->image_actual)
                continue;
            shown++;
            gc_sb_printf(b, "<section class=\"framecmp\" id=\"frame-%d-", f->level);
            esc(b, f->view);
            gc_sb_printf(b, "\">\n<h3>level %d ", f->level);
            esc(b, f->view);
            gc_sb_puts(b, ": ");
            esc(b, f->status);
            if (f->pixels_changed != UINT64_MAX && f->image_diff)
                gc_sb_printf(b, ", <span class=\"pixels\">%llu</span> pixels changed",
                             (unsigned long long)f->pixels_changed);
            gc_sb_puts(b, "</h3>\n<p class=\"dim\">");
            esc(b, f->params);
            gc_sb_puts(b, "</p>\n");
            const char *paths[3] = {f->image_actual, f->image_expected, f->image_diff};
            const char *kinds[3] = {"actual", "expected", "diff"};
            for (int k = 0; k < 3; k++) {
                gc_sb_printf(b, "<figure class=\"%s\">", kinds[k]);
                if (paths[k]) {
                    char alt[96], name[128];
                    snprintf(alt, sizeof alt, "level %d %s %s", f->level, f->view, kinds[k]);
                    snprintf(name, sizeof name, "%s", base_name(paths[k]));
                    image(&c, b, paths[k], name, kinds[k], alt);
                } else {
                    gc_sb_puts(b, "<p class=\"missing\">");
                    gc_sb_puts(b, k == 1 ? "the golden frame is not in the image store "
                                           "(`bless --frames` or a sweep with --frames-out "
                                           "fills it)"
                                         : "not written");
                    gc_sb_puts(b, "</p>");
                }
                gc_sb_printf(b, "<figcaption>%s</figcaption></figure>\n", kinds[k]);
            }
            gc_sb_puts(b, "</section>\n");
        }
        if (r->frames_mismatched && !shown)
            gc_sb_puts(b, "<p class=\"dim\">No review images were written for the mismatches "
                          "(the sweep writes them for --html; merged shards keep the images "
                          "their shards wrote with --golden-images).</p>\n");
    }

    /* ---- history ---- */
    if (o->history) {
        const gc_html_history *h = o->history;
        gc_sb_printf(b, "<h2 id=\"history\">History (last %zu runs, oldest first)</h2>\n",
                     h->run_count);
        gc_sb_puts(b, "<ol class=\"runs\">");
        for (size_t i = 0; i < h->run_count; i++) {
            gc_sb_puts(b, "<li>");
            esc(b, h->run_labels[i]);
            gc_sb_puts(b, "</li>");
        }
        gc_sb_puts(b, "</ol>\n<table class=\"history\"><tbody>\n");
        for (size_t i = 0; i < h->row_count; i++) {
            const gc_html_hist_row *hr = &h->rows[i];
            char ln[16];
            level_name(ln, sizeof ln, hr->level);
            gc_sb_puts(b, "<tr><th class=\"inv\">");
            esc(b, hr->invariant);
            gc_sb_printf(b, "</th><td>%s</td><td class=\"strip\">", ln);
            for (size_t k = 0; k < h->run_count; k++) {
                int st = hr->state[k];
                gc_sb_printf(b, "<span class=\"h%d\" title=\"", st);
                esc(b, h->run_labels[k]);
                gc_sb_printf(b, ": %s\"></span>",
                             st == GC_HTML_HIST_FAIL    ? "failed"
                             : st == GC_HTML_HIST_CLEAN ? "clean"
                                                        : "not recorded");
            }
            gc_sb_puts(b, "</td></tr>\n");
        }
        gc_sb_puts(b, "</tbody></table>\n");
    }

    gc_sb_printf(b, "<script>%s</script>\n</body>\n</html>\n", js);
    for (size_t k = 0; k < nrow; k++) {
        free(rows[k].cells);
        gc_sb_free(&rows[k].tables);
    }
    free(rows);
    free(ids);
    if (b->failed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return c.failed ? -1 : 0;
}

int gc_report_html_write(const gc_report *r, const gc_html_opts *o)
{
    gc_strbuf b;
    gc_sb_init(&b);
    char err[1024] = "";
    int rc = gc_report_html(r, o, &b, err, sizeof err);
    if (rc == 0 && gc_write_file_atomic(o->html_path, b.s, b.len, err, sizeof err) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "gcverify: HTML report %s: %s\n", o->html_path, err);
    gc_sb_free(&b);
    return rc;
}
