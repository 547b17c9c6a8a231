/* SPDX-License-Identifier: MIT */
/* The SQLite history of sweeps (gc_history.h, docs/history.md). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "gc_history.h"

struct gc_history {
    sqlite3 *db;
};

/* A text column, "" when it is NULL: the schema says NOT NULL, but a database from elsewhere
 * (or SQLite out of memory) can still hand back NULL, and printf's %s and strdup must not get
 * it. */
static const char *col_text(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? (const char *)t : "";
}

/* Schema steps: step k takes a database at user_version k-1 to k. Never edit
 * a step that has shipped; add one. */
static const char *const schema_steps[] = {
    /* 1: runs and their per level x invariant / metric / frame figures */
    "CREATE TABLE runs("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " time TEXT NOT NULL,"         /* UTC, ISO 8601: sorts as text */
    " corpus_label TEXT NOT NULL," /* the path, or "synthetic full seed 1" */
    " corpus_id TEXT NOT NULL,"    /* gc_corpus_identity(): baselines are keyed by it */
    " git_commit TEXT,"            /* NULL: not run from a checkout */
    " git_dirty INTEGER NOT NULL DEFAULT 0,"
    " version TEXT NOT NULL," /* gcverify's */
    " options TEXT NOT NULL," /* the command line */
    " tier TEXT NOT NULL,"
    " levels INTEGER NOT NULL);" /* levels selected */
    "CREATE TABLE results("
    " run INTEGER NOT NULL REFERENCES runs(id),"
    " invariant TEXT NOT NULL,"
    " level INTEGER NOT NULL," /* -1: corpus scope */
    " severity TEXT NOT NULL,"
    " checked INTEGER NOT NULL,"
    " failed INTEGER NOT NULL,"
    " gating INTEGER NOT NULL,"
    " PRIMARY KEY(run, invariant, level));"
    "CREATE TABLE metrics("
    " run INTEGER NOT NULL REFERENCES runs(id),"
    " level INTEGER NOT NULL,"
    " name TEXT NOT NULL,"
    " value REAL," /* NULL: the metric was null */
    " PRIMARY KEY(run, level, name));"
    "CREATE TABLE frames("
    " run INTEGER NOT NULL REFERENCES runs(id),"
    " level INTEGER NOT NULL,"
    " view TEXT NOT NULL,"
    " sha256 TEXT NOT NULL,"
    " golden TEXT NOT NULL," /* "" no golden */
    " status TEXT NOT NULL,"
    " PRIMARY KEY(run, level, view));",
    /* 2: the verdict of a run and of each metric (last-good of a metric asks
     * whether it moved against the baseline), and the index the series and
     * last-good queries walk */
    "ALTER TABLE runs ADD COLUMN exit_code INTEGER;" /* NULL: recorded by schema 1 */
    "ALTER TABLE metrics ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;"
    "CREATE INDEX results_by_item ON results(invariant, level, run);"
    "CREATE INDEX metrics_by_item ON metrics(name, level, run);"
    "CREATE INDEX frames_by_item ON frames(view, level, run);",
};

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    char *m = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &m) != SQLITE_OK) {
        snprintf(err, errlen, "%s", m ? m : sqlite3_errmsg(db));
        sqlite3_free(m);
        return -1;
    }
    return 0;
}

