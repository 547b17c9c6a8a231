/* SPDX-License-Identifier: MIT */
/* The command-line convention (issue 14), over every command that
 * harness/cli/commands.def lists, through the built gcverify:
 *  - an unknown option is the one message, exit 2, with the nearest option
 *    suggested when one is close;
 *  - every option that --help lists is accepted (`CMD --opt[=v] --help` exits 0);
 *  - `--opt=value` and `--opt value` are the same (a bad value gives the same
 *    value-specific message both ways, so the value reached the command);
 *  - `gcverify help CMD` is `gcverify CMD --help`;
 *  - the progress line of sweep: an updating line with count, percentage,
 *    elapsed and ETA on a terminal (a pty), one line per level otherwise;
 *  - gc_progress_format and --color, directly. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gc_cli_opts.h"
#include "gc_progress.h"

#define GCV GC_BINARY_DIR "/gcverify"

/* The commands as typed (underscores as dashes), from the dispatch table's source. */
static const char *const commands[] = {
#define GC_COMMAND(n, summary) #n,
#include "../harness/cli/commands.def"
#undef GC_COMMAND
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void typed(const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s", name);
    for (char *p = out; *p; p++)
        if (*p == '_')
            *p = '-';
}

typedef struct run_out {
    int rc;
    char out[1 << 17], err[1 << 14];
} run_out;

static void slurp(const char *path, char *buf, size_t n)
{
    buf[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t r = fread(buf, 1, n - 1, f);
    buf[r] = 0;
    fclose(f);
}

/* Run gcverify with args (NULL-terminated, without argv[0]); stdout and
 * stderr captured. A hang guard of 600 s, not a measurement. */
static void run(run_out *r, const char *const *args)
{
    char of[] = "/tmp/gc-test-cli-out-XXXXXX", ef[] = "/tmp/gc-test-cli-err-XXXXXX";
    int ofd = mkstemp(of), efd = mkstemp(ef);
    cr_assert(ofd >= 0 && efd >= 0);
    char *argv[64];
    size_t n = 0;
    argv[n++] = "gcverify";
    for (size_t i = 0; args[i] && n < 63; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        dup2(ofd, 1);
        dup2(efd, 2);
        execv(GCV, argv);
        _exit(127);
    }
    int st = 0;
    for (int waited = 0;; waited++) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (waited > 600 * 50) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            cr_assert_fail("gcverify %s hung", args[0]);
        }
        struct timespec d = {0, 20 * 1000 * 1000};
        nanosleep(&d, NULL);
    }
    cr_assert(WIFEXITED(st), "gcverify %s was killed", args[0]);
    r->rc = WEXITSTATUS(st);
    close(ofd);
    close(efd);
    slurp(of, r->out, sizeof r->out);
    slurp(ef, r->err, sizeof r->err);
    unlink(of);
    unlink(ef);
}

/* s into d (n bytes), cut if longer. */
static void copy(char *d, size_t n, const char *s)
{
    size_t l = strlen(s);
    if (l >= n)
        l = n - 1;
    memcpy(d, s, l);
    d[l] = 0;
}

/* s with every run of blanks and newlines as one space (help text is wrapped). */
static void squeeze(char *s)
{
    char *d = s;
    for (const char *p = s; *p; p++)
        if (!((*p == ' ' || *p == '\n') && d > s && d[-1] == ' '))
            *d++ = *p == '\n' ? ' ' : *p;
    *d = 0;
}

/* The options an option line of a --help names: "  -o, --output F" or
 * "  --levels LIST"; with whether it takes a value. */
typedef struct help_opt {
    char name[64];
    int takes_value;
} help_opt;

static size_t help_options(const char *help, help_opt *opts, size_t max)
{
    size_t n = 0;
    for (const char *line = help; *line && n < max;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *p = line;
        if (len > 4 && p[0] == ' ' && p[1] == ' ' && p[2] == '-') {
            p += 2;
            if (p[1] != '-' && p[2] == ',' && p[3] == ' ')
                p += 4; /* "-o, " */
            if (p[0] == '-' && p[1] == '-') {
                size_t k = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
                snprintf(opts[n].name, sizeof opts[n].name, "--%.*s", (int)k, p + 2);
                /* "--opt VALUE  help" takes a value; "--opt  help" does not */
                opts[n].takes_value = p[2 + k] == ' ' && p[3 + k] != ' ';
                n++;
            }
        }
        line += len + (eol ? 1 : 0);
    }
    return n;
}

