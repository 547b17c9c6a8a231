/* SPDX-License-Identifier: MIT */
/* VIF1 code-word walker: steps through a VIF command list one code at a time,
 * sizing every code from its COMMAND byte (level-assets.md "The VIF1 code
 * word", formats.md §5.3). It interprets nothing beyond framing; the tfrag
 * decoder classifies the unpacks it reports.
 *
 * Framing rules (each one was wrong once in the reference project):
 *  - the UNPACK vector format is in the command byte: vn = bits 2-3,
 *    vl = bits 0-1, element size = ((32 >> vl) * (vn + 1)) / 8 bytes;
 *  - an UNPACK payload is padded to 4 bytes: the next code sits at
 *    4 + ((num * size + 3) & ~3);
 *  - STROW/STCOL carry 16 bytes inline, STMASK 4, MPG num * 8,
 *    DIRECT/DIRECTHL imm * 16 (imm 0 means 65536); every other code is a
 *    bare 4-byte word;
 *  - a command byte that VIF1 does not define means the walk has lost sync.
 *
 * The walker reads only through gc_reader and never runs past its window. */
#ifndef GC_VIF_H
#define GC_VIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gc_reader.h"

/* VIF command bytes (bit 7, the interrupt flag, already cleared). */
enum {
    GC_VIF_NOP = 0x00,
    GC_VIF_STCYCL = 0x01,
    GC_VIF_OFFSET = 0x02,
    GC_VIF_BASE = 0x03,
    GC_VIF_ITOP = 0x04,
    GC_VIF_STMOD = 0x05,
    GC_VIF_MSKPATH3 = 0x06,
    GC_VIF_MARK = 0x07,
    GC_VIF_FLUSHE = 0x10,
    GC_VIF_FLUSH = 0x11,
    GC_VIF_FLUSHA = 0x13,
    GC_VIF_MSCAL = 0x14,
    GC_VIF_MSCALF = 0x15,
    GC_VIF_MSCNT = 0x17,
    GC_VIF_STMASK = 0x20,
    GC_VIF_STROW = 0x30,
    GC_VIF_STCOL = 0x31,
    GC_VIF_MPG = 0x4a,
    GC_VIF_DIRECT = 0x50,
    GC_VIF_DIRECTHL = 0x51,
    GC_VIF_UNPACK = 0x60, /* 0x60..0x7f: bit 4 is the mask flag, bits 0-3 vn/vl */
};

/* UNPACK vn/vl codes (formats.md §5.3), i.e. (vn << 2) | vl. */
enum {
    GC_VIF_S_32 = 0x0,
    GC_VIF_S_16 = 0x1,
    GC_VIF_S_8 = 0x2,
    GC_VIF_V2_32 = 0x4,
    GC_VIF_V2_16 = 0x5,
    GC_VIF_V2_8 = 0x6,
    GC_VIF_V3_32 = 0x8,
    GC_VIF_V3_16 = 0x9,
    GC_VIF_V3_8 = 0xa,
    GC_VIF_V4_32 = 0xc,
    GC_VIF_V4_16 = 0xd,
    GC_VIF_V4_8 = 0xe,
    GC_VIF_V4_5 = 0xf,
};

typedef enum gc_vif_error {
    GC_VIF_OK = 0,
    GC_VIF_E_CUT,     /* a code word or its payload runs past the end of the list */
    GC_VIF_E_UNKNOWN, /* a command byte VIF1 does not define: the walk lost sync */
    GC_VIF_ERROR_COUNT
} gc_vif_error;

/* One decoded VIF code. */
typedef struct gc_vif_code {
    uint32_t word;     /* the code word as stored */
    size_t ofs;        /* offset of the code word inside the list window */
    uint64_t file_ofs; /* absolute offset of the code word */
    uint8_t cmd;       /* command byte, interrupt bit cleared (0x60..0x7f for every UNPACK) */
    uint8_t num;       /* bits 16-23 as stored */
    uint16_t imm;      /* bits 0-15 */
    bool is_unpack;
    /* UNPACK only (zero otherwise) */
    uint8_t vnvl;         /* (vn << 2) | vl, from the command byte */
    uint8_t vn;           /* components - 1 */
    uint8_t vl;           /* 0 = 32-bit, 1 = 16-bit, 2 = 8-bit, 3 = 5-bit */
    bool usn;             /* imm bit 14: unsigned */
    bool flg;             /* imm bit 15: address relative to TOPS */
    bool mask;            /* command bit 4 */
    uint16_t addr_qwords; /* imm bits 0-9: VU destination, quadwords */
    uint32_t count;       /* elements (num 0 means 256) */
    uint32_t elem_bytes;  /* element size in bytes */
    /* payload: the data bytes the code carries (UNPACK: count * elem_bytes,
     * unpadded; STROW/STCOL 16; STMASK 4; MPG num*8; DIRECT imm*16). NULL
     * and 0 for bare codes. Points into the walker's window. */
    const uint8_t *payload;
    size_t payload_bytes;
    size_t payload_ofs; /* offset of the payload inside the window */
    size_t total_bytes; /* bytes the code occupies: word + payload + padding */
} gc_vif_code;

