/* SPDX-License-Identifier: MIT */
/* Hardening around the decoders (issue 16): hostile inputs, checked outputs,
 * bless as a transaction, the memory budget, and the invariant loader's
 * limits. Most of these are process-level behaviours (exit codes, a hang,
 * SIGBUS, a kill half-way through bless), so they run the built gcverify as
 * a child process with a timeout. Runs on the small synthetic corpus. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gc_corpus.h"
#include "gc_fsutil.h"
#include "sy_corpus.h"

#define GCV GC_BINARY_DIR "/gcverify"

static void setup(void)
{
    setenv("GC_CACHE_DIR", GC_BINARY_DIR "/test-cache", 1);
    static const char *const ci[] = {"CI",          "GITHUB_ACTIONS",
                                     "GITLAB_CI",   "BUILDKITE",
                                     "JENKINS_URL", "GC_TEST_BLESS_KILL_AFTER_RENAMES"};
    for (size_t i = 0; i < sizeof ci / sizeof ci[0]; i++)
        unsetenv(ci[i]);
}

static void tmpdir(char *out, size_t n, const char *tag)
{
    snprintf(out, n, "%s/test-tmp/harden-%s-%ld", GC_BINARY_DIR, tag, (long)getpid());
    gc_rm_rf(out);
    char err[256];
    cr_assert_eq(gc_mkdir_p(out, err, sizeof err), 0, "%s", err);
}

static const char *small_corpus(void)
{
    static char dir[4096];
    char err[1024] = "";
    cr_assert_eq(gc_corpus_synthetic(SY_SCALE_SMALL, 1, 2, 0, dir, sizeof dir, err, sizeof err), 0,
                 "%s", err);
    return dir;
}

static void copy_file(const char *from, const char *to)
{
    char err[1024];
    size_t len;
    char *d = gc_read_file(from, &len, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    cr_assert_eq(gc_write_file_atomic(to, d, len, err, sizeof err), 0, "%s", err);
    free(d);
}

static void copy_level(const char *corpus, int level, const char *dir, const char *name)
{
    char from[4200], to[4200];
    snprintf(from, sizeof from, "%s/LEVEL%d.WAD", corpus, level);
    if (name)
        snprintf(to, sizeof to, "%s/%s", dir, name);
    else
        snprintf(to, sizeof to, "%s/LEVEL%d.WAD", dir, level);
    copy_file(from, to);
}

static void put(const char *path, const char *text)
{
    char err[1024];
    cr_assert_eq(gc_write_file_atomic(path, text, strlen(text), err, sizeof err), 0, "%s", err);
}

static char *slurp(const char *path)
{
    char err[1024];
    char *s = gc_read_file(path, NULL, err, sizeof err);
    return s ? s : strdup("");
}

/* ---- child processes ---- */

typedef struct child {
    pid_t pid;
    int err_fd; /* read end of the child's stderr when piped, else -1 */
} child;

/* Start gcverify with argv (argv[0] is ignored); stdout to out (NULL:
 * /dev/null), stderr to errf, or to a pipe when errf is "|". */
static child start(const char *out, const char *errf, char *const argv[])
{
    int pfd[2] = {-1, -1};
    if (errf && strcmp(errf, "|") == 0)
        cr_assert_eq(pipe(pfd), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0)
            o = open(out, O_WRONLY); /* a device or FIFO */
        if (o >= 0)
            dup2(o, 1);
        if (pfd[1] >= 0) {
            dup2(pfd[1], 2);
            close(pfd[0]);
        } else {
            int e = open(errf ? errf : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (e >= 0)
                dup2(e, 2);
        }
        execv(GCV, argv);
        _exit(127);
    }
    if (pfd[1] >= 0)
        close(pfd[1]);
    child c = {pid, pfd[0]};
    return c;
}

/* Wait at most timeout_s; a child still running is killed and -1 returned.
 * Otherwise the wait status. ru (optional) gets the child's usage. */
static int finish(child c, int timeout_s, struct rusage *ru)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int st;
        struct rusage r;
        pid_t w = wait4(c.pid, &st, WNOHANG, &r);
        if (w == c.pid) {
            if (ru)
                *ru = r;
            if (c.err_fd >= 0)
                close(c.err_fd);
            return st;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec >= timeout_s) {
            kill(c.pid, SIGKILL);
            waitpid(c.pid, &st, 0);
            if (c.err_fd >= 0)
                close(c.err_fd);
            return -1;
        }
        struct timespec d = {0, 20 * 1000 * 1000};
        nanosleep(&d, NULL);
    }
}

static int exit_code(int st)
{
    cr_assert_neq(st, -1, "gcverify did not finish in time (hung)");
    cr_assert(WIFEXITED(st), "gcverify was killed by signal %d",
              WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return WEXITSTATUS(st);
}

/* The time limits here are hang guards, not measurements: generous enough for the
 * Debug ASan+UBSan build (ci/sanitize.sh) sweeping the small corpus with every
 * decoder, the lighting pass and the frames, on a loaded 2-core machine. */
static int run(const char *out, const char *errf, int timeout_s, char *const argv[])
{
    return exit_code(finish(start(out, errf, argv), timeout_s, NULL));
}

/* Read the child's piped stderr until a line contains needle (1) or it
 * closes or timeout_s passes (0). Everything read goes to log. */
static int wait_for_line(child *c, const char *needle, int timeout_s, char *log, size_t loglen)
{
    size_t n = strlen(log);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (strstr(log, needle))
            return 1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec >= timeout_s)
            return 0;
        struct pollfd p = {c->err_fd, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0)
            continue;
        if (n + 1 >= loglen)
            return 0;
        ssize_t r = read(c->err_fd, log + n, loglen - n - 1);
        if (r <= 0)
            return strstr(log, needle) != NULL;
        n += (size_t)r;
        log[n] = '\0';
    }
}