Test(cli, every_command_rejects_an_unknown_option_with_one_wording_and_exit_2, .timeout = 600)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        char cmd[32], want[256];
        typed(commands[i], cmd, sizeof cmd);
        run_out *r = malloc(sizeof *r);
        const char *a1[] = {cmd, "--no-such-option-zz", NULL};
        run(r, a1);
        snprintf(want, sizeof want,
                 "gcverify %s: unknown option '--no-such-option-zz' (see gcverify %s --help)\n",
                 cmd, cmd);
        cr_expect_eq(r->rc, 2, "%s: exit %d", cmd, r->rc);
        cr_expect_str_eq(r->err, want, "%s", cmd);
        cr_expect_str_eq(r->out, "", "%s: stdout '%s'", cmd, r->out);
        /* the = form names the option only */
        const char *a2[] = {cmd, "--no-such-option-zz=3", NULL};
        run(r, a2);
        cr_expect_eq(r->rc, 2, "%s", cmd);
        cr_expect_str_eq(r->err, want, "%s", cmd);
        /* an unknown short option */
        const char *a3[] = {cmd, "-Z", NULL};
        run(r, a3);
        snprintf(want, sizeof want, "gcverify %s: unknown option '-Z' (see gcverify %s --help)\n",
                 cmd, cmd);
        cr_expect_eq(r->rc, 2, "%s", cmd);
        cr_expect_str_eq(r->err, want, "%s", cmd);
        free(r);
    }
}

Test(cli, a_near_miss_gets_the_nearest_option_and_a_prefix_is_not_taken, .timeout = 600)
{
    run_out *r = malloc(sizeof *r);
    /* the example: --level is a prefix of two sweep options and a typo of one */
    const char *a[] = {"sweep", "--level", "3", NULL};
    run(r, a);
    cr_expect_eq(r->rc, 2);
    cr_expect_str_eq(r->err,
                     "gcverify sweep: unknown option '--level' (did you mean '--levels'?)\n");
    /* a unique prefix is refused too (getopt_long alone would take it) */
    const char *b[] = {"sweep", "--markd", "x.md", NULL};
    run(r, b);
    cr_expect_eq(r->rc, 2);
    cr_expect_str_eq(r->err,
                     "gcverify sweep: unknown option '--markd' (did you mean '--markdown'?)\n");
    for (size_t i = 0; i < NCOMMANDS; i++) {
        char cmd[32], help[1 << 15];
        typed(commands[i], cmd, sizeof cmd);
        const char *h[] = {cmd, "--help", NULL};
        run(r, h);
        cr_assert_eq(r->rc, 0, "%s --help: exit %d", cmd, r->rc);
        copy(help, sizeof help, r->out);
        help_opt opts[128];
        size_t n = help_options(help, opts, 128);
        cr_expect_gt(n, 0, "%s --help lists no option", cmd);
        for (size_t k = 0; k < n; k++) {
            /* one letter off at the end: that option is the suggestion, unless
             * another option is as close (then any of the closest is right) */
            char typo[80], want[256];
            copy(typo, sizeof typo - 1, opts[k].name);
            strcat(typo, "q");
            const char *t[] = {cmd, typo, NULL};
            run(r, t);
            cr_expect_eq(r->rc, 2, "%s %s: exit %d", cmd, typo, r->rc);
            snprintf(want, sizeof want, "gcverify %s: unknown option '%s' (did you mean '", cmd,
                     typo);
            cr_expect(strncmp(r->err, want, strlen(want)) == 0, "%s %s: '%s'", cmd, typo, r->err);
            const char *s = r->err + strlen(want);
            size_t sl = strcspn(s, "'");
            int known = 0;
            for (size_t j = 0; j < n; j++)
                known |= strlen(opts[j].name) == sl && strncmp(opts[j].name, s, sl) == 0;
            cr_expect(known, "%s %s: suggested '%.*s', not an option", cmd, typo, (int)sl, s);
        }
    }
    free(r);
}