/* Framing variants. The default (0) is the correct VIF1 framing; the others
 * re-create the reference project's historical misreadings and exist for the
 * fault catalogue (decoders/gc_faults.def). */
enum {
    GC_VIF_FRAMING_IMM_NIBBLE = 1u << 0, /* element size from the immediate's low nibble */
    GC_VIF_FRAMING_PAD2 = 1u << 1,       /* unpack payloads padded to 2 bytes, not 4 */
    GC_VIF_FRAMING_NO_INLINE = 1u << 2,  /* inline payloads not skipped */
};

typedef struct gc_vif_walker {
    gc_reader r;        /* the list window; r.pos is the next code word */
    unsigned framing;   /* GC_VIF_FRAMING_* (0 = correct) */
    gc_vif_error error; /* set when gc_vif_next returns -1 */
    size_t error_ofs;   /* offset in the window of the code that failed */
    uint64_t error_file_ofs;
    uint32_t codes; /* codes walked so far */
} gc_vif_walker;

/** Element size in bytes of an UNPACK with the given vn/vl:
 *  ((32 >> vl) * (vn + 1)) / 8. V4_5 (vn 3, vl 3) is 2 bytes. */
uint32_t gc_vif_element_bytes(unsigned vn, unsigned vl);

/** Starts a walk over `list` (the whole window is the list). */
void gc_vif_begin(gc_vif_walker *w, gc_reader list, unsigned framing);

/** Decodes the next code into *out and advances past it.
 *  Returns 1 for a code, 0 at the end of the list (the window is used up
 *  exactly), -1 on an error: w->error says which (GC_VIF_E_CUT: the code or
 *  its payload runs past the window; GC_VIF_E_UNKNOWN: an undefined command),
 *  w->error_ofs / error_file_ofs say where. After an error every later call
 *  returns -1. */

/* Records error e at window offset ofs (gc_vif_next's failure path, out of
 * line; gc_vif_next then returns -1 itself, so the compiler sees that a
 * caller's code is written whenever it returns 1). */
void gc_vif_fail(gc_vif_walker *w, gc_vif_error e, size_t ofs);

/* Bytes of inline payload a non-UNPACK code carries, or -1 if the command is
 * undefined. formats.md §5.3 "Reader packet sizes". */
static inline long gc_vif_inline_bytes(uint8_t cmd, uint8_t num, uint16_t imm)
{
    switch (cmd) {
    case GC_VIF_NOP:
    case GC_VIF_STCYCL:
    case GC_VIF_OFFSET:
    case GC_VIF_BASE:
    case GC_VIF_ITOP:
    case GC_VIF_STMOD:
    case GC_VIF_MSKPATH3:
    case GC_VIF_MARK:
    case GC_VIF_FLUSHE:
    case GC_VIF_FLUSH:
    case GC_VIF_FLUSHA:
    case GC_VIF_MSCAL:
    case GC_VIF_MSCALF:
    case GC_VIF_MSCNT:
        return 0;
    case GC_VIF_STMASK:
        return 4;
    case GC_VIF_STROW:
    case GC_VIF_STCOL:
        return 16;
    case GC_VIF_MPG:
        /* num counts 64-bit microinstructions; 0 means 256 */
        return (long)(num ? num : 256) * 8;
    case GC_VIF_DIRECT:
    case GC_VIF_DIRECTHL:
        /* imm counts quadwords; 0 means 65536 */
        return (long)(imm ? imm : 65536) * 16;
    default:
        return -1;
    }
}

/* The code is written field by field into *out once it is known to fit
 * (never on failure, as before): building it in a zeroed local and copying
 * the 96-byte struct out cost ~40 of the ~120 instructions a code took, and
 * the tfrag and moby decoders walk ~1.8 M codes a retail-corpus pass.
 * Inline (the header is private to the decoders): out of line, the call's
 * register saves and restores were ~20 of the ~105 instructions a code. */
