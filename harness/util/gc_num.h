/* SPDX-License-Identifier: MIT */
/* Whole numbers from text, without the C library's undefined corners: atoi, and scanf's %d,
 * are undefined when the number does not fit an int (fuzz_report found their kin, the casts
 * of out-of-range doubles, in the report reader). */
#ifndef GC_NUM_H
#define GC_NUM_H

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

/* atoi's reading (leading white space, a sign, digits, the rest ignored; no digits is 0),
 * except that a number past int's range reads as INT_MAX or INT_MIN. */
static inline int gc_atoi_clamp(const char *s)
{
    const long v = strtol(s, NULL, 10);
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

/* Whether d is a whole number in [lo, hi] (NaN is not): a double that may be converted to an
 * integer type whose range [lo, hi] is, without undefined behaviour. */
static inline int gc_whole_in(double d, double lo, double hi)
{
    return d >= lo && d <= hi && d == floor(d);
}

/* "K/N" with 1 <= K <= N <= max (a --shard value): 0 with *k, *n set, or -1. */
static inline int gc_parse_shard(const char *s, int max, int *k, int *n)
{
    char *end;
    errno = 0;
    const long a = strtol(s, &end, 10);
    if (end == s || *end != '/' || errno)
        return -1;
    const char *s2 = end + 1;
    const long b = strtol(s2, &end, 10);
    if (end == s2 || *end || errno || b < 1 || b > max || a < 1 || a > b)
        return -1;
    *k = (int)a;
    *n = (int)b;
    return 0;
}

#endif