/* ==== inputs ==== */

Test(inputs, fifo_named_like_a_level_is_refused_not_waited_for, .init = setup, .timeout = 400)
{
    const char *corpus = small_corpus();
    char dir[1024], fifo[1200], json[1200];
    tmpdir(dir, sizeof dir, "fifo");
    copy_level(corpus, 0, dir, NULL);
    snprintf(fifo, sizeof fifo, "%s/LEVEL7.WAD", dir);
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    snprintf(json, sizeof json, "%s/r.json", dir);
    char *argv[] = {"gcverify",   "sweep", "--corpus", dir,      "--levels", "0,7", "--no-frames",
                    "--baseline", "none",  "--quiet",  "--json", json,       NULL};
    int rc = run(NULL, NULL, 200, argv);
    cr_assert_eq(rc, 4, "a FIFO level is part of the corpus that cannot be read (exit %d)", rc);
    char *r = slurp(json);
    cr_assert(strstr(r, "is not a regular file (a FIFO)"), "the report names the FIFO: %.400s", r);
    free(r);
}

Test(inputs, level_truncated_while_the_sweep_runs_is_that_levels_error, .init = setup,
     .timeout = 900)
{
    const char *corpus = small_corpus();
    char dir[1024], json[1200], victim[1200];
    tmpdir(dir, sizeof dir, "shrink");
    for (int i = 0; i < 27; i++)
        copy_level(corpus, i, dir, NULL);
    snprintf(json, sizeof json, "%s/r.json", dir);
    snprintf(victim, sizeof victim, "%s/LEVEL26.WAD", dir);
    /* one job: the levels run in order, so LEVEL26 is read long after the
     * corpus was opened and after the first progress line */
    char *argv[] = {"gcverify",    "sweep",      "--corpus", dir,      "--jobs", "1",
                    "--no-frames", "--baseline", "none",     "--json", json,     NULL};
    child c = start(NULL, "|", argv);
    static char log[65536];
    log[0] = '\0';
    cr_assert(wait_for_line(&c, "sweep: 1/27", 120, log, sizeof log), "no progress line: %s", log);
    cr_assert_eq(truncate(victim, 4096), 0);
    int rc = exit_code(finish(c, 240, NULL));
    cr_assert_eq(rc, 4, "exit %d", rc);
    char *r = slurp(json);
    cr_assert(strstr(r, "shrank from"), "LEVEL26's error row says it shrank: %.300s", r);
    /* the 26 other levels are reported as loaded */
    size_t loaded = 0;
    for (const char *p = r; (p = strstr(p, "\"loaded\": true")) != NULL; p++)
        loaded++;
    cr_assert_eq(loaded, 26, "%zu levels loaded", loaded);
    free(r);
}

Test(inputs, names_differing_only_in_case_are_warned_and_resolved, .init = setup, .timeout = 400)
{
    const char *corpus = small_corpus();
    char dir[1024], json[1200], errf[1200], junk[1200];
    tmpdir(dir, sizeof dir, "case");
    copy_level(corpus, 3, dir, "LEVEL3.WAD");
    snprintf(junk, sizeof junk, "%s/level3.wad", dir);
    put(junk, "not a level at all");
    snprintf(json, sizeof json, "%s/r.json", dir);
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    char *argv[] = {"gcverify",   "sweep", "--corpus", dir,      "--levels", "3", "--no-frames",
                    "--baseline", "none",  "--quiet",  "--json", json,       NULL};
    int rc = run(NULL, errf, 60, argv);
    char *e = slurp(errf), *r = slurp(json);
    cr_assert(strstr(e, "LEVEL3.WAD") && strstr(e, "level3.wad") && strstr(e, "using LEVEL3.WAD"),
              "the warning names both files and the one used: %s", e);
    cr_assert(strstr(r, "\"file\": \"LEVEL3.WAD\""), "the canonical spelling is used: %.300s", r);
    cr_assert_lt(rc, 2);
    free(e);
    free(r);
}

