/* SPDX-License-Identifier: MIT */
/* Corpus identity (gc_corpus_id.h). */
#include "gc_corpus_id.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

int gc_corpus_identity(const gc_corpus *c, char hex[65])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx)
        return -1;
    static const char tag[] = "gcverify corpus identity 1\n";
    int ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
             EVP_DigestUpdate(ctx, tag, sizeof tag - 1) == 1;
    for (int i = 0; ok && i < GC_LEVEL_COUNT; i++) {
        const gc_corpus_file *f = &c->files[i];
        /* per file: u32 index, u8 present, u64 size (little-endian), then the
         * first min(size, 0x800) bytes */
        uint8_t rec[13];
        put_le(rec, (uint64_t)i, 4);
        rec[4] = (uint8_t)(f->ok != 0);
        put_le(rec + 5, f->ok ? (uint64_t)f->size : 0, 8);
        ok = EVP_DigestUpdate(ctx, rec, sizeof rec) == 1;
        if (ok && f->ok && f->size) {
            /* the scan read the first sector (the files are read later) */
            size_t n = f->size < GC_CORPUS_ID_PREFIX_BYTES ? f->size : GC_CORPUS_ID_PREFIX_BYTES;
            if (n > f->head_len)
                n = f->head_len;
            ok = EVP_DigestUpdate(ctx, f->head, n) == 1;
        }
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 32;
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return -1;
    for (unsigned i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return 0;
}
