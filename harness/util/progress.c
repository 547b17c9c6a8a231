/* SPDX-License-Identifier: MIT */
/* The terminal progress line (gc_progress.h). */
#include "gc_progress.h"

#include <time.h>

static void clock_text(char *buf, size_t n, double s)
{
    if (s < 0)
        s = 0;
    unsigned long t = (unsigned long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%lu:%02lu", t / 60, t % 60);
}

int gc_progress_format(char *buf, size_t n, const char *what, const char *unit, size_t done,
                       size_t total, double elapsed_s, const char *item)
{
    char el[32], eta[32];
    clock_text(el, sizeof el, elapsed_s);
    if (done == 0 || done > total)
        snprintf(eta, sizeof eta, "-:--");
    else
        clock_text(eta, sizeof eta, elapsed_s * (double)(total - done) / (double)done);
    unsigned pct = total ? (unsigned)(done * 100 / total) : 100;
    return snprintf(buf, n, "%s  %zu/%zu %s  %3u%%  elapsed %s  ETA %s%s%s", what, done, total,
                    unit, pct, el, eta, item && *item ? "  " : "", item ? item : "");
}

void gc_progress_draw(FILE *f, const char *what, const char *unit, size_t done, size_t total,
                      double elapsed_s, const char *item)
{
    char line[256];
    gc_progress_format(line, sizeof line, what, unit, done, total, elapsed_s, item);
    fprintf(f, "\r%s\033[K%s", line, done >= total ? "\n" : "");
    fflush(f);
}

double gc_progress_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