Test(inputs, part_of_the_corpus_unreadable_is_exit_4_none_readable_exit_3, .init = setup,
     .timeout = 400)
{
    const char *corpus = small_corpus();
    char dir[1024], sub[1200];
    tmpdir(dir, sizeof dir, "partial");
    copy_level(corpus, 0, dir, NULL);
    snprintf(sub, sizeof sub, "%s/LEVEL5.WAD", dir);
    cr_assert_eq(mkdir(sub, 0755), 0); /* a directory named like a level */
    char *missing[] = {"gcverify",    "sweep",      "--corpus", dir,       "--levels", "0,9",
                       "--no-frames", "--baseline", "none",     "--quiet", NULL};
    cr_assert_eq(run(NULL, NULL, 200, missing), 4, "a missing level");
    char *isdir[] = {"gcverify",    "sweep",      "--corpus", dir,       "--levels", "0,5",
                     "--no-frames", "--baseline", "none",     "--quiet", NULL};
    cr_assert_eq(run(NULL, NULL, 200, isdir), 4, "a directory as a level");
    char *fine[] = {"gcverify",    "sweep",      "--corpus", dir,       "--levels", "0",
                    "--no-frames", "--baseline", "none",     "--quiet", NULL};
    cr_assert_eq(run(NULL, NULL, 200, fine), 0, "the readable level alone passes");
    char empty[1200];
    snprintf(empty, sizeof empty, "%s/none", dir);
    cr_assert_eq(mkdir(empty, 0755), 0);
    char *none[] = {"gcverify",   "sweep", "--corpus", empty, "--no-frames",
                    "--baseline", "none",  "--quiet",  NULL};
    cr_assert_eq(run(NULL, NULL, 200, none), 3, "no level readable");
    /* the one-level commands use the same code for the same cause */
    char png[1300];
    snprintf(png, sizeof png, "%s/x.png", dir);
    char *render[] = {"gcverify", "render", "--corpus", dir, "--level", "9", "-o", png, NULL};
    cr_assert_eq(run(NULL, NULL, 200, render), 3);
}

/* ==== outputs ==== */

Test(outputs, every_failed_write_exits_5, .init = setup, .timeout = 900)
{
    small_corpus();
    char dir[1024], file[1200], missing[1200];
    tmpdir(dir, sizeof dir, "writes");
    snprintf(file, sizeof file, "%s/regular", dir);
    put(file, "x");
    snprintf(missing, sizeof missing, "%s/no/such/dir/t.json", dir);
    char *json[] = {"gcverify",   "sweep", "--scale", "small",  "--levels", "0", "--no-frames",
                    "--baseline", "none",  "--quiet", "--json", "-",        NULL};
    cr_assert_eq(run("/dev/full", NULL, 120, json), 5, "--json - > /dev/full");
    char *junit[] = {"gcverify",   "sweep", "--scale", "small",   "--levels", "0", "--no-frames",
                     "--baseline", "none",  "--quiet", "--junit", "-",        NULL};
    cr_assert_eq(run("/dev/full", NULL, 120, junit), 5, "--junit - > /dev/full");
    char *summary[] = {"gcverify", "sweep",       "--scale",    "small", "--levels",
                       "0",        "--no-frames", "--baseline", "none",  NULL};
    cr_assert_eq(run("/dev/full", NULL, 120, summary), 5, "the summary > /dev/full");
    char *list[] = {"gcverify", "list", NULL};
    cr_assert_eq(run("/dev/full", NULL, 60, list), 5, "list > /dev/full");
    char *timings[] = {"gcverify",  "sweep",       "--scale",    "small", "--levels",
                       "0",         "--no-frames", "--baseline", "none",  "--quiet",
                       "--timings", missing,       NULL};
    cr_assert_eq(run(NULL, NULL, 400, timings), 5, "--timings into a missing directory");
    char *frames_out[] = {"gcverify", "sweep",           "--scale", "small",      "--levels",
                          "0",        "--frames-golden", "none",    "--baseline", "none",
                          "--quiet",  "--frames-out",    file,      NULL};
    cr_assert_eq(run(NULL, NULL, 400, frames_out), 5, "--frames-out naming a regular file");
    char *fields[] = {"gcverify", "fields", NULL};
    cr_assert_eq(run("/dev/full", NULL, 60, fields), 5, "fields > /dev/full");
}

static void *read_fifo(void *arg)
{
    const char *path = arg;
    int fd = open(path, O_RDONLY);
    char buf[4096];
    size_t total = 0;
    ssize_t n;
    while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
        total += (size_t)n;
    if (fd >= 0)
        close(fd);
    return (void *)total;
}

