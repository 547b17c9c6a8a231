/* SPDX-License-Identifier: MIT */
/* The result model: canonical ordering, summary, per-field comparison. */
#include "gc_report.h"

#include "gc_grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dupstr(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, s, n + 1);
    return d;
}

void gc_report_init(gc_report *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->version, sizeof r->version, "%s", GC_VERSION);
}

void gc_report_free(gc_report *r)
{
    for (size_t i = 0; i < r->level_count; i++) {
        for (size_t d = 0; d < r->levels[i].decoder_count; d++) {
            free(r->levels[i].decoders[d].where);
            free(r->levels[i].decoders[d].message);
        }
        free(r->levels[i].decoders);
        free(r->levels[i].error);
    }
    free(r->levels);
    for (size_t i = 0; i < r->result_count; i++) {
        for (size_t s = 0; s < r->results[i].sample_count; s++) {
            gc_rep_sample *sm = &r->results[i].samples[s];
            free(sm->values);
            free(sm->table);
            free(sm->parent_table);
            free(sm->location);
        }
        free(r->results[i].samples);
        free(r->results[i].invariant);
        free(r->results[i].why);
        free(r->results[i].file);
    }
    free(r->results);
    for (size_t i = 0; i < r->metric_count; i++)
        free(r->metrics[i].name);
    free(r->metrics);
    for (size_t i = 0; i < r->frame_count; i++) {
        free(r->frames[i].manifest);
        free(r->frames[i].params);
        free(r->frames[i].metrics_changed);
        free(r->frames[i].image_actual);
        free(r->frames[i].image_expected);
        free(r->frames[i].image_diff);
    }
    free(r->frames);
    for (size_t i = 0; i < r->change_count; i++)
        free(r->changes[i].field);
    free(r->changes);
    free(r->digests);
    free(r->table_digests);
    free(r->corpus_tables);
    free(r->only);
    free(r->baseline);
    memset(r, 0, sizeof *r);
}

/* Grow an array by one zeroed element; NULL on allocation failure. */
/* Appends one zeroed element (gc_grow.h: the arrays double). */
static void *grow_one(void **arr, size_t *count, size_t elem)
{
    void *p = gc_grow_one(*arr, *count, elem);
    if (!p)
        return NULL;
    *arr = p;
    void *e = (char *)p + *count * elem;
    memset(e, 0, elem);
    (*count)++;
    return e;
}

gc_rep_metric *gc_report_add_metric(gc_report *r, int level, const char *name, double v,
                                    int is_null)
{
    gc_rep_metric *m = grow_one((void **)&r->metrics, &r->metric_count, sizeof *m);
    if (!m)
        return NULL;
    m->level = level;
    m->name = dupstr(name);
    m->value = v;
    m->is_null = is_null;
    return m;
}

gc_rep_result *gc_report_add_result(gc_report *r, const char *invariant, int level)
{
    gc_rep_result *x = grow_one((void **)&r->results, &r->result_count, sizeof *x);
    if (!x)
        return NULL;
    x->invariant = dupstr(invariant);
    x->level = level;
    return x;
}

gc_rep_frame *gc_report_add_frame(gc_report *r, int level, const char *view)
{
    gc_rep_frame *f = grow_one((void **)&r->frames, &r->frame_count, sizeof *f);
    if (!f)
        return NULL;
    f->level = level;
    snprintf(f->view, sizeof f->view, "%s", view);
    return f;
}

gc_rep_digest *gc_report_add_digest(gc_report *r, int level, const char *field, uint64_t rows,
                                    const char *digest)
{
    gc_rep_digest *d = grow_one((void **)&r->digests, &r->digest_count, sizeof *d);
    if (!d)
        return NULL;
    d->level = level;
    snprintf(d->field, sizeof d->field, "%s", field);
    d->rows = rows;
    snprintf(d->digest, sizeof d->digest, "%s", digest);
    return d;
}

/* A copy of a NUL-terminated text into dst[cap], cut as snprintf "%s" cuts it, the rest of dst
 * zero (dst was zeroed). */
