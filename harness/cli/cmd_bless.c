/* SPDX-License-Identifier: MIT */
/* gcverify bless: accept the current metrics (and, with --frames, the frame
 * hashes) as the new baseline. Runs the sweep, rewrites the baseline file
 * atomically and appends what moved, and why, to golden/LEDGER.md. Refuses in
 * CI and without a reason: a baseline change is a reviewed decision. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gc_baseline.h"
#include "gc_bless_targets.h"
#include "gc_cli.h"
#include "gc_cli_opts.h"
#include "gc_exit.h"
#include "gc_fsutil.h"
#include "gc_golden_frames.h"
#include "gc_paths.h"
#include "gc_sweep.h"
#include "sy_corpus.h"

int gc_cmd_bless(int argc, char **argv);

enum { K_REASON = GC_OPT_LONG, K_FRAMES, K_LEDGER };

static const gc_opt bless_opts[] = {
    {"reason", K_REASON, "TEXT", "why the baseline moves (required; goes into LEDGER.md)"},
    {"frames", K_FRAMES, NULL, "also write the frame hashes as the new goldens"},
    {"ledger", K_LEDGER, "F", "the ledger (default LEDGER.md beside the baseline)"},
};

static const char bless_about[] =
    "Runs the sweep and writes its per-level metrics as the new baseline\n"
    "(golden/metrics.yaml for the default corpus), and with --frames its frame\n"
    "hashes as the new goldens (golden/frames.yaml), each atomically. Appends the\n"
    "date, the reason and every field that moved to LEDGER.md in the baseline's\n"
    "directory (golden/LEDGER.md for the project's baselines; --ledger F overrides).\n"
    "Bless writes only beside its baselines, never into an installed gcverify's\n"
    "share/gcverify: an installed gcverify blesses only with --baseline F (and\n"
    "--frames-golden F with --frames).\n"
    "Refuses in CI (CI, GITHUB_ACTIONS, GITLAB_CI, BUILDKITE or JENKINS_URL set),\n"
    "and without a reason. A transaction: everything is decided (sweep run, every\n"
    "input read, frames checked) before anything is written; the files are staged,\n"
    "a journal names them, then they are renamed; a bless stopped half-way is\n"
    "completed by the next one. An exclusive lock (.gcverify-bless.lock in the\n"
    "baseline's directory) is held for the whole bless.\n";

static const char bless_footer[] =
    "exit codes: 0 blessed; 1 a frame in error (nothing written); 2 bad usage, CI,\n"
    "unreadable baseline or ledger; 3 corpus unreadable; 4 part of the corpus\n"
    "unreadable (nothing written); 5 a file could not be written.\n";

/* Paths inside the data directory (the checkout's, gc_paths.h) are written
 * relative to it, so the ledger reads the same from every checkout. */
static const char *project_relative(const char *path)
{
    return gc_data_relative(path);
}

/* The ledger with a new entry appended (old is the current ledger, NULL
 * when there is none yet). 0 or -1. */
