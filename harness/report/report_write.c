/* SPDX-License-Identifier: MIT */
/* Report writers: JSON (full), JUnit XML (one testcase per invariant x level)
 * and a Markdown summary for CI job pages. All output depends only on the
 * report model, never on timing or thread order. */
#include <stdio.h>
#include <string.h>

#include "gc_report.h"

static void json_str_or_null(gc_strbuf *b, const char *s)
{
    if (s)
        gc_sb_json_str(b, s);
    else
        gc_sb_puts(b, "null");
}

static void level_json(gc_strbuf *b, int level)
{
    if (level == GC_LEVEL_CORPUS)
        gc_sb_puts(b, "null");
    else
        gc_sb_printf(b, "%d", level);
}

int gc_report_json(const gc_report *r, gc_strbuf *b)
{
    gc_sb_puts(b, "{\n");
    gc_sb_printf(b, "  \"format\": %d,\n  \"gcverify\": ", GC_REPORT_FORMAT);
    gc_sb_json_str(b, r->version);
    gc_sb_puts(b, ",\n  \"corpus\": {\"label\": ");
    gc_sb_json_str(b, r->corpus_label);
    gc_sb_puts(b, ", \"key\": ");
    gc_sb_json_str(b, r->corpus_key);
    gc_sb_puts(b, ", \"id\": ");
    gc_sb_json_str(b, r->corpus_id);
    gc_sb_puts(b, "},\n  \"run\": {\"tier\": ");
    gc_sb_json_str(b, r->tier);
    gc_sb_puts(b, ", \"only\": ");
    if (r->only)
        gc_sb_json_str(b, r->only);
    else
        gc_sb_puts(b, "null");
    gc_sb_puts(b, ", \"baseline\": ");
    if (r->baseline)
        gc_sb_json_str(b, r->baseline);
    else
        gc_sb_puts(b, "null");
    gc_sb_puts(b, ", \"shard\": ");
    if (r->shard[0])
        gc_sb_json_str(b, r->shard);
    else
        gc_sb_puts(b, "null");
    gc_sb_printf(b,
                 ", \"baseline_found\": %s, \"corpus_mismatch_accepted\": %s, \"frames\": %s, "
                 "\"invariants\": %zu, \"corpus_scope\": \"%s\", \"levels\": [",
                 r->baseline_found ? "true" : "false",
                 r->corpus_mismatch_accepted ? "true" : "false",
                 r->frames_enabled ? "true" : "false", r->invariant_count,
                 r->shard[0]             ? "deferred"
                 : gc_report_complete(r) ? "complete"
                                         : "subset");
    for (size_t i = 0; i < r->selected_count; i++)
        gc_sb_printf(b, "%s%d", i ? ", " : "", r->selected[i]);
    gc_sb_puts(b, "]},\n");
    gc_sb_printf(
        b,
        "  \"summary\": {\"checks\": %llu, \"results_failed\": %llu, \"gating_failures\": %llu, "
        "\"warnings\": %llu, \"metrics_changed\": %llu, \"metrics_unblessed\": %llu, "
        "\"digests_changed\": %llu, \"digests_unblessed\": %llu, "
        "\"frames_mismatched\": %llu, \"passed\": %llu, \"failed\": %llu, \"skipped\": %llu, "
        "\"exit_code\": %d},\n",
        (unsigned long long)r->checks, (unsigned long long)r->failures,
        (unsigned long long)r->gating_failures, (unsigned long long)r->warnings,
        (unsigned long long)r->metrics_changed, (unsigned long long)r->metrics_unblessed,
        (unsigned long long)r->digests_changed, (unsigned long long)r->digests_unblessed,
        (unsigned long long)r->frames_mismatched, (unsigned long long)r->items_passed,
        (unsigned long long)r->items_failed, (unsigned long long)r->items_skipped, r->exit_code);
    const gc_rep_coverage *cv = &r->coverage;
    gc_sb_printf(b,
                 "  \"coverage\": {\"columns\": %llu, \"by_invariant\": %llu, "
                 "\"by_metric_only\": %llu, \"digest_only\": %llu, \"unguarded\": %llu, "
                 "\"mission_unread\": %llu},\n",
                 (unsigned long long)cv->columns, (unsigned long long)cv->by_invariant,
                 (unsigned long long)cv->by_metric_only, (unsigned long long)cv->digest_only,
                 (unsigned long long)cv->unguarded, (unsigned long long)cv->mission_unread);

    gc_sb_puts(b, "  \"levels\": [");
    for (size_t i = 0; i < r->level_count; i++) {
        const gc_rep_level *l = &r->levels[i];
        gc_sb_printf(b, "%s\n    {\"level\": %d, \"file\": ", i ? "," : "", l->level);
        gc_sb_json_str(b, l->file);
        gc_sb_printf(b, ", \"loaded\": %s, \"size_bytes\": %llu, \"error\": ",
                     l->loaded ? "true" : "false", (unsigned long long)l->size_bytes);
        if (l->error)
            gc_sb_json_str(b, l->error);
        else
            gc_sb_puts(b, "null");
        gc_sb_puts(b, ", \"regions\": [");
        for (size_t g = 0; g < l->region_count; g++) {
            const gc_rep_region *x = &l->regions[g];
            gc_sb_puts(b, g ? ", {\"name\": " : "{\"name\": ");
            gc_sb_json_str(b, x->name);
            gc_sb_printf(b, ", \"kind\": \"%s\", \"container_ofs\": %llu, \"size_bytes\": %llu",
                         x->stream ? "stream" : "extent", (unsigned long long)x->container_ofs,
                         (unsigned long long)x->size_bytes);
            if (x->stream) {
                gc_sb_puts(b, ", \"extent\": ");
                if (x->extent[0])
                    gc_sb_json_str(b, x->extent);
                else
                    gc_sb_puts(b, "null");
                gc_sb_printf(b, ", \"extent_ofs\": %llu", (unsigned long long)x->extent_ofs);
            }
            gc_sb_puts(b, "}");
        }
        gc_sb_puts(b, "], \"decoders\": [");
        for (size_t d = 0; d < l->decoder_count; d++) {
            const gc_rep_decoder *x = &l->decoders[d];
            gc_sb_printf(b, "%s\n      {\"decoder\": ", d ? "," : "");
            gc_sb_json_str(b, x->name);
            gc_sb_puts(b, ", \"status\": ");
            gc_sb_json_str(b, x->status);
            gc_sb_printf(b, ", \"ok\": %s, \"skipped\": %s, \"file_ofs\": %llu, \"where\": ",
                         x->ok ? "true" : "false", x->skipped ? "true" : "false",
                         (unsigned long long)x->file_ofs);
            gc_sb_json_str(b, x->where ? x->where : "");
            gc_sb_puts(b, ", \"message\": ");
            gc_sb_json_str(b, x->message ? x->message : "");
            gc_sb_puts(b, "}");
        }
        gc_sb_puts(b, l->decoder_count ? "\n    ]}" : "]}");
    }
    gc_sb_puts(b, r->level_count ? "\n  ],\n" : "],\n");

    gc_sb_puts(b, "  \"results\": [");
    for (size_t i = 0; i < r->result_count; i++) {
        const gc_rep_result *x = &r->results[i];
        gc_sb_printf(b, "%s\n    {\"invariant\": ", i ? "," : "");
        gc_sb_json_str(b, x->invariant);
        gc_sb_puts(b, ", \"level\": ");
        level_json(b, x->level);
        /* escaped like every string: a report read back (diff, merge) may hold any text */
        gc_sb_puts(b, ", \"severity\": ");
        gc_sb_json_str(b, x->severity);
        gc_sb_puts(b, ", \"tier\": ");
        gc_sb_json_str(b, x->tier);
        gc_sb_puts(b, ", \"scope\": ");
        gc_sb_json_str(b, x->scope);
        gc_sb_printf(b, ", \"checked\": %llu, \"failed\": %llu, \"samples\": [",
                     (unsigned long long)x->checked, (unsigned long long)x->failed);
        for (size_t s = 0; s < x->sample_count; s++) {
            const gc_rep_sample *sm = &x->samples[s];
            gc_sb_printf(b, "%s\n      {\"level\": ", s ? "," : "");
            level_json(b, sm->level);
            gc_sb_puts(b, ", \"table\": ");
            json_str_or_null(b, sm->table);
            gc_sb_printf(b, ", \"row\": %lld, \"parent_table\": ", (long long)sm->row);
            json_str_or_null(b, sm->parent_table);
            gc_sb_puts(b, ", \"parent_row\": ");
            if (sm->parent_row >= 0)
                gc_sb_printf(b, "%lld", (long long)sm->parent_row);
            else
                gc_sb_puts(b, "null");
            gc_sb_printf(b,
                         ", \"file_ofs\": %llu, \"location\": ", (unsigned long long)sm->file_ofs);
            json_str_or_null(b, sm->location);
            gc_sb_puts(b, ", \"values\": ");
            gc_sb_json_str(b, sm->values ? sm->values : "");
            gc_sb_puts(b, "}");
        }
        if (x->sample_count)
            gc_sb_puts(b, "\n    ");
        gc_sb_puts(b, "], \"subset\": ");
        gc_sb_puts(b, x->subset ? "true" : "false");
        gc_sb_puts(b, ", \"why\": ");
        json_str_or_null(b, x->why);
        gc_sb_puts(b, ", \"file\": ");
        json_str_or_null(b, x->file);
        gc_sb_printf(b, ", \"line\": %d", x->line);
        gc_sb_puts(b, "}");
    }
    gc_sb_puts(b, r->result_count ? "\n  ],\n" : "],\n");

    gc_sb_puts(b, "  \"metrics\": {");
    int open = 0, cur = 0x7fffffff;
    for (size_t i = 0; i < r->metric_count; i++) {
        const gc_rep_metric *m = &r->metrics[i];
        if (!open || m->level != cur) {
            if (open)
                gc_sb_puts(b, "\n    },");
            if (m->level == GC_LEVEL_CORPUS)
                gc_sb_puts(b, "\n    \"corpus\": {");
            else
                gc_sb_printf(b, "\n    \"%d\": {", m->level);
            open = 1;
            cur = m->level;
            gc_sb_puts(b, "\n      ");
        } else {
            gc_sb_puts(b, ",\n      ");
        }
        gc_sb_json_str(b, m->name);
        gc_sb_puts(b, ": ");
        if (m->is_null)
            gc_sb_puts(b, "null");
        else
            gc_sb_num(b, m->value);
    }
    gc_sb_puts(b, open ? "\n    }\n  },\n" : "},\n");

    gc_sb_puts(b, "  \"changes\": [");
    for (size_t i = 0; i < r->change_count; i++) {
        const gc_rep_change *c = &r->changes[i];
        char line[1024];
        gc_report_format_change(c, line, sizeof line);
        gc_sb_printf(b, "%s\n    {\"level\": ", i ? "," : "");
        level_json(b, c->level);
        gc_sb_puts(b, ", \"field\": ");
        gc_sb_json_str(b, c->field);
        gc_sb_puts(b, ", \"old\": ");
        if (c->old_null)
            gc_sb_puts(b, "null");
        else
            gc_sb_num(b, c->old_value);
        gc_sb_puts(b, ", \"new\": ");
        if (c->new_null)
            gc_sb_puts(b, "null");
        else
            gc_sb_num(b, c->new_value);
        gc_sb_puts(b, ", \"text\": ");
        gc_sb_json_str(b, line);
        gc_sb_printf(b, ", \"kind\": \"%s\"", c->digest ? "digest" : "metric");
        if (c->digest) {
            gc_sb_puts(b, ", \"old_digest\": ");
            json_str_or_null(b, c->old_null ? NULL : c->old_digest);
            gc_sb_puts(b, ", \"new_digest\": ");
            json_str_or_null(b, c->new_null ? NULL : c->new_digest);
            gc_sb_puts(b, ", \"rows_changed\": ");
            if (c->rows_changed == UINT64_MAX)
                gc_sb_puts(b, "null");
            else
                gc_sb_printf(b, "%llu", (unsigned long long)c->rows_changed);
            gc_sb_puts(b, ", \"rows\": ");
            json_str_or_null(b, c->rows[0] ? c->rows : NULL);
        }
        gc_sb_puts(b, "}");
    }
    gc_sb_puts(b, r->change_count ? "\n  ],\n" : "],\n");

    /* every column's digest: "<rows> <digest>", per level (gc_digest.h) */
    gc_sb_puts(b, "  \"digests\": {");
    int dopen = 0, dcur = 0x7fffffff;
    for (size_t i = 0; i < r->digest_count; i++) {
        const gc_rep_digest *d = &r->digests[i];
        if (!dopen || d->level != dcur) {
            gc_sb_printf(b, "%s\n    \"%d\": {\n      ", dopen ? "\n    }," : "", d->level);
            dopen = 1;
            dcur = d->level;
        } else {
            gc_sb_puts(b, ",\n      ");
        }
        gc_sb_json_str(b, d->field);
        gc_sb_printf(b, ": \"%llu %s\"", (unsigned long long)d->rows, d->digest);
    }
    gc_sb_puts(b, dopen ? "\n    }\n  },\n" : "},\n");

    gc_sb_puts(b, "  \"frames\": [");
    for (size_t i = 0; i < r->frame_count; i++) {
        const gc_rep_frame *f = &r->frames[i];
        gc_sb_printf(b, "%s\n    {\"level\": %d, \"view\": ", i ? "," : "", f->level);
        gc_sb_json_str(b, f->view);
        gc_sb_puts(b, ", \"sha256\": ");
        gc_sb_json_str(b, f->sha256);
        gc_sb_puts(b, ", \"golden\": ");
        if (f->golden[0])
            gc_sb_json_str(b, f->golden);
        else
            gc_sb_puts(b, "null");
        gc_sb_printf(
            b, ", \"match\": %s, \"status\": ", strcmp(f->status, "match") == 0 ? "true" : "false");
        gc_sb_json_str(b, f->status);
        gc_sb_puts(b, ", \"pixels_changed\": ");
        if (f->pixels_changed == UINT64_MAX)
            gc_sb_puts(b, "null");
        else
            gc_sb_printf(b, "%llu", (unsigned long long)f->pixels_changed);
        gc_sb_puts(b, ", \"images\": ");
        if (f->image_actual || f->image_expected || f->image_diff) {
            gc_sb_puts(b, "{\"actual\": ");
            json_str_or_null(b, f->image_actual);
            gc_sb_puts(b, ", \"expected\": ");
            json_str_or_null(b, f->image_expected);
            gc_sb_puts(b, ", \"diff\": ");
            json_str_or_null(b, f->image_diff);
            gc_sb_puts(b, "}");
        } else {
            gc_sb_puts(b, "null");
        }
        gc_sb_puts(b, ", \"metrics_changed\": ");
        if (f->metrics_changed)
            gc_sb_json_str(b, f->metrics_changed);
        else
            gc_sb_puts(b, "null");
        gc_sb_puts(b, ", \"manifest\": ");
        gc_sb_json_str(b, f->manifest ? f->manifest : "");
        gc_sb_puts(b, ", \"params\": ");
        gc_sb_json_str(b, f->params ? f->params : "");
        gc_sb_puts(b, "}");
    }
    gc_sb_puts(b, r->frame_count ? "\n  ],\n" : "],\n");

    gc_sb_puts(b, "  \"corpus_tables\": ");
    gc_sb_puts(b, r->corpus_tables ? r->corpus_tables : "{}");
    gc_sb_puts(b, "\n}\n");
    return b->failed ? -1 : 0;
}

