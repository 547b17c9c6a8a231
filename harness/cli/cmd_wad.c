/* SPDX-License-Identifier: MIT */
/* `gcverify wad`: decompress or compress one WAD LZ stream (formats.md §1),
 * the tool counterpart of wrenchbuild's decompress/compress. Output goes to a
 * temporary file renamed into place, so a failure never leaves a partial OUT. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli_opts.h"
#include "gc_exit.h"
#include "gc_fsutil.h"
#include "gc_lz.h"
#include "gc_status.h"
#include "sy_buf.h"
#include "sy_lz.h"

int gc_cmd_wad(int argc, char **argv);

/* The stream holds no decompressed size, so decompress grows its buffer up to
 * the most the stream's packets can produce (gc_lz_max_output: exact, about
 * 72 times the stream size, docs/formats/wad-lz.md), and never past
 * GC_WAD_MAX_OUT. Real streams compress about 1.7:1. */
#define GC_WAD_MAX_OUT     ((size_t)1 << 30)
#define GC_WAD_LABEL_BYTES 9u

enum { K_OFFSET = GC_OPT_LONG, K_LABEL };

static const gc_opt wad_opts[] = {
    {"offset", K_OFFSET, "N", "decompress: where the stream starts in IN (default 0)"},
    {"label", K_LABEL, "NAME", "compress: the 9-byte header label (default \"gcverify\")"},
};
static const gc_opt_group wad_groups[] = {GC_OPT_GROUP(NULL, wad_opts)};
static const gc_cmd_spec wad_spec =
    GC_CMD_SPEC("wad",
                "decompress IN OUT [--offset N]\n"
                "compress IN OUT [--label NAME]",
                "decompress  decode the WAD LZ stream that starts at byte N of IN (default 0;\n"
                "            decimal or 0x hex) and write the decompressed bytes to OUT. The\n"
                "            stream's own size field (offset 3) bounds what is read; the output\n"
                "            is bounded by what that many bytes of packets can produce (about\n"
                "            72x) and by 1 GiB.\n"
                "compress    encode all of IN as one WAD LZ stream (0x2000-byte block rule,\n"
                "            pads) with the synthetic corpus encoder, check that it decodes back\n"
                "            to IN, and write it to OUT. NAME is the 9-byte header label\n"
                "            (default \"gcverify\"; at most 9 characters).\n",
                wad_groups,
                "OUT is written to a temporary file and renamed, so a failure leaves no\n"
                "partial file; OUT - is standard output. Exit codes: 0 ok; 1 the stream is\n"
                "malformed (the message gives the file offset); 2 bad usage; 3 IN unreadable;\n"
                "5 OUT could not be written.\n");

static int parse_offset(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || !end || *end)
        return -1;
    *out = v;
    return 0;
}

static void report_diag(const char *in, const gc_diag *d)
{
    fprintf(stderr, "gcverify wad: %s: %s at file offset 0x%" PRIx64 "%s%s: %s\n", in,
            gc_status_name(d->status), d->file_ofs, d->where[0] ? " in " : "", d->where, d->msg);
}

/* Decode with a growing buffer. On success *out (malloc'd) holds *out_len bytes. */
static gc_status decode_grow(const uint8_t *src, size_t src_size, uint64_t file_ofs, uint8_t **out,
                             size_t *out_len, gc_diag *diag)
{
    size_t stream_size = 0;
    gc_status s = gc_lz_stream_size(src, src_size, file_ofs, &stream_size, diag);
    if (s != GC_OK)
        return s;
    uint64_t most = gc_lz_max_output(stream_size);
    size_t limit = most < GC_WAD_MAX_OUT ? (size_t)most : GC_WAD_MAX_OUT;
    size_t cap = stream_size * 4 < 65536 ? 65536 : stream_size * 4;
    if (cap > limit)
        cap = limit;
    for (;;) {
        uint8_t *buf = malloc(cap ? cap : 1);
        if (!buf)
            return gc_diag_set(diag, GC_E_NOMEM, file_ofs, "cannot allocate %zu bytes", cap);
        gc_diag probe;
        gc_diag_init(&probe);
        size_t got = 0;
        s = gc_lz_decompress(src, src_size, file_ofs, buf, cap, &got, &probe);
        if (s == GC_OK) {
            *out = buf;
            *out_len = got;
            return GC_OK;
        }
        free(buf);
        /* the header was already validated, so GC_E_RANGE here means capacity */
        if (s != GC_E_RANGE || cap >= limit) {
            if (s == GC_E_RANGE)
                return gc_diag_set(diag, GC_E_RANGE, probe.file_ofs,
                                   "decompressed data exceeds %zu bytes (the most a %zu-byte "
                                   "stream can produce, at most 1 GiB)",
                                   limit, stream_size);
            *diag = probe;
            return s;
        }
        cap = cap > limit / 4 ? limit : cap * 4;
    }
}