static int ledger_text(gc_strbuf *b, const char *old, size_t old_len, const char *reason,
                       const gc_report *rep, const char *metrics_path, const char *frames_path,
                       size_t frames_moved)
{
    if (old)
        gc_sb_put(b, old, old_len);
    else
        gc_sb_puts(b, "# Baseline ledger\n\nEvery `gcverify bless` appends an entry: when, why, "
                      "and what moved.\n");
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    gc_sb_printf(b, "\n## %s — %s\n\n", date, reason);
    gc_sb_printf(b, "- corpus: %s; levels: %zu; tier: %s\n", rep->corpus_label, rep->selected_count,
                 rep->tier);
    gc_sb_printf(b, "- metrics: `%s`", project_relative(metrics_path));
    if (frames_path)
        gc_sb_printf(b, "; frames: `%s` (%zu frame hashes changed)", project_relative(frames_path),
                     frames_moved);
    gc_sb_puts(b, "\n");
    if (!rep->baseline_found)
        gc_sb_puts(b, "- first baseline for this corpus\n");
    else if (rep->change_count == 0)
        gc_sb_puts(b, "- no metric and no decoded column moved\n");
    if (rep->baseline_found && rep->metrics_unblessed)
        gc_sb_printf(b, "- %llu figures added (new invariants or metrics)\n",
                     (unsigned long long)rep->metrics_unblessed);
    if (rep->baseline_found && rep->digests_unblessed)
        gc_sb_printf(b,
                     "- %llu column digests added (new tables or columns, or a baseline "
                     "without digests)\n",
                     (unsigned long long)rep->digests_unblessed);
    if (rep->baseline_found && rep->change_count)
        gc_sb_printf(b, "- %zu fields moved (%llu metrics, %llu decoded columns):\n",
                     rep->change_count, (unsigned long long)rep->metrics_changed,
                     (unsigned long long)rep->digests_changed);
    for (size_t i = 0; rep->baseline_found && i < rep->change_count; i++) {
        if (i == 200) {
            gc_sb_printf(b, "  - … and %zu more\n", rep->change_count - 200);
            break;
        }
        char line[1024];
        gc_report_format_change(&rep->changes[i], line, sizeof line);
        gc_sb_printf(b, "  - %s\n", line);
    }
    return b->failed ? -1 : 0;
}

/* ---- the transaction (docs/golden.md "Bless is a transaction") ---- */

#define LOCK_NAME    ".gcverify-bless.lock"
#define JOURNAL_NAME ".gcverify-bless.journal"
#define JOURNAL_HEAD "gcverify bless journal 1\n"

static void dir_of(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, n, ".");
    else if (slash == path)
        snprintf(out, n, "/");
    else
        snprintf(out, n, "%.*s", (int)(slash - path), path);
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Hold an exclusive flock on the lock file for the whole bless: two
 * blesses of one baseline directory run one after the other, so neither
 * loses the other's ledger entry. Returns the fd (kept open) or -1. */
static int take_lock(const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, LOCK_NAME);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "gcverify bless: cannot open the lock file %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK) {
            fprintf(stderr, "gcverify bless: cannot lock %s: %s\n", path, strerror(errno));
            close(fd);
            return -1;
        }
        fprintf(stderr, "gcverify bless: waiting for another bless to finish (lock %s)\n", path);
        while (flock(fd, LOCK_EX) != 0)
            if (errno != EINTR) {
                fprintf(stderr, "gcverify bless: cannot lock %s: %s\n", path, strerror(errno));
                close(fd);
                return -1;
            }
    }
    return fd;
}

/* A journal left by a bless that was stopped between its renames names
 * every temp file and its target; all temps were complete and fsynced
 * before it was written, so finishing the renames completes that bless.
 * 0, or -1 (message printed). */
static int recover_journal(const char *dir)
{
    char path[PATH_MAX + 32], err[1024];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_NAME);
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 0;
    size_t len;
    char *text = gc_read_file(path, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "gcverify bless: %s\n", err);
        return -1;
    }
    size_t hl = strlen(JOURNAL_HEAD);
    int whole = len >= hl + 4 && memcmp(text, JOURNAL_HEAD, hl) == 0 &&
                strcmp(text + len - 4, "end\n") == 0;
    int renamed = 0, total = 0, rc = 0;
    for (char *line = text + hl; whole && *line && strncmp(line, "end\n", 4) != 0;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = '\0';
        char *tab = strchr(line, '\t');
        if (tab) {
            *tab = '\0';
            total++;
            if (access(line, F_OK) == 0) {
                if (gc_commit_file(line, tab + 1, err, sizeof err) != 0) {
                    fprintf(stderr, "gcverify bless: completing the interrupted bless: %s\n", err);
                    rc = -1;
                    break;
                }
                renamed++;
            }
        }
        line = nl + 1;
    }
    free(text);
    if (rc == 0) {
        if (whole)
            fprintf(stderr,
                    "gcverify bless: completed an interrupted bless from its journal (%d of %d "
                    "files were still to be renamed)\n",
                    renamed, total);
        unlink(path);
        gc_fsync_parent(path);
    }
    return rc;
}

