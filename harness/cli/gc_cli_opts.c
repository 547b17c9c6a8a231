/* SPDX-License-Identifier: MIT */
/* The option parser and help generator of every command (gc_cli_opts.h). */
#include "gc_cli_opts.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gc_exit.h"
#include "gc_inv.h"

static int is_short(int key)
{
    return key > 0 && key < 128 && isalnum(key);
}

int gc_opts_init(gc_opts *p, const gc_cmd_spec *spec, int argc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->spec = spec;
    if (argc > GC_OPTS_MAX_ARGS) {
        fprintf(stderr, "gcverify %s: more than %d arguments\n", spec->name, GC_OPTS_MAX_ARGS);
        return -1;
    }
    p->argc = argc;
    for (int i = 0; i < argc; i++)
        p->argv[i] = argv[i];
    p->argv[argc] = NULL;
    /* '-': arguments in order (key 1), never permuted; ':': a missing value
     * is ':' rather than '?', so it gets its own message */
    size_t ns = 0;
    p->shorts[ns++] = '-';
    p->shorts[ns++] = ':';
    static const gc_opt help = {"help", 'h', NULL, "print this help and exit"};
    for (size_t g = 0; g <= spec->group_count; g++) {
        const gc_opt *opts = g < spec->group_count ? spec->groups[g].opts : &help;
        size_t n = g < spec->group_count ? spec->groups[g].count : 1;
        for (size_t i = 0; i < n; i++) {
            const gc_opt *o = &opts[i];
            if (p->count >= GC_OPTS_MAX_OPTS) {
                fprintf(stderr, "gcverify %s: too many options in the tables\n", spec->name);
                return -1;
            }
            /* programming errors, which tests/test_cli.c (every command's
             * --help) would catch: a name twice, or two options (not an
             * option and its old spelling) on one key */
            for (size_t k = 0; k < p->count; k++) {
                const gc_opt *q = p->table[k];
                int same_key = q->key == o->key && q->help && o->help;
                if (strcmp(q->name, o->name) == 0 || same_key) {
                    fprintf(stderr, "gcverify %s: options --%s and --%s clash in the tables\n",
                            spec->name, q->name, o->name);
                    return -1;
                }
            }
            p->table[p->count] = o;
            p->longs[p->count] =
                (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->key};
            p->count++;
            if (is_short(o->key) && !memchr(p->shorts, o->key, ns)) {
                p->shorts[ns++] = (char)o->key;
                if (o->arg)
                    p->shorts[ns++] = ':';
            }
        }
    }
    p->longs[p->count] = (struct option){NULL, 0, NULL, 0};
    p->shorts[ns] = '\0';
    /* glibc: optind 0 re-initialises the scanner completely */
    optind = 0;
    opterr = 0;
    return 0;
}

