/* SPDX-License-Identifier: MIT */
/* gcverify: command-line entry. Dispatches to harness/cli/cmd_<name>.c. */
#include <stdio.h>
#include <string.h>

#include "gc_exit.h"
#include "gc_fsutil.h"
#include "gc_inv.h"

#define GC_COMMAND(n, summary) int gc_cmd_##n(int argc, char **argv);
#include "commands.def"
#undef GC_COMMAND

typedef struct command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
#define GC_COMMAND(n, summary) {#n, summary, gc_cmd_##n},
#include "commands.def"
#undef GC_COMMAND
    {NULL, NULL, NULL}};

static void usage(FILE *f)
{
    fprintf(f,
            "gcverify %s - regression verification for Ratchet & Clank: Going Commando levels\n\n"
            "usage: gcverify <command> [options]   (gcverify help <command>, or\n"
            "       gcverify <command> --help, for details)\n\n"
            "Options are the same in every command: --opt value or --opt=value, the\n"
            "short aliases each help lists, -- ends the options; -o/--output names what\n"
            "a command writes. A mistyped option is exit 2 with the nearest name.\n\n"
            "commands:\n",
            GC_VERSION);
    for (const command *c = commands; c->name; c++) {
        char name[32];
        snprintf(name, sizeof name, "%s", c->name);
        for (char *p = name; *p; p++)
            if (*p == '_')
                *p = '-';
        fprintf(f, "  %-14s %s\n", name, c->summary);
    }
    fprintf(f, "\nexit codes (every command):\n"
               "  0  no gating failure\n"
               "  1  a gating invariant failed, a metric regressed or a frame changed\n"
               "  2  bad usage: unknown option, a named file that does not exist, a selection\n"
               "     that selects nothing, a baseline of another corpus, invalid YAML or no\n"
               "     invariants, an unreadable baseline or ledger\n"
               "  3  corpus unreadable: no level could be read\n"
               "  4  part of the corpus could not be read (the verdict is incomplete)\n"
               "  5  an output (report, file or standard output) could not be written\n"
               "\nWith no --corpus, commands use the synthetic corpus (generated once into\n"
               "$XDG_CACHE_HOME/gcverify or ~/.cache/gcverify and reused).\n");
}

/* Every command's stdout is checked once more at exit: a full disk or a
 * closed pipe under `list`, `--json -` or the summary is a failed write. */
static int finish(int rc)
{
    char err[256];
    if (gc_close_stdout(err, sizeof err) != 0) {
        fprintf(stderr, "gcverify: %s\n", err);
        return gc_exit_with_write_failure(rc);
    }
    return rc;
}

/* The command called NAME (dashes or underscores), or NULL. */
static const command *find_command(const char *name)
{
    char want[64];
    snprintf(want, sizeof want, "%s", name);
    for (char *p = want; *p; p++)
        if (*p == '-')
            *p = '_';
    for (const command *c = commands; c->name; c++)
        if (strcmp(c->name, want) == 0)
            return c;
    return NULL;
}

/* "unknown command" with the nearest command name, exit 2. */
static int unknown_command(const char *name)
{
    const char *names[sizeof commands / sizeof commands[0]];
    char spelled[sizeof commands / sizeof commands[0]][32];
    size_t n = 0;
    for (const command *c = commands; c->name; c++, n++) {
        snprintf(spelled[n], sizeof spelled[n], "%s", c->name);
        for (char *p = spelled[n]; *p; p++)
            if (*p == '_')
                *p = '-';
        names[n] = spelled[n];
    }
    const char *s = gc_inv_suggest(name, names, n);
    if (s)
        fprintf(stderr, "gcverify: unknown command '%s' (did you mean '%s'?)\n", name, s);
    else
        fprintf(stderr, "gcverify: unknown command '%s' (see gcverify --help)\n", name);
    return 2;
}

int main(int argc, char **argv)
{
    /* `gcverify help CMD` is `gcverify CMD --help` */
    if (argc >= 3 && strcmp(argv[1], "help") == 0) {
        const command *c = find_command(argv[2]);
        if (!c)
            return unknown_command(argv[2]);
        char help_flag[] = "--help";
        char *hargv[] = {argv[2], help_flag, NULL};
        return finish(c->run(2, hargv));
    }
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return finish(argc < 2 ? 2 : 0);
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("gcverify %s\n", GC_VERSION);
        return finish(0);
    }
    const command *c = find_command(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    return finish(c->run(argc - 1, argv + 1));
}