static int wad_decompress(const char *in, const char *out, uint64_t offset)
{
    char err[512];
    size_t size = 0;
    char *file = gc_read_file(in, &size, err, sizeof err);
    if (!file) {
        fprintf(stderr, "gcverify wad: %s\n", err);
        return 3;
    }
    if (offset > size) {
        fprintf(stderr, "gcverify wad: %s: --offset 0x%" PRIx64 " is past the end (%zu bytes)\n",
                in, offset, size);
        free(file);
        return 1;
    }
    gc_diag d;
    gc_diag_init(&d);
    gc_diag_push(&d, "%s", in);
    uint8_t *data = NULL;
    size_t len = 0;
    gc_status s =
        decode_grow((const uint8_t *)file + offset, size - (size_t)offset, offset, &data, &len, &d);
    if (s != GC_OK) {
        report_diag(in, &d);
        free(file);
        return 1;
    }
    size_t stream_size = 0;
    gc_diag_init(&d);
    gc_lz_stream_size((const uint8_t *)file + offset, size - (size_t)offset, offset, &stream_size,
                      &d);
    free(file);
    if (gc_write_file_atomic(out, data, len, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify wad: %s\n", err);
        free(data);
        return GC_EXIT_WRITE;
    }
    free(data);
    /* with "-" the stream is on stdout: the note goes to stderr */
    fprintf(strcmp(out, "-") == 0 ? stderr : stdout,
            "%s @0x%" PRIx64 ": %zu compressed bytes -> %s: %zu bytes\n", in, offset, stream_size,
            out, len);
    return 0;
}

static int wad_compress(const char *in, const char *out, const char *label)
{
    char err[512];
    size_t size = 0;
    char *file = gc_read_file(in, &size, err, sizeof err);
    if (!file) {
        fprintf(stderr, "gcverify wad: %s\n", err);
        return 3;
    }
    sy_buf z;
    sy_buf_init(&z);
    if (sy_lz_compress((const uint8_t *)file, size, label, &z) != 0 || z.failed) {
        fprintf(stderr, "gcverify wad: %s: out of memory while compressing %zu bytes\n", in, size);
        sy_buf_free(&z);
        free(file);
        return 1;
    }
    /* check the round trip before anything is written */
    gc_diag d;
    gc_diag_init(&d);
    gc_diag_push(&d, "%s(compressed)", in);
    uint8_t *back = malloc(size + 1);
    size_t got = 0;
    gc_status s = back ? gc_lz_decompress(z.data, z.len, 0, back, size + 1, &got, &d) : GC_E_NOMEM;
    if (s != GC_OK || got != size || (size && memcmp(back, file, size) != 0)) {
        if (s != GC_OK)
            report_diag(in, &d);
        else
            fprintf(stderr, "gcverify wad: %s: the compressed stream decodes to different bytes\n",
                    in);
        free(back);
        sy_buf_free(&z);
        free(file);
        return 1;
    }
    free(back);
    free(file);
    int rc = 0;
    if (gc_write_file_atomic(out, z.data, z.len, err, sizeof err) != 0) {
        fprintf(stderr, "gcverify wad: %s\n", err);
        rc = GC_EXIT_WRITE;
    } else {
        fprintf(strcmp(out, "-") == 0 ? stderr : stdout,
                "%s: %zu bytes -> %s: %zu compressed bytes (%.3f:1)\n", in, size, out, z.len,
                z.len ? (double)size / (double)z.len : 0.0);
    }
    sy_buf_free(&z);
    return rc;
}

int gc_cmd_wad(int argc, char **argv)
{
    const char *pos[3] = {NULL, NULL, NULL};
    int npos = 0;
    const char *offset_s = NULL, *label = NULL;
    gc_opts p;
    if (gc_opts_init(&p, &wad_spec, argc, argv) != 0)
        return 2;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return 2;
        case GC_OPT_ARG:
            if (npos >= 3)
                return gc_opts_usage_error(&wad_spec, "too many arguments");
            pos[npos++] = p.value;
            break;
        case K_OFFSET:
            offset_s = p.value;
            break;
        case K_LABEL:
            label = p.value;
            break;
        }
    }
    if (npos != 3)
        return gc_opts_usage_error(&wad_spec, "an action, IN and OUT are needed");
    if (strcmp(pos[0], "decompress") == 0) {
        uint64_t offset = 0;
        if (label) {
            fprintf(stderr, "gcverify wad: --label is for compress\n");
            return 2;
        }
        if (offset_s && parse_offset(offset_s, &offset) != 0) {
            fprintf(stderr, "gcverify wad: bad --offset '%s'\n", offset_s);
            return 2;
        }
        return wad_decompress(pos[1], pos[2], offset);
    }
    if (strcmp(pos[0], "compress") == 0) {
        if (offset_s) {
            fprintf(stderr, "gcverify wad: --offset is for decompress\n");
            return 2;
        }
        if (!label)
            label = "gcverify";
        if (strlen(label) > GC_WAD_LABEL_BYTES) {
            fprintf(stderr, "gcverify wad: --label '%s' is longer than %u bytes\n", label,
                    GC_WAD_LABEL_BYTES);
            return 2;
        }
        return wad_compress(pos[1], pos[2], label);
    }
    fprintf(stderr, "gcverify wad: unknown action '%s' (decompress or compress)\n", pos[0]);
    return 2;
}