Test(cli, every_option_in_every_help_is_accepted_in_both_forms, .timeout = 1200)
{
    run_out *r = malloc(sizeof *r);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        char cmd[32], help[1 << 15];
        typed(commands[i], cmd, sizeof cmd);
        const char *h[] = {cmd, "--help", NULL};
        run(r, h);
        copy(help, sizeof help, r->out);
        cr_expect(strncmp(help, "usage: gcverify ", 16) == 0 &&
                      strncmp(help + 16, cmd, strlen(cmd)) == 0,
                  "%s --help does not start with its usage line", cmd);
        cr_expect(strstr(help, "\n  -h, --help "), "%s --help does not list --help", cmd);
        /* gcverify help CMD is the same text */
        const char *hh[] = {"help", cmd, NULL};
        run(r, hh);
        cr_expect_eq(r->rc, 0);
        cr_expect_str_eq(r->out, help, "gcverify help %s differs from %s --help", cmd, cmd);
        help_opt opts[128];
        size_t n = help_options(help, opts, 128);
        for (size_t k = 0; k < n; k++) {
            if (strcmp(opts[k].name, "--help") == 0)
                continue;
            /* parsed as an option (values are checked when used, or are
             * checked here and fail: then the message is value-specific,
             * never "unknown option") */
            char eq[128];
            copy(eq, sizeof eq - 2, opts[k].name);
            strcat(eq, "=1");
            const char *a[] = {cmd, opts[k].takes_value ? eq : opts[k].name, "--help", NULL};
            run(r, a);
            cr_expect(!strstr(r->err, "unknown option"), "%s %s: %s", cmd, a[1], r->err);
            cr_expect(!strstr(r->err, "needs a value") && !strstr(r->err, "takes no value"),
                      "%s %s: %s", cmd, a[1], r->err);
            if (r->rc == 0)
                cr_expect_str_eq(r->out, help, "%s %s --help", cmd, a[1]);
            else
                cr_expect_eq(r->rc, 2, "%s %s: exit %d", cmd, a[1], r->rc);
        }
    }
    free(r);
}

/* Per command, one option whose bad value the command rejects with its own
 * message: the same message for --opt=v and --opt v proves the value was
 * split off and reached the command. Every command has a row (a new command
 * without one fails here). */
typedef struct value_case {
    const char *cmd, *opt, *bad, *message;
    const char *pre[4]; /* arguments before the option */
} value_case;

static const value_case value_cases[] = {
    {"sweep", "--jobs", "0", "--jobs takes a number from 1 to 256, not '0'", {NULL}},
    {"list", "--metrics", NULL, "option '--metrics' takes no value", {NULL}},
    {"show", "--level", "27", "--level takes 0..26, not '27'", {NULL}},
    {"diff", "--format", "yaml", "--format takes text, json or markdown, not 'yaml'", {NULL}},
    {"merge", "--samples", "5000", "--samples takes a number up to 1000, not '5000'", {NULL}},
    {"history", "--level", "99", "--level takes 0..26 or corpus, not '99'", {NULL}},
    {"last-good", "--level", "99", "--level takes 0..26 or corpus, not '99'", {NULL}},
    {"bisect", "--level", "99", "--level takes 0..26 or corpus, not '99'", {NULL}},
    {"bless", "--shard", "3/2", "--shard takes K/N with 1 <= K <= N <= 27, not '3/2'", {NULL}},
    {"render", "--lighting", "dim", "--lighting takes on or off, not 'dim'", {NULL}},
    {"synth", "--scale", "huge", "--scale takes retail, small or edge, not 'huge'", {NULL}},
    {"extract", "--level", "99", "--level takes 0..26, not '99'", {NULL}},
    {"dump-texture", "--mip", "9", "bad value '9' for --mip", {NULL}},
    {"fields", "--markdown", NULL, "option '--markdown' takes no value", {NULL}},
    {"coverage",
     "--baseline",
     "/nonexistent-gcv.yaml",
     "/nonexistent-gcv.yaml: no such baseline",
     {NULL}},
    {"faults", "--tier", "weekly", "--tier takes gate or nightly, not 'weekly'", {NULL}},
    {"wad", "--offset", "zz", "bad --offset 'zz'", {"decompress", "/dev/null", "/dev/null", NULL}},
};

