/* SPDX-License-Identifier: MIT */
/* Invariant engine loading: the YAML structure, defaults and ordering, and every load-time
 * diagnostic with its exact FILE:LINE:COL (plain, quoted and multi-line scalars), the
 * misspelling suggestions, and that all errors are reported rather than the first. */
#include "gc_inv.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct patch_row {
    uint64_t file_ofs;
    uint32_t vert_count;
    uint32_t positions_decoded;
    uint8_t walk_ok;
    float radius;
    char name[8];
} patch_row;

static const gc_column patch_cols[] = {
    GC_COL(patch_row, file_ofs, GC_T_U64, 0, "bytes", "offset"),
    GC_COL(patch_row, vert_count, GC_T_U32, 0, "count", "declared"),
    GC_COL(patch_row, positions_decoded, GC_T_U32, 0, "count", "found"),
    GC_COL(patch_row, walk_ok, GC_T_BOOL, 0, "", "walk ok"),
    GC_COL(patch_row, radius, GC_T_F32, 0, "world units", "radius"),
    GC_COL(patch_row, name, GC_T_STR, 0, "", "name"),
};
static const gc_table_desc patch_desc = {
    "tfrag.patch", "patches", sizeof(patch_row), patch_cols, GC_COUNTOF(patch_cols), NULL,
    NULL,          NULL};

typedef struct vertex_row {
    uint64_t file_ofs;
    uint32_t patch_row;
    float x;
} vertex_row;

static const gc_column vertex_cols[] = {
    GC_COL(vertex_row, file_ofs, GC_T_U64, 0, "bytes", "offset"),
    GC_COL(vertex_row, patch_row, GC_T_U32, GC_CF_NULL_IF_MAX, "row", "parent"),
    GC_COL(vertex_row, x, GC_T_F32, 0, "world units", "x"),
};
static const gc_table_desc vertex_desc = {
    "tfrag.vertex", "vertices", sizeof(vertex_row), vertex_cols, GC_COUNTOF(vertex_cols),
    "tfrag.patch",  "patch",    "patch_row"};

static const gc_table_desc *const descs[] = {&patch_desc, &vertex_desc};
#define NDESC GC_COUNTOF(descs)

static char err[8192];

/* Load must fail; returns the diagnostics. */
static const char *errors_of(const char *yaml)
{
    gc_inv_set *s = gc_inv_load_string("t.yaml", yaml, descs, NDESC, err, sizeof err);
    cr_assert(s == NULL, "load should have failed:\n%s", yaml);
    return err;
}

/* One invariant on tfrag.patch with this expect, line 4. */
static const char *expect_errors(const char *table, const char *expect)
{
    static char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "invariants:\n  - id: a.b\n    table: %s\n    expect: %s\n    why: w\n", table,
             expect);
    return errors_of(yaml);
}

static void one_error(const char *table, const char *expect, const char *want)
{
    const char *e = expect_errors(table, expect);
    cr_expect_str_eq(e, want, "for expect: %s", expect);
}

