/* SPDX-License-Identifier: MIT */
/* What guards each decoded column (gc_coverage.h).
 *
 * A column is "read" by an invariant whose expressions name it: a bare name
 * in an invariant on its own table, `<table>.<column>` anywhere (aggregates
 * over another table), or `<link>.<column>` in an invariant on a child table
 * whose parent link names this table (or `<link>.<link>.<column>` from a grandchild, up to
 * three steps). A metric "aggregates" it when its
 * expression names `<table>.<column>` (count(<table>) aggregates the table's
 * rows, not a column). A column with a digest in the digests given is guarded
 * by it (gc_digest.h): the baseline notices when it moves, but no check says
 * what it should be; a column with none of the three is guarded by nothing.
 * The analysis is over the expression texts, the names the invariant
 * language resolves. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_coverage.h"
#include "gc_strbuf.h"

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Does text mention `prefix` + `name` as a whole name? A bare mention
 * (prefix "") must not follow a '.', so `patch.radius` is not `radius`. */
static int mentions(const char *text, const char *prefix, const char *name)
{
    /* every mention of prefix + name contains name: most (column, invariant) pairs stop at
     * this one scan (the sweep runs this for 902 columns x 236 invariants, after its levels) */
    if (!text || !strstr(text, name))
        return 0;
    char want[256];
    snprintf(want, sizeof want, "%s%s", prefix, name);
    size_t n = strlen(want);
    for (const char *p = strstr(text, want); p; p = strstr(p + 1, want)) {
        int before_ok = p == text || !(name_char(p[-1]) || p[-1] == '.');
        if (before_ok && !name_char(p[n]))
            return 1;
    }
    return 0;
}

/* The descriptor named `name`, or NULL. */
static const gc_table_desc *desc_named(const gc_table_desc *const *descs, size_t ndesc,
                                       const char *name)
{
    for (size_t i = 0; name && i < ndesc; i++)
        if (strcmp(descs[i]->name, name) == 0)
            return descs[i];
    return NULL;
}

/* xd: the invariant's own table's descriptor (NULL when it has none), and up[i] the parent
 * descriptor of descs[i], both resolved once by the caller: looked up here they were ~20 M of
 * the baseline thread's strcmp instructions a retail sweep (902 columns x 236 invariants). */
static int inv_reads(const gc_inv_info *x, const gc_table_desc *const *descs,
                     const gc_table_desc *const *up, size_t ndesc, const gc_table_desc *xd,
                     const gc_table_desc *t, const char *col)
{
    char dotted[200];
    snprintf(dotted, sizeof dotted, "%s.", t->name);
    if (mentions(x->expect, dotted, col) || mentions(x->where, dotted, col))
        return 1;
    if (xd == t && (mentions(x->expect, "", col) || mentions(x->where, "", col)))
        return 1;
    /* the parent link column: read by every invariant that goes through it */
    if (xd == t && t->parent_column && strcmp(t->parent_column, col) == 0) {
        char link[64];
        snprintf(link, sizeof link, "%s.", t->parent_link);
        if (strstr(x->expect ? x->expect : "", link) || strstr(x->where ? x->where : "", link))
            return 1;
    }
    /* a descendant table's invariant naming this row's column through its chain of parent
     * links: `packet.radius` from a child, `packet.class.scale` from a grandchild (the language
     * resolves every step, docs/invariants.md "Names and rows"); at most three steps. Each
     * such mention contains the column's name. */
    if (!(x->expect && strstr(x->expect, col)) && !(x->where && strstr(x->where, col)))
        return 0;
    const gc_table_desc *d = xd;
    char link[200] = "";
    for (int depth = 0; d && d->parent_table && depth < 3; depth++) {
        size_t used = strlen(link);
        snprintf(link + used, sizeof link - used, "%s.", d->parent_link);
        if (strcmp(d->parent_table, t->name) == 0 &&
            (mentions(x->expect, link, col) || mentions(x->where, link, col)))
            return 1;
        size_t i = 0;
        while (i < ndesc && descs[i] != d)
            i++;
        d = i < ndesc ? up[i] : NULL;
    }
    return 0;
}

/* The mission's named kinds, by column name and unit (README, "mission"). */
const char *gc_coverage_kind(const gc_column *c)
{
    const char *n = c->name;
    if (strcmp(n, "file_ofs") == 0)
        return NULL; /* where the row came from: every sample prints it */
    /* unit "opaque": a value the format stores whose meaning no source
     * establishes (gameplay.header.core_sounds_count: Wrench names it a count
     * and passes it through; what it counts, the level sound bank perhaps, is
     * unparsed), so there is no structure to check it against whatever its
     * name says. docs/verification.md lists every such column and why. */
    if (strcmp(c->unit, "opaque") == 0)
        return NULL;
    if (strstr(n, "count") || strcmp(c->unit, "count") == 0 || strncmp(n, "n_", 2) == 0)
        return "count";
    if (strstr(n, "next") || strstr(n, "prev") || strstr(n, "chain"))
        return "chain";
    if (strstr(n, "radius") || strstr(n, "sphere"))
        return "sphere";
    if (strstr(n, "alpha") || strstr(n, "opac") || strstr(n, "opaque"))
        return "opacity";
    if (strcmp(n, "x") == 0 || strcmp(n, "y") == 0 || strcmp(n, "z") == 0 || strstr(n, "pos"))
        return "position";
    if (strstr(n, "index") || strstr(n, "_row") || strstr(n, "idx") || strstr(n, "indices") ||
        strncmp(n, "parent", 6) == 0)
        return "index";
    return NULL;
}

