/* SPDX-License-Identifier: MIT */
/* WAD LZ ("WAD" magic) decompressor, exactly per formats.md §1.
 *
 * Stream: 16-byte header ("WAD", s32 total size INCLUDING the header at
 * offset 3, 9 ignored label bytes), then packets up to the declared size.
 *
 * Contract on hostile input: never reads past min(declared size, src_size),
 * never writes past dst_capacity, never loops forever. Every malformed stream
 * class returns its own status with the file offset of the offending packet
 * in *diag:
 *   GC_E_MAGIC      not "WAD"
 *   GC_E_TRUNCATED  buffer shorter than 16 bytes or than the declared size;
 *                   stream ends inside a packet
 *   GC_E_RANGE      declared size < 16 (or negative); output exceeds capacity
 *   GC_E_CORRUPT    match reaching before the output start; literal after literal
 */
#ifndef GC_LZ_H
#define GC_LZ_H

#include <stddef.h>
#include <stdint.h>

#include "gc_status.h"

#define GC_LZ_HEADER_BYTES 16u

/* Declared total size (header included) of the stream at src, without
 * decoding. GC_E_MAGIC / GC_E_TRUNCATED / GC_E_RANGE as above. */
gc_status gc_lz_stream_size(const uint8_t *src, size_t src_size, uint64_t src_file_ofs,
                            size_t *stream_size, gc_diag *diag);

/* The most output any stream of `stream_size` bytes (its size field, header
 * included) can decode to: exact, from the packet grammar
 * (docs/formats/wad-lz.md "How much a stream can expand"). With S =
 * stream_size - 16 packet bytes it is 0 for S < 4, else
 * 288 * floor((S - 4) / 4) + {1, 4, 9, 34}[(S - 4) % 4], at most 72 * S - 287.
 * Callers bound their allocations by it instead of a guessed ratio. */
uint64_t gc_lz_max_output(uint64_t stream_size);

/* Decompress the stream at src (src_size bytes available; the stream's own
 * size field bounds the read) into dst[0..dst_capacity). On GC_OK *dst_len is
 * the decompressed length. src_file_ofs is the absolute file offset of src[0],
 * used only for diagnostics. */
gc_status gc_lz_decompress(const uint8_t *src, size_t src_size, uint64_t src_file_ofs, uint8_t *dst,
                           size_t dst_capacity, size_t *dst_len, gc_diag *diag);

#endif
