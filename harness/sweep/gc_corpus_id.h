/* SPDX-License-Identifier: MIT */
/* The identity of a corpus: what metric baselines are keyed by (docs/golden.md,
 * "What a baseline is for"). SHA-256 over, for each of the 27 containers in
 * order, whether it is there, its size and its first sector (the 0x60-byte
 * header that places every extent, and the rest of that sector). Two copies
 * of one disc have the same identity; another release, another synthetic
 * generator output or a copy whose extents moved has another. Reads 2 KiB
 * per file, so it is checked before anything is decoded. */
#ifndef GC_CORPUS_ID_H
#define GC_CORPUS_ID_H

#include "gc_corpus.h"

#define GC_CORPUS_ID_PREFIX_BYTES 0x800u /* one sector of each file */

/* Lowercase hex SHA-256 into hex[65]. 0, or -1 when OpenSSL fails. */
int gc_corpus_identity(const gc_corpus *c, char hex[65]);

#endif
