/* SPDX-License-Identifier: MIT */
/* The item selection shared by `history`, `last-good` and `bisect`:
 * --invariant ID | --frame N:view | --metric N:name, --level N, --history DB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli.h"
#include "gc_history_args.h"

void gc_hist_args_init(gc_hist_args *a)
{
    memset(a, 0, sizeof *a);
    a->q.kind = GC_HIST_INVARIANT;
    a->q.level = -2;
    a->db = getenv("GCVERIFY_HISTORY");
    if (a->db && !*a->db)
        a->db = NULL;
}

static int parse_level(const char *v, int *out)
{
    if (strcmp(v, "corpus") == 0) {
        *out = GC_LEVEL_CORPUS;
        return 0;
    }
    unsigned long long n;
    if (gc_cli_uint(v, 26, &n) != 0)
        return -1;
    *out = (int)n;
    return 0;
}

/* "N:name" into level and name */
static int parse_item(const char *v, gc_hist_args *a, char *err, size_t errlen, const char *opt)
{
    const char *c = strchr(v, ':');
    char lv[16];
    if (!c || (size_t)(c - v) >= sizeof lv || !c[1]) {
        snprintf(err, errlen, "%s takes LEVEL:NAME (e.g. 3:%s), not '%s'", opt,
                 strcmp(opt, "--frame") == 0 ? "default" : "tfrag.triangles", v);
        return -1;
    }
    memcpy(lv, v, (size_t)(c - v));
    lv[c - v] = 0;
    if (parse_level(lv, &a->q.level) != 0) {
        snprintf(err, errlen, "%s: '%s' is not a level (0..26 or corpus)", opt, lv);
        return -1;
    }
    a->q.id = c + 1;
    return 0;
}

int gc_hist_arg(int argc, char **argv, int *i, gc_hist_args *a, char *err, size_t errlen)
{
    const char *o = argv[*i];
    int known = strcmp(o, "--history") == 0 || strcmp(o, "--invariant") == 0 ||
                strcmp(o, "--frame") == 0 || strcmp(o, "--metric") == 0 ||
                strcmp(o, "--level") == 0 || strcmp(o, "--since") == 0;
    if (!known)
        return 0;
    if (*i + 1 >= argc) {
        snprintf(err, errlen, "%s needs a value", o);
        return -1;
    }
    const char *v = argv[++*i];
    if (strcmp(o, "--history") == 0) {
        a->db = v;
    } else if (strcmp(o, "--invariant") == 0) {
        a->q.kind = GC_HIST_INVARIANT;
        a->q.id = v;
        a->item_given++;
    } else if (strcmp(o, "--frame") == 0 || strcmp(o, "--metric") == 0) {
        a->q.kind = o[2] == 'f' ? GC_HIST_FRAME : GC_HIST_METRIC;
        a->item_given++;
        /* a bare name (every level) is fine for a series */
        if (!strchr(v, ':')) {
            a->q.id = v;
            return 1;
        }
        if (parse_item(v, a, err, errlen, o) != 0)
            return -1;
        a->level_given = 1;
    } else if (strcmp(o, "--level") == 0) {
        if (parse_level(v, &a->q.level) != 0) {
            snprintf(err, errlen, "--level takes 0..26 or corpus, not '%s'", v);
            return -1;
        }
        a->level_given = 1;
    } else {
        a->q.since = v;
    }
    return 1;
}

const char gc_hist_args_help[] =
    "  --history DB         the history database (default $GCVERIFY_HISTORY)\n"
    "  --invariant ID       an invariant (every level, or --level N)\n"
    "  --frame N:VIEW       a frame (level N, view VIEW: default, overview)\n"
    "  --metric N:NAME      a metric of level N (corpus:NAME for a corpus figure)\n"
    "  --level N            restrict to level N (0..26, or corpus)\n";
