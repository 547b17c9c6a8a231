/* SPDX-License-Identifier: MIT */
/* Shared option parsing, terminal output and report writing. */
#include "gc_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gc_fsutil.h"
#include "gc_level.h"
#include "gc_membudget.h"
#include "gc_num.h"
#include "gc_paths.h"
#include "sy_corpus.h"

void gc_term_init(gc_term *t, int fd)
{
    gc_term_init_color(t, fd, GC_COLOR_AUTO);
}

void gc_term_init_color(gc_term *t, int fd, int mode)
{
    t->color = gc_color_enabled(mode, fd);
    t->red = t->color ? "\033[31m" : "";
    t->green = t->color ? "\033[32m" : "";
    t->yellow = t->color ? "\033[33m" : "";
    t->bold = t->color ? "\033[1m" : "";
    t->dim = t->color ? "\033[2m" : "";
    t->reset = t->color ? "\033[0m" : "";
}

int gc_cli_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || v > max || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static const gc_opt sweep_corpus_opts[] = {
    {"corpus", GC_SWEEP_K_CORPUS, "DIR|F.iso",
     "directory with LEVEL0.WAD .. LEVEL26.WAD (any case), or an\n"
     "ISO 9660 disc image holding them (its RC2.HDR is checked);\n"
     "default: the synthetic corpus, generated once into\n"
     "~/.cache/gcverify"},
    {"scale", GC_SWEEP_K_SCALE, "retail|small|edge",
     "synthetic corpus scale (default retail; edge: small\n"
     "levels at the format's legal extremes)"},
    {"seed", GC_SWEEP_K_SEED, "N", "synthetic corpus seed (default 1)"},
};
static const gc_opt sweep_selection_opts[] = {
    {"levels", GC_SWEEP_K_LEVELS, "LIST", "levels to run, e.g. 0,3,5-7 (default all 27)"},
    {"shard", GC_SWEEP_K_SHARD, "K/N",
     "run the K-th of N deterministic level subsets (for CI matrices;\n"
     "combine the reports with `gcverify merge`)"},
    {"only", GC_SWEEP_K_ONLY, "GLOB", "only invariants whose id matches GLOB (e.g. 'tfrag.*')"},
    {"tier", GC_SWEEP_K_TIER, "gate|nightly",
     "gate: the every-push tier; nightly: every invariant (default)"},
    {"invariants", GC_SWEEP_K_INVARIANTS, "DIR",
     "invariant YAML directory (default: invariants/ of the data\n"
     "directory: share/gcverify when installed, the checkout in a\n"
     "build tree, or $GCVERIFY_DATA_DIR)"},
    {"jobs", 'j', "N", "levels decoded in parallel (default: the core count)"},
    {"memory-limit", GC_SWEEP_K_MEMORY_LIMIT, "SIZE",
     "memory budget of the levels in flight, e.g. 4G or 512M\n"
     "(default: half the physical memory, or of the cgroup limit); a\n"
     "level waits for budget before it allocates past it"},
    {"level-memory-limit", GC_SWEEP_K_LEVEL_MEMORY_LIMIT, "SIZE",
     "cap of one level (default: the memory limit); a level\n"
     "past it fails with 'memory limit reached' in its decode rows"},
};
static const gc_opt sweep_baselines_opts[] = {
    {"baseline", GC_SWEEP_K_BASELINE, "F",
     "metric baseline (default golden/metrics.yaml for the synthetic\n"
     "retail corpus, golden/metrics-small.yaml / -edge.yaml for small /\n"
     "edge; none for\n"
     "--corpus); 'none' disables the comparison. A named file must\n"
     "exist, and must have been blessed for this corpus (its\n"
     "identity, docs/golden.md), checked before decoding"},
    {"accept-corpus-mismatch", GC_SWEEP_K_ACCEPT_CORPUS_MISMATCH, NULL,
     "compare with a baseline of another corpus identity\n"
     "(a modified copy of the blessed corpus)"},
    {"frames-golden", GC_SWEEP_K_FRAMES_GOLDEN, "F",
     "frame hashes (default golden/frames.yaml / frames-small.yaml);\n"
     "a named file must exist"},
    {"no-frames", GC_SWEEP_K_NO_FRAMES, NULL, "do not render or compare frames"},
    {"lighting", GC_SWEEP_K_LIGHTING, "on|off",
     "draw tfrag with the lighting pass's colours (on, the default)\n"
     "or the stored unlit ones (off; frames then differ from goldens)"},
    {"snapshots", GC_SWEEP_K_SNAPSHOTS, NULL,
     "keep every decoded column in the column store ($GC_COLUMN_STORE,\n"
     "else the cache's columns/), so `gcverify diff` of two such\n"
     "reports names the changed rows (bless always keeps them)"},
    {"frames-out", GC_SWEEP_K_FRAMES_OUT, "DIR",
     "write every rendered frame as PNG (and into the image store)"},
    {"golden-images", GC_SWEEP_K_GOLDEN_IMAGES, "DIR",
     "for each regressed frame write actual, expected (from the image\n"
     "store) and diff PNGs, and count the pixels that changed"},
    {"frame-store", GC_SWEEP_K_FRAME_STORE, "DIR",
     "the frame image store (default $GC_FRAME_STORE, else\n"
     "~/.cache/gcverify/frames)"},
    {"inject-fault", GC_SWEEP_K_INJECT_FAULT, "NAME",
     "re-introduce a catalogued decoder defect (GC_FAULTS builds)"},
    {"samples", GC_SWEEP_K_SAMPLES, "N", "failures kept per invariant and level (default 5)"},
};