Test(cli, opt_equals_value_reaches_the_command_in_every_command, .timeout = 600)
{
    run_out *r = malloc(sizeof *r);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        char cmd[32];
        typed(commands[i], cmd, sizeof cmd);
        const value_case *c = NULL;
        for (size_t k = 0; k < sizeof value_cases / sizeof value_cases[0]; k++)
            if (strcmp(value_cases[k].cmd, cmd) == 0)
                c = &value_cases[k];
        cr_expect(c, "no --opt=value case for command %s", cmd);
        if (!c)
            continue;
        const char *args[12];
        size_t n = 0;
        args[n++] = cmd;
        for (size_t k = 0; c->pre[k]; k++)
            args[n++] = c->pre[k];
        char eq[256];
        /* a flag: --flag=x must be refused as a flag given a value */
        snprintf(eq, sizeof eq, "%s=%s", c->opt, c->bad ? c->bad : "yes");
        args[n] = eq;
        args[n + 1] = NULL;
        run(r, args);
        cr_expect_eq(r->rc, 2, "%s %s: exit %d", cmd, eq, r->rc);
        cr_expect(strstr(r->err, c->message), "%s %s: '%s' lacks '%s'", cmd, eq, r->err,
                  c->message);
        cr_expect(strncmp(r->err, "gcverify ", 9) == 0 &&
                      strncmp(r->err + 9, cmd, strlen(cmd)) == 0,
                  "%s: the message does not name the command: %s", cmd, r->err);
        if (!c->bad)
            continue;
        char first[4096];
        copy(first, sizeof first, r->err);
        args[n] = c->opt;
        args[n + 1] = c->bad;
        args[n + 2] = NULL;
        run(r, args);
        cr_expect_eq(r->rc, 2, "%s %s %s", cmd, c->opt, c->bad);
        cr_expect_str_eq(r->err, first, "%s: --opt=v and --opt v differ", cmd);
    }
    free(r);
}

Test(cli, old_spellings_still_work, .timeout = 600)
{
    run_out *r = malloc(sizeof *r);
    char dir[] = "/tmp/gc-test-cli-XXXXXX";
    cr_assert(mkdtemp(dir));
    char in[512], a[512], b[512];
    snprintf(in, sizeof in, "%s/in.bin", dir);
    FILE *f = fopen(in, "wb");
    for (int i = 0; i < 5000; i++)
        fputc(i * 7 % 251, f);
    fclose(f);
    snprintf(a, sizeof a, "%s/a.wad", dir);
    snprintf(b, sizeof b, "%s/b.wad", dir);
    /* --label NAME, --label=NAME: the same bytes */
    const char *c1[] = {"wad", "compress", in, a, "--label", "abc", NULL};
    run(r, c1);
    cr_assert_eq(r->rc, 0, "%s", r->err);
    const char *c2[] = {"wad", "--label=abc", "compress", in, b, NULL};
    run(r, c2);
    cr_assert_eq(r->rc, 0, "%s", r->err);
    char ab[16384], bb[16384];
    slurp(a, ab, sizeof ab);
    slurp(b, bb, sizeof bb);
    cr_expect(memcmp(ab, bb, 64) == 0 && ab[3 + 4] != 0);
    /* -- ends the options: a file named like an option */
    char dashed[600];
    snprintf(dashed, sizeof dashed, "%s/--label", dir);
    const char *c3[] = {"wad", "compress", in, "--", dashed, "--label", NULL};
    run(r, c3);
    cr_expect_eq(r->rc, 2, "after --, --label is a fourth argument");
    cr_expect_str_eq(r->err, "gcverify wad: too many arguments (see gcverify wad --help)\n");
    const char *c4[] = {"wad", "compress", in, "--", dashed, NULL};
    run(r, c4);
    cr_expect_eq(r->rc, 0, "%s", r->err);
    cr_expect_eq(access(dashed, F_OK), 0, "-- did not end the options");
    /* extract --out (old) and -o / --output (new) are one option */
    const char *s1[] = {"extract", "--out", NULL};
    run(r, s1);
    cr_expect_str_eq(r->err, "gcverify extract: option '--out' needs a value\n");
    const char *s2[] = {"extract", "--output", NULL};
    run(r, s2);
    cr_expect_str_eq(r->err, "gcverify extract: option '--output' needs a value\n");
    const char *s3[] = {"synth", "--help", NULL};
    run(r, s3);
    squeeze(r->out);
    cr_expect(strstr(r->out, "-o, --output DIR") &&
              strstr(r->out, "(also --out DIR: the old spelling"));
    const char *m1[] = {"merge", "--help", NULL};
    run(r, m1);
    squeeze(r->out);
    cr_expect(strstr(r->out, "(also --json OUT.json: the old spelling"));
    char cmdline[2048];
    snprintf(cmdline, sizeof cmdline, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmdline), 0);
    free(r);
}