Test(inv_parse, loads_fields_defaults_and_sorts_by_id)
{
    const char *yaml = "invariants:\n"
                       "  - id: tfrag.vert_count\n"
                       "    table: tfrag.patch\n"
                       "    where: walk_ok\n"
                       "    expect: positions_decoded == vert_count\n"
                       "    why: A VIF walk that desynchronises.\n"
                       "    severity: warn\n"
                       "    tier: nightly\n"
                       "    scope: corpus\n"
                       "  - id: a.first\n"
                       "    expect: count(tfrag.patch) > 0\n"
                       "    why: w\n"
                       "metrics:\n"
                       "  - tfrag.positions: sum(tfrag.patch.positions_decoded)\n"
                       "  - name: tfrag.patches\n"
                       "    expr: count(tfrag.patch)\n"
                       "    why: retail figure\n";
    gc_inv_set *s = gc_inv_load_string("t.yaml", yaml, descs, NDESC, err, sizeof err);
    cr_assert(s != NULL, "%s", err);
    cr_assert_eq(gc_inv_count(s), 2);
    const gc_inv_info *a = gc_inv_get(s, 0), *b = gc_inv_get(s, 1);
    cr_assert_str_eq(a->id, "a.first");
    cr_assert_null(a->table);
    cr_assert_null(a->where);
    cr_assert_str_eq(a->expect, "count(tfrag.patch) > 0");
    cr_assert_eq(a->severity, GC_SEV_ERROR);
    cr_assert_eq(a->tier, GC_TIER_GATE);
    cr_assert_eq(a->scope, GC_SCOPE_LEVEL);
    cr_assert_eq(a->line, 10);
    cr_assert_str_eq(a->file, "t.yaml");
    cr_assert_str_eq(b->id, "tfrag.vert_count");
    cr_assert_str_eq(b->table, "tfrag.patch");
    cr_assert_str_eq(b->where, "walk_ok");
    cr_assert_str_eq(b->expect, "positions_decoded == vert_count");
    cr_assert_str_eq(b->why, "A VIF walk that desynchronises.");
    cr_assert_eq(b->severity, GC_SEV_WARN);
    cr_assert_eq(b->tier, GC_TIER_NIGHTLY);
    cr_assert_eq(b->scope, GC_SCOPE_CORPUS);
    cr_assert_eq(b->line, 2);
    cr_assert_null(gc_inv_get(s, 2));
    cr_assert_eq(gc_inv_find(s, "tfrag.vert_count"), 1);
    cr_assert_eq(gc_inv_find(s, "nope"), (size_t)-1);
    cr_assert_eq(gc_inv_metric_count(s), 2);
    cr_assert_str_eq(gc_inv_metric_name(s, 0), "tfrag.patches");
    cr_assert_str_eq(gc_inv_metric_name(s, 1), "tfrag.positions");
    cr_assert_str_eq(gc_inv_metric_expr(s, 1), "sum(tfrag.patch.positions_decoded)");
    cr_assert_str_eq(gc_inv_metric_why(s, 0), "retail figure");
    cr_assert_str_eq(gc_inv_metric_why(s, 1), "");
    gc_inv_free(s);
}

Test(inv_parse, empty_file_top_level_sequence_and_block_scalars)
{
    gc_inv_set *s = gc_inv_load_string("e.yaml", "# nothing here\n", descs, NDESC, err, sizeof err);
    cr_assert(s != NULL, "%s", err);
    cr_assert_eq(gc_inv_count(s), 0);
    cr_assert_eq(gc_inv_metric_count(s), 0);
    gc_inv_free(s);
    s = gc_inv_load_string("e.yaml", "invariants:\nmetrics:\n", descs, NDESC, err, sizeof err);
    cr_assert(s != NULL, "%s", err);
    gc_inv_free(s);
    s = gc_inv_load_string("seq.yaml",
                           "- id: x.y\n  table: tfrag.patch\n  expect: >-\n    vert_count\n"
                           "    >= 0\n  why: |\n    folded\n",
                           descs, NDESC, err, sizeof err);
    cr_assert(s != NULL, "%s", err);
    cr_assert_eq(gc_inv_count(s), 1);
    cr_assert_str_eq(gc_inv_get(s, 0)->expect, "vert_count >= 0");
    cr_assert_str_eq(gc_inv_get(s, 0)->why, "folded\n");
    gc_inv_free(s);
}

Test(inv_parse, unknown_column_in_a_plain_scalar)
{
    one_error("tfrag.patch", "positions_decoded == vert_cout",
              "t.yaml:4:34: unknown column 'vert_cout' in tfrag.patch; did you mean "
              "'vert_count'?\n");
}

Test(inv_parse, unknown_column_in_quoted_scalars)
{
    one_error("tfrag.patch", "\"walk_ok and vert_cout > 0\"",
              "t.yaml:4:26: unknown column 'vert_cout' in tfrag.patch; did you mean "
              "'vert_count'?\n");
    one_error("tfrag.patch", "'name == \"x\" and vert_cout > 0'",
              "t.yaml:4:30: unknown column 'vert_cout' in tfrag.patch; did you mean "
              "'vert_count'?\n");
}

