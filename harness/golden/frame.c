/* SPDX-License-Identifier: MIT */
/* Frame hashing over the canonical layout of docs/golden.md, through
 * OpenSSL's EVP interface (the SHA256_* calls are deprecated in OpenSSL 3). */
#include "gc_frame.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_bigmem.h"
#include "gc_raster.h"

void gc_frame_free(gc_frame *f)
{
    if (!f)
        return;
    gc_big_free(f->rgba); /* a render target's pixels (gc_bigmem.h) or malloc's */
    f->rgba = NULL;
    f->width = f->height = 0;
}

/* Length of the view name inside its 32-byte field (32 = not terminated). */
static size_t view_len(const gc_frame *f)
{
    size_t n = 0;
    while (n < sizeof f->view && f->view[n])
        n++;
    return n;
}

static void put_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

int gc_frame_header(const gc_frame *f, uint8_t out[GC_FRAME_HEADER_BYTES])
{
    size_t vl = view_len(f);
    if (vl >= GC_FRAME_VIEW_BYTES)
        return -1;
    memset(out, 0, GC_FRAME_HEADER_BYTES);
    memcpy(out + 0, GC_FRAME_TAG, 8);         /* 0x00 tag */
    put_u32le(out + 8, GC_RS_RASTER_VERSION); /* 0x08 rasteriser version */
    put_u32le(out + 12, f->width);            /* 0x0c width, pixels */
    put_u32le(out + 16, f->height);           /* 0x10 height, pixels */
    memcpy(out + 20, GC_FRAME_PIXEL_FORMAT, strlen(GC_FRAME_PIXEL_FORMAT)); /* 0x14, 8 bytes */
    memcpy(out + 28, f->view, vl); /* 0x1c view name, 32 bytes */
    return 0;
}

int gc_frame_manifest(const gc_frame *f, char *manifest, size_t manifest_len)
{
    if (view_len(f) >= GC_FRAME_VIEW_BYTES)
        return -1;
    int n = snprintf(manifest, manifest_len, "%s raster=%d %ux%u %s view=%s%s%s%s%s", GC_FRAME_TAG,
                     GC_RS_RASTER_VERSION, f->width, f->height, GC_FRAME_PIXEL_FORMAT, f->view,
                     f->lighting[0] ? " lighting=" : "", f->lighting,
                     f->objects[0] ? " objects=" : "", f->objects);
    return n < 0 || (size_t)n >= manifest_len ? -1 : 0;
}

int gc_frame_sha256(const gc_frame *f, char hex[65], char *manifest, size_t manifest_len)
{
    uint8_t hdr[GC_FRAME_HEADER_BYTES];
    hex[0] = '\0';
    if (!f->rgba || f->width == 0 || f->height == 0 || gc_frame_header(f, hdr) != 0)
        return -1;
    if (manifest && gc_frame_manifest(f, manifest, manifest_len) != 0)
        return -1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx)
        return -1;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    int ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
             EVP_DigestUpdate(ctx, hdr, sizeof hdr) == 1;
    /* Rows in order; the buffer has no stride padding, so this is one update
     * per row only to keep the layout's definition visible. */
    size_t row = (size_t)f->width * 4;
    for (uint32_t y = 0; ok && y < f->height; y++)
        ok = EVP_DigestUpdate(ctx, f->rgba + row * y, row) == 1;
    ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 32;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return -1;
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
    return 0;
}

uint64_t gc_frame_changed_pixels(const gc_frame *a, const gc_frame *b)
{
    if (a->width != b->width || a->height != b->height || !a->rgba || !b->rgba)
        return UINT64_MAX;
    uint64_t n = 0;
    size_t count = (size_t)a->width * a->height;
    for (size_t i = 0; i < count; i++)
        n += memcmp(a->rgba + 4 * i, b->rgba + 4 * i, 4) != 0;
    return n;
}
