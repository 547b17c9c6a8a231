/* SPDX-License-Identifier: MIT */
/* Atomic file writes and small file-system helpers (gc_fsutil.h says the
 * rules: "-" is stdout, symlinks are followed, regular files are replaced
 * with temp + fsync + rename + fsync(dir), devices and FIFOs are written
 * through, directories and block devices are refused). */
#include "gc_fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static atomic_uint tmp_counter;

#define ERR(...)                                                                                   \
    do {                                                                                           \
        if (err && errlen)                                                                         \
            snprintf(err, errlen, __VA_ARGS__);                                                    \
    } while (0)

static int write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int gc_resolve_path(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
    char cur[PATH_MAX];
    if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur) {
        ERR("path too long: %.200s", path);
        return -1;
    }
    for (int hops = 0;; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            break;
        if (hops == 40) {
            ERR("%s: too many levels of symbolic links", path);
            return -1;
        }
        char link[PATH_MAX];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            ERR("cannot read the symbolic link %s: %s", cur, strerror(errno));
            return -1;
        }
        link[n] = '\0';
        char next[PATH_MAX];
        const char *slash = strrchr(cur, '/');
        if (link[0] == '/' || !slash)
            snprintf(next, sizeof next, "%s", link);
        else if (snprintf(next, sizeof next, "%.*s/%s", (int)(slash - cur), cur, link) >=
                 (int)sizeof next) {
            ERR("path too long: %.200s", path);
            return -1;
        }
        memcpy(cur, next, sizeof cur);
    }
    if (snprintf(out, outlen, "%s", cur) >= (int)outlen) {
        ERR("path too long: %.200s", path);
        return -1;
    }
    return 0;
}

int gc_fsync_parent(const char *path)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    /* some file systems cannot fsync a directory; that is not a failed write */
    if (rc != 0 && (errno == EINVAL || errno == ENOTSUP))
        rc = 0;
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int gc_is_temp_of(const char *name, const char *base)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".tmp.", 5) != 0)
        return 0;
    const char *p = name + bl + 5;
    int dots = 0, digits = 0;
    for (; *p; p++) {
        if (*p == '.') {
            if (!digits)
                return 0;
            dots++;
            digits = 0;
        } else if (*p >= '0' && *p <= '9') {
            digits++;
        } else {
            return 0;
        }
    }
    return dots == 1 && digits > 0;
}

/* What kind of target path is: 0 missing or regular (replace atomically),
 * 1 write through (character device, FIFO), -1 refused (err filled). */
static int target_kind(const char *path, struct stat *st, int *exists, char *err, size_t errlen)
{
    *exists = 0;
    if (stat(path, st) != 0) {
        if (errno == ENOENT)
            return 0;
        ERR("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    *exists = 1;
    if (S_ISREG(st->st_mode))
        return 0;
    if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode))
        return 1;
    ERR("cannot write %s: it is %s", path,
        S_ISDIR(st->st_mode)    ? "a directory"
        : S_ISBLK(st->st_mode)  ? "a block device (refused: gcverify never writes to a disk)"
        : S_ISSOCK(st->st_mode) ? "a socket"
                                : "not a regular file");
    return -1;
}

int gc_stage_file(const char *path, const void *data, size_t len, char *final, size_t finallen,
                  char *tmp, size_t tmplen, char *err, size_t errlen)
{
    if (gc_resolve_path(path, final, finallen, err, errlen) != 0)
        return -1;
    struct stat st;
    int exists;
    int kind = target_kind(final, &st, &exists, err, errlen);
    if (kind != 0) {
        if (kind > 0)
            ERR("cannot replace %s: it is not a regular file", final);
        return -1;
    }
    if (snprintf(tmp, tmplen, "%s.tmp.%ld.%u", final, (long)getpid(),
                 atomic_fetch_add(&tmp_counter, 1)) >= (int)tmplen) {
        ERR("path too long: %.200s", final);
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        ERR("cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    /* a replaced file keeps its permissions */
    if (exists)
        (void)fchmod(fd, st.st_mode & 07777);
    const char *what = "write";
    int bad = write_all(fd, data, len) != 0;
    if (!bad && fsync(fd) != 0) {
        what = "fsync";
        bad = 1;
    }
    int e = errno;
    if (close(fd) != 0 && !bad) {
        what = "close";
        bad = 1;
        e = errno;
    }
    if (bad) {
        ERR("cannot %s %s: %s", what, tmp, strerror(e));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int gc_commit_file(const char *tmp, const char *final, char *err, size_t errlen)
{
    if (rename(tmp, final) != 0) {
        ERR("cannot rename %s to %s: %s", tmp, final, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (gc_fsync_parent(final) != 0) {
        ERR("cannot fsync the directory of %s: %s", final, strerror(errno));
        return -1;
    }
    return 0;
}

int gc_write_stdout(const void *data, size_t len, char *err, size_t errlen)
{
    if ((len && fwrite(data, 1, len, stdout) != len) || fflush(stdout) != 0 || ferror(stdout)) {
        ERR("cannot write standard output: %s", strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int gc_write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0)
        return gc_write_stdout(data, len, err, errlen);
    char final[PATH_MAX], tmp[PATH_MAX + 64];
    if (gc_resolve_path(path, final, sizeof final, err, errlen) != 0)
        return -1;
    struct stat st;
    int exists;
    int kind = target_kind(final, &st, &exists, err, errlen);
    if (kind < 0)
        return -1;
    if (kind > 0) {
        /* write through: a device or a pipe is never replaced by a file */
        int fd = open(final, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
            ERR("cannot open %s: %s", final, strerror(errno));
            return -1;
        }
        int bad = write_all(fd, data, len) != 0;
        int e = errno;
        if (close(fd) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        if (bad) {
            ERR("cannot write %s: %s", final, strerror(e));
            return -1;
        }
        return 0;
    }
    if (gc_stage_file(final, data, len, final, sizeof final, tmp, sizeof tmp, err, errlen) != 0)
        return -1;
    return gc_commit_file(tmp, final, err, errlen);
}

int gc_close_stdout(char *err, size_t errlen)
{
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        ERR("cannot write standard output: %s", strerror(e ? e : EIO));
        return -1;
    }
    return 0;
}

char *gc_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ERR("cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
    }
    int bad = ferror(f);
    int e = errno;
    fclose(f);
    if (!buf || bad) {
        free(buf);
        ERR("cannot read %s: %s", path, bad ? strerror(e) : "out of memory");
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int gc_mkdir_p(const char *dir, char *err, size_t errlen)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
        ERR("path too long: %.200s", dir);
        return -1;
    }
    size_t n = strlen(p);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] == '/' || p[i] == '\0') {
            char c = p[i];
            p[i] = '\0';
            if (mkdir(p, 0777) != 0) {
                struct stat st;
                if (errno != EEXIST) {
                    ERR("cannot create directory %s: %s", p, strerror(errno));
                    return -1;
                }
                /* EEXIST for a file (or a symlink to one) is not a directory */
                if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
                    ERR("cannot create directory %s: a file of that name exists", p);
                    return -1;
                }
            }
            p[i] = c;
        }
    }
    return 0;
}

void gc_rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                char sub[PATH_MAX];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                gc_rm_rf(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}
