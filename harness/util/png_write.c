/* SPDX-License-Identifier: MIT */
/* RGBA8 PNG output through libpng: encoded in memory, then written with
 * gc_write_file_atomic (so a PNG follows the same rules as every other
 * file: "-" is stdout, temp + fsync + rename, devices written through). */
#define _POSIX_C_SOURCE 200809L
#include "gc_png.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_fsutil.h"
#include "gc_strbuf.h"

/* PNG allows 2^31-1; keep the row-pointer array and the 4*w row size sane. */
#define GC_PNG_MAX_SIDE 65535u

typedef struct png_err_ctx {
    char *err;
    size_t errlen;
} png_err_ctx;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_err_ctx *ctx = png_get_error_ptr(png);
    if (ctx && ctx->errlen)
        snprintf(ctx->err, ctx->errlen, "libpng: %s", msg);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* libraries do not print; warnings do not fail the write */
}

#define SET_ERR(...)                                                                               \
    do {                                                                                           \
        if (errlen)                                                                                \
            snprintf(err, errlen, __VA_ARGS__);                                                    \
    } while (0)

static void on_png_write(png_structp png, png_bytep data, png_size_t len)
{
    gc_sb_put(png_get_io_ptr(png), (const char *)data, len);
}

static void on_png_flush(png_structp png)
{
    (void)png;
}

/* The libpng part, separate so no automatic variable is live across setjmp. */
static int write_png_stream(gc_strbuf *out, const uint8_t *rgba, uint32_t w, uint32_t h,
                            png_bytep *rows, png_err_ctx *ctx)
{
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, ctx, on_png_error, on_png_warning);
    if (!png) {
        if (ctx->errlen)
            snprintf(ctx->err, ctx->errlen, "libpng: cannot create a write struct");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        if (ctx->errlen)
            snprintf(ctx->err, ctx->errlen, "libpng: cannot create an info struct");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_set_write_fn(png, out, on_png_write, on_png_flush);
    /* level 6 is libpng's default; fixed so output never depends on it */
    png_set_compression_level(png, 6);
    png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    for (uint32_t y = 0; y < h; y++)
        rows[y] = (png_bytep)(rgba + (size_t)y * w * 4);
    png_set_rows(png, info, rows);
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

int gc_png_write_rgba(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h, char *err,
                      size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    if (!path || !rgba || w == 0 || h == 0 || w > GC_PNG_MAX_SIDE || h > GC_PNG_MAX_SIDE) {
        if (errlen)
            snprintf(err, errlen, "cannot write a %ux%u PNG (sides must be 1..%u)", (unsigned)w,
                     (unsigned)h, GC_PNG_MAX_SIDE);
        return -1;
    }
    png_bytep *rows = malloc((size_t)h * sizeof *rows);
    if (!rows) {
        SET_ERR("out of memory writing %s", path);
        return -1;
    }
    gc_strbuf out;
    gc_sb_init(&out);
    png_err_ctx ctx = {err, errlen};
    int rc = write_png_stream(&out, rgba, w, h, rows, &ctx);
    free(rows);
    if (rc == 0 && out.failed) {
        SET_ERR("out of memory writing %s", path);
        rc = -1;
    }
    if (rc == 0)
        rc = gc_write_file_atomic(path, out.s, out.len, err, errlen);
    gc_sb_free(&out);
    return rc;
}