/* The digested fields as a set: open addressing over FNV-1a, power-of-two size (a baseline has
 * one entry per level and column, ~17,000; sorting them cost the sweep ~0.1 s after its levels). */
typedef struct field_set {
    const char **slot;
    size_t mask;
} field_set;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int field_set_init(field_set *fs, const gc_rep_digest *digests, size_t n)
{
    size_t size = 16;
    while (size < 2 * n)
        size *= 2;
    fs->slot = calloc(size, sizeof *fs->slot);
    fs->mask = size - 1;
    if (!fs->slot)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)fnv1a(digests[i].field) & fs->mask;
        while (fs->slot[h] && strcmp(fs->slot[h], digests[i].field) != 0)
            h = (h + 1) & fs->mask;
        fs->slot[h] = digests[i].field;
    }
    return 0;
}

static int field_set_has(const field_set *fs, const char *field)
{
    size_t h = (size_t)fnv1a(field) & fs->mask;
    while (fs->slot[h]) {
        if (strcmp(fs->slot[h], field) == 0)
            return 1;
        h = (h + 1) & fs->mask;
    }
    return 0;
}

int gc_coverage_compute(const gc_inv_set *set, const gc_rep_digest *digests, size_t ndigests,
                        gc_coverage_fn each, void *ctx, gc_coverage *out)
{
    memset(out, 0, sizeof *out);
    /* the digested fields, as a set (one entry per level: duplicates fold together) */
    field_set fields;
    if (field_set_init(&fields, digests, ndigests) != 0)
        return -1;
    size_t ndesc;
    const gc_table_desc *const *descs = gc_table_registry(&ndesc);
    size_t ninv = gc_inv_count(set);
    const gc_table_desc **up = calloc(ndesc ? ndesc : 1, sizeof *up);
    const gc_table_desc **xd = calloc(ninv ? ninv : 1, sizeof *xd);
    if (!up || !xd) {
        free(up);
        free(xd);
        free(fields.slot);
        return -1;
    }
    for (size_t i = 0; i < ndesc; i++)
        up[i] = desc_named(descs, ndesc, descs[i]->parent_table);
    for (size_t i = 0; i < ninv; i++)
        xd[i] = desc_named(descs, ndesc, gc_inv_get(set, i)->table);
    int rc = 0;
    for (size_t t = 0; t < ndesc && rc == 0; t++) {
        const gc_table_desc *d = descs[t];
        char dotted[200];
        snprintf(dotted, sizeof dotted, "%s.", d->name);
        for (size_t k = 0; k < d->column_count; k++) {
            const gc_column *c = &d->columns[k];
            gc_strbuf invs, mets;
            gc_sb_init(&invs);
            gc_sb_init(&mets);
            gc_coverage_column cc = {d, c, gc_coverage_kind(c), "", "", 0, 0, 0, 0};
            for (size_t i = 0; i < ninv; i++) {
                const gc_inv_info *x = gc_inv_get(set, i);
                if (inv_reads(x, descs, up, ndesc, xd[i], d, c->name))
                    gc_sb_printf(&invs, "%s%s", cc.invariant_count++ ? ", " : "", x->id);
            }
            for (size_t m = 0; m < gc_inv_metric_count(set); m++)
                if (mentions(gc_inv_metric_expr(set, m), dotted, c->name))
                    gc_sb_printf(&mets, "%s%s", cc.metric_count++ ? ", " : "",
                                 gc_inv_metric_name(set, m));
            char field[256];
            snprintf(field, sizeof field, "%s.%s", d->name, c->name);
            cc.digested = ndigests && field_set_has(&fields, field);
            cc.is_ofs = strcmp(c->name, "file_ofs") == 0;
            if (invs.failed || mets.failed)
                rc = -1;
            cc.invariants = invs.s ? invs.s : "";
            cc.metrics = mets.s ? mets.s : "";
            if (!cc.is_ofs) {
                out->columns++;
                if (cc.invariant_count)
                    out->by_invariant++;
                else if (cc.metric_count)
                    out->by_metric_only++;
                else if (cc.digested)
                    out->digest_only++;
                else
                    out->unguarded++;
                out->mission_unread += cc.kind && !cc.invariant_count;
            }
            if (each)
                each(&cc, ctx);
            gc_sb_free(&invs);
            gc_sb_free(&mets);
        }
    }
    free(fields.slot);
    free(up);
    free(xd);
    return rc;
}