Test(inv_parse, unknown_column_on_the_second_line_of_a_plain_scalar)
{
    const char *e = errors_of("invariants:\n"
                              "  - id: a.b\n"
                              "    table: tfrag.patch\n"
                              "    expect: positions_decoded == vert_count and\n"
                              "      walk_ok and vert_cout > 0\n"
                              "    why: w\n");
    cr_assert_str_eq(e, "t.yaml:5:19: unknown column 'vert_cout' in tfrag.patch; did you mean "
                        "'vert_count'?\n");
}

Test(inv_parse, no_suggestion_beyond_edit_distance_two)
{
    one_error("tfrag.patch", "zzzzzz > 0", "t.yaml:4:13: unknown column 'zzzzzz' in tfrag.patch\n");
    one_error("tfrag.patch", "vert_cnt > 0",
              "t.yaml:4:13: unknown column 'vert_cnt' in tfrag.patch; did you mean "
              "'vert_count'?\n");
}

Test(inv_parse, unknown_table_link_and_function)
{
    one_error("tfrag.pach", "true",
              "t.yaml:3:12: unknown table 'tfrag.pach'; did you mean 'tfrag.patch'?\n");
    one_error("tfrag.patch", "count(tfrag.pach) > 0",
              "t.yaml:4:19: unknown table 'tfrag.pach'; did you mean 'tfrag.patch'?\n");
    one_error("tfrag.patch", "sum(tfrag.patch.vert_cout) > 0",
              "t.yaml:4:29: unknown column 'vert_cout' in tfrag.patch; did you mean "
              "'vert_count'?\n");
    one_error("tfrag.vertex", "patc.radius > 0",
              "t.yaml:4:13: unknown link 'patc' in tfrag.vertex; did you mean 'patch'?\n");
    one_error("tfrag.vertex", "parent.radius > 0",
              "t.yaml:4:13: unknown link 'parent' in tfrag.vertex (its parent link is 'patch')\n");
    one_error("tfrag.patch", "patch.radius > 0",
              "t.yaml:4:13: unknown link 'patch' in tfrag.patch (tfrag.patch has no parent "
              "link)\n");
    one_error("tfrag.patch", "nxt.vert_count > 0",
              "t.yaml:4:13: unknown link 'nxt' in tfrag.patch; did you mean 'next'?\n");
    one_error("tfrag.vertex", "patch.radios > 0",
              "t.yaml:4:19: unknown column 'radios' in tfrag.patch; did you mean 'radius'?\n");
    one_error("tfrag.patch", "cout(tfrag.patch) > 0",
              "t.yaml:4:13: unknown function 'cout'; did you mean 'count'?\n");
    one_error("tfrag.patch", "tfrag.patch.vert_count > 0",
              "t.yaml:4:13: table 'tfrag.patch' can only be used as the first argument of an "
              "aggregate\n");
    one_error("tfrag.patch", "vert_count.x > 0",
              "t.yaml:4:24: 'vert_count' is a column of tfrag.patch; nothing can follow it\n");
}

Test(inv_parse, unknown_keys_and_bad_enumerations)
{
    const char *e = errors_of("invariants:\n"
                              "  - id: a.b\n"
                              "    expect: true\n"
                              "    why: w\n"
                              "    severty: warn\n"
                              "  - id: a.c\n"
                              "    expect: true\n"
                              "    why: w\n"
                              "    severity: fatal\n"
                              "    tier: weekly\n"
                              "    scope: corpse\n"
                              "invariant:\n"
                              "  - id: a.d\n");
    cr_assert_str_eq(e, "t.yaml:5:5: unknown key 'severty' in invariant; did you mean 'severity'?\n"
                        "t.yaml:9:15: bad severity 'fatal': expected error, warn or info\n"
                        "t.yaml:10:11: bad tier 'weekly': expected gate or nightly\n"
                        "t.yaml:11:12: bad scope 'corpse': expected level or corpus; did you mean "
                        "'corpus'?\n"
                        "t.yaml:12:1: unknown key 'invariant' in the top level; did you mean "
                        "'invariants'?\n");
}