Test(outputs, devices_fifos_and_symlinks_are_written_through_and_dash_is_stdout, .init = setup,
     .timeout = 900)
{
    small_corpus();
    char dir[1024], fifo[1200], link[1200], target[1200];
    tmpdir(dir, sizeof dir, "through");
    /* a FIFO target: written through (a reader gets the report), still a FIFO */
    snprintf(fifo, sizeof fifo, "%s/report.fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    pid_t reader = fork();
    if (reader == 0) {
        alarm(100); /* a writer that never opens the FIFO must not hang the test */
        _exit((size_t)read_fifo(fifo) > 100 ? 0 : 1);
    }
    char *json[] = {"gcverify",   "sweep", "--scale", "small",  "--levels", "0", "--no-frames",
                    "--baseline", "none",  "--quiet", "--json", fifo,       NULL};
    cr_assert_eq(run(NULL, NULL, 400, json), 0);
    int st;
    waitpid(reader, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the FIFO's reader got the report");
    struct stat sb;
    cr_assert_eq(lstat(fifo, &sb), 0);
    cr_assert(S_ISFIFO(sb.st_mode), "the FIFO was replaced by a regular file");
    /* a symlink: its target is written, the link stays a link */
    snprintf(target, sizeof target, "%s/target.json", dir);
    snprintf(link, sizeof link, "%s/link.json", dir);
    put(target, "old");
    cr_assert_eq(symlink("target.json", link), 0);
    char *viasym[] = {"gcverify",   "sweep", "--scale", "small",  "--levels", "0", "--no-frames",
                      "--baseline", "none",  "--quiet", "--json", link,       NULL};
    cr_assert_eq(run(NULL, NULL, 400, viasym), 0);
    cr_assert_eq(lstat(link, &sb), 0);
    cr_assert(S_ISLNK(sb.st_mode), "the symlink was replaced by a regular file");
    char *t = slurp(target);
    cr_assert(strstr(t, "\"results\""), "the symlink's target holds the report");
    free(t);
    /* a character device (as root: a private copy of /dev/null's numbers) */
    char dev[1200];
    snprintf(dev, sizeof dev, "%s/null.dev", dir);
    if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        char *render[] = {"gcverify", "render", "--scale", "small", "--level",
                          "0",        "-o",     dev,       NULL};
        cr_assert_eq(run(NULL, NULL, 400, render), 0);
        cr_assert_eq(lstat(dev, &sb), 0);
        cr_assert(S_ISCHR(sb.st_mode), "render -o replaced a device node with a file");
    } else {
        cr_log_warn("not root: the device-node case is skipped (%s)", strerror(errno));
    }
    /* "-" is stdout for wad decompress too: no file named "-" appears */
    char wad[1200], out1[1200], out2[1200], dash[1200];
    snprintf(wad, sizeof wad, "%s/LEVEL0.WAD", small_corpus());
    snprintf(out1, sizeof out1, "%s/stdout.bin", dir);
    snprintf(out2, sizeof out2, "%s/file.bin", dir);
    snprintf(dash, sizeof dash, "%s/-", dir);
    char off[32];
    /* the gameplay extent of the level: header 0x20 holds its offset in sectors */
    FILE *f = fopen(wad, "rb");
    cr_assert_not_null(f);
    unsigned char hdr[0x28];
    cr_assert_eq(fread(hdr, 1, sizeof hdr, f), sizeof hdr);
    fclose(f);
    unsigned sect = hdr[0x20] | hdr[0x21] << 8 | hdr[0x22] << 16 | (unsigned)hdr[0x23] << 24;
    snprintf(off, sizeof off, "%u", sect * 2048u);
    cr_assert_eq(chdir(dir), 0);
    char *tostdout[] = {"gcverify", "wad", "decompress", wad, "-", "--offset", off, NULL};
    cr_assert_eq(run(out1, NULL, 60, tostdout), 0);
    char *tofile[] = {"gcverify", "wad", "decompress", wad, out2, "--offset", off, NULL};
    cr_assert_eq(run(NULL, NULL, 200, tofile), 0);
    cr_assert_neq(access(dash, F_OK), 0, "wad decompress IN - wrote a file named '-'");
    size_t l1, l2;
    char err[256];
    char *a = gc_read_file(out1, &l1, err, sizeof err),
         *b = gc_read_file(out2, &l2, err, sizeof err);
    cr_assert(a && b && l1 == l2 && l1 > 0 && memcmp(a, b, l1) == 0,
              "stdout holds exactly the decompressed stream (%zu vs %zu bytes)", l1, l2);
    free(a);
    free(b);
}

/* fsync is wrapped at link time for this executable (tests/CMakeLists.txt):
 * count the regular files and directories it is called on. */
int __real_fsync(int fd);
static int fsync_files, fsync_dirs;
int __wrap_fsync(int fd);
int __wrap_fsync(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0) {
        if (S_ISREG(st.st_mode))
            fsync_files++;
        else if (S_ISDIR(st.st_mode))
            fsync_dirs++;
    }
    return __real_fsync(fd);
}

Test(outputs, atomic_writes_fsync_the_file_and_its_directory, .init = setup)
{
    char dir[1024], path[1200], err[256];
    tmpdir(dir, sizeof dir, "fsync");
    snprintf(path, sizeof path, "%s/golden.yaml", dir);
    fsync_files = fsync_dirs = 0;
    cr_assert_eq(gc_write_file_atomic(path, "a: 1\n", 5, err, sizeof err), 0, "%s", err);
    cr_assert_geq(fsync_files, 1, "the new file was not fsynced before the rename");
    cr_assert_geq(fsync_dirs, 1, "the directory was not fsynced after the rename");
    char *t = slurp(path);
    cr_assert_str_eq(t, "a: 1\n");
    free(t);
}

/* ==== bless ==== */

static void bless_paths(const char *dir, char *metrics, char *frames, char *ledger, size_t n)
{
    snprintf(metrics, n, "%s/metrics.yaml", dir);
    snprintf(frames, n, "%s/frames.yaml", dir);
    snprintf(ledger, n, "%s/LEDGER.md", dir);
}

