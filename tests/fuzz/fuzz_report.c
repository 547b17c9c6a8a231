/* SPDX-License-Identifier: MIT */
/* libFuzzer target for reading a JSON report (harness/report/json.c,
 * report_read.c): `gcverify diff` and `gcverify merge` read reports a user
 * hands them. Also built as the replay test replay_report over
 * tests/fuzz/corpus/report/.
 *
 * Input: the report's text. Beyond "no crash, no out-of-bounds access, no
 * undefined behaviour, no leak" (ASan, UBSan, LSan) it checks what merge
 * relies on: the byte range json.c finds for every value after jansson has
 * parsed the text (merge copies corpus_tables entries byte for byte) lies
 * inside the text, brackets an object or array, and holds, for a scalar, a
 * text that parses on its own to the same value. A refused text says why; an
 * accepted one writes a JSON report that reads back and writes the same bytes
 * again, and a JUnit and a Markdown report, and `gcverify diff` compares it with a
 * committed report and with itself. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "gc_json.h"
#include "gc_report.h"
#include "gc_strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_value(const gc_json *a, const gc_json *b)
{
    fuzz_check(a->type == b->type);
    if (a->type == GC_JSON_BOOL)
        fuzz_check(a->boolean == b->boolean);
    if (a->type == GC_JSON_NUM)
        fuzz_check(memcmp(&a->num, &b->num, sizeof a->num) == 0);
    if (a->type == GC_JSON_STR)
        fuzz_check(strcmp(a->str, b->str) == 0);
}

static void check_ranges(const char *s, size_t n, const gc_json *j)
{
    fuzz_check(j->src_start < j->src_end && j->src_end <= n);
    if (j->type == GC_JSON_OBJ || j->type == GC_JSON_ARR) {
        fuzz_check(s[j->src_start] == (j->type == GC_JSON_OBJ ? '{' : '['));
        fuzz_check(s[j->src_end - 1] == (j->type == GC_JSON_OBJ ? '}' : ']'));
        for (size_t i = 0; i < j->count; i++) {
            fuzz_check(j->items[i]->src_start > j->src_start && j->items[i]->src_end < j->src_end);
            fuzz_check(i == 0 || j->items[i]->src_start >= j->items[i - 1]->src_end);
            check_ranges(s, n, j->items[i]);
        }
        return;
    }
    size_t len = j->src_end - j->src_start;
    char *alone = malloc(len + 1);
    fuzz_check(alone != NULL);
    memcpy(alone, s + j->src_start, len);
    alone[len] = '\0';
    char err[256] = "";
    gc_json *again = gc_json_parse(alone, err, sizeof err);
    fuzz_check(again != NULL);
    same_value(j, again);
    gc_json_free(again);
    free(alone);
}

int gc_cmd_diff(int argc, char **argv);

/* `gcverify diff` (harness/cli/cmd_diff.c) of a committed sweep report against the report
 * written from the input, both ways, and of that report against itself, in every format:
 * exit 0 or 1 (differences), never a usage error on two valid reports. */
static void diff_against_seed(const char *report)
{
    fflush(stdout); /* diff's output to /dev/null, the replay driver's back after it */
    const int saved = dup(STDOUT_FILENO), nul = open("/dev/null", O_WRONLY);
    fuzz_check(saved >= 0 && nul >= 0 && dup2(nul, STDOUT_FILENO) >= 0);
    close(nul);
    const char *path = fuzz_scratch_path("report", "json");
    fuzz_write(path, report, strlen(report));
    static char seed[] = GC_SOURCE_DIR "/tests/fuzz/corpus/report/sweep-small-level0-data.json";
    char *pairs[3][2] = {{seed, (char *)path}, {(char *)path, seed}, {(char *)path, (char *)path}};
    static char *formats[] = {"text", "json", "markdown"};
    for (int p = 0; p < 3; p++)
        for (int f = 0; f < 3; f++) {
            char *argv[] = {"diff", pairs[p][0], pairs[p][1], "--format", formats[f], NULL};
            const int rc = gc_cmd_diff(5, argv);
            fuzz_check(rc == 0 || rc == 1);
            fuzz_check(p != 2 || rc == 0); /* a report does not differ from itself */
        }
    fflush(stdout);
    fuzz_check(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1u << 16)
        return 0;
    char *text = fuzz_text(data, size);

    char err[512] = "";
    gc_json *j = gc_json_parse(text, err, sizeof err);
    if (j) {
        check_ranges(text, strlen(text), j);
        gc_json_free(j);
    } else {
        fuzz_check(err[0] != '\0' && memchr(err, '\0', sizeof err) != NULL);
    }

    gc_report r;
    char rerr[512] = "";
    if (gc_report_from_json(&r, text, rerr, sizeof rerr) != 0) {
        fuzz_check(rerr[0] != '\0' && memchr(rerr, '\0', sizeof rerr) != NULL);
    } else {
        /* what was read writes a report that reads back to itself (the writers' round
         * trip, as test_sweep checks on real reports), and the other writers run */
        gc_strbuf a, b, x;
        gc_sb_init(&a);
        gc_sb_init(&b);
        gc_sb_init(&x);
        fuzz_check(gc_report_json(&r, &a) == 0);
        gc_report back;
        fuzz_check(gc_report_from_json(&back, a.s, rerr, sizeof rerr) == 0);
        fuzz_check(gc_report_json(&back, &b) == 0);
        fuzz_check(strcmp(a.s, b.s) == 0);
        fuzz_check(gc_report_junit(&back, &x) == 0);
        fuzz_check(gc_report_markdown(&back, &x) == 0);
        gc_report_free(&back);
        diff_against_seed(a.s);
        gc_sb_free(&a);
        gc_sb_free(&b);
        gc_sb_free(&x);
    }
    gc_report_free(&r);
    free(text);
    return 0;
}
