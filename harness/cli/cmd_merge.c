/* SPDX-License-Identifier: MIT */
/* gcverify merge: combine shard reports into the report a single run over
 * all their levels would have written. Level-scope results, metrics, frames
 * and changes are taken from the shards; corpus-scope invariants are
 * evaluated here from the shards' corpus_tables, and their counters compared
 * with the baseline the shards named. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gc_baseline.h"
#include "gc_cli.h"
#include "gc_cli_opts.h"
#include "gc_exit.h"
#include "gc_fsutil.h"
#include "gc_inv.h"
#include "gc_json.h"
#include "gc_level.h"
#include "gc_nightly.h"
#include "gc_num.h"
#include "gc_paths.h"
#include "gc_sweep_samples.h"
#include "gc_sweep_tables.h"

int gc_cmd_merge(int argc, char **argv);

/* Move every list entry of src into dst (src is left empty). */
static int absorb(gc_report *dst, gc_report *src)
{
#define MOVE(list, count)                                                                          \
    do {                                                                                           \
        if (src->count) {                                                                          \
            void *p = realloc(dst->list, (dst->count + src->count) * sizeof *dst->list);           \
            if (!p)                                                                                \
                return -1;                                                                         \
            dst->list = p;                                                                         \
            memcpy(dst->list + dst->count, src->list, src->count * sizeof *src->list);             \
            dst->count += src->count;                                                              \
            free(src->list);                                                                       \
            src->list = NULL;                                                                      \
            src->count = 0;                                                                        \
        }                                                                                          \
    } while (0)
    MOVE(levels, level_count);
    MOVE(results, result_count);
    MOVE(frames, frame_count);
#undef MOVE
    /* level metrics and changes only: corpus ones are recomputed */
    for (size_t i = 0; i < src->metric_count; i++) {
        gc_rep_metric *m = &src->metrics[i];
        if (m->level != GC_LEVEL_CORPUS &&
            !gc_report_add_metric(dst, m->level, m->name, m->value, m->is_null))
            return -1;
    }
    for (size_t i = 0; i < src->change_count; i++) {
        gc_rep_change *c = &src->changes[i];
        if (c->level == GC_LEVEL_CORPUS)
            continue;
        gc_rep_change *n = realloc(dst->changes, (dst->change_count + 1) * sizeof *n);
        if (!n)
            return -1;
        dst->changes = n;
        n[dst->change_count] = *c;
        n[dst->change_count].field = strdup(c->field);
        dst->change_count++;
    }
    for (size_t i = 0; i < src->digest_count; i++) {
        const gc_rep_digest *d = &src->digests[i];
        if (!gc_report_add_digest(dst, d->level, d->field, d->rows, d->digest))
            return -1;
    }
    dst->metrics_unblessed += src->metrics_unblessed; /* shards hold level figures only */
    dst->digests_unblessed += src->digests_unblessed;
    for (size_t i = 0; i < src->selected_count && dst->selected_count < 64; i++)
        dst->selected[dst->selected_count++] = src->selected[i];
    return 0;
}

/* Shards must be every K of one N: a missing shard would drop its levels
 * from the nightly verdict silently. 0, or -1 with the message printed. */
static int check_shards(const char *const *inputs, char shards[][16], size_t nin)
{
    int n = 0, seen[28] = {0}, sharded = 0;
    for (size_t k = 0; k < nin; k++) {
        int kk, nn;
        if (!shards[k][0])
            continue;
        sharded++;
        if (gc_parse_shard(shards[k], 27, &kk, &nn) != 0) {
            fprintf(stderr, "gcverify merge: %s: bad shard '%s'\n", inputs[k], shards[k]);
            return -1;
        }
        if (n && nn != n) {
            fprintf(stderr, "gcverify merge: %s is shard %s, the others are of %d shards\n",
                    inputs[k], shards[k], n);
            return -1;
        }
        n = nn;
        if (seen[kk]++) {
            fprintf(stderr, "gcverify merge: shard %d/%d is given twice (%s)\n", kk, nn, inputs[k]);
            return -1;
        }
    }
    if (!sharded)
        return 0;
    if ((size_t)sharded != nin) {
        fprintf(stderr, "gcverify merge: some reports are shards (--shard K/N) and some not\n");
        return -1;
    }
    char missing[256] = "";
    size_t ml = 0, nmiss = 0;
    for (int k = 1; k <= n; k++)
        if (!seen[k]) {
            nmiss++;
            ml += (size_t)snprintf(missing + ml, sizeof missing - ml, "%s%d/%d", ml ? ", " : "", k,
                                   n);
            if (ml >= sizeof missing)
                break;
        }
    if (nmiss) {
        fprintf(stderr,
                "gcverify merge: shard%s %s missing: the merged report would leave out %s levels "
                "(was the shard job lost, or its artifact not downloaded?)\n",
                nmiss == 1 ? "" : "s", missing, nmiss == 1 ? "its" : "their");
        return -1;
    }
    return 0;
}

