/* SPDX-License-Identifier: MIT */
/* gcverify bisect: find the first bad commit of an invariant, a frame or a
 * metric by driving `git bisect run` with our build-and-sweep oracle
 * (docs/bisect.md). The oracle is written into a temporary directory with a
 * copy of this gcverify (the judge), because bisect checks out commits that
 * may not have either; the checkout is restored with `git bisect reset`
 * however the run ends. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gc_cli_opts.h"
#include "gc_exit.h"
#include "gc_fsutil.h"
#include "gc_history_args.h"
#include "gc_num.h"
#include "gc_paths.h"
#include "gc_report.h"

int gc_cmd_bisect(int argc, char **argv);

/* Exit 0 good, 1 bad, 125 skip: git bisect run's protocol. $1.. are the
 * sweep's options. Everything the build prints goes to oracle.log. */
static const char oracle_script[] =
    "#!/bin/sh\n"
    "# gcverify bisect's oracle (written by gcverify bisect; see docs/bisect.md):\n"
    "# build the checked-out commit, sweep with the options given, judge the item.\n"
    "set -u\n"
    "log=\"$GC_BISECT_TMP/oracle.log\"\n"
    "commit=$(git rev-parse --short HEAD)\n"
    "echo \"== $commit\" >>\"$log\"\n"
    "if ! cmake -S . -B \"$GC_BISECT_BUILD\" -DCMAKE_BUILD_TYPE=RelWithDebInfo \\\n"
    "     -DGC_BUILD_TESTS=OFF -DGC_BUILD_BENCH=OFF >>\"$log\" 2>&1 ||\n"
    "   ! cmake --build \"$GC_BISECT_BUILD\" --target gcverify -j \"$GC_BISECT_JOBS\" "
    ">>\"$log\" 2>&1; then\n"
    "  echo \"bisect: $commit does not build: skipped\"\n"
    "  exit 125\n"
    "fi\n"
    "rm -f \"$GC_BISECT_TMP/report.json\"\n"
    "\"$GC_BISECT_BUILD/gcverify\" sweep --quiet --json \"$GC_BISECT_TMP/report.json\" \"$@\" "
    ">>\"$log\" 2>&1\n"
    "rc=$?\n"
    "if [ $rc -ge 2 ]; then\n"
    "  echo \"bisect: $commit: sweep exit $rc (could not run): skipped\"\n"
    "  exit 125\n"
    "fi\n"
    "\"$GC_BISECT_JUDGE\" bisect --judge \"$GC_BISECT_TMP/report.json\"\n"
    "v=$?\n"
    "case $v in 0) w=good;; 1) w=bad;; *) w=skipped;; esac\n"
    "echo \"bisect: $commit: $w\"\n"
    "exit $v\n";

/* The judge: the verdict on one item of one report, from the environment
 * the oracle inherits (GC_BISECT_KIND, _ID, _LEVEL). */
static int judge(const char *path)
{
    char err[1024];
    size_t len;
    char *text = gc_read_file(path, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "bisect judge: %s\n", err);
        return 125;
    }
    gc_report r;
    gc_report_init(&r);
    if (gc_report_from_json(&r, text, err, sizeof err) != 0) {
        free(text);
        gc_report_free(&r);
        fprintf(stderr, "bisect judge: %s: %s\n", path, err);
        return 125;
    }
    free(text);
    gc_report_summarise(&r);
    const char *kind = getenv("GC_BISECT_KIND");
    const char *id = getenv("GC_BISECT_ID");
    const char *lvs = getenv("GC_BISECT_LEVEL");
    int level = lvs && *lvs ? gc_atoi_clamp(lvs) : -2;
    int verdict = 125, seen = 0, bad = 0;
    if (!kind || !*kind || !id || !*id) {
        verdict = r.exit_code == GC_EXIT_FAIL ? 1 : r.exit_code == 0 ? 0 : 125;
    } else if (strcmp(kind, "invariant") == 0) {
        for (size_t i = 0; i < r.result_count; i++) {
            const gc_rep_result *x = &r.results[i];
            if (strcmp(x->invariant, id) == 0 && (level == -2 || x->level == level)) {
                seen = 1;
                bad |= x->failed > 0;
            }
        }
    } else if (strcmp(kind, "frame") == 0) {
        for (size_t i = 0; i < r.frame_count; i++) {
            const gc_rep_frame *f = &r.frames[i];
            if (strcmp(f->view, id) == 0 && (level == -2 || f->level == level)) {
                seen = 1;
                bad |= gc_report_frame_failed(f);
            }
        }
    } else {
        for (size_t i = 0; i < r.metric_count; i++)
            if (strcmp(r.metrics[i].name, id) == 0 && (level == -2 || r.metrics[i].level == level))
                seen = 1;
        for (size_t i = 0; i < r.change_count; i++)
            if (strcmp(r.changes[i].field, id) == 0 && (level == -2 || r.changes[i].level == level))
                seen = bad = 1;
    }
    if (kind && *kind && id && *id)
        verdict = !seen ? 125 : bad ? 1 : 0;
    gc_report_free(&r);
    return verdict;
}

