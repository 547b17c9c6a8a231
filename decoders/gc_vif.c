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
    gc_vif_code c = {0};
    c.word = word;
    c.ofs = at;
    c.file_ofs = w->r.file_ofs + at;
    c.cmd = (uint8_t)((word >> 24) & 0x7f);
    c.num = (uint8_t)(word >> 16);
    c.imm = (uint16_t)word;

    size_t payload = 0, padded = 0;
    if ((c.cmd & 0x60) == 0x60) {
        c.is_unpack = true;
        c.vnvl = c.cmd & 0x0f;
        c.vn = (c.vnvl >> 2) & 3;
        c.vl = c.vnvl & 3;
        c.mask = (c.cmd & 0x10) != 0;
        c.usn = (c.imm >> 14) & 1;
        c.flg = (c.imm >> 15) & 1;
        c.addr_qwords = c.imm & 0x3ff;
        c.count = c.num ? c.num : 256;
        unsigned size_code = c.vnvl;
        if (w->framing & GC_VIF_FRAMING_IMM_NIBBLE)
            size_code = c.imm & 0x0f; /* historical misreading: format from imm */
        c.elem_bytes = gc_vif_element_bytes((size_code >> 2) & 3, size_code & 3);
        payload = (size_t)c.count * c.elem_bytes;
        padded = (w->framing & GC_VIF_FRAMING_PAD2) ? (payload + 1) & ~(size_t)1
                                                    : (payload + 3) & ~(size_t)3;
    } else {
        long n = inline_bytes(c.cmd, c.num, c.imm);
        if (n < 0)
            return fail(w, GC_VIF_E_UNKNOWN, at);
        payload = (size_t)n;
        padded = payload;
    }

    if (payload > left - 4)
        return fail(w, GC_VIF_E_CUT, at);
    if (payload) {
        c.payload = p + 4;
        c.payload_bytes = payload;
        c.payload_ofs = at + 4;
    }
    /* The last code of a list may end inside its own padding when the list
     * is not padded (the padding is then the end of the list). */
    size_t total = 4 + padded;
    if (!c.is_unpack && (w->framing & GC_VIF_FRAMING_NO_INLINE))
        total = 4; /* historical misreading: inline payloads read as codes */
    if (total > left)
        total = left;
    c.total_bytes = total;
    w->r.pos = at + total;
    w->codes++;
    *out = c;
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