/* JUnit case times from the shards' --timings files ("cases_cpu_seconds"). */
static void apply_timings(gc_report *r, const char *path)
{
    char err[512];
    char *text = gc_read_file(path, NULL, err, sizeof err);
    if (!text) {
        fprintf(stderr, "gcverify merge: %s (JUnit times stay 0 for its cases)\n", err);
        return;
    }
    gc_json *j = gc_json_parse(text, err, sizeof err);
    const gc_json *cases = j ? gc_json_get(j, "cases_cpu_seconds") : NULL;
    for (size_t i = 0; cases && cases->type == GC_JSON_OBJ && i < cases->count; i++) {
        const char *key = cases->keys[i], *at = strrchr(key, '@');
        if (!at)
            continue;
        int level = strcmp(at + 1, "corpus") == 0 ? GC_LEVEL_CORPUS : gc_atoi_clamp(at + 1);
        size_t nl = (size_t)(at - key);
        double v = gc_json_num(cases->items[i], 0);
        if (nl > 6 && strncmp(key, "frame.", 6) == 0) {
            for (size_t f = 0; f < r->frame_count; f++)
                if (r->frames[f].level == level && strlen(r->frames[f].view) == nl - 6 &&
                    strncmp(r->frames[f].view, key + 6, nl - 6) == 0)
                    r->frames[f].time_seconds = v;
            continue;
        }
        for (size_t k = 0; k < r->result_count; k++)
            if (r->results[k].level == level && strlen(r->results[k].invariant) == nl &&
                strncmp(r->results[k].invariant, key, nl) == 0)
                r->results[k].time_seconds = v;
    }
    gc_json_free(j);
    free(text);
}

enum { K_JUNIT = GC_OPT_LONG, K_MARKDOWN, K_TIMINGS_FROM, K_INVARIANTS, K_SAMPLES };

static const gc_opt merge_opts[] = {
    {"output", 'o', "OUT.json", "write the merged JSON report (default: stdout)"},
    {"json", 'o', "OUT.json", NULL},
    {"junit", K_JUNIT, "F", "JUnit XML report"},
    {"markdown", K_MARKDOWN, "F", "Markdown summary"},
    {"timings-from", K_TIMINGS_FROM, "T.json",
     "a shard's `sweep --timings` file, for the JUnit case\n"
     "times (once per shard)"},
    {"invariants", K_INVARIANTS, "DIR", "invariant YAML directory (default: the data directory's)"},
    {"samples", K_SAMPLES, "N", "failures kept per invariant and level (default 5)"},
};

static const char merge_about[] =
    "Combines the reports of `gcverify sweep --shard K/N` runs into the report one\n"
    "run over all their levels would have written (byte-identical), evaluating the\n"
    "corpus-scope invariants over the union of the shards' levels. Every shard\n"
    "1/N .. N/N must be given: a missing one is named and is exit 2. Exit code as\n"
    "sweep: 0, 1 on a gating failure, 2 on bad input.\n";

static const char merge_footer[] =
    "The page shows the review images the shards wrote (sweep --golden-images\n"
    "DIR or --html-assets DIR) when those files are still there.\n";

