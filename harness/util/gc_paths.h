/* SPDX-License-Identifier: MIT */
/* Where gcverify's data is at run time: the default invariants (invariants/)
 * and the synthetic corpus's goldens (golden/metrics*.yaml, frames*.yaml,
 * LEDGER.md). Nothing is compiled in; the data directory is, in this order:
 *
 *  1. $GCVERIFY_DATA_DIR, when set and not empty (any directory laid out
 *     like share/gcverify: invariants/ and golden/);
 *  2. <directory of the running executable>/../share/gcverify, when it has
 *     an invariants/ directory: an installed gcverify (`cmake --install`);
 *  3. the source tree named by the file `gcverify-source-dir` that CMake
 *     writes into the build directory, found next to the executable or one
 *     directory up (build/gcverify, build/tests/test_*, build/bench/bench_*):
 *     a build-tree binary uses its own checkout;
 *  4. none: commands that need the defaults say so and ask for --invariants
 *     and --baseline, or GCVERIFY_DATA_DIR.
 *
 * The executable is found through /proc/self/exe (Linux). */
#ifndef GC_PATHS_H
#define GC_PATHS_H

#include <stddef.h>

typedef enum gc_data_origin {
    GC_DATA_NONE = 0,
    GC_DATA_ENV,        /* $GCVERIFY_DATA_DIR */
    GC_DATA_INSTALLED,  /* <exe>/../share/gcverify: read-only, never blessed into */
    GC_DATA_BUILD_TREE, /* the checkout a build-tree binary was built from */
} gc_data_origin;

#define GC_DATA_DIR_ENV "GCVERIFY_DATA_DIR"

/* The data directory ("" when there is none). Resolved once, thread-safe. */
const char *gc_data_dir(void);
gc_data_origin gc_data_origin_get(void);
const char *gc_data_origin_name(gc_data_origin o); /* "GCVERIFY_DATA_DIR", "installed", ... */

/* What to tell the user when a default is needed and there is no data dir. */
extern const char gc_no_data_dir_message[];

/* "<data dir>/<rel>" into out; "" (and -1) when there is no data directory
 * or it does not fit. */
int gc_data_path(char *out, size_t n, const char *rel);

/* path relative to the data directory when it lies inside it (so reports and
 * the ledger read the same from every checkout and install), else path. */
const char *gc_data_relative(const char *path);

/* 1 when path (a file that may not exist yet) lies inside the data directory
 * of an installed gcverify: bless must never write there. */
int gc_path_in_installed_data(const char *path);

#endif