/* Run a command (argv, no shell) in dir; its exit code, or -1. */
static int run_in(const char *dir, const char *const *args, const char *out_path)
{
    /* execvp wants char *const[]: copy the pointers (the strings are not
     * written) */
    size_t n = 0;
    while (args[n])
        n++;
    char **av = calloc(n + 1, sizeof *av);
    if (!av)
        return -1;
    memcpy(av, args, n * sizeof *av);
    pid_t pid = fork();
    if (pid < 0) {
        free(av);
        return -1;
    }
    if (pid == 0) {
        if (dir && chdir(dir) != 0)
            _exit(127);
        if (out_path) {
            int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0) {
                dup2(fd, 1);
                close(fd);
            }
        }
        execvp(av[0], av);
        _exit(127);
    }
    free(av);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first line of a command's output. */
static int capture(const char *dir, const char *const *args, char *out, size_t n, const char *tmp)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/capture.txt", tmp);
    int rc = run_in(dir, args, p);
    out[0] = 0;
    FILE *f = fopen(p, "r");
    if (f) {
        if (!fgets(out, (int)n, f))
            out[0] = 0;
        fclose(f);
    }
    out[strcspn(out, "\r\n")] = 0;
    return rc;
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
    char err[512];
    size_t len;
    char *d = gc_read_file(from, &len, err, sizeof err);
    if (!d)
        return -1;
    int rc = gc_write_file_atomic(to, d, len, err, sizeof err);
    free(d);
    return rc == 0 ? chmod(to, mode) : -1;
}

enum { K_GOOD = GC_OPT_LONG, K_BAD, K_REPO, K_BUILD_DIR, K_JOBS };

static const gc_opt bisect_opts[] = {
    {"good", K_GOOD, "REV", "a commit where the item is good (required)"},
    {"bad", K_BAD, "REV", "a commit where the item is bad (required)"},
    {"repo", K_REPO, "DIR",
     "the checkout (default: the one this gcverify was\n"
     "built from, else the working directory); its tracked\n"
     "files must be unmodified"},
    {"build-dir", K_BUILD_DIR, "DIR", "reuse this build directory (default: a temporary one)"},
    {"jobs", K_JOBS, "N", "build jobs (default 2)"},
};

static const char bisect_about[] =
    "Find the first commit between REV (good) and REV (bad) at which the item\n"
    "goes bad, with `git bisect run`: each step builds gcverify from the\n"
    "checked-out commit (in a build directory outside the checkout), runs\n"
    "`gcverify sweep --quiet --json F SWEEP OPTIONS` and judges the item from\n"
    "the report: an invariant failing any row (on --level N, or any level), a\n"
    "frame that regressed, a metric that moved against that commit's baseline.\n"
    "With no item, a gating sweep (exit 1) is bad. A commit that does not build\n"
    "or whose sweep cannot run (exit 2 or more) is skipped (exit 125). The\n"
    "checkout is restored afterwards (git bisect reset). Everything after `--`\n"
    "is passed to each step's sweep.\n";

static const char bisect_footer[] =
    "Prints 'first bad commit: SHA subject'. exit codes: 0 found; 1 not found\n"
    "(only skipped commits left, or good was not good); 2 bad usage.\n";