int gc_cmd_merge(int argc, char **argv)
{
    char def_inv[4096];
    gc_data_path(def_inv, sizeof def_inv, "invariants");
    const char *out = "-", *junit = NULL, *md = NULL, *inv_dir = def_inv;
    const char *inputs[64], *timings[64];
    size_t nin = 0, ntim = 0;
    size_t max_samples = 5;
    gc_nightly_opts nightly;
    gc_nightly_opts_init(&nightly);
    const gc_opt_group groups[] = {GC_OPT_GROUP("merge:", merge_opts), gc_nightly_group};
    const gc_cmd_spec spec = GC_CMD_SPEC("merge",
                                         "SHARD.json... [-o OUT.json] [--junit F] [--markdown F]\n"
                                         "[--timings-from T.json]... [--invariants DIR]\n"
                                         "[--samples N]\n"
                                         "[--html F [--html-assets DIR]] [--history DB]",
                                         merge_about, groups, merge_footer);
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return GC_EXIT_USAGE;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        int r = gc_nightly_apply(&p, k, &nightly);
        if (r < 0)
            return GC_EXIT_USAGE;
        if (r > 0)
            continue;
        unsigned long long v;
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return GC_EXIT_USAGE;
        case GC_OPT_ARG:
            if (nin >= 64)
                return gc_opts_usage_error(&spec, "at most 64 reports");
            inputs[nin++] = p.value;
            break;
        case 'o':
            out = p.value;
            break;
        case K_JUNIT:
            junit = p.value;
            break;
        case K_MARKDOWN:
            md = p.value;
            break;
        case K_TIMINGS_FROM:
            if (ntim < 64)
                timings[ntim++] = p.value;
            break;
        case K_INVARIANTS:
            inv_dir = p.value;
            break;
        case K_SAMPLES:
            if (gc_cli_uint(p.value, 1000, &v) != 0)
                return gc_opts_bad(&p, "--samples takes a number up to 1000, not '%s'", p.value);
            max_samples = (size_t)v;
            break;
        }
    }
    if (nin == 0)
        return gc_opts_usage_error(&spec, "no shard reports given");
    char err[4096];
    gc_report merged;
    gc_report_init(&merged);
    char *texts[64] = {0};
    gc_json *tables_json[64] = {0};
    gc_json *roots[64] = {0};
    char shards[64][16];
    int rc = 2;
    for (size_t k = 0; k < nin; k++) {
        texts[k] = gc_read_file(inputs[k], NULL, err, sizeof err);
        gc_report r;
        if (!texts[k] || gc_report_from_json(&r, texts[k], err, sizeof err) != 0) {
            fprintf(stderr, "gcverify merge: %s: %s\n", inputs[k], err);
            goto out;
        }
        snprintf(shards[k], sizeof shards[k], "%s", r.shard);
        if (k == 0) {
            snprintf(merged.version, sizeof merged.version, "%s", r.version);
            snprintf(merged.corpus_label, sizeof merged.corpus_label, "%s", r.corpus_label);
            snprintf(merged.corpus_key, sizeof merged.corpus_key, "%s", r.corpus_key);
            snprintf(merged.corpus_id, sizeof merged.corpus_id, "%s", r.corpus_id);
            snprintf(merged.tier, sizeof merged.tier, "%s", r.tier);
            merged.only = r.only ? strdup(r.only) : NULL;
            merged.baseline = r.baseline ? strdup(r.baseline) : NULL;
            merged.baseline_found = r.baseline_found;
            merged.corpus_mismatch_accepted = r.corpus_mismatch_accepted;
            merged.frames_enabled = r.frames_enabled;
            merged.invariant_count = r.invariant_count;
            merged.coverage = r.coverage; /* the same invariants and baseline on every shard */
        } else if (strcmp(r.corpus_key, merged.corpus_key) != 0 ||
                   strcmp(r.corpus_id, merged.corpus_id) != 0 || strcmp(r.tier, merged.tier) != 0 ||
                   (r.only == NULL) != (merged.only == NULL) ||
                   (r.only && strcmp(r.only, merged.only) != 0)) {
            fprintf(stderr, "gcverify merge: %s was run with another corpus, tier or --only\n",
                    inputs[k]);
            gc_report_free(&r);
            goto out;
        }
        if (absorb(&merged, &r) != 0) {
            fprintf(stderr, "gcverify merge: out of memory\n");
            gc_report_free(&r);
            goto out;
        }
        gc_report_free(&r);
        roots[k] = gc_json_parse(texts[k], err, sizeof err);
        tables_json[k] = roots[k] ? (gc_json *)gc_json_get(roots[k], "corpus_tables") : NULL;
    }
    if (check_shards(inputs, shards, nin) != 0)
        goto out;
    /* a level in two shards would be counted twice */
    for (size_t i = 0; i < merged.selected_count; i++)
        for (size_t j = i + 1; j < merged.selected_count; j++)
            if (merged.selected[i] == merged.selected[j]) {
                fprintf(stderr, "gcverify merge: level %d appears in more than one report\n",
                        merged.selected[i]);
                goto out;
            }

    if (!inv_dir[0]) {
        fprintf(stderr, "gcverify merge: %s\n", gc_no_data_dir_message);
        goto out;
    }
    size_t ndesc;
    const gc_table_desc *const *descs = gc_table_registry(&ndesc);
    char *load_err = malloc(65536);
    gc_inv_set *set = load_err ? gc_inv_load_dir(inv_dir, descs, ndesc, load_err, 65536) : NULL;
    if (!set) {
        fprintf(stderr, "gcverify merge: %s\n", load_err ? load_err : "out of memory");
        free(load_err);
        goto out;
    }
    free(load_err);
    int *selected = calloc(gc_inv_count(set) + 1, sizeof *selected);
    gc_loaded_tables lt;
    if (!selected || gc_sweep_tables_load((const gc_json *const *)tables_json, nin, descs, ndesc,
                                          &lt, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify merge: %s\n", selected ? err : "out of memory");
        free(selected);
        gc_inv_free(set);
        goto out;
    }
    /* the same selection rule the shards used (tier + --only) */
    for (size_t k = 0; k < gc_inv_count(set); k++) {
        const gc_inv_info *info = gc_inv_get(set, k);
        int tier_ok = strcmp(merged.tier, "nightly") == 0 || info->tier == GC_TIER_GATE;
        int only_ok = 1;
        if (merged.only)
            only_ok = fnmatch(merged.only, info->id, 0) == 0;
        selected[k] = tier_ok && only_ok;
    }
    /* the merged report sorts its levels first: locations look them up */
    gc_report_summarise(&merged);
    gc_sweep_eval_corpus(set, selected, (const gc_table *const *)lt.tables, lt.ids, lt.nlevels,
                         max_samples, &merged);
    gc_sweep_annotate(&merged, set, descs, ndesc, (const gc_table *const *)lt.tables, lt.ids,
                      lt.nlevels);
    merged.corpus_tables = gc_sweep_tables_merge_json((const gc_json *const *)tables_json,
                                                      (const char *const *)texts, nin);
    /* corpus counters against the baseline, as the single run would */
    if (merged.baseline && merged.baseline_found) {
        gc_baseline base;
        int found = 0;
        /* reports name project baselines relative to the project */
        char bpath[4096];
        if (merged.baseline[0] != '/' && access(merged.baseline, F_OK) != 0)
            snprintf(bpath, sizeof bpath, "%s/%s", gc_data_dir(), merged.baseline);
        else
            snprintf(bpath, sizeof bpath, "%s", merged.baseline);
        if (gc_baseline_load(bpath, &base, &found, err, sizeof err) == 0 && found) {
            gc_report corpus_only;
            gc_report_init(&corpus_only);
            /* the same levels, so corpus figures are compared exactly when
             * the shards cover every level */
            memcpy(corpus_only.selected, merged.selected, sizeof merged.selected);
            corpus_only.selected_count = merged.selected_count;
            for (size_t i = 0; i < merged.metric_count; i++)
                if (merged.metrics[i].level == GC_LEVEL_CORPUS)
                    gc_report_add_metric(&corpus_only, GC_LEVEL_CORPUS, merged.metrics[i].name,
                                         merged.metrics[i].value, merged.metrics[i].is_null);
            gc_rep_metric *cm = malloc((base.count ? base.count : 1) * sizeof *cm);
            size_t nb = 0;
            for (size_t i = 0; cm && i < base.count; i++)
                if (base.metrics[i].level == GC_LEVEL_CORPUS)
                    cm[nb++] = base.metrics[i]; /* borrowed: base still owns the names */
            if (cm)
                gc_report_compare_metrics(&corpus_only, cm, nb);
            free(cm);
            merged.metrics_unblessed += corpus_only.metrics_unblessed;
            for (size_t i = 0; i < corpus_only.change_count; i++) {
                gc_rep_change *n = realloc(merged.changes, (merged.change_count + 1) * sizeof *n);
                if (!n)
                    break;
                merged.changes = n;
                n[merged.change_count] = corpus_only.changes[i];
                n[merged.change_count].field = strdup(corpus_only.changes[i].field);
                merged.change_count++;
            }
            gc_report_free(&corpus_only);
        }
        if (found)
            gc_baseline_free(&base);
    }
    gc_loaded_tables_free(&lt);
    free(selected);
    gc_inv_free(set);
    gc_report_summarise(&merged);
    for (size_t t = 0; t < ntim; t++)
        apply_timings(&merged, timings[t]);
    if (nightly.html_assets && !nightly.html) {
        fprintf(stderr, "gcverify merge: --html-assets needs --html\n");
        rc = 2;
        goto out;
    }
    int nightly_rc = gc_nightly_after_sweep(&nightly, &merged, argc, argv);
    rc = gc_cli_write_reports(&merged, out, junit, md) == 0 && nightly_rc == 0
             ? merged.exit_code
             : gc_exit_with_write_failure(merged.exit_code);
out:
    for (size_t k = 0; k < nin; k++) {
        free(texts[k]);
        gc_json_free(roots[k]);
    }
    gc_report_free(&merged);
    return rc;
}