int gc_history_schema_version(gc_history *h)
{
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(h->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

gc_history *gc_history_open_at(const char *path, int version, char *err, size_t errlen)
{
    gc_history *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, h->db ? sqlite3_errmsg(h->db) : "cannot open");
        gc_history_close(h);
        return NULL;
    }
    /* a second sweep waits for the first one's transaction rather than fail */
    sqlite3_busy_timeout(h->db, GC_HISTORY_BUSY_MS);
    /* the default rollback journal: one file beside the database while a run
     * is written, none afterwards (a CI cache keeps the one file) */
    char e[512];
    if (exec(h->db, "PRAGMA foreign_keys=ON", e, sizeof e) != 0)
        goto fail;
    /* migrate under a write lock, so two first opens do not both create */
    if (exec(h->db, "BEGIN IMMEDIATE", e, sizeof e) != 0)
        goto fail;
    int have = gc_history_schema_version(h);
    int steps = (int)(sizeof schema_steps / sizeof *schema_steps);
    if (have < 0) {
        snprintf(e, sizeof e, "not an SQLite database (or unreadable)");
        goto rollback;
    }
    if (have > steps) {
        snprintf(e, sizeof e,
                 "history schema version %d is newer than this gcverify's (%d): upgrade gcverify",
                 have, steps);
        goto rollback;
    }
    if (have == 0) {
        /* a database of something else must not be written into */
        sqlite3_stmt *st;
        int tables = 0;
        if (sqlite3_prepare_v2(h->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) ==
            SQLITE_OK) {
            if (sqlite3_step(st) == SQLITE_ROW)
                tables = sqlite3_column_int(st, 0);
            sqlite3_finalize(st);
        }
        if (tables) {
            snprintf(e, sizeof e, "not a gcverify history (it has tables but no schema version)");
            goto rollback;
        }
    }
    for (int v = have; v < version && v < steps; v++) {
        if (exec(h->db, schema_steps[v], e, sizeof e) != 0)
            goto rollback;
        char pv[64];
        snprintf(pv, sizeof pv, "PRAGMA user_version=%d", v + 1);
        if (exec(h->db, pv, e, sizeof e) != 0)
            goto rollback;
    }
    if (exec(h->db, "COMMIT", e, sizeof e) != 0)
        goto rollback;
    return h;
rollback:
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
fail:
    snprintf(err, errlen, "history %s: %s", path, e);
    gc_history_close(h);
    return NULL;
}

gc_history *gc_history_open(const char *path, char *err, size_t errlen)
{
    return gc_history_open_at(path, GC_HISTORY_SCHEMA, err, errlen);
}

void gc_history_close(gc_history *h)
{
    if (!h)
        return;
    if (h->db)
        sqlite3_close(h->db);
    free(h);
}

void gc_history_git_state(const char *dir, char *commit, size_t len, int *dirty)
{
    commit[0] = 0;
    *dirty = 0;
    if (!dir || !*dir || strchr(dir, '\''))
        return;
    char cmd[4352];
    snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse --verify -q HEAD 2>/dev/null", dir);
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    char line[128] = "";
    if (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\r\n")] = 0;
        if (strlen(line) == 40)
            snprintf(commit, len, "%s", line);
    }
    pclose(p);
    if (!commit[0])
        return;
    /* tracked files only: build directories and caches are not a change */
    snprintf(cmd, sizeof cmd, "git -C '%s' status --porcelain --untracked-files=no 2>/dev/null",
             dir);
    p = popen(cmd, "r");
    if (!p)
        return;
    if (fgets(line, sizeof line, p))
        *dirty = 1;
    pclose(p);
}

/* The test hook of the killed-run test: GC_HISTORY_TEST_KILL=N makes the
 * writer kill itself (SIGKILL, no cleanup) after N rows of the transaction. */
static long kill_after(void)
{
    const char *s = getenv("GC_HISTORY_TEST_KILL");
    return s && *s ? atol(s) : -1;
}

static int step_done(sqlite3 *db, sqlite3_stmt *st, char *err, size_t errlen, long *rows)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    long k = kill_after();
    if (k >= 0 && ++*rows >= k)
        raise(SIGKILL);
    return 0;
}

static int metric_changed(const gc_report *r, const gc_rep_metric *m)
{
    for (size_t i = 0; i < r->change_count; i++)
        if (r->changes[i].level == m->level && strcmp(r->changes[i].field, m->name) == 0)
            return 1;
    return 0;
}