/* ==== progress ==== */

Test(progress, the_line_says_count_percentage_elapsed_and_eta)
{
    char b[256];
    gc_progress_format(b, sizeof b, "sweep", "levels", 12, 27, 3.0, "LEVEL7.WAD");
    /* 3 s for 12: 15 to go at 0.25 s each = 3.75 s, rounded 0:04 */
    cr_expect_str_eq(b, "sweep  12/27 levels   44%  elapsed 0:03  ETA 0:04  LEVEL7.WAD");
    gc_progress_format(b, sizeof b, "synth", "levels", 0, 27, 0.2, NULL);
    cr_expect_str_eq(b, "synth  0/27 levels    0%  elapsed 0:00  ETA -:--");
    gc_progress_format(b, sizeof b, "sweep", "levels", 27, 27, 3725.0, "LEVEL0.WAD");
    cr_expect_str_eq(b, "sweep  27/27 levels  100%  elapsed 1:02:05  ETA 0:00  LEVEL0.WAD");
    gc_progress_format(b, sizeof b, "sweep", "levels", 1, 3, 61.0, "");
    cr_expect_str_eq(b, "sweep  1/3 levels   33%  elapsed 1:01  ETA 2:02");
}

Test(progress, color_follows_the_flag_and_auto_needs_a_terminal)
{
    int fd = open("/dev/null", O_WRONLY);
    cr_assert(fd >= 0);
    cr_expect_eq(gc_color_enabled(GC_COLOR_ALWAYS, fd), 1);
    cr_expect_eq(gc_color_enabled(GC_COLOR_NEVER, fd), 0);
    cr_expect_eq(gc_color_enabled(GC_COLOR_AUTO, fd), 0, "/dev/null is not a terminal");
    int m, s;
    cr_assert_eq(openpty(&m, &s, NULL, NULL, NULL), 0);
    unsetenv("NO_COLOR");
    setenv("TERM", "xterm", 1);
    cr_expect_eq(gc_color_enabled(GC_COLOR_AUTO, s), 1);
    setenv("TERM", "dumb", 1);
    cr_expect_eq(gc_color_enabled(GC_COLOR_AUTO, s), 0);
    setenv("TERM", "xterm", 1);
    setenv("NO_COLOR", "", 1); /* any value, even empty, per no-color.org */
    cr_expect_eq(gc_color_enabled(GC_COLOR_AUTO, s), 0);
    cr_expect_eq(gc_color_enabled(GC_COLOR_ALWAYS, s), 1);
    unsetenv("NO_COLOR");
    close(m);
    close(s);
    close(fd);
}

/* gcverify argv with stderr on a pty (stdout to out); the bytes the terminal
 * received. */
static size_t on_pty(char *buf, size_t n, const char *out, char *const argv[])
{
    int m, s;
    cr_assert_eq(openpty(&m, &s, NULL, NULL, NULL), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        close(m);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(s, 2);
        setenv("TERM", "xterm", 1);
        unsetenv("NO_COLOR");
        execv(GCV, argv);
        _exit(127);
    }
    close(s);
    size_t got = 0;
    for (;;) {
        struct pollfd p = {m, POLLIN, 0};
        int pr = poll(&p, 1, 600 * 1000);
        cr_assert(pr > 0, "the sweep on a pty hung");
        ssize_t r = read(m, buf + got, n - got - 1);
        if (r <= 0)
            break; /* EIO once the child has closed the slave */
        got += (size_t)r;
        if (got + 1 >= n)
            break;
    }
    buf[got] = 0;
    int st;
    waitpid(pid, &st, 0);
    close(m);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s exit %d: %s", argv[1], WEXITSTATUS(st),
              buf);
    return got;
}

