/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the corpus tables a sharded report carries (`gcverify merge`:
 * harness/sweep/sweep_tables.c): merge rebuilds the corpus-scope tables of every shard
 * from its report's `corpus_tables` and evaluates the corpus-scope invariants of
 * invariants/*.yaml over them. Also built as the replay test replay_tables over
 * tests/fuzz/corpus/tables/.
 *
 * Input: the `corpus_tables` object's JSON text. Beyond "no crash, no out-of-bounds
 * access, no undefined behaviour, no leak" (ASan, UBSan, LSan) it checks the contract: a
 * refused object says why; an accepted one is evaluated by the project's invariants (as
 * merge does) and echoed by the merge writer into JSON that parses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "gc_inv.h"
#include "gc_json.h"
#include "gc_report.h"
#include "gc_sweep_tables.h"
#include "gc_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The project's invariants, loaded once (every corpus-scope one selected). */
static gc_inv_set *invariants(int **selected)
{
    static gc_inv_set *set;
    static int *sel;
    if (!set) {
        size_t ndesc;
        const gc_table_desc *const *descs = gc_table_registry(&ndesc);
        static char err[65536];
        set = gc_inv_load_dir(GC_SOURCE_DIR "/invariants", descs, ndesc, err, sizeof err);
        fuzz_check(set != NULL);
        sel = calloc(gc_inv_count(set) + 1, sizeof *sel);
        fuzz_check(sel != NULL);
        for (size_t k = 0; k < gc_inv_count(set); k++)
            sel[k] = 1;
    }
    *selected = sel;
    return set;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1u << 16)
        return 0;
    char *text = fuzz_text(data, size);
    char err[512] = "";
    gc_json *j = gc_json_parse(text, err, sizeof err);
    if (!j || j->type != GC_JSON_OBJ) {
        gc_json_free(j);
        free(text);
        return 0;
    }
    size_t ndesc;
    const gc_table_desc *const *descs = gc_table_registry(&ndesc);
    gc_loaded_tables lt;
    const gc_json *objs[1] = {j};
    if (gc_sweep_tables_load(objs, 1, descs, ndesc, &lt, err, sizeof err) != 0) {
        fuzz_check(err[0] != '\0' && memchr(err, '\0', sizeof err) != NULL);
    } else {
        int *selected;
        gc_inv_set *set = invariants(&selected);
        gc_report rep;
        gc_report_init(&rep);
        gc_sweep_eval_corpus(set, selected, (const gc_table *const *)lt.tables, lt.ids, lt.nlevels,
                             5, &rep);
        gc_report_free(&rep);
        gc_loaded_tables_free(&lt);
        const char *srcs[1] = {text};
        char *echo = gc_sweep_tables_merge_json(objs, srcs, 1);
        fuzz_check(echo != NULL);
        gc_json *back = gc_json_parse(echo, err, sizeof err);
        fuzz_check(back != NULL);
        gc_json_free(back);
        free(echo);
    }
    gc_json_free(j);
    free(text);
    return 0;
}