long long gc_history_record(gc_history *h, const gc_report *r, const gc_history_run_info *ri,
                            char *err, size_t errlen)
{
    char now[32];
    if (ri && ri->time) {
        snprintf(now, sizeof now, "%s", ri->time);
    } else {
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    sqlite3 *db = h->db;
    sqlite3_stmt *run = NULL, *res = NULL, *met = NULL, *frm = NULL;
    long rows = 0;
    long long id = -1;
    if (exec(db, "BEGIN IMMEDIATE", err, errlen) != 0)
        return -1;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO runs(time, corpus_label, corpus_id, git_commit, git_dirty,"
                           " version, options, tier, levels, exit_code)"
                           " VALUES(?,?,?,?,?,?,?,?,?,?)",
                           -1, &run, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO results VALUES(?,?,?,?,?,?,?)", -1, &res, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "INSERT INTO metrics(run, level, name, value, changed)"
                           " VALUES(?,?,?,?,?)",
                           -1, &met, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO frames VALUES(?,?,?,?,?,?)", -1, &frm, NULL) !=
            SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        goto fail;
    }
    sqlite3_bind_text(run, 1, now, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(run, 2, r->corpus_label, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(run, 3, r->corpus_id, -1, SQLITE_TRANSIENT);
    if (ri && ri->git_commit && ri->git_commit[0])
        sqlite3_bind_text(run, 4, ri->git_commit, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(run, 4);
    sqlite3_bind_int(run, 5, ri ? ri->git_dirty : 0);
    sqlite3_bind_text(run, 6, r->version, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(run, 7, ri && ri->options ? ri->options : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(run, 8, r->tier, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(run, 9, (int)r->selected_count);
    sqlite3_bind_int(run, 10, r->exit_code);
    if (step_done(db, run, err, errlen, &rows) != 0)
        goto fail;
    id = sqlite3_last_insert_rowid(db);
    for (size_t i = 0; i < r->result_count; i++) {
        const gc_rep_result *x = &r->results[i];
        sqlite3_bind_int64(res, 1, id);
        sqlite3_bind_text(res, 2, x->invariant, -1, SQLITE_STATIC);
        sqlite3_bind_int(res, 3, x->level);
        sqlite3_bind_text(res, 4, x->severity, -1, SQLITE_STATIC);
        sqlite3_bind_int64(res, 5, (sqlite3_int64)x->checked);
        sqlite3_bind_int64(res, 6, (sqlite3_int64)x->failed);
        sqlite3_bind_int(res, 7, x->gating);
        if (step_done(db, res, err, errlen, &rows) != 0)
            goto fail;
    }
    for (size_t i = 0; i < r->metric_count; i++) {
        const gc_rep_metric *m = &r->metrics[i];
        sqlite3_bind_int64(met, 1, id);
        sqlite3_bind_int(met, 2, m->level);
        sqlite3_bind_text(met, 3, m->name, -1, SQLITE_STATIC);
        if (m->is_null)
            sqlite3_bind_null(met, 4);
        else
            sqlite3_bind_double(met, 4, m->value);
        sqlite3_bind_int(met, 5, metric_changed(r, m));
        if (step_done(db, met, err, errlen, &rows) != 0)
            goto fail;
    }
    for (size_t i = 0; i < r->frame_count; i++) {
        const gc_rep_frame *f = &r->frames[i];
        sqlite3_bind_int64(frm, 1, id);
        sqlite3_bind_int(frm, 2, f->level);
        sqlite3_bind_text(frm, 3, f->view, -1, SQLITE_STATIC);
        sqlite3_bind_text(frm, 4, f->sha256, -1, SQLITE_STATIC);
        sqlite3_bind_text(frm, 5, f->golden, -1, SQLITE_STATIC);
        sqlite3_bind_text(frm, 6, f->status, -1, SQLITE_STATIC);
        if (step_done(db, frm, err, errlen, &rows) != 0)
            goto fail;
    }
    sqlite3_finalize(run);
    sqlite3_finalize(res);
    sqlite3_finalize(met);
    sqlite3_finalize(frm);
    if (exec(db, "COMMIT", err, errlen) != 0) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return id;
fail:
    sqlite3_finalize(run);
    sqlite3_finalize(res);
    sqlite3_finalize(met);
    sqlite3_finalize(frm);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* ---- reading ---- */

/* The series query of q: rows (run id, time, commit, dirty, level, id, bad,
 * text) in run order. bad: 1 failed / regressed / changed, 0 clean. */
static int prepare_series(gc_history *h, const gc_history_query *q, sqlite3_stmt **st, char *err,
                          size_t errlen)
{
    const char *sql = NULL;
    switch (q->kind) {
    case GC_HIST_INVARIANT:
        sql = "SELECT r.id, r.time, r.git_commit, r.git_dirty, x.level, x.invariant,"
              " x.failed > 0, 'failed ' || x.failed || ' of ' || x.checked ||"
              " ' (' || x.severity || CASE WHEN x.gating THEN ', gating' ELSE '' END || ')'"
              " FROM results x JOIN runs r ON r.id = x.run"
              " WHERE (?1 IS NULL OR x.invariant = ?1) AND (?2 = -2 OR x.level = ?2)"
              " AND (?3 IS NULL OR r.time >= ?3) ORDER BY r.id, x.invariant, x.level";
        break;
    case GC_HIST_FRAME:
        sql = "SELECT r.id, r.time, r.git_commit, r.git_dirty, x.level, x.view,"
              " x.status IN ('regressed', 'nondeterministic', 'error'),"
              " x.status || ' ' || substr(x.sha256, 1, 16)"
              " FROM frames x JOIN runs r ON r.id = x.run"
              " WHERE (?1 IS NULL OR x.view = ?1) AND (?2 = -2 OR x.level = ?2)"
              " AND (?3 IS NULL OR r.time >= ?3) ORDER BY r.id, x.level, x.view";
        break;
    case GC_HIST_METRIC:
        sql = "SELECT r.id, r.time, r.git_commit, r.git_dirty, x.level, x.name, x.changed,"
              " coalesce(CAST(x.value AS TEXT), 'null') ||"
              " CASE WHEN x.changed THEN ' (changed against the baseline)' ELSE '' END"
              " FROM metrics x JOIN runs r ON r.id = x.run"
              " WHERE (?1 IS NULL OR x.name = ?1) AND (?2 = -2 OR x.level = ?2)"
              " AND (?3 IS NULL OR r.time >= ?3) ORDER BY r.id, x.level, x.name";
        break;
    }
    if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(h->db));
        return -1;
    }
    if (q->id)
        sqlite3_bind_text(*st, 1, q->id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(*st, 2, q->level);
    if (q->since)
        sqlite3_bind_text(*st, 3, q->since, -1, SQLITE_TRANSIENT);
    return 0;
}

static void level_text(char *b, size_t n, int level)
{
    if (level == GC_LEVEL_CORPUS)
        snprintf(b, n, "corpus");
    else
        snprintf(b, n, "level %d", level);
}

static void commit_text(char *b, size_t n, sqlite3_stmt *st, int col_commit, int col_dirty)
{
    const unsigned char *c = sqlite3_column_text(st, col_commit);
    snprintf(b, n, "%.12s%s", c ? (const char *)c : "-",
             c && sqlite3_column_int(st, col_dirty) ? "+dirty" : "");
}

int gc_history_print(gc_history *h, const gc_history_query *q, FILE *out, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (prepare_series(h, q, &st, err, errlen) != 0)
        return -1;
    int rc;
    size_t n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char lv[16], cm[32];
        level_text(lv, sizeof lv, sqlite3_column_int(st, 4));
        commit_text(cm, sizeof cm, st, 2, 3);
        fprintf(out, "run %-4lld %s %-18s %-9s %-34s %s\n", (long long)sqlite3_column_int64(st, 0),
                col_text(st, 1), cm, lv, col_text(st, 5), col_text(st, 7));
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(h->db));
        return -1;
    }
    if (!n)
        fprintf(out, "(nothing recorded for that selection)\n");
    return 0;
}

typedef struct run_state {
    long long id;
    char time[32], commit[48];
    int dirty, bad;
} run_state;

int gc_history_last_good(gc_history *h, const gc_history_query *q, FILE *out, char *err,
                         size_t errlen)
{
    sqlite3_stmt *st;
    if (prepare_series(h, q, &st, err, errlen) != 0)
        return -1;
    /* fold the rows of a run (every level of an invariant) into one state */
    run_state *runs = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0);
        if (!n || runs[n - 1].id != id) {
            if (n == cap) {
                cap = cap ? cap * 2 : 32;
                run_state *nr = realloc(runs, cap * sizeof *runs);
                if (!nr) {
                    free(runs);
                    sqlite3_finalize(st);
                    snprintf(err, errlen, "out of memory");
                    return -1;
                }
                runs = nr;
            }
            run_state *s = &runs[n++];
            memset(s, 0, sizeof *s);
            s->id = id;
            snprintf(s->time, sizeof s->time, "%s", col_text(st, 1));
            const unsigned char *c = sqlite3_column_text(st, 2);
            snprintf(s->commit, sizeof s->commit, "%s", c ? (const char *)c : "-");
            s->dirty = sqlite3_column_int(st, 3);
        }
        if (sqlite3_column_int(st, 6))
            runs[n - 1].bad = 1;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(runs);
        snprintf(err, errlen, "%s", sqlite3_errmsg(h->db));
        return -1;
    }
    if (!n) {
        free(runs);
        return 2;
    }
    size_t good = n;
    for (size_t i = n; i-- > 0;)
        if (!runs[i].bad) {
            good = i;
            break;
        }
    int ret;
    if (good == n) {
        fprintf(out,
                "last good: none (bad in all %zu recorded runs, the first run %lld at %s, "
                "commit %s%s)\n",
                n, runs[0].id, runs[0].time, runs[0].commit, runs[0].dirty ? " (dirty)" : "");
        ret = 1;
    } else {
        const run_state *g = &runs[good];
        fprintf(out, "last good: run %lld at %s, commit %s%s\n", g->id, g->time, g->commit,
                g->dirty ? " (dirty)" : "");
        if (good + 1 < n) {
            const run_state *b = &runs[good + 1];
            fprintf(out, "first bad: run %lld at %s, commit %s%s\n", b->id, b->time, b->commit,
                    b->dirty ? " (dirty)" : "");
        } else {
            fprintf(out, "first bad: none (clean in the newest recorded run)\n");
        }
        ret = 0;
    }
    free(runs);
    return ret;
}

int gc_history_strip(gc_history *h, size_t n, gc_html_history *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db,
                           "SELECT id, time, git_commit, git_dirty FROM"
                           " (SELECT * FROM runs ORDER BY id DESC LIMIT ?) ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(h->db));
        return -1;
    }
    sqlite3_bind_int64(st, 1, (sqlite3_int64)n);
    long long ids[512];
    while (sqlite3_step(st) == SQLITE_ROW && out->run_count < 512) {
        char **nl = realloc(out->run_labels, (out->run_count + 1) * sizeof *nl);
        if (!nl)
            break;
        out->run_labels = nl;
        char cm[32], label[128];
        commit_text(cm, sizeof cm, st, 2, 3);
        ids[out->run_count] = sqlite3_column_int64(st, 0);
        snprintf(label, sizeof label, "run %lld, %s, %s", ids[out->run_count], col_text(st, 1), cm);
        out->run_labels[out->run_count++] = strdup(label);
    }
    sqlite3_finalize(st);
    if (!out->run_count)
        return 0;
    /* the items that failed in any of those runs */
    if (sqlite3_prepare_v2(h->db,
                           "SELECT DISTINCT invariant, level FROM results WHERE run >= ? AND"
                           " failed > 0 ORDER BY invariant, level",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(h->db));
        gc_html_history_free(out);
        return -1;
    }
    sqlite3_bind_int64(st, 1, ids[0]);
    while (sqlite3_step(st) == SQLITE_ROW) {
        gc_html_hist_row *nr = realloc(out->rows, (out->row_count + 1) * sizeof *nr);
        if (!nr)
            break;
        out->rows = nr;
        gc_html_hist_row *row = &out->rows[out->row_count++];
        row->invariant = strdup(col_text(st, 0));
        row->level = sqlite3_column_int(st, 1);
        row->state = calloc(out->run_count, 1);
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(h->db,
                           "SELECT failed FROM results WHERE run = ? AND invariant = ? AND"
                           " level = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(h->db));
        gc_html_history_free(out);
        return -1;
    }
    for (size_t i = 0; i < out->row_count; i++) {
        gc_html_hist_row *row = &out->rows[i];
        for (size_t k = 0; k < out->run_count && row->state && row->invariant; k++) {
            sqlite3_bind_int64(st, 1, ids[k]);
            sqlite3_bind_text(st, 2, row->invariant, -1, SQLITE_STATIC);
            sqlite3_bind_int(st, 3, row->level);
            if (sqlite3_step(st) == SQLITE_ROW)
                row->state[k] =
                    sqlite3_column_int64(st, 0) > 0 ? GC_HTML_HIST_FAIL : GC_HTML_HIST_CLEAN;
            sqlite3_reset(st);
        }
    }
    sqlite3_finalize(st);
    return 0;
}