static void junit_classname(gc_strbuf *b, int level)
{
    if (level == GC_LEVEL_CORPUS)
        gc_sb_puts(b, "corpus");
    else
        gc_sb_printf(b, "level%02d", level);
}

/* Every gated item is one testcase (the closing line and the summary count
 * the same items): invariant x level, frame, and per level (and for the
 * corpus when every level ran) the comparison with the metric baseline. */
int gc_report_junit(const gc_report *r, gc_strbuf *b)
{
    double total = 0;
    for (size_t i = 0; i < r->result_count; i++)
        total += r->results[i].time_seconds;
    for (size_t i = 0; i < r->frame_count; i++)
        total += r->frames[i].time_seconds;
    unsigned long long tests = r->items_passed + r->items_failed + r->items_skipped;
    gc_sb_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    /* junit-10.xsd (ci/schemas/): testsuites takes name, time, tests,
     * failures and errors; skipped only on testsuite */
    gc_sb_printf(b,
                 "<testsuites name=\"gcverify\" tests=\"%llu\" failures=\"%llu\" errors=\"0\" "
                 "time=\"%.6f\">\n",
                 tests, (unsigned long long)r->items_failed, total);
    gc_sb_printf(
        b,
        "  <testsuite name=\"gcverify.sweep\" tests=\"%llu\" failures=\"%llu\" errors=\"0\" "
        "skipped=\"%llu\" time=\"%.6f\">\n",
        tests, (unsigned long long)r->items_failed, (unsigned long long)r->items_skipped, total);
    gc_sb_puts(b, "    <properties>\n      <property name=\"corpus\" value=\"");
    gc_sb_xml(b, r->corpus_label);
    gc_sb_puts(b, "\"/>\n      <property name=\"corpus_id\" value=\"");
    gc_sb_xml(b, r->corpus_id);
    gc_sb_puts(b, "\"/>\n      <property name=\"tier\" value=\"");
    gc_sb_xml(b, r->tier);
    const gc_rep_coverage *cv = &r->coverage;
    gc_sb_printf(b,
                 "\"/>\n      <property name=\"coverage_columns\" value=\"%llu\"/>\n"
                 "      <property name=\"coverage_by_invariant\" value=\"%llu\"/>\n"
                 "      <property name=\"coverage_by_metric_only\" value=\"%llu\"/>\n"
                 "      <property name=\"coverage_digest_only\" value=\"%llu\"/>\n"
                 "      <property name=\"coverage_unguarded\" value=\"%llu\"/>\n"
                 "      <property name=\"coverage_mission_unread\" value=\"%llu\"/>\n",
                 (unsigned long long)cv->columns, (unsigned long long)cv->by_invariant,
                 (unsigned long long)cv->by_metric_only, (unsigned long long)cv->digest_only,
                 (unsigned long long)cv->unguarded, (unsigned long long)cv->mission_unread);
    gc_sb_puts(b, "    </properties>\n");
    for (size_t i = 0; i < r->result_count; i++) {
        const gc_rep_result *x = &r->results[i];
        gc_sb_puts(b, "    <testcase classname=\"");
        junit_classname(b, x->level);
        gc_sb_puts(b, "\" name=\"");
        gc_sb_xml(b, x->invariant);
        gc_sb_printf(b, "\" time=\"%.6f\"", x->time_seconds);
        if (x->subset) {
            gc_sb_printf(b,
                         ">\n      <skipped message=\"corpus scope over %zu of 27 levels "
                         "(--levels): reported, not gated\"/>\n    </testcase>\n",
                         r->selected_count);
            continue;
        }
        if (x->failed == 0) {
            gc_sb_puts(b, "/>\n");
            continue;
        }
        gc_sb_puts(b, ">\n");
        char msg[160];
        snprintf(msg, sizeof msg, "%llu of %llu checks failed (%s)", (unsigned long long)x->failed,
                 (unsigned long long)x->checked, x->severity);
        if (x->gating) {
            gc_sb_puts(b, "      <failure type=\"invariant\" message=\"");
            gc_sb_xml(b, msg);
            gc_sb_puts(b, "\">");
        } else {
            gc_sb_puts(b, "      <system-out>");
            gc_sb_xml(b, msg);
            gc_sb_puts(b, "\n");
        }
        if (x->why) {
            gc_sb_puts(b, "why: ");
            gc_sb_xml(b, x->why);
            gc_sb_puts(b, "\n");
        }
        if (x->file) {
            char where[600];
            snprintf(where, sizeof where, "invariant: %s:%d\n", x->file, x->line);
            gc_sb_xml(b, where);
        }
        for (size_t s = 0; s < x->sample_count; s++) {
            char line[1024];
            gc_report_format_sample(&x->samples[s], line, sizeof line);
            gc_sb_xml(b, line);
            gc_sb_puts(b, "\n");
        }
        gc_sb_puts(b, x->gating ? "</failure>\n" : "</system-out>\n");
        gc_sb_puts(b, "    </testcase>\n");
    }
    for (size_t i = 0; i < r->frame_count; i++) {
        const gc_rep_frame *f = &r->frames[i];
        gc_sb_printf(b, "    <testcase classname=\"level%02d\" name=\"frame.", f->level);
        gc_sb_xml(b, f->view);
        gc_sb_printf(b, "\" time=\"%.6f\"", f->time_seconds);
        const char *s = f->status;
        if (strcmp(s, "match") == 0) {
            gc_sb_puts(b, "/>\n");
        } else if (gc_report_frame_failed(f)) {
            gc_sb_puts(b, ">\n      <failure type=\"frame\" message=\"");
            char msg[256];
            snprintf(msg, sizeof msg, "%s: sha256 %s, golden %s", s, f->sha256,
                     f->golden[0] ? f->golden : "(none)");
            gc_sb_xml(b, msg);
            gc_sb_puts(b, "\">");
            if (f->metrics_changed) {
                gc_sb_puts(b, "metrics changed: ");
                gc_sb_xml(b, f->metrics_changed);
                gc_sb_puts(b, "\n");
            }
            if (f->pixels_changed != UINT64_MAX && f->image_diff)
                gc_sb_printf(b, "pixels changed: %llu\n", (unsigned long long)f->pixels_changed);
            const char *names[3] = {"actual", "expected", "diff"};
            const char *paths[3] = {f->image_actual, f->image_expected, f->image_diff};
            for (int k = 0; k < 3; k++)
                if (paths[k]) {
                    gc_sb_printf(b, "%s image: ", names[k]);
                    gc_sb_xml(b, paths[k]);
                    gc_sb_puts(b, "\n");
                }
            gc_sb_puts(b, "</failure>\n    </testcase>\n");
        } else {
            gc_sb_puts(b, ">\n      <skipped message=\"");
            gc_sb_xml(b, s);
            gc_sb_puts(b, "\"/>\n    </testcase>\n");
        }
    }
    if (r->baseline_found) {
        for (size_t i = 0; i <= r->selected_count; i++) {
            int level = i < r->selected_count ? r->selected[i] : GC_LEVEL_CORPUS;
            if (level == GC_LEVEL_CORPUS && !gc_report_complete(r))
                break;
            gc_sb_puts(b, "    <testcase classname=\"");
            junit_classname(b, level);
            gc_sb_puts(b, "\" name=\"metrics.baseline\" time=\"0.000000\"");
            size_t n = 0;
            for (size_t c = 0; c < r->change_count; c++)
                n += r->changes[c].level == level;
            if (!n) {
                gc_sb_puts(b, "/>\n");
                continue;
            }
            gc_sb_printf(b,
                         ">\n      <failure type=\"metric\" message=\"%zu field%s changed against ",
                         n, n == 1 ? "" : "s");
            gc_sb_xml(b, r->baseline ? r->baseline : "the baseline");
            gc_sb_puts(b, "\">");
            for (size_t c = 0; c < r->change_count; c++) {
                if (r->changes[c].level != level)
                    continue;
                char line[1024];
                gc_report_format_change(&r->changes[c], line, sizeof line);
                gc_sb_xml(b, line);
                gc_sb_puts(b, "\n");
            }
            gc_sb_puts(b, "</failure>\n    </testcase>\n");
        }
    }
    gc_sb_puts(b, "  </testsuite>\n</testsuites>\n");
    return b->failed ? -1 : 0;
}