Test(inv_parse, missing_fields_bad_ids_and_duplicate_keys)
{
    const char *e = errors_of("invariants:\n"
                              "  - expect: true\n"
                              "    why: w\n"
                              "  - id: x.y\n"
                              "    why: w\n"
                              "  - id: x.z\n"
                              "    expect: true\n"
                              "  - id: Tfrag.X\n"
                              "    expect: true\n"
                              "    why: w\n"
                              "  - id: x.w\n"
                              "    expect: true\n"
                              "    expect: false\n"
                              "    why: w\n"
                              "  - just a string\n");
    cr_assert_str_eq(e, "t.yaml:2:5: invariant without 'id'\n"
                        "t.yaml:4:5: invariant 'x.y' has no 'expect'\n"
                        "t.yaml:6:5: invariant 'x.z' has no 'why' (one sentence: the bug it "
                        "catches)\n"
                        "t.yaml:8:9: bad id 'Tfrag.X': use lower-case letters, digits, '_' and "
                        "'.'\n"
                        "t.yaml:13:5: duplicate key 'expect' in invariant (first at line 12)\n"
                        "t.yaml:15:5: an invariant must be a mapping (id:, expect:, why:, ...)\n");
}

Test(inv_parse, duplicate_ids_across_files)
{
    const char *names[] = {"a.yaml", "b.yaml"};
    const char *texts[] = {"invariants:\n  - id: dup.x\n    expect: true\n    why: w\n"
                           "metrics:\n  - m.one: count(tfrag.patch)\n",
                           "metrics:\n  - m.one: count(tfrag.vertex)\n"
                           "invariants:\n  - id: dup.x\n    expect: true\n    why: w\n"};
    gc_inv_set *s = gc_inv_load_strings(names, texts, 2, descs, NDESC, err, sizeof err);
    cr_assert_null(s);
    cr_assert_str_eq(err, "b.yaml:2:5: duplicate metric 'm.one' (first at a.yaml:6:5)\n"
                          "b.yaml:4:9: duplicate id 'dup.x' (first at a.yaml:2:9)\n");
}

Test(inv_parse, rows_used_where_there_are_none)
{
    const char *e = errors_of("invariants:\n"
                              "  - id: a.b\n"
                              "    expect: prev.offset > 0\n"
                              "    why: w\n"
                              "  - id: a.c\n"
                              "    expect: vert_count > 0\n"
                              "    why: w\n"
                              "  - id: a.d\n"
                              "    table: tfrag.patch\n"
                              "    expect: outer.vert_count > 0\n"
                              "    why: w\n"
                              "  - id: a.e\n"
                              "    expect: count(tfrag.patch, vert_count == outer.vert_count) > 0\n"
                              "    why: w\n"
                              "metrics:\n"
                              "  - m.x: vert_count\n");
    cr_assert_str_eq(
        e, "t.yaml:3:13: 'prev' used where there is no row (the invariant has no table)\n"
           "t.yaml:6:13: 'vert_count' used where there is no row (the invariant has no table); "
           "aggregate it, e.g. sum(T.vert_count)\n"
           "t.yaml:10:13: 'outer' is only valid inside an aggregate's arguments\n"
           "t.yaml:13:46: 'outer' used but the invariant has no row (no table)\n"
           "t.yaml:16:10: 'vert_count' used where there is no row (metrics have no row); "
           "aggregate it, e.g. sum(T.vert_count)\n");
}

