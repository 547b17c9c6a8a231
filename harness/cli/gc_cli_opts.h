/* SPDX-License-Identifier: MIT */
/* One option parser for every command (issue 14), on getopt_long.
 *
 * A command declares its options as data, in groups (gc_opt_group), the way the
 * decoders declare their columns: long name, key, value placeholder, help. The
 * same tables drive the parser and the options part of `--help` (and so the man
 * page and the completions, cmake/gen_cli_docs.py), so they cannot drift.
 *
 * Rules every command gets from here, not from its own code:
 *  - `--opt value` and `--opt=value`; short aliases `-o value`, `-ovalue`;
 *    `--` ends the options; arguments that are not options come back in order
 *    as GC_OPT_ARG (getopt's RETURN_IN_ORDER, whatever POSIXLY_CORRECT says).
 *  - Long names match exactly. getopt_long would take any unique prefix
 *    (`--mark` for `--markdown`), but a prefix that works today stops working
 *    the day an option sharing it is added, so a prefix is an unknown option
 *    with the full name suggested.
 *  - One wording, exit 2 (the caller returns GC_EXIT_USAGE):
 *      gcverify CMD: unknown option '--level' (did you mean '--levels'?)
 *      gcverify CMD: unknown option '--x' (see gcverify CMD --help)
 *      gcverify CMD: option '--json' needs a value
 *      gcverify CMD: option '--quiet' takes no value
 *  - `-h`/`--help` prints the generated help on stdout (GC_OPT_HELP; exit 0).
 *  - An old spelling kept for one release is an entry with help == NULL and
 *    the key of the option it spells; the help lists it under that option.
 *
 * Adding an option to a command: one line in its table, e.g. for render
 *     {"objects", K_OBJECTS, "on|off", "draw the mobies (on) or not (off)"},
 * a K_OBJECTS value in the command's key enum, and a `case K_OBJECTS:` in its
 * gc_opts_next loop. Nothing else (help, man page, completion, the
 * tests/test_cli.c checks) needs touching. */
#ifndef GC_CLI_OPTS_H
#define GC_CLI_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* One option. key: what gc_opts_next returns for it; a printable ASCII letter
 * is also its short form (-o), keys from GC_OPT_LONG up have no short form.
 * Keys are unique within a command, except that an alias repeats its option's. */
typedef struct gc_opt {
    const char *name; /* long name without the dashes: "output" */
    int key;
    const char *arg; /* NULL: a flag; else the value's placeholder in the help: "FILE" */
    /* prose, wrapped to the help's columns by gc_opts_help ('\n' is a space);
     * NULL: an old spelling (alias) of the option with the same key */
    const char *help;
} gc_opt;

typedef struct gc_opt_group {
    const char *title; /* "reports:" (NULL: no heading) */
    const gc_opt *opts;
    size_t count;
} gc_opt_group;

#define GC_OPT_GROUP(title, table)                                                                 \
    {                                                                                              \
        title, table, sizeof table / sizeof table[0]                                               \
    }

/* Key ranges: letters are short options; command-specific long-only keys
 * from GC_OPT_LONG; the shared groups (gc_cli.h, gc_nightly.h,
 * gc_history_args.h) from their own bases, so a command can combine them. */
enum {
    GC_OPT_LONG = 256,
    GC_OPT_SWEEP_BASE = 400,
    GC_OPT_NIGHTLY_BASE = 500,
    GC_OPT_HIST_BASE = 550,
    GC_OPT_TERM_BASE = 600,
};

/* What a command says about itself; the help is
 *   usage: gcverify NAME SYNOPSIS   (a '\n' in SYNOPSIS continues, aligned)
 *   <about>
 *   <each group: title, then one entry per option>
 *   -h, --help
 *   <footer> */
typedef struct gc_cmd_spec {
    const char *name; /* as typed: "dump-texture" */
    const char *synopsis;
    const char *about; /* may be NULL */
    const gc_opt_group *groups;
    size_t group_count;
    const char *footer; /* may be NULL */
} gc_cmd_spec;

/* A number macro as a string literal, for help texts. */
#define GC_OPT_STR_(x) #x
#define GC_OPT_STR(x)  GC_OPT_STR_(x)

#define GC_CMD_SPEC(name, synopsis, about, groups, footer)                                         \
    {                                                                                              \
        name, synopsis, about, groups, sizeof groups / sizeof groups[0], footer                    \
    }

enum {
    GC_OPT_DONE = -1,  /* no more arguments */
    GC_OPT_HELP = -2,  /* --help: the help is printed; the command exits 0 */
    GC_OPT_ERROR = -3, /* bad usage: the message is printed; the command exits 2 */
    GC_OPT_ARG = 1,    /* an argument that is not an option, in p->value */
};

enum { GC_OPTS_MAX_OPTS = 128, GC_OPTS_MAX_ARGS = 4096 };

typedef struct gc_opts {
    const gc_cmd_spec *spec;
    /* getopt_long reorders and rewrites nothing in RETURN_IN_ORDER mode, but
     * it is handed a copy anyway so the caller's argv (recorded by --history
     * as the command line) stays exactly as typed */
    int argc;
    char *argv[GC_OPTS_MAX_ARGS + 1];
    struct option longs[GC_OPTS_MAX_OPTS + 1];
    const gc_opt *table[GC_OPTS_MAX_OPTS]; /* longs[i] is table[i] */
    size_t count;
    char shorts[GC_OPTS_MAX_OPTS * 2 + 4];
    int finished; /* getopt returned -1: the rest are arguments */
    int rest;     /* the next of those */
    int after_dashdash;
    /* the current option: its table entry and value (NULL for a flag); for
     * GC_OPT_ARG the argument in value and opt NULL */
    const gc_opt *opt;
    const char *value;
    char spelled[128]; /* how the user wrote the current option: "--out" or "-o" */
} gc_opts;

/* 0, or -1 when the tables are too large or inconsistent (message printed). */
int gc_opts_init(gc_opts *p, const gc_cmd_spec *spec, int argc, char **argv);
/* The next key (p->opt, p->value), GC_OPT_ARG, GC_OPT_DONE, GC_OPT_HELP or
 * GC_OPT_ERROR. After `--`, every remaining argument is GC_OPT_ARG with
 * p->after_dashdash set. */
int gc_opts_next(gc_opts *p);
/* Print "gcverify CMD: <message>" for a bad value of the current option and
 * return GC_EXIT_USAGE (2). */
int gc_opts_bad(const gc_opts *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The generated help. */
void gc_opts_help(const gc_cmd_spec *spec, FILE *f);
/* "gcverify CMD: <message> (see gcverify CMD --help)" on stderr; returns 2. */
int gc_opts_usage_error(const gc_cmd_spec *spec, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* --color auto|always|never, for the commands that colour their output. */
enum { GC_OPT_COLOR = GC_OPT_TERM_BASE };
enum { GC_COLOR_AUTO, GC_COLOR_ALWAYS, GC_COLOR_NEVER };
extern const gc_opt_group gc_opt_color_group;
/* Parse a --color value; 0 or -1 (message printed via p). */
int gc_opts_color(const gc_opts *p, int *mode);
/* Whether output on fd gets colour under mode: always, never, or for auto a
 * terminal with NO_COLOR unset (any value, https://no-color.org) and TERM
 * not "dumb". */
int gc_color_enabled(int mode, int fd);

#endif