static void copy_text(char *dst, size_t cap, const char *src)
{
    const char *end = memchr(src, '\0', cap - 1);
    memcpy(dst, src, end ? (size_t)(end - src) : cap - 1);
}

int gc_report_reserve_digests(gc_report *r, size_t n)
{
    if (n <= r->digest_count || n > SIZE_MAX / 2 / sizeof *r->digests)
        return n <= r->digest_count ? 0 : -1;
#if GC_GROW_USABLE_SIZE
    if (r->digests && n * sizeof *r->digests <= malloc_usable_size(r->digests))
        return 0;
#endif
    gc_rep_digest *d = realloc(r->digests, n * sizeof *d);
    if (!d)
        return -1;
    r->digests = d;
    return 0;
}

int gc_report_add_digests(gc_report *r, int level, const gc_rep_digest *src, size_t n)
{
    if (n == 0)
        return 0;
    /* one growth for the level's columns, not one a column (~26 k a retail sweep, on the
     * sweep's serial tail): room for n more, doubling as gc_grow_one does */
    size_t need = r->digest_count + n, cap = r->digest_count < 8 ? 16 : 2 * r->digest_count;
    if (need < r->digest_count || need > SIZE_MAX / 2 / sizeof *r->digests)
        return -1;
    if (cap < need)
        cap = need;
    gc_rep_digest *d = r->digests;
#if GC_GROW_USABLE_SIZE
    if (!d || need * sizeof *d > malloc_usable_size(d))
#endif
        d = realloc(d, cap * sizeof *d);
    if (!d)
        return -1;
    r->digests = d;
    d += r->digest_count;
    memset(d, 0, n * sizeof *d);
    for (size_t i = 0; i < n; i++) {
        d[i].level = level;
        copy_text(d[i].field, sizeof d[i].field, src[i].field);
        d[i].rows = src[i].rows;
        copy_text(d[i].digest, sizeof d[i].digest, src[i].digest);
    }
    r->digest_count = need;
    return 0;
}

/* Corpus (-1) sorts after every level. */
static int level_key(int level)
{
    return level == GC_LEVEL_CORPUS ? 1 << 30 : level;
}

static int cmp_level(const void *a, const void *b)
{
    const gc_rep_level *x = a, *y = b;
    return (x->level > y->level) - (x->level < y->level);
}

static int cmp_result(const void *a, const void *b)
{
    const gc_rep_result *x = a, *y = b;
    int kx = level_key(x->level), ky = level_key(y->level);
    if (kx != ky)
        return (kx > ky) - (kx < ky);
    return strcmp(x->invariant, y->invariant);
}

static int cmp_metric(const void *a, const void *b)
{
    const gc_rep_metric *x = a, *y = b;
    int kx = level_key(x->level), ky = level_key(y->level);
    if (kx != ky)
        return (kx > ky) - (kx < ky);
    return strcmp(x->name, y->name);
}

static int cmp_frame(const void *a, const void *b)
{
    const gc_rep_frame *x = a, *y = b;
    if (x->level != y->level)
        return (x->level > y->level) - (x->level < y->level);
    return strcmp(x->view, y->view);
}

static int cmp_change(const void *a, const void *b)
{
    const gc_rep_change *x = a, *y = b;
    int kx = level_key(x->level), ky = level_key(y->level);
    if (kx != ky)
        return (kx > ky) - (kx < ky);
    int f = strcmp(x->field, y->field);
    if (f)
        return f;
    /* a metric and a column of the same name: the metric first */
    return (x->digest > y->digest) - (x->digest < y->digest);
}

