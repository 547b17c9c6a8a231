/* SPDX-License-Identifier: MIT */
/* The item selection shared by `history`, `last-good` and `bisect`:
 * --invariant ID | --frame N:view | --metric N:name, --level N, --history DB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static const gc_opt hist_opts[] = {
    {"history", GC_HIST_K_HISTORY, "DB", "the history database (default $GCVERIFY_HISTORY)"},
    {"invariant", GC_HIST_K_INVARIANT, "ID", "an invariant (every level, or --level N)"},
    {"frame", GC_HIST_K_FRAME, "N:VIEW", "a frame (level N, view VIEW: default, overview)"},
    {"metric", GC_HIST_K_METRIC, "N:NAME", "a metric of level N (corpus:NAME for a corpus figure)"},
    {"level", GC_HIST_K_LEVEL, "N", "restrict to level N (0..26, or corpus)"},
    {"since", GC_HIST_K_SINCE, "DATE",
     "only runs at or after DATE (2026-12-01 or 2026-12-01T05:00:00Z)"},
};
const gc_opt_group gc_hist_group = GC_OPT_GROUP("item:", hist_opts);

int gc_hist_apply(const gc_opts *p, int key, gc_hist_args *a)
{
    const char *v = p->value;
    char err[256];
    switch (key) {
    case GC_HIST_K_HISTORY:
        a->db = v;
        break;
    case GC_HIST_K_INVARIANT:
        a->q.kind = GC_HIST_INVARIANT;
        a->q.id = v;
        a->item_given++;
        break;
    case GC_HIST_K_FRAME:
    case GC_HIST_K_METRIC:
        a->q.kind = key == GC_HIST_K_FRAME ? GC_HIST_FRAME : GC_HIST_METRIC;
        a->item_given++;
        /* a bare name (every level) is fine for a series */
        if (!strchr(v, ':')) {
            a->q.id = v;
            break;
        }
        if (parse_item(v, a, err, sizeof err, key == GC_HIST_K_FRAME ? "--frame" : "--metric") != 0)
            return gc_opts_bad(p, "%s", err), -1;
        a->level_given = 1;
        break;
    case GC_HIST_K_LEVEL:
        if (parse_level(v, &a->q.level) != 0)
            return gc_opts_bad(p, "--level takes 0..26 or corpus, not '%s'", v), -1;
        a->level_given = 1;
        break;
    case GC_HIST_K_SINCE:
        a->q.since = v;
        break;
    default:
        return 0;
    }
    return 1;
}

gc_history *gc_hist_open_existing(const gc_hist_args *a, const char *cmd)
{
    if (!a->db) {
        fprintf(stderr, "gcverify %s: which database? --history DB (or $GCVERIFY_HISTORY)\n", cmd);
        return NULL;
    }
    if (access(a->db, F_OK) != 0) {
        fprintf(stderr, "gcverify %s: no history database at %s\n", cmd, a->db);
        return NULL;
    }
    char err[1024];
    gc_history *h = gc_history_open(a->db, err, sizeof err);
    if (!h)
        fprintf(stderr, "gcverify %s: %s\n", cmd, err);
    return h;
}