/* The name part of a "--name[=value]" token. */
static void long_name(const char *tok, char *out, size_t n)
{
    const char *s = tok + 2;
    size_t len = strcspn(s, "=");
    if (len >= n)
        len = n - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

static const gc_opt *by_key(const gc_opts *p, int key)
{
    for (size_t i = 0; i < p->count; i++)
        if (p->table[i]->key == key)
            return p->table[i];
    return NULL;
}

static int unknown(gc_opts *p, const char *spelled)
{
    const char *cands[GC_OPTS_MAX_OPTS];
    char store[GC_OPTS_MAX_OPTS][64];
    for (size_t i = 0; i < p->count; i++) {
        snprintf(store[i], sizeof store[i], "--%s", p->table[i]->name);
        cands[i] = store[i];
    }
    const char *s =
        strncmp(spelled, "--", 2) == 0 ? gc_inv_suggest(spelled, cands, p->count) : NULL;
    /* a prefix of exactly one option: that one (getopt would have taken it) */
    if (!s && strncmp(spelled, "--", 2) == 0) {
        size_t n = strlen(spelled), hits = 0;
        for (size_t i = 0; i < p->count; i++)
            if (strncmp(cands[i], spelled, n) == 0) {
                hits++;
                s = cands[i];
            }
        if (hits != 1)
            s = NULL;
    }
    if (s)
        fprintf(stderr, "gcverify %s: unknown option '%s' (did you mean '%s'?)\n", p->spec->name,
                spelled, s);
    else
        fprintf(stderr, "gcverify %s: unknown option '%s' (see gcverify %s --help)\n",
                p->spec->name, spelled, p->spec->name);
    return GC_OPT_ERROR;
}

int gc_opts_next(gc_opts *p)
{
    p->opt = NULL;
    p->value = NULL;
    p->spelled[0] = '\0';
    if (p->finished) {
        if (p->rest >= p->argc)
            return GC_OPT_DONE;
        p->value = p->argv[p->rest++];
        return GC_OPT_ARG;
    }
    int li = -1;
    int k = getopt_long(p->argc, p->argv, p->shorts, p->longs, &li);
    if (k == -1) {
        /* getopt stops only at "--" (or the end) in RETURN_IN_ORDER mode */
        p->finished = 1;
        p->rest = optind;
        p->after_dashdash =
            optind >= 2 && optind - 1 < p->argc && strcmp(p->argv[optind - 1], "--") == 0;
        return gc_opts_next(p);
    }
    if (k == 1) {
        p->value = optarg;
        return GC_OPT_ARG;
    }
    const char *tok = optind >= 1 && optind - 1 < p->argc ? p->argv[optind - 1] : "";
    if (k == '?' || k == ':') {
        /* getopt's optopt: 0 for an unknown long option, else the key of the
         * option concerned (a short letter, or a long option's key); tok is
         * the token just consumed, except for a short option inside a cluster */
        const gc_opt *o = NULL;
        char name[64] = "";
        int from_long = strncmp(tok, "--", 2) == 0 && tok[2];
        if (from_long) {
            long_name(tok, name, sizeof name);
            for (size_t i = 0; i < p->count && !o; i++)
                if (strcmp(p->table[i]->name, name) == 0)
                    o = p->table[i];
        }
        /* a missing value: the token is the option's own; an unexpected value
         * or an unknown name: a known key can only be a long flag given one */
        int is_long = k == ':' ? from_long : !optopt || by_key(p, optopt) != NULL;
        if (is_long && !o)
            return unknown(p, (snprintf(p->spelled, sizeof p->spelled, "--%s", name), p->spelled));
        if (is_long)
            snprintf(p->spelled, sizeof p->spelled, "--%s", name);
        else
            snprintf(p->spelled, sizeof p->spelled, "-%c", optopt);
        if (k == ':') {
            fprintf(stderr, "gcverify %s: option '%s' needs a value\n", p->spec->name, p->spelled);
            return GC_OPT_ERROR;
        }
        if (is_long) {
            fprintf(stderr, "gcverify %s: option '%s' takes no value\n", p->spec->name, p->spelled);
            return GC_OPT_ERROR;
        }
        return unknown(p, p->spelled);
    }
    if (li >= 0) {
        /* the token that named the option: its value, if separate, is the last one */
        const char *named = tok;
        if (p->table[li]->arg && optarg == tok && optind >= 2)
            named = p->argv[optind - 2];
        char name[64];
        long_name(named, name, sizeof name);
        snprintf(p->spelled, sizeof p->spelled, "--%s", name);
        if (strcmp(name, p->table[li]->name) != 0)
            return unknown(p, p->spelled); /* a prefix: exact names only */
        p->opt = p->table[li];
    } else {
        snprintf(p->spelled, sizeof p->spelled, "-%c", k);
        p->opt = by_key(p, k);
    }
    p->value = p->opt && p->opt->arg ? optarg : NULL;
    if (k == 'h' && p->opt && strcmp(p->opt->name, "help") == 0) {
        gc_opts_help(p->spec, stdout);
        return GC_OPT_HELP;
    }
    return k;
}

int gc_opts_bad(const gc_opts *p, const char *fmt, ...)
{
    fprintf(stderr, "gcverify %s: ", p->spec->name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return GC_EXIT_USAGE;
}

int gc_opts_usage_error(const gc_cmd_spec *spec, const char *fmt, ...)
{
    fprintf(stderr, "gcverify %s: ", spec->name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see gcverify %s --help)\n", spec->name);
    return GC_EXIT_USAGE;
}

/* Text continued on the next lines at column `indent`. */
static void indented(FILE *f, const char *text, int indent)
{
    for (const char *s = text; *s;) {
        size_t n = strcspn(s, "\n");
        fprintf(f, "%.*s\n", (int)n, s);
        s += n;
        if (*s == '\n')
            s++;
        if (*s)
            fprintf(f, "%*s", indent, "");
    }
}

/* Option help is prose: its '\n' are spaces, and it is wrapped here to
 * HELP_WIDTH columns at HELP_COLUMN, so every command's help has one layout
 * and a table entry is written without counting columns. */
enum { HELP_COLUMN = 23, HELP_WIDTH = 79 };

static void wrapped(FILE *f, const char *text, int col)
{
    for (const char *s = text; *s;) {
        while (*s == ' ')
            s++;
        /* the longest run of words that fits (at least one word) */
        size_t len = 0, fit = 0;
        for (;;) {
            while (s[len] && s[len] != ' ')
                len++;
            if (fit && col + (int)len > HELP_WIDTH)
                break;
            fit = len;
            if (!s[len])
                break;
            len++;
        }
        fprintf(f, "%.*s\n", (int)fit, s);
        s += fit;
        while (*s == ' ')
            s++;
        if (*s)
            fprintf(f, "%*s", HELP_COLUMN, "");
        col = HELP_COLUMN;
    }
}

static void print_option(FILE *f, const gc_cmd_spec *spec, const gc_opt *o)
{
    char head[160];
    int n =
        snprintf(head, sizeof head, "  %s%s%s--%s%s%s", is_short(o->key) ? "-" : "",
                 is_short(o->key) ? (char[2]){(char)o->key, 0} : "", is_short(o->key) ? ", " : "",
                 o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    int col = n <= HELP_COLUMN - 2 ? HELP_COLUMN : n + 2;
    fprintf(f, "%-*s", col, head);
    char text[2048];
    size_t len = (size_t)snprintf(text, sizeof text, "%s", o->help);
    /* the old spellings of this option */
    for (size_t g = 0; g < spec->group_count; g++)
        for (size_t i = 0; i < spec->groups[g].count && len < sizeof text; i++) {
            const gc_opt *a = &spec->groups[g].opts[i];
            if (!a->help && a->key == o->key)
                len += (size_t)snprintf(text + len, sizeof text - len,
                                        " (also --%s%s%s: the old spelling, accepted for one "
                                        "release)",
                                        a->name, a->arg ? " " : "", a->arg ? a->arg : "");
        }
    for (char *c = text; *c; c++)
        if (*c == '\n')
            *c = ' ';
    wrapped(f, text, col);
}

void gc_opts_help(const gc_cmd_spec *spec, FILE *f)
{
    fprintf(f, "usage: gcverify %s ", spec->name);
    indented(f, spec->synopsis, (int)strlen("usage: gcverify  ") + (int)strlen(spec->name));
    if (spec->about) {
        fputc('\n', f);
        fputs(spec->about, f);
    }
    for (size_t g = 0; g < spec->group_count; g++) {
        const gc_opt_group *gr = &spec->groups[g];
        fputc('\n', f);
        if (gr->title)
            fprintf(f, "%s\n", gr->title);
        for (size_t i = 0; i < gr->count; i++)
            if (gr->opts[i].help)
                print_option(f, spec, &gr->opts[i]);
    }
    fprintf(f, "\n  -h, --help           print this help and exit\n");
    if (spec->footer) {
        fputc('\n', f);
        fputs(spec->footer, f);
    }
}

static const gc_opt color_opts[] = {
    {"color", GC_OPT_COLOR, "auto|always|never",
     "colour the terminal output: auto (the default) when it is a\n"
     "terminal, NO_COLOR is unset and TERM is not dumb"},
};
const gc_opt_group gc_opt_color_group = GC_OPT_GROUP("terminal:", color_opts);

int gc_opts_color(const gc_opts *p, int *mode)
{
    const char *v = p->value;
    if (strcmp(v, "auto") == 0)
        *mode = GC_COLOR_AUTO;
    else if (strcmp(v, "always") == 0)
        *mode = GC_COLOR_ALWAYS;
    else if (strcmp(v, "never") == 0)
        *mode = GC_COLOR_NEVER;
    else {
        gc_opts_bad(p, "--color takes auto, always or never, not '%s'", v);
        return -1;
    }
    return 0;
}

int gc_color_enabled(int mode, int fd)
{
    if (mode == GC_COLOR_ALWAYS)
        return 1;
    if (mode == GC_COLOR_NEVER || fd < 0 || !isatty(fd))
        return 0;
    const char *term = getenv("TERM");
    return !getenv("NO_COLOR") && !(term && strcmp(term, "dumb") == 0);
}