/* Markdown table cell text: pipes escaped, newlines as spaces. */
static void md_cell(gc_strbuf *b, const char *s)
{
    for (const char *p = s; p && *p; p++) {
        if (*p == '|')
            gc_sb_puts(b, "\\|");
        else if (*p == '\n')
            gc_sb_puts(b, " ");
        else
            gc_sb_put(b, p, 1);
    }
}

int gc_report_markdown(const gc_report *r, gc_strbuf *b)
{
    gc_sb_printf(b, "## gcverify sweep: %s\n\n", r->exit_code ? "**FAILED**" : "passed");
    gc_sb_printf(b, "Corpus: %s · tier: %s · levels: %zu · invariants: %zu\n\n", r->corpus_label,
                 r->tier, r->selected_count, r->invariant_count);
    gc_sb_puts(b, "| checks | failed results | gating | warnings | metric changes | field digest "
                  "changes | frame mismatches | passed | failed | skipped |\n");
    gc_sb_puts(b, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    gc_sb_printf(b, "| %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu |\n\n",
                 (unsigned long long)r->checks, (unsigned long long)r->failures,
                 (unsigned long long)r->gating_failures, (unsigned long long)r->warnings,
                 (unsigned long long)r->metrics_changed, (unsigned long long)r->digests_changed,
                 (unsigned long long)r->frames_mismatched, (unsigned long long)r->items_passed,
                 (unsigned long long)r->items_failed, (unsigned long long)r->items_skipped);
    {
        const gc_rep_coverage *cv = &r->coverage;
        gc_sb_printf(b,
                     "Coverage (`gcverify coverage`): of %llu decoded columns, %llu read by an "
                     "invariant, %llu by a metric only, %llu by the baseline's digest only, "
                     "**%llu by nothing**; %llu of the mission's kinds read by no invariant.\n\n",
                     (unsigned long long)cv->columns, (unsigned long long)cv->by_invariant,
                     (unsigned long long)cv->by_metric_only, (unsigned long long)cv->digest_only,
                     (unsigned long long)cv->unguarded, (unsigned long long)cv->mission_unread);
    }
    if (!gc_report_complete(r) && !r->shard[0])
        gc_sb_printf(b,
                     "Levels run: %zu of 27 (`--levels`): corpus-scope invariants are reported "
                     "over these levels but not gated, and corpus figures are not compared.\n\n",
                     r->selected_count);
    size_t shown = 0;
    for (size_t i = 0; i < r->result_count; i++) {
        const gc_rep_result *x = &r->results[i];
        if (x->failed == 0 || strcmp(x->severity, "info") == 0)
            continue;
        if (shown++ == 0)
            gc_sb_puts(b, "### Failed invariants\n\n| invariant | level | severity | failed / "
                          "checked | first failure | why |\n|---|---:|---|---:|---|---|\n");
        char lv[16];
        if (x->level == GC_LEVEL_CORPUS)
            snprintf(lv, sizeof lv, "corpus");
        else
            snprintf(lv, sizeof lv, "%d", x->level);
        gc_sb_printf(b, "| `%s` | %s | %s%s | %llu / %llu | ", x->invariant, lv, x->severity,
                     x->subset ? " (subset, not gated)" : "", (unsigned long long)x->failed,
                     (unsigned long long)x->checked);
        if (x->sample_count) {
            char line[1024];
            gc_report_format_sample(&x->samples[0], line, sizeof line);
            md_cell(b, line);
        }
        gc_sb_puts(b, " | ");
        md_cell(b, x->why);
        if (x->file)
            gc_sb_printf(b, " (`%s:%d`)", x->file, x->line);
        gc_sb_puts(b, " |\n");
    }
    if (shown)
        gc_sb_puts(b, "\n");
    if (r->change_count) {
        /* metrics first, then the decoded fields whose digest moved */
        for (int kind = 0; kind < 2; kind++) {
            size_t n = 0;
            for (size_t i = 0; i < r->change_count; i++) {
                if (r->changes[i].digest != kind)
                    continue;
                if (n++ == 0)
                    gc_sb_puts(b, kind ? "### Decoded fields changed against the baseline\n\n"
                                       : "### Metric changes against the baseline\n\n");
                char line[1024];
                gc_report_format_change(&r->changes[i], line, sizeof line);
                gc_sb_printf(b, "- %s\n", line);
            }
            if (n && kind == 0 && r->digests_changed)
                gc_sb_puts(b, "\n");
        }
        gc_sb_puts(b, "\nIf the change is intended: `gcverify bless --reason \"...\"`.\n\n");
    }
    size_t fm = 0;
    for (size_t i = 0; i < r->frame_count; i++) {
        const gc_rep_frame *f = &r->frames[i];
        if (strcmp(f->status, "match") == 0)
            continue;
        if (fm++ == 0)
            gc_sb_puts(b, "### Frames\n\n| level | view | status | pixels changed | images | "
                          "metrics changed |\n|---:|---|---|---:|---|---|\n");
        gc_sb_printf(b, "| %d | %s | %s | ", f->level, f->view, f->status);
        if (f->pixels_changed != UINT64_MAX && f->image_diff)
            gc_sb_printf(b, "%llu", (unsigned long long)f->pixels_changed);
        gc_sb_puts(b, " | ");
        const char *names[3] = {"actual", "expected", "diff"};
        const char *paths[3] = {f->image_actual, f->image_expected, f->image_diff};
        int any = 0;
        for (int k = 0; k < 3; k++)
            if (paths[k]) {
                gc_sb_printf(b, "%s%s: `", any++ ? ", " : "", names[k]);
                md_cell(b, paths[k]);
                gc_sb_puts(b, "`");
            }
        gc_sb_puts(b, " | ");
        md_cell(b, f->metrics_changed);
        gc_sb_puts(b, " |\n");
    }
    if (fm)
        gc_sb_puts(b, "\n");
    if (!shown && !r->change_count && !fm)
        gc_sb_puts(b, "Every gating invariant passed, every metric equals the baseline and every "
                      "frame matches its golden hash.\n");
    return b->failed ? -1 : 0;
}