const gc_opt_group gc_cli_sweep_groups[GC_CLI_SWEEP_GROUPS] = {
    GC_OPT_GROUP("corpus:", sweep_corpus_opts),
    GC_OPT_GROUP("selection:", sweep_selection_opts),
    GC_OPT_GROUP("baselines:", sweep_baselines_opts),
};

int gc_cli_sweep_apply(const gc_opts *p, int key, gc_sweep_opts *o)
{
    const char *v = p->value;
    unsigned long long n;
    switch (key) {
    case GC_SWEEP_K_CORPUS:
        o->corpus_dir = v;
        break;
    case GC_SWEEP_K_SCALE:
        o->scale = sy_scale_parse(v);
        if (o->scale < 0)
            return gc_opts_bad(p, "--scale takes retail, small or edge, not '%s'", v), -1;
        break;
    case GC_SWEEP_K_SEED:
        if (gc_cli_uint(v, 0xffffffffu, &n) != 0)
            return gc_opts_bad(p, "--seed takes a number, not '%s'", v), -1;
        o->seed = (uint32_t)n;
        break;
    case 'j':
        if (gc_cli_uint(v, 256, &n) != 0 || n == 0)
            return gc_opts_bad(p, "--jobs takes a number from 1 to 256, not '%s'", v), -1;
        o->jobs = (unsigned)n;
        break;
    case GC_SWEEP_K_MEMORY_LIMIT:
    case GC_SWEEP_K_LEVEL_MEMORY_LIMIT: {
        size_t bytes;
        if (gc_parse_size(v, &bytes) != 0 || bytes < (1u << 20))
            return gc_opts_bad(p, "--%s takes a size of at least 1M, like 512M or 4G, not '%s'",
                               p->opt->name, v),
                   -1;
        if (key == GC_SWEEP_K_MEMORY_LIMIT)
            o->memory_limit_bytes = bytes;
        else
            o->level_memory_limit_bytes = bytes;
        break;
    }
    case GC_SWEEP_K_LEVELS:
        if (gc_parse_level_list(v, o->levels, &o->level_count) != 0)
            return gc_opts_bad(p, "--levels takes a list like 0,3,5-7 of levels 0..26, not '%s'",
                               v),
                   -1;
        break;
    case GC_SWEEP_K_SHARD: {
        int k, nn;
        if (gc_parse_shard(v, 27, &k, &nn) != 0)
            return gc_opts_bad(p, "--shard takes K/N with 1 <= K <= N <= 27, not '%s'", v), -1;
        o->shard_k = k;
        o->shard_n = nn;
        break;
    }
    case GC_SWEEP_K_ONLY:
        o->only = v;
        break;
    case GC_SWEEP_K_TIER:
        if (strcmp(v, "gate") == 0)
            o->tier_nightly = 0;
        else if (strcmp(v, "nightly") == 0)
            o->tier_nightly = 1;
        else
            return gc_opts_bad(p, "--tier takes gate or nightly, not '%s'", v), -1;
        break;
    case GC_SWEEP_K_INVARIANTS:
        o->invariants_dir = v;
        break;
    case GC_SWEEP_K_BASELINE:
        o->baseline = strcmp(v, "none") == 0 ? "" : v;
        break;
    case GC_SWEEP_K_FRAMES_GOLDEN:
        o->frames_golden = strcmp(v, "none") == 0 ? "" : v;
        break;
    case GC_SWEEP_K_ACCEPT_CORPUS_MISMATCH:
        o->accept_corpus_mismatch = 1;
        break;
    case GC_SWEEP_K_FRAME_STORE:
        o->frame_store = v;
        break;
    case GC_SWEEP_K_NO_FRAMES:
        o->no_frames = 1;
        break;
    case GC_SWEEP_K_LIGHTING:
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
            return gc_opts_bad(p, "--lighting takes on or off, not '%s'", v), -1;
        o->lighting_off = strcmp(v, "off") == 0;
        break;
    case GC_SWEEP_K_SNAPSHOTS:
        o->store_columns = 1;
        break;
    case GC_SWEEP_K_FRAMES_OUT:
        o->frames_out = v;
        break;
    case GC_SWEEP_K_GOLDEN_IMAGES:
        o->golden_images = v;
        break;
    case GC_SWEEP_K_INJECT_FAULT:
        o->fault = v;
        break;
    case GC_SWEEP_K_SAMPLES:
        if (gc_cli_uint(v, 1000, &n) != 0)
            return gc_opts_bad(p, "--samples takes a number up to 1000, not '%s'", v), -1;
        o->max_samples = (size_t)n;
        break;
    default:
        return 0;
    }
    return 1;
}