Test(inv_parse, type_errors)
{
    one_error("tfrag.patch", "name == 1", "t.yaml:4:18: cannot compare a string with a number\n");
    one_error("tfrag.patch", "name + 1 > 0", "t.yaml:4:18: '+' needs numbers, not a string\n");
    one_error("tfrag.patch", "name < \"a\"",
              "t.yaml:4:18: strings can only be compared with == and !=\n");
    one_error("tfrag.patch", "sum(tfrag.patch.name) > 0",
              "t.yaml:4:29: sum() of a string column 'name'\n");
    one_error("tfrag.patch", "radius & 1", "t.yaml:4:20: '&' needs integer operands\n");
    one_error("tfrag.patch", "name", "t.yaml:4:13: a string is not a condition\n");
    one_error("tfrag.patch", "abs(name) > 0", "t.yaml:4:17: abs() needs a number, not a string\n");
    one_error("tfrag.patch", "coalesce(name, 1) == 1",
              "t.yaml:4:13: coalesce() mixes strings and numbers\n");
}

Test(inv_parse, wrong_arity)
{
    one_error("tfrag.patch", "distance(1, 2, 3, 4, 5) > 0",
              "t.yaml:4:13: distance() takes 6 arguments, got 5\n");
    one_error("tfrag.patch", "all(tfrag.patch)", "t.yaml:4:13: all() takes 2 arguments, got 1\n");
    one_error("tfrag.patch", "min() > 0",
              "t.yaml:4:13: min() needs a column T.col (aggregate) or two or more values\n");
    one_error("tfrag.patch", "between(1, 2) > 0",
              "t.yaml:4:13: between() takes 3 arguments, got 2\n");
    one_error("tfrag.patch", "count(tfrag.patch, true, 3) > 0",
              "t.yaml:4:13: count() takes 1 to 2 arguments, got 3\n");
    one_error("tfrag.patch", "sum(tfrag.patch) > 0",
              "t.yaml:4:17: sum() needs a column: sum(tfrag.patch.<column>)\n");
    one_error("tfrag.patch", "any(tfrag.patch.walk_ok, true)",
              "t.yaml:4:29: any() takes a table, not a column: any(tfrag.patch, cond)\n");
}

Test(inv_parse, aggregates_nest_at_most_three_deep)
{
    gc_inv_set *s = gc_inv_load_string("t.yaml",
                                       "invariants:\n  - id: a.b\n    table: tfrag.patch\n"
                                       "    expect: count(tfrag.patch, count(tfrag.vertex, "
                                       "count(tfrag.patch, true) > 0) > 0) > 0\n"
                                       "    why: w\n",
                                       descs, NDESC, err, sizeof err);
    cr_assert(s != NULL, "%s", err);
    gc_inv_free(s);
    one_error("tfrag.patch",
              "count(tfrag.patch, count(tfrag.patch, count(tfrag.patch, count(tfrag.patch) > 0) > "
              "0) > 0) > 0",
              "t.yaml:4:70: aggregates nested too deeply (at most 3 levels)\n");
}

Test(inv_parse, expression_syntax_errors)
{
    one_error("tfrag.patch",
              "vert_count ==", "t.yaml:4:26: expected a value, found end of expression\n");
    one_error("tfrag.patch", "vert_count = 1",
              "t.yaml:4:24: '=' is not an operator; did you mean '=='?\n");
    one_error("tfrag.patch", "1 < 2 < 3",
              "t.yaml:4:19: comparisons cannot be chained; write 'a < b and b < c'\n");
    one_error("tfrag.patch", "(1 + 2", "t.yaml:4:19: expected ')', found end of expression\n");
    one_error("tfrag.patch", "walk_ok && walk_ok",
              "t.yaml:4:21: '&&' is not an operator; use 'and'\n");
    one_error("tfrag.patch", "walk_ok walk_ok",
              "t.yaml:4:21: expected an operator, found a name\n");
    one_error("tfrag.patch", "0x > 1", "t.yaml:4:13: malformed hex literal\n");
    one_error("tfrag.patch", "99999999999999999999 > 1",
              "t.yaml:4:13: integer literal does not fit in 64 bits\n");
    one_error("tfrag.patch", "vert_count == \"abc", "t.yaml:4:27: unterminated string\n");
    one_error("tfrag.patch", "vert_count > 0 ; 1", "t.yaml:4:28: unexpected character ';'\n");
    one_error("tfrag.patch", "''", "t.yaml:4:14: empty expression\n");
}