Test(bless, a_refused_bless_writes_nothing, .init = setup, .timeout = 400)
{
    const char *corpus = small_corpus();
    char dir[1024], cdir[1200], m[1200], fr[1200], l[1200], lv[1300];
    tmpdir(dir, sizeof dir, "refused");
    snprintf(cdir, sizeof cdir, "%s/corpus", dir);
    cr_assert_eq(mkdir(cdir, 0755), 0);
    bless_paths(dir, m, fr, l, sizeof m);
    /* a level cut inside its data: its frames are in error */
    char src[4200], err[256];
    snprintf(src, sizeof src, "%s/LEVEL0.WAD", corpus);
    size_t len;
    char *d = gc_read_file(src, &len, err, sizeof err);
    cr_assert_not_null(d);
    snprintf(lv, sizeof lv, "%s/LEVEL0.WAD", cdir);
    cr_assert_eq(gc_write_file_atomic(lv, d, 5000, err, sizeof err), 0);
    free(d);
    char *argv[] = {"gcverify", "bless",    "--reason", "r",          "--frames", "--corpus",
                    cdir,       "--levels", "0",        "--baseline", m,          "--frames-golden",
                    fr,         "--ledger", l,          NULL};
    cr_assert_eq(run(NULL, NULL, 400, argv), 1);
    cr_assert_neq(access(m, F_OK), 0, "a refused bless wrote metrics");
    cr_assert_neq(access(fr, F_OK), 0, "a refused bless wrote frames");
    cr_assert_neq(access(l, F_OK), 0, "a refused bless wrote the ledger");
}

/* Entries of dir whose names hold ".tmp." (the atomic writer's staged files). */
static int count_temps(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot list %s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

Test(bless, a_bless_killed_between_renames_is_completed_by_the_next, .init = setup, .timeout = 900)
{
    small_corpus();
    char dir[1024], m[1200], fr[1200], l[1200], journal[1200], stale[1200];
    tmpdir(dir, sizeof dir, "killed");
    bless_paths(dir, m, fr, l, sizeof m);
    snprintf(journal, sizeof journal, "%s/.gcverify-bless.journal", dir);
    char *first[] = {"gcverify", "bless",      "--reason", "first of two",
                     "--frames", "--scale",    "small",    "--levels",
                     "0",        "--baseline", m,          "--frames-golden",
                     fr,         "--ledger",   l,          NULL};
    setenv("GC_TEST_BLESS_KILL_AFTER_RENAMES", "1", 1);
    int st = finish(start(NULL, NULL, first), 120, NULL);
    unsetenv("GC_TEST_BLESS_KILL_AFTER_RENAMES");
    cr_assert(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
              "the test hook did not stop bless after its first rename");
    cr_assert_eq(access(m, F_OK), 0, "the first rename (metrics) happened");
    cr_assert_neq(access(fr, F_OK), 0, "frames were renamed too early");
    cr_assert_neq(access(l, F_OK), 0, "the ledger was renamed too early");
    cr_assert_eq(access(journal, F_OK), 0, "no journal names the pending renames");
    cr_assert_eq(count_temps(dir), 2, "the two staged files wait beside their targets");
    /* a temp file of a bless killed before its journal existed */
    snprintf(stale, sizeof stale, "%s/metrics.yaml.tmp.999999.3", dir);
    put(stale, "half-written");
    char errf[1300];
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    char *second[] = {"gcverify", "bless",      "--reason", "second of two",
                      "--frames", "--scale",    "small",    "--levels",
                      "0",        "--baseline", m,          "--frames-golden",
                      fr,         "--ledger",   l,          NULL};
    cr_assert_eq(run(NULL, errf, 120, second), 0);
    char *e = slurp(errf);
    cr_assert(strstr(e, "completed an interrupted bless"), "%s", e);
    cr_assert(strstr(e, "removed a stale temporary file"), "%s", e);
    free(e);
    cr_assert_neq(access(journal, F_OK), 0, "the journal was left behind");
    cr_assert_eq(count_temps(dir), 0, "temporary files were left behind");
    char *ledger = slurp(l), *frames = slurp(fr);
    cr_assert(strstr(ledger, "first of two") && strstr(ledger, "second of two"),
              "both blesses are in the ledger: %s", ledger);
    cr_assert(strstr(frames, "level: 0"), "frames were completed: %s", frames);
    free(ledger);
    free(frames);
}

Test(bless, an_unreadable_ledger_is_never_replaced, .init = setup, .timeout = 400)
{
    small_corpus();
    char dir[1024], m[1200], fr[1200], l[1200], inside[1300];
    tmpdir(dir, sizeof dir, "ledger");
    bless_paths(dir, m, fr, l, sizeof m);
    /* a ledger that exists but cannot be read as a file (root reads any
     * file, so a directory stands in for an unreadable one) */
    cr_assert_eq(mkdir(l, 0755), 0);
    snprintf(inside, sizeof inside, "%s/history", l);
    put(inside, "the old history");
    char *argv[] = {"gcverify", "bless",       "--reason",   "r", "--scale",  "small", "--levels",
                    "0",        "--no-frames", "--baseline", m,   "--ledger", l,       NULL};
    cr_assert_eq(run(NULL, NULL, 400, argv), 2);
    cr_assert_neq(access(m, F_OK), 0, "the baseline was written with no ledger entry");
    char *h = slurp(inside);
    cr_assert_str_eq(h, "the old history");
    free(h);
}

Test(bless, holds_an_exclusive_lock_for_the_whole_bless, .init = setup, .timeout = 900)
{
    small_corpus();
    char dir[1024], m[1200], fr[1200], l[1200], lock[1200];
    tmpdir(dir, sizeof dir, "lock");
    bless_paths(dir, m, fr, l, sizeof m);
    snprintf(lock, sizeof lock, "%s/.gcverify-bless.lock", dir);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    cr_assert_geq(fd, 0);
    cr_assert_eq(flock(fd, LOCK_EX), 0);
    char *argv[] = {"gcverify", "bless",    "--reason", "waited",      "--scale",
                    "small",    "--levels", "0",        "--no-frames", "--baseline",
                    m,          "--ledger", l,          NULL};
    child c = start(NULL, "|", argv);
    static char log[65536];
    log[0] = '\0';
    cr_assert(wait_for_line(&c, "waiting for another bless", 60, log, sizeof log),
              "bless did not wait for the lock: %s", log);
    cr_assert_eq(waitpid(c.pid, NULL, WNOHANG), 0, "bless finished while the lock was held");
    cr_assert_neq(access(l, F_OK), 0, "bless wrote while another held the lock");
    close(fd);
    cr_assert_eq(exit_code(finish(c, 120, NULL)), 0);
    /* two at once: both entries survive */
    char *a1[] = {"gcverify", "bless", "--reason",    "concurrent one", "--scale", "small",
                  "--levels", "0",     "--no-frames", "--baseline",     m,         "--ledger",
                  l,          NULL};
    char *a2[] = {"gcverify", "bless", "--reason",    "concurrent two", "--scale", "small",
                  "--levels", "0",     "--no-frames", "--baseline",     m,         "--ledger",
                  l,          NULL};
    child c1 = start(NULL, NULL, a1), c2 = start(NULL, NULL, a2);
    cr_assert_eq(exit_code(finish(c1, 120, NULL)), 0);
    cr_assert_eq(exit_code(finish(c2, 120, NULL)), 0);
    char *t = slurp(l);
    cr_assert(strstr(t, "waited") && strstr(t, "concurrent one") && strstr(t, "concurrent two"),
              "a ledger entry was lost: %s", t);
    free(t);
}

Test(bless, refuses_under_every_ci_variable, .init = setup, .timeout = 400)
{
    small_corpus();
    char dir[1024], m[1200], fr[1200], l[1200];
    tmpdir(dir, sizeof dir, "ci");
    bless_paths(dir, m, fr, l, sizeof m);
    static const char *const vars[][2] = {{"CI", "true"},
                                          {"GITHUB_ACTIONS", "true"},
                                          {"GITLAB_CI", "true"},
                                          {"BUILDKITE", "true"},
                                          {"JENKINS_URL", "https://jenkins.example/"}};
    char *argv[] = {"gcverify", "bless",       "--reason",   "r", "--scale",  "small", "--levels",
                    "0",        "--no-frames", "--baseline", m,   "--ledger", l,       NULL};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        setenv(vars[i][0], vars[i][1], 1);
        cr_assert_eq(run(NULL, NULL, 200, argv), 2, "%s=%s", vars[i][0], vars[i][1]);
        unsetenv(vars[i][0]);
        cr_assert_neq(access(m, F_OK), 0, "blessed with %s set", vars[i][0]);
    }
    setenv("CI", "false", 1); /* explicitly not CI */
    cr_assert_eq(run(NULL, NULL, 400, argv), 0);
    unsetenv("CI");
}