void gc_cli_print_summary(const gc_report *r, const gc_term *t, int verbose, FILE *out)
{
    size_t gating_lines = 0;
    for (size_t i = 0; i < r->result_count; i++) {
        const gc_rep_result *x = &r->results[i];
        if (!x->gating)
            continue;
        /* gating failures one line per level, with their first samples */
        if (gating_lines++ >= 40 && !verbose)
            continue;
        char lv[16];
        if (x->level == GC_LEVEL_CORPUS)
            snprintf(lv, sizeof lv, "corpus");
        else
            snprintf(lv, sizeof lv, "level %d", x->level);
        fprintf(out, "%sFAIL%s %-34s %-9s %llu of %llu failed\n", t->red, t->reset, x->invariant,
                lv, (unsigned long long)x->failed, (unsigned long long)x->checked);
        if (x->why)
            fprintf(out, "       %swhy: %s%s\n", t->dim, x->why, t->reset);
        if (x->file)
            fprintf(out, "       %sinvariant: %s:%d%s\n", t->dim, x->file, x->line, t->reset);
        size_t show = x->sample_count < 3 ? x->sample_count : 3;
        for (size_t s = 0; s < show; s++) {
            char line[1024];
            gc_report_format_sample(&x->samples[s], line, sizeof line);
            fprintf(out, "       %s%s%s\n", t->dim, line, t->reset);
        }
        if (show && x->samples[0].table && x->samples[0].level != GC_LEVEL_CORPUS)
            fprintf(out, "       %smore: gcverify show --level %d %s --where 'row == %lld'%s\n",
                    t->dim, x->samples[0].level, x->samples[0].table, (long long)x->samples[0].row,
                    t->reset);
    }
    if (gating_lines > 40 && !verbose)
        fprintf(out, "     … and %zu more failing results (--verbose, or the JSON report)\n",
                gating_lines - 40);
    /* warnings (and with --verbose, info) folded per invariant: their failures
     * are expected in small numbers and a line per level would drown the rest */
    for (size_t i = 0; i < r->result_count;) {
        const gc_rep_result *x = &r->results[i];
        if (x->failed == 0 || x->gating ||
            (strcmp(x->severity, "warn") != 0 && !verbose && !x->subset)) {
            i++;
            continue;
        }
        uint64_t rows = 0, checked = 0;
        size_t levels = 0;
        for (size_t k = 0; k < r->result_count; k++) {
            const gc_rep_result *y = &r->results[k];
            if (strcmp(y->invariant, x->invariant) != 0)
                continue;
            checked += y->checked;
            if (y->failed) {
                rows += y->failed;
                levels++;
            }
        }
        int shown_before = 0;
        for (size_t k = 0; k < i && !shown_before; k++)
            shown_before =
                strcmp(r->results[k].invariant, x->invariant) == 0 && r->results[k].failed;
        const char *tag = x->subset ? "SUBSET" : strcmp(x->severity, "warn") == 0 ? "WARN" : "INFO";
        if (!shown_before && x->subset)
            fprintf(out,
                    "%s%s%s %-34s corpus scope over %zu of 27 levels, %llu of %llu failed "
                    "(not gated)\n",
                    t->yellow, tag, t->reset, x->invariant, r->selected_count,
                    (unsigned long long)rows, (unsigned long long)checked);
        else if (!shown_before)
            fprintf(out, "%s%s%s %-34s %zu level%s, %llu of %llu failed\n",
                    strcmp(x->severity, "warn") == 0 ? t->yellow : t->dim, tag, t->reset,
                    x->invariant, levels, levels == 1 ? "" : "s", (unsigned long long)rows,
                    (unsigned long long)checked);
        i++;
    }
    for (size_t i = 0; i < r->level_count; i++) {
        const gc_rep_level *l = &r->levels[i];
        if (!l->loaded)
            fprintf(out, "%sLOAD%s %s: %s\n", t->red, t->reset, l->file,
                    l->error ? l->error : "not loaded");
        for (size_t d = 0; d < l->decoder_count; d++) {
            const gc_rep_decoder *x = &l->decoders[d];
            if (!x->ok && !x->skipped && l->loaded)
                fprintf(out, "%sDECODE%s %s %s: %s at 0x%llx (%s): %s\n", t->red, t->reset, l->file,
                        x->name, x->status, (unsigned long long)x->file_ofs,
                        x->where ? x->where : "", x->message ? x->message : "");
        }
    }
    for (size_t i = 0; i < r->change_count; i++) {
        if (i == 40 && !verbose) {
            fprintf(out, "        … and %zu more changed fields (--verbose, or `gcverify diff`)\n",
                    r->change_count - 40);
            break;
        }
        char line[1024];
        gc_report_format_change(&r->changes[i], line, sizeof line);
        fprintf(out, "%sCHANGED%s %s\n", t->red, t->reset, line);
    }
    size_t fresh = 0, manifest = 0;
    for (size_t i = 0; i < r->frame_count; i++) {
        const gc_rep_frame *f = &r->frames[i];
        if (strcmp(f->status, "new") == 0) {
            fresh++;
            continue;
        }
        if (strcmp(f->status, "manifest_differs") == 0) {
            manifest++;
            continue;
        }
        if (strcmp(f->status, "match") == 0)
            continue;
        fprintf(out, "%sFRAME%s level %d %s: %s (sha256 %.16s, golden %.16s)%s%s\n", t->red,
                t->reset, f->level, f->view, f->status, f->sha256,
                f->golden[0] ? f->golden : "none", f->metrics_changed ? "; metrics changed: " : "",
                f->metrics_changed ? f->metrics_changed : "");
        if (f->image_diff && f->pixels_changed != UINT64_MAX)
            fprintf(out, "       %s%llu pixels changed: %s (expected %s, actual %s)%s\n", t->dim,
                    (unsigned long long)f->pixels_changed, f->image_diff,
                    f->image_expected ? f->image_expected : "-",
                    f->image_actual ? f->image_actual : "-", t->reset);
        else if (f->image_actual)
            fprintf(out,
                    "       %sactual: %s (golden %.16s is not in the image store: no expected "
                    "image; `bless --frames` or a sweep with --frames-out fills it)%s\n",
                    t->dim, f->image_actual, f->golden, t->reset);
    }
    if (fresh)
        fprintf(out,
                "%snote%s: %zu frames have no golden hash yet; `gcverify bless --frames --reason "
                "\"...\"` records them\n",
                t->yellow, t->reset, fresh);
    if (manifest)
        fprintf(out,
                "%snote%s: %zu frames were hashed over another layout than their golden (manifest "
                "differs): not comparable, re-bless after review\n",
                t->yellow, t->reset, manifest);
    if (r->metrics_unblessed)
        fprintf(out,
                "%snote%s: %llu figures are not in the baseline yet (new invariants or metrics); "
                "`gcverify bless --reason \"...\"` records them\n",
                t->yellow, t->reset, (unsigned long long)r->metrics_unblessed);
    if (!r->baseline_found && r->baseline)
        fprintf(out,
                "%snote%s: no metric baseline at %s yet; `gcverify bless --reason \"...\"` writes "
                "one\n",
                t->yellow, t->reset, r->baseline);
    if (r->corpus_mismatch_accepted)
        fprintf(out,
                "%snote%s: the baseline was blessed for another corpus (--accept-corpus-mismatch): "
                "the changes are what differs from it\n",
                t->yellow, t->reset);
    if (!gc_report_complete(r) && !r->shard[0])
        fprintf(out,
                "%snote%s: %zu of 27 levels ran: corpus-scope invariants are reported over them "
                "but not gated, corpus figures not compared\n",
                t->yellow, t->reset, r->selected_count);
    fprintf(out,
            "%s%s%s %zu levels, %zu invariants, %llu checks; %llu gating failures, %llu warnings, "
            "%llu metric changes, %llu field digest changes, %llu frame mismatches\n",
            r->exit_code ? t->red : t->green, r->exit_code ? "FAILED" : "PASSED", t->reset,
            r->selected_count, r->invariant_count, (unsigned long long)r->checks,
            (unsigned long long)r->gating_failures, (unsigned long long)r->warnings,
            (unsigned long long)r->metrics_changed, (unsigned long long)r->digests_changed,
            (unsigned long long)r->frames_mismatched);
    /* every gated item: invariant x level results, frames, per-level metric
     * comparisons; the same counts as the JUnit report */
    fprintf(out, "sweep: %llu passed, %llu failed, %llu skipped\n",
            (unsigned long long)r->items_passed, (unsigned long long)r->items_failed,
            (unsigned long long)r->items_skipped);
}