#if defined(__GNUC__)
#define GC_VIF_INLINE static inline __attribute__((always_inline))
#else
#define GC_VIF_INLINE static inline
#endif
GC_VIF_INLINE int gc_vif_next(gc_vif_walker *w, gc_vif_code *out)
{
    if (w->error != GC_VIF_OK)
        return -1;
    size_t at = w->r.pos;
    size_t left = gc_left(&w->r);
    if (left == 0)
        return 0;
    if (left < 4) {
        gc_vif_fail(w, GC_VIF_E_CUT, at);
        return -1;
    }

    const uint8_t *p = w->r.data + at;
    uint32_t word = gc_load_u32le(p);
    uint8_t cmd = (uint8_t)((word >> 24) & 0x7f);
    uint8_t num = (uint8_t)(word >> 16);
    uint16_t imm = (uint16_t)word;
    bool is_unpack = (cmd & 0x60) == 0x60;

    size_t payload, padded;
    uint8_t vnvl = 0;
    uint32_t count = 0, elem_bytes = 0;
    if (is_unpack) {
        vnvl = cmd & 0x0f;
        count = num ? num : 256;
        unsigned size_code = vnvl;
        if (w->framing & GC_VIF_FRAMING_IMM_NIBBLE)
            size_code = imm & 0x0f; /* historical misreading: format from imm */
        elem_bytes = ((32u >> (size_code & 3u)) * (((size_code >> 2) & 3u) + 1u)) / 8u;
        payload = (size_t)count * elem_bytes;
        padded = (w->framing & GC_VIF_FRAMING_PAD2) ? (payload + 1) & ~(size_t)1
                                                    : (payload + 3) & ~(size_t)3;
    } else {
        long n = gc_vif_inline_bytes(cmd, num, imm);
        if (n < 0) {
            gc_vif_fail(w, GC_VIF_E_UNKNOWN, at);
            return -1;
        }
        payload = (size_t)n;
        padded = payload;
    }

    if (payload > left - 4) {
        gc_vif_fail(w, GC_VIF_E_CUT, at);
        return -1;
    }
    /* The last code of a list may end inside its own padding when the list
     * is not padded (the padding is then the end of the list). */
    size_t total = 4 + padded;
    if (!is_unpack && (w->framing & GC_VIF_FRAMING_NO_INLINE))
        total = 4; /* historical misreading: inline payloads read as codes */
    if (total > left)
        total = left;

    out->word = word;
    out->ofs = at;
    out->file_ofs = w->r.file_ofs + at;
    out->cmd = cmd;
    out->num = num;
    out->imm = imm;
    out->is_unpack = is_unpack;
    /* UNPACK fields: zero for every other code */
    out->vnvl = vnvl;
    out->vn = (vnvl >> 2) & 3;
    out->vl = vnvl & 3;
    out->usn = is_unpack && ((imm >> 14) & 1);
    out->flg = is_unpack && ((imm >> 15) & 1);
    out->mask = is_unpack && (cmd & 0x10) != 0;
    out->addr_qwords = is_unpack ? (uint16_t)(imm & 0x3ff) : 0;
    out->count = count;
    out->elem_bytes = elem_bytes;
    out->payload = payload ? p + 4 : NULL;
    out->payload_bytes = payload;
    out->payload_ofs = payload ? at + 4 : 0;
    out->total_bytes = total;
    w->r.pos = at + total;
    w->codes++;
    return 1;
}

/** Steps over the NOP codes at the cursor (a NOP is one bare word in every
 *  framing) and returns how many: the same walk as that many gc_vif_next
 *  calls returning NOP codes (w->codes counts them), for a caller with
 *  nothing to do on a NOP. A cut word is left for gc_vif_next to report.
 *  The moby VIF lists are mostly NOPs (~70% of 1.8 M codes a corpus pass
 *  between moby and tfrag), and a full code costs ~100 instructions. */
static inline uint32_t gc_vif_skip_nops(gc_vif_walker *w)
{
    if (w->error != GC_VIF_OK)
        return 0;
    size_t pos = w->r.pos, size = w->r.size;
    uint32_t n = 0;
    while (size - pos >= 4 && (w->r.data[pos + 3] & 0x7f) == GC_VIF_NOP)
        pos += 4, n++;
    w->r.pos = pos;
    w->codes += n;
    return n;
}

/** "NOP", "STROW", "UNPACK", ...; "?" for an undefined command. */
const char *gc_vif_cmd_name(uint8_t cmd);
/** "ok", "cut", "unknown_command". */
const char *gc_vif_error_name(gc_vif_error e);

#endif