int gc_cmd_bisect(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--judge") == 0)
        return judge(argv[2]);
    gc_hist_args a;
    gc_hist_args_init(&a);
    const char *good = NULL, *bad = NULL, *repo = NULL, *build_dir = NULL, *jobs = "2";
    char err[1024];
    int sweep_from = argc;
    const gc_opt_group groups[] = {GC_OPT_GROUP("bisect:", bisect_opts), gc_hist_group};
    const gc_cmd_spec spec = GC_CMD_SPEC("bisect",
                                         "--good REV --bad REV [--invariant ID [--level N] |\n"
                                         "--frame N:VIEW | --metric N:NAME] [--repo DIR]\n"
                                         "[--build-dir DIR] [--jobs N] [-- SWEEP OPTIONS...]",
                                         bisect_about, groups, bisect_footer);
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return GC_EXIT_USAGE;
    (void)err;
    for (int k; sweep_from == argc && (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        int r = gc_hist_apply(&p, k, &a);
        if (r < 0)
            return GC_EXIT_USAGE;
        if (r > 0)
            continue;
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return GC_EXIT_USAGE;
        case GC_OPT_ARG:
            if (!p.after_dashdash)
                return gc_opts_usage_error(&spec, "unexpected '%s' (sweep options go after --)",
                                           p.value);
            sweep_from = p.rest - 1; /* this and the rest: the sweep's */
            break;
        case K_GOOD:
            good = p.value;
            break;
        case K_BAD:
            bad = p.value;
            break;
        case K_REPO:
            repo = p.value;
            break;
        case K_BUILD_DIR:
            build_dir = p.value;
            break;
        case K_JOBS:
            jobs = p.value;
            break;
        }
    }
    if (!good || !bad) {
        fprintf(stderr, "gcverify bisect: --good REV and --bad REV are needed\n");
        return GC_EXIT_USAGE;
    }
    if (a.item_given > 1) {
        fprintf(stderr, "gcverify bisect: one of --invariant, --frame, --metric\n");
        return GC_EXIT_USAGE;
    }
    if (a.item_given && a.q.kind != GC_HIST_INVARIANT && !a.level_given) {
        fprintf(stderr, "gcverify bisect: --frame and --metric take LEVEL:NAME\n");
        return GC_EXIT_USAGE;
    }
    if (!repo)
        repo = gc_data_origin_get() == GC_DATA_BUILD_TREE ? gc_data_dir() : ".";

    char tmp[4096];
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/gcverify-bisect-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "gcverify bisect: cannot make %s: %s\n", tmp, strerror(errno));
        return GC_EXIT_WRITE;
    }
    char top[4096], line[4096];
    {
        const char *args[] = {"git", "rev-parse", "--show-toplevel", NULL};
        if (capture(repo, args, top, sizeof top, tmp) != 0 || !top[0]) {
            fprintf(stderr, "gcverify bisect: %s is not in a git checkout\n", repo);
            gc_rm_rf(tmp);
            return GC_EXIT_USAGE;
        }
    }
    {
        /* bisect checks commits out: a modified tracked file would be lost or
         * would block it */
        const char *args[] = {"git", "status", "--porcelain", "--untracked-files=no", NULL};
        if (capture(top, args, line, sizeof line, tmp) != 0 || line[0]) {
            fprintf(stderr,
                    "gcverify bisect: %s has modified tracked files (%s): commit or stash them "
                    "first\n",
                    top, line);
            gc_rm_rf(tmp);
            return GC_EXIT_USAGE;
        }
    }
    char judge_path[4200], oracle[4200], build[4200], log[4200];
    snprintf(judge_path, sizeof judge_path, "%s/gcverify-judge", tmp);
    snprintf(oracle, sizeof oracle, "%s/oracle.sh", tmp);
    snprintf(log, sizeof log, "%s/bisect.log", tmp);
    snprintf(build, sizeof build, "%s", build_dir ? build_dir : "");
    if (!build_dir)
        snprintf(build, sizeof build, "%s/build", tmp);
    else if (build_dir[0] != '/') {
        char cwd[2048];
        if (getcwd(cwd, sizeof cwd))
            snprintf(build, sizeof build, "%s/%s", cwd, build_dir);
    }
    if (copy_file("/proc/self/exe", judge_path, 0755) != 0 ||
        gc_write_file_atomic(oracle, oracle_script, strlen(oracle_script), err, sizeof err) != 0 ||
        chmod(oracle, 0755) != 0) {
        fprintf(stderr, "gcverify bisect: cannot write the oracle into %s\n", tmp);
        gc_rm_rf(tmp);
        return GC_EXIT_WRITE;
    }
    setenv("GC_BISECT_TMP", tmp, 1);
    setenv("GC_BISECT_BUILD", build, 1);
    setenv("GC_BISECT_JUDGE", judge_path, 1);
    setenv("GC_BISECT_JOBS", jobs, 1);
    const char *kinds[] = {"invariant", "frame", "metric"};
    setenv("GC_BISECT_KIND", a.item_given ? kinds[a.q.kind] : "", 1);
    setenv("GC_BISECT_ID", a.q.id ? a.q.id : "", 1);
    char lv[16];
    snprintf(lv, sizeof lv, "%d", a.level_given ? a.q.level : -2);
    setenv("GC_BISECT_LEVEL", lv, 1);

    int rc = 1;
    char first[256] = "";
    {
        const char *start[] = {"git", "bisect", "start", bad, good, "--", NULL};
        if (run_in(top, start, NULL) != 0) {
            fprintf(stderr, "gcverify bisect: git bisect start %s %s failed\n", bad, good);
            const char *reset[] = {"git", "bisect", "reset", NULL};
            run_in(top, reset, NULL);
            gc_rm_rf(tmp);
            return GC_EXIT_USAGE;
        }
    }
    /* git bisect run sh ORACLE SWEEP-OPTIONS... */
    size_t n = (size_t)(argc - sweep_from);
    const char **run = calloc(n + 6, sizeof *run);
    if (run) {
        size_t k = 0;
        run[k++] = "git";
        run[k++] = "bisect";
        run[k++] = "run";
        run[k++] = "sh";
        run[k++] = oracle;
        for (int i = sweep_from; i < argc; i++)
            run[k++] = argv[i];
        run[k] = NULL;
        int brc = run_in(top, run, log);
        free((void *)run);
        FILE *f = fopen(log, "r");
        if (f) {
            int in_candidates = 0;
            size_t ll = 0;
            while (fgets(line, sizeof line, f)) {
                fputs(line, stdout);
                ll = strlen(line);
                if (strstr(line, " is the first bad commit")) {
                    line[strcspn(line, " ")] = 0;
                    snprintf(first, sizeof first, "%s", line);
                }
                if (strstr(line, "only 'skip'ped commits left"))
                    in_candidates = 1;
            }
            fclose(f);
            /* git's last line has no newline */
            if (ll && line[ll - 1] != '\n')
                fputc('\n', stdout);
            if (in_candidates && !first[0])
                fprintf(stderr, "gcverify bisect: only skipped commits are left: the first bad "
                                "commit is one of those listed above\n");
        }
        if (brc != 0 && !first[0])
            fprintf(stderr,
                    "gcverify bisect: git bisect run exited %d (see %s/oracle.log "
                    "before it is removed: kept with GC_BISECT_KEEP=1)\n",
                    brc, tmp);
    }
    {
        /* (git 2.39's reset takes no --quiet: its chatter goes to /dev/null) */
        const char *reset[] = {"git", "bisect", "reset", NULL};
        if (run_in(top, reset, "/dev/null") != 0)
            fprintf(stderr, "gcverify bisect: git bisect reset failed: run it in %s\n", top);
    }
    if (first[0]) {
        char subject[512] = "";
        const char *show[] = {"git", "log", "-1", "--format=%s", first, NULL};
        capture(top, show, subject, sizeof subject, tmp);
        printf("first bad commit: %s %s\n", first, subject);
        rc = 0;
    } else {
        printf("first bad commit: not found\n");
    }
    const char *keep = getenv("GC_BISECT_KEEP");
    if (keep && strcmp(keep, "1") == 0)
        fprintf(stderr, "gcverify bisect: kept %s\n", tmp);
    else
        gc_rm_rf(tmp);
    return rc;
}