Test(inv_parse, yaml_syntax_error_with_position)
{
    const char *e = errors_of("invariants:\n"
                              "  - id: a.b\n"
                              "    expect: a: b\n"
                              "    why: w\n");
    cr_assert_str_eq(e, "t.yaml:3:14: YAML syntax error: mapping values are not allowed in this "
                        "context\n");
    e = errors_of("invariants:\n  - id: a.b\n    expect: [1, 2\n    why: w\n");
    cr_assert(strncmp(e, "t.yaml:4:", 9) == 0, "%s", e);
    cr_assert(strstr(e, "YAML syntax error: while parsing a flow sequence") != NULL, "%s", e);
    e = errors_of("invariants: 3\n");
    cr_assert_str_eq(e, "t.yaml:1:13: 'invariants' must be a sequence of invariants (each item "
                        "starting with '- ')\n");
    e = errors_of("---\ninvariants:\n---\nmetrics:\n");
    cr_assert_str_eq(e, "t.yaml:4:1: only one YAML document per file (found a second one)\n");
}

Test(inv_parse, every_error_is_reported_in_file_order)
{
    const char *e = errors_of("invariants:\n"
                              "  - id: a.b\n"
                              "    table: tfrag.patch\n"
                              "    where: walk_ko\n"
                              "    expect: vert_cout > radios\n"
                              "    why: w\n"
                              "  - id: a.c\n"
                              "    table: nope.table\n"
                              "    expect: anything_at_all\n"
                              "    why: w\n"
                              "metrics:\n"
                              "  - m.bad: sum(tfrag.patch.nam)\n");
    cr_assert_str_eq(e,
                     "t.yaml:4:12: unknown column 'walk_ko' in tfrag.patch; did you mean "
                     "'walk_ok'?\n"
                     "t.yaml:5:13: unknown column 'vert_cout' in tfrag.patch; did you mean "
                     "'vert_count'?\n"
                     "t.yaml:5:25: unknown column 'radios' in tfrag.patch; did you mean "
                     "'radius'?\n"
                     "t.yaml:8:12: unknown table 'nope.table'\n"
                     "t.yaml:12:28: unknown column 'nam' in tfrag.patch; did you mean 'name'?\n");
}

Test(inv_parse, metric_forms)
{
    const char *e = errors_of("metrics:\n"
                              "  - a: count(tfrag.patch)\n"
                              "    b: count(tfrag.patch)\n"
                              "  - name: m.x\n"
                              "    why: no expression\n"
                              "  - name: m.y\n"
                              "    expr: count(tfrag.patch)\n"
                              "    extra: 1\n"
                              "  - m.s: max(tfrag.patch.name)\n");
    cr_assert_str_eq(e, "t.yaml:2:5: a metric is 'name: expression' (one key) or a mapping with "
                        "name: and expr:\n"
                        "t.yaml:4:5: metric without 'expr'\n"
                        "t.yaml:8:5: unknown key 'extra' in metric; did you mean 'expr'?\n"
                        "t.yaml:9:26: max() of a string column 'name'\n");
}

Test(inv_parse, error_buffer_holds_whole_lines_only)
{
    const char *one = "invariants:\n  - id: a.b\n    expect: nope\n    why: w\n";
    const char *line = "t.yaml:3:13: 'nope' used where there is no row (the invariant has no "
                       "table); aggregate it, e.g. sum(T.nope)\n";
    char small[24];
    memset(small, 'x', sizeof small);
    cr_assert_null(gc_inv_load_string("t.yaml", one, descs, NDESC, small, sizeof small));
    cr_assert_str_eq(small, ""); /* not even the note fits */
    char mid[40];
    cr_assert_null(gc_inv_load_string("t.yaml", one, descs, NDESC, mid, sizeof mid));
    cr_assert_str_eq(mid, "(1 more errors not shown)\n");
    char exact[160];
    cr_assert_null(gc_inv_load_string("t.yaml", one, descs, NDESC, exact, strlen(line) + 1));
    cr_assert_str_eq(exact, line);
    const char *two = "invariants:\n  - id: a.b\n    expect: nope\n    why: w\n"
                      "  - id: a.c\n    expect: nope\n    why: w\n";
    char buf[200];
    cr_assert_null(gc_inv_load_string("t.yaml", two, descs, NDESC, buf, sizeof buf));
    char want[256];
    snprintf(want, sizeof want, "%s(1 more errors not shown)\n", line);
    cr_assert_str_eq(buf, want);
    cr_assert_null(
        gc_inv_load_string("t.yaml", "invariants:\n  - id: a.b\n", descs, NDESC, NULL, 0));
}

