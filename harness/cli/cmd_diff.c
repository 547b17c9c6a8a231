/* SPDX-License-Identifier: MIT */
/* gcverify diff OLD.json NEW.json: per-field changes between two reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_fsutil.h"
#include "gc_report.h"

int gc_cmd_diff(int argc, char **argv);

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

int gc_cmd_diff(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: gcverify diff OLD.json NEW.json\n\n"
               "Reports every metric (including each invariant's checked and failed counts)\n"
               "and every frame hash that differs between two sweep reports, field by field.\n"
               "Exit 0 if nothing changed, 1 if something did, 2 on bad input.\n");
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: gcverify diff OLD.json NEW.json\n");
        return 2;
    }
    gc_report a, b;
    if (load(argv[1], &a) != 0)
        return 2;
    if (load(argv[2], &b) != 0) {
        gc_report_free(&a);
        return 2;
    }
    if (strcmp(a.corpus_key, b.corpus_key) != 0)
        printf("note: the reports are of different corpora (%s, %s)\n", a.corpus_key, b.corpus_key);
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
    gc_report_summarise(&b);
    size_t changed = 0;
    for (size_t i = 0; i < b.change_count; i++) {
        char line[256];
        gc_report_format_change(&b.changes[i], line, sizeof line);
        printf("%s\n", line);
        changed++;
    }
    for (size_t i = 0; i < b.frame_count; i++) {
        const gc_rep_frame *nf = &b.frames[i];
        const gc_rep_frame *of = NULL;
        for (size_t k = 0; k < a.frame_count; k++)
            if (a.frames[k].level == nf->level && strcmp(a.frames[k].view, nf->view) == 0)
                of = &a.frames[k];
        if (!of) {
            printf("level %d, frame %s: new (%.16s…)\n", nf->level, nf->view, nf->sha256);
            changed++;
        } else if (strcmp(of->sha256, nf->sha256) != 0) {
            printf("level %d, frame %s: %.16s… -> %.16s…\n", nf->level, nf->view, of->sha256,
                   nf->sha256);
            changed++;
        }
    }
    printf("diff: %zu changed\n", changed);
    gc_report_free(&a);
    gc_report_free(&b);
    return changed ? 1 : 0;
}