/* ==== memory ==== */

/* A gameplay "bomb": a valid 4 MiB LZ stream of 288-byte dist-1 matches
 * (72:1) behind LEVEL<n>'s header, so the gameplay decoder grows its buffer
 * to its 256 MiB bound (the 272 MB level). */
static void write_bomb_level(const char *corpus, int level, const char *dir)
{
    char src[4200], dst[1200], err[256];
    snprintf(src, sizeof src, "%s/LEVEL%d.WAD", corpus, level);
    snprintf(dst, sizeof dst, "%s/LEVEL%d.WAD", dir, level);
    size_t len;
    char *d = gc_read_file(src, &len, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    size_t at = (len + 2047) & ~(size_t)2047, zlen = 4u << 20;
    unsigned char *f = calloc(1, at + zlen);
    cr_assert_not_null(f);
    memcpy(f, d, len);
    free(d);
    unsigned char *z = f + at;
    memcpy(z, "WAD", 3);
    z[3] = (unsigned char)zlen, z[4] = (unsigned char)(zlen >> 8),
    z[5] = (unsigned char)(zlen >> 16), z[6] = (unsigned char)(zlen >> 24);
    memcpy(z + 7, "gameplay", 8);
    size_t p = 16;
    z[p++] = 0x01; /* medium literal of 4 bytes */
    for (int i = 0; i < 4; i++)
        z[p++] = 0x5a;
    while (p + 4 <= zlen) { /* big match: 0x20, n=255 -> 288 bytes, b0=b1=0 -> dist 1 */
        z[p++] = 0x20;
        z[p++] = 0xff;
        z[p++] = 0x00;
        z[p++] = 0x00;
    }
    uint32_t so = (uint32_t)(at / 2048), ss = (uint32_t)(zlen / 2048);
    memcpy(f + 0x20, &so, 4); /* gameplay extent: offset and size in sectors (little-endian) */
    memcpy(f + 0x24, &ss, 4);
    cr_assert_eq(gc_write_file_atomic(dst, f, at + zlen, err, sizeof err), 0, "%s", err);
    free(f);
}

Test(memory, a_level_past_its_cap_fails_alone, .init = setup, .timeout = 900)
{
    const char *corpus = small_corpus();
    char dir[1024], json[1200];
    tmpdir(dir, sizeof dir, "bomb1");
    write_bomb_level(corpus, 0, dir);
    copy_level(corpus, 1, dir, NULL);
    snprintf(json, sizeof json, "%s/r.json", dir);
    char *argv[] = {"gcverify",
                    "sweep",
                    "--corpus",
                    dir,
                    "--levels",
                    "0,1",
                    "--no-frames",
                    "--baseline",
                    "none",
                    "--quiet",
                    "--memory-limit",
                    "1G",
                    "--level-memory-limit",
                    "64M",
                    "--json",
                    json,
                    NULL};
    int rc = run(NULL, NULL, 600, argv);
    cr_assert_eq(rc, 1, "the bomb is that level's decode error (exit %d)", rc);
    char *r = slurp(json);
    cr_assert(strstr(r, "memory limit reached"), "the error names the limit: %.600s", r);
    /* level 1 decodes exactly as alone */
    char json1[1200];
    snprintf(json1, sizeof json1, "%s/r1.json", dir);
    char *one[] = {"gcverify",   "sweep", "--corpus", dir,      "--levels", "1", "--no-frames",
                   "--baseline", "none",  "--quiet",  "--json", json1,      NULL};
    cr_assert_lt(run(NULL, NULL, 400, one), 2); /* corpus-scope rules may fail on one level */
    char *r1 = slurp(json1);
    const char *l1 = strstr(r1, "\"level\": 1,");
    cr_assert_not_null(l1);
    char *dec = strstr(r, "\"level\": 1,");
    cr_assert_not_null(dec);
    cr_assert_eq(strncmp(dec, l1, 400), 0, "level 1 decoded differently beside the bomb");
    free(r);
    free(r1);
}

Test(memory, the_pool_waits_for_budget, .init = setup, .timeout = 900)
{
    const char *corpus = small_corpus();
    char dir[1024], tj[1200];
    tmpdir(dir, sizeof dir, "bomb12");
    for (int i = 0; i < 12; i++)
        write_bomb_level(corpus, i, dir);
    snprintf(tj, sizeof tj, "%s/t.json", dir);
    char *argv[] = {"gcverify",       "sweep", "--corpus",    dir,          "--levels", "0-11",
                    "--jobs",         "8",     "--no-frames", "--baseline", "none",     "--quiet",
                    "--memory-limit", "400M",  "--timings",   tj,           NULL};
    struct rusage ru;
    int st = finish(start(NULL, NULL, argv), 840, &ru);
    cr_assert_eq(exit_code(st), 1, "every bomb level fails its gameplay decode");
    char *t = slurp(tj);
    const char *mem = strstr(t, "\"memory\"");
    cr_assert_not_null(mem, "%s", t);
    unsigned long long limit = 0, peak = 0, waits = 0;
    cr_assert_eq(sscanf(mem,
                        "\"memory\": {\"limit_bytes\": %llu, \"peak_bytes\": %llu, \"waits\": %llu",
                        &limit, &peak, &waits),
                 3, "%s", mem);
    cr_assert_eq(limit, 400ull << 20);
    cr_assert_leq(peak, limit, "the budget was exceeded");
    cr_assert_gt(waits, 0, "no level waited for budget");
    free(t);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__has_feature)
#define GC_NO_ASAN 1
#elif defined(__has_feature)
#if !__has_feature(address_sanitizer) && !defined(__SANITIZE_ADDRESS__)
#define GC_NO_ASAN 1
#endif
#endif
#ifdef GC_NO_ASAN
    /* without the budget, 8 jobs held 8 x 256 MiB at once; the budget's
     * 400 MiB plus the uncharged working set (frames, tables) stays far below */
    long max_mib = ru.ru_maxrss / 1024;
    cr_assert_lt(max_mib, 700, "peak RSS %ld MiB with a 400 MiB budget", max_mib);
#endif
}