Test(inv_parse, load_dir_reads_sorted_yaml_files_only)
{
    char dir[] = "/tmp/gc_inv_dirXXXXXX";
    cr_assert(mkdtemp(dir) != NULL);
    char path[512];
    const char *files[][2] = {
        {"b.yaml", "invariants:\n  - id: b.one\n    expect: true\n    why: w\n"},
        {"a.yaml", "invariants:\n  - id: z.last\n    expect: true\n    why: w\n"},
        {"notes.txt", "this is not yaml: [\n"},
    };
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        FILE *f = fopen(path, "w");
        cr_assert(f != NULL);
        fputs(files[i][1], f);
        fclose(f);
    }
    gc_inv_set *s = gc_inv_load_dir(dir, descs, NDESC, err, sizeof err);
    cr_assert(s != NULL, "%s", err);
    cr_assert_eq(gc_inv_count(s), 2);
    cr_assert_str_eq(gc_inv_get(s, 0)->id, "b.one");
    snprintf(path, sizeof path, "%s/b.yaml", dir);
    cr_assert_str_eq(gc_inv_get(s, 0)->file, path);
    gc_inv_free(s);
    /* an error in the second file (in name order) names that file */
    snprintf(path, sizeof path, "%s/c.yaml", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f != NULL);
    fputs("invariants:\n  - id: b.one\n    expect: true\n    why: w\n", f);
    fclose(f);
    s = gc_inv_load_dir(dir, descs, NDESC, err, sizeof err);
    cr_assert_null(s);
    char want[1024];
    snprintf(want, sizeof want, "%s/c.yaml:2:9: duplicate id 'b.one' (first at %s/b.yaml:2:9)\n",
             dir, dir);
    cr_assert_str_eq(err, want);
    const char *names[] = {"a.yaml", "b.yaml", "c.yaml", "notes.txt"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    s = gc_inv_load_dir("/nonexistent/gc_inv", descs, NDESC, err, sizeof err);
    cr_assert_null(s);
    cr_assert(strncmp(err, "/nonexistent/gc_inv:1:1: cannot open the invariants directory", 60) ==
                  0,
              "%s", err);
}

/* docs/invariants.md must stay true: every ```yaml block in it loads against the real
 * table registry. */
Test(inv_parse, docs_examples_load)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/../docs/invariants.md", GC_TEST_DATA_DIR);
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL, "cannot open %s", path);
    static char doc[1 << 17];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    size_t nreg = 0;
    const gc_table_desc *const *reg = gc_table_registry(&nreg);
    int blocks = 0;
    const char *p = doc;
    while ((p = strstr(p, "```yaml\n")) != NULL) {
        p += 8;
        const char *end = strstr(p, "```");
        cr_assert(end != NULL);
        static char yaml[1 << 16];
        size_t len = (size_t)(end - p);
        cr_assert(len < sizeof yaml);
        memcpy(yaml, p, len);
        yaml[len] = '\0';
        static char errs[1 << 14];
        gc_inv_set *s =
            gc_inv_load_string("docs/invariants.md", yaml, reg, nreg, errs, sizeof errs);
        cr_assert(s != NULL, "example block %d does not load:\n%s", blocks + 1, errs);
        cr_assert(gc_inv_count(s) + gc_inv_metric_count(s) > 0);
        gc_inv_free(s);
        blocks++;
        p = end + 3;
    }
    cr_assert_geq(blocks, 2);
}