static int write_one(const gc_report *r, const char *path,
                     int (*fn)(const gc_report *, gc_strbuf *))
{
    if (!path)
        return 0;
    gc_strbuf b;
    gc_sb_init(&b);
    char err[512];
    int rc = fn(r, &b);
    if (rc == 0 && !b.failed) {
        rc = gc_write_file_atomic(path, b.s, b.len, err, sizeof err);
        if (rc != 0)
            fprintf(stderr, "gcverify: %s\n", err);
    } else {
        rc = -1;
        fprintf(stderr, "gcverify: out of memory writing %s\n", path);
    }
    gc_sb_free(&b);
    return rc;
}

int gc_cli_write_reports(const gc_report *r, const char *json, const char *junit, const char *md)
{
    int rc = 0;
    rc |= write_one(r, json, gc_report_json);
    rc |= write_one(r, junit, gc_report_junit);
    rc |= write_one(r, md, gc_report_markdown);
    return rc ? -1 : 0;
}

gc_inv_set *gc_cli_load_invariants(const char *cmd, const char *dir)
{
    if (!dir || !dir[0]) {
        fprintf(stderr, "gcverify %s: %s\n", cmd, gc_no_data_dir_message);
        return NULL;
    }
    size_t ndesc;
    const gc_table_desc *const *descs = gc_table_registry(&ndesc);
    enum { ERR_BYTES = 65536 }; /* every loader message of a whole directory */
    char *err = malloc(ERR_BYTES);
    if (!err)
        return NULL;
    gc_inv_set *set = gc_inv_load_dir(dir, descs, ndesc, err, ERR_BYTES);
    if (!set) {
        fprintf(stderr, "%s", err);
        if (err[0] && err[strlen(err) - 1] != '\n')
            fputc('\n', stderr);
    }
    free(err);
    return set;
}