static int cmp_digest(const void *a, const void *b)
{
    const gc_rep_digest *x = a, *y = b;
    if (x->level != y->level)
        return (x->level > y->level) - (x->level < y->level);
    return strcmp(x->field, y->field);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* qsort, except that an array already in order is left as it is: glibc's qsort is a stable
 * merge sort, which gives a sorted array back unchanged, after ~n log n / 2 compares (a retail
 * sweep's ~26 k digests and ~14 k metrics come here sorted, on the sweep's serial tail). */
static void sort_unless_sorted(void *base, size_t n, size_t size,
                               int (*cmp)(const void *, const void *))
{
    const char *p = base;
    for (size_t i = 1; i < n; i++)
        if (cmp(p + (i - 1) * size, p + i * size) > 0) {
            qsort(base, n, size, cmp);
            return;
        }
}

void gc_report_summarise(gc_report *r)
{
    sort_unless_sorted(r->levels, r->level_count, sizeof *r->levels, cmp_level);
    sort_unless_sorted(r->results, r->result_count, sizeof *r->results, cmp_result);
    sort_unless_sorted(r->metrics, r->metric_count, sizeof *r->metrics, cmp_metric);
    sort_unless_sorted(r->frames, r->frame_count, sizeof *r->frames, cmp_frame);
    sort_unless_sorted(r->changes, r->change_count, sizeof *r->changes, cmp_change);
    sort_unless_sorted(r->digests, r->digest_count, sizeof *r->digests, cmp_digest);
    sort_unless_sorted(r->selected, r->selected_count, sizeof *r->selected, cmp_int);
    r->checks = r->failures = r->gating_failures = r->warnings = 0;
    r->items_passed = r->items_failed = r->items_skipped = 0;
    for (size_t i = 0; i < r->result_count; i++) {
        gc_rep_result *x = &r->results[i];
        r->checks += x->checked;
        x->gating = x->failed > 0 && strcmp(x->severity, "error") == 0 && !x->subset;
        if (x->failed > 0) {
            r->failures++;
            if (x->gating)
                r->gating_failures++;
            else if (strcmp(x->severity, "warn") == 0)
                r->warnings++;
        }
        if (x->subset)
            r->items_skipped++;
        else if (x->gating)
            r->items_failed++;
        else
            r->items_passed++;
    }
    r->frames_mismatched = 0;
    for (size_t i = 0; i < r->frame_count; i++) {
        const char *s = r->frames[i].status;
        if (gc_report_frame_failed(&r->frames[i])) {
            r->frames_mismatched++;
            r->items_failed++;
        } else if (strcmp(s, "match") == 0) {
            r->items_passed++;
        } else {
            r->items_skipped++;
        }
    }
    r->digests_changed = 0;
    for (size_t i = 0; i < r->change_count; i++)
        r->digests_changed += r->changes[i].digest != 0;
    r->metrics_changed = r->change_count - r->digests_changed;
    /* the baseline comparison: one item per level that ran, and the corpus
     * when every level ran */
    if (r->baseline_found) {
        for (size_t i = 0; i <= r->selected_count; i++) {
            int level = i < r->selected_count ? r->selected[i] : GC_LEVEL_CORPUS;
            if (level == GC_LEVEL_CORPUS && !gc_report_complete(r))
                break;
            int changed = 0;
            for (size_t c = 0; c < r->change_count && !changed; c++)
                changed = r->changes[c].level == level;
            if (changed)
                r->items_failed++;
            else
                r->items_passed++;
        }
    }
    r->exit_code =
        (r->gating_failures || r->frames_mismatched || r->metrics_changed || r->digests_changed)
            ? 1
            : 0;
    /* a level that could not be read makes the verdict incomplete: exit 4
     * (gc_exit.h), whatever else failed */
    for (size_t i = 0; i < r->level_count; i++)
        if (!r->levels[i].loaded)
            r->exit_code = 4;
}

static const gc_rep_metric *find_metric(const gc_rep_metric *m, size_t n, int level,
                                        const char *name)
{
    /* both lists are canonical-sorted; a binary search keeps bless/diff fast */
    size_t lo = 0, hi = n;
    gc_rep_metric key = {.level = level, .name = (char *)name};
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_metric(&key, &m[mid]);
        if (c == 0)
            return &m[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static void add_change(gc_report *r, int level, const char *field, const gc_rep_metric *o,
                       const gc_rep_metric *n)
{
    gc_rep_change *c = grow_one((void **)&r->changes, &r->change_count, sizeof *c);
    if (!c)
        return;
    c->level = level;
    c->field = dupstr(field);
    c->old_null = !o || o->is_null;
    c->new_null = !n || n->is_null;
    c->old_value = o ? o->value : 0;
    c->new_value = n ? n->value : 0;
}

static int same_value(const gc_rep_metric *a, const gc_rep_metric *b)
{
    if (a->is_null || b->is_null)
        return a->is_null == b->is_null;
    if (a->value == b->value)
        return 1;
    /* non-integral figures (means, ratios) compare to 1e-9 relative: the
     * baseline stores them through %.17g, which round-trips exactly, so this
     * only forgives the last-bit noise of hand edits */
    return fabs(a->value - b->value) <= 1e-9 * fmax(fabs(a->value), fabs(b->value));
}

int gc_report_complete(const gc_report *r)
{
    int seen[27] = {0};
    size_t n = 0;
    for (size_t i = 0; i < r->selected_count; i++)
        if (r->selected[i] >= 0 && r->selected[i] < 27 && !seen[r->selected[i]]) {
            seen[r->selected[i]] = 1;
            n++;
        }
    return n == 27;
}

int gc_report_frame_failed(const gc_rep_frame *f)
{
    return strcmp(f->status, "regressed") == 0 || strcmp(f->status, "nondeterministic") == 0 ||
           strcmp(f->status, "error") == 0;
}

const gc_rep_level *gc_report_level(const gc_report *r, int n)
{
    for (size_t i = 0; i < r->level_count; i++)
        if (r->levels[i].level == n)
            return &r->levels[i];
    return NULL;
}

void gc_report_locate(const gc_rep_level *l, const char *unit, uint64_t ofs, char *buf, size_t len)
{
    const char *file = l ? l->file : "the level file";
    static const char in_prefix[] = "bytes in ";
    if (unit && strncmp(unit, in_prefix, sizeof in_prefix - 1) == 0) {
        /* a decompressed stream: name it, then where its compressed bytes are */
        const char *stream = unit + sizeof in_prefix - 1;
        const gc_rep_region *g = NULL;
        for (size_t i = 0; l && i < l->region_count && !g; i++)
            if (l->regions[i].stream && strcmp(l->regions[i].name, stream) == 0)
                g = &l->regions[i];
        if (!g)
            snprintf(buf, len, "%s+0x%llx (decompressed stream, not located in %s)", stream,
                     (unsigned long long)ofs, file);
        else if (g->extent[0])
            snprintf(buf, len,
                     "%s+0x%llx (decompressed stream, %s %s +0x%llx, WAD LZ at %s+0x%llx)", stream,
                     (unsigned long long)ofs, file, g->extent, (unsigned long long)g->extent_ofs,
                     file, (unsigned long long)g->container_ofs);
        else
            snprintf(buf, len, "%s+0x%llx (decompressed stream, WAD LZ at %s+0x%llx)", stream,
                     (unsigned long long)ofs, file, (unsigned long long)g->container_ofs);
        return;
    }
    /* a container offset: name every region holding it, outermost first
     * ("data extent +0x25c10, core_index +0x390") */
    const gc_rep_region *in[GC_REP_MAX_REGIONS];
    size_t nin = 0;
    for (size_t i = 0; l && i < l->region_count; i++) {
        const gc_rep_region *g = &l->regions[i];
        if (!g->stream && ofs >= g->container_ofs && ofs - g->container_ofs < g->size_bytes)
            in[nin++] = g;
    }
    for (size_t i = 1; i < nin; i++) /* insertion sort, largest first */
        for (size_t j = i; j > 0 && in[j]->size_bytes > in[j - 1]->size_bytes; j--) {
            const gc_rep_region *x = in[j];
            in[j] = in[j - 1];
            in[j - 1] = x;
        }
    int n = snprintf(buf, len, "%s+0x%llx", file, (unsigned long long)ofs);
    for (size_t i = 0; i < nin && n > 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, "%s%s +0x%llx%s", i ? ", " : " (", in[i]->name,
                      (unsigned long long)(ofs - in[i]->container_ofs), i + 1 == nin ? ")" : "");
}

void gc_report_format_sample(const gc_rep_sample *s, char *buf, size_t len)
{
    size_t n = 0;
#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (n < len) {                                                                             \
            int k = snprintf(buf + n, len - n, __VA_ARGS__);                                       \
            n += k > 0 ? (size_t)k : 0;                                                            \
        }                                                                                          \
    } while (0)
    if (len)
        buf[0] = '\0';
    if (s->level == GC_LEVEL_CORPUS)
        APPEND("corpus");
    else
        APPEND("level %d", s->level);
    if (s->row >= 0 && s->table)
        APPEND(" %s row %lld", s->table, (long long)s->row);
    else if (s->row >= 0)
        APPEND(" row %lld", (long long)s->row);
    else
        APPEND(" (once per %s)", s->level == GC_LEVEL_CORPUS ? "corpus" : "level");
    if (s->parent_row >= 0)
        APPEND(" (parent %s row %lld)", s->parent_table ? s->parent_table : "",
               (long long)s->parent_row);
    if (s->location)
        APPEND(" at %s", s->location);
    APPEND(": %s", s->values ? s->values : "");
#undef APPEND
}

static int metrics_sorted(const gc_rep_metric *m, size_t n, int strictly)
{
    for (size_t i = 1; i < n; i++)
        if (cmp_metric(&m[i - 1], &m[i]) >= (strictly ? 0 : 1))
            return 0;
    return 1;
}

void gc_report_compare_metrics(gc_report *r, const gc_rep_metric *old_m, size_t old_count)
{
    /* A baseline is written sorted: then it is read as it is, not copied and sorted again
     * (glibc's qsort is a stable merge sort, so a sorted array is what sorting would give). */
    gc_rep_metric *sorted_old = NULL;
    const gc_rep_metric *so = old_m;
    if (old_count && !metrics_sorted(old_m, old_count, 0)) {
        sorted_old = malloc(old_count * sizeof *sorted_old);
        if (!sorted_old)
            return;
        memcpy(sorted_old, old_m, old_count * sizeof *sorted_old);
        qsort(sorted_old, old_count, sizeof *sorted_old, cmp_metric);
        so = sorted_old;
    }
    if (r->metric_count > 1) /* a report without metrics has none to sort (and qsort no NULL) */
        qsort(r->metrics, r->metric_count, sizeof *r->metrics, cmp_metric);
    /* With no key twice on either side, one merge walk of the two sorted lists finds what the
     * binary searches find (~14 k metrics a retail sweep, on its serial tail) */
    const int walk =
        metrics_sorted(so, old_count, 1) && metrics_sorted(r->metrics, r->metric_count, 1);
    /* Only levels present in this run are compared: a shard or a --levels
     * subset does not report the other levels as vanished. */
    /* Corpus figures are compared only when every level ran: over a --levels
     * subset they describe the subset, not the corpus the baseline holds. */
    int complete = gc_report_complete(r);
    size_t j = 0;
    for (size_t i = 0; i < r->metric_count; i++) {
        const gc_rep_metric *n = &r->metrics[i];
        if (n->level == GC_LEVEL_CORPUS && !complete)
            continue;
        const gc_rep_metric *o;
        if (walk) {
            int c = -1;
            while (j < old_count && (c = cmp_metric(&so[j], n)) < 0)
                j++;
            o = j < old_count && c == 0 ? &so[j] : NULL;
        } else {
            o = find_metric(so, old_count, n->level, n->name);
        }
        /* A figure the baseline does not have yet (a new invariant or
         * metric) has not regressed: it is counted, and blessed later. */
        if (!o)
            r->metrics_unblessed++;
        else if (!same_value(o, n))
            add_change(r, n->level, n->name, o, n);
    }
    j = 0;
    for (size_t i = 0; i < old_count; i++) {
        const gc_rep_metric *o = &so[i];
        int level_present = o->level == GC_LEVEL_CORPUS && complete;
        for (size_t k = 0; k < r->selected_count && !level_present; k++)
            level_present = r->selected[k] == o->level;
        int found = 0;
        if (walk) {
            int c = -1;
            while (j < r->metric_count && (c = cmp_metric(&r->metrics[j], o)) < 0)
                j++;
            found = j < r->metric_count && c == 0;
        }
        /* An invariant's counters vanish when it is not selected (--only,
         * --tier gate); that is a narrower run, not a change. */
        size_t nl = strlen(o->name);
        int counter = (nl > 8 && strcmp(o->name + nl - 8, ".checked") == 0) ||
                      (nl > 7 && strcmp(o->name + nl - 7, ".failed") == 0);
        if (level_present && !counter &&
            !(walk ? found : find_metric(r->metrics, r->metric_count, o->level, o->name) != NULL))
            add_change(r, o->level, o->name, o, NULL);
    }
    free(sorted_old);
}

static void fmt_value(char *buf, size_t len, double v, int is_null)
{
    if (is_null) {
        snprintf(buf, len, "(none)");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e15) {
        /* thousands separators, as a reviewer reads counts */
        char digits[32];
        long long x = (long long)v;
        snprintf(digits, sizeof digits, "%lld", x < 0 ? -x : x);
        size_t n = strlen(digits), o = 0;
        if (x < 0 && o + 1 < len)
            buf[o++] = '-';
        for (size_t i = 0; i < n && o + 2 < len; i++) {
            if (i > 0 && (n - i) % 3 == 0)
                buf[o++] = ',';
            buf[o++] = digits[i];
        }
        buf[o] = '\0';
        return;
    }
    snprintf(buf, len, "%.6g", v);
}

/* A column digest change: "93 rows, 12 changed", "93 rows, values changed
 * (digest 1a2b3c4d -> 5e6f7a8b)", "93 -> 94 rows", "93 rows -> (none)". */
static void format_digest_change(const gc_rep_change *c, char *buf, size_t len)
{
    char o[48], n[48], what[160];
    fmt_value(o, sizeof o, c->old_value, c->old_null);
    fmt_value(n, sizeof n, c->new_value, c->new_null);
    if (c->old_null || c->new_null)
        snprintf(what, sizeof what, "%s%s -> %s%s", o, c->old_null ? "" : " rows", n,
                 c->new_null ? "" : " rows");
    else if (c->old_value != c->new_value && c->rows_changed != UINT64_MAX)
        snprintf(what, sizeof what, "%s -> %s rows, %llu of the common rows changed", o, n,
                 (unsigned long long)c->rows_changed);
    else if (c->old_value != c->new_value)
        snprintf(what, sizeof what, "%s -> %s rows", o, n);
    else if (c->rows_changed != UINT64_MAX)
        snprintf(what, sizeof what, "%s rows, %llu changed", n,
                 (unsigned long long)c->rows_changed);
    else
        snprintf(what, sizeof what, "%s rows, values changed (digest %.8s -> %.8s)", n,
                 c->old_digest, c->new_digest);
    if (c->level == GC_LEVEL_CORPUS)
        snprintf(buf, len, "corpus, %s: %s%s%s", c->field, what, c->rows[0] ? "; " : "", c->rows);
    else
        snprintf(buf, len, "level %d, %s: %s%s%s", c->level, c->field, what, c->rows[0] ? "; " : "",
                 c->rows);
}

void gc_report_format_change(const gc_rep_change *c, char *buf, size_t len)
{
    if (c->digest) {
        format_digest_change(c, buf, len);
        return;
    }
    char o[48], n[48];
    fmt_value(o, sizeof o, c->old_value, c->old_null);
    fmt_value(n, sizeof n, c->new_value, c->new_null);
    if (c->level == GC_LEVEL_CORPUS)
        snprintf(buf, len, "corpus, %s: %s -> %s", c->field, o, n);
    else
        snprintf(buf, len, "level %d, %s: %s -> %s", c->level, c->field, o, n);
}