/* ==== invariant loader ==== */

static int list_dir(const char *dir, char *errf)
{
    char *argv[] = {"gcverify", "list", "--invariants", (char *)dir, NULL};
    return run(NULL, errf, 30, argv);
}

Test(loader, a_flat_chain_of_20000_terms_is_capped_at_its_position, .init = setup, .timeout = 60)
{
    char dir[1024], path[1200], errf[1200];
    tmpdir(dir, sizeof dir, "chain");
    snprintf(path, sizeof path, "%s/chain.yaml", dir);
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    size_t cap = 20000 * 11 + 256, n = 0;
    char *y = malloc(cap);
    n += (size_t)snprintf(y, cap,
                          "invariants:\n  - id: a.chain\n    table: tfrag.patch\n"
                          "    expect: vert_count");
    for (int i = 1; i < 20000; i++)
        n += (size_t)snprintf(y + n, cap - n, "+vert_count");
    snprintf(y + n, cap - n, " > 0\n    why: w\n");
    put(path, y);
    free(y);
    cr_assert_eq(list_dir(dir, errf), 2);
    char *e = slurp(errf);
    /* the 1025th node: column of "expect: " (13) plus 512 terms of 11 chars */
    cr_assert(strstr(e, "chain.yaml:4:") && strstr(e, "expression too long"), "%s", e);
    free(e);
}

