/* SPDX-License-Identifier: MIT */
/* The one updating progress line of long commands (sweep, synth) on a
 * terminal: count, percentage, elapsed time and ETA, redrawn in place with a
 * carriage return. Off a terminal the commands keep their line per item,
 * which logs and CI pages read better. */
#ifndef GC_PROGRESS_H
#define GC_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

/* The text of the line, without the carriage return:
 *   "sweep  12/27 levels  44%  elapsed 0:03  ETA 0:04  LEVEL7.WAD"
 * ETA is elapsed * (total - done) / done ("ETA -:--" before the first item);
 * times are m:ss, or h:mm:ss from an hour. Returns the length (snprintf's). */
int gc_progress_format(char *buf, size_t n, const char *what, const char *unit, size_t done,
                       size_t total, double elapsed_s, const char *item);

/* Draw it on f: "\r" + the text + "\033[K" (erase what a longer previous line
 * left), and a newline once done == total, so what follows starts clean. */
void gc_progress_draw(FILE *f, const char *what, const char *unit, size_t done, size_t total,
                      double elapsed_s, const char *item);

/* CLOCK_MONOTONIC seconds, for elapsed times. */
double gc_progress_now(void);

#endif
