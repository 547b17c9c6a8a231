/* SPDX-License-Identifier: MIT */
/* VIF1 code-word walker (see gc_vif.h for the framing rules and their source). */
#include "gc_vif.h"

uint32_t gc_vif_element_bytes(unsigned vn, unsigned vl)
{
    return ((32u >> (vl & 3u)) * ((vn & 3u) + 1u)) / 8u;
}

void gc_vif_begin(gc_vif_walker *w, gc_reader list, unsigned framing)
{
    w->r = list;
    w->r.pos = 0;
    w->r.overrun = false;
    w->framing = framing;
    w->error = GC_VIF_OK;
    w->error_ofs = 0;
    w->error_file_ofs = list.file_ofs;
    w->codes = 0;
}

static int fail(gc_vif_walker *w, gc_vif_error e, size_t ofs)
{
    w->error = e;
    w->error_ofs = ofs;
    w->error_file_ofs = w->r.file_ofs + ofs;
    return -1;
}

/* Bytes of inline payload a non-UNPACK code carries, or -1 if the command is
 * undefined. formats.md §5.3 "Reader packet sizes". */
static long inline_bytes(uint8_t cmd, uint8_t num, uint16_t imm)
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
 * the tfrag and moby decoders walk ~1.8 M codes a retail-corpus pass. */
int gc_vif_next(gc_vif_walker *w, gc_vif_code *out)
{
    if (w->error != GC_VIF_OK)
        return -1;
    size_t at = w->r.pos;
    size_t left = gc_left(&w->r);
    if (left == 0)
        return 0;
    if (left < 4)
        return fail(w, GC_VIF_E_CUT, at);

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
        elem_bytes = gc_vif_element_bytes((size_code >> 2) & 3, size_code & 3);
        payload = (size_t)count * elem_bytes;
        padded = (w->framing & GC_VIF_FRAMING_PAD2) ? (payload + 1) & ~(size_t)1
                                                    : (payload + 3) & ~(size_t)3;
    } else {
        long n = inline_bytes(cmd, num, imm);
        if (n < 0)
            return fail(w, GC_VIF_E_UNKNOWN, at);
        payload = (size_t)n;
        padded = payload;
    }

    if (payload > left - 4)
        return fail(w, GC_VIF_E_CUT, at);
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

const char *gc_vif_cmd_name(uint8_t cmd)
{
    cmd &= 0x7f;
    if ((cmd & 0x60) == 0x60)
        return "UNPACK";
    switch (cmd) {
    case GC_VIF_NOP:
        return "NOP";
    case GC_VIF_STCYCL:
        return "STCYCL";
    case GC_VIF_OFFSET:
        return "OFFSET";
    case GC_VIF_BASE:
        return "BASE";
    case GC_VIF_ITOP:
        return "ITOP";
    case GC_VIF_STMOD:
        return "STMOD";
    case GC_VIF_MSKPATH3:
        return "MSKPATH3";
    case GC_VIF_MARK:
        return "MARK";
    case GC_VIF_FLUSHE:
        return "FLUSHE";
    case GC_VIF_FLUSH:
        return "FLUSH";
    case GC_VIF_FLUSHA:
        return "FLUSHA";
    case GC_VIF_MSCAL:
        return "MSCAL";
    case GC_VIF_MSCALF:
        return "MSCALF";
    case GC_VIF_MSCNT:
        return "MSCNT";
    case GC_VIF_STMASK:
        return "STMASK";
    case GC_VIF_STROW:
        return "STROW";
    case GC_VIF_STCOL:
        return "STCOL";
    case GC_VIF_MPG:
        return "MPG";
    case GC_VIF_DIRECT:
        return "DIRECT";
    case GC_VIF_DIRECTHL:
        return "DIRECTHL";
    default:
        return "?";
    }
}

const char *gc_vif_error_name(gc_vif_error e)
{
    switch (e) {
    case GC_VIF_OK:
        return "ok";
    case GC_VIF_E_CUT:
        return "cut";
    case GC_VIF_E_UNKNOWN:
        return "unknown_command";
    default:
        return "?";
    }
}