/* Temp files of our targets left by a bless that was killed before its
 * journal existed: under the lock nobody else is writing them. */
static void clean_stale(const char *target)
{
    char dir[PATH_MAX];
    dir_of(target, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (gc_is_temp_of(e->d_name, base_of(target)) || gc_is_temp_of(e->d_name, JOURNAL_NAME)) {
            char p[PATH_MAX + 256];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (unlink(p) == 0)
                fprintf(stderr, "gcverify bless: removed a stale temporary file %s\n", p);
        }
    closedir(d);
}

typedef struct staged {
    const char *what; /* for messages */
    char final[PATH_MAX], tmp[PATH_MAX + 64];
} staged;

/* Test hook (docs/golden.md): GC_TEST_BLESS_KILL_AFTER_RENAMES=N makes bless
 * SIGKILL itself after its N-th rename, to test the journal for real. */
static void test_hook_after_rename(int done)
{
    const char *e = getenv("GC_TEST_BLESS_KILL_AFTER_RENAMES");
    if (e && *e && atoi(e) == done)
        raise(SIGKILL);
}

/* Stage every file, write the journal, rename in order, drop the journal. */
static int commit_all(const char *journal_dir, staged *st, size_t n, const char **texts,
                      const size_t *lens)
{
    char err[1024];
    size_t k;
    for (k = 0; k < n; k++)
        if (gc_stage_file(st[k].final, texts[k], lens[k], st[k].final, sizeof st[k].final,
                          st[k].tmp, sizeof st[k].tmp, err, sizeof err) != 0) {
            fprintf(stderr, "gcverify bless: %s\n", err);
            for (size_t j = 0; j < k; j++)
                unlink(st[j].tmp);
            return -1;
        }
    gc_strbuf j;
    gc_sb_init(&j);
    gc_sb_puts(&j, JOURNAL_HEAD);
    for (k = 0; k < n; k++)
        gc_sb_printf(&j, "%s\t%s\n", st[k].tmp, st[k].final);
    gc_sb_puts(&j, "end\n");
    char jpath[PATH_MAX + 32];
    snprintf(jpath, sizeof jpath, "%s/%s", journal_dir, JOURNAL_NAME);
    if (j.failed || gc_write_file_atomic(jpath, j.s, j.len, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify bless: cannot write the journal: %s\n",
                j.failed ? "out of memory" : err);
        gc_sb_free(&j);
        for (k = 0; k < n; k++)
            unlink(st[k].tmp);
        return -1;
    }
    gc_sb_free(&j);
    for (k = 0; k < n; k++) {
        if (gc_commit_file(st[k].tmp, st[k].final, err, sizeof err) != 0) {
            /* the journal stays: the next bless completes the rest */
            fprintf(stderr, "gcverify bless: %s (the next bless completes it from %s)\n", err,
                    jpath);
            return -1;
        }
        test_hook_after_rename((int)k + 1);
    }
    unlink(jpath);
    gc_fsync_parent(jpath);
    return 0;
}

static int ci_variable(const char **name, const char **value)
{
    static const char *const vars[] = {"CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE",
                                       "JENKINS_URL"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v && strcmp(v, "0") != 0 && strcmp(v, "false") != 0) {
            *name = vars[i];
            *value = v;
            return 1;
        }
    }
    return 0;
}