Test(loader, yaml_nested_100000_deep_fails_fast, .init = setup, .timeout = 60)
{
    char dir[1024], path[1200], errf[1200];
    tmpdir(dir, sizeof dir, "deep");
    snprintf(path, sizeof path, "%s/deep.yaml", dir);
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    size_t d = 100000;
    char *y = malloc(2 * d + 32);
    size_t n = (size_t)sprintf(y, "invariants: ");
    memset(y + n, '[', d);
    memset(y + n + d, ']', d);
    strcpy(y + n + 2 * d, "\n");
    put(path, y);
    free(y);
    /* the child gets 30 s; on libyaml's own it ran for hours */
    cr_assert_eq(list_dir(dir, errf), 2);
    char *e = slurp(errf);
    cr_assert(strstr(e, "deep.yaml:1:") && strstr(e, "nested more than"), "%s", e);
    free(e);
}

Test(loader, files_over_the_size_cap_are_refused, .init = setup, .timeout = 60)
{
    char dir[1024], path[1200], errf[1200];
    tmpdir(dir, sizeof dir, "big");
    snprintf(path, sizeof path, "%s/big.yaml", dir);
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    size_t n = (1u << 20) + 100;
    char *y = malloc(n + 1);
    memset(y, '#', n);
    y[n] = '\0';
    put(path, y);
    free(y);
    cr_assert_eq(list_dir(dir, errf), 2);
    char *e = slurp(errf);
    cr_assert(strstr(e, "big.yaml:1:1:") && strstr(e, "1 MiB"), "%s", e);
    free(e);
}

Test(loader, zero_invariants_is_exit_2_and_yml_files_count, .init = setup, .timeout = 400)
{
    small_corpus();
    char dir[1024], errf[1200], yml[1400];
    tmpdir(dir, sizeof dir, "zero");
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    char empty[1200];
    snprintf(empty, sizeof empty, "%s/empty", dir);
    cr_assert_eq(mkdir(empty, 0755), 0);
    cr_assert_eq(list_dir(empty, errf), 2);
    char *argv[] = {"gcverify",    "sweep",      "--scale", "small",   "--levels",     "0",
                    "--no-frames", "--baseline", "none",    "--quiet", "--invariants", empty,
                    NULL};
    cr_assert_eq(run(NULL, errf, 60, argv), 2, "a sweep of no invariants passed");
    char *e = slurp(errf);
    cr_assert(strstr(e, "no invariants"), "%s", e);
    free(e);
    /* a .yml file is loaded, not skipped: its failing rule fails the sweep */
    snprintf(yml, sizeof yml, "%s/failing.yml", empty);
    put(yml, "invariants:\n  - id: test.always_fails\n    table: level.header\n"
             "    expect: false\n    why: proves the .yml file was read\n");
    cr_assert_eq(run(NULL, NULL, 200, argv), 1, "the rule in the .yml file did not run");
}

Test(loader, an_over_long_id_gets_the_length_message, .init = setup, .timeout = 60)
{
    char dir[1024], path[1200], errf[1200];
    tmpdir(dir, sizeof dir, "longid");
    snprintf(path, sizeof path, "%s/a.yaml", dir);
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    char y[1024], id[201];
    memset(id, 'a', 200);
    id[200] = '\0';
    snprintf(y, sizeof y, "invariants:\n  - id: %s\n    expect: true\n    why: w\n", id);
    put(path, y);
    cr_assert_eq(list_dir(dir, errf), 2);
    char *e = slurp(errf);
    cr_assert(strstr(e, "200 characters long; the limit is 128"), "%s", e);
    cr_assert(!strstr(e, "lower-case letters"), "the character rule is not the problem: %s", e);
    free(e);
}

Test(memory, a_tight_budget_changes_nothing_in_the_report, .init = setup, .timeout = 900)
{
    small_corpus();
    char dir[1024], a[1200], b[1200], tj[1200];
    tmpdir(dir, sizeof dir, "tight");
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(tj, sizeof tj, "%s/t.json", dir);
    char *free_run[] = {"gcverify",   "sweep", "--scale", "small",  "--jobs", "1",
                        "--baseline", "none",  "--quiet", "--json", a,        NULL};
    int rc = run(NULL, NULL, 600, free_run);
    cr_assert_lt(rc, 2);
    /* 3 jobs in a budget that holds the largest small level alone (about
     * 4 MB) but not three in flight (about 12 MB): levels wait, and some are
     * stopped and run again */
    char *tight[] = {"gcverify", "sweep",   "--scale",        "small", "--jobs", "3", "--baseline",
                     "none",     "--quiet", "--memory-limit", "6M",    "--json", b,   "--timings",
                     tj,         NULL};
    cr_assert_eq(run(NULL, NULL, 600, tight), rc);
    char *x = slurp(a), *y = slurp(b), *t = slurp(tj);
    cr_assert_str_eq(x, y, "the report depends on the memory budget");
    unsigned long long limit = 0, peak = 0, waits = 0;
    const char *mem = strstr(t, "\"memory\"");
    cr_assert_not_null(mem);
    cr_assert_eq(sscanf(mem,
                        "\"memory\": {\"limit_bytes\": %llu, \"peak_bytes\": %llu, \"waits\": %llu",
                        &limit, &peak, &waits),
                 3);
    cr_assert_leq(peak, limit);
    cr_assert_gt(waits, 0, "the budget never made a level wait: %s", mem);
    free(x);
    free(y);
    free(t);
}
