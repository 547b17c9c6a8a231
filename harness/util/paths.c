/* SPDX-License-Identifier: MIT */
/* The run-time data directory (gc_paths.h). */
#include "gc_paths.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

const char gc_no_data_dir_message[] =
    "no data directory with the default invariants and goldens: this gcverify is neither "
    "installed (<prefix>/share/gcverify) nor in its build tree; set " GC_DATA_DIR_ENV
    " or pass --invariants DIR (and --baseline F)";

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char data_dir[PATH_MAX];
static char install_prefix[PATH_MAX]; /* realpath of <exe>/.. when installed */
static gc_data_origin origin;

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The build tree's marker: one line, the absolute source directory. */
static int read_marker(const char *dir, char *out, size_t n)
{
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/gcverify-source-dir", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return -1;
    char line[PATH_MAX];
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    line[strcspn(line, "\r\n")] = '\0';
    char inv[PATH_MAX + 16];
    snprintf(inv, sizeof inv, "%s/invariants", line);
    if (line[0] != '/' || !is_dir(inv))
        return -1;
    snprintf(out, n, "%s", line);
    return 0;
}

static void resolve(void)
{
    const char *e = getenv(GC_DATA_DIR_ENV);
    if (e && *e) {
        snprintf(data_dir, sizeof data_dir, "%s", e);
        origin = GC_DATA_ENV;
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0'; /* exe is now the executable's directory */
    char p[PATH_MAX + 64], real[PATH_MAX];
    snprintf(p, sizeof p, "%s/../share/gcverify/invariants", exe);
    if (is_dir(p)) {
        snprintf(p, sizeof p, "%s/../share/gcverify", exe);
        if (realpath(p, real)) {
            snprintf(data_dir, sizeof data_dir, "%s", real);
            snprintf(p, sizeof p, "%s/..", exe);
            if (!realpath(p, install_prefix))
                install_prefix[0] = '\0';
            origin = GC_DATA_INSTALLED;
            return;
        }
    }
    if (read_marker(exe, data_dir, sizeof data_dir) == 0) {
        origin = GC_DATA_BUILD_TREE;
        return;
    }
    snprintf(p, sizeof p, "%s/..", exe);
    if (realpath(p, real) && read_marker(real, data_dir, sizeof data_dir) == 0)
        origin = GC_DATA_BUILD_TREE;
}

const char *gc_data_dir(void)
{
    pthread_once(&once, resolve);
    return data_dir;
}

gc_data_origin gc_data_origin_get(void)
{
    pthread_once(&once, resolve);
    return origin;
}

const char *gc_data_origin_name(gc_data_origin o)
{
    switch (o) {
    case GC_DATA_ENV:
        return GC_DATA_DIR_ENV;
    case GC_DATA_INSTALLED:
        return "installed";
    case GC_DATA_BUILD_TREE:
        return "build tree";
    case GC_DATA_NONE:
        break;
    }
    return "none";
}

int gc_data_path(char *out, size_t n, const char *rel)
{
    const char *d = gc_data_dir();
    if (!d[0]) {
        if (n)
            out[0] = '\0';
        return -1;
    }
    int k = snprintf(out, n, "%s/%s", d, rel);
    if (k < 0 || (size_t)k >= n) {
        if (n)
            out[0] = '\0';
        return -1;
    }
    return 0;
}

const char *gc_data_relative(const char *path)
{
    const char *d = gc_data_dir();
    size_t l = strlen(d);
    if (l && strncmp(path, d, l) == 0 && path[l] == '/')
        return path + l + 1;
    return path;
}

int gc_path_in_installed_data(const char *path)
{
    if (gc_data_origin_get() != GC_DATA_INSTALLED || !install_prefix[0])
        return 0;
    /* the file may not exist yet: resolve its directory */
    char dir[PATH_MAX], real[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (!realpath(dir, real))
        return 0;
    size_t l = strlen(install_prefix);
    return strncmp(real, install_prefix, l) == 0 && (real[l] == '/' || real[l] == '\0');
}