int gc_cmd_bless(int argc, char **argv)
{
    gc_sweep_opts o;
    gc_sweep_opts_init(&o);
    const char *reason = NULL, *ledger = NULL;
    int frames = 0;
    char err[4096];
    const gc_opt_group groups[] = {
        GC_OPT_GROUP("bless:", bless_opts),
        gc_cli_sweep_groups[0],
        gc_cli_sweep_groups[1],
        gc_cli_sweep_groups[2],
    };
    const gc_cmd_spec spec =
        GC_CMD_SPEC("bless", "--reason \"...\" [--frames] [--ledger F] [sweep options]",
                    bless_about, groups, bless_footer);
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return GC_EXIT_USAGE;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        int r = gc_cli_sweep_apply(&p, k, &o);
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
            return gc_opts_usage_error(&spec, "unexpected argument '%s'", p.value);
        case K_REASON:
            reason = p.value;
            break;
        case K_FRAMES:
            frames = 1;
            break;
        case K_LEDGER:
            ledger = p.value;
            break;
        }
    }
    const char *ci_name, *ci_value;
    if (ci_variable(&ci_name, &ci_value)) {
        fprintf(stderr,
                "gcverify bless: refusing to bless in CI (%s=%s): baselines change only by a "
                "reviewed commit\n",
                ci_name, ci_value);
        return 2;
    }
    if (!reason || !reason[strspn(reason, " \t\n")]) {
        fprintf(stderr,
                "gcverify bless: --reason \"...\" is required (it goes into golden/LEDGER.md)\n");
        return 2;
    }
    /* Never into an installation (gc_bless_targets.h). */
    if (gc_bless_check_targets(&o, frames, ledger) != 0)
        return 2;
    /* Decide everything first: paths, lock, recovery, every input readable. */
    char key[96], def_metrics[4096], def_frames[4096];
    if (o.corpus_dir)
        snprintf(key, sizeof key, "directory");
    else
        snprintf(key, sizeof key, "synthetic-%s-seed%u", sy_scale_name(o.scale), (unsigned)o.seed);
    gc_sweep_default_paths(key, def_metrics, sizeof def_metrics, def_frames, sizeof def_frames);
    const char *metrics_arg = o.baseline && o.baseline[0] ? o.baseline : def_metrics;
    const char *frames_arg = o.frames_golden && o.frames_golden[0] ? o.frames_golden : def_frames;
    if (!metrics_arg[0]) {
        fprintf(stderr, "gcverify bless: no default baseline for corpus '%s': pass --baseline F\n",
                key);
        return 2;
    }
    if (frames && (o.no_frames || !frames_arg[0])) {
        fprintf(stderr,
                "gcverify bless: --frames needs rendering and a frames file (--frames-golden F)\n");
        return 2;
    }
    char ledger_def[4096];
    if (!ledger) /* the baseline's own directory: golden/LEDGER.md for the project's */
        ledger = gc_bless_default_ledger(metrics_arg, ledger_def, sizeof ledger_def);
    static staged st[3];
    memset(st, 0, sizeof st);
    if (gc_resolve_path(metrics_arg, st[0].final, sizeof st[0].final, err, sizeof err) != 0 ||
        (frames &&
         gc_resolve_path(frames_arg, st[1].final, sizeof st[1].final, err, sizeof err) != 0) ||
        gc_resolve_path(ledger, st[2].final, sizeof st[2].final, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify bless: %s\n", err);
        return 2;
    }
    const char *metrics_path = st[0].final, *frames_path = st[1].final;
    char lock_dir[PATH_MAX];
    dir_of(metrics_path, lock_dir, sizeof lock_dir);
    int lock_fd = take_lock(lock_dir);
    if (lock_fd < 0)
        return 2;
    int rc = 2;
    gc_report rep;
    gc_report_init(&rep);
    gc_baseline keep;
    int found = 0;
    gc_golden_frames g;
    memset(&g, 0, sizeof g);
    memset(&keep, 0, sizeof keep);
    char *old_ledger = NULL;
    size_t old_len = 0;
    char *frames_text = NULL;
    gc_strbuf mb, lb;
    gc_sb_init(&mb);
    gc_sb_init(&lb);
    if (recover_journal(lock_dir) != 0)
        goto out;
    clean_stale(metrics_path);
    if (frames)
        clean_stale(frames_path);
    clean_stale(st[2].final);
    /* an existing ledger is the history: never replace it by a new one */
    struct stat lst;
    if (stat(st[2].final, &lst) == 0 || errno != ENOENT) {
        old_ledger = gc_read_file(st[2].final, &old_len, err, sizeof err);
        if (!old_ledger) {
            fprintf(stderr,
                    "gcverify bless: %s: the ledger exists but cannot be read; not blessing "
                    "(a new ledger would replace its history)\n",
                    err);
            goto out;
        }
    }
    if (gc_baseline_load(metrics_path, &keep, &found, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify bless: %s\n", err);
        goto out;
    }
    if (frames && gc_golden_frames_load(frames_path, &g, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify bless: %s\n", err);
        goto out;
    }
    o.progress = 1;
    o.goldens_may_be_missing = 1; /* bless writes the first baseline and frames file */
    o.store_frames = frames;      /* the blessed pictures, for --golden-images later */
    o.store_columns = 1;          /* the blessed columns, for the changed rows of a later sweep */
    rc = gc_sweep_run(&o, &rep, err, sizeof err);
    if (rc == GC_EXIT_USAGE || rc == GC_EXIT_CORPUS) {
        fprintf(stderr, "gcverify bless: %s\n", err);
        goto out;
    }
    if (rc == GC_EXIT_PARTIAL || rc == GC_EXIT_WRITE) {
        fprintf(stderr, "gcverify bless: %s; not blessing\n",
                rc == GC_EXIT_PARTIAL ? "part of the corpus could not be read"
                                      : "an output of the sweep could not be written");
        goto out;
    }
    size_t frames_moved = 0;
    for (size_t i = 0; frames && i < rep.frame_count; i++) {
        const gc_rep_frame *f = &rep.frames[i];
        if (strcmp(f->status, "error") == 0 || strcmp(f->status, "nondeterministic") == 0) {
            fprintf(stderr, "gcverify bless: level %d %s is %s; not blessing (nothing written)\n",
                    f->level, f->view, f->status);
            rc = 1;
            goto out;
        }
        if (strcmp(f->status, "match") != 0)
            frames_moved++;
        gc_golden_frames_set(&g, f->level, f->view, f->sha256, f->manifest ? f->manifest : "");
    }
    rc = 2;
    size_t frames_len = 0;
    if (gc_baseline_format(&rep, found ? &keep : NULL, &mb, err, sizeof err) != 0 ||
        (frames && !(frames_text = gc_golden_frames_format(&g, &frames_len, err, sizeof err))) ||
        ledger_text(&lb, old_ledger, old_len, reason, &rep, metrics_arg, frames ? frames_arg : NULL,
                    frames_moved) != 0) {
        fprintf(stderr, "gcverify bless: %s\n", err[0] ? err : "out of memory");
        goto out;
    }
    /* Then write: metrics, frames, ledger last (the ledger entry says the
     * others are in place). */
    staged order[3];
    const char *texts[3];
    size_t lens[3], n = 0;
    order[n] = st[0];
    texts[n] = mb.s;
    lens[n++] = mb.len;
    if (frames) {
        order[n] = st[1];
        texts[n] = frames_text;
        lens[n++] = frames_len;
    }
    order[n] = st[2];
    texts[n] = lb.s;
    lens[n++] = lb.len;
    if (commit_all(lock_dir, order, n, texts, lens) != 0) {
        rc = GC_EXIT_WRITE;
        goto out;
    }
    if (rep.baseline_found)
        printf("blessed %s (%zu fields moved)%s%s\n", project_relative(metrics_arg),
               rep.change_count, frames ? " and " : "", frames ? project_relative(frames_arg) : "");
    else
        printf("blessed %s (first baseline, %zu fields)%s%s\n", project_relative(metrics_arg),
               rep.metric_count, frames ? " and " : "", frames ? project_relative(frames_arg) : "");
    rc = 0;
out:
    gc_sb_free(&mb);
    gc_sb_free(&lb);
    free(frames_text);
    free(old_ledger);
    if (found)
        gc_baseline_free(&keep);
    gc_golden_frames_free(&g);
    gc_report_free(&rep);
    close(lock_fd); /* releases the lock */
    return rc;
}