/* Sweep two small levels on a pty. */
static size_t sweep_on_pty(char *buf, size_t n, const char *color, const char *out)
{
    char *const argv[] = {"gcverify",    "sweep",  "--scale", "small",       "--levels", "0,1",
                          "--no-frames", "--jobs", "1",       (char *)color, NULL};
    return on_pty(buf, n, out, argv);
}

Test(progress, synth_draws_one_updating_line_on_a_terminal_only, .timeout = 600)
{
    char dir[] = "/tmp/gc-test-cli-synth-XXXXXX";
    cr_assert(mkdtemp(dir));
    char corpus[600], out[600], cmd[1400];
    snprintf(corpus, sizeof corpus, "%s/corpus", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    char *tty = malloc(1 << 16);
    char *const argv[] = {"gcverify", "synth",  "-o", corpus, "--scale",
                          "small",    "--jobs", "2",  NULL};
    on_pty(tty, 1 << 16, out, argv);
    cr_expect(strstr(tty, "\rsynth  1/27 levels    3%  elapsed "), "no first update: %s", tty);
    cr_expect(strstr(tty, "\rsynth  27/27 levels  100%  elapsed "), "no last update: %s", tty);
    cr_expect(!strstr(tty, "synth: ["), "line-per-level output on a terminal");
    /* off a terminal synth prints its one closing line only, as before */
    run_out *r = malloc(sizeof *r);
    const char *a[] = {"synth", "-o", corpus, "--scale", "small", "--jobs", "2", NULL};
    run(r, a);
    cr_assert_eq(r->rc, 0, "%s", r->err);
    cr_expect_str_eq(r->err, "");
    cr_expect(strstr(r->out, "synth: wrote 27 levels"));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
    free(r);
    free(tty);
}

Test(progress, sweep_draws_one_updating_line_on_a_terminal_only, .timeout = 1200)
{
    char *tty = malloc(1 << 16);
    char out[] = "/tmp/gc-test-cli-pty-XXXXXX";
    int ofd = mkstemp(out);
    cr_assert(ofd >= 0);
    close(ofd);
    sweep_on_pty(tty, 1 << 16, "--color=never", out);
    /* each update returns to the line start and erases what was left */
    cr_expect(strstr(tty, "\rsweep  1/2 levels   50%  elapsed "), "no first update: %s", tty);
    cr_expect(strstr(tty, "\rsweep  2/2 levels  100%  elapsed "), "no last update: %s", tty);
    cr_expect(strstr(tty, "  ETA "), "no ETA: %s", tty);
    cr_expect(strstr(tty, "\033[K"), "no erase to the end of the line");
    /* the per-level lines are for logs */
    cr_expect(!strstr(tty, "sweep: 1/2 "), "line-per-level output on a terminal");
    /* the pipe (not a terminal): the line per level, no carriage returns */
    run_out *r = malloc(sizeof *r);
    const char *a[] = {"sweep",       "--scale", "small", "--levels", "0,1",
                       "--no-frames", "--jobs",  "1",     NULL};
    run(r, a);
    cr_assert_eq(r->rc, 0, "%s", r->err);
    cr_expect(strstr(r->err, "sweep: 1/2 LEVEL"), "no line per level off a terminal: %s", r->err);
    cr_expect(strstr(r->err, "sweep: 2/2 LEVEL"));
    cr_expect(!strchr(r->err, '\r'), "a carriage return off a terminal");
    cr_expect(!strstr(r->out, "\033["), "colour in the summary on a file");
    /* --color=always colours the summary even in a file */
    sweep_on_pty(tty, 1 << 16, "--color=always", out);
    char *summary = malloc(1 << 16);
    slurp(out, summary, 1 << 16);
    cr_expect(strstr(summary, "\033[32mPASSED\033[0m"), "--color=always: %s", summary);
    sweep_on_pty(tty, 1 << 16, "--color=never", out);
    slurp(out, summary, 1 << 16);
    cr_expect(strstr(summary, "PASSED") && !strstr(summary, "\033["), "--color=never: %s", summary);
    unlink(out);
    free(summary);
    free(r);
    free(tty);
}
